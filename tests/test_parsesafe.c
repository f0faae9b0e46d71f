/* Hostile and edge-case input for the text form, the types, the nn verifier
   and Task IR export/import: every case is refused with a message (or reads
   back) within memory proportional to its size, never undefined behaviour. */
#include <stdlib.h>
#include <string.h>
/* A counting allocator: the tests bound what parsing may cost. */
typedef struct ps_mem { size_t cur, peak; } ps_mem;
static ps_mem ps_mem_state;
static void *ps_malloc(size_t n) {
  size_t *p = (size_t *)malloc(n + 16);
  if (!p) return NULL;
  p[0] = n;
  ps_mem_state.cur += n;
  if (ps_mem_state.cur > ps_mem_state.peak) ps_mem_state.peak = ps_mem_state.cur;
  return (char *)p + 16;
}
static void ps_free(void *q) {
  size_t *p;
  if (!q) return;
  p = (size_t *)(void *)((char *)q - 16);
  ps_mem_state.cur -= p[0];
  free(p);
}
static void *ps_realloc(void *q, size_t n) {
  void *r;
  size_t old;
  if (!q) return ps_malloc(n);
  old = ((size_t *)(void *)((char *)q - 16))[0];
  r = ps_malloc(n);
  if (!r) return NULL;
  memcpy(r, q, old < n ? old : n);
  ps_free(q);
  return r;
}
#define TASKIR_MALLOC(u, sz) ((void)(u), ps_malloc(sz))
#define TASKIR_REALLOC(u, p, sz) ((void)(u), ps_realloc((p), (sz)))
#define TASKIR_FREE(u, p) ((void)(u), ps_free(p))
#define TASKIR_IMPLEMENTATION
#include "taskir.h"
#include "tt.h"

static ti_context *nn_ctx(void) {
  ti_context *ctx = ti_context_create(NULL);
  TT_CHECK(ctx != NULL);
  TT_EQ_INT(ti_nn_register(ctx, NULL), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_task_register(ctx, NULL), TI_STATUS_SUCCESS);
  return ctx;
}

/* Parses text and expects it refused with needle in the message and, when
   line > 0, at that line (and column when col > 0). */
static void refuse(ti_context *ctx, const char *text, const char *needle, int line, int col) {
  ti_program *p = NULL;
  ti_error err;
  ti_error_clear(&err);
  TT_CHECK(ti_parse_program(ctx, text, strlen(text), &p, &err) != TI_STATUS_SUCCESS);
  TT_CHECK(p == NULL);
  TT_CHECK_MSG(strstr(err.message, needle) != NULL, "message \"%s\" lacks \"%s\"", err.message, needle);
  if (line > 0) TT_EQ_INT(err.line, line);
  if (col > 0) TT_EQ_INT(err.column, col);
}

/* Issue item 4: value numbers do not size a table. */
TT_TEST(value_numbers_cost_what_is_defined) {
  ti_context *ctx = ti_context_create(NULL);
  ti_program *p = NULL;
  ti_error err;
  const char *big = "program @m graph {\n  %0 = x.a(%300000000) : (vtensor<f32>) -> vtensor<f32>\n}\n";
  const char *ok = "program @m graph {\n  %7000000000 = x.a(%9) : (vtensor<f32>) -> vtensor<f32>\n"
                   "  %9 = x.b() : () -> vtensor<f32>\n  %123456789 = x.a(%7000000000) : (vtensor<f32>) -> vtensor<f32>\n}\n";
  size_t base;
  ti_context_allow_unregistered(ctx, 1);
  base = ps_mem_state.cur;
  ps_mem_state.peak = base;
  refuse(ctx, big, "never defined: %300000000", 0, 0);
  TT_CHECK_MSG(ps_mem_state.peak - base < ((size_t)1 << 20), "parsing took %zu bytes", ps_mem_state.peak - base);
  ps_mem_state.peak = ps_mem_state.cur;
  ti_error_clear(&err);
  TT_EQ_INT(ti_parse_program(ctx, ok, strlen(ok), &p, &err), TI_STATUS_SUCCESS);
  TT_CHECK_MSG(ps_mem_state.peak - base < ((size_t)1 << 20), "parsing took %zu bytes", ps_mem_state.peak - base);
  if (p) {   /* numbers are names only: the print renumbers densely */
    ti_buffer b;
    ti_buffer_init(&b, NULL);
    TT_EQ_INT(ti_print_program(p, &b, NULL), TI_STATUS_SUCCESS);
    TT_CHECK(b.data && strstr((const char *)b.data, "%7000000000") == NULL);
    ti_buffer_free(&b);
  }
  ti_program_destroy(p);
  /* the smallest undefined number is named, as before */
  refuse(ctx, "program @m graph {\n  %0 = x.a(%90, %5) : (vtensor<f32>, vtensor<f32>) -> vtensor<f32>\n}\n",
         "never defined: %5", 0, 0);
  ti_context_destroy(ctx);
}

/* Issue item 5: types whose size overflows int64 are refused where they are
   written (line:column) and by ti_type_get. */
TT_TEST(type_volumes_that_overflow_are_refused) {
  ti_context *ctx = nn_ctx();
  int64_t huge[4] = {1, 1073741824, 1073741824, 1073741824};
  int64_t zero[4] = {0, 1073741824, 1073741824, 1073741824};
  int64_t dyn[3] = {-1, 3037000500LL, 3037000500LL};
  int64_t edge[2] = {(int64_t)1 << 31, (int64_t)1 << 31};
  ti_type_kind k = TI_TYPE_VTENSOR;
  TT_CHECK(ti_type_get(ctx, k, TI_DTYPE_F32, 4, huge, TI_LAYOUT_NCHW) == NULL);
  TT_CHECK(ti_type_get(ctx, k, TI_DTYPE_F32, 4, zero, TI_LAYOUT_NCHW) == NULL);   /* strides would overflow */
  TT_CHECK(ti_type_get(ctx, k, TI_DTYPE_I8, 3, dyn, TI_LAYOUT_ANY) == NULL);
  TT_CHECK(ti_type_get(ctx, k, TI_DTYPE_I8, 2, edge, TI_LAYOUT_ANY) != NULL);     /* 2^62 bytes fit */
  TT_CHECK(ti_type_get(ctx, k, TI_DTYPE_I16, 2, edge, TI_LAYOUT_ANY) == NULL);    /* 2^63 bytes do not */
  TT_CHECK(ti_type_fits(TI_DTYPE_I8, 2, edge) && !ti_type_fits(TI_DTYPE_I16, 2, edge));
  refuse(ctx, "program @m(%0: vtensor<1x1073741824x1073741824x1073741824xf32, NCHW>) {\n}\n", "too large", 1, 16);
  refuse(ctx, "program @m(%0: vtensor<4xf32>) {\n  %1 = nn.relu(%0) : (vtensor<4xf32>) -> vtensor<0x1073741824x1073741824x1073741824xf32>\n}\n",
         "too large", 2, 0);
  ti_context_destroy(ctx);
}

/* Creates op `name` on fresh args of the given types, inferring its result;
   expects it refused with needle in the message. */
static void nn_refuse(ti_context *ctx, const char *name, int n, const ti_type *const *types, const ti_attr *attrs,
                      const char *needle) {
  ti_program *p = ti_program_create(ctx, "m", TI_PROGRAM_SSA);
  ti_value *a[4];
  ti_error err;
  int i;
  ti_error_clear(&err);
  for (i = 0; i < n; i++) { TT_CHECK(types[i] != NULL); a[i] = ti_program_add_arg(p, types[i]); }
  TT_CHECK_MSG(ti_op_create(p, name, n, a, 1, NULL, attrs, &err) == NULL, "%s was accepted", name);
  TT_CHECK_MSG(strstr(err.message, needle) != NULL, "%s: message \"%s\" lacks \"%s\"", name, err.message, needle);
  ti_program_destroy(p);
}
static const ti_attr *ints_attr(ti_context *ctx, int n, const int64_t *v) {
  const ti_attr *it[8];
  int i;
  for (i = 0; i < n; i++) it[i] = ti_attr_int(ctx, v[i]);
  return ti_attr_array(ctx, it, n);
}
static const ti_attr *dict1(ti_context *ctx, const char *k, const ti_attr *v) {
  ti_named_attr e;
  e.name = ti_attr_string(ctx, k, (int64_t)strlen(k));
  e.value = v;
  return ti_attr_dict(ctx, &e, 1);
}
static const ti_attr *dict2(ti_context *ctx, const char *k1, const ti_attr *v1, const char *k2, const ti_attr *v2) {
  ti_named_attr e[2];
  e[0].name = ti_attr_string(ctx, k1, (int64_t)strlen(k1)); e[0].value = v1;
  e[1].name = ti_attr_string(ctx, k2, (int64_t)strlen(k2)); e[1].value = v2;
  return ti_attr_dict(ctx, e, 2);
}

/* Issue item 5: the nn shape rules never overflow int64 (run under UBSan in
   the sanitized build), whatever the attributes, at types near the bound. */
TT_TEST(nn_shape_rules_check_their_arithmetic) {
  ti_context *ctx = nn_ctx();
  const int64_t M = INT64_MAX, G = (int64_t)1 << 30;
  int64_t xd[4] = {1, 4194304, 1048576, 1048576}, sd[4] = {1, 1, 4, 4}, wd[4] = {1, 1, 1, 1}, w2d[4] = {1, 1, 2, 2};
  int64_t big4[4] = {G, G, G, G}, kk[2] = {G, G}, maxpad[4] = {M, 0, 0, 0}, maxp2[4] = {M, M, M, M};
  int64_t bigd[2] = {M, M}, s2[2] = {M, M}, pd[8] = {0, 0, 0, 0, 0, 0, 0, M};
  const ti_type *x = ti_type_get(ctx, TI_TYPE_VTENSOR, TI_DTYPE_I8, 4, xd, TI_LAYOUT_NCHW);
  const ti_type *s = ti_type_get(ctx, TI_TYPE_VTENSOR, TI_DTYPE_F32, 4, sd, TI_LAYOUT_NCHW);
  const ti_type *w = ti_type_get(ctx, TI_TYPE_VTENSOR, TI_DTYPE_F32, 4, wd, TI_LAYOUT_OIHW);
  const ti_type *t[2];
  int64_t hd[1] = {M / 2}, hd2[1] = {M / 2 + 2};
  t[0] = x;
  nn_refuse(ctx, "nn.img2col", 1, t, dict2(ctx, "kernel_shape", ints_attr(ctx, 2, kk), "pads", ints_attr(ctx, 4, big4)),
            "overflows int64");
  t[0] = s; t[1] = w;
  nn_refuse(ctx, "nn.conv2d", 2, t, dict1(ctx, "pads", ints_attr(ctx, 4, maxpad)), "overflow int64");
  t[1] = ti_type_get(ctx, TI_TYPE_VTENSOR, TI_DTYPE_F32, 4, w2d, TI_LAYOUT_OIHW);
  nn_refuse(ctx, "nn.conv2d", 2, t, dict1(ctx, "dilations", ints_attr(ctx, 2, bigd)), "overflow int64");
  nn_refuse(ctx, "nn.max_pool", 1, t, dict2(ctx, "kernel_shape", ints_attr(ctx, 2, s2), "pads", ints_attr(ctx, 4, maxp2)),
            "overflow int64");
  t[0] = s; t[1] = s;
  nn_refuse(ctx, "nn.conv2d_backprop_input", 2, t, dict1(ctx, "strides", ints_attr(ctx, 2, s2)), "overflows int64");
  {   /* a kernel larger than the padded input: refused, not read as "dynamic" */
    int64_t k8[2] = {8, 8};
    nn_refuse(ctx, "nn.conv2d_backprop_filter", 2, t, dict1(ctx, "kernel_shape", ints_attr(ctx, 2, k8)),
              "the kernel does not fit the padded input");
  }
  t[0] = s;
  nn_refuse(ctx, "nn.unpool", 1, t, dict1(ctx, "scales", ints_attr(ctx, 2, s2)), "overflows int64");
  nn_refuse(ctx, "nn.pad", 1, t, dict1(ctx, "pads", ints_attr(ctx, 8, pd)), "overflows int64");
  t[0] = ti_type_get(ctx, TI_TYPE_VTENSOR, TI_DTYPE_I8, 1, hd, TI_LAYOUT_TENSOR);
  t[1] = ti_type_get(ctx, TI_TYPE_VTENSOR, TI_DTYPE_I8, 1, hd2, TI_LAYOUT_TENSOR);
  nn_refuse(ctx, "nn.concat", 2, t, dict1(ctx, "axis", ti_attr_int(ctx, 0)), "overflows int64");
  ti_context_destroy(ctx);
}

/* The printed text as a malloc'd string (the buffer uses the counting allocator). */
static char *print_prog(const ti_program *p) {
  ti_buffer b;
  char *s;
  ti_buffer_init(&b, NULL);
  TT_EQ_INT(ti_print_program(p, &b, NULL), TI_STATUS_SUCCESS);
  s = (char *)malloc(b.len + 1);
  if (s) { if (b.len) memcpy(s, b.data, b.len); s[b.len] = 0; }
  ti_buffer_free(&b);
  return s;
}

/* One SI block whose output cluster has n interfaces, each to an OUTPUT. */
static void build_fanout(ti_task_graph *g, int n) {
  ti_task_shape s;
  int32_t dims[1] = {1}, val[1] = {5};
  int i;
  memset(&s, 0, sizeof s);
  ti_task_shape_set(&s, TI_SHAPE_HAS_NF, 1);
  ti_task_graph_init(g, NULL);
  TT_CHECK(ti_task_add_block(g, 0, TI_BLOCK_SI, TI_DTYPE_I8, &s) != NULL);
  TT_EQ_INT(ti_task_set_data(g, &g->blocks[0], TI_DTYPE_I8, 1, dims, val), TI_STATUS_SUCCESS);
  for (i = 1; i <= n; i++) {
    TT_CHECK(ti_task_add_block(g, i, TI_BLOCK_OUTPUT, TI_DTYPE_I8, &s) != NULL);
    TT_CHECK(ti_task_connect(g, &g->blocks[0], 0, NULL, NULL, &g->blocks[i], 0, NULL, NULL) != NULL);
  }
}

/* Issue item 11: whatever the writer prints reads back; a block with 64,
   65 and 1000 output interfaces round-trips through the text form. */
TT_TEST(text_form_reads_back_any_number_of_results) {
  static const int counts[3] = {64, 65, 1000};
  int c;
  for (c = 0; c < 3; c++) {
    ti_context *ctx = nn_ctx();
    ti_task_graph g, h;
    ti_program *p = NULL, *q = NULL, *r = NULL;
    ti_error err;
    char *a = NULL, *b = NULL, *d = NULL;
    build_fanout(&g, counts[c]);
    ti_task_graph_init(&h, NULL);
    ti_error_clear(&err);
    TT_EQ_INT(ti_task_import(ctx, &g, &p, &err), TI_STATUS_SUCCESS);
    if (p) a = print_prog(p);
    TT_CHECK(a != NULL);
    if (a) {
      TT_EQ_INT(ti_parse_program(ctx, a, strlen(a), &q, &err), TI_STATUS_SUCCESS);
      TT_CHECK_MSG(q != NULL, "%d results: %s", counts[c], err.message);
    }
    if (q) {
      b = print_prog(q);
      TT_CHECK(b && strcmp(a, b) == 0);
      TT_EQ_INT(ti_task_export(q, &h, &err), TI_STATUS_SUCCESS);
      TT_EQ_INT(h.n_blocks, counts[c] + 1);
      TT_EQ_INT(ti_task_import(ctx, &h, &r, &err), TI_STATUS_SUCCESS);
      if (r) { d = print_prog(r); TT_CHECK(d && strcmp(a, d) == 0); }
    }
    free(a); free(b); free(d);
    ti_program_destroy(r); ti_program_destroy(q); ti_program_destroy(p);
    ti_task_graph_free(&h); ti_task_graph_free(&g);
    ti_context_destroy(ctx);
  }
}

/* An SB block of INT_32 whose weights are given by `weights` (a .tir line). */
static ti_status export_sb(ti_context *ctx, const char *container, const char *weights, ti_task_graph *g, ti_error *err) {
  char text[1024];
  ti_program *p = NULL;
  ti_status s;
  snprintf(text, sizeof text,
           "program @task graph {\n"
           "  %%0 = task.sb() {data = {container = \"%s\", dims = [2], precision = \"INT_32\", values = \"block3\"}, id = 3, "
           "out = [{interfaces = [{}]}], precision = \"INT_32\", shape = {nf = 2}} : () -> tensor<2xi32>\n"
           "  task.output(%%1) {id = 4, in = [{interfaces = [{}]}], precision = \"INT_32\", shape = {nf = 2}} : (tensor<2xi32>) -> ()\n"
           "  %%1 = task.edge(%%0) {id = 0} : (tensor<2xi32>) -> tensor<2xi32>\n"
           "}\nweights {\n  \"block3\" : %s\n}\n", container, weights);
  ti_task_graph_init(g, NULL);
  ti_error_clear(err);
  s = ti_parse_program(ctx, text, strlen(text), &p, err);
  TT_CHECK_MSG(s == TI_STATUS_SUCCESS, "%s", err->message);
  if (s == TI_STATUS_SUCCESS) s = ti_task_export(p, g, err);
  ti_program_destroy(p);
  return s;
}

/* Issue item 7: f32 weights under an integer container are refused at
   export, naming the block; reading f32 storage as integers saturates. */
TT_TEST(export_refuses_weights_the_container_cannot_hold) {
  ti_context *ctx = nn_ctx();
  ti_task_graph g;
  ti_error err;
  ti_diag_list dl;
  ti_task_values v;
  float f[6];
  int64_t i;
  /* 1.5f and 1e30f */
  TT_CHECK(export_sb(ctx, "int32_data", "vtensor<2xf32> = 0x0000c03fcaf24971", &g, &err) != TI_STATUS_SUCCESS);
  TT_CHECK_MSG(strstr(err.message, "task.sb id 3") && strstr(err.message, "f32") && strstr(err.message, "int32_data"),
               "%s", err.message);
  ti_task_graph_free(&g);
  TT_CHECK(export_sb(ctx, "uint32_data", "vtensor<2xi8> = 0x05fd", &g, &err) != TI_STATUS_SUCCESS);
  TT_CHECK_MSG(strstr(err.message, "task.sb id 3") && strstr(err.message, "i8"), "%s", err.message);
  ti_task_graph_free(&g);
  TT_CHECK(export_sb(ctx, "int33_data", "vtensor<2xi8> = 0x05fd", &g, &err) != TI_STATUS_SUCCESS);
  TT_CHECK_MSG(strstr(err.message, "container"), "%s", err.message);
  ti_task_graph_free(&g);
  /* what the container holds exports, the values intact */
  TT_EQ_INT(export_sb(ctx, "int32_data", "vtensor<2xi8> = 0x05fd", &g, &err), TI_STATUS_SUCCESS);
  if (g.n_blocks == 2) {
    TT_EQ_INT(g.blocks[0].data.int32_data.count, 2);
    TT_EQ_INT(ti_task_values_get_i64(&g.blocks[0].data.int32_data, 1), -3);
  }
  ti_task_graph_free(&g);
  /* f32 data in float_data under an INT_32 block exports; the checker
     reports the mismatch (and reads no float as an integer out of range) */
  TT_EQ_INT(export_sb(ctx, "float_data", "vtensor<2xf32> = 0x0000c03fcaf24971", &g, &err), TI_STATUS_SUCCESS);
  ti_diag_list_init(&dl, NULL);
  ti_error_clear(&err);
  TT_EQ_INT(ti_task_check(&g, &dl, &err), TI_STATUS_INVALID);
  TT_CHECK(dl.n_errors > 0);
  ti_diag_list_free(&dl);
  ti_task_graph_free(&g);
  /* reading f32 storage as integers saturates; NaN reads 0 */
  f[0] = 1.5f; f[1] = 1e30f; f[2] = -1e30f; f[3] = (float)NAN; f[4] = -2.5f; f[5] = (float)INFINITY;
  v.count = 6; v.storage = TI_DTYPE_F32; v.data = f;
  TT_EQ_INT(ti_task_values_get_i64(&v, 0), 1);
  TT_CHECK(ti_task_values_get_i64(&v, 1) == INT64_MAX);
  TT_CHECK(ti_task_values_get_i64(&v, 2) == INT64_MIN);
  TT_EQ_INT(ti_task_values_get_i64(&v, 3), 0);
  TT_EQ_INT(ti_task_values_get_i64(&v, 4), -2);
  for (i = 5; i < 6; i++) TT_CHECK(ti_task_values_get_i64(&v, i) == INT64_MAX);
  ti_context_destroy(ctx);
}

int main(void) {
  TT_RUN(value_numbers_cost_what_is_defined);
  TT_RUN(type_volumes_that_overflow_are_refused);
  TT_RUN(nn_shape_rules_check_their_arithmetic);
  TT_RUN(text_form_reads_back_any_number_of_results);
  TT_RUN(export_refuses_weights_the_container_cannot_hold);
  return tt_finish();
}
