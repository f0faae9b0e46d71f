/* Every kernel that takes a ti_kernel_ctx, run with a parallel_for that cuts
   its range into 1, 2, 3 and 7 uneven sub-ranges run in a shuffled order:
   the outputs must equal, bit for bit, those of the same call without the
   hook (one range [0, n)). Also checks that each kernel does hand its work
   to the hook (the reference-only build keeps CC, CVM and the element-wise
   kernels on the calling thread, so there only TinShift, transpose and the
   rearrangements are required to split). */
/* TinShift keeps outputs below this on the calling thread (default 4 MiB):
   small here so that the small cases below split. */
#define TASKIR_TINSHIFT_SPLIT_BYTES ((size_t)4096)
#define TASKIR_IMPLEMENTATION
#include "taskir_kernels.h"
#include "tt.h"

/* ---- the splitting parallel_for ------------------------------------------ */

typedef struct splitter {
  int parts;        /* at most this many sub-ranges */
  tt_rng rng;
  int64_t calls;    /* hook calls with n >= 2 */
} splitter;

static void split_for(void *user, int64_t n, ti_range_fn fn, void *arg) {
  splitter *s = (splitter *)user;
  int64_t cut[8], order[8];
  int k = s->parts < n ? s->parts : (int)n, i, c = 1;
  if (n >= 2) s->calls++;
  cut[0] = 0;
  /* k - 1 distinct random cut points in (0, n), sorted: uneven ranges */
  while (c < k) {
    int64_t p = tt_range(&s->rng, 1, n - 1), t;
    int dup = 0;
    for (i = 1; i < c; i++) dup |= cut[i] == p;
    if (dup) continue;
    cut[c++] = p;
    for (i = c - 1; i > 1 && cut[i] < cut[i - 1]; i--) { t = cut[i]; cut[i] = cut[i - 1]; cut[i - 1] = t; }
  }
  cut[k] = n;
  for (i = 0; i < k; i++) order[i] = i;
  for (i = k - 1; i > 0; i--) {  /* shuffled order */
    int64_t j = tt_range(&s->rng, 0, i), t = order[i];
    order[i] = order[j]; order[j] = t;
  }
  for (i = 0; i < k; i++) fn(arg, cut[order[i]], cut[order[i] + 1]);
}

/* ---- the driver ---------------------------------------------------------- */

typedef ti_status (*kcall)(const ti_kernel_ctx *ctx, const void *c, void *out);

/* Runs f without the hook, then with 1, 2, 3 and 7 parts (three seeds
   each), comparing out_bytes of output. must_split: the hook must be
   called with a range of at least 2. */
static void check_splits(const char *name, kcall f, const void *c, size_t out_bytes, int must_split) {
  static const int parts[4] = {1, 2, 3, 7};
  unsigned char *want = (unsigned char *)malloc(out_bytes), *got = (unsigned char *)malloc(out_bytes);
  ti_kernel_ctx ctx;
  int p, seed;
  ti_kernel_ctx_init(&ctx);
  memset(want, 0x5a, out_bytes);
  TT_CHECK_MSG(f(&ctx, c, want) == TI_STATUS_SUCCESS, "%s: the call without a hook failed", name);
  for (p = 0; p < 4; p++)
    for (seed = 0; seed < 3; seed++) {
      splitter s;
      s.parts = parts[p]; s.rng.s = 0x9e3779b97f4a7c15ull * (uint64_t)(p * 3 + seed + 1); s.calls = 0;
      ctx.parallel_for = split_for; ctx.parallel_user = &s;
      memset(got, 0xa5, out_bytes);
      TT_CHECK_MSG(f(&ctx, c, got) == TI_STATUS_SUCCESS, "%s: the call with %d parts failed", name, parts[p]);
      TT_CHECK_MSG(memcmp(got, want, out_bytes) == 0, "%s: %d parts (seed %d) differ from one range", name, parts[p], seed);
      if (must_split) TT_CHECK_MSG(s.calls > 0, "%s: the kernel did not use parallel_for", name);
    }
  free(want); free(got);
}

#ifdef TASKIR_NO_SIMD
#define SIMD_SPLITS 0   /* reference paths run on the calling thread */
#else
#define SIMD_SPLITS 1
#endif

/* ---- halves: which thread writes which part of the output ---------------
   A pool gives the k-th contiguous part of a job's range to thread k. For a
   consumer that splits its pixels alike to find its input in the cache of
   the thread that made it, the first half of a kernel's range must write a
   prefix of its output pixels and the second half the rest. The hook below
   runs [0, n/2), checks that the pixels then equal to the final output are
   the first c (none after), then runs [n/2, n). */
typedef struct halver {
  const unsigned char *want;
  unsigned char *got;
  size_t out_bytes, unit;   /* unit: bytes per output pixel */
  int bad;                  /* a call whose first half wrote pixels out of order */
  size_t widest;            /* the most pixels one first half completed */
  int64_t calls;
} halver;

static void halves_for(void *user, int64_t n, ti_range_fn fn, void *arg) {
  halver *h = (halver *)user;
  size_t u, units = h->out_bytes / h->unit, c = 0;
  int gap = 0;
  h->calls++;
  fn(arg, 0, n / 2);
  for (u = 0; u < units; u++) {
    int done = memcmp(h->got + u * h->unit, h->want + u * h->unit, h->unit) == 0;
    if (done && gap) h->bad = 1;
    if (done && !gap) c++;
    if (!done) gap = 1;
  }
  if (c > h->widest) h->widest = c;
  fn(arg, n / 2, n);
}

static int halves_mode;   /* conv_run and elt_run_geo check halves instead of splits */

static void check_halves(const char *name, kcall f, const void *c, size_t out_bytes, size_t unit) {
  unsigned char *want = (unsigned char *)malloc(out_bytes), *got = (unsigned char *)malloc(out_bytes);
  ti_kernel_ctx ctx;
  halver h;
  size_t units = out_bytes / unit;
  ti_kernel_ctx_init(&ctx);
  memset(want, 0x5a, out_bytes);
  TT_CHECK_MSG(f(&ctx, c, want) == TI_STATUS_SUCCESS, "%s: the call without a hook failed", name);
  memset(got, 0xa5, out_bytes);
  h.want = want; h.got = got; h.out_bytes = out_bytes; h.unit = unit; h.bad = 0; h.widest = 0; h.calls = 0;
  ctx.parallel_for = halves_for; ctx.parallel_user = &h;
  TT_CHECK_MSG(f(&ctx, c, got) == TI_STATUS_SUCCESS, "%s: the call with halves failed", name);
  TT_CHECK_MSG(memcmp(got, want, out_bytes) == 0, "%s: halves differ from one range", name);
  TT_CHECK_MSG(!h.bad, "%s: the first half of the range wrote pixels past a gap", name);
  if (SIMD_SPLITS) TT_CHECK_MSG(h.calls > 0, "%s: the kernel did not use parallel_for", name);
  if (h.calls) TT_CHECK_MSG(h.widest * 4 >= units && h.widest * 4 <= 3 * units,
               "%s: the first half of the range completed %d of %d pixels (want about half)", name, (int)h.widest,
               (int)units);
  free(want); free(got);
}

static void fill_i(tt_rng *r, void *p, ti_dtype t, size_t n, int64_t lo, int64_t hi) {
  size_t i;
  for (i = 0; i < n; i++) {
    int64_t v = tt_range(r, lo, hi);
    switch (t) {
    case TI_DTYPE_I8: case TI_DTYPE_TERNARY: ((int8_t *)p)[i] = (int8_t)(t == TI_DTYPE_TERNARY ? v % 2 : v); break;
    case TI_DTYPE_U8: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case TI_DTYPE_F32: ((float *)p)[i] = (float)v / 64.0f; break;
    default: ((int32_t *)p)[i] = (int32_t)v; break;
    }
  }
}

/* ---- CC / CC2D / CVM ----------------------------------------------------- */

typedef struct conv_case { ti_prim_desc d; void *in, *w, *bias, *scratch; size_t sb; } conv_case;

static ti_status call_cc(const ti_kernel_ctx *ctx, const void *c, void *out) {
  const conv_case *k = (const conv_case *)c;
  return ti_cc(ctx, &k->d, k->in, k->w, k->bias, out, k->scratch, k->sb);
}
static ti_status call_cc2d(const ti_kernel_ctx *ctx, const void *c, void *out) {
  const conv_case *k = (const conv_case *)c;
  return ti_cc2d(ctx, &k->d, k->in, k->w, k->bias, out, k->scratch, k->sb);
}
static ti_status call_cvm(const ti_kernel_ctx *ctx, const void *c, void *out) {
  const conv_case *k = (const conv_case *)c;
  return ti_cvm(ctx, &k->d, k->in, k->w, k->bias, out, k->scratch, k->sb);
}

static void conv_run(const char *name, int niy, int nix, int nr, int nf, int nk, int st, int pad,
                     ti_dtype tin, ti_dtype tw, int64_t lo, int64_t hi, int cvm, uint64_t seed) {
  conv_case k;
  tt_rng r;
  size_t ni, nw, no;
  memset(&k, 0, sizeof k);
  r.s = seed;
  k.d.nr = nr; k.d.nf = nf; k.d.in_dtype = tin; k.d.w_dtype = tw;
  k.d.out_dtype = tin == TI_DTYPE_F32 ? TI_DTYPE_F32 : TI_DTYPE_I32;
  k.d.bias_mode = TI_BIAS_VECTOR;
  if (cvm) {
    k.d.ny = k.d.nx = 1;
    ni = (size_t)nr;
    TT_EQ_INT(ti_cvm_scratch_size(&k.d, &k.sb), TI_STATUS_SUCCESS);
  } else {
    k.d.niy = niy; k.d.nix = nix; k.d.nky = k.d.nkx = nk; k.d.stride_y = k.d.stride_x = st;
    k.d.pad_up = k.d.pad_down = k.d.pad_left = k.d.pad_right = pad;
    k.d.ny = (niy + 2 * pad - nk) / st + 1; k.d.nx = (nix + 2 * pad - nk) / st + 1;
    ni = (size_t)niy * nix * nr;
    TT_EQ_INT(ti_cc_scratch_size(&k.d, 0, &k.sb), TI_STATUS_SUCCESS);
  }
  nw = (size_t)nf * nr * (cvm ? 1 : nk * nk);
  no = (size_t)k.d.ny * k.d.nx * nf;
  k.in = malloc(ni * 4); k.w = malloc(nw * 4); k.bias = malloc((size_t)nf * 4);
  k.scratch = malloc(k.sb ? k.sb : 1);
  fill_i(&r, k.in, tin, ni, lo, hi);
  fill_i(&r, k.w, tw, nw, tw == TI_DTYPE_I32 ? -100000 : -128, tw == TI_DTYPE_I32 ? 100000 : 127);
  fill_i(&r, k.bias, tin == TI_DTYPE_F32 ? TI_DTYPE_F32 : TI_DTYPE_I32, (size_t)nf, -1000, 1000);
  if (halves_mode) check_halves(name, call_cc, &k, no * 4, (size_t)nf * 4);
  else if (cvm) check_splits(name, call_cvm, &k, no * 4, SIMD_SPLITS);
  else {
    check_splits(name, call_cc, &k, no * 4, SIMD_SPLITS);
    check_splits(name, call_cc2d, &k, no * 4, SIMD_SPLITS);
  }
  free(k.in); free(k.w); free(k.bias); free(k.scratch);
}

TT_TEST(conv_splits) {
  conv_run("cc i8 3x3 p1", 17, 15, 32, 40, 3, 1, 1, TI_DTYPE_I8, TI_DTYPE_I8, -128, 127, 0, 1);
  conv_run("cc u8 3ch 3x3 s2 (window rows)", 21, 19, 3, 16, 3, 2, 1, TI_DTYPE_U8, TI_DTYPE_I8, 0, 255, 0, 2);
  conv_run("cc i8 ternary 1x1", 9, 13, 64, 70, 1, 1, 0, TI_DTYPE_I8, TI_DTYPE_TERNARY, -128, 127, 0, 3);
  conv_run("cc i32 narrow (dual, int8 path)", 11, 11, 16, 20, 3, 1, 1, TI_DTYPE_I32, TI_DTYPE_I8, -100, 100, 0, 4);
  conv_run("cc i32 wide (dual, wide path)", 11, 11, 16, 20, 3, 1, 1, TI_DTYPE_I32, TI_DTYPE_I8, -100000, 100000, 0, 5);
  conv_run("cc f32 3x3", 10, 12, 8, 24, 3, 1, 1, TI_DTYPE_F32, TI_DTYPE_F32, -200, 200, 0, 6);
  /* weights past 32 KiB: blocks of pixel tiles, channel tile by channel tile */
  conv_run("cc i8 3x3 64->128 (pixel-tile blocks)", 40, 36, 64, 128, 3, 1, 1, TI_DTYPE_I8, TI_DTYPE_I8, -128, 127, 0, 11);
  conv_run("cc i8 7x7 64->80 (blocks, border regions)", 7, 7, 64, 80, 3, 1, 1, TI_DTYPE_I8, TI_DTYPE_I8, -128, 127, 0, 12);
  conv_run("cvm i8", 0, 0, 1000, 77, 0, 0, 0, TI_DTYPE_I8, TI_DTYPE_I8, -128, 127, 1, 7);
  conv_run("cvm u8 ternary", 0, 0, 515, 130, 0, 0, 0, TI_DTYPE_U8, TI_DTYPE_TERNARY, 0, 255, 1, 8);
  conv_run("cvm i32 narrow", 0, 0, 300, 50, 0, 0, 0, TI_DTYPE_I32, TI_DTYPE_I8, -128, 127, 1, 9);
  conv_run("cvm i32 x i32", 0, 0, 333, 41, 0, 0, 0, TI_DTYPE_I32, TI_DTYPE_I32, -100000, 100000, 1, 10);
}

/* ---- element-wise and window kernels ----------------------------------- */

typedef struct elt_case {
  int op;  /* 0 CADD, 1 CVVH, 2 CAX, 3 CVS, 4 CAVG, 5 CCMPB, 6 CCMPS, 7 CLUT, 8 CLIF */
  ti_prim_desc d;
  const void *in[3];
  const void *b, *bias;
  const int32_t *lut, *v0;
  ti_lif_params lif;
  size_t n_out;
} elt_case;

static ti_status call_elt(const ti_kernel_ctx *ctx, const void *c, void *out) {
  const elt_case *e = (const elt_case *)c;
  switch (e->op) {
  case 0: return ti_cadd(ctx, &e->d, e->in, e->bias, out);
  case 1: return ti_cvvh(ctx, &e->d, e->in[0], e->b, e->bias, out);
  case 2: return ti_cax(ctx, &e->d, e->in[0], e->b, e->bias, out);
  case 3: return ti_cvs(ctx, &e->d, e->in[0], e->bias, out);
  case 4: return ti_cavg(ctx, &e->d, e->in[0], e->bias, out);
  case 5: return ti_ccmpb(ctx, &e->d, e->in[0], out);
  case 6: return ti_ccmps(ctx, &e->d, e->in[0], out);
  case 7: return ti_clut(ctx, &e->d, e->in[0], e->lut, (int32_t *)out);
  default: {  /* out = spikes, then the updated potentials */
    int32_t *v = (int32_t *)out + e->n_out;
    memcpy(v, e->v0, e->n_out * 4);
    return ti_clif(ctx, &e->d, &e->lif, e->in[0], v, (int32_t *)out);
  }
  }
}

/* geo (windows): ny, nx, nf, window k x k, stride, padding on every side;
   NULL: 13 x 17 x 37 outputs of a 3x3 stride-2 window padded top-left. */
static void elt_run_geo(const char *name, int op, ti_dtype t, int window, const int *geo, uint64_t seed) {
  static const int32_t big = 1 << 16;
  elt_case e;
  tt_rng r;
  size_t n, ni, i, ob;
  void *a[3], *b, *bias;
  int32_t *lut = (int32_t *)malloc((size_t)big * 4), *v0;
  memset(&e, 0, sizeof e);
  r.s = seed;
  e.op = op;
  e.d.ny = 13; e.d.nx = 17; e.d.nf = 37; e.d.in_dtype = e.d.w_dtype = t;
  e.d.out_dtype = t == TI_DTYPE_F32 ? TI_DTYPE_F32 : TI_DTYPE_I32;
  e.d.bias_mode = op >= 5 ? TI_BIAS_NONE : TI_BIAS_VECTOR;
  e.d.n_branch = 3; e.d.constant_a = -7;
  if (window) {
    e.d.niy = 26; e.d.nix = 34; e.d.nky = e.d.nkx = 3; e.d.stride_y = e.d.stride_x = 2;
    e.d.pad_up = e.d.pad_left = 1; e.d.pad_down = e.d.pad_right = 0;
    if (geo) {
      e.d.ny = geo[0]; e.d.nx = geo[1]; e.d.nf = geo[2]; e.d.nky = e.d.nkx = geo[3];
      e.d.stride_y = e.d.stride_x = geo[4];
      e.d.pad_up = e.d.pad_left = e.d.pad_down = e.d.pad_right = geo[5];
      e.d.niy = (geo[0] - 1) * geo[4] + geo[3] - 2 * geo[5];
      e.d.nix = (geo[1] - 1) * geo[4] + geo[3] - 2 * geo[5];
    }
    e.d.cmp = op == 6 ? 100 : -100; e.d.bit_shift = t == TI_DTYPE_F32 ? 0 : 3;
    if (op == 5) e.d.out_dtype = t == TI_DTYPE_F32 ? TI_DTYPE_F32 : TI_DTYPE_I8;
  }
  if (op == 7) e.d.lut_dw = 12;
  n = (size_t)e.d.ny * e.d.nx * e.d.nf;
  ni = window ? (size_t)e.d.niy * e.d.nix * e.d.nf : n;
  for (i = 0; i < 3; i++) { a[i] = malloc(ni * 4); fill_i(&r, a[i], t, ni, -3000, 3000); e.in[i] = a[i]; }
  b = malloc(n * 4); fill_i(&r, b, t, n, -3000, 3000); e.b = b;
  bias = malloc((size_t)e.d.nf * 4); fill_i(&r, bias, t, (size_t)e.d.nf, -3000, 3000); e.bias = bias;
  for (i = 0; i < (size_t)big; i++) lut[i] = (int32_t)tt_range(&r, -1000000, 1000000);
  e.lut = lut;
  v0 = (int32_t *)malloc(n * 4);
  for (i = 0; i < n; i++) v0[i] = (int32_t)tt_range(&r, -1000, 1000);
  e.v0 = v0;
  ti_lif_params_init(&e.lif);
  e.lif.vth0 = 500; e.lif.vr = -20; e.lif.dv = 3; e.lif.reset_mode = 1;
  e.n_out = n;
  ob = op == 5 ? ti_ccmpb_out_size(&e.d) : 4;   /* CCMPB writes out_dtype's storage */
  if (halves_mode) check_halves(name, call_elt, &e, n * ob, (size_t)e.d.nf * ob);
  else check_splits(name, call_elt, &e, (op == 8 ? 2 * n : n) * ob, SIMD_SPLITS);
  if (geo && !halves_mode) {   /* the row pieces also equal the reference */
    unsigned char *want = (unsigned char *)malloc(n * 4), *got = (unsigned char *)malloc(n * 4);
    ti_kernel_ctx ctx;
    ti_kernel_ctx_init(&ctx);
    memset(want, 0x5a, n * 4); memset(got, 0xa5, n * 4);
    TT_CHECK(call_elt(&ctx, &e, got) == TI_STATUS_SUCCESS);
    TT_CHECK((op == 4 ? ti_cavg_ref(&e.d, e.in[0], e.bias, want) : op == 5 ? ti_ccmpb_ref(&e.d, e.in[0], want)
              : ti_ccmps_ref(&e.d, e.in[0], want)) == TI_STATUS_SUCCESS);
    TT_CHECK_MSG(memcmp(got, want, n * ob) == 0, "%s: differs from the reference", name);
    free(want); free(got);
  }
  for (i = 0; i < 3; i++) free(a[i]);
  free(b); free(bias); free(lut); free(v0);
}

static void elt_run(const char *name, int op, ti_dtype t, int window, uint64_t seed) {
  elt_run_geo(name, op, t, window, NULL, seed);
}

TT_TEST(eltwise_splits) {
  /* few long rows: windows split inside a row, in 16-pixel groups */
  static const int one_row[6] = {1, 700, 8, 1, 1, 0}, padded[6] = {3, 150, 37, 3, 1, 1}, strided[6] = {2, 90, 37, 2, 2, 0};
  elt_run("cadd i32", 0, TI_DTYPE_I32, 0, 11);
  elt_run("cadd f32", 0, TI_DTYPE_F32, 0, 12);
  elt_run("cadd i8", 0, TI_DTYPE_I8, 0, 13);
  elt_run("cvvh i32", 1, TI_DTYPE_I32, 0, 14);
  elt_run("cvvh f32", 1, TI_DTYPE_F32, 0, 15);
  elt_run("cax i32", 2, TI_DTYPE_I32, 0, 16);
  elt_run("cax f32", 2, TI_DTYPE_F32, 0, 17);
  elt_run("cvs i32", 3, TI_DTYPE_I32, 0, 18);
  elt_run("cavg i32 3x3 s2", 4, TI_DTYPE_I32, 1, 19);
  elt_run("cavg f32 3x3 s2", 4, TI_DTYPE_F32, 1, 20);
  elt_run("ccmpb i32 3x3 s2", 5, TI_DTYPE_I32, 1, 21);
  elt_run("ccmpb f32 3x3 s2", 5, TI_DTYPE_F32, 1, 22);
  elt_run("ccmps i32 3x3 s2", 6, TI_DTYPE_I32, 1, 23);
  elt_run_geo("ccmpb i32 1x1 on one row of 700 px", 5, TI_DTYPE_I32, 1, one_row, 26);
  elt_run_geo("ccmpb i8 1x1 on one row of 700 px", 5, TI_DTYPE_I8, 1, one_row, 27);
  elt_run_geo("cavg i32 3x3 pad 1 on 3 rows of 150 px", 4, TI_DTYPE_I32, 1, padded, 28);
  elt_run_geo("cavg f32 3x3 pad 1 on 3 rows of 150 px", 4, TI_DTYPE_F32, 1, padded, 29);
  elt_run_geo("ccmps i32 3x3 pad 1 on 3 rows of 150 px", 6, TI_DTYPE_I32, 1, padded, 30);
  elt_run_geo("ccmpb f32 2x2 s2 on 2 rows of 90 px", 5, TI_DTYPE_F32, 1, strided, 31);
  elt_run("clut i32", 7, TI_DTYPE_I32, 0, 24);
  elt_run("clif i32", 8, TI_DTYPE_I32, 0, 25);
}

/* ---- TinShift -------------------------------------------------------------- */

typedef struct ts_case { ti_tinshift_mode mode; ti_tensor_desc xd, sd; const void *x; const int32_t *s; } ts_case;

static ti_status call_ts(const ti_kernel_ctx *ctx, const void *c, void *out) {
  const ts_case *k = (const ts_case *)c;
  return ti_tinshift_ex(ctx, k->mode, &k->xd, k->x, &k->sd, k->s, &k->xd, out);
}

static void ts_run(const char *name, ti_dtype t, int64_t N, int64_t T, int64_t C, int64_t HW, int64_t G, uint64_t seed) {
  ts_case k;
  tt_rng r;
  int64_t xdims[4], sdims[2];
  size_t n = (size_t)(N * T * C * HW), i, es = ti_dtype_size(t);
  unsigned char *x = (unsigned char *)malloc(n * es);
  int32_t *s = (int32_t *)malloc((size_t)(N * G) * 4);
  int m;
  r.s = seed;
  for (i = 0; i < n * es; i++) x[i] = (unsigned char)tt_range(&r, 0, 255);
  for (i = 0; i < (size_t)(N * G); i++) s[i] = (int32_t)tt_range(&r, -T - 1, T + 1);
  xdims[0] = N; xdims[1] = T; xdims[2] = C; xdims[3] = HW; sdims[0] = N; sdims[1] = G;
  ti_tensor_desc_set(&k.xd, t, 4, xdims);
  ti_tensor_desc_set(&k.sd, TI_DTYPE_I32, 2, sdims);
  k.x = x; k.s = s;
  for (m = 0; m < TI_TINSHIFT_MODE_COUNT; m++) {
    k.mode = (ti_tinshift_mode)m;
    check_splits(name, call_ts, &k, n * es, 1);
  }
  free(x); free(s);
}

/* The blocks of a ResNet-like graph (convs, the requantisation, the residual
   add, pooling): the first half of a split range writes the first pixels. */
TT_TEST(halves_follow_the_pixels) {
  static const int rows[6] = {32, 32, 32, 1, 1, 0}, one_row[6] = {1, 700, 8, 1, 1, 0};
  halves_mode = 1;
  conv_run("cc i8 3x3 p1 (weights in L1)", 17, 15, 32, 40, 3, 1, 1, TI_DTYPE_I8, TI_DTYPE_I8, -128, 127, 0, 31);
  conv_run("cc i8 3x3 64->128 (pixel-tile blocks)", 40, 36, 64, 128, 3, 1, 1, TI_DTYPE_I8, TI_DTYPE_I8, -128, 127, 0, 32);
  conv_run("cc u8 3ch 3x3 s2 (window rows)", 21, 19, 3, 16, 3, 2, 1, TI_DTYPE_U8, TI_DTYPE_I8, 0, 255, 0, 33);
  elt_run("cadd i32", 0, TI_DTYPE_I32, 0, 34);
  elt_run("cadd i8", 0, TI_DTYPE_I8, 0, 35);
  elt_run_geo("ccmpb i32 1x1 32x32x32", 5, TI_DTYPE_I32, 1, rows, 36);
  elt_run_geo("ccmpb i32 1x1 on one row of 700 px", 5, TI_DTYPE_I32, 1, one_row, 37);
  elt_run("ccmpb i32 3x3 s2", 5, TI_DTYPE_I32, 1, 38);
  elt_run("cavg i32 3x3 s2", 4, TI_DTYPE_I32, 1, 39);
  halves_mode = 0;
}

TT_TEST(tinshift_splits) {
  ts_run("tinshift f32 HW 7", TI_DTYPE_F32, 3, 5, 24, 7, 4, 31);
  ts_run("tinshift f16 HW 1", TI_DTYPE_F16, 2, 9, 256, 1, 8, 32);
  ts_run("tinshift f32 64-byte runs", TI_DTYPE_F32, 2, 6, 128, 1, 8, 33);
}

/* ---- transpose and the rearrangements ----------------------------------- */

typedef struct ra_case {
  int kind, np, ndim;
  size_t es;
  ti_rearrange_param p[2];
  int64_t dims[8], od[8];
  int on;
  const void *in;
  int perm[8];
} ra_case;

static ti_status call_tr(const ti_kernel_ctx *ctx, const void *c, void *out) {
  const ra_case *k = (const ra_case *)c;
  return ti_transpose_ex(ctx, k->es, k->ndim, k->dims, k->perm, k->in, out);
}
static ti_status call_ra(const ti_kernel_ctx *ctx, const void *c, void *out) {
  const ra_case *k = (const ra_case *)c;
  return ti_rearrange_apply_ex(ctx, (ti_rearrange_kind)k->kind, k->p, k->np, k->es, k->ndim, k->dims, k->in, k->on, k->od, out);
}

static unsigned char *rand_bytes(size_t n, uint64_t seed) {
  unsigned char *p = (unsigned char *)malloc(n);
  tt_rng r;
  size_t i;
  r.s = seed;
  for (i = 0; i < n; i++) p[i] = (unsigned char)tt_range(&r, 0, 255);
  return p;
}

static void tr_run(const char *name, size_t es, int ndim, const int64_t *dims, const int *perm) {
  ra_case k;
  size_t n = 1;
  int i;
  unsigned char *in;
  memset(&k, 0, sizeof k);
  k.es = es; k.ndim = ndim;
  for (i = 0; i < ndim; i++) { k.dims[i] = dims[i]; k.perm[i] = perm[i]; n *= (size_t)dims[i]; }
  in = rand_bytes(n * es, (uint64_t)n);
  k.in = in;
  check_splits(name, call_tr, &k, n * es, 1);
  free(in);
}

TT_TEST(transpose_splits) {
  static const int64_t d1[4] = {5, 6, 7, 8}, d2[3] = {67, 45, 3}, d3[2] = {600, 520}, d4[2] = {300, 1000};
  static const int p1[4] = {3, 1, 0, 2}, p2[3] = {1, 0, 2}, p3[2] = {1, 0}, p4[2] = {0, 1};
  tr_run("transpose 4-d f32", 4, 4, d1, p1);
  tr_run("transpose kept inner axis u16", 2, 3, d2, p2);
  tr_run("transpose 2-d u8", 1, 2, d3, p3);
  tr_run("transpose 2-d f64", 8, 2, d3, p3);
  tr_run("transpose unchanged order (pieces)", 4, 2, d4, p4);
}

/* big enough that every kind has more than one unit of work (a copy of
   more than 256 KiB, several transpose blocks) */
#define RA_D0 96
#define RA_D1 110
#define RA_D2 7
#define RA_VOL (RA_D0 * RA_D1 * RA_D2)

static void ra_run(const char *name, int kind, const int32_t *m0, int n0, const int32_t *m1, int n1,
                   const float *f0, int nf0) {
  static const int64_t dims[3] = {RA_D0, RA_D1, RA_D2};
  ra_case k;
  size_t n = 1;
  int i;
  unsigned char *in;
  const char *why = NULL;
  memset(&k, 0, sizeof k);
  k.kind = kind; k.es = 4; k.ndim = 3;
  for (i = 0; i < 3; i++) k.dims[i] = dims[i];
  k.p[0].i32 = m0; k.p[0].n_i32 = n0; k.p[0].f32 = f0; k.p[0].n_f32 = nf0;
  k.p[1].i32 = m1; k.p[1].n_i32 = n1;
  k.np = m1 ? 2 : (m0 || f0) ? 1 : 0;
  TT_CHECK_MSG(ti_rearrange_infer_ex(kind, k.p, k.np, 3, k.dims, &k.on, k.od, &why) == TI_STATUS_SUCCESS,
               "%s: %s", name, why ? why : "");
  for (i = 0; i < k.on; i++) n *= (size_t)k.od[i];
  in = rand_bytes(RA_VOL * 4, (uint64_t)kind + 100);
  k.in = in;
  check_splits(name, call_ra, &k, n * 4, 1);
  free(in);
}

TT_TEST(rearrange_splits) {
  static const int32_t perm[3] = {2, 0, 1}, rot[1] = {1}, rot3[3] = {3, 1, 2}, sh[2] = {2, -3};
  static const int32_t cyc[1] = {TI_SHIFT_CYCLIC}, sc[3] = {2, 1, 3}, shear[2] = {0, -2}, refl[2] = {0, 2};
  static const int32_t od2[2] = {100, 90}, shuf_axis[1] = {1};
  static const float aff[6] = {1.0f, 0.3f, 1.0f, 0.2f, 1.0f, -2.0f};
  static const float proj[9] = {1.0f, 0.1f, 0.5f, 0.05f, 1.0f, -1.0f, 0.01f, 0.02f, 1.0f};
  int32_t shuf[RA_D1], *shuf_all = (int32_t *)malloc(RA_VOL * 4);
  int i;
  for (i = 0; i < RA_D1; i++) shuf[i] = i % 4 == 3 ? -1 : (i * 7) % RA_D1;
  for (i = 0; i < RA_VOL; i++) shuf_all[i] = i % 9 == 4 ? -1 : (int32_t)(((int64_t)i * 37) % RA_VOL);
  ra_run("identity", TI_REARRANGE_IDENTITY, NULL, 0, NULL, 0, NULL, 0);
  ra_run("reshape", TI_REARRANGE_RESHAPE, NULL, 0, NULL, 0, NULL, 0);
  ra_run("permute", TI_REARRANGE_PERMUTE, perm, 3, NULL, 0, NULL, 0);
  ra_run("rotate 1", TI_REARRANGE_ROTATE, rot, 1, NULL, 0, NULL, 0);
  ra_run("rotate 3 axes (1,2)", TI_REARRANGE_ROTATE, rot3, 3, NULL, 0, NULL, 0);
  ra_run("shift zero", TI_REARRANGE_SHIFT, sh, 2, NULL, 0, NULL, 0);
  ra_run("shift cyclic", TI_REARRANGE_SHIFT, sh, 2, cyc, 1, NULL, 0);
  ra_run("scale", TI_REARRANGE_SCALE, sc, 3, NULL, 0, NULL, 0);
  ra_run("shear", TI_REARRANGE_SHEAR, shear, 2, NULL, 0, NULL, 0);
  ra_run("reflect", TI_REARRANGE_REFLECT, refl, 2, NULL, 0, NULL, 0);
  ra_run("affine", TI_REARRANGE_AFFINE, NULL, 0, od2, 2, aff, 6);
  ra_run("project", TI_REARRANGE_PROJECT, NULL, 0, NULL, 0, proj, 9);
  ra_run("shuffle along an axis", TI_REARRANGE_SHUFFLE, shuf, RA_D1, shuf_axis, 1, NULL, 0);
  ra_run("shuffle flat", TI_REARRANGE_SHUFFLE, shuf_all, RA_VOL, NULL, 0, NULL, 0);
  free(shuf_all);
}

int main(void) {
  TT_RUN(conv_splits);
  TT_RUN(eltwise_splits);
  TT_RUN(halves_follow_the_pixels);
  TT_RUN(tinshift_splits);
  TT_RUN(transpose_splits);
  TT_RUN(rearrange_splits);
  return tt_finish();
}
