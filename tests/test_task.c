/* The task dialect: builder, import into a graph program, text form, export. */
#define TASKIR_IMPLEMENTATION
#include "taskir.h"
#include "tt.h"


/* SI(2x2x3) -> CVS -> SI -> OUTPUT, plus SB bias; one edge with a RESHAPE. */
static void build_small(ti_task_graph *g) {
  int32_t dims[3] = {2, 2, 3}, bdims[1] = {3}, perm[3] = {2, 1, 0};
  int32_t vals[12], bias[3] = {100, -200, 70000};
  ti_task_shape s = ti_task_shape_make(2, 2, 3, 0, 0, 0, 0, 0), sb;
  ti_task_block *in, *b, *c, *o, *out;
  ti_task_edge *e;
  int i;
  for (i = 0; i < 12; i++) vals[i] = i - 6;
  memset(&sb, 0, sizeof sb);
  ti_task_shape_set(&sb, TI_SHAPE_HAS_NF, 3);
  ti_task_graph_init(g, NULL);
  in = ti_task_add_block(g, 0, TI_BLOCK_SI, TI_DTYPE_I8, &s);
  TT_EQ_INT(ti_task_set_data(g, in, TI_DTYPE_I8, 3, dims, vals), TI_STATUS_SUCCESS);
  b = ti_task_add_block(g, 1, TI_BLOCK_SB, TI_DTYPE_I32, &sb);
  TT_EQ_INT(ti_task_set_data(g, b, TI_DTYPE_I32, 1, bdims, bias), TI_STATUS_SUCCESS);
  c = ti_task_add_block(g, 2, TI_BLOCK_CVS, TI_DTYPE_I32, &s);
  TT_EQ_INT(ti_task_add_attr(g, c, TI_TASK_ATTR_CONSTANT_A, 3), TI_STATUS_SUCCESS);
  c->has |= TI_BLOCK_HAS_BIAS_TYPE; c->bias_type = TI_BIAS_VECTOR;
  o = ti_task_add_block(g, 3, TI_BLOCK_SI, TI_DTYPE_I32, &s);
  out = ti_task_add_block(g, 4, TI_BLOCK_OUTPUT, TI_DTYPE_I32, &s);
  out->has |= TI_BLOCK_HAS_SOCKET_ID; out->socket_id = 7;
  /* the builder's pointers stay valid only until the next add_block */
  in = &g->blocks[0]; b = &g->blocks[1]; c = &g->blocks[2]; o = &g->blocks[3]; out = &g->blocks[4];
  e = ti_task_connect(g, in, 0, NULL, NULL, c, 0, NULL, NULL);
  TT_CHECK(e != NULL);
  TT_EQ_INT(ti_task_add_rearrange(g, e, TI_REARRANGE_RESHAPE, 1, (int32_t[]){3}, perm, 3), TI_STATUS_SUCCESS);
  TT_CHECK(ti_task_connect(g, b, 0, NULL, NULL, c, 1, NULL, NULL) != NULL);
  TT_CHECK(ti_task_connect(g, c, 0, NULL, NULL, o, 0, NULL, NULL) != NULL);
  TT_CHECK(ti_task_connect(g, o, 0, NULL, NULL, out, 0, NULL, NULL) != NULL);
  {
    static int32_t ids[2] = {0, 2};
    g->groups = (ti_task_group *)ti_arena_alloc(&g->arena, sizeof *g->groups, 8);
    g->n_groups = 1;
    g->groups[0].has = TI_GROUP_HAS_ID; g->groups[0].group_id = 5;
    g->groups[0].n_block_ids = 2; g->groups[0].block_ids = ids;
    g->has |= TI_GRAPH_HAS_TEST_CONFIG;
    g->test_config.has = TI_TCFG_HAS_SEED | TI_TCFG_HAS_NAME | TI_TCFG_HAS_MODE;
    g->test_config.random_seed = -1234567890123LL;
    g->test_config.test_case_name = ti_arena_strndup(&g->arena, "small", 5);
    g->test_config.name_len = 5;
    g->test_config.test_mode = TI_TEST_CASE_OUTPUT;
  }
}

static char *print(const ti_program *p) {
  ti_buffer b;
  ti_buffer_init(&b, NULL);
  TT_EQ_INT(ti_print_program(p, &b, NULL), TI_STATUS_SUCCESS);
  return (char *)b.data;
}

/* Field-by-field equality of what matters for a round trip. */
static int same_graph(const ti_task_graph *a, const ti_task_graph *b) {
  int32_t i, c, f;
  if (a->n_blocks != b->n_blocks || a->n_edges != b->n_edges || a->n_groups != b->n_groups) return 0;
  for (i = 0; i < a->n_groups; i++)
    if (a->groups[i].group_id != b->groups[i].group_id || a->groups[i].n_block_ids != b->groups[i].n_block_ids ||
        memcmp(a->groups[i].block_ids, b->groups[i].block_ids, (size_t)a->groups[i].n_block_ids * 4) != 0)
      return 0;
  if (a->has != b->has || a->test_config.has != b->test_config.has || a->test_config.random_seed != b->test_config.random_seed ||
      a->test_config.test_mode != b->test_config.test_mode || strcmp(a->test_config.test_case_name, b->test_config.test_case_name) != 0)
    return 0;
  for (i = 0; i < a->n_blocks; i++) {
    const ti_task_block *x = &a->blocks[i], *y = &b->blocks[i];
    const ti_task_values *vx = ti_task_tensor_values(&x->data), *vy = ti_task_tensor_values(&y->data);
    if (x->has != y->has || x->id != y->id || x->type != y->type || x->precision != y->precision) return 0;
    if (memcmp(&x->shape, &y->shape, offsetof(ti_task_shape, n_extra)) != 0) return 0;
    if (x->n_inputs != y->n_inputs || x->n_outputs != y->n_outputs || x->n_attrs != y->n_attrs) return 0;
    for (c = 0; c < x->n_inputs; c++)
      for (f = 0; f < x->inputs[c].n_interfaces; f++)
        if (x->inputs[c].interfaces[f].edge_id != y->inputs[c].interfaces[f].edge_id) return 0;
    if (x->n_attrs && memcmp(x->attrs, y->attrs, (size_t)x->n_attrs * sizeof *x->attrs) != 0) return 0;
    if (!vx != !vy) return 0;
    if (vx && (vx->count != vy->count || vx->storage != vy->storage ||
               memcmp(vx->data, vy->data, (size_t)vx->count * ti_dtype_size(vx->storage)) != 0)) return 0;
    if (x->socket_id != y->socket_id || x->bias_type != y->bias_type) return 0;
  }
  for (i = 0; i < a->n_edges; i++) {
    const ti_task_edge *x = &a->edges[i], *y = &b->edges[i];
    if (x->id != y->id || x->src_block_id != y->src_block_id || x->dst_block_id != y->dst_block_id) return 0;
    if (x->n_rearrange != y->n_rearrange) return 0;
    for (c = 0; c < x->n_rearrange; c++) {
      const ti_task_values *vx = ti_task_tensor_values(&x->rearrange[c].matrix[0]);
      const ti_task_values *vy = ti_task_tensor_values(&y->rearrange[c].matrix[0]);
      if (x->rearrange[c].type != y->rearrange[c].type || vx->count != vy->count) return 0;
      for (f = 0; f < vx->count; f++) if (ti_task_values_get_i64(vx, f) != ti_task_values_get_i64(vy, f)) return 0;
    }
  }
  return 1;
}

TT_TEST(import_builds_a_graph_program) {
  ti_context *ctx = ti_context_create(NULL);
  ti_task_graph g;
  ti_program *p = NULL;
  ti_error err;
  ti_op **order;
  int64_t n;
  build_small(&g);
  ti_error_clear(&err);
  TT_EQ_INT(ti_task_import(ctx, &g, &p, &err), TI_STATUS_SUCCESS);
  if (!p) { fprintf(stderr, "%s\n", err.message); ti_task_graph_free(&g); ti_context_destroy(ctx); return; }
  TT_EQ_INT(p->kind, TI_PROGRAM_GRAPH);
  TT_EQ_INT(p->n_ops, 9);   /* 5 blocks + 4 edges */
  TT_EQ_INT(ti_verify(p, &err), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_walk_topo(p, &order, &n, &err), TI_STATUS_SUCCESS);
  TT_EQ_INT(n, 9);
  TT_CHECK(ti_op_is(order[n - 1], "task.output"));
  TT_EQ_INT(ti_task_block_of(order[n - 1])->socket_id, 7);
  ti_ops_free(p, order);
  {
    const ti_op *cvs = p->first->next->next;
    TT_CHECK(ti_op_is(cvs, "task.cvs"));
    TT_EQ_INT(cvs->n_operands, 2);
    TT_EQ_INT(ti_task_attr_int(ti_task_block_of(cvs), TI_TASK_ATTR_CONSTANT_A, 0), 3);
    TT_EQ_INT(ti_task_edge_of(cvs->operands[0].value->def)->n_rearrange, 1);
  }
  ti_program_destroy(p);
  ti_task_graph_free(&g);
  ti_context_destroy(ctx);
}

TT_TEST(text_form_and_export_round_trip) {
  ti_context *ctx = ti_context_create(NULL);
  ti_task_graph g, g2, g3;
  ti_program *p = NULL, *q = NULL;
  ti_error err;
  char *a, *b = NULL;
  build_small(&g);
  ti_error_clear(&err);
  TT_EQ_INT(ti_task_import(ctx, &g, &p, &err), TI_STATUS_SUCCESS);
  a = print(p);
  TT_CHECK(strstr(a, "task.cvs(") != NULL && strstr(a, "type = \"RESHAPE\"") != NULL);
  TT_EQ_INT(ti_parse_program(ctx, a, strlen(a), &q, &err), TI_STATUS_SUCCESS);
  if (!q) { fprintf(stderr, "%s\n%s\n", err.message, a); goto out; }
  b = print(q);
  TT_EQ_STR(a, b);
  TT_EQ_INT(ti_verify(q, &err), TI_STATUS_SUCCESS);
  /* export from the imported program and from the parsed one: same message */
  TT_EQ_INT(ti_task_export(p, &g2, &err), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_task_export(q, &g3, &err), TI_STATUS_SUCCESS);
  TT_CHECK(same_graph(&g, &g2));
  TT_CHECK(same_graph(&g, &g3));
  ti_task_graph_free(&g2);
  ti_task_graph_free(&g3);
out:
  free(a); free(b);
  ti_program_destroy(p); ti_program_destroy(q);
  ti_task_graph_free(&g);
  ti_context_destroy(ctx);
}

TT_TEST(import_rejects_dangling_edges_with_ids) {
  ti_context *ctx = ti_context_create(NULL);
  ti_task_graph g;
  ti_program *p = NULL;
  ti_error err;
  build_small(&g);
  g.blocks[2].inputs[0].interfaces[0].edge_id = 99;
  ti_error_clear(&err);
  TT_EQ_INT(ti_task_import(ctx, &g, &p, &err), TI_STATUS_INVALID);
  TT_CHECK(p == NULL);
  TT_CHECK_MSG(strstr(err.message, "block 2") && strstr(err.message, "edge 99"), "%s", err.message);
  ti_task_graph_free(&g);
  build_small(&g);
  g.edges[1].id = g.edges[0].id;
  ti_error_clear(&err);
  TT_EQ_INT(ti_task_import(ctx, &g, &p, &err), TI_STATUS_INVALID);
  TT_CHECK_MSG(strstr(err.message, "used twice") != NULL, "%s", err.message);
  ti_task_graph_free(&g);
  ti_context_destroy(ctx);
}

TT_TEST(block_dims_follow_storage_layouts) {
  ti_task_block b;
  int64_t d[4];
  memset(&b, 0, sizeof b);
  b.type = TI_BLOCK_SW; b.shape.nf = 4; b.shape.nr = 3; b.shape.nky = 2; b.shape.nkx = 5;
  TT_EQ_INT(ti_task_block_dims(&b, d), 4);
  TT_CHECK(d[0] == 4 && d[1] == 3 && d[2] == 2 && d[3] == 5);
  b.type = TI_BLOCK_SIC; b.shape.ny = 8; b.shape.nx = 8; b.shape.nr = 32;
  TT_EQ_INT(ti_task_block_dims(&b, d), 3);
  TT_CHECK(d[0] == 8 && d[2] == 32);
  memset(&b.shape, 0, sizeof b.shape);
  b.type = TI_BLOCK_SI; b.shape.nf = 32;
  TT_EQ_INT(ti_task_block_dims(&b, d), 1);
  TT_EQ_INT(d[0], 32);
}

/* Input cluster roles and per-edge traffic: the small graph's CVS reads data
   (cluster 0) and a bias (cluster 1); the edges' bytes add up to the total. */
TT_TEST(input_roles_and_edge_bytes) {
  ti_task_graph g;
  ti_task_stats st;
  ti_error err;
  ti_task_block clif, cax;
  int64_t sum = 0;
  int32_t i;
  build_small(&g);
  TT_EQ_STR(ti_task_input_role(&g.blocks[2], 0), "data");
  TT_EQ_STR(ti_task_input_role(&g.blocks[2], 1), "bias");
  TT_CHECK(ti_task_input_role(&g.blocks[2], 2) == NULL);
  TT_EQ_STR(ti_task_input_role(&g.blocks[3], 0), "data");    /* storage */
  TT_EQ_STR(ti_task_input_role(&g.blocks[4], 0), "data");    /* OUTPUT */
  memset(&clif, 0, sizeof clif); clif.type = TI_BLOCK_CLIF; clif.n_inputs = 2;
  TT_EQ_STR(ti_task_input_role(&clif, 1), "state");
  memset(&cax, 0, sizeof cax); cax.type = TI_BLOCK_CAX; cax.n_inputs = 2;
  TT_EQ_STR(ti_task_input_role(&cax, 1), "alpha");
  TT_EQ_INT(ti_task_statistics(&g, &st, 1, &err), TI_STATUS_SUCCESS);
  TT_CHECK(st.per_edge_bytes != NULL);
  for (i = 0; st.per_edge_bytes && i < g.n_edges; i++) sum += st.per_edge_bytes[i];
  TT_EQ_INT(sum, st.edge_bytes);
  TT_EQ_INT(st.per_edge_bytes ? st.per_edge_bytes[0] : -1, 12);       /* 2x2x3 INT_8 */
  TT_EQ_INT(st.per_edge_bytes ? st.per_edge_bytes[1] : -1, 3 * 4);   /* bias, INT_32 */
  ti_task_stats_free(&st, NULL);
  TT_CHECK(st.per_edge_bytes == NULL);
  ti_task_graph_free(&g);
}

/* ti_task_add_block may move the block array: indices stay good, and
   ti_task_block_at gives the block back. */
TT_TEST(builder_indices_survive_growth) {
  ti_task_graph g;
  ti_task_shape s = ti_task_shape_make(2, 0, 3, 0, 0, 0, 5, 0);
  int32_t i, first;
  TT_EQ_INT((int)s.has, (int)(TI_SHAPE_HAS_NY | TI_SHAPE_HAS_NF | TI_SHAPE_HAS_NIY));
  TT_EQ_INT(s.ny, 2); TT_EQ_INT(s.nx, 0); TT_EQ_INT(s.nf, 3); TT_EQ_INT(s.niy, 5);
  ti_task_graph_init(&g, NULL);
  TT_CHECK(ti_task_add_block(&g, 100, TI_BLOCK_SI, TI_DTYPE_I8, &s) != NULL);
  first = g.n_blocks - 1;
  for (i = 0; i < 40; i++) TT_CHECK(ti_task_add_block(&g, i, TI_BLOCK_SB, TI_DTYPE_I32, NULL) != NULL);
  TT_EQ_INT(ti_task_block_at(&g, first)->id, 100);
  TT_EQ_INT(ti_task_block_at(&g, first)->shape.niy, 5);
  TT_EQ_INT(ti_task_block_index(&g, ti_task_block_at(&g, 17)), 17);
  TT_EQ_INT(ti_task_block_index(&g, NULL), -1);
  {   /* every block, then pointers outside the array or between blocks */
    ti_task_block other;
    const char *base = (const char *)(const void *)g.blocks;
    for (i = 0; i < g.n_blocks; i++) TT_EQ_INT(ti_task_block_index(&g, &g.blocks[i]), i);
    TT_EQ_INT(ti_task_block_index(&g, &other), -1);
    TT_EQ_INT(ti_task_block_index(&g, g.blocks + g.n_blocks), -1);   /* one past the end */
    TT_EQ_INT(ti_task_block_index(&g, (const ti_task_block *)(const void *)(base + 1)), -1);
    TT_EQ_INT(ti_task_block_index(&g, (const ti_task_block *)(const void *)(base + sizeof *g.blocks * 3 + 4)), -1);
    TT_EQ_INT(ti_task_block_index(&g, (const ti_task_block *)(const void *)(base + sizeof *g.blocks * 3)), 3);
    TT_EQ_INT(ti_task_block_index(NULL, &g.blocks[0]), -1);
  }
  TT_CHECK(ti_task_block_at(&g, g.n_blocks) == NULL && ti_task_block_at(&g, -1) == NULL);
  ti_task_graph_free(&g);
}

int main(void) {
  TT_RUN(builder_indices_survive_growth);
  TT_RUN(import_builds_a_graph_program);
  TT_RUN(text_form_and_export_round_trip);
  TT_RUN(import_rejects_dangling_edges_with_ids);
  TT_RUN(block_dims_follow_storage_layouts);
  TT_RUN(input_roles_and_edge_bytes);
  return tt_finish();
}
