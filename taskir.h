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

/* >>core.context ---------------------------------------------------------- */

/* The context owns what is interned (types, attributes, names) and the op
   registry. Programs are created in a context and must be destroyed before
   it. A context is not thread-safe; use one per thread. */
typedef struct ti_context ti_context;
typedef struct ti_type ti_type;
typedef struct ti_attr ti_attr;
typedef struct ti_op ti_op;
typedef struct ti_value ti_value;
typedef struct ti_use ti_use;
typedef struct ti_program ti_program;
typedef struct ti_op_info ti_op_info;

/* alloc_user is handed to TASKIR_MALLOC/REALLOC/FREE. Registers the builtin
   dialect. NULL when out of memory. */
TASKIR_API ti_context *ti_context_create(void *alloc_user);
TASKIR_API void ti_context_destroy(ti_context *ctx);

/* >>core.types ------------------------------------------------------------ */

/* Data layouts of 4-D data (SPEC §4) plus the plain tensor kinds. */
typedef enum ti_layout {
  TI_LAYOUT_ANY = 0,   /* not known (yet) */
  TI_LAYOUT_NCHW, TI_LAYOUT_NHWC, TI_LAYOUT_OIHW, TI_LAYOUT_HWOI,
  TI_LAYOUT_TENSOR,    /* plain row-major, 0..6 dims */
  TI_LAYOUT_NTENSOR,   /* 3..6 dims, what Gemm prefers */
  TI_LAYOUT_COUNT
} ti_layout;
TASKIR_API const char *ti_layout_name(ti_layout l);   /* "NCHW", ..., "any" */
TASKIR_API int ti_layout_is_cnn(ti_layout l);          /* NCHW/NHWC/OIHW/HWOI */

/* `tensor` may alias and its order matters; `vtensor` has value semantics:
   immutable, never aliased (seed 003 §2.5). */
typedef enum ti_type_kind { TI_TYPE_TENSOR, TI_TYPE_VTENSOR, TI_TYPE_KIND_COUNT } ti_type_kind;

#define TI_MAX_RANK 8
struct ti_type {           /* interned: equal types are the same pointer */
  ti_type_kind kind;
  ti_dtype dtype;
  ti_layout layout;
  int32_t rank;
  int64_t dims[TI_MAX_RANK];   /* -1: dynamic */
};

/* Interned type; NULL if rank > TI_MAX_RANK, a dim < -1, or out of memory. */
TASKIR_API const ti_type *ti_type_get(ti_context *ctx, ti_type_kind kind, ti_dtype dtype,
                                      int32_t rank, const int64_t *dims, ti_layout layout);
/* The same type with one property changed. */
TASKIR_API const ti_type *ti_type_with_kind(ti_context *ctx, const ti_type *t, ti_type_kind kind);
TASKIR_API const ti_type *ti_type_with_layout(ti_context *ctx, const ti_type *t, ti_layout layout);
/* Number of elements; -1 if dynamic or the product overflows int64. */
TASKIR_API int64_t ti_type_numel(const ti_type *t);

/* >>core.attributes ------------------------------------------------------- */

typedef enum ti_attr_kind {
  TI_ATTR_INT, TI_ATTR_FLOAT, TI_ATTR_STRING, TI_ATTR_BOOL, TI_ATTR_ARRAY,
  TI_ATTR_DICT, TI_ATTR_TYPE, TI_ATTR_KIND_COUNT
} ti_attr_kind;

typedef struct ti_named_attr { const ti_attr *name; const ti_attr *value; } ti_named_attr;

struct ti_attr {          /* interned constant: equal attributes are the same pointer */
  ti_attr_kind kind;
  uint32_t hash;
  union {
    int64_t i;                                   /* INT, BOOL (0/1) */
    double f;                                    /* FLOAT (bitwise identity) */
    struct { const char *data; int64_t len; } s; /* STRING, NUL-terminated */
    struct { const ti_attr *const *items; int64_t n; } array;
    struct { const ti_named_attr *items; int64_t n; } dict;  /* sorted by name */
    const ti_type *type;
  } u;
};

TASKIR_API const ti_attr *ti_attr_int(ti_context *ctx, int64_t v);
TASKIR_API const ti_attr *ti_attr_float(ti_context *ctx, double v);
TASKIR_API const ti_attr *ti_attr_bool(ti_context *ctx, int v);
TASKIR_API const ti_attr *ti_attr_string(ti_context *ctx, const char *s, int64_t len); /* len -1: strlen */
TASKIR_API const ti_attr *ti_attr_array(ti_context *ctx, const ti_attr *const *items, int64_t n);
TASKIR_API const ti_attr *ti_attr_int_array(ti_context *ctx, const int64_t *v, int64_t n);
TASKIR_API const ti_attr *ti_attr_type_attr(ti_context *ctx, const ti_type *t);
/* Entries in any order; sorted on interning. Duplicate names: NULL. */
TASKIR_API const ti_attr *ti_attr_dict(ti_context *ctx, const ti_named_attr *items, int64_t n);
/* Helper for building dicts: name interned as a string attribute. */
TASKIR_API ti_named_attr ti_named(ti_context *ctx, const char *name, const ti_attr *value);
/* Binary search by name; NULL when absent or d is not a dict. */
TASKIR_API const ti_attr *ti_dict_get(const ti_attr *d, const char *name);
/* A copy of dict d with name set to value (value NULL: removed). */
TASKIR_API const ti_attr *ti_dict_set(ti_context *ctx, const ti_attr *d, const char *name, const ti_attr *value);
/* Typed reads with a default when absent or of another kind. */
TASKIR_API int64_t ti_dict_int(const ti_attr *d, const char *name, int64_t dflt);
TASKIR_API double ti_dict_float(const ti_attr *d, const char *name, double dflt);
TASKIR_API const char *ti_dict_string(const ti_attr *d, const char *name, const char *dflt);
/* Copies up to max ints of an int array attribute; returns its length, -1 if absent/not ints. */
TASKIR_API int64_t ti_dict_ints(const ti_attr *d, const char *name, int64_t *out, int64_t max);

/* >>core.ops -------------------------------------------------------------- */

/* Traits: cheap facts about an op kind (seed 003 §2.2). */
enum {
  TI_TRAIT_READ_ONLY = 1u << 0,       /* does not modify its operands */
  TI_TRAIT_VALUE_SEMANTICS = 1u << 1, /* read-only and adds no alias */
  TI_TRAIT_INPLACE = 1u << 2,         /* writes its first operand; name ends in '_' */
  TI_TRAIT_VIEW_LIKE = 1u << 3,       /* result 0 aliases operand 0 */
  TI_TRAIT_COMMUTATIVE = 1u << 4,     /* operands 0 and 1 may swap */
  TI_TRAIT_PURE = 1u << 5,            /* no side effect: may be removed or merged */
  TI_TRAIT_TERMINATOR = 1u << 6,      /* ends a program (builtin.return) */
  TI_TRAIT_CONSTANT_LIKE = 1u << 7,   /* produces a constant from attributes */
  TI_TRAIT_LAYOUT_DEMAND = 1u << 8    /* needs NHWC activations / HWOI weights (SPEC §4) */
};

/* Interfaces: behaviour an op kind may provide; NULL when absent. */
typedef ti_status (*ti_verify_fn)(const ti_op *op, ti_error *err);
/* Computes result types from operand types and attributes. */
typedef ti_status (*ti_infer_shape_fn)(ti_context *ctx, const ti_op *op, const ti_type **results, ti_error *err);
/* Layout inference. Forward: operand layouts -> result layouts. Backward
   (only for invertible ops): result layout -> required operand layouts;
   returns 0 when the op cannot be inverted (Reshape, Broadcast). */
typedef struct ti_layout_iface {
  ti_status (*forward)(const ti_op *op, const ti_layout *operands, ti_layout *results);
  int (*backward)(const ti_op *op, const ti_layout *results, ti_layout *operands);
} ti_layout_iface;
/* Folds an op whose operands are all constants (given as their attributes,
   NULL for a non-constant operand) into result attributes; returns 1 if it
   folded, 0 if not. */
typedef int (*ti_fold_fn)(ti_context *ctx, const ti_op *op, const ti_attr *const *operands, const ti_attr **results);
/* Reference evaluation, used by the interpreter (see >>nn). */
typedef struct ti_tensor_value ti_tensor_value;
typedef ti_status (*ti_eval_fn)(const ti_op *op, const ti_tensor_value *const *operands, ti_tensor_value **results, ti_error *err);

struct ti_op_info {
  const char *name;            /* "nn.conv2d": dialect prefix, dot, op name */
  const char *dialect;         /* "nn" */
  const char *const *required_attrs;  /* NULL-terminated, or NULL */
  uint32_t traits;
  int32_t min_operands, max_operands; /* max -1: variadic */
  int32_t num_results;                /* -1: variadic */
  ti_verify_fn verify;
  ti_infer_shape_fn infer_shape;
  const ti_layout_iface *layout;
  ti_fold_fn fold;
  ti_eval_fn eval;
  const void *dialect_data;    /* free for the dialect (e.g. a block type) */
};

/* Registers op kinds; `infos` must outlive the context (static tables).
   A second registration of a name fails with TI_STATUS_BAD_PARAM. */
TASKIR_API ti_status ti_register_ops(ti_context *ctx, const ti_op_info *infos, int32_t n, ti_error *err);
TASKIR_API const ti_op_info *ti_lookup_op(const ti_context *ctx, const char *name);
/* Whether unknown op names may be parsed/created (default 0: rejected). */
TASKIR_API void ti_context_allow_unregistered(ti_context *ctx, int allow);

struct ti_use {               /* one operand slot: intrusive list of the value's uses */
  ti_value *value;
  ti_use *next, **prevp;
  ti_op *owner;
  int32_t index;
};

struct ti_value {
  const ti_type *type;
  ti_op *def;                 /* NULL for a program argument */
  int32_t index;              /* result index, or argument index */
  ti_use *first_use;
};

struct ti_op {
  const ti_op_info *info;     /* unregistered ops get an info of their own */
  ti_program *program;
  ti_op *prev, *next;         /* program order */
  const ti_attr *attrs;       /* dictionary (never NULL once created) */
  void *props;                /* dialect-owned typed properties (task dialect) */
  int32_t n_operands, n_results;
  ti_use *operands;
  ti_value *results;
  int64_t order;              /* scratch for walks and passes */
};

/* >>core.program ---------------------------------------------------------- */

/* SSA programs run in program order: a use before its definition is an
   error. Graph programs (Task IR) have no order: any op may use any value,
   and only cycles are errors. */
typedef enum ti_program_kind { TI_PROGRAM_SSA, TI_PROGRAM_GRAPH } ti_program_kind;

/* A named variable of the weights table (seed 003 §2.1.4). */
typedef struct ti_variable {
  const char *name;
  const ti_type *type;
  void *data;                 /* numel * ti_dtype_size bytes, owned by the program */
  int64_t bytes;
  int is_mutable;             /* written by set_parameter: passes must not fold it */
} ti_variable;

struct ti_program {
  ti_context *ctx;
  const char *name;
  ti_program_kind kind;
  ti_op *first, *last;
  int64_t n_ops;
  int32_t n_args;
  ti_value **args;            /* program inputs */
  int32_t n_vars, cap_vars;
  ti_variable *vars;
  ti_arena arena;             /* ops, values, variable data */
  ti_op *free_ops;            /* erased ops, reused by size class */
};

TASKIR_API ti_program *ti_program_create(ti_context *ctx, const char *name, ti_program_kind kind);
TASKIR_API void ti_program_destroy(ti_program *p);
TASKIR_API ti_value *ti_program_add_arg(ti_program *p, const ti_type *type);
/* Adds a variable (data copied, may be NULL for zeros); NOT_FOUND/BAD_PARAM on misuse. */
TASKIR_API ti_status ti_program_add_var(ti_program *p, const char *name, const ti_type *type,
                                        const void *data, int is_mutable, ti_error *err);
TASKIR_API ti_variable *ti_program_find_var(const ti_program *p, const char *name);
/* Marks every variable immutable except those written by set_parameter. */
TASKIR_API void ti_program_freeze_weights(ti_program *p);

/* >>core.build: creating and rewriting ops -------------------------------- */

/* Creates a detached op: name must be registered (or unregistered ops
   allowed). attrs NULL means the empty dict. Result types NULL: inferred
   with infer_shape. Returns NULL and fills err on failure. */
TASKIR_API ti_op *ti_op_create(ti_program *p, const char *name, int32_t n_operands, ti_value *const *operands,
                               int32_t n_results, const ti_type *const *result_types, const ti_attr *attrs,
                               ti_error *err);
TASKIR_API void ti_op_insert_before(ti_op *op, ti_op *before);   /* before NULL: append */
TASKIR_API void ti_op_insert_after(ti_op *op, ti_op *after);     /* after NULL: prepend */
/* Detaches op from the program order (it keeps its operands). */
TASKIR_API void ti_op_remove(ti_op *op);
/* Removes and frees op; its results must have no uses (else BAD_PARAM). */
TASKIR_API ti_status ti_op_erase(ti_op *op, ti_error *err);
TASKIR_API void ti_op_set_operand(ti_op *op, int32_t i, ti_value *v);
TASKIR_API void ti_op_set_attrs(ti_op *op, const ti_attr *attrs);
TASKIR_API void ti_op_set_attr(ti_op *op, const char *name, const ti_attr *value);
TASKIR_API const ti_attr *ti_op_attr(const ti_op *op, const char *name);
TASKIR_API void ti_value_replace_all_uses(ti_value *from, ti_value *to);
/* Replaces uses of from by to except in op `except`. */
TASKIR_API void ti_value_replace_uses_except(ti_value *from, ti_value *to, const ti_op *except);
TASKIR_API int64_t ti_value_num_uses(const ti_value *v);
TASKIR_API int ti_op_is(const ti_op *op, const char *name);
TASKIR_API int ti_op_has_trait(const ti_op *op, uint32_t trait);

/* Builder: appends (or inserts before `point`) and keeps going. */
typedef struct ti_builder {
  ti_program *program;
  ti_op *point;               /* insert before this op; NULL: at the end */
  ti_error *err;              /* first failure recorded here */
  ti_status status;
} ti_builder;
TASKIR_API void ti_builder_init(ti_builder *b, ti_program *p, ti_error *err);
/* Creates and inserts; NULL on failure (b->status set). */
TASKIR_API ti_op *ti_build(ti_builder *b, const char *name, int32_t n_operands, ti_value *const *operands,
                           int32_t n_results, const ti_type *const *result_types, const ti_attr *attrs);
/* One-result shorthand: returns result 0 or NULL. */
TASKIR_API ti_value *ti_build1(ti_builder *b, const char *name, int32_t n_operands, ti_value *const *operands,
                               const ti_type *result_type, const ti_attr *attrs);

/* >>core.walk ------------------------------------------------------------- */

/* Op arrays in an order, allocated with TASKIR_MALLOC (free with ti_free
   using the context's alloc_user, or ti_ops_free). Iterative: no recursion,
   O(ops + uses). A cycle gives TI_STATUS_INVALID naming an op on it. */
TASKIR_API ti_status ti_walk_program(const ti_program *p, ti_op ***out, int64_t *n, ti_error *err);
TASKIR_API ti_status ti_walk_topo(const ti_program *p, ti_op ***out, int64_t *n, ti_error *err);
TASKIR_API ti_status ti_walk_reverse_topo(const ti_program *p, ti_op ***out, int64_t *n, ti_error *err);
TASKIR_API void ti_ops_free(const ti_program *p, ti_op **ops);
/* Reorders an SSA program's ops into a topological order (stable). */
TASKIR_API ti_status ti_program_sort(ti_program *p, ti_error *err);

/* >>core.verify ----------------------------------------------------------- */

/* Checks the program: registered ops, operand/result counts, required
   attributes, every operand defined in this program, SSA programs: no use
   before definition; graph programs: no cycle; then each op's verify. */
TASKIR_API ti_status ti_verify(const ti_program *p, ti_error *err);

/* >>core.passes ----------------------------------------------------------- */

typedef ti_status (*ti_pass_fn)(ti_program *p, void *user, ti_error *err);
typedef struct ti_pass { const char *name; ti_pass_fn run; void *user; } ti_pass;

typedef struct ti_pass_manager {
  ti_pass passes[32];
  int32_t n;
  int verify_each;            /* run ti_verify after every pass (default 1) */
} ti_pass_manager;
TASKIR_API void ti_pass_manager_init(ti_pass_manager *pm);
TASKIR_API ti_status ti_pass_manager_add(ti_pass_manager *pm, const char *name, ti_pass_fn run, void *user);
/* Runs the passes in order; the error names the failing pass. */
TASKIR_API ti_status ti_pass_manager_run(const ti_pass_manager *pm, ti_program *p, ti_error *err);

/* >>core.text: the IR text form ------------------------------------------- */

/* A growable byte buffer (output of printers and encoders). */
typedef struct ti_buffer { char *data; size_t len, cap; void *alloc_user; int failed; } ti_buffer;
TASKIR_API void ti_buffer_init(ti_buffer *b, void *alloc_user);
TASKIR_API void ti_buffer_free(ti_buffer *b);
TASKIR_API int ti_buffer_append(ti_buffer *b, const void *data, size_t n);   /* 0 on OOM */
TASKIR_API int ti_buffer_printf(ti_buffer *b, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Prints a program; parse(print(p)) prints the same text again. */
TASKIR_API ti_status ti_print_program(const ti_program *p, ti_buffer *out, ti_error *err);
TASKIR_API ti_status ti_print_type(const ti_type *t, ti_buffer *out);
TASKIR_API ti_status ti_print_attr(const ti_attr *a, ti_buffer *out);
/* Parses one program; errors carry line:column. */
TASKIR_API ti_status ti_parse_program(ti_context *ctx, const char *text, size_t len, ti_program **out, ti_error *err);

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

/* >>task.dialect ---------------------------------------------------------- */

/* A Task IR graph lives in two forms. The message (ti_task_graph above) is
   what a file says, field for field. The program is the `task` dialect on
   the core: one op per block ("task.cc", "task.si", "task.input", ...) and
   one "task.edge" op per edge, in a graph program; a block op's operands are
   the edges of its input interfaces (cluster by cluster), its results one
   value per output interface; each edge op uses its source interface's
   value. Block and edge ops point at their message structs (op->props), so
   the message must outlive the program. Walks, rewrites, the verifier and
   the text form work on the program; the codec, checker and statistics on
   the message. */
TASKIR_API ti_status ti_task_register(ti_context *ctx, ti_error *err);   /* idempotent */
TASKIR_API ti_status ti_task_import(ti_context *ctx, const ti_task_graph *g, ti_program **out, ti_error *err);
/* Writes blocks and edges in program order into a fresh message g. */
TASKIR_API ti_status ti_task_export(const ti_program *p, ti_task_graph *g, ti_error *err);
TASKIR_API const ti_task_block *ti_task_block_of(const ti_op *op);   /* NULL if not a block op */
TASKIR_API const ti_task_edge *ti_task_edge_of(const ti_op *op);     /* NULL if not an edge op */

/* Attribute of a block by type: the first one's int_value, or dflt. */
TASKIR_API int32_t ti_task_attr_int(const ti_task_block *b, ti_attr_type t, int32_t dflt);
TASKIR_API const ti_task_attr *ti_task_find_attr(const ti_task_block *b, ti_attr_type t);
/* Dims of a block's storage layout (SPEC §2 "Storage"), outermost first:
   SI [ny][nx][nf] or [nf]; SIC/SIC2D [ny][nx][nr]; SIFC [nr]; SW/SW2D
   [nf][nr][nky][nkx]; SWFC [nf][nr]; SB [nf]; compute blocks and INPUT/
   OUTPUT their output [ny][nx][nf] or [nf]. Returns the rank (0..4). */
TASKIR_API int32_t ti_task_block_dims(const ti_task_block *b, int64_t dims[4]);
TASKIR_API const ti_task_block *ti_task_find_block(const ti_task_graph *g, int32_t id);
TASKIR_API const ti_task_edge *ti_task_find_edge(const ti_task_graph *g, int32_t id);

/* Builder on the message: blocks, attributes, data and connections. All
   memory comes from g's arena; NULL / error status when out of memory. */
TASKIR_API ti_task_block *ti_task_add_block(ti_task_graph *g, int32_t id, ti_block_type type, ti_dtype precision,
                                            const ti_task_shape *shape);
TASKIR_API ti_status ti_task_add_attr(ti_task_graph *g, ti_task_block *b, ti_attr_type type, int32_t value);
/* Data of a storage block: dims outermost first, values in dims order,
   given as int32 (integer precisions) or float (FLOAT_16/32). */
TASKIR_API ti_status ti_task_set_data(ti_task_graph *g, ti_task_block *b, ti_dtype precision, int32_t n_dims,
                                      const int32_t *dims, const void *values);
/* Connects output cluster src_cluster of src to input cluster dst_cluster of
   dst with a new edge (id = next free id), adding clusters as needed.
   Position/size NULL: the whole cluster. Returns the edge or NULL. */
TASKIR_API ti_task_edge *ti_task_connect(ti_task_graph *g, ti_task_block *src, int32_t src_cluster,
                                         const ti_task_shape *src_pos, const ti_task_shape *src_size,
                                         ti_task_block *dst, int32_t dst_cluster,
                                         const ti_task_shape *dst_pos, const ti_task_shape *dst_size);
TASKIR_API ti_status ti_task_add_rearrange(ti_task_graph *g, ti_task_edge *e, ti_rearrange_kind kind,
                                           int32_t n_dims, const int32_t *dims, const int32_t *values, int64_t n_values);
TASKIR_API void ti_task_shape_set(ti_task_shape *s, uint32_t field, int32_t value);  /* field: TI_SHAPE_HAS_* */

/* >>task.check ------------------------------------------------------------- */

typedef enum ti_diag_severity { TI_DIAG_ERROR, TI_DIAG_WARNING } ti_diag_severity;
typedef struct ti_diag {
  ti_diag_severity severity;
  const char *rule;          /* short rule name, e.g. "unique-ids", "dims" */
  int32_t block_id, edge_id; /* -1 where not applicable */
  char message[224];
} ti_diag;
typedef struct ti_diag_list {
  ti_diag *items;
  int32_t n, cap, n_errors, n_warnings;
  void *alloc_user;
} ti_diag_list;
TASKIR_API void ti_diag_list_init(ti_diag_list *l, void *alloc_user);
TASKIR_API void ti_diag_list_free(ti_diag_list *l);

/* Runs every rule of SPEC §2 and lists every problem. Returns SUCCESS when
   there is no error (warnings allowed), TI_STATUS_INVALID otherwise (err
   gets the first error), NO_MEMORY if the list cannot grow. */
TASKIR_API ti_status ti_task_check(const ti_task_graph *g, ti_diag_list *out, ti_error *err);

/* >>task.stats ------------------------------------------------------------- */

typedef struct ti_task_block_stats {
  int32_t block_id;
  ti_block_type type;
  int64_t params;            /* weight + bias elements read by a compute block / data of a storage block */
  int64_t macs;              /* multiply-accumulates (or ops for non-MAC blocks) */
  int64_t out_elems;         /* elements produced */
  int64_t storage_bytes;     /* storage blocks: bytes at their precision */
} ti_task_block_stats;
typedef struct ti_task_stats {
  int64_t params, macs, edge_bytes, blocks, edges;
  int64_t storage_bytes[TI_DTYPE_COUNT];   /* by precision */
  int64_t storage_total;
  int32_t n_blocks;
  ti_task_block_stats *per_block;          /* n_blocks entries, TASKIR_MALLOC'd; NULL if not asked */
} ti_task_stats;
/* per_block: 1 to fill s->per_block (free with ti_task_stats_free). */
TASKIR_API ti_status ti_task_statistics(const ti_task_graph *g, ti_task_stats *s, int per_block, ti_error *err);
TASKIR_API void ti_task_stats_free(ti_task_stats *s, void *alloc_user);

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
