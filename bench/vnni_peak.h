/* The int8 multiply-accumulate limit of one core, for the conv benchmarks:
   vpdpbusd (zmm) in loops of several shapes, registers only, and the best
   rate any of them reaches. Shapes: 4, 6, 8, 10 and 12 independent
   accumulator chains, with the multiplier in a register or broadcast from
   memory (the form a convolution's inner loop takes). A loop that stalls on
   latency or ports gives a lower figure; the best one is the limit. */
#ifndef TI_BENCH_VNNI_PEAK_H
#define TI_BENCH_VNNI_PEAK_H
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

static double vp_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#if defined(__AVX512VNNI__) && defined(__AVX512F__)
static volatile uint32_t vp_sink;
/* x86: a = dpbusd(a, x, y) in C chains; y a register, or {1to16} from m. */
#define VP_REG(i) "vpdpbusd %%zmm30, %%zmm31, %%zmm" #i "\n\t"
#define VP_MEM(i) "vpdpbusd (%1)%{1to16%}, %%zmm31, %%zmm" #i "\n\t"
#define VP_X4(S) S(0) S(1) S(2) S(3)
#define VP_X6(S) VP_X4(S) S(4) S(5)
#define VP_X8(S) VP_X6(S) S(6) S(7)
#define VP_X10(S) VP_X8(S) S(8) S(9)
#define VP_X12(S) VP_X10(S) S(10) S(11)
#define VP_LOOP(NAME, BODY) \
  static void NAME(long n, const int32_t *m) { \
    __asm__ volatile("vpbroadcastd (%1), %%zmm30\n\t" \
                     "vpbroadcastd 4(%1), %%zmm31\n\t" \
                     "1:\n\t" BODY "dec %0\n\tjnz 1b\n\t" \
                     : "+r"(n) : "r"(m) \
                     : "cc", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", \
                       "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm30", "xmm31"); \
  }
VP_LOOP(vp_r4, VP_X4(VP_REG)) VP_LOOP(vp_r6, VP_X6(VP_REG)) VP_LOOP(vp_r8, VP_X8(VP_REG))
VP_LOOP(vp_r10, VP_X10(VP_REG)) VP_LOOP(vp_r12, VP_X12(VP_REG))
VP_LOOP(vp_m4, VP_X4(VP_MEM)) VP_LOOP(vp_m6, VP_X6(VP_MEM)) VP_LOOP(vp_m8, VP_X8(VP_MEM))
VP_LOOP(vp_m10, VP_X10(VP_MEM)) VP_LOOP(vp_m12, VP_X12(VP_MEM))
#endif

/* MACs per second of the best loop shape (0 without AVX-512 VNNI); prints
   every shape's rate when verbose. Each shape: best of several runs (the
   clock ramps up and the core is shared). */
static double vnni_peak(int verbose) {
#if defined(__AVX512VNNI__) && defined(__AVX512F__)
  typedef void (*loop_fn)(long, const int32_t *);
  static const loop_fn fns[10] = {vp_r4, vp_r6, vp_r8, vp_r10, vp_r12,
                                  vp_m4, vp_m6, vp_m8, vp_m10, vp_m12};
  static const int chains[10] = {4, 6, 8, 10, 12, 4, 6, 8, 10, 12};
  int32_t m[2] = {0x01020304, 0x05060708};
  double best = 0;
  int k, rep;
  for (k = 0; k < 10; k++) {
    long n = 24000000 / chains[k];
    double t, tb = 1e30, r;
    for (rep = 0; rep < 7; rep++) {
      t = vp_now();
      fns[k](n, m);
      t = vp_now() - t;
      if (t < tb) tb = t;
    }
    r = (double)n * chains[k] * 64 / tb;
    if (verbose)
      printf("  vpdpbusd zmm, %2d chains, %s source: %6.1f GMAC/s\n", chains[k],
             k < 5 ? "register " : "broadcast", r / 1e9);
    if (r > best) best = r;
  }
  vp_sink = (uint32_t)m[0];
  return best;
#else
  (void)verbose;
  return 0;
#endif
}
#endif
