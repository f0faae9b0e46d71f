/* taskir_proto.h under a small depth limit and an allocator that fails on
   the Nth call: errors are clean and nothing leaks. */
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

/* Counts calls, live blocks and live bytes (peak too); fails call fail_at.
   Each block carries its size in a 16-byte header. */
typedef struct fail_alloc { long calls, fail_at, live; size_t bytes, peak; } fail_alloc;
static void fa_count(fail_alloc *a, size_t add, size_t sub) {
  a->bytes += add;
  a->bytes -= sub;
  if (a->bytes > a->peak) a->peak = a->bytes;
}
static void *fa_malloc(void *u, size_t sz) {
  fail_alloc *a = (fail_alloc *)u;
  unsigned char *p;
  if (a->calls++ == a->fail_at) return NULL;
  p = (unsigned char *)malloc(sz + 16);
  if (!p) return NULL;
  a->live++;
  memcpy(p, &sz, sizeof sz);
  fa_count(a, sz, 0);
  return p + 16;
}
static void *fa_realloc(void *u, void *old, size_t sz) {
  fail_alloc *a = (fail_alloc *)u;
  unsigned char *p, *base = old ? (unsigned char *)old - 16 : NULL;
  size_t was = 0;
  if (a->calls++ == a->fail_at) return NULL;
  if (base) memcpy(&was, base, sizeof was);
  p = (unsigned char *)realloc(base, sz + 16);
  if (!p) return NULL;
  if (!old) a->live++;
  memcpy(p, &sz, sizeof sz);
  fa_count(a, sz, was);
  return p + 16;
}
static void fa_free(void *u, void *p) {
  size_t was;
  if (!p) return;
  memcpy(&was, (unsigned char *)p - 16, sizeof was);
  ((fail_alloc *)u)->live--;
  fa_count((fail_alloc *)u, 0, was);
  free((unsigned char *)p - 16);
}
#define TASKIR_MALLOC(u, sz) fa_malloc((u), (sz))
#define TASKIR_REALLOC(u, p, sz) fa_realloc((u), (p), (sz))
#define TASKIR_FREE(u, p) fa_free((u), (p))
#define TASKIR_PROTO_MAX_DEPTH 3
#define TASKIR_MAX_EDGES 100000
#define TASKIR_IMPLEMENTATION
#include "taskir_proto.h"
#include "tt.h"

static const char *deep4 = "blocks { input_clusters { interfaces { position { nx: 1 } } } }";
static const char *deep3 = "blocks { input_clusters { interfaces { edge_id: 1 } } }";

TT_TEST(depth_limit_binary_and_text) {
  fail_alloc fa = { 0, -1, 0, 0, 0 };
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
  TT_EQ_INT(ti_task_parse_text(&g, deep3, strlen(deep3), &err), TI_STATUS_SUCCESS);
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
  fail_alloc ok = { 0, -1, 0, 0, 0 };
  long n, done_parse = 0, done_decode = 0, done_encode = 0, done_format = 0;
  ti_task_graph_init(&g, &ok);
  ti_error_clear(&err);
  TT_EQ_INT(ti_task_parse_text(&g, text, strlen(text), &err), TI_STATUS_SUCCESS);
  ti_buffer_init(&ref, &ok);
  ti_buffer_init(&txt, &ok);
  TT_EQ_INT(ti_task_encode(&g, &ref, &err), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_task_format_text(&g, &txt, &err), TI_STATUS_SUCCESS);
  for (n = 0; n < 100 && !(done_parse && done_decode && done_encode && done_format); n++) {
    fail_alloc fa = { 0, n, 0, 0, 0 };
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

/* 2 MB of empty blocks, binary and text: 248 bytes each would take 124x
   (binary) or 25x plus the growth of the array (text) the input, so the
   decoder refuses them with LIMIT naming the offset (line:column) and the
   count. 2 MB of empty edges (32 bytes each) would fit the budget; here
   TASKIR_MAX_EDGES is 100000, so edge 100000 is refused where it starts.
   Either way what the decoder held at any time stays within the decode
   budget (TASKIR_PROTO_MAX_AMPLIFICATION x input + TASKIR_PROTO_BUDGET_BASE),
   plus one arena chunk (64 MB at most) of slack for binary. */
static void empty_many(const char *unit, size_t unit_len, int text, const char *what) {
  size_t n = (2u << 20) / unit_len, i, len = n * unit_len;
  char *buf = (char *)malloc(len);
  fail_alloc fa = { 0, -1, 0, 0, 0 };
  size_t budget = (size_t)TASKIR_PROTO_MAX_AMPLIFICATION * len + TASKIR_PROTO_BUDGET_BASE;
  ti_task_graph g;
  ti_error err;
  ti_status st;
  TT_CHECK(buf != NULL);
  if (!buf) return;
  for (i = 0; i < n; i++) memcpy(buf + i * unit_len, unit, unit_len);
  ti_task_graph_init(&g, &fa);
  ti_error_clear(&err);
  st = text ? ti_task_parse_text(&g, buf, len, &err) : ti_task_decode(&g, buf, len, &err);
  TT_EQ_INT(st, TI_STATUS_LIMIT);
  TT_CHECK_MSG(strstr(err.message, what) != NULL, "%s", err.message);
  if (strstr(what, "TASKIR_MAX_EDGES")) {
    if (text) TT_CHECK_MSG(err.line == 100001 && err.column == 1, "%ld:%ld", (long)err.line, (long)err.column);
    else TT_CHECK_MSG(err.offset == 200000, "%ld", (long)err.offset);
  } else if (text) TT_CHECK_MSG(err.line >= 1 && err.column >= 1, "%ld:%ld", (long)err.line, (long)err.column);
  else TT_CHECK_MSG(err.offset >= 0 && (size_t)err.offset < len, "%ld", (long)err.offset);
  /* text grows its arrays in the heap and keeps no abandoned copies: within
     the budget itself; binary sizes its arrays first (one arena chunk of slack) */
  TT_CHECK_MSG(fa.peak <= budget + (text ? 0 : ((size_t)64 << 20)), "peak %lu bytes for %lu input bytes (budget %lu)",
               (unsigned long)fa.peak, (unsigned long)len, (unsigned long)budget);
  if (getenv("TT_VERBOSE")) printf("    %s, %s: peak %lu bytes for %lu input bytes\n", text ? "text" : "binary", what,
                                   (unsigned long)fa.peak, (unsigned long)len);
  ti_task_graph_free(&g);
  TT_EQ_INT(fa.live, 0);
  free(buf);
}

TT_TEST(empty_blocks_and_edges_are_bounded) {
  static const char blk_pb[] = { 0x0A, 0x00 }, edge_pb[] = { 0x12, 0x00 };
  char want[64];
  snprintf(want, sizeof want, "1048576 blocks need %lu bytes", (unsigned long)(1048576 * sizeof(ti_task_block)));
  empty_many(blk_pb, 2, 0, want);
  empty_many(edge_pb, 2, 0, "edge 100000 is one more than TASKIR_MAX_EDGES (100000)");
  empty_many("blocks {}\n", 10, 1, "blocks need");
  empty_many("edges {}\n", 9, 1, "edge 100000 is one more than TASKIR_MAX_EDGES (100000)");
}

/* Decoding N empty blocks costs per block what a block is, not what the
   growth of the array left behind: text peaks at 2 * sizeof(ti_task_block)
   per block (the heap array and its one copy into the arena) and keeps 1x;
   binary sizes the array first. */
TT_TEST(empty_blocks_cost_per_block) {
  static const int32_t ns[3] = {1000, 5000, 20000};
  const size_t slack = (size_t)128 << 10;   /* the first arena chunk and headers */
  int i, text;
  for (i = 0; i < 3; i++)
    for (text = 0; text < 2; text++) {
      size_t n = (size_t)ns[i], k, len = n * (text ? 10 : 2);
      char *buf = (char *)malloc(len);
      fail_alloc fa = { 0, -1, 0, 0, 0 };
      ti_task_graph g;
      ti_error err;
      if (!buf) return;
      for (k = 0; k < n; k++) {
        if (text) memcpy(buf + 10 * k, "blocks {}\n", 10);
        else { buf[2 * k] = 0x0A; buf[2 * k + 1] = 0; }
      }
      ti_task_graph_init(&g, &fa);
      TT_EQ_INT(text ? ti_task_parse_text(&g, buf, len, &err) : ti_task_decode(&g, buf, len, &err), TI_STATUS_SUCCESS);
      TT_EQ_INT(g.n_blocks, (int32_t)n);
      TT_CHECK_MSG(fa.peak <= (text ? 2 : 1) * n * sizeof(ti_task_block) + slack, "%s, %lu blocks: peak %lu bytes",
                   text ? "text" : "binary", (unsigned long)n, (unsigned long)fa.peak);
      TT_CHECK_MSG(fa.bytes <= n * sizeof(ti_task_block) + slack, "%s, %lu blocks: %lu bytes held",
                   text ? "text" : "binary", (unsigned long)n, (unsigned long)fa.bytes);
      ti_task_graph_free(&g);
      TT_EQ_INT(fa.live, 0);
      free(buf);
    }
}

int main(void) {
  TT_RUN(depth_limit_binary_and_text);
  TT_RUN(every_allocation_failure_is_clean);
  TT_RUN(empty_blocks_and_edges_are_bounded);
  TT_RUN(empty_blocks_cost_per_block);
  return tt_finish();
}
