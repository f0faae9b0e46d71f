/* How planning and reading scale with the number of blocks.

   1. ti_exec_plan (checker included) on chains SI -> CVS -> SI -> ... ->
      OUTPUT of 10^3, 10^4 and 10^5 blocks: microseconds per block and the
      ratio largest / smallest size (flat = 1), as medians over rounds that
      plan the three sizes back to back (paired, so load hits all three).
   2. Memory per block and per edge of decoding and checking: the peak bytes
      held through TASKIR_MALLOC while decoding a message of N empty blocks
      (N empty edges) and while checking it, divided by N; then decoding
      10^4, 10^5 and 10^6 empty blocks, binary and text, per block. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* counting allocator: every byte taken through TASKIR_MALLOC/REALLOC/FREE */
typedef struct bp_hdr { size_t n; size_t pad; } bp_hdr;
static size_t bp_now, bp_peak;
static void *bp_malloc(size_t n) {
  bp_hdr *h = (bp_hdr *)malloc(sizeof *h + n);
  if (!h) return NULL;
  h->n = n; bp_now += n; if (bp_now > bp_peak) bp_peak = bp_now;
  return h + 1;
}
static void bp_free(void *p) {
  bp_hdr *h;
  if (!p) return;
  h = (bp_hdr *)p - 1;
  bp_now -= h->n;
  free(h);
}
static void *bp_realloc(void *p, size_t n) {
  bp_hdr *h, *nh;
  if (!p) return bp_malloc(n);
  h = (bp_hdr *)p - 1;
  nh = (bp_hdr *)realloc(h, sizeof *nh + n);
  if (!nh) return NULL;
  bp_now = bp_now - nh->n + n; nh->n = n;
  if (bp_now > bp_peak) bp_peak = bp_now;
  return nh + 1;
}
#define TASKIR_MALLOC(u, sz) ((void)(u), bp_malloc(sz))
#define TASKIR_REALLOC(u, p, sz) ((void)(u), bp_realloc(p, sz))
#define TASKIR_FREE(u, p) ((void)(u), bp_free(p))
/* The checker is measured on 10^6 empty blocks, which the decoder's default
   budget (32 bytes per input byte) refuses: 248 bytes each. */
#define TASKIR_PROTO_MAX_AMPLIFICATION 256
#define TASKIR_MAX_BLOCKS (1 << 21)
#define TASKIR_IMPLEMENTATION
#include "taskir_proto.h"
#include "taskir_exec.h"
#include "bench_check.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static ti_task_shape shp16(void) {
  ti_task_shape s;
  memset(&s, 0, sizeof s);
  ti_task_shape_set(&s, TI_SHAPE_HAS_NY, 1);
  ti_task_shape_set(&s, TI_SHAPE_HAS_NX, 1);
  ti_task_shape_set(&s, TI_SHAPE_HAS_NF, 16);
  return s;
}

/* SI(data) -> (CVS -> SI) * k -> OUTPUT: about n blocks. */
static int build_chain(ti_task_graph *g, int32_t n) {
  ti_task_shape s = shp16();
  int32_t dims[3] = {1, 1, 16}, v[16], id, k;
  ti_task_block **b = (ti_task_block **)malloc((size_t)n * sizeof *b);
  for (k = 0; k < 16; k++) v[k] = k - 8;
  ti_task_graph_init(g, NULL);
  if (!b) return 0;
  /* blocks first (the block array may move while it grows), then edges */
  for (id = 0; id + 1 < n; id++) {
    ti_block_type t = id == 0 || id % 2 == 0 ? TI_BLOCK_SI : TI_BLOCK_CVS;
    if (!ti_task_add_block(g, id, t, TI_DTYPE_I32, &s)) return 0;
  }
  if (!ti_task_add_block(g, id, TI_BLOCK_OUTPUT, TI_DTYPE_I32, &s)) return 0;
  for (k = 0; k <= id; k++) b[k] = &g->blocks[k];
  if (ti_task_set_data(g, b[0], TI_DTYPE_I32, 3, dims, v)) return 0;
  for (k = 1; k < id; k += 2)
    if (ti_task_add_attr(g, b[k], TI_TASK_ATTR_CONSTANT_A, 1)) return 0;
  if (id % 2 == 0) b[id - 1]->type = TI_BLOCK_SI;   /* keep S -> C -> S: the OUTPUT follows a storage block */
  for (k = 0; k < id; k++)
    if (!ti_task_connect(g, b[k], 0, NULL, NULL, b[k + 1], 0, NULL, NULL)) return 0;
  free(b);
  return 1;
}

/* Seconds per block of one ti_exec_plan of g (the mean over reps plans). */
static double plan_per_block(const ti_task_graph *g, int reps, ti_exec_info *info) {
  double t0 = now(), t;
  int r;
  for (r = 0; r < reps; r++) {
    ti_exec *x = NULL;
    ti_error err;
    ti_error_clear(&err);
    if (ti_exec_plan(g, NULL, &x, &err)) { fprintf(stderr, "plan: %s\n", err.message); exit(1); }
    if (r == 0) ti_exec_get_info(x, info);
    ti_exec_free(x);
  }
  t = now() - t0;
  return t / reps / g->n_blocks;
}

int main(void) {
  enum { ROUNDS = 9 };
  static const int32_t sizes[3] = {1000, 10000, 100000};
  static const int reps[3] = {30, 3, 1};
  double per[3][ROUNDS], ratio[2][ROUNDS];
  ti_task_graph g[3];
  ti_exec_info info[3];
  int i, k;
  printf("plan time per block: ti_exec_plan (the checker, planning, and the one run a plan makes\n"
         "before it is handed out) on chains SI -> CVS -> SI ... -> OUTPUT. In each of %d rounds the\n"
         "three sizes are planned back to back (10^3: mean of %d plans, 10^4: of %d, 10^5: one), so a\n"
         "round's ratios share the machine's load; medians over the rounds.\n", ROUNDS, reps[0], reps[1]);
  for (i = 0; i < 3; i++)
    if (!build_chain(&g[i], sizes[i])) { fprintf(stderr, "cannot build the chain\n"); return 1; }
  for (i = 0; i < 3; i++) (void)plan_per_block(&g[i], 1, &info[i]);   /* warm-up */
  for (k = 0; k < ROUNDS; k++) {
    for (i = 0; i < 3; i++) per[i][k] = plan_per_block(&g[i], reps[i], &info[i]);
    ratio[0][k] = per[1][k] / per[0][k];
    ratio[1][k] = per[2][k] / per[0][k];
  }
  for (i = 0; i < 3; i++) {
    qsort(per[i], ROUNDS, sizeof(double), cmp_d);
    printf("  %6d blocks: %6.3f us per block (median; min %6.3f, max %6.3f), arena %lld bytes of %lld without reuse\n",
           (int)g[i].n_blocks, per[i][ROUNDS / 2] * 1e6, per[i][0] * 1e6, per[i][ROUNDS - 1] * 1e6,
           (long long)info[i].arena_bytes, (long long)info[i].buffer_bytes);
  }
  qsort(ratio[0], ROUNDS, sizeof(double), cmp_d);
  qsort(ratio[1], ROUNDS, sizeof(double), cmp_d);
  printf("  ratio per block 10^4 / 10^3: %.2f, 10^5 / 10^3: %.2f (medians of the rounds' ratios; target <= 2)\n",
         ratio[0][ROUNDS / 2], ratio[1][ROUNDS / 2]);
  for (i = 0; i < 3; i++) ti_task_graph_free(&g[i]);

  printf("memory of decode and check (peak bytes through TASKIR_MALLOC / count)\n");
  for (i = 0; i < 2; i++) {
    int32_t n = 1000000, k;
    size_t len = (size_t)n * 2;
    unsigned char *msg = (unsigned char *)malloc(len);
    ti_task_graph g;
    ti_error err;
    ti_status s;
    size_t dec, chk;
    if (!msg) return 1;
    for (k = 0; k < n; k++) { msg[2 * k] = i ? 0x12 : 0x0a; msg[2 * k + 1] = 0; }   /* blocks {} or edges {} */
    ti_task_graph_init(&g, NULL);
    ti_error_clear(&err);
    bp_now = bp_peak = 0;
    s = ti_task_decode(&g, msg, len, &err);
    dec = bp_peak;
    if (s) printf("  %d empty %s (%zu bytes): decode refuses: %s\n", (int)n, i ? "edges" : "blocks", len, err.message);
    else {
      ti_diag_list dl;
      size_t base = bp_now;
      ti_diag_list_init(&dl, NULL);
      bp_peak = bp_now;
      s = ti_task_check(&g, &dl, NULL);   /* empty blocks: INVALID, with the problems listed */
      if (s != TI_STATUS_SUCCESS && s != TI_STATUS_INVALID) {
        fprintf(stderr, "ti_task_check failed (status %d)\n", (int)s);
        return 1;
      }
      chk = bp_peak - base;
      printf("  %d empty %s (%zu bytes): decode %.1f bytes each, check %.1f bytes each (%d problems listed)\n", (int)n,
             i ? "edges" : "blocks", len, (double)dec / n, (double)chk / n, (int)dl.n);
      ti_diag_list_free(&dl);
    }
    ti_task_graph_free(&g);
    free(msg);
  }
  printf("memory of decoding N empty blocks (peak bytes through TASKIR_MALLOC / N; sizeof(ti_task_block) = %d)\n",
         (int)sizeof(ti_task_block));
  for (i = 0; i < 3; i++) {
    static const int32_t ns[3] = {10000, 100000, 1000000};
    int32_t n = ns[i], k;
    unsigned char *msg = (unsigned char *)malloc((size_t)n * 10);
    size_t tdec, bdec;
    ti_task_graph g;
    ti_error err;
    if (!msg) return 1;
    for (k = 0; k < n; k++) { msg[2 * k] = 0x0a; msg[2 * k + 1] = 0; }   /* binary: blocks {} */
    ti_task_graph_init(&g, NULL);
    bp_now = bp_peak = 0;
    if (ti_task_decode(&g, msg, (size_t)n * 2, &err)) { fprintf(stderr, "decode: %s\n", err.message); return 1; }
    bdec = bp_peak;
    ti_task_graph_free(&g);
    for (k = 0; k < n; k++) memcpy(msg + 10 * (size_t)k, "blocks {}\n", 10);
    ti_task_graph_init(&g, NULL);
    bp_now = bp_peak = 0;
    if (ti_task_parse_text(&g, (const char *)msg, (size_t)n * 10, &err)) { fprintf(stderr, "text: %s\n", err.message); return 1; }
    tdec = bp_peak;
    ti_task_graph_free(&g);
    printf("  %7d blocks: binary %.1f bytes per block, text %.1f bytes per block\n", (int)n, (double)bdec / n, (double)tdec / n);
    free(msg);
  }

  return 0;
}
