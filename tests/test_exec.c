/* The executor: fixtures through the API (.txt and .pb, outputs and every
   block), hand-built graphs for what the fixtures do not cover (interfaces
   with positions and sizes, every rearrangement against a naive version,
   CLIF over many steps, several sockets, 1-D and 3-D forms), bad input,
   memory reuse. */
#define TASKIR_IMPLEMENTATION
#include "taskir_proto.h"
#include "taskir_exec.h"
#include "tt.h"
#include "tt_task.h"
#include <math.h>

/* --- helpers ------------------------------------------------------------- */

static void attr(ti_task_graph *g, int32_t id, ti_attr_type a, int32_t v) { TT_EQ_INT(ti_task_add_attr(g, B(g, id), a, v), 0); }
static void socket_of(ti_task_graph *g, int32_t id, int32_t s) { B(g, id)->has |= TI_BLOCK_HAS_SOCKET_ID; B(g, id)->socket_id = s; }
static void data(ti_task_graph *g, int32_t id, ti_dtype p, int32_t nd, const int32_t *dims, const int32_t *v) {
  TT_EQ_INT(ti_task_set_data(g, B(g, id), p, nd, dims, v), 0);
}
static ti_task_edge *link(ti_task_graph *g, int32_t s, int32_t sc, const ti_task_shape *sp, const ti_task_shape *ss,
                          int32_t d, int32_t dc, const ti_task_shape *dp, const ti_task_shape *ds) {
  ti_task_edge *e = ti_task_connect(g, B(g, s), sc, sp, ss, B(g, d), dc, dp, ds);
  TT_CHECK(e != NULL);
  return e;
}
static void link0(ti_task_graph *g, int32_t s, int32_t d, int32_t dc) { link(g, s, 0, NULL, NULL, d, dc, NULL, NULL); }

static ti_exec *plan(const ti_task_graph *g, int keep_all) {
  ti_exec *x = NULL;
  ti_exec_options o;
  ti_error err;
  memset(&err, 0, sizeof err);
  ti_exec_options_init(&o);
  o.keep_all = keep_all;
  if (ti_exec_plan(g, &o, &x, &err) != TI_STATUS_SUCCESS) {
    fprintf(stderr, "    plan: %s\n", err.message);
    return NULL;
  }
  return x;
}

/* OUTPUT socket s equals want[0..n). */
static int output_is(ti_exec *x, int32_t s, const int32_t *want, int64_t n) {
  ti_exec_tensor t;
  ti_error err;
  int64_t k;
  memset(&err, 0, sizeof err);
  if (ti_exec_output(x, s, &t, &err)) { fprintf(stderr, "    output %d: %s\n", (int)s, err.message); return 0; }
  if (t.count != n) { fprintf(stderr, "    output %d: %lld values, want %lld\n", (int)s, (long long)t.count, (long long)n); return 0; }
  for (k = 0; k < n; k++)
    if (ti_exec_tensor_i64(&t, k) != want[k]) {
      fprintf(stderr, "    output %d [%lld] = %lld, want %d\n", (int)s, (long long)k, (long long)ti_exec_tensor_i64(&t, k), (int)want[k]);
      return 0;
    }
  return 1;
}

static int32_t *rand_vals(tt_rng *r, int64_t n, int32_t lo, int32_t hi) {
  int32_t *v = (int32_t *)malloc((size_t)n * sizeof *v);
  int64_t k;
  for (k = 0; k < n; k++) v[k] = (int32_t)tt_range(r, lo, hi);
  return v;
}

/* --- fixtures ------------------------------------------------------------ */

static int64_t read_ints(const char *path, int64_t **out) {
  FILE *f = fopen(path, "rb");
  int64_t n = 0, cap = 4096;
  long long v;
  if (!f) return -1;
  *out = (int64_t *)malloc((size_t)cap * sizeof **out);
  while (fscanf(f, "%lld", &v) == 1) {
    if (n == cap) { cap *= 2; *out = (int64_t *)realloc(*out, (size_t)cap * sizeof **out); }
    (*out)[n++] = v;
  }
  fclose(f);
  return n;
}

static int tensor_matches(const ti_exec_tensor *t, const char *path) {
  int64_t *want = NULL, n = read_ints(path, &want), k;
  int ok = n == t->count;
  if (n < 0) { fprintf(stderr, "    cannot read %s\n", path); return 0; }
  for (k = 0; ok && k < n; k++)
    if (ti_exec_tensor_i64(t, k) != want[k]) {
      fprintf(stderr, "    %s: [%lld] = %lld, want %lld\n", path, (long long)k, (long long)ti_exec_tensor_i64(t, k), (long long)want[k]);
      ok = 0;
    }
  if (n != t->count) fprintf(stderr, "    %s: %lld values, got %lld\n", path, (long long)n, (long long)t->count);
  free(want);
  return ok;
}

TT_TEST(test_fixtures) {
  static const char *cases[] = {"cadd", "cavg", "cax", "cc", "ccmpb", "clut", "cvm", "cvs", "cvvh"};
  static const char *forms[] = {"txt", "pb"};
  char path[1024];
  int c, f, keep, found = 0;
  for (c = 0; c < (int)(sizeof cases / sizeof *cases); c++)
    for (f = 0; f < 2; f++) {
      ti_task_graph g;
      ti_error err;
      FILE *probe;
      snprintf(path, sizeof path, "%s/%s.task.%s", tt_fixtures(), cases[c], forms[f]);
      if (!(probe = fopen(path, "rb"))) continue;
      fclose(probe);
      found++;
      memset(&err, 0, sizeof err);
      ti_task_graph_init(&g, NULL);
      TT_EQ_INT(ti_task_read_file(path, &g, &err), 0);
      for (keep = 0; keep < 2; keep++) {
        ti_exec *x = plan(&g, keep);
        int32_t i;
        TT_CHECK_MSG(x != NULL, "%s", path);
        if (!x) continue;
        TT_EQ_INT(ti_exec_run(x, &err), 0);
        for (i = 0; i < ti_exec_num_outputs(x); i++) {
          ti_exec_tensor t;
          TT_EQ_INT(ti_exec_output(x, ti_exec_output_socket(x, i), &t, &err), 0);
          snprintf(path, sizeof path, "%s/expected/%s/o_%d.txt", tt_fixtures(), cases[c], (int)ti_exec_output_block(x, i));
          TT_CHECK_MSG(tensor_matches(&t, path), "%s.%s", cases[c], forms[f]);
        }
        if (keep)
          for (i = 0; i < ti_exec_num_blocks(x); i++) {
            ti_exec_tensor t;
            TT_EQ_INT(ti_exec_block(x, ti_exec_block_id(x, i), &t, &err), 0);
            snprintf(path, sizeof path, "%s/expected/%s/all/%d.txt", tt_fixtures(), cases[c], (int)ti_exec_block_id(x, i));
            TT_CHECK_MSG(tensor_matches(&t, path), "%s.%s block %d", cases[c], forms[f], (int)ti_exec_block_id(x, i));
          }
        /* a second run gives the same (nothing accumulates) */
        if (!keep && ti_exec_num_outputs(x) > 0) {
          ti_exec_tensor t;
          TT_EQ_INT(ti_exec_run(x, &err), 0);
          TT_EQ_INT(ti_exec_output(x, ti_exec_output_socket(x, 0), &t, &err), 0);
          snprintf(path, sizeof path, "%s/expected/%s/o_%d.txt", tt_fixtures(), cases[c], (int)ti_exec_output_block(x, 0));
          TT_CHECK(tensor_matches(&t, path));
        }
        ti_exec_free(x);
      }
      ti_task_graph_free(&g);
    }
  if (!found) TT_SKIP("fixtures not found (set TASKIR_FIXTURES)");
  TT_EQ_INT(found, 18);
}

/* --- interfaces with positions and sizes ---------------------------------- */

/* SI 0 [4][5][6] is split by rows (0..1 -> CVS 1 x3, 2..3 -> CVS 2 x-2 + 7)
   and by channels (4..5 -> CVS 3 x1); the results are concatenated in swapped
   row order into SI 4 [4][5][8] (CVS 1 -> rows 2..3, channels 0..5; CVS 2 ->
   rows 0..1, channels 0..5; CVS 3 -> all rows, channels 6..7), read by OUTPUT
   5; SI 4 also feeds a second consumer: OUTPUT 6 gets its channel-7 plane. */
static void check_interfaces(int with_channels) {
  ti_task_graph g;
  ti_task_shape p, s, p2, s2;
  tt_rng r = {7};
  int32_t dims[3] = {4, 5, 6}, *in = rand_vals(&r, 120, -100, 100), want[160], want6[20], want7[40];
  int32_t y, x, f;
  ti_exec *xp;
  ti_task_graph_init(&g, NULL);
  add(&g, 0, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(4, 5, 6, 0, 0, 0, 0, 0));
  data(&g, 0, TI_DTYPE_I32, 3, dims, in);
  add(&g, 1, TI_BLOCK_CVS, TI_DTYPE_I32, ti_task_shape_make(2, 5, 6, 0, 0, 0, 0, 0)); attr(&g, 1, TI_TASK_ATTR_CONSTANT_A, 3);
  add(&g, 2, TI_BLOCK_CVS, TI_DTYPE_I32, ti_task_shape_make(2, 5, 6, 0, 0, 0, 0, 0)); attr(&g, 2, TI_TASK_ATTR_CONSTANT_A, -2);
  attr(&g, 2, TI_TASK_ATTR_CONSTANT_B, 7); B(&g, 2)->has |= TI_BLOCK_HAS_BIAS_TYPE; B(&g, 2)->bias_type = TI_BIAS_CONSTANT;
  add(&g, 3, TI_BLOCK_CVS, TI_DTYPE_I32, ti_task_shape_make(4, 5, 2, 0, 0, 0, 0, 0)); attr(&g, 3, TI_TASK_ATTR_CONSTANT_A, 1);
  add(&g, 4, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(4, 5, 8, 0, 0, 0, 0, 0));
  add(&g, 5, TI_BLOCK_OUTPUT, TI_DTYPE_I32, ti_task_shape_make(4, 5, 8, 0, 0, 0, 0, 0)); socket_of(&g, 5, 0);
  add(&g, 6, TI_BLOCK_OUTPUT, TI_DTYPE_I32, ti_task_shape_make(4, 5, 1, 0, 0, 0, 0, 0)); socket_of(&g, 6, 1);
  /* split */
  p = ti_task_shape_make(0, 0, 0, 0, 0, 0, 0, 0); s = ti_task_shape_make(2, 5, 6, 0, 0, 0, 0, 0);
  link(&g, 0, 0, &p, &s, 1, 0, NULL, NULL);
  p = ti_task_shape_make(2, 0, 0, 0, 0, 0, 0, 0);
  link(&g, 0, 0, &p, &s, 2, 0, NULL, NULL);
  p = ti_task_shape_make(0, 0, 4, 0, 0, 0, 0, 0); s = ti_task_shape_make(4, 5, 2, 0, 0, 0, 0, 0);
  link(&g, 0, 0, &p, &s, 3, 0, NULL, NULL);
  /* concat */
  p = ti_task_shape_make(2, 0, 0, 0, 0, 0, 0, 0); s = ti_task_shape_make(2, 5, 6, 0, 0, 0, 0, 0);
  link(&g, 1, 0, NULL, NULL, 4, 0, &p, &s);
  p = ti_task_shape_make(0, 0, 0, 0, 0, 0, 0, 0);
  link(&g, 2, 0, NULL, NULL, 4, 0, &p, &s);
  if (with_channels) {
    p2 = ti_task_shape_make(0, 0, 6, 0, 0, 0, 0, 0); s2 = ti_task_shape_make(4, 5, 2, 0, 0, 0, 0, 0);
    link(&g, 3, 0, NULL, NULL, 4, 0, &p2, &s2);
  } else {   /* channels 6..7 of SI 4 stay uncovered: they read 0 */
    add(&g, 7, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(4, 5, 2, 0, 0, 0, 0, 0));
    add(&g, 8, TI_BLOCK_OUTPUT, TI_DTYPE_I32, ti_task_shape_make(4, 5, 2, 0, 0, 0, 0, 0)); socket_of(&g, 8, 2);
    link0(&g, 3, 7, 0); link0(&g, 7, 8, 0);
  }
  link0(&g, 4, 5, 0);
  p = ti_task_shape_make(0, 0, 7, 0, 0, 0, 0, 0); s = ti_task_shape_make(4, 5, 1, 0, 0, 0, 0, 0);
  link(&g, 4, 0, &p, &s, 6, 0, NULL, NULL);
  for (y = 0; y < 4; y++)
    for (x = 0; x < 5; x++)
      for (f = 0; f < 8; f++) {
        int32_t v;
        if (f >= 6) v = with_channels ? in[(y * 5 + x) * 6 + (f - 2)] : 0;
        else if (y >= 2) v = 3 * in[((y - 2) * 5 + x) * 6 + f];
        else v = -2 * in[((y + 2) * 5 + x) * 6 + f] + 7;
        want[(y * 5 + x) * 8 + f] = v;
        if (f == 7) want6[y * 5 + x] = v;
        if (f >= 6) want7[(y * 5 + x) * 2 + f - 6] = in[(y * 5 + x) * 6 + (f - 2)];
      }
  xp = plan(&g, 0);
  TT_CHECK(xp != NULL);
  if (xp) {
    ti_error err;
    memset(&err, 0, sizeof err);
    TT_EQ_INT(ti_exec_run(xp, &err), 0);
    TT_CHECK(output_is(xp, 0, want, 160));
    TT_CHECK(output_is(xp, 1, want6, 20));
    if (!with_channels) TT_CHECK(output_is(xp, 2, want7, 40));
    ti_exec_free(xp);
  }
  free(in);
  ti_task_graph_free(&g);
}

TT_TEST(test_interfaces) {
  check_interfaces(1);
  check_interfaces(0);
}

/* --- rearrangements against a naive version -------------------------------- */

/* The semantics documented in taskir_kernels.h (kernels.rearrange), written
   out plainly for [Y][X][C] data, m0/m1 the first two parameter tensors (m1
   NULL when absent). Sets the output dims (RESHAPE's flat result is given as
   the permuted dims, same row-major order). */
static void naive_rearrange(int kind, const int32_t *m0, int n0, const int32_t *m1, int n1, int Y, int X, int C,
                            const int32_t *in, int *oy, int *ox, int *oc, int32_t *out) {
  int y, x, c, k = 0, d[3], i0, i1, i2;
  d[0] = Y; d[1] = X; d[2] = C;
  *oy = Y; *ox = X; *oc = C;
#define IN(a, b, e) in[((a) * X + (b)) * C + (e)]
  switch (kind) {
  case TI_REARRANGE_RESHAPE: {   /* m0: axes fastest .. slowest */
    int idx[3];
    *oy = d[m0[2]]; *ox = d[m0[1]]; *oc = d[m0[0]];
    for (i2 = 0; i2 < d[m0[2]]; i2++)
      for (i1 = 0; i1 < d[m0[1]]; i1++)
        for (i0 = 0; i0 < d[m0[0]]; i0++) {
          idx[m0[2]] = i2; idx[m0[1]] = i1; idx[m0[0]] = i0;
          out[k++] = IN(idx[0], idx[1], idx[2]);
        }
    break;
  }
  case TI_REARRANGE_PERMUTE: {
    int idx[3];
    *oy = d[m0[0]]; *ox = d[m0[1]]; *oc = d[m0[2]];
    for (i0 = 0; i0 < d[m0[0]]; i0++)
      for (i1 = 0; i1 < d[m0[1]]; i1++)
        for (i2 = 0; i2 < d[m0[2]]; i2++) {
          idx[m0[0]] = i0; idx[m0[1]] = i1; idx[m0[2]] = i2;
          out[k++] = IN(idx[0], idx[1], idx[2]);
        }
    break;
  }
  case TI_REARRANGE_ROTATE: {   /* one quarter turn at a time, like numpy.rot90 */
    int32_t buf[4096], cur[4096];
    int cy = Y, cx = X, t, turns = ((m0[0] % 4) + 4) % 4;
    memcpy(cur, in, sizeof(int32_t) * (size_t)(Y * X * C));
    for (t = 0; t < turns; t++) {   /* new[i][j] = old[j][cx-1-i], new dims [cx][cy] */
      for (y = 0; y < cx; y++)
        for (x = 0; x < cy; x++)
          for (c = 0; c < C; c++) buf[(y * cy + x) * C + c] = cur[(x * cx + (cx - 1 - y)) * C + c];
      memcpy(cur, buf, sizeof(int32_t) * (size_t)(Y * X * C));
      k = cy; cy = cx; cx = k;
    }
    *oy = cy; *ox = cx;
    memcpy(out, cur, sizeof(int32_t) * (size_t)(Y * X * C));
    break;
  }
  case TI_REARRANGE_SHIFT: {
    int dy = n0 > 0 ? m0[0] : 0, dx = n0 > 1 ? m0[1] : 0, dc = n0 > 2 ? m0[2] : 0, cyc = m1 && n1 > 0 && m1[0] == 1;
    for (y = 0; y < Y; y++) for (x = 0; x < X; x++) for (c = 0; c < C; c++) {
      int sy = y - dy, sx = x - dx, sc = c - dc;
      if (cyc) { sy = ((sy % Y) + Y) % Y; sx = ((sx % X) + X) % X; sc = ((sc % C) + C) % C; }
      out[k++] = sy >= 0 && sy < Y && sx >= 0 && sx < X && sc >= 0 && sc < C ? IN(sy, sx, sc) : 0;
    }
    break;
  }
  case TI_REARRANGE_SCALE: {
    int sy = n0 > 0 ? m0[0] : 1, sx = n0 > 1 ? m0[1] : 1, sc = n0 > 2 ? m0[2] : 1;
    *oy = Y * sy; *ox = X * sx; *oc = C * sc;
    for (y = 0; y < *oy; y++) for (x = 0; x < *ox; x++) for (c = 0; c < *oc; c++) out[k++] = IN(y / sy, x / sx, c / sc);
    break;
  }
  case TI_REARRANGE_SHEAR: {   /* forward: out[y + a*x + oy][x] or out[y][x + b*y + ox] */
    int a = m0[0], b = m0[1], offy = 0, offx = 0;
    if (a) { *oy = Y + abs(a) * (X - 1); offy = -a * (X - 1) > 0 ? -a * (X - 1) : 0; }
    if (b) { *ox = X + abs(b) * (Y - 1); offx = -b * (Y - 1) > 0 ? -b * (Y - 1) : 0; }
    memset(out, 0, sizeof(int32_t) * (size_t)(*oy * *ox * C));
    for (y = 0; y < Y; y++) for (x = 0; x < X; x++) for (c = 0; c < C; c++) {
      int ty = a ? y + a * x + offy : y, tx = b ? x + b * y + offx : x;
      out[(ty * *ox + tx) * C + c] = IN(y, x, c);
    }
    break;
  }
  case TI_REARRANGE_REFLECT: {
    int flip[3] = {0, 0, 0};
    for (k = 0; k < n0; k++) flip[m0[k]] = 1;
    k = 0;
    for (y = 0; y < Y; y++) for (x = 0; x < X; x++) for (c = 0; c < C; c++)
      out[k++] = IN(flip[0] ? Y - 1 - y : y, flip[1] ? X - 1 - x : x, flip[2] ? C - 1 - c : c);
    break;
  }
  case TI_REARRANGE_AFFINE: case TI_REARRANGE_PROJECT: {
    double A[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    if (m1) { *oy = m1[0]; *ox = m1[1]; }
    if (kind == TI_REARRANGE_PROJECT) {   /* adjugate of H */
      const int32_t *h = m0;
      A[0] = (double)h[4] * h[8] - (double)h[5] * h[7]; A[1] = (double)h[2] * h[7] - (double)h[1] * h[8];
      A[2] = (double)h[1] * h[5] - (double)h[2] * h[4]; A[3] = (double)h[5] * h[6] - (double)h[3] * h[8];
      A[4] = (double)h[0] * h[8] - (double)h[2] * h[6]; A[5] = (double)h[2] * h[3] - (double)h[0] * h[5];
      A[6] = (double)h[3] * h[7] - (double)h[4] * h[6]; A[7] = (double)h[1] * h[6] - (double)h[0] * h[7];
      A[8] = (double)h[0] * h[4] - (double)h[1] * h[3];
    }
    for (y = 0; y < *oy; y++) for (x = 0; x < *ox; x++) {
      double sy, sx;
      int iy, ix, ok;
      if (kind == TI_REARRANGE_AFFINE) {
        double v = y - m0[2], u = x - m0[5], det = (double)m0[0] * m0[4] - (double)m0[1] * m0[3];
        sy = ((double)m0[4] * v - (double)m0[1] * u) / det;
        sx = ((double)m0[0] * u - (double)m0[3] * v) / det;
        ok = 1;
      } else {
        double YY = A[0] * y + A[1] * x + A[2], XX = A[3] * y + A[4] * x + A[5], ZZ = A[6] * y + A[7] * x + A[8];
        ok = ZZ != 0;
        sy = ok ? YY / ZZ : 0; sx = ok ? XX / ZZ : 0;
      }
      iy = (int)floor(sy + .5); ix = (int)floor(sx + .5);
      ok = ok && iy >= 0 && iy < Y && ix >= 0 && ix < X;
      for (c = 0; c < C; c++) out[(y * *ox + x) * C + c] = ok ? IN(iy, ix, c) : 0;
    }
    break;
  }
  case TI_REARRANGE_SHUFFLE:
    if (m1) {   /* gather along axis m1[0] */
      int ax = m1[0];
      if (ax == 0) *oy = n0; else if (ax == 1) *ox = n0; else *oc = n0;
      for (y = 0; y < *oy; y++) for (x = 0; x < *ox; x++) for (c = 0; c < *oc; c++) {
        int j = ax == 0 ? m0[y] : ax == 1 ? m0[x] : m0[c];
        out[k++] = j < 0 ? 0 : IN(ax == 0 ? j : y, ax == 1 ? j : x, ax == 2 ? j : c);
      }
    } else {
      for (k = 0; k < n0; k++) out[k] = m0[k] < 0 ? 0 : in[m0[k]];
    }
    break;
  default:   /* IDENTITY */
    memcpy(out, in, sizeof(int32_t) * (size_t)(Y * X * C));
    break;
  }
#undef IN
}

static void add_rearrange(ti_task_graph *g, ti_task_edge *e, int kind, const int32_t *m0, int n0, const int32_t *m1, int n1) {
  int32_t d0[1];
  d0[0] = n0;
  TT_EQ_INT(ti_task_add_rearrange(g, e, (ti_rearrange_kind)kind, n0 ? 1 : 0, d0, m0, n0), 0);
  if (m1) {   /* a second parameter tensor */
    ti_task_rearrange *r = &e->rearrange[e->n_rearrange - 1];
    ti_task_tensor *mt = (ti_task_tensor *)ti_arena_array(&g->arena, 2, sizeof *mt, 8);
    int32_t *dd = (int32_t *)ti_arena_alloc(&g->arena, 4, 4), *vv = (int32_t *)ti_arena_array(&g->arena, (size_t)n1, 4, 4);
    memset(mt, 0, 2 * sizeof *mt);
    if (r->n_matrix) mt[0] = r->matrix[0];
    *dd = n1;
    memcpy(vv, m1, (size_t)n1 * 4);
    mt[1].has = TI_TENSOR_HAS_PRECISION; mt[1].precision = TI_DTYPE_I32; mt[1].n_dims = 1; mt[1].dims = dd;
    mt[1].int32_data.count = n1; mt[1].int32_data.storage = TI_DTYPE_I32; mt[1].int32_data.data = vv;
    r->matrix = mt; r->n_matrix = 2;
  }
}

/* SI [Y][X][C] -edge(kind, params)-> CVS x1 shaped like the result -> SI -> OUTPUT */
static void check_rearrange(int kind, const int32_t *m0, int n0, const int32_t *m1, int n1, int Y, int X, int C, uint64_t seed) {
  ti_task_graph g;
  tt_rng r;
  int32_t dims[3], *in, want[4096];
  int oy, ox, oc;
  ti_exec *x;
  ti_task_edge *e;
  r.s = seed;
  dims[0] = Y; dims[1] = X; dims[2] = C;
  in = rand_vals(&r, (int64_t)Y * X * C, -1000, 1000);
  naive_rearrange(kind, m0, n0, m1, n1, Y, X, C, in, &oy, &ox, &oc, want);
  ti_task_graph_init(&g, NULL);
  add(&g, 0, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(Y, X, C, 0, 0, 0, 0, 0));
  data(&g, 0, TI_DTYPE_I32, 3, dims, in);
  add(&g, 1, TI_BLOCK_CVS, TI_DTYPE_I32, ti_task_shape_make(oy, ox, oc, 0, 0, 0, 0, 0)); attr(&g, 1, TI_TASK_ATTR_CONSTANT_A, 1);
  add(&g, 2, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(oy, ox, oc, 0, 0, 0, 0, 0));
  add(&g, 3, TI_BLOCK_OUTPUT, TI_DTYPE_I32, ti_task_shape_make(oy, ox, oc, 0, 0, 0, 0, 0)); socket_of(&g, 3, 0);
  e = link(&g, 0, 0, NULL, NULL, 1, 0, NULL, NULL);
  add_rearrange(&g, e, kind, m0, n0, m1, n1);
  link0(&g, 1, 2, 0);
  link0(&g, 2, 3, 0);
  x = plan(&g, 0);
  TT_CHECK_MSG(x != NULL, "%s", ti_rearrange_kind_name(kind));
  if (x) {
    ti_error err;
    memset(&err, 0, sizeof err);
    TT_EQ_INT(ti_exec_run(x, &err), 0);
    TT_CHECK_MSG(output_is(x, 0, want, (int64_t)oy * ox * oc), "%s m0[0]=%d", ti_rearrange_kind_name(kind), n0 ? (int)m0[0] : 0);
    ti_exec_free(x);
  }
  free(in);
  ti_task_graph_free(&g);
}

TT_TEST(test_rearrangements) {
  static const int32_t perms[6][3] = {{2, 1, 0}, {0, 1, 2}, {1, 0, 2}, {2, 0, 1}, {0, 2, 1}, {1, 2, 0}};
  int32_t p[16], q[4];
  int i;
  for (i = 0; i < 6; i++) {
    check_rearrange(TI_REARRANGE_RESHAPE, perms[i], 3, NULL, 0, 3, 4, 5, 11 + (uint64_t)i);
    check_rearrange(TI_REARRANGE_PERMUTE, perms[i], 3, NULL, 0, 4, 2, 3, 21 + (uint64_t)i);
  }
  for (i = -1; i < 4; i++) { p[0] = i; check_rearrange(TI_REARRANGE_ROTATE, p, 1, NULL, 0, 3, 5, 2, 31); }
  p[0] = 1; p[1] = -2; p[2] = 1; q[0] = 0;
  check_rearrange(TI_REARRANGE_SHIFT, p, 3, NULL, 0, 4, 5, 3, 41);
  check_rearrange(TI_REARRANGE_SHIFT, p, 3, q, 1, 4, 5, 3, 42);
  q[0] = 1; check_rearrange(TI_REARRANGE_SHIFT, p, 3, q, 1, 4, 5, 3, 43);
  p[0] = 2; p[1] = 3; p[2] = 1; check_rearrange(TI_REARRANGE_SCALE, p, 3, NULL, 0, 2, 3, 2, 51);
  p[0] = 1; p[1] = 2; check_rearrange(TI_REARRANGE_SCALE, p, 2, NULL, 0, 3, 2, 2, 52);
  p[0] = 1; p[1] = 0; check_rearrange(TI_REARRANGE_SHEAR, p, 2, NULL, 0, 4, 3, 2, 61);
  p[0] = 0; p[1] = -2; check_rearrange(TI_REARRANGE_SHEAR, p, 2, NULL, 0, 3, 4, 2, 62);
  p[0] = 0; check_rearrange(TI_REARRANGE_REFLECT, p, 1, NULL, 0, 3, 4, 3, 71);
  p[0] = 1; p[1] = 2; check_rearrange(TI_REARRANGE_REFLECT, p, 2, NULL, 0, 3, 4, 3, 72);
  p[0] = 2; p[1] = 0; p[2] = 1; check_rearrange(TI_REARRANGE_REFLECT, p, 3, NULL, 0, 3, 4, 3, 73);
  p[0] = 0; p[1] = 1; p[2] = 0; p[3] = 1; p[4] = 0; p[5] = 0;   /* transpose of the plane */
  check_rearrange(TI_REARRANGE_AFFINE, p, 6, NULL, 0, 4, 4, 2, 81);
  p[0] = 1; p[1] = 0; p[2] = 2; p[3] = 0; p[4] = 1; p[5] = -1;   /* translation into a bigger plane */
  q[0] = 6; q[1] = 5; check_rearrange(TI_REARRANGE_AFFINE, p, 6, q, 2, 4, 4, 2, 82);
  p[0] = 2; p[1] = 0; p[2] = 0; p[3] = 0; p[4] = 2; p[5] = 0;    /* up-scaling by 2 */
  q[0] = 6; q[1] = 8; check_rearrange(TI_REARRANGE_AFFINE, p, 6, q, 2, 3, 4, 3, 83);
  p[0] = 1; p[1] = 0; p[2] = 1; p[3] = 0; p[4] = 1; p[5] = -1; p[6] = 0; p[7] = 0; p[8] = 1;
  check_rearrange(TI_REARRANGE_PROJECT, p, 9, NULL, 0, 4, 5, 2, 91);
  p[0] = 1; p[1] = 0; p[2] = 0; p[3] = 0; p[4] = 1; p[5] = 0; p[6] = 0; p[7] = 0; p[8] = 2;   /* halves */
  check_rearrange(TI_REARRANGE_PROJECT, p, 9, NULL, 0, 4, 4, 2, 92);
  p[0] = 2; p[1] = 0; p[2] = -1; p[3] = 1; q[0] = 2;
  check_rearrange(TI_REARRANGE_SHUFFLE, p, 4, q, 1, 2, 3, 3, 101);
  p[0] = 1; p[1] = 1; p[2] = 0; q[0] = 0;
  check_rearrange(TI_REARRANGE_SHUFFLE, p, 3, q, 1, 2, 2, 3, 102);
  for (i = 0; i < 12; i++) p[i] = (i * 5) % 12;   /* a flat permutation */
  p[3] = -1;
  check_rearrange(TI_REARRANGE_SHUFFLE, p, 12, NULL, 0, 2, 2, 3, 103);
  check_rearrange(TI_REARRANGE_IDENTITY, p, 0, NULL, 0, 2, 3, 4, 111);
}

/* Several rearrangements on one edge apply in order. */
TT_TEST(test_rearrange_chain) {
  ti_task_graph g;
  tt_rng r = {5};
  int32_t dims[3] = {3, 4, 2}, rot[1] = {1}, refl[1] = {2}, *in = rand_vals(&r, 24, -50, 50);
  int32_t tmp[4096], want[4096];
  int oy, ox, oc, oy2, ox2, oc2;
  ti_exec *x;
  ti_task_edge *e;
  naive_rearrange(TI_REARRANGE_ROTATE, rot, 1, NULL, 0, 3, 4, 2, in, &oy, &ox, &oc, tmp);
  naive_rearrange(TI_REARRANGE_REFLECT, refl, 1, NULL, 0, oy, ox, oc, tmp, &oy2, &ox2, &oc2, want);
  ti_task_graph_init(&g, NULL);
  add(&g, 0, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(3, 4, 2, 0, 0, 0, 0, 0)); data(&g, 0, TI_DTYPE_I32, 3, dims, in);
  add(&g, 1, TI_BLOCK_CVS, TI_DTYPE_I32, ti_task_shape_make(oy2, ox2, oc2, 0, 0, 0, 0, 0)); attr(&g, 1, TI_TASK_ATTR_CONSTANT_A, 1);
  add(&g, 2, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(oy2, ox2, oc2, 0, 0, 0, 0, 0));
  add(&g, 3, TI_BLOCK_OUTPUT, TI_DTYPE_I32, ti_task_shape_make(oy2, ox2, oc2, 0, 0, 0, 0, 0));
  e = link(&g, 0, 0, NULL, NULL, 1, 0, NULL, NULL);
  add_rearrange(&g, e, TI_REARRANGE_ROTATE, rot, 1, NULL, 0);
  add_rearrange(&g, e, TI_REARRANGE_REFLECT, refl, 1, NULL, 0);
  link0(&g, 1, 2, 0); link0(&g, 2, 3, 0);
  x = plan(&g, 0);
  TT_CHECK(x != NULL);
  if (x) {
    ti_error err;
    memset(&err, 0, sizeof err);
    TT_EQ_INT(ti_exec_run(x, &err), 0);
    TT_CHECK(output_is(x, 3, want, 24));   /* OUTPUT 3 has no socket_id: socket = its id */
    ti_exec_free(x);
  }
  free(in);
  ti_task_graph_free(&g);
}

/* Random chains of one to four rearrangements of every kind (source boxes
   whole or part of the cluster): the plan evaluates each step's inverse in
   closed form; the reference applies the kernels' ti_rearrange_apply step
   by step to the data, as the per-element index map did. */
typedef struct ra_step { int kind, n0, n1; int32_t m0[512], m1[8]; } ra_step;

static int64_t vol_of(int r, const int64_t *d) { int64_t v = 1; int i; for (i = 0; i < r; i++) v *= d[i]; return v; }

static void rand_perm(tt_rng *r, int n, int32_t *p) {
  int i;
  for (i = 0; i < n; i++) p[i] = i;
  for (i = n - 1; i > 0; i--) { int j = (int)tt_range(r, 0, i); int32_t t = p[i]; p[i] = p[j]; p[j] = t; }
}

/* A random step valid on dims (r, d); 0 when the kind does not fit. */
static int rand_step(tt_rng *rg, int r, const int64_t *d, ra_step *s) {
  int64_t v = vol_of(r, d);
  int i;
  s->kind = (int)tt_range(rg, 0, TI_REARRANGE_COUNT - 1); s->n0 = s->n1 = 0;
  switch (s->kind) {
  case TI_REARRANGE_RESHAPE:
    if (tt_range(rg, 0, 3)) { rand_perm(rg, r, s->m0); s->n0 = r; }
    if (tt_range(rg, 0, 1)) {   /* output dims: [a, v / a] for a divisor a */
      int64_t a = tt_range(rg, 1, v);
      while (v % a) a--;
      s->m1[0] = (int32_t)a; s->m1[1] = (int32_t)(v / a); s->n1 = 2;
    }
    return 1;
  case TI_REARRANGE_PERMUTE: rand_perm(rg, r, s->m0); s->n0 = r; return 1;
  case TI_REARRANGE_ROTATE:
    if (r < 2) return 0;
    s->m0[0] = (int32_t)tt_range(rg, -2, 5); s->n0 = 1;
    if (tt_range(rg, 0, 1)) {
      s->m0[1] = (int32_t)tt_range(rg, 0, r - 1);
      do s->m0[2] = (int32_t)tt_range(rg, 0, r - 1); while (s->m0[2] == s->m0[1]);
      s->n0 = 3;
    }
    return 1;
  case TI_REARRANGE_SHIFT:
    s->n0 = (int)tt_range(rg, 0, r);
    for (i = 0; i < s->n0; i++) s->m0[i] = (int32_t)tt_range(rg, -d[i] - 1, d[i] + 1);
    if (tt_range(rg, 0, 1)) { s->m1[0] = (int32_t)tt_range(rg, 0, 1); s->n1 = 1; }
    return 1;
  case TI_REARRANGE_SCALE:
    s->n0 = (int)tt_range(rg, 0, r);
    for (i = 0; i < s->n0; i++) s->m0[i] = (int32_t)tt_range(rg, 1, 2);
    return 1;
  case TI_REARRANGE_SHEAR:
    if (r < 2) return 0;
    s->m0[0] = s->m0[1] = 0; s->m0[tt_range(rg, 0, 1)] = (int32_t)tt_range(rg, -2, 2); s->n0 = 2;
    return 1;
  case TI_REARRANGE_REFLECT:
    rand_perm(rg, r, s->m0); s->n0 = (int)tt_range(rg, 1, r);
    return 1;
  case TI_REARRANGE_AFFINE: case TI_REARRANGE_PROJECT: {
    int n = s->kind == TI_REARRANGE_AFFINE ? 6 : 9;
    if (r < 2) return 0;
    do {
      for (i = 0; i < n; i++) s->m0[i] = (int32_t)tt_range(rg, -2, 2);
      if (n == 9) s->m0[8] = (int32_t)tt_range(rg, 1, 3);
    } while (n == 6 ? s->m0[0] * s->m0[4] - s->m0[1] * s->m0[3] == 0
                    : s->m0[0] * (s->m0[4] * s->m0[8] - s->m0[5] * s->m0[7]) - s->m0[1] * (s->m0[3] * s->m0[8] - s->m0[5] * s->m0[6]) +
                          s->m0[2] * (s->m0[3] * s->m0[7] - s->m0[4] * s->m0[6]) == 0);
    s->n0 = n;
    if (tt_range(rg, 0, 1)) { s->m1[0] = (int32_t)tt_range(rg, 1, 6); s->m1[1] = (int32_t)tt_range(rg, 1, 6); s->n1 = 2; }
    return 1;
  }
  case TI_REARRANGE_SHUFFLE:
    if (tt_range(rg, 0, 1)) {
      int c = (int)tt_range(rg, 0, r - 1);
      s->n0 = (int)tt_range(rg, 1, d[c] + 2);
      for (i = 0; i < s->n0; i++) s->m0[i] = (int32_t)tt_range(rg, -1, d[c] - 1);
      s->m1[0] = c; s->n1 = 1;
    } else {
      if (v > 512) return 0;
      s->n0 = (int)v;
      for (i = 0; i < s->n0; i++) s->m0[i] = (int32_t)tt_range(rg, -1, v - 1);
    }
    return 1;
  default: return 1;   /* IDENTITY */
  }
}

static ti_rearrange_param *step_params(const ra_step *s, ti_rearrange_param *p, int *np) {
  memset(p, 0, 2 * sizeof *p);
  p[0].i32 = s->m0; p[0].n_i32 = s->n0; p[1].i32 = s->m1; p[1].n_i32 = s->n1;
  *np = s->n1 ? 2 : s->n0 ? 1 : 0;
  return p;
}

TT_TEST(test_rearrange_random_chains) {
  tt_rng rg = {2026};
  int trial, ok = 0;
  for (trial = 0; trial < 300; trial++) {
    int32_t Y = (int32_t)tt_range(&rg, 1, 5), X = (int32_t)tt_range(&rg, 1, 5), C = (int32_t)tt_range(&rg, 1, 4), dims[3];
    int32_t by = 0, bx = 0, bh = Y, bw = X, *in, *cur, *nxt, *bufa, *bufb;
    int64_t d[TI_MAX_RANK], nd[TI_MAX_RANK], v0, v;
    int r = 3, nr = (int)tt_range(&rg, 1, 4), i, k, np, nrank;
    ra_step st[4];
    ti_rearrange_param p[2];
    ti_task_graph g;
    ti_task_edge *e;
    ti_exec *x;
    int part = (int)tt_range(&rg, 0, 1);
    dims[0] = Y; dims[1] = X; dims[2] = C;
    if (part) {   /* a box of the source cluster */
      by = (int32_t)tt_range(&rg, 0, Y - 1); bh = (int32_t)tt_range(&rg, 1, Y - by);
      bx = (int32_t)tt_range(&rg, 0, X - 1); bw = (int32_t)tt_range(&rg, 1, X - bx);
    }
    d[0] = bh; d[1] = bw; d[2] = C;
    v0 = vol_of(3, d);
    in = rand_vals(&rg, (int64_t)Y * X * C, -1000, 1000);
    bufa = (int32_t *)malloc(4 * 4096); bufb = (int32_t *)malloc(4 * 4096);
    for (i = 0; i < bh; i++)   /* the box, row-major */
      for (k = 0; k < bw * C; k++) bufa[(i * bw) * C + k] = in[((by + i) * X + bx) * C + k];
    cur = bufa; nxt = bufb;
    for (i = 0; i < nr; i++) {
      do {
        while (!rand_step(&rg, r, d, &st[i])) {}
        step_params(&st[i], p, &np);
      } while (ti_rearrange_infer(st[i].kind, p, np, r, d, &nrank, nd) || (v = vol_of(nrank, nd)) < 1 || v > 4 * v0 || v > 4096);
      TT_EQ_INT(ti_rearrange_apply(st[i].kind, p, np, 4, r, d, cur, nrank, nd, nxt), 0);
      { int32_t *t = cur; cur = nxt; nxt = t; }
      r = nrank;
      for (k = 0; k < r; k++) d[k] = nd[k];
    }
    v = vol_of(r, d);
    ti_task_graph_init(&g, NULL);
    add(&g, 0, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(Y, X, C, 0, 0, 0, 0, 0));
    data(&g, 0, TI_DTYPE_I32, 3, dims, in);
    add(&g, 1, TI_BLOCK_CVS, TI_DTYPE_I32, ti_task_shape_make(1, 1, (int32_t)v, 0, 0, 0, 0, 0)); attr(&g, 1, TI_TASK_ATTR_CONSTANT_A, 1);
    add(&g, 2, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(1, 1, (int32_t)v, 0, 0, 0, 0, 0));
    add(&g, 3, TI_BLOCK_OUTPUT, TI_DTYPE_I32, ti_task_shape_make(1, 1, (int32_t)v, 0, 0, 0, 0, 0)); socket_of(&g, 3, 0);
    if (part) {
      ti_task_shape sp = ti_task_shape_make(by, bx, 0, 0, 0, 0, 0, 0), ss = ti_task_shape_make(bh, bw, C, 0, 0, 0, 0, 0);
      e = link(&g, 0, 0, &sp, &ss, 1, 0, NULL, NULL);
    } else e = link(&g, 0, 0, NULL, NULL, 1, 0, NULL, NULL);
    for (i = 0; i < nr; i++) add_rearrange(&g, e, st[i].kind, st[i].n0 ? st[i].m0 : NULL, st[i].n0, st[i].n1 ? st[i].m1 : NULL, st[i].n1);
    link0(&g, 1, 2, 0); link0(&g, 2, 3, 0);
    x = plan(&g, 0);
    TT_CHECK_MSG(x != NULL, "trial %d", trial);
    if (x) {
      ti_error err;
      memset(&err, 0, sizeof err);
      TT_EQ_INT(ti_exec_run(x, &err), 0);
      if (output_is(x, 0, cur, v)) ok++;
      else TT_CHECK_MSG(0, "trial %d: %d steps, first %s", trial, nr, ti_rearrange_kind_name(st[0].kind));
      ti_exec_free(x);
    }
    ti_task_graph_free(&g);
    free(in); free(bufa); free(bufb);
  }
  TT_EQ_INT(ok, 300);
}

/* --- CLIF over many steps -------------------------------------------------- */

static int32_t clamp28(int64_t v) { return v < -134217728 ? -134217728 : v > 134217727 ? 134217727 : (int32_t)v; }
static int64_t floordiv(int64_t a, int64_t b) { int64_t q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q; }

/* INPUT 0 [2][3][4] -> SI 1 -> CLIF 3 (v_prev: SI 2 with initial data) -> SI 4
   -> OUTPUT 5 (spikes). leaky: VLEAKY_ADPT_EN picks the multiplicative leak. */
static void check_clif(int leaky, int with_state) {
  ti_task_graph g;
  tt_rng r = {99};
  int32_t n = 24, dims[3] = {2, 3, 4}, v0[24], v[24], spikes[24], step, k;
  const int32_t vth = 300, vr = -20, alpha = 200, beta = -3, vinit = 5;
  ti_exec *x;
  ti_error err;
  memset(&err, 0, sizeof err);
  for (k = 0; k < n; k++) v0[k] = with_state ? (int32_t)tt_range(&r, -100, 250) : vinit;
  ti_task_graph_init(&g, NULL);
  add(&g, 0, TI_BLOCK_INPUT, TI_DTYPE_I32, ti_task_shape_make(2, 3, 4, 0, 0, 0, 0, 0)); socket_of(&g, 0, 3);
  add(&g, 1, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(2, 3, 4, 0, 0, 0, 0, 0));
  if (with_state) {
    add(&g, 2, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(2, 3, 4, 0, 0, 0, 0, 0));
    data(&g, 2, TI_DTYPE_I32, 3, dims, v0);
  }
  add(&g, 3, TI_BLOCK_CLIF, TI_DTYPE_I8, ti_task_shape_make(2, 3, 4, 0, 0, 0, 0, 0));
  attr(&g, 3, TI_TASK_ATTR_VTH0, vth); attr(&g, 3, TI_TASK_ATTR_VR, vr); attr(&g, 3, TI_TASK_ATTR_VINIT, vinit);
  attr(&g, 3, TI_TASK_ATTR_VLEAKY_ADPT_EN, leaky); attr(&g, 3, TI_TASK_ATTR_VLEAKY_ALPHA, alpha); attr(&g, 3, TI_TASK_ATTR_VLEAKY_BETA, beta);
  add(&g, 4, TI_BLOCK_SI, TI_DTYPE_I8, ti_task_shape_make(2, 3, 4, 0, 0, 0, 0, 0));
  add(&g, 5, TI_BLOCK_OUTPUT, TI_DTYPE_I8, ti_task_shape_make(2, 3, 4, 0, 0, 0, 0, 0)); socket_of(&g, 5, 4);
  link0(&g, 0, 1, 0); link0(&g, 1, 3, 0);
  if (with_state) link0(&g, 2, 3, 1);
  link0(&g, 3, 4, 0); link0(&g, 4, 5, 0);
  x = plan(&g, 0);
  TT_CHECK(x != NULL);
  if (!x) { ti_task_graph_free(&g); return; }
  for (step = 0; step < 2; step++) {   /* the second pass checks reset */
    int32_t t;
    memcpy(v, v0, sizeof v);
    for (t = 0; t < 12; t++) {
      int32_t cur[24];
      for (k = 0; k < n; k++) cur[k] = (int32_t)tt_range(&r, -60, 180);
      /* the reference step, straight from SPEC §2 */
      for (k = 0; k < n; k++) {
        int64_t u = clamp28((int64_t)v[k] + cur[k]);
        spikes[k] = u > vth;
        if (spikes[k]) u = vr;
        u = leaky ? floordiv((int64_t)alpha * u, 256) + beta : u + beta;
        v[k] = clamp28(u);
      }
      TT_EQ_INT(ti_exec_set_input(x, 3, cur, n, &err), 0);
      TT_EQ_INT(ti_exec_run(x, &err), 0);
      TT_CHECK_MSG(output_is(x, 4, spikes, n), "leaky %d state %d step %d", leaky, with_state, (int)t);
      if (with_state) {
        ti_exec_tensor st;
        TT_EQ_INT(ti_exec_block(x, 2, &st, &err), 0);
        for (k = 0; k < n; k++) TT_EQ_INT(ti_exec_tensor_i64(&st, k), v[k]);
      }
    }
    ti_exec_reset(x);
  }
  ti_exec_free(x);
  ti_task_graph_free(&g);
}

TT_TEST(test_clif_steps) {
  check_clif(0, 1);
  check_clif(1, 1);
  check_clif(1, 0);
}

/* --- several sockets, errors at the API ------------------------------------ */

/* INPUT 0 [3][2][2] and INPUT 1 [3][2][2] -> SI 2, SI 3 -> CADD 4 -> SI 5 ->
   OUTPUT 6 (socket 10) and CVS 7 (x -1) -> SI 8 -> OUTPUT 9 (socket 11). */
static void build_two_io(ti_task_graph *g) {
  ti_task_graph_init(g, NULL);
  add(g, 0, TI_BLOCK_INPUT, TI_DTYPE_I32, ti_task_shape_make(3, 2, 2, 0, 0, 0, 0, 0)); socket_of(g, 0, 0);
  add(g, 1, TI_BLOCK_INPUT, TI_DTYPE_I8, ti_task_shape_make(3, 2, 2, 0, 0, 0, 0, 0)); socket_of(g, 1, 1);
  add(g, 2, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(3, 2, 2, 0, 0, 0, 0, 0));
  add(g, 3, TI_BLOCK_SI, TI_DTYPE_I8, ti_task_shape_make(3, 2, 2, 0, 0, 0, 0, 0));
  add(g, 4, TI_BLOCK_CADD, TI_DTYPE_I32, ti_task_shape_make(3, 2, 2, 0, 0, 0, 0, 0));
  add(g, 5, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(3, 2, 2, 0, 0, 0, 0, 0));
  add(g, 6, TI_BLOCK_OUTPUT, TI_DTYPE_I32, ti_task_shape_make(3, 2, 2, 0, 0, 0, 0, 0)); socket_of(g, 6, 10);
  add(g, 7, TI_BLOCK_CVS, TI_DTYPE_I32, ti_task_shape_make(3, 2, 2, 0, 0, 0, 0, 0)); attr(g, 7, TI_TASK_ATTR_CONSTANT_A, -1);
  add(g, 8, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(3, 2, 2, 0, 0, 0, 0, 0));
  add(g, 9, TI_BLOCK_OUTPUT, TI_DTYPE_I32, ti_task_shape_make(3, 2, 2, 0, 0, 0, 0, 0)); socket_of(g, 9, 11);
  link0(g, 0, 2, 0); link0(g, 1, 3, 0);
  link0(g, 2, 4, 0); link0(g, 3, 4, 1); link0(g, 4, 5, 0);
  link0(g, 5, 6, 0); link0(g, 5, 7, 0); link0(g, 7, 8, 0); link0(g, 8, 9, 0);
}

/* One ti_error reused across calls, as in the README's run loop: each call
   clears it on entry, so a failure reports its own problem, and a success
   leaves it clear. */
TT_TEST(test_error_reuse) {
  ti_task_graph g;
  ti_exec *x;
  ti_exec_tensor t;
  ti_error err;
  int32_t a[12] = {0};
  build_two_io(&g);
  x = plan(&g, 0);
  TT_CHECK(x != NULL);
  if (!x) { ti_task_graph_free(&g); return; }
  ti_error_clear(&err);
  TT_EQ_INT(ti_exec_set_input(x, 0, a, 11, &err), TI_STATUS_BAD_PARAM);   /* first failure */
  TT_CHECK(strstr(err.message, "takes 12") != NULL);
  TT_EQ_INT(ti_exec_set_input(x, 0, a, 12, &err), 0);                     /* success clears */
  TT_EQ_INT(err.status, TI_STATUS_SUCCESS);
  TT_EQ_INT(err.message[0], 0);
  TT_EQ_INT(ti_exec_set_input(x, 9, a, 12, &err), TI_STATUS_NOT_FOUND);
  TT_CHECK(strstr(err.message, "no INPUT block has socket 9") != NULL);
  TT_EQ_INT(ti_exec_output(x, 42, &t, &err), TI_STATUS_NOT_FOUND);         /* its own message */
  TT_CHECK_MSG(strstr(err.message, "no OUTPUT block has socket 42") != NULL, "got '%s'", err.message);
  TT_EQ_INT(ti_exec_run(x, &err), TI_STATUS_NOT_FOUND);                     /* socket 1 never fed */
  TT_CHECK_MSG(strstr(err.message, "socket 1") != NULL, "got '%s'", err.message);
  ti_exec_free(x);
  ti_task_graph_free(&g);
}

/* Per-block profile rows add up to the whole profile. */
TT_TEST(test_block_profile) {
  ti_task_graph g;
  ti_exec *x = NULL;
  ti_exec_options o;
  ti_exec_block_profile bp;
  const ti_exec_profile *p;
  ti_error err;
  int32_t a[12] = {0}, i, kernels = 0;
  int64_t macs = 0, bytes = 0, calls = 0;
  double secs = 0;
  build_two_io(&g);
  ti_exec_options_init(&o);
  o.profile = 1;
  TT_EQ_INT(ti_exec_plan(&g, &o, &x, &err), 0);
  if (!x) { ti_task_graph_free(&g); return; }
  TT_EQ_INT(ti_exec_set_input(x, 0, a, 12, &err), 0);
  TT_EQ_INT(ti_exec_set_input(x, 1, a, 12, &err), 0);
  for (i = 0; i < 3; i++) TT_EQ_INT(ti_exec_run(x, &err), 0);
  p = ti_exec_get_profile(x);
  for (i = 0; i < ti_exec_num_blocks(x); i++) {
    TT_CHECK(ti_exec_get_block_profile(x, i, &bp));
    TT_EQ_INT(bp.block_id, ti_exec_block_id(x, i));
    TT_CHECK(bp.kernel != NULL);
    if (bp.calls) { kernels++; TT_EQ_INT(bp.calls, 3); TT_CHECK(strcmp(bp.kernel, "-") != 0); }
    else TT_EQ_STR(bp.kernel, "-");
    macs += bp.macs; bytes += bp.bytes; calls += bp.calls; secs += bp.seconds;
  }
  TT_CHECK(kernels > 0);
  TT_CHECK(!ti_exec_get_block_profile(x, ti_exec_num_blocks(x), &bp));
  TT_EQ_INT(macs, p->macs);
  TT_EQ_INT(bytes, p->copied_bytes);
  for (i = 0; i < TI_BLOCK_COUNT; i++) calls -= p->block_calls[i];
  TT_EQ_INT(calls, 0);
  TT_CHECK(secs <= p->total_seconds + 1e-9);
  ti_exec_clear_profile(x);
  TT_CHECK(ti_exec_get_block_profile(x, 0, &bp) && bp.calls == 0 && bp.macs == 0 && bp.seconds == 0);
  ti_exec_free(x);
  ti_task_graph_free(&g);
}

TT_TEST(test_sockets) {
  ti_task_graph g;
  ti_exec *x;
  ti_error err;
  int32_t a[12], b[12], sum[12], neg[12], k, round;
  build_two_io(&g);
  x = plan(&g, 0);
  TT_CHECK(x != NULL);
  if (!x) { ti_task_graph_free(&g); return; }
  TT_EQ_INT(ti_exec_num_inputs(x), 2);
  TT_EQ_INT(ti_exec_num_outputs(x), 2);
  memset(&err, 0, sizeof err);
  TT_EQ_INT(ti_exec_run(x, &err), TI_STATUS_NOT_FOUND);   /* nothing fed yet */
  TT_CHECK(strstr(err.message, "socket 0") != NULL);
  for (round = 0; round < 3; round++) {
    for (k = 0; k < 12; k++) {
      a[k] = 1000000 * (k + round) - 7; b[k] = (k * 37 + round) % 256 - 128;
      sum[k] = a[k] + b[k]; neg[k] = -sum[k];
    }
    memset(&err, 0, sizeof err);
    TT_EQ_INT(ti_exec_set_input(x, 0, a, 12, &err), 0);
    if (round == 0) {   /* fed one socket only */
      TT_EQ_INT(ti_exec_run(x, &err), TI_STATUS_NOT_FOUND);
      TT_CHECK(strstr(err.message, "socket 1") != NULL);
      memset(&err, 0, sizeof err);
    }
    TT_EQ_INT(ti_exec_set_input(x, 1, b, 12, &err), 0);
    TT_EQ_INT(ti_exec_run(x, &err), 0);
    TT_CHECK(output_is(x, 10, sum, 12));
    TT_CHECK(output_is(x, 11, neg, 12));
  }
  /* errors name what is wrong */
  memset(&err, 0, sizeof err);
  TT_EQ_INT(ti_exec_set_input(x, 5, a, 12, &err), TI_STATUS_NOT_FOUND);
  TT_CHECK(strstr(err.message, "socket 5") != NULL);
  memset(&err, 0, sizeof err);
  TT_EQ_INT(ti_exec_set_input(x, 0, a, 11, &err), TI_STATUS_BAD_PARAM);
  TT_CHECK(strstr(err.message, "takes 12") != NULL);
  memset(&err, 0, sizeof err);
  b[3] = 128;   /* socket 1 is INT_8 */
  TT_EQ_INT(ti_exec_set_input(x, 1, b, 12, &err), TI_STATUS_BAD_PARAM);
  TT_CHECK(strstr(err.message, "out of range") != NULL);
  memset(&err, 0, sizeof err);
  {
    ti_exec_tensor t;
    TT_EQ_INT(ti_exec_output(x, 99, &t, &err), TI_STATUS_NOT_FOUND);
    memset(&err, 0, sizeof err);
    TT_EQ_INT(ti_exec_block(x, 1234, &t, &err), TI_STATUS_NOT_FOUND);
  }
  ti_exec_free(x);
  /* OUTPUT blocks without socket ids are told apart by block id */
  B(&g, 6)->has &= ~(uint32_t)TI_BLOCK_HAS_SOCKET_ID; B(&g, 6)->socket_id = 0;
  B(&g, 9)->has &= ~(uint32_t)TI_BLOCK_HAS_SOCKET_ID; B(&g, 9)->socket_id = 0;
  x = plan(&g, 0);
  TT_CHECK(x != NULL);
  if (x) {
    ti_exec_tensor t6, t9;
    memset(&err, 0, sizeof err);
    b[3] = 5;
    TT_EQ_INT(ti_exec_set_input(x, 0, a, 12, &err), 0);
    TT_EQ_INT(ti_exec_set_input(x, 1, b, 12, &err), 0);
    TT_EQ_INT(ti_exec_run(x, &err), 0);
    TT_EQ_INT(ti_exec_block(x, 6, &t6, &err), 0);
    TT_EQ_INT(ti_exec_block(x, 9, &t9, &err), 0);
    for (k = 0; k < 12; k++) {
      TT_EQ_INT(ti_exec_tensor_i64(&t6, k), a[k] + b[k]);
      TT_EQ_INT(ti_exec_tensor_i64(&t9, k), -(a[k] + b[k]));
    }
    ti_exec_free(x);
  }
  ti_task_graph_free(&g);
}

/* --- 1-D and 3-D forms against plain formulas ------------------------------ */

/* 3-D: SIC [6][7][5] int8 -> CC 3x3, stride 1, pad 1 (+ SW int8, SB) -> SI ->
   CCMPB 1x1 >> 3, CMP -5 (INT_8) -> SI (int8) -> CAVG 3x3 stride 2 pad 1 -> SI
   -> CCMPS 2x2 stride 1 (CMP 100) -> SI -> OUTPUT. */
TT_TEST(test_3d_chain) {
  enum { H = 6, W = 7, R = 5, F = 4 };
  ti_task_graph g;
  tt_rng r = {1234};
  int32_t idims[3] = {H, W, R}, wdims[4] = {F, R, 3, 3}, bdims[1] = {F};
  int32_t *in = rand_vals(&r, H * W * R, -128, 127), *w = rand_vals(&r, F * R * 9, -128, 127), *bias = rand_vals(&r, F, -5000, 5000);
  int32_t conv[H * W * F], req[H * W * F], avg[3 * 4 * F], mn[2 * 3 * F];
  int32_t y, x, f, ky, kx, c;
  ti_task_shape s;
  ti_exec *xp;
  for (y = 0; y < H; y++) for (x = 0; x < W; x++) for (f = 0; f < F; f++) {
    uint32_t acc = (uint32_t)bias[f];
    for (ky = 0; ky < 3; ky++) for (kx = 0; kx < 3; kx++) for (c = 0; c < R; c++) {
      int32_t iy = y + ky - 1, ix = x + kx - 1;
      if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
      acc += (uint32_t)(in[(iy * W + ix) * R + c] * w[((f * R + c) * 3 + ky) * 3 + kx]);
    }
    conv[(y * W + x) * F + f] = (int32_t)acc;
    {
      int32_t v = (int32_t)acc >> 3;   /* arithmetic on the usual targets */
      if ((int32_t)acc < 0 && ((int32_t)acc & 7)) v = (int32_t)floordiv((int32_t)acc, 8);
      req[(y * W + x) * F + f] = v < -5 ? -5 : v > 127 ? 127 : v;
    }
  }
  for (y = 0; y < 3; y++) for (x = 0; x < 4; x++) for (f = 0; f < F; f++) {
    int32_t sum = 0;
    for (ky = 0; ky < 3; ky++) for (kx = 0; kx < 3; kx++) {
      int32_t iy = 2 * y + ky - 1, ix = 2 * x + kx - 1;
      if (iy >= 0 && iy < H && ix >= 0 && ix < W) sum += req[(iy * W + ix) * F + f];
    }
    avg[(y * 4 + x) * F + f] = sum;
  }
  for (y = 0; y < 2; y++) for (x = 0; x < 3; x++) for (f = 0; f < F; f++) {
    int32_t m = 100;
    for (ky = 0; ky < 2; ky++) for (kx = 0; kx < 2; kx++) {
      int32_t v = avg[((y + ky) * 4 + x + kx) * F + f];
      if (v < m) m = v;
    }
    mn[(y * 3 + x) * F + f] = m < -128 ? -128 : m > 127 ? 127 : m;
  }
  ti_task_graph_init(&g, NULL);
  add(&g, 0, TI_BLOCK_SIC, TI_DTYPE_I8, ti_task_shape_make(H, W, 0, R, 0, 0, 0, 0)); data(&g, 0, TI_DTYPE_I8, 3, idims, in);
  add(&g, 1, TI_BLOCK_SW, TI_DTYPE_I8, ti_task_shape_make(0, 0, F, R, 3, 3, 0, 0)); data(&g, 1, TI_DTYPE_I8, 4, wdims, w);
  add(&g, 2, TI_BLOCK_SB, TI_DTYPE_I32, ti_task_shape_make(0, 0, F, 0, 0, 0, 0, 0)); data(&g, 2, TI_DTYPE_I32, 1, bdims, bias);
  s = ti_task_shape_make(H, W, F, R, 3, 3, 0, 0); ti_task_shape_set(&s, TI_SHAPE_HAS_NIY, H); ti_task_shape_set(&s, TI_SHAPE_HAS_NIX, W);
  add(&g, 3, TI_BLOCK_CC, TI_DTYPE_I32, s);
  attr(&g, 3, TI_TASK_ATTR_PAD_UP, 1); attr(&g, 3, TI_TASK_ATTR_PAD_DOWN, 1); attr(&g, 3, TI_TASK_ATTR_PAD_LEFT, 1); attr(&g, 3, TI_TASK_ATTR_PAD_RIGHT, 1);
  add(&g, 4, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(H, W, F, 0, 0, 0, 0, 0));
  s = ti_task_shape_make(H, W, F, 0, 1, 1, 0, 0); ti_task_shape_set(&s, TI_SHAPE_HAS_NIY, H); ti_task_shape_set(&s, TI_SHAPE_HAS_NIX, W);
  add(&g, 5, TI_BLOCK_CCMPB, TI_DTYPE_I8, s); attr(&g, 5, TI_TASK_ATTR_BIT_SHIFT_NUM, 3); attr(&g, 5, TI_TASK_ATTR_CMP, -5);
  add(&g, 6, TI_BLOCK_SI, TI_DTYPE_I8, ti_task_shape_make(H, W, F, 0, 0, 0, 0, 0));
  s = ti_task_shape_make(3, 4, F, 0, 3, 3, 0, 0); ti_task_shape_set(&s, TI_SHAPE_HAS_NIY, H); ti_task_shape_set(&s, TI_SHAPE_HAS_NIX, W);
  add(&g, 7, TI_BLOCK_CAVG, TI_DTYPE_I32, s);
  attr(&g, 7, TI_TASK_ATTR_STRIDE_X, 2); attr(&g, 7, TI_TASK_ATTR_STRIDE_Y, 2);
  attr(&g, 7, TI_TASK_ATTR_PAD_UP, 1); attr(&g, 7, TI_TASK_ATTR_PAD_DOWN, 1); attr(&g, 7, TI_TASK_ATTR_PAD_LEFT, 1); attr(&g, 7, TI_TASK_ATTR_PAD_RIGHT, 1);
  add(&g, 8, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(3, 4, F, 0, 0, 0, 0, 0));
  s = ti_task_shape_make(2, 3, F, 0, 2, 2, 0, 0); ti_task_shape_set(&s, TI_SHAPE_HAS_NIY, 3); ti_task_shape_set(&s, TI_SHAPE_HAS_NIX, 4);
  add(&g, 9, TI_BLOCK_CCMPS, TI_DTYPE_I8, s); attr(&g, 9, TI_TASK_ATTR_CMP, 100);
  add(&g, 10, TI_BLOCK_SI, TI_DTYPE_I8, ti_task_shape_make(2, 3, F, 0, 0, 0, 0, 0));
  add(&g, 11, TI_BLOCK_OUTPUT, TI_DTYPE_I8, ti_task_shape_make(2, 3, F, 0, 0, 0, 0, 0));
  link0(&g, 0, 3, 0); link0(&g, 1, 3, 1); link0(&g, 2, 3, 2); link0(&g, 3, 4, 0);
  link0(&g, 4, 5, 0); link0(&g, 5, 6, 0); link0(&g, 6, 7, 0); link0(&g, 7, 8, 0);
  link0(&g, 8, 9, 0); link0(&g, 9, 10, 0); link0(&g, 10, 11, 0);
  xp = plan(&g, 1);
  TT_CHECK(xp != NULL);
  if (xp) {
    ti_error err;
    ti_exec_tensor t;
    ti_exec_info info;
    int64_t k;
    memset(&err, 0, sizeof err);
    TT_EQ_INT(ti_exec_run(xp, &err), 0);
    TT_CHECK(output_is(xp, 11, mn, 2 * 3 * F));   /* socket = block id */
    TT_EQ_INT(ti_exec_block(xp, 3, &t, &err), 0);
    for (k = 0; k < H * W * F; k++) TT_EQ_INT(ti_exec_tensor_i64(&t, k), conv[k]);
    TT_EQ_INT(ti_exec_block(xp, 6, &t, &err), 0);
    TT_EQ_INT(t.dtype, TI_DTYPE_I8);   /* CCMPB to INT_8 keeps the storage narrow */
    for (k = 0; k < H * W * F; k++) TT_EQ_INT(ti_exec_tensor_i64(&t, k), req[k]);
    TT_EQ_INT(ti_exec_block(xp, 8, &t, &err), 0);
    for (k = 0; k < 3 * 4 * F; k++) TT_EQ_INT(ti_exec_tensor_i64(&t, k), avg[k]);
    ti_exec_get_info(xp, &info);
    TT_EQ_INT(info.n_packed, 1);   /* int8 weights packed once */
    ti_exec_free(xp);
  }
  free(in); free(w); free(bias);
  ti_task_graph_free(&g);
}

/* 1-D: SIFC [12] (int32) -> CVM (SWFC [5][12], SB) -> SI [5] -> CADD with SI
   [5] const (CONSTANT_B 9) -> SI -> CCMPB 1-D >> 2, CMP -3 -> SI -> CLUT
   (LUT_DW 4) -> SI -> CAX (alpha SB) -> SI -> OUTPUT. */
TT_TEST(test_1d_chain) {
  ti_task_graph g;
  tt_rng r = {77};
  int32_t d12[1] = {12}, wd[2] = {5, 12}, d5[1] = {5}, d16[1] = {16};
  int32_t *in = rand_vals(&r, 12, -100000, 100000), *w = rand_vals(&r, 60, -300, 300), *bias = rand_vals(&r, 5, -9, 9);
  int32_t *other = rand_vals(&r, 5, -1000, 1000), *lut = rand_vals(&r, 16, -70000, 70000), *alpha = rand_vals(&r, 5, -3, 3);
  int32_t fc[5], want[5], k, j;
  ti_exec *x;
  for (k = 0; k < 5; k++) {
    uint32_t acc = (uint32_t)bias[k];
    int32_t v;
    for (j = 0; j < 12; j++) acc += (uint32_t)in[j] * (uint32_t)w[k * 12 + j];
    fc[k] = (int32_t)acc;
    v = (int32_t)((uint32_t)fc[k] + (uint32_t)other[k] + 9u);
    v = (int32_t)floordiv(v, 4);
    v = v < -3 ? -3 : v > 127 ? 127 : v;
    v = lut[v & 15];
    want[k] = (int32_t)((uint32_t)v * (uint32_t)alpha[k]);
  }
  ti_task_graph_init(&g, NULL);
  add(&g, 0, TI_BLOCK_SIFC, TI_DTYPE_I32, ti_task_shape_make(0, 0, 0, 12, 0, 0, 0, 0)); data(&g, 0, TI_DTYPE_I32, 1, d12, in);
  add(&g, 1, TI_BLOCK_SWFC, TI_DTYPE_I32, ti_task_shape_make(0, 0, 5, 12, 0, 0, 0, 0)); data(&g, 1, TI_DTYPE_I32, 2, wd, w);
  add(&g, 2, TI_BLOCK_SB, TI_DTYPE_I32, ti_task_shape_make(0, 0, 5, 0, 0, 0, 0, 0)); data(&g, 2, TI_DTYPE_I32, 1, d5, bias);
  add(&g, 3, TI_BLOCK_CVM, TI_DTYPE_I32, ti_task_shape_make(0, 0, 5, 12, 0, 0, 0, 0));
  add(&g, 4, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(0, 0, 5, 0, 0, 0, 0, 0));
  add(&g, 5, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(0, 0, 5, 0, 0, 0, 0, 0)); data(&g, 5, TI_DTYPE_I32, 1, d5, other);
  add(&g, 6, TI_BLOCK_CADD, TI_DTYPE_I32, ti_task_shape_make(0, 0, 5, 0, 0, 0, 0, 0)); attr(&g, 6, TI_TASK_ATTR_CONSTANT_B, 9);
  B(&g, 6)->has |= TI_BLOCK_HAS_BIAS_TYPE; B(&g, 6)->bias_type = TI_BIAS_CONSTANT;
  add(&g, 7, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(0, 0, 5, 0, 0, 0, 0, 0));
  add(&g, 8, TI_BLOCK_CCMPB, TI_DTYPE_I32, ti_task_shape_make(0, 0, 5, 0, 0, 0, 0, 0)); attr(&g, 8, TI_TASK_ATTR_BIT_SHIFT_NUM, 2); attr(&g, 8, TI_TASK_ATTR_CMP, -3);
  add(&g, 9, TI_BLOCK_SI, TI_DTYPE_I8, ti_task_shape_make(0, 0, 5, 0, 0, 0, 0, 0));
  add(&g, 10, TI_BLOCK_SB, TI_DTYPE_I32, ti_task_shape_make(0, 0, 16, 0, 0, 0, 0, 0)); data(&g, 10, TI_DTYPE_I32, 1, d16, lut);
  add(&g, 11, TI_BLOCK_CLUT, TI_DTYPE_I32, ti_task_shape_make(0, 0, 5, 0, 0, 0, 0, 0)); attr(&g, 11, TI_TASK_ATTR_LUT_DW, 4);
  add(&g, 12, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(0, 0, 5, 0, 0, 0, 0, 0));
  add(&g, 13, TI_BLOCK_SB, TI_DTYPE_I8, ti_task_shape_make(0, 0, 5, 0, 0, 0, 0, 0)); data(&g, 13, TI_DTYPE_I8, 1, d5, alpha);
  add(&g, 14, TI_BLOCK_CAX, TI_DTYPE_I32, ti_task_shape_make(0, 0, 5, 0, 0, 0, 0, 0));
  add(&g, 15, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(0, 0, 5, 0, 0, 0, 0, 0));
  add(&g, 16, TI_BLOCK_OUTPUT, TI_DTYPE_I32, ti_task_shape_make(0, 0, 5, 0, 0, 0, 0, 0));
  link0(&g, 0, 3, 0); link0(&g, 1, 3, 1); link0(&g, 2, 3, 2); link0(&g, 3, 4, 0);
  link0(&g, 4, 6, 0); link0(&g, 5, 6, 1); link0(&g, 6, 7, 0);
  link0(&g, 7, 8, 0); link0(&g, 8, 9, 0);
  link0(&g, 9, 11, 0); link0(&g, 10, 11, 1); link0(&g, 11, 12, 0);
  link0(&g, 12, 14, 0); link0(&g, 13, 14, 1); link0(&g, 14, 15, 0); link0(&g, 15, 16, 0);
  x = plan(&g, 0);
  TT_CHECK(x != NULL);
  if (x) {
    ti_error err;
    memset(&err, 0, sizeof err);
    TT_EQ_INT(ti_exec_run(x, &err), 0);
    TT_CHECK(output_is(x, 16, want, 5));   /* socket = block id */
    ti_exec_free(x);
  }
  free(in); free(w); free(bias); free(other); free(lut); free(alpha);
  ti_task_graph_free(&g);
}

/* The plan's small-shape forms against SPEC §2 on random sizes: INPUT [nr]
   int8 -> SIFC -> CVM (int8 SWFC [nf][nr], SB) -> SI -> OUTPUT 0 (rows padded
   to 64 by the plan when nr is not a multiple), and INPUT [ny][nx][nc] int32
   -> SI -> CCMPB 1x1 (>> sh, CMP cmp, INT_8) -> SI -> OUTPUT 1 (run as one
   row of ny*nx*nc channels), twice each to check the padded tail stays 0. */
TT_TEST(test_small_shapes) {
  tt_rng r = {2024};
  int rep;
  for (rep = 0; rep < 60; rep++) {
    ti_task_graph g;
    int32_t nr = (int32_t)tt_range(&r, 1, 200), nf = (int32_t)tt_range(&r, 1, 40);
    int32_t ny = (int32_t)tt_range(&r, 1, 9), nx = (int32_t)tt_range(&r, 1, 9), nc = (int32_t)tt_range(&r, 1, 7);
    int32_t sh = (int32_t)tt_range(&r, 0, 12), cmp = (int32_t)tt_range(&r, -128, 5), n3 = ny * nx * nc;
    int32_t wd[2], bd[1], k, j, run;
    int32_t *w = rand_vals(&r, (int64_t)nf * nr, -128, 127), *bias = rand_vals(&r, nf, -5000, 5000);
    int32_t *want = (int32_t *)malloc((size_t)(nf + n3) * sizeof *want);
    ti_exec *x;
    wd[0] = nf; wd[1] = nr; bd[0] = nf;
    ti_task_graph_init(&g, NULL);
    add(&g, 0, TI_BLOCK_INPUT, TI_DTYPE_I8, ti_task_shape_make(0, 0, nr, 0, 0, 0, 0, 0)); socket_of(&g, 0, 0);
    add(&g, 1, TI_BLOCK_SIFC, TI_DTYPE_I8, ti_task_shape_make(0, 0, 0, nr, 0, 0, 0, 0));
    add(&g, 2, TI_BLOCK_SWFC, TI_DTYPE_I8, ti_task_shape_make(0, 0, nf, nr, 0, 0, 0, 0)); data(&g, 2, TI_DTYPE_I8, 2, wd, w);
    add(&g, 3, TI_BLOCK_SB, TI_DTYPE_I32, ti_task_shape_make(0, 0, nf, 0, 0, 0, 0, 0)); data(&g, 3, TI_DTYPE_I32, 1, bd, bias);
    add(&g, 4, TI_BLOCK_CVM, TI_DTYPE_I32, ti_task_shape_make(0, 0, nf, nr, 0, 0, 0, 0));
    add(&g, 5, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(0, 0, nf, 0, 0, 0, 0, 0));
    add(&g, 6, TI_BLOCK_OUTPUT, TI_DTYPE_I32, ti_task_shape_make(0, 0, nf, 0, 0, 0, 0, 0)); socket_of(&g, 6, 0);
    link0(&g, 0, 1, 0); link0(&g, 1, 4, 0); link0(&g, 2, 4, 1); link0(&g, 3, 4, 2); link0(&g, 4, 5, 0); link0(&g, 5, 6, 0);
    add(&g, 10, TI_BLOCK_INPUT, TI_DTYPE_I32, ti_task_shape_make(ny, nx, nc, 0, 0, 0, 0, 0)); socket_of(&g, 10, 1);
    add(&g, 11, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(ny, nx, nc, 0, 0, 0, 0, 0));
    {
      ti_task_shape s = ti_task_shape_make(ny, nx, nc, 0, 1, 1, 0, 0);
      ti_task_shape_set(&s, TI_SHAPE_HAS_NIY, ny); ti_task_shape_set(&s, TI_SHAPE_HAS_NIX, nx);
      add(&g, 12, TI_BLOCK_CCMPB, TI_DTYPE_I8, s);
    }
    attr(&g, 12, TI_TASK_ATTR_BIT_SHIFT_NUM, sh); attr(&g, 12, TI_TASK_ATTR_CMP, cmp);
    add(&g, 13, TI_BLOCK_SI, TI_DTYPE_I8, ti_task_shape_make(ny, nx, nc, 0, 0, 0, 0, 0));
    add(&g, 14, TI_BLOCK_OUTPUT, TI_DTYPE_I8, ti_task_shape_make(ny, nx, nc, 0, 0, 0, 0, 0)); socket_of(&g, 14, 1);
    link0(&g, 10, 11, 0); link0(&g, 11, 12, 0); link0(&g, 12, 13, 0); link0(&g, 13, 14, 0);
    x = plan(&g, 0);
    TT_CHECK(x != NULL);
    for (run = 0; x && run < 2; run++) {
      ti_error err;
      int32_t *in = rand_vals(&r, nr, -128, 127), *in3 = rand_vals(&r, n3, -2000000, 2000000);
      memset(&err, 0, sizeof err);
      for (k = 0; k < nf; k++) {
        uint32_t acc = (uint32_t)bias[k];
        for (j = 0; j < nr; j++) acc += (uint32_t)in[j] * (uint32_t)w[(int64_t)k * nr + j];
        want[k] = (int32_t)acc;
      }
      for (k = 0; k < n3; k++) {
        int32_t v = (int32_t)floordiv(in3[k], (int64_t)1 << sh);
        want[nf + k] = v < cmp ? cmp : v > 127 ? 127 : v;
      }
      TT_EQ_INT(ti_exec_set_input(x, 0, in, nr, &err), 0);
      TT_EQ_INT(ti_exec_set_input(x, 1, in3, n3, &err), 0);
      TT_EQ_INT(ti_exec_run(x, &err), 0);
      TT_CHECK_MSG(output_is(x, 0, want, nf), "CVM nr %d nf %d run %d", (int)nr, (int)nf, run);
      TT_CHECK_MSG(output_is(x, 1, want + nf, n3), "CCMPB %dx%dx%d >> %d cmp %d", (int)ny, (int)nx, (int)nc, (int)sh, (int)cmp);
      free(in); free(in3);
    }
    ti_exec_free(x);
    free(w); free(bias); free(want);
    ti_task_graph_free(&g);
  }
}

/* CCMPB at every integer precision through the plan: INPUT int32 [6][6][3]
   -> SI -> CCMPB 2x2 stride 2 (>> sh, CMP cmp, precision p) -> SI -> OUTPUT,
   against the SPEC formula: the max of the precision (INT_8 127, UINT_8 255,
   TERNARY 1, INT_9 255, INT_16 32767, UINT_16 65535, INT_32 2^31-1) clips
   from above, CMP from below, also when CMP is below the storage's range
   (an INT_8 block with CMP -1000 keeps -1000: integers are carried in 32
   bits). INT_8 / TERNARY with CMP >= -128 write an int8 buffer directly. */
TT_TEST(test_ccmpb_precisions) {
  static const ti_dtype precs[] = {TI_DTYPE_I8, TI_DTYPE_U8, TI_DTYPE_TERNARY, TI_DTYPE_I9, TI_DTYPE_I16, TI_DTYPE_U16, TI_DTYPE_I32};
  static const int32_t his[] = {127, 255, 1, 255, 32767, 65535, INT32_MAX};
  tt_rng r = {77};
  int rep;
  for (rep = 0; rep < 56; rep++) {
    const int pi = rep % 7;
    const int32_t n = 6 * 6 * 3, no = 3 * 3 * 3, sh = (int32_t)tt_range(&r, 0, 6);
    const int32_t cmp = rep / 7 % 2 ? (int32_t)tt_range(&r, -128, 3) : (int32_t)tt_range(&r, -100000, -129);
    int32_t *in = rand_vals(&r, n, -200000, 200000), want[27], y, xx, f, ky, kx;
    ti_task_graph g;
    ti_task_shape s = ti_task_shape_make(3, 3, 3, 0, 2, 2, 0, 0);
    ti_exec *x;
    ti_error err;
    memset(&err, 0, sizeof err);
    ti_task_graph_init(&g, NULL);
    add(&g, 0, TI_BLOCK_INPUT, TI_DTYPE_I32, ti_task_shape_make(6, 6, 3, 0, 0, 0, 0, 0)); socket_of(&g, 0, 0);
    add(&g, 1, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(6, 6, 3, 0, 0, 0, 0, 0));
    ti_task_shape_set(&s, TI_SHAPE_HAS_NIY, 6); ti_task_shape_set(&s, TI_SHAPE_HAS_NIX, 6);
    add(&g, 2, TI_BLOCK_CCMPB, precs[pi], s);
    attr(&g, 2, TI_TASK_ATTR_STRIDE_Y, 2); attr(&g, 2, TI_TASK_ATTR_STRIDE_X, 2);
    attr(&g, 2, TI_TASK_ATTR_BIT_SHIFT_NUM, sh); attr(&g, 2, TI_TASK_ATTR_CMP, cmp);
    add(&g, 3, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(3, 3, 3, 0, 0, 0, 0, 0));
    add(&g, 4, TI_BLOCK_OUTPUT, TI_DTYPE_I32, ti_task_shape_make(3, 3, 3, 0, 0, 0, 0, 0)); socket_of(&g, 4, 1);
    link0(&g, 0, 1, 0); link0(&g, 1, 2, 0); link0(&g, 2, 3, 0); link0(&g, 3, 4, 0);
    for (y = 0; y < 3; y++)
      for (xx = 0; xx < 3; xx++)
        for (f = 0; f < 3; f++) {
          int32_t m = INT32_MIN, v;
          for (ky = 0; ky < 2; ky++)
            for (kx = 0; kx < 2; kx++) {
              int32_t e = in[((2 * y + ky) * 6 + 2 * xx + kx) * 3 + f];
              m = e > m ? e : m;
            }
          v = (int32_t)floordiv(m, (int64_t)1 << sh);
          want[(y * 3 + xx) * 3 + f] = v < cmp ? cmp : v > his[pi] ? his[pi] : v;
        }
    x = plan(&g, 0);
    TT_CHECK_MSG(x != NULL, "precision %d", (int)precs[pi]);
    if (x) {
      TT_EQ_INT(ti_exec_set_input(x, 0, in, n, &err), 0);
      TT_EQ_INT(ti_exec_run(x, &err), 0);
      TT_CHECK_MSG(output_is(x, 1, want, no), "CCMPB precision %d >> %d cmp %d", (int)precs[pi], (int)sh, (int)cmp);
    }
    ti_exec_free(x);
    free(in);
    ti_task_graph_free(&g);
  }
}

/* --- float precision ------------------------------------------------------- */

TT_TEST(test_float) {
  ti_task_graph g;
  float in[6] = {1.5f, -2.25f, 3.0f, 0.5f, -0.125f, 8.0f}, want[6];
  int32_t d6[3] = {1, 2, 3}, k;
  ti_exec *x;
  ti_task_graph_init(&g, NULL);
  add(&g, 0, TI_BLOCK_INPUT, TI_DTYPE_F32, ti_task_shape_make(1, 2, 3, 0, 0, 0, 0, 0));
  add(&g, 1, TI_BLOCK_SI, TI_DTYPE_F32, ti_task_shape_make(1, 2, 3, 0, 0, 0, 0, 0));
  add(&g, 2, TI_BLOCK_SI, TI_DTYPE_F32, ti_task_shape_make(1, 2, 3, 0, 0, 0, 0, 0));
  TT_EQ_INT(ti_task_set_data(&g, B(&g, 2), TI_DTYPE_F32, 3, d6, in), 0);
  add(&g, 3, TI_BLOCK_CVVH, TI_DTYPE_F32, ti_task_shape_make(1, 2, 3, 0, 0, 0, 0, 0));
  add(&g, 4, TI_BLOCK_SI, TI_DTYPE_F32, ti_task_shape_make(1, 2, 3, 0, 0, 0, 0, 0));
  add(&g, 5, TI_BLOCK_OUTPUT, TI_DTYPE_F32, ti_task_shape_make(1, 2, 3, 0, 0, 0, 0, 0));
  link0(&g, 0, 1, 0); link0(&g, 1, 3, 0); link0(&g, 2, 3, 1); link0(&g, 3, 4, 0); link0(&g, 4, 5, 0);
  for (k = 0; k < 6; k++) want[k] = in[k] * in[k];
  x = plan(&g, 0);
  TT_CHECK(x != NULL);
  if (x) {
    ti_error err;
    ti_exec_tensor t;
    memset(&err, 0, sizeof err);
    TT_EQ_INT(ti_exec_set_input_f32(x, 0, in, 6, &err), 0);
    TT_EQ_INT(ti_exec_run(x, &err), 0);
    TT_EQ_INT(ti_exec_output(x, 5, &t, &err), 0);   /* socket = block id */
    TT_EQ_INT(t.dtype, TI_DTYPE_F32);
    for (k = 0; k < 6; k++) TT_CHECK(ti_exec_tensor_f64(&t, k) == (double)want[k]);
    ti_exec_free(x);
  }
  ti_task_graph_free(&g);
}

/* --- memory plan and bad graphs -------------------------------------------- */

/* A chain of n CVS blocks: buffers are reused, keep_all keeps them apart. */
TT_TEST(test_memory_reuse) {
  enum { N = 12 };
  ti_task_graph g;
  int32_t k, dims[3] = {8, 8, 16}, *in = (int32_t *)calloc(1024, sizeof(int32_t)), want[1024];
  ti_exec *x;
  ti_exec_info a, b;
  for (k = 0; k < 1024; k++) { in[k] = k % 97 - 40; want[k] = in[k] * 2 * 2 * 2 * 2 * 2 * 2 * 2 * 2 * 2 * 2 * 2 * 2; }
  ti_task_graph_init(&g, NULL);
  add(&g, 0, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(8, 8, 16, 0, 0, 0, 0, 0)); data(&g, 0, TI_DTYPE_I32, 3, dims, in);
  for (k = 0; k < N; k++) {
    add(&g, 2 * k + 1, TI_BLOCK_CVS, TI_DTYPE_I32, ti_task_shape_make(8, 8, 16, 0, 0, 0, 0, 0)); attr(&g, 2 * k + 1, TI_TASK_ATTR_CONSTANT_A, 2);
    add(&g, 2 * k + 2, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(8, 8, 16, 0, 0, 0, 0, 0));
    link0(&g, 2 * k, 2 * k + 1, 0); link0(&g, 2 * k + 1, 2 * k + 2, 0);
  }
  add(&g, 100, TI_BLOCK_OUTPUT, TI_DTYPE_I32, ti_task_shape_make(8, 8, 16, 0, 0, 0, 0, 0));
  link0(&g, 2 * N, 100, 0);
  x = plan(&g, 0);
  TT_CHECK(x != NULL);
  if (x) {
    ti_error err;
    ti_exec_tensor t;
    memset(&err, 0, sizeof err);
    TT_EQ_INT(ti_exec_run(x, &err), 0);
    TT_CHECK(output_is(x, 100, want, 1024));   /* socket = block id */
    ti_exec_get_info(x, &a);
    TT_CHECK(a.arena_bytes <= 2 * 4096 + 128);   /* two live buffers at a time */
    TT_CHECK(a.buffer_bytes >= N * 4096);
    TT_CHECK(a.plan_bytes < a.block_bytes);
    TT_EQ_INT(ti_exec_block(x, 5, &t, &err), TI_STATUS_NOT_FOUND);   /* reused */
    TT_CHECK(strstr(err.message, "keep_all") != NULL);
    ti_exec_free(x);
  }
  x = plan(&g, 1);
  TT_CHECK(x != NULL);
  if (x) {
    ti_error err;
    ti_exec_tensor t;
    memset(&err, 0, sizeof err);
    TT_EQ_INT(ti_exec_run(x, &err), 0);
    ti_exec_get_info(x, &b);
    TT_CHECK(b.arena_bytes >= N * 4096);
    TT_EQ_INT(ti_exec_block(x, 5, &t, &err), 0);
    TT_EQ_INT(ti_exec_tensor_i64(&t, 1), in[1] * 8);   /* block 5: the third CVS */
    ti_exec_free(x);
  }
  free(in);
  ti_task_graph_free(&g);
}

TT_TEST(test_bad_graphs) {
  ti_task_graph g;
  ti_exec *x = NULL;
  ti_error err;
  ti_exec_options o;
  int32_t d3[1] = {3}, v3[3] = {1, 2, 3};
  ti_exec_options_init(&o);
  /* fails the checker: an edge whose two ends disagree in size */
  build_two_io(&g);
  B(&g, 5)->shape.nf = 3;
  memset(&err, 0, sizeof err);
  TT_EQ_INT(ti_exec_plan(&g, &o, &x, &err), TI_STATUS_INVALID);
  TT_CHECK(x == NULL);
  TT_CHECK(err.message[0] != 0);
  /* the executor's own checks hold without the checker */
  o.skip_check = 1;
  memset(&err, 0, sizeof err);
  TT_EQ_INT(ti_exec_plan(&g, &o, &x, &err), TI_STATUS_INVALID);
  TT_CHECK(strstr(err.message, "block") != NULL || strstr(err.message, "edge") != NULL);
  ti_task_graph_free(&g);
  /* a cycle */
  build_two_io(&g);
  link0(&g, 8, 7, 1);
  memset(&err, 0, sizeof err);
  TT_CHECK(ti_exec_plan(&g, &o, &x, &err) != TI_STATUS_SUCCESS);
  ti_task_graph_free(&g);
  /* data of the wrong length */
  build_two_io(&g);
  add(&g, 20, TI_BLOCK_SB, TI_DTYPE_I32, ti_task_shape_make(0, 0, 4, 0, 0, 0, 0, 0)); data(&g, 20, TI_DTYPE_I32, 1, d3, v3);
  link0(&g, 20, 7, 1);
  memset(&err, 0, sizeof err);
  TT_CHECK(ti_exec_plan(&g, &o, &x, &err) != TI_STATUS_SUCCESS);
  ti_task_graph_free(&g);
  /* two INPUT blocks on one socket */
  build_two_io(&g);
  B(&g, 1)->socket_id = 0;
  memset(&err, 0, sizeof err);
  TT_EQ_INT(ti_exec_plan(&g, &o, &x, &err), TI_STATUS_INVALID);
  TT_CHECK(strstr(err.message, "socket 0") != NULL);
  ti_task_graph_free(&g);
  /* a kernel the block's attributes cannot drive: LUT_DW out of range */
  ti_task_graph_init(&g, NULL);
  add(&g, 0, TI_BLOCK_SI, TI_DTYPE_I8, ti_task_shape_make(0, 0, 3, 0, 0, 0, 0, 0)); data(&g, 0, TI_DTYPE_I8, 1, d3, v3);
  add(&g, 1, TI_BLOCK_SB, TI_DTYPE_I32, ti_task_shape_make(0, 0, 3, 0, 0, 0, 0, 0)); data(&g, 1, TI_DTYPE_I32, 1, d3, v3);
  add(&g, 2, TI_BLOCK_CLUT, TI_DTYPE_I32, ti_task_shape_make(0, 0, 3, 0, 0, 0, 0, 0)); attr(&g, 2, TI_TASK_ATTR_LUT_DW, 20);
  add(&g, 3, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(0, 0, 3, 0, 0, 0, 0, 0));
  link0(&g, 0, 2, 0); link0(&g, 1, 2, 1); link0(&g, 2, 3, 0);
  memset(&err, 0, sizeof err);
  TT_CHECK(ti_exec_plan(&g, &o, &x, &err) != TI_STATUS_SUCCESS);
  TT_CHECK(strstr(err.message, "block 2") != NULL);
  ti_task_graph_free(&g);
  TT_CHECK(x == NULL);
}

/* Plan / run / free many times (ASan checks for leaks). */
TT_TEST(test_cycles) {
  int i;
  for (i = 0; i < 20; i++) {
    ti_task_graph g;
    ti_exec *x;
    int32_t a[12], b[12], k;
    ti_error err;
    memset(&err, 0, sizeof err);
    build_two_io(&g);
    x = plan(&g, i & 1);
    TT_CHECK(x != NULL);
    for (k = 0; k < 12; k++) { a[k] = k * i; b[k] = -k; }
    if (x) {
      TT_EQ_INT(ti_exec_set_input(x, 0, a, 12, &err), 0);
      TT_EQ_INT(ti_exec_set_input(x, 1, b, 12, &err), 0);
      TT_EQ_INT(ti_exec_run(x, &err), 0);
      TT_EQ_INT(ti_exec_run(x, &err), 0);
      ti_exec_free(x);
    }
    ti_task_graph_free(&g);
  }
}

/* Random damage to a valid graph (shapes, attributes, boxes, edge ends,
   rearrangements): planning without the checker must fail cleanly or give a
   plan that runs; never a crash or an out-of-bounds access (ASan build). */
static int32_t pick(tt_rng *r, int32_t lo, int32_t hi) { return (int32_t)tt_range(r, lo, hi); }
static void damage(ti_task_graph *g, tt_rng *r) {
  int32_t n = pick(r, 1, 3), k;
  for (k = 0; k < n; k++) {
    ti_task_block *b = &g->blocks[pick(r, 0, g->n_blocks - 1)];
    switch (pick(r, 0, 7)) {
    case 0: b->shape.ny = pick(r, -1, 9); break;
    case 1: b->shape.nf = pick(r, -1, 9); break;
    case 2: b->shape.nr = pick(r, -1, 9); b->shape.nky = pick(r, 0, 4); break;
    case 3: if (b->n_attrs) b->attrs[pick(r, 0, b->n_attrs - 1)].int_value = pick(r, -3, 40); break;
    case 4:
      if (b->n_inputs && b->inputs[0].n_interfaces) {
        ti_task_interface *f = &b->inputs[0].interfaces[0];
        f->has |= TI_IFACE_HAS_POSITION | TI_IFACE_HAS_SIZE;
        f->position.ny = pick(r, -1, 3); f->position.nf = pick(r, -1, 3);
        f->size.ny = pick(r, 0, 6); f->size.nf = pick(r, 0, 6); f->size.has = TI_SHAPE_HAS_NY | TI_SHAPE_HAS_NF;
      }
      break;
    case 5: if (g->n_edges) g->edges[pick(r, 0, g->n_edges - 1)].dst_block_id = pick(r, 0, g->n_blocks); break;
    case 6: if (b->n_inputs) b->inputs[pick(r, 0, b->n_inputs - 1)].n_interfaces = 0; break;
    default:
      if (g->n_edges) {
        int32_t vals[9], d1[1] = {0}, i;
        for (i = 0; i < 9; i++) vals[i] = pick(r, -3, 4);
        d1[0] = pick(r, 0, 9);
        (void)!ti_task_add_rearrange(g, &g->edges[pick(r, 0, g->n_edges - 1)], (ti_rearrange_kind)pick(r, 0, 10), 1, d1, vals, d1[0]);   /* a damaged graph may refuse any step: only crashes and leaks count */
      }
      break;
    }
  }
}

TT_TEST(test_damaged_graphs) {
  tt_rng r = {2024};
  int it, planned = 0, refused = 0;
  for (it = 0; it < 400; it++) {
    ti_task_graph g;
    ti_exec *x = NULL;
    ti_exec_options o;
    ti_error err;
    memset(&err, 0, sizeof err);
    build_two_io(&g);
    damage(&g, &r);
    ti_exec_options_init(&o);
    o.skip_check = it & 1;
    if (ti_exec_plan(&g, &o, &x, &err) == TI_STATUS_SUCCESS) {
      int32_t i, zeros[64];
      memset(zeros, 0, sizeof zeros);
      for (i = 0; i < ti_exec_num_inputs(x); i++)
        if (ti_exec_input_count(x, i) <= 64) (void)!ti_exec_set_input(x, ti_exec_input_socket(x, i), zeros, ti_exec_input_count(x, i), &err);   /* a damaged graph may refuse any step: only crashes and leaks count */
      (void)!ti_exec_run(x, &err);   /* a damaged graph may refuse any step: only crashes and leaks count */
      ti_exec_free(x);
      planned++;
    } else {
      TT_CHECK(x == NULL);
      TT_CHECK_MSG(err.message[0] != 0, "iteration %d: an error without a message", it);
      refused++;
    }
    ti_task_graph_free(&g);
  }
  TT_CHECK(planned > 0 && refused > 0);
  {   /* the same on fixtures with windows, weights and LUTs */
    static const char *cases[] = {"cc", "cvm", "ccmpb", "clut", "cavg"};
    int c;
    for (c = 0; c < 5; c++) {
      char path[1024];
      size_t len = 0;
      char *bytes;
      snprintf(path, sizeof path, "%s/%s.task.pb", tt_fixtures(), cases[c]);
      if (!(bytes = tt_read_file(path, &len))) continue;
      for (it = 0; it < 60; it++) {
        ti_task_graph g;
        ti_exec *x = NULL;
        ti_exec_options o;
        ti_error err;
        memset(&err, 0, sizeof err);
        ti_task_graph_init(&g, NULL);
        if (ti_task_decode(&g, bytes, len, &err) == TI_STATUS_SUCCESS) {
          damage(&g, &r);
          ti_exec_options_init(&o);
          o.skip_check = it & 1;
          if (ti_exec_plan(&g, &o, &x, &err) == TI_STATUS_SUCCESS) {
            (void)!ti_exec_run(x, &err);   /* a damaged graph may refuse any step: only crashes and leaks count */
            ti_exec_free(x);
          } else TT_CHECK(err.message[0] != 0);
        }
        ti_task_graph_free(&g);
      }
      free(bytes);
    }
  }
}

int main(void) {
  TT_RUN(test_fixtures);
  TT_RUN(test_interfaces);
  TT_RUN(test_rearrangements);
  TT_RUN(test_rearrange_chain);
  TT_RUN(test_rearrange_random_chains);
  TT_RUN(test_clif_steps);
  TT_RUN(test_sockets);
  TT_RUN(test_error_reuse);
  TT_RUN(test_block_profile);
  TT_RUN(test_3d_chain);
  TT_RUN(test_1d_chain);
  TT_RUN(test_small_shapes);
  TT_RUN(test_ccmpb_precisions);
  TT_RUN(test_float);
  TT_RUN(test_memory_reuse);
  TT_RUN(test_bad_graphs);
  TT_RUN(test_cycles);
  TT_RUN(test_damaged_graphs);
  return tt_finish();
}
