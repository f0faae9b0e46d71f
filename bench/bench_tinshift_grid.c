/* TinShift against the plain loop a user would write instead: one memcpy
   (or memset for a zero-filled run) per (n, t, group) run, compiled here
   with the same flags. Grid: run length 16 B .. 16 KiB (powers of 2) x
   tensor size 64 KiB .. 256 MiB (powers of 4) x {f32, f16} x {forward,
   backward}, HW = 1, T = 8, G = 8 (fewer groups, then fewer frames, when
   the tensor is too small to hold them), shifts -2..2. For each point the
   five (memcpy, kernel and loop, forward and backward) are timed side by
   side over 5 trials, in an order rotated from trial to trial and reversed
   every other trial, each after one untimed call; printed
   are the medians of the per-trial ratios kernel/loop (time of the loop /
   time of the kernel: >= 1 means the kernel is at least as fast) and
   kernel/memcpy of the same bytes. Targets: kernel/loop >= 1.0 everywhere,
   kernel/memcpy >= 0.9 where runs are >= 256 B. Arguments: the largest and
   the smallest tensor in MiB (default 256 and 0.0625). */
#define _POSIX_C_SOURCE 200809L
#define TASKIR_IMPLEMENTATION
#include "taskir_kernels.h"
#include "bench_check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_clock.h"

/* The peer: one memcpy or memset per (n, t, g) run. */
static void loop_shift(const unsigned char *x, const int32_t *sh, unsigned char *y, long long N, long long T,
                       long long G, size_t piece, int sign) {
  const size_t row = (size_t)G * piece;
  long long n, t, g;
  for (n = 0; n < N; ++n)
    for (t = 0; t < T; ++t)
      for (g = 0; g < G; ++g) {
        const long long st = t - sign * sh[n * G + g];
        unsigned char *d = y + (size_t)(n * T + t) * row + (size_t)g * piece;
        if (st >= 0 && st < T) memcpy(d, x + (size_t)(n * T + st) * row + (size_t)g * piece, piece);
        else memset(d, 0, piece);
      }
}

/* One of the five timed: memcpy, kernel forward, loop forward, kernel
   backward, loop backward. All write the same buffer: the same addresses
   and alignment for each. */
static void run_one(int which, const ti_tensor_desc *x, const ti_tensor_desc *sd, const unsigned char *in,
                    const int32_t *sh, unsigned char *out, size_t bytes, long long N, long long T, long long G,
                    size_t L) {
  if (which == 0) memcpy(out, in, bytes);
  else if (which == 1) BENCH_OK(ti_tinshift_forward(x, in, sd, sh, x, out));
  else if (which == 2) loop_shift(in, sh, out, N, T, G, L, 1);
  else if (which == 3) BENCH_OK(ti_tinshift_backward(x, in, sd, sh, x, out));
  else loop_shift(in, sh, out, N, T, G, L, -1);
}

#define TRIALS 5
static double median(double *v) {
  int i, k;
  for (i = 1; i < TRIALS; ++i)
    for (k = i; k > 0 && v[k - 1] > v[k]; --k) { const double t = v[k]; v[k] = v[k - 1]; v[k - 1] = t; }
  return v[TRIALS / 2];
}

static volatile unsigned char sink;

int main(int argc, char **argv) {
  const size_t max_bytes = argc > 1 ? (size_t)(atof(argv[1]) * 1048576.0) : (size_t)256 << 20;   /* MiB */
  const size_t min_bytes = argc > 2 ? (size_t)(atof(argv[2]) * 1048576.0) : 0;                     /* MiB */
  double worst_loop = 1e9, worst_copy = 1e9, t_start = now();
  int points = 0, passed = 0;
  size_t bytes, L;
  int di, dir;
  printf("kernel/loop (memcpy/memset per run) and kernel/memcpy, medians of %d paired trials\n", TRIALS);
  printf("%9s %6s %4s %4s %4s |", "size", "run", "T", "G", "dt");
  printf(" %9s %9s | %9s %9s\n", "fwd/loop", "fwd/cpy", "bwd/loop", "bwd/cpy");
  for (bytes = (size_t)64 << 10; bytes <= max_bytes; bytes *= 4) {
    unsigned char *in, *out, *ref;
    int32_t *sh;
    size_t i;
    if (bytes < min_bytes) continue;
    if (3 * bytes + ((size_t)1 << 30) > avail_bytes()) {
      printf("%9zu  skipped: not enough free memory\n", bytes);
      continue;
    }
    in = (unsigned char *)malloc(bytes);
    out = (unsigned char *)malloc(bytes);
    ref = (unsigned char *)malloc(bytes);
    sh = (int32_t *)malloc((bytes / 16 + 8) * sizeof(int32_t));
    if (!in || !out || !ref || !sh) { printf("allocation failed\n"); return 1; }
    for (i = 0; i < bytes; ++i) in[i] = (unsigned char)(i * 131u + 7u);
    memset(out, 1, bytes);
    memset(ref, 1, bytes);
    for (i = 0; i < bytes / 16 + 8; ++i) sh[i] = (int32_t)(i % 5) - 2;
    for (L = 16; L <= 16384; L *= 2)
      for (di = 0; di < 2; ++di) {
        const ti_dtype dt = di ? TI_DTYPE_F16 : TI_DTYPE_F32;
        const size_t es = ti_dtype_size(dt);
        long long T = 8, G = 8, N;
        double r[4][TRIALS];
        ti_tensor_desc x, sd;
        int64_t dims[4];
        int trial;
        long batch;
        while (G > 1 && (size_t)(T * G) * L > bytes) G /= 2;
        while (T > 2 && (size_t)(T * G) * L > bytes) T /= 2;
        N = (long long)(bytes / ((size_t)(T * G) * L));
        dims[0] = N; dims[1] = T; dims[2] = G * (long long)(L / es); dims[3] = 1;
        ti_tensor_desc_set(&x, dt, 4, dims);
        dims[1] = G;
        ti_tensor_desc_set(&sd, TI_DTYPE_I32, 2, dims);
        /* check the kernel against the loop before timing */
        for (dir = 0; dir < 2; ++dir) {
          const size_t used = (size_t)(N * T * G) * L;
          if ((dir ? ti_tinshift_backward(&x, in, &sd, sh, &x, out) : ti_tinshift_forward(&x, in, &sd, sh, &x, out)) !=
              TI_STATUS_SUCCESS) { printf("kernel failed\n"); return 1; }
          loop_shift(in, sh, ref, N, T, G, L, dir ? -1 : 1);
          if (memcmp(out, ref, used) != 0) { printf("kernel and loop disagree (run %zu)\n", L); return 1; }
        }
        {
          double t0 = now();
          memcpy(out, in, bytes);
          batch = (long)(0.002 / (now() - t0 + 1e-9)) + 1;
        }
        for (trial = 0; trial < TRIALS; ++trial) {
          double secs[5];
          int slot;
          for (slot = 0; slot < 5; ++slot) {
            /* rotated, and reversed every other trial, so that no one of
               the five always follows the same other */
            const int which = (trial & 1 ? 4 - slot + trial : slot + trial) % 5;
            long reps = 0, b;
            double t0, t1;
            run_one(which, &x, &sd, in, sh, out, bytes, N, T, G, L);  /* untimed: steady state */
            t0 = now();
            do {
              for (b = 0; b < batch; ++b) run_one(which, &x, &sd, in, sh, out, bytes, N, T, G, L);
              reps += batch;
              t1 = now();
            } while (t1 - t0 < 0.004);
            secs[which] = (t1 - t0) / (double)reps;
            sink ^= out[(size_t)reps % bytes];
          }
          r[0][trial] = secs[2] / secs[1];
          r[1][trial] = secs[0] / secs[1];
          r[2][trial] = secs[4] / secs[3];
          r[3][trial] = secs[0] / secs[3];
        }
        {
          const double a = median(r[0]), b = median(r[1]), c = median(r[2]), d = median(r[3]);
          printf("%9zu %6zu %4lld %4lld %4s | %9.2f %9.2f | %9.2f %9.2f%s\n", bytes, L, T, G, di ? "f16" : "f32", a, b,
                 c, d, (a < 1.0 || c < 1.0 || (L >= 256 && (b < 0.9 || d < 0.9))) ? "  <" : "");
          points++;
          if (!(a < 1.0 || c < 1.0 || (L >= 256 && (b < 0.9 || d < 0.9)))) passed++;
          if (a < worst_loop) worst_loop = a;
          if (c < worst_loop) worst_loop = c;
          if (L >= 256 && b < worst_copy) worst_copy = b;
          if (L >= 256 && d < worst_copy) worst_copy = d;
        }
      }
    free(in); free(out); free(ref); free(sh);
  }
  printf("worst kernel/loop %.2f (target >= 1.0); worst kernel/memcpy for runs >= 256 B %.2f (target >= 0.9); %.0f s\n",
         worst_loop, worst_copy, now() - t_start);
  /* a point passes when forward and backward meet both targets (rerun on
     an idle machine: make build/bench/bench_tinshift_grid &&
     build/bench/bench_tinshift_grid) */
  printf("grid points passing: %d of %d\n", passed, points);
  return 0;
}
