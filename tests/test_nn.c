/* nn dialect: every op against a hand-computed or independently computed
   answer, layout honouring (NHWC/HWOI give the same logical results), the
   layout interfaces, verification errors and the interpreter. */
#define TASKIR_IMPLEMENTATION
#include "nn_util.h"

/* Test-local NCHW -> NHWC (and OIHW -> HWOI) data movement, independent of
   the library's permute. */
static ti_tensor_value *to_nhwc(const ti_tensor_value *t, ti_layout l) {
  int64_t d[4], n, c, h, w;
  ti_tensor_value *r;
  if (l == TI_LAYOUT_NHWC) { d[0] = t->dims[0]; d[1] = t->dims[2]; d[2] = t->dims[3]; d[3] = t->dims[1]; }
  else { d[0] = t->dims[2]; d[1] = t->dims[3]; d[2] = t->dims[0]; d[3] = t->dims[1]; } /* HWOI */
  r = nu_t(t->dtype, l, 4, d, NULL);
  for (n = 0; n < t->dims[0]; n++)
    for (c = 0; c < t->dims[1]; c++)
      for (h = 0; h < t->dims[2]; h++)
        for (w = 0; w < t->dims[3]; w++) {
          int64_t src = ((n * t->dims[1] + c) * t->dims[2] + h) * t->dims[3] + w;
          int64_t dst = l == TI_LAYOUT_NHWC ? ((n * t->dims[2] + h) * t->dims[3] + w) * t->dims[1] + c
                                            : ((h * t->dims[3] + w) * t->dims[0] + n) * t->dims[1] + c;
          ti_tensor_set(r, dst, ti_tensor_get(t, src));
        }
  return r;
}

/* Naive grouped convolution on NCHW/OIHW arrays (doubles). */
static void ref_conv(const ti_tensor_value *x, const ti_tensor_value *w, const ti_tensor_value *b, int sy, int sx,
                     int pt, int pl, int dy, int dx, int g, int64_t OH, int64_t OW, double *y) {
  int64_t N = x->dims[0], C = x->dims[1], H = x->dims[2], W = x->dims[3];
  int64_t O = w->dims[0], I = w->dims[1], KH = w->dims[2], KW = w->dims[3];
  int64_t n, o, oh, ow, i, kh, kw;
  (void)C;
  for (n = 0; n < N; n++)
    for (o = 0; o < O; o++)
      for (oh = 0; oh < OH; oh++)
        for (ow = 0; ow < OW; ow++) {
          double s = b ? ti_tensor_get(b, o) : 0;
          for (i = 0; i < I; i++)
            for (kh = 0; kh < KH; kh++)
              for (kw = 0; kw < KW; kw++) {
                int64_t c = (o / (O / g)) * I + i, h = oh * sy - pt + kh * dy, ww = ow * sx - pl + kw * dx;
                if (h < 0 || h >= H || ww < 0 || ww >= W) continue;
                s += ti_tensor_get(x, ((n * C + c) * H + h) * W + ww) * ti_tensor_get(w, ((o * I + i) * KH + kh) * KW + kw);
              }
          y[((n * O + o) * OH + oh) * OW + ow] = s;
        }
}

static double dot(const ti_tensor_value *a, const ti_tensor_value *b) {
  double s = 0;
  int64_t i;
  for (i = 0; i < a->numel && i < b->numel; i++) s += ti_tensor_get(a, i) * ti_tensor_get(b, i);
  return s;
}

TT_TEST(conv2d_matches_naive_and_honours_layouts) {
  ti_context *c = nu_ctx();
  tt_rng r = {7};
  int64_t xd[4] = {2, 4, 7, 6}, wd[4] = {6, 2, 3, 2}, bd[1] = {6}, yd[4] = {2, 6, 4, 3};
  ti_tensor_value *in[3], *in2[3], *y, *y2;
  const ti_attr *at = nu_dict(c, 4, "strides", nu_ints(c, 2, 2, 2), "pads", nu_ints(c, 4, 1, 0, 2, 1),
                              "dilations", nu_ints(c, 2, 1, 2), "group", ti_attr_int(c, 2));
  double ref[2 * 6 * 4 * 3];
  int64_t i;
  double md = 0;
  in[0] = nu_rand(TI_DTYPE_F32, TI_LAYOUT_NCHW, 4, xd, &r, -1, 1);
  in[1] = nu_rand(TI_DTYPE_F32, TI_LAYOUT_OIHW, 4, wd, &r, -1, 1);
  in[2] = nu_rand(TI_DTYPE_F32, TI_LAYOUT_TENSOR, 1, bd, &r, -1, 1);
  y = nu_run1(c, "nn.conv2d", 3, in, at);
  /* OH = (7+1+2 - 2*2-1)/2+1 = 3+1 = 4; OW = (6+0+1 - 1*1-1)/2+1 = 3 */
  TT_CHECK(nu_dims_are(y, 4, yd));
  ref_conv(in[0], in[1], in[2], 2, 2, 1, 0, 1, 2, 2, 4, 3, ref);
  for (i = 0; y && i < y->numel; i++) if (fabs(ref[i] - nu_at(y, i)) > md) md = fabs(ref[i] - nu_at(y, i));
  TT_CHECK_MSG(y && md < 1e-5, "max diff %g", md);
  /* Same data stored NHWC / HWOI: same logical result, stored NHWC. */
  in2[0] = to_nhwc(in[0], TI_LAYOUT_NHWC);
  in2[1] = to_nhwc(in[1], TI_LAYOUT_HWOI);
  in2[2] = in[2];
  y2 = nu_run1(c, "nn.conv2d", 3, in2, at);
  TT_CHECK(y2 && y2->layout == TI_LAYOUT_NHWC && y2->dims[1] == 4 && y2->dims[3] == 6);
  TT_CHECK(y && y2 && ti_tensor_max_diff(y, y2, NULL) < 1e-5);
  /* Mixed: NHWC activations with OIHW weights. */
  ti_tensor_free(in2[1]);
  in2[1] = in[1];
  ti_tensor_free(y2);
  y2 = nu_run1(c, "nn.conv2d", 3, in2, at);
  TT_CHECK(y && y2 && ti_tensor_max_diff(y, y2, NULL) < 1e-5);
  ti_tensor_free(y); ti_tensor_free(y2); ti_tensor_free(in2[0]);
  nu_free_all(3, in);
  ti_context_destroy(c);
}

TT_TEST(quant_conv2d_accumulates_and_shifts) {
  ti_context *c = nu_ctx();
  tt_rng r = {11};
  int64_t xd[4] = {1, 3, 5, 5}, wd[4] = {4, 3, 3, 3}, bd[1] = {4};
  ti_tensor_value *in[3], *y, *y8, *yr, *bad;
  double ref[4 * 3 * 3];
  int64_t i;
  int ok = 1, ok8 = 1, okr = 1;
  in[0] = nu_rand(TI_DTYPE_I8, TI_LAYOUT_NCHW, 4, xd, &r, -128, 127);
  in[1] = nu_rand(TI_DTYPE_I8, TI_LAYOUT_OIHW, 4, wd, &r, -128, 127);
  in[2] = nu_rand(TI_DTYPE_I32, TI_LAYOUT_TENSOR, 1, bd, &r, -1000, 1000);
  y = nu_run1(c, "nn.quant_conv2d", 3, in, NULL);
  y8 = nu_run1(c, "nn.quant_conv2d", 3, in, nu_dict(c, 1, "shift", ti_attr_int(c, 7)));
  /* clip_min fuses the lower bound (0: a ReLU) into the requantisation */
  yr = nu_run1(c, "nn.quant_conv2d", 3, in, nu_dict(c, 2, "shift", ti_attr_int(c, 5), "clip_min", ti_attr_int(c, -3)));
  /* clip_min is a signed 8-bit bound and needs a shift */
  bad = nu_run1(c, "nn.quant_conv2d", 3, in, nu_dict(c, 2, "shift", ti_attr_int(c, 5), "clip_min", ti_attr_int(c, 128)));
  TT_CHECK(bad == NULL);
  bad = nu_run1(c, "nn.quant_conv2d", 3, in, nu_dict(c, 1, "clip_min", ti_attr_int(c, 0)));
  TT_CHECK(bad == NULL);
  bad = nu_run1(c, "nn.quant_conv2d", 3, in, nu_dict(c, 1, "shift", ti_attr_int(c, 32)));
  TT_CHECK(bad == NULL);
  ref_conv(in[0], in[1], in[2], 1, 1, 0, 0, 1, 1, 1, 3, 3, ref);
  TT_CHECK(y && y->dtype == TI_DTYPE_I32 && y8 && y8->dtype == TI_DTYPE_I8 && yr && yr->dtype == TI_DTYPE_I8);
  for (i = 0; y && y8 && yr && i < 36; i++) {
    double q = floor(ref[i] / 128.0), qr = floor(ref[i] / 32.0);
    q = q < -128 ? -128 : q > 127 ? 127 : q;
    qr = qr < -3 ? -3 : qr > 127 ? 127 : qr;
    if (nu_at(y, i) != ref[i]) ok = 0;
    if (nu_at(y8, i) != q) ok8 = 0;
    if (nu_at(yr, i) != qr) okr = 0;
  }
  TT_CHECK(ok);
  TT_CHECK(ok8);
  TT_CHECK(okr);
  ti_tensor_free(y); ti_tensor_free(y8); ti_tensor_free(yr);
  nu_free_all(3, in);
  ti_context_destroy(c);
}

/* BPA and BPW are the adjoints of conv2d: <conv(x,w), dy> = <x, bpa(dy,w)>
   = <w, bpw(x,dy)> for any x, w, dy; checked in NCHW and in NHWC/HWOI. */
TT_TEST(conv_backprops_are_adjoints) {
  ti_context *c = nu_ctx();
  tt_rng r = {13};
  int64_t xd[4] = {2, 4, 6, 7}, wd[4] = {6, 2, 3, 3}, dyd[4] = {2, 6, 3, 4};
  const ti_attr *at = nu_dict(c, 3, "strides", nu_ints(c, 2, 2, 2), "pads", nu_ints(c, 4, 1, 1, 0, 1),
                              "group", ti_attr_int(c, 2));
  const ti_attr *atw = nu_dict(c, 4, "strides", nu_ints(c, 2, 2, 2), "pads", nu_ints(c, 4, 1, 1, 0, 1),
                               "group", ti_attr_int(c, 2), "kernel_shape", nu_ints(c, 2, 3, 3));
  const ti_attr *ata = nu_dict(c, 4, "strides", nu_ints(c, 2, 2, 2), "pads", nu_ints(c, 4, 1, 1, 0, 1),
                               "group", ti_attr_int(c, 2), "input_size", nu_ints(c, 2, 6, 7));
  ti_tensor_value *x, *w, *dy, *y, *dx, *dw, *in[2], *xn, *wn, *dyn, *dxn, *dwn;
  int layout;
  x = nu_rand(TI_DTYPE_F32, TI_LAYOUT_NCHW, 4, xd, &r, -1, 1);
  w = nu_rand(TI_DTYPE_F32, TI_LAYOUT_OIHW, 4, wd, &r, -1, 1);
  dy = nu_rand(TI_DTYPE_F32, TI_LAYOUT_NCHW, 4, dyd, &r, -1, 1);
  in[0] = x; in[1] = w;
  y = nu_run1(c, "nn.conv2d", 2, in, at);
  TT_CHECK(nu_dims_are(y, 4, dyd));
  in[0] = dy; in[1] = w;
  dx = nu_run1(c, "nn.conv2d_backprop_input", 2, in, ata);
  TT_CHECK(nu_dims_are(dx, 4, xd));
  in[0] = x; in[1] = dy;
  dw = nu_run1(c, "nn.conv2d_backprop_filter", 2, in, atw);
  TT_CHECK(nu_dims_are(dw, 4, wd) && dw->layout == TI_LAYOUT_OIHW);
  if (y && dx && dw) {
    double a = dot(y, dy), b = dot(x, dx), d = dot(w, dw);
    TT_CHECK_MSG(fabs(a - b) < 1e-4 * (1 + fabs(a)), "<conv,dy> %g vs <x,bpa> %g", a, b);
    TT_CHECK_MSG(fabs(a - d) < 1e-4 * (1 + fabs(a)), "<conv,dy> %g vs <w,bpw> %g", a, d);
  }
  /* Layout-honouring: NHWC/HWOI inputs give the same logical gradients. */
  for (layout = 0; layout < 1; layout++) {
    xn = to_nhwc(x, TI_LAYOUT_NHWC); wn = to_nhwc(w, TI_LAYOUT_HWOI); dyn = to_nhwc(dy, TI_LAYOUT_NHWC);
    in[0] = dyn; in[1] = wn;
    dxn = nu_run1(c, "nn.conv2d_backprop_input", 2, in, ata);
    in[0] = xn; in[1] = dyn;
    dwn = nu_run1(c, "nn.conv2d_backprop_filter", 2, in, atw);
    TT_CHECK(dxn && dxn->layout == TI_LAYOUT_NHWC && dx && ti_tensor_max_diff(dx, dxn, NULL) < 1e-5);
    TT_CHECK(dwn && dwn->layout == TI_LAYOUT_HWOI && dw && ti_tensor_max_diff(dw, dwn, NULL) < 1e-5);
    ti_tensor_free(xn); ti_tensor_free(wn); ti_tensor_free(dyn); ti_tensor_free(dxn); ti_tensor_free(dwn);
  }
  /* Without input_size BPA gives the smallest input: (3-1)*2-1-0+3 = 6, (4-1)*2-1-1+3 = 7. */
  in[0] = dy; in[1] = w;
  ti_tensor_free(dx);
  dx = nu_run1(c, "nn.conv2d_backprop_input", 2, in, at);
  TT_CHECK(dx && dx->dims[2] == 6 && dx->dims[3] == 7);
  ti_tensor_free(x); ti_tensor_free(w); ti_tensor_free(dy); ti_tensor_free(y); ti_tensor_free(dx); ti_tensor_free(dw);
  ti_context_destroy(c);
}

TT_TEST(gemm_matmul_quant_gemm) {
  ti_context *c = nu_ctx();
  tt_rng r = {17};
  int64_t ad[2] = {4, 3}, bd[2] = {5, 4}, cd[1] = {5}, m1[3] = {2, 3, 4}, m2[3] = {2, 5, 4}, i, j, k, bb;
  ti_tensor_value *in[3], *y, *q;
  double md = 0;
  int ok = 1, okq = 1;
  /* y = 0.5 * a^T @ b^T + 2 * c, a [K=4,M=3] trans_a, b [N=5,K=4] trans_b */
  in[0] = nu_rand(TI_DTYPE_F32, TI_LAYOUT_TENSOR, 2, ad, &r, -1, 1);
  in[1] = nu_rand(TI_DTYPE_F32, TI_LAYOUT_TENSOR, 2, bd, &r, -1, 1);
  in[2] = nu_rand(TI_DTYPE_F32, TI_LAYOUT_TENSOR, 1, cd, &r, -1, 1);
  y = nu_run1(c, "nn.gemm", 3, in, nu_dict(c, 4, "alpha", ti_attr_float(c, 0.5), "beta", ti_attr_float(c, 2.0),
                                          "trans_a", ti_attr_int(c, 1), "trans_b", ti_attr_int(c, 1)));
  TT_CHECK(y && y->dims[0] == 3 && y->dims[1] == 5 && y->layout == TI_LAYOUT_NTENSOR);
  for (i = 0; y && i < 3; i++)
    for (j = 0; j < 5; j++) {
      double s = 0;
      for (k = 0; k < 4; k++) s += ti_tensor_get(in[0], k * 3 + i) * ti_tensor_get(in[1], j * 4 + k);
      s = 0.5 * s + 2 * ti_tensor_get(in[2], j);
      if (fabs(s - nu_at(y, i * 5 + j)) > md) md = fabs(s - nu_at(y, i * 5 + j));
    }
  TT_CHECK_MSG(md < 1e-5, "gemm max diff %g", md);
  ti_tensor_free(y);
  nu_free_all(3, in);
  /* batched matmul with transpose_b: [2,3,4] @ [2,5,4]^T */
  in[0] = nu_rand(TI_DTYPE_F32, TI_LAYOUT_TENSOR, 3, m1, &r, -1, 1);
  in[1] = nu_rand(TI_DTYPE_F32, TI_LAYOUT_TENSOR, 3, m2, &r, -1, 1);
  y = nu_run1(c, "nn.matmul", 2, in, nu_dict(c, 1, "transpose_b", ti_attr_bool(c, 1)));
  TT_CHECK(y && y->rank == 3 && y->dims[1] == 3 && y->dims[2] == 5);
  for (bb = 0; y && bb < 2; bb++)
    for (i = 0; i < 3; i++)
      for (j = 0; j < 5; j++) {
        double s = 0;
        for (k = 0; k < 4; k++) s += ti_tensor_get(in[0], bb * 12 + i * 4 + k) * ti_tensor_get(in[1], bb * 20 + j * 4 + k);
        if (fabs(s - nu_at(y, bb * 15 + i * 5 + j)) > 1e-5) ok = 0;
      }
  TT_CHECK(ok);
  ti_tensor_free(y);
  nu_free_all(2, in);
  /* quant_gemm: i8 x i8 + i32, then >> 4 saturated to i8 */
  {
    int64_t qa[2] = {3, 6}, qb[2] = {6, 2}, qc[2] = {3, 2};
    in[0] = nu_rand(TI_DTYPE_I8, TI_LAYOUT_TENSOR, 2, qa, &r, -128, 127);
    in[1] = nu_rand(TI_DTYPE_I8, TI_LAYOUT_TENSOR, 2, qb, &r, -128, 127);
    in[2] = nu_rand(TI_DTYPE_I32, TI_LAYOUT_TENSOR, 2, qc, &r, -3000, 3000);
    q = nu_run1(c, "nn.quant_gemm", 3, in, nu_dict(c, 1, "shift", ti_attr_int(c, 4)));
    TT_CHECK(q && q->dtype == TI_DTYPE_I8);
    for (i = 0; q && i < 3; i++)
      for (j = 0; j < 2; j++) {
        double s = ti_tensor_get(in[2], i * 2 + j);
        for (k = 0; k < 6; k++) s += ti_tensor_get(in[0], i * 6 + k) * ti_tensor_get(in[1], k * 2 + j);
        s = floor(s / 16);
        s = s < -128 ? -128 : s > 127 ? 127 : s;
        if (s != nu_at(q, i * 2 + j)) okq = 0;
      }
    TT_CHECK(okq);
    ti_tensor_free(q);
    nu_free_all(3, in);
  }
  ti_context_destroy(c);
}

TT_TEST(elementwise_ops) {
  ti_context *c = nu_ctx();
  int64_t ad[2] = {2, 3}, bd[1] = {3}, i;
  float a[6] = {1, -2, 3, -4, 5, -6}, b[3] = {10, 20, 30};
  ti_tensor_value *in[2], *y;
  const char *ops[3] = {"nn.add", "nn.sub", "nn.mul"};
  int k;
  in[0] = nu_f(TI_LAYOUT_TENSOR, 2, ad, a);
  in[1] = nu_f(TI_LAYOUT_TENSOR, 1, bd, b);
  for (k = 0; k < 3; k++) {
    int ok = 1;
    y = nu_run1(c, ops[k], 2, in, NULL);
    for (i = 0; i < 6; i++) {
      double e = k == 0 ? a[i] + b[i % 3] : k == 1 ? a[i] - b[i % 3] : a[i] * b[i % 3];
      if (nu_at(y, i) != e) ok = 0;
    }
    TT_CHECK_MSG(ok && y->rank == 2, "%s", ops[k]);
    ti_tensor_free(y);
  }
  y = nu_run1(c, "nn.relu", 1, in, NULL);
  TT_CHECK(y && nu_at(y, 0) == 1 && nu_at(y, 1) == 0 && nu_at(y, 4) == 5 && nu_at(y, 5) == 0);
  ti_tensor_free(y);
  y = nu_run1(c, "nn.clip", 1, in, nu_dict(c, 2, "min", ti_attr_float(c, -3), "max", ti_attr_int(c, 4)));
  TT_CHECK(y && nu_at(y, 0) == 1 && nu_at(y, 1) == -2 && nu_at(y, 3) == -3 && nu_at(y, 4) == 4);
  ti_tensor_free(y);
  /* relu_ as a single op: same values as relu */
  y = nu_run1(c, "nn.relu_", 1, in, NULL);
  TT_CHECK(y && nu_at(y, 1) == 0 && nu_at(y, 2) == 3);
  TT_CHECK(a[1] == -2);   /* the caller's input is never written */
  ti_tensor_free(y);
  nu_free_all(2, in);
  ti_context_destroy(c);
}

/* add with one NCHW and one NHWC operand adds logically equal elements. */
TT_TEST(binary_ops_convert_cnn_layouts) {
  ti_context *c = nu_ctx();
  tt_rng r = {19};
  int64_t d[4] = {1, 3, 2, 4};
  ti_tensor_value *in[2], *y, *a2, *ref;
  in[0] = nu_rand(TI_DTYPE_F32, TI_LAYOUT_NCHW, 4, d, &r, -1, 1);
  a2 = nu_rand(TI_DTYPE_F32, TI_LAYOUT_NCHW, 4, d, &r, -1, 1);
  in[1] = a2;
  ref = nu_run1(c, "nn.add", 2, in, NULL);
  in[1] = to_nhwc(a2, TI_LAYOUT_NHWC);
  y = nu_run1(c, "nn.add", 2, in, NULL);
  TT_CHECK(y && y->layout == TI_LAYOUT_NCHW && ref && ti_tensor_max_diff(ref, y, NULL) < 1e-6);
  ti_tensor_free(y); ti_tensor_free(ref); ti_tensor_free(in[1]); ti_tensor_free(in[0]); ti_tensor_free(a2);
  ti_context_destroy(c);
}

TT_TEST(pools) {
  ti_context *c = nu_ctx();
  int64_t d[4] = {1, 1, 3, 3}, yd[4] = {1, 1, 2, 2};
  float x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  ti_tensor_value *in[1], *y, *xn, *yn;
  const ti_attr *k2p = nu_dict(c, 3, "kernel_shape", nu_ints(c, 2, 2, 2), "strides", nu_ints(c, 2, 2, 2),
                               "pads", nu_ints(c, 4, 0, 0, 1, 1));
  in[0] = nu_f(TI_LAYOUT_NCHW, 4, d, x);
  y = nu_run1(c, "nn.max_pool", 1, in, k2p);
  /* windows: {1,2,4,5} {3,6} {7,8} {9} */
  TT_CHECK(nu_dims_are(y, 4, yd) && nu_at(y, 0) == 5 && nu_at(y, 1) == 6 && nu_at(y, 2) == 8 && nu_at(y, 3) == 9);
  ti_tensor_free(y);
  y = nu_run1(c, "nn.avg_pool", 1, in, k2p);
  TT_CHECK(y && nu_at(y, 0) == 3 && nu_at(y, 1) == 4.5 && nu_at(y, 2) == 7.5 && nu_at(y, 3) == 9);
  ti_tensor_free(y);
  y = nu_run1(c, "nn.avg_pool", 1, in, ti_dict_set(c, k2p, "count_include_pad", ti_attr_int(c, 1)));
  TT_CHECK(y && nu_at(y, 0) == 3 && nu_at(y, 1) == 2.25 && nu_at(y, 3) == 2.25);
  ti_tensor_free(y);
  y = nu_run1(c, "nn.global_avg_pool", 1, in, NULL);
  TT_CHECK(y && y->numel == 1 && nu_at(y, 0) == 5);
  ti_tensor_free(y);
  ti_tensor_free(in[0]);
  /* NHWC: 2 channels pooled independently */
  {
    int64_t d2[4] = {1, 2, 2, 2};
    float x2[8] = {1, 2, 3, 4, 10, 20, 30, 40};
    ti_tensor_value *t = nu_f(TI_LAYOUT_NCHW, 4, d2, x2);
    const ti_attr *k = nu_dict(c, 1, "kernel_shape", nu_ints(c, 2, 2, 2));
    in[0] = t;
    y = nu_run1(c, "nn.max_pool", 1, in, k);
    xn = to_nhwc(t, TI_LAYOUT_NHWC);
    in[0] = xn;
    yn = nu_run1(c, "nn.max_pool", 1, in, k);
    TT_CHECK(y && nu_at(y, 0) == 4 && nu_at(y, 1) == 40);
    TT_CHECK(yn && yn->layout == TI_LAYOUT_NHWC && nu_at(yn, 0) == 4 && nu_at(yn, 1) == 40);
    ti_tensor_free(y); ti_tensor_free(yn); ti_tensor_free(xn); ti_tensor_free(t);
  }
  ti_context_destroy(c);
}

TT_TEST(views_broadcast_transpose) {
  ti_context *c = nu_ctx();
  int64_t d[3] = {2, 3, 4}, e2[2] = {6, 4}, f[2] = {2, 12}, i;
  float x[24];
  ti_tensor_value *in[1], *y;
  int ok = 1;
  for (i = 0; i < 24; i++) x[i] = (float)i;
  in[0] = nu_f(TI_LAYOUT_TENSOR, 3, d, x);
  y = nu_run1(c, "nn.reshape", 1, in, nu_dict(c, 1, "shape", nu_ints(c, 2, -1, 4)));
  TT_CHECK(nu_dims_are(y, 2, e2) && nu_at(y, 23) == 23);
  ti_tensor_free(y);
  y = nu_run1(c, "nn.flatten", 1, in, NULL);
  TT_CHECK(nu_dims_are(y, 2, f) && nu_at(y, 13) == 13);
  ti_tensor_free(y);
  y = nu_run1(c, "nn.transpose", 1, in, nu_dict(c, 1, "perm", nu_ints(c, 3, 2, 0, 1)));
  /* y[k][i][j] = x[i][j][k] */
  TT_CHECK(y && y->dims[0] == 4 && y->dims[1] == 2 && y->dims[2] == 3);
  for (i = 0; y && i < 24; i++) {
    int64_t k = i / 6, a = (i / 3) % 2, b = i % 3;
    if (nu_at(y, i) != x[(a * 3 + b) * 4 + k]) ok = 0;
  }
  TT_CHECK(ok);
  ti_tensor_free(y);
  ti_tensor_free(in[0]);
  {
    int64_t bd[2] = {3, 1}, to[3] = {2, 3, 2};
    float bx[3] = {1, 2, 3};
    in[0] = nu_f(TI_LAYOUT_TENSOR, 2, bd, bx);
    y = nu_run1(c, "nn.broadcast", 1, in, nu_dict(c, 1, "shape", nu_ints(c, 3, 2, 3, 2)));
    TT_CHECK(nu_dims_are(y, 3, to) && nu_at(y, 0) == 1 && nu_at(y, 1) == 1 && nu_at(y, 2) == 2 && nu_at(y, 11) == 3);
    ti_tensor_free(y);
    ti_tensor_free(in[0]);
  }
  /* A transpose's layout letters move: NCHW + [0,2,3,1] is NHWC. */
  {
    int64_t td[4] = {1, 2, 3, 4};
    in[0] = nu_t(TI_DTYPE_F32, TI_LAYOUT_NCHW, 4, td, NULL);
    y = nu_run1(c, "nn.transpose", 1, in, nu_dict(c, 1, "perm", nu_ints(c, 4, 0, 2, 3, 1)));
    TT_CHECK(y && y->layout == TI_LAYOUT_NHWC && y->dims[3] == 2);
    ti_tensor_free(y);
    y = nu_run1(c, "nn.transpose", 1, in, nu_dict(c, 1, "perm", nu_ints(c, 4, 1, 0, 2, 3)));
    TT_CHECK(y && y->layout == TI_LAYOUT_TENSOR);
    ti_tensor_free(y);
    ti_tensor_free(in[0]);
  }
  ti_context_destroy(c);
}

TT_TEST(concat_pad_logical_axes) {
  ti_context *c = nu_ctx();
  tt_rng r = {23};
  int64_t a[4] = {1, 2, 2, 3}, b[4] = {1, 3, 2, 3}, cd[4] = {1, 5, 2, 3};
  ti_tensor_value *in[2], *y, *y2, *bn;
  const ti_attr *ax = nu_dict(c, 1, "axis", ti_attr_int(c, 1));
  int64_t i;
  int ok = 1;
  in[0] = nu_rand(TI_DTYPE_F32, TI_LAYOUT_NCHW, 4, a, &r, -1, 1);
  in[1] = nu_rand(TI_DTYPE_F32, TI_LAYOUT_NCHW, 4, b, &r, -1, 1);
  y = nu_run1(c, "nn.concat", 2, in, ax);
  TT_CHECK(nu_dims_are(y, 4, cd));
  for (i = 0; y && i < 30; i++) {
    double e = i < 12 ? ti_tensor_get(in[0], i) : ti_tensor_get(in[1], i - 12);
    if (nu_at(y, i) != e) ok = 0;
  }
  TT_CHECK(ok);
  /* second operand NHWC: axis 1 still means channels */
  bn = to_nhwc(in[1], TI_LAYOUT_NHWC);
  {
    ti_tensor_value *in2[2];
    in2[0] = in[0]; in2[1] = bn;
    y2 = nu_run1(c, "nn.concat", 2, in2, ax);
    TT_CHECK(y && y2 && ti_tensor_max_diff(y, y2, NULL) == 0);
    ti_tensor_free(y2);
    /* both NHWC: the result is NHWC with the same logical data */
    in2[0] = to_nhwc(in[0], TI_LAYOUT_NHWC);
    y2 = nu_run1(c, "nn.concat", 2, in2, ax);
    TT_CHECK(y2 && y2->layout == TI_LAYOUT_NHWC && y2->dims[3] == 5 && ti_tensor_max_diff(y, y2, NULL) == 0);
    ti_tensor_free(y2);
    ti_tensor_free(in2[0]);
  }
  ti_tensor_free(y);
  /* pad [top,left,bottom,right] = [1,0,0,2] with 9, on NCHW and NHWC */
  {
    ti_tensor_value *keep = in[0];
    int64_t pd[4] = {1, 1, 2, 2}, od[4] = {1, 1, 3, 4};
    float px[4] = {1, 2, 3, 4};
    float want[12] = {9, 9, 9, 9, 1, 2, 9, 9, 3, 4, 9, 9};
    ti_tensor_value *t = nu_f(TI_LAYOUT_NCHW, 4, pd, px), *tn;
    const ti_attr *pa = nu_dict(c, 2, "pads", nu_ints(c, 4, 1, 0, 0, 2), "value", ti_attr_float(c, 9));
    in[0] = t;
    y = nu_run1(c, "nn.pad", 1, in, pa);
    TT_CHECK(nu_dims_are(y, 4, od));
    ok = 1;
    for (i = 0; y && i < 12; i++) if (nu_at(y, i) != want[i]) ok = 0;
    TT_CHECK(ok);
    tn = to_nhwc(t, TI_LAYOUT_NHWC);
    in[0] = tn;
    y2 = nu_run1(c, "nn.pad", 1, in, pa);
    TT_CHECK(y && y2 && y2->layout == TI_LAYOUT_NHWC && ti_tensor_max_diff(y, y2, NULL) == 0);
    ti_tensor_free(y2);
    /* full form on a 2-D tensor: [b0, b1, e0, e1] */
    {
      int64_t d2[2] = {1, 2};
      ti_tensor_value *m = nu_f(TI_LAYOUT_TENSOR, 2, d2, px);
      in[0] = m;
      y2 = nu_run1(c, "nn.pad", 1, in, nu_dict(c, 1, "pads", nu_ints(c, 4, 0, 1, 1, 0)));
      TT_CHECK(y2 && y2->dims[0] == 2 && y2->dims[1] == 3 && nu_at(y2, 0) == 0 && nu_at(y2, 1) == 1 && nu_at(y2, 2) == 2 &&
               nu_at(y2, 5) == 0);
      ti_tensor_free(y2);
      ti_tensor_free(m);
    }
    ti_tensor_free(y); ti_tensor_free(t); ti_tensor_free(tn);
    in[0] = keep;
  }
  ti_tensor_free(bn);
  nu_free_all(2, in);
  ti_context_destroy(c);
}

TT_TEST(img2col_unpool_mirror_rotate) {
  ti_context *c = nu_ctx();
  int64_t d[4] = {1, 2, 3, 3}, i, ch, oh, ow;
  float x[18];
  ti_tensor_value *in[2], *y, *xn, *yn;
  int ok = 1;
  for (i = 0; i < 18; i++) x[i] = (float)(i + 1);
  in[0] = nu_f(TI_LAYOUT_NCHW, 4, d, x);
  /* img2col 2x2, stride 1, pad 0: [1, 2*4, 2, 2] */
  y = nu_run1(c, "nn.img2col", 1, in, nu_dict(c, 1, "kernel_shape", nu_ints(c, 2, 2, 2)));
  TT_CHECK(y && y->dims[1] == 8 && y->dims[2] == 2 && y->dims[3] == 2);
  for (ch = 0; y && ch < 8; ch++)
    for (oh = 0; oh < 2; oh++)
      for (ow = 0; ow < 2; ow++) {
        int64_t cc = ch / 4, kh = (ch / 2) % 2, kw = ch % 2;
        if (nu_at(y, (ch * 2 + oh) * 2 + ow) != x[(cc * 3 + oh + kh) * 3 + ow + kw]) ok = 0;
      }
  TT_CHECK(ok);
  xn = to_nhwc(in[0], TI_LAYOUT_NHWC);
  in[1] = in[0];
  in[0] = xn;
  yn = nu_run1(c, "nn.img2col", 1, in, nu_dict(c, 1, "kernel_shape", nu_ints(c, 2, 2, 2)));
  TT_CHECK(y && yn && ti_tensor_max_diff(y, yn, NULL) == 0);
  ti_tensor_free(y); ti_tensor_free(yn);
  in[0] = in[1];
  /* unpool 2x: nearest */
  y = nu_run1(c, "nn.unpool", 1, in, NULL);
  TT_CHECK(y && y->dims[2] == 6 && y->dims[3] == 6 && nu_at(y, 0) == 1 && nu_at(y, 1) == 1 && nu_at(y, 6) == 1 &&
           nu_at(y, 7) == 1 && nu_at(y, 2) == 2 && nu_at(y, 35) == 9 && nu_at(y, 36) == 10);
  /* maskunpool: only where the mask is set */
  {
    ti_tensor_value *mask = nu_t(TI_DTYPE_U8, TI_LAYOUT_NCHW, 4, y->dims, NULL), *in2[2], *z;
    ti_tensor_set(mask, 7, 1);   /* (h1,w1) of block (0,0) -> x[0] = 1 */
    ti_tensor_set(mask, 40, 1);  /* channel 1, h0 w4 -> x[9 + 2] = 12 */
    in2[0] = in[0]; in2[1] = mask;
    z = nu_run1(c, "nn.maskunpool", 2, in2, nu_dict(c, 1, "scales", nu_ints(c, 2, 2, 2)));
    ok = z != NULL;
    for (i = 0; z && i < 72; i++) {
      double e = i == 7 ? 1 : i == 40 ? 12 : 0;
      if (nu_at(z, i) != e) ok = 0;
    }
    TT_CHECK(ok);
    ti_tensor_free(z); ti_tensor_free(mask);
  }
  ti_tensor_free(y);
  /* mirror along W (default axis 3) and along H; NHWC gives the same */
  y = nu_run1(c, "nn.mirror", 1, in, NULL);
  TT_CHECK(y && nu_at(y, 0) == 3 && nu_at(y, 2) == 1 && nu_at(y, 3) == 6 && nu_at(y, 9) == 12);
  ti_tensor_free(y);
  y = nu_run1(c, "nn.mirror", 1, in, nu_dict(c, 1, "axis", ti_attr_int(c, 2)));
  TT_CHECK(y && nu_at(y, 0) == 7 && nu_at(y, 8) == 3);
  in[1] = xn;
  yn = nu_run1(c, "nn.mirror", 1, &in[1], nu_dict(c, 1, "axis", ti_attr_int(c, 2)));
  TT_CHECK(y && yn && ti_tensor_max_diff(y, yn, NULL) == 0);
  ti_tensor_free(y); ti_tensor_free(yn);
  ti_tensor_free(in[0]);
  /* rotate [[1,2,3],[4,5,6]] (1x1x2x3): numpy.rot90 */
  {
    int64_t rd[4] = {1, 1, 2, 3};
    float rx[6] = {1, 2, 3, 4, 5, 6};
    float k1[6] = {3, 6, 2, 5, 1, 4}, k2[6] = {6, 5, 4, 3, 2, 1}, k3[6] = {4, 1, 5, 2, 6, 3};
    const float *want[3];
    int k;
    want[0] = k1; want[1] = k2; want[2] = k3;
    in[0] = nu_f(TI_LAYOUT_NCHW, 4, rd, rx);
    for (k = 1; k <= 3; k++) {
      ok = 1;
      y = nu_run1(c, "nn.rotate", 1, in, nu_dict(c, 1, "k", ti_attr_int(c, k)));
      if (!y || y->dims[2] != (k % 2 ? 3 : 2)) ok = 0;
      for (i = 0; y && i < 6; i++) if (nu_at(y, i) != want[k - 1][i]) ok = 0;
      TT_CHECK_MSG(ok, "rotate k=%d", k);
      ti_tensor_free(y);
    }
    xn = to_nhwc(in[0], TI_LAYOUT_NHWC);
    y = nu_run1(c, "nn.rotate", 1, in, NULL);
    yn = nu_run1(c, "nn.rotate", 1, &xn, NULL);
    TT_CHECK(y && yn && yn->layout == TI_LAYOUT_NHWC && ti_tensor_max_diff(y, yn, NULL) == 0);
    ti_tensor_free(y); ti_tensor_free(yn); ti_tensor_free(xn);
    ti_tensor_free(in[0]);
  }
  ti_tensor_free(in[1]);
  ti_context_destroy(c);
}

TT_TEST(layout_conversions_tensornorm_bilinear) {
  ti_context *c = nu_ctx();
  tt_rng r = {29};
  int64_t d[4] = {2, 3, 2, 2}, i, n, h, w;
  ti_tensor_value *x = nu_rand(TI_DTYPE_F32, TI_LAYOUT_NCHW, 4, d, &r, -2, 2), *y, *z, *ref;
  int ok = 1;
  y = nu_run1(c, "nn.nchw2nhwc", 1, &x, NULL);
  ref = to_nhwc(x, TI_LAYOUT_NHWC);
  TT_CHECK(y && y->layout == TI_LAYOUT_NHWC);
  for (i = 0; y && i < 24; i++) if (nu_at(y, i) != ti_tensor_get(ref, i)) ok = 0;
  TT_CHECK(ok);
  z = nu_run1(c, "nn.nhwc2nchw", 1, &y, NULL);
  TT_CHECK(z && z->layout == TI_LAYOUT_NCHW && memcmp(z->data, x->data, 24 * 4) == 0);
  ti_tensor_free(z);
  /* nchw2nhwc of data already NHWC is a copy of the same logical data */
  z = nu_run1(c, "nn.nchw2nhwc", 1, &y, NULL);
  TT_CHECK(z && memcmp(z->data, y->data, 24 * 4) == 0);
  ti_tensor_free(z); ti_tensor_free(y); ti_tensor_free(ref);
  /* tensornorm: each (n,h,w) has mean 0 and variance ~1 over C */
  y = nu_run1(c, "nn.tensornorm", 1, &x, nu_dict(c, 1, "epsilon", ti_attr_float(c, 0.0)));
  ok = y != NULL;
  for (n = 0; y && n < 2; n++)
    for (h = 0; h < 2; h++)
      for (w = 0; w < 2; w++) {
        double m = 0, v = 0;
        int64_t ch;
        for (ch = 0; ch < 3; ch++) m += nu_at(y, ((n * 3 + ch) * 2 + h) * 2 + w);
        for (ch = 0; ch < 3; ch++) v += pow(nu_at(y, ((n * 3 + ch) * 2 + h) * 2 + w) - m / 3, 2);
        if (fabs(m) > 1e-5 || fabs(v / 3 - 1) > 1e-4) ok = 0;
      }
  TT_CHECK(ok);
  {
    ti_tensor_value *xn = to_nhwc(x, TI_LAYOUT_NHWC), *yn;
    yn = nu_run1(c, "nn.tensornorm", 1, &xn, nu_dict(c, 1, "epsilon", ti_attr_float(c, 0.0)));
    TT_CHECK(y && yn && ti_tensor_max_diff(y, yn, NULL) < 1e-6);
    ti_tensor_free(xn); ti_tensor_free(yn);
  }
  ti_tensor_free(y);
  /* scale and bias */
  {
    int64_t cd[1] = {3};
    float s[3] = {2, 0, 1}, b[3] = {0, 5, -1};
    ti_tensor_value *in[3], *yy, *plain;
    in[0] = x; in[1] = nu_f(TI_LAYOUT_TENSOR, 1, cd, s); in[2] = nu_f(TI_LAYOUT_TENSOR, 1, cd, b);
    plain = nu_run1(c, "nn.tensornorm", 1, in, NULL);
    yy = nu_run1(c, "nn.tensornorm", 3, in, NULL);
    TT_CHECK(yy && plain && fabs(nu_at(yy, 0) - 2 * nu_at(plain, 0)) < 1e-6 && nu_at(yy, 4) == 5 &&
             fabs(nu_at(yy, 8) - (nu_at(plain, 8) - 1)) < 1e-6);
    ti_tensor_free(yy); ti_tensor_free(plain); ti_tensor_free(in[1]); ti_tensor_free(in[2]);
  }
  ti_tensor_free(x);
  /* bilinear 1x2 -> 1x4, half-pixel: src x = (j+0.5)/2-0.5 -> 0 (clamped), 0.25, 0.75, 1 (clamped) */
  {
    int64_t bd[4] = {1, 1, 1, 2};
    float bx[2] = {0, 8};
    ti_tensor_value *t = nu_f(TI_LAYOUT_NCHW, 4, bd, bx);
    y = nu_run1(c, "nn.bilinear", 1, &t, nu_dict(c, 1, "size", nu_ints(c, 2, 1, 4)));
    TT_CHECK(y && nu_at(y, 0) == 0 && nu_at(y, 1) == 2 && nu_at(y, 2) == 6 && nu_at(y, 3) == 8);
    ti_tensor_free(y);
    y = nu_run1(c, "nn.bilinear", 1, &t, nu_dict(c, 2, "size", nu_ints(c, 2, 1, 3), "align_corners", ti_attr_int(c, 1)));
    TT_CHECK(y && nu_at(y, 0) == 0 && nu_at(y, 1) == 4 && nu_at(y, 2) == 8);
    ti_tensor_free(y);
    ti_tensor_free(t);
  }
  ti_context_destroy(c);
}

/* Seed 002's example: input [1,6,6,1] (T=6, C=6), shifts [-1, 0, 2]. */
TT_TEST(tin_shift_lif_lut) {
  ti_context *c = nu_ctx();
  int64_t d[4] = {1, 6, 6, 1}, sd[2] = {1, 3}, t, ch;
  float x[36];
  int32_t sh[3] = {-1, 0, 2};
  ti_tensor_value *in[2], *y;
  int ok = 1;
  for (t = 0; t < 36; t++) x[t] = (float)(t + 1);
  in[0] = nu_f(TI_LAYOUT_TENSOR, 4, d, x);
  in[1] = nu_t(TI_DTYPE_I32, TI_LAYOUT_TENSOR, 2, sd, sh);
  y = nu_run1(c, "nn.tin_shift", 2, in, NULL);
  for (t = 0; y && t < 6; t++)
    for (ch = 0; ch < 6; ch++) {
      int64_t s = sh[ch / 2], src = t - s;
      double e = (src >= 0 && src < 6) ? x[src * 6 + ch] : 0;
      if (nu_at(y, t * 6 + ch) != e) ok = 0;
    }
  TT_CHECK(y && ok);
  TT_CHECK(y && nu_at(y, 0) == 7 && nu_at(y, 5 * 6 + 0) == 0 && nu_at(y, 0 * 6 + 4) == 0 && nu_at(y, 2 * 6 + 4) == 5);
  ti_tensor_free(y);
  nu_free_all(2, in);
  /* lif: u = v*0.5 + x; spike u > 1; reset to -1 */
  {
    int64_t ld[1] = {4};
    float lx[4] = {0.5f, 1.0f, 2.0f, -1.0f}, lv[4] = {1.0f, 0.0f, 0.0f, 4.0f};
    ti_tensor_value *o[2];
    ti_error e;
    in[0] = nu_f(TI_LAYOUT_TENSOR, 1, ld, lx);
    in[1] = nu_f(TI_LAYOUT_TENSOR, 1, ld, lv);
    o[0] = o[1] = NULL;
    TT_EQ_INT(nu_run(c, "nn.lif", 2, in, nu_dict(c, 2, "decay", ti_attr_float(c, 0.5), "v_reset", ti_attr_float(c, -1)),
                     2, o, &e), TI_STATUS_SUCCESS);
    /* u = 1.0, 1.0, 2.0, 1.0 -> spikes 0,0,1,0 */
    TT_CHECK(o[0] && nu_at(o[0], 0) == 0 && nu_at(o[0], 1) == 0 && nu_at(o[0], 2) == 1 && nu_at(o[0], 3) == 0);
    TT_CHECK(o[1] && nu_at(o[1], 0) == 1 && nu_at(o[1], 2) == -1 && nu_at(o[1], 3) == 1);
    nu_free_all(2, o);
    nu_free_all(2, in);
  }
  /* lut: i8 index + 128 into a 256-entry table; u8 without offset */
  {
    int64_t xd[1] = {4}, td[1] = {256};
    int8_t xi[4] = {-128, -1, 0, 127};
    int32_t tab[256];
    int i;
    ti_error e;
    for (i = 0; i < 256; i++) tab[i] = i * i;
    in[0] = nu_t(TI_DTYPE_I8, TI_LAYOUT_TENSOR, 1, xd, xi);
    in[1] = nu_t(TI_DTYPE_I32, TI_LAYOUT_TENSOR, 1, td, tab);
    y = nu_run1(c, "nn.lut", 2, in, NULL);
    TT_CHECK(y && y->dtype == TI_DTYPE_I32 && nu_at(y, 0) == 0 && nu_at(y, 1) == 127 * 127 && nu_at(y, 2) == 128 * 128 &&
             nu_at(y, 3) == 255 * 255);
    ti_tensor_free(y);
    /* an index outside the table is an error, not a read out of bounds */
    TT_EQ_INT(nu_run(c, "nn.lut", 2, in, nu_dict(c, 1, "offset", ti_attr_int(c, 200)), 1, &y, &e), TI_STATUS_BAD_PARAM);
    TT_CHECK(strstr(e.message, "nn.lut") != NULL);
    nu_free_all(2, in);
  }
  ti_context_destroy(c);
}

TT_TEST(traits_and_registry) {
  ti_context *c = nu_ctx();
  ti_error e;
  const ti_op_info *conv = ti_lookup_op(c, "nn.conv2d"), *relu_ = ti_lookup_op(c, "nn.relu_"),
                   *add = ti_lookup_op(c, "nn.add"), *rs = ti_lookup_op(c, "nn.reshape");
  static const char *const demand[] = {"conv2d", "conv2d_backprop_input", "conv2d_backprop_filter", "img2col", "unpool",
                                       "maskunpool", "mirror", "rotate", "nchw2nhwc", "nhwc2nchw", "concat", "pad",
                                       "tensornorm", "bilinear"};
  static const char *const all[] = {"conv2d", "quant_conv2d", "conv2d_backprop_input", "conv2d_backprop_filter", "gemm",
                                    "quant_gemm", "matmul", "add", "sub", "mul", "relu", "relu_", "clip", "max_pool",
                                    "avg_pool", "global_avg_pool", "reshape", "flatten", "broadcast", "transpose",
                                    "concat", "pad", "img2col", "unpool", "maskunpool", "mirror", "rotate", "nchw2nhwc",
                                    "nhwc2nchw", "tensornorm", "bilinear", "tin_shift", "lif", "lut"};
  size_t i;
  char name[64];
  ti_error_clear(&e);
  TT_EQ_INT(ti_nn_register(c, &e), TI_STATUS_SUCCESS);   /* idempotent */
  for (i = 0; i < sizeof all / sizeof *all; i++) {
    const ti_op_info *in;
    snprintf(name, sizeof name, "nn.%s", all[i]);
    in = ti_lookup_op(c, name);
    TT_CHECK_MSG(in && in->verify && in->infer_shape && in->layout && in->eval && strcmp(in->dialect, "nn") == 0, "%s", name);
  }
  for (i = 0; i < sizeof demand / sizeof *demand; i++) {
    snprintf(name, sizeof name, "nn.%s", demand[i]);
    TT_CHECK_MSG(ti_lookup_op(c, name) && (ti_lookup_op(c, name)->traits & TI_TRAIT_LAYOUT_DEMAND), "%s", name);
  }
  TT_CHECK(!(ti_lookup_op(c, "nn.gemm")->traits & TI_TRAIT_LAYOUT_DEMAND));
  TT_CHECK(conv->traits & TI_TRAIT_VALUE_SEMANTICS && conv->traits & TI_TRAIT_READ_ONLY && conv->traits & TI_TRAIT_PURE);
  TT_CHECK(relu_->traits == TI_TRAIT_INPLACE && !relu_->fold);
  TT_CHECK(add->traits & TI_TRAIT_COMMUTATIVE && !(ti_lookup_op(c, "nn.sub")->traits & TI_TRAIT_COMMUTATIVE));
  TT_CHECK(rs->traits & TI_TRAIT_VIEW_LIKE && rs->traits & TI_TRAIT_READ_ONLY && !(rs->traits & TI_TRAIT_VALUE_SEMANTICS));
  TT_CHECK(ti_lookup_op(c, "nn.transpose")->traits & TI_TRAIT_VIEW_LIKE);
  TT_CHECK(ti_lookup_op(c, "nn.flatten")->traits & TI_TRAIT_VIEW_LIKE);
  ti_context_destroy(c);
}

/* Layout interfaces on built ops. */
TT_TEST(layout_interfaces) {
  ti_context *c = nu_ctx();
  ti_program *p = ti_program_create(c, "l", TI_PROGRAM_SSA);
  int64_t xd[4] = {1, 4, 5, 5}, wd[4] = {8, 4, 3, 3};
  ti_value *a[2];
  ti_op *conv, *tr, *rs, *bpw, *cv, *add;
  ti_layout in[3], out[2];
  ti_error e;
  ti_error_clear(&e);
  a[0] = ti_program_add_arg(p, ti_type_get(c, TI_TYPE_VTENSOR, TI_DTYPE_F32, 4, xd, TI_LAYOUT_NCHW));
  a[1] = ti_program_add_arg(p, ti_type_get(c, TI_TYPE_VTENSOR, TI_DTYPE_F32, 4, wd, TI_LAYOUT_OIHW));
  conv = ti_op_create(p, "nn.conv2d", 2, a, 1, NULL, NULL, &e);
  tr = ti_op_create(p, "nn.transpose", 1, a, 1, NULL, nu_dict(c, 1, "perm", nu_ints(c, 4, 0, 2, 3, 1)), &e);
  rs = ti_op_create(p, "nn.reshape", 1, a, 1, NULL, nu_dict(c, 1, "shape", nu_ints(c, 2, 1, -1)), &e);
  cv = ti_op_create(p, "nn.nhwc2nchw", 1, a, 1, NULL, NULL, &e);
  add = ti_op_create(p, "nn.add", 2, a, 1, NULL, NULL, &e);   /* fails: shapes differ */
  TT_CHECK(conv && tr && rs && cv && !add);
  TT_CHECK(conv && conv->results[0].type->layout == TI_LAYOUT_NCHW && conv->results[0].type->dims[1] == 8);
  TT_CHECK(tr && tr->results[0].type->layout == TI_LAYOUT_NHWC);
  TT_CHECK(rs && rs->results[0].type->layout == TI_LAYOUT_TENSOR && rs->results[0].type->dims[1] == 100);
  if (conv) {
    in[0] = TI_LAYOUT_NHWC; in[1] = TI_LAYOUT_HWOI;
    TT_EQ_INT(conv->info->layout->forward(conv, in, out), TI_STATUS_SUCCESS);
    TT_EQ_INT(out[0], TI_LAYOUT_NHWC);
    out[0] = TI_LAYOUT_NHWC;
    TT_EQ_INT(conv->info->layout->backward(conv, out, in), 1);
    TT_CHECK(in[0] == TI_LAYOUT_NHWC && in[1] == TI_LAYOUT_HWOI);
    out[0] = TI_LAYOUT_NCHW;
    TT_EQ_INT(conv->info->layout->backward(conv, out, in), 1);
    TT_CHECK(in[0] == TI_LAYOUT_NCHW && in[1] == TI_LAYOUT_OIHW);
  }
  if (tr) {
    in[0] = TI_LAYOUT_NCHW;
    tr->info->layout->forward(tr, in, out);
    TT_EQ_INT(out[0], TI_LAYOUT_NHWC);
    out[0] = TI_LAYOUT_NHWC;
    TT_EQ_INT(tr->info->layout->backward(tr, out, in), 1);
    TT_EQ_INT(in[0], TI_LAYOUT_NCHW);
    in[0] = TI_LAYOUT_OIHW;   /* OIHW + [0,2,3,1] = OHWI: no layout of ours */
    tr->info->layout->forward(tr, in, out);
    TT_EQ_INT(out[0], TI_LAYOUT_TENSOR);
  }
  if (rs) {
    out[0] = TI_LAYOUT_TENSOR;
    TT_EQ_INT(rs->info->layout->backward(rs, out, in), 0);   /* not invertible */
    TT_EQ_INT(ti_lookup_op(c, "nn.broadcast")->layout->backward(rs, out, in), 0);
    TT_EQ_INT(ti_lookup_op(c, "nn.flatten")->layout->backward(rs, out, in), 0);
  }
  if (cv) {
    in[0] = TI_LAYOUT_TENSOR;
    cv->info->layout->forward(cv, in, out);
    TT_EQ_INT(out[0], TI_LAYOUT_NCHW);
    TT_EQ_INT(cv->info->layout->backward(cv, out, in), 1);
    TT_EQ_INT(in[0], TI_LAYOUT_NHWC);
  }
  {
    ti_value *xv[2];
    xv[0] = a[0];
    xv[1] = ti_program_add_arg(p, ti_type_get(c, TI_TYPE_VTENSOR, TI_DTYPE_F32, 4, xd, TI_LAYOUT_NCHW));
    bpw = ti_op_create(p, "nn.conv2d_backprop_filter", 2, xv, 1, NULL,
                       nu_dict(c, 2, "kernel_shape", nu_ints(c, 2, 1, 1), "group", ti_attr_int(c, 1)), &e);
    TT_CHECK(bpw && bpw->results[0].type->layout == TI_LAYOUT_OIHW);
    if (bpw) {
      out[0] = TI_LAYOUT_HWOI;
      TT_EQ_INT(bpw->info->layout->backward(bpw, out, in), 1);
      TT_CHECK(in[0] == TI_LAYOUT_NHWC && in[1] == TI_LAYOUT_NHWC);
      in[0] = TI_LAYOUT_NHWC;
      bpw->info->layout->forward(bpw, in, out);
      TT_EQ_INT(out[0], TI_LAYOUT_HWOI);
    }
  }
  /* gemm seeds NTENSOR both ways */
  {
    const ti_op_info *g = ti_lookup_op(c, "nn.gemm");
    TT_EQ_INT(g->layout->forward(conv, in, out), TI_STATUS_SUCCESS);
    TT_EQ_INT(out[0], TI_LAYOUT_NTENSOR);
  }
  ti_program_destroy(p);
  ti_context_destroy(c);
}

TT_TEST(verification_errors_name_the_op) {
  ti_context *c = nu_ctx();
  ti_program *p = ti_program_create(c, "v", TI_PROGRAM_SSA);
  int64_t xd[4] = {1, 4, 5, 5}, wd[4] = {8, 3, 3, 3}, w2[4] = {8, 4, 3, 3};
  ti_value *a[2];
  ti_op *op;
  ti_error e;
  ti_error_clear(&e);
  a[0] = ti_program_add_arg(p, ti_type_get(c, TI_TYPE_VTENSOR, TI_DTYPE_F32, 4, xd, TI_LAYOUT_NCHW));
  a[1] = ti_program_add_arg(p, ti_type_get(c, TI_TYPE_VTENSOR, TI_DTYPE_F32, 4, wd, TI_LAYOUT_OIHW));
  op = ti_op_create(p, "nn.conv2d", 2, a, 1, NULL, NULL, &e);
  TT_CHECK(!op && strstr(e.message, "nn.conv2d") && strstr(e.message, "channels"));
  ti_error_clear(&e);
  a[1] = ti_program_add_arg(p, ti_type_get(c, TI_TYPE_VTENSOR, TI_DTYPE_F32, 4, w2, TI_LAYOUT_OIHW));
  op = ti_op_create(p, "nn.conv2d", 2, a, 1, NULL, nu_dict(c, 1, "strides", nu_ints(c, 3, 1, 1, 1)), &e);
  TT_CHECK(!op && strstr(e.message, "strides"));
  ti_error_clear(&e);
  op = ti_op_create(p, "nn.conv2d", 2, a, 1, NULL, nu_dict(c, 1, "pads", nu_ints(c, 4, 0, 0, -1, 0)), &e);
  TT_CHECK(!op && strstr(e.message, "pads"));
  ti_error_clear(&e);
  op = ti_op_create(p, "nn.conv2d", 2, a, 1, NULL, nu_dict(c, 1, "dilations", nu_ints(c, 2, 4, 4)), &e);
  TT_CHECK(!op && strstr(e.message, "kernel"));   /* 9-wide dilated kernel on 5 */
  ti_error_clear(&e);
  op = ti_op_create(p, "nn.transpose", 1, a, 1, NULL, nu_dict(c, 1, "perm", nu_ints(c, 4, 0, 1, 1, 2)), &e);
  TT_CHECK(!op && strstr(e.message, "perm"));
  ti_error_clear(&e);
  op = ti_op_create(p, "nn.reshape", 1, a, 1, NULL, nu_dict(c, 1, "shape", nu_ints(c, 2, 3, -1)), &e);
  TT_CHECK(!op && strstr(e.message, "nn.reshape"));
  /* a result type that disagrees with the operands fails ti_verify */
  ti_error_clear(&e);
  {
    int64_t bad[4] = {1, 8, 4, 4};
    const ti_type *rt = ti_type_get(c, TI_TYPE_VTENSOR, TI_DTYPE_F32, 4, bad, TI_LAYOUT_NCHW);
    op = ti_op_create(p, "nn.conv2d", 2, a, 1, &rt, NULL, &e);
    TT_CHECK(op != NULL);
    if (op) {
      ti_op_insert_before(op, NULL);
      TT_EQ_INT(ti_verify(p, &e), TI_STATUS_INVALID);
      TT_CHECK(strstr(e.message, "nn.conv2d") && strstr(e.message, "1x8x3x3"));
    }
  }
  ti_program_destroy(p);
  ti_context_destroy(c);
}

static ti_program *parse(ti_context *c, const char *text) {
  ti_program *p = NULL;
  ti_error e;
  ti_error_clear(&e);
  if (ti_parse_program(c, text, strlen(text), &p, &e) != TI_STATUS_SUCCESS) {
    fprintf(stderr, "    parse: %s (line %d:%d)\n", e.message, (int)e.line, (int)e.column);
    return NULL;
  }
  return p;
}

/* relu_ writes its operand: a later reader of the operand sees the
   rectified data. set_parameter writes the weights table. */
TT_TEST(interpreter_aliasing_and_weights) {
  ti_context *c = nu_ctx();
  ti_program *p = parse(c,
    "program @m(%0: tensor<4xf32>) {\n"
    "  %1 = nn.relu_(%0) : (tensor<4xf32>) -> tensor<4xf32>\n"
    "  %2 = nn.add(%0, %1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>\n"
    "  %3 = builtin.get_parameter() {name = \"w\"} : () -> tensor<4xf32>\n"
    "  %4 = nn.mul(%2, %3) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>\n"
    "  builtin.set_parameter(%4) {name = \"w\"} : (tensor<4xf32>) -> ()\n"
    "  %5 = builtin.constant() {value = [1.0, 2.0, 3.0, 4.0]} : () -> tensor<4xf32>\n"
    "  %6 = nn.sub(%4, %5) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>\n"
    "  builtin.return(%6, %0) : (tensor<4xf32>, tensor<4xf32>) -> ()\n"
    "}\n");
  int64_t d[1] = {4};
  float x[4] = {-1, 2, -3, 4}, w[4] = {10, 10, 10, 10};
  ti_tensor_value *in, *out[2];
  int32_t n = 2;
  ti_error e;
  const ti_type *t = ti_type_get(c, TI_TYPE_TENSOR, TI_DTYPE_F32, 1, d, TI_LAYOUT_ANY);
  ti_error_clear(&e);
  TT_CHECK(p != NULL);
  if (!p) { ti_context_destroy(c); return; }
  TT_EQ_INT(ti_program_add_var(p, "w", t, w, 0, &e), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_verify(p, &e), TI_STATUS_SUCCESS);
  in = nu_f(TI_LAYOUT_ANY, 1, d, x);
  TT_EQ_INT(ti_interpret(p, (const ti_tensor_value *const *)&in, 1, out, &n, &e), TI_STATUS_SUCCESS);
  TT_EQ_INT(n, 2);
  if (n == 2) {
    /* %2 = relu(x)*2 = 0,4,0,8; %4 = *10; %6 = -1, 38, -3, 76; %0 returned rectified */
    TT_CHECK(nu_at(out[0], 0) == -1 && nu_at(out[0], 1) == 38 && nu_at(out[0], 2) == -3 && nu_at(out[0], 3) == 76);
    TT_CHECK(nu_at(out[1], 0) == 0 && nu_at(out[1], 3) == 4);
    nu_free_all(2, out);
  }
  TT_CHECK(x[0] == -1);   /* inputs are copied */
  {
    const ti_variable *v = ti_program_find_var(p, "w");
    TT_CHECK(v && ((const float *)v->data)[1] == 40 && ((const float *)v->data)[0] == 0);
  }
  /* too little room for the outputs, wrong input count, wrong input shape */
  n = 1;
  TT_EQ_INT(ti_interpret(p, (const ti_tensor_value *const *)&in, 1, out, &n, &e), TI_STATUS_LIMIT);
  TT_EQ_INT(n, 0);
  n = 2;
  TT_EQ_INT(ti_interpret(p, NULL, 0, out, &n, &e), TI_STATUS_BAD_PARAM);
  {
    int64_t d3[1] = {3};
    ti_tensor_value *bad = nu_f(TI_LAYOUT_ANY, 1, d3, x);
    ti_error_clear(&e);
    TT_EQ_INT(ti_interpret(p, (const ti_tensor_value *const *)&bad, 1, out, &n, &e), TI_STATUS_BAD_PARAM);
    TT_CHECK(strstr(e.message, "input 0") != NULL);
    ti_tensor_free(bad);
  }
  ti_tensor_free(in);
  ti_program_destroy(p);
  ti_context_destroy(c);
}

/* What the layout passes rely on: inserting transposes that change layouts
   (and the matching result types) keeps the outputs. conv(NCHW, OIHW) ->
   relu -> reshape versus transpose to NHWC/HWOI -> conv -> relu ->
   transpose back -> reshape. */
TT_TEST(interpreter_transposes_preserve_results) {
  ti_context *c = nu_ctx();
  ti_program *a = parse(c,
    "program @a(%0: vtensor<1x3x6x6xf32, NCHW>, %1: vtensor<4x3x3x3xf32, OIHW>) {\n"
    "  %2 = nn.conv2d(%0, %1) {pads = [1, 1, 1, 1]} : (vtensor<1x3x6x6xf32, NCHW>, vtensor<4x3x3x3xf32, OIHW>) -> vtensor<1x4x6x6xf32, NCHW>\n"
    "  %3 = nn.relu(%2) : (vtensor<1x4x6x6xf32, NCHW>) -> vtensor<1x4x6x6xf32, NCHW>\n"
    "  %4 = nn.reshape(%3) {shape = [1, 144]} : (vtensor<1x4x6x6xf32, NCHW>) -> vtensor<1x144xf32, TENSOR>\n"
    "  builtin.return(%4) : (vtensor<1x144xf32, TENSOR>) -> ()\n"
    "}\n");
  ti_program *b = parse(c,
    "program @b(%0: vtensor<1x3x6x6xf32, NCHW>, %1: vtensor<4x3x3x3xf32, OIHW>) {\n"
    "  %2 = nn.transpose(%0) {perm = [0, 2, 3, 1]} : (vtensor<1x3x6x6xf32, NCHW>) -> vtensor<1x6x6x3xf32, NHWC>\n"
    "  %3 = nn.transpose(%1) {perm = [2, 3, 0, 1]} : (vtensor<4x3x3x3xf32, OIHW>) -> vtensor<3x3x4x3xf32, HWOI>\n"
    "  %4 = nn.conv2d(%2, %3) {pads = [1, 1, 1, 1]} : (vtensor<1x6x6x3xf32, NHWC>, vtensor<3x3x4x3xf32, HWOI>) -> vtensor<1x6x6x4xf32, NHWC>\n"
    "  %5 = nn.relu(%4) : (vtensor<1x6x6x4xf32, NHWC>) -> vtensor<1x6x6x4xf32, NHWC>\n"
    "  %6 = nn.transpose(%5) {perm = [0, 3, 1, 2]} : (vtensor<1x6x6x4xf32, NHWC>) -> vtensor<1x4x6x6xf32, NCHW>\n"
    "  %7 = nn.reshape(%6) {shape = [1, 144]} : (vtensor<1x4x6x6xf32, NCHW>) -> vtensor<1x144xf32, TENSOR>\n"
    "  builtin.return(%7) : (vtensor<1x144xf32, TENSOR>) -> ()\n"
    "}\n");
  tt_rng r = {31};
  int64_t xd[4] = {1, 3, 6, 6}, wd[4] = {4, 3, 3, 3};
  ti_tensor_value *in[2], *oa = NULL, *ob = NULL;
  int32_t na = 1, nb = 1;
  ti_error e;
  ti_error_clear(&e);
  TT_CHECK(a && b);
  if (a && b) {
    TT_EQ_INT(ti_verify(a, &e), TI_STATUS_SUCCESS);
    TT_EQ_INT(ti_verify(b, &e), TI_STATUS_SUCCESS);
    in[0] = nu_rand(TI_DTYPE_F32, TI_LAYOUT_NCHW, 4, xd, &r, -1, 1);
    in[1] = nu_rand(TI_DTYPE_F32, TI_LAYOUT_OIHW, 4, wd, &r, -1, 1);
    TT_EQ_INT(ti_interpret(a, (const ti_tensor_value *const *)in, 2, &oa, &na, &e), TI_STATUS_SUCCESS);
    TT_EQ_INT(ti_interpret(b, (const ti_tensor_value *const *)in, 2, &ob, &nb, &e), TI_STATUS_SUCCESS);
    TT_CHECK(oa && ob && ti_tensor_max_diff(oa, ob, NULL) < 1e-6);
    /* without the transpose back, the flattened order differs */
    ti_tensor_free(oa); ti_tensor_free(ob);
    nu_free_all(2, in);
  }
  if (a) ti_program_destroy(a);
  if (b) ti_program_destroy(b);
  ti_context_destroy(c);
}

/* The interpreter catches an op whose result type lies about its layout. */
TT_TEST(interpreter_checks_result_types) {
  ti_context *c = nu_ctx();
  ti_program *p = parse(c,
    "program @x(%0: vtensor<1x2x2x2xf32, NCHW>) {\n"
    "  %1 = nn.relu(%0) : (vtensor<1x2x2x2xf32, NCHW>) -> vtensor<1x2x2x2xf32, NHWC>\n"
    "  builtin.return(%1) : (vtensor<1x2x2x2xf32, NHWC>) -> ()\n"
    "}\n");
  int64_t d[4] = {1, 2, 2, 2};
  ti_tensor_value *in = nu_t(TI_DTYPE_F32, TI_LAYOUT_NCHW, 4, d, NULL), *out = NULL;
  int32_t n = 1;
  ti_error e;
  ti_error_clear(&e);
  TT_CHECK(p != NULL);
  if (p) {
    TT_EQ_INT(ti_verify(p, &e), TI_STATUS_INVALID);
    ti_error_clear(&e);
    TT_EQ_INT(ti_interpret(p, (const ti_tensor_value *const *)&in, 1, &out, &n, &e), TI_STATUS_INVALID);
    TT_CHECK(strstr(e.message, "nn.relu") != NULL);
    ti_program_destroy(p);
  }
  ti_tensor_free(in);
  ti_context_destroy(c);
}

/* fold = eval on constant attributes. */
TT_TEST(fold_interface) {
  ti_context *c = nu_ctx();
  ti_program *p = ti_program_create(c, "f", TI_PROGRAM_SSA);
  int64_t d[1] = {3};
  ti_value *a[2];
  ti_op *op;
  const ti_attr *in[2], *res[1] = {NULL};
  ti_error e;
  double v1[3] = {1, 2, 3};
  const ti_attr *fa[3];
  int i;
  ti_error_clear(&e);
  a[0] = ti_program_add_arg(p, ti_type_get(c, TI_TYPE_VTENSOR, TI_DTYPE_F32, 1, d, TI_LAYOUT_ANY));
  a[1] = a[0];
  op = ti_op_create(p, "nn.mul", 2, a, 1, NULL, NULL, &e);
  TT_CHECK(op != NULL);
  for (i = 0; i < 3; i++) fa[i] = ti_attr_float(c, v1[i]);
  in[0] = ti_attr_array(c, fa, 3);
  in[1] = ti_attr_float(c, -2.0);   /* a scalar splats */
  TT_EQ_INT(op->info->fold(c, op, in, res), 1);
  TT_CHECK(res[0] && res[0]->kind == TI_ATTR_ARRAY && res[0]->u.array.n == 3 && res[0]->u.array.items[2]->u.f == -6.0);
  in[1] = NULL;
  TT_EQ_INT(op->info->fold(c, op, in, res), 0);
  ti_program_destroy(p);
  ti_context_destroy(c);
}

TT_TEST(tensor_values) {
  int64_t d[4] = {1, 2, 3, 4}, bad[2] = {2, -1};
  ti_tensor_value *t = nu_t(TI_DTYPE_F32, TI_LAYOUT_NCHW, 4, d, NULL), *a, *n, *b;
  ti_error e;
  int64_t i;
  for (i = 0; i < 24; i++) ti_tensor_set(t, i, (double)i);
  a = ti_tensor_alias(t, 2, d + 2, TI_LAYOUT_TENSOR, &e);
  TT_CHECK(a == NULL);   /* 12 elements are not 24 */
  ti_error_clear(&e);
  {
    int64_t d2[2] = {6, 4};
    a = ti_tensor_alias(t, 2, d2, TI_LAYOUT_TENSOR, &e);
  }
  TT_CHECK(a && a->data == t->data);
  ti_tensor_set(a, 5, 100);
  TT_CHECK(ti_tensor_get(t, 5) == 100);
  n = ti_tensor_to_layout(t, TI_LAYOUT_NHWC, &e);
  TT_CHECK(n && n->dims[1] == 3 && n->dims[3] == 2 && ti_tensor_get(n, 1) == 12);   /* (n0,h0,w0,c1) */
  b = ti_tensor_to_layout(n, TI_LAYOUT_NCHW, &e);
  TT_CHECK(b && memcmp(b->data, t->data, 24 * sizeof(float)) == 0);
  TT_CHECK(ti_tensor_max_diff(t, n, NULL) == 0);
  TT_CHECK(ti_tensor_to_layout(t, TI_LAYOUT_HWOI, &e) == NULL);   /* other family */
  ti_error_clear(&e);
  TT_CHECK(ti_tensor_create(NULL, TI_DTYPE_F32, 2, bad, TI_LAYOUT_ANY, NULL, &e) == NULL && e.status == TI_STATUS_BAD_PARAM);
  /* integer stores saturate */
  {
    ti_tensor_value *q = nu_t(TI_DTYPE_I8, TI_LAYOUT_ANY, 1, d, NULL);
    ti_tensor_set(q, 0, 300);
    TT_EQ_INT(ti_tensor_get(q, 0), 127);
    ti_tensor_set(q, 0, -300);
    TT_EQ_INT(ti_tensor_get(q, 0), -128);
    ti_tensor_free(q);
  }
  ti_tensor_free(t);   /* a still holds the storage */
  TT_CHECK(ti_tensor_get(a, 5) == 100);
  ti_tensor_free(a); ti_tensor_free(n); ti_tensor_free(b);
}


/* Random ops with random operands and attributes: creation (infer_shape)
   and verification either fail with a message or the interpreter runs the
   op and its result matches the inferred type; nothing crashes. */
static const ti_attr *rand_ints(ti_context *c, tt_rng *r, int n, int lo, int hi) {
  int64_t v[8];
  int i;
  for (i = 0; i < n; i++) v[i] = tt_range(r, lo, hi);
  return ti_attr_int_array(c, v, n);
}
TT_TEST(random_ops_agree_with_their_types) {
  static const char *const ops[] = {"conv2d", "quant_conv2d", "conv2d_backprop_input", "conv2d_backprop_filter",
                                    "gemm", "quant_gemm", "matmul", "add", "sub", "mul", "relu", "relu_", "clip",
                                    "max_pool", "avg_pool", "global_avg_pool", "reshape", "flatten", "broadcast",
                                    "transpose", "concat", "pad", "img2col", "unpool", "maskunpool", "mirror", "rotate",
                                    "nchw2nhwc", "nhwc2nchw", "tensornorm", "bilinear", "tin_shift", "lif", "lut"};
  static const ti_layout lays[] = {TI_LAYOUT_ANY, TI_LAYOUT_NCHW, TI_LAYOUT_NHWC, TI_LAYOUT_OIHW, TI_LAYOUT_HWOI,
                                   TI_LAYOUT_TENSOR};
  static const ti_dtype dts[] = {TI_DTYPE_F32, TI_DTYPE_F32, TI_DTYPE_F32, TI_DTYPE_I8, TI_DTYPE_I32};
  ti_context *c = nu_ctx();
  tt_rng r = {99};
  int it, created = 0, ran = 0;
  for (it = 0; it < 4000; it++) {
    const char *name = ops[tt_range(&r, 0, (int64_t)(sizeof ops / sizeof *ops) - 1)];
    char full[64];
    const ti_op_info *info;
    ti_tensor_value *in[4], *out[2] = {NULL, NULL};
    ti_named_attr at[6];
    int n_in, n_at = 0, i, k, rank0 = (int)tt_range(&r, 1, 4);
    int64_t d0[4];
    ti_error e;
    ti_status st;
    snprintf(full, sizeof full, "nn.%s", name);
    info = ti_lookup_op(c, full);
    n_in = info->min_operands + (int)tt_range(&r, 0, info->max_operands < 0 ? 2 : info->max_operands - info->min_operands);
    for (k = 0; k < 4; k++) d0[k] = tt_range(&r, 1, 4);
    if (tt_range(&r, 0, 1)) {
      /* plausible operands: a 4-D activation, weights [O, C/g, k, k] with
         matching channels, per-channel vectors, 2-D matrices */
      int64_t C = d0[1], O = tt_range(&r, 1, 3), K = tt_range(&r, 1, 2);
      int q = strncmp(name, "quant", 5) == 0;
      for (i = 0; i < n_in; i++) {
        int64_t d[4];
        int rank = 4;
        ti_dtype dt = q ? TI_DTYPE_I8 : TI_DTYPE_F32;
        ti_layout l = tt_range(&r, 0, 1) ? TI_LAYOUT_NHWC : TI_LAYOUT_NCHW;
        memcpy(d, d0, sizeof d);
        if (!strncmp(name, "gemm", 4) || !strcmp(name, "quant_gemm") || !strcmp(name, "matmul")) {
          rank = i == 2 ? 1 : 2;
          d[0] = i == 0 ? d0[0] : d0[1]; d[1] = i == 0 ? d0[1] : O;
          if (i == 2) { d[0] = O; dt = q ? TI_DTYPE_I32 : TI_DTYPE_F32; }
          l = TI_LAYOUT_TENSOR;
        } else if (i == 1 && (strstr(name, "conv") && !strstr(name, "filter"))) {
          d[0] = strstr(name, "input") ? C : O; d[1] = strstr(name, "input") ? d0[1] : C; d[2] = d[3] = K;
          l = tt_range(&r, 0, 1) ? TI_LAYOUT_HWOI : TI_LAYOUT_OIHW;
          if (l == TI_LAYOUT_HWOI) { int64_t a = d[0], b = d[1]; d[0] = K; d[1] = K; d[2] = a; d[3] = b; }
        } else if (i == 2 || (i >= 1 && !strcmp(name, "tensornorm"))) {
          rank = 1; d[0] = strstr(name, "conv") ? O : C; l = TI_LAYOUT_TENSOR;
          if (q) dt = TI_DTYPE_I32;
        } else if (i == 1 && !strcmp(name, "tin_shift")) {
          rank = 2; d[0] = d0[0]; d[1] = 1; dt = TI_DTYPE_I32; l = TI_LAYOUT_TENSOR;
        } else if (i == 1 && !strcmp(name, "lut")) {
          rank = 1; d[0] = 256; l = TI_LAYOUT_TENSOR;
        } else if (i == 0 && !strcmp(name, "lut")) {
          dt = TI_DTYPE_I8;
        } else if (i > 0) {
          memcpy(d, in[0]->dims, sizeof d);
          l = in[0]->layout;
        }
        if (l == TI_LAYOUT_NHWC && rank == 4 && i == 0) { int64_t t = d[1]; d[1] = d[2]; d[2] = d[3]; d[3] = t; }
        in[i] = nu_rand(dt, rank == 4 ? l : TI_LAYOUT_TENSOR, rank, d, &r, -3, 3);
      }
    } else
    for (i = 0; i < n_in; i++) {
      /* mostly shapes related to operand 0, sometimes unrelated */
      int rank = tt_range(&r, 0, 3) ? rank0 : (int)tt_range(&r, 1, 4);
      int64_t d[4];
      ti_dtype dt = dts[tt_range(&r, 0, 4)];
      if (i > 0 && tt_range(&r, 0, 1)) dt = in[0]->dtype;
      for (k = 0; k < rank; k++) d[k] = tt_range(&r, 0, 3) ? d0[k] : tt_range(&r, 1, 4);
      in[i] = nu_rand(dt, rank == 4 ? lays[tt_range(&r, 0, 5)] : TI_LAYOUT_TENSOR, rank, d, &r, -3, 3);
    }
    for (k = 0; k < 6; k++) {
      static const char *const keys[] = {"strides", "pads", "dilations", "group", "kernel_shape", "shape", "perm",
                                         "axis", "min", "max", "size", "scales", "k", "shift", "offset", "input_size",
                                         "trans_a", "trans_b", "transpose_b", "alpha"};
      const char *key = keys[tt_range(&r, 0, 19)];
      if (tt_range(&r, 0, 2)) {
        /* keys the op knows */
        static const char *const conv_keys[] = {"strides", "pads", "dilations", "kernel_shape", "input_size", "shift"};
        static const char *const misc_keys[] = {"shape", "perm", "axis", "size", "scales", "k", "offset"};
        key = strstr(name, "conv") || strstr(name, "pool") || strstr(name, "img2col") ? conv_keys[tt_range(&r, 0, 5)]
                                                                                      : misc_keys[tt_range(&r, 0, 6)];
      }
      const ti_attr *v;
      int j, dup = 0;
      if (!strcmp(key, "pads")) v = rand_ints(c, &r, (int)tt_range(&r, 3, 4), -1, 2);
      else if (!strcmp(key, "perm")) {
        int64_t pv[4] = {0, 1, 2, 3}, t;
        int a = (int)tt_range(&r, 0, 3), b2 = (int)tt_range(&r, 0, 3);
        t = pv[a]; pv[a] = pv[b2]; pv[b2] = t;
        v = ti_attr_int_array(c, pv, in[0]->rank);
      } else if (!strcmp(key, "shape")) v = rand_ints(c, &r, (int)tt_range(&r, 1, 4), -1, 3);
      else if (!strcmp(key, "kernel_shape") || !strcmp(key, "strides") || !strcmp(key, "dilations") ||
               !strcmp(key, "scales") || !strcmp(key, "size") || !strcmp(key, "input_size"))
        v = rand_ints(c, &r, tt_range(&r, 0, 5) ? 2 : 1, 1, 3);
      else if (!strcmp(key, "axis") || !strcmp(key, "group") || !strcmp(key, "k") || !strcmp(key, "shift") ||
               !strcmp(key, "offset") || !strcmp(key, "trans_a") || !strcmp(key, "trans_b"))
        v = ti_attr_int(c, tt_range(&r, -1, 3));
      else if (!strcmp(key, "min") || !strcmp(key, "max") || !strcmp(key, "alpha")) v = ti_attr_float(c, (double)tt_range(&r, -2, 2));
      else if (!strcmp(key, "transpose_b")) v = ti_attr_bool(c, (int)tt_range(&r, 0, 1));
      else v = rand_ints(c, &r, (int)tt_range(&r, 1, 2), 0, 3);
      for (j = 0; j < n_at; j++) if (at[j].name == ti_attr_string(c, key, -1)) dup = 1;
      if (!dup && tt_range(&r, 0, 1)) at[n_at++] = ti_named(c, key, v);
    }
    st = nu_run(c, full, n_in, in, ti_attr_dict(c, at, n_at), info->num_results, out, &e);
    if (st == TI_STATUS_SUCCESS) {
      ran++;
      for (k = 0; k < info->num_results; k++) TT_CHECK_MSG(out[k] != NULL, "%s", full);
    } else {
      /* a failure says which op, unless the op was never created */
      TT_CHECK_MSG(e.message[0] != 0, "%s failed without a message", full);
      if (strstr(e.message, "nn.")) created++;
      /* once created and verified, only data-dependent errors remain */
      TT_CHECK_MSG(!strstr(e.message, "ti_interpret") || strstr(e.message, "lut"), "%s: %s", full, e.message);
    }
    nu_free_all(info->num_results, out);
    nu_free_all(n_in, in);
  }
  TT_CHECK(ran > 1000);
  (void)created;
  ti_context_destroy(c);
}

int main(void) {
  TT_RUN(conv2d_matches_naive_and_honours_layouts);
  TT_RUN(quant_conv2d_accumulates_and_shifts);
  TT_RUN(conv_backprops_are_adjoints);
  TT_RUN(gemm_matmul_quant_gemm);
  TT_RUN(elementwise_ops);
  TT_RUN(binary_ops_convert_cnn_layouts);
  TT_RUN(pools);
  TT_RUN(views_broadcast_transpose);
  TT_RUN(concat_pad_logical_axes);
  TT_RUN(img2col_unpool_mirror_rotate);
  TT_RUN(layout_conversions_tensornorm_bilinear);
  TT_RUN(tin_shift_lif_lut);
  TT_RUN(traits_and_registry);
  TT_RUN(layout_interfaces);
  TT_RUN(verification_errors_name_the_op);
  TT_RUN(interpreter_aliasing_and_weights);
  TT_RUN(interpreter_transposes_preserve_results);
  TT_RUN(interpreter_checks_result_types);
  TT_RUN(fold_interface);
  TT_RUN(tensor_values);
  TT_RUN(random_ops_agree_with_their_types);
  return tt_finish();
}
