/* The context's chunk cache (taskir.h >>core.context): the arenas whose
   lifetime the context bounds (programs, and the lowering's temporaries
   when they use the context's allocator) take their chunks from the
   context and give them back, so a process that runs a pipeline again and again reuses memory it
   already touched. Observed through a counting allocator: the second
   program's arena gets the first's chunks (nothing new allocated), the
   cache never holds more than the arenas held at once nor more than its
   limit, ti_context_trim and ti_context_destroy free it all, and objects
   that may outlive the context (a lowered graph) never take its chunks. */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "count_alloc.h"
#define TASKIR_IMPLEMENTATION
#include "taskir_onnx.h"
#include "taskir_lower.h"
#include "tt.h"
#include "quant_chain.h"
#include "onnx_write.h"

/* `pieces` allocations of `piece` bytes in p's arena, each written */
static void fill(ti_program *p, int pieces, size_t piece) {
  int i;
  for (i = 0; i < pieces; i++) {
    unsigned char *m = (unsigned char *)ti_arena_alloc_uninit(&p->arena, piece, 16);
    TT_CHECK(m != NULL);
    if (m) memset(m, i & 0xff, piece);
  }
}

TT_TEST(second_program_gets_the_first_programs_chunks) {
  count_alloc ca;
  ti_context *c;
  ti_program *p;
  size_t allocated, live, total;
  memset(&ca, 0, sizeof ca);
  c = ti_context_create(&ca);
  TT_CHECK(c != NULL);
  TT_EQ_INT(ti_context_cached_bytes(c), 0);
  p = ti_program_create(c, "a", TI_PROGRAM_SSA);
  fill(p, 300, 10000);   /* 3 MB: chunks doubling from 64 KiB to 1 MiB */
  total = p->arena.total;
  TT_CHECK(total >= 3000000);
  live = ca.live;
  ti_program_destroy(p);
  /* the chunks stay with the context: nothing given back to the allocator
     but the program record itself */
  TT_EQ_INT(ti_context_cached_bytes(c), total);
  TT_CHECK(ca.live + sizeof *p >= live && ca.live < live);
  allocated = ca.allocated;
  p = ti_program_create(c, "b", TI_PROGRAM_SSA);
  fill(p, 300, 10000);
  /* the same work again: no chunk allocated, only the program record */
  TT_EQ_INT(ca.allocated - allocated, sizeof *p);
  TT_CHECK(ti_context_cached_bytes(c) < total);
  ti_program_destroy(p);
  TT_CHECK(ti_context_cached_bytes(c) <= total);
  ti_context_destroy(c);
  TT_EQ_INT(ca.blocks, 0);
  TT_EQ_INT(ca.live, 0);
}

TT_TEST(big_chunks_are_reused_when_they_fit) {
  count_alloc ca;
  ti_context *c;
  ti_program *p;
  size_t allocated;
  memset(&ca, 0, sizeof ca);
  c = ti_context_create(&ca);
  p = ti_program_create(c, "a", TI_PROGRAM_SSA);
  fill(p, 1, (size_t)5 << 20);   /* a one-off chunk of its own size */
  ti_program_destroy(p);
  TT_CHECK(ti_context_cached_bytes(c) >= (size_t)5 << 20);
  allocated = ca.allocated;
  p = ti_program_create(c, "b", TI_PROGRAM_SSA);
  fill(p, 1, (size_t)4 << 20);   /* fits the cached 5 MiB (not more than half of it unused) */
  TT_EQ_INT(ca.allocated - allocated, sizeof *p + 0);
  ti_program_destroy(p);
  allocated = ca.allocated;
  p = ti_program_create(c, "c", TI_PROGRAM_SSA);
  fill(p, 1, (size_t)6 << 20);   /* does not fit: allocated */
  TT_CHECK(ca.allocated - allocated >= (size_t)6 << 20);
  ti_program_destroy(p);
  ti_context_destroy(c);
  TT_EQ_INT(ca.blocks, 0);
  TT_EQ_INT(ca.live, 0);
}

TT_TEST(cache_is_bounded_by_the_peak_and_the_limit) {
  count_alloc ca;
  ti_context *c;
  ti_program *p, *q;
  size_t base, total, allocated, both;
  memset(&ca, 0, sizeof ca);
  c = ti_context_create(&ca);
  p = ti_program_create(c, "0", TI_PROGRAM_SSA);   /* the context's own tables, interned attributes */
  ti_program_destroy(p);
  ti_context_trim(c);
  base = ca.live;
  p = ti_program_create(c, "a", TI_PROGRAM_SSA);
  fill(p, 200, 10000);
  total = p->arena.total;
  ti_program_destroy(p);
  TT_EQ_INT(ti_context_cached_bytes(c), total);
  TT_EQ_INT(ca.live, base + total);
  /* two programs at once, more than the cache: the cache's chunks first,
     then new ones; afterwards the cache holds what both held, no more */
  allocated = ca.allocated;
  p = ti_program_create(c, "b", TI_PROGRAM_SSA);
  q = ti_program_create(c, "c", TI_PROGRAM_SSA);
  fill(p, 20, 10000);
  fill(q, 400, 10000);
  both = p->arena.total + q->arena.total;
  TT_CHECK(ca.allocated - allocated < both - total / 2);
  ti_program_destroy(p);
  ti_program_destroy(q);
  TT_CHECK(ti_context_cached_bytes(c) <= both);
  TT_EQ_INT(ca.live, base + ti_context_cached_bytes(c));
  /* the limit: trims at once and bounds what comes back */
  ti_context_set_cache_limit(c, (size_t)1 << 20);
  TT_CHECK(ti_context_cached_bytes(c) <= (size_t)1 << 20);
  p = ti_program_create(c, "d", TI_PROGRAM_SSA);
  fill(p, 500, 10000);
  ti_program_destroy(p);
  TT_CHECK(ti_context_cached_bytes(c) <= (size_t)1 << 20);
  TT_EQ_INT(ca.live, base + ti_context_cached_bytes(c));
  /* 0: no cache at all */
  ti_context_set_cache_limit(c, 0);
  TT_EQ_INT(ti_context_cached_bytes(c), 0);
  TT_EQ_INT(ca.live, base);
  p = ti_program_create(c, "e", TI_PROGRAM_SSA);
  fill(p, 100, 10000);
  ti_program_destroy(p);
  TT_EQ_INT(ti_context_cached_bytes(c), 0);
  TT_EQ_INT(ca.live, base);
  /* trim keeps the limit: with no limit again, trim gives everything back */
  ti_context_set_cache_limit(c, (size_t)-1);
  p = ti_program_create(c, "f", TI_PROGRAM_SSA);
  fill(p, 100, 10000);
  ti_program_destroy(p);
  TT_CHECK(ti_context_cached_bytes(c) > 0);
  ti_context_trim(c);
  TT_EQ_INT(ti_context_cached_bytes(c), 0);
  TT_EQ_INT(ca.live, base);
  p = ti_program_create(c, "g", TI_PROGRAM_SSA);
  fill(p, 100, 10000);
  ti_program_destroy(p);
  TT_CHECK(ti_context_cached_bytes(c) > 0);   /* caching again after a trim */
  ti_context_destroy(c);
  TT_EQ_INT(ca.blocks, 0);
  TT_EQ_INT(ca.live, 0);
}


/* Lowering with the context's allocator: the program and the lowering's
   temporaries come from the cache the second time; the graph never does
   (it may outlive the context: it stays readable after ti_context_destroy). */
TT_TEST(lowering_temporaries_reuse_the_cache_the_graph_never_takes_it) {
  count_alloc ca, ga;
  ti_context *c;
  ti_task_graph g1, g2;
  ti_lower_options o;
  ti_error e;
  ti_program *p;
  size_t b1, b2, l1, l2;
  int32_t n_blocks;
  memset(&ca, 0, sizeof ca);
  memset(&ga, 0, sizeof ga);
  ti_error_clear(&e);
  c = ti_context_create(&ca);
  TT_EQ_INT(ti_nn_register(c, &e), TI_STATUS_SUCCESS);
  ti_lower_options_init(&o);
  o.alloc_user = &ca;   /* the context's allocator */
  b1 = ca.allocated;
  p = quant_chain(c, 3000, NULL);
  b1 = ca.allocated - b1;
  l1 = ca.allocated;
  TT_EQ_INT(ti_lower_to_task(p, &o, &g1, &e), TI_STATUS_SUCCESS);
  l1 = ca.allocated - l1;
  ti_program_destroy(p);
  TT_CHECK(ti_context_cached_bytes(c) > 0);
  b2 = ca.allocated;
  p = quant_chain(c, 3000, NULL);   /* from the cache */
  b2 = ca.allocated - b2;
  TT_CHECK_MSG(b2 * 2 < b1, "first program %lu bytes allocated, second %lu", (unsigned long)b1, (unsigned long)b2);
  l2 = ca.allocated;
  TT_EQ_INT(ti_lower_to_task(p, &o, &g2, &e), TI_STATUS_SUCCESS);
  l2 = ca.allocated - l2;
  TT_CHECK_MSG(l2 < l1, "first lowering %lu bytes allocated, second %lu", (unsigned long)l1, (unsigned long)l2);
  TT_EQ_INT(g1.n_blocks, g2.n_blocks);
  ti_program_destroy(p);
  ti_task_graph_free(&g2);
  /* a graph lowered with another allocator: only that allocator's */
  o.alloc_user = &ga;
  p = quant_chain(c, 100, NULL);
  TT_EQ_INT(ti_lower_to_task(p, &o, &g2, &e), TI_STATUS_SUCCESS);
  ti_program_destroy(p);
  TT_CHECK(ga.live > 0);
  ti_context_destroy(c);   /* before the graphs: they do not hang off it */
  n_blocks = g1.n_blocks;
  TT_EQ_INT(ti_task_check(&g1, NULL, &e), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_task_check(&g2, NULL, &e), TI_STATUS_SUCCESS);
  TT_EQ_INT(g1.n_blocks, n_blocks);
  ti_task_graph_free(&g1);
  ti_task_graph_free(&g2);
  TT_EQ_INT(ca.blocks, 0);
  TT_EQ_INT(ca.live, 0);
  TT_EQ_INT(ga.blocks, 0);
}

/* Lowers a 3-layer chain failing the k-th allocation, k = 1, 2, ... until
   one succeeds; every failure must be NO_MEMORY and leave the graph empty.
   reuse: into one graph kept across the attempts (ti_lower_options.
   reuse_graph), else into a new graph each time, and the cache trimmed
   every other attempt. Returns the failures. */
static int lower_failing_each_allocation(ti_context *c, count_alloc *ca, int reuse) {
  ti_lower_options o;
  ti_task_graph g;
  ti_error e;
  long k;
  int ok = 0, failures = 0;
  ti_error_clear(&e);
  ti_lower_options_init(&o);
  o.alloc_user = ca;
  o.reuse_graph = reuse;
  ti_task_graph_init(&g, ca);
  for (k = 0; k < 100000 && !ok; k++) {
    ti_program *p = quant_chain(c, 3, NULL);
    ti_status st;
    ca->fail_at = ca->calls + k + 1;
    st = ti_lower_to_task(p, &o, &g, &e);
    ca->fail_at = 0;
    if (st == TI_STATUS_SUCCESS) ok = 1;
    else {
      failures++;
      TT_CHECK_MSG(st == TI_STATUS_NO_MEMORY, "call %ld: %s: %s", k, ti_status_name(st), e.message);
      TT_EQ_INT(g.n_blocks, 0);
    }
    ti_program_destroy(p);
    if (!reuse) {
      ti_task_graph_free(&g);
      if (k % 2) ti_context_trim(c);   /* with and without cached chunks */
    }
  }
  TT_CHECK(ok);
  if (ok) TT_EQ_INT(ti_task_check(&g, NULL, &e), TI_STATUS_SUCCESS);
  ti_task_graph_free(&g);
  return failures;
}

/* Allocation failures while the lowering's temporaries come from the cache
   or the context's allocator: clean, nothing leaks, the cache stays usable;
   the same into one reused graph, which each failure leaves empty and
   usable. */
TT_TEST(every_allocation_failure_with_the_cache_is_clean) {
  count_alloc ca;
  ti_context *c;
  ti_error e;
  memset(&ca, 0, sizeof ca);
  ti_error_clear(&e);
  c = ti_context_create(&ca);
  TT_EQ_INT(ti_nn_register(c, &e), TI_STATUS_SUCCESS);
  TT_CHECK(lower_failing_each_allocation(c, &ca, 0) > 10);
  TT_CHECK(lower_failing_each_allocation(c, &ca, 1) > 10);
  ti_context_destroy(c);
  TT_EQ_INT(ca.blocks, 0);
  TT_EQ_INT(ca.live, 0);
}

/* ONNX import twice in one context: the program's arena comes from the
   cache the second time (the decoded model and the importer's temporaries,
   freed within the import, use the allocator: a graph built later in the
   same run can reuse that memory, which cached chunks it cannot). */
TT_TEST(onnx_import_reuses_the_cache) {
  count_alloc ca;
  ti_context *c;
  ti_error e;
  ti_buffer m;
  ti_program *p;
  size_t a1, a2, program_arena;
  int i;
  memset(&ca, 0, sizeof ca);
  ti_error_clear(&e);
  c = ti_context_create(&ca);
  TT_EQ_INT(ti_nn_register(c, &e), TI_STATUS_SUCCESS);
  ti_buffer_init(&m, NULL);
  {   /* x [1,8] -> Relu 2000 times */
    ti_buffer g, nd;
    char a[32], b[32], nm[32];
    const char *in[2] = {a, NULL}, *out[2] = {b, NULL};
    static const int64_t dims[2] = {1, 8};
    ti_buffer_init(&g, NULL);
    ti_buffer_init(&nd, NULL);
    for (i = 0; i < 2000; i++) {
      snprintf(a, sizeof a, "v%d", i);
      snprintf(b, sizeof b, "v%d", i + 1);
      snprintf(nm, sizeof nm, "relu%d", i);
      w_node(&g, &nd, nm, "Relu", in, out);
    }
    w_vi(&nd, "v0", 2, dims); w_msg(&g, 11, &nd);
    w_vi(&nd, b, 2, dims); w_msg(&g, 12, &nd);
    w_model(&m, &g, 13);
    ti_buffer_free(&g);
    ti_buffer_free(&nd);
  }
  a1 = ca.allocated;
  TT_EQ_INT(ti_onnx_import(c, m.data, m.len, NULL, &p, &e), TI_STATUS_SUCCESS);
  a1 = ca.allocated - a1;
  program_arena = p->arena.total;
  TT_CHECK(program_arena > 0);
  ti_program_destroy(p);
  TT_EQ_INT(ti_context_cached_bytes(c), program_arena);
  a2 = ca.allocated;
  TT_EQ_INT(ti_onnx_import(c, m.data, m.len, NULL, &p, &e), TI_STATUS_SUCCESS);
  a2 = ca.allocated - a2;
  TT_CHECK_MSG(a2 + program_arena <= a1, "first import %lu bytes, second %lu, the program's arena %lu", (unsigned long)a1,
               (unsigned long)a2, (unsigned long)program_arena);
  TT_EQ_INT(p->n_ops, 2001);
  ti_program_destroy(p);
  ti_buffer_free(&m);
  ti_context_destroy(c);
  TT_EQ_INT(ca.blocks, 0);
  TT_EQ_INT(ca.live, 0);
}


/* ti_arena_reset keeps the chunks: filled again the same way, the arena
   asks the allocator for nothing; a small request does not take a big
   chunk; zeroed allocations are zeroed again; ti_arena_free frees all. */
TT_TEST(arena_reset_keeps_its_chunks_for_the_next_fill) {
  count_alloc ca;
  ti_arena a;
  size_t allocated, total;
  int round, i;
  memset(&ca, 0, sizeof ca);
  ti_arena_init(&a, &ca);
  allocated = total = 0;
  for (round = 0; round < 3; round++) {
    unsigned char *big, *z;
    ti_arena_chunk *c;
    int in_big = 0;
    for (i = 0; i < 300; i++) {   /* 4.7 MiB in 16 KiB pieces: the doubling chunks, then 1 MiB ones */
      unsigned char *m = (unsigned char *)ti_arena_alloc_uninit(&a, 16384, 16);
      TT_CHECK(m != NULL);
      if (m) memset(m, round + 1, 16384);
    }
    big = (unsigned char *)ti_arena_alloc_uninit(&a, (size_t)3 << 20, 16);   /* a one-off chunk */
    TT_CHECK(big != NULL);
    if (big) memset(big, 7, (size_t)3 << 20);
    z = (unsigned char *)ti_arena_alloc(&a, 4096, 8);   /* zeroed, in reused memory from round 1 */
    TT_CHECK(z != NULL);
    for (i = 0; z && i < 4096; i++) TT_CHECK(z[i] == 0);
    for (c = a.head; c; c = c->next)
      if (z >= (unsigned char *)c && z < (unsigned char *)c + TI__CHUNK_HEADER + c->cap && c->cap > TI__ARENA_MAX_CHUNK) in_big = 1;
    TT_CHECK_MSG(!in_big, "round %d: a small allocation went into the big chunk", round);
    if (round == 0) { allocated = ca.allocated; total = a.total; }
    else {
      TT_CHECK_MSG(ca.allocated == allocated, "round %d: %lu bytes allocated, %lu in the first", round,
                   (unsigned long)ca.allocated, (unsigned long)allocated);
      TT_EQ_INT(a.total, total);
    }
    ti_arena_reset(&a);
    TT_CHECK(a.head == NULL && a.spare != NULL);
    TT_EQ_INT(ca.live, total);   /* kept, not freed */
  }
  ti_arena_free(&a);
  TT_EQ_INT(a.total, 0);
  TT_CHECK(a.spare == NULL);
  TT_EQ_INT(ca.blocks, 0);
  TT_EQ_INT(ca.live, 0);
  {   /* pooled: reset keeps the chunks lent; free gives them to the cache */
    ti_context *c = ti_context_create(&ca);
    ti_arena_init_pooled(&a, c);
    for (i = 0; i < 100; i++) TT_CHECK(ti_arena_alloc_uninit(&a, 16384, 16) != NULL);
    total = a.total;
    ti_arena_reset(&a);
    TT_EQ_INT(ti_context_cached_bytes(c), 0);
    for (i = 0; i < 100; i++) TT_CHECK(ti_arena_alloc_uninit(&a, 16384, 16) != NULL);
    TT_EQ_INT(a.total, total);
    ti_arena_free(&a);
    TT_EQ_INT(ti_context_cached_bytes(c), total);
    ti_context_destroy(c);
    TT_EQ_INT(ca.blocks, 0);
  }
}

static void encode_or_fail(const ti_task_graph *g, ti_buffer *b) {
  ti_error e;
  ti_error_clear(&e);
  ti_buffer_init(b, NULL);
  TT_EQ_INT(ti_task_encode(g, b, &e), TI_STATUS_SUCCESS);
}

/* Lowering into a reused graph (ti_lower_options.reuse_graph): the result
   is byte for byte the graph a fresh lowering gives, also after a bigger
   graph and after a failure; the second lowering of the same size takes no
   memory for the graph; a graph of another allocator is freed first. */
TT_TEST(lowering_into_a_reused_graph) {
  count_alloc ca, ga, oa;
  ti_context *c;
  ti_task_graph g, fresh;
  ti_lower_options o;
  ti_error e;
  ti_program *p;
  ti_buffer want, got;
  size_t first, second, graph_bytes;
  ti_task_block *blocks;
  memset(&ca, 0, sizeof ca);
  memset(&ga, 0, sizeof ga);
  memset(&oa, 0, sizeof oa);
  ti_error_clear(&e);
  c = ti_context_create(&ca);
  TT_EQ_INT(ti_nn_register(c, &e), TI_STATUS_SUCCESS);
  ti_lower_options_init(&o);
  /* the reference: 40 layers into a new graph */
  p = quant_chain(c, 40, NULL);
  TT_EQ_INT(ti_lower_to_task(p, NULL, &fresh, &e), TI_STATUS_SUCCESS);
  ti_program_destroy(p);
  encode_or_fail(&fresh, &want);
  ti_task_graph_free(&fresh);
  /* 2000 layers, then 2000 again: the second allocates nothing for the graph */
  o.alloc_user = &ga;
  o.reuse_graph = 1;
  ti_task_graph_init(&g, &ga);
  p = quant_chain(c, 2000, NULL);
  first = ga.allocated;
  TT_EQ_INT(ti_lower_to_task(p, &o, &g, &e), TI_STATUS_SUCCESS);
  first = ga.allocated - first;
  ti_program_destroy(p);
  graph_bytes = g.arena.total + (size_t)g.cap_blocks * sizeof *g.blocks + (size_t)g.cap_edges * sizeof *g.edges;
  blocks = g.heap_blocks;
  p = quant_chain(c, 2000, NULL);
  second = ga.allocated;
  TT_EQ_INT(ti_lower_to_task(p, &o, &g, &e), TI_STATUS_SUCCESS);
  second = ga.allocated - second;
  ti_program_destroy(p);
  TT_CHECK_MSG(second + graph_bytes <= first, "first lowering %lu bytes, second %lu, the graph %lu", (unsigned long)first,
               (unsigned long)second, (unsigned long)graph_bytes);
  TT_CHECK(g.heap_blocks == blocks);
  TT_EQ_INT(ti_task_check(&g, NULL, &e), TI_STATUS_SUCCESS);
  /* a failure (a float program) leaves it empty, its memory kept */
  {
    ti_program *f = ti_program_create(c, "float", TI_PROGRAM_SSA);
    int64_t d[2] = {1, 4};
    ti_value *x = ti_program_add_arg(f, ti_type_get(c, TI_TYPE_VTENSOR, TI_DTYPE_F32, 2, d, TI_LAYOUT_ANY));
    ti_builder b;
    ti_builder_init(&b, f, &e);
    TT_CHECK(ti_build(&b, "builtin.return", 1, &x, 0, NULL, NULL) != NULL);
    TT_EQ_INT(ti_lower_to_task(f, &o, &g, &e), TI_STATUS_NOT_SUPPORTED);
    TT_EQ_INT(g.n_blocks, 0);
    TT_EQ_INT(g.n_edges, 0);
    TT_CHECK(g.heap_blocks == blocks);
    ti_program_destroy(f);
  }
  /* then 40 layers into it: the same bytes as the fresh lowering */
  p = quant_chain(c, 40, NULL);
  TT_EQ_INT(ti_lower_to_task(p, &o, &g, &e), TI_STATUS_SUCCESS);
  ti_program_destroy(p);
  encode_or_fail(&g, &got);
  TT_EQ_INT(got.len, want.len);
  TT_CHECK(got.len == want.len && memcmp(got.data, want.data, want.len) == 0);
  ti_buffer_free(&got);
  /* a graph of another allocator: freed, then lowered into afresh */
  o.alloc_user = &oa;
  p = quant_chain(c, 40, NULL);
  TT_EQ_INT(ti_lower_to_task(p, &o, &g, &e), TI_STATUS_SUCCESS);
  ti_program_destroy(p);
  TT_EQ_INT(ga.blocks, 0);
  TT_CHECK(g.arena.alloc_user == &oa);
  encode_or_fail(&g, &got);
  TT_CHECK(got.len == want.len && memcmp(got.data, want.data, want.len) == 0);
  ti_buffer_free(&got);
  ti_task_graph_free(&g);
  TT_EQ_INT(oa.blocks, 0);
  /* ti_task_graph_reset with the builder: the arrays stay, filled again */
  ti_task_graph_init(&g, &ga);
  {
    ti_task_shape s;
    int round, i;
    memset(&s, 0, sizeof s);
    for (round = 0; round < 2; round++) {
      for (i = 0; i < 100; i++) TT_CHECK(ti_task_add_block(&g, i, TI_BLOCK_SI, TI_DTYPE_I8, &s) != NULL);
      TT_EQ_INT(g.n_blocks, 100);
      if (round == 0) { blocks = g.blocks; first = ga.allocated; }
      else { TT_CHECK(g.blocks == blocks); TT_EQ_INT(ga.allocated, first); }
      ti_task_graph_reset(&g);
      TT_EQ_INT(g.n_blocks, 0);
    }
  }
  ti_task_graph_free(&g);
  ti_buffer_free(&want);
  ti_context_destroy(c);
  TT_EQ_INT(ca.blocks, 0);
  TT_EQ_INT(ga.blocks, 0);
}

int main(void) {
  TT_RUN(second_program_gets_the_first_programs_chunks);
  TT_RUN(big_chunks_are_reused_when_they_fit);
  TT_RUN(cache_is_bounded_by_the_peak_and_the_limit);
  TT_RUN(lowering_temporaries_reuse_the_cache_the_graph_never_takes_it);
  TT_RUN(every_allocation_failure_with_the_cache_is_clean);
  TT_RUN(onnx_import_reuses_the_cache);
  TT_RUN(arena_reset_keeps_its_chunks_for_the_next_fill);
  TT_RUN(lowering_into_a_reused_graph);
  return tt_finish();
}
