/* bench_nn_passes: the generic passes are linear in the program size.
   Builds chains of n ops (relu / add / relu_ on tensors, duplicated
   subexpressions, dead ops) for n and 10n, times each pass (best of 3),
   and prints the time per op and the ratio of the two times (about 10
   when linear; caches make the larger size a little dearer per op). */
#define _POSIX_C_SOURCE 199309L
#define TASKIR_IMPLEMENTATION
#include "taskir.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
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

int main(void) {
  static const char *const passes[] = {"dce", "cse", "constant-fold", "inplace-to-outofplace", "maximize-value-semantics"};
  ti_context *c = ti_context_create(NULL);
  ti_error e;
  int n0 = 20000, k;
  ti_error_clear(&e);
  ti_nn_register(c, &e);
  printf("%-26s %12s %12s %8s\n", "pass", "ns/op (n)", "ns/op (10n)", "10n/n");
  for (k = 0; k < 5; k++) {
    double t[2];
    int s;
    for (s = 0; s < 2; s++) {
      int n = s ? 10 * n0 : n0, rep;
      t[s] = 1e30;
      for (rep = 0; rep < 3; rep++) {
        ti_program *p = chain(c, n);
        const ti_pass *ps = ti_find_pass(passes[k]);
        double t0 = now(), dt;
        if (ps->run(p, NULL, &e) != TI_STATUS_SUCCESS) { fprintf(stderr, "%s: %s\n", passes[k], e.message); return 1; }
        dt = now() - t0;
        ti_program_destroy(p);
        if (dt / (double)n * 1e9 < t[s]) t[s] = dt / (double)n * 1e9;
      }
    }
    printf("%-26s %12.1f %12.1f %8.2f\n", passes[k], t[0], t[1], t[1] * 10 / t[0]);
  }
  ti_context_destroy(c);
  return 0;
}
