/* Benchmark of the Task IR checker and statistics on a long chain of CC
   layers (SI -> CC <- SW, SB -> SI -> ...). Figures measured in this run:
   - the checker's time as a multiple of one plain pass that reads every
     data value of the graph (the checker's value-range rule must read them
     all, so this is its floor);
   - the same for the statistics, which read no values (per block cost);
   - structure cost: a long chain with tiny tensors, in ns per block. */
#define _POSIX_C_SOURCE 199309L
#define TASKIR_IMPLEMENTATION
#include "taskir.h"
#include "bench_check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}


/* layers CC 3x3, H x H x C -> H x H x C, pad 1. */
static int build(ti_task_graph *g, int layers, int h, int c, int with_data) {
  int32_t *vals = (int32_t *)malloc((size_t)h * h * c * 9 * c * sizeof *vals + 64);
  int32_t d_act[3], d_w[4], d_b[1];
  int l, i, n = h * h * c > 9 * c * c ? h * h * c : 9 * c * c;
  ti_task_shape s;
  int32_t id = 0, prev;
  if (!vals) return 0;
  for (i = 0; i < n; i++) vals[i] = (i * 37) % 255 - 127;
  d_act[0] = h; d_act[1] = h; d_act[2] = c;
  d_w[0] = c; d_w[1] = c; d_w[2] = 3; d_w[3] = 3;
  d_b[0] = c;
  ti_task_graph_init(g, NULL);
  s = ti_task_shape_make(h, h, c, 0, 0, 0, 0, 0);
  ti_task_add_block(g, id, TI_BLOCK_SI, TI_DTYPE_I8, &s);
  if (with_data) BENCH_OK(ti_task_set_data(g, &g->blocks[g->n_blocks - 1], TI_DTYPE_I8, 3, d_act, vals));
  prev = id++;
  for (l = 0; l < layers; l++) {
    int32_t w = id++, b = id++, cc = id++, out = id++;
    ti_task_block *bl;
    s = ti_task_shape_make(0, 0, c, c, 3, 3, 0, 0);
    bl = ti_task_add_block(g, w, TI_BLOCK_SW, TI_DTYPE_I8, &s);
    if (with_data) BENCH_OK(ti_task_set_data(g, bl, TI_DTYPE_I8, 4, d_w, vals));
    s = ti_task_shape_make(0, 0, c, 0, 0, 0, 0, 0);
    bl = ti_task_add_block(g, b, TI_BLOCK_SB, TI_DTYPE_I32, &s);
    if (with_data) BENCH_OK(ti_task_set_data(g, bl, TI_DTYPE_I32, 1, d_b, vals));
    s = ti_task_shape_make(h, h, c, c, 3, 3, h, h);
    bl = ti_task_add_block(g, cc, TI_BLOCK_CC, TI_DTYPE_I32, &s);
    bl->bias_type = TI_BIAS_VECTOR; bl->has |= TI_BLOCK_HAS_BIAS_TYPE;
    BENCH_OK(ti_task_add_attr(g, bl, TI_TASK_ATTR_PAD_UP, 1)); BENCH_OK(ti_task_add_attr(g, bl, TI_TASK_ATTR_PAD_DOWN, 1));
    BENCH_OK(ti_task_add_attr(g, bl, TI_TASK_ATTR_PAD_LEFT, 1)); BENCH_OK(ti_task_add_attr(g, bl, TI_TASK_ATTR_PAD_RIGHT, 1));
    s = ti_task_shape_make(h, h, c, 0, 0, 0, 0, 0);
    ti_task_add_block(g, out, TI_BLOCK_SI, TI_DTYPE_I32, &s);
    /* blocks are 4 per layer after the first: index = id */
    ti_task_connect(g, &g->blocks[prev], 0, NULL, NULL, &g->blocks[cc], 0, NULL, NULL);
    ti_task_connect(g, &g->blocks[w], 0, NULL, NULL, &g->blocks[cc], 1, NULL, NULL);
    ti_task_connect(g, &g->blocks[b], 0, NULL, NULL, &g->blocks[cc], 2, NULL, NULL);
    ti_task_connect(g, &g->blocks[cc], 0, NULL, NULL, &g->blocks[out], 0, NULL, NULL);
    prev = out;
  }
  free(vals);
  return 1;
}

static volatile int64_t sink;

/* One pass reading every value of every block's data. */
static void read_all(const ti_task_graph *g) {
  int64_t acc = 0, k;
  int32_t i;
  for (i = 0; i < g->n_blocks; i++) {
    const ti_task_values *v = ti_task_tensor_values(&g->blocks[i].data);
    if (v) for (k = 0; k < v->count; k++) acc += ti_task_values_get_i64(v, k);
  }
  sink = acc;
}

static double best_of(int reps, int what, const ti_task_graph *g) {
  double best = 1e30;
  int r;
  for (r = 0; r < reps; r++) {
    double t = now();
    if (what == 0) read_all(g);
    else if (what == 1) {
      ti_diag_list l;
      ti_diag_list_init(&l, NULL);
      if (ti_task_check(g, &l, NULL) != TI_STATUS_SUCCESS) { printf("graph fails the checker\n"); exit(1); }
      ti_diag_list_free(&l);
    } else {
      ti_task_stats s;
      BENCH_OK(ti_task_statistics(g, &s, 1, NULL));
      sink = s.macs;
      ti_task_stats_free(&s, NULL);
    }
    t = now() - t;
    if (t < best) best = t;
  }
  return best;
}

int main(void) {
  ti_task_graph g;
  double t_read, t_check, t_stats;
  int layers = 2000;
  if (!build(&g, layers, 8, 32, 1)) return 1;
  t_read = best_of(5, 0, &g);
  t_check = best_of(5, 1, &g);
  t_stats = best_of(5, 2, &g);
  printf("chain of %d CC layers (8x8x32, 3x3 weights), %d blocks, %d edges, data read pass %.2f ms\n", layers,
         (int)g.n_blocks, (int)g.n_edges, t_read * 1e3);
  printf("  check      %.2f ms = %.2fx the data read pass\n", t_check * 1e3, t_check / t_read);
  printf("  statistics %.2f ms = %.3fx the data read pass\n", t_stats * 1e3, t_stats / t_read);
  ti_task_graph_free(&g);
  layers = 50000;
  if (!build(&g, layers, 2, 2, 1)) return 1;   /* tiny tensors: the structure dominates */
  t_read = best_of(3, 0, &g);
  t_check = best_of(3, 1, &g);
  t_stats = best_of(3, 2, &g);
  printf("structure: %d blocks of 2x2x2 data: check %.0f ns/block (%.1fx the read pass), "
         "statistics %.0f ns/block\n", (int)g.n_blocks, t_check * 1e9 / g.n_blocks, t_check / t_read,
         t_stats * 1e9 / g.n_blocks);
  ti_task_graph_free(&g);
  return 0;
}
