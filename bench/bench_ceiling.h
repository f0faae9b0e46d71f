/* bench/bench_ceiling.h - what two threads can give on this machine, for
   the thread benchmarks (bench_threads, bench_exec): pure compute loops in
   registers run through a ti_pool (tools/taskir_pool.h, included before)
   on 1 and 2 threads in alternating pairs; the median of the per-pair
   ratios is the ceiling a kernel's or a graph's 2-thread speed-up is judged
   against. A chain of dependent scalar multiply-adds is latency-bound (two
   hardware threads of one core still reach ~2x); vpdpbusd on 12
   independent zmm chains is port-bound (~2x only on two cores, ~1x on SMT
   siblings or when the second vCPU is busy with other work). Where the
   CPU has AMX-INT8, tdpbusd on four tile accumulators is the ceiling of
   the AMX convolutions: the tile unit is per core, so it should scale as
   vpdpbusd does. */
#ifndef BENCH_CEILING_H
#define BENCH_CEILING_H
#include <stdlib.h>
#include <string.h>
#include "vnni_peak.h"
#if defined(__SSE2__)
#include <immintrin.h>
#endif

/* The 2-thread speed-up the thread benchmarks print PASS or FAIL against. */
#define BENCH_THREADS_TARGET 1.7

static int bench_cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static volatile uint64_t bench_sink;
static void bench_spin_scalar(void *arg, int64_t b, int64_t e) {   /* 4096 dependent multiply-adds per index */
  uint64_t x = (uint64_t)b + 1;
  int i;
  (void)arg;
  for (; b < e; b++)
    for (i = 0; i < 4096; i++) x = x * 6364136223846793005ull + 1442695040888963407ull;
  bench_sink += x;
}
#if defined(__AVX512VNNI__) && defined(__AVX512F__)
static void bench_spin_vnni(void *arg, int64_t b, int64_t e) {   /* 256 x 12 vpdpbusd zmm per index */
  static const int32_t m[2] = {0x01020304, 0x05060708};
  (void)arg;
  if (e > b) vp_r12((long)(e - b) * 256, m);
}
#endif

#if defined(__x86_64__) && defined(__AMX_TILE__) && defined(__AMX_INT8__)
#define BENCH_CEILING_AMX 1
/* 256 x 4 tdpbusd (16x16 int32 += 16x64 u8 . 64x16 s8) per index, on tiles
   loaded once: the tile unit's limit. Each thread configures its own tiles
   (the palette is per thread); the caller has checked TI_CPU_AMXINT8,
   which also holds the process's permission. */
static void bench_spin_amx(void *arg, int64_t b, int64_t e) {
  static const unsigned char ab[4096] = {1};
  unsigned char cfg[64] = {0}, out[1024];
  int i;
  (void)arg;
  cfg[0] = 1;
  for (i = 0; i < 8; i++) { cfg[16 + 2 * i] = 64; cfg[48 + i] = 16; }
  _tile_loadconfig(cfg);
  _tile_loadd(4, ab, 64); _tile_loadd(5, ab + 1024, 64); _tile_loadd(6, ab + 2048, 64); _tile_loadd(7, ab + 3072, 64);
  _tile_zero(0); _tile_zero(1); _tile_zero(2); _tile_zero(3);
  for (; b < e; b++)
    for (i = 0; i < 256; i++) {
      _tile_dpbusd(0, 4, 6); _tile_dpbusd(1, 4, 7); _tile_dpbusd(2, 5, 6); _tile_dpbusd(3, 5, 7);
    }
  _tile_stored(0, out, 64);
  _tile_release();
  bench_sink += out[0];
}
#endif

/* Median of per-pair ratios of 1- and 2-thread times of fn(arg) over [0, n). */
static double bench_ceiling(ti_pool *pool, ti_range_fn fn, void *arg, int64_t n, int pairs, double *t1m, double *t2m) {
  double *r = (double *)malloc((size_t)pairs * sizeof *r), *t1 = (double *)malloc((size_t)pairs * sizeof *t1),
         *t2 = (double *)malloc((size_t)pairs * sizeof *t2), res;
  int i, s;
  for (i = 0; i < pairs; i++) {
    for (s = 0; s < 2; s++) {
      int two = (i & 1) ? 1 - s : s;
      double t0 = vp_now();
      if (two) ti_pool_parallel_for(pool, n, fn, arg); else fn(arg, 0, n);
      (two ? t2 : t1)[i] = vp_now() - t0;
    }
    r[i] = t1[i] / t2[i];
  }
  qsort(r, (size_t)pairs, sizeof *r, bench_cmp_d); qsort(t1, (size_t)pairs, sizeof *t1, bench_cmp_d);
  qsort(t2, (size_t)pairs, sizeof *t2, bench_cmp_d);
  res = r[pairs / 2]; *t1m = t1[pairs / 2]; *t2m = t2[pairs / 2];
  free(r); free(t1); free(t2);
  return res;
}

/* The copy ceiling of memory-bound kernels (TinShift on tensors past the
   caches): `bytes` copied from one buffer to another, in 64 equal pieces
   (an index is a piece) by memcpy, or by streaming stores from one or four
   sequential streams with a software prefetch ahead. Copies share one
   memory system; the second thread gains only what one core leaves of the
   bandwidth. */
typedef struct bench_copy { const unsigned char *src; unsigned char *dst; size_t piece; int how; } bench_copy;
#if defined(__SSE2__)
enum { BENCH_COPY_PIECES = 64, BENCH_COPY_HOWS = 3 };
#else
enum { BENCH_COPY_PIECES = 64, BENCH_COPY_HOWS = 1 };   /* memcpy only */
#endif
static const char *const bench_copy_name[3] = {"memcpy", "streaming", "4 streams"};
static void bench_copy_range(void *arg, int64_t b, int64_t e) {
  const bench_copy *c = (const bench_copy *)arg;
  for (; b < e; b++) {
    const unsigned char *s = c->src + (size_t)b * c->piece;
    unsigned char *d = c->dst + (size_t)b * c->piece;
#if defined(__SSE2__)
    if (c->how > 0) {   /* piece: a multiple of 4 KiB, buffers page-aligned */
      const size_t streams = c->how == 2 ? 4 : 1, part = c->piece / streams;
      size_t i, q;
      for (i = 0; i < part; i += 64)
        for (q = 0; q < streams; q++) {
          const unsigned char *ps = s + q * part + i;
          unsigned char *pd = d + q * part + i;
          _mm_prefetch((const char *)ps + 2048 / streams, _MM_HINT_T1);
#if defined(__AVX512F__)
          _mm512_stream_si512((void *)pd, _mm512_load_si512((const void *)ps));
#else
          {
            int k;
            for (k = 0; k < 64; k += 16)
              _mm_stream_si128((__m128i *)(void *)(pd + k), _mm_load_si128((const __m128i *)(const void *)(ps + k)));
          }
#endif
        }
      _mm_sfence();
      continue;
    }
#endif
    memcpy(d, s, c->piece);
  }
}

/* Prints, for a copy of `bytes` (rounded down to 64 pieces of whole 4 KiB
   pages), each copy loop's rate on 1 and 2 threads (bytes read + written)
   and its speed-up (bench_ceiling), then the memory ceiling: the best
   2-thread time over the best 1-thread time. (inline: the benches without
   memory-bound rows leave it unused.) */
static inline void bench_print_copy_ceiling(ti_pool *pool, size_t bytes, int pairs) {
  const size_t piece = bytes / BENCH_COPY_PIECES / 4096 * 4096, n = piece * BENCH_COPY_PIECES;
  unsigned char *sm = (unsigned char *)malloc(n + 4096), *dm = (unsigned char *)malloc(n + 4096);
  double best1 = 0, best2 = 0, a, b, sp;
  const double gb = 2.0 * (double)n * 1e-9;
  bench_copy c;
  char name[64];
  if (!sm || !dm || !piece) { free(sm); free(dm); printf("ceiling: copy not run (no memory)\n"); return; }
  c.src = sm + (4096 - (uintptr_t)sm % 4096); c.dst = dm + (4096 - (uintptr_t)dm % 4096); c.piece = piece;
  memset(sm, 1, n + 4096); memset(dm, 2, n + 4096);
  for (c.how = 0; c.how < BENCH_COPY_HOWS; c.how++) {
    sp = bench_ceiling(pool, bench_copy_range, &c, BENCH_COPY_PIECES, pairs, &a, &b);
    snprintf(name, sizeof name, "ceiling: copy %.0f MB, %s", (double)n / 1e6, bench_copy_name[c.how]);
    printf("%-34s %10.3f %10.3f %8.1f %8.1f %s   %5.2fx\n", name, a * 1e3, b * 1e3, gb / a, gb / b, "GB/s  ", sp);
    if (best1 == 0 || a < best1) best1 = a;
    if (best2 == 0 || b < best2) best2 = b;
  }
  free(sm); free(dm);
  printf("%-34s %10.3f %10.3f %8.1f %8.1f %s   %5.2fx\n", "ceiling: copy, best of each", best1 * 1e3, best2 * 1e3,
         gb / best1, gb / best2, "GB/s  ", best1 / best2);
}

/* One half of a meeting: counts itself in, then waits (up to 1 ms) for the
   other half to start: a job of two such halves lasts as long as the
   second thread takes to join. */
static void bench_meet(void *arg, int64_t b, int64_t e) {
  int *started = (int *)arg;
  double t0 = vp_now();
  for (; b < e; b++) {
    __atomic_add_fetch(started, 1, __ATOMIC_ACQ_REL);
    while (__atomic_load_n(started, __ATOMIC_ACQUIRE) < 2 && vp_now() - t0 < 1e-3) {}
  }
}

/* A cache line bounced between two threads: each waits for the other's
   turn on one flag, then takes its own. The round trip is what data made
   on one thread costs the other per line (~100 ns on two cores sharing a
   cache, several times more across dies). */
static volatile int64_t bench_flag __attribute__((aligned(64)));
enum { BENCH_BOUNCES = 200000 };
static void *bench_bounce_main(void *u) {
  int64_t i;
  (void)u;
  for (i = 0; i < BENCH_BOUNCES; i++) {
    while (__atomic_load_n(&bench_flag, __ATOMIC_ACQUIRE) != 2 * i + 1) {}
    __atomic_store_n(&bench_flag, 2 * i + 2, __ATOMIC_RELEASE);
  }
  return NULL;
}
static double bench_bounce_ns(void) {
  pthread_t th;
  int64_t i;
  double t0;
  bench_flag = 0;
  if (pthread_create(&th, NULL, bench_bounce_main, NULL) != 0) return 0;
  t0 = vp_now();
  for (i = 0; i < BENCH_BOUNCES; i++) {
    __atomic_store_n(&bench_flag, 2 * i + 1, __ATOMIC_RELEASE);
    while (__atomic_load_n(&bench_flag, __ATOMIC_ACQUIRE) != 2 * i + 2) {}
  }
  t0 = vp_now() - t0;
  pthread_join(th, NULL);
  return t0 / BENCH_BOUNCES * 1e9;
}

/* Prints the ceilings (rows for the 34-column tables of the benches), the
   one-thread VNNI limit and the pool's cost per call. */
static void bench_print_ceilings(ti_pool *pool, int pairs) {
  double a, b, sp, *t = (double *)malloc(201 * sizeof *t);
  int i;
  sp = bench_ceiling(pool, bench_spin_scalar, NULL, 2048, pairs, &a, &b);
  printf("%-34s %10.3f %10.3f %26s %5.2fx\n", "ceiling: scalar dependent chain", a * 1e3, b * 1e3, "", sp);
#if defined(__AVX512VNNI__) && defined(__AVX512F__)
  sp = bench_ceiling(pool, bench_spin_vnni, NULL, 2048, pairs, &a, &b);
  printf("%-34s %10.3f %10.3f %8.1f %8.1f %s   %5.2fx\n", "ceiling: vpdpbusd zmm, 12 chains", a * 1e3, b * 1e3,
         2048.0 * 256 * 12 * 64 / a * 1e-9, 2048.0 * 256 * 12 * 64 / b * 1e-9, "GMAC/s", sp);
#else
  printf("ceiling: vpdpbusd loop not built (needs AVX-512 VNNI at compile time)\n");
#endif
#if defined(BENCH_CEILING_AMX)
  if (ti_cpu_detect() & TI_CPU_AMXINT8) {
    sp = bench_ceiling(pool, bench_spin_amx, NULL, 512, pairs, &a, &b);
    printf("%-34s %10.3f %10.3f %8.1f %8.1f %s   %5.2fx\n", "ceiling: tdpbusd, 4 tile chains", a * 1e3, b * 1e3,
           512.0 * 256 * 4 * 16384 / a * 1e-9, 512.0 * 256 * 4 * 16384 / b * 1e-9, "GMAC/s", sp);
  } else
    printf("ceiling: tdpbusd loop not run (no AMX-INT8 on this CPU, or the OS did not grant it)\n");
#endif
  if ((a = vnni_peak(0)) > 0) printf("one-thread VNNI limit (best of bench/vnni_peak.h's loop shapes): %.1f GMAC/s\n", a * 1e-9);
  for (i = 0; i < 201; i++) {   /* the hand-off: a job of two halves that wait for each other */
    int started = 0;
    double t0 = vp_now();
    ti_pool_parallel_for(pool, 2, bench_meet, &started);
    t[i] = vp_now() - t0;
  }
  qsort(t, 201, sizeof *t, bench_cmp_d);
  printf("pool hand-off (a job of 2 halves that wait up to 1 ms for each other, jobs back to back): median %.2f us,\n"
         "  90th percentile %.2f us (1000 us: the worker did not come)\n", t[100] * 1e6, t[180] * 1e6);
  free(t);
  printf("cache line round trip between two threads (each waits for the other's turn on one flag): %.0f ns\n",
         bench_bounce_ns());
}

#endif
