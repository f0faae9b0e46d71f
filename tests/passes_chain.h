/* tests/passes_chain.h - the program the generic passes are measured on
   (bench_nn_passes) and held to a memory budget on (test_passes_memory):
   n ops on f32[16] tensors, n/4 times: a = relu(cur), a2 = relu(cur) (CSE
   fodder), cur = add(a, a2), and relu or relu_ of the argument (dead, or in
   place). NULL if building fails. Include after taskir.h. */
#ifndef PASSES_CHAIN_H
#define PASSES_CHAIN_H
static ti_program *passes_chain(ti_context *c, int n) {
  ti_program *p = ti_program_create(c, "chain", TI_PROGRAM_SSA);
  int64_t d[1] = {16};
  const ti_type *t = ti_type_get(c, TI_TYPE_TENSOR, TI_DTYPE_F32, 1, d, TI_LAYOUT_ANY);
  ti_builder b;
  ti_error e;
  ti_value *x = ti_program_add_arg(p, t), *cur = x, *ops[2];
  int i;
  ti_error_clear(&e);
  ti_builder_init(&b, p, &e);
  for (i = 0; i < n / 4; i++) {
    ti_value *a, *a2;
    ops[0] = cur;
    a = ti_build1(&b, "nn.relu", 1, ops, NULL, NULL);
    a2 = ti_build1(&b, "nn.relu", 1, ops, NULL, NULL);
    ops[0] = a; ops[1] = a2;
    cur = ti_build1(&b, "nn.add", 2, ops, NULL, NULL);
    ops[0] = x;
    ti_build1(&b, i % 2 ? "nn.relu" : "nn.relu_", 1, ops, NULL, NULL);
  }
  ops[0] = cur;
  ti_build(&b, "builtin.return", 1, ops, 0, NULL, NULL);
  if (b.status != TI_STATUS_SUCCESS) {
    ti_program_destroy(p);
    return NULL;
  }
  return p;
}
#endif
