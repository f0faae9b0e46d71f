/* bench_nn_passes: the generic passes are linear in the program size.
   Builds chains of n ops (relu / add / relu_ on tensors, duplicated
   subexpressions, dead ops) for n = 10^4 and 10^5, runs each pass on the two
   sizes alternately (7 pairs), and prints the median time per op at each
   size and the median of the per-pair ratios (10^5 per op / 10^4 per op;
   1.0 when linear, target <= 2). The pages a pass faults in (fresh memory
   from the allocator) are counted per 1000 ops: on a virtual machine each
   costs tens of microseconds, so a pass that allocates per op pays for it. */
#define _POSIX_C_SOURCE 199309L
#define TASKIR_IMPLEMENTATION
#include "taskir.h"
#include "bench_check.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/resource.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static long minor_faults(void) {
  struct rusage r;
  getrusage(RUSAGE_SELF, &r);
  return r.ru_minflt;
}

static ti_program *chain(ti_context *c, int n) {
  ti_program *p = ti_program_create(c, "chain", TI_PROGRAM_SSA);
  int64_t d[1] = {16};
  const ti_type *t = ti_type_get(c, TI_TYPE_TENSOR, TI_DTYPE_F32, 1, d, TI_LAYOUT_ANY);
  ti_builder b;
  ti_error e;
  ti_value *x = ti_program_add_arg(p, t), *cur = x, *ops[2];
  int i;
  ti_error_clear(&e);
  ti_builder_init(&b, p, &e);
  for (i = 0; i < n / 4; i++) {
    ti_value *a, *a2;
    ops[0] = cur;
    a = ti_build1(&b, "nn.relu", 1, ops, NULL, NULL);
    a2 = ti_build1(&b, "nn.relu", 1, ops, NULL, NULL);       /* CSE fodder */
    ops[0] = a; ops[1] = a2;
    cur = ti_build1(&b, "nn.add", 2, ops, NULL, NULL);
    ops[0] = x;
    ti_build1(&b, i % 2 ? "nn.relu" : "nn.relu_", 1, ops, NULL, NULL);   /* dead or in place */
  }
  ops[0] = cur;
  ti_build(&b, "builtin.return", 1, ops, 0, NULL, NULL);
  if (b.status != TI_STATUS_SUCCESS) { fprintf(stderr, "build: %s\n", e.message); exit(1); }
  return p;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* ns per op of one run of pass `name` on a fresh chain of n ops; *faults
   gets the pages it faulted in. */
static double run_once(ti_context *c, const char *name, int n, long *faults) {
  ti_program *p = chain(c, n);
  const ti_pass *ps = ti_find_pass(name);
  ti_error e;
  long f0 = minor_faults();
  double t0 = now(), dt;
  ti_error_clear(&e);
  if (ps->run(p, NULL, &e) != TI_STATUS_SUCCESS) { fprintf(stderr, "%s: %s\n", name, e.message); exit(1); }
  dt = now() - t0;
  *faults = minor_faults() - f0;
  ti_program_destroy(p);
  return dt / (double)n * 1e9;
}

#define PAIRS 7
int main(void) {
  static const char *const passes[] = {"dce", "cse", "constant-fold", "inplace-to-outofplace", "maximize-value-semantics"};
  ti_context *c = ti_context_create(NULL);
  ti_error e;
  int n0 = 10000, k;
  ti_error_clear(&e);
  BENCH_OK(ti_nn_register(c, &e));
  printf("%-26s %10s %10s %10s %14s\n", "pass", "ns/op 1e4", "ns/op 1e5", "ratio", "pages/1k ops");
  for (k = 0; k < 5; k++) {
    double t[2][PAIRS], r[PAIRS];
    long f[2] = {0, 0}, fl;
    int i;
    for (i = 0; i < PAIRS; i++) {
      t[0][i] = run_once(c, passes[k], n0, &fl);
      f[0] += fl;
      t[1][i] = run_once(c, passes[k], 10 * n0, &fl);
      f[1] += fl;
      r[i] = t[1][i] / t[0][i];
    }
    qsort(t[0], PAIRS, sizeof(double), cmp_double);
    qsort(t[1], PAIRS, sizeof(double), cmp_double);
    qsort(r, PAIRS, sizeof(double), cmp_double);
    printf("%-26s %10.1f %10.1f %10.2f %7.1f %6.1f\n", passes[k], t[0][PAIRS / 2], t[1][PAIRS / 2], r[PAIRS / 2],
           (double)f[0] * 1000 / ((double)n0 * PAIRS), (double)f[1] * 1000 / (10.0 * n0 * PAIRS));
  }
  printf("ratio: median over %d alternating pairs of (ns/op at 1e5) / (ns/op at 1e4); linear passes: <= 2\n", PAIRS);
  ti_context_destroy(c);
  return 0;
}
