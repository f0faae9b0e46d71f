/* N-d transpose against numpy, the peer a Python user has: for each case
   /usr/bin/python3 times np.ascontiguousarray(x.transpose(p)) (f32 but
   where said, time.perf_counter over repeated calls, one thread: OMP_NUM_THREADS and
   OPENBLAS_NUM_THREADS = 1) and this program times ti_transpose_ex on the
   same shape. Cases: every permutation of a 2-d, 3-d and 4-d shape and the
   6-d cases [8,16,12,10,14,6] perm (5,3,1,4,2,0) and pixel-unshuffle
   [2,64,56,2,56,2] perm (0,1,3,5,2,4), each small (in cache) and large,
   and attention's head split [16,512,16,64] perm (0,2,1,3) (33.6 MB:
   runs of 256 bytes, output past TASKIR_KERNELS_STREAM_BYTES); then
   NCHW <-> NHWC of the other element sizes (int8, int16, float64: numpy's
   transpose depends on the size alone), 1x64x56x56 and 8x256x56x56.
   numpy runs in one python process for the whole bench, taking one case at
   a time from a pipe, so that each case is timed on both sides back to back
   (a pair; the side that goes first alternates from trial to trial) and a
   changing load on the machine hits both alike. Five trials; printed is the
   median over trials of the per-pair ratio numpy time / taskir time (>= 1:
   taskir at least as fast), after checking that both outputs agree (a
   position-weighted checksum, first trial). Without
   /usr/bin/python3 and numpy the peer is skipped with a message.
   Then NCHW <-> NHWC (f32, 1x256x56x56 in cache and 1x256x224x224 out of
   cache) against memcpy of the same bytes in the same process: pairs of
   (memcpy, taskir) runs, alternating, the median of the per-pair ratios
   time(memcpy) / time(taskir); targets >= 0.5 in cache, >= 0.8 out of
   cache. Each target ends with a pass-count line. Usage:
   bench_transpose_numpy [trials] [layout] [4k] (default 5 trials, more on
   a loaded machine; "layout" runs the NCHW <-> NHWC part only).
   Memory: numpy's allocator asks Linux for transparent huge pages on every
   array of 4 MiB or more (madvise(MADV_HUGEPAGE) from the first page
   boundary on; numpy's default since 1.16, np.core.multiarray.
   _set_madvise_hugepage), and on large arrays that alone is worth 5-25%.
   This program allocates its buffers (the taskir side, and memcpy's) the
   same way, so both sides run on the same kind of pages; "4k" turns it off
   on both sides (plain malloc here, _set_madvise_hugepage(False) in numpy). */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE   /* madvise, MADV_HUGEPAGE (Linux) */
#define TASKIR_IMPLEMENTATION
#include "taskir_kernels.h"
#include "bench_check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <signal.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);   /* wall time, as perf_counter */
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* malloc as numpy's allocator does it: huge pages advised on blocks of
   4 MiB or more, from the first page boundary on (HUGE = 0: plain malloc) */
static int HUGE = 1;
static void *np_malloc(size_t bytes) {
  void *p = malloc(bytes);
#if defined(MADV_HUGEPAGE)
  if (p && HUGE && bytes >= ((size_t)1 << 22)) {
    const size_t off = 4096 - (size_t)((uintptr_t)p % 4096);
    (void)madvise((char *)p + off, bytes - off, MADV_HUGEPAGE);  /* advice only: no check */
  }
#endif
  return p;
}

#define MAXC 128
#define MAXTRIALS 31
static int TRIALS = 5;
typedef struct tcase { int nd; int64_t d[6]; int perm[6]; int64_t n; int es; } tcase;

static tcase cases[MAXC];
static int ncases;

static void add_es(int nd, const int64_t *d, const int *perm, int es) {
  tcase *c;
  int a;
  for (a = 0; a < nd && perm[a] == a; ++a) {}
  if (a == nd) return;   /* identity: numpy returns its input, no copy to compare */
  c = &cases[ncases++];
  c->nd = nd;
  c->es = es;
  c->n = 1;
  for (a = 0; a < nd; ++a) { c->d[a] = d[a]; c->perm[a] = perm[a]; c->n *= d[a]; }
}
static void add(int nd, const int64_t *d, const int *perm) { add_es(nd, d, perm, 4); }
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

/* The element types by size (as numpy's names), and the values: position
   % VMOD[es] (small integers, exact in each type). */
static const char *const TNAME[9] = {0, "int8", "int16", 0, "float32", 0, 0, 0, "float64"};
static const int VMOD[9] = {0, 61, 61, 0, 4099, 0, 0, 0, 61};
static double elem(const void *p, int es, int64_t i) {
  switch (es) {
  case 1: return ((const int8_t *)p)[i];
  case 2: return ((const int16_t *)p)[i];
  case 4: return ((const float *)p)[i];
  default: return ((const double *)p)[i];
  }
}
static void fill_es(void *p, int es, int64_t n) {
  int64_t i;
  for (i = 0; i < n; ++i) {
    const int v = (int)(i % VMOD[es]);
    switch (es) {
    case 1: ((int8_t *)p)[i] = (int8_t)v; break;
    case 2: ((int16_t *)p)[i] = (int16_t)v; break;
    case 4: ((float *)p)[i] = (float)v; break;
    default: ((double *)p)[i] = v; break;
    }
  }
}
/* sum of value * (position % 1009) over the output */
static long long checksum(const void *y, int es, int64_t n) {
  long long s = 0;
  int64_t i;
  for (i = 0; i < n; ++i) s += (long long)elem(y, es, i) * (long long)(i % 1009);
  return s;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The numpy peer: /usr/bin/python3 running the case script, reading case
   numbers from its stdin and answering "seconds checksum" on its stdout. */
typedef struct np_peer { FILE *w, *r; pid_t pid; } np_peer;

static int np_start(np_peer *p, const char *script) {
  int to[2], from[2];
  if (pipe(to) != 0) return 0;
  if (pipe(from) != 0) { close(to[0]); close(to[1]); return 0; }
  fflush(stdout);
  p->pid = fork();
  if (p->pid == 0) {
    dup2(to[0], 0); dup2(from[1], 1); dup2(from[1], 2);
    close(to[0]); close(to[1]); close(from[0]); close(from[1]);
    setenv("OMP_NUM_THREADS", "1", 1);
    setenv("OPENBLAS_NUM_THREADS", "1", 1);
    execl("/usr/bin/python3", "python3", script, (char *)NULL);
    _exit(127);
  }
  close(to[0]); close(from[1]);
  if (p->pid < 0) { close(to[1]); close(from[0]); return 0; }
  p->w = fdopen(to[1], "w");
  p->r = fdopen(from[0], "r");
  return p->w && p->r;
}

/* numpy's time for case k (and its checksum when sum); 0 when the peer
   failed, its output printed. */
static int np_case(np_peer *p, int k, int sum, double *secs, long long *cs) {
  char line[256];
  fprintf(p->w, "%d %d\n", k, sum);
  fflush(p->w);
  if (!fgets(line, sizeof line, p->r)) return 0;
  if (sscanf(line, "%lf %lld", secs, cs) == 2) return 1;
  fputs(line, stdout);
  while (fgets(line, sizeof line, p->r)) fputs(line, stdout);
  return 0;
}

static void np_stop(np_peer *p) {
  char line[256];
  fclose(p->w);
  while (fgets(line, sizeof line, p->r)) {}
  fclose(p->r);
  waitpid(p->pid, NULL, 0);
}

/* NCHW <-> NHWC against memcpy of the same bytes: returns the median of
   per-pair ratios time(memcpy) / time(taskir) over `pairs` alternating
   pairs; each timing repeats the call for >= 10 ms. */
static double vs_memcpy(const ti_kernel_ctx *ctx, const int64_t *d, const int *perm, int pairs,
                        double *gbs_t, double *gbs_m) {
  int64_t n = d[0] * d[1] * d[2] * d[3], i;
  size_t bytes = (size_t)n * 4;
  float *x = (float *)np_malloc(bytes), *y = (float *)np_malloc(bytes), *z = (float *)np_malloc(bytes);
  double r[MAXTRIALS * 2 + 1], tt[MAXTRIALS * 2 + 1], tm[MAXTRIALS * 2 + 1], med;
  int p, w;
  if (!x || !y || !z) { printf("allocation failed\n"); exit(1); }
  for (i = 0; i < n; ++i) x[i] = (float)(i % 4099);
  memset(y, 0, bytes); memset(z, 0, bytes);
  for (p = 0; p < pairs; ++p) {
    double t[2];
    for (w = 0; w < 2; ++w) {
      long reps = 1, k;
      double t0, dt;
      for (;;) {
        t0 = now();
        for (k = 0; k < reps; ++k) {
          if (w == 0) memcpy(z, x, bytes);
          else BENCH_OK(ti_transpose_ex(ctx, 4, 4, d, perm, x, y));
        }
        dt = now() - t0;
        if (dt >= 0.01) break;
        reps *= 2;
      }
      t[w] = dt / (double)reps;
    }
    tm[p] = t[0]; tt[p] = t[1]; r[p] = t[0] / t[1];
  }
  qsort(r, (size_t)pairs, sizeof(double), cmp_double);
  qsort(tt, (size_t)pairs, sizeof(double), cmp_double);
  qsort(tm, (size_t)pairs, sizeof(double), cmp_double);
  med = r[pairs / 2];
  *gbs_t = 2.0 * (double)bytes / 1e9 / tt[pairs / 2];
  *gbs_m = 2.0 * (double)bytes / 1e9 / tm[pairs / 2];
  {  /* spot check against the definition */
    const int64_t od[4] = {d[perm[0]], d[perm[1]], d[perm[2]], d[perm[3]]};
    int64_t o[4];
    for (i = 0; i < n; i += 9973) {
      int64_t q = i, ii[4], off = 0;
      int a;
      for (a = 3; a >= 0; --a) { o[a] = q % od[a]; q /= od[a]; }
      for (a = 0; a < 4; ++a) ii[perm[a]] = o[a];
      for (a = 0; a < 4; ++a) off = off * d[a] + ii[a];
      if (y[i] != x[off]) { printf("NCHW/NHWC: wrong output at %lld\n", (long long)i); exit(1); }
    }
  }
  free(x); free(y); free(z);
  return med;
}

int main(int argc, char **argv) {
  static const int64_t d2s[2] = {48, 40}, d2l[2] = {2048, 2048};
  static const int64_t d3s[3] = {12, 20, 24}, d3l[3] = {96, 160, 192};
  static const int64_t d4s[4] = {6, 10, 12, 16}, d4l[4] = {24, 40, 48, 64};
  static const int64_t d6l[6] = {8, 16, 12, 10, 14, 6}, d6s[6] = {2, 4, 3, 5, 4, 6};
  static const int64_t pul[6] = {2, 64, 56, 2, 56, 2}, pus[6] = {1, 8, 14, 2, 14, 2};
  static const int p6[6] = {5, 3, 1, 4, 2, 0}, pu[6] = {0, 1, 3, 5, 2, 4};
  static const int64_t ahl[4] = {16, 512, 16, 64};
  static const int ah[4] = {0, 2, 1, 3};
  static const int64_t nchw[2][4] = {{1, 64, 56, 56}, {8, 256, 56, 56}}, nhwc[2][4] = {{1, 56, 56, 64}, {8, 56, 56, 256}};
  static const int tohwc[4] = {0, 2, 3, 1}, tochw[4] = {0, 3, 1, 2}, sizes[3] = {1, 2, 8};
  char script[64] = "/tmp/bench_transpose_numpy_XXXXXX";
  static double np_t[MAXTRIALS][MAXC], ti_t[MAXTRIALS][MAXC];
  long long np_s[MAXC];
  int perm[6], k, trial, fd, have_np = 1;
  int64_t maxn[9] = {0};
  void *xs[9] = {0}, *y;
  size_t maxb = 0;
  FILE *f;
  np_peer peer = {0, 0, 0};
  ti_kernel_ctx ctx;
  ti_kernel_ctx_init(&ctx);
  if (argc > 1) TRIALS = atoi(argv[1]);
  if (TRIALS < 1 || TRIALS > MAXTRIALS) { printf("usage: %s [trials 1..%d] [layout] [4k]\n", argv[0], MAXTRIALS); return 1; }
  for (k = 2; k < argc; ++k) HUGE &= strcmp(argv[k], "4k") != 0;
  printf("pages: %s\n", HUGE ? "huge pages advised on buffers >= 4 MiB on both sides (numpy's default)"
                              : "4 KiB on both sides (\"4k\": numpy's huge-page advice off)");
  for (k = 2; k < argc; ++k)
    if (strcmp(argv[k], "layout") == 0) goto layout;
  for (k = 0; k < 2; ++k) { perm[0] = 0; perm[1] = 1; add_all(2, k ? d2l : d2s, perm, 0); }
  for (k = 0; k < 2; ++k) { perm[0] = 0; perm[1] = 1; perm[2] = 2; add_all(3, k ? d3l : d3s, perm, 0); }
  for (k = 0; k < 2; ++k) { perm[0] = 0; perm[1] = 1; perm[2] = 2; perm[3] = 3; add_all(4, k ? d4l : d4s, perm, 0); }
  add(6, d6s, p6); add(6, d6l, p6); add(6, pus, pu); add(6, pul, pu);
  add(4, ahl, ah);
  for (k = 0; k < 6; ++k) {
    add_es(4, nchw[k % 2], tohwc, sizes[k / 2]);
    add_es(4, nhwc[k % 2], tochw, sizes[k / 2]);
  }
  for (k = 0; k < ncases; ++k) {
    const tcase *c = &cases[k];
    if (c->n > maxn[c->es]) maxn[c->es] = c->n;
    if ((size_t)c->n * (size_t)c->es > maxb) maxb = (size_t)c->n * (size_t)c->es;
  }
  y = np_malloc(maxb);
  if (!y) { printf("allocation failed\n"); return 1; }
  for (k = 1; k <= 8; ++k)
    if (maxn[k]) {
      if (!(xs[k] = np_malloc((size_t)maxn[k] * (size_t)k))) { printf("allocation failed\n"); return 1; }
      fill_es(xs[k], k, maxn[k]);
    }
  /* the numpy side: the same cases, the same values */
  fd = mkstemp(script);
  if (fd < 0 || !(f = fdopen(fd, "w"))) { printf("numpy peer skipped: no temporary file\n"); have_np = 0; f = NULL; }
  if (f) {
    fprintf(f, "import sys, time\ntry:\n    import numpy as np\nexcept ImportError:\n    print('numpy missing'); sys.exit(0)\n"
               "%s"
               "cases = [\n", HUGE ? "" : "np.core.multiarray._set_madvise_hugepage(False)\n");
    for (k = 0; k < ncases; ++k) {
      int a;
      fprintf(f, "  ((");
      for (a = 0; a < cases[k].nd; ++a) fprintf(f, "%lld,", (long long)cases[k].d[a]);
      fprintf(f, "), (");
      for (a = 0; a < cases[k].nd; ++a) fprintf(f, "%d,", cases[k].perm[a]);
      fprintf(f, "), np.%s, %d),\n", TNAME[cases[k].es], VMOD[cases[k].es]);
    }
    fprintf(f, "]\nlast = -1\nfor line in sys.stdin:\n"
               "    k, want = (int(v) for v in line.split())\n"
               "    d, p, dt, m = cases[k]\n"
               "    if k != last:\n"
               "        n = 1\n        for v in d: n *= v\n"
               "        x = (np.arange(n, dtype=np.int64) %% m).astype(dt).reshape(d)\n"
               "        last = k\n"
               "    s = 0\n"
               "    if want:\n"
               "        y = np.ascontiguousarray(x.transpose(p))\n"
               "        s = int((y.ravel().astype(np.int64) * (np.arange(n, dtype=np.int64) %% 1009)).sum())\n"
               "        del y\n"
               "    reps = 1\n"
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
  signal(SIGPIPE, SIG_IGN);   /* a peer that died is reported by np_case */
  if (have_np && !np_start(&peer, script)) { printf("numpy peer skipped: could not start /usr/bin/python3\n"); have_np = 0; }
  for (trial = 0; trial < TRIALS; ++trial) {
    for (k = 0; k < ncases; ++k) {
      const tcase *c = &cases[k];
      long reps = 1, r;
      long long cs;
      double t0, t;
      if (have_np && trial % 2 == 0 && !np_case(&peer, k, trial == 0, &np_t[trial][k], trial == 0 ? &np_s[k] : &cs)) {
        printf("numpy peer skipped: /usr/bin/python3 with numpy did not run (output above)\n");
        have_np = 0;
      }
      if (ti_transpose_ex(&ctx, (size_t)c->es, c->nd, c->d, c->perm, xs[c->es], y) != TI_STATUS_SUCCESS) {
        printf("transpose failed\n");
        return 1;
      }
      if (have_np && trial == 0 && checksum(y, c->es, c->n) != np_s[k]) {
        printf("case %d: taskir and numpy disagree\n", k);
        return 1;
      }
      for (;;) {
        t0 = now();
        for (r = 0; r < reps; ++r) BENCH_OK(ti_transpose_ex(&ctx, (size_t)c->es, c->nd, c->d, c->perm, xs[c->es], y));
        t = now() - t0;
        if (t >= 0.02) break;
        reps *= 2;
      }
      ti_t[trial][k] = t / (double)reps;
      if (have_np && trial % 2 == 1 && !np_case(&peer, k, 0, &np_t[trial][k], &cs)) {
        printf("numpy peer skipped: /usr/bin/python3 with numpy did not run (output above)\n");
        have_np = 0;
      }
    }
  }
  if (peer.w) np_stop(&peer);
  remove(script);
  printf("%-26s %-14s %-8s %9s %9s %9s %7s\n", "shape", "perm", "type", "MB", "taskir GB/s", "numpy GB/s", "ratio");
  {
    double worst = 1e30;
    int npass = 0;
    for (k = 0; k < ncases; ++k) {
      const tcase *c = &cases[k];
      char sd[64], sp[32];
      const double mb = (double)c->n * c->es / 1e6, gb = 2.0 * mb / 1e3;
      double r[MAXTRIALS], a[MAXTRIALS], b[MAXTRIALS];
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
      qsort(a, (size_t)TRIALS, sizeof(double), cmp_double);
      qsort(b, (size_t)TRIALS, sizeof(double), cmp_double);
      qsort(r, (size_t)TRIALS, sizeof(double), cmp_double);
      if (have_np) {
        printf("%-26s %-14s %-8s %9.2f %11.2f %10.2f %7.2f%s\n", sd, sp, TNAME[c->es], mb, gb / a[TRIALS / 2],
               gb / b[TRIALS / 2], r[TRIALS / 2], r[TRIALS / 2] < 1.0 ? "  <" : "");
        if (r[TRIALS / 2] < worst) worst = r[TRIALS / 2];
        npass += r[TRIALS / 2] >= 1.0;
      } else {
        printf("%-26s %-14s %-8s %9.2f %11.2f %10s %7s\n", sd, sp, TNAME[c->es], mb, gb / a[TRIALS / 2], "-", "-");
      }
    }
    if (have_np) {
      printf("worst taskir/numpy %.2f over %d cases; numpy %s, %d trials\n", worst, ncases,
             "from /usr/bin/python3", TRIALS);
      printf("PASS %d of %d cases >= 1.0x numpy (target: all)\n", npass, ncases);
    }
  }
  for (k = 1; k <= 8; ++k) free(xs[k]);
  free(y);
layout:
  {
    static const int64_t sh[4][4] = {{1, 256, 56, 56}, {1, 56, 56, 256}, {1, 256, 224, 224}, {1, 224, 224, 256}};
    static const int pp[4][4] = {{0, 2, 3, 1}, {0, 3, 1, 2}, {0, 2, 3, 1}, {0, 3, 1, 2}};
    static const char *const nm[4] = {"NCHW->NHWC 1x256x56x56", "NHWC->NCHW 1x56x56x256",
                                      "NCHW->NHWC 1x256x224x224", "NHWC->NCHW 1x224x224x256"};
    int pass[2] = {0, 0};
    printf("%-28s %9s %11s %11s %7s %7s\n", "layout (f32)", "MB", "taskir GB/s", "memcpy GB/s", "ratio", "target");
    for (k = 0; k < 4; ++k) {
      double gt, gm, q = vs_memcpy(&ctx, sh[k], pp[k], 2 * TRIALS + 1, &gt, &gm);
      const double target = k < 2 ? 0.5 : 0.8;
      printf("%-28s %9.1f %11.2f %11.2f %7.2f %7.1f%s\n", nm[k], (double)(sh[k][1] * sh[k][2] * sh[k][3]) * 4 / 1e6,
             gt, gm, q, target, q < target ? "  <" : "");
      pass[k >= 2] += q >= target;
    }
    printf("PASS %d of 2 NCHW<->NHWC in cache >= 0.5x memcpy\n", pass[0]);
    printf("PASS %d of 2 NCHW<->NHWC out of cache >= 0.8x memcpy\n", pass[1]);
    printf("(GB/s counts bytes read + written; medians of %d alternating pairs. Rerun on a quiet machine:\n"
           " make build/bench/bench_transpose_numpy && build/bench/bench_transpose_numpy %d)\n", 2 * TRIALS + 1, TRIALS);
  }
  return 0;
}
