/* Tests of CC, CC2D and CVM in taskir_kernels.h: hand-computed answers, every
   SIMD path on this machine bit-identical to the reference (and to an
   independent oracle) on random data, and the argument checks. */
#if defined(__linux__)
#define _DEFAULT_SOURCE   /* mmap's MAP_ANONYMOUS, for the guard pages */
#endif
#define TASKIR_IMPLEMENTATION
#include "taskir_kernels.h"
#include "tt.h"
#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

/* ---- helpers ------------------------------------------------------------ */

static ti_prim_desc conv_desc(int niy, int nix, int nr, int nf, int nky, int nkx, int sy, int sx,
                              int dy, int dx, int pu, int pd, int pl, int pr,
                              ti_dtype in, ti_dtype w) {
  ti_prim_desc d;
  int sy1 = sy ? sy : 1, sx1 = sx ? sx : 1, dy1 = dy ? dy : 1, dx1 = dx ? dx : 1;
  memset(&d, 0, sizeof d);
  d.niy = niy; d.nix = nix; d.nr = nr; d.nf = nf; d.nky = nky; d.nkx = nkx;
  d.stride_y = sy; d.stride_x = sx; d.dilation_y = dy; d.dilation_x = dx;
  d.pad_up = pu; d.pad_down = pd; d.pad_left = pl; d.pad_right = pr;
  d.ny = (niy + pu + pd - (nky - 1) * dy1 - 1) / sy1 + 1;
  d.nx = (nix + pl + pr - (nkx - 1) * dx1 - 1) / sx1 + 1;
  d.in_dtype = in; d.w_dtype = w;
  d.out_dtype = (in == TI_DTYPE_F32) ? TI_DTYPE_F32 : TI_DTYPE_I32;
  d.bias_mode = TI_BIAS_VECTOR;
  return d;
}

static ti_prim_desc cvm_desc(int nr, int nf, ti_dtype in, ti_dtype w) {
  ti_prim_desc d;
  memset(&d, 0, sizeof d);
  d.ny = d.nx = 1; d.nr = nr; d.nf = nf;
  d.in_dtype = in; d.w_dtype = w;
  d.out_dtype = (in == TI_DTYPE_F32) ? TI_DTYPE_F32 : TI_DTYPE_I32;
  d.bias_mode = TI_BIAS_VECTOR;
  return d;
}

/* Random element of a dtype, with the extremes often. fill_extreme 1 gives
   only the maximum, 2 only the minimum of signed types and the maximum of
   unsigned ones, so that long int8 reductions wrap. */
static int fill_extreme;
/* I32 data: 1 keeps it in -128..127, 2 in 0..255, 3 in -128..127 but for
   one value 128 (neither range) in the middle, 4 the same at the end, 5 in
   0..255 but for one -1 in the middle, 6 the same at the end: the cases of
   the I32 input narrowing (the ends are the SIMD copies' scalar tails). */
static int fill_i32_small;
static void fill(tt_rng *rng, void *p, ti_dtype t, size_t n) {
  size_t i;
  for (i = 0; i < n; i++) {
    int64_t k = fill_extreme == 1 ? 1 : fill_extreme == 2 ? (t == TI_DTYPE_U8 ? 1 : 0) :
                tt_range(rng, 0, 9);
    switch (t) {
    case TI_DTYPE_I8:
      ((int8_t *)p)[i] = (int8_t)(k == 0 ? -128 : k == 1 ? 127 : tt_range(rng, -128, 127)); break;
    case TI_DTYPE_U8:
      ((uint8_t *)p)[i] = (uint8_t)(k == 0 ? 0 : k == 1 ? 255 : tt_range(rng, 0, 255)); break;
    case TI_DTYPE_TERNARY: ((int8_t *)p)[i] = (int8_t)tt_range(rng, -1, 1); break;
    case TI_DTYPE_I32:
      if (fill_i32_small == 2 || fill_i32_small >= 5) ((int32_t *)p)[i] = (int32_t)(k == 0 ? 0 : k == 1 ? 255 : tt_range(rng, 0, 255));
      else if (fill_i32_small) ((int32_t *)p)[i] = (int32_t)(k == 0 ? -128 : k == 1 ? 127 : tt_range(rng, -128, 127));
      else ((int32_t *)p)[i] = (int32_t)(k == 0 ? INT32_MIN : k == 1 ? INT32_MAX :
                                         (int64_t)(uint32_t)tt_next(rng) - 2147483648LL);
      if (fill_i32_small >= 3 && i == ((fill_i32_small & 1) ? n / 2 : n - 1))
        ((int32_t *)p)[i] = fill_i32_small <= 4 ? 128 : -1;
      break;
    case TI_DTYPE_F32: ((float *)p)[i] = (float)tt_range(rng, -1000, 1000) / 64.0f; break;
    default: break;
    }
  }
}

/* Integer element widened to int64 (independent of the header's helpers). */
static int64_t elem(const void *p, ti_dtype t, size_t i) {
  switch (t) {
  case TI_DTYPE_U8: return ((const uint8_t *)p)[i];
  case TI_DTYPE_I32: return ((const int32_t *)p)[i];
  default: return ((const int8_t *)p)[i];
  }
}

/* Oracle: explicit zero-padded copy of the input, int64 products, sums taken
   modulo 2^64 and then 2^32 (same residue as modulo 2^32 throughout). */
static void oracle_cc(const ti_prim_desc *d, const void *in, const void *w, const int32_t *bias,
                      int32_t *out) {
  int sy = d->stride_y ? d->stride_y : 1, sx = d->stride_x ? d->stride_x : 1;
  int dy = d->dilation_y ? d->dilation_y : 1, dx = d->dilation_x ? d->dilation_x : 1;
  int hp = d->niy + d->pad_up + d->pad_down, wp = d->nix + d->pad_left + d->pad_right;
  int64_t *pad = (int64_t *)calloc((size_t)hp * wp * d->nr, sizeof(int64_t));
  int y, x, f, r, ky, kx;
  for (y = 0; y < d->niy; y++)
    for (x = 0; x < d->nix; x++)
      for (r = 0; r < d->nr; r++)
        pad[((size_t)(y + d->pad_up) * wp + x + d->pad_left) * d->nr + r] =
            elem(in, d->in_dtype, ((size_t)y * d->nix + x) * d->nr + r);
  for (f = 0; f < d->nf; f++)
    for (y = 0; y < d->ny; y++)
      for (x = 0; x < d->nx; x++) {
        uint64_t acc = (uint64_t)(int64_t)(d->bias_mode == TI_BIAS_VECTOR ? bias[f] :
                                           d->bias_mode == TI_BIAS_CONSTANT ? d->constant_b : 0);
        for (r = 0; r < d->nr; r++)
          for (ky = 0; ky < d->nky; ky++)
            for (kx = 0; kx < d->nkx; kx++) {
              int64_t a = pad[((size_t)(y * sy + ky * dy) * wp + x * sx + kx * dx) * d->nr + r];
              int64_t b = elem(w, d->w_dtype, (((size_t)f * d->nr + r) * d->nky + ky) * d->nkx + kx);
              acc += (uint64_t)(a * b);
            }
        {
          uint32_t u = (uint32_t)acc;
          int32_t v;
          memcpy(&v, &u, 4);
          out[((size_t)y * d->nx + x) * d->nf + f] = v;
        }
      }
  free(pad);
}

/* The cpu masks that force each path this machine (or build) has: the
   reference, each SIMD variant of the conv families as the best allowed
   one (TI_KERNEL_VARIANTS), and everything detected. */
#define CONV_FAMILIES (TI_FAMILY_CC | TI_FAMILY_CC_WIDE | TI_FAMILY_CVM | TI_FAMILY_CVM_I32)
enum { MAX_PATHS = TI_VARIANT_COUNT + 2 };
static int cpu_paths(unsigned *m) {
  unsigned det = ti_cpu_detect(), cand[MAX_PATHS];
  int n = 0, i, k, nc = 0;
  cand[nc++] = 0;
#define VARIANT(id, name, cpu, need, families) \
  if (((families) & CONV_FAMILIES) && ((cpu) & det & (need)) == (unsigned)(need)) cand[nc++] = (cpu) & det;
  TI_KERNEL_VARIANTS(VARIANT)
#undef VARIANT
  cand[nc++] = det;
  for (i = 0; i < nc; i++) {
    unsigned c = cand[i];
    for (k = 0; k < n; k++) if (m[k] == c) break;
    if (k == n) m[n++] = c;
  }
  return n;
}

/* A parallel_for that runs the range in uneven chunks, last chunk first. */
static void chunky_for(void *user, int64_t n, ti_range_fn fn, void *arg) {
  int64_t step = 3, b;
  (void)user;
  for (b = ((n - 1) / step) * step; b >= 0; b -= step) fn(arg, b, b + step < n ? b + step : n);
}

static size_t count_in(const ti_prim_desc *d) { return (size_t)d->niy * d->nix * d->nr; }
static size_t count_w(const ti_prim_desc *d) { return (size_t)d->nf * d->nr * d->nky * d->nkx; }
static size_t count_out(const ti_prim_desc *d) { return (size_t)d->ny * d->nx * d->nf; }

/* Runs every entry point and path on one descriptor with random data and
   compares all outputs with the oracle. Returns the number of mismatches. */
static int check_conv(const ti_prim_desc *d, uint64_t seed) {
  tt_rng rng;
  unsigned paths[MAX_PATHS];
  int np = cpu_paths(paths), i, bad = 0, par;
  size_t ni = count_in(d), nw = count_w(d), no = count_out(d), pb = 0, sb0 = 0, sb1 = 0;
  void *in = malloc(ni * ti_dtype_size(d->in_dtype));
  void *w = malloc(nw * ti_dtype_size(d->w_dtype));
  int32_t *bias = (int32_t *)malloc((size_t)d->nf * 4);
  int32_t *want = (int32_t *)malloc(no * 4), *got = (int32_t *)malloc(no * 4);
  void *packed, *s0, *s1;
  rng.s = seed;
  fill(&rng, in, d->in_dtype, ni);
  fill(&rng, w, d->w_dtype, nw);
  fill(&rng, bias, TI_DTYPE_I32, (size_t)d->nf);
  TT_EQ_INT(ti_cc_pack_size(d, &pb), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_cc_scratch_size(d, 0, &sb0), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_cc_scratch_size(d, 1, &sb1), TI_STATUS_SUCCESS);
  packed = malloc(pb); s0 = malloc(sb0 ? sb0 : 1); s1 = malloc(sb1 ? sb1 : 1);
  TT_EQ_INT(ti_cc_pack_weights(d, w, packed, pb), TI_STATUS_SUCCESS);
  oracle_cc(d, in, w, bias, want);
  memset(got, 0x5a, no * 4);
  TT_EQ_INT(ti_cc_ref(d, in, w, bias, got), TI_STATUS_SUCCESS);
  bad += memcmp(got, want, no * 4) != 0;
  for (par = 0; par < 2; par++)
    for (i = 0; i < np; i++) {
      ti_kernel_ctx ctx;
      ti_kernel_ctx_init(&ctx);
      ctx.cpu = paths[i];
      if (par) ctx.parallel_for = chunky_for;
      memset(got, 0x5a, no * 4);
      memset(s1, 0xa5 + i, sb1 ? sb1 : 1);   /* nothing left from the path before */
      TT_EQ_INT(ti_cc_packed(&ctx, d, in, packed, pb, bias, got, s1, sb1), TI_STATUS_SUCCESS);
      if (memcmp(got, want, no * 4) != 0) {
        bad++;
        fprintf(stderr, "    ti_cc_packed mismatch, cpu 0x%x\n", paths[i]);
      }
      memset(got, 0x5a, no * 4);
      memset(s0, 0x5a + i, sb0 ? sb0 : 1);
      TT_EQ_INT(ti_cc(&ctx, d, in, w, bias, got, s0, sb0), TI_STATUS_SUCCESS);
      if (memcmp(got, want, no * 4) != 0) {
        bad++;
        fprintf(stderr, "    ti_cc mismatch, cpu 0x%x\n", paths[i]);
      }
      memset(got, 0x5a, no * 4);
      memset(s1, 0x3c + i, sb1 ? sb1 : 1);
      TT_EQ_INT(ti_cc2d_packed(&ctx, d, in, packed, pb, bias, got, s1, sb1), TI_STATUS_SUCCESS);
      bad += memcmp(got, want, no * 4) != 0;
    }
  free(in); free(w); free(bias); free(want); free(got); free(packed); free(s0); free(s1);
  return bad;
}

static int check_cvm(int nr, int nf, ti_dtype tin, ti_dtype tw, ti_bias_mode bm, uint64_t seed) {
  ti_prim_desc d = cvm_desc(nr, nf, tin, tw), c;
  tt_rng rng;
  unsigned paths[MAX_PATHS];
  int np = cpu_paths(paths), i, bad = 0, par;
  void *in = malloc((size_t)nr * ti_dtype_size(tin)), *w = malloc((size_t)nr * nf * ti_dtype_size(tw));
  int32_t *bias = (int32_t *)malloc((size_t)nf * 4);
  int32_t *want = (int32_t *)malloc((size_t)nf * 4), *got = (int32_t *)malloc((size_t)nf * 4);
  size_t sb = 0;
  void *scratch;
  d.bias_mode = bm; d.constant_b = -77777;
  TT_EQ_INT(ti_cvm_scratch_size(&d, &sb), TI_STATUS_SUCCESS);
  scratch = sb ? malloc(sb) : NULL;
  rng.s = seed;
  fill(&rng, in, tin, (size_t)nr);
  fill(&rng, w, tw, (size_t)nr * nf);
  fill(&rng, bias, TI_DTYPE_I32, (size_t)nf);
  /* CVM is the 1x1 convolution of a 1x1 image with nr channels. */
  c = conv_desc(1, 1, nr, nf, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, tin, tw);
  c.bias_mode = bm; c.constant_b = d.constant_b;
  oracle_cc(&c, in, w, bias, want);
  TT_EQ_INT(ti_cvm_ref(&d, in, w, bias, got), TI_STATUS_SUCCESS);
  bad += memcmp(got, want, (size_t)nf * 4) != 0;
  for (par = 0; par < 2; par++)
    for (i = 0; i < np; i++) {
      ti_kernel_ctx ctx;
      ti_kernel_ctx_init(&ctx);
      ctx.cpu = paths[i];
      if (par) ctx.parallel_for = chunky_for;
      memset(got, 0x5a, (size_t)nf * 4);
      TT_EQ_INT(ti_cvm(&ctx, &d, in, w, bias, got, scratch, sb), TI_STATUS_SUCCESS);
      if (memcmp(got, want, (size_t)nf * 4) != 0) {
        bad++;
        fprintf(stderr, "    ti_cvm mismatch nr %d nf %d cpu 0x%x\n", nr, nf, paths[i]);
      }
      if (par == 0) {   /* through ti_cvm_as_cc and packed weights */
        ti_prim_desc e;
        size_t pb = 0, sb1 = 0;
        void *packed, *s1;
        TT_EQ_INT(ti_cvm_as_cc(&d, &e), TI_STATUS_SUCCESS);
        TT_EQ_INT(ti_cc_pack_size(&e, &pb), TI_STATUS_SUCCESS);
        TT_EQ_INT(ti_cc_scratch_size(&e, 1, &sb1), TI_STATUS_SUCCESS);
        packed = malloc(pb); s1 = malloc(sb1);
        TT_EQ_INT(ti_cc_pack_weights(&e, w, packed, pb), TI_STATUS_SUCCESS);
        memset(got, 0x5a, (size_t)nf * 4);
        TT_EQ_INT(ti_cc_packed(&ctx, &e, in, packed, pb, bias, got, s1, sb1), TI_STATUS_SUCCESS);
        bad += memcmp(got, want, (size_t)nf * 4) != 0;
        free(packed); free(s1);
      }
    }
  free(in); free(w); free(bias); free(want); free(got); free(scratch);
  return bad;
}

/* ---- known answers ---------------------------------------------------------- */

/* Runs ti_cc_ref and ti_cc (detected cpu) and checks both against want. */
static void run_cc_both(const ti_prim_desc *d, const void *in, const void *w, const void *bias,
                        const int32_t *want) {
  int32_t got[64];
  size_t sb = 0, n = count_out(d);
  void *s;
  TT_CHECK(n <= 64);
  TT_EQ_INT(ti_cc_ref(d, in, w, bias, got), TI_STATUS_SUCCESS);
  TT_CHECK(memcmp(got, want, n * 4) == 0);
  TT_EQ_INT(ti_cc_scratch_size(d, 0, &sb), TI_STATUS_SUCCESS);
  s = malloc(sb ? sb : 1);
  memset(got, 0, sizeof got);
  TT_EQ_INT(ti_cc(NULL, d, in, w, bias, got, s, sb), TI_STATUS_SUCCESS);
  TT_CHECK(memcmp(got, want, n * 4) == 0);
  free(s);
}

TT_TEST(known_cc_2x2) {
  int8_t in[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, w[4] = {1, 2, 3, 4};
  int32_t want[4] = {137, 147, 167, 177};
  ti_prim_desc d = conv_desc(3, 3, 1, 1, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, TI_DTYPE_I8, TI_DTYPE_I8);
  TT_EQ_INT(d.ny, 2);
  d.bias_mode = TI_BIAS_CONSTANT; d.constant_b = 100;
  run_cc_both(&d, in, w, NULL, want);
}

TT_TEST(known_cc_pad_stride) {
  /* 3x3 ones window, stride 2, pad 1 on 1..9: windows clipped to 2x2 corners. */
  uint8_t in[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  int8_t w[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  int32_t want[4] = {12, 16, 24, 28};
  ti_prim_desc d = conv_desc(3, 3, 1, 1, 3, 3, 2, 2, 0, 0, 1, 1, 1, 1, TI_DTYPE_U8, TI_DTYPE_I8);
  TT_EQ_INT(d.ny, 2); TT_EQ_INT(d.nx, 2);
  d.bias_mode = TI_BIAS_NONE;
  run_cc_both(&d, in, w, NULL, want);
}

TT_TEST(known_cc_dilation_asym_pad) {
  /* in[y][x] = 10y + x on 5x5, 2x2 taps 2 apart, weights 1, 10, 100, 1000. */
  int32_t in[25], w[4] = {1, 10, 100, 1000}, got[16];
  int y, x;
  ti_prim_desc d = conv_desc(5, 5, 1, 1, 2, 2, 0, 0, 2, 2, 0, 0, 0, 0, TI_DTYPE_I32, TI_DTYPE_I32);
  for (y = 0; y < 5; y++) for (x = 0; x < 5; x++) in[y * 5 + x] = 10 * y + x;
  d.bias_mode = TI_BIAS_NONE;
  TT_EQ_INT(d.ny, 3);
  TT_EQ_INT(ti_cc_ref(&d, in, w, NULL, got), TI_STATUS_SUCCESS);
  TT_EQ_INT(got[0], 24020);
  TT_EQ_INT(got[1 * 3 + 2], 37352);
  /* Pad only left by 1: column 0 of the output sees zeros at x = -1. */
  d = conv_desc(5, 5, 1, 1, 2, 2, 0, 0, 2, 2, 0, 0, 1, 0, TI_DTYPE_I32, TI_DTYPE_I32);
  d.bias_mode = TI_BIAS_NONE;
  TT_EQ_INT(d.nx, 4);
  TT_EQ_INT(ti_cc_ref(&d, in, w, NULL, got), TI_STATUS_SUCCESS);
  TT_EQ_INT(got[0], 10 * 1 + 1000 * 21);   /* in[0][1]*10 + in[2][1]*1000 */
}

TT_TEST(known_cc_channels) {
  int8_t in[2] = {3, -2}, w[4] = {1, 2, -1, 5};
  int32_t bias[2] = {10, -10}, want[2] = {9, -23};
  ti_prim_desc d = conv_desc(1, 1, 2, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, TI_DTYPE_I8, TI_DTYPE_TERNARY);
  w[3] = 1; want[1] = -3 - 2 - 10;    /* TERNARY weights: -1/0/1 only */
  run_cc_both(&d, in, w, bias, want);
}

TT_TEST(known_cvm) {
  int8_t w[6] = {1, 2, 3, -1, 0, 1}, in[3] = {4, 5, -6};
  int32_t got[2];
  ti_prim_desc d = cvm_desc(3, 2, TI_DTYPE_I8, TI_DTYPE_I8);
  d.bias_mode = TI_BIAS_CONSTANT; d.constant_b = 7;
  TT_EQ_INT(ti_cvm_ref(&d, in, w, NULL, got), TI_STATUS_SUCCESS);
  TT_EQ_INT(got[0], 3); TT_EQ_INT(got[1], -3);
  memset(got, 0, sizeof got);
  TT_EQ_INT(ti_cvm(NULL, &d, in, w, NULL, got, NULL, 0), TI_STATUS_SUCCESS);
  TT_EQ_INT(got[0], 3); TT_EQ_INT(got[1], -3);
}

TT_TEST(known_int32_wrap) {
  int32_t in[2] = {INT32_MAX, 1}, w[2] = {1, 1}, got[1], w2[1] = {65536}, in2[1] = {65536};
  int32_t bias[1] = {INT32_MIN};
  ti_prim_desc d = cvm_desc(2, 1, TI_DTYPE_I32, TI_DTYPE_I32);
  d.bias_mode = TI_BIAS_NONE;
  TT_EQ_INT(ti_cvm(NULL, &d, in, w, NULL, got, NULL, 0), TI_STATUS_SUCCESS);
  TT_EQ_INT(got[0], INT32_MIN);
  d = cvm_desc(1, 1, TI_DTYPE_I32, TI_DTYPE_I32);
  TT_EQ_INT(ti_cvm(NULL, &d, in2, w2, bias, got, NULL, 0), TI_STATUS_SUCCESS);
  TT_EQ_INT(got[0], INT32_MIN);                         /* 2^32 wraps to 0 */
}

TT_TEST(known_float) {
  float in[2] = {0.5f, 2.0f}, w[2] = {2.0f, 0.25f}, bias[1] = {1.0f}, got[1];
  float cin[4] = {1, 2, 3, 4}, cw[1] = {-1.5f}, cgot[4];
  size_t sb = 0;
  void *scratch;
  ti_prim_desc d = cvm_desc(2, 1, TI_DTYPE_F32, TI_DTYPE_F32);
  TT_EQ_INT(ti_cvm(NULL, &d, in, w, bias, got, NULL, 0), TI_STATUS_SUCCESS);
  TT_CHECK(got[0] == 2.5f);
  d = conv_desc(2, 2, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, TI_DTYPE_F32, TI_DTYPE_F32);
  d.bias_mode = TI_BIAS_CONSTANT; d.constant_b = 3;
  TT_EQ_INT(ti_cc_scratch_size(&d, 0, &sb), TI_STATUS_SUCCESS);
  scratch = malloc(sb);
  TT_EQ_INT(ti_cc(NULL, &d, cin, cw, NULL, cgot, scratch, sb), TI_STATUS_SUCCESS);
  TT_CHECK(cgot[0] == 1.5f && cgot[1] == 0.0f && cgot[2] == -1.5f && cgot[3] == -3.0f);
  free(scratch);
}

/* ---- random comparisons against the oracle ------------------------------------ */

/* check_conv on every case {niy nix nr nf ky kx sy sx dy dx pu pd pl pr}
   with every (input, weights) dtype pair, seeds from seed0; bias_mode
   NONE for pair 2 and CONSTANT INT32_MAX for pair 3 when vary_bias. */
static void check_grid(const int (*cases)[14], size_t nc, const ti_dtype (*types)[2], size_t nt,
                       uint64_t seed0, int vary_bias) {
  size_t c, t;
  for (c = 0; c < nc; c++)
    for (t = 0; t < nt; t++) {
      const int *k = cases[c];
      ti_prim_desc d = conv_desc(k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7], k[8], k[9], k[10],
                                 k[11], k[12], k[13], types[t][0], types[t][1]);
      int bad;
      if (vary_bias && t == 2) d.bias_mode = TI_BIAS_NONE;
      if (vary_bias && t == 3) { d.bias_mode = TI_BIAS_CONSTANT; d.constant_b = INT32_MAX; }
      bad = check_conv(&d, seed0 + c * 16 + t);
      TT_CHECK_MSG(bad == 0, "case %d dtypes %d: %d mismatches", (int)c, (int)t, bad);
    }
}

TT_TEST(random_shapes) {
  /* niy nix nr nf ky kx sy sx dy dx pu pd pl pr */
  static const int cases[][14] = {
    {5, 7, 3, 5, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0},      /* 1x1 */
    {8, 8, 16, 33, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},    /* 3x3 pad 1, nf not a multiple of 16 */
    {15, 13, 3, 17, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3},   /* 7x7 stride 2 */
    {27, 27, 3, 8, 11, 11, 4, 4, 1, 1, 2, 2, 2, 2},  /* 11x11 stride 4 */
    {9, 11, 5, 7, 2, 2, 3, 3, 1, 1, 0, 0, 0, 0},     /* stride > kernel */
    {10, 9, 6, 9, 3, 3, 1, 1, 2, 2, 0, 2, 1, 0},     /* dilation, asymmetric pads */
    {6, 5, 1, 1, 3, 2, 1, 2, 1, 1, 1, 0, 0, 1},      /* nr = nf = 1 */
    {7, 6, 13, 70, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},    /* two channel tiles + tail */
    {4, 4, 64, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},    /* full tiles */
    {3, 3, 2, 3, 3, 3, 1, 1, 3, 3, 5, 4, 6, 3},      /* pads wider than the input */
    {13, 1, 7, 20, 3, 1, 2, 1, 2, 1, 1, 1, 0, 0},    /* one column */
    {5, 6, 4, 31, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},     /* nf % 16 == 15 */
    {4, 5, 9, 47, 2, 2, 1, 1, 1, 1, 0, 1, 0, 1},     /* nf % 32 == 15 */
    {7, 7, 20, 70, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},    /* 49 outputs: 5-pixel tiles */
    {5, 5, 8, 40, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0},     /* 25 outputs, three vectors */
    {12, 11, 3, 29, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},   /* 3 channels, window rows, 12-pixel tiles */
    {5, 4, 64, 80, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},    /* weights past 32 KiB: channel tiles outer */
    /* under 1/4 of the outputs on the border: tiles in pixel order, those
       on the top and bottom rows skip the window rows in the padding */
    {24, 20, 8, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},   /* one window row off at the top, bottom */
    {40, 3, 8, 20, 3, 1, 1, 1, 2, 1, 5, 2, 0, 0},    /* tiles across rows, dilated; row 0 reaches none */
    {30, 30, 3, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},   /* window rows as taps */
    {29, 26, 16, 70, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},  /* stride 2: the top row only; channel tail */
  };
  static const ti_dtype types[][2] = {
    {TI_DTYPE_I8, TI_DTYPE_I8}, {TI_DTYPE_U8, TI_DTYPE_I8}, {TI_DTYPE_TERNARY, TI_DTYPE_TERNARY},
    {TI_DTYPE_U8, TI_DTYPE_TERNARY}, {TI_DTYPE_I8, TI_DTYPE_TERNARY}, {TI_DTYPE_TERNARY, TI_DTYPE_I8},
    /* the wide path */
    {TI_DTYPE_I32, TI_DTYPE_I32}, {TI_DTYPE_U8, TI_DTYPE_U8}, {TI_DTYPE_I8, TI_DTYPE_I32},
    {TI_DTYPE_I32, TI_DTYPE_I8},
  };
  check_grid(cases, sizeof cases / sizeof cases[0], types, sizeof types / sizeof types[0], 1000, 1);
}

/* One thread copies the padded input band by band (TI__CC_BAND_BYTES of
   rows, about): images past a band, with the bands' seams inside tiles,
   window rows as taps, strides and dilation. */
TT_TEST(padded_rows_in_bands) {
  /* niy nix nr nf ky kx sy sx dy dx pu pd pl pr */
  static const int cases[][14] = {
    {60, 64, 32, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},    /* 3 bands */
    {200, 110, 3, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},   /* window rows as taps: 2 bands */
    {90, 70, 16, 40, 3, 3, 2, 1, 2, 1, 3, 2, 1, 1},   /* strided, dilated rows: 2 bands */
  };
  static const ti_dtype types[][2] = {{TI_DTYPE_I8, TI_DTYPE_I8}, {TI_DTYPE_U8, TI_DTYPE_I8}};
  check_grid(cases, sizeof cases / sizeof cases[0], types, sizeof types / sizeof types[0], 8800, 0);
}

/* The AMX tiles (variant amx-int8, on a machine that has it; elsewhere the
   same shapes check the other paths): pixel tiles along the flattened padded
   rows (stride 1) and along the output rows (strides 2 along x or y), tiles
   of whole output rows stored straight to the output and the others row by
   row, 4-byte groups per tap of 10 and 16 (one K step) and 32, 64, 128
   (two to eight steps), an odd number of 16-channel blocks and of pixel
   tiles (the last item's single B or A tile), channel tails, dilations and
   asymmetric pads; 1, 2 and 18 groups (not AMX) for the choice; packed
   weights over 1 MiB (items channel pair by channel pair). Every dtype pair
   of the int8 path. */
static const int amx_cases[][14] = {
  /* niy nix nr nf ky kx sy sx dy dx pu pd pl pr */
  {17, 19, 64, 48, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},    /* flattened rows, 3 channel blocks */
  {9, 40, 128, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},    /* 2 K steps per tap, a tail of 8 */
  {12, 33, 256, 17, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},   /* stride 2: output rows, 4 steps */
  {20, 20, 40, 33, 3, 3, 1, 2, 1, 1, 1, 1, 1, 1},    /* stride 2 along x, 10 groups */
  {20, 18, 36, 64, 3, 3, 2, 1, 1, 1, 0, 0, 1, 1},    /* stride 2 along y, 9 groups */
  {20, 18, 8, 64, 3, 3, 2, 1, 1, 1, 0, 0, 1, 1},     /* 2 groups: not AMX */
  {6, 32, 64, 64, 3, 3, 1, 1, 1, 1, 0, 0, 1, 1},     /* whole rows: straight stores */
  {10, 12, 64, 32, 3, 3, 1, 1, 2, 2, 2, 1, 0, 3},    /* dilation, asymmetric pads */
  {5, 5, 64, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},      /* 3 pixel tiles: one alone */
  {7, 7, 512, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},     /* 8 K steps per tap */
  {4, 70, 4, 20, 1, 3, 1, 1, 1, 1, 0, 0, 1, 1},      /* 1 group per tap: not AMX */
  {8, 36, 72, 24, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},     /* 18 groups: not AMX */
  {16, 48, 256, 64, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0},   /* 1x1, whole rows */
  {6, 6, 512, 272, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},    /* 1.25 MB of weights, 17 blocks */
};
static const ti_dtype amx_types[][2] = {
  {TI_DTYPE_I8, TI_DTYPE_I8}, {TI_DTYPE_U8, TI_DTYPE_I8}, {TI_DTYPE_TERNARY, TI_DTYPE_TERNARY},
  {TI_DTYPE_I8, TI_DTYPE_TERNARY}, {TI_DTYPE_I32, TI_DTYPE_I8},
};
static ti_prim_desc amx_desc(size_t c, size_t t) {
  const int *k = amx_cases[c];
  return conv_desc(k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7], k[8], k[9], k[10], k[11], k[12],
                   k[13], amx_types[t][0], amx_types[t][1]);
}
TT_TEST(amx_tiles) {
  size_t c, t;
  printf("    amx-int8 on this machine: %s\n", (ti_cpu_detect() & TI_CPU_AMXINT8) ? "yes" : "no");
  for (c = 0; c < sizeof amx_cases / sizeof amx_cases[0]; c++)
    for (t = 0; t < sizeof amx_types / sizeof amx_types[0]; t++) {
      ti_prim_desc d = amx_desc(c, t);
      int bad;
      fill_i32_small = 1;   /* I32 input in -128..127: the int8 path */
      bad = check_conv(&d, 7000 + c * 16 + t);
      fill_i32_small = 0;
      TT_CHECK_MSG(bad == 0, "amx case %d dtypes %d: %d mismatches", (int)c, (int)t, bad);
    }
}

#if defined(__linux__)
/* n bytes that end where an inaccessible page begins. */
static void *guarded(size_t n, void **map, size_t *len) {
  const size_t pg = (size_t)sysconf(_SC_PAGESIZE), body = (n + pg - 1) / pg * pg;
  unsigned char *m = (unsigned char *)mmap(NULL, body + pg, PROT_READ | PROT_WRITE,
                                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == (unsigned char *)MAP_FAILED) return NULL;
  if (mprotect(m + body, pg, PROT_NONE) != 0) { munmap(m, body + pg); return NULL; }
  *map = m; *len = body + pg;
  return m + body - n;
}

/* The tiles read and write nothing past the scratch, the packed weights,
   the input or the output, each of exactly its size and followed by an
   inaccessible page (the tile loads and stores are not seen by the
   sanitizers). */
TT_TEST(amx_stays_in_its_buffers) {
  size_t c;
  for (c = 0; c < sizeof amx_cases / sizeof amx_cases[0]; c++) {
    ti_prim_desc d = amx_desc(c, 0);
    size_t ni = count_in(&d), nw = count_w(&d), no = count_out(&d), pb = 0, sb = 0, i;
    void *mi, *mw, *mp, *ms, *mo, *mb;
    size_t li, lw, lp, ls, lo, lb;
    int8_t *in, *w;
    int32_t *bias, *out, *want;
    unsigned char *packed, *scratch;
    ti_kernel_ctx ctx;
    TT_EQ_INT(ti_cc_pack_size(&d, &pb), TI_STATUS_SUCCESS);
    TT_EQ_INT(ti_cc_scratch_size(&d, 1, &sb), TI_STATUS_SUCCESS);
    in = (int8_t *)guarded(ni, &mi, &li); w = (int8_t *)guarded(nw, &mw, &lw);
    packed = (unsigned char *)guarded(pb, &mp, &lp); scratch = (unsigned char *)guarded(sb, &ms, &ls);
    out = (int32_t *)guarded(no * 4, &mo, &lo); bias = (int32_t *)guarded((size_t)d.nf * 4, &mb, &lb);
    want = (int32_t *)malloc(no * 4);
    TT_CHECK(in && w && packed && scratch && out && bias && want);
    if (!(in && w && packed && scratch && out && bias && want)) return;
    for (i = 0; i < ni; i++) in[i] = (int8_t)(i * 7 + 3);
    for (i = 0; i < nw; i++) w[i] = (int8_t)(i * 13 + 1);
    for (i = 0; i < (size_t)d.nf; i++) bias[i] = (int32_t)i - 5;
    TT_EQ_INT(ti_cc_pack_weights(&d, w, packed, pb), TI_STATUS_SUCCESS);
    TT_EQ_INT(ti_cc_ref(&d, in, w, bias, want), TI_STATUS_SUCCESS);
    ti_kernel_ctx_init(&ctx);
    TT_EQ_INT(ti_cc_packed(&ctx, &d, in, packed, pb, bias, out, scratch, sb), TI_STATUS_SUCCESS);
    TT_CHECK_MSG(memcmp(out, want, no * 4) == 0, "amx case %d: outputs differ", (int)c);
    munmap(mi, li); munmap(mw, lw); munmap(mp, lp); munmap(ms, ls); munmap(mo, lo); munmap(mb, lb);
    free(want);
  }
}
#endif

/* Outputs on the border skip the taps that read only padding (the int8
   path, when at least 1/4 of the outputs are on the border): every region
   (rows above and below, columns left and right, corners), pads of 0..3 on
   each side, strides, dilations, a tap box that is empty, channel tiles
   with tails, and U8 input (padding 0) as well as I8 (padding -128 + 128). */
TT_TEST(padded_taps_skipped) {
  /* niy nix nr nf ky kx sy sx dy dx pu pd pl pr */
  static const int cases[][14] = {
    {7, 7, 16, 96, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},     /* the 7x7 ResNet shape, narrowed */
    {14, 14, 32, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {9, 8, 8, 70, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},      /* stride 2: no bottom/right border */
    {8, 9, 12, 33, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2},     /* two border rows and columns */
    {10, 7, 4, 20, 3, 3, 1, 1, 2, 2, 3, 1, 0, 2},     /* dilation, asymmetric pads */
    {5, 6, 8, 17, 3, 5, 1, 1, 1, 1, 0, 3, 3, 0},      /* pads on two sides only */
    {1, 12, 16, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},    /* one row: every pixel on the border */
    {6, 1, 20, 48, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},     /* one column */
    {2, 2, 4, 16, 3, 3, 1, 1, 1, 1, 3, 3, 3, 3},      /* taps past both sides: empty boxes */
    {4, 4, 64, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},     /* weights past 32 KiB: channel tiles outer */
  };
  static const ti_dtype types[][2] = {
    {TI_DTYPE_I8, TI_DTYPE_I8}, {TI_DTYPE_U8, TI_DTYPE_I8}, {TI_DTYPE_I8, TI_DTYPE_TERNARY},
    {TI_DTYPE_I32, TI_DTYPE_I8},
  };
  size_t c, t;
  for (c = 0; c < sizeof cases / sizeof cases[0]; c++)
    for (t = 0; t < sizeof types / sizeof types[0]; t++) {
      const int *k = cases[c];
      ti_prim_desc d = conv_desc(k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7], k[8], k[9], k[10],
                                 k[11], k[12], k[13], types[t][0], types[t][1]);
      int bad;
      if (t == 3) fill_i32_small = 1;   /* I32 input that narrows to the int8 path */
      bad = check_conv(&d, 7000 + c * 16 + t);
      fill_i32_small = 0;
      TT_CHECK_MSG(bad == 0, "case %d dtypes %d: %d mismatches", (int)c, (int)t, bad);
    }
}

/* Short windows packed as one flat reduction (im2col rows; packed format 6,
   or 7 with I32 input): 1..16 channels, odd image sizes and output counts
   (blocks and tiles with remainders), pads on some or all sides, strides 1
   and 2, dilated rows and columns (per-tap copies), window rows of up to 16
   bytes (16-byte copies) and longer; 1..5 vectors of channels with tails.
   The cases with 1, 2, 3, 6 and 7 channels include flat ones; those with 4,
   5 and 16 save no group (or too few) and keep the other layouts. */
TT_TEST(flat_windows) {
  /* niy nix nr nf ky kx sy sx dy dx pu pd pl pr */
  static const int cases[][14] = {
    {13, 11, 3, 32, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},   /* the RGB stem, small */
    {9, 7, 3, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {10, 9, 1, 64, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2},    /* LeNet's first, wider */
    {8, 9, 2, 48, 5, 5, 2, 1, 1, 1, 2, 0, 1, 2},     /* 50 bytes, asymmetric pads */
    {7, 8, 3, 70, 4, 4, 1, 2, 1, 1, 0, 1, 2, 0},     /* 48 bytes, rows of 12 */
    {9, 9, 6, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},     /* rows of 18 bytes: per-tap copies */
    {11, 10, 3, 64, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2},   /* dilated */
    {6, 12, 2, 40, 2, 7, 1, 1, 1, 1, 0, 1, 3, 3},    /* two rows of 14 bytes */
    {15, 14, 6, 64, 3, 2, 2, 2, 1, 3, 1, 0, 2, 1},   /* 36 bytes, dilated columns */
    {5, 5, 7, 80, 3, 3, 1, 1, 1, 1, 3, 3, 3, 3},     /* pads wider than the window */
    {3, 40, 2, 17, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},    /* 120 pixels: two blocks */
    {19, 13, 3, 17, 3, 3, 1, 1, 1, 1, 0, 2, 1, 1},   /* 17..32 channels: 32-byte rows, 4 blocks */
    {10, 13, 7, 20, 3, 3, 1, 2, 1, 1, 1, 1, 1, 0},   /* 63 bytes, 20 channels: 64-byte rows */
    {9, 9, 16, 64, 2, 2, 1, 1, 1, 1, 0, 1, 0, 1},    /* 16 channels: not flat */
  };
  static const ti_dtype types[][2] = {
    {TI_DTYPE_I8, TI_DTYPE_I8}, {TI_DTYPE_U8, TI_DTYPE_I8}, {TI_DTYPE_TERNARY, TI_DTYPE_TERNARY},
    {TI_DTYPE_I32, TI_DTYPE_I8},
  };
  int flat[17] = {0}, c, t, nr;
  for (c = 0; c < (int)(sizeof cases / sizeof cases[0]) + 16; c++) {
    int k[14];
    if (c < (int)(sizeof cases / sizeof cases[0])) memcpy(k, cases[c], sizeof k);
    else {   /* 1..16 channels under 3x3 (C <= 7, 63 bytes at most) or 2x2 windows */
      static const int base[14] = {11, 13, 0, 64, 3, 3, 2, 1, 1, 1, 1, 1, 0, 1};
      memcpy(k, base, sizeof k);
      k[2] = nr = c - (int)(sizeof cases / sizeof cases[0]) + 1;
      if (nr > 7) k[4] = k[5] = 2;
      k[6] = 1 + nr % 2;
    }
    for (t = 0; t < (int)(sizeof types / sizeof types[0]); t++) {
      ti_prim_desc d = conv_desc(k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7], k[8], k[9], k[10],
                                 k[11], k[12], k[13], types[t][0], types[t][1]);
      size_t pb = 0;
      unsigned char *p;
      int bad;
      TT_EQ_INT(ti_cc_pack_size(&d, &pb), TI_STATUS_SUCCESS);
      void *w0 = calloc(count_w(&d), ti_dtype_size(d.w_dtype));
      p = (unsigned char *)calloc(pb, 1);
      /* the packed header's format word (little-endian, bytes 4..7) */
      TT_EQ_INT(ti_cc_pack_weights(&d, w0, p, pb), TI_STATUS_SUCCESS);
      if (p[4] == 6 || p[4] == 7) flat[k[2]]++;
      free(p); free(w0);
      fill_i32_small = t == 3;   /* I32 input that narrows to the int8 path */
      bad = check_conv(&d, 9000 + c * 16 + t);
      fill_i32_small = 0;
      TT_CHECK_MSG(bad == 0, "case %d dtypes %d: %d mismatches", c, t, bad);
    }
  }
  for (nr = 1; nr <= 7; nr++)   /* 4 and 5 channels: no group saved under 3x3 (window rows) */
    if (nr != 4 && nr != 5) TT_CHECK_MSG(flat[nr] > 0, "%d channels never took the flat path", nr);
  TT_CHECK(flat[4] == 0 && flat[5] == 0 && flat[16] == 0);
}

TT_TEST(i32_input_narrowing) {
  /* I32 input with int8 weights takes the int8 path when every value fits
     -128..127 or 0..255, else the wide one: same results either way. */
  static const int cases[][14] = {
    {8, 8, 16, 33, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {7, 6, 13, 70, 3, 3, 2, 1, 1, 2, 1, 0, 2, 1},
    {5, 9, 1, 5, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0},
  };
  size_t c;
  int mode;
  for (mode = 1; mode <= 6; mode++)
    for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
      const int *k = cases[c];
      ti_prim_desc d = conv_desc(k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7], k[8], k[9], k[10],
                                 k[11], k[12], k[13], TI_DTYPE_I32,
                                 c == 1 ? TI_DTYPE_TERNARY : TI_DTYPE_I8);
      int bad;
      fill_i32_small = mode;
      bad = check_conv(&d, 300 + 10 * mode + c);
      bad += check_cvm(k[2] * 37, k[3], TI_DTYPE_I32, c == 1 ? TI_DTYPE_TERNARY : TI_DTYPE_I8,
                       TI_BIAS_VECTOR, 400 + 10 * mode + c);
      fill_i32_small = 0;
      TT_CHECK_MSG(bad == 0, "mode %d case %d: %d mismatches", mode, (int)c, bad);
    }
}

TT_TEST(random_shapes_other_types) {
  /* I32 (wrapping), U8 weights and mixed widths take the reference path;
     the oracle checks them all the same. */
  static const ti_dtype types[][2] = {
    {TI_DTYPE_I32, TI_DTYPE_I32}, {TI_DTYPE_I32, TI_DTYPE_I8}, {TI_DTYPE_I8, TI_DTYPE_I32},
    {TI_DTYPE_U8, TI_DTYPE_U8}, {TI_DTYPE_I8, TI_DTYPE_U8},
  };
  size_t t;
  for (t = 0; t < sizeof types / sizeof types[0]; t++) {
    ti_prim_desc d = conv_desc(7, 6, 5, 9, 3, 3, 2, 1, 1, 2, 1, 2, 2, 1, types[t][0], types[t][1]);
    int bad = check_conv(&d, 77 + t);
    TT_CHECK_MSG(bad == 0, "dtypes %d: %d mismatches", (int)t, bad);
    TT_CHECK_MSG(check_cvm(37, 11, types[t][0], types[t][1], TI_BIAS_VECTOR, 5 + t) == 0, "cvm %d", (int)t);
  }
}

TT_TEST(random_int8_wrap) {
  /* -128 * -128 * 140000 > 2^31: int8 reductions this long wrap. */
  int8_t *in = (int8_t *)malloc(140000), *w = (int8_t *)malloc(140000 * 3);
  int32_t got[3];
  ti_prim_desc d = cvm_desc(140000, 3, TI_DTYPE_I8, TI_DTYPE_I8);
  unsigned paths[MAX_PATHS];
  int np = cpu_paths(paths), i;
  memset(in, 0x80, 140000); memset(w, 0x80, 140000 * 3);
  w[140000 + 5] = 1;                    /* row 1 differs from row 0 */
  d.bias_mode = TI_BIAS_NONE;
  for (i = 0; i < np; i++) {
    ti_kernel_ctx ctx;
    ti_kernel_ctx_init(&ctx);
    ctx.cpu = paths[i];
    TT_EQ_INT(ti_cvm(&ctx, &d, in, w, NULL, got, NULL, 0), TI_STATUS_SUCCESS);
    TT_EQ_INT(got[0], (int32_t)(uint32_t)(16384u * 140000u));
    TT_EQ_INT(got[1], (int32_t)(uint32_t)(16384u * 139999u - 128u));
  }
  free(in); free(w);
  {
    /* 3x3 taps x 16000 channels of 127 (255 * 127 per product once offset
       for vpdpbusd), then 255 x -128: partial sums pass 2^31 up and down. */
    ti_prim_desc c = conv_desc(3, 4, 16000, 18, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, TI_DTYPE_I8, TI_DTYPE_I8);
    fill_extreme = 1;
    TT_EQ_INT(check_conv(&c, 4242), 0);
    c = conv_desc(1, 2, 140000, 3, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, TI_DTYPE_U8, TI_DTYPE_I8);
    fill_extreme = 2;
    TT_EQ_INT(check_conv(&c, 4243), 0);
    TT_EQ_INT(check_cvm(140000, 5, TI_DTYPE_U8, TI_DTYPE_I8, TI_BIAS_NONE, 4244), 0);
    fill_extreme = 1;
    TT_EQ_INT(check_cvm(140000, 5, TI_DTYPE_I8, TI_DTYPE_I8, TI_BIAS_NONE, 4245), 0);
    fill_extreme = 0;
  }
  TT_EQ_INT(check_cvm(140001, 5, TI_DTYPE_I8, TI_DTYPE_I8, TI_BIAS_NONE, 9), 0);
}

TT_TEST(random_cvm) {
  static const int sizes[][2] = {{1, 1}, {3, 5}, {16, 4}, {63, 9}, {64, 16}, {65, 17}, {200, 33},
                                 {1000, 7}, {4099, 13}};
  size_t s;
  for (s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    int nr = sizes[s][0], nf = sizes[s][1];
    TT_EQ_INT(check_cvm(nr, nf, TI_DTYPE_I8, TI_DTYPE_I8, TI_BIAS_VECTOR, 10 + s), 0);
    TT_EQ_INT(check_cvm(nr, nf, TI_DTYPE_U8, TI_DTYPE_I8, TI_BIAS_CONSTANT, 20 + s), 0);
    TT_EQ_INT(check_cvm(nr, nf, TI_DTYPE_TERNARY, TI_DTYPE_TERNARY, TI_BIAS_NONE, 30 + s), 0);
    TT_EQ_INT(check_cvm(nr, nf, TI_DTYPE_U8, TI_DTYPE_TERNARY, TI_BIAS_VECTOR, 40 + s), 0);
    TT_EQ_INT(check_cvm(nr, nf, TI_DTYPE_I32, TI_DTYPE_I32, TI_BIAS_VECTOR, 50 + s), 0);
  }
}

/* ti_cvm of nf x nr weights w with input in (u: 0 i8, 1 u8 x i8, 2 ternary)
   against the reference, with every feature of ctx and without AVX-VNNI:
   0 when both match, else the cpu flags that did not (~0u: a status). */
static unsigned cvm_matches_ref(const ti_kernel_ctx *ctx, int u, int nf, int nr, const int8_t *in,
                                const int8_t *w, int32_t *want, int32_t *got) {
  const ti_dtype t = u == 2 ? TI_DTYPE_TERNARY : TI_DTYPE_I8;
  ti_prim_desc d;
  int k;
  memset(&d, 0, sizeof d);
  d.ny = d.nx = 1; d.nf = nf; d.nr = nr; d.in_dtype = u == 1 ? TI_DTYPE_U8 : t; d.w_dtype = t;
  d.out_dtype = TI_DTYPE_I32; d.bias_mode = TI_BIAS_NONE;
  if (ti_cvm_ref(&d, in, w, NULL, want) != TI_STATUS_SUCCESS) return ~0u;
  for (k = 0; k < 2; k++) {
    ti_kernel_ctx c = *ctx;
    if (k) c.cpu &= ~(unsigned)TI_CPU_AVXVNNI;
    memset(got, 0x5a, (size_t)nf * 4);
    if (ti_cvm(&c, &d, in, w, NULL, got, NULL, 0) != TI_STATUS_SUCCESS) return ~0u;
    if (memcmp(got, want, (size_t)nf * 4) != 0) return c.cpu ? c.cpu : ~0u;
  }
  return 0;
}

/* Weights of TASKIR_CVM_YMM_BYTES and of TASKIR_CVM_MEM_BYTES or more:
   what ti_cvm picks with every feature of this CPU (the 256-bit VNNI
   kernels, two streams and four, where there are both VNNI widths), and
   without AVX-VNNI (the 512-bit kernel for weights beyond the L2), equals
   the reference, signed, unsigned and ternary input; nr and nf leave a
   column tail and odd rows. */
TT_TEST(cvm_weights_beyond_ymm_threshold) {
  const size_t sizes[2] = {TASKIR_CVM_YMM_BYTES, TASKIR_CVM_MEM_BYTES};
  const int nr = 4099, nfmax = (int)(sizes[1] / 4099) + 3;
  int8_t *in = (int8_t *)malloc((size_t)nr), *w = (int8_t *)malloc((size_t)nr * nfmax);
  int32_t *want = (int32_t *)malloc((size_t)nfmax * 4), *got = (int32_t *)malloc((size_t)nfmax * 4);
  ti_kernel_ctx ctx;
  tt_rng rng;
  int u, z;
  rng.s = 99;
  ti_kernel_ctx_init(&ctx);
  for (u = 0; u < 3; u++) {
    fill(&rng, in, u == 2 ? TI_DTYPE_TERNARY : TI_DTYPE_I8, (size_t)nr);
    fill(&rng, w, u == 2 ? TI_DTYPE_TERNARY : TI_DTYPE_I8, (size_t)nr * nfmax);
    for (z = 0; z < 2; z++) {
      const int nf = (int)(sizes[z] / 4099) + 3;
      const unsigned bad = cvm_matches_ref(&ctx, u, nf, nr, in, w, want, got);
      TT_CHECK_MSG(bad == 0, "input %d, %d bytes of weights, cpu %#x", u, nf * nr, bad);
    }
  }
  free(in); free(w); free(want); free(got);
}

/* Weights beyond TASKIR_CVM_YMM_BYTES at every offset to a line, rows of
   whole lines (nr a multiple of 64) and not: the 512-bit kernel beyond the
   L2 aligns its loads of W with masked heads and tails, in two streams and,
   for rows of more than 8 KiB, four; row counts that leave rows over. */
TT_TEST(cvm_far_rows_at_offsets) {
  static const int offs[] = {0, 1, 16, 48, 63};
  static const int nrs[] = {4096, 16384, 16411};
  size_t o, q;
  int u;
  for (q = 0; q < sizeof nrs / sizeof nrs[0]; q++) {
    const int nr = nrs[q], nf = (int)(TASKIR_CVM_YMM_BYTES / (size_t)nr) + 3 + 2 * (int)q;
    int8_t *in = (int8_t *)malloc((size_t)nr), *raw = (int8_t *)malloc((size_t)nr * nf + 128);
    int32_t *want = (int32_t *)malloc((size_t)nf * 4), *got = (int32_t *)malloc((size_t)nf * 4);
    ti_kernel_ctx ctx;
    tt_rng rng;
    rng.s = 7 + q;
    ti_kernel_ctx_init(&ctx);
    for (u = 0; u < 3; u++)
      for (o = 0; o < sizeof offs / sizeof offs[0]; o++) {
        int8_t *w = raw + ((64 - ((uintptr_t)raw & 63)) & 63) + offs[o];
        unsigned bad;
        fill(&rng, in, u == 2 ? TI_DTYPE_TERNARY : TI_DTYPE_I8, (size_t)nr);
        fill(&rng, w, u == 2 ? TI_DTYPE_TERNARY : TI_DTYPE_I8, (size_t)nr * nf);
        bad = cvm_matches_ref(&ctx, u, nf, nr, in, w, want, got);
        TT_CHECK_MSG(bad == 0, "rows of %d, input %d, offset %d, cpu %#x", nr, u, offs[o], bad);
      }
    free(in); free(raw); free(want); free(got);
  }
}

TT_TEST(random_float_paths) {
  /* Every path sums each output in the reference's order: outputs equal
     ti_cc_ref exactly (this file is built in ISO C mode: no contraction). */
  static const int cases[][14] = {
    {6, 7, 5, 9, 3, 3, 1, 2, 2, 1, 2, 0, 1, 1},
    {5, 5, 3, 70, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {9, 4, 17, 31, 1, 1, 2, 1, 1, 1, 0, 0, 0, 0},
  };
  size_t c;
  for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    const int *k = cases[c];
    ti_prim_desc d = conv_desc(k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7], k[8], k[9], k[10],
                               k[11], k[12], k[13], TI_DTYPE_F32, TI_DTYPE_F32);
    tt_rng rng;
    size_t ni = count_in(&d), nw = count_w(&d), no = count_out(&d), pb = 0, sb = 0, sb0 = 0;
    float *in = (float *)malloc(ni * 4), *w = (float *)malloc(nw * 4), *bias = (float *)malloc(d.nf * 4);
    float *a = (float *)malloc(no * 4), *b = (float *)malloc(no * 4);
    void *packed, *s, *s0;
    unsigned paths[MAX_PATHS];
    int np = cpu_paths(paths), i;
    rng.s = 99 + c;
    fill(&rng, in, TI_DTYPE_F32, ni); fill(&rng, w, TI_DTYPE_F32, nw); fill(&rng, bias, TI_DTYPE_F32, d.nf);
    TT_EQ_INT(ti_cc_ref(&d, in, w, bias, a), TI_STATUS_SUCCESS);
    TT_EQ_INT(ti_cc_pack_size(&d, &pb), TI_STATUS_SUCCESS);
    TT_EQ_INT(ti_cc_scratch_size(&d, 1, &sb), TI_STATUS_SUCCESS);
    TT_EQ_INT(ti_cc_scratch_size(&d, 0, &sb0), TI_STATUS_SUCCESS);
    packed = malloc(pb); s = malloc(sb); s0 = malloc(sb0);
    TT_EQ_INT(ti_cc_pack_weights(&d, w, packed, pb), TI_STATUS_SUCCESS);
    for (i = 0; i < np; i++) {
      ti_kernel_ctx ctx;
      ti_kernel_ctx_init(&ctx);
      ctx.cpu = paths[i];
      if (i & 1) ctx.parallel_for = chunky_for;
      memset(b, 0, no * 4);
      TT_EQ_INT(ti_cc_packed(&ctx, &d, in, packed, pb, bias, b, s, sb), TI_STATUS_SUCCESS);
      TT_CHECK_MSG(memcmp(a, b, no * 4) == 0, "case %d cpu 0x%x", (int)c, paths[i]);
      memset(b, 0, no * 4);
      TT_EQ_INT(ti_cc(&ctx, &d, in, w, bias, b, s0, sb0), TI_STATUS_SUCCESS);
      TT_CHECK_MSG(memcmp(a, b, no * 4) == 0, "case %d cpu 0x%x", (int)c, paths[i]);
    }
    if (c == 0) {
      /* One output by hand: y = 1, x = 2, f = 4. */
      int ky, kx, r;
      float acc = bias[4];
      for (ky = 0; ky < 3; ky++)
        for (kx = 0; kx < 3; kx++) {
          int iy = 1 + 2 * ky - 2, ix = 2 * 2 + kx - 1;
          if (iy < 0 || iy >= 6 || ix < 0 || ix >= 7) continue;
          for (r = 0; r < 5; r++) acc += in[(iy * 7 + ix) * 5 + r] * w[((4 * 5 + r) * 3 + ky) * 3 + kx];
        }
      TT_CHECK(a[(1 * d.nx + 2) * 9 + 4] == acc);
    }
    free(in); free(w); free(bias); free(a); free(b); free(packed); free(s); free(s0);
  }
}

TT_TEST(float_cvm_as_cc) {
  /* F32 CVM on packed weights through the CC paths equals ti_cvm_ref exactly. */
  static const int sizes[][2] = {{1, 1}, {7, 3}, {64, 16}, {300, 70}};
  size_t c;
  for (c = 0; c < sizeof sizes / sizeof sizes[0]; c++) {
    int nr = sizes[c][0], nf = sizes[c][1], i, np;
    ti_prim_desc d = cvm_desc(nr, nf, TI_DTYPE_F32, TI_DTYPE_F32), e;
    tt_rng rng;
    float *in = (float *)malloc((size_t)nr * 4), *w = (float *)malloc((size_t)nr * nf * 4);
    float *bias = (float *)malloc((size_t)nf * 4), *a = (float *)malloc((size_t)nf * 4);
    float *b = (float *)malloc((size_t)nf * 4);
    size_t pb = 0, sb = 0;
    void *packed, *s;
    unsigned paths[MAX_PATHS];
    rng.s = 700 + c;
    fill(&rng, in, TI_DTYPE_F32, (size_t)nr); fill(&rng, w, TI_DTYPE_F32, (size_t)nr * nf);
    fill(&rng, bias, TI_DTYPE_F32, (size_t)nf);
    TT_EQ_INT(ti_cvm_ref(&d, in, w, bias, a), TI_STATUS_SUCCESS);
    memset(b, 0, (size_t)nf * 4);
    TT_EQ_INT(ti_cvm(NULL, &d, in, w, bias, b, NULL, 0), TI_STATUS_SUCCESS);
    TT_CHECK(memcmp(a, b, (size_t)nf * 4) == 0);
    TT_EQ_INT(ti_cvm_as_cc(&d, &e), TI_STATUS_SUCCESS);
    TT_EQ_INT(ti_cc_pack_size(&e, &pb), TI_STATUS_SUCCESS);
    TT_EQ_INT(ti_cc_scratch_size(&e, 1, &sb), TI_STATUS_SUCCESS);
    packed = malloc(pb); s = malloc(sb);
    TT_EQ_INT(ti_cc_pack_weights(&e, w, packed, pb), TI_STATUS_SUCCESS);
    np = cpu_paths(paths);
    for (i = 0; i < np; i++) {
      ti_kernel_ctx ctx;
      ti_kernel_ctx_init(&ctx);
      ctx.cpu = paths[i];
      memset(b, 0, (size_t)nf * 4);
      TT_EQ_INT(ti_cc_packed(&ctx, &e, in, packed, pb, bias, b, s, sb), TI_STATUS_SUCCESS);
      TT_CHECK_MSG(memcmp(a, b, (size_t)nf * 4) == 0, "nr %d nf %d cpu 0x%x", nr, nf, paths[i]);
    }
    free(in); free(w); free(bias); free(a); free(b); free(packed); free(s);
  }
}

TT_TEST(random_descriptors) {
  /* Random, often malformed descriptors: every entry point agrees on the
     status, none crashes or touches memory past the buffers its sizes imply
     (ASan build), and successful runs match the oracle. */
  static const ti_dtype dts[] = {TI_DTYPE_I8, TI_DTYPE_U8, TI_DTYPE_TERNARY, TI_DTYPE_I32,
                                 TI_DTYPE_I16, TI_DTYPE_F16};
  tt_rng rng;
  int it, ok = 0;
  rng.s = 2024;
  for (it = 0; it < 400; it++) {
    ti_prim_desc d = conv_desc((int)tt_range(&rng, 1, 6), (int)tt_range(&rng, 1, 6),
                               (int)tt_range(&rng, 1, 9), (int)tt_range(&rng, 1, 20),
                               (int)tt_range(&rng, 1, 4), (int)tt_range(&rng, 1, 4),
                               (int)tt_range(&rng, 0, 3), (int)tt_range(&rng, 0, 3),
                               (int)tt_range(&rng, 0, 2), (int)tt_range(&rng, 0, 2),
                               (int)tt_range(&rng, 0, 3), (int)tt_range(&rng, 0, 3),
                               (int)tt_range(&rng, 0, 3), (int)tt_range(&rng, 0, 3),
                               dts[tt_range(&rng, 0, 5)], dts[tt_range(&rng, 0, 5)]);
    ti_status s1, s2, s3;
    size_t pb = 0, sb = 0;
    int k = (int)tt_range(&rng, 0, 9);
    if (k == 0) d.ny += (int)tt_range(&rng, -1, 1);
    if (k == 1) d.nx = (int)tt_range(&rng, -1, 3);
    if (k == 2) d.stride_y = (int)tt_range(&rng, -2, 0);
    if (k == 3) d.pad_right = -1;
    if (k == 4) d.nr = 0;
    d.bias_mode = (ti_bias_mode)tt_range(&rng, 0, 2);
    s1 = ti_cc_pack_size(&d, &pb);
    s2 = ti_cc_scratch_size(&d, 0, &sb);
    if (s1 == TI_STATUS_SUCCESS) {
      /* The descriptor is valid only when the dims are (status from geometry). */
      TT_CHECK(d.ny > 0 && d.nx > 0 && d.nr > 0 && d.stride_y >= 0 && d.pad_right >= 0);
    }
    TT_EQ_INT(s1, s2);
    if (s1 == TI_STATUS_SUCCESS) {
      ok++;
      TT_CHECK(check_conv(&d, 5000 + it) == 0);
    } else {
      int32_t buf[4];
      s3 = ti_cc_ref(&d, buf, buf, buf, buf);
      TT_EQ_INT(s3, s1);
      TT_CHECK(s1 == TI_STATUS_BAD_PARAM || s1 == TI_STATUS_NOT_SUPPORTED);
    }
  }
  TT_CHECK(ok > 50);
}

/* ---- argument checks ------------------------------------------------------------ */

TT_TEST(bad_params) {
  int8_t in[64] = {0}, w[64] = {0};
  int32_t out[64], bias[8] = {0};
  uint8_t packed[4096], scratch[4096];
  size_t sz = 0, pb = 0, sb = 0;
  ti_prim_desc d = conv_desc(4, 4, 2, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, TI_DTYPE_I8, TI_DTYPE_I8), e;
  ti_kernel_ctx ctx;
  ti_kernel_ctx_init(&ctx);
  TT_EQ_INT(ti_cc_pack_size(&d, &pb), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_cc_scratch_size(&d, 1, &sb), TI_STATUS_SUCCESS);
  TT_CHECK(pb <= sizeof packed && sb <= sizeof scratch);
  TT_EQ_INT(ti_cc_pack_weights(&d, w, packed, pb), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_cc_packed(&ctx, &d, in, packed, pb, bias, out, scratch, sb), TI_STATUS_SUCCESS);

  TT_EQ_INT(ti_cc_ref(NULL, in, w, bias, out), TI_STATUS_BAD_PARAM);
  TT_EQ_INT(ti_cc_ref(&d, NULL, w, bias, out), TI_STATUS_BAD_PARAM);
  TT_EQ_INT(ti_cc_ref(&d, in, NULL, bias, out), TI_STATUS_BAD_PARAM);
  TT_EQ_INT(ti_cc_ref(&d, in, w, bias, NULL), TI_STATUS_BAD_PARAM);
  TT_EQ_INT(ti_cc_ref(&d, in, w, NULL, out), TI_STATUS_BAD_PARAM);      /* VECTOR bias missing */
  TT_EQ_INT(ti_cc_scratch_size(&d, 0, NULL), TI_STATUS_BAD_PARAM);
  TT_EQ_INT(ti_cc(&ctx, &d, in, w, bias, out, NULL, 0), TI_STATUS_BAD_PARAM);
  TT_EQ_INT(ti_cc(&ctx, &d, in, w, bias, out, scratch, 10), TI_STATUS_BAD_PARAM);
  TT_EQ_INT(ti_cc_packed(&ctx, &d, in, packed, pb - 1, bias, out, scratch, sb), TI_STATUS_BAD_PARAM);
  TT_EQ_INT(ti_cc_packed(&ctx, &d, in, packed, pb, bias, out, scratch, sb - 1), TI_STATUS_BAD_PARAM);
  TT_EQ_INT(ti_cc_pack_weights(&d, w, packed, pb - 1), TI_STATUS_BAD_PARAM);
  e = d; e.nf = 1;                    /* packed for nf = 2 */
  TT_EQ_INT(ti_cc_packed(&ctx, &e, in, packed, sizeof packed, bias, out, scratch, sizeof scratch),
            TI_STATUS_BAD_PARAM);
  e = d; e.in_dtype = TI_DTYPE_I32;   /* packing differs by dtype */
  TT_EQ_INT(ti_cc_packed(&ctx, &e, in, packed, sizeof packed, bias, out, scratch, sizeof scratch),
            TI_STATUS_BAD_PARAM);
  packed[0] ^= 1;
  TT_EQ_INT(ti_cc_packed(&ctx, &d, in, packed, pb, bias, out, scratch, sb), TI_STATUS_BAD_PARAM);

  e = d; e.ny = 5; TT_EQ_INT(ti_cc_ref(&e, in, w, bias, out), TI_STATUS_BAD_PARAM);
  e = d; e.nx = 3; TT_EQ_INT(ti_cc_scratch_size(&e, 0, &sz), TI_STATUS_BAD_PARAM);
  e = d; e.nf = 0; TT_EQ_INT(ti_cc_ref(&e, in, w, bias, out), TI_STATUS_BAD_PARAM);
  e = d; e.nr = -1; TT_EQ_INT(ti_cc_ref(&e, in, w, bias, out), TI_STATUS_BAD_PARAM);
  e = d; e.nky = 0; TT_EQ_INT(ti_cc_ref(&e, in, w, bias, out), TI_STATUS_BAD_PARAM);
  e = d; e.stride_x = -2; TT_EQ_INT(ti_cc_ref(&e, in, w, bias, out), TI_STATUS_BAD_PARAM);
  e = d; e.dilation_y = -1; TT_EQ_INT(ti_cc_ref(&e, in, w, bias, out), TI_STATUS_BAD_PARAM);
  e = d; e.pad_left = -1; TT_EQ_INT(ti_cc_ref(&e, in, w, bias, out), TI_STATUS_BAD_PARAM);
  e = d; e.nky = 9; e.ny = 1;     /* window longer than the padded input */
  TT_EQ_INT(ti_cc_ref(&e, in, w, bias, out), TI_STATUS_BAD_PARAM);
  e = d; e.bias_mode = (ti_bias_mode)7; TT_EQ_INT(ti_cc_ref(&e, in, w, bias, out), TI_STATUS_BAD_PARAM);
  e = d; e.in_dtype = (ti_dtype)99; TT_EQ_INT(ti_cc_ref(&e, in, w, bias, out), TI_STATUS_BAD_PARAM);
  /* Sizes past what int64 byte counts hold. */
  e = conv_desc(2000000000, 2000000000, 2000000000, 2000000000, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0,
                TI_DTYPE_I8, TI_DTYPE_I8);
  TT_EQ_INT(ti_cc_pack_size(&e, &sz), TI_STATUS_BAD_PARAM);
  TT_EQ_INT(ti_cc_scratch_size(&e, 1, &sz), TI_STATUS_BAD_PARAM);
  e = d; e.pad_up = e.pad_down = 2000000000; e.ny = INT32_MAX;   /* true ny is past int32 */
  TT_EQ_INT(ti_cc_ref(&e, in, w, bias, out), TI_STATUS_BAD_PARAM);

  e = d; e.in_dtype = TI_DTYPE_F16; TT_EQ_INT(ti_cc_ref(&e, in, w, bias, out), TI_STATUS_NOT_SUPPORTED);
  e = d; e.in_dtype = TI_DTYPE_F32; TT_EQ_INT(ti_cc_ref(&e, in, w, bias, out), TI_STATUS_NOT_SUPPORTED);
  e = d; e.w_dtype = TI_DTYPE_I16; TT_EQ_INT(ti_cc(&ctx, &e, in, w, bias, out, scratch, sizeof scratch),
                                              TI_STATUS_NOT_SUPPORTED);
  e = d; e.out_dtype = TI_DTYPE_F32; TT_EQ_INT(ti_cc_pack_size(&e, &sz), TI_STATUS_NOT_SUPPORTED);

  {
    ti_prim_desc v = cvm_desc(8, 2, TI_DTYPE_I8, TI_DTYPE_I8);
    TT_EQ_INT(ti_cvm(&ctx, NULL, in, w, bias, out, NULL, 0), TI_STATUS_BAD_PARAM);
    TT_EQ_INT(ti_cvm(&ctx, &v, NULL, w, bias, out, NULL, 0), TI_STATUS_BAD_PARAM);
    TT_EQ_INT(ti_cvm(&ctx, &v, in, w, NULL, out, NULL, 0), TI_STATUS_BAD_PARAM);
    TT_EQ_INT(ti_cvm_ref(&v, in, w, bias, NULL), TI_STATUS_BAD_PARAM);
    TT_EQ_INT(ti_cvm_as_cc(&v, NULL), TI_STATUS_BAD_PARAM);
    v.nr = 0; TT_EQ_INT(ti_cvm(&ctx, &v, in, w, bias, out, NULL, 0), TI_STATUS_BAD_PARAM);
    TT_EQ_INT(ti_cvm_as_cc(&v, &e), TI_STATUS_BAD_PARAM);
    v.nr = 8; v.nf = -3; TT_EQ_INT(ti_cvm_ref(&v, in, w, bias, out), TI_STATUS_BAD_PARAM);
    v.nf = 2; v.w_dtype = TI_DTYPE_F32; TT_EQ_INT(ti_cvm(&ctx, &v, in, w, bias, out, NULL, 0), TI_STATUS_NOT_SUPPORTED);
    v.w_dtype = TI_DTYPE_I8;
    v.in_dtype = TI_DTYPE_I32;      /* narrowing wants nr bytes of scratch, else reference */
    TT_EQ_INT(ti_cvm_scratch_size(&v, &sz), TI_STATUS_SUCCESS);
    TT_EQ_INT(sz, 8);
    {
      int32_t x[8] = {1, -2, 3, -4, 5, -6, 7, -128}, o1[2], o2[2], o3[2];
      int8_t wv[16] = {1, 2, 3, 4, 5, 6, 7, 8, -1, -1, -1, -1, 127, -128, 0, 2};
      TT_EQ_INT(ti_cvm(&ctx, &v, x, wv, bias, o1, NULL, 0), TI_STATUS_SUCCESS);
      TT_EQ_INT(ti_cvm(&ctx, &v, x, wv, bias, o2, scratch, 7), TI_STATUS_SUCCESS);
      TT_EQ_INT(ti_cvm(&ctx, &v, x, wv, bias, o3, scratch, 8), TI_STATUS_SUCCESS);
      /* 1 - 4 + 9 - 16 + 25 - 36 + 49 - 1024 and -1 + 2 - 3 + 4 + 635 + 768 + 0 - 256 */
      TT_EQ_INT(o1[0], -996); TT_EQ_INT(o1[1], 1149);
      TT_CHECK(o1[0] == o2[0] && o1[1] == o2[1] && o1[0] == o3[0] && o1[1] == o3[1]);
    }
    v.in_dtype = TI_DTYPE_I8;
    v.bias_mode = TI_BIAS_CONSTANT; v.constant_b = 5;
    TT_EQ_INT(ti_cvm(&ctx, &v, in, w, NULL, out, NULL, 0), TI_STATUS_SUCCESS);
    TT_EQ_INT(out[0], 5); TT_EQ_INT(out[1], 5);
  }
}

int main(void) {
  unsigned paths[MAX_PATHS];
  int i, n = cpu_paths(paths);
  printf("cpu paths:");
  for (i = 0; i < n; i++) printf(" 0x%x", paths[i]);
  printf("\n");
  TT_RUN(known_cc_2x2);
  TT_RUN(known_cc_pad_stride);
  TT_RUN(known_cc_dilation_asym_pad);
  TT_RUN(known_cc_channels);
  TT_RUN(known_cvm);
  TT_RUN(known_int32_wrap);
  TT_RUN(known_float);
  TT_RUN(random_shapes);
  TT_RUN(random_shapes_other_types);
  TT_RUN(padded_rows_in_bands);
  TT_RUN(amx_tiles);
#if defined(__linux__)
  TT_RUN(amx_stays_in_its_buffers);
#endif
  TT_RUN(padded_taps_skipped);
  TT_RUN(flat_windows);
  TT_RUN(i32_input_narrowing);
  TT_RUN(random_int8_wrap);
  TT_RUN(random_cvm);
  TT_RUN(cvm_weights_beyond_ymm_threshold);
  TT_RUN(cvm_far_rows_at_offsets);
  TT_RUN(random_float_paths);
  TT_RUN(float_cvm_as_cc);
  TT_RUN(random_descriptors);
  TT_RUN(bad_params);
  return tt_finish();
}
