/* Throughput of taskir_proto.h: binary decode and encode (and text both
   ways) on the largest fixture and on a synthetic ~50 MB TaskGraph, each as a
   ratio to memcpy of the same bytes in the same run; memory of a decoded graph
   against the bytes of its data. When protoc-c and libprotobuf-c are
   installed it then runs bench/bench_proto_vs_protobufc.sh (skip with
   TASKIR_BENCH_NO_PBC=1), which compares with protobuf-c's generated code. */
#define _POSIX_C_SOURCE 200809L
#define TASKIR_IMPLEMENTATION
#include "taskir_proto.h"
#include "bench_check.h"
#include "proto_synth.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static unsigned char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  unsigned char *d = NULL;
  size_t cap = 0, n = 0;
  if (!f) return NULL;
  for (;;) {
    size_t got;
    if (n == cap) d = (unsigned char *)realloc(d, cap = cap ? cap * 2 : 65536);
    got = fread(d + n, 1, cap - n, f);
    if (!got) break;
    n += got;
  }
  fclose(f);
  *len = n;
  return d;
}

static volatile unsigned char sink;

/* Best-of-reps seconds for each operation on buf[len]. */
static void bench_one(const char *name, const unsigned char *buf, size_t len, int reps) {
  double t, best_copy = 1e9, best_dec = 1e9, best_enc = 1e9, best_fmt = 1e9, best_parse = 1e9;
  unsigned char *dst = (unsigned char *)malloc(len);
  ti_task_graph g;
  ti_error err;
  ti_buffer out, txt;
  size_t data_bytes, arena_bytes;
  int r;
  memset(dst, 1, len);
  ti_buffer_init(&out, NULL);
  ti_buffer_init(&txt, NULL);
  for (r = 0; r < reps; r++) {
    t = now();
    memcpy(dst, buf, len);
    t = now() - t;
    sink = dst[len / 2];
    if (t < best_copy) best_copy = t;
  }
  for (r = 0; r < reps; r++) {
    ti_task_graph_init(&g, NULL);
    ti_error_clear(&err);
    t = now();
    if (ti_task_decode(&g, buf, len, &err) != TI_STATUS_SUCCESS) { printf("decode failed: %s\n", err.message); exit(1); }
    t = now() - t;
    if (t < best_dec) best_dec = t;
    if (r < reps - 1) ti_task_graph_free(&g);
  }
  data_bytes = synth_data_bytes(&g);
  arena_bytes = g.arena.total;
  for (r = 0; r < reps; r++) {
    out.len = 0;
    t = now();
    BENCH_OK(ti_task_encode(&g, &out, &err));
    t = now() - t;
    if (t < best_enc) best_enc = t;
  }
  if (out.len != len || memcmp(out.data, buf, len) != 0) { printf("re-encoding differs\n"); exit(1); }
  {
    int treps = len > 4000000 ? 1 : reps;
    for (r = 0; r < treps; r++) {
      txt.len = 0;
      t = now();
      BENCH_OK(ti_task_format_text(&g, &txt, &err));
      t = now() - t;
      if (t < best_fmt) best_fmt = t;
    }
    for (r = 0; r < treps; r++) {
      ti_task_graph g2;
      ti_task_graph_init(&g2, NULL);
      t = now();
      BENCH_OK(ti_task_parse_text(&g2, (const char *)txt.data, txt.len, &err));
      t = now() - t;
      if (t < best_parse) best_parse = t;
      ti_task_graph_free(&g2);
    }
  }
  printf("%s: %.1f MB binary, %.1f MB text\n", name, (double)len / 1e6, (double)txt.len / 1e6);
  printf("  memcpy          %8.0f MB/s\n", (double)len / best_copy / 1e6);
  printf("  binary decode   %8.0f MB/s   %.3f x memcpy\n", (double)len / best_dec / 1e6, best_copy / best_dec);
  printf("  binary encode   %8.0f MB/s   %.3f x memcpy\n", (double)len / best_enc / 1e6, best_copy / best_enc);
  printf("  text format     %8.0f MB/s of text\n", (double)txt.len / best_fmt / 1e6);
  printf("  text parse      %8.0f MB/s of text\n", (double)txt.len / best_parse / 1e6);
  printf("  decoded graph   %8.2f MB arena for %.2f MB of tensor data at natural width: %.2f x (file %.2f x)\n",
         (double)arena_bytes / 1e6, (double)data_bytes / 1e6, (double)arena_bytes / (double)data_bytes,
         (double)len / (double)data_bytes);
  ti_task_graph_free(&g);
  ti_buffer_free(&out);
  ti_buffer_free(&txt);
  free(dst);
}

/* Decoded bytes (arena bytes / count) per empty block and per empty edge,
   binary (0A 00, 12 00) and text ("blocks {}", "edges {}"), at a count the
   decode budget admits; then what 2 MB of each does. */
static void bench_empty(void) {
  static const char *names[2] = { "blocks", "edges" };
  int kind, text;
  printf("decoded memory of empty messages (arena bytes / count)\n");
  for (kind = 0; kind < 2; kind++)
    for (text = 0; text < 2; text++) {
      const char *unit = text ? (kind ? "edges {}\n" : "blocks {}\n") : (kind ? "\x12" : "\x0a");
      size_t ul = text ? strlen(unit) : 2, sizes[2], i, j;
      int s;
      sizes[0] = 50000;
      sizes[1] = ((size_t)2 << 20) / ul;
      for (s = 0; s < 2; s++) {
        size_t n = sizes[s], len = n * ul;
        char *buf = (char *)malloc(len);
        ti_task_graph g;
        ti_error err;
        ti_status st;
        if (!buf) exit(1);
        for (i = 0; i < n; i++)
          for (j = 0; j < ul; j++) buf[i * ul + j] = text ? unit[j] : (char)(j ? 0 : unit[0]);
        ti_task_graph_init(&g, NULL);
        ti_error_clear(&err);
        st = text ? ti_task_parse_text(&g, buf, len, &err) : ti_task_decode(&g, buf, len, &err);
        if (st == TI_STATUS_SUCCESS)
          printf("  %-6s %7lu empty %-6s (%8lu bytes): %6.1f bytes each (%.1f x input)\n", text ? "text" : "binary",
                 (unsigned long)n, names[kind], (unsigned long)len, (double)g.arena.total / (double)n,
                 (double)g.arena.total / (double)len);
        else
          printf("  %-6s %7lu empty %-6s (%8lu bytes): refused after %lu arena bytes: %s\n", text ? "text" : "binary",
                 (unsigned long)n, names[kind], (unsigned long)len, (unsigned long)g.arena.total, err.message);
        ti_task_graph_free(&g);
        free(buf);
      }
    }
}

int main(void) {
  const char *dir = getenv("TASKIR_FIXTURES");
  char path[1024];
  size_t n = 0;
  unsigned char *cc;
  ti_task_graph g;
  ti_buffer big;
  ti_error err;
  if (!dir || !*dir) dir = "../shared/fixtures";
  snprintf(path, sizeof path, "%s/cc.task.pb", dir);
  cc = slurp(path, &n);
  if (cc) bench_one("cc.task.pb", cc, n, 200);
  else printf("cc.task.pb: not found in %s (set TASKIR_FIXTURES), skipped\n", dir);
  free(cc);
  synth_resnet(&g, (size_t)50 << 20);
  ti_buffer_init(&big, NULL);
  ti_error_clear(&err);
  if (ti_task_encode(&g, &big, &err) != TI_STATUS_SUCCESS) { printf("encode failed: %s\n", err.message); return 1; }
  ti_task_graph_free(&g);
  bench_one("synthetic resnet (int8 weights, int32 biases)", big.data, big.len, 5);
  ti_buffer_free(&big);
  bench_empty();
  {
    const char *skip = getenv("TASKIR_BENCH_NO_PBC");
    if (!(skip && *skip == '1') && system("command -v protoc-c >/dev/null 2>&1 && test -f /usr/include/protobuf-c/protobuf-c.h") == 0) {
      fflush(stdout);
      if (system("bench/bench_proto_vs_protobufc.sh") != 0) printf("protobuf-c comparison failed\n");
    } else
      printf("protobuf-c comparison skipped (needs protoc-c and libprotobuf-c-dev)\n");
  }
  return 0;
}
