/* Two-thread speed-up of the kernels through ti_kernel_ctx.parallel_for,
   driven by the pool of tools/taskir_pool.h: a large int8 conv (packed
   weights), CVM with weights far beyond L2, and a large TinShift forward and
   backward. Each case first checks that the two-thread output equals the
   one-thread output byte for byte; then 1- and 2-thread calls alternate
   (1, 2, 2, 1, ...) and the figure is the median of the per-pair ratios of
   wall-clock times, so a slow phase of a shared machine slows both sides.
   The ResNet-like graph through the executor is in bench_exec.

   First, what the hardware gives: the same pool and the same paired runs on
   pure compute loops in registers (no memory traffic), a chain of dependent
   scalar multiply-adds (latency-bound: two hardware threads of one core
   still reach ~2x) and vpdpbusd on 12 independent zmm chains (port-bound:
   ~2x only on two cores, ~1x on two SMT siblings), plus the pool's cost per
   call. These ceilings are what the kernels' speed-ups are to be judged
   against; the memory-bound TinShift rows are judged against a copy of
   the same bytes on 1 and 2 threads (bench_print_copy_ceiling): the
   second thread gains only what one core leaves of the memory bandwidth.
   The load average, the online CPUs and their SMT siblings are printed:
   on a machine with other work the second thread shares a core
   and all ratios are capped (rerun on idle cores:
   `make build/bench/bench_threads && build/bench/bench_threads`).
   `bench_threads trace` times every chunk of split convs (see trace_case). */
#define _POSIX_C_SOURCE 199309L
#define TASKIR_IMPLEMENTATION
#include "taskir_kernels.h"
#include "bench_check.h"
#include "tools/taskir_pool.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "bench_ceiling.h"

static double wall(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
static void loadavg(const char *when) {
  FILE *f = fopen("/proc/loadavg", "r");
  char buf[128] = "unknown\n";
  if (f) { if (!fgets(buf, sizeof buf, f)) strcpy(buf, "unknown\n"); fclose(f); }
  printf("load average %s: %s", when, buf);
}

static void cpu_topology(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN), i;
  printf("online CPUs: %ld; SMT siblings per CPU (sysfs thread_siblings_list):", n);
  for (i = 0; i < n && i < 8; i++) {
    char path[96], buf[64] = "?";
    FILE *f;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%ld/topology/thread_siblings_list", i);
    if ((f = fopen(path, "r"))) { if (!fgets(buf, sizeof buf, f)) strcpy(buf, "?"); fclose(f); }
    buf[strcspn(buf, "\n")] = 0;
    printf(" cpu%ld: %s;", i, buf);
  }
  printf(" (a virtual machine may not show that two vCPUs share a core)\n");
}

static uint32_t rs = 12345;
static int32_t rnd(int32_t lo, int32_t hi) { rs = rs * 1664525u + 1013904223u; return lo + (int32_t)((rs >> 8) % (uint32_t)(hi - lo + 1)); }

typedef struct kcase {
  const char *name;
  int kind;                  /* 0 conv (packed), 1 CVM, 2 TinShift */
  ti_prim_desc d;
  void *in, *w, *bias, *scratch, *out;
  size_t sb, pb, out_bytes;
  ti_tensor_desc xd, sd;
  ti_tinshift_mode mode;
  double work;               /* MACs or bytes moved per call */
  const char *unit;
} kcase;

static ti_status call(const kcase *k, const ti_kernel_ctx *ctx, void *out) {
  switch (k->kind) {
  case 0: return ti_cc_packed(ctx, &k->d, k->in, k->w, k->pb, k->bias, out, k->scratch, k->sb);
  case 1: return ti_cvm(ctx, &k->d, k->in, k->w, k->bias, out, k->scratch, k->sb);
  default: return ti_tinshift_ex(ctx, k->mode, &k->xd, k->in, &k->sd, k->w, &k->xd, out);
  }
}

/* Calls per timed sample: about 20 ms of one-thread work. */
static int reps_for(const kcase *k, const ti_kernel_ctx *c1) {
  double t0 = wall(), t;
  int n = 0;
  do { call(k, c1, k->out); n++; t = wall() - t0; } while (t < 0.02 && n < 1000);
  return n;
}

static void run_case(kcase *k, ti_pool *pool, int pairs) {
  ti_kernel_ctx c1, c2;
  unsigned char *o2 = (unsigned char *)malloc(k->out_bytes);
  double *r = (double *)malloc((size_t)pairs * sizeof *r), *t1 = (double *)malloc((size_t)pairs * sizeof *t1),
         *t2 = (double *)malloc((size_t)pairs * sizeof *t2);
  int i, j, reps;
  ti_kernel_ctx_init(&c1);
  c2 = c1;
  c2.parallel_for = ti_pool_parallel_for; c2.parallel_user = pool;
  memset(k->out, 0x11, k->out_bytes); memset(o2, 0x22, k->out_bytes);
  if (call(k, &c1, k->out) != TI_STATUS_SUCCESS || call(k, &c2, o2) != TI_STATUS_SUCCESS) {
    printf("%-34s FAILED (status)\n", k->name); goto done;
  }
  if (memcmp(k->out, o2, k->out_bytes) != 0) { printf("%-34s FAILED (2 threads differ from 1)\n", k->name); goto done; }
  reps = reps_for(k, &c1);
  for (i = 0; i < pairs; i++) {
    int s;
    for (s = 0; s < 2; s++) {
      int two = (i & 1) ? 1 - s : s;
      double t0 = wall();
      for (j = 0; j < reps; j++) call(k, two ? &c2 : &c1, two ? o2 : k->out);
      (two ? t2 : t1)[i] = (wall() - t0) / reps;
    }
    r[i] = t1[i] / t2[i];
  }
  qsort(r, (size_t)pairs, sizeof *r, cmp_d);
  qsort(t1, (size_t)pairs, sizeof *t1, cmp_d);
  qsort(t2, (size_t)pairs, sizeof *t2, cmp_d);
  printf("%-34s %10.3f %10.3f %8.1f %8.1f %s   %5.2fx  [%4.2f .. %4.2f] %s\n", k->name, t1[pairs / 2] * 1e3,
         t2[pairs / 2] * 1e3, k->work / t1[pairs / 2] * 1e-9, k->work / t2[pairs / 2] * 1e-9, k->unit,
         r[pairs / 2], r[pairs / 4], r[pairs - 1 - pairs / 4], strstr(k->name, "(not split)") ? "(below TASKIR_TINSHIFT_SPLIT_BYTES: one thread, no target)"
         : r[pairs / 2] >= BENCH_THREADS_TARGET ? "PASS" : "FAIL");
done:
  free(o2); free(r); free(t1); free(t2);
}

static void conv_case(kcase *k, const char *name, int hw, int c, int f) {
  size_t ni = (size_t)hw * hw * c, nw = (size_t)f * c * 9, i;
  int8_t *w8;
  memset(k, 0, sizeof *k);
  k->name = name; k->kind = 0; k->unit = "GMAC/s";
  k->d.niy = k->d.nix = k->d.ny = k->d.nx = hw; k->d.nr = c; k->d.nf = f; k->d.nky = k->d.nkx = 3;
  k->d.pad_up = k->d.pad_down = k->d.pad_left = k->d.pad_right = 1;
  k->d.in_dtype = k->d.w_dtype = TI_DTYPE_I8; k->d.out_dtype = TI_DTYPE_I32; k->d.bias_mode = TI_BIAS_VECTOR;
  k->in = malloc(ni); w8 = (int8_t *)malloc(nw); k->bias = malloc((size_t)f * 4);
  for (i = 0; i < ni; i++) ((int8_t *)k->in)[i] = (int8_t)rnd(-128, 127);
  for (i = 0; i < nw; i++) w8[i] = (int8_t)rnd(-128, 127);
  for (i = 0; i < (size_t)f; i++) ((int32_t *)k->bias)[i] = rnd(-1000, 1000);
  BENCH_OK(ti_cc_pack_size(&k->d, &k->pb));
  BENCH_OK(ti_cc_scratch_size(&k->d, 1, &k->sb));
  k->w = malloc(k->pb); k->scratch = malloc(k->sb ? k->sb : 1);
  BENCH_OK(ti_cc_pack_weights(&k->d, w8, k->w, k->pb));
  free(w8);
  k->out_bytes = (size_t)hw * hw * f * 4; k->out = malloc(k->out_bytes);
  k->work = (double)hw * hw * f * c * 9;
}

static void cvm_case(kcase *k, const char *name, int nr, int nf, ti_dtype tw) {
  size_t nw = (size_t)nr * nf, i;
  memset(k, 0, sizeof *k);
  k->name = name; k->kind = 1; k->unit = "GB/s W";
  k->d.ny = k->d.nx = 1; k->d.nr = nr; k->d.nf = nf; k->d.in_dtype = TI_DTYPE_I8; k->d.w_dtype = tw;
  k->d.out_dtype = TI_DTYPE_I32; k->d.bias_mode = TI_BIAS_VECTOR;
  k->in = malloc((size_t)nr); k->w = malloc(nw); k->bias = malloc((size_t)nf * 4);
  for (i = 0; i < (size_t)nr; i++) ((int8_t *)k->in)[i] = (int8_t)rnd(-128, 127);
  for (i = 0; i < nw; i++) ((int8_t *)k->w)[i] = (int8_t)(tw == TI_DTYPE_TERNARY ? rnd(-1, 1) : rnd(-128, 127));
  for (i = 0; i < (size_t)nf; i++) ((int32_t *)k->bias)[i] = rnd(-1000, 1000);
  BENCH_OK(ti_cvm_scratch_size(&k->d, &k->sb));
  k->scratch = malloc(k->sb ? k->sb : 1);
  k->out_bytes = (size_t)nf * 4; k->out = malloc(k->out_bytes);
  k->work = (double)nw;
}

static void ts_case(kcase *k, const char *name, ti_tinshift_mode mode, int64_t N, int64_t T, int64_t C, int64_t HW, int64_t G) {
  int64_t xd[4], sd[2];
  size_t n = (size_t)(N * T * C * HW), i;
  memset(k, 0, sizeof *k);
  k->name = name; k->kind = 2; k->mode = mode; k->unit = "GB/s  ";
  xd[0] = N; xd[1] = T; xd[2] = C; xd[3] = HW; sd[0] = N; sd[1] = G;
  ti_tensor_desc_set(&k->xd, TI_DTYPE_F32, 4, xd);
  ti_tensor_desc_set(&k->sd, TI_DTYPE_I32, 2, sd);
  k->in = malloc(n * 4); k->w = malloc((size_t)(N * G) * 4);
  for (i = 0; i < n; i++) ((float *)k->in)[i] = (float)rnd(-1000, 1000);
  for (i = 0; i < (size_t)(N * G); i++) ((int32_t *)k->w)[i] = rnd(-2, 2);
  k->out_bytes = n * 4; k->out = malloc(k->out_bytes);
  k->work = 2.0 * (double)n * 4;   /* read + written */
}

static void free_case(kcase *k) { free(k->in); free(k->w); free(k->bias); free(k->scratch); free(k->out); }

/* `bench_threads tinshift`: the 2-thread speed-up of TinShift forward,
   f32, 1 KiB runs (C = 2048, G = 8, HW = 1, T = 8) from 64 KiB to 16 MiB:
   where splitting stops losing (the kernel's TI__TS_SPLIT_BYTES). */
static void tinshift_sweep(ti_pool *pool, int pairs) {
  int64_t N;
  kcase k;
  char name[64];
  for (N = 1; N <= 256; N *= 2) {
    snprintf(name, sizeof name, "TinShift fwd f32 %lldx8x2048x1 %lld KiB", (long long)N, (long long)N * 64);
    ts_case(&k, name, TI_TINSHIFT_FORWARD, N, 8, 2048, 1, 8);
    run_case(&k, pool, pairs);
    free_case(&k);
  }
}

/* `bench_threads trace`: where the time of a split conv goes. Every chunk
   the pool runs is timed (start, end, thread) through a wrapping hook; per
   call: the worker's join latency (first worker chunk start after the call
   entered the hook), time per item on each thread against one thread alone
   (a slower item on two threads: shared caches, memory or frequency), the
   tail (one thread idle while the other runs its last chunk) and the time
   outside the kernel's last parallel_for call (its serial staging, and the
   padding of the int8 path, itself split by rows in a call before). Medians
   over the calls, then one call's chunks. */
typedef struct tchunk { double t0, t1; int64_t b, e; int worker; } tchunk;
typedef struct tracer {
  ti_pool *pool;
  pthread_t caller;
  ti_range_fn fn;
  void *arg;
  double tin, tout;
  int64_t items;
  int n;
  tchunk c[1024];
} tracer;
static void trace_range(void *a, int64_t b, int64_t e) {
  tracer *t = (tracer *)a;
  double t0 = wall(), t1;
  int i;
  t->fn(t->arg, b, e);
  t1 = wall();
  i = __atomic_fetch_add(&t->n, 1, __ATOMIC_RELAXED);
  if (i < 1024) { t->c[i].t0 = t0; t->c[i].t1 = t1; t->c[i].b = b; t->c[i].e = e; t->c[i].worker = !pthread_equal(pthread_self(), t->caller); }
}
static void trace_for(void *user, int64_t n, ti_range_fn fn, void *arg) {
  tracer *t = (tracer *)user;
  t->fn = fn; t->arg = arg; t->n = 0; t->items = n;
  t->tin = wall();
  ti_pool_parallel_for(t->pool, n, trace_range, t);
  t->tout = wall();
}
static double med(double *v, int n) { qsort(v, (size_t)n, sizeof *v, cmp_d); return v[n / 2]; }
static void trace_case(kcase *k, ti_pool *pool) {
  enum { R = 41 };
  static tracer t;
  ti_kernel_ctx c1, c2;
  double one[R], tot[R], out[R], join[R], ic[R], iw[R], tail[R], share[R];
  int r, i, nj = 0, nw = 0;
  ti_kernel_ctx_init(&c1);
  c2 = c1; c2.parallel_for = trace_for; c2.parallel_user = &t;
  t.pool = pool; t.caller = pthread_self();
  for (r = 0; r < 5; r++) BENCH_OK(call(k, &c1, k->out));
  for (r = 0; r < R; r++) {
    double a = wall(), ce = 0, we = 0, cb = 0, wb = 0, first = -1;
    int64_t cn = 0, wn = 0;
    BENCH_OK(call(k, &c1, k->out));
    one[r] = wall() - a;
    a = wall();
    BENCH_OK(call(k, &c2, k->out));
    tot[r] = wall() - a;
    out[r] = tot[r] - (t.tout - t.tin);
    for (i = 0; i < t.n && i < 1024; i++) {
      const tchunk *c = &t.c[i];
      if (c->worker) { wb += c->t1 - c->t0; wn += c->e - c->b; if (c->t1 > we) we = c->t1; if (first < 0 || c->t0 < first) first = c->t0; }
      else { cb += c->t1 - c->t0; cn += c->e - c->b; if (c->t1 > ce) ce = c->t1; }
    }
    share[r] = (double)wn / (double)t.items;
    ic[r] = cn ? cb / (double)cn : 0;
    if (wn) { iw[nw++] = wb / (double)wn; join[nj++] = first - t.tin; }
    tail[r] = wn ? (ce > we ? ce - we : we - ce) : 0;
  }
  printf("%-34s 1 thr %7.1f us (%.3f us/item, %lld items); 2 thr %7.1f us: worker joined in %d/%d calls after %.1f us,\n"
         "%34s worker share %.0f%%, us/item caller %.3f worker %.3f, tail %.1f us, outside the split %.1f us\n",
         k->name, med(one, R) * 1e6, med(one, R) * 1e6 / (double)t.items, (long long)t.items, med(tot, R) * 1e6,
         nj, R, nj ? med(join, nj) * 1e6 : 0.0, "", med(share, R) * 100, med(ic, R) * 1e6, nw ? med(iw, nw) * 1e6 : 0.0,
         med(tail, R) * 1e6, med(out, R) * 1e6);
  printf("%34s last call's chunks (thread [begin, end) start..end us):", "");
  for (i = 0; i < t.n && i < 1024; i++)
    printf("%s %c[%lld,%lld) %.1f..%.1f", i % 4 ? ";" : "\n   ", t.c[i].worker ? 'W' : 'C', (long long)t.c[i].b,
           (long long)t.c[i].e, (t.c[i].t0 - t.tin) * 1e6, (t.c[i].t1 - t.tin) * 1e6);
  printf("\n");
}

int main(int argc, char **argv) {
  ti_pool *pool;
  kcase k;
  const int pairs = 15;
  if (ti_pool_create(&pool, 2) != 0) { printf("could not start a second thread\n"); return 1; }
  if (argc > 1 && strcmp(argv[1], "tinshift") == 0) {
    loadavg("before");
    printf("%-34s %10s %10s %8s %8s %6s   %s\n", "case", "1 thr ms", "2 thr ms", "1 thr", "2 thr", "rate", "speed-up");
    tinshift_sweep(pool, pairs);
    loadavg("after");
    ti_pool_free(pool);
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "trace") == 0) {
    loadavg("before");
    conv_case(&k, "CC int8 56x56x64->64 3x3 p1", 56, 64, 64); trace_case(&k, pool); free_case(&k);
    conv_case(&k, "CC int8 28x28x128->128 3x3 p1", 28, 128, 128); trace_case(&k, pool); free_case(&k);
    conv_case(&k, "CC int8 32x32x32->32 3x3 p1", 32, 32, 32); trace_case(&k, pool); free_case(&k);
    bench_print_ceilings(pool, 31);
    loadavg("after");
    ti_pool_free(pool);
    return 0;
  }
  loadavg("before");
  cpu_topology();
  printf("2 threads (the caller + 1 pool worker) against 1, wall clock per call; speed-up = median of %d\n"
         "per-pair ratios of alternating runs [quartiles]; outputs checked identical first\n", pairs);
  printf("%-34s %10s %10s %8s %8s %6s   %s\n", "case", "1 thr ms", "2 thr ms", "1 thr", "2 thr", "rate", "speed-up");
  bench_print_ceilings(pool, 31);
  conv_case(&k, "CC int8 56x56x64->64 3x3 p1", 56, 64, 64); run_case(&k, pool, pairs); free_case(&k);
  conv_case(&k, "CC int8 28x28x128->128 3x3 p1", 28, 128, 128); run_case(&k, pool, pairs); free_case(&k);
  cvm_case(&k, "CVM int8 4096x8192 (32 MiB W)", 8192, 4096, TI_DTYPE_I8); run_case(&k, pool, pairs); free_case(&k);
  cvm_case(&k, "CVM ternary 4096x8192 (32 MiB W)", 8192, 4096, TI_DTYPE_TERNARY); run_case(&k, pool, pairs); free_case(&k);
  ts_case(&k, "TinShift fwd f32 4x8x128x56x56", TI_TINSHIFT_FORWARD, 4, 8, 128, 3136, 8); run_case(&k, pool, pairs); free_case(&k);
  ts_case(&k, "TinShift bwd f32 4x8x128x56x56", TI_TINSHIFT_BACKWARD, 4, 8, 128, 3136, 8); run_case(&k, pool, pairs); free_case(&k);
  ts_case(&k, "TinShift 16x8x2048x1 (not split)", TI_TINSHIFT_FORWARD, 16, 8, 2048, 1, 8); run_case(&k, pool, pairs); free_case(&k);
  /* the 56x56 TinShift cases move 51 MB in and 51 MB out: their memory ceiling */
  bench_print_copy_ceiling(pool, (size_t)4 * 8 * 128 * 3136 * 4, pairs);
  bench_print_ceilings(pool, 31);   /* again: the load may have changed meanwhile */
  loadavg("after");
  printf("target: >= %.1fx on 2 idle cores (PASS/FAIL after each speed-up); judge each speed-up against the ceilings above, measured in the same\n"
         "conditions: with the load average near or above the core count the second thread shares a core with\n"
         "other work and the ceilings (and every figure) drop towards 1x. The TinShift rows are memory-bound (51 MB\n"
         "in, 51 MB out): judge them against the copy's speed-up (best loop each) printed after them\n", BENCH_THREADS_TARGET);
  ti_pool_free(pool);
  return 0;
}
