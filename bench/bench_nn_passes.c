/* bench_nn_passes: the generic passes are linear in the program size.
   Builds chains of n ops (relu / add / relu_ on tensors, duplicated
   subexpressions, dead ops) for n = 10^3, 10^4 and 10^5 and runs each pass
   on them. A round runs the three sizes back to back, each on 10^5 ops in
   all (100 programs of 10^3, 10 of 10^4, one of 10^5; only the pass is
   timed, in this thread's CPU time), so load on the machine hits the three
   alike; 9 rounds. Printed per pass: the median time per op at each size,
   the medians of the per-round ratios 10^4/10^3 and 10^5/10^4 (1.0 when
   linear; target for 10^5/10^4: <= 2), the bytes the pass takes through
   TASKIR_MALLOC/REALLOC per op (arena chunks for new ops included) and the
   pages it faults in per 1000 ops at 10^5 (fresh memory costs tens of
   microseconds a page on a virtual machine, so a pass that allocates per op
   pays for it). */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/resource.h>

#include "tests/count_alloc.h"
#define TASKIR_IMPLEMENTATION
#include "taskir.h"
#include "bench_check.h"
#include "tests/passes_chain.h"

/* this thread's CPU time, seconds (robust on a shared machine) */
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static long minor_faults(void) {
  struct rusage r;
  getrusage(RUSAGE_SELF, &r);
  return r.ru_minflt;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

typedef struct run_stats { double ns_per_op, bytes_per_op, pages_per_kop; } run_stats;

/* Pass `name` on `reps` fresh chains of n ops: ns, bytes taken and pages
   faulted in per op, the pass alone. */
static run_stats run(ti_context *c, const char *name, int n, int reps) {
  const ti_pass *ps = ti_find_pass(name);
  run_stats s = {0, 0, 0};
  int k;
  for (k = 0; k < reps; k++) {
    ti_program *p = passes_chain(c, n);
    ti_error e;
    size_t b0 = count_alloc_default.allocated;
    long f0 = minor_faults();
    double t0;
    if (!p) { fprintf(stderr, "building a chain of %d ops failed\n", n); exit(1); }
    ti_error_clear(&e);
    t0 = now();
    if (ps->run(p, NULL, &e) != TI_STATUS_SUCCESS) { fprintf(stderr, "%s: %s\n", name, e.message); exit(1); }
    s.ns_per_op += now() - t0;
    s.pages_per_kop += (double)(minor_faults() - f0);
    s.bytes_per_op += (double)(count_alloc_default.allocated - b0);
    ti_program_destroy(p);
  }
  s.ns_per_op *= 1e9 / ((double)n * reps);
  s.bytes_per_op /= (double)n * reps;
  s.pages_per_kop *= 1000.0 / ((double)n * reps);
  return s;
}

#define ROUNDS 9
#define SIZES 3
int main(void) {
  static const char *const passes[] = {"dce", "cse", "constant-fold", "inplace-to-outofplace", "maximize-value-semantics"};
  static const int sizes[SIZES] = {1000, 10000, 100000};
  ti_context *c = ti_context_create(NULL);
  ti_error e;
  int k;
  ti_error_clear(&e);
  BENCH_OK(ti_nn_register(c, &e));
  printf("per pass: ns/op at 10^3 / 10^4 / 10^5 (medians of %d rounds), ratios (medians of the rounds' ratios),\n"
         "bytes taken through TASKIR_MALLOC per op at each size, pages faulted in per 1000 ops at 10^5\n", ROUNDS);
  printf("%-25s %7s %7s %7s %8s %8s %20s %6s\n", "pass", "1e3", "1e4", "1e5", "1e4/1e3", "1e5/1e4", "bytes/op 1e3/4/5",
         "pg/kop");
  for (k = 0; k < 5; k++) {
    double t[SIZES][ROUNDS], r43[ROUNDS], r54[ROUNDS], bytes[SIZES] = {0, 0, 0}, pages = 0;
    int i, j;
    for (i = 0; i < ROUNDS; i++) {
      for (j = 0; j < SIZES; j++) {
        run_stats s = run(c, passes[k], sizes[j], sizes[SIZES - 1] / sizes[j]);
        t[j][i] = s.ns_per_op;
        bytes[j] += s.bytes_per_op / ROUNDS;
        if (j == SIZES - 1) pages += s.pages_per_kop / ROUNDS;
      }
      r43[i] = t[1][i] / t[0][i];
      r54[i] = t[2][i] / t[1][i];
    }
    printf("%-25s %7.1f %7.1f %7.1f %8.2f %8.2f %6.1f %6.1f %6.1f %6.1f\n", passes[k], median(t[0], ROUNDS),
           median(t[1], ROUNDS), median(t[2], ROUNDS), median(r43, ROUNDS), median(r54, ROUNDS), bytes[0], bytes[1],
           bytes[2], pages);
    fflush(stdout);
  }
  printf("ratio 1e5/1e4: (ns/op at 10^5) / (ns/op at 10^4), median over %d rounds; linear passes: <= 2\n", ROUNDS);
  ti_context_destroy(c);
  return 0;
}
