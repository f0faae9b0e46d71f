/* Element-wise and window primitives of taskir_kernels.h: hand-computed
   answers, every vector path against the reference on random data, LIF
   over many steps against an independent scalar model, argument checks. */
#define TASKIR_IMPLEMENTATION
#include "taskir_kernels.h"
#include "tt.h"

/* ---------- helpers ---------- */

static ti_prim_desc desc3(int ny, int nx, int nf, ti_dtype in) {
  ti_prim_desc d;
  memset(&d, 0, sizeof d);
  d.ny = ny; d.nx = nx; d.nf = nf;
  d.in_dtype = in; d.w_dtype = in;
  d.out_dtype = in == TI_DTYPE_F32 ? TI_DTYPE_F32 : TI_DTYPE_I32;
  d.n_branch = 1;
  return d;
}

/* Window desc with ny/nx derived from the input size. */
static ti_prim_desc descw(int niy, int nix, int nf, int nky, int nkx, int sy, int sx,
                          int pu, int pd, int pl, int pr, ti_dtype in) {
  ti_prim_desc d = desc3(1, 1, nf, in);
  d.niy = niy; d.nix = nix; d.nky = nky; d.nkx = nkx; d.stride_y = sy; d.stride_x = sx;
  d.pad_up = pu; d.pad_down = pd; d.pad_left = pl; d.pad_right = pr;
  d.ny = (niy + pu + pd - nky) / sy + 1;
  d.nx = (nix + pl + pr - nkx) / sx + 1;
  return d;
}

/* The cpu flag sets to compare: each element-wise variant the machine has
   (TI_KERNEL_VARIANTS), as the best one allowed. */
static int cpu_sets(unsigned *sets) {
  unsigned have = ti_cpu_detect();
  int n = 0;
#define VARIANT(id, name, cpu, need, families) \
  if (((families) & TI_FAMILY_ELTWISE) && ((cpu) & have & (need)) == (unsigned)(need)) sets[n++] = (cpu) & have;
  TI_KERNEL_VARIANTS(VARIANT)
#undef VARIANT
  sets[n++] = 0;   /* explicit reference path through the dispatcher */
  return n;
}

/* A parallel-for that cuts the range into 3 uneven parts, run backwards,
   so drivers must honour arbitrary sub-ranges. */
static void fake_parallel(void *user, int64_t n, ti_range_fn fn, void *arg) {
  int64_t a = n / 3, b = n / 3 + n / 4;
  (void)user;
  fn(arg, b, n);
  fn(arg, a, b);
  fn(arg, 0, a);
}

static int32_t rnd_i32(tt_rng *r) {
  switch (tt_range(r, 0, 7)) {
  case 0: return INT32_MIN;
  case 1: return INT32_MAX;
  case 2: return (int32_t)tt_range(r, -3, 3);
  case 3: return (int32_t)tt_range(r, -200000000, 200000000);
  default: return (int32_t)(uint32_t)tt_next(r);
  }
}

/* Random array of n elements of dtype t (extremes included). */
static void fill(tt_rng *r, void *p, ti_dtype t, int64_t n) {
  int64_t i;
  for (i = 0; i < n; i++) {
    switch (t) {
    case TI_DTYPE_I8: ((int8_t *)p)[i] = (int8_t)tt_range(r, -128, 127); break;
    case TI_DTYPE_TERNARY: ((int8_t *)p)[i] = (int8_t)tt_range(r, -1, 1); break;
    case TI_DTYPE_U8: ((uint8_t *)p)[i] = (uint8_t)tt_range(r, 0, 255); break;
    case TI_DTYPE_I32: ((int32_t *)p)[i] = rnd_i32(r); break;
    default: {
      float f;
      int k = (int)tt_range(r, 0, 40);
      if (k == 0) f = -0.0f;
      else if (k == 1) f = 0.0f;
      else if (k == 2) f = 1.0f / 0.0f;
      else if (k == 3) f = -1.0f / 0.0f;
      else f = (float)tt_range(r, -100000, 100000) / 64.0f;
      ((float *)p)[i] = f;
    }
    }
  }
}

/* Exactly n elements of t on the heap, so the sanitizers see any access
   past the end. */
static void *xalloc(int64_t n, ti_dtype t) {
  void *p = malloc((size_t)(n > 0 ? n : 1) * ti_dtype_size(t));
  if (!p) { fprintf(stderr, "out of memory\n"); exit(2); }
  return p;
}

static const ti_dtype int_types[4] = {TI_DTYPE_I8, TI_DTYPE_U8, TI_DTYPE_TERNARY, TI_DTYPE_I32};
static const ti_dtype all_types[5] = {TI_DTYPE_I8, TI_DTYPE_U8, TI_DTYPE_TERNARY, TI_DTYPE_I32, TI_DTYPE_F32};

#define MAXE 4096
static union { int32_t i[MAXE]; float f[MAXE]; } REF, OUT;

/* ---------- known answers ---------- */

TT_TEST(cadd_known) {
  int8_t a[12] = {1, 2, 3, -4, 5, 6, 127, -128, 0, 10, 20, 30};
  int8_t b[12] = {1, 1, 1, 1, 1, 1, 127, -128, 0, -10, -20, -30};
  int32_t bias[3] = {100, 200, 300}, out[12];
  int32_t want[12] = {102, 203, 304, 97, 206, 307, 354, -56, 300, 100, 200, 300};
  const void *ins[2];
  ti_prim_desc d = desc3(2, 2, 3, TI_DTYPE_I8);
  ins[0] = a; ins[1] = b;
  d.n_branch = 2; d.bias_mode = TI_BIAS_VECTOR;
  TT_EQ_INT(ti_cadd(0, &d, ins, bias, out), TI_STATUS_SUCCESS);
  TT_CHECK(memcmp(out, want, sizeof want) == 0);
  {  /* 1-D, I32 wrap modulo 2^32, constant bias */
    int32_t x[3] = {INT32_MAX, INT32_MIN, -5}, y[3] = {1, -1, 2}, o[3];
    ti_prim_desc e = desc3(1, 1, 3, TI_DTYPE_I32);
    ins[0] = x; ins[1] = y;
    e.n_branch = 2; e.bias_mode = TI_BIAS_CONSTANT; e.constant_b = 10;
    TT_EQ_INT(ti_cadd(0, &e, ins, 0, o), TI_STATUS_SUCCESS);
    TT_EQ_INT(o[0], INT32_MIN + 10);
    TT_EQ_INT(o[1], INT32_MIN + 9);   /* INT32_MIN - 1 + 10 wraps */
    TT_EQ_INT(o[2], 7);
  }
  {  /* F32 */
    float x[2] = {1.5f, -2.0f}, y[2] = {0.25f, 4.0f}, o[2], fb[2] = {1.0f, -1.0f};
    ti_prim_desc e = desc3(1, 1, 2, TI_DTYPE_F32);
    ins[0] = x; ins[1] = y;
    e.n_branch = 2; e.bias_mode = TI_BIAS_VECTOR;
    TT_EQ_INT(ti_cadd(0, &e, ins, fb, o), TI_STATUS_SUCCESS);
    TT_CHECK(o[0] == 2.75f && o[1] == 1.0f);
  }
}

TT_TEST(cavg_known) {
  /* 4x4x1 input 0..15, 2x2 window stride 2: sums of 2x2 blocks + bias 1000. */
  int8_t in[16];
  int32_t out[9], bias = 1000;
  int i;
  ti_prim_desc d = descw(4, 4, 1, 2, 2, 2, 2, 0, 0, 0, 0, TI_DTYPE_I8);
  for (i = 0; i < 16; i++) in[i] = (int8_t)i;
  d.bias_mode = TI_BIAS_VECTOR;
  TT_EQ_INT(d.ny, 2);
  TT_EQ_INT(ti_cavg(0, &d, in, &bias, out), TI_STATUS_SUCCESS);
  TT_EQ_INT(out[0], 1000 + 0 + 1 + 4 + 5);
  TT_EQ_INT(out[1], 1000 + 2 + 3 + 6 + 7);
  TT_EQ_INT(out[2], 1000 + 8 + 9 + 12 + 13);
  TT_EQ_INT(out[3], 1000 + 10 + 11 + 14 + 15);
  /* 3x3 input of ones, 3x3 window, pad 1, stride 1: corner 4, edge 6, centre 9
     (an exact sum, no averaging). */
  for (i = 0; i < 9; i++) in[i] = 1;
  d = descw(3, 3, 1, 3, 3, 1, 1, 1, 1, 1, 1, TI_DTYPE_I8);
  TT_EQ_INT(ti_cavg(0, &d, in, 0, out), TI_STATUS_SUCCESS);
  TT_EQ_INT(out[0], 4); TT_EQ_INT(out[1], 6); TT_EQ_INT(out[4], 9); TT_EQ_INT(out[8], 4);
}

TT_TEST(mul_known) {
  int8_t a[4] = {-3, 4, 127, -128};
  uint8_t b[4] = {255, 2, 2, 255};
  int32_t bias[2] = {7, -7}, out[4];
  ti_prim_desc d = desc3(1, 2, 2, TI_DTYPE_I8);
  d.w_dtype = TI_DTYPE_U8; d.bias_mode = TI_BIAS_VECTOR;
  TT_EQ_INT(ti_cvvh(0, &d, a, b, bias, out), TI_STATUS_SUCCESS);
  TT_EQ_INT(out[0], -765 + 7); TT_EQ_INT(out[1], 8 - 7);
  TT_EQ_INT(out[2], 254 + 7); TT_EQ_INT(out[3], -32640 - 7);
  {  /* CAX: alpha per f */
    int8_t alpha[2] = {-2, 3};
    d.w_dtype = TI_DTYPE_I8; d.bias_mode = TI_BIAS_NONE;
    TT_EQ_INT(ti_cax(0, &d, a, alpha, 0, out), TI_STATUS_SUCCESS);
    TT_EQ_INT(out[0], 6); TT_EQ_INT(out[1], 12); TT_EQ_INT(out[2], -254); TT_EQ_INT(out[3], -384);
  }
  {  /* CVS with wrap: 65536 * 65536 = 0 mod 2^32 */
    int32_t x[2] = {65536, -7};
    ti_prim_desc e = desc3(1, 1, 2, TI_DTYPE_I32);
    e.constant_a = 65536; e.bias_mode = TI_BIAS_CONSTANT; e.constant_b = 3;
    TT_EQ_INT(ti_cvs(0, &e, x, 0, out), TI_STATUS_SUCCESS);
    TT_EQ_INT(out[0], 3); TT_EQ_INT(out[1], -458752 + 3);
  }
}

TT_TEST(ccmpb_known) {
  int32_t in[4] = {-5, -1, -16, 200}, out[4];
  ti_prim_desc d = descw(1, 1, 4, 1, 1, 1, 1, 0, 0, 0, 0, TI_DTYPE_I32);
  /* Arithmetic shift rounds towards minus infinity; 1x1 form clips to 127. */
  d.bit_shift = 1; d.cmp = -128;
  TT_EQ_INT(ti_ccmpb(0, &d, in, out), TI_STATUS_SUCCESS);
  TT_EQ_INT(out[0], -3); TT_EQ_INT(out[1], -1); TT_EQ_INT(out[2], -8); TT_EQ_INT(out[3], 100);
  d.bit_shift = 0;
  TT_EQ_INT(ti_ccmpb(0, &d, in, out), TI_STATUS_SUCCESS);
  TT_EQ_INT(out[3], 127);   /* 1x1 clips to 127 although out_dtype is I32 */
  d.cmp = 0;                /* CMP = 0: ReLU */
  TT_EQ_INT(ti_ccmpb(0, &d, in, out), TI_STATUS_SUCCESS);
  TT_EQ_INT(out[0], 0); TT_EQ_INT(out[1], 0); TT_EQ_INT(out[2], 0); TT_EQ_INT(out[3], 127);
  {  /* 2x2 window over a padded all-negative input: padded windows see 0 */
    int32_t neg[4] = {-9, -9, -9, -9}, o[9];
    ti_prim_desc e = descw(2, 2, 1, 2, 2, 1, 1, 1, 1, 1, 1, TI_DTYPE_I32);
    e.cmp = -100; e.out_dtype = TI_DTYPE_I32;
    TT_EQ_INT(e.ny, 3);
    TT_EQ_INT(ti_ccmpb(0, &e, neg, o), TI_STATUS_SUCCESS);
    TT_EQ_INT(o[0], 0); TT_EQ_INT(o[4], -9); TT_EQ_INT(o[8], 0);
    e.pad_up = e.pad_down = e.pad_left = e.pad_right = 0; e.ny = e.nx = 1;
    TT_EQ_INT(ti_ccmpb(0, &e, neg, o), TI_STATUS_SUCCESS);
    TT_EQ_INT(o[0], -9);
  }
  {  /* clip to the max of the precision, stored as the precision */
    int32_t big[4] = {1000, 70000, 3, 2}, o[1];
    int8_t o8[2]; uint8_t u8[2]; int16_t o16[2]; uint16_t u16[2];
    ti_prim_desc e = descw(2, 2, 1, 2, 2, 1, 1, 0, 0, 0, 0, TI_DTYPE_I32);
    o8[1] = 77; u8[1] = 77; o16[1] = 77; u16[1] = 77;   /* one element written, no more */
    e.out_dtype = TI_DTYPE_I8; TT_EQ_INT(ti_ccmpb(0, &e, big, o8), 0); TT_EQ_INT(o8[0], 127); TT_EQ_INT(o8[1], 77);
    TT_EQ_INT((int)ti_ccmpb_out_size(&e), 1);
    e.out_dtype = TI_DTYPE_U8; TT_EQ_INT(ti_ccmpb(0, &e, big, u8), 0); TT_EQ_INT(u8[0], 255); TT_EQ_INT(u8[1], 77);
    e.out_dtype = TI_DTYPE_TERNARY; TT_EQ_INT(ti_ccmpb(0, &e, big, o8), 0); TT_EQ_INT(o8[0], 1);
    e.out_dtype = TI_DTYPE_I16; TT_EQ_INT(ti_ccmpb(0, &e, big, o16), 0); TT_EQ_INT(o16[0], 32767); TT_EQ_INT(o16[1], 77);
    TT_EQ_INT((int)ti_ccmpb_out_size(&e), 2);
    e.out_dtype = TI_DTYPE_U16; TT_EQ_INT(ti_ccmpb(0, &e, big, u16), 0); TT_EQ_INT(u16[0], 65535); TT_EQ_INT(u16[1], 77);
    e.out_dtype = TI_DTYPE_I9; TT_EQ_INT(ti_ccmpb(0, &e, big, o16), 0); TT_EQ_INT(o16[0], 255);
    e.cmp = -300; big[1] = -1000; big[0] = -2000; big[2] = -3000; big[3] = -4000;   /* below int8: low bits kept */
    e.out_dtype = TI_DTYPE_I8; TT_EQ_INT(ti_ccmpb(0, &e, big, o8), 0); TT_EQ_INT(o8[0], (int8_t)(uint8_t)(-300 & 0xff));
    e.out_dtype = TI_DTYPE_I16; TT_EQ_INT(ti_ccmpb(0, &e, big, o16), 0); TT_EQ_INT(o16[0], -300);
    e.cmp = 0; big[0] = 1000; big[1] = 70000; big[2] = 3; big[3] = 2;
    e.out_dtype = TI_DTYPE_I32; TT_EQ_INT(ti_ccmpb(0, &e, big, o), 0); TT_EQ_INT(o[0], 70000);
    TT_EQ_INT((int)ti_ccmpb_out_size(&e), 4);
    e.bit_shift = 8; TT_EQ_INT(ti_ccmpb(0, &e, big, o), 0); TT_EQ_INT(o[0], 273);
    e.out_dtype = TI_DTYPE_F16; TT_EQ_INT(ti_ccmpb(0, &e, big, o), TI_STATUS_NOT_SUPPORTED);
  }
  {  /* F32: max over window and cmp, no shift */
    float f[4] = {-3.0f, -2.5f, -7.0f, -1.0f}, o[1];
    ti_prim_desc e = descw(2, 2, 1, 2, 2, 1, 1, 0, 0, 0, 0, TI_DTYPE_F32);
    e.cmp = -5; TT_EQ_INT(ti_ccmpb(0, &e, f, o), 0); TT_CHECK(o[0] == -1.0f);
    e.cmp = 2; TT_EQ_INT(ti_ccmpb(0, &e, f, o), 0); TT_CHECK(o[0] == 2.0f);
    e.bit_shift = 1; TT_EQ_INT(ti_ccmpb(0, &e, f, o), TI_STATUS_NOT_SUPPORTED);
  }
}

TT_TEST(ccmps_known) {
  int32_t in[4] = {20, 30, 40, 50}, out[1];
  ti_prim_desc d = descw(2, 2, 1, 2, 2, 1, 1, 0, 0, 0, 0, TI_DTYPE_I32);
  d.cmp = 10;   /* the min starts at CMP */
  TT_EQ_INT(ti_ccmps(0, &d, in, out), 0); TT_EQ_INT(out[0], 10);
  d.cmp = 100; TT_EQ_INT(ti_ccmps(0, &d, in, out), 0); TT_EQ_INT(out[0], 20);
  d.cmp = 1000; in[2] = 1000; in[0] = 500; in[1] = 300; in[3] = 700;
  TT_EQ_INT(ti_ccmps(0, &d, in, out), 0); TT_EQ_INT(out[0], 127);   /* clip 127 */
  in[1] = -301; d.bit_shift = 1;
  TT_EQ_INT(ti_ccmps(0, &d, in, out), 0); TT_EQ_INT(out[0], -128);  /* -151 -> -128 */
  in[1] = -3;
  TT_EQ_INT(ti_ccmps(0, &d, in, out), 0); TT_EQ_INT(out[0], -2);    /* -3 >> 1 = -2 */
  {  /* padding counts as 0 in the min */
    int32_t pos[1] = {50}, o[4];
    ti_prim_desc e = descw(1, 1, 1, 2, 2, 1, 1, 0, 1, 0, 1, TI_DTYPE_I32);
    e.cmp = 1000;
    TT_EQ_INT(e.ny, 1);
    TT_EQ_INT(ti_ccmps(0, &e, pos, o), 0); TT_EQ_INT(o[0], 0);
  }
}

TT_TEST(clut_known) {
  int32_t lut[8], out[5];
  int32_t v[5] = {-1, 9, 0, -8, 7};
  int i;
  ti_prim_desc d = desc3(1, 1, 5, TI_DTYPE_I32);
  for (i = 0; i < 8; i++) lut[i] = 100 + i;
  d.lut_dw = 3;
  TT_EQ_INT(ti_clut(0, &d, v, lut, out), 0);
  TT_EQ_INT(out[0], 107); TT_EQ_INT(out[1], 101); TT_EQ_INT(out[2], 100);
  TT_EQ_INT(out[3], 100); TT_EQ_INT(out[4], 107);
  {
    int8_t s[3] = {-128, -1, 5};
    int32_t big[256], o[3];
    ti_prim_desc e = desc3(1, 1, 3, TI_DTYPE_I8);
    for (i = 0; i < 256; i++) big[i] = i * 3 - 7;
    e.lut_dw = 8;
    TT_EQ_INT(ti_clut(0, &e, s, big, o), 0);
    TT_EQ_INT(o[0], 128 * 3 - 7); TT_EQ_INT(o[1], 255 * 3 - 7); TT_EQ_INT(o[2], 8);
  }
}

/* Independent model of one LIF step (the documented formula, written
   again here in plain int64). */
static void lif_model(const ti_lif_params *p, int64_t n, const int32_t *in, int32_t *v, int32_t *out) {
  int64_t i;
  int64_t vth = (int64_t)p->vth0 + (p->vtheta_const_en ? p->vtheta_const : 0);
  if (vth > 134217727) vth = 134217727;
  if (vth < -134217728) vth = -134217728;
  if (vth < p->vl) vth = p->vl;
  for (i = 0; i < n; i++) {
    int64_t x = (int64_t)v[i] + in[i], u, nv;
    int spike;
    if (x > 134217727) x = 134217727;
    if (x < -134217728) x = -134217728;
    spike = x > vth;
    u = x;
    if (spike) {
      if (p->reset_mode == 0) u = p->vr;
      else if (p->reset_mode == 1) u = x - vth;
      else if (p->reset_mode == 2) u = x - p->dv;
    }
    if (p->tw_en && p->tw_cnt >= p->tw_len) nv = p->vinit;
    else if (p->vleaky_adpt_en) {
      int64_t prod = u * p->vleaky_alpha;
      nv = (prod >= 0 ? prod / 256 : -((-prod + 255) / 256)) + p->vleaky_beta;
    } else nv = u + p->vleaky_beta;
    if (nv > 134217727) nv = 134217727;
    if (nv < -134217728) nv = -134217728;
    if (nv < p->vl) nv = p->vl;
    v[i] = (int32_t)nv;
    out[i] = p->fire_type == 0 ? (int32_t)x : p->fire_type == 1 ? (int32_t)nv : spike;
  }
}

TT_TEST(clif_known) {
  /* VTH0 10, VR 0, leak -1, input 5 each step: hand-traced potentials. */
  int32_t in[1] = {5}, v[1] = {0}, s[1];
  int32_t want_v[6] = {4, 8, -1, 3, 7, -1}, want_s[6] = {0, 0, 1, 0, 0, 1};
  int t;
  ti_lif_params p;
  ti_prim_desc d = desc3(1, 1, 1, TI_DTYPE_I32);
  ti_lif_params_init(&p);
  p.vth0 = 10; p.vleaky_beta = -1;
  for (t = 0; t < 6; t++) {
    TT_EQ_INT(ti_clif(0, &d, &p, in, v, s), 0);
    TT_EQ_INT(v[0], want_v[t]); TT_EQ_INT(s[0], want_s[t]);
  }
  /* step 7: -1 + 5 = 4, below VTH0, leak -1 */
  TT_EQ_INT(ti_clif(0, &d, &p, in, v, s), 0);
  TT_EQ_INT(v[0], 3); TT_EQ_INT(s[0], 0);
  /* saturation at 28 bits: huge input clamps to 2^27 - 1 before the compare */
  p.vth0 = TI_LIF_V_MAX; p.vleaky_beta = 0;
  in[0] = INT32_MAX; v[0] = TI_LIF_V_MAX;
  TT_EQ_INT(ti_clif(0, &d, &p, in, v, s), 0);
  TT_EQ_INT(v[0], TI_LIF_V_MAX); TT_EQ_INT(s[0], 0);
  in[0] = INT32_MIN; v[0] = INT32_MIN;   /* v_prev + in far below int32: clamps */
  TT_EQ_INT(ti_clif(0, &d, &p, in, v, s), 0);
  TT_EQ_INT(v[0], TI_LIF_V_MIN);
  /* adaptive leak: floor(alpha * v / 256): v = -3, alpha = 128 -> floor(-1.5) = -2 */
  p.vth0 = 100; p.vleaky_adpt_en = 1; p.vleaky_alpha = 128;
  in[0] = -3; v[0] = 0;
  TT_EQ_INT(ti_clif(0, &d, &p, in, v, s), 0);
  TT_EQ_INT(v[0], -2);
}

TT_TEST(clif_steps_vs_model) {
  tt_rng r = {0x5eed1234u};
  unsigned sets[TI_VARIANT_COUNT + 1];
  int ns = cpu_sets(sets), trial;
  for (trial = 0; trial < 120; trial++) {
    ti_lif_params p;
    ti_prim_desc d = desc3(1 + (int)tt_range(&r, 0, 2), 1 + (int)tt_range(&r, 0, 3),
                           1 + (int)tt_range(&r, 0, 70), TI_DTYPE_I32);
    int64_t n = (int64_t)d.ny * d.nx * d.nf, i;
    int si, step;
    static int32_t vm[1000], om[1000];
    ti_lif_params_init(&p);
    p.vth0 = (int32_t)tt_range(&r, -1000, 200000000 >> 2);
    p.vr = (int32_t)tt_range(&r, -5000, 5000);
    p.vl = trial % 3 ? TI_LIF_V_MIN : (int32_t)tt_range(&r, -100000, 0);
    p.dv = (int32_t)tt_range(&r, -100000, 100000);
    p.reset_mode = (int32_t)tt_range(&r, 0, 3);
    p.vleaky_adpt_en = (int32_t)tt_range(&r, 0, 1);
    p.vleaky_alpha = (int32_t)tt_range(&r, trial % 5 ? -300 : -5000, trial % 5 ? 300 : 5000);
    p.vleaky_beta = (int32_t)tt_range(&r, -100000, 100000);
    p.fire_type = trial % 4 == 0 ? 0 : trial % 4 == 1 ? 1 : 4;
    p.vtheta_const_en = trial % 7 == 0; p.vtheta_const = (int32_t)tt_range(&r, -1000, 1000);
    p.tw_en = trial % 6 == 0; p.tw_len = 5; p.vinit = (int32_t)tt_range(&r, -100, 100);
    for (si = 0; si < ns; si++) {
      ti_kernel_ctx ctx;
      ti_lif_params q = p, qm = p;
      int32_t *v1 = (int32_t *)xalloc(n, TI_DTYPE_I32), *out = (int32_t *)xalloc(n, TI_DTYPE_I32);
      int32_t *in = (int32_t *)xalloc(n, TI_DTYPE_I32);
      ti_kernel_ctx_init(&ctx);
      ctx.cpu = sets[si];
      if (trial & 1) ctx.parallel_for = fake_parallel;
      for (i = 0; i < n; i++) v1[i] = vm[i] = (int32_t)tt_range(&r, -1000, 1000);
      for (step = 0; step < 12; step++) {
        for (i = 0; i < n; i++)
          in[i] = step % 4 == 3 ? rnd_i32(&r) : (int32_t)tt_range(&r, -50000000, 60000000);
        TT_EQ_INT(ti_clif(&ctx, &d, &q, in, v1, out), 0);
        lif_model(&qm, n, in, vm, om);
        TT_CHECK_MSG(memcmp(v1, vm, (size_t)n * 4) == 0, "trial %d cpu %x step %d v", trial, sets[si], step);
        TT_CHECK_MSG(memcmp(out, om, (size_t)n * 4) == 0, "trial %d cpu %x step %d out", trial, sets[si], step);
        ti_lif_params_next_step(&q);
        ti_lif_params_next_step(&qm);
      }
      free(v1); free(out); free(in);
    }
  }
}

/* ---------- every vector path vs the reference ---------- */

static int same(const void *a, const void *b, int64_t n) { return memcmp(a, b, (size_t)n * 4) == 0; }
/* The 4 bytes after the first `bytes` of a buffer memset to 0x5a: unwritten. */
static int untouched(const void *p, int64_t bytes) {
  const unsigned char *c = (const unsigned char *)p + bytes;
  return c[0] == 0x5a && c[1] == 0x5a && c[2] == 0x5a && c[3] == 0x5a;
}

TT_TEST(random_elementwise_paths) {
  tt_rng r = {0xabcdef12u};
  unsigned sets[TI_VARIANT_COUNT + 1];
  int ns = cpu_sets(sets), trial;
  static const int nfs[] = {1, 3, 7, 16, 17, 33, 100, 513, 700};
  for (trial = 0; trial < 800; trial++) {
    int nf = nfs[tt_range(&r, 0, 8)];
    int ny = (int)tt_range(&r, 1, 3), nx = (int)tt_range(&r, 1, nf > 100 ? 3 : 9);
    ti_dtype t = all_types[tt_range(&r, 0, 4)];
    ti_dtype tw = t == TI_DTYPE_F32 ? t : int_types[tt_range(&r, 0, 3)];
    ti_prim_desc d = desc3(ny, nx, nf, t);
    int64_t n = (int64_t)ny * nx * nf;
    int prim = trial % 5, si;
    const void *ins[3];
    ti_status want;
    void *a, *b, *c, *bias, *alpha;
    int32_t *ref, *out;
    d.w_dtype = tw;
    d.bias_mode = (ti_bias_mode)tt_range(&r, 0, 2);
    d.constant_a = rnd_i32(&r); d.constant_b = rnd_i32(&r);
    d.n_branch = (int)tt_range(&r, 1, 3);
    d.lut_dw = (int)tt_range(&r, 1, 12);
    if (prim == 4 && t == TI_DTYPE_F32) { t = d.in_dtype = TI_DTYPE_I32; d.out_dtype = TI_DTYPE_I32; }
    a = xalloc(n, t); b = xalloc(n, prim == 0 ? t : tw); c = xalloc(n, t);
    bias = xalloc(nf, t == TI_DTYPE_F32 ? t : TI_DTYPE_I32);
    alpha = prim == 4 ? xalloc((int64_t)1 << d.lut_dw, TI_DTYPE_I32) : xalloc(nf, tw);
    ref = (int32_t *)xalloc(n, TI_DTYPE_I32); out = (int32_t *)xalloc(n + 1, TI_DTYPE_I32);
    fill(&r, a, t, n); fill(&r, b, prim == 0 ? t : tw, n); fill(&r, c, t, n);
    fill(&r, bias, t == TI_DTYPE_F32 ? t : TI_DTYPE_I32, nf);
    if (prim == 4) fill(&r, alpha, TI_DTYPE_I32, (int64_t)1 << d.lut_dw);
    else fill(&r, alpha, tw, nf);
    ins[0] = a; ins[1] = b; ins[2] = c;
    switch (prim) {
    case 0: want = ti_cadd_ref(&d, ins, bias, ref); break;
    case 1: want = ti_cvvh_ref(&d, a, b, bias, ref); break;
    case 2: want = ti_cax_ref(&d, a, alpha, bias, ref); break;
    case 3: want = ti_cvs_ref(&d, a, bias, ref); break;
    default: want = ti_clut_ref(&d, a, (const int32_t *)alpha, ref); break;
    }
    TT_EQ_INT(want, TI_STATUS_SUCCESS);
    for (si = 0; si < ns; si++) {
      ti_kernel_ctx ctx;
      ti_status st;
      ti_kernel_ctx_init(&ctx);
      ctx.cpu = sets[si];
      if (trial & 1) ctx.parallel_for = fake_parallel;
      memset(out, 0x5a, (size_t)(n + 1) * 4);
      switch (prim) {
      case 0: st = ti_cadd(&ctx, &d, ins, bias, out); break;
      case 1: st = ti_cvvh(&ctx, &d, a, b, bias, out); break;
      case 2: st = ti_cax(&ctx, &d, a, alpha, bias, out); break;
      case 3: st = ti_cvs(&ctx, &d, a, bias, out); break;
      default: st = ti_clut(&ctx, &d, a, (const int32_t *)alpha, out); break;
      }
      TT_EQ_INT(st, TI_STATUS_SUCCESS);
      TT_CHECK_MSG(same(out, ref, n), "prim %d dtype %d/%d %dx%dx%d bias %d cpu %x", prim, t, tw,
                   ny, nx, nf, d.bias_mode, sets[si]);
      TT_EQ_INT(out[n], 0x5a5a5a5a);   /* nothing written past the end */
    }
    free(a); free(b); free(c); free(bias); free(alpha); free(ref); free(out);
  }
}

TT_TEST(random_window_paths) {
  tt_rng r = {0x77aa5511u};
  unsigned sets[TI_VARIANT_COUNT + 1];
  int ns = cpu_sets(sets), trial;
  static const int nfs[] = {1, 2, 5, 16, 31, 64, 600};
  for (trial = 0; trial < 800; trial++) {
    int nf = nfs[tt_range(&r, 0, 6)];
    int nky = (int)tt_range(&r, 1, 4), nkx = (int)tt_range(&r, 1, 4);
    int sy = (int)tt_range(&r, 1, 3), sx = (int)tt_range(&r, 1, 3);
    int pu = (int)tt_range(&r, 0, 3), pd = (int)tt_range(&r, 0, 3);
    int pl = (int)tt_range(&r, 0, 3), pr = (int)tt_range(&r, 0, 3);
    int niy = (int)tt_range(&r, 1, nf > 64 ? 4 : 9), nix = (int)tt_range(&r, 1, nf > 64 ? 4 : 9);
    ti_dtype t = all_types[tt_range(&r, 0, 4)];
    ti_prim_desc d;
    int prim = trial % 3, si;
    int64_t n;
    ti_status want;
    void *in, *bias;
    int32_t *ref, *out;
    size_t es;
    if (niy + pu + pd < nky) pd += nky;
    if (nix + pl + pr < nkx) pr += nkx;
    d = descw(niy, nix, nf, nky, nkx, sy, sx, pu, pd, pl, pr, t);
    if (trial % 10 == 9) {   /* stride 0 means 1 */
      d = descw(niy, nix, nf, nky, nkx, 1, 1, pu, pd, pl, pr, t);
      d.stride_y = d.stride_x = 0;
    }
    n = (int64_t)d.ny * d.nx * nf;
    d.bias_mode = (ti_bias_mode)tt_range(&r, 0, 2);
    d.constant_b = rnd_i32(&r);
    d.cmp = trial % 4 ? (int32_t)tt_range(&r, -200, 200) : rnd_i32(&r);
    d.bit_shift = t == TI_DTYPE_F32 ? 0 : (int)tt_range(&r, 0, 31);
    if (t != TI_DTYPE_F32) {
      static const ti_dtype outs[] = {TI_DTYPE_I8, TI_DTYPE_U8, TI_DTYPE_TERNARY, TI_DTYPE_I32, TI_DTYPE_I16};
      d.out_dtype = outs[tt_range(&r, 0, 4)];
    }
    in = xalloc((int64_t)niy * nix * nf, t);
    bias = xalloc(nf, t == TI_DTYPE_F32 ? t : TI_DTYPE_I32);
    ref = (int32_t *)xalloc(n, TI_DTYPE_I32); out = (int32_t *)xalloc(n + 1, TI_DTYPE_I32);
    fill(&r, in, t, (int64_t)niy * nix * nf);
    fill(&r, bias, t == TI_DTYPE_F32 ? t : TI_DTYPE_I32, nf);
    want = prim == 0 ? ti_cavg_ref(&d, in, bias, ref)
         : prim == 1 ? ti_ccmpb_ref(&d, in, ref) : ti_ccmps_ref(&d, in, ref);
    TT_EQ_INT(want, TI_STATUS_SUCCESS);
    es = prim == 1 ? ti_ccmpb_out_size(&d) : 4;   /* CCMPB writes out_dtype's storage */
    for (si = 0; si < ns; si++) {
      ti_kernel_ctx ctx;
      ti_status st;
      ti_kernel_ctx_init(&ctx);
      ctx.cpu = sets[si];
      if (trial & 1) ctx.parallel_for = fake_parallel;
      memset(out, 0x5a, (size_t)(n + 1) * 4);
      st = prim == 0 ? ti_cavg(&ctx, &d, in, bias, out)
         : prim == 1 ? ti_ccmpb(&ctx, &d, in, out) : ti_ccmps(&ctx, &d, in, out);
      TT_EQ_INT(st, TI_STATUS_SUCCESS);
      TT_CHECK_MSG(memcmp(out, ref, (size_t)n * es) == 0, "prim %d dtype %d in %dx%dx%d k %dx%d s %d,%d pad %d %d %d %d cpu %x",
                   prim, t, niy, nix, nf, nky, nkx, sy, sx, pu, pd, pl, pr, sets[si]);
      TT_CHECK_MSG(untouched(out, n * (int64_t)es), "past the end: prim %d dtype %d in %dx%dx%d k %dx%d s %d,%d pad %d %d %d %d cpu %x n %lld",
                   prim, t, niy, nix, nf, nky, nkx, sy, sx, pu, pd, pl, pr, sets[si], (long long)n);
    }
    free(in); free(bias); free(ref); free(out);
  }
}

/* CCMPB's 1x1 requantisation form (stride 1, no padding; the executor
   runs it as one row of ny*nx*nf channels) straight into every storage
   width, tile edges included, against the reference; nothing past the end. */
TT_TEST(random_requant_stores) {
  tt_rng r = {0x1c0ffee5u};
  unsigned sets[TI_VARIANT_COUNT + 1];
  int ns = cpu_sets(sets), trial;
  static const ti_dtype ins[] = {TI_DTYPE_I8, TI_DTYPE_U8, TI_DTYPE_I32};
  static const ti_dtype outs[] = {TI_DTYPE_I8, TI_DTYPE_U8, TI_DTYPE_TERNARY, TI_DTYPE_I16, TI_DTYPE_U16, TI_DTYPE_I9, TI_DTYPE_I32};
  static const int nfs[] = {1, 7, 511, 512, 513, 1500, 4096};
  for (trial = 0; trial < 300; trial++) {
    int nf = nfs[tt_range(&r, 0, 6)], ny = (int)tt_range(&r, 1, 3), nx = (int)tt_range(&r, 1, 3), si;
    ti_dtype t = ins[tt_range(&r, 0, 2)];
    ti_prim_desc d = descw(ny, nx, nf, 1, 1, 1, 1, 0, 0, 0, 0, t);
    int64_t n = (int64_t)ny * nx * nf;
    size_t es;
    void *in = xalloc(n, t);
    int32_t *ref = (int32_t *)xalloc(n, TI_DTYPE_I32), *out = (int32_t *)xalloc(n + 1, TI_DTYPE_I32);
    d.cmp = trial % 4 ? (int32_t)tt_range(&r, -300, 100) : rnd_i32(&r);
    d.bit_shift = (int)tt_range(&r, 0, 12);
    d.out_dtype = outs[tt_range(&r, 0, 6)];
    es = ti_ccmpb_out_size(&d);
    fill(&r, in, t, n);
    TT_EQ_INT(ti_ccmpb_ref(&d, in, ref), TI_STATUS_SUCCESS);
    for (si = 0; si < ns; si++) {
      ti_kernel_ctx ctx;
      ti_kernel_ctx_init(&ctx);
      ctx.cpu = sets[si];
      if (trial & 1) ctx.parallel_for = fake_parallel;
      memset(out, 0x5a, (size_t)(n + 1) * 4);
      TT_EQ_INT(ti_ccmpb(&ctx, &d, in, out), TI_STATUS_SUCCESS);
      TT_CHECK_MSG(memcmp(out, ref, (size_t)n * es) == 0, "dtype %d %dx%dx%d out %d cmp %d >> %d cpu %x", t, ny, nx, nf,
                   d.out_dtype, (int)d.cmp, d.bit_shift, sets[si]);
      TT_CHECK_MSG(untouched(out, n * (int64_t)es), "past the end: %dx%dx%d out %d", ny, nx, nf, d.out_dtype);
    }
    free(in); free(ref); free(out);
  }
}

/* CCMPB max pools with stride = window and no top/left padding on fewer
   than 16 channels (the path that reduces whole rows first), against the
   reference: int8/uint8/int32 input, every output precision, shift, CMP. */
TT_TEST(random_narrow_pools) {
  tt_rng r = {0x5eed2026u};
  unsigned sets[8];
  int ns = cpu_sets(sets), trial;
  static const ti_dtype ins[] = {TI_DTYPE_I8, TI_DTYPE_U8, TI_DTYPE_I32};
  static const ti_dtype outs[] = {TI_DTYPE_I8, TI_DTYPE_U8, TI_DTYPE_TERNARY, TI_DTYPE_I32, TI_DTYPE_I16};
  for (trial = 0; trial < 400; trial++) {
    int nf = (int)tt_range(&r, 1, 15), nky = (int)tt_range(&r, 1, 3), nkx = (int)tt_range(&r, 1, 3);
    int oy = (int)tt_range(&r, 1, 8), ox = (int)tt_range(&r, 1, 8);
    int niy = oy * nky + (int)tt_range(&r, 0, nky - 1), nix = ox * nkx + (int)tt_range(&r, 0, nkx - 1);
    ti_dtype t = ins[tt_range(&r, 0, 2)];
    ti_prim_desc d;
    int64_t n;
    int si;
    size_t es;
    void *in;
    int32_t *ref, *out;
    if (nky * nkx < 2) nkx = 2, nix = ox * 2;
    d = descw(niy, nix, nf, nky, nkx, nky, nkx, 0, 0, 0, 0, t);
    n = (int64_t)d.ny * d.nx * nf;
    d.cmp = trial % 4 ? (int32_t)tt_range(&r, -200, 200) : rnd_i32(&r);
    d.bit_shift = (int)tt_range(&r, 0, 31);
    d.out_dtype = outs[tt_range(&r, 0, 4)];
    in = xalloc((int64_t)niy * nix * nf, t);
    ref = (int32_t *)xalloc(n, TI_DTYPE_I32); out = (int32_t *)xalloc(n + 1, TI_DTYPE_I32);
    fill(&r, in, t, (int64_t)niy * nix * nf);
    TT_EQ_INT(ti_ccmpb_ref(&d, in, ref), TI_STATUS_SUCCESS);
    es = ti_ccmpb_out_size(&d);
    for (si = 0; si < ns; si++) {
      ti_kernel_ctx ctx;
      ti_kernel_ctx_init(&ctx);
      ctx.cpu = sets[si];
      memset(out, 0x5a, (size_t)(n + 1) * 4);
      TT_EQ_INT(ti_ccmpb(&ctx, &d, in, out), TI_STATUS_SUCCESS);
      TT_CHECK_MSG(memcmp(out, ref, (size_t)n * es) == 0, "dtype %d in %dx%dx%d k %dx%d out %d cpu %x", t, niy, nix, nf, nky, nkx, d.out_dtype, sets[si]);
      TT_CHECK_MSG(untouched(out, n * (int64_t)es), "past the end: in %dx%dx%d k %dx%d", niy, nix, nf, nky, nkx);
    }
    free(in); free(ref); free(out);
  }
}

/* Float max/min with NaN and signed zeros: every path keeps the
   reference's operand order. */
TT_TEST(float_special_values) {
  enum { NF = 37 };   /* vector body and scalar tail on every path */
  float in[4 * 4 * NF];
  unsigned sets[TI_VARIANT_COUNT + 1];
  int ns = cpu_sets(sets), si, i, prim;
  volatile float zero = 0.0f;
  for (i = 0; i < 4 * 4 * NF; i++)
    in[i] = (i % 5 == 0) ? zero / zero : (i % 3 == 0) ? -0.0f : (i % 2 == 0) ? 0.0f : (float)(i % 7) - 3.0f;
  for (prim = 0; prim < 3; prim++) {
    ti_prim_desc d = descw(4, 4, NF, 2, 3, 1, 1, 1, 0, 1, 1, TI_DTYPE_F32);
    int64_t n = (int64_t)d.ny * d.nx * NF;
    d.cmp = 0;
    TT_EQ_INT(prim == 0 ? ti_cavg_ref(&d, in, 0, REF.f) : prim == 1 ? ti_ccmpb_ref(&d, in, REF.f)
                                                                  : ti_ccmps_ref(&d, in, REF.f), 0);
    for (si = 0; si < ns; si++) {
      ti_kernel_ctx ctx;
      ti_kernel_ctx_init(&ctx);
      ctx.cpu = sets[si];
      TT_EQ_INT(prim == 0 ? ti_cavg(&ctx, &d, in, 0, OUT.f) : prim == 1 ? ti_ccmpb(&ctx, &d, in, OUT.f)
                                                                     : ti_ccmps(&ctx, &d, in, OUT.f), 0);
      TT_CHECK_MSG(same(OUT.f, REF.f, n), "prim %d cpu %x", prim, sets[si]);
    }
  }
}

/* ---------- argument checks ---------- */

TT_TEST(bad_params) {
  int32_t a[64], o[64], lut[2] = {0, 1};
  const void *ins[2];
  ti_lif_params p;
  ti_prim_desc d = desc3(2, 2, 2, TI_DTYPE_I32), e;
  ti_kernel_ctx ctx;
  ti_kernel_ctx_init(&ctx);
  memset(a, 0, sizeof a);
  ins[0] = a; ins[1] = 0;
  TT_EQ_INT(ti_cadd(&ctx, 0, ins, 0, o), TI_STATUS_BAD_PARAM);
  TT_EQ_INT(ti_cadd(&ctx, &d, 0, 0, o), TI_STATUS_BAD_PARAM);
  TT_EQ_INT(ti_cadd(&ctx, &d, ins, 0, 0), TI_STATUS_BAD_PARAM);
  d.n_branch = 2; TT_EQ_INT(ti_cadd(&ctx, &d, ins, 0, o), TI_STATUS_BAD_PARAM);   /* NULL branch */
  d.n_branch = 0; TT_EQ_INT(ti_cadd(&ctx, &d, ins, 0, o), TI_STATUS_BAD_PARAM);
  d.n_branch = 1; d.bias_mode = TI_BIAS_VECTOR;
  TT_EQ_INT(ti_cadd(&ctx, &d, ins, 0, o), TI_STATUS_BAD_PARAM);                   /* NULL bias */
  d.bias_mode = (ti_bias_mode)7; TT_EQ_INT(ti_cadd(&ctx, &d, ins, 0, o), TI_STATUS_BAD_PARAM);
  d.bias_mode = TI_BIAS_NONE;
  e = d; e.ny = 0; TT_EQ_INT(ti_cadd(&ctx, &e, ins, 0, o), TI_STATUS_BAD_PARAM);
  e = d; e.nf = -3; TT_EQ_INT(ti_cvs(&ctx, &e, a, 0, o), TI_STATUS_BAD_PARAM);
  e = d; e.ny = e.nx = e.nf = INT32_MAX; TT_EQ_INT(ti_cvs(&ctx, &e, a, 0, o), TI_STATUS_BAD_PARAM);
  e = d; e.in_dtype = TI_DTYPE_F16; TT_EQ_INT(ti_cvs(&ctx, &e, a, 0, o), TI_STATUS_NOT_SUPPORTED);
  e = d; e.in_dtype = TI_DTYPE_I16; TT_EQ_INT(ti_cvs_ref(&e, a, 0, o), TI_STATUS_NOT_SUPPORTED);
  e = d; e.out_dtype = TI_DTYPE_F32; TT_EQ_INT(ti_cvs(&ctx, &e, a, 0, o), TI_STATUS_NOT_SUPPORTED);
  e = d; e.in_dtype = TI_DTYPE_F32; e.out_dtype = TI_DTYPE_I32;
  TT_EQ_INT(ti_cvs(&ctx, &e, a, 0, o), TI_STATUS_NOT_SUPPORTED);
  e = d; e.w_dtype = TI_DTYPE_F32; TT_EQ_INT(ti_cvvh(&ctx, &e, a, a, 0, o), TI_STATUS_NOT_SUPPORTED);
  TT_EQ_INT(ti_cvvh(&ctx, &d, a, 0, 0, o), TI_STATUS_BAD_PARAM);
  TT_EQ_INT(ti_cax(&ctx, &d, 0, a, 0, o), TI_STATUS_BAD_PARAM);
  /* windows */
  e = descw(4, 4, 2, 2, 2, 2, 2, 0, 0, 0, 0, TI_DTYPE_I32);
  TT_EQ_INT(ti_cavg(&ctx, &e, a, 0, o), TI_STATUS_SUCCESS);
  e.ny = 3; TT_EQ_INT(ti_cavg(&ctx, &e, a, 0, o), TI_STATUS_BAD_PARAM);           /* wrong output height */
  e.ny = 2; e.nkx = 5; TT_EQ_INT(ti_ccmpb(&ctx, &e, a, o), TI_STATUS_BAD_PARAM);  /* window wider than input */
  e.nkx = 0; TT_EQ_INT(ti_ccmps(&ctx, &e, a, o), TI_STATUS_BAD_PARAM);
  e.nkx = 2; e.pad_left = -1; TT_EQ_INT(ti_cavg(&ctx, &e, a, 0, o), TI_STATUS_BAD_PARAM);
  e.pad_left = 0; e.stride_y = -2; TT_EQ_INT(ti_cavg(&ctx, &e, a, 0, o), TI_STATUS_BAD_PARAM);
  e.stride_y = 2; e.niy = 0; TT_EQ_INT(ti_cavg(&ctx, &e, a, 0, o), TI_STATUS_BAD_PARAM);
  {  /* a window of 2^30 x 2 positions over one padded pixel: refused, not run */
    ti_prim_desc h = descw(1, 1, 1, 1 << 30, 2, 1, 1, (1 << 30) - 1, 0, 1, 0, TI_DTYPE_I32);
    TT_EQ_INT(h.ny, 1);
    TT_EQ_INT(ti_cavg(&ctx, &h, a, 0, o), TI_STATUS_LIMIT);
    TT_EQ_INT(ti_ccmpb_ref(&h, a, o), TI_STATUS_LIMIT);
  }
  e.niy = 4; e.dilation_x = 2; TT_EQ_INT(ti_cavg(&ctx, &e, a, 0, o), TI_STATUS_NOT_SUPPORTED);
  e.dilation_x = 1; TT_EQ_INT(ti_cavg(&ctx, &e, a, 0, o), TI_STATUS_SUCCESS);
  e.bit_shift = 32; TT_EQ_INT(ti_ccmpb(&ctx, &e, a, o), TI_STATUS_BAD_PARAM);
  e.bit_shift = -1; TT_EQ_INT(ti_ccmps_ref(&e, a, o), TI_STATUS_BAD_PARAM);
  e.bit_shift = 0; TT_EQ_INT(ti_ccmpb(&ctx, &e, 0, o), TI_STATUS_BAD_PARAM);
  /* CLUT */
  e = d; e.lut_dw = 0; TT_EQ_INT(ti_clut(&ctx, &e, a, lut, o), TI_STATUS_BAD_PARAM);
  e.lut_dw = 17; TT_EQ_INT(ti_clut(&ctx, &e, a, lut, o), TI_STATUS_BAD_PARAM);
  e.lut_dw = 1; TT_EQ_INT(ti_clut(&ctx, &e, a, 0, o), TI_STATUS_BAD_PARAM);
  TT_EQ_INT(ti_clut(&ctx, &e, a, lut, o), TI_STATUS_SUCCESS);
  e.in_dtype = TI_DTYPE_F32; e.out_dtype = TI_DTYPE_F32;
  TT_EQ_INT(ti_clut(&ctx, &e, a, lut, o), TI_STATUS_NOT_SUPPORTED);
  /* CLIF */
  ti_lif_params_init(&p);
  TT_EQ_INT(ti_clif(&ctx, &d, &p, a, o + 16, o), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_clif(&ctx, &d, 0, a, o + 16, o), TI_STATUS_BAD_PARAM);
  TT_EQ_INT(ti_clif(&ctx, &d, &p, a, 0, o), TI_STATUS_BAD_PARAM);
  TT_EQ_INT(ti_clif(&ctx, &d, &p, a, o + 16, 0), TI_STATUS_BAD_PARAM);
  p.ref_len = 2; TT_EQ_INT(ti_clif(&ctx, &d, &p, a, o + 16, o), TI_STATUS_NOT_SUPPORTED);
  ti_lif_params_init(&p); p.vth_adpt_en = 1;
  TT_EQ_INT(ti_clif(&ctx, &d, &p, a, o + 16, o), TI_STATUS_NOT_SUPPORTED);
  ti_lif_params_init(&p); p.vth_incre = 5;
  TT_EQ_INT(ti_clif_ref(&d, &p, a, o + 16, o), TI_STATUS_NOT_SUPPORTED);
  ti_lif_params_init(&p); p.vm_const_en = 1; p.vm_const = 255;
  TT_EQ_INT(ti_clif(&ctx, &d, &p, a, o + 16, o), TI_STATUS_NOT_SUPPORTED);
  ti_lif_params_init(&p); p.fire_type = 2;
  TT_EQ_INT(ti_clif(&ctx, &d, &p, a, o + 16, o), TI_STATUS_NOT_SUPPORTED);
  p.fire_type = 8; TT_EQ_INT(ti_clif(&ctx, &d, &p, a, o + 16, o), TI_STATUS_BAD_PARAM);
  ti_lif_params_init(&p); p.reset_mode = 4;
  TT_EQ_INT(ti_clif(&ctx, &d, &p, a, o + 16, o), TI_STATUS_BAD_PARAM);
  ti_lif_params_init(&p); p.vth0 = 1 << 27;
  TT_EQ_INT(ti_clif(&ctx, &d, &p, a, o + 16, o), TI_STATUS_BAD_PARAM);
  ti_lif_params_init(&p); p.vr = -(1 << 27) - 1;
  TT_EQ_INT(ti_clif(&ctx, &d, &p, a, o + 16, o), TI_STATUS_BAD_PARAM);
  ti_lif_params_init(&p); e = d; e.in_dtype = TI_DTYPE_F32; e.out_dtype = TI_DTYPE_F32;
  TT_EQ_INT(ti_clif(&ctx, &e, &p, a, o + 16, o), TI_STATUS_NOT_SUPPORTED);
}

int main(void) {
  TT_RUN(cadd_known);
  TT_RUN(cavg_known);
  TT_RUN(mul_known);
  TT_RUN(ccmpb_known);
  TT_RUN(random_requant_stores);
  TT_RUN(ccmps_known);
  TT_RUN(clut_known);
  TT_RUN(clif_known);
  TT_RUN(clif_steps_vs_model);
  TT_RUN(random_elementwise_paths);
  TT_RUN(random_window_paths);
  TT_RUN(random_narrow_pools);
  TT_RUN(float_special_values);
  TT_RUN(bad_params);
  return tt_finish();
}
