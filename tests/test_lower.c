/* Lowering nn -> Task IR (taskir_lower.h): THE PROPERTY - for every program
   of the integer subset, the executor on the lowered graph gives exactly
   the interpreter's outputs on the same inputs. Hand-built cases (one per
   op and fusion, with the block structure they must produce), refusals with
   their messages, and seeded random programs (chains and DAGs of conv,
   gemm, requantisation, pools, add, mul, relu, views, concat, slice). */
#define TASKIR_IMPLEMENTATION
#include "taskir_lower.h"
#include "taskir_exec.h"
#include "tt.h"

/* --- building programs ------------------------------------------------------ */

typedef struct tp {
  ti_context *c;
  ti_program *p;
  ti_builder b;
  ti_error e;
  int n_vars;
  tt_rng *r;
  const int64_t *fixed;   /* input values (cycled) instead of random ones, when not NULL */
  int64_t n_fixed;
} tp;

static void tp_init(tp *t, ti_context *c, tt_rng *r) {
  memset(t, 0, sizeof *t);
  t->c = c;
  t->r = r;
  t->p = ti_program_create(c, "t", TI_PROGRAM_SSA);
  ti_builder_init(&t->b, t->p, &t->e);
}
static const ti_type *tp_type(tp *t, ti_dtype d, int rank, const int64_t *dims, ti_layout l) {
  return ti_type_get(t->c, TI_TYPE_VTENSOR, d, rank, dims, l);
}
static ti_value *tp_arg(tp *t, ti_dtype d, int rank, const int64_t *dims) {
  return ti_program_add_arg(t->p, tp_type(t, d, rank, dims, TI_LAYOUT_ANY));
}
/* A weight of the weights table with values in [lo, hi] (or given). */
static ti_value *tp_weight(tp *t, ti_dtype d, int rank, const int64_t *dims, int lo, int hi, const int32_t *given) {
  char name[32];
  int64_t n = 1, i;
  const ti_type *ty;
  void *data;
  ti_value *v;
  for (i = 0; i < rank; i++) n *= dims[i];
  ty = tp_type(t, d, rank, dims, TI_LAYOUT_ANY);
  data = calloc((size_t)(n ? n : 1), 4);
  for (i = 0; i < n; i++) {
    int32_t x = given ? given[i] : (int32_t)tt_range(t->r, lo, hi);
    if (d == TI_DTYPE_I8) ((int8_t *)data)[i] = (int8_t)x;
    else ((int32_t *)data)[i] = x;
  }
  snprintf(name, sizeof name, "w%d", t->n_vars++);
  TT_EQ_INT(ti_program_add_var(t->p, name, ty, data, 0, &t->e), 0);
  free(data);
  v = ti_build1(&t->b, "builtin.get_parameter", 0, NULL, ty,
                ti_attr_dict(t->c, (ti_named_attr[]){ti_named(t->c, "name", ti_attr_string(t->c, name, -1))}, 1));
  TT_CHECK(v != NULL);
  return v;
}
static ti_value *tp_op(tp *t, const char *name, int n, ti_value *const *ops, const ti_attr *attrs) {
  ti_value *v = ti_build1(&t->b, name, n, ops, NULL, attrs);
  TT_CHECK_MSG(v != NULL, "%s: %s", name, t->e.message);
  return v;
}
static ti_value *tp_op1(tp *t, const char *name, ti_value *x, const ti_attr *attrs) { return tp_op(t, name, 1, &x, attrs); }
static ti_value *tp_op2(tp *t, const char *name, ti_value *x, ti_value *y, const ti_attr *attrs) {
  ti_value *o[2];
  o[0] = x; o[1] = y;
  return tp_op(t, name, 2, o, attrs);
}
static void tp_ret(tp *t, int n, ti_value *const *vals) {
  TT_CHECK(ti_build(&t->b, "builtin.return", n, vals, 0, NULL, NULL) != NULL);
}
/* Attribute dict from up to 8 (name, attr) pairs; NULL names end it. */
static const ti_attr *A(ti_context *c, const char *n1, const ti_attr *a1, const char *n2, const ti_attr *a2,
                        const char *n3, const ti_attr *a3, const char *n4, const ti_attr *a4) {
  ti_named_attr it[4];
  int n = 0;
  if (n1) it[n++] = ti_named(c, n1, a1);
  if (n2) it[n++] = ti_named(c, n2, a2);
  if (n3) it[n++] = ti_named(c, n3, a3);
  if (n4) it[n++] = ti_named(c, n4, a4);
  return ti_attr_dict(c, it, n);
}
static const ti_attr *I(ti_context *c, int64_t v) { return ti_attr_int(c, v); }
static const ti_attr *I2(ti_context *c, int64_t a, int64_t b) { int64_t v[2]; v[0] = a; v[1] = b; return ti_attr_int_array(c, v, 2); }
static const ti_attr *I4(ti_context *c, int64_t a, int64_t b, int64_t d, int64_t e) {
  int64_t v[4]; v[0] = a; v[1] = b; v[2] = d; v[3] = e; return ti_attr_int_array(c, v, 4);
}

/* --- the property ------------------------------------------------------------ */

static int count_type(const ti_task_graph *g, ti_block_type t) {
  int32_t i, n = 0;
  for (i = 0; i < g->n_blocks; i++) n += g->blocks[i].type == t;
  return n;
}
static int count_rearr(const ti_task_graph *g, ti_rearrange_kind k) {
  int32_t i, j, n = 0;
  for (i = 0; i < g->n_edges; i++)
    for (j = 0; j < g->edges[i].n_rearrange; j++) n += g->edges[i].rearrange[j].type == k;
  return n;
}

/* Interprets p on random inputs (steps times, feeding nothing back), lowers
   it, runs the graph, compares every output element. 1 when equal. g (if
   not NULL) keeps the lowered graph for structure checks. */
static int property(tp *t, int steps, ti_task_graph *keep, const char *what, uint64_t seed) {
  ti_program *p = t->p;
  ti_tensor_value *in[8] = {0}, *out[8][8];
  int32_t n_out[8], k, s, i;
  ti_task_graph g;
  ti_exec *x = NULL;
  ti_error e;
  int ok = 1;
  int64_t j;
  memset(out, 0, sizeof out);
  ti_error_clear(&e);
  if (t->b.status != TI_STATUS_SUCCESS || ti_verify(p, &e) != TI_STATUS_SUCCESS) {
    TT_CHECK_MSG(0, "%s (seed %llu): program invalid: %s %s", what, (unsigned long long)seed, t->e.message, e.message);
    return 0;
  }
  (void)steps;
  s = 0;
  for (i = 0; i < p->n_args && i < 8; i++) {
    const ti_type *ty = p->args[i]->type;
    in[i] = ti_tensor_create(NULL, ty->dtype, ty->rank, ty->dims, ty->layout, NULL, &e);
    for (j = 0; j < in[i]->numel; j++)
      ti_tensor_set(in[i], j, t->fixed ? (double)t->fixed[j % t->n_fixed]
                              : (double)tt_range(t->r, ty->dtype == TI_DTYPE_I8 ? -128 : -1000, ty->dtype == TI_DTYPE_I8 ? 127 : 1000));
  }
  n_out[0] = 8;
  if (ti_interpret(p, (const ti_tensor_value *const *)in, p->n_args, out[0], &n_out[0], &e) != TI_STATUS_SUCCESS) {
    TT_CHECK_MSG(0, "%s (seed %llu): interpreter: %s", what, (unsigned long long)seed, e.message);
    ok = 0;
    goto done;
  }
  if (ti_lower_to_task(p, NULL, &g, &e) != TI_STATUS_SUCCESS) {
    TT_CHECK_MSG(0, "%s (seed %llu): lower: %s", what, (unsigned long long)seed, e.message);
    ti_task_graph_free(&g);
    ok = 0;
    goto done;
  }
  if (ti_task_check(&g, NULL, &e) != TI_STATUS_SUCCESS) {
    TT_CHECK_MSG(0, "%s (seed %llu): check: %s", what, (unsigned long long)seed, e.message);
    ok = 0;
  } else if (ti_exec_plan(&g, NULL, &x, &e) != TI_STATUS_SUCCESS) {
    TT_CHECK_MSG(0, "%s (seed %llu): plan: %s", what, (unsigned long long)seed, e.message);
    ok = 0;
  } else {
    for (i = 0; i < p->n_args && ok; i++) {
      const ti_tensor_value *v = in[i];
      int32_t q, used = 0;
      for (q = 0; q < ti_exec_num_inputs(x); q++) used |= ti_exec_input_socket(x, q) == i;
      if (!used) continue;   /* an argument nothing reads has no INPUT block */
      int32_t *vals = (int32_t *)malloc((size_t)(v->numel + 1) * 4);
      for (j = 0; j < v->numel; j++) vals[j] = (int32_t)ti_tensor_get(v, j);
      if (ti_exec_set_input(x, i, vals, v->numel, &e) != TI_STATUS_SUCCESS) {
        TT_CHECK_MSG(0, "%s: set_input %d: %s", what, (int)i, e.message);
        ok = 0;
      }
      free(vals);
    }
    if (ok && ti_exec_run(x, &e) != TI_STATUS_SUCCESS) {
      TT_CHECK_MSG(0, "%s (seed %llu): run: %s", what, (unsigned long long)seed, e.message);
      ok = 0;
    }
    for (k = 0; ok && k < n_out[0]; k++) {
      ti_exec_tensor o;
      if (ti_exec_output(x, k, &o, &e) != TI_STATUS_SUCCESS || o.count != out[0][k]->numel) {
        TT_CHECK_MSG(0, "%s (seed %llu): output %d: %s (count %lld vs %lld)", what, (unsigned long long)seed, (int)k,
                      e.message, (long long)o.count, (long long)out[0][k]->numel);
        ok = 0;
        break;
      }
      for (j = 0; j < o.count; j++)
        if (ti_exec_tensor_i64(&o, j) != (int64_t)ti_tensor_get(out[0][k], j)) {
          TT_CHECK_MSG(0, "%s (seed %llu): output %d element %lld: executor %lld, interpreter %lld", what,
                        (unsigned long long)seed, (int)k, (long long)j, (long long)ti_exec_tensor_i64(&o, j),
                        (long long)ti_tensor_get(out[0][k], j));
          ok = 0;
          break;
        }
    }
  }
  ti_exec_free(x);
  if (keep) *keep = g;
  else ti_task_graph_free(&g);
done:
  for (i = 0; i < 8; i++) ti_tensor_free(in[i]);
  for (s = 0; s < 8; s++)
    for (k = 0; k < 8; k++) ti_tensor_free(out[s][k]);
  return ok;
}

/* Lowering must refuse with a message containing want. */
static void refuses(tp *t, const char *want) {
  ti_task_graph g;
  ti_error e;
  ti_status st = ti_lower_to_task(t->p, NULL, &g, &e);
  TT_CHECK_MSG(st == TI_STATUS_NOT_SUPPORTED, "expected a refusal containing '%s', got status %d '%s'", want, (int)st, e.message);
  TT_CHECK_MSG(strstr(e.message, want) != NULL, "message '%s' lacks '%s'", e.message, want);
  TT_EQ_INT(g.n_blocks, 0);
  ti_task_graph_free(&g);
}

static ti_context *ctx_new(void) {
  ti_context *c = ti_context_create(NULL);
  ti_error e;
  TT_EQ_INT(ti_nn_register(c, &e), TI_STATUS_SUCCESS);
  return c;
}
#define CASE_BEGIN(seed) ti_context *c = ctx_new(); tt_rng r = {seed}; tp t; tp_init(&t, c, &r)
#define CASE_END() ti_program_destroy(t.p); ti_context_destroy(c)

/* conv -> requant: the i8 result of quant_conv2d with shift */
static ti_value *conv(tp *t, ti_value *x, int64_t cin, int64_t cout, int64_t k, int64_t stride, int64_t pad, int64_t dil,
                      int64_t grp, int shift, int clip_min, int bias) {
  int64_t wd[4];
  ti_value *ops[3];
  ti_context *c = t->c;
  wd[0] = cout; wd[1] = cin / grp; wd[2] = k; wd[3] = k;
  ops[0] = x;
  ops[1] = tp_weight(t, TI_DTYPE_I8, 4, wd, -3, 3, NULL);
  if (bias) ops[2] = tp_weight(t, TI_DTYPE_I32, 1, &cout, -60, 60, NULL);
  {
    ti_named_attr it[6];
    int n = 0;
    it[n++] = ti_named(c, "strides", I2(c, stride, stride));
    it[n++] = ti_named(c, "pads", I4(c, pad, pad, pad, pad));
    it[n++] = ti_named(c, "dilations", I2(c, dil, dil));
    it[n++] = ti_named(c, "group", I(c, grp));
    if (shift >= 0) { it[n++] = ti_named(c, "shift", I(c, shift)); it[n++] = ti_named(c, "clip_min", I(c, clip_min)); }
    return tp_op(t, "nn.quant_conv2d", bias ? 3 : 2, ops, ti_attr_dict(c, it, n));
  }
}
static ti_value *gemm(tp *t, ti_value *a, int64_t k, int64_t n, int trans_b, int shift, int clip_min, int bias) {
  int64_t wd[2];
  ti_value *ops[3];
  ti_context *c = t->c;
  wd[0] = trans_b ? n : k; wd[1] = trans_b ? k : n;
  ops[0] = a;
  ops[1] = tp_weight(t, TI_DTYPE_I8, 2, wd, -3, 3, NULL);
  if (bias) ops[2] = tp_weight(t, TI_DTYPE_I32, 1, &n, -60, 60, NULL);
  {
    ti_named_attr it[3];
    int m = 0;
    it[m++] = ti_named(c, "trans_b", I(c, trans_b));
    if (shift >= 0) { it[m++] = ti_named(c, "shift", I(c, shift)); it[m++] = ti_named(c, "clip_min", I(c, clip_min)); }
    return tp_op(t, "nn.quant_gemm", bias ? 3 : 2, ops, ti_attr_dict(c, it, m));
  }
}
static ti_value *pool(tp *t, const char *name, ti_value *x, int64_t k, int64_t stride, int64_t pad) {
  ti_context *c = t->c;
  return tp_op1(t, name, x, A(c, "kernel_shape", I2(c, k, k), "strides", I2(c, stride, stride), "pads", I4(c, pad, pad, pad, pad),
                              NULL, NULL));
}

/* --- hand-built cases ------------------------------------------------------- */

static const int64_t d_x[4] = {1, 3, 9, 7};

TT_TEST(test_conv_requant) {
  CASE_BEGIN(1);
  ti_task_graph g;
  ti_value *x = tp_arg(&t, TI_DTYPE_I8, 4, d_x);
  ti_value *y = conv(&t, x, 3, 4, 3, 1, 1, 1, 1, 5, -128, 1);
  tp_ret(&t, 1, &y);
  if (property(&t, 1, &g, "conv+requant", 1)) {
    TT_EQ_INT(count_type(&g, TI_BLOCK_CC), 1);
    TT_EQ_INT(count_type(&g, TI_BLOCK_SIC), 1);
    TT_EQ_INT(count_type(&g, TI_BLOCK_SW), 1);
    TT_EQ_INT(count_type(&g, TI_BLOCK_SB), 1);
    TT_EQ_INT(count_type(&g, TI_BLOCK_CCMPB), 1);
    TT_EQ_INT(count_type(&g, TI_BLOCK_INPUT), 1);
    TT_EQ_INT(count_type(&g, TI_BLOCK_OUTPUT), 1);
    TT_CHECK(g.n_groups >= 1);
    ti_task_graph_free(&g);
  }
  CASE_END();
}

TT_TEST(test_conv_variants) {
  /* stride, dilation, groups, no bias, relu clip, no shift (i32 result) */
  int v;
  for (v = 0; v < 6; v++) {
    CASE_BEGIN(10 + v);
    ti_value *x = tp_arg(&t, TI_DTYPE_I8, 4, d_x), *y;
    switch (v) {
    case 0: y = conv(&t, x, 3, 5, 3, 2, 1, 1, 1, 4, 0, 1); break;
    case 1: y = conv(&t, x, 3, 2, 2, 1, 2, 2, 1, 3, -5, 1); break;
    case 2: y = conv(&t, x, 3, 6, 1, 1, 0, 1, 3, 2, -128, 0); break;
    case 3: y = conv(&t, x, 3, 4, 5, 1, 2, 1, 1, -1, 0, 1); break;   /* i32 accumulator out */
    case 4: y = conv(&t, x, 3, 4, 3, 3, 0, 1, 1, 6, 7, 1); break;
    default: y = conv(&t, conv(&t, x, 3, 4, 3, 1, 1, 1, 1, 5, 0, 1), 4, 2, 3, 1, 0, 1, 2, 4, -128, 1); break;
    }
    tp_ret(&t, 1, &y);
    property(&t, 1, NULL, "conv variant", (uint64_t)v);
    CASE_END();
  }
}

TT_TEST(test_conv_requant_maxpool_fused) {
  CASE_BEGIN(2);
  ti_task_graph g;
  ti_value *x = tp_arg(&t, TI_DTYPE_I8, 4, d_x);
  ti_value *y = pool(&t, "nn.max_pool", conv(&t, x, 3, 4, 3, 1, 1, 1, 1, 5, -128, 1), 2, 2, 0);
  tp_ret(&t, 1, &y);
  if (property(&t, 1, &g, "conv+requant+maxpool", 2)) {
    int32_t i;
    TT_EQ_INT(count_type(&g, TI_BLOCK_CCMPB), 1);   /* the pool is the CCMPB window */
    for (i = 0; i < g.n_blocks; i++)
      if (g.blocks[i].type == TI_BLOCK_CCMPB) {
        TT_EQ_INT(ti_task_attr_int(&g.blocks[i], TI_TASK_ATTR_KERNEL_X, 0), 2);
        TT_EQ_INT(ti_task_attr_int(&g.blocks[i], TI_TASK_ATTR_BIT_SHIFT_NUM, 0), 5);
        TT_EQ_INT(ti_task_attr_int(&g.blocks[i], TI_TASK_ATTR_CMP, 0), -128);
      }
    ti_task_graph_free(&g);
  }
  CASE_END();
}

TT_TEST(test_conv_relu_padded_pool_fused) {
  CASE_BEGIN(3);
  ti_task_graph g;
  ti_value *x = tp_arg(&t, TI_DTYPE_I8, 4, d_x);
  ti_value *y = pool(&t, "nn.max_pool", conv(&t, x, 3, 4, 3, 1, 1, 1, 1, 4, 0, 1), 3, 2, 1);
  tp_ret(&t, 1, &y);
  if (property(&t, 1, &g, "conv+relu+padded maxpool", 3)) {
    TT_EQ_INT(count_type(&g, TI_BLOCK_CCMPB), 1);
    ti_task_graph_free(&g);
  }
  CASE_END();
}

/* requantise -> relu (-> max pool, either order) is one CCMPB: CMP =
   max(clip_min, 0), the pool's window (1x1 without one). A relu whose
   operand has another user (the requantised value is needed too) is its
   own CCMPB, as is a pool whose operand or result has another user. */
static int32_t ccmpb_attr(const ti_task_graph *g, ti_attr_type a, int32_t dflt) {
  int32_t i;
  for (i = 0; i < g->n_blocks; i++)
    if (g->blocks[i].type == TI_BLOCK_CCMPB) return ti_task_attr_int(&g->blocks[i], a, dflt);
  return -999;
}
TT_TEST(test_requant_relu_fused) {
  int v;
  for (v = 0; v < 15; v++) {
    CASE_BEGIN(90 + v);
    int64_t db[4] = {2, 3, 9, 7}, dg[2] = {1, 13}, dr[2] = {4, 13};
    ti_value *x = tp_arg(&t, TI_DTYPE_I8, 4, v == 10 ? db : d_x), *q, *y, *two[2];
    ti_value *a = v == 9 || v == 11 ? tp_arg(&t, TI_DTYPE_I8, 2, v == 9 ? dg : dr) : NULL;
    ti_task_graph g;
    /* the CCMPB count, the SI count (each output has one), the first CCMPB's CMP and KERNEL_X, results */
    int want_cb = 1, want_si = 2, want_cmp = 0, want_kx = 1, n_ret = 1;
    switch (v) {
    case 0: y = tp_op1(&t, "nn.relu", conv(&t, x, 3, 4, 3, 1, 1, 1, 1, 5, -128, 1), NULL); break;
    case 1: y = pool(&t, "nn.max_pool", tp_op1(&t, "nn.relu", conv(&t, x, 3, 4, 3, 1, 1, 1, 1, 5, -128, 1), NULL), 2, 2, 0);
            want_kx = 2; break;
    case 2: y = tp_op1(&t, "nn.relu", pool(&t, "nn.max_pool", conv(&t, x, 3, 4, 3, 1, 1, 1, 1, 5, -128, 1), 2, 2, 0), NULL);
            want_kx = 2; break;
    case 3: /* padded pool after the relu: the final CMP 0 makes the zero padding harmless */
            y = pool(&t, "nn.max_pool", tp_op1(&t, "nn.relu", conv(&t, x, 3, 4, 3, 1, 0, 1, 1, 4, -128, 1), NULL), 3, 2, 1);
            want_kx = 3; break;
    case 4: /* padded pool before the relu, clip_min < 0: fuses only thanks to the relu */
            y = tp_op1(&t, "nn.relu", pool(&t, "nn.max_pool", conv(&t, x, 3, 4, 3, 1, 0, 1, 1, 4, -20, 1), 3, 2, 1), NULL);
            want_kx = 3; break;
    case 5: y = tp_op1(&t, "nn.relu", conv(&t, x, 3, 4, 3, 1, 1, 1, 1, 5, 7, 1), NULL); want_cmp = 7; break;   /* clip_min > 0 */
    case 6: y = tp_op1(&t, "nn.relu", conv(&t, x, 3, 4, 3, 1, 1, 1, 1, 5, -20, 1), NULL); break;              /* clip_min < 0 */
    case 7: /* the requantised value has a second user: the relu is its own CCMPB */
            q = conv(&t, x, 3, 4, 3, 1, 1, 1, 1, 5, -20, 1);
            y = tp_op2(&t, "nn.add", tp_op1(&t, "nn.relu", q, NULL), q, NULL);
            want_cb = 3; want_si = 6; want_cmp = -20; break;   /* requant, relu, the add's saturation */
    case 8: /* the relu has a second user: requant + relu fuse, the pool is its own CCMPB */
            q = tp_op1(&t, "nn.relu", conv(&t, x, 3, 4, 3, 1, 1, 1, 1, 5, -128, 1), NULL);
            two[0] = pool(&t, "nn.max_pool", q, 2, 2, 0); two[1] = q;
            want_cb = 2; want_si = 4; n_ret = 2; break;
    case 9: y = tp_op1(&t, "nn.relu", gemm(&t, a, 13, 7, 1, 4, -128, 1), NULL); break;
    case 10: y = tp_op1(&t, "nn.relu", conv(&t, x, 3, 4, 3, 1, 1, 1, 1, 5, -9, 1), NULL); break;   /* batch 2 */
    case 11: y = tp_op1(&t, "nn.relu", gemm(&t, a, 13, 6, 0, 3, -128, 1), NULL); break;            /* M = 4 rows */
    case 12: /* the pool's result has a second user: requant + pool fuse, the relu is its own CCMPB */
            q = pool(&t, "nn.max_pool", conv(&t, x, 3, 4, 3, 1, 1, 1, 1, 5, -128, 1), 2, 2, 0);
            y = tp_op2(&t, "nn.add", tp_op1(&t, "nn.relu", q, NULL), q, NULL);
            want_cb = 3; want_si = 6; want_cmp = -128; want_kx = 2; break;   /* requant+pool, relu, the add's saturation */
    case 14: /* a view between: the relu commutes with the flatten */
            y = tp_op1(&t, "nn.relu", tp_op1(&t, "nn.flatten", conv(&t, x, 3, 4, 3, 1, 1, 1, 1, 5, -30, 1), NULL), NULL); break;
    default: /* (13) a relu of a relu: the first fuses, the second is its own CCMPB */
            y = tp_op1(&t, "nn.relu", tp_op1(&t, "nn.relu", conv(&t, x, 3, 4, 3, 1, 1, 1, 1, 5, -128, 1), NULL), NULL);
            want_cb = 2; want_si = 3; break;
    }
    if (n_ret == 2) tp_ret(&t, 2, two);
    else tp_ret(&t, 1, &y);
    if (property(&t, 1, &g, "requant+relu fusion", (uint64_t)v)) {
      int cb = count_type(&g, TI_BLOCK_CCMPB), si = count_type(&g, TI_BLOCK_SI);
      int32_t cmp = ccmpb_attr(&g, TI_TASK_ATTR_CMP, -999), kx = ccmpb_attr(&g, TI_TASK_ATTR_KERNEL_X, 1);
      TT_CHECK_MSG(cb == want_cb && si == want_si && cmp == want_cmp && kx == want_kx,
                   "case %d: %d CCMPB, %d SI, CMP %d, KERNEL_X %d; want %d, %d, %d, %d", v, cb, si, (int)cmp, (int)kx,
                   want_cb, want_si, want_cmp, want_kx);
      TT_EQ_INT(count_type(&g, TI_BLOCK_CC) + count_type(&g, TI_BLOCK_CVM), 1);
      ti_task_graph_free(&g);
    }
    CASE_END();
  }
}

TT_TEST(test_gemm) {
  int v;
  for (v = 0; v < 4; v++) {
    CASE_BEGIN(20 + v);
    int64_t d[2] = {1, 13};
    ti_value *a = tp_arg(&t, TI_DTYPE_I8, 2, d), *y;
    ti_task_graph g;
    y = gemm(&t, a, 13, 7, v & 1, v == 3 ? -1 : 4, v == 2 ? 0 : -128, v != 1);
    tp_ret(&t, 1, &y);
    if (property(&t, 1, &g, "gemm", (uint64_t)v)) {
      TT_EQ_INT(count_type(&g, TI_BLOCK_CVM), 1);
      TT_EQ_INT(count_type(&g, TI_BLOCK_SIFC), 1);
      TT_EQ_INT(count_type(&g, TI_BLOCK_SWFC), 1);
      TT_EQ_INT(count_type(&g, TI_BLOCK_CCMPB), v == 3 ? 0 : 1);
      ti_task_graph_free(&g);
    }
    CASE_END();
  }
}

TT_TEST(test_pools) {
  int v;
  for (v = 0; v < 6; v++) {
    CASE_BEGIN(30 + v);
    int64_t d[4] = {1, 3, 8, 8};
    ti_value *x = tp_arg(&t, TI_DTYPE_I8, 4, d), *y, *relu;
    ti_task_graph g;
    relu = tp_op1(&t, "nn.relu", x, NULL);
    switch (v) {
    case 0: y = pool(&t, "nn.max_pool", x, 3, 2, 0); break;             /* signed, unpadded */
    case 1: y = pool(&t, "nn.max_pool", relu, 3, 1, 1); break;          /* padded on non-negative */
    case 2: y = pool(&t, "nn.avg_pool", relu, 2, 2, 0); break;
    case 3: y = tp_op1(&t, "nn.global_avg_pool", relu, NULL); break;
    case 4: y = tp_op1(&t, "nn.avg_pool", relu, A(c, "kernel_shape", I2(c, 2, 2), "pads", I4(c, 1, 1, 1, 1),
                                                   "count_include_pad", I(c, 1), NULL, NULL)); break;
    default: y = tp_op1(&t, "nn.avg_pool", relu, A(c, "kernel_shape", I2(c, 1, 4), "strides", I2(c, 1, 2), NULL, NULL, NULL, NULL)); break;
    }
    tp_ret(&t, 1, &y);
    if (property(&t, 1, &g, "pool", (uint64_t)v)) {
      TT_EQ_INT(count_type(&g, TI_BLOCK_CAVG), v >= 2);
      ti_task_graph_free(&g);
    }
    CASE_END();
  }
}

TT_TEST(test_relu_clip_add_mul) {
  int v;
  for (v = 0; v < 10; v++) {
    CASE_BEGIN(40 + v);
    int64_t d[4] = {1, 4, 5, 3}, d2[2] = {1, 6}, n6 = 6;
    ti_value *x = tp_arg(&t, TI_DTYPE_I8, 4, d), *x2 = tp_arg(&t, TI_DTYPE_I8, 4, d), *y;
    ti_value *a = tp_arg(&t, TI_DTYPE_I8, 2, d2);
    ti_task_graph g;
    ti_block_type want = TI_BLOCK_CCMPB;
    switch (v) {
    case 0: y = tp_op1(&t, "nn.relu", x, NULL); break;
    case 1: y = tp_op1(&t, "nn.clip", x, A(c, "min", I(c, -7), "max", I(c, 127), NULL, NULL, NULL, NULL)); break;
    case 2: y = tp_op2(&t, "nn.add", x, x2, NULL); want = TI_BLOCK_CADD; break;          /* i8 saturates */
    case 3: y = tp_op2(&t, "nn.mul", x, x2, NULL); want = TI_BLOCK_CVVH; break;
    case 4: y = tp_op2(&t, "nn.add", a, tp_weight(&t, TI_DTYPE_I8, 1, &n6, -100, 100, NULL), NULL); want = TI_BLOCK_CADD; break;
    case 5: y = tp_op2(&t, "nn.mul", tp_weight(&t, TI_DTYPE_I8, 1, &n6, -3, 3, NULL), a, NULL); want = TI_BLOCK_CAX; break;
    case 6: { int64_t one = 1; y = tp_op2(&t, "nn.mul", a, tp_weight(&t, TI_DTYPE_I8, 1, &one, -3, 3, NULL), NULL); want = TI_BLOCK_CVS; break; }
    case 8: y = tp_op1(&t, "nn.relu", conv(&t, x, 4, 4, 3, 1, 1, 1, 1, -1, 0, 1), NULL); break;   /* i32 relu */
    case 9: y = tp_op1(&t, "nn.clip", conv(&t, x, 4, 4, 3, 1, 1, 1, 1, -1, 0, 1),
                       A(c, "min", I(c, -20), "max", I(c, INT32_MAX), NULL, NULL, NULL, NULL)); break;
    default: y = tp_op2(&t, "nn.add", conv(&t, x, 4, 4, 1, 1, 0, 1, 1, -1, 0, 1), conv(&t, x2, 4, 4, 3, 1, 1, 1, 1, -1, 0, 0), NULL);
             want = TI_BLOCK_CADD; break;   /* i32 + i32 */
    }
    tp_ret(&t, 1, &y);
    if (property(&t, 1, &g, "elementwise", (uint64_t)v)) {
      TT_EQ_INT(count_type(&g, want), 1);
      ti_task_graph_free(&g);
    }
    CASE_END();
  }
}

/* LeNet-style: conv5x5 pad 2 -> requant+relu -> max pool 2 (fused), conv5x5
   -> requant+relu -> max pool, transpose (0,2,3,1) -> reshape -> gemm x3. */
TT_TEST(test_lenet) {
  CASE_BEGIN(5);
  ti_task_graph g;
  int64_t d[4] = {1, 1, 28, 28}, shp[2] = {1, 16 * 5 * 5};
  ti_value *x = tp_arg(&t, TI_DTYPE_I8, 4, d), *y;
  y = pool(&t, "nn.max_pool", conv(&t, x, 1, 6, 5, 1, 2, 1, 1, 5, 0, 1), 2, 2, 0);
  y = pool(&t, "nn.max_pool", conv(&t, y, 6, 16, 5, 1, 0, 1, 1, 6, 0, 1), 2, 2, 0);
  y = tp_op1(&t, "nn.transpose", y, A(c, "perm", I4(c, 0, 2, 3, 1), NULL, NULL, NULL, NULL, NULL, NULL));
  y = tp_op1(&t, "nn.reshape", y, A(c, "shape", ti_attr_int_array(c, shp, 2), NULL, NULL, NULL, NULL, NULL, NULL));
  y = gemm(&t, y, 400, 120, 1, 7, 0, 1);
  y = gemm(&t, y, 120, 84, 1, 6, 0, 1);
  y = gemm(&t, y, 84, 10, 1, 5, -128, 1);
  tp_ret(&t, 1, &y);
  if (property(&t, 1, &g, "lenet", 5)) {
    TT_EQ_INT(count_type(&g, TI_BLOCK_CC), 2);
    TT_EQ_INT(count_type(&g, TI_BLOCK_CVM), 3);
    TT_EQ_INT(count_type(&g, TI_BLOCK_CCMPB), 5);
    TT_EQ_INT(count_rearr(&g, TI_REARRANGE_PERMUTE), 0);   /* NHWC data: the transpose is the layout's */
    ti_task_graph_free(&g);
  }
  CASE_END();
}

/* A flatten in NCHW order after an NHWC conv: one RESHAPE with its axis order. */
TT_TEST(test_flatten_reorders) {
  CASE_BEGIN(6);
  ti_task_graph g;
  ti_value *x = tp_arg(&t, TI_DTYPE_I8, 4, d_x), *y;
  y = tp_op1(&t, "nn.flatten", conv(&t, x, 3, 4, 3, 1, 0, 1, 1, 5, -128, 1), NULL);
  y = gemm(&t, y, 4 * 7 * 5, 6, 0, 5, -128, 1);
  tp_ret(&t, 1, &y);
  if (property(&t, 1, &g, "flatten", 6)) {
    TT_CHECK(count_rearr(&g, TI_REARRANGE_RESHAPE) + count_rearr(&g, TI_REARRANGE_PERMUTE) >= 1);
    ti_task_graph_free(&g);
  }
  CASE_END();
}

/* Transposes that cancel leave no rearrangement; a lone one leaves one. */
TT_TEST(test_transpose_cancel) {
  CASE_BEGIN(7);
  ti_task_graph g;
  int64_t d[3] = {4, 5, 6};
  ti_value *x = tp_arg(&t, TI_DTYPE_I8, 3, d), *y, *z;
  int64_t p1[3] = {2, 0, 1}, p2[3] = {1, 2, 0}, p3[3] = {1, 0, 2};
  y = tp_op1(&t, "nn.transpose", x, A(c, "perm", ti_attr_int_array(c, p1, 3), NULL, NULL, NULL, NULL, NULL, NULL));
  y = tp_op1(&t, "nn.transpose", y, A(c, "perm", ti_attr_int_array(c, p2, 3), NULL, NULL, NULL, NULL, NULL, NULL));
  y = tp_op1(&t, "nn.relu", y, NULL);
  z = tp_op1(&t, "nn.transpose", x, A(c, "perm", ti_attr_int_array(c, p3, 3), NULL, NULL, NULL, NULL, NULL, NULL));
  z = tp_op1(&t, "nn.relu", z, NULL);
  {
    ti_value *r2[2];
    r2[0] = y; r2[1] = z;
    tp_ret(&t, 2, r2);
  }
  if (property(&t, 1, &g, "transpose cancel", 7)) {
    TT_EQ_INT(count_rearr(&g, TI_REARRANGE_PERMUTE), 1);
    ti_task_graph_free(&g);
  }
  CASE_END();
}

TT_TEST(test_concat_slice_lut) {
  int v;
  for (v = 0; v < 4; v++) {
    CASE_BEGIN(50 + v);
    int64_t d[4] = {1, 3, 6, 5}, st[4] = {0, 0, 1, 2}, en[4] = {1, 4, 5, 5};
    ti_value *x = tp_arg(&t, TI_DTYPE_I8, 4, d), *x2 = tp_arg(&t, TI_DTYPE_I8, 4, d), *y, *cc[3];
    ti_task_graph g;
    switch (v) {
    case 0:
      cc[0] = conv(&t, x, 3, 2, 3, 1, 1, 1, 1, 4, -128, 1); cc[1] = x2; cc[2] = conv(&t, x, 3, 4, 1, 1, 0, 1, 1, 3, 0, 0);
      y = tp_op(&t, "nn.concat", 3, cc, A(c, "axis", I(c, 1), NULL, NULL, NULL, NULL, NULL, NULL));
      y = conv(&t, y, 9, 3, 3, 1, 1, 1, 1, 5, -128, 1);
      break;
    case 1:
      cc[0] = x; cc[1] = x2;
      y = tp_op(&t, "nn.concat", 2, cc, A(c, "axis", I(c, 3), NULL, NULL, NULL, NULL, NULL, NULL));
      break;
    case 2:
      y = tp_op1(&t, "nn.slice", conv(&t, x, 3, 4, 3, 1, 1, 1, 1, 4, -128, 1),
                 A(c, "starts", ti_attr_int_array(c, st, 4), "ends", ti_attr_int_array(c, en, 4), NULL, NULL, NULL, NULL));
      y = conv(&t, y, 4, 2, 1, 1, 0, 1, 1, 2, -128, 1);
      break;
    default: {
      int32_t tab[256];
      int64_t n = 256, i;
      for (i = 0; i < 256; i++) tab[i] = (int32_t)((i * 37) % 255) - 127;
      y = tp_op2(&t, "nn.lut", x, tp_weight(&t, TI_DTYPE_I8, 1, &n, 0, 0, tab), NULL);
      break;
    }
    }
    tp_ret(&t, 1, &y);
    if (property(&t, 1, &g, "concat/slice/lut", (uint64_t)v)) {
      TT_EQ_INT(count_type(&g, TI_BLOCK_CLUT), v == 3);
      ti_task_graph_free(&g);
    }
    CASE_END();
  }
}

/* Sockets: arguments in order, results in return order (an argument
   returned unchanged, a value returned twice). */
TT_TEST(test_sockets) {
  CASE_BEGIN(8);
  int64_t d[2] = {2, 3};
  ti_value *a = tp_arg(&t, TI_DTYPE_I8, 2, d), *b = tp_arg(&t, TI_DTYPE_I32, 2, d), *r3[4];
  r3[0] = b;
  r3[1] = tp_op1(&t, "nn.relu", a, NULL);
  r3[2] = a;
  r3[3] = r3[1];
  tp_ret(&t, 4, r3);
  property(&t, 1, NULL, "sockets", 8);
  CASE_END();
}

/* SNN: x (i8 image) -> quant_conv2d (i32 current) -> lif with the membrane
   potential as the CLIF state; 12 time steps, the interpreter feeding v_new
   back as v, the executor keeping it in the graph. Spikes and potentials
   agree at every step (decay != 1: the state holds decay * v_new, the
   leak CLIF applies after the step). */
static void snn_lif_steps(int decay) {
  CASE_BEGIN(9 + (uint64_t)(decay + 1));
  int64_t d[4] = {1, 2, 5, 4}, vd[4] = {1, 3, 5, 4};
  ti_value *x = tp_arg(&t, TI_DTYPE_I8, 4, d), *v = tp_arg(&t, TI_DTYPE_I32, 4, vd), *cur, *lo[2], *res[2];
  ti_task_graph g;
  ti_exec *ex = NULL;
  ti_error e;
  ti_tensor_value *in[2], *out[2];
  int32_t state = -1, step, i, xs[12][40], spk[12][60], pot[12][60];
  ti_op *lif;
  int64_t j, fired = 0;
  ti_error_clear(&e);
  cur = conv(&t, x, 2, 3, 3, 1, 1, 1, 1, -1, 0, 1);
  lo[0] = cur; lo[1] = v;
  lif = ti_build(&t.b, "nn.lif", 2, lo, 2, NULL, A(c, "vth", I(c, 300), "v_reset", I(c, -20), decay != 1 ? "decay" : NULL, I(c, decay), NULL, NULL));
  TT_CHECK(lif != NULL);
  if (!lif) { CASE_END(); return; }
  res[0] = &lif->results[0]; res[1] = &lif->results[1];
  tp_ret(&t, 2, res);
  TT_EQ_INT(ti_verify(t.p, &e), 0);
  in[1] = ti_tensor_create(NULL, TI_DTYPE_I32, 4, vd, TI_LAYOUT_ANY, NULL, &e);   /* v starts at 0 = VINIT */
  in[0] = ti_tensor_create(NULL, TI_DTYPE_I8, 4, d, TI_LAYOUT_ANY, NULL, &e);
  /* the reference: 12 steps of the interpreter, v_new fed back as v */
  for (step = 0; step < 12; step++) {
    int32_t n_out = 2;
    for (j = 0; j < in[0]->numel; j++) { xs[step][j] = (int32_t)tt_range(&r, -40, 90); ti_tensor_set(in[0], j, xs[step][j]); }
    TT_EQ_INT(ti_interpret(t.p, (const ti_tensor_value *const *)in, 2, out, &n_out, &e), 0);
    if (n_out != 2) { TT_CHECK_MSG(0, "interpret: %s", e.message); break; }
    for (j = 0; j < 60; j++) {
      spk[step][j] = (int32_t)ti_tensor_get(out[0], j);
      pot[step][j] = (int32_t)ti_tensor_get(out[1], j);
    }
    ti_tensor_free(in[1]);
    in[1] = out[1];
    ti_tensor_free(out[0]);
  }
  TT_EQ_INT(ti_lower_to_task(t.p, NULL, &g, &e), 0);
  if (e.status) fprintf(stderr, "    %s\n", e.message);
  for (i = 0; i < g.n_blocks; i++)
    if (g.blocks[i].type == TI_BLOCK_CLIF && g.blocks[i].n_inputs > 1) {
      const ti_task_edge *ed = ti_task_find_edge(&g, g.blocks[i].inputs[1].interfaces[0].edge_id);
      state = ed ? ed->src_block_id : -1;
    }
  TT_CHECK(state >= 0);
  TT_EQ_INT(count_type(&g, TI_BLOCK_INPUT), 1);    /* v is state, not an input */
  TT_EQ_INT(count_type(&g, TI_BLOCK_OUTPUT), 1);   /* spikes; v_new is the state block */
  {
    ti_exec_options o;
    ti_exec_options_init(&o);
    o.keep_all = 1;
    TT_EQ_INT(ti_exec_plan(&g, &o, &ex, &e), 0);
  }
  for (step = 0; ex && step < 12; step++) {
    ti_exec_tensor sp, st;
    TT_EQ_INT(ti_exec_set_input(ex, 0, xs[step], 40, &e), 0);
    TT_EQ_INT(ti_exec_run(ex, &e), 0);
    TT_EQ_INT(ti_exec_output(ex, 0, &sp, &e), 0);
    TT_EQ_INT(ti_exec_block(ex, state, &st, &e), 0);
    TT_EQ_INT(sp.count, 60);
    for (j = 0; j < 60 && sp.count == 60 && st.count == 60; j++) {
      TT_EQ_INT(ti_exec_tensor_i64(&sp, j), spk[step][j]);
      TT_EQ_INT(ti_exec_tensor_i64(&st, j), (int64_t)decay * pot[step][j]);
      fired += ti_exec_tensor_i64(&sp, j);
    }
  }
  TT_CHECK(fired > 0 || decay != 1);
  ti_exec_free(ex);
  ti_task_graph_free(&g);
  ti_tensor_free(in[0]);
  ti_tensor_free(in[1]);
  CASE_END();
}
TT_TEST(test_snn_lif_steps) {
  snn_lif_steps(1);
  snn_lif_steps(2);
  snn_lif_steps(0);
  snn_lif_steps(-1);
}

/* A lif whose decay is not an integer is refused, saying why. */
TT_TEST(test_lif_decay_refused) {
  CASE_BEGIN(12);
  int64_t d[2] = {3, 4};
  ti_value *lo[2];
  ti_op *lif;
  lo[0] = tp_arg(&t, TI_DTYPE_I32, 2, d); lo[1] = tp_arg(&t, TI_DTYPE_I32, 2, d);
  lif = ti_build(&t.b, "nn.lif", 2, lo, 2, NULL, A(c, "vth", I(c, 30), "decay", ti_attr_float(c, 0.5), NULL, NULL, NULL, NULL));
  TT_CHECK(lif != NULL);
  if (lif) {
    ti_value *r2[2];
    r2[0] = &lif->results[0]; r2[1] = &lif->results[1];
    tp_ret(&t, 2, r2);
    refuses(&t, "decay 0.5: CLIF's leak floors");
  }
  CASE_END();
}

/* Batch > 1: conv (stride, padding, dilation, groups), requant, pools
   (max unfused, avg, global, dilated) and flatten -> gemm with M = batch
   rows (a 1x1 CC): the windows gather their rows per item on the edge. */
TT_TEST(test_batch) {
  int v;
  for (v = 0; v < 8; v++) {
    CASE_BEGIN(70 + v);
    int64_t d[4] = {2 + v % 2, 3, 9, 7};
    ti_value *x = tp_arg(&t, TI_DTYPE_I8, 4, d), *y, *z;
    ti_task_graph g;
    switch (v) {
    case 0: y = conv(&t, x, 3, 4, 3, 1, 1, 1, 1, 5, -128, 1); break;
    case 1: y = conv(&t, x, 3, 4, 3, 2, 2, 2, 1, 4, 0, 1); break;
    case 2: y = pool(&t, "nn.max_pool", conv(&t, x, 3, 6, 2, 1, 0, 1, 3, 5, -128, 0), 2, 2, 0); break;
    case 3: y = pool(&t, "nn.avg_pool", conv(&t, x, 3, 4, 3, 1, 1, 1, 1, 4, 0, 1), 2, 1, 0);
            y = pool(&t, "nn.max_pool", y, 3, 2, 1); break;
    case 4: y = tp_op1(&t, "nn.global_avg_pool", tp_op1(&t, "nn.avg_pool", tp_op1(&t, "nn.relu", x, NULL),
                       A(c, "kernel_shape", I2(c, 2, 2), "dilations", I2(c, 2, 3), "strides", I2(c, 2, 2), NULL, NULL)), NULL);
            break;
    case 6: y = tp_op1(&t, "nn.relu", conv(&t, x, 3, 4, 3, 2, 1, 2, 1, -1, 0, 1), NULL); break;   /* i32 accumulator, i32 relu */
    case 7: y = conv(&t, x, 3, 5, 2, 3, 2, 1, 1, -1, 0, 0); break;   /* stride 3 over 9 + 4 padding rows */
    default: y = conv(&t, x, 3, 4, 3, 1, 1, 1, 1, 5, -128, 1); break;
    }
    z = tp_op1(&t, "nn.flatten", y, NULL);
    if (v == 5) {   /* flatten -> gemm (M = batch) -> gemm i32 */
      int64_t k = y->type->dims[1] * y->type->dims[2] * y->type->dims[3];
      z = gemm(&t, gemm(&t, z, k, 9, 1, 6, 0, 1), 9, 5, 0, -1, 0, 1);
      tp_ret(&t, 1, &z);
    } else {
      tp_ret(&t, 1, &y);
    }
    if (property(&t, 1, &g, "batch", (uint64_t)v)) {
      TT_EQ_INT(count_type(&g, TI_BLOCK_CC), v == 4 ? 0 : v == 5 ? 3 : 1);
      TT_CHECK(count_rearr(&g, TI_REARRANGE_SHUFFLE) >= 1);
      ti_task_graph_free(&g);
    }
    CASE_END();
  }
}

/* quant_gemm with M > 1 rows: one 1x1 CC (SIC [1][M][K], SW [N][K][1][1]). */
TT_TEST(test_gemm_rows) {
  int v;
  for (v = 0; v < 5; v++) {
    CASE_BEGIN(80 + v);
    int64_t d[2] = {5, 11}, dt[2] = {11, 5};
    ti_value *a = tp_arg(&t, TI_DTYPE_I8, 2, v == 4 ? dt : d), *y;
    ti_task_graph g;
    if (v == 4) {   /* trans_a */
      int64_t wd[2] = {11, 7};
      ti_value *ops[2];
      ops[0] = a; ops[1] = tp_weight(&t, TI_DTYPE_I8, 2, wd, -3, 3, NULL);
      y = tp_op(&t, "nn.quant_gemm", 2, ops, A(c, "trans_a", I(c, 1), "shift", I(c, 3), "clip_min", I(c, -128), NULL, NULL));
    } else {
      y = gemm(&t, a, 11, 7, v & 1, v == 3 ? -1 : 4, v == 2 ? 0 : -128, v != 1);
    }
    tp_ret(&t, 1, &y);
    if (property(&t, 1, &g, "gemm rows", (uint64_t)v)) {
      TT_EQ_INT(count_type(&g, TI_BLOCK_CC), 1);
      TT_EQ_INT(count_type(&g, TI_BLOCK_CVM), 0);
      TT_EQ_INT(count_type(&g, TI_BLOCK_CCMPB), v == 3 ? 0 : 1);
      ti_task_graph_free(&g);
    }
    CASE_END();
  }
}

/* add / sub / mul where an activation broadcasts ([1,C,1,1], [1,1,H,W],
   [1,C,H,1], batch 1 against 2): replicated on the edge (SHUFFLE). */
TT_TEST(test_broadcast) {
  int v;
  for (v = 0; v < 7; v++) {
    CASE_BEGIN(90 + v);
    int64_t d[4] = {v == 6 ? 2 : 1, 4, 5, 3}, b0[4] = {1, 4, 1, 1}, b1[4] = {1, 1, 5, 3}, b2[4] = {1, 4, 5, 1};
    const int64_t *bd = v % 3 == 0 ? b0 : v % 3 == 1 ? b1 : b2;
    ti_value *x = tp_arg(&t, TI_DTYPE_I8, 4, d), *b = tp_arg(&t, TI_DTYPE_I8, 4, bd), *y;
    const char *nm = v % 3 == 0 ? "nn.add" : v % 3 == 1 ? "nn.mul" : "nn.sub";
    ti_task_graph g;
    y = v >= 3 ? tp_op2(&t, nm, b, conv(&t, x, 4, 4, 3, 1, 1, 1, 1, 4, -128, 1), NULL) : tp_op2(&t, nm, x, b, NULL);
    tp_ret(&t, 1, &y);
    if (property(&t, 1, &g, "broadcast", (uint64_t)v)) {
      TT_CHECK(count_rearr(&g, TI_REARRANGE_SHUFFLE) >= 1);
      TT_EQ_INT(count_type(&g, v % 3 == 1 ? TI_BLOCK_CVVH : TI_BLOCK_CADD), 1);
      ti_task_graph_free(&g);
    }
    CASE_END();
  }
}

/* sub: a - b (b negated by a CVS), a - c (CADD bias -c), c - a (CVS -1 with
   bias c), i8 saturating and i32; div by 2^k: one shift on non-negative
   values, the signed form (three shifts, a CVS, two CADD), by 1. */
TT_TEST(test_sub_div) {
  int v;
  for (v = 0; v < 10; v++) {
    CASE_BEGIN(100 + v);
    int64_t d[4] = {1, 3, 5, 4}, n3 = 4, one = 1;
    ti_dtype dt = v == 3 || v == 8 ? TI_DTYPE_I32 : TI_DTYPE_I8;
    ti_value *x = tp_arg(&t, dt, 4, d), *x2 = tp_arg(&t, dt, 4, d), *y;
    ti_task_graph g;
    int32_t p4 = 4, p1 = 1, p32 = 32;
    ti_block_type want = TI_BLOCK_CADD;
    int nwant = 1;
    switch (v) {
    case 0: y = tp_op2(&t, "nn.sub", x, x2, NULL); nwant = 1; break;
    case 1: y = tp_op2(&t, "nn.sub", x, tp_weight(&t, TI_DTYPE_I8, 1, &n3, -100, 100, NULL), NULL); break;
    case 2: y = tp_op2(&t, "nn.sub", tp_weight(&t, TI_DTYPE_I8, 1, &one, -9, 9, NULL), x, NULL); want = TI_BLOCK_CVS; break;
    case 3: y = tp_op2(&t, "nn.sub", tp_weight(&t, TI_DTYPE_I32, 1, &n3, -900, 900, NULL), x, NULL); want = TI_BLOCK_CVS; break;
    case 4: y = tp_op2(&t, "nn.div", tp_op1(&t, "nn.relu", x, NULL), tp_weight(&t, TI_DTYPE_I8, 1, &one, 0, 0, &p4), NULL);
            want = TI_BLOCK_CADD; nwant = 0; break;
    case 5: y = tp_op2(&t, "nn.div", x, tp_weight(&t, TI_DTYPE_I8, 1, &one, 0, 0, &p4), NULL); nwant = 2; break;
    case 6: y = tp_op2(&t, "nn.div", x, tp_weight(&t, TI_DTYPE_I8, 1, &one, 0, 0, &p1), NULL); want = TI_BLOCK_CCMPB; nwant = 0; break;
    case 7: y = tp_op2(&t, "nn.div", conv(&t, x, 3, 3, 3, 1, 1, 1, 1, 3, 0, 1), tp_weight(&t, TI_DTYPE_I8, 1, &one, 0, 0, &p4), NULL);
            want = TI_BLOCK_CVS; nwant = 0; break;
    case 8: y = tp_op2(&t, "nn.div", x, tp_weight(&t, TI_DTYPE_I32, 1, &one, 0, 0, &p32), NULL); nwant = 2; break;
    default: y = tp_op2(&t, "nn.sub", tp_op1(&t, "nn.relu", x, NULL), tp_op2(&t, "nn.mul", x2, x, NULL), NULL); break;
    }
    tp_ret(&t, 1, &y);
    if (property(&t, 1, &g, "sub/div", (uint64_t)v)) {
      TT_EQ_INT(count_type(&g, want), nwant);
      if (v == 0) TT_EQ_INT(count_type(&g, TI_BLOCK_CVS), 1);
      if (v == 5 || v == 8) { TT_EQ_INT(count_type(&g, TI_BLOCK_CVS), 1); TT_EQ_INT(count_type(&g, TI_BLOCK_CCMPB), 3); }
      ti_task_graph_free(&g);
    }
    CASE_END();
  }
}

/* Signed i32 div by 2^k at the ends of the range: INT32_MIN (whose
   negation wraps), its neighbours, the multiples of 2^k around it and
   around 0, INT32_MAX; the interpreter truncates towards zero. Also i8
   at -128 and 127. Every k the divisor can hold. */
TT_TEST(test_div_extremes) {
  int32_t k;
  for (k = 1; k <= 30; k++) {
    CASE_BEGIN(200 + (uint64_t)k);
    int64_t d[4] = {1, 2, 3, 8}, one = 1, p = (int64_t)1 << k, vals[24];
    int32_t pk = (int32_t)p;
    ti_value *x = tp_arg(&t, TI_DTYPE_I32, 4, d), *y;
    int n = 0;
    vals[n++] = INT32_MIN; vals[n++] = (int64_t)INT32_MIN + 1; vals[n++] = (int64_t)INT32_MIN + 2;
    vals[n++] = (int64_t)INT32_MIN + p - 1; vals[n++] = (int64_t)INT32_MIN + p; vals[n++] = (int64_t)INT32_MIN + p + 1;
    vals[n++] = INT32_MAX; vals[n++] = (int64_t)INT32_MAX - 1; vals[n++] = (int64_t)INT32_MAX - p + 1;
    vals[n++] = (int64_t)INT32_MAX - p; vals[n++] = -1; vals[n++] = 0; vals[n++] = 1;
    vals[n++] = -p; vals[n++] = -p + 1; vals[n++] = -p - 1; vals[n++] = p; vals[n++] = p - 1; vals[n++] = p + 1;
    vals[n++] = -2 * p - 1; vals[n++] = -3 * p + 1; vals[n++] = (int64_t)INT32_MIN / 2 - 1; vals[n++] = (int64_t)INT32_MIN / 3;
    vals[n++] = -7;
    t.fixed = vals; t.n_fixed = n;
    y = tp_op2(&t, "nn.div", x, tp_weight(&t, TI_DTYPE_I32, 1, &one, 0, 0, &pk), NULL);
    tp_ret(&t, 1, &y);
    property(&t, 1, NULL, "div extremes i32", (uint64_t)k);
    CASE_END();
  }
  for (k = 1; k <= 6; k++) {
    CASE_BEGIN(240 + (uint64_t)k);
    int64_t d[2] = {4, 7}, one = 1, vals[14] = {-128, -127, -126, 127, 126, -1, 0, 1, -64, -65, -63, 63, 64, -2};
    int32_t pk = 1 << k;
    ti_value *x = tp_arg(&t, TI_DTYPE_I8, 2, d), *y;
    t.fixed = vals; t.n_fixed = 14;
    y = tp_op2(&t, "nn.div", x, tp_weight(&t, TI_DTYPE_I8, 1, &one, 0, 0, &pk), NULL);
    tp_ret(&t, 1, &y);
    property(&t, 1, NULL, "div extremes i8", (uint64_t)k);
    CASE_END();
  }
}

/* nn.broadcast on its own (numpy rules, storage order): replicated on the
   edge into a copy block (SHUFFLE), or a view when only the rank changes;
   its result read by a conv, an add, returned. */
TT_TEST(test_broadcast_op) {
  int v;
  for (v = 0; v < 8; v++) {
    CASE_BEGIN(260 + v);
    static const int64_t in[8][4] = {{1, 4, 1, 1}, {1, 1, 5, 3}, {4, 1, 3, 0}, {5, 0, 0, 0}, {3, 1, 0, 0}, {1, 3, 5, 3}, {1, 3, 1, 3}, {3, 5, 3, 0}};
    static const int ranks[8] = {4, 4, 3, 1, 2, 4, 4, 3};
    static const int64_t out[8][4] = {{2, 4, 5, 3}, {1, 4, 5, 3}, {2, 4, 5, 3}, {3, 2, 5, 0}, {2, 3, 6, 0}, {2, 3, 5, 3}, {1, 3, 5, 3}, {1, 3, 5, 3}};
    static const int oranks[8] = {4, 4, 4, 3, 3, 4, 4, 4};
    ti_value *x = tp_arg(&t, v == 4 ? TI_DTYPE_I32 : TI_DTYPE_I8, ranks[v], in[v]), *y, *z;
    ti_task_graph g;
    y = tp_op1(&t, "nn.broadcast", x, A(c, "shape", ti_attr_int_array(c, out[v], oranks[v]), NULL, NULL, NULL, NULL, NULL, NULL));
    if (v == 5) y = conv(&t, y, 3, 2, 3, 1, 1, 1, 1, 4, -128, 1);              /* a batch made by broadcast, into a conv */
    if (v == 6) y = tp_op2(&t, "nn.add", y, tp_op1(&t, "nn.relu", tp_arg(&t, TI_DTYPE_I8, 4, out[6]), NULL), NULL);
    if (v == 7) {                                                                /* rank 3 -> 4, same elements: a view */
      z = tp_op1(&t, "nn.relu", y, NULL);
      y = conv(&t, z, 3, 2, 1, 1, 0, 1, 1, 3, 0, 1);
    }
    tp_ret(&t, 1, &y);
    if (property(&t, 1, &g, "broadcast op", (uint64_t)v)) {
      TT_CHECK(count_rearr(&g, TI_REARRANGE_SHUFFLE) >= (v == 7 ? 0 : 1));
      if (v == 7) TT_EQ_INT(count_rearr(&g, TI_REARRANGE_SHUFFLE), 0);
      ti_task_graph_free(&g);
    }
    CASE_END();
  }
}

/* Dilated pools: the taps of every window gathered on the edge (rows and
   columns), the CCMPB / CAVG window dense over them. */
TT_TEST(test_dilated_pools) {
  int v;
  for (v = 0; v < 5; v++) {
    CASE_BEGIN(110 + v);
    int64_t d[4] = {1, 3, 11, 10};
    ti_value *x = tp_arg(&t, TI_DTYPE_I8, 4, d), *y, *relu;
    ti_task_graph g;
    relu = tp_op1(&t, "nn.relu", x, NULL);
    switch (v) {
    case 0: y = tp_op1(&t, "nn.max_pool", x, A(c, "kernel_shape", I2(c, 3, 3), "dilations", I2(c, 2, 2), NULL, NULL, NULL, NULL)); break;
    case 1: y = tp_op1(&t, "nn.max_pool", relu, A(c, "kernel_shape", I2(c, 2, 3), "dilations", I2(c, 3, 1), "strides", I2(c, 2, 1),
                                                   "pads", I4(c, 1, 2, 2, 1))); break;
    case 2: y = tp_op1(&t, "nn.max_pool", x, A(c, "kernel_shape", I2(c, 1, 2), "dilations", I2(c, 1, 4), "strides", I2(c, 1, 3), NULL, NULL)); break;
    case 3: y = tp_op1(&t, "nn.avg_pool", relu, A(c, "kernel_shape", I2(c, 2, 2), "dilations", I2(c, 2, 3), NULL, NULL, NULL, NULL)); break;
    default: y = tp_op1(&t, "nn.avg_pool", relu, A(c, "kernel_shape", I2(c, 2, 2), "dilations", I2(c, 2, 2), "pads", I4(c, 1, 1, 1, 1),
                                                    "count_include_pad", I(c, 1))); break;
    }
    tp_ret(&t, 1, &y);
    if (property(&t, 1, &g, "dilated pool", (uint64_t)v)) {
      TT_CHECK(count_rearr(&g, TI_REARRANGE_SHUFFLE) >= 1);
      TT_EQ_INT(count_type(&g, TI_BLOCK_CAVG), v >= 3);
      ti_task_graph_free(&g);
    }
    CASE_END();
  }
}

/* --- refusals ----------------------------------------------------------------- */

TT_TEST(test_refusals) {
  int v;
  for (v = 0; v < 11; v++) {
    CASE_BEGIN(60 + v);
    int64_t d[4] = {1, 3, 6, 6}, d2[4] = {2, 3, 6, 6};
    ti_value *x = tp_arg(&t, v == 0 ? TI_DTYPE_F32 : TI_DTYPE_I8, 4, v == 10 ? d2 : d), *y = NULL;
    const char *want = "";
    switch (v) {
    case 0: y = tp_op1(&t, "nn.relu", x, NULL); want = "Task IR here is integer: quantise the model first (quantize-recognize)"; break;
    case 1: y = tp_op2(&t, "nn.div", x, x, NULL); want = "op #0 nn.div: the divisor is an activation"; break;
    case 2: y = pool(&t, "nn.avg_pool", tp_op1(&t, "nn.relu", x, NULL), 3, 1, 0); want = "not a power of two"; break;
    case 3: y = pool(&t, "nn.avg_pool", x, 2, 2, 0); want = "may be negative"; break;
    case 4: y = pool(&t, "nn.max_pool", x, 3, 1, 1); want = "padded max_pool"; break;
    case 5: {
      int64_t wd[4] = {2, 3, 3, 3};
      y = tp_op2(&t, "nn.conv2d", x, tp_weight(&t, TI_DTYPE_I8, 4, wd, -2, 2, NULL), NULL);
      want = "use nn.quant_conv2d";
      break;
    }
    case 6: y = tp_op1(&t, "nn.clip", x, A(c, "min", I(c, 0), "max", I(c, 6), NULL, NULL, NULL, NULL)); want = "CCMPB clips only from below"; break;
    case 7: { int64_t one = 1; int32_t three = 3;
      y = tp_op2(&t, "nn.div", x, tp_weight(&t, TI_DTYPE_I8, 1, &one, 0, 0, &three), NULL);
      want = "divisor 3 (element 0): only one positive power-of-two constant"; break; }
    case 8: { int64_t cd[4] = {1, 3, 6, 1};
      y = tp_op2(&t, "nn.add", x, tp_weight(&t, TI_DTYPE_I8, 4, cd, -5, 5, NULL), NULL);
      want = "op #1 nn.add: a constant operand varying along several axes has no Task IR form"; break; }
    case 10: { int64_t st[4] = {0, 0, 1, 0}, en[4] = {2, 3, 4, 6};   /* a batched slice across H */
      y = tp_op1(&t, "nn.slice", x, A(c, "starts", ti_attr_int_array(c, st, 4), "ends", ti_attr_int_array(c, en, 4), NULL, NULL, NULL, NULL));
      want = "nn.slice: a slice of a rank-4 value folding several axes into one block axis"; break; }
    default: y = tp_op1(&t, "nn.mirror", x, NULL); want = "nn.mirror: no Task IR form"; break;
    }
    tp_ret(&t, 1, &y);
    refuses(&t, want);
    CASE_END();
  }
}

/* --- random programs ------------------------------------------------------------ */

typedef struct rv { ti_value *v; int64_t c, h, w; int nonneg; ti_dtype dt; } rv;

/* One random program: a DAG over 4-D values (conv, pools, relu, add, sub,
   mul, div by 2^k, broadcasts of an extra argument (by the binary op or by
   nn.broadcast), dilated pools, concat,
   slice, transposes), batch 1 to 3, ending in an optional flatten -> gemm
   chain (M = batch rows). */
static void random_program(tp *t, uint64_t seed) {
  ti_context *c = t->c;
  tt_rng *r = t->r;
  rv pool_[24];
  int n = 0, steps = (int)tt_range(r, 1, 7), s, i, n_args = 1;
  int64_t d[4];
  ti_value *rets[3];
  int n_ret = 0;
  (void)seed;
  d[0] = tt_range(r, 0, 2) ? 1 : tt_range(r, 2, 3); d[1] = tt_range(r, 1, 4); d[2] = tt_range(r, 3, 11); d[3] = tt_range(r, 3, 11);
  pool_[n].v = tp_arg(t, TI_DTYPE_I8, 4, d); pool_[n].c = d[1]; pool_[n].h = d[2]; pool_[n].w = d[3];
  pool_[n].nonneg = 0; pool_[n].dt = TI_DTYPE_I8; n++;
  if (tt_range(r, 0, 2) == 0) {   /* a second input of the same shape */
    pool_[n] = pool_[0];
    pool_[n].v = tp_arg(t, TI_DTYPE_I8, 4, d); n++; n_args++;
  }
  for (s = 0; s < steps && n < 24; s++) {
    rv a = pool_[tt_range(r, n > 2 ? n - 3 : 0, n - 1)], o = a;
    int kind = (int)tt_range(r, 0, 14);
    if (a.dt != TI_DTYPE_I8) kind = 0;
    switch (kind) {
    case 0: case 1: case 2: {   /* conv, requant (maybe fused relu and max pool, either order) */
      int relu, shared;
      int64_t k = tt_range(r, 1, 5), st = tt_range(r, 1, 2), pd = tt_range(r, 0, 2), dl = tt_range(r, 1, 2), cout = tt_range(r, 1, 6);
      int64_t grp = (a.c % 2 == 0 && cout % 2 == 0 && tt_range(r, 0, 3) == 0) ? 2 : 1;
      int clip = tt_range(r, 0, 1) ? 0 : (int)tt_range(r, -128, 20);
      int64_t span = dl * (k - 1) + 1;
      if (a.h + 2 * pd < span || a.w + 2 * pd < span) { k = 1; span = 1; dl = 1; }
      o.v = conv(t, a.v, a.c, cout, k, st, pd, dl, grp, (int)tt_range(r, 3, 7), clip, (int)tt_range(r, 0, 3) != 0);
      o.c = cout; o.h = (a.h + 2 * pd - span) / st + 1; o.w = (a.w + 2 * pd - span) / st + 1;
      o.nonneg = clip >= 0; o.dt = TI_DTYPE_I8;
      relu = (int)tt_range(r, 0, 2);   /* 1: a relu before the pool (if any), 2: after it */
      shared = relu && n < 23 && tt_range(r, 0, 3) == 0;
      if (shared) pool_[n++] = o;   /* the requantised value may get other users (then nothing fuses) */
      if (relu == 1) { o.v = tp_op1(t, "nn.relu", o.v, NULL); o.nonneg = 1; }
      if (tt_range(r, 0, 2) == 0 && o.h >= 2 && o.w >= 2) {
        int64_t pk = tt_range(r, 1, 3), ps = tt_range(r, 1, 2), pp = o.nonneg || (relu == 2 && !shared) ? tt_range(r, 0, 1) : 0;
        if (pk > o.h + 2 * pp || pk > o.w + 2 * pp) pk = 1;
        if (pp * 2 >= pk) pp = 0;
        o.v = pool(t, "nn.max_pool", o.v, pk, ps, pp);
        o.h = (o.h + 2 * pp - pk) / ps + 1; o.w = (o.w + 2 * pp - pk) / ps + 1;
      }
      if (relu == 2) { o.v = tp_op1(t, "nn.relu", o.v, NULL); o.nonneg = 1; }
      break;
    }
    case 3: {   /* pools on their own */
      if (a.nonneg && a.h >= 2 && a.w >= 2 && tt_range(r, 0, 1)) {
        int64_t ky = tt_range(r, 0, 1) ? 2 : 1, kx = ky == 1 ? 2 : tt_range(r, 1, 2), sy = tt_range(r, 1, 2);
        o.v = tp_op1(t, "nn.avg_pool", a.v, A(c, "kernel_shape", I2(c, ky, kx), "strides", I2(c, sy, sy), NULL, NULL, NULL, NULL));
        o.h = (a.h - ky) / sy + 1; o.w = (a.w - kx) / sy + 1;
      } else if (a.nonneg && ((a.h * a.w) & (a.h * a.w - 1)) == 0) {
        o.v = tp_op1(t, "nn.global_avg_pool", a.v, NULL);
        o.h = o.w = 1;
      } else {
        int64_t pk = tt_range(r, 1, 3), ps = tt_range(r, 1, 3);
        if (pk > a.h || pk > a.w) pk = 1;
        o.v = pool(t, "nn.max_pool", a.v, pk, ps, 0);
        o.h = (a.h - pk) / ps + 1; o.w = (a.w - pk) / ps + 1;
      }
      break;
    }
    case 4: o.v = tp_op1(t, "nn.relu", a.v, NULL); o.nonneg = 1; break;
    case 5: case 6: {   /* add / mul with a value of the same shape */
      rv b = a;
      for (i = 0; i < n; i++)
        if (pool_[i].c == a.c && pool_[i].h == a.h && pool_[i].w == a.w && pool_[i].dt == a.dt && tt_range(r, 0, 1)) b = pool_[i];
      o.v = tp_op2(t, kind == 5 ? "nn.add" : "nn.mul", a.v, b.v, NULL);
      o.nonneg = kind == 5 && a.nonneg && b.nonneg;
      break;
    }
    case 7: {   /* concat along channels with a value of the same H, W */
      rv b = a;
      ti_value *cc[2];
      for (i = 0; i < n; i++)
        if (pool_[i].h == a.h && pool_[i].w == a.w && pool_[i].dt == a.dt && tt_range(r, 0, 1)) b = pool_[i];
      cc[0] = a.v; cc[1] = b.v;
      o.v = tp_op(t, "nn.concat", 2, cc, A(c, "axis", I(c, 1), NULL, NULL, NULL, NULL, NULL, NULL));
      o.c = a.c + b.c; o.nonneg = a.nonneg && b.nonneg;
      break;
    }
    case 8: {   /* transpose out and back (cancels), or a slice of H */
      if (tt_range(r, 0, 1)) {
        o.v = tp_op1(t, "nn.transpose", a.v, A(c, "perm", I4(c, 0, 2, 3, 1), NULL, NULL, NULL, NULL, NULL, NULL));
        o.v = tp_op1(t, "nn.transpose", o.v, A(c, "perm", I4(c, 0, 3, 1, 2), NULL, NULL, NULL, NULL, NULL, NULL));
      } else if (a.h >= 2 && d[0] == 1) {   /* (a batched slice of H folds two axes: refused) */
        int64_t s0 = tt_range(r, 0, a.h - 2), e0 = tt_range(r, s0 + 1, a.h), st[4], en[4];
        st[0] = 0; st[1] = 0; st[2] = s0; st[3] = 0;
        en[0] = 1; en[1] = a.c; en[2] = e0; en[3] = a.w;
        o.v = tp_op1(t, "nn.slice", a.v, A(c, "starts", ti_attr_int_array(c, st, 4), "ends", ti_attr_int_array(c, en, 4), NULL, NULL, NULL, NULL));
        o.h = e0 - s0;
      }
      break;
    }
    case 9: {   /* mul by a constant scalar */
      int64_t one = 1;
      o.v = tp_op2(t, "nn.mul", a.v, tp_weight(t, TI_DTYPE_I8, 1, &one, -2, 2, NULL), NULL);
      o.nonneg = 0;
      break;
    }
    case 10: {   /* sub: a value of the same shape, a constant vector or scalar, either side */
      rv b = a;
      int64_t nc[4] = {1, 1, 1, 1};
      int form = (int)tt_range(r, 0, 2);
      ti_value *cv;
      if (tt_range(r, 0, 1)) nc[1] = a.c;   /* per channel */
      cv = tp_weight(t, TI_DTYPE_I8, 4, nc, -50, 50, NULL);
      for (i = 0; i < n; i++)
        if (pool_[i].c == a.c && pool_[i].h == a.h && pool_[i].w == a.w && pool_[i].dt == a.dt && tt_range(r, 0, 1)) b = pool_[i];
      o.v = form == 0 ? tp_op2(t, "nn.sub", a.v, b.v, NULL) : form == 1 ? tp_op2(t, "nn.sub", a.v, cv, NULL) : tp_op2(t, "nn.sub", cv, a.v, NULL);
      o.nonneg = 0;
      break;
    }
    case 11: {   /* div by a power of two (signed or known non-negative) */
      int64_t one = 1;
      int32_t p2 = 1 << tt_range(r, 0, 4);
      o.v = tp_op2(t, "nn.div", a.v, tp_weight(t, TI_DTYPE_I8, 1, &one, 0, 0, &p2), NULL);
      break;
    }
    case 12: {   /* add / mul / sub with an extra argument that broadcasts */
      int64_t bd[4];
      int form = (int)tt_range(r, 0, 3);
      const char *nm = tt_range(r, 0, 2) == 0 ? "nn.add" : tt_range(r, 0, 1) ? "nn.mul" : "nn.sub";
      ti_value *b;
      if (n_args >= 6) break;
      bd[0] = tt_range(r, 0, 1) ? 1 : d[0]; bd[1] = form == 1 ? 1 : a.c; bd[2] = form == 0 ? 1 : a.h; bd[3] = form <= 2 && form != 1 ? 1 : a.w;
      if (form == 1) bd[3] = a.w;
      b = tp_arg(t, TI_DTYPE_I8, 4, bd);
      n_args++;
      o.v = tt_range(r, 0, 1) ? tp_op2(t, nm, a.v, b, NULL) : tp_op2(t, nm, b, a.v, NULL);
      o.nonneg = 0;
      break;
    }
    case 14: {   /* nn.broadcast of an extra argument (or its relu) to a's shape, then add / mul / sub */
      int64_t bd[4], od[4];
      const char *nm = tt_range(r, 0, 2) == 0 ? "nn.add" : tt_range(r, 0, 1) ? "nn.mul" : "nn.sub";
      int rank = (int)tt_range(r, 1, 4), q;
      ti_value *b;
      if (n_args >= 6) break;
      od[0] = d[0]; od[1] = a.c; od[2] = a.h; od[3] = a.w;
      for (q = 0; q < rank; q++) bd[q] = tt_range(r, 0, 1) ? 1 : od[4 - rank + q];
      b = tp_arg(t, TI_DTYPE_I8, rank, bd);
      n_args++;
      if (tt_range(r, 0, 1)) b = tp_op1(t, "nn.relu", b, NULL);
      b = tp_op1(t, "nn.broadcast", b, A(c, "shape", ti_attr_int_array(c, od, 4), NULL, NULL, NULL, NULL, NULL, NULL));
      o.v = tt_range(r, 0, 1) ? tp_op2(t, nm, a.v, b, NULL) : tp_op2(t, nm, b, a.v, NULL);
      o.nonneg = 0;
      break;
    }
    default: {   /* a dilated pool */
      int64_t dy = tt_range(r, 1, 3), dx = tt_range(r, 1, 3), ky = tt_range(r, 1, 2), kx = tt_range(r, 1, 2), sy = tt_range(r, 1, 2), sx = tt_range(r, 1, 2);
      int mx = !a.nonneg || tt_range(r, 0, 1);
      if (dy * (ky - 1) + 1 > a.h) ky = 1;
      if (dx * (kx - 1) + 1 > a.w) kx = 1;
      if (!mx && ((ky * kx) & (ky * kx - 1))) kx = ky;
      o.v = tp_op1(t, mx ? "nn.max_pool" : "nn.avg_pool", a.v, A(c, "kernel_shape", I2(c, ky, kx), "dilations", I2(c, dy, dx), "strides", I2(c, sy, sx), NULL, NULL));
      o.h = (a.h - dy * (ky - 1) - 1) / sy + 1; o.w = (a.w - dx * (kx - 1) - 1) / sx + 1;
      break;
    }
    }
    pool_[n++] = o;
  }
  rets[n_ret++] = pool_[n - 1].v;
  if (tt_range(r, 0, 1)) {   /* flatten -> gemm chain */
    rv a = pool_[n - 1];
    ti_value *y = tp_op1(t, "nn.flatten", a.v, NULL);
    int64_t k = a.c * a.h * a.w, m = tt_range(r, 1, 12);
    y = gemm(t, y, k, m, (int)tt_range(r, 0, 1), (int)tt_range(r, 3, 7), tt_range(r, 0, 1) ? 0 : -128, 1);
    if (tt_range(r, 0, 1)) y = gemm(t, y, m, tt_range(r, 1, 9), 1, -1, 0, 1);   /* i32 logits */
    rets[n_ret++] = y;
  }
  if (n > 2 && tt_range(r, 0, 2) == 0) rets[n_ret++] = pool_[tt_range(r, 1, n - 2)].v;
  tp_ret(t, n_ret, rets);
}

TT_TEST(test_random_programs) {
  uint64_t seed, n = 0, bad = 0;
  const char *env = getenv("TI_LOWER_SEED");
  uint64_t first = env ? (uint64_t)strtoull(env, NULL, 10) : 1, count = env ? 1 : 600;
  for (seed = first; seed < first + count; seed++) {
    ti_context *c = ctx_new();
    tt_rng r;
    tp t;
    r.s = seed * 0x9e3779b97f4a7c15ULL + 1;
    tp_init(&t, c, &r);
    random_program(&t, seed);
    if (!property(&t, 1, NULL, "random program", seed)) {
      bad++;
      fprintf(stderr, "    (rerun one with TI_LOWER_SEED=%llu)\n", (unsigned long long)seed);
    }
    n++;
    ti_program_destroy(t.p);
    ti_context_destroy(c);
    if (bad >= 5) break;
  }
  printf("  random programs: %llu run, %llu differ\n", (unsigned long long)n, (unsigned long long)bad);
}

int main(void) {
  TT_RUN(test_conv_requant);
  TT_RUN(test_conv_variants);
  TT_RUN(test_conv_requant_maxpool_fused);
  TT_RUN(test_conv_relu_padded_pool_fused);
  TT_RUN(test_requant_relu_fused);
  TT_RUN(test_gemm);
  TT_RUN(test_pools);
  TT_RUN(test_relu_clip_add_mul);
  TT_RUN(test_lenet);
  TT_RUN(test_flatten_reorders);
  TT_RUN(test_transpose_cancel);
  TT_RUN(test_concat_slice_lut);
  TT_RUN(test_sockets);
  TT_RUN(test_snn_lif_steps);
  TT_RUN(test_lif_decay_refused);
  TT_RUN(test_batch);
  TT_RUN(test_gemm_rows);
  TT_RUN(test_broadcast);
  TT_RUN(test_sub_div);
  TT_RUN(test_div_extremes);
  TT_RUN(test_broadcast_op);
  TT_RUN(test_dilated_pools);
  TT_RUN(test_refusals);
  TT_RUN(test_random_programs);
  return tt_finish();
}
