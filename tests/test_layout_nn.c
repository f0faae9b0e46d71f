/* Layout passes on the nn dialect: random nn programs (conv2d, pad, concat,
   mirror, relu, add, global_avg_pool, flatten/reshape, gemm, existing
   transposes) go through LayoutPresetToNPU; the nn interpreter must give
   the same outputs before and after, every demanding op must see NHWC/HWOI,
   and no more transposes are created than the naive baseline. */
#define TASKIR_IMPLEMENTATION
#include "taskir_layout.h"
#include "tt.h"
#include <stdio.h>

static const ti_type *ty(ti_context *ctx, ti_layout l, int32_t rank, int64_t a, int64_t b, int64_t c, int64_t d) {
  int64_t dims[4];
  dims[0] = a; dims[1] = b; dims[2] = c; dims[3] = d;
  return ti_type_get(ctx, TI_TYPE_VTENSOR, TI_DTYPE_F32, rank, dims, l);
}
static const ti_attr *ints_attr(ti_context *ctx, const ti_attr *d, const char *name, const int64_t *v, int64_t n) {
  return ti_dict_set(ctx, d ? d : ti_attr_dict(ctx, NULL, 0), name, ti_attr_int_array(ctx, v, n));
}
static int64_t chan(const ti_type *t) { return t->layout == TI_LAYOUT_NHWC ? t->dims[3] : t->dims[1]; }

typedef struct ngen { ti_context *ctx; ti_program *p; ti_builder b; ti_error e; tt_rng *r;
                      ti_value *act[256]; int n_act; ti_value *flat[256]; int n_flat; } ngen;

static ti_value *pick(ti_value **v, int n, tt_rng *r) { return n ? v[tt_range(r, 0, n - 1)] : NULL; }
static void push(ti_value **v, int *n, ti_value *x) { if (x && *n < 256) v[(*n)++] = x; }

static ti_value *act_arg(ngen *g) {
  ti_layout l = tt_range(g->r, 0, 3) == 0 ? TI_LAYOUT_NHWC : TI_LAYOUT_NCHW;
  int64_t c = tt_range(g->r, 1, 3);
  ti_value *v = ti_program_add_arg(g->p, l == TI_LAYOUT_NHWC ? ty(g->ctx, l, 4, 1, 3, 4, c) : ty(g->ctx, l, 4, 1, c, 3, 4));
  push(g->act, &g->n_act, v);
  return v;
}

static ti_program *gen_nn(ti_context *ctx, tt_rng *r, int n) {
  ngen g;
  int i, j, n_out = 0;
  ti_value *ops[3], *x, *y, *outs[64];
  memset(&g, 0, sizeof g);
  g.ctx = ctx; g.r = r;
  g.p = ti_program_create(ctx, "g", TI_PROGRAM_SSA);
  ti_error_clear(&g.e);
  ti_builder_init(&g.b, g.p, &g.e);
  for (i = (int)tt_range(r, 1, 2); i > 0; i--) act_arg(&g);
  for (i = 0; i < n && g.b.status == TI_STATUS_SUCCESS; i++) {
    int k = (int)tt_range(r, 0, 99);
    x = pick(g.act, g.n_act, r);
    if (k < 22) {                                    /* conv2d, 1x1 or 3x3 "same" */
      int64_t c = chan(x->type), o = tt_range(r, 1, 3), ks = tt_range(r, 0, 1) ? 3 : 1, pads[4];
      int hwoi = tt_range(r, 0, 2) == 0;
      const ti_attr *a = NULL;
      ti_value *w = ti_program_add_arg(g.p, hwoi ? ty(ctx, TI_LAYOUT_HWOI, 4, ks, ks, o, c) : ty(ctx, TI_LAYOUT_OIHW, 4, o, c, ks, ks));
      pads[0] = pads[1] = pads[2] = pads[3] = ks / 2;
      if (ks == 3) a = ints_attr(ctx, NULL, "pads", pads, 4);
      ops[0] = x; ops[1] = w;
      push(g.act, &g.n_act, ti_build1(&g.b, "nn.conv2d", 2, ops, NULL, a));
    } else if (k < 34) {                             /* relu */
      push(g.act, &g.n_act, ti_build1(&g.b, "nn.relu", 1, &x, NULL, NULL));
    } else if (k < 46) {                             /* add of equal types */
      y = x;
      for (j = 0; j < 8; j++) { ti_value *z = pick(g.act, g.n_act, r); if (z->type == x->type) { y = z; break; } }
      ops[0] = x; ops[1] = y;
      push(g.act, &g.n_act, ti_build1(&g.b, "nn.add", 2, ops, NULL, NULL));
    } else if (k < 52) {                             /* concat along C (demanding) */
      y = pick(g.act, g.n_act, r);
      if (y->type->layout == x->type->layout && y->type->rank == 4 && chan(x->type) + chan(y->type) <= 6 &&
          (x->type->layout == TI_LAYOUT_NHWC ? x->type->dims[1] == y->type->dims[1] && x->type->dims[2] == y->type->dims[2]
                                             : x->type->dims[2] == y->type->dims[2] && x->type->dims[3] == y->type->dims[3])) {
        ops[0] = x; ops[1] = y;
        push(g.act, &g.n_act, ti_build1(&g.b, "nn.concat", 2, ops, NULL, ti_dict_set(ctx, ti_attr_dict(ctx, NULL, 0), "axis", ti_attr_int(ctx, 1))));
      }
    } else if (k < 58) {                             /* mirror (demanding) */
      push(g.act, &g.n_act, ti_build1(&g.b, "nn.mirror", 1, &x, NULL, NULL));
    } else if (k < 62) {                             /* pad H, W by one (demanding) */
      int64_t pads[4] = {1, 0, 0, 1};
      push(g.act, &g.n_act, ti_build1(&g.b, "nn.pad", 1, &x, NULL, ints_attr(ctx, NULL, "pads", pads, 4)));
    } else if (k < 66) {                             /* global average pool: CNN -> CNN */
      push(g.act, &g.n_act, ti_build1(&g.b, "nn.global_avg_pool", 1, &x, NULL, NULL));
    } else if (k < 74) {                             /* flatten: CNN -> TENSOR */
      push(g.flat, &g.n_flat, ti_build1(&g.b, "nn.flatten", 1, &x, NULL, NULL));
    } else if (k < 78 && g.n_flat) {                 /* gemm on flattened data */
      y = pick(g.flat, g.n_flat, r);
      ops[0] = y;
      ops[1] = ti_program_add_arg(g.p, ty(ctx, TI_LAYOUT_TENSOR, 2, y->type->dims[1], 3, 0, 0));
      push(g.flat, &g.n_flat, ti_build1(&g.b, "nn.gemm", 2, ops, NULL, NULL));
    } else if (k < 82 && g.n_flat) {                 /* reshape back to NCHW */
      int64_t shape[4];
      y = pick(g.flat, g.n_flat, r);
      shape[0] = 1; shape[1] = y->type->dims[1]; shape[2] = 1; shape[3] = 1;
      push(g.act, &g.n_act, ti_build1(&g.b, "nn.reshape", 1, &y, NULL,
                                      ti_dict_set(ctx, ints_attr(ctx, NULL, "shape", shape, 4), "layout", ti_attr_string(ctx, "NCHW", -1))));
    } else if (k < 92) {                             /* an existing transpose between NCHW and NHWC */
      int64_t to_nhwc[4] = {0, 2, 3, 1}, to_nchw[4] = {0, 3, 1, 2};
      push(g.act, &g.n_act, ti_build1(&g.b, "nn.transpose", 1, &x, NULL,
                                      ints_attr(ctx, NULL, "perm", x->type->layout == TI_LAYOUT_NHWC ? to_nchw : to_nhwc, 4)));
    } else act_arg(&g);
  }
  for (i = 0; i < g.n_act && n_out < 60; i++)
    if (ti_value_num_uses(g.act[i]) == 0 || tt_range(r, 0, 15) == 0) outs[n_out++] = g.act[i];
  for (i = 0; i < g.n_flat && n_out < 63; i++)
    if (ti_value_num_uses(g.flat[i]) == 0) outs[n_out++] = g.flat[i];
  ti_build(&g.b, "builtin.return", n_out, outs, 0, NULL, NULL);
  if (g.b.status != TI_STATUS_SUCCESS) {
    fprintf(stderr, "  generator: %s\n", g.e.message);
    ti_program_destroy(g.p);
    return NULL;
  }
  return g.p;
}

static ti_program *clone_prog(ti_context *ctx, const ti_program *p) {
  ti_buffer b;
  ti_error e;
  ti_program *q = NULL;
  ti_buffer_init(&b, NULL);
  ti_error_clear(&e);
  if (ti_print_program(p, &b, &e) == TI_STATUS_SUCCESS) (void)!ti_parse_program(ctx, (const char *)b.data, b.len, &q, &e);   /* q stays NULL on failure: the callers check it */
  ti_buffer_free(&b);
  return q;
}

/* outputs of a and b on the same integer-valued inputs: equal (dims,
   layout, data); 0 and why otherwise */
static int same_outputs(const ti_program *a, const ti_program *b, tt_rng *r, char *why, size_t wn) {
  ti_tensor_value *in[256], *oa[64], *ob[64];
  int32_t na = 64, nb = 64, i, ok = 1;
  int64_t j;
  ti_error e;
  ti_error_clear(&e);
  for (i = 0; i < a->n_args && i < 256; i++) {
    const ti_type *t = a->args[i]->type;
    in[i] = ti_tensor_create(NULL, t->dtype, t->rank, t->dims, t->layout, NULL, &e);
    for (j = 0; in[i] && j < in[i]->numel; j++) ti_tensor_set(in[i], j, (double)tt_range(r, -3, 3));
  }
  if (ti_interpret(a, (const ti_tensor_value *const *)in, a->n_args, oa, &na, &e) != TI_STATUS_SUCCESS) {
    snprintf(why, wn, "original: %s", e.message); ok = 0; na = 0;
  }
  ti_error_clear(&e);
  if (ok && ti_interpret(b, (const ti_tensor_value *const *)in, b->n_args, ob, &nb, &e) != TI_STATUS_SUCCESS) {
    snprintf(why, wn, "rewritten: %s", e.message); ok = 0; nb = 0;
  }
  if (!ok) nb = 0;
  if (ok && na != nb) { snprintf(why, wn, "output counts differ"); ok = 0; }
  for (i = 0; ok && i < na; i++) {
    if (oa[i]->layout != ob[i]->layout || oa[i]->rank != ob[i]->rank ||
        memcmp(oa[i]->dims, ob[i]->dims, sizeof(int64_t) * (size_t)oa[i]->rank) != 0) {
      snprintf(why, wn, "output %d differs in type", (int)i); ok = 0;
    } else if (ti_tensor_max_diff(oa[i], ob[i], &e) != 0.0) {
      snprintf(why, wn, "output %d differs in data", (int)i); ok = 0;
    }
  }
  for (i = 0; i < a->n_args && i < 256; i++) ti_tensor_free(in[i]);
  for (i = 0; i < na; i++) ti_tensor_free(oa[i]);
  for (i = 0; i < nb; i++) ti_tensor_free(ob[i]);
  return ok;
}

static int demands_met(const ti_program *p) {
  const ti_op *op;
  int32_t i;
  for (op = p->first; op; op = op->next)
    if (ti_op_has_trait(op, TI_TRAIT_LAYOUT_DEMAND))
      for (i = 0; i < op->n_operands; i++) {
        ti_layout l = op->operands[i].value->type->layout;
        if (ti_layout_is_cnn(l) && l != TI_LAYOUT_NHWC && l != TI_LAYOUT_HWOI) return 0;
      }
  return 1;
}

/* tests/layout/NAME.nn.tir: the seed examples in the nn dialect, run as
   `taskir layout FILE [--transmit] [--npu]` would; the printed program and
   the closing count must equal NAME.nn.expected.tir, and the nn
   interpreter must give the same outputs (TI_LAYOUT_REGEN=1 writes a
   missing expectation, to be checked by hand). */
static void run_seed_nn(const char *name, int transmit, int npu) {
  char path[256], epath[256], why[200], *text, *out = NULL;
  ti_context *ctx = ti_context_create(NULL);
  ti_program *p = NULL, *orig = NULL;
  ti_layout_stats st;
  ti_buffer b;
  ti_error e;
  tt_rng r;
  ti_error_clear(&e);
  TT_EQ_INT(ti_nn_register(ctx, &e), TI_STATUS_SUCCESS);
  snprintf(path, sizeof path, "tests/layout/%s.nn.tir", name);
  snprintf(epath, sizeof epath, "tests/layout/%s.nn.expected.tir", name);
  text = tt_read_file(path, NULL);
  TT_CHECK_MSG(text != NULL, "missing %s", path);
  if (text) {
    TT_EQ_INT(ti_parse_program(ctx, text, strlen(text), &p, &e), TI_STATUS_SUCCESS);
    TT_EQ_INT(ti_parse_program(ctx, text, strlen(text), &orig, &e), TI_STATUS_SUCCESS);
  }
  if (!p || !orig) { fprintf(stderr, "  %s: %s\n", name, e.message); goto done; }
  /* loaded as the CLI loads it: parse, then verify */
  TT_CHECK_MSG(ti_verify(p, &e) == TI_STATUS_SUCCESS, "%s does not verify: %s", path, e.message);
  if (e.status) goto done;
  if (transmit) TT_EQ_INT(ti_layout_transmit(orig, NULL, &e), TI_STATUS_SUCCESS);
  TT_CHECK_MSG(ti_layout_run(p, transmit, npu, NULL, &st, &e) == TI_STATUS_SUCCESS, "%s: %s", name, e.message);
  ti_buffer_init(&b, NULL);
  TT_EQ_INT(ti_print_program(p, &b, &e), TI_STATUS_SUCCESS);
  ti_buffer_printf(&b, "transposes: inserted %lld, removed %lld\n", (long long)st.inserted, (long long)st.removed);
  out = (char *)malloc(b.len + 1);
  memcpy(out, b.data, b.len); out[b.len] = 0;
  ti_buffer_free(&b);
  TT_GOLDEN(out, epath, "TI_LAYOUT_REGEN");
  TT_CHECK_MSG(ti_verify(p, &e) == TI_STATUS_SUCCESS, "%s: the rewritten program does not verify: %s", name, e.message);
  TT_CHECK_MSG(demands_met(p) || !npu, "%s: a demanding op sees a non-NPU layout", name);
  r.s = 12345;
  TT_CHECK_MSG(same_outputs(orig, p, &r, why, sizeof why), "%s: %s", name, why);
done:
  free(text); free(out);
  if (p) ti_program_destroy(p);
  if (orig) ti_program_destroy(orig);
  ti_context_destroy(ctx);
}

TT_TEST(nn_seed001_simplified) { run_seed_nn("seed001_simplified", 1, 0); }
TT_TEST(nn_seed001_reshape) { run_seed_nn("seed001_reshape", 1, 0); }
TT_TEST(nn_seed001_consecutive) { run_seed_nn("seed001_consecutive", 1, 0); }
TT_TEST(nn_seed004_conv_reshape_add) { run_seed_nn("seed004_conv_reshape_add", 0, 1); }
TT_TEST(nn_seed004_input_b_output) { run_seed_nn("seed004_input_b_output", 0, 1); }
TT_TEST(nn_seed004_input_b_output_demand) { run_seed_nn("seed004_input_b_output_demand", 0, 1); }
TT_TEST(nn_seed004_existing_transpose) { run_seed_nn("seed004_existing_transpose", 0, 1); }
TT_TEST(nn_seed004_multi_input) { run_seed_nn("seed004_multi_input", 0, 1); }
TT_TEST(nn_seed004_cnn_chain) { run_seed_nn("seed004_cnn_chain", 0, 1); }
TT_TEST(nn_seed004_transmit_then_npu) { run_seed_nn("seed004_transmit_then_npu", 1, 1); }

/* a transpose copies: with a tensor written in place (relu_) the second
   conv would read an unwritten copy, so the pass refuses rather than
   miscompile, naming the op and the cure; after inplace-to-outofplace it
   succeeds and the outputs are unchanged */
TT_TEST(nn_inplace_is_refused_until_outofplace) {
  const char *text =
    "program @inplace(%0: tensor<1x2x2x3xf32, NCHW>, %1: tensor<2x2x1x1xf32, OIHW>) {\n"
    "  %2 = nn.conv2d(%0, %1) : (tensor<1x2x2x3xf32, NCHW>, tensor<2x2x1x1xf32, OIHW>) -> tensor<1x2x2x3xf32, NCHW>\n"
    "  %3 = nn.relu_(%2) : (tensor<1x2x2x3xf32, NCHW>) -> tensor<1x2x2x3xf32, NCHW>\n"
    "  %4 = nn.conv2d(%2, %1) : (tensor<1x2x2x3xf32, NCHW>, tensor<2x2x1x1xf32, OIHW>) -> tensor<1x2x2x3xf32, NCHW>\n"
    "  builtin.return(%4) : (tensor<1x2x2x3xf32, NCHW>) -> ()\n"
    "}\n";
  ti_context *ctx = ti_context_create(NULL);
  ti_program *p = NULL, *q = NULL;
  ti_layout_stats st;
  ti_error e;
  char why[200];
  tt_rng r;
  ti_error_clear(&e);
  TT_EQ_INT(ti_nn_register(ctx, &e), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_parse_program(ctx, text, strlen(text), &p, &e), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_parse_program(ctx, text, strlen(text), &q, &e), TI_STATUS_SUCCESS);
  if (p && q) {
    TT_EQ_INT(ti_layout_preset_npu(p, NULL, &st, &e), TI_STATUS_NOT_SUPPORTED);
    TT_CHECK_MSG(strstr(e.message, "nn.relu_") && strstr(e.message, "inplace-to-outofplace"), "%s", e.message);
    ti_error_clear(&e);
    TT_EQ_INT(ti_pass_inplace_to_outofplace(p, NULL, &e), TI_STATUS_SUCCESS);
    TT_EQ_INT(ti_layout_run(p, 0, 1, NULL, &st, &e), TI_STATUS_SUCCESS);
    TT_CHECK(demands_met(p));
    r.s = 99;
    TT_CHECK_MSG(same_outputs(q, p, &r, why, sizeof why), "%s", why);
  }
  if (p) ti_program_destroy(p);
  if (q) ti_program_destroy(q);
  ti_context_destroy(ctx);
}

TT_TEST(nn_preset_random_programs) {
  ti_context *ctx = ti_context_create(NULL);
  ti_error e;
  tt_rng r;
  int g, n_graphs = 300;
  int64_t ins = 0, naive = 0;
  ti_error_clear(&e);
  TT_EQ_INT(ti_nn_register(ctx, &e), TI_STATUS_SUCCESS);
  r.s = 0xa11ce;
  for (g = 0; g < n_graphs; g++) {
    int n = (int)tt_range(&r, 1, 60);
    ti_program *p0 = gen_nn(ctx, &r, n), *p1;
    ti_layout_stats st;
    char why[200];
    uint64_t seed = tt_next(&r);
    TT_CHECK(p0 != NULL);
    if (!p0) break;
    ti_error_clear(&e);
    TT_CHECK_MSG(ti_verify(p0, &e) == TI_STATUS_SUCCESS, "program %d: %s", g, e.message);
    p1 = clone_prog(ctx, p0);
    TT_CHECK(p1 != NULL);
    if (!p1) { ti_program_destroy(p0); break; }
    TT_CHECK_MSG(ti_layout_run(p1, 0, 1, NULL, &st, &e) == TI_STATUS_SUCCESS, "program %d: %s", g, e.message);
    TT_CHECK_MSG(demands_met(p1), "program %d: a demanding op sees a non-NPU layout", g);
    TT_CHECK(st.inserted <= st.naive);
    {
      tt_rng r2;
      r2.s = seed | 1;
      TT_CHECK_MSG(same_outputs(p0, p1, &r2, why, sizeof why), "program %d (%d ops): %s", g, n, why);
    }
    ins += st.inserted - st.removed; naive += st.naive;
    ti_program_destroy(p0); ti_program_destroy(p1);
  }
  printf("  nn programs: %d, transposes net %lld vs naive %lld\n", n_graphs, (long long)ins, (long long)naive);
  ti_context_destroy(ctx);
}

int main(void) {
  TT_RUN(nn_seed001_simplified);
  TT_RUN(nn_seed001_reshape);
  TT_RUN(nn_seed001_consecutive);
  TT_RUN(nn_seed004_conv_reshape_add);
  TT_RUN(nn_seed004_input_b_output);
  TT_RUN(nn_seed004_input_b_output_demand);
  TT_RUN(nn_seed004_existing_transpose);
  TT_RUN(nn_seed004_multi_input);
  TT_RUN(nn_seed004_cnn_chain);
  TT_RUN(nn_seed004_transmit_then_npu);
  TT_RUN(nn_inplace_is_refused_until_outofplace);
  TT_RUN(nn_preset_random_programs);
  return tt_finish();
}
