/* taskir_kernels.h - v0.1.0 - reference and SIMD kernels of Task IR.

   Part of taskir (header-only C99, stb style). This header stands alone: it
   needs no other taskir header, never allocates (the caller passes every
   buffer, including scratch), never prints and includes no C library header
   (only stddef.h, stdint.h and the compiler's intrinsics headers for the
   SIMD paths), so it fits firmware built with -ffreestanding -nostdlib
   (GCC may still call memcpy, memmove, memset and memcmp, which every
   freestanding target must provide).

   DO THIS in *one* C or C++ file:
       #define TASKIR_IMPLEMENTATION
       #include "taskir_kernels.h"
   Other files include it without the define. (taskir.h includes this header,
   so one TASKIR_IMPLEMENTATION implements both.)

   EXAMPLE: a 3x3 int8 convolution
       ti_kernel_ctx ctx;
       ti_kernel_ctx_init(&ctx);            // detect SIMD once (cpuid)
       ti_prim_desc d = {0};
       d.niy = d.nix = 56; d.nr = 64; d.nf = 64; d.nky = d.nkx = 3;
       d.pad_up = d.pad_down = d.pad_left = d.pad_right = 1;
       d.ny = d.nx = 56;
       d.in_dtype = d.w_dtype = TI_DTYPE_I8; d.out_dtype = TI_DTYPE_I32;
       d.bias_mode = TI_BIAS_VECTOR;
       ti_cc_scratch_size(&d, 0, &bytes);   // then allocate scratch yourself
       ti_status s = ti_cc(&ctx, &d, in, w, bias, out, scratch, bytes);

   WHAT IS INSIDE (grep the >>anchors)
       >>kernels.common     ti_status, ti_dtype, cpu detection, the SIMD
                            variants (TI_KERNEL_VARIANTS), ti_kernel_ctx
                            (SIMD paths + optional parallel-for hook),
                            ti_prim_desc (shape/attributes of a block)
       >>kernels.tinshift   TinShift forward, adjoint backward, mmcv-compatible
                            backward
       >>kernels.conv       CC, CC2D, CVM: packed int8 (VNNI) and wide paths
       >>kernels.eltwise    CADD, CAVG, CVVH, CAX, CVS, CCMPB, CCMPS, CLUT, CLIF
       >>kernels.rearrange  the eleven edge rearrangements (parameter encoding
                            table), shape inference, N-d transpose
   Every kernel has a plain C reference twin (`_ref`); SIMD results equal it
   bit for bit. x86-64 paths (SSE2, AVX2, AVX-512, AVX-512 VNNI, AVX-VNNI)
   are chosen at run time from ctx->cpu; NEON on aarch64 at compile time.

   OPTIONS (define before the implementing include)
       TI_NODISCARD                 on every function returning a ti_status
                                    (warn_unused_result; see taskir.h)
       TASKIR_NO_SIMD               the plain C reference everywhere (global)
       TASKIR_STATIC                every function static (per translation unit)
       TASKIR_MEMCPY, TASKIR_MEMMOVE, TASKIR_MEMSET (all or none)
                                    copy/fill used by the kernels; default:
                                    the compiler's builtins (the C library's
                                    memcpy) when hosted, taskir's own loops
                                    when freestanding (__STDC_HOSTED__ == 0)
       TASKIR_MAX_WINDOW            largest pooling window in positions (65536)
       TASKIR_KERNELS_STREAM_BYTES  outputs this big use non-temporal stores
                                    (16 MiB)
       TASKIR_TINSHIFT_SPLIT_BYTES  smaller TinShift outputs are not handed
                                    to ctx->parallel_for (4 MiB)
       TASKIR_CVM_YMM_BYTES         int8 CVM weights this big take the
                                    256-bit AVX-VNNI kernel where the CPU
                                    has it, else a 512-bit one without
                                    prefetch and with aligned loads (2 MiB)
       TASKIR_CVM_MEM_BYTES         int8 CVM weights this big are read by
                                    it as four streams, not two (16 MiB)

   ERRORS
       Every kernel returns a ti_status: TI_STATUS_SUCCESS, BAD_PARAM for a
       malformed call (NULL pointer, bad dims, short buffer), NOT_SUPPORTED
       for a well-formed call the kernel does not do (a dtype, an attribute),
       LIMIT for work beyond a configured cap. Kernels never abort on bad
       arguments.

   LICENSE: MIT, see the end of this file.
*/
#ifndef TASKIR_KERNELS_H
#define TASKIR_KERNELS_H

/* The taskir version; every header defines the same (the first one included
   wins; tests/cli_version.sh checks that they agree). */
#ifndef TASKIR_VERSION_MAJOR
#define TASKIR_VERSION_MAJOR 0
#define TASKIR_VERSION_MINOR 1
#define TASKIR_VERSION_PATCH 0
#define TASKIR_VERSION_STRING "0.1.0"
#endif

#include <stddef.h>
#include <stdint.h>

#ifndef TASKIR_API
#ifdef TASKIR_STATIC
#if defined(__GNUC__) || defined(__clang__)
#define TASKIR_API static __attribute__((unused))   /* the unused ones are fine */
#else
#define TASKIR_API static
#endif
#else
#define TASKIR_API extern
#endif
#endif

/* TI_NODISCARD (overridable, like TASKIR_API) marks the public functions
   that return a ti_status: a status must be checked. */
#ifndef TI_NODISCARD
#if defined(__GNUC__) || defined(__clang__)
#define TI_NODISCARD __attribute__((warn_unused_result))
#elif defined(_Check_return_)
#define TI_NODISCARD _Check_return_
#else
#define TI_NODISCARD
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
   time fact; under TASKIR_NO_SIMD it returns 0. AMX (TI_CPU_AMXINT8) is
   detected on Linux with GCC 11+ or Clang 12+ only: ti_cpu_detect() asks the
   kernel for the process's permission to use the tile registers
   (arch_prctl ARCH_REQ_XCOMP_PERM, as every AMX user must) and sets the flag
   only when it is granted; ti_cpu_compiled() never has it. */
enum {
  TI_CPU_SSE2 = 1u << 0, TI_CPU_SSSE3 = 1u << 1, TI_CPU_SSE41 = 1u << 2,
  TI_CPU_AVX2 = 1u << 3,          /* with FMA and F16C */
  TI_CPU_AVX512 = 1u << 4,        /* F + BW + DQ + VL */
  TI_CPU_AVX512VNNI = 1u << 5, TI_CPU_AVXVNNI = 1u << 6,
  TI_CPU_AMXINT8 = 1u << 7,       /* AMX-TILE + AMX-INT8, the OS's permission granted */
  TI_CPU_NEON = 1u << 8, TI_CPU_NEON_DOTPROD = 1u << 9
};
TASKIR_API unsigned ti_cpu_detect(void);
/* The TI_CPU_* paths this translation unit was compiled to assume
   (__AVX2__, __AVX512F__, ...; SSE2 on x86-64, NEON on aarch64). */
TASKIR_API unsigned ti_cpu_compiled(void);

/* The SIMD variants of the kernels, best first, as an X-macro
   X(ID, name, cpu, need, families):
     cpu       the TI_CPU_* flags of a machine at that level: with
               ctx->cpu = cpu & ti_cpu_detect() the variant is the best one
               allowed (tests and benchmarks run every variant this way);
     need      the flags a kernel checks before it takes the variant;
     families  the TI_FAMILY_* kernel families that have the variant.
   A family takes the first variant of its own whose need is in ctx->cpu
   (and whose architecture is the build's); none: the plain C reference.
   A new variant is a row here, its target attribute (TI__T_*), its
   kernels instantiated over the SIMD layer and a case in the pick of each
   family listed; the tests and benchmarks pick it up from this list. */
enum {
  TI_FAMILY_CC = 1u << 0,        /* CC, CC2D, CVM on packed weights: int8 path */
  TI_FAMILY_CC_WIDE = 1u << 1,   /* the same, wide path: I32, U8 weights, F32 */
  TI_FAMILY_CVM = 1u << 2,       /* ti_cvm with 8-bit operands */
  TI_FAMILY_CVM_I32 = 1u << 3,   /* ti_cvm, I32 x I32 */
  TI_FAMILY_ELTWISE = 1u << 4,   /* CADD, CAVG, CVVH, CAX, CVS, CCMPB, CCMPS, CLUT, CLIF */
  TI_FAMILY_TINSHIFT = 1u << 5,  /* TinShift: vector run moves; x86: streaming stores;
                                    AVX-512: line assembly and the column path */
  TI_FAMILY_TRANSPOSE = 1u << 6  /* ti_transpose (and PERMUTE / RESHAPE): in-register blocks */
};
#define TI_KERNEL_VARIANTS(X) \
  X(AMXINT8, "amx-int8", \
    TI_CPU_SSE2 | TI_CPU_SSSE3 | TI_CPU_SSE41 | TI_CPU_AVX2 | TI_CPU_AVX512 | TI_CPU_AVX512VNNI | \
    TI_CPU_AMXINT8, TI_CPU_AVX512 | TI_CPU_AMXINT8, TI_FAMILY_CC) \
  X(AVX512VNNI, "avx512-vnni", \
    TI_CPU_SSE2 | TI_CPU_SSSE3 | TI_CPU_SSE41 | TI_CPU_AVX2 | TI_CPU_AVX512 | TI_CPU_AVX512VNNI, \
    TI_CPU_AVX512 | TI_CPU_AVX512VNNI, TI_FAMILY_CC | TI_FAMILY_CVM) \
  X(AVXVNNI, "avx-vnni", TI_CPU_SSE2 | TI_CPU_SSSE3 | TI_CPU_SSE41 | TI_CPU_AVX2 | TI_CPU_AVXVNNI, \
    TI_CPU_AVXVNNI, TI_FAMILY_CC | TI_FAMILY_CVM) \
  X(AVX512, "avx512bw", TI_CPU_SSE2 | TI_CPU_SSSE3 | TI_CPU_SSE41 | TI_CPU_AVX2 | TI_CPU_AVX512, \
    TI_CPU_AVX512, TI_FAMILY_CC | TI_FAMILY_CC_WIDE | TI_FAMILY_CVM | TI_FAMILY_CVM_I32 | TI_FAMILY_ELTWISE | \
    TI_FAMILY_TINSHIFT | TI_FAMILY_TRANSPOSE) \
  X(AVX2, "avx2", TI_CPU_SSE2 | TI_CPU_SSSE3 | TI_CPU_SSE41 | TI_CPU_AVX2, \
    TI_CPU_AVX2, TI_FAMILY_CC | TI_FAMILY_CC_WIDE | TI_FAMILY_CVM | TI_FAMILY_CVM_I32 | TI_FAMILY_ELTWISE | \
    TI_FAMILY_TINSHIFT | TI_FAMILY_TRANSPOSE) \
  X(SSE2, "sse2", TI_CPU_SSE2, \
    TI_CPU_SSE2, TI_FAMILY_CC | TI_FAMILY_CVM | TI_FAMILY_ELTWISE | TI_FAMILY_TINSHIFT | TI_FAMILY_TRANSPOSE) \
  X(NEON, "neon", TI_CPU_NEON | TI_CPU_NEON_DOTPROD, \
    TI_CPU_NEON, TI_FAMILY_CC | TI_FAMILY_CC_WIDE | TI_FAMILY_CVM | TI_FAMILY_CVM_I32 | TI_FAMILY_ELTWISE | \
    TI_FAMILY_TINSHIFT | TI_FAMILY_TRANSPOSE)
typedef enum ti_kernel_variant {
#define TI__KV_ID(id, name, cpu, need, families) TI_VARIANT_##id,
  TI_KERNEL_VARIANTS(TI__KV_ID)
#undef TI__KV_ID
  TI_VARIANT_COUNT
} ti_kernel_variant;

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

/* cpu = ti_cpu_detect(), single-threaded. Detection runs cpuid, which a
   virtual machine may trap (tens of microseconds): do it once and reuse the
   ctx. A NULL ctx given to a kernel means single-threaded with the SIMD
   paths the compiler was told it may use (-mavx2, -march=native, ...: see
   ti_cpu_compiled()), without detection. */
TASKIR_API void ti_kernel_ctx_init(ti_kernel_ctx *ctx);

/* Shape and attributes of one Task IR compute block, as the primitives take
   them. Data layouts are the Task IR storage layouts: activations [y][x][f]
   (or [f] for the 1-D forms, ny = nx = 1), conv input [niy][nix][nr],
   weights [nf][nr][nky][nkx], FC weights [nf][nr], bias [nf] int32. */
/* Also a Task IR block's bias_type: VECTOR and CONSTANT are the wire's
   BiasType values (taskir.h pins them). */
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
   of up to 64 bytes are one fixed-size move each: below the streaming size
   runs of 32 and 64 bytes row by row (the output in order), shorter ones
   and streamed ones group by group within each image (at the row stride);
   longer ones go row by row, neighbouring
   groups with equal shifts merged: below the streaming size (data in
   cache) one memcpy / memset per stretch of runs that are contiguous in
   both input and output (rows and images too, e.g. G = 1) or all
   zero-filled, nothing prefetched, or, for runs (G > 1) up
   to a cap per SIMD variant (TI_FAMILY_TINSHIFT: AVX-512 4 KiB, 2 KiB
   for outputs over 512 KiB, 1 KiB over 1 MiB; AVX2 1 KiB,
   SSE2 and NEON 256 B), inline vector moves with no branch per run, the
   stores aligned to the output's vectors where that aligns the loads too;
   with AVX-512, runs of whole lines (256 B up to the cap, 8 KiB in outputs
   up to 512 KiB) at the same offset to a line in input and output are
   written line by line, every store aligned. Outputs
   of at least
   TASKIR_KERNELS_STREAM_BYTES (define before the implementing include;
   default 16 MiB) are written with non-temporal stores on x86-64, runs under
   16 KiB then in source order so that reads stay sequential; with AVX-512,
   runs of 64 bytes to 4 KiB are instead assembled into whole 64-byte lines
   in registers and streamed, with the input prefetched ahead, and longer
   runs go in source order with 64-byte streaming stores. Runs of 16,
   32 or 48 bytes in rows of whole lines (e.g. HW = 1, C/G = 8) go, with
   AVX-512 and a 16-byte aligned output, column by column: each line is
   four 16-byte loads at addresses that step by one row, with no branch per
   run (16-byte runs in cache too). ctx->cpu == 0 (ti_tinshift_ex) keeps to
   plain C. Outputs below TASKIR_TINSHIFT_SPLIT_BYTES (4 MiB) are not
   split over ctx->parallel_for. */
/* Most dims of a tensor, one cap for every header: kernel descriptors,
   rearrangements and taskir.h's interned types. */
#define TI_MAX_RANK 8

/* A dense row-major tensor: dims[0] slowest, dims[ndim - 1] fastest. */
typedef struct ti_tensor_desc {
  ti_dtype dtype;
  int32_t ndim;                       /* 0..TI_MAX_RANK */
  int64_t dims[TI_MAX_RANK];
} ti_tensor_desc;

/* Fills d (dims beyond ndim zeroed; at most TI_MAX_RANK copied, the
   ndim given is kept so a bad one is reported by the kernel). */
TASKIR_API void ti_tensor_desc_set(ti_tensor_desc *d, ti_dtype dtype, int32_t ndim,
                                   const int64_t *dims);

typedef enum ti_tinshift_mode {
  TI_TINSHIFT_FORWARD = 0,       /* out[t] = in[t - s] */
  TI_TINSHIFT_BACKWARD,          /* adjoint: grad_in[t] = grad_out[t + s] */
  TI_TINSHIFT_BACKWARD_COMPAT,   /* mmcv / mlu-ops: grad_in[t] = grad_out[t - s] */
  TI_TINSHIFT_MODE_COUNT
} ti_tinshift_mode;

TASKIR_API TI_NODISCARD ti_status ti_tinshift_forward(const ti_tensor_desc *input_desc, const void *input,
                                         const ti_tensor_desc *shifts_desc, const void *shifts,
                                         const ti_tensor_desc *output_desc, void *output);
TASKIR_API TI_NODISCARD ti_status ti_tinshift_backward(const ti_tensor_desc *grad_output_desc,
                                          const void *grad_output,
                                          const ti_tensor_desc *shifts_desc, const void *shifts,
                                          const ti_tensor_desc *grad_input_desc, void *grad_input);
/* Backward as mmcv / mlu-ops compute it (forward with +s); for validation. */
TASKIR_API TI_NODISCARD ti_status ti_tinshift_backward_compat(const ti_tensor_desc *grad_output_desc,
                                                 const void *grad_output,
                                                 const ti_tensor_desc *shifts_desc,
                                                 const void *shifts,
                                                 const ti_tensor_desc *grad_input_desc,
                                                 void *grad_input);
/* All three, with a kernel context (parallel_for splits the N*T output rows
   of outputs of TASKIR_TINSHIFT_SPLIT_BYTES or more; NULL ctx =
   single-threaded). src/dst are input/output (forward) or
   grad_output/grad_input (backward). */
TASKIR_API TI_NODISCARD ti_status ti_tinshift_ex(const ti_kernel_ctx *ctx, ti_tinshift_mode mode,
                                    const ti_tensor_desc *src_desc, const void *src,
                                    const ti_tensor_desc *shifts_desc, const void *shifts,
                                    const ti_tensor_desc *dst_desc, void *dst);

/* >>kernels.conv: CC, CC2D, CVM ------------------------------------------ */

/* Dot-product primitives. Semantics (SPEC section 2):

     CC, CC2D   out[y][x][f] = B(f) + sum over ky, kx, r of
                  in[y*sy + ky*dy - pad_up][x*sx + kx*dx - pad_left][r] * W[f][r][ky][kx]
                in [niy][nix][nr] zero-padded, W [nf][nr][nky][nkx], out [ny][nx][nf]
     CVM        out[f] = B(f) + sum over r of W[f][r] * in[r]
                in [nr], W [nf][nr], out [nf]

   B(f) is bias[f] (bias_mode VECTOR), constant_b (CONSTANT) or 0 (NONE).
   CC and CC2D compute the same thing; ti_cc2d* are aliases of ti_cc*.

   Element types (d->in_dtype, d->w_dtype):
     integer: any of I8, U8, TERNARY (-1/0/1 stored as int8; any int8 value is
              taken as is), I32 for each; output and vector bias int32. All
              arithmetic is two's-complement modulo 2^32: long or I32
              reductions wrap, identically in every path, so SIMD results are
              bit-identical to the reference. d->out_dtype may name any
              integer precision: integers are carried in 32 bits and storage
              does not saturate (requantise with CCMPB/CCMPS).
     float:   F32 input, weights, bias and output (out_dtype F32). Taps in
              the padding are skipped and each output sums bias, then ky, kx,
              r in that order in every path, so results equal the reference
              when the compiler does not fuse a*b+c (ISO C mode, e.g.
              -std=c99, or -ffp-contract=off).
   Other combinations give TI_STATUS_NOT_SUPPORTED.

   Descriptor fields used: CC: ny nx nf nr nky nkx niy nix, stride_y/x and
   dilation_y/x (0 means 1), pad_up/down/left/right (>= 0), dtypes, bias_mode,
   constant_b; ny must equal (niy + pad_up + pad_down - (nky-1)*dy - 1)/sy + 1
   and nx likewise, else BAD_PARAM. CVM: nf, nr, dtypes, bias_mode,
   constant_b (other fields ignored). Non-positive dims, NULL pointers,
   short buffers, sizes past 2^48 elements: BAD_PARAM. Buffers of int32 and
   float elements must be aligned for their type; packed weights and
   scratch need no alignment, but packed weights at a 64-byte boundary run
   faster (the AMX and AVX-512 kernels read them in 64-byte rows, and a row
   off a line reads two lines: an AMX conv measured 1.5x slower off a
   line); ti_cc places its own packing there inside its scratch.

   Paths (ctx->cpu picks at run time on x86-64, NEON is compile-time):
     CC, 8-bit input x I8/TERNARY weights: implicit GEMM over weights
       reblocked into 16-channel groups of 4 bytes; AMX-INT8 tdpbusd on tiles
       of 16 pixels x 16 channels (taps of 8 to 16 4-byte groups or a
       multiple of 16, stride along x up to 2, at least 16 outputs with
       tiles at least half full); AVX-512 VNNI and AVX-VNNI
       vpdpbusd (input offset by +128 to unsigned, exact per-channel
       correction), AVX-512BW / AVX2 / SSE2 pmaddwd, NEON sdot or smull.
       Tiles of 5, 6 or 12 output pixels x up to 4 vectors of channels
       (AVX-512 VNNI). When a quarter or more of the outputs are on the
       border, those skip the taps that read only padding; otherwise tiles
       on the top and bottom output rows skip the window rows in the
       padding. One thread pads the input band by band (about 64 KiB of
       rows) just before the tiles that read each band. Few input
       channels (nr % 4 != 0, nr < 16, undilated columns): the 4-byte
       groups run along a window row (kx, r) instead of within each tap.
       Short windows (nky*nkx*nr <= 64 bytes) where that rounding still
       wastes more dot products than copying costs: the whole window is one
       reduction, read from im2col rows built per block of 64 pixels
       (112x112x3 3x3: 7 groups per pixel, not 9).
     CC, other types: per pixel, channels across lanes (AVX-512, AVX2, NEON).
     CC and CVM, I32 input x I8/TERNARY weights: the input is scanned; when
       every value fits -128..127 or 0..255 it is narrowed and takes the
       int8 kernels (same sums, exactly), else the wide path.
     CVM: row dots straight from [nf][nr], two or four rows at a time
       from as many parts of the rows, so that W is read as a few
       sequential streams (bandwidth bound, no packing):
       int8 types as above, I32 x I32 with wrapping multiplies; F32 and
       other mixes use the reference in ti_cvm, and the wide CC path
       through ti_cvm_as_cc + ti_cc_packed.
   Pack once at plan time and run many times:

     size_t pb, sb;
     ti_cc_pack_size(&d, &pb);                 // bytes of the packed weights
     ti_cc_pack_weights(&d, w, packed, pb);    // any supported dtype
     ti_cc_scratch_size(&d, 1, &sb);           // 1: scratch for ti_cc_packed
     ti_cc_packed(&ctx, &d, in, packed, pb, bias, out, scratch, sb);

   ti_cc does the same from plain weights, packing into its scratch on each
   call (size from ti_cc_scratch_size(&d, 0, &sb)). Sizes do not depend on
   ctx, so one plan fits every CPU; the packed layout is private to this
   header (checked against the descriptor: BAD_PARAM on mismatch). Work is
   cut into (channel tile x pixel tile) items for CC and 16-row items for CVM
   and handed to ctx->parallel_for when set. */
TASKIR_API TI_NODISCARD ti_status ti_cc_scratch_size(const ti_prim_desc *d, int weights_packed, size_t *bytes);
TASKIR_API TI_NODISCARD ti_status ti_cc_pack_size(const ti_prim_desc *d, size_t *bytes);
TASKIR_API TI_NODISCARD ti_status ti_cc_pack_weights(const ti_prim_desc *d, const void *w,
                                        void *packed, size_t packed_bytes);
TASKIR_API TI_NODISCARD ti_status ti_cc(const ti_kernel_ctx *ctx, const ti_prim_desc *d, const void *in,
                           const void *w, const void *bias, void *out,
                           void *scratch, size_t scratch_bytes);
TASKIR_API TI_NODISCARD ti_status ti_cc_packed(const ti_kernel_ctx *ctx, const ti_prim_desc *d,
                                  const void *in, const void *packed, size_t packed_bytes,
                                  const void *bias, void *out,
                                  void *scratch, size_t scratch_bytes);
/* Plain C reference: straight loops over the formula, no scratch. */
TASKIR_API TI_NODISCARD ti_status ti_cc_ref(const ti_prim_desc *d, const void *in, const void *w,
                               const void *bias, void *out);

TASKIR_API TI_NODISCARD ti_status ti_cc2d_scratch_size(const ti_prim_desc *d, int weights_packed, size_t *bytes);
TASKIR_API TI_NODISCARD ti_status ti_cc2d_pack_size(const ti_prim_desc *d, size_t *bytes);
TASKIR_API TI_NODISCARD ti_status ti_cc2d_pack_weights(const ti_prim_desc *d, const void *w,
                                          void *packed, size_t packed_bytes);
TASKIR_API TI_NODISCARD ti_status ti_cc2d(const ti_kernel_ctx *ctx, const ti_prim_desc *d, const void *in,
                             const void *w, const void *bias, void *out,
                             void *scratch, size_t scratch_bytes);
TASKIR_API TI_NODISCARD ti_status ti_cc2d_packed(const ti_kernel_ctx *ctx, const ti_prim_desc *d,
                                    const void *in, const void *packed, size_t packed_bytes,
                                    const void *bias, void *out,
                                    void *scratch, size_t scratch_bytes);
TASKIR_API TI_NODISCARD ti_status ti_cc2d_ref(const ti_prim_desc *d, const void *in, const void *w,
                                 const void *bias, void *out);

/* CVM scratch is optional: with the bytes ti_cvm_scratch_size gives (nr for
   I32 input with I8/TERNARY weights, else 0), I32 input that fits 8 bits is
   narrowed there and takes the int8 kernels; with less (or NULL) the same
   results come from the reference loops. */
TASKIR_API TI_NODISCARD ti_status ti_cvm_scratch_size(const ti_prim_desc *d, size_t *bytes);
TASKIR_API TI_NODISCARD ti_status ti_cvm(const ti_kernel_ctx *ctx, const ti_prim_desc *d, const void *in,
                            const void *w, const void *bias, void *out,
                            void *scratch, size_t scratch_bytes);
TASKIR_API TI_NODISCARD ti_status ti_cvm_ref(const ti_prim_desc *d, const void *in, const void *w,
                                const void *bias, void *out);
/* The CVM as the identical 1x1 CC on a 1x1 image with nr channels (same
   buffers). Use it to run a CVM on packed weights through ti_cc_packed:
   worth it for F32 (vectorised over channels in the reference's order) and
   for the other types ti_cvm leaves to the reference. */
TASKIR_API TI_NODISCARD ti_status ti_cvm_as_cc(const ti_prim_desc *cvm, ti_prim_desc *cc);

/* >>kernels.eltwise: CADD, CAVG, CVVH, CAX, CVS, CCMPB, CCMPS, CLUT, CLIF -- */

/* Element-wise and window primitives of Task IR (the block table of SPEC
   section 2).

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

   Desc fields read, besides ny, nx, nf, in_dtype, out_dtype: CADD n_branch,
   bias_mode, constant_b; CVVH, CAX also w_dtype; CVS constant_a; CAVG,
   CCMPB, CCMPS niy, nix, nky, nkx, stride_*, pad_*, dilation_* (0 or 1);
   CAVG bias_mode, constant_b; CCMPB, CCMPS cmp, bit_shift; CLUT lut_dw.

   Float results are deterministic: sums start from the first operand
   (CADD: in_0 + in_1 + ...; CAVG: 0.0f + window elements in ky-major,
   kx-minor order, padding skipped), the bias is added last, a product and
   its bias are never fused; max/min keep the running value unless the new
   element compares strictly greater/less (NaN elements are skipped).

   out never overlaps an input (CLIF: v_state is read and written in place;
   spikes overlaps nothing). No function allocates; stack use is <= 8 KiB.
   With ctx->parallel_for the work goes out as tiles of up to 512 elements
   (element-wise blocks) or output rows (windowed blocks).

   ti_X() runs the fastest path allowed by ctx->cpu (NULL ctx: detected cpu);
   ti_X_ref() is the plain C reference. Both give bit-identical results.
   Status: BAD_PARAM for NULL pointers, dims < 1, sizes whose byte count
   overflows size_t, a window inconsistent with niy/nix/pads/stride,
   negative pads/strides, bit_shift outside 0..31, lut_dw outside 1..16, bad
   enum values; NOT_SUPPORTED for other dtypes or combinations, dilation
   other than 0/1 on windowed blocks, a nonzero bit_shift with F32; LIMIT
   for a window of more than TASKIR_MAX_WINDOW (default 65536) positions
   nky * nkx, so a hostile block cannot ask for hours of padding. */
#ifndef TASKIR_MAX_WINDOW
#define TASKIR_MAX_WINDOW 65536
#endif

/* CADD: out = in_0 + ... + in_{n_branch-1} + bias. All n_branch >= 1 inputs
   share in_dtype. nky/nkx/niy/nix are ignored. */
TASKIR_API TI_NODISCARD ti_status ti_cadd(const ti_kernel_ctx *ctx, const ti_prim_desc *d,
                             const void *const *inputs, const void *bias, void *out);
TASKIR_API TI_NODISCARD ti_status ti_cadd_ref(const ti_prim_desc *d, const void *const *inputs,
                                 const void *bias, void *out);

/* CAVG: out[y][x][f] = SUM (not mean) over the nky x nkx window at
   (y*stride_y - pad_up, x*stride_x - pad_left) of the zero-padded input,
   + bias. Exact integer sum (wraps modulo 2^32). */
TASKIR_API TI_NODISCARD ti_status ti_cavg(const ti_kernel_ctx *ctx, const ti_prim_desc *d,
                             const void *in, const void *bias, void *out);
TASKIR_API TI_NODISCARD ti_status ti_cavg_ref(const ti_prim_desc *d, const void *in,
                                 const void *bias, void *out);

/* CVVH: out = a * b + bias; a has in_dtype, b has w_dtype (integer with
   integer, F32 with F32). */
TASKIR_API TI_NODISCARD ti_status ti_cvvh(const ti_kernel_ctx *ctx, const ti_prim_desc *d,
                             const void *a, const void *b, const void *bias, void *out);
TASKIR_API TI_NODISCARD ti_status ti_cvvh_ref(const ti_prim_desc *d, const void *a, const void *b,
                                 const void *bias, void *out);

/* CAX: out[y][x][f] = in[y][x][f] * alpha[f] + bias; alpha has w_dtype. */
TASKIR_API TI_NODISCARD ti_status ti_cax(const ti_kernel_ctx *ctx, const ti_prim_desc *d,
                            const void *in, const void *alpha, const void *bias, void *out);
TASKIR_API TI_NODISCARD ti_status ti_cax_ref(const ti_prim_desc *d, const void *in, const void *alpha,
                                const void *bias, void *out);

/* CVS: out = in * constant_a + bias (constant_a converted to float for F32). */
TASKIR_API TI_NODISCARD ti_status ti_cvs(const ti_kernel_ctx *ctx, const ti_prim_desc *d,
                            const void *in, const void *bias, void *out);
TASKIR_API TI_NODISCARD ti_status ti_cvs_ref(const ti_prim_desc *d, const void *in,
                                const void *bias, void *out);

/* CCMPB, integer: m = max over the window of the zero-padded input (a
   padded position counts as 0), r = m >> bit_shift (arithmetic: rounds
   towards minus infinity), out = min(max(r, cmp), hi) with hi = 127 for a
   1x1 window (the 1x1 / 1-D requantisation form, whatever the precision),
   else by out_dtype: I8 127, U8 255, TERNARY 1, I9 255, I16 32767,
   U16 65535, I32 2^31-1 (others NOT_SUPPORTED).
   out holds out_dtype's storage, written directly (no int32 pass): int8_t
   for I8 and TERNARY, uint8_t for U8, int16_t for I16 and I9, uint16_t for
   U16, int32_t for I32 (ti_ccmpb_out_size). A result below the storage's
   minimum (only when cmp is) keeps its low bits, as storage never
   saturates. The vector path accumulates narrow outputs a tile (512 values)
   at a time; a window (other than 1x1) over more channels than that runs
   the reference.
   F32: out = max(cmp, window elements) as the seed-000 loop (bit_shift 0). */
TASKIR_API TI_NODISCARD ti_status ti_ccmpb(const ti_kernel_ctx *ctx, const ti_prim_desc *d,
                              const void *in, void *out);
TASKIR_API TI_NODISCARD ti_status ti_ccmpb_ref(const ti_prim_desc *d, const void *in, void *out);
/* Bytes of one element of CCMPB's out for this desc (1, 2 or 4; 4 for F32
   and for dtypes CCMPB refuses). */
TASKIR_API size_t ti_ccmpb_out_size(const ti_prim_desc *d);
/* CCMPB's upper clip bound hi for an integer desc (above); 0 when
   out_dtype is one CCMPB refuses. */
TASKIR_API int32_t ti_ccmpb_max(const ti_prim_desc *d);

/* CCMPS, integer: m = cmp, then m = min(m, e) for each window element e
   (padding counts as 0) as the seed-000 loop, r = m >> bit_shift
   (arithmetic), out = clip(r, -128, 127). F32: out = min(cmp, window
   elements), no shift and no clip. */
TASKIR_API TI_NODISCARD ti_status ti_ccmps(const ti_kernel_ctx *ctx, const ti_prim_desc *d,
                              const void *in, void *out);
TASKIR_API TI_NODISCARD ti_status ti_ccmps_ref(const ti_prim_desc *d, const void *in, void *out);

/* CLUT: out = lut[v & (2^lut_dw - 1)]: the input value v (integer in_dtype)
   read as an unsigned lut_dw-bit index, so a negative v indexes
   v + 2^lut_dw. lut holds 2^lut_dw int32 entries; lut_dw is 1..16. */
TASKIR_API TI_NODISCARD ti_status ti_clut(const ti_kernel_ctx *ctx, const ti_prim_desc *d,
                             const void *in, const int32_t *lut, int32_t *out);
TASKIR_API TI_NODISCARD ti_status ti_clut_ref(const ti_prim_desc *d, const void *in,
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
     spikes[i] = FIRE_TYPE 4 or 5: spike (0/1); 0: v; 1: the new v_state
   With ti_lif_params_init's defaults (VL = -2^27, VTHETA_CONST_EN = 0,
   RESET_MODE 0, FIRE_TYPE 4, TW_EN 0) this is exactly SPEC section 2:
   v = clamp28(v_prev + in); spike = v > VTH0; fired -> VR; leak; clamp28.
   The rest follows the chip's LIF primitive (28-bit registers, VL floor,
   reset modes, time window).
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
/* The parameter rules of ti_clif, in one place: SUCCESS, BAD_PARAM (a value
   outside its range) or NOT_SUPPORTED (a feature the kernel lacks). On a
   failure *field names the parameter by its attribute name ("FIRE_TYPE",
   "VTH0", ...) and *value gives its value (either pointer may be NULL). */
TASKIR_API TI_NODISCARD ti_status ti_lif_params_check(const ti_lif_params *p, const char **field, int32_t *value);

TASKIR_API TI_NODISCARD ti_status ti_clif(const ti_kernel_ctx *ctx, const ti_prim_desc *d,
                             const ti_lif_params *p, const void *in,
                             int32_t *v_state, int32_t *spikes);
TASKIR_API TI_NODISCARD ti_status ti_clif_ref(const ti_prim_desc *d, const ti_lif_params *p,
                                 const void *in, int32_t *v_state, int32_t *spikes);

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
/* (ti_rearrange_kind, the kinds with their wire values, is in the shared
   types at the top of this header.) */

enum { TI_SHIFT_ZERO = 0, TI_SHIFT_CYCLIC = 1 };  /* SHIFT m[1] modes */

/* "IDENTITY", "RESHAPE", ... (the wire names); NULL for an unknown kind. */
TASKIR_API const char *ti_rearrange_kind_name(ti_rearrange_kind kind);

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
   must hold TI_MAX_RANK. BAD_PARAM for malformed parameters or dims,
   NOT_SUPPORTED for an unknown kind. */
TASKIR_API TI_NODISCARD ti_status ti_rearrange_infer(ti_rearrange_kind kind, const ti_rearrange_param *p, int np, int ndim,
                                        const int64_t *in_dims, int *out_ndim, int64_t *out_dims);
/* The same; *reason (when reason is not NULL) gets a static message saying
   what is wrong, or NULL on success. */
TASKIR_API TI_NODISCARD ti_status ti_rearrange_infer_ex(ti_rearrange_kind kind, const ti_rearrange_param *p, int np,
                                           int ndim, const int64_t *in_dims, int *out_ndim,
                                           int64_t *out_dims, const char **reason);

/* Applies one rearrangement. out_dims may be any shape with the volume of
   the inferred output (the result is the inferred-shape result in row-major
   order, i.e. an implicit reshape). elem_size is 1, 2, 4 or 8. */
TASKIR_API TI_NODISCARD ti_status ti_rearrange_apply(ti_rearrange_kind kind, const ti_rearrange_param *p, int np,
                                        size_t elem_size, int ndim, const int64_t *in_dims,
                                        const void *in, int out_ndim, const int64_t *out_dims,
                                        void *out);
/* The same with a kernel context: parallel_for splits the output rows
   (ROTATE, REFLECT, SHIFT, SCALE, SHUFFLE), the plane rows (SHEAR, AFFINE,
   PROJECT) or, for IDENTITY, 256 KiB pieces; RESHAPE and PERMUTE are
   ti_transpose_ex. NULL ctx: as ti_rearrange_apply. */
TASKIR_API TI_NODISCARD ti_status ti_rearrange_apply_ex(const ti_kernel_ctx *ctx, ti_rearrange_kind kind,
                                           const ti_rearrange_param *p, int np, size_t elem_size,
                                           int ndim, const int64_t *in_dims, const void *in,
                                           int out_ndim, const int64_t *out_dims, void *out);

/* N-d transpose: out has dims in_dims[perm[0]], ..., in_dims[perm[ndim-1]]
   and out[i_0]..[i_{ndim-1}] = in[...] with input axis perm[k] indexed by
   i_k (numpy transpose). ndim 1..8, elem_size 1, 2, 4 or 8. Size-1 axes are
   dropped and axes adjacent in both orders merged first (a kept innermost
   run of 2, 4 or 8 bytes becomes the element). When the innermost output
   axis and the innermost input axis each hold at least 32 bytes, the two
   are transposed in tiles of up to a line x a line of SIMD in-register
   blocks (edges by the next narrower block, then element moves)
   (TI_FAMILY_TRANSPOSE: 16 x 16 with AVX-512, 8 x 8 with AVX2, 4 x 4 with
   SSE2 / NEON for 4-byte elements; 8 x 8 for 1- and 2-byte, 2 x 2 for
   8-byte). Otherwise the output is made of gather tiles spanning the
   innermost output axes (~1 KiB rows) and the innermost input axes (~256-byte
   runs; a kept innermost axis is copied in whole runs, <= 16 KiB a tile,
   and runs of >= 128 bytes one memcpy each with the output in order),
   walked as an odometer without a division per element. */
TASKIR_API TI_NODISCARD ti_status ti_transpose(size_t elem_size, int ndim, const int64_t *in_dims,
                                  const int *perm, const void *in, void *out);
/* With a kernel context: parallel_for splits the tiles; the variant is
   the first of TI_KERNEL_VARIANTS with TI_FAMILY_TRANSPOSE that ctx->cpu
   allows (0: plain C; ti_transpose, with no ctx, runs no cpuid and takes
   what the compiler targets, see ti_cpu_compiled). Outputs of at least
   TASKIR_KERNELS_STREAM_BYTES use non-temporal stores on x86-64 where the
   blocks write pieces of lines (SSE2, AVX2); whole-line AVX-512 blocks
   (4-byte elements) store them non-temporally when the output's rows hold
   whole lines: in 64 x 64 blocks when the output's rows are the far-apart
   ones (NHWC->NCHW), as strips of 16 input rows 1024 elements long when
   the input's are (NCHW->NHWC). AVX-512 blocks start where the lines of
   the output's and the input's rows do. Every variant gives the same
   bytes. */
TASKIR_API TI_NODISCARD ti_status ti_transpose_ex(const ti_kernel_ctx *ctx, size_t elem_size, int ndim,
                                     const int64_t *in_dims, const int *perm, const void *in,
                                     void *out);

#ifdef __cplusplus
}
#endif
#endif /* TASKIR_KERNELS_H */

/* ======================================================================== */
#if defined(TASKIR_IMPLEMENTATION) && !defined(TASKIR_KERNELS_IMPL_INCLUDED)
#define TASKIR_KERNELS_IMPL_INCLUDED

/* >>kernels.impl.common -------------------------------------------------- */

/* Copy, move and fill. This header includes no C library header, so it
   builds where there is none (firmware, -ffreestanding -nostdinc).
   TASKIR_MEMCPY, TASKIR_MEMMOVE and TASKIR_MEMSET (all or none, with the
   signatures of memcpy, memmove and memset) replace the defaults:
     hosted GCC/Clang    __builtin_memcpy/memmove/memset: inline for small
                         fixed sizes, the C library's routines otherwise (the
                         same code as calling memcpy)
     hosted, others      memcpy/memmove/memset from <string.h>
     freestanding        taskir's own loops (ti__fs_copy, ti__fs_move,
     (__STDC_HOSTED__ 0) ti__fs_fill), so the kernels need no C library */
#if defined(TASKIR_MEMCPY) || defined(TASKIR_MEMMOVE) || defined(TASKIR_MEMSET)
#if !defined(TASKIR_MEMCPY) || !defined(TASKIR_MEMMOVE) || !defined(TASKIR_MEMSET)
#error "taskir_kernels.h: define all or none of TASKIR_MEMCPY, TASKIR_MEMMOVE and TASKIR_MEMSET"
#endif
#elif !defined(__STDC_HOSTED__) || __STDC_HOSTED__
#if defined(__GNUC__) || defined(__clang__)
#define TASKIR_MEMCPY(d, s, n) __builtin_memcpy((d), (s), (n))
#define TASKIR_MEMMOVE(d, s, n) __builtin_memmove((d), (s), (n))
#define TASKIR_MEMSET(d, c, n) __builtin_memset((d), (c), (n))
#else
#include <string.h>
#define TASKIR_MEMCPY(d, s, n) memcpy((d), (s), (n))
#define TASKIR_MEMMOVE(d, s, n) memmove((d), (s), (n))
#define TASKIR_MEMSET(d, c, n) memset((d), (c), (n))
#endif
#else
#define TI__FS_MEM 1
#define TASKIR_MEMCPY(d, s, n) ti__fs_copy((d), (s), (n))
#define TASKIR_MEMMOVE(d, s, n) ti__fs_move((d), (s), (n))
#define TASKIR_MEMSET(d, c, n) ti__fs_fill((d), (c), (n))
#endif
#define ti__memcpy TASKIR_MEMCPY
#define ti__memmove TASKIR_MEMMOVE
#define ti__memset TASKIR_MEMSET

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

/* Target attributes, one per x86-64 ISA level the kernels use: a function
   marked with one may use that level's intrinsics whatever the translation
   unit's -m flags; it runs only when ctx->cpu has the level's TI_CPU_* flags.
   GCC and Clang need them; MSVC compiles every intrinsic anywhere, so they
   are empty there. SSE2 is the x86-64 baseline. */
#if defined(TI__X86) && (defined(__GNUC__) || defined(__clang__))
#define TI__T_SSE2
#define TI__T_AVX2 __attribute__((target("avx2")))
#define TI__T_AVXVNNI __attribute__((target("avx2,avxvnni")))
#define TI__T_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq")))
#define TI__T_VNNI512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni")))
#if defined(__linux__) && ((defined(__clang__) && __clang_major__ >= 12) || \
                           (!defined(__clang__) && __GNUC__ >= 11))
#define TI__AMX 1   /* AMX tile intrinsics, and the permission syscall */
#define TI__T_AMX __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni,amx-tile,amx-int8")))
#endif
#elif defined(TI__X86)
#define TI__T_SSE2
#define TI__T_AVX2
#define TI__T_AVXVNNI
#define TI__T_AVX512
#define TI__T_VNNI512
#endif

/* Static helper; unused-safe under -Wall. */
#if defined(__GNUC__) || defined(__clang__)
#define TI__PRIVATE static __attribute__((unused))
#else
#define TI__PRIVATE static
#endif

#if defined(TI__FS_MEM)
/* The freestanding copy, move and fill: byte loops, which compilers unroll
   and widen; fixed-size calls compile to plain loads and stores. */
TI__PRIVATE void *ti__fs_copy(void *d, const void *s, size_t n) {
  unsigned char *p = (unsigned char *)d;
  const unsigned char *q = (const unsigned char *)s;
  size_t i;
  for (i = 0; i < n; ++i) p[i] = q[i];
  return d;
}
TI__PRIVATE void *ti__fs_move(void *d, const void *s, size_t n) {
  unsigned char *p = (unsigned char *)d;
  const unsigned char *q = (const unsigned char *)s;
  if ((uintptr_t)p < (uintptr_t)q) return ti__fs_copy(d, s, n);
  while (n > 0) { --n; p[n] = q[n]; }
  return d;
}
TI__PRIVATE void *ti__fs_fill(void *d, int c, size_t n) {
  unsigned char *p = (unsigned char *)d;
  size_t i;
  for (i = 0; i < n; ++i) p[i] = (unsigned char)c;
  return d;
}
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
    unsigned b7, c7, d7, a71;
    ti__cpuid(7, 0, r); b7 = r[1]; c7 = r[2]; d7 = r[3];
    (void)d7;   /* AMX bits, read only where TI__AMX */
    ti__cpuid(7, 1, r); a71 = r[0];
    if ((b7 & (1u << 5)) && (ecx1 & (1u << 12)) && (ecx1 & (1u << 29))) f |= TI_CPU_AVX2;
    if ((f & TI_CPU_AVX2) && (a71 & (1u << 4))) f |= TI_CPU_AVXVNNI;
    if ((xcr0 & 0xe0) == 0xe0 && (b7 & (1u << 16)) && (b7 & (1u << 17)) &&
        (b7 & (1u << 30)) && (b7 & (1u << 31))) {
      f |= TI_CPU_AVX512;
      if (c7 & (1u << 11)) f |= TI_CPU_AVX512VNNI;
#if defined(TI__AMX)
      /* AMX-TILE and AMX-INT8, the tile state enabled in XCR0, and the
         process's permission to use it (Linux: ARCH_REQ_XCOMP_PERM for
         XFEATURE_XTILEDATA; granted once, asking again is harmless) */
      if ((d7 & (3u << 24)) == (3u << 24) && (xcr0 & 0x60000u) == 0x60000u) {
        long ret;
        __asm__ volatile("syscall" : "=a"(ret) : "0"(158L), "D"(0x1023L), "S"(18L) : "rcx", "r11", "memory");
        if (ret == 0) f |= TI_CPU_AMXINT8;
      }
#endif
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

/* A plain copy of n bytes, through the parallel-for in 256 KiB pieces. */
typedef struct ti__pcopy_job { unsigned char *d; const unsigned char *s; size_t n; } ti__pcopy_job;
#define TI__PCOPY_PIECE ((int64_t)1 << 18)
TI__PRIVATE void ti__pcopy_range(void *arg, int64_t k0, int64_t k1) {
  const ti__pcopy_job *j = (const ti__pcopy_job *)arg;
  const size_t b0 = (size_t)(k0 * TI__PCOPY_PIECE);
  const size_t b1 = (size_t)(k1 * TI__PCOPY_PIECE) < j->n ? (size_t)(k1 * TI__PCOPY_PIECE) : j->n;
  ti__memcpy(j->d + b0, j->s + b0, b1 - b0);
}
TI__PRIVATE void ti__pcopy(const ti_kernel_ctx *ctx, void *d, const void *s, size_t n) {
  ti__pcopy_job j;
  j.d = (unsigned char *)d; j.s = (const unsigned char *)s; j.n = n;
  ti__parallel(ctx, (int64_t)((n + (size_t)TI__PCOPY_PIECE - 1) / (size_t)TI__PCOPY_PIECE), ti__pcopy_range, &j);
}

TASKIR_API unsigned ti_cpu_compiled(void) {
  unsigned f = 0;
#if defined(TI__X86)
  f |= TI_CPU_SSE2;
#if defined(__SSSE3__)
  f |= TI_CPU_SSSE3;
#endif
#if defined(__SSE4_1__)
  f |= TI_CPU_SSE41;
#endif
#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
  f |= TI_CPU_AVX2;
#if defined(__AVXVNNI__)
  f |= TI_CPU_AVXVNNI;
#endif
#endif
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512DQ__) && defined(__AVX512VL__)
  f |= TI_CPU_AVX512;
#if defined(__AVX512VNNI__)
  f |= TI_CPU_AVX512VNNI;
#endif
#endif
#elif defined(TI__NEON)
  f |= TI_CPU_NEON;
#if defined(__ARM_FEATURE_DOTPROD)
  f |= TI_CPU_NEON_DOTPROD;
#endif
#endif
  return f;
}

/* cpu flags a kernel may use (see ti_kernel_ctx_init on a NULL ctx). */
TI__PRIVATE unsigned ti__cpu(const ti_kernel_ctx *ctx) {
  return ctx ? ctx->cpu : ti_cpu_compiled();
}

/* The variant a kernel family takes under cpu flags: the first row of
   TI_KERNEL_VARIANTS of that family, of this build's architecture, whose
   needs cpu meets; -1 for none (the reference). */
TI__PRIVATE int ti__variant(unsigned cpu, unsigned family) {
#define TI__KV_ROW(id, name, c, need, families) {need, families},
  static const unsigned rows[TI_VARIANT_COUNT][2] = {TI_KERNEL_VARIANTS(TI__KV_ROW)};
#undef TI__KV_ROW
  int v;
#if defined(TI__X86)
  cpu &= ~(unsigned)(TI_CPU_NEON | TI_CPU_NEON_DOTPROD);
#elif defined(TI__NEON)
  cpu &= (unsigned)(TI_CPU_NEON | TI_CPU_NEON_DOTPROD);
#else
  cpu = 0;
#endif
  for (v = 0; v < TI_VARIANT_COUNT; v++)
    if ((rows[v][1] & family) && (cpu & rows[v][0]) == rows[v][0]) return v;
  return -1;
}


/* >>kernels.impl.simd ---------------------------------------------------- */

/* The SIMD layer: one small vocabulary per ISA, ti__v<P>_* with P = s (SSE2),
   a (AVX2), z (AVX-512 F/BW/VL/DQ), n (NEON), every function carrying its
   level's target attribute. Every family (conv, CVM, element-wise, TinShift) writes its
   loops once over these names and instantiates them per ISA, so an
   operation's spelling per ISA lives here only. vi holds W int32 lanes, vf W
   floats; ld/st move W int32 (ldb loads the same bytes from any pointer:
   byte data only, int32 or float elements go through ld, which reads them
   in the target's byte order; stn stores the first n lanes), set1
   broadcasts a value, bc4 the 4 bytes at p (byte k of every lane = p[k],
   in either byte order), vadd/vmul/mla wrap modulo 2^32, vsra
   shifts arithmetically, selgt(a, b, x, y) is a > b ? x : y, selneg(m, x, y) is m < 0 ? x : y, ld_i8w/ld_u8w widen W
   bytes, gather reads lut[idx], vfmax(x, acc)/vfmin keep acc unless x
   compares strictly greater/less, asf/asi reinterpret bits, dot4 adds the
   dot products of 4-byte groups (x86: u8 x s8; NEON: s8 x s8), dpbusd is
   the VNNI instruction, rsum sums the lanes. Data movement (TinShift): stb
   stores the vector's bytes anywhere, sta to an address aligned to the
   vector's size, stnt there with a non-temporal (streaming) store (NEON: a
   plain one), st8/st16 store the low 8/16 bits of each lane as W bytes /
   W 16-bit elements (narrowing by truncation, like a C cast), ldbk loads
   bytes from anywhere, all zero unless keep (0 or -1) is -1, fence orders streaming stores before later stores (x86:
   sfence, once for SSE2 and wider). */
#if defined(__GNUC__) || defined(__clang__)
#define TI__V_INL static inline __attribute__((unused))
#define TI__V_BLK static inline __attribute__((unused, always_inline))
#define TI__NOINLINE __attribute__((noinline))
/* x's value hidden from the optimizer, which then keeps it in a register
   as it is instead of folding it into the multiples it derives */
#define TI__OPAQUE(x) __asm__("" : "+r"(x))
#else
#define TI__V_INL static __inline
#define TI__V_BLK static __inline
#define TI__NOINLINE
#define TI__OPAQUE(x) ((void)0)
#endif

#if defined(TI__X86)
/* SSE2 (x86-64 baseline): no 32-bit multiply, max/min or blend; emulated. */
enum { ti__vs_W = 4 };
typedef __m128i ti__vs_vi;
typedef __m128 ti__vs_vf;
TI__V_INL __m128i ti__vs_ld(const int32_t *p) { return _mm_loadu_si128((const __m128i *)(const void *)p); }
TI__V_INL void ti__vs_st(int32_t *p, __m128i v) { _mm_storeu_si128((__m128i *)(void *)p, v); }
TI__V_INL __m128i ti__vs_set1(int32_t c) { return _mm_set1_epi32(c); }
TI__V_INL __m128i ti__vs_vadd(__m128i a, __m128i b) { return _mm_add_epi32(a, b); }
TI__V_INL __m128i ti__vs_vmul(__m128i a, __m128i b) {
  __m128i e = _mm_mul_epu32(a, b), o = _mm_mul_epu32(_mm_srli_epi64(a, 32), _mm_srli_epi64(b, 32));
  return _mm_unpacklo_epi32(_mm_shuffle_epi32(e, 8), _mm_shuffle_epi32(o, 8));
}
TI__V_INL __m128i ti__vs_blend(__m128i m, __m128i x, __m128i y) {   /* m ? x : y */
  return _mm_or_si128(_mm_and_si128(m, x), _mm_andnot_si128(m, y));
}
TI__V_INL __m128i ti__vs_vmax(__m128i a, __m128i b) { return ti__vs_blend(_mm_cmpgt_epi32(a, b), a, b); }
TI__V_INL __m128i ti__vs_vmin(__m128i a, __m128i b) { return ti__vs_blend(_mm_cmpgt_epi32(b, a), a, b); }
TI__V_INL __m128i ti__vs_vsra(__m128i v, int s) { return _mm_sra_epi32(v, _mm_cvtsi32_si128(s)); }
TI__V_INL __m128i ti__vs_vand(__m128i a, __m128i b) { return _mm_and_si128(a, b); }
TI__V_INL __m128i ti__vs_vxor(__m128i a, __m128i b) { return _mm_xor_si128(a, b); }
TI__V_INL __m128i ti__vs_selgt(__m128i a, __m128i b, __m128i x, __m128i y) {
  return ti__vs_blend(_mm_cmpgt_epi32(a, b), x, y);
}
TI__V_INL __m128i ti__vs_selneg(__m128i m, __m128i x, __m128i y) {
  return ti__vs_blend(_mm_srai_epi32(m, 31), x, y);
}
TI__V_INL __m128i ti__vs_ld_i8w(const int8_t *p) {
  int32_t t; __m128i x;
  ti__memcpy(&t, p, 4);
  x = _mm_cvtsi32_si128(t);
  x = _mm_unpacklo_epi8(x, x);
  return _mm_srai_epi32(_mm_unpacklo_epi16(x, x), 24);
}
TI__V_INL __m128i ti__vs_ld_u8w(const uint8_t *p) {
  int32_t t; __m128i z = _mm_setzero_si128();
  ti__memcpy(&t, p, 4);
  return _mm_unpacklo_epi16(_mm_unpacklo_epi8(_mm_cvtsi32_si128(t), z), z);
}
TI__V_INL __m128i ti__vs_gather(const int32_t *lut, __m128i idx) {
  int32_t t[4];
  _mm_storeu_si128((__m128i *)(void *)t, idx);
  return _mm_set_epi32(lut[t[3]], lut[t[2]], lut[t[1]], lut[t[0]]);
}
TI__V_INL __m128 ti__vs_ldf(const float *p) { return _mm_loadu_ps(p); }
TI__V_INL void ti__vs_stf(float *p, __m128 v) { _mm_storeu_ps(p, v); }
TI__V_INL __m128 ti__vs_set1f(float c) { return _mm_set1_ps(c); }
TI__V_INL __m128 ti__vs_vfadd(__m128 a, __m128 b) { return _mm_add_ps(a, b); }
TI__V_INL __m128 ti__vs_vfmul(__m128 a, __m128 b) { return _mm_mul_ps(a, b); }
TI__V_INL __m128 ti__vs_vfmax(__m128 x, __m128 acc) { return _mm_max_ps(x, acc); }  /* x > acc ? x : acc */
TI__V_INL __m128 ti__vs_vfmin(__m128 x, __m128 acc) { return _mm_min_ps(x, acc); }
TI__V_INL __m128i ti__vs_zero(void) { return _mm_setzero_si128(); }
TI__V_INL __m128i ti__vs_ldb(const void *p) { return _mm_loadu_si128((const __m128i *)p); }
TI__V_INL __m128i ti__vs_ldbk(const void *p, int64_t keep) { return _mm_and_si128(_mm_loadu_si128((const __m128i *)p), _mm_set1_epi32((int32_t)keep)); }
TI__V_INL void ti__vs_stb(void *p, __m128i v) { _mm_storeu_si128((__m128i *)p, v); }
TI__V_INL void ti__vs_sta(void *p, __m128i v) { _mm_store_si128((__m128i *)p, v); }
TI__V_INL void ti__vs_stnt(void *p, __m128i v) { _mm_stream_si128((__m128i *)p, v); }
TI__V_INL void ti__vs_fence(void) { _mm_sfence(); }
/* prefetch into L2 and outward (t1) or close to the core only (nta); the
   address may be past any buffer (a prefetch never faults) */
TI__V_INL void ti__vs_pft1(uintptr_t p) { _mm_prefetch((const char *)p, _MM_HINT_T1); }
TI__V_INL void ti__vs_pfnta(uintptr_t p) { _mm_prefetch((const char *)p, _MM_HINT_NTA); }
TI__V_INL __m128i ti__vs_bc4(const void *p) { int32_t v; ti__memcpy(&v, p, 4); return _mm_set1_epi32(v); }
TI__V_INL void ti__vs_stn(void *o, __m128i v, int64_t n) {   /* the first n lanes (all if n >= W) */
  if (n >= 4) _mm_storeu_si128((__m128i *)o, v);
  else { uint32_t t[4]; int64_t i; _mm_storeu_si128((__m128i *)(void *)t, v); for (i = 0; i < n; i++) ((uint32_t *)o)[i] = t[i]; }
}
TI__V_INL void ti__vs_st8(void *p, __m128i v) {
  __m128i b = _mm_and_si128(v, _mm_set1_epi32(0xff));
  int32_t t;
  b = _mm_packs_epi32(b, b);
  t = _mm_cvtsi128_si32(_mm_packus_epi16(b, b));
  ti__memcpy(p, &t, 4);
}
TI__V_INL void ti__vs_st16(void *p, __m128i v) {
  __m128i h = _mm_srai_epi32(_mm_slli_epi32(v, 16), 16);
  _mm_storel_epi64((__m128i *)p, _mm_packs_epi32(h, h));
}
TI__V_INL __m128i ti__vs_mla(__m128i c, __m128i a, __m128i b) { return _mm_add_epi32(c, ti__vs_vmul(a, b)); }
TI__V_INL __m128 ti__vs_asf(__m128i v) { return _mm_castsi128_ps(v); }
TI__V_INL __m128i ti__vs_asi(__m128 v) { return _mm_castps_si128(v); }
/* u8 x s8 dot of 4-byte groups added to int32 lanes (what vpdpbusd does)
   through pmaddwd on even and odd bytes; exact (|sum| < 2^17 per pair). */
TI__V_INL __m128i ti__vs_dot4(__m128i acc, __m128i a, __m128i w) {
  __m128i we = _mm_srai_epi16(_mm_slli_epi16(w, 8), 8), wo = _mm_srai_epi16(w, 8);
  __m128i ae = _mm_and_si128(a, _mm_set1_epi16(0xff)), ao = _mm_srli_epi16(a, 8);
  return _mm_add_epi32(acc, _mm_add_epi32(_mm_madd_epi16(ae, we), _mm_madd_epi16(ao, wo)));
}
/* sum of the int32 lanes, modulo 2^32 */
TI__V_INL uint32_t ti__vs_rsum(__m128i v) {
  v = _mm_add_epi32(v, _mm_shuffle_epi32(v, 0x4e));
  v = _mm_add_epi32(v, _mm_shuffle_epi32(v, 0xb1));
  return (uint32_t)_mm_cvtsi128_si32(v);
}

/* Transpose blocks: trE(s, sp, d, so) moves a square block of E-byte
   elements, row r of the source (at s + r*sp) becoming column r of the
   destination (rows at d + c*so); strides in bytes, any alignment. Only
   shuffles: the bits move unchanged. SSE2: 8 x 8 bytes, 8 x 8 16-bit,
   4 x 4 32-bit, 2 x 2 64-bit. */
#define TI__VS_L(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define TI__VS_S(p, v) _mm_storeu_si128((__m128i *)(void *)(p), (v))
#define TI__VS_L8(p) _mm_loadl_epi64((const __m128i *)(const void *)(p))
#define TI__VS_S8(p, v) _mm_storel_epi64((__m128i *)(void *)(p), (v))
TI__V_BLK void ti__vs_tr1(const unsigned char *s, size_t sp, unsigned char *d, size_t so) {
  const __m128i a0 = _mm_unpacklo_epi8(TI__VS_L8(s), TI__VS_L8(s + sp));
  const __m128i a1 = _mm_unpacklo_epi8(TI__VS_L8(s + 2 * sp), TI__VS_L8(s + 3 * sp));
  const __m128i a2 = _mm_unpacklo_epi8(TI__VS_L8(s + 4 * sp), TI__VS_L8(s + 5 * sp));
  const __m128i a3 = _mm_unpacklo_epi8(TI__VS_L8(s + 6 * sp), TI__VS_L8(s + 7 * sp));
  const __m128i b0 = _mm_unpacklo_epi16(a0, a1), b1 = _mm_unpackhi_epi16(a0, a1);
  const __m128i b2 = _mm_unpacklo_epi16(a2, a3), b3 = _mm_unpackhi_epi16(a2, a3);
  const __m128i c0 = _mm_unpacklo_epi32(b0, b2), c1 = _mm_unpackhi_epi32(b0, b2);
  const __m128i c2 = _mm_unpacklo_epi32(b1, b3), c3 = _mm_unpackhi_epi32(b1, b3);
  TI__VS_S8(d, c0); TI__VS_S8(d + so, _mm_unpackhi_epi64(c0, c0));
  TI__VS_S8(d + 2 * so, c1); TI__VS_S8(d + 3 * so, _mm_unpackhi_epi64(c1, c1));
  TI__VS_S8(d + 4 * so, c2); TI__VS_S8(d + 5 * so, _mm_unpackhi_epi64(c2, c2));
  TI__VS_S8(d + 6 * so, c3); TI__VS_S8(d + 7 * so, _mm_unpackhi_epi64(c3, c3));
}
TI__V_BLK void ti__vs_tr2(const unsigned char *s, size_t sp, unsigned char *d, size_t so) {
  const __m128i r0 = TI__VS_L(s), r1 = TI__VS_L(s + sp), r2 = TI__VS_L(s + 2 * sp), r3 = TI__VS_L(s + 3 * sp);
  const __m128i r4 = TI__VS_L(s + 4 * sp), r5 = TI__VS_L(s + 5 * sp), r6 = TI__VS_L(s + 6 * sp), r7 = TI__VS_L(s + 7 * sp);
  const __m128i a0 = _mm_unpacklo_epi16(r0, r1), a1 = _mm_unpackhi_epi16(r0, r1);
  const __m128i a2 = _mm_unpacklo_epi16(r2, r3), a3 = _mm_unpackhi_epi16(r2, r3);
  const __m128i a4 = _mm_unpacklo_epi16(r4, r5), a5 = _mm_unpackhi_epi16(r4, r5);
  const __m128i a6 = _mm_unpacklo_epi16(r6, r7), a7 = _mm_unpackhi_epi16(r6, r7);
  const __m128i b0 = _mm_unpacklo_epi32(a0, a2), b1 = _mm_unpackhi_epi32(a0, a2);
  const __m128i b2 = _mm_unpacklo_epi32(a1, a3), b3 = _mm_unpackhi_epi32(a1, a3);
  const __m128i b4 = _mm_unpacklo_epi32(a4, a6), b5 = _mm_unpackhi_epi32(a4, a6);
  const __m128i b6 = _mm_unpacklo_epi32(a5, a7), b7 = _mm_unpackhi_epi32(a5, a7);
  TI__VS_S(d, _mm_unpacklo_epi64(b0, b4)); TI__VS_S(d + so, _mm_unpackhi_epi64(b0, b4));
  TI__VS_S(d + 2 * so, _mm_unpacklo_epi64(b1, b5)); TI__VS_S(d + 3 * so, _mm_unpackhi_epi64(b1, b5));
  TI__VS_S(d + 4 * so, _mm_unpacklo_epi64(b2, b6)); TI__VS_S(d + 5 * so, _mm_unpackhi_epi64(b2, b6));
  TI__VS_S(d + 6 * so, _mm_unpacklo_epi64(b3, b7)); TI__VS_S(d + 7 * so, _mm_unpackhi_epi64(b3, b7));
}
TI__V_BLK void ti__vs_tr4(const unsigned char *s, size_t sp, unsigned char *d, size_t so) {
  const __m128i r0 = TI__VS_L(s), r1 = TI__VS_L(s + sp), r2 = TI__VS_L(s + 2 * sp), r3 = TI__VS_L(s + 3 * sp);
  const __m128i t0 = _mm_unpacklo_epi32(r0, r1), t1 = _mm_unpacklo_epi32(r2, r3);
  const __m128i t2 = _mm_unpackhi_epi32(r0, r1), t3 = _mm_unpackhi_epi32(r2, r3);
  TI__VS_S(d, _mm_unpacklo_epi64(t0, t1)); TI__VS_S(d + so, _mm_unpackhi_epi64(t0, t1));
  TI__VS_S(d + 2 * so, _mm_unpacklo_epi64(t2, t3)); TI__VS_S(d + 3 * so, _mm_unpackhi_epi64(t2, t3));
}
TI__V_BLK void ti__vs_tr8(const unsigned char *s, size_t sp, unsigned char *d, size_t so) {
  const __m128i r0 = TI__VS_L(s), r1 = TI__VS_L(s + sp);
  TI__VS_S(d, _mm_unpacklo_epi64(r0, r1)); TI__VS_S(d + so, _mm_unpackhi_epi64(r0, r1));
}

/* AVX2. */
enum { ti__va_W = 8 };
typedef __m256i ti__va_vi;
typedef __m256 ti__va_vf;
TI__T_AVX2 TI__V_INL __m256i ti__va_ld(const int32_t *p) { return _mm256_loadu_si256((const __m256i *)(const void *)p); }
TI__T_AVX2 TI__V_INL void ti__va_st(int32_t *p, __m256i v) { _mm256_storeu_si256((__m256i *)(void *)p, v); }
TI__T_AVX2 TI__V_INL __m256i ti__va_set1(int32_t c) { return _mm256_set1_epi32(c); }
TI__T_AVX2 TI__V_INL __m256i ti__va_vadd(__m256i a, __m256i b) { return _mm256_add_epi32(a, b); }
TI__T_AVX2 TI__V_INL __m256i ti__va_vmul(__m256i a, __m256i b) { return _mm256_mullo_epi32(a, b); }
TI__T_AVX2 TI__V_INL __m256i ti__va_vmax(__m256i a, __m256i b) { return _mm256_max_epi32(a, b); }
TI__T_AVX2 TI__V_INL __m256i ti__va_vmin(__m256i a, __m256i b) { return _mm256_min_epi32(a, b); }
TI__T_AVX2 TI__V_INL __m256i ti__va_vsra(__m256i v, int s) { return _mm256_sra_epi32(v, _mm_cvtsi32_si128(s)); }
TI__T_AVX2 TI__V_INL __m256i ti__va_vand(__m256i a, __m256i b) { return _mm256_and_si256(a, b); }
TI__T_AVX2 TI__V_INL __m256i ti__va_vxor(__m256i a, __m256i b) { return _mm256_xor_si256(a, b); }
TI__T_AVX2 TI__V_INL __m256i ti__va_selgt(__m256i a, __m256i b, __m256i x, __m256i y) {
  return _mm256_blendv_epi8(y, x, _mm256_cmpgt_epi32(a, b));
}
TI__T_AVX2 TI__V_INL __m256i ti__va_selneg(__m256i m, __m256i x, __m256i y) {
  return _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(y), _mm256_castsi256_ps(x),
                                              _mm256_castsi256_ps(m)));
}
TI__T_AVX2 TI__V_INL __m256i ti__va_ld_i8w(const int8_t *p) {
  return _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)p));
}
TI__T_AVX2 TI__V_INL __m256i ti__va_ld_u8w(const uint8_t *p) {
  return _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)p));
}
TI__T_AVX2 TI__V_INL __m256i ti__va_gather(const int32_t *lut, __m256i idx) {
  return _mm256_i32gather_epi32((const int *)(const void *)lut, idx, 4);
}
TI__T_AVX2 TI__V_INL __m256 ti__va_ldf(const float *p) { return _mm256_loadu_ps(p); }
TI__T_AVX2 TI__V_INL void ti__va_stf(float *p, __m256 v) { _mm256_storeu_ps(p, v); }
TI__T_AVX2 TI__V_INL __m256 ti__va_set1f(float c) { return _mm256_set1_ps(c); }
TI__T_AVX2 TI__V_INL __m256 ti__va_vfadd(__m256 a, __m256 b) { return _mm256_add_ps(a, b); }
TI__T_AVX2 TI__V_INL __m256 ti__va_vfmul(__m256 a, __m256 b) { return _mm256_mul_ps(a, b); }
TI__T_AVX2 TI__V_INL __m256 ti__va_vfmax(__m256 x, __m256 acc) { return _mm256_max_ps(x, acc); }
TI__T_AVX2 TI__V_INL __m256 ti__va_vfmin(__m256 x, __m256 acc) { return _mm256_min_ps(x, acc); }
TI__T_AVX2 TI__V_INL __m256i ti__va_zero(void) { return _mm256_setzero_si256(); }
TI__T_AVX2 TI__V_INL __m256i ti__va_ldb(const void *p) { return _mm256_loadu_si256((const __m256i *)p); }
TI__T_AVX2 TI__V_INL __m256i ti__va_ldbk(const void *p, int64_t keep) {
  return _mm256_and_si256(_mm256_loadu_si256((const __m256i *)p), _mm256_set1_epi32((int32_t)keep));
}
TI__T_AVX2 TI__V_INL void ti__va_stb(void *p, __m256i v) { _mm256_storeu_si256((__m256i *)p, v); }
TI__T_AVX2 TI__V_INL void ti__va_sta(void *p, __m256i v) { _mm256_store_si256((__m256i *)p, v); }
TI__T_AVX2 TI__V_INL void ti__va_stnt(void *p, __m256i v) { _mm256_stream_si256((__m256i *)p, v); }
TI__T_AVX2 TI__V_INL __m256i ti__va_bc4(const void *p) { int32_t v; ti__memcpy(&v, p, 4); return _mm256_set1_epi32(v); }
TI__T_AVX2 TI__V_INL void ti__va_stn(void *o, __m256i v, int64_t n) {
  if (n >= 8) _mm256_storeu_si256((__m256i *)o, v);
  else {
    __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    _mm256_maskstore_epi32((int *)o, m, v);
  }
}
TI__T_AVX2 TI__V_INL void ti__va_st8(void *p, __m256i v) {   /* pack within each 128-bit half, then join */
  __m256i b = _mm256_and_si256(v, _mm256_set1_epi32(0xff));
  b = _mm256_packs_epi32(b, b);
  b = _mm256_permutevar8x32_epi32(_mm256_packus_epi16(b, b), _mm256_setr_epi32(0, 4, 0, 4, 0, 4, 0, 4));
  _mm_storel_epi64((__m128i *)p, _mm256_castsi256_si128(b));
}
TI__T_AVX2 TI__V_INL void ti__va_st16(void *p, __m256i v) {
  __m256i h = _mm256_srai_epi32(_mm256_slli_epi32(v, 16), 16);
  h = _mm256_permute4x64_epi64(_mm256_packs_epi32(h, h), 0x08);
  _mm_storeu_si128((__m128i *)p, _mm256_castsi256_si128(h));
}
TI__T_AVX2 TI__V_INL __m256i ti__va_mla(__m256i c, __m256i a, __m256i b) { return _mm256_add_epi32(c, _mm256_mullo_epi32(a, b)); }
TI__T_AVX2 TI__V_INL __m256 ti__va_asf(__m256i v) { return _mm256_castsi256_ps(v); }
TI__T_AVX2 TI__V_INL __m256i ti__va_asi(__m256 v) { return _mm256_castps_si256(v); }
TI__T_AVX2 TI__V_INL __m256i ti__va_dot4(__m256i acc, __m256i a, __m256i w) {
  __m256i we = _mm256_srai_epi16(_mm256_slli_epi16(w, 8), 8), wo = _mm256_srai_epi16(w, 8);
  __m256i ae = _mm256_and_si256(a, _mm256_set1_epi16(0xff)), ao = _mm256_srli_epi16(a, 8);
  return _mm256_add_epi32(acc, _mm256_add_epi32(_mm256_madd_epi16(ae, we), _mm256_madd_epi16(ao, wo)));
}
/* AVX-VNNI: vpdpbusd on 8 lanes (VEX encoding) */
TI__T_AVXVNNI TI__V_INL __m256i ti__va_dpbusd(__m256i acc, __m256i a, __m256i w) { return _mm256_dpbusd_avx_epi32(acc, a, w); }
TI__T_AVX2 TI__V_INL uint32_t ti__va_rsum(__m256i v) {
  return ti__vs_rsum(_mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1)));
}

/* 8 x 8 32-bit transpose block (see ti__vs_tr4). */
TI__T_AVX2 TI__V_BLK void ti__va_tr4(const unsigned char *s, size_t sp, unsigned char *d, size_t so) {
#define TI__VA_L(k) _mm256_loadu_si256((const __m256i *)(const void *)(s + (k) * sp))
#define TI__VA_S(k, v) _mm256_storeu_si256((__m256i *)(void *)(d + (k) * so), (v))
  const __m256i r0 = TI__VA_L(0), r1 = TI__VA_L(1), r2 = TI__VA_L(2), r3 = TI__VA_L(3);
  const __m256i r4 = TI__VA_L(4), r5 = TI__VA_L(5), r6 = TI__VA_L(6), r7 = TI__VA_L(7);
  const __m256i t0 = _mm256_unpacklo_epi32(r0, r1), t1 = _mm256_unpackhi_epi32(r0, r1);
  const __m256i t2 = _mm256_unpacklo_epi32(r2, r3), t3 = _mm256_unpackhi_epi32(r2, r3);
  const __m256i t4 = _mm256_unpacklo_epi32(r4, r5), t5 = _mm256_unpackhi_epi32(r4, r5);
  const __m256i t6 = _mm256_unpacklo_epi32(r6, r7), t7 = _mm256_unpackhi_epi32(r6, r7);
  const __m256i u0 = _mm256_unpacklo_epi64(t0, t2), u1 = _mm256_unpackhi_epi64(t0, t2);
  const __m256i u2 = _mm256_unpacklo_epi64(t1, t3), u3 = _mm256_unpackhi_epi64(t1, t3);
  const __m256i u4 = _mm256_unpacklo_epi64(t4, t6), u5 = _mm256_unpackhi_epi64(t4, t6);
  const __m256i u6 = _mm256_unpacklo_epi64(t5, t7), u7 = _mm256_unpackhi_epi64(t5, t7);
  TI__VA_S(0, _mm256_permute2x128_si256(u0, u4, 0x20)); TI__VA_S(1, _mm256_permute2x128_si256(u1, u5, 0x20));
  TI__VA_S(2, _mm256_permute2x128_si256(u2, u6, 0x20)); TI__VA_S(3, _mm256_permute2x128_si256(u3, u7, 0x20));
  TI__VA_S(4, _mm256_permute2x128_si256(u0, u4, 0x31)); TI__VA_S(5, _mm256_permute2x128_si256(u1, u5, 0x31));
  TI__VA_S(6, _mm256_permute2x128_si256(u2, u6, 0x31)); TI__VA_S(7, _mm256_permute2x128_si256(u3, u7, 0x31));
#undef TI__VA_L
#undef TI__VA_S
}

/* AVX-512 (F, BW, VL, DQ). The all-lanes masked forms avoid g++ 12's false
   maybe-uninitialized warning on the unmasked intrinsics' undefined source. */
#define TI__V_K16 ((__mmask16)0xffff)
enum { ti__vz_W = 16 };
typedef __m512i ti__vz_vi;
typedef __m512 ti__vz_vf;
TI__T_AVX512 TI__V_INL __m512i ti__vz_ld(const int32_t *p) { return _mm512_loadu_si512((const void *)p); }
TI__T_AVX512 TI__V_INL void ti__vz_st(int32_t *p, __m512i v) { _mm512_storeu_si512((void *)p, v); }
TI__T_AVX512 TI__V_INL __m512i ti__vz_set1(int32_t c) { return _mm512_set1_epi32(c); }
TI__T_AVX512 TI__V_INL __m512i ti__vz_vadd(__m512i a, __m512i b) { return _mm512_add_epi32(a, b); }
TI__T_AVX512 TI__V_INL __m512i ti__vz_vmul(__m512i a, __m512i b) { return _mm512_mullo_epi32(a, b); }
TI__T_AVX512 TI__V_INL __m512i ti__vz_vmax(__m512i a, __m512i b) { return _mm512_maskz_max_epi32(TI__V_K16, a, b); }
TI__T_AVX512 TI__V_INL __m512i ti__vz_vmin(__m512i a, __m512i b) { return _mm512_maskz_min_epi32(TI__V_K16, a, b); }
TI__T_AVX512 TI__V_INL __m512i ti__vz_vsra(__m512i v, int s) { return _mm512_maskz_sra_epi32(TI__V_K16, v, _mm_cvtsi32_si128(s)); }
TI__T_AVX512 TI__V_INL __m512i ti__vz_vand(__m512i a, __m512i b) { return _mm512_and_si512(a, b); }
TI__T_AVX512 TI__V_INL __m512i ti__vz_vxor(__m512i a, __m512i b) { return _mm512_xor_si512(a, b); }
TI__T_AVX512 TI__V_INL __m512i ti__vz_selgt(__m512i a, __m512i b, __m512i x, __m512i y) {
  return _mm512_mask_blend_epi32(_mm512_cmpgt_epi32_mask(a, b), y, x);
}
TI__T_AVX512 TI__V_INL __m512i ti__vz_selneg(__m512i m, __m512i x, __m512i y) {
  return _mm512_mask_blend_epi32(_mm512_movepi32_mask(m), y, x);
}
TI__T_AVX512 TI__V_INL __m512i ti__vz_ld_i8w(const int8_t *p) {
  return _mm512_maskz_cvtepi8_epi32(TI__V_K16, _mm_loadu_si128((const __m128i *)(const void *)p));
}
TI__T_AVX512 TI__V_INL __m512i ti__vz_ld_u8w(const uint8_t *p) {
  return _mm512_maskz_cvtepu8_epi32(TI__V_K16, _mm_loadu_si128((const __m128i *)(const void *)p));
}
TI__T_AVX512 TI__V_INL __m512i ti__vz_gather(const int32_t *lut, __m512i idx) {
  return _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), TI__V_K16, idx, (const void *)lut, 4);
}
TI__T_AVX512 TI__V_INL __m512 ti__vz_ldf(const float *p) { return _mm512_loadu_ps(p); }
TI__T_AVX512 TI__V_INL void ti__vz_stf(float *p, __m512 v) { _mm512_storeu_ps(p, v); }
TI__T_AVX512 TI__V_INL __m512 ti__vz_set1f(float c) { return _mm512_set1_ps(c); }
TI__T_AVX512 TI__V_INL __m512 ti__vz_vfadd(__m512 a, __m512 b) { return _mm512_add_ps(a, b); }
TI__T_AVX512 TI__V_INL __m512 ti__vz_vfmul(__m512 a, __m512 b) { return _mm512_mul_ps(a, b); }
TI__T_AVX512 TI__V_INL __m512 ti__vz_vfmax(__m512 x, __m512 acc) { return _mm512_maskz_max_ps(TI__V_K16, x, acc); }
TI__T_AVX512 TI__V_INL __m512 ti__vz_vfmin(__m512 x, __m512 acc) { return _mm512_maskz_min_ps(TI__V_K16, x, acc); }
TI__T_AVX512 TI__V_INL __m512i ti__vz_zero(void) { return _mm512_setzero_si512(); }
TI__T_AVX512 TI__V_INL __m512i ti__vz_ldb(const void *p) { return _mm512_loadu_si512(p); }
TI__T_AVX512 TI__V_INL __m512i ti__vz_ldbk(const void *p, int64_t keep) { return _mm512_maskz_loadu_epi32((__mmask16)keep, p); }
TI__T_AVX512 TI__V_INL void ti__vz_stb(void *p, __m512i v) { _mm512_storeu_si512(p, v); }
TI__T_AVX512 TI__V_INL void ti__vz_sta(void *p, __m512i v) { _mm512_store_si512(p, v); }
TI__T_AVX512 TI__V_INL void ti__vz_stnt(void *p, __m512i v) { _mm512_stream_si512((__m512i *)p, v); }
/* AVX-512 only: byte-masked loads (zeroing; masked-off bytes neither load
   nor fault) and stores, 64-bit-lane masked loads (merging) and stores, a
   line from four 16-byte pieces, and the 64-bit lane arithmetic of
   TinShift's column tables (lanes are int64; cmp* return lane masks). */
typedef __mmask64 ti__vz_m64;
typedef __mmask8 ti__vz_m8;
TI__T_AVX512 TI__V_INL __m512i ti__vz_ldz8(__mmask64 m, const void *p) { return _mm512_maskz_loadu_epi8(m, p); }
TI__T_AVX512 TI__V_INL void ti__vz_stm8(void *p, __mmask64 m, __m512i v) { _mm512_mask_storeu_epi8(p, m, v); }
TI__T_AVX512 TI__V_INL __m512i ti__vz_ldm64(__m512i v, __mmask8 m, const void *p) { return _mm512_mask_loadu_epi64(v, m, p); }
TI__T_AVX512 TI__V_INL void ti__vz_stm64(void *p, __mmask8 m, __m512i v) { _mm512_mask_storeu_epi64(p, m, v); }
TI__T_AVX512 TI__V_INL __m512i ti__vz_vor(__m512i a, __m512i b) { return _mm512_or_si512(a, b); }
TI__T_AVX512 TI__V_INL __m512i ti__vz_ld4x16(const void *p0, const void *p1, const void *p2, const void *p3) {
  __m512i v = _mm512_zextsi128_si512(_mm_loadu_si128((const __m128i *)p0));
  v = _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i *)p1), 1);
  v = _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i *)p2), 2);
  return _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i *)p3), 3);
}
TI__T_AVX512 TI__V_INL __m512i ti__vz_set1_64(int64_t c) { return _mm512_set1_epi64((long long)c); }
TI__T_AVX512 TI__V_INL __m512i ti__vz_iota64(void) { return _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0); }
TI__T_AVX512 TI__V_INL __m512i ti__vz_vadd64(__m512i a, __m512i b) { return _mm512_add_epi64(a, b); }
TI__T_AVX512 TI__V_INL __m512i ti__vz_vsub64(__m512i a, __m512i b) { return _mm512_sub_epi64(a, b); }
TI__T_AVX512 TI__V_INL __m512i ti__vz_vmin64(__m512i a, __m512i b) { return _mm512_maskz_min_epi64((__mmask8)0xff, a, b); }
TI__T_AVX512 TI__V_INL __m512i ti__vz_vmax64(__m512i a, __m512i b) { return _mm512_maskz_max_epi64((__mmask8)0xff, a, b); }
TI__T_AVX512 TI__V_INL __m512i ti__vz_vshl64(__m512i a, unsigned k) { return _mm512_maskz_slli_epi64((__mmask8)0xff, a, k); }
/* the low 32 bits of each lane, signed, times those of b */
TI__T_AVX512 TI__V_INL __m512i ti__vz_vmul32x64(__m512i a, __m512i b) { return _mm512_maskz_mul_epi32((__mmask8)0xff, a, b); }
/* 8 int32 at p (the first n, n <= 8; the rest 0) widened to int64 lanes */
TI__T_AVX512 TI__V_INL __m512i ti__vz_ld_i32w64(const int32_t *p, unsigned n) {
  return _mm512_maskz_cvtepi32_epi64((__mmask8)0xff, _mm256_maskz_loadu_epi32((__mmask8)((1u << n) - 1u), p));
}
/* int64 lanes 0..3 of p, each repeated for two lanes */
TI__T_AVX512 TI__V_INL __m512i ti__vz_ld4x64x2(const int64_t *p) {
  return _mm512_maskz_permutexvar_epi64((__mmask8)0xff, _mm512_set_epi64(3, 3, 2, 2, 1, 1, 0, 0),
                                        _mm512_maskz_loadu_epi64((__mmask8)0x0f, p));
}
/* lanes where lo <= t < hi */
TI__T_AVX512 TI__V_INL __mmask8 ti__vz_inrange64(__m512i lo, __m512i t, __m512i hi) {
  return _mm512_mask_cmplt_epi64_mask(_mm512_cmple_epi64_mask(lo, t), t, hi);
}
TI__T_AVX512 TI__V_INL __m512i ti__vz_keep64(__mmask8 m, __m512i v) { return _mm512_maskz_mov_epi64(m, v); }
TI__T_AVX512 TI__V_INL __m512i ti__vz_ldz32(__mmask16 m, const void *p) { return _mm512_maskz_loadu_epi32(m, p); }
TI__T_AVX512 TI__V_INL __m512i ti__vz_bc4(const void *p) { int32_t v; ti__memcpy(&v, p, 4); return _mm512_set1_epi32(v); }
TI__T_AVX512 TI__V_INL void ti__vz_stn(void *o, __m512i v, int64_t n) {
  if (n >= 16) _mm512_storeu_si512(o, v);
  else _mm512_mask_storeu_epi32(o, (__mmask16)((1u << n) - 1u), v);
}
TI__T_AVX512 TI__V_INL void ti__vz_st8(void *p, __m512i v) { _mm_storeu_si128((__m128i *)p, _mm512_cvtepi32_epi8(v)); }
TI__T_AVX512 TI__V_INL void ti__vz_st16(void *p, __m512i v) { _mm256_storeu_si256((__m256i *)p, _mm512_cvtepi32_epi16(v)); }
TI__T_AVX512 TI__V_INL __m512i ti__vz_mla(__m512i c, __m512i a, __m512i b) { return _mm512_add_epi32(c, _mm512_mullo_epi32(a, b)); }
TI__T_AVX512 TI__V_INL __m512 ti__vz_asf(__m512i v) { return _mm512_castsi512_ps(v); }
TI__T_AVX512 TI__V_INL __m512i ti__vz_asi(__m512 v) { return _mm512_castps_si512(v); }
TI__T_AVX512 TI__V_INL __m512i ti__vz_dot4(__m512i acc, __m512i a, __m512i w) {
  __m512i we = _mm512_srai_epi16(_mm512_slli_epi16(w, 8), 8), wo = _mm512_srai_epi16(w, 8);
  __m512i ae = _mm512_and_si512(a, _mm512_set1_epi16(0xff)), ao = _mm512_srli_epi16(a, 8);
  return _mm512_add_epi32(acc, _mm512_add_epi32(_mm512_madd_epi16(ae, we), _mm512_madd_epi16(ao, wo)));
}
/* AVX-512 VNNI: vpdpbusd on 16 lanes */
TI__T_VNNI512 TI__V_INL __m512i ti__vz_dpbusd(__m512i acc, __m512i a, __m512i w) { return _mm512_dpbusd_epi32(acc, a, w); }
TI__T_AVX512 TI__V_INL uint32_t ti__vz_rsum(__m512i v) {
  __m256i h = _mm256_add_epi32(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
  return ti__vs_rsum(_mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1)));
}

/* 16 x 16 32-bit transpose block (see ti__vs_tr4): every row a whole
   64-byte line; nt: non-temporal stores (d and so multiples of 64). The
   rows are reached from the first of each half and the strides' odd
   multiples sp3 = 3 sp, sp5, sp7 (so3 ... the same of so): a loop of
   blocks keeps 8 strides in registers instead of 30 offsets (see
   ti__tr_run4_avx512). */
TI__T_AVX512 TI__V_BLK void ti__vz_tr4m(const unsigned char *s, size_t sp, size_t sp3, size_t sp5, size_t sp7,
                                        unsigned char *d, size_t so, size_t so3, size_t so5, size_t so7, int nt) {
  /* written out, in named registers: as loops over arrays GCC 12 at -O2
     kept the arrays in memory (NHWC->NCHW of 51 MB f32 at 0.40-0.48 of
     memcpy against 0.80-0.85 at -O3, two processes) */
  const unsigned char *p = s + 8 * sp;
  unsigned char *q = d + 8 * so;
  __m512i r0, r1, r2, r3, r4, r5, r6, r7, r8, r9, r10, r11, r12, r13, r14, r15;
  __m512i t0, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15;
#define TI__TR4_LD(R, A, B, C, D, E, F, G, H)                                                      \
  A = _mm512_loadu_si512((const void *)R); B = _mm512_loadu_si512((const void *)(R + sp));         \
  C = _mm512_loadu_si512((const void *)(R + 2 * sp)); D = _mm512_loadu_si512((const void *)(R + sp3)); \
  E = _mm512_loadu_si512((const void *)(R + 4 * sp)); F = _mm512_loadu_si512((const void *)(R + sp5)); \
  G = _mm512_loadu_si512((const void *)(R + 2 * sp3)); H = _mm512_loadu_si512((const void *)(R + sp7));
  TI__TR4_LD(s, r0, r1, r2, r3, r4, r5, r6, r7)
  TI__TR4_LD(p, r8, r9, r10, r11, r12, r13, r14, r15)
#undef TI__TR4_LD
#define TI__TR4_U32(A, B, C, D) C = _mm512_unpacklo_epi32(A, B); D = _mm512_unpackhi_epi32(A, B);
  TI__TR4_U32(r0, r1, t0, t1) TI__TR4_U32(r2, r3, t2, t3) TI__TR4_U32(r4, r5, t4, t5)
  TI__TR4_U32(r6, r7, t6, t7) TI__TR4_U32(r8, r9, t8, t9) TI__TR4_U32(r10, r11, t10, t11)
  TI__TR4_U32(r12, r13, t12, t13) TI__TR4_U32(r14, r15, t14, t15)
#undef TI__TR4_U32
  /* then rA..rD: columns 4l + 0..3 of four rows in lane l */
#define TI__TR4_U64(T0, T1, T2, T3, A, B, C, D)                                                    \
  A = _mm512_unpacklo_epi64(T0, T2); B = _mm512_unpackhi_epi64(T0, T2);                            \
  C = _mm512_unpacklo_epi64(T1, T3); D = _mm512_unpackhi_epi64(T1, T3);
  TI__TR4_U64(t0, t1, t2, t3, r0, r1, r2, r3) TI__TR4_U64(t4, t5, t6, t7, r4, r5, r6, r7)
  TI__TR4_U64(t8, t9, t10, t11, r8, r9, r10, r11) TI__TR4_U64(t12, t13, t14, t15, r12, r13, r14, r15)
#undef TI__TR4_U64
  /* output rows c, c + 4, c + 8, c + 12 from column c of each four rows */
#define TI__TR4_LANES(A, B, C, D, O0, O4, O8, O12)                                                 \
  {                                                                                              \
    const __m512i v0 = _mm512_shuffle_i32x4(A, B, 0x88), v1 = _mm512_shuffle_i32x4(A, B, 0xdd);  \
    const __m512i w0 = _mm512_shuffle_i32x4(C, D, 0x88), w1 = _mm512_shuffle_i32x4(C, D, 0xdd);  \
    O0 = _mm512_shuffle_i32x4(v0, w0, 0x88); O4 = _mm512_shuffle_i32x4(v1, w1, 0x88);            \
    O8 = _mm512_shuffle_i32x4(v0, w0, 0xdd); O12 = _mm512_shuffle_i32x4(v1, w1, 0xdd);           \
  }
  TI__TR4_LANES(r0, r4, r8, r12, t0, t4, t8, t12) TI__TR4_LANES(r1, r5, r9, r13, t1, t5, t9, t13)
  TI__TR4_LANES(r2, r6, r10, r14, t2, t6, t10, t14) TI__TR4_LANES(r3, r7, r11, r15, t3, t7, t11, t15)
#undef TI__TR4_LANES
#define TI__TR4_ST(ST, Q, A, B, C, D, E, F, G, H)                                                  \
  ST((void *)Q, A); ST((void *)(Q + so), B); ST((void *)(Q + 2 * so), C); ST((void *)(Q + so3), D); \
  ST((void *)(Q + 4 * so), E); ST((void *)(Q + so5), F); ST((void *)(Q + 2 * so3), G); ST((void *)(Q + so7), H);
  if (nt) {
    TI__TR4_ST(ti__vz_stnt, d, t0, t1, t2, t3, t4, t5, t6, t7)
    TI__TR4_ST(ti__vz_stnt, q, t8, t9, t10, t11, t12, t13, t14, t15)
  } else {
    TI__TR4_ST(_mm512_storeu_si512, d, t0, t1, t2, t3, t4, t5, t6, t7)
    TI__TR4_ST(_mm512_storeu_si512, q, t8, t9, t10, t11, t12, t13, t14, t15)
  }
#undef TI__TR4_ST
}

/* 64 x 64 8-bit transpose block: groups of N = 16 rows (one vector each)
   go through log2(N) = 4 rounds of interleaving row i with row i + N/2
   (byte unpacks, within 128-bit lanes), after which vector c holds in lane
   l output row N l + c: the group's 16 bytes of it, stored at the group's
   offset in that row. Four groups make the block; every output line is
   written in four 16-byte pieces, so the block takes normal stores only.
   Against SSE2's 8 x 8 blocks, -O2, in one process: 1.4-2.2x on
   NCHW<->NHWC and 2-D transposes of 0.2-6.4 MB, 1.4-2.9x on NCHW->NHWC
   and 2-D ones of 12.8 MB, 0.8-0.9x on NHWC->NCHW 8x56x56x512 and
   16x56x56x256 (a 4 KiB buffer per block, each output line then stored
   whole, measured 0.5-0.9x the direct stores). The same scheme for 16-bit
   elements (32 x 32, groups of 8 rows) was as fast in cache and 0.55x on
   NCHW->NHWC of 12.8 MB, so those keep SSE2's blocks. */
#define TI__TRS_U8(A, B, C, D) C = _mm512_unpacklo_epi8(A, B); D = _mm512_unpackhi_epi8(A, B);
#define TI__TRS_R16(U, a, b)                                                                       \
  U(a##0, a##8, b##0, b##1) U(a##1, a##9, b##2, b##3) U(a##2, a##10, b##4, b##5)                  \
  U(a##3, a##11, b##6, b##7) U(a##4, a##12, b##8, b##9) U(a##5, a##13, b##10, b##11)              \
  U(a##6, a##14, b##12, b##13) U(a##7, a##15, b##14, b##15)
/* lanes of V to output rows C, N + C, 2N + C, 3N + C */
#define TI__TRS_ST(V, C, N)                                                                        \
  _mm_storeu_si128((__m128i *)(void *)(d + (size_t)(C) * so), _mm512_castsi512_si128(V));         \
  _mm_storeu_si128((__m128i *)(void *)(d + (size_t)((N) + (C)) * so), _mm512_extracti32x4_epi32(V, 1)); \
  _mm_storeu_si128((__m128i *)(void *)(d + (size_t)(2 * (N) + (C)) * so), _mm512_extracti32x4_epi32(V, 2)); \
  _mm_storeu_si128((__m128i *)(void *)(d + (size_t)(3 * (N) + (C)) * so), _mm512_extracti32x4_epi32(V, 3));
#define TI__TRS_LD(V, K) V = _mm512_loadu_si512((const void *)(s + (size_t)(K) * sp));
TI__T_AVX512 TI__V_INL void ti__vz_tr1g(const unsigned char *s, size_t sp, unsigned char *d, size_t so) {
  __m512i a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15;
  __m512i b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15;
  TI__TRS_LD(a0, 0) TI__TRS_LD(a1, 1) TI__TRS_LD(a2, 2) TI__TRS_LD(a3, 3) TI__TRS_LD(a4, 4)
  TI__TRS_LD(a5, 5) TI__TRS_LD(a6, 6) TI__TRS_LD(a7, 7) TI__TRS_LD(a8, 8) TI__TRS_LD(a9, 9)
  TI__TRS_LD(a10, 10) TI__TRS_LD(a11, 11) TI__TRS_LD(a12, 12) TI__TRS_LD(a13, 13)
  TI__TRS_LD(a14, 14) TI__TRS_LD(a15, 15)
  TI__TRS_R16(TI__TRS_U8, a, b) TI__TRS_R16(TI__TRS_U8, b, a)
  TI__TRS_R16(TI__TRS_U8, a, b) TI__TRS_R16(TI__TRS_U8, b, a)
  TI__TRS_ST(a0, 0, 16) TI__TRS_ST(a1, 1, 16) TI__TRS_ST(a2, 2, 16) TI__TRS_ST(a3, 3, 16)
  TI__TRS_ST(a4, 4, 16) TI__TRS_ST(a5, 5, 16) TI__TRS_ST(a6, 6, 16) TI__TRS_ST(a7, 7, 16)
  TI__TRS_ST(a8, 8, 16) TI__TRS_ST(a9, 9, 16) TI__TRS_ST(a10, 10, 16) TI__TRS_ST(a11, 11, 16)
  TI__TRS_ST(a12, 12, 16) TI__TRS_ST(a13, 13, 16) TI__TRS_ST(a14, 14, 16) TI__TRS_ST(a15, 15, 16)
}
#undef TI__TRS_LD
#undef TI__TRS_ST
#undef TI__TRS_R16
#undef TI__TRS_U8
TI__T_AVX512 TI__V_BLK void ti__vz_tr1(const unsigned char *s, size_t sp, unsigned char *d, size_t so) {
  ti__vz_tr1g(s, sp, d, so); ti__vz_tr1g(s + 16 * sp, sp, d + 16, so);
  ti__vz_tr1g(s + 32 * sp, sp, d + 32, so); ti__vz_tr1g(s + 48 * sp, sp, d + 48, so);
}

/* 8 x 8 64-bit transpose block, in the manner of ti__vz_tr4m: pairs of
   rows interleaved, then 128-bit lanes gathered in two steps. */
TI__T_AVX512 TI__V_BLK void ti__vz_tr8m(const unsigned char *s, size_t sp, size_t sp3, size_t sp5, size_t sp7,
                                        unsigned char *d, size_t so, size_t so3, size_t so5, size_t so7, int nt) {
  const __m512i r0 = _mm512_loadu_si512((const void *)s), r1 = _mm512_loadu_si512((const void *)(s + sp));
  const __m512i r2 = _mm512_loadu_si512((const void *)(s + 2 * sp)), r3 = _mm512_loadu_si512((const void *)(s + sp3));
  const __m512i r4 = _mm512_loadu_si512((const void *)(s + 4 * sp)), r5 = _mm512_loadu_si512((const void *)(s + sp5));
  const __m512i r6 = _mm512_loadu_si512((const void *)(s + 2 * sp3)), r7 = _mm512_loadu_si512((const void *)(s + sp7));
  /* lane l of tA: elements 2l (lo) or 2l + 1 (hi) of two rows */
  const __m512i t0 = _mm512_unpacklo_epi64(r0, r1), t1 = _mm512_unpackhi_epi64(r0, r1);
  const __m512i t2 = _mm512_unpacklo_epi64(r2, r3), t3 = _mm512_unpackhi_epi64(r2, r3);
  const __m512i t4 = _mm512_unpacklo_epi64(r4, r5), t5 = _mm512_unpackhi_epi64(r4, r5);
  const __m512i t6 = _mm512_unpacklo_epi64(r6, r7), t7 = _mm512_unpackhi_epi64(r6, r7);
  /* uA: columns c and c + 4 of rows 0..3 (u0..u3: c = 0, 1, 2, 3) or 4..7 */
  const __m512i u0 = _mm512_shuffle_i64x2(t0, t2, 0x88), u1 = _mm512_shuffle_i64x2(t1, t3, 0x88);
  const __m512i u2 = _mm512_shuffle_i64x2(t0, t2, 0xdd), u3 = _mm512_shuffle_i64x2(t1, t3, 0xdd);
  const __m512i u4 = _mm512_shuffle_i64x2(t4, t6, 0x88), u5 = _mm512_shuffle_i64x2(t5, t7, 0x88);
  const __m512i u6 = _mm512_shuffle_i64x2(t4, t6, 0xdd), u7 = _mm512_shuffle_i64x2(t5, t7, 0xdd);
  const __m512i o0 = _mm512_shuffle_i64x2(u0, u4, 0x88), o4 = _mm512_shuffle_i64x2(u0, u4, 0xdd);
  const __m512i o1 = _mm512_shuffle_i64x2(u1, u5, 0x88), o5 = _mm512_shuffle_i64x2(u1, u5, 0xdd);
  const __m512i o2 = _mm512_shuffle_i64x2(u2, u6, 0x88), o6 = _mm512_shuffle_i64x2(u2, u6, 0xdd);
  const __m512i o3 = _mm512_shuffle_i64x2(u3, u7, 0x88), o7 = _mm512_shuffle_i64x2(u3, u7, 0xdd);
  if (nt) {
    ti__vz_stnt(d, o0); ti__vz_stnt(d + so, o1); ti__vz_stnt(d + 2 * so, o2); ti__vz_stnt(d + so3, o3);
    ti__vz_stnt(d + 4 * so, o4); ti__vz_stnt(d + so5, o5); ti__vz_stnt(d + 2 * so3, o6); ti__vz_stnt(d + so7, o7);
  } else {
    _mm512_storeu_si512((void *)d, o0); _mm512_storeu_si512((void *)(d + so), o1);
    _mm512_storeu_si512((void *)(d + 2 * so), o2); _mm512_storeu_si512((void *)(d + so3), o3);
    _mm512_storeu_si512((void *)(d + 4 * so), o4); _mm512_storeu_si512((void *)(d + so5), o5);
    _mm512_storeu_si512((void *)(d + 2 * so3), o6); _mm512_storeu_si512((void *)(d + so7), o7);
  }
}

#elif defined(TI__NEON)
enum { ti__vn_W = 4 };
typedef int32x4_t ti__vn_vi;
typedef float32x4_t ti__vn_vf;
TI__V_INL int32x4_t ti__vn_ld(const int32_t *p) { return vld1q_s32(p); }
TI__V_INL void ti__vn_st(int32_t *p, int32x4_t v) { vst1q_s32(p, v); }
TI__V_INL int32x4_t ti__vn_set1(int32_t c) { return vdupq_n_s32(c); }
TI__V_INL int32x4_t ti__vn_vadd(int32x4_t a, int32x4_t b) { return vaddq_s32(a, b); }
TI__V_INL int32x4_t ti__vn_vmul(int32x4_t a, int32x4_t b) { return vmulq_s32(a, b); }
TI__V_INL int32x4_t ti__vn_vmax(int32x4_t a, int32x4_t b) { return vmaxq_s32(a, b); }
TI__V_INL int32x4_t ti__vn_vmin(int32x4_t a, int32x4_t b) { return vminq_s32(a, b); }
TI__V_INL int32x4_t ti__vn_vsra(int32x4_t v, int s) { return vshlq_s32(v, vdupq_n_s32(-s)); }
TI__V_INL int32x4_t ti__vn_vand(int32x4_t a, int32x4_t b) { return vandq_s32(a, b); }
TI__V_INL int32x4_t ti__vn_vxor(int32x4_t a, int32x4_t b) { return veorq_s32(a, b); }
TI__V_INL int32x4_t ti__vn_selgt(int32x4_t a, int32x4_t b, int32x4_t x, int32x4_t y) {
  return vbslq_s32(vcgtq_s32(a, b), x, y);
}
TI__V_INL int32x4_t ti__vn_selneg(int32x4_t m, int32x4_t x, int32x4_t y) {
  return vbslq_s32(vcltq_s32(m, vdupq_n_s32(0)), x, y);
}
TI__V_INL int32x4_t ti__vn_ld_i8w(const int8_t *p) {
  int32_t t;
  ti__memcpy(&t, p, 4);
  return vmovl_s16(vget_low_s16(vmovl_s8(vreinterpret_s8_s32(vdup_n_s32(t)))));
}
TI__V_INL int32x4_t ti__vn_ld_u8w(const uint8_t *p) {
  int32_t t;
  ti__memcpy(&t, p, 4);
  return vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(vmovl_u8(vreinterpret_u8_s32(vdup_n_s32(t))))));
}
TI__V_INL int32x4_t ti__vn_gather(const int32_t *lut, int32x4_t idx) {
  int32_t t[4], r[4];
  vst1q_s32(t, idx);
  r[0] = lut[t[0]]; r[1] = lut[t[1]]; r[2] = lut[t[2]]; r[3] = lut[t[3]];
  return vld1q_s32(r);
}
TI__V_INL float32x4_t ti__vn_ldf(const float *p) { return vld1q_f32(p); }
TI__V_INL void ti__vn_stf(float *p, float32x4_t v) { vst1q_f32(p, v); }
TI__V_INL float32x4_t ti__vn_set1f(float c) { return vdupq_n_f32(c); }
TI__V_INL float32x4_t ti__vn_vfadd(float32x4_t a, float32x4_t b) { return vaddq_f32(a, b); }
TI__V_INL float32x4_t ti__vn_vfmul(float32x4_t a, float32x4_t b) { return vmulq_f32(a, b); }
/* vmaxq_f32 propagates NaN; compare-and-select keeps the x86/reference rule. */
TI__V_INL float32x4_t ti__vn_vfmax(float32x4_t x, float32x4_t acc) { return vbslq_f32(vcgtq_f32(x, acc), x, acc); }
TI__V_INL float32x4_t ti__vn_vfmin(float32x4_t x, float32x4_t acc) { return vbslq_f32(vcltq_f32(x, acc), x, acc); }
TI__V_INL int32x4_t ti__vn_zero(void) { return vdupq_n_s32(0); }
TI__V_INL int32x4_t ti__vn_ldb(const void *p) { return vreinterpretq_s32_u8(vld1q_u8((const uint8_t *)p)); }
TI__V_INL int32x4_t ti__vn_ldbk(const void *p, int64_t keep) { return vandq_s32(vreinterpretq_s32_u8(vld1q_u8((const uint8_t *)p)), vdupq_n_s32((int32_t)keep)); }
TI__V_INL void ti__vn_stb(void *p, int32x4_t v) { vst1q_u8((uint8_t *)p, vreinterpretq_u8_s32(v)); }
TI__V_INL void ti__vn_sta(void *p, int32x4_t v) { vst1q_u8((uint8_t *)p, vreinterpretq_u8_s32(v)); }
TI__V_INL void ti__vn_stnt(void *p, int32x4_t v) { vst1q_u8((uint8_t *)p, vreinterpretq_u8_s32(v)); }
TI__V_INL void ti__vn_fence(void) {}
TI__V_INL int32x4_t ti__vn_bc4(const void *p) {   /* byte k of every lane = p[k], either byte order */
  uint32_t v;
  uint8x16_t b;
  ti__memcpy(&v, p, 4);
  b = vreinterpretq_u8_u32(vdupq_n_u32(v));
#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  b = vrev32q_u8(b);
#endif
  return vreinterpretq_s32_u8(b);
}
TI__V_INL void ti__vn_stn(void *o, int32x4_t v, int64_t n) {
  if (n >= 4) vst1q_u32((uint32_t *)o, vreinterpretq_u32_s32(v));
  else { uint32_t t[4]; int64_t i; vst1q_u32(t, vreinterpretq_u32_s32(v)); for (i = 0; i < n; i++) ((uint32_t *)o)[i] = t[i]; }
}
TI__V_INL void ti__vn_st8(void *p, int32x4_t v) {
  int16x4_t h = vmovn_s32(v);
  int8_t t[8];
  vst1_s8(t, vmovn_s16(vcombine_s16(h, h)));
  ti__memcpy(p, t, 4);
}
TI__V_INL void ti__vn_st16(void *p, int32x4_t v) { vst1_s16((int16_t *)p, vmovn_s32(v)); }
TI__V_INL int32x4_t ti__vn_mla(int32x4_t c, int32x4_t a, int32x4_t b) { return vmlaq_s32(c, a, b); }
TI__V_INL float32x4_t ti__vn_asf(int32x4_t v) { return vreinterpretq_f32_s32(v); }
TI__V_INL int32x4_t ti__vn_asi(float32x4_t v) { return vreinterpretq_s32_f32(v); }
/* s8 x s8 dot of 4-byte groups added to int32 lanes: sdot when the compiler
   targets the dot-product extension, else smull + pairwise widening adds
   (exact). */
TI__V_INL int32x4_t ti__vn_dot4(int32x4_t acc, int32x4_t a, int32x4_t w) {
#if defined(__ARM_FEATURE_DOTPROD)
  return vdotq_s32(acc, vreinterpretq_s8_s32(a), vreinterpretq_s8_s32(w));
#else
  int8x16_t x = vreinterpretq_s8_s32(a), y = vreinterpretq_s8_s32(w);
  int16x8_t lo = vmull_s8(vget_low_s8(x), vget_low_s8(y)), hi = vmull_high_s8(x, y);
  return vaddq_s32(acc, vpaddq_s32(vpaddlq_s16(lo), vpaddlq_s16(hi)));
#endif
}
TI__V_INL uint32_t ti__vn_rsum(int32x4_t v) { return (uint32_t)vaddvq_s32(v); }

/* Transpose blocks (see ti__vs_tr4): 8 x 8 bytes, 8 x 8 16-bit, 4 x 4
   32-bit, 2 x 2 64-bit. */
TI__V_BLK void ti__vn_tr1(const unsigned char *s, size_t sp, unsigned char *d, size_t so) {
  const uint8x8x2_t t0 = vtrn_u8(vld1_u8(s), vld1_u8(s + sp)), t1 = vtrn_u8(vld1_u8(s + 2 * sp), vld1_u8(s + 3 * sp));
  const uint8x8x2_t t2 = vtrn_u8(vld1_u8(s + 4 * sp), vld1_u8(s + 5 * sp)), t3 = vtrn_u8(vld1_u8(s + 6 * sp), vld1_u8(s + 7 * sp));
  const uint16x4x2_t u0 = vtrn_u16(vreinterpret_u16_u8(t0.val[0]), vreinterpret_u16_u8(t1.val[0]));
  const uint16x4x2_t u1 = vtrn_u16(vreinterpret_u16_u8(t0.val[1]), vreinterpret_u16_u8(t1.val[1]));
  const uint16x4x2_t u2 = vtrn_u16(vreinterpret_u16_u8(t2.val[0]), vreinterpret_u16_u8(t3.val[0]));
  const uint16x4x2_t u3 = vtrn_u16(vreinterpret_u16_u8(t2.val[1]), vreinterpret_u16_u8(t3.val[1]));
  const uint32x2x2_t v0 = vtrn_u32(vreinterpret_u32_u16(u0.val[0]), vreinterpret_u32_u16(u2.val[0]));
  const uint32x2x2_t v1 = vtrn_u32(vreinterpret_u32_u16(u1.val[0]), vreinterpret_u32_u16(u3.val[0]));
  const uint32x2x2_t v2 = vtrn_u32(vreinterpret_u32_u16(u0.val[1]), vreinterpret_u32_u16(u2.val[1]));
  const uint32x2x2_t v3 = vtrn_u32(vreinterpret_u32_u16(u1.val[1]), vreinterpret_u32_u16(u3.val[1]));
  vst1_u8(d, vreinterpret_u8_u32(v0.val[0])); vst1_u8(d + 4 * so, vreinterpret_u8_u32(v0.val[1]));
  vst1_u8(d + so, vreinterpret_u8_u32(v1.val[0])); vst1_u8(d + 5 * so, vreinterpret_u8_u32(v1.val[1]));
  vst1_u8(d + 2 * so, vreinterpret_u8_u32(v2.val[0])); vst1_u8(d + 6 * so, vreinterpret_u8_u32(v2.val[1]));
  vst1_u8(d + 3 * so, vreinterpret_u8_u32(v3.val[0])); vst1_u8(d + 7 * so, vreinterpret_u8_u32(v3.val[1]));
}
TI__V_BLK void ti__vn_tr2(const unsigned char *s, size_t sp, unsigned char *d, size_t so) {
#define TI__VN_L(k) vld1q_u16((const uint16_t *)(const void *)(s + (k) * sp))
#define TI__VN_S(k, lo, hi) vst1q_u16((uint16_t *)(void *)(d + (k) * so), vcombine_u16(lo, hi))
#define TI__VN_LO(x) vget_low_u16(vreinterpretq_u16_u32(x))
#define TI__VN_HI(x) vget_high_u16(vreinterpretq_u16_u32(x))
  const uint16x8x2_t t0 = vtrnq_u16(TI__VN_L(0), TI__VN_L(1)), t1 = vtrnq_u16(TI__VN_L(2), TI__VN_L(3));
  const uint16x8x2_t t2 = vtrnq_u16(TI__VN_L(4), TI__VN_L(5)), t3 = vtrnq_u16(TI__VN_L(6), TI__VN_L(7));
  const uint32x4x2_t u0 = vtrnq_u32(vreinterpretq_u32_u16(t0.val[0]), vreinterpretq_u32_u16(t1.val[0]));
  const uint32x4x2_t u1 = vtrnq_u32(vreinterpretq_u32_u16(t0.val[1]), vreinterpretq_u32_u16(t1.val[1]));
  const uint32x4x2_t u2 = vtrnq_u32(vreinterpretq_u32_u16(t2.val[0]), vreinterpretq_u32_u16(t3.val[0]));
  const uint32x4x2_t u3 = vtrnq_u32(vreinterpretq_u32_u16(t2.val[1]), vreinterpretq_u32_u16(t3.val[1]));
  TI__VN_S(0, TI__VN_LO(u0.val[0]), TI__VN_LO(u2.val[0])); TI__VN_S(4, TI__VN_HI(u0.val[0]), TI__VN_HI(u2.val[0]));
  TI__VN_S(1, TI__VN_LO(u1.val[0]), TI__VN_LO(u3.val[0])); TI__VN_S(5, TI__VN_HI(u1.val[0]), TI__VN_HI(u3.val[0]));
  TI__VN_S(2, TI__VN_LO(u0.val[1]), TI__VN_LO(u2.val[1])); TI__VN_S(6, TI__VN_HI(u0.val[1]), TI__VN_HI(u2.val[1]));
  TI__VN_S(3, TI__VN_LO(u1.val[1]), TI__VN_LO(u3.val[1])); TI__VN_S(7, TI__VN_HI(u1.val[1]), TI__VN_HI(u3.val[1]));
#undef TI__VN_L
#undef TI__VN_S
#undef TI__VN_LO
#undef TI__VN_HI
}
TI__V_BLK void ti__vn_tr4(const unsigned char *s, size_t sp, unsigned char *d, size_t so) {
  const uint32x4_t r0 = vld1q_u32((const uint32_t *)(const void *)s);
  const uint32x4_t r1 = vld1q_u32((const uint32_t *)(const void *)(s + sp));
  const uint32x4_t r2 = vld1q_u32((const uint32_t *)(const void *)(s + 2 * sp));
  const uint32x4_t r3 = vld1q_u32((const uint32_t *)(const void *)(s + 3 * sp));
  const uint32x4x2_t a = vtrnq_u32(r0, r1), b = vtrnq_u32(r2, r3);
  vst1q_u32((uint32_t *)(void *)d, vcombine_u32(vget_low_u32(a.val[0]), vget_low_u32(b.val[0])));
  vst1q_u32((uint32_t *)(void *)(d + so), vcombine_u32(vget_low_u32(a.val[1]), vget_low_u32(b.val[1])));
  vst1q_u32((uint32_t *)(void *)(d + 2 * so), vcombine_u32(vget_high_u32(a.val[0]), vget_high_u32(b.val[0])));
  vst1q_u32((uint32_t *)(void *)(d + 3 * so), vcombine_u32(vget_high_u32(a.val[1]), vget_high_u32(b.val[1])));
}
TI__V_BLK void ti__vn_tr8(const unsigned char *s, size_t sp, unsigned char *d, size_t so) {
  const uint64x2_t r0 = vld1q_u64((const uint64_t *)(const void *)s);
  const uint64x2_t r1 = vld1q_u64((const uint64_t *)(const void *)(s + sp));
  vst1q_u64((uint64_t *)(void *)d, vcombine_u64(vget_low_u64(r0), vget_low_u64(r1)));
  vst1q_u64((uint64_t *)(void *)(d + so), vcombine_u64(vget_high_u64(r0), vget_high_u64(r1)));
}
#endif

/* >>kernels.impl.tinshift ------------------------------------------------ */


#ifndef TASKIR_KERNELS_STREAM_BYTES
/* Outputs this large bypass the caches (non-temporal stores) on x86-64:
   below it the written data is likely reused from cache, above it the
   read-for-ownership of normal stores costs more than it saves. */
#define TASKIR_KERNELS_STREAM_BYTES ((size_t)16 << 20)
#endif

#ifndef TASKIR_CVM_YMM_BYTES
/* int8 CVM weights of at least this many bytes (beyond the L2) are read by
   the 256-bit AVX-VNNI kernel where the CPU has both it and AVX-512 VNNI,
   and by a 512-bit kernel of two streams of two vectors without prefetch
   and with line-aligned loads where it has AVX-512 VNNI only.
   Paired runs of each loop shape against the fastest read loop of the same
   bytes (AMD EPYC, cpuid family 26, loaded machine): with W in the L2 the
   dot is the limit and the 512-bit kernel is the faster (0.5 MiB: 132
   against 105 GB/s); from 2 MiB in the L3 the 256-bit one reads as fast or
   faster (2-8 MiB: 0.88-0.95 of the read against 0.87-0.92; the default
   rows of bench_kernels_conv: 0.88-0.96 against 0.84-0.91), from memory
   much faster (16-67 MB: 0.80-0.94 against 0.23-0.69; 512-bit read loops,
   too, stream memory slower than 256-bit ones there). Same results either
   way. */
#define TASKIR_CVM_YMM_BYTES ((size_t)2 << 20)
#endif
#ifndef TASKIR_CVM_MEM_BYTES
/* int8 CVM weights of at least this many bytes (beyond the L3 share of a
   core) are read by the 256-bit VNNI kernel as four streams, not two: from
   memory four streams read faster (16-67 MB: median 0.90 of the fastest
   read loop against 0.82), in the L3 two (4-8 MB: 0.88-0.94 against
   0.81-0.87). Same results either way. */
#define TASKIR_CVM_MEM_BYTES ((size_t)16 << 20)
#endif

#ifndef TASKIR_TINSHIFT_SPLIT_BYTES
/* TinShift outputs smaller than this run on the calling thread even when
   ctx->parallel_for is set: below it a second thread measured slower than
   one (the hand-off and the data moving between the cores' caches cost
   more than the halved copy saves; bench_threads tinshift). */
#define TASKIR_TINSHIFT_SPLIT_BYTES ((size_t)4 << 20)
#endif

/* Read-only zeros: the source of zero-filled runs of up to 64 bytes. */
static const unsigned char ti__mv_zeros[64] = {0};

/* memcpy for byte counts that are often small: overlapping fixed-size moves,
   which compile to a few loads and stores instead of a library call. */
TI__PRIVATE void ti__mv_copy(unsigned char *d, const unsigned char *s, size_t n) {
  if (n <= 16) {
    if (n >= 8) {
      uint64_t a, b; ti__memcpy(&a, s, 8); ti__memcpy(&b, s + n - 8, 8);
      ti__memcpy(d, &a, 8); ti__memcpy(d + n - 8, &b, 8);
    } else if (n >= 4) {
      uint32_t a, b; ti__memcpy(&a, s, 4); ti__memcpy(&b, s + n - 4, 4);
      ti__memcpy(d, &a, 4); ti__memcpy(d + n - 4, &b, 4);
    } else if (n >= 2) {
      uint16_t a, b; ti__memcpy(&a, s, 2); ti__memcpy(&b, s + n - 2, 2);
      ti__memcpy(d, &a, 2); ti__memcpy(d + n - 2, &b, 2);
    } else if (n) {
      d[0] = s[0];
    }
  } else if (n <= 32) {
    unsigned char a[16], b[16]; ti__memcpy(a, s, 16); ti__memcpy(b, s + n - 16, 16);
    ti__memcpy(d, a, 16); ti__memcpy(d + n - 16, b, 16);
  } else if (n <= 64) {
    unsigned char a[32], b[32]; ti__memcpy(a, s, 32); ti__memcpy(b, s + n - 32, 32);
    ti__memcpy(d, a, 32); ti__memcpy(d + n - 32, b, 32);
  } else if (n < 4096) {
    /* 64-byte moves and an overlapping last one: cheaper than a library
       call for the short runs the shift kernels make */
    unsigned char a[64];
    size_t i;
    for (i = 0; i + 64 <= n; i += 64) { ti__memcpy(a, s + i, 64); ti__memcpy(d + i, a, 64); }
    if (i < n) { ti__memcpy(a, s + n - 64, 64); ti__memcpy(d + n - 64, a, 64); }
  } else {
    ti__memcpy(d, s, n);
  }
}

TI__PRIVATE void ti__mv_zero(unsigned char *d, size_t n) {
  if (n <= 64) ti__mv_copy(d, ti__mv_zeros, n);
  else ti__memset(d, 0, n);
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
/* Streams n bytes (whole lines) from s, or zeros. The source is fetched
   TI__WR_PF_BYTES ahead: a run of a gather starts a new stream, which the
   hardware prefetchers pick up late (a prefetch never faults, so reading
   ahead past the run is harmless). */
#define TI__WR_PF_BYTES 4096
static void ti__wr_lines(unsigned char *d, const unsigned char *s, size_t n) {
  size_t i;
  if (s) {
    for (i = 0; i < n; i += 64) {
      const ti__vs_vi a = ti__vs_ldb(s + i), b = ti__vs_ldb(s + i + 16);
      const ti__vs_vi c = ti__vs_ldb(s + i + 32), e = ti__vs_ldb(s + i + 48);
      ti__vs_pfnta((uintptr_t)s + i + TI__WR_PF_BYTES);
      ti__vs_stnt(d + i, a);
      ti__vs_stnt(d + i + 16, b);
      ti__vs_stnt(d + i + 32, c);
      ti__vs_stnt(d + i + 48, e);
    }
  } else {
    const ti__vs_vi z = ti__vs_zero();
    for (i = 0; i < n; i += 64) {
      ti__vs_stnt(d + i, z);
      ti__vs_stnt(d + i + 16, z);
      ti__vs_stnt(d + i + 32, z);
      ti__vs_stnt(d + i + 48, z);
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
      ti__memmove(w->buf, w->buf + k, w->fill - k);
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
    ti__mv_copy(w->out + k, w->buf + k, (w->fill - k) & 63);   /* < 64 (the mask tells the compiler) */
    w->out += w->fill; w->fill = 0;
    ti__vs_fence();  /* streaming stores are weakly ordered */
  }
#else
  (void)w;
#endif
}

enum { TI__TS_PLAIN, TI__TS_LINES, TI__TS_COLUMNS, TI__TS_ALIGNED };  /* ti__ts_job.path */
typedef struct ti__ts_job {
  const unsigned char *src;
  unsigned char *dst;
  const int32_t *shifts;
  int64_t T, G;
  size_t piece;     /* bytes of one group in one row: (C/G)*HW*elem */
  size_t row;       /* bytes of one (n, t) row: C*HW*elem */
  int sign;         /* +1: t - s; -1: t + s */
  int stream;       /* the whole output is large enough to stream */
  int path;         /* TI__TS_PLAIN, or an AVX-512 path: TI__TS_LINES, TI__TS_COLUMNS, TI__TS_ALIGNED */
  int64_t rows;     /* N * T */
  /* in cache, runs over 64 bytes: the variant's vector moves (NULL: one
     memcpy / memset per run) */
  void (*vrows)(const struct ti__ts_job *j, int64_t r0, int64_t r1);
  size_t vec_max;   /* longest run vrows takes */
#if defined(TI__X86)
  /* streamed runs in source order (ti__ts_scatter): ti__nt_put, or with
     AVX-512 ti__nt_put_z */
  void (*nt_put)(unsigned char *d, const unsigned char *s, size_t n);
#endif
} ti__ts_job;

#if defined(__GNUC__) || defined(__clang__)
#define TI__MV_PREFETCH(p) __builtin_prefetch(p)
#define TI__MV_PREFETCHW(p) __builtin_prefetch(p, 1)
#define TI__MV_PREFETCH2(p) __builtin_prefetch(p, 0, 2)   /* into L2, not L1 */
#else
#define TI__MV_PREFETCH(p) ((void)(p))
#define TI__MV_PREFETCHW(p) ((void)(p))
#define TI__MV_PREFETCH2(p) ((void)(p))
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
      ti__memcpy(d, (uint64_t)st < (uint64_t)T ? base + (size_t)st * row : ti__mv_zeros, \
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
    for (t = ta; t < lo; ++t, q += row) ti__memset(q, 0, (BYTES));                   \
    if (lo < hi) {                                                               \
      const unsigned char *p = srcn + (size_t)(lo - s) * row + (size_t)g * (BYTES); \
      for (; t < hi; ++t, q += row, p += row) ti__memcpy(q, p, (BYTES));             \
    }                                                                            \
    for (; t < tb; ++t, q += row) ti__memset(q, 0, (BYTES));                         \
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
  const ti__vs_vi z = ti__vs_zero();
  if (n < 64) {
    if (s) ti__mv_copy(d, s, n); else ti__mv_zero(d, n);
    return;
  }
  if (h) {
    if (s) { ti__mv_copy(d, s, h); s += h; } else ti__mv_zero(d, h);
    d += h; n -= h;
  }
  for (i = 0; i + 16 <= n; i += 16)
    ti__vs_stnt(d + i, s ? ti__vs_ldb(s + i) : z);
  if (i < n) {
    if (s) ti__mv_copy(d + i, s + i, n - i); else ti__mv_zero(d + i, n - i);
  }
}

#if defined(TI__X86)
/* The same with AVX-512: whole aligned 64-byte lines streamed, the partial
   lines at the ends written by masked stores (only the run's bytes). */
TI__T_AVX512 static void ti__nt_put_z(unsigned char *d, const unsigned char *s, size_t n) {
  const size_t off = (size_t)((uintptr_t)d & 63);
  const ti__vz_vi z = ti__vz_zero();
  size_t i;
  if (n < 128) { ti__nt_put(d, s, n); return; }
  if (off) {  /* lanes off..63 of the line below d */
    const ti__vz_m64 m = ~(ti__vz_m64)0 << off;
    ti__vz_stm8(d - off, m, s ? ti__vz_ldz8(m, (const void *)((uintptr_t)s - off)) : z);
    d += 64 - off; n -= 64 - off;
    if (s) s += 64 - off;
  }
  if (s)
    for (i = 0; i + 64 <= n; i += 64) ti__vz_stnt(d + i, ti__vz_ldb(s + i));
  else
    for (i = 0; i + 64 <= n; i += 64) ti__vz_stnt(d + i, z);
  if (i < n) {
    const ti__vz_m64 m = ((ti__vz_m64)1 << (n - i)) - 1;
    ti__vz_stm8(d + i, m, s ? ti__vz_ldz8(m, s + i) : z);
  }
}
#endif

/* Large outputs with pieces of 64 bytes to 16 KiB (AVX-512: of 4 KiB or
   more, every length, with 64-byte streaming stores), in source order: each
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
          j->nt_put(dst + (size_t)t * row + (size_t)g * piece,
                    src + (size_t)ts * row + (size_t)g * piece, (size_t)(g1 - g) * piece);
      }
    for (g = 0; g < G; ++g) {  /* rows with no source: t - s outside [0, T) */
      const int64_t s = sign * sh[g];
      for (t = ta; t < tb; ++t)
        if ((uint64_t)(t - s) >= (uint64_t)T)
          j->nt_put(dst + (size_t)t * row + (size_t)g * piece, 0, piece);
    }
    r += tb - ta;
  }
  ti__vs_fence();
}
#endif

/* The next run of output row t of an image (input at base, shifts sh),
   from group *g: returns its source (NULL: zero-filled) and its bytes, and
   moves *g past it. Neighbours with the same source row (equal shifts) or,
   for a zero-filled group, that are zero-filled too, join one run. */
static const unsigned char *ti__ts_next_run(const ti__ts_job *j, const int32_t *sh,
                                            const unsigned char *base, int64_t t, int64_t *g,
                                            size_t *bytes) {
  const int64_t G = j->G, T = j->T, sign = j->sign, g0 = *g;
  const int64_t st = t - sign * sh[g0];
  int64_t g1 = g0 + 1;
  if ((uint64_t)st < (uint64_t)T) {
    while (g1 < G && sh[g1] == sh[g0]) ++g1;
    *g = g1;
    *bytes = (size_t)(g1 - g0) * j->piece;
    return base + (size_t)st * j->row + (size_t)g0 * j->piece;
  }
  while (g1 < G && (uint64_t)(t - sign * sh[g1]) >= (uint64_t)T) ++g1;
  *g = g1;
  *bytes = (size_t)(g1 - g0) * j->piece;
  return 0;
}

#if defined(TI__X86)
#define TI__TS_AVX512 1
/* AVX-512 rows: the output is built one aligned 64-byte line at a time in a
   register (a masked load per run that ends inside the line, plain loads for
   whole lines) and each line is written with one store, non-temporal when
   streaming. Nothing is staged in memory, so no load ever waits on the
   stores that filled a buffer. Streaming also prefetches the input ahead
   of the row being written (ti__ts_pf_distance): the runs of a row come
   from several input rows, a pattern the hardware prefetchers follow
   poorly, while the input as a whole is read front to back. */
/* Prefetch distance for streamed TinShift rows: two rows (a row reads
   input rows around its own), 16 KiB to 256 KiB, into L2 (t1).
   Measured: shorter distances, or prefetches to L1 only (NTA), left the
   reads of rows ahead waiting on memory; much longer ones were evicted
   before use. Into L2 rather than L1 as well (t0): Intel Xeon with AMX,
   in one process against t0 (medians of 15 rotated triples with
   memcpy), runs of 128 B-1 KiB at 256 MiB 1.02-1.17x (512 B: 0.78 of
   memcpy -> 0.90), 16-64 B 1.03-1.06x, at 16-64 MiB 1.00-1.09x; t2
   measured about the same (0.99-1.12x). */
static size_t ti__ts_pf_distance(size_t row) {
  const size_t d = 2 * row, lo = (size_t)16 << 10, hi = (size_t)256 << 10;
  return d < lo ? lo : d > hi ? hi : d;
}
/* Prefetches the input from *pf up to the end of row r + 1 plus the
   distance (addresses as integers: they may run past the input). */
static void ti__ts_prefetch(const ti__ts_job *j, uintptr_t *pf, int64_t r) {
  uintptr_t e = (uintptr_t)j->src + (size_t)(r + 1) * j->row + ti__ts_pf_distance(j->row);
  const uintptr_t end = (uintptr_t)j->src + (size_t)j->rows * j->row;
  if (e > end) e = end;
  for (; *pf < e; *pf += 64) ti__vs_pft1(*pf);
}
typedef struct ti__ln512 {
  unsigned char *line;   /* aligned line being built */
  size_t off;            /* bytes of it decided so far */
  ti__vz_m64 keep;       /* lanes of it this call may write */
  int stream;
  ti__vz_vi acc;
} ti__ln512;

/* One aligned output line: a non-temporal store when streaming. */
TI__T_AVX512 static void ti__ts_put_line(unsigned char *L, ti__vz_vi v, int stream) {
  if (stream) ti__vz_stnt(L, v);
  else ti__vz_sta(L, v);
}

TI__T_AVX512 static void ti__ln_flush(ti__ln512 *l, ti__vz_vi v) {
  if (l->keep != ~(ti__vz_m64)0) {
    ti__vz_stm8(l->line, l->keep, v);
    l->keep = ~(ti__vz_m64)0;
  } else {
    ti__ts_put_line(l->line, v, l->stream);
  }
  l->line += 64;
}

/* Appends n bytes from s (zeros when s is NULL). */
TI__T_AVX512 TI__V_BLK void ti__ln_put(ti__ln512 *l, const unsigned char *s, size_t n) {
  const ti__vz_vi z = ti__vz_zero();
  while (n) {
    if (l->off == 0 && n >= 64) {
      /* whole lines (off == 0 means keep is all lanes: only a call's first
         line can be partly another's, and then off > 0) */
      const size_t k = n & ~(size_t)63;
      unsigned char *q = l->line;
      size_t i;
      if (s && l->stream)
        for (i = 0; i < k; i += 64)
          ti__vz_stnt(q + i, ti__vz_ldb(s + i));
      else if (s)
        for (i = 0; i < k; i += 64) ti__vz_sta(q + i, ti__vz_ldb(s + i));
      else if (l->stream)
        for (i = 0; i < k; i += 64) ti__vz_stnt(q + i, z);
      else
        for (i = 0; i < k; i += 64) ti__vz_sta(q + i, z);
      if (s) s += k;
      l->line += k;
      n -= k;
      continue;
    }
    if (!s && n < 64 - l->off) {  /* zeros inside the line: its lanes are zero already */
      l->off += n;
      return;
    }
    {
      const size_t k = 64 - l->off < n ? 64 - l->off : n, e = l->off + k;
      const ti__vz_m64 m = (e == 64 ? ~(ti__vz_m64)0 : (((ti__vz_m64)1 << e) - 1)) &
                           (~(ti__vz_m64)0 << l->off);
      /* lane i of the load is s[i - off]: lanes outside the run are masked
         off (masked lanes neither load nor fault) and read as zero, so the
         runs of a line are OR-ed together and zero runs cost nothing; a
         merging load would chain every run of the line on load latency */
      if (s) {
        l->acc = ti__vz_vor(l->acc, ti__vz_ldz8(m, (const void *)((uintptr_t)s - l->off)));
        s += k;
      }
      n -= k;
      l->off = e;
      if (e == 64) { ti__ln_flush(l, l->acc); l->off = 0; l->acc = z; }
    }
  }
}

TI__T_AVX512 static void ti__ts_lines_avx512(const ti__ts_job *j, int64_t r0, int64_t r1) {
  const int64_t T = j->T, G = j->G;
  const size_t row = j->row;
  unsigned char *d0 = j->dst + (size_t)r0 * row;
  uintptr_t pf = (uintptr_t)j->src + (size_t)r0 * row + ti__ts_pf_distance(row);
  int64_t r, n = r0 / T, t = r0 % T;
  ti__ln512 l;
  l.line = (unsigned char *)((uintptr_t)d0 & ~(uintptr_t)63);
  l.off = (size_t)(d0 - l.line);
  l.keep = ~(ti__vz_m64)0 << l.off;
  l.stream = j->stream;
  l.acc = ti__vz_zero();
  for (r = r0; r < r1; ++r) {
    const int32_t *sh = j->shifts + n * G;
    const unsigned char *base = j->src + (size_t)(n * T) * row;
    int64_t g = 0;
    if (j->stream) ti__ts_prefetch(j, &pf, r);
    while (g < G) {
      size_t bytes;
      const unsigned char *s = ti__ts_next_run(j, sh, base, t, &g, &bytes);
      ti__ln_put(&l, s, bytes);
    }
    if (++t == T) { t = 0; ++n; }
  }
  if (l.off) {  /* the last line: only the bytes decided */
    const ti__vz_m64 m = (((ti__vz_m64)1 << l.off) - 1) & l.keep;
    ti__vz_stm8(l.line, m, l.acc);
  }
  if (j->stream) ti__vs_fence();
}

/* Pieces of 16, 32 or 48 bytes in rows of whole lines (AVX-512). Runs this
   short make the per-run path above branch on every piece, following the
   shifts' pattern, so the branches mispredict. Here the output of an image
   is written column by column instead: the aligned line at column c of row
   t takes its four 16-byte units from input rows t - s (s the shift of the
   unit's group), that is from a_k + t*row with a_k fixed for the column.
   A column is then a loop of four loads, three inserts and one store, with
   units that have no source row (t - s outside [0, T)) zeroed by a lane
   mask after loading from a_k + t*row anyway, which lies in a neighbouring
   image: the first and last image of the tensor, where it might not, take
   pointers checked unit by unit. Each image's bases and row ranges come
   from small per-unit tables (ti__ts_coltab), built one image ahead. Lines
   across an image boundary come from the two images' tables; the partial
   lines at the ends of a range are built unit by unit. Needs the output
   16-byte aligned. */
/* Group of 16-byte unit u of a row, with q (1, 2 or 3) units per piece. */
static size_t ti__ts_unit_group(size_t u, size_t q) { return q == 1 ? u : q == 2 ? u >> 1 : u / 3; }

/* Source of the 16 output bytes at column x of row t of image n. */
TI__T_AVX512 static const unsigned char *ti__ts_unit(const ti__ts_job *j, int64_t n, int64_t t,
                                                    size_t x) {
  const int64_t g = (int64_t)ti__ts_unit_group(x >> 4, j->piece >> 4);
  const int64_t s = j->sign * (int64_t)j->shifts[n * j->G + g];
  const int64_t st = t - s;
  return (uint64_t)st < (uint64_t)j->T ? j->src + (size_t)(n * j->T + st) * j->row + x
                                       : ti__mv_zeros;
}

/* Units [u0, u1) of the aligned line at L, unit u0 being column x of row t
   of image n. A whole line is stored whole (streamed when streaming), a
   partial one with a masked store: its other bytes belong to a neighbour. */
TI__T_AVX512 static void ti__ts_line_units(const ti__ts_job *j, unsigned char *L, unsigned u0,
                                          unsigned u1, int64_t n, int64_t t, size_t x) {
  ti__vz_vi v = ti__vz_zero();
  unsigned u;
  for (u = u0; u < u1; ++u) {
    /* lanes 2u and 2u + 1 from p: a masked load reads (and can fault on)
       only those, so it may start before p */
    const unsigned char *p = ti__ts_unit(j, n, t, x);
    v = ti__vz_ldm64(v, (ti__vz_m8)(3u << (2 * u)), (const void *)((uintptr_t)p - 16 * u));
    x += 16;
    if (x == j->row) {
      x = 0;
      if (++t == j->T) { t = 0; ++n; }
    }
  }
  if (u0 == 0 && u1 == 4)
    ti__ts_put_line(L, v, j->stream);
  else
    ti__vz_stm64(L, (ti__vz_m8)(((1u << (2 * u1)) - 1) & ~((1u << (2 * u0)) - 1)), v);
}

/* A line from four 16-byte units. */
TI__T_AVX512 static ti__vz_vi ti__ts_line4(const unsigned char *p0, const unsigned char *p1,
                                        const unsigned char *p2, const unsigned char *p3) {
  return ti__vz_ld4x16(p0, p1, p2, p3);
}

/* Per unit u of a row of image n: out row t reads in row t - s (s the
   unit's group's shift, clamped to [-T, T]: the same rows are valid, and
   s*R stays a product of 32-bit values) at img + t*R + off[u], for
   lo[u] <= t < hi[u]. Entries U..U+3 are units 0..3 seen from the row
   before, for the line that crosses from one row into the next. */
#define TI__TS_UMAX 256  /* units in a row (rows of at most 4 KiB) */
typedef struct ti__ts_coltab {
  int64_t lo[TI__TS_UMAX + 8], hi[TI__TS_UMAX + 8], off[TI__TS_UMAX + 8];
} ti__ts_coltab;

TI__T_AVX512 static void ti__ts_col_tables(const ti__ts_job *j, int64_t n, size_t h,
                                          ti__ts_coltab *tc) {
  const int64_t T = j->T;
  const size_t R = j->row, q = j->piece / 16, U = R / 16;
  const ti__vz_vi z = ti__vz_zero(), Tv = ti__vz_set1_64(T), nTv = ti__vz_set1_64(-T);
  const ti__vz_vi Rv = ti__vz_set1_64((int64_t)R);
  const ti__vz_vi lane = ti__vz_iota64();
  const int32_t *sh = j->shifts + n * j->G;
  int32_t su[TI__TS_UMAX];
  size_t u;
  if (q > 1) {
    for (u = 0; u < U; ++u) su[u] = sh[ti__ts_unit_group(u, q)];
    sh = su;
  }
  for (u = 0; u < U; u += 8) {
    /* x: the units' columns, 16 * (u + lane) */
    const ti__vz_vi x = ti__vz_vshl64(ti__vz_vadd64(ti__vz_set1_64((int64_t)u), lane), 4);
    ti__vz_vi s = ti__vz_ld_i32w64(sh + u, (unsigned)(U - u >= 8 ? 8 : U - u));
    if (j->sign < 0) s = ti__vz_vsub64(z, s);
    s = ti__vz_vmin64(ti__vz_vmax64(s, nTv), Tv);
    ti__vz_stb(tc->lo + u, ti__vz_vmax64(s, z));
    ti__vz_stb(tc->hi + u, ti__vz_vadd64(Tv, ti__vz_vmin64(s, z)));
    ti__vz_stb(tc->off + u, ti__vz_vsub64(x, ti__vz_vmul32x64(s, Rv)));
  }
  for (u = 0; u < 4 && h; ++u) {
    tc->lo[U + u] = tc->lo[u] - 1;
    tc->hi[U + u] = tc->hi[u] - 1;
    tc->off[U + u] = tc->off[u] + (int64_t)R;
  }
}

/* The whole lines of image n that start in rows [ta, tb) at columns h,
   h + 64, ... and end in rows before tb, from the image's tables; safe:
   check every unit's row. */
TI__T_AVX512 static void ti__ts_image_columns(const ti__ts_job *j, int64_t n, int64_t ta, int64_t tb,
                                             size_t h, int safe, const ti__ts_coltab *tc) {
  const int64_t T = j->T, *const lo = tc->lo, *const hi = tc->hi, *const off = tc->off;
  const size_t R = j->row;
  const uintptr_t img = (uintptr_t)(j->src + (size_t)(n * T) * R);
  unsigned char *const out = j->dst + (size_t)(n * T) * R;
  const ti__vz_vi one = ti__vz_set1_64(1);
  const int stream = j->stream;
  size_t c;
  for (c = h; c < R; c += 64) {
    unsigned char *const o = out + c;
    const int64_t te = c + 64 > R ? tb - 1 : tb;  /* a line into the next row stops a row early */
    const size_t u0 = c / 16;
    const uintptr_t a[4] = {img + (uintptr_t)off[u0], img + (uintptr_t)off[u0 + 1],
                            img + (uintptr_t)off[u0 + 2], img + (uintptr_t)off[u0 + 3]};
    /* lo, hi of the four units, each repeated for its two 64-bit lanes */
    const ti__vz_vi lo8 = ti__vz_ld4x64x2(lo + u0), hi8 = ti__vz_ld4x64x2(hi + u0);
    ti__vz_vi tv;
    int64_t t;
    if (te <= ta) continue;
    tv = ti__vz_set1_64(ta);
    if (safe) {
      for (t = ta; t < te; ++t, tv = ti__vz_vadd64(tv, one)) {
        const size_t tR = (size_t)t * R;
        const ti__vz_vi v = ti__ts_line4(
            t >= lo[u0] && t < hi[u0] ? (const unsigned char *)(a[0] + tR) : ti__mv_zeros,
            t >= lo[u0 + 1] && t < hi[u0 + 1] ? (const unsigned char *)(a[1] + tR) : ti__mv_zeros,
            t >= lo[u0 + 2] && t < hi[u0 + 2] ? (const unsigned char *)(a[2] + tR) : ti__mv_zeros,
            t >= lo[u0 + 3] && t < hi[u0 + 3] ? (const unsigned char *)(a[3] + tR) : ti__mv_zeros);
        ti__ts_put_line(o + tR, v, stream);
      }
    } else {
      /* the hot loop: addresses are the column's bases plus t*R */
      const unsigned char *const a0 = (const unsigned char *)a[0];
      const unsigned char *const a1 = (const unsigned char *)a[1];
      const unsigned char *const a2 = (const unsigned char *)a[2];
      const unsigned char *const a3 = (const unsigned char *)a[3];
      size_t tR = (size_t)ta * R;
      const size_t eR = (size_t)te * R;
      /* one loop per store kind: a test of stream per line measured slower */
      if (stream) {
        for (; tR < eR; tR += R, tv = ti__vz_vadd64(tv, one)) {
          const ti__vz_m8 m = ti__vz_inrange64(lo8, tv, hi8);
          const ti__vz_vi v = ti__ts_line4(a0 + tR, a1 + tR, a2 + tR, a3 + tR);
          ti__ts_put_line(o + tR, ti__vz_keep64(m, v), 1);
        }
      } else {
        for (; tR < eR; tR += R, tv = ti__vz_vadd64(tv, one)) {
          const ti__vz_m8 m = ti__vz_inrange64(lo8, tv, hi8);
          const ti__vz_vi v = ti__ts_line4(a0 + tR, a1 + tR, a2 + tR, a3 + tR);
          ti__ts_put_line(o + tR, ti__vz_keep64(m, v), 0);
        }
      }
    }
  }
}

/* The line from the last row of image n into the first of image n + 1,
   from the two images' tables. */
TI__T_AVX512 static void ti__ts_cross_line(const ti__ts_job *j, int64_t n, size_t h,
                                          const ti__ts_coltab *tn, const ti__ts_coltab *tx) {
  const int64_t T = j->T;
  const size_t R = j->row, x0 = R + h - 64;
  const uintptr_t img = (uintptr_t)(j->src + (size_t)(n * T) * R);
  const unsigned char *p[4];
  unsigned k;
  for (k = 0; k < 4; ++k) {
    const size_t x = x0 + 16 * k;
    if (x < R) {  /* row T - 1 of image n */
      const size_t u = x / 16;
      p[k] = T - 1 >= tn->lo[u] && T - 1 < tn->hi[u]
                 ? (const unsigned char *)(img + (size_t)(T - 1) * R + (uintptr_t)tn->off[u])
                 : ti__mv_zeros;
    } else {  /* row 0 of image n + 1 */
      const size_t u = (x - R) / 16;
      p[k] = 0 >= tx->lo[u] && 0 < tx->hi[u]
                 ? (const unsigned char *)(img + (size_t)T * R + (uintptr_t)tx->off[u])
                 : ti__mv_zeros;
    }
  }
  {
    unsigned char *const L = j->dst + (size_t)(n * T + T - 1) * R + x0;
    const ti__vz_vi v = ti__ts_line4(p[0], p[1], p[2], p[3]);
    ti__ts_put_line(L, v, j->stream);
  }
}

TI__T_AVX512 static void ti__ts_columns_avx512(const ti__ts_job *j, int64_t r0, int64_t r1) {
  const int64_t T = j->T, N = j->rows / T;
  const size_t R = j->row;
  unsigned char *const d0 = j->dst + (size_t)r0 * R;
  const size_t h = (size_t)(-(uintptr_t)d0) & 63;  /* every row starts at this offset to a line */
  uintptr_t pf = (uintptr_t)j->src + (size_t)r0 * R + ti__ts_pf_distance(R);
  int64_t r = r0, n = r0 / T, ta = r0 % T;
  /* the tables of the next image are built before this one is written:
     their stores settle meanwhile (loads of a vector store just made
     would wait on it) */
  ti__ts_coltab tabs[2];
  int cur = 0;
  if (h) ti__ts_line_units(j, d0 + h - 64, (unsigned)(64 - h) / 16, 4, n, ta, 0);
  ti__ts_col_tables(j, n, h, &tabs[0]);
  for (; r < r1; ++n, ta = 0, cur ^= 1) {  /* image by image */
    const int64_t tb = T - ta < r1 - r ? T : ta + (r1 - r);
    if (r + (tb - ta) < r1) ti__ts_col_tables(j, n + 1, h, &tabs[cur ^ 1]);
    if (j->stream) ti__ts_prefetch(j, &pf, n * T + T - 1);  /* to the image's end + distance */
    ti__ts_image_columns(j, n, ta, tb, h, n == 0 || n == N - 1, &tabs[cur]);
    r += tb - ta;
    if (h && tb == T && r < r1) ti__ts_cross_line(j, n, h, &tabs[cur], &tabs[cur ^ 1]);
  }
  if (h) {
    const int64_t rl = r1 - 1;
    ti__ts_line_units(j, j->dst + (size_t)r1 * R + h - 64, 0, (unsigned)(64 - h) / 16, rl / T,
                      rl % T, R - (64 - h));
  }
  if (j->stream) ti__vs_fence();
}

#endif

/* Output rows r = n*T + t in [r0, r1). */
/* Rows in cache (the output is below the streaming size), runs over 64
   bytes: one library memcpy / memset per stretch, nothing prefetched or
   staged, in a function of its own so that the loop keeps its state in
   registers. A stretch is consecutive (n, t, group) runs that are
   contiguous in the input as well as in the output (equal shifts of
   neighbouring groups; with G = 1, or equal shifts across a whole row, the
   rows of an image and images with the same shift), or all zero-filled:
   fewer, longer calls than the per-run loop a user would write
   (bench_tinshift_grid), which glibc's memcpy / memset (rep movsb / stosb
   from about 2 KiB) move faster per byte. */
static void ti__ts_rows_cached(const ti__ts_job *j, int64_t r0, int64_t r1) {
  const int64_t T = j->T, G = j->G, sign = j->sign;
  const size_t piece = j->piece, row = j->row;
  unsigned char *d = j->dst + (size_t)r0 * row;  /* where the pending stretch starts */
  const unsigned char *ps = 0;                   /* its source (NULL: zeros) */
  size_t pl = 0;                                 /* and its bytes */
  int64_t n = r0 / T, t = r0 % T, r, g, g1;
  for (r = r0; r < r1; ++r) {
    const int32_t *sh = j->shifts + n * G;
    const unsigned char *base = j->src + (size_t)(n * T) * row;
    for (g = 0; g < G; g = g1) {
      const int64_t st = t - sign * sh[g];
      const unsigned char *s =
          (uint64_t)st < (uint64_t)T ? base + (size_t)st * row + (size_t)g * piece : 0;
      size_t bytes;
      for (g1 = g + 1; g1 < G && sh[g1] == sh[g]; ++g1) {}
      bytes = (size_t)(g1 - g) * piece;
      if (s ? (ps && ps + pl == s) : !ps) { pl += bytes; continue; }
      if (pl) {
        if (ps) TASKIR_MEMCPY(d, ps, pl);
        else TASKIR_MEMSET(d, 0, pl);
      }
      d += pl; ps = s; pl = bytes;
    }
    if (++t == T) { t = 0; ++n; }
  }
  if (pl) {
    if (ps) TASKIR_MEMCPY(d, ps, pl);
    else TASKIR_MEMSET(d, 0, pl);
  }
}

/* The same over the SIMD layer (TI_FAMILY_TINSHIFT), for runs of 65 bytes
   to 4 KiB: inline vector moves (VB, the vector's bytes, at a time; a run
   that is not a whole number of vectors ends with an overlapping one), no
   library call and no branch per run: a zero-filled run is a valid row of
   its image (its own) AND-ed with zero; runs of one or two vectors (AVX-512:
   65-128 bytes) take plain loads instead, a zero run from the zero vector
   (paired grid runs: 0.99-1.13x the per-run loop, masked loads 0.90-1.04).
   Longer runs store their first vector, then vectors aligned to the
   output, then an overlapping last one (AL = 1: on x86-64 always; AL = 0,
   NEON: where input and output are aligned alike, otherwise the vectors
   follow the run's start, as one loop of its own): a 64-byte access that
   crosses a line costs two, and with both buffers 16 bytes past a line
   every access of an unaligned copy crossed one (quiet machine, six
   alternating grid runs: 256 KiB outputs, 1-4 KiB runs 0.75-0.78 of memcpy
   against 0.59-0.66 with unaligned stores; 1 MiB, 2 KiB runs 1.00 against
   0.85). Input and output aligned differently (the input 16 bytes behind,
   as two consecutive malloc blocks of 64 KiB are), Intel Xeon with AMX, in
   one process against following the run's start (medians of 21 rotated
   triples with the per-run loop): stores aligned to the output 1.06-1.25x
   with AVX-512 (runs of 256 B-4 KiB; 0.99-1.0x with the output aligned and
   the input not), 1.12-1.16x with AVX2, 1.01-1.12x with SSE2.
   Runs up to a cap per variant (ti__ts_job.vec_max: AVX-512 4 KiB, 2 KiB
   for outputs over 512 KiB, 8 KiB over 1 MiB, 1 KiB when streamed, AVX2
   1 KiB, SSE2 and NEON 256 B) take it: measured at or above the per-run memcpy
   loop there in cache; longer runs go to memcpy, which moves them as fast
   (with wider vectors than SSE2's where the C library has them). */
#define TI__TS_GEN(P, TGT, AL)                                                               \
  TGT static void ti__ts_rows_vec_##P(const ti__ts_job *j, int64_t r0, int64_t r1) {          \
    const int64_t T = j->T, G = j->G, sign = j->sign;                                         \
    const size_t piece = j->piece, row = j->row, VB = sizeof(ti__v##P##_vi);                  \
    /* align the stores (always with AL, else where that aligns the loads too) */          \
    const size_t am = !(AL) && ((((uintptr_t)j->src - (uintptr_t)j->dst) | piece) & (VB - 1)) ? 0 : VB - 1; \
    const size_t whole = piece & ~(VB - 1);                                                   \
    unsigned char *d = j->dst + (size_t)r0 * row;                                             \
    int64_t n = r0 / T, t = r0 % T, r, g;                                                     \
    for (r = r0; r < r1; ++r) {                                                               \
      const int32_t *sh = j->shifts + n * G;                                                  \
      const unsigned char *base = j->src + (size_t)(n * T) * row;                             \
      for (g = 0; g < G; ++g, d += piece) {                                                   \
        const int64_t st = t - sign * sh[g];                                                  \
        const int64_t in = -(int64_t)((uint64_t)st < (uint64_t)T); /* all ones or 0 */       \
        const unsigned char *s = base + (size_t)(t + ((st - t) & in)) * row + (size_t)g * piece; \
        size_t o;                                                                             \
        if (piece <= 2 * VB) {                                                                \
          /* one or two vectors: plain loads, a zero run from the zero vector */             \
          const unsigned char *z = in ? s : ti__mv_zeros;                                     \
          ti__v##P##_stb(d, ti__v##P##_ldb(z));                                               \
          ti__v##P##_stb(d + piece - VB, ti__v##P##_ldb(z + ((piece - VB) & (size_t)in)));    \
          continue;                                                                           \
        }                                                                                     \
        /* the first vector, then (am) stores aligned to the output's vectors */            \
        if (am) {                                                                             \
        ti__v##P##_stb(d, ti__v##P##_ldbk(s, in));                                            \
        for (o = VB - ((uintptr_t)d & am); o + VB <= piece; o += VB)                          \
          ti__v##P##_stb(d + o, ti__v##P##_ldbk(s + o, in));                                  \
        if (o < piece)                                                                        \
          ti__v##P##_stb(d + piece - VB, ti__v##P##_ldbk(s + piece - VB, in));                \
        } else {                                                                              \
        for (o = 0; o < whole; o += VB)                                                       \
          ti__v##P##_stb(d + o, ti__v##P##_ldbk(s + o, in));                                  \
        if (whole < piece)                                                                    \
          ti__v##P##_stb(d + piece - VB, ti__v##P##_ldbk(s + piece - VB, in));                \
        }                                                                                     \
      }                                                                                       \
      if (++t == T) { t = 0; ++n; }                                                           \
    }                                                                                         \
  }
#if defined(TI__X86)
TI__TS_GEN(s, TI__T_SSE2, 1)
TI__TS_GEN(a, TI__T_AVX2, 1)
TI__TS_GEN(z, TI__T_AVX512, 1)
#elif defined(TI__NEON)
TI__TS_GEN(n, , 0)
#endif
#undef TI__TS_GEN

#if defined(TI__TS_AVX512)
/* In cache, AVX-512, input and output at the same offset h (not 0) to a
   64-byte line, pieces of whole lines: every store aligned. The runs then
   all start h bytes into a line, and the vector moves above would store
   two line-crossing vectors per run (its first and its overlapping last),
   each costing two. Here the output is written line by line instead: a
   run's lines after its first are aligned copies (the loads aligned too),
   and the line where one run ends and the next begins is the previous
   run's last h bytes (masked load, carried in a register) OR-ed with the
   next run's first 64 - h (masked load: the lanes outside a run neither
   load nor fault); a zero run loads nothing. The first and last lines of
   the range are partial (masked stores: their other bytes are a
   neighbour's). Measured in the grid (quiet machine, alternating runs),
   256 KiB outputs 16 bytes past a line: 0.90-0.97 of memcpy for 1-8 KiB
   runs (the vector moves, and memcpy per stretch for 8 KiB: 0.79-0.89),
   512 B 0.86-0.90 (0.75-0.77). */
TI__T_AVX512 static void ti__ts_rows_aligned_avx512(const ti__ts_job *j, int64_t r0, int64_t r1) {
  const int64_t T = j->T, G = j->G, sign = j->sign;
  const size_t piece = j->piece, row = j->row;
  unsigned char *d = j->dst + (size_t)r0 * row;   /* the next run's output */
  const size_t h = (uintptr_t)d & 63;
  const ti__vz_m64 lo = ((ti__vz_m64)1 << h) - 1, hi = ~lo;
  ti__vz_vi tail = ti__vz_zero();   /* the previous run's last h bytes, in lanes 0 .. h-1 */
  int first = 1;
  int64_t n = r0 / T, t = r0 % T, r, g;
  for (r = r0; r < r1; ++r) {
    const int32_t *sh = j->shifts + n * G;
    const unsigned char *base = j->src + (size_t)(n * T) * row;
    for (g = 0; g < G; ++g, d += piece) {
      const int64_t st = t - sign * sh[g];
      const int64_t in = -(int64_t)((uint64_t)st < (uint64_t)T); /* all ones or 0 */
      /* the line-aligned address h bytes before the run's source (a zero
         run: its own row, never read) */
      const unsigned char *s = base + (size_t)(t + ((st - t) & in)) * row + (size_t)g * piece - h;
      unsigned char *const L = d - h;
      const ti__vz_vi v = ti__vz_vor(tail, ti__vz_ldz8(hi & (ti__vz_m64)in, s));
      size_t o;
      if (first) { ti__vz_stm8(L, hi, v); first = 0; }
      else ti__vz_sta(L, v);
      for (o = 64; o < piece; o += 64) ti__vz_sta(L + o, ti__vz_ldbk(s + o, in));
      tail = ti__vz_ldz8(lo & (ti__vz_m64)in, s + piece);
    }
    if (++t == T) { t = 0; ++n; }
  }
  if (!first) ti__vz_stm8(d - h, lo, tail);
}
#endif

static void ti__ts_rows(void *arg, int64_t r0, int64_t r1) {
  const ti__ts_job *j = (const ti__ts_job *)arg;
#if defined(TI__TS_AVX512)
  if (j->path == TI__TS_COLUMNS) { ti__ts_columns_avx512(j, r0, r1); return; }
  if (j->path == TI__TS_LINES) { ti__ts_lines_avx512(j, r0, r1); return; }
  if (j->path == TI__TS_ALIGNED) { ti__ts_rows_aligned_avx512(j, r0, r1); return; }
#endif
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
    if (!j->stream && piece >= 32) {
      /* 32- and 64-byte pieces in cache: row by row, the output in order,
         as the per-run loop goes. Intel Xeon with AMX (cpuid family 6
         model 207), in one process against the columns (medians of 41
         rotated triples with the loop): 64-byte runs 1.7-2.1x at 64 KiB
         to 12 MiB (AVX-512, AVX2 and SSE2; the columns were 0.6-0.9 of
         the loop from 1 MiB on), 32-byte runs 1.1-1.25x (AVX2 in cache
         0.97); 16-byte runs lost (0.8-0.9x) and keep the columns. */
      ti__ts_gather(j, r0, r1, 0, G, j->dst + (size_t)r0 * row);
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
  if (j->stream && (piece < 16384 || j->nt_put == ti__nt_put_z)) {
    ti__ts_scatter(j, r0, r1);
    return;
  }
#endif
  if (!j->stream) {
    /* G == 1: every run is a whole row, so an image is one stretch */
    if (j->vrows && piece <= j->vec_max && G > 1) j->vrows(j, r0, r1);
    else ti__ts_rows_cached(j, r0, r1);
    return;
  }
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
      size_t bytes;
      const unsigned char *s = ti__ts_next_run(j, sh, base, t, &g, &bytes);
      ti__wr_put(&w, s, bytes);
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
  for (i = 0; i < TI_MAX_RANK; ++i)
    d->dims[i] = (dims && i < ndim) ? dims[i] : 0;
}

TASKIR_API ti_status ti_tinshift_ex(const ti_kernel_ctx *ctx, ti_tinshift_mode mode,
                                    const ti_tensor_desc *xd, const void *x,
                                    const ti_tensor_desc *sd, const void *shifts,
                                    const ti_tensor_desc *yd, void *y) {
  int64_t N, T, C, HW, G, count;
  size_t es;
  int i, variant;
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
  /* 5: size limit (counted without overflow: every factor is now >= 0,
     and a product of two below 2^31 fits; no division: a call on one
     element took 31 ns with the four divisions, 28 without) */
  {
    const int64_t lim = (int64_t)1 << 31;
    int64_t f[4];
    f[0] = N; f[1] = T; f[2] = C; f[3] = HW;
    count = 1;
    if (T == 0) count = 0;   /* N, C and HW are > 0 here */
    for (i = 0; i < 4 && count; ++i) {
      if (f[i] >= lim) { count = lim; break; }
      count *= f[i];
      if (count >= lim) break;
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
  job.rows = N * T;
  job.path = TI__TS_PLAIN;
  job.vrows = 0;
  job.vec_max = 0;
  job.stream = 0;  /* streaming stores are an x86 path */
  variant = ti__variant(ti__cpu(ctx), TI_FAMILY_TINSHIFT);
  switch (variant) {
#if defined(TI__X86)
  case TI_VARIANT_AVX512:
    /* the vector moves up to 4 KiB runs in outputs up to 512 KiB, 2 KiB up
       to 1 MiB, 8 KiB up to the streaming size, 1 KiB beyond; longer runs
       go to memcpy (rep movsb), which measured as fast or faster there
       (quiet machine, grid runs: 8 KiB runs at 256 KiB 0.92 of the per-run
       loop as vector moves, 0.98 with memcpy; at 1 MiB 4 KiB runs 1.05
       against 1.08-1.12 with memcpy in one process, 2 KiB runs 1.00 of
       memcpy against 0.85 with memcpy per run). The 8 KiB cap from 1 MiB
       on: at 4 MiB (AMD EPYC, cpuid family 25; grid, two runs each, its
       buffers both 16 bytes past a page, so the line-aligned stores of
       ti__ts_rows_aligned_avx512 below) 2 KiB runs went from 0.77-0.81 of
       memcpy to 0.91-0.96, 4 KiB from 0.88-0.91 to 0.93-0.99, 8 KiB from
       a tie with the per-run loop to 1.04-1.08x it; with the output 16
       bytes further (the vector moves) 2-8 KiB runs stay a tie with the
       loop, 0.96-1.06x against 0.88-1.09x; 16 KiB runs tie either way. */
    job.vrows = ti__ts_rows_vec_z;
    job.vec_max = (size_t)count * es <= ((size_t)512 << 10)  ? 4096
                  : (size_t)count * es <= ((size_t)1 << 20) ? 2048
                  : (size_t)count * es < TASKIR_KERNELS_STREAM_BYTES ? 8192
                                                            : 1024;
    break;
  case TI_VARIANT_AVX2: job.vrows = ti__ts_rows_vec_a; job.vec_max = 1024; break;
  case TI_VARIANT_SSE2: job.vrows = ti__ts_rows_vec_s; job.vec_max = 256; break;
#elif defined(TI__NEON)
  case TI_VARIANT_NEON: job.vrows = ti__ts_rows_vec_n; job.vec_max = 256; break;
#endif
  default: break;
  }
#if defined(TI__X86)
  job.stream = variant >= 0 && (size_t)count * es >= TASKIR_KERNELS_STREAM_BYTES;
  job.nt_put = variant == TI_VARIANT_AVX512 ? ti__nt_put_z : ti__nt_put;
#endif
#if defined(TI__TS_AVX512)
  if (variant == TI_VARIANT_AVX512) {
    /* streamed outputs with runs of a line up to 2 KiB: lines built in
       registers, in output order (in cache, and for shorter runs, the
       per-run branches cost more than the wider stores save); from 2 KiB
       on, the source-order scatter with 64-byte streaming stores
       (ti__nt_put_z) is faster: paired runs at 64 and 256 MiB, 4-16 KiB
       runs 1.09-1.46x what these lines (4 KiB) and 16-byte streaming
       stores (8-16 KiB) took, and on the AMD EPYC of cpuid family 25
       (grid, 16-256 MiB, four runs) 2 KiB runs 0.98-1.41 of memcpy against
       0.64-0.93 as lines in four output streams; 1 KiB runs stay lines
       (0.92-1.32 of memcpy, 0.77-1.17 scattered) */
    if (job.stream && job.piece >= 64 && job.piece < 2048) job.path = TI__TS_LINES;
    /* in cache, input and output at the same offset (not 0) to a line:
       line-aligned stores for runs of 256 B up to the vector moves' cap,
       8 KiB in outputs up to 512 KiB (ti__ts_rows_aligned_avx512; 128-byte
       runs measured 0.88-1.07 of the per-run loop that way, 8-16 KiB runs
       at 1-4 MiB measured 0.88-0.97 in an earlier round and kept their
       paths until the 8 KiB cap above) */
    if (!job.stream && G > 1 && job.piece >= 256 && job.piece % 64 == 0 &&
        job.piece <= ((size_t)count * es <= ((size_t)512 << 10) ? 8192 : job.vec_max) &&
        (((uintptr_t)x - (uintptr_t)y) & 63) == 0 && ((uintptr_t)y & 63) != 0)
      job.path = TI__TS_ALIGNED;
    /* runs of 16 to 48 bytes in rows of whole lines: column by column (in
       cache only 16-byte runs: the plain paths measured faster there for 32
       and 48) */
    if (job.piece % 16 == 0 && job.piece < 64 && (job.stream || job.piece == 16) &&
        job.row % 64 == 0 && job.row <= 16 * TI__TS_UMAX && (uintptr_t)y % 16 == 0)
      job.path = TI__TS_COLUMNS;
  }
#endif
  if ((size_t)count * es < TASKIR_TINSHIFT_SPLIT_BYTES) ti__ts_rows(&job, 0, N * T);
  else ti__parallel(ctx, N * T, ti__ts_rows, &job);
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

/* Element counts and byte sizes are kept below this, so every size fits
   int64 arithmetic without overflow; byte sizes must also fit size_t. */
#define TI__CC_LIMIT ((int64_t)1 << 48)

/* Longest window (nky*nkx*nr bytes) packed as one flat reduction. */
#define TI__CC_FLAT_BYTES 64

/* Geometry of a validated CC or CVM call (CVM is a 1x1 CC on a 1x1 image). */
typedef struct ti__cc_geo {
  int64_t ny, nx, nf, nr, nky, nkx, niy, nix;
  int64_t sy, sx, dy, dx, pu, pl;
  int64_t hn, wn;          /* padded-input rows/columns the windows reach */
  int64_t nr4, G, T, K4;   /* nr rounded to 4, its 4-byte groups, taps, packed
                              4-byte groups per channel (T*G, or
                              nky*ceil(nkx*nr/4) when win, or
                              ceil(T*nr/4) when flat) */
  int64_t nfb, nf16;       /* 16-channel blocks */
  int is_float;            /* F32 everywhere */
  int int8;                /* I8/U8/TERNARY input with I8/TERNARY weights */
  int dual;                /* I32 input with I8/TERNARY weights: int8 path when
                              the input fits 8 bits, else wide */
  int win;                 /* int8 path packs each window row (kx, r) as one
                              reduction: few channels, not a multiple of 4 */
  int flat;                /* int8 path packs the whole window (ky, kx, r) as
                              one reduction, read from im2col rows */
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
  g->dual = d->in_dtype == TI_DTYPE_I32 && (d->w_dtype == TI_DTYPE_I8 || d->w_dtype == TI_DTYPE_TERNARY);
  g->nr4 = (g->nr + 3) & ~(int64_t)3;
  g->G = g->nr4 / 4;
  g->nfb = (g->nf + 15) / 16;
  g->nf16 = g->nfb * 16;
  if (!ti__cc_mul(g->nky, g->nkx, &g->T) || !ti__cc_mul(g->T, g->G, &g->K4) ||
      !ti__cc_mul(g->K4, g->nfb * 64, &n) ||                                  /* packed */
      !ti__cc_mul(g->T, g->nr, &n) || !ti__cc_mul(n, g->nf16 * 4, &n) ||      /* packed wide */
      !ti__cc_mul(g->hn, g->wn, &n) || !ti__cc_mul(n, g->nr4, &n) ||          /* padded in */
      !ti__cc_mul(g->niy, g->nix, &n) || !ti__cc_mul(n, g->nr * 4, &n) ||     /* input */
      !ti__cc_mul(g->T, g->nr, &n) || !ti__cc_mul(n, g->nf * 4, &n) ||        /* weights */
      !ti__cc_mul(g->ny, g->nx, &n) || !ti__cc_mul(n, g->nf * 4, &n))         /* output */
    return TI_STATUS_BAD_PARAM;
  /* Few channels (nr % 4 != 0, nr < 16) under a window of undilated
     columns: rounding each tap's channels to 4 would waste up to 3/4 of the
     dot products, so the int8 path packs each window row (kx, r), nkx*nr
     bytes contiguous in the padded input, as one reduction. */
  n = g->nky * ((g->nkx * g->nr + 3) / 4);
  g->win = (g->int8 || g->dual) && g->nr % 4 != 0 && g->nr < 16 && g->nkx > 1 && g->dx == 1 &&
           n <= g->K4;
  if (g->win) g->K4 = n;
  /* A short window (nky*nkx*nr <= TI__CC_FLAT_BYTES) whose rounding to 4
     bytes per tap or per window row wastes groups: the whole window is one
     reduction of ceil(nky*nkx*nr/4) groups, each output pixel's window
     copied into a contiguous (im2col) row at run time. It pays when the dot
     products it saves per pixel (groups x 16-channel blocks) outnumber the
     copies (one per window row, or per tap when the columns are dilated):
     measured on AVX-512 VNNI, 112x112x3->32 3x3 s2 saves 4 for 3 copies and
     gains, 32x32x1->6 5x5 saves 3 for 5 and loses. */
  n = (g->T * g->nr + 3) / 4;
  g->flat = (g->int8 || g->dual) && g->T * g->nr <= TI__CC_FLAT_BYTES &&
            (g->K4 - n) * g->nfb > (g->dx == 1 ? g->nky : g->T);
  if (g->flat) { g->win = 0; g->K4 = n; }
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
   format 1 (int8 path): sum of weights per channel int32[nf16], then blocks
   [nfb][K4][16 channels][4 bytes], byte j of channel f in group
   kg = (ky*nkx + kx)*G + q being W[f][4q + j][ky][kx] (0 past nf or nr),
   then the sum of each tap's weights int32[taps][nf16] (taps: the
   ti__cc_taps of the blocks, K4/taps groups each; for the corrections of
   the output pixels whose padded taps are skipped);
   formats 4 and 5 are formats 1 and 3 with window rows packed as one
   reduction (win): with Gw = ceil(nkx*nr/4), byte j of group
   kg = ky*Gw + q holds W[f][r][ky][kx] where 4q + j = kx*nr + r (0 past
   nkx*nr);
   formats 6 and 7 are formats 1 and 3 with the whole window packed as one
   reduction (flat): byte j of group kg holds W[f][r][ky][kx] where
   4kg + j = (ky*nkx + kx)*nr + r (0 past nky*nkx*nr), one tap;
   format 2 (wide path: I32, U8 weights, F32): int32 or float
   [nky*nkx][nr][nf16], channels fastest (0 past nf);
   format 3 (I32 input, int8 weights): format 1's data, then format 2's at
   the next multiple of 64. */
#define TI__CC_MAGIC 0x77634954u
/* Taps of the int8 blocks: nky*nkx, or nky window rows when win. */
static int64_t ti__cc_taps(const ti__cc_geo *g) { return g->win ? g->nky : g->flat ? 1 : g->T; }
static int64_t ti__cc_pack8_bytes(const ti__cc_geo *g) {
  return ti__cc_al64(g->nf16 * 4) + g->nfb * g->K4 * 64 + ti__cc_taps(g) * g->nf16 * 4;
}
static int64_t ti__cc_pack_bytes(const ti__cc_geo *g) {
  if (g->int8) return 64 + ti__cc_pack8_bytes(g);
  if (g->dual) return 64 + ti__cc_al64(ti__cc_pack8_bytes(g)) + g->T * g->nr * g->nf16 * 4;
  return 64 + g->T * g->nr * g->nf16 * 4;
}
static uint32_t ti__cc_format(const ti__cc_geo *g) {
  return g->int8 ? (g->win ? 4u : g->flat ? 6u : 1u) : g->dual ? (g->win ? 5u : g->flat ? 7u : 3u) : 2u;
}
/* Shapes the AMX kernel takes (whatever the machine, so that sizes do not
   depend on it): the int8 path by taps (not window rows or flat), a tap's
   4-byte groups G from 8 to 16 or a multiple of 16 (tdpbusd over fewer
   than 32 bytes lost to the vector kernels: 56x56x16->64 3x3 0.8-0.9x),
   strides along x up to TI__CC_AMX_SX. */
#define TI__CC_AMX_SX 2
/* Packed weights above this many bytes (more than half the L2 of the
   machines measured) are read once, channel pair by channel pair over all
   pixels (7x7x512->512 3x3: 1.26x), not once a pixel pair; below, that
   order lost (0.95x at 28x28x128->256 s2, weights 295 KB). */
#define TI__CC_AMX_FMAJ ((int64_t)1 << 20)
static int ti__cc_amx_geo(const ti__cc_geo *g) {
  return (g->int8 || g->dual) && !g->win && !g->flat && g->sx <= TI__CC_AMX_SX &&
         g->G >= 8 && (g->G <= 16 || g->G % 16 == 0);
}
/* Run scratch. int8 path: corrections, tap offsets, padded input (4 more
   bytes for win, 16 for flat, 15 * sx pixels for AMX); wide path: bias per channel, and the input widened to
   int32 when it is 8-bit. */
static int64_t ti__cc_run_bytes(const ti_prim_desc *d, const ti__cc_geo *g) {
  int64_t r8 = 64 + ti__cc_al64(g->nf16 * 4) + ti__cc_al64(g->T * 24) +
               g->hn * g->wn * g->nr4 + (g->win ? 4 : 0) + (g->flat ? 16 : 0) +
               (ti__cc_amx_geo(g) ? 15 * g->sx * g->nr4 : 0);
  int64_t rw = 64 + ti__cc_al64(g->nf16 * 4) +
               (ti__cc_b8(d->in_dtype) ? g->niy * g->nix * g->nr * 4 : 0);
  if (g->int8) return r8;
  if (g->dual) return r8 > rw ? r8 : rw;
  return rw;
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
  n = ti__cc_pack_bytes(&g);
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
  n = ti__cc_run_bytes(d, &g);
  if (!weights_packed) n += 64 + ti__cc_pack_bytes(&g);   /* packed at a line */
  if (!ti__cc_fits(n)) return TI_STATUS_BAD_PARAM;
  *bytes = (size_t)n;
  return TI_STATUS_SUCCESS;
}

static void ti__cc_pack(const ti_prim_desc *d, const ti__cc_geo *g, const void *w, uint8_t *p) {
  int64_t total = ti__cc_pack_bytes(g), i;
  uint32_t hdr[9];
  hdr[0] = TI__CC_MAGIC; hdr[1] = ti__cc_format(g); hdr[2] = (uint32_t)d->w_dtype;
  hdr[3] = (uint32_t)g->nf; hdr[4] = (uint32_t)g->nr; hdr[5] = (uint32_t)g->nky;
  hdr[6] = (uint32_t)g->nkx; hdr[7] = (uint32_t)((uint64_t)total & 0xffffffffu);
  hdr[8] = (uint32_t)((uint64_t)total >> 32);
  for (i = 0; i < 64; i++) p[i] = 0;
  for (i = 0; i < 9; i++) ti__cc_wr32(p + 4 * i, hdr[i]);
  if (!g->int8) {
    /* Through memcpy: the buffer need not be aligned. */
    int64_t t, r, f;
    uint8_t *o = p + 64 + (g->dual ? ti__cc_al64(ti__cc_pack8_bytes(g)) : 0);
    for (t = 0; t < g->T; t++)
      for (r = 0; r < g->nr; r++)
        for (f = 0; f < g->nf16; f++, o += 4) {
          uint32_t v = 0;
          int64_t k = (f * g->nr + r) * g->T + t;
          if (f < g->nf) {
            if (g->is_float) ti__memcpy(&v, (const float *)w + k, 4);
            else v = ti__cc_geti(w, d->w_dtype, k);
          }
          ti__memcpy(o, &v, 4);
        }
  }
  if (g->int8 || g->dual) {
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
          if (g->win) {   /* group q of window row ky */
            int64_t gw = g->K4 / g->nky, k = 4 * (kg % gw) + j;
            t = (kg / gw) * g->nkx + k / g->nr; r = k % g->nr;
            if (k >= g->nkx * g->nr) r = g->nr;   /* past the row: zero */
          } else if (g->flat) {   /* group kg of the whole window */
            int64_t k = 4 * kg + j;
            t = k / g->nr; r = k % g->nr;
            if (k >= g->T * g->nr) { t = 0; r = g->nr; }   /* past the window: zero */
          }
          dst[j] = (f < g->nf && r < g->nr) ? (uint8_t)ws[(f * g->nr + r) * g->T + t] : 0;
        }
      }
    {   /* per-tap sums, from the blocks just written */
      int64_t nt = ti__cc_taps(g), gt = g->K4 / nt, t;
      uint8_t *ts = blk + g->nfb * g->K4 * 64;
      for (t = 0; t < nt; t++)
        for (f = 0; f < g->nf16; f++) {
          uint32_t sum = 0;
          for (kg = t * gt; kg < (t + 1) * gt; kg++)
            for (i = 0; i < 4; i++)
              sum += (uint32_t)(int32_t)(int8_t)blk[((f / 16) * g->K4 + kg) * 64 + (f % 16) * 4 + i];
          ti__cc_wr32(ts + 4 * (t * g->nf16 + f), sum);
        }
    }
  }
}

TASKIR_API ti_status ti_cc_pack_weights(const ti_prim_desc *d, const void *w, void *packed,
                                        size_t packed_bytes) {
  ti__cc_geo g;
  ti_status s = ti__cc_geom(d, &g);
  if (s) return s;
  if (!w || !packed || (uint64_t)packed_bytes < (uint64_t)ti__cc_pack_bytes(&g))
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
   offsets), so there is no per-row remainder; it writes channels fo.. of
   each pixel's output row op[p] (the row pointers stay as the tile set them:
   rewriting them per channel tile costs a store-forwarding stall).
   Padded taps (when at least 1/4 of the outputs are on the border, not for
   window rows): the pixels are taken region by region (rows above and
   below, columns left and right, then the interior), and a tile runs only
   the box of taps (rows box[0]..box[1]-1, columns box[2]..box[3]-1 of the
   tap grid) that reach the input for one of its pixels; the taps left out
   would have read padding only (u8 = off), so its corrections get
   (off - sub) * (the tap's weight sum) for each. A kernel runs the nt taps
   of tp: {input offset, weights skipped before it} pairs (j->taps: every
   tap). */
#define TI__CC_BOX_TAPS 64   /* larger windows run every tap */
#define TI__CC_BAND_BYTES 65536   /* one thread: padded rows copied per band (about) */
typedef struct ti__cc_job ti__cc_job;
/* Flat windows: rows fixed bytes apart, consecutive outputs (AVX-512 VNNI). */
typedef void (*ti__cc_fkfn)(const uint8_t *r, uint32_t *out, int64_t nfo, int pvalid,
                            const uint8_t *wb, const uint32_t *corr, int64_t nfv, int64_t G, int64_t bs);
typedef void (*ti__cc_kfn)(const ti__cc_job *j, const uint8_t *const *ip, uint32_t *const *op,
                           int64_t fo, int pvalid, const uint8_t *wb, const uint32_t *corr, int64_t nfv,
                           const int64_t *tp, int64_t nt);
struct ti__cc_job {
  const ti__cc_geo *g;
  const uint8_t *pad, *blk, *tsum; /* tsum: per-tap weight sums (packed) */
  const uint32_t *corr;
  const int64_t *tapoff, *taps;   /* taps: {tapoff[t], 0} pairs */
  uint32_t *out;
  int64_t G, T, bstride, npix, npt;
  int64_t tnx, tny;               /* the tap grid: tny rows of tnx taps */
  int64_t ry0, ry1;               /* output rows whose windows reach no
                                     padded row: ry0..ry1-1 */
  int64_t seg[5][5];              /* pixel regions: y0, y1, x0, x1, column-major */
  int64_t segt[6];                /* first tile of each region, then npt */
  uint32_t padv;                  /* (off - sub): a skipped tap's part per weight */
  int64_t cs;                     /* bytes per padded input pixel */
  int64_t pado;                   /* pad holds the padded input from this
                                     byte on (a band of rows; else 0) */
  int64_t pb;                     /* the items run in blocks of pb pixel tiles,
                                     channel tile by channel tile inside a
                                     block (pb = 1: pixel tile by pixel tile) */
  ti__cc_fkfn fk;                 /* flat, 17..32 channels: the 12-pixel kernel
                                     on rows fpitch bytes apart (else NULL) */
  int64_t fpitch;
  int P, L, nvmax;
  int amx;                        /* the AMX kernel may take the job */
  int var;                        /* the vector kernels' variant */
  ti__cc_kfn kfn[4];
};

#define TI__CC_REP1(X, P, B, D) X(0, P, B, D)
#define TI__CC_REP2(X, P, B, D) X(0, P, B, D) X(1, P, B, D)
#define TI__CC_REP3(X, P, B, D) TI__CC_REP2(X, P, B, D) X(2, P, B, D)
#define TI__CC_REP4(X, P, B, D) TI__CC_REP3(X, P, B, D) X(3, P, B, D)
#define TI__CC_REP5(X, P, B, D) TI__CC_REP4(X, P, B, D) X(4, P, B, D)
#define TI__CC_REP6(X, P, B, D) TI__CC_REP5(X, P, B, D) X(5, P, B, D)
#define TI__CC_REP12(X, P, B, D) TI__CC_REP6(X, P, B, D) X(6, P, B, D) X(7, P, B, D) \
  X(8, P, B, D) X(9, P, B, D) X(10, P, B, D) X(11, P, B, D)
/* Byte offset of vector v of a tile inside the packed blocks. */
#define TI__CC_WOFF(v, L, bs) ((size_t)(((v) / (16 / (L))) * (bs) + ((v) % (16 / (L))) * (L) * 4))
/* Per pixel p, over the SIMD layer of ISA P with broadcast B and dot D. */
#define TI__CC_DECL(p, P, B, D) ti__v##P##_vi a##p##0 = c0_, a##p##1 = c1_, a##p##2 = c2_, \
  a##p##3 = c3_; const uint8_t *i##p = ip[p];
#define TI__CC_SETI(p, P, B, D) i##p = ip[p] + o_;
#define TI__CC_STEP(p, P, B, D) { ti__v##P##_vi x_ = B(i##p + q_); \
  a##p##0 = D(a##p##0, x_, w0_); \
  if (nv_ > 1) a##p##1 = D(a##p##1, x_, w1_); \
  if (nv_ > 2) a##p##2 = D(a##p##2, x_, w2_); \
  if (nv_ > 3) a##p##3 = D(a##p##3, x_, w3_); }
#define TI__CC_OUT(p, P, B, D) if (p < pvalid) { uint32_t *o = op[p] + fo; \
  ti__v##P##_stn(o, a##p##0, nfv); \
  if (nv_ > 1) ti__v##P##_stn(o + L_, a##p##1, nfv - L_); \
  if (nv_ > 2) ti__v##P##_stn(o + 2 * L_, a##p##2, nfv - 2 * L_); \
  if (nv_ > 3) ti__v##P##_stn(o + 3 * L_, a##p##3, nfv - 3 * L_); }
/* One micro-kernel: NP pixels, NV vectors of the W int32 lanes of ISA P
   (attribute A), the input's 4-byte groups broadcast by BC and multiplied
   into the accumulators by DOT. */
#define TI__CC_KERNEL(NAME, P, A, BC, DOT, NP, NV) \
A static void NAME(const ti__cc_job *j, const uint8_t *const *ip, uint32_t *const *op, \
                   int64_t fo, int pvalid, const uint8_t *wb, const uint32_t *corr, int64_t nfv, \
                   const int64_t *tp, int64_t nt) { \
  const int nv_ = NV; const int64_t L_ = ti__v##P##_W, G = j->G, bs = j->bstride; \
  const size_t wo1 = TI__CC_WOFF(1, L_, bs), wo2 = TI__CC_WOFF(2, L_, bs), \
               wo3 = TI__CC_WOFF(3, L_, bs); \
  const uint8_t *wk; int64_t t, q_; \
  /* the accumulators start at the corrections (sums wrap modulo 2^32) */ \
  const int32_t *ci_ = (const int32_t *)(const void *)corr;   /* int32 lanes, not bytes */ \
  const ti__v##P##_vi c0_ = ti__v##P##_ld(ci_); \
  const ti__v##P##_vi c1_ = nv_ > 1 ? ti__v##P##_ld(ci_ + L_) : c0_; \
  const ti__v##P##_vi c2_ = nv_ > 2 ? ti__v##P##_ld(ci_ + 2 * L_) : c0_; \
  const ti__v##P##_vi c3_ = nv_ > 3 ? ti__v##P##_ld(ci_ + 3 * L_) : c0_; \
  TI__CC_REP##NP(TI__CC_DECL, P, BC, DOT) \
  for (t = 0, wk = wb; t < nt; t++) { \
    const int64_t o_ = tp[2 * t]; \
    TI__CC_REP##NP(TI__CC_SETI, P, BC, DOT) \
    for (q_ = 0, wk += tp[2 * t + 1]; q_ < 4 * G; q_ += 4, wk += 64) { \
      ti__v##P##_vi w0_ = ti__v##P##_ldb(wk); \
      ti__v##P##_vi w1_ = nv_ > 1 ? ti__v##P##_ldb(wk + wo1) : w0_; \
      ti__v##P##_vi w2_ = nv_ > 2 ? ti__v##P##_ldb(wk + wo2) : w0_; \
      ti__v##P##_vi w3_ = nv_ > 3 ? ti__v##P##_ldb(wk + wo3) : w0_; \
      TI__CC_REP##NP(TI__CC_STEP, P, BC, DOT) \
    } \
  } \
  TI__CC_REP##NP(TI__CC_OUT, P, BC, DOT) \
}

/* Portable packed kernel (cpu = 0, or no SIMD): the same sums lane by lane. */
static void ti__cc_k_c(const ti__cc_job *j, const uint8_t *const *ip, uint32_t *const *op,
                       int64_t fo, int pvalid, const uint8_t *wb, const uint32_t *corr, int64_t nfv,
                       const int64_t *tp, int64_t nt) {
  int p;
  int64_t f, t, q, k;
  for (p = 0; p < pvalid; p++)
    for (f = 0; f < nfv && f < 16 * j->nvmax; f++) {
      uint32_t acc = corr[f];
      int64_t wo = 0;   /* the tap's weights: after those skipped */
      for (t = 0; t < nt; t++, wo += j->G * 64) {
        const uint8_t *w = wb + (f / 16) * j->bstride + (f % 16) * 4 + (wo += tp[2 * t + 1]);
        const uint8_t *a = ip[p] + tp[2 * t];
        for (q = 0; q < j->G; q++, w += 64)
          for (k = 0; k < 4; k++) acc += (uint32_t)a[4 * q + k] * (uint32_t)(int32_t)((const int8_t *)w)[k];
      }
      op[p][fo + f] = acc;
    }
}

#if defined(TI__X86)
/* SSE2 (x86-64 baseline) and AVX2: u8 x s8 dots through pmaddwd; AVX-VNNI
   and AVX-512 VNNI: vpdpbusd. */
TI__CC_KERNEL(ti__cc_k_sse2_1, s, TI__T_SSE2, ti__vs_bc4, ti__vs_dot4, 2, 1)
TI__CC_KERNEL(ti__cc_k_sse2_2, s, TI__T_SSE2, ti__vs_bc4, ti__vs_dot4, 2, 2)
TI__CC_KERNEL(ti__cc_k_sse2_3, s, TI__T_SSE2, ti__vs_bc4, ti__vs_dot4, 2, 3)
TI__CC_KERNEL(ti__cc_k_sse2_4, s, TI__T_SSE2, ti__vs_bc4, ti__vs_dot4, 2, 4)
TI__CC_KERNEL(ti__cc_k_avx2_1, a, TI__T_AVX2, ti__va_bc4, ti__va_dot4, 3, 1)
TI__CC_KERNEL(ti__cc_k_avx2_2, a, TI__T_AVX2, ti__va_bc4, ti__va_dot4, 3, 2)
TI__CC_KERNEL(ti__cc_k_avxvnni_1, a, TI__T_AVXVNNI, ti__va_bc4, ti__va_dpbusd, 6, 1)
TI__CC_KERNEL(ti__cc_k_avxvnni_2, a, TI__T_AVXVNNI, ti__va_bc4, ti__va_dpbusd, 6, 2)
TI__CC_KERNEL(ti__cc_k_avx512_1, z, TI__T_AVX512, ti__vz_bc4, ti__vz_dot4, 4, 1)
TI__CC_KERNEL(ti__cc_k_avx512_2, z, TI__T_AVX512, ti__vz_bc4, ti__vz_dot4, 4, 2)
TI__CC_KERNEL(ti__cc_k_avx512_3, z, TI__T_AVX512, ti__vz_bc4, ti__vz_dot4, 4, 3)
TI__CC_KERNEL(ti__cc_k_avx512_4, z, TI__T_AVX512, ti__vz_bc4, ti__vz_dot4, 4, 4)
TI__CC_KERNEL(ti__cc_k_vnni512_1, z, TI__T_VNNI512, ti__vz_bc4, ti__vz_dpbusd, 6, 1)
TI__CC_KERNEL(ti__cc_k_vnni512_2, z, TI__T_VNNI512, ti__vz_bc4, ti__vz_dpbusd, 6, 2)
TI__CC_KERNEL(ti__cc_k_vnni512_3, z, TI__T_VNNI512, ti__vz_bc4, ti__vz_dpbusd, 6, 3)
TI__CC_KERNEL(ti__cc_k_vnni512_4, z, TI__T_VNNI512, ti__vz_bc4, ti__vz_dpbusd, 6, 4)
/* 5 pixels where 6 would leave a larger share of the last tile empty
   (7x7 = 49 outputs: 10 tiles of 5, not 9 of 6 with 5 empty slots). */
TI__CC_KERNEL(ti__cc_k_vnni512_5x1, z, TI__T_VNNI512, ti__vz_bc4, ti__vz_dpbusd, 5, 1)
TI__CC_KERNEL(ti__cc_k_vnni512_5x2, z, TI__T_VNNI512, ti__vz_bc4, ti__vz_dpbusd, 5, 2)
TI__CC_KERNEL(ti__cc_k_vnni512_5x3, z, TI__T_VNNI512, ti__vz_bc4, ti__vz_dpbusd, 5, 3)
TI__CC_KERNEL(ti__cc_k_vnni512_5x4, z, TI__T_VNNI512, ti__vz_bc4, ti__vz_dpbusd, 5, 4)
/* 12 pixels for up to 32 channels: short reductions (few input channels)
   spend less per tile on pointers, corrections and stores. */
TI__CC_KERNEL(ti__cc_k_vnni512_12x1, z, TI__T_VNNI512, ti__vz_bc4, ti__vz_dpbusd, 12, 1)
TI__CC_KERNEL(ti__cc_k_vnni512_12x2, z, TI__T_VNNI512, ti__vz_bc4, ti__vz_dpbusd, 12, 2)
/* Flat windows (im2col rows fixed bytes apart, one tap): 12 pixels whose
   rows are FP bytes apart from r and whose outputs follow each other (nfo
   elements apart from out), NV vectors of channels. The row offsets are
   immediates, so no register holds a pixel pointer (the generic kernel's
   twelve pointers spill): 112x112x3->32 3x3 s2 ran 1.2x faster. Built for
   17..32 channels, the only count the flat path takes 12-pixel tiles for
   (with 16 or fewer it saves too few dot products to be chosen). */
#define TI__CC_FDECL(p, P, B, D) ti__v##P##_vi a##p##0 = c0_, a##p##1 = c1_;
#define TI__CC_FSTEP(p, P, B, D) { ti__v##P##_vi x_ = B(r + (p) * fp_ + q_); \
  a##p##0 = D(a##p##0, x_, w0_); if (nv_ > 1) a##p##1 = D(a##p##1, x_, w1_); }
#define TI__CC_FOUT(p, P, B, D) if (p < pvalid) { uint32_t *o = out + (p) * nfo; \
  ti__v##P##_stn(o, a##p##0, nfv); if (nv_ > 1) ti__v##P##_stn(o + 16, a##p##1, nfv - 16); }
#define TI__CC_FKERNEL(NAME, FP, NV) \
TI__T_VNNI512 static void NAME(const uint8_t *r, uint32_t *out, int64_t nfo, int pvalid, \
                               const uint8_t *wb, const uint32_t *corr, int64_t nfv, int64_t G, \
                               int64_t bs) { \
  const int nv_ = NV; const int64_t fp_ = FP; int64_t q_; \
  const int32_t *ci_ = (const int32_t *)(const void *)corr; \
  const __m512i c0_ = ti__vz_ld(ci_), c1_ = nv_ > 1 ? ti__vz_ld(ci_ + 16) : c0_; \
  TI__CC_REP12(TI__CC_FDECL, z, ti__vz_bc4, ti__vz_dpbusd) \
  for (q_ = 0; q_ < 4 * G; q_ += 4, wb += 64) { \
    const __m512i w0_ = ti__vz_ldb(wb), w1_ = nv_ > 1 ? ti__vz_ldb(wb + bs) : w0_; \
    TI__CC_REP12(TI__CC_FSTEP, z, ti__vz_bc4, ti__vz_dpbusd) \
  } \
  TI__CC_REP12(TI__CC_FOUT, z, ti__vz_bc4, ti__vz_dpbusd) \
}
TI__CC_FKERNEL(ti__cc_fk_vnni512_32x2, 32, 2)
TI__CC_FKERNEL(ti__cc_fk_vnni512_64x2, 64, 2)
#endif /* TI__X86 */

#if defined(TI__NEON)
/* NEON: signed dots of (u8 - 128) and w (sub = 128): the broadcast input
   group is flipped to signed. */
static inline int32x4_t ti__cc_n_bc(const uint8_t *p) {
  return vreinterpretq_s32_u8(veorq_u8(vreinterpretq_u8_s32(ti__vn_bc4(p)), vdupq_n_u8(0x80)));
}
TI__CC_KERNEL(ti__cc_k_neon_1, n, , ti__cc_n_bc, ti__vn_dot4, 4, 1)
TI__CC_KERNEL(ti__cc_k_neon_2, n, , ti__cc_n_bc, ti__vn_dot4, 4, 2)
TI__CC_KERNEL(ti__cc_k_neon_3, n, , ti__cc_n_bc, ti__vn_dot4, 4, 3)
TI__CC_KERNEL(ti__cc_k_neon_4, n, , ti__cc_n_bc, ti__vn_dot4, 4, 4)
#endif /* TI__NEON */

/* The CC variant of the allowed cpu paths; *amx: AMX-INT8 is allowed, for
   the shapes it takes, and the variant returned is the one for the rest. */
static int ti__cc_var(unsigned cpu, int *amx) {
  const int v = ti__variant(cpu, TI_FAMILY_CC);
  *amx = v == TI_VARIANT_AMXINT8;
  return *amx ? ti__variant(cpu & ~(unsigned)TI_CPU_AMXINT8, TI_FAMILY_CC) : v;
}

/* Picks the micro-kernels for the allowed cpu paths and nf; returns sub. */
static unsigned ti__cc_pick(unsigned cpu, int64_t nf, int64_t npix, ti__cc_job *j) {
  j->kfn[0] = j->kfn[1] = j->kfn[2] = j->kfn[3] = ti__cc_k_c;
  j->P = 1; j->L = 16; j->nvmax = 1;
  j->var = ti__cc_var(cpu, &j->amx);
  switch (j->var) {
#if defined(TI__X86)
  case TI_VARIANT_AVX512VNNI:
    j->kfn[0] = ti__cc_k_vnni512_1; j->kfn[1] = ti__cc_k_vnni512_2;
    j->kfn[2] = ti__cc_k_vnni512_3; j->kfn[3] = ti__cc_k_vnni512_4;
    j->P = 6; j->L = 16; j->nvmax = 4;
    if (nf <= 32) {
      j->kfn[0] = ti__cc_k_vnni512_12x1; j->kfn[1] = ti__cc_k_vnni512_12x2;
      j->P = 12; j->nvmax = 2;
    } else if (((npix + 5) / 6) * 6 - npix > ((npix + 4) / 5) * 5 - npix + npix / 32) {
      j->kfn[0] = ti__cc_k_vnni512_5x1; j->kfn[1] = ti__cc_k_vnni512_5x2;
      j->kfn[2] = ti__cc_k_vnni512_5x3; j->kfn[3] = ti__cc_k_vnni512_5x4;
      j->P = 5;
    }
    break;
  case TI_VARIANT_AVXVNNI:
    j->kfn[0] = ti__cc_k_avxvnni_1; j->kfn[1] = ti__cc_k_avxvnni_2;
    j->P = 6; j->L = 8; j->nvmax = 2;
    break;
  case TI_VARIANT_AVX512:
    j->kfn[0] = ti__cc_k_avx512_1; j->kfn[1] = ti__cc_k_avx512_2;
    j->kfn[2] = ti__cc_k_avx512_3; j->kfn[3] = ti__cc_k_avx512_4;
    j->P = 4; j->L = 16; j->nvmax = 4;
    break;
  case TI_VARIANT_AVX2:
    j->kfn[0] = ti__cc_k_avx2_1; j->kfn[1] = ti__cc_k_avx2_2;
    j->P = 3; j->L = 8; j->nvmax = 2;
    break;
  case TI_VARIANT_SSE2:
    j->kfn[0] = ti__cc_k_sse2_1; j->kfn[1] = ti__cc_k_sse2_2;
    j->kfn[2] = ti__cc_k_sse2_3; j->kfn[3] = ti__cc_k_sse2_4;
    j->P = 2; j->L = 4; j->nvmax = 4;
    break;
#elif defined(TI__NEON)
  case TI_VARIANT_NEON:
    j->kfn[0] = ti__cc_k_neon_1; j->kfn[1] = ti__cc_k_neon_2;
    j->kfn[2] = ti__cc_k_neon_3; j->kfn[3] = ti__cc_k_neon_4;
    j->P = 4; j->L = 4; j->nvmax = 4;
    return 128;
#endif
  default:
    break;
  }
  (void)nf; (void)npix;
  return 0;
}

/* Taps k of one axis that reach the input for output position o: lo..hi
   (none when lo > hi). */
static void ti__cc_kspan(int64_t o, int64_t s, int64_t pad, int64_t d, int64_t nk, int64_t n,
                         int64_t *lo, int64_t *hi) {
  int64_t a = pad - o * s, b = n - 1 + pad - o * s;
  *lo = a <= 0 ? 0 : (a + d - 1) / d;
  *hi = b < 0 ? -1 : (b / d < nk - 1 ? b / d : nk - 1);
}

/* A walk over the pixels, region by region: region s, pixel k of it at
   (y, x). */
typedef struct { int64_t s, k, y, x; } ti__cc_cur;
static void ti__cc_cur_set(const ti__cc_job *j, int64_t pt, ti__cc_cur *c) {
  const int64_t *r;
  int64_t w, h;
  c->s = 0;
  while (pt >= j->segt[c->s + 1]) c->s++;
  r = j->seg[c->s];
  w = r[3] - r[2]; h = r[1] - r[0];
  c->k = (pt - j->segt[c->s]) * j->P;
  if (r[4]) { c->x = r[2] + c->k / h; c->y = r[0] + c->k % h; }
  else { c->y = r[0] + c->k / w; c->x = r[2] + c->k % w; }
}

/* The pixel tile at cursor c (then moved to the next tile): the input and
   output pointers of its pixels (the last repeated into the empty slots),
   the box of taps they need (see ti__cc_job); returns the number of
   pixels. */
static int ti__cc_tile(const ti__cc_job *j, ti__cc_cur *c, const uint8_t **ip, uint32_t **ob,
                       int64_t *box) {
  const ti__cc_geo *g = j->g;
  const int64_t xs = g->sx * j->cs, ys = g->sy * g->wn * j->cs, nf = g->nf, nx = g->nx;
  const int64_t *r = j->seg[c->s];
  const int64_t s = c->s, w = r[3] - r[2], h = r[1] - r[0], n = w * h - c->k;
  const uint8_t *const pad = j->pad;
  uint32_t *const out = j->out;
  int64_t y = c->y, x = c->x, lo, hi, ao, oo, py[12], px[12];
  int p, pvalid = (int)(n < j->P ? n : j->P);
  /* byte and element offsets, stepped and rebuilt at each wrap (no
     pointer past the buffers) */
  ao = y * ys + x * xs; oo = (y * nx + x) * nf;
  if (r[4]) {   /* column-major */
    for (p = 0; p < pvalid; p++) {
      ip[p] = pad + ao; ob[p] = out + oo; py[p] = y; px[p] = x; ao += ys; oo += nx * nf;
      if (++y == r[1]) { y = r[0]; x++; ao = y * ys + x * xs; oo = (y * nx + x) * nf; }
    }
  } else {
    for (p = 0; p < pvalid; p++) {
      ip[p] = pad + ao; ob[p] = out + oo; py[p] = y; px[p] = x; ao += xs; oo += nf;
      if (++x == r[3]) { x = r[2]; y++; ao = y * ys + x * xs; oo = (y * nx + x) * nf; }
    }
  }
  for (; p < j->P; p++) { ip[p] = ip[pvalid - 1]; ob[p] = ob[pvalid - 1]; }
  if (n > j->P) { c->k += j->P; c->y = y; c->x = x; }
  else {   /* the next region that has pixels */
    do { c->s++; } while (c->s < 5 && j->segt[c->s] == j->segt[c->s + 1]);
    if (c->s < 5) { c->k = 0; c->y = j->seg[c->s][0]; c->x = j->seg[c->s][2]; }
    else ti__cc_cur_set(j, 0, c);   /* past the last tile: back to the first */
  }
  box[0] = 0; box[1] = j->tny; box[2] = 0; box[3] = j->tnx;
  if (s == 4) return pvalid;   /* the interior: every tap */
  box[0] = box[2] = j->T; box[1] = box[3] = 0;   /* border: the union of the pixels' taps */
  for (p = 0; p < pvalid; p++) {
    int64_t lx = 0, hx = j->tnx - 1;
    ti__cc_kspan(py[p], g->sy, g->pu, g->dy, g->nky, g->niy, &lo, &hi);
    if (j->tnx > 1) ti__cc_kspan(px[p], g->sx, g->pl, g->dx, g->nkx, g->nix, &lx, &hx);
    if (lo <= hi && lx <= hx) {
      if (lo < box[0]) box[0] = lo;
      if (hi + 1 > box[1]) box[1] = hi + 1;
      if (lx < box[2]) box[2] = lx;
      if (hx + 1 > box[3]) box[3] = hx + 1;
    }
  }
  if (box[0] >= box[1] || box[2] >= box[3]) box[0] = box[1] = box[2] = box[3] = 0;
  return pvalid;
}

/* Item b of a job with nft channel tiles: its pixel tile *pt, channel tile
   *ft, and the first pixel tile *p0 and size *pbn of its block. */
static void ti__cc_item(const ti__cc_job *j, int64_t nft, int64_t b, int64_t *pt, int64_t *ft, int64_t *p0,
                        int64_t *pbn) {
  const int64_t blk = b / (j->pb * nft), r = b - blk * j->pb * nft;
  *p0 = blk * j->pb;
  *pbn = j->npt - *p0 < j->pb ? j->npt - *p0 : j->pb;
  *ft = r / *pbn; *pt = *p0 + r % *pbn;
}

/* The corrections cb of nc channels from f0 for a tile that skips every
   tap outside box (rows box[0]..box[1]-1 x columns box[2]..box[3]-1 of the
   tap grid): the skipped taps' part of the sums added; kept in ck (box,
   f0) for the next tile, which mostly shares them. */
static void ti__cc_box_corr(const ti__cc_job *j, const int64_t *box, int64_t f0, int64_t nc, uint32_t *cb,
                            int64_t *ck) {
  const uint32_t *const corr = j->corr + f0;
  int64_t f, t;
  if (box[0] == ck[0] && box[1] == ck[1] && box[2] == ck[2] && box[3] == ck[3] && f0 == ck[4]) return;
  ck[0] = box[0]; ck[1] = box[1]; ck[2] = box[2]; ck[3] = box[3]; ck[4] = f0;
  for (f = 0; f < nc; f++) cb[f] = corr[f];
  for (t = 0; t < j->T; t++) {
    const int64_t ty = t / j->tnx, tx = t % j->tnx;
    const uint8_t *ts = j->tsum + 4 * (t * j->g->nf16 + f0);
    if (ty >= box[0] && ty < box[1] && tx >= box[2] && tx < box[3]) continue;
    for (f = 0; f < nc; f++) cb[f] += j->padv * ti__cc_rd32(ts + 4 * f);
  }
}

/* One item of a tile on output rows ylo..yhi, some of whose window rows
   are in the padding: the window rows klo..khi they reach (the union is the
   first row's lowest and the last row's highest, both falling as y grows),
   the other rows' part of the sums added to the corrections (cb, ck: see
   ti__cc_box_corr), the kernel over those rows' taps. Apart from ti__cc_range, whose loop it slowed by 2.3%
   (56x56x64->128 1x1) where no tile takes it. */
static TI__NOINLINE void ti__cc_rows_item(const ti__cc_job *j, const uint8_t *const *ip, uint32_t *const *ob,
                                          int64_t f0, int pvalid, int64_t nv, int64_t nfv, int64_t ylo,
                                          int64_t yhi, uint32_t *cb, int64_t *ck) {
  const ti__cc_geo *g = j->g;
  const int64_t tnx = j->tnx;
  int64_t klo, khi, l, h, box[4];
  ti__cc_kspan(yhi, g->sy, g->pu, g->dy, g->nky, g->niy, &klo, &h);
  ti__cc_kspan(ylo, g->sy, g->pu, g->dy, g->nky, g->niy, &l, &khi);
  if (klo > khi) klo = khi + 1;   /* no row reaches the input */
  box[0] = klo; box[1] = khi + 1; box[2] = 0; box[3] = tnx;
  ti__cc_box_corr(j, box, f0, nv * j->L, cb, ck);
  j->kfn[nv - 1](j, ip, ob, f0, pvalid, j->blk + (f0 / 16) * j->bstride + (size_t)(klo * tnx * j->G * 64),
                 cb, nfv, j->taps + 2 * klo * tnx, (khi - klo + 1) * tnx);
}

/* Items b..e-1 of the tiles in row-major pixel order, every tap but the
   window rows in the padding of a tile whose pixels all skip them (top and
   bottom output rows: ti__cc_rows_item). */
static void ti__cc_range(void *arg, int64_t b, int64_t e) {
  const ti__cc_job *j = (const ti__cc_job *)arg;
  const ti__cc_geo *g = j->g;
  const uint8_t *ip[12];
  uint32_t *ob[12];
  uint32_t cb[64];   /* corrections of a tile that skips window rows */
  /* byte offset a of pixel (y, x) in the padded input, stepped without
     multiplies and rebuilt at each row (a pointer only where it is in the
     rows held: from byte pado on) */
  const int64_t xs = g->sx * j->cs, ys = g->sy * g->wn * j->cs, nx = g->nx, nf = g->nf;
  const int64_t tw = (int64_t)j->L * j->nvmax, nft = (nf + tw - 1) / tw;
  int64_t it, ft, pt, p0, pbn, y, x, a, ylo = 0, yhi = 0, ck[5] = {-1, -1, -1, -1, -1};
  int p, pvalid = 0, filled = 0, rows = 0;
  ti__cc_item(j, nft, b, &pt, &ft, &p0, &pbn);
  y = pt * j->P / nx; x = pt * j->P % nx;
  a = y * ys + x * xs;
  for (it = b; it < e; it++) {
    int64_t f0 = ft * tw, nfv = nf - f0, nv = nfv < tw ? (nfv + j->L - 1) / j->L : j->nvmax;
    if (!filled) {   /* the tile's pixels */
      int64_t pix0 = pt * j->P;
      uint32_t *o = j->out + pix0 * nf;
      pvalid = (int)(j->npix - pix0 < j->P ? j->npix - pix0 : j->P);
      ylo = y;
      for (p = 0; p < pvalid; p++, o += nf) {
        ip[p] = j->pad + (a - j->pado); ob[p] = o;
        a += xs;
        if (++x == nx) { x = 0; y++; a = y * ys; }
      }
      for (; p < j->P; p++) { ip[p] = ip[pvalid - 1]; ob[p] = ob[pvalid - 1]; }
      yhi = x == 0 ? y - 1 : y;   /* the last pixel's row */
      rows = ylo < j->ry0 || yhi >= j->ry1;
      filled = 1;
    }
    if (rows) ti__cc_rows_item(j, ip, ob, f0, pvalid, nv, nfv, ylo, yhi, cb, ck);
    else j->kfn[nv - 1](j, ip, ob, f0, pvalid, j->blk + (f0 / 16) * j->bstride, j->corr + f0, nfv,
                        j->taps, j->T);
    if (pbn == 1 && ft + 1 < nft) ft++;   /* the same pixels */
    else {
      filled = 0;
      if (++pt < p0 + pbn) continue;
      if (++ft == nft) { ft = 0; p0 = pt; pbn = j->npt - p0 < j->pb ? j->npt - p0 : j->pb; }
      else {   /* the block's pixels again */
        pt = p0; y = pt * j->P / nx; x = pt * j->P % nx; a = y * ys + x * xs;
      }
    }
  }
}

/* Items b..e-1 of the tiles region by region, padded taps skipped. */
static void ti__cc_range_box(void *arg, int64_t b, int64_t e) {
  const ti__cc_job *j = (const ti__cc_job *)arg;
  const uint8_t *ip[12];
  uint32_t *ob[12];
  uint32_t cb[64];   /* corrections of a tile that skips taps */
  int64_t box[4], tl[2 * TI__CC_BOX_TAPS], ntl = 0;   /* its taps */
  int64_t cbk[5] = {-1, -1, -1, -1, -1};   /* the box and channel tile cb is for */
  const int64_t nf = j->g->nf, nt = j->T;
  const int64_t tw = (int64_t)j->L * j->nvmax, nft = (nf + tw - 1) / tw;
  int64_t it, ft, pt, p0, pbn;
  int pvalid = 0, filled = 0, full = 1;
  ti__cc_cur cur;
  ti__cc_item(j, nft, b, &pt, &ft, &p0, &pbn);
  ti__cc_cur_set(j, pt, &cur);
  for (it = b; it < e; it++) {
    int64_t f0 = ft * tw, nfv = nf - f0, nv = nfv < tw ? (nfv + j->L - 1) / j->L : j->nvmax;
    const uint32_t *corr = j->corr + f0;
    if (!filled) {   /* the tile's pixels */
      pvalid = ti__cc_tile(j, &cur, ip, ob, box);
      full = (box[1] - box[0]) * (box[3] - box[2]) == nt;
      if (!full) {   /* the box's taps, and the weights of the taps between */
        int64_t ty, tx, last = -1;
        for (ntl = 0, ty = box[0]; ty < box[1]; ty++)
          for (tx = box[2]; tx < box[3]; tx++, ntl++) {
            const int64_t t = ty * j->tnx + tx;
            tl[2 * ntl] = j->taps[2 * t];
            tl[2 * ntl + 1] = (t - last - 1) * j->G * 64;
            last = t;
          }
      }
      filled = 1;
    }
    if (!full) { ti__cc_box_corr(j, box, f0, nv * j->L, cb, cbk); corr = cb; }
    j->kfn[nv - 1](j, ip, ob, f0, pvalid, j->blk + (f0 / 16) * j->bstride, corr, nfv,
                   full ? j->taps : tl, full ? nt : ntl);
    if (pbn == 1 && ft + 1 < nft) ft++;   /* the same pixels */
    else {
      filled = 0;
      if (++pt < p0 + pbn) continue;
      if (++ft == nft) { ft = 0; p0 = pt; pbn = j->npt - p0 < j->pb ? j->npt - p0 : j->pb; }
      else { pt = p0; ti__cc_cur_set(j, pt, &cur); }   /* the block's pixels again */
    }
  }
}

/* Flat windows (g->flat): items are blocks of up to TI__CC_FLAT_PIX pixels
   in row-major order. A block's windows are first copied from the padded
   input into contiguous rows of 4*G bytes (im2col; one 16-byte copy per
   window row when the row is at most 16 bytes, the bytes copied past it
   overwritten by the next row or meeting zero weights), then every tile of
   P pixels of the block runs as one tap over its rows. */
#define TI__CC_FLAT_PIX 64
static void ti__cc_range_flat(void *arg, int64_t b, int64_t e) {
  const ti__cc_job *j = (const ti__cc_job *)arg;
  const ti__cc_geo *g = j->g;
  uint8_t rows[TI__CC_FLAT_PIX * TI__CC_FLAT_BYTES + 16];
  const uint8_t *ip[12];
  uint32_t *ob[12];
  const int64_t cs = j->cs, xs = g->sx * cs, ys = g->sy * g->wn * cs, nx = g->nx, nf = g->nf;
  const int64_t rb = 4 * j->G, lr = g->nkx * g->nr, kys = g->dy * g->wn * cs, kxs = g->dx * cs;
  const int64_t nb = (TI__CC_FLAT_PIX / j->P) * j->P, tw = (int64_t)j->L * j->nvmax;
  /* locals: the byte stores below could alias *g and *j */
  const int64_t ktail = g->T * g->nr, nky = g->nky, nkx = g->nkx, nr = g->nr;
  const int64_t npix = j->npix, P = j->P;
  const uint8_t *const pad = j->pad;
  const int fast = g->dx == 1 && lr <= 16 && (nky - 1) * lr + 16 >= rb;   /* covers the tail */
  const int64_t rp = j->fk ? j->fpitch : rb;   /* bytes between rows */
  int64_t it;
  for (it = b; it < e; it++) {
    int64_t pix0 = it * nb, np = npix - pix0 < nb ? npix - pix0 : nb;
    int64_t y = pix0 / nx, x = pix0 % nx, k, f0, n, q, ky, kx;
    for (k = 0; k < np; k += n, x = 0, y++) {   /* the block's im2col rows, output row by row */
      const uint8_t *a = pad + y * ys + x * xs;
      uint8_t *r = rows + k * rp;
      n = nx - x < np - k ? nx - x : np - k;
      if (fast && nky == 3) {
        for (q = 0; q < n; q++, a += xs, r += rp) {
          ti__memcpy(r, a, 16); ti__memcpy(r + lr, a + kys, 16); ti__memcpy(r + 2 * lr, a + 2 * kys, 16);
        }
      } else if (fast) {
        for (q = 0; q < n; q++, a += xs, r += rp)
          for (ky = 0; ky < nky; ky++) ti__memcpy(r + ky * lr, a + ky * kys, 16);
      } else {
        for (q = 0; q < n; q++, a += xs, r += rp) {
          for (ky = 0; ky < nky; ky++)
            for (kx = 0; kx < nkx; kx++)
              ti__memcpy(r + (ky * nkx + kx) * nr, a + ky * kys + kx * kxs, (size_t)nr);
          for (kx = ktail; kx < rb; kx++) r[kx] = 0;   /* meets zero weights */
        }
      }
    }
    if (j->fk && np % P)   /* the rows the last tile reads past the pixels: zero, not stale */
      TASKIR_MEMSET(rows + np * rp, 0, (size_t)((P - np % P) * rp));
    for (k = 0; k < np; k += P) {   /* its tiles */
      int p, pvalid = (int)(np - k < P ? np - k : P);
      if (j->fk) {   /* one channel tile */
        j->fk(rows + k * rp, j->out + (pix0 + k) * nf, nf, pvalid, j->blk, j->corr, nf, j->G, j->bstride);
        continue;
      }
      for (p = 0; p < pvalid; p++) { ip[p] = rows + (k + p) * rp; ob[p] = j->out + (pix0 + k + p) * nf; }
      for (; p < P; p++) { ip[p] = ip[pvalid - 1]; ob[p] = ob[pvalid - 1]; }
      for (f0 = 0; f0 < nf; f0 += tw) {
        int64_t nfv = nf - f0, nv = nfv < tw ? (nfv + j->L - 1) / j->L : j->nvmax;
        j->kfn[nv - 1](j, ip, ob, f0, pvalid, j->blk + (f0 / 16) * j->bstride, j->corr + f0, nfv,
                       j->taps, 1);
      }
    }
  }
}

/* The int8 path's input copies, one set per SIMD layer P (vectors, then
   elements):
   x: n bytes from s to o, each with 0x80 flipped (off = 128: signed input
      to the unsigned operand of the dot products; off 0 copies);
   n: n int32 values (each in 8 bits, see r) to bytes, o[i] = (uint8)(s[i] + off);
   r: the least and greatest of n int32 values and 0 (*lo <= 0 <= *hi).
   Plain loops would do, but GCC at -O2 leaves them scalar: with them, the
   int32 input of 56x56x64->64 3x3 ran at 148 GMAC/s at -O2 against 218 at
   -O3 (AVX-512 VNNI, AMD EPYC of cpuid family 25). */
typedef void (*ti__cc_xfn)(uint8_t *o, const uint8_t *s, int64_t n);
typedef void (*ti__cc_nfn)(uint8_t *o, const int32_t *s, int64_t n, uint32_t off);
typedef void (*ti__cc_rfn)(const int32_t *s, int64_t n, int32_t *lo, int32_t *hi);
typedef struct ti__cc_copies { ti__cc_xfn x; ti__cc_nfn n; ti__cc_rfn r; } ti__cc_copies;
#define TI__CC_COPIES(S, P, A) \
A static void ti__cc_xcopy_##S(uint8_t *o, const uint8_t *s, int64_t n) { \
  const ti__v##P##_vi k = ti__v##P##_set1((int32_t)0x80808080u); \
  const int64_t vb = 4 * ti__v##P##_W; \
  int64_t r = 0; \
  for (; r + 2 * vb <= n; r += 2 * vb) { \
    const ti__v##P##_vi a = ti__v##P##_ldb(s + r), b = ti__v##P##_ldb(s + r + vb); \
    ti__v##P##_stb(o + r, ti__v##P##_vxor(a, k)); \
    ti__v##P##_stb(o + r + vb, ti__v##P##_vxor(b, k)); \
  } \
  for (; r + vb <= n; r += vb) ti__v##P##_stb(o + r, ti__v##P##_vxor(ti__v##P##_ldb(s + r), k)); \
  for (; r < n; r++) o[r] = (uint8_t)(s[r] ^ 0x80u); \
} \
A static void ti__cc_ncopy_##S(uint8_t *o, const int32_t *s, int64_t n, uint32_t off) { \
  const ti__v##P##_vi k = ti__v##P##_set1((int32_t)off); \
  const int64_t W = ti__v##P##_W; \
  int64_t r = 0; \
  for (; r + 2 * W <= n; r += 2 * W) { \
    const ti__v##P##_vi a = ti__v##P##_ld(s + r), b = ti__v##P##_ld(s + r + W); \
    ti__v##P##_st8(o + r, ti__v##P##_vadd(a, k)); \
    ti__v##P##_st8(o + r + W, ti__v##P##_vadd(b, k)); \
  } \
  for (; r < n; r++) o[r] = (uint8_t)((uint32_t)s[r] + off); \
} \
A static void ti__cc_nrange_##S(const int32_t *s, int64_t n, int32_t *lo, int32_t *hi) { \
  ti__v##P##_vi l0 = ti__v##P##_zero(), h0 = l0, l1 = l0, h1 = l0; \
  const int64_t W = ti__v##P##_W; \
  int32_t a[16], b[16], x = 0, y = 0; \
  int64_t r = 0, i; \
  for (; r + 2 * W <= n; r += 2 * W) { \
    const ti__v##P##_vi u = ti__v##P##_ld(s + r), v = ti__v##P##_ld(s + r + W); \
    l0 = ti__v##P##_vmin(l0, u); h0 = ti__v##P##_vmax(h0, u); \
    l1 = ti__v##P##_vmin(l1, v); h1 = ti__v##P##_vmax(h1, v); \
  } \
  ti__v##P##_st(a, ti__v##P##_vmin(l0, l1)); ti__v##P##_st(b, ti__v##P##_vmax(h0, h1)); \
  for (i = 0; i < W; i++) { x = a[i] < x ? a[i] : x; y = b[i] > y ? b[i] : y; } \
  for (; r < n; r++) { x = s[r] < x ? s[r] : x; y = s[r] > y ? s[r] : y; } \
  *lo = x; *hi = y; \
}
#if defined(TI__X86)
TI__CC_COPIES(sse2, s, TI__T_SSE2)
TI__CC_COPIES(avx2, a, TI__T_AVX2)
TI__CC_COPIES(avx512, z, TI__T_AVX512)
#elif defined(TI__NEON)
TI__CC_COPIES(neon, n, )
#endif
#undef TI__CC_COPIES
static void ti__cc_xcopy_c(uint8_t *o, const uint8_t *s, int64_t n) {
  int64_t r;
  for (r = 0; r < n; r++) o[r] = (uint8_t)(s[r] ^ 0x80u);
}
static void ti__cc_ncopy_c(uint8_t *o, const int32_t *s, int64_t n, uint32_t off) {
  int64_t r;
  for (r = 0; r < n; r++) o[r] = (uint8_t)((uint32_t)s[r] + off);
}
static void ti__cc_nrange_c(const int32_t *s, int64_t n, int32_t *lo, int32_t *hi) {
  int32_t x = 0, y = 0;
  int64_t r;
  for (r = 0; r < n; r++) { x = s[r] < x ? s[r] : x; y = s[r] > y ? s[r] : y; }
  *lo = x; *hi = y;
}
/* The copies for the CC variant var (the widest vectors its cpu has). */
static ti__cc_copies ti__cc_copies_for(int var) {
  ti__cc_copies c;
  switch (var) {
#if defined(TI__X86)
  case TI_VARIANT_AVX512VNNI: case TI_VARIANT_AVX512:
    c.x = ti__cc_xcopy_avx512; c.n = ti__cc_ncopy_avx512; c.r = ti__cc_nrange_avx512; return c;
  case TI_VARIANT_AVXVNNI: case TI_VARIANT_AVX2:
    c.x = ti__cc_xcopy_avx2; c.n = ti__cc_ncopy_avx2; c.r = ti__cc_nrange_avx2; return c;
  case TI_VARIANT_SSE2:
    c.x = ti__cc_xcopy_sse2; c.n = ti__cc_ncopy_sse2; c.r = ti__cc_nrange_sse2; return c;
#elif defined(TI__NEON)
  case TI_VARIANT_NEON:
    c.x = ti__cc_xcopy_neon; c.n = ti__cc_ncopy_neon; c.r = ti__cc_nrange_neon; return c;
#endif
  default:
    c.x = ti__cc_xcopy_c; c.n = ti__cc_ncopy_c; c.r = ti__cc_nrange_c; return c;
  }
}
/* The int8 path's input copies for the allowed cpu paths. */
static ti__cc_copies ti__cc_copies_cpu(unsigned cpu) {
  int amx;
  return ti__cc_copies_for(ti__cc_var(cpu, &amx));
}
static void ti__cc_copy_off(uint8_t *o, const uint8_t *s, int64_t n, uint32_t off, ti__cc_xfn x) {
  if (off & 0x80u) x(o, s, n);
  else TASKIR_MEMCPY(o, s, (size_t)n);
}

/* The padded input of the int8 path, rows y0..y1-1: the padding is filled
   with off, the input's columns are one flat loop when no channel rounding
   separates its pixels. */
typedef struct ti__cc_padjob {
  const ti__cc_geo *g;
  uint8_t *pad;
  const void *in;
  const uint8_t *src;
  int64_t cs;
  uint32_t off;
  int i32;                        /* the input is int32 (else 8-bit) */
  ti__cc_copies cp;               /* the copies of the cpu's vectors */
  int64_t prow;                   /* the row pad starts at (a band's first) */
} ti__cc_padjob;
static void ti__cc_pad_rows(void *arg, int64_t y0, int64_t y1) {
  const ti__cc_padjob *pj = (const ti__cc_padjob *)arg;
  const ti__cc_geo *g = pj->g;
  uint8_t *const pad = pj->pad;
  const void *const in = pj->in;
  const uint8_t *const src = pj->src;
  const int64_t cs = pj->cs;
  const uint32_t off = pj->off;
  int64_t y, x, r;
  for (y = y0; y < y1; y++) {
    uint8_t *o = pad + (y - pj->prow) * g->wn * cs;
    int64_t iy = y - g->pu, x0 = g->pl < g->wn ? g->pl : g->wn;
    int64_t x1 = g->pl + g->nix < g->wn ? g->pl + g->nix : g->wn, e = iy * g->nix * g->nr, n;
    if (iy < 0 || iy >= g->niy) { TASKIR_MEMSET(o, (int)off, (size_t)(g->wn * cs)); continue; }
    TASKIR_MEMSET(o, (int)off, (size_t)(x0 * cs));
    if (cs == g->nr) {
      n = (x1 - x0) * g->nr; o += x0 * cs;
      if (pj->i32) pj->cp.n(o, (const int32_t *)in + e, n, off);
      else ti__cc_copy_off(o, src + e, n, off, pj->cp.x);
    } else {
      for (x = x0, o += x0 * cs; x < x1; x++, o += cs, e += g->nr) {
        if (pj->i32) pj->cp.n(o, (const int32_t *)in + e, g->nr, off);
        else
          for (r = 0; r < g->nr; r++) o[r] = (uint8_t)(src[e + r] + off);
        for (r = g->nr; r < cs; r++) o[r] = (uint8_t)off;
      }
    }
    o = pad + (y - pj->prow) * g->wn * cs;
    TASKIR_MEMSET(o + x1 * cs, (int)off, (size_t)((g->wn - x1) * cs));
  }
}

/* ---- AMX: tiles of 16 pixels x 16 channels ---------------------------------
   With AMX-INT8 (variant amx-int8) the int8 path's sums are taken on 16x16
   int32 tiles: tdpbssd for signed input (padded as it is, with zeros: off
   0, so the corrections are the bias alone), tdpbusd for unsigned input
   (S = sum u8 * w as above). The packed weights need no other layout: 16 groups of
   4 bytes x 16 channels of a block are one B tile (16 rows of 64 bytes).
   An A tile is 16 pixels whose padded input lies rs bytes apart, one row
   per pixel: kc 4-byte groups of one tap (kc = G when G <= 16, else 16 and
   G a multiple of it). A job item is 2 pixel tiles x 32 channels: four
   accumulator tiles, two A and two B tiles (all eight tile registers).
   Pixel tiles run along the output rows (16 pixels of a row, sx * cs bytes
   apart) or, at stride 1, along the rows of the padded width flattened
   (pixel v at v * cs; the wn - nx pixels past a row are computed and
   dropped), whichever leaves fewer tile rows empty. A tile's rows past its
   last pixel read up to 15 * sx pixels past the padded input: the scratch
   has room for them (filled with off). Items go pixel pair by pixel pair, so
   the k-th part of a split range writes the k-th part of the pixels, unless
   the weights are over TI__CC_AMX_FMAJ: then channel pair by channel pair. The
   accumulators start at the corrections and are stored straight to the
   output where their 16 rows are 16 consecutive output pixels, else through
   the stack row by row; the dword sums wrap modulo 2^32 as the reference's
   do. */
#if defined(TI__AMX)
typedef struct ti__amx_job {
  const uint8_t *pad, *blk;
  const uint32_t *corr;
  uint32_t *out;
  const int64_t *tapoff;
  int64_t T, kc, nk, bstride, rs, nf, nfb, nfp;
  int64_t nx, wn, cs, ys;
  int64_t virt;                 /* tiles along the flattened padded rows */
  int64_t tx, vend, ntile;      /* tiles per output row; virt: pixels; tiles */
  int64_t npix, npair;          /* output pixels, pixel pairs */
  int fmaj;                     /* items channel pair by channel pair (else pixel pair by pair) */
  int sgn;                      /* signed input (tdpbssd, no offset), else tdpbusd */
} ti__amx_job;

/* Tile t: the byte offset of its first pixel in the padded input, and the
   output row of each of its 16 pixels (NULL past the pixels); *whole: the
   16 pixels are valid and follow each other in the output. */
static int64_t ti__amx_tile(const ti__amx_job *j, int64_t t, uint32_t **ob, int *whole) {
  int64_t r;
  if (j->virt) {
    int64_t v = t * 16, y = v / j->wn, x = v - y * j->wn;
    *whole = v + 16 <= j->vend && x + 16 <= j->nx;
    for (r = 0; r < 16; r++, v++) {
      ob[r] = v < j->vend && x < j->nx ? j->out + (y * j->nx + x) * j->nf : NULL;
      if (++x == j->wn) { x = 0; y++; }
    }
    return t * 16 * j->cs;
  } else {
    const int64_t y = t / j->tx, x0 = (t - y * j->tx) * 16;
    *whole = x0 + 16 <= j->nx;
    for (r = 0; r < 16; r++) ob[r] = x0 + r < j->nx ? j->out + (y * j->nx + x0 + r) * j->nf : NULL;
    return y * j->ys + x0 * j->rs;
  }
}

/* The n (< 16 or rows missing) channels of a stored tile's rows. */
TI__T_AVX512 static void ti__amx_rows(uint32_t *const *ob, const int32_t *acc, int64_t f, int64_t n) {
  int r;
  for (r = 0; r < 16; r++, acc += 16)
    if (ob[r]) ti__vz_stn(ob[r] + f, ti__vz_ld(acc), n);
}

/* The taps and K steps of one item: NA pixel tiles (A: tiles 4, 5) x NB
   channel blocks (B: tiles 6, 7) into accumulators 0, 1 (pixel tile 0) and
   2, 3 (pixel tile 1), which start at the corrections (a row read NB
   times with stride 0) and go straight to the output when its rows are
   whole. Over the taps, the output lines of the next pixel pair's item on
   the same channels are fetched to L2 (pf: pper pixels a tap, two lines
   each; 1.02-1.09x on 3x3 convs whose output is not in L2; at one tap
   0.97x, so items of one tap do not). LF: a step's four tiles are loaded
   before its four products (A0, B0, A1, B1, then products 0, 2, 1, 3):
   on 3x3 convs 1.04-1.11x where a tile load costs most (the host's slow
   phases), 1.0x elsewhere; items of one tap keep loads and products
   interleaved (0.97x otherwise). */
#define TI__AMX_ITEM(NA, NB, PF, LF) \
  _tile_loadd(0, j->corr + f0, 0); \
  if (NB > 1) _tile_loadd(1, j->corr + f0 + 16, 0); \
  if (NA > 1) _tile_loadd(2, j->corr + f0, 0); \
  if (NA > 1 && NB > 1) _tile_loadd(3, j->corr + f0 + 16, 0); \
  for (t = 0; t < T; t++) { \
    const uint8_t *a0 = p0 + tapoff[t], *a1 = p1 + tapoff[t]; \
    if (PF) { \
      int64_t u = t * pper, ue = u + pper < npf ? u + pper : npf; \
      for (; u < ue; u++) { \
        _mm_prefetch((const char *)(pf + u * nf), _MM_HINT_T1); \
        _mm_prefetch((const char *)(pf + u * nf + 16), _MM_HINT_T1); \
      } \
    } \
    for (k = 0; k < nk; k++, w += kb) { \
      if (LF) { \
        _tile_loadd(4, a0 + k * 64, rs); _tile_loadd(6, w, 64); \
        _tile_loadd(5, a1 + k * 64, rs); _tile_loadd(7, w + bs, 64); \
        TI__AMX_DP(0, 4, 6); TI__AMX_DP(2, 5, 6); TI__AMX_DP(1, 4, 7); TI__AMX_DP(3, 5, 7); \
        continue; \
      } \
      _tile_loadd(4, a0 + k * 64, rs); \
      _tile_loadd(6, w, 64); \
      TI__AMX_DP(0, 4, 6); \
      if (NB > 1) { _tile_loadd(7, w + bs, 64); TI__AMX_DP(1, 4, 7); } \
      if (NA > 1) { \
        _tile_loadd(5, a1 + k * 64, rs); TI__AMX_DP(2, 5, 6); \
        if (NB > 1) TI__AMX_DP(3, 5, 7); \
      } \
    } \
  } \
  TI__AMX_OUT(0, 0, 0) \
  if (NB > 1) TI__AMX_OUT(1, 0, 1) \
  if (NA > 1) TI__AMX_OUT(2, 1, 0) \
  if (NA > 1 && NB > 1) TI__AMX_OUT(3, 1, 1)
#define TI__AMX_DP(c, a, b) { if (sgn) _tile_dpbssd(c, a, b); else _tile_dpbusd(c, a, b); }
#define TI__AMX_OUT(c, a, fb) { \
  const int64_t f_ = f0 + 16 * (fb); \
  if (whole[a] && nf - f_ >= 16) _tile_stored(c, ob[a][0] + f_, nf * 4); \
  else { _tile_stored(c, acc, 64); ti__amx_rows(ob[a], acc, f_, nf - f_); } }
/* Items b..e-1 of job j; fetch: the next pixel pair's output lines (a
   constant: without them, items of one tap ran 0.92-0.97x with the code for
   them in the loop). */
TI__T_AMX static inline __attribute__((always_inline)) void ti__amx_items(const ti__amx_job *j, int64_t b,
                                                                         int64_t e, const int fetch) {
  int32_t acc[256] __attribute__((aligned(64)));
  uint8_t cfg[64] __attribute__((aligned(64)));
  uint32_t *ob[2][16];
  int whole[2] = {0, 0};
  const int64_t T = j->T, nk = j->nk, kb = j->kc * 64, bs = j->bstride, rs = j->rs, nf = j->nf;
  const int64_t *const tapoff = j->tapoff;
  const int sgn = j->sgn;
  const int64_t pper = (32 + T - 1) / T, npix = j->npix;
  int64_t it, pp = -1, i, opn = 0, npf = 0;
  const uint8_t *p0 = j->pad, *p1 = j->pad;
  int na = 1;
  for (i = 0; i < 64; i++) cfg[i] = 0;
  cfg[0] = 1;   /* palette 1; colsb (16-bit) at 16 + 2i, rows at 48 + i */
  for (i = 0; i < 8; i++) {
    const int64_t colsb = i >= 4 && i < 6 ? j->kc * 4 : 64, rows = i >= 6 ? j->kc : 16;
    cfg[16 + 2 * i] = (uint8_t)colsb; cfg[48 + i] = (uint8_t)rows;
  }
  _tile_loadconfig(cfg);
  for (it = b; it < e; it++) {
    const int64_t q = j->fmaj ? it % j->npair : it / j->nfp, fp = j->fmaj ? it / j->npair : it - q * j->nfp;
    const int64_t f0 = fp * 32;
    const int nb = fp * 2 + 1 < j->nfb ? 2 : 1;
    const uint8_t *w = j->blk + fp * 2 * bs;
    const uint32_t *pf;
    int64_t t, k;
    if (q != pp) {   /* the pixel pair's tiles; the next pair's first output pixel */
      const int64_t tn = 2 * q + 2;
      pp = q;
      if (!fetch || tn >= j->ntile) opn = npix;
      else if (j->virt) opn = tn * 16 - (tn * 16 / j->wn) * (j->wn - j->nx);
      else opn = tn / j->tx * j->nx + tn % j->tx * 16;
      if (opn > npix) opn = npix;   /* a dropped pixel past the last row */
      npf = npix - opn < 32 ? npix - opn : 32;
      p0 = j->pad + ti__amx_tile(j, 2 * q, ob[0], &whole[0]);
      na = 2 * q + 1 < j->ntile ? 2 : 1;
      p1 = na > 1 ? j->pad + ti__amx_tile(j, 2 * q + 1, ob[1], &whole[1]) : p0;
    }
    pf = npf > 0 ? j->out + opn * nf + f0 : j->out;   /* in the output */
    if (fetch && na > 1 && nb > 1 && npf > 0) { TI__AMX_ITEM(2, 2, 1, 1) }
    else if (na > 1 && nb > 1) { TI__AMX_ITEM(2, 2, 0, fetch) }
    else if (na > 1) { TI__AMX_ITEM(2, 1, 0, 0) }
    else if (nb > 1) { TI__AMX_ITEM(1, 2, 0, 0) }
    else { TI__AMX_ITEM(1, 1, 0, 0) }
  }
  _tile_release();
}
TI__T_AMX static void ti__cc_amx_range(void *arg, int64_t b, int64_t e) {
  ti__amx_items((const ti__amx_job *)arg, b, e, 1);
}
TI__T_AMX static void ti__cc_amx_range1(void *arg, int64_t b, int64_t e) {   /* one tap */
  ti__amx_items((const ti__amx_job *)arg, b, e, 0);
}
#undef TI__AMX_DP
#undef TI__AMX_OUT
#undef TI__AMX_ITEM

/* The AMX tiles of a shape: 1 and *j's geometry when the kernel takes it
   (ti__cc_amx_geo, at least 16 outputs, tiles at least half full), else 0. */
static int ti__cc_amx_plan(const ti__cc_geo *g, ti__amx_job *j) {
  const int64_t npix = g->ny * g->nx, cs = g->nr4;
  int64_t trow, tvirt;
  if (!ti__cc_amx_geo(g) || npix < 16) return 0;
  j->T = g->T; j->kc = g->G <= 16 ? g->G : 16; j->nk = g->G / j->kc; j->bstride = g->K4 * 64;
  j->nf = g->nf; j->nfb = g->nfb; j->nfp = (g->nfb + 1) / 2;
  j->nx = g->nx; j->wn = g->wn; j->cs = cs; j->ys = g->sy * g->wn * cs; j->npix = npix;
  j->tx = (g->nx + 15) / 16;
  trow = g->ny * j->tx;
  j->vend = (g->ny - 1) * g->wn + g->nx;
  tvirt = g->sx == 1 && g->sy == 1 ? (j->vend + 15) / 16 : trow + 1;
  j->virt = tvirt < trow;
  j->ntile = j->virt ? tvirt : trow;
  j->npair = (j->ntile + 1) / 2;
  j->fmaj = g->nfb * g->K4 * 64 > TI__CC_AMX_FMAJ;
  j->rs = g->sx * cs;
  return j->ntile * 16 <= 2 * npix;   /* else most tile rows empty: the vector kernels */
}

/* Runs the int8 path's job through AMX on the tiles that ti__cc_amx_plan
   gave (off 0 with aj->sgn: the input as it is, signed), over the padded
   input pad. */
static void ti__cc_run_amx(const ti_kernel_ctx *ctx, const ti__cc_geo *g, const ti__cc_job *cj,
                           ti__amx_job *aj, uint8_t *pad, uint32_t off) {
  aj->pad = pad; aj->blk = cj->blk; aj->corr = cj->corr; aj->out = cj->out; aj->tapoff = cj->tapoff;
  /* the rows the last tiles read past the padded input */
  TASKIR_MEMSET(pad + g->hn * g->wn * aj->cs, (int)off, (size_t)(15 * g->sx * aj->cs));
  ti__parallel(ctx, aj->npair * aj->nfp, aj->T > 1 ? ti__cc_amx_range : ti__cc_amx_range1, aj);
}
#endif /* TI__AMX */

/* Runs the int8 path on packed weights p (header checked by the caller). */
/* off: 0 when the input values are in 0..255, 128 when in -128..127. */
static void ti__cc_run8(const ti_kernel_ctx *ctx, const ti_prim_desc *d, const ti__cc_geo *g,
                        const void *in, const uint8_t *p, const void *bias, void *out,
                        void *scratch, uint32_t off) {
  ti__cc_job j;
  ti__cc_padjob pj;
  unsigned sub = ti__cc_pick(ti__cpu(ctx), g->nf, g->ny * g->nx, &j);
  int boxed;
#if defined(TI__AMX)
  ti__amx_job aj;
  const int amx = j.amx && ti__cc_amx_plan(g, &aj);
  /* AMX multiplies signed bytes too (tdpbssd): signed input is padded as
     it is, with zeros, and needs no correction */
  if (amx) { aj.sgn = off == 128; off = 0; }
#endif
  uint8_t *s = (uint8_t *)ti__cc_align(scratch), *pad;
  uint32_t *corr = (uint32_t *)(void *)s;
  int64_t *tapoff = (int64_t *)(void *)(s + ti__cc_al64(g->nf16 * 4)), *taps = tapoff + g->T;
  const uint8_t *sums = p + 64, *src = (const uint8_t *)in;
  int64_t f, ky, kx, cs = g->win || g->flat ? g->nr : g->nr4;   /* bytes per padded pixel */
  const uint32_t offs = off * 0x01010101u;
  pad = s + ti__cc_al64(g->nf16 * 4) + ti__cc_al64(g->T * 24);
  for (f = 0; f < g->nf16; f++)
    corr[f] = (f < g->nf ? ti__cc_biasi(d, bias, f) : 0u) + (sub - off) * ti__cc_rd32(sums + 4 * f);
  for (ky = 0; ky < g->nky; ky++)
    for (kx = 0; kx < g->nkx; kx++)
      tapoff[ky * g->nkx + kx] = (ky * g->dy * g->wn + kx * g->dx) * g->nr4;
  pj.g = g; pj.pad = pad; pj.in = in; pj.src = src; pj.cs = cs; pj.off = off;
  pj.i32 = d->in_dtype == TI_DTYPE_I32; pj.cp = ti__cc_copies_for(j.var); pj.prow = 0;
  j.g = g; j.pad = pad; j.pado = 0; j.blk = p + 64 + ti__cc_al64(g->nf16 * 4); j.corr = corr;
  j.fk = NULL; j.fpitch = 0;
  j.tapoff = tapoff; j.out = (uint32_t *)out; j.G = g->G; j.T = g->T; j.cs = cs;
#if defined(TI__AMX)
  if (amx) {   /* not win or flat */
    ti__parallel(ctx, g->hn, ti__cc_pad_rows, &pj);
    ti__cc_run_amx(ctx, g, &j, &aj, pad, off);
    return;
  }
#endif
  if (g->win) {
    /* A window row (kx, r) is contiguous in the padded input: one tap per
       ky of K4/nky groups read straight from it; the last group's bytes past
       the row meet zero weights (4 spare bytes after the padded input). */
    TASKIR_MEMCPY(pad + g->hn * g->wn * cs, &offs, 4);
    j.G = g->K4 / g->nky; j.T = g->nky;
    for (ky = 0; ky < g->nky; ky++) tapoff[ky] = ky * g->dy * g->wn * cs;
  }
  if (g->flat) {   /* one tap over the im2col rows; 16 spare bytes for their copies */
    TASKIR_MEMSET(pad + g->hn * g->wn * cs, (int)off, 16);
    j.G = g->K4; j.T = 1; tapoff[0] = 0;
#if defined(TI__X86)
    if (j.var == TI_VARIANT_AVX512VNNI && j.P == 12 && g->nf > 16) {
      const int p32 = g->K4 <= 8;   /* rows of 32 or 64 bytes */
      j.fk = p32 ? ti__cc_fk_vnni512_32x2 : ti__cc_fk_vnni512_64x2;
      j.fpitch = p32 ? 32 : 64;
    }
#endif
  }
  j.bstride = g->K4 * 64; j.npix = g->ny * g->nx; j.npt = (j.npix + j.P - 1) / j.P;
  j.tsum = j.blk + g->nfb * g->K4 * 64; j.padv = off - sub; j.tnx = g->win || g->flat ? 1 : g->nkx;
  j.tny = j.T / j.tnx;
  for (ky = 0; ky < j.T; ky++) {   /* every tap, weights in a row */
    taps[2 * ky] = tapoff[ky]; taps[2 * ky + 1] = 0;
  }
  j.taps = taps;
  {   /* pixel regions: rows above, below, columns left, right, the interior */
    int64_t y0 = (g->pu + g->sy - 1) / g->sy, y1, x0 = (g->pl + g->sx - 1) / g->sx, x1, k, t = 0;
    int64_t ey = g->niy - 1 + g->pu - (g->nky - 1) * g->dy, ex = g->nix - 1 + g->pl - (g->nkx - 1) * g->dx;
    if (y0 > g->ny) y0 = g->ny;
    y1 = ey < 0 ? 0 : ey / g->sy + 1;
    if (y1 > g->ny) y1 = g->ny;
    if (y1 < y0) y1 = y0;
    if (x0 > g->nx) x0 = g->nx;
    x1 = ex < 0 ? 0 : ex / g->sx + 1;
    if (x1 > g->nx) x1 = g->nx;
    if (x1 < x0) x1 = x0;
    j.ry0 = y0; j.ry1 = y1;
    /* Skipping padded taps pays (measured on AVX-512 VNNI) when at least
       1/4 of the outputs are on the border: the regions and the tap boxes
       cost per tile about what 3-4% of the taps of a 3x3 conv take. */
    boxed = !g->win && !g->flat && g->T <= TI__CC_BOX_TAPS && (j.npix - (y1 - y0) * (x1 - x0)) * 4 >= j.npix;
    if (boxed) {
      const int64_t r[5][5] = {{0, y0, 0, g->nx, 0}, {y1, g->ny, 0, g->nx, 0}, {y0, y1, 0, x0, 1},
                               {y0, y1, x1, g->nx, 1}, {y0, y1, x0, x1, 0}};
      for (k = 0; k < 5; k++) {
        int64_t m;
        for (m = 0; m < 5; m++) j.seg[k][m] = r[k][m];
        j.segt[k] = t;
        t += ((r[k][1] - r[k][0]) * (r[k][3] - r[k][2]) + j.P - 1) / j.P;
      }
      j.segt[5] = j.npt = t;
    }
  }
  /* Weights that stay in L1 (<= 32 KiB): all channel tiles of a pixel tile
     in turn, so its input stays in L1 and its outputs go out line by line;
     larger weights: channel tile by channel tile, each tile's weights
     reused from L2 across the pixels -- across all of them on one thread;
     through a parallel-for across blocks of a 16th of them (at least 4
     pixel tiles), so that a contiguous range of items (what a thread runs)
     covers a contiguous range of pixels, all their channels. Flat windows:
     blocks of TI__CC_FLAT_PIX pixels, in pixel order. */
  j.pb = g->nfb * g->K4 * 64 <= 32768 ? 1 : !(ctx && ctx->parallel_for) ? j.npt : j.npt > 64 ? (j.npt + 15) / 16 : 4;
  /* One thread: the padded input band by band, each band's rows (about
     TI__CC_BAND_BYTES) copied to the start of the scratch right before its
     tiles run, in blocks of one band (pb), so the copy writes lines the
     band before left in cache, not the whole padded input into lines
     whatever ran since evicted. In calls alternating with oneDNN's (which
     copies nothing), 64 KiB bands ran 56x56x64->64 3x3 1.5% and
     56x56x64->128 1x1 1.9% faster than one whole copy (no copy at all:
     3.5% on the 3x3); 16 KiB bands ran slower than one copy. */
  if (!(ctx && ctx->parallel_for) && !boxed && !g->flat) {
    const int64_t rb = g->wn * cs, ext = (g->nky - 1) * g->dy + 1;
    const int64_t nft = (g->nf + (int64_t)j.L * j.nvmax - 1) / ((int64_t)j.L * j.nvmax);
    const int64_t rows = TI__CC_BAND_BYTES / rb, R = rows > ext ? (rows - ext) / g->sy + 1 : 1;
    int64_t bt = ((R - 1) * g->nx + 1) / j.P, t0;   /* bt tiles span at most R rows */
    if (bt < 1) bt = 1;
    if (bt < j.npt) {
      if (j.pb > 1) j.pb = bt;
      for (t0 = 0; t0 < j.npt; t0 += bt) {
        const int64_t t1 = t0 + bt < j.npt ? t0 + bt : j.npt;
        const int64_t ya = t0 * j.P / g->nx;   /* the bands' output rows ya..yb */
        const int64_t yb = ((t1 * j.P < j.npix ? t1 * j.P : j.npix) - 1) / g->nx;
        const int64_t r0 = ya * g->sy, r1 = yb * g->sy + ext < g->hn ? yb * g->sy + ext : g->hn;
        pj.prow = r0; j.pado = r0 * rb;
        ti__cc_pad_rows(&pj, r0, r1);
        if (g->win) TASKIR_MEMCPY(pad + (r1 - r0) * rb, &offs, 4);   /* past the band (see above) */
        ti__cc_range(&j, t0 * nft, t1 * nft);
      }
      return;
    }
  }
  /* The padded input, row by row through the parallel-for: a thread pads
     about the rows its share of the pixels reads, and reads the input rows
     it wrote in the block before (when that split its pixels alike). */
  ti__parallel(ctx, g->hn, ti__cc_pad_rows, &pj);
  if (g->flat) {
    const int64_t nb = (TI__CC_FLAT_PIX / j.P) * j.P;
    ti__parallel(ctx, (j.npix + nb - 1) / nb, ti__cc_range_flat, &j);
    return;
  }
  ti__parallel(ctx, j.npt * ((g->nf + (int64_t)j.L * j.nvmax - 1) / ((int64_t)j.L * j.nvmax)),
               boxed ? ti__cc_range_box : ti__cc_range, &j);
}

/* ---- wide path: I32, U8 weights and F32 over packed [tap][r][nf16] ----------
   One output pixel at a time, NV vectors of L channels; each lane sums in the
   reference's order (bias, then ky, kx, r; taps in the padding skipped), so
   float results equal the reference too (no fused multiply-add: build in ISO
   C mode or with -ffp-contract=off, as the reference needs the same). Integer
   products and sums wrap as the reference's. */
typedef struct ti__cw_job ti__cw_job;
typedef void (*ti__cw_kfn)(const ti__cw_job *j, int64_t y, int64_t x, int64_t f0, int64_t nfv);
struct ti__cw_job {
  const ti__cc_geo *g;
  const uint8_t *in, *w, *bias;   /* int32/float elements, native order */
  uint8_t *out;
  int64_t tw;                     /* channels per tile */
  int L;
  ti__cw_kfn kfn[4];
};

/* One pixel's NV vectors of channels over the SIMD layer of ISA P; MAC is
   TI__CW_IMAC (int32, wrapping) or TI__CW_FMAC (float, product then sum). */
#define TI__CW_IMAC(P, c, a, b) ti__v##P##_mla(c, a, b)
#define TI__CW_FMAC(P, c, a, b) ti__v##P##_asi(ti__v##P##_vfadd(ti__v##P##_asf(c), \
  ti__v##P##_vfmul(ti__v##P##_asf(a), ti__v##P##_asf(b))))
/* W native-order int32/float elements as int32 lanes (ld, not the byte
   load ldb: NEON's byte view would swap them on a big-endian target). */
#define TI__CW_LD(P, p) ti__v##P##_ld((const int32_t *)(const void *)(p))
/* one native-order int32/float element (its bits), for a broadcast */
TI__PRIVATE int32_t ti__cw_elem(const uint8_t *p) { int32_t v; ti__memcpy(&v, p, 4); return v; }
#define TI__CW_KERNEL(NAME, P, A, MAC, NV) \
A static void NAME(const ti__cw_job *j, int64_t y, int64_t x, int64_t f0, int64_t nfv) { \
  const ti__cc_geo *g = j->g; \
  const int nv_ = NV; const int64_t L_ = ti__v##P##_W, ws = g->nf16 * 4; \
  const uint8_t *bz = j->bias + f0 * 4; \
  uint32_t *o = (uint32_t *)(void *)(j->out + ((y * g->nx + x) * g->nf + f0) * 4); \
  ti__v##P##_vi a0 = TI__CW_LD(P, bz); \
  ti__v##P##_vi a1 = nv_ > 1 ? TI__CW_LD(P, bz + 4 * L_) : a0; \
  ti__v##P##_vi a2 = nv_ > 2 ? TI__CW_LD(P, bz + 8 * L_) : a0; \
  ti__v##P##_vi a3 = nv_ > 3 ? TI__CW_LD(P, bz + 12 * L_) : a0; \
  int64_t ky, kx, r; \
  for (ky = 0; ky < g->nky; ky++) { \
    int64_t iy = y * g->sy + ky * g->dy - g->pu; \
    if (iy < 0 || iy >= g->niy) continue; \
    for (kx = 0; kx < g->nkx; kx++) { \
      int64_t ix = x * g->sx + kx * g->dx - g->pl; \
      const uint8_t *ip, *wp; \
      if (ix < 0 || ix >= g->nix) continue; \
      ip = j->in + (iy * g->nix + ix) * g->nr * 4; \
      wp = j->w + (ky * g->nkx + kx) * g->nr * ws + f0 * 4; \
      for (r = 0; r < g->nr; r++, ip += 4, wp += ws) { \
        ti__v##P##_vi b = ti__v##P##_set1(ti__cw_elem(ip)); \
        a0 = MAC(P, a0, b, TI__CW_LD(P, wp)); \
        if (nv_ > 1) a1 = MAC(P, a1, b, TI__CW_LD(P, wp + 4 * L_)); \
        if (nv_ > 2) a2 = MAC(P, a2, b, TI__CW_LD(P, wp + 8 * L_)); \
        if (nv_ > 3) a3 = MAC(P, a3, b, TI__CW_LD(P, wp + 12 * L_)); \
      } \
    } \
  } \
  ti__v##P##_stn(o, a0, nfv); \
  if (nv_ > 1) ti__v##P##_stn(o + L_, a1, nfv - L_); \
  if (nv_ > 2) ti__v##P##_stn(o + 2 * L_, a2, nfv - 2 * L_); \
  if (nv_ > 3) ti__v##P##_stn(o + 3 * L_, a3, nfv - 3 * L_); \
}

/* Portable version (cpu = 0 on packed weights): 16 lanes in arrays, same
   order per lane; the lane loops are left to the compiler's vectoriser. */
static void ti__cw_k_c(const ti__cw_job *j, int64_t y, int64_t x, int64_t f0, int64_t nfv) {
  const ti__cc_geo *g = j->g;
  uint32_t acc[16];
  float accf[16];
  int64_t n = nfv < 16 ? nfv : 16, ky, kx, r;
  int l;
  ti__memcpy(acc, j->bias + f0 * 4, 64);
  ti__memcpy(accf, j->bias + f0 * 4, 64);
  for (ky = 0; ky < g->nky; ky++) {
    int64_t iy = y * g->sy + ky * g->dy - g->pu;
    if (iy < 0 || iy >= g->niy) continue;
    for (kx = 0; kx < g->nkx; kx++) {
      int64_t ix = x * g->sx + kx * g->dx - g->pl;
      const uint8_t *ip, *wp;
      if (ix < 0 || ix >= g->nix) continue;
      ip = j->in + (iy * g->nix + ix) * g->nr * 4;
      wp = j->w + ((ky * g->nkx + kx) * g->nr * g->nf16 + f0) * 4;
      if (g->is_float)
        for (r = 0; r < g->nr; r++, ip += 4, wp += g->nf16 * 4) {
          float a, b[16];
          ti__memcpy(&a, ip, 4); ti__memcpy(b, wp, 64);
          for (l = 0; l < 16; l++) accf[l] += a * b[l];
        }
      else
        for (r = 0; r < g->nr; r++, ip += 4, wp += g->nf16 * 4) {
          uint32_t a, b[16];
          ti__memcpy(&a, ip, 4); ti__memcpy(b, wp, 64);
          for (l = 0; l < 16; l++) acc[l] += a * b[l];
        }
    }
  }
  if (g->is_float) ti__memcpy(j->out + ((y * g->nx + x) * g->nf + f0) * 4, accf, (size_t)n * 4);
  else ti__memcpy(j->out + ((y * g->nx + x) * g->nf + f0) * 4, acc, (size_t)n * 4);
}

#if defined(TI__X86)
TI__CW_KERNEL(ti__cw_k_avx2i_1, a, TI__T_AVX2, TI__CW_IMAC, 1)
TI__CW_KERNEL(ti__cw_k_avx2i_2, a, TI__T_AVX2, TI__CW_IMAC, 2)
TI__CW_KERNEL(ti__cw_k_avx2i_3, a, TI__T_AVX2, TI__CW_IMAC, 3)
TI__CW_KERNEL(ti__cw_k_avx2i_4, a, TI__T_AVX2, TI__CW_IMAC, 4)
TI__CW_KERNEL(ti__cw_k_avx2f_1, a, TI__T_AVX2, TI__CW_FMAC, 1)
TI__CW_KERNEL(ti__cw_k_avx2f_2, a, TI__T_AVX2, TI__CW_FMAC, 2)
TI__CW_KERNEL(ti__cw_k_avx2f_3, a, TI__T_AVX2, TI__CW_FMAC, 3)
TI__CW_KERNEL(ti__cw_k_avx2f_4, a, TI__T_AVX2, TI__CW_FMAC, 4)
TI__CW_KERNEL(ti__cw_k_avx512i_1, z, TI__T_AVX512, TI__CW_IMAC, 1)
TI__CW_KERNEL(ti__cw_k_avx512i_2, z, TI__T_AVX512, TI__CW_IMAC, 2)
TI__CW_KERNEL(ti__cw_k_avx512i_3, z, TI__T_AVX512, TI__CW_IMAC, 3)
TI__CW_KERNEL(ti__cw_k_avx512i_4, z, TI__T_AVX512, TI__CW_IMAC, 4)
TI__CW_KERNEL(ti__cw_k_avx512f_1, z, TI__T_AVX512, TI__CW_FMAC, 1)
TI__CW_KERNEL(ti__cw_k_avx512f_2, z, TI__T_AVX512, TI__CW_FMAC, 2)
TI__CW_KERNEL(ti__cw_k_avx512f_3, z, TI__T_AVX512, TI__CW_FMAC, 3)
TI__CW_KERNEL(ti__cw_k_avx512f_4, z, TI__T_AVX512, TI__CW_FMAC, 4)
#endif /* TI__X86 */

#if defined(TI__NEON)
TI__CW_KERNEL(ti__cw_k_neoni_1, n, , TI__CW_IMAC, 1)
TI__CW_KERNEL(ti__cw_k_neoni_2, n, , TI__CW_IMAC, 2)
TI__CW_KERNEL(ti__cw_k_neoni_3, n, , TI__CW_IMAC, 3)
TI__CW_KERNEL(ti__cw_k_neoni_4, n, , TI__CW_IMAC, 4)
TI__CW_KERNEL(ti__cw_k_neonf_1, n, , TI__CW_FMAC, 1)
TI__CW_KERNEL(ti__cw_k_neonf_2, n, , TI__CW_FMAC, 2)
TI__CW_KERNEL(ti__cw_k_neonf_3, n, , TI__CW_FMAC, 3)
TI__CW_KERNEL(ti__cw_k_neonf_4, n, , TI__CW_FMAC, 4)
#endif /* TI__NEON */

static void ti__cw_range(void *arg, int64_t b, int64_t e) {
  const ti__cw_job *j = (const ti__cw_job *)arg;
  const ti__cc_geo *g = j->g;
  int64_t nft = (g->nf + j->tw - 1) / j->tw, it;
  for (it = b; it < e; it++) {
    int64_t pix = it / nft, f0 = (it % nft) * j->tw, nfv = g->nf - f0;
    int64_t nv = nfv < j->tw ? (nfv + j->L - 1) / j->L : j->tw / j->L;
    j->kfn[nv - 1](j, pix / g->nx, pix % g->nx, f0, nfv);
  }
}

/* wp: the format 2 weights. */
static void ti__cc_runw(const ti_kernel_ctx *ctx, const ti_prim_desc *d, const ti__cc_geo *g,
                        const void *in, const uint8_t *wp, const void *bias, void *out,
                        void *scratch) {
  ti__cw_job j;
  unsigned cpu = ti__cpu(ctx);
  uint8_t *s = (uint8_t *)ti__cc_align(scratch);
  int64_t f, i;
  j.kfn[0] = j.kfn[1] = j.kfn[2] = j.kfn[3] = ti__cw_k_c;
  j.L = 16; j.tw = 16;
  switch (ti__variant(cpu, TI_FAMILY_CC_WIDE)) {
#if defined(TI__X86)
  case TI_VARIANT_AVX512:
    if (g->is_float) {
      j.kfn[0] = ti__cw_k_avx512f_1; j.kfn[1] = ti__cw_k_avx512f_2;
      j.kfn[2] = ti__cw_k_avx512f_3; j.kfn[3] = ti__cw_k_avx512f_4;
    } else {
      j.kfn[0] = ti__cw_k_avx512i_1; j.kfn[1] = ti__cw_k_avx512i_2;
      j.kfn[2] = ti__cw_k_avx512i_3; j.kfn[3] = ti__cw_k_avx512i_4;
    }
    j.L = 16; j.tw = 64;
    break;
  case TI_VARIANT_AVX2:
    if (g->is_float) {
      j.kfn[0] = ti__cw_k_avx2f_1; j.kfn[1] = ti__cw_k_avx2f_2;
      j.kfn[2] = ti__cw_k_avx2f_3; j.kfn[3] = ti__cw_k_avx2f_4;
    } else {
      j.kfn[0] = ti__cw_k_avx2i_1; j.kfn[1] = ti__cw_k_avx2i_2;
      j.kfn[2] = ti__cw_k_avx2i_3; j.kfn[3] = ti__cw_k_avx2i_4;
    }
    j.L = 8; j.tw = 32;
    break;
#elif defined(TI__NEON)
  case TI_VARIANT_NEON:
    if (g->is_float) {
      j.kfn[0] = ti__cw_k_neonf_1; j.kfn[1] = ti__cw_k_neonf_2;
      j.kfn[2] = ti__cw_k_neonf_3; j.kfn[3] = ti__cw_k_neonf_4;
    } else {
      j.kfn[0] = ti__cw_k_neoni_1; j.kfn[1] = ti__cw_k_neoni_2;
      j.kfn[2] = ti__cw_k_neoni_3; j.kfn[3] = ti__cw_k_neoni_4;
    }
    j.L = 4; j.tw = 16;
    break;
#endif
  default:
    break;
  }
  /* Bias per channel, 0 past nf, as the accumulators' starting value. */
  for (f = 0; f < g->nf16; f++) {
    uint32_t v = 0;
    if (f < g->nf) {
      if (g->is_float) { float b = ti__cc_biasf(d, bias, f); ti__memcpy(&v, &b, 4); }
      else v = ti__cc_biasi(d, bias, f);
    }
    ti__memcpy(s + f * 4, &v, 4);
  }
  j.in = (const uint8_t *)in;
  if (ti__cc_b8(d->in_dtype)) {   /* widen 8-bit input to int32 */
    uint8_t *wi = s + ti__cc_al64(g->nf16 * 4);
    for (i = 0; i < g->niy * g->nix * g->nr; i++) {
      uint32_t v = ti__cc_geti(in, d->in_dtype, i);
      ti__memcpy(wi + i * 4, &v, 4);
    }
    j.in = wi;
  }
  j.g = g; j.w = wp; j.bias = s; j.out = (uint8_t *)out;
  ti__parallel(ctx, g->ny * g->nx * ((g->nf + j.tw - 1) / j.tw), ti__cw_range, &j);
}

/* Offset for the int8 path when every I32 input value fits 8 bits (exactly
   the same sums then), else -1. */
static int64_t ti__cc_narrow_off(const ti__cc_copies *cp, const int32_t *in, int64_t n) {
  int32_t lo, hi;
  cp->r(in, n, &lo, &hi);
  if (lo >= -128 && hi <= 127) return 128;
  if (lo >= 0 && hi <= 255) return 0;
  return -1;
}

/* Runs on packed weights p of any format (checked by the caller). */
static void ti__cc_run(const ti_kernel_ctx *ctx, const ti_prim_desc *d, const ti__cc_geo *g,
                       const void *in, const uint8_t *p, const void *bias, void *out, void *scratch) {
  if (g->int8) {
    ti__cc_run8(ctx, d, g, in, p, bias, out, scratch, d->in_dtype == TI_DTYPE_U8 ? 0u : 128u);
  } else if (g->dual) {
    const ti__cc_copies cp = ti__cc_copies_cpu(ti__cpu(ctx));
    const int64_t off = ti__cc_narrow_off(&cp, (const int32_t *)in, g->niy * g->nix * g->nr);
    if (off >= 0) ti__cc_run8(ctx, d, g, in, p, bias, out, scratch, (uint32_t)off);
    else ti__cc_runw(ctx, d, g, in, p + 64 + ti__cc_al64(ti__cc_pack8_bytes(g)), bias, out, scratch);
  } else {
    ti__cc_runw(ctx, d, g, in, p + 64, bias, out, scratch);
  }
}

static ti_status ti__cc_check_packed(const ti_prim_desc *d, const ti__cc_geo *g,
                                     const void *packed, size_t packed_bytes) {
  const uint8_t *p = (const uint8_t *)packed;
  int64_t total = ti__cc_pack_bytes(g);
  if (packed_bytes < 64 || (uint64_t)packed_bytes < (uint64_t)total) return TI_STATUS_BAD_PARAM;
  if (ti__cc_rd32(p) != TI__CC_MAGIC || ti__cc_rd32(p + 4) != ti__cc_format(g) ||
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
  need = ti__cc_run_bytes(d, &g);
  if (!scratch || (uint64_t)scratch_bytes < (uint64_t)need) return TI_STATUS_BAD_PARAM;
  ti__cc_run(ctx, d, &g, in, (const uint8_t *)packed, bias, out, scratch);
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
  pb = ti__cc_pack_bytes(&g);
  need = 64 + pb + ti__cc_run_bytes(d, &g);
  if (!scratch || (uint64_t)scratch_bytes < (uint64_t)need) return TI_STATUS_BAD_PARAM;
  if (ti__cpu(ctx) == 0) { ti__cc_ref_run(d, &g, in, w, bias, out); return TI_STATUS_SUCCESS; }
  {   /* packed at a line */
    uint8_t *pk = (uint8_t *)ti__cc_align(scratch);
    ti__cc_pack(d, &g, w, pk);
    ti__cc_run(ctx, d, &g, in, pk, bias, out, pk + pb);
  }
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

/* S rows at a time (S = 2 or 4), one from each S-th part of the range
   [f0, f1): rows f, f+h, ... (h = (f1 - f0) / S), so W is read as S
   sequential streams and each input load serves S rows; U vectors of each
   stream per step (S * U accumulators), the input vectors loaded once per
   step. With PF > 0 each stream is prefetched PF bytes ahead (past a row's
   end is the next row; a prefetch never faults, so past W's end is
   harmless). The rows left over (fewer than S) go one by one. Shapes from
   paired runs against the fastest read loop of the same bytes (AMD EPYC,
   cpuid family 26; see TASKIR_CVM_YMM_BYTES): with W in the L2 the dot
   itself is the limit and the 512-bit kernel, two streams of four 1 KiB
   ahead, is the fastest; in the L3 the 256-bit kernel as two streams of
   four 2 KiB ahead (0.88-0.95 at 2-8 MB; four streams: 0.81-0.87); from
   memory (TASKIR_CVM_MEM_BYTES) four streams of two 2 KiB ahead (median
   0.90 at 16-67 MB; two streams: 0.82). On the AMD EPYC of cpuid family
   25 (AVX-512 VNNI, no AVX-VNNI; 512-bit operations on 256-bit units),
   from 2 MiB (TASKIR_CVM_YMM_BYTES) on, software prefetch slows every
   shape, and two streams of two with none (ti__cv_k_vnni512_far) measured
   0.79-0.99 of the fastest of three read loops at 8.4-67 MB, the 512-bit
   kernel below 0.61-0.82 (medians of 31 rotated pairs in one process; in
   the L2 every shape 0.81-0.91). The other kernels take four of two, 1 KiB
   ahead. */
#if defined(TI__X86)
#define TI__CV_PF(p, d) _mm_prefetch((const char *)(p) + (d), _MM_HINT_T0)
#else
#define TI__CV_PF(p, d) ((void)0)
#endif
/* the prefetches of one stream's step: every 64-byte line of its n bytes, d ahead */
#define TI__CV_PFN(p, n, d) { int64_t k_; for (k_ = 0; k_ < (n); k_ += 64) TI__CV_PF((p) + k_, d); }
#define TI__CV_DOTW(P, D, a, wv, v) a = flip ? D(a, ti__v##P##_vxor(wv, k80), v) : D(a, v, wv)
/* one dot step of a row: weights at wp, input vector v (flipped: the
   weights are the unsigned operand). The flag is tested per step: with two
   copies of the loop sharing the accumulators GCC 12 moved them between
   registers and loaded the input again for every dot (0.66x in L1). */
#define TI__CV_STEP(P, D, a, wp, v) TI__CV_DOTW(P, D, a, ti__v##P##_ldb(wp), v)
/* one stream's U dot steps at byte r of its row q (accumulators A0..A3) */
#define TI__CV_STREAM(P, D, T, U, q, A0, A1, A2, A3) { \
    T(P, D, A0, q + r, x0); \
    if ((U) > 1) T(P, D, A1, q + r + VB, x1); \
    if ((U) > 2) { T(P, D, A2, q + r + 2 * VB, x2); T(P, D, A3, q + r + 3 * VB, x3); } \
  }
/* the loop over the first nm bytes with dot step T: S streams of U vectors
   per step, then one vector per step to nm */
#define TI__CV_ROWS(P, D, T, S, U, PF) \
  for (r = 0; r + (U) * VB <= nm; r += (U) * VB) { \
    const ti__v##P##_vi x0 = ti__v##P##_ldb(x + r); \
    const ti__v##P##_vi x1 = (U) > 1 ? ti__v##P##_ldb(x + r + VB) : x0; \
    const ti__v##P##_vi x2 = (U) > 2 ? ti__v##P##_ldb(x + r + 2 * VB) : x0; \
    const ti__v##P##_vi x3 = (U) > 2 ? ti__v##P##_ldb(x + r + 3 * VB) : x0; \
    if (PF) { \
      TI__CV_PFN(p0 + r, (U) * VB, PF); TI__CV_PFN(p1 + r, (U) * VB, PF); \
      if ((S) == 4) { TI__CV_PFN(p2 + r, (U) * VB, PF); TI__CV_PFN(p3 + r, (U) * VB, PF); } \
    } \
    TI__CV_STREAM(P, D, T, U, p0, a0, a1, a2, a3); \
    TI__CV_STREAM(P, D, T, U, p1, b0, b1, b2, b3); \
    if ((S) == 4) { TI__CV_STREAM(P, D, T, U, p2, c0, c1, c2, c3); TI__CV_STREAM(P, D, T, U, p3, d0, d1, d2, d3); } \
  } \
  for (; r < nm; r += VB) { \
    const ti__v##P##_vi x0 = ti__v##P##_ldb(x + r); \
    T(P, D, a0, p0 + r, x0); T(P, D, b0, p1 + r, x0); \
    if ((S) == 4) { T(P, D, c0, p2 + r, x0); T(P, D, d0, p3 + r, x0); } \
  }
#define TI__CV_SUM4(P, A0, A1, A2, A3) \
  ti__v##P##_rsum(ti__v##P##_vadd(ti__v##P##_vadd(A0, A1), ti__v##P##_vadd(A2, A3)))
/* One kernel over the SIMD layer of ISA P (attribute A) with dot DOT, S
   streams of U vectors, prefetch distance PF bytes (0: none); VB = vector
   bytes. */
#define TI__CV_KERNEL(NAME, P, A, DOT, S, U, PF) \
A static void NAME(const uint8_t *w, const uint8_t *x, int64_t nr, int64_t nm, \
                   int64_t f0, int64_t f1, int flip, uint32_t *s) { \
  enum { VB = 4 * ti__v##P##_W }; \
  const ti__v##P##_vi k80 = ti__v##P##_set1((int32_t)-0x7f7f7f80);   /* 0x80 bytes */ \
  const int64_t h = (f1 - f0) / (S); \
  int64_t f, r; \
  for (f = f0; f < f0 + h; f++) { \
    const uint8_t *p0 = w + f * nr, *p1 = p0 + h * nr; \
    const uint8_t *p2 = (S) == 4 ? p1 + h * nr : p1, *p3 = (S) == 4 ? p2 + h * nr : p1; \
    ti__v##P##_vi a0 = ti__v##P##_zero(), a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0; \
    ti__v##P##_vi c0 = a0, c1 = a0, c2 = a0, c3 = a0, d0 = a0, d1 = a0, d2 = a0, d3 = a0; \
    TI__CV_ROWS(P, DOT, TI__CV_STEP, S, U, PF) \
    s[f] = TI__CV_SUM4(P, a0, a1, a2, a3); \
    s[f + h] = TI__CV_SUM4(P, b0, b1, b2, b3); \
    if ((S) == 4) { \
      s[f + 2 * h] = TI__CV_SUM4(P, c0, c1, c2, c3); \
      s[f + 3 * h] = TI__CV_SUM4(P, d0, d1, d2, d3); \
    } \
  } \
  for (f = f0 + (S) * h; f < f1; f++) { \
    const uint8_t *w0 = w + f * nr; \
    ti__v##P##_vi a0 = ti__v##P##_zero(); \
    for (r = 0; r < nm; r += VB) { \
      ti__v##P##_vi v = ti__v##P##_ldb(x + r), u = ti__v##P##_ldb(w0 + r); \
      TI__CV_DOTW(P, DOT, a0, u, v); \
    } \
    s[f] = ti__v##P##_rsum(a0); \
  } \
}

/* The correction of a flipped kernel, 128 * sum of x over the first nm
   bytes (mod 2^32), as the same dot of the 0x80 bytes with x: nm/VB vector
   steps from L1, once per call (the scalar loop cost ~4% of LeNet). */
typedef uint32_t (*ti__cv_cfn)(const uint8_t *x, int64_t nm);
#define TI__CV_CORR(NAME, P, A, DOT) \
A static uint32_t NAME(const uint8_t *x, int64_t nm) { \
  enum { VB = 4 * ti__v##P##_W }; \
  const ti__v##P##_vi k80 = ti__v##P##_set1((int32_t)-0x7f7f7f80); \
  ti__v##P##_vi a0 = ti__v##P##_zero(), a1 = a0; \
  int64_t r; \
  for (r = 0; r + 2 * VB <= nm; r += 2 * VB) { \
    a0 = DOT(a0, k80, ti__v##P##_ldb(x + r)); \
    a1 = DOT(a1, k80, ti__v##P##_ldb(x + r + VB)); \
  } \
  for (; r < nm; r += VB) a0 = DOT(a0, k80, ti__v##P##_ldb(x + r)); \
  return ti__v##P##_rsum(ti__v##P##_vadd(a0, a1)); \
}

#if defined(TI__X86)
TI__CV_KERNEL(ti__cv_k_sse2, s, TI__T_SSE2, ti__vs_dot4, 4, 2, 1024)
TI__CV_KERNEL(ti__cv_k_avx2, a, TI__T_AVX2, ti__va_dot4, 4, 2, 1024)
TI__CV_KERNEL(ti__cv_k_avxvnni, a, TI__T_AVXVNNI, ti__va_dpbusd, 4, 2, 1024)
TI__CV_KERNEL(ti__cv_k_avxvnni_l3, a, TI__T_AVXVNNI, ti__va_dpbusd, 2, 4, 2048)
TI__CV_KERNEL(ti__cv_k_avxvnni_mem, a, TI__T_AVXVNNI, ti__va_dpbusd, 4, 2, 2048)
TI__CV_KERNEL(ti__cv_k_avx2_i32, a, TI__T_AVX2, ti__va_mla, 4, 2, 1024)
TI__CV_KERNEL(ti__cv_k_avx512, z, TI__T_AVX512, ti__vz_dot4, 4, 2, 1024)
TI__CV_KERNEL(ti__cv_k_vnni512, z, TI__T_VNNI512, ti__vz_dpbusd, 2, 4, 1024)
TI__CV_KERNEL(ti__cv_k_avx512_i32, z, TI__T_AVX512, ti__vz_mla, 4, 2, 1024)
/* ti__cv_k_vnni512 for weights beyond the L2 without AVX-VNNI: two
   streams of two vectors, no prefetch (see the shapes above), and with rows
   of whole lines (nr a multiple of 64) every load of W aligned to a line:
   the first bytes up to W's next line and the last ones are masked loads
   (lanes outside load nothing and add nothing). W from malloc sits 16
   bytes past a line, and a 64-byte load that crosses one costs two: 4.2 MB
   i8, 0.80 of the read loops unaligned against 0.99 aligned. Rows longer
   than TI__CV_FAR4_ROW bytes take four streams (ti__cv_k_vnni512_far4):
   the input vectors are loaded again for every row, and once the input no
   longer stays in L1 beside the streams of W, these loads slow the
   streams; four streams load it half as often per byte of W. In one
   process against the faster of a two- and a four-stream read loop
   (medians of 21-31 rotated calls, AMD EPYC of cpuid family 25, int8):
   16-64 MB with rows of 9-32 KiB, two streams 0.54-0.61, four 0.62-0.73
   (1.03-1.25x); rows of 8 KiB, two 0.80-0.88, four 0.75-0.84. A
   two-stream loop over the same addresses measured 0.89-1.00 with its
   input loads kept to one line, 0.77-0.89 over 8 KiB of input and
   0.53-0.65 over 16 KiB. */
#ifndef TI__CV_FAR4_ROW
#define TI__CV_FAR4_ROW 8192
#endif
/* rows p[0..n-1] (n = 1, 2 or 4, a constant where inlined) over the first
   nm bytes, their sums to s[0..n-1] */
#define TI__CV_FAR_DOT(A, LOAD, k, o, xv) TI__CV_DOTW(z, ti__vz_dpbusd, A, LOAD(p[k] + (o)), xv)
#define TI__CV_FAR_ROWS(A0, A1, A2, A3, LOAD, o, xv) { \
    TI__CV_FAR_DOT(A0, LOAD, 0, o, xv); \
    if (n > 1) TI__CV_FAR_DOT(A1, LOAD, 1, o, xv); \
    if (n > 2) { TI__CV_FAR_DOT(A2, LOAD, 2, o, xv); TI__CV_FAR_DOT(A3, LOAD, 3, o, xv); } \
  }
#define TI__CV_FAR_LDH(q) _mm512_maskz_loadu_epi8(hm, q)
#define TI__CV_FAR_LDT(q) _mm512_maskz_loadu_epi8(tm, q)
#define TI__CV_FAR_LD(q) _mm512_loadu_si512((const void *)(q))
TI__T_VNNI512 TI__V_BLK void ti__cv_far_rows(const uint8_t *const *p, int n, const uint8_t *x, int64_t nm,
                                             int64_t head, int flip, uint32_t *const *s) {
  const ti__vz_vi k80 = ti__vz_set1((int32_t)-0x7f7f7f80);   /* 0x80 bytes */
  const __mmask64 hm = ((__mmask64)1 << head) - 1, tm = ~hm >> head;  /* head; tail: the rest of a line */
  __m512i a0 = _mm512_setzero_si512(), a1 = a0, b0 = a0, b1 = a0, c0 = a0, c1 = a0, d0 = a0, d1 = a0;
  int64_t r;
  if (head) {
    const __m512i xv = _mm512_maskz_loadu_epi8(hm, x);
    TI__CV_FAR_ROWS(a0, b0, c0, d0, TI__CV_FAR_LDH, 0, xv)
  }
  for (r = head; r + 128 <= nm; r += 128) {
    const __m512i x0 = TI__CV_FAR_LD(x + r), x1 = TI__CV_FAR_LD(x + r + 64);
    TI__CV_FAR_ROWS(a0, b0, c0, d0, TI__CV_FAR_LD, r, x0)
    TI__CV_FAR_ROWS(a1, b1, c1, d1, TI__CV_FAR_LD, r + 64, x1)
  }
  for (; r + 64 <= nm; r += 64) {
    const __m512i x0 = TI__CV_FAR_LD(x + r);
    TI__CV_FAR_ROWS(a0, b0, c0, d0, TI__CV_FAR_LD, r, x0)
  }
  if (r < nm) {  /* nm is a multiple of 64, so r = nm - 64 + head */
    const __m512i xv = _mm512_maskz_loadu_epi8(tm, x + r);
    TI__CV_FAR_ROWS(a1, b1, c1, d1, TI__CV_FAR_LDT, r, xv)
  }
  *s[0] = ti__vz_rsum(_mm512_add_epi32(a0, a1));
  if (n > 1) *s[1] = ti__vz_rsum(_mm512_add_epi32(b0, b1));
  if (n > 2) {
    *s[2] = ti__vz_rsum(_mm512_add_epi32(c0, c1));
    *s[3] = ti__vz_rsum(_mm512_add_epi32(d0, d1));
  }
}
#undef TI__CV_FAR_LD
#undef TI__CV_FAR_LDT
#undef TI__CV_FAR_LDH
#undef TI__CV_FAR_ROWS
#undef TI__CV_FAR_DOT
/* S streams (2 or 4, a constant where inlined): rows f, f+h, ... as in
   TI__CV_KERNEL, the rows left over one by one */
TI__T_VNNI512 TI__V_BLK void ti__cv_far_streams(int S, const uint8_t *w, const uint8_t *x, int64_t nr, int64_t nm,
                                                int64_t f0, int64_t f1, int flip, uint32_t *s) {
  const int64_t h = (f1 - f0) / S;
  const int64_t head = nr % 64 == 0 && nm >= 64 ? (int64_t)((64 - ((uintptr_t)w & 63)) & 63) : 0;
  int64_t f;
  for (f = f0; f < f0 + h; f++) {
    const uint8_t *p[4];
    uint32_t *o[4];
    int k;
    for (k = 0; k < S; k++) { p[k] = w + (f + k * h) * nr; o[k] = s + f + k * h; }
    ti__cv_far_rows(p, S, x, nm, head, flip, o);
  }
  for (f = f0 + S * h; f < f1; f++) {
    const uint8_t *p = w + f * nr;
    uint32_t *o = s + f;
    ti__cv_far_rows(&p, 1, x, nm, head, flip, &o);
  }
}
TI__T_VNNI512 static void ti__cv_k_vnni512_far(const uint8_t *w, const uint8_t *x, int64_t nr, int64_t nm,
                                               int64_t f0, int64_t f1, int flip, uint32_t *s) {
  ti__cv_far_streams(2, w, x, nr, nm, f0, f1, flip, s);
}
TI__T_VNNI512 static void ti__cv_k_vnni512_far4(const uint8_t *w, const uint8_t *x, int64_t nr, int64_t nm,
                                                int64_t f0, int64_t f1, int flip, uint32_t *s) {
  ti__cv_far_streams(4, w, x, nr, nm, f0, f1, flip, s);
}
TI__CV_CORR(ti__cv_c_sse2, s, TI__T_SSE2, ti__vs_dot4)
TI__CV_CORR(ti__cv_c_avx2, a, TI__T_AVX2, ti__va_dot4)
TI__CV_CORR(ti__cv_c_avxvnni, a, TI__T_AVXVNNI, ti__va_dpbusd)
TI__CV_CORR(ti__cv_c_avx512, z, TI__T_AVX512, ti__vz_dot4)
TI__CV_CORR(ti__cv_c_vnni512, z, TI__T_VNNI512, ti__vz_dpbusd)
#endif /* TI__X86 */

#if defined(TI__NEON)
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
TI__CV_KERNEL(ti__cv_k_neon_i32, n, , ti__vn_mla, 4, 2, 1024)
#endif

typedef struct ti__cv_job {
  const ti_prim_desc *d;
  const ti__cc_geo *g;
  const uint8_t *w, *x;
  const void *bias;
  uint32_t *out, corr;
  int64_t nm, es;   /* elements the kernel covers, bytes per element */
  ti_dtype xt;      /* dtype of x (I8/U8 after narrowing I32) */
  int flip;
  ti__cv_kfn k;
} ti__cv_job;

static void ti__cv_range(void *arg, int64_t b, int64_t e) {
  const ti__cv_job *j = (const ti__cv_job *)arg;
  const ti__cc_geo *g = j->g;
  int64_t f0 = b * 16, f1 = e * 16 < g->nf ? e * 16 : g->nf, f, r, es = j->es;
  j->k(j->w, j->x, g->nr * es, j->nm * es, f0, f1, j->flip, j->out);
  if (j->nm == g->nr && j->d->bias_mode != TI_BIAS_VECTOR) {   /* no tail: one constant per row */
    const uint32_t c = ti__cc_biasi(j->d, j->bias, 0) - j->corr;
    if (c) for (f = f0; f < f1; f++) j->out[f] += c;
    return;
  }
  for (f = f0; f < f1; f++) {
    uint32_t acc = j->out[f] - j->corr + ti__cc_biasi(j->d, j->bias, f);
    for (r = j->nm; r < g->nr; r++)
      acc += ti__cc_geti(j->x, j->xt, r) * ti__cc_geti(j->w, j->d->w_dtype, f * g->nr + r);
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

TASKIR_API ti_status ti_cvm_as_cc(const ti_prim_desc *cvm, ti_prim_desc *cc) {
  ti__cc_geo g;
  ti_status s = ti__cvm_geom(cvm, &g);
  if (s) return s;
  if (!cc) return TI_STATUS_BAD_PARAM;
  *cc = *cvm;
  cc->ny = cc->nx = cc->niy = cc->nix = cc->nky = cc->nkx = 1;
  cc->stride_y = cc->stride_x = cc->dilation_y = cc->dilation_x = 1;
  cc->pad_up = cc->pad_down = cc->pad_left = cc->pad_right = 0;
  return TI_STATUS_SUCCESS;
}

TASKIR_API ti_status ti_cvm_scratch_size(const ti_prim_desc *d, size_t *bytes) {
  ti__cc_geo g;
  ti_status s = ti__cvm_geom(d, &g);
  if (s) return s;
  if (!bytes) return TI_STATUS_BAD_PARAM;
  *bytes = g.dual ? (size_t)g.nr : 0;
  return TI_STATUS_SUCCESS;
}

TASKIR_API ti_status ti_cvm(const ti_kernel_ctx *ctx, const ti_prim_desc *d, const void *in,
                            const void *w, const void *bias, void *out,
                            void *scratch, size_t scratch_bytes) {
  ti__cc_geo g;
  ti__cv_job j;
  ti__cv_cfn cf = 0;
  ti_status s = ti__cvm_geom(d, &g);
  unsigned cpu;
  int64_t vb = 0, r;
  int corr_on;
  if (s) return s;
  if (!in || !w || !out) return TI_STATUS_BAD_PARAM;
  if ((s = ti__cc_check_bias(d, bias)) != TI_STATUS_SUCCESS) return s;
  cpu = ti__cpu(ctx);
  j.xt = d->in_dtype;
  j.x = (const uint8_t *)in;
  if (g.dual && cpu && scratch && (uint64_t)scratch_bytes >= (uint64_t)g.nr) {
    /* I32 input that fits 8 bits: narrow it and take the int8 kernels. */
    const ti__cc_copies cp = ti__cc_copies_cpu(cpu);
    const int64_t off = ti__cc_narrow_off(&cp, (const int32_t *)in, g.nr);
    if (off >= 0) {
      uint8_t *x8 = (uint8_t *)scratch;
      cp.n(x8, (const int32_t *)in, g.nr, 0);
      j.xt = off ? TI_DTYPE_I8 : TI_DTYPE_U8;
      j.x = x8;
      g.int8 = 1;
    }
  }
  j.k = 0;
  j.flip = j.xt != TI_DTYPE_U8;
  corr_on = j.flip;
  switch (ti__variant(cpu, TI_FAMILY_CVM)) {
#if defined(TI__X86)
  case TI_VARIANT_AVX512VNNI:
    if ((cpu & TI_CPU_AVXVNNI) && (uint64_t)g.nf * (uint64_t)g.nr >= (uint64_t)TASKIR_CVM_YMM_BYTES) {
      /* weights beyond the L2: see TASKIR_CVM_YMM_BYTES and TASKIR_CVM_MEM_BYTES */
      j.k = (uint64_t)g.nf * (uint64_t)g.nr >= (uint64_t)TASKIR_CVM_MEM_BYTES ? ti__cv_k_avxvnni_mem
                                                                             : ti__cv_k_avxvnni_l3;
      cf = ti__cv_c_avxvnni; vb = 32;
    } else if ((uint64_t)g.nf * (uint64_t)g.nr >= (uint64_t)TASKIR_CVM_YMM_BYTES) {
      /* beyond the L2 without AVX-VNNI (AMD EPYC, cpuid family 25): two
         streams of two, no prefetch, four for long rows (see
         ti__cv_k_vnni512_far) */
      j.k = g.nr > TI__CV_FAR4_ROW ? ti__cv_k_vnni512_far4 : ti__cv_k_vnni512_far;
      cf = ti__cv_c_vnni512; vb = 64;
    } else {
      j.k = ti__cv_k_vnni512; cf = ti__cv_c_vnni512; vb = 64;
    }
    break;
  case TI_VARIANT_AVXVNNI: j.k = ti__cv_k_avxvnni; cf = ti__cv_c_avxvnni; vb = 32; break;
  case TI_VARIANT_AVX512: j.k = ti__cv_k_avx512; cf = ti__cv_c_avx512; vb = 64; break;
  case TI_VARIANT_AVX2: j.k = ti__cv_k_avx2; cf = ti__cv_c_avx2; vb = 32; break;
  case TI_VARIANT_SSE2: j.k = ti__cv_k_sse2; cf = ti__cv_c_sse2; vb = 16; break;
#elif defined(TI__NEON)
  /* the NEON kernel takes the flag as "input is signed" and needs no correction */
  case TI_VARIANT_NEON: j.k = ti__cv_k_neon; vb = 16; corr_on = 0; break;
#endif
  default: break;
  }
  j.es = 1;
  if (d->in_dtype == TI_DTYPE_I32 && d->w_dtype == TI_DTYPE_I32) {
    /* I32 x I32: plain wrapping row dots (other mixes and F32 take the
       reference: a float row dot would reassociate the sum) */
    j.k = 0; j.es = 4; j.flip = 0; corr_on = 0;
    switch (ti__variant(cpu, TI_FAMILY_CVM_I32)) {
#if defined(TI__X86)
    case TI_VARIANT_AVX512: j.k = ti__cv_k_avx512_i32; vb = 16; break;
    case TI_VARIANT_AVX2: j.k = ti__cv_k_avx2_i32; vb = 8; break;
#elif defined(TI__NEON)
    case TI_VARIANT_NEON: j.k = ti__cv_k_neon_i32; vb = 4; break;
#endif
    default: break;
    }
  } else if (!g.int8) j.k = 0;
  if (!j.k) { ti__cvm_ref_run(d, &g, in, w, bias, out); return TI_STATUS_SUCCESS; }
  j.d = d; j.g = &g; j.w = (const uint8_t *)w; j.bias = bias;
  j.out = (uint32_t *)out; j.nm = g.nr - g.nr % vb; j.corr = 0;
  if (corr_on && cf) j.corr = cf(j.x, j.nm);
  else if (corr_on)
    for (r = 0; r < j.nm; r++) j.corr += 128u * ti__cc_geti(j.x, j.xt, r);
  ti__parallel(ctx, (g.nf + 15) / 16, ti__cv_range, &j);
  return TI_STATUS_SUCCESS;
}

#undef TI__CC_REP1
#undef TI__CC_REP2
#undef TI__CC_REP3
#undef TI__CC_REP4
#undef TI__CC_REP5
#undef TI__CC_REP6
#undef TI__CC_REP12
#undef TI__CC_WOFF
#undef TI__CC_DECL
#undef TI__CC_SETI
#undef TI__CC_STEP
#undef TI__CC_OUT
#undef TI__CC_KERNEL
#undef TI__CV_PF
#undef TI__CV_DOTW
#undef TI__CV_PFN
#undef TI__CV_STEP
#undef TI__CV_ROWS
#undef TI__CV_STREAM
#undef TI__CV_SUM4
#undef TI__CV_CORR
#undef TI__CV_FAR4_ROW
#undef TI__CW_KERNEL
#undef TI__CW_IMAC
#undef TI__CW_FMAC
#undef TI__CV_KERNEL
#undef TI__CC_LIMIT
#undef TI__CC_MAGIC

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
  if ((int64_t)d->nky * d->nkx > (int64_t)TASKIR_MAX_WINDOW) return TI_STATUS_LIMIT;
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
TASKIR_API int32_t ti_ccmpb_max(const ti_prim_desc *d) {
  if (!d) return 0;
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

/* Bytes of an element of CCMPB's storage for out_dtype dt (int input). */
TI__PRIVATE int ti__e_st_bytes(ti_dtype dt) {
  switch (dt) {
  case TI_DTYPE_I8: case TI_DTYPE_TERNARY: case TI_DTYPE_U8: return 1;
  case TI_DTYPE_I16: case TI_DTYPE_I9: case TI_DTYPE_U16: return 2;
  default: return 4;
  }
}

/* CCMPB's storage per out_dtype: bytes of an element (4: int32/float). */
TASKIR_API size_t ti_ccmpb_out_size(const ti_prim_desc *d) {
  return !d || d->in_dtype == TI_DTYPE_F32 ? 4 : (size_t)ti__e_st_bytes(d->out_dtype);
}

/* out[off .. off+n) = t[0 .. n) in CCMPB's storage dt: the low 8, 16 or 32
   bits of each value (two's complement: signed and unsigned storage get the
   same bytes). */
TI__PRIVATE void ti__e_st_ccmpb(void *out, ti_dtype dt, int64_t off, const int32_t *t, int64_t n) {
  int64_t i;
  switch (ti__e_st_bytes(dt)) {
  case 1: {
    uint8_t *o = (uint8_t *)out + off;
    for (i = 0; i < n; i++) o[i] = (uint8_t)(uint32_t)t[i];
    break;
  }
  case 2: {
    uint16_t *o = (uint16_t *)out + off;
    for (i = 0; i < n; i++) o[i] = (uint16_t)(uint32_t)t[i];
    break;
  }
  default: if ((int32_t *)out + off != t) ti__memcpy((int32_t *)out + off, t, (size_t)n * sizeof *t); break;
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
    if (op == TI__E_MAX && !(*hi = ti_ccmpb_max(d))) return TI_STATUS_NOT_SUPPORTED;
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
  int64_t total, i, f, nf; int kind, b;
  ti_status st = ti__e_check(d, out, bias, 1, &total, &kind);
  if (st) return st;
  if (!inputs || d->n_branch < 1) return TI_STATUS_BAD_PARAM;
  for (b = 0; b < d->n_branch; b++) if (!inputs[b]) return TI_STATUS_BAD_PARAM;
  nf = d->nf;
  for (i = 0; i < total; i += nf)
    for (f = 0; f < nf; f++) {
      if (kind == 1) {
        int32_t acc = ti__e_ld(inputs[0], d->in_dtype, i + f);
        for (b = 1; b < d->n_branch; b++) acc = ti__e_add(acc, ti__e_ld(inputs[b], d->in_dtype, i + f));
        if (d->bias_mode != TI_BIAS_NONE) acc = ti__e_add(acc, ti__e_bias_i(d, bias, f));
        ((int32_t *)out)[i + f] = acc;
      } else {
        float acc = ((const float *)inputs[0])[i + f];
        for (b = 1; b < d->n_branch; b++) acc = acc + ((const float *)inputs[b])[i + f];
        if (d->bias_mode != TI_BIAS_NONE) acc = acc + ti__e_bias_f(d, bias, f);
        ((float *)out)[i + f] = acc;
      }
    }
  return TI_STATUS_SUCCESS;
}

/* CVVH (alpha_per_f = 0, b = second operand), CAX (alpha_per_f = 1, b =
   alpha[f]) and CVS (b = NULL: constant_a). */
TI__PRIVATE ti_status ti__e_mul_ref(const ti_prim_desc *d, int which, const void *a, const void *b,
                               const void *bias, void *out) {
  int64_t total, p, f, nf; int kind;
  ti_status st = ti__e_check(d, out, bias, 1, &total, &kind);
  if (st) return st;
  if (!a || (which != 2 && !b)) return TI_STATUS_BAD_PARAM;
  if (which != 2 && ti__e_kind(d->w_dtype) != kind) return TI_STATUS_NOT_SUPPORTED;
  nf = d->nf;
  for (p = 0; p < total; p += nf)
    for (f = 0; f < nf; f++) {
      int64_t i = p + f, j = which == 1 ? f : i;   /* CAX: alpha[f] */
      if (kind == 1) {
        int32_t x = ti__e_ld(a, d->in_dtype, i);
        int32_t y = which == 2 ? d->constant_a : ti__e_ld(b, d->w_dtype, j);
        int32_t r = ti__e_mul(x, y);
        if (d->bias_mode != TI_BIAS_NONE) r = ti__e_add(r, ti__e_bias_i(d, bias, f));
        ((int32_t *)out)[i] = r;
      } else {
        float x = ((const float *)a)[i];
        float y = which == 2 ? (float)d->constant_a : ((const float *)b)[j];
        float r = x * y;   /* separate statement: never fused with the bias add */
        if (d->bias_mode != TI_BIAS_NONE) r = r + ti__e_bias_f(d, bias, f);
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
          if (op == TI__E_MAX) ti__e_st_ccmpb(out, d->out_dtype, o, &acc, 1);
          else ((int32_t *)out)[o] = acc;
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

TASKIR_API ti_status ti_lif_params_check(const ti_lif_params *p, const char **field, int32_t *value) {
  /* range rules first (BAD_PARAM), then features the kernel lacks */
#define TI__E_LIF_RULE(bad, name, v, st) \
  if (bad) { if (field) *field = name; if (value) *value = v; return st; }
  TI__E_LIF_RULE(!ti__e_in28(p->vth0), "VTH0", p->vth0, TI_STATUS_BAD_PARAM)
  TI__E_LIF_RULE(!ti__e_in28(p->vr), "VR", p->vr, TI_STATUS_BAD_PARAM)
  TI__E_LIF_RULE(!ti__e_in28(p->vl), "VL", p->vl, TI_STATUS_BAD_PARAM)
  TI__E_LIF_RULE(!ti__e_in28(p->dv), "DV", p->dv, TI_STATUS_BAD_PARAM)
  TI__E_LIF_RULE(!ti__e_in28(p->vinit), "VINIT", p->vinit, TI_STATUS_BAD_PARAM)
  TI__E_LIF_RULE(!ti__e_in28(p->vleaky_beta), "VLEAKY_BETA", p->vleaky_beta, TI_STATUS_BAD_PARAM)
  TI__E_LIF_RULE(!ti__e_in28(p->vtheta_const), "VTHETA_CONST", p->vtheta_const, TI_STATUS_BAD_PARAM)
  TI__E_LIF_RULE(p->reset_mode < 0 || p->reset_mode > 3, "RESET_MODE", p->reset_mode, TI_STATUS_BAD_PARAM)
  TI__E_LIF_RULE(p->fire_type < 0 || p->fire_type > 7, "FIRE_TYPE", p->fire_type, TI_STATUS_BAD_PARAM)
  TI__E_LIF_RULE(p->ref_len != 0, "REF_LEN", p->ref_len, TI_STATUS_NOT_SUPPORTED)
  TI__E_LIF_RULE(p->vth_adpt_en != 0, "VTH_ADPT_EN", p->vth_adpt_en, TI_STATUS_NOT_SUPPORTED)
  TI__E_LIF_RULE(p->vth_beta != 0, "VTH_BETA", p->vth_beta, TI_STATUS_NOT_SUPPORTED)
  TI__E_LIF_RULE(p->vth_incre != 0, "VTH_INCRE", p->vth_incre, TI_STATUS_NOT_SUPPORTED)
  TI__E_LIF_RULE(p->vm_const_en && p->vm_const, "VM_CONST", p->vm_const, TI_STATUS_NOT_SUPPORTED)
  TI__E_LIF_RULE((p->fire_type > 1 && p->fire_type < 4) || p->fire_type > 5, "FIRE_TYPE", p->fire_type,
                 TI_STATUS_NOT_SUPPORTED)
#undef TI__E_LIF_RULE
  return TI_STATUS_SUCCESS;
}

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
  if ((st = ti_lif_params_check(p, NULL, NULL))) return st;
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
   int32 widening). TI__E_GEN writes the leaves once over the SIMD layer
   (ti__v<P>_*, >>kernels.impl.simd); their scalar tails use the
   reference's helpers, so a path differs from the reference only in speed.
   The drivers below walk the tensors in tiles of TI__E_TILE elements and
   call the leaves through a table chosen from ctx->cpu. */
#if defined(TI__X86) || defined(TI__NEON)
#define TI__E_SIMD 1

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
  void (*add3)(int32_t *o, const int32_t *a, const int32_t *b, int64_t n);    /* o = a + b */
  void (*addc)(int32_t *o, int32_t c, int64_t n);                             /* o += c */
  void (*mul)(int32_t *o, const int32_t *a, const int32_t *b, int64_t n);     /* o = a*b */
  void (*mulc)(int32_t *o, const int32_t *a, int32_t c, int64_t n);           /* o = a*c */
  void (*max)(int32_t *o, const int32_t *x, int64_t n);                       /* o = max(o, x) */
  void (*min)(int32_t *o, const int32_t *x, int64_t n);
  void (*maxc)(int32_t *o, int32_t c, int64_t n);
  void (*minc)(int32_t *o, int32_t c, int64_t n);
  void (*shift_clip)(int32_t *o, const int32_t *x, int s, int32_t lo, int32_t hi, int64_t n);   /* o = clip(x >> s) */
  void (*lut)(int32_t *o, const int32_t *x, uint32_t mask, const int32_t *lut, int64_t n);
  void (*lif)(int32_t *v, const int32_t *in, int32_t *out, const ti__e_lif_k *k, int64_t n);
  void (*fadd)(float *o, const float *x, int64_t n);                          /* o = o + x */
  void (*fadd3)(float *o, const float *a, const float *b, int64_t n);         /* o = a + b */
  void (*faddc)(float *o, float c, int64_t n);
  void (*fmul)(float *o, const float *a, const float *b, int64_t n);
  void (*fmulc)(float *o, const float *a, float c, int64_t n);
  void (*fmax)(float *o, const float *x, int64_t n);                          /* o = fmax(x, o) */
  void (*fmin)(float *o, const float *x, int64_t n);
  void (*fmaxc)(float *o, float c, int64_t n);
  void (*fminc)(float *o, float c, int64_t n);
  /* o[p][f] op= x[p * xs + f] over np rows of nf: a strided window row */
  void (*add2d)(int32_t *o, const int32_t *x, int64_t np, int64_t nf, int64_t xs);
  void (*max2d)(int32_t *o, const int32_t *x, int64_t np, int64_t nf, int64_t xs);
  void (*min2d)(int32_t *o, const int32_t *x, int64_t np, int64_t nf, int64_t xs);
  void (*fadd2d)(float *o, const float *x, int64_t np, int64_t nf, int64_t xs);
  void (*fmax2d)(float *o, const float *x, int64_t np, int64_t nf, int64_t xs);
  void (*fmin2d)(float *o, const float *x, int64_t np, int64_t nf, int64_t xs);
  /* whole in-bounds windows, [op: sum, max, min][in: I8/TERNARY, U8, I32] */
  void (*win[3][3])(int32_t *o, const void *x, int64_t np, int64_t nf, int64_t xs,
                    int64_t nky, int64_t nkx, int64_t rs);
  void (*fwin)(int op, float *o, const float *x, int64_t np, int64_t nf, int64_t xs,
               int64_t nky, int64_t nkx, int64_t rs);
  void (*st8)(void *o, const int32_t *t, int64_t n);    /* o = low 8 bits of t */
  void (*st16)(void *o, const int32_t *t, int64_t n);   /* o = low 16 bits of t */
} ti__e_vt;

#define TI__E_VT(P) { ti__e##P##_widen_i8, ti__e##P##_widen_u8, ti__e##P##_add, ti__e##P##_add3, ti__e##P##_addc, \
  ti__e##P##_mul, ti__e##P##_mulc, ti__e##P##_max, ti__e##P##_min, ti__e##P##_maxc, \
  ti__e##P##_minc, ti__e##P##_shift_clip, ti__e##P##_lut, ti__e##P##_lif, ti__e##P##_fadd, ti__e##P##_fadd3, \
  ti__e##P##_faddc, ti__e##P##_fmul, ti__e##P##_fmulc, ti__e##P##_fmax, ti__e##P##_fmin, \
  ti__e##P##_fmaxc, ti__e##P##_fminc, ti__e##P##_add2d, ti__e##P##_max2d, ti__e##P##_min2d, \
  ti__e##P##_fadd2d, ti__e##P##_fmax2d, ti__e##P##_fmin2d, \
  {{ti__e##P##_win_add_i8, ti__e##P##_win_add_u8, ti__e##P##_win_add_i32}, \
   {ti__e##P##_win_max_i8, ti__e##P##_win_max_u8, ti__e##P##_win_max_i32}, \
   {ti__e##P##_win_min_i8, ti__e##P##_win_min_u8, ti__e##P##_win_min_i32}}, ti__e##P##_fwin, \
  ti__e##P##_st8, ti__e##P##_st16 }

/* The leaf loops, one macro each, written once over the SIMD layer of one
   ISA (prefix P, function attribute A). */
/* Whole windows of np output pixels of a row, every window position inside
   the input: o[p][f] = o[p][f] op x[p*xs + ky*rs + kx*nf + f] over ky, kx
   in the reference's order, accumulated in registers. */
#define TI__E_WINLEAF(P, A, NAME, T, VLD, VOP, SOP) \
A static void ti__e##P##_##NAME(int32_t *o, const void *xv, int64_t np, int64_t nf, int64_t xs, \
                                int64_t nky, int64_t nkx, int64_t rs) { \
  const T *x = (const T *)xv; \
  int64_t p, f, ky, kx; \
  for (p = 0; p < np; p++, o += nf, x += xs) { \
    for (f = 0; f + ti__v##P##_W <= nf; f += ti__v##P##_W) { \
      ti__v##P##_vi acc = ti__v##P##_ld(o + f); \
      for (ky = 0; ky < nky; ky++) \
        for (kx = 0; kx < nkx; kx++) \
          acc = ti__v##P##_##VOP(acc, ti__v##P##_##VLD(x + ky * rs + kx * nf + f)); \
      ti__v##P##_st(o + f, acc); \
    } \
    for (; f < nf; f++) { \
      int32_t acc = o[f]; \
      for (ky = 0; ky < nky; ky++) \
        for (kx = 0; kx < nkx; kx++) acc = SOP(acc, (int32_t)x[ky * rs + kx * nf + f]); \
      o[f] = acc; \
    } \
  } \
}
/* VOP/SOP name a leaf's operation on vectors / on the scalar tail as acc op= e:
   TI__E_V*(P, acc, e) and ti__e_add, ti__e_max, ... or TI__E_S*(acc, e);
   float max/min keep acc unless e compares strictly greater/less, as the
   reference does. F is empty for int32 leaves and f for float ones
   (ld/ldf, st/stf, set1/set1f), V the vector type (vi or vf). */
#define TI__E_VADD(P, a, e) ti__v##P##_vadd(a, e)
#define TI__E_VMUL(P, a, e) ti__v##P##_vmul(a, e)
#define TI__E_VMAX(P, a, e) ti__v##P##_vmax(a, e)
#define TI__E_VMIN(P, a, e) ti__v##P##_vmin(a, e)
#define TI__E_VFADD(P, a, e) ti__v##P##_vfadd(a, e)
#define TI__E_VFMUL(P, a, e) ti__v##P##_vfmul(a, e)
#define TI__E_VFMAX(P, a, e) ti__v##P##_vfmax(e, a)
#define TI__E_VFMIN(P, a, e) ti__v##P##_vfmin(e, a)
#define TI__E_SFADD(a, e) ((a) + (e))
#define TI__E_SFMUL(a, e) ((a) * (e))
#define TI__E_SFMAX(a, e) ti__e_fmax(e, a)
#define TI__E_SFMIN(a, e) ti__e_fmin(e, a)
/* o = widened 8-bit s */
#define TI__E_WIDEN(P, A, NAME, T, VLD) \
A static void ti__e##P##_##NAME(int32_t *o, const T *s, int64_t n) { \
  int64_t i = 0; \
  for (; i + ti__v##P##_W <= n; i += ti__v##P##_W) ti__v##P##_st(o + i, ti__v##P##_##VLD(s + i)); \
  for (; i < n; i++) o[i] = s[i]; \
}
/* o op= x */
#define TI__E_ACC(P, A, NAME, T, F, VOP, SOP) \
A static void ti__e##P##_##NAME(T *o, const T *x, int64_t n) { \
  int64_t i = 0; \
  for (; i + ti__v##P##_W <= n; i += ti__v##P##_W) \
    ti__v##P##_st##F(o + i, VOP(P, ti__v##P##_ld##F(o + i), ti__v##P##_ld##F(x + i))); \
  for (; i < n; i++) o[i] = SOP(o[i], x[i]); \
}
/* o op= c */
#define TI__E_ACCC(P, A, NAME, T, V, F, VOP, SOP) \
A static void ti__e##P##_##NAME(T *o, T c, int64_t n) { \
  const ti__v##P##_##V vc = ti__v##P##_set1##F(c); \
  int64_t i = 0; \
  for (; i + ti__v##P##_W <= n; i += ti__v##P##_W) ti__v##P##_st##F(o + i, VOP(P, ti__v##P##_ld##F(o + i), vc)); \
  for (; i < n; i++) o[i] = SOP(o[i], c); \
}
/* o = a op b */
#define TI__E_PROD(P, A, NAME, T, F, VOP, SOP) \
A static void ti__e##P##_##NAME(T *o, const T *a, const T *b, int64_t n) { \
  int64_t i = 0; \
  for (; i + ti__v##P##_W <= n; i += ti__v##P##_W) \
    ti__v##P##_st##F(o + i, VOP(P, ti__v##P##_ld##F(a + i), ti__v##P##_ld##F(b + i))); \
  for (; i < n; i++) o[i] = SOP(a[i], b[i]); \
}
/* o = a op c */
#define TI__E_PRODC(P, A, NAME, T, V, F, VOP, SOP) \
A static void ti__e##P##_##NAME(T *o, const T *a, T c, int64_t n) { \
  const ti__v##P##_##V vc = ti__v##P##_set1##F(c); \
  int64_t i = 0; \
  for (; i + ti__v##P##_W <= n; i += ti__v##P##_W) ti__v##P##_st##F(o + i, VOP(P, ti__v##P##_ld##F(a + i), vc)); \
  for (; i < n; i++) o[i] = SOP(a[i], c); \
}
/* o[p][f] op= x[p * xs + f] over np rows of nf */
#define TI__E_ACC2D(P, A, NAME, T, F, VOP, SOP) \
A static void ti__e##P##_##NAME(T *o, const T *x, int64_t np, int64_t nf, int64_t xs) { \
  int64_t p, i; \
  for (p = 0; p < np; p++, o += nf, x += xs) { \
    for (i = 0; i + ti__v##P##_W <= nf; i += ti__v##P##_W) \
      ti__v##P##_st##F(o + i, VOP(P, ti__v##P##_ld##F(o + i), ti__v##P##_ld##F(x + i))); \
    for (; i < nf; i++) o[i] = SOP(o[i], x[i]); \
  } \
}
/* o = clip(x >> s, lo, hi) (x may be o) */
#define TI__E_SHIFT_CLIP(P, A) \
A static void ti__e##P##_shift_clip(int32_t *o, const int32_t *x, int s, int32_t lo, int32_t hi, int64_t n) { \
  const ti__v##P##_vi vlo = ti__v##P##_set1(lo), vhi = ti__v##P##_set1(hi); \
  int64_t i = 0; \
  for (; i + ti__v##P##_W <= n; i += ti__v##P##_W) ti__v##P##_st(o + i, ti__v##P##_vmin(ti__v##P##_vmax(ti__v##P##_vsra(ti__v##P##_ld(x + i), s), vlo), vhi)); \
  for (; i < n; i++) o[i] = ti__e_min(ti__e_max(ti__e_sra(x[i], s), lo), hi); \
}
/* o = lut[x & mask] */
#define TI__E_LUT(P, A) \
A static void ti__e##P##_lut(int32_t *o, const int32_t *x, uint32_t mask, const int32_t *lut, int64_t n) { \
  const ti__v##P##_vi vm = ti__v##P##_set1((int32_t)mask); \
  int64_t i = 0; \
  for (; i + ti__v##P##_W <= n; i += ti__v##P##_W) ti__v##P##_st(o + i, ti__v##P##_gather(lut, ti__v##P##_vand(ti__v##P##_ld(x + i), vm))); \
  for (; i < n; i++) o[i] = lut[(uint32_t)x[i] & mask]; \
}
/* one LIF step per element, branch-free (ti__e_lif_one is its scalar form) */
#define TI__E_LIF(P, A) \
A static void ti__e##P##_lif(int32_t *v, const int32_t *in, int32_t *out, const ti__e_lif_k *k, int64_t n) { \
  const ti__v##P##_vi lo = ti__v##P##_set1(TI_LIF_V_MIN), hi = ti__v##P##_set1(TI_LIF_V_MAX), big = ti__v##P##_set1(0x7fffffff); \
  const ti__v##P##_vi vth = ti__v##P##_set1(k->vth), ka = ti__v##P##_set1(k->ka), kb = ti__v##P##_set1(k->kb), al = ti__v##P##_set1(k->alpha); \
  const ti__v##P##_vi be = ti__v##P##_set1(k->beta), keep = ti__v##P##_set1(k->keep), vi = ti__v##P##_set1(k->vinit), vl = ti__v##P##_set1(k->vl); \
  const ti__v##P##_vi f0 = ti__v##P##_set1(k->f0), f1 = ti__v##P##_set1(k->f1), f4 = ti__v##P##_set1(k->f4); \
  const ti__v##P##_vi m8 = ti__v##P##_set1(255), one = ti__v##P##_set1(1), zero = ti__v##P##_set1(0); \
  int64_t i = 0; \
  for (; i + ti__v##P##_W <= n; i += ti__v##P##_W) { \
    ti__v##P##_vi a = ti__v##P##_ld(v + i), b = ti__v##P##_ld(in + i), s = ti__v##P##_vadd(a, b); \
    ti__v##P##_vi t = ti__v##P##_selneg(ti__v##P##_vand(ti__v##P##_vxor(a, s), ti__v##P##_vxor(b, s)), ti__v##P##_vxor(ti__v##P##_vsra(a, 31), big), s); \
    ti__v##P##_vi u, nv, sp; \
    t = ti__v##P##_vmin(ti__v##P##_vmax(t, lo), hi); \
    sp = ti__v##P##_selgt(t, vth, one, zero); \
    u = ti__v##P##_selgt(t, vth, ti__v##P##_vadd(ti__v##P##_vand(t, ka), kb), t); \
    nv = ti__v##P##_vadd(ti__v##P##_vadd(ti__v##P##_vmul(al, ti__v##P##_vsra(u, 8)), ti__v##P##_vsra(ti__v##P##_vmul(al, ti__v##P##_vand(u, m8)), 8)), be); \
    nv = ti__v##P##_vadd(ti__v##P##_vand(nv, keep), vi); \
    nv = ti__v##P##_vmax(ti__v##P##_vmin(ti__v##P##_vmax(nv, lo), hi), vl); \
    ti__v##P##_st(out + i, ti__v##P##_vadd(ti__v##P##_vadd(ti__v##P##_vand(t, f0), ti__v##P##_vand(nv, f1)), ti__v##P##_vand(sp, f4))); \
    ti__v##P##_st(v + i, nv); \
  } \
  for (; i < n; i++) ti__e_lif_one(v + i, in[i], out + i, k); \
}
/* o = the low 8 / 16 bits of t (CCMPB's narrow storage) */
#define TI__E_NARROW(P, A, NAME, T) \
A static void ti__e##P##_##NAME(void *ov, const int32_t *t, int64_t n) { \
  T *o = (T *)ov; \
  int64_t i = 0; \
  for (; i + ti__v##P##_W <= n; i += ti__v##P##_W) ti__v##P##_##NAME(o + i, ti__v##P##_ld(t + i)); \
  for (; i < n; i++) o[i] = (T)(uint32_t)t[i]; \
}
/* whole float windows; op TI__E_SUM, TI__E_MAX or TI__E_MIN */
#define TI__E_FWIN(P, A) \
A static void ti__e##P##_fwin(int op, float *o, const float *x, int64_t np, int64_t nf, int64_t xs, int64_t nky, int64_t nkx, int64_t rs) { \
  int64_t p, f, ky, kx; \
  for (p = 0; p < np; p++, o += nf, x += xs) { \
    for (f = 0; f + ti__v##P##_W <= nf; f += ti__v##P##_W) { \
      ti__v##P##_vf acc = ti__v##P##_ldf(o + f); \
      for (ky = 0; ky < nky; ky++) \
        for (kx = 0; kx < nkx; kx++) { \
          ti__v##P##_vf e = ti__v##P##_ldf(x + ky * rs + kx * nf + f); \
          acc = op == TI__E_SUM ? ti__v##P##_vfadd(acc, e) : op == TI__E_MAX ? ti__v##P##_vfmax(e, acc) : ti__v##P##_vfmin(e, acc); \
        } \
      ti__v##P##_stf(o + f, acc); \
    } \
    for (; f < nf; f++) { \
      float acc = o[f]; \
      for (ky = 0; ky < nky; ky++) \
        for (kx = 0; kx < nkx; kx++) { \
          float e = x[ky * rs + kx * nf + f]; \
          acc = op == TI__E_SUM ? acc + e : op == TI__E_MAX ? ti__e_fmax(e, acc) : ti__e_fmin(e, acc); \
        } \
      o[f] = acc; \
    } \
  } \
}
/* Every leaf of one ISA, in the order of ti__e_vt. */
#define TI__E_GEN(P, A) \
TI__E_WIDEN(P, A, widen_i8, int8_t, ld_i8w) \
TI__E_WIDEN(P, A, widen_u8, uint8_t, ld_u8w) \
TI__E_ACC(P, A, add, int32_t, , TI__E_VADD, ti__e_add) \
TI__E_PROD(P, A, add3, int32_t, , TI__E_VADD, ti__e_add) \
TI__E_ACCC(P, A, addc, int32_t, vi, , TI__E_VADD, ti__e_add) \
TI__E_PROD(P, A, mul, int32_t, , TI__E_VMUL, ti__e_mul) \
TI__E_PRODC(P, A, mulc, int32_t, vi, , TI__E_VMUL, ti__e_mul) \
TI__E_ACC(P, A, max, int32_t, , TI__E_VMAX, ti__e_max) \
TI__E_ACC(P, A, min, int32_t, , TI__E_VMIN, ti__e_min) \
TI__E_ACCC(P, A, maxc, int32_t, vi, , TI__E_VMAX, ti__e_max) \
TI__E_ACCC(P, A, minc, int32_t, vi, , TI__E_VMIN, ti__e_min) \
TI__E_SHIFT_CLIP(P, A) \
TI__E_LUT(P, A) \
TI__E_LIF(P, A) \
TI__E_ACC(P, A, fadd, float, f, TI__E_VFADD, TI__E_SFADD) \
TI__E_PROD(P, A, fadd3, float, f, TI__E_VFADD, TI__E_SFADD) \
TI__E_ACCC(P, A, faddc, float, vf, f, TI__E_VFADD, TI__E_SFADD) \
TI__E_PROD(P, A, fmul, float, f, TI__E_VFMUL, TI__E_SFMUL) \
TI__E_PRODC(P, A, fmulc, float, vf, f, TI__E_VFMUL, TI__E_SFMUL) \
TI__E_ACC(P, A, fmax, float, f, TI__E_VFMAX, TI__E_SFMAX) \
TI__E_ACC(P, A, fmin, float, f, TI__E_VFMIN, TI__E_SFMIN) \
TI__E_ACCC(P, A, fmaxc, float, vf, f, TI__E_VFMAX, TI__E_SFMAX) \
TI__E_ACCC(P, A, fminc, float, vf, f, TI__E_VFMIN, TI__E_SFMIN) \
TI__E_ACC2D(P, A, add2d, int32_t, , TI__E_VADD, ti__e_add) \
TI__E_ACC2D(P, A, max2d, int32_t, , TI__E_VMAX, ti__e_max) \
TI__E_ACC2D(P, A, min2d, int32_t, , TI__E_VMIN, ti__e_min) \
TI__E_ACC2D(P, A, fadd2d, float, f, TI__E_VFADD, TI__E_SFADD) \
TI__E_ACC2D(P, A, fmax2d, float, f, TI__E_VFMAX, TI__E_SFMAX) \
TI__E_ACC2D(P, A, fmin2d, float, f, TI__E_VFMIN, TI__E_SFMIN) \
TI__E_WINLEAF(P, A, win_add_i8, int8_t, ld_i8w, vadd, ti__e_add) \
TI__E_WINLEAF(P, A, win_add_u8, uint8_t, ld_u8w, vadd, ti__e_add) \
TI__E_WINLEAF(P, A, win_add_i32, int32_t, ld, vadd, ti__e_add) \
TI__E_WINLEAF(P, A, win_max_i8, int8_t, ld_i8w, vmax, ti__e_max) \
TI__E_WINLEAF(P, A, win_max_u8, uint8_t, ld_u8w, vmax, ti__e_max) \
TI__E_WINLEAF(P, A, win_max_i32, int32_t, ld, vmax, ti__e_max) \
TI__E_WINLEAF(P, A, win_min_i8, int8_t, ld_i8w, vmin, ti__e_min) \
TI__E_WINLEAF(P, A, win_min_u8, uint8_t, ld_u8w, vmin, ti__e_min) \
TI__E_WINLEAF(P, A, win_min_i32, int32_t, ld, vmin, ti__e_min) \
TI__E_FWIN(P, A) \
TI__E_NARROW(P, A, st8, uint8_t) \
TI__E_NARROW(P, A, st16, uint16_t)

#if defined(TI__X86)
TI__E_GEN(s, TI__T_SSE2)
TI__E_GEN(a, TI__T_AVX2)
TI__E_GEN(z, TI__T_AVX512)
static const ti__e_vt ti__e_vt_sse2 = TI__E_VT(s);
static const ti__e_vt ti__e_vt_avx2 = TI__E_VT(a);
static const ti__e_vt ti__e_vt_avx512 = TI__E_VT(z);

#elif defined(TI__NEON)
TI__E_GEN(n, )
static const ti__e_vt ti__e_vt_neon = TI__E_VT(n);
#endif

/* ---- drivers ---- */
#define TI__E_TILE 512

/* ti__e_st_ccmpb through the vector leaves */
TI__PRIVATE void ti__e_st_narrow(const ti__e_vt *vt, void *out, ti_dtype dt, int64_t off, const int32_t *t, int64_t n) {
  switch (ti__e_st_bytes(dt)) {
  case 1: vt->st8((uint8_t *)out + off, t, n); break;
  case 2: vt->st16((uint16_t *)out + off, t, n); break;
  default: ti__e_st_ccmpb(out, dt, off, t, n); break;
  }
}

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
  int64_t cols, ncol;         /* windows: output pixels per unit, units per row */
  int narrow;                 /* CCMPB into storage narrower than int32 */
} ti__e_job;

TI__PRIVATE const ti__e_vt *ti__e_pick(const ti_kernel_ctx *ctx) {
  switch (ti__variant(ti__cpu(ctx), TI_FAMILY_ELTWISE)) {
#if defined(TI__X86)
  case TI_VARIANT_AVX512: return &ti__e_vt_avx512;
  case TI_VARIANT_AVX2: return &ti__e_vt_avx2;
  case TI_VARIANT_SSE2: return &ti__e_vt_sse2;
#else
  case TI_VARIANT_NEON: return &ti__e_vt_neon;
#endif
  default: return 0;
  }
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
        /* the first two branches in one pass (o = a + b; a may be o,
           the first widened there), then o += each further one */
        x = ti__e_i32(vt, j->inputs[0], d->in_dtype, i0, n, o);
        if (d->n_branch < 2) {
          if (x != o) ti__memcpy(o, x, (size_t)n * sizeof *o);
          break;
        }
        vt->add3(o, x, ti__e_i32(vt, j->inputs[1], d->in_dtype, i0, n, s1.i), n);
        for (b = 2; b < d->n_branch; b++) vt->add(o, ti__e_i32(vt, j->inputs[b], d->in_dtype, i0, n, s1.i), n);
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
        if (d->n_branch < 2) {
          ti__memcpy(o, (const float *)j->inputs[0] + i0, (size_t)n * sizeof *o);
          break;
        }
        vt->fadd3(o, (const float *)j->inputs[0] + i0, (const float *)j->inputs[1] + i0, n);
        for (b = 2; b < d->n_branch; b++) vt->fadd(o, (const float *)j->inputs[b] + i0, n);
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

/* o[p][f] op= in[off + p * xs + f] for np output pixels of a strided row. */
TI__PRIVATE void ti__e_win_acc2d(const ti__e_job *j, int32_t *o, int64_t off, int64_t np, int64_t xs,
                                 int32_t *buf) {
  const ti__e_vt *vt = j->vt;
  const int64_t nf = j->d->nf;
  int64_t p, m;
  if (j->kind == 2) {
    const float *x = (const float *)j->a + off;
    float *of = (float *)(void *)o;
    if (j->op == TI__E_SUM) vt->fadd2d(of, x, np, nf, xs);
    else if (j->op == TI__E_MAX) vt->fmax2d(of, x, np, nf, xs);
    else vt->fmin2d(of, x, np, nf, xs);
    return;
  }
  if (j->d->in_dtype != TI_DTYPE_I32 && nf > TI__E_TILE) {   /* no span fits a tile */
    for (p = 0; p < np; p++) ti__e_win_acc(j, o + p * nf, off + p * xs, nf, buf);
    return;
  }
  /* Narrow inputs: widen the span of m pixels (gaps included) into buf. */
  m = j->d->in_dtype == TI_DTYPE_I32 ? np : (TI__E_TILE - nf) / xs + 1;
  for (p = 0; p < np; p += m) {
    int64_t q = ti__e_min64(m, np - p);
    const int32_t *x = ti__e_i32(vt, j->a, j->d->in_dtype, off + p * xs, (q - 1) * xs + nf, buf);
    if (j->op == TI__E_SUM) vt->add2d(o + p * nf, x, q, nf, xs);
    else if (j->op == TI__E_MAX) vt->max2d(o + p * nf, x, q, nf, xs);
    else vt->min2d(o + p * nf, x, q, nf, xs);
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

/* Output pixels [px0, px1) of row oy (o: pixel px0), window position by
   window position (ky-major, kx-minor, as the reference): padding and
   partial windows at the borders. */
TI__PRIVATE void ti__e_win_part(const ti__e_job *j, int32_t *o0, int64_t oy, int64_t px0, int64_t px1,
                                int32_t *buf) {
  const ti__e_win *w = j->w;
  const int64_t nf = j->d->nf;
  int64_t ky, kx;
  if (px1 <= px0) return;
  for (ky = 0; ky < w->nky; ky++) {
    int64_t iy = oy * w->sy + ky - w->pu;
    if (iy < 0 || iy >= w->niy) { ti__e_win_pad(j, o0, (px1 - px0) * nf); continue; }
    for (kx = 0; kx < w->nkx; kx++) {
      int64_t lo = ti__e_ceil_div(w->pl - kx, w->sx), hi = ti__e_ceil_div(w->nix + w->pl - kx, w->sx);
      int64_t base;
      lo = lo < px0 ? px0 : lo > px1 ? px1 : lo;   /* [lo, hi) within [px0, px1) */
      hi = hi > px1 ? px1 : hi < lo ? lo : hi;
      ti__e_win_pad(j, o0, (lo - px0) * nf);
      ti__e_win_pad(j, o0 + (hi - px0) * nf, (px1 - hi) * nf);
      if (hi == lo) continue;
      base = (iy * w->nix + lo * w->sx + kx - w->pl) * nf;
      if (w->sx == 1) ti__e_win_acc(j, o0 + (lo - px0) * nf, base, (hi - lo) * nf, buf);
      else ti__e_win_acc2d(j, o0 + (lo - px0) * nf, base, hi - lo, w->sx * nf, buf);
    }
  }
}

/* Units [r0, r1) of j->cols output pixels of a row (j->ncol per row),
   accumulated in place in out (a CCMPB with narrower storage: in a tile,
   then shifted, clipped and stored as out_dtype): pixels whose window lies
   inside the input go through the register-blocked window leaf, the others
   through ti__e_win_part. */
TI__PRIVATE void ti__e_win_range(void *arg, int64_t r0, int64_t r1) {
  const ti__e_job *j = (const ti__e_job *)arg;
  const ti_prim_desc *d = j->d;
  const ti__e_win *w = j->w;
  const ti__e_vt *vt = j->vt;
  const int64_t nf = d->nf, nx = d->nx, rowlen = nx * nf;
  const int dt = d->in_dtype == TI_DTYPE_I32 || d->in_dtype == TI_DTYPE_F32 ? 2
               : d->in_dtype == TI_DTYPE_U8 ? 1 : 0;
  const size_t esize = dt == 2 ? 4 : 1;
  const int narrow = j->narrow;
  ti__e_tile s1, acc;
  int64_t u;
  for (u = r0; u < r1; u++) {
    const int64_t oy = u / j->ncol, px0 = u % j->ncol * j->cols, px1 = ti__e_min64(px0 + j->cols, nx);
    const int64_t len = (px1 - px0) * nf;   /* <= TI__E_TILE when narrow */
    int32_t *op = narrow ? acc.i : (int32_t *)j->out + oy * rowlen + px0 * nf;
    float *of = (float *)j->out + oy * rowlen + px0 * nf;
    int64_t iy0 = oy * w->sy - w->pu, a = 0, b = 0;
    /* the start value: zeroes, then the SIMD constant add (a plain store
       loop here stays scalar unless the includer builds with -march) */
    if (j->kind == 1) {
      int32_t init = j->op == TI__E_SUM ? 0 : j->op == TI__E_MAX ? INT32_MIN : d->cmp;
      ti__memset(op, 0, (size_t)len * sizeof *op);
      if (init) vt->addc(op, init, len);
    } else {
      float init = j->op == TI__E_SUM ? 0.0f : (float)d->cmp;
      ti__memset(of, 0, (size_t)len * sizeof *of);
      if (init != 0.0f) vt->faddc(of, init, len);
    }
    if (iy0 >= 0 && iy0 + w->nky <= w->niy && w->nix + w->pl - w->nkx >= 0) {
      a = ti__e_min64(ti__e_ceil_div(w->pl, w->sx), nx);
      b = ti__e_min64((w->nix + w->pl - w->nkx) / w->sx + 1, nx);
      if (b < a) b = a;
    }
    a = a < px0 ? px0 : a > px1 ? px1 : a;   /* the interior [a, b) within [px0, px1) */
    b = b < a ? a : b > px1 ? px1 : b;
    ti__e_win_part(j, op, oy, px0, a, s1.i);
    if (b > a) {
      const char *x = (const char *)j->a + (size_t)(((iy0 * w->nix) + a * w->sx - w->pl) * nf) * esize;
      if (j->kind == 2)
        vt->fwin(j->op, (float *)j->out + oy * rowlen + a * nf, (const float *)(const void *)x, b - a, nf,
                 w->sx * nf, w->nky, w->nkx, w->nix * nf);
      else
        vt->win[j->op][dt](op + (a - px0) * nf, x, b - a, nf, w->sx * nf, w->nky, w->nkx, w->nix * nf);
    }
    ti__e_win_part(j, op + (b - px0) * nf, oy, b, px1, s1.i);
    if (j->op == TI__E_SUM) {
      if (d->bias_mode == TI_BIAS_VECTOR) {   /* bias[f] repeated: x stride 0 */
        if (j->kind == 1) vt->add2d(op, (const int32_t *)j->bias, px1 - px0, nf, 0);
        else vt->fadd2d(of, (const float *)j->bias, px1 - px0, nf, 0);
      } else if (d->bias_mode == TI_BIAS_CONSTANT) {
        if (j->kind == 1) vt->addc(op, d->constant_b, len);
        else vt->faddc(of, (float)d->constant_b, len);
      }
    } else if (j->kind == 1) {
      if (j->op == TI__E_MAX) vt->shift_clip(op, op, d->bit_shift, d->cmp, j->hi, len);
      else vt->shift_clip(op, op, d->bit_shift, -128, 127, len);
      if (narrow) ti__e_st_narrow(vt, j->out, d->out_dtype, oy * rowlen + px0 * nf, op, len);
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
  ti__memset(&j, 0, sizeof j);
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
  ti__memset(&j, 0, sizeof j);
  j.vt = vt; j.d = d; j.op = op; j.kind = kind; j.a = a; j.b = b; j.bias = bias; j.out = out;
  return ti__e_flat_run(ctx, &j);
}

/* Tiles [c0, c1) of a CCMPB whose window is one element (1x1, stride 1, no
   padding) into narrow storage: widen, shift and clip, store as out_dtype
   (the max of one element from INT32_MIN is the element). */
TI__PRIVATE void ti__e_req_range(void *arg, int64_t c0, int64_t c1) {
  const ti__e_job *j = (const ti__e_job *)arg;
  const ti_prim_desc *d = j->d;
  ti__e_tile t;
  int64_t c;
  for (c = c0; c < c1; c++) {
    const int64_t i0 = c * TI__E_TILE, n = ti__e_min64(TI__E_TILE, j->total - i0);
    const int32_t *x = ti__e_i32(j->vt, j->a, d->in_dtype, i0, n, t.i);
    j->vt->shift_clip(t.i, x, d->bit_shift, d->cmp, j->hi, n);
    ti__e_st_narrow(j->vt, j->out, d->out_dtype, i0, t.i, n);
  }
}

TI__PRIVATE ti_status ti__e_window_run(const ti_kernel_ctx *ctx, const ti__e_vt *vt, const ti_prim_desc *d,
                                       int op, const void *in, const void *bias, void *out) {
  ti__e_win w; int kind; int32_t hi;
  ti__e_job j;
  ti_status st = ti__e_check_window_prim(d, op, in, bias, out, &w, &kind, &hi);
  if (st) return st;
  ti__memset(&j, 0, sizeof j);
  j.vt = vt; j.d = d; j.op = op; j.kind = kind; j.a = in; j.bias = bias; j.out = out; j.w = &w; j.hi = hi;
  j.narrow = op == TI__E_MAX && kind == 1 && ti_ccmpb_out_size(d) < 4;
  if (j.narrow && w.nky == 1 && w.nkx == 1 && w.sy == 1 && w.sx == 1 && !w.pu && !w.pl &&
      w.niy == d->ny && w.nix == d->nx) {   /* a requantisation: element-wise tiles */
    j.total = (int64_t)d->ny * d->nx * d->nf;
    ti__parallel(ctx, (j.total + TI__E_TILE - 1) / TI__E_TILE, ti__e_req_range, &j);
    return TI_STATUS_SUCCESS;
  }
  /* narrow storage accumulates a unit in a tile: more than a tile of
     channels per pixel goes to the reference */
  if (j.narrow && d->nf > TI__E_TILE) return ti__e_window_ref(d, op, in, bias, out);
  /* Units of work: output rows, or, when the rows are few (a 1x1
     requantisation of [1][HW][C] is one row), pieces of a row in whole
     16-pixel groups (64-byte multiples of the output) of about 2048
     values. */
  j.cols = d->nx;
  if (d->ny < 16 && d->nx > 16) {
    j.cols = ((2048 / d->nf + 15) / 16) * 16;
    if (j.cols < 16) j.cols = 16;
    if (j.cols > d->nx) j.cols = d->nx;
  }
  if (j.narrow && j.cols * d->nf > TI__E_TILE) j.cols = TI__E_TILE / d->nf;
  j.ncol = (d->nx + j.cols - 1) / j.cols;
  ti__parallel(ctx, d->ny * j.ncol, ti__e_win_range, &j);
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

/* A local path of ti_ccmpb: max pools with stride = window, no padding,
   on fewer than 16 channels (LeNet's 6), where the vector window leaves
   would run every window position scalar. Per output row, the nky input
   rows are reduced first over their whole used width (contiguous, by the
   vector leaves), then each output pixel takes the max of its nkx column
   groups, shifts and clips as the reference does. 0 (nothing written) when
   the shape is not of that kind or the row is longer than TI__E_POOL_ROW
   values. */
#if defined(TI__E_SIMD)
#define TI__E_POOL_ROW 256
TI__PRIVATE int ti__e_pool_narrow(const ti__e_vt *vt, const ti_prim_desc *d, const void *in, void *out) {
  ti__e_win w; int kind, sh; int32_t hi, lo, acc[TI__E_POOL_ROW], row[TI__E_POOL_ROW], tmp[TI__E_POOL_ROW];
  int64_t oy, p, f, k, ky, rl, nf, nx, gw;
  ti_dtype idt, odt;
  if (d->nf >= 16 || (d->in_dtype != TI_DTYPE_I8 && d->in_dtype != TI_DTYPE_U8 && d->in_dtype != TI_DTYPE_I32)) return 0;
  if (ti__e_check_window_prim(d, TI__E_MAX, in, 0, out, &w, &kind, &hi) != TI_STATUS_SUCCESS || kind != 1) return 0;
  if (w.sy != w.nky || w.sx != w.nkx || w.pu || w.pl || w.nky * w.nkx < 2) return 0;
  rl = (int64_t)d->nx * w.nkx * d->nf;
  if (rl > TI__E_POOL_ROW || (int64_t)d->ny * w.nky > w.niy || (int64_t)d->nx * w.nkx > w.nix) return 0;
  nf = d->nf; nx = d->nx; gw = w.nkx * nf; sh = d->bit_shift; lo = d->cmp;   /* locals: out may alias d */
  idt = d->in_dtype; odt = d->out_dtype;
  for (oy = 0; oy < d->ny; oy++) {
    for (ky = 0; ky < w.nky; ky++) {   /* acc = max over the nky rows, as int32 */
      const int64_t at = ((oy * w.nky + ky) * w.nix) * nf;
      int32_t *dst = ky ? tmp : acc;
      if (idt == TI_DTYPE_I8) vt->widen_i8(dst, (const int8_t *)in + at, rl);
      else if (idt == TI_DTYPE_U8) vt->widen_u8(dst, (const uint8_t *)in + at, rl);
      else ti__memcpy(dst, (const int32_t *)in + at, (size_t)rl * sizeof *dst);
      if (ky) vt->max(acc, tmp, rl);
    }
    for (p = 0; p < nx; p++) {   /* the nkx column groups of each pixel */
      const int32_t *a = acc + p * gw;
      int32_t *q = row + p * nf;
      for (f = 0; f < nf; f++) {
        int32_t m = a[f];
        for (k = nf; k < gw; k += nf) m = m > a[k + f] ? m : a[k + f];
        q[f] = m;
      }
    }
    vt->shift_clip(row, row, sh, lo, hi, nx * nf);
    ti__e_st_narrow(vt, out, odt, oy * nx * nf, row, nx * nf);   /* out_dtype's storage, directly */
  }
  return 1;
}
#endif

TASKIR_API ti_status ti_ccmpb(const ti_kernel_ctx *ctx, const ti_prim_desc *d, const void *in, void *out) {
#if defined(TI__E_SIMD)
  const ti__e_vt *vt = ti__e_pick(ctx);
  if (vt && ti__e_pool_narrow(vt, d, in, out)) return TI_STATUS_SUCCESS;
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
    ti__memset(&j, 0, sizeof j);
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
  ti__memset(&j, 0, sizeof j);
  j.vt = vt; j.d = d; j.op = TI__E_CLIF; j.kind = 1; j.a = in; j.out = spikes; j.v = v_state; j.lk = &k;
  return ti__e_flat_run(ctx, &j);
#else
  (void)ctx;
  return ti_clif_ref(d, p, in, v_state, spikes);
#endif
}

#undef TI__E_SIMD
#undef TI__E_TILE
#undef TI__E_GEN
#undef TI__E_VADD
#undef TI__E_VMUL
#undef TI__E_VMAX
#undef TI__E_VMIN
#undef TI__E_VFADD
#undef TI__E_VFMUL
#undef TI__E_VFMAX
#undef TI__E_VFMIN
#undef TI__E_SFADD
#undef TI__E_SFMUL
#undef TI__E_SFMAX
#undef TI__E_SFMIN
#undef TI__E_WIDEN
#undef TI__E_ACC
#undef TI__E_ACCC
#undef TI__E_PROD
#undef TI__E_PRODC
#undef TI__E_ACC2D
#undef TI__E_SHIFT_CLIP
#undef TI__E_LUT
#undef TI__E_LIF
#undef TI__E_FWIN
#undef TI__E_WINLEAF
#undef TI__E_VT

/* >>kernels.impl.rearrange ----------------------------------------------- */

static const char *const ti__ra_names[] = {
  "IDENTITY", "RESHAPE", "PERMUTE", "ROTATE", "SHIFT", "SCALE",
  "SHEAR", "REFLECT", "AFFINE", "PROJECT", "SHUFFLE"};
/* A new kind breaks the build until the name table has it. */
typedef char ti__ra_names_pinned[(sizeof ti__ra_names / sizeof ti__ra_names[0] ==
                                  (size_t)TI_REARRANGE_COUNT) ? 1 : -1];

TASKIR_API const char *ti_rearrange_kind_name(ti_rearrange_kind kind) {
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

/* Tile of the 2-D problem out[j*so + i] = in[i*sp + j] (strides in bytes)
   with ni x nj elements (each at most one 64-byte line): the square blocks
   of the SIMD layer (ti__v<P>_tr<E>) where they fit, element moves at the
   edges. One per variant of TI_FAMILY_TRANSPOSE, and the reference. */
typedef void (*ti__tr_tile_fn)(size_t es, const unsigned char *s, size_t sp, unsigned char *d,
                               size_t so, int64_t ni, int64_t nj);

/* Element moves of tile rows [ia, ib) x columns [ja, jb). */
static void ti__tr_moves(size_t es, const unsigned char *s, size_t sp, unsigned char *d,
                         size_t so, int64_t ia, int64_t ib, int64_t ja, int64_t jb) {
  int64_t i, j;
#define TI__TR_MV(TYPE)                                                                      \
  for (j = ja; j < jb; ++j)                                                                  \
    for (i = ia; i < ib; ++i) {                                                              \
      TYPE v;                                                                                \
      ti__memcpy(&v, s + (size_t)i * sp + (size_t)j * sizeof(TYPE), sizeof(TYPE));         \
      ti__memcpy(d + (size_t)j * so + (size_t)i * sizeof(TYPE), &v, sizeof(TYPE));         \
    }
  switch (es) {
  case 1: TI__TR_MV(uint8_t) break;
  case 2: TI__TR_MV(uint16_t) break;
  case 4: TI__TR_MV(uint32_t) break;
  default: TI__TR_MV(uint64_t) break;
  }
#undef TI__TR_MV
}

static void ti__tr_tile_ref(size_t es, const unsigned char *s, size_t sp, unsigned char *d,
                            size_t so, int64_t ni, int64_t nj) {
  ti__tr_moves(es, s, sp, d, so, 0, ni, 0, nj);
}

/* Runs of blocks: RUN(s, sp, d, so, n, alongj) moves n K x K blocks, the
   next one K rows further down the source (alongj = 0) or K columns to the
   right (1). One call per run, the block inlined into a loop of its own: a
   call per block, or the blocks' loop inside the tile's (its spilled
   offsets reloaded next to the stores), measured 0.5-0.6x memcpy against
   0.7-0.8x on NHWC->NCHW of 3.2 MB f32 (AMD EPYC, cpuid family 25). */
#define TI__TR_RUN(NAME, T, BLK, K, ES)                                                      \
  T TI__NOINLINE static void NAME(const unsigned char *s, size_t sp, unsigned char *d, size_t so, \
                                  int64_t n, int alongj) {                                   \
    const size_t ss = alongj ? (size_t)(K) * (ES) : (size_t)(K) * sp;                        \
    const size_t ds = alongj ? (size_t)(K) * so : (size_t)(K) * (ES);                        \
    for (; n > 0; --n, s += ss, d += ds) BLK(s, sp, d, so);                                  \
  }
#if defined(TI__X86)
/* The 16 x 16 (32-bit) and 8 x 8 (64-bit) blocks of AVX-512: their 30 or
   14 row offsets do not fit in registers, and the optimizer derives every
   one of them from the strides unless their odd multiples are opaque to
   it. NAME##nt: non-temporal where the output's lines start at d (every
   caller's so is a multiple of 64, so all blocks of the run alike). */
#define TI__TR_RUNZ(NAME, BLK, K)                                                                 \
  TI__T_AVX512 TI__V_BLK void NAME##x(const unsigned char *s, size_t sp, unsigned char *d, size_t so,  \
                                      int64_t n, int alongj, int nt) {                            \
    const size_t ss = alongj ? 64 : (K) * sp, ds = alongj ? (K) * so : 64;                        \
    size_t sp3 = 3 * sp, sp5 = 5 * sp, sp7 = 7 * sp, so3 = 3 * so, so5 = 5 * so, so7 = 7 * so;     \
    TI__OPAQUE(sp3); TI__OPAQUE(sp5); TI__OPAQUE(sp7);                                            \
    TI__OPAQUE(so3); TI__OPAQUE(so5); TI__OPAQUE(so7);                                            \
    if (nt)                                                                                       \
      for (; n > 0; --n, s += ss, d += ds) BLK(s, sp, sp3, sp5, sp7, d, so, so3, so5, so7, 1);    \
    else                                                                                          \
      for (; n > 0; --n, s += ss, d += ds) BLK(s, sp, sp3, sp5, sp7, d, so, so3, so5, so7, 0);    \
  }                                                                                               \
  TI__T_AVX512 TI__NOINLINE static void NAME(const unsigned char *s, size_t sp, unsigned char *d,  \
                                             size_t so, int64_t n, int alongj) {                  \
    NAME##x(s, sp, d, so, n, alongj, 0);                                                          \
  }                                                                                               \
  TI__T_AVX512 TI__NOINLINE static void NAME##nt(const unsigned char *s, size_t sp, unsigned char *d, \
                                               size_t so, int64_t n, int alongj) {                \
    NAME##x(s, sp, d, so, n, alongj, ((uintptr_t)d & 63) == 0);                                   \
  }
TI__TR_RUNZ(ti__tr_run4_avx512, ti__vz_tr4m, 16)
TI__TR_RUNZ(ti__tr_run8_avx512, ti__vz_tr8m, 8)
#undef TI__TR_RUNZ
#endif
/* K x K blocks of ES-byte elements by RUN, along the tile's longer side,
   then the edges by the tile EDGE (the next narrower variant's, down to
   element moves) */
#define TI__TR_BLOCKS(RUN, K, ES, EDGE)                                                      \
  {                                                                                          \
    const int64_t ki = ni - ni % (K), kj = nj - nj % (K);                                    \
    int64_t i, j;                                                                            \
    if (ki >= kj)                                                                            \
      for (j = 0; j < kj; j += (K)) RUN(s + (size_t)j * (ES), sp, d + (size_t)j * so, so, ki / (K), 0); \
    else                                                                                     \
      for (i = 0; i < ki; i += (K)) RUN(s + (size_t)i * sp, sp, d + (size_t)i * (ES), so, kj / (K), 1); \
    if (kj < nj) EDGE(ES, s + (size_t)kj * (ES), sp, d + (size_t)kj * so, so, ki, nj - kj);   \
    if (ki < ni) EDGE(ES, s + (size_t)ki * sp, sp, d + (size_t)ki * (ES), so, ni - ki, nj);   \
  }
#define TI__TR_GEN(P, T, R1, K1, R2, K2, R4, K4, R8, K8, E1, E2, E4, E8)                    \
  T static void ti__tr_tile_##P(size_t es, const unsigned char *s, size_t sp, unsigned char *d, \
                                size_t so, int64_t ni, int64_t nj) {                         \
    switch (es) {                                                                            \
    case 1: TI__TR_BLOCKS(R1, K1, 1, E1) break;                                              \
    case 2: TI__TR_BLOCKS(R2, K2, 2, E2) break;                                              \
    case 4: TI__TR_BLOCKS(R4, K4, 4, E4) break;                                              \
    default: TI__TR_BLOCKS(R8, K8, 8, E8) break;                                             \
    }                                                                                        \
  }
#if defined(TI__X86)
TI__TR_RUN(ti__tr_run1_sse2, TI__T_SSE2, ti__vs_tr1, 8, 1)
TI__TR_RUN(ti__tr_run2_sse2, TI__T_SSE2, ti__vs_tr2, 8, 2)
TI__TR_RUN(ti__tr_run4_sse2, TI__T_SSE2, ti__vs_tr4, 4, 4)
TI__TR_RUN(ti__tr_run8_sse2, TI__T_SSE2, ti__vs_tr8, 2, 8)
TI__TR_RUN(ti__tr_run4_avx2, TI__T_AVX2, ti__va_tr4, 8, 4)
TI__TR_GEN(sse2, TI__T_SSE2, ti__tr_run1_sse2, 8, ti__tr_run2_sse2, 8, ti__tr_run4_sse2, 4, ti__tr_run8_sse2, 2,
           ti__tr_tile_ref, ti__tr_tile_ref, ti__tr_tile_ref, ti__tr_tile_ref)
TI__TR_GEN(avx2, TI__T_AVX2, ti__tr_run1_sse2, 8, ti__tr_run2_sse2, 8, ti__tr_run4_avx2, 8, ti__tr_run8_sse2, 2,
           ti__tr_tile_ref, ti__tr_tile_ref, ti__tr_tile_sse2, ti__tr_tile_ref)
TI__TR_RUN(ti__tr_run1_avx512, TI__T_AVX512, ti__vz_tr1, 64, 1)
TI__TR_GEN(avx512, TI__T_AVX512, ti__tr_run1_avx512, 64, ti__tr_run2_sse2, 8, ti__tr_run4_avx512, 16,
           ti__tr_run8_avx512, 8, ti__tr_tile_sse2, ti__tr_tile_ref, ti__tr_tile_avx2, ti__tr_tile_avx2)
TI__TR_GEN(avx512nt, TI__T_AVX512, ti__tr_run1_avx512, 64, ti__tr_run2_sse2, 8, ti__tr_run4_avx512nt, 16,
           ti__tr_run8_avx512nt, 8, ti__tr_tile_sse2, ti__tr_tile_ref, ti__tr_tile_avx2, ti__tr_tile_avx2)
#elif defined(TI__NEON)
TI__TR_RUN(ti__tr_run1_neon, , ti__vn_tr1, 8, 1)
TI__TR_RUN(ti__tr_run2_neon, , ti__vn_tr2, 8, 2)
TI__TR_RUN(ti__tr_run4_neon, , ti__vn_tr4, 4, 4)
TI__TR_RUN(ti__tr_run8_neon, , ti__vn_tr8, 2, 8)
TI__TR_GEN(neon, , ti__tr_run1_neon, 8, ti__tr_run2_neon, 8, ti__tr_run4_neon, 4, ti__tr_run8_neon, 2, ti__tr_tile_ref,
           ti__tr_tile_ref, ti__tr_tile_ref, ti__tr_tile_ref)
#endif
#undef TI__TR_GEN
#undef TI__TR_BLOCKS
#undef TI__TR_RUN

/* Kept runs of TI__TR_MEMCPY_RUN bytes or more, n of them, `run` bytes
   each, the source stepping sstep bytes and the destination dstep: one
   memcpy per run, or with AVX-512 runs shorter than TI__TR_ZMM_RUN as
   64-byte moves and an overlapping last one. Intel Xeon with AMX (cpuid
   family 6 model 207), in one process against memcpy per run (medians of
   41 alternating pairs, f32): 128- and 192-byte runs 1.34-1.65x at
   46-184 KB, 1.08-1.27x at 7 MB (24x40x48x32); 256- to 768-byte runs
   0.93-1.06x (out of cache), 0.91-1.00x (in cache), so they keep memcpy. */
#define TI__TR_ZMM_RUN 256
typedef void (*ti__tr_runs_fn)(unsigned char *d, size_t dstep, const unsigned char *s, size_t sstep,
                               size_t run, int64_t n);
static void ti__tr_runs_ref(unsigned char *d, size_t dstep, const unsigned char *s, size_t sstep, size_t run,
                            int64_t n) {
  for (; n > 0; --n, d += dstep, s += sstep) ti__memcpy(d, s, run);
}
#if defined(TI__X86)
TI__T_AVX512 TI__NOINLINE static void ti__tr_runs_avx512(unsigned char *d, size_t dstep, const unsigned char *s,
                                                         size_t sstep, size_t run, int64_t n) {
  if (run < 64 || run >= TI__TR_ZMM_RUN) { ti__tr_runs_ref(d, dstep, s, sstep, run, n); return; }
  for (; n > 0; --n, d += dstep, s += sstep) {
    size_t i;
    for (i = 0; i + 64 <= run; i += 64) ti__vz_stb(d + i, ti__vz_ldb(s + i));
    if (i < run) ti__vz_stb(d + run - 64, ti__vz_ldb(s + run - 64));
  }
}
#endif

#if defined(TI__X86)
/* The same streamed: non-temporal stores, the partial lines at a run's ends
   written normally (AVX-512: masked) */
static void ti__tr_runs_nt(unsigned char *d, size_t dstep, const unsigned char *s, size_t sstep, size_t run,
                           int64_t n) {
  for (; n > 0; --n, d += dstep, s += sstep) ti__nt_put(d, s, run);
  ti__vs_fence();
}
TI__T_AVX512 static void ti__tr_runs_ntz(unsigned char *d, size_t dstep, const unsigned char *s, size_t sstep,
                                         size_t run, int64_t n) {
  for (; n > 0; --n, d += dstep, s += sstep) ti__nt_put_z(d, s, run);
  ti__vs_fence();
}
#endif

/* The tile of the variant the cpu flags allow; *lines gets the element
   sizes (as a mask of bytes) whose blocks write whole 64-byte lines, *nt
   the same tile with non-temporal stores of those lines (or 0). */
TI__PRIVATE ti__tr_tile_fn ti__tr_pick(unsigned cpu, unsigned *lines, ti__tr_tile_fn *nt) {
  *lines = 0;
  *nt = 0;
  switch (ti__variant(cpu, TI_FAMILY_TRANSPOSE)) {
#if defined(TI__X86)
  case TI_VARIANT_AVX512: *lines = 4 | 8; *nt = ti__tr_tile_avx512nt; return ti__tr_tile_avx512;
  case TI_VARIANT_AVX2: return ti__tr_tile_avx2;
  case TI_VARIANT_SSE2: return ti__tr_tile_sse2;
#elif defined(TI__NEON)
  case TI_VARIANT_NEON: return ti__tr_tile_neon;
#endif
  default: return ti__tr_tile_ref;
  }
}

typedef struct ti__tr_job {
  const unsigned char *in;
  unsigned char *out;
  size_t es;
  int m;               /* axes after simplification (>= 2) */
  int tiled;           /* 2-D tiles; else blocked gather */
  int r;               /* tiled: output position of the input's innermost axis */
  int noth;            /* tiled: axes iterated by the outer loop, output positions oth[] */
  int oth[TI_MAX_RANK];
  int64_t odim[TI_MAX_RANK];   /* output dims, output order */
  int64_t istr[TI_MAX_RANK];   /* input stride (elements) per output axis */
  int64_t ostr[TI_MAX_RANK];   /* output stride (elements) per output axis */
  int64_t nbi, nbj;    /* tiled: blocks along the output's (i) and input's (j) innermost axes */
  int64_t bl[TI_MAX_RANK];     /* gather: block length per output axis */
  int64_t nb[TI_MAX_RANK];     /* gather: blocks per output axis */
  int stream;          /* output large enough for non-temporal stores */
  ti__tr_tile_fn tile;
  unsigned lines;      /* element sizes whose tiles write whole lines */
  ti__tr_tile_fn ntile;  /* tiled: the tile with non-temporal whole lines, when streamed; else 0 */
  ti__tr_runs_fn runs;   /* gather: kept runs of TI__TR_MEMCPY_RUN bytes or more */
  int pin;             /* gather, those runs streamed: the output axis whose step in the
                          input is one run, each tile's innermost loop (else -1) */
  int64_t blk;         /* tiled: block edge (elements) */
  int64_t ish;         /* tiled: the blocks along i start ish elements early (lines of
                          the output whole in a block: malloc's 16-byte alignment) */
  int64_t jsh;         /* tiled: the blocks along j start jsh elements early (lines of
                          the input whole in a block) */
  int jmajor;          /* tiled: blocks along the input's innermost axis outermost */
  int rows;            /* tiled, streamed: strips of input rows along the block's width */
  int pfw;             /* tiled: the next unit's output lines fetched for writing */
} ti__tr_job;

/* Two levels of blocking for the 2-D core: a block of TI__TR_BLOCK x
   TI__TR_BLOCK elements (its rows' pages stay in the TLB and its bytes in L2),
   cut into tiles of one 64-byte line by one line, so that every line read or
   written is finished within a tile whatever cache sets the strides map to. */
#ifndef TI__TR_BLOCK
#define TI__TR_BLOCK 256
#endif
/* Streamed whole lines (ti__tr_job.ntile): blocks of this edge, walked
   along the longer of the two axes, so that the input is read and the
   output written in runs of 8 lines (512 bytes) per row while the block
   stays in L2. On the AMD EPYC (cpuid family 26), NHWC->NCHW of 51 MB f32
   in 8 paired runs on a loaded machine: 1.3-2.3x (median 1.5x) the speed
   of the normal stores of 256-blocks. On cpuid family 25, with the blocks
   in runs (TI__TR_RUN): an edge of 128 against 64, four alternating runs
   of `bench_transpose_numpy layout`, 0.74-0.88 of memcpy against
   0.71-0.75; 2-D 4096x4096 f32 the same (0.62-0.64); an edge of 1024
   measured 0.53x on it. Since the blocks are read in chunks
   (TI__TR_STREAM_CHUNK), 256 against 128 on that cpu, in one process
   (medians of 9 pairs): 1.03-1.15x on NHWC->NCHW of 32-384 channels and
   2-D transposes of 128- and 320-element rows (13-51 MB f32); 512 and
   1024 no better than 256. */
#ifndef TI__TR_STREAM_BLOCK
#define TI__TR_STREAM_BLOCK 256
#endif
/* Those blocks are read in chunks of this many input rows, the next
   chunk's lines fetched into L2 while one runs. Without the fetches, a
   strip of 64-byte pieces of rows 1 KiB apart read at 14 GB/s where a
   sequential read took 35 (AMD EPYC of cpuid family 25, 51 MB); a loop of
   the same loads and non-temporal stores without the shuffles, chunks of
   16 / 32 / 64 rows fetched a strip ahead: 22-24 / 29-32 / 23-29 GB/s
   (read + written), memcpy 23-27. The kernel itself, NHWC->NCHW of 51 MB
   f32 (blocks of 128): 1.30-1.34x the blocks read whole strips down
   their rows with the next strip fetched into L1, 16-row chunks 1.0x,
   64-row 1.29x. */
#ifndef TI__TR_STREAM_CHUNK
#define TI__TR_STREAM_CHUNK 32
#endif
/* The same with the input's rows the far-apart ones (NCHW->NHWC), or of
   TI__TR_STREAM_ROW_BYTES or more (ti__tr_job.rows): blocks of this edge,
   each read as strips of 16 input rows along the block's width (16
   sequential streams) while the output takes one whole line per row and
   strip. No line is read or written twice, so the edge sets the
   order of the strips and the pieces given to threads. On the AMD EPYC
   (cpuid family 25), 51 MB f32 in one process against memcpy (best of 5,
   three rounds): 0.83-0.95 with an edge of 256-4096 (the normal stores of
   the 256-blocks, which also read each output line before writing it:
   0.40-0.48). */
#ifndef TI__TR_STREAM_FWD_BLOCK
#define TI__TR_STREAM_FWD_BLOCK 1024
#endif
/* Input rows of at least this many bytes take the strips of input rows
   when streamed even where the output's rows are the far-apart ones: the
   column strips' blocks then read each row's piece from a page of its
   own. In one process against memcpy (medians of 9 pairs; two rounds,
   memcpy's speed moving between them; AMD EPYC of cpuid family 25), row
   strips against column strips: 2-D 4096x4096 f32 1.03 / 1.15 against
   0.58 / 0.65, 8192x2048 1.12 / 0.90 against 0.72 / 0.61, NHWC->NCHW with
   512, 768 and 1024 channels 1.67 / 1.11, 1.38 / 0.93 and 1.14 / 1.22
   against 1.21 / 0.84, 1.13 / 0.76 and 0.65 / 0.68; with 256 channels
   (1 KiB rows) the row strips lost, 0.84-0.89 against 0.94-0.96 (three
   rounds), and with 128. */
#ifndef TI__TR_STREAM_ROW_BYTES
#define TI__TR_STREAM_ROW_BYTES 2048
#endif

/* Block [ia, ib) x [ja, jb) of the 2-D problem out[j*so + i] = in[i*sp + j]
   (strides in elements), tile by tile. When a tile's blocks write pieces of
   lines and the output lines of a tile may share cache sets (strides of
   whole KiBs), or when the output is streamed, a full tile goes through a
   local buffer and its output lines are then written whole. */
static void ti__tr2d(const ti__tr_job *job, const unsigned char *in, int64_t sp, unsigned char *out,
                     int64_t so, int64_t ia, int64_t ib, int64_t ja, int64_t jb) {
  const size_t es = job->es, spb = (size_t)sp * es, sob = (size_t)so * es;
  const int64_t TT = 64 / (int64_t)es;
  const int stream = job->stream && !(job->lines & es);
  const int via = stream || (!(job->lines & es) && sob % 1024 == 0);
  /* sweep along the side with the longer stride: with the input's rows far
     apart, strips of TT input rows (read as TT streams, written into a
     compact block of the output); else strips of TT output rows */
  const int jouter = so >= sp;
  int64_t i0, j0, i, j;
  if (job->ntile && job->rows) {
    /* whole lines streamed, input rows far apart or long: strips of TT
       input rows, each along the block's width */
    for (i0 = ia; i0 < ib; i0 += TT)
      job->ntile(es, in + (size_t)(i0 * sp + ja) * es, spb, out + (size_t)(ja * so + i0) * es, sob,
                 ib - i0 < TT ? ib - i0 : TT, jb - ja);
#if defined(TI__X86)
    _mm_sfence();
#endif
    return;
  }
  if (job->ntile) {
    /* whole lines streamed: chunks of TI__TR_STREAM_CHUNK input rows, each
       in strips of TT input columns down the chunk (TT output rows, each
       written a few whole lines at a time); with each strip, the same
       strip of the next chunk's rows is fetched into L2, past the block's
       last row too (the next block along j reads the same rows) */
    const int64_t CH = TI__TR_STREAM_CHUNK, P = job->odim[job->m - 1];
    for (i0 = ia; i0 < ib; i0 += CH) {
      const int64_t ni = ib - i0 < CH ? ib - i0 : CH, n1 = i0 + 2 * CH < P ? i0 + 2 * CH : P;
      for (j0 = ja; j0 < jb; j0 += TT) {
        for (i = i0 + CH; i < n1; ++i) TI__MV_PREFETCH2(in + (size_t)(i * sp + j0) * es);
        job->ntile(es, in + (size_t)(i0 * sp + j0) * es, spb, out + (size_t)(j0 * so + i0) * es, sob, ni,
                   jb - j0 < TT ? jb - j0 : TT);
      }
    }
#if defined(TI__X86)
    _mm_sfence();
#endif
    return;
  }
  if (!via) {
    /* one tile call per strip, its blocks in one run; no software
       prefetch (fetching the next strip's lines cost 5-10% in cache) */
    if (jouter) {
      for (j0 = ja; j0 < jb; j0 += TT)
        job->tile(es, in + (size_t)(ia * sp + j0) * es, spb, out + (size_t)(j0 * so + ia) * es, sob,
                  ib - ia, jb - j0 < TT ? jb - j0 : TT);
    } else {
      for (i0 = ia; i0 < ib; i0 += TT)
        job->tile(es, in + (size_t)(i0 * sp + ja) * es, spb, out + (size_t)(ja * so + i0) * es, sob,
                  ib - i0 < TT ? ib - i0 : TT, jb - ja);
    }
    return;
  }
  for (i0 = ia; i0 < ib; i0 += TT) {
    const int64_t ni = ib - i0 < TT ? ib - i0 : TT;
    for (j0 = ja; j0 < jb; j0 += TT) {
      const int64_t nj = jb - j0 < TT ? jb - j0 : TT;
      const unsigned char *s = in + (size_t)(i0 * sp + j0) * es;
      unsigned char *d = out + (size_t)(j0 * so + i0) * es;
      if (j0 + TT < jb)  /* every input row is a stream of its own: fetch ahead */
        for (i = 0; i < ni; ++i) TI__MV_PREFETCH(s + (size_t)i * spb + 64);
      if (ni < TT) { job->tile(es, s, spb, d, sob, ni, nj); continue; }
      {
        unsigned char buf[64 * 64];
        job->tile(es, s, spb, buf, 64, ni, nj);
        for (j = 0; j < nj; ++j, d += sob) {
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
          ti__memcpy(d, buf + 64 * j, 64);
        }
      }
    }
  }
#if defined(TI__X86)
  if (stream) _mm_sfence();
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

/* Kept innermost runs of at least this many bytes: one library memcpy per
   run (ti__tr_runs_fn: with AVX-512 inline moves below TI__TR_ZMM_RUN),
   the output walked in order (numpy's loop for such permutations). On
   the AMD EPYC (cpuid family 26) this measured 1.1-4x faster than
   16-KiB tiles of 64-byte moves with software prefetch for runs of
   256-768 bytes (24x40x48x64 and 96x160x192, f32): the hardware follows
   the runs, and memcpy moves them faster than the inline moves. Streamed
   outputs (TASKIR_KERNELS_STREAM_BYTES) go in input order instead (the
   runs back to back in the input as each tile's innermost loop,
   ti__tr_job.pin), each run stored non-temporally (ti__tr_runs_nt): reads
   one sequential stream, writes whole lines without reading them first.
   AMD EPYC of cpuid family 25, in one process against the output-order
   memcpy per run (medians of 21 alternating pairs, f32, buffers from
   malloc), 16.8-35 MB: runs of 192-768 bytes 1.09-2.24x, of 128-148
   bytes 0.98-1.04x. */
#define TI__TR_MEMCPY_RUN 128

/* Gathered rows (input stride > 1) are copied in strips of TI__TR_STRIP
   elements, each gathered into a small array and stored at once, and a
   last strip of the constant width n1 % TI__TR_STRIP per tile, one loop
   per width and element size picked once per tile: no branch depends on
   the row length. On the AMD EPYC (cpuid family 26), 6x10x12x16 f32 perm
   (1,2,3,0) (rows of 6): 2.8-2.9 us per call at five code addresses,
   against 4.8-8.9 us for a row loop over a variable count, in alternating
   pairs in one process. The copies are written out element by element
   (TI__TR_COPY1..8 below, so the strip is 8), not loops over a constant
   count: -O2 keeps such loops, and they measured 0.37-0.75x the row loop
   there on 2.6-6.4 MB gathers. */
#define TI__TR_STRIP 8

/* One gather tile: the box of len[a] indices per output axis from element
   offsets (ioff, ooff), in output order (with ti__tr_job.pin, that axis
   innermost: input order). Rows along the innermost output axis
   (contiguous in the output; runs of the input when its stride is 1), the
   next two axes as nested loops with their strides, an odometer over the
   rest (its carries once per plane of rows). */
static void ti__tr_gather_tile(const ti__tr_job *j, int64_t ioff, int64_t ooff, const int64_t *len) {
  const size_t es = j->es;
  const int m = j->m;
  const int64_t n1 = len[m - 1], s1 = j->istr[m - 1];
  const size_t s1b = (size_t)s1 * es;
  int ax[TI_MAX_RANK], nt = 0, a, k;
  int64_t idx[TI_MAX_RANK], n2 = 1, n3 = 1, y, z;
  size_t s2b = 0, o2b = 0, s3b = 0, o3b = 0;
  for (a = 0; a < m - 1; ++a) if (len[a] > 1 && a != j->pin) ax[nt++] = a;
  if (j->pin >= 0 && len[j->pin] > 1) ax[nt++] = j->pin;
  if (nt > 0) {
    a = ax[--nt];
    n2 = len[a]; s2b = (size_t)j->istr[a] * es; o2b = (size_t)j->ostr[a] * es;
  }
  if (nt > 0 && s1 != 1) {  /* gathered rows: a plane of them per step */
    a = ax[--nt];
    n3 = len[a]; s3b = (size_t)j->istr[a] * es; o3b = (size_t)j->ostr[a] * es;
  }
  for (k = 0; k < nt; ++k) idx[k] = 0;
  for (;;) {
    const unsigned char *ip3 = j->in + (size_t)ioff * es, *ip;
    unsigned char *op3 = j->out + (size_t)ooff * es, *op;
    if (s1 == 1) {
      const size_t run = (size_t)n1 * es;
      ip = ip3; op = op3;
      if (run >= TI__TR_MEMCPY_RUN) {
        j->runs(op, o2b, ip, s2b, run, n2);
      } else if (run <= 4096 && n2 > 4) {
        /* runs too short for the hardware to follow: fetch four ahead */
        for (y = 0; y < n2; ++y, ip += s2b, op += o2b) {
          if (y + 4 < n2) {
            size_t q;
            for (q = 0; q < run; q += 64) TI__MV_PREFETCH(ip + 4 * s2b + q);
          }
          ti__mv_copy(op, ip, run);
        }
      } else {
        for (y = 0; y < n2; ++y, ip += s2b, op += o2b) ti__mv_copy(op, ip, run);
      }
    } else {
      /* the whole strips of every row, rows in order; then the last
         strip of the constant width w of every row, in a second pass
         over the tile (in L1 by then) */
      const int64_t nfull = n1 / TI__TR_STRIP, x0 = nfull * TI__TR_STRIP;
      const int w = (int)(n1 - x0);
      int64_t f;
#define TI__TR_E(TYPE, P, Q, K)                                                           \
  {                                                                                       \
    TYPE v_;                                                                              \
    ti__memcpy(&v_, (P) + (size_t)(K) * s1b, sizeof(TYPE));                               \
    ti__memcpy((Q) + (K) * sizeof(TYPE), &v_, sizeof(TYPE));                              \
  }
#define TI__TR_COPY1(T, P, Q) TI__TR_E(T, P, Q, 0)
#define TI__TR_COPY2(T, P, Q) TI__TR_COPY1(T, P, Q) TI__TR_E(T, P, Q, 1)
#define TI__TR_COPY3(T, P, Q) TI__TR_COPY2(T, P, Q) TI__TR_E(T, P, Q, 2)
#define TI__TR_COPY4(T, P, Q) TI__TR_COPY3(T, P, Q) TI__TR_E(T, P, Q, 3)
#define TI__TR_COPY5(T, P, Q) TI__TR_COPY4(T, P, Q) TI__TR_E(T, P, Q, 4)
#define TI__TR_COPY6(T, P, Q) TI__TR_COPY5(T, P, Q) TI__TR_E(T, P, Q, 5)
#define TI__TR_COPY7(T, P, Q) TI__TR_COPY6(T, P, Q) TI__TR_E(T, P, Q, 6)
#define TI__TR_L(TYPE, P, K) ti__memcpy(&v_[K], (P) + (size_t)(K) * s1b, sizeof(TYPE));
#define TI__TR_COPYB(TYPE, P, Q)                                                          \
  TYPE v_[TI__TR_STRIP];                                                                  \
  TI__TR_L(TYPE, P, 0) TI__TR_L(TYPE, P, 1) TI__TR_L(TYPE, P, 2) TI__TR_L(TYPE, P, 3)     \
  TI__TR_L(TYPE, P, 4) TI__TR_L(TYPE, P, 5) TI__TR_L(TYPE, P, 6) TI__TR_L(TYPE, P, 7)     \
  ti__memcpy((Q), v_, sizeof v_);
#define TI__TR_FULL(TYPE)                                                                 \
  for (z = 0; z < n3; ++z)                                                                \
    for (y = 0, ip = ip3 + (size_t)z * s3b, op = op3 + (size_t)z * o3b; y < n2;           \
         ++y, ip += s2b, op += o2b) {                                                     \
      const unsigned char *p_ = ip;                                                       \
      unsigned char *q_ = op;                                                             \
      for (f = 0; f < nfull; ++f, p_ += TI__TR_STRIP * s1b, q_ += TI__TR_STRIP * sizeof(TYPE)) \
      { TI__TR_COPYB(TYPE, p_, q_) }                                                      \
    }
#define TI__TR_COLS(TYPE, W)                                                              \
  for (z = 0; z < n3; ++z)                                                                \
    for (y = 0, ip = ip3 + (size_t)z * s3b + (size_t)x0 * s1b,                            \
        op = op3 + (size_t)z * o3b + (size_t)x0 * sizeof(TYPE);                           \
         y < n2; ++y, ip += s2b, op += o2b)                                               \
    { TI__TR_COPY##W(TYPE, ip, op) }
#define TI__TR_STRIPS(TYPE)                   \
  if (nfull > 0) TI__TR_FULL(TYPE)            \
  switch (w) {                                \
  case 1: TI__TR_COLS(TYPE, 1) break;         \
  case 2: TI__TR_COLS(TYPE, 2) break;         \
  case 3: TI__TR_COLS(TYPE, 3) break;         \
  case 4: TI__TR_COLS(TYPE, 4) break;         \
  case 5: TI__TR_COLS(TYPE, 5) break;         \
  case 6: TI__TR_COLS(TYPE, 6) break;         \
  case 7: TI__TR_COLS(TYPE, 7) break;         \
  default: break;                             \
  }
      switch (es) {
      case 1: TI__TR_STRIPS(uint8_t) break;
      case 2: TI__TR_STRIPS(uint16_t) break;
      case 4: TI__TR_STRIPS(uint32_t) break;
      default: TI__TR_STRIPS(uint64_t) break;
      }
#undef TI__TR_STRIPS
#undef TI__TR_COLS
#undef TI__TR_FULL
#undef TI__TR_COPY7
#undef TI__TR_COPY6
#undef TI__TR_COPY5
#undef TI__TR_COPY4
#undef TI__TR_COPY3
#undef TI__TR_COPY2
#undef TI__TR_COPY1
#undef TI__TR_E
#undef TI__TR_COPYB
#undef TI__TR_L
    }
    for (k = nt - 1; k >= 0; --k) {
      a = ax[k];
      ioff += j->istr[a]; ooff += j->ostr[a];
      if (++idx[k] < len[a]) break;
      ioff -= len[a] * j->istr[a]; ooff -= len[a] * j->ostr[a];
      idx[k] = 0;
    }
    if (k < 0) return;
  }
}

/* Tiled unit u = (outer index, block): the element offsets of its outer
   index and its block [ia, ib) x [ja, jb) of the 2-D problem. */
typedef struct ti__tr_unit_at { int64_t ioff, ooff, ia, ib, ja, jb; } ti__tr_unit_at;
static ti__tr_unit_at ti__tr_unit(const ti__tr_job *j, int64_t u) {
  const int64_t nb = j->nbi * j->nbj, B = j->blk;
  const int64_t bi = j->jmajor ? u % j->nbi : (u % nb) / j->nbj;
  const int64_t bj = j->jmajor ? (u % nb) / j->nbi : u % j->nbj;
  const int64_t P = j->odim[j->m - 1], L = j->odim[j->r];
  ti__tr_unit_at a;
  a.ia = bi * B - j->ish < 0 ? 0 : bi * B - j->ish;
  a.ib = (bi + 1) * B - j->ish > P ? P : (bi + 1) * B - j->ish;
  a.ja = bj * B - j->jsh < 0 ? 0 : bj * B - j->jsh;
  a.jb = (bj + 1) * B - j->jsh > L ? L : (bj + 1) * B - j->jsh;
  ti__tr_outer(j, u / nb, &a.ioff, &a.ooff);
  return a;
}

static void ti__tr_range(void *arg, int64_t u0, int64_t u1) {
  const ti__tr_job *j = (const ti__tr_job *)arg;
  const size_t es = j->es;
  int64_t u;
  if (!j->tiled) {
    /* unit = one gather tile; block indices in output order, the last
       fastest, found once and then counted up */
    int64_t b[TI_MAX_RANK], len[TI_MAX_RANK];
    int a;
    u = u0;
    for (a = j->m - 1; a >= 0; --a) { b[a] = u % j->nb[a]; u /= j->nb[a]; }
    for (u = u0; u < u1; ++u) {
      int64_t ioff = 0, ooff = 0;
      for (a = 0; a < j->m; ++a) {
        const int64_t st = b[a] * j->bl[a];
        len[a] = j->odim[a] - st < j->bl[a] ? j->odim[a] - st : j->bl[a];
        ioff += st * j->istr[a];
        ooff += st * j->ostr[a];
      }
      ti__tr_gather_tile(j, ioff, ooff, len);
      for (a = j->m - 1; a >= 0 && ++b[a] == j->nb[a]; --a) b[a] = 0;
    }
    return;
  }
  if (u0 < u1) {
    ti__tr_unit_at c = ti__tr_unit(j, u0), n = c;
    for (u = u0; u < u1; ++u, c = n) {
      if (u + 1 < u1) n = ti__tr_unit(j, u + 1);
      if (j->pfw && u + 1 < u1) {
        /* the next unit's output lines, fetched for writing while this
           unit runs (ti__tr_job.pfw) */
        int64_t r;
        for (r = n.ja; r < n.jb; ++r) {
          const unsigned char *row = j->out + (size_t)(n.ooff + r * j->ostr[j->r]) * es;
          const uintptr_t e = (uintptr_t)(row + (size_t)n.ib * es);
          uintptr_t q;
          for (q = (uintptr_t)(row + (size_t)n.ia * es) & ~(uintptr_t)63; q < e; q += 64)
            TI__MV_PREFETCHW((const void *)q);
        }
      }
      ti__tr2d(j, j->in + (size_t)c.ioff * es, j->istr[j->m - 1], j->out + (size_t)c.ooff * es,
               j->ostr[j->r], c.ia, c.ib, c.ja, c.jb);
    }
  }
}

/* How many elements early the tiled job's blocks along a buffer's rows
   start so that its 16 x 16 blocks meet whole lines of it: the buffer p,
   its strides str per output axis (elements), str[row] the step from one
   of its rows to the next (that and the outer axes' steps must be whole
   lines), the blocks cut along the output axis `ax`. 0 where the blocks do
   not move whole lines or the rows are not all at one phase within a line,
   and, unless streamed (non-temporal stores need whole lines), where that
   axis is shorter than a block: the shift costs two edges of narrower
   tiles per row, and 24x40x48x64 perms (0,1,3,2) and (1,0,3,2) (rows of
   48 and 64) measured 0.7x the unshifted tiles against numpy. */
static int64_t ti__tr_shift(const ti__tr_job *j, const int64_t *str, int row, int ax, const void *p) {
  const size_t mis = (64 - ((uintptr_t)p & 63)) & 63;
  int i;
  if (!(j->lines & j->es) || (str[row] * (int64_t)j->es) % 64 != 0 || mis % j->es != 0 ||
      (!j->stream && j->odim[ax] < TI__TR_BLOCK))
    return 0;
  for (i = 0; i < j->noth; ++i)
    if ((str[j->oth[i]] * (int64_t)j->es) % 64 != 0) return 0;
  return (j->blk - (int64_t)(mis / j->es)) % j->blk;
}

static ti_status ti__tr_check(size_t es, int ndim, const int64_t *dims, const int *perm,
                              int64_t *vol) {
  int i, seen[TI_MAX_RANK];
  int64_t v = 1;
  if (es != 1 && es != 2 && es != 4 && es != 8) return TI_STATUS_BAD_PARAM;
  if (ndim < 1 || ndim > TI_MAX_RANK || !dims || !perm) return TI_STATUS_BAD_PARAM;
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

/* Gather tiles aim at output rows of TI__TR_OUT_RUN bytes and input runs of
   TI__TR_IN_RUN bytes, so both sides move whole lines while the tile stays
   in L1. */
#define TI__TR_OUT_RUN 1024
/* 2-D SIMD tiles when the innermost input and output axes both hold at
   least this many bytes (half a line: blocks still beat gathers there);
   below it, gather tiles. */
#define TI__TR_TILED_MIN 32
/* Tiled outputs of at least this many bytes whose rows are not whole lines
   and not back to back (another axis between them, e.g. [24,40,48,64] perm
   (0,3,2,1): rows of 160 bytes, 7680 bytes apart) fetch the next unit's
   output lines for writing (ti__tr_job.pfw): each unit writes pieces of
   lines that the next one finishes, and without the fetch every store
   waits for its line. Intel Xeon with AMX (cpuid family 6 model 207), in
   one process against the unfetched code (medians of 31 alternating
   pairs): 24x40x48x64 (0,3,2,1) 2.4x, (1,3,2,0) 2.1x, (3,2,1,0) 1.2-1.4x,
   (3,1,2,0) 0.97-1.09x; 16x40x48x64 (0,3,2,1) 2.4x; fetching the input
   too measured 0.8x on (3,1,2,0), and at 0.5 MB (in cache) the fetch
   costs up to 0.7x. */
#define TI__TR_PFW_BYTES ((size_t)1 << 20)
#define TI__TR_IN_RUN 256
/* With a kept innermost axis both sides are runs: tiles of up to this many
   bytes (more only for longer runs), so that the per-tile cost stays small
   next to the copies. */
#define TI__TR_RUNS_TILE 16384

TASKIR_API ti_status ti_transpose_ex(const ti_kernel_ctx *ctx, size_t es, int ndim,
                                     const int64_t *in_dims, const int *perm, const void *in,
                                     void *out) {
  int64_t vol, cd[TI_MAX_RANK], md[TI_MAX_RANK], istride[TI_MAX_RANK];
  int newi[TI_MAX_RANK], cp[TI_MAX_RANK], gfirst[TI_MAX_RANK];
  int mp[TI_MAX_RANK];
  int cm = 0, ng = 0, i, k, kept;
  int64_t units;
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
    int64_t gd[TI_MAX_RANK];
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
    ti__pcopy(ctx, out, in, (size_t)vol * es);
    return TI_STATUS_SUCCESS;
  }
  istride[ng - 1] = 1;
  for (i = ng - 2; i >= 0; --i) istride[i] = istride[i + 1] * md[i + 1];
  j.in = (const unsigned char *)in;
  j.out = (unsigned char *)out;
  j.es = es;
  j.tile = ti__tr_pick(ti__cpu(ctx), &j.lines, &j.ntile);
  j.runs = ti__tr_runs_ref;
#if defined(TI__X86)
  if (j.tile == ti__tr_tile_avx512) j.runs = ti__tr_runs_avx512;
#endif
#if defined(TI__X86)
  j.stream = j.tile != ti__tr_tile_ref && (size_t)vol * es >= TASKIR_KERNELS_STREAM_BYTES;
#else
  j.stream = 0;
#endif
  for (;;) {
    j.m = ng;
    for (i = 0; i < ng; ++i) { j.odim[i] = md[mp[i]]; j.istr[i] = istride[mp[i]]; }
    j.ostr[ng - 1] = 1;
    for (i = ng - 2; i >= 0; --i) j.ostr[i] = j.ostr[i + 1] * j.odim[i + 1];
    kept = mp[ng - 1] == ng - 1;
    /* a kept innermost axis of 2, 4 or 8 bytes in all: make it the element */
    if (kept && j.es < 8 && (size_t)md[ng - 1] * j.es <= 8 &&
        (((size_t)md[ng - 1] * j.es) & ((size_t)md[ng - 1] * j.es - 1)) == 0) {
      const int64_t run = md[ng - 1];
      j.es *= (size_t)run;
      --ng;
      for (i = 0; i < ng; ++i) istride[i] /= run;
      continue;  /* mp[0..ng-1] is still a non-identity permutation of 0..ng-1 */
    }
    break;
  }
  j.r = ng - 1;
  for (i = 0; i < ng; ++i)
    if (mp[i] == ng - 1) j.r = i;
  j.noth = 0;
  j.rows = 0;
  j.pfw = 0;
  j.pin = -1;
  j.tiled = !kept && j.odim[ng - 1] * (int64_t)j.es >= TI__TR_TILED_MIN &&
            j.odim[j.r] * (int64_t)j.es >= TI__TR_TILED_MIN;
  if (j.tiled) {
    /* both innermost axes hold whole lines: 2-D tiles of them, the other
       axes outside */
    for (i = 0; i < ng - 1; ++i)
      if (i != j.r) j.oth[j.noth++] = i;
    /* streamed whole lines: non-temporal stores, when the output's rows
       hold whole lines (blocks of TI__TR_STREAM_BLOCK, or with the input's
       rows the far-apart ones TI__TR_STREAM_FWD_BLOCK). Rows that are
       pieces of lines take normal stores (and TI__TR_PFW_BYTES): streamed,
       48x40x48x64 f32 perm (0,3,2,1) ran at 0.38x that (Intel Xeon with
       AMX, 3 runs of 31 pairs in one process). */
    if (!j.stream || !(j.lines & j.es) || (j.ostr[j.r] * (int64_t)j.es) % 64 != 0 ||
        (j.odim[ng - 1] * (int64_t)j.es) % 64 != 0)
      j.ntile = 0;
    j.rows = j.ntile && (j.ostr[j.r] < j.istr[ng - 1] ||
                         j.istr[ng - 1] * (int64_t)j.es >= TI__TR_STREAM_ROW_BYTES);
    j.blk = !j.ntile ? TI__TR_BLOCK : j.rows ? TI__TR_STREAM_FWD_BLOCK : TI__TR_STREAM_BLOCK;
    /* with the output rows all at one phase within a line, the blocks
       along the output's rows start where its lines do (ish), and with the
       input rows so, the blocks along the input's rows where the input's
       do (jsh), so that each 16 x 16 block reads 16 whole lines and writes
       16 whole lines (a malloc'ed buffer is only 16-byte aligned; a 64-byte
       access that crosses a line costs two). NHWC->NCHW of 3.2 MB f32, both
       buffers 16 bytes past a line, on the AMD EPYC (cpuid family 25): the
       shifted blocks 1.2x the unshifted ones (medians of 101 pairs against
       memcpy in one process); streamed NCHW->NHWC of 51 MB (output shifted
       only): 1.02-1.04x (25 pairs, cpuid family 26). Streamed NHWC->NCHW
       keeps its input unshifted: its 64-blocks along the channels then cut
       them into edge strips of narrower tiles, and the shift measured
       0.54-0.65 of memcpy against 0.64-0.67 without it (three alternating
       runs of bench_transpose_numpy, cpuid family 25); so do its row
       strips across fewer channels than a block (512 channels, four rounds
       in one process: 1.16-1.73 of memcpy unshifted, 1.17-1.56 shifted, the
       shifted lower in three), while wider rows shift (2-D 4096x4096:
       0.98-1.54 shifted against 0.90-1.19). */
    j.ish = ti__tr_shift(&j, j.ostr, j.r, ng - 1, out);
    j.jsh = j.ntile && j.ostr[j.r] >= j.istr[ng - 1] && (!j.rows || j.odim[j.r] < j.blk)
                ? 0 : ti__tr_shift(&j, j.istr, ng - 1, j.r, in);
    j.nbi = (j.odim[ng - 1] + j.ish + j.blk - 1) / j.blk;
    j.nbj = (j.odim[j.r] + j.jsh + j.blk - 1) / j.blk;
    j.jmajor = j.ntile && j.nbj > j.nbi;
    j.pfw = (size_t)vol * es >= TI__TR_PFW_BYTES && (j.odim[ng - 1] * (int64_t)j.es) % 64 != 0 &&
            j.ostr[j.r] != j.odim[ng - 1];   /* such rows are never streamed (above) */
    units = j.nbi * j.nbj;
    for (i = 0; i < j.noth; ++i) units *= j.odim[j.oth[i]];
  } else {
    /* gather tiles: the innermost output axes up to TI__TR_OUT_RUN bytes,
       then the innermost input axes up to TI__TR_IN_RUN bytes; the axis
       that crosses a limit is cut into blocks, a kept innermost axis
       (runs of the input) never */
    const int64_t es64 = (int64_t)j.es, orun = kept ? TI__TR_RUNS_TILE : TI__TR_OUT_RUN;
    int64_t prod = 1;
    int pos[TI_MAX_RANK];
    /* kept runs of TI__TR_MEMCPY_RUN bytes or more: the whole output in
       order, one tile per index of the outermost output axis */
    const int longrun = kept && j.odim[ng - 1] * es64 >= TI__TR_MEMCPY_RUN;
    for (i = 0; i < ng; ++i) { j.bl[i] = longrun && i > 0 ? j.odim[i] : 1; pos[mp[i]] = i; }
#if defined(TI__X86)
    if (longrun && j.stream) {
      j.pin = pos[ng - 2];
      j.bl[j.pin] = j.odim[j.pin];
      if (j.pin == 0) j.bl[1] = 1;
      j.runs = j.tile == ti__tr_tile_avx512 ? ti__tr_runs_ntz : ti__tr_runs_nt;
    }
#endif
    for (i = ng - 1; i >= 0 && !longrun; --i) {
      if ((kept && i == ng - 1) || prod * j.odim[i] * es64 <= (kept ? orun : 2 * orun)) {
        j.bl[i] = j.odim[i];
      } else {
        const int64_t b = (orun + prod * es64 - 1) / (prod * es64);
        j.bl[i] = b < 2 ? 2 : b > j.odim[i] ? j.odim[i] : b;
        prod *= j.bl[i];
        break;
      }
      prod *= j.bl[i];
      if (prod * es64 >= orun) break;
    }
    prod = 1;
    for (k = ng - 1; k >= 0 && !longrun; --k) {
      i = pos[k];
      if (j.bl[i] > 1) {
        prod *= j.bl[i];
        if (j.bl[i] < j.odim[i]) break;   /* the input's runs end here */
      } else if (prod * j.odim[i] * es64 <= 2 * TI__TR_IN_RUN) {
        j.bl[i] = j.odim[i];
        prod *= j.bl[i];
      } else {
        const int64_t b = (TI__TR_IN_RUN + prod * es64 - 1) / (prod * es64);
        j.bl[i] = b < 2 ? 2 : b > j.odim[i] ? j.odim[i] : b;
        break;
      }
      if (prod * es64 >= TI__TR_IN_RUN) break;
    }
    units = 1;
    for (i = 0; i < ng; ++i) {
      j.nb[i] = (j.odim[i] + j.bl[i] - 1) / j.bl[i];
      units *= j.nb[i];
    }
  }
  ti__parallel(ctx, units, ti__tr_range, &j);
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

static ti_status ti__ra_map_init(ti_rearrange_kind kind, const ti_rearrange_param *p, int np, ti__ra_map *mp,
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

TASKIR_API ti_status ti_rearrange_infer_ex(ti_rearrange_kind kind, const ti_rearrange_param *p, int np,
                                           int ndim, const int64_t *in_dims, int *out_ndim,
                                           int64_t *out_dims, const char **reason) {
  const char *why = 0;
  const int32_t *v, *v1;
  int64_t n, n1, vol = 1, d[TI_MAX_RANK];
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
  if (ndim < 1 || ndim > TI_MAX_RANK) TI__RA_FAIL("ndim must be 1..8");
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
    int seen[TI_MAX_RANK];
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
      if (n1 > TI_MAX_RANK) TI__RA_FAIL("RESHAPE m[1] has more than 8 dims");
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
    int seen[TI_MAX_RANK];
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
    int seen[TI_MAX_RANK];
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
  for (k = 0; k < TI_MAX_RANK; ++k) out_dims[k] = k < on ? d[k] : 0;
  return TI_STATUS_SUCCESS;
fail:
  if (reason) *reason = why;
  return st == TI_STATUS_SUCCESS ? TI_STATUS_BAD_PARAM : st;
#undef TI__RA_FAIL
#undef TI__RA_TRY
}

TASKIR_API ti_status ti_rearrange_infer(ti_rearrange_kind kind, const ti_rearrange_param *p, int np, int ndim,
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
    TYPE t; ti__memcpy(&t, s, sizeof t); ti__memcpy(d, &t, sizeof t);                    \
  }
  switch (es) {
  case 1: for (i = 0; i < n; ++i, s += ss) d[i] = *s; break;
  case 2: TI__RA_G(uint16_t) break;
  case 4: TI__RA_G(uint32_t) break;
  default: TI__RA_G(uint64_t) break;
  }
#undef TI__RA_G
}

/* One ti_rearrange_apply_ex call, cut into ranges of output rows. */
typedef struct ti__ra_job {
  int kind, ndim, cyc;
  size_t es, row;                     /* element bytes; output row bytes */
  const int64_t *in_dims, *od;
  int64_t istr[TI_MAX_RANK], ss[TI_MAX_RANK], dd[TI_MAX_RANK];
  const unsigned char *src, *base;
  unsigned char *dst;
  const int32_t *v;
  int64_t sa, sb, oy, ox, n;          /* SHEAR; SHUFFLE index count */
  ti__ra_map mp;
} ti__ra_job;

/* Output rows [r0, r1) of dims od[0..nd-1] (a row: the innermost axis)
   where output index i reads the input byte base + sum i_a * ss[a] (ss may
   be negative). */
static void ti__ra_strided(void *arg, int64_t r0, int64_t r1) {
  const ti__ra_job *j = (const ti__ra_job *)arg;
  const int nd = j->ndim;
  int64_t idx[TI_MAX_RANK] = {0}, q = r0, r;
  const int64_t inner = j->od[nd - 1];
  const unsigned char *p = j->base;
  unsigned char *out = j->dst + (size_t)r0 * j->row;
  int a;
  for (a = nd - 2; a >= 0; --a) { idx[a] = q % j->od[a]; q /= j->od[a]; p += idx[a] * j->ss[a]; }
  for (r = r0; r < r1; ++r) {
    ti__ra_gather(out, p, j->ss[nd - 1], inner, j->es);
    out += j->row;
    for (a = nd - 2; a >= 0; --a) {
      p += j->ss[a];
      if (++idx[a] < j->od[a]) break;
      p -= j->ss[a] * j->od[a];
      idx[a] = 0;
    }
  }
}

/* SHIFT and SCALE: output rows [r0, r1) over the outer axes, the innermost
   axis in segments. */
static void ti__ra_shift_rows(void *arg, int64_t r0, int64_t r1) {
  const ti__ra_job *j = (const ti__ra_job *)arg;
  const int ndim = j->ndim, kind = j->kind, cyc = j->cyc;
  const int64_t *in_dims = j->in_dims, *od = j->od, *dd = j->dd, *istr = j->istr;
  const size_t es = j->es, orow = j->row;
  const int64_t n = in_dims[ndim - 1];
  int64_t idx[TI_MAX_RANK] = {0}, q = r0, r;
  unsigned char *dst = j->dst + (size_t)r0 * orow;
  int a;
  for (a = ndim - 2; a >= 0; --a) { idx[a] = q % od[a]; q /= od[a]; }
  for (r = r0; r < r1; ++r, dst += orow) {
    const unsigned char *s = j->src;
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
      ti__memset(dst, 0, orow);
    } else if (kind == TI_REARRANGE_SCALE) {
      const int64_t f = dd[ndim - 1];
      if (f == 1) ti__mv_copy(dst, s, orow);
      else {
        int64_t i, k2;
        unsigned char *qd = dst;
        for (i = 0; i < n; ++i)
          for (k2 = 0; k2 < f; ++k2, qd += es) ti__memcpy(qd, s + (size_t)i * es, es);
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
      ti__memset(dst, 0, (size_t)lo * es);
      ti__mv_copy(dst + (size_t)lo * es, s + (size_t)(lo - d0) * es, (size_t)(hi - lo) * es);
      ti__memset(dst + (size_t)hi * es, 0, (size_t)(n - hi) * es);
    }
    for (a = ndim - 2; a >= 0; --a) {
      if (++idx[a] < od[a]) break;
      idx[a] = 0;
    }
  }
}

/* SHEAR, AFFINE and PROJECT: output rows y in [y0, y1) of the plane (y, x)
   = axes (0, 1); the rest of the axes is one pixel. */
static void ti__ra_plane_rows(void *arg, int64_t y0, int64_t y1) {
  const ti__ra_job *j = (const ti__ra_job *)arg;
  const int64_t H = j->in_dims[0], W = j->in_dims[1], Wo = j->od[1];
  const size_t pix = (size_t)j->istr[1];
  unsigned char *dst = j->dst + (size_t)y0 * (size_t)Wo * pix;
  int64_t y, x, ys = 0, xs = 0;
  for (y = y0; y < y1; ++y)
    for (x = 0; x < Wo; ++x, dst += pix) {
      int ok;
      if (j->kind == TI_REARRANGE_SHEAR) {
        /* a: y' = y + a x + oy, x' = x; b: x' = x + b y + ox, y' = y */
        xs = x - j->sb * y - j->ox;
        ys = y - j->sa * x - j->oy;
        if (j->sa) xs = x; else ys = y;
        ok = ys >= 0 && ys < H && xs >= 0 && xs < W;
      } else {
        ok = ti__ra_map_src(&j->mp, y, x, H, W, &ys, &xs);
      }
      if (ok) ti__mv_copy(dst, j->src + (size_t)(ys * j->istr[0] + xs * j->istr[1]), pix);
      else ti__memset(dst, 0, pix);
    }
}

/* SHUFFLE along an axis: outer slices [o0, o1), each n pieces of j->row
   bytes; without an axis: elements [o0, o1) (j->row = es). */
static void ti__ra_shuffle_rows(void *arg, int64_t o0, int64_t o1) {
  const ti__ra_job *j = (const ti__ra_job *)arg;
  const size_t inner = j->row;
  int64_t o, k;
  if (j->dd[0] >= 0) {  /* the axis: dd[0] = its extent in the input */
    unsigned char *dst = j->dst + (size_t)o0 * (size_t)j->n * inner;
    for (o = o0; o < o1; ++o)
      for (k = 0; k < j->n; ++k, dst += inner) {
        if (j->v[k] < 0) ti__memset(dst, 0, inner);
        else ti__mv_copy(dst, j->src + (size_t)(o * j->dd[0] + j->v[k]) * inner, inner);
      }
  } else {
    unsigned char *dst = j->dst + (size_t)o0 * inner;
    for (o = o0; o < o1; ++o, dst += inner) {
      if (j->v[o] < 0) ti__memset(dst, 0, inner);
      else ti__memcpy(dst, j->src + (size_t)j->v[o] * inner, inner);
    }
  }
}

TASKIR_API ti_status ti_rearrange_apply(ti_rearrange_kind kind, const ti_rearrange_param *p, int np,
                                        size_t es, int ndim, const int64_t *in_dims,
                                        const void *in, int out_ndim, const int64_t *out_dims,
                                        void *out) {
  return ti_rearrange_apply_ex(0, kind, p, np, es, ndim, in_dims, in, out_ndim, out_dims, out);
}

TASKIR_API ti_status ti_rearrange_apply_ex(const ti_kernel_ctx *ctx, ti_rearrange_kind kind,
                                           const ti_rearrange_param *p, int np, size_t es,
                                           int ndim, const int64_t *in_dims, const void *in,
                                           int out_ndim, const int64_t *out_dims, void *out) {
  int64_t od[TI_MAX_RANK];
  int64_t ivol = 1, ovol = 1, given = 1, rows = 1;
  int on, a;
  const unsigned char *src = (const unsigned char *)in;
  unsigned char *dst = (unsigned char *)out;
  const int32_t *v = 0, *v1 = 0;
  const char *why;
  ti__ra_job j;
  ti_status st = ti_rearrange_infer_ex(kind, p, np, ndim, in_dims, &on, od, &why);
  if (st != TI_STATUS_SUCCESS) return st;
  if (es != 1 && es != 2 && es != 4 && es != 8) return TI_STATUS_BAD_PARAM;
  if (out_ndim < 1 || out_ndim > TI_MAX_RANK || !out_dims) return TI_STATUS_BAD_PARAM;
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
  ti__memset(&j, 0, sizeof j);
  j.kind = kind; j.ndim = ndim; j.es = es; j.in_dims = in_dims; j.od = od;
  j.src = j.base = src; j.dst = dst;
  j.istr[ndim - 1] = (int64_t)es;  /* byte strides of the input */
  for (a = ndim - 2; a >= 0; --a) j.istr[a] = j.istr[a + 1] * in_dims[a + 1];
  for (a = 0; a < ndim - 1; ++a) rows *= od[a];
  j.row = (size_t)od[ndim - 1] * es;
  if (np > 0) { v = p[0].i32; }
  if (np > 1) { v1 = p[1].i32; }
  j.v = v;
  if (ivol == 0) {  /* an empty input: the whole (non-empty) output is fill */
    ti__memset(dst, 0, (size_t)ovol * es);
    return TI_STATUS_SUCCESS;
  }
  switch (kind) {
  case TI_REARRANGE_IDENTITY:
    ti__pcopy(ctx, dst, src, (size_t)ovol * es);
    return TI_STATUS_SUCCESS;
  case TI_REARRANGE_RESHAPE: {
    int perm[TI_MAX_RANK];
    for (a = 0; a < ndim; ++a)  /* listed fastest first: reversed, it is the perm */
      perm[a] = (np > 0 && p[0].n_i32 > 0) ? v[ndim - 1 - a] : a;
    return ti_transpose_ex(ctx, es, ndim, in_dims, perm, in, out);
  }
  case TI_REARRANGE_PERMUTE: {
    int perm[TI_MAX_RANK];
    for (a = 0; a < ndim; ++a) perm[a] = v[a];
    return ti_transpose_ex(ctx, es, ndim, in_dims, perm, in, out);
  }
  case TI_REARRANGE_ROTATE:
  case TI_REARRANGE_REFLECT: {
    const int64_t *istr = j.istr;
    for (a = 0; a < ndim; ++a) j.ss[a] = istr[a];
    if (kind == TI_REARRANGE_REFLECT) {
      int64_t i;
      for (i = 0; i < p[0].n_i32; ++i) {
        const int ax = v[i];
        j.base += (in_dims[ax] - 1) * istr[ax];
        j.ss[ax] = -istr[ax];
      }
    } else {
      const int ax = p[0].n_i32 == 3 ? v[1] : 0, bx = p[0].n_i32 == 3 ? v[2] : 1;
      const int q = (int)(((v[0] % 4) + 4) % 4);
      if (q == 1) {        /* out[i][j] = in[j][W-1-i] */
        j.ss[ax] = -istr[bx]; j.base += (in_dims[bx] - 1) * istr[bx];
        j.ss[bx] = istr[ax];
      } else if (q == 2) { /* out[i][j] = in[H-1-i][W-1-j] */
        j.ss[ax] = -istr[ax]; j.base += (in_dims[ax] - 1) * istr[ax];
        j.ss[bx] = -istr[bx]; j.base += (in_dims[bx] - 1) * istr[bx];
      } else if (q == 3) { /* out[i][j] = in[H-1-j][i] */
        j.ss[ax] = istr[bx];
        j.ss[bx] = -istr[ax]; j.base += (in_dims[ax] - 1) * istr[ax];
      }
    }
    ti__parallel(ctx, rows, ti__ra_strided, &j);
    return TI_STATUS_SUCCESS;
  }
  case TI_REARRANGE_SHIFT:
  case TI_REARRANGE_SCALE:
    j.cyc = kind == TI_REARRANGE_SHIFT && np > 1 && p[1].n_i32 == 1 && v1[0] == TI_SHIFT_CYCLIC;
    for (a = 0; a < ndim; ++a)
      j.dd[a] = (np > 0 && a < p[0].n_i32) ? v[a] : (kind == TI_REARRANGE_SHIFT ? 0 : 1);
    ti__parallel(ctx, rows, ti__ra_shift_rows, &j);
    return TI_STATUS_SUCCESS;
  case TI_REARRANGE_SHEAR:
  case TI_REARRANGE_AFFINE:
  case TI_REARRANGE_PROJECT:
    if (kind == TI_REARRANGE_SHEAR) {
      const int64_t H = in_dims[0], W = in_dims[1];
      j.sa = v[0]; j.sb = v[1];
      j.oy = j.sa < 0 ? -j.sa * (W - 1) : 0;
      j.ox = j.sb < 0 ? -j.sb * (H - 1) : 0;
    } else {
      (void)ti__ra_map_init(kind, p, np, &j.mp, &why);  /* validated by infer */
    }
    ti__parallel(ctx, od[0], ti__ra_plane_rows, &j);
    return TI_STATUS_SUCCESS;
  case TI_REARRANGE_SHUFFLE:
    j.n = p[0].n_i32;
    if (np > 1 && p[1].n_i32 == 1) {
      const int c = v1[0];
      int64_t outer = 1;
      j.row = (size_t)j.istr[c];
      j.dd[0] = in_dims[c];
      for (a = 0; a < c; ++a) outer *= in_dims[a];
      ti__parallel(ctx, outer, ti__ra_shuffle_rows, &j);
    } else {
      j.row = es;
      j.dd[0] = -1;
      ti__parallel(ctx, j.n, ti__ra_shuffle_rows, &j);
    }
    return TI_STATUS_SUCCESS;
  default:
    return TI_STATUS_NOT_SUPPORTED;
  }
}

#undef TI__RA_LIMIT
#undef TI__PCOPY_PIECE
#undef TI__MV_PREFETCH
#undef TI__WR_CAP
#undef TI__WR_PF_BYTES
#undef TI__TS_UMAX
#undef TI__TS_STAGE
#undef TI__TR_BLOCK
#undef TI__TR_OUT_RUN
#undef TI__TR_IN_RUN
#undef TI__TR_RUNS_TILE
#undef TI__TR_TILED_MIN
#undef TI__VS_L
#undef TI__VS_S
#undef TI__VS_L8
#undef TI__VS_S8
#undef TI__T_SSE2
#undef TI__T_AVX2
#undef TI__T_AVXVNNI
#undef TI__T_AVX512
#undef TI__T_VNNI512
#ifdef TI__V_K16
#undef TI__V_K16
#endif
#undef TI__V_INL

#undef ti__memcpy
#undef ti__memmove
#undef ti__memset
#ifdef TI__FS_MEM
#undef TI__FS_MEM
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
