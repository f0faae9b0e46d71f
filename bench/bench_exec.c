/* Executor benchmark: per fixture, a synthetic ResNet-like graph and a
   LeNet-sized int8 graph -- decode + plan time, run time per inference
   (median), the share of a run spent inside kernels, and plan memory against
   the sum of all block sizes. Ratios are measured in this run; the Python
   engine's 1.8 ms per LeNet inference is the reference figure the task was
   given, not a measurement made here. */
#define _POSIX_C_SOURCE 199309L
#define TASKIR_IMPLEMENTATION
#include "taskir_proto.h"
#include "taskir_exec.h"
#include "tools/taskir_pool.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

static ti_task_shape shp(int32_t ny, int32_t nx, int32_t nf, int32_t nr, int32_t nky, int32_t nkx) {
  ti_task_shape s;
  memset(&s, 0, sizeof s);
  if (ny) ti_task_shape_set(&s, TI_SHAPE_HAS_NY, ny);
  if (nx) ti_task_shape_set(&s, TI_SHAPE_HAS_NX, nx);
  if (nf) ti_task_shape_set(&s, TI_SHAPE_HAS_NF, nf);
  if (nr) ti_task_shape_set(&s, TI_SHAPE_HAS_NR, nr);
  if (nky) ti_task_shape_set(&s, TI_SHAPE_HAS_NKY, nky);
  if (nkx) ti_task_shape_set(&s, TI_SHAPE_HAS_NKX, nkx);
  return s;
}
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
  ti_task_set_data(g, B(g, id), p, nd, dims, v);
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
  sw = rand_data(g, TI_BLOCK_SW, TI_DTYPE_I8, shp(0, 0, f, c, k, k), 4, wd, -20, 20);
  sb = rand_data(g, TI_BLOCK_SB, TI_DTYPE_I32, shp(0, 0, f, 0, 0, 0), 1, bd, -500, 500);
  s = shp(*oh, *ow, f, c, k, k);
  ti_task_shape_set(&s, TI_SHAPE_HAS_NIY, h); ti_task_shape_set(&s, TI_SHAPE_HAS_NIX, w);
  cc = add(g, TI_BLOCK_CC, TI_DTYPE_I32, s);
  ti_task_add_attr(g, B(g, cc), TI_ATTR_PAD_UP, pad); ti_task_add_attr(g, B(g, cc), TI_ATTR_PAD_DOWN, pad);
  ti_task_add_attr(g, B(g, cc), TI_ATTR_PAD_LEFT, pad); ti_task_add_attr(g, B(g, cc), TI_ATTR_PAD_RIGHT, pad);
  si = add(g, TI_BLOCK_SI, TI_DTYPE_I32, shp(*oh, *ow, f, 0, 0, 0));
  link(g, in, cc, 0); link(g, sw, cc, 1); link(g, sb, cc, 2); link(g, cc, si, 0);
  return si;
}

/* CCMPB window (1 = requantise, 2 = 2x2 max pool) -> int8 storage */
static int32_t ccmpb(ti_task_graph *g, int32_t in, int32_t h, int32_t w, int32_t c, int32_t win, int32_t shift, ti_block_type st) {
  ti_task_shape s = shp(h / win, w / win, c, 0, win, win);
  int32_t b, si;
  ti_task_shape_set(&s, TI_SHAPE_HAS_NIY, h); ti_task_shape_set(&s, TI_SHAPE_HAS_NIX, w);
  b = add(g, TI_BLOCK_CCMPB, TI_DTYPE_I8, s);
  ti_task_add_attr(g, B(g, b), TI_ATTR_STRIDE_X, win); ti_task_add_attr(g, B(g, b), TI_ATTR_STRIDE_Y, win);
  ti_task_add_attr(g, B(g, b), TI_ATTR_CMP, 0); ti_task_add_attr(g, B(g, b), TI_ATTR_BIT_SHIFT_NUM, shift);
  si = add(g, st, TI_DTYPE_I8, st == TI_BLOCK_SIC ? shp(h / win, w / win, 0, c, 0, 0) : shp(h / win, w / win, c, 0, 0, 0));
  link(g, in, b, 0); link(g, b, si, 0);
  return si;
}

static int32_t fc(ti_task_graph *g, int32_t in, int32_t nr, int32_t nf, int req) {
  int32_t wd[2], bd[1], sw, sb, m, si;
  wd[0] = nf; wd[1] = nr; bd[0] = nf;
  sw = rand_data(g, TI_BLOCK_SWFC, TI_DTYPE_I8, shp(0, 0, nf, nr, 0, 0), 2, wd, -30, 30);
  sb = rand_data(g, TI_BLOCK_SB, TI_DTYPE_I32, shp(0, 0, nf, 0, 0, 0), 1, bd, -500, 500);
  m = add(g, TI_BLOCK_CVM, TI_DTYPE_I32, shp(0, 0, nf, nr, 0, 0));
  si = add(g, TI_BLOCK_SI, TI_DTYPE_I32, shp(0, 0, nf, 0, 0, 0));
  link(g, in, m, 0); link(g, sw, m, 1); link(g, sb, m, 2); link(g, m, si, 0);
  if (req) {
    int32_t q = add(g, TI_BLOCK_CCMPB, TI_DTYPE_I8, shp(0, 0, nf, 0, 0, 0)), o;
    ti_task_add_attr(g, B(g, q), TI_ATTR_CMP, 0); ti_task_add_attr(g, B(g, q), TI_ATTR_BIT_SHIFT_NUM, 8);
    o = add(g, TI_BLOCK_SIFC, TI_DTYPE_I8, shp(0, 0, 0, nf, 0, 0));
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
  in = add(g, TI_BLOCK_INPUT, TI_DTYPE_I8, shp(28, 28, 1, 0, 0, 0));
  si = add(g, TI_BLOCK_SIC, TI_DTYPE_I8, shp(28, 28, 0, 1, 0, 0));
  link(g, in, si, 0);
  si = conv(g, si, 28, 28, 1, 6, 5, 2, &h, &w);
  si = ccmpb(g, si, h, w, 6, 1, 6, TI_BLOCK_SI);
  si = ccmpb(g, si, h, w, 6, 2, 0, TI_BLOCK_SIC);
  si = conv(g, si, 14, 14, 6, 16, 5, 0, &h, &w);
  si = ccmpb(g, si, h, w, 16, 1, 7, TI_BLOCK_SI);
  {   /* pool, then flatten into the FC input */
    ti_task_shape s = shp(5, 5, 16, 0, 2, 2);
    ti_task_shape_set(&s, TI_SHAPE_HAS_NIY, 10); ti_task_shape_set(&s, TI_SHAPE_HAS_NIX, 10);
    p = add(g, TI_BLOCK_CCMPB, TI_DTYPE_I8, s);
    ti_task_add_attr(g, B(g, p), TI_ATTR_STRIDE_X, 2); ti_task_add_attr(g, B(g, p), TI_ATTR_STRIDE_Y, 2);
    ti_task_add_attr(g, B(g, p), TI_ATTR_CMP, 0);
    link(g, si, p, 0);
    si = add(g, TI_BLOCK_SIFC, TI_DTYPE_I8, shp(0, 0, 0, 400, 0, 0));
    e = ti_task_connect(g, B(g, p), 0, NULL, NULL, B(g, si), 0, NULL, NULL);
    ti_task_add_rearrange(g, e, TI_REARRANGE_RESHAPE, 1, rd, order, 3);
  }
  si = fc(g, si, 400, 120, 1);
  si = fc(g, si, 120, 84, 1);
  cvm = fc(g, si, 84, 10, 0);
  out = add(g, TI_BLOCK_OUTPUT, TI_DTYPE_I32, shp(0, 0, 10, 0, 0, 0));
  link(g, cvm, out, 0);
}

/* ResNet-like: stem conv 3x3 (8 -> C) at HxW, then n residual blocks
   (conv 3x3 -> requant -> conv 3x3 -> + skip -> requant). */
static void build_resnet(ti_task_graph *g, int32_t hw, int32_t c, int32_t nblocks) {
  int32_t in, si, h, w, k, x;
  next_id = 0;
  ti_task_graph_init(g, NULL);
  in = add(g, TI_BLOCK_INPUT, TI_DTYPE_I8, shp(hw, hw, 8, 0, 0, 0));
  si = add(g, TI_BLOCK_SIC, TI_DTYPE_I8, shp(hw, hw, 0, 8, 0, 0));
  link(g, in, si, 0);
  si = conv(g, si, hw, hw, 8, c, 3, 1, &h, &w);
  x = ccmpb(g, si, h, w, c, 1, 6, TI_BLOCK_SIC);
  for (k = 0; k < nblocks; k++) {
    int32_t a = conv(g, x, hw, hw, c, c, 3, 1, &h, &w), add_b, sum;
    a = ccmpb(g, a, h, w, c, 1, 9, TI_BLOCK_SIC);
    a = conv(g, a, hw, hw, c, c, 3, 1, &h, &w);
    add_b = add(g, TI_BLOCK_CADD, TI_DTYPE_I32, shp(hw, hw, c, 0, 0, 0));
    sum = add(g, TI_BLOCK_SI, TI_DTYPE_I32, shp(hw, hw, c, 0, 0, 0));
    link(g, a, add_b, 0); link(g, x, add_b, 1); link(g, add_b, sum, 0);
    x = ccmpb(g, sum, hw, hw, c, 1, 9, TI_BLOCK_SIC);
  }
  k = add(g, TI_BLOCK_OUTPUT, TI_DTYPE_I8, shp(hw, hw, c, 0, 0, 0));
  link(g, x, k, 0);
}

/* --- measuring ------------------------------------------------------------- */

/* The graph planned twice, one thread and a pool of two; the same input;
   runs alternate (1, 2, 2, 1, ...) and the figure is the median of the
   per-pair time ratios. Returns the speed-up (0 on a failure or when the
   outputs differ). */
static double threads_speedup(const ti_task_graph *g, int pairs, double *t1_med, double *t2_med) {
  ti_exec *x[2] = {NULL, NULL};
  ti_exec_options o;
  ti_error err;
  ti_pool *pool = NULL;
  double *ratio = (double *)malloc((size_t)pairs * sizeof *ratio), *t[2], res = 0;
  int i, k, ok = 1;
  memset(&err, 0, sizeof err);
  t[0] = (double *)malloc((size_t)pairs * sizeof **t); t[1] = (double *)malloc((size_t)pairs * sizeof **t);
  if (ti_pool_create(&pool, 2) != 0) ok = 0;
  for (k = 0; ok && k < 2; k++) {
    ti_exec_options_init(&o);
    o.clock = now;
    if (k) { o.parallel_for = ti_pool_parallel_for; o.parallel_user = pool; o.threads = 2; }
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
      int w = (i & 1) ? 1 - k : k;
      double t0 = now(NULL);
      ti_exec_run(x[w], &err);
      t[w][i] = now(NULL) - t0;
    }
    ratio[i] = t[0][i] / t[1][i];
  }
  if (ok) {
    qsort(ratio, (size_t)pairs, sizeof *ratio, cmp_d);
    qsort(t[0], (size_t)pairs, sizeof *t[0], cmp_d); qsort(t[1], (size_t)pairs, sizeof *t[1], cmp_d);
    res = ratio[pairs / 2]; *t1_med = t[0][pairs / 2]; *t2_med = t[1][pairs / 2];
  }
  ti_exec_free(x[0]); ti_exec_free(x[1]);
  ti_pool_free(pool);
  free(ratio); free(t[0]); free(t[1]);
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
      if (is_text) ti_task_parse_text(&g2, (const char *)bytes, len, &err); else ti_task_decode(&g2, bytes, len, &err);
      b = now(NULL);
      ti_diag_list_init(&dl, NULL);
      ti_task_check(&g2, &dl, &err);
      ti_diag_list_free(&dl);
      c2 = now(NULL);
      o.skip_check = 1;
      ti_exec_plan(&g2, &o, &x2, &err);
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
    ti_exec_set_input(x, ti_exec_input_socket(x, i), v, n, &err);
    free(v);
  }
  t1 = now(NULL);
  ti_exec_run(x, &err);
  r->t_first = now(NULL) - t1;
  r->first_total = r->decode_plan + r->t_first;
  times = (double *)malloc((size_t)runs * sizeof *times);
  for (i = 0; i < runs; i++) {
    t0 = now(NULL);
    ti_exec_run(x, &err);
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
      ti_exec_set_input(x, ti_exec_input_socket(x, i), v, n, &err);
      free(v);
    }
    for (i = 0; i < (runs < 50 ? runs : 50); i++) ti_exec_run(x, &err);
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
  {   /* two threads through ti_exec_options.parallel_for (tools/taskir_pool.h) */
    double t1 = 0, t2 = 0, sp = threads_speedup(&g, 31, &t1, &t2);
    if (sp > 0)
      printf("ResNet-like, 2 threads: %.2f ms vs %.2f ms on 1 (medians of 31 alternating pairs): speed-up %.2fx "
             "(median of the per-pair ratios; target >= 1.7x on 2 idle cores)\n", t2 * 1e3, t1 * 1e3, sp);
    else
      printf("ResNet-like, 2 threads: FAILED (plan, run, or outputs differing from 1 thread)\n");
  }
  ti_buffer_free(&buf);
  ti_task_graph_free(&g);
  return 0;
}
