/* tests/quant_chain.h - the integer program the lowering is held to a
   memory budget on (test_lower_limits) and the context's chunk cache is
   tested on (test_chunk_cache). Include after taskir.h and tt.h. */
#ifndef QUANT_CHAIN_H
#define QUANT_CHAIN_H
/* A chain of `layers` layers on [1,4,6,6] i8: 1x1 quant_conv2d with
   requantisation, relu, and a transpose pair that cancels (6 ops each, the
   weight read included). *n_ops (if not NULL): the ops built. */
static ti_program *quant_chain(ti_context *c, int layers, int *n_ops) {
  ti_program *p = ti_program_create(c, "chain", TI_PROGRAM_SSA);
  int64_t d[4] = {1, 4, 6, 6}, wd[4] = {4, 4, 1, 1}, p1[4] = {0, 2, 3, 1}, p2[4] = {0, 3, 1, 2};
  static const int8_t w[16] = {1, 0, 0, 1, 0, 1, 1, 0, 1, -1, 0, 0, 0, 0, 1, 1};
  const ti_type *t = ti_type_get(c, TI_TYPE_VTENSOR, TI_DTYPE_I8, 4, d, TI_LAYOUT_ANY);
  const ti_type *wt = ti_type_get(c, TI_TYPE_VTENSOR, TI_DTYPE_I8, 4, wd, TI_LAYOUT_ANY);
  ti_named_attr a[2];
  const ti_attr *conv_attrs, *w_attrs, *t1, *t2;
  ti_builder b;
  ti_error e;
  ti_value *cur = ti_program_add_arg(p, t), *ops[2];
  int i;
  ti_error_clear(&e);
  ti_builder_init(&b, p, &e);
  TT_EQ_INT(ti_program_add_var(p, "w", wt, w, 0, &e), TI_STATUS_SUCCESS);
  a[0] = ti_named(c, "shift", ti_attr_int(c, 1));
  a[1] = ti_named(c, "clip_min", ti_attr_int(c, -128));
  conv_attrs = ti_attr_dict(c, a, 2);
  a[0] = ti_named(c, "name", ti_attr_string(c, "w", -1));
  w_attrs = ti_attr_dict(c, a, 1);
  a[0] = ti_named(c, "perm", ti_attr_int_array(c, p1, 4));
  t1 = ti_attr_dict(c, a, 1);
  a[0] = ti_named(c, "perm", ti_attr_int_array(c, p2, 4));
  t2 = ti_attr_dict(c, a, 1);
  for (i = 0; i < layers; i++) {
    ops[0] = cur;
    ops[1] = ti_build1(&b, "builtin.get_parameter", 0, NULL, wt, w_attrs);
    cur = ti_build1(&b, "nn.quant_conv2d", 2, ops, NULL, conv_attrs);
    cur = ti_build1(&b, "nn.relu", 1, &cur, NULL, NULL);
    cur = ti_build1(&b, "nn.transpose", 1, &cur, NULL, t1);
    cur = ti_build1(&b, "nn.transpose", 1, &cur, NULL, t2);
  }
  ti_build(&b, "builtin.return", 1, &cur, 0, NULL, NULL);
  TT_CHECK_MSG(b.status == TI_STATUS_SUCCESS, "build: %s", e.message);
  if (n_ops) *n_ops = 5 * layers + 1;
  return p;
}
#endif
