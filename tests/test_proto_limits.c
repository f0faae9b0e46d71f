/* taskir_proto.h under a small depth limit and an allocator that fails on
   the Nth call: errors are clean and nothing leaks. */
#include <stdlib.h>
#include <stddef.h>

typedef struct fail_alloc { long calls, fail_at, live; } fail_alloc;
static void *fa_malloc(void *u, size_t sz) {
  fail_alloc *a = (fail_alloc *)u;
  void *p;
  if (a->calls++ == a->fail_at) return NULL;
  p = malloc(sz);
  if (p) a->live++;
  return p;
}
static void *fa_realloc(void *u, void *old, size_t sz) {
  fail_alloc *a = (fail_alloc *)u;
  void *p;
  if (a->calls++ == a->fail_at) return NULL;
  p = realloc(old, sz);
  if (p && !old) a->live++;
  return p;
}
static void fa_free(void *u, void *p) {
  if (p) ((fail_alloc *)u)->live--;
  free(p);
}
#define TASKIR_MALLOC(u, sz) fa_malloc((u), (sz))
#define TASKIR_REALLOC(u, p, sz) fa_realloc((u), (p), (sz))
#define TASKIR_FREE(u, p) fa_free((u), (p))
#define TASKIR_PROTO_MAX_DEPTH 3
#define TASKIR_IMPLEMENTATION
#include "taskir_proto.h"
#include "tt.h"

static const char *deep4 = "blocks { input_clusters { interfaces { position { nx: 1 } } } }";
static const char *deep3 = "blocks { input_clusters { interfaces { edge_id: 1 } } }";

TT_TEST(depth_limit_binary_and_text) {
  fail_alloc fa = { 0, -1, 0 };
  ti_task_graph g;
  ti_error err;
  ti_buffer b;
  /* text at depth 4 fails, depth 3 is fine */
  ti_task_graph_init(&g, &fa);
  ti_error_clear(&err);
  TT_EQ_INT(ti_task_parse_text(&g, deep4, strlen(deep4), &err), TI_STATUS_LIMIT);
  TT_EQ_INT(err.line, 1);
  TT_EQ_INT(err.column, 49);
  TT_CHECK(strstr(err.message, "TASKIR_PROTO_MAX_DEPTH (3)") != NULL);
  ti_task_graph_free(&g);
  ti_task_graph_init(&g, &fa);
  ti_error_clear(&err);
  TT_EQ_INT(ti_task_parse_text(&g, deep3, strlen(deep3), &err), TI_STATUS_SUCCESS);
  ti_task_graph_free(&g);
  /* binary: build the depth-4 message by hand (the encoder has no limit) */
  {
    static const uint8_t msg[] = { 0x0A, 0x0A, 0x2A, 0x08, 0x12, 0x06, 0x0A, 0x04, 0x08, 0x01, 0x10, 0x02 };
    ti_task_graph_init(&g, &fa);
    ti_error_clear(&err);
    TT_EQ_INT(ti_task_decode(&g, msg, sizeof msg, &err), TI_STATUS_LIMIT);
    TT_EQ_INT(err.offset, 8);
    TT_CHECK_MSG(strstr(err.message, "blocks[0].input_clusters[0].interfaces[0]") != NULL, "%s", err.message);
    ti_task_graph_free(&g);
  }
  /* depth 3 in binary: through our own encoder */
  ti_task_graph_init(&g, &fa);
  ti_error_clear(&err);
  ti_task_parse_text(&g, deep3, strlen(deep3), &err);
  ti_buffer_init(&b, &fa);
  TT_EQ_INT(ti_task_encode(&g, &b, &err), TI_STATUS_SUCCESS);
  ti_task_graph_free(&g);
  ti_task_graph_init(&g, &fa);
  TT_EQ_INT(ti_task_decode(&g, b.data, b.len, &err), TI_STATUS_SUCCESS);
  TT_EQ_INT(g.blocks[0].inputs[0].interfaces[0].edge_id, 1);
  ti_task_graph_free(&g);
  ti_buffer_free(&b);
  TT_EQ_INT(fa.live, 0);
}

TT_TEST(every_allocation_failure_is_clean) {
  const char *text =
    "blocks { id: 1 type: SW precision: INT_8 shape { nf: 2 nr: 3 extra_dimensions: 4 }\n"
    "  data { dims: [2, 3] precision: INT_8 int32_data: [1, -2, 3, -4, 5, 6] name: \"w\" } }\n"
    "blocks { id: 2 type: CC attributes { type: KERNEL_X int_value: 3 } output_clusters { interfaces { edge_id: 0 } } }\n"
    "edges { id: 0 src_block_id: 1 dst_block_id: 2 rearrange_info { type: RESHAPE matrix { int32_data: [2, 1, 0] } } }\n"
    "groups { group_id: 0 block_ids: [1, 2] } test_config { test_case_name: \"t\" }\n";
  ti_buffer ref, txt;
  ti_task_graph g;
  ti_error err;
  fail_alloc ok = { 0, -1, 0 };
  long n, done_parse = 0, done_decode = 0, done_encode = 0, done_format = 0;
  ti_task_graph_init(&g, &ok);
  ti_error_clear(&err);
  TT_EQ_INT(ti_task_parse_text(&g, text, strlen(text), &err), TI_STATUS_SUCCESS);
  ti_buffer_init(&ref, &ok);
  ti_buffer_init(&txt, &ok);
  TT_EQ_INT(ti_task_encode(&g, &ref, &err), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_task_format_text(&g, &txt, &err), TI_STATUS_SUCCESS);
  for (n = 0; n < 100 && !(done_parse && done_decode && done_encode && done_format); n++) {
    fail_alloc fa = { 0, n, 0 };
    ti_task_graph h;
    ti_buffer b;
    ti_status st;
    /* parse */
    ti_task_graph_init(&h, &fa);
    ti_error_clear(&err);
    st = ti_task_parse_text(&h, text, strlen(text), &err);
    TT_CHECK(st == TI_STATUS_SUCCESS || (st == TI_STATUS_NO_MEMORY && strstr(err.message, "out of memory")));
    if (st == TI_STATUS_SUCCESS) done_parse = 1;
    ti_task_graph_free(&h);
    TT_EQ_INT(fa.live, 0);
    /* decode */
    fa.calls = 0;
    ti_task_graph_init(&h, &fa);
    ti_error_clear(&err);
    st = ti_task_decode(&h, ref.data, ref.len, &err);
    TT_CHECK(st == TI_STATUS_SUCCESS || (st == TI_STATUS_NO_MEMORY && err.offset >= 0));
    if (st == TI_STATUS_SUCCESS) done_decode = 1;
    ti_task_graph_free(&h);
    TT_EQ_INT(fa.live, 0);
    /* encode and format into buffers that may fail to grow */
    fa.calls = 0;
    ti_buffer_init(&b, &fa);
    ti_error_clear(&err);
    st = ti_task_encode(&g, &b, &err);
    TT_CHECK(st == TI_STATUS_SUCCESS ? b.len == ref.len && memcmp(b.data, ref.data, b.len) == 0 : st == TI_STATUS_NO_MEMORY);
    if (st == TI_STATUS_SUCCESS) done_encode = 1;
    ti_buffer_free(&b);
    fa.calls = 0;
    ti_buffer_init(&b, &fa);
    ti_error_clear(&err);
    st = ti_task_format_text(&g, &b, &err);
    TT_CHECK(st == TI_STATUS_SUCCESS ? b.len == txt.len : st == TI_STATUS_NO_MEMORY);
    if (st == TI_STATUS_SUCCESS) done_format = 1;
    ti_buffer_free(&b);
    TT_EQ_INT(fa.live, 0);
  }
  TT_CHECK(done_parse && done_decode && done_encode && done_format);
  TT_CHECK(n > 2);
  ti_buffer_free(&ref);
  ti_buffer_free(&txt);
  ti_task_graph_free(&g);
  TT_EQ_INT(ok.live, 0);
}

int main(void) {
  TT_RUN(depth_limit_binary_and_text);
  TT_RUN(every_allocation_failure_is_clean);
  return tt_finish();
}
