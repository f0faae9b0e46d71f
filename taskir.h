/* taskir.h - v0.1.0 - graph core, Task IR and nn dialects for dataflow chip compilers.

   Part of taskir (header-only C99, stb style). This header holds the SSA
   graph core and the dialects on it: `task` (Task IR, the chip-functional
   IR: compute and storage task blocks) and `nn` (algorithm level). It
   includes taskir_kernels.h (shared types, kernels): one
   TASKIR_IMPLEMENTATION implements both. taskir_proto.h (protobuf: Task IR
   and ONNX decoding), taskir_onnx.h (ONNX models -> nn programs),
   taskir_layout.h (layout passes), taskir_lower.h (nn programs -> Task IR:
   the lowering) and taskir_exec.h (executor) build on it.

   DO THIS in *one* C or C++ file:
       #define TASKIR_IMPLEMENTATION
       #include "taskir.h"
   Other files include it without the define.

   EXAMPLE
       ti_context *ctx = ti_context_create(NULL);        // builtin dialect
       ti_nn_register(ctx, &err);                        // nn.* ops
       ti_program *p;
       ti_parse_program(ctx, text, len, &p, &err);       // or build with ti_builder
       ti_verify(p, &err);
       ti_pass_manager pm; ti_pass_manager_init(&pm);
       ti_pass_manager_add(&pm, "dce", ti_pass_dce, NULL);
       ti_pass_manager_run(&pm, p, &err);                // verifies after each pass
       ti_print_program(p, &buffer, &err);               // exact text round trip
       ti_program_destroy(p); ti_context_destroy(ctx);

   WHAT IS INSIDE (grep the >>anchors; declarations, then >>impl.* twins)
       >>errors, >>arena   ti_error (first problem, with where), bump allocator
       >>core.context      context: interning and the op registry
       >>core.types        interned tensor/vtensor types with dtype, shape, layout
       >>core.attributes   interned constants; sorted dictionaries
       >>core.ops          ti_op_info (traits + interfaces), ops, values, uses
       >>core.program      programs (SSA or graph) with a weights table
       >>core.build        create/insert/erase/replace-uses, the builder
       >>core.walk         program, topological, reverse topological (iterative)
       >>core.verify       the verifier
       >>core.passes       the pass manager
       >>passes            DCE, CSE, constant folding, value semantics, inplace
       >>core.text         ti_buffer; print and parse the text form
       >>task.types        the block descriptor table (TI_BLOCK_TYPES: one row
                           per block type, and how to add one); Task IR
                           messages (tianjic_ir field for field)
       >>task.dialect      task.* ops: import/export, accessors, builder
       >>task.check        the checker: every rule, every problem
       >>task.stats        parameters, MACs, storage, edge traffic
       >>nn                nn.* ops, tensors, the reference interpreter

   OPTIONS (define before the implementing include; "global" ones must be the
   same in every file that includes the header)
       TI_NODISCARD           marks every public function returning a
                              ti_status (warn_unused_result on gcc/clang,
                              _Check_return_ under MSVC's SAL; define it
                              empty to drop it). Where ignoring a status is
                              right, write `(void)!call(...)` with a comment
                              saying why (gcc does not let a plain (void)
                              silence it). Not on ti_error_set and
                              ti_pb_fail (they return their argument) nor on
                              the appends to a ti_buffer (ti_buffer_append/
                              _printf, ti_print_type/_attr, ti_pb_write_*):
                              their failure is sticky (ti_buffer.failed).
       TASKIR_STATIC          every function static (per translation unit)
       TASKIR_MALLOC(u,sz), TASKIR_REALLOC(u,p,sz), TASKIR_FREE(u,p)
                              allocator, all three or none; u is the user
                              pointer given to the context or arena
       TASKIR_ASSERT(x)       programmer-error checks; default assert(x)
       TASKIR_NO_ERRMSG       drop message text at the call sites (the
                              literals leave the object; codes, offsets,
                              line:column stay; ti_error.message is "")
       TASKIR_NO_NN           (global) leave out the nn dialect, the tensors,
                              the interpreter and constant folding: the core,
                              the task dialect, the other generic passes
                              remain (taskir_layout.h and taskir_onnx.h need
                              the nn dialect)
       TASKIR_CHECK_MAX_ELEMS the cap on a block's volume, checker and
                              executor alike (2^31 - 1; at most that)
       TASKIR_REARRANGE_GROWTH how many times the larger end of an edge any
                              step of its rearrangements may hold (4)

   ERRORS
       Every fallible call returns a ti_status and, when given a ti_error,
       fills it with the first problem: code, a message naming what and
       where (block id, op name, byte offset, line:column). Bad input never
       aborts. Every public call that takes a ti_error clears it on entry,
       so one ti_error can be reused across calls: after a call it holds
       that call's first problem, or nothing.

   LICENSE: MIT, see the end of this file.
*/
#ifndef TASKIR_H
#define TASKIR_H

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

/* The shared types (ti_status, ti_dtype, ti_rearrange_kind) and the kernels
   that execute and shape-check Task IR live in taskir_kernels.h, the one
   header that depends on nothing. */
#include "taskir_kernels.h"

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

/* Records a problem in err (if err is non-NULL and holds no earlier problem
   of the same call: public calls clear err on entry) and returns status, so
   callers can write `return ti_error_set(...)`. fmt NULL: no message. */
TASKIR_API ti_status ti_error_set(ti_error *err, ti_status status, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* TASKIR_NO_ERRMSG drops the messages at the call site: ti_error_set (and
   every message-taking helper of the headers) is a macro that keeps the
   status and the location and passes no text. The message arguments are
   still evaluated for their types only, in a branch that is never taken
   (TI__NOMSG), so a variable used only in messages stays used and the
   compiler drops the literals. The function itself stays callable as
   (ti_error_set)(err, status, fmt, ...). */
#ifdef TASKIR_NO_ERRMSG
static inline int ti__nomsg(int unused, ...) { (void)unused; return 0; }
#define TI__NOMSG(...) ((void)(0 && ti__nomsg(0, __VA_ARGS__)))
#define ti_error_set(err, status, ...) (TI__NOMSG(__VA_ARGS__), (ti_error_set)((err), (status), NULL))
#endif
TASKIR_API void ti_error_clear(ti_error *err);
TASKIR_API const char *ti_status_name(ti_status s);
TASKIR_API const char *ti_dtype_name(ti_dtype t);   /* "i8", "f32", "ternary", ... */

/* >>arena ----------------------------------------------------------------- */

/* Bump allocator in chunks; everything is freed at once. */
typedef struct ti_arena_chunk ti_arena_chunk;
typedef struct ti_arena {
  ti_arena_chunk *head;
  size_t used, cap;      /* of the head chunk */
  size_t total;          /* bytes obtained from the allocator (and held) */
  void *alloc_user;      /* passed to TASKIR_MALLOC/FREE */
  struct ti_context *pool; /* NULL, or the context whose chunk cache lends
                              the chunks and takes them back (ti_arena_init_pooled) */
  ti_arena_chunk *spare; /* chunks kept by ti_arena_reset, used again first */
} ti_arena;

TASKIR_API void ti_arena_init(ti_arena *a, void *alloc_user);
/* Zeroed, aligned memory; NULL when out of memory or size overflows. */
TASKIR_API void *ti_arena_alloc(ti_arena *a, size_t size, size_t align);
/* The same, not zeroed: for memory the caller fills at once (fresh pages
   are then touched once, not twice). */
TASKIR_API void *ti_arena_alloc_uninit(ti_arena *a, size_t size, size_t align);
/* n * elem_size bytes with an overflow check (zeroed / not zeroed). */
TASKIR_API void *ti_arena_array(ti_arena *a, size_t n, size_t elem_size, size_t align);
TASKIR_API void *ti_arena_array_uninit(ti_arena *a, size_t n, size_t elem_size, size_t align);
TASKIR_API char *ti_arena_strndup(ti_arena *a, const char *s, size_t n);
TASKIR_API void ti_arena_free(ti_arena *a);
/* Forgets every allocation but keeps the chunks: the next allocations
   reuse that memory (already touched) before asking the allocator for
   more. For an arena filled again and again, e.g. a graph reused by
   ti_task_graph_reset. */
TASKIR_API void ti_arena_reset(ti_arena *a);

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
/* Frees everything the context owns, its chunk cache included. */
TASKIR_API void ti_context_destroy(ti_context *ctx);

/* The chunk cache. Arenas whose lifetime the context bounds (a program's,
   the lowering's temporaries when it allocates with the context's
   allocator) take their chunks from the context and give them back when
   freed, so a process that runs a pipeline again and again reuses memory it
   has already touched instead of getting (and first-touching) fresh pages
   from the system on every run. Objects that may outlive the context (a
   ti_task_graph, a ti_onnx_model from ti_onnx_decode) never take its
   chunks; nor do the ONNX importer's decoded model and temporaries, freed
   within the import: through the allocator, the graph that the lowering
   builds later in the same run reuses their memory. The cache holds at
   most what the context's arenas held at once at their peak, and at most
   the limit (default: no limit beyond that peak; 0 turns the cache off).
   ti_context_trim gives every cached chunk back to the allocator now;
   ti_context_destroy does too. A graph built again and again keeps its own
   memory instead: ti_task_graph_reset (and ti_lower_options.reuse_graph). */
TASKIR_API void ti_context_trim(ti_context *ctx);
TASKIR_API void ti_context_set_cache_limit(ti_context *ctx, size_t max_bytes);   /* trims to it */
TASKIR_API size_t ti_context_cached_bytes(const ti_context *ctx);   /* chunk bytes in the cache now */
/* An arena (as ti_arena_init with ctx's allocator) whose chunks come from
   and go back to ctx's cache: ti_arena_free it before ti_context_destroy. */
TASKIR_API void ti_arena_init_pooled(ti_arena *a, ti_context *ctx);

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

struct ti_type {           /* interned: equal types are the same pointer */
  ti_type_kind kind;
  ti_dtype dtype;
  ti_layout layout;
  int32_t rank;
  int64_t dims[TI_MAX_RANK];   /* -1: dynamic */
};

/* Interned type; NULL if rank > TI_MAX_RANK, a dim < -1, the type is too
   large (ti_type_fits), or out of memory. */
TASKIR_API const ti_type *ti_type_get(ti_context *ctx, ti_type_kind kind, ti_dtype dtype,
                                      int32_t rank, const int64_t *dims, ti_layout layout);
/* The same type with one property changed. */
TASKIR_API const ti_type *ti_type_with_kind(ti_context *ctx, const ti_type *t, ti_type_kind kind);
TASKIR_API const ti_type *ti_type_with_layout(ti_context *ctx, const ti_type *t, ti_layout layout);
/* Number of elements; -1 if dynamic or the product overflows int64. */
TASKIR_API int64_t ti_type_numel(const ti_type *t);
/* 1 when dims (rank of them, -1 = dynamic) with elements of dtype fit: the
   product of the nonzero static dims times the element size stays within
   int64 (bytes), so every partial product of the dims (strides, flattened
   sizes) does too, whatever size a dynamic dim takes up to that bound. */
TASKIR_API int ti_type_fits(ti_dtype dtype, int32_t rank, const int64_t *dims);

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
TASKIR_API TI_NODISCARD ti_status ti_register_ops(ti_context *ctx, const ti_op_info *infos, int32_t n, ti_error *err);
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
  void *data;                 /* numel * ti_dtype_size bytes, owned by the program
                                 (or, after ti_task_import, by the message) */
  int64_t bytes;
  int is_mutable;             /* written by set_parameter: passes must not fold it */
} ti_variable;

struct ti_program {
  ti_context *ctx;
  const char *name;
  ti_program_kind kind;
  const ti_attr *attrs;       /* program-level dictionary (e.g. Task IR groups) */
  ti_op *first, *last;
  int64_t n_ops;
  int32_t n_args, cap_args;
  ti_value **args;            /* program inputs */
  int32_t n_vars, cap_vars;
  ti_variable *vars;
  ti_arena arena;             /* ops, values, variable data */
  /* name index of vars for ti_program_find_var (a cache: open addressing of
     var indices + 1, built as variables are looked up) */
  int32_t *var_slots;
  int32_t var_slots_cap, var_slots_n;
};

TASKIR_API ti_program *ti_program_create(ti_context *ctx, const char *name, ti_program_kind kind);
/* Destroy a program before its context: its arena's chunks go back to the
   context's chunk cache. */
TASKIR_API void ti_program_destroy(ti_program *p);
TASKIR_API ti_value *ti_program_add_arg(ti_program *p, const ti_type *type);
/* Adds a variable (data copied, may be NULL for zeros); NOT_FOUND/BAD_PARAM on misuse. */
TASKIR_API TI_NODISCARD ti_status ti_program_add_var(ti_program *p, const char *name, const ti_type *type,
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
TASKIR_API TI_NODISCARD ti_status ti_op_erase(ti_op *op, ti_error *err);
TASKIR_API void ti_op_set_operand(ti_op *op, int32_t i, ti_value *v);
TASKIR_API void ti_op_set_attrs(ti_op *op, const ti_attr *attrs);
TASKIR_API void ti_op_set_attr(ti_op *op, const char *name, const ti_attr *value);
TASKIR_API const ti_attr *ti_op_attr(const ti_op *op, const char *name);
TASKIR_API void ti_value_replace_all_uses(ti_value *from, ti_value *to);
/* Replaces uses of from by to except in op `except`. */
TASKIR_API void ti_value_replace_uses_except(ti_value *from, ti_value *to, const ti_op *except);
TASKIR_API int64_t ti_value_num_uses(const ti_value *v);
TASKIR_API int ti_op_is(const ti_op *op, const char *name);
/* 1 when op has every trait bit given (A | B means both). */
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
TASKIR_API TI_NODISCARD ti_status ti_walk_program(const ti_program *p, ti_op ***out, int64_t *n, ti_error *err);
TASKIR_API TI_NODISCARD ti_status ti_walk_topo(const ti_program *p, ti_op ***out, int64_t *n, ti_error *err);
TASKIR_API TI_NODISCARD ti_status ti_walk_reverse_topo(const ti_program *p, ti_op ***out, int64_t *n, ti_error *err);
TASKIR_API void ti_ops_free(const ti_program *p, ti_op **ops);
/* Reorders an SSA program's ops into a topological order (stable). */
TASKIR_API TI_NODISCARD ti_status ti_program_sort(ti_program *p, ti_error *err);

/* >>core.verify ----------------------------------------------------------- */

/* Checks the program: registered ops, operand/result counts, required
   attributes, every operand defined in this program, SSA programs: no use
   before definition; graph programs: no cycle; then each op's verify. */
TASKIR_API TI_NODISCARD ti_status ti_verify(const ti_program *p, ti_error *err);

/* >>core.passes ----------------------------------------------------------- */

typedef ti_status (*ti_pass_fn)(ti_program *p, void *user, ti_error *err);
typedef struct ti_pass { const char *name; ti_pass_fn run; void *user; } ti_pass;

typedef struct ti_pass_manager {
  ti_pass passes[32];
  int32_t n;
  int verify_each;            /* run ti_verify after every pass (default 1) */
} ti_pass_manager;
TASKIR_API void ti_pass_manager_init(ti_pass_manager *pm);
TASKIR_API TI_NODISCARD ti_status ti_pass_manager_add(ti_pass_manager *pm, const char *name, ti_pass_fn run, void *user);
/* Runs the passes in order; the error names the failing pass. */
TASKIR_API TI_NODISCARD ti_status ti_pass_manager_run(const ti_pass_manager *pm, ti_program *p, ti_error *err);

/* >>passes: generic passes (SPEC §1, seed 003 §2.5) ------------------------- */

/* Each is a ti_pass_fn (user unused) and has a public name:
     "dce"      dead-code elimination: pure ops whose results are unused
     "cse"      common-subexpression elimination: pure ops with the same
                name, operands (commutative: in any order), attributes and
                result types, whose operands are vtensors or never mutated
     "constant-fold"   ops with a fold interface whose operands are all
                builtin.constant or get_parameter of an immutable variable
                (see ti_program_freeze_weights) become builtin.constant ops
                (not with TASKIR_NO_NN: folding evaluates through the nn
                interpreter)
     "maximize-value-semantics"   seed 003 §2.5.1: to_vtensor/to_tensor
                around value-semantic ops on tensors, then removal of the
                pairs whose tensor is never mutated or aliased
     "inplace-to-outofplace"   seed 003 §2.5.2: `x_` ops become `x`, later
                uses of the mutated operand use the new result */
TASKIR_API TI_NODISCARD ti_status ti_pass_dce(ti_program *p, void *user, ti_error *err);
TASKIR_API TI_NODISCARD ti_status ti_pass_cse(ti_program *p, void *user, ti_error *err);
#ifndef TASKIR_NO_NN
TASKIR_API TI_NODISCARD ti_status ti_pass_constant_fold(ti_program *p, void *user, ti_error *err);
#endif
TASKIR_API TI_NODISCARD ti_status ti_pass_maximize_value_semantics(ti_program *p, void *user, ti_error *err);
TASKIR_API TI_NODISCARD ti_status ti_pass_inplace_to_outofplace(ti_program *p, void *user, ti_error *err);
/* The name table of the passes above. */
TASKIR_API const ti_pass *ti_generic_passes(int32_t *n);
TASKIR_API const ti_pass *ti_find_pass(const char *name);   /* NULL if unknown */
/* Adds passes by name, comma-separated ("cse,dce"); NOT_FOUND names one. */
TASKIR_API TI_NODISCARD ti_status ti_pass_manager_add_named(ti_pass_manager *pm, const char *names, ti_error *err);
/* The same, looking each name up in extra[0..n_extra) (a header's own
   passes, e.g. ti_onnx_passes) before the generic ones. */
TASKIR_API TI_NODISCARD ti_status ti_pass_manager_add_named_from(ti_pass_manager *pm, const char *names, const ti_pass *extra,
                                                    int32_t n_extra, ti_error *err);

/* >>core.text: the IR text form ------------------------------------------- */

/* A growable byte buffer (output of printers and encoders), kept
   NUL-terminated so text output can be used as a C string. */
typedef struct ti_buffer {
  unsigned char *data;
  size_t len, cap;
  void *alloc_user;
  int failed;              /* sticky: an append ran out of memory */
} ti_buffer;
TASKIR_API void ti_buffer_init(ti_buffer *b, void *alloc_user);
TASKIR_API void ti_buffer_free(ti_buffer *b);
TASKIR_API TI_NODISCARD ti_status ti_buffer_reserve(ti_buffer *b, size_t extra);   /* room for extra more bytes */
TASKIR_API ti_status ti_buffer_append(ti_buffer *b, const void *data, size_t n);
TASKIR_API ti_status ti_buffer_printf(ti_buffer *b, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Prints a program; parse(print(p)) prints the same text again. */
TASKIR_API TI_NODISCARD ti_status ti_print_program(const ti_program *p, ti_buffer *out, ti_error *err);
TASKIR_API ti_status ti_print_type(const ti_type *t, ti_buffer *out);
TASKIR_API ti_status ti_print_attr(const ti_attr *a, ti_buffer *out);
/* Parses one program; errors carry line:column. */
TASKIR_API TI_NODISCARD ti_status ti_parse_program(ti_context *ctx, const char *text, size_t len, ti_program **out, ti_error *err);

/* >>task.types: Task IR (SPEC §2) ---------------------------------------- */

/* Block types: the descriptor table. One row per block type holds every
   fact the library knows about the type; the enum, names, class, wire
   mapping, the task.* op table, the checker's dims and cluster rules, the
   statistics and the executor's operand views and dispatch all come from
   it (ggml's type traits, sokol's X-macro lists).

     X(NAME, name, op, wire, class, n_act, in, mid, mid_in, bias, window,
       req, opt, must1, one_d, layout, macs, kernel)

     NAME    enum TI_BLOCK_NAME
     name    the schema's name ("CC", "TASK_NULL")
     op      the task dialect's op name
     wire    TaskBlockType value on the wire
     class   STORAGE, COMPUTE, IO or NULL (ti_block_class)
     n_act   activation operands (input clusters 0..n_act-1); TI_TASK_N_BRANCH:
             shape.n_branch of them (or as many as the clusters say)
     in      layout of each activation operand (ti_task_layout)
     mid     role of the operand after the activations: NONE, WEIGHT, ALPHA,
             TABLE, or STATE (optional; its write-back is output cluster 1)
     mid_in  its layout
     bias    1: a bias cluster may follow (bias_type VECTOR), else none
     window  NONE, POOL (window over nf, no dilation) or CONV (window over
             nr into nf, dilated); windowed types read [niy][nix][...]
     req, opt, must1, one_d   the dims rule (TI_DIM_* bits): required
             (>= 1), optional, must be 1 when present; one_d: the 1-D form
             (ny, nx and the window absent) is allowed
     layout  storage: the data's layout; compute, io: the output's
     macs    the MAC formula (ti_task_macs): OUT ny*nx*nf, BRANCH
             ny*nx*nf*n_branch, WINDOW ny*nx*nf*nky*nkx, CONV
             ny*nx*nf*nr*nky*nkx, FC nf*nr, NONE 0
     kernel  the executor's kernel (a ti_exec_kernel_fn), 0 for none

   ADDING A COMPUTE TYPE CFOO is one row, one kernel, one dispatch entry:
     1. a row here (or, without editing the header, in the global option
        TASKIR_EXTRA_BLOCK_TYPES(X), defined identically before every include;
        extra rows follow TASK_NULL and need a wire value not in use);
     2. the kernel: a function `ti_status cfoo(const ti_exec_kernel_args *a)`
        (taskir_exec.h), declared before the implementing include;
     3. its name in the row's kernel column: that is the dispatch entry.
   The checker, the statistics and the executor's planner then handle CFOO
   from its row. A type whose semantics the columns cannot say (an operand
   role or layout not listed) needs a new role or layout value first.
   tests/test_block_table.c adds a test-only type this way. */
#define TI_TASK_N_BRANCH (-1)
#define TI_DIM_Y TI_SHAPE_HAS_NY   /* the dims rule bits name shape fields */
#define TI_DIM_X TI_SHAPE_HAS_NX
#define TI_DIM_F TI_SHAPE_HAS_NF
#define TI_DIM_R TI_SHAPE_HAS_NR
#define TI_DIM_KX TI_SHAPE_HAS_NKX
#define TI_DIM_KY TI_SHAPE_HAS_NKY
#define TI_DIM_IY TI_SHAPE_HAS_NIY
#define TI_DIM_IX TI_SHAPE_HAS_NIX
#define TI_DIM_NB TI_SHAPE_HAS_N_BRANCH
#define TI_DIM_YXF (TI_DIM_Y | TI_DIM_X | TI_DIM_F)
#define TI_DIM_WIN (TI_DIM_KY | TI_DIM_KX | TI_DIM_IY | TI_DIM_IX)

#define TI_BLOCK_TYPES(X)                                                                                     \
  X(SI,     "SI",        "task.si",        0,   STORAGE, 0,                NONE, NONE,   NONE, 0, NONE,       \
    TI_DIM_YXF, 0, 0, 1, YXF, NONE, 0)                                                                        \
  X(SW,     "SW",        "task.sw",        1,   STORAGE, 0,                NONE, NONE,   NONE, 0, NONE,       \
    TI_DIM_F | TI_DIM_R | TI_DIM_KY | TI_DIM_KX, 0, 0, 0, FRKK, NONE, 0)                                      \
  X(SIC2D,  "SIC2D",     "task.sic2d",     2,   STORAGE, 0,                NONE, NONE,   NONE, 0, NONE,       \
    TI_DIM_Y | TI_DIM_X | TI_DIM_R, 0, 0, 0, YXR, NONE, 0)                                                    \
  X(SIFC,   "SIFC",      "task.sifc",      3,   STORAGE, 0,                NONE, NONE,   NONE, 0, NONE,       \
    TI_DIM_R, 0, 0, 0, R, NONE, 0)                                                                            \
  X(SIC,    "SIC",       "task.sic",       4,   STORAGE, 0,                NONE, NONE,   NONE, 0, NONE,       \
    TI_DIM_Y | TI_DIM_X | TI_DIM_R, 0, 0, 0, YXR, NONE, 0)                                                    \
  X(SB,     "SB",        "task.sb",        5,   STORAGE, 0,                NONE, NONE,   NONE, 0, NONE,       \
    TI_DIM_F, 0, 0, 0, F, NONE, 0)                                                                            \
  X(SWFC,   "SWFC",      "task.swfc",      6,   STORAGE, 0,                NONE, NONE,   NONE, 0, NONE,       \
    TI_DIM_F | TI_DIM_R, 0, 0, 0, FR, NONE, 0)                                                                \
  X(SW2D,   "SW2D",      "task.sw2d",      7,   STORAGE, 0,                NONE, NONE,   NONE, 0, NONE,       \
    TI_DIM_F | TI_DIM_R | TI_DIM_KY | TI_DIM_KX, 0, 0, 0, FRKK, NONE, 0)                                      \
  X(CADD,   "CADD",      "task.cadd",      8,   COMPUTE, TI_TASK_N_BRANCH, YXF,  NONE,   NONE, 1, NONE,       \
    TI_DIM_YXF, TI_DIM_KY | TI_DIM_KX | TI_DIM_NB, TI_DIM_KY | TI_DIM_KX, 1, YXF, BRANCH, ti__xk_cadd)        \
  X(CVVH,   "CVVH",      "task.cvvh",      9,   COMPUTE, 2,                YXF,  NONE,   NONE, 1, NONE,       \
    TI_DIM_YXF, 0, 0, 1, YXF, OUT, ti__xk_cvvh)                                                               \
  X(CVM,    "CVM",       "task.cvm",       10,  COMPUTE, 1,                R,    WEIGHT, FR,   1, NONE,       \
    TI_DIM_F | TI_DIM_R, 0, 0, 0, F, FC, ti__xk_cvm)                                                          \
  X(CC,     "CC",        "task.cc",        11,  COMPUTE, 1,                IYXR, WEIGHT, FRKK, 1, CONV,       \
    TI_DIM_YXF | TI_DIM_R | TI_DIM_WIN, 0, 0, 0, YXF, CONV, ti__xk_cc)                                        \
  X(CAX,    "CAX",       "task.cax",       12,  COMPUTE, 1,                YXF,  ALPHA,  F,    1, NONE,       \
    TI_DIM_YXF, 0, 0, 1, YXF, OUT, ti__xk_cax)                                                                \
  X(CC2D,   "CC2D",      "task.cc2d",      13,  COMPUTE, 1,                IYXR, WEIGHT, FRKK, 1, CONV,       \
    TI_DIM_YXF | TI_DIM_R | TI_DIM_WIN, 0, 0, 0, YXF, CONV, ti__xk_cc)                                        \
  X(CVS,    "CVS",       "task.cvs",       14,  COMPUTE, 1,                YXF,  NONE,   NONE, 1, NONE,       \
    TI_DIM_YXF, 0, 0, 1, YXF, OUT, ti__xk_cvs)                                                                \
  X(CCMPB,  "CCMPB",     "task.ccmpb",     15,  COMPUTE, 1,                IYXF, NONE,   NONE, 0, POOL,       \
    TI_DIM_YXF | TI_DIM_WIN, 0, 0, 1, YXF, WINDOW, ti__xk_ccmpb)                                              \
  X(CAVG,   "CAVG",      "task.cavg",      16,  COMPUTE, 1,                IYXF, NONE,   NONE, 1, POOL,       \
    TI_DIM_YXF | TI_DIM_WIN, 0, 0, 1, YXF, WINDOW, ti__xk_cavg)                                               \
  X(CCMPS,  "CCMPS",     "task.ccmps",     17,  COMPUTE, 1,                IYXF, NONE,   NONE, 0, POOL,       \
    TI_DIM_YXF | TI_DIM_WIN, 0, 0, 1, YXF, WINDOW, ti__xk_ccmps)                                              \
  X(CLUT,   "CLUT",      "task.clut",      18,  COMPUTE, 1,                YXF,  TABLE,  LUT,  0, NONE,       \
    TI_DIM_YXF, 0, 0, 1, YXF, OUT, ti__xk_clut)                                                               \
  X(CLIF,   "CLIF",      "task.clif",      19,  COMPUTE, 1,                YXF,  STATE,  YXF,  0, NONE,       \
    TI_DIM_YXF, 0, 0, 1, YXF, OUT, ti__xk_clif)                                                               \
  X(INPUT,  "INPUT",     "task.input",     50,  IO,      0,                NONE, NONE,   NONE, 0, NONE,       \
    TI_DIM_YXF, 0, 0, 1, YXF, NONE, 0)                                                                        \
  X(OUTPUT, "OUTPUT",    "task.output",    51,  IO,      0,                NONE, NONE,   NONE, 0, NONE,       \
    TI_DIM_YXF, 0, 0, 1, YXF, NONE, 0)                                                                        \
  X(NULL,   "TASK_NULL", "task.task_null", 100, NULL,    0,                NONE, NONE,   NONE, 0, NONE,       \
    0, 0, 0, 0, NONE, NONE, 0)
#define TI__BLOCK_TYPES_BUILTIN 23   /* rows above; pinned by a static assert */
#ifndef TASKIR_EXTRA_BLOCK_TYPES
#define TASKIR_EXTRA_BLOCK_TYPES(X)
#endif

/* The values are dense (row order); ti_block_type_wire() gives the wire
   value (SI 0 ... CLIF 19, INPUT 50, OUTPUT 51, TASK_NULL 100). */
#define TI__BLOCK_ENUM(N, nm, op, w, cl, na, in, mid, mi, bias, win, req, opt, m1, od, lay, macs, k) TI_BLOCK_##N,
typedef enum ti_block_type {
  TI_BLOCK_TYPES(TI__BLOCK_ENUM)
  TASKIR_EXTRA_BLOCK_TYPES(TI__BLOCK_ENUM)
  TI_BLOCK_COUNT
} ti_block_type;
#undef TI__BLOCK_ENUM

typedef enum ti_block_class {
  TI_CLASS_STORAGE, TI_CLASS_COMPUTE, TI_CLASS_IO, TI_CLASS_NULL
} ti_block_class;

/* Role of an input cluster of a compute block. */
typedef enum ti_task_role {
  TI_TASK_ROLE_NONE, TI_TASK_ROLE_DATA, TI_TASK_ROLE_WEIGHT, TI_TASK_ROLE_ALPHA, TI_TASK_ROLE_TABLE,
  TI_TASK_ROLE_STATE, TI_TASK_ROLE_BIAS
} ti_task_role;
/* Layouts of data, outermost first. YX* drop y and x when both are absent
   (the 1-D form); IY/IX read niy/nix (a windowed input); LUT is [2^LUT_DW]. */
typedef enum ti_task_layout {
  TI_TASK_LAYOUT_NONE, TI_TASK_LAYOUT_YXF, TI_TASK_LAYOUT_YXR, TI_TASK_LAYOUT_IYXF, TI_TASK_LAYOUT_IYXR,
  TI_TASK_LAYOUT_R, TI_TASK_LAYOUT_F, TI_TASK_LAYOUT_FRKK, TI_TASK_LAYOUT_FR, TI_TASK_LAYOUT_LUT
} ti_task_layout;
typedef enum ti_task_window { TI_TASK_WINDOW_NONE, TI_TASK_WINDOW_POOL, TI_TASK_WINDOW_CONV } ti_task_window;
typedef enum ti_task_macs {
  TI_TASK_MACS_NONE, TI_TASK_MACS_OUT, TI_TASK_MACS_BRANCH, TI_TASK_MACS_WINDOW, TI_TASK_MACS_CONV, TI_TASK_MACS_FC
} ti_task_macs;

/* One row of the table (the kernel column is the executor's). */
typedef struct ti_task_block_desc {
  const char *name, *op_name;
  int32_t wire;
  ti_block_class cls;
  int32_t n_act;              /* or TI_TASK_N_BRANCH */
  ti_task_layout in;
  ti_task_role mid;
  ti_task_layout mid_in;
  int32_t bias;
  ti_task_window window;
  uint32_t req, opt, must1;   /* TI_DIM_* */
  int32_t one_d;
  ti_task_layout layout;
  ti_task_macs macs;
} ti_task_block_desc;

/* Attribute types of compute blocks; values are the wire values. */
typedef enum ti_attr_type {
  TI_TASK_ATTR_KERNEL_X = 0, TI_TASK_ATTR_KERNEL_Y, TI_TASK_ATTR_STRIDE_X, TI_TASK_ATTR_STRIDE_Y,
  TI_TASK_ATTR_PAD_UP, TI_TASK_ATTR_PAD_DOWN, TI_TASK_ATTR_PAD_LEFT, TI_TASK_ATTR_PAD_RIGHT,
  TI_TASK_ATTR_CMP, TI_TASK_ATTR_CONSTANT_A, TI_TASK_ATTR_CONSTANT_B, TI_TASK_ATTR_DILATION_X,
  TI_TASK_ATTR_DILATION_Y, TI_TASK_ATTR_BIT_SHIFT_NUM, TI_TASK_ATTR_VTH0, TI_TASK_ATTR_VTH_ALPHA,
  TI_TASK_ATTR_VTH_BETA, TI_TASK_ATTR_VTH_INCRE, TI_TASK_ATTR_VR, TI_TASK_ATTR_VL,
  TI_TASK_ATTR_VLEAKY_ALPHA, TI_TASK_ATTR_VLEAKY_BETA, TI_TASK_ATTR_DV, TI_TASK_ATTR_REF_LEN,
  TI_TASK_ATTR_TW_CNT, TI_TASK_ATTR_VINIT, TI_TASK_ATTR_TW_LEN, TI_TASK_ATTR_SEED, TI_TASK_ATTR_LUT_DW,
  TI_TASK_ATTR_VTH_ADPT_EN, TI_TASK_ATTR_VLEAKY_ADPT_EN, TI_TASK_ATTR_TW_EN, TI_TASK_ATTR_RESET_MODE,
  TI_TASK_ATTR_FIRE_TYPE, TI_TASK_ATTR_VM_CONST_EN, TI_TASK_ATTR_VM_CONST, TI_TASK_ATTR_VTHETA_CONST_EN,
  TI_TASK_ATTR_VTHETA_CONST,
  TI_TASK_ATTR_COUNT
} ti_attr_type;

/* A block's bias_type is a ti_bias_mode (taskir_kernels.h): its VECTOR (1)
   and CONSTANT (2) are the wire's BiasType values; NONE is not on the wire. */
typedef enum ti_test_mode {
  TI_TEST_MEMORY_STATE = 0, TI_TEST_PRIM_OUTPUT = 1, TI_TEST_CASE_OUTPUT = 2, TI_TEST_MODE_COUNT
} ti_test_mode;

/* Names as spelled by the tianjic_ir schema ("CC", "INT_8", "KERNEL_X",
   "RESHAPE", ...); NULL for a value out of range. */
TASKIR_API const char *ti_block_type_name(ti_block_type t);
TASKIR_API const char *ti_precision_name(ti_dtype p);   /* I8 -> "INT_8"; NULL if not a precision */
TASKIR_API const char *ti_attr_type_name(ti_attr_type t);
TASKIR_API const char *ti_bias_type_name(ti_bias_mode b);
TASKIR_API const char *ti_test_mode_name(ti_test_mode m);
TASKIR_API ti_block_class ti_block_class_of(ti_block_type t);
/* The descriptor table's row of a type; NULL for a value out of range. */
TASKIR_API const ti_task_block_desc *ti_task_block_desc_of(ti_block_type t);
/* Wire value <-> enum. from_wire returns 0 on success, -1 if unknown. */
TASKIR_API int32_t ti_block_type_wire(ti_block_type t);
TASKIR_API int ti_block_type_from_wire(int32_t v, ti_block_type *out);
TASKIR_API int32_t ti_precision_wire(ti_dtype p);
TASKIR_API int ti_precision_from_wire(int32_t v, ti_dtype *out);

/* The message structs mirror tianjic_ir field for field. Each keeps a `has`
   mask of the optional fields present on the wire (proto2 presence), so a
   decoded file encodes back byte for byte. Repeated fields are (n, pointer)
   pairs. Everything hangs off the arena of the ti_task_graph that owns it.
   The schema is written once, as one table per message in the
   implementation (>>impl.task.schema: wire number, schema name, IR key,
   kind, presence bit, struct offset); the task dialect's import/export and
   taskir_proto.h's binary and text codecs all walk those tables. */

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
/* The Shape message's scalar fields, written once: X(wire number, member
   = schema name, IR attribute key, presence bit). Row i has presence bit
   1 << i (pinned by static asserts). They are the rows of the Shape
   schema table (>>impl.task.schema), which the codec, the task dialect's
   attributes and the checker's messages walk; the one repeated field,
   extra_dimensions = 15 (IR key "extra"), follows them there. */
#define TI_TASK_SHAPE_FIELDS(X)                                                                   \
  X(1, nx, "nx", TI_SHAPE_HAS_NX) X(2, ny, "ny", TI_SHAPE_HAS_NY) X(3, nf, "nf", TI_SHAPE_HAS_NF)   \
  X(4, nr, "nr", TI_SHAPE_HAS_NR) X(5, nkx, "nkx", TI_SHAPE_HAS_NKX) X(6, nky, "nky", TI_SHAPE_HAS_NKY) \
  X(7, niy, "niy", TI_SHAPE_HAS_NIY) X(8, nix, "nix", TI_SHAPE_HAS_NIX)                             \
  X(10, n_branch, "n_branch", TI_SHAPE_HAS_N_BRANCH)

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
  int32_t cap_interfaces;   /* not a field: room in interfaces, kept by the
                               builder (0 or <= n_interfaces: no spare room;
                               reset it when you replace interfaces) */
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
  ti_bias_mode bias_type;
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
  int32_t edge_ids_seen, next_edge_id;   /* ti_task_connect's cache: edges[0..seen) have ids < next */
  /* The builder's arrays: ti_task_add_block / ti_task_connect keep blocks
     and edges in these heap arrays (grown geometrically, owned by the graph,
     freed by ti_task_graph_free) and point g->blocks / g->edges at them; an
     array the caller put in g->blocks / g->edges is copied in first. */
  ti_task_block *heap_blocks;
  ti_task_edge *heap_edges;
  int64_t cap_blocks, cap_edges;
} ti_task_graph;

TASKIR_API void ti_task_graph_init(ti_task_graph *g, void *alloc_user);
TASKIR_API void ti_task_graph_free(ti_task_graph *g);
/* Empties g (no blocks, edges, groups or test config) but keeps its memory:
   the arena's chunks and the builder's arrays are filled again by the next
   graph built in g (ti_task_add_block, ti_task_connect, a lowering with
   ti_lower_options.reuse_graph), which then touches no fresh pages for as
   much as g held. Pointers into the old graph become invalid. */
TASKIR_API void ti_task_graph_reset(ti_task_graph *g);
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
TASKIR_API TI_NODISCARD ti_status ti_task_register(ti_context *ctx, ti_error *err);   /* idempotent */
TASKIR_API TI_NODISCARD ti_status ti_task_import(ti_context *ctx, const ti_task_graph *g, ti_program **out, ti_error *err);
/* Writes blocks and edges in program order into a fresh message g. */
TASKIR_API TI_NODISCARD ti_status ti_task_export(const ti_program *p, ti_task_graph *g, ti_error *err);
TASKIR_API const ti_task_block *ti_task_block_of(const ti_op *op);   /* NULL if not a block op */
TASKIR_API const ti_task_edge *ti_task_edge_of(const ti_op *op);     /* NULL if not an edge op */

/* Attribute of a block by type: the first one's int_value, or dflt. */
TASKIR_API int32_t ti_task_attr_int(const ti_task_block *b, ti_attr_type t, int32_t dflt);
/* The socket of an INPUT/OUTPUT block: its socket_id, or its block id when
   it gives none (checker and executor use this one rule). */
TASKIR_API int32_t ti_task_socket_of(const ti_task_block *b);
/* CLIF parameters of a block: ti_lif_params_init, then its attributes. */
TASKIR_API void ti_task_lif_params(const ti_task_block *b, ti_lif_params *p);
/* Largest element count any step of an edge's rearrangement list may hold,
   given the element counts of its source and destination boxes:
   TASKIR_REARRANGE_GROWTH times the larger, at most TASKIR_CHECK_MAX_ELEMS.
   A step beyond it is an error for the checker and the executor alike, so
   a small file cannot ask for a huge intermediate. */
TASKIR_API int64_t ti_task_rearrange_cap(int64_t src_elems, int64_t dst_elems);
TASKIR_API const ti_task_attr *ti_task_find_attr(const ti_task_block *b, ti_attr_type t);
/* Dims of a block's storage layout (SPEC §2 "Storage"), outermost first:
   SI [ny][nx][nf] or [nf]; SIC/SIC2D [ny][nx][nr]; SIFC [nr]; SW/SW2D
   [nf][nr][nky][nkx]; SWFC [nf][nr]; SB [nf]; compute blocks and INPUT/
   OUTPUT their output [ny][nx][nf] or [nf]. Returns the rank (0..4). */
TASKIR_API int32_t ti_task_block_dims(const ti_task_block *b, int64_t dims[4]);
/* The same with the shape field of each dim (TI_DIM_*). */
TASKIR_API int32_t ti_task_block_layout(const ti_task_block *b, int64_t dims[4], uint32_t fields[4]);
/* What input cluster `cluster` of block b is, by its type's row: the role
   (data, weight, alpha, table, state, bias), the layout, its dims
   (outermost first, as the block's shape gives them) and the cluster
   shape the type implies (fields set where the dims are nonzero). The bias
   is the cluster after the activations and the middle operand when
   bias_type is VECTOR, or (bias_type absent) when the cluster count has
   room for it. cluster -1: the block's own data (storage) or output
   (compute, io), role DATA, any class. Returns 0 when the type says nothing
   about the cluster (not a compute block, a cluster past the type's count,
   a CLUT without LUT_DW). */
typedef struct ti_task_operand {
  ti_task_role role;
  ti_task_layout layout;
  int32_t rank;
  int64_t dims[4];
  uint32_t fields[4];     /* TI_DIM_* of each dim */
  int32_t channel;        /* 1: the last dim is a channel (nf or nr) */
  ti_task_shape shape;
} ti_task_operand;
TASKIR_API int ti_task_block_operand(const ti_task_block *b, int32_t cluster, ti_task_operand *out);
/* Activation operands of a compute block: n_act of its row, or for
   TI_TASK_N_BRANCH shape.n_branch (when > 0; capped at 65536) else the
   input clusters less the bias. */
TASKIR_API int32_t ti_task_block_n_act(const ti_task_block *b);
/* Multiply-accumulates (or ops) of one run of block b, by its row's
   formula, absent dims counted as 1 (see >>task.stats); INT64_MAX when the
   count does not fit. CADD counts ny*nx*nf*n_branch: each output element
   accumulates n_branch inputs, as a window block accumulates nky*nkx. The
   statistics and the executor's profile both use it. */
TASKIR_API int64_t ti_task_block_macs(const ti_task_block *b);
TASKIR_API const ti_task_block *ti_task_find_block(const ti_task_graph *g, int32_t id);
TASKIR_API const ti_task_edge *ti_task_find_edge(const ti_task_graph *g, int32_t id);

/* Builder on the message: blocks, attributes, data and connections. Blocks
   and edges live in heap arrays the graph owns (grown geometrically; see
   ti_task_graph), the rest in g's arena; a cluster's interfaces grow
   geometrically too, so a block read by many costs memory linear in its
   readers. NULL / error status when out of memory.

   ti_task_add_block appends to g->blocks, which moves when it grows: the
   pointer it returns (and every earlier block pointer into g) is valid
   only until the next ti_task_add_block on g. Keep the block's index
   (g->n_blocks - 1 after the call, or ti_task_block_index) or its id, and
   get the block back with ti_task_block_at or ti_task_find_block. */
TASKIR_API ti_task_block *ti_task_add_block(ti_task_graph *g, int32_t id, ti_block_type type, ti_dtype precision,
                                            const ti_task_shape *shape);
/* Block i of g (mutable), NULL when i is out of range. */
TASKIR_API ti_task_block *ti_task_block_at(ti_task_graph *g, int32_t i);
/* Index of block b in g->blocks, -1 if b is not one of them (O(1); any
   pointer is safe: outside the array or not on a block boundary gives -1). */
TASKIR_API int32_t ti_task_block_index(const ti_task_graph *g, const ti_task_block *b);
/* A shape from its dims: a dim given as 0 is absent (the wire's rule), any
   other value is present. n_branch and extra_dimensions: set them after. */
TASKIR_API ti_task_shape ti_task_shape_make(int32_t ny, int32_t nx, int32_t nf, int32_t nr, int32_t nky, int32_t nkx,
                                            int32_t niy, int32_t nix);
TASKIR_API TI_NODISCARD ti_status ti_task_add_attr(ti_task_graph *g, ti_task_block *b, ti_attr_type type, int32_t value);
/* Data of a storage block: dims outermost first, values in dims order,
   given as int32 (integer precisions) or float (FLOAT_16/32). */
TASKIR_API TI_NODISCARD ti_status ti_task_set_data(ti_task_graph *g, ti_task_block *b, ti_dtype precision, int32_t n_dims,
                                      const int32_t *dims, const void *values);
/* Connects output cluster src_cluster of src to input cluster dst_cluster of
   dst with a new edge (id = next free id), adding clusters as needed.
   Position/size NULL: the whole cluster. Returns the edge or NULL. */
TASKIR_API ti_task_edge *ti_task_connect(ti_task_graph *g, ti_task_block *src, int32_t src_cluster,
                                         const ti_task_shape *src_pos, const ti_task_shape *src_size,
                                         ti_task_block *dst, int32_t dst_cluster,
                                         const ti_task_shape *dst_pos, const ti_task_shape *dst_size);
TASKIR_API TI_NODISCARD ti_status ti_task_add_rearrange(ti_task_graph *g, ti_task_edge *e, ti_rearrange_kind kind,
                                           int32_t n_dims, const int32_t *dims, const int32_t *values, int64_t n_values);
TASKIR_API void ti_task_shape_set(ti_task_shape *s, uint32_t field, int32_t value);  /* field: TI_SHAPE_HAS_* */

/* >>task.check ------------------------------------------------------------- */

/* Largest element count of one block, cluster, tensor or rearrangement step
   the checker accepts; the executor runs every volume up to it (its buffers
   are indexed in int32). Must not exceed 2^31 - 1. */
#ifndef TASKIR_CHECK_MAX_ELEMS
#define TASKIR_CHECK_MAX_ELEMS ((int64_t)INT32_MAX)
#endif
#ifndef TASKIR_REARRANGE_GROWTH
#define TASKIR_REARRANGE_GROWTH 4
#endif

typedef enum ti_diag_severity { TI_DIAG_ERROR, TI_DIAG_WARNING } ti_diag_severity;
enum { TI_DIAG_AT_BLOCK = 1u << 0, TI_DIAG_AT_EDGE = 1u << 1 };
typedef struct ti_diag {
  ti_diag_severity severity;
  const char *rule;          /* short rule name, e.g. "unique-ids", "dims" */
  int32_t block_id, edge_id; /* -1 where not applicable; see `at` */
  uint32_t at;               /* TI_DIAG_AT_BLOCK / _EDGE: which id is a location
                                (an id may itself be -1) */
  char message[224];
} ti_diag;
typedef struct ti_diag_list {
  ti_diag *items;
  int32_t n, cap, n_errors, n_warnings;   /* n_errors/n_warnings count every problem */
  void *alloc_user;
  int64_t n_dropped;         /* problems counted but not listed (past TASKIR_CHECK_MAX_DIAGS) */
} ti_diag_list;
/* Problems listed at most (the rest are counted): a hostile file with a
   million broken blocks costs a bounded list, not 256 bytes per problem. */
#ifndef TASKIR_CHECK_MAX_DIAGS
#define TASKIR_CHECK_MAX_DIAGS 10000
#endif
TASKIR_API void ti_diag_list_init(ti_diag_list *l, void *alloc_user);
TASKIR_API void ti_diag_list_free(ti_diag_list *l);

/* Runs every rule of SPEC §2 and lists every problem. Returns SUCCESS when
   there is no error (warnings allowed), TI_STATUS_INVALID otherwise (err
   gets the first error), NO_MEMORY if the list cannot grow. Problems are
   appended to out (NULL: only the status and err); its memory comes from
   out->alloc_user. Any message the decoder can produce is safe to check.

   Rules (ti_diag.rule):
     unique-ids     block ids unique, edge ids unique
     block-type     a known type, not TASK_NULL
     precision      the block precision is a Task IR precision
     dims           per-type required/absent dims (seed 000; absent = 0),
                    1-D forms ([nf]; SIFC [nr]), CADD nky = nkx = 1, no
                    negative dim, volume <= TASKIR_CHECK_MAX_ELEMS (2^31-1)
     clusters       input/output cluster counts per type (compute: inputs...,
                    weight/alpha/LUT, bias when bias_type is VECTOR; absent
                    bias_type accepts either; CLIF: optional state input and
                    write-back output), a cluster's shape matches the block
                    (compute: dim for dim; storage, io: element count),
                    every cluster has an interface (but the input cluster
                    of a storage block that carries data may be empty)
     interface-box  each interface's position/size box lies in its cluster
                    (absent position = 0, absent size = the rest)
     edge-ends      ends exist; each edge named by exactly one output
                    interface (on its source) and one input interface (on
                    its destination); every interface names an existing edge
     alternation    storage -> compute -> storage; INPUT -> storage;
                    storage -> OUTPUT
     edge-size      the source box after the edge's rearrangements holds as
                    many elements as the destination box; equal counts with
                    different dims and no saying how: WARNING (implicit
                    row-major reshape)
     rearrange      malformed rearrangement parameters; a step holding more
                    than ti_task_rearrange_cap elements (edge and step named)
     data           one values field, the one of the precision; length =
                    product of dims; dims = the storage dims; data precision
                    = block precision; values in range (INT_8 -128..127,
                    TERNARY -1..1, ...); SW/SWFC/SW2D/SB that feed something
                    carry data unless an edge writes them
     io             INPUT (OUTPUT) sockets distinct (ti_task_socket_of:
                    socket_id, else the block id - the executor's rule),
                    socket_id >= 0
     attributes     known types, none twice, KERNEL/STRIDE/DILATION >= 1,
                    PAD >= 0, LUT_DW 1..16 (required on CLUT), BIT_SHIFT_NUM
                    0..31, bias_type VECTOR or CONSTANT; CLIF parameters
                    by ti_lif_params_check; CAVG/CCMPB/CCMPS windows of at
                    most TASKIR_MAX_WINDOW positions;
                    CC/CC2D/CAVG/CCMPB/CCMPS: ny, nx = (niy + pads -
                    dilation*(k-1) - 1) / stride + 1 and KERNEL = nky/nkx
     groups         group ids unique; a group names existing blocks, once
     cycle          acyclic (Kahn, iterative), except a CLIF's membrane
                    write-back (its second output), read at the next step */
TASKIR_API TI_NODISCARD ti_status ti_task_check(const ti_task_graph *g, ti_diag_list *out, ti_error *err);

/* >>task.stats ------------------------------------------------------------- */

/* Conventions (absent dims count as 1):
     params     compute: elements of its non-activation operands as its
                shape sizes them (CC weight nf*nr*nky*nkx, CVM nf*nr, CAX
                alpha nf, CLUT table 2^LUT_DW, bias nf when bias_type is
                VECTOR); storage: the values its data carries
     macs       ti_task_block_macs, by the row's formula: CC/CC2D
                ny*nx*nf*nr*nky*nkx; CVM nf*nr; CAVG, CCMPB, CCMPS
                ny*nx*nf*nky*nkx (window adds / compares); CADD
                ny*nx*nf*n_branch (each output sums n_branch inputs); CVVH,
                CAX, CVS, CLUT, CLIF ny*nx*nf (one op per output element)
     out_elems  compute: its output (CVM nf); storage: the elements it
                holds; INPUT its shape; OUTPUT 0
     storage_bytes  storage blocks: elements held * bytes of the precision
                (TERNARY, UINT_4 1; INT_9 2; INT_28 4), also for blocks
                that carry no data (intermediates)
     edge_bytes per edge: the source interface's box (the whole source
                output when no interface names the edge) * bytes of the
                source block's precision (a CC with INT_32 output moves 4
                bytes per element)
   Totals: params, macs and out_elems over compute blocks (so weights count
   once), data_elems and storage bytes over storage blocks. */
typedef struct ti_task_block_stats {
  int32_t block_id;
  ti_block_type type;
  int64_t params;            /* weight + bias elements read by a compute block / data of a storage block */
  int64_t macs;              /* multiply-accumulates (or ops for non-MAC blocks) */
  int64_t out_elems;         /* elements produced (storage: held) */
  int64_t storage_bytes;     /* storage blocks: bytes at their precision */
} ti_task_block_stats;
typedef struct ti_task_stats {
  int64_t params, macs, edge_bytes, blocks, edges;
  int64_t out_elems;                       /* elements produced by compute blocks */
  int64_t data_elems;                      /* values carried by storage blocks */
  int64_t storage_bytes[TI_DTYPE_COUNT];   /* by precision */
  int64_t storage_total;
  int32_t n_blocks;
  ti_task_block_stats *per_block;          /* n_blocks entries, TASKIR_MALLOC'd; NULL if not asked */
  int64_t *per_edge_bytes;                 /* with per_block: n_edges entries, edge_bytes edge by edge
                                              (0 for an edge without a source block) */
} ti_task_stats;
/* per_block: 1 to fill s->per_block (free with ti_task_stats_free, with
   the graph's alloc_user). Safe on graphs that fail the checker; LIMIT when
   a count exceeds int64 (the totals are then clamped). */
TASKIR_API TI_NODISCARD ti_status ti_task_statistics(const ti_task_graph *g, ti_task_stats *s, int per_block, ti_error *err);
TASKIR_API void ti_task_stats_free(ti_task_stats *s, void *alloc_user);
/* The role of input cluster `cluster` of block b: "data" (activations, and
   every cluster of a storage or OUTPUT block), "weight", "alpha", "lut",
   "state" (CLIF v_prev) or "bias"; NULL when b has no such cluster role. */
TASKIR_API const char *ti_task_input_role(const ti_task_block *b, int32_t cluster);

/* >>nn: the algorithm-level dialect and its reference interpreter ---------- */
#ifndef TASKIR_NO_NN

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
                         shift=s (optional, 0..31): result i8 =
                         clamp(acc >> s, clip_min, 127) (arithmetic shift;
                         clip_min=-128, 0 fuses a ReLU), else the i32
                         accumulator
     conv2d_backprop_input(dy, w)   (BPA) conv2d attrs + input_size=[H,W]
                         (default: the smallest input giving dy)
     conv2d_backprop_filter(x, dy)  (BPW) conv2d attrs + *kernel_shape=[KH,KW];
                         result OIHW (x NCHW) or HWOI (x NHWC)
     gemm(a, b[, c])     alpha=1.0, beta=1.0, trans_a=0, trans_b=0;
                         alpha*op(a)@op(b) + beta*c (c broadcast to [M,N])
     quant_gemm(a:i8, b:i8[, c:i32])  trans_a, trans_b, shift, clip_min as
                         quant_conv2d
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
     div(a, b)           as add; integer division truncates (by 0: error)
     floor(x), sigmoid(x), tanh(x), leaky_relu(x)  alpha=0.01 (leaky_relu)
     softmax(x)          axis=-1 (storage order): exp(x-max)/sum over axis
     slice(x)            *starts, *ends, steps=1s: one int per dim (storage
                         order), ONNX/numpy clamping, negative steps reverse
     cast(x)             *dtype="f32"|"i8"|...: integers truncate towards 0
                         and saturate
   Elementwise arithmetic computes in double and converts to the result
   dtype (integers saturate). f16 data is not supported by the interpreter. */

/* A dense tensor of the interpreter: numel elements in row-major order of
   dims (storage order of `layout`). relu_, reshape and flatten results share
   refcounted storage with their operand (so a later relu_ is seen through
   every alias); transpose results are copies (a write through a transposed
   alias is not seen by the transpose's operand: the one aliasing case the
   interpreter does not model; passes treat transpose as a view). An eval (ti_eval_fn) fills
   results[i] with new tensors; on failure the caller frees those that are
   not NULL. */
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

TASKIR_API TI_NODISCARD ti_status ti_nn_register(ti_context *ctx, ti_error *err);

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
TASKIR_API TI_NODISCARD ti_status ti_interpret(const ti_program *p, const ti_tensor_value *const *inputs, int32_t n_inputs,
                                  ti_tensor_value **outputs, int32_t *n_outputs, ti_error *err);
/* The eval of an op kind (info->eval); NULL if none. */
TASKIR_API ti_eval_fn ti_eval_of(const ti_op_info *info);
#endif /* TASKIR_NO_NN */

#ifdef __cplusplus
}
#endif
#endif /* TASKIR_H */

/* ======================================================================== */
#if defined(TASKIR_IMPLEMENTATION) && !defined(TASKIR_IMPL_INCLUDED)
#define TASKIR_IMPL_INCLUDED

/* the kernels' implementation, when an earlier include gave only the
   declarations (declare first, implement later, as stb allows) */
#include "taskir_kernels.h"

#include <errno.h>
#include <math.h>
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

TASKIR_API ti_status (ti_error_set)(ti_error *err, ti_status status, const char *fmt, ...) {
  if (err && err->status == TI_STATUS_SUCCESS) {
    err->status = status;
    err->message[0] = 0;
#ifdef TASKIR_NO_ERRMSG
    (void)fmt;
#else
    if (fmt) {
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
/* Chunks double up to this size, then stay there: far below the size from
   which the C library maps a block on its own and unmaps it when freed
   (glibc: its mmap threshold, at most 32 MiB), so a freed arena's memory
   is reused by the next one instead of being mapped (and first-touched)
   afresh on every run. Measured on the 10^5-node ONNX pipeline: 1 MiB
   chunks touch the fewest fresh pages (64 MiB chunks: 18% more); a
   request above it gets a chunk of its own size. */
#define TI__ARENA_MAX_CHUNK ((size_t)1 << 20)
/* How far a new chunk looks along the spare list for one that fits. */
#define TI__ARENA_SPARE_SCAN 64

TASKIR_API void ti_arena_init(ti_arena *a, void *alloc_user) {
  a->head = NULL;
  a->used = a->cap = a->total = 0;
  a->alloc_user = alloc_user;
  a->pool = NULL;
  a->spare = NULL;
}

/* The context's chunk cache (>>impl.core.context): a chunk of at least
   `size` payload bytes, NULL if none fits; and giving one back (0 when the
   cache does not keep it: the caller frees it). */
static ti_arena_chunk *ti__pool_take(struct ti_context *ctx, size_t size);
static void ti__pool_lend(struct ti_context *ctx, const ti_arena_chunk *c);
static int ti__pool_give(struct ti_context *ctx, ti_arena_chunk *c);

TASKIR_API void *ti_arena_alloc_uninit(ti_arena *a, size_t size, size_t align) {
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
      return base + start;
    }
  }
  {
    /* New chunk: twice the last one up to TI__ARENA_MAX_CHUNK, and big
       requests get a chunk of their own size. */
    size_t cap = a->cap ? a->cap * 2 : TI__ARENA_MIN_CHUNK;
    ti_arena_chunk *c = NULL;
    int big;
    if (cap > TI__ARENA_MAX_CHUNK) cap = TI__ARENA_MAX_CHUNK;
    big = size >= cap;
    if (big) cap = size;
    if (cap > (size_t)-1 - TI__CHUNK_HEADER) return NULL;
    if (a->spare) {   /* a chunk kept by ti_arena_reset: already ours */
      ti_arena_chunk **at;
      int k;
      for (at = &a->spare, k = 0; *at && k < TI__ARENA_SPARE_SCAN; at = &(*at)->next, k++)
        if ((*at)->cap >= size && (big ? (*at)->cap / 2 <= size : (*at)->cap <= TI__ARENA_MAX_CHUNK)) {
          c = *at;
          *at = c->next;
          cap = c->cap;
          break;
        }
    }
    if (!c) {
      if (a->pool && (c = ti__pool_take(a->pool, size)) != NULL) {
        cap = c->cap;   /* a cached chunk, of at least `size` bytes */
      } else {
        c = (ti_arena_chunk *)TASKIR_MALLOC(a->alloc_user, TI__CHUNK_HEADER + cap);
        if (!c) return NULL;
        c->cap = cap;
      }
      if (a->pool) ti__pool_lend(a->pool, c);
      a->total += TI__CHUNK_HEADER + cap;
    }
    if (a->head && big) {
      /* A one-off big block: keep using the current chunk for small ones. */
      c->next = a->head->next;
      a->head->next = c;
    } else {
      c->next = a->head;
      a->head = c;
      a->cap = cap;
      a->used = size;
    }
    return (unsigned char *)c + TI__CHUNK_HEADER;
  }
}

TASKIR_API void *ti_arena_alloc(ti_arena *a, size_t size, size_t align) {
  void *m = ti_arena_alloc_uninit(a, size, align);
  if (m) memset(m, 0, size ? size : 1);
  return m;
}

TASKIR_API void *ti_arena_array(ti_arena *a, size_t n, size_t elem_size, size_t align) {
  if (elem_size && n > ((size_t)-1) / elem_size) return NULL;
  return ti_arena_alloc(a, n * elem_size, align);
}

TASKIR_API void *ti_arena_array_uninit(ti_arena *a, size_t n, size_t elem_size, size_t align) {
  if (elem_size && n > ((size_t)-1) / elem_size) return NULL;
  return ti_arena_alloc_uninit(a, n * elem_size, align);
}

/* Resizes p (old_size bytes from a) to new_size >= old_size bytes: in place
   when p is the latest allocation of the current chunk and the chunk has
   room, else into new memory with a copy (the old bytes stay in the arena).
   The added bytes are not zeroed. NULL when out of memory. */
static void *ti__arena_regrow(ti_arena *a, void *p, size_t old_size, size_t new_size, size_t align) {
  void *nw;
  if (p && old_size && a->head) {
    unsigned char *base = (unsigned char *)a->head + TI__CHUNK_HEADER, *end = base + a->used;
    if ((unsigned char *)p + old_size == end && new_size - old_size <= a->cap - a->used) {
      a->used += new_size - old_size;
      return p;
    }
  }
  nw = ti_arena_alloc_uninit(a, new_size, align);
  if (nw && p && old_size) memcpy(nw, p, old_size);
  return nw;
}

TASKIR_API char *ti_arena_strndup(ti_arena *a, const char *s, size_t n) {
  char *d;
  if (n == (size_t)-1) return NULL;
  d = (char *)ti_arena_alloc(a, n + 1, 1);
  if (d) { if (n) memcpy(d, s, n); d[n] = 0; }
  return d;
}

TASKIR_API void ti_arena_free(ti_arena *a) {
  ti_arena_reset(a);
  while (a->spare) {
    ti_arena_chunk *c = a->spare;
    a->spare = c->next;
    if (!a->pool || !ti__pool_give(a->pool, c)) TASKIR_FREE(a->alloc_user, c);
  }
  a->total = 0;
}

TASKIR_API void ti_arena_reset(ti_arena *a) {
  /* onto the spare list in the order they were taken (the oldest, and
     smallest of the doubling chunks, first) */
  ti_arena_chunk *c = a->head;
  while (c) {
    ti_arena_chunk *next = c->next;
    c->next = a->spare;
    a->spare = c;
    c = next;
  }
  a->head = NULL;
  a->used = a->cap = 0;
}

/* Growable arrays: *items (an array of `size`-byte elements with room for
   *cap) gets room for at least `need`. Capacity doubles from `min`, never
   beyond `max` elements; on failure the array is kept as it was. 0 when out
   of memory or need > max. items is the address of the array pointer. */
static int ti__grow(void *alloc_user, void *items, size_t size, int64_t *cap, int64_t need, int64_t min, int64_t max) {
  void *old, *nw;
  int64_t nc;
  if (need <= *cap) return 1;
  if (need > max || min < 1) return 0;
  nc = *cap > 0 ? *cap : min;
  while (nc < need) nc = nc > max / 2 ? max : nc * 2;
  if ((uint64_t)nc > (uint64_t)((size_t)-1) / size) return 0;
  memcpy(&old, items, sizeof old);
  nw = TASKIR_REALLOC(alloc_user, old, (size_t)nc * size);
  if (!nw) return 0;
  memcpy(items, &nw, sizeof nw);
  *cap = nc;
  return 1;
}

/* >>impl.core.hash: small open-addressing tables ------------------------- */

/* Intern tables hold pointers; the hash lives in the object. */
typedef struct ti__table {
  void **slots;
  uint32_t *hashes;
  size_t cap, n;             /* cap is a power of two or 0 */
} ti__table;

static uint32_t ti__hash_bytes(const void *data, size_t n, uint32_t h) {
  const unsigned char *p = (const unsigned char *)data;
  size_t i;
  h ^= 2166136261u;
  for (i = 0; i < n; i++) { h ^= p[i]; h *= 16777619u; }
  h ^= h >> 15; h *= 0x2c1b3c6du; h ^= h >> 12;
  return h ? h : 1;
}
static uint32_t ti__hash_mix(uint32_t h, uint64_t v) {
  return ti__hash_bytes(&v, sizeof v, h);
}

static int ti__table_grow(ti__table *t, void *alloc_user) {
  size_t ncap = t->cap ? t->cap * 2 : 64, i;
  void **slots = (void **)TASKIR_MALLOC(alloc_user, ncap * sizeof *slots);
  uint32_t *hashes = (uint32_t *)TASKIR_MALLOC(alloc_user, ncap * sizeof *hashes);
  if (!slots || !hashes) {
    if (slots) TASKIR_FREE(alloc_user, slots);
    if (hashes) TASKIR_FREE(alloc_user, hashes);
    return 0;
  }
  memset(slots, 0, ncap * sizeof *slots);
  for (i = 0; i < t->cap; i++) {
    if (t->slots[i]) {
      size_t j = t->hashes[i] & (ncap - 1);
      while (slots[j]) j = (j + 1) & (ncap - 1);
      slots[j] = t->slots[i];
      hashes[j] = t->hashes[i];
    }
  }
  if (t->slots) { TASKIR_FREE(alloc_user, t->slots); TASKIR_FREE(alloc_user, t->hashes); }
  t->slots = slots; t->hashes = hashes; t->cap = ncap;
  return 1;
}

static void ti__table_free(ti__table *t, void *alloc_user) {
  if (t->slots) { TASKIR_FREE(alloc_user, t->slots); TASKIR_FREE(alloc_user, t->hashes); }
  memset(t, 0, sizeof *t);
}

/* Finds the slot of an entry equal to key (eq(entry, key)) or the empty slot
   where it would go. Grows first so there is always an empty slot. */
static void **ti__table_find(ti__table *t, uint32_t h, int (*eq)(const void *entry, const void *key),
                             const void *key, void *alloc_user) {
  size_t j;
  if ((t->n + 1) * 4 > t->cap * 3 && !ti__table_grow(t, alloc_user)) return NULL;
  j = h & (t->cap - 1);
  while (t->slots[j]) {
    if (t->hashes[j] == h && eq(t->slots[j], key)) return &t->slots[j];
    j = (j + 1) & (t->cap - 1);
  }
  t->hashes[j] = h;
  return &t->slots[j];
}

/* Pointer -> int64 map (open addressing), for value slots and passes; a
   key and its value share a slot (one cache miss per probe). */
typedef struct ti__ptrent { const void *key; int64_t val; } ti__ptrent;
typedef struct ti__ptrmap { ti__ptrent *e; int64_t cap, n; void *au; } ti__ptrmap;
static size_t ti__ptrhash(const void *p) {
  uint64_t x = (uint64_t)(uintptr_t)p;
  x ^= x >> 33; x *= 0xff51afd7ed558ccdULL; x ^= x >> 33;
  return (size_t)x;
}
/* Room for n keys at most half full; 0 when out of memory. */
static int ti__ptrmap_init(ti__ptrmap *m, int64_t n, void *au) {
  int64_t cap = 16;
  while (cap < 2 * n + 2) cap *= 2;
  m->au = au;
  m->cap = cap;
  m->n = 0;
  m->e = (ti__ptrent *)TASKIR_MALLOC(au, (size_t)cap * sizeof *m->e);
  if (!m->e) return 0;
  memset(m->e, 0, (size_t)cap * sizeof *m->e);
  return 1;
}
static void ti__ptrmap_free(ti__ptrmap *m) {
  if (m->e) TASKIR_FREE(m->au, m->e);
  m->e = NULL;
}
/* Grows to keep at most half the slots used; 0 when out of memory. */
static int ti__ptrmap_put(ti__ptrmap *m, const void *k, int64_t v) {
  size_t i;
  if (2 * (m->n + 1) > m->cap) {
    ti__ptrmap g;
    int64_t j;
    if (!ti__ptrmap_init(&g, m->cap, m->au)) return 0;
    for (j = 0; j < m->cap; j++)
      if (m->e[j].key) {
        size_t h = ti__ptrhash(m->e[j].key) & (size_t)(g.cap - 1);
        while (g.e[h].key) h = (h + 1) & (size_t)(g.cap - 1);
        g.e[h] = m->e[j];
        g.n++;
      }
    ti__ptrmap_free(m);
    *m = g;
  }
  i = ti__ptrhash(k) & (size_t)(m->cap - 1);
  while (m->e[i].key && m->e[i].key != k) i = (i + 1) & (size_t)(m->cap - 1);
  if (!m->e[i].key) m->n++;
  m->e[i].key = k;
  m->e[i].val = v;
  return 1;
}
static int64_t ti__ptrmap_get(const ti__ptrmap *m, const void *k, int64_t dflt) {
  size_t i = ti__ptrhash(k) & (size_t)(m->cap - 1);
  while (m->e[i].key) {
    if (m->e[i].key == k) return m->e[i].val;
    i = (i + 1) & (size_t)(m->cap - 1);
  }
  return dflt;
}

/* >>impl.core.builtin: the builtin dialect --------------------------------- */

static int ti__same_shape(const ti_type *a, const ti_type *b) {
  return a->dtype == b->dtype && a->rank == b->rank && memcmp(a->dims, b->dims, sizeof(int64_t) * (size_t)a->rank) == 0;
}

static ti_status ti__verify_get_parameter(const ti_op *op, ti_error *err) {
  const char *name = ti_dict_string(op->attrs, "name", NULL);
  const ti_variable *v = name ? ti_program_find_var(op->program, name) : NULL;
  if (!v) return ti_error_set(err, TI_STATUS_INVALID, "builtin.get_parameter: no variable '%s' in the weights table",
                              name ? name : "(name is not a string)");
  if (!ti__same_shape(v->type, op->results[0].type))
    return ti_error_set(err, TI_STATUS_INVALID, "builtin.get_parameter '%s': result type differs from the variable's", name);
  return TI_STATUS_SUCCESS;
}
static ti_status ti__verify_set_parameter(const ti_op *op, ti_error *err) {
  const char *name = ti_dict_string(op->attrs, "name", NULL);
  const ti_variable *v = name ? ti_program_find_var(op->program, name) : NULL;
  if (!v) return ti_error_set(err, TI_STATUS_INVALID, "builtin.set_parameter: no variable '%s' in the weights table",
                              name ? name : "(name is not a string)");
  if (!ti__same_shape(v->type, op->operands[0].value->type))
    return ti_error_set(err, TI_STATUS_INVALID, "builtin.set_parameter '%s': operand type differs from the variable's", name);
  return TI_STATUS_SUCCESS;
}
static ti_status ti__verify_convert(const ti_op *op, ti_error *err, ti_type_kind from, ti_type_kind to) {
  const ti_type *a = op->operands[0].value->type, *r = op->results[0].type;
  if (a->kind != from || r->kind != to || !ti__same_shape(a, r))
    return ti_error_set(err, TI_STATUS_INVALID, "%s: expects a %s operand and a %s result of the same shape", op->info->name,
                        from == TI_TYPE_TENSOR ? "tensor" : "vtensor", to == TI_TYPE_TENSOR ? "tensor" : "vtensor");
  return TI_STATUS_SUCCESS;
}
static ti_status ti__verify_to_tensor(const ti_op *op, ti_error *err) {
  return ti__verify_convert(op, err, TI_TYPE_VTENSOR, TI_TYPE_TENSOR);
}
static ti_status ti__verify_to_vtensor(const ti_op *op, ti_error *err) {
  return ti__verify_convert(op, err, TI_TYPE_TENSOR, TI_TYPE_VTENSOR);
}
static ti_status ti__verify_return(const ti_op *op, ti_error *err) {
  if (op->next) return ti_error_set(err, TI_STATUS_INVALID, "builtin.return must be the last op of the program");
  return TI_STATUS_SUCCESS;
}

/* Evals of the builtin ops, with the interpreter (>>impl.nn; none with
   TASKIR_NO_NN). */
#ifndef TASKIR_NO_NN
#define TI__BUILTIN_EVAL(name) \
  static ti_status ti__builtin_eval_##name(const ti_op *op, const ti_tensor_value *const *operands, \
                                           ti_tensor_value **results, ti_error *err);
TI__BUILTIN_EVAL(get_parameter)
TI__BUILTIN_EVAL(set_parameter)
TI__BUILTIN_EVAL(to_tensor)
TI__BUILTIN_EVAL(to_vtensor)
TI__BUILTIN_EVAL(constant)
TI__BUILTIN_EVAL(return)
#undef TI__BUILTIN_EVAL
#define TI__BUILTIN_EVAL(name) ti__builtin_eval_##name
#else
#define TI__BUILTIN_EVAL(name) NULL
#endif

static const char *const ti__attrs_name[] = { "name", NULL };
static const char *const ti__attrs_value[] = { "value", NULL };

/* name, dialect, required attrs, traits, min/max operands, results,
   verify, infer_shape, layout, fold, eval, dialect_data */
static const ti_op_info ti__builtin_ops[] = {
  { "builtin.return", "builtin", NULL, TI_TRAIT_TERMINATOR, 0, -1, 0, ti__verify_return, NULL, NULL, NULL, TI__BUILTIN_EVAL(return), NULL },
  { "builtin.get_parameter", "builtin", ti__attrs_name, TI_TRAIT_READ_ONLY, 0, 0, 1, ti__verify_get_parameter, NULL, NULL, NULL, TI__BUILTIN_EVAL(get_parameter), NULL },
  { "builtin.set_parameter", "builtin", ti__attrs_name, 0, 1, 1, 0, ti__verify_set_parameter, NULL, NULL, NULL, TI__BUILTIN_EVAL(set_parameter), NULL },
  { "builtin.constant", "builtin", ti__attrs_value, TI_TRAIT_PURE | TI_TRAIT_CONSTANT_LIKE | TI_TRAIT_VALUE_SEMANTICS | TI_TRAIT_READ_ONLY,
    0, 0, 1, NULL, NULL, NULL, NULL, TI__BUILTIN_EVAL(constant), NULL },
  { "builtin.to_tensor", "builtin", NULL, TI_TRAIT_READ_ONLY, 1, 1, 1, ti__verify_to_tensor, NULL, NULL, NULL, TI__BUILTIN_EVAL(to_tensor), NULL },
  { "builtin.to_vtensor", "builtin", NULL, TI_TRAIT_READ_ONLY, 1, 1, 1, ti__verify_to_vtensor, NULL, NULL, NULL, TI__BUILTIN_EVAL(to_vtensor), NULL }
};
static const int32_t ti__builtin_op_count = (int32_t)(sizeof ti__builtin_ops / sizeof *ti__builtin_ops);
#undef TI__BUILTIN_EVAL

/* >>impl.core.context ----------------------------------------------------- */

struct ti_context {
  void *alloc_user;
  ti_arena arena;            /* interned types, attributes, op infos of unregistered ops */
  ti__table types, attrs, ops;
  int allow_unregistered;
  /* The chunk cache of the pooled arenas: chunks of the standard sizes (up
     to TI__ARENA_MAX_CHUNK) in one list, taken from its head; bigger ones
     (one-off requests) in another, first fit among its first
     TI__POOL_BIG_SCAN. lent: bytes of chunks in pooled arenas now; peak: the
     most lent at once; cached + lent never exceeds peak, nor cached the limit. */
  ti_arena_chunk *pool_std, *pool_big;
  size_t pool_cached, pool_lent, pool_peak, pool_limit;
};

#define TI__POOL_BIG_SCAN 32

static ti_arena_chunk *ti__pool_take(ti_context *ctx, size_t size) {
  ti_arena_chunk *c = NULL, **at;
  int k;
  if (size <= TI__ARENA_MAX_CHUNK && ctx->pool_std && ctx->pool_std->cap >= size) {
    c = ctx->pool_std;
    ctx->pool_std = c->next;
  } else {
    for (at = &ctx->pool_big, k = 0; *at && k < TI__POOL_BIG_SCAN; at = &(*at)->next, k++)
      if ((*at)->cap >= size && (*at)->cap / 2 <= size) {   /* fits, at most half of it unused */
        c = *at;
        *at = c->next;
        break;
      }
  }
  if (c) ctx->pool_cached -= TI__CHUNK_HEADER + c->cap;
  return c;
}

static void ti__pool_lend(ti_context *ctx, const ti_arena_chunk *c) {
  ctx->pool_lent += TI__CHUNK_HEADER + c->cap;
  if (ctx->pool_lent > ctx->pool_peak) ctx->pool_peak = ctx->pool_lent;
}

static int ti__pool_give(ti_context *ctx, ti_arena_chunk *c) {
  size_t bytes = TI__CHUNK_HEADER + c->cap;
  int keep = ctx->pool_cached + ctx->pool_lent <= ctx->pool_peak && bytes <= ctx->pool_limit &&
             ctx->pool_cached <= ctx->pool_limit - bytes;
  ctx->pool_lent -= bytes;
  if (!keep) return 0;
  if (c->cap <= TI__ARENA_MAX_CHUNK) {
    /* the list stays in decreasing capacity order at its head when chunks
       of a smaller size come back: a big one goes first */
    if (ctx->pool_std && ctx->pool_std->cap > c->cap) { c->next = ctx->pool_std->next; ctx->pool_std->next = c; }
    else { c->next = ctx->pool_std; ctx->pool_std = c; }
  } else {
    c->next = ctx->pool_big;
    ctx->pool_big = c;
  }
  ctx->pool_cached += bytes;
  return 1;
}

TASKIR_API void ti_context_set_cache_limit(ti_context *ctx, size_t max_bytes) {
  ti_arena_chunk **lists[2];
  int k;
  if (!ctx) return;
  ctx->pool_limit = max_bytes;
  lists[0] = &ctx->pool_big; lists[1] = &ctx->pool_std;
  for (k = 0; k < 2 && ctx->pool_cached > max_bytes; k++)   /* the big chunks go first */
    while (*lists[k] && ctx->pool_cached > max_bytes) {
      ti_arena_chunk *c = *lists[k];
      *lists[k] = c->next;
      ctx->pool_cached -= TI__CHUNK_HEADER + c->cap;
      TASKIR_FREE(ctx->alloc_user, c);
    }
}

TASKIR_API void ti_context_trim(ti_context *ctx) {
  size_t limit;
  if (!ctx) return;
  limit = ctx->pool_limit;
  ti_context_set_cache_limit(ctx, 0);
  ctx->pool_limit = limit;
}

TASKIR_API size_t ti_context_cached_bytes(const ti_context *ctx) { return ctx ? ctx->pool_cached : 0; }

TASKIR_API void ti_arena_init_pooled(ti_arena *a, ti_context *ctx) {
  ti_arena_init(a, ctx ? ctx->alloc_user : NULL);   /* no context: a plain arena */
  a->pool = ctx;
}

TASKIR_API ti_context *ti_context_create(void *alloc_user) {
  ti_context *ctx = (ti_context *)TASKIR_MALLOC(alloc_user, sizeof *ctx);
  if (!ctx) return NULL;
  memset(ctx, 0, sizeof *ctx);
  ctx->alloc_user = alloc_user;
  ctx->pool_limit = (size_t)-1;
  ti_arena_init(&ctx->arena, alloc_user);
  if (ti_register_ops(ctx, ti__builtin_ops, ti__builtin_op_count, NULL) != TI_STATUS_SUCCESS) {
    ti_context_destroy(ctx);
    return NULL;
  }
  return ctx;
}

TASKIR_API void ti_context_destroy(ti_context *ctx) {
  if (!ctx) return;
  ti__table_free(&ctx->types, ctx->alloc_user);
  ti__table_free(&ctx->attrs, ctx->alloc_user);
  ti__table_free(&ctx->ops, ctx->alloc_user);
  ti_arena_free(&ctx->arena);
  ti_context_trim(ctx);
  TASKIR_FREE(ctx->alloc_user, ctx);
}

TASKIR_API void ti_context_allow_unregistered(ti_context *ctx, int allow) { ctx->allow_unregistered = allow; }

/* >>impl.core.types ------------------------------------------------------- */

static const char *const ti__layout_names[] = { "any", "NCHW", "NHWC", "OIHW", "HWOI", "TENSOR", "NTENSOR" };
TI__STATIC_ASSERT(sizeof ti__layout_names / sizeof *ti__layout_names == TI_LAYOUT_COUNT, layout_names);

TASKIR_API const char *ti_layout_name(ti_layout l) {
  return (unsigned)l < TI_LAYOUT_COUNT ? ti__layout_names[l] : NULL;
}
TASKIR_API int ti_layout_is_cnn(ti_layout l) {
  return l == TI_LAYOUT_NCHW || l == TI_LAYOUT_NHWC || l == TI_LAYOUT_OIHW || l == TI_LAYOUT_HWOI;
}

/* a * b for a, b >= 0 into *r; 0 (and *r untouched) when it overflows
   int64 or an operand is negative. The one checked multiplication of sizes. */
static int ti__mul64(int64_t a, int64_t b, int64_t *r) {
  if (a < 0 || b < 0 || (a != 0 && b > INT64_MAX / a)) return 0;
  *r = a * b;
  return 1;
}

TASKIR_API int ti_type_fits(ti_dtype dtype, int32_t rank, const int64_t *dims) {
  int64_t n = (int64_t)ti_dtype_size(dtype);
  int32_t i;
  if (n < 1) n = 1;
  for (i = 0; i < rank; i++)
    if (dims[i] > 0 && !ti__mul64(n, dims[i], &n)) return 0;
  return 1;
}

static uint32_t ti__type_hash(const ti_type *t) {
  uint32_t h = ti__hash_mix(0, ((uint64_t)t->kind << 40) ^ ((uint64_t)t->dtype << 20) ^
                                   ((uint64_t)t->layout << 8) ^ (uint64_t)t->rank);
  return ti__hash_bytes(t->dims, sizeof(int64_t) * (size_t)t->rank, h);
}
static int ti__type_eq(const void *a_, const void *b_) {
  const ti_type *a = (const ti_type *)a_, *b = (const ti_type *)b_;
  return a->kind == b->kind && a->dtype == b->dtype && a->layout == b->layout && a->rank == b->rank &&
         memcmp(a->dims, b->dims, sizeof(int64_t) * (size_t)a->rank) == 0;
}

TASKIR_API const ti_type *ti_type_get(ti_context *ctx, ti_type_kind kind, ti_dtype dtype, int32_t rank,
                                      const int64_t *dims, ti_layout layout) {
  ti_type key, *t;
  void **slot;
  int32_t i;
  if (rank < 0 || rank > TI_MAX_RANK || (unsigned)kind >= TI_TYPE_KIND_COUNT ||
      (unsigned)dtype >= TI_DTYPE_COUNT || (unsigned)layout >= TI_LAYOUT_COUNT)
    return NULL;
  memset(&key, 0, sizeof key);
  key.kind = kind; key.dtype = dtype; key.layout = layout; key.rank = rank;
  for (i = 0; i < rank; i++) {
    if (dims[i] < -1) return NULL;
    key.dims[i] = dims[i];
  }
  if (!ti_type_fits(dtype, rank, dims)) return NULL;
  slot = ti__table_find(&ctx->types, ti__type_hash(&key), ti__type_eq, &key, ctx->alloc_user);
  if (!slot) return NULL;
  if (*slot) return (const ti_type *)*slot;
  t = (ti_type *)ti_arena_alloc(&ctx->arena, sizeof *t, 8);
  if (!t) return NULL;
  *t = key;
  *slot = t;
  ctx->types.n++;
  return t;
}

TASKIR_API const ti_type *ti_type_with_kind(ti_context *ctx, const ti_type *t, ti_type_kind kind) {
  return ti_type_get(ctx, kind, t->dtype, t->rank, t->dims, t->layout);
}
TASKIR_API const ti_type *ti_type_with_layout(ti_context *ctx, const ti_type *t, ti_layout layout) {
  return ti_type_get(ctx, t->kind, t->dtype, t->rank, t->dims, layout);
}
TASKIR_API int64_t ti_type_numel(const ti_type *t) {
  int64_t n = 1;
  int32_t i;
  for (i = 0; i < t->rank; i++)
    if (!ti__mul64(n, t->dims[i], &n)) return -1;   /* dynamic (-1) or too large */
  return n;
}

/* >>impl.core.attributes -------------------------------------------------- */

static uint32_t ti__attr_hash(const ti_attr *a) {
  uint32_t h = ti__hash_mix(0x9e37u, (uint64_t)a->kind);
  int64_t i;
  switch (a->kind) {
  case TI_ATTR_INT: case TI_ATTR_BOOL: return ti__hash_mix(h, (uint64_t)a->u.i);
  case TI_ATTR_FLOAT: { uint64_t bits; memcpy(&bits, &a->u.f, 8); return ti__hash_mix(h, bits); }
  case TI_ATTR_STRING: return ti__hash_bytes(a->u.s.data, (size_t)a->u.s.len, h);
  case TI_ATTR_TYPE: return ti__hash_mix(h, (uint64_t)(uintptr_t)a->u.type);
  case TI_ATTR_ARRAY:
    for (i = 0; i < a->u.array.n; i++) h = ti__hash_mix(h, (uint64_t)(uintptr_t)a->u.array.items[i]);
    return h;
  case TI_ATTR_DICT:
    for (i = 0; i < a->u.dict.n; i++)
      h = ti__hash_mix(ti__hash_mix(h, (uint64_t)(uintptr_t)a->u.dict.items[i].name),
                       (uint64_t)(uintptr_t)a->u.dict.items[i].value);
    return h;
  default: return h;
  }
}

/* Children are interned, so shallow comparison is deep equality. */
static int ti__attr_eq(const void *a_, const void *b_) {
  const ti_attr *a = (const ti_attr *)a_, *b = (const ti_attr *)b_;
  int64_t i;
  if (a->kind != b->kind) return 0;
  switch (a->kind) {
  case TI_ATTR_INT: case TI_ATTR_BOOL: return a->u.i == b->u.i;
  case TI_ATTR_FLOAT: return memcmp(&a->u.f, &b->u.f, sizeof(double)) == 0;
  case TI_ATTR_STRING: return a->u.s.len == b->u.s.len && memcmp(a->u.s.data, b->u.s.data, (size_t)a->u.s.len) == 0;
  case TI_ATTR_TYPE: return a->u.type == b->u.type;
  case TI_ATTR_ARRAY:
    if (a->u.array.n != b->u.array.n) return 0;
    for (i = 0; i < a->u.array.n; i++) if (a->u.array.items[i] != b->u.array.items[i]) return 0;
    return 1;
  case TI_ATTR_DICT:
    if (a->u.dict.n != b->u.dict.n) return 0;
    for (i = 0; i < a->u.dict.n; i++)
      if (a->u.dict.items[i].name != b->u.dict.items[i].name || a->u.dict.items[i].value != b->u.dict.items[i].value)
        return 0;
    return 1;
  default: return 0;
  }
}

/* Interns key; payload arrays of key are copied into the arena when new. */
static const ti_attr *ti__attr_intern(ti_context *ctx, ti_attr *key) {
  void **slot;
  ti_attr *a;
  key->hash = ti__attr_hash(key);
  slot = ti__table_find(&ctx->attrs, key->hash, ti__attr_eq, key, ctx->alloc_user);
  if (!slot) return NULL;
  if (*slot) return (const ti_attr *)*slot;
  a = (ti_attr *)ti_arena_alloc(&ctx->arena, sizeof *a, 8);
  if (!a) return NULL;
  *a = *key;
  switch (key->kind) {
  case TI_ATTR_STRING:
    a->u.s.data = ti_arena_strndup(&ctx->arena, key->u.s.data, (size_t)key->u.s.len);
    if (!a->u.s.data) return NULL;
    break;
  case TI_ATTR_ARRAY: {
    const ti_attr **items = (const ti_attr **)ti_arena_array(&ctx->arena, (size_t)key->u.array.n, sizeof *items, 8);
    if (!items) return NULL;
    if (key->u.array.n) memcpy((void *)items, key->u.array.items, (size_t)key->u.array.n * sizeof *items);
    a->u.array.items = items;
    break;
  }
  case TI_ATTR_DICT: {
    ti_named_attr *items = (ti_named_attr *)ti_arena_array(&ctx->arena, (size_t)key->u.dict.n, sizeof *items, 8);
    if (!items) return NULL;
    if (key->u.dict.n) memcpy(items, key->u.dict.items, (size_t)key->u.dict.n * sizeof *items);
    a->u.dict.items = items;
    break;
  }
  default: break;
  }
  *slot = a;
  ctx->attrs.n++;
  return a;
}

TASKIR_API const ti_attr *ti_attr_int(ti_context *ctx, int64_t v) {
  ti_attr k; memset(&k, 0, sizeof k); k.kind = TI_ATTR_INT; k.u.i = v;
  return ti__attr_intern(ctx, &k);
}
TASKIR_API const ti_attr *ti_attr_float(ti_context *ctx, double v) {
  ti_attr k; memset(&k, 0, sizeof k); k.kind = TI_ATTR_FLOAT; k.u.f = v;
  return ti__attr_intern(ctx, &k);
}
TASKIR_API const ti_attr *ti_attr_bool(ti_context *ctx, int v) {
  ti_attr k; memset(&k, 0, sizeof k); k.kind = TI_ATTR_BOOL; k.u.i = v ? 1 : 0;
  return ti__attr_intern(ctx, &k);
}
TASKIR_API const ti_attr *ti_attr_string(ti_context *ctx, const char *s, int64_t len) {
  ti_attr k; memset(&k, 0, sizeof k); k.kind = TI_ATTR_STRING;
  k.u.s.data = s; k.u.s.len = len < 0 ? (int64_t)strlen(s) : len;
  return ti__attr_intern(ctx, &k);
}
TASKIR_API const ti_attr *ti_attr_array(ti_context *ctx, const ti_attr *const *items, int64_t n) {
  ti_attr k; int64_t i;
  for (i = 0; i < n; i++) if (!items[i]) return NULL;
  memset(&k, 0, sizeof k); k.kind = TI_ATTR_ARRAY; k.u.array.items = items; k.u.array.n = n;
  return ti__attr_intern(ctx, &k);
}
TASKIR_API const ti_attr *ti_attr_int_array(ti_context *ctx, const int64_t *v, int64_t n) {
  const ti_attr *small[16], **items = small, *r;
  int64_t i;
  if (n > 16) {
    items = (const ti_attr **)TASKIR_MALLOC(ctx->alloc_user, (size_t)n * sizeof *items);
    if (!items) return NULL;
  }
  for (i = 0; i < n; i++) if (!(items[i] = ti_attr_int(ctx, v[i]))) break;
  r = i == n ? ti_attr_array(ctx, items, n) : NULL;
  if (items != small) TASKIR_FREE(ctx->alloc_user, (void *)items);
  return r;
}
TASKIR_API const ti_attr *ti_attr_type_attr(ti_context *ctx, const ti_type *t) {
  ti_attr k;
  if (!t) return NULL;
  memset(&k, 0, sizeof k); k.kind = TI_ATTR_TYPE; k.u.type = t;
  return ti__attr_intern(ctx, &k);
}

static int ti__name_cmp(const ti_attr *a, const char *b, size_t blen) {
  size_t alen = (size_t)a->u.s.len, n = alen < blen ? alen : blen;
  int c = memcmp(a->u.s.data, b, n);
  return c ? c : (alen < blen ? -1 : alen > blen ? 1 : 0);
}

TASKIR_API const ti_attr *ti_attr_dict(ti_context *ctx, const ti_named_attr *items, int64_t n) {
  ti_named_attr small[16], *sorted = small;
  ti_attr k;
  const ti_attr *r = NULL;
  int64_t i, j;
  if (n > 16) {
    sorted = (ti_named_attr *)TASKIR_MALLOC(ctx->alloc_user, (size_t)n * sizeof *sorted);
    if (!sorted) return NULL;
  }
  /* insertion sort: dictionaries are small */
  for (i = 0; i < n; i++) {
    ti_named_attr x = items[i];
    if (!x.name || x.name->kind != TI_ATTR_STRING || !x.value) goto done;
    for (j = i; j > 0 && ti__name_cmp(sorted[j - 1].name, x.name->u.s.data, (size_t)x.name->u.s.len) > 0; j--)
      sorted[j] = sorted[j - 1];
    sorted[j] = x;
  }
  for (i = 1; i < n; i++) if (sorted[i].name == sorted[i - 1].name) goto done;
  memset(&k, 0, sizeof k); k.kind = TI_ATTR_DICT; k.u.dict.items = sorted; k.u.dict.n = n;
  r = ti__attr_intern(ctx, &k);
done:
  if (sorted != small) TASKIR_FREE(ctx->alloc_user, sorted);
  return r;
}

TASKIR_API ti_named_attr ti_named(ti_context *ctx, const char *name, const ti_attr *value) {
  ti_named_attr na;
  na.name = ti_attr_string(ctx, name, -1);
  na.value = value;
  return na;
}

TASKIR_API const ti_attr *ti_dict_get(const ti_attr *d, const char *name) {
  int64_t lo = 0, hi;
  size_t len;
  if (!d || d->kind != TI_ATTR_DICT) return NULL;
  len = strlen(name);
  hi = d->u.dict.n - 1;
  while (lo <= hi) {
    int64_t mid = (lo + hi) / 2;
    int c = ti__name_cmp(d->u.dict.items[mid].name, name, len);
    if (c == 0) return d->u.dict.items[mid].value;
    if (c < 0) lo = mid + 1; else hi = mid - 1;
  }
  return NULL;
}

TASKIR_API const ti_attr *ti_dict_set(ti_context *ctx, const ti_attr *d, const char *name, const ti_attr *value) {
  ti_named_attr small[16], *items = small;
  int64_t n = d && d->kind == TI_ATTR_DICT ? d->u.dict.n : 0, i, m = 0;
  const ti_attr *r;
  size_t len = strlen(name);
  if (n + 1 > 16) {
    items = (ti_named_attr *)TASKIR_MALLOC(ctx->alloc_user, (size_t)(n + 1) * sizeof *items);
    if (!items) return NULL;
  }
  for (i = 0; i < n; i++)
    if (ti__name_cmp(d->u.dict.items[i].name, name, len) != 0) items[m++] = d->u.dict.items[i];
  if (value) items[m++] = ti_named(ctx, name, value);
  r = ti_attr_dict(ctx, items, m);
  if (items != small) TASKIR_FREE(ctx->alloc_user, items);
  return r;
}

TASKIR_API int64_t ti_dict_int(const ti_attr *d, const char *name, int64_t dflt) {
  const ti_attr *a = ti_dict_get(d, name);
  return a && (a->kind == TI_ATTR_INT || a->kind == TI_ATTR_BOOL) ? a->u.i : dflt;
}
TASKIR_API double ti_dict_float(const ti_attr *d, const char *name, double dflt) {
  const ti_attr *a = ti_dict_get(d, name);
  return a && a->kind == TI_ATTR_FLOAT ? a->u.f : a && a->kind == TI_ATTR_INT ? (double)a->u.i : dflt;
}
TASKIR_API const char *ti_dict_string(const ti_attr *d, const char *name, const char *dflt) {
  const ti_attr *a = ti_dict_get(d, name);
  return a && a->kind == TI_ATTR_STRING ? a->u.s.data : dflt;
}
TASKIR_API int64_t ti_dict_ints(const ti_attr *d, const char *name, int64_t *out, int64_t max) {
  const ti_attr *a = ti_dict_get(d, name);
  int64_t i;
  if (!a || a->kind != TI_ATTR_ARRAY) return -1;
  for (i = 0; i < a->u.array.n; i++) {
    if (a->u.array.items[i]->kind != TI_ATTR_INT) return -1;
    if (i < max) out[i] = a->u.array.items[i]->u.i;
  }
  return a->u.array.n;
}

/* >>impl.core.registry ---------------------------------------------------- */

static uint32_t ti__str_hash(const char *s) { return ti__hash_bytes(s, strlen(s), 0x51u); }
static int ti__info_eq(const void *entry, const void *key) {
  return strcmp(((const ti_op_info *)entry)->name, (const char *)key) == 0;
}

TASKIR_API ti_status ti_register_ops(ti_context *ctx, const ti_op_info *infos, int32_t n, ti_error *err) {
  ti_error_clear(err);
  int32_t i;
  for (i = 0; i < n; i++) {
    void **slot = ti__table_find(&ctx->ops, ti__str_hash(infos[i].name), ti__info_eq, infos[i].name, ctx->alloc_user);
    if (!slot) return ti_error_set(err, TI_STATUS_NO_MEMORY, "out of memory registering op '%s'", infos[i].name);
    if (*slot) {
      if (*slot == (const void *)&infos[i]) continue;   /* same table again: idempotent */
      return ti_error_set(err, TI_STATUS_BAD_PARAM, "op '%s' is registered twice", infos[i].name);
    }
    *slot = (void *)&infos[i];
    ctx->ops.n++;
  }
  return TI_STATUS_SUCCESS;
}

TASKIR_API const ti_op_info *ti_lookup_op(const ti_context *ctx, const char *name) {
  uint32_t h;
  size_t j;
  if (!ctx->ops.cap) return NULL;
  h = ti__str_hash(name);
  j = h & (ctx->ops.cap - 1);
  while (ctx->ops.slots[j]) {
    if (ctx->ops.hashes[j] == h && ti__info_eq(ctx->ops.slots[j], name)) return (const ti_op_info *)ctx->ops.slots[j];
    j = (j + 1) & (ctx->ops.cap - 1);
  }
  return NULL;
}

/* An unregistered op gets an info of its own, remembered in the registry so
   every op of that name shares it. */
static const ti_op_info *ti__info_for(ti_context *ctx, const char *name, ti_error *err) {
  const ti_op_info *info = ti_lookup_op(ctx, name);
  ti_op_info *made;
  const char *dot;
  if (info) return info;
  if (!ctx->allow_unregistered) {
    ti_error_set(err, TI_STATUS_NOT_FOUND, "unknown op '%s' (its dialect is not registered)", name);
    return NULL;
  }
  made = (ti_op_info *)ti_arena_alloc(&ctx->arena, sizeof *made, 8);
  if (!made || !(made->name = ti_arena_strndup(&ctx->arena, name, strlen(name)))) goto oom;
  dot = strchr(name, '.');
  made->dialect = ti_arena_strndup(&ctx->arena, name, dot ? (size_t)(dot - name) : 0);
  made->min_operands = 0; made->max_operands = -1; made->num_results = -1;
  if (!made->dialect || ti_register_ops(ctx, made, 1, err) != TI_STATUS_SUCCESS) goto oom;
  return made;
oom:
  ti_error_set(err, TI_STATUS_NO_MEMORY, "out of memory for op '%s'", name);
  return NULL;
}

/* >>impl.core.program ----------------------------------------------------- */

TASKIR_API ti_program *ti_program_create(ti_context *ctx, const char *name, ti_program_kind kind) {
  ti_program *p = (ti_program *)TASKIR_MALLOC(ctx->alloc_user, sizeof *p);
  if (!p) return NULL;
  memset(p, 0, sizeof *p);
  p->ctx = ctx;
  p->kind = kind;
  ti_arena_init_pooled(&p->arena, ctx);
  p->name = ti_arena_strndup(&p->arena, name ? name : "main", strlen(name ? name : "main"));
  p->attrs = ti_attr_dict(ctx, NULL, 0);
  if (!p->name || !p->attrs) { ti_program_destroy(p); return NULL; }
  return p;
}

TASKIR_API void ti_program_destroy(ti_program *p) {
  void *u;
  if (!p) return;
  u = p->ctx->alloc_user;
  if (p->args) TASKIR_FREE(u, p->args);
  if (p->vars) TASKIR_FREE(u, p->vars);
  if (p->var_slots) TASKIR_FREE(u, p->var_slots);
  ti_arena_free(&p->arena);
  TASKIR_FREE(u, p);
}

TASKIR_API ti_value *ti_program_add_arg(ti_program *p, const ti_type *type) {
  ti_value *v;
  int64_t cap = p->cap_args;
  if (!type) return NULL;
  if (!ti__grow(p->ctx->alloc_user, &p->args, sizeof *p->args, &cap, (int64_t)p->n_args + 1, 8, INT32_MAX)) return NULL;
  p->cap_args = (int32_t)cap;
  v = (ti_value *)ti_arena_alloc(&p->arena, sizeof *v, 8);
  if (!v) return NULL;
  v->type = type;
  v->index = p->n_args;
  p->args[p->n_args++] = v;
  return v;
}

static uint32_t ti__var_hash(const char *s) {
  uint32_t h = 2166136261u;
  while (*s) { h ^= (unsigned char)*s++; h *= 16777619u; }
  return h;
}

/* Brings the name index up to date with p->vars (variables are only ever
   appended); 0 when out of memory (callers then search linearly). */
static int ti__var_index(ti_program *p) {
  if (p->var_slots_n == p->n_vars) return 1;
  if ((int64_t)p->n_vars * 2 >= p->var_slots_cap) {
    int32_t cap = 64, *ns;
    while (cap <= p->n_vars * 2 && cap < (1 << 30)) cap *= 2;
    ns = (int32_t *)TASKIR_MALLOC(p->ctx->alloc_user, (size_t)cap * sizeof *ns);
    if (!ns) return 0;
    memset(ns, 0, (size_t)cap * sizeof *ns);
    if (p->var_slots) TASKIR_FREE(p->ctx->alloc_user, p->var_slots);
    p->var_slots = ns;
    p->var_slots_cap = cap;
    p->var_slots_n = 0;
  }
  for (; p->var_slots_n < p->n_vars; p->var_slots_n++) {
    uint32_t m = (uint32_t)p->var_slots_cap - 1, i = ti__var_hash(p->vars[p->var_slots_n].name) & m;
    while (p->var_slots[i]) i = (i + 1) & m;
    p->var_slots[i] = p->var_slots_n + 1;
  }
  return 1;
}

TASKIR_API ti_variable *ti_program_find_var(const ti_program *p, const char *name) {
  int32_t i;
  ti_program *mp = (ti_program *)(uintptr_t)p;   /* the index is a cache */
  if (p->n_vars > 8 && ti__var_index(mp)) {
    uint32_t m = (uint32_t)p->var_slots_cap - 1, k = ti__var_hash(name) & m;
    for (; p->var_slots[k]; k = (k + 1) & m)
      if (strcmp(p->vars[p->var_slots[k] - 1].name, name) == 0) return &mp->vars[p->var_slots[k] - 1];
    return NULL;
  }
  for (i = 0; i < p->n_vars; i++) if (strcmp(p->vars[i].name, name) == 0) return &mp->vars[i];
  return NULL;
}

/* Appends a variable without the duplicate-name check. data_ref NULL: zeroed
   data of its own in the program's arena; else the variable refers to
   data_ref, which its owner keeps alive (an imported message). */
static ti_variable *ti__program_push_var(ti_program *p, const char *name, const ti_type *type, size_t bytes,
                                         void *data_ref) {
  ti_variable *v;
  int64_t cap = p->cap_vars;
  if (!ti__grow(p->ctx->alloc_user, &p->vars, sizeof *p->vars, &cap, (int64_t)p->n_vars + 1, 8, INT32_MAX)) return NULL;
  p->cap_vars = (int32_t)cap;
  v = &p->vars[p->n_vars];
  memset(v, 0, sizeof *v);
  v->name = ti_arena_strndup(&p->arena, name, strlen(name));
  v->data = data_ref ? data_ref : ti_arena_alloc(&p->arena, bytes, 16);
  if (!v->name || !v->data) return NULL;
  v->type = type;
  v->bytes = (int64_t)bytes;
  p->n_vars++;
  return v;
}

TASKIR_API ti_status ti_program_add_var(ti_program *p, const char *name, const ti_type *type, const void *data,
                                        int is_mutable, ti_error *err) {
  ti_error_clear(err);
  int64_t numel;
  size_t bytes;
  ti_variable *v;
  if (!name || !type) return ti_error_set(err, TI_STATUS_BAD_PARAM, "variable needs a name and a type");
  if (ti_program_find_var(p, name))
    return ti_error_set(err, TI_STATUS_BAD_PARAM, "variable '%s' already exists", name);
  numel = ti_type_numel(type);
  if (numel < 0 || (uint64_t)numel > ((uint64_t)1 << 40) / (ti_dtype_size(type->dtype) + 1))
    return ti_error_set(err, TI_STATUS_BAD_PARAM, "variable '%s' needs a static shape of sane size", name);
  bytes = (size_t)numel * ti_dtype_size(type->dtype);
  if (!(v = ti__program_push_var(p, name, type, bytes, NULL)))
    return ti_error_set(err, TI_STATUS_NO_MEMORY, "out of memory adding variable '%s'", name);
  if (data && bytes) memcpy(v->data, data, bytes);
  v->is_mutable = is_mutable != 0;
  return TI_STATUS_SUCCESS;
}

TASKIR_API void ti_program_freeze_weights(ti_program *p) {
  int32_t i;
  ti_op *op;
  for (i = 0; i < p->n_vars; i++) p->vars[i].is_mutable = 0;
  for (op = p->first; op; op = op->next)
    if (ti_op_is(op, "builtin.set_parameter")) {
      ti_variable *v = ti_program_find_var(p, ti_dict_string(op->attrs, "name", ""));
      if (v) v->is_mutable = 1;
    }
}

/* >>impl.core.ops --------------------------------------------------------- */

static void ti__use_link(ti_use *u, ti_value *v) {
  u->value = v;
  if (!v) { u->next = NULL; u->prevp = NULL; return; }
  u->next = v->first_use;
  if (u->next) u->next->prevp = &u->next;
  u->prevp = &v->first_use;
  v->first_use = u;
}
static void ti__use_unlink(ti_use *u) {
  if (u->prevp) {
    *u->prevp = u->next;
    if (u->next) u->next->prevp = u->prevp;
  }
  u->value = NULL; u->next = NULL; u->prevp = NULL;
}

static int ti__count_ok(int32_t n, int32_t min, int32_t max) { return n >= min && (max < 0 || n <= max); }

TASKIR_API ti_op *ti_op_create(ti_program *p, const char *name, int32_t n_operands, ti_value *const *operands,
                               int32_t n_results, const ti_type *const *result_types, const ti_attr *attrs,
                               ti_error *err) {
  ti_error_clear(err);
  const ti_op_info *info = ti__info_for(p->ctx, name, err);
  ti_op *op;
  int32_t i;
  if (!info) return NULL;
  if (n_operands < 0 || n_results < 0 || !ti__count_ok(n_operands, info->min_operands, info->max_operands)) {
    ti_error_set(err, TI_STATUS_BAD_PARAM, "op '%s' given %d operands", name, (int)n_operands);
    return NULL;
  }
  if (info->num_results >= 0 && n_results != info->num_results) {
    ti_error_set(err, TI_STATUS_BAD_PARAM, "op '%s' has %d results, not %d", name, (int)info->num_results, (int)n_results);
    return NULL;
  }
  if (attrs && attrs->kind != TI_ATTR_DICT) {
    ti_error_set(err, TI_STATUS_BAD_PARAM, "op '%s': attributes must be a dictionary", name);
    return NULL;
  }
  op = (ti_op *)ti_arena_alloc(&p->arena, sizeof *op, 8);
  if (!op) goto oom;
  op->info = info;
  op->program = p;
  op->attrs = attrs ? attrs : ti_attr_dict(p->ctx, NULL, 0);
  op->n_operands = n_operands;
  op->n_results = n_results;
  op->operands = (ti_use *)ti_arena_array(&p->arena, (size_t)n_operands, sizeof(ti_use), 8);
  op->results = (ti_value *)ti_arena_array(&p->arena, (size_t)n_results, sizeof(ti_value), 8);
  if (!op->attrs || !op->operands || !op->results) goto oom;
  for (i = 0; i < n_operands; i++) {
    op->operands[i].owner = op;
    op->operands[i].index = i;
    ti__use_link(&op->operands[i], operands ? operands[i] : NULL);
  }
  for (i = 0; i < n_results; i++) {
    op->results[i].def = op;
    op->results[i].index = i;
    op->results[i].type = result_types ? result_types[i] : NULL;
  }
  if ((!result_types || (n_results && !result_types[0])) && n_results) {
    const ti_type *inferred[16];
    if (!info->infer_shape || n_results > 16) {
      ti_error_set(err, TI_STATUS_BAD_PARAM, "op '%s' needs explicit result types", name);
      goto fail;
    }
    if (info->infer_shape(p->ctx, op, inferred, err) != TI_STATUS_SUCCESS) goto fail;
    for (i = 0; i < n_results; i++) op->results[i].type = inferred[i];
  }
  for (i = 0; i < n_results; i++)
    if (!op->results[i].type) {
      ti_error_set(err, TI_STATUS_BAD_PARAM, "op '%s': result %d has no type", name, (int)i);
      goto fail;
    }
  return op;
oom:
  ti_error_set(err, TI_STATUS_NO_MEMORY, "out of memory creating op '%s'", name);
fail:
  if (op) for (i = 0; i < op->n_operands && op->operands; i++) ti__use_unlink(&op->operands[i]);
  return NULL;
}

TASKIR_API void ti_op_insert_before(ti_op *op, ti_op *before) {
  ti_program *p = op->program;
  TASKIR_ASSERT(!op->prev && !op->next && p->first != op);
  if (!before) {
    op->prev = p->last;
    if (p->last) p->last->next = op; else p->first = op;
    p->last = op;
  } else {
    op->next = before;
    op->prev = before->prev;
    if (before->prev) before->prev->next = op; else p->first = op;
    before->prev = op;
  }
  p->n_ops++;
}

TASKIR_API void ti_op_insert_after(ti_op *op, ti_op *after) {
  ti_op_insert_before(op, after ? after->next : op->program->first);
}

TASKIR_API void ti_op_remove(ti_op *op) {
  ti_program *p = op->program;
  if (!op->prev && !op->next && p->first != op) return;   /* not in the list */
  if (op->prev) op->prev->next = op->next; else p->first = op->next;
  if (op->next) op->next->prev = op->prev; else p->last = op->prev;
  op->prev = op->next = NULL;
  p->n_ops--;
}

TASKIR_API ti_status ti_op_erase(ti_op *op, ti_error *err) {
  ti_error_clear(err);
  int32_t i;
  for (i = 0; i < op->n_results; i++)
    if (op->results[i].first_use)
      return ti_error_set(err, TI_STATUS_BAD_PARAM, "cannot erase '%s': result %d is still used by '%s'",
                          op->info->name, (int)i, op->results[i].first_use->owner->info->name);
  for (i = 0; i < op->n_operands; i++) ti__use_unlink(&op->operands[i]);
  ti_op_remove(op);
  op->info = NULL;   /* arena memory: reclaimed with the program */
  return TI_STATUS_SUCCESS;
}

TASKIR_API void ti_op_set_operand(ti_op *op, int32_t i, ti_value *v) {
  TASKIR_ASSERT(i >= 0 && i < op->n_operands);
  ti__use_unlink(&op->operands[i]);
  ti__use_link(&op->operands[i], v);
}

/* props caches what attrs say (task dialect): new attrs drop it. */
TASKIR_API void ti_op_set_attrs(ti_op *op, const ti_attr *attrs) {
  if (attrs && attrs->kind == TI_ATTR_DICT) { op->attrs = attrs; op->props = NULL; }
}
TASKIR_API void ti_op_set_attr(ti_op *op, const char *name, const ti_attr *value) {
  ti_op_set_attrs(op, ti_dict_set(op->program->ctx, op->attrs, name, value));
}
TASKIR_API const ti_attr *ti_op_attr(const ti_op *op, const char *name) { return ti_dict_get(op->attrs, name); }

TASKIR_API void ti_value_replace_all_uses(ti_value *from, ti_value *to) {
  ti_value_replace_uses_except(from, to, NULL);
}
TASKIR_API void ti_value_replace_uses_except(ti_value *from, ti_value *to, const ti_op *except) {
  ti_use *u = from->first_use;
  if (from == to) return;
  while (u) {
    ti_use *next = u->next;
    if (u->owner != except) { ti__use_unlink(u); ti__use_link(u, to); }
    u = next;
  }
}
TASKIR_API int64_t ti_value_num_uses(const ti_value *v) {
  int64_t n = 0;
  const ti_use *u;
  for (u = v->first_use; u; u = u->next) n++;
  return n;
}
TASKIR_API int ti_op_is(const ti_op *op, const char *name) { return op->info && strcmp(op->info->name, name) == 0; }
TASKIR_API int ti_op_has_trait(const ti_op *op, uint32_t trait) { return op->info && (op->info->traits & trait) == trait; }

TASKIR_API void ti_builder_init(ti_builder *b, ti_program *p, ti_error *err) {
  ti_error_clear(err);
  b->program = p; b->point = NULL; b->err = err; b->status = TI_STATUS_SUCCESS;
}
TASKIR_API ti_op *ti_build(ti_builder *b, const char *name, int32_t n_operands, ti_value *const *operands,
                           int32_t n_results, const ti_type *const *result_types, const ti_attr *attrs) {
  ti_op *op;
  int32_t i;
  if (b->status != TI_STATUS_SUCCESS) return NULL;
  for (i = 0; i < n_operands; i++)
    if (!operands[i]) { b->status = ti_error_set(b->err, TI_STATUS_BAD_PARAM, "'%s': operand %d is NULL", name, (int)i); return NULL; }
  op = ti_op_create(b->program, name, n_operands, operands, n_results, result_types, attrs, b->err);
  if (!op) { b->status = b->err && b->err->status ? b->err->status : TI_STATUS_BAD_PARAM; return NULL; }
  ti_op_insert_before(op, b->point);
  return op;
}
TASKIR_API ti_value *ti_build1(ti_builder *b, const char *name, int32_t n_operands, ti_value *const *operands,
                               const ti_type *result_type, const ti_attr *attrs) {
  ti_op *op = ti_build(b, name, n_operands, operands, 1, result_type ? &result_type : NULL, attrs);
  return op ? &op->results[0] : NULL;
}

/* >>impl.core.walk -------------------------------------------------------- */

TASKIR_API void ti_ops_free(const ti_program *p, ti_op **ops) { if (ops) TASKIR_FREE(p->ctx->alloc_user, ops); }

TASKIR_API ti_status ti_walk_program(const ti_program *p, ti_op ***out, int64_t *n, ti_error *err) {
  ti_error_clear(err);
  ti_op **ops = (ti_op **)TASKIR_MALLOC(p->ctx->alloc_user, (size_t)(p->n_ops + 1) * sizeof *ops);
  ti_op *op;
  int64_t k = 0;
  if (!ops) return ti_error_set(err, TI_STATUS_NO_MEMORY, "out of memory walking %lld ops", (long long)p->n_ops);
  for (op = p->first; op; op = op->next) ops[k++] = op;
  *out = ops; *n = k;
  return TI_STATUS_SUCCESS;
}

/* Kahn's algorithm; ties are broken by program order so an already sorted
   program keeps its order. op->order holds the pending operand count. */
TASKIR_API ti_status ti_walk_topo(const ti_program *p, ti_op ***out, int64_t *n, ti_error *err) {
  ti_error_clear(err);
  ti_op **ops, *op;
  int64_t head = 0, tail = 0, i;
  int32_t k;
  *out = NULL; *n = 0;
  ops = (ti_op **)TASKIR_MALLOC(p->ctx->alloc_user, (size_t)(p->n_ops + 1) * sizeof *ops);
  if (!ops) return ti_error_set(err, TI_STATUS_NO_MEMORY, "out of memory sorting %lld ops", (long long)p->n_ops);
  for (op = p->first; op; op = op->next) {
    op->order = 0;
    for (k = 0; k < op->n_operands; k++) {
      const ti_value *v = op->operands[k].value;
      if (v && v->def && v->def->program == p && v->def->info) op->order++;
    }
  }
  for (op = p->first; op; op = op->next) if (op->order == 0) ops[tail++] = op;
  while (head < tail) {
    ti_op *cur = ops[head++];
    for (k = 0; k < cur->n_results; k++) {
      ti_use *u;
      for (u = cur->results[k].first_use; u; u = u->next)
        if (u->owner->program == p && --u->owner->order == 0) ops[tail++] = u->owner;
    }
  }
  if (tail != p->n_ops) {
    const ti_op *stuck = NULL;
    for (op = p->first; op && !stuck; op = op->next) if (op->order > 0) stuck = op;
    TASKIR_FREE(p->ctx->alloc_user, ops);
    return ti_error_set(err, TI_STATUS_INVALID, "the program has a cycle through op '%s'%s",
                        stuck ? stuck->info->name : "?", stuck && ti_dict_get(stuck->attrs, "id") ? " (see its id)" : "");
  }
  for (i = 0; i < tail; i++) ops[i]->order = i;
  *out = ops; *n = tail;
  return TI_STATUS_SUCCESS;
}

TASKIR_API ti_status ti_walk_reverse_topo(const ti_program *p, ti_op ***out, int64_t *n, ti_error *err) {
  ti_error_clear(err);
  ti_status s = ti_walk_topo(p, out, n, err);
  int64_t i;
  if (s != TI_STATUS_SUCCESS) return s;
  for (i = 0; i < *n / 2; i++) {
    ti_op *t = (*out)[i];
    (*out)[i] = (*out)[*n - 1 - i];
    (*out)[*n - 1 - i] = t;
  }
  return TI_STATUS_SUCCESS;
}

TASKIR_API ti_status ti_program_sort(ti_program *p, ti_error *err) {
  ti_error_clear(err);
  ti_op **ops;
  int64_t n, i;
  ti_status s = ti_walk_topo(p, &ops, &n, err);
  if (s != TI_STATUS_SUCCESS) return s;
  p->first = p->last = NULL;
  for (i = 0; i < n; i++) {
    ops[i]->prev = i ? ops[i - 1] : NULL;
    ops[i]->next = i + 1 < n ? ops[i + 1] : NULL;
  }
  if (n) { p->first = ops[0]; p->last = ops[n - 1]; }
  ti_ops_free(p, ops);
  return TI_STATUS_SUCCESS;
}

/* >>impl.core.verify ------------------------------------------------------ */

TASKIR_API ti_status ti_verify(const ti_program *p, ti_error *err) {
  ti_error_clear(err);
  const ti_op *op;
  int64_t pos = 0;
  int32_t k;
  /* order = position for SSA checks; args count as defined at -1 */
  for (op = p->first; op; op = op->next) ((ti_op *)op)->order = pos++;
  for (op = p->first, pos = 0; op; op = op->next, pos++) {
    const ti_op_info *info = op->info;
    const char *const *req;
    if (!info) return ti_error_set(err, TI_STATUS_INVALID, "op #%lld was erased but is still in the program", (long long)pos);
    if (!ti_lookup_op(p->ctx, info->name))
      return ti_error_set(err, TI_STATUS_INVALID, "op #%lld: unknown op '%s'", (long long)pos, info->name);
    if (!ti__count_ok(op->n_operands, info->min_operands, info->max_operands))
      return ti_error_set(err, TI_STATUS_INVALID, "op #%lld '%s': %d operands is not allowed", (long long)pos,
                          info->name, (int)op->n_operands);
    if (info->num_results >= 0 && op->n_results != info->num_results)
      return ti_error_set(err, TI_STATUS_INVALID, "op #%lld '%s': %d results, expected %d", (long long)pos, info->name,
                          (int)op->n_results, (int)info->num_results);
    for (req = info->required_attrs; req && *req; req++)
      if (!ti_dict_get(op->attrs, *req))
        return ti_error_set(err, TI_STATUS_INVALID, "op #%lld '%s': missing required attribute '%s'", (long long)pos,
                            info->name, *req);
    for (k = 0; k < op->n_operands; k++) {
      const ti_value *v = op->operands[k].value;
      if (!v) return ti_error_set(err, TI_STATUS_INVALID, "op #%lld '%s': operand %d is not set", (long long)pos, info->name, (int)k);
      if (v->def) {
        if (v->def->program != p || !v->def->info)
          return ti_error_set(err, TI_STATUS_INVALID, "op #%lld '%s': operand %d is defined outside this program",
                              (long long)pos, info->name, (int)k);
        if (p->kind == TI_PROGRAM_SSA && v->def->order >= pos)
          return ti_error_set(err, TI_STATUS_INVALID, "op #%lld '%s': operand %d is used before its definition (op #%lld '%s')",
                              (long long)pos, info->name, (int)k, (long long)v->def->order, v->def->info->name);
      } else if (v->index < 0 || v->index >= p->n_args || p->args[v->index] != v) {
        return ti_error_set(err, TI_STATUS_INVALID, "op #%lld '%s': operand %d is not a value of this program",
                            (long long)pos, info->name, (int)k);
      }
    }
    for (k = 0; k < op->n_results; k++)
      if (!op->results[k].type)
        return ti_error_set(err, TI_STATUS_INVALID, "op #%lld '%s': result %d has no type", (long long)pos, info->name, (int)k);
  }
  if (p->kind == TI_PROGRAM_GRAPH) {
    ti_op **ops;
    int64_t n;
    ti_status s = ti_walk_topo(p, &ops, &n, err);
    if (s != TI_STATUS_SUCCESS) return s;
    ti_ops_free(p, ops);
  }
  for (op = p->first; op; op = op->next)
    if (op->info->verify) {
      ti_status s = op->info->verify(op, err);
      if (s != TI_STATUS_SUCCESS) return s;
    }
  return TI_STATUS_SUCCESS;
}

/* >>impl.core.passes ------------------------------------------------------ */

TASKIR_API void ti_pass_manager_init(ti_pass_manager *pm) { memset(pm, 0, sizeof *pm); pm->verify_each = 1; }

TASKIR_API ti_status ti_pass_manager_add(ti_pass_manager *pm, const char *name, ti_pass_fn run, void *user) {
  if (pm->n >= (int32_t)(sizeof pm->passes / sizeof *pm->passes) || !run) return TI_STATUS_LIMIT;
  pm->passes[pm->n].name = name;
  pm->passes[pm->n].run = run;
  pm->passes[pm->n].user = user;
  pm->n++;
  return TI_STATUS_SUCCESS;
}

TASKIR_API ti_status ti_pass_manager_run(const ti_pass_manager *pm, ti_program *p, ti_error *err) {
  ti_error_clear(err);
  int32_t i;
  for (i = 0; i < pm->n; i++) {
    ti_error local;
    ti_status s;
    ti_error_clear(&local);
    s = pm->passes[i].run(p, pm->passes[i].user, &local);
    if (s == TI_STATUS_SUCCESS && pm->verify_each) {
      s = ti_verify(p, &local);
      if (s != TI_STATUS_SUCCESS)
        return ti_error_set(err, s, "after pass '%s': %s", pm->passes[i].name, local.message);
    }
    if (s != TI_STATUS_SUCCESS) return ti_error_set(err, s, "pass '%s': %s", pm->passes[i].name, local.message);
  }
  return TI_STATUS_SUCCESS;
}

/* >>impl.passes ------------------------------------------------------------- */

#ifndef TASKIR_NO_NN
#ifndef TASKIR_FOLD_MAX_ELEMS
#define TASKIR_FOLD_MAX_ELEMS 65536   /* larger tensors are not folded into attributes */
#endif
/* constant-fold's tensor -> attribute conversion (>>impl.nn) */
static const ti_attr *ti__nn_attr_from_tensor(ti_context *ctx, const ti_tensor_value *t);
#endif

#define TI__PASS_TRY(x) do { ti_status ti__st_ = (x); if (ti__st_ != TI_STATUS_SUCCESS) return ti__st_; } while (0)

/* A walk over the op list meets the ops in the order the arena handed them
   out (upwards in memory) unless the program was rewritten heavily. On a
   program larger than the caches each op would cost a memory latency (a
   chased pointer: nothing overlaps); asking for the memory a few KB ahead
   overlaps those misses. An op with its operands and results spans two to
   three lines, so the walk asks for every line of that stretch, not only
   the one at the op's address: `next` (0 before the walk) is the next
   line to ask for, and starts again from the op when the walk jumps. A
   hint only: no effect on results, never a fault. */
#if defined(__GNUC__) || defined(__clang__)
/* back: a walk backwards (prev links), the lines a few KB below */
static inline void ti__pass_prefetch(uintptr_t *next, const void *op, int back) {
  const uintptr_t o = (uintptr_t)op, a = back ? o - 4096u : o + 4096u, e = back ? a - 256u : a + 256u;
  if (back ? *next > a || *next + 4096u < e : *next < a || *next > e + 4096u) *next = a & ~(uintptr_t)63;
  for (; back ? *next > e : *next < e; *next = back ? *next - 64u : *next + 64u)
    __builtin_prefetch((const void *)*next);
}
#define TI__PASS_AHEAD(next, op) ti__pass_prefetch(&(next), (op), 0)
#define TI__PASS_BEHIND(next, op) ti__pass_prefetch(&(next), (op), 1)
#else
#define TI__PASS_AHEAD(next, op) ((void)(next))
#define TI__PASS_BEHIND(next, op) ((void)(next))
#endif

/* A value nobody mutates or aliases: a vtensor, or a tensor that is not a
   view and whose users only read it (seed 003 §2.5.1, Pass 2). */
/* Whether reading a tensor through op o leaves it unmutated and unaliased. */
static int ti__pass_stable_user(const ti_op *o) {
  if (ti_op_has_trait(o, TI_TRAIT_INPLACE)) return 0;
  if (ti_op_has_trait(o, TI_TRAIT_VIEW_LIKE))
    return o->n_results && o->results[0].type && o->results[0].type->kind == TI_TYPE_VTENSOR;
  return ti_op_has_trait(o, TI_TRAIT_READ_ONLY) || ti_op_is(o, "builtin.to_vtensor") || ti_op_is(o, "builtin.to_tensor") ||
         ti_op_is(o, "builtin.return") || ti_op_is(o, "builtin.set_parameter");
}
static int ti__pass_stable(const ti_value *v) {
  const ti_use *u;
  if (v->type && v->type->kind == TI_TYPE_VTENSOR) return 1;
  if (v->def && (ti_op_has_trait(v->def, TI_TRAIT_VIEW_LIKE) || ti_op_has_trait(v->def, TI_TRAIT_INPLACE))) return 0;
  for (u = v->first_use; u; u = u->next) if (!ti__pass_stable_user(u->owner)) return 0;
  return 1;
}

/* Whether v has more than 16 uses. Only such values go into a pass's memo
   (ti__pass_stable_memo, ti__pass_viewed): a few uses are cheaper to scan again
   than an entry per value is to store (a large program's memo would be
   fresh memory, faulted in page by page). */
static int ti__pass_many_uses(const ti_value *v) {
  const ti_use *u;
  int k = 0;
  for (u = v->first_use; u; u = u->next) if (++k > 16) return 1;
  return 0;
}

/* ti__pass_stable with a memo (a value with many readers is scanned once);
   valid while a pass only adds or moves readers and creates no op. */
static int ti__pass_stable_memo(ti__ptrmap *m, const ti_value *v) {
  int64_t f;
  if (!ti__pass_many_uses(v)) return ti__pass_stable(v);
  f = ti__ptrmap_get(m, v, -1);
  if (f < 0) {
    f = ti__pass_stable(v);
    ti__ptrmap_put(m, v, f);   /* out of memory: just not remembered */
  }
  return (int)f;
}

/* Pure ops, and get_parameter (a read of the weights table). */
static int ti__pass_pure(const ti_op *op) {
  return (ti_op_has_trait(op, TI_TRAIT_PURE) || ti_op_is(op, "builtin.get_parameter")) &&
         !ti_op_has_trait(op, TI_TRAIT_TERMINATOR);
}
static int ti__pass_removable(const ti_op *op) {
  int32_t i;
  if (!ti__pass_pure(op)) return 0;
  for (i = 0; i < op->n_results; i++) if (op->results[i].first_use) return 0;
  return 1;
}

TASKIR_API ti_status ti_pass_dce(ti_program *p, void *user, ti_error *err) {
  ti_error_clear(err);
  ti_op *op, *prev;
  uintptr_t behind = 0;
  (void)user;
  /* Reverse order: an op's producers come earlier and die in the same sweep. */
  for (op = p->last; op; op = prev) {
    TI__PASS_BEHIND(behind, op);
    prev = op->prev;
    if (ti__pass_removable(op)) TI__PASS_TRY(ti_op_erase(op, err));
  }
  return TI_STATUS_SUCCESS;
}

/* Operand i of op in canonical order (commutative ops: first two sorted). */
static const ti_value *ti__pass_cse_operand(const ti_op *op, int32_t i) {
  if (op->n_operands >= 2 && i < 2 && ti_op_has_trait(op, TI_TRAIT_COMMUTATIVE)) {
    const ti_value *a = op->operands[0].value, *b = op->operands[1].value;
    int swap = (uintptr_t)a > (uintptr_t)b;
    return (i == 0) != swap ? a : b;
  }
  return op->operands[i].value;
}
static uint64_t ti__pass_cse_hash(const ti_op *op) {
  uint64_t h = (uint64_t)ti__ptrhash(op->info) ^ ((uint64_t)ti__ptrhash(op->attrs) * 31u);
  int32_t i;
  for (i = 0; i < op->n_operands; i++) h = h * 1000003u ^ (uint64_t)ti__ptrhash(ti__pass_cse_operand(op, i));
  for (i = 0; i < op->n_results; i++) h = h * 1000003u ^ (uint64_t)ti__ptrhash(op->results[i].type);
  return h;
}
static int ti__pass_cse_eq(const ti_op *a, const ti_op *b) {
  int32_t i;
  if (a->info != b->info || a->attrs != b->attrs || a->n_operands != b->n_operands || a->n_results != b->n_results)
    return 0;
  for (i = 0; i < a->n_operands; i++) if (ti__pass_cse_operand(a, i) != ti__pass_cse_operand(b, i)) return 0;
  for (i = 0; i < a->n_results; i++) if (a->results[i].type != b->results[i].type) return 0;
  return 1;
}
static int ti__pass_cse_ok(const ti_program *p, const ti_op *op, ti__ptrmap *memo) {
  int32_t i;
  if (!ti__pass_pure(op) || op->n_results < 1 || op->props)
    return 0;
  if (ti_op_is(op, "builtin.get_parameter")) {
    const ti_variable *v = ti_program_find_var(p, ti_dict_string(op->attrs, "name", ""));
    if (!v || v->is_mutable) return 0;
  }
  for (i = 0; i < op->n_operands; i++) if (!ti__pass_stable_memo(memo, op->operands[i].value)) return 0;
  return 1;
}

/* The set of classes of a cse walk, in a core hash table (ti__table): ops
   without operands, and ops whose first operand has many uses (scanning its
   uses would cost time per use). Each class is held by its earliest op
   (smallest order). The slot of op's class; NULL when out of memory. */
static int ti__pass_cse_entry_eq(const void *entry, const void *key) {
  return ti__pass_cse_eq((const ti_op *)entry, (const ti_op *)key);
}
static ti_op **ti__pass_cse_slot(ti__table *t, const ti_op *op, void *au) {
  uint32_t h = (uint32_t)ti__ptrhash((const void *)(uintptr_t)ti__pass_cse_hash(op));
  return (ti_op **)ti__table_find(t, h, ti__pass_cse_entry_eq, op, au);
}
/* op joins its class (and holds it if it comes first); 0 when out of memory. */
static int ti__pass_cse_put(ti__table *t, ti_op *op, void *au) {
  ti_op **s = ti__pass_cse_slot(t, op, au);
  if (!s) return 0;
  if (!*s) t->n++;
  if (!*s || op->order < (*s)->order) *s = op;
  return 1;
}

/* One walk in program order; a later op equal to an earlier one gives way
   to it. The earlier twin shares op's first operand, so it is found among
   that operand's (few) users, which sit near op in memory; operands with
   many uses ("hot", decided once per value and kept) go through the table,
   into which a value's earlier users move when it turns hot. So memory and
   cache misses grow with the hot classes, not with the program. */
TASKIR_API ti_status ti_pass_cse(ti_program *p, void *user, ti_error *err) {
  ti_error_clear(err);
  void *au = p->arena.alloc_user;
  ti_op *op, *next;
  int64_t k = 0;
  int32_t i;
  uintptr_t ahead = 0;
  ti__ptrmap memo, hot;
  ti__table tab;
  ti_status st = TI_STATUS_SUCCESS;
  (void)user;
  memset(&tab, 0, sizeof tab);
  memset(&hot, 0, sizeof hot);
  if (!ti__ptrmap_init(&memo, 64, au) || !ti__ptrmap_init(&hot, 16, au)) {
    ti__ptrmap_free(&memo);
    return ti_error_set(err, TI_STATUS_NO_MEMORY, "cse: out of memory");
  }
  for (op = p->first; op; op = op->next) {
    TI__PASS_AHEAD(ahead, op);
    op->order = k++;
  }
  for (op = p->first; op; op = next) {
    ti_op *twin = NULL;
    TI__PASS_AHEAD(ahead, op);
    next = op->next;
    if (!ti__pass_cse_ok(p, op, &memo)) continue;
    if (op->n_operands > 0) {
      const ti_value *v = ti__pass_cse_operand(op, 0);
      const ti_use *u;
      if (ti__ptrmap_get(&hot, v, 0) == 0 && ti__pass_many_uses(v)) {
        /* v turns hot: its visited users that could be a class's first op
           enter the table. */
        if (!ti__ptrmap_put(&hot, v, 1)) goto oom;
        for (u = v->first_use; u; u = u->next)
          if (u->owner->order < op->order && ti__pass_cse_operand(u->owner, 0) == v && ti__pass_cse_ok(p, u->owner, &memo) &&
              !ti__pass_cse_put(&tab, u->owner, au))
            goto oom;
      }
      if (ti__ptrmap_get(&hot, v, 0) == 0) {
        for (u = v->first_use; u; u = u->next)
          if (u->owner->order < op->order && (!twin || u->owner->order < twin->order) && !u->owner->props &&
              ti__pass_cse_eq(u->owner, op))
            twin = u->owner;
        if (!twin) continue;
      }
    }
    if (!twin) {
      ti_op **s = ti__pass_cse_slot(&tab, op, au);
      if (!s) goto oom;
      if (!*s) { *s = op; tab.n++; continue; }
      twin = *s;
    }
    /* Two buffers become one: only when neither is written or aliased. */
    for (i = 0; i < op->n_results; i++)
      if (!ti__pass_stable_memo(&memo, &op->results[i]) || !ti__pass_stable_memo(&memo, &twin->results[i])) break;
    if (i < op->n_results) continue;
    /* program order: twin comes first and its operands are op's. */
    for (i = 0; i < op->n_results; i++) ti_value_replace_all_uses(&op->results[i], &twin->results[i]);
    if ((st = ti_op_erase(op, err)) != TI_STATUS_SUCCESS) goto done;
  }
  goto done;
oom:
  st = ti_error_set(err, TI_STATUS_NO_MEMORY, "cse: out of memory");
done:
  ti__table_free(&tab, au);
  ti__ptrmap_free(&memo);
  ti__ptrmap_free(&hot);
  return st;
}

#ifndef TASKIR_NO_NN
/* The constant attribute behind v: a builtin.constant's value, or the data
   of an immutable variable read by get_parameter, when nothing mutates or
   aliases v. NULL otherwise. */
static const ti_attr *ti__pass_const_attr(ti_program *p, const ti_value *v) {
  const ti_op *d = v->def;
  /* A tensor that an in-place op writes is no constant for its readers. */
  if (!d || !ti__pass_stable(v)) return NULL;
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
  ti_error_clear(err);
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
    for (i = 0; ok && i < op->n_operands; i++) ok = (in[i] = ti__pass_const_attr(p, op->operands[i].value)) != NULL;
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
    TI__PASS_TRY(ti_op_erase(op, err));
  }
  return TI_STATUS_SUCCESS;
}
#endif /* TASKIR_NO_NN */

/* The ops of the program named `name`, in order (TASKIR_MALLOC'd, grown by
   doubling: its size follows the matches, not the program). NULL when out
   of memory. */
static ti_op **ti__pass_collect(ti_program *p, const char *name, int64_t *n) {
  void *au = p->arena.alloc_user;
  ti_op **v = NULL, *op;
  int64_t k = 0, cap = 0;
  uintptr_t ahead = 0;
  if (!ti__grow(au, &v, sizeof *v, &cap, 1, 64, INT64_MAX / 2)) return NULL;
  for (op = p->first; op; op = op->next) {
    TI__PASS_AHEAD(ahead, op);
    if (!ti_op_is(op, name)) continue;
    if (!ti__grow(au, &v, sizeof *v, &cap, k + 1, 64, INT64_MAX / 2)) { TASKIR_FREE(au, v); return NULL; }
    v[k++] = op;
  }
  *n = k;
  return v;
}

static ti_op *ti__pass_convert(ti_program *p, const char *name, ti_value *v, ti_type_kind kind, ti_error *err) {
  const ti_type *t = ti_type_with_kind(p->ctx, v->type, kind);
  if (!t) { ti_error_set(err, TI_STATUS_NO_MEMORY, "maximize-value-semantics: out of memory"); return NULL; }
  return ti_op_create(p, name, 1, &v, 1, &t, NULL, err);
}

/* An op pass 1 of maximize-value-semantics converts (its operands and
   results become vtensors) and has not converted yet (order 0). */
static int ti__pass_vs_pending(const ti_op *o) {
  return o->order == 0 && ti_op_has_trait(o, TI_TRAIT_VALUE_SEMANTICS) && !ti_op_is(o, "builtin.to_tensor") &&
         !ti_op_is(o, "builtin.to_vtensor");
}

/* Pass 1 converts each value-semantic op; pass 2 then folds b = to_tensor(a)
   whose b nobody mutates or aliases (to_vtensor(b) becomes a); pass 3
   merges copies of one unmutated tensor. Pass 1 decides the fold of its own
   to_tensor ops as it makes them (b's readers are known then), so it never
   creates the ops pass 2 would erase: a stable result's value-semantic
   readers read it directly, and its to_tensor exists only for the other
   readers. What it allocates follows the conversions that stay, not the
   program; every step is O(ops + uses). */
TASKIR_API ti_status ti_pass_maximize_value_semantics(ti_program *p, void *user, ti_error *err) {
  ti_error_clear(err);
  void *au = p->arena.alloc_user;
  ti_op **ops = NULL, *op, *next;
  int64_t n, k;
  int32_t i;
  uintptr_t ahead = 0;
  ti__ptrmap first, memo;
  (void)user;
  memset(&first, 0, sizeof first);
  memset(&memo, 0, sizeof memo);
  for (op = p->first; op; op = op->next) {
    TI__PASS_AHEAD(ahead, op);
    op->order = 0;   /* 1: converted by pass 1 */
  }
  /* Pass 1: value-semantic ops read and write vtensors; copies keep the
     surrounding tensor types. Ops it inserts lie before op (to_vtensor) or
     between op and `after` (to_tensor), so the walk goes on after them. */
  for (op = p->first; op; op = next) {
    ti_op *after = op;
    TI__PASS_AHEAD(ahead, op);
    if (!ti_op_has_trait(op, TI_TRAIT_VALUE_SEMANTICS) || ti_op_is(op, "builtin.to_tensor") ||
        ti_op_is(op, "builtin.to_vtensor")) {
      next = op->next;
      continue;
    }
    op->order = 1;
    for (i = 0; i < op->n_operands; i++) {
      ti_value *v = op->operands[i].value;
      ti_op *c;
      if (!v || !v->type || v->type->kind != TI_TYPE_TENSOR) continue;
      if (!(c = ti__pass_convert(p, "builtin.to_vtensor", v, TI_TYPE_VTENSOR, err))) goto fail;
      ti_op_insert_before(c, op);
      ti_op_set_operand(op, i, &c->results[0]);
    }
    for (i = 0; i < op->n_results; i++) {
      ti_value *r = &op->results[i];
      const ti_type *vt;
      ti_op *c;
      ti_use *u, *un;
      int stable = 1, others = 0;
      if (!r->type || r->type->kind != TI_TYPE_TENSOR) continue;
      if (!(vt = ti_type_with_kind(p->ctx, r->type, TI_TYPE_VTENSOR))) {
        ti_error_set(err, TI_STATUS_NO_MEMORY, "maximize-value-semantics: out of memory");
        goto fail;
      }
      /* b = to_tensor(r) is stable (pass 2 folds it) when each reader of r
         either converts later (it reads b through a to_vtensor pass 2 folds)
         or leaves b unmutated and unaliased; b is made only for the others. */
      for (u = r->first_use; u; u = u->next) {
        if (ti__pass_vs_pending(u->owner)) continue;
        others = 1;
        if (!ti__pass_stable_user(u->owner)) stable = 0;
      }
      if (stable && !others) { r->type = vt; continue; }
      if (!(c = ti__pass_convert(p, "builtin.to_tensor", r, TI_TYPE_TENSOR, err))) goto fail;
      r->type = vt;
      ti_op_insert_after(c, after);
      after = c;
      for (u = r->first_use; u; u = un) {
        un = u->next;
        if (u->owner != c && !(stable && ti__pass_vs_pending(u->owner))) ti_op_set_operand(u->owner, u->index, &c->results[0]);
      }
    }
    next = after->next;
  }
  /* Pass 2: b = to_tensor(a) whose b nobody mutates or aliases is a itself:
     to_vtensor(b) becomes a, and b goes when unused. */
  if (!(ops = ti__pass_collect(p, "builtin.to_tensor", &n)))
    return ti_error_set(err, TI_STATUS_NO_MEMORY, "maximize-value-semantics: out of memory");
  for (k = 0; k < n; k++) {
    ti_op *t = ops[k];
    ti_value *b = &t->results[0], *a = t->operands[0].value;
    ti_use *u, *un;
    if (!ti__pass_stable(b) || !a->type || a->type->kind != TI_TYPE_VTENSOR) continue;
    for (u = b->first_use; u; u = un) {
      ti_op *c = u->owner;
      un = u->next;
      while (un && un->owner == c) un = un->next;
      if (!ti_op_is(c, "builtin.to_vtensor") || c->results[0].type != a->type) continue;
      ti_value_replace_all_uses(&c->results[0], a);
      if (ti_op_erase(c, err) != TI_STATUS_SUCCESS) goto fail;
    }
    if (!b->first_use && ti_op_erase(t, err) != TI_STATUS_SUCCESS) goto fail;
  }
  TASKIR_FREE(au, ops);
  ops = NULL;
  /* Pass 3: copies of one unmutated tensor are one value (the first copy);
     the maps grow with the tensors copied, not with the program. */
  if (!ti__ptrmap_init(&first, 16, au) || !ti__ptrmap_init(&memo, 16, au)) {
    ti_error_set(err, TI_STATUS_NO_MEMORY, "maximize-value-semantics: out of memory");
    goto fail;
  }
  for (op = p->first; op; op = next) {
    ti_value *x;
    ti_op *f;
    TI__PASS_AHEAD(ahead, op);
    next = op->next;
    if (!ti_op_is(op, "builtin.to_vtensor")) continue;
    x = op->operands[0].value;
    if (!ti__pass_stable_memo(&memo, x)) continue;
    f = (ti_op *)(uintptr_t)ti__ptrmap_get(&first, x, 0);
    if (!f) {
      if (!ti__ptrmap_put(&first, x, (int64_t)(uintptr_t)op)) {
        ti_error_set(err, TI_STATUS_NO_MEMORY, "maximize-value-semantics: out of memory");
        goto fail;
      }
      continue;
    }
    if (f->results[0].type != op->results[0].type) continue;
    ti_value_replace_all_uses(&op->results[0], &f->results[0]);
    if (ti_op_erase(op, err) != TI_STATUS_SUCCESS) goto fail;
  }
  ti__ptrmap_free(&first);
  ti__ptrmap_free(&memo);
  return TI_STATUS_SUCCESS;
fail:
  if (ops) TASKIR_FREE(au, ops);
  ti__ptrmap_free(&first);
  ti__ptrmap_free(&memo);
  return err && err->status ? err->status : TI_STATUS_NO_MEMORY;
}

/* A value read through a view, or itself a view: writing it in place is
   seen through another name. Memoised: scanned once per value. */
static int ti__pass_viewed(ti__ptrmap *m, const ti_value *v) {
  int many = ti__pass_many_uses(v);
  int64_t f = many ? ti__ptrmap_get(m, v, -1) : -1;
  const ti_use *u;
  if (f >= 0) return (int)f;
  f = v->def && ti_op_has_trait(v->def, TI_TRAIT_VIEW_LIKE);
  for (u = v->first_use; u && !f; u = u->next) f = ti_op_has_trait(u->owner, TI_TRAIT_VIEW_LIKE);
  if (many) ti__ptrmap_put(m, v, f);   /* out of memory: scanned again next time */
  return (int)f;
}

/* One walk in program order. A converted `b = x_(a)` becomes `b = x(a)`
   (the op changes kind where it stands, keeping its results), and b is
   from then on the latest version of a's buffer (its root):
   every later operand naming the buffer (the root, or an older version) is
   rewired to the latest version when the walk reaches it. O(ops + uses).
   What the walk knows lives in the ops' order fields, the low 3 bits flags
   (values come from the arena, 8-aligned) and the rest a value's address:
   TI__PASS_ROOTED, a result of the op is a root with a latest version;
   TI__PASS_VERSION, the op was converted and the address is the root of its
   result 0; TI__PASS_LATEST, the address is the latest version of the
   op's result 0, a root. Roots elsewhere (arguments, other results) keep
   their latest version in a map: nothing is allocated per conversion. */
#define TI__PASS_ROOTED 1
#define TI__PASS_VERSION 2
#define TI__PASS_LATEST 4
#define TI__PASS_ADDR(op) ((ti_value *)(uintptr_t)((op)->order & ~(int64_t)7))
static ti_value *ti__pass_root_of(ti_value *v) {
  if (v->def && (v->def->order & TI__PASS_VERSION) && v->index == 0) return TI__PASS_ADDR(v->def);
  return v;
}
static ti_value *ti__pass_latest_of(const ti__ptrmap *latest, ti_value *r) {
  if (r->def && (r->def->order & TI__PASS_LATEST) && r->index == 0) return TI__PASS_ADDR(r->def);
  return (ti_value *)(uintptr_t)ti__ptrmap_get(latest, r, 0);
}
/* 0 when out of memory. */
static int ti__pass_set_latest(ti__ptrmap *latest, ti_value *r, ti_value *l) {
  TASKIR_ASSERT(((uintptr_t)l & 7u) == 0);
  if (r->def && r->index == 0 && !(r->def->order & TI__PASS_VERSION)) {
    r->def->order = (int64_t)(uintptr_t)l | TI__PASS_LATEST | TI__PASS_ROOTED;
    return 1;
  }
  if (r->def) r->def->order |= TI__PASS_ROOTED;
  return ti__ptrmap_put(latest, r, (int64_t)(uintptr_t)l);
}
TASKIR_API ti_status ti_pass_inplace_to_outofplace(ti_program *p, void *user, ti_error *err) {
  ti_error_clear(err);
  void *au = p->arena.alloc_user;
  ti_op *ip, *next;
  uintptr_t ahead = 0;
  ti__ptrmap latest, viewed;
  ti_status st = TI_STATUS_SUCCESS;
  (void)user;
  memset(&latest, 0, sizeof latest);
  memset(&viewed, 0, sizeof viewed);
  /* Backwards, and a line is written only where it holds a mark: the
     program's tail is what whoever ran before touched last (still in the
     caches), and the walk that follows starts from the head this one ends
     on. */
  for (ip = p->last; ip; ip = ip->prev) {
    TI__PASS_BEHIND(ahead, ip);
    if (ip->order) ip->order = 0;
  }
  ahead = 0;
  if (!ti__ptrmap_init(&latest, 16, au) || !ti__ptrmap_init(&viewed, 64, au)) {
    st = ti_error_set(err, TI_STATUS_NO_MEMORY, "inplace-to-outofplace: out of memory");
    goto done;
  }
  for (ip = p->first; ip; ip = next) {
    const ti_op_info *oinfo;
    char name[128];
    size_t len = strlen(ip->info->name);
    ti_value *a, *r;
    int32_t i;
    TI__PASS_AHEAD(ahead, ip);
    next = ip->next;
    for (i = 0; i < ip->n_operands; i++) {
      ti_value *v = ip->operands[i].value, *l;
      if (!v || (v->def && v->def->order == 0)) continue;   /* no version of a written buffer */
      l = ti__pass_latest_of(&latest, ti__pass_root_of(v));
      if (l && l != v) ti_op_set_operand(ip, i, l);
    }
    if (!ti_op_has_trait(ip, TI_TRAIT_INPLACE) || len < 2 || len >= sizeof name || ip->info->name[len - 1] != '_' ||
        ip->n_operands < 1 || ip->n_operands > 64 || ip->n_results < 1 || ip->n_results > 8)
      continue;
    memcpy(name, ip->info->name, len - 1);
    name[len - 1] = 0;
    if (!(oinfo = ti_lookup_op(p->ctx, name))) continue;
    a = ip->operands[0].value;
    r = ti__pass_root_of(a);
    /* Another alias of the buffer would see the write too: leave those alone. */
    if (ti__pass_viewed(&viewed, a) || ti__pass_viewed(&viewed, r)) continue;
    if (!ti__count_ok(ip->n_operands, oinfo->min_operands, oinfo->max_operands) ||
        (oinfo->num_results >= 0 && oinfo->num_results != ip->n_results)) {
      st = ti_error_set(err, TI_STATUS_BAD_PARAM, "inplace-to-outofplace: '%s' has %d operands and %d results, which '%s' does not take",
                        ip->info->name, (int)ip->n_operands, (int)ip->n_results, name);
      goto done;
    }
    /* ip becomes its out-of-place twin where it stands: the same operands,
       attributes and results (so no use moves and nothing is allocated). */
    ip->info = oinfo;
    ip->props = NULL;
    /* ip's result 0 becomes a version: a latest version it held as a root
       (only when ops come out of order) moves to the map. */
    if ((ip->order & TI__PASS_LATEST) && !ti__ptrmap_put(&latest, &ip->results[0], (int64_t)(uintptr_t)TI__PASS_ADDR(ip))) {
      st = ti_error_set(err, TI_STATUS_NO_MEMORY, "inplace-to-outofplace: out of memory");
      goto done;
    }
    TASKIR_ASSERT(((uintptr_t)r & 7u) == 0);
    ip->order = (ip->order & TI__PASS_ROOTED) | (int64_t)(uintptr_t)r | TI__PASS_VERSION;
    if (!ti__pass_set_latest(&latest, r, &ip->results[0])) {
      st = ti_error_set(err, TI_STATUS_NO_MEMORY, "inplace-to-outofplace: out of memory");
      goto done;
    }
  }
done:
  ti__ptrmap_free(&latest);
  ti__ptrmap_free(&viewed);
  return st;
}
#undef TI__PASS_ROOTED
#undef TI__PASS_VERSION
#undef TI__PASS_LATEST
#undef TI__PASS_ADDR

static const ti_pass ti__pass_passes[] = {
  {"dce", ti_pass_dce, NULL},
  {"cse", ti_pass_cse, NULL},
#ifndef TASKIR_NO_NN
  {"constant-fold", ti_pass_constant_fold, NULL},
#endif
  {"maximize-value-semantics", ti_pass_maximize_value_semantics, NULL},
  {"inplace-to-outofplace", ti_pass_inplace_to_outofplace, NULL}
};

TASKIR_API const ti_pass *ti_generic_passes(int32_t *n) {
  if (n) *n = (int32_t)(sizeof ti__pass_passes / sizeof *ti__pass_passes);
  return ti__pass_passes;
}

TASKIR_API const ti_pass *ti_find_pass(const char *name) {
  size_t i;
  for (i = 0; name && i < sizeof ti__pass_passes / sizeof *ti__pass_passes; i++)
    if (strcmp(ti__pass_passes[i].name, name) == 0) return &ti__pass_passes[i];
  return NULL;
}

TASKIR_API ti_status ti_pass_manager_add_named(ti_pass_manager *pm, const char *names, ti_error *err) {
  return ti_pass_manager_add_named_from(pm, names, NULL, 0, err);
}

TASKIR_API ti_status ti_pass_manager_add_named_from(ti_pass_manager *pm, const char *names, const ti_pass *extra,
                                                    int32_t n_extra, ti_error *err) {
  const char *s = names;
  int32_t i;
  ti_error_clear(err);
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
    for (i = 0, ps = NULL; i < n_extra && !ps; i++)
      if (strcmp(extra[i].name, buf) == 0) ps = &extra[i];
    if (!ps && !(ps = ti_find_pass(buf))) return ti_error_set(err, TI_STATUS_NOT_FOUND, "unknown pass '%s'", buf);
    if (ti_pass_manager_add(pm, ps->name, ps->run, ps->user) != TI_STATUS_SUCCESS)
      return ti_error_set(err, TI_STATUS_LIMIT, "pass list: cannot add '%s' (the manager is full)", buf);
    s = e;
  }
  return TI_STATUS_SUCCESS;
}

#undef TI__PASS_TRY
#undef TI__PASS_AHEAD
#undef TI__PASS_BEHIND

/* >>impl.core.buffer ------------------------------------------------------ */

TASKIR_API void ti_buffer_init(ti_buffer *b, void *alloc_user) {
  b->data = NULL; b->len = b->cap = 0; b->alloc_user = alloc_user; b->failed = 0;
}
TASKIR_API void ti_buffer_free(ti_buffer *b) {
  if (b->data) TASKIR_FREE(b->alloc_user, b->data);
  b->data = NULL; b->len = b->cap = 0;
}
TASKIR_API ti_status ti_buffer_reserve(ti_buffer *b, size_t extra) {
  size_t need;
  int64_t cap = (int64_t)b->cap;
  if (b->failed || extra > (size_t)INT64_MAX - b->len - 1) { b->failed = 1; return TI_STATUS_NO_MEMORY; }
  need = b->len + extra + 1;   /* room for the terminating NUL */
  if (need <= b->cap) return TI_STATUS_SUCCESS;
  if (!ti__grow(b->alloc_user, &b->data, 1, &cap, (int64_t)need, 256, INT64_MAX)) { b->failed = 1; return TI_STATUS_NO_MEMORY; }
  b->cap = (size_t)cap;
  return TI_STATUS_SUCCESS;
}
TASKIR_API ti_status ti_buffer_append(ti_buffer *b, const void *data, size_t n) {
  if (ti_buffer_reserve(b, n) != TI_STATUS_SUCCESS) return TI_STATUS_NO_MEMORY;
  if (n) memcpy(b->data + b->len, data, n);
  b->len += n;
  b->data[b->len] = 0;
  return TI_STATUS_SUCCESS;
}
TASKIR_API ti_status ti_buffer_printf(ti_buffer *b, const char *fmt, ...) {
  va_list ap;
  int n;
  char small[256];
  va_start(ap, fmt);
  n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) return TI_STATUS_BAD_PARAM;
  if ((size_t)n < sizeof small) return ti_buffer_append(b, small, (size_t)n);
  if (ti_buffer_reserve(b, (size_t)n) != TI_STATUS_SUCCESS) return TI_STATUS_NO_MEMORY;
  va_start(ap, fmt);
  vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
  return TI_STATUS_SUCCESS;
}
#define TI__PUTS(b, s) ti_buffer_append((b), (s), strlen(s))

/* >>impl.core.print ------------------------------------------------------- */

static int ti__is_ident_start(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int ti__is_ident_char(int c) { return ti__is_ident_start(c) || (c >= '0' && c <= '9') || c == '.' || c == '$'; }

static int ti__is_ident(const char *s, int64_t n) {
  int64_t i;
  if (n <= 0 || !ti__is_ident_start((unsigned char)s[0])) return 0;
  for (i = 1; i < n; i++) if (!ti__is_ident_char((unsigned char)s[i])) return 0;
  return 1;
}

static void ti__print_string(ti_buffer *b, const char *s, int64_t n) {
  int64_t i;
  ti_buffer_append(b, "\"", 1);
  for (i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') { char e[2]; e[0] = '\\'; e[1] = (char)c; ti_buffer_append(b, e, 2); }
    else if (c == '\n') TI__PUTS(b, "\\n");
    else if (c == '\t') TI__PUTS(b, "\\t");
    else if (c < 0x20 || c >= 0x7f) ti_buffer_printf(b, "\\x%02x", c);
    else ti_buffer_append(b, &s[i], 1);
  }
  ti_buffer_append(b, "\"", 1);
}

/* Shortest of %.15g/%.16g/%.17g that reads back to the same double, always
   with a '.', an exponent, or inf/nan so it never reads as an integer. */
static void ti__print_double(ti_buffer *b, double v) {
  char s[40];
  int prec;
  if (v != v) { TI__PUTS(b, "nan"); return; }
  if (v > 1.7976931348623157e308) { TI__PUTS(b, "inf"); return; }
  if (v < -1.7976931348623157e308) { TI__PUTS(b, "-inf"); return; }
  for (prec = 15; prec <= 17; prec++) {
    snprintf(s, sizeof s, "%.*g", prec, v);
    if (strtod(s, NULL) == v) break;
  }
  if (!strpbrk(s, ".eE")) strcat(s, ".0");
  TI__PUTS(b, s);
}

TASKIR_API ti_status ti_print_type(const ti_type *t, ti_buffer *b) {
  int32_t i;
  TI__PUTS(b, t->kind == TI_TYPE_VTENSOR ? "vtensor<" : "tensor<");
  for (i = 0; i < t->rank; i++) {
    if (t->dims[i] < 0) TI__PUTS(b, "?x");
    else ti_buffer_printf(b, "%lldx", (long long)t->dims[i]);
  }
  TI__PUTS(b, ti_dtype_name(t->dtype));
  if (t->layout != TI_LAYOUT_ANY) { TI__PUTS(b, ", "); TI__PUTS(b, ti_layout_name(t->layout)); }
  TI__PUTS(b, ">");
  return b->failed ? TI_STATUS_NO_MEMORY : TI_STATUS_SUCCESS;
}

/* Iterative over nested arrays/dicts: an explicit stack, no recursion. */
TASKIR_API ti_status ti_print_attr(const ti_attr *a, ti_buffer *b) {
  struct frame { const ti_attr *a; int64_t i; } stack[64];
  int depth = 0;
  stack[0].a = a; stack[0].i = -1;
  while (depth >= 0) {
    struct frame *f = &stack[depth];
    const ti_attr *x = f->a;
    if (x->kind == TI_ATTR_ARRAY || x->kind == TI_ATTR_DICT) {
      int64_t n = x->kind == TI_ATTR_ARRAY ? x->u.array.n : x->u.dict.n;
      const ti_attr *child;
      if (f->i < 0) TI__PUTS(b, x->kind == TI_ATTR_ARRAY ? "[" : "{");
      f->i++;
      if (f->i >= n) { TI__PUTS(b, x->kind == TI_ATTR_ARRAY ? "]" : "}"); depth--; continue; }
      if (f->i > 0) TI__PUTS(b, ", ");
      if (x->kind == TI_ATTR_DICT) {
        const ti_attr *k = x->u.dict.items[f->i].name;
        if (ti__is_ident(k->u.s.data, k->u.s.len)) ti_buffer_append(b, k->u.s.data, (size_t)k->u.s.len);
        else ti__print_string(b, k->u.s.data, k->u.s.len);
        TI__PUTS(b, " = ");
        child = x->u.dict.items[f->i].value;
      } else {
        child = x->u.array.items[f->i];
      }
      if (depth + 1 >= 64) return TI_STATUS_LIMIT;
      stack[++depth].a = child;
      stack[depth].i = -1;
      continue;
    }
    switch (x->kind) {
    case TI_ATTR_INT: ti_buffer_printf(b, "%lld", (long long)x->u.i); break;
    case TI_ATTR_BOOL: TI__PUTS(b, x->u.i ? "true" : "false"); break;
    case TI_ATTR_FLOAT: ti__print_double(b, x->u.f); break;
    case TI_ATTR_STRING: ti__print_string(b, x->u.s.data, x->u.s.len); break;
    case TI_ATTR_TYPE: TI__PUTS(b, "type("); ti_print_type(x->u.type, b); TI__PUTS(b, ")"); break;
    default: break;
    }
    depth--;
  }
  return b->failed ? TI_STATUS_NO_MEMORY : TI_STATUS_SUCCESS;
}

/* Values are numbered args first, then results in program order; the number
   is kept in a scratch map keyed by value address (sorted array). */
typedef struct ti__vnum { const ti_value *v; int64_t n; } ti__vnum;
static int ti__vnum_cmp(const void *a, const void *b) {
  uintptr_t x = (uintptr_t)((const ti__vnum *)a)->v, y = (uintptr_t)((const ti__vnum *)b)->v;
  return x < y ? -1 : x > y;
}
static int64_t ti__vnum_find(const ti__vnum *map, int64_t n, const ti_value *v) {
  int64_t lo = 0, hi = n - 1;
  while (lo <= hi) {
    int64_t mid = (lo + hi) / 2;
    if (map[mid].v == v) return map[mid].n;
    if ((uintptr_t)map[mid].v < (uintptr_t)v) lo = mid + 1; else hi = mid - 1;
  }
  return -1;
}

static void ti__print_value(ti_buffer *b, const ti__vnum *map, int64_t n, const ti_value *v) {
  int64_t k = v ? ti__vnum_find(map, n, v) : -1;
  if (k < 0) TI__PUTS(b, "%<undefined>");
  else ti_buffer_printf(b, "%%%lld", (long long)k);
}

static const char ti__hex[] = "0123456789abcdef";

TASKIR_API ti_status ti_print_program(const ti_program *p, ti_buffer *b, ti_error *err) {
  ti_error_clear(err);
  int64_t nvals = p->n_args, k = 0, i;
  int oom = 0;
  ti__vnum *map;
  const ti_op *op;
  int32_t j;
  for (op = p->first; op; op = op->next) nvals += op->n_results;
  map = (ti__vnum *)TASKIR_MALLOC(p->ctx->alloc_user, (size_t)(nvals + 1) * sizeof *map);
  if (!map) return ti_error_set(err, TI_STATUS_NO_MEMORY, "out of memory printing the program");
  for (j = 0; j < p->n_args; j++) { map[k].v = p->args[j]; map[k].n = k; k++; }
  for (op = p->first; op; op = op->next)
    for (j = 0; j < op->n_results; j++) { map[k].v = &op->results[j]; map[k].n = k; k++; }
  qsort(map, (size_t)nvals, sizeof *map, ti__vnum_cmp);

  TI__PUTS(b, "program @");
  if (ti__is_ident(p->name, (int64_t)strlen(p->name))) TI__PUTS(b, p->name);
  else ti__print_string(b, p->name, (int64_t)strlen(p->name));
  if (p->kind == TI_PROGRAM_GRAPH) TI__PUTS(b, " graph");
  if (p->n_args) {
    TI__PUTS(b, "(");
    for (j = 0; j < p->n_args; j++) {
      if (j) TI__PUTS(b, ", ");
      ti_buffer_printf(b, "%%%d: ", (int)j);
      ti_print_type(p->args[j]->type, b);
    }
    TI__PUTS(b, ")");
  }
  if (p->attrs->u.dict.n) { TI__PUTS(b, " attributes "); ti_print_attr(p->attrs, b); }
  TI__PUTS(b, " {\n");
  for (op = p->first; op; op = op->next) {
    TI__PUTS(b, "  ");
    for (j = 0; j < op->n_results; j++) {
      if (j) TI__PUTS(b, ", ");
      ti__print_value(b, map, nvals, &op->results[j]);
    }
    if (op->n_results) TI__PUTS(b, " = ");
    TI__PUTS(b, op->info->name);
    TI__PUTS(b, "(");
    for (j = 0; j < op->n_operands; j++) {
      if (j) TI__PUTS(b, ", ");
      ti__print_value(b, map, nvals, op->operands[j].value);
    }
    TI__PUTS(b, ")");
    if (op->attrs->u.dict.n) { TI__PUTS(b, " "); ti_print_attr(op->attrs, b); }
    TI__PUTS(b, " : (");
    for (j = 0; j < op->n_operands; j++) {
      if (j) TI__PUTS(b, ", ");
      if (op->operands[j].value) ti_print_type(op->operands[j].value->type, b);
    }
    TI__PUTS(b, ") -> ");
    if (op->n_results != 1) TI__PUTS(b, "(");
    for (j = 0; j < op->n_results; j++) {
      if (j) TI__PUTS(b, ", ");
      ti_print_type(op->results[j].type, b);
    }
    if (op->n_results != 1) TI__PUTS(b, ")");
    TI__PUTS(b, "\n");
  }
  TI__PUTS(b, "}\n");
  if (p->n_vars) {
    TI__PUTS(b, "weights {\n");
    for (j = 0; j < p->n_vars; j++) {
      const ti_variable *v = &p->vars[j];
      const unsigned char *d = (const unsigned char *)v->data;
      unsigned char *dst;
      TI__PUTS(b, "  ");
      ti__print_string(b, v->name, (int64_t)strlen(v->name));
      TI__PUTS(b, " : ");
      ti_print_type(v->type, b);
      TI__PUTS(b, v->is_mutable ? " mutable = 0x" : " = 0x");
      if (ti_buffer_reserve(b, (size_t)v->bytes * 2) != TI_STATUS_SUCCESS) { oom = 1; break; }
      dst = b->data + b->len;
      for (i = 0; i < v->bytes; i++) {
        dst[2 * i] = (unsigned char)ti__hex[d[i] >> 4];
        dst[2 * i + 1] = (unsigned char)ti__hex[d[i] & 15];
      }
      b->len += (size_t)v->bytes * 2;
      TI__PUTS(b, "\n");
    }
    TI__PUTS(b, "}\n");
  }
  TASKIR_FREE(p->ctx->alloc_user, map);
  if (oom || b->failed)
    return ti_error_set(err, TI_STATUS_NO_MEMORY, "out of memory printing the program");
  return TI_STATUS_SUCCESS;
}

/* >>impl.core.parse ------------------------------------------------------- */

typedef struct ti__parser {
  ti_context *ctx;
  const char *s, *end, *line_start;
  int32_t line;
  ti_error *err;
  ti_status status;
} ti__parser;

#ifdef TASKIR_NO_ERRMSG
#define ti__perr(ps, fmt, detail) (TI__NOMSG((fmt), (detail)), (ti__perr)((ps), NULL, NULL))
#endif
static ti_status (ti__perr)(ti__parser *ps, const char *fmt, const char *detail) {
  if (ps->status == TI_STATUS_SUCCESS) {
    int32_t col = (int32_t)(ps->s - ps->line_start) + 1;
    ps->status = ti_error_set(ps->err, TI_STATUS_PARSE_ERROR, "line %d:%d: %s%s%s", (int)ps->line, (int)col, fmt,
                              detail ? " " : "", detail ? detail : "");
    if (ps->err && ps->err->line == 0) { ps->err->line = ps->line; ps->err->column = col; }
  }
  return ps->status;
}

static void ti__skip_ws(ti__parser *ps) {
  while (ps->s < ps->end) {
    char c = *ps->s;
    if (c == '\n') { ps->s++; ps->line++; ps->line_start = ps->s; }
    else if (c == ' ' || c == '\t' || c == '\r') ps->s++;
    else if (c == '/' && ps->s + 1 < ps->end && ps->s[1] == '/') { while (ps->s < ps->end && *ps->s != '\n') ps->s++; }
    else break;
  }
}
static int ti__peek(ti__parser *ps, char c) { ti__skip_ws(ps); return ps->s < ps->end && *ps->s == c; }
static int ti__accept(ti__parser *ps, char c) { if (ti__peek(ps, c)) { ps->s++; return 1; } return 0; }
static int ti__expect(ti__parser *ps, char c) {
  char what[4];
  if (ti__accept(ps, c)) return 1;
  what[0] = '\''; what[1] = c; what[2] = '\''; what[3] = 0;
  ti__perr(ps, "expected", what);
  return 0;
}
static int ti__accept_word(ti__parser *ps, const char *w) {
  size_t n = strlen(w);
  ti__skip_ws(ps);
  if ((size_t)(ps->end - ps->s) >= n && memcmp(ps->s, w, n) == 0 &&
      (ps->s + n == ps->end || !ti__is_ident_char((unsigned char)ps->s[n]))) {
    ps->s += n;
    return 1;
  }
  return 0;
}
/* An identifier (letters, digits, '_', '.', '$'): returns its length. */
static size_t ti__ident(ti__parser *ps, const char **start) {
  const char *p;
  ti__skip_ws(ps);
  p = ps->s;
  if (p >= ps->end || !ti__is_ident_start((unsigned char)*p)) return 0;
  while (p < ps->end && ti__is_ident_char((unsigned char)*p)) p++;
  *start = ps->s;
  ps->s = p;
  return (size_t)(p - *start);
}

/* A quoted string into a malloc'd buffer (caller frees); NULL on error. */
static char *ti__string(ti__parser *ps, int64_t *len) {
  char *out;
  int64_t n = 0;
  const char *p;
  if (!ti__expect(ps, '"')) return NULL;
  out = (char *)TASKIR_MALLOC(ps->ctx->alloc_user, (size_t)(ps->end - ps->s) + 1);
  if (!out) { ps->status = ti_error_set(ps->err, TI_STATUS_NO_MEMORY, "out of memory reading a string"); return NULL; }
  for (p = ps->s; p < ps->end && *p != '"'; p++) {
    if (*p == '\n') break;
    if (*p == '\\') {
      if (++p >= ps->end) break;
      switch (*p) {
      case 'n': out[n++] = '\n'; break;
      case 't': out[n++] = '\t'; break;
      case '\\': out[n++] = '\\'; break;
      case '"': out[n++] = '"'; break;
      case 'x': {
        int k, v = 0;
        for (k = 0; k < 2; k++) {
          char c = ++p < ps->end ? *p : 0;
          int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
          if (d < 0) { ps->s = p; TASKIR_FREE(ps->ctx->alloc_user, out); ti__perr(ps, "bad \\x escape in string", NULL); return NULL; }
          v = v * 16 + d;
        }
        out[n++] = (char)v;
        break;
      }
      default: ps->s = p; TASKIR_FREE(ps->ctx->alloc_user, out); ti__perr(ps, "unknown escape in string", NULL); return NULL;
      }
    } else {
      out[n++] = *p;
    }
  }
  if (p >= ps->end || *p != '"') {
    TASKIR_FREE(ps->ctx->alloc_user, out);
    ti__perr(ps, "unterminated string", NULL);
    return NULL;
  }
  ps->s = p + 1;
  out[n] = 0;
  *len = n;
  return out;
}

static const ti_type *ti__parse_type(ti__parser *ps) {
  ti_type_kind kind;
  int64_t dims[TI_MAX_RANK];
  int32_t rank = 0;
  ti_dtype dtype = TI_DTYPE_COUNT;
  ti_layout layout = TI_LAYOUT_ANY;
  const ti_type *t;
  int i;
  const char *start;
  ti__skip_ws(ps);
  start = ps->s;
  if (ti__accept_word(ps, "vtensor")) kind = TI_TYPE_VTENSOR;
  else if (ti__accept_word(ps, "tensor")) kind = TI_TYPE_TENSOR;
  else { ti__perr(ps, "expected a type (tensor<...> or vtensor<...>)", NULL); return NULL; }
  if (!ti__expect(ps, '<')) return NULL;
  for (;;) {   /* dims "2x?x3x" then the element type */
    const char *p = ps->s;
    int64_t v = 0;
    if (p < ps->end && *p == '?') { v = -1; p++; }
    else if (p < ps->end && *p >= '0' && *p <= '9') {
      while (p < ps->end && *p >= '0' && *p <= '9') {
        if (v > (INT64_MAX - 9) / 10) { ti__perr(ps, "dimension too large", NULL); return NULL; }
        v = v * 10 + (*p++ - '0');
      }
    } else break;
    if (p >= ps->end || *p != 'x') break;   /* a number not followed by 'x' is not a dim */
    if (rank == TI_MAX_RANK) { ti__perr(ps, "too many dimensions", NULL); return NULL; }
    dims[rank++] = v;
    ps->s = p + 1;
  }
  for (i = 0; i < TI_DTYPE_COUNT; i++) {
    const char *n = ti_dtype_name((ti_dtype)i);
    size_t len = strlen(n);
    if ((size_t)(ps->end - ps->s) >= len && memcmp(ps->s, n, len) == 0 &&
        (ps->s + len == ps->end || !ti__is_ident_char((unsigned char)ps->s[len]))) {
      dtype = (ti_dtype)i; ps->s += len; break;
    }
  }
  if (dtype == TI_DTYPE_COUNT) { ti__perr(ps, "expected an element type (i8, f32, ...)", NULL); return NULL; }
  if (ti__accept(ps, ',')) {
    const char *w;
    size_t n = ti__ident(ps, &w);
    for (i = 1; i < TI_LAYOUT_COUNT; i++)
      if (n == strlen(ti_layout_name((ti_layout)i)) && memcmp(w, ti_layout_name((ti_layout)i), n) == 0) layout = (ti_layout)i;
    if (layout == TI_LAYOUT_ANY) { ti__perr(ps, "unknown layout (NCHW, NHWC, OIHW, HWOI, TENSOR, NTENSOR)", NULL); return NULL; }
  }
  if (!ti__expect(ps, '>')) return NULL;
  if (!ti_type_fits(dtype, rank, dims)) {
    ps->s = start;   /* point at the type */
    ti__perr(ps, "type too large: its size in bytes overflows int64", NULL);
    return NULL;
  }
  t = ti_type_get(ps->ctx, kind, dtype, rank, dims, layout);
  if (!t) ps->status = ti_error_set(ps->err, TI_STATUS_NO_MEMORY, "out of memory interning a type");
  return t;
}

/* Attributes nest; the parser keeps its own stack so deep input cannot
   overflow the C stack. */
#define TI__ATTR_MAX_DEPTH 64
static const ti_attr *ti__parse_attr(ti__parser *ps) {
  struct level { int is_dict; int64_t n, cap; ti_named_attr *items; const ti_attr *key; } st[TI__ATTR_MAX_DEPTH];
  int depth = -1;
  const ti_attr *done = NULL;
  void *u = ps->ctx->alloc_user;
  for (;;) {
    const ti_attr *val = NULL;
    /* read the key of a dict entry */
    if (depth >= 0 && st[depth].is_dict && !st[depth].key) {
      if (ti__accept(ps, '}')) goto close;
      if (st[depth].n && !ti__expect(ps, ',')) goto fail;
      ti__skip_ws(ps);
      if (ti__peek(ps, '"')) {
        int64_t len; char *s = ti__string(ps, &len);
        if (!s) goto fail;
        st[depth].key = ti_attr_string(ps->ctx, s, len);
        TASKIR_FREE(u, s);
      } else {
        const char *w; size_t n = ti__ident(ps, &w);
        if (!n) { ti__perr(ps, "expected an attribute name", NULL); goto fail; }
        st[depth].key = ti_attr_string(ps->ctx, w, (int64_t)n);
      }
      if (!ti__expect(ps, '=')) goto fail;
    } else if (depth >= 0 && !st[depth].is_dict) {
      if (ti__accept(ps, ']')) goto close;
      if (st[depth].n && !ti__expect(ps, ',')) goto fail;
    }
    /* a value */
    ti__skip_ws(ps);
    if (ps->s >= ps->end) { ti__perr(ps, "unexpected end of input in an attribute", NULL); goto fail; }
    if (*ps->s == '[' || *ps->s == '{') {
      if (depth + 1 >= TI__ATTR_MAX_DEPTH) { ti__perr(ps, "attributes nested too deeply", NULL); goto fail; }
      depth++;
      st[depth].is_dict = *ps->s == '{';
      st[depth].n = st[depth].cap = 0; st[depth].items = NULL; st[depth].key = NULL;
      ps->s++;
      continue;
    } else if (*ps->s == '"') {
      int64_t len; char *s = ti__string(ps, &len);
      if (!s) goto fail;
      val = ti_attr_string(ps->ctx, s, len);
      TASKIR_FREE(u, s);
    } else if (ti__accept_word(ps, "true")) val = ti_attr_bool(ps->ctx, 1);
    else if (ti__accept_word(ps, "false")) val = ti_attr_bool(ps->ctx, 0);
    else if (ti__accept_word(ps, "nan")) val = ti_attr_float(ps->ctx, (double)NAN);
    else if (ti__accept_word(ps, "inf")) val = ti_attr_float(ps->ctx, (double)INFINITY);
    else if (ti__accept_word(ps, "type")) {
      const ti_type *t;
      if (!ti__expect(ps, '(') || !(t = ti__parse_type(ps)) || !ti__expect(ps, ')')) goto fail;
      val = ti_attr_type_attr(ps->ctx, t);
    } else {
      const char *p = ps->s;
      char *endp;
      int is_float = 0;
      if (p < ps->end && (*p == '-' || *p == '+')) p++;
      if (ps->end - p >= 3 && memcmp(p, "inf", 3) == 0) { val = ti_attr_float(ps->ctx, *ps->s == '-' ? -(double)INFINITY : (double)INFINITY); ps->s = p + 3; }
      else if (p < ps->end && *p >= '0' && *p <= '9') {
        const char *q = p;
        char tmp[64];
        size_t n;
        while (q < ps->end && ((*q >= '0' && *q <= '9') || *q == '.' || *q == 'e' || *q == 'E' ||
                               ((*q == '-' || *q == '+') && (q[-1] == 'e' || q[-1] == 'E')))) {
          if (*q == '.' || *q == 'e' || *q == 'E') is_float = 1;
          q++;
        }
        n = (size_t)(q - ps->s);
        if (n >= sizeof tmp) { ti__perr(ps, "number too long", NULL); goto fail; }
        memcpy(tmp, ps->s, n); tmp[n] = 0;
        errno = 0;
        if (is_float) val = ti_attr_float(ps->ctx, strtod(tmp, &endp));
        else val = ti_attr_int(ps->ctx, (int64_t)strtoll(tmp, &endp, 10));
        if (*endp || errno == ERANGE) { ti__perr(ps, "bad number", tmp); goto fail; }
        ps->s = q;
      } else {
        ti__perr(ps, "expected an attribute value", NULL);
        goto fail;
      }
    }
    if (!val) { if (!ps->status) ps->status = ti_error_set(ps->err, TI_STATUS_NO_MEMORY, "out of memory"); goto fail; }
  got_value:
    if (depth < 0) return val;
    {
      struct level *L = &st[depth];
      if (!ti__grow(u, &L->items, sizeof *L->items, &L->cap, L->n + 1, 8, INT64_MAX)) {
        ps->status = ti_error_set(ps->err, TI_STATUS_NO_MEMORY, "out of memory");
        goto fail;
      }
      L->items[L->n].name = L->key;
      L->items[L->n].value = val;
      L->n++;
      L->key = NULL;
    }
    continue;
  close:
    {
      struct level *L = &st[depth];
      if (L->is_dict) {
        done = ti_attr_dict(ps->ctx, L->items, L->n);
        if (!done) { TASKIR_FREE(u, L->items); depth--; ti__perr(ps, "duplicate key in dictionary", NULL); goto fail; }
      } else {
        const ti_attr **arr = (const ti_attr **)TASKIR_MALLOC(u, (size_t)(L->n + 1) * sizeof *arr);
        int64_t i;
        if (!arr) { ps->status = ti_error_set(ps->err, TI_STATUS_NO_MEMORY, "out of memory"); goto fail; }
        for (i = 0; i < L->n; i++) arr[i] = L->items[i].value;
        done = ti_attr_array(ps->ctx, arr, L->n);
        TASKIR_FREE(u, (void *)arr);
      }
      if (L->items) TASKIR_FREE(u, L->items);
      depth--;
      val = done;
      if (!val) { ps->status = ti_error_set(ps->err, TI_STATUS_NO_MEMORY, "out of memory"); goto fail; }
      goto got_value;
    }
  }
fail:
  while (depth >= 0) { if (st[depth].items) TASKIR_FREE(u, st[depth].items); depth--; }
  if (!ps->status) ti__perr(ps, "bad attribute", NULL);
  return NULL;
}

/* Value table of the parser: number -> value; placeholders stand for values
   of a graph program referenced before their definition. A hash table keyed
   by the number, so its size follows the values the text names, never the
   size of the numbers written (`%300000000` costs one entry). */
typedef struct ti__vslot { int64_t key; ti_value *v; char used, is_placeholder; } ti__vslot;
typedef struct ti__vtab { ti__vslot *slots; int64_t n, cap; } ti__vtab;

/* The entry of number k, inserted empty (v NULL) when absent; NULL when out
   of memory. */
static ti__vslot *ti__vtab_get(ti__vtab *t, int64_t k, void *u) {
  uint64_t j;
  if ((t->n + 1) * 4 > t->cap * 3) {
    int64_t ncap = t->cap ? t->cap * 2 : 64, i;
    ti__vslot *ns = (ti__vslot *)TASKIR_MALLOC(u, (size_t)ncap * sizeof *ns);
    if (!ns) return NULL;
    memset(ns, 0, (size_t)ncap * sizeof *ns);
    for (i = 0; i < t->cap; i++) {
      if (!t->slots[i].used) continue;
      j = ti__hash_mix(0, (uint64_t)t->slots[i].key) & (uint64_t)(ncap - 1);
      while (ns[j].used) j = (j + 1) & (uint64_t)(ncap - 1);
      ns[j] = t->slots[i];
    }
    if (t->slots) TASKIR_FREE(u, t->slots);
    t->slots = ns; t->cap = ncap;
  }
  j = ti__hash_mix(0, (uint64_t)k) & (uint64_t)(t->cap - 1);
  while (t->slots[j].used && t->slots[j].key != k) j = (j + 1) & (uint64_t)(t->cap - 1);
  if (!t->slots[j].used) { t->slots[j].used = 1; t->slots[j].key = k; t->n++; }
  return &t->slots[j];
}

static int64_t ti__parse_value_ref(ti__parser *ps) {
  int64_t k = 0;
  if (!ti__expect(ps, '%')) return -1;
  if (ps->s >= ps->end || *ps->s < '0' || *ps->s > '9') { ti__perr(ps, "expected a value number after '%'", NULL); return -1; }
  while (ps->s < ps->end && *ps->s >= '0' && *ps->s <= '9') {
    if (k > 100000000000LL) { ti__perr(ps, "value number too large", NULL); return -1; }
    k = k * 10 + (*ps->s++ - '0');
  }
  return k;
}

static int ti__parse_hex(ti__parser *ps, unsigned char *dst, int64_t bytes) {
  int64_t i;
  ti__skip_ws(ps);
  if (ps->end - ps->s < 2 || ps->s[0] != '0' || ps->s[1] != 'x') { ti__perr(ps, "expected 0x followed by the data in hex", NULL); return 0; }
  ps->s += 2;
  for (i = 0; i < bytes * 2; i++) {
    char c = ps->s < ps->end ? *ps->s : 0;
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0) { ti__perr(ps, "weight data: fewer hex digits than the type needs", NULL); return 0; }
    if (i & 1) dst[i / 2] = (unsigned char)(dst[i / 2] | d); else dst[i / 2] = (unsigned char)(d << 4);
    ps->s++;
  }
  if (ps->s < ps->end && ti__is_ident_char((unsigned char)*ps->s)) { ti__perr(ps, "weight data: more hex digits than the type needs", NULL); return 0; }
  return 1;
}

TASKIR_API ti_status ti_parse_program(ti_context *ctx, const char *text, size_t len, ti_program **out, ti_error *err) {
  ti_error_clear(err);
  ti__parser ps;
  ti_program *p = NULL;
  ti__vtab vt;
  void *u = ctx->alloc_user;
  char *name = NULL;
  ti_value **opnds = NULL;
  const ti_type **otypes = NULL, **rtypes = NULL;
  int64_t *refs = NULL, cap_ops = 0, i, *results = NULL, cap_res = 0, cap_rt = 0;
  memset(&vt, 0, sizeof vt);
  ps.ctx = ctx; ps.s = text; ps.end = text + len; ps.line_start = text; ps.line = 1; ps.err = err;
  ps.status = TI_STATUS_SUCCESS;
  *out = NULL;
  if (!ti__accept_word(&ps, "program")) { ti__perr(&ps, "expected 'program'", NULL); goto fail; }
  if (!ti__expect(&ps, '@')) goto fail;
  if (ti__peek(&ps, '"')) { int64_t n; name = ti__string(&ps, &n); if (!name) goto fail; }
  else {
    const char *w; size_t n = ti__ident(&ps, &w);
    if (!n) { ti__perr(&ps, "expected the program name", NULL); goto fail; }
    name = (char *)TASKIR_MALLOC(u, n + 1);
    if (!name) goto oom;
    memcpy(name, w, n); name[n] = 0;
  }
  p = ti_program_create(ctx, name, ti__accept_word(&ps, "graph") ? TI_PROGRAM_GRAPH : TI_PROGRAM_SSA);
  if (!p) goto oom;
  if (ti__accept(&ps, '(')) {
    do {
      int64_t k = ti__parse_value_ref(&ps);
      const ti_type *t;
      ti_value *v;
      ti__vslot *e;
      if (k < 0 || !ti__expect(&ps, ':') || !(t = ti__parse_type(&ps))) goto fail;
      if (k != p->n_args) { ti__perr(&ps, "arguments must be numbered %0, %1, ... in order", NULL); goto fail; }
      if (!(e = ti__vtab_get(&vt, k, u)) || !(v = ti_program_add_arg(p, t))) goto oom;
      e->v = v;
    } while (ti__accept(&ps, ','));
    if (!ti__expect(&ps, ')')) goto fail;
  }
  if (ti__accept_word(&ps, "attributes")) {
    const ti_attr *pa;
    if (!ti__peek(&ps, '{')) { ti__perr(&ps, "expected a dictionary after 'attributes'", NULL); goto fail; }
    if (!(pa = ti__parse_attr(&ps))) goto fail;
    p->attrs = pa;
  }
  if (!ti__expect(&ps, '{')) goto fail;
  while (!ti__accept(&ps, '}')) {
    int64_t nres = 0, nops = 0, nrt = 0;
    const char *w;
    size_t wn;
    char opname[128];
    const ti_attr *attrs = NULL;
    ti_op *op;
    int32_t line = ps.line, col = (int32_t)(ps.s - ps.line_start) + 1;
    ti__skip_ws(&ps);
    if (ps.s >= ps.end) { ti__perr(&ps, "unexpected end of input: missing '}'", NULL); goto fail; }
    if (ti__peek(&ps, '%')) {
      do {   /* as many results as the text lists (the printer has no limit either) */
        if (!ti__grow(u, &results, sizeof *results, &cap_res, nres + 1, 16, INT64_MAX)) goto oom;
        if ((results[nres++] = ti__parse_value_ref(&ps)) < 0) goto fail;
      } while (ti__accept(&ps, ','));
      if (!ti__expect(&ps, '=')) goto fail;
    }
    wn = ti__ident(&ps, &w);
    if (!wn || wn >= sizeof opname) { ti__perr(&ps, "expected an op name", NULL); goto fail; }
    memcpy(opname, w, wn); opname[wn] = 0;
    if (!ti__expect(&ps, '(')) goto fail;
    if (!ti__accept(&ps, ')')) {
      do {
        int64_t k;
        if (nops == cap_ops) {   /* three arrays of one capacity */
          int64_t c1 = cap_ops, c2 = cap_ops, c3 = cap_ops;
          if (!ti__grow(u, &refs, sizeof *refs, &c1, nops + 1, 16, INT64_MAX) ||
              !ti__grow(u, &opnds, sizeof *opnds, &c2, nops + 1, 16, INT64_MAX) ||
              !ti__grow(u, &otypes, sizeof *otypes, &c3, nops + 1, 16, INT64_MAX))
            goto oom;
          cap_ops = c1;
        }
        if ((k = ti__parse_value_ref(&ps)) < 0) goto fail;
        refs[nops++] = k;
      } while (ti__accept(&ps, ','));
      if (!ti__expect(&ps, ')')) goto fail;
    }
    if (ti__peek(&ps, '{')) {
      attrs = ti__parse_attr(&ps);
      if (!attrs) goto fail;
    }
    if (!ti__expect(&ps, ':') || !ti__expect(&ps, '(')) goto fail;
    i = 0;
    if (!ti__accept(&ps, ')')) {
      do {
        const ti_type *t = ti__parse_type(&ps);
        if (!t) goto fail;
        if (i >= nops) { ti__perr(&ps, "more operand types than operands", NULL); goto fail; }
        otypes[i++] = t;
      } while (ti__accept(&ps, ','));
      if (!ti__expect(&ps, ')')) goto fail;
    }
    if (i != nops) { ti__perr(&ps, "fewer operand types than operands", NULL); goto fail; }
    if (!ti__expect(&ps, '-') || !ti__expect(&ps, '>')) goto fail;
    if (!ti__grow(u, &rtypes, sizeof *rtypes, &cap_rt, nres + 1, 16, INT64_MAX)) goto oom;
    if (ti__accept(&ps, '(')) {
      if (!ti__accept(&ps, ')')) {
        do {
          const ti_type *t = ti__parse_type(&ps);
          if (!t) goto fail;
          if (nrt >= nres) { ti__perr(&ps, "more result types than results", NULL); goto fail; }
          rtypes[nrt++] = t;
        } while (ti__accept(&ps, ','));
        if (!ti__expect(&ps, ')')) goto fail;
      }
    } else {
      const ti_type *t = ti__parse_type(&ps);
      if (!t) goto fail;
      if (nres != 1) { ti__perr(&ps, "one result type given for a different number of results", NULL); goto fail; }
      rtypes[nrt++] = t;
    }
    if (nrt != nres) { ti__perr(&ps, "fewer result types than results", NULL); goto fail; }
    /* resolve operands */
    for (i = 0; i < nops; i++) {
      int64_t k = refs[i];
      ti__vslot *e = ti__vtab_get(&vt, k, u);
      if (!e) goto oom;
      if (!e->v) {
        ti_value *ph;
        if (p->kind == TI_PROGRAM_SSA) {
          char num[32];
          snprintf(num, sizeof num, "%%%lld", (long long)k);
          ps.line = line; ps.s = ps.line_start + col - 1;
          ti__perr(&ps, "use of a value before its definition:", num);
          goto fail;
        }
        ph = (ti_value *)ti_arena_alloc(&p->arena, sizeof *ph, 8);
        if (!ph) goto oom;
        ph->type = otypes[i];
        ph->index = -1;
        e->v = ph;
        e->is_placeholder = 1;
      }
      if (e->v->type != otypes[i]) {
        char num[32];
        snprintf(num, sizeof num, "%%%lld", (long long)k);
        ps.line = line; ps.s = ps.line_start + col - 1;
        ti__perr(&ps, "type mismatch: the signature gives another type than the definition of", num);
        goto fail;
      }
      opnds[i] = e->v;
    }
    op = ti_op_create(p, opname, (int32_t)nops, opnds, (int32_t)nres, rtypes, attrs, err);
    if (!op) {
      ps.status = err && err->status ? err->status : TI_STATUS_PARSE_ERROR;
      if (err && err->line == 0) {
#ifndef TASKIR_NO_ERRMSG
        /* prefix the position */
        char msg[sizeof err->message];
        int pre = snprintf(msg, sizeof msg, "line %d:%d: ", (int)line, (int)col);
        if (pre > 0 && (size_t)pre < sizeof msg) {
          size_t keep = sizeof msg - (size_t)pre - 1, n = strlen(err->message);
          memcpy(msg + pre, err->message, n < keep ? n : keep);
          msg[(size_t)pre + (n < keep ? n : keep)] = 0;
          memcpy(err->message, msg, sizeof msg);
        }
#endif
        err->line = line; err->column = col;
      }
      goto fail;
    }
    ti_op_insert_before(op, NULL);
    for (i = 0; i < nres; i++) {
      int64_t k = results[i];
      ti__vslot *e = ti__vtab_get(&vt, k, u);
      if (!e) goto oom;
      if (e->v && !e->is_placeholder) {
        char num[32];
        snprintf(num, sizeof num, "%%%lld", (long long)k);
        ps.line = line; ps.s = ps.line_start + col - 1;
        ti__perr(&ps, "value defined twice:", num);
        goto fail;
      }
      if (e->v) {
        if (e->v->type != op->results[i].type) {
          char num[32];
          snprintf(num, sizeof num, "%%%lld", (long long)k);
          ps.line = line; ps.s = ps.line_start + col - 1;
          ti__perr(&ps, "type mismatch between a use and the definition of", num);
          goto fail;
        }
        ti_value_replace_all_uses(e->v, &op->results[i]);
        e->is_placeholder = 0;
      }
      e->v = &op->results[i];
    }
  }
  {
    int64_t undef = -1;   /* the smallest number used but never defined */
    for (i = 0; i < vt.cap; i++)
      if (vt.slots[i].used && vt.slots[i].is_placeholder && (undef < 0 || vt.slots[i].key < undef)) undef = vt.slots[i].key;
    if (undef >= 0) {
      char num[32];
      snprintf(num, sizeof num, "%%%lld", (long long)undef);
      ti__perr(&ps, "value used but never defined:", num);
      goto fail;
    }
  }
  if (ti__accept_word(&ps, "weights")) {
    if (!ti__expect(&ps, '{')) goto fail;
    while (!ti__accept(&ps, '}')) {
      int64_t n;
      char *vname;
      const ti_type *t;
      int is_mut;
      ti_variable *v;
      if (ps.s >= ps.end) { ti__perr(&ps, "unexpected end of input in weights", NULL); goto fail; }
      if (!(vname = ti__string(&ps, &n))) goto fail;
      if (!ti__expect(&ps, ':') || !(t = ti__parse_type(&ps))) { TASKIR_FREE(u, vname); goto fail; }
      is_mut = ti__accept_word(&ps, "mutable");
      if (!ti__expect(&ps, '=')) { TASKIR_FREE(u, vname); goto fail; }
      if (ti_program_add_var(p, vname, t, NULL, is_mut, err) != TI_STATUS_SUCCESS) {
        TASKIR_FREE(u, vname);
        ps.status = err && err->status ? err->status : TI_STATUS_PARSE_ERROR;
        goto fail;
      }
      TASKIR_FREE(u, vname);
      v = &p->vars[p->n_vars - 1];
      if (!ti__parse_hex(&ps, (unsigned char *)v->data, v->bytes)) goto fail;
    }
  }
  ti__skip_ws(&ps);
  if (ps.s != ps.end) { ti__perr(&ps, "unexpected text after the program", NULL); goto fail; }
  *out = p;
  p = NULL;
  goto cleanup;
oom:
  ps.status = ti_error_set(err, TI_STATUS_NO_MEMORY, "out of memory parsing the program");
fail:
  if (ps.status == TI_STATUS_SUCCESS) ps.status = TI_STATUS_PARSE_ERROR;
cleanup:
  if (p) {
    /* unlink uses of placeholders before freeing the arena */
    ti_program_destroy(p);
  }
  if (name) TASKIR_FREE(u, name);
  if (refs) TASKIR_FREE(u, refs);
  if (results) TASKIR_FREE(u, results);
  if (opnds) TASKIR_FREE(u, opnds);
  if (otypes) TASKIR_FREE(u, (void *)otypes);
  if (rtypes) TASKIR_FREE(u, (void *)rtypes);
  if (vt.slots) TASKIR_FREE(u, vt.slots);
  return *out ? TI_STATUS_SUCCESS : ps.status;
}
#undef TI__PUTS

/* >>impl.task.types -------------------------------------------------------- */

#define TI__BLOCK_DESC(N, nm, op, w, cl, na, in, mid, mi, bias, win, req, opt, m1, od, lay, macs, k)              \
  { nm, op, w, TI_CLASS_##cl, na, TI_TASK_LAYOUT_##in, TI_TASK_ROLE_##mid, TI_TASK_LAYOUT_##mi, bias,        \
    TI_TASK_WINDOW_##win, req, opt, m1, od, TI_TASK_LAYOUT_##lay, TI_TASK_MACS_##macs },
static const ti_task_block_desc ti__block_descs[] = {
  TI_BLOCK_TYPES(TI__BLOCK_DESC)
  TASKIR_EXTRA_BLOCK_TYPES(TI__BLOCK_DESC)
};
#undef TI__BLOCK_DESC
TI__STATIC_ASSERT(sizeof ti__block_descs / sizeof *ti__block_descs == TI_BLOCK_COUNT, block_descs);
TI__STATIC_ASSERT(TI_BLOCK_NULL + 1 == TI__BLOCK_TYPES_BUILTIN, block_types_builtin);
TI__STATIC_ASSERT(TI_DIM_Y == TI_SHAPE_HAS_NY && TI_DIM_WIN == 0xF0u, dim_bits);

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
TI__STATIC_ASSERT(sizeof ti__attr_type_names / sizeof *ti__attr_type_names == TI_TASK_ATTR_COUNT, attr_names);

static const char *const ti__test_mode_names[] = { "MEMORY_STATE", "PRIM_OUTPUT", "CASE_OUTPUT" };
TI__STATIC_ASSERT(TI_BIAS_VECTOR == 1 && TI_BIAS_CONSTANT == 2, bias_mode_wire);
TI__STATIC_ASSERT(sizeof ti__test_mode_names / sizeof *ti__test_mode_names == TI_TEST_MODE_COUNT, test_mode_names);

TASKIR_API const ti_task_block_desc *ti_task_block_desc_of(ti_block_type t) {
  return (unsigned)t < TI_BLOCK_COUNT ? &ti__block_descs[t] : NULL;
}
TASKIR_API const char *ti_block_type_name(ti_block_type t) {
  return (unsigned)t < TI_BLOCK_COUNT ? ti__block_descs[t].name : NULL;
}
TASKIR_API const char *ti_precision_name(ti_dtype p) {
  return (unsigned)p <= TI_DTYPE_I9 ? ti__precision_names[p] : NULL;
}
TASKIR_API const char *ti_attr_type_name(ti_attr_type t) {
  return (unsigned)t < TI_TASK_ATTR_COUNT ? ti__attr_type_names[t] : NULL;
}
TASKIR_API const char *ti_bias_type_name(ti_bias_mode b) {
  return b == TI_BIAS_VECTOR ? "VECTOR" : b == TI_BIAS_CONSTANT ? "CONSTANT" : NULL;
}
TASKIR_API const char *ti_test_mode_name(ti_test_mode m) {
  return (unsigned)m < TI_TEST_MODE_COUNT ? ti__test_mode_names[m] : NULL;
}

TASKIR_API ti_block_class ti_block_class_of(ti_block_type t) {
  return (unsigned)t < TI_BLOCK_COUNT ? ti__block_descs[t].cls : TI_CLASS_NULL;
}

TASKIR_API int32_t ti_block_type_wire(ti_block_type t) {
  return (unsigned)t < TI_BLOCK_COUNT ? ti__block_descs[t].wire : (int32_t)t;
}
/* A switch over the wire column: a wire value used twice does not compile. */
#define TI__BLOCK_FROM_WIRE(N, nm, op, w, cl, na, in, mid, mi, bias, win, req, opt, m1, od, lay, macs, k) \
  case w: *out = TI_BLOCK_##N; return 0;
TASKIR_API int ti_block_type_from_wire(int32_t v, ti_block_type *out) {
  switch (v) {
  TI_BLOCK_TYPES(TI__BLOCK_FROM_WIRE)
  TASKIR_EXTRA_BLOCK_TYPES(TI__BLOCK_FROM_WIRE)
  default: return -1;
  }
}
#undef TI__BLOCK_FROM_WIRE
TASKIR_API int32_t ti_precision_wire(ti_dtype p) {
  return p == TI_DTYPE_I9 ? 100 : (int32_t)p;
}
TASKIR_API int ti_precision_from_wire(int32_t v, ti_dtype *out) {
  if (v >= 0 && v <= (int32_t)TI_DTYPE_U4) *out = (ti_dtype)v;
  else if (v == 100) *out = TI_DTYPE_I9;
  else return -1;
  return 0;
}

/* >>impl.task.schema: tianjic_ir as tables ---------------------------------- */

/* The Task IR schema, written once. Each message is a table of its fields:
   wire number, schema name, IR attribute key (the task dialect's
   dictionary key; NULL: the program says it another way - the op kind,
   SSA links, the ops themselves), kind, enum or values kind, presence bit,
   and where the value lives in the C struct. The task dialect's
   import/export (>>impl.task.dialect) and the protobuf codec, binary and
   text, both ways (taskir_proto.h) walk these tables. Field lists are in
   field-number order, which is the order protoc writes and prints. */
typedef enum ti__pb_kind {
  TI__K_INT32, TI__K_INT64, TI__K_BOOL, TI__K_FLOAT, TI__K_ENUM, TI__K_STRING,
  TI__K_MSG, TI__K_REP_MSG, TI__K_REP_INT32, TI__K_VALUES
} ti__pb_kind;

enum { TI__E_BLOCK, TI__E_PREC, TI__E_BIAS, TI__E_MODE, TI__E_ATTR, TI__E_REARR };
enum { TI__V_FLOAT, TI__V_INT32, TI__V_UINT32 };

typedef struct ti__pb_msg ti__pb_msg;
typedef struct ti__pb_field {
  uint32_t number;
  const char *name;    /* the schema's field name */
  const char *ir;      /* the task dialect's attribute key, NULL if none */
  int kind;
  int aux;             /* enum id (ENUM) or value kind (VALUES) */
  uint32_t has;        /* presence bit, 0 for repeated fields */
  size_t off;          /* the value, array pointer or string pointer */
  size_t off_n;        /* element count (int32) or string length (int32) */
  const ti__pb_msg *sub;
} ti__pb_field;

struct ti__pb_msg {
  const char *name;
  const ti__pb_field *fields;
  int n_fields;
  size_t size;
  int hint_field;      /* index of Tensor.precision (storage hint), or -1 */
};

/* Enum fields are stored as their C enum types; those are int-sized. */
TI__STATIC_ASSERT(sizeof(ti_dtype) == sizeof(int32_t) && sizeof(ti_block_type) == sizeof(int32_t) &&
                  sizeof(ti_attr_type) == sizeof(int32_t) && sizeof(ti_rearrange_kind) == sizeof(int32_t) &&
                  sizeof(ti_bias_mode) == sizeof(int32_t) && sizeof(ti_test_mode) == sizeof(int32_t), enums_int32);

#define TI__F(num, name, ir, kind, aux, has, type, member) \
  { num, name, ir, kind, aux, has, offsetof(type, member), 0, NULL }
#define TI__FS(num, name, ir, kind, aux, has, type, member, count, sub) \
  { num, name, ir, kind, aux, has, offsetof(type, member), offsetof(type, count), sub }

/* Shape: the scalar fields are the rows of TI_TASK_SHAPE_FIELDS, row i at
   index i (presence bit 1 << i, TI_DIM_*). */
#define TI__SHAPE_PBF(num, m, ir, has) TI__F(num, #m, ir, TI__K_INT32, 0, has, ti_task_shape, m),
static const ti__pb_field ti__pbf_shape[] = {
  TI_TASK_SHAPE_FIELDS(TI__SHAPE_PBF)
  TI__FS(15, "extra_dimensions", "extra", TI__K_REP_INT32, 0, 0, ti_task_shape, extra, n_extra, NULL)
};
#undef TI__SHAPE_PBF
#define TI__SHAPE_IDX(num, m, ir, has) TI__SHAPE_I_##m,
enum { TI_TASK_SHAPE_FIELDS(TI__SHAPE_IDX) TI__SHAPE_N };
#undef TI__SHAPE_IDX
#define TI__SHAPE_PIN(num, m, ir, has) TI__STATIC_ASSERT((has) == 1u << TI__SHAPE_I_##m, shape_bit_##m);
TI_TASK_SHAPE_FIELDS(TI__SHAPE_PIN)
#undef TI__SHAPE_PIN
TI__STATIC_ASSERT(sizeof ti__pbf_shape / sizeof *ti__pbf_shape == TI__SHAPE_N + 1, shape_fields);
static const ti__pb_msg ti__pbm_shape = { "Shape", ti__pbf_shape, TI__SHAPE_N + 1, sizeof(ti_task_shape), -1 };

static const ti__pb_field ti__pbf_attr[] = {
  TI__F(1, "type", "type", TI__K_ENUM, TI__E_ATTR, TI_TATTR_HAS_TYPE, ti_task_attr, type),
  TI__F(2, "precision", "precision", TI__K_ENUM, TI__E_PREC, TI_TATTR_HAS_PRECISION, ti_task_attr, precision),
  TI__F(3, "int_value", "int", TI__K_INT32, 0, TI_TATTR_HAS_INT, ti_task_attr, int_value),
  TI__F(4, "float_value", "float", TI__K_FLOAT, 0, TI_TATTR_HAS_FLOAT, ti_task_attr, float_value)
};
static const ti__pb_msg ti__pbm_attr = { "Attribute", ti__pbf_attr, 4, sizeof(ti_task_attr), -1 };

static const ti__pb_field ti__pbf_tensor[] = {
  TI__FS(1, "dims", "dims", TI__K_REP_INT32, 0, 0, ti_task_tensor, dims, n_dims, NULL),
  TI__F(2, "precision", "precision", TI__K_ENUM, TI__E_PREC, TI_TENSOR_HAS_PRECISION, ti_task_tensor, precision),
  TI__F(3, "float_data", "float_data", TI__K_VALUES, TI__V_FLOAT, 0, ti_task_tensor, float_data),
  TI__F(4, "int32_data", "int32_data", TI__K_VALUES, TI__V_INT32, 0, ti_task_tensor, int32_data),
  TI__F(5, "uint32_data", "uint32_data", TI__K_VALUES, TI__V_UINT32, 0, ti_task_tensor, uint32_data),
  TI__FS(6, "name", "name", TI__K_STRING, 0, TI_TENSOR_HAS_NAME, ti_task_tensor, name, name_len, NULL)
};
static const ti__pb_msg ti__pbm_tensor = { "Tensor", ti__pbf_tensor, 6, sizeof(ti_task_tensor), 1 };

/* edge_id: the SSA link of the interface's operand or result */
static const ti__pb_field ti__pbf_iface[] = {
  TI__FS(1, "position", "position", TI__K_MSG, 0, TI_IFACE_HAS_POSITION, ti_task_interface, position, position, &ti__pbm_shape),
  TI__FS(2, "size", "size", TI__K_MSG, 0, TI_IFACE_HAS_SIZE, ti_task_interface, size, size, &ti__pbm_shape),
  TI__F(3, "edge_id", NULL, TI__K_INT32, 0, TI_IFACE_HAS_EDGE_ID, ti_task_interface, edge_id)
};
static const ti__pb_msg ti__pbm_iface = { "EdgeInterface", ti__pbf_iface, 3, sizeof(ti_task_interface), -1 };

static const ti__pb_field ti__pbf_cluster[] = {
  TI__FS(1, "shape", "shape", TI__K_MSG, 0, TI_CLUSTER_HAS_SHAPE, ti_task_cluster, shape, shape, &ti__pbm_shape),
  TI__FS(2, "interfaces", "interfaces", TI__K_REP_MSG, 0, 0, ti_task_cluster, interfaces, n_interfaces, &ti__pbm_iface)
};
static const ti__pb_msg ti__pbm_cluster = { "EdgeCluster", ti__pbf_cluster, 2, sizeof(ti_task_cluster), -1 };

/* type: the op kind ("task.cc") */
static const ti__pb_field ti__pbf_block[] = {
  TI__F(1, "id", "id", TI__K_INT32, 0, TI_BLOCK_HAS_ID, ti_task_block, id),
  TI__F(2, "type", NULL, TI__K_ENUM, TI__E_BLOCK, TI_BLOCK_HAS_TYPE, ti_task_block, type),
  TI__F(3, "precision", "precision", TI__K_ENUM, TI__E_PREC, TI_BLOCK_HAS_PRECISION, ti_task_block, precision),
  TI__FS(4, "shape", "shape", TI__K_MSG, 0, TI_BLOCK_HAS_SHAPE, ti_task_block, shape, shape, &ti__pbm_shape),
  TI__FS(5, "input_clusters", "in", TI__K_REP_MSG, 0, 0, ti_task_block, inputs, n_inputs, &ti__pbm_cluster),
  TI__FS(6, "output_clusters", "out", TI__K_REP_MSG, 0, 0, ti_task_block, outputs, n_outputs, &ti__pbm_cluster),
  TI__FS(7, "data", "data", TI__K_MSG, 0, TI_BLOCK_HAS_DATA, ti_task_block, data, data, &ti__pbm_tensor),
  TI__FS(8, "attributes", "attributes", TI__K_REP_MSG, 0, 0, ti_task_block, attrs, n_attrs, &ti__pbm_attr),
  TI__F(9, "is_virtual", "is_virtual", TI__K_BOOL, 0, TI_BLOCK_HAS_IS_VIRTUAL, ti_task_block, is_virtual),
  TI__F(10, "master_task_id", "master_task_id", TI__K_INT32, 0, TI_BLOCK_HAS_MASTER_TASK_ID, ti_task_block, master_task_id),
  TI__F(11, "pipeline_num", "pipeline_num", TI__K_INT32, 0, TI_BLOCK_HAS_PIPELINE_NUM, ti_task_block, pipeline_num),
  TI__F(12, "bias_type", "bias_type", TI__K_ENUM, TI__E_BIAS, TI_BLOCK_HAS_BIAS_TYPE, ti_task_block, bias_type),
  TI__F(13, "socket_id", "socket_id", TI__K_INT32, 0, TI_BLOCK_HAS_SOCKET_ID, ti_task_block, socket_id)
};
static const ti__pb_msg ti__pbm_block = { "TaskBlock", ti__pbf_block, 13, sizeof(ti_task_block), -1 };

static const ti__pb_field ti__pbf_rearr[] = {
  TI__F(1, "type", "type", TI__K_ENUM, TI__E_REARR, TI_REARR_HAS_TYPE, ti_task_rearrange, type),
  TI__FS(2, "matrix", "matrix", TI__K_REP_MSG, 0, 0, ti_task_rearrange, matrix, n_matrix, &ti__pbm_tensor)
};
static const ti__pb_msg ti__pbm_rearr = { "RearrangeInfo", ti__pbf_rearr, 2, sizeof(ti_task_rearrange), -1 };

/* src_block_id, dst_block_id: the SSA links of the edge op */
static const ti__pb_field ti__pbf_edge[] = {
  TI__F(1, "id", "id", TI__K_INT32, 0, TI_EDGE_HAS_ID, ti_task_edge, id),
  TI__F(2, "src_block_id", NULL, TI__K_INT32, 0, TI_EDGE_HAS_SRC, ti_task_edge, src_block_id),
  TI__F(3, "dst_block_id", NULL, TI__K_INT32, 0, TI_EDGE_HAS_DST, ti_task_edge, dst_block_id),
  TI__FS(4, "rearrange_info", "rearrange", TI__K_REP_MSG, 0, 0, ti_task_edge, rearrange, n_rearrange, &ti__pbm_rearr)
};
static const ti__pb_msg ti__pbm_edge = { "Edge", ti__pbf_edge, 4, sizeof(ti_task_edge), -1 };

static const ti__pb_field ti__pbf_group[] = {
  TI__F(1, "group_id", "group_id", TI__K_INT32, 0, TI_GROUP_HAS_ID, ti_task_group, group_id),
  TI__FS(2, "block_ids", "block_ids", TI__K_REP_INT32, 0, 0, ti_task_group, block_ids, n_block_ids, NULL)
};
static const ti__pb_msg ti__pbm_group = { "Group", ti__pbf_group, 2, sizeof(ti_task_group), -1 };

static const ti__pb_field ti__pbf_tcfg[] = {
  TI__F(1, "random_seed", "random_seed", TI__K_INT64, 0, TI_TCFG_HAS_SEED, ti_task_test_config, random_seed),
  TI__FS(2, "test_case_name", "test_case_name", TI__K_STRING, 0, TI_TCFG_HAS_NAME, ti_task_test_config, test_case_name,
         name_len, NULL),
  TI__F(3, "test_mode", "test_mode", TI__K_ENUM, TI__E_MODE, TI_TCFG_HAS_MODE, ti_task_test_config, test_mode)
};
static const ti__pb_msg ti__pbm_tcfg = { "TestConfig", ti__pbf_tcfg, 3, sizeof(ti_task_test_config), -1 };

/* blocks, edges: the program's ops; groups and the test config are the
   program's attributes */
static const ti__pb_field ti__pbf_graph[] = {
  TI__FS(1, "blocks", NULL, TI__K_REP_MSG, 0, 0, ti_task_graph, blocks, n_blocks, &ti__pbm_block),
  TI__FS(2, "edges", NULL, TI__K_REP_MSG, 0, 0, ti_task_graph, edges, n_edges, &ti__pbm_edge),
  TI__FS(3, "groups", "groups", TI__K_REP_MSG, 0, 0, ti_task_graph, groups, n_groups, &ti__pbm_group),
  TI__FS(4, "test_config", "test_config", TI__K_MSG, 0, TI_GRAPH_HAS_TEST_CONFIG, ti_task_graph, test_config, test_config,
         &ti__pbm_tcfg)
};
static const ti__pb_msg ti__pbm_graph = { "TaskGraph", ti__pbf_graph, 4, sizeof(ti_task_graph), -1 };
#define TI__SCHEMA_MAXF 16   /* fields per message, at most */
TI__STATIC_ASSERT(sizeof ti__pbf_block / sizeof *ti__pbf_block <= TI__SCHEMA_MAXF, schema_maxf);
/* the walkers read the presence mask at offset 0 */
TI__STATIC_ASSERT(offsetof(ti_task_shape, has) + offsetof(ti_task_attr, has) + offsetof(ti_task_tensor, has) +
                  offsetof(ti_task_interface, has) + offsetof(ti_task_cluster, has) + offsetof(ti_task_block, has) +
                  offsetof(ti_task_rearrange, has) + offsetof(ti_task_edge, has) + offsetof(ti_task_group, has) +
                  offsetof(ti_task_test_config, has) + offsetof(ti_task_graph, has) == 0, has_first);

#undef TI__F
#undef TI__FS

static const char *ti__pb_enum_type(int e) {
  static const char *const names[] = { "TaskBlockType", "Precision", "BiasType", "TestMode", "AttributeType", "RearrangeInfoType" };
  return names[e];
}

/* Largest internal value of an enum (values 0..max are tried by name). */
static int ti__pb_enum_max(int e) {
  switch (e) {
  case TI__E_BLOCK: return TI_BLOCK_COUNT - 1;
  case TI__E_PREC: return TI_DTYPE_I9;
  case TI__E_BIAS: return TI_BIAS_CONSTANT;
  case TI__E_MODE: return TI_TEST_MODE_COUNT - 1;
  case TI__E_ATTR: return TI_TASK_ATTR_COUNT - 1;
  default: return TI_REARRANGE_COUNT - 1;
  }
}

/* Name of an internal value (the task dialect's spelling), NULL if it is
   not one. */
static const char *ti__schema_enum_name(int e, int v) {
  if (v < 0 || v > ti__pb_enum_max(e)) return NULL;
  switch (e) {
  case TI__E_BLOCK: return ti_block_type_name((ti_block_type)v);
  case TI__E_PREC: return ti_precision_name((ti_dtype)v);
  case TI__E_BIAS: return ti_bias_type_name((ti_bias_mode)v);
  case TI__E_MODE: return ti_test_mode_name((ti_test_mode)v);
  case TI__E_ATTR: return ti_attr_type_name((ti_attr_type)v);
  default: return ti_rearrange_kind_name((ti_rearrange_kind)v);
  }
}

/* Internal value of a name, -1 if none. */
static int ti__schema_enum_from_name(int e, const char *s, size_t len) {
  int v;
  for (v = 0; v <= ti__pb_enum_max(e); v++) {
    const char *nm = ti__schema_enum_name(e, v);
    if (nm && strlen(nm) == len && memcmp(nm, s, len) == 0) return v;
  }
  return -1;
}

static TI__UNUSED int ti__pb_enum_from_wire(int e, int32_t w, int *out) {
  switch (e) {
  case TI__E_BLOCK: { ti_block_type t; if (ti_block_type_from_wire(w, &t)) return -1; *out = (int)t; return 0; }
  case TI__E_PREC: { ti_dtype t; if (ti_precision_from_wire(w, &t)) return -1; *out = (int)t; return 0; }
  case TI__E_BIAS: if (w < 1 || w > 2) return -1; *out = w; return 0;
  default: if (w < 0 || w > ti__pb_enum_max(e)) return -1; *out = w; return 0;
  }
}

static TI__UNUSED int ti__pb_enum_to_wire(int e, int v, int32_t *out) {
  if (!ti__schema_enum_name(e, v)) return -1;
  if (e == TI__E_BLOCK) *out = ti_block_type_wire((ti_block_type)v);
  else if (e == TI__E_PREC) *out = ti_precision_wire((ti_dtype)v);
  else *out = v;
  return 0;
}

static inline int ti__pb_get_enum(const void *obj, size_t off) { int32_t v; memcpy(&v, (const char *)obj + off, 4); return (int)v; }
static inline void ti__pb_set_enum(void *obj, size_t off, int v) { int32_t x = (int32_t)v; memcpy((char *)obj + off, &x, 4); }

/* New elements: the one non-zero default of the schema (bias_type VECTOR). */
static void ti__pb_msg_init(const ti__pb_msg *m, void *obj) {
  if (m == &ti__pbm_block) ((ti_task_block *)obj)->bias_type = TI_BIAS_VECTOR;
}

static TI__UNUSED int ti__pb_find(const ti__pb_msg *m, uint32_t num) {
  int i;
  for (i = 0; i < m->n_fields; i++)
    if (m->fields[i].number == num) return i;
  return -1;
}

TASKIR_API void ti_task_graph_init(ti_task_graph *g, void *alloc_user) {
  memset(g, 0, sizeof *g);
  ti_arena_init(&g->arena, alloc_user);
}

TASKIR_API void ti_task_graph_free(ti_task_graph *g) {
  if (g->heap_blocks) TASKIR_FREE(g->arena.alloc_user, g->heap_blocks);
  if (g->heap_edges) TASKIR_FREE(g->arena.alloc_user, g->heap_edges);
  ti_arena_free(&g->arena);
  memset(g, 0, sizeof *g);
}

TASKIR_API void ti_task_graph_reset(ti_task_graph *g) {
  ti_task_graph keep = *g;
  ti_arena_reset(&keep.arena);
  memset(g, 0, sizeof *g);
  g->arena = keep.arena;
  g->heap_blocks = keep.heap_blocks;
  g->heap_edges = keep.heap_edges;
  g->cap_blocks = keep.cap_blocks;
  g->cap_edges = keep.cap_edges;
  g->blocks = g->heap_blocks;   /* the builder appends to its own arrays */
  g->edges = g->heap_edges;
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
  case TI_DTYPE_F32: {   /* saturating, NaN -> 0: never an out-of-range conversion */
    float f = ((const float *)v->data)[i];
    if (!(f == f)) return 0;
    if (f >= 9223372036854775807.0f) return INT64_MAX;
    if (f <= -9223372036854775808.0f) return INT64_MIN;
    return (int64_t)f;
  }
  default: return 0;
  }
}

TASKIR_API double ti_task_values_get_f64(const ti_task_values *v, int64_t i) {
  if (v->storage == TI_DTYPE_F32) return ((const float *)v->data)[i];
  return (double)ti_task_values_get_i64(v, i);
}

/* >>impl.task.dialect ------------------------------------------------------ */

/* Block types are op kinds "task.<lowercase type>"; dialect_data points at
   the block type. Edges are "task.edge". */
#define TI__TASK_TYPE(N, nm, op, w, cl, na, in, mid, mi, bias, win, req, opt, m1, od, lay, macs, k) TI_BLOCK_##N,
static const ti_block_type ti__task_types[] = {
  TI_BLOCK_TYPES(TI__TASK_TYPE)
  TASKIR_EXTRA_BLOCK_TYPES(TI__TASK_TYPE)
};
#undef TI__TASK_TYPE
TI__STATIC_ASSERT(sizeof ti__task_types / sizeof *ti__task_types == TI_BLOCK_COUNT, task_types);
static const char *const ti__attrs_id[] = { "id", NULL };
#define TI__TASK_OP(N, nm, op, w, cl, na, in, mid, mi, bias, win, req, opt, m1, od, lay, macs, k) \
  { op, "task", ti__attrs_id, 0, 0, -1, -1, NULL, NULL, NULL, NULL, NULL, &ti__task_types[TI_BLOCK_##N] },
static const ti_op_info ti__task_ops[] = {
  TI_BLOCK_TYPES(TI__TASK_OP)
  TASKIR_EXTRA_BLOCK_TYPES(TI__TASK_OP)
  { "task.edge", "task", ti__attrs_id, 0, 1, 1, 1, NULL, NULL, NULL, NULL, NULL, NULL }
};
#undef TI__TASK_OP
TI__STATIC_ASSERT(sizeof ti__task_ops / sizeof *ti__task_ops == TI_BLOCK_COUNT + 1, task_ops);

TASKIR_API ti_status ti_task_register(ti_context *ctx, ti_error *err) {
  ti_error_clear(err);
  return ti_register_ops(ctx, ti__task_ops, (int32_t)(sizeof ti__task_ops / sizeof *ti__task_ops), err);
}

static int ti__is_block_op(const ti_op *op) {
  return op->info && op->info >= ti__task_ops && op->info < ti__task_ops + TI_BLOCK_COUNT;
}
static int ti__is_edge_op(const ti_op *op) { return op->info == &ti__task_ops[TI_BLOCK_COUNT]; }

/* --- message <-> attributes ------------------------------------------------ */

/* Field i of a shape (row i of the Shape table, bit 1 << i, TI_DIM_*). */
static int32_t *ti__shape_field(ti_task_shape *s, int i) { return (int32_t *)(void *)((char *)s + ti__pbf_shape[i].off); }
static int32_t ti__shape_get(const ti_task_shape *s, int i) {
  return *ti__shape_field((ti_task_shape *)s, i);
}
static int ti__dim_index(uint32_t bit) {
  int i = 0;
  while (i < 8 && !(bit & 1u)) { bit >>= 1; i++; }
  return i;
}

/* A message as the task dialect keeps it: a dictionary with one entry per
   present field that has an IR key (the schema tables, ti__pb_field.ir),
   sub-messages as dictionaries, repeated fields as arrays, enums by name.
   A tensor's values stay inline, or (var_name given: a block's data) go to
   the weights table and the dictionary names them ("values", "container"). */
static const ti_attr *ti__msg_to_attr(ti_context *ctx, const ti__pb_msg *m, const void *obj, const char *var_name);

static const ti_attr *ti__str(ti_context *ctx, const char *s) { return s ? ti_attr_string(ctx, s, -1) : NULL; }

/* The array of a repeated field: messages, int32s or tensor values. */
static const ti_attr *ti__field_to_array(ti_context *ctx, const ti__pb_field *f, const void *obj) {
  const ti_task_values *v = f->kind == TI__K_VALUES ? (const ti_task_values *)(const void *)((const char *)obj + f->off) : NULL;
  const void *arr = v ? v->data : *(void *const *)(const void *)((const char *)obj + f->off);
  int64_t i, n = v ? v->count : *(const int32_t *)(const void *)((const char *)obj + f->off_n);
  const ti_attr *small[16], **items = small, *r = NULL;
  if (n > 16 && ((uint64_t)n > (uint64_t)(SIZE_MAX / sizeof *items) ||
                 !(items = (const ti_attr **)TASKIR_MALLOC(ctx->alloc_user, (size_t)n * sizeof *items))))
    return NULL;
  for (i = 0; i < n; i++) {
    if (f->kind == TI__K_REP_MSG) items[i] = ti__msg_to_attr(ctx, f->sub, (const char *)arr + (size_t)i * f->sub->size, NULL);
    else if (f->kind == TI__K_REP_INT32) items[i] = ti_attr_int(ctx, ((const int32_t *)arr)[i]);
    else if (v->storage == TI_DTYPE_F32) items[i] = ti_attr_float(ctx, ((const float *)arr)[i]);
    else items[i] = ti_attr_int(ctx, ti_task_values_get_i64(v, i));
    if (!items[i]) goto done;
  }
  r = ti_attr_array(ctx, items, n);
done:
  if (items != small) TASKIR_FREE(ctx->alloc_user, (void *)items);
  return r;
}

static const ti_attr *ti__msg_to_attr(ti_context *ctx, const ti__pb_msg *m, const void *obj, const char *var_name) {
  ti_named_attr kv[TI__SCHEMA_MAXF + 2];
  const ti_task_values *weights = var_name && m == &ti__pbm_tensor ? ti_task_tensor_values((const ti_task_tensor *)obj) : NULL;
  int n = 0, i;
  for (i = 0; i < m->n_fields; i++) {
    const ti__pb_field *f = &m->fields[i];
    const void *at = (const char *)obj + f->off;
    const ti_attr *val;
    if (!f->ir || (f->has && !(*(const uint32_t *)obj & f->has))) continue;
    switch (f->kind) {
    case TI__K_INT32: case TI__K_BOOL:
      val = f->kind == TI__K_BOOL ? ti_attr_bool(ctx, *(const int32_t *)at) : ti_attr_int(ctx, *(const int32_t *)at);
      break;
    case TI__K_INT64: val = ti_attr_int(ctx, *(const int64_t *)at); break;
    case TI__K_FLOAT: val = ti_attr_float(ctx, *(const float *)at); break;
    case TI__K_ENUM: val = ti__str(ctx, ti__schema_enum_name(f->aux, ti__pb_get_enum(obj, f->off))); break;
    case TI__K_STRING:
      val = ti_attr_string(ctx, *(char *const *)at, *(const int32_t *)(const void *)((const char *)obj + f->off_n));
      break;
    case TI__K_MSG: val = ti__msg_to_attr(ctx, f->sub, at, f->sub == &ti__pbm_tensor ? var_name : NULL); break;
    case TI__K_VALUES:
      if (weights) {
        if (weights != at) continue;
        kv[n++] = ti_named(ctx, "values", ti_attr_string(ctx, var_name, -1));
        kv[n++] = ti_named(ctx, "container", ti_attr_string(ctx, f->ir, -1));
        continue;
      }
      if (!((const ti_task_values *)at)->count) continue;
      val = ti__field_to_array(ctx, f, obj);
      break;
    default:   /* REP_MSG, REP_INT32 */
      if (!*(const int32_t *)(const void *)((const char *)obj + f->off_n)) continue;
      val = ti__field_to_array(ctx, f, obj);
      break;
    }
    kv[n++] = ti_named(ctx, f->ir, val);
  }
  for (i = 0; i < n; i++) if (!kv[i].value || !kv[i].name) return NULL;
  return ti_attr_dict(ctx, kv, n);
}

/* --- attributes -> message --------------------------------------------------- */

typedef struct ti__unpack {
  ti_arena *arena;
  const ti_program *p;
  ti_error *err;
  const char *where;
} ti__unpack;

#ifdef TASKIR_NO_ERRMSG
#define ti__bad(u, what) (TI__NOMSG(what), (ti__bad)((u), NULL))
#define ti__bad_field(u, m, f, what) (TI__NOMSG(what), (ti__bad_field)((u), (m), (f), NULL))
#endif
static ti_status (ti__bad)(ti__unpack *u, const char *what) {
  return ti_error_set(u->err, TI_STATUS_INVALID, "%s: %s", u->where, what);
}
static ti_status (ti__bad_field)(ti__unpack *u, const ti__pb_msg *m, const ti__pb_field *f, const char *what) {
  return ti_error_set(u->err, TI_STATUS_INVALID, "%s: %s.%s %s", u->where, m->name, f->ir, what);
}
static ti_status ti__unpack_oom(ti__unpack *u) { return ti_error_set(u->err, TI_STATUS_NO_MEMORY, "%s: out of memory", u->where); }

static int32_t ti__i32(const ti_attr *a, int *ok) {
  if (!a || a->kind != TI_ATTR_INT || a->u.i < INT32_MIN || a->u.i > INT32_MAX) { *ok = 0; return 0; }
  return (int32_t)a->u.i;
}

/* Values stored at the narrowest exact width (see ti_task_values). */
static ti_status ti__fill_values(ti__unpack *u, ti_task_values *v, const ti_attr *arr, int vkind) {
  int64_t i, n = arr->u.array.n, lo = 0, hi = 0;
  int ok = 1;
  v->count = n;
  if (vkind == TI__V_FLOAT) {
    float *f = (float *)ti_arena_array(u->arena, (size_t)n, 4, 4);
    if (!f) return ti__unpack_oom(u);
    for (i = 0; i < n; i++) {
      const ti_attr *a = arr->u.array.items[i];
      if (a->kind == TI_ATTR_FLOAT) f[i] = (float)a->u.f;
      else if (a->kind == TI_ATTR_INT) f[i] = (float)a->u.i;
      else ok = 0;
    }
    v->storage = TI_DTYPE_F32; v->data = f;
    return ok ? TI_STATUS_SUCCESS : ti__bad(u, "float_data holds a non-number");
  }
  for (i = 0; i < n; i++) {
    const ti_attr *a = arr->u.array.items[i];
    if (a->kind != TI_ATTR_INT) return ti__bad(u, "int32_data/uint32_data hold integers only");
    if (!i || a->u.i < lo) lo = a->u.i;
    if (!i || a->u.i > hi) hi = a->u.i;
  }
  if (vkind == TI__V_INT32) {
    if (lo < INT32_MIN || hi > INT32_MAX) return ti__bad(u, "int32_data value out of int32 range");
    v->storage = lo >= -128 && hi <= 127 ? TI_DTYPE_I8 : lo >= -32768 && hi <= 32767 ? TI_DTYPE_I16 : TI_DTYPE_I32;
  } else {
    if (lo < 0 || hi > (int64_t)UINT32_MAX) return ti__bad(u, "uint32_data value out of uint32 range");
    v->storage = hi <= 255 ? TI_DTYPE_U8 : hi <= 65535 ? TI_DTYPE_U16 : TI_DTYPE_U32;
  }
  v->data = ti_arena_array(u->arena, (size_t)n, ti_dtype_size(v->storage), 4);
  if (!v->data) return ti__unpack_oom(u);
  for (i = 0; i < n; i++) {
    int64_t x = arr->u.array.items[i]->u.i;
    switch (v->storage) {
    case TI_DTYPE_I8: ((int8_t *)v->data)[i] = (int8_t)x; break;
    case TI_DTYPE_I16: ((int16_t *)v->data)[i] = (int16_t)x; break;
    case TI_DTYPE_I32: ((int32_t *)v->data)[i] = (int32_t)x; break;
    case TI_DTYPE_U8: ((uint8_t *)v->data)[i] = (uint8_t)x; break;
    case TI_DTYPE_U16: ((uint16_t *)v->data)[i] = (uint16_t)x; break;
    default: ((uint32_t *)v->data)[i] = (uint32_t)x; break;
    }
  }
  return TI_STATUS_SUCCESS;
}

/* A tensor whose values are in the weights table: "values" names the
   variable, "container" the values field (int32_data by default). The
   message gets a copy: it may outlive the program. */
static ti_status ti__attr_to_weights(ti__unpack *u, const ti_attr *d, const ti_attr *name, ti_task_tensor *t) {
  const ti_variable *var = name->kind == TI_ATTR_STRING ? ti_program_find_var(u->p, name->u.s.data) : NULL;
  const char *cont = ti_dict_string(d, "container", "int32_data");
  const ti__pb_field *f = NULL;
  ti_task_values *v;
  ti_dtype dt;
  int i;
  for (i = 0; i < ti__pbm_tensor.n_fields; i++)
    if (ti__pbf_tensor[i].kind == TI__K_VALUES && strcmp(ti__pbf_tensor[i].ir, cont) == 0) f = &ti__pbf_tensor[i];
  if (!var) return ti__bad(u, "tensor values name a variable missing from the weights table");
  if (!f) return ti__bad(u, "tensor container must be int32_data, uint32_data or float_data");
  /* the weights' dtype must be one the container holds exactly: the
     message's readers (checker, executor) trust the storage */
  dt = var->type->dtype;
  if (!(f->aux == TI__V_FLOAT ? dt == TI_DTYPE_F32
        : f->aux == TI__V_UINT32 ? (dt == TI_DTYPE_U8 || dt == TI_DTYPE_U16 || dt == TI_DTYPE_U32)
                                 : (dt == TI_DTYPE_I8 || dt == TI_DTYPE_I16 || dt == TI_DTYPE_I32)))
    return ti_error_set(u->err, TI_STATUS_INVALID,
                        "%s: weights \"%s\" are %s, which %s cannot hold (int32_data holds i8/i16/i32, "
                        "uint32_data u8/u16/u32, float_data f32; set \"container\" or convert the data)",
                        u->where, var->name, ti_dtype_name(dt), cont);
  if (ti_type_numel(var->type) < 0 || ti_type_numel(var->type) * (int64_t)ti_dtype_size(dt) != var->bytes)
    return ti__bad(u, "tensor values: the weights have a dynamic or inconsistent size");
  v = (ti_task_values *)(void *)((char *)t + f->off);
  v->count = ti_type_numel(var->type);
  v->storage = var->type->dtype;
  v->data = ti_arena_alloc(u->arena, (size_t)var->bytes, 16);
  if (!v->data) return ti__unpack_oom(u);
  memcpy(v->data, var->data, (size_t)var->bytes);
  return TI_STATUS_SUCCESS;
}

/* Fills obj (zeroed, ti__pb_msg_init done) from dictionary d by m's table;
   keys the table does not name are ignored. */
static ti_status ti__attr_to_msg(ti__unpack *u, const ti__pb_msg *m, const ti_attr *d, void *obj) {
  const ti_attr *w;
  int i;
  if (!d || d->kind != TI_ATTR_DICT) return ti_error_set(u->err, TI_STATUS_INVALID, "%s: a %s must be a dictionary", u->where, m->name);
  if (m == &ti__pbm_tensor && (w = ti_dict_get(d, "values")) != NULL) {
    ti_status s = ti__attr_to_weights(u, d, w, (ti_task_tensor *)obj);
    if (s != TI_STATUS_SUCCESS) return s;
  }
  for (i = 0; i < m->n_fields; i++) {
    const ti__pb_field *f = &m->fields[i];
    const ti_attr *a = f->ir ? ti_dict_get(d, f->ir) : NULL;
    void *at = (char *)obj + f->off;
    int ok = 1;
    if (!a) continue;
    switch (f->kind) {
    case TI__K_INT32: *(int32_t *)at = ti__i32(a, &ok); if (!ok) return ti__bad_field(u, m, f, "must be an int32"); break;
    case TI__K_INT64:
      if (a->kind != TI_ATTR_INT) return ti__bad_field(u, m, f, "must be an integer");
      *(int64_t *)at = a->u.i;
      break;
    case TI__K_BOOL:
      if (a->kind != TI_ATTR_BOOL) return ti__bad_field(u, m, f, "must be true or false");
      *(int32_t *)at = a->u.i != 0;
      break;
    case TI__K_FLOAT:
      if (a->kind != TI_ATTR_FLOAT) return ti__bad_field(u, m, f, "must be a float");
      *(float *)at = (float)a->u.f;
      break;
    case TI__K_ENUM: {
      int v = a->kind == TI_ATTR_STRING ? ti__schema_enum_from_name(f->aux, a->u.s.data, (size_t)a->u.s.len) : -1;
      if (v < 0)
        return ti_error_set(u->err, TI_STATUS_INVALID, "%s: %s.%s must be one of the %s names", u->where, m->name, f->ir,
                            ti__pb_enum_type(f->aux));
      ti__pb_set_enum(obj, f->off, v);
      break;
    }
    case TI__K_STRING: {
      char *s;
      if (a->kind != TI_ATTR_STRING || a->u.s.len > INT32_MAX) return ti__bad_field(u, m, f, "must be a string");
      if (!(s = ti_arena_strndup(u->arena, a->u.s.data, (size_t)a->u.s.len))) return ti__unpack_oom(u);
      *(char **)at = s;
      *(int32_t *)(void *)((char *)obj + f->off_n) = (int32_t)a->u.s.len;
      break;
    }
    case TI__K_MSG: {
      ti_status s;
      memset(at, 0, f->sub->size);
      ti__pb_msg_init(f->sub, at);
      if ((s = ti__attr_to_msg(u, f->sub, a, at)) != TI_STATUS_SUCCESS) return s;
      break;
    }
    case TI__K_VALUES: {
      ti_status s;
      if (a->kind != TI_ATTR_ARRAY) return ti__bad_field(u, m, f, "must be an array");
      if ((s = ti__fill_values(u, (ti_task_values *)at, a, f->aux)) != TI_STATUS_SUCCESS) return s;
      break;
    }
    default: {   /* REP_MSG, REP_INT32 */
      int64_t k, n = a->kind == TI_ATTR_ARRAY ? a->u.array.n : -1;
      size_t es = f->kind == TI__K_REP_MSG ? f->sub->size : sizeof(int32_t);
      char *arr;
      if (n < 0 || n > INT32_MAX) return ti__bad_field(u, m, f, "must be an array");
      if (!(arr = (char *)ti_arena_array(u->arena, (size_t)n, es, 8))) return ti__unpack_oom(u);
      for (k = 0; k < n; k++) {
        if (f->kind == TI__K_REP_INT32) {
          ((int32_t *)(void *)arr)[k] = ti__i32(a->u.array.items[k], &ok);
          if (!ok) return ti__bad_field(u, m, f, "must hold int32s");
        } else {
          ti_status s;
          ti__pb_msg_init(f->sub, arr + (size_t)k * es);
          if ((s = ti__attr_to_msg(u, f->sub, a->u.array.items[k], arr + (size_t)k * es)) != TI_STATUS_SUCCESS) return s;
        }
      }
      *(void **)at = arr;
      *(int32_t *)(void *)((char *)obj + f->off_n) = (int32_t)n;
      break;
    }
    }
    if (f->has) *(uint32_t *)obj |= f->has;
  }
  return TI_STATUS_SUCCESS;
}

/* The edge op feeding operand k / consuming result k of a block op. */
static const ti_op *ti__edge_at_operand(const ti_op *op, int32_t k) {
  const ti_value *v = op->operands[k].value;
  return v && v->def && ti__is_edge_op(v->def) ? v->def : NULL;
}
static const ti_op *ti__edge_at_result(const ti_op *op, int32_t k) {
  const ti_use *use = op->results[k].first_use;
  return use && ti__is_edge_op(use->owner) ? use->owner : NULL;
}

/* A block op's message: its attributes by the TaskBlock table, the type
   from the op kind, the interfaces' edge ids from the SSA links. */
static ti_status ti__op_to_block(ti__unpack *u, const ti_op *op, ti_task_block *b) {
  int32_t c, i, k;
  ti_status s;
  memset(b, 0, sizeof *b);
  ti__pb_msg_init(&ti__pbm_block, b);
  if ((s = ti__attr_to_msg(u, &ti__pbm_block, op->attrs, b)) != TI_STATUS_SUCCESS) return s;
  b->type = *(const ti_block_type *)op->info->dialect_data;
  b->has |= TI_BLOCK_HAS_TYPE;
  for (c = 0, k = 0; c < b->n_inputs; c++)
    for (i = 0; i < b->inputs[c].n_interfaces; i++, k++) {
      const ti_op *e = k < op->n_operands ? ti__edge_at_operand(op, k) : NULL;
      if (k >= op->n_operands) return ti__bad(u, "more input interfaces than operands");
      if (e) { b->inputs[c].interfaces[i].edge_id = (int32_t)ti_dict_int(e->attrs, "id", 0); b->inputs[c].interfaces[i].has |= TI_IFACE_HAS_EDGE_ID; }
    }
  if (k != op->n_operands) return ti__bad(u, "operands do not match the input interfaces");
  for (c = 0, k = 0; c < b->n_outputs; c++)
    for (i = 0; i < b->outputs[c].n_interfaces; i++, k++) {
      const ti_op *e = k < op->n_results ? ti__edge_at_result(op, k) : NULL;
      if (k >= op->n_results) return ti__bad(u, "more output interfaces than results");
      if (e) { b->outputs[c].interfaces[i].edge_id = (int32_t)ti_dict_int(e->attrs, "id", 0); b->outputs[c].interfaces[i].has |= TI_IFACE_HAS_EDGE_ID; }
    }
  if (k != op->n_results) return ti__bad(u, "results do not match the output interfaces");
  return TI_STATUS_SUCCESS;
}

/* An edge op's message: its attributes by the Edge table, the ends from
   the SSA links. */
static ti_status ti__op_to_edge(ti__unpack *u, const ti_op *op, ti_task_edge *e) {
  const ti_value *src = op->operands[0].value;
  const ti_use *dst = op->results[0].first_use;
  ti_status s;
  memset(e, 0, sizeof *e);
  if ((s = ti__attr_to_msg(u, &ti__pbm_edge, op->attrs, e)) != TI_STATUS_SUCCESS) return s;
  if (src && src->def && ti__is_block_op(src->def)) {
    e->src_block_id = (int32_t)ti_dict_int(src->def->attrs, "id", 0); e->has |= TI_EDGE_HAS_SRC;
  }
  if (dst && ti__is_block_op(dst->owner)) {
    e->dst_block_id = (int32_t)ti_dict_int(dst->owner->attrs, "id", 0); e->has |= TI_EDGE_HAS_DST;
  }
  return TI_STATUS_SUCCESS;
}

/* --- import / export --------------------------------------------------------- */

static const ti_type *ti__task_value_type(ti_context *ctx, const ti_task_block *b) {
  int64_t dims[4];
  int32_t rank = ti_task_block_dims(b, dims), i;
  for (i = 0; i < rank; i++) if (dims[i] < 0) dims[i] = 0;
  return ti_type_get(ctx, TI_TYPE_TENSOR, (unsigned)b->precision <= TI_DTYPE_I9 ? b->precision : TI_DTYPE_I32, rank, dims, TI_LAYOUT_ANY);
}

/* Edge id -> index, sorted for binary search. */
typedef struct ti__idx { int32_t id, index; } ti__idx;
static int ti__idx_cmp(const void *a, const void *b) {
  int32_t x = ((const ti__idx *)a)->id, y = ((const ti__idx *)b)->id;
  return x < y ? -1 : x > y;
}
static int32_t ti__idx_find(const ti__idx *t, int32_t n, int32_t id) {
  int32_t lo = 0, hi = n - 1;
  while (lo <= hi) {
    int32_t mid = lo + (hi - lo) / 2;
    if (t[mid].id == id) return t[mid].index;
    if (t[mid].id < id) lo = mid + 1; else hi = mid - 1;
  }
  return -1;
}

TASKIR_API ti_status ti_task_import(ti_context *ctx, const ti_task_graph *g, ti_program **out, ti_error *err) {
  ti_error_clear(err);
  ti_program *p;
  ti_op **block_ops = NULL, **edge_ops = NULL;
  ti__idx *eidx = NULL;
  ti_value **operands = NULL;
  const ti_type **rtypes = NULL;
  int64_t cap_rt = 0;
  ti_status s = TI_STATUS_SUCCESS;
  void *u = ctx->alloc_user;
  int32_t i, c, f, k;
  *out = NULL;
  if ((s = ti_task_register(ctx, err)) != TI_STATUS_SUCCESS) return s;
  p = ti_program_create(ctx, "task", TI_PROGRAM_GRAPH);
  if (p && !(p->attrs = ti__msg_to_attr(ctx, &ti__pbm_graph, g, NULL))) { s = ti_error_set(err, TI_STATUS_NO_MEMORY, "out of memory importing the graph"); goto done; }
  block_ops = (ti_op **)TASKIR_MALLOC(u, ((size_t)g->n_blocks + 1) * sizeof *block_ops);
  edge_ops = (ti_op **)TASKIR_MALLOC(u, ((size_t)g->n_edges + 1) * sizeof *edge_ops);
  eidx = (ti__idx *)TASKIR_MALLOC(u, ((size_t)g->n_edges + 1) * sizeof *eidx);
  if (!p || !block_ops || !edge_ops || !eidx) { s = ti_error_set(err, TI_STATUS_NO_MEMORY, "out of memory importing the graph"); goto done; }
  for (i = 0; i < g->n_edges; i++) { eidx[i].id = g->edges[i].id; eidx[i].index = i; edge_ops[i] = NULL; }
  qsort(eidx, (size_t)g->n_edges, sizeof *eidx, ti__idx_cmp);
  for (i = 1; i < g->n_edges; i++)
    if (eidx[i].id == eidx[i - 1].id) { s = ti_error_set(err, TI_STATUS_INVALID, "edge id %d is used twice", (int)eidx[i].id); goto done; }
  {
    /* block ids must be unique (they name the weights): sort a copy */
    ti__idx *bidx = (ti__idx *)TASKIR_MALLOC(u, ((size_t)g->n_blocks + 1) * sizeof *bidx);
    if (!bidx) { s = ti_error_set(err, TI_STATUS_NO_MEMORY, "out of memory importing the graph"); goto done; }
    for (i = 0; i < g->n_blocks; i++) { bidx[i].id = g->blocks[i].id; bidx[i].index = i; }
    qsort(bidx, (size_t)g->n_blocks, sizeof *bidx, ti__idx_cmp);
    for (i = 1; i < g->n_blocks; i++)
      if (bidx[i].id == bidx[i - 1].id) { s = ti_error_set(err, TI_STATUS_INVALID, "block id %d is used twice", (int)bidx[i].id); break; }
    TASKIR_FREE(u, bidx);
    if (s != TI_STATUS_SUCCESS) goto done;
  }
  /* blocks first: results are the output interfaces */
  for (i = 0; i < g->n_blocks; i++) {
    const ti_task_block *b = &g->blocks[i];
    char var[32];
    const ti_attr *attrs;
    int32_t nin = 0, nout = 0;
    ti_op *op;
    for (c = 0; c < b->n_inputs; c++) nin += b->inputs[c].n_interfaces;
    for (c = 0; c < b->n_outputs; c++) nout += b->outputs[c].n_interfaces;
    if ((unsigned)b->type >= TI_BLOCK_COUNT) { s = ti_error_set(err, TI_STATUS_INVALID, "block %d: unknown type", (int)b->id); goto done; }
    snprintf(var, sizeof var, "block%d", (int)b->id);
    if (b->has & TI_BLOCK_HAS_DATA) {
      const ti_task_values *v = ti_task_tensor_values(&b->data);
      if (v) {
        int64_t n = v->count;
        const ti_type *t = ti_type_get(ctx, TI_TYPE_VTENSOR, v->storage, 1, &n, TI_LAYOUT_ANY);
        /* no copy: the program refers to the message's data; names are
           unique because block ids were checked unique above */
        if (!t || !ti__program_push_var(p, var, t, (size_t)n * ti_dtype_size(v->storage), v->data)) {
          s = ti_error_set(err, TI_STATUS_NO_MEMORY, "out of memory importing block %d", (int)b->id);
          goto done;
        }
      }
    }
    attrs = ti__msg_to_attr(ctx, &ti__pbm_block, b, var);
    if (!attrs || !ti__grow(u, &rtypes, sizeof *rtypes, &cap_rt, (int64_t)nout + 1, 8, INT64_MAX)) { s = ti_error_set(err, TI_STATUS_NO_MEMORY, "out of memory importing block %d", (int)b->id); goto done; }
    for (k = 0; k < nout; k++)
      if (!(rtypes[k] = ti__task_value_type(ctx, b))) {
        s = ti_error_set(err, TI_STATUS_INVALID, "block %d: its shape is too large (bytes overflow int64)", (int)b->id);
        goto done;
      }
    op = ti_op_create(p, ti__task_ops[b->type].name, 0, NULL, nout, rtypes, attrs, err);
    if (!op) { s = err && err->status ? err->status : TI_STATUS_NO_MEMORY; goto done; }
    /* operands are set once the edges exist */
    op->n_operands = nin;
    op->operands = (ti_use *)ti_arena_array(&p->arena, (size_t)nin, sizeof(ti_use), 8);
    if (!op->operands) { s = ti_error_set(err, TI_STATUS_NO_MEMORY, "out of memory"); goto done; }
    for (k = 0; k < nin; k++) { op->operands[k].owner = op; op->operands[k].index = k; }
    op->props = (void *)b;
    ti_op_insert_before(op, NULL);
    block_ops[i] = op;
  }
  /* each output interface's edge gets its op, using that result */
  for (i = 0; i < g->n_blocks; i++) {
    const ti_task_block *b = &g->blocks[i];
    for (c = 0, k = 0; c < b->n_outputs; c++)
      for (f = 0; f < b->outputs[c].n_interfaces; f++, k++) {
        int32_t id = b->outputs[c].interfaces[f].edge_id, e = ti__idx_find(eidx, g->n_edges, id);
        ti_value *src = &block_ops[i]->results[k];
        const ti_attr *attrs;
        if (e < 0) { s = ti_error_set(err, TI_STATUS_INVALID, "block %d: output interface names edge %d, which does not exist", (int)b->id, (int)id); goto done; }
        if (edge_ops[e]) { s = ti_error_set(err, TI_STATUS_INVALID, "edge %d leaves from two output interfaces", (int)id); goto done; }
        attrs = ti__msg_to_attr(ctx, &ti__pbm_edge, &g->edges[e], NULL);
        if (!attrs) { s = ti_error_set(err, TI_STATUS_NO_MEMORY, "out of memory importing edge %d", (int)id); goto done; }
        edge_ops[e] = ti_op_create(p, "task.edge", 1, &src, 1, &src->type, attrs, err);
        if (!edge_ops[e]) { s = err && err->status ? err->status : TI_STATUS_NO_MEMORY; goto done; }
        edge_ops[e]->props = (void *)&g->edges[e];
      }
  }
  for (i = 0; i < g->n_edges; i++) {
    if (!edge_ops[i]) { s = ti_error_set(err, TI_STATUS_INVALID, "edge %d is named by no output interface", (int)g->edges[i].id); goto done; }
    ti_op_insert_before(edge_ops[i], NULL);
  }
  for (i = 0; i < g->n_blocks; i++) {
    const ti_task_block *b = &g->blocks[i];
    for (c = 0, k = 0; c < b->n_inputs; c++)
      for (f = 0; f < b->inputs[c].n_interfaces; f++, k++) {
        int32_t id = b->inputs[c].interfaces[f].edge_id, e = ti__idx_find(eidx, g->n_edges, id);
        if (e < 0) { s = ti_error_set(err, TI_STATUS_INVALID, "block %d: input interface names edge %d, which does not exist", (int)b->id, (int)id); goto done; }
        if (edge_ops[e]->results[0].first_use) { s = ti_error_set(err, TI_STATUS_INVALID, "edge %d arrives at two input interfaces", (int)id); goto done; }
        ti__use_link(&block_ops[i]->operands[k], &edge_ops[e]->results[0]);
      }
  }
  for (i = 0; i < g->n_edges; i++)
    if (!edge_ops[i]->results[0].first_use) { s = ti_error_set(err, TI_STATUS_INVALID, "edge %d is named by no input interface", (int)g->edges[i].id); goto done; }
  *out = p;
  p = NULL;
done:
  if (p) {
    /* unlink everything before the arena goes */
    ti_op *op;
    for (op = p->first; op; op = op->next) for (k = 0; k < op->n_operands; k++) ti__use_unlink(&op->operands[k]);
    ti_program_destroy(p);
  }
  if (block_ops) TASKIR_FREE(u, block_ops);
  if (edge_ops) TASKIR_FREE(u, edge_ops);
  if (eidx) TASKIR_FREE(u, eidx);
  if (operands) TASKIR_FREE(u, operands);
  if (rtypes) TASKIR_FREE(u, (void *)rtypes);
  return s;
}

TASKIR_API const ti_task_block *ti_task_block_of(const ti_op *op) {
  ti__unpack u;
  ti_task_block *b;
  if (!ti__is_block_op(op)) return NULL;
  if (op->props) return (const ti_task_block *)op->props;
  b = (ti_task_block *)ti_arena_alloc(&op->program->arena, sizeof *b, 8);
  if (!b) return NULL;
  u.arena = &op->program->arena; u.p = op->program; u.err = NULL; u.where = op->info->name;
  if (ti__op_to_block(&u, op, b) != TI_STATUS_SUCCESS) return NULL;
  ((ti_op *)op)->props = b;
  return b;
}

TASKIR_API const ti_task_edge *ti_task_edge_of(const ti_op *op) {
  ti__unpack u;
  ti_task_edge *e;
  if (!ti__is_edge_op(op)) return NULL;
  if (op->props) return (const ti_task_edge *)op->props;
  e = (ti_task_edge *)ti_arena_alloc(&op->program->arena, sizeof *e, 8);
  if (!e) return NULL;
  u.arena = &op->program->arena; u.p = op->program; u.err = NULL; u.where = "task.edge";
  if (ti__op_to_edge(&u, op, e) != TI_STATUS_SUCCESS) return NULL;
  ((ti_op *)op)->props = e;
  return e;
}

/* Rebuilds the message from attributes and SSA links (not from props, which
   may point into another graph), so rewritten programs export correctly. */
TASKIR_API ti_status ti_task_export(const ti_program *p, ti_task_graph *g, ti_error *err) {
  ti_error_clear(err);
  const ti_op *op;
  int32_t nb = 0, ne = 0;
  ti__unpack u;
  char where[64];
  ti_task_graph_init(g, p->ctx->alloc_user);
  for (op = p->first; op; op = op->next) {
    if (ti__is_block_op(op)) nb++;
    else if (ti__is_edge_op(op)) ne++;
    else return ti_error_set(err, TI_STATUS_INVALID, "op '%s' is not part of the task dialect", op->info ? op->info->name : "?");
  }
  g->blocks = (ti_task_block *)ti_arena_array(&g->arena, (size_t)nb, sizeof *g->blocks, 8);
  g->edges = (ti_task_edge *)ti_arena_array(&g->arena, (size_t)ne, sizeof *g->edges, 8);
  if (!g->blocks || !g->edges) return ti_error_set(err, TI_STATUS_NO_MEMORY, "out of memory exporting the graph");
  u.arena = &g->arena; u.p = p; u.err = err; u.where = "program attributes";
  {
    ti_status s = p->attrs ? ti__attr_to_msg(&u, &ti__pbm_graph, p->attrs, g) : TI_STATUS_SUCCESS;
    if (s != TI_STATUS_SUCCESS) { ti_task_graph_free(g); return s; }
  }
  u.where = where;
  for (op = p->first; op; op = op->next) {
    ti_status s;
    snprintf(where, sizeof where, "%s id %lld", op->info->name, (long long)ti_dict_int(op->attrs, "id", -1));
    if (ti__is_block_op(op)) s = ti__op_to_block(&u, op, &g->blocks[g->n_blocks++]);
    else s = ti__op_to_edge(&u, op, &g->edges[g->n_edges++]);
    if (s != TI_STATUS_SUCCESS) { ti_task_graph_free(g); return s; }
  }
  return TI_STATUS_SUCCESS;
}

/* --- accessors ------------------------------------------------------------- */

TASKIR_API const ti_task_attr *ti_task_find_attr(const ti_task_block *b, ti_attr_type t) {
  int32_t i;
  for (i = 0; i < b->n_attrs; i++)
    if ((b->attrs[i].has & TI_TATTR_HAS_TYPE) && b->attrs[i].type == t) return &b->attrs[i];
  return NULL;
}
TASKIR_API int32_t ti_task_attr_int(const ti_task_block *b, ti_attr_type t, int32_t dflt) {
  const ti_task_attr *a = ti_task_find_attr(b, t);
  return a && (a->has & TI_TATTR_HAS_INT) ? a->int_value : dflt;
}

TASKIR_API int32_t ti_task_socket_of(const ti_task_block *b) {
  return (b->has & TI_BLOCK_HAS_SOCKET_ID) ? b->socket_id : b->id;
}

TASKIR_API int64_t ti_task_rearrange_cap(int64_t src_elems, int64_t dst_elems) {
  int64_t m = src_elems > dst_elems ? src_elems : dst_elems;
  if (m < 1) m = 1;
  return m > TASKIR_CHECK_MAX_ELEMS / TASKIR_REARRANGE_GROWTH ? TASKIR_CHECK_MAX_ELEMS : m * TASKIR_REARRANGE_GROWTH;
}

TASKIR_API void ti_task_lif_params(const ti_task_block *b, ti_lif_params *p) {
  int32_t i;
  ti_lif_params_init(p);
  for (i = 0; i < b->n_attrs; i++) {
    const ti_task_attr *a = &b->attrs[i];
    int32_t v = a->int_value;
    if (!(a->has & TI_TATTR_HAS_TYPE)) continue;
    switch (a->type) {
    case TI_TASK_ATTR_VTH0: p->vth0 = v; break;
    case TI_TASK_ATTR_VTH_ALPHA: p->vth_alpha = v; break;
    case TI_TASK_ATTR_VTH_BETA: p->vth_beta = v; break;
    case TI_TASK_ATTR_VTH_INCRE: p->vth_incre = v; break;
    case TI_TASK_ATTR_VR: p->vr = v; break;
    case TI_TASK_ATTR_VL: p->vl = v; break;
    case TI_TASK_ATTR_VLEAKY_ALPHA: p->vleaky_alpha = v; break;
    case TI_TASK_ATTR_VLEAKY_BETA: p->vleaky_beta = v; break;
    case TI_TASK_ATTR_DV: p->dv = v; break;
    case TI_TASK_ATTR_REF_LEN: p->ref_len = v; break;
    case TI_TASK_ATTR_TW_CNT: p->tw_cnt = v; break;
    case TI_TASK_ATTR_VINIT: p->vinit = v; break;
    case TI_TASK_ATTR_TW_LEN: p->tw_len = v; break;
    case TI_TASK_ATTR_SEED: p->seed = v; break;
    case TI_TASK_ATTR_VTH_ADPT_EN: p->vth_adpt_en = v; break;
    case TI_TASK_ATTR_VLEAKY_ADPT_EN: p->vleaky_adpt_en = v; break;
    case TI_TASK_ATTR_TW_EN: p->tw_en = v; break;
    case TI_TASK_ATTR_RESET_MODE: p->reset_mode = v; break;
    case TI_TASK_ATTR_FIRE_TYPE: p->fire_type = v; break;
    case TI_TASK_ATTR_VM_CONST_EN: p->vm_const_en = v; break;
    case TI_TASK_ATTR_VM_CONST: p->vm_const = v; break;
    case TI_TASK_ATTR_VTHETA_CONST_EN: p->vtheta_const_en = v; break;
    case TI_TASK_ATTR_VTHETA_CONST: p->vtheta_const = v; break;
    default: break;
    }
  }
}

/* The layouts of the descriptor table: the shape field each dim reads
   (src) and the one it names in a cluster (dst); yx: the first two dims
   are y, x and are dropped when both are absent (the 1-D form); chan: the
   last dim is a channel (nf or nr; a storage block's producer writes it as
   nf); LUT reads 2^LUT_DW. */
typedef struct ti__layout_info {
  int32_t rank, yx, chan;
  uint32_t src[4], dst[4];
} ti__layout_info;
static const ti__layout_info ti__layouts[] = {
  { 0, 0, 0, { 0, 0, 0, 0 }, { 0, 0, 0, 0 } },                                           /* NONE */
  { 3, 1, 1, { TI_DIM_Y, TI_DIM_X, TI_DIM_F, 0 }, { TI_DIM_Y, TI_DIM_X, TI_DIM_F, 0 } },   /* YXF */
  { 3, 1, 1, { TI_DIM_Y, TI_DIM_X, TI_DIM_R, 0 }, { TI_DIM_Y, TI_DIM_X, TI_DIM_R, 0 } },   /* YXR */
  { 3, 1, 1, { TI_DIM_IY, TI_DIM_IX, TI_DIM_F, 0 }, { TI_DIM_Y, TI_DIM_X, TI_DIM_F, 0 } }, /* IYXF */
  { 3, 1, 1, { TI_DIM_IY, TI_DIM_IX, TI_DIM_R, 0 }, { TI_DIM_Y, TI_DIM_X, TI_DIM_R, 0 } }, /* IYXR */
  { 1, 0, 1, { TI_DIM_R, 0, 0, 0 }, { TI_DIM_R, 0, 0, 0 } },                               /* R */
  { 1, 0, 1, { TI_DIM_F, 0, 0, 0 }, { TI_DIM_F, 0, 0, 0 } },                               /* F */
  { 4, 0, 0, { TI_DIM_F, TI_DIM_R, TI_DIM_KY, TI_DIM_KX }, { TI_DIM_F, TI_DIM_R, TI_DIM_KY, TI_DIM_KX } }, /* FRKK */
  { 2, 0, 0, { TI_DIM_F, TI_DIM_R, 0, 0 }, { TI_DIM_F, TI_DIM_R, 0, 0 } },                 /* FR */
  { 1, 0, 1, { 0, 0, 0, 0 }, { TI_DIM_F, 0, 0, 0 } }                                       /* LUT */
};
TI__STATIC_ASSERT(sizeof ti__layouts / sizeof *ti__layouts == TI_TASK_LAYOUT_LUT + 1, layouts);

static int32_t ti__attr_lookup(const ti_task_block *b, ti_attr_type t, int32_t dflt) {
  int32_t i;
  for (i = 0; i < b->n_attrs; i++)
    if (b->attrs[i].type == t) return b->attrs[i].int_value;
  return dflt;
}

/* Dims of layout l on shape s (values as written, outermost first) and
   the cluster field of each; -1 when a LUT has no valid LUT_DW. */
static int32_t ti__layout_dims(const ti_task_block *b, const ti_task_shape *s, ti_task_layout l, int64_t dims[4],
                               uint32_t fields[4]) {
  const ti__layout_info *L = &ti__layouts[l];
  int32_t n = 0, i = 0;
  if (l == TI_TASK_LAYOUT_LUT) {
    int32_t dw = ti__attr_lookup(b, TI_TASK_ATTR_LUT_DW, 0);
    if (dw < 1 || dw > 16) return -1;
    dims[0] = (int64_t)1 << dw; fields[0] = TI_DIM_F;
    return 1;
  }
  if (L->yx && !ti__shape_get(s, ti__dim_index(L->src[0])) && !ti__shape_get(s, ti__dim_index(L->src[1]))) i = 2;
  for (; i < L->rank; i++) {
    dims[n] = ti__shape_get(s, ti__dim_index(L->src[i]));
    fields[n++] = L->dst[i];
  }
  return n;
}

TASKIR_API int32_t ti_task_block_layout(const ti_task_block *b, int64_t dims[4], uint32_t fields[4]) {
  ti_task_layout l = (unsigned)b->type < TI_BLOCK_COUNT ? ti__block_descs[b->type].layout : TI_TASK_LAYOUT_YXF;
  return ti__layout_dims(b, &b->shape, l, dims, fields);
}

TASKIR_API int32_t ti_task_block_dims(const ti_task_block *b, int64_t dims[4]) {
  uint32_t f[4];
  return ti_task_block_layout(b, dims, f);
}

/* Fills op's dims and cluster shape for layout l of block b; chan_f: a
   channel dim is named nf (what a producer writes). 0 when l cannot be
   sized (a LUT without a valid LUT_DW). */
static int ti__layout_operand(const ti_task_block *b, ti_task_layout l, int chan_f, ti_task_operand *op) {
  int32_t i;
  op->layout = l;
  op->channel = ti__layouts[l].chan;
  memset(&op->shape, 0, sizeof op->shape);
  op->rank = ti__layout_dims(b, &b->shape, l, op->dims, op->fields);
  if (op->rank < 0) { op->rank = 0; return 0; }
  for (i = 0; i < op->rank; i++) {
    uint32_t f = chan_f && op->channel && i == op->rank - 1 ? (uint32_t)TI_DIM_F : op->fields[i];
    if (op->dims[i]) { op->shape.has |= f; *ti__shape_field(&op->shape, ti__dim_index(f)) = (int32_t)op->dims[i]; }
  }
  return 1;
}

/* The cluster shape of layout l (see ti__layout_operand). */
static int ti__layout_shape(const ti_task_block *b, ti_task_layout l, int chan_f, ti_task_shape *out) {
  ti_task_operand op;
  int ok = ti__layout_operand(b, l, chan_f, &op);
  *out = op.shape;
  return ok;
}

/* 1: bias cluster, 0: none, -1: bias_type absent (either is accepted). */
static int ti__task_bias_of(const ti_task_block *b) {
  if (!(b->has & TI_BLOCK_HAS_BIAS_TYPE)) return -1;
  return b->bias_type == TI_BIAS_VECTOR ? 1 : 0;
}

TASKIR_API int32_t ti_task_block_n_act(const ti_task_block *b) {
  const ti_task_block_desc *d = ti_task_block_desc_of(b->type);
  int32_t n;
  if (!d || d->cls != TI_CLASS_COMPUTE) return 0;
  if (d->n_act != TI_TASK_N_BRANCH) return d->n_act;
  /* capped so that counts below never overflow; the dims rule reports it */
  if ((b->shape.has & TI_SHAPE_HAS_N_BRANCH) && b->shape.n_branch > 0)
    return b->shape.n_branch < 65536 ? b->shape.n_branch : 65536;
  n = b->n_inputs - (d->bias && ti__task_bias_of(b) == 1 ? 1 : 0);
  return n > 0 ? n : 1;
}

/* Operand counts of a compute block: activations, middle operand (0/1),
   bias (0/1). 0 when b is not a compute block. */
static int ti__task_operands(const ti_task_block *b, int32_t *n_act, int32_t *n_mid, int32_t *has_bias) {
  const ti_task_block_desc *d = ti_task_block_desc_of(b->type);
  int bias;
  if (!d || d->cls != TI_CLASS_COMPUTE) return 0;
  *n_act = ti_task_block_n_act(b);
  *n_mid = d->mid == TI_TASK_ROLE_NONE ? 0 : d->mid == TI_TASK_ROLE_STATE ? (b->n_inputs > *n_act ? 1 : 0) : 1;
  bias = ti__task_bias_of(b);
  if (!d->bias) *has_bias = 0;
  else if (bias >= 0) *has_bias = bias;
  else *has_bias = b->n_inputs > *n_act + *n_mid;   /* absent bias_type: judge by the count */
  return 1;
}

TASKIR_API int ti_task_block_operand(const ti_task_block *b, int32_t cluster, ti_task_operand *out) {
  const ti_task_block_desc *d = ti_task_block_desc_of(b->type);
  int32_t n_act, n_mid, has_bias;
  ti_task_layout l;
  memset(out, 0, sizeof *out);
  if (cluster == -1) {
    out->role = TI_TASK_ROLE_DATA;
    return ti__layout_operand(b, d ? d->layout : TI_TASK_LAYOUT_YXF, 0, out);
  }
  if (!ti__task_operands(b, &n_act, &n_mid, &has_bias) || cluster < 0) return 0;
  if (cluster < n_act) { out->role = TI_TASK_ROLE_DATA; l = d->in; }
  else if (cluster < n_act + n_mid) { out->role = d->mid; l = d->mid_in; }
  else if (has_bias && cluster == n_act + n_mid) { out->role = TI_TASK_ROLE_BIAS; l = TI_TASK_LAYOUT_F; }
  else return 0;
  return ti__layout_operand(b, l, 0, out);
}

TASKIR_API const ti_task_block *ti_task_find_block(const ti_task_graph *g, int32_t id) {
  int32_t i;
  for (i = 0; i < g->n_blocks; i++) if (g->blocks[i].id == id) return &g->blocks[i];
  return NULL;
}
TASKIR_API const ti_task_edge *ti_task_find_edge(const ti_task_graph *g, int32_t id) {
  int32_t i;
  for (i = 0; i < g->n_edges; i++) if (g->edges[i].id == id) return &g->edges[i];
  return NULL;
}

/* --- builder --------------------------------------------------------------- */

TASKIR_API void ti_task_shape_set(ti_task_shape *s, uint32_t field, int32_t value) {
  int i;
  for (i = 0; i < TI__SHAPE_N; i++)
    if (field == (1u << i)) { *ti__shape_field(s, i) = value; s->has |= field; return; }
}

/* Grows an arena array of n elements to n + 1 (not zeroed): in place when
   it is the arena's latest allocation (consecutive appends to one array,
   e.g. a block's attributes), else a copy (the old one stays in the arena;
   these arrays are small). */
static void *ti__grow1(ti_arena *a, void *old, int32_t n, size_t elem) {
  return ti__arena_regrow(a, n ? old : NULL, (size_t)n * elem, ((size_t)n + 1) * elem, 8);
}

/* Room for element n of a builder array (g->blocks or g->edges, n
   elements): the graph's heap array *heap (capacity *cap), grown
   geometrically; when items is not that array (a decoded graph's, or one
   the caller set) its elements are copied in first. NULL when out of
   memory (items unchanged). */
static void *ti__task_room(ti_task_graph *g, void *heap, int64_t *cap, const void *items, int32_t n, size_t elem) {
  void *h;
  int foreign;
  memcpy(&h, heap, sizeof h);
  foreign = items != h;
  if (foreign) *cap = 0;
  if (!ti__grow(g->arena.alloc_user, heap, elem, cap, (int64_t)n + 1, 8, INT32_MAX)) return NULL;
  memcpy(&h, heap, sizeof h);
  if (foreign && n) memcpy(h, items, (size_t)n * elem);
  return h;
}

TASKIR_API ti_task_block *ti_task_add_block(ti_task_graph *g, int32_t id, ti_block_type type, ti_dtype precision,
                                            const ti_task_shape *shape) {
  ti_task_block *b, *nb = (ti_task_block *)ti__task_room(g, &g->heap_blocks, &g->cap_blocks, g->blocks, g->n_blocks, sizeof *nb);
  if (!nb) return NULL;
  g->blocks = nb;
  b = &g->blocks[g->n_blocks++];
  memset(b, 0, sizeof *b);
  ti__pb_msg_init(&ti__pbm_block, b);
  b->id = id; b->type = type; b->precision = precision;
  b->has = TI_BLOCK_HAS_ID | TI_BLOCK_HAS_TYPE | TI_BLOCK_HAS_PRECISION;
  if (shape) { b->shape = *shape; b->has |= TI_BLOCK_HAS_SHAPE; }
  return b;
}

TASKIR_API ti_task_block *ti_task_block_at(ti_task_graph *g, int32_t i) {
  return g && i >= 0 && i < g->n_blocks ? &g->blocks[i] : NULL;
}

TASKIR_API int32_t ti_task_block_index(const ti_task_graph *g, const ti_task_block *b) {
  /* O(1): addresses compared as integers (defined for any b, unlike a
     relational compare or a subtraction of unrelated pointers), then b must
     sit on a block boundary inside [blocks, blocks + n_blocks). */
  uintptr_t lo, at, off;
  if (!g || !b || !g->blocks || g->n_blocks <= 0) return -1;
  lo = (uintptr_t)(const void *)g->blocks; at = (uintptr_t)(const void *)b;
  if (at < lo) return -1;
  off = at - lo;
  if (off % sizeof *b || off / sizeof *b >= (uintptr_t)g->n_blocks) return -1;
  return (int32_t)(off / sizeof *b);
}

TASKIR_API ti_task_shape ti_task_shape_make(int32_t ny, int32_t nx, int32_t nf, int32_t nr, int32_t nky, int32_t nkx,
                                            int32_t niy, int32_t nix) {
  ti_task_shape s;
  memset(&s, 0, sizeof s);
  if (ny) ti_task_shape_set(&s, TI_SHAPE_HAS_NY, ny);
  if (nx) ti_task_shape_set(&s, TI_SHAPE_HAS_NX, nx);
  if (nf) ti_task_shape_set(&s, TI_SHAPE_HAS_NF, nf);
  if (nr) ti_task_shape_set(&s, TI_SHAPE_HAS_NR, nr);
  if (nky) ti_task_shape_set(&s, TI_SHAPE_HAS_NKY, nky);
  if (nkx) ti_task_shape_set(&s, TI_SHAPE_HAS_NKX, nkx);
  if (niy) ti_task_shape_set(&s, TI_SHAPE_HAS_NIY, niy);
  if (nix) ti_task_shape_set(&s, TI_SHAPE_HAS_NIX, nix);
  return s;
}

TASKIR_API ti_status ti_task_add_attr(ti_task_graph *g, ti_task_block *b, ti_attr_type type, int32_t value) {
  ti_task_attr *na = (ti_task_attr *)ti__grow1(&g->arena, b->attrs, b->n_attrs, sizeof *na);
  if (!na) return TI_STATUS_NO_MEMORY;
  b->attrs = na;
  na = &b->attrs[b->n_attrs++];
  memset(na, 0, sizeof *na);
  na->has = TI_TATTR_HAS_TYPE | TI_TATTR_HAS_PRECISION | TI_TATTR_HAS_INT;
  na->type = type; na->precision = TI_DTYPE_I32; na->int_value = value;
  return TI_STATUS_SUCCESS;
}

static ti_status ti__set_tensor(ti_arena *a, ti_task_tensor *t, ti_dtype precision, int32_t n_dims, const int32_t *dims,
                                const void *values, int64_t count) {
  int64_t i;
  ti_task_values *v;
  memset(t, 0, sizeof *t);
  t->has = TI_TENSOR_HAS_PRECISION;
  t->precision = precision;
  t->n_dims = n_dims;
  if (!(t->dims = (int32_t *)ti_arena_array_uninit(a, (size_t)n_dims, 4, 4))) return TI_STATUS_NO_MEMORY;
  if (n_dims) memcpy(t->dims, dims, (size_t)n_dims * 4);
  if (precision == TI_DTYPE_F16 || precision == TI_DTYPE_F32) {
    v = &t->float_data; v->storage = TI_DTYPE_F32;
    if (!(v->data = ti_arena_array_uninit(a, (size_t)count, 4, 4))) return TI_STATUS_NO_MEMORY;
    memcpy(v->data, values, (size_t)count * 4);
  } else {
    const int32_t *x = (const int32_t *)values;
    int32_t lo = 0, hi = 0;
    int is_unsigned = precision == TI_DTYPE_U8 || precision == TI_DTYPE_U16 || precision == TI_DTYPE_U32 || precision == TI_DTYPE_U4;
    for (i = 0; i < count; i++) { if (!i || x[i] < lo) lo = x[i]; if (!i || x[i] > hi) hi = x[i]; }
    v = is_unsigned ? &t->uint32_data : &t->int32_data;
    v->storage = is_unsigned ? (lo >= 0 && hi <= 255 ? TI_DTYPE_U8 : lo >= 0 && hi <= 65535 ? TI_DTYPE_U16 : TI_DTYPE_U32)
                             : (lo >= -128 && hi <= 127 ? TI_DTYPE_I8 : lo >= -32768 && hi <= 32767 ? TI_DTYPE_I16 : TI_DTYPE_I32);
    if (!(v->data = ti_arena_array_uninit(a, (size_t)count, ti_dtype_size(v->storage), 4))) return TI_STATUS_NO_MEMORY;
    for (i = 0; i < count; i++) {
      switch (v->storage) {
      case TI_DTYPE_I8: ((int8_t *)v->data)[i] = (int8_t)x[i]; break;
      case TI_DTYPE_I16: ((int16_t *)v->data)[i] = (int16_t)x[i]; break;
      case TI_DTYPE_U8: ((uint8_t *)v->data)[i] = (uint8_t)x[i]; break;
      case TI_DTYPE_U16: ((uint16_t *)v->data)[i] = (uint16_t)x[i]; break;
      default: ((int32_t *)v->data)[i] = x[i]; break;
      }
    }
  }
  v->count = count;
  return TI_STATUS_SUCCESS;
}

TASKIR_API ti_status ti_task_set_data(ti_task_graph *g, ti_task_block *b, ti_dtype precision, int32_t n_dims,
                                      const int32_t *dims, const void *values) {
  int64_t count = 1;
  int32_t i;
  ti_status s;
  for (i = 0; i < n_dims; i++) {
    if (dims[i] < 0 || (dims[i] && count > INT64_MAX / dims[i])) return TI_STATUS_BAD_PARAM;
    count *= dims[i];
  }
  if ((s = ti__set_tensor(&g->arena, &b->data, precision, n_dims, dims, values, count)) != TI_STATUS_SUCCESS) return s;
  b->has |= TI_BLOCK_HAS_DATA;
  return TI_STATUS_SUCCESS;
}

static ti_task_interface *ti__add_interface(ti_arena *a, ti_task_cluster **clusters, int32_t *n, int32_t cluster,
                                            const ti_task_shape *pos, const ti_task_shape *size, int32_t edge_id) {
  ti_task_cluster *c;
  ti_task_interface *f;
  if (cluster == INT32_MAX) return NULL;
  if (*n <= cluster) {   /* clusters up to `cluster`, in one step */
    ti_task_cluster *nc = (ti_task_cluster *)ti__arena_regrow(a, *n ? *clusters : NULL, (size_t)*n * sizeof *nc,
                                                              ((size_t)cluster + 1) * sizeof *nc, 8);
    if (!nc) return NULL;
    memset(&nc[*n], 0, ((size_t)cluster + 1 - (size_t)*n) * sizeof *nc);
    *clusters = nc;
    *n = cluster + 1;
  }
  c = &(*clusters)[cluster];
  if (c->n_interfaces >= c->cap_interfaces) {   /* geometric: a block read by many costs linear memory */
    int32_t n = c->n_interfaces, cap = n < 2 ? n + 1 : n > INT32_MAX / 2 ? INT32_MAX : n * 2;
    if (n == INT32_MAX) return NULL;
    f = (ti_task_interface *)ti__arena_regrow(a, n ? c->interfaces : NULL, (size_t)n * sizeof *f, (size_t)cap * sizeof *f, 8);
    if (!f) return NULL;
    c->interfaces = f;
    c->cap_interfaces = cap;
  }
  f = &c->interfaces[c->n_interfaces++];
  memset(f, 0, sizeof *f);
  f->has = TI_IFACE_HAS_EDGE_ID;
  f->edge_id = edge_id;
  if (pos) { f->position = *pos; f->has |= TI_IFACE_HAS_POSITION; }
  if (size) { f->size = *size; f->has |= TI_IFACE_HAS_SIZE; }
  return f;
}

TASKIR_API ti_task_edge *ti_task_connect(ti_task_graph *g, ti_task_block *src, int32_t src_cluster,
                                         const ti_task_shape *src_pos, const ti_task_shape *src_size,
                                         ti_task_block *dst, int32_t dst_cluster,
                                         const ti_task_shape *dst_pos, const ti_task_shape *dst_size) {
  int32_t id, i;
  ti_task_edge *e;
  if (src_cluster < 0 || dst_cluster < 0) return NULL;
  /* next free id: only edges added since the last call are scanned */
  if (g->edge_ids_seen > g->n_edges) g->edge_ids_seen = g->next_edge_id = 0;
  for (i = g->edge_ids_seen; i < g->n_edges; i++)
    if (g->edges[i].id >= g->next_edge_id) g->next_edge_id = g->edges[i].id + 1;
  g->edge_ids_seen = g->n_edges;
  id = g->next_edge_id;
  {
    ti_task_edge *ne = (ti_task_edge *)ti__task_room(g, &g->heap_edges, &g->cap_edges, g->edges, g->n_edges, sizeof *ne);
    if (!ne) return NULL;
    g->edges = ne;
  }
  if (!ti__add_interface(&g->arena, &src->outputs, &src->n_outputs, src_cluster, src_pos, src_size, id) ||
      !ti__add_interface(&g->arena, &dst->inputs, &dst->n_inputs, dst_cluster, dst_pos, dst_size, id))
    return NULL;
  e = &g->edges[g->n_edges++];
  memset(e, 0, sizeof *e);
  e->has = TI_EDGE_HAS_ID | TI_EDGE_HAS_SRC | TI_EDGE_HAS_DST;
  e->id = id; e->src_block_id = src->id; e->dst_block_id = dst->id;
  return e;
}

TASKIR_API ti_status ti_task_add_rearrange(ti_task_graph *g, ti_task_edge *e, ti_rearrange_kind kind,
                                           int32_t n_dims, const int32_t *dims, const int32_t *values, int64_t n_values) {
  ti_task_rearrange *r = (ti_task_rearrange *)ti__grow1(&g->arena, e->rearrange, e->n_rearrange, sizeof *r);
  ti_status s;
  if (!r) return TI_STATUS_NO_MEMORY;
  e->rearrange = r;
  r = &e->rearrange[e->n_rearrange++];
  memset(r, 0, sizeof *r);
  r->has = TI_REARR_HAS_TYPE;
  r->type = kind;
  if (n_values || n_dims) {
    if (!(r->matrix = (ti_task_tensor *)ti_arena_alloc(&g->arena, sizeof *r->matrix, 8))) return TI_STATUS_NO_MEMORY;
    r->n_matrix = 1;
    if ((s = ti__set_tensor(&g->arena, r->matrix, TI_DTYPE_I32, n_dims, dims, values, n_values)) != TI_STATUS_SUCCESS) return s;
  }
  return TI_STATUS_SUCCESS;
}

/* >>impl.task.check -------------------------------------------------------- */


TASKIR_API void ti_diag_list_init(ti_diag_list *l, void *alloc_user) {
  memset(l, 0, sizeof *l);
  l->alloc_user = alloc_user;
}

TASKIR_API void ti_diag_list_free(ti_diag_list *l) {
  if (l->items) TASKIR_FREE(l->alloc_user, l->items);
  l->items = NULL;
  l->n = l->cap = l->n_errors = l->n_warnings = 0;
}

/* Dim bits, reusing TI_SHAPE_HAS_* as names of the shape fields. */
#define TI__D_Y TI_SHAPE_HAS_NY
#define TI__D_X TI_SHAPE_HAS_NX
#define TI__D_F TI_SHAPE_HAS_NF
#define TI__D_R TI_SHAPE_HAS_NR
#define TI__D_KY TI_SHAPE_HAS_NKY
#define TI__D_KX TI_SHAPE_HAS_NKX
#define TI__D_IY TI_SHAPE_HAS_NIY
#define TI__D_IX TI_SHAPE_HAS_NIX
#define TI__D_NB TI_SHAPE_HAS_N_BRANCH
#define TI__D_WIN (TI__D_KY | TI__D_KX | TI__D_IY | TI__D_IX)

/* Per-type dims (seed 000 tables, absent = 0 on the wire). `req` must be
   >= 1, `opt` may be absent, everything else must be absent. `one_d`: the
   1-D form over [nf] (or [nr]) is allowed, i.e. ny and nx (and the window)
   may all be absent. `must1`: dims that, when present, must be 1. */
typedef struct ti__check_dimrule { uint32_t req, opt, must1; int one_d; } ti__check_dimrule;

static ti__check_dimrule ti__check_dimrule_of(ti_block_type t) {
  const ti_task_block_desc *d = ti_task_block_desc_of(t);
  ti__check_dimrule r;
  r.req = d ? d->req : 0; r.opt = d ? d->opt : 0; r.must1 = d ? d->must1 : 0; r.one_d = d ? d->one_d : 0;
  return r;
}

/* Box dims of a shape in storage order: ny, nx, nf, nr, nky, nkx (niy/nix
   and n_branch describe blocks, not data). */
static void ti__check_dims6(const ti_task_shape *s, int64_t d[6]) {
  d[0] = s->ny; d[1] = s->nx; d[2] = s->nf; d[3] = s->nr; d[4] = s->nky; d[5] = s->nkx;
}

/* Product with absent (0) dims counted as 1. -1 when a dim is negative or
   the product exceeds TASKIR_CHECK_MAX_ELEMS (never overflows). */
static int64_t ti__check_volume(const int64_t *d, int n) {
  int64_t v = 1;
  int i;
  for (i = 0; i < n; i++) {
    int64_t x = d[i] ? d[i] : 1;
    if (x < 0 || x > TASKIR_CHECK_MAX_ELEMS || v > TASKIR_CHECK_MAX_ELEMS / x) return -1;
    v *= x;
  }
  return v;
}

/* Precision sanity: one of the Task IR precisions. */
static int ti__check_is_precision(ti_dtype p) { return (unsigned)p <= (unsigned)TI_DTYPE_I9; }

/* Value range of an integer precision; 0 for float or unknown. */
static int ti__check_int_range(ti_dtype p, int64_t *lo, int64_t *hi) {
  switch (p) {
  case TI_DTYPE_I8: *lo = -128; *hi = 127; return 1;
  case TI_DTYPE_U8: *lo = 0; *hi = 255; return 1;
  case TI_DTYPE_I16: *lo = -32768; *hi = 32767; return 1;
  case TI_DTYPE_U16: *lo = 0; *hi = 65535; return 1;
  case TI_DTYPE_I32: *lo = INT32_MIN; *hi = INT32_MAX; return 1;
  case TI_DTYPE_U32: *lo = 0; *hi = UINT32_MAX; return 1;
  case TI_DTYPE_TERNARY: *lo = -1; *hi = 1; return 1;
  case TI_DTYPE_I28: *lo = -((int64_t)1 << 27); *hi = ((int64_t)1 << 27) - 1; return 1;
  case TI_DTYPE_U4: *lo = 0; *hi = 15; return 1;
  case TI_DTYPE_I9: *lo = -256; *hi = 255; return 1;
  default: return 0;
  }
}

/* Roles of a compute block's input clusters, in order: n_act activations,
   n_mid operands (weight, alpha, LUT or CLIF state), then the bias when
   has_bias. min_in..max_in is the count the type allows. */
typedef struct ti__check_roles {
  int32_t n_act, n_mid, has_bias, min_in, max_in;
  int32_t min_out, max_out;
} ti__check_roles;

static int ti__check_roles_of(const ti_task_block *b, ti__check_roles *r) {
  memset(r, 0, sizeof *r);
  if (!ti__task_operands(b, &r->n_act, &r->n_mid, &r->has_bias)) return 0;
  r->min_out = r->max_out = 1;
  if (ti__block_descs[b->type].mid == TI_TASK_ROLE_STATE) {
    /* optional middle input: the state; optional second output: its
       write-back */
    r->min_in = r->n_act; r->max_in = r->n_act + 1; r->max_out = 2;
    return 1;
  }
  r->min_in = r->max_in = r->n_act + r->n_mid + r->has_bias;
  return 1;
}

TASKIR_API const char *ti_task_input_role(const ti_task_block *b, int32_t cluster) {
  static const char *const name[] = { NULL, "data", "weight", "alpha", "lut", "state", "bias" };
  ti_task_operand op;
  if (!b || cluster < 0) return NULL;
  if (ti_block_class_of(b->type) != TI_CLASS_COMPUTE) return "data";
  ti_task_block_operand(b, cluster, &op);   /* the role is set even when the dims cannot be sized */
  return (unsigned)op.role < sizeof name / sizeof *name ? name[op.role] : NULL;
}

/* " (input, weight, then the bias when bias_type is VECTOR)": the input
   clusters a type takes, from its row. */
static const char *ti__check_roles_text(ti_block_type t, char *buf, size_t cap) {
  static const char *const role[] = { "", "input", "weight", "alpha", "lookup table", "state", "bias" };
  const ti_task_block_desc *d = ti_task_block_desc_of(t);
  if (!d || d->cls != TI_CLASS_COMPUTE || d->mid == TI_TASK_ROLE_STATE) return "";
  snprintf(buf, cap, " (%s%s%s%s)",
           d->n_act == TI_TASK_N_BRANCH ? "n_branch inputs" : d->n_act == 1 ? "input" : d->n_act == 2 ? "two inputs" : "inputs",
           d->mid != TI_TASK_ROLE_NONE ? ", " : "", role[d->mid],
           d->bias ? ", then the bias when bias_type is VECTOR" : "");
  return buf;
}

/* A storage type that holds parameters: its layout is what some compute
   row's weight, alpha, table or bias reads (SW, SWFC, SW2D, SB). Such a
   block that feeds something must carry data (or be written). */
static int ti__check_holds_params(ti_block_type t) {
  int k;
  if ((unsigned)t >= TI_BLOCK_COUNT || ti__block_descs[t].cls != TI_CLASS_STORAGE) return 0;
  for (k = 0; k < TI_BLOCK_COUNT; k++) {
    const ti_task_block_desc *d = &ti__block_descs[k];
    if (d->cls != TI_CLASS_COMPUTE) continue;
    if ((d->mid != TI_TASK_ROLE_NONE && d->mid != TI_TASK_ROLE_STATE && d->mid_in == ti__block_descs[t].layout) ||
        (d->bias && ti__block_descs[t].layout == TI_TASK_LAYOUT_F))
      return 1;
  }
  return 0;
}

static void ti__check_shape_only(ti_task_shape *s) { memset(s, 0, sizeof *s); }
static int ti__check_has_attr(const ti_task_block *b, ti_attr_type t) {
  int32_t i;
  for (i = 0; i < b->n_attrs; i++)
    if (b->attrs[i].type == t) return 1;
  return 0;
}

/* The shape a cluster of block b should have (seed 000 cluster tables).
   Returns 0 when the type says nothing (unknown type, cluster beyond the
   type's count). */
static int ti__check_expected_cluster(const ti_task_block *b, int is_output, int32_t idx, ti_task_shape *out) {
  ti__check_shape_only(out);
  if ((unsigned)b->type >= TI_BLOCK_COUNT) return 0;
  if (ti_block_class_of(b->type) == TI_CLASS_COMPUTE) {
    ti__check_roles r;
    if (!is_output) {
      ti_task_operand op;
      if (!ti_task_block_operand(b, idx, &op)) return 0;
      *out = op.shape;
      return 1;
    }
    if (!ti__check_roles_of(b, &r) || idx >= r.max_out) return 0;
    return ti__layout_shape(b, ti__block_descs[b->type].layout, 0, out);
  }
  if (idx != 0 || ti_block_class_of(b->type) == TI_CLASS_NULL) return 0;
  /* a storage block's channel is written as nf by its producer (SIC holds
     [ny][nx][nf] written, read as [ny][nx][nr]) */
  return ti__layout_shape(b, ti__block_descs[b->type].layout, !is_output, out);
}

/* Dims lists equal once extents of 1 (and absent dims) are dropped: then
   the row-major bytes are the same. */
static int ti__check_same_squeezed(const int64_t *a, int na, const int64_t *b, int nb) {
  int i = 0, j = 0;
  for (;;) {
    while (i < na && (a[i] == 1 || a[i] == 0)) i++;
    while (j < nb && (b[j] == 1 || b[j] == 0)) j++;
    if (i == na || j == nb) return i == na && j == nb;
    if (a[i] != b[j]) return 0;
    i++; j++;
  }
}

static void ti__check_fmt_dims(char *buf, size_t cap, const int64_t *d, int n) {
  size_t len = 0;
  int i;
  buf[0] = 0;
  for (i = 0; i < n && len + 24 < cap; i++)
    len += (size_t)snprintf(buf + len, cap - len, "%s%lld", i ? "," : "[", (long long)d[i]);
  if (len + 2 < cap) snprintf(buf + len, cap - len, "%s", n ? "]" : "[]");
}

/* ---- the run ----------------------------------------------------------- */

typedef struct ti__check_idx { int32_t id, idx; } ti__check_idx;

typedef struct ti__check_edge_info {
  int32_t src, dst;                      /* block indices, -1 if none */
  int32_t n_out, n_in;                   /* interfaces naming the edge */
  int32_t out_blk, out_cl, out_if;       /* first output interface naming it */
  int32_t in_blk, in_cl, in_if;          /* first input interface naming it */
} ti__check_edge_info;

typedef struct ti__check {
  const ti_task_graph *g;
  ti_diag_list *out;
  ti_error *err;
  int oom;
  int32_t n_err_before;
  ti__check_idx *bsorted, *esorted;      /* ids sorted, for lookups (not filled when dense) */
  int bdense, edense;                    /* ids are the indices (0, 1, ...): O(1) lookups */
  ti__check_edge_info *einfo;
  int32_t *in_deg, *adj_start, *adj;     /* cycle search */
} ti__check;

/* block: a block id, or TI__NOBLK when the problem has no block; edge: an
   edge id, or TI__NOEDGE when it has no edge (ids may be -1 themselves). */
#define TI__NOBLK ((int64_t)INT32_MIN - 1)
#define TI__NOEDGE ((int64_t)INT32_MIN - 1)
static void ti__check_diag(ti__check *c, ti_diag_severity sev, const char *rule, int64_t block, int64_t edge,
                           const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
#ifdef TASKIR_NO_ERRMSG
#define ti__check_diag(c, sev, rule, block, edge, ...) \
  (TI__NOMSG(__VA_ARGS__), (ti__check_diag)((c), (sev), (rule), (block), (edge), NULL))
#endif
static void (ti__check_diag)(ti__check *c, ti_diag_severity sev, const char *rule, int64_t block, int64_t edge,
                             const char *fmt, ...) {
  ti_diag_list *l = c->out;
  int32_t edge_id = edge == TI__NOEDGE ? -1 : (int32_t)edge;
  int32_t block_id = block == TI__NOBLK ? -1 : (int32_t)block;
  ti_diag *d;
  int64_t cap;
#ifndef TASKIR_NO_ERRMSG
  va_list ap;
#endif
  if (c->oom) return;
  if (l->n >= TASKIR_CHECK_MAX_DIAGS) {   /* counted, not listed; err keeps the first error */
    l->n_dropped++;
    if (sev == TI_DIAG_ERROR) {
      if (l->n_errors < INT32_MAX) l->n_errors++;
      ti_error_set(c->err, TI_STATUS_INVALID, "%s: a problem (more than %d listed)", rule, (int)TASKIR_CHECK_MAX_DIAGS);
    } else if (l->n_warnings < INT32_MAX) l->n_warnings++;
    return;
  }
  cap = l->cap;
  if (!ti__grow(l->alloc_user, &l->items, sizeof *l->items, &cap, (int64_t)l->n + 1, 16, INT32_MAX)) {
    c->oom = 1;
    ti_error_set(c->err, TI_STATUS_NO_MEMORY, "checker: out of memory growing the problem list");
    return;
  }
  l->cap = (int32_t)cap;
  d = &l->items[l->n++];
  d->severity = sev; d->rule = rule; d->block_id = block_id; d->edge_id = edge_id;
  d->at = (block == TI__NOBLK ? 0u : (uint32_t)TI_DIAG_AT_BLOCK) | (edge == TI__NOEDGE ? 0u : (uint32_t)TI_DIAG_AT_EDGE);
#ifdef TASKIR_NO_ERRMSG
  (void)fmt; d->message[0] = 0;
#else
  va_start(ap, fmt);
  vsnprintf(d->message, sizeof d->message, fmt, ap);
  va_end(ap);
#endif
  if (sev == TI_DIAG_ERROR) {
    l->n_errors++;
    if (d->at & TI_DIAG_AT_BLOCK)
      ti_error_set(c->err, TI_STATUS_INVALID, "%s: block %d: %s", rule, (int)block_id, d->message);
    else if (d->at & TI_DIAG_AT_EDGE)
      ti_error_set(c->err, TI_STATUS_INVALID, "%s: edge %d: %s", rule, (int)edge_id, d->message);
    else
      ti_error_set(c->err, TI_STATUS_INVALID, "%s: %s", rule, d->message);
  } else {
    l->n_warnings++;
  }
}

static int ti__check_idx_cmp(const void *a, const void *b) {
  const ti__check_idx *x = (const ti__check_idx *)a, *y = (const ti__check_idx *)b;
  if (x->id != y->id) return x->id < y->id ? -1 : 1;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* 1 when s (idx ascending) is already in ti__check_idx_cmp order. */
static int ti__check_idx_sorted(const ti__check_idx *s, int32_t n) {
  int32_t i;
  for (i = 1; i < n; i++) if (s[i].id < s[i - 1].id) return 0;
  return 1;
}

/* Index of the first block / edge with this id, or -1. */
static int32_t ti__check_lookup(const ti__check_idx *s, int32_t n, int32_t id) {
  int32_t lo = 0, hi = n;
  while (lo < hi) {
    int32_t mid = lo + (hi - lo) / 2;
    if (s[mid].id < id) lo = mid + 1; else hi = mid;
  }
  return lo < n && s[lo].id == id ? s[lo].idx : -1;
}

/* Index of the first block / edge with this id, or -1. */
static int32_t ti__check_block(const ti__check *c, int32_t id) {
  if (c->bdense) return id >= 0 && id < c->g->n_blocks ? id : -1;
  return ti__check_lookup(c->bsorted, c->g->n_blocks, id);
}
static int32_t ti__check_edge(const ti__check *c, int32_t id) {
  if (c->edense) return id >= 0 && id < c->g->n_edges ? id : -1;
  return ti__check_lookup(c->esorted, c->g->n_edges, id);
}

#define TI__BID(c, i) ((c)->g->blocks[i].id)
#define TI__BNAME(b) ((unsigned)(b)->type < TI_BLOCK_COUNT ? ti__block_descs[(b)->type].name : "?")

static void ti__check_ids(ti__check *c) {
  const ti_task_graph *g = c->g;
  int32_t i;
  if (c->bdense && c->edense) return;   /* distinct ids, no index to build */
  if (!c->bdense) {
    for (i = 0; i < g->n_blocks; i++) { c->bsorted[i].id = g->blocks[i].id; c->bsorted[i].idx = i; }
    /* ids given in order are sorted already: no O(n log n) sort then */
    if (!ti__check_idx_sorted(c->bsorted, g->n_blocks)) qsort(c->bsorted, (size_t)g->n_blocks, sizeof *c->bsorted, ti__check_idx_cmp);
  }
  if (!c->edense) {
    for (i = 0; i < g->n_edges; i++) { c->esorted[i].id = g->edges[i].id; c->esorted[i].idx = i; }
    if (!ti__check_idx_sorted(c->esorted, g->n_edges)) qsort(c->esorted, (size_t)g->n_edges, sizeof *c->esorted, ti__check_idx_cmp);
  }
  for (i = 1; i < g->n_blocks && !c->bdense; i++)
    if (c->bsorted[i].id == c->bsorted[i - 1].id)
      ti__check_diag(c, TI_DIAG_ERROR, "unique-ids", c->bsorted[i].id, TI__NOEDGE,
                     "block id %d is used by blocks #%d and #%d; give each block its own id",
                     (int)c->bsorted[i].id, (int)c->bsorted[i - 1].idx, (int)c->bsorted[i].idx);
  for (i = 1; i < g->n_edges && !c->edense; i++)
    if (c->esorted[i].id == c->esorted[i - 1].id)
      ti__check_diag(c, TI_DIAG_ERROR, "unique-ids", TI__NOBLK, c->esorted[i].id,
                     "edge id %d is used by edges #%d and #%d; give each edge its own id",
                     (int)c->esorted[i].id, (int)c->esorted[i - 1].idx, (int)c->esorted[i].idx);
}

static void ti__check_types(ti__check *c) {
  const ti_task_graph *g = c->g;
  int32_t i;
  for (i = 0; i < g->n_blocks; i++) {
    const ti_task_block *b = &g->blocks[i];
    if ((unsigned)b->type >= TI_BLOCK_COUNT)
      ti__check_diag(c, TI_DIAG_ERROR, "block-type", b->id, TI__NOEDGE, "unknown block type %d", (int)b->type);
    else if (b->type == TI_BLOCK_NULL)
      ti__check_diag(c, TI_DIAG_ERROR, "block-type", b->id, TI__NOEDGE,
                     "block type TASK_NULL does nothing; give the block a storage, compute or io type");
    if (!ti__check_is_precision(b->precision))
      ti__check_diag(c, TI_DIAG_ERROR, "precision", b->id, TI__NOEDGE, "unknown precision %d", (int)b->precision);
  }
}

static void ti__check_dims(ti__check *c) {
  const ti_task_graph *g = c->g;
  int32_t i;
  for (i = 0; i < g->n_blocks; i++) {
    const ti_task_block *b = &g->blocks[i];
    const ti_task_shape *s = &b->shape;
    ti__check_dimrule r;
    uint32_t req, allowed, bit;
    int k, one_d;
    int64_t d[TI__SHAPE_N];
    if ((unsigned)b->type >= TI_BLOCK_COUNT || b->type == TI_BLOCK_NULL) continue;
    r = ti__check_dimrule_of(b->type);
    req = r.req;
    one_d = r.one_d && s->ny == 0 && s->nx == 0;
    if (r.one_d && ((s->ny == 0) != (s->nx == 0)))
      ti__check_diag(c, TI_DIAG_ERROR, "dims", b->id, TI__NOEDGE,
                     "%s block has %s but not %s; give both (2-D form) or neither (1-D form over nf)",
                     TI__BNAME(b), s->ny ? "ny" : "nx", s->ny ? "nx" : "ny");
    if (one_d) req &= ~(uint32_t)(TI__D_Y | TI__D_X | TI__D_WIN);
    allowed = r.req | r.opt;
    for (k = 0; k < TI__SHAPE_N; k++) {
      int32_t v = ti__shape_get(s, k);
      bit = 1u << k;
      d[k] = v;
      if (v < 0)
        ti__check_diag(c, TI_DIAG_ERROR, "dims", b->id, TI__NOEDGE, "%s = %d is negative; dims are counts (absent = 0)",
                       ti__pbf_shape[k].ir, (int)v);
      else if (v == 0 && (req & bit))
        ti__check_diag(c, TI_DIAG_ERROR, "dims", b->id, TI__NOEDGE, "%s block needs %s >= 1, it is absent",
                       TI__BNAME(b), ti__pbf_shape[k].ir);
      else if (v != 0 && !(allowed & bit))
        ti__check_diag(c, TI_DIAG_ERROR, "dims", b->id, TI__NOEDGE,
                       "%s block has %s = %d, which this type does not have; leave it absent",
                       TI__BNAME(b), ti__pbf_shape[k].ir, (int)v);
      else if (v > 1 && (r.must1 & bit))
        ti__check_diag(c, TI_DIAG_ERROR, "dims", b->id, TI__NOEDGE, "%s block has %s = %d, it must be 1 (or absent)",
                       TI__BNAME(b), ti__pbf_shape[k].ir, (int)v);
      else if (v > 1 && one_d && (bit & TI__D_WIN))
        ti__check_diag(c, TI_DIAG_ERROR, "dims", b->id, TI__NOEDGE,
                       "%s block in the 1-D form (no ny, nx) has %s = %d; the window must be 1 (or absent)",
                       TI__BNAME(b), ti__pbf_shape[k].ir, (int)v);
      else if (k == 8 && v > 65536)
        ti__check_diag(c, TI_DIAG_ERROR, "dims", b->id, TI__NOEDGE, "n_branch = %d is not plausible", (int)v);
    }
    /* niy/nix are input extents, not separate loops: the volume is that of
       the 6 loop dims, and the input box is checked on its own */
    if (ti__check_volume(d, 6) < 0 || ti__check_volume(d + 6, 2) < 0) {
      int neg = 0;
      for (k = 0; k < 8; k++) neg |= d[k] < 0;
      if (!neg)
        ti__check_diag(c, TI_DIAG_ERROR, "dims", b->id, TI__NOEDGE,
                       "the product of the dims exceeds %lld elements; the shape is not plausible",
                       (long long)TASKIR_CHECK_MAX_ELEMS);
    }
    for (k = 0; k < s->n_extra && s->extra; k++)
      if (s->extra[k] < 0) {
        ti__check_diag(c, TI_DIAG_ERROR, "dims", b->id, TI__NOEDGE, "extra_dimensions[%d] = %d is negative", k,
                       (int)s->extra[k]);
        break;
      }
  }
}

/* The extent of cluster cl of block b: its shape, or the one its type
   implies. 0 when neither is known. */
static int ti__check_cluster_extent(const ti_task_block *b, int is_output, int32_t idx, ti_task_shape *ext) {
  const ti_task_cluster *cl = is_output ? &b->outputs[idx] : &b->inputs[idx];
  if (cl->has & TI_CLUSTER_HAS_SHAPE) { *ext = cl->shape; return 1; }
  return ti__check_expected_cluster(b, is_output, idx, ext);
}

/* The box of an interface inside its cluster: dims (in ny, nx, nf, nr, nky,
   nkx order, only those the cluster or the box has), returns the rank, or
   -1 when the box does not fit (why in `why`). */
static int ti__check_iface_box(const ti_task_shape *ext, const ti_task_interface *f, int64_t out[6], char *why,
                               size_t why_cap) {
  int64_t e[6], p[6], z[6];
  int k, n = 0;
  static const char *const nm[6] = { "ny", "nx", "nf", "nr", "nky", "nkx" };
  ti__check_dims6(ext, e);
  if (f->has & TI_IFACE_HAS_POSITION) ti__check_dims6(&f->position, p); else memset(p, 0, sizeof p);
  if (f->has & TI_IFACE_HAS_SIZE) ti__check_dims6(&f->size, z); else memset(z, 0, sizeof z);
  for (k = 0; k < 6; k++) {
    int64_t ek = e[k] ? e[k] : 1, sk;
    if (e[k] < 0) { snprintf(why, why_cap, "cluster %s = %lld is negative", nm[k], (long long)e[k]); return -1; }
    if (p[k] < 0) { snprintf(why, why_cap, "position %s = %lld is negative", nm[k], (long long)p[k]); return -1; }
    if (z[k] < 0) { snprintf(why, why_cap, "size %s = %lld is negative", nm[k], (long long)z[k]); return -1; }
    sk = z[k] ? z[k] : ek - p[k];
    if (p[k] + sk > ek || sk < 1) {
      snprintf(why, why_cap, "box %s [%lld, %lld) leaves the cluster's extent %lld", nm[k], (long long)p[k],
               (long long)(p[k] + sk), (long long)ek);
      return -1;
    }
    if (e[k] || z[k]) out[n++] = sk;
  }
  return n;
}

static void ti__check_clusters(ti__check *c) {
  const ti_task_graph *g = c->g;
  int32_t i, j, k;
  char why[192];
  for (i = 0; i < g->n_blocks; i++) {
    const ti_task_block *b = &g->blocks[i];
    ti_block_class cls;
    int32_t min_in = 0, max_in = 0, min_out = 0, max_out = 0;
    if ((unsigned)b->type >= TI_BLOCK_COUNT || b->type == TI_BLOCK_NULL) continue;
    cls = ti_block_class_of(b->type);
    if (cls == TI_CLASS_COMPUTE) {
      ti__check_roles r;
      ti__check_roles_of(b, &r);
      min_in = r.min_in; max_in = r.max_in; min_out = r.min_out; max_out = r.max_out;
    } else if (b->type == TI_BLOCK_INPUT) { min_out = max_out = 1; }
    else if (b->type == TI_BLOCK_OUTPUT) { min_in = max_in = 1; }
    else { max_in = 1; max_out = 1; }
    if (b->n_inputs < min_in || b->n_inputs > max_in) {
      if (min_in == max_in)
        ti__check_diag(c, TI_DIAG_ERROR, "clusters", b->id, TI__NOEDGE,
                       "%s block has %d input clusters, expected %d%s", TI__BNAME(b), (int)b->n_inputs, (int)min_in,
                       ti__check_roles_text(b->type, why, sizeof why));
      else
        ti__check_diag(c, TI_DIAG_ERROR, "clusters", b->id, TI__NOEDGE, "%s block has %d input clusters, expected %d..%d",
                       TI__BNAME(b), (int)b->n_inputs, (int)min_in, (int)max_in);
    }
    if (b->n_outputs < min_out || b->n_outputs > max_out) {
      if (min_out == max_out)
        ti__check_diag(c, TI_DIAG_ERROR, "clusters", b->id, TI__NOEDGE, "%s block has %d output clusters, expected %d",
                       TI__BNAME(b), (int)b->n_outputs, (int)min_out);
      else
        ti__check_diag(c, TI_DIAG_ERROR, "clusters", b->id, TI__NOEDGE, "%s block has %d output clusters, expected %d..%d",
                       TI__BNAME(b), (int)b->n_outputs, (int)min_out, (int)max_out);
    }
    for (j = 0; j < b->n_inputs + b->n_outputs; j++) {
      int is_out = j >= b->n_inputs;
      int32_t ci = is_out ? j - b->n_inputs : j;
      const ti_task_cluster *cl = is_out ? &b->outputs[ci] : &b->inputs[ci];
      ti_task_shape exp, ext;
      int has_exp = ti__check_expected_cluster(b, is_out, ci, &exp);
      if ((cl->has & TI_CLUSTER_HAS_SHAPE) && has_exp) {
        int64_t a[6], e[6];
        int same = 1;
        ti__check_dims6(&cl->shape, a);
        ti__check_dims6(&exp, e);
        if (cls == TI_CLASS_COMPUTE) {
          for (k = 0; k < 6; k++) same &= (a[k] ? a[k] : 1) == (e[k] ? e[k] : 1);
        } else {
          same = ti__check_volume(a, 6) == ti__check_volume(e, 6);
        }
        if (!same) {
          char sa[80], se[80];
          ti__check_fmt_dims(sa, sizeof sa, a, 6);
          ti__check_fmt_dims(se, sizeof se, e, 6);
          ti__check_diag(c, TI_DIAG_ERROR, "clusters", b->id, TI__NOEDGE,
                         "%s cluster %d has shape %s (ny,nx,nf,nr,nky,nkx), the block implies %s",
                         is_out ? "output" : "input", (int)ci, sa, se);
        }
      }
      /* a storage block that carries data needs no writer: an empty input
         cluster there is harmless (the reference engine's cases have it) */
      if (cl->n_interfaces == 0 && !(!is_out && cls == TI_CLASS_STORAGE && (b->has & TI_BLOCK_HAS_DATA) &&
                                     ti_task_tensor_values(&b->data)))
        ti__check_diag(c, TI_DIAG_ERROR, "clusters", b->id, TI__NOEDGE,
                       "%s cluster %d has no interface, so nothing %s it", is_out ? "output" : "input", (int)ci,
                       is_out ? "reads" : "writes");
      if (!ti__check_cluster_extent(b, is_out, ci, &ext)) continue;
      for (k = 0; k < cl->n_interfaces; k++) {
        int64_t box[6];
        if (ti__check_iface_box(&ext, &cl->interfaces[k], box, why, sizeof why) < 0)
          ti__check_diag(c, TI_DIAG_ERROR, "interface-box", b->id,
                         (cl->interfaces[k].has & TI_IFACE_HAS_EDGE_ID) ? (int64_t)cl->interfaces[k].edge_id : TI__NOEDGE,
                         "%s cluster %d interface %d: %s", is_out ? "output" : "input", (int)ci, (int)k, why);
      }
    }
  }
}

/* Interfaces <-> edges, and S/C alternation. */
static void ti__check_edges(ti__check *c) {
  const ti_task_graph *g = c->g;
  int32_t i, j, k;
  for (i = 0; i < g->n_edges; i++) {
    ti__check_edge_info *x = &c->einfo[i];
    const ti_task_edge *e = &g->edges[i];
    x->src = ti__check_block(c, e->src_block_id);
    x->dst = ti__check_block(c, e->dst_block_id);
    x->n_out = x->n_in = 0;
    x->out_blk = x->in_blk = -1;
    if (!(e->has & TI_EDGE_HAS_SRC) && x->src < 0)
      ti__check_diag(c, TI_DIAG_ERROR, "edge-ends", TI__NOBLK, e->id, "edge has no src_block_id");
    else if (x->src < 0)
      ti__check_diag(c, TI_DIAG_ERROR, "edge-ends", TI__NOBLK, e->id, "src_block_id %d names no block", (int)e->src_block_id);
    if (!(e->has & TI_EDGE_HAS_DST) && x->dst < 0)
      ti__check_diag(c, TI_DIAG_ERROR, "edge-ends", TI__NOBLK, e->id, "edge has no dst_block_id");
    else if (x->dst < 0)
      ti__check_diag(c, TI_DIAG_ERROR, "edge-ends", TI__NOBLK, e->id, "dst_block_id %d names no block", (int)e->dst_block_id);
  }
  for (i = 0; i < g->n_blocks; i++) {
    const ti_task_block *b = &g->blocks[i];
    for (j = 0; j < b->n_inputs + b->n_outputs; j++) {
      int is_out = j >= b->n_inputs;
      int32_t ci = is_out ? j - b->n_inputs : j;
      const ti_task_cluster *cl = is_out ? &b->outputs[ci] : &b->inputs[ci];
      for (k = 0; k < cl->n_interfaces; k++) {
        const ti_task_interface *f = &cl->interfaces[k];
        int32_t ei;
        ti__check_edge_info *x;
        if (!(f->has & TI_IFACE_HAS_EDGE_ID) && ti__check_edge(c, f->edge_id) < 0) {
          ti__check_diag(c, TI_DIAG_ERROR, "edge-ends", b->id, TI__NOEDGE, "%s cluster %d interface %d names no edge",
                         is_out ? "output" : "input", (int)ci, (int)k);
          continue;
        }
        ei = ti__check_edge(c, f->edge_id);
        if (ei < 0) {
          ti__check_diag(c, TI_DIAG_ERROR, "edge-ends", b->id, f->edge_id,
                         "%s cluster %d interface %d names edge %d, which does not exist",
                         is_out ? "output" : "input", (int)ci, (int)k, (int)f->edge_id);
          continue;
        }
        x = &c->einfo[ei];
        if (is_out) {
          if (x->n_out++ == 0) { x->out_blk = i; x->out_cl = ci; x->out_if = k; }
        } else {
          if (x->n_in++ == 0) { x->in_blk = i; x->in_cl = ci; x->in_if = k; }
        }
      }
    }
  }
  for (i = 0; i < g->n_edges; i++) {
    const ti_task_edge *e = &g->edges[i];
    ti__check_edge_info *x = &c->einfo[i];
    if (ti__check_edge(c, e->id) != i) continue;   /* duplicate id: reported */
    if (x->n_out != 1)
      ti__check_diag(c, TI_DIAG_ERROR, "edge-ends", x->out_blk >= 0 ? (int64_t)TI__BID(c, x->out_blk) : TI__NOBLK, e->id,
                     "edge is named by %d output interfaces, expected exactly 1 (on its source block)", (int)x->n_out);
    else if (x->src >= 0 && TI__BID(c, x->out_blk) != e->src_block_id)
      ti__check_diag(c, TI_DIAG_ERROR, "edge-ends", TI__BID(c, x->out_blk), e->id,
                     "the output interface naming the edge is on block %d, but the edge's source is block %d",
                     (int)TI__BID(c, x->out_blk), (int)e->src_block_id);
    if (x->n_in != 1)
      ti__check_diag(c, TI_DIAG_ERROR, "edge-ends", x->in_blk >= 0 ? (int64_t)TI__BID(c, x->in_blk) : TI__NOBLK, e->id,
                     "edge is named by %d input interfaces, expected exactly 1 (on its destination block)", (int)x->n_in);
    else if (x->dst >= 0 && TI__BID(c, x->in_blk) != e->dst_block_id)
      ti__check_diag(c, TI_DIAG_ERROR, "edge-ends", TI__BID(c, x->in_blk), e->id,
                     "the input interface naming the edge is on block %d, but the edge's destination is block %d",
                     (int)TI__BID(c, x->in_blk), (int)e->dst_block_id);
    if (x->src >= 0 && x->dst >= 0) {
      const ti_task_block *s = &g->blocks[x->src], *d = &g->blocks[x->dst];
      ti_block_class cs, cd;
      int ok;
      if ((unsigned)s->type >= TI_BLOCK_COUNT || (unsigned)d->type >= TI_BLOCK_COUNT) continue;
      cs = ti_block_class_of(s->type); cd = ti_block_class_of(d->type);
      if (cs == TI_CLASS_NULL || cd == TI_CLASS_NULL) continue;
      if (cs == TI_CLASS_STORAGE) ok = cd == TI_CLASS_COMPUTE || d->type == TI_BLOCK_OUTPUT;
      else if (cs == TI_CLASS_COMPUTE) ok = cd == TI_CLASS_STORAGE;
      else ok = s->type == TI_BLOCK_INPUT && cd == TI_CLASS_STORAGE;
      if (!ok)
        ti__check_diag(c, TI_DIAG_ERROR, "alternation", s->id, e->id,
                       "edge %s %d -> %s %d breaks the storage -> compute -> storage alternation "
                       "(INPUT -> storage, storage -> OUTPUT); %s",
                       TI__BNAME(s), (int)s->id, TI__BNAME(d), (int)d->id,
                       d->type == TI_BLOCK_INPUT ? "an INPUT block takes no edge"
                       : s->type == TI_BLOCK_OUTPUT ? "an OUTPUT block feeds nothing"
                       : cs == TI_CLASS_STORAGE ? "put a compute block between them"
                       : "put a storage block between them");
    }
  }
}

/* Shape of the data after an edge's rearrangements, from the source box
   (in, n_in <= 6 dims), by the kernels' shape inference
   (ti_rearrange_infer_ex). Returns 1 with
   the dims in out (rank *n_out, out holds TI_MAX_RANK), -1 for
   malformed parameters or a step holding more than cap elements (why), -2
   when out of memory. */
static int ti__check_rearranged(ti__check *c, const ti_task_edge *e, const int64_t *in, int n_in, int64_t cap,
                                int64_t *out, int *n_out, char *why, size_t why_cap) {
  int32_t r;
  int k, n = n_in > 0 ? n_in : 1;
  int64_t cur[TI_MAX_RANK];
  void *au = c->out->alloc_user;
  /* boxes have at most 6 dims (ny, nx, nf, nr, nky, nkx) */
  for (k = 0; k < TI_MAX_RANK; k++) cur[k] = 1;
  for (k = 0; k < n_in && k < 6; k++) cur[k] = in[k];
  for (r = 0; r < e->n_rearrange; r++) {
    const ti_task_rearrange *ra = &e->rearrange[r];
    ti_rearrange_param prm[4];
    int32_t *tmp[4];
    int np = ra->n_matrix < 4 ? (int)ra->n_matrix : 4, on = 0, q, failed = 0;
    int64_t od[TI_MAX_RANK];
    const char *reason = NULL;
    ti_status st;
    /* the parameters as int32 / float arrays (values are kept narrow) */
    for (q = 0; q < np; q++) {
      const ti_task_tensor *t = &ra->matrix[q];
      const ti_task_values *iv = &t->int32_data;
      tmp[q] = NULL;
      memset(&prm[q], 0, sizeof prm[q]);
      prm[q].ndims = t->n_dims; prm[q].dims = t->dims;
      if (t->float_data.count > 0 && t->float_data.storage == TI_DTYPE_F32) {
        prm[q].f32 = (const float *)t->float_data.data; prm[q].n_f32 = t->float_data.count;
      }
      if (iv->count > 0) {
        if (iv->storage == TI_DTYPE_I32) prm[q].i32 = (const int32_t *)iv->data;
        else {
          int64_t x;
          if ((uint64_t)iv->count > (uint64_t)((size_t)-1 / 4) ||
              !(tmp[q] = (int32_t *)TASKIR_MALLOC(au, (size_t)iv->count * 4))) { failed = 1; continue; }
          for (x = 0; x < iv->count; x++) tmp[q][x] = (int32_t)ti_task_values_get_i64(iv, x);
          prm[q].i32 = tmp[q];
        }
        prm[q].n_i32 = iv->count;
      }
    }
    st = failed ? TI_STATUS_NO_MEMORY
                : ti_rearrange_infer_ex(ra->type, np ? prm : NULL, np, n, cur, &on, od, &reason);
    for (q = 0; q < np; q++) if (tmp[q]) TASKIR_FREE(au, tmp[q]);
    if (st == TI_STATUS_NO_MEMORY) return -2;
    if (st != TI_STATUS_SUCCESS) {
      const char *kn = ti_rearrange_kind_name(ra->type);
      if (kn) snprintf(why, why_cap, "rearrangement #%d (%s): %s", (int)r, kn, reason ? reason : "malformed");
      else snprintf(why, why_cap, "rearrangement #%d has unknown type %d", (int)r, (int)ra->type);
      return -1;
    }
    n = on;
    for (k = 0; k < on && k < TI_MAX_RANK; k++) cur[k] = od[k];
    {
      int64_t vol = ti__check_volume(cur, n);
      if (vol < 0 || vol > cap) {
        const char *kn = ti_rearrange_kind_name(ra->type);
        snprintf(why, why_cap, "rearrangement #%d (%s) makes %s%lld elements, more than %lld (%d times the larger end "
                 "of the edge)", (int)r, kn ? kn : "?", vol < 0 ? "over " : "",
                 (long long)(vol < 0 ? TASKIR_CHECK_MAX_ELEMS : vol), (long long)cap, (int)TASKIR_REARRANGE_GROWTH);
        return -1;
      }
    }
  }
  for (k = 0; k < n; k++) out[k] = cur[k];
  *n_out = n;
  return 1;
}

static void ti__check_sizes(ti__check *c) {
  const ti_task_graph *g = c->g;
  int32_t i;
  char why[192], sa[80], sb[80];
  for (i = 0; i < g->n_edges; i++) {
    const ti_task_edge *e = &g->edges[i];
    const ti__check_edge_info *x = &c->einfo[i];
    const ti_task_block *s, *d;
    ti_task_shape es, ed;
    int64_t bs[6], bd[6], rs[TI_MAX_RANK], vs, vd;
    int ns, nd, nr, st, said;
    if (x->n_out != 1 || x->n_in != 1 || x->src < 0 || x->dst < 0 || TI__BID(c, x->out_blk) != e->src_block_id ||
        TI__BID(c, x->in_blk) != e->dst_block_id)
      continue;
    /* the blocks holding the interfaces (ids may be duplicated) */
    s = &g->blocks[x->out_blk]; d = &g->blocks[x->in_blk];
    if (!ti__check_cluster_extent(s, 1, x->out_cl, &es) || !ti__check_cluster_extent(d, 0, x->in_cl, &ed)) continue;
    ns = ti__check_iface_box(&es, &s->outputs[x->out_cl].interfaces[x->out_if], bs, why, sizeof why);
    nd = ti__check_iface_box(&ed, &d->inputs[x->in_cl].interfaces[x->in_if], bd, why, sizeof why);
    if (ns < 0 || nd < 0) continue;   /* reported by interface-box */
    st = ti__check_rearranged(c, e, bs, ns, ti_task_rearrange_cap(ti__check_volume(bs, ns), ti__check_volume(bd, nd)),
                              rs, &nr, why, sizeof why);
    if (st == -2) {
      c->oom = 1;
      ti_error_set(c->err, TI_STATUS_NO_MEMORY, "checker: out of memory reading rearrangement parameters");
      return;
    }
    if (st < 0) { ti__check_diag(c, TI_DIAG_ERROR, "rearrange", TI__NOBLK, e->id, "%s", why); continue; }
    vs = ti__check_volume(rs, nr);
    vd = ti__check_volume(bd, nd);
    /* a RESHAPE last says the data is meant to be reshaped */
    said = e->n_rearrange > 0 && e->rearrange[e->n_rearrange - 1].type == TI_REARRANGE_RESHAPE;
    if (vs == vd && (said || ti__check_same_squeezed(rs, nr, bd, nd))) continue;
    ti__check_fmt_dims(sa, sizeof sa, rs, nr);
    ti__check_fmt_dims(sb, sizeof sb, bd, nd);
    if (vs != vd)
      ti__check_diag(c, TI_DIAG_ERROR, "edge-size", TI__NOBLK, e->id,
                     "block %d sends %s%s = %lld elements, block %d receives %s = %lld",
                     (int)s->id, sa, e->n_rearrange ? " after rearrangement" : "", (long long)vs, (int)d->id, sb,
                     (long long)vd);
    else
      ti__check_diag(c, TI_DIAG_WARNING, "edge-size", TI__NOBLK, e->id,
                     "block %d sends %s, block %d receives %s: an implicit row-major reshape; "
                     "add a RESHAPE rearrangement to say so", (int)s->id, sa, (int)d->id, sb);
  }
}

#define ti__check_feeds(c, bi) ((c)->adj_start[bi] > 0)
#define ti__check_is_written(c, bi) ((c)->in_deg[bi] > 0)

/* Values of v outside lo..hi: their count, the first one and its index.
   Nothing to read when the storage width cannot leave the range (int8
   values of an INT_8 tensor, anything of an INT_32 one). */
static int64_t ti__check_outside(const ti_task_values *v, int64_t lo, int64_t hi, int64_t *first, int64_t *fv) {
  int64_t slo, shi, q, n_bad = 0;
  if (v->storage != TI_DTYPE_F32 && ti__check_int_range(v->storage, &slo, &shi) && slo >= lo && shi <= hi) return 0;
#define TI__OUTSIDE(T)                                              \
  for (q = 0; q < v->count; q++) {                                  \
    int64_t x = ((const T *)v->data)[q];                            \
    if (x < lo || x > hi) {                                         \
      if (!n_bad++) { *first = q; *fv = x; }                        \
    }                                                               \
  }
  switch (v->storage) {
  case TI_DTYPE_I8: TI__OUTSIDE(int8_t) break;
  case TI_DTYPE_U8: TI__OUTSIDE(uint8_t) break;
  case TI_DTYPE_I16: TI__OUTSIDE(int16_t) break;
  case TI_DTYPE_U16: TI__OUTSIDE(uint16_t) break;
  case TI_DTYPE_I32: TI__OUTSIDE(int32_t) break;
  case TI_DTYPE_U32: TI__OUTSIDE(uint32_t) break;
  default:
    for (q = 0; q < v->count; q++) {
      int64_t x = ti_task_values_get_i64(v, q);
      if (x < lo || x > hi) {
        if (!n_bad++) { *first = q; *fv = x; }
      }
    }
    break;
  }
#undef TI__OUTSIDE
  return n_bad;
}

static void ti__check_data(ti__check *c) {
  const ti_task_graph *g = c->g;
  int32_t i, k;
  char sa[80], sb[80];
  /* edges leaving / entering each block (the cycle search reuses the arrays) */
  for (i = 0; i < g->n_blocks; i++) c->in_deg[i] = c->adj_start[i] = 0;
  for (i = 0; i < g->n_edges; i++) {
    if (c->einfo[i].src >= 0) c->adj_start[c->einfo[i].src]++;
    if (c->einfo[i].dst >= 0) c->in_deg[c->einfo[i].dst]++;
  }
  for (i = 0; i < g->n_blocks; i++) {
    const ti_task_block *b = &g->blocks[i];
    const ti_task_tensor *t = &b->data;
    const ti_task_values *v = NULL;
    ti_block_class cls;
    int n_fields = (t->int32_data.count > 0) + (t->uint32_data.count > 0) + (t->float_data.count > 0);
    int64_t count, prod = 1, sdims[4], ddims[8];
    int32_t nsd;
    int bad_dims = 0;
    ti_dtype p;
    if ((unsigned)b->type >= TI_BLOCK_COUNT || b->type == TI_BLOCK_NULL) continue;
    cls = ti_block_class_of(b->type);
    if (n_fields == 0) {
      if (ti__check_holds_params(b->type) && ti__check_feeds(c, i) && !ti__check_is_written(c, i))
        ti__check_diag(c, TI_DIAG_ERROR, "data", b->id, TI__NOEDGE,
                       "%s block feeds a compute block but carries no data and nothing writes it; "
                       "give it its weights/bias", TI__BNAME(b));
      else if (cls == TI_CLASS_STORAGE && b->n_inputs == 0 && !ti__check_is_written(c, i) && ti__check_feeds(c, i))
        ti__check_diag(c, TI_DIAG_WARNING, "data", b->id, TI__NOEDGE,
                       "%s block is read but holds no data and nothing writes it; it reads as zeros", TI__BNAME(b));
      if (t->n_dims > 0) {
        for (k = 0; k < t->n_dims && prod >= 0; k++) {
          int64_t dk = t->dims[k];
          prod = (dk < 0 || (dk && prod > TASKIR_CHECK_MAX_ELEMS / dk)) ? -1 : prod * dk;
        }
        if (prod != 0)
          ti__check_diag(c, TI_DIAG_ERROR, "data", b->id, TI__NOEDGE, "data has %d dims but no values", (int)t->n_dims);
      }
      continue;
    }
    if (cls != TI_CLASS_STORAGE) {
      ti__check_diag(c, TI_DIAG_WARNING, "data", b->id, TI__NOEDGE, "%s block carries data, which only storage blocks use",
                     TI__BNAME(b));
      continue;
    }
    if (n_fields > 1)
      ti__check_diag(c, TI_DIAG_ERROR, "data", b->id, TI__NOEDGE,
                     "data fills %d of float_data/int32_data/uint32_data; exactly one holds the values", n_fields);
    v = ti_task_tensor_values(t);
    count = v->count;
    if (t->n_dims <= 0) {
      ti__check_diag(c, TI_DIAG_ERROR, "data", b->id, TI__NOEDGE, "data has %lld values but no dims", (long long)count);
    } else {
      for (k = 0; k < t->n_dims; k++) {
        int64_t dk = t->dims[k];
        if (dk < 0) { bad_dims = 1; break; }
        if (dk && prod > TASKIR_CHECK_MAX_ELEMS / dk) { bad_dims = 2; break; }
        prod *= dk;
        if (k < 8) ddims[k] = dk;
      }
      if (bad_dims)
        ti__check_diag(c, TI_DIAG_ERROR, "data", b->id, TI__NOEDGE, "data dim %d = %d is %s", (int)k, (int)t->dims[k],
                       bad_dims == 1 ? "negative" : "too large: the product overflows");
      else if (prod != count)
        ti__check_diag(c, TI_DIAG_ERROR, "data", b->id, TI__NOEDGE,
                       "data holds %lld values, its dims multiply to %lld", (long long)count, (long long)prod);
      nsd = ti_task_block_dims(b, sdims);
      if (!bad_dims && nsd > 0 && (t->n_dims > 8 || !ti__check_same_squeezed(ddims, t->n_dims, sdims, nsd))) {
        ti__check_fmt_dims(sa, sizeof sa, ddims, t->n_dims > 8 ? 8 : t->n_dims);
        ti__check_fmt_dims(sb, sizeof sb, sdims, nsd);
        ti__check_diag(c, TI_DIAG_ERROR, "data", b->id, TI__NOEDGE, "data dims %s do not match the %s block's storage dims %s",
                       sa, TI__BNAME(b), sb);
      }
    }
    p = (t->has & TI_TENSOR_HAS_PRECISION) ? t->precision : b->precision;
    if ((t->has & TI_TENSOR_HAS_PRECISION) && t->precision != b->precision)
      ti__check_diag(c, TI_DIAG_ERROR, "data", b->id, TI__NOEDGE,
                     "data precision %s differs from the block precision %s (storage precision is that of its data)",
                     ti_precision_name(t->precision) ? ti_precision_name(t->precision) : "?",
                     ti_precision_name(b->precision) ? ti_precision_name(b->precision) : "?");
    if (!ti__check_is_precision(p)) continue;
    {
      int is_float = p == TI_DTYPE_F16 || p == TI_DTYPE_F32;
      int is_uint = p == TI_DTYPE_U8 || p == TI_DTYPE_U16 || p == TI_DTYPE_U32 || p == TI_DTYPE_U4;
      const ti_task_values *want = is_float ? &t->float_data : is_uint ? &t->uint32_data : &t->int32_data;
      const char *want_name = is_float ? "float_data" : is_uint ? "uint32_data" : "int32_data";
      int64_t lo = 0, hi = 0, q, n_bad = 0, first = -1;
      if (v != want) {
        ti__check_diag(c, TI_DIAG_ERROR, "data", b->id, TI__NOEDGE, "%s data belongs in %s", ti_precision_name(p), want_name);
        continue;
      }
      if (is_float) {
        for (q = 0; q < count; q++) {
          double x = ti_task_values_get_f64(v, q);
          if (x != x || x > 3.4028234663852886e38 || x < -3.4028234663852886e38 ||
              (p == TI_DTYPE_F16 && (x > 65504.0 || x < -65504.0))) {
            if (first < 0) first = q;
            n_bad++;
          }
        }
        if (n_bad)
          ti__check_diag(c, TI_DIAG_ERROR, "data", b->id, TI__NOEDGE,
                         "%lld values are NaN, infinite or beyond %s, the first at index %lld", (long long)n_bad,
                         ti_precision_name(p), (long long)first);
      } else if (ti__check_int_range(p, &lo, &hi)) {
        int64_t fv = 0;
        n_bad = ti__check_outside(v, lo, hi, &first, &fv);
        if (n_bad)
          ti__check_diag(c, TI_DIAG_ERROR, "data", b->id, TI__NOEDGE,
                         "%lld values lie outside %s range %lld..%lld, the first is %lld at index %lld",
                         (long long)n_bad, ti_precision_name(p), (long long)lo, (long long)hi, (long long)fv,
                         (long long)first);
      }
    }
  }
}

static int ti__check_u64_cmp(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Sockets: ti_task_socket_of (socket_id, else the block id), distinct among
   INPUTs and among OUTPUTs; a socket_id is >= 0. Sorted, so any number of
   io blocks costs n log n. */
static void ti__check_io(ti__check *c) {
  const ti_task_graph *g = c->g;
  int32_t i, n = 0;
  uint64_t *key;
  for (i = 0; i < g->n_blocks; i++) {
    const ti_task_block *b = &g->blocks[i];
    if (b->type != TI_BLOCK_INPUT && b->type != TI_BLOCK_OUTPUT) continue;
    if ((b->has & TI_BLOCK_HAS_SOCKET_ID) && b->socket_id < 0)
      ti__check_diag(c, TI_DIAG_ERROR, "io", b->id, TI__NOEDGE, "socket_id %d is negative", (int)b->socket_id);
    n++;
  }
  if (n < 2) return;
  key = (uint64_t *)TASKIR_MALLOC(c->out->alloc_user, (size_t)n * sizeof *key);
  if (!key) { c->oom = 1; ti_error_set(c->err, TI_STATUS_NO_MEMORY, "checker: out of memory sorting sockets"); return; }
  n = 0;
  for (i = 0; i < g->n_blocks; i++) {
    const ti_task_block *b = &g->blocks[i];
    if (b->type != TI_BLOCK_INPUT && b->type != TI_BLOCK_OUTPUT) continue;
    /* (output?, socket ^ sign, index): equal sockets of a kind sort together */
    key[n++] = ((uint64_t)(b->type == TI_BLOCK_OUTPUT) << 63) |
               ((uint64_t)((uint32_t)ti_task_socket_of(b) ^ 0x80000000u) << 31) | (uint64_t)(uint32_t)i;
  }
  qsort(key, (size_t)n, sizeof *key, ti__check_u64_cmp);
  for (i = 1; i < n; i++)
    if ((key[i] >> 31) == (key[i - 1] >> 31)) {
      const ti_task_block *o = &g->blocks[key[i - 1] & 0x7fffffffu], *b = &g->blocks[key[i] & 0x7fffffffu];
      ti__check_diag(c, TI_DIAG_ERROR, "io", b->id, TI__NOEDGE,
                     "%s blocks %d and %d both have socket %d (socket_id, or the block id when it has none); "
                     "sockets must differ", TI__BNAME(b), (int)o->id, (int)b->id, (int)ti_task_socket_of(b));
    }
  TASKIR_FREE(c->out->alloc_user, key);
}

static void ti__check_attrs(ti__check *c) {
  const ti_task_graph *g = c->g;
  int32_t i, j, k;
  for (i = 0; i < g->n_blocks; i++) {
    const ti_task_block *b = &g->blocks[i];
    ti_block_class cls;
    if ((unsigned)b->type >= TI_BLOCK_COUNT || b->type == TI_BLOCK_NULL) continue;
    cls = ti_block_class_of(b->type);
    if (cls != TI_CLASS_COMPUTE && b->n_attrs > 0)
      ti__check_diag(c, TI_DIAG_WARNING, "attributes", b->id, TI__NOEDGE, "%s block has %d attributes; only compute blocks use them",
                     TI__BNAME(b), (int)b->n_attrs);
    for (j = 0; j < b->n_attrs; j++) {
      const ti_task_attr *a = &b->attrs[j];
      const char *nm;
      int32_t v = a->int_value;
      if ((unsigned)a->type >= TI_TASK_ATTR_COUNT) {
        ti__check_diag(c, TI_DIAG_ERROR, "attributes", b->id, TI__NOEDGE, "attribute #%d has unknown type %d", (int)j, (int)a->type);
        continue;
      }
      nm = ti__attr_type_names[a->type];
      for (k = 0; k < j; k++)
        if (b->attrs[k].type == a->type) {
          ti__check_diag(c, TI_DIAG_ERROR, "attributes", b->id, TI__NOEDGE, "attribute %s is given twice (#%d and #%d)", nm,
                         (int)k, (int)j);
          break;
        }
      switch (a->type) {
      case TI_TASK_ATTR_KERNEL_X: case TI_TASK_ATTR_KERNEL_Y: case TI_TASK_ATTR_STRIDE_X: case TI_TASK_ATTR_STRIDE_Y:
      case TI_TASK_ATTR_DILATION_X: case TI_TASK_ATTR_DILATION_Y:
        if (v < 1) ti__check_diag(c, TI_DIAG_ERROR, "attributes", b->id, TI__NOEDGE, "%s = %d, it must be >= 1", nm, (int)v);
        break;
      case TI_TASK_ATTR_PAD_UP: case TI_TASK_ATTR_PAD_DOWN: case TI_TASK_ATTR_PAD_LEFT: case TI_TASK_ATTR_PAD_RIGHT:
        if (v < 0) ti__check_diag(c, TI_DIAG_ERROR, "attributes", b->id, TI__NOEDGE, "%s = %d, it must be >= 0", nm, (int)v);
        break;
      case TI_TASK_ATTR_LUT_DW:
        if (v < 1 || v > 16) ti__check_diag(c, TI_DIAG_ERROR, "attributes", b->id, TI__NOEDGE, "LUT_DW = %d, it must be 1..16", (int)v);
        break;
      case TI_TASK_ATTR_BIT_SHIFT_NUM:
        if (v < 0 || v > 31)
          ti__check_diag(c, TI_DIAG_ERROR, "attributes", b->id, TI__NOEDGE, "BIT_SHIFT_NUM = %d, it must be 0..31", (int)v);
        break;
      default: break;
      }
    }
    if ((b->has & TI_BLOCK_HAS_BIAS_TYPE) && b->bias_type != TI_BIAS_VECTOR &&
        b->bias_type != TI_BIAS_CONSTANT)
      ti__check_diag(c, TI_DIAG_ERROR, "attributes", b->id, TI__NOEDGE,
                     "bias_type %d is unknown; VECTOR (1) reads a bias cluster, CONSTANT (2) adds CONSTANT_B",
                     (int)b->bias_type);
    if (b->type == TI_BLOCK_CLIF) {   /* the kernel's own rules (ti_lif_params_check) */
      ti_lif_params lp;
      const char *field = "?";
      int32_t val = 0;
      ti_status ls;
      ti_task_lif_params(b, &lp);
      if ((ls = ti_lif_params_check(&lp, &field, &val)) != TI_STATUS_SUCCESS)
        ti__check_diag(c, TI_DIAG_ERROR, "attributes", b->id, TI__NOEDGE, "CLIF %s = %d %s", field, (int)val,
                       ls == TI_STATUS_NOT_SUPPORTED ? "is not supported by the LIF kernel" : "is out of range");
    }
    if (ti__block_descs[b->type].window == TI_TASK_WINDOW_POOL) {
      int64_t ky = b->shape.nky > 0 ? b->shape.nky : ti__attr_lookup(b, TI_TASK_ATTR_KERNEL_Y, 1);
      int64_t kx = b->shape.nkx > 0 ? b->shape.nkx : ti__attr_lookup(b, TI_TASK_ATTR_KERNEL_X, 1);
      if (ky > 0 && kx > 0 && ky * kx > (int64_t)TASKIR_MAX_WINDOW)
        ti__check_diag(c, TI_DIAG_ERROR, "attributes", b->id, TI__NOEDGE,
                       "window %lldx%lld has %lld positions, more than TASKIR_MAX_WINDOW (%lld)", (long long)ky,
                       (long long)kx, (long long)(ky * kx), (long long)TASKIR_MAX_WINDOW);
    }
    if (ti__block_descs[b->type].mid_in == TI_TASK_LAYOUT_LUT && !ti__check_has_attr(b, TI_TASK_ATTR_LUT_DW))
      ti__check_diag(c, TI_DIAG_ERROR, "attributes", b->id, TI__NOEDGE,
                     "%s block has no LUT_DW; it sets the index width and the table size 2^LUT_DW", TI__BNAME(b));
    /* windowed blocks: the output size follows from the input, the window,
       stride, padding and dilation */
    if (ti__block_descs[b->type].window != TI_TASK_WINDOW_NONE && b->shape.niy > 0 && b->shape.nix > 0) {
      int axis;
      for (axis = 0; axis < 2; axis++) {
        int32_t n_in = axis ? b->shape.nix : b->shape.niy, n_out = axis ? b->shape.nx : b->shape.ny;
        int32_t kk = axis ? b->shape.nkx : b->shape.nky;
        int32_t ka = ti__attr_lookup(b, axis ? TI_TASK_ATTR_KERNEL_X : TI_TASK_ATTR_KERNEL_Y, kk);
        int32_t st = ti__attr_lookup(b, axis ? TI_TASK_ATTR_STRIDE_X : TI_TASK_ATTR_STRIDE_Y, 1);
        int32_t dl = ti__attr_lookup(b, axis ? TI_TASK_ATTR_DILATION_X : TI_TASK_ATTR_DILATION_Y, 1);
        int32_t p0 = ti__attr_lookup(b, axis ? TI_TASK_ATTR_PAD_LEFT : TI_TASK_ATTR_PAD_UP, 0);
        int32_t p1 = ti__attr_lookup(b, axis ? TI_TASK_ATTR_PAD_RIGHT : TI_TASK_ATTR_PAD_DOWN, 0);
        int64_t span, want;
        if (kk > 0 && ka != kk)
          ti__check_diag(c, TI_DIAG_ERROR, "attributes", b->id, TI__NOEDGE, "%s = %d but the shape's %s = %d",
                         axis ? "KERNEL_X" : "KERNEL_Y", (int)ka, axis ? "nkx" : "nky", (int)kk);
        if (kk < 1 || st < 1 || dl < 1 || p0 < 0 || p1 < 0 || n_out < 1) continue;   /* reported elsewhere */
        span = (int64_t)dl * (kk - 1) + 1;
        want = (int64_t)n_in + p0 + p1 >= span ? ((int64_t)n_in + p0 + p1 - span) / st + 1 : 0;
        if (want != n_out)
          ti__check_diag(c, TI_DIAG_ERROR, "attributes", b->id, TI__NOEDGE,
                         "%s = %d, but %s = %d with kernel %d, stride %d, pads %d+%d, dilation %d gives %lld",
                         axis ? "nx" : "ny", (int)n_out, axis ? "nix" : "niy", (int)n_in, (int)kk, (int)st, (int)p0,
                         (int)p1, (int)dl, (long long)want);
      }
    }
  }
}

/* Groups name existing blocks, once each; group ids are unique. */
static void ti__check_groups(ti__check *c) {
  const ti_task_graph *g = c->g;
  int32_t i, j, *stamp = c->in_deg;   /* scratch until the cycle search */
  if (g->n_groups > 1) {   /* ids sorted: a repeated id is a run, O(n log n) */
    ti__check_idx *gs = (ti__check_idx *)TASKIR_MALLOC(c->out->alloc_user, (size_t)g->n_groups * sizeof *gs);
    if (!gs) { c->oom = 1; return; }
    for (i = 0; i < g->n_groups; i++) { gs[i].id = g->groups[i].group_id; gs[i].idx = i; }
    qsort(gs, (size_t)g->n_groups, sizeof *gs, ti__check_idx_cmp);
    for (i = 1, j = 0; i < g->n_groups; i++) {   /* j: the first group of the current id */
      if (gs[i].id != gs[j].id) { j = i; continue; }
      ti__check_diag(c, TI_DIAG_ERROR, "groups", TI__NOBLK, TI__NOEDGE, "group id %d is used by groups #%d and #%d",
                     (int)gs[i].id, (int)gs[j].idx, (int)gs[i].idx);
    }
    TASKIR_FREE(c->out->alloc_user, gs);
  }
  for (i = 0; i < g->n_blocks; i++) stamp[i] = 0;
  for (i = 0; i < g->n_groups; i++) {
    const ti_task_group *gr = &g->groups[i];
    for (j = 0; j < gr->n_block_ids; j++) {
      int32_t id = gr->block_ids[j], bi = ti__check_block(c, id);
      if (bi < 0)
        ti__check_diag(c, TI_DIAG_ERROR, "groups", id, TI__NOEDGE, "group %d names block %d, which does not exist",
                       (int)gr->group_id, (int)id);
      else if (stamp[bi] == i + 1)
        ti__check_diag(c, TI_DIAG_ERROR, "groups", id, TI__NOEDGE, "group %d names block %d twice", (int)gr->group_id, (int)id);
      else
        stamp[bi] = i + 1;
    }
  }
}

/* Edges that count for the cycle search: both ends exist, and not the
   membrane write-back of a CLIF (its second output), which feeds the next
   time step. */
static int ti__check_dag_edge(const ti__check *c, int32_t i) {
  const ti__check_edge_info *x = &c->einfo[i];
  if (x->src < 0 || x->dst < 0) return 0;
  if (c->g->blocks[x->src].type == TI_BLOCK_CLIF && x->n_out == 1 && x->out_blk == x->src && x->out_cl >= 1) return 0;
  return 1;
}

/* Kahn's algorithm (iterative); on a cycle, walks predecessors among the
   leftover blocks until one repeats, to name the blocks on it. */
static void ti__check_cycles(ti__check *c) {
  const ti_task_graph *g = c->g;
  int32_t nb = g->n_blocks, i, head = 0, tail = 0, left;
  int32_t *deg = c->in_deg, *start = c->adj_start, *adj = c->adj, *queue, *pred;
  for (i = 0; i <= nb; i++) start[i] = 0;
  for (i = 0; i < nb; i++) deg[i] = 0;
  for (i = 0; i < g->n_edges; i++)
    if (ti__check_dag_edge(c, i)) { start[c->einfo[i].src + 1]++; deg[c->einfo[i].dst]++; }
  for (i = 0; i < nb; i++) start[i + 1] += start[i];
  /* queue and pred share adj's tail: adj holds n_edges, queue nb, pred nb */
  queue = adj + g->n_edges;
  pred = queue + nb;
  {
    int32_t *fill = pred;   /* temporary cursor per block */
    for (i = 0; i < nb; i++) fill[i] = start[i];
    for (i = 0; i < g->n_edges; i++)
      if (ti__check_dag_edge(c, i)) adj[fill[c->einfo[i].src]++] = c->einfo[i].dst;
  }
  for (i = 0; i < nb; i++) if (deg[i] == 0) queue[tail++] = i;
  while (head < tail) {
    int32_t u = queue[head++], k;
    for (k = start[u]; k < start[u + 1]; k++) if (--deg[adj[k]] == 0) queue[tail++] = adj[k];
  }
  left = nb - tail;
  if (left == 0) return;
  /* pred[v] = some leftover predecessor of leftover v */
  for (i = 0; i < nb; i++) pred[i] = -1;
  for (i = 0; i < g->n_edges; i++) {
    const ti__check_edge_info *x = &c->einfo[i];
    if (ti__check_dag_edge(c, i) && deg[x->src] > 0 && deg[x->dst] > 0) pred[x->dst] = x->src;
  }
  {
    int32_t v = -1, steps, k, n_on = 0;
    char path[160];
    size_t len = 0;
    for (i = 0; i < nb; i++) if (deg[i] > 0) { v = i; break; }
    /* after nb steps back we are surely on the cycle */
    for (steps = 0; steps < nb && v >= 0 && pred[v] >= 0; steps++) v = pred[v];
    path[0] = 0;
    if (v >= 0) {
      k = v;
      do {
        if (len + 16 < sizeof path) len += (size_t)snprintf(path + len, sizeof path - len, "%d <- ", (int)TI__BID(c, k));
        n_on++;
        k = pred[k];
      } while (k >= 0 && k != v && n_on <= nb);
      if (len + 16 < sizeof path) snprintf(path + len, sizeof path - len, "%d", (int)TI__BID(c, v));
    }
    ti__check_diag(c, TI_DIAG_ERROR, "cycle", v >= 0 ? (int64_t)TI__BID(c, v) : TI__NOBLK, TI__NOEDGE,
                   "the graph has a cycle (%d blocks on or after it): %s; Task IR graphs are acyclic", (int)left, path);
  }
}

/* ti_task_check with its temporaries from tmp when not NULL (the lowering
   lends its context's cached chunks; tmp is left to the caller to free). */
static ti_status ti__task_check(const ti_task_graph *g, ti_diag_list *out, ti_error *err, ti_arena *tmp);
TASKIR_API ti_status ti_task_check(const ti_task_graph *g, ti_diag_list *out, ti_error *err) {
  return ti__task_check(g, out, err, NULL);
}

static ti_status ti__task_check(const ti_task_graph *g, ti_diag_list *out, ti_error *err, ti_arena *tmp) {
  ti_error_clear(err);
  ti__check c;
  ti_diag_list local;
  int32_t nb, ne, n_err0;
  size_t need_idx, need_int;
  void *au;
  int err_was_clear;
  if (!g || g->n_blocks < 0 || g->n_edges < 0 || (g->n_blocks && !g->blocks) || (g->n_edges && !g->edges))
    return ti_error_set(err, TI_STATUS_BAD_PARAM, "ti_task_check: no graph or a malformed one");
  err_was_clear = !err || err->status == TI_STATUS_SUCCESS;
  if (!out) { ti_diag_list_init(&local, g->arena.alloc_user); out = &local; }
  memset(&c, 0, sizeof c);
  c.g = g; c.out = out; c.err = err;
  au = out->alloc_user;
  nb = g->n_blocks; ne = g->n_edges;
  n_err0 = out->n_errors;
  /* ids 0, 1, ... in order (as ti_task_add_block / ti_task_connect number
     edges, and the lowering blocks): no sorted index is needed */
  {
    int32_t i;
    c.bdense = c.edense = 1;
    for (i = 0; i < nb && c.bdense; i++) if (g->blocks[i].id != i) c.bdense = 0;
    for (i = 0; i < ne && c.edense; i++) if (g->edges[i].id != i) c.edense = 0;
  }
  need_idx = ((c.bdense ? 0 : (size_t)nb) + (c.edense ? 0 : (size_t)ne) + 2) * sizeof(ti__check_idx);
  /* in_deg nb, adj_start nb+1, adj ne + queue nb + pred nb */
  need_int = ((size_t)nb * 4 + (size_t)ne + 2) * sizeof(int32_t);
  if (tmp) {   /* one block: one chunk of its own size, the same from run to run (a cached one fits again) */
    size_t need_info = ((size_t)ne + 1) * sizeof(ti__check_edge_info);
    unsigned char *m = (unsigned char *)ti_arena_alloc_uninit(tmp, need_idx + need_info + need_int, 8);
    c.bsorted = (ti__check_idx *)m;
    c.einfo = m ? (ti__check_edge_info *)(m + need_idx) : NULL;
    c.in_deg = m ? (int32_t *)(m + need_idx + need_info) : NULL;
  } else {
    c.bsorted = (ti__check_idx *)TASKIR_MALLOC(au, need_idx);
    c.einfo = (ti__check_edge_info *)TASKIR_MALLOC(au, ((size_t)ne + 1) * sizeof(ti__check_edge_info));
    c.in_deg = (int32_t *)TASKIR_MALLOC(au, need_int);
  }
  if (!c.bsorted || !c.einfo || !c.in_deg) {
    if (!tmp && c.bsorted) TASKIR_FREE(au, c.bsorted);
    if (!tmp && c.einfo) TASKIR_FREE(au, c.einfo);
    if (!tmp && c.in_deg) TASKIR_FREE(au, c.in_deg);
    if (out == &local) ti_diag_list_free(&local);
    return ti_error_set(err, TI_STATUS_NO_MEMORY, "ti_task_check: out of memory for %d blocks and %d edges", (int)nb,
                        (int)ne);
  }
  c.esorted = c.bsorted + (c.bdense ? 0 : nb);
  c.adj_start = c.in_deg + nb;
  c.adj = c.adj_start + nb + 1;
  ti__check_ids(&c);
  ti__check_types(&c);
  ti__check_dims(&c);
  ti__check_clusters(&c);
  ti__check_edges(&c);
  ti__check_sizes(&c);
  ti__check_data(&c);
  ti__check_io(&c);
  ti__check_attrs(&c);
  ti__check_groups(&c);
  ti__check_cycles(&c);
#undef ti__check_feeds
#undef ti__check_is_written
  if (!tmp) {
    TASKIR_FREE(au, c.bsorted);
    TASKIR_FREE(au, c.einfo);
    TASKIR_FREE(au, c.in_deg);
  }
  {
    int oom = c.oom, bad = out->n_errors > n_err0;
    if (out == &local) ti_diag_list_free(&local);
    if (oom) {
      /* the status the caller gets wins over problems recorded before */
      if (err_was_clear) {
        ti_error_clear(err);
        ti_error_set(err, TI_STATUS_NO_MEMORY, "ti_task_check: out of memory growing the problem list");
      }
      return TI_STATUS_NO_MEMORY;
    }
    return bad ? TI_STATUS_INVALID : TI_STATUS_SUCCESS;
  }
}

/* >>impl.task.stats -------------------------------------------------------- */

/* Saturating product of counts: absent (0) dims count as 1, negative ones
   as 0 (the checker reports them); *sat is set when INT64_MAX is hit. */
static int64_t ti__stats_mul(int64_t a, int64_t b, int *sat) {
  if (a <= 0 || b <= 0) return 0;
  if (a > INT64_MAX / b) { *sat = 1; return INT64_MAX; }
  return a * b;
}
static int64_t ti__stats_add(int64_t a, int64_t b, int *sat) {
  if (a > INT64_MAX - b) { *sat = 1; return INT64_MAX; }
  return a + b;
}
static int64_t ti__stats_dim(int64_t v) { return v == 0 ? 1 : v < 0 ? 0 : v; }
static int64_t ti__stats_prod(const int64_t *d, int n, int *sat) {
  int64_t v = 1;
  int i;
  for (i = 0; i < n; i++) v = ti__stats_mul(v, ti__stats_dim(d[i]), sat);
  return v;
}
static int64_t ti__stats_shape(const ti_task_shape *s, int *sat) {
  int64_t d[6];
  ti__check_dims6(s, d);
  return ti__stats_prod(d, 6, sat);
}

/* The MACs of b by its row's formula (see >>task.stats). */
static int64_t ti__stats_macs(const ti_task_block *b, int *sat) {
  const ti_task_shape *s = &b->shape;
  int64_t out = ti__stats_mul(ti__stats_mul(ti__stats_dim(s->ny), ti__stats_dim(s->nx), sat), ti__stats_dim(s->nf), sat);
  int64_t win = ti__stats_mul(ti__stats_dim(s->nky), ti__stats_dim(s->nkx), sat);
  switch ((unsigned)b->type < TI_BLOCK_COUNT ? ti__block_descs[b->type].macs : TI_TASK_MACS_NONE) {
  case TI_TASK_MACS_OUT: return out;
  case TI_TASK_MACS_BRANCH: return ti__stats_mul(out, ti_task_block_n_act(b), sat);
  case TI_TASK_MACS_WINDOW: return ti__stats_mul(out, win, sat);
  case TI_TASK_MACS_CONV: return ti__stats_mul(ti__stats_mul(out, ti__stats_dim(s->nr), sat), win, sat);
  case TI_TASK_MACS_FC: return ti__stats_mul(ti__stats_dim(s->nf), ti__stats_dim(s->nr), sat);
  default: return 0;
  }
}

TASKIR_API int64_t ti_task_block_macs(const ti_task_block *b) {
  int sat = 0;
  int64_t m = ti__stats_macs(b, &sat);
  return sat ? INT64_MAX : m;
}

static void ti__stats_block(const ti_task_block *b, ti_task_block_stats *bs, int *sat) {
  const ti_task_shape *s = &b->shape;
  int64_t dims[4];
  int n;
  memset(bs, 0, sizeof *bs);
  bs->block_id = b->id;
  bs->type = b->type;
  if ((unsigned)b->type >= TI_BLOCK_COUNT) return;
  switch (ti_block_class_of(b->type)) {
  case TI_CLASS_STORAGE: {
    const ti_task_values *v = ti_task_tensor_values(&b->data);
    n = (int)ti_task_block_dims(b, dims);
    bs->params = v ? v->count : 0;
    bs->out_elems = ti__stats_prod(dims, n, sat);
    bs->storage_bytes = ti__stats_mul(bs->out_elems, (int64_t)ti_dtype_size(b->precision), sat);
    if (!ti__check_is_precision(b->precision)) bs->storage_bytes = 0;
    break;
  }
  case TI_CLASS_COMPUTE: {
    int32_t i;
    /* parameters: the operands that are not activations or state, as the
       block's shape sizes them (weight, alpha, LUT, bias) */
    for (i = 0; i < b->n_inputs; i++) {
      ti_task_operand op;
      if (ti_task_block_operand(b, i, &op) && op.role != TI_TASK_ROLE_DATA && op.role != TI_TASK_ROLE_STATE)
        bs->params = ti__stats_add(bs->params, ti__stats_shape(&op.shape, sat), sat);
    }
    n = (int)ti_task_block_dims(b, dims);
    bs->out_elems = ti__stats_prod(dims, n, sat);
    bs->macs = ti__stats_macs(b, sat);
    break;
  }
  case TI_CLASS_IO:
    if (b->type == TI_BLOCK_INPUT)
      bs->out_elems = ti__stats_mul(ti__stats_mul(ti__stats_dim(s->ny), ti__stats_dim(s->nx), sat), ti__stats_dim(s->nf), sat);
    break;
  default: break;
  }
}

TASKIR_API ti_status ti_task_statistics(const ti_task_graph *g, ti_task_stats *s, int per_block, ti_error *err) {
  ti_error_clear(err);
  ti__check_idx *idx = NULL;
  ti_task_block_stats *pb = NULL, one;
  int64_t *pe = NULL;
  void *au;
  int sat = 0;
  int32_t i;
  if (!s) return ti_error_set(err, TI_STATUS_BAD_PARAM, "ti_task_statistics: no result struct");
  memset(s, 0, sizeof *s);
  if (!g || g->n_blocks < 0 || g->n_edges < 0 || (g->n_blocks && !g->blocks) || (g->n_edges && !g->edges))
    return ti_error_set(err, TI_STATUS_BAD_PARAM, "ti_task_statistics: no graph or a malformed one");
  au = g->arena.alloc_user;
  idx = (ti__check_idx *)TASKIR_MALLOC(au, ((size_t)g->n_blocks + 1) * sizeof *idx);
  if (per_block) pb = (ti_task_block_stats *)TASKIR_MALLOC(au, ((size_t)g->n_blocks + 1) * sizeof *pb);
  if (per_block) pe = (int64_t *)TASKIR_MALLOC(au, ((size_t)g->n_edges + 1) * sizeof *pe);
  if (!idx || (per_block && (!pb || !pe))) {
    if (idx) TASKIR_FREE(au, idx);
    if (pb) TASKIR_FREE(au, pb);
    if (pe) TASKIR_FREE(au, pe);
    return ti_error_set(err, TI_STATUS_NO_MEMORY, "ti_task_statistics: out of memory for %d blocks", (int)g->n_blocks);
  }
  s->blocks = g->n_blocks;
  s->edges = g->n_edges;
  for (i = 0; i < g->n_blocks; i++) {
    const ti_task_block *b = &g->blocks[i];
    ti_task_block_stats *bs = pb ? &pb[i] : &one;
    idx[i].id = b->id; idx[i].idx = i;
    ti__stats_block(b, bs, &sat);
    if ((unsigned)b->type < TI_BLOCK_COUNT && ti_block_class_of(b->type) == TI_CLASS_STORAGE) {
      s->data_elems = ti__stats_add(s->data_elems, bs->params, &sat);
      if (ti__check_is_precision(b->precision))
        s->storage_bytes[b->precision] = ti__stats_add(s->storage_bytes[b->precision], bs->storage_bytes, &sat);
      s->storage_total = ti__stats_add(s->storage_total, bs->storage_bytes, &sat);
    } else {
      s->params = ti__stats_add(s->params, bs->params, &sat);
      s->macs = ti__stats_add(s->macs, bs->macs, &sat);
      if ((unsigned)b->type < TI_BLOCK_COUNT && ti_block_class_of(b->type) == TI_CLASS_COMPUTE)
        s->out_elems = ti__stats_add(s->out_elems, bs->out_elems, &sat);
    }
  }
  if (g->n_blocks) qsort(idx, (size_t)g->n_blocks, sizeof *idx, ti__check_idx_cmp);
  /* traffic: what the source interface's box holds, at the source's
     precision; the whole source output when no interface names the edge */
  for (i = 0; i < g->n_edges; i++) {
    const ti_task_edge *e = &g->edges[i];
    int32_t si = ti__check_lookup(idx, g->n_blocks, e->src_block_id), cl, k;
    const ti_task_block *b;
    int64_t elems = -1, box[6];
    ti_task_block_stats tmp;
    char why[192];
    if (pe) pe[i] = 0;
    if (si < 0) continue;
    b = &g->blocks[si];
    for (cl = 0; cl < b->n_outputs && elems < 0; cl++)
      for (k = 0; k < b->outputs[cl].n_interfaces; k++)
        if (b->outputs[cl].interfaces[k].edge_id == e->id) {
          ti_task_shape ext;
          int n;
          if (ti__check_cluster_extent(b, 1, cl, &ext) &&
              (n = ti__check_iface_box(&ext, &b->outputs[cl].interfaces[k], box, why, sizeof why)) >= 0)
            elems = ti__stats_prod(box, n, &sat);
          break;
        }
    if (elems < 0) {
      ti__stats_block(b, &tmp, &sat);
      elems = tmp.out_elems;
    }
    if (ti__check_is_precision(b->precision)) {
      int64_t eb = ti__stats_mul(elems, (int64_t)ti_dtype_size(b->precision), &sat);
      s->edge_bytes = ti__stats_add(s->edge_bytes, eb, &sat);
      if (pe) pe[i] = eb;
    }
  }
  TASKIR_FREE(au, idx);
  if (pb) { s->per_block = pb; s->n_blocks = g->n_blocks; s->per_edge_bytes = pe; }
  if (sat)
    return ti_error_set(err, TI_STATUS_LIMIT, "ti_task_statistics: a count exceeds int64; the totals are clamped");
  return TI_STATUS_SUCCESS;
}

TASKIR_API void ti_task_stats_free(ti_task_stats *s, void *alloc_user) {
  (void)alloc_user;
  if (s->per_block) TASKIR_FREE(alloc_user, s->per_block);
  if (s->per_edge_bytes) TASKIR_FREE(alloc_user, s->per_edge_bytes);
  s->per_block = NULL;
  s->per_edge_bytes = NULL;
  s->n_blocks = 0;
}

#undef TI__D_Y
#undef TI__D_X
#undef TI__D_F
#undef TI__D_R
#undef TI__D_KY
#undef TI__D_KX
#undef TI__D_IY
#undef TI__D_IX
#undef TI__D_NB
#undef TI__D_WIN
#undef TI__BID
#undef TI__BNAME

/* >>impl.nn ---------------------------------------------------------------- */
#ifndef TASKIR_NO_NN

#include <math.h>

struct ti_tensor_storage { int64_t refs; void *alloc_user; };
#define TI__STORAGE_HDR ((sizeof(ti_tensor_storage) + 15u) & ~(size_t)15u)

/* Elements of static dims that fit (ti_type_fits, also with a zero dim). */
static int ti__nn_numel(int32_t rank, const int64_t *dims, int64_t *numel) {
  int64_t n = 1;
  int32_t i;
  if (rank < 0 || rank > TI_MAX_RANK) return 0;
  for (i = 0; i < rank; i++)
    if (!ti__mul64(n, dims[i], &n)) return 0;
  if (!ti_type_fits(TI_DTYPE_I8, rank, dims)) return 0;
  *numel = n;
  return 1;
}

TASKIR_API ti_tensor_value *ti_tensor_create(void *alloc_user, ti_dtype dtype, int32_t rank, const int64_t *dims,
                                             ti_layout layout, const void *data, ti_error *err) {
  ti_error_clear(err);
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
  ti_error_clear(err);
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
  ti_error_clear(err);
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

/* f16 is stored but not computed on. */
static int ti__nn_dtype_ok(ti_dtype t) { return t != TI_DTYPE_F16 && ti_dtype_size(t) != 0; }

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

/* dst (dims sdims permuted) <- src; es bytes per element: the kernels'
   blocked N-d transpose (rank and perm were checked by the caller). */
static void ti__nn_permute_raw(const unsigned char *src, unsigned char *dst, size_t es, int32_t rank,
                            const int64_t *sdims, const int32_t *perm) {
  int p[TI_MAX_RANK], i;
  for (i = 0; i < rank; i++) p[i] = (int)perm[i];
  (void)!ti_transpose(es, (int)rank, sdims, p, src, dst);   /* cannot fail: checked by the caller */
}

TASKIR_API ti_tensor_value *ti_tensor_permute(const ti_tensor_value *t, const int32_t *perm, ti_layout layout,
                                              ti_error *err) {
  ti_error_clear(err);
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
  ti_error_clear(err);
  int32_t perm[4];
  if (!t) {
    ti_error_set(err, TI_STATUS_BAD_PARAM, "tensor to_layout: NULL tensor");
    return NULL;
  }
  if (t->layout == layout || !ti_layout_is_cnn(layout)) return ti_tensor_copy(t, err);
  if (t->rank != 4 || (ti_layout_is_cnn(t->layout) && ti__nn_is_wgt(t->layout) != ti__nn_is_wgt(layout)) ||
      !ti__nn_layout_perm(ti__nn_eff(t->layout, layout), layout, perm)) {
    ti_error_set(err, TI_STATUS_BAD_PARAM, "tensor to_layout: cannot store %s data of rank %d as %s",
                 ti_layout_name(t->layout), (int)t->rank, ti_layout_name(layout));
    return NULL;
  }
  return ti_tensor_permute(t, perm, layout, err);
}

TASKIR_API double ti_tensor_max_diff(const ti_tensor_value *a, const ti_tensor_value *b, ti_error *err) {
  ti_error_clear(err);
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

/* Shape descriptors: the part of a type or tensor that shape rules read. */
typedef struct ti__nn_desc { ti_dtype dtype; ti_layout layout; int32_t rank; int64_t dims[TI_MAX_RANK]; } ti__nn_desc;
typedef ti_status (*ti__nn_shape_fn)(const ti_op *op, const ti__nn_desc *in, int32_t n_in, ti__nn_desc *out,
                                     ti_error *err);
/* Variants of the op kinds that share a shape rule and an eval. */
typedef enum ti__nn_variant {
  TI__NN_PLAIN = 0,
  TI__NN_QUANT,                                          /* quant_conv2d, quant_gemm */
  TI__NN_ADD, TI__NN_SUB, TI__NN_MUL, TI__NN_DIV,        /* binary */
  TI__NN_MAX_POOL, TI__NN_AVG_POOL, TI__NN_IMG2COL,      /* window */
  TI__NN_FLOOR, TI__NN_SIGMOID, TI__NN_TANH, TI__NN_LEAKY_RELU,   /* unary */
  TI__NN_TO_NHWC, TI__NN_TO_NCHW,                        /* nchw2nhwc, nhwc2nchw */
  TI__NN_LAYOUT_ATTR                                     /* reshape: result layout attribute */
} ti__nn_variant;
/* dialect_data of every nn op. */
typedef struct ti__nn_def { ti__nn_shape_fn shape; ti__nn_variant variant; } ti__nn_def;
static ti__nn_variant ti__nn_variant_of(const ti_op *op) { return ((const ti__nn_def *)op->info->dialect_data)->variant; }

#define TI__NN_FAIL(op, ...) ti__nn_fail((op), TI_STATUS_INVALID, __VA_ARGS__)
static ti_status ti__nn_fail(const ti_op *op, ti_status st, ti_error *err, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
#ifdef TASKIR_NO_ERRMSG
#define ti__nn_fail(op, st, err, ...) (TI__NOMSG(__VA_ARGS__), (ti__nn_fail)((op), (st), (err), NULL))
static ti_status (ti__nn_fail)(const ti_op *op, ti_status st, ti_error *err, const char *fmt, ...) {
  (void)op; (void)fmt;
  return (ti_error_set)(err, st, NULL);
}
#else
static ti_status ti__nn_fail(const ti_op *op, ti_status st, ti_error *err, const char *fmt, ...) {
  char msg[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return ti_error_set(err, st, "%s: %s", op && op->info ? op->info->name : "nn op", msg);
}
#endif

/* Reads an int array attribute of exactly n ints (default dflt when absent). */
static ti_status ti__nn_ints(const ti_op *op, const char *name, int64_t *out, int64_t n, const int64_t *dflt,
                             int64_t min, ti_error *err) {
  const ti_attr *a = ti_dict_get(op->attrs, name);
  int64_t i;
  for (i = 0; i < n; i++) out[i] = dflt ? dflt[i] : 0;   /* defined on every path */
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
  *out = dflt;
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

/* The requantisation attributes of quant_conv2d / quant_gemm: shift (0..31;
   absent: the op yields its i32 accumulator) and clip_min (-128..127, default
   -128; only with shift): the i8 result is clamp(acc >> shift, clip_min, 127). */
static ti_status ti__nn_quant_attrs(const ti_op *op, int64_t *shift, int64_t *clip_min, ti_error *err) {
  double sh, lo;
  ti_status st = ti__nn_num(op, "shift", 0, 0, &sh, err);
  if (st == TI_STATUS_SUCCESS) st = ti__nn_num(op, "clip_min", -128, 0, &lo, err);
  if (st != TI_STATUS_SUCCESS) return st;
  if (!(sh >= 0 && sh <= 31) || sh != (double)(int64_t)sh)
    return TI__NN_FAIL(op, err, "shift must be an integer in 0..31, not %g", sh);
  if (!(lo >= -128 && lo <= 127) || lo != (double)(int64_t)lo)
    return TI__NN_FAIL(op, err, "clip_min must be an integer in -128..127, not %g", lo);
  if (ti_dict_get(op->attrs, "clip_min") && !ti_dict_get(op->attrs, "shift"))
    return TI__NN_FAIL(op, err, "clip_min needs shift (without shift the result is the i32 accumulator)");
  *shift = (int64_t)sh;
  *clip_min = (int64_t)lo;
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
/* Output size of a window op along one axis; -1 if dynamic, -2 if empty
   (or an empty window), -3 if the padded input or the window span overflows
   int64. */
static int64_t ti__nn_out_dim(int64_t in, int64_t k, int64_t s, int64_t pb, int64_t pe, int64_t d) {
  int64_t span;
  if (in < 0) return -1;
  if (k < 1 || s < 1 || pb < 0 || pe < 0) return -2;
  if (!ti__mul64(d, k - 1, &span) || span == INT64_MAX ||
      in > INT64_MAX - pb || in + pb > INT64_MAX - pe)
    return -3;
  span += 1;
  if (in + pb + pe < span) return -2;
  return (in + pb + pe - span) / s + 1;
}
#define TI__NN_WINDOW_FAIL(op, err, r1, r2, what) \
  TI__NN_FAIL(op, err, "%s", ((r1) == -3 || (r2) == -3) ? "window sizes overflow int64 (dims, pads, dilations or kernel)" \
                                                        : "the " what " does not fit the padded input")
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
  int64_t oh, ow, ci;
  int quant = ti__nn_variant_of(op) == TI__NN_QUANT;
  int64_t qs, qlo;
  TI__NN_TRY(ti__nn_conv_params(op, &p, 0, err));
  if (quant) TI__NN_TRY(ti__nn_quant_attrs(op, &qs, &qlo, err));
  TI__NN_TRY(ti__nn_need(op, &in[0], 0, 4, err));
  TI__NN_TRY(ti__nn_need(op, &in[1], 1, 4, err));
  ti__nn_act_of(in[0].layout, in[0].dims, &a);
  ti__nn_wgt_of(in[1].layout, in[1].dims, &k);
  if (quant ? (in[0].dtype != TI_DTYPE_I8 || in[1].dtype != TI_DTYPE_I8) : in[0].dtype != in[1].dtype)
    return TI__NN_FAIL(op, err, quant ? "x and w must be i8" : "x and w must have one dtype");
  if (k.o >= 0 && k.o % p.group) return TI__NN_FAIL(op, err, "%lld output channels are not divisible by group %lld",
                                                  (long long)k.o, (long long)p.group);
  ci = -1;
  if (k.i >= 0 && !ti__mul64(k.i, p.group, &ci))
    return TI__NN_FAIL(op, err, "w's I %lld x group %lld overflows int64", (long long)k.i, (long long)p.group);
  if (!ti__nn_dim_eq(a.c, ci))
    return TI__NN_FAIL(op, err, "x has %lld channels, w expects %lld (I %lld x group %lld)", (long long)a.c,
                       (long long)ci, (long long)k.i, (long long)p.group);
  if (n == 3) {
    TI__NN_TRY(ti__nn_need(op, &in[2], 2, 1, err));
    if (!ti__nn_dim_eq(in[2].dims[0], k.o)) return TI__NN_FAIL(op, err, "bias has %lld entries, w has %lld outputs",
                                                             (long long)in[2].dims[0], (long long)k.o);
    if (quant ? in[2].dtype != TI_DTYPE_I32 : in[2].dtype != in[0].dtype)
      return TI__NN_FAIL(op, err, quant ? "bias must be i32" : "bias dtype differs from x");
  }
  oh = k.kh < 0 ? -1 : ti__nn_out_dim(a.h, k.kh, p.s[0], p.p[0], p.p[2], p.d[0]);
  ow = k.kw < 0 ? -1 : ti__nn_out_dim(a.w, k.kw, p.s[1], p.p[1], p.p[3], p.d[1]);
  if (oh < -1 || ow < -1) return TI__NN_WINDOW_FAIL(op, err, oh, ow, "kernel");
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
  int64_t hw[2], i, ci = -1;
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
    for (i = 0; i < 2; i++) {   /* (dy - 1) * stride - pads + dilation * (kernel - 1) + 1 */
      int64_t dy = i ? a.w : a.h, kk = i ? k.kw : k.kh, t1, t2;
      if (dy < 0 || kk < 0) { hw[i] = -1; continue; }
      if (dy < 1 || kk < 1) { hw[i] = 0; continue; }   /* refused below */
      if (!ti__mul64(dy - 1, p.s[i], &t1) || !ti__mul64(p.d[i], kk - 1, &t2) || t1 > INT64_MAX - 1 - t2)
        return TI__NN_FAIL(op, err, "the input size along axis %d overflows int64", (int)i);
      t1 += t2 + 1;
      hw[i] = (p.p[i] >= t1 || p.p[i + 2] >= t1 - p.p[i]) ? 0 : t1 - p.p[i] - p.p[i + 2];   /* 0 is refused below */
    }
  }
  for (i = 0; i < 2; i++) {
    int64_t o = ti__nn_out_dim(hw[i], i ? k.kw : k.kh, p.s[i], p.p[i], p.p[i + 2], p.d[i]);
    if (o == -3) return TI__NN_WINDOW_FAIL(op, err, o, o, "window");
    if (hw[i] != -1 && (hw[i] < 1 || !ti__nn_dim_eq(o, i ? a.w : a.h)))
      return TI__NN_FAIL(op, err, "input size %lld does not give dy's size %lld", (long long)hw[i],
                         (long long)(i ? a.w : a.h));
  }
  out[0].dtype = in[0].dtype;
  out[0].layout = ti__nn_act_out(in[0].layout);
  out[0].rank = 4;
  if (k.i >= 0 && !ti__mul64(k.i, p.group, &ci))
    return TI__NN_FAIL(op, err, "w's I %lld x group %lld overflows int64", (long long)k.i, (long long)p.group);
  ti__nn_act_dims(out[0].layout, a.n, k.i < 0 ? -1 : ci, hw[0], hw[1], out[0].dims);
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_shape_bpw(const ti_op *op, const ti__nn_desc *in, int32_t n, ti__nn_desc *out, ti_error *err) {
  ti__nn_conv_p p;
  ti__nn_act x, dy;
  int64_t oh, ow;
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
  oh = ti__nn_out_dim(x.h, p.k[0], p.s[0], p.p[0], p.p[2], p.d[0]);
  ow = ti__nn_out_dim(x.w, p.k[1], p.s[1], p.p[1], p.p[3], p.d[1]);
  if (oh < -1 || ow < -1) return TI__NN_WINDOW_FAIL(op, err, oh, ow, "kernel");
  if (!ti__nn_dim_eq(oh, dy.h) || !ti__nn_dim_eq(ow, dy.w))
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
  int quant = ti__nn_variant_of(op) == TI__NN_QUANT;
  int64_t qs, qlo;
  TI__NN_TRY(ti__nn_num(op, "trans_a", 0, 0, &ta, err));
  TI__NN_TRY(ti__nn_num(op, "trans_b", 0, 0, &tb, err));
  if (quant) TI__NN_TRY(ti__nn_quant_attrs(op, &qs, &qlo, err));
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
  double lo = 0, hi = 0;
  TI__NN_TRY(ti__nn_num(op, "min", 0, 1, &lo, err));
  TI__NN_TRY(ti__nn_num(op, "max", 0, 1, &hi, err));
  if (!(lo <= hi)) return TI__NN_FAIL(op, err, "min %g exceeds max %g", lo, hi);
  return ti__nn_shape_same(op, in, n, out, err);
}

/* softmax: axis in [-rank, rank). */
static ti_status ti__nn_shape_softmax(const ti_op *op, const ti__nn_desc *in, int32_t n, ti__nn_desc *out, ti_error *err) {
  double ax;
  TI__NN_TRY(ti__nn_num(op, "axis", -1, 0, &ax, err));
  if (ax < -in[0].rank || ax >= in[0].rank || ax != floor(ax))
    return TI__NN_FAIL(op, err, "axis %g outside rank %d", ax, (int)in[0].rank);
  if (ti__nn_is_int(in[0].dtype)) return TI__NN_FAIL(op, err, "softmax needs float data");
  return ti__nn_shape_same(op, in, n, out, err);
}

/* slice: per-axis begin/end/step after numpy/ONNX clamping (storage order). */
static ti_status ti__nn_slice_axes(const ti_op *op, const ti__nn_desc *x, int64_t *beg, int64_t *step, int64_t *len,
                                   ti_error *err) {
  int64_t s[TI_MAX_RANK], e[TI_MAX_RANK], st[TI_MAX_RANK];
  int32_t r = x->rank, i;
  if (ti_dict_ints(op->attrs, "starts", s, TI_MAX_RANK) != r || ti_dict_ints(op->attrs, "ends", e, TI_MAX_RANK) != r)
    return TI__NN_FAIL(op, err, "attributes 'starts' and 'ends' must hold rank (%d) ints", (int)r);
  if (!ti_dict_get(op->attrs, "steps")) for (i = 0; i < r; i++) st[i] = 1;
  else if (ti_dict_ints(op->attrs, "steps", st, TI_MAX_RANK) != r)
    return TI__NN_FAIL(op, err, "attribute 'steps' must hold rank (%d) ints", (int)r);
  for (i = 0; i < r; i++) {
    int64_t d = x->dims[i], b = s[i], en = e[i];
    if (st[i] == 0 || st[i] == INT64_MIN) return TI__NN_FAIL(op, err, "step %d is 0", (int)i);
    if (d < 0) { beg[i] = 0; step[i] = st[i]; len[i] = -1; continue; }
    if (b < 0) b = b < -d ? -1 : b + d;   /* -1 only matters for negative steps (clamped below) */
    if (en < 0) en = en < -d ? -1 : en + d;
    if (st[i] > 0) {
      if (b < 0) b = 0;
      if (b > d) b = d;
      if (en < 0) en = 0;
      if (en > d) en = d;
      len[i] = en > b ? (en - b + st[i] - 1) / st[i] : 0;
    } else {
      if (b < 0) b = -1;
      if (b > d - 1) b = d - 1;
      if (en < -1) en = -1;
      if (en > d - 1) en = d - 1;
      len[i] = b > en ? (b - en + (-st[i]) - 1) / (-st[i]) : 0;
    }
    beg[i] = b;
    step[i] = st[i];
  }
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_shape_slice(const ti_op *op, const ti__nn_desc *in, int32_t n, ti__nn_desc *out, ti_error *err) {
  int64_t b[TI_MAX_RANK], s[TI_MAX_RANK], l[TI_MAX_RANK];
  int32_t i;
  (void)n;
  TI__NN_TRY(ti__nn_slice_axes(op, &in[0], b, s, l, err));
  out[0] = in[0];
  out[0].layout = in[0].rank == 4 ? in[0].layout : TI_LAYOUT_TENSOR;
  for (i = 0; i < in[0].rank; i++) out[0].dims[i] = l[i];
  return TI_STATUS_SUCCESS;
}

/* cast: *dtype names the result dtype ("f32", "i8", ...). */
static ti_status ti__nn_shape_cast(const ti_op *op, const ti__nn_desc *in, int32_t n, ti__nn_desc *out, ti_error *err) {
  const char *name = ti_dict_string(op->attrs, "dtype", NULL);
  int32_t t;
  (void)n;
  for (t = 0; name && t < TI_DTYPE_COUNT; t++)
    if (ti_dtype_name((ti_dtype)t) && strcmp(ti_dtype_name((ti_dtype)t), name) == 0) break;
  if (!name || t == TI_DTYPE_COUNT) return TI__NN_FAIL(op, err, "attribute 'dtype' must name a dtype (\"f32\", \"i8\", ...)");
  out[0] = in[0];
  out[0].dtype = (ti_dtype)t;
  return TI_STATUS_SUCCESS;
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
  if (oh < -1 || ow < -1) return TI__NN_WINDOW_FAIL(op, err, oh, ow, "window");
  out[0] = in[0];
  if (ti__nn_variant_of(op) == TI__NN_IMG2COL) {
    int64_t c = -1, kk;
    if (a.c >= 0 && (!ti__mul64(p.k[0], p.k[1], &kk) || !ti__mul64(a.c, kk, &c)))
      return TI__NN_FAIL(op, err, "channels x kernel size overflows int64");
    ti__nn_act_dims(in[0].layout, a.n, c, oh, ow, out[0].dims);
  } else
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
    else if (!ti__mul64(numel, in[0].dims[i], &numel)) return TI__NN_FAIL(op, err, "too many elements");
  }
  for (i = 0; i < r; i++) {
    const ti_attr *e = a->u.array.items[i];
    if (e->kind != TI_ATTR_INT || e->u.i < -1) return TI__NN_FAIL(op, err, "attribute 'shape' must hold ints >= -1");
    out[0].dims[i] = e->u.i;
    if (e->u.i == -1) {
      if (neg >= 0) return TI__NN_FAIL(op, err, "attribute 'shape' has more than one -1");
      neg = i;
    } else {
      if (!ti__mul64(known, e->u.i, &known)) return TI__NN_FAIL(op, err, "too many elements");
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
    else if (!ti__mul64(*p, in[0].dims[i], p)) return TI__NN_FAIL(op, err, "too many elements");
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
      if (j == pax) {
        if (out[0].dims[j] < 0 || d[j] < 0) out[0].dims[j] = -1;
        else if (out[0].dims[j] > INT64_MAX - d[j]) return TI__NN_FAIL(op, err, "the concatenated dim overflows int64");
        else out[0].dims[j] += d[j];
      }
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
  for (i = 0; i < in[0].rank; i++) {
    if (in[0].dims[i] < 0) { out[0].dims[i] = -1; continue; }
    if (b[i] > INT64_MAX - in[0].dims[i] || e[i] > INT64_MAX - in[0].dims[i] - b[i])
      return TI__NN_FAIL(op, err, "padded dim %d overflows int64", (int)i);
    out[0].dims[i] = in[0].dims[i] + b[i] + e[i];
  }
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_shape_unpool(const ti_op *op, const ti__nn_desc *in, int32_t n, ti__nn_desc *out, ti_error *err) {
  int64_t s[2], oh, ow;
  ti__nn_act a, m;
  TI__NN_TRY(ti__nn_ints(op, "scales", s, 2, ti__nn_two2, 1, err));
  TI__NN_TRY(ti__nn_need(op, &in[0], 0, 4, err));
  ti__nn_act_of(in[0].layout, in[0].dims, &a);
  oh = ow = -1;
  if ((a.h >= 0 && !ti__mul64(a.h, s[0], &oh)) || (a.w >= 0 && !ti__mul64(a.w, s[1], &ow)))
    return TI__NN_FAIL(op, err, "the unpooled size overflows int64");
  out[0] = in[0];
  ti__nn_act_dims(in[0].layout, a.n, a.c, oh, ow, out[0].dims);
  if (n == 2) {
    TI__NN_TRY(ti__nn_need(op, &in[1], 1, 4, err));
    ti__nn_act_of(in[1].layout, in[1].dims, &m);
    if (!ti__nn_dim_eq(m.n, a.n) || !ti__nn_dim_eq(m.c, a.c) || !ti__nn_dim_eq(m.h, oh) || !ti__nn_dim_eq(m.w, ow))
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
static ti_layout ti__nn_cvt_to(const ti_op *op) {
  return ti__nn_variant_of(op) == TI__NN_TO_NCHW ? TI_LAYOUT_NCHW : TI_LAYOUT_NHWC;
}
static ti_layout ti__nn_cvt_from(const ti_op *op) {
  return ti__nn_variant_of(op) == TI__NN_TO_NCHW ? TI_LAYOUT_NHWC : TI_LAYOUT_NCHW;
}
static ti_layout ti__nn_cvt_src(const ti_op *op, ti_layout l) { return ti__nn_is_act(l) ? l : ti__nn_cvt_from(op); }
static ti_status ti__nn_shape_cvt(const ti_op *op, const ti__nn_desc *in, int32_t n, ti__nn_desc *out, ti_error *err) {
  ti__nn_act a;
  (void)n;
  TI__NN_TRY(ti__nn_need(op, &in[0], 0, 4, err));
  ti__nn_act_of(ti__nn_cvt_src(op, in[0].layout), in[0].dims, &a);
  out[0] = in[0];
  out[0].layout = ti__nn_cvt_to(op);
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
    if (!ti__nn_dtype_ok(in[i]->dtype))
      return ti__nn_fail(op, TI_STATUS_NOT_SUPPORTED, err, "the interpreter has no %s arithmetic",
                         ti_dtype_name(in[i]->dtype) ? ti_dtype_name(in[i]->dtype) : "?");
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
/* Stores an accumulator of a quantised op: i8 after shift and clip to
   [lo, 127], else i32 (wraps). */
static void ti__nn_qstore(ti_tensor_value *t, int64_t i, double acc, int64_t shift, int64_t lo) {
  int64_t v = (int64_t)acc;
  if (t->dtype == TI_DTYPE_I8) {
    v = ti__nn_asr(v, shift);
    ((int8_t *)t->data)[i] = (int8_t)(v < lo ? lo : v > 127 ? 127 : v);
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
  int64_t sh = 0, lo = -128;
  int64_t n, o, oh, ow, ci, kh, kw, og;
  int quant = ti__nn_variant_of(op) == TI__NN_QUANT;
  TI__NN_TRY(ti__nn_prep(op, in, out, od, err));
  TI__NN_TRY(ti__nn_conv_params(op, &p, 0, err));
  if (quant) TI__NN_TRY(ti__nn_quant_attrs(op, &sh, &lo, err));
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
          if (quant) ti__nn_qstore(out[0], n * y.sn + o * y.sc + oh * y.sh + ow * y.sw, acc, sh, lo);
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
  double ta, tb, alpha = 1, beta = 1;
  int64_t sh = 0, lo = -128;
  int64_t m, nn, kk, i, j, l, cs[2] = {0, 0};
  const float *af, *bf;
  int quant = ti__nn_variant_of(op) == TI__NN_QUANT;
  TI__NN_TRY(ti__nn_prep(op, in, out, od, err));
  TI__NN_TRY(ti__nn_num(op, "trans_a", 0, 0, &ta, err));
  TI__NN_TRY(ti__nn_num(op, "trans_b", 0, 0, &tb, err));
  if (quant) TI__NN_TRY(ti__nn_quant_attrs(op, &sh, &lo, err));
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
      if (quant) ti__nn_qstore(out[0], i * nn + j, acc, sh, lo);
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
  ti__nn_variant kind = ti__nn_variant_of(op);
  int idiv;
  ti_status st;
  TI__NN_TRY(ti__nn_prep(op, in, out, od, err));
  idiv = ti__nn_is_int(out[0]->dtype);
  st = ti__nn_conform(op, in[0], out[0]->layout, &ta, &a, err);
  if (st == TI_STATUS_SUCCESS) st = ti__nn_conform(op, in[1], out[0]->layout, &tb, &b, err);
  if (st != TI_STATUS_SUCCESS) { ti_tensor_free(ta); return st; }
  r = out[0]->rank;
  ti__nn_bstr(a->dims, a->rank, r, sa);
  ti__nn_bstr(b->dims, b->rank, r, sb);
  for (k = 0; k < out[0]->numel; k++) {
    double x = ti_tensor_get(a, oa), y = ti_tensor_get(b, ob);
    double z = kind == TI__NN_ADD ? x + y : kind == TI__NN_SUB ? x - y : kind == TI__NN_MUL ? x * y : x / y;
    if (kind == TI__NN_DIV && idiv) {   /* integer division truncates; by zero is an error */
      if (y == 0) { ti_tensor_free(ta); ti_tensor_free(tb); return TI__NN_FAIL(op, err, "integer division by zero"); }
      z = z < 0 ? ceil(z) : floor(z);
    }
    ti_tensor_set(out[0], k, z);
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
  double lo = 0, hi = 0;
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
  ti__nn_variant kind = ti__nn_variant_of(op);
  TI__NN_TRY(ti__nn_prep(op, in, out, od, err));
  TI__NN_TRY(ti__nn_conv_params(op, &p, 1, err));
  if (kind == TI__NN_AVG_POOL) TI__NN_TRY(ti__nn_num(op, "count_include_pad", 0, 0, &cip, err));
  ti__nn_act_of(in[0]->layout, in[0]->dims, &a);
  ti__nn_act_of(out[0]->layout, out[0]->dims, &y);
  for (n = 0; n < a.n; n++)
    for (c = 0; c < a.c; c++)
      for (oh = 0; oh < y.h; oh++)
        for (ow = 0; ow < y.w; ow++) {
          double acc = kind == TI__NN_MAX_POOL ? -HUGE_VAL : 0;
          int64_t cnt = 0;
          for (kh = 0; kh < p.k[0]; kh++)
            for (kw = 0; kw < p.k[1]; kw++) {
              int64_t ih = oh * p.s[0] - p.p[0] + kh * p.d[0], iw = ow * p.s[1] - p.p[1] + kw * p.d[1];
              int inside = ih >= 0 && ih < a.h && iw >= 0 && iw < a.w;
              double v = inside ? ti_tensor_get(in[0], n * a.sn + c * a.sc + ih * a.sh + iw * a.sw) : 0;
              if (kind == TI__NN_IMG2COL) {
                int64_t ch = (c * p.k[0] + kh) * p.k[1] + kw;
                ti_tensor_set(out[0], n * y.sn + ch * y.sc + oh * y.sh + ow * y.sw, v);
              } else if (inside) {
                if (kind == TI__NN_MAX_POOL) { if (v > acc || v != v) acc = v; }
                else acc += v;
                cnt++;
              }
            }
          if (kind == TI__NN_IMG2COL) continue;
          if (kind == TI__NN_AVG_POOL) acc /= (cip != 0 ? (double)(p.k[0] * p.k[1]) : (cnt ? (double)cnt : 1.0));
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

/* Element copy between a contiguous side and a strided side, walking dims
   in row-major order: gather (dst contiguous, src at off + strides s) or
   scatter (src contiguous, dst at off + strides s). Broadcast and pad. */
static void ti__nn_strided_copy(unsigned char *dst, const unsigned char *src, size_t es, int32_t rank,
                                const int64_t *dims, const int64_t *s, int64_t off, int gather) {
  int64_t idx[TI_MAX_RANK] = {0}, numel = 1, k;
  int32_t i;
  for (i = 0; i < rank; i++) numel *= dims[i];
  for (k = 0; k < numel; k++) {
    if (gather) memcpy(dst + (size_t)k * es, src + (size_t)off * es, es);
    else memcpy(dst + (size_t)off * es, src + (size_t)k * es, es);
    for (i = rank - 1; i >= 0; i--) {
      off += s[i];
      if (++idx[i] < dims[i]) break;
      off -= s[i] * dims[i];
      idx[i] = 0;
    }
  }
}

static ti_status ti__nn_eval_broadcast(const ti_op *op, const ti_tensor_value *const *in, ti_tensor_value **out, ti_error *err) {
  ti__nn_desc od[2];
  int64_t s[TI_MAX_RANK];
  size_t es = ti_dtype_size(in[0]->dtype);
  TI__NN_TRY(ti__nn_prep(op, in, out, od, err));
  ti__nn_bstr(in[0]->dims, in[0]->rank, out[0]->rank, s);
  ti__nn_strided_copy((unsigned char *)out[0]->data, (const unsigned char *)in[0]->data, es, out[0]->rank,
                      out[0]->dims, s, 0, 1);
  return TI_STATUS_SUCCESS;
}

/* floor, sigmoid, tanh, leaky_relu (alpha=0.01): one value in, one out. */
static ti_status ti__nn_eval_unary(const ti_op *op, const ti_tensor_value *const *in, ti_tensor_value **out, ti_error *err) {
  ti__nn_desc od[2];
  double alpha = 0;
  int64_t i;
  ti__nn_variant kind = ti__nn_variant_of(op);
  TI__NN_TRY(ti__nn_prep(op, in, out, od, err));
  if (kind == TI__NN_LEAKY_RELU) TI__NN_TRY(ti__nn_num(op, "alpha", 0.01, 0, &alpha, err));
  for (i = 0; i < in[0]->numel; i++) {
    double v = ti_tensor_get(in[0], i);
    v = kind == TI__NN_FLOOR ? floor(v) : kind == TI__NN_SIGMOID ? 1.0 / (1.0 + exp(-v)) : kind == TI__NN_TANH ? tanh(v) : (v < 0 ? alpha * v : v);
    ti_tensor_set(out[0], i, v);
  }
  return TI_STATUS_SUCCESS;
}

/* softmax along one axis (storage order): exp(x - max) / sum. */
static ti_status ti__nn_eval_softmax(const ti_op *op, const ti_tensor_value *const *in, ti_tensor_value **out, ti_error *err) {
  ti__nn_desc od[2];
  double ax;
  int64_t outer = 1, inner = 1, len, o, k, j;
  int32_t i, a;
  TI__NN_TRY(ti__nn_prep(op, in, out, od, err));
  TI__NN_TRY(ti__nn_num(op, "axis", -1, 0, &ax, err));
  a = (int32_t)(ax < 0 ? ax + in[0]->rank : ax);
  for (i = 0; i < a; i++) outer *= in[0]->dims[i];
  for (i = a + 1; i < in[0]->rank; i++) inner *= in[0]->dims[i];
  len = in[0]->dims[a];
  for (o = 0; o < outer; o++)
    for (k = 0; k < inner; k++) {
      int64_t base = o * len * inner + k;
      double mx = -HUGE_VAL, sum = 0;
      for (j = 0; j < len; j++) { double v = ti_tensor_get(in[0], base + j * inner); if (v > mx) mx = v; }
      for (j = 0; j < len; j++) sum += exp(ti_tensor_get(in[0], base + j * inner) - mx);
      for (j = 0; j < len; j++) ti_tensor_set(out[0], base + j * inner, exp(ti_tensor_get(in[0], base + j * inner) - mx) / sum);
    }
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_eval_slice(const ti_op *op, const ti_tensor_value *const *in, ti_tensor_value **out, ti_error *err) {
  ti__nn_desc od[2], id;
  int64_t b[TI_MAX_RANK], s[TI_MAX_RANK], l[TI_MAX_RANK], str[TI_MAX_RANK], off = 0;
  int32_t i;
  TI__NN_TRY(ti__nn_prep(op, in, out, od, err));
  ti__nn_desc_of(in[0], &id);
  TI__NN_TRY(ti__nn_slice_axes(op, &id, b, s, l, err));
  if (out[0]->numel == 0) return TI_STATUS_SUCCESS;
  ti__nn_strides(in[0]->rank, in[0]->dims, str);
  for (i = 0; i < in[0]->rank; i++) { off += b[i] * str[i]; str[i] *= s[i]; }
  ti__nn_strided_copy((unsigned char *)out[0]->data, (const unsigned char *)in[0]->data, ti_dtype_size(in[0]->dtype),
                      in[0]->rank, out[0]->dims, str, off, 1);
  return TI_STATUS_SUCCESS;
}

static ti_status ti__nn_eval_cast(const ti_op *op, const ti_tensor_value *const *in, ti_tensor_value **out, ti_error *err) {
  ti__nn_desc od[2];
  int64_t i;
  TI__NN_TRY(ti__nn_prep(op, in, out, od, err));
  for (i = 0; i < in[0]->numel; i++) {
    double v = ti_tensor_get(in[0], i);
    if (ti__nn_is_int(out[0]->dtype)) v = v != v ? 0 : v < 0 ? ceil(v) : floor(v);   /* towards zero */
    ti_tensor_set(out[0], i, v);
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
  int64_t b[TI_MAX_RANK], e[TI_MAX_RANK], os[TI_MAX_RANK], off = 0, k;
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
  ti__nn_strided_copy((unsigned char *)out[0]->data, (const unsigned char *)in[0]->data, es, r, in[0]->dims, os, off, 0);
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
  memset(&m, 0, sizeof m);
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
  if (ls && ti__nn_variant_of(op) == TI__NN_LAYOUT_ATTR) {
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
  out[0] = ti__nn_cvt_to(op);
  return TI_STATUS_SUCCESS;
}
static int ti__nn_lb_cvt(const ti_op *op, const ti_layout *res, ti_layout *in) {
  (void)res;
  in[0] = ti__nn_cvt_from(op);
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
    if (!ti_type_fits(out[r].dtype, out[r].rank, out[r].dims))
      return TI__NN_FAIL(op, err, "result %d is too large: its size in bytes overflows int64", (int)r);
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
  ti_tensor_value *in[64] = {NULL}, *out[2] = {NULL, NULL};
  ti_eval_fn ev = ti_eval_of(op->info);
  int32_t i, n = op->n_operands, ok = 1;
  if (!ev || n > 64 || op->n_results > 2) return 0;
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

static const ti__nn_def ti__nn_d_conv = {ti__nn_shape_conv, TI__NN_PLAIN}, ti__nn_d_qconv = {ti__nn_shape_conv, TI__NN_QUANT},
    ti__nn_d_bpa = {ti__nn_shape_bpa, TI__NN_PLAIN}, ti__nn_d_bpw = {ti__nn_shape_bpw, TI__NN_PLAIN},
    ti__nn_d_gemm = {ti__nn_shape_gemm, TI__NN_PLAIN}, ti__nn_d_qgemm = {ti__nn_shape_gemm, TI__NN_QUANT},
    ti__nn_d_matmul = {ti__nn_shape_matmul, TI__NN_PLAIN}, ti__nn_d_add = {ti__nn_shape_binary, TI__NN_ADD},
    ti__nn_d_sub = {ti__nn_shape_binary, TI__NN_SUB}, ti__nn_d_mul = {ti__nn_shape_binary, TI__NN_MUL},
    ti__nn_d_div = {ti__nn_shape_binary, TI__NN_DIV}, ti__nn_d_same = {ti__nn_shape_same, TI__NN_PLAIN},
    ti__nn_d_floor = {ti__nn_shape_same, TI__NN_FLOOR}, ti__nn_d_sigmoid = {ti__nn_shape_same, TI__NN_SIGMOID},
    ti__nn_d_tanh = {ti__nn_shape_same, TI__NN_TANH}, ti__nn_d_leaky_relu = {ti__nn_shape_same, TI__NN_LEAKY_RELU},
    ti__nn_d_clip = {ti__nn_shape_clip, TI__NN_PLAIN}, ti__nn_d_max_pool = {ti__nn_shape_pool, TI__NN_MAX_POOL},
    ti__nn_d_avg_pool = {ti__nn_shape_pool, TI__NN_AVG_POOL}, ti__nn_d_img2col = {ti__nn_shape_pool, TI__NN_IMG2COL},
    ti__nn_d_gap = {ti__nn_shape_gap, TI__NN_PLAIN}, ti__nn_d_reshape = {ti__nn_shape_reshape, TI__NN_LAYOUT_ATTR},
    ti__nn_d_flatten = {ti__nn_shape_flatten, TI__NN_PLAIN}, ti__nn_d_broadcast = {ti__nn_shape_broadcast, TI__NN_PLAIN},
    ti__nn_d_transpose = {ti__nn_shape_transpose, TI__NN_PLAIN}, ti__nn_d_concat = {ti__nn_shape_concat, TI__NN_PLAIN},
    ti__nn_d_pad = {ti__nn_shape_pad, TI__NN_PLAIN}, ti__nn_d_unpool = {ti__nn_shape_unpool, TI__NN_PLAIN},
    ti__nn_d_mirror = {ti__nn_shape_mirror, TI__NN_PLAIN}, ti__nn_d_rotate = {ti__nn_shape_rotate, TI__NN_PLAIN},
    ti__nn_d_nchw2nhwc = {ti__nn_shape_cvt, TI__NN_TO_NHWC}, ti__nn_d_nhwc2nchw = {ti__nn_shape_cvt, TI__NN_TO_NCHW},
    ti__nn_d_tnorm = {ti__nn_shape_tnorm, TI__NN_PLAIN}, ti__nn_d_bilinear = {ti__nn_shape_bilinear, TI__NN_PLAIN},
    ti__nn_d_tin = {ti__nn_shape_tin, TI__NN_PLAIN}, ti__nn_d_lif = {ti__nn_shape_lif, TI__NN_PLAIN},
    ti__nn_d_lut = {ti__nn_shape_lut, TI__NN_PLAIN}, ti__nn_d_softmax = {ti__nn_shape_softmax, TI__NN_PLAIN},
    ti__nn_d_slice = {ti__nn_shape_slice, TI__NN_PLAIN}, ti__nn_d_cast = {ti__nn_shape_cast, TI__NN_PLAIN};

static const char *const ti__nn_req_kernel[] = {"kernel_shape", NULL};
static const char *const ti__nn_req_minmax[] = {"min", "max", NULL};
static const char *const ti__nn_req_shape[] = {"shape", NULL};
static const char *const ti__nn_req_perm[] = {"perm", NULL};
static const char *const ti__nn_req_axis[] = {"axis", NULL};
static const char *const ti__nn_req_pads[] = {"pads", NULL};
static const char *const ti__nn_req_size[] = {"size", NULL};
static const char *const ti__nn_req_slice[] = {"starts", "ends", NULL};
static const char *const ti__nn_req_dtype[] = {"dtype", NULL};

#define TI__NN_OP(name, req, traits, mn, mx, nr, lay, fold, eval, def) \
  {"nn." name, "nn", req, traits, mn, mx, nr, ti__nn_verify, ti__nn_infer, lay, fold, eval, def}
static const ti_op_info ti__nn_ops[] = {
  TI__NN_OP("conv2d", NULL, TI__NN_VSD, 2, 3, 1, &ti__nn_l_conv, ti__nn_fold, ti__nn_eval_conv, &ti__nn_d_conv),
  TI__NN_OP("quant_conv2d", NULL, TI__NN_VSD, 2, 3, 1, &ti__nn_l_conv, ti__nn_fold, ti__nn_eval_conv, &ti__nn_d_qconv),
  TI__NN_OP("conv2d_backprop_input", NULL, TI__NN_VSD, 2, 2, 1, &ti__nn_l_conv, ti__nn_fold, ti__nn_eval_bpa, &ti__nn_d_bpa),
  TI__NN_OP("conv2d_backprop_filter", ti__nn_req_kernel, TI__NN_VSD, 2, 2, 1, &ti__nn_l_bpw, ti__nn_fold, ti__nn_eval_bpw, &ti__nn_d_bpw),
  TI__NN_OP("gemm", NULL, TI__NN_VS, 2, 3, 1, &ti__nn_l_gemm, ti__nn_fold, ti__nn_eval_gemm, &ti__nn_d_gemm),
  TI__NN_OP("quant_gemm", NULL, TI__NN_VS, 2, 3, 1, &ti__nn_l_gemm, ti__nn_fold, ti__nn_eval_gemm, &ti__nn_d_qgemm),
  TI__NN_OP("matmul", NULL, TI__NN_VS, 2, 2, 1, &ti__nn_l_gemm, ti__nn_fold, ti__nn_eval_matmul, &ti__nn_d_matmul),
  TI__NN_OP("add", NULL, TI__NN_COMM, 2, 2, 1, &ti__nn_l_join, ti__nn_fold, ti__nn_eval_binary, &ti__nn_d_add),
  TI__NN_OP("sub", NULL, TI__NN_VS, 2, 2, 1, &ti__nn_l_join, ti__nn_fold, ti__nn_eval_binary, &ti__nn_d_sub),
  TI__NN_OP("mul", NULL, TI__NN_COMM, 2, 2, 1, &ti__nn_l_join, ti__nn_fold, ti__nn_eval_binary, &ti__nn_d_mul),
  TI__NN_OP("relu", NULL, TI__NN_VS, 1, 1, 1, &ti__nn_l_same, ti__nn_fold, ti__nn_eval_relu, &ti__nn_d_same),
  TI__NN_OP("relu_", NULL, TI_TRAIT_INPLACE, 1, 1, 1, &ti__nn_l_same, NULL, ti__nn_eval_relu_, &ti__nn_d_same),
  TI__NN_OP("clip", ti__nn_req_minmax, TI__NN_VS, 1, 1, 1, &ti__nn_l_same, ti__nn_fold, ti__nn_eval_clip, &ti__nn_d_clip),
  TI__NN_OP("max_pool", ti__nn_req_kernel, TI__NN_VS, 1, 1, 1, &ti__nn_l_same, ti__nn_fold, ti__nn_eval_window, &ti__nn_d_max_pool),
  TI__NN_OP("avg_pool", ti__nn_req_kernel, TI__NN_VS, 1, 1, 1, &ti__nn_l_same, ti__nn_fold, ti__nn_eval_window, &ti__nn_d_avg_pool),
  TI__NN_OP("global_avg_pool", NULL, TI__NN_VS, 1, 1, 1, &ti__nn_l_same, ti__nn_fold, ti__nn_eval_gap, &ti__nn_d_gap),
  TI__NN_OP("reshape", ti__nn_req_shape, TI__NN_VIEW, 1, 1, 1, &ti__nn_l_view, ti__nn_fold, ti__nn_eval_view, &ti__nn_d_reshape),
  TI__NN_OP("flatten", NULL, TI__NN_VIEW, 1, 1, 1, &ti__nn_l_view, ti__nn_fold, ti__nn_eval_view, &ti__nn_d_flatten),
  TI__NN_OP("broadcast", ti__nn_req_shape, TI__NN_VS, 1, 1, 1, &ti__nn_l_view, ti__nn_fold, ti__nn_eval_broadcast, &ti__nn_d_broadcast),
  TI__NN_OP("transpose", ti__nn_req_perm, TI__NN_VIEW, 1, 1, 1, &ti__nn_l_transpose, ti__nn_fold, ti__nn_eval_transpose, &ti__nn_d_transpose),
  TI__NN_OP("concat", ti__nn_req_axis, TI__NN_VSD, 1, -1, 1, &ti__nn_l_join, ti__nn_fold, ti__nn_eval_concat, &ti__nn_d_concat),
  TI__NN_OP("pad", ti__nn_req_pads, TI__NN_VSD, 1, 1, 1, &ti__nn_l_same, ti__nn_fold, ti__nn_eval_pad, &ti__nn_d_pad),
  TI__NN_OP("img2col", ti__nn_req_kernel, TI__NN_VSD, 1, 1, 1, &ti__nn_l_same, ti__nn_fold, ti__nn_eval_window, &ti__nn_d_img2col),
  TI__NN_OP("unpool", NULL, TI__NN_VSD, 1, 1, 1, &ti__nn_l_same, ti__nn_fold, ti__nn_eval_unpool, &ti__nn_d_unpool),
  TI__NN_OP("maskunpool", NULL, TI__NN_VSD, 2, 2, 1, &ti__nn_l_same, ti__nn_fold, ti__nn_eval_unpool, &ti__nn_d_unpool),
  TI__NN_OP("mirror", NULL, TI__NN_VSD, 1, 1, 1, &ti__nn_l_same, ti__nn_fold, ti__nn_eval_mirror, &ti__nn_d_mirror),
  TI__NN_OP("rotate", NULL, TI__NN_VSD, 1, 1, 1, &ti__nn_l_same, ti__nn_fold, ti__nn_eval_rotate, &ti__nn_d_rotate),
  TI__NN_OP("nchw2nhwc", NULL, TI__NN_VSD, 1, 1, 1, &ti__nn_l_cvt, ti__nn_fold, ti__nn_eval_cvt, &ti__nn_d_nchw2nhwc),
  TI__NN_OP("nhwc2nchw", NULL, TI__NN_VSD, 1, 1, 1, &ti__nn_l_cvt, ti__nn_fold, ti__nn_eval_cvt, &ti__nn_d_nhwc2nchw),
  TI__NN_OP("tensornorm", NULL, TI__NN_VSD, 1, 3, 1, &ti__nn_l_same, ti__nn_fold, ti__nn_eval_tnorm, &ti__nn_d_tnorm),
  TI__NN_OP("bilinear", ti__nn_req_size, TI__NN_VSD, 1, 1, 1, &ti__nn_l_same, ti__nn_fold, ti__nn_eval_bilinear, &ti__nn_d_bilinear),
  TI__NN_OP("tin_shift", NULL, TI__NN_VS, 2, 2, 1, &ti__nn_l_same, ti__nn_fold, ti__nn_eval_tin, &ti__nn_d_tin),
  TI__NN_OP("lif", NULL, TI__NN_VS, 2, 2, 2, &ti__nn_l_same, ti__nn_fold, ti__nn_eval_lif, &ti__nn_d_lif),
  TI__NN_OP("lut", NULL, TI__NN_VS, 2, 2, 1, &ti__nn_l_same, ti__nn_fold, ti__nn_eval_lut, &ti__nn_d_lut),
  TI__NN_OP("div", NULL, TI__NN_VS, 2, 2, 1, &ti__nn_l_join, ti__nn_fold, ti__nn_eval_binary, &ti__nn_d_div),
  TI__NN_OP("floor", NULL, TI__NN_VS, 1, 1, 1, &ti__nn_l_same, ti__nn_fold, ti__nn_eval_unary, &ti__nn_d_floor),
  TI__NN_OP("sigmoid", NULL, TI__NN_VS, 1, 1, 1, &ti__nn_l_same, ti__nn_fold, ti__nn_eval_unary, &ti__nn_d_sigmoid),
  TI__NN_OP("tanh", NULL, TI__NN_VS, 1, 1, 1, &ti__nn_l_same, ti__nn_fold, ti__nn_eval_unary, &ti__nn_d_tanh),
  TI__NN_OP("leaky_relu", NULL, TI__NN_VS, 1, 1, 1, &ti__nn_l_same, ti__nn_fold, ti__nn_eval_unary, &ti__nn_d_leaky_relu),
  TI__NN_OP("softmax", NULL, TI__NN_VS, 1, 1, 1, &ti__nn_l_view, ti__nn_fold, ti__nn_eval_softmax, &ti__nn_d_softmax),
  TI__NN_OP("slice", ti__nn_req_slice, TI__NN_VS, 1, 1, 1, &ti__nn_l_view, ti__nn_fold, ti__nn_eval_slice, &ti__nn_d_slice),
  TI__NN_OP("cast", ti__nn_req_dtype, TI__NN_VS, 1, 1, 1, &ti__nn_l_same, ti__nn_fold, ti__nn_eval_cast, &ti__nn_d_cast)
};
#undef TI__NN_OP

TASKIR_API ti_status ti_nn_register(ti_context *ctx, ti_error *err) {
  ti_error_clear(err);
  const ti_op_info *have;
  if (!ctx) return ti_error_set(err, TI_STATUS_BAD_PARAM, "ti_nn_register: NULL context");
  have = ti_lookup_op(ctx, ti__nn_ops[0].name);
  if (have == &ti__nn_ops[0]) return TI_STATUS_SUCCESS;
  return ti_register_ops(ctx, ti__nn_ops, (int32_t)(sizeof ti__nn_ops / sizeof *ti__nn_ops), err);
}

/* ---- builtin evals and the interpreter ---- */

static ti_status ti__builtin_eval_get_parameter(const ti_op *op, const ti_tensor_value *const *operands,
                                                ti_tensor_value **results, ti_error *err) {
  ti_error_clear(err);
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

static ti_status ti__builtin_eval_set_parameter(const ti_op *op, const ti_tensor_value *const *operands,
                                                ti_tensor_value **results, ti_error *err) {
  ti_error_clear(err);
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
static ti_status ti__builtin_eval_to_tensor(const ti_op *op, const ti_tensor_value *const *operands,
                                            ti_tensor_value **results, ti_error *err) {
  ti_error_clear(err);
  if (op->n_operands < 1 || !operands[0]) return ti_error_set(err, TI_STATUS_INVALID, "%s: no operand", op->info->name);
  results[0] = ti_tensor_copy(operands[0], err);
  return results[0] ? TI_STATUS_SUCCESS : (err ? err->status : TI_STATUS_NO_MEMORY);
}
static ti_status ti__builtin_eval_to_vtensor(const ti_op *op, const ti_tensor_value *const *operands,
                                             ti_tensor_value **results, ti_error *err) {
  ti_error_clear(err);
  return ti__builtin_eval_to_tensor(op, operands, results, err);
}

static ti_status ti__builtin_eval_constant(const ti_op *op, const ti_tensor_value *const *operands,
                                           ti_tensor_value **results, ti_error *err) {
  ti_error_clear(err);
  const ti_attr *a = ti_op_attr(op, "value");
  (void)operands;
  if (op->n_results < 1) return ti_error_set(err, TI_STATUS_INVALID, "builtin.constant: no result");
  results[0] = ti__nn_tensor_from_attr(ti__nn_au(op), op->results[0].type, a, err);
  return results[0] ? TI_STATUS_SUCCESS : (err ? err->status : TI_STATUS_BAD_PARAM);
}

static ti_status ti__builtin_eval_return(const ti_op *op, const ti_tensor_value *const *operands,
                                         ti_tensor_value **results, ti_error *err) {
  ti_error_clear(err);
  (void)op; (void)operands; (void)results; (void)err;
  return TI_STATUS_SUCCESS;   /* the interpreter collects return's operands */
}

TASKIR_API ti_eval_fn ti_eval_of(const ti_op_info *info) { return info ? info->eval : NULL; }

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
  ti__ptrmap base;       /* op -> first slot of its results */
} ti__nn_interp;

static void ti__nn_interp_free(ti__nn_interp *s) {
  int64_t i;
  for (i = 0; s->vals && i < s->n_slots; i++) ti_tensor_free(s->vals[i]);
  if (s->vals) TASKIR_FREE(s->au, s->vals);
  if (s->last) TASKIR_FREE(s->au, s->last);
  ti__ptrmap_free(&s->base);
}
static int64_t ti__nn_slot(const ti_program *p, const ti__nn_interp *s, const ti_value *v) {
  if (!v) return -1;
  if (!v->def) return v->index >= 0 && v->index < p->n_args && p->args[v->index] == v ? v->index : -1;
  {
    int64_t b = ti__ptrmap_get(&s->base, v->def, -1);
    return b < 0 || v->index < 0 || v->index >= v->def->n_results ? -1 : b + v->index;
  }
}

TASKIR_API ti_status ti_interpret(const ti_program *p, const ti_tensor_value *const *inputs, int32_t n_inputs,
                                  ti_tensor_value **outputs, int32_t *n_outputs, ti_error *err) {
  ti_error_clear(err);
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
  if (!s.vals || !s.last || !ti__ptrmap_init(&s.base, n_ops, s.au)) {
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
    ti__ptrmap_put(&s.base, op, slots);
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
    int64_t b = ti__ptrmap_get(&s.base, op, 0);
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
#endif /* TASKIR_NO_NN */

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
