/* tests/tt_task.h - building Task IR graphs in tests (after tt.h and the
   taskir headers): shp() a shape from its non-zero dims, B() a block by id,
   add() a block that must be added. */
#ifndef TT_TASK_H
#define TT_TASK_H

static ti_task_shape shp(int32_t ny, int32_t nx, int32_t nf, int32_t nr, int32_t nky, int32_t nkx) {
  ti_task_shape s;
  memset(&s, 0, sizeof s);
  if (ny) ti_task_shape_set(&s, TI_SHAPE_HAS_NY, ny);
  if (nx) ti_task_shape_set(&s, TI_SHAPE_HAS_NX, nx);
  if (nf) ti_task_shape_set(&s, TI_SHAPE_HAS_NF, nf);
  if (nr) ti_task_shape_set(&s, TI_SHAPE_HAS_NR, nr);
  if (nky) ti_task_shape_set(&s, TI_SHAPE_HAS_NKY, nky);
  if (nkx) ti_task_shape_set(&s, TI_SHAPE_HAS_NKX, nkx);
  return s;
}
static ti_task_block *B(ti_task_graph *g, int32_t id) { return (ti_task_block *)ti_task_find_block(g, id); }
static void add(ti_task_graph *g, int32_t id, ti_block_type t, ti_dtype p, ti_task_shape s) {
  TT_CHECK(ti_task_add_block(g, id, t, p, &s) != NULL);
}
#endif
