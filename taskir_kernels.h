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
