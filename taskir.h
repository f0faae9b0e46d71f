/* taskir.h - v0.1 - graph core, Task IR and nn dialects for dataflow chip compilers.

   Part of taskir (header-only C99, stb style). Holds the SSA graph core
   (context, types, attributes, op registry with traits and interfaces,
   programs with a weights table, rewrite API, walks, verifier, pass manager,
   text form) and the dialects on it: `task` (Task IR) and `nn` (algorithm
   level). taskir_proto.h (protobuf), taskir_layout.h (layout passes),
   taskir_exec.h (executor) build on it; taskir_kernels.h stands alone.

   DO THIS in *one* C or C++ file:
       #define TASKIR_IMPLEMENTATION
       #include "taskir.h"
   Other files include it without the define.

   OPTIONS (define before the implementing include; "global" ones must be the
   same in every file that includes the header)
       TASKIR_STATIC          every function static (per translation unit)
       TASKIR_MALLOC(u,sz), TASKIR_REALLOC(u,p,sz), TASKIR_FREE(u,p)
                              allocator, all three or none; u is the user
                              pointer given to the context or arena
       TASKIR_ASSERT(x)       programmer-error checks; default assert(x)
       TASKIR_NO_ERRMSG       drop message text (codes and locations stay)

   ERRORS
       Every fallible call returns a ti_status and, when given a ti_error,
       fills it with the first problem: code, a message naming what and
       where (block id, op name, byte offset, line:column). Bad input never
       aborts.

   LICENSE: MIT, see the end of this file.
*/
#ifndef TASKIR_H
#define TASKIR_H

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

/* >>errors ---------------------------------------------------------------- */

typedef struct ti_error {
  ti_status status;      /* TI_STATUS_SUCCESS when nothing went wrong */
  int64_t offset;        /* byte offset in the input, -1 if none */
  int32_t line, column;  /* 1-based text position, 0 if none */
  char message[256];     /* what and where, for a human */
} ti_error;

/* Records a problem in err (if err is non-NULL and holds no earlier problem)
   and returns status, so callers can write `return ti_error_set(...)`. */
TASKIR_API ti_status ti_error_set(ti_error *err, ti_status status, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
TASKIR_API void ti_error_clear(ti_error *err);
TASKIR_API const char *ti_status_name(ti_status s);
TASKIR_API const char *ti_dtype_name(ti_dtype t);   /* "i8", "f32", "ternary", ... */

/* >>arena ----------------------------------------------------------------- */

/* Bump allocator in chunks; everything is freed at once. */
typedef struct ti_arena_chunk ti_arena_chunk;
typedef struct ti_arena {
  ti_arena_chunk *head;
  size_t used, cap;      /* of the head chunk */
  size_t total;          /* bytes obtained from the allocator */
  void *alloc_user;      /* passed to TASKIR_MALLOC/FREE */
} ti_arena;

TASKIR_API void ti_arena_init(ti_arena *a, void *alloc_user);
/* Zeroed, aligned memory; NULL when out of memory or size overflows. */
TASKIR_API void *ti_arena_alloc(ti_arena *a, size_t size, size_t align);
/* n * elem_size bytes with an overflow check. */
TASKIR_API void *ti_arena_array(ti_arena *a, size_t n, size_t elem_size, size_t align);
TASKIR_API char *ti_arena_strndup(ti_arena *a, const char *s, size_t n);
TASKIR_API void ti_arena_free(ti_arena *a);

/* >>task.types: Task IR (SPEC §2) ---------------------------------------- */

/* Block types. The values are dense; ti_block_type_wire() gives the wire
   value (SI 0 ... CLIF 19, INPUT 50, OUTPUT 51, TASK_NULL 100). */
typedef enum ti_block_type {
  TI_BLOCK_SI = 0, TI_BLOCK_SW, TI_BLOCK_SIC2D, TI_BLOCK_SIFC, TI_BLOCK_SIC,
  TI_BLOCK_SB, TI_BLOCK_SWFC, TI_BLOCK_SW2D, TI_BLOCK_CADD, TI_BLOCK_CVVH,
  TI_BLOCK_CVM, TI_BLOCK_CC, TI_BLOCK_CAX, TI_BLOCK_CC2D, TI_BLOCK_CVS,
  TI_BLOCK_CCMPB, TI_BLOCK_CAVG, TI_BLOCK_CCMPS, TI_BLOCK_CLUT, TI_BLOCK_CLIF,
  TI_BLOCK_INPUT, TI_BLOCK_OUTPUT, TI_BLOCK_NULL,
  TI_BLOCK_COUNT
} ti_block_type;

typedef enum ti_block_class {
  TI_CLASS_STORAGE, TI_CLASS_COMPUTE, TI_CLASS_IO, TI_CLASS_NULL
} ti_block_class;

/* Attribute types of compute blocks; values are the wire values. */
typedef enum ti_attr_type {
  TI_ATTR_KERNEL_X = 0, TI_ATTR_KERNEL_Y, TI_ATTR_STRIDE_X, TI_ATTR_STRIDE_Y,
  TI_ATTR_PAD_UP, TI_ATTR_PAD_DOWN, TI_ATTR_PAD_LEFT, TI_ATTR_PAD_RIGHT,
  TI_ATTR_CMP, TI_ATTR_CONSTANT_A, TI_ATTR_CONSTANT_B, TI_ATTR_DILATION_X,
  TI_ATTR_DILATION_Y, TI_ATTR_BIT_SHIFT_NUM, TI_ATTR_VTH0, TI_ATTR_VTH_ALPHA,
  TI_ATTR_VTH_BETA, TI_ATTR_VTH_INCRE, TI_ATTR_VR, TI_ATTR_VL,
  TI_ATTR_VLEAKY_ALPHA, TI_ATTR_VLEAKY_BETA, TI_ATTR_DV, TI_ATTR_REF_LEN,
  TI_ATTR_TW_CNT, TI_ATTR_VINIT, TI_ATTR_TW_LEN, TI_ATTR_SEED, TI_ATTR_LUT_DW,
  TI_ATTR_VTH_ADPT_EN, TI_ATTR_VLEAKY_ADPT_EN, TI_ATTR_TW_EN, TI_ATTR_RESET_MODE,
  TI_ATTR_FIRE_TYPE, TI_ATTR_VM_CONST_EN, TI_ATTR_VM_CONST, TI_ATTR_VTHETA_CONST_EN,
  TI_ATTR_VTHETA_CONST,
  TI_ATTR_COUNT
} ti_attr_type;

typedef enum ti_bias_type { TI_BIAS_TYPE_VECTOR = 1, TI_BIAS_TYPE_CONSTANT = 2 } ti_bias_type;
typedef enum ti_test_mode {
  TI_TEST_MEMORY_STATE = 0, TI_TEST_PRIM_OUTPUT = 1, TI_TEST_CASE_OUTPUT = 2, TI_TEST_MODE_COUNT
} ti_test_mode;

/* Names as spelled by the tianjic_ir schema ("CC", "INT_8", "KERNEL_X",
   "RESHAPE", ...); NULL for a value out of range. */
TASKIR_API const char *ti_block_type_name(ti_block_type t);
TASKIR_API const char *ti_precision_name(ti_dtype p);   /* I8 -> "INT_8"; NULL if not a precision */
TASKIR_API const char *ti_attr_type_name(ti_attr_type t);
TASKIR_API const char *ti_rearrange_name(ti_rearrange_kind k);
TASKIR_API const char *ti_bias_type_name(ti_bias_type b);
TASKIR_API const char *ti_test_mode_name(ti_test_mode m);
TASKIR_API ti_block_class ti_block_class_of(ti_block_type t);
/* Wire value <-> enum. from_wire returns 0 on success, -1 if unknown. */
TASKIR_API int32_t ti_block_type_wire(ti_block_type t);
TASKIR_API int ti_block_type_from_wire(int32_t v, ti_block_type *out);
TASKIR_API int32_t ti_precision_wire(ti_dtype p);
TASKIR_API int ti_precision_from_wire(int32_t v, ti_dtype *out);

/* The message structs mirror tianjic_ir field for field. Each keeps a `has`
   mask of the optional fields present on the wire (proto2 presence), so a
   decoded file encodes back byte for byte. Repeated fields are (n, pointer)
   pairs. Everything hangs off the arena of the ti_task_graph that owns it. */

enum {
  TI_SHAPE_HAS_NX = 1u << 0, TI_SHAPE_HAS_NY = 1u << 1, TI_SHAPE_HAS_NF = 1u << 2,
  TI_SHAPE_HAS_NR = 1u << 3, TI_SHAPE_HAS_NKX = 1u << 4, TI_SHAPE_HAS_NKY = 1u << 5,
  TI_SHAPE_HAS_NIY = 1u << 6, TI_SHAPE_HAS_NIX = 1u << 7, TI_SHAPE_HAS_N_BRANCH = 1u << 8
};
typedef struct ti_task_shape {
  uint32_t has;
  int32_t nx, ny, nf, nr, nkx, nky, niy, nix, n_branch;   /* absent = 0 */
  int32_t n_extra;
  int32_t *extra;                                          /* extra_dimensions */
} ti_task_shape;

enum { TI_IFACE_HAS_POSITION = 1u << 0, TI_IFACE_HAS_SIZE = 1u << 1, TI_IFACE_HAS_EDGE_ID = 1u << 2 };
typedef struct ti_task_interface {
  uint32_t has;
  ti_task_shape position, size;   /* absent = the whole cluster */
  int32_t edge_id;
} ti_task_interface;

enum { TI_CLUSTER_HAS_SHAPE = 1u << 0 };
typedef struct ti_task_cluster {
  uint32_t has;
  ti_task_shape shape;
  int32_t n_interfaces;
  ti_task_interface *interfaces;
} ti_task_cluster;

enum {
  TI_TATTR_HAS_TYPE = 1u << 0, TI_TATTR_HAS_PRECISION = 1u << 1,
  TI_TATTR_HAS_INT = 1u << 2, TI_TATTR_HAS_FLOAT = 1u << 3
};
typedef struct ti_task_attr {
  uint32_t has;
  ti_attr_type type;
  ti_dtype precision;
  int32_t int_value;
  float float_value;
} ti_task_attr;

/* One repeated numeric field of a Tensor. The values are held at the
   narrowest width that keeps them exact (`storage`: I8/I16/I32 for
   int32_data, U8/U16/U32 for uint32_data, F32 for float_data), so weights
   cost their natural size in memory. */
typedef struct ti_task_values {
  int64_t count;
  ti_dtype storage;
  void *data;
} ti_task_values;

enum { TI_TENSOR_HAS_PRECISION = 1u << 0, TI_TENSOR_HAS_NAME = 1u << 1 };
typedef struct ti_task_tensor {
  uint32_t has;
  int32_t n_dims;
  int32_t *dims;
  ti_dtype precision;
  ti_task_values float_data, int32_data, uint32_data;
  char *name;            /* NUL-terminated, name_len bytes */
  int32_t name_len;
} ti_task_tensor;

enum {
  TI_BLOCK_HAS_ID = 1u << 0, TI_BLOCK_HAS_TYPE = 1u << 1, TI_BLOCK_HAS_PRECISION = 1u << 2,
  TI_BLOCK_HAS_SHAPE = 1u << 3, TI_BLOCK_HAS_DATA = 1u << 4, TI_BLOCK_HAS_IS_VIRTUAL = 1u << 5,
  TI_BLOCK_HAS_MASTER_TASK_ID = 1u << 6, TI_BLOCK_HAS_PIPELINE_NUM = 1u << 7,
  TI_BLOCK_HAS_BIAS_TYPE = 1u << 8, TI_BLOCK_HAS_SOCKET_ID = 1u << 9
};
typedef struct ti_task_block {
  uint32_t has;
  int32_t id;
  ti_block_type type;
  ti_dtype precision;
  ti_task_shape shape;
  int32_t n_inputs, n_outputs;            /* input_clusters, output_clusters */
  ti_task_cluster *inputs, *outputs;
  ti_task_tensor data;
  int32_t n_attrs;
  ti_task_attr *attrs;
  int32_t is_virtual;                     /* bool */
  int32_t master_task_id, pipeline_num;
  ti_bias_type bias_type;
  int32_t socket_id;
} ti_task_block;

enum { TI_REARR_HAS_TYPE = 1u << 0 };
typedef struct ti_task_rearrange {
  uint32_t has;
  ti_rearrange_kind type;
  int32_t n_matrix;
  ti_task_tensor *matrix;
} ti_task_rearrange;

enum { TI_EDGE_HAS_ID = 1u << 0, TI_EDGE_HAS_SRC = 1u << 1, TI_EDGE_HAS_DST = 1u << 2 };
typedef struct ti_task_edge {
  uint32_t has;
  int32_t id, src_block_id, dst_block_id;
  int32_t n_rearrange;
  ti_task_rearrange *rearrange;
} ti_task_edge;

enum { TI_GROUP_HAS_ID = 1u << 0 };
typedef struct ti_task_group {
  uint32_t has;
  int32_t group_id;
  int32_t n_block_ids;
  int32_t *block_ids;
} ti_task_group;

enum { TI_TCFG_HAS_SEED = 1u << 0, TI_TCFG_HAS_NAME = 1u << 1, TI_TCFG_HAS_MODE = 1u << 2 };
typedef struct ti_task_test_config {
  uint32_t has;
  int64_t random_seed;
  char *test_case_name;   /* NUL-terminated, name_len bytes */
  int32_t name_len;
  ti_test_mode test_mode;
} ti_task_test_config;

enum { TI_GRAPH_HAS_TEST_CONFIG = 1u << 0 };
/* A whole TaskGraph message, as read from or written to a file. It owns its
   arena; ti_task_graph_free releases everything. */
typedef struct ti_task_graph {
  uint32_t has;
  int32_t n_blocks, n_edges, n_groups;
  ti_task_block *blocks;
  ti_task_edge *edges;
  ti_task_group *groups;
  ti_task_test_config test_config;
  ti_arena arena;
} ti_task_graph;

TASKIR_API void ti_task_graph_init(ti_task_graph *g, void *alloc_user);
TASKIR_API void ti_task_graph_free(ti_task_graph *g);
/* The one non-empty numeric field of a tensor (float, int32 or uint32 data),
   or NULL when the tensor holds no values. */
TASKIR_API const ti_task_values *ti_task_tensor_values(const ti_task_tensor *t);
/* Value i of v as int64 / double, whatever its storage. */
TASKIR_API int64_t ti_task_values_get_i64(const ti_task_values *v, int64_t i);
TASKIR_API double ti_task_values_get_f64(const ti_task_values *v, int64_t i);

#ifdef __cplusplus
}
#endif
#endif /* TASKIR_H */

/* ======================================================================== */
#if defined(TASKIR_IMPLEMENTATION) && !defined(TASKIR_IMPL_INCLUDED)
#define TASKIR_IMPL_INCLUDED

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(TASKIR_MALLOC) && defined(TASKIR_REALLOC) && defined(TASKIR_FREE)
/* user allocator */
#elif !defined(TASKIR_MALLOC) && !defined(TASKIR_REALLOC) && !defined(TASKIR_FREE)
#define TASKIR_MALLOC(u, sz) ((void)(u), malloc(sz))
#define TASKIR_REALLOC(u, p, sz) ((void)(u), realloc((p), (sz)))
#define TASKIR_FREE(u, p) ((void)(u), free(p))
#else
#error "taskir: define all or none of TASKIR_MALLOC, TASKIR_REALLOC and TASKIR_FREE"
#endif

#ifndef TASKIR_ASSERT
#include <assert.h>
#define TASKIR_ASSERT(x) assert(x)
#endif

#if defined(__GNUC__) || defined(__clang__)
#define TI__UNUSED __attribute__((unused))
#else
#define TI__UNUSED
#endif

/* Pins a name table to the size of its enum. */
#define TI__STATIC_ASSERT(cond, name) typedef char ti__static_assert_##name[(cond) ? 1 : -1]

/* >>impl.errors ------------------------------------------------------------ */

TASKIR_API ti_status ti_error_set(ti_error *err, ti_status status, const char *fmt, ...) {
  if (err && err->status == TI_STATUS_SUCCESS) {
    err->status = status;
#ifdef TASKIR_NO_ERRMSG
    (void)fmt;
    err->message[0] = 0;
#else
    {
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(err->message, sizeof err->message, fmt, ap);
      va_end(ap);
    }
#endif
  }
  return status;
}

TASKIR_API void ti_error_clear(ti_error *err) {
  if (!err) return;
  err->status = TI_STATUS_SUCCESS;
  err->offset = -1;
  err->line = err->column = 0;
  err->message[0] = 0;
}

static const char *const ti__status_names[] = {
  "success", "bad parameter", "not supported", "out of memory", "parse error",
  "invalid", "not found", "i/o error", "limit exceeded"
};
TI__STATIC_ASSERT(sizeof ti__status_names / sizeof *ti__status_names == TI_STATUS_COUNT, status_names);

TASKIR_API const char *ti_status_name(ti_status s) {
  return (unsigned)s < TI_STATUS_COUNT ? ti__status_names[s] : "unknown status";
}

static const char *const ti__dtype_names[] = {
  "i8", "u8", "i16", "u16", "i32", "u32", "f16", "f32", "ternary", "i28", "u4", "i9",
  "i64", "f64", "bool"
};
TI__STATIC_ASSERT(sizeof ti__dtype_names / sizeof *ti__dtype_names == TI_DTYPE_COUNT, dtype_names);

TASKIR_API const char *ti_dtype_name(ti_dtype t) {
  return (unsigned)t < TI_DTYPE_COUNT ? ti__dtype_names[t] : NULL;
}

/* >>impl.arena ------------------------------------------------------------- */

struct ti_arena_chunk {
  ti_arena_chunk *next;
  size_t cap;
  /* payload follows, aligned to 16 */
};
#define TI__CHUNK_HEADER ((sizeof(ti_arena_chunk) + 15u) & ~(size_t)15u)
#define TI__ARENA_MIN_CHUNK ((size_t)64 * 1024)

TASKIR_API void ti_arena_init(ti_arena *a, void *alloc_user) {
  a->head = NULL;
  a->used = a->cap = a->total = 0;
  a->alloc_user = alloc_user;
}

TASKIR_API void *ti_arena_alloc(ti_arena *a, size_t size, size_t align) {
  size_t start;
  unsigned char *base;
  if (align == 0) align = 1;
  TASKIR_ASSERT((align & (align - 1)) == 0 && align <= 16);
  if (size == 0) size = 1;
  if (a->head) {
    start = (a->used + align - 1) & ~(align - 1);
    if (start <= a->cap && size <= a->cap - start) {
      base = (unsigned char *)a->head + TI__CHUNK_HEADER;
      a->used = start + size;
      memset(base + start, 0, size);
      return base + start;
    }
  }
  {
    /* New chunk: at least twice the last one (few chunks for big inputs),
       and big requests get a chunk of their own size. */
    size_t cap = a->cap ? a->cap * 2 : TI__ARENA_MIN_CHUNK;
    ti_arena_chunk *c;
    if (cap > ((size_t)64 << 20)) cap = (size_t)64 << 20;
    if (size > cap) cap = size;
    if (cap > (size_t)-1 - TI__CHUNK_HEADER) return NULL;
    c = (ti_arena_chunk *)TASKIR_MALLOC(a->alloc_user, TI__CHUNK_HEADER + cap);
    if (!c) return NULL;
    c->cap = cap;
    if (a->head && size > a->cap - a->used && cap == size) {
      /* A one-off big block: keep using the current chunk for small ones. */
      c->next = a->head->next;
      a->head->next = c;
    } else {
      c->next = a->head;
      a->head = c;
      a->cap = cap;
      a->used = size;
    }
    a->total += TI__CHUNK_HEADER + cap;
    base = (unsigned char *)c + TI__CHUNK_HEADER;
    memset(base, 0, size);
    return base;
  }
}

TASKIR_API void *ti_arena_array(ti_arena *a, size_t n, size_t elem_size, size_t align) {
  if (elem_size && n > ((size_t)-1) / elem_size) return NULL;
  return ti_arena_alloc(a, n * elem_size, align);
}

TASKIR_API char *ti_arena_strndup(ti_arena *a, const char *s, size_t n) {
  char *d;
  if (n == (size_t)-1) return NULL;
  d = (char *)ti_arena_alloc(a, n + 1, 1);
  if (d) { if (n) memcpy(d, s, n); d[n] = 0; }
  return d;
}

TASKIR_API void ti_arena_free(ti_arena *a) {
  ti_arena_chunk *c = a->head;
  while (c) {
    ti_arena_chunk *next = c->next;
    TASKIR_FREE(a->alloc_user, c);
    c = next;
  }
  a->head = NULL;
  a->used = a->cap = a->total = 0;
}

/* >>impl.task.types -------------------------------------------------------- */

static const char *const ti__block_type_names[] = {
  "SI", "SW", "SIC2D", "SIFC", "SIC", "SB", "SWFC", "SW2D", "CADD", "CVVH", "CVM",
  "CC", "CAX", "CC2D", "CVS", "CCMPB", "CAVG", "CCMPS", "CLUT", "CLIF",
  "INPUT", "OUTPUT", "TASK_NULL"
};
TI__STATIC_ASSERT(sizeof ti__block_type_names / sizeof *ti__block_type_names == TI_BLOCK_COUNT, block_names);

static const char *const ti__precision_names[] = {
  "INT_8", "UINT_8", "INT_16", "UINT_16", "INT_32", "UINT_32", "FLOAT_16", "FLOAT_32",
  "TERNARY", "INT_28", "UINT_4", "INT_9"
};
TI__STATIC_ASSERT(sizeof ti__precision_names / sizeof *ti__precision_names == TI_DTYPE_I9 + 1, precision_names);

static const char *const ti__attr_type_names[] = {
  "KERNEL_X", "KERNEL_Y", "STRIDE_X", "STRIDE_Y", "PAD_UP", "PAD_DOWN", "PAD_LEFT",
  "PAD_RIGHT", "CMP", "CONSTANT_A", "CONSTANT_B", "DILATION_X", "DILATION_Y",
  "BIT_SHIFT_NUM", "VTH0", "VTH_ALPHA", "VTH_BETA", "VTH_INCRE", "VR", "VL",
  "VLEAKY_ALPHA", "VLEAKY_BETA", "DV", "REF_LEN", "TW_CNT", "VINIT", "TW_LEN", "SEED",
  "LUT_DW", "VTH_ADPT_EN", "VLEAKY_ADPT_EN", "TW_EN", "RESET_MODE", "FIRE_TYPE",
  "VM_CONST_EN", "VM_CONST", "VTHETA_CONST_EN", "VTHETA_CONST"
};
TI__STATIC_ASSERT(sizeof ti__attr_type_names / sizeof *ti__attr_type_names == TI_ATTR_COUNT, attr_names);

static const char *const ti__rearrange_names[] = {
  "IDENTITY", "RESHAPE", "PERMUTE", "ROTATE", "SHIFT", "SCALE", "SHEAR", "REFLECT",
  "AFFINE", "PROJECT", "SHUFFLE"
};
TI__STATIC_ASSERT(sizeof ti__rearrange_names / sizeof *ti__rearrange_names == TI_REARRANGE_COUNT, rearrange_names);

static const char *const ti__test_mode_names[] = { "MEMORY_STATE", "PRIM_OUTPUT", "CASE_OUTPUT" };
TI__STATIC_ASSERT(sizeof ti__test_mode_names / sizeof *ti__test_mode_names == TI_TEST_MODE_COUNT, test_mode_names);

TASKIR_API const char *ti_block_type_name(ti_block_type t) {
  return (unsigned)t < TI_BLOCK_COUNT ? ti__block_type_names[t] : NULL;
}
TASKIR_API const char *ti_precision_name(ti_dtype p) {
  return (unsigned)p <= TI_DTYPE_I9 ? ti__precision_names[p] : NULL;
}
TASKIR_API const char *ti_attr_type_name(ti_attr_type t) {
  return (unsigned)t < TI_ATTR_COUNT ? ti__attr_type_names[t] : NULL;
}
TASKIR_API const char *ti_rearrange_name(ti_rearrange_kind k) {
  return (unsigned)k < TI_REARRANGE_COUNT ? ti__rearrange_names[k] : NULL;
}
TASKIR_API const char *ti_bias_type_name(ti_bias_type b) {
  return b == TI_BIAS_TYPE_VECTOR ? "VECTOR" : b == TI_BIAS_TYPE_CONSTANT ? "CONSTANT" : NULL;
}
TASKIR_API const char *ti_test_mode_name(ti_test_mode m) {
  return (unsigned)m < TI_TEST_MODE_COUNT ? ti__test_mode_names[m] : NULL;
}

TASKIR_API ti_block_class ti_block_class_of(ti_block_type t) {
  if (t <= TI_BLOCK_SW2D) return TI_CLASS_STORAGE;
  if (t <= TI_BLOCK_CLIF) return TI_CLASS_COMPUTE;
  if (t == TI_BLOCK_INPUT || t == TI_BLOCK_OUTPUT) return TI_CLASS_IO;
  return TI_CLASS_NULL;
}

TASKIR_API int32_t ti_block_type_wire(ti_block_type t) {
  if (t == TI_BLOCK_INPUT) return 50;
  if (t == TI_BLOCK_OUTPUT) return 51;
  if (t == TI_BLOCK_NULL) return 100;
  return (int32_t)t;
}
TASKIR_API int ti_block_type_from_wire(int32_t v, ti_block_type *out) {
  if (v >= 0 && v <= (int32_t)TI_BLOCK_CLIF) *out = (ti_block_type)v;
  else if (v == 50) *out = TI_BLOCK_INPUT;
  else if (v == 51) *out = TI_BLOCK_OUTPUT;
  else if (v == 100) *out = TI_BLOCK_NULL;
  else return -1;
  return 0;
}
TASKIR_API int32_t ti_precision_wire(ti_dtype p) {
  return p == TI_DTYPE_I9 ? 100 : (int32_t)p;
}
TASKIR_API int ti_precision_from_wire(int32_t v, ti_dtype *out) {
  if (v >= 0 && v <= (int32_t)TI_DTYPE_U4) *out = (ti_dtype)v;
  else if (v == 100) *out = TI_DTYPE_I9;
  else return -1;
  return 0;
}

TASKIR_API void ti_task_graph_init(ti_task_graph *g, void *alloc_user) {
  memset(g, 0, sizeof *g);
  ti_arena_init(&g->arena, alloc_user);
}

TASKIR_API void ti_task_graph_free(ti_task_graph *g) {
  ti_arena_free(&g->arena);
  memset(g, 0, sizeof *g);
}

TASKIR_API const ti_task_values *ti_task_tensor_values(const ti_task_tensor *t) {
  if (t->int32_data.count) return &t->int32_data;
  if (t->uint32_data.count) return &t->uint32_data;
  if (t->float_data.count) return &t->float_data;
  return NULL;
}

TASKIR_API int64_t ti_task_values_get_i64(const ti_task_values *v, int64_t i) {
  switch (v->storage) {
  case TI_DTYPE_I8: return ((const int8_t *)v->data)[i];
  case TI_DTYPE_U8: return ((const uint8_t *)v->data)[i];
  case TI_DTYPE_I16: return ((const int16_t *)v->data)[i];
  case TI_DTYPE_U16: return ((const uint16_t *)v->data)[i];
  case TI_DTYPE_I32: return ((const int32_t *)v->data)[i];
  case TI_DTYPE_U32: return ((const uint32_t *)v->data)[i];
  case TI_DTYPE_F32: return (int64_t)((const float *)v->data)[i];
  default: return 0;
  }
}

TASKIR_API double ti_task_values_get_f64(const ti_task_values *v, int64_t i) {
  if (v->storage == TI_DTYPE_F32) return ((const float *)v->data)[i];
  return (double)ti_task_values_get_i64(v, i);
}

#undef TI__STATIC_ASSERT
#undef TI__UNUSED
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
