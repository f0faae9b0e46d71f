/* Layout passes: the seed examples (tests/layout/NAME.tir against their
   .expected.tir), behaviour checks, and a property test over random DAGs:
   the rewritten program verifies, computes the same outputs, every
   demanding op sees NHWC/HWOI, and never needs more transposes than the
   naive baseline; small graphs are compared with an exhaustive search. */
#define TASKIR_IMPLEMENTATION
#include "taskir_layout.h"
#include "tt.h"
#include "layout/lt_dialect.h"
#include <stdio.h>

/* --- helpers ------------------------------------------------------------- */

static char *print_prog(const ti_program *p) {
  ti_buffer b;
  ti_error e;
  char *s;
  ti_buffer_init(&b, NULL);
  ti_error_clear(&e);
  if (ti_print_program(p, &b, &e) != TI_STATUS_SUCCESS) { ti_buffer_free(&b); return NULL; }
  s = (char *)malloc(b.len + 1);
  memcpy(s, b.data, b.len); s[b.len] = 0;
  ti_buffer_free(&b);
  return s;
}

static ti_program *parse_text(ti_context *ctx, const char *text) {
  ti_program *p = NULL;
  ti_error e;
  ti_error_clear(&e);
  if (ti_parse_program(ctx, text, strlen(text), &p, &e) != TI_STATUS_SUCCESS) {
    fprintf(stderr, "  parse: %s (line %d)\n", e.message, (int)e.line);
    return NULL;
  }
  return p;
}

static ti_program *clone_prog(ti_context *ctx, const ti_program *p) {
  char *s = print_prog(p);
  ti_program *q = s ? parse_text(ctx, s) : NULL;
  free(s);
  return q;
}

static int count_ops(const ti_program *p, const char *name) {
  const ti_op *op;
  int n = 0;
  for (op = p->first; op; op = op->next) n += ti_op_is(op, name);
  return n;
}

/* Fills every argument with small integers (sums stay exact in float). */
static lt_tensor *make_args(const ti_program *p, uint64_t seed) {
  lt_tensor *a = (lt_tensor *)calloc((size_t)p->n_args + 1, sizeof *a);
  tt_rng r;
  int32_t i;
  int64_t j;
  r.s = seed | 1;
  for (i = 0; i < p->n_args; i++) {
    lt_tensor_alloc(&a[i], p->args[i]->type);
    for (j = 0; j < a[i].n; j++) a[i].d[j] = (float)tt_range(&r, -3, 3);
  }
  return a;
}
static void free_tensors(lt_tensor *t, int n) {
  int i;
  for (i = 0; i < n; i++) free(t[i].d);
  free(t);
}

/* 1 when both programs give equal outputs (dims, layout, data) on random inputs */
static int same_outputs(const ti_program *a, const ti_program *b, uint64_t seed, char *why, size_t wn) {
  lt_tensor *args = make_args(a, seed), oa[64], ob[64];
  int na, nb, i, ok = 1;
  na = lt_run(a, args, oa, 64, why, wn);
  if (na < 0) { free_tensors(args, a->n_args); return 0; }
  nb = lt_run(b, args, ob, 64, why, wn);
  free_tensors(args, a->n_args);
  if (nb < 0) { for (i = 0; i < na; i++) free(oa[i].d); return 0; }
  if (na != nb) { snprintf(why, wn, "output counts differ"); ok = 0; }
  for (i = 0; ok && i < na; i++) {
    if (oa[i].rank != ob[i].rank || oa[i].n != ob[i].n || oa[i].layout != ob[i].layout ||
        memcmp(oa[i].dims, ob[i].dims, sizeof(int64_t) * (size_t)oa[i].rank) != 0) {
      snprintf(why, wn, "output %d differs in type", i);
      ok = 0;
    } else if (memcmp(oa[i].d, ob[i].d, sizeof(float) * (size_t)oa[i].n) != 0) {
      snprintf(why, wn, "output %d differs in data", i);
      ok = 0;
    }
  }
  for (i = 0; i < na; i++) free(oa[i].d);
  for (i = 0; i < nb; i++) free(ob[i].d);
  return ok;
}

/* every 4-D operand of a demanding op is NHWC or HWOI */
static int demands_met(const ti_program *p) {
  const ti_op *op;
  int32_t i;
  for (op = p->first; op; op = op->next) {
    if (!ti_op_has_trait(op, TI_TRAIT_LAYOUT_DEMAND)) continue;
    for (i = 0; i < op->n_operands; i++) {
      ti_layout l = op->operands[i].value->type->layout;
      if (ti_layout_is_cnn(l) && l != TI_LAYOUT_NHWC && l != TI_LAYOUT_HWOI) return 0;
    }
  }
  return 1;
}

/* the naive baseline, counted independently of the pass: a transpose on
   every NCHW/OIHW operand and every NCHW/OIHW result of a demanding op */
static int64_t naive_count(const ti_program *p) {
  const ti_op *op;
  int64_t n = 0;
  int32_t i;
  for (op = p->first; op; op = op->next) {
    if (!ti_op_has_trait(op, TI_TRAIT_LAYOUT_DEMAND)) continue;
    for (i = 0; i < op->n_operands; i++) {
      const ti_type *t = op->operands[i].value->type;
      n += t->rank == 4 && (t->layout == TI_LAYOUT_NCHW || t->layout == TI_LAYOUT_OIHW);
    }
    for (i = 0; i < op->n_results; i++) {
      const ti_type *t = op->results[i].type;
      n += t->rank == 4 && (t->layout == TI_LAYOUT_NCHW || t->layout == TI_LAYOUT_OIHW);
    }
  }
  return n;
}

/* --- seed examples as files ---------------------------------------------- */

/* Runs tests/layout/NAME.tir through transmit (seed001_*) or preset
   (seed004_*), compares with NAME.expected.tir, and for preset checks that
   the outputs are unchanged. TI_LAYOUT_REGEN=1 writes missing expectations
   (to be read and checked by hand before committing). */
static void run_seed_file(const char *name, int transmit, int npu) {
  char path[256], epath[256], why[128];
  char *text, *got = NULL, *out = NULL;
  ti_context *ctx = lt_context();
  ti_program *p = NULL, *orig = NULL;
  ti_layout_options o;
  ti_layout_stats st;
  ti_error e;
  size_t n;
  snprintf(path, sizeof path, "tests/layout/%s.tir", name);
  snprintf(epath, sizeof epath, "tests/layout/%s.expected.tir", name);
  text = tt_read_file(path, NULL);
  TT_CHECK_MSG(text != NULL, "missing %s", path);
  if (!text || !ctx) goto done;
  p = parse_text(ctx, text);
  orig = parse_text(ctx, text);
  TT_CHECK_MSG(p != NULL && orig != NULL, "%s does not parse", path);
  if (!p || !orig) goto done;
  lt_options(&o);
  ti_error_clear(&e);
  /* loaded as the CLI loads a program: parse, then verify */
  TT_CHECK_MSG(ti_verify(p, &e) == TI_STATUS_SUCCESS, "%s does not verify: %s", path, e.message);
  if (e.status) goto done;
  /* the reference is the coloured program: uncoloured 4-D data has no memory order yet */
  if (transmit) TT_EQ_INT(ti_layout_transmit(orig, &o, &e), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_layout_run(p, transmit, npu, &o, &st, &e), TI_STATUS_SUCCESS);
  if (e.status) fprintf(stderr, "  %s: %s\n", name, e.message);
  got = print_prog(p);
  if (!got) goto done;
  n = strlen(got);
  out = (char *)malloc(n + 64);
  snprintf(out, n + 64, "%stransposes: inserted %lld, removed %lld\n", got, (long long)st.inserted, (long long)st.removed);
  TT_GOLDEN(out, epath, "TI_LAYOUT_REGEN");
  if (npu) {
    TT_CHECK_MSG(demands_met(p), "%s: a demanding op sees a non-NPU layout", name);
    TT_CHECK_MSG(same_outputs(orig, p, 7, why, sizeof why), "%s: %s", name, why);
  }
done:
  free(text); free(got); free(out);
  if (p) ti_program_destroy(p);
  if (orig) ti_program_destroy(orig);
  if (ctx) ti_context_destroy(ctx);
}

/* seed 001, simplified model: A and B feed the known op C; A also feeds D;
   C -> E -> F <- D. C's input colours come from the reverse pass, D, E, F
   from the forward pass. */
TT_TEST(seed001_simplified) { run_seed_file("seed001_simplified", 1, 0); }
/* seed 001, full model: Conv(NHWC) -> Reshape -> Gemm(NTENSOR), a second
   path without a known op takes the default. */
TT_TEST(seed001_reshape) { run_seed_file("seed001_reshape", 1, 0); }
/* seed 001, consecutive non-invertible ops: Conv -> Reshape -> . -> . -> Reshape -> Gemm */
TT_TEST(seed001_consecutive) { run_seed_file("seed001_consecutive", 1, 0); }
/* seed 004, CNN->TENSOR: conv2d gets one transpose before its input and one
   after its output back to NCHW, so reshape1 + reshape2 -> add still agree */
TT_TEST(seed004_conv_reshape_add) { run_seed_file("seed004_conv_reshape_add", 0, 1); }
/* seed 004, input -> B -> output: nothing is inserted when B demands nothing */
TT_TEST(seed004_input_b_output) { run_seed_file("seed004_input_b_output", 0, 1); }
/* ... and a transpose pair when B demands NHWC */
TT_TEST(seed004_input_b_output_demand) { run_seed_file("seed004_input_b_output_demand", 0, 1); }
/* seed 004, an existing transpose is an insertion point: it absorbs the change */
TT_TEST(seed004_existing_transpose) { run_seed_file("seed004_existing_transpose", 0, 1); }
/* seed 004, multi-input op (V_VV): operands that disagree after a change are aligned */
TT_TEST(seed004_multi_input) { run_seed_file("seed004_multi_input", 0, 1); }
/* seed 004, CNN -> CNN chain between two demanding ops: no transpose in between */
TT_TEST(seed004_cnn_chain) { run_seed_file("seed004_cnn_chain", 0, 1); }
/* both passes in a row on an uncoloured program (what `taskir layout --transmit --npu` runs) */
TT_TEST(seed004_transmit_then_npu) { run_seed_file("seed004_transmit_then_npu", 1, 1); }

/* --- behaviour ----------------------------------------------------------- */

static const ti_type *t4(ti_context *ctx, ti_layout l, int64_t a, int64_t b, int64_t c, int64_t d) {
  int64_t lg[4], perm[4], ph[4];
  int i;
  lg[0] = a; lg[1] = b; lg[2] = c; lg[3] = d;
  if (!ti_layout_perm(lt_is_wt(l) ? TI_LAYOUT_OIHW : TI_LAYOUT_NCHW, l, perm))
    return ti_type_get(ctx, TI_TYPE_VTENSOR, TI_DTYPE_F32, 4, lg, l);
  for (i = 0; i < 4; i++) ph[i] = lg[perm[i]];
  return ti_type_get(ctx, TI_TYPE_VTENSOR, TI_DTYPE_F32, 4, ph, l);
}
static const ti_type *t2(ti_context *ctx, ti_layout l, int64_t a, int64_t b) {
  int64_t d[2];
  d[0] = a; d[1] = b;
  return ti_type_get(ctx, TI_TYPE_VTENSOR, TI_DTYPE_F32, 2, d, l);
}
static const ti_attr *perm_attrs(ti_context *ctx, int a, int b, int c, int d) {
  int64_t p[4];
  p[0] = a; p[1] = b; p[2] = c; p[3] = d;
  return ti_dict_set(ctx, ti_attr_dict(ctx, NULL, 0), "perm", ti_attr_int_array(ctx, p, 4));
}

TT_TEST(layout_perm_and_npu) {
  int64_t p[4];
  TT_CHECK(ti_layout_perm(TI_LAYOUT_NCHW, TI_LAYOUT_NHWC, p));
  TT_CHECK(p[0] == 0 && p[1] == 2 && p[2] == 3 && p[3] == 1);
  TT_CHECK(ti_layout_perm(TI_LAYOUT_NHWC, TI_LAYOUT_NCHW, p));
  TT_CHECK(p[0] == 0 && p[1] == 3 && p[2] == 1 && p[3] == 2);
  TT_CHECK(ti_layout_perm(TI_LAYOUT_OIHW, TI_LAYOUT_HWOI, p));
  TT_CHECK(p[0] == 2 && p[1] == 3 && p[2] == 0 && p[3] == 1);
  TT_CHECK(!ti_layout_perm(TI_LAYOUT_TENSOR, TI_LAYOUT_NCHW, p));
  TT_EQ_INT(ti_layout_npu(TI_LAYOUT_NCHW), TI_LAYOUT_NHWC);
  TT_EQ_INT(ti_layout_npu(TI_LAYOUT_OIHW), TI_LAYOUT_HWOI);
  TT_EQ_INT(ti_layout_npu(TI_LAYOUT_TENSOR), TI_LAYOUT_TENSOR);
}

/* transmit: a graph input that names a layout keeps it (unless asked), the
   default for uncoloured 4-D inputs is configurable, a value wanted in two
   layouts by two consumers takes the first found and forward follows */
TT_TEST(transmit_options_and_conflicts) {
  ti_context *ctx = lt_context();
  ti_program *p = ti_program_create(ctx, "m", TI_PROGRAM_SSA);
  ti_builder b;
  ti_error e;
  ti_layout_options o;
  ti_value *x, *y, *w, *ops[2], *c, *r;
  ti_error_clear(&e);
  ti_builder_init(&b, p, &e);
  x = ti_program_add_arg(p, t4(ctx, TI_LAYOUT_ANY, 1, 2, 2, 3));
  y = ti_program_add_arg(p, t4(ctx, TI_LAYOUT_NHWC, 1, 2, 2, 3));
  w = ti_program_add_arg(p, t4(ctx, TI_LAYOUT_ANY, 2, 2, 1, 1));
  ops[0] = x; ops[1] = y;
  r = ti_build1(&b, "lt.add", 2, ops, t4(ctx, TI_LAYOUT_ANY, 1, 2, 2, 3), NULL);
  ops[0] = r; ops[1] = w;
  c = ti_build1(&b, "lt.conv", 2, ops, t4(ctx, TI_LAYOUT_ANY, 1, 2, 2, 3), NULL);
  ops[0] = c;
  ti_build(&b, "builtin.return", 1, ops, 0, NULL, NULL);
  TT_EQ_INT(b.status, TI_STATUS_SUCCESS);
  lt_options(&o);
  TT_EQ_INT(ti_layout_transmit(p, &o, &e), TI_STATUS_SUCCESS);
  TT_EQ_INT(x->type->layout, TI_LAYOUT_NCHW);     /* from conv, through add */
  TT_EQ_INT(y->type->layout, TI_LAYOUT_NHWC);     /* its own */
  TT_EQ_INT(w->type->layout, TI_LAYOUT_OIHW);
  TT_EQ_INT(r->type->layout, TI_LAYOUT_NCHW);     /* add rejects NCHW+NHWC: falls back to what conv needs */
  TT_EQ_INT(c->type->layout, TI_LAYOUT_NCHW);
  o.recolour_inputs = 1;
  TT_EQ_INT(ti_layout_transmit(p, &o, &e), TI_STATUS_SUCCESS);
  TT_EQ_INT(y->type->layout, TI_LAYOUT_NCHW);
  ti_program_destroy(p);
  /* no known op at all: defaults */
  p = ti_program_create(ctx, "d", TI_PROGRAM_SSA);
  ti_builder_init(&b, p, &e);
  x = ti_program_add_arg(p, t4(ctx, TI_LAYOUT_ANY, 1, 2, 2, 3));
  y = ti_program_add_arg(p, t2(ctx, TI_LAYOUT_ANY, 4, 5));
  r = ti_build1(&b, "lt.relu", 1, &x, t4(ctx, TI_LAYOUT_ANY, 1, 2, 2, 3), NULL);
  lt_options(&o);
  o.default_4d = TI_LAYOUT_NHWC;
  TT_EQ_INT(ti_layout_transmit(p, &o, &e), TI_STATUS_SUCCESS);
  TT_EQ_INT(x->type->layout, TI_LAYOUT_NHWC);
  TT_EQ_INT(r->type->layout, TI_LAYOUT_NHWC);
  TT_EQ_INT(y->type->layout, TI_LAYOUT_TENSOR);
  ti_program_destroy(p);
  ti_context_destroy(ctx);
}

/* an existing pair transpose(transpose(x, p), p^-1) before a demanding op
   cancels: the op reads the NHWC value directly */
TT_TEST(preset_cancels_inverse_pairs) {
  ti_context *ctx = lt_context();
  const char *text =
    "program @pair(%0: vtensor<1x4x2x3xf32, NCHW>) {\n"
    "  %1 = lt.transpose(%0) {perm = [0, 2, 3, 1]} : (vtensor<1x4x2x3xf32, NCHW>) -> vtensor<1x2x3x4xf32, NHWC>\n"
    "  %2 = lt.transpose(%1) {perm = [0, 3, 1, 2]} : (vtensor<1x2x3x4xf32, NHWC>) -> vtensor<1x4x2x3xf32, NCHW>\n"
    "  %3 = lt.mirror(%2) : (vtensor<1x4x2x3xf32, NCHW>) -> vtensor<1x4x2x3xf32, NCHW>\n"
    "  %4 = lt.relu(%1) : (vtensor<1x2x3x4xf32, NHWC>) -> vtensor<1x2x3x4xf32, NHWC>\n"
    "  builtin.return(%3, %4) : (vtensor<1x4x2x3xf32, NCHW>, vtensor<1x2x3x4xf32, NHWC>) -> ()\n"
    "}\n";
  ti_program *p = parse_text(ctx, text), *q = parse_text(ctx, text);
  ti_layout_options o;
  ti_layout_stats st;
  ti_error e;
  char why[128];
  ti_error_clear(&e);
  lt_options(&o);
  TT_EQ_INT(ti_layout_preset_npu(p, &o, &st, &e), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_verify(p, &e), TI_STATUS_SUCCESS);
  /* mirror reads %1 (NHWC); one transpose back for the NCHW output */
  TT_EQ_INT(st.removed, 1);
  TT_EQ_INT(st.inserted, 1);
  TT_EQ_INT(count_ops(p, "lt.transpose"), 2);
  TT_CHECK(demands_met(p));
  TT_CHECK_MSG(same_outputs(q, p, 3, why, sizeof why), "%s", why);
  ti_program_destroy(p); ti_program_destroy(q);
  ti_context_destroy(ctx);
}

/* an existing transpose with a perm that is no layout change (H <-> W),
   its result still labelled NCHW: a changed input is folded into its perm
   in the right order (perms compose, they do not commute) */
TT_TEST(preset_folds_any_perm) {
  ti_context *ctx = lt_context();
  const char *text =
    "program @hw(%0: vtensor<1x2x2x3xf32, NCHW>, %1: vtensor<2x2x1x1xf32, OIHW>) {\n"
    "  %2 = lt.conv(%0, %1) : (vtensor<1x2x2x3xf32, NCHW>, vtensor<2x2x1x1xf32, OIHW>) -> vtensor<1x2x2x3xf32, NCHW>\n"
    "  %3 = lt.transpose(%2) {perm = [0, 1, 3, 2]} : (vtensor<1x2x2x3xf32, NCHW>) -> vtensor<1x2x3x2xf32, NCHW>\n"
    "  %4 = lt.relu(%3) : (vtensor<1x2x3x2xf32, NCHW>) -> vtensor<1x2x3x2xf32, NCHW>\n"
    "  builtin.return(%4) : (vtensor<1x2x3x2xf32, NCHW>) -> ()\n"
    "}\n";
  ti_program *p = parse_text(ctx, text), *q = parse_text(ctx, text);
  ti_layout_options o;
  ti_layout_stats st;
  ti_error e;
  char why[128];
  int64_t perm[4];
  const ti_op *op;
  ti_error_clear(&e);
  lt_options(&o);
  TT_EQ_INT(ti_layout_preset_npu(p, &o, &st, &e), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_verify(p, &e), TI_STATUS_SUCCESS);
  TT_EQ_INT(st.inserted, 2);   /* input and weights; the output needs none */
  TT_EQ_INT(st.folded, 1);
  for (op = p->first; op; op = op->next)
    if (ti_op_is(op, "lt.transpose") && op->operands[0].value->def && ti_op_is(op->operands[0].value->def, "lt.conv")) {
      TT_EQ_INT(ti_dict_ints(op->attrs, "perm", perm, 4), 4);
      TT_CHECK(perm[0] == 0 && perm[1] == 3 && perm[2] == 2 && perm[3] == 1);
    }
  TT_CHECK_MSG(same_outputs(q, p, 5, why, sizeof why), "%s", why);
  ti_program_destroy(p); ti_program_destroy(q);
  ti_context_destroy(ctx);
}

/* dry runs change nothing; a missing transpose op is an error that names it
   and leaves the program as it was; the pass-manager wrappers add up counts */
TT_TEST(preset_dry_run_errors_and_passes) {
  ti_context *ctx = lt_context();
  const char *text =
    "program @m(%0: vtensor<1x2x2x3xf32, NCHW>) {\n"
    "  %1 = lt.mirror(%0) : (vtensor<1x2x2x3xf32, NCHW>) -> vtensor<1x2x2x3xf32, NCHW>\n"
    "  builtin.return(%1) : (vtensor<1x2x2x3xf32, NCHW>) -> ()\n"
    "}\n";
  ti_program *p = parse_text(ctx, text);
  char *before = print_prog(p), *after;
  ti_layout_options o;
  ti_layout_stats st, acc;
  ti_error e;
  ti_pass_manager pm;
  ti_error_clear(&e);
  lt_options(&o);
  o.dry_run = 1;
  TT_EQ_INT(ti_layout_preset_npu(p, &o, &st, &e), TI_STATUS_SUCCESS);
  TT_EQ_INT(st.inserted, 2);
  TT_EQ_INT(st.naive, 2);
  after = print_prog(p);
  TT_EQ_STR(after, before);
  free(after);
  o.dry_run = 0;
  o.transpose_op = "nn.nope";
  TT_EQ_INT(ti_layout_preset_npu(p, &o, &st, &e), TI_STATUS_NOT_FOUND);
  TT_CHECK(strstr(e.message, "nn.nope") != NULL);
  after = print_prog(p);
  TT_EQ_STR(after, before);
  free(after);
  ti_error_clear(&e);
  lt_options(&o);
  memset(&acc, 0, sizeof acc);
  o.stats = &acc;
  ti_pass_manager_init(&pm);
  TT_EQ_INT(ti_layout_add_passes(&pm, &o), TI_STATUS_SUCCESS);
  TT_EQ_INT(pm.n, 2);
  TT_EQ_STR(pm.passes[0].name, "layout-transmit");
  TT_EQ_STR(pm.passes[1].name, "layout-preset-npu");
  TT_EQ_INT(ti_pass_manager_run(&pm, p, &e), TI_STATUS_SUCCESS);
  TT_EQ_INT(acc.inserted, 2);
  TT_EQ_INT(count_ops(p, "lt.transpose"), 2);
  /* running again finds nothing to do */
  TT_EQ_INT(ti_pass_manager_run(&pm, p, &e), TI_STATUS_SUCCESS);
  TT_EQ_INT(acc.inserted, 2);
  TT_EQ_INT(count_ops(p, "lt.transpose"), 2);
  free(before);
  ti_program_destroy(p);
  TT_EQ_INT(ti_layout_preset_npu(NULL, &o, &st, &e), TI_STATUS_BAD_PARAM);
  ti_context_destroy(ctx);
}

/* long chains: no recursion anywhere (the benchmark goes to 10^6) */
TT_TEST(long_chain_both_passes) {
  ti_context *ctx = lt_context();
  ti_program *p = ti_program_create(ctx, "chain", TI_PROGRAM_SSA);
  ti_builder b;
  ti_error e;
  ti_layout_options o;
  ti_layout_stats st;
  ti_value *x, *w, *ops[2];
  const ti_type *ta = t4(ctx, TI_LAYOUT_ANY, 1, 2, 1, 1), *tw = t4(ctx, TI_LAYOUT_ANY, 2, 2, 1, 1);
  int i, n = 100000;
  ti_error_clear(&e);
  ti_builder_init(&b, p, &e);
  x = ti_program_add_arg(p, ta);
  w = ti_program_add_arg(p, tw);
  for (i = 0; i < n; i++) {
    ops[0] = x; ops[1] = w;
    x = i % 4 == 0 ? ti_build1(&b, "lt.conv", 2, ops, ta, NULL) : ti_build1(&b, "lt.relu", 1, ops, ta, NULL);
  }
  ti_build(&b, "builtin.return", 1, &x, 0, NULL, NULL);
  TT_EQ_INT(b.status, TI_STATUS_SUCCESS);
  lt_options(&o);
  TT_EQ_INT(ti_layout_run(p, 1, 1, &o, &st, &e), TI_STATUS_SUCCESS);
  /* input, weights, and the output back: the whole chain runs in NHWC */
  TT_EQ_INT(st.inserted, 3);
  TT_EQ_INT(st.naive, 2 * (n / 4) + n / 4);
  TT_CHECK(demands_met(p));
  ti_program_destroy(p);
  ti_context_destroy(ctx);
}

/* bad or unusual input: cycles in graph programs, uses before definitions,
   ops without interfaces; errors name the problem, nothing crashes */
TT_TEST(bad_input_is_reported) {
  ti_context *ctx = lt_context();
  ti_layout_options o;
  ti_layout_stats st;
  ti_error e;
  ti_program *p;
  const char *cyc =
    "program @g graph(%0: vtensor<1x2x2x3xf32, NCHW>) {\n"
    "  %1 = lt.relu(%2) : (vtensor<1x2x2x3xf32, NCHW>) -> vtensor<1x2x2x3xf32, NCHW>\n"
    "  %2 = lt.mirror(%1) : (vtensor<1x2x2x3xf32, NCHW>) -> vtensor<1x2x2x3xf32, NCHW>\n"
    "}\n";
  const char *graph =
    "program @g graph(%0: vtensor<1x2x2x3xf32, NCHW>) {\n"
    "  %1 = lt.relu(%2) : (vtensor<1x2x2x3xf32, NCHW>) -> vtensor<1x2x2x3xf32, NCHW>\n"
    "  %2 = lt.mirror(%0) : (vtensor<1x2x2x3xf32, NCHW>) -> vtensor<1x2x2x3xf32, NCHW>\n"
    "  %3 = x.sink(%1) : (vtensor<1x2x2x3xf32, NCHW>) -> vtensor<1x2x2x3xf32, NCHW>\n"
    "}\n";
  lt_options(&o);
  ti_error_clear(&e);
  p = parse_text(ctx, cyc);
  TT_CHECK(p != NULL);
  if (p) {
    TT_EQ_INT(ti_layout_transmit(p, &o, &e), TI_STATUS_INVALID);
    TT_CHECK_MSG(strstr(e.message, "cycle") != NULL, "%s", e.message);
    ti_error_clear(&e);
    TT_EQ_INT(ti_layout_preset_npu(p, &o, &st, &e), TI_STATUS_INVALID);
    ti_program_destroy(p);
  }
  /* a graph program in no particular order, with an op nobody registered:
     the unknown op keeps its operands' layouts (memory order) */
  ti_context_allow_unregistered(ctx, 1);
  ti_error_clear(&e);
  p = parse_text(ctx, graph);
  TT_CHECK(p != NULL);
  if (p) {
    TT_EQ_INT(ti_layout_preset_npu(p, &o, &st, &e), TI_STATUS_SUCCESS);
    TT_EQ_INT(st.inserted, 2);
    TT_CHECK(demands_met(p));
    {
      const ti_op *op;
      for (op = p->first; op; op = op->next)
        if (ti_op_is(op, "x.sink")) TT_EQ_INT(op->operands[0].value->type->layout, TI_LAYOUT_NCHW);
    }
    TT_EQ_INT(ti_verify(p, &e), TI_STATUS_SUCCESS);
    ti_program_destroy(p);
  }
  /* an SSA program whose op uses a value defined later */
  {
    ti_builder b;
    ti_value *x, *y, *z;
    p = ti_program_create(ctx, "m", TI_PROGRAM_SSA);
    ti_builder_init(&b, p, &e);
    x = ti_program_add_arg(p, t4(ctx, TI_LAYOUT_NCHW, 1, 2, 2, 3));
    y = ti_build1(&b, "lt.relu", 1, &x, x->type, NULL);
    z = ti_build1(&b, "lt.relu", 1, &y, x->type, NULL);
    ti_op_set_operand(y->def, 0, z);
    ti_error_clear(&e);
    TT_EQ_INT(ti_layout_transmit(p, &o, &e), TI_STATUS_INVALID);
    TT_CHECK_MSG(strstr(e.message, "before its definition") != NULL, "%s", e.message);
    ti_error_clear(&e);
    TT_EQ_INT(ti_layout_preset_npu(p, &o, &st, &e), TI_STATUS_INVALID);
    ti_op_set_operand(y->def, 0, x);
    ti_program_destroy(p);
  }
  TT_EQ_INT(ti_layout_transmit(NULL, &o, &e), TI_STATUS_BAD_PARAM);
  ti_context_destroy(ctx);
}

/* --- property test over random DAGs -------------------------------------- */

typedef struct gen { ti_context *ctx; ti_program *p; ti_builder b; ti_error e; tt_rng *r;
                     ti_value *act[512]; int n_act; ti_value *ten[512]; int n_ten; ti_value *wt[512]; int n_wt; } gen;

static ti_value *pick(ti_value **v, int n, tt_rng *r) { return n ? v[tt_range(r, 0, n - 1)] : NULL; }
static int64_t lchan(const ti_value *v) { int64_t ld[4] = {0, 0, 0, 0}; lt_logical(v->type, ld); return ld[1]; }
static int64_t ldim(const ti_value *v, int i) { int64_t ld[4] = {0, 0, 0, 0}; lt_logical(v->type, ld); return ld[i]; }

static ti_value *gen_act_arg(gen *g) {
  ti_layout l = tt_range(g->r, 0, 3) == 0 ? TI_LAYOUT_NHWC : TI_LAYOUT_NCHW;
  ti_value *v = ti_program_add_arg(g->p, t4(g->ctx, l, 1, tt_range(g->r, 1, 4), 2, 3));
  if (g->n_act < 512) g->act[g->n_act++] = v;
  return v;
}

/* A coloured program of n ops mixing CNN-class ops (conv, mirror, concat:
   demanding; relu, add: transparent), tensor-class ops (reshape to 2-D,
   relu/add on 2-D, reshape back), existing transposes and several outputs. */
static ti_program *gen_dag(ti_context *ctx, tt_rng *r, int n) {
  gen g;
  int i, j;
  ti_value *ops[2], *x, *y, *outs[64];
  int n_out = 0;
  const ti_op *op;
  memset(&g, 0, sizeof g);
  g.ctx = ctx; g.r = r;
  g.p = ti_program_create(ctx, "g", TI_PROGRAM_SSA);
  ti_error_clear(&g.e);
  ti_builder_init(&g.b, g.p, &g.e);
  for (i = (int)tt_range(r, 1, 3); i > 0; i--) gen_act_arg(&g);
  for (i = 0; i < n; i++) {
    int k = (int)tt_range(r, 0, 99);
    ti_value *res = NULL;
    x = pick(g.act, g.n_act, r);
    if (k < 24) {                                   /* conv */
      int64_t c = lchan(x), oc = tt_range(r, 1, 4);
      ti_value *w = NULL;
      for (j = 0; j < g.n_wt && !w; j++) {
        int64_t ld[4];
        lt_logical(g.wt[j]->type, ld);
        if (ld[0] == oc && ld[1] == c && tt_range(r, 0, 1)) w = g.wt[j];
      }
      if (!w) {
        w = ti_program_add_arg(g.p, t4(ctx, tt_range(r, 0, 2) ? TI_LAYOUT_OIHW : TI_LAYOUT_HWOI, oc, c, 1, 1));
        if (g.n_wt < 512) g.wt[g.n_wt++] = w;
      }
      ops[0] = x; ops[1] = w;
      res = ti_build1(&g.b, "lt.conv", 2, ops, t4(ctx, x->type->layout, 1, oc, ldim(x, 2), ldim(x, 3)), NULL);
    } else if (k < 38) {                            /* relu */
      if (g.n_ten && tt_range(r, 0, 2) == 0) {
        y = pick(g.ten, g.n_ten, r);
        y = ti_build1(&g.b, "lt.relu", 1, &y, y->type, NULL);
        if (g.n_ten < 512) g.ten[g.n_ten++] = y;
      } else res = ti_build1(&g.b, "lt.relu", 1, &x, x->type, NULL);
    } else if (k < 52) {                            /* add of two equal types */
      ti_value **pool = g.act;
      int np = g.n_act;
      if (g.n_ten && tt_range(r, 0, 3) == 0) { pool = g.ten; np = g.n_ten; x = pick(pool, np, r); }
      y = x;
      for (j = 0; j < 8; j++) {
        ti_value *z = pick(pool, np, r);
        if (z->type == x->type) { y = z; break; }
      }
      ops[0] = x; ops[1] = y;
      y = ti_build1(&g.b, "lt.add", 2, ops, x->type, NULL);
      if (pool == g.act) res = y; else if (g.n_ten < 512) g.ten[g.n_ten++] = y;
    } else if (k < 58) {                            /* concat along C */
      y = pick(g.act, g.n_act, r);
      if (y->type->layout == x->type->layout && lchan(x) + lchan(y) <= 8 && ldim(x, 2) == ldim(y, 2)) {
        ops[0] = x; ops[1] = y;
        res = ti_build1(&g.b, "lt.concat", 2, ops, t4(ctx, x->type->layout, 1, lchan(x) + lchan(y), ldim(x, 2), ldim(x, 3)), NULL);
      }
    } else if (k < 66) {                            /* mirror */
      res = ti_build1(&g.b, "lt.mirror", 1, &x, x->type, NULL);
    } else if (k < 75) {                            /* flatten: CNN -> TENSOR */
      y = ti_build1(&g.b, "lt.reshape", 1, &x, t2(ctx, TI_LAYOUT_TENSOR, 1, lchan(x) * 6), NULL);
      if (g.n_ten < 512) g.ten[g.n_ten++] = y;
    } else if (k < 81) {                            /* TENSOR -> CNN */
      if (g.n_ten) {
        y = pick(g.ten, g.n_ten, r);
        res = ti_build1(&g.b, "lt.reshape", 1, &y, t4(ctx, TI_LAYOUT_NCHW, 1, y->type->dims[1] / 6, 2, 3), NULL);
      }
    } else if (k < 91) {                            /* an existing transpose */
      if (tt_range(r, 0, 3) == 0)                   /* H <-> W: no layout change, a new tensor */
        res = ti_build1(&g.b, "lt.transpose", 1, &x, t4(ctx, x->type->layout, 1, lchan(x), ldim(x, 3), ldim(x, 2)),
                        x->type->layout == TI_LAYOUT_NCHW ? perm_attrs(ctx, 0, 1, 3, 2) : perm_attrs(ctx, 0, 2, 1, 3));
      else if (x->type->layout == TI_LAYOUT_NCHW)
        res = ti_build1(&g.b, "lt.transpose", 1, &x, t4(ctx, TI_LAYOUT_NHWC, 1, lchan(x), ldim(x, 2), ldim(x, 3)), perm_attrs(ctx, 0, 2, 3, 1));
      else
        res = ti_build1(&g.b, "lt.transpose", 1, &x, t4(ctx, TI_LAYOUT_NCHW, 1, lchan(x), ldim(x, 2), ldim(x, 3)), perm_attrs(ctx, 0, 3, 1, 2));
    } else if (k < 94) {                            /* a transpose to no known layout: an output */
      int64_t d[4];
      d[0] = x->type->dims[0]; d[1] = x->type->dims[1]; d[2] = x->type->dims[3]; d[3] = x->type->dims[2];
      y = ti_build1(&g.b, "lt.transpose", 1, &x, ti_type_get(ctx, TI_TYPE_VTENSOR, TI_DTYPE_F32, 4, d, TI_LAYOUT_TENSOR),
                    perm_attrs(ctx, 0, 1, 3, 2));
      if (n_out < 32) outs[n_out++] = y;
    } else gen_act_arg(&g);
    if (res && g.n_act < 512) g.act[g.n_act++] = res;
  }
  /* outputs: every unused value (and a few used ones) */
  for (i = 0; i < g.n_act && n_out < 63; i++)
    if (ti_value_num_uses(g.act[i]) == 0 || tt_range(r, 0, 15) == 0) outs[n_out++] = g.act[i];
  for (i = 0; i < g.n_ten && n_out < 63; i++)
    if (ti_value_num_uses(g.ten[i]) == 0) outs[n_out++] = g.ten[i];
  for (op = g.p->first; op; op = op->next) (void)op;
  ti_build(&g.b, "builtin.return", n_out, outs, 0, NULL, NULL);
  if (g.b.status != TI_STATUS_SUCCESS) {
    fprintf(stderr, "  generator: %s\n", g.e.message);
    ti_program_destroy(g.p);
    return NULL;
  }
  return g.p;
}

typedef struct pin { const ti_op *ops[64]; int n; int recording; uint32_t mask; } pin;
static int pin_choose(void *user, const ti_op *op) {
  pin *q = (pin *)user;
  int i;
  if (q->recording) { if (q->n < 64) q->ops[q->n++] = op; return -1; }
  for (i = 0; i < q->n; i++) if (q->ops[i] == op) return (int)((q->mask >> i) & 1);
  return 0;
}

TT_TEST(preset_random_dags) {
  ti_context *ctx = lt_context();
  tt_rng r;
  int g, n_graphs = 1000, n_small = 0, n_above = 0, n_free_max = 0, strat[4] = {0, 0, 0, 0};
  int64_t sum_ins = 0, sum_naive = 0, sum_removed = 0, sum_above = 0;
  r.s = 0x5eed1a7;
  for (g = 0; g < n_graphs; g++) {
    int n = g % 3 == 0 ? (int)tt_range(&r, 1, 12) : (int)tt_range(&r, 1, 200);
    ti_program *p0 = gen_dag(ctx, &r, n), *p1;
    ti_layout_options o;
    ti_layout_stats st;
    ti_error e;
    char why[128];
    int64_t naive, t0;
    TT_CHECK(p0 != NULL);
    if (!p0) break;
    ti_error_clear(&e);
    TT_CHECK_MSG(ti_verify(p0, &e) == TI_STATUS_SUCCESS, "graph %d: generated program fails: %s", g, e.message);
    p1 = clone_prog(ctx, p0);
    TT_CHECK(p1 != NULL);
    if (!p1) { ti_program_destroy(p0); break; }
    naive = naive_count(p0);
    t0 = count_ops(p0, "lt.transpose");
    lt_options(&o);
    TT_CHECK_MSG(ti_layout_preset_npu(p1, &o, &st, &e) == TI_STATUS_SUCCESS, "graph %d: %s", g, e.message);
    TT_CHECK_MSG(ti_verify(p1, &e) == TI_STATUS_SUCCESS, "graph %d: rewritten program fails: %s", g, e.message);
    TT_CHECK_MSG(demands_met(p1), "graph %d: a demanding op sees a non-NPU layout", g);
    TT_EQ_INT(st.naive, naive);
    TT_CHECK_MSG(st.inserted <= naive, "graph %d: inserted %lld > naive %lld", g, (long long)st.inserted, (long long)naive);
    TT_EQ_INT(count_ops(p1, "lt.transpose") - t0, st.inserted - st.removed);
    TT_CHECK_MSG(same_outputs(p0, p1, (uint64_t)g * 7919u + 1, why, sizeof why), "graph %d (%d ops): %s", g, n, why);
    sum_ins += st.inserted; sum_removed += st.removed; sum_naive += naive;
    strat[st.strategy & 3]++;
    if (n <= 12) {
      /* exhaustive: every layout choice of every transparent op */
      pin q;
      ti_layout_stats s2;
      int64_t best = -1, greedy = st.inserted - st.removed;
      uint32_t m;
      memset(&q, 0, sizeof q);
      o.dry_run = 1; o.choose = pin_choose; o.choose_user = &q;
      q.recording = 1;
      TT_EQ_INT(ti_layout_preset_npu(p0, &o, &s2, &e), TI_STATUS_SUCCESS);
      q.recording = 0;
      if (q.n > n_free_max) n_free_max = q.n;
      for (m = 0; m < (1u << q.n); m++) {
        q.mask = m;
        if (ti_layout_preset_npu(p0, &o, &s2, &e) != TI_STATUS_SUCCESS) continue;
        if (best < 0 || s2.inserted - s2.removed < best) best = s2.inserted - s2.removed;
      }
      n_small++;
      TT_CHECK_MSG(best <= greedy, "graph %d: exhaustive %lld > greedy %lld", g, (long long)best, (long long)greedy);
      if (greedy > best) { n_above++; sum_above += greedy - best; }
    }
    ti_program_destroy(p0); ti_program_destroy(p1);
  }
  printf("  random DAGs: %d graphs, transposes inserted %lld, removed %lld, naive baseline %lld (%.1f%%)\n",
         n_graphs, (long long)sum_ins, (long long)sum_removed, (long long)sum_naive,
         sum_naive ? 100.0 * (double)(sum_ins - sum_removed) / (double)sum_naive : 0.0);
  printf("  strategies kept: greedy %d, greedy+early restore %d, restore at once %d\n", strat[0], strat[1], strat[2]);
  printf("  exhaustive search on %d graphs of <= 12 ops (<= %d free ops): greedy above the minimum in %d (%.1f%%), by %lld transposes in all\n",
         n_small, n_free_max, n_above, n_small ? 100.0 * n_above / n_small : 0.0, (long long)sum_above);
  ti_context_destroy(ctx);
}

int main(void) {
  TT_RUN(seed001_simplified);
  TT_RUN(seed001_reshape);
  TT_RUN(seed001_consecutive);
  TT_RUN(seed004_conv_reshape_add);
  TT_RUN(seed004_input_b_output);
  TT_RUN(seed004_input_b_output_demand);
  TT_RUN(seed004_existing_transpose);
  TT_RUN(seed004_multi_input);
  TT_RUN(seed004_cnn_chain);
  TT_RUN(seed004_transmit_then_npu);
  TT_RUN(layout_perm_and_npu);
  TT_RUN(transmit_options_and_conflicts);
  TT_RUN(preset_cancels_inverse_pairs);
  TT_RUN(preset_folds_any_perm);
  TT_RUN(preset_dry_run_errors_and_passes);
  TT_RUN(long_chain_both_passes);
  TT_RUN(bad_input_is_reported);
  TT_RUN(preset_random_dags);
  return tt_finish();
}
