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

/* counting allocator: the bytes taken through TASKIR_MALLOC/REALLOC (a
   realloc counts what it adds) */
typedef struct bn_hdr { size_t n; size_t pad; } bn_hdr;
static size_t bn_taken;
static void *bn_malloc(size_t n) {
  bn_hdr *h = (bn_hdr *)malloc(sizeof *h + n);
  if (!h) return NULL;
  h->n = n;
  bn_taken += n;
  return h + 1;
}
static void bn_free(void *p) {
  if (p) free((bn_hdr *)p - 1);
}
static void *bn_realloc(void *p, size_t n) {
  bn_hdr *h;
  size_t old;
  if (!p) return bn_malloc(n);
  old = ((bn_hdr *)p - 1)->n;
  h = (bn_hdr *)realloc((bn_hdr *)p - 1, sizeof *h + n);
  if (!h) return NULL;
  if (n > old) bn_taken += n - old;
  h->n = n;
  return h + 1;
}
#define TASKIR_MALLOC(u, sz) ((void)(u), bn_malloc(sz))
#define TASKIR_REALLOC(u, p, sz) ((void)(u), bn_realloc(p, sz))
#define TASKIR_FREE(u, p) ((void)(u), bn_free(p))
#define TASKIR_IMPLEMENTATION
#include "taskir.h"
#include "bench_check.h"

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
    ti_program *p = chain(c, n);
    ti_error e;
    size_t b0 = bn_taken;
    long f0 = minor_faults();
    double t0 = now();
    ti_error_clear(&e);
    if (ps->run(p, NULL, &e) != TI_STATUS_SUCCESS) { fprintf(stderr, "%s: %s\n", name, e.message); exit(1); }
    s.ns_per_op += now() - t0;
    s.pages_per_kop += (double)(minor_faults() - f0);
    s.bytes_per_op += (double)(bn_taken - b0);
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
