/* What the checker accepts, the executor runs, within bounds: rearrangement
   amplification (checker and executor), the plan's memory budget, CLIF
   parameters and pooling windows named by both, the element cap, the socket
   rule, required inputs before planning, an SI with data and an empty input
   cluster, statistics that saturate. */
#define TASKIR_IMPLEMENTATION
#include "taskir_proto.h"
#include "taskir_exec.h"
#include "tt.h"

static ti_task_block *B(ti_task_graph *g, int32_t id) { return (ti_task_block *)ti_task_find_block(g, id); }
static ti_task_block *add(ti_task_graph *g, int32_t id, ti_block_type t, ti_dtype p, ti_task_shape s) {
  ti_task_block *b = ti_task_add_block(g, id, t, p, &s);
  TT_CHECK(b != NULL);
  return b;
}
static ti_task_edge *link0(ti_task_graph *g, int32_t s, int32_t d, int32_t dc) {
  ti_task_edge *e = ti_task_connect(g, B(g, s), 0, NULL, NULL, B(g, d), dc, NULL, NULL);
  TT_CHECK(e != NULL);
  return e;
}
/* A rearrangement with one or two int32 parameter tensors. */
static void rearr(ti_task_graph *g, ti_task_edge *e, ti_rearrange_kind kind, const int32_t *m0, int n0, const int32_t *m1,
                  int n1) {
  int32_t d0 = n0;
  TT_EQ_INT(ti_task_add_rearrange(g, e, kind, 1, &d0, m0, n0), 0);
  if (m1) {
    ti_task_rearrange *r = &e->rearrange[e->n_rearrange - 1];
    ti_task_tensor *mt = (ti_task_tensor *)ti_arena_array(&g->arena, 2, sizeof *mt, 8);
    int32_t *dd = (int32_t *)ti_arena_alloc(&g->arena, 4, 4), *vv = (int32_t *)ti_arena_array(&g->arena, (size_t)n1, 4, 4);
    memset(mt, 0, 2 * sizeof *mt);
    mt[0] = r->matrix[0];
    *dd = n1;
    memcpy(vv, m1, (size_t)n1 * 4);
    mt[1].has = TI_TENSOR_HAS_PRECISION; mt[1].precision = TI_DTYPE_I32; mt[1].n_dims = 1; mt[1].dims = dd;
    mt[1].int32_data.count = n1; mt[1].int32_data.storage = TI_DTYPE_I32; mt[1].int32_data.data = vv;
    r->matrix = mt; r->n_matrix = 2;
  }
}
/* First checker error, its message in err. */
static ti_status check(const ti_task_graph *g, ti_error *err, ti_diag *first) {
  ti_diag_list l;
  ti_status s;
  ti_diag_list_init(&l, NULL);
  ti_error_clear(err);
  s = ti_task_check(g, &l, err);
  memset(first, 0, sizeof *first);
  {
    int32_t i;
    for (i = 0; i < l.n; i++) if (l.items[i].severity == TI_DIAG_ERROR) { *first = l.items[i]; break; }
  }
  ti_diag_list_free(&l);
  return s;
}
static ti_status plan(const ti_task_graph *g, int skip_check, int64_t max_bytes, ti_exec **x, ti_error *err) {
  ti_exec_options o;
  ti_exec_options_init(&o);
  o.skip_check = skip_check;
  if (max_bytes) o.max_bytes = max_bytes;
  ti_error_clear(err);
  return ti_exec_plan(g, &o, x, err);
}

/* SI(4x8x1, data) -edge-> CVS -> SI -> OUTPUT; the edge gets `kind`. */
static void small_chain(ti_task_graph *g, ti_task_edge **edge) {
  int32_t dims[3] = {4, 8, 1}, v[32], k;
  for (k = 0; k < 32; k++) v[k] = k;
  ti_task_graph_init(g, NULL);
  add(g, 0, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(4, 8, 1, 0, 0, 0, 0, 0));
  TT_EQ_INT(ti_task_set_data(g, B(g, 0), TI_DTYPE_I32, 3, dims, v), 0);
  add(g, 1, TI_BLOCK_CVS, TI_DTYPE_I32, ti_task_shape_make(4, 8, 1, 0, 0, 0, 0, 0));
  TT_EQ_INT(ti_task_add_attr(g, B(g, 1), TI_TASK_ATTR_CONSTANT_A, 1), 0);
  add(g, 2, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(4, 8, 1, 0, 0, 0, 0, 0));
  add(g, 3, TI_BLOCK_OUTPUT, TI_DTYPE_I32, ti_task_shape_make(4, 8, 1, 0, 0, 0, 0, 0));
  link0(g, 0, 1, 0); link0(g, 1, 2, 0); link0(g, 2, 3, 0);
  *edge = &g->edges[0];   /* after the last connect: the edge array may move */
}

/* SCALE to 2^30 elements, then SHUFFLEs back to 32: the checker names the
   edge and the step, the executor (unchecked) refuses before allocating. */
TT_TEST(amplification_bounded) {
  ti_task_graph g;
  ti_task_edge *e;
  ti_error err;
  ti_diag d;
  ti_exec *x = NULL;
  int32_t scale[2] = {8192, 4096}, ax0 = 0, ax1 = 1, i4[4] = {0, 1, 2, 3}, i8[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  small_chain(&g, &e);
  rearr(&g, e, TI_REARRANGE_SCALE, scale, 2, NULL, 0);
  rearr(&g, e, TI_REARRANGE_SHUFFLE, i4, 4, &ax0, 1);
  rearr(&g, e, TI_REARRANGE_SHUFFLE, i8, 8, &ax1, 1);
  TT_EQ_INT(check(&g, &err, &d), TI_STATUS_INVALID);
  TT_EQ_STR(d.rule, "rearrange");
  TT_EQ_INT(d.edge_id, e->id);
  TT_CHECK_MSG(strstr(d.message, "rearrangement #0 (SCALE) makes 1073741824 elements") != NULL, "%s", d.message);
  TT_EQ_INT(plan(&g, 0, 0, &x, &err), TI_STATUS_INVALID);
  TT_CHECK(x == NULL);
  TT_EQ_INT(plan(&g, 1, 0, &x, &err), TI_STATUS_INVALID);   /* the executor's own rule */
  TT_CHECK_MSG(strstr(err.message, "rearrangement #0 (SCALE) makes 1073741824 elements") != NULL, "%s", err.message);
  TT_CHECK(x == NULL);
  ti_task_graph_free(&g);
  /* within the bound: SCALE x2 then SHUFFLE back, checked and run */
  small_chain(&g, &e);
  {
    int32_t s2[2] = {2, 2}, even4[4] = {0, 2, 4, 6}, even8[8] = {0, 2, 4, 6, 8, 10, 12, 14};
    ti_exec_tensor t;
    int k, ok = 1;
    rearr(&g, e, TI_REARRANGE_SCALE, s2, 2, NULL, 0);
    rearr(&g, e, TI_REARRANGE_SHUFFLE, even4, 4, &ax0, 1);
    rearr(&g, e, TI_REARRANGE_SHUFFLE, even8, 8, &ax1, 1);
    TT_EQ_INT(check(&g, &err, &d), TI_STATUS_SUCCESS);
    TT_EQ_INT(plan(&g, 0, 0, &x, &err), TI_STATUS_SUCCESS);
    if (x) {
      TT_EQ_INT(ti_exec_run(x, &err), 0);
      TT_EQ_INT(ti_exec_output(x, 3, &t, &err), 0);
      for (k = 0; k < 32; k++) ok &= ti_exec_tensor_i64(&t, k) == k;
      TT_CHECK(ok);
      ti_exec_free(x);
    }
  }
  ti_task_graph_free(&g);
}

/* A plan over its budget fails with LIMIT before allocating, saying what
   needs how many bytes; with room it plans. */
TT_TEST(memory_budget) {
  ti_task_graph g;
  ti_error err;
  ti_exec *x = NULL;
  ti_exec_options o;
  int32_t dims[3] = {64, 64, 16}, *v = (int32_t *)calloc(65536, sizeof(int32_t));
  ti_exec_options_init(&o);
  TT_EQ_INT(o.max_bytes, TASKIR_EXEC_MAX_BYTES);
  ti_task_graph_init(&g, NULL);
  add(&g, 0, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(64, 64, 16, 0, 0, 0, 0, 0));
  v[5] = 1000;   /* int32 storage */
  TT_EQ_INT(ti_task_set_data(&g, B(&g, 0), TI_DTYPE_I32, 3, dims, v), 0);
  add(&g, 1, TI_BLOCK_CVS, TI_DTYPE_I32, ti_task_shape_make(64, 64, 16, 0, 0, 0, 0, 0));
  TT_EQ_INT(ti_task_add_attr(&g, B(&g, 1), TI_TASK_ATTR_CONSTANT_A, 1), 0);
  add(&g, 2, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(64, 64, 16, 0, 0, 0, 0, 0));
  add(&g, 3, TI_BLOCK_OUTPUT, TI_DTYPE_I32, ti_task_shape_make(64, 64, 16, 0, 0, 0, 0, 0));
  link0(&g, 0, 1, 0); link0(&g, 1, 2, 0); link0(&g, 2, 3, 0);
  TT_EQ_INT(plan(&g, 0, 100000, &x, &err), TI_STATUS_LIMIT);
  TT_CHECK(x == NULL);
  TT_CHECK_MSG(strstr(err.message, "block 0 (SI): a buffer needs 262144 bytes") != NULL, "%s", err.message);
  TT_CHECK_MSG(strstr(err.message, "memory budget of 100000 bytes (ti_exec_options.max_bytes)") != NULL, "%s", err.message);
  TT_EQ_INT(plan(&g, 0, 300000, &x, &err), TI_STATUS_LIMIT);   /* the constant fits, the arena does not */
  TT_CHECK_MSG(strstr(err.message, "the activation arena needs") != NULL, "%s", err.message);
  TT_EQ_INT(plan(&g, 0, 1 << 20, &x, &err), TI_STATUS_SUCCESS);
  if (x) {
    ti_exec_info info;
    ti_exec_get_info(x, &info);
    TT_CHECK(info.plan_bytes <= 1 << 20);
    ti_exec_free(x);
  }
  TT_EQ_INT(plan(&g, 0, -1, &x, &err), TI_STATUS_SUCCESS);   /* negative: no limit */
  ti_exec_free(x);
  ti_task_graph_free(&g);
  free(v);
}

/* A rearranged edge costs its copy runs, not an index map of 8 bytes per
   element: REFLECT on y of 64x64x16 (65536 elements, which a map would
   take 512 KiB for, twice while it is rebuilt) plans in the same 1 MiB
   budget as the plain edge, and reads the rows reversed. */
TT_TEST(rearranged_edge_without_index_map) {
  ti_task_graph g;
  ti_error err;
  ti_exec *x = NULL;
  ti_task_edge *e;
  int32_t dims[3] = {64, 64, 16}, ax0 = 0, *v = (int32_t *)calloc(65536, sizeof(int32_t)), k;
  for (k = 0; k < 65536; k++) v[k] = k * 7 - 3000;
  ti_task_graph_init(&g, NULL);
  add(&g, 0, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(64, 64, 16, 0, 0, 0, 0, 0));
  TT_EQ_INT(ti_task_set_data(&g, B(&g, 0), TI_DTYPE_I32, 3, dims, v), 0);
  add(&g, 1, TI_BLOCK_CVS, TI_DTYPE_I32, ti_task_shape_make(64, 64, 16, 0, 0, 0, 0, 0));
  TT_EQ_INT(ti_task_add_attr(&g, B(&g, 1), TI_TASK_ATTR_CONSTANT_A, 1), 0);
  add(&g, 2, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(64, 64, 16, 0, 0, 0, 0, 0));
  add(&g, 3, TI_BLOCK_OUTPUT, TI_DTYPE_I32, ti_task_shape_make(64, 64, 16, 0, 0, 0, 0, 0));
  link0(&g, 0, 1, 0); link0(&g, 1, 2, 0); link0(&g, 2, 3, 0);
  e = &g.edges[0];
  rearr(&g, e, TI_REARRANGE_REFLECT, &ax0, 1, NULL, 0);
  TT_EQ_INT(plan(&g, 0, 1 << 20, &x, &err), TI_STATUS_SUCCESS);
  if (x) {
    ti_exec_tensor t;
    ti_exec_info info;
    int ok = 1;
    ti_exec_get_info(x, &info);
    TT_CHECK_MSG(info.map_bytes < 4096, "copy program of %lld bytes", (long long)info.map_bytes);
    TT_EQ_INT(ti_exec_run(x, &err), 0);
    TT_EQ_INT(ti_exec_output(x, 3, &t, &err), 0);
    for (k = 0; k < 65536; k++) ok &= ti_exec_tensor_i64(&t, k) == v[(63 - k / 1024) * 1024 + k % 1024];
    TT_CHECK(ok);
    ti_exec_free(x);
  }
  ti_task_graph_free(&g);
  free(v);
}

/* SI -> CLIF -> SI -> OUTPUT with one attribute set. */
static void clif_graph(ti_task_graph *g, ti_attr_type a, int32_t v) {
  int32_t dims[1] = {4}, d[4] = {1, 2, 3, 4};
  ti_task_graph_init(g, NULL);
  add(g, 0, TI_BLOCK_SI, TI_DTYPE_I8, ti_task_shape_make(0, 0, 4, 0, 0, 0, 0, 0));
  TT_EQ_INT(ti_task_set_data(g, B(g, 0), TI_DTYPE_I8, 1, dims, d), 0);
  add(g, 1, TI_BLOCK_CLIF, TI_DTYPE_I8, ti_task_shape_make(0, 0, 4, 0, 0, 0, 0, 0));
  TT_EQ_INT(ti_task_add_attr(g, B(g, 1), a, v), 0);
  add(g, 2, TI_BLOCK_SI, TI_DTYPE_I8, ti_task_shape_make(0, 0, 4, 0, 0, 0, 0, 0));
  add(g, 3, TI_BLOCK_OUTPUT, TI_DTYPE_I8, ti_task_shape_make(0, 0, 4, 0, 0, 0, 0, 0));
  link0(g, 0, 1, 0); link0(g, 1, 2, 0); link0(g, 2, 3, 0);
}

TT_TEST(clif_attributes_agree) {
  static const struct { ti_attr_type a; int32_t v; const char *name; ti_status run; } cases[] = {
    { TI_TASK_ATTR_FIRE_TYPE, 99, "FIRE_TYPE = 99", TI_STATUS_INVALID },
    { TI_TASK_ATTR_RESET_MODE, 99, "RESET_MODE = 99", TI_STATUS_INVALID },
    { TI_TASK_ATTR_RESET_MODE, -1, "RESET_MODE = -1", TI_STATUS_INVALID },
    { TI_TASK_ATTR_VTH0, INT32_MIN, "VTH0 = -2147483648", TI_STATUS_INVALID },
    { TI_TASK_ATTR_VR, INT32_MAX, "VR = 2147483647", TI_STATUS_INVALID },
    { TI_TASK_ATTR_REF_LEN, 40, "REF_LEN = 40", TI_STATUS_NOT_SUPPORTED },
    { TI_TASK_ATTR_FIRE_TYPE, 6, "FIRE_TYPE = 6", TI_STATUS_NOT_SUPPORTED },
  };
  size_t i;
  for (i = 0; i < sizeof cases / sizeof *cases; i++) {
    ti_task_graph g;
    ti_error err;
    ti_diag d;
    ti_exec *x = NULL;
    clif_graph(&g, cases[i].a, cases[i].v);
    TT_EQ_INT(check(&g, &err, &d), TI_STATUS_INVALID);
    TT_EQ_STR(d.rule, "attributes");
    TT_EQ_INT(d.block_id, 1);
    TT_CHECK_MSG(strstr(d.message, cases[i].name) != NULL, "%s", d.message);
    TT_EQ_INT(plan(&g, 1, 0, &x, &err), cases[i].run);   /* unchecked: the plan names it too */
    TT_CHECK_MSG(strstr(err.message, cases[i].name) != NULL, "%s", err.message);
    TT_CHECK(x == NULL);
    ti_task_graph_free(&g);
  }
  {   /* in range: checked and run */
    ti_task_graph g;
    ti_error err;
    ti_diag d;
    ti_exec *x = NULL;
    clif_graph(&g, TI_TASK_ATTR_VTH0, 2);
    TT_EQ_INT(check(&g, &err, &d), TI_STATUS_SUCCESS);
    TT_EQ_INT(plan(&g, 0, 0, &x, &err), TI_STATUS_SUCCESS);
    if (x) { TT_EQ_INT(ti_exec_run(x, &err), 0); ti_exec_free(x); }
    ti_task_graph_free(&g);
  }
}

/* CCMPB with a window over TASKIR_MAX_WINDOW: a checker error, not a run
   failure. */
TT_TEST(ccmpb_window_limit) {
  ti_task_graph g;
  ti_error err;
  ti_diag d;
  ti_task_shape s = ti_task_shape_make(1, 1, 1, 0, 0, 0, 0, 0);
  ti_task_graph_init(&g, NULL);
  add(&g, 0, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(300, 300, 1, 0, 0, 0, 0, 0));
  ti_task_shape_set(&s, TI_SHAPE_HAS_NKY, 300); ti_task_shape_set(&s, TI_SHAPE_HAS_NKX, 300);
  ti_task_shape_set(&s, TI_SHAPE_HAS_NIY, 300); ti_task_shape_set(&s, TI_SHAPE_HAS_NIX, 300);
  add(&g, 1, TI_BLOCK_CCMPB, TI_DTYPE_I32, s);
  TT_EQ_INT(ti_task_add_attr(&g, B(&g, 1), TI_TASK_ATTR_KERNEL_Y, 300), 0);
  TT_EQ_INT(ti_task_add_attr(&g, B(&g, 1), TI_TASK_ATTR_KERNEL_X, 300), 0);
  add(&g, 2, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(1, 1, 1, 0, 0, 0, 0, 0));
  link0(&g, 0, 1, 0); link0(&g, 1, 2, 0);
  TT_EQ_INT(check(&g, &err, &d), TI_STATUS_INVALID);
  TT_CHECK_MSG(strstr(err.message, "window 300x300 has 90000 positions, more than TASKIR_MAX_WINDOW") != NULL, "%s",
               err.message);
  ti_task_graph_free(&g);
}

/* Volumes: the checker's cap is the executor's (2^31 - 1). */
TT_TEST(element_cap_agrees) {
  ti_task_graph g;
  ti_error err;
  ti_diag d;
  ti_exec *x = NULL;
  ti_task_graph_init(&g, NULL);
  add(&g, 0, TI_BLOCK_INPUT, TI_DTYPE_I8, ti_task_shape_make(65536, 32768, 1, 0, 0, 0, 0, 0));   /* 2^31 elements */
  add(&g, 1, TI_BLOCK_SI, TI_DTYPE_I8, ti_task_shape_make(65536, 32768, 1, 0, 0, 0, 0, 0));
  link0(&g, 0, 1, 0);
  TT_EQ_INT(check(&g, &err, &d), TI_STATUS_INVALID);
  TT_EQ_STR(d.rule, "dims");
  TT_EQ_INT(plan(&g, 1, 0, &x, &err), TI_STATUS_LIMIT);
  TT_CHECK_MSG(strstr(err.message, "more than 2147483647 elements") != NULL, "%s", err.message);
  ti_task_graph_free(&g);
}

/* Two INPUTs without socket_id: addressed by block id, by checker and
   executor alike; the required sockets are known before planning. */
TT_TEST(inputs_without_socket) {
  ti_task_graph g;
  ti_error err;
  ti_diag d;
  ti_exec *x = NULL;
  int32_t socks[4], a[3] = {1, 2, 3}, b[3] = {10, 20, 30};
  int64_t cnts[4];
  ti_task_graph_init(&g, NULL);
  add(&g, 7, TI_BLOCK_INPUT, TI_DTYPE_I32, ti_task_shape_make(0, 0, 3, 0, 0, 0, 0, 0));
  add(&g, 8, TI_BLOCK_INPUT, TI_DTYPE_I32, ti_task_shape_make(0, 0, 3, 0, 0, 0, 0, 0));
  add(&g, 1, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(0, 0, 3, 0, 0, 0, 0, 0));
  add(&g, 2, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(0, 0, 3, 0, 0, 0, 0, 0));
  add(&g, 3, TI_BLOCK_CADD, TI_DTYPE_I32, ti_task_shape_make(0, 0, 3, 0, 0, 0, 0, 0));
  add(&g, 4, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(0, 0, 3, 0, 0, 0, 0, 0));
  add(&g, 5, TI_BLOCK_OUTPUT, TI_DTYPE_I32, ti_task_shape_make(0, 0, 3, 0, 0, 0, 0, 0));
  link0(&g, 7, 1, 0); link0(&g, 8, 2, 0); link0(&g, 1, 3, 0); link0(&g, 2, 3, 1); link0(&g, 3, 4, 0); link0(&g, 4, 5, 0);
  TT_EQ_INT(ti_exec_graph_inputs(&g, socks, cnts, 4), 2);
  TT_EQ_INT(socks[0], 7); TT_EQ_INT(socks[1], 8);
  TT_EQ_INT(cnts[0], 3); TT_EQ_INT(cnts[1], 3);
  TT_EQ_INT(check(&g, &err, &d), TI_STATUS_SUCCESS);
  TT_EQ_INT(plan(&g, 0, 0, &x, &err), TI_STATUS_SUCCESS);
  if (x) {
    ti_exec_tensor t;
    TT_EQ_INT(ti_exec_set_input(x, 7, a, 3, &err), 0);
    TT_EQ_INT(ti_exec_set_input(x, 8, b, 3, &err), 0);
    TT_EQ_INT(ti_exec_run(x, &err), 0);
    TT_EQ_INT(ti_exec_output(x, 5, &t, &err), 0);
    TT_EQ_INT(ti_exec_tensor_i64(&t, 2), 33);
    ti_exec_free(x);
  }
  /* a socket_id equal to the other's block id collides, for both */
  B(&g, 8)->has |= TI_BLOCK_HAS_SOCKET_ID; B(&g, 8)->socket_id = 7;
  TT_EQ_INT(check(&g, &err, &d), TI_STATUS_INVALID);
  TT_EQ_STR(d.rule, "io");
  TT_EQ_INT(plan(&g, 1, 0, &x, &err), TI_STATUS_INVALID);
  TT_CHECK_MSG(strstr(err.message, "both INPUT socket 7") != NULL, "%s", err.message);
  ti_task_graph_free(&g);
}

/* An SI that carries data and has an input cluster with no shape and no
   interface (as in the reference engine's cases): accepted, run, and its
   bytes kept on re-encode. */
TT_TEST(si_with_data_and_empty_input_cluster) {
  ti_task_graph g, g2;
  ti_error err;
  ti_diag d;
  ti_exec *x = NULL;
  ti_buffer b1, b2;
  int32_t dims[1] = {4}, v[4] = {5, -6, 7, 100};
  ti_task_block *si;
  ti_task_graph_init(&g, NULL);
  si = add(&g, 0, TI_BLOCK_SI, TI_DTYPE_I8, ti_task_shape_make(0, 0, 4, 0, 0, 0, 0, 0));
  TT_EQ_INT(ti_task_set_data(&g, si, TI_DTYPE_I8, 1, dims, v), 0);
  add(&g, 1, TI_BLOCK_CVS, TI_DTYPE_I32, ti_task_shape_make(0, 0, 4, 0, 0, 0, 0, 0));
  TT_EQ_INT(ti_task_add_attr(&g, B(&g, 1), TI_TASK_ATTR_CONSTANT_A, 2), 0);
  add(&g, 2, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(0, 0, 4, 0, 0, 0, 0, 0));
  add(&g, 3, TI_BLOCK_OUTPUT, TI_DTYPE_I32, ti_task_shape_make(0, 0, 4, 0, 0, 0, 0, 0));
  link0(&g, 0, 1, 0); link0(&g, 1, 2, 0); link0(&g, 2, 3, 0);
  si = B(&g, 0);
  si->inputs = (ti_task_cluster *)ti_arena_array(&g.arena, 1, sizeof *si->inputs, 8);
  memset(si->inputs, 0, sizeof *si->inputs);
  si->n_inputs = 1;
  TT_EQ_INT(check(&g, &err, &d), TI_STATUS_SUCCESS);
  TT_EQ_INT(plan(&g, 0, 0, &x, &err), TI_STATUS_SUCCESS);
  if (x) {
    ti_exec_tensor t;
    TT_EQ_INT(ti_exec_run(x, &err), 0);
    TT_EQ_INT(ti_exec_output(x, 3, &t, &err), 0);
    TT_EQ_INT(ti_exec_tensor_i64(&t, 0), 10);
    TT_EQ_INT(ti_exec_tensor_i64(&t, 3), 200);
    ti_exec_free(x);
  }
  ti_buffer_init(&b1, NULL); ti_buffer_init(&b2, NULL);
  ti_task_graph_init(&g2, NULL);
  TT_EQ_INT(ti_task_encode(&g, &b1, &err), 0);
  TT_EQ_INT(ti_task_decode(&g2, b1.data, b1.len, &err), 0);
  TT_EQ_INT(g2.blocks[0].n_inputs, 1);
  TT_EQ_INT(g2.blocks[0].inputs[0].n_interfaces, 0);
  TT_EQ_INT(ti_task_encode(&g2, &b2, &err), 0);
  TT_CHECK(b1.len == b2.len && memcmp(b1.data, b2.data, b1.len) == 0);
  /* still an error on a storage block without data: nothing writes it */
  ti_task_graph_free(&g2);
  ti_task_graph_init(&g2, NULL);
  TT_EQ_INT(ti_task_decode(&g2, b1.data, b1.len, &err), 0);
  memset(&g2.blocks[0].data, 0, sizeof g2.blocks[0].data);
  g2.blocks[0].has &= ~(uint32_t)TI_BLOCK_HAS_DATA;
  TT_EQ_INT(check(&g2, &err, &d), TI_STATUS_INVALID);
  TT_CHECK_MSG(strstr(err.message, "input cluster 0 has no interface") != NULL, "%s", err.message);
  ti_buffer_free(&b1); ti_buffer_free(&b2);
  ti_task_graph_free(&g2);
  ti_task_graph_free(&g);
}

/* 100000 empty blocks: every problem is counted, at most
   TASKIR_CHECK_MAX_DIAGS are listed, so checking costs bounded memory. */
TT_TEST(check_list_bounded) {
  ti_task_graph g;
  ti_diag_list l;
  ti_error err;
  int32_t i, n = 100000;
  ti_task_graph_init(&g, NULL);
  g.blocks = (ti_task_block *)ti_arena_array(&g.arena, (size_t)n, sizeof *g.blocks, 8);
  TT_CHECK(g.blocks != NULL);
  if (!g.blocks) return;
  memset(g.blocks, 0, (size_t)n * sizeof *g.blocks);
  g.n_blocks = n;
  for (i = 0; i < n; i++) g.blocks[i].id = i;   /* SI without shape: a dims error each */
  ti_diag_list_init(&l, NULL);
  ti_error_clear(&err);
  TT_EQ_INT(ti_task_check(&g, &l, &err), TI_STATUS_INVALID);
  TT_EQ_INT(l.n, TASKIR_CHECK_MAX_DIAGS);
  TT_CHECK(l.n_dropped > 0);
  TT_CHECK(l.n_errors >= n);
  TT_CHECK(l.cap <= 2 * TASKIR_CHECK_MAX_DIAGS);
  TT_CHECK(strstr(err.message, "block 0") != NULL);   /* the first error stays */
  ti_diag_list_free(&l);
  ti_task_graph_free(&g);
}

int main(void) {
  TT_RUN(amplification_bounded);
  TT_RUN(memory_budget);
  TT_RUN(rearranged_edge_without_index_map);
  TT_RUN(clif_attributes_agree);
  TT_RUN(ccmpb_window_limit);
  TT_RUN(element_cap_agrees);
  TT_RUN(inputs_without_socket);
  TT_RUN(si_with_data_and_empty_input_cluster);
  TT_RUN(check_list_bounded);
  return tt_finish();
}
