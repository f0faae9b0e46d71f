/* ONNX -> nn -> quantize-recognize -> Task IR -> executor, through the API:
   integer MatMul models (written here with tests/onnx_write.h) whose
   executor outputs must equal the interpreter's on the imported program,
   before quantisation (f32 on integer inputs) and after (i8). The
   batch-of-1 forms ([M,K] x [1,K,N]) make the import emit nn.broadcast. */
#define TASKIR_IMPLEMENTATION
#include "taskir_onnx.h"
#include "taskir_lower.h"
#include "taskir_exec.h"
#include "tt.h"
#include "tests/onnx_write.h"

/* clip(-2^31, 2^31) -> div(2^k) -> floor -> clip(-128, 127) [-> relu] on
   `in`, the result named `out`; `tag` makes the node names unique. */
static void w_requant(ti_buffer *g, ti_buffer *inits, const char *in, const char *out, const char *tag, int k, int relu) {
  ti_buffer nd, t;
  char c1[32], dk[32], dv[32], fl[32], c2[32], nm[32];
  const char *i1[2], *o1[2], *i2[3], *o2[2], *i3[2], *o3[2], *i4[2], *o4[2], *i5[2], *o5[2];
  float kv = (float)(1u << k);
  ti_buffer_init(&nd, NULL); ti_buffer_init(&t, NULL);
  snprintf(c1, sizeof c1, "%s_c1", tag); snprintf(dk, sizeof dk, "%s_k", tag); snprintf(dv, sizeof dv, "%s_d", tag);
  snprintf(fl, sizeof fl, "%s_f", tag); snprintf(c2, sizeof c2, "%s_c2", tag);
  i1[0] = in; i1[1] = NULL; o1[0] = c1; o1[1] = NULL;
  w_attr_f(&nd, "min", -2147483648.0f); w_attr_f(&nd, "max", 2147483648.0f);
  snprintf(nm, sizeof nm, "%s_clip1", tag); w_node(g, &nd, nm, "Clip", i1, o1);
  w_tensor_f(&t, dk, 0, NULL, &kv, 1); w_msg(inits, 5, &t);
  i2[0] = c1; i2[1] = dk; i2[2] = NULL; o2[0] = dv; o2[1] = NULL;
  snprintf(nm, sizeof nm, "%s_div", tag); w_node(g, &nd, nm, "Div", i2, o2);
  i3[0] = dv; i3[1] = NULL; o3[0] = fl; o3[1] = NULL;
  snprintf(nm, sizeof nm, "%s_floor", tag); w_node(g, &nd, nm, "Floor", i3, o3);
  i4[0] = fl; i4[1] = NULL; o4[0] = relu ? c2 : out; o4[1] = NULL;
  w_attr_f(&nd, "min", -128.0f); w_attr_f(&nd, "max", 127.0f);
  snprintf(nm, sizeof nm, "%s_clip2", tag); w_node(g, &nd, nm, "Clip", i4, o4);
  if (relu) {
    i5[0] = c2; i5[1] = NULL; o5[0] = out; o5[1] = NULL;
    snprintf(nm, sizeof nm, "%s_relu", tag); w_node(g, &nd, nm, "Relu", i5, o5);
  }
  ti_buffer_free(&nd); ti_buffer_free(&t);
}

/* x [xb..,M,K] -> MatMul W1 (+ Add b1) -> requant (relu) -> MatMul W2 ->
   clip(-2^31, 2^31): the i32 accumulator. batch1 > 0: W1 [batch1,K,N],
   W2 [batch1,N,P] (the import broadcasts x to [batch1,M,K]); else 2-D weights. nxb batch dims
   xb of x (2-D weights only). Integer weights in -3..3, bias in -50..50. */
static void build_matmul(ti_buffer *model, int64_t m, int64_t k, int64_t n, int64_t p, int batch1, int bias, tt_rng *r,
                         int nxb, const int64_t *xb) {
  ti_buffer g, inits, nd, t, vi;
  int64_t w1d[3], w2d[3], xd[6], yd[6], i;
  float w1[4096], w2[4096], b1[64];
  const char *im1[3] = {"x", "w1", NULL}, *om1[2] = {"m1", NULL}, *ia[3] = {"m1", "b1", NULL}, *oa[2] = {"a1", NULL};
  const char *im2[3] = {"h", "w2", NULL}, *om2[2] = {"m2", NULL}, *ic[2] = {"m2", NULL}, *oc[2] = {"y", NULL};
  ti_buffer_init(&g, NULL); ti_buffer_init(&inits, NULL); ti_buffer_init(&nd, NULL); ti_buffer_init(&t, NULL); ti_buffer_init(&vi, NULL);
  w1d[0] = batch1; w1d[1] = k; w1d[2] = n;
  w2d[0] = batch1; w2d[1] = n; w2d[2] = p;
  for (i = 0; i < (batch1 ? batch1 : 1) * k * n; i++) w1[i] = (float)tt_range(r, -3, 3);
  for (i = 0; i < (batch1 ? batch1 : 1) * n * p; i++) w2[i] = (float)tt_range(r, -3, 3);
  for (i = 0; i < n; i++) b1[i] = (float)tt_range(r, -50, 50);
  w_node(&g, &nd, "mm1", "MatMul", im1, om1);
  if (bias) w_node(&g, &nd, "add1", "Add", ia, oa);
  w_requant(&g, &inits, bias ? "a1" : "m1", "h", "q1", 4, 1);
  w_node(&g, &nd, "mm2", "MatMul", im2, om2);
  w_attr_f(&nd, "min", -2147483648.0f); w_attr_f(&nd, "max", 2147483648.0f);
  w_node(&g, &nd, "clip_out", "Clip", ic, oc);
  w_str(&g, 2, "matmul");
  w_tensor_f(&t, "w1", batch1 ? 3 : 2, batch1 ? w1d : w1d + 1, w1, 1); w_msg(&g, 5, &t);
  w_tensor_f(&t, "w2", batch1 ? 3 : 2, batch1 ? w2d : w2d + 1, w2, 0); w_msg(&g, 5, &t);
  if (bias) { w_tensor_f(&t, "b1", 1, &n, b1, 1); w_msg(&g, 5, &t); }
  ti_buffer_append(&g, inits.data, inits.len);
  for (i = 0; i < nxb; i++) xd[i] = yd[i] = xb[i];
  xd[nxb] = m; xd[nxb + 1] = k;
  w_vi(&vi, "x", nxb + 2, xd); w_msg(&g, 11, &vi);
  if (batch1) { yd[0] = batch1; yd[1] = m; yd[2] = p; w_vi(&vi, "y", 3, yd); }
  else { yd[nxb] = m; yd[nxb + 1] = p; w_vi(&vi, "y", nxb + 2, yd); }
  w_msg(&g, 12, &vi);
  w_model(model, &g, 9);
  ti_buffer_free(&g); ti_buffer_free(&inits); ti_buffer_free(&nd); ti_buffer_free(&t); ti_buffer_free(&vi);
}

static int count_ops(const ti_program *p, const char *name) {
  const ti_op *op;
  int n = 0;
  for (op = p->first; op; op = op->next) n += ti_op_is(op, name);
  return n;
}

/* Imports the model, runs the float program on integer inputs, quantises,
   runs again (same results), lowers, runs the graph (same results). */
static void pipeline(const ti_buffer *model, int want_broadcast, uint64_t seed) {
  ti_context *c = ti_context_create(NULL);
  ti_program *p = NULL;
  ti_error e;
  ti_quant_report rep;
  ti_tensor_value *in = NULL, *inq = NULL, *ref[2] = {0, 0}, *got[2] = {0, 0};
  int32_t n_ref = 2, n_got = 2;
  ti_task_graph g;
  ti_exec *x = NULL;
  tt_rng r;
  int64_t j;
  r.s = seed * 0x9e3779b97f4a7c15ULL + 7;
  ti_error_clear(&e);
  ti_task_graph_init(&g, NULL);
  TT_EQ_INT(ti_nn_register(c, &e), TI_STATUS_SUCCESS);
  if (ti_onnx_import(c, model->data, model->len, NULL, &p, &e) != TI_STATUS_SUCCESS) {
    TT_CHECK_MSG(0, "import: %s", e.message);
    goto done;
  }
  TT_EQ_INT(count_ops(p, "nn.broadcast"), want_broadcast);
  {
    const ti_type *t = p->args[0]->type;
    in = ti_tensor_create(NULL, TI_DTYPE_F32, t->rank, t->dims, TI_LAYOUT_ANY, NULL, &e);
    inq = ti_tensor_create(NULL, TI_DTYPE_I8, t->rank, t->dims, TI_LAYOUT_ANY, NULL, &e);
    for (j = 0; j < in->numel; j++) {
      double v = (double)tt_range(&r, -128, 127);
      ti_tensor_set(in, j, v);
      ti_tensor_set(inq, j, v);
    }
  }
  TT_EQ_INT(ti_interpret(p, (const ti_tensor_value *const *)&in, 1, ref, &n_ref, &e), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_quantize_recognize(p, &rep, &e), TI_STATUS_SUCCESS);
  TT_CHECK_MSG(rep.n_layers == 2, "quantize-recognize: %d layers, %s (%s)", (int)rep.n_layers, rep.reason, rep.tensor);
  TT_EQ_INT(ti_verify(p, &e), TI_STATUS_SUCCESS);
  TT_EQ_INT(count_ops(p, "nn.quant_gemm"), 2);
  TT_EQ_INT(count_ops(p, "nn.matmul") + count_ops(p, "nn.div") + count_ops(p, "nn.floor"), 0);
  TT_EQ_INT(ti_interpret(p, (const ti_tensor_value *const *)&inq, 1, got, &n_got, &e), TI_STATUS_SUCCESS);
  if (n_ref != 1 || n_got != 1 || !ref[0] || !got[0] || ref[0]->numel != got[0]->numel) {
    TT_CHECK_MSG(0, "results: %d / %d: %s", (int)n_ref, (int)n_got, e.message);
    goto done;
  }
  TT_EQ_INT(got[0]->dtype, TI_DTYPE_I32);
  for (j = 0; j < ref[0]->numel; j++) TT_EQ_INT((int64_t)ti_tensor_get(got[0], j), (int64_t)ti_tensor_get(ref[0], j));
  if (ti_lower_to_task(p, NULL, &g, &e) != TI_STATUS_SUCCESS) {
    TT_CHECK_MSG(0, "lower: %s", e.message);
    goto done;
  }
  if (ti_exec_plan(&g, NULL, &x, &e) != TI_STATUS_SUCCESS) {
    TT_CHECK_MSG(0, "plan: %s", e.message);
    goto done;
  }
  {
    int32_t *vals = (int32_t *)malloc((size_t)inq->numel * 4);
    ti_exec_tensor o;
    for (j = 0; j < inq->numel; j++) vals[j] = (int32_t)ti_tensor_get(inq, j);
    TT_EQ_INT(ti_exec_set_input(x, 0, vals, inq->numel, &e), TI_STATUS_SUCCESS);
    free(vals);
    TT_EQ_INT(ti_exec_run(x, &e), TI_STATUS_SUCCESS);
    TT_EQ_INT(ti_exec_output(x, 0, &o, &e), TI_STATUS_SUCCESS);
    TT_EQ_INT(o.count, ref[0]->numel);
    for (j = 0; j < o.count && j < ref[0]->numel; j++)
      if (ti_exec_tensor_i64(&o, j) != (int64_t)ti_tensor_get(ref[0], j)) {
        TT_CHECK_MSG(0, "seed %llu element %lld: executor %lld, interpreter %lld", (unsigned long long)seed, (long long)j,
                     (long long)ti_exec_tensor_i64(&o, j), (long long)ti_tensor_get(ref[0], j));
        break;
      }
  }
done:
  ti_exec_free(x);
  ti_task_graph_free(&g);
  ti_tensor_free(in); ti_tensor_free(inq);
  ti_tensor_free(ref[0]); ti_tensor_free(ref[1]); ti_tensor_free(got[0]); ti_tensor_free(got[1]);
  if (p) ti_program_destroy(p);
  ti_context_destroy(c);
}

/* build_matmul's model with weights from seed, through pipeline(). */
static void matmul_case(uint64_t seed, int64_t m, int64_t k, int64_t n, int64_t p, int batch1, int bias,
                        int nxb, const int64_t *xb, int want_broadcast) {
  ti_buffer b;
  tt_rng r;
  r.s = seed + 1;
  ti_buffer_init(&b, NULL);
  build_matmul(&b, m, k, n, p, batch1, bias, &r, nxb, xb);
  pipeline(&b, want_broadcast, seed);
  ti_buffer_free(&b);
}

/* 2-D MatMul layers (with and without the Add bias), M = 1 (CVM) and M > 1
   (a 1x1 CC). */
TT_TEST(matmul_2d) {
  uint64_t s;
  for (s = 0; s < 8; s++)
    matmul_case(s, s % 2 ? 1 : 1 + (int64_t)s, 5 + (int64_t)s, 7, 3 + (int64_t)s % 3, 0, s % 4 < 2, 0, NULL, 0);
}

/* [M,K] x [1,K,N]: the import broadcasts x to [1,M,K] (nn.broadcast), the
   pass keeps it (retyped to i8) and reshapes the layer to 2-D around its
   quant_gemm, the lowering sees the broadcast as a view. */
TT_TEST(matmul_batch1_broadcast) {
  uint64_t s;
  for (s = 0; s < 8; s++)
    matmul_case(100 + s, s % 2 ? 1 : 2 + (int64_t)s, 4 + (int64_t)s, 6, 2 + (int64_t)s % 4, 1, s % 4 < 2, 0, NULL, 1);
}

/* [B..,M,K] x [K,N] (a linear layer over a batch or a sequence): the pass
   reshapes the rows to one [rows, K] matrix around each quant_gemm (a 1x1
   CC, or a CVM when there is one row), no broadcast. */
TT_TEST(matmul_batched_rows) {
  static const int64_t xbs[4][3] = {{2, 0, 0}, {3, 2, 0}, {1, 4, 0}, {2, 1, 3}};
  static const int nxbs[4] = {1, 2, 2, 3};
  uint64_t s;
  for (s = 0; s < 8; s++)
    matmul_case(200 + s, s % 3 ? 1 + (int64_t)s % 4 : 1, 3 + (int64_t)s, 5, 2 + (int64_t)s % 3, 0, s % 4 < 2,
                nxbs[s % 4], xbs[s % 4], 0);
}

/* A weight with batch dims > 1 (a different matrix per batch item) has no
   quant_gemm form: the pass leaves the model float and names the layer. */
TT_TEST(matmul_batched_weight_refused) {
  ti_buffer m;
  tt_rng r;
  ti_context *c = ti_context_create(NULL);
  ti_program *p = NULL;
  ti_quant_report rep;
  ti_error e;
  r.s = 300;
  ti_error_clear(&e);
  ti_buffer_init(&m, NULL);
  build_matmul(&m, 3, 4, 5, 2, 2, 0, &r, 0, NULL);
  TT_EQ_INT(ti_nn_register(c, &e), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_onnx_import(c, m.data, m.len, NULL, &p, &e), TI_STATUS_SUCCESS);
  if (p) {
    TT_EQ_INT(ti_quantize_recognize(p, &rep, &e), TI_STATUS_SUCCESS);
    TT_EQ_INT(rep.n_layers, 0);
    TT_CHECK_MSG(strstr(rep.reason, "one weight matrix") && strstr(rep.reason, "w1"), "reason: %s", rep.reason);
    TT_EQ_INT(count_ops(p, "nn.quant_gemm"), 0);
    ti_program_destroy(p);
  }
  ti_buffer_free(&m);
  ti_context_destroy(c);
}

int main(void) {
  TT_RUN(matmul_2d);
  TT_RUN(matmul_batch1_broadcast);
  TT_RUN(matmul_batched_rows);
  TT_RUN(matmul_batched_weight_refused);
  return tt_finish();
}
