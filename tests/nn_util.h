/* nn_util.h - helpers shared by the nn and passes tests: one-op programs
   built with the builder and run by the interpreter, attributes, tensors. */
#ifndef NN_UTIL_H
#define NN_UTIL_H
#include <stdarg.h>
#include <math.h>
#include "taskir.h"
#include "tt.h"

static inline ti_context *nu_ctx(void) {
  ti_error e;
  ti_context *c = ti_context_create(NULL);
  ti_error_clear(&e);
  if (!c || ti_nn_register(c, &e) != TI_STATUS_SUCCESS) {
    fprintf(stderr, "context: %s\n", e.message);
    exit(1);
  }
  return c;
}

/* Int array attribute from n ints. */
static inline const ti_attr *nu_ints(ti_context *c, int n, ...) {
  int64_t v[16];
  int i;
  va_list ap;
  va_start(ap, n);
  for (i = 0; i < n; i++) v[i] = va_arg(ap, int);
  va_end(ap);
  return ti_attr_int_array(c, v, n);
}
/* Dict from n (name, attr) pairs. */
static inline const ti_attr *nu_dict(ti_context *c, int n, ...) {
  ti_named_attr items[16];
  int i;
  va_list ap;
  va_start(ap, n);
  for (i = 0; i < n; i++) {
    const char *name = va_arg(ap, const char *);
    const ti_attr *a = va_arg(ap, const ti_attr *);
    items[i] = ti_named(c, name, a);
  }
  va_end(ap);
  return ti_attr_dict(c, items, n);
}

/* Tensor with dims (rank n) and data (NULL: zeros). */
static inline ti_tensor_value *nu_t(ti_dtype dt, ti_layout l, int rank, const int64_t *dims, const void *data) {
  ti_error e;
  ti_tensor_value *t;
  ti_error_clear(&e);
  t = ti_tensor_create(NULL, dt, rank, dims, l, data, &e);
  if (!t) { fprintf(stderr, "tensor: %s\n", e.message); exit(1); }
  return t;
}
static inline ti_tensor_value *nu_f(ti_layout l, int rank, const int64_t *dims, const float *data) {
  return nu_t(TI_DTYPE_F32, l, rank, dims, data);
}
/* Uniform random values in [lo, hi] (integers for integer dtypes). */
static inline void nu_fill(ti_tensor_value *t, tt_rng *r, double lo, double hi) {
  int64_t i;
  for (i = 0; i < t->numel; i++) {
    double u = (double)(tt_next(r) >> 11) / 9007199254740992.0;
    double v = lo + (hi - lo) * u;
    if (t->dtype != TI_DTYPE_F32 && t->dtype != TI_DTYPE_F64) v = floor(v + 0.5);
    ti_tensor_set(t, i, v);
  }
}
static inline ti_tensor_value *nu_rand(ti_dtype dt, ti_layout l, int rank, const int64_t *dims, tt_rng *r, double lo, double hi) {
  ti_tensor_value *t = nu_t(dt, l, rank, dims, NULL);
  nu_fill(t, r, lo, hi);
  return t;
}

/* Builds `program @t(inputs...) { results = name(inputs) attrs; return results }`
   with inferred result types, verifies it and runs it. Returns the status;
   outs get n_res tensors. kind: the type kind of the arguments. */
static inline ti_status nu_run_kind(ti_context *c, const char *name, int n_in, ti_tensor_value *const *in, const ti_attr *attrs,
                             int n_res, ti_tensor_value **outs, ti_type_kind kind, ti_error *e) {
  ti_program *p = ti_program_create(c, "t", TI_PROGRAM_SSA);
  ti_value *args[16];
  ti_op *op, *ret;
  ti_status st;
  int32_t n_out = n_res;
  int i;
  ti_error_clear(e);
  for (i = 0; i < n_in; i++)
    args[i] = ti_program_add_arg(p, ti_type_get(c, kind, in[i]->dtype, in[i]->rank, in[i]->dims, in[i]->layout));
  op = ti_op_create(p, name, n_in, args, n_res, NULL, attrs, e);
  if (!op) { ti_program_destroy(p); return e->status; }
  ti_op_insert_before(op, NULL);
  {
    ti_value *rv[4];
    for (i = 0; i < n_res; i++) rv[i] = &op->results[i];
    ret = ti_op_create(p, "builtin.return", n_res, rv, 0, NULL, NULL, e);
    if (!ret) { ti_program_destroy(p); return e->status; }
    ti_op_insert_before(ret, NULL);
  }
  st = ti_verify(p, e);
  if (st == TI_STATUS_SUCCESS) st = ti_interpret(p, (const ti_tensor_value *const *)in, n_in, outs, &n_out, e);
  if (st == TI_STATUS_SUCCESS && n_out != n_res) st = TI_STATUS_INVALID;
  ti_program_destroy(p);
  return st;
}
static inline ti_status nu_run(ti_context *c, const char *name, int n_in, ti_tensor_value *const *in, const ti_attr *attrs,
                        int n_res, ti_tensor_value **outs, ti_error *e) {
  return nu_run_kind(c, name, n_in, in, attrs, n_res, outs, TI_TYPE_VTENSOR, e);
}
/* Runs and returns the single result, or NULL (message printed). */
static inline ti_tensor_value *nu_run1(ti_context *c, const char *name, int n_in, ti_tensor_value *const *in, const ti_attr *attrs) {
  ti_error e;
  ti_tensor_value *out = NULL;
  if (nu_run(c, name, n_in, in, attrs, 1, &out, &e) != TI_STATUS_SUCCESS) {
    fprintf(stderr, "    %s: %s\n", name, e.message);
    return NULL;
  }
  return out;
}
/* Element i as double (NULL-safe for failing tests). */
static inline double nu_at(const ti_tensor_value *t, int64_t i) { return t && i < t->numel ? ti_tensor_get(t, i) : NAN; }
static inline int nu_dims_are(const ti_tensor_value *t, int rank, const int64_t *dims) {
  int i;
  if (!t || t->rank != rank) return 0;
  for (i = 0; i < rank; i++) if (t->dims[i] != dims[i]) return 0;
  return 1;
}
static inline void nu_free_all(int n, ti_tensor_value **t) {
  int i;
  for (i = 0; i < n; i++) ti_tensor_free(t[i]);
}
#endif
