/* The Task IR checker and statistics: fixtures pass, one broken graph per
   rule, several problems at once, hand-computed statistics, and random
   mutations that must never crash. */
#include <stdlib.h>
/* Allocations whose user pointer is a budget fail once it is spent; NULL
   user pointers (graph arenas) allocate freely. */
typedef struct tt_budget { int left; } tt_budget;
static int tt_take(void *u) { return !u || ((tt_budget *)u)->left-- > 0; }
#define TASKIR_MALLOC(u, sz) (tt_take(u) ? malloc(sz) : NULL)
#define TASKIR_REALLOC(u, p, sz) (tt_take(u) ? realloc((p), (sz)) : NULL)
#define TASKIR_FREE(u, p) ((void)(u), free(p))
#define TASKIR_IMPLEMENTATION
#include "taskir.h"
#include "taskir_proto.h"
#include "tt.h"


/* Fills a storage block's data with small values in range of its precision. */
static void fill(ti_task_graph *g, ti_task_block *b, int32_t n_dims, const int32_t *dims) {
  int32_t vals[512], i, n = 1;
  for (i = 0; i < n_dims; i++) n *= dims[i];
  TT_CHECK(n <= 512);
  for (i = 0; i < n && i < 512; i++) vals[i] = (i * 37) % 201 - 100;
  TT_EQ_INT(ti_task_set_data(g, b, b->precision, n_dims, dims, vals), TI_STATUS_SUCCESS);
}

static ti_task_block *blk(ti_task_graph *g, int32_t id) { return (ti_task_block *)ti_task_find_block(g, id); }
static ti_task_edge *edg(ti_task_graph *g, int32_t id) { return (ti_task_edge *)ti_task_find_edge(g, id); }

/* A small LeNet-like graph with both 2-D and 1-D forms:
     SIC 0 [4][4][nr 2] --e0--> CC 3 <--e1-- SW 1 [3][2][3][3]
                                     <--e2-- SB 2 [3] (INT_32)
     CC 3 --e3--> SI 4 [4][4][3] (INT_32) --e4, RESHAPE [2,1,0]--> CVM 7 <--e5-- SWFC 5 [5][48]
                                                                       <--e6-- SB 6 [5] (INT_32)
     CVM 7 --e7--> SI 8 [5] (INT_32) --e8--> OUTPUT 9 [5], socket 0 */
static void build_lenet(ti_task_graph *g) {
  ti_task_shape s;
  ti_task_block *sic, *sw, *sb, *cc, *si, *swfc, *sb2, *cvm, *si2, *out;
  ti_task_edge *e;
  int32_t d_sic[3] = {4, 4, 2}, d_sw[4] = {3, 2, 3, 3}, d_sb[1] = {3}, d_swfc[2] = {5, 48}, d_sb2[1] = {5};
  int32_t perm[3] = {2, 1, 0}, d_perm[1] = {3};
  ti_task_graph_init(g, NULL);
  s = ti_task_shape_make(4, 4, 0, 2, 0, 0, 0, 0);
  sic = ti_task_add_block(g, 0, TI_BLOCK_SIC, TI_DTYPE_I8, &s);
  fill(g, sic, 3, d_sic);
  s = ti_task_shape_make(0, 0, 3, 2, 3, 3, 0, 0);
  sw = ti_task_add_block(g, 1, TI_BLOCK_SW, TI_DTYPE_I8, &s);
  fill(g, sw, 4, d_sw);
  s = ti_task_shape_make(0, 0, 3, 0, 0, 0, 0, 0);
  sb = ti_task_add_block(g, 2, TI_BLOCK_SB, TI_DTYPE_I32, &s);
  fill(g, sb, 1, d_sb);
  s = ti_task_shape_make(4, 4, 3, 2, 3, 3, 4, 4);
  cc = ti_task_add_block(g, 3, TI_BLOCK_CC, TI_DTYPE_I32, &s);
  cc->bias_type = TI_BIAS_VECTOR; cc->has |= TI_BLOCK_HAS_BIAS_TYPE;
  TT_EQ_INT(ti_task_add_attr(g, cc, TI_TASK_ATTR_KERNEL_X, 3), TI_STATUS_SUCCESS); TT_EQ_INT(ti_task_add_attr(g, cc, TI_TASK_ATTR_KERNEL_Y, 3), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_task_add_attr(g, cc, TI_TASK_ATTR_STRIDE_X, 1), TI_STATUS_SUCCESS); TT_EQ_INT(ti_task_add_attr(g, cc, TI_TASK_ATTR_STRIDE_Y, 1), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_task_add_attr(g, cc, TI_TASK_ATTR_PAD_UP, 1), TI_STATUS_SUCCESS); TT_EQ_INT(ti_task_add_attr(g, cc, TI_TASK_ATTR_PAD_DOWN, 1), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_task_add_attr(g, cc, TI_TASK_ATTR_PAD_LEFT, 1), TI_STATUS_SUCCESS); TT_EQ_INT(ti_task_add_attr(g, cc, TI_TASK_ATTR_PAD_RIGHT, 1), TI_STATUS_SUCCESS);
  s = ti_task_shape_make(4, 4, 3, 0, 0, 0, 0, 0);
  si = ti_task_add_block(g, 4, TI_BLOCK_SI, TI_DTYPE_I32, &s);
  s = ti_task_shape_make(0, 0, 5, 48, 0, 0, 0, 0);
  swfc = ti_task_add_block(g, 5, TI_BLOCK_SWFC, TI_DTYPE_I8, &s);
  fill(g, swfc, 2, d_swfc);
  s = ti_task_shape_make(0, 0, 5, 0, 0, 0, 0, 0);
  sb2 = ti_task_add_block(g, 6, TI_BLOCK_SB, TI_DTYPE_I32, &s);
  fill(g, sb2, 1, d_sb2);
  s = ti_task_shape_make(0, 0, 5, 48, 0, 0, 0, 0);
  cvm = ti_task_add_block(g, 7, TI_BLOCK_CVM, TI_DTYPE_I32, &s);
  cvm->bias_type = TI_BIAS_VECTOR; cvm->has |= TI_BLOCK_HAS_BIAS_TYPE;
  s = ti_task_shape_make(0, 0, 5, 0, 0, 0, 0, 0);
  si2 = ti_task_add_block(g, 8, TI_BLOCK_SI, TI_DTYPE_I32, &s);
  out = ti_task_add_block(g, 9, TI_BLOCK_OUTPUT, TI_DTYPE_I32, &s);
  out->socket_id = 0; out->has |= TI_BLOCK_HAS_SOCKET_ID;
  /* the builder's arrays move as they grow: look blocks up again */
  sic = blk(g, 0); sw = blk(g, 1); sb = blk(g, 2); cc = blk(g, 3); si = blk(g, 4);
  swfc = blk(g, 5); sb2 = blk(g, 6); cvm = blk(g, 7); si2 = blk(g, 8); out = blk(g, 9);
  TT_CHECK(ti_task_connect(g, sic, 0, NULL, NULL, cc, 0, NULL, NULL) != NULL);
  TT_CHECK(ti_task_connect(g, sw, 0, NULL, NULL, cc, 1, NULL, NULL) != NULL);
  TT_CHECK(ti_task_connect(g, sb, 0, NULL, NULL, cc, 2, NULL, NULL) != NULL);
  TT_CHECK(ti_task_connect(g, cc, 0, NULL, NULL, si, 0, NULL, NULL) != NULL);
  e = ti_task_connect(g, si, 0, NULL, NULL, cvm, 0, NULL, NULL);
  TT_CHECK(e != NULL);
  if (e) TT_EQ_INT(ti_task_add_rearrange(g, e, TI_REARRANGE_RESHAPE, 1, d_perm, perm, 3), TI_STATUS_SUCCESS);
  TT_CHECK(ti_task_connect(g, swfc, 0, NULL, NULL, cvm, 1, NULL, NULL) != NULL);
  TT_CHECK(ti_task_connect(g, sb2, 0, NULL, NULL, cvm, 2, NULL, NULL) != NULL);
  TT_CHECK(ti_task_connect(g, cvm, 0, NULL, NULL, si2, 0, NULL, NULL) != NULL);
  TT_CHECK(ti_task_connect(g, si2, 0, NULL, NULL, out, 0, NULL, NULL) != NULL);
  /* one group of the compute side, as the fixtures have */
  g->groups = (ti_task_group *)ti_arena_array(&g->arena, 1, sizeof *g->groups, 8);
  TT_CHECK(g->groups != NULL);
  if (g->groups) {
    int32_t *ids = (int32_t *)ti_arena_array(&g->arena, 4, 4, 4);
    TT_CHECK(ids != NULL);
    g->n_groups = 1;
    g->groups[0].has = TI_GROUP_HAS_ID;
    if (ids) { ids[0] = 0; ids[1] = 1; ids[2] = 2; ids[3] = 3; g->groups[0].block_ids = ids; g->groups[0].n_block_ids = 4; }
  }
}

static void dump(const ti_diag_list *l) {
  int32_t i;
  for (i = 0; i < l->n; i++)
    fprintf(stderr, "    %s %s block %d edge %d: %s\n", l->items[i].severity == TI_DIAG_ERROR ? "error" : "warning",
            l->items[i].rule, (int)l->items[i].block_id, (int)l->items[i].edge_id, l->items[i].message);
}

static const ti_diag *find(const ti_diag_list *l, const char *rule, int32_t block_id, int32_t edge_id, const char *sub) {
  int32_t i;
  for (i = 0; i < l->n; i++) {
    const ti_diag *d = &l->items[i];
    if (strcmp(d->rule, rule) == 0 && (block_id == -2 || d->block_id == block_id) && d->edge_id == edge_id &&
        (!sub || strstr(d->message, sub)))
      return d;
  }
  return NULL;
}

/* Checks g and expects a problem of this rule, place (block -2: any) and
   message part. */
static void expect(ti_task_graph *g, ti_diag_severity sev, const char *rule, int32_t block_id, int32_t edge_id,
                   const char *sub) {
  ti_diag_list l;
  ti_error err;
  ti_status st;
  const ti_diag *d;
  ti_diag_list_init(&l, NULL);
  ti_error_clear(&err);
  st = ti_task_check(g, &l, &err);
  d = find(&l, rule, block_id, edge_id, sub);
  TT_CHECK_MSG(d != NULL, "no %s '%s' at block %d edge %d with \"%s\"", sev == TI_DIAG_ERROR ? "error" : "warning",
               rule, (int)block_id, (int)edge_id, sub ? sub : "");
  if (d) TT_EQ_INT(d->severity, sev);
  if (sev == TI_DIAG_ERROR) {
    TT_EQ_INT(st, TI_STATUS_INVALID);
    TT_EQ_INT(err.status, TI_STATUS_INVALID);
    TT_CHECK(err.message[0] != 0);
  }
  if (!d) dump(&l);
  ti_diag_list_free(&l);
}

static int n_diags(ti_task_graph *g, int *n_err, int *n_warn) {
  ti_diag_list l;
  int n;
  ti_diag_list_init(&l, NULL);
  TT_EQ_INT(ti_task_check(g, &l, NULL), l.n_errors ? TI_STATUS_INVALID : TI_STATUS_SUCCESS);
  n = l.n;
  if (n_err) *n_err = l.n_errors;
  if (n_warn) *n_warn = l.n_warnings;
  if (l.n) dump(&l);
  ti_diag_list_free(&l);
  return n;
}

TT_TEST(valid_graph_is_clean) {
  ti_task_graph g;
  ti_diag_list l;
  ti_error err;
  build_lenet(&g);
  ti_diag_list_init(&l, NULL);
  ti_error_clear(&err);
  TT_EQ_INT(ti_task_check(&g, &l, &err), TI_STATUS_SUCCESS);
  TT_EQ_INT(l.n, 0);
  TT_EQ_INT(err.status, TI_STATUS_SUCCESS);
  if (l.n) dump(&l);
  ti_diag_list_free(&l);
  /* no list: only the status */
  TT_EQ_INT(ti_task_check(&g, NULL, NULL), TI_STATUS_SUCCESS);
  ti_task_graph_free(&g);
}

TT_TEST(fixtures_pass) {
  static const char *const cases[] = { "cadd", "cavg", "cax", "cc", "ccmpb", "clut", "cvm", "cvs", "cvvh" };
  char path[1024];
  size_t i;
  FILE *f;
  snprintf(path, sizeof path, "%s/cc.task.txt", tt_fixtures());
  if (!(f = fopen(path, "rb"))) TT_SKIP("fixtures not found; set TASKIR_FIXTURES");
  fclose(f);
  for (i = 0; i < sizeof cases / sizeof *cases; i++) {
    int k;
    for (k = 0; k < 2; k++) {
      ti_task_graph g;
      ti_error err;
      ti_diag_list l;
      ti_status st;
      snprintf(path, sizeof path, "%s/%s.task.%s", tt_fixtures(), cases[i], k ? "pb" : "txt");
      ti_task_graph_init(&g, NULL);
      ti_error_clear(&err);
      st = ti_task_read_file(path, &g, &err);
      TT_CHECK_MSG(st == TI_STATUS_SUCCESS, "%s: %s", path, err.message);
      ti_diag_list_init(&l, NULL);
      st = ti_task_check(&g, &l, &err);
      TT_CHECK_MSG(st == TI_STATUS_SUCCESS && l.n == 0, "%s: %d problems", path, (int)l.n);
      if (l.n) dump(&l);
      ti_diag_list_free(&l);
      ti_task_graph_free(&g);
    }
  }
}

TT_TEST(rule_unique_ids) {
  ti_task_graph g;
  build_lenet(&g);
  blk(&g, 6)->id = 5;    /* SB 6 now shares id 5 with SWFC 5 */
  expect(&g, TI_DIAG_ERROR, "unique-ids", 5, -1, "block id 5 is used by blocks");
  ti_task_graph_free(&g);
  build_lenet(&g);
  edg(&g, 8)->id = 7;
  expect(&g, TI_DIAG_ERROR, "unique-ids", -1, 7, "edge id 7 is used by edges");
  ti_task_graph_free(&g);
}

TT_TEST(rule_block_type_and_precision) {
  ti_task_graph g;
  build_lenet(&g);
  blk(&g, 4)->type = (ti_block_type)77;
  expect(&g, TI_DIAG_ERROR, "block-type", 4, -1, "unknown block type 77");
  blk(&g, 4)->type = TI_BLOCK_NULL;
  expect(&g, TI_DIAG_ERROR, "block-type", 4, -1, "TASK_NULL");
  blk(&g, 4)->type = TI_BLOCK_SI;
  blk(&g, 4)->precision = (ti_dtype)55;
  expect(&g, TI_DIAG_ERROR, "precision", 4, -1, "unknown precision 55");
  ti_task_graph_free(&g);
}

TT_TEST(rule_alternation) {
  ti_task_graph g;
  ti_task_shape s = ti_task_shape_make(4, 4, 3, 0, 0, 0, 0, 0);
  ti_task_block *x;
  build_lenet(&g);
  /* storage -> storage: a copy of SI 4 into another SI */
  x = ti_task_add_block(&g, 20, TI_BLOCK_SI, TI_DTYPE_I32, &s);
  TT_CHECK(ti_task_connect(&g, blk(&g, 4), 0, NULL, NULL, x, 0, NULL, NULL) != NULL);
  expect(&g, TI_DIAG_ERROR, "alternation", 4, 9, "SI 4 -> SI 20");
  ti_task_graph_free(&g);
  /* compute -> compute */
  build_lenet(&g);
  s = ti_task_shape_make(4, 4, 3, 0, 0, 0, 0, 0);
  x = ti_task_add_block(&g, 21, TI_BLOCK_CVS, TI_DTYPE_I32, &s);
  TT_CHECK(ti_task_connect(&g, blk(&g, 3), 0, NULL, NULL, x, 0, NULL, NULL) != NULL);
  expect(&g, TI_DIAG_ERROR, "alternation", 3, 9, "put a storage block between them");
  ti_task_graph_free(&g);
}

TT_TEST(rule_dims) {
  ti_task_graph g;
  build_lenet(&g);
  blk(&g, 3)->shape.nky = 0;   /* CC without nky */
  expect(&g, TI_DIAG_ERROR, "dims", 3, -1, "needs nky >= 1");
  ti_task_graph_free(&g);
  build_lenet(&g);
  blk(&g, 4)->shape.nf = -3;
  expect(&g, TI_DIAG_ERROR, "dims", 4, -1, "nf = -3 is negative");
  ti_task_graph_free(&g);
  build_lenet(&g);
  blk(&g, 7)->shape.ny = 2;    /* CVM has no ny */
  expect(&g, TI_DIAG_ERROR, "dims", 7, -1, "ny = 2, which this type does not have");
  ti_task_graph_free(&g);
  build_lenet(&g);
  blk(&g, 4)->shape.nx = 0;    /* SI with ny but not nx */
  expect(&g, TI_DIAG_ERROR, "dims", 4, -1, "has ny but not nx");
  ti_task_graph_free(&g);
  build_lenet(&g);
  blk(&g, 8)->type = TI_BLOCK_CCMPB;   /* SI 8 [5] as a 1-D max: a window of 3 makes no sense there */
  blk(&g, 8)->shape.nky = 3;
  expect(&g, TI_DIAG_ERROR, "dims", 8, -1, "1-D form (no ny, nx) has nky = 3");
  ti_task_graph_free(&g);
  build_lenet(&g);
  blk(&g, 3)->shape.nf = 2000000000; blk(&g, 3)->shape.nr = 2000000000;
  expect(&g, TI_DIAG_ERROR, "dims", 3, -1, "product of the dims exceeds");
  ti_task_graph_free(&g);
}

TT_TEST(rule_dims_cadd_window_must_be_one) {
  ti_task_graph g;
  ti_task_shape s = ti_task_shape_make(2, 2, 4, 0, 1, 1, 0, 0);
  ti_task_block *a, *b, *c, *o;
  int32_t d[3] = {2, 2, 4};
  ti_task_graph_init(&g, NULL);
  s = ti_task_shape_make(2, 2, 4, 0, 0, 0, 0, 0);
  a = ti_task_add_block(&g, 0, TI_BLOCK_SI, TI_DTYPE_I8, &s); fill(&g, a, 3, d);
  b = ti_task_add_block(&g, 1, TI_BLOCK_SI, TI_DTYPE_I8, &s); fill(&g, b, 3, d);
  s = ti_task_shape_make(2, 2, 4, 0, 1, 1, 0, 0);
  c = ti_task_add_block(&g, 2, TI_BLOCK_CADD, TI_DTYPE_I32, &s);
  c->bias_type = TI_BIAS_CONSTANT; c->has |= TI_BLOCK_HAS_BIAS_TYPE;
  s = ti_task_shape_make(2, 2, 4, 0, 0, 0, 0, 0);
  o = ti_task_add_block(&g, 3, TI_BLOCK_SI, TI_DTYPE_I32, &s);
  a = blk(&g, 0); b = blk(&g, 1); c = blk(&g, 2); o = blk(&g, 3);
  ti_task_connect(&g, a, 0, NULL, NULL, c, 0, NULL, NULL);
  ti_task_connect(&g, b, 0, NULL, NULL, c, 1, NULL, NULL);
  ti_task_connect(&g, c, 0, NULL, NULL, o, 0, NULL, NULL);
  TT_EQ_INT(n_diags(&g, NULL, NULL), 0);   /* CONSTANT bias: two inputs, no bias cluster */
  c->shape.nky = 2;
  expect(&g, TI_DIAG_ERROR, "dims", 2, -1, "nky = 2, it must be 1");
  c->shape.nky = 1;
  c->bias_type = TI_BIAS_VECTOR;      /* now the last cluster would be the bias: one input short */
  c->shape.n_branch = 2; c->shape.has |= TI_SHAPE_HAS_N_BRANCH;
  expect(&g, TI_DIAG_ERROR, "clusters", 2, -1, "has 2 input clusters, expected 3");
  ti_task_graph_free(&g);
}

TT_TEST(rule_clusters) {
  ti_task_graph g;
  build_lenet(&g);
  blk(&g, 3)->n_inputs = 2;    /* CC without its bias cluster, bias_type VECTOR */
  expect(&g, TI_DIAG_ERROR, "clusters", 3, -1, "has 2 input clusters, expected 3");
  ti_task_graph_free(&g);
  build_lenet(&g);
  {
    ti_task_cluster *cl = &blk(&g, 3)->inputs[1];   /* the weight cluster */
    cl->has |= TI_CLUSTER_HAS_SHAPE;
    cl->shape = ti_task_shape_make(0, 0, 3, 2, 5, 5, 0, 0);
    expect(&g, TI_DIAG_ERROR, "clusters", 3, -1, "input cluster 1 has shape [0,0,3,2,5,5]");
    cl->shape = ti_task_shape_make(0, 0, 3, 2, 3, 3, 0, 0);
    TT_EQ_INT(n_diags(&g, NULL, NULL), 0);
  }
  ti_task_graph_free(&g);
  build_lenet(&g);
  blk(&g, 3)->n_outputs = 0;   /* CC writes nothing */
  {
    ti_diag_list l;
    const ti_diag *d;
    ti_diag_list_init(&l, NULL);
    TT_EQ_INT(ti_task_check(&g, &l, NULL), l.n_errors ? TI_STATUS_INVALID : TI_STATUS_SUCCESS);
    d = find(&l, "clusters", 3, -1, "output clusters");
    TT_CHECK(d != NULL);
    if (d) TT_EQ_STR(d->message, "CC block has 0 output clusters, expected 1");
    ti_diag_list_free(&l);
  }
  ti_task_graph_free(&g);
  build_lenet(&g);
  blk(&g, 9)->n_inputs = 0;    /* OUTPUT reads nothing */
  expect(&g, TI_DIAG_ERROR, "clusters", 9, -1, "OUTPUT block has 0 input clusters, expected 1");
  ti_task_graph_free(&g);
}

TT_TEST(rule_interface_box) {
  ti_task_graph g;
  ti_task_interface *f;
  build_lenet(&g);
  f = &blk(&g, 4)->outputs[0].interfaces[0];
  f->has |= TI_IFACE_HAS_POSITION | TI_IFACE_HAS_SIZE;
  f->position = ti_task_shape_make(0, 0, 2, 0, 0, 0, 0, 0);
  f->size = ti_task_shape_make(4, 4, 2, 0, 0, 0, 0, 0);     /* nf [2, 4) in a cluster of 3 */
  expect(&g, TI_DIAG_ERROR, "interface-box", 4, 4, "box nf [2, 4) leaves the cluster's extent 3");
  f->position = ti_task_shape_make(-1, 0, 0, 0, 0, 0, 0, 0);
  expect(&g, TI_DIAG_ERROR, "interface-box", 4, 4, "position ny = -1 is negative");
  ti_task_graph_free(&g);
}

TT_TEST(rule_interface_box_partial_ok) {
  /* two halves of a cluster read by two consumers, each a valid box */
  ti_task_graph g;
  ti_task_shape s, pos, size;
  ti_task_block *in, *c1, *c2, *o1, *o2;
  int32_t d[3] = {2, 4, 3};
  ti_task_graph_init(&g, NULL);
  s = ti_task_shape_make(2, 4, 3, 0, 0, 0, 0, 0);
  in = ti_task_add_block(&g, 0, TI_BLOCK_SI, TI_DTYPE_I8, &s); fill(&g, in, 3, d);
  s = ti_task_shape_make(2, 2, 3, 0, 0, 0, 0, 0);
  c1 = ti_task_add_block(&g, 1, TI_BLOCK_CLUT, TI_DTYPE_I8, &s);
  c2 = ti_task_add_block(&g, 2, TI_BLOCK_CCMPB, TI_DTYPE_I8, &s);
  o1 = ti_task_add_block(&g, 3, TI_BLOCK_SI, TI_DTYPE_I8, &s);
  o2 = ti_task_add_block(&g, 4, TI_BLOCK_SI, TI_DTYPE_I8, &s);
  {
    ti_task_shape ls = ti_task_shape_make(0, 0, 16, 0, 0, 0, 0, 0);
    int32_t dl[1] = {16};
    ti_task_block *lut = ti_task_add_block(&g, 5, TI_BLOCK_SB, TI_DTYPE_I8, &ls);
    fill(&g, lut, 1, dl);
  }
  in = blk(&g, 0); c1 = blk(&g, 1); c2 = blk(&g, 2); o1 = blk(&g, 3); o2 = blk(&g, 4);
  TT_EQ_INT(ti_task_add_attr(&g, c1, TI_TASK_ATTR_LUT_DW, 4), TI_STATUS_SUCCESS);
  c2 = blk(&g, 2);
  c2->shape = ti_task_shape_make(2, 2, 3, 0, 1, 1, 2, 2);
  pos = ti_task_shape_make(0, 0, 0, 0, 0, 0, 0, 0);
  size = ti_task_shape_make(2, 2, 3, 0, 0, 0, 0, 0);
  TT_CHECK(ti_task_connect(&g, in, 0, &pos, &size, c1, 0, NULL, NULL) != NULL);
  pos = ti_task_shape_make(0, 2, 0, 0, 0, 0, 0, 0);
  TT_CHECK(ti_task_connect(&g, blk(&g, 0), 0, &pos, &size, blk(&g, 2), 0, NULL, NULL) != NULL);
  TT_CHECK(ti_task_connect(&g, blk(&g, 5), 0, NULL, NULL, blk(&g, 1), 1, NULL, NULL) != NULL);
  TT_CHECK(ti_task_connect(&g, blk(&g, 1), 0, NULL, NULL, o1, 0, NULL, NULL) != NULL);
  TT_CHECK(ti_task_connect(&g, blk(&g, 2), 0, NULL, NULL, o2, 0, NULL, NULL) != NULL);
  TT_EQ_INT(n_diags(&g, NULL, NULL), 0);
  /* the LUT must have 2^LUT_DW entries */
  blk(&g, 1)->attrs[0].int_value = 5;
  expect(&g, TI_DIAG_ERROR, "edge-size", -1, 2, "block 5 sends [16] = 16 elements, block 1 receives [32] = 32");
  ti_task_graph_free(&g);
}

TT_TEST(rule_edge_ends) {
  ti_task_graph g;
  build_lenet(&g);
  edg(&g, 8)->dst_block_id = 42;
  expect(&g, TI_DIAG_ERROR, "edge-ends", -1, 8, "dst_block_id 42 names no block");
  ti_task_graph_free(&g);
  build_lenet(&g);
  blk(&g, 9)->inputs[0].interfaces[0].edge_id = 99;
  expect(&g, TI_DIAG_ERROR, "edge-ends", 9, 99, "names edge 99, which does not exist");
  expect(&g, TI_DIAG_ERROR, "edge-ends", -1, 8, "named by 0 input interfaces");
  ti_task_graph_free(&g);
  build_lenet(&g);
  /* OUTPUT's interface names edge 7 (CVM -> SI 8) as well */
  blk(&g, 9)->inputs[0].interfaces[0].edge_id = 7;
  expect(&g, TI_DIAG_ERROR, "edge-ends", 8, 7, "named by 2 input interfaces");
  ti_task_graph_free(&g);
  build_lenet(&g);
  edg(&g, 4)->src_block_id = 8;   /* the interface is on SI 4 */
  expect(&g, TI_DIAG_ERROR, "edge-ends", 4, 4, "the edge's source is block 8");
  ti_task_graph_free(&g);
}

/* Renumbers build_lenet's graph: ids k*3+5 (sorted, not the indices), or
   that and the block and edge arrays reversed (not sorted): the checker's
   id lookups then go through its sorted index instead of the direct one. */
static void renumber(ti_task_graph *g, int reverse) {
  int32_t i, j, k;
#define TT_NEW_ID(x) ((x) * 3 + 5)
  for (i = 0; i < g->n_blocks; i++) {
    ti_task_block *b = &g->blocks[i];
    b->id = TT_NEW_ID(b->id);
    for (j = 0; j < b->n_inputs; j++)
      for (k = 0; k < b->inputs[j].n_interfaces; k++) b->inputs[j].interfaces[k].edge_id = TT_NEW_ID(b->inputs[j].interfaces[k].edge_id);
    for (j = 0; j < b->n_outputs; j++)
      for (k = 0; k < b->outputs[j].n_interfaces; k++) b->outputs[j].interfaces[k].edge_id = TT_NEW_ID(b->outputs[j].interfaces[k].edge_id);
  }
  for (i = 0; i < g->n_edges; i++) {
    g->edges[i].id = TT_NEW_ID(g->edges[i].id);
    g->edges[i].src_block_id = TT_NEW_ID(g->edges[i].src_block_id);
    g->edges[i].dst_block_id = TT_NEW_ID(g->edges[i].dst_block_id);
  }
  for (i = 0; i < g->n_groups; i++)
    for (j = 0; j < g->groups[i].n_block_ids; j++) g->groups[i].block_ids[j] = TT_NEW_ID(g->groups[i].block_ids[j]);
#undef TT_NEW_ID
  if (reverse) {
    for (i = 0, j = g->n_blocks - 1; i < j; i++, j--) { ti_task_block t = g->blocks[i]; g->blocks[i] = g->blocks[j]; g->blocks[j] = t; }
    for (i = 0, j = g->n_edges - 1; i < j; i++, j--) { ti_task_edge t = g->edges[i]; g->edges[i] = g->edges[j]; g->edges[j] = t; }
  }
}

/* The same graph and the same problems whatever its ids: 0, 1, ... in order
   (looked up directly), sparse in order, or out of order (a sorted index). */
TT_TEST(ids_dense_sparse_or_unsorted) {
  int v;
  for (v = 0; v < 3; v++) {
    ti_task_graph g;
    build_lenet(&g);
    if (v) renumber(&g, v == 2);
    TT_EQ_INT(n_diags(&g, NULL, NULL), 0);
    ti_task_graph_free(&g);
    build_lenet(&g);
    edg(&g, 8)->dst_block_id = 42;   /* no block has id 42 in any numbering */
    if (v) renumber(&g, v == 2);
    expect(&g, TI_DIAG_ERROR, "edge-ends", -1, v ? 8 * 3 + 5 : 8, "names no block");
    ti_task_graph_free(&g);
    build_lenet(&g);
    blk(&g, 9)->inputs[0].interfaces[0].edge_id = 99;
    if (v) renumber(&g, v == 2);
    expect(&g, TI_DIAG_ERROR, "edge-ends", v ? 9 * 3 + 5 : 9, v ? 99 * 3 + 5 : 99, "which does not exist");
    ti_task_graph_free(&g);
    build_lenet(&g);
    g.groups[0].block_ids[3] = 1;   /* block 1 twice in the group */
    if (v) renumber(&g, v == 2);
    expect(&g, TI_DIAG_ERROR, "groups", v ? 1 * 3 + 5 : 1, -1, "twice");
    ti_task_graph_free(&g);
  }
}

TT_TEST(rule_edge_size) {
  ti_task_graph g;
  int32_t d[1] = {4};
  build_lenet(&g);
  /* bias of 4 for a CC with 3 output channels */
  blk(&g, 2)->shape.nf = 4;
  fill(&g, blk(&g, 2), 1, d);
  expect(&g, TI_DIAG_ERROR, "edge-size", -1, 2, "block 2 sends [4] = 4 elements, block 3 receives [3] = 3");
  ti_task_graph_free(&g);
}

TT_TEST(rule_edge_size_implicit_reshape_warns) {
  ti_task_graph g;
  ti_diag_list l;
  int32_t d[3] = {8, 2, 2};
  build_lenet(&g);
  /* SIC 0 holds [8][2][nr 2]: the same 32 values CC 3 reads as [4][4][2] */
  blk(&g, 0)->shape.ny = 8; blk(&g, 0)->shape.nx = 2;
  fill(&g, blk(&g, 0), 3, d);
  expect(&g, TI_DIAG_WARNING, "edge-size", -1, 0, "implicit row-major reshape");
  ti_diag_list_init(&l, NULL);
  TT_EQ_INT(ti_task_check(&g, &l, NULL), TI_STATUS_SUCCESS);   /* a warning only */
  TT_EQ_INT(l.n_errors, 0);
  TT_EQ_INT(l.n_warnings, 1);
  ti_diag_list_free(&l);
  ti_task_graph_free(&g);
}

TT_TEST(rule_rearrange) {
  ti_task_graph g;
  ti_task_values *v;
  build_lenet(&g);
  v = &edg(&g, 4)->rearrange[0].matrix[0].int32_data;
  TT_EQ_INT(v->storage, TI_DTYPE_I8);
  ((int8_t *)v->data)[0] = 1;   /* [1, 1, 0]: not a permutation */
  expect(&g, TI_DIAG_ERROR, "rearrange", -1, 4, "not a permutation");
  ti_task_graph_free(&g);
  build_lenet(&g);
  edg(&g, 4)->n_rearrange = 0;  /* [4,4,3] into [48] without saying how */
  expect(&g, TI_DIAG_WARNING, "edge-size", -1, 4, "implicit row-major reshape");
  ti_task_graph_free(&g);
  build_lenet(&g);
  edg(&g, 4)->rearrange[0].type = (ti_rearrange_kind)23;
  expect(&g, TI_DIAG_ERROR, "rearrange", -1, 4, "rearrangement #0 has unknown type 23");
  ti_task_graph_free(&g);
}

TT_TEST(rule_edge_size_after_rearrangement) {
  ti_task_graph g;
  int32_t perm[3] = {2, 0, 1}, scale[2] = {2, 2}, two[1] = {2}, three[1] = {3}, flat[3] = {2, 1, 0}, to[1] = {48};
  /* PERMUTE then RESHAPE with explicit output dims: [4,4,3] -> [3,4,4] -> [48] */
  build_lenet(&g);
  edg(&g, 4)->n_rearrange = 0;
  TT_EQ_INT(ti_task_add_rearrange(&g, edg(&g, 4), TI_REARRANGE_PERMUTE, 1, three, perm, 3), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_task_add_rearrange(&g, edg(&g, 4), TI_REARRANGE_RESHAPE, 1, three, flat, 3), TI_STATUS_SUCCESS);
  TT_EQ_INT(n_diags(&g, NULL, NULL), 0);
  ti_task_graph_free(&g);
  /* PERMUTE alone: [3,4,4] lands in [48] by an implicit reshape */
  build_lenet(&g);
  edg(&g, 4)->n_rearrange = 0;
  TT_EQ_INT(ti_task_add_rearrange(&g, edg(&g, 4), TI_REARRANGE_PERMUTE, 1, three, perm, 3), TI_STATUS_SUCCESS);
  expect(&g, TI_DIAG_WARNING, "edge-size", -1, 4, "block 4 sends [3,4,4], block 7 receives [48]");
  ti_task_graph_free(&g);
  /* SCALE x2 in y and x: 4 times the elements */
  build_lenet(&g);
  edg(&g, 4)->n_rearrange = 0;
  TT_EQ_INT(ti_task_add_rearrange(&g, edg(&g, 4), TI_REARRANGE_SCALE, 1, two, scale, 2), TI_STATUS_SUCCESS);
  expect(&g, TI_DIAG_ERROR, "edge-size", -1, 4, "block 4 sends [8,8,3] after rearrangement = 192 elements, "
                                                "block 7 receives [48] = 48");
  ti_task_graph_free(&g);
  /* RESHAPE whose explicit output dims (matrix[1]) do not hold the data */
  build_lenet(&g);
  {
    ti_task_rearrange *ra = &edg(&g, 4)->rearrange[0];
    ti_task_tensor *m = (ti_task_tensor *)ti_arena_array(&g.arena, 2, sizeof *m, 8);
    TT_CHECK(m != NULL);
    if (m) {
      m[0] = ra->matrix[0];
      to[0] = 47;
      m[1].int32_data.count = 1; m[1].int32_data.storage = TI_DTYPE_I32; m[1].int32_data.data = to;
      ra->matrix = m; ra->n_matrix = 2;
    }
  }
  expect(&g, TI_DIAG_ERROR, "rearrange", -1, 4, "rearrangement #0 (RESHAPE): RESHAPE m[1] dims do not have");
  ti_task_graph_free(&g);
}

TT_TEST(rule_data) {
  ti_task_graph g;
  build_lenet(&g);
  blk(&g, 1)->data.int32_data.count = 50;          /* SW has dims [3,2,3,3] = 54 */
  expect(&g, TI_DIAG_ERROR, "data", 1, -1, "data holds 50 values, its dims multiply to 54");
  ti_task_graph_free(&g);
  build_lenet(&g);
  blk(&g, 1)->data.dims[0] = 2; blk(&g, 1)->data.int32_data.count = 36;
  expect(&g, TI_DIAG_ERROR, "data", 1, -1, "data dims [2,2,3,3] do not match the SW block's storage dims [3,2,3,3]");
  ti_task_graph_free(&g);
  build_lenet(&g);
  {
    ti_task_values *v = &blk(&g, 5)->data.int32_data;   /* SWFC, INT_8, stored as int8 by the builder */
    int32_t vals[240], dims[2] = {5, 48}, i;
    for (i = 0; i < 240; i++) vals[i] = i == 7 ? 200 : (i == 9 ? -129 : 1);
    TT_EQ_INT(ti_task_set_data(&g, blk(&g, 5), TI_DTYPE_I8, 2, dims, vals), TI_STATUS_SUCCESS);
    (void)v;
  }
  expect(&g, TI_DIAG_ERROR, "data", 5, -1, "2 values lie outside INT_8 range -128..127, the first is 200 at index 7");
  ti_task_graph_free(&g);
  build_lenet(&g);
  {
    int32_t vals[3] = {1, 0, 2}, dims[1] = {3};
    blk(&g, 2)->precision = TI_DTYPE_TERNARY;
    TT_EQ_INT(ti_task_set_data(&g, blk(&g, 2), TI_DTYPE_TERNARY, 1, dims, vals), TI_STATUS_SUCCESS);
  }
  expect(&g, TI_DIAG_ERROR, "data", 2, -1, "outside TERNARY range -1..1, the first is 2 at index 2");
  ti_task_graph_free(&g);
  build_lenet(&g);
  memset(&blk(&g, 1)->data, 0, sizeof blk(&g, 1)->data);   /* weights gone */
  expect(&g, TI_DIAG_ERROR, "data", 1, -1, "carries no data and nothing writes it");
  ti_task_graph_free(&g);
  build_lenet(&g);
  blk(&g, 2)->data.precision = TI_DTYPE_I16;
  expect(&g, TI_DIAG_ERROR, "data", 2, -1, "data precision INT_16 differs from the block precision INT_32");
  ti_task_graph_free(&g);
  build_lenet(&g);
  {   /* unsigned precision in int32_data */
    ti_task_block *b = blk(&g, 0);
    b->precision = TI_DTYPE_U8; b->data.precision = TI_DTYPE_U8;
  }
  expect(&g, TI_DIAG_ERROR, "data", 0, -1, "UINT_8 data belongs in uint32_data");
  ti_task_graph_free(&g);
}

TT_TEST(rule_cycle) {
  ti_task_graph g;
  ti_task_shape s = ti_task_shape_make(0, 0, 5, 48, 0, 0, 0, 0);
  ti_task_block *x;
  build_lenet(&g);
  /* SI 8 -> CVM 30 -> SI 4: a loop through CVM 7 back to SI 8 */
  x = ti_task_add_block(&g, 30, TI_BLOCK_CVM, TI_DTYPE_I32, &s);
  x->shape = ti_task_shape_make(0, 0, 48, 5, 0, 0, 0, 0);
  x->bias_type = TI_BIAS_CONSTANT; x->has |= TI_BLOCK_HAS_BIAS_TYPE;
  {
    ti_task_shape ws = ti_task_shape_make(0, 0, 48, 5, 0, 0, 0, 0);
    int32_t d[2] = {48, 5};
    ti_task_block *w = ti_task_add_block(&g, 31, TI_BLOCK_SWFC, TI_DTYPE_I8, &ws);
    fill(&g, w, 2, d);
  }
  TT_CHECK(ti_task_connect(&g, blk(&g, 8), 0, NULL, NULL, blk(&g, 30), 0, NULL, NULL) != NULL);
  TT_CHECK(ti_task_connect(&g, blk(&g, 31), 0, NULL, NULL, blk(&g, 30), 1, NULL, NULL) != NULL);
  /* CVM 30 writes SI 4 as [48]: a second writer of SI 4, in the same cluster */
  TT_CHECK(ti_task_connect(&g, blk(&g, 30), 0, NULL, NULL, blk(&g, 4), 0, NULL, NULL) != NULL);
  expect(&g, TI_DIAG_ERROR, "cycle", -2, -1, "the graph has a cycle");
  {
    ti_diag_list l;
    const ti_diag *d;
    ti_diag_list_init(&l, NULL);
    TT_EQ_INT(ti_task_check(&g, &l, NULL), l.n_errors ? TI_STATUS_INVALID : TI_STATUS_SUCCESS);
    d = find(&l, "cycle", -2, -1, NULL);
    TT_CHECK(d && (d->block_id == 4 || d->block_id == 7 || d->block_id == 8 || d->block_id == 30));
    /* the path names the four blocks of the loop */
    TT_CHECK(d && strstr(d->message, "4 <-") && strstr(d->message, "7 <-") && strstr(d->message, "30"));
    TT_EQ_INT(l.n_errors, 1);   /* two writers of one cluster are legal, so only the cycle */
    ti_diag_list_free(&l);
  }
  ti_task_graph_free(&g);
}

TT_TEST(rule_io) {
  ti_task_graph g;
  ti_task_shape s = ti_task_shape_make(0, 0, 5, 0, 0, 0, 0, 0);
  ti_task_block *o;
  build_lenet(&g);
  o = ti_task_add_block(&g, 40, TI_BLOCK_OUTPUT, TI_DTYPE_I32, &s);
  o->socket_id = 0; o->has |= TI_BLOCK_HAS_SOCKET_ID;
  TT_CHECK(ti_task_connect(&g, blk(&g, 8), 0, NULL, NULL, blk(&g, 40), 0, NULL, NULL) != NULL);
  expect(&g, TI_DIAG_ERROR, "io", 40, -1, "OUTPUT blocks 9 and 40 both have socket 0");
  blk(&g, 40)->socket_id = 1;
  TT_EQ_INT(n_diags(&g, NULL, NULL), 0);   /* a storage block may feed two OUTPUTs */
  blk(&g, 40)->has &= ~(uint32_t)TI_BLOCK_HAS_SOCKET_ID;
  TT_EQ_INT(n_diags(&g, NULL, NULL), 0);   /* no socket: addressed by its (unique) block id */
  blk(&g, 9)->socket_id = 40;                /* ... which is a socket like any other */
  expect(&g, TI_DIAG_ERROR, "io", -2, -1, "both have socket 40");
  blk(&g, 9)->socket_id = 0;
  {   /* a block whose id is -1 keeps its location (-1 is not "no block") */
    ti_diag_list l;
    ti_error err;
    int32_t i, seen = 0;
    ti_task_block *o40 = blk(&g, 40);
    o40->socket_id = -5; o40->has |= TI_BLOCK_HAS_SOCKET_ID;
    o40->id = -1;
    g.edges[g.n_edges - 1].dst_block_id = -1;   /* the edge into it */
    ti_diag_list_init(&l, NULL);
    ti_error_clear(&err);
    TT_EQ_INT(ti_task_check(&g, &l, &err), TI_STATUS_INVALID);
    for (i = 0; i < l.n; i++)
      if (!strcmp(l.items[i].rule, "io")) {
        seen = 1;
        TT_EQ_INT(l.items[i].block_id, -1);
        TT_CHECK((l.items[i].at & TI_DIAG_AT_BLOCK) != 0);
        TT_CHECK((l.items[i].at & TI_DIAG_AT_EDGE) == 0);
      }
    TT_CHECK(seen);
    TT_CHECK_MSG(strstr(err.message, "block -1:") != NULL, "%s", err.message);
    ti_diag_list_free(&l);
  }
  ti_task_graph_free(&g);
}

/* Ids are any int32, -1 included: an edge (and a block) whose id is -1 keeps
   its location, and a problem with no edge is not placed at edge -1. */
TT_TEST(negative_ids_keep_their_location) {
  static const char txt[] =
      "blocks { id: -1 type: SI shape { ny: 1 nx: 1 nf: 4 } output_clusters { interfaces { edge_id: -1 } } }\n"
      "blocks { id: 2 type: CVS shape { ny: 1 nx: 1 nf: 4 } input_clusters { interfaces { edge_id: -1 } }"
      " output_clusters { interfaces { edge_id: 5 } } }\n"
      "blocks { id: 3 type: SI shape { ny: 1 nx: 1 nf: 4 } input_clusters { interfaces { edge_id: 5 } } }\n"
      "edges { id: -1 src_block_id: -1 dst_block_id: 2 rearrange_info { type: SCALE matrix { int32_data: 0 } } }\n"
      "edges { id: 5 src_block_id: 2 dst_block_id: 3 }\n";
  ti_task_graph g;
  ti_diag_list l;
  ti_error err;
  int32_t i, edge_seen = 0, block_seen = 0;
  ti_task_graph_init(&g, NULL);
  TT_EQ_INT(ti_task_parse_text(&g, txt, sizeof txt - 1, &err), 0);
  ti_diag_list_init(&l, NULL);
  ti_error_clear(&err);
  TT_EQ_INT(ti_task_check(&g, &l, &err), TI_STATUS_INVALID);
  for (i = 0; i < l.n; i++) {
    const ti_diag *d = &l.items[i];
    if (!strcmp(d->rule, "rearrange")) {   /* an edge problem at edge -1 */
      edge_seen = 1;
      TT_CHECK((d->at & TI_DIAG_AT_EDGE) != 0);
      TT_CHECK((d->at & TI_DIAG_AT_BLOCK) == 0);
      TT_EQ_INT(d->edge_id, -1);
    }
    if (!strcmp(d->rule, "data")) {        /* a block problem at block -1, no edge */
      block_seen = 1;
      TT_CHECK((d->at & TI_DIAG_AT_BLOCK) != 0);
      TT_CHECK((d->at & TI_DIAG_AT_EDGE) == 0);
      TT_EQ_INT(d->block_id, -1);
    }
  }
  TT_CHECK(edge_seen);
  TT_CHECK(block_seen);
  TT_CHECK_MSG(strstr(err.message, "rearrange: edge -1: ") != NULL, "%s", err.message);
  ti_diag_list_free(&l);
  ti_task_graph_free(&g);
}

TT_TEST(rule_attributes) {
  ti_task_graph g;
  build_lenet(&g);
  TT_EQ_INT(ti_task_add_attr(&g, blk(&g, 3), TI_TASK_ATTR_STRIDE_X, 1), TI_STATUS_SUCCESS);
  expect(&g, TI_DIAG_ERROR, "attributes", 3, -1, "attribute STRIDE_X is given twice");
  ti_task_graph_free(&g);
  build_lenet(&g);
  blk(&g, 3)->attrs[2].int_value = 0;   /* STRIDE_X */
  expect(&g, TI_DIAG_ERROR, "attributes", 3, -1, "STRIDE_X = 0, it must be >= 1");
  ti_task_graph_free(&g);
  build_lenet(&g);
  blk(&g, 3)->attrs[6].int_value = -1;  /* PAD_LEFT */
  expect(&g, TI_DIAG_ERROR, "attributes", 3, -1, "PAD_LEFT = -1, it must be >= 0");
  ti_task_graph_free(&g);
  build_lenet(&g);
  blk(&g, 3)->attrs[0].type = (ti_attr_type)99;
  expect(&g, TI_DIAG_ERROR, "attributes", 3, -1, "unknown type 99");
  ti_task_graph_free(&g);
  build_lenet(&g);
  blk(&g, 3)->attrs[4].int_value = 0;   /* PAD_UP 0: 4 + 0 + 1 - 3 + 1 = 3 rows, not 4 */
  expect(&g, TI_DIAG_ERROR, "attributes", 3, -1, "ny = 4, but niy = 4 with kernel 3, stride 1, pads 0+1, dilation 1 gives 3");
  ti_task_graph_free(&g);
  build_lenet(&g);
  blk(&g, 3)->attrs[0].int_value = 5;   /* KERNEL_X against nkx 3 */
  expect(&g, TI_DIAG_ERROR, "attributes", 3, -1, "KERNEL_X = 5 but the shape's nkx = 3");
  ti_task_graph_free(&g);
  build_lenet(&g);
  TT_EQ_INT(ti_task_add_attr(&g, blk(&g, 3), TI_TASK_ATTR_BIT_SHIFT_NUM, 40), TI_STATUS_SUCCESS);
  expect(&g, TI_DIAG_ERROR, "attributes", 3, -1, "BIT_SHIFT_NUM = 40, it must be 0..31");
  ti_task_graph_free(&g);
}

TT_TEST(rule_groups_and_bias_type) {
  ti_task_graph g;
  int32_t ids[3] = {0, 3, 3};
  ti_task_group gr[2];
  build_lenet(&g);
  memset(gr, 0, sizeof gr);
  gr[0].has = TI_GROUP_HAS_ID; gr[0].group_id = 0; gr[0].n_block_ids = 3; gr[0].block_ids = ids;
  gr[1].has = TI_GROUP_HAS_ID; gr[1].group_id = 0;
  g.groups = gr; g.n_groups = 1;   /* in place of build_lenet's group */
  expect(&g, TI_DIAG_ERROR, "groups", 3, -1, "group 0 names block 3 twice");
  ids[2] = 77;
  expect(&g, TI_DIAG_ERROR, "groups", 77, -1, "group 0 names block 77, which does not exist");
  ids[2] = 7;
  TT_EQ_INT(n_diags(&g, NULL, NULL), 0);
  g.n_groups = 2;
  expect(&g, TI_DIAG_ERROR, "groups", -1, -1, "group id 0 is used by groups #0 and #1");
  g.n_groups = 0; g.groups = NULL;
  blk(&g, 3)->bias_type = (ti_bias_mode)5;
  expect(&g, TI_DIAG_ERROR, "attributes", 3, -1, "bias_type 5 is unknown");
  ti_task_graph_free(&g);
}

TT_TEST(every_problem_is_listed) {
  ti_task_graph g;
  ti_diag_list l;
  ti_error err;
  build_lenet(&g);
  blk(&g, 6)->id = 5;                       /* unique-ids */
  blk(&g, 7)->shape.ny = 2;                 /* dims */
  blk(&g, 1)->data.int32_data.count = 50;   /* data */
  edg(&g, 8)->dst_block_id = 42;            /* edge-ends */
  blk(&g, 3)->attrs[2].int_value = 0;       /* attributes */
  ti_diag_list_init(&l, NULL);
  ti_error_clear(&err);
  TT_EQ_INT(ti_task_check(&g, &l, &err), TI_STATUS_INVALID);
  TT_CHECK(find(&l, "unique-ids", 5, -1, NULL) != NULL);
  TT_CHECK(find(&l, "dims", 7, -1, "ny = 2") != NULL);
  TT_CHECK(find(&l, "data", 1, -1, "50 values") != NULL);
  TT_CHECK(find(&l, "edge-ends", -1, 8, "42") != NULL);
  TT_CHECK(find(&l, "attributes", 3, -1, "STRIDE_X") != NULL);
  TT_CHECK(l.n_errors >= 5);
  TT_EQ_INT(l.n, l.n_errors + l.n_warnings);
  /* err holds the first error listed */
  TT_CHECK(strstr(err.message, l.items[0].message) != NULL);
  ti_diag_list_free(&l);
  ti_task_graph_free(&g);
}

TT_TEST(statistics_by_hand) {
  ti_task_graph g;
  ti_task_stats s;
  ti_error err;
  int32_t i;
  build_lenet(&g);
  ti_error_clear(&err);
  TT_EQ_INT(ti_task_statistics(&g, &s, 1, &err), TI_STATUS_SUCCESS);
  /* CC 3: 4x4 outputs x 3 channels x 2 inputs x 3x3 window; CVM 7: 5 x 48 */
  TT_EQ_INT(s.macs, 4 * 4 * 3 * 2 * 3 * 3 + 5 * 48);
  /* weights 3x2x3x3 + bias 3, weights 5x48 + bias 5 */
  TT_EQ_INT(s.params, (3 * 2 * 3 * 3 + 3) + (5 * 48 + 5));
  TT_EQ_INT(s.data_elems, 4 * 4 * 2 + 3 * 2 * 3 * 3 + 3 + 5 * 48 + 5);
  TT_EQ_INT(s.out_elems, 4 * 4 * 3 + 5);
  /* INT_8: SIC 32, SW 54, SWFC 240; INT_32: SB 3, SI 48, SB 5, SI 5 (x4 bytes) */
  TT_EQ_INT(s.storage_bytes[TI_DTYPE_I8], 32 + 54 + 240);
  TT_EQ_INT(s.storage_bytes[TI_DTYPE_I32], 4 * (3 + 48 + 5 + 5));
  TT_EQ_INT(s.storage_total, 32 + 54 + 240 + 4 * (3 + 48 + 5 + 5));
  /* per edge, elements x bytes of the source: SIC 32x1, SW 54x1, SB 3x4,
     CC 48x4, SI 48x4, SWFC 240x1, SB 5x4, CVM 5x4, SI 5x4 */
  TT_EQ_INT(s.edge_bytes, 32 + 54 + 12 + 192 + 192 + 240 + 20 + 20 + 20);
  TT_EQ_INT(s.blocks, 10);
  TT_EQ_INT(s.edges, 9);
  TT_EQ_INT(s.n_blocks, 10);
  TT_CHECK(s.per_block != NULL);
  for (i = 0; s.per_block && i < s.n_blocks; i++) {
    const ti_task_block_stats *b = &s.per_block[i];
    TT_EQ_INT(b->block_id, g.blocks[i].id);
    switch (b->block_id) {
    case 3: TT_EQ_INT(b->macs, 864); TT_EQ_INT(b->params, 57); TT_EQ_INT(b->out_elems, 48); break;
    case 7: TT_EQ_INT(b->macs, 240); TT_EQ_INT(b->params, 245); TT_EQ_INT(b->out_elems, 5); break;
    case 1: TT_EQ_INT(b->params, 54); TT_EQ_INT(b->storage_bytes, 54); TT_EQ_INT(b->macs, 0); break;
    case 4: TT_EQ_INT(b->params, 0); TT_EQ_INT(b->storage_bytes, 192); break;
    case 9: TT_EQ_INT(b->out_elems, 0); TT_EQ_INT(b->storage_bytes, 0); break;
    default: break;
    }
  }
  ti_task_stats_free(&s, NULL);
  TT_CHECK(s.per_block == NULL);
  /* totals only */
  TT_EQ_INT(ti_task_statistics(&g, &s, 0, NULL), TI_STATUS_SUCCESS);
  TT_CHECK(s.per_block == NULL);
  TT_EQ_INT(s.macs, 1104);
  ti_task_stats_free(&s, NULL);
  ti_task_graph_free(&g);
}

TT_TEST(statistics_of_windows_and_elementwise) {
  /* CAVG 2x2/2 over [4][4][2] with a bias, then CLUT over the result */
  ti_task_graph g;
  ti_task_stats s;
  ti_task_shape sh;
  int32_t d_in[3] = {4, 4, 2}, d_b[1] = {2}, d_l[1] = {256};
  ti_task_graph_init(&g, NULL);
  sh = ti_task_shape_make(4, 4, 2, 0, 0, 0, 0, 0); fill(&g, ti_task_add_block(&g, 0, TI_BLOCK_SI, TI_DTYPE_I8, &sh), 3, d_in);
  sh = ti_task_shape_make(0, 0, 2, 0, 0, 0, 0, 0); fill(&g, ti_task_add_block(&g, 1, TI_BLOCK_SB, TI_DTYPE_I32, &sh), 1, d_b);
  sh = ti_task_shape_make(2, 2, 2, 0, 2, 2, 4, 4); ti_task_add_block(&g, 2, TI_BLOCK_CAVG, TI_DTYPE_I32, &sh);
  blk(&g, 2)->bias_type = TI_BIAS_VECTOR; blk(&g, 2)->has |= TI_BLOCK_HAS_BIAS_TYPE;
  TT_EQ_INT(ti_task_add_attr(&g, blk(&g, 2), TI_TASK_ATTR_STRIDE_X, 2), TI_STATUS_SUCCESS); TT_EQ_INT(ti_task_add_attr(&g, blk(&g, 2), TI_TASK_ATTR_STRIDE_Y, 2), TI_STATUS_SUCCESS);
  sh = ti_task_shape_make(2, 2, 2, 0, 0, 0, 0, 0); ti_task_add_block(&g, 3, TI_BLOCK_SI, TI_DTYPE_I8, &sh);
  sh = ti_task_shape_make(0, 0, 256, 0, 0, 0, 0, 0); fill(&g, ti_task_add_block(&g, 4, TI_BLOCK_SB, TI_DTYPE_I8, &sh), 1, d_l);
  sh = ti_task_shape_make(2, 2, 2, 0, 0, 0, 0, 0); ti_task_add_block(&g, 5, TI_BLOCK_CLUT, TI_DTYPE_I8, &sh);
  TT_EQ_INT(ti_task_add_attr(&g, blk(&g, 5), TI_TASK_ATTR_LUT_DW, 8), TI_STATUS_SUCCESS);
  sh = ti_task_shape_make(2, 2, 2, 0, 0, 0, 0, 0); ti_task_add_block(&g, 6, TI_BLOCK_SI, TI_DTYPE_I8, &sh);
  ti_task_connect(&g, blk(&g, 0), 0, NULL, NULL, blk(&g, 2), 0, NULL, NULL);
  ti_task_connect(&g, blk(&g, 1), 0, NULL, NULL, blk(&g, 2), 1, NULL, NULL);
  ti_task_connect(&g, blk(&g, 2), 0, NULL, NULL, blk(&g, 3), 0, NULL, NULL);
  ti_task_connect(&g, blk(&g, 3), 0, NULL, NULL, blk(&g, 5), 0, NULL, NULL);
  ti_task_connect(&g, blk(&g, 4), 0, NULL, NULL, blk(&g, 5), 1, NULL, NULL);
  ti_task_connect(&g, blk(&g, 5), 0, NULL, NULL, blk(&g, 6), 0, NULL, NULL);
  TT_EQ_INT(n_diags(&g, NULL, NULL), 0);
  TT_EQ_INT(ti_task_statistics(&g, &s, 0, NULL), TI_STATUS_SUCCESS);
  /* CAVG: 2x2x2 outputs x 2x2 window adds; CLUT: one lookup per element */
  TT_EQ_INT(s.macs, 2 * 2 * 2 * 2 * 2 + 2 * 2 * 2);
  TT_EQ_INT(s.params, 2 + 256);   /* CAVG bias, CLUT table */
  TT_EQ_INT(s.edge_bytes, 32 + 2 * 4 + 8 * 4 + 8 + 256 + 8);
  ti_task_stats_free(&s, NULL);
  ti_task_graph_free(&g);
}

TT_TEST(out_of_memory_is_reported) {
  ti_task_graph g;
  ti_diag_list l;
  ti_error err;
  tt_budget budget;
  int k, saw_list_oom = 0;
  build_lenet(&g);
  blk(&g, 6)->id = 5; blk(&g, 7)->shape.ny = 2; blk(&g, 3)->attrs[2].int_value = 0;
  for (k = 0; k < 20; k++) TT_EQ_INT(ti_task_add_attr(&g, blk(&g, 3), TI_TASK_ATTR_CMP, 0), TI_STATUS_SUCCESS);   /* 19 duplicates: > 16 problems */
  /* 3 scratch arrays, the list (16 entries), a copy of the RESHAPE
     parameters, the list grown to 32 */
  for (k = 0; k < 6; k++) {
    budget.left = k;
    ti_diag_list_init(&l, &budget);
    ti_error_clear(&err);
    TT_EQ_INT(ti_task_check(&g, &l, &err), TI_STATUS_NO_MEMORY);
    TT_EQ_INT(err.status, TI_STATUS_NO_MEMORY);
    TT_CHECK(strstr(err.message, "out of memory") != NULL);
    saw_list_oom |= l.n > 0;   /* failed while growing, with problems listed */
    ti_diag_list_free(&l);
  }
  TT_CHECK(saw_list_oom);
  budget.left = 6;
  ti_diag_list_init(&l, &budget);
  TT_EQ_INT(ti_task_check(&g, &l, NULL), TI_STATUS_INVALID);
  TT_CHECK(l.n > 16);
  ti_diag_list_free(&l);
  ti_task_graph_free(&g);
}

/* Random mutations of a valid graph: any field, any value; the checker and
   statistics must neither crash nor read out of bounds (run under ASan). */
static int32_t wild(tt_rng *r) {
  static const int32_t picks[] = { 0, 1, -1, 2, 3, 4, 5, 7, 8, 9, 16, 48, 50, 51, 100, 255, 256, -128, 65535,
                                   INT32_MAX, INT32_MIN, INT32_MAX - 1, 1 << 20, 1 << 30 };
  if (tt_range(r, 0, 3) == 0) return (int32_t)(uint32_t)tt_next(r);
  return picks[tt_range(r, 0, (int64_t)(sizeof picks / sizeof *picks) - 1)];
}

static int32_t *pick_shape_field(ti_task_shape *s, tt_rng *r) {
  switch (tt_range(r, 0, 8)) {
  case 0: return &s->nx; case 1: return &s->ny; case 2: return &s->nf; case 3: return &s->nr;
  case 4: return &s->nkx; case 5: return &s->nky; case 6: return &s->niy; case 7: return &s->nix;
  default: return &s->n_branch;
  }
}

static void mutate(ti_task_graph *g, tt_rng *r) {
  ti_task_block *b = &g->blocks[tt_range(r, 0, g->n_blocks - 1)];
  ti_task_edge *e = &g->edges[tt_range(r, 0, g->n_edges - 1)];
  int32_t v = wild(r);
  switch (tt_range(r, 0, 22)) {
  case 22: if (g->n_groups && g->groups[0].n_block_ids) {
             if (tt_range(r, 0, 1)) g->groups[0].block_ids[tt_range(r, 0, g->groups[0].n_block_ids - 1)] = v;
             else g->groups[0].n_block_ids = (int32_t)tt_range(r, 0, g->groups[0].n_block_ids);
           }
           break;
  case 0: b->id = v; break;
  case 1: b->type = (ti_block_type)(tt_range(r, 0, 3) ? tt_range(r, 0, TI_BLOCK_COUNT - 1) : v); break;
  case 2: b->precision = (ti_dtype)(tt_range(r, 0, 3) ? tt_range(r, 0, TI_DTYPE_COUNT - 1) : v); break;
  case 3: *pick_shape_field(&b->shape, r) = v; break;
  case 4: b->shape.has ^= 1u << tt_range(r, 0, 8); break;
  case 5: b->bias_type = (ti_bias_mode)v; b->has ^= TI_BLOCK_HAS_BIAS_TYPE; break;
  case 6: b->socket_id = v; b->has ^= TI_BLOCK_HAS_SOCKET_ID; break;
  case 7: if (b->n_inputs) b->n_inputs = (int32_t)tt_range(r, 0, b->n_inputs - 1); break;
  case 8: if (b->n_outputs) b->n_outputs = (int32_t)tt_range(r, 0, b->n_outputs - 1); break;
  case 9: case 10: {
    ti_task_cluster *c = b->n_inputs && tt_range(r, 0, 1) ? &b->inputs[0] : b->n_outputs ? &b->outputs[0] : NULL;
    if (!c) break;
    if (tt_range(r, 0, 2) == 0) { c->has ^= TI_CLUSTER_HAS_SHAPE; *pick_shape_field(&c->shape, r) = v; }
    else if (c->n_interfaces) {
      ti_task_interface *f = &c->interfaces[0];
      switch (tt_range(r, 0, 3)) {
      case 0: f->edge_id = v; break;
      case 1: f->has ^= (uint32_t)tt_range(r, 1, 7); break;
      case 2: *pick_shape_field(&f->position, r) = v; break;
      default: *pick_shape_field(&f->size, r) = v; break;
      }
    }
    break;
  }
  case 11: if (b->data.n_dims) b->data.dims[tt_range(r, 0, b->data.n_dims - 1)] = v; break;
  case 12: if (b->data.int32_data.count) b->data.int32_data.count = tt_range(r, 0, b->data.int32_data.count); break;
  case 13: b->data.precision = (ti_dtype)(tt_range(r, 0, 3) ? tt_range(r, 0, TI_DTYPE_COUNT - 1) : v);
           b->data.has ^= TI_TENSOR_HAS_PRECISION; break;
  case 14: if (b->data.n_dims) b->data.n_dims = (int32_t)tt_range(r, 0, b->data.n_dims); break;
  case 15: if (b->n_attrs) { ti_task_attr *a = &b->attrs[tt_range(r, 0, b->n_attrs - 1)];
             if (tt_range(r, 0, 1)) a->int_value = v; else a->type = (ti_attr_type)(tt_range(r, 0, 3) ? tt_range(r, 0, TI_TASK_ATTR_COUNT - 1) : v); }
           break;
  case 16: e->id = v; break;
  case 17: e->src_block_id = v; e->has ^= tt_range(r, 0, 1) ? TI_EDGE_HAS_SRC : 0; break;
  case 18: e->dst_block_id = v; e->has ^= tt_range(r, 0, 1) ? TI_EDGE_HAS_DST : 0; break;
  case 19: if (e->n_rearrange) e->rearrange[0].type = (ti_rearrange_kind)(tt_range(r, 0, 1) ? tt_range(r, 0, TI_REARRANGE_COUNT - 1) : v); break;
  case 20: if (e->n_rearrange && e->rearrange[0].n_matrix && e->rearrange[0].matrix[0].int32_data.count) {
             ti_task_values *m = &e->rearrange[0].matrix[0].int32_data;
             if (tt_range(r, 0, 1)) m->count = tt_range(r, 0, m->count);
             else ((int8_t *)m->data)[tt_range(r, 0, m->count - 1)] = (int8_t)v;
           }
           break;
  default: { /* swap two edges' ends: rewires, may create cycles */
    ti_task_edge *f = &g->edges[tt_range(r, 0, g->n_edges - 1)];
    int32_t t = e->dst_block_id; e->dst_block_id = f->dst_block_id; f->dst_block_id = t;
    break;
  }
  }
}

TT_TEST(random_mutations_never_crash) {
  tt_rng r;
  int it, k, n_invalid = 0;
  r.s = 0x9e3779b97f4a7c15ull;
  for (it = 0; it < 3000; it++) {
    ti_task_graph g;
    ti_diag_list l;
    ti_task_stats s;
    ti_status st;
    int n = (int)tt_range(&r, 1, 6);
    build_lenet(&g);
    for (k = 0; k < n; k++) mutate(&g, &r);
    ti_diag_list_init(&l, NULL);
    st = ti_task_check(&g, &l, NULL);
    TT_CHECK(st == TI_STATUS_SUCCESS || st == TI_STATUS_INVALID);
    TT_CHECK((st == TI_STATUS_INVALID) == (l.n_errors > 0));
    for (k = 0; k < l.n; k++) TT_CHECK(l.items[k].rule && l.items[k].message[0]);
    n_invalid += st == TI_STATUS_INVALID;
    ti_diag_list_free(&l);
    st = ti_task_statistics(&g, &s, 1, NULL);
    TT_CHECK(st == TI_STATUS_SUCCESS || st == TI_STATUS_LIMIT);
    TT_CHECK(s.macs >= 0 && s.params >= 0 && s.edge_bytes >= 0 && s.storage_total >= 0);
    ti_task_stats_free(&s, NULL);
    ti_task_graph_free(&g);
  }
  TT_CHECK(n_invalid > 1000);   /* the mutations do break graphs */
}

/* The same on the decoded fixtures (binary form: quick to decode). */
TT_TEST(random_mutations_of_fixtures_never_crash) {
  static const char *const cases[] = { "cadd", "cavg", "cax", "cc", "ccmpb", "clut", "cvm", "cvs", "cvvh" };
  char path[1024];
  size_t i;
  tt_rng r;
  FILE *f;
  snprintf(path, sizeof path, "%s/cvm.task.pb", tt_fixtures());
  if (!(f = fopen(path, "rb"))) TT_SKIP("fixtures not found; set TASKIR_FIXTURES");
  fclose(f);
  r.s = 0x2545f4914f6cdd1dull;
  for (i = 0; i < sizeof cases / sizeof *cases; i++) {
    int it, k;
    snprintf(path, sizeof path, "%s/%s.task.pb", tt_fixtures(), cases[i]);
    for (it = 0; it < 60; it++) {
      ti_task_graph g;
      ti_diag_list l;
      ti_task_stats s;
      ti_status st;
      ti_task_graph_init(&g, NULL);
      if (ti_task_read_file(path, &g, NULL) != TI_STATUS_SUCCESS || !g.n_blocks || !g.n_edges) {
        TT_CHECK_MSG(0, "%s does not decode", path);
        ti_task_graph_free(&g);
        break;
      }
      for (k = 0; k < 1 + it % 4; k++) mutate(&g, &r);
      ti_diag_list_init(&l, NULL);
      st = ti_task_check(&g, &l, NULL);
      TT_CHECK((st == TI_STATUS_INVALID) == (l.n_errors > 0) && (st == TI_STATUS_SUCCESS || st == TI_STATUS_INVALID));
      ti_diag_list_free(&l);
      st = ti_task_statistics(&g, &s, 1, NULL);
      TT_CHECK(st == TI_STATUS_SUCCESS || st == TI_STATUS_LIMIT);
      ti_task_stats_free(&s, NULL);
      ti_task_graph_free(&g);
    }
  }
}

int main(void) {
  TT_RUN(valid_graph_is_clean);
  TT_RUN(fixtures_pass);
  TT_RUN(rule_unique_ids);
  TT_RUN(rule_block_type_and_precision);
  TT_RUN(rule_alternation);
  TT_RUN(rule_dims);
  TT_RUN(rule_dims_cadd_window_must_be_one);
  TT_RUN(rule_clusters);
  TT_RUN(rule_interface_box);
  TT_RUN(rule_interface_box_partial_ok);
  TT_RUN(rule_edge_ends);
  TT_RUN(ids_dense_sparse_or_unsorted);
  TT_RUN(rule_edge_size);
  TT_RUN(rule_edge_size_implicit_reshape_warns);
  TT_RUN(rule_rearrange);
  TT_RUN(rule_edge_size_after_rearrangement);
  TT_RUN(rule_data);
  TT_RUN(rule_cycle);
  TT_RUN(rule_io);
  TT_RUN(negative_ids_keep_their_location);
  TT_RUN(rule_attributes);
  TT_RUN(rule_groups_and_bias_type);
  TT_RUN(every_problem_is_listed);
  TT_RUN(statistics_by_hand);
  TT_RUN(statistics_of_windows_and_elementwise);
  TT_RUN(out_of_memory_is_reported);
  TT_RUN(random_mutations_never_crash);
  TT_RUN(random_mutations_of_fixtures_never_crash);
  return tt_finish();
}
