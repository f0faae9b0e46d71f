/* Executor benchmark: per fixture, a synthetic ResNet-like graph and a
   LeNet-sized int8 graph -- decode + plan time, run time per inference
   (median), the share of a run spent inside kernels, and plan memory against
   the sum of all block sizes. Ratios are measured in this run; the Python
   engine's 1.8 ms per LeNet inference is the reference figure the task was
   given, not a measurement made here. Then the executor's fixed cost (an
   empty run, and per block in chains of trivial blocks), and LeNet-5 and
   the ResNet-like graph side by side with onnxruntime (bench/ort_twin.h,
   bench/ort_peer.js; $TASKIR_ORT_DIR holds node_modules/onnxruntime-node,
   `make bench` installs it there, else a skip says what is missing). */
#define _POSIX_C_SOURCE 200809L
#define TASKIR_IMPLEMENTATION
#include "taskir_proto.h"
#include "taskir_exec.h"
#include "bench_check.h"
#include "tools/taskir_pool.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ort_twin.h"
#include "bench_ceiling.h"

static double now(void *u) {
  struct timespec ts;
  (void)u;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static const char *fixtures(void) {
  const char *p = getenv("TASKIR_FIXTURES");
  return p && *p ? p : "../shared/fixtures";
}

/* --- graph builders -------------------------------------------------------- */

static ti_task_block *B(ti_task_graph *g, int32_t id) { return (ti_task_block *)ti_task_find_block(g, id); }
static int32_t next_id;
static uint32_t seed = 1;
static int32_t rnd(int32_t lo, int32_t hi) { seed = seed * 1664525u + 1013904223u; return lo + (int32_t)((seed >> 8) % (uint32_t)(hi - lo + 1)); }
static int32_t add(ti_task_graph *g, ti_block_type t, ti_dtype p, ti_task_shape s) {
  int32_t id = next_id++;
  if (!ti_task_add_block(g, id, t, p, &s)) { fprintf(stderr, "out of memory\n"); exit(1); }
  return id;
}
static void link(ti_task_graph *g, int32_t a, int32_t b, int32_t cl) {
  if (!ti_task_connect(g, B(g, a), 0, NULL, NULL, B(g, b), cl, NULL, NULL)) { fprintf(stderr, "out of memory\n"); exit(1); }
}
static int32_t rand_data(ti_task_graph *g, ti_block_type t, ti_dtype p, ti_task_shape s, int32_t nd, const int32_t *dims,
                         int32_t lo, int32_t hi) {
  int32_t id = add(g, t, p, s), k, n = 1, *v;
  for (k = 0; k < nd; k++) n *= dims[k];
  v = (int32_t *)malloc((size_t)n * sizeof *v);
  for (k = 0; k < n; k++) v[k] = rnd(lo, hi);
  BENCH_OK(ti_task_set_data(g, B(g, id), p, nd, dims, v));
  free(v);
  return id;
}

/* conv (int8 in, int8 weights, int32 bias) -> SI int32; returns the SI */
static int32_t conv(ti_task_graph *g, int32_t in, int32_t h, int32_t w, int32_t c, int32_t f, int32_t k, int32_t pad,
                    int32_t *oh, int32_t *ow) {
  int32_t wd[4], bd[1], sw, sb, cc, si;
  ti_task_shape s;
  wd[0] = f; wd[1] = c; wd[2] = k; wd[3] = k; bd[0] = f;
  *oh = h + 2 * pad - k + 1; *ow = w + 2 * pad - k + 1;
  sw = rand_data(g, TI_BLOCK_SW, TI_DTYPE_I8, ti_task_shape_make(0, 0, f, c, k, k, 0, 0), 4, wd, -20, 20);
  sb = rand_data(g, TI_BLOCK_SB, TI_DTYPE_I32, ti_task_shape_make(0, 0, f, 0, 0, 0, 0, 0), 1, bd, -500, 500);
  s = ti_task_shape_make(*oh, *ow, f, c, k, k, 0, 0);
  ti_task_shape_set(&s, TI_SHAPE_HAS_NIY, h); ti_task_shape_set(&s, TI_SHAPE_HAS_NIX, w);
  cc = add(g, TI_BLOCK_CC, TI_DTYPE_I32, s);
  BENCH_OK(ti_task_add_attr(g, B(g, cc), TI_TASK_ATTR_PAD_UP, pad)); BENCH_OK(ti_task_add_attr(g, B(g, cc), TI_TASK_ATTR_PAD_DOWN, pad));
  BENCH_OK(ti_task_add_attr(g, B(g, cc), TI_TASK_ATTR_PAD_LEFT, pad)); BENCH_OK(ti_task_add_attr(g, B(g, cc), TI_TASK_ATTR_PAD_RIGHT, pad));
  si = add(g, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(*oh, *ow, f, 0, 0, 0, 0, 0));
  link(g, in, cc, 0); link(g, sw, cc, 1); link(g, sb, cc, 2); link(g, cc, si, 0);
  return si;
}

/* CCMPB window (1 = requantise, 2 = 2x2 max pool) -> int8 storage */
static int32_t ccmpb(ti_task_graph *g, int32_t in, int32_t h, int32_t w, int32_t c, int32_t win, int32_t shift, ti_block_type st) {
  ti_task_shape s = ti_task_shape_make(h / win, w / win, c, 0, win, win, 0, 0);
  int32_t b, si;
  ti_task_shape_set(&s, TI_SHAPE_HAS_NIY, h); ti_task_shape_set(&s, TI_SHAPE_HAS_NIX, w);
  b = add(g, TI_BLOCK_CCMPB, TI_DTYPE_I8, s);
  BENCH_OK(ti_task_add_attr(g, B(g, b), TI_TASK_ATTR_STRIDE_X, win)); BENCH_OK(ti_task_add_attr(g, B(g, b), TI_TASK_ATTR_STRIDE_Y, win));
  BENCH_OK(ti_task_add_attr(g, B(g, b), TI_TASK_ATTR_CMP, 0)); BENCH_OK(ti_task_add_attr(g, B(g, b), TI_TASK_ATTR_BIT_SHIFT_NUM, shift));
  si = add(g, st, TI_DTYPE_I8, st == TI_BLOCK_SIC ? ti_task_shape_make(h / win, w / win, 0, c, 0, 0, 0, 0) : ti_task_shape_make(h / win, w / win, c, 0, 0, 0, 0, 0));
  link(g, in, b, 0); link(g, b, si, 0);
  return si;
}

static int32_t fc(ti_task_graph *g, int32_t in, int32_t nr, int32_t nf, int req) {
  int32_t wd[2], bd[1], sw, sb, m, si;
  wd[0] = nf; wd[1] = nr; bd[0] = nf;
  sw = rand_data(g, TI_BLOCK_SWFC, TI_DTYPE_I8, ti_task_shape_make(0, 0, nf, nr, 0, 0, 0, 0), 2, wd, -30, 30);
  sb = rand_data(g, TI_BLOCK_SB, TI_DTYPE_I32, ti_task_shape_make(0, 0, nf, 0, 0, 0, 0, 0), 1, bd, -500, 500);
  m = add(g, TI_BLOCK_CVM, TI_DTYPE_I32, ti_task_shape_make(0, 0, nf, nr, 0, 0, 0, 0));
  si = add(g, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(0, 0, nf, 0, 0, 0, 0, 0));
  link(g, in, m, 0); link(g, sw, m, 1); link(g, sb, m, 2); link(g, m, si, 0);
  if (req) {
    int32_t q = add(g, TI_BLOCK_CCMPB, TI_DTYPE_I8, ti_task_shape_make(0, 0, nf, 0, 0, 0, 0, 0)), o;
    BENCH_OK(ti_task_add_attr(g, B(g, q), TI_TASK_ATTR_CMP, 0)); BENCH_OK(ti_task_add_attr(g, B(g, q), TI_TASK_ATTR_BIT_SHIFT_NUM, 8));
    o = add(g, TI_BLOCK_SIFC, TI_DTYPE_I8, ti_task_shape_make(0, 0, 0, nf, 0, 0, 0, 0));
    link(g, si, q, 0); link(g, q, o, 0);
    si = o;
  }
  return si;
}

/* LeNet-5 on 28x28x1 int8: conv 5x5 pad 2 (6) -> requant -> pool -> conv 5x5
   (16) -> requant -> pool -> RESHAPE -> FC 400-120-84-10. */
static void build_lenet(ti_task_graph *g) {
  int32_t in, si, h, w, p, cvm, rd[1] = {3}, order[3] = {2, 1, 0}, out;
  ti_task_edge *e;
  next_id = 0;
  ti_task_graph_init(g, NULL);
  in = add(g, TI_BLOCK_INPUT, TI_DTYPE_I8, ti_task_shape_make(28, 28, 1, 0, 0, 0, 0, 0));
  si = add(g, TI_BLOCK_SIC, TI_DTYPE_I8, ti_task_shape_make(28, 28, 0, 1, 0, 0, 0, 0));
  link(g, in, si, 0);
  si = conv(g, si, 28, 28, 1, 6, 5, 2, &h, &w);
  si = ccmpb(g, si, h, w, 6, 1, 6, TI_BLOCK_SI);
  si = ccmpb(g, si, h, w, 6, 2, 0, TI_BLOCK_SIC);
  si = conv(g, si, 14, 14, 6, 16, 5, 0, &h, &w);
  si = ccmpb(g, si, h, w, 16, 1, 7, TI_BLOCK_SI);
  {   /* pool, then flatten into the FC input */
    ti_task_shape s = ti_task_shape_make(5, 5, 16, 0, 2, 2, 0, 0);
    ti_task_shape_set(&s, TI_SHAPE_HAS_NIY, 10); ti_task_shape_set(&s, TI_SHAPE_HAS_NIX, 10);
    p = add(g, TI_BLOCK_CCMPB, TI_DTYPE_I8, s);
    BENCH_OK(ti_task_add_attr(g, B(g, p), TI_TASK_ATTR_STRIDE_X, 2)); BENCH_OK(ti_task_add_attr(g, B(g, p), TI_TASK_ATTR_STRIDE_Y, 2));
    BENCH_OK(ti_task_add_attr(g, B(g, p), TI_TASK_ATTR_CMP, 0));
    link(g, si, p, 0);
    si = add(g, TI_BLOCK_SIFC, TI_DTYPE_I8, ti_task_shape_make(0, 0, 0, 400, 0, 0, 0, 0));
    e = ti_task_connect(g, B(g, p), 0, NULL, NULL, B(g, si), 0, NULL, NULL);
    BENCH_OK(ti_task_add_rearrange(g, e, TI_REARRANGE_RESHAPE, 1, rd, order, 3));
  }
  si = fc(g, si, 400, 120, 1);
  si = fc(g, si, 120, 84, 1);
  cvm = fc(g, si, 84, 10, 0);
  out = add(g, TI_BLOCK_OUTPUT, TI_DTYPE_I32, ti_task_shape_make(0, 0, 10, 0, 0, 0, 0, 0));
  link(g, cvm, out, 0);
}

/* ResNet-like: stem conv 3x3 (8 -> C) at HxW, then n residual blocks
   (conv 3x3 -> requant -> conv 3x3 -> + skip -> requant). */
static void build_resnet(ti_task_graph *g, int32_t hw, int32_t c, int32_t nblocks) {
  int32_t in, si, h, w, k, x;
  next_id = 0;
  ti_task_graph_init(g, NULL);
  in = add(g, TI_BLOCK_INPUT, TI_DTYPE_I8, ti_task_shape_make(hw, hw, 8, 0, 0, 0, 0, 0));
  si = add(g, TI_BLOCK_SIC, TI_DTYPE_I8, ti_task_shape_make(hw, hw, 0, 8, 0, 0, 0, 0));
  link(g, in, si, 0);
  si = conv(g, si, hw, hw, 8, c, 3, 1, &h, &w);
  x = ccmpb(g, si, h, w, c, 1, 6, TI_BLOCK_SIC);
  for (k = 0; k < nblocks; k++) {
    int32_t a = conv(g, x, hw, hw, c, c, 3, 1, &h, &w), add_b, sum;
    a = ccmpb(g, a, h, w, c, 1, 9, TI_BLOCK_SIC);
    a = conv(g, a, hw, hw, c, c, 3, 1, &h, &w);
    add_b = add(g, TI_BLOCK_CADD, TI_DTYPE_I32, ti_task_shape_make(hw, hw, c, 0, 0, 0, 0, 0));
    sum = add(g, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(hw, hw, c, 0, 0, 0, 0, 0));
    link(g, a, add_b, 0); link(g, x, add_b, 1); link(g, add_b, sum, 0);
    x = ccmpb(g, sum, hw, hw, c, 1, 9, TI_BLOCK_SIC);
  }
  k = add(g, TI_BLOCK_OUTPUT, TI_DTYPE_I8, ti_task_shape_make(hw, hw, c, 0, 0, 0, 0, 0));
  link(g, x, k, 0);
}

/* --- measuring ------------------------------------------------------------- */

/* ti_exec_options.parallel_min's default on this machine */
static int64_t default_parallel_min(void) {
  return (ti_cpu_detect() & TI_CPU_AMXINT8) ? TASKIR_EXEC_PARALLEL_MIN_AMX : TASKIR_EXEC_PARALLEL_MIN;
}

/* The graph planned twice, one thread and a pool of two; the same input;
   runs alternate (1, 2, 2, 1, ...) and the figure is the median of the
   per-pair time ratios. parallel_min: ti_exec_options.parallel_min of the
   2-thread plan (0: the default). Returns the speed-up (0 on a failure or
   when the outputs differ). */
static double threads_speedup(const ti_task_graph *g, int pairs, int64_t parallel_min, double *t1_med, double *t2_med) {
  ti_exec *x[2] = {NULL, NULL};
  ti_exec_options o;
  ti_error err;
  ti_pool *pool = NULL;
  double *ratio = (double *)malloc((size_t)pairs * sizeof *ratio), *t[2], res = 0;
  /* per run and block type, wall-clock seconds (the profile, on both sides) */
  double *bt = (double *)calloc((size_t)2 * TI_BLOCK_COUNT * (size_t)pairs, sizeof *bt);
  int i, k, ok = 1;
  memset(&err, 0, sizeof err);
  t[0] = (double *)malloc((size_t)pairs * sizeof **t); t[1] = (double *)malloc((size_t)pairs * sizeof **t);
  if (ti_pool_create(&pool, 2) != 0) ok = 0;
  for (k = 0; ok && k < 2; k++) {
    ti_exec_options_init(&o);
    o.clock = now;
    o.profile = 1;
    if (k) { o.parallel_for = ti_pool_parallel_for; o.parallel_user = pool; o.threads = 2; o.parallel_min = parallel_min; }
    else o.threads = 1;
    if (ti_exec_plan(g, &o, &x[k], &err) != TI_STATUS_SUCCESS) { ok = 0; break; }
    seed = 77;
    for (i = 0; i < ti_exec_num_inputs(x[k]); i++) {
      int64_t n = ti_exec_input_count(x[k], i), q;
      int32_t *v = (int32_t *)malloc((size_t)n * sizeof *v);
      for (q = 0; q < n; q++) v[q] = rnd(-128, 127);
      if (ti_exec_set_input(x[k], ti_exec_input_socket(x[k], i), v, n, &err)) ok = 0;
      free(v);
    }
    if (ti_exec_run(x[k], &err)) ok = 0;
  }
  for (i = 0; ok && i < ti_exec_num_outputs(x[0]); i++) {   /* identical outputs */
    ti_exec_tensor a, b;
    int32_t s = ti_exec_output_socket(x[0], i);
    if (ti_exec_output(x[0], s, &a, &err) || ti_exec_output(x[1], s, &b, &err) || a.count != b.count ||
        a.dtype != b.dtype || memcmp(a.data, b.data, (size_t)a.count * ti_dtype_size(a.dtype)) != 0)
      ok = 0;
  }
  for (i = 0; ok && i < pairs; i++) {
    for (k = 0; k < 2; k++) {
      int w = (i & 1) ? 1 - k : k, b;
      double t0;
      ti_exec_clear_profile(x[w]);
      t0 = now(NULL);
      BENCH_OK(ti_exec_run(x[w], &err));
      t[w][i] = now(NULL) - t0;
      for (b = 0; b < TI_BLOCK_COUNT; b++) bt[((size_t)w * TI_BLOCK_COUNT + b) * pairs + i] = ti_exec_get_profile(x[w])->block_seconds[b];
    }
    ratio[i] = t[0][i] / t[1][i];
  }
  if (ok) {   /* where the time goes, per block type (kernels and the copies into the blocks) */
    int b;
    printf("ResNet-like per block type, wall clock per run (medians), 1 -> 2 threads (parallel_min %lld):",
           (long long)(parallel_min > 0 ? parallel_min : default_parallel_min()));
    for (b = 0; b < TI_BLOCK_COUNT; b++) {
      double *a1 = bt + (size_t)b * pairs, *a2 = bt + ((size_t)TI_BLOCK_COUNT + b) * pairs;
      qsort(a1, (size_t)pairs, sizeof *a1, cmp_d); qsort(a2, (size_t)pairs, sizeof *a2, cmp_d);
      if (a1[pairs / 2] >= 1e-6)
        printf(" %s %.0f -> %.0f us;", ti_block_type_name((ti_block_type)b), a1[pairs / 2] * 1e6, a2[pairs / 2] * 1e6);
    }
    printf("\n");
  }
  if (ok) {
    qsort(ratio, (size_t)pairs, sizeof *ratio, cmp_d);
    qsort(t[0], (size_t)pairs, sizeof *t[0], cmp_d); qsort(t[1], (size_t)pairs, sizeof *t[1], cmp_d);
    res = ratio[pairs / 2]; *t1_med = t[0][pairs / 2]; *t2_med = t[1][pairs / 2];
  }
  ti_exec_free(x[0]); ti_exec_free(x[1]);
  ti_pool_free(pool);
  free(ratio); free(t[0]); free(t[1]); free(bt);
  return res;
}

typedef struct result {
  double decode_plan, run_median, first_total, kernel_share;
  double t_decode, t_check, t_plan, t_first;   /* the parts of first_total */
  int64_t plan_bytes, data_bytes, block_bytes, macs;
} result;

/* Decodes bytes, plans, feeds random inputs, runs: timings and plan facts. */
static int measure(const char *name, const void *bytes, size_t len, int is_text, int runs, result *r) {
  ti_task_graph g;
  ti_error err;
  ti_exec *x = NULL;
  ti_exec_options o;
  ti_exec_info info;
  double t0, t1, *times;
  int i, k;
  const ti_exec_profile *p;
  memset(&err, 0, sizeof err);
  memset(r, 0, sizeof *r);
  ti_exec_options_init(&o);
  o.clock = now;
  t0 = 0;
  ti_task_graph_init(&g, NULL);
  if ((is_text ? ti_task_parse_text(&g, (const char *)bytes, len, &err) : ti_task_decode(&g, bytes, len, &err)) ||
      ti_exec_plan(&g, &o, &x, &err)) {
    fprintf(stderr, "%s: %s\n", name, err.message);
    ti_task_graph_free(&g);
    return 0;
  }
  (void)t0;
  {   /* again, part by part (decode, checker, plan without it), median of 7 */
    double td[7], tc[7], tp[7], tt[7];
    int rep;
    for (rep = 0; rep < 7; rep++) {
      ti_task_graph g2;
      ti_exec *x2 = NULL;
      ti_diag_list dl;
      double a = now(NULL), b, c2, d;
      ti_task_graph_init(&g2, NULL);
      if (is_text) BENCH_OK(ti_task_parse_text(&g2, (const char *)bytes, len, &err)); else BENCH_OK(ti_task_decode(&g2, bytes, len, &err));
      b = now(NULL);
      ti_diag_list_init(&dl, NULL);
      BENCH_OK(ti_task_check(&g2, &dl, &err));
      ti_diag_list_free(&dl);
      c2 = now(NULL);
      o.skip_check = 1;
      BENCH_OK(ti_exec_plan(&g2, &o, &x2, &err));
      o.skip_check = 0;
      d = now(NULL);
      td[rep] = b - a; tc[rep] = c2 - b; tp[rep] = d - c2; tt[rep] = d - a;
      ti_exec_free(x2);
      ti_task_graph_free(&g2);
    }
    qsort(td, 7, sizeof *td, cmp_d); qsort(tc, 7, sizeof *tc, cmp_d); qsort(tp, 7, sizeof *tp, cmp_d); qsort(tt, 7, sizeof *tt, cmp_d);
    r->t_decode = td[3]; r->t_check = tc[3]; r->t_plan = tp[3]; r->decode_plan = tt[3];
  }
  for (i = 0; i < ti_exec_num_inputs(x); i++) {
    int64_t n = ti_exec_input_count(x, i);
    int32_t *v = (int32_t *)malloc((size_t)n * sizeof *v);
    for (k = 0; k < n; k++) v[k] = rnd(-128, 127);
    BENCH_OK(ti_exec_set_input(x, ti_exec_input_socket(x, i), v, n, &err));
    free(v);
  }
  t1 = now(NULL);
  BENCH_OK(ti_exec_run(x, &err));
  r->t_first = now(NULL) - t1;
  r->first_total = r->decode_plan + r->t_first;
  times = (double *)malloc((size_t)runs * sizeof *times);
  for (i = 0; i < runs; i++) {
    t0 = now(NULL);
    BENCH_OK(ti_exec_run(x, &err));
    times[i] = now(NULL) - t0;
  }
  qsort(times, (size_t)runs, sizeof *times, cmp_d);
  r->run_median = times[runs / 2];
  free(times);
  ti_exec_get_info(x, &info);
  r->plan_bytes = info.plan_bytes; r->block_bytes = info.block_bytes; r->macs = info.macs;
  r->data_bytes = info.arena_bytes + info.persistent_bytes + info.packed_bytes + info.scratch_bytes;
  ti_exec_free(x);
  /* the kernel share from a profiled plan (timing every step) */
  o.profile = 1;
  if (ti_exec_plan(&g, &o, &x, &err) == TI_STATUS_SUCCESS) {
    for (i = 0; i < ti_exec_num_inputs(x); i++) {
      int64_t n = ti_exec_input_count(x, i);
      int32_t *v = (int32_t *)calloc((size_t)n, sizeof *v);
      BENCH_OK(ti_exec_set_input(x, ti_exec_input_socket(x, i), v, n, &err));
      free(v);
    }
    for (i = 0; i < (runs < 50 ? runs : 50); i++) BENCH_OK(ti_exec_run(x, &err));
    p = ti_exec_get_profile(x);
    r->kernel_share = p->total_seconds > 0 ? p->kernel_seconds / p->total_seconds : 0;
    ti_exec_free(x);
  }
  ti_task_graph_free(&g);
  return 1;
}

static void print_row(const char *name, const result *r) {
  printf("%-22s %9.1f %11.2f %10.1f%% %11lld %11lld %11lld %6.2f %11lld\n", name, r->decode_plan * 1e6, r->run_median * 1e6,
         100.0 * r->kernel_share, (long long)r->plan_bytes, (long long)r->data_bytes, (long long)r->block_bytes,
         r->block_bytes ? (double)r->plan_bytes / (double)r->block_bytes : 0.0, (long long)r->macs);
}

/* --- the executor's fixed cost -------------------------------------------- */

/* INPUT [1] -> SI -> (CVS x1 -> SI) x n -> OUTPUT: n kernel blocks of one
   element; n = 0 is the empty run (the input reaches the output unchanged). */
static void build_chain(ti_task_graph *g, int32_t n) {
  int32_t si, k;
  next_id = 0;
  ti_task_graph_init(g, NULL);
  si = add(g, TI_BLOCK_INPUT, TI_DTYPE_I32, ti_task_shape_make(0, 0, 1, 0, 0, 0, 0, 0));
  k = add(g, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(0, 0, 1, 0, 0, 0, 0, 0));
  link(g, si, k, 0);
  si = k;
  for (k = 0; k < n; k++) {
    int32_t c = add(g, TI_BLOCK_CVS, TI_DTYPE_I32, ti_task_shape_make(0, 0, 1, 0, 0, 0, 0, 0)), o;
    BENCH_OK(ti_task_add_attr(g, B(g, c), TI_TASK_ATTR_CONSTANT_A, 1));
    o = add(g, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(0, 0, 1, 0, 0, 0, 0, 0));
    link(g, si, c, 0); link(g, c, o, 0);
    si = o;
  }
  k = add(g, TI_BLOCK_OUTPUT, TI_DTYPE_I32, ti_task_shape_make(0, 0, 1, 0, 0, 0, 0, 0));
  link(g, si, k, 0);
}

/* Median seconds of one ti_exec_run of the chain of n blocks. */
static double chain_run(int32_t n, int runs) {
  ti_task_graph g;
  ti_exec *x = NULL;
  ti_exec_options o;
  ti_error err;
  int32_t one = 1;
  double *t = (double *)malloc((size_t)runs * sizeof *t), m = -1;
  int i;
  memset(&err, 0, sizeof err);
  ti_exec_options_init(&o);
  build_chain(&g, n);
  if (!ti_exec_plan(&g, &o, &x, &err) && !ti_exec_set_input(x, ti_exec_input_socket(x, 0), &one, 1, &err)) {
    for (i = 0; i < runs; i++) {
      double t0 = now(NULL);
      BENCH_OK(ti_exec_run(x, &err));
      t[i] = now(NULL) - t0;
    }
    qsort(t, (size_t)runs, sizeof *t, cmp_d);
    m = t[runs / 2];
  } else fprintf(stderr, "chain %d: %s\n", (int)n, err.message);
  ti_exec_free(x);
  ti_task_graph_free(&g);
  free(t);
  return m;
}

static void fixed_cost(void) {
  double t0 = chain_run(0, 20001), t64 = chain_run(64, 20001), t256 = chain_run(256, 4001);
  printf("\nexecutor fixed cost: empty run (INPUT -> SI -> OUTPUT) %.0f ns; per block (a CVS of one element) "
         "%.1f ns over 64 blocks, %.1f ns over 256\n", t0 * 1e9, (t64 - t0) / 64 * 1e9, (t256 - t0) / 256 * 1e9);
}

/* --- onnxruntime side by side ----------------------------------------------- */

static const char *ort_dir(void) {
  const char *p = getenv("TASKIR_ORT_DIR");
  return p && *p ? p : "build/bench/ort";
}

static int write_bytes(const char *path, const void *d, size_t n) {
  FILE *f = fopen(path, "wb");
  int ok = f && fwrite(d, 1, n, f) == n;
  if (f && fclose(f)) ok = 0;
  return ok;
}

static double median_of(double *v, int n) { qsort(v, (size_t)n, sizeof *v, cmp_d); return v[n / 2]; }

/* This thread's CPU seconds (bench_clock.h's now(), which this file cannot
   include: its now() is the executor's clock). On a loaded machine CPU time
   leaves out the time a process waits for a core, which would otherwise
   weigh on the longer inferences of the two. */
static double cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The graph and its ONNX twin on the same random int8 input: outputs compared
   element by element, then rounds of per runs each, taskir and onnxruntime
   (and an Identity model on the same input: onnxruntime's own call cost)
   alternating which goes first, each timed as CPU time per run (taskir: this
   thread, onnxruntime: the node process); medians of the per-round ratios.
   0 when the outputs differ or the peer fails. */
static int versus_ort(ort_peer *p, const char *name, const ti_task_graph *g, int per, int rounds, double target) {
  ti_buffer model;
  ort_val in, out;
  char why[256], path[1024], ipath[1024], fpath[1024], dims[64];
  ti_exec *x = NULL;
  ti_exec_options o;
  ti_error err;
  ti_exec_tensor t;
  int64_t n, k, bad = 0;
  int32_t *v;
  float *fv;
  int i, r, ok = 0;
  double *rt = (double *)malloc((size_t)rounds * sizeof *rt);
  double *ro = (double *)malloc((size_t)rounds * sizeof *ro), *ri = (double *)malloc((size_t)rounds * sizeof *ri);
  double *q1 = (double *)malloc((size_t)rounds * sizeof *q1), *q2 = (double *)malloc((size_t)rounds * sizeof *q2);
  const char *ans;
  memset(&err, 0, sizeof err);
  ti_buffer_init(&model, NULL);
  if (!ort_twin_write(g, &model, &in, &out, why, sizeof why)) { printf("%s: no ONNX twin: %s\n", name, why); goto done; }
  snprintf(path, sizeof path, "%s/%s.onnx", ort_dir(), name);
  snprintf(ipath, sizeof ipath, "%s/%s_identity.onnx", ort_dir(), name);
  snprintf(fpath, sizeof fpath, "%s/%s_input.f32", ort_dir(), name);
  if (!write_bytes(path, model.data, model.len)) { printf("%s: cannot write %s\n", name, path); goto done; }
  model.len = 0;
  ort_identity_write(&in, &model);
  if (!write_bytes(ipath, model.data, model.len)) { printf("%s: cannot write %s\n", name, ipath); goto done; }
  ti_exec_options_init(&o);
  if (ti_exec_plan(g, &o, &x, &err)) { printf("%s: %s\n", name, err.message); goto done; }
  n = ti_exec_input_count(x, 0);
  v = (int32_t *)malloc((size_t)n * sizeof *v);
  fv = (float *)malloc((size_t)n * sizeof *fv);
  for (k = 0; k < n; k++) v[k] = rnd(-128, 127);
  for (k = 0; k < n; k++) {   /* [y][x][c] -> [c][y][x] */
    int64_t c = in.rank == 4 ? k % in.dims[1] : k, yx = in.rank == 4 ? k / in.dims[1] : 0;
    fv[in.rank == 4 ? c * in.dims[2] * in.dims[3] + yx : k] = (float)v[k];
  }
  BENCH_OK(ti_exec_set_input(x, ti_exec_input_socket(x, 0), v, n, &err));
  ok = write_bytes(fpath, fv, (size_t)n * sizeof *fv);
  free(v); free(fv);
  if (!ok) { printf("%s: cannot write %s\n", name, fpath); goto done; }
  ok = 0;
  if (in.rank == 4) snprintf(dims, sizeof dims, "1,%lld,%lld,%lld", (long long)in.dims[1], (long long)in.dims[2], (long long)in.dims[3]);
  else snprintf(dims, sizeof dims, "1,%lld", (long long)in.dims[1]);
  if (!(ans = ort_peer_cmd(p, "load m %s %s %s", path, fpath, dims)) || strncmp(ans, "ok", 2) ||
      !(ans = ort_peer_cmd(p, "load id %s %s %s", ipath, fpath, dims)) || strncmp(ans, "ok", 2)) {
    printf("%s: onnxruntime: %s\n", name, ans ? ans : "the peer exited"); goto done;
  }
  /* bit for bit: onnxruntime's [c][y][x] floats against taskir's [y][x][c] */
  if (ti_exec_run(x, &err) || ti_exec_output(x, ti_exec_output_socket(x, 0), &t, &err)) { printf("%s: %s\n", name, err.message); goto done; }
  if (!(ans = ort_peer_cmd(p, "out m"))) { printf("%s: the peer exited\n", name); goto done; }
  {
    const char *q = ans;
    for (k = 0; k < t.count; k++) {
      char *end;
      double ov = strtod(q, &end);
      int64_t j = k, tk = k;
      if (out.rank == 4) {   /* j = c*(H*W) + yx -> taskir index yx*C + c */
        int64_t hw = out.dims[2] * out.dims[3];
        tk = (j % hw) * out.dims[1] + j / hw;
      }
      if (end == q) { printf("%s: onnxruntime gave %lld values, taskir %lld\n", name, (long long)k, (long long)t.count); bad = t.count; break; }
      q = end;
      if (ov != (double)ti_exec_tensor_i64(&t, tk)) {
        if (!bad) printf("%s: outputs differ at %lld: onnxruntime %.9g, taskir %lld\n", name, (long long)j, ov,
                         (long long)ti_exec_tensor_i64(&t, tk));
        bad++;
      }
    }
  }
  if (bad) { printf("%s: %lld of %lld outputs differ; not timed\n", name, (long long)bad, (long long)t.count); goto done; }
  printf("%s: the %lld outputs of taskir and of its ONNX twin in onnxruntime are identical\n", name, (long long)t.count);
  for (r = 0; r < rounds; r++) {
    double a = 0, b = 0, c = 0;
    int side;
    for (side = 0; side < 2; side++) {
      if ((side == 0) == (r % 2 == 0)) {
        double t0 = cpu_seconds();
        for (i = 0; i < per; i++) BENCH_OK(ti_exec_run(x, &err));
        a = (cpu_seconds() - t0) / per;
      } else {
        if (!(ans = ort_peer_cmd(p, "time m %d", per)) || sscanf(ans, "ns %lf", &b) != 1 ||
            !(ans = ort_peer_cmd(p, "time id %d", per)) || sscanf(ans, "ns %lf", &c) != 1) {
          printf("%s: onnxruntime: %s\n", name, ans ? ans : "the peer exited"); goto done;
        }
        b *= 1e-9; c *= 1e-9;
      }
    }
    rt[r] = a; ro[r] = b; ri[r] = c; q1[r] = b / a; q2[r] = (b - c) / a;
  }
  {
    double ta = median_of(rt, rounds), tb = median_of(ro, rounds), tc = median_of(ri, rounds);
    double r1 = median_of(q1, rounds), r2 = median_of(q2, rounds);
    printf("%s, single thread, CPU time per inference (medians of %d rounds of %d runs): taskir %.2f us; onnxruntime %s %.2f us,\n"
           "  of which %.2f us is its own call cost (an Identity model on the same input), %.2f us without it\n"
           "  onnxruntime / taskir (median of per-round ratios): %.2fx with its call cost, %.2fx without",
           name, rounds, per, ta * 1e6, p->version, tb * 1e6, tc * 1e6, (tb - tc) * 1e6, r1, r2);
    if (target > 0) printf(" (target >= %.1fx: %s)", target, r1 >= target ? "met" : "NOT met");
    printf("\n");
  }
  ok = 1;
done:
  ti_exec_free(x);
  ti_buffer_free(&model);
  free(rt); free(ro); free(ri); free(q1); free(q2);
  return ok;
}

static void *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  char *buf;
  long n;
  if (!f) return NULL;
  fseek(f, 0, SEEK_END); n = ftell(f); fseek(f, 0, SEEK_SET);
  buf = (char *)malloc((size_t)n + 1);
  if (fread(buf, 1, (size_t)n, f) != (size_t)n) { fclose(f); free(buf); return NULL; }
  fclose(f);
  *len = (size_t)n;
  return buf;
}

int main(void) {
  static const char *cases[] = {"cadd", "cavg", "cax", "cc", "ccmpb", "clut", "cvm", "cvs", "cvvh"};
  char path[1024];
  int c;
  result r;
  ti_task_graph g;
  ti_buffer buf;
  ti_error err;
  ti_kernel_ctx kc;
  memset(&err, 0, sizeof err);
  ti_kernel_ctx_init(&kc);
  printf("cpu flags 0x%x; times in microseconds; ratio = plan bytes (data + bookkeeping) / sum of all block sizes\n", kc.cpu);
  printf("%-22s %9s %11s %11s %11s %11s %11s %6s %11s\n", "graph", "dec+plan", "run(median)", "in kernels", "plan bytes",
         "of it data", "block bytes", "ratio", "MACs/run");
  for (c = 0; c < (int)(sizeof cases / sizeof *cases); c++) {
    size_t len;
    void *bytes;
    snprintf(path, sizeof path, "%s/%s.task.pb", fixtures(), cases[c]);
    if (!(bytes = read_all(path, &len))) { printf("%-22s (fixture not found)\n", cases[c]); continue; }
    snprintf(path, sizeof path, "fixture %s.pb", cases[c]);
    if (measure(path, bytes, len, 0, 2001, &r)) print_row(path, &r);
    free(bytes);
  }
  /* LeNet, int8 weights, from its encoded bytes */
  build_lenet(&g);
  ti_buffer_init(&buf, NULL);
  if (ti_task_encode(&g, &buf, &err) == TI_STATUS_SUCCESS && measure("lenet", buf.data, buf.len, 0, 5001, &r)) {
    print_row("LeNet-5 int8 (.pb)", &r);
    printf("\nLeNet-5 int8: %.1f us per inference (median); decode + plan + first inference %.1f us "
           "(%lld-byte file).\n", r.run_median * 1e6, r.first_total * 1e6, (long long)buf.len);
    printf("  of which: decode %.1f us, checker %.1f us, plan (incl. one validating run) %.1f us, first inference %.1f us\n",
           r.t_decode * 1e6, r.t_check * 1e6, r.t_plan * 1e6, r.t_first * 1e6);
    printf("  against the Python engine's 1.8 ms per inference (given figure, not measured here): %.0fx per inference;\n"
           "  decode + plan + one inference takes %.2fx of one Python inference\n", 1.8e-3 / r.run_median,
           r.first_total / 1.8e-3);
    printf("  targets: >= 30x per inference (<= 60 us): %s; plan smaller than the blocks: %s\n",
           r.run_median <= 60e-6 ? "met" : "NOT met", r.plan_bytes < r.block_bytes ? "yes" : "no");
  }
  ti_buffer_free(&buf);
  ti_task_graph_free(&g);
  /* ResNet-like: 6 residual blocks of 32x32x32 convs, 13 convs, 9.4 M MACs each */
  build_resnet(&g, 32, 32, 6);
  ti_buffer_init(&buf, NULL);
  if (ti_task_encode(&g, &buf, &err) == TI_STATUS_SUCCESS && measure("resnet", buf.data, buf.len, 0, 9, &r)) {
    print_row("ResNet-like 13 conv", &r);
    printf("\nResNet-like: %.2f ms per inference, %.1f GMAC/s, %.1f%% of the run in kernels (target >= 85%%), "
           "plan %.2f of the blocks' bytes\n", r.run_median * 1e3, (double)r.macs / r.run_median * 1e-9,
           100.0 * r.kernel_share, (double)r.plan_bytes / (double)r.block_bytes);
  }
  {   /* two threads through ti_exec_options.parallel_for (tools/taskir_pool.h):
         the default threshold (32768 splits every block of this graph, the
         convs, the element-wise blocks and the copies into CADD), then
         1048576, which splits none of them; each after the cache line round
         trip between the two threads, which tells whether they share a
         cache right now */
    static const int64_t mins[2] = {0, 1048576};
    int m;
    for (m = 0; m < 2; m++) {
      double rt = bench_bounce_ns(), t1 = 0, t2 = 0, sp = threads_speedup(&g, 31, mins[m], &t1, &t2);
      if (sp > 0)
        printf("ResNet-like, 2 threads, parallel_min %lld%s (line round trip %.0f ns): %.2f ms vs %.2f ms on 1 "
               "(medians of 31 alternating pairs): speed-up %.2fx (median of the per-pair ratios; target >= %.1fx on 2 idle cores): %s\n",
               (long long)(mins[m] ? mins[m] : default_parallel_min()), mins[m] ? "" : " (default)", rt, t2 * 1e3, t1 * 1e3, sp,
               BENCH_THREADS_TARGET, sp >= BENCH_THREADS_TARGET ? "PASS" : "FAIL");
      else
        printf("ResNet-like, 2 threads: FAILED (plan, run, or outputs differing from 1 thread)\n");
    }
  }
  {   /* what two threads give right now (bench_ceiling.h), to judge that figure by */
    ti_pool *pool;
    if (ti_pool_create(&pool, 2) == 0) {
      printf("2-thread ceilings now (1 thr ms, 2 thr ms, speed-up):\n");
      bench_print_ceilings(pool, 15);
      ti_pool_free(pool);
    }
  }
  ti_buffer_free(&buf);
  ti_task_graph_free(&g);
  fixed_cost();
  {   /* side by side with onnxruntime */
    ort_peer p;
    char why[1200], script[1024], mod[1024];
    FILE *f;
    int ok = 1;
    snprintf(mod, sizeof mod, "%s/node_modules/onnxruntime-node/package.json", ort_dir());
    snprintf(script, sizeof script, "%s", "bench/ort_peer.js");
    printf("\n");
    if (!(f = fopen(mod, "r"))) {
      printf("skip: onnxruntime peer: %s not found (needs nodejs and npm: `make bench` runs "
             "npm install --ignore-scripts onnxruntime-node in %s)\n", mod, ort_dir());
      return 0;
    }
    fclose(f);
    if (!ort_peer_start(&p, script, ort_dir(), why, sizeof why)) {
      printf("skip: onnxruntime peer: %s\n", why);
      ort_peer_stop(&p);
      return 0;
    }
    printf("onnxruntime %s (npm onnxruntime-node, its bundled CPU library; intra/inter-op threads 1), fp32 twins\n",
           p.version);
    build_lenet(&g);
    ok = versus_ort(&p, "lenet5", &g, 400, 31, 2.0) && ok;
    ti_task_graph_free(&g);
    build_resnet(&g, 32, 32, 6);
    ok = versus_ort(&p, "resnet_like", &g, 9, 15, 0) && ok;
    ti_task_graph_free(&g);
    ort_peer_stop(&p);
    if (!ok) return 1;
  }
  return 0;
}
