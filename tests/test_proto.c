/* taskir_proto.h: Task IR <-> tianjic_ir.TaskGraph, binary and text, against
   the fixtures, protoc (when installed) and hand-made malformed input. */
#define _POSIX_C_SOURCE 200809L
#define TASKIR_IMPLEMENTATION
#include "taskir_proto.h"
#include "tt.h"
#include "bench/proto_synth.h"
#include <math.h>
#include <unistd.h>

static const char *const cases[] = { "cadd", "cavg", "cax", "cc", "ccmpb", "clut", "cvm", "cvs", "cvvh" };
#define N_CASES (sizeof cases / sizeof *cases)

/* ---- helpers ----------------------------------------------------------- */

static unsigned char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  unsigned char *d = NULL;
  size_t cap = 0, n = 0;
  if (!f) return NULL;
  for (;;) {
    size_t got;
    if (n == cap) { cap = cap ? cap * 2 : 65536; d = (unsigned char *)realloc(d, cap); }
    got = fread(d + n, 1, cap - n, f);
    if (!got) break;
    n += got;
  }
  fclose(f);
  *len = n;
  return d;
}

static int write_all(const char *path, const void *p, size_t n) {
  FILE *f = fopen(path, "wb");
  int ok;
  if (!f) return 0;
  ok = fwrite(p, 1, n, f) == n;
  return fclose(f) == 0 && ok;
}

static int have_protoc(void) {
  static int have = -1;
  if (have < 0) have = system("protoc --version >/dev/null 2>&1") == 0 && access("tests/tianjic_ir.proto", R_OK) == 0;
  return have;
}

/* Runs protoc --decode or --encode on `in`, returns its stdout. */
static unsigned char *protoc(const char *mode, const void *in, size_t n, size_t *out_len) {
  char inpath[] = "/tmp/taskir_protoXXXXXX", cmd[512];
  int fd = mkstemp(inpath);
  FILE *p;
  unsigned char *d = NULL;
  size_t cap = 0, len = 0;
  if (fd < 0) return NULL;
  close(fd);
  if (!write_all(inpath, in, n)) { remove(inpath); return NULL; }
  snprintf(cmd, sizeof cmd, "protoc -Itests --%s=tianjic_ir.TaskGraph tests/tianjic_ir.proto < %s 2>/dev/null", mode, inpath);
  p = popen(cmd, "r");
  if (p) {
    for (;;) {
      size_t got;
      if (len == cap) { cap = cap ? cap * 2 : 65536; d = (unsigned char *)realloc(d, cap); }
      got = fread(d + len, 1, cap - len, p);
      if (!got) break;
      len += got;
    }
    if (pclose(p) != 0) { free(d); d = NULL; }
  }
  remove(inpath);
  *out_len = len;
  return d;
}

static int same(const ti_buffer *b, const void *p, size_t n) { return b->len == n && (n == 0 || memcmp(b->data, p, n) == 0); }

static int fixture_path(char *out, size_t cap, const char *name, const char *ext) {
  snprintf(out, cap, "%s/%s.task.%s", tt_fixtures(), name, ext);
  return access(out, R_OK) == 0;
}

/* ---- a synthetic graph with every field -------------------------------- */

static void *arr(ti_task_graph *g, size_t n, size_t es) { return ti_arena_array(&g->arena, n, es, 8); }

static void set_values(ti_task_graph *g, ti_task_values *v, ti_dtype storage, const double *x, int n) {
  int i;
  v->count = n;
  v->storage = storage;
  v->data = arr(g, (size_t)n, ti_dtype_size(storage));
  for (i = 0; i < n; i++) {
    switch (storage) {
    case TI_DTYPE_I8: ((int8_t *)v->data)[i] = (int8_t)x[i]; break;
    case TI_DTYPE_I16: ((int16_t *)v->data)[i] = (int16_t)x[i]; break;
    case TI_DTYPE_I32: ((int32_t *)v->data)[i] = (int32_t)x[i]; break;
    case TI_DTYPE_U8: ((uint8_t *)v->data)[i] = (uint8_t)x[i]; break;
    case TI_DTYPE_U16: ((uint16_t *)v->data)[i] = (uint16_t)x[i]; break;
    case TI_DTYPE_U32: ((uint32_t *)v->data)[i] = (uint32_t)x[i]; break;
    default: ((float *)v->data)[i] = (float)x[i]; break;
    }
  }
}

static void full_shape(ti_task_graph *g, ti_task_shape *s, int seed) {
  s->has = 0x1FF;
  s->nx = seed; s->ny = -seed; s->nf = 0; s->nr = 2147483647; s->nkx = -2147483647 - 1;
  s->nky = 3; s->niy = 4; s->nix = 5; s->n_branch = 0;
  s->n_extra = 3;
  s->extra = (int32_t *)arr(g, 3, 4);
  s->extra[0] = 7; s->extra[1] = -1; s->extra[2] = 0;
}

static void build_full(ti_task_graph *g) {
  int i, k;
  static const double i8v[] = { 0, 1, -1, 127, -128, 5 };
  static const double i16v[] = { 255, -300, 32767, -32768, 0 };
  static const double i32v[] = { 2147483647.0, -2147483648.0, 16384, -129, 0 };
  static const double u32v[] = { 4294967295.0, 0, 128, 16384, 1 };
  static const double u8v[] = { 0, 255, 128 };
  double fv[8];
  ti_task_graph_init(g, NULL);
  g->n_blocks = TI_BLOCK_COUNT;
  g->blocks = (ti_task_block *)arr(g, (size_t)g->n_blocks, sizeof(ti_task_block));
  for (i = 0; i < g->n_blocks; i++) {
    ti_task_block *b = &g->blocks[i];
    b->has = TI_BLOCK_HAS_ID | TI_BLOCK_HAS_TYPE | TI_BLOCK_HAS_PRECISION | TI_BLOCK_HAS_SHAPE;
    b->id = i * 7 - 3;
    b->type = (ti_block_type)i;
    b->precision = (ti_dtype)(i % 12);
    full_shape(g, &b->shape, i);
    if (i == 0) b->shape.has = TI_SHAPE_HAS_NX;  /* a sparse shape too */
    if (i % 3 == 0) {
      b->has |= TI_BLOCK_HAS_IS_VIRTUAL | TI_BLOCK_HAS_MASTER_TASK_ID | TI_BLOCK_HAS_PIPELINE_NUM | TI_BLOCK_HAS_BIAS_TYPE |
                TI_BLOCK_HAS_SOCKET_ID;
      b->is_virtual = i % 2;
      b->master_task_id = -i;
      b->pipeline_num = i * 1000;
      b->bias_type = i % 2 ? TI_BIAS_CONSTANT : TI_BIAS_VECTOR;
      b->socket_id = 0;
    }
    b->n_inputs = i % 3;
    b->inputs = b->n_inputs ? (ti_task_cluster *)arr(g, (size_t)b->n_inputs, sizeof(ti_task_cluster)) : NULL;
    for (k = 0; k < b->n_inputs; k++) {
      ti_task_cluster *c = &b->inputs[k];
      c->has = TI_CLUSTER_HAS_SHAPE;
      full_shape(g, &c->shape, k + 1);
      c->n_interfaces = 2;
      c->interfaces = (ti_task_interface *)arr(g, 2, sizeof(ti_task_interface));
      c->interfaces[0].has = TI_IFACE_HAS_POSITION | TI_IFACE_HAS_SIZE | TI_IFACE_HAS_EDGE_ID;
      full_shape(g, &c->interfaces[0].position, 0);
      full_shape(g, &c->interfaces[0].size, 9);
      c->interfaces[0].edge_id = k;
      c->interfaces[1].has = TI_IFACE_HAS_EDGE_ID;   /* the whole cluster */
      c->interfaces[1].edge_id = 100 + k;
    }
    b->n_outputs = 1;
    b->outputs = (ti_task_cluster *)arr(g, 1, sizeof(ti_task_cluster));
    b->outputs[0].n_interfaces = 1;
    b->outputs[0].interfaces = (ti_task_interface *)arr(g, 1, sizeof(ti_task_interface));
    b->outputs[0].interfaces[0].has = TI_IFACE_HAS_EDGE_ID;
    b->outputs[0].interfaces[0].edge_id = i;
  }
  /* data of every kind and width */
  {
    ti_task_tensor *t = &g->blocks[TI_BLOCK_SW].data;
    g->blocks[TI_BLOCK_SW].has |= TI_BLOCK_HAS_DATA;
    t->has = TI_TENSOR_HAS_PRECISION | TI_TENSOR_HAS_NAME;
    t->precision = TI_DTYPE_I8;
    t->n_dims = 2; t->dims = (int32_t *)arr(g, 2, 4); t->dims[0] = 2; t->dims[1] = 3;
    set_values(g, &t->int32_data, TI_DTYPE_I8, i8v, 6);
    t->name = ti_arena_strndup(&g->arena, "w\n\"q\"\t\\ \x01\xff\xc3\xa9", 12);
    t->name_len = 12;
  }
  {
    ti_task_tensor *t = &g->blocks[TI_BLOCK_SB].data;
    g->blocks[TI_BLOCK_SB].has |= TI_BLOCK_HAS_DATA;
    t->has = TI_TENSOR_HAS_PRECISION;
    t->precision = TI_DTYPE_I9;   /* wire value 100 */
    set_values(g, &t->int32_data, TI_DTYPE_I16, i16v, 5);
  }
  {
    ti_task_tensor *t = &g->blocks[TI_BLOCK_SWFC].data;
    g->blocks[TI_BLOCK_SWFC].has |= TI_BLOCK_HAS_DATA;
    t->has = TI_TENSOR_HAS_PRECISION;
    t->precision = TI_DTYPE_I32;
    set_values(g, &t->int32_data, TI_DTYPE_I32, i32v, 5);
    set_values(g, &t->uint32_data, TI_DTYPE_U32, u32v, 5);   /* two fields at once */
  }
  {
    ti_task_tensor *t = &g->blocks[TI_BLOCK_SW2D].data;
    g->blocks[TI_BLOCK_SW2D].has |= TI_BLOCK_HAS_DATA;
    t->has = TI_TENSOR_HAS_PRECISION;
    t->precision = TI_DTYPE_U8;
    set_values(g, &t->uint32_data, TI_DTYPE_U8, u8v, 3);
  }
  {
    ti_task_tensor *t = &g->blocks[TI_BLOCK_SI].data;
    g->blocks[TI_BLOCK_SI].has |= TI_BLOCK_HAS_DATA;
    t->has = TI_TENSOR_HAS_PRECISION;
    t->precision = TI_DTYPE_F32;
    fv[0] = 0.1; fv[1] = 1e-7; fv[2] = 3.4028234663852886e38; fv[3] = -0.0; fv[4] = 1.0 / 3.0;
    fv[5] = 123456789.0; fv[6] = 1e-45; fv[7] = HUGE_VAL;
    set_values(g, &t->float_data, TI_DTYPE_F32, fv, 8);
  }
  /* every attribute type on the CC block, int and float values */
  {
    ti_task_block *b = &g->blocks[TI_BLOCK_CC];
    b->n_attrs = TI_TASK_ATTR_COUNT;
    b->attrs = (ti_task_attr *)arr(g, TI_TASK_ATTR_COUNT, sizeof(ti_task_attr));
    for (k = 0; k < TI_TASK_ATTR_COUNT; k++) {
      ti_task_attr *a = &b->attrs[k];
      a->has = TI_TATTR_HAS_TYPE | (k % 2 ? TI_TATTR_HAS_INT : TI_TATTR_HAS_FLOAT) | (k % 5 == 0 ? TI_TATTR_HAS_PRECISION : 0);
      a->type = (ti_attr_type)k;
      a->precision = (ti_dtype)(k % 12);
      a->int_value = k % 4 == 1 ? -k : k * 1000;
      a->float_value = (float)k / 8.0f - 1.5f;
    }
  }
  /* edges with every rearrangement kind, each carrying a matrix */
  g->n_edges = TI_REARRANGE_COUNT + 1;
  g->edges = (ti_task_edge *)arr(g, (size_t)g->n_edges, sizeof(ti_task_edge));
  for (i = 0; i < g->n_edges; i++) {
    ti_task_edge *e = &g->edges[i];
    e->has = TI_EDGE_HAS_ID | TI_EDGE_HAS_SRC | TI_EDGE_HAS_DST;
    e->id = i; e->src_block_id = i; e->dst_block_id = i + 1;
    if (i == TI_REARRANGE_COUNT) { e->has = TI_EDGE_HAS_ID; continue; }
    e->n_rearrange = 1;
    e->rearrange = (ti_task_rearrange *)arr(g, 1, sizeof(ti_task_rearrange));
    e->rearrange[0].has = TI_REARR_HAS_TYPE;
    e->rearrange[0].type = (ti_rearrange_kind)i;
    e->rearrange[0].n_matrix = 2;
    e->rearrange[0].matrix = (ti_task_tensor *)arr(g, 2, sizeof(ti_task_tensor));
    for (k = 0; k < 2; k++) {
      ti_task_tensor *t = &e->rearrange[0].matrix[k];
      static const double m[] = { 2, 1, 0, -1 };
      t->n_dims = 1; t->dims = (int32_t *)arr(g, 1, 4); t->dims[0] = 4;
      set_values(g, &t->int32_data, TI_DTYPE_I32, m, 4);
    }
  }
  g->n_groups = 2;
  g->groups = (ti_task_group *)arr(g, 2, sizeof(ti_task_group));
  g->groups[0].has = TI_GROUP_HAS_ID;
  g->groups[0].group_id = 0;
  g->groups[0].n_block_ids = 3;
  g->groups[0].block_ids = (int32_t *)arr(g, 3, 4);
  g->groups[0].block_ids[0] = 1; g->groups[0].block_ids[1] = -2; g->groups[0].block_ids[2] = 300;
  g->groups[1].has = 0;
  g->has |= TI_GRAPH_HAS_TEST_CONFIG;
  g->test_config.has = TI_TCFG_HAS_SEED | TI_TCFG_HAS_NAME | TI_TCFG_HAS_MODE;
  g->test_config.random_seed = -((int64_t)1 << 40);
  g->test_config.test_case_name = ti_arena_strndup(&g->arena, "case 'one'", 10);
  g->test_config.name_len = 10;
  g->test_config.test_mode = TI_TEST_CASE_OUTPUT;
}

/* ---- fixtures ----------------------------------------------------------- */

TT_TEST(fixtures_binary_reencodes_identically) {
  size_t i;
  char path[512];
  if (!fixture_path(path, sizeof path, "cc", "pb")) TT_SKIP("fixtures not found (set TASKIR_FIXTURES)");
  for (i = 0; i < N_CASES; i++) {
    size_t n = 0, need = 0;
    unsigned char *pb;
    ti_task_graph g;
    ti_error err = { 0 };
    ti_buffer b;
    fixture_path(path, sizeof path, cases[i], "pb");
    pb = slurp(path, &n);
    TT_CHECK(pb != NULL);
    if (!pb) continue;
    ti_task_graph_init(&g, NULL);
    ti_buffer_init(&b, NULL);
    TT_CHECK_MSG(ti_task_decode(&g, pb, n, &err) == TI_STATUS_SUCCESS, "%s: %s", cases[i], err.message);
    TT_CHECK(g.n_blocks > 0 && g.n_edges > 0);
    TT_EQ_INT(ti_task_encode(&g, &b, &err), TI_STATUS_SUCCESS);
    TT_CHECK_MSG(same(&b, pb, n), "%s: re-encoding differs (%lu vs %lu bytes)", cases[i], (unsigned long)b.len, (unsigned long)n);
    /* size query, exact buffer, short buffer */
    TT_EQ_INT(ti_task_encode_into(&g, NULL, 0, &need, &err), TI_STATUS_SUCCESS);
    TT_EQ_INT(need, n);
    {
      unsigned char *d = (unsigned char *)malloc(n);
      TT_EQ_INT(ti_task_encode_into(&g, d, n, &need, &err), TI_STATUS_SUCCESS);
      TT_CHECK(memcmp(d, pb, n) == 0);
      TT_EQ_INT(ti_task_encode_into(&g, d, n - 1, &need, &err), TI_STATUS_LIMIT);
      TT_EQ_INT(need, n);
      free(d);
    }
    ti_buffer_free(&b);
    ti_task_graph_free(&g);
    free(pb);
  }
}

TT_TEST(fixtures_text_parses_to_the_binary) {
  size_t i;
  char path[512];
  if (!fixture_path(path, sizeof path, "cc", "txt")) TT_SKIP("fixtures not found (set TASKIR_FIXTURES)");
  for (i = 0; i < N_CASES; i++) {
    size_t n = 0, tn = 0;
    unsigned char *pb, *txt;
    ti_task_graph g;
    ti_error err = { 0 };
    ti_buffer b;
    fixture_path(path, sizeof path, cases[i], "pb");
    pb = slurp(path, &n);
    fixture_path(path, sizeof path, cases[i], "txt");
    txt = slurp(path, &tn);
    TT_CHECK(pb && txt);
    ti_task_graph_init(&g, NULL);
    ti_buffer_init(&b, NULL);
    TT_CHECK_MSG(ti_task_parse_text(&g, (const char *)txt, tn, &err) == TI_STATUS_SUCCESS, "%s: %s", cases[i], err.message);
    TT_EQ_INT(ti_task_encode(&g, &b, &err), TI_STATUS_SUCCESS);
    TT_CHECK_MSG(same(&b, pb, n), "%s: text encodes differently from the .pb", cases[i]);
    ti_buffer_free(&b);
    ti_task_graph_free(&g);
    /* and through the file helpers (format by extension) */
    ti_task_graph_init(&g, NULL);
    TT_CHECK_MSG(ti_task_read_file(path, &g, &err) == TI_STATUS_SUCCESS, "%s", err.message);
    ti_buffer_init(&b, NULL);
    TT_EQ_INT(ti_task_encode(&g, &b, &err), TI_STATUS_SUCCESS);
    TT_CHECK(same(&b, pb, n));
    ti_buffer_free(&b);
    ti_task_graph_free(&g);
    free(pb);
    free(txt);
  }
}

TT_TEST(fixtures_values_kept_at_natural_width) {
  char path[512];
  ti_task_graph g;
  ti_error err = { 0 };
  int i, found = 0;
  if (!fixture_path(path, sizeof path, "cc", "pb")) TT_SKIP("fixtures not found (set TASKIR_FIXTURES)");
  ti_task_graph_init(&g, NULL);
  TT_EQ_INT(ti_task_read_file(path, &g, &err), TI_STATUS_SUCCESS);
  for (i = 0; i < g.n_blocks; i++) {
    const ti_task_tensor *t = &g.blocks[i].data;
    if (!t->int32_data.count) continue;
    found++;
    if (t->precision == TI_DTYPE_I8) TT_EQ_INT(t->int32_data.storage, TI_DTYPE_I8);
    if (t->precision == TI_DTYPE_I32) TT_EQ_INT(t->int32_data.storage, TI_DTYPE_I32);
  }
  TT_CHECK(found >= 3);
  /* The first SIC block starts 25, 10, -118 (see cc.task.txt). */
  TT_EQ_INT(ti_task_values_get_i64(&g.blocks[0].data.int32_data, 0), 25);
  TT_EQ_INT(ti_task_values_get_i64(&g.blocks[0].data.int32_data, 2), -118);
  ti_task_graph_free(&g);
}

TT_TEST(fixtures_text_output_equals_protoc_decode) {
  size_t i;
  char path[512];
  if (!fixture_path(path, sizeof path, "cc", "pb")) TT_SKIP("fixtures not found (set TASKIR_FIXTURES)");
  if (!have_protoc()) TT_SKIP("protoc not installed (apt-get install protobuf-compiler)");
  for (i = 0; i < N_CASES; i++) {
    size_t n = 0, dn = 0, en = 0;
    unsigned char *pb, *dec, *enc;
    ti_task_graph g;
    ti_error err = { 0 };
    ti_buffer t, b;
    fixture_path(path, sizeof path, cases[i], "pb");
    pb = slurp(path, &n);
    ti_task_graph_init(&g, NULL);
    ti_buffer_init(&t, NULL);
    ti_buffer_init(&b, NULL);
    TT_EQ_INT(ti_task_decode(&g, pb, n, &err), TI_STATUS_SUCCESS);
    TT_EQ_INT(ti_task_format_text(&g, &t, &err), TI_STATUS_SUCCESS);
    TT_EQ_INT(ti_task_encode(&g, &b, &err), TI_STATUS_SUCCESS);
    dec = protoc("decode", b.data, b.len, &dn);
    TT_CHECK_MSG(dec && same(&t, dec, dn), "%s: our text differs from protoc --decode", cases[i]);
    enc = protoc("encode", t.data, t.len, &en);
    TT_CHECK_MSG(enc && same(&b, enc, en), "%s: protoc --encode of our text differs from our binary", cases[i]);
    free(dec); free(enc); free(pb);
    ti_buffer_free(&t); ti_buffer_free(&b);
    ti_task_graph_free(&g);
  }
}

/* ---- synthetic graphs ---------------------------------------------------- */

TT_TEST(synthetic_roundtrips_binary_and_text) {
  ti_task_graph g, g2, g3;
  ti_error err = { 0 };
  ti_buffer b, b2, t, b3;
  build_full(&g);
  ti_buffer_init(&b, NULL); ti_buffer_init(&b2, NULL); ti_buffer_init(&t, NULL); ti_buffer_init(&b3, NULL);
  TT_CHECK_MSG(ti_task_encode(&g, &b, &err) == TI_STATUS_SUCCESS, "%s", err.message);
  ti_task_graph_init(&g2, NULL);
  TT_CHECK_MSG(ti_task_decode(&g2, b.data, b.len, &err) == TI_STATUS_SUCCESS, "%s", err.message);
  TT_EQ_INT(ti_task_encode(&g2, &b2, &err), TI_STATUS_SUCCESS);
  TT_CHECK(same(&b2, b.data, b.len));
  /* struct-level spot checks */
  TT_EQ_INT(g2.n_blocks, TI_BLOCK_COUNT);
  TT_EQ_INT(g2.blocks[TI_BLOCK_SB].data.precision, TI_DTYPE_I9);
  TT_EQ_INT(g2.blocks[TI_BLOCK_SB].data.int32_data.storage, TI_DTYPE_I16);
  TT_EQ_INT(g2.blocks[TI_BLOCK_SW].data.int32_data.storage, TI_DTYPE_I8);
  TT_EQ_INT(ti_task_values_get_i64(&g2.blocks[TI_BLOCK_SW].data.int32_data, 4), -128);
  TT_EQ_INT(g2.blocks[TI_BLOCK_SW2D].data.uint32_data.storage, TI_DTYPE_U8);
  TT_EQ_INT(g2.blocks[TI_BLOCK_SWFC].data.uint32_data.storage, TI_DTYPE_U32);
  TT_EQ_INT(ti_task_values_get_i64(&g2.blocks[TI_BLOCK_SWFC].data.uint32_data, 0), 4294967295LL);
  TT_EQ_INT(g2.blocks[TI_BLOCK_SW].data.name_len, 12);
  TT_CHECK(memcmp(g2.blocks[TI_BLOCK_SW].data.name, "w\n\"q\"\t\\ \x01\xff\xc3\xa9", 12) == 0);
  TT_EQ_INT(g2.blocks[TI_BLOCK_NULL].type, TI_BLOCK_NULL);
  TT_EQ_INT(g2.blocks[3].bias_type, TI_BIAS_CONSTANT);
  TT_EQ_INT(g2.blocks[1].bias_type, TI_BIAS_VECTOR);   /* the schema default when absent */
  TT_CHECK(!(g2.blocks[1].has & TI_BLOCK_HAS_BIAS_TYPE));
  TT_EQ_INT(g2.test_config.random_seed, -((int64_t)1 << 40));
  TT_EQ_INT(g2.edges[TI_REARRANGE_SHUFFLE].rearrange[0].type, TI_REARRANGE_SHUFFLE);
  TT_EQ_INT(g2.blocks[TI_BLOCK_CC].attrs[TI_TASK_ATTR_VTHETA_CONST].type, TI_TASK_ATTR_VTHETA_CONST);
  /* text both ways */
  TT_EQ_INT(ti_task_format_text(&g2, &t, &err), TI_STATUS_SUCCESS);
  ti_task_graph_init(&g3, NULL);
  TT_CHECK_MSG(ti_task_parse_text(&g3, (const char *)t.data, t.len, &err) == TI_STATUS_SUCCESS, "%s", err.message);
  TT_EQ_INT(ti_task_encode(&g3, &b3, &err), TI_STATUS_SUCCESS);
  TT_CHECK(same(&b3, b.data, b.len));
  {
    const char *s = (const char *)t.data;
    ti_buffer_append(&t, "", 1);
    TT_CHECK(strstr(s, "type: BIT_SHIGT_NUM\n") != NULL);
    TT_CHECK(strstr(s, "precision: INT_9\n") != NULL);
    TT_CHECK(strstr(s, "name: \"w\\n\\\"q\\\"\\t\\\\ \\001\\377\\303\\251\"\n") != NULL);
    TT_CHECK(strstr(s, "float_data: 0.1\n    float_data: 1e-07\n    float_data: 3.40282347e+38\n    float_data: -0\n"
                       "    float_data: 0.333333343\n    float_data: 123456792\n    float_data: 1.40129846e-45\n"
                       "    float_data: inf\n") != NULL);
    TT_CHECK(strstr(s, "test_config {\n  random_seed: -1099511627776\n  test_case_name: \"case \\'one\\'\"\n  test_mode: CASE_OUTPUT\n}\n") != NULL);
    t.len--;
  }
  if (have_protoc()) {
    size_t dn = 0, en = 0;
    unsigned char *dec = protoc("decode", b.data, b.len, &dn), *enc = protoc("encode", t.data, t.len, &en);
    TT_CHECK_MSG(dec && same(&t, dec, dn), "our text differs from protoc --decode of our binary");
    TT_CHECK_MSG(enc && same(&b, enc, en), "protoc --encode of our text differs from our binary");
    free(dec); free(enc);
  }
  ti_buffer_free(&b); ti_buffer_free(&b2); ti_buffer_free(&t); ti_buffer_free(&b3);
  ti_task_graph_free(&g); ti_task_graph_free(&g2); ti_task_graph_free(&g3);
}

TT_TEST(synthetic_random_values_roundtrip) {
  /* Random values at every storage width, binary and text. */
  tt_rng r = { 0x9e3779b97f4a7c15ULL };
  int rep;
  for (rep = 0; rep < 20; rep++) {
    ti_task_graph g, g2, g3;
    ti_error err = { 0 };
    ti_buffer b, b2, t, b3;
    int i, n = (int)tt_range(&r, 0, 3000);
    ti_dtype prec = (ti_dtype)tt_range(&r, 0, 11);
    ti_task_tensor *ten;
    ti_task_graph_init(&g, NULL);
    g.n_blocks = 1;
    g.blocks = (ti_task_block *)arr(&g, 1, sizeof(ti_task_block));
    g.blocks[0].has = TI_BLOCK_HAS_DATA;
    ten = &g.blocks[0].data;
    ten->has = TI_TENSOR_HAS_PRECISION;
    ten->precision = prec;
    ten->int32_data.storage = TI_DTYPE_I32; ten->int32_data.count = n;
    ten->int32_data.data = arr(&g, (size_t)n + 1, 4);
    ten->uint32_data.storage = TI_DTYPE_U32; ten->uint32_data.count = n;
    ten->uint32_data.data = arr(&g, (size_t)n + 1, 4);
    ten->float_data.storage = TI_DTYPE_F32; ten->float_data.count = n;
    ten->float_data.data = arr(&g, (size_t)n + 1, 4);
    for (i = 0; i < n; i++) {
      int sh = (int)tt_range(&r, 0, 31);
      uint32_t u = (uint32_t)tt_next(&r) >> sh;
      ((int32_t *)ten->int32_data.data)[i] = rep % 2 ? (int32_t)(int8_t)u : (int32_t)u;
      ((uint32_t *)ten->uint32_data.data)[i] = rep % 3 ? (uint8_t)u : u;
      ((float *)ten->float_data.data)[i] = (float)((double)(int32_t)u / 1024.0);
    }
    ti_buffer_init(&b, NULL); ti_buffer_init(&b2, NULL); ti_buffer_init(&t, NULL); ti_buffer_init(&b3, NULL);
    TT_EQ_INT(ti_task_encode(&g, &b, &err), TI_STATUS_SUCCESS);
    ti_task_graph_init(&g2, NULL);
    TT_CHECK_MSG(ti_task_decode(&g2, b.data, b.len, &err) == TI_STATUS_SUCCESS, "%s", err.message);
    TT_EQ_INT(ti_task_encode(&g2, &b2, &err), TI_STATUS_SUCCESS);
    TT_CHECK(same(&b2, b.data, b.len));
    for (i = 0; i < n; i++) {
      if (ti_task_values_get_i64(&g2.blocks[0].data.int32_data, i) != ((int32_t *)ten->int32_data.data)[i]) { TT_CHECK(0); break; }
      if (ti_task_values_get_i64(&g2.blocks[0].data.uint32_data, i) != ((uint32_t *)ten->uint32_data.data)[i]) { TT_CHECK(0); break; }
    }
    if (n && rep % 2 && (prec == TI_DTYPE_I8 || prec == TI_DTYPE_TERNARY)) TT_EQ_INT(g2.blocks[0].data.int32_data.storage, TI_DTYPE_I8);
    TT_EQ_INT(ti_task_format_text(&g2, &t, &err), TI_STATUS_SUCCESS);
    ti_task_graph_init(&g3, NULL);
    TT_CHECK_MSG(ti_task_parse_text(&g3, (const char *)t.data, t.len, &err) == TI_STATUS_SUCCESS, "%s", err.message);
    TT_EQ_INT(ti_task_encode(&g3, &b3, &err), TI_STATUS_SUCCESS);
    TT_CHECK(same(&b3, b.data, b.len));
    TT_EQ_INT(g3.blocks[0].data.int32_data.storage, g2.blocks[0].data.int32_data.storage);
    ti_buffer_free(&b); ti_buffer_free(&b2); ti_buffer_free(&t); ti_buffer_free(&b3);
    ti_task_graph_free(&g); ti_task_graph_free(&g2); ti_task_graph_free(&g3);
  }
}

/* ---- wire-level details --------------------------------------------------- */

static ti_status dec(const void *p, size_t n, ti_task_graph *g, ti_error *err) {
  ti_task_graph_init(g, NULL);
  ti_error_clear(err);
  return ti_task_decode(g, p, n, err);
}

TT_TEST(wire_varints_and_zigzag) {
  ti_pb_reader r;
  ti_error err;
  uint64_t v = 0;
  uint32_t u = 0;
  static const uint8_t max64[] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01 };
  static const uint8_t over[] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02 };
  static const uint8_t eleven[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00 };
  static const uint8_t neg1[] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01 };
  static const uint8_t big33[] = { 0x80, 0x80, 0x80, 0x80, 0x20 };   /* 2^33 */
  static const uint8_t u32max[] = { 0xFF, 0xFF, 0xFF, 0xFF, 0x0F };
  static const uint8_t trunc[] = { 0x80, 0x80 };
  uint8_t buf[10];
  ti_error_clear(&err);
  ti_pb_reader_init(&r, max64, sizeof max64, &err);
  TT_EQ_INT(ti_pb_read_varint(&r, &v), TI_STATUS_SUCCESS);
  TT_CHECK(v == UINT64_MAX);
  ti_pb_reader_init(&r, over, sizeof over, &err);   /* bits past the 64th are dropped, as protobuf does */
  TT_EQ_INT(ti_pb_read_varint(&r, &v), TI_STATUS_SUCCESS);
  TT_CHECK(v == (uint64_t)INT64_MAX);
  TT_CHECK(r.p == r.end);
  ti_pb_reader_init(&r, eleven, sizeof eleven, &err);
  TT_EQ_INT(ti_pb_read_varint(&r, &v), TI_STATUS_PARSE_ERROR);
  ti_error_clear(&err);
  ti_pb_reader_init(&r, trunc, sizeof trunc, &err);
  TT_EQ_INT(ti_pb_read_varint(&r, &v), TI_STATUS_PARSE_ERROR);
  TT_CHECK(strstr(err.message, "truncated") != NULL);
  ti_error_clear(&err);
  ti_pb_reader_init(&r, neg1, sizeof neg1, &err);
  TT_EQ_INT(ti_pb_read_varint32(&r, &u), TI_STATUS_SUCCESS);
  TT_EQ_INT((int32_t)u, -1);
  ti_pb_reader_init(&r, big33, sizeof big33, &err);   /* 32-bit fields keep the low 32 bits */
  TT_EQ_INT(ti_pb_read_varint32(&r, &u), TI_STATUS_SUCCESS);
  TT_EQ_INT(u, 0);
  ti_pb_reader_init(&r, u32max, sizeof u32max, &err);
  TT_EQ_INT(ti_pb_read_varint32(&r, &u), TI_STATUS_SUCCESS);
  TT_CHECK(u == 0xFFFFFFFFu);
  TT_EQ_INT(ti_pb_varint_size(0), 1);
  TT_EQ_INT(ti_pb_varint_size(127), 1);
  TT_EQ_INT(ti_pb_varint_size(128), 2);
  TT_EQ_INT(ti_pb_varint_size(UINT64_MAX), 10);
  TT_EQ_INT(ti_pb_put_varint(buf, (uint64_t)(int64_t)-1) - buf, 10);
  TT_CHECK(memcmp(buf, neg1, 10) == 0);
  TT_EQ_INT(ti_pb_zigzag32(0), 0); TT_EQ_INT(ti_pb_zigzag32(-1), 1); TT_EQ_INT(ti_pb_zigzag32(1), 2);
  TT_CHECK(ti_pb_zigzag32(INT32_MIN) == 0xFFFFFFFFu);
  TT_CHECK(ti_pb_zigzag64(INT64_MIN) == UINT64_MAX);
  TT_EQ_INT(ti_pb_unzigzag32(0xFFFFFFFFu), INT32_MIN);
  TT_CHECK(ti_pb_unzigzag64(UINT64_MAX) == INT64_MIN);
  TT_EQ_INT(ti_pb_unzigzag64(ti_pb_zigzag64(-123456789012LL)), -123456789012LL);
  {
    ti_buffer b;
    ti_buffer_init(&b, NULL);
    TT_EQ_INT(ti_pb_write_tag(&b, 5, TI_PB_FIXED32), TI_STATUS_SUCCESS);
    ti_pb_write_fixed32(&b, 0x01020304u);
    ti_pb_write_fixed64(&b, 0x0102030405060708ull);
    ti_pb_reader_init(&r, b.data, b.len, &err);
    {
      uint32_t f = 0, w = 0, x32 = 0;
      uint64_t x64;
      TT_EQ_INT(ti_pb_read_tag(&r, &f, &w), TI_STATUS_SUCCESS);
      TT_EQ_INT(f, 5); TT_EQ_INT(w, TI_PB_FIXED32);
      TT_EQ_INT(ti_pb_read_fixed32(&r, &x32), TI_STATUS_SUCCESS);
      TT_CHECK(x32 == 0x01020304u);
      TT_EQ_INT(ti_pb_read_fixed64(&r, &x64), TI_STATUS_SUCCESS);
      TT_CHECK(x64 == 0x0102030405060708ull);
    }
    ti_buffer_free(&b);
  }
}

TT_TEST(wire_packed_and_unpacked_both_accepted) {
  /* blocks { data { precision: INT_8, int32_data unpacked 5, packed [-1, 2],
     unpacked -3, dims packed [2, 2], float_data unpacked 1.0 } } */
  static const uint8_t msg[] = {
    0x0A, 0x27, 0x3A, 0x25,
    0x10, 0x00,                               /* precision INT_8 */
    0x20, 0x05,                               /* int32_data: 5 (varint) */
    0x22, 0x0B, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x02,  /* packed -1, 2 */
    0x20, 0xFD, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01,             /* -3 */
    0x0A, 0x02, 0x02, 0x02,                   /* dims packed 2, 2 */
    0x1D, 0x00, 0x00, 0x80, 0x3F              /* float_data: 1 as fixed32 */
  };
  ti_task_graph g;
  ti_error err;
  ti_buffer b;
  const ti_task_tensor *t;
  TT_CHECK_MSG(dec(msg, sizeof msg, &g, &err) == TI_STATUS_SUCCESS, "%s", err.message);
  t = &g.blocks[0].data;
  TT_EQ_INT(t->int32_data.count, 4);
  TT_EQ_INT(t->int32_data.storage, TI_DTYPE_I8);
  TT_EQ_INT(ti_task_values_get_i64(&t->int32_data, 0), 5);
  TT_EQ_INT(ti_task_values_get_i64(&t->int32_data, 1), -1);
  TT_EQ_INT(ti_task_values_get_i64(&t->int32_data, 2), 2);
  TT_EQ_INT(ti_task_values_get_i64(&t->int32_data, 3), -3);
  TT_EQ_INT(t->n_dims, 2);
  TT_EQ_INT(t->dims[1], 2);
  TT_EQ_INT(t->float_data.count, 1);
  TT_CHECK(((float *)t->float_data.data)[0] == 1.0f);
  /* canonical re-encoding: dims unpacked, values packed */
  ti_buffer_init(&b, NULL);
  TT_EQ_INT(ti_task_encode(&g, &b, &err), TI_STATUS_SUCCESS);
  {
    static const uint8_t want[] = {
      0x0A, 0x26, 0x3A, 0x24, 0x08, 0x02, 0x08, 0x02, 0x10, 0x00, 0x1A, 0x04, 0x00, 0x00, 0x80, 0x3F,
      0x22, 0x16, 0x05, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x02,
      0xFD, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01
    };
    TT_CHECK_MSG(same(&b, want, sizeof want), "canonical bytes differ (%lu bytes)", (unsigned long)b.len);
  }
  ti_buffer_free(&b);
  ti_task_graph_free(&g);
}

TT_TEST(wire_value_out_of_precision_range_widens) {
  /* INT_8 tensor holding 1000: kept exact in I32. precision after the data
     (non-canonical order) is fine too. */
  static const uint8_t msg[] = { 0x0A, 0x09, 0x3A, 0x07, 0x22, 0x03, 0x01, 0xE8, 0x07, 0x10, 0x00 };
  static const uint8_t u8msg[] = { 0x0A, 0x0A, 0x3A, 0x08, 0x10, 0x01, 0x2A, 0x04, 0xFF, 0x01, 0x80, 0x02 };
  ti_task_graph g;
  ti_error err;
  TT_CHECK_MSG(dec(msg, sizeof msg, &g, &err) == TI_STATUS_SUCCESS, "%s", err.message);
  TT_EQ_INT(g.blocks[0].data.int32_data.storage, TI_DTYPE_I32);
  TT_EQ_INT(ti_task_values_get_i64(&g.blocks[0].data.int32_data, 0), 1);
  TT_EQ_INT(ti_task_values_get_i64(&g.blocks[0].data.int32_data, 1), 1000);
  ti_task_graph_free(&g);
  /* UINT_8 holding 255 and 256: widened to U32 */
  TT_CHECK_MSG(dec(u8msg, sizeof u8msg, &g, &err) == TI_STATUS_SUCCESS, "%s", err.message);
  TT_EQ_INT(g.blocks[0].data.uint32_data.storage, TI_DTYPE_U32);
  TT_EQ_INT(ti_task_values_get_i64(&g.blocks[0].data.uint32_data, 1), 256);
  ti_task_graph_free(&g);
}

TT_TEST(wire_unknown_fields_and_groups_skipped) {
  /* TaskGraph { 99: varint, 98: fixed64, 97: fixed32, 96: bytes, 95: group{ 1: 1, 2: group{} },
     blocks { id: 7, 50: "x" } } */
  static const uint8_t msg[] = {
    0x98, 0x06, 0x01,
    0x91, 0x06, 1, 2, 3, 4, 5, 6, 7, 8,
    0x8D, 0x06, 1, 2, 3, 4,
    0x82, 0x06, 0x02, 0xAA, 0xBB,
    0xFB, 0x05, 0x08, 0x01, 0x13, 0x14, 0xFC, 0x05,
    0x0A, 0x05, 0x08, 0x07, 0x92, 0x03, 0x00
  };
  ti_task_graph g;
  ti_error err;
  TT_CHECK_MSG(dec(msg, sizeof msg, &g, &err) == TI_STATUS_SUCCESS, "%s", err.message);
  TT_EQ_INT(g.n_blocks, 1);
  TT_EQ_INT(g.blocks[0].id, 7);
  ti_task_graph_free(&g);
}

TT_TEST(wire_singular_message_twice_is_merged) {
  /* blocks { shape { nx: 1 } shape { ny: 2 } data { int32_data: [1] } data { int32_data: [300] dims: 2 } } */
  static const uint8_t msg[] = {
    0x0A, 0x15, 0x22, 0x02, 0x08, 0x01, 0x22, 0x02, 0x10, 0x02,
    0x3A, 0x03, 0x22, 0x01, 0x01, 0x3A, 0x06, 0x22, 0x02, 0xAC, 0x02, 0x08, 0x02
  };
  ti_task_graph g;
  ti_error err;
  TT_CHECK_MSG(dec(msg, sizeof msg, &g, &err) == TI_STATUS_SUCCESS, "%s", err.message);
  TT_EQ_INT(g.blocks[0].shape.nx, 1);
  TT_EQ_INT(g.blocks[0].shape.ny, 2);
  TT_EQ_INT(g.blocks[0].shape.has, TI_SHAPE_HAS_NX | TI_SHAPE_HAS_NY);
  TT_EQ_INT(g.blocks[0].data.int32_data.count, 2);
  TT_EQ_INT(ti_task_values_get_i64(&g.blocks[0].data.int32_data, 0), 1);
  TT_EQ_INT(ti_task_values_get_i64(&g.blocks[0].data.int32_data, 1), 300);
  TT_EQ_INT(g.blocks[0].data.n_dims, 1);
  ti_task_graph_free(&g);
}

TT_TEST(wire_graph_level_nonsense_still_decodes) {
  /* duplicate ids, an edge to a missing block, dims whose product overflows:
     the checker's business, the decoder only has to hold them. */
  static const uint8_t msg[] = {
    0x0A, 0x02, 0x08, 0x01, 0x0A, 0x02, 0x08, 0x01,
    0x12, 0x04, 0x10, 0x01, 0x18, 0x63,
    0x0A, 0x0E, 0x3A, 0x0C, 0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0x07, 0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0x07
  };
  ti_task_graph g;
  ti_error err;
  TT_CHECK_MSG(dec(msg, sizeof msg, &g, &err) == TI_STATUS_SUCCESS, "%s", err.message);
  TT_EQ_INT(g.n_blocks, 3);
  TT_EQ_INT(g.edges[0].dst_block_id, 99);
  TT_EQ_INT(g.blocks[2].data.dims[1], INT32_MAX);
  ti_task_graph_free(&g);
}


TT_TEST(int8_packed_fast_path_edges) {
  /* INT_8 tensors whose packed values mix the two canonical forms with other
     valid ones (overlong 0 and 1, values out of int8 range, negatives below
     -128 in 10 bytes) and, in some runs, one 10-byte varint with
     non-canonical high bits (bits 35..63, or past the 64th) somewhere, which
     protobuf truncates to the low 32 bits: the windowed fast path must agree
     with a plain reading everywhere, including the tail. */
  tt_rng r = { 77 };
  int rep;
  for (rep = 0; rep < 24; rep++) {
    static uint8_t vals[40000], buf[40100];
    static int64_t want[4000];
    static size_t at[4000];
    static const uint8_t neg1[] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01 };
    size_t nv = 0, n = 0, k, head, bad_at = 0;
    int nw = (int)tt_range(&r, 1, 3999), i, odd = rep % 4 == 0 ? 0 : rep % 4 == 1 ? 50 : 3, widened = 0;
    int malformed = rep % 4 == 3;
    uint8_t *q;
    ti_task_graph g;
    ti_error err;
    for (i = 0; i < nw; i++) {
      int form = (int)tt_range(&r, 0, 999) < odd ? (int)tt_range(&r, 0, 3) : 4 + (int)tt_range(&r, 0, 1);
      int8_t x = (int8_t)tt_next(&r);
      at[i] = nv;
      switch (form) {
      case 0: vals[nv++] = 0x80; vals[nv++] = 0x00; want[i] = 0; break;                 /* overlong 0 */
      case 1: vals[nv++] = 0x81; vals[nv++] = 0x00; want[i] = 1; break;                 /* overlong 1 */
      case 2: {  /* 10 bytes, one low continuation byte not 0xFF: below -128 */
        uint64_t v = 0;
        int b;
        memcpy(vals + nv, neg1, 10);
        vals[nv + 1 + tt_range(&r, 0, 2)] = (uint8_t)(0x80 | tt_range(&r, 0, 0x7E));
        for (b = 0; b < 10; b++) v |= (uint64_t)(vals[nv + b] & 0x7F) << (7 * b);
        want[i] = (int32_t)(uint32_t)v;
        widened = 1;
        nv += 10;
        break;
      }
      case 3: vals[nv++] = 0xAC; vals[nv++] = 0x02; want[i] = 300; widened = 1; break;  /* does not fit int8 */
      default:
        if (x >= 0) vals[nv++] = (uint8_t)x;
        else { memcpy(vals + nv, neg1, 10); vals[nv] = (uint8_t)x; nv += 10; }
        want[i] = x;
      }
    }
    if (malformed) {   /* spoil a high continuation byte of some 10-byte value */
      for (i = (int)tt_range(&r, 0, nw - 1); i < nw; i++)
        if (vals[at[i]] >= 0x80 && (i + 1 < nw ? at[i + 1] : nv) - at[i] == 10) break;
      if (i == nw) malformed = 0;
      else {
        if (rep % 8 == 3) vals[at[i] + 5 + tt_range(&r, 0, 3)] = 0x80;   /* bits 35..62 not all set */
        else vals[at[i] + 9] = (uint8_t)(rep % 16 == 7 ? 0x00 : 0x03);     /* bit 63 clear, or past 64 bits */
        bad_at = at[i];
      }
    }
    /* blocks { data { precision: INT_8 int32_data: [vals] } } */
    q = buf;
    *q++ = 0x0A; q = ti_pb_put_varint(q, 1 + ti_pb_varint_size(nv + 3 + ti_pb_varint_size(nv)) + nv + 3 + ti_pb_varint_size(nv));
    *q++ = 0x3A; q = ti_pb_put_varint(q, nv + 3 + ti_pb_varint_size(nv));
    *q++ = 0x10; *q++ = 0x00;
    *q++ = 0x22; q = ti_pb_put_varint(q, nv);
    head = (size_t)(q - buf);
    memcpy(q, vals, nv);
    n = head + nv;
    (void)bad_at;   /* the low 32 bits (bytes 0..4) are untouched: want[] holds */
    if (dec(buf, n, &g, &err) != TI_STATUS_SUCCESS) {
      TT_CHECK_MSG(0, "%s", err.message);
      ti_task_graph_free(&g);
      continue;
    }
    TT_EQ_INT(g.blocks[0].data.int32_data.storage, widened ? TI_DTYPE_I32 : TI_DTYPE_I8);
    TT_EQ_INT(g.blocks[0].data.int32_data.count, nw);
    for (k = 0; k < (size_t)nw; k++)
      if (ti_task_values_get_i64(&g.blocks[0].data.int32_data, (int64_t)k) != want[k]) {
        TT_CHECK_MSG(0, "rep %d value %lu: %lld, want %lld", rep, (unsigned long)k,
                     (long long)ti_task_values_get_i64(&g.blocks[0].data.int32_data, (int64_t)k), (long long)want[k]);
        break;
      }
    ti_task_graph_free(&g);
  }
}

TT_TEST(decoded_memory_within_2x_of_data) {
  /* A few MB of int8 weights: the decoded graph costs about the values at
     natural width (1 byte per int8), not 4 bytes per value, nor the file. */
  ti_task_graph g, g2;
  ti_buffer b;
  ti_error err;
  size_t data;
  synth_resnet(&g, (size_t)4 << 20);
  ti_buffer_init(&b, NULL);
  ti_error_clear(&err);
  TT_EQ_INT(ti_task_encode(&g, &b, &err), TI_STATUS_SUCCESS);
  ti_task_graph_init(&g2, NULL);
  TT_EQ_INT(ti_task_decode(&g2, b.data, b.len, &err), TI_STATUS_SUCCESS);
  data = synth_data_bytes(&g2);
  TT_CHECK(data > ((size_t)1 << 20));
  TT_CHECK_MSG(g2.arena.total <= 2 * data, "arena %lu bytes for %lu bytes of data", (unsigned long)g2.arena.total,
               (unsigned long)data);
  TT_CHECK(b.len > 4 * data);   /* the wire form is much bigger */
  ti_buffer_free(&b);
  ti_task_graph_free(&g);
  ti_task_graph_free(&g2);
}

/* ---- malformed binary ------------------------------------------------------ */

typedef struct bad_case {
  const char *what;
  const uint8_t *bytes;
  size_t n;
  ti_status status;
  long offset;
  const char *in;     /* expected in the message (field path), or NULL */
} bad_case;

TT_TEST(malformed_binary_named_by_offset_and_path) {
  static const uint8_t overlong[] = { 0x0A, 0x0C, 0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01 };
  static const uint8_t truncated_varint[] = { 0x0A, 0x02, 0x08, 0x80 };
  static const uint8_t len_past_end[] = { 0x0A, 0x05, 0x08, 0x01 };
  static const uint8_t inner_past_end[] = { 0x0A, 0x04, 0x3A, 0x05, 0x10, 0x00 };
  static const uint8_t neg_len[] = { 0x0A, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01 };
  static const uint8_t huge_len[] = { 0x12, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x00 };
  static const uint8_t field0[] = { 0x00, 0x01 };
  static const uint8_t wt7[] = { 0x0F, 0x01 };
  static const uint8_t egroup[] = { 0x0C };
  static const uint8_t group_open[] = { 0x0B, 0x08, 0x01 };
  static const uint8_t group_mismatch[] = { 0x0B, 0x14 };
  static const uint8_t float_len[] = { 0x0A, 0x05, 0x3A, 0x03, 0x1A, 0x01, 0x00 };
  static const uint8_t packed_cut[] = { 0x0A, 0x05, 0x3A, 0x03, 0x22, 0x01, 0x80 };
  static const uint8_t second_block[] = {
    0x0A, 0x02, 0x08, 0x00, 0x0A, 0x02, 0x08, 0x01, 0x0A, 0x02, 0x08, 0x02,
    0x0A, 0x08, 0x3A, 0x06, 0x22, 0x04, 0x01, 0x02, 0x80, 0x00   /* fine */
  };
  static const uint8_t fixed_cut[] = { 0x0A, 0x04, 0x42, 0x02, 0x25, 0x00 };   /* attributes.float_value cut */
  const bad_case bad[] = {
    { "overlong varint", overlong, sizeof overlong, TI_STATUS_PARSE_ERROR, 3, "blocks[0].id" },
    { "truncated varint", truncated_varint, sizeof truncated_varint, TI_STATUS_PARSE_ERROR, 3, "blocks[0].id" },
    { "length past end", len_past_end, sizeof len_past_end, TI_STATUS_PARSE_ERROR, 1, "blocks" },
    { "inner length past end", inner_past_end, sizeof inner_past_end, TI_STATUS_PARSE_ERROR, 3, "blocks[0].data" },
    { "negative length", neg_len, sizeof neg_len, TI_STATUS_PARSE_ERROR, 1, "blocks" },
    { "huge length", huge_len, sizeof huge_len, TI_STATUS_PARSE_ERROR, 1, "edges" },
    { "field number 0", field0, sizeof field0, TI_STATUS_PARSE_ERROR, 0, NULL },
    { "wire type 7", wt7, sizeof wt7, TI_STATUS_PARSE_ERROR, 0, NULL },
    { "end-group alone", egroup, sizeof egroup, TI_STATUS_PARSE_ERROR, 0, NULL },
    { "group not closed", group_open, sizeof group_open, TI_STATUS_PARSE_ERROR, 0, NULL },
    { "group end mismatch", group_mismatch, sizeof group_mismatch, TI_STATUS_PARSE_ERROR, 1, NULL },
    { "packed float not x4", float_len, sizeof float_len, TI_STATUS_PARSE_ERROR, 5, "blocks[0].data.float_data" },
    { "packed ends in a varint", packed_cut, sizeof packed_cut, TI_STATUS_PARSE_ERROR, 6, "blocks[0].data.int32_data" },
    { "fixed32 cut", fixed_cut, sizeof fixed_cut, TI_STATUS_PARSE_ERROR, 5, "blocks[0].attributes[0].float_value" },
  };
  size_t i;
  ti_task_graph g;
  ti_error err;
  for (i = 0; i < sizeof bad / sizeof *bad; i++) {
    char at[48];
    ti_status st = dec(bad[i].bytes, bad[i].n, &g, &err);
    TT_CHECK_MSG(st == bad[i].status, "%s: status %s, %s", bad[i].what, ti_status_name(st), err.message);
    TT_CHECK_MSG(err.offset == bad[i].offset, "%s: offset %lld, want %ld: %s", bad[i].what, (long long)err.offset,
                 bad[i].offset, err.message);
    snprintf(at, sizeof at, "at byte %ld", bad[i].offset);
    TT_CHECK_MSG(strstr(err.message, at) != NULL, "%s: message lacks \"%s\": %s", bad[i].what, at, err.message);
    if (bad[i].in) TT_CHECK_MSG(strstr(err.message, bad[i].in) != NULL, "%s: message lacks \"%s\": %s", bad[i].what, bad[i].in, err.message);
    ti_task_graph_free(&g);
  }
  TT_CHECK(dec(second_block, sizeof second_block, &g, &err) == TI_STATUS_SUCCESS);
  ti_task_graph_free(&g);
}

/* protoc's text with the unknown fields (keys that are numbers, with their
   nested bodies) left out: what taskir keeps. */
static size_t drop_unknown(const unsigned char *in, size_t n, char *out) {
  size_t i = 0, o = 0;
  int skip_depth = 0;
  while (i < n) {
    size_t e = i, k;
    int opens, closes;
    while (e < n && in[e] != '\n') e++;
    for (k = i; k < e && in[k] == ' '; k++) {}
    opens = e > i && in[e - 1] == '{';
    closes = k < e && in[k] == '}';
    if (skip_depth) skip_depth += opens - closes;
    else if (k < e && in[k] >= '0' && in[k] <= '9') skip_depth = opens;
    else { memcpy(out + o, in + i, e - i); o += e - i; if (e < n) out[o++] = '\n'; }
    i = e + 1;
  }
  return o;
}

/* Issue 12 item 15: input protoc decodes, taskir decodes to the same message
   (compared with `protoc --decode` itself, unknown fields aside); a known
   field with another wire type and an unknown enum value are unknown fields
   (skipped, the field unset), 32-bit fields keep the low 32 bits. */
TT_TEST(decodes_what_protoc_decodes) {
  static const uint8_t overflow10[] = { 0x0A, 0x0B, 0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02 };
  static const uint8_t tenth7f[] = { 0x0A, 0x0B, 0x08, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F };
  static const uint8_t wrong_wt[] = { 0x0A, 0x04, 0x08, 0x01, 0x0A, 0x00 };               /* id as bytes */
  static const uint8_t wrong_wt_msg[] = { 0x0A, 0x02, 0x20, 0x01 };                        /* shape as varint */
  static const uint8_t bad_enum[] = { 0x0A, 0x02, 0x08, 0x01, 0x0A, 0x02, 0x10, 0x4D };  /* type 77 */
  static const uint8_t enum_then_bad[] = { 0x0A, 0x04, 0x10, 0x01, 0x10, 0x4D };          /* type 1, then 77 */
  static const uint8_t bad_prec[] = { 0x0A, 0x04, 0x3A, 0x02, 0x10, 0x0B };              /* precision 11 */
  static const uint8_t int32_big[] = { 0x0A, 0x06, 0x08, 0x80, 0x80, 0x80, 0x80, 0x20 };  /* id 2^33 */
  static const uint8_t int32_mix[] = { 0x0A, 0x06, 0x08, 0x85, 0x80, 0x80, 0x80, 0x7F };  /* 5 + bits 28..34 set */
  static const uint8_t data_big[] = {
    0x0A, 0x00, 0x0A, 0x00, 0x0A, 0x00,
    0x0A, 0x0A, 0x3A, 0x08, 0x22, 0x06, 0x80, 0x80, 0x80, 0x80, 0x20, 0x07   /* int32_data [2^33, 7] */
  };
  static const uint8_t float_as_varint[] = { 0x0A, 0x04, 0x3A, 0x02, 0x18, 0x01 };  /* float_data, wire type 0 */
  static const uint8_t ints_as_fixed[] = { 0x0A, 0x07, 0x3A, 0x05, 0x25, 0x01, 0x02, 0x03, 0x04 };  /* int32_data fixed32 */
  static const uint8_t rep_msg_varint[] = { 0x0A, 0x02, 0x28, 0x03, 0x12, 0x02, 0x08, 0x09 };  /* input_clusters as varint */
  static const struct { const char *what; const uint8_t *b; size_t n; } c[] = {
    { "10th byte > 1", overflow10, sizeof overflow10 }, { "10th byte 0x7f", tenth7f, sizeof tenth7f },
    { "wrong wire type", wrong_wt, sizeof wrong_wt }, { "message as varint", wrong_wt_msg, sizeof wrong_wt_msg },
    { "unknown enum", bad_enum, sizeof bad_enum }, { "enum then unknown", enum_then_bad, sizeof enum_then_bad },
    { "unknown precision", bad_prec, sizeof bad_prec }, { "int32 over 32 bits", int32_big, sizeof int32_big },
    { "int32 high bits", int32_mix, sizeof int32_mix }, { "int32_data over 32 bits", data_big, sizeof data_big },
    { "float_data as varint", float_as_varint, sizeof float_as_varint },
    { "int32_data as fixed32", ints_as_fixed, sizeof ints_as_fixed },
    { "repeated message as varint", rep_msg_varint, sizeof rep_msg_varint },
  };
  size_t i;
  for (i = 0; i < sizeof c / sizeof *c; i++) {
    ti_task_graph g;
    ti_error err;
    ti_buffer t, b;
    ti_status st = dec(c[i].b, c[i].n, &g, &err);
    TT_CHECK_MSG(st == TI_STATUS_SUCCESS, "%s: %s", c[i].what, err.message);
    ti_buffer_init(&t, NULL);
    ti_buffer_init(&b, NULL);
    if (st == TI_STATUS_SUCCESS) {
      TT_EQ_INT(ti_task_format_text(&g, &t, &err), TI_STATUS_SUCCESS);
      TT_EQ_INT(ti_task_encode(&g, &b, &err), TI_STATUS_SUCCESS);
    }
    if (st == TI_STATUS_SUCCESS && have_protoc()) {
      size_t dn = 0, kn, en = 0;
      unsigned char *d = protoc("decode", c[i].b, c[i].n, &dn), *e;
      char *kept = (char *)malloc(dn + 1);
      TT_CHECK_MSG(d != NULL, "%s: protoc --decode fails", c[i].what);
      kn = d ? drop_unknown(d, dn, kept) : 0;
      TT_CHECK_MSG(d && same(&t, kept, kn), "%s: ours\n%.*s\nprotoc's (unknown fields dropped)\n%.*s", c[i].what,
                   (int)t.len, (const char *)t.data, (int)kn, kept);
      /* and what we write back, protoc reads as the same message */
      e = protoc("decode", b.data, b.len, &en);
      TT_CHECK_MSG(e && same(&t, e, en), "%s: protoc --decode of our re-encoding differs", c[i].what);
      free(d); free(e); free(kept);
    }
    ti_buffer_free(&t);
    ti_buffer_free(&b);
    if (st == TI_STATUS_SUCCESS) {   /* the values, protoc or not */
      if (c[i].b == overflow10) TT_EQ_INT(g.blocks[0].id, -1);
      if (c[i].b == tenth7f) TT_EQ_INT(g.blocks[0].id, -2);
      if (c[i].b == int32_big) { TT_EQ_INT(g.blocks[0].id, 0); TT_CHECK(g.blocks[0].has & TI_BLOCK_HAS_ID); }
      if (c[i].b == int32_mix) TT_EQ_INT(g.blocks[0].id, (int32_t)(5u | 0xF0000000u));
      if (c[i].b == wrong_wt) TT_EQ_INT(g.blocks[0].id, 1);
      if (c[i].b == wrong_wt_msg) TT_CHECK(!(g.blocks[0].has & TI_BLOCK_HAS_SHAPE));
      if (c[i].b == bad_enum) { TT_EQ_INT(g.n_blocks, 2); TT_CHECK(!(g.blocks[1].has & TI_BLOCK_HAS_TYPE)); }
      if (c[i].b == enum_then_bad) { TT_CHECK(g.blocks[0].has & TI_BLOCK_HAS_TYPE); TT_EQ_INT(ti_block_type_wire(g.blocks[0].type), 1); }
      if (c[i].b == bad_prec) TT_CHECK(!(g.blocks[0].data.has & TI_TENSOR_HAS_PRECISION));
      if (c[i].b == data_big) {
        TT_EQ_INT(g.blocks[3].data.int32_data.count, 2);
        TT_EQ_INT(ti_task_values_get_i64(&g.blocks[3].data.int32_data, 0), 0);
        TT_EQ_INT(ti_task_values_get_i64(&g.blocks[3].data.int32_data, 1), 7);
      }
      if (c[i].b == float_as_varint) TT_EQ_INT(g.blocks[0].data.float_data.count, 0);
      if (c[i].b == ints_as_fixed) TT_EQ_INT(g.blocks[0].data.int32_data.count, 0);
      if (c[i].b == rep_msg_varint) { TT_EQ_INT(g.blocks[0].n_inputs, 0); TT_EQ_INT(g.n_edges, 1); }
    }
    ti_task_graph_free(&g);
  }
}

TT_TEST(malformed_binary_nesting_deeper_than_limit) {
  /* 100 nested groups in an unknown field, and messages nested past the
     limit through an unknown length-delimited field are only skipped. */
  uint8_t buf[400];
  size_t n = 0;
  int i;
  ti_task_graph g;
  ti_error err;
  for (i = 0; i < 100; i++) { buf[n++] = 0xFB; buf[n++] = 0x05; }   /* start group 95 */
  for (i = 0; i < 100; i++) { buf[n++] = 0xFC; buf[n++] = 0x05; }
  TT_EQ_INT(dec(buf, n, &g, &err), TI_STATUS_LIMIT);
  TT_CHECK(strstr(err.message, "deeper") != NULL);
  TT_CHECK(err.offset == 2 * TASKIR_PROTO_MAX_DEPTH);
  ti_task_graph_free(&g);
  /* within the limit: fine */
  n = 0;
  for (i = 0; i < 10; i++) { buf[n++] = 0xFB; buf[n++] = 0x05; }
  for (i = 0; i < 10; i++) { buf[n++] = 0xFC; buf[n++] = 0x05; }
  TT_EQ_INT(dec(buf, n, &g, &err), TI_STATUS_SUCCESS);
  ti_task_graph_free(&g);
}

TT_TEST(malformed_binary_every_prefix_and_byte_flip) {
  /* Every prefix of a real file either decodes or fails cleanly with an
     offset inside the input; so does every single-byte corruption of its
     head (under ASan this also proves no over-read and no leak). */
  char path[512];
  unsigned char *pb, *m;
  size_t n = 0, cut, fails = 0;
  ti_task_graph g;
  ti_error err;
  if (!fixture_path(path, sizeof path, "cvm", "pb")) TT_SKIP("fixtures not found (set TASKIR_FIXTURES)");
  pb = slurp(path, &n);
  for (cut = 0; cut < n; cut += cut < 600 ? 1 : 37) {
    unsigned char *copy = (unsigned char *)malloc(cut + 1);   /* exact size: ASan sees over-reads */
    ti_status st;
    memcpy(copy, pb, cut);
    st = dec(copy, cut, &g, &err);
    if (st != TI_STATUS_SUCCESS) {
      fails++;
      TT_CHECK(st == TI_STATUS_PARSE_ERROR);
      TT_CHECK(err.offset >= 0 && (size_t)err.offset <= cut);
      TT_CHECK(strstr(err.message, "at byte") != NULL);
    }
    ti_task_graph_free(&g);
    free(copy);
  }
  TT_CHECK(fails > 500);
  m = (unsigned char *)malloc(n);
  for (cut = 0; cut < 400 && cut < n; cut++) {
    int bit;
    for (bit = 0; bit < 8; bit += 3) {
      ti_status st;
      memcpy(m, pb, n);
      m[cut] ^= (unsigned char)(1u << bit);
      st = dec(m, n, &g, &err);
      if (st != TI_STATUS_SUCCESS) TT_CHECK(err.offset >= 0 && (size_t)err.offset <= n);
      else {
        ti_buffer b;
        ti_buffer_init(&b, NULL);
        TT_CHECK(ti_task_encode(&g, &b, &err) == TI_STATUS_SUCCESS);
        ti_buffer_free(&b);
      }
      ti_task_graph_free(&g);
    }
  }
  free(m);
  free(pb);
}

/* ---- text format ------------------------------------------------------------ */

static ti_status parse(const char *s, ti_task_graph *g, ti_error *err) {
  ti_task_graph_init(g, NULL);
  ti_error_clear(err);
  return ti_task_parse_text(g, s, strlen(s), err);
}

TT_TEST(text_syntax_variants) {
  const char *s =
    "# a comment\n"
    "blocks < id: 0x1F type: 11; precision: 100, shape: { nx: 010 ny: -5 extra_dimensions: [1, 2,3] } >\n"
    "blocks { id: -2147483648 is_virtual: true bias_type: CONSTANT socket_id: 0\n"
    "  attributes { type: BIT_SHIFT_NUM float_value: -inf } attributes { type: BIT_SHIGT_NUM float_value: 1.5f }\n"
    "  attributes [ { type: 37 float_value: .25 }, { float_value: nan }, <int_value: 1> ]\n"
    "  data { float_data: [1e3, -0.5, 2E-2, inf, -Infinity, 7] int32_data: [-1, 1] int32_data: 127 uint32_data: 0xFFFFFFFF\n"
    "         name: \"a\" 'b' \"\\x41\\101\\n\\u00e9\\'\" precision: INT_8 }\n"
    "}\n"
    "test_config { random_seed: -9223372036854775808 test_case_name: \"\" test_mode: 2 }\n"
    "edges: [ { id: 1 rearrange_info { type: RESHAPE matrix { int32_data: [2, 1, 0] } } } ]\n"
    "groups { block_ids: 1 block_ids: [2] }";
  ti_task_graph g;
  ti_error err;
  const ti_task_block *b;
  TT_CHECK_MSG(parse(s, &g, &err) == TI_STATUS_SUCCESS, "%s", err.message);
  TT_EQ_INT(g.n_blocks, 2);
  b = &g.blocks[0];
  TT_EQ_INT(b->id, 31);
  TT_EQ_INT(b->type, TI_BLOCK_CC);
  TT_EQ_INT(b->precision, TI_DTYPE_I9);
  TT_EQ_INT(b->shape.nx, 8);
  TT_EQ_INT(b->shape.ny, -5);
  TT_EQ_INT(b->shape.n_extra, 3);
  TT_EQ_INT(b->shape.extra[2], 3);
  b = &g.blocks[1];
  TT_EQ_INT(b->id, INT32_MIN);
  TT_EQ_INT(b->is_virtual, 1);
  TT_EQ_INT(b->bias_type, TI_BIAS_CONSTANT);
  TT_EQ_INT(b->n_attrs, 5);
  TT_EQ_INT(b->attrs[0].type, TI_TASK_ATTR_BIT_SHIFT_NUM);
  TT_EQ_INT(b->attrs[1].type, TI_TASK_ATTR_BIT_SHIFT_NUM);
  TT_CHECK(isinf(b->attrs[0].float_value) && b->attrs[0].float_value < 0);
  TT_CHECK(b->attrs[1].float_value == 1.5f);
  TT_EQ_INT(b->attrs[2].type, TI_TASK_ATTR_VTHETA_CONST);
  TT_CHECK(b->attrs[2].float_value == 0.25f);
  TT_CHECK(isnan(b->attrs[3].float_value));
  TT_EQ_INT(b->attrs[4].int_value, 1);
  TT_EQ_INT(b->data.float_data.count, 6);
  TT_CHECK(((float *)b->data.float_data.data)[0] == 1000.0f && ((float *)b->data.float_data.data)[2] == 0.02f);
  TT_CHECK(isinf(((float *)b->data.float_data.data)[4]));
  TT_EQ_INT(b->data.int32_data.count, 3);
  TT_EQ_INT(b->data.int32_data.storage, TI_DTYPE_I8);   /* precision given after the values */
  TT_EQ_INT(ti_task_values_get_i64(&b->data.uint32_data, 0), 4294967295LL);
  TT_EQ_INT(b->data.name_len, 8);
  TT_CHECK(memcmp(b->data.name, "abAA\n\xc3\xa9'", 9) == 0);   /* and NUL-terminated */
  TT_CHECK(g.test_config.random_seed == INT64_MIN);
  TT_EQ_INT(g.test_config.has, TI_TCFG_HAS_SEED | TI_TCFG_HAS_NAME | TI_TCFG_HAS_MODE);
  TT_EQ_INT(g.test_config.name_len, 0);
  TT_EQ_INT(g.edges[0].rearrange[0].matrix[0].int32_data.count, 3);
  TT_EQ_INT(g.groups[0].n_block_ids, 2);
  ti_task_graph_free(&g);
}

typedef struct bad_text {
  const char *what, *text;
  ti_status status;
  int line, column;
  const char *in;
} bad_text;

TT_TEST(malformed_text_named_by_line_and_column) {
  const bad_text bad[] = {
    { "unterminated string", "blocks {\n  data { name: \"abc\n} }", TI_STATUS_PARSE_ERROR, 2, 16, "unterminated string" },
    { "string at end", "test_config { test_case_name: 'x", TI_STATUS_PARSE_ERROR, 1, 31, "unterminated" },
    { "unknown field", "blocks {\n  id: 1\n  colour: 3\n}", TI_STATUS_PARSE_ERROR, 3, 3, "unknown field \"colour\" in TaskBlock" },
    { "unknown enum", "blocks { type: CONV }", TI_STATUS_PARSE_ERROR, 1, 16, "CONV" },
    { "unknown enum number", "blocks { precision: 12 }", TI_STATUS_PARSE_ERROR, 1, 21, "Precision" },
    { "string for int", "blocks { id: \"7\" }", TI_STATUS_PARSE_ERROR, 1, 14, "id" },
    { "float for int", "blocks { id: 1.5 }", TI_STATUS_PARSE_ERROR, 1, 14, "integer" },
    { "int32 out of range", "blocks { id: 2147483648 }", TI_STATUS_PARSE_ERROR, 1, 14, "out of range" },
    { "int32 too negative", "blocks {\n id: -2147483649 }", TI_STATUS_PARSE_ERROR, 2, 6, "out of range" },
    { "uint32 negative", "blocks { data { uint32_data: -1 } }", TI_STATUS_PARSE_ERROR, 1, 30, "negative" },
    { "uint64 overflow", "test_config { random_seed: 99999999999999999999 }", TI_STATUS_PARSE_ERROR, 1, 28, "out of range" },
    { "missing brace", "blocks {\n  shape { nx: 1 }\n", TI_STATUS_PARSE_ERROR, 3, 1, "missing '}'" },
    { "missing brace names opener", "edges {\n  id: 1", TI_STATUS_PARSE_ERROR, 2, 8, "line 1 column 7" },
    { "stray brace", "blocks { }\n}", TI_STATUS_PARSE_ERROR, 2, 1, "unexpected '}'" },
    { "missing colon", "blocks { id 1 }", TI_STATUS_PARSE_ERROR, 1, 13, "expected ':'" },
    { "missing value", "blocks { id: }", TI_STATUS_PARSE_ERROR, 1, 14, "expected" },
    { "duplicate field", "blocks { id: 1 id: 2 }", TI_STATUS_PARSE_ERROR, 1, 16, "given twice" },
    { "duplicate message", "test_config { } test_config { }", TI_STATUS_PARSE_ERROR, 1, 17, "given twice" },
    { "bad escape", "blocks { data { name: \"a\\qb\" } }", TI_STATUS_PARSE_ERROR, 1, 25, "escape" },
    { "list for singular", "blocks { id: [1, 2] }", TI_STATUS_PARSE_ERROR, 1, 14, "not repeated" },
    { "message needs brace", "blocks: 5", TI_STATUS_PARSE_ERROR, 1, 9, "'{'" },
    { "bad bool", "blocks { is_virtual: yes }", TI_STATUS_PARSE_ERROR, 1, 22, "true or false" },
    { "number glued to word", "blocks { id: 12ab }", TI_STATUS_PARSE_ERROR, 1, 16, "space" },
    { "octal with 9", "blocks { id: 09 }", TI_STATUS_PARSE_ERROR, 1, 15, "octal" },
    { "unclosed list", "groups { block_ids: [1, 2 }", TI_STATUS_PARSE_ERROR, 1, 27, "']'" },
    { "float word", "blocks { attributes { float_value: infinite } }", TI_STATUS_PARSE_ERROR, 1, 36, "number" },
  };
  size_t i;
  ti_task_graph g;
  ti_error err;
  for (i = 0; i < sizeof bad / sizeof *bad; i++) {
    char at[48];
    ti_status st = parse(bad[i].text, &g, &err);
    TT_CHECK_MSG(st == bad[i].status, "%s: status %s: %s", bad[i].what, ti_status_name(st), err.message);
    TT_CHECK_MSG(err.line == bad[i].line && err.column == bad[i].column, "%s: at %d:%d, want %d:%d: %s", bad[i].what,
                 (int)err.line, (int)err.column, bad[i].line, bad[i].column, err.message);
    snprintf(at, sizeof at, "line %d column %d", bad[i].line, bad[i].column);
    TT_CHECK_MSG(strstr(err.message, at) != NULL, "%s: message lacks \"%s\": %s", bad[i].what, at, err.message);
    TT_CHECK_MSG(strstr(err.message, bad[i].in) != NULL, "%s: message lacks \"%s\": %s", bad[i].what, bad[i].in, err.message);
    ti_task_graph_free(&g);
  }
  /* a depth bomb in text */
  {
    char *deep = (char *)malloc(4000);
    size_t n = 0;
    int k;
    n += (size_t)sprintf(deep + n, "blocks { ");
    for (k = 0; k < 60; k++) n += (size_t)sprintf(deep + n, "input_clusters { interfaces { position { ");
    deep[n] = 0;
    TT_CHECK(parse(deep, &g, &err) != TI_STATUS_SUCCESS);
    ti_task_graph_free(&g);
    free(deep);
  }
}

TT_TEST(text_depth_limit_and_empty_input) {
  ti_task_graph g;
  ti_error err;
  TT_EQ_INT(parse("", &g, &err), TI_STATUS_SUCCESS);
  TT_EQ_INT(g.n_blocks, 0);
  ti_task_graph_free(&g);
  TT_EQ_INT(parse("  # only a comment\n", &g, &err), TI_STATUS_SUCCESS);
  ti_task_graph_free(&g);
  /* the empty message encodes to nothing */
  {
    ti_buffer b;
    ti_task_graph_init(&g, NULL);
    ti_buffer_init(&b, NULL);
    TT_EQ_INT(ti_task_encode(&g, &b, &err), TI_STATUS_SUCCESS);
    TT_EQ_INT(b.len, 0);
    TT_EQ_INT(ti_task_format_text(&g, &b, &err), TI_STATUS_SUCCESS);
    TT_EQ_INT(b.len, 0);
    TT_EQ_INT(ti_task_decode(&g, NULL, 0, &err), TI_STATUS_SUCCESS);
    ti_buffer_free(&b);
    ti_task_graph_free(&g);
  }
}

TT_TEST(text_random_garbage_never_crashes) {
  /* Splices of valid text and random bytes: parse fails or succeeds, and on
     success the graph encodes and formats. */
  static const char *frag[] = { "blocks {", "}", "id: 3", "data {", "int32_data: [1,-2]", "name: \"x\\n\"", "'", "\"",
                                "<", ">", "[", "]", ",", ";", ":", "type: CC", "precision: 100", "float_data: -nan",
                                "# c\n", "\n", "edges", "1e", "0x", "-", "{", "shape", "attributes { type: 13 }" };
  tt_rng r = { 12345 };
  int rep;
  for (rep = 0; rep < 3000; rep++) {
    char buf[256];
    size_t n = 0;
    ti_task_graph g;
    ti_error err;
    int parts = (int)tt_range(&r, 1, 12);
    while (parts-- > 0) {
      const char *f = frag[tt_range(&r, 0, (int64_t)(sizeof frag / sizeof *frag) - 1)];
      size_t fl = strlen(f);
      if (n + fl + 2 >= sizeof buf) break;
      memcpy(buf + n, f, fl);
      n += fl;
      if (tt_range(&r, 0, 3) == 0) buf[n++] = (char)tt_next(&r);
      buf[n++] = ' ';
    }
    {
      char *exact = (char *)malloc(n ? n : 1);
      memcpy(exact, buf, n);
      ti_task_graph_init(&g, NULL);
      ti_error_clear(&err);
      if (ti_task_parse_text(&g, exact, n, &err) == TI_STATUS_SUCCESS) {
        ti_buffer b;
        ti_buffer_init(&b, NULL);
        TT_CHECK(ti_task_encode(&g, &b, &err) == TI_STATUS_SUCCESS);
        TT_CHECK(ti_task_format_text(&g, &b, &err) == TI_STATUS_SUCCESS);
        ti_buffer_free(&b);
      } else
        TT_CHECK(err.line >= 1 && err.column >= 1);
      ti_task_graph_free(&g);
      free(exact);
    }
  }
}

/* ---- encoder input checks and files ---------------------------------------- */

TT_TEST(encode_rejects_bad_structs) {
  ti_task_graph g;
  ti_error err;
  ti_buffer b;
  ti_task_graph_init(&g, NULL);
  ti_buffer_init(&b, NULL);
  g.n_blocks = 1;
  g.blocks = (ti_task_block *)arr(&g, 1, sizeof(ti_task_block));
  g.blocks[0].has = TI_BLOCK_HAS_TYPE;
  g.blocks[0].type = (ti_block_type)77;
  ti_error_clear(&err);
  TT_EQ_INT(ti_task_encode(&g, &b, &err), TI_STATUS_BAD_PARAM);
  TT_CHECK(strstr(err.message, "TaskBlock.type") != NULL);
  ti_error_clear(&err);
  TT_EQ_INT(ti_task_format_text(&g, &b, &err), TI_STATUS_BAD_PARAM);
  TT_EQ_INT(b.len, 0);
  g.blocks[0].type = TI_BLOCK_CC;
  g.blocks[0].n_attrs = -1;
  ti_error_clear(&err);
  TT_EQ_INT(ti_task_encode(&g, &b, &err), TI_STATUS_BAD_PARAM);
  g.blocks[0].n_attrs = 0;
  g.blocks[0].has |= TI_BLOCK_HAS_DATA;
  g.blocks[0].data.int32_data.count = 3;
  g.blocks[0].data.int32_data.storage = TI_DTYPE_F32;
  g.blocks[0].data.int32_data.data = arr(&g, 3, 4);
  ti_error_clear(&err);
  TT_EQ_INT(ti_task_encode(&g, &b, &err), TI_STATUS_BAD_PARAM);
  TT_EQ_INT(b.len, 0);
  ti_buffer_free(&b);
  ti_task_graph_free(&g);
}

TT_TEST(files_by_extension_and_io_errors) {
  ti_task_graph g, g2;
  ti_error err;
  ti_buffer b1, b2;
  char pbpath[] = "/tmp/taskir_test_XXXXXX";
  char txtpath[64], pbfile[64];
  int fd = mkstemp(pbpath);
  TT_CHECK(fd >= 0);
  close(fd);
  snprintf(pbfile, sizeof pbfile, "%s.pb", pbpath);
  snprintf(txtpath, sizeof txtpath, "%s.txt", pbpath);
  build_full(&g);
  ti_error_clear(&err);
  TT_CHECK_MSG(ti_task_write_file(pbfile, &g, &err) == TI_STATUS_SUCCESS, "%s", err.message);
  TT_CHECK_MSG(ti_task_write_file(txtpath, &g, &err) == TI_STATUS_SUCCESS, "%s", err.message);
  {
    size_t n;
    unsigned char *t = slurp(txtpath, &n);
    TT_CHECK(t && n > 10 && memcmp(t, "blocks {\n", 9) == 0);
    free(t);
  }
  ti_buffer_init(&b1, NULL);
  ti_buffer_init(&b2, NULL);
  TT_EQ_INT(ti_task_encode(&g, &b1, &err), TI_STATUS_SUCCESS);
  ti_task_graph_init(&g2, NULL);
  TT_CHECK_MSG(ti_task_read_file(txtpath, &g2, &err) == TI_STATUS_SUCCESS, "%s", err.message);
  TT_EQ_INT(ti_task_encode(&g2, &b2, &err), TI_STATUS_SUCCESS);
  TT_CHECK(same(&b2, b1.data, b1.len));
  ti_task_graph_free(&g2);
  b2.len = 0;
  ti_task_graph_init(&g2, NULL);
  TT_CHECK_MSG(ti_task_read_file(pbfile, &g2, &err) == TI_STATUS_SUCCESS, "%s", err.message);
  TT_EQ_INT(ti_task_encode(&g2, &b2, &err), TI_STATUS_SUCCESS);
  TT_CHECK(same(&b2, b1.data, b1.len));
  ti_task_graph_free(&g2);
  /* errors name the path */
  ti_task_graph_init(&g2, NULL);
  ti_error_clear(&err);
  TT_EQ_INT(ti_task_read_file("/nonexistent/dir/x.pb", &g2, &err), TI_STATUS_IO_ERROR);
  TT_CHECK(strstr(err.message, "/nonexistent/dir/x.pb") != NULL);
  ti_error_clear(&err);
  TT_EQ_INT(ti_task_write_file("/nonexistent/dir/x.txt", &g, &err), TI_STATUS_IO_ERROR);
  TT_CHECK(strstr(err.message, "/nonexistent/dir/x.txt") != NULL);
  /* a parse error in a file names the file and the place */
  write_all(txtpath, "blocks { id: x }", 16);
  ti_error_clear(&err);
  TT_EQ_INT(ti_task_read_file(txtpath, &g2, &err), TI_STATUS_PARSE_ERROR);
  TT_CHECK(strstr(err.message, txtpath) != NULL && strstr(err.message, "line 1 column 14") != NULL);
  ti_task_graph_free(&g2);
  remove(pbpath); remove(pbfile); remove(txtpath);
  ti_buffer_free(&b1); ti_buffer_free(&b2);
  ti_task_graph_free(&g);
}

int main(void) {
  TT_RUN(fixtures_binary_reencodes_identically);
  TT_RUN(fixtures_text_parses_to_the_binary);
  TT_RUN(fixtures_values_kept_at_natural_width);
  TT_RUN(fixtures_text_output_equals_protoc_decode);
  TT_RUN(decodes_what_protoc_decodes);
  TT_RUN(synthetic_roundtrips_binary_and_text);
  TT_RUN(synthetic_random_values_roundtrip);
  TT_RUN(wire_varints_and_zigzag);
  TT_RUN(wire_packed_and_unpacked_both_accepted);
  TT_RUN(wire_value_out_of_precision_range_widens);
  TT_RUN(wire_unknown_fields_and_groups_skipped);
  TT_RUN(wire_singular_message_twice_is_merged);
  TT_RUN(wire_graph_level_nonsense_still_decodes);
  TT_RUN(int8_packed_fast_path_edges);
  TT_RUN(decoded_memory_within_2x_of_data);
  TT_RUN(malformed_binary_named_by_offset_and_path);
  TT_RUN(malformed_binary_nesting_deeper_than_limit);
  TT_RUN(malformed_binary_every_prefix_and_byte_flip);
  TT_RUN(text_syntax_variants);
  TT_RUN(malformed_text_named_by_line_and_column);
  TT_RUN(text_depth_limit_and_empty_input);
  TT_RUN(text_random_garbage_never_crashes);
  TT_RUN(encode_rejects_bad_structs);
  TT_RUN(files_by_extension_and_io_errors);
  return tt_finish();
}
