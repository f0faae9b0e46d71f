/* bench_lower: lowering (layout passes + ti_lower_to_task, checker
   included) is linear in the program size. Builds integer DAGs of n ops on
   [1,4,6,6] i8 data (every 4th op a 1x1 quant_conv2d with requantisation,
   the others relu, a saturating add of the value two steps back, and a
   transpose pair that cancels) for n = 10^3, 10^4 and 10^5, lowers each size
   in turn (5 rounds; a fresh program each time: lowering rewrites it), and
   prints the median time per op at each size and the median of the per-round
   ratios 10^5 per op / 10^3 per op (1.0 when linear; target <= 2). Times are
   this thread's CPU time. Memory, through a counting TASKIR_MALLOC: the
   bytes the lowering allocates per op (reallocs count their growth), the
   peak of what it holds at once beyond the program per op, and the page
   faults per op (first touches of fresh memory: with glibc's defaults the
   large sizes' memory comes from and goes back to the system on every run,
   the small ones' is reused). All of it three times: with the allocator as
   it is and a new graph every run (freed after it); the same with one
   graph lowered into again and again (ti_lower_options.reuse_graph, as a
   process lowering model after model would); and with freed memory kept in
   the heap (mallopt, as bench_layout), where every size reuses warm pages
   and the ratio is the lowering's own. Before them, the cost of one page
   fault on this machine (first touches of a fresh 64 MiB block, CPU time
   per fault), with which the first two's excess at 10^5 is split into
   faults x cost and the rest. Between them, the fresh-process figures (bench_fresh.h): each lowering in a
   forked child, as a compiler lowering one model per process runs it, so
   every size pays its first touches; 5 children per size, sizes
   alternating; first the fixed cost of a child (a 4-op program). */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <malloc.h>

#include "tests/count_alloc.h"
#define TASKIR_IMPLEMENTATION
#include "taskir_lower.h"
#include "bench_check.h"
#include "tests/quant_chain.h"
#include <unistd.h>
#include "bench_fresh.h"

/* this thread's CPU time in seconds (robust on a shared machine) */
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* the DAG of n "ops" (n / 4 layers of quant_chain.h, residual adds) */
static ti_program *dag(ti_context *c, int n) {
  ti_program *p = quant_layers(c, n / 4, 1, NULL);
  if (!p) exit(1);
  return p;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* CPU time of one page fault: a fresh 64 MiB block (glibc maps blocks that
   large apart, fresh on every call), written once per 4 KiB; the time over
   the faults counted (median of 5). */
static double fault_cost(void) {
  enum { MB = 64, TRIALS = 5 };
  double per[TRIALS];
  size_t n = (size_t)MB << 20, i;
  int t;
  for (t = 0; t < TRIALS; t++) {
    volatile unsigned char *m = (volatile unsigned char *)malloc(n);
    struct rusage u0, u1;
    double t0, dt;
    long faults;
    if (!m) { fprintf(stderr, "fault_cost: no memory\n"); exit(1); }
    getrusage(RUSAGE_SELF, &u0);
    t0 = now();
    for (i = 0; i < n; i += 4096) m[i] = (unsigned char)i;
    dt = now() - t0;
    getrusage(RUSAGE_SELF, &u1);
    faults = u1.ru_minflt - u0.ru_minflt;
    per[t] = faults > 0 ? dt / (double)faults : 0.0;
    free((void *)m);
  }
  qsort(per, TRIALS, sizeof(double), cmp_d);
  return per[TRIALS / 2];
}

enum { ROUNDS = 5, SIZES = 3 };
static const int sizes[SIZES] = {1000, 10000, 100000};

/* ROUNDS rounds of every size; prints the figures, returns 0 or 1 */
static int measure(ti_context *c, count_alloc *cap, const char *memory, int first, double fault_us, int reuse) {
  double per[SIZES][ROUNDS], ratio[ROUNDS], alloc_op[SIZES], peak_op[SIZES], faults_op[SIZES][ROUNDS];
  int r, k;
  ti_lower_options o;
  ti_task_graph g;   /* with reuse: one graph, lowered into again and again */
  ti_error e;
  ti_error_clear(&e);
  ti_lower_options_init(&o);
  o.alloc_user = cap;
  o.reuse_graph = reuse;
  ti_task_graph_init(&g, cap);
  printf(" %s\n", memory);
  for (r = 0; r < ROUNDS; r++) {
    for (k = 0; k < SIZES; k++) {
      ti_program *p = dag(c, sizes[k]);
      size_t base = cap->live, allocated = cap->allocated;
      struct rusage u0, u1;
      double t0;
      cap->peak = cap->live;
      getrusage(RUSAGE_SELF, &u0);
      t0 = now();
      if (ti_lower_to_task(p, &o, &g, &e) != TI_STATUS_SUCCESS) { fprintf(stderr, "lower: %s\n", e.message); return 1; }
      per[k][r] = (now() - t0) / (double)sizes[k];
      getrusage(RUSAGE_SELF, &u1);
      faults_op[k][r] = (double)(u1.ru_minflt - u0.ru_minflt) / (double)sizes[k];
      if (r == 0) {   /* the same every round */
        alloc_op[k] = (double)(cap->allocated - allocated) / (double)sizes[k];
        peak_op[k] = (double)(cap->peak - base) / (double)sizes[k];
        if (first) printf("  n = %6d ops: %d blocks, %d edges\n", sizes[k], (int)g.n_blocks, (int)g.n_edges);
      }
      if (!reuse) ti_task_graph_free(&g);
      ti_program_destroy(p);
    }
    ratio[r] = per[SIZES - 1][r] / per[0][r];
  }
  ti_task_graph_free(&g);
  for (k = 0; k < SIZES; k++) {
    qsort(per[k], ROUNDS, sizeof(double), cmp_d);
    qsort(faults_op[k], ROUNDS, sizeof(double), cmp_d);
    printf("  n = %6d ops: %.2f us per op (median of %d); %.0f bytes allocated per op, peak %.0f bytes held per op, "
           "%.2f page faults per op\n", sizes[k], per[k][ROUNDS / 2] * 1e6, ROUNDS, alloc_op[k], peak_op[k],
           faults_op[k][ROUNDS / 2]);
  }
  qsort(ratio, ROUNDS, sizeof(double), cmp_d);
  printf("  per-op time at 10^5 / at 10^3: %.2f (median of %d paired rounds; target <= 2)\n", ratio[ROUNDS / 2], ROUNDS);
  if (fault_us > 0) {   /* the medians split: page faults x their cost, and the rest */
    double f0 = faults_op[0][ROUNDS / 2] * fault_us, f2 = faults_op[SIZES - 1][ROUNDS / 2] * fault_us;
    double t0 = per[0][ROUNDS / 2] * 1e6, t2 = per[SIZES - 1][ROUNDS / 2] * 1e6;
    printf("  of which page faults x %.2f us: %.2f us per op at 10^5 (%.2f at 10^3); without them %.2f / %.2f us, "
           "ratio %.2f\n", fault_us, f2, f0, t2 - f2, t0 - f0, (t2 - f2) / (t0 - f0));
  }
  return 0;
}

/* one lowering of a program built by the parent, in a fresh child */
typedef struct fresh_job { ti_program *p; } fresh_job;
static int fresh_job_run(void *arg) {
  ti_task_graph g;
  ti_error e;
  ti_error_clear(&e);
  if (ti_lower_to_task(((fresh_job *)arg)->p, NULL, &g, &e) != TI_STATUS_SUCCESS) { fprintf(stderr, "lower: %s\n", e.message); return 1; }
  ti_task_graph_free(&g);
  return 0;
}

/* ROUNDS rounds of every size, each lowering in a freshly forked child (the
   program built in the parent before the fork): a compiler lowering one
   model per process touches every page fresh, at every size */
static int measure_fresh(ti_context *c) {
  double wall[SIZES][ROUNDS], cpu[SIZES][ROUNDS], wr[ROUNDS], cr[ROUNDS];
  int r, k;
  printf(" fresh process: each lowering in a forked child, %d per size, sizes alternating (monotonic clock / CPU time)\n", ROUNDS);
  {   /* what a child costs whatever the size: the lowering of a 4-op program */
    fresh_job j;
    j.p = dag(c, 4);
    for (r = 0; r < ROUNDS; r++)
      if (fresh_sample(fresh_job_run, &j, &wall[0][r], &cpu[0][r])) { fprintf(stderr, "fresh process run failed\n"); return 1; }
    ti_program_destroy(j.p);
    qsort(wall[0], ROUNDS, sizeof(double), cmp_d);
    qsort(cpu[0], ROUNDS, sizeof(double), cmp_d);
    printf("  n = %6d ops: %.0f us in all wall, %.0f us CPU: the fixed cost of a child, in each size's figure below\n", 4,
           wall[0][ROUNDS / 2] * 1e6, cpu[0][ROUNDS / 2] * 1e6);
  }
  for (r = 0; r < ROUNDS; r++) {
    for (k = 0; k < SIZES; k++) {
      fresh_job j;
      j.p = dag(c, sizes[k]);
      if (fresh_sample(fresh_job_run, &j, &wall[k][r], &cpu[k][r])) { fprintf(stderr, "fresh process run failed\n"); return 1; }
      wall[k][r] /= (double)sizes[k];
      cpu[k][r] /= (double)sizes[k];
      ti_program_destroy(j.p);
    }
    wr[r] = wall[SIZES - 1][r] / wall[0][r];
    cr[r] = cpu[SIZES - 1][r] / cpu[0][r];
  }
  for (k = 0; k < SIZES; k++) {
    qsort(wall[k], ROUNDS, sizeof(double), cmp_d);
    qsort(cpu[k], ROUNDS, sizeof(double), cmp_d);
    printf("  n = %6d ops: %.2f us per op wall, %.2f us per op CPU (medians of %d)\n", sizes[k], wall[k][ROUNDS / 2] * 1e6,
           cpu[k][ROUNDS / 2] * 1e6, ROUNDS);
  }
  qsort(wr, ROUNDS, sizeof(double), cmp_d);
  qsort(cr, ROUNDS, sizeof(double), cmp_d);
  printf("  per-op time at 10^5 / at 10^3, fresh process: %.2f wall, %.2f CPU (median of %d paired rounds; target <= 2)\n",
         wr[ROUNDS / 2], cr[ROUNDS / 2], ROUNDS);
  return 0;
}

int main(void) {
  count_alloc ca;
  ti_context *c;
  ti_error e;
  double fault_us;
  memset(&ca, 0, sizeof ca);
  c = ti_context_create(&ca);
  ti_error_clear(&e);
  BENCH_OK(ti_nn_register(c, &e));
  printf("bench_lower: layout passes + lowering + checker, integer DAGs (conv 1x1 + requant, relu, add, cancelling transposes)\n");
  fault_us = fault_cost() * 1e6;
  printf(" one page fault (first touch of fresh memory) costs %.2f us of CPU time here (median of 5 x 64 MiB)\n", fault_us);
  if (measure(c, &ca, "warm process, the C library's allocator as it is (glibc: large blocks are mapped fresh on every run); "
              "a new graph every run, freed after it", 1, fault_us, 0)) return 1;
  if (measure(c, &ca, "warm process, the allocator as it is; one graph lowered into again and again "
              "(ti_lower_options.reuse_graph: its memory is reused)", 0, fault_us, 1)) return 1;
  if (measure_fresh(c)) return 1;
#if defined(M_MMAP_MAX) && defined(M_TRIM_THRESHOLD)
  /* the same with freed memory kept in the heap (as bench_layout runs):
     every size then reuses warm pages on its later rounds, as the small
     ones do anyway, so the ratio measures the lowering, not the kernel's
     page faults */
  mallopt(M_MMAP_MAX, 0);   /* no block mapped apart (the arena's chunks reach 64 MiB) */
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  if (measure(c, &ca, "warm process, freed memory kept in the heap (mallopt M_MMAP_MAX 0, M_TRIM_THRESHOLD 1 GiB); "
              "a new graph every run", 0, 0.0, 0)) return 1;
#endif
  ti_context_destroy(c);
  return 0;
}
