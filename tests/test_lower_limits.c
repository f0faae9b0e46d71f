/* The lowering's memory (taskir_lower.h) and the Task IR builder it uses:
   bytes per op of lowering a 10^4-op chain stay within a budget (allocated
   and peak, through a counting allocator), every allocation failure of the
   lowering is clean (NO_MEMORY, nothing leaks), and the builder appends to
   block and edge arrays it did not make (a decoder's exact-size arrays). */
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "count_alloc.h"
#define TASKIR_IMPLEMENTATION
#include "taskir_lower.h"
#include "tt.h"
#include "quant_chain.h"


/* The budget of the 10^4-op chain, for the lowering's own allocations (the
   graph and its temporaries; o.alloc_user): about 1.5 KB allocated and 1.4
   KB held at the peak per op before the relu fused into the requantising
   CCMPB (7 blocks of 248 bytes per layer of 5 ops; 5 blocks since, 1463
   and 1354 bytes), interfaces 128 bytes, clusters 80; a value's record 32 bytes;
   reallocs count their growth), with a fifth to spare; 1149 and 1039 bytes
   since arena chunks stop doubling at 1 MiB (the unused tails of chunks
   doubled to 8 MiB and more counted); it was 1.6 KB with 72-byte value
   records and copied transpose steps, and over 7 KB per op when arena
   arrays grew by copies. */
#define BUDGET_ALLOCATED_PER_OP 1408
#define BUDGET_PEAK_PER_OP 1280

TT_TEST(chain_bytes_per_op) {
  count_alloc fa;
  ti_context *c = ti_context_create(NULL);
  ti_lower_options o;
  ti_task_graph g;
  ti_error e;
  int n_ops;
  ti_program *p;
  double alloc_op, peak_op;
  memset(&fa, 0, sizeof fa);
  ti_error_clear(&e);
  TT_EQ_INT(ti_nn_register(c, &e), TI_STATUS_SUCCESS);
  p = quant_chain(c, 2000, &n_ops);
  TT_CHECK(n_ops >= 10000);
  ti_lower_options_init(&o);
  o.alloc_user = &fa;
  TT_EQ_INT(ti_lower_to_task(p, &o, &g, &e), TI_STATUS_SUCCESS);
  TT_EQ_INT(g.n_blocks, 2000 * 5 + 1 + 2);   /* 5 per layer (SIC SW CC SI CCMPB, the relu fused); INPUT; SI OUTPUT */
  alloc_op = (double)fa.allocated / n_ops;
  peak_op = (double)fa.peak / n_ops;
  if (getenv("TT_VERBOSE")) printf("    %d ops: %.0f bytes allocated, %.0f peak per op\n", n_ops, alloc_op, peak_op);
  TT_CHECK_MSG(alloc_op <= BUDGET_ALLOCATED_PER_OP, "%.0f bytes allocated per op (budget %d)", alloc_op, BUDGET_ALLOCATED_PER_OP);
  TT_CHECK_MSG(peak_op <= BUDGET_PEAK_PER_OP, "peak %.0f bytes per op (budget %d)", peak_op, BUDGET_PEAK_PER_OP);
  ti_task_graph_free(&g);
  TT_EQ_INT(fa.blocks, 0);
  TT_EQ_INT(fa.live, 0);
  ti_program_destroy(p);
  ti_context_destroy(c);
}

/* The lowering's allocations (graph, temporaries) fail one at a time: each
   failure is NO_MEMORY with a message, the graph is left empty and nothing
   leaks; with no failure the graph is the same as without the allocator. */
TT_TEST(every_allocation_failure_is_clean) {
  ti_context *c = ti_context_create(NULL);
  ti_error e;
  long k;
  int n_ops, ok = 0, failures = 0;
  ti_error_clear(&e);
  TT_EQ_INT(ti_nn_register(c, &e), TI_STATUS_SUCCESS);
  for (k = 0; k < 100000 && !ok; k++) {
    count_alloc fa;
    ti_lower_options o;
    ti_task_graph g;
    ti_program *p = quant_chain(c, 3, &n_ops);
    ti_status st;
    memset(&fa, 0, sizeof fa);
    fa.fail_at = k + 1;
    ti_lower_options_init(&o);
    o.alloc_user = &fa;
    st = ti_lower_to_task(p, &o, &g, &e);
    if (st == TI_STATUS_SUCCESS) {
      ok = 1;
      TT_EQ_INT(g.n_blocks, 3 * 5 + 3);
      fa.fail_at = 0;
      TT_EQ_INT(ti_task_check(&g, NULL, &e), TI_STATUS_SUCCESS);
    } else {
      failures++;
      TT_CHECK_MSG(st == TI_STATUS_NO_MEMORY, "call %ld: %s: %s", k, ti_status_name(st), e.message);
      TT_CHECK_MSG(e.message[0] != 0, "call %ld: no message", k);
      TT_EQ_INT(g.n_blocks, 0);
      TT_EQ_INT(g.n_edges, 0);
    }
    ti_task_graph_free(&g);
    TT_CHECK_MSG(fa.blocks == 0, "call %ld: %ld blocks leaked", k, fa.blocks);
    ti_program_destroy(p);
  }
  TT_CHECK(ok);
  TT_CHECK(failures > 20);
  ti_context_destroy(c);
}

/* g->blocks / g->edges set by hand at their exact size (as a decoder
   leaves them): the builder copies them into its own arrays before it
   appends (it used to write past an array of 9), and keeps them. */
TT_TEST(builder_appends_to_arrays_it_did_not_make) {
  count_alloc fa;
  ti_task_graph g;
  ti_task_shape s = ti_task_shape_make(1, 1, 4, 0, 0, 0, 0, 0);
  int32_t i;
  memset(&fa, 0, sizeof fa);
  ti_task_graph_init(&g, &fa);
  g.blocks = (ti_task_block *)ti_arena_array(&g.arena, 9, sizeof *g.blocks, 8);
  g.edges = (ti_task_edge *)ti_arena_array(&g.arena, 3, sizeof *g.edges, 8);
  TT_CHECK(g.blocks && g.edges);
  for (i = 0; i < 9; i++) {
    g.blocks[i].has = TI_BLOCK_HAS_ID | TI_BLOCK_HAS_TYPE;
    g.blocks[i].id = 100 + i;
    g.blocks[i].type = TI_BLOCK_SI;
  }
  for (i = 0; i < 3; i++) {
    g.edges[i].has = TI_EDGE_HAS_ID;
    g.edges[i].id = 50 + i;
  }
  g.n_blocks = 9;
  g.n_edges = 3;
  for (i = 0; i < 40; i++) TT_CHECK(ti_task_add_block(&g, i, TI_BLOCK_SI, TI_DTYPE_I8, &s) != NULL);
  for (i = 0; i < 30; i++) TT_CHECK(ti_task_connect(&g, &g.blocks[9 + i], 0, NULL, NULL, &g.blocks[10 + i], 0, NULL, NULL) != NULL);
  TT_EQ_INT(g.n_blocks, 49);
  TT_EQ_INT(g.n_edges, 33);
  for (i = 0; i < 9; i++) TT_EQ_INT(g.blocks[i].id, 100 + i);
  for (i = 0; i < 40; i++) TT_EQ_INT(g.blocks[9 + i].id, i);
  for (i = 0; i < 3; i++) TT_EQ_INT(g.edges[i].id, 50 + i);
  for (i = 0; i < 30; i++) {   /* new ids after the largest one */
    TT_EQ_INT(g.edges[3 + i].id, 53 + i);
    TT_EQ_INT(g.edges[3 + i].src_block_id, i);
    TT_EQ_INT(g.edges[3 + i].dst_block_id, i + 1);
  }
  /* a block's clusters up to the one asked for, at once; attributes in order */
  TT_CHECK(ti_task_connect(&g, &g.blocks[0], 0, NULL, NULL, &g.blocks[1], 3, NULL, NULL) != NULL);
  TT_EQ_INT(g.blocks[1].n_inputs, 4);
  TT_EQ_INT(g.blocks[1].inputs[2].n_interfaces, 0);
  TT_EQ_INT(g.blocks[1].inputs[3].n_interfaces, 1);
  for (i = 0; i < 12; i++) TT_EQ_INT(ti_task_add_attr(&g, &g.blocks[2], TI_TASK_ATTR_KERNEL_X, i), TI_STATUS_SUCCESS);
  TT_EQ_INT(g.blocks[2].n_attrs, 12);
  for (i = 0; i < 12; i++) {
    TT_EQ_INT(g.blocks[2].attrs[i].int_value, i);
    TT_CHECK(g.blocks[2].attrs[i].float_value == 0.0f);
  }
  ti_task_graph_free(&g);
  TT_EQ_INT(fa.blocks, 0);
}

/* One block read by many (a value with many users): its output cluster's
   interfaces grow geometrically, so the arena holds memory linear in the
   edges (it was quadratic: every new interface copied the earlier ones). */
TT_TEST(one_block_read_by_many_costs_linear_memory) {
  enum { N = 20000 };
  count_alloc fa;
  ti_task_graph g;
  ti_task_shape s = ti_task_shape_make(1, 1, 4, 0, 0, 0, 0, 0);
  int32_t i;
  memset(&fa, 0, sizeof fa);
  ti_task_graph_init(&g, &fa);
  TT_CHECK(ti_task_add_block(&g, 0, TI_BLOCK_INPUT, TI_DTYPE_I8, &s) != NULL);
  for (i = 1; i <= N; i++) {
    TT_CHECK(ti_task_add_block(&g, i, TI_BLOCK_SI, TI_DTYPE_I8, &s) != NULL);
    TT_CHECK(ti_task_connect(&g, &g.blocks[0], 0, NULL, NULL, &g.blocks[i], 0, NULL, NULL) != NULL);
  }
  TT_EQ_INT(g.blocks[0].outputs[0].n_interfaces, N);
  for (i = 0; i < N; i++) TT_EQ_INT(g.blocks[0].outputs[0].interfaces[i].edge_id, i);
  /* per edge: 2 interfaces (128 bytes), 1 cluster (80), the source's
     interfaces doubling (<= 3 x 128 in all), a block (248) and an edge (32)
     growing geometrically (<= 2x each) */
  TT_CHECK_MSG(fa.peak <= (size_t)N * 2048 + ((size_t)1 << 20), "%lu bytes for %d edges", (unsigned long)fa.peak, N);
  ti_task_graph_free(&g);
  TT_EQ_INT(fa.blocks, 0);
}

int main(void) {
  TT_RUN(chain_bytes_per_op);
  TT_RUN(every_allocation_failure_is_clean);
  TT_RUN(builder_appends_to_arrays_it_did_not_make);
  TT_RUN(one_block_read_by_many_costs_linear_memory);
  return tt_finish();
}
