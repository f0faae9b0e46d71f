/* ONNX decoding (taskir_proto.h >>proto.onnx) and import (taskir_onnx.h):
   hand-made models written with the protobuf writer, then the ONNX backend
   node tests of libonnx-testdata ($TASKIR_ONNX_TESTDATA, default
   /usr/share/libonnx-testdata/data/node) run through the nn interpreter and
   compared with ONNX's tolerances (rtol 1e-3, atol 1e-7). */
#define _DEFAULT_SOURCE
#define TASKIR_IMPLEMENTATION
#include "taskir_onnx.h"
#include "tt.h"
#include <dirent.h>
#include <math.h>

#include "tests/onnx_write.h"

/* x[1,2,4,4] (batch dim symbolic when sym) -> Conv(w 3x2x3x3, b, pads 1)
   -> Relu -> MaxPool 2x2 s2 -> Flatten -> Gemm(transB, fc 5x12) -> Clip. */
static void build_cnn(ti_buffer *model, int sym, int raw, float *w, float *bias, float *fc) {
  ti_buffer g, nd, t, vi;
  int64_t xd[4] = {sym ? -1 : 1, 2, 4, 4}, wd[4] = {3, 2, 3, 3}, bd[1] = {3}, fd[2] = {5, 12}, yd[2] = {sym ? -1 : 1, 5};
  int64_t pads[4] = {1, 1, 1, 1}, k[2] = {2, 2}, s2[2] = {2, 2};
  const char *in_conv[] = {"x", "w", "b", NULL}, *out_conv[] = {"c", NULL};
  const char *in_relu[] = {"c", NULL}, *out_relu[] = {"r", NULL};
  const char *in_pool[] = {"r", NULL}, *out_pool[] = {"p", NULL};
  const char *in_fl[] = {"p", NULL}, *out_fl[] = {"f", NULL};
  const char *in_gemm[] = {"f", "fc", NULL}, *out_gemm[] = {"g", NULL};
  const char *in_clip[] = {"g", NULL}, *out_clip[] = {"y", NULL};
  int i;
  for (i = 0; i < 54; i++) w[i] = (float)((i * 7) % 11 - 5) / 8.0f;
  for (i = 0; i < 3; i++) bias[i] = (float)i / 4.0f - 0.25f;
  for (i = 0; i < 60; i++) fc[i] = (float)((i * 5) % 13 - 6) / 16.0f;
  ti_buffer_init(&g, NULL); ti_buffer_init(&nd, NULL); ti_buffer_init(&t, NULL); ti_buffer_init(&vi, NULL);
  w_attr_ints(&nd, "pads", 4, pads);
  w_node(&g, &nd, "conv0", "Conv", in_conv, out_conv);
  w_node(&g, &nd, "relu0", "Relu", in_relu, out_relu);
  w_attr_ints(&nd, "kernel_shape", 2, k);
  w_attr_ints(&nd, "strides", 2, s2);
  w_node(&g, &nd, "pool0", "MaxPool", in_pool, out_pool);
  w_node(&g, &nd, "flat0", "Flatten", in_fl, out_fl);
  {
    ti_buffer a;
    ti_buffer_init(&a, NULL);
    w_str(&a, 1, "transB"); w_int(&a, 20, TI_ONNX_ATTR_INT); w_int(&a, 3, 1);
    w_msg(&nd, 5, &a);
  }
  w_node(&g, &nd, "fc0", "Gemm", in_gemm, out_gemm);
  w_attr_f(&nd, "min", -1.0f);
  w_attr_f(&nd, "max", 1.0f);
  w_node(&g, &nd, "clip0", "Clip", in_clip, out_clip);
  w_str(&g, 2, "cnn");
  w_tensor_f(&t, "w", 4, wd, w, raw); w_msg(&g, 5, &t);
  w_tensor_f(&t, "b", 1, bd, bias, raw); w_msg(&g, 5, &t);
  w_tensor_f(&t, "fc", 2, fd, fc, raw); w_msg(&g, 5, &t);
  w_vi(&vi, "x", 4, xd); w_msg(&g, 11, &vi);
  w_vi(&vi, "y", 2, yd); w_msg(&g, 12, &vi);
  w_model(model, &g, 10);
  ti_buffer_free(&nd); ti_buffer_free(&t); ti_buffer_free(&vi); ti_buffer_free(&g);
}

/* The same network computed directly. */
static void cnn_reference(const float *x, const float *w, const float *b, const float *fc, double *y) {
  double c[3][4][4], p[3][2][2];
  int o, i, h, ww, kh, kw, j;
  for (o = 0; o < 3; o++)
    for (h = 0; h < 4; h++)
      for (ww = 0; ww < 4; ww++) {
        double acc = b[o];
        for (i = 0; i < 2; i++)
          for (kh = 0; kh < 3; kh++)
            for (kw = 0; kw < 3; kw++) {
              int ih = h + kh - 1, iw = ww + kw - 1;
              if (ih >= 0 && ih < 4 && iw >= 0 && iw < 4) acc += (double)x[(i * 4 + ih) * 4 + iw] * w[((o * 2 + i) * 3 + kh) * 3 + kw];
            }
        c[o][h][ww] = acc > 0 ? acc : 0;
      }
  for (o = 0; o < 3; o++)
    for (h = 0; h < 2; h++)
      for (ww = 0; ww < 2; ww++) {
        double m = c[o][2 * h][2 * ww];
        if (c[o][2 * h][2 * ww + 1] > m) m = c[o][2 * h][2 * ww + 1];
        if (c[o][2 * h + 1][2 * ww] > m) m = c[o][2 * h + 1][2 * ww];
        if (c[o][2 * h + 1][2 * ww + 1] > m) m = c[o][2 * h + 1][2 * ww + 1];
        p[o][h][ww] = m;
      }
  for (j = 0; j < 5; j++) {
    double acc = 0;
    for (i = 0; i < 12; i++) acc += p[i / 4][(i / 2) % 2][i % 2] * fc[j * 12 + i];
    y[j] = acc < -1 ? -1 : acc > 1 ? 1 : acc;
  }
}

static ti_context *ctx_nn(void) {
  ti_context *c = ti_context_create(NULL);
  ti_error e;
  ti_error_clear(&e);
  if (!c || ti_nn_register(c, &e) != TI_STATUS_SUCCESS) { fprintf(stderr, "context: %s\n", e.message); exit(1); }
  return c;
}

TT_TEST(decode_fields) {
  ti_buffer m;
  ti_onnx_model md;
  ti_error e;
  float w[54], b[3], fc[60];
  const ti_onnx_node *conv, *pool;
  ti_buffer_init(&m, NULL);
  build_cnn(&m, 1, 0, w, b, fc);
  ti_error_clear(&e);
  TT_CHECK(ti_onnx_decode(&md, m.data, m.len, NULL, &e) == TI_STATUS_SUCCESS);
  TT_EQ_INT(md.ir_version, 7);
  TT_EQ_INT(ti_onnx_opset_version(&md, ""), 10);
  TT_EQ_STR(md.graph.name, "cnn");
  TT_EQ_INT(md.graph.n_nodes, 6);
  TT_EQ_INT(md.graph.n_inits, 3);
  TT_EQ_INT(md.graph.n_inputs, 1);
  TT_EQ_INT(md.graph.inputs[0].rank, 4);
  TT_EQ_STR(md.graph.inputs[0].dims[0].param, "N");
  TT_EQ_INT(md.graph.inputs[0].dims[0].value, -1);
  TT_EQ_INT(md.graph.inputs[0].dims[3].value, 4);
  conv = &md.graph.nodes[0];
  pool = &md.graph.nodes[2];
  TT_EQ_STR(conv->op_type, "Conv");
  TT_EQ_INT(conv->n_inputs, 3);
  TT_EQ_STR(conv->inputs[2], "b");
  TT_EQ_INT(conv->attrs[0].n_ints, 4);
  TT_EQ_STR(pool->attrs[1].name, "strides");
  TT_EQ_INT(pool->attrs[1].ints[1], 2);
  TT_CHECK(md.graph.nodes[5].attrs[0].type == TI_ONNX_ATTR_FLOAT && md.graph.nodes[5].attrs[0].f == -1.0f);
  TT_EQ_INT(md.graph.inits[0].numel, 54);
  TT_CHECK(md.graph.inits[0].bytes == 54 * 4 && memcmp(md.graph.inits[0].data, w, 54 * 4) == 0);   /* float_data */
  TT_CHECK(!md.graph.inits[0].in_input);
  ti_onnx_model_free(&md);
  ti_buffer_free(&m);
  ti_buffer_init(&m, NULL);
  build_cnn(&m, 0, 1, w, b, fc);
  TT_CHECK(ti_onnx_decode(&md, m.data, m.len, NULL, &e) == TI_STATUS_SUCCESS);
  TT_CHECK(memcmp(md.graph.inits[2].data, fc, 60 * 4) == 0);   /* raw_data */
  TT_CHECK((const unsigned char *)md.graph.inits[2].data > m.data && (const unsigned char *)md.graph.inits[2].data < m.data + m.len);
  ti_onnx_model_free(&md);
  ti_buffer_free(&m);
}

TT_TEST(decode_errors) {
  ti_buffer m, g, t;
  ti_onnx_model md;
  ti_error e;
  float w[54], b[3], fc[60];
  size_t cut;
  float four[3] = {1, 2, 3};
  unsigned char bad_wt[] = {0x3a, 0x02, 0x08, 0x01};   /* graph(7) { node(1) as a varint } */
  unsigned char deep[200];
  int i;
  ti_buffer_init(&m, NULL);
  build_cnn(&m, 0, 1, w, b, fc);
  /* every truncation fails with an offset inside the input, never crashes */
  for (cut = 1; cut < m.len; cut += 7) {
    ti_error_clear(&e);
    if (ti_onnx_decode(&md, m.data, cut, NULL, &e) != TI_STATUS_SUCCESS)
      TT_CHECK(e.offset >= 0 && (size_t)e.offset <= cut && strstr(e.message, "at byte") != NULL);
    ti_onnx_model_free(&md);
  }
  ti_buffer_free(&m);
  ti_error_clear(&e);
  TT_CHECK(ti_onnx_decode(&md, bad_wt, sizeof bad_wt, NULL, &e) == TI_STATUS_PARSE_ERROR);
  TT_CHECK(strstr(e.message, "graph.node") != NULL);
  TT_EQ_INT(e.offset, 2);
  ti_onnx_model_free(&md);
  /* 3 float values for a 2x2 tensor */
  ti_buffer_init(&m, NULL); ti_buffer_init(&g, NULL); ti_buffer_init(&t, NULL);
  w_int(&t, 1, 2); w_int(&t, 1, 2); w_int(&t, 2, TI_ONNX_FLOAT); w_str(&t, 8, "w");
  {
    ti_buffer p;
    ti_buffer_init(&p, NULL);
    for (i = 0; i < 3; i++) { uint32_t u; memcpy(&u, &four[i], 4); ti_pb_write_fixed32(&p, u); }
    w_msg(&t, 4, &p);
  }
  w_msg(&g, 5, &t);
  w_msg(&m, 7, &g);
  ti_error_clear(&e);
  TT_CHECK(ti_onnx_decode(&md, m.data, m.len, NULL, &e) == TI_STATUS_PARSE_ERROR);
  TT_CHECK(strstr(e.message, "holds 3 values, its dims need 4") != NULL);
  ti_onnx_model_free(&md);
  ti_buffer_free(&m); ti_buffer_free(&g); ti_buffer_free(&t);
  /* nesting: graph { node { attribute { t { ... } } } } is bounded; a long chain of
     unknown groups hits the depth limit */
  for (i = 0; i < 100; i++) deep[i] = 0x0b;   /* field 1, start group */
  ti_error_clear(&e);
  TT_CHECK(ti_onnx_decode(&md, deep, 100, NULL, &e) != TI_STATUS_SUCCESS);
  ti_onnx_model_free(&md);
}

TT_TEST(import_cnn) {
  ti_buffer m;
  ti_context *c = ctx_nn();
  ti_program *p = NULL;
  ti_error e;
  float w[54], b[3], fc[60], x[32];
  double ref[5];
  ti_tensor_value *in, *out[1];
  int32_t nout = 1;
  int64_t xd[4] = {1, 2, 4, 4};
  ti_onnx_dim_binding bind = {"N", 1};
  ti_onnx_options opt;
  int i, raw;
  for (i = 0; i < 32; i++) x[i] = (float)((i * 3) % 7 - 3) / 2.0f;
  for (raw = 0; raw < 2; raw++) {
    ti_buffer_init(&m, NULL);
    build_cnn(&m, 1, raw, w, b, fc);
    cnn_reference(x, w, b, fc, ref);
    ti_error_clear(&e);
    TT_CHECK(ti_onnx_import(c, m.data, m.len, NULL, &p, &e) == TI_STATUS_INVALID);
    TT_CHECK(strstr(e.message, "graph input 'x' dim 0 is symbolic ('N'): bind it") != NULL);
    memset(&opt, 0, sizeof opt);
    opt.dims = &bind; opt.n_dims = 1; opt.reference_weights = raw;
    ti_error_clear(&e);
    TT_CHECK_MSG(ti_onnx_import(c, m.data, m.len, &opt, &p, &e) == TI_STATUS_SUCCESS, "%s", e.message);
    if (!p) { ti_buffer_free(&m); continue; }
    TT_EQ_INT(p->n_args, 1);
    TT_EQ_INT(p->n_vars, 3);
    /* referenced when raw and asked for, else copied */
    TT_EQ_INT((const unsigned char *)p->vars[0].data >= m.data && (const unsigned char *)p->vars[0].data < m.data + m.len, raw);
    in = ti_tensor_create(NULL, TI_DTYPE_F32, 4, xd, TI_LAYOUT_ANY, x, &e);
    TT_CHECK_MSG(ti_interpret(p, (const ti_tensor_value *const *)&in, 1, out, &nout, &e) == TI_STATUS_SUCCESS, "%s", e.message);
    if (nout == 1 && out[0]) {
      TT_EQ_INT(out[0]->numel, 5);
      for (i = 0; i < 5; i++) TT_CHECK_MSG(fabs(ti_tensor_get(out[0], i) - ref[i]) < 1e-5, "y[%d] %g vs %g", i, ti_tensor_get(out[0], i), ref[i]);
      ti_tensor_free(out[0]);
    }
    ti_tensor_free(in);
    ti_program_destroy(p);
    ti_buffer_free(&m);
  }
  ti_context_destroy(c);
}

static ti_status import_one_node(const char *op, const char *attr_name, const char *attr_val, int64_t opset, ti_error *e) {
  ti_buffer m, g, nd, vi;
  int64_t d[4] = {1, 1, 2, 2};
  const char *in[] = {"x", NULL}, *out[] = {"y", NULL};
  ti_context *c = ctx_nn();
  ti_program *p = NULL;
  ti_status st;
  ti_buffer_init(&m, NULL); ti_buffer_init(&g, NULL); ti_buffer_init(&nd, NULL); ti_buffer_init(&vi, NULL);
  if (attr_name) w_attr_s(&nd, attr_name, attr_val);
  w_node(&g, &nd, "Resize_12", op, in, out);
  w_vi(&vi, "x", 4, d); w_msg(&g, 11, &vi);
  w_vi(&vi, "y", 4, d); w_msg(&g, 12, &vi);
  w_model(&m, &g, opset);
  ti_error_clear(e);
  st = ti_onnx_import(c, m.data, m.len, NULL, &p, e);
  ti_program_destroy(p);
  ti_context_destroy(c);
  ti_buffer_free(&m); ti_buffer_free(&g); ti_buffer_free(&nd); ti_buffer_free(&vi);
  return st;
}

TT_TEST(import_unsupported) {
  ti_error e;
  TT_CHECK(import_one_node("Resize", "mode", "cubic", 13, &e) == TI_STATUS_NOT_SUPPORTED);
  TT_EQ_STR(e.message, "unsupported: node 'Resize_12' op Resize mode=cubic (opset 13)");
  TT_CHECK(e.offset > 0);
  TT_CHECK(import_one_node("LSTM", NULL, NULL, 13, &e) == TI_STATUS_NOT_SUPPORTED);
  TT_CHECK(strstr(e.message, "op LSTM") != NULL);
  TT_CHECK(import_one_node("Relu", "bogus", "1", 13, &e) == TI_STATUS_NOT_SUPPORTED);
  TT_CHECK(strstr(e.message, "attribute bogus") != NULL);
  TT_CHECK(import_one_node("Relu", NULL, NULL, 18, &e) == TI_STATUS_NOT_SUPPORTED);
  TT_CHECK(strstr(e.message, "opset 18") != NULL);
  TT_CHECK(import_one_node("Relu", NULL, NULL, 13, &e) == TI_STATUS_SUCCESS);
}

/* ---- opset 6-9 attribute forms ---- */

static void w_attr_i(ti_buffer *node, const char *name, int64_t v) {
  ti_buffer a;
  ti_buffer_init(&a, NULL);
  w_str(&a, 1, name);
  w_int(&a, 20, TI_ONNX_ATTR_INT);
  w_int(&a, 3, v);
  w_msg(node, 5, &a);
}
/* One node `op` (attributes already in *nd) reading x (dims xd) and the
   initializers (names inits[i], n_init of them, 1-D of `ilen` floats each
   from ivals), writing y; imported at `opset` and run on xv. Returns the
   import status; *y the result (free it) when it ran. */
static ti_status one_node(const char *op, ti_buffer *nd, int xr, const int64_t *xd, const float *xv, const char *const *inits,
                          int n_init, int64_t ilen, const float *ivals, int64_t opset, ti_tensor_value **y, ti_error *e) {
  ti_buffer m, g, t, vi;
  const char *in[8], *out[] = {"y", NULL};
  ti_context *c = ctx_nn();
  ti_program *p = NULL;
  ti_tensor_value *x;
  ti_status st;
  int32_t nout = 1, i;
  *y = NULL;
  ti_buffer_init(&m, NULL); ti_buffer_init(&g, NULL); ti_buffer_init(&t, NULL); ti_buffer_init(&vi, NULL);
  in[0] = "x";
  for (i = 0; i < n_init; i++) in[i + 1] = inits[i];
  in[n_init + 1] = NULL;
  w_node(&g, nd, "n0", op, in, out);
  for (i = 0; i < n_init; i++) { w_tensor_f(&t, inits[i], 1, &ilen, ivals + i * ilen, 1); w_msg(&g, 5, &t); }
  w_vi(&vi, "x", xr, xd); w_msg(&g, 11, &vi);
  w_str(&vi, 1, "y"); w_msg(&g, 12, &vi);
  w_model(&m, &g, opset);
  ti_error_clear(e);
  st = ti_onnx_import(c, m.data, m.len, NULL, &p, e);
  if (st == TI_STATUS_SUCCESS) {
    x = ti_tensor_create(NULL, TI_DTYPE_F32, xr, xd, TI_LAYOUT_ANY, xv, e);
    if (ti_interpret(p, (const ti_tensor_value *const *)&x, 1, y, &nout, e) != TI_STATUS_SUCCESS || nout != 1) {
      TT_CHECK_MSG(0, "%s (opset %d): interpret: %s", op, (int)opset, e->message);
      *y = NULL;
    }
    ti_tensor_free(x);
  }
  ti_program_destroy(p);
  ti_context_destroy(c);
  ti_buffer_free(&m); ti_buffer_free(&g); ti_buffer_free(&t); ti_buffer_free(&vi);
  return st;
}

/* Older exports: Pad's `pads` / `paddings` attribute (and `value`),
   BatchNormalization's `spatial` (1, and 0 refused), Softmax's 2-D
   coercion before opset 13 (against the per-axis form at 13). */
TT_TEST(old_opset_forms) {
  ti_buffer nd;
  ti_error e;
  ti_tensor_value *y;
  int64_t xd[4] = {1, 2, 2, 2}, sd[3] = {2, 3, 2}, i, j;
  float x[12] = {1, 2, 3, 4, -1, -2, 0.5f, 8, 0, 1, 2, 3};
  int v;
  ti_buffer_init(&nd, NULL);
  for (v = 0; v < 2; v++) {   /* Pad: pads (opset 9) and paddings (opset 6) */
    int64_t pads[8] = {0, 0, 1, 0, 0, 0, 0, 1};   /* one row on top, one column on the right */
    w_attr_ints(&nd, v ? "paddings" : "pads", 8, pads);
    w_attr_f(&nd, "value", 5.0f);
    TT_CHECK_MSG(one_node("Pad", &nd, 4, xd, x, NULL, 0, 0, NULL, v ? 6 : 9, &y, &e) == TI_STATUS_SUCCESS, "Pad %d: %s", v, e.message);
    if (y) {
      TT_EQ_INT(y->numel, 18);
      for (i = 0; i < 2; i++)
        for (j = 0; j < 9; j++) {
          int64_t r = j / 3, cc = j % 3;
          double want = r == 0 || cc == 2 ? 5.0 : x[i * 4 + (r - 1) * 2 + cc];
          TT_CHECK_MSG(ti_tensor_get(y, i * 9 + j) == want, "Pad %d [%lld] %g vs %g", v, (long long)(i * 9 + j), ti_tensor_get(y, i * 9 + j), want);
        }
      ti_tensor_free(y);
    }
  }
  {   /* BatchNormalization opset 7, spatial = 1; spatial = 0 refused */
    const char *names[4] = {"scale", "B", "mean", "var"};
    float pv[8] = {2, 0.5f, 1, -1, 0.5f, 2, 3, 0.25f};   /* per channel (2): scale, B, mean, var */
    double eps = 1e-5;
    w_attr_i(&nd, "spatial", 1);
    w_attr_f(&nd, "epsilon", (float)eps);
    TT_CHECK_MSG(one_node("BatchNormalization", &nd, 4, xd, x, names, 4, 2, pv, 7, &y, &e) == TI_STATUS_SUCCESS, "BN: %s", e.message);
    if (y) {
      for (i = 0; i < 8; i++) {
        int64_t ch = i / 4;
        double want = pv[ch] * (x[i] - pv[4 + ch]) / sqrt(pv[6 + ch] + (double)(float)eps) + pv[2 + ch];
        TT_CHECK_MSG(fabs(ti_tensor_get(y, i) - want) < 1e-5, "BN [%lld] %g vs %g", (long long)i, ti_tensor_get(y, i), want);
      }
      ti_tensor_free(y);
    }
    w_attr_i(&nd, "spatial", 0);
    TT_EQ_INT(one_node("BatchNormalization", &nd, 4, xd, x, names, 4, 2, pv, 7, &y, &e), TI_STATUS_NOT_SUPPORTED);
    TT_EQ_STR(e.message, "unsupported: node 'n0' op BatchNormalization spatial=0 (opset 7)");
  }
  for (v = 0; v < 2; v++) {   /* Softmax axis 1 of [2,3,2]: opset 9 over the 6 values of a row, opset 13 over the 3 */
    w_attr_i(&nd, "axis", 1);
    TT_CHECK_MSG(one_node("Softmax", &nd, 3, sd, x, NULL, 0, 0, NULL, v ? 13 : 9, &y, &e) == TI_STATUS_SUCCESS, "Softmax: %s", e.message);
    if (y) {
      for (i = 0; i < 12; i++) {
        int64_t b = i / 6, w = i % 2, k;
        double sum = 0, want;
        for (k = 0; k < 6; k++) if (!v || k % 2 == w) sum += exp(x[b * 6 + k]);
        want = exp(x[i]) / sum;
        TT_CHECK_MSG(fabs(ti_tensor_get(y, i) - want) < 1e-6, "Softmax opset %d [%lld] %g vs %g", v ? 13 : 9, (long long)i,
                     ti_tensor_get(y, i), want);
      }
      ti_tensor_free(y);
    }
  }
  ti_buffer_free(&nd);
}

/* ---- the ONNX backend node tests ---- */

static const char *const supported_ops[] = {
  "Conv", "ConvTranspose", "Gemm", "MatMul", "Add", "Sub", "Mul", "Div", "Floor", "Relu", "LeakyRelu", "Clip",
  "Sigmoid", "Tanh", "Softmax", "MaxPool", "AveragePool", "GlobalAveragePool", "BatchNormalization", "Flatten",
  "Reshape", "Transpose", "Squeeze", "Unsqueeze", "Concat", "Split", "Slice", "Pad", "Identity", "Dropout",
  "Constant", "Resize", "Upsample", "Cast", NULL};

typedef struct op_stat { const char *op; int imported, passed, skipped, failed; } op_stat;

static int op_index(const char *op) {
  int i;
  for (i = 0; supported_ops[i]; i++) if (strcmp(supported_ops[i], op) == 0) return i;
  return -1;
}

/* The input_*.pb / output_*.pb files of one data set, decoded. */
typedef struct data_set {
  int32_t n;
  ti_onnx_tensor t[16];
  char *buf[16];
  ti_arena arena;
} data_set;

static int load_set(data_set *ds, const char *dir, const char *name, int k, const char *kind, ti_error *e) {
  char path[1024];
  size_t len;
  ds->n = 0;
  ti_arena_init(&ds->arena, NULL);
  for (;;) {
    if (ds->n == 16) break;
    snprintf(path, sizeof path, "%s/%s/test_data_set_%d/%s_%d.pb", dir, name, k, kind, (int)ds->n);
    if (!(ds->buf[ds->n] = tt_read_file(path, &len))) break;
    if (ti_onnx_decode_tensor(&ds->t[ds->n], &ds->arena, ds->buf[ds->n], len, e) != TI_STATUS_SUCCESS) {
      free(ds->buf[ds->n]);
      return 0;
    }
    ds->n++;
  }
  return 1;
}
static void free_set(data_set *ds) {
  int32_t i;
  for (i = 0; i < ds->n; i++) free(ds->buf[i]);
  ti_arena_free(&ds->arena);
  ds->n = 0;
}

static int close_enough(const ti_tensor_value *got, const ti_tensor_value *want, char *why, size_t cap) {
  int64_t i;
  int fl = want->dtype == TI_DTYPE_F32 || want->dtype == TI_DTYPE_F64;
  if (got->dtype != want->dtype) { snprintf(why, cap, "dtype %s, expected %s", ti_dtype_name(got->dtype), ti_dtype_name(want->dtype)); return 0; }
  if (got->rank != want->rank || memcmp(got->dims, want->dims, (size_t)got->rank * sizeof got->dims[0]) != 0) {
    snprintf(why, cap, "shape differs (rank %d vs %d)", (int)got->rank, (int)want->rank);
    return 0;
  }
  for (i = 0; i < want->numel; i++) {
    double a = ti_tensor_get(got, i), b = ti_tensor_get(want, i);
    if (a != a && b != b) continue;
    if (fl ? !(fabs(a - b) <= 1e-7 + 1e-3 * fabs(b)) : a != b) {
      snprintf(why, cap, "element %lld: %.9g, expected %.9g", (long long)i, a, b);
      return 0;
    }
  }
  return 1;
}

/* Runs program p on data set ins (the first n_args tensors), compares with outs. */
static int run_set(const ti_program *p, const data_set *ins, int32_t first, const data_set *outs, const char *name, int k) {
  ti_tensor_value *in[16], *got[16], *want;
  int32_t nin, nout = 16, j, ok = 1;
  ti_error e;
  char why[256];
  ti_error_clear(&e);
  for (nin = 0; nin < p->n_args && first + nin < ins->n; nin++)
    if (!(in[nin] = ti_onnx_tensor_value(&ins->t[first + nin], NULL, &e))) break;
  if (nin < p->n_args) { printf("  FAIL %s: set %d: inputs: %s\n", name, k, e.message); ok = 0; nout = 0; }
  else if (ti_interpret(p, (const ti_tensor_value *const *)in, nin, got, &nout, &e) != TI_STATUS_SUCCESS) {
    printf("  FAIL %s: set %d: run: %s\n", name, k, e.message);
    ok = 0;
    nout = 0;
  } else if (nout != outs->n) {
    printf("  FAIL %s: set %d: %d outputs, expected %d\n", name, k, (int)nout, (int)outs->n);
    ok = 0;
  }
  for (j = 0; ok && j < nout; j++) {
    if (!(want = ti_onnx_tensor_value(&outs->t[j], NULL, &e))) { printf("  FAIL %s: %s\n", name, e.message); ok = 0; break; }
    if (!close_enough(got[j], want, why, sizeof why)) { printf("  FAIL %s: set %d output %d: %s\n", name, k, (int)j, why); ok = 0; }
    ti_tensor_free(want);
  }
  for (j = 0; j < nin; j++) ti_tensor_free(in[j]);
  for (j = 0; j < nout; j++) ti_tensor_free(got[j]);
  return ok;
}

/* One test directory: 1 pass, 0 fail, -1 skip (unsupported), -2 not in list.
   Node tests feed shapes, axes and bounds as graph inputs; when the import
   needs them constant, inputs 1.. of each data set are bound as constants. */
static int run_case(ti_context *c, const char *dir, const char *name, op_stat *st) {
  char path[1024];
  size_t n;
  char *buf;
  ti_onnx_model m;
  ti_program *p = NULL;
  ti_error e;
  int32_t i, k, ok = 1, oi, bind = 0, sets = 0;
  snprintf(path, sizeof path, "%s/%s/model.onnx", dir, name);
  if (!(buf = tt_read_file(path, &n))) return -2;
  ti_error_clear(&e);
  if (ti_onnx_decode(&m, buf, n, NULL, &e) != TI_STATUS_SUCCESS) {
    printf("  FAIL %s: decode: %s\n", name, e.message);
    ti_onnx_model_free(&m); free(buf);
    return 0;
  }
  for (i = 0; i < m.graph.n_nodes; i++)
    if (op_index(m.graph.nodes[i].op_type) < 0) { ti_onnx_model_free(&m); free(buf); return -2; }
  if (m.graph.n_nodes == 0) { ti_onnx_model_free(&m); free(buf); return -2; }
  oi = op_index(m.graph.nodes[0].op_type);
  if (ti_onnx_import_model(c, &m, NULL, &p, &e) != TI_STATUS_SUCCESS) {
    if (e.status == TI_STATUS_NOT_SUPPORTED && m.graph.n_inputs > 1 && strstr(e.message, "constant")) bind = 1;
    else if (e.status == TI_STATUS_NOT_SUPPORTED) {
      ti_onnx_model_free(&m); free(buf);
      st[oi].skipped++;
      if (getenv("TASKIR_ONNX_VERBOSE")) printf("  skip %s: %s\n", name, e.message);
      return -1;
    } else {
      printf("  FAIL %s: import: %s\n", name, e.message);
      ti_onnx_model_free(&m); free(buf);
      st[oi].failed++;
      return 0;
    }
  }
  for (k = 0; ok; k++) {
    data_set ins, outs;
    ti_error_clear(&e);
    if (!load_set(&ins, dir, name, k, "input", &e) || !load_set(&outs, dir, name, k, "output", &e)) {
      printf("  FAIL %s: set %d: %s\n", name, (int)k, e.message);
      ok = 0;
    } else if (ins.n == 0 && outs.n == 0) {
      free_set(&ins); free_set(&outs);
      break;
    } else if (bind) {
      ti_onnx_options opt;
      ti_program *pb = NULL;
      int32_t j, a = 0;
      memset(&opt, 0, sizeof opt);
      for (j = 0; j < m.graph.n_inputs && a < ins.n; j++) {
        int init = 0, q;
        for (q = 0; q < m.graph.n_inits; q++) if (strcmp(m.graph.inits[q].name, m.graph.inputs[j].name) == 0) init = 1;
        if (!init) ins.t[a++].name = m.graph.inputs[j].name;
      }
      opt.constants = ins.t + 1;
      opt.n_constants = ins.n - 1;
      if (ti_onnx_import_model(c, &m, &opt, &pb, &e) != TI_STATUS_SUCCESS) {
        if (e.status == TI_STATUS_NOT_SUPPORTED && k == 0) {
          free_set(&ins); free_set(&outs);
          ti_onnx_model_free(&m); free(buf);
          st[oi].skipped++;
          if (getenv("TASKIR_ONNX_VERBOSE")) printf("  skip %s: %s\n", name, e.message);
          return -1;
        }
        printf("  FAIL %s: set %d: import with bound inputs: %s\n", name, (int)k, e.message);
        ok = 0;
      } else {
        ok = run_set(pb, &ins, 0, &outs, name, (int)k);
        ti_program_destroy(pb);
      }
    } else ok = run_set(p, &ins, 0, &outs, name, (int)k);
    if (ins.n || outs.n) sets++;
    free_set(&ins); free_set(&outs);
  }
  ti_program_destroy(p);
  ti_onnx_model_free(&m);
  free(buf);
  if (!sets) { printf("  FAIL %s: no data sets\n", name); ok = 0; }
  st[oi].imported++;
  if (ok) st[oi].passed++; else st[oi].failed++;
  return ok;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

TT_TEST(onnx_node_tests) {
  const char *dir = getenv("TASKIR_ONNX_TESTDATA");
  DIR *d;
  struct dirent *ent;
  char **names = NULL;
  size_t n = 0, cap = 0, i;
  op_stat st[64];
  ti_context *c;
  int tot_imp = 0, tot_pass = 0, tot_skip = 0, tot_fail = 0;
  if (!dir || !*dir) dir = "/usr/share/libonnx-testdata/data/node";
  if (!(d = opendir(dir))) TT_SKIP("no ONNX node tests (apt-get install libonnx-testdata, or set TASKIR_ONNX_TESTDATA)");
  while ((ent = readdir(d)) != NULL) {
    if (strncmp(ent->d_name, "test_", 5) != 0) continue;
    if (n == cap) { cap = cap ? cap * 2 : 256; names = (char **)realloc(names, cap * sizeof *names); }
    names[n++] = strdup(ent->d_name);
  }
  closedir(d);
  qsort(names, n, sizeof *names, cmp_str);
  memset(st, 0, sizeof st);
  for (i = 0; supported_ops[i]; i++) st[i].op = supported_ops[i];
  c = ctx_nn();
  for (i = 0; i < n; i++) {
    int r = run_case(c, dir, names[i], st);
    if (r == 0) TT_CHECK_MSG(0, "node test %s", names[i]);
    free(names[i]);
  }
  free(names);
  ti_context_destroy(c);
  printf("  %-20s %8s %8s %8s %8s\n", "op", "imported", "passed", "skipped", "failed");
  for (i = 0; supported_ops[i]; i++) {
    printf("  %-20s %8d %8d %8d %8d\n", st[i].op, st[i].imported, st[i].passed, st[i].skipped, st[i].failed);
    tot_imp += st[i].imported; tot_pass += st[i].passed; tot_skip += st[i].skipped; tot_fail += st[i].failed;
  }
  printf("  %-20s %8d %8d %8d %8d\n", "total", tot_imp, tot_pass, tot_skip, tot_fail);
  TT_CHECK(tot_pass > 0);
}

int main(void) {
  TT_RUN(decode_fields);
  TT_RUN(decode_errors);
  TT_RUN(import_cnn);
  TT_RUN(import_unsupported);
  TT_RUN(old_opset_forms);
  TT_RUN(onnx_node_tests);
  return tt_finish();
}
