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
     5  N*T*C*HW >= 2^31 (or its bytes beyond size_t)        NOT_SUPPORTED
     6  T == 0: nothing to do                                   SUCCESS
     7  a NULL data pointer                                     BAD_PARAM

   Speed: the work is runs of (C/G)*HW elements, copies or zero fills. Runs
   of up to 64 bytes go group by group within each image (a fixed-size move
   per run at the row stride); longer ones go row by row, neighbouring
   groups with equal shifts merged. Outputs of at least
   TASKIR_KERNELS_STREAM_BYTES (define before the implementing include;
   default 16 MiB) are written with non-temporal stores on x86-64, runs under
   16 KiB then in source order so that reads stay sequential. ctx->cpu == 0
   (ti_tinshift_ex) keeps to plain C. */
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

/* Data rearrangements of Task IR edges, and N-d transpose.

   Data is a dense row-major box of ndim (1..8) axes: axis 0 slowest. For the
   usual [y][x][f] cluster box, axis 0 = y, 1 = x, 2 = f. The "plane" of the
   2-D kinds is axes (0, 1) = (y, x); every axis after them is carried along
   as one pixel (all f of a pixel move together). Elements are 1, 2, 4 or 8
   bytes and are moved, never converted; filled places get all-zero bytes.

   A rearrangement is a kind (the wire's RearrangeInfoType) and its parameter
   tensors (RearrangeInfo.matrix, in order: m[0], m[1], ...). A parameter's
   values are its int32_data (i32) or float_data (f32); its dims are not
   used. "optional" parameters may be absent or empty.

   kind      params                                   output dims / meaning
   --------  ---------------------------------------  -----------------------------------------
   IDENTITY  none (ignored)                           in; a copy
   RESHAPE   m[0].i32: the source axes listed from    [V] (V = volume), or m[1].i32 when given
             fastest- to slowest-varying, a           (its product must be V). The source
             permutation of 0..ndim-1; optional,      transposed to that order and flattened:
             default ndim-1, ..., 0.                  [2,1,0] on [y][x][f] is the plain
             m[1].i32: output dims, optional          row-major flatten; [0,1,2] gives f,x,y
                                                      order (y fastest).
   PERMUTE   m[0].i32: perm, a permutation of         out dims[i] = in dims[perm[i]];
             0..ndim-1                                out[..i_k..] = in[..] with input axis
                                                      perm[k] indexed by i_k (numpy transpose)
   ROTATE    m[0].i32: [k] or [k, a, b]; k quarter    plane axes (a, b), default (0, 1), H =
             turns counter-clockwise (any integer,    dims[a], W = dims[b]; k = 1: dims a, b
             taken mod 4)                             swap, out[i][j] = in[j][W-1-i];
                                                      k = 2: out[i][j] = in[H-1-i][W-1-j];
                                                      k = 3: swap, out[i][j] = in[H-1-j][i]
                                                      (numpy rot90(in, k, axes=(a, b)))
   SHIFT     m[0].i32: offsets d[0..k-1], k <= ndim   in. out[i] = in[i - d] per axis: content
             (missing axes: 0). m[1].i32: [mode],     moves towards higher indices for d > 0.
             optional: 0 zero-fill (default),         Zero-fill: 0 where i - d is outside;
             1 cyclic                                 cyclic: index (i - d) mod n.
   SCALE     m[0].i32: integer factors s[0..k-1] >= 1 dims[a] * s[a]; out[i] = in[i / s]
             (missing axes: 1)                        (nearest up-sampling; down-sampling is
                                                      pooling, use CAVG / CCMPB blocks)
   SHEAR     m[0].i32: [a, b], at most one nonzero,   zero-fill shear of the plane (H, W):
             any sign                                 a: out[y + a*x + oy][x] = in[y][x],
                                                      H' = H + |a|(W-1), oy = max(0, -a(W-1));
                                                      b: out[y][x + b*y + ox] = in[y][x],
                                                      W' = W + |b|(H-1), ox = max(0, -b(H-1));
                                                      every other place 0
   REFLECT   m[0].i32: the axes to flip (each at      in; out[..i..] = in[..n-1-i..] on each
             most once, at least one)                 listed axis
   AFFINE    m[0]: 6 numbers [a11 a12 b1 a21 a22 b2]  plane (H', W') from m[1].i32 [H', W'],
             (f32, or i32 when f32 is empty):         default (H, W). Inverse mapping with
             y' = a11 y + a12 x + b1,                 nearest neighbour: for each (y', x'),
             x' = a21 y + a22 x + b2.                 v = y' - b1, u = x' - b2,
             m[1].i32: [H', W'], optional             det = a11 a22 - a12 a21,
                                                      y = (a22 v - a12 u) / det,
                                                      x = (a11 u - a21 v) / det (in double),
                                                      source (floor(y + .5), floor(x + .5))
                                                      when inside, else 0. det == 0 or a
                                                      non-finite number: BAD_PARAM
   PROJECT   m[0]: 9 numbers, H row-major (f32, or    as AFFINE, with the inverse through the
             i32 when f32 is empty):                  adjugate A of H (A = det(H) H^-1):
             [Y X Z] = H [y x 1], y' = Y/Z, x' = X/Z  [Y X Z] = A [y' x' 1]; Z == 0 gives 0;
             m[1].i32: [H', W'], optional             y = Y/Z, x = X/Z, nearest as AFFINE.
                                                      det(H) == 0: BAD_PARAM
   SHUFFLE   m[0].i32: index table idx.               with m[1]: gather along axis c,
             m[1].i32: [c], an axis, optional         dims[c] = len(idx) >= 1,
                                                      out[..j..] = in[..idx[j]..];
                                                      without: len(idx) = V,
                                                      flat out[j] = flat in[idx[j]].
                                                      idx[j] = -1 gives 0; other values
                                                      outside the axis: BAD_PARAM

   ROTATE, SHEAR, AFFINE and PROJECT need ndim >= 2. Volumes (in bytes) must
   stay below 2^62. Input and output buffers must not overlap. */
typedef enum ti_rearrange_kind {
  TI_REARRANGE_IDENTITY = 0,
  TI_REARRANGE_RESHAPE = 1,
  TI_REARRANGE_PERMUTE = 2,
  TI_REARRANGE_ROTATE = 3,
  TI_REARRANGE_SHIFT = 4,
  TI_REARRANGE_SCALE = 5,
  TI_REARRANGE_SHEAR = 6,
  TI_REARRANGE_REFLECT = 7,
  TI_REARRANGE_AFFINE = 8,
  TI_REARRANGE_PROJECT = 9,
  TI_REARRANGE_SHUFFLE = 10,
  TI_REARRANGE_COUNT
} ti_rearrange_kind;

enum { TI_SHIFT_ZERO = 0, TI_SHIFT_CYCLIC = 1 };  /* SHIFT m[1] modes */

/* "IDENTITY", "RESHAPE", ... (the wire names); NULL for an unknown kind. */
TASKIR_API const char *ti_rearrange_kind_name(int kind);

/* One parameter tensor (a RearrangeInfo.matrix entry), borrowed. */
typedef struct ti_rearrange_param {
  int32_t ndims;          /* the tensor's own dims (informational) */
  const int32_t *dims;
  const int32_t *i32;     /* int32_data */
  int64_t n_i32;
  const float *f32;       /* float_data */
  int64_t n_f32;
} ti_rearrange_param;

/* Output dims of kind applied to a box of dims in_dims[0..ndim-1]; out_dims
   must hold TI_TENSOR_MAX_DIMS. BAD_PARAM for malformed parameters or dims,
   NOT_SUPPORTED for an unknown kind. */
TASKIR_API ti_status ti_rearrange_infer(int kind, const ti_rearrange_param *p, int np, int ndim,
                                        const int64_t *in_dims, int *out_ndim, int64_t *out_dims);
/* The same; *reason (when reason is not NULL) gets a static message saying
   what is wrong, or NULL on success. */
TASKIR_API ti_status ti_rearrange_infer_ex(int kind, const ti_rearrange_param *p, int np,
                                           int ndim, const int64_t *in_dims, int *out_ndim,
                                           int64_t *out_dims, const char **reason);

/* Applies one rearrangement. out_dims may be any shape with the volume of
   the inferred output (the result is the inferred-shape result in row-major
   order, i.e. an implicit reshape). elem_size is 1, 2, 4 or 8. */
TASKIR_API ti_status ti_rearrange_apply(int kind, const ti_rearrange_param *p, int np,
                                        size_t elem_size, int ndim, const int64_t *in_dims,
                                        const void *in, int out_ndim, const int64_t *out_dims,
                                        void *out);

/* N-d transpose: out has dims in_dims[perm[0]], ..., in_dims[perm[ndim-1]]
   and out[i_0]..[i_{ndim-1}] = in[...] with input axis perm[k] indexed by
   i_k (numpy transpose). ndim 1..8, elem_size 1, 2, 4 or 8. Size-1 axes are
   dropped and axes adjacent in both orders merged first; a kept innermost
   axis becomes contiguous runs (memcpy), otherwise the two innermost moved
   axes are transposed in cache-sized tiles (SSE2 on x86-64). */
TASKIR_API ti_status ti_transpose(size_t elem_size, int ndim, const int64_t *in_dims,
                                  const int *perm, const void *in, void *out);
/* With a kernel context: parallel_for splits the blocks / runs; ctx->cpu
   == 0 keeps to plain C, TI_CPU_AVX2 in ctx->cpu enables 8 x 8 AVX2 blocks
   for 4-byte elements (ti_transpose, with no ctx, runs no cpuid and uses
   the base SIMD of the target: SSE2 or NEON). Outputs of at least TASKIR_KERNELS_STREAM_BYTES
   use non-temporal stores on x86-64. */
TASKIR_API ti_status ti_transpose_ex(const ti_kernel_ctx *ctx, size_t elem_size, int ndim,
                                     const int64_t *in_dims, const int *perm, const void *in,
                                     void *out);

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

/* Whether a kernel may take its SIMD paths (x86-64: SSE2 blocks and
   streaming stores; aarch64: NEON blocks). Both are part of their base ISA,
   so a NULL ctx needs no cpuid; a ctx with cpu == 0 asks for plain C. */
TI__PRIVATE int ti__mv_simd(const ti_kernel_ctx *ctx) {
#if defined(TI__X86)
  return ctx ? (ctx->cpu & TI_CPU_SSE2) != 0 : 1;
#elif defined(TI__NEON)
  return ctx ? (ctx->cpu & TI_CPU_NEON) != 0 : 1;
#else
  (void)ctx;
  return 0;
#endif
}

/* Sequential output writer. Normal mode stores directly. Streaming mode
   (x86-64) writes whole aligned 64-byte lines with non-temporal stores;
   pieces shorter than a line are gathered in a small buffer first so that no
   line is written half by normal and half by streaming stores. */
#if defined(TI__X86)
#define TI__WR_CAP 2048
#define TI__TS_STAGE 4096
#else
#define TI__WR_CAP 8     /* no streaming here: keep firmware stacks small */
#define TI__TS_STAGE 64
#endif
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

#if defined(TI__X86)
/* n bytes from s (zeros when s is NULL) to d with non-temporal stores for
   the 16-byte-aligned middle and normal stores for the ends. */
static void ti__nt_put(unsigned char *d, const unsigned char *s, size_t n) {
  size_t h = (size_t)(-(intptr_t)d) & 15, i;
  const __m128i z = _mm_setzero_si128();
  if (n < 64) {
    if (s) ti__mv_copy(d, s, n); else ti__mv_zero(d, n);
    return;
  }
  if (h) {
    if (s) { ti__mv_copy(d, s, h); s += h; } else ti__mv_zero(d, h);
    d += h; n -= h;
  }
  for (i = 0; i + 16 <= n; i += 16)
    _mm_stream_si128((__m128i *)(void *)(d + i),
                     s ? _mm_loadu_si128((const __m128i *)(const void *)(s + i)) : z);
  if (i < n) {
    if (s) ti__mv_copy(d + i, s + i, n - i); else ti__mv_zero(d + i, n - i);
  }
}

/* Large outputs with pieces of 64 bytes to 16 KiB, in source order: each
   input row is read once, front to back, and its pieces are streamed to
   their output rows, so the reads are the sequential streams the hardware
   prefetchers follow best (output order would start a new short stream at
   every piece). Output rows [r0, r1) only, so parallel ranges stay apart. */
static void ti__ts_scatter(const ti__ts_job *j, int64_t r0, int64_t r1) {
  const int64_t T = j->T, G = j->G, sign = j->sign;
  const size_t piece = j->piece, row = j->row;
  int64_t r = r0;
  while (r < r1) {
    const int64_t n = r / T, ta = r % T, tb = T - ta < r1 - r ? T : ta + (r1 - r);
    const int32_t *sh = j->shifts + n * G;
    const unsigned char *src = j->src + (size_t)(n * T) * row;
    unsigned char *dst = j->dst + (size_t)(n * T) * row;
    int64_t g, g1, t, ts;
    for (ts = 0; ts < T; ++ts)
      for (g = 0; g < G; g = g1) {
        const int64_t s = sign * sh[g];
        for (g1 = g + 1; g1 < G && sh[g1] == sh[g]; ++g1) {}
        t = ts + s;
        if (t >= ta && t < tb)
          ti__nt_put(dst + (size_t)t * row + (size_t)g * piece,
                     src + (size_t)ts * row + (size_t)g * piece, (size_t)(g1 - g) * piece);
      }
    for (g = 0; g < G; ++g) {  /* rows with no source: t - s outside [0, T) */
      const int64_t s = sign * sh[g];
      for (t = ta; t < tb; ++t)
        if ((uint64_t)(t - s) >= (uint64_t)T)
          ti__nt_put(dst + (size_t)t * row + (size_t)g * piece, 0, piece);
    }
    r += tb - ta;
  }
  _mm_sfence();
}
#endif

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
    unsigned char stage[TI__TS_STAGE];
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
      /* the columns are read in a strided order: fetch the next image's
         block (contiguous) ahead so that memory sees one forward stream */
      if (ta == 0 && (n + 1) * T < r1) {
        const unsigned char *nx = j->src + (size_t)((n + 1) * T) * row;
        const size_t nb = (size_t)T * row < 16384 ? (size_t)T * row : 16384;
        size_t o;
        for (o = 0; o < nb; o += 64) TI__MV_PREFETCH(nx + o);
      }
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
#if defined(TI__X86)
  if (j->stream && piece < 16384) {
    ti__ts_scatter(j, r0, r1);
    return;
  }
#endif
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
    /* and the bytes must be addressable (32-bit targets) */
    if ((uint64_t)count * ti_dtype_size(xd->dtype) > (uint64_t)SIZE_MAX)
      return TI_STATUS_NOT_SUPPORTED;
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
#if defined(TI__X86)
  job.stream = ti__mv_simd(ctx) && (size_t)count * es >= TASKIR_KERNELS_STREAM_BYTES;
#else
  job.stream = 0;  /* streaming stores are an x86 path */
#endif
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

static const char *const ti__ra_names[] = {
  "IDENTITY", "RESHAPE", "PERMUTE", "ROTATE", "SHIFT", "SCALE",
  "SHEAR", "REFLECT", "AFFINE", "PROJECT", "SHUFFLE"};
/* A new kind breaks the build until the name table has it. */
typedef char ti__ra_names_pinned[(sizeof ti__ra_names / sizeof ti__ra_names[0] ==
                                  (size_t)TI_REARRANGE_COUNT) ? 1 : -1];

TASKIR_API const char *ti_rearrange_kind_name(int kind) {
  return (unsigned)kind < (unsigned)TI_REARRANGE_COUNT ? ti__ra_names[kind] : 0;
}

#define TI__RA_LIMIT ((int64_t)1 << 62)

/* a * b for a, b >= 0; 0 when the product reaches TI__RA_LIMIT. */
static int ti__ra_mul(int64_t a, int64_t b, int64_t *r) {
  if (a != 0 && b > (TI__RA_LIMIT - 1) / a) return 0;
  *r = a * b;
  return 1;
}

/* ---- N-d transpose ---- */

typedef struct ti__tr_job {
  const unsigned char *in;
  unsigned char *out;
  size_t es;
  int m;               /* axes after simplification (>= 2) */
  int kept;            /* innermost axis kept: the work is runs */
  int r;               /* tiled: output position of the input's innermost axis */
  int noth;            /* axes iterated by the outer loop, output positions oth[] */
  int oth[TI_TENSOR_MAX_DIMS];
  int64_t odim[TI_TENSOR_MAX_DIMS];   /* output dims, output order */
  int64_t istr[TI_TENSOR_MAX_DIMS];   /* input stride (elements) per output axis */
  int64_t ostr[TI_TENSOR_MAX_DIMS];   /* output stride (elements) per output axis */
  int64_t nbi, nbj;    /* tiled: blocks along the output's (i) and input's (j) innermost axes */
  int stream;          /* output large enough for non-temporal stores */
  int simd;            /* SSE2 blocks allowed */
} ti__tr_job;

/* Two levels of blocking for the 2-D core: a block of TI__TR_BLOCK x
   TI__TR_BLOCK elements (its rows' pages stay in the TLB and its bytes in L2),
   cut into tiles of one 64-byte line by one line, so that every line read or
   written is finished within a tile whatever cache sets the strides map to. */
#ifndef TI__TR_BLOCK
#define TI__TR_BLOCK 256
#endif

/* out[j*so + i] = in[i*sp + j] for i in [ia, ib), j in [ja, jb); strides and
   offsets in elements. */
static void ti__tr2d_scalar(size_t es, const unsigned char *in, int64_t sp, unsigned char *out,
                            int64_t so, int64_t ia, int64_t ib, int64_t ja, int64_t jb) {
  int64_t i, j;
#define TI__TR_SC(TYPE)                                                          \
  for (j = ja; j < jb; ++j)                                                      \
    for (i = ia; i < ib; ++i) {                                                  \
      TYPE v;                                                                    \
      memcpy(&v, in + (size_t)(i * sp + j) * sizeof(TYPE), sizeof(TYPE));        \
      memcpy(out + (size_t)(j * so + i) * sizeof(TYPE), &v, sizeof(TYPE));       \
    }
  switch (es) {
  case 1: TI__TR_SC(uint8_t) break;
  case 2: TI__TR_SC(uint16_t) break;
  case 4: TI__TR_SC(uint32_t) break;
  default: TI__TR_SC(uint64_t) break;
  }
#undef TI__TR_SC
}

#if defined(TI__X86)
#define TI__LD(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define TI__ST(p, v) _mm_storeu_si128((__m128i *)(void *)(p), (v))
/* One K x K block (K = 16 / es; 8 for bytes) with SSE2 unpacks. */
static void ti__tr_block(size_t es, const unsigned char *s, size_t sp, unsigned char *d,
                         size_t so) {
  if (es == 4) {
    __m128i r0 = TI__LD(s), r1 = TI__LD(s + sp), r2 = TI__LD(s + 2 * sp), r3 = TI__LD(s + 3 * sp);
    __m128i t0 = _mm_unpacklo_epi32(r0, r1), t1 = _mm_unpacklo_epi32(r2, r3);
    __m128i t2 = _mm_unpackhi_epi32(r0, r1), t3 = _mm_unpackhi_epi32(r2, r3);
    TI__ST(d, _mm_unpacklo_epi64(t0, t1));
    TI__ST(d + so, _mm_unpackhi_epi64(t0, t1));
    TI__ST(d + 2 * so, _mm_unpacklo_epi64(t2, t3));
    TI__ST(d + 3 * so, _mm_unpackhi_epi64(t2, t3));
  } else if (es == 8) {
    __m128i r0 = TI__LD(s), r1 = TI__LD(s + sp);
    TI__ST(d, _mm_unpacklo_epi64(r0, r1));
    TI__ST(d + so, _mm_unpackhi_epi64(r0, r1));
  } else if (es == 2) {
    __m128i a0 = _mm_unpacklo_epi16(TI__LD(s), TI__LD(s + sp));
    __m128i a1 = _mm_unpackhi_epi16(TI__LD(s), TI__LD(s + sp));
    __m128i a2 = _mm_unpacklo_epi16(TI__LD(s + 2 * sp), TI__LD(s + 3 * sp));
    __m128i a3 = _mm_unpackhi_epi16(TI__LD(s + 2 * sp), TI__LD(s + 3 * sp));
    __m128i a4 = _mm_unpacklo_epi16(TI__LD(s + 4 * sp), TI__LD(s + 5 * sp));
    __m128i a5 = _mm_unpackhi_epi16(TI__LD(s + 4 * sp), TI__LD(s + 5 * sp));
    __m128i a6 = _mm_unpacklo_epi16(TI__LD(s + 6 * sp), TI__LD(s + 7 * sp));
    __m128i a7 = _mm_unpackhi_epi16(TI__LD(s + 6 * sp), TI__LD(s + 7 * sp));
    __m128i b0 = _mm_unpacklo_epi32(a0, a2), b1 = _mm_unpackhi_epi32(a0, a2);
    __m128i b2 = _mm_unpacklo_epi32(a1, a3), b3 = _mm_unpackhi_epi32(a1, a3);
    __m128i b4 = _mm_unpacklo_epi32(a4, a6), b5 = _mm_unpackhi_epi32(a4, a6);
    __m128i b6 = _mm_unpacklo_epi32(a5, a7), b7 = _mm_unpackhi_epi32(a5, a7);
    TI__ST(d, _mm_unpacklo_epi64(b0, b4));
    TI__ST(d + so, _mm_unpackhi_epi64(b0, b4));
    TI__ST(d + 2 * so, _mm_unpacklo_epi64(b1, b5));
    TI__ST(d + 3 * so, _mm_unpackhi_epi64(b1, b5));
    TI__ST(d + 4 * so, _mm_unpacklo_epi64(b2, b6));
    TI__ST(d + 5 * so, _mm_unpackhi_epi64(b2, b6));
    TI__ST(d + 6 * so, _mm_unpacklo_epi64(b3, b7));
    TI__ST(d + 7 * so, _mm_unpackhi_epi64(b3, b7));
  } else {
#define TI__LD8(p) _mm_loadl_epi64((const __m128i *)(const void *)(p))
    __m128i a0 = _mm_unpacklo_epi8(TI__LD8(s), TI__LD8(s + sp));
    __m128i a1 = _mm_unpacklo_epi8(TI__LD8(s + 2 * sp), TI__LD8(s + 3 * sp));
    __m128i a2 = _mm_unpacklo_epi8(TI__LD8(s + 4 * sp), TI__LD8(s + 5 * sp));
    __m128i a3 = _mm_unpacklo_epi8(TI__LD8(s + 6 * sp), TI__LD8(s + 7 * sp));
    __m128i b0 = _mm_unpacklo_epi16(a0, a1), b1 = _mm_unpackhi_epi16(a0, a1);
    __m128i b2 = _mm_unpacklo_epi16(a2, a3), b3 = _mm_unpackhi_epi16(a2, a3);
    __m128i c0 = _mm_unpacklo_epi32(b0, b2), c1 = _mm_unpackhi_epi32(b0, b2);
    __m128i c2 = _mm_unpacklo_epi32(b1, b3), c3 = _mm_unpackhi_epi32(b1, b3);
#define TI__ST8(p, v) _mm_storel_epi64((__m128i *)(void *)(p), (v))
    TI__ST8(d, c0); TI__ST8(d + so, _mm_unpackhi_epi64(c0, c0));
    TI__ST8(d + 2 * so, c1); TI__ST8(d + 3 * so, _mm_unpackhi_epi64(c1, c1));
    TI__ST8(d + 4 * so, c2); TI__ST8(d + 5 * so, _mm_unpackhi_epi64(c2, c2));
    TI__ST8(d + 6 * so, c3); TI__ST8(d + 7 * so, _mm_unpackhi_epi64(c3, c3));
#undef TI__LD8
#undef TI__ST8
  }
}
#undef TI__LD
#undef TI__ST
#define TI__TR_HAS_BLOCK(es) 1
#if defined(__GNUC__) || defined(__clang__)
#define TI__TR_AVX2 1
/* 8 x 8 block of 4-byte elements with AVX2 (chosen at run time). */
__attribute__((target("avx2"))) static void ti__tr_block8_avx2(const unsigned char *s, size_t sp,
                                                              unsigned char *d, size_t so) {
#define TI__L(k) _mm256_loadu_ps((const float *)(const void *)(s + (k) * sp))
#define TI__S(k, v) _mm256_storeu_ps((float *)(void *)(d + (k) * so), (v))
  const __m256 r0 = TI__L(0), r1 = TI__L(1), r2 = TI__L(2), r3 = TI__L(3);
  const __m256 r4 = TI__L(4), r5 = TI__L(5), r6 = TI__L(6), r7 = TI__L(7);
  const __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
  const __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
  const __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
  const __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
  const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  const __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  const __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
  const __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  /* shuffles only: the bits move unchanged, NaN payloads included */
  TI__S(0, _mm256_permute2f128_ps(u0, u4, 0x20)); TI__S(1, _mm256_permute2f128_ps(u1, u5, 0x20));
  TI__S(2, _mm256_permute2f128_ps(u2, u6, 0x20)); TI__S(3, _mm256_permute2f128_ps(u3, u7, 0x20));
  TI__S(4, _mm256_permute2f128_ps(u0, u4, 0x31)); TI__S(5, _mm256_permute2f128_ps(u1, u5, 0x31));
  TI__S(6, _mm256_permute2f128_ps(u2, u6, 0x31)); TI__S(7, _mm256_permute2f128_ps(u3, u7, 0x31));
#undef TI__L
#undef TI__S
}
#endif
#elif defined(TI__NEON)
/* 4 x 4 (4-byte) and 2 x 2 (8-byte) blocks with NEON; 1- and 2-byte
   elements take the scalar tiles. */
static void ti__tr_block(size_t es, const unsigned char *s, size_t sp, unsigned char *d,
                         size_t so) {
  if (es == 4) {
    const uint32x4_t r0 = vld1q_u32((const uint32_t *)(const void *)s);
    const uint32x4_t r1 = vld1q_u32((const uint32_t *)(const void *)(s + sp));
    const uint32x4_t r2 = vld1q_u32((const uint32_t *)(const void *)(s + 2 * sp));
    const uint32x4_t r3 = vld1q_u32((const uint32_t *)(const void *)(s + 3 * sp));
    const uint32x4x2_t a = vtrnq_u32(r0, r1), b = vtrnq_u32(r2, r3);
    vst1q_u32((uint32_t *)(void *)d, vcombine_u32(vget_low_u32(a.val[0]), vget_low_u32(b.val[0])));
    vst1q_u32((uint32_t *)(void *)(d + so), vcombine_u32(vget_low_u32(a.val[1]), vget_low_u32(b.val[1])));
    vst1q_u32((uint32_t *)(void *)(d + 2 * so), vcombine_u32(vget_high_u32(a.val[0]), vget_high_u32(b.val[0])));
    vst1q_u32((uint32_t *)(void *)(d + 3 * so), vcombine_u32(vget_high_u32(a.val[1]), vget_high_u32(b.val[1])));
  } else {
    const uint64x2_t r0 = vld1q_u64((const uint64_t *)(const void *)s);
    const uint64x2_t r1 = vld1q_u64((const uint64_t *)(const void *)(s + sp));
    vst1q_u64((uint64_t *)(void *)d, vcombine_u64(vget_low_u64(r0), vget_low_u64(r1)));
    vst1q_u64((uint64_t *)(void *)(d + so), vcombine_u64(vget_high_u64(r0), vget_high_u64(r1)));
  }
}
#define TI__TR_HAS_BLOCK(es) ((es) >= 4)
#endif

/* Block [ia, ib) x [ja, jb) of the 2-D problem out[j*so + i] = in[i*sp + j],
   tile by tile. A full tile (one 64-byte line by one line) is transposed
   into a local buffer and its output lines are then written whole: with
   strides that are multiples of 4 KiB every output line of a tile falls in
   one cache set, and filling them piecewise in place would thrash L1. */
static void ti__tr2d(size_t es, const unsigned char *in, int64_t sp, unsigned char *out,
                     int64_t so, int64_t ia, int64_t ib, int64_t ja, int64_t jb, int simd,
                     int stream) {
  /* simd: 0 plain C, 1 base SIMD (SSE2 / NEON), 2 AVX2 as well */
  const int64_t TT = 64 / (int64_t)es;
  int64_t i0, j0;
  for (i0 = ia; i0 < ib; i0 += TT) {
    const int64_t i1 = ib - i0 < TT ? ib : i0 + TT;
    for (j0 = ja; j0 < jb; j0 += TT) {
      const int64_t j1 = jb - j0 < TT ? jb : j0 + TT;
#if defined(TI__X86) || defined(TI__NEON)
      if (simd && TI__TR_HAS_BLOCK(es) && i1 - i0 == TT && j1 - j0 == TT) {
        const int64_t K = es == 1 ? 8 : 16 / (int64_t)es;
        /* through the line buffer when the output lines of a tile may share
           cache sets (strides of whole KiBs) or are streamed; else direct */
        const int via = stream || ((size_t)so * es) % 1024 == 0;
        unsigned char buf[64 * 64];
        unsigned char *tb = via ? buf : out + (size_t)(j0 * so + i0) * es;
        const size_t tso = via ? 64 : (size_t)so * es;
        int64_t i, j;
        if (j1 < jb)  /* every input row is a stream of its own: fetch ahead */
          for (i = i0; i < i1; ++i) TI__MV_PREFETCH(in + (size_t)(i * sp + j1) * es);
#if defined(TI__TR_AVX2)
        if (simd == 2 && es == 4) {
          for (i = 0; i < TT; i += 8)
            for (j = 0; j < TT; j += 8)
              ti__tr_block8_avx2(in + (size_t)((i0 + i) * sp + j0 + j) * es, (size_t)sp * es,
                                 tb + (size_t)j * tso + (size_t)i * es, tso);
        } else
#endif
        for (i = 0; i < TT; i += K)
          for (j = 0; j < TT; j += K)
            ti__tr_block(es, in + (size_t)((i0 + i) * sp + j0 + j) * es, (size_t)sp * es,
                         tb + (size_t)j * tso + (size_t)i * es, tso);
        if (!via) continue;
        for (j = 0; j < TT; ++j) {
          unsigned char *d = out + (size_t)((j0 + j) * so + i0) * es;
#if defined(TI__X86)
          if (stream && ((uintptr_t)d & 15) == 0) {
            /* large outputs bypass the caches, as in TinShift */
            const unsigned char *q = buf + 64 * j;
            _mm_stream_si128((__m128i *)(void *)d, _mm_loadu_si128((const __m128i *)(const void *)q));
            _mm_stream_si128((__m128i *)(void *)(d + 16), _mm_loadu_si128((const __m128i *)(const void *)(q + 16)));
            _mm_stream_si128((__m128i *)(void *)(d + 32), _mm_loadu_si128((const __m128i *)(const void *)(q + 32)));
            _mm_stream_si128((__m128i *)(void *)(d + 48), _mm_loadu_si128((const __m128i *)(const void *)(q + 48)));
            continue;
          }
#endif
          memcpy(d, buf + 64 * j, 64);
        }
        continue;
      }
#endif
      ti__tr2d_scalar(es, in, sp, out, so, i0, i1, j0, j1);
    }
  }
#if defined(TI__X86)
  if (stream) _mm_sfence();
#else
  (void)stream;
#if !defined(TI__NEON)
  (void)simd;
#endif
#endif
}

/* Input and output element offsets of outer index o over the job's other axes. */
static void ti__tr_outer(const ti__tr_job *j, int64_t o, int64_t *ioff, int64_t *ooff) {
  int k;
  *ioff = 0; *ooff = 0;
  for (k = j->noth - 1; k >= 0; --k) {
    const int a = j->oth[k];
    const int64_t i = o % j->odim[a];
    o /= j->odim[a];
    *ioff += i * j->istr[a];
    *ooff += i * j->ostr[a];
  }
}

static void ti__tr_range(void *arg, int64_t u0, int64_t u1) {
  const ti__tr_job *j = (const ti__tr_job *)arg;
  const size_t es = j->es;
  int64_t u;
  if (j->kept) {
    /* unit = one outer index; it copies odim[m-2] runs of odim[m-1] */
    const int64_t nrun = j->odim[j->m - 2], s = j->istr[j->m - 2];
    const size_t run = (size_t)j->odim[j->m - 1] * es;
    for (u = u0; u < u1; ++u) {
      int64_t ioff, ooff, k;
      const unsigned char *p;
      unsigned char *q;
      ti__tr_outer(j, u, &ioff, &ooff);
      p = j->in + (size_t)ioff * es;
      q = j->out + (size_t)ooff * es;
      for (k = 0; k < nrun; ++k, p += (size_t)s * es, q += run) ti__mv_copy(q, p, run);
    }
    return;
  }
  for (u = u0; u < u1; ++u) {
    /* unit = (outer index, block) */
    const int64_t nb = j->nbi * j->nbj, o = u / nb, bi = (u % nb) / j->nbj, bj = u % j->nbj;
    const int64_t P = j->odim[j->m - 1], L = j->odim[j->r];
    const int64_t ia = bi * TI__TR_BLOCK, ib = P - ia < TI__TR_BLOCK ? P : ia + TI__TR_BLOCK;
    const int64_t ja = bj * TI__TR_BLOCK, jb = L - ja < TI__TR_BLOCK ? L : ja + TI__TR_BLOCK;
    int64_t ioff, ooff;
    ti__tr_outer(j, o, &ioff, &ooff);
    ti__tr2d(es, j->in + (size_t)ioff * es, j->istr[j->m - 1], j->out + (size_t)ooff * es,
             j->ostr[j->r], ia, ib, ja, jb, j->simd, j->stream);
  }
}

static ti_status ti__tr_check(size_t es, int ndim, const int64_t *dims, const int *perm,
                              int64_t *vol) {
  int i, seen[TI_TENSOR_MAX_DIMS];
  int64_t v = 1;
  if (es != 1 && es != 2 && es != 4 && es != 8) return TI_STATUS_BAD_PARAM;
  if (ndim < 1 || ndim > TI_TENSOR_MAX_DIMS || !dims || !perm) return TI_STATUS_BAD_PARAM;
  for (i = 0; i < ndim; ++i) seen[i] = 0;
  for (i = 0; i < ndim; ++i) {
    if (perm[i] < 0 || perm[i] >= ndim || seen[perm[i]]) return TI_STATUS_BAD_PARAM;
    seen[perm[i]] = 1;
    if (dims[i] < 0 || !ti__ra_mul(v, dims[i], &v)) return TI_STATUS_BAD_PARAM;
  }
  if (!ti__ra_mul(v, (int64_t)es, &v)) return TI_STATUS_BAD_PARAM;
  if ((uint64_t)v > (uint64_t)SIZE_MAX) return TI_STATUS_NOT_SUPPORTED;  /* 32-bit targets */
  *vol = v / (int64_t)es;
  return TI_STATUS_SUCCESS;
}

TASKIR_API ti_status ti_transpose_ex(const ti_kernel_ctx *ctx, size_t es, int ndim,
                                     const int64_t *in_dims, const int *perm, const void *in,
                                     void *out) {
  int64_t vol, cd[TI_TENSOR_MAX_DIMS], md[TI_TENSOR_MAX_DIMS], istride[TI_TENSOR_MAX_DIMS];
  int newi[TI_TENSOR_MAX_DIMS], cp[TI_TENSOR_MAX_DIMS], gfirst[TI_TENSOR_MAX_DIMS];
  int mp[TI_TENSOR_MAX_DIMS];
  int cm = 0, ng = 0, i, k;
  ti__tr_job j;
  ti_status st = ti__tr_check(es, ndim, in_dims, perm, &vol);
  if (st != TI_STATUS_SUCCESS) return st;
  if (vol == 0) return TI_STATUS_SUCCESS;
  if (!in || !out) return TI_STATUS_BAD_PARAM;
  /* drop size-1 axes */
  for (i = 0; i < ndim; ++i) {
    newi[i] = -1;
    if (in_dims[i] != 1) { newi[i] = cm; cd[cm++] = in_dims[i]; }
  }
  for (i = 0, k = 0; i < ndim; ++i)
    if (newi[perm[i]] >= 0) cp[k++] = newi[perm[i]];
  /* merge runs of axes adjacent in both orders: group g starts at output
     position where cp does not continue the previous input axis */
  {
    int64_t gd[TI_TENSOR_MAX_DIMS];
    for (i = 0; i < cm; ++i) {
      if (i == 0 || cp[i] != cp[i - 1] + 1) { gfirst[ng] = cp[i]; gd[ng] = 1; ++ng; }
      gd[ng - 1] *= cd[cp[i]];
    }
    /* input order of the groups = order of their first input axis */
    for (i = 0; i < ng; ++i) {
      int rank = 0;
      for (k = 0; k < ng; ++k) rank += gfirst[k] < gfirst[i];
      mp[i] = rank;
      md[rank] = gd[i];
    }
  }
  for (i = 0; i < ng && mp[i] == i; ++i) {}
  if (ng <= 1 || i == ng) {  /* the order is unchanged: one copy */
    memcpy(out, in, (size_t)vol * es);
    return TI_STATUS_SUCCESS;
  }
  istride[ng - 1] = 1;
  for (i = ng - 2; i >= 0; --i) istride[i] = istride[i + 1] * md[i + 1];
  j.in = (const unsigned char *)in;
  j.out = (unsigned char *)out;
  j.es = es;
  j.simd = ti__mv_simd(ctx);
#if defined(TI__TR_AVX2)
  /* AVX2 only from the ctx's cpu flags: cpuid per call would cost more than
     most transposes (tens of microseconds under a hypervisor) */
  if (j.simd && ctx && (ctx->cpu & TI_CPU_AVX2)) j.simd = 2;
#endif
#if defined(TI__X86)
  j.stream = j.simd && (size_t)vol * es >= TASKIR_KERNELS_STREAM_BYTES;
#else
  j.stream = 0;
#endif
  for (;;) {
    j.m = ng;
    for (i = 0; i < ng; ++i) { j.odim[i] = md[mp[i]]; j.istr[i] = istride[mp[i]]; }
    j.ostr[ng - 1] = 1;
    for (i = ng - 2; i >= 0; --i) j.ostr[i] = j.ostr[i + 1] * j.odim[i + 1];
    j.kept = mp[ng - 1] == ng - 1;
    /* a kept innermost axis of 2, 4 or 8 bytes in all: make it the element */
    if (j.kept && j.es < 8 && (size_t)md[ng - 1] * j.es <= 8 &&
        (((size_t)md[ng - 1] * j.es) & ((size_t)md[ng - 1] * j.es - 1)) == 0) {
      const int64_t run = md[ng - 1];
      j.es *= (size_t)run;
      --ng;
      for (i = 0; i < ng; ++i) istride[i] /= run;
      continue;  /* mp[0..ng-1] is still a non-identity permutation of 0..ng-1 */
    }
    break;
  }
  j.noth = 0;
  j.r = ng - 1;
  if (j.kept) {
    for (i = 0; i < ng - 2; ++i) j.oth[j.noth++] = i;
    j.r = ng - 1;
    j.nbi = j.nbj = 1;
  } else {
    for (i = 0; i < ng; ++i)
      if (mp[i] == ng - 1) j.r = i;
    for (i = 0; i < ng - 1; ++i)
      if (i != j.r) j.oth[j.noth++] = i;
    j.nbi = (j.odim[ng - 1] + TI__TR_BLOCK - 1) / TI__TR_BLOCK;
    j.nbj = (j.odim[j.r] + TI__TR_BLOCK - 1) / TI__TR_BLOCK;
  }
  {
    int64_t units = j.nbi * j.nbj;
    for (i = 0; i < j.noth; ++i) units *= j.odim[j.oth[i]];
    ti__parallel(ctx, units, ti__tr_range, &j);
  }
  return TI_STATUS_SUCCESS;
}

TASKIR_API ti_status ti_transpose(size_t elem_size, int ndim, const int64_t *in_dims,
                                  const int *perm, const void *in, void *out) {
  return ti_transpose_ex(0, elem_size, ndim, in_dims, perm, in, out);
}

/* ---- rearrangements ---- */

/* Values of parameter k: int32 list (exists = the parameter is present). */
static ti_status ti__ra_ints(const ti_rearrange_param *p, int np, int k, const int32_t **v,
                             int64_t *n, const char **why) {
  *v = 0; *n = 0;
  if (k >= np) return TI_STATUS_SUCCESS;
  if (p[k].n_i32 < 0 || (p[k].n_i32 > 0 && !p[k].i32)) {
    *why = "parameter int32 list with a negative count or without data";
    return TI_STATUS_BAD_PARAM;
  }
  *v = p[k].i32; *n = p[k].n_i32;
  return TI_STATUS_SUCCESS;
}

/* The numbers of a matrix parameter: float_data, or int32_data when empty. */
static ti_status ti__ra_nums(const ti_rearrange_param *p, int np, int want, double *m,
                             const char **why) {
  int i;
  if (np < 1) { *why = "the matrix parameter m[0] is missing"; return TI_STATUS_BAD_PARAM; }
  if (p[0].n_f32 < 0 || (p[0].n_f32 > 0 && !p[0].f32) || p[0].n_i32 < 0 ||
      (p[0].n_i32 > 0 && !p[0].i32)) {
    *why = "parameter list with a negative count or without data";
    return TI_STATUS_BAD_PARAM;
  }
  if (p[0].n_f32 > 0) {
    if (p[0].n_f32 != want) {
      *why = want == 6 ? "AFFINE needs 6 numbers [a11 a12 b1 a21 a22 b2]"
                       : "PROJECT needs 9 numbers (3x3, row-major)";
      return TI_STATUS_BAD_PARAM;
    }
    for (i = 0; i < want; ++i) m[i] = (double)p[0].f32[i];
  } else {
    if (p[0].n_i32 != want) {
      *why = want == 6 ? "AFFINE needs 6 numbers [a11 a12 b1 a21 a22 b2]"
                       : "PROJECT needs 9 numbers (3x3, row-major)";
      return TI_STATUS_BAD_PARAM;
    }
    for (i = 0; i < want; ++i) m[i] = (double)p[0].i32[i];
  }
  for (i = 0; i < want; ++i)
    if (!(m[i] - m[i] == 0.0)) { *why = "matrix entry is NaN or infinite"; return TI_STATUS_BAD_PARAM; }
  return TI_STATUS_SUCCESS;
}

/* AFFINE: y = (a22 v - a12 u) / det, x = (a11 u - a21 v) / det with
   v = y' - b1, u = x' - b2. PROJECT: adjugate of H. Both stored as 3x3 rows
   mapping (y', x', 1) to homogeneous source (Y, X, Z) - for AFFINE Z = 1 and
   the offsets folded in the third column. */
typedef struct ti__ra_map {
  int affine;
  double a[6], det;   /* AFFINE: a11 a12 b1 a21 a22 b2 */
  double h[9];        /* PROJECT: adjugate, row-major */
} ti__ra_map;

static ti_status ti__ra_map_init(int kind, const ti_rearrange_param *p, int np, ti__ra_map *mp,
                                 const char **why) {
  ti_status st;
  if (kind == TI_REARRANGE_AFFINE) {
    double *a = mp->a;
    mp->affine = 1;
    if ((st = ti__ra_nums(p, np, 6, a, why)) != TI_STATUS_SUCCESS) return st;
    mp->det = a[0] * a[4] - a[1] * a[3];
    if (mp->det == 0.0 || !(mp->det - mp->det == 0.0)) {
      *why = "AFFINE matrix is singular (a11 a22 - a12 a21 == 0)";
      return TI_STATUS_BAD_PARAM;
    }
  } else {
    double m[9], det;
    double *h = mp->h;
    mp->affine = 0;
    if ((st = ti__ra_nums(p, np, 9, m, why)) != TI_STATUS_SUCCESS) return st;
    h[0] = m[4] * m[8] - m[5] * m[7];
    h[1] = -(m[1] * m[8] - m[2] * m[7]);
    h[2] = m[1] * m[5] - m[2] * m[4];
    h[3] = -(m[3] * m[8] - m[5] * m[6]);
    h[4] = m[0] * m[8] - m[2] * m[6];
    h[5] = -(m[0] * m[5] - m[2] * m[3]);
    h[6] = m[3] * m[7] - m[4] * m[6];
    h[7] = -(m[0] * m[7] - m[1] * m[6]);
    h[8] = m[0] * m[4] - m[1] * m[3];
    det = m[0] * h[0] + m[1] * h[3] + m[2] * h[6];
    if (det == 0.0 || !(det - det == 0.0)) {
      *why = "PROJECT matrix is singular";
      return TI_STATUS_BAD_PARAM;
    }
  }
  return TI_STATUS_SUCCESS;
}

/* Source pixel of output pixel (yo, xo), or 0 when it falls outside. */
static int ti__ra_map_src(const ti__ra_map *mp, int64_t yo, int64_t xo, int64_t H, int64_t W,
                          int64_t *ys, int64_t *xs) {
  double y, x, fy, fx;
  if (mp->affine) {
    const double *a = mp->a;
    const double v = (double)yo - a[2], u = (double)xo - a[5];
    y = (a[4] * v - a[1] * u) / mp->det;
    x = (a[0] * u - a[3] * v) / mp->det;
  } else {
    const double *h = mp->h;
    const double Y = h[0] * (double)yo + h[1] * (double)xo + h[2];
    const double X = h[3] * (double)yo + h[4] * (double)xo + h[5];
    const double Z = h[6] * (double)yo + h[7] * (double)xo + h[8];
    if (Z == 0.0) return 0;
    y = Y / Z;
    x = X / Z;
  }
  /* floor(t) lies in [0, H) exactly when t does, and truncation is floor
     there: no libm needed (NaN fails the test too) */
  fy = y + 0.5;
  fx = x + 0.5;
  if (!(fy >= 0.0 && fy < (double)H && fx >= 0.0 && fx < (double)W)) return 0;
  *ys = (int64_t)fy;
  *xs = (int64_t)fx;
  return 1;
}

TASKIR_API ti_status ti_rearrange_infer_ex(int kind, const ti_rearrange_param *p, int np,
                                           int ndim, const int64_t *in_dims, int *out_ndim,
                                           int64_t *out_dims, const char **reason) {
  const char *why = 0;
  const int32_t *v, *v1;
  int64_t n, n1, vol = 1, d[TI_TENSOR_MAX_DIMS];
  int i, k, on = ndim;
  ti_status st = TI_STATUS_BAD_PARAM;
#define TI__RA_FAIL(msg) do { why = (msg); goto fail; } while (0)
#define TI__RA_TRY(call) do { if ((st = (call)) != TI_STATUS_SUCCESS) goto fail; } while (0)
  if (reason) *reason = 0;
  if (!out_ndim || !out_dims) TI__RA_FAIL("out_ndim and out_dims are required");
  if ((unsigned)kind >= (unsigned)TI_REARRANGE_COUNT) {
    st = TI_STATUS_NOT_SUPPORTED;
    TI__RA_FAIL("unknown rearrangement kind");
  }
  if (np < 0 || (np > 0 && !p)) TI__RA_FAIL("parameter list is NULL or its count negative");
  if (ndim < 1 || ndim > TI_TENSOR_MAX_DIMS) TI__RA_FAIL("ndim must be 1..8");
  if (!in_dims) TI__RA_FAIL("in_dims is NULL");
  for (i = 0; i < ndim; ++i) {
    if (in_dims[i] < 0) TI__RA_FAIL("negative input dim");
    if (!ti__ra_mul(vol, in_dims[i], &vol)) TI__RA_FAIL("input volume too large");
    d[i] = in_dims[i];
  }
  if ((kind == TI_REARRANGE_ROTATE || kind == TI_REARRANGE_SHEAR ||
       kind == TI_REARRANGE_AFFINE || kind == TI_REARRANGE_PROJECT) && ndim < 2)
    TI__RA_FAIL("this rearrangement works on the (y, x) plane: ndim must be >= 2");
  st = TI_STATUS_BAD_PARAM;
  switch (kind) {
  case TI_REARRANGE_IDENTITY:
    break;
  case TI_REARRANGE_RESHAPE: {
    int seen[TI_TENSOR_MAX_DIMS];
    TI__RA_TRY(ti__ra_ints(p, np, 0, &v, &n, &why));
    if (n) {
      if (n != ndim) TI__RA_FAIL("RESHAPE m[0] must list every source axis once");
      for (i = 0; i < ndim; ++i) seen[i] = 0;
      for (i = 0; i < ndim; ++i) {
        if (v[i] < 0 || v[i] >= ndim || seen[v[i]]) TI__RA_FAIL("RESHAPE m[0] is not a permutation of the axes");
        seen[v[i]] = 1;
      }
    }
    TI__RA_TRY(ti__ra_ints(p, np, 1, &v1, &n1, &why));
    if (n1) {
      int64_t ov = 1;
      if (n1 > TI_TENSOR_MAX_DIMS) TI__RA_FAIL("RESHAPE m[1] has more than 8 dims");
      for (i = 0; i < n1; ++i) {
        if (v1[i] < 0) TI__RA_FAIL("RESHAPE m[1] has a negative dim");
        if (!ti__ra_mul(ov, v1[i], &ov)) TI__RA_FAIL("RESHAPE m[1] volume too large");
        d[i] = v1[i];
      }
      if (ov != vol) TI__RA_FAIL("RESHAPE m[1] dims do not have the input's volume");
      on = (int)n1;
    } else {
      on = 1;
      d[0] = vol;
    }
    break;
  }
  case TI_REARRANGE_PERMUTE: {
    int seen[TI_TENSOR_MAX_DIMS];
    TI__RA_TRY(ti__ra_ints(p, np, 0, &v, &n, &why));
    if (n != ndim) TI__RA_FAIL("PERMUTE m[0] must be a permutation of all ndim axes");
    for (i = 0; i < ndim; ++i) seen[i] = 0;
    for (i = 0; i < ndim; ++i) {
      if (v[i] < 0 || v[i] >= ndim || seen[v[i]]) TI__RA_FAIL("PERMUTE m[0] is not a permutation of the axes");
      seen[v[i]] = 1;
      d[i] = in_dims[v[i]];
    }
    break;
  }
  case TI_REARRANGE_ROTATE: {
    int a = 0, b = 1;
    TI__RA_TRY(ti__ra_ints(p, np, 0, &v, &n, &why));
    if (n != 1 && n != 3) TI__RA_FAIL("ROTATE m[0] must be [k] or [k, axis_a, axis_b]");
    if (n == 3) {
      a = v[1]; b = v[2];
      if (a < 0 || a >= ndim || b < 0 || b >= ndim || a == b) TI__RA_FAIL("ROTATE plane axes out of range or equal");
    }
    if (v[0] & 1) { d[a] = in_dims[b]; d[b] = in_dims[a]; }
    break;
  }
  case TI_REARRANGE_SHIFT:
    TI__RA_TRY(ti__ra_ints(p, np, 0, &v, &n, &why));
    if (n > ndim) TI__RA_FAIL("SHIFT m[0] has more offsets than axes");
    TI__RA_TRY(ti__ra_ints(p, np, 1, &v1, &n1, &why));
    if (n1 > 1 || (n1 == 1 && v1[0] != TI_SHIFT_ZERO && v1[0] != TI_SHIFT_CYCLIC))
      TI__RA_FAIL("SHIFT m[1] must be [0] (zero-fill) or [1] (cyclic)");
    break;
  case TI_REARRANGE_SCALE:
    TI__RA_TRY(ti__ra_ints(p, np, 0, &v, &n, &why));
    if (n > ndim) TI__RA_FAIL("SCALE m[0] has more factors than axes");
    for (i = 0; i < n; ++i) {
      if (v[i] < 1) TI__RA_FAIL("SCALE factors must be >= 1 (down-sampling is pooling)");
      if (!ti__ra_mul(d[i], v[i], &d[i])) TI__RA_FAIL("SCALE output too large");
    }
    break;
  case TI_REARRANGE_SHEAR: {
    int64_t ea, eb;
    TI__RA_TRY(ti__ra_ints(p, np, 0, &v, &n, &why));
    if (n != 2) TI__RA_FAIL("SHEAR m[0] must be [a, b]");
    if (v[0] != 0 && v[1] != 0) TI__RA_FAIL("SHEAR: at most one of a, b may be nonzero");
    ea = v[0] < 0 ? -(int64_t)v[0] : v[0];
    eb = v[1] < 0 ? -(int64_t)v[1] : v[1];
    if (in_dims[0] > 0 && in_dims[1] > 0) {
      int64_t t;
      if (!ti__ra_mul(ea, in_dims[1] - 1, &t) || t > TI__RA_LIMIT - 1 - d[0]) TI__RA_FAIL("SHEAR output too large");
      d[0] += t;
      if (!ti__ra_mul(eb, in_dims[0] - 1, &t) || t > TI__RA_LIMIT - 1 - d[1]) TI__RA_FAIL("SHEAR output too large");
      d[1] += t;
    }
    break;
  }
  case TI_REARRANGE_REFLECT: {
    int seen[TI_TENSOR_MAX_DIMS];
    TI__RA_TRY(ti__ra_ints(p, np, 0, &v, &n, &why));
    if (n < 1) TI__RA_FAIL("REFLECT m[0] must list the axes to flip");
    if (n > ndim) TI__RA_FAIL("REFLECT m[0] lists more axes than there are");
    for (i = 0; i < ndim; ++i) seen[i] = 0;
    for (i = 0; i < n; ++i) {
      if (v[i] < 0 || v[i] >= ndim || seen[v[i]]) TI__RA_FAIL("REFLECT axis out of range or repeated");
      seen[v[i]] = 1;
    }
    break;
  }
  case TI_REARRANGE_AFFINE:
  case TI_REARRANGE_PROJECT: {
    ti__ra_map mp;
    TI__RA_TRY(ti__ra_map_init(kind, p, np, &mp, &why));
    TI__RA_TRY(ti__ra_ints(p, np, 1, &v1, &n1, &why));
    if (n1) {
      if (n1 != 2 || v1[0] < 0 || v1[1] < 0) TI__RA_FAIL("m[1] must be the output plane [H', W'], both >= 0");
      d[0] = v1[0];
      d[1] = v1[1];
    }
    break;
  }
  case TI_REARRANGE_SHUFFLE: {
    TI__RA_TRY(ti__ra_ints(p, np, 0, &v, &n, &why));
    TI__RA_TRY(ti__ra_ints(p, np, 1, &v1, &n1, &why));
    if (n1 > 1) TI__RA_FAIL("SHUFFLE m[1] must be [axis]");
    if (n1 == 1) {
      const int c = v1[0];
      if (c < 0 || c >= ndim) TI__RA_FAIL("SHUFFLE axis out of range");
      if (n < 1) TI__RA_FAIL("SHUFFLE m[0] must hold at least one index");
      for (i = 0; i < n; ++i)
        if (v[i] < -1 || v[i] >= in_dims[c]) TI__RA_FAIL("SHUFFLE index outside the axis");
      d[c] = n;
    } else {
      if (n != vol) TI__RA_FAIL("SHUFFLE m[0] must hold one index per element");
      for (i = 0; i < n; ++i)
        if (v[i] < -1 || v[i] >= vol) TI__RA_FAIL("SHUFFLE index outside the data");
    }
    break;
  }
  default:
    break;
  }
  {
    int64_t ov = 1;
    for (k = 0; k < on; ++k)
      if (!ti__ra_mul(ov, d[k], &ov)) TI__RA_FAIL("output volume too large");
  }
  *out_ndim = on;
  for (k = 0; k < TI_TENSOR_MAX_DIMS; ++k) out_dims[k] = k < on ? d[k] : 0;
  return TI_STATUS_SUCCESS;
fail:
  if (reason) *reason = why;
  return st == TI_STATUS_SUCCESS ? TI_STATUS_BAD_PARAM : st;
#undef TI__RA_FAIL
#undef TI__RA_TRY
}

TASKIR_API ti_status ti_rearrange_infer(int kind, const ti_rearrange_param *p, int np, int ndim,
                                        const int64_t *in_dims, int *out_ndim, int64_t *out_dims) {
  return ti_rearrange_infer_ex(kind, p, np, ndim, in_dims, out_ndim, out_dims, 0);
}

/* n elements from s at byte stride ss into contiguous d. */
static void ti__ra_gather(unsigned char *d, const unsigned char *s, int64_t ss, int64_t n,
                          size_t es) {
  int64_t i;
  if (ss == (int64_t)es) { ti__mv_copy(d, s, (size_t)n * es); return; }
#define TI__RA_G(TYPE)                                                           \
  for (i = 0; i < n; ++i, s += ss, d += sizeof(TYPE)) {                          \
    TYPE t; memcpy(&t, s, sizeof t); memcpy(d, &t, sizeof t);                    \
  }
  switch (es) {
  case 1: for (i = 0; i < n; ++i, s += ss) d[i] = *s; break;
  case 2: TI__RA_G(uint16_t) break;
  case 4: TI__RA_G(uint32_t) break;
  default: TI__RA_G(uint64_t) break;
  }
#undef TI__RA_G
}

/* Output of dims od[0..nd-1] where output index i reads the input byte
   base + sum i_a * ss[a] (ss may be negative). */
static void ti__ra_strided(size_t es, int nd, const int64_t *od, const unsigned char *base,
                           const int64_t *ss, unsigned char *out) {
  int64_t idx[TI_TENSOR_MAX_DIMS] = {0}, rows = 1, r;
  const int64_t inner = od[nd - 1];
  const unsigned char *p = base;
  int a;
  for (a = 0; a < nd - 1; ++a) rows *= od[a];
  for (r = 0; r < rows; ++r) {
    ti__ra_gather(out, p, ss[nd - 1], inner, es);
    out += (size_t)inner * es;
    for (a = nd - 2; a >= 0; --a) {
      p += ss[a];
      if (++idx[a] < od[a]) break;
      p -= ss[a] * od[a];
      idx[a] = 0;
    }
  }
}

TASKIR_API ti_status ti_rearrange_apply(int kind, const ti_rearrange_param *p, int np,
                                        size_t es, int ndim, const int64_t *in_dims,
                                        const void *in, int out_ndim, const int64_t *out_dims,
                                        void *out) {
  int64_t od[TI_TENSOR_MAX_DIMS], istr[TI_TENSOR_MAX_DIMS], ss[TI_TENSOR_MAX_DIMS];
  int64_t ivol = 1, ovol = 1, given = 1;
  int on, a;
  const unsigned char *src = (const unsigned char *)in;
  unsigned char *dst = (unsigned char *)out;
  const int32_t *v = 0, *v1 = 0;
  const char *why;
  ti_status st = ti_rearrange_infer_ex(kind, p, np, ndim, in_dims, &on, od, &why);
  if (st != TI_STATUS_SUCCESS) return st;
  if (es != 1 && es != 2 && es != 4 && es != 8) return TI_STATUS_BAD_PARAM;
  if (out_ndim < 1 || out_ndim > TI_TENSOR_MAX_DIMS || !out_dims) return TI_STATUS_BAD_PARAM;
  for (a = 0; a < out_ndim; ++a)
    if (out_dims[a] < 0 || !ti__ra_mul(given, out_dims[a], &given)) return TI_STATUS_BAD_PARAM;
  for (a = 0; a < on; ++a) ovol *= od[a];
  for (a = 0; a < ndim; ++a) ivol *= in_dims[a];
  if (given != ovol) return TI_STATUS_BAD_PARAM;
  {
    int64_t t;
    if (!ti__ra_mul(ivol, (int64_t)es, &t) || (uint64_t)t > (uint64_t)SIZE_MAX ||
        !ti__ra_mul(ovol, (int64_t)es, &t) || (uint64_t)t > (uint64_t)SIZE_MAX)
      return TI_STATUS_BAD_PARAM;
  }
  if (ovol == 0) return TI_STATUS_SUCCESS;
  if (!out || (ivol > 0 && !in)) return TI_STATUS_BAD_PARAM;
  istr[ndim - 1] = (int64_t)es;  /* byte strides of the input */
  for (a = ndim - 2; a >= 0; --a) istr[a] = istr[a + 1] * in_dims[a + 1];
  if (np > 0) { v = p[0].i32; }
  if (np > 1) { v1 = p[1].i32; }
  if (ivol == 0) {  /* an empty input: the whole (non-empty) output is fill */
    memset(dst, 0, (size_t)ovol * es);
    return TI_STATUS_SUCCESS;
  }
  switch (kind) {
  case TI_REARRANGE_IDENTITY:
    memcpy(dst, src, (size_t)ovol * es);
    return TI_STATUS_SUCCESS;
  case TI_REARRANGE_RESHAPE: {
    int perm[TI_TENSOR_MAX_DIMS];
    for (a = 0; a < ndim; ++a)  /* listed fastest first: reversed, it is the perm */
      perm[a] = (np > 0 && p[0].n_i32 > 0) ? v[ndim - 1 - a] : a;
    return ti_transpose(es, ndim, in_dims, perm, in, out);
  }
  case TI_REARRANGE_PERMUTE: {
    int perm[TI_TENSOR_MAX_DIMS];
    for (a = 0; a < ndim; ++a) perm[a] = v[a];
    return ti_transpose(es, ndim, in_dims, perm, in, out);
  }
  case TI_REARRANGE_ROTATE:
  case TI_REARRANGE_REFLECT: {
    const unsigned char *base = src;
    for (a = 0; a < ndim; ++a) ss[a] = istr[a];
    if (kind == TI_REARRANGE_REFLECT) {
      int64_t i;
      for (i = 0; i < p[0].n_i32; ++i) {
        const int ax = v[i];
        base += (in_dims[ax] - 1) * istr[ax];
        ss[ax] = -istr[ax];
      }
    } else {
      const int ax = p[0].n_i32 == 3 ? v[1] : 0, bx = p[0].n_i32 == 3 ? v[2] : 1;
      const int q = (int)(((v[0] % 4) + 4) % 4);
      if (q == 1) {        /* out[i][j] = in[j][W-1-i] */
        ss[ax] = -istr[bx]; base += (in_dims[bx] - 1) * istr[bx];
        ss[bx] = istr[ax];
      } else if (q == 2) { /* out[i][j] = in[H-1-i][W-1-j] */
        ss[ax] = -istr[ax]; base += (in_dims[ax] - 1) * istr[ax];
        ss[bx] = -istr[bx]; base += (in_dims[bx] - 1) * istr[bx];
      } else if (q == 3) { /* out[i][j] = in[H-1-j][i] */
        ss[ax] = istr[bx];
        ss[bx] = -istr[ax]; base += (in_dims[ax] - 1) * istr[ax];
      }
    }
    ti__ra_strided(es, ndim, od, base, ss, dst);
    return TI_STATUS_SUCCESS;
  }
  case TI_REARRANGE_SHIFT:
  case TI_REARRANGE_SCALE: {
    /* row by row over the outer axes, the innermost axis in segments */
    int64_t idx[TI_TENSOR_MAX_DIMS] = {0}, dd[TI_TENSOR_MAX_DIMS], rows = 1, r;
    const int cyc = kind == TI_REARRANGE_SHIFT && np > 1 && p[1].n_i32 == 1 &&
                    v1[0] == TI_SHIFT_CYCLIC;
    const int64_t n = in_dims[ndim - 1], on_ = od[ndim - 1];
    const size_t orow = (size_t)on_ * es;
    for (a = 0; a < ndim; ++a)
      dd[a] = (np > 0 && a < p[0].n_i32) ? v[a] : (kind == TI_REARRANGE_SHIFT ? 0 : 1);
    for (a = 0; a < ndim - 1; ++a) rows *= od[a];
    for (r = 0; r < rows; ++r, dst += orow) {
      const unsigned char *s = src;
      int inside = 1;
      for (a = 0; a < ndim - 1; ++a) {
        int64_t si;
        if (kind == TI_REARRANGE_SCALE) si = idx[a] / dd[a];
        else {
          si = idx[a] - dd[a];
          if (cyc) { si %= in_dims[a]; if (si < 0) si += in_dims[a]; }
          else if (si < 0 || si >= in_dims[a]) { inside = 0; break; }
        }
        s += si * istr[a];
      }
      if (!inside) {
        memset(dst, 0, orow);
      } else if (kind == TI_REARRANGE_SCALE) {
        const int64_t f = dd[ndim - 1];
        if (f == 1) ti__mv_copy(dst, s, orow);
        else {
          int64_t i, k2;
          unsigned char *q = dst;
          for (i = 0; i < n; ++i)
            for (k2 = 0; k2 < f; ++k2, q += es) memcpy(q, s + (size_t)i * es, es);
        }
      } else if (cyc) {
        int64_t d0 = dd[ndim - 1] % n;
        if (d0 < 0) d0 += n;
        /* out[j] = in[j - d0] for j >= d0, in[j - d0 + n] below */
        ti__mv_copy(dst + (size_t)d0 * es, s, (size_t)(n - d0) * es);
        ti__mv_copy(dst, s + (size_t)(n - d0) * es, (size_t)d0 * es);
      } else {
        const int64_t d0 = dd[ndim - 1];
        const int64_t lo = d0 < 0 ? 0 : (d0 < n ? d0 : n);
        const int64_t hi = n + d0 < lo ? lo : (n + d0 < n ? n + d0 : n);
        memset(dst, 0, (size_t)lo * es);
        ti__mv_copy(dst + (size_t)lo * es, s + (size_t)(lo - d0) * es, (size_t)(hi - lo) * es);
        memset(dst + (size_t)hi * es, 0, (size_t)(n - hi) * es);
      }
      for (a = ndim - 2; a >= 0; --a) {
        if (++idx[a] < od[a]) break;
        idx[a] = 0;
      }
    }
    return TI_STATUS_SUCCESS;
  }
  case TI_REARRANGE_SHEAR:
  case TI_REARRANGE_AFFINE:
  case TI_REARRANGE_PROJECT: {
    /* plane (y, x) = axes (0, 1); the rest of the axes is one pixel */
    const int64_t H = in_dims[0], W = in_dims[1], Ho = od[0], Wo = od[1];
    const size_t pix = (size_t)istr[1];
    int64_t y, x, ys = 0, xs = 0;
    ti__ra_map mp;
    int64_t sa = 0, sb = 0, oy = 0, ox = 0;
    if (kind == TI_REARRANGE_SHEAR) {
      sa = v[0]; sb = v[1];
      oy = sa < 0 ? -sa * (W - 1) : 0;
      ox = sb < 0 ? -sb * (H - 1) : 0;
    } else {
      (void)ti__ra_map_init(kind, p, np, &mp, &why);  /* validated by infer */
    }
    for (y = 0; y < Ho; ++y)
      for (x = 0; x < Wo; ++x, dst += pix) {
        int ok;
        if (kind == TI_REARRANGE_SHEAR) {
          /* a: y' = y + a x + oy, x' = x; b: x' = x + b y + ox, y' = y */
          xs = x - sb * y - ox;
          ys = y - sa * x - oy;
          if (sa) xs = x; else ys = y;
          ok = ys >= 0 && ys < H && xs >= 0 && xs < W;
        } else {
          ok = ti__ra_map_src(&mp, y, x, H, W, &ys, &xs);
        }
        if (ok) ti__mv_copy(dst, src + (size_t)(ys * istr[0] + xs * istr[1]), pix);
        else memset(dst, 0, pix);
      }
    return TI_STATUS_SUCCESS;
  }
  case TI_REARRANGE_SHUFFLE: {
    const int64_t n = p[0].n_i32;
    if (np > 1 && p[1].n_i32 == 1) {
      const int c = v1[0];
      int64_t outer = 1, o, j;
      const size_t inner = (size_t)istr[c];
      for (a = 0; a < c; ++a) outer *= in_dims[a];
      for (o = 0; o < outer; ++o)
        for (j = 0; j < n; ++j, dst += inner) {
          if (v[j] < 0) memset(dst, 0, inner);
          else ti__mv_copy(dst, src + (size_t)(o * in_dims[c] + v[j]) * inner, inner);
        }
    } else {
      int64_t j;
      for (j = 0; j < n; ++j, dst += es) {
        if (v[j] < 0) memset(dst, 0, es);
        else memcpy(dst, src + (size_t)v[j] * es, es);
      }
    }
    return TI_STATUS_SUCCESS;
  }
  default:
    return TI_STATUS_NOT_SUPPORTED;
  }
}

#undef TI__RA_LIMIT
#undef TI__MV_PREFETCH
#undef TI__WR_CAP
#undef TI__TS_STAGE
#undef TI__TR_BLOCK
#undef TI__TR_HAS_BLOCK
#ifdef TI__TR_AVX2
#undef TI__TR_AVX2
#endif

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
