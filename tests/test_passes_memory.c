/* The generic passes take memory in proportion to what they change, not to
   the program: on a chain of 2*10^4 ops (relu / add / relu_ on tensors,
   duplicated subexpressions, dead ops, as bench_nn_passes builds) each pass
   takes at most 32 KiB + 1 byte per op through TASKIR_MALLOC/REALLOC outside
   the program's arena, and puts into the arena only the ops that stay; so
   does inplace-to-outofplace where every in-place op writes a buffer of its
   own (a network's relu_ after each layer). */
#include <stdlib.h>

#include "count_alloc.h"
#define TASKIR_IMPLEMENTATION
#include "taskir.h"
#include "tt.h"
#include "passes_chain.h"

#define N_OPS 20000

/* n ops: y = relu(cur); relu_(y); cur = add(y, y), ...: each relu_ writes
   its own buffer, read again after the write. */
static ti_program *layers(ti_context *c, int n) {
  ti_program *p = ti_program_create(c, "layers", TI_PROGRAM_SSA);
  int64_t d[1] = {16};
  const ti_type *t = ti_type_get(c, TI_TYPE_TENSOR, TI_DTYPE_F32, 1, d, TI_LAYOUT_ANY);
  ti_builder b;
  ti_error e;
  ti_value *cur = ti_program_add_arg(p, t), *ops[2];
  int i;
  ti_error_clear(&e);
  ti_builder_init(&b, p, &e);
  for (i = 0; i < n / 3; i++) {
    ops[0] = cur;
    ops[0] = ops[1] = ti_build1(&b, "nn.relu", 1, ops, NULL, NULL);
    ti_build1(&b, "nn.relu_", 1, ops, NULL, NULL);
    cur = ti_build1(&b, "nn.add", 2, ops, NULL, NULL);
  }
  ops[0] = cur;
  ti_build(&b, "builtin.return", 1, ops, 0, NULL, NULL);
  return b.status == TI_STATUS_SUCCESS ? p : NULL;
}

/* Bytes of the arena's chunks in use (all but the head chunk's free room). */
static size_t arena_in_use(const ti_arena *a) { return a->total - (a->cap - a->used); }

/* Runs pass `name` on a fresh chain; *heap gets the bytes it took outside
   the arena, *arena what it put into the arena, *ops_added how many ops the
   program gained. */
static int run_pass(ti_context *c, const char *name, int own_buffers, size_t *heap, size_t *arena, int64_t *ops_added) {
  ti_program *p = own_buffers ? layers(c, N_OPS) : passes_chain(c, N_OPS);
  const ti_pass *ps = ti_find_pass(name);
  ti_error e;
  size_t t0, a0, at0;
  int64_t n0;
  ti_status s;
  if (!p || !ps) return 0;
  ti_error_clear(&e);
  /* no chunk cache: every arena chunk comes from the allocator, so its
     count minus the arena's growth is what the pass took outside the arena */
  ti_context_set_cache_limit(c, 0);
  t0 = count_alloc_default.allocated;
  a0 = arena_in_use(&p->arena);
  at0 = p->arena.total;
  n0 = p->n_ops;
  s = ps->run(p, NULL, &e);
  *arena = arena_in_use(&p->arena) - a0;
  *heap = count_alloc_default.allocated - t0 - (p->arena.total - at0);
  *ops_added = p->n_ops - n0;
  if (s == TI_STATUS_SUCCESS) s = ti_verify(p, &e);
  if (s != TI_STATUS_SUCCESS) fprintf(stderr, "    %s: %s\n", name, e.message);
  ti_program_destroy(p);
  return s == TI_STATUS_SUCCESS;
}

TT_TEST(passes_take_memory_for_what_they_change) {
  static const char *const passes[] = {"dce", "cse", "constant-fold", "inplace-to-outofplace", "maximize-value-semantics"};
  ti_context *c = ti_context_create(NULL);
  ti_error e;
  size_t k;
  ti_error_clear(&e);
  TT_CHECK(c && ti_nn_register(c, &e) == TI_STATUS_SUCCESS);
  for (k = 0; c && k < sizeof passes / sizeof *passes; k++) {
    size_t heap = 0, arena = 0, op_bytes = sizeof(ti_op) + sizeof(ti_use) + sizeof(ti_value);
    int64_t added = 0;
    TT_CHECK_MSG(run_pass(c, passes[k], 0, &heap, &arena, &added), "%s failed", passes[k]);
    TT_CHECK_MSG(heap <= 32768 + N_OPS, "%s took %zu bytes outside the arena on %d ops", passes[k], heap, N_OPS);
    /* maximize-value-semantics adds a to_vtensor per read of the written
       argument (N_OPS / 8 dead relus, the first two relus) and a to_tensor
       for the result returned; the
       others add nothing (dce and cse remove ops). The arena holds the ops
       added (each within 2x of an op with one operand and one result, for
       alignment) and none that were made and erased again. */
    TT_CHECK_MSG(k == 4 ? added == N_OPS / 8 + 3 : added <= 0, "%s added %lld ops", passes[k], (long long)added);
    TT_CHECK_MSG(arena <= (size_t)(added > 0 ? added : 0) * 2 * op_bytes + 4096,
                 "%s put %zu bytes into the arena for %lld new ops", passes[k], arena, (long long)added);
  }
  if (c) ti_context_destroy(c);
}

TT_TEST(inplace_to_outofplace_on_many_buffers_takes_no_memory_per_conversion) {
  ti_context *c = ti_context_create(NULL);
  ti_error e;
  size_t heap = 0, arena = 0;
  int64_t added = 0;
  ti_error_clear(&e);
  TT_CHECK(c && ti_nn_register(c, &e) == TI_STATUS_SUCCESS);
  if (!c) return;
  TT_CHECK(run_pass(c, "inplace-to-outofplace", 1, &heap, &arena, &added));
  TT_CHECK_MSG(heap <= 32768 + N_OPS, "took %zu bytes outside the arena for %d conversions", heap, N_OPS / 3);
  TT_EQ_INT(added, 0);
  TT_CHECK_MSG(arena <= 4096, "put %zu bytes into the arena", arena);
  ti_context_destroy(c);
}

int main(void) {
  TT_RUN(passes_take_memory_for_what_they_change);
  TT_RUN(inplace_to_outofplace_on_many_buffers_takes_no_memory_per_conversion);
  return tt_finish();
}
