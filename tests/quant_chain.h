/* tests/quant_chain.h - the integer programs the lowering is held to a
   memory budget on (test_lower_limits), the context's chunk cache is tested
   on (test_chunk_cache) and the lowering is timed on (bench_lower).
   Include after taskir.h (and after tt.h for quant_chain). */
#ifndef QUANT_CHAIN_H
#define QUANT_CHAIN_H
#include <stdio.h>
/* `layers` layers on [1,4,6,6] i8: 1x1 quant_conv2d with requantisation,
   relu, with `residual` a saturating add of the previous layer's input
   (the value two layers back), and a transpose pair that cancels (5 ops
   each, the weight read included; 6 with the add). *n_ops (if not NULL): the ops built. NULL (and a message
   on stderr) when building fails. */
static ti_program *quant_layers(ti_context *c, int layers, int residual, int *n_ops) {
  ti_program *p = ti_program_create(c, residual ? "dag" : "chain", TI_PROGRAM_SSA);
  int64_t d[4] = {1, 4, 6, 6}, wd[4] = {4, 4, 1, 1}, p1[4] = {0, 2, 3, 1}, p2[4] = {0, 3, 1, 2};
  static const int8_t w[16] = {1, 0, 0, 1, 0, 1, 1, 0, 1, -1, 0, 0, 0, 0, 1, 1};
  const ti_type *t = ti_type_get(c, TI_TYPE_VTENSOR, TI_DTYPE_I8, 4, d, TI_LAYOUT_ANY);
  const ti_type *wt = ti_type_get(c, TI_TYPE_VTENSOR, TI_DTYPE_I8, 4, wd, TI_LAYOUT_ANY);
  ti_named_attr a[2];
  const ti_attr *conv_attrs, *w_attrs, *t1, *t2;
  ti_builder b;
  ti_error e;
  ti_value *cur, *prev, *ops[2];
  int i;
  if (!p) return NULL;
  cur = prev = ti_program_add_arg(p, t);
  ti_error_clear(&e);
  ti_builder_init(&b, p, &e);
  if (ti_program_add_var(p, "w", wt, w, 0, &e) != TI_STATUS_SUCCESS) b.status = TI_STATUS_NO_MEMORY;
  a[0] = ti_named(c, "shift", ti_attr_int(c, 1));
  a[1] = ti_named(c, "clip_min", ti_attr_int(c, -128));
  conv_attrs = ti_attr_dict(c, a, 2);
  a[0] = ti_named(c, "name", ti_attr_string(c, "w", -1));
  w_attrs = ti_attr_dict(c, a, 1);
  a[0] = ti_named(c, "perm", ti_attr_int_array(c, p1, 4));
  t1 = ti_attr_dict(c, a, 1);
  a[0] = ti_named(c, "perm", ti_attr_int_array(c, p2, 4));
  t2 = ti_attr_dict(c, a, 1);
  for (i = 0; i < layers && b.status == TI_STATUS_SUCCESS; i++) {
    ti_value *in = cur;
    ops[0] = cur;
    ops[1] = ti_build1(&b, "builtin.get_parameter", 0, NULL, wt, w_attrs);
    cur = ti_build1(&b, "nn.quant_conv2d", 2, ops, NULL, conv_attrs);
    cur = ti_build1(&b, "nn.relu", 1, &cur, NULL, NULL);
    if (residual) {
      ops[0] = cur; ops[1] = prev;
      cur = ti_build1(&b, "nn.add", 2, ops, NULL, NULL);
    }
    prev = in;
    cur = ti_build1(&b, "nn.transpose", 1, &cur, NULL, t1);
    cur = ti_build1(&b, "nn.transpose", 1, &cur, NULL, t2);
  }
  if (b.status == TI_STATUS_SUCCESS) ti_build(&b, "builtin.return", 1, &cur, 0, NULL, NULL);
  if (b.status != TI_STATUS_SUCCESS) {
    fprintf(stderr, "quant_layers: build: %s\n", e.message);
    ti_program_destroy(p);
    return NULL;
  }
  if (n_ops) *n_ops = (residual ? 6 : 5) * layers + 1;
  return p;
}

#ifdef TT_H
/* The chain (no residual adds), failing the test when it cannot be built. */
static ti_program *quant_chain(ti_context *c, int layers, int *n_ops) {
  ti_program *p = quant_layers(c, layers, 0, n_ops);
  TT_CHECK(p != NULL);
  return p;
}
#endif
#endif
