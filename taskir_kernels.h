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

/* Element-wise and window primitives of Task IR (SPEC §2 block table).

   Layout: activations [y][x][f] row-major (ny, nx, nf of the desc); the 1-D
   forms are [f] with ny = nx = 1. Windowed blocks (CAVG, CCMPB, CCMPS) read
   [niy][nix][nf] and write [ny][nx][nf], where ny must equal
   (niy + pad_up + pad_down - nky) / stride_y + 1 (floor; same for x).

   Types: in_dtype I8, U8, TERNARY (int8 holding -1/0/1, read as int8) or I32
   gives int32_t results, every sum and product wrapping modulo 2^32 (exact
   two's complement, no saturation; requantisation is CCMPB/CCMPS). in_dtype
   F32 gives float results (CADD, CAVG, CVVH, CAX, CVS, CCMPB, CCMPS). Bias
   (TI_BIAS_VECTOR) is int32_t[nf], or float[nf] for F32; TI_BIAS_CONSTANT
   adds constant_b (converted to float for F32). out_dtype is the block
   precision: any integer dtype for integer inputs (it only selects CCMPB's
   clip bound, storage does not saturate), F32 for F32 inputs.

   Float results are deterministic: sums start from the first operand
   (CADD: in_0 + in_1 + ...; CAVG: 0.0f + window elements in ky-major,
   kx-minor order, padding skipped), the bias is added last, a product and
   its bias are never fused; max/min keep the running value unless the new
   element compares strictly greater/less (NaN elements are skipped).

   out never overlaps an input (CLIF: v_state is read and written in place;
   spikes overlaps nothing). No function allocates; stack use is <= 8 KiB.

   ti_X() runs the fastest path allowed by ctx->cpu (NULL ctx: detected cpu);
   ti_X_ref() is the plain C reference. Both give bit-identical results.
   Status: BAD_PARAM for NULL pointers, dims < 1, sizes whose byte count
   overflows size_t, a window inconsistent with niy/nix/pads/stride,
   negative pads/strides, bit_shift outside 0..31, lut_dw outside 1..16, bad
   enum values; NOT_SUPPORTED for other dtypes or combinations, dilation
   other than 0/1 on windowed blocks, a nonzero bit_shift with F32. */

/* CADD: out = in_0 + ... + in_{n_branch-1} + bias. All n_branch >= 1 inputs
   share in_dtype. nky/nkx/niy/nix are ignored. */
TASKIR_API ti_status ti_cadd(const ti_kernel_ctx *ctx, const ti_prim_desc *d,
                             const void *const *inputs, const void *bias, void *out);
TASKIR_API ti_status ti_cadd_ref(const ti_prim_desc *d, const void *const *inputs,
                                 const void *bias, void *out);

/* CAVG: out[y][x][f] = SUM (not mean) over the nky x nkx window at
   (y*stride_y - pad_up, x*stride_x - pad_left) of the zero-padded input,
   + bias. Exact integer sum (wraps modulo 2^32). */
TASKIR_API ti_status ti_cavg(const ti_kernel_ctx *ctx, const ti_prim_desc *d,
                             const void *in, const void *bias, void *out);
TASKIR_API ti_status ti_cavg_ref(const ti_prim_desc *d, const void *in,
                                 const void *bias, void *out);

/* CVVH: out = a * b + bias; a has in_dtype, b has w_dtype (integer with
   integer, F32 with F32). */
TASKIR_API ti_status ti_cvvh(const ti_kernel_ctx *ctx, const ti_prim_desc *d,
                             const void *a, const void *b, const void *bias, void *out);
TASKIR_API ti_status ti_cvvh_ref(const ti_prim_desc *d, const void *a, const void *b,
                                 const void *bias, void *out);

/* CAX: out[y][x][f] = in[y][x][f] * alpha[f] + bias; alpha has w_dtype. */
TASKIR_API ti_status ti_cax(const ti_kernel_ctx *ctx, const ti_prim_desc *d,
                            const void *in, const void *alpha, const void *bias, void *out);
TASKIR_API ti_status ti_cax_ref(const ti_prim_desc *d, const void *in, const void *alpha,
                                const void *bias, void *out);

/* CVS: out = in * constant_a + bias (constant_a converted to float for F32). */
TASKIR_API ti_status ti_cvs(const ti_kernel_ctx *ctx, const ti_prim_desc *d,
                            const void *in, const void *bias, void *out);
TASKIR_API ti_status ti_cvs_ref(const ti_prim_desc *d, const void *in,
                                const void *bias, void *out);

/* CCMPB, integer: m = max over the window of the zero-padded input (a
   padded position counts as 0), r = m >> bit_shift (arithmetic: rounds
   towards minus infinity), out = min(max(r, cmp), hi) with hi = 127 for a
   1x1 window (the 1x1 / 1-D requantisation form, whatever the precision),
   else by out_dtype: I8 127, U8 255, TERNARY 1, I9 255, I16 32767,
   U16 65535, I32 2^31-1 (others NOT_SUPPORTED).
   F32: out = max(cmp, window elements) as the seed-000 loop (bit_shift 0). */
TASKIR_API ti_status ti_ccmpb(const ti_kernel_ctx *ctx, const ti_prim_desc *d,
                              const void *in, void *out);
TASKIR_API ti_status ti_ccmpb_ref(const ti_prim_desc *d, const void *in, void *out);

/* CCMPS, integer: m = cmp, then m = min(m, e) for each window element e
   (padding counts as 0) as the seed-000 loop, r = m >> bit_shift
   (arithmetic), out = clip(r, -128, 127). F32: out = min(cmp, window
   elements), no shift and no clip. */
TASKIR_API ti_status ti_ccmps(const ti_kernel_ctx *ctx, const ti_prim_desc *d,
                              const void *in, void *out);
TASKIR_API ti_status ti_ccmps_ref(const ti_prim_desc *d, const void *in, void *out);

/* CLUT: out = lut[v & (2^lut_dw - 1)]: the input value v (integer in_dtype)
   read as an unsigned lut_dw-bit index, so a negative v indexes
   v + 2^lut_dw. lut holds 2^lut_dw int32 entries; lut_dw is 1..16. */
TASKIR_API ti_status ti_clut(const ti_kernel_ctx *ctx, const ti_prim_desc *d,
                             const void *in, const int32_t *lut, int32_t *out);
TASKIR_API ti_status ti_clut_ref(const ti_prim_desc *d, const void *in,
                                 const int32_t *lut, int32_t *out);

/* CLIF: one time step of leaky integrate-and-fire neurons, element-wise over
   [y][x][f] (ny*nx*nf neurons); in has an integer in_dtype, the membrane
   potential v_state is int32 and updated in place (initialise it to VINIT).
   Per neuron, with clamp28(t) = clip(t, -2^27, 2^27 - 1) and exact
   (non-wrapping) arithmetic:
     v     = clamp28(v_prev + in)
     vth   = max(clamp28(VTH0 + theta), VL)    theta = VTHETA_CONST_EN ? VTHETA_CONST : 0
     spike = v > vth
     u     = spike ? reset(v) : v              RESET_MODE 0: VR, 1: v - vth,
                                               2: v - DV, 3: v (no reset)
     n     = TW_EN && TW_CNT >= TW_LEN ? VINIT          (time window over)
           : VLEAKY_ADPT_EN ? floor(VLEAKY_ALPHA * u / 256) + VLEAKY_BETA
           : u + VLEAKY_BETA
     v_state = max(clamp28(n), VL)
     out   = FIRE_TYPE 4 or 5: spike (0/1); 0: v; 1: the new v_state
   With ti_lif_params_init's defaults (VL = -2^27, VTHETA_CONST_EN = 0,
   RESET_MODE 0, FIRE_TYPE 4, TW_EN 0) this is exactly SPEC §2:
   v = clamp28(v_prev + in); spike = v > VTH0; fired -> VR; leak; clamp28.
   (The one difference from a literal "v > VTH0": a VTH0 below -2^27 acts
   as -2^27, as the 28-bit hardware register does.)
   Not modelled, NOT_SUPPORTED when they would matter: refractoriness
   (REF_LEN != 0), adaptive threshold (VTH_ADPT_EN, VTH_BETA or VTH_INCRE
   nonzero; VTH_ALPHA is then unused), random threshold noise (VM_CONST_EN
   with VM_CONST != 0; without VM_CONST_EN the block has no noise memory, so
   no noise; SEED is unused), FIRE_TYPE 2, 3 (shifted potential), 6, 7
   (noise). BAD_PARAM: VTH0, VR, VL, DV, VINIT, VLEAKY_BETA, VTHETA_CONST
   outside signed 28 bits (the register width), RESET_MODE outside 0..3,
   FIRE_TYPE outside 0..7. VLEAKY_ALPHA may be any int32. TW_CNT is an
   input: advance it between steps with ti_lif_params_next_step. */
typedef struct ti_lif_params {
  int32_t vth0, vth_alpha, vth_beta, vth_incre;
  int32_t vr, vl;
  int32_t vleaky_alpha, vleaky_beta;
  int32_t dv, ref_len, tw_cnt, vinit, tw_len, seed;
  int32_t vth_adpt_en, vleaky_adpt_en, tw_en, reset_mode, fire_type;
  int32_t vm_const_en, vm_const, vtheta_const_en, vtheta_const;
} ti_lif_params;

#define TI_LIF_V_MIN (-134217728)  /* -2^27: lowest 28-bit potential */
#define TI_LIF_V_MAX 134217727     /* 2^27 - 1 */

/* Defaults: every field 0 except vl = TI_LIF_V_MIN (no lower bound),
   vleaky_alpha = 256 (unit leak factor) and fire_type = 4 (spikes). An
   executor starts from these and overwrites the attributes a block sets. */
TASKIR_API void ti_lif_params_init(ti_lif_params *p);
/* The hardware's time-window counter after a step: with tw_en, tw_cnt
   becomes 0 when it equals tw_len, else tw_cnt + 1; without tw_en unchanged. */
TASKIR_API void ti_lif_params_next_step(ti_lif_params *p);

TASKIR_API ti_status ti_clif(const ti_kernel_ctx *ctx, const ti_prim_desc *d,
                             const ti_lif_params *p, const void *in,
                             int32_t *v_state, int32_t *spikes);
TASKIR_API ti_status ti_clif_ref(const ti_prim_desc *d, const ti_lif_params *p,
                                 const void *in, int32_t *v_state, int32_t *spikes);

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

/* Scalar helpers shared by the references and the SIMD tails. Integer
   arithmetic goes through uint32_t so wrapping is defined; conversions back
   and arithmetic shifts are spelled portably (compilers emit plain ops). */
TI__PRIVATE int32_t ti__e_u2i(uint32_t x) {
  return x <= 0x7fffffffu ? (int32_t)x : (int32_t)(x - 0x80000000u) - 0x7fffffff - 1;
}
TI__PRIVATE int32_t ti__e_add(int32_t a, int32_t b) { return ti__e_u2i((uint32_t)a + (uint32_t)b); }
TI__PRIVATE int32_t ti__e_mul(int32_t a, int32_t b) { return ti__e_u2i((uint32_t)a * (uint32_t)b); }
TI__PRIVATE int32_t ti__e_sra(int32_t x, int s) { return x >= 0 ? x >> s : -1 - ((-1 - x) >> s); }
TI__PRIVATE int64_t ti__e_sra64(int64_t x, int s) { return x >= 0 ? x >> s : -1 - ((-1 - x) >> s); }
TI__PRIVATE int32_t ti__e_max(int32_t a, int32_t b) { return a > b ? a : b; }
TI__PRIVATE int32_t ti__e_min(int32_t a, int32_t b) { return a < b ? a : b; }
/* Float max/min: keep acc unless x is strictly greater/less (the operand
   order of x86 maxps/minps with x first; NaN x is skipped). */
TI__PRIVATE float ti__e_fmax(float x, float acc) { return x > acc ? x : acc; }
TI__PRIVATE float ti__e_fmin(float x, float acc) { return x < acc ? x : acc; }
TI__PRIVATE int64_t ti__e_clamp28(int64_t v) {
  return v < TI_LIF_V_MIN ? TI_LIF_V_MIN : v > TI_LIF_V_MAX ? TI_LIF_V_MAX : v;
}

/* Element i of an integer activation array, widened to int32. */
TI__PRIVATE int32_t ti__e_ld(const void *p, ti_dtype t, int64_t i) {
  switch (t) {
  case TI_DTYPE_I8: case TI_DTYPE_TERNARY: return ((const int8_t *)p)[i];
  case TI_DTYPE_U8: return ((const uint8_t *)p)[i];
  default: return ((const int32_t *)p)[i];
  }
}

/* 1 integer input dtype, 2 F32, 0 other. */
TI__PRIVATE int ti__e_kind(ti_dtype t) {
  switch (t) {
  case TI_DTYPE_I8: case TI_DTYPE_U8: case TI_DTYPE_TERNARY: case TI_DTYPE_I32: return 1;
  case TI_DTYPE_F32: return 2;
  default: return 0;
  }
}
TI__PRIVATE int ti__e_int_out(ti_dtype t) {
  switch (t) {
  case TI_DTYPE_I8: case TI_DTYPE_U8: case TI_DTYPE_I16: case TI_DTYPE_U16: case TI_DTYPE_I32:
  case TI_DTYPE_U32: case TI_DTYPE_TERNARY: case TI_DTYPE_I9: case TI_DTYPE_I28: return 1;
  default: return 0;
  }
}

/* Element count of an n0 x n1 x n2 array, or -1 when a dim is < 1 or the
   byte size (at 4 bytes an element) does not fit size_t. */
TI__PRIVATE int64_t ti__e_count(int32_t n0, int32_t n1, int32_t n2) {
  int64_t c;
  if (n0 < 1 || n1 < 1 || n2 < 1) return -1;
  c = (int64_t)n0 * n1;
  if (c > INT64_MAX / 4 / n2) return -1;
  c *= n2;
  if ((uint64_t)c > (uint64_t)(SIZE_MAX / 4)) return -1;
  return c;
}

/* Common checks: desc and dims, dtypes (kind of in_dtype returned in
   *kind), out_dtype, bias. */
TI__PRIVATE ti_status ti__e_check(const ti_prim_desc *d, const void *out, const void *bias,
                             int uses_bias, int64_t *total, int *kind) {
  if (!d || !out) return TI_STATUS_BAD_PARAM;
  if ((*total = ti__e_count(d->ny, d->nx, d->nf)) < 0) return TI_STATUS_BAD_PARAM;
  *kind = ti__e_kind(d->in_dtype);
  if (!*kind) return TI_STATUS_NOT_SUPPORTED;
  if (*kind == 2 ? d->out_dtype != TI_DTYPE_F32 : !ti__e_int_out(d->out_dtype))
    return TI_STATUS_NOT_SUPPORTED;
  if (uses_bias) {
    if ((unsigned)d->bias_mode > (unsigned)TI_BIAS_CONSTANT) return TI_STATUS_BAD_PARAM;
    if (d->bias_mode == TI_BIAS_VECTOR && !bias) return TI_STATUS_BAD_PARAM;
  }
  return TI_STATUS_SUCCESS;
}

/* Window geometry of CAVG/CCMPB/CCMPS, checked against the output dims. */
typedef struct ti__e_win {
  int64_t niy, nix, nky, nkx, sy, sx, pu, pl;
} ti__e_win;

TI__PRIVATE ti_status ti__e_check_win(const ti_prim_desc *d, ti__e_win *w) {
  int64_t hy, hx;
  if (d->dilation_y < 0 || d->dilation_y > 1 || d->dilation_x < 0 || d->dilation_x > 1)
    return TI_STATUS_NOT_SUPPORTED;
  if (d->stride_y < 0 || d->stride_x < 0 || d->pad_up < 0 || d->pad_down < 0 ||
      d->pad_left < 0 || d->pad_right < 0 || d->nky < 1 || d->nkx < 1)
    return TI_STATUS_BAD_PARAM;
  if (ti__e_count(d->niy, d->nix, d->nf) < 0) return TI_STATUS_BAD_PARAM;
  w->niy = d->niy; w->nix = d->nix; w->nky = d->nky; w->nkx = d->nkx;
  w->sy = d->stride_y ? d->stride_y : 1; w->sx = d->stride_x ? d->stride_x : 1;
  w->pu = d->pad_up; w->pl = d->pad_left;
  hy = w->niy + w->pu + d->pad_down; hx = w->nix + w->pl + d->pad_right;
  if (hy < w->nky || hx < w->nkx) return TI_STATUS_BAD_PARAM;
  if ((hy - w->nky) / w->sy + 1 != d->ny || (hx - w->nkx) / w->sx + 1 != d->nx)
    return TI_STATUS_BAD_PARAM;
  return TI_STATUS_SUCCESS;
}

/* CCMPB's upper clip bound; 0 when out_dtype has none we honour. */
TI__PRIVATE int32_t ti__e_ccmpb_hi(const ti_prim_desc *d) {
  if (d->nky == 1 && d->nkx == 1) return 127;
  switch (d->out_dtype) {
  case TI_DTYPE_I8: return 127;
  case TI_DTYPE_U8: case TI_DTYPE_I9: return 255;
  case TI_DTYPE_TERNARY: return 1;
  case TI_DTYPE_I16: return 32767;
  case TI_DTYPE_U16: return 65535;
  case TI_DTYPE_I32: return 0x7fffffff;
  default: return 0;
  }
}

enum { TI__E_SUM = 0, TI__E_MAX, TI__E_MIN };

/* Checks of the three windowed primitives; *hi is the CCMP upper bound. */
TI__PRIVATE ti_status ti__e_check_window_prim(const ti_prim_desc *d, int op, const void *in,
                                         const void *bias, const void *out,
                                         ti__e_win *w, int *kind, int32_t *hi) {
  int64_t total;
  ti_status st = ti__e_check(d, out, bias, op == TI__E_SUM, &total, kind);
  if (st) return st;
  if (!in) return TI_STATUS_BAD_PARAM;
  if ((st = ti__e_check_win(d, w))) return st;
  *hi = 127;
  if (op != TI__E_SUM) {
    if (*kind == 2) return d->bit_shift ? TI_STATUS_NOT_SUPPORTED : TI_STATUS_SUCCESS;
    if (d->bit_shift < 0 || d->bit_shift > 31) return TI_STATUS_BAD_PARAM;
    if (op == TI__E_MAX && !(*hi = ti__e_ccmpb_hi(d))) return TI_STATUS_NOT_SUPPORTED;
  }
  return TI_STATUS_SUCCESS;
}

/* ---- reference kernels ---- */

TI__PRIVATE int32_t ti__e_bias_i(const ti_prim_desc *d, const void *bias, int64_t f) {
  return d->bias_mode == TI_BIAS_VECTOR ? ((const int32_t *)bias)[f]
         : d->bias_mode == TI_BIAS_CONSTANT ? d->constant_b : 0;
}
TI__PRIVATE float ti__e_bias_f(const ti_prim_desc *d, const void *bias, int64_t f) {
  return d->bias_mode == TI_BIAS_VECTOR ? ((const float *)bias)[f] : (float)d->constant_b;
}

TASKIR_API ti_status ti_cadd_ref(const ti_prim_desc *d, const void *const *inputs,
                                 const void *bias, void *out) {
  int64_t total, i, nf; int kind, b;
  ti_status st = ti__e_check(d, out, bias, 1, &total, &kind);
  if (st) return st;
  if (!inputs || d->n_branch < 1) return TI_STATUS_BAD_PARAM;
  for (b = 0; b < d->n_branch; b++) if (!inputs[b]) return TI_STATUS_BAD_PARAM;
  nf = d->nf;
  for (i = 0; i < total; i++) {
    if (kind == 1) {
      int32_t acc = ti__e_ld(inputs[0], d->in_dtype, i);
      for (b = 1; b < d->n_branch; b++) acc = ti__e_add(acc, ti__e_ld(inputs[b], d->in_dtype, i));
      if (d->bias_mode != TI_BIAS_NONE) acc = ti__e_add(acc, ti__e_bias_i(d, bias, i % nf));
      ((int32_t *)out)[i] = acc;
    } else {
      float acc = ((const float *)inputs[0])[i];
      for (b = 1; b < d->n_branch; b++) acc = acc + ((const float *)inputs[b])[i];
      if (d->bias_mode != TI_BIAS_NONE) acc = acc + ti__e_bias_f(d, bias, i % nf);
      ((float *)out)[i] = acc;
    }
  }
  return TI_STATUS_SUCCESS;
}

/* CVVH (alpha_per_f = 0, b = second operand), CAX (alpha_per_f = 1, b =
   alpha[f]) and CVS (b = NULL: constant_a). */
TI__PRIVATE ti_status ti__e_mul_ref(const ti_prim_desc *d, int which, const void *a, const void *b,
                               const void *bias, void *out) {
  int64_t total, i, nf; int kind;
  ti_status st = ti__e_check(d, out, bias, 1, &total, &kind);
  if (st) return st;
  if (!a || (which != 2 && !b)) return TI_STATUS_BAD_PARAM;
  if (which != 2 && ti__e_kind(d->w_dtype) != kind) return TI_STATUS_NOT_SUPPORTED;
  nf = d->nf;
  for (i = 0; i < total; i++) {
    int64_t j = which == 1 ? i % nf : i;
    if (kind == 1) {
      int32_t x = ti__e_ld(a, d->in_dtype, i);
      int32_t y = which == 2 ? d->constant_a : ti__e_ld(b, d->w_dtype, j);
      int32_t r = ti__e_mul(x, y);
      if (d->bias_mode != TI_BIAS_NONE) r = ti__e_add(r, ti__e_bias_i(d, bias, i % nf));
      ((int32_t *)out)[i] = r;
    } else {
      float x = ((const float *)a)[i];
      float y = which == 2 ? (float)d->constant_a : ((const float *)b)[j];
      float r = x * y;
      if (d->bias_mode != TI_BIAS_NONE) r = r + ti__e_bias_f(d, bias, i % nf);
      ((float *)out)[i] = r;
    }
  }
  return TI_STATUS_SUCCESS;
}

TASKIR_API ti_status ti_cvvh_ref(const ti_prim_desc *d, const void *a, const void *b,
                                 const void *bias, void *out) {
  return ti__e_mul_ref(d, 0, a, b, bias, out);
}
TASKIR_API ti_status ti_cax_ref(const ti_prim_desc *d, const void *in, const void *alpha,
                                const void *bias, void *out) {
  return ti__e_mul_ref(d, 1, in, alpha, bias, out);
}
TASKIR_API ti_status ti_cvs_ref(const ti_prim_desc *d, const void *in,
                                const void *bias, void *out) {
  return ti__e_mul_ref(d, 2, in, 0, bias, out);
}

TI__PRIVATE ti_status ti__e_window_ref(const ti_prim_desc *d, int op, const void *in,
                                  const void *bias, void *out) {
  ti__e_win w; int kind; int32_t hi;
  int64_t oy, ox, f, ky, kx, nf = d->nf;
  ti_status st = ti__e_check_window_prim(d, op, in, bias, out, &w, &kind, &hi);
  if (st) return st;
  for (oy = 0; oy < d->ny; oy++)
    for (ox = 0; ox < d->nx; ox++)
      for (f = 0; f < nf; f++) {
        int64_t o = (oy * d->nx + ox) * nf + f;
        int32_t acc = op == TI__E_SUM ? 0 : op == TI__E_MAX ? INT32_MIN : d->cmp;
        float facc = op == TI__E_SUM ? 0.0f : (float)d->cmp;
        for (ky = 0; ky < w.nky; ky++)
          for (kx = 0; kx < w.nkx; kx++) {
            int64_t iy = oy * w.sy + ky - w.pu, ix = ox * w.sx + kx - w.pl;
            int valid = iy >= 0 && iy < w.niy && ix >= 0 && ix < w.nix;
            int64_t at = (iy * w.nix + ix) * nf + f;
            if (kind == 1) {
              int32_t x = valid ? ti__e_ld(in, d->in_dtype, at) : 0;
              if (op == TI__E_SUM) acc = ti__e_add(acc, x);
              else acc = op == TI__E_MAX ? ti__e_max(acc, x) : ti__e_min(acc, x);
            } else {
              float x = valid ? ((const float *)in)[at] : 0.0f;
              if (op == TI__E_SUM) { if (valid) facc = facc + x; }
              else facc = op == TI__E_MAX ? ti__e_fmax(x, facc) : ti__e_fmin(x, facc);
            }
          }
        if (kind == 1) {
          if (op == TI__E_SUM) {
            if (d->bias_mode != TI_BIAS_NONE) acc = ti__e_add(acc, ti__e_bias_i(d, bias, f));
          } else {
            acc = ti__e_sra(acc, d->bit_shift);
            acc = op == TI__E_MAX ? ti__e_min(ti__e_max(acc, d->cmp), hi)
                                  : ti__e_min(ti__e_max(acc, -128), 127);
          }
          ((int32_t *)out)[o] = acc;
        } else {
          if (op == TI__E_SUM && d->bias_mode != TI_BIAS_NONE) facc = facc + ti__e_bias_f(d, bias, f);
          ((float *)out)[o] = facc;
        }
      }
  return TI_STATUS_SUCCESS;
}

TASKIR_API ti_status ti_cavg_ref(const ti_prim_desc *d, const void *in, const void *bias, void *out) {
  return ti__e_window_ref(d, TI__E_SUM, in, bias, out);
}
TASKIR_API ti_status ti_ccmpb_ref(const ti_prim_desc *d, const void *in, void *out) {
  return ti__e_window_ref(d, TI__E_MAX, in, 0, out);
}
TASKIR_API ti_status ti_ccmps_ref(const ti_prim_desc *d, const void *in, void *out) {
  return ti__e_window_ref(d, TI__E_MIN, in, 0, out);
}

TI__PRIVATE ti_status ti__e_check_clut(const ti_prim_desc *d, const void *in, const int32_t *lut,
                                  const int32_t *out, int64_t *total) {
  int kind;
  ti_status st = ti__e_check(d, out, 0, 0, total, &kind);
  if (st) return st;
  if (!in || !lut || d->lut_dw < 1 || d->lut_dw > 16) return TI_STATUS_BAD_PARAM;
  return kind == 1 ? TI_STATUS_SUCCESS : TI_STATUS_NOT_SUPPORTED;
}

TASKIR_API ti_status ti_clut_ref(const ti_prim_desc *d, const void *in,
                                 const int32_t *lut, int32_t *out) {
  int64_t total, i; uint32_t mask;
  ti_status st = ti__e_check_clut(d, in, lut, out, &total);
  if (st) return st;
  mask = (1u << d->lut_dw) - 1u;
  for (i = 0; i < total; i++) out[i] = lut[(uint32_t)ti__e_ld(in, d->in_dtype, i) & mask];
  return TI_STATUS_SUCCESS;
}

TASKIR_API void ti_lif_params_init(ti_lif_params *p) {
  if (!p) return;
  p->vth0 = p->vth_alpha = p->vth_beta = p->vth_incre = p->vr = 0;
  p->vleaky_beta = p->dv = p->ref_len = p->tw_cnt = p->vinit = p->tw_len = p->seed = 0;
  p->vth_adpt_en = p->vleaky_adpt_en = p->tw_en = p->reset_mode = 0;
  p->vm_const_en = p->vm_const = p->vtheta_const_en = p->vtheta_const = 0;
  p->vl = TI_LIF_V_MIN;
  p->vleaky_alpha = 256;
  p->fire_type = 4;
}

TASKIR_API void ti_lif_params_next_step(ti_lif_params *p) {
  if (!p || !p->tw_en) return;
  p->tw_cnt = p->tw_cnt == p->tw_len ? 0 : p->tw_cnt + 1;
}

TI__PRIVATE int ti__e_in28(int32_t v) { return v >= TI_LIF_V_MIN && v <= TI_LIF_V_MAX; }

/* Precomputed per-call constants of the LIF step, in the branch-free form
   the vector code uses: reset(v) = (v & ka) + kb; leak = alpha * u / 256
   with alpha = 256 when the leak is not adaptive; the time-window reset
   keeps (v & keep) + vinit; out = (v & f0) + (vnew & f1) + (spike & f4). */
typedef struct ti__e_lif_k {
  int32_t vth, ka, kb, alpha, beta, keep, vinit, vl, f0, f1, f4;
} ti__e_lif_k;

TI__PRIVATE ti_status ti__e_lif_prep(const ti_prim_desc *d, const ti_lif_params *p,
                                const void *in, const int32_t *v, const int32_t *spikes,
                                int64_t *total, ti__e_lif_k *k) {
  int kind; int64_t vth;
  ti_status st;
  if (!p || !in || !v) return TI_STATUS_BAD_PARAM;
  if ((st = ti__e_check(d, spikes, 0, 0, total, &kind))) return st;
  if (kind != 1) return TI_STATUS_NOT_SUPPORTED;
  if (!ti__e_in28(p->vth0) || !ti__e_in28(p->vr) || !ti__e_in28(p->vl) || !ti__e_in28(p->dv) ||
      !ti__e_in28(p->vinit) || !ti__e_in28(p->vleaky_beta) || !ti__e_in28(p->vtheta_const) ||
      p->reset_mode < 0 || p->reset_mode > 3 || p->fire_type < 0 || p->fire_type > 7)
    return TI_STATUS_BAD_PARAM;
  if (p->ref_len || p->vth_adpt_en || p->vth_beta || p->vth_incre ||
      (p->vm_const_en && p->vm_const) || (p->fire_type > 1 && p->fire_type < 4) || p->fire_type > 5)
    return TI_STATUS_NOT_SUPPORTED;
  vth = ti__e_clamp28((int64_t)p->vth0 + (p->vtheta_const_en ? p->vtheta_const : 0));
  k->vth = (int32_t)(vth < p->vl ? p->vl : vth);
  k->ka = p->reset_mode == 0 ? 0 : -1;
  k->kb = p->reset_mode == 0 ? p->vr : p->reset_mode == 1 ? -k->vth : p->reset_mode == 2 ? -p->dv : 0;
  k->alpha = p->vleaky_adpt_en ? p->vleaky_alpha : 256;
  k->beta = p->vleaky_beta;
  k->keep = p->tw_en && p->tw_cnt >= p->tw_len ? 0 : -1;
  k->vinit = k->keep ? 0 : p->vinit;
  k->vl = p->vl;
  k->f0 = p->fire_type == 0 ? -1 : 0;
  k->f1 = p->fire_type == 1 ? -1 : 0;
  k->f4 = p->fire_type >= 4 ? -1 : 0;
  return TI_STATUS_SUCCESS;
}

TASKIR_API ti_status ti_clif_ref(const ti_prim_desc *d, const ti_lif_params *p,
                                 const void *in, int32_t *v_state, int32_t *spikes) {
  int64_t total, i; ti__e_lif_k k;
  ti_status st = ti__e_lif_prep(d, p, in, v_state, spikes, &total, &k);
  int tw_over;
  int64_t vth;
  if (st) return st;
  /* Straight from the documented formula, in int64 (k is not used here,
     so the vector path's branch-free form is checked against this). */
  tw_over = p->tw_en && p->tw_cnt >= p->tw_len;
  vth = ti__e_clamp28((int64_t)p->vth0 + (p->vtheta_const_en ? p->vtheta_const : 0));
  if (vth < p->vl) vth = p->vl;
  for (i = 0; i < total; i++) {
    int64_t v = ti__e_clamp28((int64_t)v_state[i] + ti__e_ld(in, d->in_dtype, i));
    int spike = v > vth;
    int64_t u = v, n;
    if (spike) {
      switch (p->reset_mode) {
      case 0: u = p->vr; break;
      case 1: u = v - vth; break;
      case 2: u = v - p->dv; break;
      default: break;
      }
    }
    if (tw_over) n = p->vinit;
    else if (p->vleaky_adpt_en) n = ti__e_sra64(u * p->vleaky_alpha, 8) + p->vleaky_beta;
    else n = u + p->vleaky_beta;
    n = ti__e_clamp28(n);
    if (n < p->vl) n = p->vl;
    v_state[i] = (int32_t)n;
    spikes[i] = p->fire_type == 0 ? (int32_t)v : p->fire_type == 1 ? (int32_t)n : spike;
  }
  return TI_STATUS_SUCCESS;
}

/* ---- vector paths ----
   Every primitive reduces to a few leaf loops on int32 (or float) arrays
   (add, multiply, max/min, shift-and-clip, table look-up, LIF step, int8 ->
   int32 widening). TI__E_GEN writes the leaves once over a small set of
   per-ISA vector wrappers (ti__e<P>_*: s = SSE2, a = AVX2, z = AVX-512,
   n = NEON); their scalar tails use the reference's helpers, so a path
   differs from the reference only in speed. The drivers below walk the
   tensors in tiles of TI__E_TILE elements and call the leaves through a
   table chosen from ctx->cpu. */
#if defined(TI__X86) || defined(TI__NEON)
#define TI__E_SIMD 1
#include <string.h>

/* Scalar LIF step in the branch-free form of the vector loop (k built by
   ti__e_lif_prep; |k->alpha| <= 1024 keeps every term inside int32). */
TI__PRIVATE void ti__e_lif_one(int32_t *v, int32_t in, int32_t *out, const ti__e_lif_k *k) {
  int32_t t = (int32_t)ti__e_clamp28((int64_t)*v + in);
  int32_t sp = t > k->vth;
  int32_t u = sp ? (k->ka ? t : 0) + k->kb : t;
  int32_t nv = k->alpha * ti__e_sra(u, 8) +
               ti__e_sra(k->alpha * (int32_t)((uint32_t)u & 255u), 8) + k->beta;
  nv = (k->keep ? nv : 0) + k->vinit;
  nv = ti__e_max((int32_t)ti__e_clamp28(nv), k->vl);
  *out = k->f0 ? t : k->f1 ? nv : k->f4 ? sp : 0;
  *v = nv;
}

typedef struct ti__e_vt {
  void (*widen_i8)(int32_t *o, const int8_t *s, int64_t n);
  void (*widen_u8)(int32_t *o, const uint8_t *s, int64_t n);
  void (*add)(int32_t *o, const int32_t *x, int64_t n);                       /* o += x */
  void (*addc)(int32_t *o, int32_t c, int64_t n);                             /* o += c */
  void (*mul)(int32_t *o, const int32_t *a, const int32_t *b, int64_t n);     /* o = a*b */
  void (*mulc)(int32_t *o, const int32_t *a, int32_t c, int64_t n);           /* o = a*c */
  void (*max)(int32_t *o, const int32_t *x, int64_t n);                       /* o = max(o, x) */
  void (*min)(int32_t *o, const int32_t *x, int64_t n);
  void (*maxc)(int32_t *o, int32_t c, int64_t n);
  void (*minc)(int32_t *o, int32_t c, int64_t n);
  void (*shift_clip)(int32_t *o, int s, int32_t lo, int32_t hi, int64_t n);   /* o = clip(o >> s) */
  void (*lut)(int32_t *o, const int32_t *x, uint32_t mask, const int32_t *lut, int64_t n);
  void (*lif)(int32_t *v, const int32_t *in, int32_t *out, const ti__e_lif_k *k, int64_t n);
  void (*fadd)(float *o, const float *x, int64_t n);                          /* o = o + x */
  void (*faddc)(float *o, float c, int64_t n);
  void (*fmul)(float *o, const float *a, const float *b, int64_t n);
  void (*fmulc)(float *o, const float *a, float c, int64_t n);
  void (*fmax)(float *o, const float *x, int64_t n);                          /* o = fmax(x, o) */
  void (*fmin)(float *o, const float *x, int64_t n);
  void (*fmaxc)(float *o, float c, int64_t n);
  void (*fminc)(float *o, float c, int64_t n);
} ti__e_vt;

#define TI__E_VT(P) { ti__e##P##_widen_i8, ti__e##P##_widen_u8, ti__e##P##_add, ti__e##P##_addc, \
  ti__e##P##_mul, ti__e##P##_mulc, ti__e##P##_max, ti__e##P##_min, ti__e##P##_maxc, \
  ti__e##P##_minc, ti__e##P##_shift_clip, ti__e##P##_lut, ti__e##P##_lif, ti__e##P##_fadd, \
  ti__e##P##_faddc, ti__e##P##_fmul, ti__e##P##_fmulc, ti__e##P##_fmax, ti__e##P##_fmin, \
  ti__e##P##_fmaxc, ti__e##P##_fminc }

#if defined(__GNUC__) || defined(__clang__)
#define TI__E_INL static inline __attribute__((unused))
#else
#define TI__E_INL static __inline
#endif

/* The leaf loops, written once over the wrappers of one ISA (prefix P,
   function attribute A). */
#define TI__E_GEN(P, A) \
A static void ti__e##P##_widen_i8(int32_t *o, const int8_t *s, int64_t n) { \
  int64_t i = 0; \
  for (; i + ti__e##P##_W <= n; i += ti__e##P##_W) ti__e##P##_st(o + i, ti__e##P##_ld_i8w(s + i)); \
  for (; i < n; i++) o[i] = s[i]; \
} \
A static void ti__e##P##_widen_u8(int32_t *o, const uint8_t *s, int64_t n) { \
  int64_t i = 0; \
  for (; i + ti__e##P##_W <= n; i += ti__e##P##_W) ti__e##P##_st(o + i, ti__e##P##_ld_u8w(s + i)); \
  for (; i < n; i++) o[i] = s[i]; \
} \
A static void ti__e##P##_add(int32_t *o, const int32_t *x, int64_t n) { \
  int64_t i = 0; \
  for (; i + ti__e##P##_W <= n; i += ti__e##P##_W) ti__e##P##_st(o + i, ti__e##P##_vadd(ti__e##P##_ld(o + i), ti__e##P##_ld(x + i))); \
  for (; i < n; i++) o[i] = ti__e_add(o[i], x[i]); \
} \
A static void ti__e##P##_addc(int32_t *o, int32_t c, int64_t n) { \
  const ti__e##P##_vi vc = ti__e##P##_set1(c); \
  int64_t i = 0; \
  for (; i + ti__e##P##_W <= n; i += ti__e##P##_W) ti__e##P##_st(o + i, ti__e##P##_vadd(ti__e##P##_ld(o + i), vc)); \
  for (; i < n; i++) o[i] = ti__e_add(o[i], c); \
} \
A static void ti__e##P##_mul(int32_t *o, const int32_t *a, const int32_t *b, int64_t n) { \
  int64_t i = 0; \
  for (; i + ti__e##P##_W <= n; i += ti__e##P##_W) ti__e##P##_st(o + i, ti__e##P##_vmul(ti__e##P##_ld(a + i), ti__e##P##_ld(b + i))); \
  for (; i < n; i++) o[i] = ti__e_mul(a[i], b[i]); \
} \
A static void ti__e##P##_mulc(int32_t *o, const int32_t *a, int32_t c, int64_t n) { \
  const ti__e##P##_vi vc = ti__e##P##_set1(c); \
  int64_t i = 0; \
  for (; i + ti__e##P##_W <= n; i += ti__e##P##_W) ti__e##P##_st(o + i, ti__e##P##_vmul(ti__e##P##_ld(a + i), vc)); \
  for (; i < n; i++) o[i] = ti__e_mul(a[i], c); \
} \
A static void ti__e##P##_max(int32_t *o, const int32_t *x, int64_t n) { \
  int64_t i = 0; \
  for (; i + ti__e##P##_W <= n; i += ti__e##P##_W) ti__e##P##_st(o + i, ti__e##P##_vmax(ti__e##P##_ld(o + i), ti__e##P##_ld(x + i))); \
  for (; i < n; i++) o[i] = ti__e_max(o[i], x[i]); \
} \
A static void ti__e##P##_min(int32_t *o, const int32_t *x, int64_t n) { \
  int64_t i = 0; \
  for (; i + ti__e##P##_W <= n; i += ti__e##P##_W) ti__e##P##_st(o + i, ti__e##P##_vmin(ti__e##P##_ld(o + i), ti__e##P##_ld(x + i))); \
  for (; i < n; i++) o[i] = ti__e_min(o[i], x[i]); \
} \
A static void ti__e##P##_maxc(int32_t *o, int32_t c, int64_t n) { \
  const ti__e##P##_vi vc = ti__e##P##_set1(c); \
  int64_t i = 0; \
  for (; i + ti__e##P##_W <= n; i += ti__e##P##_W) ti__e##P##_st(o + i, ti__e##P##_vmax(ti__e##P##_ld(o + i), vc)); \
  for (; i < n; i++) o[i] = ti__e_max(o[i], c); \
} \
A static void ti__e##P##_minc(int32_t *o, int32_t c, int64_t n) { \
  const ti__e##P##_vi vc = ti__e##P##_set1(c); \
  int64_t i = 0; \
  for (; i + ti__e##P##_W <= n; i += ti__e##P##_W) ti__e##P##_st(o + i, ti__e##P##_vmin(ti__e##P##_ld(o + i), vc)); \
  for (; i < n; i++) o[i] = ti__e_min(o[i], c); \
} \
A static void ti__e##P##_shift_clip(int32_t *o, int s, int32_t lo, int32_t hi, int64_t n) { \
  const ti__e##P##_vi vlo = ti__e##P##_set1(lo), vhi = ti__e##P##_set1(hi); \
  int64_t i = 0; \
  for (; i + ti__e##P##_W <= n; i += ti__e##P##_W) ti__e##P##_st(o + i, ti__e##P##_vmin(ti__e##P##_vmax(ti__e##P##_vsra(ti__e##P##_ld(o + i), s), vlo), vhi)); \
  for (; i < n; i++) o[i] = ti__e_min(ti__e_max(ti__e_sra(o[i], s), lo), hi); \
} \
A static void ti__e##P##_lut(int32_t *o, const int32_t *x, uint32_t mask, const int32_t *lut, int64_t n) { \
  const ti__e##P##_vi vm = ti__e##P##_set1((int32_t)mask); \
  int64_t i = 0; \
  for (; i + ti__e##P##_W <= n; i += ti__e##P##_W) ti__e##P##_st(o + i, ti__e##P##_gather(lut, ti__e##P##_vand(ti__e##P##_ld(x + i), vm))); \
  for (; i < n; i++) o[i] = lut[(uint32_t)x[i] & mask]; \
} \
A static void ti__e##P##_lif(int32_t *v, const int32_t *in, int32_t *out, const ti__e_lif_k *k, int64_t n) { \
  const ti__e##P##_vi lo = ti__e##P##_set1(TI_LIF_V_MIN), hi = ti__e##P##_set1(TI_LIF_V_MAX), big = ti__e##P##_set1(0x7fffffff); \
  const ti__e##P##_vi vth = ti__e##P##_set1(k->vth), ka = ti__e##P##_set1(k->ka), kb = ti__e##P##_set1(k->kb), al = ti__e##P##_set1(k->alpha); \
  const ti__e##P##_vi be = ti__e##P##_set1(k->beta), keep = ti__e##P##_set1(k->keep), vi = ti__e##P##_set1(k->vinit), vl = ti__e##P##_set1(k->vl); \
  const ti__e##P##_vi f0 = ti__e##P##_set1(k->f0), f1 = ti__e##P##_set1(k->f1), f4 = ti__e##P##_set1(k->f4); \
  const ti__e##P##_vi m8 = ti__e##P##_set1(255), one = ti__e##P##_set1(1), zero = ti__e##P##_set1(0); \
  int64_t i = 0; \
  for (; i + ti__e##P##_W <= n; i += ti__e##P##_W) { \
    ti__e##P##_vi a = ti__e##P##_ld(v + i), b = ti__e##P##_ld(in + i), s = ti__e##P##_vadd(a, b); \
    ti__e##P##_vi t = ti__e##P##_selneg(ti__e##P##_vand(ti__e##P##_vxor(a, s), ti__e##P##_vxor(b, s)), ti__e##P##_vxor(ti__e##P##_vsra(a, 31), big), s); \
    ti__e##P##_vi u, nv, sp; \
    t = ti__e##P##_vmin(ti__e##P##_vmax(t, lo), hi); \
    sp = ti__e##P##_selgt(t, vth, one, zero); \
    u = ti__e##P##_selgt(t, vth, ti__e##P##_vadd(ti__e##P##_vand(t, ka), kb), t); \
    nv = ti__e##P##_vadd(ti__e##P##_vadd(ti__e##P##_vmul(al, ti__e##P##_vsra(u, 8)), ti__e##P##_vsra(ti__e##P##_vmul(al, ti__e##P##_vand(u, m8)), 8)), be); \
    nv = ti__e##P##_vadd(ti__e##P##_vand(nv, keep), vi); \
    nv = ti__e##P##_vmax(ti__e##P##_vmin(ti__e##P##_vmax(nv, lo), hi), vl); \
    ti__e##P##_st(out + i, ti__e##P##_vadd(ti__e##P##_vadd(ti__e##P##_vand(t, f0), ti__e##P##_vand(nv, f1)), ti__e##P##_vand(sp, f4))); \
    ti__e##P##_st(v + i, nv); \
  } \
  for (; i < n; i++) ti__e_lif_one(v + i, in[i], out + i, k); \
} \
A static void ti__e##P##_fadd(float *o, const float *x, int64_t n) { \
  int64_t i = 0; \
  for (; i + ti__e##P##_W <= n; i += ti__e##P##_W) ti__e##P##_stf(o + i, ti__e##P##_vfadd(ti__e##P##_ldf(o + i), ti__e##P##_ldf(x + i))); \
  for (; i < n; i++) o[i] = o[i] + x[i]; \
} \
A static void ti__e##P##_faddc(float *o, float c, int64_t n) { \
  const ti__e##P##_vf vc = ti__e##P##_set1f(c); \
  int64_t i = 0; \
  for (; i + ti__e##P##_W <= n; i += ti__e##P##_W) ti__e##P##_stf(o + i, ti__e##P##_vfadd(ti__e##P##_ldf(o + i), vc)); \
  for (; i < n; i++) o[i] = o[i] + c; \
} \
A static void ti__e##P##_fmul(float *o, const float *a, const float *b, int64_t n) { \
  int64_t i = 0; \
  for (; i + ti__e##P##_W <= n; i += ti__e##P##_W) ti__e##P##_stf(o + i, ti__e##P##_vfmul(ti__e##P##_ldf(a + i), ti__e##P##_ldf(b + i))); \
  for (; i < n; i++) o[i] = a[i] * b[i]; \
} \
A static void ti__e##P##_fmulc(float *o, const float *a, float c, int64_t n) { \
  const ti__e##P##_vf vc = ti__e##P##_set1f(c); \
  int64_t i = 0; \
  for (; i + ti__e##P##_W <= n; i += ti__e##P##_W) ti__e##P##_stf(o + i, ti__e##P##_vfmul(ti__e##P##_ldf(a + i), vc)); \
  for (; i < n; i++) o[i] = a[i] * c; \
} \
A static void ti__e##P##_fmax(float *o, const float *x, int64_t n) { \
  int64_t i = 0; \
  for (; i + ti__e##P##_W <= n; i += ti__e##P##_W) ti__e##P##_stf(o + i, ti__e##P##_vfmax(ti__e##P##_ldf(x + i), ti__e##P##_ldf(o + i))); \
  for (; i < n; i++) o[i] = ti__e_fmax(x[i], o[i]); \
} \
A static void ti__e##P##_fmin(float *o, const float *x, int64_t n) { \
  int64_t i = 0; \
  for (; i + ti__e##P##_W <= n; i += ti__e##P##_W) ti__e##P##_stf(o + i, ti__e##P##_vfmin(ti__e##P##_ldf(x + i), ti__e##P##_ldf(o + i))); \
  for (; i < n; i++) o[i] = ti__e_fmin(x[i], o[i]); \
} \
A static void ti__e##P##_fmaxc(float *o, float c, int64_t n) { \
  const ti__e##P##_vf vc = ti__e##P##_set1f(c); \
  int64_t i = 0; \
  for (; i + ti__e##P##_W <= n; i += ti__e##P##_W) ti__e##P##_stf(o + i, ti__e##P##_vfmax(vc, ti__e##P##_ldf(o + i))); \
  for (; i < n; i++) o[i] = ti__e_fmax(c, o[i]); \
} \
A static void ti__e##P##_fminc(float *o, float c, int64_t n) { \
  const ti__e##P##_vf vc = ti__e##P##_set1f(c); \
  int64_t i = 0; \
  for (; i + ti__e##P##_W <= n; i += ti__e##P##_W) ti__e##P##_stf(o + i, ti__e##P##_vfmin(vc, ti__e##P##_ldf(o + i))); \
  for (; i < n; i++) o[i] = ti__e_fmin(c, o[i]); \
}

#if defined(TI__X86)
#if defined(__GNUC__) || defined(__clang__)
#define TI__E_AVX2 __attribute__((target("avx2")))
#define TI__E_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq")))
#else
#define TI__E_AVX2
#define TI__E_AVX512
#endif

/* SSE2 (x86-64 baseline): no 32-bit multiply, max/min or blend; emulated. */
enum { ti__es_W = 4 };
typedef __m128i ti__es_vi;
typedef __m128 ti__es_vf;
TI__E_INL __m128i ti__es_ld(const int32_t *p) { return _mm_loadu_si128((const __m128i *)(const void *)p); }
TI__E_INL void ti__es_st(int32_t *p, __m128i v) { _mm_storeu_si128((__m128i *)(void *)p, v); }
TI__E_INL __m128i ti__es_set1(int32_t c) { return _mm_set1_epi32(c); }
TI__E_INL __m128i ti__es_vadd(__m128i a, __m128i b) { return _mm_add_epi32(a, b); }
TI__E_INL __m128i ti__es_vmul(__m128i a, __m128i b) {
  __m128i e = _mm_mul_epu32(a, b), o = _mm_mul_epu32(_mm_srli_epi64(a, 32), _mm_srli_epi64(b, 32));
  return _mm_unpacklo_epi32(_mm_shuffle_epi32(e, 8), _mm_shuffle_epi32(o, 8));
}
TI__E_INL __m128i ti__es_blend(__m128i m, __m128i x, __m128i y) {   /* m ? x : y */
  return _mm_or_si128(_mm_and_si128(m, x), _mm_andnot_si128(m, y));
}
TI__E_INL __m128i ti__es_vmax(__m128i a, __m128i b) { return ti__es_blend(_mm_cmpgt_epi32(a, b), a, b); }
TI__E_INL __m128i ti__es_vmin(__m128i a, __m128i b) { return ti__es_blend(_mm_cmpgt_epi32(b, a), a, b); }
TI__E_INL __m128i ti__es_vsra(__m128i v, int s) { return _mm_sra_epi32(v, _mm_cvtsi32_si128(s)); }
TI__E_INL __m128i ti__es_vand(__m128i a, __m128i b) { return _mm_and_si128(a, b); }
TI__E_INL __m128i ti__es_vxor(__m128i a, __m128i b) { return _mm_xor_si128(a, b); }
TI__E_INL __m128i ti__es_selgt(__m128i a, __m128i b, __m128i x, __m128i y) {
  return ti__es_blend(_mm_cmpgt_epi32(a, b), x, y);
}
TI__E_INL __m128i ti__es_selneg(__m128i m, __m128i x, __m128i y) {
  return ti__es_blend(_mm_srai_epi32(m, 31), x, y);
}
TI__E_INL __m128i ti__es_ld_i8w(const int8_t *p) {
  int32_t t; __m128i x;
  memcpy(&t, p, 4);
  x = _mm_cvtsi32_si128(t);
  x = _mm_unpacklo_epi8(x, x);
  return _mm_srai_epi32(_mm_unpacklo_epi16(x, x), 24);
}
TI__E_INL __m128i ti__es_ld_u8w(const uint8_t *p) {
  int32_t t; __m128i z = _mm_setzero_si128();
  memcpy(&t, p, 4);
  return _mm_unpacklo_epi16(_mm_unpacklo_epi8(_mm_cvtsi32_si128(t), z), z);
}
TI__E_INL __m128i ti__es_gather(const int32_t *lut, __m128i idx) {
  int32_t t[4];
  _mm_storeu_si128((__m128i *)(void *)t, idx);
  return _mm_set_epi32(lut[t[3]], lut[t[2]], lut[t[1]], lut[t[0]]);
}
TI__E_INL __m128 ti__es_ldf(const float *p) { return _mm_loadu_ps(p); }
TI__E_INL void ti__es_stf(float *p, __m128 v) { _mm_storeu_ps(p, v); }
TI__E_INL __m128 ti__es_set1f(float c) { return _mm_set1_ps(c); }
TI__E_INL __m128 ti__es_vfadd(__m128 a, __m128 b) { return _mm_add_ps(a, b); }
TI__E_INL __m128 ti__es_vfmul(__m128 a, __m128 b) { return _mm_mul_ps(a, b); }
TI__E_INL __m128 ti__es_vfmax(__m128 x, __m128 acc) { return _mm_max_ps(x, acc); }  /* x > acc ? x : acc */
TI__E_INL __m128 ti__es_vfmin(__m128 x, __m128 acc) { return _mm_min_ps(x, acc); }

/* AVX2. */
enum { ti__ea_W = 8 };
typedef __m256i ti__ea_vi;
typedef __m256 ti__ea_vf;
TI__E_AVX2 TI__E_INL __m256i ti__ea_ld(const int32_t *p) { return _mm256_loadu_si256((const __m256i *)(const void *)p); }
TI__E_AVX2 TI__E_INL void ti__ea_st(int32_t *p, __m256i v) { _mm256_storeu_si256((__m256i *)(void *)p, v); }
TI__E_AVX2 TI__E_INL __m256i ti__ea_set1(int32_t c) { return _mm256_set1_epi32(c); }
TI__E_AVX2 TI__E_INL __m256i ti__ea_vadd(__m256i a, __m256i b) { return _mm256_add_epi32(a, b); }
TI__E_AVX2 TI__E_INL __m256i ti__ea_vmul(__m256i a, __m256i b) { return _mm256_mullo_epi32(a, b); }
TI__E_AVX2 TI__E_INL __m256i ti__ea_vmax(__m256i a, __m256i b) { return _mm256_max_epi32(a, b); }
TI__E_AVX2 TI__E_INL __m256i ti__ea_vmin(__m256i a, __m256i b) { return _mm256_min_epi32(a, b); }
TI__E_AVX2 TI__E_INL __m256i ti__ea_vsra(__m256i v, int s) { return _mm256_sra_epi32(v, _mm_cvtsi32_si128(s)); }
TI__E_AVX2 TI__E_INL __m256i ti__ea_vand(__m256i a, __m256i b) { return _mm256_and_si256(a, b); }
TI__E_AVX2 TI__E_INL __m256i ti__ea_vxor(__m256i a, __m256i b) { return _mm256_xor_si256(a, b); }
TI__E_AVX2 TI__E_INL __m256i ti__ea_selgt(__m256i a, __m256i b, __m256i x, __m256i y) {
  return _mm256_blendv_epi8(y, x, _mm256_cmpgt_epi32(a, b));
}
TI__E_AVX2 TI__E_INL __m256i ti__ea_selneg(__m256i m, __m256i x, __m256i y) {
  return _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(y), _mm256_castsi256_ps(x),
                                              _mm256_castsi256_ps(m)));
}
TI__E_AVX2 TI__E_INL __m256i ti__ea_ld_i8w(const int8_t *p) {
  return _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)p));
}
TI__E_AVX2 TI__E_INL __m256i ti__ea_ld_u8w(const uint8_t *p) {
  return _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)p));
}
TI__E_AVX2 TI__E_INL __m256i ti__ea_gather(const int32_t *lut, __m256i idx) {
  return _mm256_i32gather_epi32((const int *)(const void *)lut, idx, 4);
}
TI__E_AVX2 TI__E_INL __m256 ti__ea_ldf(const float *p) { return _mm256_loadu_ps(p); }
TI__E_AVX2 TI__E_INL void ti__ea_stf(float *p, __m256 v) { _mm256_storeu_ps(p, v); }
TI__E_AVX2 TI__E_INL __m256 ti__ea_set1f(float c) { return _mm256_set1_ps(c); }
TI__E_AVX2 TI__E_INL __m256 ti__ea_vfadd(__m256 a, __m256 b) { return _mm256_add_ps(a, b); }
TI__E_AVX2 TI__E_INL __m256 ti__ea_vfmul(__m256 a, __m256 b) { return _mm256_mul_ps(a, b); }
TI__E_AVX2 TI__E_INL __m256 ti__ea_vfmax(__m256 x, __m256 acc) { return _mm256_max_ps(x, acc); }
TI__E_AVX2 TI__E_INL __m256 ti__ea_vfmin(__m256 x, __m256 acc) { return _mm256_min_ps(x, acc); }

/* AVX-512 (F, BW, VL, DQ). The all-lanes masked forms avoid g++ 12's false
   maybe-uninitialized warning on the unmasked intrinsics' undefined source. */
#define TI__E_K16 ((__mmask16)0xffff)
enum { ti__ez_W = 16 };
typedef __m512i ti__ez_vi;
typedef __m512 ti__ez_vf;
TI__E_AVX512 TI__E_INL __m512i ti__ez_ld(const int32_t *p) { return _mm512_loadu_si512((const void *)p); }
TI__E_AVX512 TI__E_INL void ti__ez_st(int32_t *p, __m512i v) { _mm512_storeu_si512((void *)p, v); }
TI__E_AVX512 TI__E_INL __m512i ti__ez_set1(int32_t c) { return _mm512_set1_epi32(c); }
TI__E_AVX512 TI__E_INL __m512i ti__ez_vadd(__m512i a, __m512i b) { return _mm512_add_epi32(a, b); }
TI__E_AVX512 TI__E_INL __m512i ti__ez_vmul(__m512i a, __m512i b) { return _mm512_mullo_epi32(a, b); }
TI__E_AVX512 TI__E_INL __m512i ti__ez_vmax(__m512i a, __m512i b) { return _mm512_maskz_max_epi32(TI__E_K16, a, b); }
TI__E_AVX512 TI__E_INL __m512i ti__ez_vmin(__m512i a, __m512i b) { return _mm512_maskz_min_epi32(TI__E_K16, a, b); }
TI__E_AVX512 TI__E_INL __m512i ti__ez_vsra(__m512i v, int s) { return _mm512_maskz_sra_epi32(TI__E_K16, v, _mm_cvtsi32_si128(s)); }
TI__E_AVX512 TI__E_INL __m512i ti__ez_vand(__m512i a, __m512i b) { return _mm512_and_si512(a, b); }
TI__E_AVX512 TI__E_INL __m512i ti__ez_vxor(__m512i a, __m512i b) { return _mm512_xor_si512(a, b); }
TI__E_AVX512 TI__E_INL __m512i ti__ez_selgt(__m512i a, __m512i b, __m512i x, __m512i y) {
  return _mm512_mask_blend_epi32(_mm512_cmpgt_epi32_mask(a, b), y, x);
}
TI__E_AVX512 TI__E_INL __m512i ti__ez_selneg(__m512i m, __m512i x, __m512i y) {
  return _mm512_mask_blend_epi32(_mm512_movepi32_mask(m), y, x);
}
TI__E_AVX512 TI__E_INL __m512i ti__ez_ld_i8w(const int8_t *p) {
  return _mm512_maskz_cvtepi8_epi32(TI__E_K16, _mm_loadu_si128((const __m128i *)(const void *)p));
}
TI__E_AVX512 TI__E_INL __m512i ti__ez_ld_u8w(const uint8_t *p) {
  return _mm512_maskz_cvtepu8_epi32(TI__E_K16, _mm_loadu_si128((const __m128i *)(const void *)p));
}
TI__E_AVX512 TI__E_INL __m512i ti__ez_gather(const int32_t *lut, __m512i idx) {
  return _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), TI__E_K16, idx, (const void *)lut, 4);
}
TI__E_AVX512 TI__E_INL __m512 ti__ez_ldf(const float *p) { return _mm512_loadu_ps(p); }
TI__E_AVX512 TI__E_INL void ti__ez_stf(float *p, __m512 v) { _mm512_storeu_ps(p, v); }
TI__E_AVX512 TI__E_INL __m512 ti__ez_set1f(float c) { return _mm512_set1_ps(c); }
TI__E_AVX512 TI__E_INL __m512 ti__ez_vfadd(__m512 a, __m512 b) { return _mm512_add_ps(a, b); }
TI__E_AVX512 TI__E_INL __m512 ti__ez_vfmul(__m512 a, __m512 b) { return _mm512_mul_ps(a, b); }
TI__E_AVX512 TI__E_INL __m512 ti__ez_vfmax(__m512 x, __m512 acc) { return _mm512_maskz_max_ps(TI__E_K16, x, acc); }
TI__E_AVX512 TI__E_INL __m512 ti__ez_vfmin(__m512 x, __m512 acc) { return _mm512_maskz_min_ps(TI__E_K16, x, acc); }

TI__E_GEN(s, )
TI__E_GEN(a, TI__E_AVX2)
TI__E_GEN(z, TI__E_AVX512)
static const ti__e_vt ti__e_vt_sse2 = TI__E_VT(s);
static const ti__e_vt ti__e_vt_avx2 = TI__E_VT(a);
static const ti__e_vt ti__e_vt_avx512 = TI__E_VT(z);
#undef TI__E_AVX2
#undef TI__E_AVX512
#undef TI__E_K16

#elif defined(TI__NEON)
enum { ti__en_W = 4 };
typedef int32x4_t ti__en_vi;
typedef float32x4_t ti__en_vf;
TI__E_INL int32x4_t ti__en_ld(const int32_t *p) { return vld1q_s32(p); }
TI__E_INL void ti__en_st(int32_t *p, int32x4_t v) { vst1q_s32(p, v); }
TI__E_INL int32x4_t ti__en_set1(int32_t c) { return vdupq_n_s32(c); }
TI__E_INL int32x4_t ti__en_vadd(int32x4_t a, int32x4_t b) { return vaddq_s32(a, b); }
TI__E_INL int32x4_t ti__en_vmul(int32x4_t a, int32x4_t b) { return vmulq_s32(a, b); }
TI__E_INL int32x4_t ti__en_vmax(int32x4_t a, int32x4_t b) { return vmaxq_s32(a, b); }
TI__E_INL int32x4_t ti__en_vmin(int32x4_t a, int32x4_t b) { return vminq_s32(a, b); }
TI__E_INL int32x4_t ti__en_vsra(int32x4_t v, int s) { return vshlq_s32(v, vdupq_n_s32(-s)); }
TI__E_INL int32x4_t ti__en_vand(int32x4_t a, int32x4_t b) { return vandq_s32(a, b); }
TI__E_INL int32x4_t ti__en_vxor(int32x4_t a, int32x4_t b) { return veorq_s32(a, b); }
TI__E_INL int32x4_t ti__en_selgt(int32x4_t a, int32x4_t b, int32x4_t x, int32x4_t y) {
  return vbslq_s32(vcgtq_s32(a, b), x, y);
}
TI__E_INL int32x4_t ti__en_selneg(int32x4_t m, int32x4_t x, int32x4_t y) {
  return vbslq_s32(vcltq_s32(m, vdupq_n_s32(0)), x, y);
}
TI__E_INL int32x4_t ti__en_ld_i8w(const int8_t *p) {
  int32_t t;
  memcpy(&t, p, 4);
  return vmovl_s16(vget_low_s16(vmovl_s8(vreinterpret_s8_s32(vdup_n_s32(t)))));
}
TI__E_INL int32x4_t ti__en_ld_u8w(const uint8_t *p) {
  int32_t t;
  memcpy(&t, p, 4);
  return vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(vmovl_u8(vreinterpret_u8_s32(vdup_n_s32(t))))));
}
TI__E_INL int32x4_t ti__en_gather(const int32_t *lut, int32x4_t idx) {
  int32_t t[4], r[4];
  vst1q_s32(t, idx);
  r[0] = lut[t[0]]; r[1] = lut[t[1]]; r[2] = lut[t[2]]; r[3] = lut[t[3]];
  return vld1q_s32(r);
}
TI__E_INL float32x4_t ti__en_ldf(const float *p) { return vld1q_f32(p); }
TI__E_INL void ti__en_stf(float *p, float32x4_t v) { vst1q_f32(p, v); }
TI__E_INL float32x4_t ti__en_set1f(float c) { return vdupq_n_f32(c); }
TI__E_INL float32x4_t ti__en_vfadd(float32x4_t a, float32x4_t b) { return vaddq_f32(a, b); }
TI__E_INL float32x4_t ti__en_vfmul(float32x4_t a, float32x4_t b) { return vmulq_f32(a, b); }
/* vmaxq_f32 propagates NaN; compare-and-select keeps the x86/reference rule. */
TI__E_INL float32x4_t ti__en_vfmax(float32x4_t x, float32x4_t acc) { return vbslq_f32(vcgtq_f32(x, acc), x, acc); }
TI__E_INL float32x4_t ti__en_vfmin(float32x4_t x, float32x4_t acc) { return vbslq_f32(vcltq_f32(x, acc), x, acc); }

TI__E_GEN(n, )
static const ti__e_vt ti__e_vt_neon = TI__E_VT(n);
#endif

/* ---- drivers ---- */
#define TI__E_TILE 512

typedef union ti__e_tile { int32_t i[TI__E_TILE]; float f[TI__E_TILE]; } ti__e_tile;

enum { TI__E_CADD = 0, TI__E_CVVH, TI__E_CAX, TI__E_CVS, TI__E_CLUT, TI__E_CLIF };

typedef struct ti__e_job {
  const ti__e_vt *vt;
  const ti_prim_desc *d;
  int op, kind;
  const void *const *inputs;
  const void *a, *b, *bias;   /* CVVH a, b; CAX in, alpha; CVS/CLUT/CLIF/window in */
  const int32_t *lut;
  void *out;                  /* CLIF: spikes */
  int32_t *v;
  const ti__e_lif_k *lk;
  const ti__e_win *w;
  int32_t hi;
  int64_t npix, nf, total;
  int vec_bias;               /* a bias[f] is added (CLUT and CLIF take none) */
  int pattern;                /* chunks follow pixels: bias[f] or alpha[f] involved */
  int64_t pix_per_chunk;      /* pattern, nf <= TILE: whole pixels per chunk */
  int64_t chunks_per_pix;     /* pattern, nf > TILE: chunks per pixel */
} ti__e_job;

TI__PRIVATE const ti__e_vt *ti__e_pick(const ti_kernel_ctx *ctx) {
  unsigned cpu = ti__cpu(ctx);
#if defined(TI__X86)
  if (cpu & TI_CPU_AVX512) return &ti__e_vt_avx512;
  if (cpu & TI_CPU_AVX2) return &ti__e_vt_avx2;
  if (cpu & TI_CPU_SSE2) return &ti__e_vt_sse2;
#else
  if (cpu & TI_CPU_NEON) return &ti__e_vt_neon;
#endif
  return 0;
}

/* n int32 values of an integer array from element off on: the array
   itself for I32, else widened into buf (n <= TI__E_TILE). */
TI__PRIVATE const int32_t *ti__e_i32(const ti__e_vt *vt, const void *p, ti_dtype t,
                                     int64_t off, int64_t n, int32_t *buf) {
  switch (t) {
  case TI_DTYPE_I8: case TI_DTYPE_TERNARY: vt->widen_i8(buf, (const int8_t *)p + off, n); return buf;
  case TI_DTYPE_U8: vt->widen_u8(buf, (const uint8_t *)p + off, n); return buf;
  default: return (const int32_t *)p + off;
  }
}

TI__PRIVATE int64_t ti__e_min64(int64_t a, int64_t b) { return a < b ? a : b; }

TI__PRIVATE void ti__e_flat_setup(ti__e_job *j, int64_t *nchunks) {
  const ti_prim_desc *d = j->d;
  j->npix = (int64_t)d->ny * d->nx; j->nf = d->nf; j->total = j->npix * j->nf;
  j->vec_bias = j->op <= TI__E_CVS && d->bias_mode == TI_BIAS_VECTOR;
  j->pattern = j->vec_bias || j->op == TI__E_CAX;
  j->pix_per_chunk = j->chunks_per_pix = 0;
  if (!j->pattern) {
    *nchunks = (j->total + TI__E_TILE - 1) / TI__E_TILE;
  } else if (j->nf <= TI__E_TILE) {
    j->pix_per_chunk = TI__E_TILE / j->nf;
    *nchunks = (j->npix + j->pix_per_chunk - 1) / j->pix_per_chunk;
  } else {
    j->chunks_per_pix = (j->nf + TI__E_TILE - 1) / TI__E_TILE;
    *nchunks = j->npix * j->chunks_per_pix;
  }
}

TI__PRIVATE void ti__e_flat_range(void *arg, int64_t c0, int64_t c1) {
  const ti__e_job *j = (const ti__e_job *)arg;
  const ti__e_vt *vt = j->vt;
  const ti_prim_desc *d = j->d;
  const int tiled = j->pattern && j->pix_per_chunk;   /* per-f operands from tb/ta */
  const int vec_bias = j->vec_bias;
  ti__e_tile tb, ta, s1, s2;
  int64_t c, nf = j->nf;
  if (tiled) {   /* bias[f] / alpha[f] repeated over a chunk's pixels */
    int64_t k, f, m = j->pix_per_chunk * nf;
    for (k = 0; k < m; k += nf)
      for (f = 0; f < nf; f++) {
        if (j->kind == 1) {
          if (vec_bias) tb.i[k + f] = ((const int32_t *)j->bias)[f];
          if (j->op == TI__E_CAX) ta.i[k + f] = ti__e_ld(j->b, d->w_dtype, f);
        } else {
          if (vec_bias) tb.f[k + f] = ((const float *)j->bias)[f];
          if (j->op == TI__E_CAX) ta.f[k + f] = ((const float *)j->b)[f];
        }
      }
  }
  for (c = c0; c < c1; c++) {
    int64_t i0, n, f0 = 0;
    if (!j->pattern) {
      i0 = c * TI__E_TILE; n = ti__e_min64(TI__E_TILE, j->total - i0);
    } else if (tiled) {
      int64_t p0 = c * j->pix_per_chunk;
      i0 = p0 * nf; n = ti__e_min64(j->pix_per_chunk, j->npix - p0) * nf;
    } else {
      f0 = (c % j->chunks_per_pix) * TI__E_TILE;
      i0 = (c / j->chunks_per_pix) * nf + f0; n = ti__e_min64(TI__E_TILE, nf - f0);
    }
    if (j->kind == 1) {
      int32_t *o = (int32_t *)j->out + i0;
      const int32_t *x;
      int b;
      switch (j->op) {
      case TI__E_CADD:
        x = ti__e_i32(vt, j->inputs[0], d->in_dtype, i0, n, o);
        if (x != o) memcpy(o, x, (size_t)n * sizeof *o);
        for (b = 1; b < d->n_branch; b++) vt->add(o, ti__e_i32(vt, j->inputs[b], d->in_dtype, i0, n, s1.i), n);
        break;
      case TI__E_CVVH:
        vt->mul(o, ti__e_i32(vt, j->a, d->in_dtype, i0, n, s1.i), ti__e_i32(vt, j->b, d->w_dtype, i0, n, s2.i), n);
        break;
      case TI__E_CAX:
        vt->mul(o, ti__e_i32(vt, j->a, d->in_dtype, i0, n, s1.i),
                tiled ? ta.i : ti__e_i32(vt, j->b, d->w_dtype, f0, n, s2.i), n);
        break;
      case TI__E_CVS:
        vt->mulc(o, ti__e_i32(vt, j->a, d->in_dtype, i0, n, s1.i), d->constant_a, n);
        break;
      case TI__E_CLUT:
        vt->lut(o, ti__e_i32(vt, j->a, d->in_dtype, i0, n, s1.i), (1u << d->lut_dw) - 1u, j->lut, n);
        continue;
      default: /* CLIF */
        vt->lif(j->v + i0, ti__e_i32(vt, j->a, d->in_dtype, i0, n, s1.i), o, j->lk, n);
        continue;
      }
      if (vec_bias) vt->add(o, tiled ? tb.i : (const int32_t *)j->bias + f0, n);
      else if (d->bias_mode == TI_BIAS_CONSTANT) vt->addc(o, d->constant_b, n);
    } else {
      float *o = (float *)j->out + i0;
      int b;
      switch (j->op) {
      case TI__E_CADD:
        memcpy(o, (const float *)j->inputs[0] + i0, (size_t)n * sizeof *o);
        for (b = 1; b < d->n_branch; b++) vt->fadd(o, (const float *)j->inputs[b] + i0, n);
        break;
      case TI__E_CVVH: vt->fmul(o, (const float *)j->a + i0, (const float *)j->b + i0, n); break;
      case TI__E_CAX:
        vt->fmul(o, (const float *)j->a + i0, tiled ? ta.f : (const float *)j->b + f0, n);
        break;
      default: vt->fmulc(o, (const float *)j->a + i0, (float)d->constant_a, n); break;
      }
      if (vec_bias) vt->fadd(o, tiled ? tb.f : (const float *)j->bias + f0, n);
      else if (d->bias_mode == TI_BIAS_CONSTANT) vt->faddc(o, (float)d->constant_b, n);
    }
  }
}

TI__PRIVATE ti_status ti__e_flat_run(const ti_kernel_ctx *ctx, ti__e_job *j) {
  int64_t nchunks;
  ti__e_flat_setup(j, &nchunks);
  ti__parallel(ctx, nchunks, ti__e_flat_range, j);
  return TI_STATUS_SUCCESS;
}

/* Smallest integer >= a / s for s > 0 and any sign of a. */
TI__PRIVATE int64_t ti__e_ceil_div(int64_t a, int64_t s) { return a > 0 ? (a + s - 1) / s : a / s; }

/* o op= in[off .. off+n) for the window drivers (n may exceed a tile). */
TI__PRIVATE void ti__e_win_acc(const ti__e_job *j, int32_t *o, int64_t off, int64_t n, int32_t *buf) {
  const ti__e_vt *vt = j->vt;
  if (j->kind == 2) {
    const float *x = (const float *)j->a + off;
    float *of = (float *)(void *)o;
    if (j->op == TI__E_SUM) vt->fadd(of, x, n);
    else if (j->op == TI__E_MAX) vt->fmax(of, x, n);
    else vt->fmin(of, x, n);
    return;
  }
  while (n > 0) {
    int64_t m = ti__e_min64(n, TI__E_TILE);
    const int32_t *x = ti__e_i32(vt, j->a, j->d->in_dtype, off, m, buf);
    if (j->op == TI__E_SUM) vt->add(o, x, m);
    else if (j->op == TI__E_MAX) vt->max(o, x, m);
    else vt->min(o, x, m);
    o += m; off += m; n -= m;
  }
}

/* A padded window position: max/min with 0 (a sum skips it). */
TI__PRIVATE void ti__e_win_pad(const ti__e_job *j, int32_t *o, int64_t n) {
  if (n <= 0 || j->op == TI__E_SUM) return;
  if (j->kind == 2) {
    if (j->op == TI__E_MAX) j->vt->fmaxc((float *)(void *)o, 0.0f, n);
    else j->vt->fminc((float *)(void *)o, 0.0f, n);
  } else {
    if (j->op == TI__E_MAX) j->vt->maxc(o, 0, n);
    else j->vt->minc(o, 0, n);
  }
}

/* Output rows [r0, r1): each row accumulates in place in out, window
   position by window position (ky-major, kx-minor, as the reference). */
TI__PRIVATE void ti__e_win_range(void *arg, int64_t r0, int64_t r1) {
  const ti__e_job *j = (const ti__e_job *)arg;
  const ti_prim_desc *d = j->d;
  const ti__e_win *w = j->w;
  const ti__e_vt *vt = j->vt;
  const int64_t nf = d->nf, nx = d->nx, rowlen = nx * nf;
  ti__e_tile s1;
  int64_t oy, ky, kx, i;
  for (oy = r0; oy < r1; oy++) {
    int32_t *o = (int32_t *)j->out + oy * rowlen;
    float *of = (float *)j->out + oy * rowlen;
    if (j->kind == 1) {
      int32_t init = j->op == TI__E_SUM ? 0 : j->op == TI__E_MAX ? INT32_MIN : d->cmp;
      for (i = 0; i < rowlen; i++) o[i] = init;
    } else {
      float init = j->op == TI__E_SUM ? 0.0f : (float)d->cmp;
      for (i = 0; i < rowlen; i++) of[i] = init;
    }
    for (ky = 0; ky < w->nky; ky++) {
      int64_t iy = oy * w->sy + ky - w->pu;
      if (iy < 0 || iy >= w->niy) { ti__e_win_pad(j, o, rowlen); continue; }
      for (kx = 0; kx < w->nkx; kx++) {
        int64_t lo = ti__e_ceil_div(w->pl - kx, w->sx), hi = ti__e_ceil_div(w->nix + w->pl - kx, w->sx);
        int64_t base, ox;
        if (lo < 0) lo = 0;
        if (hi > nx) hi = nx;
        if (hi < lo) hi = lo;
        ti__e_win_pad(j, o, lo * nf);
        ti__e_win_pad(j, o + hi * nf, (nx - hi) * nf);
        if (hi == lo) continue;
        base = (iy * w->nix + lo * w->sx + kx - w->pl) * nf;
        if (w->sx == 1) ti__e_win_acc(j, o + lo * nf, base, (hi - lo) * nf, s1.i);
        else
          for (ox = lo; ox < hi; ox++) ti__e_win_acc(j, o + ox * nf, base + (ox - lo) * w->sx * nf, nf, s1.i);
      }
    }
    if (j->op == TI__E_SUM) {
      if (d->bias_mode == TI_BIAS_VECTOR) {
        for (i = 0; i < nx; i++) {
          if (j->kind == 1) vt->add(o + i * nf, (const int32_t *)j->bias, nf);
          else vt->fadd(of + i * nf, (const float *)j->bias, nf);
        }
      } else if (d->bias_mode == TI_BIAS_CONSTANT) {
        if (j->kind == 1) vt->addc(o, d->constant_b, rowlen);
        else vt->faddc(of, (float)d->constant_b, rowlen);
      }
    } else if (j->kind == 1) {
      if (j->op == TI__E_MAX) vt->shift_clip(o, d->bit_shift, d->cmp, j->hi, rowlen);
      else vt->shift_clip(o, d->bit_shift, -128, 127, rowlen);
    }
  }
}
#endif /* TI__X86 || TI__NEON */

/* ---- public entry points ---- */

TASKIR_API ti_status ti_cadd(const ti_kernel_ctx *ctx, const ti_prim_desc *d,
                             const void *const *inputs, const void *bias, void *out) {
#if defined(TI__E_SIMD)
  const ti__e_vt *vt = ti__e_pick(ctx);
  int64_t total; int kind, b;
  ti__e_job j;
  ti_status st;
  if (!vt) return ti_cadd_ref(d, inputs, bias, out);
  if ((st = ti__e_check(d, out, bias, 1, &total, &kind))) return st;
  if (!inputs || d->n_branch < 1) return TI_STATUS_BAD_PARAM;
  for (b = 0; b < d->n_branch; b++) if (!inputs[b]) return TI_STATUS_BAD_PARAM;
  memset(&j, 0, sizeof j);
  j.vt = vt; j.d = d; j.op = TI__E_CADD; j.kind = kind; j.inputs = inputs; j.bias = bias; j.out = out;
  return ti__e_flat_run(ctx, &j);
#else
  (void)ctx;
  return ti_cadd_ref(d, inputs, bias, out);
#endif
}

#if defined(TI__E_SIMD)
TI__PRIVATE ti_status ti__e_mul_run(const ti_kernel_ctx *ctx, const ti__e_vt *vt, const ti_prim_desc *d,
                                    int op, const void *a, const void *b, const void *bias, void *out) {
  int64_t total; int kind;
  ti__e_job j;
  ti_status st = ti__e_check(d, out, bias, 1, &total, &kind);
  if (st) return st;
  if (!a || (op != TI__E_CVS && !b)) return TI_STATUS_BAD_PARAM;
  if (op != TI__E_CVS && ti__e_kind(d->w_dtype) != kind) return TI_STATUS_NOT_SUPPORTED;
  memset(&j, 0, sizeof j);
  j.vt = vt; j.d = d; j.op = op; j.kind = kind; j.a = a; j.b = b; j.bias = bias; j.out = out;
  return ti__e_flat_run(ctx, &j);
}

TI__PRIVATE ti_status ti__e_window_run(const ti_kernel_ctx *ctx, const ti__e_vt *vt, const ti_prim_desc *d,
                                       int op, const void *in, const void *bias, void *out) {
  ti__e_win w; int kind; int32_t hi;
  ti__e_job j;
  ti_status st = ti__e_check_window_prim(d, op, in, bias, out, &w, &kind, &hi);
  if (st) return st;
  memset(&j, 0, sizeof j);
  j.vt = vt; j.d = d; j.op = op; j.kind = kind; j.a = in; j.bias = bias; j.out = out; j.w = &w; j.hi = hi;
  ti__parallel(ctx, d->ny, ti__e_win_range, &j);
  return TI_STATUS_SUCCESS;
}
#endif

TASKIR_API ti_status ti_cvvh(const ti_kernel_ctx *ctx, const ti_prim_desc *d,
                             const void *a, const void *b, const void *bias, void *out) {
#if defined(TI__E_SIMD)
  const ti__e_vt *vt = ti__e_pick(ctx);
  if (vt) return ti__e_mul_run(ctx, vt, d, TI__E_CVVH, a, b, bias, out);
#endif
  (void)ctx;
  return ti_cvvh_ref(d, a, b, bias, out);
}

TASKIR_API ti_status ti_cax(const ti_kernel_ctx *ctx, const ti_prim_desc *d,
                            const void *in, const void *alpha, const void *bias, void *out) {
#if defined(TI__E_SIMD)
  const ti__e_vt *vt = ti__e_pick(ctx);
  if (vt) return ti__e_mul_run(ctx, vt, d, TI__E_CAX, in, alpha, bias, out);
#endif
  (void)ctx;
  return ti_cax_ref(d, in, alpha, bias, out);
}

TASKIR_API ti_status ti_cvs(const ti_kernel_ctx *ctx, const ti_prim_desc *d,
                            const void *in, const void *bias, void *out) {
#if defined(TI__E_SIMD)
  const ti__e_vt *vt = ti__e_pick(ctx);
  if (vt) return ti__e_mul_run(ctx, vt, d, TI__E_CVS, in, 0, bias, out);
#endif
  (void)ctx;
  return ti_cvs_ref(d, in, bias, out);
}

TASKIR_API ti_status ti_cavg(const ti_kernel_ctx *ctx, const ti_prim_desc *d,
                             const void *in, const void *bias, void *out) {
#if defined(TI__E_SIMD)
  const ti__e_vt *vt = ti__e_pick(ctx);
  if (vt) return ti__e_window_run(ctx, vt, d, TI__E_SUM, in, bias, out);
#endif
  (void)ctx;
  return ti_cavg_ref(d, in, bias, out);
}

TASKIR_API ti_status ti_ccmpb(const ti_kernel_ctx *ctx, const ti_prim_desc *d, const void *in, void *out) {
#if defined(TI__E_SIMD)
  const ti__e_vt *vt = ti__e_pick(ctx);
  if (vt) return ti__e_window_run(ctx, vt, d, TI__E_MAX, in, 0, out);
#endif
  (void)ctx;
  return ti_ccmpb_ref(d, in, out);
}

TASKIR_API ti_status ti_ccmps(const ti_kernel_ctx *ctx, const ti_prim_desc *d, const void *in, void *out) {
#if defined(TI__E_SIMD)
  const ti__e_vt *vt = ti__e_pick(ctx);
  if (vt) return ti__e_window_run(ctx, vt, d, TI__E_MIN, in, 0, out);
#endif
  (void)ctx;
  return ti_ccmps_ref(d, in, out);
}

TASKIR_API ti_status ti_clut(const ti_kernel_ctx *ctx, const ti_prim_desc *d,
                             const void *in, const int32_t *lut, int32_t *out) {
#if defined(TI__E_SIMD)
  const ti__e_vt *vt = ti__e_pick(ctx);
  if (vt) {
    int64_t total;
    ti__e_job j;
    ti_status st = ti__e_check_clut(d, in, lut, out, &total);
    if (st) return st;
    memset(&j, 0, sizeof j);
    j.vt = vt; j.d = d; j.op = TI__E_CLUT; j.kind = 1; j.a = in; j.lut = lut; j.out = out;
    return ti__e_flat_run(ctx, &j);
  }
#endif
  (void)ctx;
  return ti_clut_ref(d, in, lut, out);
}

TASKIR_API ti_status ti_clif(const ti_kernel_ctx *ctx, const ti_prim_desc *d,
                             const ti_lif_params *p, const void *in,
                             int32_t *v_state, int32_t *spikes) {
#if defined(TI__E_SIMD)
  const ti__e_vt *vt = ti__e_pick(ctx);
  ti__e_lif_k k;
  int64_t total;
  ti__e_job j;
  ti_status st;
  if (!vt) return ti_clif_ref(d, p, in, v_state, spikes);
  if ((st = ti__e_lif_prep(d, p, in, v_state, spikes, &total, &k))) return st;
  /* The vector step keeps alpha * u inside int32 only for |alpha| <= 1024
     (hardware leak factors are 8-bit); beyond that the reference runs. */
  if (k.alpha < -1024 || k.alpha > 1024) return ti_clif_ref(d, p, in, v_state, spikes);
  memset(&j, 0, sizeof j);
  j.vt = vt; j.d = d; j.op = TI__E_CLIF; j.kind = 1; j.a = in; j.out = spikes; j.v = v_state; j.lk = &k;
  return ti__e_flat_run(ctx, &j);
#else
  (void)ctx;
  return ti_clif_ref(d, p, in, v_state, spikes);
#endif
}

#undef TI__E_SIMD
#undef TI__E_TILE
#undef TI__E_INL
#undef TI__E_GEN
#undef TI__E_VT

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
