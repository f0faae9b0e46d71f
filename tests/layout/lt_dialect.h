/* lt_dialect.h - a small test dialect "lt" for the layout passes: ops with
   traits and layout interfaces like the nn ones, and a reference interpreter
   that executes 4-D data in the memory order its type's layout names.
   The layout passes know none of these names: they see traits and
   interfaces only (the transpose op is named through ti_layout_options).

   lt.conv(x, w)      1x1 convolution, demands NHWC/HWOI, fixed layout
                      (attr data_format, default "NCHW") when nothing is known
   lt.gemm(x, w)      [.., K] x [K, M], fixed layout NTENSOR
   lt.relu(x)         elementwise, any layout
   lt.add(x, y)       elementwise on memory order: equal dims required
   lt.concat(x, ...)  demands NHWC, joins along logical axis `axis` (default C)
   lt.mirror(x)       demands NHWC, flips W (logical)
   lt.reshape(x)      memory-order reinterpretation, not invertible
   lt.broadcast(x)    numpy broadcast to the result dims, not invertible
   lt.transpose(x)    {perm}: out.dims[i] = in.dims[perm[i]] */
#ifndef LT_DIALECT_H
#define LT_DIALECT_H
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "taskir_layout.h"

static inline int lt_is_act(ti_layout l) { return l == TI_LAYOUT_NCHW || l == TI_LAYOUT_NHWC; }
static inline int lt_is_wt(ti_layout l) { return l == TI_LAYOUT_OIHW || l == TI_LAYOUT_HWOI; }

static inline ti_layout lt_attr_format(const ti_op *op) {
  const char *f = ti_dict_string(op->attrs, "data_format", "NCHW");
  return strcmp(f, "NHWC") == 0 ? TI_LAYOUT_NHWC : TI_LAYOUT_NCHW;
}

/* --- layout interfaces --------------------------------------------------- */

static inline ti_status lt_conv_fwd(const ti_op *op, const ti_layout *in, ti_layout *out) {
  ti_layout x = in[0] == TI_LAYOUT_ANY ? lt_attr_format(op) : in[0];
  if (!lt_is_act(x) || !(in[1] == TI_LAYOUT_ANY || lt_is_wt(in[1]))) return TI_STATUS_NOT_SUPPORTED;
  out[0] = x;
  return TI_STATUS_SUCCESS;
}
static inline int lt_conv_bwd(const ti_op *op, const ti_layout *res, ti_layout *in) {
  ti_layout r = lt_is_act(res[0]) ? res[0] : lt_attr_format(op);
  in[0] = r;
  in[1] = r == TI_LAYOUT_NHWC ? TI_LAYOUT_HWOI : TI_LAYOUT_OIHW;
  return 1;
}
static inline ti_status lt_gemm_fwd(const ti_op *op, const ti_layout *in, ti_layout *out) {
  (void)op; (void)in;
  out[0] = TI_LAYOUT_NTENSOR;
  return TI_STATUS_SUCCESS;
}
static inline int lt_gemm_bwd(const ti_op *op, const ti_layout *res, ti_layout *in) {
  (void)op; (void)res;
  in[0] = TI_LAYOUT_NTENSOR; in[1] = TI_LAYOUT_TENSOR;
  return 1;
}
/* all operands and results share one layout */
static inline ti_status lt_same_fwd(const ti_op *op, const ti_layout *in, ti_layout *out) {
  ti_layout l = TI_LAYOUT_ANY;
  int32_t i;
  for (i = 0; i < op->n_operands; i++) {
    if (in[i] == TI_LAYOUT_ANY) continue;
    if (l != TI_LAYOUT_ANY && in[i] != l) return TI_STATUS_NOT_SUPPORTED;
    l = in[i];
  }
  for (i = 0; i < op->n_results; i++) out[i] = l;
  return TI_STATUS_SUCCESS;
}
static inline int lt_same_bwd(const ti_op *op, const ti_layout *res, ti_layout *in) {
  int32_t i;
  for (i = 0; i < op->n_operands; i++) in[i] = res[0];
  return 1;
}
static inline ti_status lt_reshape_fwd(const ti_op *op, const ti_layout *in, ti_layout *out) {
  int32_t r = op->results[0].type->rank;
  if (in[0] == TI_LAYOUT_ANY) out[0] = TI_LAYOUT_ANY;
  else if (r == 4) out[0] = TI_LAYOUT_NCHW;
  else if (in[0] == TI_LAYOUT_NTENSOR && r >= 3 && r <= 6) out[0] = TI_LAYOUT_NTENSOR;
  else out[0] = TI_LAYOUT_TENSOR;
  return TI_STATUS_SUCCESS;
}
static inline int lt_noinv_bwd(const ti_op *op, const ti_layout *res, ti_layout *in) {
  (void)op; (void)res; (void)in;
  return 0;
}
static inline ti_status lt_bcast_fwd(const ti_op *op, const ti_layout *in, ti_layout *out) {
  out[0] = op->results[0].type->rank == op->operands[0].value->type->rank ? in[0] : TI_LAYOUT_TENSOR;
  return TI_STATUS_SUCCESS;
}
static inline int lt_perm_of(const ti_op *op, int64_t perm[4]) {
  return ti_dict_ints(op->attrs, "perm", perm, 4) == 4;
}
static inline ti_layout lt_layout_by_perm(ti_layout from, const int64_t perm[4], int backward) {
  static const ti_layout cands[4] = { TI_LAYOUT_NCHW, TI_LAYOUT_NHWC, TI_LAYOUT_OIHW, TI_LAYOUT_HWOI };
  int c, i;
  for (c = 0; c < 4; c++) {
    int64_t q[4];
    int ok;
    if (!(backward ? ti_layout_perm(cands[c], from, q) : ti_layout_perm(from, cands[c], q))) return TI_LAYOUT_ANY;
    if (lt_is_act(from) != lt_is_act(cands[c])) continue;
    for (ok = 1, i = 0; i < 4; i++) ok &= q[i] == perm[i];
    if (ok) return cands[c];
  }
  return TI_LAYOUT_TENSOR;
}
static inline ti_status lt_transpose_fwd(const ti_op *op, const ti_layout *in, ti_layout *out) {
  int64_t perm[4];
  if (in[0] == TI_LAYOUT_ANY) { out[0] = TI_LAYOUT_ANY; return TI_STATUS_SUCCESS; }
  if (!lt_perm_of(op, perm) || !ti_layout_is_cnn(in[0])) { out[0] = TI_LAYOUT_TENSOR; return TI_STATUS_SUCCESS; }
  out[0] = lt_layout_by_perm(in[0], perm, 0);
  return TI_STATUS_SUCCESS;
}
static inline int lt_transpose_bwd(const ti_op *op, const ti_layout *res, ti_layout *in) {
  int64_t perm[4];
  in[0] = TI_LAYOUT_ANY;
  if (lt_perm_of(op, perm) && ti_layout_is_cnn(res[0])) {
    ti_layout l = lt_layout_by_perm(res[0], perm, 1);
    if (l != TI_LAYOUT_TENSOR) in[0] = l;
  }
  return 1;
}

static const ti_layout_iface lt_conv_li = { lt_conv_fwd, lt_conv_bwd };
static const ti_layout_iface lt_gemm_li = { lt_gemm_fwd, lt_gemm_bwd };
static const ti_layout_iface lt_same_li = { lt_same_fwd, lt_same_bwd };
static const ti_layout_iface lt_reshape_li = { lt_reshape_fwd, lt_noinv_bwd };
static const ti_layout_iface lt_bcast_li = { lt_bcast_fwd, lt_noinv_bwd };
static const ti_layout_iface lt_transpose_li = { lt_transpose_fwd, lt_transpose_bwd };

/* --- verifiers: the rewritten program must still make sense ------------- */

/* logical dims (N,C,H,W / O,I,H,W) of a 4-D type; 0 if its layout is not 4-D */
static inline int lt_logical(const ti_type *t, int64_t ld[4]) {
  int64_t perm[4];
  int i;
  ti_layout l = t->layout;
  if (t->rank != 4) return 0;
  if (!ti_layout_is_cnn(l)) l = TI_LAYOUT_NCHW;   /* unlabelled 4-D data: NCHW */
  ti_layout_perm(l, lt_is_wt(l) ? TI_LAYOUT_OIHW : TI_LAYOUT_NCHW, perm);
  for (i = 0; i < 4; i++) ld[i] = t->dims[perm[i]];
  return 1;
}

static inline ti_status lt_verify_conv(const ti_op *op, ti_error *err) {
  const ti_type *x = op->operands[0].value->type, *w = op->operands[1].value->type, *r = op->results[0].type;
  int64_t lx[4], lw[4], lr[4];
  if (!lt_logical(x, lx) || !lt_logical(w, lw) || !lt_logical(r, lr))
    return ti_error_set(err, TI_STATUS_INVALID, "lt.conv: 4-D operands and result expected");
  if (x->layout == TI_LAYOUT_ANY || w->layout == TI_LAYOUT_ANY) return TI_STATUS_SUCCESS;   /* not coloured yet */
  if (lx[1] != lw[1] || lw[2] != 1 || lw[3] != 1 || lr[0] != lx[0] || lr[1] != lw[0] || lr[2] != lx[2] || lr[3] != lx[3])
    return ti_error_set(err, TI_STATUS_INVALID, "lt.conv: dims disagree");
  if (r->layout != TI_LAYOUT_ANY && x->layout != TI_LAYOUT_ANY && r->layout != x->layout)
    return ti_error_set(err, TI_STATUS_INVALID, "lt.conv: result layout differs from the input's");
  return TI_STATUS_SUCCESS;
}
static inline ti_status lt_verify_same_dims(const ti_op *op, ti_error *err) {
  int32_t i;
  const ti_type *r = op->results[0].type;
  for (i = 0; i < op->n_operands; i++) {
    const ti_type *t = op->operands[i].value->type;
    if (t->rank != r->rank || memcmp(t->dims, r->dims, sizeof(int64_t) * (size_t)r->rank) != 0 ||
        (t->layout != TI_LAYOUT_ANY && r->layout != TI_LAYOUT_ANY && t->layout != r->layout))
      return ti_error_set(err, TI_STATUS_INVALID, "%s: operand %d differs from the result in dims or layout",
                          op->info->name, (int)i);
  }
  return TI_STATUS_SUCCESS;
}
static inline ti_status lt_verify_transpose(const ti_op *op, ti_error *err) {
  const ti_type *x = op->operands[0].value->type, *r = op->results[0].type;
  int64_t perm[TI_MAX_RANK];
  int64_t n = ti_dict_ints(op->attrs, "perm", perm, TI_MAX_RANK);
  int i, seen = 0;
  if (n != x->rank || r->rank != x->rank) return ti_error_set(err, TI_STATUS_INVALID, "lt.transpose: perm length");
  for (i = 0; i < n; i++) {
    if (perm[i] < 0 || perm[i] >= n || (seen & (1 << perm[i])) || r->dims[i] != x->dims[perm[i]])
      return ti_error_set(err, TI_STATUS_INVALID, "lt.transpose: bad perm or dims");
    seen |= 1 << perm[i];
  }
  return TI_STATUS_SUCCESS;
}

static const char *const lt_req_perm[] = { "perm", NULL };
#define LT_T (TI_TRAIT_PURE | TI_TRAIT_READ_ONLY | TI_TRAIT_VALUE_SEMANTICS)
static const ti_op_info lt_ops[] = {
  { "lt.conv", "lt", NULL, LT_T | TI_TRAIT_LAYOUT_DEMAND, 2, 2, 1, lt_verify_conv, NULL, &lt_conv_li, NULL, NULL, NULL },
  { "lt.gemm", "lt", NULL, LT_T, 2, 2, 1, NULL, NULL, &lt_gemm_li, NULL, NULL, NULL },
  { "lt.relu", "lt", NULL, LT_T, 1, 1, 1, lt_verify_same_dims, NULL, &lt_same_li, NULL, NULL, NULL },
  { "lt.add", "lt", NULL, LT_T | TI_TRAIT_COMMUTATIVE, 2, 2, 1, lt_verify_same_dims, NULL, &lt_same_li, NULL, NULL, NULL },
  { "lt.concat", "lt", NULL, LT_T | TI_TRAIT_LAYOUT_DEMAND, 1, -1, 1, NULL, NULL, &lt_same_li, NULL, NULL, NULL },
  { "lt.mirror", "lt", NULL, LT_T | TI_TRAIT_LAYOUT_DEMAND, 1, 1, 1, lt_verify_same_dims, NULL, &lt_same_li, NULL, NULL, NULL },
  { "lt.reshape", "lt", NULL, LT_T, 1, 1, 1, NULL, NULL, &lt_reshape_li, NULL, NULL, NULL },
  { "lt.broadcast", "lt", NULL, LT_T, 1, 1, 1, NULL, NULL, &lt_bcast_li, NULL, NULL, NULL },
  { "lt.transpose", "lt", lt_req_perm, LT_T, 1, 1, 1, lt_verify_transpose, NULL, &lt_transpose_li, NULL, NULL, NULL }
};
#undef LT_T

static inline ti_context *lt_context(void) {
  ti_context *ctx = ti_context_create(NULL);
  ti_error e;
  ti_error_clear(&e);
  if (ctx && ti_register_ops(ctx, lt_ops, (int32_t)(sizeof lt_ops / sizeof *lt_ops), &e) != TI_STATUS_SUCCESS) {
    ti_context_destroy(ctx);
    return NULL;
  }
  return ctx;
}

static inline void lt_options(ti_layout_options *o) {
  ti_layout_options_init(o);
  o->transpose_op = "lt.transpose";
}

/* --- interpreter --------------------------------------------------------- */

typedef struct lt_tensor { int32_t rank; int64_t dims[TI_MAX_RANK]; ti_layout layout; int64_t n; float *d; } lt_tensor;

static inline int lt_tensor_alloc(lt_tensor *t, const ti_type *ty) {
  int32_t i;
  t->rank = ty->rank; t->layout = ty->layout; t->n = 1;
  for (i = 0; i < ty->rank; i++) { t->dims[i] = ty->dims[i]; t->n *= ty->dims[i]; }
  t->d = (float *)calloc((size_t)(t->n ? t->n : 1), sizeof(float));
  return t->d != NULL;
}

/* memory offset of logical element (a,b,c,d) of a 4-D tensor */
static inline int64_t lt_off(const lt_tensor *t, const int64_t lg[4]) {
  static const int nchw[4] = {0, 1, 2, 3}, nhwc[4] = {0, 2, 3, 1}, hwoi[4] = {2, 3, 0, 1};
  const int *let = t->layout == TI_LAYOUT_NHWC ? nhwc : t->layout == TI_LAYOUT_HWOI ? hwoi : nchw;
  int64_t off = 0;
  int i;
  for (i = 0; i < 4; i++) off = off * t->dims[i] + lg[let[i]];
  return off;
}
static inline void lt_ldims(const lt_tensor *t, int64_t ld[4]) {
  static const int nchw[4] = {0, 1, 2, 3}, nhwc[4] = {0, 2, 3, 1}, hwoi[4] = {2, 3, 0, 1};
  const int *let = t->layout == TI_LAYOUT_NHWC ? nhwc : t->layout == TI_LAYOUT_HWOI ? hwoi : nchw;
  int i;
  for (i = 0; i < 4; i++) ld[let[i]] = t->dims[i];
}

/* Runs p on the argument tensors; outputs (builtin.return operands) are
   copied to outs (caller frees outs[i].d). Returns the number of outputs,
   -1 on an error (message in why). */
static inline int lt_run(const ti_program *p, const lt_tensor *args, lt_tensor *outs, int max_outs, char *why, size_t wn) {
  int64_t nv = p->n_args, k = 0, i, j;
  const ti_op *op;
  lt_tensor *vals;
  int n_out = -1;
  for (op = p->first; op; op = op->next) nv += op->n_results;
  vals = (lt_tensor *)calloc((size_t)nv + 1, sizeof *vals);
  /* number values: args, then results in program order (op->order is scratch) */
  for (i = 0; i < p->n_args; i++) {
    vals[i] = args[i];
    vals[i].d = (float *)malloc((size_t)args[i].n * sizeof(float) + 1);
    memcpy(vals[i].d, args[i].d, (size_t)args[i].n * sizeof(float));
  }
  k = p->n_args;
  for (op = p->first; op; op = op->next) { ((ti_op *)op)->order = k; k += op->n_results; }
#define LT_IN(q) (&vals[op->operands[q].value->def ? op->operands[q].value->def->order + op->operands[q].value->index \
                                                   : op->operands[q].value->index])
#define LT_FAIL(...) do { snprintf(why, wn, __VA_ARGS__); goto out; } while (0)
  for (op = p->first; op; op = op->next) {
    const char *nm = op->info->name;
    lt_tensor *r = op->n_results ? &vals[op->order] : NULL;
    if (r && !lt_tensor_alloc(r, op->results[0].type)) LT_FAIL("out of memory");
    if (strcmp(nm, "builtin.return") == 0) {
      if (op->n_operands > max_outs) LT_FAIL("too many outputs");
      for (j = 0; j < op->n_operands; j++) {
        const lt_tensor *x = LT_IN(j);
        outs[j] = *x;
        outs[j].d = (float *)malloc((size_t)x->n * sizeof(float) + 1);
        memcpy(outs[j].d, x->d, (size_t)x->n * sizeof(float));
      }
      n_out = op->n_operands;
    } else if (strcmp(nm, "lt.relu") == 0 || strcmp(nm, "lt.add") == 0) {
      const lt_tensor *a = LT_IN(0), *b = op->n_operands > 1 ? LT_IN(1) : NULL;
      if (a->n != r->n || (b && (b->n != r->n || memcmp(a->dims, b->dims, sizeof(int64_t) * (size_t)a->rank))))
        LT_FAIL("%s: operand dims differ", nm);
      for (i = 0; i < r->n; i++) r->d[i] = b ? a->d[i] + b->d[i] : (a->d[i] > 0 ? a->d[i] : 0);
    } else if (strcmp(nm, "lt.reshape") == 0) {
      const lt_tensor *a = LT_IN(0);
      if (a->n != r->n) LT_FAIL("lt.reshape: element counts differ");
      memcpy(r->d, a->d, (size_t)r->n * sizeof(float));
    } else if (strcmp(nm, "lt.transpose") == 0) {
      const lt_tensor *a = LT_IN(0);
      int64_t perm[TI_MAX_RANK], idx[TI_MAX_RANK], src;
      if (ti_dict_ints(op->attrs, "perm", perm, TI_MAX_RANK) != a->rank || a->n != r->n) LT_FAIL("lt.transpose: perm");
      for (i = 0; i < a->rank; i++) if (r->dims[i] != a->dims[perm[i]]) LT_FAIL("lt.transpose: dims");
      for (i = 0; i < r->n; i++) {
        int64_t rem = i, d;
        for (d = r->rank - 1; d >= 0; d--) { idx[d] = rem % r->dims[d]; rem /= r->dims[d]; }
        for (src = 0, d = 0; d < a->rank; d++) {
          int64_t e;
          for (e = 0; e < a->rank; e++) if (perm[e] == d) break;
          src = src * a->dims[d] + idx[e];
        }
        r->d[i] = a->d[src];
      }
    } else if (strcmp(nm, "lt.conv") == 0 || strcmp(nm, "lt.mirror") == 0 || strcmp(nm, "lt.concat") == 0) {
      int64_t lr[4], lg[4], la[4];
      if (r->rank != 4 || !lt_is_act(r->layout)) LT_FAIL("%s: result not in a 4-D activation layout", nm);
      for (j = 0; j < op->n_operands; j++) {
        const lt_tensor *a = LT_IN(j);
        if (a->rank != 4 || !ti_layout_is_cnn(a->layout)) LT_FAIL("%s: operand %d not in a 4-D layout", nm, (int)j);
      }
      lt_ldims(r, lr);
      for (lg[0] = 0; lg[0] < lr[0]; lg[0]++)
        for (lg[1] = 0; lg[1] < lr[1]; lg[1]++)
          for (lg[2] = 0; lg[2] < lr[2]; lg[2]++)
            for (lg[3] = 0; lg[3] < lr[3]; lg[3]++) {
              float acc = 0;
              if (nm[3] == 'c' && nm[4] == 'o' && nm[5] == 'n' && nm[6] == 'v') {
                const lt_tensor *x = LT_IN(0), *w = LT_IN(1);
                int64_t lx[4], c;
                lt_ldims(x, lx);
                for (c = 0; c < lx[1]; c++) {
                  int64_t xi[4], wi[4];
                  xi[0] = lg[0]; xi[1] = c; xi[2] = lg[2]; xi[3] = lg[3];
                  wi[0] = lg[1]; wi[1] = c; wi[2] = 0; wi[3] = 0;
                  acc += x->d[lt_off(x, xi)] * w->d[lt_off(w, wi)];
                }
              } else if (nm[3] == 'm') {
                const lt_tensor *x = LT_IN(0);
                int64_t xi[4];
                xi[0] = lg[0]; xi[1] = lg[1]; xi[2] = lg[2]; xi[3] = lr[3] - 1 - lg[3];
                acc = x->d[lt_off(x, xi)];
              } else {
                int64_t axis = ti_dict_int(op->attrs, "axis", 1), at = lg[axis], q;
                for (q = 0; q < op->n_operands; q++) {
                  const lt_tensor *x = LT_IN(q);
                  lt_ldims(x, la);
                  if (at < la[axis]) {
                    int64_t xi[4];
                    memcpy(xi, lg, sizeof xi);
                    xi[axis] = at;
                    acc = x->d[lt_off(x, xi)];
                    break;
                  }
                  at -= la[axis];
                }
              }
              r->d[lt_off(r, lg)] = acc;
            }
    } else if (strcmp(nm, "lt.gemm") == 0) {
      const lt_tensor *x = LT_IN(0), *w = LT_IN(1);
      int64_t K = x->dims[x->rank - 1], M = w->dims[1], rows = x->n / (K ? K : 1), a, b, c;
      if (w->rank != 2 || w->dims[0] != K || r->n != rows * M) LT_FAIL("lt.gemm: dims");
      for (a = 0; a < rows; a++)
        for (b = 0; b < M; b++) {
          float acc = 0;
          for (c = 0; c < K; c++) acc += x->d[a * K + c] * w->d[c * M + b];
          r->d[a * M + b] = acc;
        }
    } else if (strcmp(nm, "lt.broadcast") == 0) {
      const lt_tensor *a = LT_IN(0);
      if (a->rank != r->rank) LT_FAIL("lt.broadcast: rank");
      for (i = 0; i < r->n; i++) {
        int64_t rem = i, d, src = 0, idx[TI_MAX_RANK];
        for (d = r->rank - 1; d >= 0; d--) { idx[d] = rem % r->dims[d]; rem /= r->dims[d]; }
        for (d = 0; d < a->rank; d++) src = src * a->dims[d] + (a->dims[d] == 1 ? 0 : idx[d]);
        r->d[i] = a->d[src];
      }
    } else {
      LT_FAIL("no reference for op '%s'", nm);
    }
  }
#undef LT_IN
#undef LT_FAIL
out:
  for (i = 0; i < nv; i++) free(vals[i].d);
  free(vals);
  return n_out;
}

#endif
