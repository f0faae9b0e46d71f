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

/* The AMX limit (tdpbusd on 16x16 int32 tiles of 16 x 64 bytes: 16384 MACs
   an instruction), for a machine where the kernels take the amx-int8
   variant: four accumulator tiles, either with the A and B tiles loaded
   once (the instruction's own rate) or with two A and two B tiles loaded
   from L1 every step (the form of the conv kernel). Needs the tile
   permission, which ti_cpu_detect() asks for; 0 where
   ti_cpu_detect() has no TI_CPU_AMXINT8 or the bench was built without
   -mamx-int8. */
#if defined(__AMX_INT8__) && defined(__AMX_TILE__) && defined(TASKIR_KERNELS_H)
__attribute__((unused)) static void ap_cfg(void) {
  uint8_t cfg[64] = {0};
  int i;
  cfg[0] = 1;
  for (i = 0; i < 8; i++) { cfg[16 + 2 * i] = 64; cfg[48 + i] = 16; }
  _tile_loadconfig(cfg);
}
__attribute__((unused)) static void ap_regs(long n, const uint8_t *buf) {
  ap_cfg();
  _tile_loadd(4, buf, 64); _tile_loadd(5, buf + 1024, 64);
  _tile_loadd(6, buf + 2048, 64); _tile_loadd(7, buf + 3072, 64);
  _tile_zero(0); _tile_zero(1); _tile_zero(2); _tile_zero(3);
  for (; n > 0; n--) {
    _tile_dpbusd(0, 4, 6); _tile_dpbusd(1, 4, 7); _tile_dpbusd(2, 5, 6); _tile_dpbusd(3, 5, 7);
  }
  _tile_stored(0, (void *)(buf + 4096), 64);
  _tile_release();
}
__attribute__((unused)) static void ap_loads(long n, const uint8_t *buf) {
  long i;
  ap_cfg();
  _tile_zero(0); _tile_zero(1); _tile_zero(2); _tile_zero(3);
  for (; n > 0; n--)
    for (i = 0; i < 8; i++) {   /* 8 steps over 16 KiB of A and B */
      const uint8_t *a = buf + i * 2048, *b = buf + 16384 + i * 2048;
      _tile_loadd(4, a, 64); _tile_loadd(6, b, 64); _tile_dpbusd(0, 4, 6);
      _tile_loadd(7, b + 1024, 64); _tile_dpbusd(1, 4, 7);
      _tile_loadd(5, a + 1024, 64); _tile_dpbusd(2, 5, 6); _tile_dpbusd(3, 5, 7);
    }
  _tile_stored(0, (void *)(buf + 32768), 64);
  _tile_release();
}
#endif
__attribute__((unused)) static double amx_peak(int verbose) {
#if defined(__AMX_INT8__) && defined(__AMX_TILE__) && defined(TASKIR_KERNELS_H)
  static uint8_t buf[32768 + 1024] __attribute__((aligned(64)));
  double best = 0;
  int k, rep;
  if (!(ti_cpu_detect() & TI_CPU_AMXINT8)) return 0;
  for (k = 0; k < 2; k++) {
    long n = k ? 20000 : 160000;
    double t, tb = 1e30, r, macs = (double)n * 4 * 16384 * (k ? 8 : 1);
    for (rep = 0; rep < 7; rep++) {
      t = vp_now();
      if (k) ap_loads(n, buf); else ap_regs(n, buf);
      t = vp_now() - t;
      if (t < tb) tb = t;
    }
    r = macs / tb;
    if (verbose)
      printf("  tdpbusd, 4 accumulator tiles, %s: %7.1f GMAC/s\n",
             k ? "2 A + 2 B tiles loaded from L1 a step" : "A and B tiles kept        ", r / 1e9);
    if (r > best) best = r;
  }
  return best;
#else
  (void)verbose;
  return 0;
#endif
}
#endif
