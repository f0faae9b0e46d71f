/* quantize-recognize (taskir_onnx.h >>onnx.quantize): integer models exported
   as float (conv/gemm -> clip(-2^31, 2^31) -> div 2^k -> floor -> clip(-128,
   127) [-> relu]) become quant_conv2d / quant_gemm programs that the
   interpreter runs to the same results on integer inputs; every mismatch
   leaves the program float and says why. */
#define TASKIR_IMPLEMENTATION
#include "taskir_onnx.h"
#include "tt.h"

enum { V_OK, V_FRACTION, V_RANGE, V_DIV3, V_CLIP, V_BIAS_RANGE, V_FLOAT_OP, V_NEG_AVG, V_ADD_NOCLIP, V_COUNT };

typedef struct qb {
  ti_context *ctx;
  ti_program *p;
  ti_builder b;
  ti_error err;
  tt_rng rng;
  int variant;
} qb;

static ti_value *param(qb *q, const char *name, int rank, const int64_t *dims, const float *data) {
  const ti_type *t = ti_type_get(q->ctx, TI_TYPE_TENSOR, TI_DTYPE_F32, rank, dims, TI_LAYOUT_ANY);
  ti_named_attr na = ti_named(q->ctx, "name", ti_attr_string(q->ctx, name, -1));
  ti_error e;
  if (ti_program_add_var(q->p, name, t, data, 0, &e) != TI_STATUS_SUCCESS) return NULL;
  return ti_build1(&q->b, "builtin.get_parameter", 0, NULL, t, ti_attr_dict(q->ctx, &na, 1));
}
/* Integer-valued f32 weights in lo..hi. */
static ti_value *iparam(qb *q, const char *name, int rank, const int64_t *dims, int lo, int hi) {
  float v[4096];
  int64_t n = 1, i;
  int r;
  for (r = 0; r < rank; r++) n *= dims[r];
  for (i = 0; i < n && i < 4096; i++) v[i] = (float)tt_range(&q->rng, lo, hi);
  return param(q, name, rank, dims, v);
}
static ti_value *op1(qb *q, const char *name, ti_value *x, const ti_attr *attrs) { return ti_build1(&q->b, name, 1, &x, NULL, attrs); }
static ti_value *op2(qb *q, const char *name, ti_value *x, ti_value *y, const ti_attr *attrs) {
  ti_value *o[2];
  o[0] = x; o[1] = y;
  return ti_build1(&q->b, name, 2, o, NULL, attrs);
}
static const ti_attr *clip_attrs(qb *q, double lo, double hi) {
  ti_named_attr a[2];
  a[0] = ti_named(q->ctx, "min", ti_attr_float(q->ctx, lo));
  a[1] = ti_named(q->ctx, "max", ti_attr_float(q->ctx, hi));
  return ti_attr_dict(q->ctx, a, 2);
}
static const ti_attr *ints_attr(qb *q, const char *name, int n, const int64_t *v) {
  ti_named_attr a = ti_named(q->ctx, name, ti_attr_int_array(q->ctx, v, n));
  return ti_attr_dict(q->ctx, &a, 1);
}
/* clip(-2^31, 2^31) -> div(2^k) -> floor -> clip(-128, 127) [-> relu] */
static ti_value *requant(qb *q, ti_value *y, const char *dname, int k, int relu, int bad_div, int bad_clip) {
  float dv = bad_div ? 3.0f : (float)(1u << k);
  ti_value *d;
  y = op1(q, "nn.clip", y, clip_attrs(q, -2147483648.0, 2147483648.0));
  d = param(q, dname, 0, NULL, &dv);
  y = op2(q, "nn.div", y, d, NULL);
  y = op1(q, "nn.floor", y, NULL);
  y = op1(q, "nn.clip", y, clip_attrs(q, -128, bad_clip ? 100 : 127));
  return relu ? op1(q, "nn.relu", y, NULL) : y;
}
static ti_value *conv(qb *q, ti_value *x, const char *w, int64_t o, int64_t c, int64_t k, int64_t pad) {
  int64_t wd[4], bd[1], pads[4];
  ti_value *ops[3];
  char bn[32];
  ti_named_attr a;
  wd[0] = o; wd[1] = c; wd[2] = k; wd[3] = k;
  bd[0] = o;
  pads[0] = pads[1] = pads[2] = pads[3] = pad;
  snprintf(bn, sizeof bn, "%s.b", w);
  ops[0] = x;
  ops[1] = iparam(q, w, 4, wd, -4, 4);
  ops[2] = iparam(q, bn, 1, bd, -300, 300);
  a = ti_named(q->ctx, "pads", ti_attr_int_array(q->ctx, pads, 4));
  return ti_build1(&q->b, "nn.conv2d", 3, ops, NULL, ti_attr_dict(q->ctx, &a, 1));
}

/* A small residual CNN with a gemm head; `variant` plants one defect. */
static ti_program *build(ti_context *ctx, int variant) {
  qb q;
  ti_value *x, *a, *b, *c, *y, *ops[3];
  int64_t xd[4] = {1, 2, 8, 8}, k2[2] = {2, 2}, perm[4] = {0, 2, 3, 1}, shp[2] = {1, 128}, fw[2] = {5, 128}, fb[1] = {5};
  ti_named_attr na[2];
  memset(&q, 0, sizeof q);
  q.ctx = ctx;
  q.rng.s = 0x9e3779b97f4a7c15ULL;
  q.p = ti_program_create(ctx, "q", TI_PROGRAM_SSA);
  ti_builder_init(&q.b, q.p, &q.err);
  x = ti_program_add_arg(q.p, ti_type_get(ctx, TI_TYPE_TENSOR, TI_DTYPE_F32, 4, xd, TI_LAYOUT_ANY));
  a = conv(&q, x, "conv1.w", 4, 2, 3, 1);
  if (variant == V_FRACTION || variant == V_RANGE || variant == V_BIAS_RANGE) {
    ti_variable *v = ti_program_find_var(q.p, variant == V_BIAS_RANGE ? "conv1.w.b" : "conv1.w");
    float f = variant == V_FRACTION ? 0.5f : variant == V_RANGE ? 200.0f : 3e9f;
    memcpy((unsigned char *)v->data + 4, &f, 4);
  }
  a = requant(&q, a, "k1", 3, 1, variant == V_DIV3, variant == V_CLIP);                  /* [1,4,8,8] >= 0 */
  b = conv(&q, a, "conv2.w", 4, 4, 3, 1);
  b = requant(&q, b, "k2", 4, 0, 0, 0);                                                  /* [1,4,8,8] signed */
  c = op2(&q, "nn.add", a, b, NULL);                                                     /* residual */
  if (variant != V_ADD_NOCLIP) c = op1(&q, "nn.clip", c, clip_attrs(&q, -128, 127));
  if (variant == V_FLOAT_OP) c = op1(&q, "nn.sigmoid", c, NULL);
  na[0] = ti_named(ctx, "kernel_shape", ti_attr_int_array(ctx, k2, 2));
  na[1] = ti_named(ctx, "strides", ti_attr_int_array(ctx, k2, 2));
  y = op1(&q, "nn.avg_pool", variant == V_NEG_AVG ? b : a, ti_attr_dict(ctx, na, 2));   /* [1,4,4,4] */
  y = op1(&q, "nn.floor", y, NULL);
  c = op1(&q, "nn.max_pool", c, ti_attr_dict(ctx, na, 2));                             /* [1,4,4,4] */
  ops[0] = y; ops[1] = c;
  na[0] = ti_named(ctx, "axis", ti_attr_int(ctx, 1));
  y = ti_build1(&q.b, "nn.concat", 2, ops, NULL, ti_attr_dict(ctx, na, 1));            /* [1,8,4,4] */
  y = op1(&q, "nn.transpose", y, ints_attr(&q, "perm", 4, perm));
  y = op1(&q, "nn.reshape", y, ints_attr(&q, "shape", 2, shp));                         /* [1,128] */
  ops[0] = y;
  ops[1] = iparam(&q, "fc.w", 2, fw, -3, 3);
  ops[2] = iparam(&q, "fc.b", 1, fb, -1000, 1000);
  na[0] = ti_named(ctx, "trans_b", ti_attr_int(ctx, 1));
  y = ti_build1(&q.b, "nn.gemm", 3, ops, NULL, ti_attr_dict(ctx, na, 1));
  y = op1(&q, "nn.clip", y, clip_attrs(&q, -2147483648.0, 2147483648.0));               /* the i32 result */
  ti_build(&q.b, "builtin.return", 1, &y, 0, NULL, NULL);
  if (q.b.status != TI_STATUS_SUCCESS || ti_verify(q.p, &q.err) != TI_STATUS_SUCCESS) {
    fprintf(stderr, "  build: %d %s\n", (int)q.b.status, q.err.message);
    ti_program_destroy(q.p);
    return NULL;
  }
  return q.p;
}

static ti_context *ctx_nn(void) {
  ti_error e;
  ti_context *c = ti_context_create(NULL);
  TT_EQ_INT(ti_nn_register(c, &e), TI_STATUS_SUCCESS);
  return c;
}

/* Runs p on integer data from seed; the result as doubles in out[]. */
static int run(const ti_program *p, uint64_t seed, double *out, int64_t cap, int64_t *n) {
  tt_rng r;
  ti_error e;
  const ti_type *t = p->args[0]->type;
  ti_tensor_value *in = ti_tensor_create(NULL, t->dtype, t->rank, t->dims, t->layout, NULL, &e), *o[4];
  int32_t no = 4;
  int64_t i;
  r.s = seed;
  if (!in) return 0;
  for (i = 0; i < in->numel; i++) ti_tensor_set(in, i, (double)tt_range(&r, -128, 127));
  if (ti_interpret(p, (const ti_tensor_value *const *)&in, 1, o, &no, &e) != TI_STATUS_SUCCESS || no != 1) {
    fprintf(stderr, "  interpret: %s\n", e.message);
    ti_tensor_free(in);
    return 0;
  }
  *n = o[0]->numel;
  for (i = 0; i < o[0]->numel && i < cap; i++) out[i] = ti_tensor_get(o[0], i);
  ti_tensor_free(in);
  ti_tensor_free(o[0]);
  return 1;
}

static int count_ops(const ti_program *p, const char *name) {
  const ti_op *op;
  int n = 0;
  for (op = p->first; op; op = op->next) n += ti_op_is(op, name);
  return n;
}

TT_TEST(quantised_program_same_results) {
  ti_context *ctx = ctx_nn();
  ti_program *f = build(ctx, V_OK), *qp = build(ctx, V_OK);
  ti_quant_report r;
  ti_error e;
  double a[64], b[64];
  int64_t na = 0, nb = 0, i;
  uint64_t seed;
  const ti_op *op;
  TT_CHECK(f && qp);
  if (!f || !qp) return;
  TT_EQ_INT(ti_quantize_recognize(qp, &r, &e), TI_STATUS_SUCCESS);
  TT_CHECK_MSG(r.reason[0] == 0, "%s", r.reason);
  TT_EQ_INT(r.n_layers, 3);
  TT_EQ_INT(r.n_args, 1);
  TT_EQ_INT(ti_verify(qp, &e), TI_STATUS_SUCCESS);
  TT_EQ_INT(count_ops(qp, "nn.quant_conv2d"), 2);
  TT_EQ_INT(count_ops(qp, "nn.quant_gemm"), 1);
  TT_EQ_INT(count_ops(qp, "nn.clip") + count_ops(qp, "nn.div") + count_ops(qp, "nn.floor") + count_ops(qp, "nn.relu"), 0);
  TT_EQ_INT(qp->args[0]->type->dtype, TI_DTYPE_I8);
  for (op = qp->first; op; op = op->next)   /* integer end to end */
    if (op->n_results) TT_CHECK_MSG(op->results[0].type->dtype != TI_DTYPE_F32, "%s is still f32", op->info->name);
  TT_CHECK(ti_program_find_var(qp, "k1") == NULL);   /* the divisors are gone */
  TT_EQ_INT(ti_program_find_var(qp, "conv1.w")->type->dtype, TI_DTYPE_I8);
  TT_EQ_INT(ti_program_find_var(qp, "conv1.w.b")->type->dtype, TI_DTYPE_I32);
  for (seed = 1; seed <= 20; seed++) {
    TT_CHECK(run(f, seed, a, 64, &na) && run(qp, seed, b, 64, &nb));
    TT_EQ_INT(na, nb);
    for (i = 0; i < na && i < 64; i++) TT_CHECK_MSG(a[i] == b[i], "seed %d [%d]: %g vs %g", (int)seed, (int)i, a[i], b[i]);
  }
  ti_program_destroy(f);
  ti_program_destroy(qp);
  ti_context_destroy(ctx);
}

/* Each defect leaves the program exactly as it was and names the reason. */
TT_TEST(mismatches_stay_float) {
  static const char *const want[V_COUNT][2] = {
      {"", ""},
      {"conv1.w", "is not an integer"},
      {"conv1.w", "outside -128..127"},
      {"k1", "not a power of two"},
      {"conv1.w", "not to clip(-128, 127)"},
      {"conv1.w.b", "outside"},
      {"(nn.sigmoid)", "has no integer form"},
      {"(nn.avg_pool)", "may be negative"},
      {"(nn.add)", "not to clip(-128, 127)"}};
  ti_context *ctx = ctx_nn();
  int v;
  for (v = 1; v < V_COUNT; v++) {
    ti_program *p = build(ctx, v);
    ti_quant_report r;
    ti_error e;
    ti_buffer b0, b1;
    TT_CHECK(p != NULL);
    if (!p) continue;
    ti_buffer_init(&b0, NULL);
    ti_buffer_init(&b1, NULL);
    TT_EQ_INT(ti_print_program(p, &b0, &e), TI_STATUS_SUCCESS);
    TT_EQ_INT(ti_quantize_analyze(p, &r, &e), TI_STATUS_SUCCESS);
    TT_CHECK_MSG(strstr(r.reason, want[v][1]) != NULL, "variant %d: '%s'", v, r.reason);
    TT_EQ_INT(ti_quantize_recognize(p, &r, &e), TI_STATUS_SUCCESS);
    TT_EQ_INT(r.n_layers, 0);
    TT_CHECK_MSG(strstr(r.tensor, want[v][0]) != NULL, "variant %d: tensor '%s' (%s)", v, r.tensor, r.reason);
    TT_CHECK_MSG(strstr(r.reason, want[v][1]) != NULL, "variant %d: '%s'", v, r.reason);
    TT_EQ_INT(ti_print_program(p, &b1, &e), TI_STATUS_SUCCESS);
    TT_CHECK_MSG(b0.len == b1.len && memcmp(b0.data, b1.data, b0.len) == 0, "variant %d changed the program", v);
    ti_buffer_free(&b0);
    ti_buffer_free(&b1);
    ti_program_destroy(p);
  }
  ti_context_destroy(ctx);
}

/* The pass by name, through a pass manager (verified after it), then dce. */
TT_TEST(pass_by_name) {
  ti_context *ctx = ctx_nn();
  ti_program *p = build(ctx, V_OK);
  ti_pass_manager pm;
  ti_quant_report r;
  ti_error e;
  int32_t n;
  TT_CHECK(p != NULL);
  if (!p) return;
  TT_CHECK(ti_onnx_passes(&n) != NULL && n == 1);
  ti_pass_manager_init(&pm);
  TT_EQ_INT(ti_onnx_pass_manager_add_named(&pm, "quantize-recognize,dce", &e), TI_STATUS_SUCCESS);
  TT_EQ_INT(pm.n, 2);
  pm.passes[0].user = &r;
  TT_EQ_INT(ti_pass_manager_run(&pm, p, &e), TI_STATUS_SUCCESS);
  TT_EQ_INT(r.n_layers, 3);
  TT_EQ_INT(ti_onnx_pass_manager_add_named(&pm, "quantize-recognize,nope", &e), TI_STATUS_NOT_FOUND);
  TT_CHECK(strstr(e.message, "nope") != NULL);
  ti_program_destroy(p);
  ti_context_destroy(ctx);
}

/* matmul + add of a constant bias (what some exports give for a Gemm). */
TT_TEST(matmul_add_is_a_gemm) {
  ti_context *ctx = ctx_nn();
  qb q;
  ti_value *x, *y;
  ti_quant_report r;
  ti_error e;
  int64_t xd[2] = {2, 6}, wd[2] = {6, 3}, bd[1] = {3};
  double a[16], b[16];
  int64_t na, nb, i;
  ti_program *f = NULL;
  int pass;
  for (pass = 0; pass < 2; pass++) {
    memset(&q, 0, sizeof q);
    q.ctx = ctx;
    q.rng.s = 7;
    q.p = ti_program_create(ctx, "mm", TI_PROGRAM_SSA);
    ti_builder_init(&q.b, q.p, &q.err);
    x = ti_program_add_arg(q.p, ti_type_get(ctx, TI_TYPE_TENSOR, TI_DTYPE_F32, 2, xd, TI_LAYOUT_ANY));
    y = op2(&q, "nn.matmul", x, iparam(&q, "w", 2, wd, -128, 127), NULL);
    y = op2(&q, "nn.add", y, iparam(&q, "b", 1, bd, -5000, 5000), NULL);
    y = requant(&q, y, "k", 5, 0, 0, 0);
    ti_build(&q.b, "builtin.return", 1, &y, 0, NULL, NULL);
    TT_EQ_INT(ti_verify(q.p, &e), TI_STATUS_SUCCESS);
    if (pass == 0) { f = q.p; continue; }
    TT_EQ_INT(ti_quantize_recognize(q.p, &r, &e), TI_STATUS_SUCCESS);
    TT_EQ_INT(r.n_layers, 1);
    TT_EQ_INT(count_ops(q.p, "nn.quant_gemm"), 1);
    TT_EQ_INT(count_ops(q.p, "nn.add") + count_ops(q.p, "nn.matmul"), 0);
    TT_CHECK(run(f, 3, a, 16, &na) && run(q.p, 3, b, 16, &nb));
    TT_EQ_INT(na, 6);
    TT_EQ_INT(nb, 6);
    for (i = 0; i < 6; i++) TT_CHECK(a[i] == b[i]);
    ti_program_destroy(q.p);
  }
  ti_program_destroy(f);
  ti_context_destroy(ctx);
}

int main(void) {
  TT_RUN(quantised_program_same_results);
  TT_RUN(mismatches_stay_float);
  TT_RUN(pass_by_name);
  TT_RUN(matmul_add_is_a_gemm);
  return tt_finish();
}
