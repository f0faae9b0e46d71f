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

/* >>nn: the algorithm-level dialect and its reference interpreter ---------- */

/* The `nn` dialect: algorithm-level ops, each a static ti_op_info registered
   by ti_nn_register (idempotent). Every op has verify, infer_shape, a layout
   interface and eval; pure ones fold (through eval). Conventions:

   Layouts. A value's dims are in *storage* order: an NHWC value has dims
   [N,H,W,C], an HWOI weight [KH,KW,O,I]. Ops with layout semantics read each
   operand through its layout (NCHW or NHWC activations, OIHW or HWOI
   weights; ANY/TENSOR 4-D data counts as NCHW / OIHW), so a transpose that
   changes a layout (perm [0,2,3,1] turns NCHW into NHWC) keeps results.
   Axis attributes of such ops (concat axis, pad pads, mirror axis) are
   *logical*: counted in NCHW / OIHW order whatever the storage order. Data
   movement ops without layout semantics (reshape, flatten, broadcast,
   transpose, tin_shift, elementwise broadcasting) work in storage order.
   Results of conv-class ops take the layout of their activation operand
   (NHWC stays NHWC, anything else gives NCHW).

   Ops (operands; attributes with defaults; * = required):
     conv2d(x, w[, b])   strides=[1,1] [sy,sx], pads=[0,0,0,0] [top,left,
                         bottom,right], dilations=[1,1] [dy,dx], group=1;
                         w is [O, C/group, KH, KW] (OIHW) or HWOI; b [O]
     quant_conv2d(x:i8, w:i8[, b:i32])  as conv2d with int32 accumulation;
                         shift=s (optional): result i8 = saturate(acc >> s)
                         (arithmetic shift), else the i32 accumulator
     conv2d_backprop_input(dy, w)   (BPA) conv2d attrs + input_size=[H,W]
                         (default: the smallest input giving dy)
     conv2d_backprop_filter(x, dy)  (BPW) conv2d attrs + *kernel_shape=[KH,KW];
                         result OIHW (x NCHW) or HWOI (x NHWC)
     gemm(a, b[, c])     alpha=1.0, beta=1.0, trans_a=0, trans_b=0;
                         alpha*op(a)@op(b) + beta*c (c broadcast to [M,N])
     quant_gemm(a:i8, b:i8[, c:i32])  trans_a, trans_b, shift as quant_conv2d
     matmul(a, b)        transpose_a=false, transpose_b=false; [..,M,K]@[..,K,N],
                         batch dims equal or b 2-D
     add, sub, mul (a, b)  numpy broadcasting in storage order; a 4-D operand
                         whose CNN layout differs from a's is first converted
     relu(x), relu_(x)   relu_ writes x in place (its result aliases x)
     clip(x)             *min, *max
     max_pool(x), avg_pool(x)  *kernel_shape=[KH,KW], strides=[1,1],
                         pads=[0,0,0,0]; avg_pool count_include_pad=0
     global_avg_pool(x)  mean over H,W -> [N,C,1,1] in x's layout
     reshape(x)          *shape (one -1 allowed); layout="NCHW"... optional
                         result layout (default TENSOR)
     flatten(x)          axis=1 -> [prod(d<axis), prod(d>=axis)]
     broadcast(x)        *shape: numpy broadcast
     transpose(x)        *perm: result dim i = operand dim perm[i]; the
                         layout letters move along (NCHW + [0,2,3,1] = NHWC)
     concat(x0, x1, ...) *axis (logical)
     pad(x)              *pads: 2*rank [begin..., end...] (logical), or for
                         4-D data [top,left,bottom,right] on H,W; value=0.0
     img2col(x)          *kernel_shape, strides, pads, dilations: logical
                         result [N, C*KH*KW, OH, OW], channel (c*KH+kh)*KW+kw
     unpool(x)           scales=[2,2]: nearest up-sampling of H,W
     maskunpool(x, mask) scales=[2,2]: mask has the result shape; result =
                         mask != 0 ? x[n][c][h/sy][w/sx] : 0
     mirror(x)           axis=3 (logical): reverse along axis
     rotate(x)           k=1: numpy.rot90 k times on the H,W plane
                         (counter-clockwise; odd k swaps H and W)
     nchw2nhwc(x), nhwc2nchw(x)  result stored NHWC / NCHW (same logical data)
     tensornorm(x[, scale[, bias]])  epsilon=1e-5: per (n,h,w), normalise
                         over C; then * scale[c] + bias[c]
     bilinear(x)         *size=[OH,OW], align_corners=0 (half-pixel centres)
     tin_shift(x, shifts:i32)  mmcv tin_shift: x [N,T,C,HW], shifts [N,G]
     lif(x, v)           vth=1.0, v_reset=0.0, decay=1.0 -> (spike, v_new):
                         u = v*decay + x; spike = u > vth; v_new = spike ?
                         v_reset : u
     lut(x:int, table)   offset (default 128 for i8 x, else 0): result =
                         table[x + offset], dtype of table
   Elementwise arithmetic computes in double and converts to the result
   dtype (integers saturate). f16 data is not supported by the interpreter. */

/* A dense tensor of the interpreter: numel elements in row-major order of
   dims (storage order of `layout`). Aliases (relu_, reshape, flatten in
   tensor form) share refcounted storage. */
typedef struct ti_tensor_storage ti_tensor_storage;
struct ti_tensor_value {
  ti_dtype dtype;
  ti_layout layout;
  int32_t rank;
  int64_t dims[TI_MAX_RANK];
  int64_t numel;
  void *data;
  void *alloc_user;
  ti_tensor_storage *storage;
};

TASKIR_API ti_status ti_nn_register(ti_context *ctx, ti_error *err);

/* A new tensor; data copied (numel * ti_dtype_size bytes) or zeros when
   NULL. NULL and err filled on bad dims or out of memory. */
TASKIR_API ti_tensor_value *ti_tensor_create(void *alloc_user, ti_dtype dtype, int32_t rank, const int64_t *dims,
                                             ti_layout layout, const void *data, ti_error *err);
/* Same storage, other dims/layout (numel must match). */
TASKIR_API ti_tensor_value *ti_tensor_alias(const ti_tensor_value *t, int32_t rank, const int64_t *dims,
                                            ti_layout layout, ti_error *err);
TASKIR_API ti_tensor_value *ti_tensor_copy(const ti_tensor_value *t, ti_error *err);
/* Result dim i = t dim perm[i], data moved accordingly. */
TASKIR_API ti_tensor_value *ti_tensor_permute(const ti_tensor_value *t, const int32_t *perm, ti_layout layout,
                                              ti_error *err);
/* The same logical data stored in another layout of its family (NCHW<->NHWC,
   OIHW<->HWOI); a copy when the layout is already right or t's is not CNN. */
TASKIR_API ti_tensor_value *ti_tensor_to_layout(const ti_tensor_value *t, ti_layout layout, ti_error *err);
TASKIR_API void ti_tensor_free(ti_tensor_value *t);
TASKIR_API double ti_tensor_get(const ti_tensor_value *t, int64_t i);
TASKIR_API void ti_tensor_set(ti_tensor_value *t, int64_t i, double v);   /* integers saturate */
/* Largest |a-b| over the logical data (b converted to a's layout when both
   are CNN layouts of one family); -1 if shapes differ. */
TASKIR_API double ti_tensor_max_diff(const ti_tensor_value *a, const ti_tensor_value *b, ti_error *err);

/* Runs an SSA program on the CPU. inputs[i] feeds program argument i (a
   CNN-layout input of the other layout of its family is converted; dims must
   match the argument's static dims). Ops run in program order through their
   eval; get_parameter reads the weights table, set_parameter writes it (the
   program's variable data changes). On entry *n_outputs is the capacity of
   outputs; on success it holds the number of builtin.return operands and
   outputs[i] are new tensors (free with ti_tensor_free). Intermediates are
   freed after their last use. */
TASKIR_API ti_status ti_interpret(const ti_program *p, const ti_tensor_value *const *inputs, int32_t n_inputs,
                                  ti_tensor_value **outputs, int32_t *n_outputs, ti_error *err);
/* The eval of an op kind: info->eval, or the interpreter's own eval for a
   builtin op whose table entry has none. NULL if none. */
TASKIR_API ti_eval_fn ti_eval_of(const ti_op_info *info);

/* Evals of the builtin ops (referenced by the core's builtin op table). */
TASKIR_API ti_status ti__builtin_eval_get_parameter(const ti_op *op, const ti_tensor_value *const *operands,
                                                    ti_tensor_value **results, ti_error *err);
TASKIR_API ti_status ti__builtin_eval_set_parameter(const ti_op *op, const ti_tensor_value *const *operands,
                                                    ti_tensor_value **results, ti_error *err);
TASKIR_API ti_status ti__builtin_eval_to_tensor(const ti_op *op, const ti_tensor_value *const *operands,
                                                ti_tensor_value **results, ti_error *err);
TASKIR_API ti_status ti__builtin_eval_to_vtensor(const ti_op *op, const ti_tensor_value *const *operands,
                                                 ti_tensor_value **results, ti_error *err);
TASKIR_API ti_status ti__builtin_eval_constant(const ti_op *op, const ti_tensor_value *const *operands,
                                               ti_tensor_value **results, ti_error *err);
TASKIR_API ti_status ti__builtin_eval_return(const ti_op *op, const ti_tensor_value *const *operands,
                                             ti_tensor_value **results, ti_error *err);

/* >>passes: generic passes (SPEC §1, seed 003 §2.5) ------------------------- */

/* Each is a ti_pass_fn (user unused) and has a public name:
     "dce"      dead-code elimination: pure ops whose results are unused
     "cse"      common-subexpression elimination: pure ops with the same
                name, operands (commutative: in any order), attributes and
                result types, whose operands are vtensors or never mutated
     "constant-fold"   ops with a fold interface whose operands are all
                builtin.constant or get_parameter of an immutable variable
                (see ti_program_freeze_weights) become builtin.constant ops
     "maximize-value-semantics"   seed 003 §2.5.1: to_vtensor/to_tensor
                around value-semantic ops on tensors, then removal of the
                pairs whose tensor is never mutated or aliased
     "inplace-to-outofplace"   seed 003 §2.5.2: `x_` ops become `x`, later
                uses of the mutated operand use the new result */
TASKIR_API ti_status ti_pass_dce(ti_program *p, void *user, ti_error *err);
TASKIR_API ti_status ti_pass_cse(ti_program *p, void *user, ti_error *err);
TASKIR_API ti_status ti_pass_constant_fold(ti_program *p, void *user, ti_error *err);
TASKIR_API ti_status ti_pass_maximize_value_semantics(ti_program *p, void *user, ti_error *err);
TASKIR_API ti_status ti_pass_inplace_to_outofplace(ti_program *p, void *user, ti_error *err);
/* The name table of the passes above. */
TASKIR_API const ti_pass *ti_generic_passes(int32_t *n);
TASKIR_API const ti_pass *ti_find_pass(const char *name);   /* NULL if unknown */
/* Adds passes by name, comma-separated ("cse,dce"); NOT_FOUND names one. */
TASKIR_API ti_status ti_pass_manager_add_named(ti_pass_manager *pm, const char *names, ti_error *err);

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

/* >>impl.nn ---------------------------------------------------------------- */

#include <math.h>

struct ti_tensor_storage { int64_t refs; void *alloc_user; };
#define TI__STORAGE_HDR ((sizeof(ti_tensor_storage) + 15u) & ~(size_t)15u)

static int ti__nn_numel(int32_t rank, const int64_t *dims, int64_t *numel) {
  int64_t n = 1;
  int32_t i;
  if (rank < 0 || rank > TI_MAX_RANK) return 0;
  for (i = 0; i < rank; i++) {
    if (dims[i] < 0) return 0;
    if (dims[i] && n > INT64_MAX / dims[i]) return 0;
    n *= dims[i];
  }
  *numel = n;
  return 1;
}

TASKIR_API ti_tensor_value *ti_tensor_create(void *alloc_user, ti_dtype dtype, int32_t rank, const int64_t *dims,
                                             ti_layout layout, const void *data, ti_error *err) {
  int64_t numel;
  size_t es = ti_dtype_size(dtype), bytes;
  ti_tensor_value *t;
  ti_tensor_storage *s;
  if (!es || (rank && !dims) || !ti__nn_numel(rank, dims, &numel)) {
    ti_error_set(err, TI_STATUS_BAD_PARAM, "tensor: bad dtype or dims (rank %d)", (int)rank);
    return NULL;
  }
  if ((uint64_t)numel > (uint64_t)(((size_t)-1 - TI__STORAGE_HDR) / es) || (uint64_t)numel > ((uint64_t)1 << 40)) {
    ti_error_set(err, TI_STATUS_LIMIT, "tensor: %lld elements are too many", (long long)numel);
    return NULL;
  }
  bytes = (size_t)numel * es;
  t = (ti_tensor_value *)TASKIR_MALLOC(alloc_user, sizeof *t);
  s = (ti_tensor_storage *)TASKIR_MALLOC(alloc_user, TI__STORAGE_HDR + (bytes ? bytes : 1));
  if (!t || !s) {
    if (t) TASKIR_FREE(alloc_user, t);
    if (s) TASKIR_FREE(alloc_user, s);
    ti_error_set(err, TI_STATUS_NO_MEMORY, "tensor: out of memory (%lld bytes)", (long long)bytes);
    return NULL;
  }
  memset(t, 0, sizeof *t);
  s->refs = 1;
  s->alloc_user = alloc_user;
  t->dtype = dtype;
  t->layout = layout;
  t->rank = rank;
  if (rank) memcpy(t->dims, dims, (size_t)rank * sizeof *dims);
  t->numel = numel;
  t->data = (unsigned char *)s + TI__STORAGE_HDR;
  t->alloc_user = alloc_user;
  t->storage = s;
  if (data && bytes) memcpy(t->data, data, bytes);
  else if (bytes) memset(t->data, 0, bytes);
  return t;
}

TASKIR_API ti_tensor_value *ti_tensor_alias(const ti_tensor_value *t, int32_t rank, const int64_t *dims,
                                            ti_layout layout, ti_error *err) {
  int64_t numel;
  ti_tensor_value *a;
  if (!t || (rank && !dims) || !ti__nn_numel(rank, dims, &numel) || numel != t->numel) {
    ti_error_set(err, TI_STATUS_BAD_PARAM, "tensor alias: element count differs from the source");
    return NULL;
  }
  a = (ti_tensor_value *)TASKIR_MALLOC(t->alloc_user, sizeof *a);
  if (!a) {
    ti_error_set(err, TI_STATUS_NO_MEMORY, "tensor alias: out of memory");
    return NULL;
  }
  *a = *t;
  a->rank = rank;
  memset(a->dims, 0, sizeof a->dims);
  if (rank) memcpy(a->dims, dims, (size_t)rank * sizeof *dims);
  a->layout = layout;
  t->storage->refs++;
  return a;
}

TASKIR_API ti_tensor_value *ti_tensor_copy(const ti_tensor_value *t, ti_error *err) {
  if (!t) {
    ti_error_set(err, TI_STATUS_BAD_PARAM, "tensor copy: NULL tensor");
    return NULL;
  }
  return ti_tensor_create(t->alloc_user, t->dtype, t->rank, t->dims, t->layout, t->data, err);
}

TASKIR_API void ti_tensor_free(ti_tensor_value *t) {
  void *au;
  if (!t) return;
  au = t->alloc_user;
  if (t->storage && --t->storage->refs == 0) TASKIR_FREE(t->storage->alloc_user, t->storage);
  TASKIR_FREE(au, t);
}

TASKIR_API double ti_tensor_get(const ti_tensor_value *t, int64_t i) {
  const void *d = t->data;
  switch (t->dtype) {
  case TI_DTYPE_F32: return ((const float *)d)[i];
  case TI_DTYPE_F64: return ((const double *)d)[i];
  case TI_DTYPE_I8: case TI_DTYPE_TERNARY: return ((const int8_t *)d)[i];
  case TI_DTYPE_U8: case TI_DTYPE_U4: case TI_DTYPE_BOOL: return ((const uint8_t *)d)[i];
  case TI_DTYPE_I16: case TI_DTYPE_I9: return ((const int16_t *)d)[i];
  case TI_DTYPE_U16: return ((const uint16_t *)d)[i];
  case TI_DTYPE_I32: case TI_DTYPE_I28: return ((const int32_t *)d)[i];
  case TI_DTYPE_U32: return ((const uint32_t *)d)[i];
  case TI_DTYPE_I64: return (double)((const int64_t *)d)[i];
  default: return 0;
  }
}

static double ti__nn_sat(double v, double lo, double hi) {
  if (v != v) return 0;
  return v < lo ? lo : v > hi ? hi : v;
}

TASKIR_API void ti_tensor_set(ti_tensor_value *t, int64_t i, double v) {
  void *d = t->data;
  switch (t->dtype) {
  case TI_DTYPE_F32: ((float *)d)[i] = (float)v; break;
  case TI_DTYPE_F64: ((double *)d)[i] = v; break;
  case TI_DTYPE_I8: ((int8_t *)d)[i] = (int8_t)ti__nn_sat(v, -128, 127); break;
  case TI_DTYPE_TERNARY: ((int8_t *)d)[i] = (int8_t)ti__nn_sat(v, -1, 1); break;
  case TI_DTYPE_U8: ((uint8_t *)d)[i] = (uint8_t)ti__nn_sat(v, 0, 255); break;
  case TI_DTYPE_U4: ((uint8_t *)d)[i] = (uint8_t)ti__nn_sat(v, 0, 15); break;
  case TI_DTYPE_BOOL: ((uint8_t *)d)[i] = (uint8_t)(v != 0); break;
  case TI_DTYPE_I16: ((int16_t *)d)[i] = (int16_t)ti__nn_sat(v, -32768, 32767); break;
  case TI_DTYPE_I9: ((int16_t *)d)[i] = (int16_t)ti__nn_sat(v, -256, 255); break;
  case TI_DTYPE_U16: ((uint16_t *)d)[i] = (uint16_t)ti__nn_sat(v, 0, 65535); break;
  case TI_DTYPE_I32: ((int32_t *)d)[i] = (int32_t)ti__nn_sat(v, -2147483648.0, 2147483647.0); break;
  case TI_DTYPE_I28: ((int32_t *)d)[i] = (int32_t)ti__nn_sat(v, -134217728.0, 134217727.0); break;
  case TI_DTYPE_U32: ((uint32_t *)d)[i] = (uint32_t)ti__nn_sat(v, 0, 4294967295.0); break;
  case TI_DTYPE_I64: ((int64_t *)d)[i] = (int64_t)ti__nn_sat(v, -9223372036854775808.0, 9223372036854774784.0); break;
  default: break;
  }
}

/* Row-major strides of dims. */
static void ti__nn_strides(int32_t rank, const int64_t *dims, int64_t *str) {
  int64_t s = 1;
  int32_t i;
  for (i = rank - 1; i >= 0; i--) { str[i] = s; s *= dims[i]; }
}

static int ti__nn_is_perm(const int32_t *perm, int32_t rank) {
  int seen[TI_MAX_RANK] = {0};
  int32_t i;
  if (rank < 0 || rank > TI_MAX_RANK) return 0;
  for (i = 0; i < rank; i++) {
    if (perm[i] < 0 || perm[i] >= rank || seen[perm[i]]) return 0;
    seen[perm[i]] = 1;
  }
  return 1;
}

/* dst (dims sdims permuted) <- src; es bytes per element. */
static void ti__nn_permute_raw(const unsigned char *src, unsigned char *dst, size_t es, int32_t rank,
                            const int64_t *sdims, const int32_t *perm) {
  int64_t sstr[TI_MAX_RANK], istr[TI_MAX_RANK], odims[TI_MAX_RANK], idx[TI_MAX_RANK], numel = 1, k, off = 0;
  int32_t i;
  ti__nn_strides(rank, sdims, sstr);
  for (i = 0; i < rank; i++) {
    odims[i] = sdims[perm[i]];
    istr[i] = sstr[perm[i]];
    idx[i] = 0;
    numel *= odims[i];
  }
  for (k = 0; k < numel; k++) {
    memcpy(dst + (size_t)k * es, src + (size_t)off * es, es);
    for (i = rank - 1; i >= 0; i--) {
      off += istr[i];
      if (++idx[i] < odims[i]) break;
      off -= istr[i] * odims[i];
      idx[i] = 0;
    }
  }
}

TASKIR_API ti_tensor_value *ti_tensor_permute(const ti_tensor_value *t, const int32_t *perm, ti_layout layout,
                                              ti_error *err) {
  int64_t odims[TI_MAX_RANK];
  int32_t i;
  ti_tensor_value *r;
  if (!t || !perm || !ti__nn_is_perm(perm, t->rank)) {
    ti_error_set(err, TI_STATUS_BAD_PARAM, "tensor permute: not a permutation of %d axes", t ? (int)t->rank : 0);
    return NULL;
  }
  for (i = 0; i < t->rank; i++) odims[i] = t->dims[perm[i]];
  r = ti_tensor_create(t->alloc_user, t->dtype, t->rank, odims, layout, NULL, err);
  if (r && r->numel)
    ti__nn_permute_raw((const unsigned char *)t->data, (unsigned char *)r->data, ti_dtype_size(t->dtype), t->rank,
                    t->dims, perm);
  return r;
}

/* Layout letters: which logical axis each storage axis holds. */
static const char *ti__nn_letters(ti_layout l) {
  switch (l) {
  case TI_LAYOUT_NCHW: return "NCHW";
  case TI_LAYOUT_NHWC: return "NHWC";
  case TI_LAYOUT_OIHW: return "OIHW";
  case TI_LAYOUT_HWOI: return "HWOI";
  default: return NULL;
  }
}
static ti_layout ti__nn_from_letters(const char *s) {
  ti_layout l;
  for (l = TI_LAYOUT_NCHW; l <= TI_LAYOUT_HWOI; l = (ti_layout)(l + 1))
    if (memcmp(ti__nn_letters(l), s, 4) == 0) return l;
  return TI_LAYOUT_ANY;
}
static int ti__nn_is_wgt(ti_layout l) { return l == TI_LAYOUT_OIHW || l == TI_LAYOUT_HWOI; }
static int ti__nn_is_act(ti_layout l) { return l == TI_LAYOUT_NCHW || l == TI_LAYOUT_NHWC; }
/* The CNN layout data of layout l is read as, in the family of `like`:
   ANY/TENSOR data counts as NCHW (activations) or OIHW (weights). */
static ti_layout ti__nn_eff(ti_layout l, ti_layout like) {
  if (ti__nn_is_wgt(like)) return ti__nn_is_wgt(l) ? l : TI_LAYOUT_OIHW;
  return ti__nn_is_act(l) ? l : TI_LAYOUT_NCHW;
}
/* perm taking data stored in layout `from` to layout `to` (same family). */
static int ti__nn_layout_perm(ti_layout from, ti_layout to, int32_t perm[4]) {
  const char *f = ti__nn_letters(from), *t = ti__nn_letters(to);
  int32_t i, j;
  if (!f || !t) return 0;
  for (i = 0; i < 4; i++) {
    for (j = 0; j < 4 && f[j] != t[i]; j++) {}
    if (j == 4) return 0;
    perm[i] = j;
  }
  return 1;
}
/* Storage axis of a logical axis (NCHW / OIHW order) for rank-4 data. */
static int32_t ti__nn_phys_axis(ti_layout l, int32_t rank, int32_t logical) {
  const char *s = ti__nn_letters(l), *canon = ti__nn_is_wgt(l) ? "OIHW" : "NCHW";
  int32_t j;
  if (!s || rank != 4) return logical;
  for (j = 0; j < 4; j++) if (s[j] == canon[logical]) return j;
  return logical;
}

TASKIR_API ti_tensor_value *ti_tensor_to_layout(const ti_tensor_value *t, ti_layout layout, ti_error *err) {
  int32_t perm[4];
  if (!t) {
    ti_error_set(err, TI_STATUS_BAD_PARAM, "tensor to_layout: NULL tensor");
    return NULL;
  }
  if (t->layout == layout || !ti_layout_is_cnn(layout)) return ti_tensor_copy(t, err);
  if (t->rank != 4 || !ti__nn_layout_perm(ti__nn_eff(t->layout, layout), layout, perm)) {
    ti_error_set(err, TI_STATUS_BAD_PARAM, "tensor to_layout: cannot store %s data of rank %d as %s",
                 ti_layout_name(t->layout), (int)t->rank, ti_layout_name(layout));
    return NULL;
  }
  return ti_tensor_permute(t, perm, layout, err);
}

TASKIR_API double ti_tensor_max_diff(const ti_tensor_value *a, const ti_tensor_value *b, ti_error *err) {
  ti_tensor_value *c = NULL;
  double m = 0;
  int64_t i;
  int32_t k;
  if (!a || !b) return -1;
  if (a->rank == 4 && b->rank == 4 && a->layout != b->layout && ti_layout_is_cnn(a->layout) &&
      ti_layout_is_cnn(b->layout)) {
    c = ti_tensor_to_layout(b, a->layout, err);
    if (!c) return -1;
    b = c;
  }
  if (a->rank != b->rank) m = -1;
  for (k = 0; m == 0 && k < a->rank; k++)
    if (a->dims[k] != b->dims[k]) m = -1;
  for (i = 0; m >= 0 && i < a->numel; i++) {
    double x = ti_tensor_get(a, i), y = ti_tensor_get(b, i), d = fabs(x - y);
    if (x != x || y != y) d = (x != x && y != y) ? 0 : HUGE_VAL;
    if (d > m) m = d;
  }
  ti_tensor_free(c);
  return m;
}

/* Pointer -> int64 map (open addressing), for value slots and passes. */
typedef struct ti__nn_ptrmap { const void **keys; int64_t *vals; int64_t cap, n; void *au; } ti__nn_ptrmap;
static size_t ti__nn_ptrhash(const void *p) {
  uint64_t x = (uint64_t)(uintptr_t)p;
  x ^= x >> 33; x *= 0xff51afd7ed558ccdULL; x ^= x >> 33;
  return (size_t)x;
}
static int ti__nn_ptrmap_init(ti__nn_ptrmap *m, int64_t n, void *au) {
  int64_t cap = 16;
  while (cap < 2 * n + 2) cap *= 2;
  m->au = au;
  m->cap = cap;
  m->n = 0;
  m->keys = (const void **)TASKIR_MALLOC(au, (size_t)cap * sizeof *m->keys);
  m->vals = (int64_t *)TASKIR_MALLOC(au, (size_t)cap * sizeof *m->vals);
  if (!m->keys || !m->vals) {
    if (m->keys) TASKIR_FREE(au, (void *)m->keys);
    if (m->vals) TASKIR_FREE(au, m->vals);
    m->keys = NULL; m->vals = NULL;
    return 0;
  }
  memset((void *)m->keys, 0, (size_t)cap * sizeof *m->keys);
  return 1;
}
static void ti__nn_ptrmap_free(ti__nn_ptrmap *m) {
  if (m->keys) TASKIR_FREE(m->au, (void *)m->keys);
  if (m->vals) TASKIR_FREE(m->au, m->vals);
  m->keys = NULL; m->vals = NULL;
}
/* Capacity is fixed at init (2n+2 slots): callers insert at most n keys. */
static void ti__nn_ptrmap_put(ti__nn_ptrmap *m, const void *k, int64_t v) {
  size_t i = ti__nn_ptrhash(k) & (size_t)(m->cap - 1);
  while (m->keys[i] && m->keys[i] != k) i = (i + 1) & (size_t)(m->cap - 1);
  if (!m->keys[i]) m->n++;
  m->keys[i] = k;
  m->vals[i] = v;
}
static int64_t ti__nn_ptrmap_get(const ti__nn_ptrmap *m, const void *k, int64_t dflt) {
  size_t i = ti__nn_ptrhash(k) & (size_t)(m->cap - 1);
  while (m->keys[i]) {
    if (m->keys[i] == k) return m->vals[i];
    i = (i + 1) & (size_t)(m->cap - 1);
  }
  return dflt;
}

/* Shape descriptors: the part of a type or tensor that shape rules read. */
typedef struct ti__nn_desc { ti_dtype dtype; ti_layout layout; int32_t rank; int64_t dims[TI_MAX_RANK]; } ti__nn_desc;
typedef ti_status (*ti__nn_shape_fn)(const ti_op *op, const ti__nn_desc *in, int32_t n_in, ti__nn_desc *out,
                                     ti_error *err);
/* dialect_data of every nn op. */
typedef struct ti__nn_def { ti__nn_shape_fn shape; } ti__nn_def;

#define TI__NN_FAIL(op, ...) ti__nn_fail((op), TI_STATUS_INVALID, __VA_ARGS__)
static ti_status ti__nn_fail(const ti_op *op, ti_status st, ti_error *err, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static ti_status ti__nn_fail(const ti_op *op, ti_status st, ti_error *err, const char *fmt, ...) {
  char msg[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return ti_error_set(err, st, "%s: %s", op && op->info ? op->info->name : "nn op", msg);
}

/* Reads an int array attribute of exactly n ints (default dflt when absent). */
static ti_status ti__nn_ints(const ti_op *op, const char *name, int64_t *out, int64_t n, const int64_t *dflt,
                             int64_t min, ti_error *err) {
  const ti_attr *a = ti_dict_get(op->attrs, name);
  int64_t i;
  if (!a) {
    if (!dflt) return TI__NN_FAIL(op, err, "attribute '%s' is required", name);
    for (i = 0; i < n; i++) out[i] = dflt[i];
    return TI_STATUS_SUCCESS;
  }
  if (a->kind != TI_ATTR_ARRAY || a->u.array.n != n)
    return TI__NN_FAIL(op, err, "attribute '%s' must be an array of %d ints", name, (int)n);
  for (i = 0; i < n; i++) {
    const ti_attr *e = a->u.array.items[i];
    if (e->kind != TI_ATTR_INT) return TI__NN_FAIL(op, err, "attribute '%s' must be an array of %d ints", name, (int)n);
    if (e->u.i < min) return TI__NN_FAIL(op, err, "attribute '%s'[%d] = %lld is below %lld", name, (int)i,
                                         (long long)e->u.i, (long long)min);
    out[i] = e->u.i;
  }
  return TI_STATUS_SUCCESS;
}
/* A number attribute (int, float or bool); required when have is NULL. */
static ti_status ti__nn_num(const ti_op *op, const char *name, double dflt, int required, double *out, ti_error *err) {
  const ti_attr *a = ti_dict_get(op->attrs, name);
  if (!a) {
    if (required) return TI__NN_FAIL(op, err, "attribute '%s' is required", name);
    *out = dflt;
    return TI_STATUS_SUCCESS;
  }
  if (a->kind == TI_ATTR_FLOAT) *out = a->u.f;
  else if (a->kind == TI_ATTR_INT || a->kind == TI_ATTR_BOOL) *out = (double)a->u.i;
  else return TI__NN_FAIL(op, err, "attribute '%s' must be a number", name);
  return TI_STATUS_SUCCESS;
}

/* Activation (N,C,H,W) and weight (O,I,KH,KW) views of 4-D data. */
typedef struct ti__nn_act { int64_t n, c, h, w, sn, sc, sh, sw; } ti__nn_act;
typedef struct ti__nn_wgt { int64_t o, i, kh, kw, so, si, sh, sw; } ti__nn_wgt;
static void ti__nn_act_of(ti_layout l, const int64_t *d, ti__nn_act *a) {
  if (ti__nn_eff(l, TI_LAYOUT_NCHW) == TI_LAYOUT_NHWC) {
    a->n = d[0]; a->h = d[1]; a->w = d[2]; a->c = d[3];
    a->sc = 1; a->sw = a->c; a->sh = a->w * a->c; a->sn = a->h * a->sh;
  } else {
    a->n = d[0]; a->c = d[1]; a->h = d[2]; a->w = d[3];
    a->sw = 1; a->sh = a->w; a->sc = a->h * a->w; a->sn = a->c * a->sc;
  }
}
static void ti__nn_act_dims(ti_layout l, int64_t n, int64_t c, int64_t h, int64_t w, int64_t *d) {
  if (ti__nn_eff(l, TI_LAYOUT_NCHW) == TI_LAYOUT_NHWC) { d[0] = n; d[1] = h; d[2] = w; d[3] = c; }
  else { d[0] = n; d[1] = c; d[2] = h; d[3] = w; }
}
static void ti__nn_wgt_of(ti_layout l, const int64_t *d, ti__nn_wgt *k) {
  if (ti__nn_eff(l, TI_LAYOUT_OIHW) == TI_LAYOUT_HWOI) {
    k->kh = d[0]; k->kw = d[1]; k->o = d[2]; k->i = d[3];
    k->si = 1; k->so = k->i; k->sw = k->o * k->i; k->sh = k->kw * k->sw;
  } else {
    k->o = d[0]; k->i = d[1]; k->kh = d[2]; k->kw = d[3];
    k->sw = 1; k->sh = k->kw; k->si = k->kh * k->kw; k->so = k->i * k->si;
  }
}
static void ti__nn_wgt_dims(ti_layout l, int64_t o, int64_t i, int64_t kh, int64_t kw, int64_t *d) {
  if (ti__nn_eff(l, TI_LAYOUT_OIHW) == TI_LAYOUT_HWOI) { d[0] = kh; d[1] = kw; d[2] = o; d[3] = i; }
  else { d[0] = o; d[1] = i; d[2] = kh; d[3] = kw; }
}
/* Result layout of conv-class ops from the activation operand's layout. */
static ti_layout ti__nn_act_out(ti_layout l) { return l == TI_LAYOUT_NHWC ? TI_LAYOUT_NHWC : TI_LAYOUT_NCHW; }

typedef struct ti__nn_conv_p { int64_t s[2], p[4], d[2], group, k[2]; } ti__nn_conv_p;
static const int64_t ti__nn_one2[2] = {1, 1}, ti__nn_two2[2] = {2, 2}, ti__nn_zero4[4] = {0, 0, 0, 0};
static ti_status ti__nn_conv_params(const ti_op *op, ti__nn_conv_p *p, int want_kernel, ti_error *err) {
  ti_status st;
  double g;
  if ((st = ti__nn_ints(op, "strides", p->s, 2, ti__nn_one2, 1, err)) != TI_STATUS_SUCCESS) return st;
  if ((st = ti__nn_ints(op, "pads", p->p, 4, ti__nn_zero4, 0, err)) != TI_STATUS_SUCCESS) return st;
  if ((st = ti__nn_ints(op, "dilations", p->d, 2, ti__nn_one2, 1, err)) != TI_STATUS_SUCCESS) return st;
  if ((st = ti__nn_num(op, "group", 1, 0, &g, err)) != TI_STATUS_SUCCESS) return st;
  if (g < 1 || g > 1e9 || g != floor(g)) return TI__NN_FAIL(op, err, "attribute 'group' must be a positive int");
  p->group = (int64_t)g;
  p->k[0] = p->k[1] = 0;
  if (want_kernel && (st = ti__nn_ints(op, "kernel_shape", p->k, 2, NULL, 1, err)) != TI_STATUS_SUCCESS) return st;
  return TI_STATUS_SUCCESS;
}
/* Output size of a window op along one axis; -1 if dynamic, -2 if empty. */
static int64_t ti__nn_out_dim(int64_t in, int64_t k, int64_t s, int64_t pb, int64_t pe, int64_t d) {
  int64_t span;
  if (in < 0) return -1;
  span = d * (k - 1) + 1;
  if (in + pb + pe < span) return -2;
  return (in + pb + pe - span) / s + 1;
}
static int ti__nn_dim_eq(int64_t a, int64_t b) { return a < 0 || b < 0 || a == b; }
static int ti__nn_is_int(ti_dtype t) {
  return t != TI_DTYPE_F32 && t != TI_DTYPE_F16 && t != TI_DTYPE_F64;
}

static ti_status ti__nn_need(const ti_op *op, const ti__nn_desc *d, int32_t idx, int32_t rank, ti_error *err) {
  if (rank >= 0 && d->rank != rank)
    return TI__NN_FAIL(op, err, "operand %d must have rank %d, has %d", (int)idx, (int)rank, (int)d->rank);
  return TI_STATUS_SUCCESS;
}
#define TI__NN_TRY(x) do { ti_status ti__st_ = (x); if (ti__st_ != TI_STATUS_SUCCESS) return ti__st_; } while (0)

/* ---- shape rules ---- */

static ti_status ti__nn_shape_conv(const ti_op *op, const ti__nn_desc *in, int32_t n, ti__nn_desc *out, ti_error *err) {
  ti__nn_conv_p p;
  ti__nn_act a;
  ti__nn_wgt k;
  int64_t oh, ow;
  int quant = strcmp(op->info->name, "nn.quant_conv2d") == 0;
  TI__NN_TRY(ti__nn_conv_params(op, &p, 0, err));
  TI__NN_TRY(ti__nn_need(op, &in[0], 0, 4, err));
  TI__NN_TRY(ti__nn_need(op, &in[1], 1, 4, err));
  ti__nn_act_of(in[0].layout, in[0].dims, &a);
  ti__nn_wgt_of(in[1].layout, in[1].dims, &k);
  if (quant ? (in[0].dtype != TI_DTYPE_I8 || in[1].dtype != TI_DTYPE_I8) : in[0].dtype != in[1].dtype)
    return TI__NN_FAIL(op, err, quant ? "x and w must be i8" : "x and w must have one dtype");
  if (k.o >= 0 && k.o % p.group) return TI__NN_FAIL(op, err, "%lld output channels are not divisible by group %lld",
                                                  (long long)k.o, (long long)p.group);
  if (!ti__nn_dim_eq(a.c, k.i < 0 ? -1 : k.i * p.group))
    return TI__NN_FAIL(op, err, "x has %lld channels, w expects %lld (I %lld x group %lld)", (long long)a.c,
                       (long long)(k.i * p.group), (long long)k.i, (long long)p.group);
  if (n == 3) {
    TI__NN_TRY(ti__nn_need(op, &in[2], 2, 1, err));
    if (!ti__nn_dim_eq(in[2].dims[0], k.o)) return TI__NN_FAIL(op, err, "bias has %lld entries, w has %lld outputs",
                                                             (long long)in[2].dims[0], (long long)k.o);
    if (quant ? in[2].dtype != TI_DTYPE_I32 : in[2].dtype != in[0].dtype)
      return TI__NN_FAIL(op, err, quant ? "bias must be i32" : "bias dtype differs from x");
  }
  oh = k.kh < 0 ? -1 : ti__nn_out_dim(a.h, k.kh, p.s[0], p.p[0], p.p[2], p.d[0]);
  ow = k.kw < 0 ? -1 : ti__nn_out_dim(a.w, k.kw, p.s[1], p.p[1], p.p[3], p.d[1]);
  if (oh == -2 || ow == -2) return TI__NN_FAIL(op, err, "the kernel does not fit the padded input");
  out[0].dtype = quant ? (ti_dict_get(op->attrs, "shift") ? TI_DTYPE_I8 : TI_DTYPE_I32) : in[0].dtype;
  out[0].layout = ti__nn_act_out(in[0].layout);
  out[0].rank = 4;
  ti__nn_act_dims(out[0].layout, a.n, k.o, oh, ow, out[0].dims);
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_shape_bpa(const ti_op *op, const ti__nn_desc *in, int32_t n, ti__nn_desc *out, ti_error *err) {
  ti__nn_conv_p p;
  ti__nn_act a;
  ti__nn_wgt k;
  int64_t hw[2], i;
  (void)n;
  TI__NN_TRY(ti__nn_conv_params(op, &p, 0, err));
  TI__NN_TRY(ti__nn_need(op, &in[0], 0, 4, err));
  TI__NN_TRY(ti__nn_need(op, &in[1], 1, 4, err));
  if (in[0].dtype != in[1].dtype) return TI__NN_FAIL(op, err, "dy and w must have one dtype");
  ti__nn_act_of(in[0].layout, in[0].dims, &a);
  ti__nn_wgt_of(in[1].layout, in[1].dims, &k);
  if (!ti__nn_dim_eq(a.c, k.o)) return TI__NN_FAIL(op, err, "dy has %lld channels, w has %lld outputs",
                                                 (long long)a.c, (long long)k.o);
  if (k.o >= 0 && k.o % p.group) return TI__NN_FAIL(op, err, "outputs not divisible by group");
  if (ti_dict_get(op->attrs, "input_size")) {
    TI__NN_TRY(ti__nn_ints(op, "input_size", hw, 2, NULL, 1, err));
  } else {
    hw[0] = (a.h < 0 || k.kh < 0) ? -1 : (a.h - 1) * p.s[0] - p.p[0] - p.p[2] + p.d[0] * (k.kh - 1) + 1;
    hw[1] = (a.w < 0 || k.kw < 0) ? -1 : (a.w - 1) * p.s[1] - p.p[1] - p.p[3] + p.d[1] * (k.kw - 1) + 1;
  }
  for (i = 0; i < 2; i++) {
    int64_t o = ti__nn_out_dim(hw[i], i ? k.kw : k.kh, p.s[i], p.p[i], p.p[i + 2], p.d[i]);
    if (hw[i] != -1 && (hw[i] < 1 || !ti__nn_dim_eq(o, i ? a.w : a.h)))
      return TI__NN_FAIL(op, err, "input size %lld does not give dy's size %lld", (long long)hw[i],
                         (long long)(i ? a.w : a.h));
  }
  out[0].dtype = in[0].dtype;
  out[0].layout = ti__nn_act_out(in[0].layout);
  out[0].rank = 4;
  ti__nn_act_dims(out[0].layout, a.n, k.i < 0 ? -1 : k.i * p.group, hw[0], hw[1], out[0].dims);
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_shape_bpw(const ti_op *op, const ti__nn_desc *in, int32_t n, ti__nn_desc *out, ti_error *err) {
  ti__nn_conv_p p;
  ti__nn_act x, dy;
  (void)n;
  TI__NN_TRY(ti__nn_conv_params(op, &p, 1, err));
  TI__NN_TRY(ti__nn_need(op, &in[0], 0, 4, err));
  TI__NN_TRY(ti__nn_need(op, &in[1], 1, 4, err));
  if (in[0].dtype != in[1].dtype) return TI__NN_FAIL(op, err, "x and dy must have one dtype");
  ti__nn_act_of(in[0].layout, in[0].dims, &x);
  ti__nn_act_of(in[1].layout, in[1].dims, &dy);
  if (!ti__nn_dim_eq(x.n, dy.n)) return TI__NN_FAIL(op, err, "x and dy batch sizes differ");
  if ((x.c >= 0 && x.c % p.group) || (dy.c >= 0 && dy.c % p.group))
    return TI__NN_FAIL(op, err, "channels not divisible by group");
  if (!ti__nn_dim_eq(ti__nn_out_dim(x.h, p.k[0], p.s[0], p.p[0], p.p[2], p.d[0]), dy.h) ||
      !ti__nn_dim_eq(ti__nn_out_dim(x.w, p.k[1], p.s[1], p.p[1], p.p[3], p.d[1]), dy.w))
    return TI__NN_FAIL(op, err, "dy's spatial size does not match x, kernel_shape, strides and pads");
  out[0].dtype = in[0].dtype;
  out[0].layout = in[0].layout == TI_LAYOUT_NHWC ? TI_LAYOUT_HWOI : TI_LAYOUT_OIHW;
  out[0].rank = 4;
  ti__nn_wgt_dims(out[0].layout, dy.c, x.c < 0 ? -1 : x.c / p.group, p.k[0], p.k[1], out[0].dims);
  return TI_STATUS_SUCCESS;
}

/* Numpy broadcasting of b's dims into out (rank = max). */
static int ti__nn_bcast(const int64_t *a, int32_t ra, const int64_t *b, int32_t rb, int64_t *o, int32_t *ro) {
  int32_t r = ra > rb ? ra : rb, i;
  for (i = 0; i < r; i++) {
    int64_t x = i < r - ra ? 1 : a[i - (r - ra)], y = i < r - rb ? 1 : b[i - (r - rb)];
    if (x == 1) o[i] = y;
    else if (y == 1) o[i] = x;
    else if (x < 0) o[i] = y;
    else if (y < 0 || x == y) o[i] = x;
    else return 0;
  }
  *ro = r;
  return 1;
}

static ti_status ti__nn_shape_gemm(const ti_op *op, const ti__nn_desc *in, int32_t n, ti__nn_desc *out, ti_error *err) {
  double ta, tb;
  int64_t m, k1, k2, nn, mn[2], tmp[TI_MAX_RANK];
  int32_t rt;
  int quant = strcmp(op->info->name, "nn.quant_gemm") == 0;
  TI__NN_TRY(ti__nn_num(op, "trans_a", 0, 0, &ta, err));
  TI__NN_TRY(ti__nn_num(op, "trans_b", 0, 0, &tb, err));
  TI__NN_TRY(ti__nn_need(op, &in[0], 0, 2, err));
  TI__NN_TRY(ti__nn_need(op, &in[1], 1, 2, err));
  if (quant ? (in[0].dtype != TI_DTYPE_I8 || in[1].dtype != TI_DTYPE_I8) : in[0].dtype != in[1].dtype)
    return TI__NN_FAIL(op, err, quant ? "a and b must be i8" : "a and b must have one dtype");
  m = in[0].dims[ta != 0 ? 1 : 0]; k1 = in[0].dims[ta != 0 ? 0 : 1];
  k2 = in[1].dims[tb != 0 ? 1 : 0]; nn = in[1].dims[tb != 0 ? 0 : 1];
  if (!ti__nn_dim_eq(k1, k2)) return TI__NN_FAIL(op, err, "inner dims differ (%lld vs %lld)", (long long)k1, (long long)k2);
  mn[0] = m; mn[1] = nn;
  if (n == 3) {
    if (in[2].rank > 2 || !ti__nn_bcast(mn, 2, in[2].dims, in[2].rank, tmp, &rt) || rt != 2 ||
        !ti__nn_dim_eq(tmp[0], m) || !ti__nn_dim_eq(tmp[1], nn))
      return TI__NN_FAIL(op, err, "c does not broadcast to [%lld,%lld]", (long long)m, (long long)nn);
    if (quant ? in[2].dtype != TI_DTYPE_I32 : in[2].dtype != in[0].dtype)
      return TI__NN_FAIL(op, err, quant ? "c must be i32" : "c dtype differs from a");
  }
  out[0].dtype = quant ? (ti_dict_get(op->attrs, "shift") ? TI_DTYPE_I8 : TI_DTYPE_I32) : in[0].dtype;
  out[0].layout = TI_LAYOUT_NTENSOR;
  out[0].rank = 2;
  out[0].dims[0] = m; out[0].dims[1] = nn;
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_shape_matmul(const ti_op *op, const ti__nn_desc *in, int32_t n, ti__nn_desc *out, ti_error *err) {
  double ta, tb;
  int32_t ra = in[0].rank, rb = in[1].rank, i;
  int64_t m, k1, k2, nn;
  (void)n;
  TI__NN_TRY(ti__nn_num(op, "transpose_a", 0, 0, &ta, err));
  TI__NN_TRY(ti__nn_num(op, "transpose_b", 0, 0, &tb, err));
  if (ra < 2 || rb < 2) return TI__NN_FAIL(op, err, "operands must have rank >= 2");
  if (rb != 2 && rb != ra) return TI__NN_FAIL(op, err, "b must be 2-D or have a's rank");
  if (in[0].dtype != in[1].dtype) return TI__NN_FAIL(op, err, "a and b must have one dtype");
  m = in[0].dims[ra - (ta != 0 ? 1 : 2)]; k1 = in[0].dims[ra - (ta != 0 ? 2 : 1)];
  k2 = in[1].dims[rb - (tb != 0 ? 1 : 2)]; nn = in[1].dims[rb - (tb != 0 ? 2 : 1)];
  if (!ti__nn_dim_eq(k1, k2)) return TI__NN_FAIL(op, err, "inner dims differ (%lld vs %lld)", (long long)k1, (long long)k2);
  for (i = 0; rb == ra && i < ra - 2; i++)
    if (!ti__nn_dim_eq(in[0].dims[i], in[1].dims[i])) return TI__NN_FAIL(op, err, "batch dim %d differs", (int)i);
  out[0] = in[0];
  out[0].layout = TI_LAYOUT_NTENSOR;
  out[0].dims[ra - 2] = m;
  out[0].dims[ra - 1] = nn;
  return TI_STATUS_SUCCESS;
}

/* Layout of a multi-operand op's result: the first CNN one, else the first known. */
static ti_layout ti__nn_join_layout(const ti_layout *ls, const int32_t *ranks, int32_t n, int32_t rank) {
  int32_t i;
  for (i = 0; i < n; i++) if (ti_layout_is_cnn(ls[i]) && ranks[i] == rank) return ls[i];
  for (i = 0; i < n; i++) if (ls[i] != TI_LAYOUT_ANY && ranks[i] == rank) return ls[i];
  return n ? ls[0] : TI_LAYOUT_ANY;
}
/* dims of d as stored in layout `to` (when both are CNN of one family). */
static void ti__nn_dims_in(const ti__nn_desc *d, ti_layout to, int64_t *dims) {
  int32_t perm[4], i;
  memcpy(dims, d->dims, sizeof d->dims);
  if (d->rank == 4 && ti_layout_is_cnn(d->layout) && ti_layout_is_cnn(to) && d->layout != to &&
      ti__nn_layout_perm(d->layout, to, perm))
    for (i = 0; i < 4; i++) dims[i] = d->dims[perm[i]];
}

static ti_status ti__nn_shape_binary(const ti_op *op, const ti__nn_desc *in, int32_t n, ti__nn_desc *out, ti_error *err) {
  ti_layout ls[2];
  int32_t ranks[2], r;
  int64_t da[TI_MAX_RANK], db[TI_MAX_RANK];
  (void)n;
  if (in[0].dtype != in[1].dtype) return TI__NN_FAIL(op, err, "operands must have one dtype");
  ls[0] = in[0].layout; ls[1] = in[1].layout; ranks[0] = in[0].rank; ranks[1] = in[1].rank;
  r = in[0].rank > in[1].rank ? in[0].rank : in[1].rank;
  out[0].layout = ti__nn_join_layout(ls, ranks, 2, r);
  ti__nn_dims_in(&in[0], out[0].layout, da);
  ti__nn_dims_in(&in[1], out[0].layout, db);
  if (!ti__nn_bcast(da, in[0].rank, db, in[1].rank, out[0].dims, &out[0].rank))
    return TI__NN_FAIL(op, err, "operand shapes do not broadcast");
  out[0].dtype = in[0].dtype;
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_shape_same(const ti_op *op, const ti__nn_desc *in, int32_t n, ti__nn_desc *out, ti_error *err) {
  (void)op; (void)n; (void)err;
  out[0] = in[0];
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_shape_clip(const ti_op *op, const ti__nn_desc *in, int32_t n, ti__nn_desc *out, ti_error *err) {
  double lo, hi;
  TI__NN_TRY(ti__nn_num(op, "min", 0, 1, &lo, err));
  TI__NN_TRY(ti__nn_num(op, "max", 0, 1, &hi, err));
  if (!(lo <= hi)) return TI__NN_FAIL(op, err, "min %g exceeds max %g", lo, hi);
  return ti__nn_shape_same(op, in, n, out, err);
}

static ti_status ti__nn_shape_pool(const ti_op *op, const ti__nn_desc *in, int32_t n, ti__nn_desc *out, ti_error *err) {
  ti__nn_conv_p p;
  ti__nn_act a;
  int64_t oh, ow;
  (void)n;
  TI__NN_TRY(ti__nn_conv_params(op, &p, 1, err));
  TI__NN_TRY(ti__nn_need(op, &in[0], 0, 4, err));
  ti__nn_act_of(in[0].layout, in[0].dims, &a);
  oh = ti__nn_out_dim(a.h, p.k[0], p.s[0], p.p[0], p.p[2], p.d[0]);
  ow = ti__nn_out_dim(a.w, p.k[1], p.s[1], p.p[1], p.p[3], p.d[1]);
  if (oh == -2 || ow == -2) return TI__NN_FAIL(op, err, "the window does not fit the padded input");
  out[0] = in[0];
  if (strcmp(op->info->name, "nn.img2col") == 0)
    ti__nn_act_dims(in[0].layout, a.n, a.c < 0 ? -1 : a.c * p.k[0] * p.k[1], oh, ow, out[0].dims);
  else
    ti__nn_act_dims(in[0].layout, a.n, a.c, oh, ow, out[0].dims);
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_shape_gap(const ti_op *op, const ti__nn_desc *in, int32_t n, ti__nn_desc *out, ti_error *err) {
  ti__nn_act a;
  (void)n;
  TI__NN_TRY(ti__nn_need(op, &in[0], 0, 4, err));
  ti__nn_act_of(in[0].layout, in[0].dims, &a);
  out[0] = in[0];
  ti__nn_act_dims(in[0].layout, a.n, a.c, 1, 1, out[0].dims);
  return TI_STATUS_SUCCESS;
}

static ti_layout ti__nn_parse_layout(const char *s) {
  ti_layout l;
  for (l = TI_LAYOUT_ANY; l < TI_LAYOUT_COUNT; l = (ti_layout)(l + 1)) {
    const char *a = ti_layout_name(l), *b = s;
    while (a && *a && *b && (*a | 32) == (*b | 32)) { a++; b++; }
    if (a && !*a && !*b) return l;
  }
  return TI_LAYOUT_COUNT;
}

static ti_status ti__nn_shape_reshape(const ti_op *op, const ti__nn_desc *in, int32_t n, ti__nn_desc *out, ti_error *err) {
  const ti_attr *a = ti_dict_get(op->attrs, "shape");
  int64_t known = 1, numel = 1, i, neg = -1, r;
  const char *ls = ti_dict_string(op->attrs, "layout", NULL);
  int dyn = 0;
  (void)n;
  if (!a || a->kind != TI_ATTR_ARRAY || a->u.array.n > TI_MAX_RANK)
    return TI__NN_FAIL(op, err, "attribute 'shape' must be an array of at most %d ints", TI_MAX_RANK);
  r = a->u.array.n;
  for (i = 0; i < in[0].rank; i++) {
    if (in[0].dims[i] < 0) dyn = 1;
    else if (in[0].dims[i] && numel > INT64_MAX / in[0].dims[i]) return TI__NN_FAIL(op, err, "too many elements");
    else numel *= in[0].dims[i];
  }
  for (i = 0; i < r; i++) {
    const ti_attr *e = a->u.array.items[i];
    if (e->kind != TI_ATTR_INT || e->u.i < -1) return TI__NN_FAIL(op, err, "attribute 'shape' must hold ints >= -1");
    out[0].dims[i] = e->u.i;
    if (e->u.i == -1) {
      if (neg >= 0) return TI__NN_FAIL(op, err, "attribute 'shape' has more than one -1");
      neg = i;
    } else {
      if (e->u.i && known > INT64_MAX / e->u.i) return TI__NN_FAIL(op, err, "too many elements");
      known *= e->u.i;
    }
  }
  if (!dyn) {
    if (neg >= 0) {
      if (known == 0 || numel % known) return TI__NN_FAIL(op, err, "cannot infer the -1 dim of 'shape'");
      out[0].dims[neg] = numel / known;
    } else if (known != numel) {
      return TI__NN_FAIL(op, err, "shape has %lld elements, the operand %lld", (long long)known, (long long)numel);
    }
  }
  out[0].dtype = in[0].dtype;
  out[0].rank = (int32_t)r;
  out[0].layout = TI_LAYOUT_TENSOR;
  if (ls) {
    out[0].layout = ti__nn_parse_layout(ls);
    if (out[0].layout == TI_LAYOUT_COUNT) return TI__NN_FAIL(op, err, "unknown layout '%s'", ls);
  }
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_shape_flatten(const ti_op *op, const ti__nn_desc *in, int32_t n, ti__nn_desc *out, ti_error *err) {
  double ax;
  int64_t a = 1, b = 1;
  int32_t i, axis;
  (void)n;
  TI__NN_TRY(ti__nn_num(op, "axis", 1, 0, &ax, err));
  if (ax < 0) ax += in[0].rank;
  if (ax < 0 || ax > in[0].rank) return TI__NN_FAIL(op, err, "axis %g out of range for rank %d", ax, (int)in[0].rank);
  axis = (int32_t)ax;
  for (i = 0; i < in[0].rank; i++) {
    int64_t *p = i < axis ? &a : &b;
    if (*p < 0 || in[0].dims[i] < 0) *p = -1;
    else *p *= in[0].dims[i];
  }
  out[0].dtype = in[0].dtype;
  out[0].layout = TI_LAYOUT_TENSOR;
  out[0].rank = 2;
  out[0].dims[0] = a; out[0].dims[1] = b;
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_shape_broadcast(const ti_op *op, const ti__nn_desc *in, int32_t n, ti__nn_desc *out, ti_error *err) {
  int64_t shape[TI_MAX_RANK], o[TI_MAX_RANK];
  int64_t r = ti_dict_ints(op->attrs, "shape", shape, TI_MAX_RANK);
  int32_t ro, i;
  (void)n;
  if (r < 0 || r > TI_MAX_RANK) return TI__NN_FAIL(op, err, "attribute 'shape' must be an array of at most 8 ints");
  for (i = 0; i < r; i++) if (shape[i] < 0) return TI__NN_FAIL(op, err, "attribute 'shape' must hold dims >= 0");
  if (in[0].rank > r || !ti__nn_bcast(shape, (int32_t)r, in[0].dims, in[0].rank, o, &ro))
    return TI__NN_FAIL(op, err, "operand does not broadcast to 'shape'");
  for (i = 0; i < r; i++) if (o[i] != shape[i] && o[i] >= 0) return TI__NN_FAIL(op, err, "operand does not broadcast to 'shape'");
  out[0].dtype = in[0].dtype;
  out[0].layout = TI_LAYOUT_TENSOR;
  out[0].rank = (int32_t)r;
  memcpy(out[0].dims, shape, sizeof shape);
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_perm_attr(const ti_op *op, int32_t rank, int32_t *perm, ti_error *err) {
  int64_t p[TI_MAX_RANK];
  int64_t r = ti_dict_ints(op->attrs, "perm", p, TI_MAX_RANK);
  int32_t i;
  if (r != rank) return TI__NN_FAIL(op, err, "attribute 'perm' must list the %d axes", (int)rank);
  for (i = 0; i < rank; i++) perm[i] = (p[i] < 0 || p[i] >= rank) ? -1 : (int32_t)p[i];
  if (!ti__nn_is_perm(perm, rank)) return TI__NN_FAIL(op, err, "attribute 'perm' is not a permutation");
  return TI_STATUS_SUCCESS;
}
/* Layout after moving the axes of l by perm (letters move along). */
static ti_layout ti__nn_perm_layout(ti_layout l, int32_t rank, const int32_t *perm) {
  const char *s = ti__nn_letters(l);
  char t[4];
  int32_t i;
  if (!s || rank != 4) return l;
  for (i = 0; i < 4; i++) t[i] = s[perm[i]];
  l = ti__nn_from_letters(t);
  return l == TI_LAYOUT_ANY ? TI_LAYOUT_TENSOR : l;
}

static ti_status ti__nn_shape_transpose(const ti_op *op, const ti__nn_desc *in, int32_t n, ti__nn_desc *out, ti_error *err) {
  int32_t perm[TI_MAX_RANK], i;
  (void)n;
  TI__NN_TRY(ti__nn_perm_attr(op, in[0].rank, perm, err));
  out[0] = in[0];
  for (i = 0; i < in[0].rank; i++) out[0].dims[i] = in[0].dims[perm[i]];
  out[0].layout = ti__nn_perm_layout(in[0].layout, in[0].rank, perm);
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_axis_attr(const ti_op *op, const char *name, int32_t rank, double dflt, int req, int32_t *axis,
                                  ti_error *err) {
  double a;
  TI__NN_TRY(ti__nn_num(op, name, dflt, req, &a, err));
  if (a < 0) a += rank;
  if (a < 0 || a >= rank || a != floor(a)) return TI__NN_FAIL(op, err, "attribute '%s' out of range for rank %d", name, (int)rank);
  *axis = (int32_t)a;
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_shape_concat(const ti_op *op, const ti__nn_desc *in, int32_t n, ti__nn_desc *out, ti_error *err) {
  ti_layout ls[64];
  int32_t ranks[64], i, j, axis, pax;
  int64_t d[TI_MAX_RANK];
  if (n < 1 || n > 64) return TI__NN_FAIL(op, err, "concat takes 1 to 64 operands");
  for (i = 0; i < n; i++) { ls[i] = in[i].layout; ranks[i] = in[i].rank; }
  TI__NN_TRY(ti__nn_axis_attr(op, "axis", in[0].rank, 0, 1, &axis, err));
  out[0] = in[0];
  out[0].layout = ti__nn_join_layout(ls, ranks, n, in[0].rank);
  pax = ti__nn_phys_axis(out[0].layout, in[0].rank, axis);
  ti__nn_dims_in(&in[0], out[0].layout, out[0].dims);
  for (i = 1; i < n; i++) {
    if (in[i].rank != in[0].rank || in[i].dtype != in[0].dtype)
      return TI__NN_FAIL(op, err, "operand %d differs from operand 0 in rank or dtype", (int)i);
    ti__nn_dims_in(&in[i], out[0].layout, d);
    for (j = 0; j < in[0].rank; j++) {
      if (j == pax) out[0].dims[j] = (out[0].dims[j] < 0 || d[j] < 0) ? -1 : out[0].dims[j] + d[j];
      else if (!ti__nn_dim_eq(out[0].dims[j], d[j]))
        return TI__NN_FAIL(op, err, "operand %d differs in dim %d", (int)i, (int)j);
    }
  }
  return TI_STATUS_SUCCESS;
}

/* Physical begin/end pads of pad(): 2*rank logical, or [t,l,b,r] on H,W. */
static ti_status ti__nn_pads(const ti_op *op, const ti__nn_desc *x, int64_t *beg, int64_t *end, ti_error *err) {
  int64_t p[2 * TI_MAX_RANK];
  int64_t n = ti_dict_ints(op->attrs, "pads", p, 2 * TI_MAX_RANK);
  int32_t r = x->rank, i;
  for (i = 0; i < r; i++) beg[i] = end[i] = 0;
  if (n == 2 * r) {
    for (i = 0; i < r; i++) {
      int32_t ph = ti__nn_phys_axis(x->layout, r, i);
      beg[ph] = p[i]; end[ph] = p[r + i];
    }
  } else if (n == 4 && r == 4) {
    int32_t ph = ti__nn_phys_axis(x->layout, 4, 2), pw = ti__nn_phys_axis(x->layout, 4, 3);
    beg[ph] = p[0]; beg[pw] = p[1]; end[ph] = p[2]; end[pw] = p[3];
  } else {
    return TI__NN_FAIL(op, err, "attribute 'pads' must hold 2*rank (%d) ints, or 4 for 4-D data", (int)(2 * r));
  }
  for (i = 0; i < n; i++) if (p[i] < 0) return TI__NN_FAIL(op, err, "negative pad");
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_shape_pad(const ti_op *op, const ti__nn_desc *in, int32_t n, ti__nn_desc *out, ti_error *err) {
  int64_t b[TI_MAX_RANK], e[TI_MAX_RANK];
  double v;
  int32_t i;
  (void)n;
  TI__NN_TRY(ti__nn_num(op, "value", 0, 0, &v, err));
  TI__NN_TRY(ti__nn_pads(op, &in[0], b, e, err));
  out[0] = in[0];
  for (i = 0; i < in[0].rank; i++) out[0].dims[i] = in[0].dims[i] < 0 ? -1 : in[0].dims[i] + b[i] + e[i];
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_shape_unpool(const ti_op *op, const ti__nn_desc *in, int32_t n, ti__nn_desc *out, ti_error *err) {
  int64_t s[2];
  ti__nn_act a, m;
  TI__NN_TRY(ti__nn_ints(op, "scales", s, 2, ti__nn_two2, 1, err));
  TI__NN_TRY(ti__nn_need(op, &in[0], 0, 4, err));
  ti__nn_act_of(in[0].layout, in[0].dims, &a);
  out[0] = in[0];
  ti__nn_act_dims(in[0].layout, a.n, a.c, a.h < 0 ? -1 : a.h * s[0], a.w < 0 ? -1 : a.w * s[1], out[0].dims);
  if (n == 2) {
    TI__NN_TRY(ti__nn_need(op, &in[1], 1, 4, err));
    ti__nn_act_of(in[1].layout, in[1].dims, &m);
    if (!ti__nn_dim_eq(m.n, a.n) || !ti__nn_dim_eq(m.c, a.c) || !ti__nn_dim_eq(m.h, a.h < 0 ? -1 : a.h * s[0]) ||
        !ti__nn_dim_eq(m.w, a.w < 0 ? -1 : a.w * s[1]))
      return TI__NN_FAIL(op, err, "mask must have the result's shape");
  }
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_shape_mirror(const ti_op *op, const ti__nn_desc *in, int32_t n, ti__nn_desc *out, ti_error *err) {
  int32_t axis;
  (void)n;
  TI__NN_TRY(ti__nn_axis_attr(op, "axis", in[0].rank, 3, 0, &axis, err));
  out[0] = in[0];
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_shape_rotate(const ti_op *op, const ti__nn_desc *in, int32_t n, ti__nn_desc *out, ti_error *err) {
  double k;
  ti__nn_act a;
  (void)n;
  TI__NN_TRY(ti__nn_num(op, "k", 1, 0, &k, err));
  TI__NN_TRY(ti__nn_need(op, &in[0], 0, 4, err));
  if (k != floor(k) || fabs(k) > 1e9) return TI__NN_FAIL(op, err, "attribute 'k' must be an int");
  ti__nn_act_of(in[0].layout, in[0].dims, &a);
  out[0] = in[0];
  if (((int64_t)k % 2 + 2) % 2 == 1) ti__nn_act_dims(in[0].layout, a.n, a.c, a.w, a.h, out[0].dims);
  return TI_STATUS_SUCCESS;
}

/* nchw2nhwc / nhwc2nchw: plain data counts as the layout the name says. */
static ti_layout ti__nn_cvt_src(const ti_op *op, ti_layout l) {
  if (ti__nn_is_act(l)) return l;
  return strcmp(op->info->name, "nn.nhwc2nchw") == 0 ? TI_LAYOUT_NHWC : TI_LAYOUT_NCHW;
}
static ti_status ti__nn_shape_cvt(const ti_op *op, const ti__nn_desc *in, int32_t n, ti__nn_desc *out, ti_error *err) {
  ti__nn_act a;
  (void)n;
  TI__NN_TRY(ti__nn_need(op, &in[0], 0, 4, err));
  ti__nn_act_of(ti__nn_cvt_src(op, in[0].layout), in[0].dims, &a);
  out[0] = in[0];
  out[0].layout = strcmp(op->info->name, "nn.nhwc2nchw") == 0 ? TI_LAYOUT_NCHW : TI_LAYOUT_NHWC;
  ti__nn_act_dims(out[0].layout, a.n, a.c, a.h, a.w, out[0].dims);
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_shape_tnorm(const ti_op *op, const ti__nn_desc *in, int32_t n, ti__nn_desc *out, ti_error *err) {
  ti__nn_act a;
  double eps;
  int32_t i;
  TI__NN_TRY(ti__nn_num(op, "epsilon", 1e-5, 0, &eps, err));
  TI__NN_TRY(ti__nn_need(op, &in[0], 0, 4, err));
  if (in[0].dtype != TI_DTYPE_F32) return TI__NN_FAIL(op, err, "x must be f32");
  ti__nn_act_of(in[0].layout, in[0].dims, &a);
  for (i = 1; i < n; i++) {
    TI__NN_TRY(ti__nn_need(op, &in[i], i, 1, err));
    if (!ti__nn_dim_eq(in[i].dims[0], a.c) || in[i].dtype != TI_DTYPE_F32)
      return TI__NN_FAIL(op, err, "operand %d must be f32 [C]", (int)i);
  }
  out[0] = in[0];
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_shape_bilinear(const ti_op *op, const ti__nn_desc *in, int32_t n, ti__nn_desc *out, ti_error *err) {
  int64_t sz[2];
  double ac;
  ti__nn_act a;
  (void)n;
  TI__NN_TRY(ti__nn_ints(op, "size", sz, 2, NULL, 1, err));
  TI__NN_TRY(ti__nn_num(op, "align_corners", 0, 0, &ac, err));
  TI__NN_TRY(ti__nn_need(op, &in[0], 0, 4, err));
  if (in[0].dtype != TI_DTYPE_F32) return TI__NN_FAIL(op, err, "x must be f32");
  ti__nn_act_of(in[0].layout, in[0].dims, &a);
  if (a.h == 0 || a.w == 0) return TI__NN_FAIL(op, err, "x has an empty spatial dim");
  out[0] = in[0];
  ti__nn_act_dims(in[0].layout, a.n, a.c, sz[0], sz[1], out[0].dims);
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_shape_tin(const ti_op *op, const ti__nn_desc *in, int32_t n, ti__nn_desc *out, ti_error *err) {
  (void)n;
  TI__NN_TRY(ti__nn_need(op, &in[0], 0, 4, err));
  TI__NN_TRY(ti__nn_need(op, &in[1], 1, 2, err));
  if (in[1].dtype != TI_DTYPE_I32) return TI__NN_FAIL(op, err, "shifts must be i32");
  if (!ti__nn_dim_eq(in[0].dims[0], in[1].dims[0])) return TI__NN_FAIL(op, err, "shifts' batch differs from x's");
  if (in[1].dims[1] == 0 || (in[1].dims[1] > 0 && in[0].dims[2] >= 0 && in[0].dims[2] % in[1].dims[1]))
    return TI__NN_FAIL(op, err, "channels (%lld) not divisible by the %lld groups", (long long)in[0].dims[2],
                       (long long)in[1].dims[1]);
  out[0] = in[0];
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_shape_lif(const ti_op *op, const ti__nn_desc *in, int32_t n, ti__nn_desc *out, ti_error *err) {
  int32_t i;
  double v;
  (void)n;
  TI__NN_TRY(ti__nn_num(op, "vth", 1, 0, &v, err));
  TI__NN_TRY(ti__nn_num(op, "v_reset", 0, 0, &v, err));
  TI__NN_TRY(ti__nn_num(op, "decay", 1, 0, &v, err));
  if (in[0].rank != in[1].rank) return TI__NN_FAIL(op, err, "x and v must have one shape");
  for (i = 0; i < in[0].rank; i++)
    if (!ti__nn_dim_eq(in[0].dims[i], in[1].dims[i])) return TI__NN_FAIL(op, err, "x and v must have one shape");
  out[0] = in[0];
  out[1] = in[1];
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_shape_lut(const ti_op *op, const ti__nn_desc *in, int32_t n, ti__nn_desc *out, ti_error *err) {
  double off;
  (void)n;
  TI__NN_TRY(ti__nn_num(op, "offset", 0, 0, &off, err));
  if (!ti__nn_is_int(in[0].dtype)) return TI__NN_FAIL(op, err, "x must be an integer tensor");
  TI__NN_TRY(ti__nn_need(op, &in[1], 1, 1, err));
  out[0] = in[0];
  out[0].dtype = in[1].dtype;
  return TI_STATUS_SUCCESS;
}

/* ---- evaluation (reference semantics) ---- */

static void *ti__nn_au(const ti_op *op) { return op && op->program ? op->program->arena.alloc_user : NULL; }
static void ti__nn_desc_of(const ti_tensor_value *t, ti__nn_desc *d) {
  memset(d, 0, sizeof *d);
  d->dtype = t->dtype;
  d->layout = t->layout;
  d->rank = t->rank;
  memcpy(d->dims, t->dims, sizeof d->dims);
}
/* Runs the op's shape rule on the operand tensors and allocates the results
   (zeroed). On failure the caller frees the results that are not NULL. */
static ti_status ti__nn_prep(const ti_op *op, const ti_tensor_value *const *in, ti_tensor_value **out, ti__nn_desc *od,
                             ti_error *err) {
  const ti__nn_def *def = (const ti__nn_def *)op->info->dialect_data;
  ti__nn_desc id[64];
  int32_t i;
  if (op->n_operands > 64 || op->n_results > 2 || !def || !def->shape)
    return TI__NN_FAIL(op, err, "cannot evaluate this op shape");
  for (i = 0; i < op->n_operands; i++) {
    if (!in[i]) return TI__NN_FAIL(op, err, "operand %d has no value", (int)i);
    ti__nn_desc_of(in[i], &id[i]);
  }
  TI__NN_TRY(def->shape(op, id, op->n_operands, od, err));
  for (i = 0; i < op->n_results; i++) {
    out[i] = ti_tensor_create(ti__nn_au(op), od[i].dtype, od[i].rank, od[i].dims, od[i].layout, NULL, err);
    if (!out[i]) return err ? err->status : TI_STATUS_NO_MEMORY;
  }
  return TI_STATUS_SUCCESS;
}
#define TI__NN_GET(t, f, i) ((f) ? (double)(f)[i] : ti_tensor_get((t), (i)))
static const float *ti__nn_f32(const ti_tensor_value *t) {
  return t->dtype == TI_DTYPE_F32 ? (const float *)t->data : NULL;
}
/* Arithmetic shift right (rounds towards minus infinity) without relying on
   the implementation's >> of negative numbers. */
static int64_t ti__nn_asr(int64_t v, int64_t s) {
  if (s <= 0) return v;
  if (s > 62) return v < 0 ? -1 : 0;
  return v >= 0 ? (v >> s) : -((-(v + 1)) >> s) - 1;
}
/* Stores an accumulator of a quantised op: i8 after shift, else i32 (wraps). */
static void ti__nn_qstore(ti_tensor_value *t, int64_t i, double acc, int64_t shift) {
  int64_t v = (int64_t)acc;
  if (t->dtype == TI_DTYPE_I8) {
    v = ti__nn_asr(v, shift);
    ((int8_t *)t->data)[i] = (int8_t)(v < -128 ? -128 : v > 127 ? 127 : v);
  } else {
    ((int32_t *)t->data)[i] = (int32_t)(uint32_t)(uint64_t)v;
  }
}

static ti_status ti__nn_eval_conv(const ti_op *op, const ti_tensor_value *const *in, ti_tensor_value **out, ti_error *err) {
  ti__nn_desc od[2];
  ti__nn_conv_p p;
  ti__nn_act a, y;
  ti__nn_wgt k;
  const float *xf, *wf, *bf;
  double sh = 0;
  int64_t n, o, oh, ow, ci, kh, kw, og;
  int quant = strcmp(op->info->name, "nn.quant_conv2d") == 0;
  TI__NN_TRY(ti__nn_prep(op, in, out, od, err));
  TI__NN_TRY(ti__nn_conv_params(op, &p, 0, err));
  if (quant) TI__NN_TRY(ti__nn_num(op, "shift", 0, 0, &sh, err));
  ti__nn_act_of(in[0]->layout, in[0]->dims, &a);
  ti__nn_wgt_of(in[1]->layout, in[1]->dims, &k);
  ti__nn_act_of(out[0]->layout, out[0]->dims, &y);
  xf = ti__nn_f32(in[0]); wf = ti__nn_f32(in[1]);
  bf = op->n_operands > 2 ? ti__nn_f32(in[2]) : NULL;
  og = k.o / p.group;
  for (n = 0; n < y.n; n++)
    for (o = 0; o < y.c; o++) {
      int64_t g = o / og;
      double b0 = op->n_operands > 2 ? TI__NN_GET(in[2], bf, o) : 0;
      for (oh = 0; oh < y.h; oh++)
        for (ow = 0; ow < y.w; ow++) {
          double acc = b0;
          for (ci = 0; ci < k.i; ci++) {
            int64_t c = g * k.i + ci;
            for (kh = 0; kh < k.kh; kh++) {
              int64_t ih = oh * p.s[0] - p.p[0] + kh * p.d[0];
              if (ih < 0 || ih >= a.h) continue;
              for (kw = 0; kw < k.kw; kw++) {
                int64_t iw = ow * p.s[1] - p.p[1] + kw * p.d[1];
                if (iw < 0 || iw >= a.w) continue;
                acc += TI__NN_GET(in[0], xf, n * a.sn + c * a.sc + ih * a.sh + iw * a.sw) *
                       TI__NN_GET(in[1], wf, o * k.so + ci * k.si + kh * k.sh + kw * k.sw);
              }
            }
          }
          if (quant) ti__nn_qstore(out[0], n * y.sn + o * y.sc + oh * y.sh + ow * y.sw, acc, (int64_t)sh);
          else ti_tensor_set(out[0], n * y.sn + o * y.sc + oh * y.sh + ow * y.sw, acc);
        }
    }
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_eval_bpa(const ti_op *op, const ti_tensor_value *const *in, ti_tensor_value **out, ti_error *err) {
  ti__nn_desc od[2];
  ti__nn_conv_p p;
  ti__nn_act d, x;
  ti__nn_wgt k;
  double *acc;
  int64_t n, o, oh, ow, ci, kh, kw, og, i;
  TI__NN_TRY(ti__nn_prep(op, in, out, od, err));
  TI__NN_TRY(ti__nn_conv_params(op, &p, 0, err));
  ti__nn_act_of(in[0]->layout, in[0]->dims, &d);
  ti__nn_wgt_of(in[1]->layout, in[1]->dims, &k);
  ti__nn_act_of(out[0]->layout, out[0]->dims, &x);
  og = k.o / p.group;
  acc = (double *)TASKIR_MALLOC(ti__nn_au(op), (size_t)(out[0]->numel ? out[0]->numel : 1) * sizeof(double));
  if (!acc) return ti__nn_fail(op, TI_STATUS_NO_MEMORY, err, "out of memory");
  for (i = 0; i < out[0]->numel; i++) acc[i] = 0;
  /* Scatter: each dy element adds w times itself to the inputs it read. */
  for (n = 0; n < d.n; n++)
    for (o = 0; o < d.c; o++) {
      int64_t g = o / og;
      for (oh = 0; oh < d.h; oh++)
        for (ow = 0; ow < d.w; ow++) {
          double v = ti_tensor_get(in[0], n * d.sn + o * d.sc + oh * d.sh + ow * d.sw);
          for (ci = 0; ci < k.i; ci++)
            for (kh = 0; kh < k.kh; kh++) {
              int64_t ih = oh * p.s[0] - p.p[0] + kh * p.d[0];
              if (ih < 0 || ih >= x.h) continue;
              for (kw = 0; kw < k.kw; kw++) {
                int64_t iw = ow * p.s[1] - p.p[1] + kw * p.d[1];
                if (iw < 0 || iw >= x.w) continue;
                acc[n * x.sn + (g * k.i + ci) * x.sc + ih * x.sh + iw * x.sw] +=
                    v * ti_tensor_get(in[1], o * k.so + ci * k.si + kh * k.sh + kw * k.sw);
              }
            }
        }
    }
  for (i = 0; i < out[0]->numel; i++) ti_tensor_set(out[0], i, acc[i]);
  TASKIR_FREE(ti__nn_au(op), acc);
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_eval_bpw(const ti_op *op, const ti_tensor_value *const *in, ti_tensor_value **out, ti_error *err) {
  ti__nn_desc od[2];
  ti__nn_conv_p p;
  ti__nn_act x, d;
  ti__nn_wgt k;
  int64_t n, o, oh, ow, ci, kh, kw, og;
  TI__NN_TRY(ti__nn_prep(op, in, out, od, err));
  TI__NN_TRY(ti__nn_conv_params(op, &p, 1, err));
  ti__nn_act_of(in[0]->layout, in[0]->dims, &x);
  ti__nn_act_of(in[1]->layout, in[1]->dims, &d);
  ti__nn_wgt_of(out[0]->layout, out[0]->dims, &k);
  og = k.o / p.group;
  for (o = 0; o < k.o; o++)
    for (ci = 0; ci < k.i; ci++)
      for (kh = 0; kh < k.kh; kh++)
        for (kw = 0; kw < k.kw; kw++) {
          int64_t c = (o / og) * k.i + ci;
          double acc = 0;
          for (n = 0; n < d.n; n++)
            for (oh = 0; oh < d.h; oh++) {
              int64_t ih = oh * p.s[0] - p.p[0] + kh * p.d[0];
              if (ih < 0 || ih >= x.h) continue;
              for (ow = 0; ow < d.w; ow++) {
                int64_t iw = ow * p.s[1] - p.p[1] + kw * p.d[1];
                if (iw < 0 || iw >= x.w) continue;
                acc += ti_tensor_get(in[1], n * d.sn + o * d.sc + oh * d.sh + ow * d.sw) *
                       ti_tensor_get(in[0], n * x.sn + c * x.sc + ih * x.sh + iw * x.sw);
              }
            }
          ti_tensor_set(out[0], o * k.so + ci * k.si + kh * k.sh + kw * k.sw, acc);
        }
  return TI_STATUS_SUCCESS;
}

/* Strides of a (rank ra, dims d) operand broadcast into an output of rank r. */
static void ti__nn_bstr(const int64_t *d, int32_t ra, int32_t r, int64_t *str) {
  int64_t s[TI_MAX_RANK];
  int32_t i;
  ti__nn_strides(ra, d, s);
  for (i = 0; i < r; i++) {
    int32_t j = i - (r - ra);
    str[i] = (j < 0 || d[j] == 1) ? 0 : s[j];
  }
}

static ti_status ti__nn_eval_gemm(const ti_op *op, const ti_tensor_value *const *in, ti_tensor_value **out, ti_error *err) {
  ti__nn_desc od[2];
  double ta, tb, alpha = 1, beta = 1, sh = 0;
  int64_t m, nn, kk, i, j, l, cs[2] = {0, 0};
  const float *af, *bf;
  int quant = strcmp(op->info->name, "nn.quant_gemm") == 0;
  TI__NN_TRY(ti__nn_prep(op, in, out, od, err));
  TI__NN_TRY(ti__nn_num(op, "trans_a", 0, 0, &ta, err));
  TI__NN_TRY(ti__nn_num(op, "trans_b", 0, 0, &tb, err));
  if (quant) TI__NN_TRY(ti__nn_num(op, "shift", 0, 0, &sh, err));
  else {
    TI__NN_TRY(ti__nn_num(op, "alpha", 1, 0, &alpha, err));
    TI__NN_TRY(ti__nn_num(op, "beta", 1, 0, &beta, err));
  }
  m = out[0]->dims[0]; nn = out[0]->dims[1];
  kk = in[0]->dims[ta != 0 ? 0 : 1];
  if (op->n_operands > 2) ti__nn_bstr(in[2]->dims, in[2]->rank, 2, cs);
  af = ti__nn_f32(in[0]); bf = ti__nn_f32(in[1]);
  for (i = 0; i < m; i++)
    for (j = 0; j < nn; j++) {
      double acc = 0;
      for (l = 0; l < kk; l++)
        acc += TI__NN_GET(in[0], af, ta != 0 ? l * m + i : i * kk + l) *
               TI__NN_GET(in[1], bf, tb != 0 ? j * kk + l : l * nn + j);
      acc *= alpha;
      if (op->n_operands > 2) acc += beta * ti_tensor_get(in[2], i * cs[0] + j * cs[1]);
      if (quant) ti__nn_qstore(out[0], i * nn + j, acc, (int64_t)sh);
      else ti_tensor_set(out[0], i * nn + j, acc);
    }
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_eval_matmul(const ti_op *op, const ti_tensor_value *const *in, ti_tensor_value **out, ti_error *err) {
  ti__nn_desc od[2];
  double ta, tb;
  int64_t m, nn, kk, batch = 1, bi, i, j, l, abase, bbase;
  int32_t r, q;
  TI__NN_TRY(ti__nn_prep(op, in, out, od, err));
  TI__NN_TRY(ti__nn_num(op, "transpose_a", 0, 0, &ta, err));
  TI__NN_TRY(ti__nn_num(op, "transpose_b", 0, 0, &tb, err));
  r = out[0]->rank;
  m = out[0]->dims[r - 2]; nn = out[0]->dims[r - 1];
  kk = in[0]->dims[r - (ta != 0 ? 2 : 1)];
  for (q = 0; q < r - 2; q++) batch *= out[0]->dims[q];
  for (bi = 0; bi < batch; bi++) {
    abase = bi * m * kk;
    bbase = in[1]->rank == 2 ? 0 : bi * kk * nn;
    for (i = 0; i < m; i++)
      for (j = 0; j < nn; j++) {
        double acc = 0;
        for (l = 0; l < kk; l++)
          acc += ti_tensor_get(in[0], abase + (ta != 0 ? l * m + i : i * kk + l)) *
                 ti_tensor_get(in[1], bbase + (tb != 0 ? j * kk + l : l * nn + j));
        ti_tensor_set(out[0], bi * m * nn + i * nn + j, acc);
      }
  }
  return TI_STATUS_SUCCESS;
}

/* A 4-D CNN operand stored in another layout of the result's family is
   brought to the result's layout first (logical semantics). */
static ti_status ti__nn_conform(const ti_op *op, const ti_tensor_value *t, ti_layout l, ti_tensor_value **tmp,
                                const ti_tensor_value **use, ti_error *err) {
  *tmp = NULL;
  *use = t;
  if (t->rank == 4 && ti_layout_is_cnn(t->layout) && ti_layout_is_cnn(l) && t->layout != l &&
      ti__nn_is_wgt(t->layout) == ti__nn_is_wgt(l)) {
    *tmp = ti_tensor_to_layout(t, l, err);
    if (!*tmp) return TI__NN_FAIL(op, err, "cannot convert an operand to %s", ti_layout_name(l));
    *use = *tmp;
  }
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_eval_binary(const ti_op *op, const ti_tensor_value *const *in, ti_tensor_value **out, ti_error *err) {
  ti__nn_desc od[2];
  ti_tensor_value *ta = NULL, *tb = NULL;
  const ti_tensor_value *a, *b;
  int64_t sa[TI_MAX_RANK], sb[TI_MAX_RANK], idx[TI_MAX_RANK] = {0}, oa = 0, ob = 0, k;
  int32_t r, i;
  char kind = op->info->name[3]; /* a(dd), s(ub), m(ul) */
  ti_status st;
  TI__NN_TRY(ti__nn_prep(op, in, out, od, err));
  st = ti__nn_conform(op, in[0], out[0]->layout, &ta, &a, err);
  if (st == TI_STATUS_SUCCESS) st = ti__nn_conform(op, in[1], out[0]->layout, &tb, &b, err);
  if (st != TI_STATUS_SUCCESS) { ti_tensor_free(ta); return st; }
  r = out[0]->rank;
  ti__nn_bstr(a->dims, a->rank, r, sa);
  ti__nn_bstr(b->dims, b->rank, r, sb);
  for (k = 0; k < out[0]->numel; k++) {
    double x = ti_tensor_get(a, oa), y = ti_tensor_get(b, ob);
    ti_tensor_set(out[0], k, kind == 'a' ? x + y : kind == 's' ? x - y : x * y);
    for (i = r - 1; i >= 0; i--) {
      oa += sa[i]; ob += sb[i];
      if (++idx[i] < out[0]->dims[i]) break;
      oa -= sa[i] * out[0]->dims[i]; ob -= sb[i] * out[0]->dims[i];
      idx[i] = 0;
    }
  }
  ti_tensor_free(ta);
  ti_tensor_free(tb);
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_eval_relu(const ti_op *op, const ti_tensor_value *const *in, ti_tensor_value **out, ti_error *err) {
  ti__nn_desc od[2];
  int64_t i;
  TI__NN_TRY(ti__nn_prep(op, in, out, od, err));
  for (i = 0; i < in[0]->numel; i++) {
    double v = ti_tensor_get(in[0], i);
    ti_tensor_set(out[0], i, v > 0 ? v : 0);
  }
  return TI_STATUS_SUCCESS;
}

/* relu_: the result is the operand itself (same storage), rectified. */
static ti_status ti__nn_eval_relu_(const ti_op *op, const ti_tensor_value *const *in, ti_tensor_value **out, ti_error *err) {
  int64_t i;
  ti_tensor_value *t;
  if (!in[0]) return TI__NN_FAIL(op, err, "operand 0 has no value");
  t = ti_tensor_alias(in[0], in[0]->rank, in[0]->dims, in[0]->layout, err);
  if (!t) return err ? err->status : TI_STATUS_NO_MEMORY;
  out[0] = t;
  for (i = 0; i < t->numel; i++) {
    double v = ti_tensor_get(t, i);
    if (!(v > 0) && v == v) ti_tensor_set(t, i, 0);
  }
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_eval_clip(const ti_op *op, const ti_tensor_value *const *in, ti_tensor_value **out, ti_error *err) {
  ti__nn_desc od[2];
  double lo, hi;
  int64_t i;
  TI__NN_TRY(ti__nn_prep(op, in, out, od, err));
  TI__NN_TRY(ti__nn_num(op, "min", 0, 1, &lo, err));
  TI__NN_TRY(ti__nn_num(op, "max", 0, 1, &hi, err));
  for (i = 0; i < in[0]->numel; i++) {
    double v = ti_tensor_get(in[0], i);
    ti_tensor_set(out[0], i, v < lo ? lo : v > hi ? hi : v);
  }
  return TI_STATUS_SUCCESS;
}

/* max_pool, avg_pool and img2col share the window walk. */
static ti_status ti__nn_eval_window(const ti_op *op, const ti_tensor_value *const *in, ti_tensor_value **out, ti_error *err) {
  ti__nn_desc od[2];
  ti__nn_conv_p p;
  ti__nn_act a, y;
  double cip = 0;
  int64_t n, c, oh, ow, kh, kw;
  char kind = op->info->name[3]; /* m(ax_pool), a(vg_pool), i(mg2col) */
  TI__NN_TRY(ti__nn_prep(op, in, out, od, err));
  TI__NN_TRY(ti__nn_conv_params(op, &p, 1, err));
  if (kind == 'a') TI__NN_TRY(ti__nn_num(op, "count_include_pad", 0, 0, &cip, err));
  ti__nn_act_of(in[0]->layout, in[0]->dims, &a);
  ti__nn_act_of(out[0]->layout, out[0]->dims, &y);
  for (n = 0; n < a.n; n++)
    for (c = 0; c < a.c; c++)
      for (oh = 0; oh < y.h; oh++)
        for (ow = 0; ow < y.w; ow++) {
          double acc = kind == 'm' ? -HUGE_VAL : 0;
          int64_t cnt = 0;
          for (kh = 0; kh < p.k[0]; kh++)
            for (kw = 0; kw < p.k[1]; kw++) {
              int64_t ih = oh * p.s[0] - p.p[0] + kh * p.d[0], iw = ow * p.s[1] - p.p[1] + kw * p.d[1];
              int inside = ih >= 0 && ih < a.h && iw >= 0 && iw < a.w;
              double v = inside ? ti_tensor_get(in[0], n * a.sn + c * a.sc + ih * a.sh + iw * a.sw) : 0;
              if (kind == 'i') {
                int64_t ch = (c * p.k[0] + kh) * p.k[1] + kw;
                ti_tensor_set(out[0], n * y.sn + ch * y.sc + oh * y.sh + ow * y.sw, v);
              } else if (inside) {
                if (kind == 'm') { if (v > acc || v != v) acc = v; }
                else acc += v;
                cnt++;
              }
            }
          if (kind == 'i') continue;
          if (kind == 'a') acc /= (cip != 0 ? (double)(p.k[0] * p.k[1]) : (cnt ? (double)cnt : 1.0));
          ti_tensor_set(out[0], n * y.sn + c * y.sc + oh * y.sh + ow * y.sw, acc);
        }
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_eval_gap(const ti_op *op, const ti_tensor_value *const *in, ti_tensor_value **out, ti_error *err) {
  ti__nn_desc od[2];
  ti__nn_act a, y;
  int64_t n, c, h, w;
  TI__NN_TRY(ti__nn_prep(op, in, out, od, err));
  ti__nn_act_of(in[0]->layout, in[0]->dims, &a);
  ti__nn_act_of(out[0]->layout, out[0]->dims, &y);
  for (n = 0; n < a.n; n++)
    for (c = 0; c < a.c; c++) {
      double acc = 0;
      for (h = 0; h < a.h; h++)
        for (w = 0; w < a.w; w++) acc += ti_tensor_get(in[0], n * a.sn + c * a.sc + h * a.sh + w * a.sw);
      ti_tensor_set(out[0], n * y.sn + c * y.sc, (a.h > 0 && a.w > 0) ? acc / (double)(a.h * a.w) : 0);
    }
  return TI_STATUS_SUCCESS;
}

/* reshape / flatten: the result aliases the operand's storage. */
static ti_status ti__nn_eval_view(const ti_op *op, const ti_tensor_value *const *in, ti_tensor_value **out, ti_error *err) {
  const ti__nn_def *def = (const ti__nn_def *)op->info->dialect_data;
  ti__nn_desc id, od[2];
  if (!in[0]) return TI__NN_FAIL(op, err, "operand 0 has no value");
  ti__nn_desc_of(in[0], &id);
  TI__NN_TRY(def->shape(op, &id, 1, od, err));
  out[0] = ti_tensor_alias(in[0], od[0].rank, od[0].dims, od[0].layout, err);
  return out[0] ? TI_STATUS_SUCCESS : TI__NN_FAIL(op, err, "cannot view the operand with the result's shape");
}

static ti_status ti__nn_eval_broadcast(const ti_op *op, const ti_tensor_value *const *in, ti_tensor_value **out, ti_error *err) {
  ti__nn_desc od[2];
  int64_t s[TI_MAX_RANK], idx[TI_MAX_RANK] = {0}, off = 0, k;
  size_t es = ti_dtype_size(in[0]->dtype);
  int32_t r, i;
  TI__NN_TRY(ti__nn_prep(op, in, out, od, err));
  r = out[0]->rank;
  ti__nn_bstr(in[0]->dims, in[0]->rank, r, s);
  for (k = 0; k < out[0]->numel; k++) {
    memcpy((unsigned char *)out[0]->data + (size_t)k * es, (const unsigned char *)in[0]->data + (size_t)off * es, es);
    for (i = r - 1; i >= 0; i--) {
      off += s[i];
      if (++idx[i] < out[0]->dims[i]) break;
      off -= s[i] * out[0]->dims[i];
      idx[i] = 0;
    }
  }
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_eval_transpose(const ti_op *op, const ti_tensor_value *const *in, ti_tensor_value **out, ti_error *err) {
  ti__nn_desc id, od[2];
  int32_t perm[TI_MAX_RANK];
  if (!in[0]) return TI__NN_FAIL(op, err, "operand 0 has no value");
  ti__nn_desc_of(in[0], &id);
  TI__NN_TRY(ti__nn_shape_transpose(op, &id, 1, od, err));
  TI__NN_TRY(ti__nn_perm_attr(op, in[0]->rank, perm, err));
  out[0] = ti_tensor_permute(in[0], perm, od[0].layout, err);
  return out[0] ? TI_STATUS_SUCCESS : (err ? err->status : TI_STATUS_NO_MEMORY);
}

static ti_status ti__nn_eval_concat(const ti_op *op, const ti_tensor_value *const *in, ti_tensor_value **out, ti_error *err) {
  ti__nn_desc od[2];
  int32_t axis, pax, i, j;
  int64_t outer = 1, inner, pos = 0, o;
  size_t es;
  TI__NN_TRY(ti__nn_prep(op, in, out, od, err));
  TI__NN_TRY(ti__nn_axis_attr(op, "axis", in[0]->rank, 0, 1, &axis, err));
  pax = ti__nn_phys_axis(out[0]->layout, out[0]->rank, axis);
  es = ti_dtype_size(out[0]->dtype);
  for (j = 0; j < pax; j++) outer *= out[0]->dims[j];
  for (i = 0; i < op->n_operands; i++) {
    ti_tensor_value *tmp;
    const ti_tensor_value *t;
    int64_t chunk;
    TI__NN_TRY(ti__nn_conform(op, in[i], out[0]->layout, &tmp, &t, err));
    inner = 1;
    for (j = pax + 1; j < t->rank; j++) inner *= t->dims[j];
    chunk = t->dims[pax] * inner;
    for (o = 0; o < outer; o++)
      memcpy((unsigned char *)out[0]->data + (size_t)((o * out[0]->dims[pax]) * inner + pos) * es,
             (const unsigned char *)t->data + (size_t)(o * chunk) * es, (size_t)chunk * es);
    pos += chunk;
    ti_tensor_free(tmp);
  }
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_eval_pad(const ti_op *op, const ti_tensor_value *const *in, ti_tensor_value **out, ti_error *err) {
  ti__nn_desc od[2], id;
  int64_t b[TI_MAX_RANK], e[TI_MAX_RANK], os[TI_MAX_RANK], idx[TI_MAX_RANK] = {0}, off = 0, k;
  double v;
  size_t es = ti_dtype_size(in[0] ? in[0]->dtype : TI_DTYPE_F32);
  int32_t r, i;
  TI__NN_TRY(ti__nn_prep(op, in, out, od, err));
  TI__NN_TRY(ti__nn_num(op, "value", 0, 0, &v, err));
  ti__nn_desc_of(in[0], &id);
  TI__NN_TRY(ti__nn_pads(op, &id, b, e, err));
  for (k = 0; k < out[0]->numel; k++) ti_tensor_set(out[0], k, v);
  r = in[0]->rank;
  ti__nn_strides(r, out[0]->dims, os);
  for (i = 0; i < r; i++) off += b[i] * os[i];
  for (k = 0; k < in[0]->numel; k++) {
    memcpy((unsigned char *)out[0]->data + (size_t)off * es, (const unsigned char *)in[0]->data + (size_t)k * es, es);
    for (i = r - 1; i >= 0; i--) {
      off += os[i];
      if (++idx[i] < in[0]->dims[i]) break;
      off -= os[i] * in[0]->dims[i];
      idx[i] = 0;
    }
  }
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_eval_unpool(const ti_op *op, const ti_tensor_value *const *in, ti_tensor_value **out, ti_error *err) {
  ti__nn_desc od[2];
  ti__nn_act a, y, m;
  int64_t s[2], n, c, h, w;
  TI__NN_TRY(ti__nn_prep(op, in, out, od, err));
  TI__NN_TRY(ti__nn_ints(op, "scales", s, 2, ti__nn_two2, 1, err));
  ti__nn_act_of(in[0]->layout, in[0]->dims, &a);
  ti__nn_act_of(out[0]->layout, out[0]->dims, &y);
  if (op->n_operands > 1) ti__nn_act_of(in[1]->layout, in[1]->dims, &m);
  for (n = 0; n < y.n; n++)
    for (c = 0; c < y.c; c++)
      for (h = 0; h < y.h; h++)
        for (w = 0; w < y.w; w++) {
          double v = ti_tensor_get(in[0], n * a.sn + c * a.sc + (h / s[0]) * a.sh + (w / s[1]) * a.sw);
          if (op->n_operands > 1 && ti_tensor_get(in[1], n * m.sn + c * m.sc + h * m.sh + w * m.sw) == 0) v = 0;
          ti_tensor_set(out[0], n * y.sn + c * y.sc + h * y.sh + w * y.sw, v);
        }
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_eval_mirror(const ti_op *op, const ti_tensor_value *const *in, ti_tensor_value **out, ti_error *err) {
  ti__nn_desc od[2];
  int64_t st[TI_MAX_RANK], idx[TI_MAX_RANK] = {0}, k, src, n;
  int32_t axis, pax, r, i;
  size_t es;
  TI__NN_TRY(ti__nn_prep(op, in, out, od, err));
  TI__NN_TRY(ti__nn_axis_attr(op, "axis", in[0]->rank, 3, 0, &axis, err));
  r = in[0]->rank;
  pax = ti__nn_phys_axis(in[0]->layout, r, axis);
  ti__nn_strides(r, in[0]->dims, st);
  es = ti_dtype_size(in[0]->dtype);
  n = in[0]->dims[pax];
  for (k = 0; k < in[0]->numel; k++) {
    src = k + (n - 1 - 2 * idx[pax]) * st[pax];
    memcpy((unsigned char *)out[0]->data + (size_t)k * es, (const unsigned char *)in[0]->data + (size_t)src * es, es);
    for (i = r - 1; i >= 0; i--) {
      if (++idx[i] < in[0]->dims[i]) break;
      idx[i] = 0;
    }
  }
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_eval_rotate(const ti_op *op, const ti_tensor_value *const *in, ti_tensor_value **out, ti_error *err) {
  ti__nn_desc od[2];
  ti__nn_act a, y;
  double kd;
  int64_t k, n, c, i, j;
  TI__NN_TRY(ti__nn_prep(op, in, out, od, err));
  TI__NN_TRY(ti__nn_num(op, "k", 1, 0, &kd, err));
  k = (((int64_t)kd) % 4 + 4) % 4;
  ti__nn_act_of(in[0]->layout, in[0]->dims, &a);
  ti__nn_act_of(out[0]->layout, out[0]->dims, &y);
  for (n = 0; n < y.n; n++)
    for (c = 0; c < y.c; c++)
      for (i = 0; i < y.h; i++)
        for (j = 0; j < y.w; j++) {
          /* numpy.rot90: k=1 out[i][j] = in[j][W-1-i]; k=2 in[H-1-i][W-1-j]; k=3 in[H-1-j][i] */
          int64_t si = k == 0 ? i : k == 1 ? j : k == 2 ? a.h - 1 - i : a.h - 1 - j;
          int64_t sj = k == 0 ? j : k == 1 ? a.w - 1 - i : k == 2 ? a.w - 1 - j : i;
          ti_tensor_set(out[0], n * y.sn + c * y.sc + i * y.sh + j * y.sw,
                        ti_tensor_get(in[0], n * a.sn + c * a.sc + si * a.sh + sj * a.sw));
        }
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_eval_cvt(const ti_op *op, const ti_tensor_value *const *in, ti_tensor_value **out, ti_error *err) {
  ti__nn_desc od[2];
  int32_t perm[4];
  TI__NN_TRY(ti__nn_prep(op, in, out, od, err));
  if (!ti__nn_layout_perm(ti__nn_cvt_src(op, in[0]->layout), out[0]->layout, perm))
    return TI__NN_FAIL(op, err, "cannot convert %s data", ti_layout_name(in[0]->layout));
  if (out[0]->numel)
    ti__nn_permute_raw((const unsigned char *)in[0]->data, (unsigned char *)out[0]->data, ti_dtype_size(in[0]->dtype), 4,
                       in[0]->dims, perm);
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_eval_tnorm(const ti_op *op, const ti_tensor_value *const *in, ti_tensor_value **out, ti_error *err) {
  ti__nn_desc od[2];
  ti__nn_act a;
  double eps;
  int64_t n, c, h, w;
  TI__NN_TRY(ti__nn_prep(op, in, out, od, err));
  TI__NN_TRY(ti__nn_num(op, "epsilon", 1e-5, 0, &eps, err));
  ti__nn_act_of(in[0]->layout, in[0]->dims, &a);
  for (n = 0; n < a.n; n++)
    for (h = 0; h < a.h; h++)
      for (w = 0; w < a.w; w++) {
        int64_t base = n * a.sn + h * a.sh + w * a.sw;
        double mean = 0, var = 0, inv;
        for (c = 0; c < a.c; c++) mean += ti_tensor_get(in[0], base + c * a.sc);
        mean /= (double)(a.c ? a.c : 1);
        for (c = 0; c < a.c; c++) {
          double d = ti_tensor_get(in[0], base + c * a.sc) - mean;
          var += d * d;
        }
        var /= (double)(a.c ? a.c : 1);
        inv = 1.0 / sqrt(var + eps);
        for (c = 0; c < a.c; c++) {
          double v = (ti_tensor_get(in[0], base + c * a.sc) - mean) * inv;
          if (op->n_operands > 1) v *= ti_tensor_get(in[1], c);
          if (op->n_operands > 2) v += ti_tensor_get(in[2], c);
          ti_tensor_set(out[0], base + c * a.sc, v);
        }
      }
  return TI_STATUS_SUCCESS;
}

static void ti__nn_lin(int64_t o, int64_t out_n, int64_t in_n, int ac, int64_t *i0, int64_t *i1, double *f) {
  double s = ac ? (out_n > 1 ? (double)o * (double)(in_n - 1) / (double)(out_n - 1) : 0)
                : ((double)o + 0.5) * (double)in_n / (double)out_n - 0.5;
  if (s < 0) s = 0;
  if (s > (double)(in_n - 1)) s = (double)(in_n - 1);
  *i0 = (int64_t)floor(s);
  *i1 = *i0 + 1 < in_n ? *i0 + 1 : in_n - 1;
  *f = s - (double)*i0;
}

static ti_status ti__nn_eval_bilinear(const ti_op *op, const ti_tensor_value *const *in, ti_tensor_value **out, ti_error *err) {
  ti__nn_desc od[2];
  ti__nn_act a, y;
  double ac;
  int64_t n, c, i, j;
  TI__NN_TRY(ti__nn_prep(op, in, out, od, err));
  TI__NN_TRY(ti__nn_num(op, "align_corners", 0, 0, &ac, err));
  ti__nn_act_of(in[0]->layout, in[0]->dims, &a);
  ti__nn_act_of(out[0]->layout, out[0]->dims, &y);
  for (n = 0; n < y.n; n++)
    for (c = 0; c < y.c; c++)
      for (i = 0; i < y.h; i++)
        for (j = 0; j < y.w; j++) {
          int64_t y0, y1, x0, x1, base = n * a.sn + c * a.sc;
          double fy, fx, v;
          ti__nn_lin(i, y.h, a.h, ac != 0, &y0, &y1, &fy);
          ti__nn_lin(j, y.w, a.w, ac != 0, &x0, &x1, &fx);
          v = (1 - fy) * ((1 - fx) * ti_tensor_get(in[0], base + y0 * a.sh + x0 * a.sw) +
                          fx * ti_tensor_get(in[0], base + y0 * a.sh + x1 * a.sw)) +
              fy * ((1 - fx) * ti_tensor_get(in[0], base + y1 * a.sh + x0 * a.sw) +
                    fx * ti_tensor_get(in[0], base + y1 * a.sh + x1 * a.sw));
          ti_tensor_set(out[0], n * y.sn + c * y.sc + i * y.sh + j * y.sw, v);
        }
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_eval_tin(const ti_op *op, const ti_tensor_value *const *in, ti_tensor_value **out, ti_error *err) {
  ti__nn_desc od[2];
  int64_t N, T, C, HW, G, n, t, c;
  size_t es;
  TI__NN_TRY(ti__nn_prep(op, in, out, od, err));
  N = in[0]->dims[0]; T = in[0]->dims[1]; C = in[0]->dims[2]; HW = in[0]->dims[3]; G = in[1]->dims[1];
  es = ti_dtype_size(in[0]->dtype);
  for (n = 0; n < N; n++)
    for (c = 0; c < C; c++) {
      int64_t sh = ((const int32_t *)in[1]->data)[n * G + c / (C / G)];
      for (t = 0; t < T; t++) {
        int64_t src = t - sh;
        if (src < 0 || src >= T) continue; /* zero-filled by prep */
        memcpy((unsigned char *)out[0]->data + (size_t)(((n * T + t) * C + c) * HW) * es,
               (const unsigned char *)in[0]->data + (size_t)(((n * T + src) * C + c) * HW) * es, (size_t)HW * es);
      }
    }
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_eval_lif(const ti_op *op, const ti_tensor_value *const *in, ti_tensor_value **out, ti_error *err) {
  ti__nn_desc od[2];
  double vth, vr, decay;
  int64_t i;
  TI__NN_TRY(ti__nn_prep(op, in, out, od, err));
  TI__NN_TRY(ti__nn_num(op, "vth", 1, 0, &vth, err));
  TI__NN_TRY(ti__nn_num(op, "v_reset", 0, 0, &vr, err));
  TI__NN_TRY(ti__nn_num(op, "decay", 1, 0, &decay, err));
  for (i = 0; i < in[0]->numel; i++) {
    double u = ti_tensor_get(in[1], i) * decay + ti_tensor_get(in[0], i);
    int spike = u > vth;
    ti_tensor_set(out[0], i, spike ? 1 : 0);
    ti_tensor_set(out[1], i, spike ? vr : u);
  }
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_eval_lut(const ti_op *op, const ti_tensor_value *const *in, ti_tensor_value **out, ti_error *err) {
  ti__nn_desc od[2];
  double off;
  int64_t i;
  size_t es;
  TI__NN_TRY(ti__nn_prep(op, in, out, od, err));
  TI__NN_TRY(ti__nn_num(op, "offset", in[0]->dtype == TI_DTYPE_I8 ? 128 : 0, 0, &off, err));
  es = ti_dtype_size(in[1]->dtype);
  for (i = 0; i < in[0]->numel; i++) {
    double x = ti_tensor_get(in[0], i) + off;
    if (x < 0 || x >= (double)in[1]->numel)
      return ti__nn_fail(op, TI_STATUS_BAD_PARAM, err, "index %g (element %lld) is outside the %lld-entry table", x,
                         (long long)i, (long long)in[1]->numel);
    memcpy((unsigned char *)out[0]->data + (size_t)i * es, (const unsigned char *)in[1]->data + (size_t)x * es, es);
  }
  return TI_STATUS_SUCCESS;
}

/* ---- layout interfaces ---- */

static int32_t ti__nn_orank(const ti_op *op, int32_t i) {
  return i < op->n_operands && op->operands[i].value && op->operands[i].value->type ? op->operands[i].value->type->rank : -1;
}
static int32_t ti__nn_rrank(const ti_op *op, int32_t i) {
  return i < op->n_results && op->results[i].type ? op->results[i].type->rank : -1;
}
/* Unary-like ops: results take operand 0's layout; extra operands of the
   same rank follow it, others (tables, per-channel vectors) are TENSOR. */
static ti_status ti__nn_lf_same(const ti_op *op, const ti_layout *in, ti_layout *out) {
  int32_t r;
  for (r = 0; r < op->n_results; r++) out[r] = in[0];
  return TI_STATUS_SUCCESS;
}
static int ti__nn_lb_same(const ti_op *op, const ti_layout *res, ti_layout *in) {
  int32_t i;
  in[0] = res[0];
  for (i = 1; i < op->n_operands; i++) in[i] = ti__nn_orank(op, i) == ti__nn_orank(op, 0) ? res[0] : TI_LAYOUT_TENSOR;
  return 1;
}
static ti_status ti__nn_lf_join(const ti_op *op, const ti_layout *in, ti_layout *out) {
  int32_t ranks[64], i, n = op->n_operands < 64 ? op->n_operands : 64;
  for (i = 0; i < n; i++) ranks[i] = ti__nn_orank(op, i);
  out[0] = ti__nn_join_layout(in, ranks, n, ti__nn_rrank(op, 0) >= 0 ? ti__nn_rrank(op, 0) : ranks[0]);
  return TI_STATUS_SUCCESS;
}
static int ti__nn_lb_join(const ti_op *op, const ti_layout *res, ti_layout *in) {
  int32_t i;
  for (i = 0; i < op->n_operands; i++)
    in[i] = ti__nn_orank(op, i) == ti__nn_rrank(op, 0) ? res[0] : TI_LAYOUT_TENSOR;
  return 1;
}
static ti_status ti__nn_lf_conv(const ti_op *op, const ti_layout *in, ti_layout *out) {
  (void)op;
  out[0] = ti__nn_act_out(in[0]);
  return TI_STATUS_SUCCESS;
}
static int ti__nn_lb_conv(const ti_op *op, const ti_layout *res, ti_layout *in) {
  in[0] = ti__nn_act_out(res[0]);
  in[1] = in[0] == TI_LAYOUT_NHWC ? TI_LAYOUT_HWOI : TI_LAYOUT_OIHW;
  if (op->n_operands > 2) in[2] = TI_LAYOUT_TENSOR;
  return 1;
}
static ti_status ti__nn_lf_bpw(const ti_op *op, const ti_layout *in, ti_layout *out) {
  (void)op;
  out[0] = in[0] == TI_LAYOUT_NHWC ? TI_LAYOUT_HWOI : TI_LAYOUT_OIHW;
  return TI_STATUS_SUCCESS;
}
static int ti__nn_lb_bpw(const ti_op *op, const ti_layout *res, ti_layout *in) {
  (void)op;
  in[0] = in[1] = res[0] == TI_LAYOUT_HWOI ? TI_LAYOUT_NHWC : TI_LAYOUT_NCHW;
  return 1;
}
static ti_status ti__nn_lf_gemm(const ti_op *op, const ti_layout *in, ti_layout *out) {
  (void)op; (void)in;
  out[0] = TI_LAYOUT_NTENSOR;
  return TI_STATUS_SUCCESS;
}
static int ti__nn_lb_gemm(const ti_op *op, const ti_layout *res, ti_layout *in) {
  (void)res;
  in[0] = in[1] = TI_LAYOUT_NTENSOR;
  if (op->n_operands > 2) in[2] = TI_LAYOUT_TENSOR;
  return 1;
}
static ti_status ti__nn_lf_view(const ti_op *op, const ti_layout *in, ti_layout *out) {
  const char *ls = ti_dict_string(op->attrs, "layout", NULL);
  (void)in;
  out[0] = TI_LAYOUT_TENSOR;
  if (ls && ti_op_is(op, "nn.reshape")) {
    out[0] = ti__nn_parse_layout(ls);
    if (out[0] == TI_LAYOUT_COUNT) { out[0] = TI_LAYOUT_TENSOR; return TI_STATUS_BAD_PARAM; }
  }
  return TI_STATUS_SUCCESS;
}
static int ti__nn_lb_none(const ti_op *op, const ti_layout *res, ti_layout *in) {
  (void)op; (void)res; (void)in;
  return 0;
}
static ti_status ti__nn_lf_transpose(const ti_op *op, const ti_layout *in, ti_layout *out) {
  int32_t perm[TI_MAX_RANK], r = ti__nn_orank(op, 0);
  if (ti__nn_perm_attr(op, r, perm, NULL) != TI_STATUS_SUCCESS) return TI_STATUS_INVALID;
  out[0] = ti__nn_perm_layout(in[0], r, perm);
  return TI_STATUS_SUCCESS;
}
static int ti__nn_lb_transpose(const ti_op *op, const ti_layout *res, ti_layout *in) {
  int32_t perm[TI_MAX_RANK], r = ti__nn_orank(op, 0), i;
  const char *t = ti__nn_letters(res[0]);
  char s[4];
  if (r != 4 || !t || ti__nn_perm_attr(op, r, perm, NULL) != TI_STATUS_SUCCESS) return 0;
  for (i = 0; i < 4; i++) s[perm[i]] = t[i];
  in[0] = ti__nn_from_letters(s);
  return in[0] != TI_LAYOUT_ANY;
}
static ti_status ti__nn_lf_cvt(const ti_op *op, const ti_layout *in, ti_layout *out) {
  (void)in;
  out[0] = ti_op_is(op, "nn.nhwc2nchw") ? TI_LAYOUT_NCHW : TI_LAYOUT_NHWC;
  return TI_STATUS_SUCCESS;
}
static int ti__nn_lb_cvt(const ti_op *op, const ti_layout *res, ti_layout *in) {
  (void)res;
  in[0] = ti_op_is(op, "nn.nhwc2nchw") ? TI_LAYOUT_NHWC : TI_LAYOUT_NCHW;
  return 1;
}
static const ti_layout_iface ti__nn_l_same = {ti__nn_lf_same, ti__nn_lb_same};
static const ti_layout_iface ti__nn_l_join = {ti__nn_lf_join, ti__nn_lb_join};
static const ti_layout_iface ti__nn_l_conv = {ti__nn_lf_conv, ti__nn_lb_conv};
static const ti_layout_iface ti__nn_l_bpw = {ti__nn_lf_bpw, ti__nn_lb_bpw};
static const ti_layout_iface ti__nn_l_gemm = {ti__nn_lf_gemm, ti__nn_lb_gemm};
static const ti_layout_iface ti__nn_l_view = {ti__nn_lf_view, ti__nn_lb_none};
static const ti_layout_iface ti__nn_l_transpose = {ti__nn_lf_transpose, ti__nn_lb_transpose};
static const ti_layout_iface ti__nn_l_cvt = {ti__nn_lf_cvt, ti__nn_lb_cvt};

/* ---- verify, infer_shape, fold: shared by every nn op ---- */

static ti_status ti__nn_type_descs(const ti_op *op, ti__nn_desc *d, ti_error *err) {
  int32_t i;
  if (op->n_operands > 64) return TI__NN_FAIL(op, err, "too many operands");
  for (i = 0; i < op->n_operands; i++) {
    const ti_type *t = op->operands[i].value ? op->operands[i].value->type : NULL;
    if (!t) return TI__NN_FAIL(op, err, "operand %d has no type", (int)i);
    memset(&d[i], 0, sizeof d[i]);
    d[i].dtype = t->dtype;
    d[i].layout = t->layout;
    d[i].rank = t->rank;
    memcpy(d[i].dims, t->dims, sizeof d[i].dims);
  }
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_infer(ti_context *ctx, const ti_op *op, const ti_type **results, ti_error *err) {
  const ti__nn_def *def = (const ti__nn_def *)op->info->dialect_data;
  ti__nn_desc in[64], out[2];
  ti_type_kind kind = TI_TYPE_VTENSOR;
  int32_t r;
  TI__NN_TRY(ti__nn_type_descs(op, in, err));
  memset(out, 0, sizeof out);
  TI__NN_TRY(def->shape(op, in, op->n_operands, out, err));
  if (op->n_operands && op->operands[0].value->type) kind = op->operands[0].value->type->kind;
  for (r = 0; r < op->info->num_results && r < 2; r++) {
    results[r] = ti_type_get(ctx, kind, out[r].dtype, out[r].rank, out[r].dims, out[r].layout);
    if (!results[r]) return ti__nn_fail(op, TI_STATUS_NO_MEMORY, err, "cannot create the result type");
  }
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_verify(const ti_op *op, ti_error *err) {
  const ti__nn_def *def = (const ti__nn_def *)op->info->dialect_data;
  ti__nn_desc in[64], out[2];
  int32_t r, i;
  TI__NN_TRY(ti__nn_type_descs(op, in, err));
  memset(out, 0, sizeof out);
  TI__NN_TRY(def->shape(op, in, op->n_operands, out, err));
  for (r = 0; r < op->n_results && r < 2; r++) {
    const ti_type *t = op->results[r].type;
    int ok = t && t->dtype == out[r].dtype && t->rank == out[r].rank;
    for (i = 0; ok && i < t->rank; i++) ok = ti__nn_dim_eq(t->dims[i], out[r].dims[i]);
    if (ok && ti_layout_is_cnn(t->layout) && ti_layout_is_cnn(out[r].layout) && t->layout != out[r].layout) ok = 0;
    if (!ok) {
      char want[160];
      int k = snprintf(want, sizeof want, "%s %s [", ti_dtype_name(out[r].dtype), ti_layout_name(out[r].layout));
      for (i = 0; i < out[r].rank && k > 0 && k < (int)sizeof want - 24; i++)
        k += snprintf(want + k, sizeof want - (size_t)k, i ? "x%lld" : "%lld", (long long)out[r].dims[i]);
      if (k > 0 && k < (int)sizeof want - 2) { want[k] = ']'; want[k + 1] = 0; }
      return TI__NN_FAIL(op, err, "result %d type disagrees with the operands: expected %s", (int)r, want);
    }
  }
  return TI_STATUS_SUCCESS;
}

#ifndef TASKIR_FOLD_MAX_ELEMS
#define TASKIR_FOLD_MAX_ELEMS 65536   /* larger tensors are not folded into attributes */
#endif

static int ti__nn_attr_fill(const ti_attr *a, ti_tensor_value *t, int64_t *pos) {
  int64_t i;
  if (a->kind == TI_ATTR_ARRAY) {
    for (i = 0; i < a->u.array.n; i++)
      if (!ti__nn_attr_fill(a->u.array.items[i], t, pos)) return 0;
    return 1;
  }
  if (*pos >= t->numel) return 0;
  if (a->kind == TI_ATTR_FLOAT) ti_tensor_set(t, (*pos)++, a->u.f);
  else if (a->kind == TI_ATTR_INT || a->kind == TI_ATTR_BOOL) ti_tensor_set(t, (*pos)++, (double)a->u.i);
  else return 0;
  return 1;
}
/* A tensor of static type `type` from a constant attribute: a number
   (splat) or a (nested) array of numel numbers. NULL if it does not fit. */
static ti_tensor_value *ti__nn_tensor_from_attr(void *au, const ti_type *type, const ti_attr *a, ti_error *err) {
  ti_tensor_value *t;
  int64_t pos = 0, i;
  if (!type || !a || ti_type_numel(type) < 0) {
    ti_error_set(err, TI_STATUS_BAD_PARAM, "constant: needs a static type and a value");
    return NULL;
  }
  t = ti_tensor_create(au, type->dtype, type->rank, type->dims, type->layout, NULL, err);
  if (!t) return NULL;
  if (a->kind != TI_ATTR_ARRAY && t->numel >= 1) {
    if (!ti__nn_attr_fill(a, t, &pos)) pos = -1;
    for (i = 1; pos == 1 && i < t->numel; i++) ti_tensor_set(t, i, ti_tensor_get(t, 0));
    if (pos == 1) return t;
  } else if (ti__nn_attr_fill(a, t, &pos) && pos == t->numel) {
    return t;
  }
  ti_tensor_free(t);
  ti_error_set(err, TI_STATUS_BAD_PARAM, "constant: value does not hold %lld numbers", (long long)ti_type_numel(type));
  return NULL;
}
static const ti_attr *ti__nn_attr_from_tensor(ti_context *ctx, const ti_tensor_value *t) {
  const ti_attr *res = NULL;
  int64_t i;
  int ints = ti__nn_is_int(t->dtype);
  void *mem = TASKIR_MALLOC(t->alloc_user, (size_t)(t->numel ? t->numel : 1) * (ints ? sizeof(int64_t) : sizeof(ti_attr *)));
  if (!mem) return NULL;
  if (ints) {
    int64_t *v = (int64_t *)mem;
    for (i = 0; i < t->numel; i++) v[i] = (int64_t)ti_tensor_get(t, i);
    res = ti_attr_int_array(ctx, v, t->numel);
  } else {
    const ti_attr **v = (const ti_attr **)mem;
    for (i = 0; i < t->numel; i++)
      if (!(v[i] = ti_attr_float(ctx, ti_tensor_get(t, i)))) break;
    if (i == t->numel) res = ti_attr_array(ctx, v, t->numel);
  }
  TASKIR_FREE(t->alloc_user, mem);
  return res;
}

/* Fold through eval: constant operands become tensors, the results arrays. */
static int ti__nn_fold(ti_context *ctx, const ti_op *op, const ti_attr *const *operands, const ti_attr **results) {
  ti_tensor_value *in[64], *out[2] = {NULL, NULL};
  ti_eval_fn ev = ti_eval_of(op->info);
  int32_t i, n = op->n_operands, ok = 1;
  if (!ev || n > 64 || op->n_results > 2) return 0;
  for (i = 0; i < n; i++) in[i] = NULL;
  for (i = 0; ok && i < n; i++) {
    const ti_type *t = op->operands[i].value ? op->operands[i].value->type : NULL;
    ok = operands[i] && t && ti_type_numel(t) >= 0 && ti_type_numel(t) <= TASKIR_FOLD_MAX_ELEMS &&
         (in[i] = ti__nn_tensor_from_attr(ti__nn_au(op), t, operands[i], NULL)) != NULL;
  }
  if (ok) ok = ev(op, (const ti_tensor_value *const *)in, out, NULL) == TI_STATUS_SUCCESS;
  for (i = 0; ok && i < op->n_results; i++)
    ok = out[i] && out[i]->numel <= TASKIR_FOLD_MAX_ELEMS && (results[i] = ti__nn_attr_from_tensor(ctx, out[i])) != NULL;
  for (i = 0; i < n; i++) ti_tensor_free(in[i]);
  for (i = 0; i < 2; i++) ti_tensor_free(out[i]);
  return ok;
}

/* ---- the op table ---- */

#define TI__NN_VS (TI_TRAIT_READ_ONLY | TI_TRAIT_VALUE_SEMANTICS | TI_TRAIT_PURE)
#define TI__NN_VSD (TI__NN_VS | TI_TRAIT_LAYOUT_DEMAND)
#define TI__NN_VIEW (TI_TRAIT_VIEW_LIKE | TI_TRAIT_READ_ONLY | TI_TRAIT_PURE)
#define TI__NN_COMM (TI__NN_VS | TI_TRAIT_COMMUTATIVE)

static const ti__nn_def ti__nn_d_conv = {ti__nn_shape_conv}, ti__nn_d_bpa = {ti__nn_shape_bpa},
    ti__nn_d_bpw = {ti__nn_shape_bpw}, ti__nn_d_gemm = {ti__nn_shape_gemm}, ti__nn_d_matmul = {ti__nn_shape_matmul},
    ti__nn_d_binary = {ti__nn_shape_binary}, ti__nn_d_same = {ti__nn_shape_same}, ti__nn_d_clip = {ti__nn_shape_clip},
    ti__nn_d_pool = {ti__nn_shape_pool}, ti__nn_d_gap = {ti__nn_shape_gap}, ti__nn_d_reshape = {ti__nn_shape_reshape},
    ti__nn_d_flatten = {ti__nn_shape_flatten}, ti__nn_d_broadcast = {ti__nn_shape_broadcast},
    ti__nn_d_transpose = {ti__nn_shape_transpose}, ti__nn_d_concat = {ti__nn_shape_concat},
    ti__nn_d_pad = {ti__nn_shape_pad}, ti__nn_d_unpool = {ti__nn_shape_unpool}, ti__nn_d_mirror = {ti__nn_shape_mirror},
    ti__nn_d_rotate = {ti__nn_shape_rotate}, ti__nn_d_cvt = {ti__nn_shape_cvt}, ti__nn_d_tnorm = {ti__nn_shape_tnorm},
    ti__nn_d_bilinear = {ti__nn_shape_bilinear}, ti__nn_d_tin = {ti__nn_shape_tin}, ti__nn_d_lif = {ti__nn_shape_lif},
    ti__nn_d_lut = {ti__nn_shape_lut};

static const char *const ti__nn_req_kernel[] = {"kernel_shape", NULL};
static const char *const ti__nn_req_minmax[] = {"min", "max", NULL};
static const char *const ti__nn_req_shape[] = {"shape", NULL};
static const char *const ti__nn_req_perm[] = {"perm", NULL};
static const char *const ti__nn_req_axis[] = {"axis", NULL};
static const char *const ti__nn_req_pads[] = {"pads", NULL};
static const char *const ti__nn_req_size[] = {"size", NULL};

#define TI__NN_OP(name, req, traits, mn, mx, nr, lay, fold, eval, def) \
  {"nn." name, "nn", req, traits, mn, mx, nr, ti__nn_verify, ti__nn_infer, lay, fold, eval, def}
static const ti_op_info ti__nn_ops[] = {
  TI__NN_OP("conv2d", NULL, TI__NN_VSD, 2, 3, 1, &ti__nn_l_conv, ti__nn_fold, ti__nn_eval_conv, &ti__nn_d_conv),
  TI__NN_OP("quant_conv2d", NULL, TI__NN_VSD, 2, 3, 1, &ti__nn_l_conv, ti__nn_fold, ti__nn_eval_conv, &ti__nn_d_conv),
  TI__NN_OP("conv2d_backprop_input", NULL, TI__NN_VSD, 2, 2, 1, &ti__nn_l_conv, ti__nn_fold, ti__nn_eval_bpa, &ti__nn_d_bpa),
  TI__NN_OP("conv2d_backprop_filter", ti__nn_req_kernel, TI__NN_VSD, 2, 2, 1, &ti__nn_l_bpw, ti__nn_fold, ti__nn_eval_bpw, &ti__nn_d_bpw),
  TI__NN_OP("gemm", NULL, TI__NN_VS, 2, 3, 1, &ti__nn_l_gemm, ti__nn_fold, ti__nn_eval_gemm, &ti__nn_d_gemm),
  TI__NN_OP("quant_gemm", NULL, TI__NN_VS, 2, 3, 1, &ti__nn_l_gemm, ti__nn_fold, ti__nn_eval_gemm, &ti__nn_d_gemm),
  TI__NN_OP("matmul", NULL, TI__NN_VS, 2, 2, 1, &ti__nn_l_gemm, ti__nn_fold, ti__nn_eval_matmul, &ti__nn_d_matmul),
  TI__NN_OP("add", NULL, TI__NN_COMM, 2, 2, 1, &ti__nn_l_join, ti__nn_fold, ti__nn_eval_binary, &ti__nn_d_binary),
  TI__NN_OP("sub", NULL, TI__NN_VS, 2, 2, 1, &ti__nn_l_join, ti__nn_fold, ti__nn_eval_binary, &ti__nn_d_binary),
  TI__NN_OP("mul", NULL, TI__NN_COMM, 2, 2, 1, &ti__nn_l_join, ti__nn_fold, ti__nn_eval_binary, &ti__nn_d_binary),
  TI__NN_OP("relu", NULL, TI__NN_VS, 1, 1, 1, &ti__nn_l_same, ti__nn_fold, ti__nn_eval_relu, &ti__nn_d_same),
  TI__NN_OP("relu_", NULL, TI_TRAIT_INPLACE, 1, 1, 1, &ti__nn_l_same, NULL, ti__nn_eval_relu_, &ti__nn_d_same),
  TI__NN_OP("clip", ti__nn_req_minmax, TI__NN_VS, 1, 1, 1, &ti__nn_l_same, ti__nn_fold, ti__nn_eval_clip, &ti__nn_d_clip),
  TI__NN_OP("max_pool", ti__nn_req_kernel, TI__NN_VS, 1, 1, 1, &ti__nn_l_same, ti__nn_fold, ti__nn_eval_window, &ti__nn_d_pool),
  TI__NN_OP("avg_pool", ti__nn_req_kernel, TI__NN_VS, 1, 1, 1, &ti__nn_l_same, ti__nn_fold, ti__nn_eval_window, &ti__nn_d_pool),
  TI__NN_OP("global_avg_pool", NULL, TI__NN_VS, 1, 1, 1, &ti__nn_l_same, ti__nn_fold, ti__nn_eval_gap, &ti__nn_d_gap),
  TI__NN_OP("reshape", ti__nn_req_shape, TI__NN_VIEW, 1, 1, 1, &ti__nn_l_view, ti__nn_fold, ti__nn_eval_view, &ti__nn_d_reshape),
  TI__NN_OP("flatten", NULL, TI__NN_VIEW, 1, 1, 1, &ti__nn_l_view, ti__nn_fold, ti__nn_eval_view, &ti__nn_d_flatten),
  TI__NN_OP("broadcast", ti__nn_req_shape, TI__NN_VS, 1, 1, 1, &ti__nn_l_view, ti__nn_fold, ti__nn_eval_broadcast, &ti__nn_d_broadcast),
  TI__NN_OP("transpose", ti__nn_req_perm, TI__NN_VIEW, 1, 1, 1, &ti__nn_l_transpose, ti__nn_fold, ti__nn_eval_transpose, &ti__nn_d_transpose),
  TI__NN_OP("concat", ti__nn_req_axis, TI__NN_VSD, 1, -1, 1, &ti__nn_l_join, ti__nn_fold, ti__nn_eval_concat, &ti__nn_d_concat),
  TI__NN_OP("pad", ti__nn_req_pads, TI__NN_VSD, 1, 1, 1, &ti__nn_l_same, ti__nn_fold, ti__nn_eval_pad, &ti__nn_d_pad),
  TI__NN_OP("img2col", ti__nn_req_kernel, TI__NN_VSD, 1, 1, 1, &ti__nn_l_same, ti__nn_fold, ti__nn_eval_window, &ti__nn_d_pool),
  TI__NN_OP("unpool", NULL, TI__NN_VSD, 1, 1, 1, &ti__nn_l_same, ti__nn_fold, ti__nn_eval_unpool, &ti__nn_d_unpool),
  TI__NN_OP("maskunpool", NULL, TI__NN_VSD, 2, 2, 1, &ti__nn_l_same, ti__nn_fold, ti__nn_eval_unpool, &ti__nn_d_unpool),
  TI__NN_OP("mirror", NULL, TI__NN_VSD, 1, 1, 1, &ti__nn_l_same, ti__nn_fold, ti__nn_eval_mirror, &ti__nn_d_mirror),
  TI__NN_OP("rotate", NULL, TI__NN_VSD, 1, 1, 1, &ti__nn_l_same, ti__nn_fold, ti__nn_eval_rotate, &ti__nn_d_rotate),
  TI__NN_OP("nchw2nhwc", NULL, TI__NN_VSD, 1, 1, 1, &ti__nn_l_cvt, ti__nn_fold, ti__nn_eval_cvt, &ti__nn_d_cvt),
  TI__NN_OP("nhwc2nchw", NULL, TI__NN_VSD, 1, 1, 1, &ti__nn_l_cvt, ti__nn_fold, ti__nn_eval_cvt, &ti__nn_d_cvt),
  TI__NN_OP("tensornorm", NULL, TI__NN_VSD, 1, 3, 1, &ti__nn_l_same, ti__nn_fold, ti__nn_eval_tnorm, &ti__nn_d_tnorm),
  TI__NN_OP("bilinear", ti__nn_req_size, TI__NN_VSD, 1, 1, 1, &ti__nn_l_same, ti__nn_fold, ti__nn_eval_bilinear, &ti__nn_d_bilinear),
  TI__NN_OP("tin_shift", NULL, TI__NN_VS, 2, 2, 1, &ti__nn_l_same, ti__nn_fold, ti__nn_eval_tin, &ti__nn_d_tin),
  TI__NN_OP("lif", NULL, TI__NN_VS, 2, 2, 2, &ti__nn_l_same, ti__nn_fold, ti__nn_eval_lif, &ti__nn_d_lif),
  TI__NN_OP("lut", NULL, TI__NN_VS, 2, 2, 1, &ti__nn_l_same, ti__nn_fold, ti__nn_eval_lut, &ti__nn_d_lut)
};
#undef TI__NN_OP

TASKIR_API ti_status ti_nn_register(ti_context *ctx, ti_error *err) {
  const ti_op_info *have;
  if (!ctx) return ti_error_set(err, TI_STATUS_BAD_PARAM, "ti_nn_register: NULL context");
  have = ti_lookup_op(ctx, ti__nn_ops[0].name);
  if (have == &ti__nn_ops[0]) return TI_STATUS_SUCCESS;
  return ti_register_ops(ctx, ti__nn_ops, (int32_t)(sizeof ti__nn_ops / sizeof *ti__nn_ops), err);
}

/* ---- builtin evals and the interpreter ---- */

TASKIR_API ti_status ti__builtin_eval_get_parameter(const ti_op *op, const ti_tensor_value *const *operands,
                                                    ti_tensor_value **results, ti_error *err) {
  const char *name = ti_dict_string(op->attrs, "name", NULL);
  const ti_variable *v = name && op->program ? ti_program_find_var(op->program, name) : NULL;
  (void)operands;
  if (!v) return ti_error_set(err, TI_STATUS_NOT_FOUND, "builtin.get_parameter: no variable '%s' in the weights table",
                              name ? name : "(no name attribute)");
  if (!v->type || (v->data == NULL && v->bytes))
    return ti_error_set(err, TI_STATUS_INVALID, "builtin.get_parameter: variable '%s' has no type or data", name);
  results[0] = ti_tensor_create(ti__nn_au(op), v->type->dtype, v->type->rank, v->type->dims, v->type->layout, NULL, err);
  if (!results[0]) return err ? err->status : TI_STATUS_NO_MEMORY;
  if ((int64_t)((size_t)results[0]->numel * ti_dtype_size(v->type->dtype)) != v->bytes)
    return ti_error_set(err, TI_STATUS_INVALID, "builtin.get_parameter: variable '%s' holds %lld bytes, its type %lld",
                        name, (long long)v->bytes, (long long)((size_t)results[0]->numel * ti_dtype_size(v->type->dtype)));
  if (v->bytes) memcpy(results[0]->data, v->data, (size_t)v->bytes);
  return TI_STATUS_SUCCESS;
}

TASKIR_API ti_status ti__builtin_eval_set_parameter(const ti_op *op, const ti_tensor_value *const *operands,
                                                    ti_tensor_value **results, ti_error *err) {
  const char *name = ti_dict_string(op->attrs, "name", NULL);
  ti_variable *v = name && op->program ? ti_program_find_var(op->program, name) : NULL;
  const ti_tensor_value *t = op->n_operands ? operands[0] : NULL;
  (void)results;
  if (!v) return ti_error_set(err, TI_STATUS_NOT_FOUND, "builtin.set_parameter: no variable '%s' in the weights table",
                              name ? name : "(no name attribute)");
  if (!t || !v->type || t->dtype != v->type->dtype ||
      (int64_t)((size_t)t->numel * ti_dtype_size(t->dtype)) != v->bytes || (v->bytes && !v->data))
    return ti_error_set(err, TI_STATUS_INVALID, "builtin.set_parameter: the value does not fit variable '%s'", name);
  if (v->bytes) memcpy(v->data, t->data, (size_t)v->bytes);
  return TI_STATUS_SUCCESS;
}

/* to_tensor / to_vtensor are deep copies (seed 003 §2.5). */
TASKIR_API ti_status ti__builtin_eval_to_tensor(const ti_op *op, const ti_tensor_value *const *operands,
                                                ti_tensor_value **results, ti_error *err) {
  if (op->n_operands < 1 || !operands[0]) return ti_error_set(err, TI_STATUS_INVALID, "%s: no operand", op->info->name);
  results[0] = ti_tensor_copy(operands[0], err);
  return results[0] ? TI_STATUS_SUCCESS : (err ? err->status : TI_STATUS_NO_MEMORY);
}
TASKIR_API ti_status ti__builtin_eval_to_vtensor(const ti_op *op, const ti_tensor_value *const *operands,
                                                 ti_tensor_value **results, ti_error *err) {
  return ti__builtin_eval_to_tensor(op, operands, results, err);
}

TASKIR_API ti_status ti__builtin_eval_constant(const ti_op *op, const ti_tensor_value *const *operands,
                                               ti_tensor_value **results, ti_error *err) {
  const ti_attr *a = ti_op_attr(op, "value");
  (void)operands;
  if (op->n_results < 1) return ti_error_set(err, TI_STATUS_INVALID, "builtin.constant: no result");
  results[0] = ti__nn_tensor_from_attr(ti__nn_au(op), op->results[0].type, a, err);
  return results[0] ? TI_STATUS_SUCCESS : (err ? err->status : TI_STATUS_BAD_PARAM);
}

TASKIR_API ti_status ti__builtin_eval_return(const ti_op *op, const ti_tensor_value *const *operands,
                                             ti_tensor_value **results, ti_error *err) {
  (void)op; (void)operands; (void)results; (void)err;
  return TI_STATUS_SUCCESS;   /* the interpreter collects return's operands */
}

TASKIR_API ti_eval_fn ti_eval_of(const ti_op_info *info) {
  static const char *const names[] = {"builtin.get_parameter", "builtin.set_parameter", "builtin.to_tensor",
                                      "builtin.to_vtensor", "builtin.constant", "builtin.return"};
  static const ti_eval_fn fns[] = {ti__builtin_eval_get_parameter, ti__builtin_eval_set_parameter,
                                   ti__builtin_eval_to_tensor, ti__builtin_eval_to_vtensor,
                                   ti__builtin_eval_constant, ti__builtin_eval_return};
  size_t i;
  if (!info) return NULL;
  if (info->eval) return info->eval;
  for (i = 0; info->name && i < sizeof names / sizeof *names; i++)
    if (strcmp(info->name, names[i]) == 0) return fns[i];
  return NULL;
}

/* Whether tensor t may stand for a value of type ty (static dims checked). */
static int ti__nn_fits(const ti_tensor_value *t, const ti_type *ty) {
  int32_t i;
  if (!ty) return 1;
  if (t->dtype != ty->dtype || t->rank != ty->rank) return 0;
  for (i = 0; i < t->rank; i++) if (ty->dims[i] >= 0 && ty->dims[i] != t->dims[i]) return 0;
  if (ti_layout_is_cnn(t->layout) && ti_layout_is_cnn(ty->layout) && t->layout != ty->layout) return 0;
  return 1;
}
static void ti__nn_shape_str(char *buf, size_t n, ti_dtype dt, ti_layout l, int32_t rank, const int64_t *dims) {
  int k = snprintf(buf, n, "%s %s [", ti_dtype_name(dt) ? ti_dtype_name(dt) : "?", ti_layout_name(l));
  int32_t i;
  for (i = 0; i < rank && k > 0 && (size_t)k < n - 24; i++)
    k += snprintf(buf + k, n - (size_t)k, i ? "x%lld" : "%lld", (long long)dims[i]);
  if (k > 0 && (size_t)k < n - 2) { buf[k] = ']'; buf[k + 1] = 0; }
}

typedef struct ti__nn_interp {
  void *au;
  int64_t n_slots;
  ti_tensor_value **vals;
  int64_t *last;            /* index of the last op using each slot, -1 none */
  ti__nn_ptrmap base;       /* op -> first slot of its results */
} ti__nn_interp;

static void ti__nn_interp_free(ti__nn_interp *s) {
  int64_t i;
  for (i = 0; s->vals && i < s->n_slots; i++) ti_tensor_free(s->vals[i]);
  if (s->vals) TASKIR_FREE(s->au, s->vals);
  if (s->last) TASKIR_FREE(s->au, s->last);
  ti__nn_ptrmap_free(&s->base);
}
static int64_t ti__nn_slot(const ti_program *p, const ti__nn_interp *s, const ti_value *v) {
  if (!v) return -1;
  if (!v->def) return v->index >= 0 && v->index < p->n_args && p->args[v->index] == v ? v->index : -1;
  {
    int64_t b = ti__nn_ptrmap_get(&s->base, v->def, -1);
    return b < 0 || v->index < 0 || v->index >= v->def->n_results ? -1 : b + v->index;
  }
}

TASKIR_API ti_status ti_interpret(const ti_program *p, const ti_tensor_value *const *inputs, int32_t n_inputs,
                                  ti_tensor_value **outputs, int32_t *n_outputs, ti_error *err) {
  ti__nn_interp s;
  const ti_op *op;
  const ti_tensor_value *opnds[64];
  ti_tensor_value *res[8];
  int64_t n_ops = 0, slots, i, k;
  int32_t cap, j;
  ti_status st = TI_STATUS_SUCCESS;
  if (!p || !n_outputs || (n_inputs && !inputs) || (*n_outputs && !outputs))
    return ti_error_set(err, TI_STATUS_BAD_PARAM, "ti_interpret: NULL program, inputs or outputs");
  cap = *n_outputs;
  *n_outputs = 0;
  if (p->kind != TI_PROGRAM_SSA)
    return ti_error_set(err, TI_STATUS_NOT_SUPPORTED, "ti_interpret: only SSA programs run in program order");
  if (n_inputs != p->n_args)
    return ti_error_set(err, TI_STATUS_BAD_PARAM, "ti_interpret: program '%s' takes %d inputs, %d given",
                        p->name ? p->name : "", (int)p->n_args, (int)n_inputs);
  memset(&s, 0, sizeof s);
  s.au = p->arena.alloc_user;
  slots = p->n_args;
  for (op = p->first; op; op = op->next) { n_ops++; slots += op->n_results; }
  s.n_slots = slots;
  s.vals = (ti_tensor_value **)TASKIR_MALLOC(s.au, (size_t)(slots ? slots : 1) * sizeof *s.vals);
  s.last = (int64_t *)TASKIR_MALLOC(s.au, (size_t)(slots ? slots : 1) * sizeof *s.last);
  if (!s.vals || !s.last || !ti__nn_ptrmap_init(&s.base, n_ops, s.au)) {
    ti__nn_interp_free(&s);
    return ti_error_set(err, TI_STATUS_NO_MEMORY, "ti_interpret: out of memory");
  }
  for (i = 0; i < slots; i++) { s.vals[i] = NULL; s.last[i] = -1; }
  /* Number the values and find each one's last use. */
  slots = p->n_args;
  for (op = p->first, i = 0; op; op = op->next, i++) {
    for (j = 0; j < op->n_operands; j++) {
      int64_t sl = ti__nn_slot(p, &s, op->operands[j].value);
      if (sl < 0) {
        ti__nn_interp_free(&s);
        return ti_error_set(err, TI_STATUS_INVALID, "ti_interpret: operand %d of op %lld (%s) is not defined before it",
                            (int)j, (long long)i, op->info ? op->info->name : "?");
      }
      s.last[sl] = i;
    }
    if (op->n_operands > 64 || op->n_results > 8) {
      ti__nn_interp_free(&s);
      return ti_error_set(err, TI_STATUS_NOT_SUPPORTED, "ti_interpret: op %lld (%s) has too many operands or results",
                          (long long)i, op->info ? op->info->name : "?");
    }
    ti__nn_ptrmap_put(&s.base, op, slots);
    slots += op->n_results;
  }
  /* Inputs are copied: in-place ops must not write the caller's tensors. */
  for (j = 0; j < p->n_args; j++) {
    const ti_type *ty = p->args[j]->type;
    const ti_tensor_value *in = inputs[j];
    char have[96], want[96];
    if (!in) st = ti_error_set(err, TI_STATUS_BAD_PARAM, "ti_interpret: input %d is NULL", (int)j);
    else if (ty && in->rank == 4 && ti_layout_is_cnn(ty->layout) && in->layout != ty->layout && ti_layout_is_cnn(in->layout))
      s.vals[j] = ti_tensor_to_layout(in, ty->layout, err);
    else {
      s.vals[j] = ti_tensor_copy(in, err);
      if (s.vals[j] && ty && ty->layout != TI_LAYOUT_ANY) s.vals[j]->layout = ty->layout;
    }
    if (st == TI_STATUS_SUCCESS && !s.vals[j]) st = err ? err->status : TI_STATUS_NO_MEMORY;
    if (st == TI_STATUS_SUCCESS && !ti__nn_fits(s.vals[j], ty)) {
      ti__nn_shape_str(have, sizeof have, in->dtype, in->layout, in->rank, in->dims);
      ti__nn_shape_str(want, sizeof want, ty->dtype, ty->layout, ty->rank, ty->dims);
      st = ti_error_set(err, TI_STATUS_BAD_PARAM, "ti_interpret: input %d is %s, the program wants %s", (int)j, have, want);
    }
    if (st != TI_STATUS_SUCCESS) { ti__nn_interp_free(&s); return st; }
  }
  for (op = p->first, i = 0; op; op = op->next, i++) {
    ti_eval_fn ev;
    int64_t b = ti__nn_ptrmap_get(&s.base, op, 0);
    for (j = 0; j < op->n_operands; j++) opnds[j] = s.vals[ti__nn_slot(p, &s, op->operands[j].value)];
    if (op->info && op->info->traits & TI_TRAIT_TERMINATOR) {
      if (op->n_operands > cap) {
        st = ti_error_set(err, TI_STATUS_LIMIT, "ti_interpret: the program returns %d values, room for %d",
                          (int)op->n_operands, (int)cap);
        break;
      }
      for (j = 0; j < op->n_operands; j++) {
        outputs[j] = ti_tensor_copy(opnds[j], err);
        if (!outputs[j]) {
          while (j-- > 0) { ti_tensor_free(outputs[j]); outputs[j] = NULL; }
          st = err ? err->status : TI_STATUS_NO_MEMORY;
          break;
        }
      }
      if (st == TI_STATUS_SUCCESS) *n_outputs = op->n_operands;
      break;
    }
    ev = ti_eval_of(op->info);
    if (!ev) {
      st = ti_error_set(err, TI_STATUS_NOT_SUPPORTED, "ti_interpret: op %lld (%s) has no eval", (long long)i,
                        op->info && op->info->name ? op->info->name : "?");
      break;
    }
    for (j = 0; j < op->n_results; j++) res[j] = NULL;
    st = ev(op, opnds, res, err);
    for (j = 0; st == TI_STATUS_SUCCESS && j < op->n_results; j++) {
      char have[96], want[96];
      const ti_type *ty = op->results[j].type;
      if (!res[j]) st = ti_error_set(err, TI_STATUS_INVALID, "ti_interpret: %s gave no result %d", op->info->name, (int)j);
      else if (!ti__nn_fits(res[j], ty)) {
        ti__nn_shape_str(have, sizeof have, res[j]->dtype, res[j]->layout, res[j]->rank, res[j]->dims);
        ti__nn_shape_str(want, sizeof want, ty->dtype, ty->layout, ty->rank, ty->dims);
        st = ti_error_set(err, TI_STATUS_INVALID, "ti_interpret: op %lld (%s) result %d is %s, its type says %s",
                          (long long)i, op->info->name, (int)j, have, want);
      }
    }
    if (st != TI_STATUS_SUCCESS) {
      for (j = 0; j < op->n_results; j++) ti_tensor_free(res[j]);
      break;
    }
    for (j = 0; j < op->n_results; j++) {
      if (s.last[b + j] < 0) ti_tensor_free(res[j]);   /* unused result */
      else s.vals[b + j] = res[j];
    }
    for (j = 0; j < op->n_operands; j++) {
      k = ti__nn_slot(p, &s, op->operands[j].value);
      if (s.last[k] == i && s.vals[k]) { ti_tensor_free(s.vals[k]); s.vals[k] = NULL; }
    }
  }
  ti__nn_interp_free(&s);
  return st;
}

/* >>impl.passes ------------------------------------------------------------- */

/* A value nobody mutates or aliases: a vtensor, or a tensor that is not a
   view and whose users only read it (seed 003 §2.5.1, Pass 2). */
static int ti__nn_stable(const ti_value *v) {
  const ti_use *u;
  if (v->type && v->type->kind == TI_TYPE_VTENSOR) return 1;
  if (v->def && ti_op_has_trait(v->def, TI_TRAIT_VIEW_LIKE | TI_TRAIT_INPLACE)) return 0;
  for (u = v->first_use; u; u = u->next) {
    const ti_op *o = u->owner;
    if (ti_op_has_trait(o, TI_TRAIT_INPLACE)) return 0;
    if (ti_op_has_trait(o, TI_TRAIT_VIEW_LIKE)) {
      if (o->n_results && o->results[0].type && o->results[0].type->kind == TI_TYPE_VTENSOR) continue;
      return 0;
    }
    if (ti_op_has_trait(o, TI_TRAIT_READ_ONLY)) continue;
    if (ti_op_is(o, "builtin.to_vtensor") || ti_op_is(o, "builtin.to_tensor") || ti_op_is(o, "builtin.return") ||
        ti_op_is(o, "builtin.set_parameter"))
      continue;
    return 0;
  }
  return 1;
}

static int ti__nn_removable(const ti_op *op) {
  int32_t i;
  if (!ti_op_has_trait(op, TI_TRAIT_PURE) || ti_op_has_trait(op, TI_TRAIT_TERMINATOR)) return 0;
  for (i = 0; i < op->n_results; i++) if (op->results[i].first_use) return 0;
  return 1;
}

TASKIR_API ti_status ti_pass_dce(ti_program *p, void *user, ti_error *err) {
  ti_op *op, *prev;
  (void)user;
  /* Reverse order: an op's producers come earlier and die in the same sweep. */
  for (op = p->last; op; op = prev) {
    prev = op->prev;
    if (ti__nn_removable(op)) TI__NN_TRY(ti_op_erase(op, err));
  }
  return TI_STATUS_SUCCESS;
}

/* Operand i of op in canonical order (commutative ops: first two sorted). */
static const ti_value *ti__nn_cse_operand(const ti_op *op, int32_t i) {
  if (op->n_operands >= 2 && i < 2 && ti_op_has_trait(op, TI_TRAIT_COMMUTATIVE)) {
    const ti_value *a = op->operands[0].value, *b = op->operands[1].value;
    int swap = (uintptr_t)a > (uintptr_t)b;
    return (i == 0) != swap ? a : b;
  }
  return op->operands[i].value;
}
static uint64_t ti__nn_cse_hash(const ti_op *op) {
  uint64_t h = (uint64_t)ti__nn_ptrhash(op->info) ^ ((uint64_t)ti__nn_ptrhash(op->attrs) * 31u);
  int32_t i;
  for (i = 0; i < op->n_operands; i++) h = h * 1000003u ^ (uint64_t)ti__nn_ptrhash(ti__nn_cse_operand(op, i));
  for (i = 0; i < op->n_results; i++) h = h * 1000003u ^ (uint64_t)ti__nn_ptrhash(op->results[i].type);
  return h;
}
static int ti__nn_cse_eq(const ti_op *a, const ti_op *b) {
  int32_t i;
  if (a->info != b->info || a->attrs != b->attrs || a->n_operands != b->n_operands || a->n_results != b->n_results)
    return 0;
  for (i = 0; i < a->n_operands; i++) if (ti__nn_cse_operand(a, i) != ti__nn_cse_operand(b, i)) return 0;
  for (i = 0; i < a->n_results; i++) if (a->results[i].type != b->results[i].type) return 0;
  return 1;
}
static int ti__nn_cse_ok(const ti_program *p, const ti_op *op) {
  int32_t i;
  if (!ti_op_has_trait(op, TI_TRAIT_PURE) || ti_op_has_trait(op, TI_TRAIT_TERMINATOR) || op->n_results < 1 || op->props)
    return 0;
  if (ti_op_is(op, "builtin.get_parameter")) {
    const ti_variable *v = ti_program_find_var(p, ti_dict_string(op->attrs, "name", ""));
    if (!v || v->is_mutable) return 0;
  }
  for (i = 0; i < op->n_operands; i++) if (!ti__nn_stable(op->operands[i].value)) return 0;
  return 1;
}

TASKIR_API ti_status ti_pass_cse(ti_program *p, void *user, ti_error *err) {
  void *au = p->arena.alloc_user;
  ti_op **tab, *op, *next;
  int64_t cap = 16, i;
  (void)user;
  while (cap < 2 * p->n_ops + 2) cap *= 2;
  tab = (ti_op **)TASKIR_MALLOC(au, (size_t)cap * sizeof *tab);
  if (!tab) return ti_error_set(err, TI_STATUS_NO_MEMORY, "cse: out of memory");
  for (i = 0; i < cap; i++) tab[i] = NULL;
  for (op = p->first; op; op = next) {
    size_t h;
    next = op->next;
    if (!ti__nn_cse_ok(p, op)) continue;
    h = (size_t)ti__nn_cse_hash(op) & (size_t)(cap - 1);
    while (tab[h] && !ti__nn_cse_eq(tab[h], op)) h = (h + 1) & (size_t)(cap - 1);
    if (!tab[h]) { tab[h] = op; continue; }
    /* program order: tab[h] comes first and its operands are op's. */
    for (i = 0; i < op->n_results; i++) ti_value_replace_all_uses(&op->results[i], &tab[h]->results[i]);
    if (ti_op_erase(op, err) != TI_STATUS_SUCCESS) { TASKIR_FREE(au, tab); return err ? err->status : TI_STATUS_INVALID; }
  }
  TASKIR_FREE(au, tab);
  return TI_STATUS_SUCCESS;
}

/* The constant attribute behind v: a builtin.constant's value, or the data
   of an immutable variable read by get_parameter. NULL otherwise. */
static const ti_attr *ti__nn_const_attr(ti_program *p, const ti_value *v) {
  const ti_op *d = v->def;
  if (!d) return NULL;
  if (ti_op_is(d, "builtin.constant")) return ti_op_attr(d, "value");
  if (ti_op_is(d, "builtin.get_parameter")) {
    const ti_variable *var = ti_program_find_var(p, ti_dict_string(d->attrs, "name", ""));
    ti_tensor_value *t;
    const ti_attr *a;
    if (!var || var->is_mutable || !var->type || ti_type_numel(var->type) < 0 ||
        ti_type_numel(var->type) > TASKIR_FOLD_MAX_ELEMS || (int64_t)((size_t)ti_type_numel(var->type) * ti_dtype_size(var->type->dtype)) != var->bytes)
      return NULL;
    t = ti_tensor_create(p->arena.alloc_user, var->type->dtype, var->type->rank, var->type->dims, var->type->layout,
                         var->data, NULL);
    if (!t) return NULL;
    a = ti__nn_attr_from_tensor(p->ctx, t);
    ti_tensor_free(t);
    return a;
  }
  return NULL;
}

TASKIR_API ti_status ti_pass_constant_fold(ti_program *p, void *user, ti_error *err) {
  ti_op *op, *next;
  const ti_attr *in[64], *res[8];
  int32_t i;
  (void)user;
  for (op = p->first; op; op = next) {
    int ok = 1;
    next = op->next;
    if (!op->info->fold || op->n_operands == 0 || op->n_operands > 64 || op->n_results > 8 ||
        ti_op_has_trait(op, TI_TRAIT_CONSTANT_LIKE) || !ti_op_has_trait(op, TI_TRAIT_PURE))
      continue;
    for (i = 0; ok && i < op->n_operands; i++) ok = (in[i] = ti__nn_const_attr(p, op->operands[i].value)) != NULL;
    for (i = 0; i < op->n_results; i++) res[i] = NULL;
    if (!ok || !op->info->fold(p->ctx, op, in, res)) continue;
    for (i = 0; i < op->n_results; i++) {
      ti_named_attr na;
      const ti_attr *d;
      ti_op *c;
      if (!res[i]) return ti_error_set(err, TI_STATUS_INVALID, "constant-fold: %s folded without result %d", op->info->name, (int)i);
      na = ti_named(p->ctx, "value", res[i]);
      d = ti_attr_dict(p->ctx, &na, 1);
      c = d ? ti_op_create(p, "builtin.constant", 0, NULL, 1, &op->results[i].type, d, err) : NULL;
      if (!c) return err && err->status ? err->status : ti_error_set(err, TI_STATUS_NO_MEMORY, "constant-fold: out of memory");
      ti_op_insert_before(c, op);
      ti_value_replace_all_uses(&op->results[i], &c->results[0]);
    }
    TI__NN_TRY(ti_op_erase(op, err));
  }
  return TI_STATUS_SUCCESS;
}

/* Ops of the program in order (TASKIR_MALLOC'd), optionally only those
   named `name` or having `trait`. */
static ti_op **ti__nn_collect(ti_program *p, const char *name, uint32_t trait, int64_t *n) {
  ti_op **v = (ti_op **)TASKIR_MALLOC(p->arena.alloc_user, (size_t)(p->n_ops + 1) * sizeof *v);
  ti_op *op;
  int64_t k = 0;
  if (!v) return NULL;
  for (op = p->first; op && k <= p->n_ops; op = op->next)
    if ((!name || ti_op_is(op, name)) && (!trait || ti_op_has_trait(op, trait))) v[k++] = op;
  *n = k;
  return v;
}

static ti_op *ti__nn_convert(ti_program *p, const char *name, ti_value *v, ti_type_kind kind, ti_error *err) {
  const ti_type *t = ti_type_with_kind(p->ctx, v->type, kind);
  if (!t) { ti_error_set(err, TI_STATUS_NO_MEMORY, "maximize-value-semantics: out of memory"); return NULL; }
  return ti_op_create(p, name, 1, &v, 1, &t, NULL, err);
}

TASKIR_API ti_status ti_pass_maximize_value_semantics(ti_program *p, void *user, ti_error *err) {
  void *au = p->arena.alloc_user;
  ti_op **ops;
  int64_t n, k;
  int32_t i;
  ti__nn_ptrmap first;
  (void)user;
  /* Pass 1: value-semantic ops read and write vtensors; copies keep the
     surrounding tensor types. */
  if (!(ops = ti__nn_collect(p, NULL, TI_TRAIT_VALUE_SEMANTICS, &n)))
    return ti_error_set(err, TI_STATUS_NO_MEMORY, "maximize-value-semantics: out of memory");
  for (k = 0; k < n; k++) {
    ti_op *op = ops[k], *after = op;
    if (ti_op_is(op, "builtin.to_tensor") || ti_op_is(op, "builtin.to_vtensor")) continue;
    for (i = 0; i < op->n_operands; i++) {
      ti_value *v = op->operands[i].value;
      ti_op *c;
      if (!v->type || v->type->kind != TI_TYPE_TENSOR) continue;
      if (!(c = ti__nn_convert(p, "builtin.to_vtensor", v, TI_TYPE_VTENSOR, err))) goto fail;
      ti_op_insert_before(c, op);
      ti_op_set_operand(op, i, &c->results[0]);
    }
    for (i = 0; i < op->n_results; i++) {
      ti_value *r = &op->results[i];
      const ti_type *vt;
      ti_op *c;
      if (!r->type || r->type->kind != TI_TYPE_TENSOR) continue;
      if (!(vt = ti_type_with_kind(p->ctx, r->type, TI_TYPE_VTENSOR))) {
        ti_error_set(err, TI_STATUS_NO_MEMORY, "maximize-value-semantics: out of memory");
        goto fail;
      }
      if (!(c = ti__nn_convert(p, "builtin.to_tensor", r, TI_TYPE_TENSOR, err))) goto fail;
      r->type = vt;
      ti_op_insert_after(c, after);
      after = c;
      ti_value_replace_uses_except(r, &c->results[0], c);
    }
  }
  TASKIR_FREE(au, ops);
  /* Pass 2: b = to_tensor(a) whose b nobody mutates or aliases is a itself:
     to_vtensor(b) becomes a, and b goes when unused. */
  if (!(ops = ti__nn_collect(p, "builtin.to_tensor", 0, &n)))
    return ti_error_set(err, TI_STATUS_NO_MEMORY, "maximize-value-semantics: out of memory");
  for (k = 0; k < n; k++) {
    ti_op *t = ops[k];
    ti_value *b = &t->results[0], *a = t->operands[0].value;
    ti_use *u, *next;
    if (!ti__nn_stable(b) || !a->type || a->type->kind != TI_TYPE_VTENSOR) continue;
    for (u = b->first_use; u; u = next) {
      ti_op *c = u->owner;
      next = u->next;
      while (next && next->owner == c) next = next->next;
      if (!ti_op_is(c, "builtin.to_vtensor") || c->results[0].type != a->type) continue;
      ti_value_replace_all_uses(&c->results[0], a);
      if (ti_op_erase(c, err) != TI_STATUS_SUCCESS) goto fail;
    }
    if (!b->first_use && ti_op_erase(t, err) != TI_STATUS_SUCCESS) goto fail;
  }
  TASKIR_FREE(au, ops);
  /* Copies of one unmutated tensor are one value. */
  if (!(ops = ti__nn_collect(p, "builtin.to_vtensor", 0, &n)))
    return ti_error_set(err, TI_STATUS_NO_MEMORY, "maximize-value-semantics: out of memory");
  if (!ti__nn_ptrmap_init(&first, n, au)) {
    ti_error_set(err, TI_STATUS_NO_MEMORY, "maximize-value-semantics: out of memory");
    goto fail;
  }
  for (k = 0; k < n; k++) {
    ti_op *c = ops[k];
    ti_value *x = c->operands[0].value;
    int64_t f;
    if (!ti__nn_stable(x)) continue;
    f = ti__nn_ptrmap_get(&first, x, -1);
    if (f < 0) { ti__nn_ptrmap_put(&first, x, k); continue; }
    if (ops[f]->results[0].type != c->results[0].type) continue;
    ti_value_replace_all_uses(&c->results[0], &ops[f]->results[0]);
    if (ti_op_erase(c, err) != TI_STATUS_SUCCESS) { ti__nn_ptrmap_free(&first); goto fail; }
  }
  ti__nn_ptrmap_free(&first);
  TASKIR_FREE(au, ops);
  return TI_STATUS_SUCCESS;
fail:
  TASKIR_FREE(au, ops);
  return err && err->status ? err->status : TI_STATUS_NO_MEMORY;
}

TASKIR_API ti_status ti_pass_inplace_to_outofplace(ti_program *p, void *user, ti_error *err) {
  void *au = p->arena.alloc_user;
  ti_op **ops, *op;
  int64_t n, k, ord = 0;
  (void)user;
  for (op = p->first; op; op = op->next) op->order = ord++;
  if (!(ops = ti__nn_collect(p, NULL, TI_TRAIT_INPLACE, &n)))
    return ti_error_set(err, TI_STATUS_NO_MEMORY, "inplace-to-outofplace: out of memory");
  for (k = 0; k < n; k++) {
    ti_op *ip = ops[k], *nw;
    char name[128];
    size_t len = strlen(ip->info->name);
    ti_value *a, *vals[64];
    const ti_type *types[8];
    ti_use *u, *next;
    int32_t i, aliased = 0;
    if (len < 2 || len >= sizeof name || ip->info->name[len - 1] != '_' || ip->n_operands < 1 ||
        ip->n_operands > 64 || ip->n_results > 8)
      continue;
    memcpy(name, ip->info->name, len - 1);
    name[len - 1] = 0;
    if (!ti_lookup_op(p->ctx, name)) continue;
    a = ip->operands[0].value;
    /* Another alias of a would see the write too: leave those alone. */
    if (a->def && ti_op_has_trait(a->def, TI_TRAIT_VIEW_LIKE)) continue;
    for (u = a->first_use; u; u = u->next)
      if (u->owner != ip && ti_op_has_trait(u->owner, TI_TRAIT_VIEW_LIKE)) aliased = 1;
    if (aliased) continue;
    for (i = 0; i < ip->n_operands; i++) vals[i] = ip->operands[i].value;
    for (i = 0; i < ip->n_results; i++) types[i] = ip->results[i].type;
    nw = ti_op_create(p, name, ip->n_operands, vals, ip->n_results, types, ip->attrs, err);
    if (!nw) { TASKIR_FREE(au, ops); return err && err->status ? err->status : TI_STATUS_NO_MEMORY; }
    ti_op_insert_before(nw, ip);
    nw->order = ip->order;
    for (i = 0; i < ip->n_results; i++) ti_value_replace_all_uses(&ip->results[i], &nw->results[i]);
    /* Later readers of a read the written buffer: the new result. */
    for (u = a->first_use; u; u = next) {
      next = u->next;
      if (u->owner != ip && u->owner != nw && u->owner->order > ip->order) ti_op_set_operand(u->owner, u->index, &nw->results[0]);
    }
    if (ti_op_erase(ip, err) != TI_STATUS_SUCCESS) { TASKIR_FREE(au, ops); return err ? err->status : TI_STATUS_INVALID; }
  }
  TASKIR_FREE(au, ops);
  return TI_STATUS_SUCCESS;
}

static const ti_pass ti__nn_passes[] = {
  {"dce", ti_pass_dce, NULL},
  {"cse", ti_pass_cse, NULL},
  {"constant-fold", ti_pass_constant_fold, NULL},
  {"maximize-value-semantics", ti_pass_maximize_value_semantics, NULL},
  {"inplace-to-outofplace", ti_pass_inplace_to_outofplace, NULL}
};

TASKIR_API const ti_pass *ti_generic_passes(int32_t *n) {
  if (n) *n = (int32_t)(sizeof ti__nn_passes / sizeof *ti__nn_passes);
  return ti__nn_passes;
}

TASKIR_API const ti_pass *ti_find_pass(const char *name) {
  size_t i;
  for (i = 0; name && i < sizeof ti__nn_passes / sizeof *ti__nn_passes; i++)
    if (strcmp(ti__nn_passes[i].name, name) == 0) return &ti__nn_passes[i];
  return NULL;
}

TASKIR_API ti_status ti_pass_manager_add_named(ti_pass_manager *pm, const char *names, ti_error *err) {
  const char *s = names;
  if (!pm || !names) return ti_error_set(err, TI_STATUS_BAD_PARAM, "pass list: NULL argument");
  while (*s) {
    const char *e;
    char buf[64];
    size_t len;
    const ti_pass *ps;
    while (*s == ',' || *s == ' ') s++;
    if (!*s) break;
    for (e = s; *e && *e != ',' && *e != ' '; e++) {}
    len = (size_t)(e - s);
    if (len >= sizeof buf) return ti_error_set(err, TI_STATUS_NOT_FOUND, "unknown pass '%.*s'", (int)(len > 60 ? 60 : len), s);
    memcpy(buf, s, len);
    buf[len] = 0;
    if (!(ps = ti_find_pass(buf))) return ti_error_set(err, TI_STATUS_NOT_FOUND, "unknown pass '%s'", buf);
    if (ti_pass_manager_add(pm, ps->name, ps->run, ps->user) != TI_STATUS_SUCCESS)
      return ti_error_set(err, TI_STATUS_LIMIT, "pass list: cannot add '%s' (the manager is full)", buf);
    s = e;
  }
  return TI_STATUS_SUCCESS;
}

#undef TI__NN_TRY
#undef TI__NN_FAIL
#undef TI__NN_GET
#undef TI__NN_VS
#undef TI__NN_VSD
#undef TI__NN_VIEW
#undef TI__NN_COMM
#undef TI__STORAGE_HDR

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
