/* taskir_kernels.h - v0.1 - reference and SIMD kernels of Task IR.

   Part of taskir (header-only C99, stb style). This header stands alone: it
   needs no other taskir header, never allocates (the caller passes every
   buffer, including scratch) and never prints, so it fits firmware.

   DO THIS in *one* C or C++ file:
       #define TASKIR_IMPLEMENTATION
       #include "taskir_kernels.h"
   Other files include it without the define.

   OPTIONS (define before the implementing include)
       TASKIR_NO_SIMD      use the plain C reference for everything (global)
       TASKIR_STATIC       make every function static (per translation unit)
       TASKIR_ASSERT(x)    programmer-error checks; default assert(x)

   ERRORS
       Every kernel returns a ti_status: TI_STATUS_SUCCESS, or BAD_PARAM for a
       malformed call, NOT_SUPPORTED for what the kernel does not do. Kernels
       never abort on bad arguments.

   LICENSE: MIT, see the end of this file.
*/
#ifndef TASKIR_KERNELS_H
#define TASKIR_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifndef TASKIR_API
#ifdef TASKIR_STATIC
#define TASKIR_API static
#else
#define TASKIR_API extern
#endif
#endif

/* ti_status and ti_dtype are shared by every taskir header; the block is kept
   identical in taskir.h and taskir_kernels.h (tests/test_common.c checks it). */
#ifndef TI_COMMON_TYPES_DEFINED
#define TI_COMMON_TYPES_DEFINED
typedef enum ti_status {
  TI_STATUS_SUCCESS = 0,
  TI_STATUS_BAD_PARAM,      /* malformed arguments or input data */
  TI_STATUS_NOT_SUPPORTED,  /* well-formed, but beyond what is implemented */
  TI_STATUS_NO_MEMORY,      /* an allocation failed */
  TI_STATUS_PARSE_ERROR,    /* malformed file: protobuf, text format, IR text */
  TI_STATUS_INVALID,        /* a graph or program fails the verifier/checker */
  TI_STATUS_NOT_FOUND,      /* a name, id or socket that does not exist */
  TI_STATUS_IO_ERROR,       /* a file could not be read or written */
  TI_STATUS_LIMIT,          /* a configured limit (depth, size, count) exceeded */
  TI_STATUS_COUNT
} ti_status;

/* Element types. 0..10 follow the order of Task IR's Precision enum. */
typedef enum ti_dtype {
  TI_DTYPE_I8 = 0, TI_DTYPE_U8, TI_DTYPE_I16, TI_DTYPE_U16, TI_DTYPE_I32,
  TI_DTYPE_U32, TI_DTYPE_F16, TI_DTYPE_F32, TI_DTYPE_TERNARY, TI_DTYPE_I28,
  TI_DTYPE_U4, TI_DTYPE_I9, TI_DTYPE_I64, TI_DTYPE_F64, TI_DTYPE_BOOL,
  TI_DTYPE_COUNT
} ti_dtype;
#endif /* TI_COMMON_TYPES_DEFINED */

#ifdef __cplusplus
extern "C" {
#endif

/* >>kernels.common ------------------------------------------------------- */

/* Bytes per element of a dtype as the kernels store it (TERNARY and I9 in 8
   and 16 bits, I28 and U4 in 32 and 8 bits); 0 for an unknown dtype. */
TASKIR_API size_t ti_dtype_size(ti_dtype t);

/* SIMD paths a kernel may take. On x86-64 ti_cpu_detect() reads cpuid (and
   xgetbv for OS support of the wide registers); on aarch64 NEON is a compile-
   time fact; under TASKIR_NO_SIMD it returns 0. */
enum {
  TI_CPU_SSE2 = 1u << 0, TI_CPU_SSSE3 = 1u << 1, TI_CPU_SSE41 = 1u << 2,
  TI_CPU_AVX2 = 1u << 3,          /* with FMA and F16C */
  TI_CPU_AVX512 = 1u << 4,        /* F + BW + DQ + VL */
  TI_CPU_AVX512VNNI = 1u << 5, TI_CPU_AVXVNNI = 1u << 6,
  TI_CPU_NEON = 1u << 8, TI_CPU_NEON_DOTPROD = 1u << 9
};
TASKIR_API unsigned ti_cpu_detect(void);

/* Optional parallelism. A kernel cuts its work into the index range [0, n)
   and, when the caller supplied parallel_for, hands it the range; the hook
   may call fn on disjoint sub-ranges from any threads and returns when all
   are done. NULL: the kernel calls fn(arg, 0, n) itself. */
typedef void (*ti_range_fn)(void *arg, int64_t begin, int64_t end);
typedef void (*ti_parallel_for_fn)(void *user, int64_t n, ti_range_fn fn, void *arg);

typedef struct ti_kernel_ctx {
  unsigned cpu;                     /* TI_CPU_* paths allowed; 0 = reference only */
  ti_parallel_for_fn parallel_for;  /* NULL = single-threaded */
  void *parallel_user;
} ti_kernel_ctx;

/* cpu = ti_cpu_detect(), single-threaded. A NULL ctx given to any kernel
   means the same. */
TASKIR_API void ti_kernel_ctx_init(ti_kernel_ctx *ctx);

/* Shape and attributes of one Task IR compute block, as the primitives take
   them. Data layouts are the Task IR storage layouts: activations [y][x][f]
   (or [f] for the 1-D forms, ny = nx = 1), conv input [niy][nix][nr],
   weights [nf][nr][nky][nkx], FC weights [nf][nr], bias [nf] int32. */
typedef enum ti_bias_mode {
  TI_BIAS_NONE = 0,      /* no bias */
  TI_BIAS_VECTOR,        /* bias[f] from an SB block, int32 */
  TI_BIAS_CONSTANT       /* constant_b for every element */
} ti_bias_mode;

typedef struct ti_prim_desc {
  int32_t ny, nx, nf;              /* output */
  int32_t nr;                      /* reduction length (CC: input channels, CVM: input length) */
  int32_t nky, nkx;                /* window */
  int32_t niy, nix;                /* input height/width of windowed blocks */
  int32_t n_branch;                /* CADD: number of summed inputs */
  int32_t stride_y, stride_x;      /* 0 means 1 */
  int32_t dilation_y, dilation_x;  /* 0 means 1 */
  int32_t pad_up, pad_down, pad_left, pad_right;
  ti_dtype in_dtype;               /* activations: I8, U8, TERNARY, I32 or F32 */
  ti_dtype w_dtype;                /* weights / second operand / alpha */
  ti_dtype out_dtype;              /* block precision (CCMPB clips to its max) */
  ti_bias_mode bias_mode;
  int32_t constant_a, constant_b;
  int32_t cmp, bit_shift, lut_dw;
} ti_prim_desc;


/* >>kernels.tinshift ----------------------------------------------------- */

/* TinShift (temporal interlaced shift; mmcv tin_shift, Cambricon mlu-ops
   mluOpTinShiftForward/Backward).

     input   [N][T][C][HW]  f32 or f16     shifts [N][G] int32, C % G == 0
     group of channel c:  g = c / (C / G)
     forward   out[n][t][c][hw] = in[n][t - s][c][hw]  if 0 <= t - s < T, else 0
     backward  gin[n][t][c][hw] = gout[n][t + s][c][hw] if 0 <= t + s < T, else 0
               (s = shifts[n][g]; the true adjoint of forward:
                <forward(x), y> == <x, backward(y)>)

   Both are pure data movement: f16 is a 16-bit move and f32 a 32-bit move, so
   every bit pattern (NaN payloads, -0, Inf) comes out unchanged. |s| >= T
   gives zeros for that group. Input and output must not overlap.

   Compatibility: mmcv and mlu-ops compute the backward pass by running the
   forward again with +s (their tests encode it). ti_tinshift_backward_compat
   (or TI_TINSHIFT_BACKWARD_COMPAT) gives that result, so gradients can be
   compared with theirs; it is NOT the adjoint of forward.

   Checks, in this order (the first failing rule decides the status):
     1  a NULL descriptor                                       BAD_PARAM
        (ti_tinshift_ex: an unknown mode first)
     2  input ndim != 4, shifts ndim != 2, output ndim != input ndim,
        C <= 0, G <= 0, C % G != 0, an input/output dim differs,
        shifts dims[0] != N                                     BAD_PARAM
     3  shifts dtype not I32, input dtype not F16/F32,
        output dtype != input dtype                             BAD_PARAM
     4  N <= 0, HW <= 0 or T < 0                                BAD_PARAM
     5  N*T*C*HW >= 2^31                                        NOT_SUPPORTED
     6  T == 0: nothing to do                                   SUCCESS
     7  a NULL data pointer                                     BAD_PARAM

   Speed: the work is a sequence of contiguous runs of (C/G)*HW elements
   (groups with equal shifts merged), written in output order; outputs of at
   least TASKIR_KERNELS_STREAM_BYTES (default 16 MiB) are written with
   non-temporal stores on x86-64. */
#define TI_TENSOR_MAX_DIMS 8

/* A dense row-major tensor: dims[0] slowest, dims[ndim - 1] fastest. */
typedef struct ti_tensor_desc {
  ti_dtype dtype;
  int32_t ndim;                       /* 0..TI_TENSOR_MAX_DIMS */
  int64_t dims[TI_TENSOR_MAX_DIMS];
} ti_tensor_desc;

/* Fills d (dims beyond ndim zeroed; at most TI_TENSOR_MAX_DIMS copied, the
   ndim given is kept so a bad one is reported by the kernel). */
TASKIR_API void ti_tensor_desc_set(ti_tensor_desc *d, ti_dtype dtype, int32_t ndim,
                                   const int64_t *dims);

typedef enum ti_tinshift_mode {
  TI_TINSHIFT_FORWARD = 0,       /* out[t] = in[t - s] */
  TI_TINSHIFT_BACKWARD,          /* adjoint: grad_in[t] = grad_out[t + s] */
  TI_TINSHIFT_BACKWARD_COMPAT,   /* mmcv / mlu-ops: grad_in[t] = grad_out[t - s] */
  TI_TINSHIFT_MODE_COUNT
} ti_tinshift_mode;

TASKIR_API ti_status ti_tinshift_forward(const ti_tensor_desc *input_desc, const void *input,
                                         const ti_tensor_desc *shifts_desc, const void *shifts,
                                         const ti_tensor_desc *output_desc, void *output);
TASKIR_API ti_status ti_tinshift_backward(const ti_tensor_desc *grad_output_desc,
                                          const void *grad_output,
                                          const ti_tensor_desc *shifts_desc, const void *shifts,
                                          const ti_tensor_desc *grad_input_desc, void *grad_input);
/* Backward as mmcv / mlu-ops compute it (forward with +s); for validation. */
TASKIR_API ti_status ti_tinshift_backward_compat(const ti_tensor_desc *grad_output_desc,
                                                 const void *grad_output,
                                                 const ti_tensor_desc *shifts_desc,
                                                 const void *shifts,
                                                 const ti_tensor_desc *grad_input_desc,
                                                 void *grad_input);
/* All three, with a kernel context (parallel_for splits the N*T output rows;
   NULL ctx = single-threaded). src/dst are input/output (forward) or
   grad_output/grad_input (backward). */
TASKIR_API ti_status ti_tinshift_ex(const ti_kernel_ctx *ctx, ti_tinshift_mode mode,
                                    const ti_tensor_desc *src_desc, const void *src,
                                    const ti_tensor_desc *shifts_desc, const void *shifts,
                                    const ti_tensor_desc *dst_desc, void *dst);

/* >>kernels.conv: CC, CC2D, CVM ------------------------------------------ */

/* >>kernels.eltwise: CADD, CAVG, CVVH, CAX, CVS, CCMPB, CCMPS, CLUT, CLIF -- */

/* >>kernels.rearrange ---------------------------------------------------- */

#ifdef __cplusplus
}
#endif
#endif /* TASKIR_KERNELS_H */

/* ======================================================================== */
#if defined(TASKIR_IMPLEMENTATION) && !defined(TASKIR_KERNELS_IMPL_INCLUDED)
#define TASKIR_KERNELS_IMPL_INCLUDED

#ifndef TASKIR_ASSERT
#include <assert.h>
#define TASKIR_ASSERT(x) assert(x)
#endif

/* >>kernels.impl.common -------------------------------------------------- */

#if !defined(TASKIR_NO_SIMD) && (defined(__x86_64__) || defined(_M_X64))
#define TI__X86 1
#if defined(_MSC_VER)
#include <intrin.h>
#else
#include <cpuid.h>
#endif
#include <immintrin.h>
#elif !defined(TASKIR_NO_SIMD) && (defined(__aarch64__) || defined(_M_ARM64))
#define TI__NEON 1
#include <arm_neon.h>
#endif

/* Static helper; unused-safe under -Wall. */
#if defined(__GNUC__) || defined(__clang__)
#define TI__PRIVATE static __attribute__((unused))
#else
#define TI__PRIVATE static
#endif

TASKIR_API size_t ti_dtype_size(ti_dtype t) {
  switch (t) {
  case TI_DTYPE_I8: case TI_DTYPE_U8: case TI_DTYPE_TERNARY: case TI_DTYPE_U4:
  case TI_DTYPE_BOOL: return 1;
  case TI_DTYPE_I16: case TI_DTYPE_U16: case TI_DTYPE_F16: case TI_DTYPE_I9: return 2;
  case TI_DTYPE_I32: case TI_DTYPE_U32: case TI_DTYPE_F32: case TI_DTYPE_I28: return 4;
  case TI_DTYPE_I64: case TI_DTYPE_F64: return 8;
  default: return 0;
  }
}

#if defined(TI__X86)
static void ti__cpuid(unsigned leaf, unsigned sub, unsigned r[4]) {
#if defined(_MSC_VER)
  int x[4]; __cpuidex(x, (int)leaf, (int)sub);
  r[0] = (unsigned)x[0]; r[1] = (unsigned)x[1]; r[2] = (unsigned)x[2]; r[3] = (unsigned)x[3];
#else
  __cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
#endif
}
static unsigned long long ti__xgetbv0(void) {
#if defined(_MSC_VER)
  return _xgetbv(0);
#else
  unsigned lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return ((unsigned long long)hi << 32) | lo;
#endif
}
#endif

TASKIR_API unsigned ti_cpu_detect(void) {
  unsigned f = 0;
#if defined(TI__X86)
  unsigned r[4], max_leaf, ecx1;
  unsigned long long xcr0 = 0;
  ti__cpuid(0, 0, r); max_leaf = r[0];
  ti__cpuid(1, 0, r); ecx1 = r[2];
  f |= TI_CPU_SSE2;                       /* baseline of x86-64 */
  if (ecx1 & (1u << 9)) f |= TI_CPU_SSSE3;
  if (ecx1 & (1u << 19)) f |= TI_CPU_SSE41;
  if (ecx1 & (1u << 27)) xcr0 = ti__xgetbv0();   /* OSXSAVE */
  if (max_leaf >= 7 && (xcr0 & 0x6) == 0x6) {
    unsigned b7, c7, a71;
    ti__cpuid(7, 0, r); b7 = r[1]; c7 = r[2];
    ti__cpuid(7, 1, r); a71 = r[0];
    if ((b7 & (1u << 5)) && (ecx1 & (1u << 12)) && (ecx1 & (1u << 29))) f |= TI_CPU_AVX2;
    if ((f & TI_CPU_AVX2) && (a71 & (1u << 4))) f |= TI_CPU_AVXVNNI;
    if ((xcr0 & 0xe0) == 0xe0 && (b7 & (1u << 16)) && (b7 & (1u << 17)) &&
        (b7 & (1u << 30)) && (b7 & (1u << 31))) {
      f |= TI_CPU_AVX512;
      if (c7 & (1u << 11)) f |= TI_CPU_AVX512VNNI;
    }
  }
#elif defined(TI__NEON)
  f |= TI_CPU_NEON;
#if defined(__ARM_FEATURE_DOTPROD)
  f |= TI_CPU_NEON_DOTPROD;
#endif
#endif
  return f;
}

TASKIR_API void ti_kernel_ctx_init(ti_kernel_ctx *ctx) {
  if (!ctx) return;
  ctx->cpu = ti_cpu_detect();
  ctx->parallel_for = 0;
  ctx->parallel_user = 0;
}

/* Runs fn over [0, n), through the caller's parallel-for when there is one. */
TI__PRIVATE void ti__parallel(const ti_kernel_ctx *ctx, int64_t n, ti_range_fn fn, void *arg) {
  if (n <= 0) return;
  if (ctx && ctx->parallel_for) ctx->parallel_for(ctx->parallel_user, n, fn, arg);
  else fn(arg, 0, n);
}

/* cpu flags a kernel may use: none under a NULL ctx's default is detection. */
TI__PRIVATE unsigned ti__cpu(const ti_kernel_ctx *ctx) {
  return ctx ? ctx->cpu : ti_cpu_detect();
}


/* >>kernels.impl.tinshift ------------------------------------------------ */

#include <string.h>

#ifndef TASKIR_KERNELS_STREAM_BYTES
/* Outputs this large bypass the caches (non-temporal stores) on x86-64:
   below it the written data is likely reused from cache, above it the
   read-for-ownership of normal stores costs more than it saves. */
#define TASKIR_KERNELS_STREAM_BYTES ((size_t)16 << 20)
#endif

/* Read-only zeros: the source of zero-filled runs of up to 64 bytes. */
static const unsigned char ti__mv_zeros[64] = {0};

/* memcpy for byte counts that are often small: overlapping fixed-size moves,
   which compile to a few loads and stores instead of a library call. */
TI__PRIVATE void ti__mv_copy(unsigned char *d, const unsigned char *s, size_t n) {
  if (n <= 16) {
    if (n >= 8) {
      uint64_t a, b; memcpy(&a, s, 8); memcpy(&b, s + n - 8, 8);
      memcpy(d, &a, 8); memcpy(d + n - 8, &b, 8);
    } else if (n >= 4) {
      uint32_t a, b; memcpy(&a, s, 4); memcpy(&b, s + n - 4, 4);
      memcpy(d, &a, 4); memcpy(d + n - 4, &b, 4);
    } else if (n >= 2) {
      uint16_t a, b; memcpy(&a, s, 2); memcpy(&b, s + n - 2, 2);
      memcpy(d, &a, 2); memcpy(d + n - 2, &b, 2);
    } else if (n) {
      d[0] = s[0];
    }
  } else if (n <= 32) {
    unsigned char a[16], b[16]; memcpy(a, s, 16); memcpy(b, s + n - 16, 16);
    memcpy(d, a, 16); memcpy(d + n - 16, b, 16);
  } else if (n <= 64) {
    unsigned char a[32], b[32]; memcpy(a, s, 32); memcpy(b, s + n - 32, 32);
    memcpy(d, a, 32); memcpy(d + n - 32, b, 32);
  } else if (n < 4096) {
    /* 64-byte moves and an overlapping last one: cheaper than a library
       call for the short runs the shift kernels make */
    unsigned char a[64];
    size_t i;
    for (i = 0; i + 64 <= n; i += 64) { memcpy(a, s + i, 64); memcpy(d + i, a, 64); }
    if (i < n) { memcpy(a, s + n - 64, 64); memcpy(d + n - 64, a, 64); }
  } else {
    memcpy(d, s, n);
  }
}

TI__PRIVATE void ti__mv_zero(unsigned char *d, size_t n) {
  if (n <= 64) ti__mv_copy(d, ti__mv_zeros, n);
  else memset(d, 0, n);
}

/* Sequential output writer. Normal mode stores directly. Streaming mode
   (x86-64) writes whole aligned 64-byte lines with non-temporal stores;
   pieces shorter than a line are gathered in a small buffer first so that no
   line is written half by normal and half by streaming stores. */
#define TI__WR_CAP 2048
typedef struct ti__wr {
  unsigned char *out;   /* where buf[0] (or the next direct byte) goes */
  size_t head;          /* bytes still written directly until out is aligned */
  size_t fill;          /* bytes gathered in buf */
  int stream;
  unsigned char buf[TI__WR_CAP + 256];
} ti__wr;

#if defined(TI__X86)
static void ti__wr_lines(unsigned char *d, const unsigned char *s, size_t n) {
  size_t i;
  if (s) {
    for (i = 0; i < n; i += 64) {
      __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
      __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 16));
      __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 32));
      __m128i e = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 48));
      _mm_stream_si128((__m128i *)(void *)(d + i), a);
      _mm_stream_si128((__m128i *)(void *)(d + i + 16), b);
      _mm_stream_si128((__m128i *)(void *)(d + i + 32), c);
      _mm_stream_si128((__m128i *)(void *)(d + i + 48), e);
    }
  } else {
    __m128i z = _mm_setzero_si128();
    for (i = 0; i < n; i += 64) {
      _mm_stream_si128((__m128i *)(void *)(d + i), z);
      _mm_stream_si128((__m128i *)(void *)(d + i + 16), z);
      _mm_stream_si128((__m128i *)(void *)(d + i + 32), z);
      _mm_stream_si128((__m128i *)(void *)(d + i + 48), z);
    }
  }
}
#endif

static void ti__wr_init(ti__wr *w, unsigned char *out, int stream) {
  w->out = out; w->fill = 0; w->head = 0; w->stream = 0;
#if defined(TI__X86)
  if (stream) {
    w->stream = 1;
    w->head = (size_t)(-(intptr_t)out) & 63;
  }
#else
  (void)stream;
#endif
}

/* Appends n bytes from s, or n zero bytes when s is NULL. */
static void ti__wr_put(ti__wr *w, const unsigned char *s, size_t n) {
  if (!w->stream) {
    if (s) ti__mv_copy(w->out, s, n); else ti__mv_zero(w->out, n);
    w->out += n;
    return;
  }
#if defined(TI__X86)
  if (w->head) {
    size_t k = n < w->head ? n : w->head;
    if (s) { ti__mv_copy(w->out, s, k); s += k; } else ti__mv_zero(w->out, k);
    w->out += k; w->head -= k; n -= k;
    if (!n) return;
  }
  if (n < 256) {
    if (w->fill + n > TI__WR_CAP) {
      size_t k = w->fill & ~(size_t)63;
      ti__wr_lines(w->out, w->buf, k);
      w->out += k;
      memmove(w->buf, w->buf + k, w->fill - k);
      w->fill -= k;
    }
    if (s) ti__mv_copy(w->buf + w->fill, s, n); else ti__mv_zero(w->buf + w->fill, n);
    w->fill += n;
    return;
  }
  if (w->fill) {  /* top the buffer up to a line boundary and flush it */
    size_t k = (64 - (w->fill & 63)) & 63;
    if (s) { ti__mv_copy(w->buf + w->fill, s, k); s += k; } else ti__mv_zero(w->buf + w->fill, k);
    w->fill += k; n -= k;
    ti__wr_lines(w->out, w->buf, w->fill);
    w->out += w->fill; w->fill = 0;
  }
  {
    size_t k = n & ~(size_t)63;
    ti__wr_lines(w->out, s, k);
    w->out += k; n -= k;
    if (s) s += k;
  }
  if (n) {
    if (s) ti__mv_copy(w->buf, s, n); else ti__mv_zero(w->buf, n);
    w->fill = n;
  }
#endif
}

static void ti__wr_finish(ti__wr *w) {
#if defined(TI__X86)
  if (w->stream) {
    size_t k = w->fill & ~(size_t)63;
    ti__wr_lines(w->out, w->buf, k);
    ti__mv_copy(w->out + k, w->buf + k, w->fill - k);
    w->out += w->fill; w->fill = 0;
    _mm_sfence();  /* streaming stores are weakly ordered */
  }
#else
  (void)w;
#endif
}

typedef struct ti__ts_job {
  const unsigned char *src;
  unsigned char *dst;
  const int32_t *shifts;
  int64_t T, G;
  size_t piece;     /* bytes of one group in one row: (C/G)*HW*elem */
  size_t row;       /* bytes of one (n, t) row: C*HW*elem */
  int sign;         /* +1: t - s; -1: t + s */
  int stream;       /* the whole output is large enough to stream */
} ti__ts_job;

#if defined(__GNUC__) || defined(__clang__)
#define TI__MV_PREFETCH(p) __builtin_prefetch(p)
#else
#define TI__MV_PREFETCH(p) ((void)(p))
#endif

/* The pieces of groups [g0, g1) of rows [r0, r1), written one after another
   from d. One fixed-size move per piece for the common small sizes, so the
   inner loop is the address arithmetic, a load and a store; zero-filled
   pieces read a constant block, so the loop has no data-dependent branch. */
#define TI__TS_GATHER(BYTES)                                                     \
  for (r = r0; r < r1; ++r) {                                                    \
    const int32_t *sh = j->shifts + n * G;                                       \
    const unsigned char *base = j->src + (size_t)(n * T) * row + (size_t)g0 * (BYTES); \
    for (g = g0; g < g1; ++g, base += (BYTES), d += (BYTES)) {                   \
      const int64_t st = t - sign * sh[g];                                       \
      memcpy(d, (uint64_t)st < (uint64_t)T ? base + (size_t)st * row : ti__mv_zeros, \
             (BYTES));                                                           \
    }                                                                            \
    if (++t == T) { t = 0; ++n; }                                                \
  }
static void ti__ts_gather(const ti__ts_job *j, int64_t r0, int64_t r1, int64_t g0, int64_t g1,
                          unsigned char *d) {
  const int64_t T = j->T, G = j->G, sign = j->sign;
  const size_t row = j->row, piece = j->piece;
  int64_t n = r0 / T, t = r0 % T, r, g;
  switch (piece) {
  case 2: TI__TS_GATHER(2) break;
  case 4: TI__TS_GATHER(4) break;
  case 8: TI__TS_GATHER(8) break;
  case 16: TI__TS_GATHER(16) break;
  case 32: TI__TS_GATHER(32) break;
  case 64: TI__TS_GATHER(64) break;
  default:
    for (r = r0; r < r1; ++r) {
      const int32_t *sh = j->shifts + n * G;
      const unsigned char *base = j->src + (size_t)(n * T) * row + (size_t)g0 * piece;
      for (g = g0; g < g1; ++g, base += piece, d += piece) {
        const int64_t st = t - sign * sh[g];
        ti__mv_copy(d, (uint64_t)st < (uint64_t)T ? base + (size_t)st * row : ti__mv_zeros,
                    piece);
      }
      if (++t == T) { t = 0; ++n; }
    }
  }
}
#undef TI__TS_GATHER

/* Rows (n, ta..tb) into d, group by group: a group is a zero run, a run of
   copies at the row stride and a zero run, with no per-piece index math.
   The block stays in L1 while its columns are filled. */
#define TI__TS_COLS(BYTES)                                                       \
  for (g = 0; g < G; ++g) {                                                      \
    const int64_t s = sign * sh[g];                                              \
    const int64_t lo = s > ta ? (s < tb ? s : tb) : ta;                          \
    const int64_t hi = T + s < tb ? (T + s > lo ? T + s : lo) : tb;              \
    unsigned char *q = d + (size_t)g * (BYTES);                                  \
    int64_t t;                                                                   \
    for (t = ta; t < lo; ++t, q += row) memset(q, 0, (BYTES));                   \
    if (lo < hi) {                                                               \
      const unsigned char *p = srcn + (size_t)(lo - s) * row + (size_t)g * (BYTES); \
      for (; t < hi; ++t, q += row, p += row) memcpy(q, p, (BYTES));             \
    }                                                                            \
    for (; t < tb; ++t, q += row) memset(q, 0, (BYTES));                         \
  }
static void ti__ts_cols(const ti__ts_job *j, int64_t n, int64_t ta, int64_t tb, unsigned char *d) {
  const int64_t T = j->T, G = j->G, sign = j->sign;
  const size_t row = j->row, piece = j->piece;
  const int32_t *sh = j->shifts + n * G;
  const unsigned char *srcn = j->src + (size_t)(n * T) * row;
  int64_t g;
  switch (piece) {
  case 2: TI__TS_COLS(2) break;
  case 4: TI__TS_COLS(4) break;
  case 8: TI__TS_COLS(8) break;
  case 16: TI__TS_COLS(16) break;
  case 32: TI__TS_COLS(32) break;
  case 64: TI__TS_COLS(64) break;
  default:
    for (g = 0; g < G; ++g) {
      const int64_t s = sign * sh[g];
      const int64_t lo = s > ta ? (s < tb ? s : tb) : ta;
      const int64_t hi = T + s < tb ? (T + s > lo ? T + s : lo) : tb;
      unsigned char *q = d + (size_t)g * piece;
      int64_t t;
      for (t = ta; t < lo; ++t, q += row) ti__mv_zero(q, piece);
      if (lo < hi) {
        const unsigned char *p = srcn + (size_t)(lo - s) * row + (size_t)g * piece;
        for (; t < hi; ++t, q += row, p += row) ti__mv_copy(q, p, piece);
      }
      for (; t < tb; ++t, q += row) ti__mv_zero(q, piece);
    }
  }
}
#undef TI__TS_COLS

/* Output rows r = n*T + t in [r0, r1). */
static void ti__ts_rows(void *arg, int64_t r0, int64_t r1) {
  const ti__ts_job *j = (const ti__ts_job *)arg;
  const int64_t T = j->T, G = j->G, sign = j->sign;
  const size_t piece = j->piece, row = j->row;
  int64_t r, n, t;
  ti__wr w;
  if (piece <= 64) {
    /* Small pieces: column by column within each image n. Streaming: build
       whole rows in an L1-resident block and stream the block out. */
    unsigned char stage[4096];
    const int64_t k = (int64_t)(sizeof stage / row);
    if (j->stream && k == 0) {
      /* rows longer than the block: gather row pieces in segments */
      const int64_t kg = (int64_t)(sizeof stage / piece);
      int64_t g;
      ti__wr_init(&w, j->dst + (size_t)r0 * row, 1);
      for (r = r0; r < r1; ++r)
        for (g = 0; g < G; g += kg) {
          const int64_t e = G - g < kg ? G : g + kg;
          ti__ts_gather(j, r, r + 1, g, e, stage);
          ti__wr_put(&w, stage, (size_t)(e - g) * piece);
        }
      ti__wr_finish(&w);
      return;
    }
    ti__wr_init(&w, j->dst + (size_t)r0 * row, j->stream);
    for (r = r0; r < r1;) {
      const int64_t ta = r % T, tb = T - ta < r1 - r ? T : ta + (r1 - r);
      n = r / T;
      if (!j->stream) {
        ti__ts_cols(j, n, ta, tb, j->dst + (size_t)r * row);
      } else {
        for (t = ta; t < tb; t += k) {
          const int64_t e = tb - t < k ? tb : t + k;
          ti__ts_cols(j, n, t, e, stage);
          ti__wr_put(&w, stage, (size_t)(e - t) * row);
        }
      }
      r += tb - ta;
    }
    if (j->stream) ti__wr_finish(&w);
    return;
  }
  /* Longer pieces: merge neighbouring groups with the same source row (equal
     shifts) or that are both zero-filled into one run. Pieces shorter than a
     page start a new stream at every row, which the hardware prefetchers pick
     up late: prefetch the next row's sources while copying this one. */
  ti__wr_init(&w, j->dst + (size_t)r0 * row, j->stream);
  n = r0 / T; t = r0 % T;
  for (r = r0; r < r1; ++r) {
    const int32_t *sh = j->shifts + n * G;
    const unsigned char *base = j->src + (size_t)(n * T) * row;
    int64_t g = 0;
    if (piece < 4096 && r + 1 < r1) {
      const int64_t t1 = t + 1 == T ? 0 : t + 1;
      const int32_t *sh1 = t1 ? sh : sh + G;
      const unsigned char *base1 = t1 ? base : base + (size_t)T * row;
      for (g = 0; g < G; ++g) {
        const int64_t st = t1 - sign * sh1[g];
        if ((uint64_t)st < (uint64_t)T) {
          const unsigned char *p = base1 + (size_t)st * row + (size_t)g * piece;
          size_t o;
          for (o = 0; o < piece; o += 64) TI__MV_PREFETCH(p + o);
        }
      }
      g = 0;
    }
    while (g < G) {
      const int64_t st = t - sign * sh[g];
      const int valid = (uint64_t)st < (uint64_t)T;
      int64_t g1 = g + 1;
      if (valid) {
        while (g1 < G && sh[g1] == sh[g]) ++g1;
      } else {
        while (g1 < G && (uint64_t)(t - sign * sh[g1]) >= (uint64_t)T) ++g1;
      }
      ti__wr_put(&w, valid ? base + (size_t)st * row + (size_t)g * piece : 0,
                 (size_t)(g1 - g) * piece);
      g = g1;
    }
    if (++t == T) { t = 0; ++n; }
  }
  ti__wr_finish(&w);
}

TASKIR_API void ti_tensor_desc_set(ti_tensor_desc *d, ti_dtype dtype, int32_t ndim,
                                   const int64_t *dims) {
  int32_t i;
  if (!d) return;
  d->dtype = dtype;
  d->ndim = ndim;
  for (i = 0; i < TI_TENSOR_MAX_DIMS; ++i)
    d->dims[i] = (dims && i < ndim) ? dims[i] : 0;
}

TASKIR_API ti_status ti_tinshift_ex(const ti_kernel_ctx *ctx, ti_tinshift_mode mode,
                                    const ti_tensor_desc *xd, const void *x,
                                    const ti_tensor_desc *sd, const void *shifts,
                                    const ti_tensor_desc *yd, void *y) {
  int64_t N, T, C, HW, G, count;
  size_t es;
  int i;
  ti__ts_job job;
  if ((unsigned)mode >= (unsigned)TI_TINSHIFT_MODE_COUNT) return TI_STATUS_BAD_PARAM;
  /* 1: descriptors */
  if (!xd || !sd || !yd) return TI_STATUS_BAD_PARAM;
  /* 2: ranks and shapes */
  if (xd->ndim != 4 || sd->ndim != 2 || yd->ndim != xd->ndim) return TI_STATUS_BAD_PARAM;
  N = xd->dims[0]; T = xd->dims[1]; C = xd->dims[2]; HW = xd->dims[3]; G = sd->dims[1];
  if (C <= 0 || G <= 0 || C % G != 0) return TI_STATUS_BAD_PARAM;
  for (i = 0; i < 4; ++i)
    if (xd->dims[i] != yd->dims[i]) return TI_STATUS_BAD_PARAM;
  if (sd->dims[0] != N) return TI_STATUS_BAD_PARAM;
  /* 3: dtypes */
  if (sd->dtype != TI_DTYPE_I32) return TI_STATUS_BAD_PARAM;
  if (xd->dtype != TI_DTYPE_F16 && xd->dtype != TI_DTYPE_F32) return TI_STATUS_BAD_PARAM;
  if (yd->dtype != xd->dtype) return TI_STATUS_BAD_PARAM;
  /* 4: zero elements in a dimension other than T */
  if (N <= 0 || HW <= 0 || T < 0) return TI_STATUS_BAD_PARAM;
  /* 5: size limit (counted without overflow: every factor is now >= 0) */
  {
    const int64_t lim = (int64_t)1 << 31;
    int64_t f[4];
    f[0] = N; f[1] = T; f[2] = C; f[3] = HW;
    count = 1;
    for (i = 0; i < 4; ++i) {
      if (f[i] == 0) { count = 0; break; }
      if (count > lim / f[i]) { count = lim; }
      else count *= f[i];
    }
    if (count >= lim) return TI_STATUS_NOT_SUPPORTED;
  }
  /* 6: an empty time axis is a valid no-op */
  if (T == 0) return TI_STATUS_SUCCESS;
  /* 7: data */
  if (!x || !shifts || !y) return TI_STATUS_BAD_PARAM;

  es = ti_dtype_size(xd->dtype);
  job.src = (const unsigned char *)x;
  job.dst = (unsigned char *)y;
  job.shifts = (const int32_t *)shifts;
  job.T = T; job.G = G;
  job.piece = (size_t)(C / G) * (size_t)HW * es;
  job.row = (size_t)C * (size_t)HW * es;
  job.sign = mode == TI_TINSHIFT_BACKWARD ? -1 : 1;
  job.stream = (size_t)count * es >= TASKIR_KERNELS_STREAM_BYTES;
  ti__parallel(ctx, N * T, ti__ts_rows, &job);
  return TI_STATUS_SUCCESS;
}

TASKIR_API ti_status ti_tinshift_forward(const ti_tensor_desc *input_desc, const void *input,
                                         const ti_tensor_desc *shifts_desc, const void *shifts,
                                         const ti_tensor_desc *output_desc, void *output) {
  return ti_tinshift_ex(0, TI_TINSHIFT_FORWARD, input_desc, input, shifts_desc, shifts,
                        output_desc, output);
}

TASKIR_API ti_status ti_tinshift_backward(const ti_tensor_desc *grad_output_desc,
                                          const void *grad_output,
                                          const ti_tensor_desc *shifts_desc, const void *shifts,
                                          const ti_tensor_desc *grad_input_desc, void *grad_input) {
  return ti_tinshift_ex(0, TI_TINSHIFT_BACKWARD, grad_output_desc, grad_output, shifts_desc,
                        shifts, grad_input_desc, grad_input);
}

TASKIR_API ti_status ti_tinshift_backward_compat(const ti_tensor_desc *grad_output_desc,
                                                 const void *grad_output,
                                                 const ti_tensor_desc *shifts_desc,
                                                 const void *shifts,
                                                 const ti_tensor_desc *grad_input_desc,
                                                 void *grad_input) {
  return ti_tinshift_ex(0, TI_TINSHIFT_BACKWARD_COMPAT, grad_output_desc, grad_output,
                        shifts_desc, shifts, grad_input_desc, grad_input);
}

/* >>kernels.impl.conv ---------------------------------------------------- */

/* >>kernels.impl.eltwise ------------------------------------------------- */

/* >>kernels.impl.rearrange ----------------------------------------------- */

#undef TI__PRIVATE
#endif /* TASKIR_IMPLEMENTATION */

/*
MIT License

Copyright (c) 2026 the taskir authors

Permission is hereby granted, free of charge, to any person obtaining a copy of
this software and associated documentation files (the "Software"), to deal in
the Software without restriction, including without limitation the rights to
use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies
of the Software, and to permit persons to whom the Software is furnished to do
so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
*/
