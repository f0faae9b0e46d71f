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

/* Types shared by every taskir header (taskir.h includes this one). */
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

/* Data rearrangements on Task IR edges; values are the wire values. */
typedef enum ti_rearrange_kind {
  TI_REARRANGE_IDENTITY = 0, TI_REARRANGE_RESHAPE, TI_REARRANGE_PERMUTE,
  TI_REARRANGE_ROTATE, TI_REARRANGE_SHIFT, TI_REARRANGE_SCALE, TI_REARRANGE_SHEAR,
  TI_REARRANGE_REFLECT, TI_REARRANGE_AFFINE, TI_REARRANGE_PROJECT, TI_REARRANGE_SHUFFLE,
  TI_REARRANGE_COUNT
} ti_rearrange_kind;
/* Bytes per element as taskir stores it (TERNARY in 8 bits, I9 in 16, I28 in
   32, U4 in 8); 0 for an unknown dtype. */
static inline size_t ti_dtype_size(ti_dtype t) {
  switch (t) {
  case TI_DTYPE_I8: case TI_DTYPE_U8: case TI_DTYPE_TERNARY: case TI_DTYPE_U4:
  case TI_DTYPE_BOOL: return 1;
  case TI_DTYPE_I16: case TI_DTYPE_U16: case TI_DTYPE_F16: case TI_DTYPE_I9: return 2;
  case TI_DTYPE_I32: case TI_DTYPE_U32: case TI_DTYPE_F32: case TI_DTYPE_I28: return 4;
  case TI_DTYPE_I64: case TI_DTYPE_F64: return 8;
  default: return 0;
  }
}
#endif /* TI_COMMON_TYPES_DEFINED */

#ifdef __cplusplus
extern "C" {
#endif

/* >>kernels.common ------------------------------------------------------- */

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

/* >>kernels.conv: CC, CC2D, CVM ------------------------------------------ */

/* Dot-product primitives. Semantics (SPEC section 2), integer case:

     CC, CC2D   out[y][x][f] = B(f) + sum over ky, kx, r of
                  in[y*sy + ky*dy - pad_up][x*sx + kx*dx - pad_left][r] * W[f][r][ky][kx]
                in [niy][nix][nr] zero-padded, W [nf][nr][nky][nkx], out [ny][nx][nf]
     CVM        out[f] = B(f) + sum over r of W[f][r] * in[r]
                in [nr], W [nf][nr], out [nf]

   B(f) is bias[f] (bias_mode VECTOR), constant_b (CONSTANT) or 0 (NONE).
   CC and CC2D compute the same thing; ti_cc2d* are aliases of ti_cc*.

   Element types (d->in_dtype, d->w_dtype):
     integer: each of I8, U8, TERNARY (-1/0/1 stored as int8; any int8 value is
              taken as is), I32; output and vector bias int32; all arithmetic is
              two's-complement modulo 2^32, so huge or I32 reductions wrap, and
              every SIMD path gives bit-identical results to the reference.
              d->out_dtype may name any integer precision: integers are carried
              in 32 bits and storage does not saturate (requantise with CCMPB).
     float:   F32 input, weights, bias and output (out_dtype F32). Taps that
              fall in the padding are skipped, the sum runs bias first, then
              ky, kx, r in that order, in every path (no reassociation).
   Other combinations give TI_STATUS_NOT_SUPPORTED.

   Descriptor fields used: CC ny nx nf nr nky nkx niy nix, stride_y/x and
   dilation_y/x (0 means 1), pad_up/down/left/right (>= 0), dtypes, bias_mode,
   constant_b; ny must equal (niy + pad_up + pad_down - (nky-1)*dy - 1)/sy + 1
   and likewise nx, else BAD_PARAM. CVM uses nf, nr, dtypes, bias_mode and
   constant_b only. Non-positive dims, NULL pointers, short buffers: BAD_PARAM.

   Speed: with I8/U8/TERNARY input and I8/TERNARY weights, CC runs an
   implicit-GEMM micro-kernel (AVX-512 VNNI / AVX-VNNI vpdpbusd, AVX-512BW,
   AVX2 or SSE2 pmaddwd, NEON sdot or smull) over weights repacked into
   16-channel blocks. Pack once at plan time and run many times:

     size_t pb, sb;
     ti_cc_pack_size(&d, &pb);                 // bytes of the packed weights
     ti_cc_pack_weights(&d, w, packed, pb);    // any dtype; int8 ones are reblocked
     ti_cc_scratch_size(&d, 1, &sb);           // 1: scratch for ti_cc_packed
     ti_cc_packed(&ctx, &d, in, packed, pb, bias, out, scratch, sb);

   ti_cc does the same from plain weights, packing into its scratch on each
   call (ti_cc_scratch_size(&d, 0, &sb)). Scratch and packed buffers need no
   particular alignment; their sizes do not depend on ctx, so one plan fits
   every CPU. The packed layout is private to this header and may change
   between versions. CVM streams the plain [nf][nr] weights (it is bound by
   memory bandwidth) and needs neither packing nor scratch. Work is split
   over (channel tile x pixel tile) for CC and over output rows for CVM and
   handed to ctx->parallel_for when set. */
TASKIR_API ti_status ti_cc_scratch_size(const ti_prim_desc *d, int weights_packed, size_t *bytes);
TASKIR_API ti_status ti_cc_pack_size(const ti_prim_desc *d, size_t *bytes);
TASKIR_API ti_status ti_cc_pack_weights(const ti_prim_desc *d, const void *w,
                                        void *packed, size_t packed_bytes);
TASKIR_API ti_status ti_cc(const ti_kernel_ctx *ctx, const ti_prim_desc *d, const void *in,
                           const void *w, const void *bias, void *out,
                           void *scratch, size_t scratch_bytes);
TASKIR_API ti_status ti_cc_packed(const ti_kernel_ctx *ctx, const ti_prim_desc *d,
                                  const void *in, const void *packed, size_t packed_bytes,
                                  const void *bias, void *out,
                                  void *scratch, size_t scratch_bytes);
/* Plain C reference: straight loops over the formula, no scratch. */
TASKIR_API ti_status ti_cc_ref(const ti_prim_desc *d, const void *in, const void *w,
                               const void *bias, void *out);

TASKIR_API ti_status ti_cc2d_scratch_size(const ti_prim_desc *d, int weights_packed, size_t *bytes);
TASKIR_API ti_status ti_cc2d_pack_size(const ti_prim_desc *d, size_t *bytes);
TASKIR_API ti_status ti_cc2d_pack_weights(const ti_prim_desc *d, const void *w,
                                          void *packed, size_t packed_bytes);
TASKIR_API ti_status ti_cc2d(const ti_kernel_ctx *ctx, const ti_prim_desc *d, const void *in,
                             const void *w, const void *bias, void *out,
                             void *scratch, size_t scratch_bytes);
TASKIR_API ti_status ti_cc2d_packed(const ti_kernel_ctx *ctx, const ti_prim_desc *d,
                                    const void *in, const void *packed, size_t packed_bytes,
                                    const void *bias, void *out,
                                    void *scratch, size_t scratch_bytes);
TASKIR_API ti_status ti_cc2d_ref(const ti_prim_desc *d, const void *in, const void *w,
                                 const void *bias, void *out);

TASKIR_API ti_status ti_cvm(const ti_kernel_ctx *ctx, const ti_prim_desc *d, const void *in,
                            const void *w, const void *bias, void *out);
TASKIR_API ti_status ti_cvm_ref(const ti_prim_desc *d, const void *in, const void *w,
                                const void *bias, void *out);

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

/* >>kernels.impl.conv ---------------------------------------------------- */

#if defined(TI__X86) && (defined(__GNUC__) || defined(__clang__))
#define TI__CC_X86 1
#include <string.h>
#define TI__CC_T_AVX2 __attribute__((target("avx2")))
#define TI__CC_T_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq")))
#define TI__CC_T_VNNI512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni")))
#define TI__CC_T_AVXVNNI __attribute__((target("avx2,avxvnni")))
#elif defined(TI__NEON)
#define TI__CC_NEON 1
#include <string.h>
#endif

/* Element counts and byte sizes are kept below this, so every size fits
   int64 arithmetic without overflow; byte sizes must also fit size_t. */
#define TI__CC_LIMIT ((int64_t)1 << 48)

/* Geometry of a validated CC or CVM call (CVM is a 1x1 CC on a 1x1 image). */
typedef struct ti__cc_geo {
  int64_t ny, nx, nf, nr, nky, nkx, niy, nix;
  int64_t sy, sx, dy, dx, pu, pl;
  int64_t hn, wn;          /* padded-input rows/columns the windows reach */
  int64_t nr4, G, T, K4;   /* nr rounded to 4, its 4-byte groups, taps, T*G */
  int64_t nfb, nf16;       /* 16-channel blocks */
  int is_float;            /* F32 everywhere */
  int int8;                /* I8/U8/TERNARY input with I8/TERNARY weights */
} ti__cc_geo;

static int ti__cc_mul(int64_t a, int64_t b, int64_t *r) {
  if (a < 0 || b < 0 || (a != 0 && b > TI__CC_LIMIT / a)) return 0;
  *r = a * b;
  return 1;
}
static int64_t ti__cc_al64(int64_t n) { return (n + 63) & ~(int64_t)63; }
static int ti__cc_int_in(ti_dtype t) {
  return t == TI_DTYPE_I8 || t == TI_DTYPE_U8 || t == TI_DTYPE_TERNARY || t == TI_DTYPE_I32;
}
static int ti__cc_b8(ti_dtype t) {
  return t == TI_DTYPE_I8 || t == TI_DTYPE_U8 || t == TI_DTYPE_TERNARY;
}
static int ti__cc_int_out(ti_dtype t) {
  switch (t) {
  case TI_DTYPE_I8: case TI_DTYPE_U8: case TI_DTYPE_I16: case TI_DTYPE_U16: case TI_DTYPE_I32:
  case TI_DTYPE_U32: case TI_DTYPE_TERNARY: case TI_DTYPE_I28: case TI_DTYPE_I9: return 1;
  default: return 0;
  }
}

/* Dtypes, bias mode and the sizes every path shares; dims are checked by the
   callers. */
static ti_status ti__cc_common(const ti_prim_desc *d, ti__cc_geo *g) {
  int64_t n;
  if ((unsigned)d->in_dtype >= (unsigned)TI_DTYPE_COUNT ||
      (unsigned)d->w_dtype >= (unsigned)TI_DTYPE_COUNT ||
      (unsigned)d->out_dtype >= (unsigned)TI_DTYPE_COUNT ||
      (unsigned)d->bias_mode > (unsigned)TI_BIAS_CONSTANT) return TI_STATUS_BAD_PARAM;
  g->is_float = d->in_dtype == TI_DTYPE_F32 && d->w_dtype == TI_DTYPE_F32 &&
                d->out_dtype == TI_DTYPE_F32;
  if (!g->is_float && !(ti__cc_int_in(d->in_dtype) && ti__cc_int_in(d->w_dtype) &&
                        ti__cc_int_out(d->out_dtype))) return TI_STATUS_NOT_SUPPORTED;
  g->int8 = ti__cc_b8(d->in_dtype) && (d->w_dtype == TI_DTYPE_I8 || d->w_dtype == TI_DTYPE_TERNARY);
  g->nr4 = (g->nr + 3) & ~(int64_t)3;
  g->G = g->nr4 / 4;
  g->nfb = (g->nf + 15) / 16;
  g->nf16 = g->nfb * 16;
  if (!ti__cc_mul(g->nky, g->nkx, &g->T) || !ti__cc_mul(g->T, g->G, &g->K4) ||
      !ti__cc_mul(g->K4, g->nfb * 64, &n) ||                                  /* packed */
      !ti__cc_mul(g->hn, g->wn, &n) || !ti__cc_mul(n, g->nr4, &n) ||          /* padded in */
      !ti__cc_mul(g->niy, g->nix, &n) || !ti__cc_mul(n, g->nr * 4, &n) ||     /* input */
      !ti__cc_mul(g->T, g->nr, &n) || !ti__cc_mul(n, g->nf * 4, &n) ||        /* weights */
      !ti__cc_mul(g->ny, g->nx, &n) || !ti__cc_mul(n, g->nf * 4, &n))         /* output */
    return TI_STATUS_BAD_PARAM;
  return TI_STATUS_SUCCESS;
}

static ti_status ti__cc_geom(const ti_prim_desc *d, ti__cc_geo *g) {
  int64_t ext;
  if (!d) return TI_STATUS_BAD_PARAM;
  if (d->ny <= 0 || d->nx <= 0 || d->nf <= 0 || d->nr <= 0 || d->nky <= 0 || d->nkx <= 0 ||
      d->niy <= 0 || d->nix <= 0 || d->stride_y < 0 || d->stride_x < 0 ||
      d->dilation_y < 0 || d->dilation_x < 0 || d->pad_up < 0 || d->pad_down < 0 ||
      d->pad_left < 0 || d->pad_right < 0) return TI_STATUS_BAD_PARAM;
  g->ny = d->ny; g->nx = d->nx; g->nf = d->nf; g->nr = d->nr;
  g->nky = d->nky; g->nkx = d->nkx; g->niy = d->niy; g->nix = d->nix;
  g->sy = d->stride_y ? d->stride_y : 1; g->sx = d->stride_x ? d->stride_x : 1;
  g->dy = d->dilation_y ? d->dilation_y : 1; g->dx = d->dilation_x ? d->dilation_x : 1;
  g->pu = d->pad_up; g->pl = d->pad_left;
  ext = g->niy + d->pad_up + d->pad_down - (g->nky - 1) * g->dy - 1;   /* < 2^63 */
  if (ext < 0 || g->ny != ext / g->sy + 1) return TI_STATUS_BAD_PARAM;
  ext = g->nix + d->pad_left + d->pad_right - (g->nkx - 1) * g->dx - 1;
  if (ext < 0 || g->nx != ext / g->sx + 1) return TI_STATUS_BAD_PARAM;
  g->hn = (g->ny - 1) * g->sy + (g->nky - 1) * g->dy + 1;
  g->wn = (g->nx - 1) * g->sx + (g->nkx - 1) * g->dx + 1;
  if (g->hn > TI__CC_LIMIT || g->wn > TI__CC_LIMIT) return TI_STATUS_BAD_PARAM;
  return ti__cc_common(d, g);
}

static ti_status ti__cvm_geom(const ti_prim_desc *d, ti__cc_geo *g) {
  if (!d) return TI_STATUS_BAD_PARAM;
  if (d->nf <= 0 || d->nr <= 0) return TI_STATUS_BAD_PARAM;
  g->ny = g->nx = g->nky = g->nkx = g->niy = g->nix = 1;
  g->sy = g->sx = g->dy = g->dx = 1; g->pu = g->pl = 0; g->hn = g->wn = 1;
  g->nf = d->nf; g->nr = d->nr;
  return ti__cc_common(d, g);
}

static int ti__cc_fits(int64_t n) { return n >= 0 && (uint64_t)n <= (uint64_t)SIZE_MAX; }

/* Packed weights: a 64-byte header of little-endian uint32 words
   {magic, format, w_dtype, nf, nr, nky, nkx, size lo, size hi}, then
   format 0: the weights as given; format 1 (int8 path): sum of weights per
   channel int32[nf16], then blocks [nfb][K4][16 channels][4 bytes], byte j of
   channel f in group kg = (ky*nkx + kx)*G + q being W[f][4q + j][ky][kx]
   (0 past nf or nr). */
#define TI__CC_MAGIC 0x77634954u
static int64_t ti__cc_pack_bytes(const ti_prim_desc *d, const ti__cc_geo *g) {
  if (g->int8) return 64 + ti__cc_al64(g->nf16 * 4) + g->nfb * g->K4 * 64;
  return 64 + g->nf * g->nr * g->T * (int64_t)ti_dtype_size(d->w_dtype);
}
/* Run scratch of the packed int8 path: corrections, tap offsets, padded input. */
static int64_t ti__cc_run_bytes(const ti__cc_geo *g) {
  if (!g->int8) return 0;
  return 64 + ti__cc_al64(g->nf16 * 4) + ti__cc_al64(g->T * 8) + g->hn * g->wn * g->nr4;
}
static void ti__cc_wr32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}
static uint32_t ti__cc_rd32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static void *ti__cc_align(void *p) {
  uintptr_t u = (uintptr_t)p;
  return (void *)((uint8_t *)p + ((64 - (u & 63)) & 63));
}

/* Integer element as uint32 (sign-extended for I8/TERNARY), so sums wrap. */
static uint32_t ti__cc_geti(const void *p, ti_dtype t, int64_t i) {
  switch (t) {
  case TI_DTYPE_U8: return ((const uint8_t *)p)[i];
  case TI_DTYPE_I32: return ((const uint32_t *)p)[i];
  default: return (uint32_t)(int32_t)((const int8_t *)p)[i];
  }
}
static uint32_t ti__cc_biasi(const ti_prim_desc *d, const void *bias, int64_t f) {
  if (d->bias_mode == TI_BIAS_VECTOR) return ((const uint32_t *)bias)[f];
  if (d->bias_mode == TI_BIAS_CONSTANT) return (uint32_t)d->constant_b;
  return 0;
}
static float ti__cc_biasf(const ti_prim_desc *d, const void *bias, int64_t f) {
  if (d->bias_mode == TI_BIAS_VECTOR) return ((const float *)bias)[f];
  if (d->bias_mode == TI_BIAS_CONSTANT) return (float)d->constant_b;
  return 0.0f;
}

/* The reference: the formula, loop for loop. Weights come from W (plain
   layout) with element index ((f*nr + r)*nky + ky)*nkx + kx. */
static void ti__cc_ref_run(const ti_prim_desc *d, const ti__cc_geo *g, const void *in,
                           const void *w, const void *bias, void *out) {
  int64_t y, x, f, ky, kx, r;
  for (y = 0; y < g->ny; y++)
    for (x = 0; x < g->nx; x++)
      for (f = 0; f < g->nf; f++) {
        int64_t o = (y * g->nx + x) * g->nf + f;
        uint32_t acc = g->is_float ? 0 : ti__cc_biasi(d, bias, f);
        float accf = g->is_float ? ti__cc_biasf(d, bias, f) : 0.0f;
        for (ky = 0; ky < g->nky; ky++) {
          int64_t iy = y * g->sy + ky * g->dy - g->pu;
          if (iy < 0 || iy >= g->niy) continue;
          for (kx = 0; kx < g->nkx; kx++) {
            int64_t ix = x * g->sx + kx * g->dx - g->pl;
            int64_t ib = (iy * g->nix + ix) * g->nr;
            int64_t wb = (f * g->nr * g->nky + ky) * g->nkx + kx, ws = g->nky * g->nkx;
            if (ix < 0 || ix >= g->nix) continue;
            if (g->is_float) {
              const float *fi = (const float *)in + ib, *fw = (const float *)w + wb;
              for (r = 0; r < g->nr; r++) accf += fi[r] * fw[r * ws];
            } else {
              for (r = 0; r < g->nr; r++)
                acc += ti__cc_geti(in, d->in_dtype, ib + r) * ti__cc_geti(w, d->w_dtype, wb + r * ws);
            }
          }
        }
        if (g->is_float) ((float *)out)[o] = accf;
        else ((uint32_t *)out)[o] = acc;
      }
}

static ti_status ti__cc_check_bias(const ti_prim_desc *d, const void *bias) {
  return d->bias_mode == TI_BIAS_VECTOR && !bias ? TI_STATUS_BAD_PARAM : TI_STATUS_SUCCESS;
}

TASKIR_API ti_status ti_cc_ref(const ti_prim_desc *d, const void *in, const void *w,
                               const void *bias, void *out) {
  ti__cc_geo g;
  ti_status s = ti__cc_geom(d, &g);
  if (s) return s;
  if (!in || !w || !out) return TI_STATUS_BAD_PARAM;
  if ((s = ti__cc_check_bias(d, bias)) != TI_STATUS_SUCCESS) return s;
  ti__cc_ref_run(d, &g, in, w, bias, out);
  return TI_STATUS_SUCCESS;
}

TASKIR_API ti_status ti_cc_pack_size(const ti_prim_desc *d, size_t *bytes) {
  ti__cc_geo g;
  ti_status s = ti__cc_geom(d, &g);
  int64_t n;
  if (s) return s;
  if (!bytes) return TI_STATUS_BAD_PARAM;
  n = ti__cc_pack_bytes(d, &g);
  if (!ti__cc_fits(n)) return TI_STATUS_BAD_PARAM;
  *bytes = (size_t)n;
  return TI_STATUS_SUCCESS;
}

TASKIR_API ti_status ti_cc_scratch_size(const ti_prim_desc *d, int weights_packed, size_t *bytes) {
  ti__cc_geo g;
  ti_status s = ti__cc_geom(d, &g);
  int64_t n;
  if (s) return s;
  if (!bytes) return TI_STATUS_BAD_PARAM;
  n = ti__cc_run_bytes(&g);
  if (!weights_packed && g.int8) n += ti__cc_pack_bytes(d, &g);
  if (!ti__cc_fits(n)) return TI_STATUS_BAD_PARAM;
  *bytes = (size_t)n;
  return TI_STATUS_SUCCESS;
}

static void ti__cc_pack(const ti_prim_desc *d, const ti__cc_geo *g, const void *w, uint8_t *p) {
  int64_t total = ti__cc_pack_bytes(d, g), i;
  uint32_t hdr[9];
  hdr[0] = TI__CC_MAGIC; hdr[1] = (uint32_t)g->int8; hdr[2] = (uint32_t)d->w_dtype;
  hdr[3] = (uint32_t)g->nf; hdr[4] = (uint32_t)g->nr; hdr[5] = (uint32_t)g->nky;
  hdr[6] = (uint32_t)g->nkx; hdr[7] = (uint32_t)((uint64_t)total & 0xffffffffu);
  hdr[8] = (uint32_t)((uint64_t)total >> 32);
  for (i = 0; i < 64; i++) p[i] = 0;
  for (i = 0; i < 9; i++) ti__cc_wr32(p + 4 * i, hdr[i]);
  if (!g->int8) {
    const uint8_t *src = (const uint8_t *)w;
    for (i = 64; i < total; i++) p[i] = src[i - 64];
  } else {
    const int8_t *ws = (const int8_t *)w;
    uint8_t *sums = p + 64, *blk = p + 64 + ti__cc_al64(g->nf16 * 4);
    int64_t f, kg;
    for (f = 0; f < g->nf16; f++) {
      uint32_t sum = 0;
      if (f < g->nf)
        for (i = 0; i < g->nr * g->T; i++) sum += (uint32_t)(int32_t)ws[f * g->nr * g->T + i];
      ti__cc_wr32(sums + 4 * f, sum);
    }
    for (f = 0; f < g->nf16; f++)
      for (kg = 0; kg < g->K4; kg++) {
        int64_t t = kg / g->G, q = kg % g->G, j;
        uint8_t *dst = blk + ((f / 16) * g->K4 + kg) * 64 + (f % 16) * 4;
        for (j = 0; j < 4; j++) {
          int64_t r = 4 * q + j;
          dst[j] = (f < g->nf && r < g->nr) ? (uint8_t)ws[(f * g->nr + r) * g->T + t] : 0;
        }
      }
  }
}

TASKIR_API ti_status ti_cc_pack_weights(const ti_prim_desc *d, const void *w, void *packed,
                                        size_t packed_bytes) {
  ti__cc_geo g;
  ti_status s = ti__cc_geom(d, &g);
  if (s) return s;
  if (!w || !packed || (uint64_t)packed_bytes < (uint64_t)ti__cc_pack_bytes(d, &g))
    return TI_STATUS_BAD_PARAM;
  ti__cc_pack(d, &g, w, (uint8_t *)packed);
  return TI_STATUS_SUCCESS;
}

/* ---- int8 implicit GEMM over packed weights --------------------------------
   The input is copied once into scratch, zero-padded, with channels rounded
   to 4 and every byte stored as u8 = x + off (off 128 for I8/TERNARY, 0 for
   U8; the padding holds off, i.e. zero). A path computes S = sum u8 * w, as
   vpdpbusd does, or sum (u8 - sub) * w (sub 128 on NEON, signed dots), and
   adds corr[f] = B(f) + (sub - off) * sum(W[f]); every step is exact modulo
   2^32, so results equal the reference bit for bit. A micro-kernel keeps P
   output pixels x NV vectors of L channels in registers; the pixels are any
   P of the ny*nx outputs (each has its own input pointer, taps are fixed
   offsets), so there is no per-row remainder. */
typedef struct ti__cc_job ti__cc_job;
typedef void (*ti__cc_kfn)(const ti__cc_job *j, const uint8_t *const *ip, uint32_t *const *op,
                           int pvalid, const uint8_t *wb, const uint32_t *corr, int64_t nfv);
struct ti__cc_job {
  const ti__cc_geo *g;
  const uint8_t *pad, *blk;
  const uint32_t *corr;
  const int64_t *tapoff;
  uint32_t *out;
  int64_t G, T, bstride, npix, npt;
  int P, L, nvmax;
  ti__cc_kfn kfn[4];
};

#define TI__CC_REP1(X) X(0)
#define TI__CC_REP2(X) X(0) X(1)
#define TI__CC_REP3(X) TI__CC_REP2(X) X(2)
#define TI__CC_REP4(X) TI__CC_REP3(X) X(3)
#define TI__CC_REP5(X) TI__CC_REP4(X) X(4)
#define TI__CC_REP6(X) TI__CC_REP5(X) X(5)
/* Byte offset of vector v of a tile inside the packed blocks. */
#define TI__CC_WOFF(v, L, bs) ((size_t)(((v) / (16 / (L))) * (bs) + ((v) % (16 / (L))) * (L) * 4))
#define TI__CC_DECL(p) TI__CC_V a##p##0 = TI__CC_ZERO(), a##p##1 = a##p##0, a##p##2 = a##p##0, \
  a##p##3 = a##p##0; const uint8_t *i##p = ip[p];
#define TI__CC_SETI(p) i##p = ip[p] + o_;
#define TI__CC_STEP(p) { TI__CC_V x_ = TI__CC_BC(i##p + q_); \
  a##p##0 = TI__CC_DOT(a##p##0, x_, w0_); \
  if (nv_ > 1) a##p##1 = TI__CC_DOT(a##p##1, x_, w1_); \
  if (nv_ > 2) a##p##2 = TI__CC_DOT(a##p##2, x_, w2_); \
  if (nv_ > 3) a##p##3 = TI__CC_DOT(a##p##3, x_, w3_); }
#define TI__CC_OUT(p) if (p < pvalid) { uint32_t *o = op[p]; \
  TI__CC_ST(o, TI__CC_ADD(a##p##0, c0_), nfv); \
  if (nv_ > 1) TI__CC_ST(o + L_, TI__CC_ADD(a##p##1, c1_), nfv - L_); \
  if (nv_ > 2) TI__CC_ST(o + 2 * L_, TI__CC_ADD(a##p##2, c2_), nfv - 2 * L_); \
  if (nv_ > 3) TI__CC_ST(o + 3 * L_, TI__CC_ADD(a##p##3, c3_), nfv - 3 * L_); }
/* One micro-kernel: P pixels, NV vectors of L int32 lanes. */
#define TI__CC_KERNEL(NAME, TGT, P, NV, L) \
TGT static void NAME(const ti__cc_job *j, const uint8_t *const *ip, uint32_t *const *op, \
                     int pvalid, const uint8_t *wb, const uint32_t *corr, int64_t nfv) { \
  const int nv_ = NV; const int64_t L_ = L, G = j->G, T = j->T, bs = j->bstride; \
  const size_t wo1 = TI__CC_WOFF(1, L, bs), wo2 = TI__CC_WOFF(2, L, bs), \
               wo3 = TI__CC_WOFF(3, L, bs); \
  const uint8_t *wk = wb; int64_t t, q_; \
  TI__CC_REP##P(TI__CC_DECL) \
  for (t = 0; t < T; t++) { \
    const int64_t o_ = j->tapoff[t]; \
    TI__CC_REP##P(TI__CC_SETI) \
    for (q_ = 0; q_ < 4 * G; q_ += 4, wk += 64) { \
      TI__CC_V w0_ = TI__CC_LD(wk); \
      TI__CC_V w1_ = nv_ > 1 ? TI__CC_LD(wk + wo1) : w0_; \
      TI__CC_V w2_ = nv_ > 2 ? TI__CC_LD(wk + wo2) : w0_; \
      TI__CC_V w3_ = nv_ > 3 ? TI__CC_LD(wk + wo3) : w0_; \
      TI__CC_REP##P(TI__CC_STEP) \
    } \
  } \
  { TI__CC_V c0_ = TI__CC_LDC(corr); \
    TI__CC_V c1_ = nv_ > 1 ? TI__CC_LDC(corr + L_) : c0_; \
    TI__CC_V c2_ = nv_ > 2 ? TI__CC_LDC(corr + 2 * L_) : c0_; \
    TI__CC_V c3_ = nv_ > 3 ? TI__CC_LDC(corr + 3 * L_) : c0_; \
    TI__CC_REP##P(TI__CC_OUT) } \
}

/* Portable packed kernel (cpu = 0, or no SIMD): the same sums lane by lane. */
static void ti__cc_k_c(const ti__cc_job *j, const uint8_t *const *ip, uint32_t *const *op,
                       int pvalid, const uint8_t *wb, const uint32_t *corr, int64_t nfv) {
  int p;
  int64_t f, t, q, k;
  for (p = 0; p < pvalid; p++)
    for (f = 0; f < nfv && f < 16 * j->nvmax; f++) {
      const uint8_t *w = wb + (f / 16) * j->bstride + (f % 16) * 4;
      uint32_t acc = corr[f];
      for (t = 0; t < j->T; t++) {
        const uint8_t *a = ip[p] + j->tapoff[t];
        for (q = 0; q < j->G; q++, w += 64)
          for (k = 0; k < 4; k++) acc += (uint32_t)a[4 * q + k] * (uint32_t)(int32_t)(int8_t)w[k];
      }
      op[p][f] = acc;
    }
}

#if defined(TI__CC_X86)
/* SSE2 (x86-64 baseline): u8 x s8 dot of 4-byte groups through pmaddwd on
   even and odd bytes; exact (|sum| < 2^17 per pair of bytes). */
static inline __m128i ti__cc_s_dot(__m128i acc, __m128i a, __m128i w) {
  __m128i we = _mm_srai_epi16(_mm_slli_epi16(w, 8), 8), wo = _mm_srai_epi16(w, 8);
  __m128i ae = _mm_and_si128(a, _mm_set1_epi16(0xff)), ao = _mm_srli_epi16(a, 8);
  return _mm_add_epi32(acc, _mm_add_epi32(_mm_madd_epi16(ae, we), _mm_madd_epi16(ao, wo)));
}
static inline __m128i ti__cc_s_bc(const uint8_t *p) {
  int32_t v; memcpy(&v, p, 4); return _mm_set1_epi32(v);
}
static inline void ti__cc_s_st(uint32_t *o, __m128i v, int64_t n) {
  if (n >= 4) _mm_storeu_si128((__m128i *)(void *)o, v);
  else { uint32_t t[4]; int64_t i; _mm_storeu_si128((__m128i *)(void *)t, v); for (i = 0; i < n; i++) o[i] = t[i]; }
}
#define TI__CC_V __m128i
#define TI__CC_ZERO() _mm_setzero_si128()
#define TI__CC_LD(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define TI__CC_LDC(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define TI__CC_BC(p) ti__cc_s_bc(p)
#define TI__CC_DOT(c, a, w) ti__cc_s_dot(c, a, w)
#define TI__CC_ADD(a, b) _mm_add_epi32(a, b)
#define TI__CC_ST(o, v, n) ti__cc_s_st(o, v, n)
TI__CC_KERNEL(ti__cc_k_sse2_1, , 2, 1, 4)
TI__CC_KERNEL(ti__cc_k_sse2_2, , 2, 2, 4)
TI__CC_KERNEL(ti__cc_k_sse2_3, , 2, 3, 4)
TI__CC_KERNEL(ti__cc_k_sse2_4, , 2, 4, 4)
#undef TI__CC_V
#undef TI__CC_ZERO
#undef TI__CC_LD
#undef TI__CC_LDC
#undef TI__CC_BC
#undef TI__CC_DOT
#undef TI__CC_ADD
#undef TI__CC_ST

/* AVX2: the same on 8 lanes. */
TI__CC_T_AVX2 static inline __m256i ti__cc_a2_dot(__m256i acc, __m256i a, __m256i w) {
  __m256i we = _mm256_srai_epi16(_mm256_slli_epi16(w, 8), 8), wo = _mm256_srai_epi16(w, 8);
  __m256i ae = _mm256_and_si256(a, _mm256_set1_epi16(0xff)), ao = _mm256_srli_epi16(a, 8);
  return _mm256_add_epi32(acc, _mm256_add_epi32(_mm256_madd_epi16(ae, we), _mm256_madd_epi16(ao, wo)));
}
TI__CC_T_AVX2 static inline __m256i ti__cc_a2_bc(const uint8_t *p) {
  int32_t v; memcpy(&v, p, 4); return _mm256_set1_epi32(v);
}
TI__CC_T_AVX2 static inline void ti__cc_a2_st(uint32_t *o, __m256i v, int64_t n) {
  if (n >= 8) _mm256_storeu_si256((__m256i *)(void *)o, v);
  else {
    __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    _mm256_maskstore_epi32((int *)(void *)o, m, v);
  }
}
#define TI__CC_V __m256i
#define TI__CC_ZERO() _mm256_setzero_si256()
#define TI__CC_LD(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define TI__CC_LDC(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define TI__CC_BC(p) ti__cc_a2_bc(p)
#define TI__CC_DOT(c, a, w) ti__cc_a2_dot(c, a, w)
#define TI__CC_ADD(a, b) _mm256_add_epi32(a, b)
#define TI__CC_ST(o, v, n) ti__cc_a2_st(o, v, n)
TI__CC_KERNEL(ti__cc_k_avx2_1, TI__CC_T_AVX2, 3, 1, 8)
TI__CC_KERNEL(ti__cc_k_avx2_2, TI__CC_T_AVX2, 3, 2, 8)
#undef TI__CC_DOT
/* AVX-VNNI: vpdpbusd on 8 lanes (VEX encoding). */
#define TI__CC_DOT(c, a, w) _mm256_dpbusd_avx_epi32(c, a, w)
TI__CC_KERNEL(ti__cc_k_avxvnni_1, TI__CC_T_AVXVNNI, 6, 1, 8)
TI__CC_KERNEL(ti__cc_k_avxvnni_2, TI__CC_T_AVXVNNI, 6, 2, 8)
#undef TI__CC_V
#undef TI__CC_ZERO
#undef TI__CC_LD
#undef TI__CC_LDC
#undef TI__CC_BC
#undef TI__CC_DOT
#undef TI__CC_ADD
#undef TI__CC_ST

/* AVX-512BW: pmaddwd on 16 lanes; AVX-512 VNNI: vpdpbusd on 16 lanes. */
TI__CC_T_AVX512 static inline __m512i ti__cc_z_dot(__m512i acc, __m512i a, __m512i w) {
  __m512i we = _mm512_srai_epi16(_mm512_slli_epi16(w, 8), 8), wo = _mm512_srai_epi16(w, 8);
  __m512i ae = _mm512_and_si512(a, _mm512_set1_epi16(0xff)), ao = _mm512_srli_epi16(a, 8);
  return _mm512_add_epi32(acc, _mm512_add_epi32(_mm512_madd_epi16(ae, we), _mm512_madd_epi16(ao, wo)));
}
TI__CC_T_AVX512 static inline __m512i ti__cc_z_bc(const uint8_t *p) {
  int32_t v; memcpy(&v, p, 4); return _mm512_set1_epi32(v);
}
TI__CC_T_AVX512 static inline void ti__cc_z_st(uint32_t *o, __m512i v, int64_t n) {
  if (n >= 16) _mm512_storeu_si512((void *)o, v);
  else _mm512_mask_storeu_epi32((void *)o, (__mmask16)((1u << n) - 1u), v);
}
#define TI__CC_V __m512i
#define TI__CC_ZERO() _mm512_setzero_si512()
#define TI__CC_LD(p) _mm512_loadu_si512((const void *)(p))
#define TI__CC_LDC(p) _mm512_loadu_si512((const void *)(p))
#define TI__CC_BC(p) ti__cc_z_bc(p)
#define TI__CC_DOT(c, a, w) ti__cc_z_dot(c, a, w)
#define TI__CC_ADD(a, b) _mm512_add_epi32(a, b)
#define TI__CC_ST(o, v, n) ti__cc_z_st(o, v, n)
TI__CC_KERNEL(ti__cc_k_avx512_1, TI__CC_T_AVX512, 4, 1, 16)
TI__CC_KERNEL(ti__cc_k_avx512_2, TI__CC_T_AVX512, 4, 2, 16)
TI__CC_KERNEL(ti__cc_k_avx512_3, TI__CC_T_AVX512, 4, 3, 16)
TI__CC_KERNEL(ti__cc_k_avx512_4, TI__CC_T_AVX512, 4, 4, 16)
#undef TI__CC_DOT
#define TI__CC_DOT(c, a, w) _mm512_dpbusd_epi32(c, a, w)
TI__CC_KERNEL(ti__cc_k_vnni512_1, TI__CC_T_VNNI512, 6, 1, 16)
TI__CC_KERNEL(ti__cc_k_vnni512_2, TI__CC_T_VNNI512, 6, 2, 16)
TI__CC_KERNEL(ti__cc_k_vnni512_3, TI__CC_T_VNNI512, 6, 3, 16)
TI__CC_KERNEL(ti__cc_k_vnni512_4, TI__CC_T_VNNI512, 6, 4, 16)
#undef TI__CC_V
#undef TI__CC_ZERO
#undef TI__CC_LD
#undef TI__CC_LDC
#undef TI__CC_BC
#undef TI__CC_DOT
#undef TI__CC_ADD
#undef TI__CC_ST
#endif /* TI__CC_X86 */

#if defined(TI__CC_NEON)
/* NEON: signed dots of (u8 - 128) and w: sdot when the compiler targets the
   dot-product extension, else smull + pairwise widening adds (exact). */
static inline int32x4_t ti__cc_n_dot(int32x4_t acc, int32x4_t a, int32x4_t w) {
#if defined(__ARM_FEATURE_DOTPROD)
  return vdotq_s32(acc, vreinterpretq_s8_s32(a), vreinterpretq_s8_s32(w));
#else
  int8x16_t x = vreinterpretq_s8_s32(a), y = vreinterpretq_s8_s32(w);
  int16x8_t lo = vmull_s8(vget_low_s8(x), vget_low_s8(y)), hi = vmull_high_s8(x, y);
  return vaddq_s32(acc, vpaddq_s32(vpaddlq_s16(lo), vpaddlq_s16(hi)));
#endif
}
static inline int32x4_t ti__cc_n_bc(const uint8_t *p) {
  uint32_t v; memcpy(&v, p, 4); return vreinterpretq_s32_u32(vdupq_n_u32(v ^ 0x80808080u));
}
static inline void ti__cc_n_st(uint32_t *o, int32x4_t v, int64_t n) {
  if (n >= 4) vst1q_u32(o, vreinterpretq_u32_s32(v));
  else { uint32_t t[4]; int64_t i; vst1q_u32(t, vreinterpretq_u32_s32(v)); for (i = 0; i < n; i++) o[i] = t[i]; }
}
#define TI__CC_V int32x4_t
#define TI__CC_ZERO() vdupq_n_s32(0)
#define TI__CC_LD(p) vreinterpretq_s32_u8(vld1q_u8(p))
#define TI__CC_LDC(p) vreinterpretq_s32_u32(vld1q_u32(p))
#define TI__CC_BC(p) ti__cc_n_bc(p)
#define TI__CC_DOT(c, a, w) ti__cc_n_dot(c, a, w)
#define TI__CC_ADD(a, b) vaddq_s32(a, b)
#define TI__CC_ST(o, v, n) ti__cc_n_st(o, v, n)
TI__CC_KERNEL(ti__cc_k_neon_1, , 4, 1, 4)
TI__CC_KERNEL(ti__cc_k_neon_2, , 4, 2, 4)
TI__CC_KERNEL(ti__cc_k_neon_3, , 4, 3, 4)
TI__CC_KERNEL(ti__cc_k_neon_4, , 4, 4, 4)
#undef TI__CC_V
#undef TI__CC_ZERO
#undef TI__CC_LD
#undef TI__CC_LDC
#undef TI__CC_BC
#undef TI__CC_DOT
#undef TI__CC_ADD
#undef TI__CC_ST
#endif /* TI__CC_NEON */

/* Picks the micro-kernels for the allowed cpu paths; returns sub. */
static unsigned ti__cc_pick(unsigned cpu, ti__cc_job *j) {
  j->kfn[0] = j->kfn[1] = j->kfn[2] = j->kfn[3] = ti__cc_k_c;
  j->P = 1; j->L = 16; j->nvmax = 1;
#if defined(TI__CC_X86)
  if ((cpu & TI_CPU_AVX512VNNI) && (cpu & TI_CPU_AVX512)) {
    j->kfn[0] = ti__cc_k_vnni512_1; j->kfn[1] = ti__cc_k_vnni512_2;
    j->kfn[2] = ti__cc_k_vnni512_3; j->kfn[3] = ti__cc_k_vnni512_4;
    j->P = 6; j->L = 16; j->nvmax = 4;
  } else if (cpu & TI_CPU_AVXVNNI) {
    j->kfn[0] = ti__cc_k_avxvnni_1; j->kfn[1] = ti__cc_k_avxvnni_2;
    j->P = 6; j->L = 8; j->nvmax = 2;
  } else if (cpu & TI_CPU_AVX512) {
    j->kfn[0] = ti__cc_k_avx512_1; j->kfn[1] = ti__cc_k_avx512_2;
    j->kfn[2] = ti__cc_k_avx512_3; j->kfn[3] = ti__cc_k_avx512_4;
    j->P = 4; j->L = 16; j->nvmax = 4;
  } else if (cpu & TI_CPU_AVX2) {
    j->kfn[0] = ti__cc_k_avx2_1; j->kfn[1] = ti__cc_k_avx2_2;
    j->P = 3; j->L = 8; j->nvmax = 2;
  } else if (cpu & TI_CPU_SSE2) {
    j->kfn[0] = ti__cc_k_sse2_1; j->kfn[1] = ti__cc_k_sse2_2;
    j->kfn[2] = ti__cc_k_sse2_3; j->kfn[3] = ti__cc_k_sse2_4;
    j->P = 2; j->L = 4; j->nvmax = 4;
  }
#elif defined(TI__CC_NEON)
  if (cpu & TI_CPU_NEON) {
    j->kfn[0] = ti__cc_k_neon_1; j->kfn[1] = ti__cc_k_neon_2;
    j->kfn[2] = ti__cc_k_neon_3; j->kfn[3] = ti__cc_k_neon_4;
    j->P = 4; j->L = 4; j->nvmax = 4;
    return 128;
  }
#else
  (void)cpu;
#endif
  return 0;
}

static void ti__cc_range(void *arg, int64_t b, int64_t e) {
  const ti__cc_job *j = (const ti__cc_job *)arg;
  const ti__cc_geo *g = j->g;
  const uint8_t *ip[6];
  uint32_t *op[6];
  int64_t tw = (int64_t)j->L * j->nvmax, it;
  for (it = b; it < e; it++) {
    int64_t ft = it / j->npt, pt = it % j->npt, f0 = ft * tw, nfv = g->nf - f0;
    int64_t nv = nfv < tw ? (nfv + j->L - 1) / j->L : j->nvmax, pix0 = pt * j->P;
    int p, pvalid = (int)(j->npix - pix0 < j->P ? j->npix - pix0 : j->P);
    for (p = 0; p < j->P; p++) {
      int64_t pix = pix0 + (p < pvalid ? p : pvalid - 1), y = pix / g->nx, x = pix % g->nx;
      ip[p] = j->pad + ((y * g->sy) * g->wn + x * g->sx) * g->nr4;
      op[p] = j->out + pix * g->nf + f0;
    }
    j->kfn[nv - 1](j, ip, op, pvalid, j->blk + (f0 / 16) * j->bstride, j->corr + f0, nfv);
  }
}

/* Runs the int8 path on packed weights p (header checked by the caller). */
static void ti__cc_run8(const ti_kernel_ctx *ctx, const ti_prim_desc *d, const ti__cc_geo *g,
                        const void *in, const uint8_t *p, const void *bias, void *out,
                        void *scratch) {
  ti__cc_job j;
  unsigned sub = ti__cc_pick(ti__cpu(ctx), &j);
  uint32_t off = d->in_dtype == TI_DTYPE_U8 ? 0u : 128u;
  uint8_t *s = (uint8_t *)ti__cc_align(scratch), *pad;
  uint32_t *corr = (uint32_t *)(void *)s;
  int64_t *tapoff = (int64_t *)(void *)(s + ti__cc_al64(g->nf16 * 4));
  const uint8_t *sums = p + 64, *src = (const uint8_t *)in;
  int64_t f, ky, kx, y, x, r;
  pad = s + ti__cc_al64(g->nf16 * 4) + ti__cc_al64(g->T * 8);
  for (f = 0; f < g->nf16; f++)
    corr[f] = (f < g->nf ? ti__cc_biasi(d, bias, f) : 0u) + (sub - off) * ti__cc_rd32(sums + 4 * f);
  for (ky = 0; ky < g->nky; ky++)
    for (kx = 0; kx < g->nkx; kx++)
      tapoff[ky * g->nkx + kx] = (ky * g->dy * g->wn + kx * g->dx) * g->nr4;
  for (y = 0; y < g->hn; y++)
    for (x = 0; x < g->wn; x++) {
      uint8_t *o = pad + (y * g->wn + x) * g->nr4;
      int64_t iy = y - g->pu, ix = x - g->pl;
      if (iy < 0 || iy >= g->niy || ix < 0 || ix >= g->nix) {
        for (r = 0; r < g->nr4; r++) o[r] = (uint8_t)off;
      } else {
        const uint8_t *i = src + (iy * g->nix + ix) * g->nr;
        for (r = 0; r < g->nr; r++) o[r] = (uint8_t)(i[r] + off);
        for (; r < g->nr4; r++) o[r] = (uint8_t)off;
      }
    }
  j.g = g; j.pad = pad; j.blk = p + 64 + ti__cc_al64(g->nf16 * 4); j.corr = corr;
  j.tapoff = tapoff; j.out = (uint32_t *)out; j.G = g->G; j.T = g->T;
  j.bstride = g->K4 * 64; j.npix = g->ny * g->nx; j.npt = (j.npix + j.P - 1) / j.P;
  ti__parallel(ctx, j.npt * ((g->nf + (int64_t)j.L * j.nvmax - 1) / ((int64_t)j.L * j.nvmax)),
               ti__cc_range, &j);
}

static ti_status ti__cc_check_packed(const ti_prim_desc *d, const ti__cc_geo *g,
                                     const void *packed, size_t packed_bytes) {
  const uint8_t *p = (const uint8_t *)packed;
  int64_t total = ti__cc_pack_bytes(d, g);
  if (packed_bytes < 64 || (uint64_t)packed_bytes < (uint64_t)total) return TI_STATUS_BAD_PARAM;
  if (ti__cc_rd32(p) != TI__CC_MAGIC || ti__cc_rd32(p + 4) != (uint32_t)g->int8 ||
      ti__cc_rd32(p + 8) != (uint32_t)d->w_dtype || ti__cc_rd32(p + 12) != (uint32_t)g->nf ||
      ti__cc_rd32(p + 16) != (uint32_t)g->nr || ti__cc_rd32(p + 20) != (uint32_t)g->nky ||
      ti__cc_rd32(p + 24) != (uint32_t)g->nkx ||
      ti__cc_rd32(p + 28) != (uint32_t)((uint64_t)total & 0xffffffffu) ||
      ti__cc_rd32(p + 32) != (uint32_t)((uint64_t)total >> 32))
    return TI_STATUS_BAD_PARAM;   /* packed for another descriptor */
  return TI_STATUS_SUCCESS;
}

TASKIR_API ti_status ti_cc_packed(const ti_kernel_ctx *ctx, const ti_prim_desc *d,
                                  const void *in, const void *packed, size_t packed_bytes,
                                  const void *bias, void *out, void *scratch, size_t scratch_bytes) {
  ti__cc_geo g;
  ti_status s = ti__cc_geom(d, &g);
  int64_t need;
  if (s) return s;
  if (!in || !packed || !out) return TI_STATUS_BAD_PARAM;
  if ((s = ti__cc_check_bias(d, bias)) != TI_STATUS_SUCCESS) return s;
  if ((s = ti__cc_check_packed(d, &g, packed, packed_bytes)) != TI_STATUS_SUCCESS) return s;
  need = ti__cc_run_bytes(&g);
  if (need > 0 && (!scratch || (uint64_t)scratch_bytes < (uint64_t)need)) return TI_STATUS_BAD_PARAM;
  if (g.int8) ti__cc_run8(ctx, d, &g, in, (const uint8_t *)packed, bias, out, scratch);
  else ti__cc_ref_run(d, &g, in, (const uint8_t *)packed + 64, bias, out);
  return TI_STATUS_SUCCESS;
}

TASKIR_API ti_status ti_cc(const ti_kernel_ctx *ctx, const ti_prim_desc *d, const void *in,
                           const void *w, const void *bias, void *out,
                           void *scratch, size_t scratch_bytes) {
  ti__cc_geo g;
  ti_status s = ti__cc_geom(d, &g);
  int64_t pb, need;
  if (s) return s;
  if (!in || !w || !out) return TI_STATUS_BAD_PARAM;
  if ((s = ti__cc_check_bias(d, bias)) != TI_STATUS_SUCCESS) return s;
  if (!g.int8) { ti__cc_ref_run(d, &g, in, w, bias, out); return TI_STATUS_SUCCESS; }
  pb = ti__cc_pack_bytes(d, &g);
  need = pb + ti__cc_run_bytes(&g);
  if (!scratch || (uint64_t)scratch_bytes < (uint64_t)need) return TI_STATUS_BAD_PARAM;
  if (ti__cpu(ctx) == 0) { ti__cc_ref_run(d, &g, in, w, bias, out); return TI_STATUS_SUCCESS; }
  ti__cc_pack(d, &g, w, (uint8_t *)scratch);
  ti__cc_run8(ctx, d, &g, in, (const uint8_t *)scratch, bias, out, (uint8_t *)scratch + pb);
  return TI_STATUS_SUCCESS;
}

TASKIR_API ti_status ti_cc2d_scratch_size(const ti_prim_desc *d, int weights_packed, size_t *bytes) {
  return ti_cc_scratch_size(d, weights_packed, bytes);
}
TASKIR_API ti_status ti_cc2d_pack_size(const ti_prim_desc *d, size_t *bytes) {
  return ti_cc_pack_size(d, bytes);
}
TASKIR_API ti_status ti_cc2d_pack_weights(const ti_prim_desc *d, const void *w, void *packed,
                                          size_t packed_bytes) {
  return ti_cc_pack_weights(d, w, packed, packed_bytes);
}
TASKIR_API ti_status ti_cc2d(const ti_kernel_ctx *ctx, const ti_prim_desc *d, const void *in,
                             const void *w, const void *bias, void *out,
                             void *scratch, size_t scratch_bytes) {
  return ti_cc(ctx, d, in, w, bias, out, scratch, scratch_bytes);
}
TASKIR_API ti_status ti_cc2d_packed(const ti_kernel_ctx *ctx, const ti_prim_desc *d,
                                    const void *in, const void *packed, size_t packed_bytes,
                                    const void *bias, void *out, void *scratch, size_t scratch_bytes) {
  return ti_cc_packed(ctx, d, in, packed, packed_bytes, bias, out, scratch, scratch_bytes);
}
TASKIR_API ti_status ti_cc2d_ref(const ti_prim_desc *d, const void *in, const void *w,
                                 const void *bias, void *out) {
  return ti_cc_ref(d, in, w, bias, out);
}

/* ---- CVM ---------------------------------------------------------------------
   Streams W row by row (the weights are read once, so the kernel is bound by
   memory bandwidth; no repacking). x86 dots are u8 x s8: with U8 input the
   input is the unsigned operand; with signed input the weights become the
   unsigned operand as w + 128 (xor 0x80) and 128 * sum(x) is taken off. A
   kernel writes raw row sums over the first nm inputs (a multiple of its
   vector bytes); the caller adds the scalar tail, the bias and the
   correction, all modulo 2^32. */
typedef void (*ti__cv_kfn)(const uint8_t *w, const uint8_t *x, int64_t nr, int64_t nm,
                           int64_t f0, int64_t f1, int flip, uint32_t *s);

#define TI__CV_HSUM(v, n, res) { uint32_t t_[16]; int i_; TI__CV_STV(t_, v); \
  res = 0; for (i_ = 0; i_ < (n); i_++) res += t_[i_]; }
#define TI__CV_KERNEL(NAME, TGT, VB) \
TGT static void NAME(const uint8_t *w, const uint8_t *x, int64_t nr, int64_t nm, \
                     int64_t f0, int64_t f1, int flip, uint32_t *s) { \
  const TI__CC_V k80 = TI__CV_SET1(0x80); \
  int64_t f = f0, r; \
  for (; f + 4 <= f1; f += 4) { \
    const uint8_t *w0 = w + f * nr, *w1 = w0 + nr, *w2 = w1 + nr, *w3 = w2 + nr; \
    TI__CC_V a0 = TI__CC_ZERO(), a1 = a0, a2 = a0, a3 = a0; \
    if (flip) { \
      for (r = 0; r < nm; r += VB) { \
        TI__CC_V v = TI__CC_LD(x + r); \
        a0 = TI__CC_DOT(a0, TI__CV_XOR(TI__CC_LD(w0 + r), k80), v); \
        a1 = TI__CC_DOT(a1, TI__CV_XOR(TI__CC_LD(w1 + r), k80), v); \
        a2 = TI__CC_DOT(a2, TI__CV_XOR(TI__CC_LD(w2 + r), k80), v); \
        a3 = TI__CC_DOT(a3, TI__CV_XOR(TI__CC_LD(w3 + r), k80), v); \
      } \
    } else { \
      for (r = 0; r < nm; r += VB) { \
        TI__CC_V v = TI__CC_LD(x + r); \
        a0 = TI__CC_DOT(a0, v, TI__CC_LD(w0 + r)); \
        a1 = TI__CC_DOT(a1, v, TI__CC_LD(w1 + r)); \
        a2 = TI__CC_DOT(a2, v, TI__CC_LD(w2 + r)); \
        a3 = TI__CC_DOT(a3, v, TI__CC_LD(w3 + r)); \
      } \
    } \
    TI__CV_HSUM(a0, VB / 4, s[f]) TI__CV_HSUM(a1, VB / 4, s[f + 1]) \
    TI__CV_HSUM(a2, VB / 4, s[f + 2]) TI__CV_HSUM(a3, VB / 4, s[f + 3]) \
  } \
  for (; f < f1; f++) { \
    const uint8_t *w0 = w + f * nr; \
    TI__CC_V a0 = TI__CC_ZERO(); \
    for (r = 0; r < nm; r += VB) { \
      TI__CC_V v = TI__CC_LD(x + r), u = TI__CC_LD(w0 + r); \
      a0 = flip ? TI__CC_DOT(a0, TI__CV_XOR(u, k80), v) : TI__CC_DOT(a0, v, u); \
    } \
    TI__CV_HSUM(a0, VB / 4, s[f]) \
  } \
}

#if defined(TI__CC_X86)
#define TI__CC_V __m128i
#define TI__CC_ZERO() _mm_setzero_si128()
#define TI__CC_LD(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define TI__CC_DOT(c, a, w) ti__cc_s_dot(c, a, w)
#define TI__CV_SET1(b) _mm_set1_epi8((char)(b))
#define TI__CV_XOR(a, b) _mm_xor_si128(a, b)
#define TI__CV_STV(t, v) _mm_storeu_si128((__m128i *)(void *)(t), v)
TI__CV_KERNEL(ti__cv_k_sse2, , 16)
#undef TI__CC_V
#undef TI__CC_ZERO
#undef TI__CC_LD
#undef TI__CC_DOT
#undef TI__CV_SET1
#undef TI__CV_XOR
#undef TI__CV_STV
#define TI__CC_V __m256i
#define TI__CC_ZERO() _mm256_setzero_si256()
#define TI__CC_LD(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define TI__CC_DOT(c, a, w) ti__cc_a2_dot(c, a, w)
#define TI__CV_SET1(b) _mm256_set1_epi8((char)(b))
#define TI__CV_XOR(a, b) _mm256_xor_si256(a, b)
#define TI__CV_STV(t, v) _mm256_storeu_si256((__m256i *)(void *)(t), v)
TI__CV_KERNEL(ti__cv_k_avx2, TI__CC_T_AVX2, 32)
#undef TI__CC_DOT
#define TI__CC_DOT(c, a, w) _mm256_dpbusd_avx_epi32(c, a, w)
TI__CV_KERNEL(ti__cv_k_avxvnni, TI__CC_T_AVXVNNI, 32)
#undef TI__CC_V
#undef TI__CC_ZERO
#undef TI__CC_LD
#undef TI__CC_DOT
#undef TI__CV_SET1
#undef TI__CV_XOR
#undef TI__CV_STV
#define TI__CC_V __m512i
#define TI__CC_ZERO() _mm512_setzero_si512()
#define TI__CC_LD(p) _mm512_loadu_si512((const void *)(p))
#define TI__CC_DOT(c, a, w) ti__cc_z_dot(c, a, w)
#define TI__CV_SET1(b) _mm512_set1_epi8((char)(b))
#define TI__CV_XOR(a, b) _mm512_xor_si512(a, b)
#define TI__CV_STV(t, v) _mm512_storeu_si512((void *)(t), v)
TI__CV_KERNEL(ti__cv_k_avx512, TI__CC_T_AVX512, 64)
#undef TI__CC_DOT
#define TI__CC_DOT(c, a, w) _mm512_dpbusd_epi32(c, a, w)
TI__CV_KERNEL(ti__cv_k_vnni512, TI__CC_T_VNNI512, 64)
#undef TI__CC_V
#undef TI__CC_ZERO
#undef TI__CC_LD
#undef TI__CC_DOT
#undef TI__CV_SET1
#undef TI__CV_XOR
#undef TI__CV_STV
#endif /* TI__CC_X86 */

#if defined(TI__CC_NEON)
/* NEON: exact widening products, signed or unsigned input; no correction. */
static void ti__cv_k_neon(const uint8_t *w, const uint8_t *x, int64_t nr, int64_t nm,
                          int64_t f0, int64_t f1, int x_signed, uint32_t *s) {
  int64_t f, r;
  for (f = f0; f < f1; f++) {
    const int8_t *w0 = (const int8_t *)w + f * nr;
    int32x4_t a = vdupq_n_s32(0), b = a;
    for (r = 0; r < nm; r += 16) {
      uint8x16_t xu = vld1q_u8(x + r);
      int8x16_t wv = vld1q_s8(w0 + r);
      int16x8_t xl, xh, wl = vmovl_s8(vget_low_s8(wv)), wh = vmovl_high_s8(wv);
      if (x_signed) {
        xl = vmovl_s8(vget_low_s8(vreinterpretq_s8_u8(xu)));
        xh = vmovl_high_s8(vreinterpretq_s8_u8(xu));
      } else {
        xl = vreinterpretq_s16_u16(vmovl_u8(vget_low_u8(xu)));
        xh = vreinterpretq_s16_u16(vmovl_high_u8(xu));
      }
      a = vmlal_s16(a, vget_low_s16(xl), vget_low_s16(wl));
      b = vmlal_high_s16(b, xl, wl);
      a = vmlal_s16(a, vget_low_s16(xh), vget_low_s16(wh));
      b = vmlal_high_s16(b, xh, wh);
    }
    {
      uint32_t t[4];
      vst1q_u32(t, vreinterpretq_u32_s32(vaddq_s32(a, b)));
      s[f] = t[0] + t[1] + t[2] + t[3];
    }
  }
}
#endif

typedef struct ti__cv_job {
  const ti_prim_desc *d;
  const ti__cc_geo *g;
  const uint8_t *w, *x;
  const void *bias;
  uint32_t *out, corr;
  int64_t nm;
  int flip;
  ti__cv_kfn k;
} ti__cv_job;

static void ti__cv_range(void *arg, int64_t b, int64_t e) {
  const ti__cv_job *j = (const ti__cv_job *)arg;
  const ti__cc_geo *g = j->g;
  int64_t f0 = b * 16, f1 = e * 16 < g->nf ? e * 16 : g->nf, f, r;
  j->k(j->w, j->x, g->nr, j->nm, f0, f1, j->flip, j->out);
  for (f = f0; f < f1; f++) {
    uint32_t acc = j->out[f] - j->corr + ti__cc_biasi(j->d, j->bias, f);
    for (r = j->nm; r < g->nr; r++)
      acc += ti__cc_geti(j->x, j->d->in_dtype, r) * (uint32_t)(int32_t)(int8_t)j->w[f * g->nr + r];
    j->out[f] = acc;
  }
}

static void ti__cvm_ref_run(const ti_prim_desc *d, const ti__cc_geo *g, const void *in,
                            const void *w, const void *bias, void *out) {
  int64_t f, r;
  for (f = 0; f < g->nf; f++) {
    if (g->is_float) {
      const float *fi = (const float *)in, *fw = (const float *)w + f * g->nr;
      float acc = ti__cc_biasf(d, bias, f);
      for (r = 0; r < g->nr; r++) acc += fi[r] * fw[r];
      ((float *)out)[f] = acc;
    } else {
      uint32_t acc = ti__cc_biasi(d, bias, f);
      for (r = 0; r < g->nr; r++)
        acc += ti__cc_geti(in, d->in_dtype, r) * ti__cc_geti(w, d->w_dtype, f * g->nr + r);
      ((uint32_t *)out)[f] = acc;
    }
  }
}

TASKIR_API ti_status ti_cvm_ref(const ti_prim_desc *d, const void *in, const void *w,
                                const void *bias, void *out) {
  ti__cc_geo g;
  ti_status s = ti__cvm_geom(d, &g);
  if (s) return s;
  if (!in || !w || !out) return TI_STATUS_BAD_PARAM;
  if ((s = ti__cc_check_bias(d, bias)) != TI_STATUS_SUCCESS) return s;
  ti__cvm_ref_run(d, &g, in, w, bias, out);
  return TI_STATUS_SUCCESS;
}

TASKIR_API ti_status ti_cvm(const ti_kernel_ctx *ctx, const ti_prim_desc *d, const void *in,
                            const void *w, const void *bias, void *out) {
  ti__cc_geo g;
  ti__cv_job j;
  ti_status s = ti__cvm_geom(d, &g);
  unsigned cpu;
  int64_t vb = 0, r;
  int corr_on;
  if (s) return s;
  if (!in || !w || !out) return TI_STATUS_BAD_PARAM;
  if ((s = ti__cc_check_bias(d, bias)) != TI_STATUS_SUCCESS) return s;
  cpu = ti__cpu(ctx);
  j.k = 0;
  j.flip = d->in_dtype != TI_DTYPE_U8;
  corr_on = j.flip;
#if defined(TI__CC_X86)
  if ((cpu & TI_CPU_AVX512VNNI) && (cpu & TI_CPU_AVX512)) { j.k = ti__cv_k_vnni512; vb = 64; }
  else if (cpu & TI_CPU_AVXVNNI) { j.k = ti__cv_k_avxvnni; vb = 32; }
  else if (cpu & TI_CPU_AVX512) { j.k = ti__cv_k_avx512; vb = 64; }
  else if (cpu & TI_CPU_AVX2) { j.k = ti__cv_k_avx2; vb = 32; }
  else if (cpu & TI_CPU_SSE2) { j.k = ti__cv_k_sse2; vb = 16; }
#elif defined(TI__CC_NEON)
  /* the NEON kernel takes the flag as "input is signed" and needs no correction */
  if (cpu & TI_CPU_NEON) { j.k = ti__cv_k_neon; vb = 16; corr_on = 0; }
#else
  (void)cpu;
#endif
  if (!g.int8 || !j.k) { ti__cvm_ref_run(d, &g, in, w, bias, out); return TI_STATUS_SUCCESS; }
  j.d = d; j.g = &g; j.w = (const uint8_t *)w; j.x = (const uint8_t *)in; j.bias = bias;
  j.out = (uint32_t *)out; j.nm = g.nr - g.nr % vb; j.corr = 0;
  if (corr_on)
    for (r = 0; r < j.nm; r++) j.corr += 128u * ti__cc_geti(in, d->in_dtype, r);
  ti__parallel(ctx, (g.nf + 15) / 16, ti__cv_range, &j);
  return TI_STATUS_SUCCESS;
}

#undef TI__CC_REP1
#undef TI__CC_REP2
#undef TI__CC_REP3
#undef TI__CC_REP4
#undef TI__CC_REP5
#undef TI__CC_REP6
#undef TI__CC_WOFF
#undef TI__CC_DECL
#undef TI__CC_SETI
#undef TI__CC_STEP
#undef TI__CC_OUT
#undef TI__CC_KERNEL
#undef TI__CV_HSUM
#undef TI__CV_KERNEL
#undef TI__CC_LIMIT
#undef TI__CC_MAGIC
#if defined(TI__CC_X86)
#undef TI__CC_T_AVX2
#undef TI__CC_T_AVX512
#undef TI__CC_T_VNNI512
#undef TI__CC_T_AVXVNNI
#undef TI__CC_X86
#endif
#undef TI__CC_NEON

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
