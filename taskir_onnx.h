/* taskir_onnx.h - v0.1.0 - ONNX models to nn programs.

   Part of taskir (header-only C99, stb style). Builds one SSA program of the
   `nn` dialect (taskir.h >>nn) from an onnx.ModelProto decoded by
   taskir_proto.h (>>proto.onnx): graph inputs that are not initializers
   become the program's arguments, graph outputs the builtin.return operands
   (ONNX order), initializers and Constant nodes the weights table
   (builtin.get_parameter). Every value gets a static shape from the nn ops'
   infer_shape; a symbolic dim must be bound (ti_onnx_options.dims).
   The lowering of nn programs to Task IR is not here.
   quantize-recognize (>>onnx.quantize) turns integer models exported as
   float (Clip/Div 2^k/Floor/Clip requantisation after each Conv/Gemm) into
   quant_conv2d / quant_gemm programs, or says why a model stays float.

   DO THIS in *one* C or C++ file:
       #define TASKIR_IMPLEMENTATION
       #include "taskir_onnx.h"      (also implements taskir.h, taskir_proto.h)

   EXAMPLE
       ti_onnx_dim_binding dims[1] = {{"N", 1}};
       ti_onnx_options opt = {dims, 1, 0, NULL, 0};
       ti_program *p;
       ti_nn_register(ctx, &err);
       if (ti_onnx_import(ctx, bytes, len, &opt, &p, &err) != TI_STATUS_SUCCESS)
         fprintf(stderr, "%s\n", err.message);
         // unsupported: node 'Resize_12' op Resize mode=cubic (opset 13)

   OPERATORS (domain "" / ai.onnx, opsets 6-17; 2-D spatial ops on 4-D NCHW)
       Conv (group, dilations, auto_pad), ConvTranspose -> conv2d_backprop_input
       (+ add for B), Gemm, MatMul (1-D operands and batch broadcasting through
       reshape/broadcast), Add, Sub, Mul, Div, Floor, Relu, LeakyRelu, Clip
       (attribute and input forms), Sigmoid, Tanh, Softmax (opset < 13: the
       2-D coercion through reshape), MaxPool (dilations, ceil_mode, auto_pad),
       AveragePool (count_include_pad, ceil_mode when no window reaches past
       the padding with count_include_pad=1), GlobalAveragePool,
       BatchNormalization (inference: folded into mul + add with weights
       scale/sqrt(var+eps) and B-mean*scale), Flatten, Reshape, Squeeze,
       Unsqueeze (-> reshape), Transpose, Concat, Split (-> slices), Slice,
       Pad (constant mode), Identity, Dropout (inference: identity),
       Constant, Resize/Upsample (nearest, integer H/W scales, coordinate
       modes that give exact nearest up-sampling -> unpool), Cast (to f32,
       f64, i8, u8, i16, u16, i32, u32, i64, bool).
       Anything else, and any attribute value outside what is mapped, is
       TI_STATUS_NOT_SUPPORTED with "unsupported: node 'NAME' op TYPE what
       (opset N)" and err->offset at the node: never a wrong program.

   LICENSE: MIT, see the end of taskir.h.
*/
#ifndef TASKIR_ONNX_H
#define TASKIR_ONNX_H

/* The taskir version; every header defines the same (the first one included
   wins; tests/cli_version.sh checks that they agree). */
#ifndef TASKIR_VERSION_MAJOR
#define TASKIR_VERSION_MAJOR 0
#define TASKIR_VERSION_MINOR 1
#define TASKIR_VERSION_PATCH 0
#define TASKIR_VERSION_STRING "0.1.0"
#endif

#include "taskir_proto.h"
#ifdef TASKIR_NO_NN
#error "taskir_onnx.h needs the nn dialect (ONNX models become nn programs): do not define TASKIR_NO_NN"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* >>onnx.import ------------------------------------------------------------ */

typedef struct ti_onnx_dim_binding { const char *name; int64_t value; } ti_onnx_dim_binding;

typedef struct ti_onnx_options {
  const ti_onnx_dim_binding *dims;   /* values of symbolic dims (dim_param) */
  int32_t n_dims;
  /* 1: weights whose bytes sit in the input buffer as stored (raw_data on a
     little-endian host) are referenced, not copied: the caller keeps the
     buffer alive and unchanged as long as the program. 0: copied. */
  int reference_weights;
  /* Graph inputs bound to constant data (by tensor name): they become
     weights instead of arguments, so ops that need constant operands
     (Reshape's shape, Slice's starts, Clip's min, ...) can use them. */
  const ti_onnx_tensor *constants;
  int32_t n_constants;
} ti_onnx_options;

/* Decodes and imports bytes[len]; opt may be NULL. ctx must have the nn
   dialect registered (ti_nn_register). *program is a new verified SSA
   program (destroy with ti_program_destroy), NULL on failure. */
TASKIR_API TI_NODISCARD ti_status ti_onnx_import(ti_context *ctx, const void *bytes, size_t len, const ti_onnx_options *opt,
                                    ti_program **program, ti_error *err);
/* The same from a decoded model (which must stay alive if weights are
   referenced). */
TASKIR_API TI_NODISCARD ti_status ti_onnx_import_model(ti_context *ctx, const ti_onnx_model *m, const ti_onnx_options *opt,
                                          ti_program **program, ti_error *err);
/* taskir dtype of an ONNX data type; 0 when there is none (f16, strings). */
TASKIR_API int ti_onnx_to_dtype(int32_t onnx_type, ti_dtype *out);
/* A decoded TensorProto as an interpreter tensor (data copied, layout ANY). */
TASKIR_API ti_tensor_value *ti_onnx_tensor_value(const ti_onnx_tensor *t, void *alloc_user, ti_error *err);

/* >>onnx.quantize ---------------------------------------------------------- */

/* quantize-recognize: integer (quantised) models exported as float. After a
   conv2d or gemm (or matmul [+ add of a constant bias]: 2-D, [B..,M,K] x
   [K,N], or [1..,M,K] x [1..,K,N]; with batch dims the rows become one
   [rows, K] matrix, reshape -> quant_gemm -> reshape, the weight stored
   2-D; a weight with batch dims > 1 stays float) whose weights are
   integers in -128..127 and whose bias holds integers in the i32 range, the
   export pattern
       clip(-2^31, 2^31) -> div(constant 2^k) -> floor -> clip(-128, 127)
       [-> relu | clip(0, 127)]
   becomes quant_conv2d / quant_gemm (i8 weights, i32 bias in the weights
   table, shift=k, clip_min -128 or 0 with the relu); a layer whose
   clip(-2^31, 2^31) result is only returned becomes the quant op without
   shift (the i32 accumulator). Between layers, max_pool, reshape, flatten,
   transpose, broadcast, concat (of integer values), avg_pool / global_avg_pool
   followed by floor (on values a relu made non-negative, so the mean's
   truncation is its floor) and add followed by clip(-128, 127) are retyped
   to the integer dtype (the floor and the clip dropped: i8 arithmetic
   saturates). f32 program arguments become i8: the inputs must then be
   integers in -128..127. All or nothing: one mismatch anywhere (a weight
   not integral or out of range, a divisor not a power of two, another
   clip bound, an op outside the list above, a float result) leaves the
   program unchanged, and the report says why, naming the first offending
   tensor. On integer inputs the interpreter gives the same results before
   and after, as long as the float model computes exactly (every
   accumulator below 2^24 in magnitude, f32's integer range). */
typedef struct ti_quant_report {
  int32_t n_layers;       /* layers rewritten (or, from ti_quantize_analyze, that would be) */
  int32_t n_args;         /* arguments retyped f32 -> i8 */
  char tensor[128];       /* the first offending tensor (weight name, or op and index), "" if none */
  char reason[256];       /* why the program stays float; "" when it was quantised */
} ti_quant_report;

/* Checks without changing p; report filled (n_layers 0 and a reason when p
   would stay float). Fails only on misuse or out of memory. */
TASKIR_API TI_NODISCARD ti_status ti_quantize_analyze(ti_program *p, ti_quant_report *report, ti_error *err);
/* Analyses and, when every layer matches, rewrites p. A program that stays
   float is not an error: report->reason says why. report may be NULL. */
TASKIR_API TI_NODISCARD ti_status ti_quantize_recognize(ti_program *p, ti_quant_report *report, ti_error *err);
/* The same as a ti_pass_fn named "quantize-recognize" (user: a
   ti_quant_report * to fill, or NULL). */
TASKIR_API TI_NODISCARD ti_status ti_pass_quantize_recognize(ti_program *p, void *user, ti_error *err);
/* The passes of this header ("quantize-recognize"), by name. */
TASKIR_API const ti_pass *ti_onnx_passes(int32_t *n);
/* ti_pass_manager_add_named that also knows this header's passes:
   "quantize-recognize,dce". */
TASKIR_API TI_NODISCARD ti_status ti_onnx_pass_manager_add_named(ti_pass_manager *pm, const char *names, ti_error *err);

#ifdef __cplusplus
}
#endif
#endif /* TASKIR_ONNX_H */

/* ======================================================================== */
#if defined(TASKIR_IMPLEMENTATION) && !defined(TASKIR_ONNX_IMPL_INCLUDED)
#define TASKIR_ONNX_IMPL_INCLUDED

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* >>impl.onnx.import ------------------------------------------------------- */

TASKIR_API int ti_onnx_to_dtype(int32_t t, ti_dtype *out) {
  switch (t) {
  case TI_ONNX_FLOAT: *out = TI_DTYPE_F32; return 1;
  case TI_ONNX_DOUBLE: *out = TI_DTYPE_F64; return 1;
  case TI_ONNX_INT8: *out = TI_DTYPE_I8; return 1;
  case TI_ONNX_UINT8: *out = TI_DTYPE_U8; return 1;
  case TI_ONNX_INT16: *out = TI_DTYPE_I16; return 1;
  case TI_ONNX_UINT16: *out = TI_DTYPE_U16; return 1;
  case TI_ONNX_INT32: *out = TI_DTYPE_I32; return 1;
  case TI_ONNX_UINT32: *out = TI_DTYPE_U32; return 1;
  case TI_ONNX_INT64: *out = TI_DTYPE_I64; return 1;
  case TI_ONNX_BOOL: *out = TI_DTYPE_BOOL; return 1;
  default: return 0;
  }
}

TASKIR_API ti_tensor_value *ti_onnx_tensor_value(const ti_onnx_tensor *t, void *alloc_user, ti_error *err) {
  ti_dtype dt;
  if (!t || !ti_onnx_to_dtype(t->data_type, &dt)) {
    ti_error_set(err, TI_STATUS_NOT_SUPPORTED, "tensor '%s': data type %ld has no taskir dtype", t ? t->name : "?",
                 t ? (long)t->data_type : 0L);
    return NULL;
  }
  if (t->numel && (!t->data || t->bytes != (size_t)t->numel * ti_dtype_size(dt))) {
    ti_error_set(err, TI_STATUS_INVALID, "tensor '%s' carries no data for its %lld elements", t->name, (long long)t->numel);
    return NULL;
  }
  return ti_tensor_create(alloc_user, dt, t->rank, t->dims, TI_LAYOUT_ANY, t->numel ? t->data : NULL, err);
}

/* One name of the graph: its value, or constant data not yet materialised. */
typedef struct ti__oi_ent {
  const char *name;
  ti_value *v;
  const ti_onnx_tensor *k;
} ti__oi_ent;

typedef struct ti__oi {
  ti_context *ctx;
  ti_program *p;
  ti_builder b;
  const ti_onnx_model *m;
  const ti_onnx_options *opt;
  const ti_onnx_node *nd;
  int64_t opset;
  ti_error *err;
  ti_arena tmp;                 /* constants built from attributes */
  ti__oi_ent *ents;
  size_t cap, n;                /* open addressing, cap a power of two */
} ti__oi;

static uint32_t ti__oi_hash(const char *s) {
  uint32_t h = 2166136261u;
  while (*s) { h ^= (unsigned char)*s++; h *= 16777619u; }
  return h;
}

static ti__oi_ent *ti__oi_find(ti__oi *s, const char *name) {
  size_t i;
  if (!s->cap) return NULL;
  for (i = ti__oi_hash(name) & (s->cap - 1); s->ents[i].name; i = (i + 1) & (s->cap - 1))
    if (strcmp(s->ents[i].name, name) == 0) return &s->ents[i];
  return NULL;
}

/* The entry for name, created empty if absent; NULL when out of memory. */
static ti__oi_ent *ti__oi_slot(ti__oi *s, const char *name) {
  size_t i;
  ti__oi_ent *e = ti__oi_find(s, name);
  if (e) return e;
  if ((s->n + 1) * 2 > s->cap) {
    size_t nc = s->cap ? s->cap * 2 : 64, j;
    ti__oi_ent *ne = (ti__oi_ent *)ti_arena_array(&s->tmp, nc, sizeof *ne, 16);
    if (!ne) return NULL;
    for (j = 0; j < s->cap; j++)
      if (s->ents[j].name) {
        for (i = ti__oi_hash(s->ents[j].name) & (nc - 1); ne[i].name; i = (i + 1) & (nc - 1)) {}
        ne[i] = s->ents[j];
      }
    s->ents = ne;
    s->cap = nc;
  }
  for (i = ti__oi_hash(name) & (s->cap - 1); s->ents[i].name; i = (i + 1) & (s->cap - 1)) {}
  s->ents[i].name = name;
  s->n++;
  return &s->ents[i];
}

static ti_status ti__oi_failv(ti__oi *s, ti_status st, const char *fmt, va_list ap) {
  if (s->err && s->err->status == TI_STATUS_SUCCESS) {
#ifdef TASKIR_NO_ERRMSG
    (void)fmt; (void)ap;
    (ti_error_set)(s->err, st, NULL);
#else
    char what[160];
    vsnprintf(what, sizeof what, fmt, ap);
    if (st == TI_STATUS_NOT_SUPPORTED)
      ti_error_set(s->err, st, "unsupported: node '%s' op %s %s (opset %lld)", s->nd->name, s->nd->op_type, what,
                   (long long)s->opset);
    else
      ti_error_set(s->err, st, "node '%s' op %s (opset %lld): %s", s->nd->name, s->nd->op_type, (long long)s->opset, what);
#endif
    s->err->offset = s->nd->offset;
  }
  return st;
}
/* An attribute value or form outside what is mapped. */
static ti_status ti__oi_unsup(ti__oi *s, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
#ifdef TASKIR_NO_ERRMSG   /* keeps the node's offset (see ti_error_set) */
#define ti__oi_unsup(s, ...) (TI__NOMSG(__VA_ARGS__), (ti__oi_unsup)((s), NULL))
#define ti__oi_bad(s, ...) (TI__NOMSG(__VA_ARGS__), (ti__oi_bad)((s), NULL))
#endif
static ti_status (ti__oi_unsup)(ti__oi *s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ti__oi_failv(s, TI_STATUS_NOT_SUPPORTED, fmt, ap);
  va_end(ap);
  return TI_STATUS_NOT_SUPPORTED;
}
/* A malformed node. */
static ti_status (ti__oi_bad)(ti__oi *s, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static ti_status (ti__oi_bad)(ti__oi *s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ti__oi_failv(s, TI_STATUS_INVALID, fmt, ap);
  va_end(ap);
  return TI_STATUS_INVALID;
}

#define TI__OI_TRY(x) do { ti_status ti__st_ = (x); if (ti__st_ != TI_STATUS_SUCCESS) return ti__st_; } while (0)

/* ---- attributes ---- */

static const ti_onnx_attr *ti__oi_attr(const ti_onnx_node *nd, const char *name) {
  int32_t i;
  for (i = 0; i < nd->n_attrs; i++) if (strcmp(nd->attrs[i].name, name) == 0) return &nd->attrs[i];
  return NULL;
}
static int64_t ti__oi_int(const ti_onnx_node *nd, const char *name, int64_t dflt) {
  const ti_onnx_attr *a = ti__oi_attr(nd, name);
  return a && a->type == TI_ONNX_ATTR_INT ? a->i : dflt;
}
static double ti__oi_float(const ti_onnx_node *nd, const char *name, double dflt) {
  const ti_onnx_attr *a = ti__oi_attr(nd, name);
  return a && a->type == TI_ONNX_ATTR_FLOAT ? (double)a->f : a && a->type == TI_ONNX_ATTR_INT ? (double)a->i : dflt;
}
static const char *ti__oi_str(const ti_onnx_node *nd, const char *name, const char *dflt) {
  const ti_onnx_attr *a = ti__oi_attr(nd, name);
  return a && a->type == TI_ONNX_ATTR_STRING && a->s ? a->s : dflt;
}
/* ints attribute: count (<= max), -1 if absent; -2 if longer than max. */
static int32_t ti__oi_ints(const ti_onnx_node *nd, const char *name, int64_t *out, int32_t max) {
  const ti_onnx_attr *a = ti__oi_attr(nd, name);
  int32_t i;
  if (!a || a->type != TI_ONNX_ATTR_INTS) return -1;
  if (a->n_ints > max) return -2;
  for (i = 0; i < a->n_ints; i++) out[i] = a->ints[i];
  return a->n_ints;
}

/* Every attribute of the node must be in the comma-separated list `known`. */
static ti_status ti__oi_known_attrs(ti__oi *s, const char *known) {
  int32_t i;
  for (i = 0; i < s->nd->n_attrs; i++) {
    const char *nm = s->nd->attrs[i].name, *k = known;
    size_t l = strlen(nm);
    int found = 0;
    while (*k && !found) {
      const char *c = strchr(k, ',');
      size_t kl = c ? (size_t)(c - k) : strlen(k);
      found = kl == l && strncmp(k, nm, l) == 0;
      k += kl + (c ? 1 : 0);
    }
    if (!found) return ti__oi_unsup(s, "attribute %s", nm);
  }
  return TI_STATUS_SUCCESS;
}

/* ---- values ---- */

static double ti__oi_kget(const ti_onnx_tensor *t, int64_t i) {
  const unsigned char *d = (const unsigned char *)t->data + (size_t)i * ti_onnx_elem_size(t->data_type);
  switch (t->data_type) {
  case TI_ONNX_FLOAT: { float v; memcpy(&v, d, 4); return v; }
  case TI_ONNX_DOUBLE: { double v; memcpy(&v, d, 8); return v; }
  case TI_ONNX_INT8: return (double)*(const int8_t *)d;
  case TI_ONNX_UINT8: case TI_ONNX_BOOL: return (double)*d;
  case TI_ONNX_INT16: { int16_t v; memcpy(&v, d, 2); return v; }
  case TI_ONNX_UINT16: { uint16_t v; memcpy(&v, d, 2); return v; }
  case TI_ONNX_INT32: { int32_t v; memcpy(&v, d, 4); return v; }
  case TI_ONNX_UINT32: { uint32_t v; memcpy(&v, d, 4); return v; }
  case TI_ONNX_INT64: { int64_t v; memcpy(&v, d, 8); return (double)v; }
  case TI_ONNX_UINT64: { uint64_t v; memcpy(&v, d, 8); return (double)v; }
  default: return 0;
  }
}
static int64_t ti__oi_kint(const ti_onnx_tensor *t, int64_t i) {
  if (t->data_type == TI_ONNX_INT64) {
    int64_t v;
    memcpy(&v, (const unsigned char *)t->data + (size_t)i * 8, 8);
    return v;
  }
  return (int64_t)ti__oi_kget(t, i);
}

static int ti__oi_has_in(const ti__oi *s, int32_t i) { return i < s->nd->n_inputs && s->nd->inputs[i][0] != 0; }

/* Constant data of input i (initializer or Constant output), else NULL. */
static const ti_onnx_tensor *ti__oi_const(ti__oi *s, int32_t i) {
  ti__oi_ent *e;
  if (!ti__oi_has_in(s, i)) return NULL;
  e = ti__oi_find(s, s->nd->inputs[i]);
  return e ? e->k : NULL;
}

/* Materialises constant data as a weight and a get_parameter op. */
static ti_status ti__oi_materialize(ti__oi *s, ti__oi_ent *e) {
  const ti_onnx_tensor *k = e->k;
  ti_dtype dt;
  const ti_type *t;
  ti_named_attr na;
  if (!ti_onnx_to_dtype(k->data_type, &dt)) return ti__oi_unsup(s, "tensor '%s' of data type %ld", k->name, (long)k->data_type);
  if (k->numel && !k->data) return ti__oi_bad(s, "tensor '%s' carries no data", k->name);
  t = ti_type_get(s->ctx, TI_TYPE_TENSOR, dt, k->rank, k->dims, TI_LAYOUT_ANY);
  if (!t) return ti__oi_bad(s, "tensor '%s': no type for its shape", k->name);
  if (k->bytes != (size_t)k->numel * ti_dtype_size(dt)) return ti__oi_bad(s, "tensor '%s' holds %lu bytes for %lld elements", k->name, (unsigned long)k->bytes, (long long)k->numel);
  /* names are unique through the name table: no linear search of the weights */
  if (s->opt && s->opt->reference_weights && k->numel && k->in_input) {
    if (!ti__program_push_var(s->p, e->name, t, k->bytes, (void *)(uintptr_t)k->data))
      return ti__oi_bad(s, "out of memory adding weight '%s'", e->name);
  } else {
    ti_variable *var = ti__program_push_var(s->p, e->name, t, k->bytes, NULL);
    if (!var) return ti__oi_bad(s, "out of memory adding weight '%s'", e->name);
    if (k->bytes) memcpy(var->data, k->data, k->bytes);
  }
  na = ti_named(s->ctx, "name", ti_attr_string(s->ctx, e->name, -1));
  e->v = ti_build1(&s->b, "builtin.get_parameter", 0, NULL, t, ti_attr_dict(s->ctx, &na, 1));
  if (!e->v) return ti__oi_bad(s, "cannot read weight '%s'", e->name);
  return TI_STATUS_SUCCESS;
}

/* Value of input i (NULL when omitted); an error when it is undefined. */
static ti_status ti__oi_in(ti__oi *s, int32_t i, ti_value **v) {
  ti__oi_ent *e;
  *v = NULL;
  if (!ti__oi_has_in(s, i)) return TI_STATUS_SUCCESS;
  e = ti__oi_find(s, s->nd->inputs[i]);
  if (!e || (!e->v && !e->k)) return ti__oi_bad(s, "input '%s' is not defined before the node", s->nd->inputs[i]);
  if (!e->v) TI__OI_TRY(ti__oi_materialize(s, e));
  *v = e->v;
  return TI_STATUS_SUCCESS;
}
static ti_status ti__oi_need(ti__oi *s, int32_t i, ti_value **v) {
  TI__OI_TRY(ti__oi_in(s, i, v));
  if (!*v) return ti__oi_bad(s, "input %d is required", (int)i);
  return TI_STATUS_SUCCESS;
}

static ti_status ti__oi_set(ti__oi *s, int32_t i, ti_value *v) {
  ti__oi_ent *e;
  if (i >= s->nd->n_outputs || !s->nd->outputs[i][0]) return TI_STATUS_SUCCESS;
  e = ti__oi_slot(s, s->nd->outputs[i]);
  if (!e) return ti__oi_bad(s, "out of memory");
  if (e->v || e->k) return ti__oi_bad(s, "output '%s' is defined twice", s->nd->outputs[i]);
  e->v = v;
  return TI_STATUS_SUCCESS;
}

/* Builds one nn op (result type inferred); node context on failure. */
static ti_status ti__oi_op(ti__oi *s, const char *name, int32_t n, ti_value *const *ops, const ti_attr *attrs,
                           ti_value **out) {
  ti_error local;
  ti_builder b = s->b;
  ti_error_clear(&local);
  b.err = &local;
  b.status = TI_STATUS_SUCCESS;
  *out = ti_build1(&b, name, n, ops, NULL, attrs);
  if (!*out) {
    if (local.status == TI_STATUS_NOT_SUPPORTED) return ti__oi_unsup(s, "(%s)", local.message);
    return ti__oi_bad(s, "%s", local.message[0] ? local.message : "cannot build the op");
  }
  if (ti_type_numel((*out)->type) < 0) return ti__oi_bad(s, "the result has no static shape");
  return TI_STATUS_SUCCESS;
}

/* Attribute dicts: up to 8 (name, attr) pairs. */
static const ti_attr *ti__oi_dict(ti__oi *s, int n, const char *n0, const ti_attr *a0, const char *n1, const ti_attr *a1,
                                  const char *n2, const ti_attr *a2, const char *n3, const ti_attr *a3, const char *n4,
                                  const ti_attr *a4) {
  ti_named_attr it[5];
  const char *nm[5];
  const ti_attr *av[5];
  int i, k = 0;
  nm[0] = n0; nm[1] = n1; nm[2] = n2; nm[3] = n3; nm[4] = n4;
  av[0] = a0; av[1] = a1; av[2] = a2; av[3] = a3; av[4] = a4;
  for (i = 0; i < n; i++)
    if (av[i]) it[k++] = ti_named(s->ctx, nm[i], av[i]);
  return ti_attr_dict(s->ctx, it, k);
}
#define TI__OI_D1(s, a, b) ti__oi_dict((s), 1, a, b, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)
#define TI__OI_D2(s, a, b, c, d) ti__oi_dict((s), 2, a, b, c, d, NULL, NULL, NULL, NULL, NULL, NULL)

static ti_status ti__oi_reshape(ti__oi *s, ti_value *x, int32_t rank, const int64_t *dims, ti_value **out) {
  if (x->type->rank == rank && memcmp(x->type->dims, dims, (size_t)rank * sizeof *dims) == 0) { *out = x; return TI_STATUS_SUCCESS; }
  return ti__oi_op(s, "nn.reshape", 1, &x, TI__OI_D1(s, "shape", ti_attr_int_array(s->ctx, dims, rank)), out);
}

static int ti__oi_norm_axis(int64_t *axis, int32_t rank) {
  if (*axis < 0) *axis += rank;
  return *axis >= 0 && *axis < rank;
}

/* ---- operators ---- */

static ti_status ti__oi_unary(ti__oi *s, const char *nn) {
  ti_value *x, *y;
  const ti_attr *at = NULL;
  TI__OI_TRY(ti__oi_known_attrs(s, strcmp(nn, "nn.leaky_relu") == 0 ? "alpha" : ""));
  TI__OI_TRY(ti__oi_need(s, 0, &x));
  if (strcmp(nn, "nn.leaky_relu") == 0) at = TI__OI_D1(s, "alpha", ti_attr_float(s->ctx, ti__oi_float(s->nd, "alpha", 0.01)));
  TI__OI_TRY(ti__oi_op(s, nn, 1, &x, at, &y));
  return ti__oi_set(s, 0, y);
}

static ti_status ti__oi_binary(ti__oi *s, const char *nn) {
  ti_value *x[2], *y;
  TI__OI_TRY(ti__oi_known_attrs(s, "broadcast,axis"));
  if (ti__oi_attr(s->nd, "axis")) return ti__oi_unsup(s, "axis (legacy broadcasting along an axis)");
  TI__OI_TRY(ti__oi_need(s, 0, &x[0]));
  TI__OI_TRY(ti__oi_need(s, 1, &x[1]));
  TI__OI_TRY(ti__oi_op(s, nn, 2, x, NULL, &y));
  return ti__oi_set(s, 0, y);
}

static ti_status ti__oi_identity(ti__oi *s) {
  ti_value *x;
  if (strcmp(s->nd->op_type, "Dropout") == 0) {
    const ti_onnx_tensor *tm = ti__oi_const(s, 2);
    TI__OI_TRY(ti__oi_known_attrs(s, "ratio,is_test,seed"));
    if (ti__oi_has_in(s, 2) && (!tm || (tm->numel && ti__oi_kget(tm, 0) != 0)))
      return ti__oi_unsup(s, "training_mode (only inference is mapped)");
    if (s->nd->n_outputs > 1 && s->nd->outputs[1][0]) return ti__oi_unsup(s, "mask output");
  } else TI__OI_TRY(ti__oi_known_attrs(s, ""));
  TI__OI_TRY(ti__oi_need(s, 0, &x));
  return ti__oi_set(s, 0, x);
}

static double ti__oi_dtype_max(ti_dtype t) {
  switch (t) {
  case TI_DTYPE_I8: return 127; case TI_DTYPE_U8: case TI_DTYPE_BOOL: return 255;
  case TI_DTYPE_I16: return 32767; case TI_DTYPE_U16: return 65535;
  case TI_DTYPE_I32: return 2147483647.0; case TI_DTYPE_U32: return 4294967295.0;
  case TI_DTYPE_I64: return 9223372036854775807.0;
  case TI_DTYPE_F32: return 3.4028234663852886e38;
  default: return 1.7976931348623157e308;
  }
}
static double ti__oi_dtype_min(ti_dtype t) {
  switch (t) {
  case TI_DTYPE_U8: case TI_DTYPE_BOOL: case TI_DTYPE_U16: case TI_DTYPE_U32: return 0;
  case TI_DTYPE_I8: return -128; case TI_DTYPE_I16: return -32768; case TI_DTYPE_I32: return -2147483648.0;
  case TI_DTYPE_I64: return -9223372036854775807.0 - 1;
  default: return -ti__oi_dtype_max(t);
  }
}

static ti_status ti__oi_clip(ti__oi *s) {
  ti_value *x, *y;
  double lo, hi;
  TI__OI_TRY(ti__oi_need(s, 0, &x));
  lo = ti__oi_dtype_min(x->type->dtype);
  hi = ti__oi_dtype_max(x->type->dtype);
  if (s->opset < 11) {
    TI__OI_TRY(ti__oi_known_attrs(s, "min,max"));
    lo = ti__oi_float(s->nd, "min", lo);
    hi = ti__oi_float(s->nd, "max", hi);
  } else {
    int32_t i;
    TI__OI_TRY(ti__oi_known_attrs(s, ""));
    for (i = 1; i <= 2; i++) {
      const ti_onnx_tensor *k = ti__oi_const(s, i);
      if (!ti__oi_has_in(s, i)) continue;
      if (!k || k->numel != 1 || !k->data) return ti__oi_unsup(s, "%s from a non-constant input", i == 1 ? "min" : "max");
      if (i == 1) lo = ti__oi_kget(k, 0); else hi = ti__oi_kget(k, 0);
    }
  }
  if (!(lo <= hi)) {   /* ONNX: min > max gives max everywhere */
    lo = hi;
  }
  TI__OI_TRY(ti__oi_op(s, "nn.clip", 1, &x, TI__OI_D2(s, "min", ti_attr_float(s->ctx, lo), "max", ti_attr_float(s->ctx, hi)), &y));
  return ti__oi_set(s, 0, y);
}

static ti_status ti__oi_softmax(ti__oi *s) {
  ti_value *x, *y, *t;
  int64_t axis = ti__oi_int(s->nd, "axis", s->opset < 13 ? 1 : -1);
  int32_t r;
  TI__OI_TRY(ti__oi_known_attrs(s, "axis"));
  TI__OI_TRY(ti__oi_need(s, 0, &x));
  r = x->type->rank;
  if (!ti__oi_norm_axis(&axis, r)) return ti__oi_bad(s, "axis out of range for rank %d", (int)r);
  if (s->opset < 13 && axis != r - 1) {   /* the 2-D coercion */
    int64_t d[2] = {1, 1};
    int32_t i;
    for (i = 0; i < r; i++) d[i < axis ? 0 : 1] *= x->type->dims[i];
    TI__OI_TRY(ti__oi_reshape(s, x, 2, d, &t));
    TI__OI_TRY(ti__oi_op(s, "nn.softmax", 1, &t, TI__OI_D1(s, "axis", ti_attr_int(s->ctx, 1)), &t));
    TI__OI_TRY(ti__oi_reshape(s, t, r, x->type->dims, &y));
  } else
    TI__OI_TRY(ti__oi_op(s, "nn.softmax", 1, &x, TI__OI_D1(s, "axis", ti_attr_int(s->ctx, axis)), &y));
  return ti__oi_set(s, 0, y);
}

/* auto_pad and explicit pads of a 2-D window op into [top,left,bottom,right];
   ceil: extra end padding so floor division gives ceil_mode's size. */
static ti_status ti__oi_window(ti__oi *s, const ti_value *x, const int64_t *k, const int64_t *st, const int64_t *dl,
                               int ceil_mode, int64_t *pads, int64_t *extra) {
  const char *ap = ti__oi_str(s->nd, "auto_pad", "NOTSET");
  int64_t p[8];
  int32_t n = ti__oi_ints(s->nd, "pads", p, 8), i;
  pads[0] = pads[1] = pads[2] = pads[3] = 0;
  extra[0] = extra[1] = 0;
  if (strcmp(ap, "NOTSET") == 0) {
    if (n != -1 && n != 4) return ti__oi_bad(s, "pads must hold 4 ints for 2-D data");
    if (n == 4) for (i = 0; i < 4; i++) pads[i] = p[i];
    for (i = 0; i < 4; i++) if (pads[i] < 0) return ti__oi_unsup(s, "negative pads");
  } else if (strcmp(ap, "SAME_UPPER") == 0 || strcmp(ap, "SAME_LOWER") == 0) {
    for (i = 0; i < 2; i++) {
      int64_t in = x->type->dims[2 + i], out = (in + st[i] - 1) / st[i];
      int64_t tot = (out - 1) * st[i] + (k[i] - 1) * dl[i] + 1 - in;
      if (tot < 0) tot = 0;
      pads[i] = ap[5] == 'U' ? tot / 2 : tot - tot / 2;
      pads[i + 2] = tot - pads[i];
    }
  } else if (strcmp(ap, "VALID") != 0) return ti__oi_unsup(s, "auto_pad=%s", ap);
  if (ceil_mode) {
    for (i = 0; i < 2; i++) {
      int64_t in = x->type->dims[2 + i] + pads[i] + pads[i + 2], span = (k[i] - 1) * dl[i] + 1;
      int64_t out;
      if (in < span) return ti__oi_bad(s, "the window does not fit the padded input");
      out = (in - span + st[i] - 1) / st[i] + 1;
      if ((out - 1) * st[i] >= x->type->dims[2 + i] + pads[i]) out--;   /* the last window starts in the input or left pad */
      extra[i] = (out - 1) * st[i] + span - in;
      if (extra[i] < 0) extra[i] = 0;
    }
  }
  return TI_STATUS_SUCCESS;
}

static ti_status ti__oi_need_rank4(ti__oi *s, const ti_value *x) {
  if (x->type->rank != 4) return ti__oi_unsup(s, "%d-D data (only 2-D spatial, NCHW)", (int)x->type->rank - 2);
  return TI_STATUS_SUCCESS;
}

static ti_status ti__oi_ints2(ti__oi *s, const char *name, int64_t *out, int64_t dflt) {
  int32_t n = ti__oi_ints(s->nd, name, out, 2);
  if (n == -1) { out[0] = out[1] = dflt; return TI_STATUS_SUCCESS; }
  if (n != 2) return ti__oi_unsup(s, "%s with %d values (only 2-D)", name, (int)n);
  if (out[0] < 1 || out[1] < 1) return ti__oi_bad(s, "%s must be >= 1", name);
  return TI_STATUS_SUCCESS;
}

static ti_status ti__oi_conv(ti__oi *s) {
  ti_value *x, *w, *b, *ops[3], *y;
  int64_t k[2], st[2], dl[2], pads[4], extra[2], ks[2], group = ti__oi_int(s->nd, "group", 1);
  int transposed = s->nd->op_type[4] == 'T';
  TI__OI_TRY(ti__oi_known_attrs(s, transposed ? "auto_pad,dilations,group,kernel_shape,output_padding,pads,strides,output_shape"
                                              : "auto_pad,dilations,group,kernel_shape,pads,strides"));
  TI__OI_TRY(ti__oi_need(s, 0, &x));
  TI__OI_TRY(ti__oi_need(s, 1, &w));
  TI__OI_TRY(ti__oi_in(s, 2, &b));
  TI__OI_TRY(ti__oi_need_rank4(s, x));
  if (w->type->rank != 4) return ti__oi_bad(s, "W must be 4-D");
  k[0] = w->type->dims[2]; k[1] = w->type->dims[3];
  TI__OI_TRY(ti__oi_ints2(s, "strides", st, 1));
  TI__OI_TRY(ti__oi_ints2(s, "dilations", dl, 1));
  if (ti__oi_ints(s->nd, "kernel_shape", ks, 2) == 2 && (ks[0] != k[0] || ks[1] != k[1]))
    return ti__oi_bad(s, "kernel_shape differs from W's");
  if (group < 1) return ti__oi_bad(s, "group must be >= 1");
  if (!transposed) {
    TI__OI_TRY(ti__oi_window(s, x, k, st, dl, 0, pads, extra));
    ops[0] = x; ops[1] = w; ops[2] = b;
    TI__OI_TRY(ti__oi_op(s, "nn.conv2d", b ? 3 : 2, ops,
                         ti__oi_dict(s, 4, "strides", ti_attr_int_array(s->ctx, st, 2), "pads", ti_attr_int_array(s->ctx, pads, 4),
                                     "dilations", ti_attr_int_array(s->ctx, dl, 2), "group", ti_attr_int(s->ctx, group), NULL, NULL),
                         &y));
  } else {
    int64_t op_[2] = {0, 0}, hw[2], p8[8];
    int32_t i, n;
    const char *ap = ti__oi_str(s->nd, "auto_pad", "NOTSET");
    if (strcmp(ap, "NOTSET") != 0) return ti__oi_unsup(s, "auto_pad=%s", ap);
    if (ti__oi_attr(s->nd, "output_shape")) return ti__oi_unsup(s, "output_shape");
    n = ti__oi_ints(s->nd, "output_padding", op_, 2);
    if (n != -1 && n != 2) return ti__oi_bad(s, "output_padding must hold 2 ints");
    if (n == -1) op_[0] = op_[1] = 0;
    n = ti__oi_ints(s->nd, "pads", p8, 8);
    pads[0] = pads[1] = pads[2] = pads[3] = 0;
    if (n != -1 && n != 4) return ti__oi_bad(s, "pads must hold 4 ints");
    if (n == 4) for (i = 0; i < 4; i++) pads[i] = p8[i];
    for (i = 0; i < 4; i++) if (pads[i] < 0) return ti__oi_unsup(s, "negative pads");
    for (i = 0; i < 2; i++) {
      if (op_[i] < 0 || op_[i] >= st[i]) return ti__oi_unsup(s, "output_padding %lld (must be below the stride)", (long long)op_[i]);
      hw[i] = st[i] * (x->type->dims[2 + i] - 1) + op_[i] + (k[i] - 1) * dl[i] + 1 - pads[i] - pads[i + 2];
      if (hw[i] < 1) return ti__oi_bad(s, "the output would be empty");
    }
    ops[0] = x; ops[1] = w;
    TI__OI_TRY(ti__oi_op(s, "nn.conv2d_backprop_input", 2, ops,
                         ti__oi_dict(s, 5, "strides", ti_attr_int_array(s->ctx, st, 2), "pads", ti_attr_int_array(s->ctx, pads, 4),
                                     "dilations", ti_attr_int_array(s->ctx, dl, 2), "group", ti_attr_int(s->ctx, group),
                                     "input_size", ti_attr_int_array(s->ctx, hw, 2)),
                         &y));
    if (b) {
      int64_t bd[3];
      ti_value *bb;
      if (b->type->rank != 1) return ti__oi_bad(s, "B must be 1-D");
      bd[0] = b->type->dims[0]; bd[1] = bd[2] = 1;
      TI__OI_TRY(ti__oi_reshape(s, b, 3, bd, &bb));
      ops[0] = y; ops[1] = bb;
      TI__OI_TRY(ti__oi_op(s, "nn.add", 2, ops, NULL, &y));
    }
  }
  return ti__oi_set(s, 0, y);
}

static ti_status ti__oi_pool(ti__oi *s) {
  ti_value *x, *y;
  int64_t k[2], st[2], dl[2], pads[4], extra[2];
  int is_max = s->nd->op_type[0] == 'M';
  int64_t ceil_mode = ti__oi_int(s->nd, "ceil_mode", 0), cip = ti__oi_int(s->nd, "count_include_pad", 0);
  TI__OI_TRY(ti__oi_known_attrs(s, is_max ? "auto_pad,ceil_mode,dilations,kernel_shape,pads,storage_order,strides"
                                          : "auto_pad,ceil_mode,count_include_pad,kernel_shape,pads,strides"));
  if (is_max && ti__oi_int(s->nd, "storage_order", 0) != 0) return ti__oi_unsup(s, "storage_order=1");
  if (is_max && s->nd->n_outputs > 1 && s->nd->outputs[1][0]) return ti__oi_unsup(s, "Indices output");
  TI__OI_TRY(ti__oi_need(s, 0, &x));
  TI__OI_TRY(ti__oi_need_rank4(s, x));
  if (ti__oi_ints(s->nd, "kernel_shape", k, 2) != 2) return ti__oi_unsup(s, "kernel_shape not of 2 ints (only 2-D)");
  if (k[0] < 1 || k[1] < 1) return ti__oi_bad(s, "kernel_shape must be >= 1");
  TI__OI_TRY(ti__oi_ints2(s, "strides", st, 1));
  TI__OI_TRY(ti__oi_ints2(s, "dilations", dl, 1));
  TI__OI_TRY(ti__oi_window(s, x, k, st, dl, ceil_mode != 0, pads, extra));
  if (!is_max && cip && (extra[0] || extra[1])) return ti__oi_unsup(s, "ceil_mode=1 with count_include_pad=1 and a window past the padding");
  pads[2] += extra[0];
  pads[3] += extra[1];
  TI__OI_TRY(ti__oi_op(s, is_max ? "nn.max_pool" : "nn.avg_pool", 1, &x,
                       ti__oi_dict(s, 5, "kernel_shape", ti_attr_int_array(s->ctx, k, 2), "strides", ti_attr_int_array(s->ctx, st, 2),
                                   "pads", ti_attr_int_array(s->ctx, pads, 4),
                                   "dilations", (dl[0] != 1 || dl[1] != 1) ? ti_attr_int_array(s->ctx, dl, 2) : NULL,
                                   "count_include_pad", is_max ? NULL : ti_attr_int(s->ctx, cip != 0)),
                       &y));
  return ti__oi_set(s, 0, y);
}

static ti_status ti__oi_gap(ti__oi *s) {
  ti_value *x, *y;
  TI__OI_TRY(ti__oi_known_attrs(s, ""));
  TI__OI_TRY(ti__oi_need(s, 0, &x));
  TI__OI_TRY(ti__oi_need_rank4(s, x));
  TI__OI_TRY(ti__oi_op(s, "nn.global_avg_pool", 1, &x, NULL, &y));
  return ti__oi_set(s, 0, y);
}

static ti_status ti__oi_gemm(ti__oi *s) {
  ti_value *ops[3], *y;
  int32_t n = 2;
  TI__OI_TRY(ti__oi_known_attrs(s, "alpha,beta,transA,transB,broadcast"));
  TI__OI_TRY(ti__oi_need(s, 0, &ops[0]));
  TI__OI_TRY(ti__oi_need(s, 1, &ops[1]));
  TI__OI_TRY(ti__oi_in(s, 2, &ops[2]));
  if (ops[2]) n = 3;
  if (ops[0]->type->rank != 2 || ops[1]->type->rank != 2) return ti__oi_bad(s, "A and B must be 2-D");
  if (n == 3 && ops[2]->type->rank > 2) return ti__oi_bad(s, "C must be at most 2-D");
  TI__OI_TRY(ti__oi_op(s, "nn.gemm", n, ops,
                       ti__oi_dict(s, 4, "alpha", ti_attr_float(s->ctx, ti__oi_float(s->nd, "alpha", 1.0)),
                                   "beta", ti_attr_float(s->ctx, ti__oi_float(s->nd, "beta", 1.0)),
                                   "trans_a", ti_attr_int(s->ctx, ti__oi_int(s->nd, "transA", 0) != 0),
                                   "trans_b", ti_attr_int(s->ctx, ti__oi_int(s->nd, "transB", 0) != 0), NULL, NULL),
                       &y));
  return ti__oi_set(s, 0, y);
}

static ti_status ti__oi_broadcast_to(ti__oi *s, ti_value *x, int32_t rank, const int64_t *dims, ti_value **out) {
  if (x->type->rank == rank && memcmp(x->type->dims, dims, (size_t)rank * sizeof *dims) == 0) { *out = x; return TI_STATUS_SUCCESS; }
  return ti__oi_op(s, "nn.broadcast", 1, &x, TI__OI_D1(s, "shape", ti_attr_int_array(s->ctx, dims, rank)), out);
}

static ti_status ti__oi_matmul(ti__oi *s) {
  ti_value *a, *b, *ops[2], *y;
  int64_t da[TI_MAX_RANK], db[TI_MAX_RANK], dy[TI_MAX_RANK], batch[TI_MAX_RANK];
  int32_t ra, rb, nb, i, r1a = 0, r1b = 0, ry;
  TI__OI_TRY(ti__oi_known_attrs(s, ""));
  TI__OI_TRY(ti__oi_need(s, 0, &a));
  TI__OI_TRY(ti__oi_need(s, 1, &b));
  ra = a->type->rank; rb = b->type->rank;
  if (ra < 1 || rb < 1) return ti__oi_bad(s, "operands must be at least 1-D");
  if (ra == 1) { int64_t d[2] = {1, a->type->dims[0]}; TI__OI_TRY(ti__oi_reshape(s, a, 2, d, &a)); ra = 2; r1a = 1; }
  if (rb == 1) { int64_t d[2] = {b->type->dims[0], 1}; TI__OI_TRY(ti__oi_reshape(s, b, 2, d, &b)); rb = 2; r1b = 1; }
  nb = (ra > rb ? ra : rb) - 2;
  for (i = 0; i < nb; i++) {   /* numpy broadcasting of the batch dims */
    int32_t ia = i - (nb - (ra - 2)), ib = i - (nb - (rb - 2));
    int64_t x = ia >= 0 ? a->type->dims[ia] : 1, z = ib >= 0 ? b->type->dims[ib] : 1;
    if (x != z && x != 1 && z != 1) return ti__oi_bad(s, "batch dims do not broadcast");
    batch[i] = x == 1 ? z : x;
  }
  memcpy(da, batch, (size_t)nb * sizeof *da); da[nb] = a->type->dims[ra - 2]; da[nb + 1] = a->type->dims[ra - 1];
  TI__OI_TRY(ti__oi_broadcast_to(s, a, nb + 2, da, &a));
  if (rb != 2 || ra != 2) {
    int keep_b2 = rb == 2;
    if (!keep_b2) {
      memcpy(db, batch, (size_t)nb * sizeof *db); db[nb] = b->type->dims[rb - 2]; db[nb + 1] = b->type->dims[rb - 1];
      TI__OI_TRY(ti__oi_broadcast_to(s, b, nb + 2, db, &b));
    }
  }
  ops[0] = a; ops[1] = b;
  TI__OI_TRY(ti__oi_op(s, "nn.matmul", 2, ops, NULL, &y));
  if (r1a || r1b) {   /* drop the dims added for 1-D operands */
    ry = 0;
    for (i = 0; i < nb; i++) dy[ry++] = batch[i];
    if (!r1a) dy[ry++] = y->type->dims[nb];
    if (!r1b) dy[ry++] = y->type->dims[nb + 1];
    TI__OI_TRY(ti__oi_reshape(s, y, ry, dy, &y));
  }
  return ti__oi_set(s, 0, y);
}

static ti_status ti__oi_batchnorm(ti__oi *s) {
  ti_value *x, *ops[2], *y;
  const ti_onnx_tensor *k[4];
  double eps = ti__oi_float(s->nd, "epsilon", 1e-5);
  int64_t c, i, dims[TI_MAX_RANK];
  float *scale, *bias;
  ti_onnx_tensor *ts, *tb;
  ti__oi_ent *es, *eb;
  char *nm;
  size_t nl;
  int32_t j;
  TI__OI_TRY(ti__oi_known_attrs(s, "epsilon,momentum,spatial,is_test,consumed_inputs,training_mode"));
  if (ti__oi_int(s->nd, "spatial", 1) != 1) return ti__oi_unsup(s, "spatial=0");
  if (ti__oi_int(s->nd, "training_mode", 0) != 0) return ti__oi_unsup(s, "training_mode=1");
  for (j = 1; j < s->nd->n_outputs; j++) if (s->nd->outputs[j][0]) return ti__oi_unsup(s, "training outputs (mean, var)");
  TI__OI_TRY(ti__oi_need(s, 0, &x));
  if (x->type->rank < 2) return ti__oi_bad(s, "X must be at least 2-D");
  c = x->type->dims[1];
  for (j = 0; j < 4; j++) {
    k[j] = ti__oi_const(s, j + 1);
    if (!k[j]) return ti__oi_unsup(s, "%s from a non-constant input", j == 0 ? "scale" : j == 1 ? "B" : j == 2 ? "mean" : "var");
    if (k[j]->numel != c || !k[j]->data) return ti__oi_bad(s, "input %d must hold %lld values", (int)j + 1, (long long)c);
  }
  scale = (float *)ti_arena_array(&s->tmp, (size_t)(c ? c : 1), sizeof(float), 16);
  bias = (float *)ti_arena_array(&s->tmp, (size_t)(c ? c : 1), sizeof(float), 16);
  ts = (ti_onnx_tensor *)ti_arena_alloc(&s->tmp, sizeof *ts, 16);
  tb = (ti_onnx_tensor *)ti_arena_alloc(&s->tmp, sizeof *tb, 16);
  nl = strlen(s->nd->outputs[0]) + 8;
  nm = (char *)ti_arena_alloc(&s->tmp, 2 * nl, 1);
  if (!scale || !bias || !ts || !tb || !nm) return ti__oi_bad(s, "out of memory");
  for (i = 0; i < c; i++) {
    double a = ti__oi_kget(k[0], i) / sqrt(ti__oi_kget(k[3], i) + eps);
    scale[i] = (float)a;
    bias[i] = (float)(ti__oi_kget(k[1], i) - ti__oi_kget(k[2], i) * a);
  }
  dims[0] = c;
  for (j = 1; j < x->type->rank - 1; j++) dims[j] = 1;
  ts->data_type = tb->data_type = TI_ONNX_FLOAT;
  ts->rank = tb->rank = x->type->rank - 1;
  memcpy(ts->dims, dims, sizeof dims); memcpy(tb->dims, dims, sizeof dims);
  ts->numel = tb->numel = c;
  ts->bytes = tb->bytes = (size_t)c * 4;
  ts->data = scale; tb->data = bias;
  snprintf(nm, nl, "%s.scale", s->nd->outputs[0]);
  snprintf(nm + nl, nl, "%s.bias", s->nd->outputs[0]);
  ts->name = nm; tb->name = nm + nl;
  if (ti__oi_find(s, ts->name) || ti__oi_find(s, tb->name)) return ti__oi_bad(s, "names %s/%s are taken", ts->name, tb->name);
  if (!(es = ti__oi_slot(s, ts->name)) || !(eb = ti__oi_slot(s, tb->name))) return ti__oi_bad(s, "out of memory");
  es->k = ts; eb->k = tb;
  TI__OI_TRY(ti__oi_materialize(s, es));
  TI__OI_TRY(ti__oi_materialize(s, eb));
  ops[0] = x; ops[1] = es->v;
  TI__OI_TRY(ti__oi_op(s, "nn.mul", 2, ops, NULL, &y));
  ops[0] = y; ops[1] = eb->v;
  TI__OI_TRY(ti__oi_op(s, "nn.add", 2, ops, NULL, &y));
  return ti__oi_set(s, 0, y);
}

static ti_status ti__oi_flatten(ti__oi *s) {
  ti_value *x, *y;
  int64_t axis = ti__oi_int(s->nd, "axis", 1);
  TI__OI_TRY(ti__oi_known_attrs(s, "axis"));
  TI__OI_TRY(ti__oi_need(s, 0, &x));
  if (axis < 0) axis += x->type->rank;
  if (axis < 0 || axis > x->type->rank) return ti__oi_bad(s, "axis out of range");
  TI__OI_TRY(ti__oi_op(s, "nn.flatten", 1, &x, TI__OI_D1(s, "axis", ti_attr_int(s->ctx, axis)), &y));
  return ti__oi_set(s, 0, y);
}

/* A constant int input (or attribute when the opset predates the input
   form) as a list; returns the count, -1 when absent. */
static ti_status ti__oi_int_list(ti__oi *s, int32_t input, const char *attr, int64_t *out, int32_t max, int32_t *n) {
  *n = -1;
  if (attr) {
    *n = ti__oi_ints(s->nd, attr, out, max);
    if (*n == -2) return ti__oi_bad(s, "%s has more than %d values", attr, (int)max);
    return TI_STATUS_SUCCESS;
  }
  if (ti__oi_has_in(s, input)) {
    const ti_onnx_tensor *k = ti__oi_const(s, input);
    int64_t i;
    if (!k) return ti__oi_unsup(s, "input %d '%s' not a constant", (int)input, s->nd->inputs[input]);
    if (k->numel && !k->data) return ti__oi_bad(s, "input %d carries no data", (int)input);
    if (k->numel > max) return ti__oi_bad(s, "input %d has more than %d values", (int)input, (int)max);
    for (i = 0; i < k->numel; i++) out[i] = ti__oi_kint(k, i);
    *n = (int32_t)k->numel;
  }
  return TI_STATUS_SUCCESS;
}

static ti_status ti__oi_reshape_op(ti__oi *s) {
  ti_value *x, *y;
  int64_t sh[TI_MAX_RANK], known = 1, numel;
  int32_t n, i, neg = -1, allowzero = (int32_t)ti__oi_int(s->nd, "allowzero", 0);
  TI__OI_TRY(ti__oi_known_attrs(s, s->opset < 5 ? "shape" : "allowzero"));
  TI__OI_TRY(ti__oi_need(s, 0, &x));
  TI__OI_TRY(ti__oi_int_list(s, 1, s->opset < 5 ? "shape" : NULL, sh, TI_MAX_RANK, &n));
  if (n < 0) return ti__oi_bad(s, "no shape");
  numel = ti_type_numel(x->type);
  for (i = 0; i < n; i++) {
    if (sh[i] == 0 && !allowzero) {
      if (i >= x->type->rank) return ti__oi_bad(s, "shape[%d] = 0 copies a dim the input does not have", (int)i);
      sh[i] = x->type->dims[i];
    }
    if (sh[i] == -1) {
      if (neg >= 0) return ti__oi_bad(s, "shape has more than one -1");
      neg = i;
    } else if (sh[i] < 0) return ti__oi_bad(s, "shape[%d] = %lld", (int)i, (long long)sh[i]);
    else known *= sh[i];
  }
  if (neg >= 0) {
    if (known == 0 || numel % known) return ti__oi_bad(s, "cannot infer the -1 dim");
    sh[neg] = numel / known;
  } else if (known != numel) return ti__oi_bad(s, "shape holds %lld elements, the input %lld", (long long)known, (long long)numel);
  TI__OI_TRY(ti__oi_op(s, "nn.reshape", 1, &x, TI__OI_D1(s, "shape", ti_attr_int_array(s->ctx, sh, n)), &y));
  return ti__oi_set(s, 0, y);
}

static ti_status ti__oi_squeeze(ti__oi *s) {
  ti_value *x, *y;
  int64_t ax[TI_MAX_RANK], d[TI_MAX_RANK];
  int32_t n, i, j, r, ro, unsq = s->nd->op_type[0] == 'U';
  int mark[TI_MAX_RANK + TI_MAX_RANK];
  TI__OI_TRY(ti__oi_known_attrs(s, s->opset < 13 ? "axes" : ""));
  TI__OI_TRY(ti__oi_need(s, 0, &x));
  TI__OI_TRY(ti__oi_int_list(s, 1, s->opset < 13 ? "axes" : NULL, ax, TI_MAX_RANK, &n));
  r = x->type->rank;
  ro = unsq ? r + (n < 0 ? 0 : n) : r;
  if (unsq && n < 0) return ti__oi_bad(s, "no axes");
  if (ro > TI_MAX_RANK) return ti__oi_unsup(s, "a result of rank %d (at most %d)", (int)ro, TI_MAX_RANK);
  memset(mark, 0, sizeof mark);
  for (i = 0; i < n; i++) {
    if (!ti__oi_norm_axis(&ax[i], ro)) return ti__oi_bad(s, "axis out of range");
    if (mark[ax[i]]) return ti__oi_bad(s, "axis %lld given twice", (long long)ax[i]);
    mark[ax[i]] = 1;
  }
  if (unsq) {
    for (i = 0, j = 0; i < ro; i++) d[i] = mark[i] ? 1 : x->type->dims[j++];
  } else {
    for (i = 0, j = 0; i < r; i++) {
      int drop = n < 0 ? x->type->dims[i] == 1 : mark[i];
      if (drop && x->type->dims[i] != 1) return ti__oi_bad(s, "dim %d is %lld, not 1", (int)i, (long long)x->type->dims[i]);
      if (!drop) d[j++] = x->type->dims[i];
    }
    ro = j;
  }
  TI__OI_TRY(ti__oi_op(s, "nn.reshape", 1, &x, TI__OI_D1(s, "shape", ti_attr_int_array(s->ctx, d, ro)), &y));
  return ti__oi_set(s, 0, y);
}

static ti_status ti__oi_transpose(ti__oi *s) {
  ti_value *x, *y;
  int64_t perm[TI_MAX_RANK];
  int32_t n, i;
  TI__OI_TRY(ti__oi_known_attrs(s, "perm"));
  TI__OI_TRY(ti__oi_need(s, 0, &x));
  n = ti__oi_ints(s->nd, "perm", perm, TI_MAX_RANK);
  if (n == -1) { n = x->type->rank; for (i = 0; i < n; i++) perm[i] = n - 1 - i; }
  if (n != x->type->rank) return ti__oi_bad(s, "perm has %d entries for rank %d", (int)n, (int)x->type->rank);
  TI__OI_TRY(ti__oi_op(s, "nn.transpose", 1, &x, TI__OI_D1(s, "perm", ti_attr_int_array(s->ctx, perm, n)), &y));
  return ti__oi_set(s, 0, y);
}

static ti_status ti__oi_concat(ti__oi *s) {
  ti_value **ops, *y;
  int64_t axis = ti__oi_int(s->nd, "axis", s->opset < 4 ? 1 : 0);
  int32_t i;
  TI__OI_TRY(ti__oi_known_attrs(s, "axis"));
  if (s->nd->n_inputs < 1) return ti__oi_bad(s, "no inputs");
  ops = (ti_value **)ti_arena_array(&s->tmp, (size_t)s->nd->n_inputs, sizeof *ops, 16);
  if (!ops) return ti__oi_bad(s, "out of memory");
  for (i = 0; i < s->nd->n_inputs; i++) TI__OI_TRY(ti__oi_need(s, i, &ops[i]));
  if (!ti__oi_norm_axis(&axis, ops[0]->type->rank)) return ti__oi_bad(s, "axis out of range");
  if (s->nd->n_inputs == 1) return ti__oi_set(s, 0, ops[0]);
  TI__OI_TRY(ti__oi_op(s, "nn.concat", s->nd->n_inputs, ops, TI__OI_D1(s, "axis", ti_attr_int(s->ctx, axis)), &y));
  return ti__oi_set(s, 0, y);
}

/* nn.slice over every dim: begin/end/step per dim. */
static ti_status ti__oi_slice_of(ti__oi *s, ti_value *x, const int64_t *b, const int64_t *e, const int64_t *st, ti_value **y) {
  int32_t r = x->type->rank;
  return ti__oi_op(s, "nn.slice", 1, &x,
                   ti__oi_dict(s, 3, "starts", ti_attr_int_array(s->ctx, b, r), "ends", ti_attr_int_array(s->ctx, e, r),
                               "steps", ti_attr_int_array(s->ctx, st, r), NULL, NULL, NULL, NULL),
                   y);
}

static ti_status ti__oi_split(ti__oi *s) {
  ti_value *x, *y;
  int64_t axis = ti__oi_int(s->nd, "axis", 0), sp[64], b[TI_MAX_RANK], e[TI_MAX_RANK], st[TI_MAX_RANK], at = 0, tot = 0;
  int32_t n, i, k, no = s->nd->n_outputs;
  TI__OI_TRY(ti__oi_known_attrs(s, s->opset < 13 ? "axis,split" : "axis"));
  TI__OI_TRY(ti__oi_need(s, 0, &x));
  if (!ti__oi_norm_axis(&axis, x->type->rank)) return ti__oi_bad(s, "axis out of range");
  if (no < 1 || no > 64) return ti__oi_unsup(s, "%d outputs (1..64)", (int)no);
  TI__OI_TRY(ti__oi_int_list(s, 1, s->opset < 13 ? "split" : NULL, sp, 64, &n));
  if (n < 0) {
    int64_t d = x->type->dims[axis];
    if (d % no) return ti__oi_bad(s, "dim %lld does not split into %d equal parts", (long long)d, (int)no);
    for (i = 0; i < no; i++) sp[i] = d / no;
    n = no;
  }
  if (n != no) return ti__oi_bad(s, "split has %d entries for %d outputs", (int)n, (int)no);
  for (i = 0; i < n; i++) { if (sp[i] < 0) return ti__oi_bad(s, "negative split"); tot += sp[i]; }
  if (tot != x->type->dims[axis]) return ti__oi_bad(s, "split sums to %lld, the dim is %lld", (long long)tot, (long long)x->type->dims[axis]);
  for (i = 0; i < no; i++) {
    for (k = 0; k < x->type->rank; k++) { b[k] = 0; e[k] = x->type->dims[k]; st[k] = 1; }
    b[axis] = at; e[axis] = at + sp[i];
    at += sp[i];
    if (!s->nd->outputs[i][0]) continue;
    TI__OI_TRY(ti__oi_slice_of(s, x, b, e, st, &y));
    TI__OI_TRY(ti__oi_set(s, i, y));
  }
  return TI_STATUS_SUCCESS;
}

static ti_status ti__oi_slice(ti__oi *s) {
  ti_value *x, *y;
  int64_t sv[TI_MAX_RANK], ev[TI_MAX_RANK], av[TI_MAX_RANK], stv[TI_MAX_RANK];
  int64_t b[TI_MAX_RANK], e[TI_MAX_RANK], st[TI_MAX_RANK];
  int32_t ns, ne, na, nst, i, r;
  int old = s->opset < 10;
  TI__OI_TRY(ti__oi_known_attrs(s, old ? "starts,ends,axes" : ""));
  TI__OI_TRY(ti__oi_need(s, 0, &x));
  r = x->type->rank;
  TI__OI_TRY(ti__oi_int_list(s, 1, old ? "starts" : NULL, sv, TI_MAX_RANK, &ns));
  TI__OI_TRY(ti__oi_int_list(s, 2, old ? "ends" : NULL, ev, TI_MAX_RANK, &ne));
  TI__OI_TRY(ti__oi_int_list(s, 3, old ? "axes" : NULL, av, TI_MAX_RANK, &na));
  nst = -1;
  if (!old) TI__OI_TRY(ti__oi_int_list(s, 4, NULL, stv, TI_MAX_RANK, &nst));
  if (ns < 0 || ne != ns) return ti__oi_bad(s, "starts and ends must have one length");
  if ((na >= 0 && na != ns) || (nst >= 0 && nst != ns)) return ti__oi_bad(s, "axes and steps must match starts");
  for (i = 0; i < r; i++) { b[i] = 0; e[i] = INT64_MAX; st[i] = 1; }
  for (i = 0; i < ns; i++) {
    int64_t a = na >= 0 ? av[i] : i;
    if (!ti__oi_norm_axis(&a, r)) return ti__oi_bad(s, "axis out of range");
    b[a] = sv[i]; e[a] = ev[i];
    if (nst >= 0) { if (stv[i] == 0) return ti__oi_bad(s, "step 0"); st[a] = stv[i]; }
  }
  TI__OI_TRY(ti__oi_slice_of(s, x, b, e, st, &y));
  return ti__oi_set(s, 0, y);
}

static ti_status ti__oi_pad(ti__oi *s) {
  ti_value *x, *y;
  int64_t p[2 * TI_MAX_RANK], full[2 * TI_MAX_RANK];
  int32_t n, i, r;
  double value = 0;
  const char *mode = ti__oi_str(s->nd, "mode", "constant");
  TI__OI_TRY(ti__oi_known_attrs(s, s->opset < 11 ? "mode,pads,paddings,value" : "mode"));
  if (strcmp(mode, "constant") != 0) return ti__oi_unsup(s, "mode=%s", mode);
  TI__OI_TRY(ti__oi_need(s, 0, &x));
  r = x->type->rank;
  if (s->opset < 11) {
    n = ti__oi_ints(s->nd, "pads", p, 2 * TI_MAX_RANK);
    if (n == -1) n = ti__oi_ints(s->nd, "paddings", p, 2 * TI_MAX_RANK);
    value = ti__oi_float(s->nd, "value", 0);
  } else {
    const ti_onnx_tensor *cv = ti__oi_const(s, 2);
    if (ti__oi_has_in(s, 3)) return ti__oi_unsup(s, "axes input");
    TI__OI_TRY(ti__oi_int_list(s, 1, NULL, p, 2 * TI_MAX_RANK, &n));
    if (ti__oi_has_in(s, 2)) {
      if (!cv || cv->numel != 1 || !cv->data) return ti__oi_unsup(s, "constant_value from a non-constant input");
      value = ti__oi_kget(cv, 0);
    }
  }
  if (n != 2 * r) return ti__oi_bad(s, "pads must hold 2*rank (%d) ints", (int)(2 * r));
  for (i = 0; i < 2 * r; i++) {
    if (p[i] < 0) return ti__oi_unsup(s, "negative pads (cropping)");
    full[i] = p[i];
  }
  TI__OI_TRY(ti__oi_op(s, "nn.pad", 1, &x, TI__OI_D2(s, "pads", ti_attr_int_array(s->ctx, full, 2 * r), "value", ti_attr_float(s->ctx, value)), &y));
  return ti__oi_set(s, 0, y);
}

/* A Constant node: its value becomes constant data, materialised on use. */
static ti_status ti__oi_constant(ti__oi *s) {
  const ti_onnx_attr *a;
  ti_onnx_tensor *t;
  ti__oi_ent *e;
  if (s->nd->n_attrs != 1) return ti__oi_bad(s, "needs exactly one value attribute");
  a = &s->nd->attrs[0];
  if (strcmp(a->name, "value") == 0 && a->type == TI_ONNX_ATTR_TENSOR && a->t) t = a->t;
  else {
    int isf = strcmp(a->name, "value_float") == 0 || strcmp(a->name, "value_floats") == 0;
    int isi = strcmp(a->name, "value_int") == 0 || strcmp(a->name, "value_ints") == 0;
    int list = strcmp(a->name, "value_floats") == 0 || strcmp(a->name, "value_ints") == 0;
    int64_t n = list ? (isf ? a->n_floats : a->n_ints) : 1, i;
    void *d;
    if (!isf && !isi) return ti__oi_unsup(s, "attribute %s", a->name);
    t = (ti_onnx_tensor *)ti_arena_alloc(&s->tmp, sizeof *t, 16);
    d = ti_arena_array(&s->tmp, (size_t)(n ? n : 1), 8, 16);
    if (!t || !d) return ti__oi_bad(s, "out of memory");
    t->name = s->nd->outputs[0];
    t->data_type = isf ? TI_ONNX_FLOAT : TI_ONNX_INT64;
    t->rank = list ? 1 : 0;
    t->dims[0] = n;
    t->numel = n;
    for (i = 0; i < n; i++) {
      if (isf) { float f = list ? a->floats[i] : a->f; memcpy((char *)d + i * 4, &f, 4); }
      else { int64_t v = list ? a->ints[i] : a->i; memcpy((char *)d + i * 8, &v, 8); }
    }
    t->data = d;
    t->bytes = (size_t)n * (isf ? 4 : 8);
  }
  if (s->nd->n_outputs < 1 || !s->nd->outputs[0][0]) return TI_STATUS_SUCCESS;
  if (!(e = ti__oi_slot(s, s->nd->outputs[0]))) return ti__oi_bad(s, "out of memory");
  if (e->v || e->k) return ti__oi_bad(s, "output '%s' is defined twice", s->nd->outputs[0]);
  e->k = t;
  return TI_STATUS_SUCCESS;
}

static ti_status ti__oi_resize(ti__oi *s) {
  ti_value *x, *y;
  const char *mode = ti__oi_str(s->nd, "mode", "nearest");
  int up = s->nd->op_type[0] == 'U';
  double sc[TI_MAX_RANK];
  int64_t scales[2];
  int32_t i, r, have = 0;
  TI__OI_TRY(ti__oi_known_attrs(s, up ? "mode,scales,height_scale,width_scale"
                                      : "mode,coordinate_transformation_mode,nearest_mode,cubic_coeff_a,exclude_outside,extrapolation_value"));
  if (strcmp(mode, "nearest") != 0) return ti__oi_unsup(s, "mode=%s", mode);
  TI__OI_TRY(ti__oi_need(s, 0, &x));
  r = x->type->rank;
  if (!up) {
    const char *ct = ti__oi_str(s->nd, "coordinate_transformation_mode", s->opset < 11 ? "asymmetric" : "half_pixel");
    const char *nm = ti__oi_str(s->nd, "nearest_mode", s->opset < 11 ? "floor" : "round_prefer_floor");
    int half = strcmp(ct, "half_pixel") == 0 || strcmp(ct, "pytorch_half_pixel") == 0;
    if (ti__oi_int(s->nd, "exclude_outside", 0) != 0) return ti__oi_unsup(s, "exclude_outside=1");
    if (!((half && strncmp(nm, "round_prefer_", 13) == 0) || (strcmp(ct, "asymmetric") == 0 && strcmp(nm, "floor") == 0)))
      return ti__oi_unsup(s, "coordinate_transformation_mode=%s nearest_mode=%s", ct, nm);
  }
  if (up && s->opset < 9) {
    const ti_onnx_attr *a = ti__oi_attr(s->nd, "scales");
    if (!a || a->n_floats != r) return ti__oi_bad(s, "scales must hold rank floats");
    for (i = 0; i < r; i++) sc[i] = a->floats[i];
    have = 1;
  } else {
    int32_t si = up ? 1 : (s->opset < 11 ? 1 : 2), zi = up ? -1 : 3;
    const ti_onnx_tensor *k = ti__oi_const(s, si);
    if (ti__oi_has_in(s, si) && k && k->numel > 0) {
      if (k->numel != r || !k->data) return ti__oi_bad(s, "scales must hold rank values");
      for (i = 0; i < r; i++) sc[i] = ti__oi_kget(k, i);
      have = 1;
    } else if (ti__oi_has_in(s, si) && !k) return ti__oi_unsup(s, "scales from a non-constant input");
    if (!have && zi >= 0 && ti__oi_has_in(s, zi)) {
      const ti_onnx_tensor *z = ti__oi_const(s, zi);
      if (!z) return ti__oi_unsup(s, "sizes from a non-constant input");
      if (z->numel != r || !z->data) return ti__oi_bad(s, "sizes must hold rank values");
      for (i = 0; i < r; i++) {
        int64_t o = ti__oi_kint(z, i), in = x->type->dims[i];
        if (in <= 0 || o % in) return ti__oi_unsup(s, "sizes that are not integer multiples of the input");
        sc[i] = (double)(o / in);
      }
      have = 1;
    }
  }
  if (!have) return ti__oi_bad(s, "neither scales nor sizes");
  if (r != 4) return ti__oi_unsup(s, "%d-D data (only 4-D NCHW)", (int)r);
  if (sc[0] != 1 || sc[1] != 1) return ti__oi_unsup(s, "scaling of N or C");
  for (i = 0; i < 2; i++) {
    if (sc[2 + i] < 1 || sc[2 + i] != floor(sc[2 + i]) || sc[2 + i] > 1e6)
      return ti__oi_unsup(s, "scale %g (only integer up-sampling)", sc[2 + i]);
    scales[i] = (int64_t)sc[2 + i];
  }
  TI__OI_TRY(ti__oi_op(s, "nn.unpool", 1, &x, TI__OI_D1(s, "scales", ti_attr_int_array(s->ctx, scales, 2)), &y));
  return ti__oi_set(s, 0, y);
}

static ti_status ti__oi_cast(ti__oi *s) {
  ti_value *x, *y;
  ti_dtype dt;
  int64_t to = ti__oi_int(s->nd, "to", 0);
  TI__OI_TRY(ti__oi_known_attrs(s, "to,saturate"));
  TI__OI_TRY(ti__oi_need(s, 0, &x));
  if (!ti_onnx_to_dtype((int32_t)to, &dt)) return ti__oi_unsup(s, "to=%lld", (long long)to);
  if (x->type->dtype == TI_DTYPE_F16) return ti__oi_unsup(s, "from float16");
  if (dt == x->type->dtype) return ti__oi_set(s, 0, x);
  TI__OI_TRY(ti__oi_op(s, "nn.cast", 1, &x, TI__OI_D1(s, "dtype", ti_attr_string(s->ctx, ti_dtype_name(dt), -1)), &y));
  return ti__oi_set(s, 0, y);
}

static ti_status ti__oi_node(ti__oi *s) {
  const char *t = s->nd->op_type;
  if (s->nd->domain[0] && strcmp(s->nd->domain, "ai.onnx") != 0) return ti__oi_unsup(s, "domain %s", s->nd->domain);
  if (strcmp(t, "Conv") == 0 || strcmp(t, "ConvTranspose") == 0) return ti__oi_conv(s);
  if (strcmp(t, "Gemm") == 0) return ti__oi_gemm(s);
  if (strcmp(t, "MatMul") == 0) return ti__oi_matmul(s);
  if (strcmp(t, "Add") == 0) return ti__oi_binary(s, "nn.add");
  if (strcmp(t, "Sub") == 0) return ti__oi_binary(s, "nn.sub");
  if (strcmp(t, "Mul") == 0) return ti__oi_binary(s, "nn.mul");
  if (strcmp(t, "Div") == 0) return ti__oi_binary(s, "nn.div");
  if (strcmp(t, "Relu") == 0) return ti__oi_unary(s, "nn.relu");
  if (strcmp(t, "Floor") == 0) return ti__oi_unary(s, "nn.floor");
  if (strcmp(t, "Sigmoid") == 0) return ti__oi_unary(s, "nn.sigmoid");
  if (strcmp(t, "Tanh") == 0) return ti__oi_unary(s, "nn.tanh");
  if (strcmp(t, "LeakyRelu") == 0) return ti__oi_unary(s, "nn.leaky_relu");
  if (strcmp(t, "Clip") == 0) return ti__oi_clip(s);
  if (strcmp(t, "Softmax") == 0) return ti__oi_softmax(s);
  if (strcmp(t, "MaxPool") == 0 || strcmp(t, "AveragePool") == 0) return ti__oi_pool(s);
  if (strcmp(t, "GlobalAveragePool") == 0) return ti__oi_gap(s);
  if (strcmp(t, "BatchNormalization") == 0) return ti__oi_batchnorm(s);
  if (strcmp(t, "Flatten") == 0) return ti__oi_flatten(s);
  if (strcmp(t, "Reshape") == 0) return ti__oi_reshape_op(s);
  if (strcmp(t, "Squeeze") == 0 || strcmp(t, "Unsqueeze") == 0) return ti__oi_squeeze(s);
  if (strcmp(t, "Transpose") == 0) return ti__oi_transpose(s);
  if (strcmp(t, "Concat") == 0) return ti__oi_concat(s);
  if (strcmp(t, "Split") == 0) return ti__oi_split(s);
  if (strcmp(t, "Slice") == 0) return ti__oi_slice(s);
  if (strcmp(t, "Pad") == 0) return ti__oi_pad(s);
  if (strcmp(t, "Identity") == 0 || strcmp(t, "Dropout") == 0) return ti__oi_identity(s);
  if (strcmp(t, "Constant") == 0) return ti__oi_constant(s);
  if (strcmp(t, "Resize") == 0 || strcmp(t, "Upsample") == 0) return ti__oi_resize(s);
  if (strcmp(t, "Cast") == 0) return ti__oi_cast(s);
  return ti__oi_unsup(s, "(no mapping for this op)");
}

/* Static type of a graph input; symbolic dims from the bindings. */
static ti_status ti__oi_input_type(ti__oi *s, const ti_onnx_value_info *vi, const ti_type **out) {
  int64_t dims[TI_MAX_RANK];
  ti_dtype dt;
  int32_t i, j;
  if (!ti_onnx_to_dtype(vi->elem_type, &dt))
    return ti_error_set(s->err, TI_STATUS_NOT_SUPPORTED, "unsupported: graph input '%s' of element type %ld", vi->name, (long)vi->elem_type);
  if (vi->rank < 0) return ti_error_set(s->err, TI_STATUS_INVALID, "graph input '%s' has no shape", vi->name);
  for (i = 0; i < vi->rank; i++) {
    dims[i] = vi->dims[i].value;
    if (dims[i] < 0) {
      const char *pn = vi->dims[i].param;
      for (j = 0; pn && s->opt && j < s->opt->n_dims; j++)
        if (s->opt->dims[j].name && strcmp(s->opt->dims[j].name, pn) == 0) dims[i] = s->opt->dims[j].value;
      if (dims[i] < 0)
        return ti_error_set(s->err, TI_STATUS_INVALID, "graph input '%s' dim %d is symbolic ('%s'): bind it (e.g. --dim %s=1)",
                            vi->name, (int)i, pn ? pn : "?", pn ? pn : "NAME");
    }
  }
  *out = ti_type_get(s->ctx, TI_TYPE_TENSOR, dt, vi->rank, dims, TI_LAYOUT_ANY);
  if (!*out) return ti_error_set(s->err, TI_STATUS_INVALID, "graph input '%s': no type for its shape", vi->name);
  return TI_STATUS_SUCCESS;
}

TASKIR_API ti_status ti_onnx_import_model(ti_context *ctx, const ti_onnx_model *m, const ti_onnx_options *opt,
                                          ti_program **program, ti_error *err) {
  ti__oi s;
  ti_status st = TI_STATUS_SUCCESS;
  ti_value **rets = NULL;
  int32_t i;
  static const ti_onnx_node no_node = {"", "", "", 0, 0, 0, NULL, NULL, NULL, -1};
  if (program) *program = NULL;
  if (!ctx || !m || !program) return ti_error_set(err, TI_STATUS_BAD_PARAM, "ti_onnx_import: NULL argument");
  if (!ti_lookup_op(ctx, "nn.conv2d")) return ti_error_set(err, TI_STATUS_BAD_PARAM, "ti_onnx_import: register the nn dialect first");
  memset(&s, 0, sizeof s);
  s.ctx = ctx; s.m = m; s.opt = opt; s.err = err; s.nd = &no_node;
  s.opset = ti_onnx_opset_version(m, "");
  if (s.opset == 0 && m->n_opsets == 0) s.opset = 1;
  if (s.opset < 6 || s.opset > 17)
    return ti_error_set(err, TI_STATUS_NOT_SUPPORTED, "unsupported: opset %lld (6 to 17 are mapped)", (long long)s.opset);
  ti_arena_init(&s.tmp, ctx->alloc_user);
  s.p = ti_program_create(ctx, m->graph.name[0] ? m->graph.name : "onnx", TI_PROGRAM_SSA);
  if (!s.p) { ti_arena_free(&s.tmp); return ti_error_set(err, TI_STATUS_NO_MEMORY, "out of memory"); }
  ti_builder_init(&s.b, s.p, err);
  {   /* the name table at its final size: no rehash while it fills (every
         name is an initializer, an input or a node output) */
    size_t names = (size_t)m->graph.n_inits + (size_t)m->graph.n_inputs, cap = 64;
    for (i = 0; i < m->graph.n_nodes; i++) names += (size_t)(m->graph.nodes[i].n_outputs > 0 ? m->graph.nodes[i].n_outputs : 0);
    while (cap < names * 2 + 2 && cap < ((size_t)1 << 40)) cap *= 2;
    if (!(s.ents = (ti__oi_ent *)ti_arena_array(&s.tmp, cap, sizeof *s.ents, 16))) st = ti_error_set(err, TI_STATUS_NO_MEMORY, "out of memory");
    else s.cap = cap;
  }
  for (i = 0; st == TI_STATUS_SUCCESS && i < m->graph.n_inits; i++) {
    ti__oi_ent *e = ti__oi_slot(&s, m->graph.inits[i].name);
    if (!e) st = ti_error_set(err, TI_STATUS_NO_MEMORY, "out of memory");
    else if (e->k) st = ti_error_set(err, TI_STATUS_INVALID, "initializer '%s' given twice", e->name);
    else e->k = &m->graph.inits[i];
  }
  for (i = 0; st == TI_STATUS_SUCCESS && i < m->graph.n_inputs; i++) {
    const ti_onnx_value_info *vi = &m->graph.inputs[i];
    ti__oi_ent *e = ti__oi_slot(&s, vi->name);
    const ti_type *t = NULL;
    int32_t j;
    if (!e) { st = ti_error_set(err, TI_STATUS_NO_MEMORY, "out of memory"); break; }
    if (e->k) continue;   /* an initializer listed as an input */
    for (j = 0; opt && j < opt->n_constants; j++)
      if (opt->constants[j].name && strcmp(opt->constants[j].name, vi->name) == 0) e->k = &opt->constants[j];
    if (e->k) continue;
    if (e->v) { st = ti_error_set(err, TI_STATUS_INVALID, "graph input '%s' given twice", vi->name); break; }
    if ((st = ti__oi_input_type(&s, vi, &t)) != TI_STATUS_SUCCESS) break;
    if (!(e->v = ti_program_add_arg(s.p, t))) st = ti_error_set(err, TI_STATUS_NO_MEMORY, "out of memory");
  }
  for (i = 0; st == TI_STATUS_SUCCESS && i < m->graph.n_nodes; i++) {
    s.nd = &m->graph.nodes[i];
    st = ti__oi_node(&s);
  }
  s.nd = &no_node;
  if (st == TI_STATUS_SUCCESS && m->graph.n_outputs > 0 &&
      !(rets = (ti_value **)ti_arena_array(&s.tmp, (size_t)m->graph.n_outputs, sizeof *rets, 16)))
    st = ti_error_set(err, TI_STATUS_NO_MEMORY, "out of memory");
  for (i = 0; st == TI_STATUS_SUCCESS && i < m->graph.n_outputs; i++) {
    const ti_onnx_value_info *vi = &m->graph.outputs[i];
    ti__oi_ent *e = ti__oi_find(&s, vi->name);
    ti_dtype dt;
    int32_t j;
    if (!e || (!e->v && !e->k)) { st = ti_error_set(err, TI_STATUS_INVALID, "graph output '%s' is not computed", vi->name); break; }
    if (!e->v && (st = ti__oi_materialize(&s, e)) != TI_STATUS_SUCCESS) break;
    rets[i] = e->v;
    if (vi->elem_type && ti_onnx_to_dtype(vi->elem_type, &dt) && dt != e->v->type->dtype) {
      st = ti_error_set(err, TI_STATUS_INVALID, "graph output '%s' is %s in the model, the import gives %s", vi->name,
                        ti_dtype_name(dt), ti_dtype_name(e->v->type->dtype));
      break;
    }
    if (vi->rank >= 0) {
      int same = vi->rank == e->v->type->rank;
      for (j = 0; same && j < vi->rank; j++)
        same = vi->dims[j].value < 0 || vi->dims[j].value == e->v->type->dims[j];
      if (!same) { st = ti_error_set(err, TI_STATUS_INVALID, "graph output '%s' has another shape in the model than the import infers", vi->name); break; }
    }
  }
  if (st == TI_STATUS_SUCCESS && !ti_build(&s.b, "builtin.return", m->graph.n_outputs, rets, 0, NULL, NULL))
    st = s.b.status != TI_STATUS_SUCCESS ? s.b.status : TI_STATUS_INVALID;
  if (st == TI_STATUS_SUCCESS) st = ti_verify(s.p, err);
  ti_arena_free(&s.tmp);
  if (st != TI_STATUS_SUCCESS) { ti_program_destroy(s.p); return st; }
  *program = s.p;
  return TI_STATUS_SUCCESS;
}

TASKIR_API ti_status ti_onnx_import(ti_context *ctx, const void *bytes, size_t len, const ti_onnx_options *opt,
                                    ti_program **program, ti_error *err) {
  ti_onnx_model m;
  ti_status st;
  if (program) *program = NULL;
  st = ti_onnx_decode(&m, bytes, len, ctx ? ctx->alloc_user : NULL, err);
  if (st == TI_STATUS_SUCCESS) st = ti_onnx_import_model(ctx, &m, opt, program, err);
  ti_onnx_model_free(&m);
  return st;
}

/* >>impl.onnx.quantize ----------------------------------------------------- */

/* What the analysis knows of a value (by its defining op's order, or the
   argument's index). */
enum { TI__QK_FLOAT, TI__QK_I8, TI__QK_I32, TI__QK_PARAM };
enum { TI__QR_NONE, TI__QR_LAYER, TI__QR_RETYPE, TI__QR_FOLD };

typedef struct ti__q_op {
  unsigned char kind;     /* TI__QK_* of result 0 */
  unsigned char nonneg;   /* integer and >= 0 (after a relu) */
  unsigned char dead;     /* part of a chain the rewrite removes */
  unsigned char role;     /* TI__QR_*: what the rewrite does with the op */
  unsigned char divisor;  /* a get_parameter read by a removed div */
  int32_t var;            /* a get_parameter: index of its variable + 1 (0: none), looked up once */
  ti_op *end;             /* LAYER: last op of the chain; FOLD: the floor / clip dropped */
  ti_value *bias;         /* LAYER: the bias operand, or NULL */
  int32_t shift;          /* LAYER: -1 for none (the i32 accumulator) */
  int32_t clip_min;
} ti__q_op;

typedef struct ti__q {
  ti_program *p;
  ti_quant_report *r;
  ti__q_op *ops, *args;
  unsigned char *reads;   /* get/set_parameter ops per variable (saturating) */
  int64_t n_ops;
  int32_t n_layers;
} ti__q;

static int ti__q_fail(ti__q *q, const char *tensor, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int ti__q_fail(ti__q *q, const char *tensor, const char *fmt, ...) {
  va_list ap;
  if (q->r->reason[0]) return 0;
  snprintf(q->r->tensor, sizeof q->r->tensor, "%s", tensor);
  va_start(ap, fmt);
  vsnprintf(q->r->reason, sizeof q->r->reason, fmt, ap);
  va_end(ap);
  if (!q->r->reason[0]) snprintf(q->r->reason, sizeof q->r->reason, "stays float");
  return 0;
}

static ti__q_op *ti__q_of(ti__q *q, const ti_value *v) {
  return v->def ? &q->ops[v->def->order] : &q->args[v->index];
}
/* The variable behind a get_parameter value, else NULL (looked up by
   ti__q_run's walk: the ops it rewrites have no record). */
static ti_variable *ti__q_var(ti__q *q, const ti_value *v) {
  if (!v || !v->def || v->def->order < 0 || v->def->order >= q->n_ops || !ti_op_is(v->def, "builtin.get_parameter")) return NULL;
  return q->ops[v->def->order].var ? &q->p->vars[q->ops[v->def->order].var - 1] : NULL;
}
static const char *ti__q_vname(const ti_value *v) { return ti_dict_string(v->def->attrs, "name", "?"); }
/* The one op using v, else NULL. */
static ti_op *ti__q_user(const ti_value *v) {
  return v->first_use && !v->first_use->next ? v->first_use->owner : NULL;
}
/* "op 12 (nn.softmax)": ops have no names; their index in program order. */
static const char *ti__q_opname(const ti_op *op, char *buf, size_t cap) {
  snprintf(buf, cap, "op %lld (%s)", (long long)op->order, op->info->name);
  return buf;
}

/* A weight (or bias) operand: an f32 variable read by this op alone, every
   element an integer in lo..hi. */
static int ti__q_weight(ti__q *q, const char *layer, const ti_value *v, double lo, double hi, const char *what) {
  ti_variable *var = ti__q_var(q, v);
  int64_t i, n;
  if (!var) return ti__q_fail(q, layer, "layer '%s': its %s is not a weight of the table", layer, what);
  if (var->type->dtype != TI_DTYPE_F32)
    return ti__q_fail(q, var->name, "%s '%s' is %s, not f32", what, var->name, ti_dtype_name(var->type->dtype));
  if (ti_value_num_uses(v) != 1 || q->reads[var - q->p->vars] != 1)
    return ti__q_fail(q, var->name, "%s '%s' is also read elsewhere", what, var->name);
  n = ti_type_numel(var->type);
  if (n < 0 || !var->data || var->bytes != n * 4) return ti__q_fail(q, var->name, "%s '%s' has no data", what, var->name);
  for (i = 0; i < n; i++) {
    float f;
    memcpy(&f, (const unsigned char *)var->data + (size_t)i * 4, 4);
    if (!(f == floor(f))) return ti__q_fail(q, var->name, "%s '%s' element %lld = %.9g is not an integer", what, var->name, (long long)i, (double)f);
    if (f < lo || f > hi)
      return ti__q_fail(q, var->name, "%s '%s' element %lld = %.9g is outside %.0f..%.0f", what, var->name, (long long)i, (double)f, lo, hi);
  }
  return 1;
}

static int ti__q_is_clip(const ti_op *op, double lo, double hi_min, double hi_max) {
  double a, b;
  if (!op || !ti_op_is(op, "nn.clip")) return 0;
  a = ti_dict_float(op->attrs, "min", NAN);
  b = ti_dict_float(op->attrs, "max", NAN);
  return a == lo && b >= hi_min && b <= hi_max;
}
static const char *ti__q_what(const ti_op *op, char *buf, size_t cap) {
  if (!op) snprintf(buf, cap, "several ops");
  else if (ti_op_is(op, "nn.clip"))
    snprintf(buf, cap, "clip(%.9g, %.9g)", ti_dict_float(op->attrs, "min", NAN), ti_dict_float(op->attrs, "max", NAN));
  else snprintf(buf, cap, "%s", op->info->name);
  return buf;
}

/* A conv2d / gemm / matmul and its requantisation chain. */
static int ti__q_layer(ti__q *q, ti_op *op) {
  ti__q_op *me = &q->ops[op->order], *e;
  int is_mm = ti_op_is(op, "nn.matmul"), is_gemm = ti_op_is(op, "nn.gemm");
  ti_value *x = op->operands[0].value, *w = op->operands[1].value, *b = NULL, *v;
  ti_op *last = op, *c1, *d, *f, *c2, *u;
  const char *layer;
  char buf[96], obuf[96];
  ti_variable *dv;
  double dk;
  int32_t k;
  if (!ti__q_var(q, w)) return ti__q_fail(q, ti__q_opname(op, obuf, sizeof obuf), "%s: its weight operand is not a weight of the table", obuf);
  layer = ti__q_vname(w);
  if (is_gemm) {
    if (ti_dict_float(op->attrs, "alpha", 1) != 1 || ti_dict_float(op->attrs, "beta", 1) != 1 || ti_dict_int(op->attrs, "trans_a", 0))
      return ti__q_fail(q, layer, "layer '%s': gemm with alpha/beta other than 1 or trans_a", layer);
    if (op->n_operands > 2) b = op->operands[2].value;
  } else if (is_mm) {
    int32_t r = x->type->rank, j;
    int ok = r >= 2 && (w->type->rank == r || w->type->rank == 2) && !ti_dict_int(op->attrs, "transpose_a", 0) &&
             !ti_dict_int(op->attrs, "transpose_b", 0);
    /* a weight with batch dims: all of them 1 (one matrix for every row) */
    for (j = 0; ok && w->type->rank > 2 && j < r - 2; j++) ok = x->type->dims[j] == 1 && w->type->dims[j] == 1;
    if (!ok) return ti__q_fail(q, layer, "layer '%s': matmul that is not [..,M,K] x [K,N] or [1..,M,K] x [1..,K,N] (one weight matrix)", layer);
    u = ti__q_user(&op->results[0]);
    if (u && ti_op_is(u, "nn.add")) {   /* matmul + constant bias: a gemm */
      ti_value *o = u->operands[u->operands[0].value == &op->results[0] ? 1 : 0].value;
      if (ti__q_var(q, o) && o->type->rank == 1) { b = o; last = u; q->ops[u->order].dead = 1; }
    }
  } else if (op->n_operands > 2) b = op->operands[2].value;
  if (!ti__q_weight(q, layer, w, -128, 127, "weight")) return 0;
  if (b && !ti__q_weight(q, layer, b, -2147483648.0, 2147483647.0, "bias")) return 0;
  if (ti__q_of(q, x)->kind != TI__QK_I8) {
    if (x->def) ti__q_opname(x->def, obuf, sizeof obuf); else snprintf(obuf, sizeof obuf, "argument %d", (int)x->index);
    return ti__q_fail(q, layer, "layer '%s': its input (from %s) is not an integer value in -128..127", layer, obuf);
  }
  c1 = ti__q_user(&last->results[0]);
  if (!ti__q_is_clip(c1, -2147483648.0, 2147483647.0, 2147483648.0))
    return ti__q_fail(q, layer, "layer '%s': its result goes to %s, not to clip(-2^31, 2^31)", layer,
                      ti__q_what(c1, buf, sizeof buf));
  me->role = TI__QR_LAYER;
  me->bias = b;
  me->shift = -1;
  me->clip_min = -128;
  me->end = c1;
  q->ops[c1->order].dead = 1;
  v = &c1->results[0];
  if (v->first_use) {
    ti_use *us;
    int only_ret = 1;
    for (us = v->first_use; us; us = us->next) only_ret = only_ret && ti_op_is(us->owner, "builtin.return");
    if (only_ret) goto done;   /* the last layer: the i32 accumulator */
  }
  d = ti__q_user(v);
  if (!d || !ti_op_is(d, "nn.div") || d->operands[0].value != v)
    return ti__q_fail(q, layer, "layer '%s': clip(-2^31, 2^31) goes to %s, not to div (or only to the results)", layer,
                      ti__q_what(d, buf, sizeof buf));
  dv = ti__q_var(q, d->operands[1].value);
  if (!dv || dv->type->dtype != TI_DTYPE_F32 || ti_type_numel(dv->type) != 1 || !dv->data)
    return ti__q_fail(q, layer, "layer '%s': div by something other than one constant f32", layer);
  {
    float fv;
    memcpy(&fv, dv->data, 4);
    dk = fv;
  }
  for (k = 0; k <= 31 && (double)((int64_t)1 << k) != dk; k++) {}
  if (k > 31) return ti__q_fail(q, dv->name, "layer '%s': div by '%s' = %.9g, not a power of two (1..2^31)", layer, dv->name, dk);
  f = ti__q_user(&d->results[0]);
  if (!f || !ti_op_is(f, "nn.floor"))
    return ti__q_fail(q, layer, "layer '%s': div goes to %s, not to floor", layer, ti__q_what(f, buf, sizeof buf));
  c2 = ti__q_user(&f->results[0]);
  if (!ti__q_is_clip(c2, -128, 127, 127))
    return ti__q_fail(q, layer, "layer '%s': floor goes to %s, not to clip(-128, 127)", layer, ti__q_what(c2, buf, sizeof buf));
  q->ops[d->order].dead = q->ops[f->order].dead = q->ops[c2->order].dead = 1;
  q->ops[d->operands[1].value->def->order].divisor = 1;
  me->shift = k;
  me->end = c2;
  u = ti__q_user(&c2->results[0]);
  if (u && (ti_op_is(u, "nn.relu") || ti__q_is_clip(u, 0, 127, 127))) {
    me->clip_min = 0;
    me->end = u;
    q->ops[u->order].dead = 1;
  }
done:
  e = &q->ops[me->end->order];
  e->kind = me->shift >= 0 ? TI__QK_I8 : TI__QK_I32;
  e->nonneg = me->shift >= 0 && me->clip_min >= 0;
  q->n_layers++;
  return 1;
}

static int ti__q_analyze(ti__q *q) {
  ti_op *op;
  char buf[96], obuf[96];
  int32_t i;
  for (op = q->p->first; op; op = op->next) {
    ti__q_op *me = &q->ops[op->order];
    ti__q_op *a0 = NULL;
    const char *nm = op->info->name;
    int all_param = 1, all_int = op->n_operands > 0, kind, nonneg = 1;
    if (me->dead) continue;
    if (ti_op_is(op, "builtin.get_parameter") || ti_op_is(op, "builtin.constant")) { me->kind = TI__QK_PARAM; continue; }
    for (i = 0; i < op->n_operands; i++) {   /* (an unverified program: no crash) */
      const ti_value *v = op->operands[i].value;
      if (!v || (v->def ? v->def->program != q->p : (v->index < 0 || v->index >= q->p->n_args || q->p->args[v->index] != v)))
        return ti__q_fail(q, "", "op %lld (%s): operand %d is not a value of this program (verify it first)",
                          (long long)op->order, nm, (int)i);
    }
    if (op->n_operands && !a0) a0 = ti__q_of(q, op->operands[0].value);
    kind = a0 ? (int)a0->kind : (int)TI__QK_FLOAT;
    for (i = 0; i < op->n_operands; i++) {
      ti__q_op *s = ti__q_of(q, op->operands[i].value);
      all_param = all_param && s->kind == TI__QK_PARAM;
      all_int = all_int && s->kind == kind && (kind == TI__QK_I8 || kind == TI__QK_I32);
      nonneg = nonneg && s->nonneg;
    }
    if (ti_op_is(op, "builtin.return")) {
      for (i = 0; i < op->n_operands; i++) {
        int kk = ti__q_of(q, op->operands[i].value)->kind;
        if (kk != TI__QK_I8 && kk != TI__QK_I32) {
          const ti_value *v = op->operands[i].value;
          if (v->def) ti__q_opname(v->def, obuf, sizeof obuf); else snprintf(obuf, sizeof obuf, "argument %d", (int)v->index);
          return ti__q_fail(q, obuf, "result %d (from %s) is not the result of a quantised chain", (int)i, obuf);
        }
      }
      continue;
    }
    if (op->n_operands && all_param && op->n_results == 1) { me->kind = TI__QK_PARAM; continue; }
    if (ti_op_is(op, "nn.conv2d") || ti_op_is(op, "nn.gemm") || ti_op_is(op, "nn.matmul")) {
      if (!ti__q_layer(q, op)) return 0;
      continue;
    }
    ti__q_opname(op, obuf, sizeof obuf);
    if (!all_int)
      return ti__q_fail(q, obuf, "%s works on a float value: it is not between quantised layers", obuf);
    if (!strcmp(nm, "nn.max_pool") || !strcmp(nm, "nn.reshape") || !strcmp(nm, "nn.flatten") ||
        !strcmp(nm, "nn.transpose") || !strcmp(nm, "nn.concat") || !strcmp(nm, "nn.broadcast")) {
      me->kind = (unsigned char)kind;
      me->nonneg = (unsigned char)nonneg;
      me->role = TI__QR_RETYPE;
      continue;
    }
    if (!strcmp(nm, "nn.avg_pool") || !strcmp(nm, "nn.global_avg_pool") || !strcmp(nm, "nn.add")) {
      int is_add = nm[3] == 'a' && nm[4] == 'd';
      ti_op *u = ti__q_user(&op->results[0]);
      if (kind != TI__QK_I8) return ti__q_fail(q, obuf, "%s works on i32 values (only i8 ones are mapped)", obuf);
      if (is_add ? !ti__q_is_clip(u, -128, 127, 127) : !(u && ti_op_is(u, "nn.floor")))
        return ti__q_fail(q, obuf, "%s goes to %s, not to %s", obuf, ti__q_what(u, buf, sizeof buf),
                          is_add ? "clip(-128, 127) (an i8 sum saturates)" : "floor (an integer mean)");
      if (!is_add && !nonneg)
        return ti__q_fail(q, obuf, "%s averages values that may be negative (floor of the mean would differ from the integer mean)", obuf);
      me->role = TI__QR_FOLD;
      me->end = u;
      q->ops[u->order].dead = 1;
      q->ops[u->order].kind = TI__QK_I8;
      q->ops[u->order].nonneg = (unsigned char)nonneg;
      continue;
    }
    return ti__q_fail(q, obuf, "%s has no integer form here", obuf);
  }
  if (!q->n_layers) return ti__q_fail(q, "", "no conv2d, gemm or matmul layer");
  return 1;
}

/* The i8 / i32 form of a weight, in place (new data in the program's arena);
   last2: also dropped to its last two dims (the leading ones are 1). */
static ti_status ti__q_retype_weight(ti__q *q, ti_value *v, ti_dtype dt, int last2, ti_error *err) {
  ti_variable *var = ti__q_var(q, v);
  const ti_type *t = var->type;
  int64_t n = ti_type_numel(t), i;
  size_t es = ti_dtype_size(dt);
  unsigned char *d = (unsigned char *)ti_arena_alloc_uninit(&q->p->arena, (size_t)n * es + 1, 16);   /* filled below */
  int32_t r = last2 ? 2 : t->rank, rv = last2 ? 2 : v->type->rank;
  const ti_type *nt = ti_type_get(q->p->ctx, t->kind, dt, r, t->dims + (t->rank - r), t->layout);
  const ti_type *vt = ti_type_get(q->p->ctx, v->type->kind, dt, rv, v->type->dims + (v->type->rank - rv), v->type->layout);
  if (!d || !nt || !vt) return ti_error_set(err, TI_STATUS_NO_MEMORY, "quantize-recognize: out of memory retyping '%s'", var->name);
  for (i = 0; i < n; i++) {
    float f;
    memcpy(&f, (const unsigned char *)var->data + (size_t)i * 4, 4);
    if (dt == TI_DTYPE_I8) ((int8_t *)d)[i] = (int8_t)f;
    else { int32_t iv = (int32_t)f; memcpy(d + (size_t)i * 4, &iv, 4); }
  }
  var->data = d;
  var->type = nt;
  var->bytes = n * (int64_t)es;
  v->type = vt;
  return TI_STATUS_SUCCESS;
}

static ti_status ti__q_retype(ti__q *q, ti_op *op, ti_error *err) {
  const ti_type *rt[2] = {NULL, NULL};
  ti_status st = op->info->infer_shape ? op->info->infer_shape(q->p->ctx, op, rt, err) : TI_STATUS_INVALID;
  if (st != TI_STATUS_SUCCESS || !rt[0]) return st != TI_STATUS_SUCCESS ? st : ti_error_set(err, TI_STATUS_INVALID, "quantize-recognize: cannot retype %s", op->info->name);
  op->results[0].type = rt[0];
  return TI_STATUS_SUCCESS;
}

static ti_status ti__q_rewrite(ti__q *q, ti_error *err) {
  ti_context *ctx = q->p->ctx;
  ti_op *op, *prev;
  int32_t i, j;
  unsigned char *drop = NULL;
  ti_status st = TI_STATUS_SUCCESS;
  for (i = 0; i < q->p->n_args; i++) {
    ti_value *a = q->p->args[i];
    const ti_type *t = a->type;
    if (t->dtype != TI_DTYPE_F32 || !a->first_use) continue;
    if (!(a->type = ti_type_get(ctx, t->kind, TI_DTYPE_I8, t->rank, t->dims, t->layout)))
      return ti_error_set(err, TI_STATUS_NO_MEMORY, "quantize-recognize: out of memory");
    q->r->n_args++;
  }
  for (op = q->p->first; op && st == TI_STATUS_SUCCESS; op = op->next) {
    ti__q_op *me = &q->ops[op->order];
    if (me->role == TI__QR_RETYPE || me->role == TI__QR_FOLD) {
      if ((st = ti__q_retype(q, op, err)) == TI_STATUS_SUCCESS && me->role == TI__QR_FOLD)
        ti_value_replace_all_uses(&me->end->results[0], &op->results[0]);
    } else if (me->role == TI__QR_LAYER) {
      int conv = ti_op_is(op, "nn.conv2d");
      ti_value *ops[3];
      const ti_attr *at = op->attrs;
      ti_op *nq;
      ops[0] = op->operands[0].value;
      ops[1] = op->operands[1].value;
      ops[2] = me->bias;
      int32_t rank = op->results[0].type->rank;
      ti_op *rs = NULL;
      if (!conv && rank > 2) {   /* a matmul with batch dims: its rows as one [rows, K] matrix around the quant_gemm */
        int64_t d2[2] = {1, ops[0]->type->dims[rank - 1]};
        int32_t j;
        for (j = 0; j < rank - 1; j++) d2[0] *= ops[0]->type->dims[j];
        ti_named_attr sh = ti_named(ctx, "shape", ti_attr_int_array(ctx, d2, 2));
        ti_op *r0 = ti_op_create(q->p, "nn.reshape", 1, ops, 1, NULL, ti_attr_dict(ctx, &sh, 1), err);
        if (!r0) { st = err && err->status ? err->status : TI_STATUS_NO_MEMORY; break; }
        r0->order = q->n_ops + q->p->n_args;   /* new ops: the spare (empty) record */
        ti_op_insert_before(r0, me->end);
        ops[0] = &r0->results[0];
      }
      if ((st = ti__q_retype_weight(q, ops[1], TI_DTYPE_I8, !conv && rank > 2, err)) != TI_STATUS_SUCCESS) break;
      if (me->bias && (st = ti__q_retype_weight(q, me->bias, TI_DTYPE_I32, 0, err)) != TI_STATUS_SUCCESS) break;
      if (!conv) {
        at = ti_dict_set(ctx, ti_dict_set(ctx, at, "alpha", NULL), "beta", NULL);
        if (ti_op_is(op, "nn.matmul")) at = ti_dict_set(ctx, ti_dict_set(ctx, at, "transpose_a", NULL), "transpose_b", NULL);
      }
      if (me->shift >= 0) {
        at = ti_dict_set(ctx, at, "shift", ti_attr_int(ctx, me->shift));
        at = ti_dict_set(ctx, at, "clip_min", ti_attr_int(ctx, me->clip_min));
      }
      if (!at) { st = ti_error_set(err, TI_STATUS_NO_MEMORY, "quantize-recognize: out of memory"); break; }
      nq = ti_op_create(q->p, conv ? "nn.quant_conv2d" : "nn.quant_gemm", me->bias ? 3 : 2, ops, 1, NULL, at, err);
      if (!nq) { st = err && err->status ? err->status : TI_STATUS_INVALID; break; }
      nq->order = q->n_ops + q->p->n_args;
      ti_op_insert_before(nq, me->end);
      if (!conv && rank > 2) {
        ti_value *y = &nq->results[0];
        ti_named_attr sh = ti_named(ctx, "shape", ti_attr_int_array(ctx, op->results[0].type->dims, rank));
        if (!(rs = ti_op_create(q->p, "nn.reshape", 1, &y, 1, NULL, ti_attr_dict(ctx, &sh, 1), err))) {
          st = err && err->status ? err->status : TI_STATUS_NO_MEMORY;
          break;
        }
        rs->order = q->n_ops + q->p->n_args;
        ti_op_insert_before(rs, me->end);
      }
      ti_value_replace_all_uses(&me->end->results[0], rs ? &rs->results[0] : &nq->results[0]);
    }
  }
  if (st != TI_STATUS_SUCCESS) return st;
  if (q->p->n_vars && !(drop = (unsigned char *)TASKIR_MALLOC(ctx->alloc_user, (size_t)q->p->n_vars))) 
    return ti_error_set(err, TI_STATUS_NO_MEMORY, "quantize-recognize: out of memory");
  if (drop) memset(drop, 0, (size_t)q->p->n_vars);
  /* the chains, last op first (each op's users go before it), and the
     divisors' reads left without a use */
  for (op = q->p->last; op && st == TI_STATUS_SUCCESS; op = prev) {
    prev = op->prev;
    if (q->ops[op->order].dead || q->ops[op->order].role == TI__QR_LAYER) st = ti_op_erase(op, err);
    else if (q->ops[op->order].divisor && !op->results[0].first_use) {
      ti_variable *var = ti__q_var(q, &op->results[0]);
      if (var && q->reads[var - q->p->vars] == 1) drop[var - q->p->vars] = 1;
      st = ti_op_erase(op, err);
    }
  }
  if (st == TI_STATUS_SUCCESS && drop) {   /* variables nobody reads any more */
    for (i = j = 0; i < q->p->n_vars; i++)
      if (!drop[i]) q->p->vars[j++] = q->p->vars[i];
    if (j != q->p->n_vars) {
      q->p->n_vars = j;
      if (q->p->var_slots) memset(q->p->var_slots, 0, (size_t)q->p->var_slots_cap * sizeof *q->p->var_slots);
      q->p->var_slots_n = 0;
    }
  }
  if (drop) TASKIR_FREE(ctx->alloc_user, drop);
  q->r->n_layers = q->n_layers;
  return st;
}

static ti_status ti__q_run(ti_program *p, ti_quant_report *report, int rewrite, ti_error *err) {
  ti__q q;
  ti_quant_report local;
  ti_op *op;
  int64_t n = 0;
  int32_t i;
  ti_status st = TI_STATUS_SUCCESS;
  ti_error_clear(err);
  if (!report) report = &local;
  memset(report, 0, sizeof *report);
  if (!p) return ti_error_set(err, TI_STATUS_BAD_PARAM, "quantize-recognize: NULL program");
  if (p->kind != TI_PROGRAM_SSA) return ti_error_set(err, TI_STATUS_BAD_PARAM, "quantize-recognize: an SSA (nn) program is needed");
  memset(&q, 0, sizeof q);
  q.p = p;
  q.r = report;
  q.n_ops = p->n_ops;
  q.ops = (ti__q_op *)TASKIR_MALLOC(p->ctx->alloc_user, (size_t)(q.n_ops + p->n_args + 1) * sizeof *q.ops);
  q.reads = (unsigned char *)TASKIR_MALLOC(p->ctx->alloc_user, (size_t)p->n_vars + 1);
  if (!q.ops || !q.reads) st = ti_error_set(err, TI_STATUS_NO_MEMORY, "quantize-recognize: out of memory");
  if (st == TI_STATUS_SUCCESS) {
    memset(q.ops, 0, (size_t)(q.n_ops + p->n_args + 1) * sizeof *q.ops);
    memset(q.reads, 0, (size_t)p->n_vars + 1);
    q.args = q.ops + q.n_ops;
    for (i = 0; i < p->n_args; i++) q.args[i].kind = p->args[i]->type->dtype == TI_DTYPE_F32 ? TI__QK_I8 : TI__QK_FLOAT;
    /* one walk: program order, and each parameter op's variable (looked up
       once: a name lookup is a hash probe plus a string compare at a random
       place, which in a model larger than the cache is a miss each time) */
    for (op = p->first; op && n < q.n_ops; op = op->next) {
      int get = ti_op_is(op, "builtin.get_parameter");
      op->order = n++;
      if (get || ti_op_is(op, "builtin.set_parameter")) {
        ti_variable *var = ti_program_find_var(p, ti_dict_string(op->attrs, "name", ""));
        if (!var) continue;
        if (q.reads[var - p->vars] < 255) q.reads[var - p->vars]++;
        if (get) q.ops[op->order].var = (int32_t)(var - p->vars) + 1;
      }
    }
    if (op || n != q.n_ops)
      st = ti_error_set(err, TI_STATUS_INVALID, "quantize-recognize: the program counts %lld ops but lists %s%lld",
                        (long long)q.n_ops, op ? "more than " : "", (long long)n);
  }
  if (st == TI_STATUS_SUCCESS) {
    if (ti__q_analyze(&q)) {
      report->n_layers = q.n_layers;
      if (rewrite) st = ti__q_rewrite(&q, err);
    } else report->n_layers = 0;
  }
  if (q.ops) TASKIR_FREE(p->ctx->alloc_user, q.ops);
  if (q.reads) TASKIR_FREE(p->ctx->alloc_user, q.reads);
  return st;
}

TASKIR_API ti_status ti_quantize_analyze(ti_program *p, ti_quant_report *report, ti_error *err) {
  return ti__q_run(p, report, 0, err);
}
TASKIR_API ti_status ti_quantize_recognize(ti_program *p, ti_quant_report *report, ti_error *err) {
  return ti__q_run(p, report, 1, err);
}
TASKIR_API ti_status ti_pass_quantize_recognize(ti_program *p, void *user, ti_error *err) {
  return ti__q_run(p, (ti_quant_report *)user, 1, err);
}

static const ti_pass ti__onnx_passes[] = {{"quantize-recognize", ti_pass_quantize_recognize, NULL}};

TASKIR_API const ti_pass *ti_onnx_passes(int32_t *n) {
  if (n) *n = (int32_t)(sizeof ti__onnx_passes / sizeof *ti__onnx_passes);
  return ti__onnx_passes;
}

TASKIR_API ti_status ti_onnx_pass_manager_add_named(ti_pass_manager *pm, const char *names, ti_error *err) {
  return ti_pass_manager_add_named_from(pm, names, ti__onnx_passes,
                                        (int32_t)(sizeof ti__onnx_passes / sizeof *ti__onnx_passes), err);
}

#undef TI__OI_TRY
#undef TI__OI_D1
#undef TI__OI_D2
#endif /* TASKIR_IMPLEMENTATION */
