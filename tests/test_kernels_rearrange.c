/* Edge rearrangements and N-d transpose against independent naive versions
   written here with plain index arithmetic; shape inference and its errors. */
/* Small streaming threshold: the larger shapes take the non-temporal path. */
#define TASKIR_KERNELS_STREAM_BYTES ((size_t)1 << 16)
#define TASKIR_IMPLEMENTATION
#include "taskir_kernels.h"
#include "tt.h"
#include <math.h>

#define MAXD TI_MAX_RANK

static int64_t vol_of(int nd, const int64_t *d) {
  int64_t v = 1; int i;
  for (i = 0; i < nd; ++i) v *= d[i];
  return v;
}
static void unravel(int64_t o, int nd, const int64_t *d, int64_t *ix) {
  int i;
  for (i = nd - 1; i >= 0; --i) { ix[i] = o % d[i]; o /= d[i]; }
}
static int64_t ravel(int nd, const int64_t *d, const int64_t *ix) {
  int64_t o = 0; int i;
  for (i = 0; i < nd; ++i) o = o * d[i] + ix[i];
  return o;
}
static ti_rearrange_param P(const int32_t *v, int64_t n) {
  ti_rearrange_param p;
  memset(&p, 0, sizeof p);
  p.i32 = v; p.n_i32 = n;
  return p;
}
static ti_rearrange_param PF(const float *v, int64_t n) {
  ti_rearrange_param p;
  memset(&p, 0, sizeof p);
  p.f32 = v; p.n_f32 = n;
  return p;
}
static void fill_rand(tt_rng *r, unsigned char *b, size_t n) {
  size_t i;
  for (i = 0; i < n; ++i) b[i] = (unsigned char)(1 + tt_next(r) % 255);  /* never 0: fills show */
}

/* Runs apply and compares with want (volume wv elements). Adds a canary. */
static int run_apply(int kind, const ti_rearrange_param *p, int np, size_t es, int nd,
                     const int64_t *dims, const unsigned char *in, const unsigned char *want,
                     int wnd, const int64_t *wdims) {
  int on = -1, i, bad = 0;
  int64_t od[MAXD], wv = vol_of(wnd, wdims);
  size_t bytes = (size_t)wv * es;
  unsigned char *out = (unsigned char *)malloc(bytes + 32);
  const char *why = "x";
  if (ti_rearrange_infer_ex(kind, p, np, nd, dims, &on, od, &why) != TI_STATUS_SUCCESS) {
    fprintf(stderr, "    infer failed: %s\n", why ? why : "(null)");
    free(out);
    return 1;
  }
  if (why != NULL) bad = 1;
  if (on != wnd) bad = 1;
  for (i = 0; i < on && i < wnd; ++i) if (od[i] != wdims[i]) bad = 1;
  memset(out, 0xEE, bytes + 32);
  if (ti_rearrange_apply(kind, p, np, es, nd, dims, in, wnd, wdims, out) != TI_STATUS_SUCCESS) bad = 1;
  if (memcmp(out, want, bytes) != 0) bad = 1;
  for (i = 0; i < 32; ++i) if (out[bytes + i] != 0xEE) bad = 1;
  free(out);
  return bad;
}

static void naive_transpose(size_t es, int nd, const int64_t *d, const int *perm,
                            const unsigned char *in, unsigned char *out) {
  int64_t od[MAXD], oi[MAXD], ii[MAXD], o, v = vol_of(nd, d);
  int k;
  for (k = 0; k < nd; ++k) od[k] = d[perm[k]];
  for (o = 0; o < v; ++o) {
    unravel(o, nd, od, oi);
    for (k = 0; k < nd; ++k) ii[perm[k]] = oi[k];
    memcpy(out + (size_t)o * es, in + (size_t)ravel(nd, d, ii) * es, es);
  }
}

static void random_dims(tt_rng *r, int nd, int64_t *d, int64_t maxvol) {
  int i;
  for (;;) {
    for (i = 0; i < nd; ++i) d[i] = tt_range(r, 1, 9);
    if (vol_of(nd, d) <= maxvol) return;
  }
}
static void random_perm(tt_rng *r, int nd, int *p) {
  int i;
  for (i = 0; i < nd; ++i) p[i] = i;
  for (i = nd - 1; i > 0; --i) {
    int j = (int)tt_range(r, 0, i), t = p[i];
    p[i] = p[j]; p[j] = t;
  }
}
static size_t random_es(tt_rng *r) { return (size_t)1 << tt_range(r, 0, 3); }

TT_TEST(test_names) {
  TT_EQ_INT(TI_REARRANGE_COUNT, 11);
  TT_EQ_INT(TI_REARRANGE_SHUFFLE, 10);
  TT_EQ_STR(ti_rearrange_kind_name(TI_REARRANGE_IDENTITY), "IDENTITY");
  TT_EQ_STR(ti_rearrange_kind_name(TI_REARRANGE_RESHAPE), "RESHAPE");
  TT_EQ_STR(ti_rearrange_kind_name(TI_REARRANGE_AFFINE), "AFFINE");
  TT_EQ_STR(ti_rearrange_kind_name(TI_REARRANGE_SHUFFLE), "SHUFFLE");
  TT_CHECK(ti_rearrange_kind_name(TI_REARRANGE_COUNT) == NULL);
  TT_CHECK(ti_rearrange_kind_name(-1) == NULL);
}

TT_TEST(test_transpose_random) {
  tt_rng r = {12345};
  int k;
  for (k = 0; k < 400; ++k) {
    int nd = (int)tt_range(&r, 1, 6), perm[MAXD];
    int64_t d[MAXD], v;
    size_t es = random_es(&r), bytes, i;
    unsigned char *in, *want, *out;
    random_dims(&r, nd, d, 6000);
    if (k % 5 == 0) { int a = (int)tt_range(&r, 0, nd - 1); d[a] = 1; }
    random_perm(&r, nd, perm);
    v = vol_of(nd, d);
    bytes = (size_t)v * es;
    in = (unsigned char *)malloc(bytes); want = (unsigned char *)malloc(bytes);
    out = (unsigned char *)malloc(bytes + 16);
    fill_rand(&r, in, bytes);
    naive_transpose(es, nd, d, perm, in, want);
    memset(out, 0xEE, bytes + 16);
    TT_EQ_INT(ti_transpose(es, nd, d, perm, in, out), TI_STATUS_SUCCESS);
    TT_CHECK_MSG(memcmp(out, want, bytes) == 0, "case %d nd=%d es=%u", k, nd, (unsigned)es);
    for (i = 0; i < 16; ++i) TT_CHECK(out[bytes + i] == 0xEE);
    free(in); free(want); free(out);
  }
}

/* The cpu flag sets to compare: each transpose variant the machine has
   (TI_KERNEL_VARIANTS), as the best one allowed, and the reference (0). */
static int cpu_sets(unsigned *sets) {
  unsigned have = ti_cpu_detect();
  int n = 0;
#define VARIANT(id, name, cpu, need, families) \
  if (((families) & TI_FAMILY_TRANSPOSE) && ((cpu) & have & (need)) == (unsigned)(need)) sets[n++] = (cpu) & have;
  TI_KERNEL_VARIANTS(VARIANT)
#undef VARIANT
  sets[n++] = 0;
  return n;
}

/* Larger 2-D, 3-D/4-D and 6-D cases on every variant: full SIMD blocks,
   tile edges (sizes that are not multiples of a block), NCHW <-> NHWC,
   tiny innermost axes (gather tiles), kept innermost runs (of 37, 50 and
   64 elements: runs of 37-512 bytes, whole lines or not, around the
   AVX-512 moves' range of 128-255 bytes). */
TT_TEST(test_transpose_shapes) {
  static const int64_t shapes[][6] = {
    {37, 45, 1, 1, 1, 1}, {64, 64, 1, 1, 1, 1}, {3, 1000, 1, 1, 1, 1}, {1000, 3, 1, 1, 1, 1},
    {257, 33, 1, 1, 1, 1}, {1, 64, 56, 56, 1, 1}, {2, 56, 56, 24, 1, 1}, {5, 7, 9, 11, 1, 1},
    {130, 70, 1, 1, 1, 1}, {6, 10, 12, 16, 1, 1}, {3, 40, 17, 64, 1, 1},
    {8, 16, 12, 10, 14, 6}, {2, 4, 3, 5, 4, 6}, {2, 16, 14, 2, 14, 2}, {1, 8, 14, 2, 14, 2},
    {7, 300, 3, 1, 1, 1}, {2, 3, 1000, 1, 1, 1}, {4, 6, 5, 37, 1, 1}, {3, 5, 4, 50, 1, 1},
    {5, 3, 2, 64, 1, 1}};
  static const int perms[][6] = {
    {1, 0, 2, 3, 4, 5}, {1, 0, 2, 3, 4, 5}, {1, 0, 2, 3, 4, 5}, {1, 0, 2, 3, 4, 5},
    {1, 0, 2, 3, 4, 5}, {0, 2, 3, 1, 4, 5}, {0, 3, 1, 2, 4, 5}, {3, 1, 0, 2, 4, 5},
    {1, 0, 2, 3, 4, 5}, {0, 1, 3, 2, 4, 5}, {2, 0, 3, 1, 4, 5},
    {5, 3, 1, 4, 2, 0}, {5, 3, 1, 4, 2, 0}, {0, 1, 3, 5, 2, 4}, {0, 1, 3, 5, 2, 4},
    {2, 0, 1, 3, 4, 5}, {1, 2, 0, 3, 4, 5}, {2, 0, 1, 3, 4, 5}, {1, 2, 0, 3, 4, 5},
    {1, 0, 2, 3, 4, 5}};
  tt_rng r = {9};
  unsigned sets[TI_VARIANT_COUNT + 1];
  const int nsets = cpu_sets(sets);
  size_t k;
  int e, v;
  ti_kernel_ctx ctx;
  ti_kernel_ctx_init(&ctx);
  for (k = 0; k < sizeof shapes / sizeof shapes[0]; ++k)
    for (e = 0; e < 4; ++e) {
      size_t es = (size_t)1 << e, bytes = (size_t)vol_of(6, shapes[k]) * es, i;
      unsigned char *in = (unsigned char *)malloc(bytes), *want = (unsigned char *)malloc(bytes);
      unsigned char *out = (unsigned char *)malloc(bytes + 16);
      fill_rand(&r, in, bytes);
      naive_transpose(es, 6, shapes[k], perms[k], in, want);
      TT_EQ_INT(ti_transpose(es, 6, shapes[k], perms[k], in, out), TI_STATUS_SUCCESS);
      TT_CHECK_MSG(memcmp(out, want, bytes) == 0, "shape %u es %u", (unsigned)k, (unsigned)es);
      for (v = 0; v < nsets; ++v) {
        ctx.cpu = sets[v];
        memset(out, 0xEE, bytes + 16);
        TT_EQ_INT(ti_transpose_ex(&ctx, es, 6, shapes[k], perms[k], in, out), TI_STATUS_SUCCESS);
        TT_CHECK_MSG(memcmp(out, want, bytes) == 0, "cpu %#x: shape %u es %u", sets[v], (unsigned)k,
                     (unsigned)es);
        for (i = 0; i < 16; ++i) TT_CHECK(out[bytes + i] == 0xEE);
      }
      free(in); free(want); free(out);
    }
}

/* Random shapes and permutations through every variant, with the rows of
   the buffers at odd addresses (the blocks load and store unaligned). */
TT_TEST(test_transpose_variants_random) {
  tt_rng r = {777};
  unsigned sets[TI_VARIANT_COUNT + 1];
  const int nsets = cpu_sets(sets);
  int k, v;
  ti_kernel_ctx ctx;
  ti_kernel_ctx_init(&ctx);
  for (k = 0; k < 150; ++k) {
    int nd = (int)tt_range(&r, 2, 6), perm[MAXD], a;
    int64_t d[MAXD], vol;
    size_t es = random_es(&r), bytes, i, off = (size_t)tt_range(&r, 0, 7);
    unsigned char *in, *want, *out;
    for (;;) {
      vol = 1;
      for (a = 0; a < nd; ++a) { d[a] = tt_range(&r, 1, nd <= 3 ? 90 : 20); vol *= d[a]; }
      if (vol <= 200000) break;
    }
    random_perm(&r, nd, perm);
    bytes = (size_t)vol * es;
    in = (unsigned char *)malloc(bytes + 8); want = (unsigned char *)malloc(bytes);
    out = (unsigned char *)malloc(bytes + 8 + 16);
    fill_rand(&r, in + off, bytes);
    naive_transpose(es, nd, d, perm, in + off, want);
    for (v = 0; v < nsets; ++v) {
      ctx.cpu = sets[v];
      memset(out, 0xEE, bytes + 24);
      TT_EQ_INT(ti_transpose_ex(&ctx, es, nd, d, perm, in + off, out + off), TI_STATUS_SUCCESS);
      TT_CHECK_MSG(memcmp(out + off, want, bytes) == 0, "case %d cpu %#x nd=%d es=%u", k, sets[v], nd,
                   (unsigned)es);
      for (i = 0; i < 16; ++i) TT_CHECK(out[off + bytes + i] == 0xEE);
    }
    free(in); free(want); free(out);
  }
}

/* A 4-d transpose of element size es on random data, by every variant the
   machine has, into an output 0, step (2 or 4) or 16 bytes past a line,
   checked against the naive version with the 16 bytes after the output
   untouched; returns the tensor's bytes. */
static size_t every_variant_4d(tt_rng *r, size_t es, const int64_t *d, const int *perm, unsigned k, int step) {
  unsigned sets[TI_VARIANT_COUNT + 1];
  const int nsets = cpu_sets(sets);
  const size_t bytes = (size_t)vol_of(4, d) * es;
  unsigned char *in = (unsigned char *)malloc(bytes), *want = (unsigned char *)malloc(bytes);
  unsigned char *raw = (unsigned char *)malloc(bytes + 64 + 16 + 16), *out;
  ti_kernel_ctx ctx;
  size_t i;
  int v, off;
  ti_kernel_ctx_init(&ctx);
  fill_rand(r, in, bytes);
  naive_transpose(es, 4, d, perm, in, want);
  for (off = 0; off <= 16; off += off < 4 ? step : 12) {
    out = raw + ((64 - ((uintptr_t)raw & 63)) & 63) + off;
    for (v = 0; v < nsets; ++v) {
      ctx.cpu = sets[v];
      memset(out, 0xEE, bytes + 16);
      TT_EQ_INT(ti_transpose_ex(&ctx, es, 4, d, perm, in, out), TI_STATUS_SUCCESS);
      TT_CHECK_MSG(memcmp(out, want, bytes) == 0, "cpu %#x: shape %u es %u off %d", sets[v], k, (unsigned)es, off);
      for (i = 0; i < 16; ++i) TT_CHECK(out[bytes + i] == 0xEE);
    }
  }
  free(in); free(want); free(raw);
  return bytes;
}

/* Outputs past TASKIR_KERNELS_STREAM_BYTES (64 KiB here) on every variant,
   with the output line-aligned (the AVX-512 path's non-temporal whole
   lines when the output's rows are the far-apart ones), 4 and 16 bytes off
   it (its blocks shifted to start where the lines do), and 2 bytes off (no
   line-aligned stores at all for 4-byte elements): NHWC <-> NCHW with
   edge blocks on both axes, 2-D, and a batch of them; NCHW->NHWC with
   output rows of whole lines (AVX-512: non-temporal whole lines too), one
   of them over several blocks of channels and of pixels; input rows of
   2 KiB or more where the output's rows are as far apart or further (the
   AVX-512 path's strips of input rows: 2-D, and NHWC->NCHW with fewer and
   with more channels than its block); kept innermost runs of 128 bytes or
   more (streamed in output order through the sequential writer: runs of
   whole lines and not, shorter and longer than its 256-byte direct
   threshold); every element size. */
TT_TEST(test_transpose_streamed) {
  static const int64_t shapes[][4] = {{3, 20, 56, 70}, {3, 70, 20, 56}, {1, 1, 1000, 208},
                                      {2, 7, 64, 160}, {1, 1, 130, 1000}, {2, 48, 20, 36},
                                      {1, 272, 16, 16}, {1, 1040, 2, 520}, {1, 1, 608, 560},
                                      {1, 40, 28, 600}, {1, 33, 32, 1040}, {2, 40, 48, 64},
                                      {4, 24, 20, 37}};
  static const int perms[][4] = {{0, 3, 1, 2}, {0, 2, 3, 1}, {0, 1, 3, 2}, {0, 3, 1, 2}, {0, 1, 3, 2},
                                 {0, 2, 3, 1}, {0, 2, 3, 1}, {0, 2, 3, 1}, {0, 1, 3, 2},
                                 {0, 3, 1, 2}, {0, 3, 1, 2}, {0, 2, 1, 3}, {2, 0, 1, 3}};
  tt_rng r = {4242};
  size_t k;
  int e;
  for (k = 0; k < sizeof shapes / sizeof shapes[0]; ++k)
    for (e = 0; e < 4; ++e)
      TT_CHECK(every_variant_4d(&r, (size_t)1 << e, shapes[k], perms[k], (unsigned)k, 2) >= TASKIR_KERNELS_STREAM_BYTES);
}

/* Tiled outputs of 1 MiB or more whose rows are pieces of lines and not
   back to back (each unit fetches the next one's output lines for writing)
   and, past the streaming size, such rows with normal stores: every
   variant, an output 0, 4 or 16 bytes past a line, the bytes after it
   untouched. The rows' and blocks' split across threads is the same code
   (test_transpose_parallel_and_errors). */
TT_TEST(test_transpose_pieces_of_lines) {
  static const int64_t shapes[][4] = {{6, 40, 48, 64}, {10, 24, 40, 64}, {6, 40, 47, 66}, {40, 40, 48, 64}};
  static const int perms[][4] = {{0, 3, 2, 1}, {1, 3, 2, 0}, {3, 0, 2, 1}, {0, 3, 2, 1}};
  tt_rng r = {777};
  size_t k;
  int e;
  for (k = 0; k < sizeof shapes / sizeof shapes[0]; ++k)
    for (e = 1; e < 4; ++e) {
      size_t bytes;
      if (k == 3 && e != 2) continue;   /* one streamed size: 19.7 MB */
      bytes = every_variant_4d(&r, (size_t)1 << e, shapes[k], perms[k], (unsigned)k, 4);
      TT_CHECK(bytes >= ((size_t)1 << 20));
      TT_CHECK(k < 3 || bytes >= TASKIR_KERNELS_STREAM_BYTES);
    }
}

/* Gather tiles with rows of every length 1..19 (strips of 1..8 elements
   and several strips per row), every element size, unaligned buffers:
   rows over planes and an odometer of two more axes (5-d), and rows whose
   plane axis is cut into blocks with an edge block (3-d). */
TT_TEST(test_transpose_gather_strips) {
  static const int p5[5] = {4, 2, 1, 3, 0}, p3[3] = {2, 1, 0};
  tt_rng r = {2024};
  int64_t n1;
  int e, s;
  for (s = 0; s < 2; ++s)
    for (e = 0; e < 4; ++e)
      for (n1 = 1; n1 <= 19; ++n1) {
        const int64_t d5[5] = {n1, 4, 3, 5, 2}, d3[3] = {n1, 301, 2};
        const int nd = s ? 3 : 5;
        const int64_t *d = s ? d3 : d5;
        const int *perm = s ? p3 : p5;
        size_t es = (size_t)1 << e, bytes = (size_t)vol_of(nd, d) * es, i, off = (size_t)(n1 % 3);
        unsigned char *in = (unsigned char *)malloc(bytes + 2), *want = (unsigned char *)malloc(bytes);
        unsigned char *out = (unsigned char *)malloc(bytes + 2 + 16);
        fill_rand(&r, in + off, bytes);
        naive_transpose(es, nd, d, perm, in + off, want);
        memset(out, 0xEE, bytes + 18);
        TT_EQ_INT(ti_transpose(es, nd, d, perm, in + off, out + off), TI_STATUS_SUCCESS);
        TT_CHECK_MSG(memcmp(out + off, want, bytes) == 0, "%d-d rows of %d, es %u", nd, (int)n1,
                     (unsigned)es);
        for (i = 0; i < 16; ++i) TT_CHECK(out[off + bytes + i] == 0xEE);
        free(in); free(want); free(out);
      }
}

static void fake_parallel_for(void *user, int64_t n, ti_range_fn fn, void *arg) {
  int64_t a = n, b;
  (void)user;
  while (a > 0) { b = a; a = a > 3 ? a - 3 : 0; fn(arg, a, b); }  /* last chunk first */
}

TT_TEST(test_transpose_parallel_and_errors) {
  int64_t d[3] = {9, 70, 13}, bad[2] = {3, -1};
  int perm[3] = {2, 0, 1}, p2[2] = {1, 1}, p3[2] = {0, 2};
  size_t bytes = 9 * 70 * 13 * 4;
  unsigned char *in = (unsigned char *)malloc(bytes), *want = (unsigned char *)malloc(bytes);
  unsigned char *out = (unsigned char *)malloc(bytes);
  tt_rng r = {3};
  ti_kernel_ctx ctx;
  ti_kernel_ctx_init(&ctx);
  ctx.parallel_for = fake_parallel_for;
  fill_rand(&r, in, bytes);
  naive_transpose(4, 3, d, perm, in, want);
  TT_EQ_INT(ti_transpose_ex(&ctx, 4, 3, d, perm, in, out), TI_STATUS_SUCCESS);
  TT_CHECK(memcmp(out, want, bytes) == 0);
  perm[0] = 0; perm[1] = 2; perm[2] = 1;  /* innermost kept: runs */
  naive_transpose(4, 3, d, perm, in, want);
  TT_EQ_INT(ti_transpose_ex(&ctx, 4, 3, d, perm, in, out), TI_STATUS_SUCCESS);
  TT_CHECK(memcmp(out, want, bytes) == 0);
  /* cpu = 0: the plain C reference, same result */
  ctx.cpu = 0;
  perm[0] = 1; perm[1] = 2; perm[2] = 0;
  naive_transpose(4, 3, d, perm, in, want);
  TT_EQ_INT(ti_transpose_ex(&ctx, 4, 3, d, perm, in, out), TI_STATUS_SUCCESS);
  TT_CHECK(memcmp(out, want, bytes) == 0);
  TT_EQ_INT(ti_transpose(3, 3, d, perm, in, out), TI_STATUS_BAD_PARAM);
  TT_EQ_INT(ti_transpose(4, 0, d, perm, in, out), TI_STATUS_BAD_PARAM);
  TT_EQ_INT(ti_transpose(4, 9, d, perm, in, out), TI_STATUS_BAD_PARAM);
  TT_EQ_INT(ti_transpose(4, 2, d, p2, in, out), TI_STATUS_BAD_PARAM);
  TT_EQ_INT(ti_transpose(4, 2, d, p3, in, out), TI_STATUS_BAD_PARAM);
  TT_EQ_INT(ti_transpose(4, 2, bad, perm, in, out), TI_STATUS_BAD_PARAM);
  TT_EQ_INT(ti_transpose(4, 3, d, perm, NULL, out), TI_STATUS_BAD_PARAM);
  TT_EQ_INT(ti_transpose(4, 3, d, NULL, in, out), TI_STATUS_BAD_PARAM);
  free(in); free(want); free(out);
}

/* RESHAPE: m[0] lists source axes fastest first; [2,1,0] on [y][x][f] is
   the plain row-major flatten. */
TT_TEST(test_reshape) {
  tt_rng r = {5};
  int64_t d[3] = {4, 5, 6}, flat[1] = {120}, three[3] = {1, 1, 120}, od[MAXD];
  int32_t order[3] = {2, 1, 0}, fxy[3] = {0, 1, 2}, tgt[2] = {10, 12}, badt[2] = {10, 11};
  unsigned char in[120 * 4], want[120 * 4];
  ti_rearrange_param p[2];
  int on, k;
  fill_rand(&r, in, sizeof in);
  p[0] = P(order, 3);
  TT_CHECK(!run_apply(TI_REARRANGE_RESHAPE, p, 1, 4, 3, d, in, in, 1, flat));
  /* output dims of the destination box, same volume: accepted */
  TT_CHECK(!run_apply(TI_REARRANGE_IDENTITY, p, 0, 4, 3, d, in, in, 3, d));
  {
    unsigned char out[120 * 4];
    TT_EQ_INT(ti_rearrange_apply(TI_REARRANGE_RESHAPE, p, 1, 4, 3, d, in, 3, three, out),
              TI_STATUS_SUCCESS);
    TT_CHECK(memcmp(out, in, sizeof out) == 0);
    od[0] = 119;  /* another volume: refused */
    TT_EQ_INT(ti_rearrange_apply(TI_REARRANGE_RESHAPE, p, 1, 4, 3, d, in, 1, od, out),
              TI_STATUS_BAD_PARAM);
  }
  /* no parameter: row-major flatten too */
  TT_CHECK(!run_apply(TI_REARRANGE_RESHAPE, p, 0, 4, 3, d, in, in, 1, flat));
  /* [0, 1, 2]: y fastest, then x, then f: out[(f*5 + x)*4 + y] = in[y][x][f] */
  {
    int64_t y, x, f;
    for (y = 0; y < 4; ++y)
      for (x = 0; x < 5; ++x)
        for (f = 0; f < 6; ++f)
          memcpy(want + ((f * 5 + x) * 4 + y) * 2, in + ((y * 5 + x) * 6 + f) * 2, 2);
    p[0] = P(fxy, 3);
    TT_CHECK(!run_apply(TI_REARRANGE_RESHAPE, p, 1, 2, 3, d, in, want, 1, flat));
  }
  /* m[1]: explicit output dims */
  p[0] = P(order, 3); p[1] = P(tgt, 2);
  TT_EQ_INT(ti_rearrange_infer(TI_REARRANGE_RESHAPE, p, 2, 3, d, &on, od), TI_STATUS_SUCCESS);
  TT_EQ_INT(on, 2); TT_EQ_INT(od[0], 10); TT_EQ_INT(od[1], 12);
  for (k = 2; k < MAXD; ++k) TT_EQ_INT(od[k], 0);
  p[1] = P(badt, 2);
  TT_EQ_INT(ti_rearrange_infer(TI_REARRANGE_RESHAPE, p, 2, 3, d, &on, od), TI_STATUS_BAD_PARAM);
}

/* PERMUTE on random shapes = naive transpose. */
TT_TEST(test_permute) {
  tt_rng r = {6};
  int k;
  for (k = 0; k < 60; ++k) {
    int nd = (int)tt_range(&r, 1, 5), perm[MAXD], i;
    int32_t pv[MAXD];
    int64_t d[MAXD], od[MAXD];
    size_t es = random_es(&r), bytes;
    unsigned char *in, *want;
    ti_rearrange_param p;
    random_dims(&r, nd, d, 3000);
    random_perm(&r, nd, perm);
    for (i = 0; i < nd; ++i) { pv[i] = perm[i]; od[i] = d[perm[i]]; }
    bytes = (size_t)vol_of(nd, d) * es;
    in = (unsigned char *)malloc(bytes); want = (unsigned char *)malloc(bytes);
    fill_rand(&r, in, bytes);
    naive_transpose(es, nd, d, perm, in, want);
    p = P(pv, nd);
    TT_CHECK_MSG(!run_apply(TI_REARRANGE_PERMUTE, &p, 1, es, nd, d, in, want, nd, od), "case %d", k);
    free(in); free(want);
  }
}

/* Rotation on plane (a, b) as numpy rot90: k = 1: out[i][j] = in[j][W-1-i]. */
static void naive_rotate(size_t es, int nd, const int64_t *d, int k, int a, int b,
                         const unsigned char *in, unsigned char *out, int64_t *od) {
  int64_t oi[MAXD], ii[MAXD], o, v = vol_of(nd, d), H = d[a], W = d[b];
  int i;
  k = ((k % 4) + 4) % 4;
  for (i = 0; i < nd; ++i) od[i] = d[i];
  if (k & 1) { od[a] = W; od[b] = H; }
  for (o = 0; o < v; ++o) {
    unravel(o, nd, od, oi);
    for (i = 0; i < nd; ++i) ii[i] = oi[i];
    if (k == 1) { ii[a] = oi[b]; ii[b] = W - 1 - oi[a]; }
    if (k == 2) { ii[a] = H - 1 - oi[a]; ii[b] = W - 1 - oi[b]; }
    if (k == 3) { ii[a] = H - 1 - oi[b]; ii[b] = oi[a]; }
    memcpy(out + (size_t)o * es, in + (size_t)ravel(nd, d, ii) * es, es);
  }
}

TT_TEST(test_rotate) {
  tt_rng r = {7};
  int k;
  /* a hand-checked case: [[1 2 3] [4 5 6]] turned once counter-clockwise */
  {
    int64_t d[2] = {2, 3}, od[2] = {3, 2};
    uint8_t in[6] = {1, 2, 3, 4, 5, 6}, want[6] = {3, 6, 2, 5, 1, 4};
    int32_t one = 1;
    ti_rearrange_param p = P(&one, 1);
    TT_CHECK(!run_apply(TI_REARRANGE_ROTATE, &p, 1, 1, 2, d, in, want, 2, od));
  }
  for (k = 0; k < 60; ++k) {
    int nd = (int)tt_range(&r, 2, 4), a = 0, b = 1;
    int32_t pv[3];
    int64_t d[MAXD], od[MAXD];
    size_t es = random_es(&r), bytes;
    unsigned char *in, *want;
    ti_rearrange_param p;
    random_dims(&r, nd, d, 3000);
    pv[0] = (int32_t)tt_range(&r, -5, 5);
    if (k & 1) {
      a = (int)tt_range(&r, 0, nd - 1);
      do b = (int)tt_range(&r, 0, nd - 1); while (b == a);
    }
    pv[1] = a; pv[2] = b;
    bytes = (size_t)vol_of(nd, d) * es;
    in = (unsigned char *)malloc(bytes); want = (unsigned char *)malloc(bytes);
    fill_rand(&r, in, bytes);
    naive_rotate(es, nd, d, pv[0], a, b, in, want, od);
    p = P(pv, (k & 1) ? 3 : 1);
    TT_CHECK_MSG(!run_apply(TI_REARRANGE_ROTATE, &p, 1, es, nd, d, in, want, nd, od), "case %d", k);
    free(in); free(want);
  }
}

TT_TEST(test_shift_scale_reflect) {
  tt_rng r = {8};
  int k;
  for (k = 0; k < 150; ++k) {
    int nd = (int)tt_range(&r, 1, 4), i, kind = (int)(k % 3), cyc = (int)tt_range(&r, 0, 1);
    int nv = (int)tt_range(&r, 0, nd);
    int32_t pv[MAXD], mode[1];
    int64_t d[MAXD], od[MAXD], oi[MAXD], ii[MAXD], o, ov;
    size_t es = random_es(&r), bytes;
    unsigned char *in, *want;
    ti_rearrange_param p[2];
    int np = 1;
    random_dims(&r, nd, d, 2000);
    for (i = 0; i < nd; ++i) od[i] = d[i];
    if (kind == 0) {            /* SHIFT */
      for (i = 0; i < nv; ++i) pv[i] = (int32_t)tt_range(&r, -d[i] - 2, d[i] + 2);
      mode[0] = cyc;
      p[1] = P(mode, 1);
      np = (k & 4) && !cyc ? 1 : 2;
      if (np == 1) cyc = 0;
    } else if (kind == 1) {     /* SCALE */
      for (i = 0; i < nv; ++i) { pv[i] = (int32_t)tt_range(&r, 1, 3); od[i] = d[i] * pv[i]; }
    } else {                    /* REFLECT: a random non-empty set of axes */
      int seen[MAXD] = {0};
      if (nv == 0) nv = 1;
      for (i = 0; i < nv; ++i) {
        int ax;
        do ax = (int)tt_range(&r, 0, nd - 1); while (seen[ax]);
        seen[ax] = 1; pv[i] = ax;
      }
    }
    p[0] = P(pv, nv);
    bytes = (size_t)vol_of(nd, d) * es;
    ov = vol_of(nd, od);
    in = (unsigned char *)malloc(bytes);
    want = (unsigned char *)malloc((size_t)ov * es);
    fill_rand(&r, in, bytes);
    for (o = 0; o < ov; ++o) {
      int inside = 1;
      unravel(o, nd, od, oi);
      for (i = 0; i < nd; ++i) {
        int64_t dv = i < nv ? pv[i] : (kind == 1 ? 1 : 0);
        if (kind == 0) {
          int64_t s = oi[i] - dv;
          if (cyc) s = ((s % d[i]) + d[i]) % d[i];
          else if (s < 0 || s >= d[i]) inside = 0;
          ii[i] = s;
        } else if (kind == 1) {
          ii[i] = oi[i] / dv;
        } else {
          ii[i] = oi[i];
        }
      }
      if (kind == 2)
        for (i = 0; i < nv; ++i) ii[pv[i]] = d[pv[i]] - 1 - oi[pv[i]];
      if (inside) memcpy(want + (size_t)o * es, in + (size_t)ravel(nd, d, ii) * es, es);
      else memset(want + (size_t)o * es, 0, es);
    }
    TT_CHECK_MSG(!run_apply(kind == 0 ? TI_REARRANGE_SHIFT : kind == 1 ? TI_REARRANGE_SCALE
                                                                      : TI_REARRANGE_REFLECT,
                            p, np, es, nd, d, in, want, nd, od),
                 "case %d kind %d nd %d", k, kind, nd);
    free(in); free(want);
  }
}

/* SHEAR by forward mapping (each source pixel to its place), zero elsewhere. */
TT_TEST(test_shear) {
  tt_rng r = {10};
  int k;
  for (k = 0; k < 60; ++k) {
    int nd = (int)tt_range(&r, 2, 3);
    int32_t ab[2] = {0, 0};
    int64_t d[MAXD], od[MAXD], y, x, P_, Ho, Wo, oy, ox;
    size_t es = random_es(&r), pix;
    unsigned char *in, *want;
    ti_rearrange_param p;
    random_dims(&r, nd, d, 800);
    ab[k & 1] = (int32_t)tt_range(&r, -3, 3);
    P_ = nd == 3 ? d[2] : 1;
    pix = (size_t)P_ * es;
    Ho = d[0] + (ab[0] < 0 ? -ab[0] : ab[0]) * (d[1] - 1);
    Wo = d[1] + (ab[1] < 0 ? -ab[1] : ab[1]) * (d[0] - 1);
    oy = ab[0] < 0 ? -(int64_t)ab[0] * (d[1] - 1) : 0;
    ox = ab[1] < 0 ? -(int64_t)ab[1] * (d[0] - 1) : 0;
    od[0] = Ho; od[1] = Wo; if (nd == 3) od[2] = d[2];
    in = (unsigned char *)malloc((size_t)(d[0] * d[1]) * pix);
    want = (unsigned char *)calloc((size_t)(Ho * Wo), pix);
    fill_rand(&r, in, (size_t)(d[0] * d[1]) * pix);
    for (y = 0; y < d[0]; ++y)
      for (x = 0; x < d[1]; ++x) {
        int64_t ty = y + ab[0] * x + oy, tx = x + ab[1] * y + ox;
        memcpy(want + (size_t)(ty * Wo + tx) * pix, in + (size_t)(y * d[1] + x) * pix, pix);
      }
    p = P(ab, 2);
    TT_CHECK_MSG(!run_apply(TI_REARRANGE_SHEAR, &p, 1, es, nd, d, in, want, nd, od),
                 "case %d a=%d b=%d", k, ab[0], ab[1]);
    free(in); free(want);
  }
}

/* AFFINE / PROJECT by the documented inverse mapping, written out here. */
static void naive_plane_map(int proj, const double *m, size_t es, const int64_t *d, int nd,
                            int64_t Ho, int64_t Wo, const unsigned char *in, unsigned char *out) {
  int64_t P_ = nd == 3 ? d[2] : 1, yo, xo;
  size_t pix = (size_t)P_ * es;
  for (yo = 0; yo < Ho; ++yo)
    for (xo = 0; xo < Wo; ++xo) {
      double y, x;
      int ok = 1;
      unsigned char *q = out + (size_t)(yo * Wo + xo) * pix;
      if (!proj) {
        double det = m[0] * m[4] - m[1] * m[3], v = (double)yo - m[2], u = (double)xo - m[5];
        y = (m[4] * v - m[1] * u) / det;
        x = (m[0] * u - m[3] * v) / det;
      } else {
        /* adjugate of H: cofactor matrix transposed */
        double A[9], Y, X, Z;
        A[0] = m[4] * m[8] - m[5] * m[7]; A[1] = m[2] * m[7] - m[1] * m[8]; A[2] = m[1] * m[5] - m[2] * m[4];
        A[3] = m[5] * m[6] - m[3] * m[8]; A[4] = m[0] * m[8] - m[2] * m[6]; A[5] = m[2] * m[3] - m[0] * m[5];
        A[6] = m[3] * m[7] - m[4] * m[6]; A[7] = m[1] * m[6] - m[0] * m[7]; A[8] = m[0] * m[4] - m[1] * m[3];
        Y = A[0] * (double)yo + A[1] * (double)xo + A[2];
        X = A[3] * (double)yo + A[4] * (double)xo + A[5];
        Z = A[6] * (double)yo + A[7] * (double)xo + A[8];
        if (Z == 0) ok = 0;
        y = ok ? Y / Z : 0; x = ok ? X / Z : 0;
      }
      if (ok) {
        double fy = floor(y + 0.5), fx = floor(x + 0.5);
        ok = fy >= 0 && fy < (double)d[0] && fx >= 0 && fx < (double)d[1];
        if (ok) memcpy(q, in + (size_t)((int64_t)fy * d[1] + (int64_t)fx) * pix, pix);
      }
      if (!ok) memset(q, 0, pix);
    }
}

TT_TEST(test_affine_project) {
  tt_rng r = {11};
  int k;
  /* known answers: AFFINE translation = SHIFT zero-fill; a 90-degree AFFINE
     (y' = W-1-x, x' = y) = ROTATE k = 1; PROJECT of the affine embedding =
     AFFINE */
  {
    int64_t d[3] = {5, 7, 3}, od[3] = {7, 5, 3};
    unsigned char in[105 * 2], want[105 * 2], want2[105 * 2];
    float tr[6] = {1, 0, 2, 0, 1, -1};
    int32_t sh[2] = {2, -1}, rot[6] = {0, -1, 6, 1, 0, 0}, one = 1;
    float emb[9] = {0, -1, 6, 1, 0, 0, 0, 0, 1};
    int32_t plane[2] = {7, 5};
    ti_rearrange_param p[2];
    fill_rand(&r, in, sizeof in);
    p[0] = P(sh, 2);
    TT_EQ_INT(ti_rearrange_apply(TI_REARRANGE_SHIFT, p, 1, 2, 3, d, in, 3, d, want), TI_STATUS_SUCCESS);
    p[0] = PF(tr, 6);
    TT_CHECK(!run_apply(TI_REARRANGE_AFFINE, p, 1, 2, 3, d, in, want, 3, d));
    p[0] = P(&one, 1);
    TT_EQ_INT(ti_rearrange_apply(TI_REARRANGE_ROTATE, p, 1, 2, 3, d, in, 3, od, want2), TI_STATUS_SUCCESS);
    p[0] = P(rot, 6); p[1] = P(plane, 2);
    TT_CHECK(!run_apply(TI_REARRANGE_AFFINE, p, 2, 2, 3, d, in, want2, 3, od));
    p[0] = PF(emb, 9);
    TT_CHECK(!run_apply(TI_REARRANGE_PROJECT, p, 2, 2, 3, d, in, want2, 3, od));
  }
  for (k = 0; k < 80; ++k) {
    int proj = k & 1, nd = (int)tt_range(&r, 2, 3), i, nm = proj ? 9 : 6;
    float mf[9];
    double m[9];
    int32_t plane[2];
    int64_t d[MAXD], od[MAXD];
    size_t es = random_es(&r), pix;
    unsigned char *in, *want;
    ti_rearrange_param p[2];
    random_dims(&r, nd, d, 600);
    for (i = 0; i < nm; ++i) mf[i] = (float)tt_range(&r, -8, 8) / 4.0f;
    if (!proj) { mf[0] += 1.0f; mf[4] += 1.0f; }
    else { mf[6] = (float)tt_range(&r, -2, 2) / 16.0f; mf[7] = (float)tt_range(&r, -2, 2) / 16.0f; mf[8] = 1.0f; }
    for (i = 0; i < nm; ++i) m[i] = mf[i];
    if (proj ? (m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) +
                m[2] * (m[3] * m[7] - m[4] * m[6])) == 0
             : (m[0] * m[4] - m[1] * m[3]) == 0) {
      int on; int64_t tod[MAXD];
      p[0] = PF(mf, nm);
      TT_EQ_INT(ti_rearrange_infer(proj ? TI_REARRANGE_PROJECT : TI_REARRANGE_AFFINE, p, 1, nd, d, &on, tod),
                TI_STATUS_BAD_PARAM);
      continue;
    }
    plane[0] = (int32_t)tt_range(&r, 1, 12); plane[1] = (int32_t)tt_range(&r, 1, 12);
    od[0] = plane[0]; od[1] = plane[1]; if (nd == 3) od[2] = d[2];
    pix = (size_t)(nd == 3 ? d[2] : 1) * es;
    in = (unsigned char *)malloc((size_t)(d[0] * d[1]) * pix);
    want = (unsigned char *)malloc((size_t)(od[0] * od[1]) * pix);
    fill_rand(&r, in, (size_t)(d[0] * d[1]) * pix);
    naive_plane_map(proj, m, es, d, nd, od[0], od[1], in, want);
    p[0] = PF(mf, nm); p[1] = P(plane, 2);
    TT_CHECK_MSG(!run_apply(proj ? TI_REARRANGE_PROJECT : TI_REARRANGE_AFFINE, p, 2, es, nd, d,
                            in, want, nd, od), "case %d", k);
    free(in); free(want);
  }
}

TT_TEST(test_shuffle) {
  tt_rng r = {12};
  int k;
  for (k = 0; k < 60; ++k) {
    int nd = (int)tt_range(&r, 1, 4), axis = (k & 1) ? (int)tt_range(&r, 0, nd - 1) : -1, i;
    int64_t d[MAXD], od[MAXD], oi[MAXD], o, v, ov, n;
    size_t es = random_es(&r);
    int32_t *idx, ax[1];
    unsigned char *in, *want;
    ti_rearrange_param p[2];
    random_dims(&r, nd, d, 1500);
    v = vol_of(nd, d);
    for (i = 0; i < nd; ++i) od[i] = d[i];
    n = axis >= 0 ? tt_range(&r, 1, 12) : v;
    if (axis >= 0) od[axis] = n;
    idx = (int32_t *)malloc((size_t)n * 4);
    for (o = 0; o < n; ++o)
      idx[o] = (int32_t)(tt_range(&r, 0, 9) == 0 ? -1 : tt_range(&r, 0, (axis >= 0 ? d[axis] : v) - 1));
    ov = vol_of(nd, od);
    in = (unsigned char *)malloc((size_t)v * es); want = (unsigned char *)malloc((size_t)ov * es);
    fill_rand(&r, in, (size_t)v * es);
    for (o = 0; o < ov; ++o) {
      int64_t src;
      if (axis >= 0) {
        unravel(o, nd, od, oi);
        src = idx[oi[axis]];
        if (src >= 0) { oi[axis] = src; src = ravel(nd, d, oi); }
      } else {
        src = idx[o];
      }
      if (src >= 0) memcpy(want + (size_t)o * es, in + (size_t)src * es, es);
      else memset(want + (size_t)o * es, 0, es);
    }
    ax[0] = axis;
    p[0] = P(idx, n); p[1] = P(ax, 1);
    TT_CHECK_MSG(!run_apply(TI_REARRANGE_SHUFFLE, p, axis >= 0 ? 2 : 1, es, nd, d, in, want, nd, od),
                 "case %d", k);
    free(idx); free(in); free(want);
  }
}

TT_TEST(test_identity_and_apply_errors) {
  int64_t d[3] = {2, 3, 4}, wrong[1] = {25}, od[MAXD];
  unsigned char in[24 * 8], out[24 * 8];
  int32_t perm[3] = {2, 0, 1};
  ti_rearrange_param p = P(perm, 3);
  size_t i;
  int on;
  for (i = 0; i < sizeof in; ++i) in[i] = (unsigned char)i;
  TT_CHECK(!run_apply(TI_REARRANGE_IDENTITY, NULL, 0, 8, 3, d, in, in, 3, d));
  TT_EQ_INT(ti_rearrange_apply(TI_REARRANGE_IDENTITY, NULL, 0, 4, 3, d, in, 1, wrong, out), TI_STATUS_BAD_PARAM);
  TT_EQ_INT(ti_rearrange_apply(TI_REARRANGE_IDENTITY, NULL, 0, 3, 3, d, in, 3, d, out), TI_STATUS_BAD_PARAM);
  TT_EQ_INT(ti_rearrange_apply(TI_REARRANGE_IDENTITY, NULL, 0, 16, 3, d, in, 3, d, out), TI_STATUS_BAD_PARAM);
  TT_EQ_INT(ti_rearrange_apply(TI_REARRANGE_IDENTITY, NULL, 0, 4, 3, d, NULL, 3, d, out), TI_STATUS_BAD_PARAM);
  TT_EQ_INT(ti_rearrange_apply(TI_REARRANGE_IDENTITY, NULL, 0, 4, 3, d, in, 3, d, NULL), TI_STATUS_BAD_PARAM);
  TT_EQ_INT(ti_rearrange_apply(TI_REARRANGE_IDENTITY, NULL, 0, 4, 3, d, in, 0, d, out), TI_STATUS_BAD_PARAM);
  TT_EQ_INT(ti_rearrange_apply(TI_REARRANGE_PERMUTE, &p, 1, 4, 3, d, in, 3, d, out), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_rearrange_apply(TI_REARRANGE_COUNT, NULL, 0, 4, 3, d, in, 3, d, out), TI_STATUS_NOT_SUPPORTED);
  TT_EQ_INT(ti_rearrange_infer(-1, NULL, 0, 3, d, &on, od), TI_STATUS_NOT_SUPPORTED);
  /* empty input, non-empty output (AFFINE to a given plane): zeros */
  {
    int64_t e[3] = {0, 3, 2}, o3[3] = {2, 2, 2};
    float id[6] = {1, 0, 0, 0, 1, 0};
    int32_t pl[2] = {2, 2};
    ti_rearrange_param q[2];
    q[0] = PF(id, 6); q[1] = P(pl, 2);
    memset(out, 7, sizeof out);
    TT_EQ_INT(ti_rearrange_apply(TI_REARRANGE_AFFINE, q, 2, 1, 3, e, NULL, 3, o3, out), TI_STATUS_SUCCESS);
    for (i = 0; i < 8; ++i) TT_EQ_INT(out[i], 0);
    TT_EQ_INT(out[8], 7);
  }
}

/* Shape inference: every malformed parameter gets BAD_PARAM and a reason. */
TT_TEST(test_infer_errors) {
  static const int32_t neg[1] = {-1}, zero[1] = {0}, two[2] = {0, 0}, rep[3] = {0, 0, 1};
  static const int32_t big[3] = {0, 1, 3}, ab[2] = {1, 1}, k3[3] = {1, 0, 0}, k3b[3] = {1, 0, 5};
  static const int32_t mode2[1] = {2}, idx[3] = {0, 1, 7}, idxm[3] = {0, -2, 1}, ax9[1] = {9};
  static const int32_t nine[9] = {1, 0, 0, 0, 1, 0, 0, 0, 0};
  static const float sing[6] = {1, 2, 0, 2, 4, 0}, six[5] = {1, 0, 0, 0, 1};
  float nanm[6];
  int64_t d[3] = {4, 5, 6}, d1[1] = {6}, dneg[2] = {3, -1}, od[MAXD];
  struct { int kind, np; ti_rearrange_param p[2]; int nd; const int64_t *dims; } c[40];
  int n = 0, i, on;
  const char *why;
  nanm[0] = 1; nanm[1] = 0; nanm[2] = (float)NAN; nanm[3] = 0; nanm[4] = 1; nanm[5] = 0;
#define CASE(K, NP, P0, P1, ND, D) do { c[n].kind = K; c[n].np = NP; c[n].p[0] = P0; \
    c[n].p[1] = P1; c[n].nd = ND; c[n].dims = D; ++n; } while (0)
  CASE(TI_REARRANGE_IDENTITY, 0, P(0, 0), P(0, 0), 0, d);          /* ndim 0 */
  CASE(TI_REARRANGE_IDENTITY, 0, P(0, 0), P(0, 0), 9, d);          /* ndim 9 */
  CASE(TI_REARRANGE_IDENTITY, 0, P(0, 0), P(0, 0), 2, dneg);       /* negative dim */
  CASE(TI_REARRANGE_RESHAPE, 1, P(two, 2), P(0, 0), 3, d);         /* too short */
  CASE(TI_REARRANGE_RESHAPE, 1, P(rep, 3), P(0, 0), 3, d);         /* repeated axis */
  CASE(TI_REARRANGE_RESHAPE, 1, P(big, 3), P(0, 0), 3, d);         /* axis out of range */
  CASE(TI_REARRANGE_RESHAPE, 2, P(0, 0), P(ab, 2), 3, d);          /* dims of another volume */
  CASE(TI_REARRANGE_RESHAPE, 1, P(0, 3), P(0, 0), 3, d);           /* count without data */
  CASE(TI_REARRANGE_PERMUTE, 0, P(0, 0), P(0, 0), 3, d);           /* missing */
  CASE(TI_REARRANGE_PERMUTE, 1, P(rep, 3), P(0, 0), 3, d);
  CASE(TI_REARRANGE_ROTATE, 0, P(0, 0), P(0, 0), 3, d);            /* missing k */
  CASE(TI_REARRANGE_ROTATE, 1, P(k3, 3), P(0, 0), 3, d);           /* equal axes */
  CASE(TI_REARRANGE_ROTATE, 1, P(k3b, 3), P(0, 0), 3, d);          /* axis out of range */
  CASE(TI_REARRANGE_ROTATE, 1, P(zero, 1), P(0, 0), 1, d1);        /* 1-D has no plane */
  CASE(TI_REARRANGE_SHIFT, 1, P(nine, 4), P(0, 0), 3, d);          /* more offsets than axes */
  CASE(TI_REARRANGE_SHIFT, 2, P(zero, 1), P(mode2, 1), 3, d);      /* unknown mode */
  CASE(TI_REARRANGE_SCALE, 1, P(zero, 1), P(0, 0), 3, d);          /* factor 0 */
  CASE(TI_REARRANGE_SCALE, 1, P(neg, 1), P(0, 0), 3, d);           /* negative factor */
  CASE(TI_REARRANGE_SHEAR, 1, P(ab, 2), P(0, 0), 3, d);            /* both nonzero */
  CASE(TI_REARRANGE_SHEAR, 1, P(zero, 1), P(0, 0), 3, d);          /* not [a, b] */
  CASE(TI_REARRANGE_SHEAR, 1, P(two, 2), P(0, 0), 1, d1);          /* 1-D */
  CASE(TI_REARRANGE_REFLECT, 0, P(0, 0), P(0, 0), 3, d);           /* no axes */
  CASE(TI_REARRANGE_REFLECT, 1, P(two, 2), P(0, 0), 3, d);         /* repeated */
  CASE(TI_REARRANGE_REFLECT, 1, P(ax9, 1), P(0, 0), 3, d);         /* out of range */
  CASE(TI_REARRANGE_AFFINE, 0, P(0, 0), P(0, 0), 3, d);            /* missing */
  CASE(TI_REARRANGE_AFFINE, 1, PF(six, 5), P(0, 0), 3, d);         /* 5 numbers */
  CASE(TI_REARRANGE_AFFINE, 1, PF(sing, 6), P(0, 0), 3, d);        /* singular */
  CASE(TI_REARRANGE_AFFINE, 1, PF(nanm, 6), P(0, 0), 3, d);        /* NaN */
  CASE(TI_REARRANGE_AFFINE, 2, PF(sing, 6), P(neg, 1), 3, d);
  CASE(TI_REARRANGE_PROJECT, 1, P(nine, 9), P(0, 0), 3, d);        /* singular */
  CASE(TI_REARRANGE_PROJECT, 1, P(nine, 6), P(0, 0), 3, d);        /* 6 numbers */
  CASE(TI_REARRANGE_SHUFFLE, 2, P(idx, 3), P(zero, 1), 3, d);      /* 7 outside axis 0 (4) */
  CASE(TI_REARRANGE_SHUFFLE, 2, P(idxm, 3), P(zero, 1), 3, d);     /* -2 */
  CASE(TI_REARRANGE_SHUFFLE, 2, P(idx, 3), P(ax9, 1), 3, d);       /* axis 9 */
  CASE(TI_REARRANGE_SHUFFLE, 1, P(idx, 3), P(0, 0), 3, d);         /* flat: not one per element */
  CASE(TI_REARRANGE_SHUFFLE, 2, P(0, 0), P(zero, 1), 3, d);        /* empty table */
#undef CASE
  for (i = 0; i < n; ++i) {
    why = NULL;
    TT_EQ_INT(ti_rearrange_infer_ex(c[i].kind, c[i].p, c[i].np, c[i].nd, c[i].dims, &on, od, &why),
              TI_STATUS_BAD_PARAM);
    TT_CHECK_MSG(why != NULL && strlen(why) > 5, "case %d", i);
    TT_EQ_INT(ti_rearrange_infer(c[i].kind, c[i].p, c[i].np, c[i].nd, c[i].dims, &on, od),
              TI_STATUS_BAD_PARAM);
  }
  /* huge outputs are refused, not overflowed */
  {
    int64_t h[2] = {(int64_t)1 << 40, (int64_t)1 << 20};
    int32_t f[2] = {1 << 20, 1};
    ti_rearrange_param q = P(f, 2);
    TT_EQ_INT(ti_rearrange_infer(TI_REARRANGE_SCALE, &q, 1, 2, h, &on, od), TI_STATUS_BAD_PARAM);
    h[0] = (int64_t)1 << 62;
    TT_EQ_INT(ti_rearrange_infer(TI_REARRANGE_IDENTITY, NULL, 0, 2, h, &on, od), TI_STATUS_BAD_PARAM);
  }
  TT_EQ_INT(ti_rearrange_infer(TI_REARRANGE_IDENTITY, NULL, 0, 3, d, NULL, od), TI_STATUS_BAD_PARAM);
  TT_EQ_INT(ti_rearrange_infer(TI_REARRANGE_IDENTITY, NULL, 0, 3, NULL, &on, od), TI_STATUS_BAD_PARAM);
  TT_EQ_INT(ti_rearrange_infer(TI_REARRANGE_IDENTITY, NULL, 1, 3, d, &on, od), TI_STATUS_BAD_PARAM);
}

/* Random kinds, parameters and dims: infer never crashes, and whatever it
   accepts, apply runs within buffers of exactly the inferred size (ASan
   and the canary check the bounds). */
TT_TEST(test_random_params_robust) {
  tt_rng r = {2718};
  int k, accepted = 0;
  for (k = 0; k < 3000; ++k) {
    int kind = (int)tt_range(&r, -1, TI_REARRANGE_COUNT), nd = (int)tt_range(&r, 0, 5), np, i, on;
    int32_t iv[2][12];
    float fv[12];
    int64_t d[MAXD], od[MAXD], iv_n = 1, ov = 1;
    ti_rearrange_param p[2];
    const char *why = NULL;
    ti_status st;
    for (i = 0; i < MAXD; ++i) d[i] = tt_range(&r, 0, 6);
    np = (int)tt_range(&r, 0, 2);
    for (i = 0; i < 2; ++i) {
      int j, n = (int)tt_range(&r, 0, 11);
      for (j = 0; j < 12; ++j) iv[i][j] = (int32_t)tt_range(&r, -3, 8);
      p[i] = P(iv[i], n);
    }
    if (tt_range(&r, 0, 3) == 0) {
      int j;
      for (j = 0; j < 12; ++j) fv[j] = (float)tt_range(&r, -4, 4) / 2.0f;
      p[0].f32 = fv; p[0].n_f32 = tt_range(&r, 0, 10);
    }
    st = ti_rearrange_infer_ex(kind, p, np, nd, d, &on, od, &why);
    if (st != TI_STATUS_SUCCESS) { TT_CHECK(why != NULL); continue; }
    ++accepted;
    for (i = 0; i < nd; ++i) iv_n *= d[i];
    for (i = 0; i < on; ++i) ov *= od[i];
    if (ov > 100000) continue;
    {
      size_t es = random_es(&r), ob = (size_t)ov * es;
      unsigned char *in = (unsigned char *)malloc((size_t)iv_n * es + 1);
      unsigned char *out = (unsigned char *)malloc(ob + 16);
      fill_rand(&r, in, (size_t)iv_n * es);
      memset(out, 0xEE, ob + 16);
      TT_EQ_INT(ti_rearrange_apply(kind, p, np, es, nd, d, in, on, od, out), TI_STATUS_SUCCESS);
      for (i = 0; i < 16; ++i) TT_CHECK(out[ob + i] == 0xEE);
      free(in); free(out);
    }
  }
  TT_CHECK(accepted > 300);  /* the generator reaches the apply paths */
}

int main(void) {
  TT_RUN(test_names);
  TT_RUN(test_transpose_random);
  TT_RUN(test_transpose_shapes);
  TT_RUN(test_transpose_variants_random);
  TT_RUN(test_transpose_streamed);
  TT_RUN(test_transpose_pieces_of_lines);
  TT_RUN(test_transpose_gather_strips);
  TT_RUN(test_transpose_parallel_and_errors);
  TT_RUN(test_reshape);
  TT_RUN(test_permute);
  TT_RUN(test_rotate);
  TT_RUN(test_shift_scale_reflect);
  TT_RUN(test_shear);
  TT_RUN(test_affine_project);
  TT_RUN(test_shuffle);
  TT_RUN(test_identity_and_apply_errors);
  TT_RUN(test_infer_errors);
  TT_RUN(test_random_params_robust);
  return tt_finish();
}
