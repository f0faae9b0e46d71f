/* taskir_proto.h against protobuf-c's generated decoder/encoder, on the
   largest fixture and a synthetic ~50 MB TaskGraph; built and run by
   bench/bench_proto_vs_protobufc.sh. Ratios > 1 mean taskir is faster. */
#define _POSIX_C_SOURCE 200809L
#define TASKIR_IMPLEMENTATION
#include "taskir_proto.h"
#include "proto_synth.h"
#include "tianjic_ir.pb-c.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void compare(const char *name, const unsigned char *buf, size_t len, int reps) {
  double t, ti_dec = 1e9, pc_dec = 1e9, ti_enc = 1e9, pc_enc = 1e9;
  ti_task_graph g;
  ti_error err;
  ti_buffer out;
  TianjicIr__TaskGraph *m = NULL;
  unsigned char *pbuf = (unsigned char *)malloc(len + 16);
  int r;
  ti_buffer_init(&out, NULL);
  for (r = 0; r < reps; r++) {
    ti_task_graph_init(&g, NULL);
    ti_error_clear(&err);
    t = now();
    if (ti_task_decode(&g, buf, len, &err) != TI_STATUS_SUCCESS) { printf("taskir decode failed: %s\n", err.message); exit(1); }
    t = now() - t;
    if (t < ti_dec) ti_dec = t;
    if (r < reps - 1) ti_task_graph_free(&g);
  }
  for (r = 0; r < reps; r++) {
    t = now();
    m = tianjic_ir__task_graph__unpack(NULL, len, buf);
    t = now() - t;
    if (!m) { printf("protobuf-c unpack failed\n"); exit(1); }
    if (t < pc_dec) pc_dec = t;
    if (r < reps - 1) tianjic_ir__task_graph__free_unpacked(m, NULL);
  }
  for (r = 0; r < reps; r++) {
    out.len = 0;
    t = now();
    ti_task_encode(&g, &out, &err);
    t = now() - t;
    if (t < ti_enc) ti_enc = t;
  }
  for (r = 0; r < reps; r++) {
    size_t n;
    t = now();
    n = tianjic_ir__task_graph__get_packed_size(m);   /* what a caller must do to size the buffer */
    if (n > len + 16) { printf("protobuf-c size %lu > %lu\n", (unsigned long)n, (unsigned long)len); exit(1); }
    n = tianjic_ir__task_graph__pack(m, pbuf);
    t = now() - t;
    if (t < pc_enc) pc_enc = t;
    if (n != len || memcmp(pbuf, buf, len) != 0) printf("  (protobuf-c output differs from the input)\n");
  }
  if (out.len != len || memcmp(out.data, buf, len) != 0) printf("  (taskir output differs from the input)\n");
  printf("%s (%.1f MB)\n", name, (double)len / 1e6);
  printf("  decode: taskir %7.0f MB/s, protobuf-c %7.0f MB/s: taskir %.2f x protobuf-c\n", len / ti_dec / 1e6,
         len / pc_dec / 1e6, pc_dec / ti_dec);
  printf("  encode: taskir %7.0f MB/s, protobuf-c %7.0f MB/s: taskir %.2f x protobuf-c\n", len / ti_enc / 1e6,
         len / pc_enc / 1e6, pc_enc / ti_enc);
  tianjic_ir__task_graph__free_unpacked(m, NULL);
  ti_task_graph_free(&g);
  ti_buffer_free(&out);
  free(pbuf);
}

int main(void) {
  const char *dir = getenv("TASKIR_FIXTURES");
  char path[1024];
  FILE *f;
  ti_task_graph g;
  ti_buffer big;
  ti_error err;
  if (!dir || !*dir) dir = "../shared/fixtures";
  snprintf(path, sizeof path, "%s/cc.task.pb", dir);
  if ((f = fopen(path, "rb")) != NULL) {
    unsigned char *d = (unsigned char *)malloc(1 << 24);
    size_t n = fread(d, 1, 1 << 24, f);
    fclose(f);
    compare("cc.task.pb", d, n, 200);
    free(d);
  } else
    printf("cc.task.pb not found in %s, skipped\n", dir);
  synth_resnet(&g, (size_t)50 << 20);
  ti_buffer_init(&big, NULL);
  ti_error_clear(&err);
  ti_task_encode(&g, &big, &err);
  ti_task_graph_free(&g);
  compare("synthetic resnet", big.data, big.len, 5);
  ti_buffer_free(&big);
  return 0;
}
