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

/* >>kernels.tinshift ----------------------------------------------------- */

/* >>kernels.primitives --------------------------------------------------- */

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

/* >>kernels.impl.tinshift ------------------------------------------------ */

/* >>kernels.impl.primitives ---------------------------------------------- */

/* >>kernels.impl.rearrange ----------------------------------------------- */

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
