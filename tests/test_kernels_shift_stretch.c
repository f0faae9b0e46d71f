/* TinShift in cache (the default streaming size): runs that are contiguous
   in the input as well as in the output (equal shifts of neighbouring
   groups; whole rows with G = 1 or with one shift across a row; images with
   the same shift) or all zero-filled are moved as one stretch. Checked
   against a per-element reference for every variant the machine has and
   plain C, alone and split over a parallel_for at uneven rows. */
/* small enough that these shapes are handed to parallel_for */
#define TASKIR_TINSHIFT_SPLIT_BYTES ((size_t)4096)
#define TASKIR_IMPLEMENTATION
#include "taskir_kernels.h"
#include "tt.h"

#define CANARY 64

/* out[n][t][c][hw] = in[n][t - sign*s][c][hw] or 0, one element at a time. */
static void reference(const unsigned char *in, const int32_t *sh, unsigned char *out, int64_t N,
                      int64_t T, int64_t C, int64_t HW, int64_t G, size_t es, int sign) {
  int64_t n, t, c, hw;
  for (n = 0; n < N; ++n)
    for (t = 0; t < T; ++t)
      for (c = 0; c < C; ++c) {
        const int64_t st = t - (int64_t)sign * sh[n * G + c / (C / G)];
        for (hw = 0; hw < HW; ++hw) {
          const size_t o = (size_t)(((n * T + t) * C + c) * HW + hw) * es;
          if (st >= 0 && st < T) memcpy(out + o, in + (size_t)(((n * T + st) * C + c) * HW + hw) * es, es);
          else memset(out + o, 0, es);
        }
      }
}

/* A parallel_for that cuts the range into uneven chunks, run last first. */
static void uneven_parallel_for(void *user, int64_t n, ti_range_fn fn, void *arg) {
  int64_t cut[8], k = 0, b, i;
  int *calls = (int *)user;
  for (b = 0; b < n && k < 7; b += 1 + b / 2 + k) cut[k++] = b;
  cut[k] = n;
  for (i = k - 1; i >= 0; --i) { fn(arg, cut[i], cut[i + 1]); ++*calls; }
}

/* The three modes with the given shifts against the reference, output at
   off and input at in_off bytes past a 64-byte boundary, the bytes before
   and after the output checked untouched. */
static int run_shifts_at(int64_t N, int64_t T, int64_t C, int64_t HW, int64_t G, ti_dtype dt,
                         const int32_t *sh, const ti_kernel_ctx *ctx, size_t off, size_t in_off) {
  static const ti_tinshift_mode modes[3] = {TI_TINSHIFT_FORWARD, TI_TINSHIFT_BACKWARD,
                                            TI_TINSHIFT_BACKWARD_COMPAT};
  static const int sign[3] = {1, -1, 1};
  const size_t es = ti_dtype_size(dt), bytes = (size_t)(N * T * C * HW) * es;
  unsigned char *inb = (unsigned char *)malloc(bytes + 128), *want = (unsigned char *)malloc(bytes), *in;
  unsigned char *outb = (unsigned char *)malloc(bytes + CANARY + off + 64), *out;
  ti_tensor_desc x, s;
  int64_t dims[4];
  size_t i;
  int m, bad = 0;
  if (!inb || !want || !outb) { free(inb); free(want); free(outb); return 1; }
  in = inb + ((size_t)(-(uintptr_t)inb) & 63) + in_off;
  out = outb + ((size_t)(-(uintptr_t)outb) & 63) + off;
  dims[0] = N; dims[1] = T; dims[2] = C; dims[3] = HW;
  ti_tensor_desc_set(&x, dt, 4, dims);
  dims[1] = G;
  ti_tensor_desc_set(&s, TI_DTYPE_I32, 2, dims);
  for (i = 0; i < bytes; ++i) in[i] = (unsigned char)(i * 37u + 11u + i / 251u);
  for (m = 0; m < 3; ++m) {
    memset(outb, 0xA5, bytes + CANARY + off + 64);
    reference(in, sh, want, N, T, C, HW, G, es, sign[m]);
    if (ti_tinshift_ex(ctx, modes[m], &x, in, &s, sh, &x, out) != TI_STATUS_SUCCESS) bad = 1;
    if (memcmp(out, want, bytes) != 0) bad = 1;
    for (i = 0; outb + i < out; ++i) if (outb[i] != 0xA5) bad = 1;
    for (i = 0; i < CANARY; ++i) if (out[bytes + i] != 0xA5) bad = 1;
  }
  free(inb); free(want); free(outb);
  return bad;
}

static int run_shifts(int64_t N, int64_t T, int64_t C, int64_t HW, int64_t G, ti_dtype dt,
                      const int32_t *sh, const ti_kernel_ctx *ctx) {
  return run_shifts_at(N, T, C, HW, G, dt, sh, ctx, 4, 0);
}

/* The CPU sets of every TinShift variant this machine has, then 0 (plain
   C); returns how many. */
static int tinshift_sets(unsigned *sets) {
  unsigned have = ti_cpu_detect();
  int ns = 0;
#define VARIANT(id, name, cpu, need, families) \
  if (((families) & TI_FAMILY_TINSHIFT) && ((cpu) & have & (need)) == (unsigned)(need)) sets[ns++] = (cpu) & have;
  TI_KERNEL_VARIANTS(VARIANT)
#undef VARIANT
  sets[ns++] = 0;  /* plain C */
  return ns;
}

TT_TEST(test_stretches) {
  static const int64_t shapes[][6] = {
    /* N, T, C, HW, G, f16 */
    {3, 6, 96, 1, 1, 0},    /* G = 1: 384-byte rows */
    {4, 5, 8, 40, 1, 1},    /* G = 1, f16: 640-byte rows */
    {3, 4, 48, 9, 3, 0},    /* 576-byte runs */
    {2, 7, 1200, 1, 1, 0},  /* 4800-byte rows: past every variant's vector moves */
    {3, 5, 2400, 1, 2, 1},  /* 2400-byte runs */
    {2, 3, 4, 1, 1, 0},     /* 16-byte rows */
    {17, 8, 1024, 1, 2, 0}, /* 2 KiB runs, 544 KiB: past AVX-512's vector moves beyond the L2 */
    {6, 5, 64, 1, 4, 0},    /* 64-byte runs: row by row */
    {5, 7, 96, 1, 6, 1},    /* 32-byte runs, f16: row by row */
  };
  unsigned sets[TI_VARIANT_COUNT + 1];
  int ns = 0, v, p, q, calls = 0;
  size_t k;
  ns = tinshift_sets(sets);
  for (v = 0; v < ns; ++v)
    for (q = 0; q < 2; ++q) {
      ti_kernel_ctx ctx;
      ti_kernel_ctx_init(&ctx);
      ctx.cpu = sets[v];
      if (q) { ctx.parallel_for = uneven_parallel_for; ctx.parallel_user = &calls; }
      for (k = 0; k < sizeof shapes / sizeof shapes[0]; ++k)
        for (p = 0; p < 6; ++p) {
          const int64_t *s = shapes[k], N = s[0], T = s[1], G = s[4];
          int32_t sh[64];
          int64_t n, g;
          for (n = 0; n < N; ++n)
            for (g = 0; g < G; ++g) {
              int32_t e;
              if (p == 0) e = 1;                                   /* one shift everywhere */
              else if (p == 1) e = (int32_t)(n == 1 ? -2 : 2);     /* images 0 and 2 alike */
              else if (p == 2) e = (int32_t)(n % 2 ? T : -T);      /* all zeros */
              else if (p == 3) e = (int32_t)(g == 0 ? 0 : T + 1);  /* zeros after a copy */
              else if (p == 4) e = (int32_t)(n == 0 ? 0 : -1);     /* 0: the whole image */
              else e = (int32_t)((n + g) % 3) - 1;
              sh[n * G + g] = e;
            }
          TT_CHECK_MSG(!run_shifts(N, T, s[2], s[3], G, s[5] ? TI_DTYPE_F16 : TI_DTYPE_F32, sh, &ctx),
                       "cpu 0x%x hook %d shape %u pattern %d", sets[v], q, (unsigned)k, p);
        }
    }
  TT_CHECK(calls > 0);  /* the larger shapes were split */
}

/* The vector moves of runs over two vectors: the first vector, then stores
   aligned to the output's vectors, the last vector overlapping. Runs whole
   and not whole numbers of vectors (odd f16 element counts), at every
   output offset to a line that the dtype allows, zero runs at both ends of
   a group's rows and in its middle rows' neighbours, the input at the
   output's offset to a line (the stores are aligned then) and 16 bytes
   from it (AVX2, AVX-512: unaligned stores), up to each variant's
   cap and past it (AVX-512: 8 KiB in outputs up to 512 KiB, 2 KiB up to
   1 MiB, 8 KiB up to the streaming size). */
TT_TEST(test_vector_runs) {
  static const int64_t shapes[][6] = {
    /* N, T, C, HW, G, f16 */
    {2, 5, 99, 1, 3, 1},     /* 66-byte runs: just past one AVX-512 vector */
    {2, 5, 65, 1, 5, 1},     /* 26 bytes: below every vector path */
    {2, 6, 130, 1, 2, 1},    /* 130 bytes */
    {2, 4, 63, 1, 3, 0},     /* 84 bytes */
    {1, 6, 381, 1, 3, 1},    /* 254 bytes */
    {2, 5, 129, 1, 3, 1},    /* 86 bytes */
    {1, 5, 516, 1, 4, 1},    /* 258 bytes */
    {1, 4, 1536, 1, 6, 0},   /* 1 KiB */
    {1, 4, 1539, 1, 3, 1},   /* 1026 bytes */
    {1, 4, 4094, 1, 2, 1},   /* 4094 bytes */
    {1, 3, 4100, 1, 4, 0},   /* 4100 bytes */
    {1, 3, 8190, 1, 2, 1},   /* 8190 bytes */
    {1, 3, 4096, 1, 2, 0},   /* 8 KiB: the AVX-512 cap in outputs up to 512 KiB */
    {1, 3, 8194, 1, 2, 0},   /* 16388 bytes: past every cap */
    {3, 4, 4098, 1, 2, 1},   /* 4098 bytes */
    {37, 8, 1024, 1, 4, 0},  /* 1 KiB runs in a 1.2 MiB output */
    {19, 8, 1024, 1, 1, 1},  /* 2 KiB rows, 608 KiB */
    {9, 8, 4096, 1, 4, 0},   /* 4 KiB runs in a 1.1 MiB output */
    {10, 8, 2048, 1, 4, 0},  /* 2 KiB runs in 640 KiB */
    {4, 8, 4100, 1, 4, 1},   /* 2050 bytes, 512.5 KiB */
    {5, 8, 512, 1, 8, 0},    /* 256 bytes: whole lines (line-aligned stores when the offsets agree) */
    {2, 5, 512, 1, 4, 1},    /* 256 bytes, f16 */
    {2, 4, 640, 1, 8, 0},    /* 320 bytes */
    {3, 6, 768, 1, 6, 0},    /* 512 bytes */
    {17, 8, 4096, 1, 2, 0},  /* 8 KiB runs in a 2.1 MiB output: the cap from 1 MiB on */
    {17, 8, 8190, 1, 2, 1},  /* 8190 bytes, 2.1 MiB */
    {9, 8, 8194, 1, 2, 0},   /* 16388 bytes, 2.3 MiB: past it */
  };
  static const size_t offs[] = {0, 2, 4, 14, 16, 30, 36, 48, 62};
  unsigned sets[TI_VARIANT_COUNT + 1];
  int ns = 0, v, p, calls = 0;
  size_t k, o, a;
  ns = tinshift_sets(sets);
  for (v = 0; v < ns; ++v)
    for (k = 0; k < sizeof shapes / sizeof shapes[0]; ++k)
      for (p = 0; p < 3; ++p)
        for (o = 0; o < sizeof offs / sizeof offs[0]; ++o)
          for (a = 0; a < 2; ++a) {
            const int64_t *s = shapes[k], N = s[0], T = s[1], G = s[4];
            const ti_dtype dt = s[5] ? TI_DTYPE_F16 : TI_DTYPE_F32;
            ti_kernel_ctx ctx;
            int32_t sh[512];
            int64_t n, g;
            /* the big shapes at three offsets only, split over parallel_for */
            if (N * T * s[2] > 100000 && o % 4 != 0) continue;
            if (offs[o] % ti_dtype_size(dt) != 0) continue;
            ti_kernel_ctx_init(&ctx);
            ctx.cpu = sets[v];
            if (N * T * s[2] > 100000) { ctx.parallel_for = uneven_parallel_for; ctx.parallel_user = &calls; }
            for (n = 0; n < N; ++n)
              for (g = 0; g < G; ++g) {
                int32_t e;
                if (p == 0) e = (int32_t)((n + g) % 5) - 2;               /* the grid's pattern */
                else if (p == 1) e = (int32_t)(g % 2 ? T - 1 : 1 - T);    /* one copy, zeros at either end */
                else e = (int32_t)((n * 7 + g * 3) % (2 * T + 3)) - T - 1; /* every shift, |s| >= T too */
                sh[n * G + g] = e;
              }
            TT_CHECK_MSG(!run_shifts_at(N, T, s[2], s[3], G, dt, sh, &ctx, offs[o], (offs[o] + 16 * a) & 63),
                         "cpu 0x%x shape %u pattern %d offset %u input %u", sets[v], (unsigned)k, p,
                         (unsigned)offs[o], (unsigned)((offs[o] + 16 * a) & 63));
          }
  TT_CHECK(calls > 0);
}

int main(void) {
  TT_RUN(test_stretches);
  TT_RUN(test_vector_runs);
  return tt_finish();
}
