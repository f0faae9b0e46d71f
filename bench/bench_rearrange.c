/* N-d transpose (and a few edge rearrangements) throughput as a ratio to
   memcpy of the same bytes, measured in the same run: ratio = time(memcpy) /
   time(kernel), 1.0 = memcpy speed. */
#define _POSIX_C_SOURCE 200809L
#define TASKIR_IMPLEMENTATION
#include "taskir_kernels.h"
#include "bench_check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);  /* CPU time: robust on a shared machine */
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef struct tcase {
  const char *what;
  size_t es;
  int nd;
  int64_t d[4];
  int perm[4];
  int kind;   /* -1: ti_transpose; else a rearrangement kind */
} tcase;

static volatile unsigned char sink;

int main(int argc, char **argv) {
  static const int32_t rot1[1] = {1}, sh[2] = {3, -2}, refl[1] = {1};
  static const tcase cases[] = {
    {"NCHW->NHWC 1x64x56x56 f32", 4, 4, {1, 64, 56, 56}, {0, 2, 3, 1}, -1},
    {"NHWC->NCHW 1x56x56x64 f32", 4, 4, {1, 56, 56, 64}, {0, 3, 1, 2}, -1},
    {"NCHW->NHWC 1x64x56x56 f16", 2, 4, {1, 64, 56, 56}, {0, 2, 3, 1}, -1},
    {"NCHW->NHWC 1x64x56x56 i8", 1, 4, {1, 64, 56, 56}, {0, 2, 3, 1}, -1},
    {"NCHW->NHWC 8x256x56x56 f32", 4, 4, {8, 256, 56, 56}, {0, 2, 3, 1}, -1},
    {"NHWC->NCHW 8x56x56x256 f32", 4, 4, {8, 56, 56, 256}, {0, 3, 1, 2}, -1},
    {"NCHW->NHWC 8x256x56x56 f16", 2, 4, {8, 256, 56, 56}, {0, 2, 3, 1}, -1},
    {"2-D 4096x4096 f32", 4, 2, {4096, 4096, 1, 1}, {1, 0, 2, 3}, -1},
    {"2-D 4096x4096 f64", 8, 2, {4096, 4096, 1, 1}, {1, 0, 2, 3}, -1},
    {"[y][x][f] -> [x][y][f] 56x56x64 f32", 4, 3, {56, 56, 64, 1}, {1, 0, 2, 3}, -1},
    {"ROTATE k=1 56x56x64 f32", 4, 3, {56, 56, 64, 1}, {0}, TI_REARRANGE_ROTATE},
    {"SHIFT (3,-2) 56x56x64 f32", 4, 3, {56, 56, 64, 1}, {0}, TI_REARRANGE_SHIFT},
    {"REFLECT x 56x56x64 f32", 4, 3, {56, 56, 64, 1}, {0}, TI_REARRANGE_REFLECT},
  };
  const char *only = argc > 1 ? argv[1] : NULL;
  double t_start = now();
  ti_kernel_ctx ctx;  /* detected once, as a runtime would: enables AVX2 blocks */
  ti_kernel_ctx_init(&ctx);
  size_t k;
  printf("%-38s %8s %9s | %9s %6s\n", "case", "MB", "memcpy", "GB/s", "ratio");
  for (k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    const tcase *c = &cases[k];
    int64_t v = 1, od[TI_MAX_RANK];
    size_t bytes, i;
    unsigned char *in, *out, *ref;
    double best[2] = {1e30, 1e30};
    int trial, which, on, a;
    ti_rearrange_param p;
    if (only && !strstr(c->what, only)) continue;
    for (a = 0; a < c->nd; ++a) v *= c->d[a];
    bytes = (size_t)v * c->es;
    in = (unsigned char *)malloc(bytes);
    out = (unsigned char *)malloc(bytes);
    ref = (unsigned char *)malloc(bytes);
    if (!in || !out || !ref) { printf("allocation failed\n"); return 1; }
    for (i = 0; i < bytes; ++i) in[i] = (unsigned char)(i * 7u);
    memset(out, 1, bytes);
    memset(ref, 1, bytes);
    memset(&p, 0, sizeof p);
    p.i32 = c->kind == TI_REARRANGE_ROTATE ? rot1 : c->kind == TI_REARRANGE_SHIFT ? sh : refl;
    p.n_i32 = c->kind == TI_REARRANGE_SHIFT ? 2 : 1;
    if (c->kind >= 0 && ti_rearrange_infer(c->kind, &p, 1, c->nd, c->d, &on, od) != TI_STATUS_SUCCESS) {
      printf("infer failed\n");
      return 1;
    }
    for (trial = 0; trial < 5; ++trial)
      for (which = 0; which < 2; ++which) {
        int reps = 0;
        double t0 = now(), t1;
        do {
          if (which == 0) memcpy(ref, in, bytes);
          else if (c->kind < 0) BENCH_OK(ti_transpose_ex(&ctx, c->es, c->nd, c->d, c->perm, in, out));
          else BENCH_OK(ti_rearrange_apply(c->kind, &p, 1, c->es, c->nd, c->d, in, on, od, out));
          ++reps;
          t1 = now();
        } while (t1 - t0 < 0.03);
        if ((t1 - t0) / reps < best[which]) best[which] = (t1 - t0) / reps;
        sink ^= ref[reps % bytes] ^ out[reps % bytes];
      }
    printf("%-38s %8.1f %9.1f | %9.1f %6.2f\n", c->what, (double)bytes / 1e6,
           2.0 * (double)bytes / 1e9 / best[0], 2.0 * (double)bytes / 1e9 / best[1],
           best[0] / best[1]);
    free(in); free(out); free(ref);
  }
  printf("(GB/s counts bytes read + written); %.1f s\n", now() - t_start);
  return 0;
}
