/* Benchmark of CC and CVM in taskir_kernels.h, single core. Every figure is
   a ratio measured in this run:
   - speed-up of each SIMD path over the plain C reference;
   - CC int8 throughput on ResNet-like layers as a fraction of this core's
     int8 MAC limit, the best of several vpdpbusd loop shapes, or of tdpbusd
     ones for the AMX variant (vnni_peak.h);
   - CVM with weights larger than the caches as a fraction of the memory
     bandwidth limit: median of paired ratios to a streaming read of the
     same bytes, run alternately. */
#define _POSIX_C_SOURCE 200809L
#define TASKIR_IMPLEMENTATION
#include "taskir_kernels.h"
#include "bench_check.h"
#include "vnni_peak.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t rng_s = 88172645463325252ULL;
static uint64_t rnd(void) { rng_s ^= rng_s << 13; rng_s ^= rng_s >> 7; rng_s ^= rng_s << 17; return rng_s; }
static void fill8(void *p, size_t n) { size_t i; for (i = 0; i < n; i++) ((uint8_t *)p)[i] = (uint8_t)rnd(); }

static volatile uint32_t sink;

/* Streaming reads of p in several loop shapes (sums of the loaded vectors,
   so nothing is skipped): 512- and 256-bit loads, one, two or four
   sequential streams (equal parts of p), with and without software
   prefetch. The CVM rows are measured against the fastest of them on the
   same bytes (chosen by read_pick), so the bandwidth limit is the best a
   plain read loop reaches, not one loop's shape. */
#if defined(__AVX512F__)
#define RD_W 64
typedef __m512i rd_v;
#define RD_LD(p) _mm512_loadu_si512((const void *)(p))
#define RD_ADD(a, b) _mm512_add_epi32(a, b)
#define RD_ZERO() _mm512_setzero_si512()
#define RD_SUM(v) (uint32_t)_mm512_reduce_add_epi32(v)
#elif defined(__AVX2__)
#define RD_W 32
typedef __m256i rd_v;
#define RD_LD(p) _mm256_loadu_si256((const __m256i *)(p))
#define RD_ADD(a, b) _mm256_add_epi32(a, b)
#define RD_ZERO() _mm256_setzero_si256()
#define RD_SUM(v) ((uint32_t)_mm256_extract_epi32(v, 0) + (uint32_t)_mm256_extract_epi32(v, 7))
#endif
#if defined(__AVX2__)
typedef __m256i rd_y;
#define RY_LD(p) _mm256_loadu_si256((const __m256i *)(p))
#define RY_ADD(a, b) _mm256_add_epi32(a, b)
#define RY_ZERO() _mm256_setzero_si256()
#define RY_SUM(v) ((uint32_t)_mm256_extract_epi32(v, 0) + (uint32_t)_mm256_extract_epi32(v, 7))
#endif
#define RD_PF(p, d) _mm_prefetch((const char *)(p) + (d), _MM_HINT_T0)
/* S streams of vector type T (loader L), 4/S vectors per stream per step,
   prefetch D bytes ahead (0: none). */
#define READ_LOOP(NAME, T, L, ADD, ZERO, SUM, VW, S, D)                                           \
  static void NAME(const uint8_t *p, size_t n) {                                              \
    T a[4];                                                                                   \
    size_t part = n / (S) / (4 * (VW)) * (4 * (VW)), i, q, k;                                  \
    for (k = 0; k < 4; k++) a[k] = ZERO();                                                    \
    for (i = 0; i < part; i += 4 * (VW) / (S))                                                 \
      for (q = 0; q < (S); q++)                                                                \
        for (k = 0; k < 4 / (S); k++) {                                                        \
          const uint8_t *b = p + q * part + i + k * (VW);                                      \
          if ((D) && (((uintptr_t)b) & 63) < (VW)) RD_PF(b, D);                                \
          a[q * (4 / (S)) + k] = ADD(a[q * (4 / (S)) + k], L(b));                              \
        }                                                                                      \
    sink = SUM(ADD(ADD(a[0], a[1]), ADD(a[2], a[3])));                                         \
  }
#if defined(__AVX512F__)
READ_LOOP(rd_z1, rd_v, RD_LD, RD_ADD, RD_ZERO, RD_SUM, 64, 1, 0)
READ_LOOP(rd_z1p2k, rd_v, RD_LD, RD_ADD, RD_ZERO, RD_SUM, 64, 1, 2048)
READ_LOOP(rd_z1p4k, rd_v, RD_LD, RD_ADD, RD_ZERO, RD_SUM, 64, 1, 4096)
READ_LOOP(rd_z2, rd_v, RD_LD, RD_ADD, RD_ZERO, RD_SUM, 64, 2, 0)
READ_LOOP(rd_z4, rd_v, RD_LD, RD_ADD, RD_ZERO, RD_SUM, 64, 4, 0)
READ_LOOP(rd_z4p1k, rd_v, RD_LD, RD_ADD, RD_ZERO, RD_SUM, 64, 4, 1024)
#endif
#if defined(__AVX2__)
READ_LOOP(rd_y1, rd_y, RY_LD, RY_ADD, RY_ZERO, RY_SUM, 32, 1, 0)
READ_LOOP(rd_y1p2k, rd_y, RY_LD, RY_ADD, RY_ZERO, RY_SUM, 32, 1, 2048)
READ_LOOP(rd_y1p4k, rd_y, RY_LD, RY_ADD, RY_ZERO, RY_SUM, 32, 1, 4096)
READ_LOOP(rd_y2, rd_y, RY_LD, RY_ADD, RY_ZERO, RY_SUM, 32, 2, 0)
READ_LOOP(rd_y4, rd_y, RY_LD, RY_ADD, RY_ZERO, RY_SUM, 32, 4, 0)
READ_LOOP(rd_y4p1k, rd_y, RY_LD, RY_ADD, RY_ZERO, RY_SUM, 32, 4, 1024)
#endif
static void rd_scalar(const uint8_t *p, size_t n) {
  uint64_t s = 0, v;
  size_t i;
  for (i = 0; i + 8 <= n; i += 8) { memcpy(&v, p + i, 8); s += v; }
  sink = (uint32_t)s;
}
typedef struct { const char *name; void (*f)(const uint8_t *, size_t); } read_loop;
static const read_loop read_loops[] = {
#if defined(__AVX512F__)
  {"512-bit", rd_z1}, {"512-bit pf 2K", rd_z1p2k}, {"512-bit pf 4K", rd_z1p4k},
  {"512-bit 2 streams", rd_z2}, {"512-bit 4 streams", rd_z4}, {"512-bit 4 streams pf 1K", rd_z4p1k},
#endif
#if defined(__AVX2__)
  {"256-bit", rd_y1}, {"256-bit pf 2K", rd_y1p2k}, {"256-bit pf 4K", rd_y1p4k},
  {"256-bit 2 streams", rd_y2}, {"256-bit 4 streams", rd_y4}, {"256-bit 4 streams pf 1K", rd_y4p1k},
#endif
  {"64-bit scalar", rd_scalar}};
enum { N_READ = (int)(sizeof read_loops / sizeof read_loops[0]) };

static double read_once(const read_loop *l, const uint8_t *p, size_t n) {
  double t = now();
  l->f(p, n);
  return now() - t;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
static double median(double *v, int n) { qsort(v, (size_t)n, sizeof *v, cmp_d); return v[n / 2]; }

/* The two fastest read loops on these bytes: every shape in turn, ROUNDS
   rounds, the best two medians (so one lucky or unlucky round does not
   decide the reference alone); prints every shape's median (GB/s). */
static void read_pick(const uint8_t *p, size_t n, const read_loop **best2) {
  enum { ROUNDS = 9 };
  static double t[N_READ][ROUNDS];
  int i, r, b0 = 0, b1 = -1;
  double med[N_READ];
  for (r = 0; r < ROUNDS; r++)
    for (i = 0; i < N_READ; i++) t[i][r] = read_once(&read_loops[i], p, n);
  printf("  read loops (GB/s, medians of %d):", ROUNDS);
  for (i = 0; i < N_READ; i++) {
    med[i] = median(t[i], ROUNDS);
    printf("%s %s %.1f", i ? "," : "", read_loops[i].name, n / med[i] / 1e9);
  }
  printf("\n");
  for (i = 1; i < N_READ; i++)
    if (med[i] < med[b0]) { b1 = b0; b0 = i; }
    else if (b1 < 0 || med[i] < med[b1]) b1 = i;
  best2[0] = &read_loops[b0];
  best2[1] = &read_loops[b1 < 0 ? b0 : b1];
}

typedef struct { const char *name; unsigned cpu; } path;

/* Every SIMD variant this machine has (TI_KERNEL_VARIANTS), slowest first. */
static int paths(path *ps) {
  unsigned det = ti_cpu_detect();
  path t;
  int n = 0, i;
#define VARIANT(id, nm, level, need, families) \
  if (((level) & det & (need)) == (unsigned)(need)) { ps[n].name = nm; ps[n].cpu = (level) & det; n++; }
  TI_KERNEL_VARIANTS(VARIANT)
#undef VARIANT
  for (i = 0; i < n / 2; i++) { t = ps[i]; ps[i] = ps[n - 1 - i]; ps[n - 1 - i] = t; }
  return n;
}

/* Seconds per call, best of reps after one warm-up. */
static double time_cc(unsigned cpu, const ti_prim_desc *d, const void *in, const void *packed,
                      size_t pb, const void *bias, void *out, void *s, size_t sb, int reps) {
  ti_kernel_ctx ctx;
  double best = 1e30;
  int r;
  ti_kernel_ctx_init(&ctx);
  ctx.cpu = cpu;
  if (ti_cc_packed(&ctx, d, in, packed, pb, bias, out, s, sb)) { printf("ti_cc_packed failed\n"); exit(1); }
  for (r = 0; r < reps; r++) {
    double t = now();
    BENCH_OK(ti_cc_packed(&ctx, d, in, packed, pb, bias, out, s, sb));
    t = now() - t;
    if (t < best) best = t;
  }
  return best;
}

static ti_prim_desc conv3x3(int h, int c, int f) {
  ti_prim_desc d;
  memset(&d, 0, sizeof d);
  d.niy = d.nix = d.ny = d.nx = h; d.nr = c; d.nf = f; d.nky = d.nkx = 3;
  d.pad_up = d.pad_down = d.pad_left = d.pad_right = 1;
  d.in_dtype = TI_DTYPE_I8; d.w_dtype = TI_DTYPE_I8; d.out_dtype = TI_DTYPE_I32;
  d.bias_mode = TI_BIAS_VECTOR;
  return d;
}

static void bench_cc(const char *label, ti_prim_desc d, double peak, double amx, const path *ps, int np) {
  size_t ni = (size_t)d.niy * d.nix * d.nr, nw = (size_t)d.nf * d.nr * 9, no = (size_t)d.ny * d.nx * d.nf;
  size_t pb, sb;
  void *in = malloc(ni), *w = malloc(nw), *bias = malloc((size_t)d.nf * 4), *packed, *s;
  int32_t *ref = (int32_t *)malloc(no * 4), *out = (int32_t *)malloc(no * 4);
  double macs = (double)no * d.nr * 9, tref, t;
  int i;
  fill8(in, ni); fill8(w, nw); fill8(bias, (size_t)d.nf * 4);
  BENCH_OK(ti_cc_pack_size(&d, &pb)); BENCH_OK(ti_cc_scratch_size(&d, 1, &sb));
  packed = bench_alloc64(pb); s = malloc(sb);   /* packed weights at a line */
  BENCH_OK(ti_cc_pack_weights(&d, w, packed, pb));
  tref = now(); BENCH_OK(ti_cc_ref(&d, in, w, bias, ref)); tref = now() - tref;
  printf("CC int8 %s: %.0f MMAC, reference %.2f GMAC/s\n", label, macs / 1e6, macs / tref / 1e9);
  for (i = 0; i < np; i++) {
    t = time_cc(ps[i].cpu, &d, in, packed, pb, bias, out, s, sb, 10);
    printf("  %-12s %7.1f GMAC/s  x%6.1f vs reference", ps[i].name, macs / t / 1e9, tref / t);
    if (amx > 0 && (ps[i].cpu & TI_CPU_AMXINT8)) printf("  %5.1f%% of tdpbusd limit", 100.0 * macs / t / amx);
    else if (peak > 0) printf("  %5.1f%% of vpdpbusd limit", 100.0 * macs / t / peak);
    printf("%s\n", memcmp(out, ref, no * 4) ? "  MISMATCH" : "");
  }
  free(in); free(w); free(bias); free(packed); free(s); free(ref); free(out);
}

/* Speed-up of each path over the reference on one wide-type CC (I32 or F32). */
static void bench_cc_wide(ti_dtype t, ti_prim_desc d, const path *ps, int np) {
  size_t ni = (size_t)d.niy * d.nix * d.nr, nw = (size_t)d.nf * d.nr * d.nky * d.nkx;
  size_t no = (size_t)d.ny * d.nx * d.nf, pb, sb, i;
  void *in = malloc(ni * 4), *w = malloc(nw * 4), *bias = malloc((size_t)d.nf * 4), *packed, *s;
  int32_t *ref = (int32_t *)malloc(no * 4), *out = (int32_t *)malloc(no * 4);
  double macs = (double)no * d.nr * d.nky * d.nkx, tref, tt;
  int k;
  d.in_dtype = d.w_dtype = d.out_dtype = t;
  for (i = 0; i < ni; i++) ((float *)in)[i] = (float)(int)(rnd() % 200) - 100.0f;
  for (i = 0; i < nw; i++) ((float *)w)[i] = (float)(int)(rnd() % 200) / 64.0f;
  for (i = 0; i < (size_t)d.nf; i++) ((float *)bias)[i] = 1.0f;
  if (t == TI_DTYPE_I32) { fill8(in, ni * 4); fill8(w, nw * 4); }
  BENCH_OK(ti_cc_pack_size(&d, &pb)); BENCH_OK(ti_cc_scratch_size(&d, 1, &sb));
  packed = bench_alloc64(pb); s = malloc(sb);   /* packed weights at a line */
  BENCH_OK(ti_cc_pack_weights(&d, w, packed, pb));
  tref = now(); BENCH_OK(ti_cc_ref(&d, in, w, bias, ref)); tref = now() - tref;
  printf("CC %s %dx%dx%d->%d %dx%d: reference %.2f GMAC/s\n", t == TI_DTYPE_F32 ? "f32" : "i32",
         d.niy, d.nix, d.nr, d.nf, d.nky, d.nkx, macs / tref / 1e9);
  for (k = 0; k < np; k++) {
    tt = time_cc(ps[k].cpu, &d, in, packed, pb, bias, out, s, sb, 3);
    printf("  %-12s %7.2f GMAC/s  x%6.1f vs reference%s\n", ps[k].name, macs / tt / 1e9, tref / tt,
           memcmp(out, ref, no * 4) ? "  MISMATCH" : "");
  }
  free(in); free(w); free(bias); free(packed); free(s); free(ref); free(out);
}

/* I32 input whose values fit int8 (as an executor keeping 32-bit activations
   passes them): narrowed at run time to the int8 kernels. */
static void bench_cc_i32_narrow(ti_prim_desc d, double peak, double amx, unsigned cpu) {
  size_t ni = (size_t)d.niy * d.nix * d.nr, nw = (size_t)d.nf * d.nr * 9, no = (size_t)d.ny * d.nx * d.nf;
  size_t pb, sb, i;
  int32_t *in = (int32_t *)malloc(ni * 4), *ref = (int32_t *)malloc(no * 4), *out = (int32_t *)malloc(no * 4);
  void *w = malloc(nw), *bias = malloc((size_t)d.nf * 4), *packed, *s;
  double macs = (double)no * d.nr * 9, t;
  d.in_dtype = TI_DTYPE_I32;
  for (i = 0; i < ni; i++) in[i] = (int32_t)(rnd() % 256) - 128;
  fill8(w, nw); fill8(bias, (size_t)d.nf * 4);
  BENCH_OK(ti_cc_pack_size(&d, &pb)); BENCH_OK(ti_cc_scratch_size(&d, 1, &sb));
  packed = bench_alloc64(pb); s = malloc(sb);   /* packed weights at a line */
  BENCH_OK(ti_cc_pack_weights(&d, w, packed, pb));
  BENCH_OK(ti_cc_ref(&d, in, w, bias, ref));
  t = time_cc(cpu, &d, in, packed, pb, bias, out, s, sb, 10);
  printf("CC i32 input in int8 range x i8 weights %dx%dx%d->%d: %.1f GMAC/s", d.niy, d.nix, d.nr,
         d.nf, macs / t / 1e9);
  if (amx > 0 && (cpu & TI_CPU_AMXINT8)) printf(", %.1f%% of tdpbusd limit", 100.0 * macs / t / amx);
  else if (peak > 0) printf(", %.1f%% of vpdpbusd limit", 100.0 * macs / t / peak);
  printf("%s\n", memcmp(out, ref, no * 4) ? "  MISMATCH" : "");
  free(in); free(ref); free(out); free(w); free(bias); free(packed); free(s);
}

/* CVM with weights beyond the L2: each run is paired with a run of each of
   the two fastest read loops (read_pick) over the same weight bytes,
   alternately, and the figure is the median over the pairs of (the faster
   read's time / CVM time), so
   a busy machine moves both sides of a pair alike. With all_paths, every
   variant, then what ti_cvm picks with every feature the CPU has (a variant
   row is limited to its own features); else that pick alone. Returns the
   pick's figure. */
static double bench_cvm(int nf, int nr, ti_dtype tin, ti_dtype tw, const path *ps, int np, int all_paths) {
  enum { PAIRS = 41 };
  ti_prim_desc d;
  size_t nw = (size_t)nf * nr, k;
  uint8_t *w = (uint8_t *)malloc(nw), *in = (uint8_t *)malloc((size_t)nr);
  int32_t *ref = (int32_t *)malloc((size_t)nf * 4), *out = (int32_t *)malloc((size_t)nf * 4);
  double tref, ratio[PAIRS], gbs[PAIRS], rd[PAIRS], last = 0;
  const read_loop *rl[2];
  int i, r;
  memset(&d, 0, sizeof d);
  d.ny = d.nx = 1; d.nf = nf; d.nr = nr; d.in_dtype = tin; d.w_dtype = tw;
  d.out_dtype = TI_DTYPE_I32; d.bias_mode = TI_BIAS_NONE;
  fill8(w, nw); fill8(in, (size_t)nr);
  if (tw == TI_DTYPE_TERNARY) for (k = 0; k < nw; k++) w[k] = (uint8_t)(int8_t)((int)(w[k] % 3) - 1);
  if (tin == TI_DTYPE_TERNARY) for (k = 0; k < (size_t)nr; k++) in[k] = (uint8_t)(int8_t)((int)(in[k] % 3) - 1);
  tref = now(); BENCH_OK(ti_cvm_ref(&d, in, w, NULL, ref)); tref = now() - tref;
  printf("CVM %s x %s %dx%d (%.1f MB of weights), reference %.2f GB/s; medians of %d pairs\n",
         tin == TI_DTYPE_TERNARY ? "ternary" : tin == TI_DTYPE_U8 ? "u8" : "i8",
         tw == TI_DTYPE_TERNARY ? "ternary" : "i8", nf, nr, nw / 1e6, nw / tref / 1e9, PAIRS);
  read_pick(w, nw, rl);
  for (i = all_paths ? 0 : np; i <= np; i++) {   /* row np: ti_cvm's default pick, every feature the CPU has */
    ti_kernel_ctx ctx;
    ti_kernel_ctx_init(&ctx);
    if (i < np) ctx.cpu = ps[i].cpu;
    BENCH_OK(ti_cvm(&ctx, &d, in, w, NULL, out, NULL, 0));
    for (r = 0; r < PAIRS; r++) {
      /* the CVM's place among the three calls rotates from pair to pair: from
         memory the bandwidth of successive calls was seen to cycle (about
         30, 10, 6 GB/s, read loops alike), so that a fixed order cannot put
         the CVM on one phase of the cycle in every pair */
      double ts = 0, t = 0;
      int c, k = 0;
      for (c = 0; c < 3; c++) {
        if (c == r % 3) {
          t = now();
          BENCH_OK(ti_cvm(&ctx, &d, in, w, NULL, out, NULL, 0));
          t = now() - t;
        } else {
          const double tr = read_once(rl[k++], w, nw);
          if (ts == 0 || tr < ts) ts = tr;
        }
      }
      ratio[r] = ts / t; gbs[r] = nw / t / 1e9; rd[r] = nw / ts / 1e9;
    }
    printf("  %-12s %6.1f GB/s  x%6.1f vs reference  %5.2f of the faster of the %s and %s reads (%.1f GB/s)%s\n",
           i < np ? ps[i].name : "default", median(gbs, PAIRS), tref * median(gbs, PAIRS) * 1e9 / nw,
           median(ratio, PAIRS), rl[0]->name, rl[1]->name, median(rd, PAIRS),
           memcmp(out, ref, (size_t)nf * 4) ? "  MISMATCH" : "");
    last = median(ratio, PAIRS);
  }
  free(w); free(in); free(ref); free(out);
  return last;
}

int main(int argc, char **argv) {
  path ps[TI_VARIANT_COUNT];
  int np = paths(ps), cvm_pass = 0, cvm_only = argc > 1 && !strcmp(argv[1], "cvm");   /* "cvm": the CVM rows alone */
  double peak = cvm_only ? 0 : vnni_peak(1), amx = cvm_only ? 0 : amx_peak(1);
  if (!cvm_only) {
    if (peak > 0) printf("vpdpbusd limit (zmm, 1 core, best loop shape): %.1f GMAC/s\n", peak / 1e9);
    else printf("no AVX-512 VNNI in this build: no peak reference\n");
    if (amx > 0) printf("tdpbusd limit (AMX, 1 core, best loop shape): %.1f GMAC/s\n", amx / 1e9);
    bench_cc("56x56x64->64 3x3 pad 1", conv3x3(56, 64, 64), peak, amx, ps, np);
    bench_cc("14x14x256->256 3x3 pad 1", conv3x3(14, 256, 256), peak, amx, ps, np);
    bench_cc_i32_narrow(conv3x3(56, 64, 64), peak, amx, ti_cpu_detect());
    bench_cc_wide(TI_DTYPE_I32, conv3x3(28, 64, 64), ps, np);
    bench_cc_wide(TI_DTYPE_F32, conv3x3(28, 64, 64), ps, np);
  }
  /* L2 is 1 MiB per core on the reference machine: 4 to 64 MiB of weights
     (up to 16 MiB inside the L3) and rows of 16 KiB (inputs beyond half
     the L1), every variant for int8 and the default pick for u8 input and
     ternary */
  {
    static const int shapes[][2] = {{1024, 4096}, {2048, 4096}, {4096, 4096}, {4096, 8192}, {8192, 8192},
                                    {2048, 16384}};
    static const ti_dtype types[][2] = {{TI_DTYPE_I8, TI_DTYPE_I8}, {TI_DTYPE_U8, TI_DTYPE_I8},
                                        {TI_DTYPE_TERNARY, TI_DTYPE_TERNARY}};
    int sh, ty, n = 0;
    for (sh = 0; sh < (int)(sizeof shapes / sizeof shapes[0]); sh++)
      for (ty = 0; ty < 3; ty++, n++)
        cvm_pass += bench_cvm(shapes[sh][0], shapes[sh][1], types[ty][0], types[ty][1], ps, np, ty == 0) >= 0.9;
    printf("CVM (default pick) >= 0.9 of the fastest read loop, weights >= 4x L2: %d of %d\n", cvm_pass, n);
  }
  return 0;
}
