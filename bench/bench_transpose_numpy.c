/* N-d transpose against numpy, the peer a Python user has: for each case
   /usr/bin/python3 times np.ascontiguousarray(x.transpose(p)) (f32,
   time.perf_counter over repeated calls, one thread: OMP_NUM_THREADS and
   OPENBLAS_NUM_THREADS = 1) and this program times ti_transpose_ex on the
   same shape. Cases: every permutation of a 2-d, 3-d and 4-d shape and the
   6-d cases [8,16,12,10,14,6] perm (5,3,1,4,2,0) and pixel-unshuffle
   [2,64,56,2,56,2] perm (0,1,3,5,2,4), each small (in cache) and large.
   Five trials; a trial runs numpy over all cases, then taskir over all
   cases; printed is the median over trials of the per-trial ratio
   numpy time / taskir time (>= 1: taskir at least as fast), after checking
   that both outputs agree (a position-weighted checksum). Without
   /usr/bin/python3 and numpy the peer is skipped with a message. */
#define _POSIX_C_SOURCE 200809L
#define TASKIR_IMPLEMENTATION
#include "taskir_kernels.h"
#include "bench_check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);   /* wall time, as perf_counter */
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

#define MAXC 128
#define TRIALS 5
typedef struct tcase { int nd; int64_t d[6]; int perm[6]; int64_t n; } tcase;

static tcase cases[MAXC];
static int ncases;

static void add(int nd, const int64_t *d, const int *perm) {
  tcase *c;
  int a;
  for (a = 0; a < nd && perm[a] == a; ++a) {}
  if (a == nd) return;   /* identity: numpy returns its input, no copy to compare */
  c = &cases[ncases++];
  c->nd = nd;
  c->n = 1;
  for (a = 0; a < nd; ++a) { c->d[a] = d[a]; c->perm[a] = perm[a]; c->n *= d[a]; }
}
/* every permutation of the axes of d (Heap's algorithm order is fine) */
static void add_all(int nd, const int64_t *d, int *perm, int k) {
  int i;
  if (k == nd) { add(nd, d, perm); return; }
  for (i = k; i < nd; ++i) {
    int t = perm[k]; perm[k] = perm[i]; perm[i] = t;
    add_all(nd, d, perm, k + 1);
    t = perm[k]; perm[k] = perm[i]; perm[i] = t;
  }
}

/* sum of value * (position % 1009) over the output, values small integers */
static long long checksum(const float *y, int64_t n) {
  long long s = 0;
  int64_t i;
  for (i = 0; i < n; ++i) s += (long long)y[i] * (long long)(i % 1009);
  return s;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Runs numpy over every case once; fills secs[case] and sums[case].
   0 when the peer is unavailable. */
static int run_numpy(const char *script, double *secs, long long *sums) {
  char cmd[512];
  FILE *f;
  int k = 0, ok = 1;
  snprintf(cmd, sizeof cmd, "OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 /usr/bin/python3 %s 2>&1", script);
  if (!(f = popen(cmd, "r"))) return 0;
  while (k < ncases) {
    double t;
    long long s;
    if (fscanf(f, "%lf %lld", &t, &s) != 2) { ok = 0; break; }
    secs[k] = t;
    sums[k] = s;
    ++k;
  }
  if (!ok) {
    char line[256];
    while (fgets(line, sizeof line, f)) fputs(line, stdout);
  }
  pclose(f);
  return ok;
}

int main(void) {
  static const int64_t d2s[2] = {48, 40}, d2l[2] = {2048, 2048};
  static const int64_t d3s[3] = {12, 20, 24}, d3l[3] = {96, 160, 192};
  static const int64_t d4s[4] = {6, 10, 12, 16}, d4l[4] = {24, 40, 48, 64};
  static const int64_t d6l[6] = {8, 16, 12, 10, 14, 6}, d6s[6] = {2, 4, 3, 5, 4, 6};
  static const int64_t pul[6] = {2, 64, 56, 2, 56, 2}, pus[6] = {1, 8, 14, 2, 14, 2};
  static const int p6[6] = {5, 3, 1, 4, 2, 0}, pu[6] = {0, 1, 3, 5, 2, 4};
  char script[64] = "/tmp/bench_transpose_numpy_XXXXXX";
  double np_t[TRIALS][MAXC], ti_t[TRIALS][MAXC];
  long long np_s[MAXC];
  int perm[6], k, trial, fd, have_np = 1;
  int64_t maxn = 0;
  float *x, *y;
  FILE *f;
  ti_kernel_ctx ctx;
  ti_kernel_ctx_init(&ctx);
  for (k = 0; k < 2; ++k) { perm[0] = 0; perm[1] = 1; add_all(2, k ? d2l : d2s, perm, 0); }
  for (k = 0; k < 2; ++k) { perm[0] = 0; perm[1] = 1; perm[2] = 2; add_all(3, k ? d3l : d3s, perm, 0); }
  for (k = 0; k < 2; ++k) { perm[0] = 0; perm[1] = 1; perm[2] = 2; perm[3] = 3; add_all(4, k ? d4l : d4s, perm, 0); }
  add(6, d6s, p6); add(6, d6l, p6); add(6, pus, pu); add(6, pul, pu);
  for (k = 0; k < ncases; ++k) if (cases[k].n > maxn) maxn = cases[k].n;
  x = (float *)malloc((size_t)maxn * sizeof *x);
  y = (float *)malloc((size_t)maxn * sizeof *y);
  if (!x || !y) { printf("allocation failed\n"); return 1; }
  for (k = 0; k < maxn; ++k) x[k] = (float)(k % 4099);
  /* the numpy side: the same cases, the same values */
  fd = mkstemp(script);
  if (fd < 0 || !(f = fdopen(fd, "w"))) { printf("numpy peer skipped: no temporary file\n"); have_np = 0; f = NULL; }
  if (f) {
    fprintf(f, "import sys, time\ntry:\n    import numpy as np\nexcept ImportError:\n    print('numpy missing'); sys.exit(0)\n"
               "cases = [\n");
    for (k = 0; k < ncases; ++k) {
      int a;
      fprintf(f, "  ((");
      for (a = 0; a < cases[k].nd; ++a) fprintf(f, "%lld,", (long long)cases[k].d[a]);
      fprintf(f, "), (");
      for (a = 0; a < cases[k].nd; ++a) fprintf(f, "%d,", cases[k].perm[a]);
      fprintf(f, ")),\n");
    }
    fprintf(f, "]\nfor d, p in cases:\n"
               "    n = 1\n    for v in d: n *= v\n"
               "    x = (np.arange(n, dtype=np.int64) %% 4099).astype(np.float32).reshape(d)\n"
               "    y = np.ascontiguousarray(x.transpose(p))\n"
               "    s = int((y.ravel().astype(np.int64) * (np.arange(n, dtype=np.int64) %% 1009)).sum())\n"
               "    reps = 1; best = 1e30\n"
               "    while True:\n"
               "        t0 = time.perf_counter()\n"
               "        for _ in range(reps): np.ascontiguousarray(x.transpose(p))\n"
               "        t = time.perf_counter() - t0\n"
               "        if t >= 0.02: break\n"
               "        reps *= 2\n"
               "    print('%%.9g %%d' %% (t / reps, s), flush=True)\n");
    fclose(f);
    if (access("/usr/bin/python3", X_OK) != 0) { printf("numpy peer skipped: no /usr/bin/python3\n"); have_np = 0; }
  }
  for (trial = 0; trial < TRIALS; ++trial) {
    if (have_np && !run_numpy(script, np_t[trial], np_s)) {
      printf("numpy peer skipped: /usr/bin/python3 with numpy did not run (output above)\n");
      have_np = 0;
    }
    for (k = 0; k < ncases; ++k) {
      const tcase *c = &cases[k];
      long reps = 1, r;
      double t0, t;
      if (ti_transpose_ex(&ctx, 4, c->nd, c->d, c->perm, x, y) != TI_STATUS_SUCCESS) { printf("transpose failed\n"); return 1; }
      if (have_np && trial == 0 && checksum(y, c->n) != np_s[k]) { printf("case %d: taskir and numpy disagree\n", k); return 1; }
      for (;;) {
        t0 = now();
        for (r = 0; r < reps; ++r) BENCH_OK(ti_transpose_ex(&ctx, 4, c->nd, c->d, c->perm, x, y));
        t = now() - t0;
        if (t >= 0.02) break;
        reps *= 2;
      }
      ti_t[trial][k] = t / (double)reps;
    }
  }
  remove(script);
  printf("%-26s %-14s %9s %9s %9s %7s\n", "shape (f32)", "perm", "MB", "taskir GB/s", "numpy GB/s", "ratio");
  {
    double worst = 1e30;
    for (k = 0; k < ncases; ++k) {
      const tcase *c = &cases[k];
      char sd[64], sp[32];
      double r[TRIALS], a[TRIALS], b[TRIALS], gb = 2.0 * (double)c->n * 4 / 1e9;
      size_t o = 0, q = 0;
      int i;
      for (i = 0; i < c->nd; ++i) {
        o += (size_t)snprintf(sd + o, sizeof sd - o, "%s%lld", i ? "x" : "", (long long)c->d[i]);
        q += (size_t)snprintf(sp + q, sizeof sp - q, "%d", c->perm[i]);
      }
      for (trial = 0; trial < TRIALS; ++trial) {
        a[trial] = ti_t[trial][k];
        b[trial] = have_np ? np_t[trial][k] : 0;
        r[trial] = have_np ? np_t[trial][k] / ti_t[trial][k] : 0;
      }
      qsort(a, TRIALS, sizeof(double), cmp_double);
      qsort(b, TRIALS, sizeof(double), cmp_double);
      qsort(r, TRIALS, sizeof(double), cmp_double);
      if (have_np) {
        printf("%-26s %-14s %9.2f %11.2f %10.2f %7.2f%s\n", sd, sp, (double)c->n * 4 / 1e6, gb / a[TRIALS / 2],
               gb / b[TRIALS / 2], r[TRIALS / 2], r[TRIALS / 2] < 1.0 ? "  <" : "");
        if (r[TRIALS / 2] < worst) worst = r[TRIALS / 2];
      } else {
        printf("%-26s %-14s %9.2f %11.2f %10s %7s\n", sd, sp, (double)c->n * 4 / 1e6, gb / a[TRIALS / 2], "-", "-");
      }
    }
    if (have_np) printf("worst taskir/numpy %.2f over %d cases (target >= 1.0); numpy %s\n", worst, ncases, "from /usr/bin/python3");
  }
  free(x); free(y);
  return 0;
}
