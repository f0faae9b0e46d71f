/* TinShift: argument checks and their order, the seed's known answer, the
   adjoint property, the mmcv-compatible backward, bit-exact moves, and the
   streaming and parallel paths against a naive index-arithmetic version. */
/* Small streaming threshold so that modest shapes take the streaming path. */
#define TASKIR_KERNELS_STREAM_BYTES ((size_t)1 << 11)
/* and a small size from which the work goes to parallel_for */
#define TASKIR_TINSHIFT_SPLIT_BYTES ((size_t)4096)
#define TASKIR_IMPLEMENTATION
#include "taskir_kernels.h"
#include "tt.h"

static ti_tensor_desc desc4(ti_dtype t, int64_t n, int64_t tt, int64_t c, int64_t hw) {
  ti_tensor_desc d; int64_t dims[4];
  dims[0] = n; dims[1] = tt; dims[2] = c; dims[3] = hw;
  ti_tensor_desc_set(&d, t, 4, dims);
  return d;
}
static ti_tensor_desc desc2(ti_dtype t, int64_t n, int64_t g) {
  ti_tensor_desc d; int64_t dims[2];
  dims[0] = n; dims[1] = g;
  ti_tensor_desc_set(&d, t, 2, dims);
  return d;
}

/* out[n][t][c][hw] = in[n][t - sign*s][c][hw] or 0, on raw bytes. */
static void naive(const unsigned char *in, const int32_t *sh, unsigned char *out, int64_t N,
                  int64_t T, int64_t C, int64_t HW, int64_t G, size_t es, int sign) {
  int64_t n, t, c, hw;
  for (n = 0; n < N; ++n)
    for (t = 0; t < T; ++t)
      for (c = 0; c < C; ++c) {
        int64_t g = c / (C / G);
        int64_t st = t - (int64_t)sign * sh[n * G + g];
        for (hw = 0; hw < HW; ++hw) {
          size_t o = (size_t)(((n * T + t) * C + c) * HW + hw) * es;
          if (st >= 0 && st < T)
            memcpy(out + o, in + (size_t)(((n * T + st) * C + c) * HW + hw) * es, es);
          else
            memset(out + o, 0, es);
        }
      }
}

static const ti_tinshift_mode modes[3] = {TI_TINSHIFT_FORWARD, TI_TINSHIFT_BACKWARD,
                                          TI_TINSHIFT_BACKWARD_COMPAT};
static const int mode_sign[3] = {1, -1, 1};

TT_TEST(test_checks_each) {
  float in[2 * 3 * 4 * 5] = {0}, out[2 * 3 * 4 * 5];
  int32_t sh[2 * 2] = {1, -1, 0, 2};
  ti_tensor_desc xi = desc4(TI_DTYPE_F32, 2, 3, 4, 5), xo = xi, s = desc2(TI_DTYPE_I32, 2, 2);
  ti_tensor_desc a, b, c;
  memset(in, 0, sizeof in);
  TT_EQ_INT(ti_tinshift_forward(&xi, in, &s, sh, &xo, out), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_tinshift_backward(&xi, in, &s, sh, &xo, out), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_tinshift_backward_compat(&xi, in, &s, sh, &xo, out), TI_STATUS_SUCCESS);
  /* NULL descriptors */
  TT_EQ_INT(ti_tinshift_forward(NULL, in, &s, sh, &xo, out), TI_STATUS_BAD_PARAM);
  TT_EQ_INT(ti_tinshift_forward(&xi, in, NULL, sh, &xo, out), TI_STATUS_BAD_PARAM);
  TT_EQ_INT(ti_tinshift_forward(&xi, in, &s, sh, NULL, out), TI_STATUS_BAD_PARAM);
  TT_EQ_INT(ti_tinshift_backward(&xi, in, &s, sh, NULL, out), TI_STATUS_BAD_PARAM);
  /* unknown mode */
  TT_EQ_INT(ti_tinshift_ex(NULL, TI_TINSHIFT_MODE_COUNT, &xi, in, &s, sh, &xo, out),
            TI_STATUS_BAD_PARAM);
  TT_EQ_INT(ti_tinshift_ex(NULL, (ti_tinshift_mode)-1, &xi, in, &s, sh, &xo, out),
            TI_STATUS_BAD_PARAM);
  /* ranks */
  a = xi; a.ndim = 3;
  TT_EQ_INT(ti_tinshift_forward(&a, in, &s, sh, &xo, out), TI_STATUS_BAD_PARAM);
  a = xi; a.ndim = 5; a.dims[4] = 1; b = a;
  TT_EQ_INT(ti_tinshift_forward(&a, in, &s, sh, &b, out), TI_STATUS_BAD_PARAM);
  a = xi; a.ndim = 9;  /* more than the descriptor holds: refused, not read */
  TT_EQ_INT(ti_tinshift_forward(&a, in, &s, sh, &xo, out), TI_STATUS_BAD_PARAM);
  c = s; c.ndim = 1;
  TT_EQ_INT(ti_tinshift_forward(&xi, in, &c, sh, &xo, out), TI_STATUS_BAD_PARAM);
  c = s; c.ndim = 3; c.dims[2] = 1;
  TT_EQ_INT(ti_tinshift_forward(&xi, in, &c, sh, &xo, out), TI_STATUS_BAD_PARAM);
  b = xo; b.ndim = 3;
  TT_EQ_INT(ti_tinshift_forward(&xi, in, &s, sh, &b, out), TI_STATUS_BAD_PARAM);
  /* C == 0, G == 0, C % G */
  a = desc4(TI_DTYPE_F32, 2, 3, 0, 5); b = a;
  TT_EQ_INT(ti_tinshift_forward(&a, in, &s, sh, &b, out), TI_STATUS_BAD_PARAM);
  c = desc2(TI_DTYPE_I32, 2, 0);
  TT_EQ_INT(ti_tinshift_forward(&xi, in, &c, sh, &xo, out), TI_STATUS_BAD_PARAM);
  c = desc2(TI_DTYPE_I32, 2, 3);
  TT_EQ_INT(ti_tinshift_forward(&xi, in, &c, sh, &xo, out), TI_STATUS_BAD_PARAM);
  c = desc2(TI_DTYPE_I32, 2, 8);  /* G > C */
  TT_EQ_INT(ti_tinshift_forward(&xi, in, &c, sh, &xo, out), TI_STATUS_BAD_PARAM);
  c = desc2(TI_DTYPE_I32, 2, -2);
  TT_EQ_INT(ti_tinshift_forward(&xi, in, &c, sh, &xo, out), TI_STATUS_BAD_PARAM);
  /* each input/output dim differs */
  {
    int i;
    for (i = 0; i < 4; ++i) {
      b = xo; b.dims[i] += 1;
      TT_EQ_INT(ti_tinshift_forward(&xi, in, &s, sh, &b, out), TI_STATUS_BAD_PARAM);
    }
  }
  /* batch of shifts */
  c = desc2(TI_DTYPE_I32, 1, 2);
  TT_EQ_INT(ti_tinshift_forward(&xi, in, &c, sh, &xo, out), TI_STATUS_BAD_PARAM);
  /* dtypes */
  c = desc2(TI_DTYPE_I64, 2, 2);
  TT_EQ_INT(ti_tinshift_forward(&xi, in, &c, sh, &xo, out), TI_STATUS_BAD_PARAM);
  c = desc2(TI_DTYPE_F32, 2, 2);
  TT_EQ_INT(ti_tinshift_forward(&xi, in, &c, sh, &xo, out), TI_STATUS_BAD_PARAM);
  a = xi; a.dtype = TI_DTYPE_I32; b = xo; b.dtype = TI_DTYPE_I32;
  TT_EQ_INT(ti_tinshift_forward(&a, in, &s, sh, &b, out), TI_STATUS_BAD_PARAM);
  a = xi; a.dtype = TI_DTYPE_F64; b = xo; b.dtype = TI_DTYPE_F64;
  TT_EQ_INT(ti_tinshift_forward(&a, in, &s, sh, &b, out), TI_STATUS_BAD_PARAM);
  b = xo; b.dtype = TI_DTYPE_F16;
  TT_EQ_INT(ti_tinshift_forward(&xi, in, &s, sh, &b, out), TI_STATUS_BAD_PARAM);
  /* N == 0, HW == 0 (with the shifts batch matching) */
  a = desc4(TI_DTYPE_F32, 0, 3, 4, 5); b = a; c = desc2(TI_DTYPE_I32, 0, 2);
  TT_EQ_INT(ti_tinshift_forward(&a, in, &c, sh, &b, out), TI_STATUS_BAD_PARAM);
  a = desc4(TI_DTYPE_F32, 2, 3, 4, 0); b = a;
  TT_EQ_INT(ti_tinshift_forward(&a, in, &s, sh, &b, out), TI_STATUS_BAD_PARAM);
  a = desc4(TI_DTYPE_F32, 2, -3, 4, 5); b = a;
  TT_EQ_INT(ti_tinshift_forward(&a, in, &s, sh, &b, out), TI_STATUS_BAD_PARAM);
  /* 2^31 elements and more: not supported; 2^31 - 1: accepted (checked with
     T == 0 elsewhere; here the data pointers are NULL, so BAD_PARAM shows the
     size check passed) */
  a = desc4(TI_DTYPE_F32, 2, 1024, 1024, 1024); b = a;
  TT_EQ_INT(ti_tinshift_forward(&a, in, &s, sh, &b, out), TI_STATUS_NOT_SUPPORTED);
  a = desc4(TI_DTYPE_F16, 2, (int64_t)1 << 40, 4, (int64_t)1 << 40); b = a;  /* product overflows int64 */
  TT_EQ_INT(ti_tinshift_forward(&a, in, &s, sh, &b, out), TI_STATUS_NOT_SUPPORTED);
  a = desc4(TI_DTYPE_F32, 1, 1, 2147483647, 1); b = a;
  c = desc2(TI_DTYPE_I32, 1, 1);
  TT_EQ_INT(ti_tinshift_forward(&a, NULL, &c, sh, &b, NULL), TI_STATUS_BAD_PARAM);
  a = desc4(TI_DTYPE_F32, 1, 2, 1073741824, 1); b = a;
  TT_EQ_INT(ti_tinshift_forward(&a, NULL, &c, sh, &b, NULL), TI_STATUS_NOT_SUPPORTED);
  /* T == 0: success */
  a = desc4(TI_DTYPE_F32, 2, 0, 4, 5); b = a;
  TT_EQ_INT(ti_tinshift_forward(&a, in, &s, sh, &b, out), TI_STATUS_SUCCESS);
  /* NULL data */
  TT_EQ_INT(ti_tinshift_forward(&xi, NULL, &s, sh, &xo, out), TI_STATUS_BAD_PARAM);
  TT_EQ_INT(ti_tinshift_forward(&xi, in, &s, NULL, &xo, out), TI_STATUS_BAD_PARAM);
  TT_EQ_INT(ti_tinshift_forward(&xi, in, &s, sh, &xo, NULL), TI_STATUS_BAD_PARAM);
  TT_EQ_INT(ti_tinshift_backward(&xi, in, &s, sh, &xo, NULL), TI_STATUS_BAD_PARAM);
  TT_EQ_INT(ti_tinshift_backward_compat(&xi, NULL, &s, sh, &xo, out), TI_STATUS_BAD_PARAM);
}

TT_TEST(test_check_order) {
  float in[8] = {0}, out[8];
  int32_t sh[2] = {0, 0};
  ti_tensor_desc a, b, c;
  /* NULL descriptor beats a bad rank */
  a = desc4(TI_DTYPE_F32, 1, 1, 2, 1); a.ndim = 3;
  TT_EQ_INT(ti_tinshift_forward(&a, in, NULL, sh, &a, out), TI_STATUS_BAD_PARAM);
  /* bad mode beats NULL descriptor (both BAD_PARAM); bad rank beats size */
  a = desc4(TI_DTYPE_F32, 2, 1024, 1024, 1024); b = a; b.ndim = 3;
  c = desc2(TI_DTYPE_I32, 2, 2);
  TT_EQ_INT(ti_tinshift_forward(&a, in, &c, sh, &b, out), TI_STATUS_BAD_PARAM);
  /* shape rules beat the size limit */
  b = a; b.dims[3] = 1023;
  TT_EQ_INT(ti_tinshift_forward(&a, in, &c, sh, &b, out), TI_STATUS_BAD_PARAM);
  c = desc2(TI_DTYPE_I32, 2, 3);  /* C % G */
  TT_EQ_INT(ti_tinshift_forward(&a, in, &c, sh, &a, out), TI_STATUS_BAD_PARAM);
  c = desc2(TI_DTYPE_I32, 1, 2);  /* shifts batch */
  TT_EQ_INT(ti_tinshift_forward(&a, in, &c, sh, &a, out), TI_STATUS_BAD_PARAM);
  /* dtype rules beat the size limit and T == 0 */
  c = desc2(TI_DTYPE_U32, 2, 2);
  TT_EQ_INT(ti_tinshift_forward(&a, in, &c, sh, &a, out), TI_STATUS_BAD_PARAM);
  a = desc4(TI_DTYPE_F64, 2, 0, 4, 5);
  c = desc2(TI_DTYPE_I32, 2, 2);
  TT_EQ_INT(ti_tinshift_forward(&a, in, &c, sh, &a, out), TI_STATUS_BAD_PARAM);
  a = desc4(TI_DTYPE_F32, 2, 0, 4, 5); b = a; b.dtype = TI_DTYPE_F16;
  TT_EQ_INT(ti_tinshift_forward(&a, in, &c, sh, &b, out), TI_STATUS_BAD_PARAM);
  /* N == 0 / HW == 0 beat T == 0 */
  a = desc4(TI_DTYPE_F32, 0, 0, 4, 5); c = desc2(TI_DTYPE_I32, 0, 2);
  TT_EQ_INT(ti_tinshift_forward(&a, in, &c, sh, &a, out), TI_STATUS_BAD_PARAM);
  a = desc4(TI_DTYPE_F32, 2, 0, 4, 0); c = desc2(TI_DTYPE_I32, 2, 2);
  TT_EQ_INT(ti_tinshift_forward(&a, in, &c, sh, &a, out), TI_STATUS_BAD_PARAM);
  /* the size limit beats NULL data */
  a = desc4(TI_DTYPE_F32, 2, 1024, 1024, 1024);
  TT_EQ_INT(ti_tinshift_forward(&a, NULL, &c, NULL, &a, NULL), TI_STATUS_NOT_SUPPORTED);
  /* T == 0 beats NULL data: success without touching anything */
  a = desc4(TI_DTYPE_F16, 2, 0, 4, 5);
  TT_EQ_INT(ti_tinshift_forward(&a, NULL, &c, NULL, &a, NULL), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_tinshift_backward(&a, NULL, &c, NULL, &a, NULL), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_tinshift_backward_compat(&a, NULL, &c, NULL, &a, NULL), TI_STATUS_SUCCESS);
}

/* The seed's example: input [1, 6, 6, 1], shifts [-1, 0, 2]; three groups of
   two channels. in[t][c] = 10 t + c + 1; expected output written by hand. */
TT_TEST(test_known_answer) {
  static const float expect_fwd[6][6] = {
    /* g0: s = -1 -> in[t+1]   g1: s = 0     g2: s = 2 -> in[t-2] */
    {11, 12,   3,  4,    0,  0},
    {21, 22,  13, 14,    0,  0},
    {31, 32,  23, 24,    5,  6},
    {41, 42,  33, 34,   15, 16},
    {51, 52,  43, 44,   25, 26},
    { 0,  0,  53, 54,   35, 36}};
  static const float expect_bwd[6][6] = {
    /* the adjoint moves the other way: g0 -> in[t-1], g2 -> in[t+2] */
    { 0,  0,   3,  4,   25, 26},
    { 1,  2,  13, 14,   35, 36},
    {11, 12,  23, 24,   45, 46},
    {21, 22,  33, 34,   55, 56},
    {31, 32,  43, 44,    0,  0},
    {41, 42,  53, 54,    0,  0}};
  float in[36], out[36];
  int32_t sh[3] = {-1, 0, 2};
  ti_tensor_desc x = desc4(TI_DTYPE_F32, 1, 6, 6, 1), s = desc2(TI_DTYPE_I32, 1, 3);
  int t, c;
  for (t = 0; t < 6; ++t)
    for (c = 0; c < 6; ++c) in[t * 6 + c] = (float)(10 * t + c + 1);
  TT_EQ_INT(ti_tinshift_forward(&x, in, &s, sh, &x, out), TI_STATUS_SUCCESS);
  TT_CHECK(memcmp(out, expect_fwd, sizeof out) == 0);
  TT_EQ_INT(ti_tinshift_backward_compat(&x, in, &s, sh, &x, out), TI_STATUS_SUCCESS);
  TT_CHECK(memcmp(out, expect_fwd, sizeof out) == 0);
  TT_EQ_INT(ti_tinshift_backward(&x, in, &s, sh, &x, out), TI_STATUS_SUCCESS);
  TT_CHECK(memcmp(out, expect_bwd, sizeof out) == 0);
  /* the same in f16 (1.0 = 0x3c00 .. as raw patterns: the move is bitwise) */
  {
    uint16_t hin[36], hout[36];
    ti_tensor_desc h = desc4(TI_DTYPE_F16, 1, 6, 6, 1);
    for (t = 0; t < 36; ++t) hin[t] = (uint16_t)(0x3c00 + t * 7);
    TT_EQ_INT(ti_tinshift_forward(&h, hin, &s, sh, &h, hout), TI_STATUS_SUCCESS);
    for (t = 0; t < 6; ++t)
      for (c = 0; c < 6; ++c) {
        int e = (int)expect_fwd[t][c];
        uint16_t want = e ? (uint16_t)(0x3c00 + ((e / 10) * 6 + e % 10 - 1) * 7) : 0;
        TT_EQ_INT(hout[t * 6 + c], want);
      }
  }
}

/* A canary after the output catches writes past its end. */
#define CANARY 64

static int run_case(tt_rng *r, int64_t N, int64_t T, int64_t C, int64_t HW, int64_t G,
                    ti_dtype dt, int align_off, const ti_kernel_ctx *ctx) {
  size_t es = ti_dtype_size(dt), n = (size_t)(N * T * C * HW), bytes = n * es, i;
  unsigned char *in = (unsigned char *)malloc(bytes + 1);
  unsigned char *outb = (unsigned char *)malloc(bytes + CANARY + 128);
  unsigned char *want = (unsigned char *)malloc(bytes + 1);
  /* align_off is from a 64-byte boundary: paths that work in whole lines
     see every offset */
  unsigned char *base = outb + ((size_t)(-(uintptr_t)outb) & 63), *out = base + align_off;
  int32_t *sh = (int32_t *)malloc((size_t)(N * G) * sizeof(int32_t));
  int m, bad = 0;
  ti_tensor_desc x = desc4(dt, N, T, C, HW), s = desc2(TI_DTYPE_I32, N, G);
  for (i = 0; i < bytes; ++i) in[i] = (unsigned char)tt_next(r);
  for (i = 0; i < (size_t)(N * G); ++i) {
    int64_t k = tt_range(r, 0, 9);
    if (k == 0) sh[i] = (int32_t)tt_range(r, -3 * T - 2, 3 * T + 2);
    else if (k == 1) sh[i] = (i & 1) ? INT32_MAX : INT32_MIN;
    else if (k == 2 && i > 0) sh[i] = sh[i - 1];  /* equal neighbours merge */
    else sh[i] = (int32_t)tt_range(r, -T, T);
  }
  for (m = 0; m < 3; ++m) {
    memset(outb, 0xA5, bytes + CANARY + 128);
    naive(in, sh, want, N, T, C, HW, G, es, mode_sign[m]);
    if (ti_tinshift_ex(ctx, modes[m], &x, in, &s, sh, &x, out) != TI_STATUS_SUCCESS) bad = 1;
    if (memcmp(out, want, bytes) != 0) bad = 1;
    for (i = 0; i < (size_t)align_off; ++i) if (base[i] != 0xA5) bad = 1;
    for (i = 0; i < CANARY; ++i) if (out[bytes + i] != 0xA5) bad = 1;
  }
  free(in); free(outb); free(want); free(sh);
  return bad;
}

TT_TEST(test_random_vs_naive) {
  tt_rng r = {0x5eed1234ULL};
  int k;
  for (k = 0; k < 300; ++k) {
    int64_t G = tt_range(&r, 1, 6), cg = tt_range(&r, 1, 5), C = G * cg;
    int64_t N = tt_range(&r, 1, 3), T = tt_range(&r, 1, 9), HW = tt_range(&r, 1, 12);
    ti_dtype dt = (k & 1) ? TI_DTYPE_F16 : TI_DTYPE_F32;
    int bad;
    if (k % 7 == 0) HW = tt_range(&r, 20, 80);  /* pieces longer than 64 bytes */
    bad = run_case(&r, N, T, C, HW, G, dt, (int)tt_range(&r, 0, 3) * (int)ti_dtype_size(dt), NULL);
    TT_CHECK_MSG(!bad, "N=%lld T=%lld C=%lld HW=%lld G=%lld dtype=%d", (long long)N,
                 (long long)T, (long long)C, (long long)HW, (long long)G, (int)dt);
    if (bad) break;
  }
}

/* Outputs above the (test-lowered) streaming threshold, at several output
   alignments, small and large pieces, f16 and f32. */
TT_TEST(test_streaming_path) {
  tt_rng r = {77};
  static const int64_t shapes[][5] = {
    /* N, T, C, HW, G */
    {2, 8, 64, 1, 8},     /* 32-byte pieces */
    {1, 8, 256, 1, 64},   /* 16 bytes */
    {3, 5, 48, 7, 3},     /* 448-byte pieces */
    {1, 6, 64, 49, 2},    /* long pieces */
    {2, 4, 30, 37, 5},    /* odd sizes */
    {1, 9, 1024, 1, 1024} /* 4-byte pieces */
  };
  size_t k;
  int a, c;
  ti_kernel_ctx detected;  /* the machine's own paths (AVX-512 lines where present) */
  ti_kernel_ctx_init(&detected);
  for (c = 0; c < 2; ++c)
    for (k = 0; k < sizeof shapes / sizeof shapes[0]; ++k)
      for (a = 0; a < 3; ++a) {
        const int64_t *s = shapes[k];
        ti_dtype dt = a == 1 ? TI_DTYPE_F16 : TI_DTYPE_F32;
        int off = a == 0 ? 0 : a == 1 ? 2 : 36;
        TT_CHECK((size_t)(s[0] * s[1] * s[2] * s[3]) * ti_dtype_size(dt) >=
                 TASKIR_KERNELS_STREAM_BYTES);
        TT_CHECK_MSG(!run_case(&r, s[0], s[1], s[2], s[3], s[4], dt, off, c ? &detected : NULL),
                     "shape %u align %d ctx %d", (unsigned)k, off, c);
      }
}

/* In cache, runs of 65 bytes to 4 KiB take inline vector moves (through a
   detected ctx). Below this file's lowered
   streaming size: runs of 64 B to 768 B, two output offsets, f16 and f32,
   equal neighbours and out-of-range shifts (run_case draws them). */
TT_TEST(test_cached_line_path) {
  tt_rng r = {4096};
  static const int64_t shapes[][5] = {
    /* N, T, C, HW, G */
    {1, 4, 64, 1, 2},     /* 128-byte runs (f32) */
    {3, 2, 32, 2, 2},     /* 128 B, three images */
    {1, 3, 128, 1, 1},    /* 512 B */
    {1, 2, 192, 1, 1},    /* 768 B */
    {2, 3, 64, 1, 1}      /* 256 B */
  };
  size_t k;
  int a;
  ti_kernel_ctx detected;
  ti_kernel_ctx_init(&detected);
  for (k = 0; k < sizeof shapes / sizeof shapes[0]; ++k)
    for (a = 0; a < 4; ++a) {
      const int64_t *s = shapes[k];
      ti_dtype dt = a & 1 ? TI_DTYPE_F16 : TI_DTYPE_F32;
      int off = a < 2 ? 0 : 4;
      TT_CHECK((size_t)(s[0] * s[1] * s[2] * s[3]) * ti_dtype_size(dt) < TASKIR_KERNELS_STREAM_BYTES);
      TT_CHECK_MSG(!run_case(&r, s[0], s[1], s[2], s[3], s[4], dt, off, &detected), "shape %u variant %d", (unsigned)k, a);
    }
}

/* Runs of 16, 32 and 48 bytes in rows of whole 64-byte lines take a
   column-by-column path on AVX-512 machines (through a detected ctx):
   every 16-byte output offset to a line, the first and last image (checked
   unit by unit) and those between, rows crossing line boundaries, in
   cache and streaming. Elsewhere the same cases test the other paths. */
TT_TEST(test_column_path) {
  tt_rng r = {2024};
  static const int64_t shapes[][6] = {
    /* N, T, C, HW, G, f16 */
    {1, 8, 64, 1, 8, 1},    /* 16-byte runs, one image */
    {5, 8, 64, 1, 8, 1},    /* images between the first and last */
    {4, 3, 32, 1, 4, 1},    /* rows of one line */
    {3, 17, 256, 1, 32, 1}, /* long time axis */
    {2, 1, 64, 1, 8, 1},    /* T = 1 */
    {6, 8, 64, 1, 8, 0},    /* 32-byte runs */
    {4, 5, 32, 2, 4, 1},    /* 32-byte runs from C/G = 8, HW = 2 */
    {5, 6, 96, 1, 4, 1},    /* 48-byte runs */
    {3, 4, 192, 1, 16, 0},  /* 48-byte runs, f32 */
    {4, 8, 48, 1, 6, 1},    /* rows of 96 bytes: not whole lines */
    {1, 3, 64, 1, 8, 1},    /* small: not streamed */
  };
  ti_kernel_ctx detected;
  size_t k;
  int off;
  ti_kernel_ctx_init(&detected);
  for (k = 0; k < sizeof shapes / sizeof shapes[0]; ++k)
    for (off = 0; off < 64; off += 16) {
      const int64_t *s = shapes[k];
      ti_dtype dt = s[5] ? TI_DTYPE_F16 : TI_DTYPE_F32;
      TT_CHECK_MSG(!run_case(&r, s[0], s[1], s[2], s[3], s[4], dt, off, &detected),
                   "shape %u offset %d", (unsigned)k, off);
    }
}

/* The cpu flag sets to compare: each TinShift variant the machine has
   (TI_KERNEL_VARIANTS), as the best one allowed, then 0 (plain C). */
static int cpu_sets(unsigned *sets) {
  unsigned have = ti_cpu_detect();
  int n = 0;
#define VARIANT(id, name, cpu, need, families) \
  if (((families) & TI_FAMILY_TINSHIFT) && ((cpu) & have & (need)) == (unsigned)(need)) sets[n++] = (cpu) & have;
  TI_KERNEL_VARIANTS(VARIANT)
#undef VARIANT
  sets[n++] = 0;
  return n;
}

/* Every variant against the naive version: runs below, at and above a
   vector (16 to 64 bytes) and whole or not, in cache and streamed (this
   file's streaming size is 2 KiB), every output offset to a line, equal
   neighbours and out-of-range shifts (run_case draws them). */
TT_TEST(test_every_variant) {
  static const int64_t shapes[][6] = {
    /* N, T, C, HW, G, f16 */
    {1, 3, 64, 1, 2, 0},     /* 128-byte runs, in cache */
    {2, 2, 96, 1, 2, 1},     /* 96 bytes: not a whole number of lines */
    {1, 3, 36, 5, 3, 0},     /* 240 bytes */
    {1, 2, 250, 1, 1, 1},    /* 500 bytes */
    {3, 2, 8, 3, 2, 1},      /* 24 bytes */
    {1, 4, 1100, 1, 1, 0},   /* 4400 bytes: past the vector moves */
    {2, 8, 64, 1, 8, 1},     /* 16-byte runs, streamed */
    {3, 5, 48, 7, 3, 0},     /* 448 bytes, streamed */
    {1, 6, 64, 49, 2, 1},    /* long runs, streamed */
    {2, 5, 1024, 1, 2, 0},   /* 2 KiB runs, streamed */
    {2, 4, 2050, 1, 2, 1},   /* 2050 bytes: not whole lines, streamed */
    {2, 4, 2050, 1, 2, 0},   /* 4100 bytes, streamed (AVX-512: source order, 64-byte stores) */
    {1, 3, 4100, 1, 1, 0},   /* 16400 bytes, streamed */
  };
  unsigned sets[TI_VARIANT_COUNT + 1];
  int ns = cpu_sets(sets), v, off;
  size_t k;
  tt_rng r = {8080};
  for (v = 0; v < ns; ++v) {
    ti_kernel_ctx ctx;
    ti_kernel_ctx_init(&ctx);
    ctx.cpu = sets[v];
    for (k = 0; k < sizeof shapes / sizeof shapes[0]; ++k)
      for (off = 0; off < 64; off += 12) {
        const int64_t *s = shapes[k];
        ti_dtype dt = s[5] ? TI_DTYPE_F16 : TI_DTYPE_F32;
        TT_CHECK_MSG(!run_case(&r, s[0], s[1], s[2], s[3], s[4], dt, off - off % (int)ti_dtype_size(dt), &ctx),
                     "cpu 0x%x shape %u offset %d", sets[v], (unsigned)k, off);
      }
    for (k = 0; k < 60; ++k) {
      int64_t G = tt_range(&r, 1, 6), C = G * tt_range(&r, 1, 5);
      int64_t N = tt_range(&r, 1, 3), T = tt_range(&r, 1, 9), HW = tt_range(&r, 1, 12);
      ti_dtype dt = (k & 1) ? TI_DTYPE_F16 : TI_DTYPE_F32;
      if (k % 3 == 0) HW = tt_range(&r, 20, 120);
      TT_CHECK_MSG(!run_case(&r, N, T, C, HW, G, dt, (int)tt_range(&r, 0, 3) * (int)ti_dtype_size(dt), &ctx),
                   "cpu 0x%x N=%lld T=%lld C=%lld HW=%lld G=%lld", sets[v], (long long)N, (long long)T,
                   (long long)C, (long long)HW, (long long)G);
    }
  }
}

/* A parallel_for that cuts the range into uneven chunks, run last first. */
static void fake_parallel_for(void *user, int64_t n, ti_range_fn fn, void *arg) {
  int64_t cut[8], k = 0, b, i;
  int *calls = (int *)user;
  for (b = 0; b < n && k < 7; b += 1 + b / 2 + k) cut[k++] = b;
  cut[k] = n;
  for (i = k - 1; i >= 0; --i) { fn(arg, cut[i], cut[i + 1]); ++*calls; }
}

TT_TEST(test_parallel_hook) {
  tt_rng r = {99};
  ti_kernel_ctx ctx;
  int calls = 0;
  ti_kernel_ctx_init(&ctx);
  ctx.parallel_for = fake_parallel_for;
  ctx.parallel_user = &calls;
  TT_CHECK(!run_case(&r, 3, 7, 12, 5, 4, TI_DTYPE_F32, 0, &ctx));
  TT_CHECK(!run_case(&r, 4, 8, 64, 16, 8, TI_DTYPE_F16, 6, &ctx));  /* streaming */
  /* streaming, pieces of a line or more: parallel ranges share edge lines */
  TT_CHECK(!run_case(&r, 3, 7, 40, 9, 4, TI_DTYPE_F16, 2, &ctx));
  TT_CHECK(!run_case(&r, 2, 8, 512, 1, 4, TI_DTYPE_F32, 36, &ctx));
  /* column path: ranges start and end inside images and share lines */
  TT_CHECK(!run_case(&r, 5, 8, 64, 1, 8, TI_DTYPE_F16, 16, &ctx));
  TT_CHECK(!run_case(&r, 4, 6, 64, 1, 8, TI_DTYPE_F32, 48, &ctx));
  TT_CHECK(!run_case(&r, 4, 7, 96, 1, 4, TI_DTYPE_F16, 32, &ctx));
  TT_CHECK(calls > 6);
}

/* Outputs below TASKIR_TINSHIFT_SPLIT_BYTES stay on the calling thread (the
   hook is not called); from it on they are handed to the hook. */
TT_TEST(test_split_threshold) {
  tt_rng r = {1234};
  ti_kernel_ctx ctx;
  int calls = 0;
  ti_kernel_ctx_init(&ctx);
  ctx.parallel_for = fake_parallel_for;
  ctx.parallel_user = &calls;
  /* 4 * 8 * 32 * 1 * 4 bytes = 4096: split; 4 * 8 * 31 * 4 = 3968: not */
  TT_CHECK(!run_case(&r, 4, 8, 32, 1, 4, TI_DTYPE_F32, 0, &ctx));
  TT_CHECK(calls > 0);
  calls = 0;
  TT_CHECK(!run_case(&r, 4, 8, 31, 1, 1, TI_DTYPE_F32, 0, &ctx));
  TT_CHECK(!run_case(&r, 2, 8, 64, 1, 8, TI_DTYPE_F16, 4, &ctx));
  TT_EQ_INT(calls, 0);
}

/* ctx.cpu = 0 asks for the plain C paths: same results, streaming shapes too. */
TT_TEST(test_reference_ctx) {
  tt_rng r = {31};
  ti_kernel_ctx ctx;
  ti_kernel_ctx_init(&ctx);
  ctx.cpu = 0;
  TT_CHECK(!run_case(&r, 2, 8, 64, 1, 8, TI_DTYPE_F32, 4, &ctx));
  TT_CHECK(!run_case(&r, 3, 5, 48, 7, 3, TI_DTYPE_F16, 2, &ctx));
  TT_CHECK(!run_case(&r, 1, 6, 64, 49, 2, TI_DTYPE_F32, 0, &ctx));
}

/* <forward(x), y> == <x, backward(y)>, exact with small integers in f32. */
TT_TEST(test_adjoint) {
  tt_rng r = {4242};
  int k;
  for (k = 0; k < 60; ++k) {
    int64_t G = tt_range(&r, 1, 4), C = G * tt_range(&r, 1, 4);
    int64_t N = tt_range(&r, 1, 3), T = tt_range(&r, 1, 8), HW = tt_range(&r, 1, 9);
    size_t n = (size_t)(N * T * C * HW), i;
    float *x = (float *)malloc(n * 4), *y = (float *)malloc(n * 4);
    float *fx = (float *)malloc(n * 4), *by = (float *)malloc(n * 4);
    int32_t *sh = (int32_t *)malloc((size_t)(N * G) * 4);
    ti_tensor_desc d = desc4(TI_DTYPE_F32, N, T, C, HW), s = desc2(TI_DTYPE_I32, N, G);
    double lhs = 0, rhs = 0;
    for (i = 0; i < n; ++i) {
      x[i] = (float)tt_range(&r, -20, 20);
      y[i] = (float)tt_range(&r, -20, 20);
    }
    for (i = 0; i < (size_t)(N * G); ++i) sh[i] = (int32_t)tt_range(&r, -T, T);
    TT_EQ_INT(ti_tinshift_forward(&d, x, &s, sh, &d, fx), TI_STATUS_SUCCESS);
    TT_EQ_INT(ti_tinshift_backward(&d, y, &s, sh, &d, by), TI_STATUS_SUCCESS);
    for (i = 0; i < n; ++i) { lhs += (double)fx[i] * y[i]; rhs += (double)x[i] * by[i]; }
    TT_CHECK_MSG(lhs == rhs, "case %d: %g != %g", k, lhs, rhs);
    free(x); free(y); free(fx); free(by); free(sh);
  }
}

/* The compat backward is bit-for-bit the forward with the same shifts. */
TT_TEST(test_compat_equals_forward) {
  tt_rng r = {2024};
  int k;
  for (k = 0; k < 40; ++k) {
    int64_t G = tt_range(&r, 1, 5), C = G * tt_range(&r, 1, 3);
    int64_t N = tt_range(&r, 1, 2), T = tt_range(&r, 1, 7), HW = tt_range(&r, 1, 30);
    ti_dtype dt = (k & 1) ? TI_DTYPE_F16 : TI_DTYPE_F32;
    size_t es = ti_dtype_size(dt), bytes = (size_t)(N * T * C * HW) * es, i;
    unsigned char *g = (unsigned char *)malloc(bytes), *a = (unsigned char *)malloc(bytes);
    unsigned char *b = (unsigned char *)malloc(bytes);
    int32_t *sh = (int32_t *)malloc((size_t)(N * G) * 4);
    ti_tensor_desc d = desc4(dt, N, T, C, HW), s = desc2(TI_DTYPE_I32, N, G);
    for (i = 0; i < bytes; ++i) g[i] = (unsigned char)tt_next(&r);
    for (i = 0; i < (size_t)(N * G); ++i) sh[i] = (int32_t)tt_range(&r, -T - 1, T + 1);
    TT_EQ_INT(ti_tinshift_forward(&d, g, &s, sh, &d, a), TI_STATUS_SUCCESS);
    TT_EQ_INT(ti_tinshift_backward_compat(&d, g, &s, sh, &d, b), TI_STATUS_SUCCESS);
    TT_CHECK(memcmp(a, b, bytes) == 0);
    free(g); free(a); free(b); free(sh);
  }
}

/* NaN payloads, -0, +-Inf, denormals pass bit-exactly; |s| >= T zero-fills. */
TT_TEST(test_bit_patterns) {
  static const uint32_t f32bits[8] = {0x7fc00001u, 0xffbfffffu, 0x80000000u, 0x7f800000u,
                                      0xff800000u, 0x00000001u, 0x7f800001u, 0xffffffffu};
  static const uint16_t f16bits[8] = {0x7e01, 0xfdff, 0x8000, 0x7c00,
                                      0xfc00, 0x0001, 0x7c01, 0xffff};
  uint32_t in32[4 * 8], out32[4 * 8];
  uint16_t in16[4 * 8], out16[4 * 8];
  int32_t sh[4] = {0, 1, INT32_MIN, 4};  /* G = 4, C = 8, T = 4, HW = 1 */
  ti_tensor_desc d32 = desc4(TI_DTYPE_F32, 1, 4, 8, 1), d16 = desc4(TI_DTYPE_F16, 1, 4, 8, 1);
  ti_tensor_desc s = desc2(TI_DTYPE_I32, 1, 4);
  int t, c, m;
  for (t = 0; t < 4; ++t)
    for (c = 0; c < 8; ++c) {
      in32[t * 8 + c] = f32bits[(t + c) % 8];
      in16[t * 8 + c] = f16bits[(t + c) % 8];
    }
  for (m = 0; m < 3; ++m) {
    int sign = mode_sign[m];
    memset(out32, 0x5a, sizeof out32);
    memset(out16, 0x5a, sizeof out16);
    TT_EQ_INT(ti_tinshift_ex(NULL, modes[m], &d32, in32, &s, sh, &d32, out32), TI_STATUS_SUCCESS);
    TT_EQ_INT(ti_tinshift_ex(NULL, modes[m], &d16, in16, &s, sh, &d16, out16), TI_STATUS_SUCCESS);
    for (t = 0; t < 4; ++t)
      for (c = 0; c < 8; ++c) {
        int g = c / 2;
        int64_t st = t - (int64_t)sign * sh[g];
        uint32_t w32 = (st >= 0 && st < 4) ? in32[st * 8 + c] : 0u;
        uint16_t w16 = (st >= 0 && st < 4) ? in16[st * 8 + c] : 0u;
        TT_EQ_INT(out32[t * 8 + c], w32);
        TT_EQ_INT(out16[t * 8 + c], w16);
        if (g >= 2) { TT_EQ_INT(out32[t * 8 + c], 0); TT_EQ_INT(out16[t * 8 + c], 0); }
      }
  }
  /* the unshifted group is an exact copy of NaNs and infinities */
  TT_EQ_INT(ti_tinshift_forward(&d32, in32, &s, sh, &d32, out32), TI_STATUS_SUCCESS);
  for (t = 0; t < 4; ++t) TT_CHECK(memcmp(&out32[t * 8], &in32[t * 8], 8) == 0);
}

/* Random descriptors: every call returns one of the three statuses, and an
   accepted one stays within buffers of exactly the described size. */
TT_TEST(test_random_descriptors) {
  tt_rng r = {1618};
  static const ti_dtype dts[5] = {TI_DTYPE_F32, TI_DTYPE_F16, TI_DTYPE_I32, TI_DTYPE_F64, TI_DTYPE_I8};
  int k, ok = 0;
  for (k = 0; k < 2000; ++k) {
    ti_tensor_desc x, y, s;
    int i;
    ti_status st;
    x.ndim = (int32_t)tt_range(&r, 3, 5); y.ndim = tt_range(&r, 0, 9) ? x.ndim : 4;
    s.ndim = tt_range(&r, 0, 9) ? 2 : 1;
    x.dtype = dts[tt_range(&r, 0, 4) < 3 ? tt_range(&r, 0, 1) : tt_range(&r, 0, 4)];
    y.dtype = tt_range(&r, 0, 9) ? x.dtype : dts[tt_range(&r, 0, 4)];
    s.dtype = tt_range(&r, 0, 9) ? TI_DTYPE_I32 : dts[tt_range(&r, 0, 4)];
    for (i = 0; i < TI_MAX_RANK; ++i) x.dims[i] = tt_range(&r, -1, 6);
    for (i = 0; i < TI_MAX_RANK; ++i) y.dims[i] = tt_range(&r, 0, 9) ? x.dims[i] : tt_range(&r, -1, 6);
    s.dims[0] = tt_range(&r, 0, 9) ? x.dims[0] : tt_range(&r, -1, 6);
    s.dims[1] = tt_range(&r, -1, 6);
    if (tt_range(&r, 0, 3) && x.dims[2] > 0) {  /* mostly a divisor of C */
      int64_t g = tt_range(&r, 1, x.dims[2]);
      while (x.dims[2] % g) --g;
      s.dims[1] = g;
    }
    st = ti_tinshift_ex(NULL, modes[k % 3], &x, NULL, &s, NULL, &y, NULL);
    TT_CHECK(st == TI_STATUS_SUCCESS || st == TI_STATUS_BAD_PARAM || st == TI_STATUS_NOT_SUPPORTED);
    if (st == TI_STATUS_BAD_PARAM && x.ndim == 4 && x.dims[1] > 0) {
      /* maybe only the NULL data was wrong: retry with real buffers */
      size_t n = 1, es = ti_dtype_size(x.dtype), b, ns;
      unsigned char *in, *out;
      int32_t *sh;
      for (i = 0; i < 4; ++i) n *= (size_t)(x.dims[i] > 0 ? x.dims[i] : 0);
      b = n * (es ? es : 1);
      ns = (size_t)(s.dims[0] > 0 ? s.dims[0] : 0) * (size_t)(s.dims[1] > 0 ? s.dims[1] : 0);
      in = (unsigned char *)malloc(b + 1); out = (unsigned char *)malloc(b + 16);
      sh = (int32_t *)malloc(ns * 4 + 4);
      memset(in, 1, b + 1);
      memset(out, 0xEE, b + 16);
      for (i = 0; i < (int)ns; ++i) sh[i] = (int32_t)tt_range(&r, -8, 8);
      if (ti_tinshift_ex(NULL, modes[k % 3], &x, in, &s, sh, &y, out) == TI_STATUS_SUCCESS) {
        ++ok;
        for (i = 0; i < 16; ++i) TT_CHECK(out[b + i] == 0xEE);
      }
      free(in); free(out); free(sh);
    }
  }
  TT_CHECK_MSG(ok > 50, "only %d accepted", ok);
}

int main(void) {
  TT_RUN(test_checks_each);
  TT_RUN(test_check_order);
  TT_RUN(test_known_answer);
  TT_RUN(test_random_vs_naive);
  TT_RUN(test_streaming_path);
  TT_RUN(test_column_path);
  TT_RUN(test_cached_line_path);
  TT_RUN(test_every_variant);
  TT_RUN(test_parallel_hook);
  TT_RUN(test_split_threshold);
  TT_RUN(test_reference_ctx);
  TT_RUN(test_adjoint);
  TT_RUN(test_compat_equals_forward);
  TT_RUN(test_bit_patterns);
  TT_RUN(test_random_descriptors);
  return tt_finish();
}
