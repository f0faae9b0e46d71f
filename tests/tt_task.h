/* tests/tt_task.h - building Task IR graphs in tests (after tt.h and the
   taskir headers): B() a block by id,
   add() a block that must be added. */
#ifndef TT_TASK_H
#define TT_TASK_H

static ti_task_block *B(ti_task_graph *g, int32_t id) { return (ti_task_block *)ti_task_find_block(g, id); }
static void add(ti_task_graph *g, int32_t id, ti_block_type t, ti_dtype p, ti_task_shape s) {
  TT_CHECK(ti_task_add_block(g, id, t, p, &s) != NULL);
}
#endif
