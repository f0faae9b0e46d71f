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

/* >>kernels.conv: CC, CC2D, CVM ------------------------------------------ */

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

/* >>kernels.impl.conv ---------------------------------------------------- */

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
} ti__e_vt;

#define TI__E_VT(P) { ti__e##P##_widen_i8, ti__e##P##_widen_u8, ti__e##P##_add, ti__e##P##_addc, \
  ti__e##P##_mul, ti__e##P##_mulc, ti__e##P##_max, ti__e##P##_min, ti__e##P##_maxc, \
  ti__e##P##_minc, ti__e##P##_shift_clip, ti__e##P##_lut, ti__e##P##_lif, ti__e##P##_fadd, \
  ti__e##P##_faddc, ti__e##P##_fmul, ti__e##P##_fmulc, ti__e##P##_fmax, ti__e##P##_fmin, \
  ti__e##P##_fmaxc, ti__e##P##_fminc, ti__e##P##_add2d, ti__e##P##_max2d, ti__e##P##_min2d, \
  ti__e##P##_fadd2d, ti__e##P##_fmax2d, ti__e##P##_fmin2d, \
  {{ti__e##P##_win_add_i8, ti__e##P##_win_add_u8, ti__e##P##_win_add_i32}, \
   {ti__e##P##_win_max_i8, ti__e##P##_win_max_u8, ti__e##P##_win_max_i32}, \
   {ti__e##P##_win_min_i8, ti__e##P##_win_min_u8, ti__e##P##_win_min_i32}}, ti__e##P##_fwin }

#if defined(__GNUC__) || defined(__clang__)
#define TI__E_INL static inline __attribute__((unused))
#else
#define TI__E_INL static __inline
#endif

/* The leaf loops, written once over the wrappers of one ISA (prefix P,
   function attribute A). */
/* Whole windows of np output pixels of a row, every window position inside
   the input: o[p][f] = o[p][f] op x[p*xs + ky*rs + kx*nf + f] over ky, kx
   in the reference's order, accumulated in registers. */
#define TI__E_WINLEAF(P, A, NAME, T, VLD, VOP, SOP) \
A static void ti__e##P##_##NAME(int32_t *o, const void *xv, int64_t np, int64_t nf, int64_t xs, \
                                int64_t nky, int64_t nkx, int64_t rs) { \
  const T *x = (const T *)xv; \
  int64_t p, f, ky, kx; \
  for (p = 0; p < np; p++, o += nf, x += xs) { \
    for (f = 0; f + ti__e##P##_W <= nf; f += ti__e##P##_W) { \
      ti__e##P##_vi acc = ti__e##P##_ld(o + f); \
      for (ky = 0; ky < nky; ky++) \
        for (kx = 0; kx < nkx; kx++) \
          acc = ti__e##P##_##VOP(acc, ti__e##P##_##VLD(x + ky * rs + kx * nf + f)); \
      ti__e##P##_st(o + f, acc); \
    } \
    for (; f < nf; f++) { \
      int32_t acc = o[f]; \
      for (ky = 0; ky < nky; ky++) \
        for (kx = 0; kx < nkx; kx++) acc = SOP(acc, (int32_t)x[ky * rs + kx * nf + f]); \
      o[f] = acc; \
    } \
  } \
}
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
} \
A static void ti__e##P##_add2d(int32_t *o, const int32_t *x, int64_t np, int64_t nf, int64_t xs) { \
  int64_t p, i; \
  for (p = 0; p < np; p++, o += nf, x += xs) { \
    for (i = 0; i + ti__e##P##_W <= nf; i += ti__e##P##_W) ti__e##P##_st(o + i, ti__e##P##_vadd(ti__e##P##_ld(o + i), ti__e##P##_ld(x + i))); \
    for (; i < nf; i++) o[i] = ti__e_add(o[i], x[i]); \
  } \
} \
A static void ti__e##P##_max2d(int32_t *o, const int32_t *x, int64_t np, int64_t nf, int64_t xs) { \
  int64_t p, i; \
  for (p = 0; p < np; p++, o += nf, x += xs) { \
    for (i = 0; i + ti__e##P##_W <= nf; i += ti__e##P##_W) ti__e##P##_st(o + i, ti__e##P##_vmax(ti__e##P##_ld(o + i), ti__e##P##_ld(x + i))); \
    for (; i < nf; i++) o[i] = ti__e_max(o[i], x[i]); \
  } \
} \
A static void ti__e##P##_min2d(int32_t *o, const int32_t *x, int64_t np, int64_t nf, int64_t xs) { \
  int64_t p, i; \
  for (p = 0; p < np; p++, o += nf, x += xs) { \
    for (i = 0; i + ti__e##P##_W <= nf; i += ti__e##P##_W) ti__e##P##_st(o + i, ti__e##P##_vmin(ti__e##P##_ld(o + i), ti__e##P##_ld(x + i))); \
    for (; i < nf; i++) o[i] = ti__e_min(o[i], x[i]); \
  } \
} \
A static void ti__e##P##_fadd2d(float *o, const float *x, int64_t np, int64_t nf, int64_t xs) { \
  int64_t p, i; \
  for (p = 0; p < np; p++, o += nf, x += xs) { \
    for (i = 0; i + ti__e##P##_W <= nf; i += ti__e##P##_W) ti__e##P##_stf(o + i, ti__e##P##_vfadd(ti__e##P##_ldf(o + i), ti__e##P##_ldf(x + i))); \
    for (; i < nf; i++) o[i] = o[i] + x[i]; \
  } \
} \
A static void ti__e##P##_fmax2d(float *o, const float *x, int64_t np, int64_t nf, int64_t xs) { \
  int64_t p, i; \
  for (p = 0; p < np; p++, o += nf, x += xs) { \
    for (i = 0; i + ti__e##P##_W <= nf; i += ti__e##P##_W) ti__e##P##_stf(o + i, ti__e##P##_vfmax(ti__e##P##_ldf(x + i), ti__e##P##_ldf(o + i))); \
    for (; i < nf; i++) o[i] = ti__e_fmax(x[i], o[i]); \
  } \
} \
A static void ti__e##P##_fmin2d(float *o, const float *x, int64_t np, int64_t nf, int64_t xs) { \
  int64_t p, i; \
  for (p = 0; p < np; p++, o += nf, x += xs) { \
    for (i = 0; i + ti__e##P##_W <= nf; i += ti__e##P##_W) ti__e##P##_stf(o + i, ti__e##P##_vfmin(ti__e##P##_ldf(x + i), ti__e##P##_ldf(o + i))); \
    for (; i < nf; i++) o[i] = ti__e_fmin(x[i], o[i]); \
  } \
} \
TI__E_WINLEAF(P, A, win_add_i8, int8_t, ld_i8w, vadd, ti__e_add) \
TI__E_WINLEAF(P, A, win_add_u8, uint8_t, ld_u8w, vadd, ti__e_add) \
TI__E_WINLEAF(P, A, win_add_i32, int32_t, ld, vadd, ti__e_add) \
TI__E_WINLEAF(P, A, win_max_i8, int8_t, ld_i8w, vmax, ti__e_max) \
TI__E_WINLEAF(P, A, win_max_u8, uint8_t, ld_u8w, vmax, ti__e_max) \
TI__E_WINLEAF(P, A, win_max_i32, int32_t, ld, vmax, ti__e_max) \
TI__E_WINLEAF(P, A, win_min_i8, int8_t, ld_i8w, vmin, ti__e_min) \
TI__E_WINLEAF(P, A, win_min_u8, uint8_t, ld_u8w, vmin, ti__e_min) \
TI__E_WINLEAF(P, A, win_min_i32, int32_t, ld, vmin, ti__e_min) \
A static void ti__e##P##_fwin(int op, float *o, const float *x, int64_t np, int64_t nf, int64_t xs, int64_t nky, int64_t nkx, int64_t rs) { \
  int64_t p, f, ky, kx; \
  for (p = 0; p < np; p++, o += nf, x += xs) { \
    for (f = 0; f + ti__e##P##_W <= nf; f += ti__e##P##_W) { \
      ti__e##P##_vf acc = ti__e##P##_ldf(o + f); \
      for (ky = 0; ky < nky; ky++) \
        for (kx = 0; kx < nkx; kx++) { \
          ti__e##P##_vf e = ti__e##P##_ldf(x + ky * rs + kx * nf + f); \
          acc = op == TI__E_SUM ? ti__e##P##_vfadd(acc, e) : op == TI__E_MAX ? ti__e##P##_vfmax(e, acc) : ti__e##P##_vfmin(e, acc); \
        } \
      ti__e##P##_stf(o + f, acc); \
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

/* Output pixels [px0, px1) of row oy (row base o), window position by
   window position (ky-major, kx-minor, as the reference): padding and
   partial windows at the borders. */
TI__PRIVATE void ti__e_win_part(const ti__e_job *j, int32_t *o, int64_t oy, int64_t px0, int64_t px1,
                                int32_t *buf) {
  const ti__e_win *w = j->w;
  const int64_t nf = j->d->nf;
  int64_t ky, kx;
  if (px1 <= px0) return;
  for (ky = 0; ky < w->nky; ky++) {
    int64_t iy = oy * w->sy + ky - w->pu;
    if (iy < 0 || iy >= w->niy) { ti__e_win_pad(j, o + px0 * nf, (px1 - px0) * nf); continue; }
    for (kx = 0; kx < w->nkx; kx++) {
      int64_t lo = ti__e_ceil_div(w->pl - kx, w->sx), hi = ti__e_ceil_div(w->nix + w->pl - kx, w->sx);
      int64_t base;
      lo = lo < px0 ? px0 : lo > px1 ? px1 : lo;   /* [lo, hi) within [px0, px1) */
      hi = hi > px1 ? px1 : hi < lo ? lo : hi;
      ti__e_win_pad(j, o + px0 * nf, (lo - px0) * nf);
      ti__e_win_pad(j, o + hi * nf, (px1 - hi) * nf);
      if (hi == lo) continue;
      base = (iy * w->nix + lo * w->sx + kx - w->pl) * nf;
      if (w->sx == 1) ti__e_win_acc(j, o + lo * nf, base, (hi - lo) * nf, buf);
      else ti__e_win_acc2d(j, o + lo * nf, base, hi - lo, w->sx * nf, buf);
    }
  }
}

/* Output rows [r0, r1), accumulated in place in out: pixels whose window
   lies inside the input go through the register-blocked window leaf, the
   others through ti__e_win_part. */
TI__PRIVATE void ti__e_win_range(void *arg, int64_t r0, int64_t r1) {
  const ti__e_job *j = (const ti__e_job *)arg;
  const ti_prim_desc *d = j->d;
  const ti__e_win *w = j->w;
  const ti__e_vt *vt = j->vt;
  const int64_t nf = d->nf, nx = d->nx, rowlen = nx * nf;
  const int dt = d->in_dtype == TI_DTYPE_I32 || d->in_dtype == TI_DTYPE_F32 ? 2
               : d->in_dtype == TI_DTYPE_U8 ? 1 : 0;
  const size_t esize = dt == 2 ? 4 : 1;
  ti__e_tile s1;
  int64_t oy, i;
  for (oy = r0; oy < r1; oy++) {
    int32_t *o = (int32_t *)j->out + oy * rowlen;
    float *of = (float *)j->out + oy * rowlen;
    int64_t iy0 = oy * w->sy - w->pu, a = 0, b = 0;
    if (j->kind == 1) {
      int32_t init = j->op == TI__E_SUM ? 0 : j->op == TI__E_MAX ? INT32_MIN : d->cmp;
      for (i = 0; i < rowlen; i++) o[i] = init;
    } else {
      float init = j->op == TI__E_SUM ? 0.0f : (float)d->cmp;
      for (i = 0; i < rowlen; i++) of[i] = init;
    }
    if (iy0 >= 0 && iy0 + w->nky <= w->niy && w->nix + w->pl - w->nkx >= 0) {
      a = ti__e_min64(ti__e_ceil_div(w->pl, w->sx), nx);
      b = ti__e_min64((w->nix + w->pl - w->nkx) / w->sx + 1, nx);
      if (b < a) b = a;
    }
    ti__e_win_part(j, o, oy, 0, a, s1.i);
    if (b > a) {
      const char *x = (const char *)j->a + (size_t)(((iy0 * w->nix) + a * w->sx - w->pl) * nf) * esize;
      if (j->kind == 2)
        vt->fwin(j->op, of + a * nf, (const float *)(const void *)x, b - a, nf, w->sx * nf, w->nky, w->nkx,
                 w->nix * nf);
      else
        vt->win[j->op][dt](o + a * nf, x, b - a, nf, w->sx * nf, w->nky, w->nkx, w->nix * nf);
    }
    ti__e_win_part(j, o, oy, b > a ? b : a, nx, s1.i);
    if (j->op == TI__E_SUM) {
      if (d->bias_mode == TI_BIAS_VECTOR) {   /* bias[f] repeated: x stride 0 */
        if (j->kind == 1) vt->add2d(o, (const int32_t *)j->bias, nx, nf, 0);
        else vt->fadd2d(of, (const float *)j->bias, nx, nf, 0);
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
#undef TI__E_WINLEAF
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
