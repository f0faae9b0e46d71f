/* The executor driven by the pool of tools/taskir_pool.h through
   ti_exec_options.parallel_for: a ResNet-like int8 graph (stem conv,
   residual blocks of conv -> requantise -> conv -> + skip -> requantise,
   a 2x2 max pool, an FC head) and a graph with edge rearrangements give,
   on 2, 3 and 4 threads, every block bit-identical to the one-thread plan,
   over several runs; threads = 1 keeps the hook out of the kernels, and so
   does a block below TASKIR_EXEC_PARALLEL_MIN work. */
#define _POSIX_C_SOURCE 200809L
/* small enough that the test graphs' blocks split (the default keeps
   blocks of their size on the calling thread) */
#define TASKIR_EXEC_PARALLEL_MIN 16384
#define TASKIR_EXEC_PARALLEL_MIN_AMX 16384
#define TASKIR_IMPLEMENTATION
#include "taskir_exec.h"
#include "tools/taskir_pool.h"
#include "tt.h"
#include "tt_task.h"

static int32_t nid;
static uint32_t rs = 7;
static int32_t rnd(int32_t lo, int32_t hi) { rs = rs * 1664525u + 1013904223u; return lo + (int32_t)((rs >> 8) % (uint32_t)(hi - lo + 1)); }
static int32_t blk(ti_task_graph *g, ti_block_type t, ti_dtype p, ti_task_shape s) { add(g, nid, t, p, s); return nid++; }
static void con(ti_task_graph *g, int32_t a, int32_t b, int32_t cl) {
  TT_CHECK(ti_task_connect(g, B(g, a), 0, NULL, NULL, B(g, b), cl, NULL, NULL) != NULL);
}
static int32_t data(ti_task_graph *g, ti_block_type t, ti_dtype p, ti_task_shape s, int32_t nd, const int32_t *dims,
                    int32_t lo, int32_t hi) {
  int32_t id = blk(g, t, p, s), k, n = 1, *v;
  for (k = 0; k < nd; k++) n *= dims[k];
  v = (int32_t *)malloc((size_t)n * sizeof *v);
  for (k = 0; k < n; k++) v[k] = rnd(lo, hi);
  TT_EQ_INT(ti_task_set_data(g, B(g, id), p, nd, dims, v), TI_STATUS_SUCCESS);
  free(v);
  return id;
}
static int32_t conv(ti_task_graph *g, int32_t in, int32_t hw, int32_t c, int32_t f) {
  int32_t wd[4], bd[1], sw, sb, cc;
  ti_task_shape s = ti_task_shape_make(hw, hw, f, c, 3, 3, 0, 0);
  wd[0] = f; wd[1] = c; wd[2] = 3; wd[3] = 3; bd[0] = f;
  sw = data(g, TI_BLOCK_SW, TI_DTYPE_I8, ti_task_shape_make(0, 0, f, c, 3, 3, 0, 0), 4, wd, -20, 20);
  sb = data(g, TI_BLOCK_SB, TI_DTYPE_I32, ti_task_shape_make(0, 0, f, 0, 0, 0, 0, 0), 1, bd, -500, 500);
  ti_task_shape_set(&s, TI_SHAPE_HAS_NIY, hw); ti_task_shape_set(&s, TI_SHAPE_HAS_NIX, hw);
  cc = blk(g, TI_BLOCK_CC, TI_DTYPE_I32, s);
  TT_EQ_INT(ti_task_add_attr(g, B(g, cc), TI_TASK_ATTR_PAD_UP, 1), TI_STATUS_SUCCESS); TT_EQ_INT(ti_task_add_attr(g, B(g, cc), TI_TASK_ATTR_PAD_DOWN, 1), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_task_add_attr(g, B(g, cc), TI_TASK_ATTR_PAD_LEFT, 1), TI_STATUS_SUCCESS); TT_EQ_INT(ti_task_add_attr(g, B(g, cc), TI_TASK_ATTR_PAD_RIGHT, 1), TI_STATUS_SUCCESS);
  con(g, in, cc, 0); con(g, sw, cc, 1); con(g, sb, cc, 2);
  return cc;
}
/* CCMPB with a win x win window (1: requantise) into an int8 SIC */
static int32_t ccmpb(ti_task_graph *g, int32_t in, int32_t hw, int32_t c, int32_t win, int32_t shift) {
  ti_task_shape s = ti_task_shape_make(hw / win, hw / win, c, 0, win, win, 0, 0);
  int32_t b, si;
  ti_task_shape_set(&s, TI_SHAPE_HAS_NIY, hw); ti_task_shape_set(&s, TI_SHAPE_HAS_NIX, hw);
  b = blk(g, TI_BLOCK_CCMPB, TI_DTYPE_I8, s);
  TT_EQ_INT(ti_task_add_attr(g, B(g, b), TI_TASK_ATTR_STRIDE_X, win), TI_STATUS_SUCCESS); TT_EQ_INT(ti_task_add_attr(g, B(g, b), TI_TASK_ATTR_STRIDE_Y, win), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_task_add_attr(g, B(g, b), TI_TASK_ATTR_CMP, 0), TI_STATUS_SUCCESS); TT_EQ_INT(ti_task_add_attr(g, B(g, b), TI_TASK_ATTR_BIT_SHIFT_NUM, shift), TI_STATUS_SUCCESS);
  si = blk(g, TI_BLOCK_SIC, TI_DTYPE_I8, ti_task_shape_make(hw / win, hw / win, 0, c, 0, 0, 0, 0));
  con(g, in, b, 0); con(g, b, si, 0);
  return si;
}
static int32_t si32(ti_task_graph *g, int32_t from, int32_t hw, int32_t c) {
  int32_t si = blk(g, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(hw, hw, c, 0, 0, 0, 0, 0));
  con(g, from, si, 0);
  return si;
}

static void build_resnet(ti_task_graph *g, int32_t hw, int32_t c, int32_t nblocks) {
  int32_t in, x, k, p, fcin, wd[2], bd[1], sw, sb, m, o, rd[1] = {3}, order[3] = {2, 1, 0};
  ti_task_edge *e;
  nid = 0;
  ti_task_graph_init(g, NULL);
  in = blk(g, TI_BLOCK_INPUT, TI_DTYPE_I8, ti_task_shape_make(hw, hw, 8, 0, 0, 0, 0, 0));
  x = blk(g, TI_BLOCK_SIC, TI_DTYPE_I8, ti_task_shape_make(hw, hw, 0, 8, 0, 0, 0, 0));
  con(g, in, x, 0);
  x = ccmpb(g, si32(g, conv(g, x, hw, 8, c), hw, c), hw, c, 1, 6);
  for (k = 0; k < nblocks; k++) {
    int32_t a = ccmpb(g, si32(g, conv(g, x, hw, c, c), hw, c), hw, c, 1, 9), s;
    a = si32(g, conv(g, a, hw, c, c), hw, c);
    s = blk(g, TI_BLOCK_CADD, TI_DTYPE_I32, ti_task_shape_make(hw, hw, c, 0, 0, 0, 0, 0));
    con(g, a, s, 0); con(g, x, s, 1);
    x = ccmpb(g, si32(g, s, hw, c), hw, c, 1, 9);
  }
  {   /* 2x2 max pool, flattened into the FC input by a RESHAPE edge */
    ti_task_shape ps = ti_task_shape_make(hw / 2, hw / 2, c, 0, 2, 2, 0, 0);
    ti_task_shape_set(&ps, TI_SHAPE_HAS_NIY, hw); ti_task_shape_set(&ps, TI_SHAPE_HAS_NIX, hw);
    p = blk(g, TI_BLOCK_CCMPB, TI_DTYPE_I8, ps);
    TT_EQ_INT(ti_task_add_attr(g, B(g, p), TI_TASK_ATTR_STRIDE_X, 2), TI_STATUS_SUCCESS); TT_EQ_INT(ti_task_add_attr(g, B(g, p), TI_TASK_ATTR_STRIDE_Y, 2), TI_STATUS_SUCCESS);
    TT_EQ_INT(ti_task_add_attr(g, B(g, p), TI_TASK_ATTR_CMP, 0), TI_STATUS_SUCCESS);
    con(g, x, p, 0);
  }
  fcin = blk(g, TI_BLOCK_SIFC, TI_DTYPE_I8, ti_task_shape_make(0, 0, 0, hw / 2 * hw / 2 * c, 0, 0, 0, 0));
  e = ti_task_connect(g, B(g, p), 0, NULL, NULL, B(g, fcin), 0, NULL, NULL);
  TT_CHECK(e != NULL);
  TT_EQ_INT(ti_task_add_rearrange(g, e, TI_REARRANGE_RESHAPE, 1, rd, order, 3), TI_STATUS_SUCCESS);
  wd[0] = 10; wd[1] = hw / 2 * hw / 2 * c; bd[0] = 10;
  sw = data(g, TI_BLOCK_SWFC, TI_DTYPE_I8, ti_task_shape_make(0, 0, 10, wd[1], 0, 0, 0, 0), 2, wd, -30, 30);
  sb = data(g, TI_BLOCK_SB, TI_DTYPE_I32, ti_task_shape_make(0, 0, 10, 0, 0, 0, 0, 0), 1, bd, -500, 500);
  m = blk(g, TI_BLOCK_CVM, TI_DTYPE_I32, ti_task_shape_make(0, 0, 10, wd[1], 0, 0, 0, 0));
  con(g, fcin, m, 0); con(g, sw, m, 1); con(g, sb, m, 2);
  o = blk(g, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(0, 0, 10, 0, 0, 0, 0, 0));
  con(g, m, o, 0);
  k = blk(g, TI_BLOCK_OUTPUT, TI_DTYPE_I32, ti_task_shape_make(0, 0, 10, 0, 0, 0, 0, 0));
  con(g, o, k, 0);
  k = blk(g, TI_BLOCK_OUTPUT, TI_DTYPE_I8, ti_task_shape_make(hw, hw, c, 0, 0, 0, 0, 0));
  con(g, x, k, 0);
}

/* Counts the hook's calls, passing them on to the pool. */
typedef struct counting { ti_pool *pool; int64_t calls; } counting;
static void counting_for(void *user, int64_t n, ti_range_fn fn, void *arg) {
  counting *c = (counting *)user;
  __atomic_fetch_add(&c->calls, 1, __ATOMIC_RELAXED);
  ti_pool_parallel_for(c->pool, n, fn, arg);
}

static ti_exec *plan_min(const ti_task_graph *g, int threads, counting *cnt, int64_t parallel_min) {
  ti_exec_options o;
  ti_exec *x = NULL;
  ti_error err;
  ti_error_clear(&err);
  ti_exec_options_init(&o);
  o.keep_all = 1;   /* every block readable after a run */
  o.threads = threads;
  o.parallel_min = parallel_min;
  if (cnt) { o.parallel_for = counting_for; o.parallel_user = cnt; }
  TT_CHECK_MSG(ti_exec_plan(g, &o, &x, &err) == TI_STATUS_SUCCESS, "plan: %s", err.message);
  return x;
}
static ti_exec *plan(const ti_task_graph *g, int threads, counting *cnt) { return plan_min(g, threads, cnt, 0); }

/* Feeds the same input to both plans, runs, compares every block. */
static void run_compare(ti_exec *x1, ti_exec *xn, int threads, int run) {
  ti_error err;
  int32_t i;
  ti_error_clear(&err);
  for (i = 0; i < ti_exec_num_inputs(x1); i++) {
    int64_t n = ti_exec_input_count(x1, i), q;
    int32_t *v = (int32_t *)malloc((size_t)n * sizeof *v), s = ti_exec_input_socket(x1, i);
    for (q = 0; q < n; q++) v[q] = rnd(-128, 127);
    TT_EQ_INT(ti_exec_set_input(x1, s, v, n, &err), TI_STATUS_SUCCESS);
    TT_EQ_INT(ti_exec_set_input(xn, s, v, n, &err), TI_STATUS_SUCCESS);
    free(v);
  }
  TT_EQ_INT(ti_exec_run(x1, &err), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_exec_run(xn, &err), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_exec_num_blocks(x1), ti_exec_num_blocks(xn));
  for (i = 0; i < ti_exec_num_blocks(x1); i++) {
    ti_exec_tensor a, b;
    int32_t id = ti_exec_block_id(x1, i);
    if (ti_exec_block(x1, id, &a, &err) != TI_STATUS_SUCCESS) continue;   /* blocks without data */
    TT_EQ_INT(ti_exec_block(xn, id, &b, &err), TI_STATUS_SUCCESS);
    TT_CHECK_MSG(a.count == b.count && a.dtype == b.dtype &&
                 memcmp(a.data, b.data, (size_t)a.count * ti_dtype_size(a.dtype)) == 0,
                 "block %d differs on %d threads (run %d)", (int)id, threads, run);
  }
}

static void check_graph(const ti_task_graph *g) {
  static const int nthreads[3] = {2, 3, 4};
  ti_exec *x1 = plan(g, 1, NULL);
  int t, run;
  for (t = 0; t < 3; t++) {
    counting cnt;
    ti_exec *xn;
    cnt.calls = 0;
    TT_EQ_INT(ti_pool_create(&cnt.pool, nthreads[t]), 0);
    TT_EQ_INT(ti_pool_threads(cnt.pool), nthreads[t]);
    xn = plan(g, nthreads[t], &cnt);
    for (run = 0; x1 && xn && run < 3; run++) run_compare(x1, xn, nthreads[t], run);
    TT_CHECK_MSG(cnt.calls > 0, "%d threads: no kernel used the hook", nthreads[t]);
    ti_exec_free(xn);
    ti_pool_free(cnt.pool);
  }
  ti_exec_free(x1);
}

TT_TEST(resnet_like_on_threads) {
  ti_task_graph g;
  build_resnet(&g, 16, 32, 3);
  check_graph(&g);
  ti_task_graph_free(&g);
}

TT_TEST(threads_one_keeps_the_hook_out) {
  ti_task_graph g;
  counting cnt;
  ti_exec *x;
  ti_error err;
  ti_error_clear(&err);
  build_resnet(&g, 8, 16, 1);
  cnt.calls = 0;
  TT_EQ_INT(ti_pool_create(&cnt.pool, 2), 0);
  x = plan(&g, 1, &cnt);
  if (x) {
    int32_t i;
    for (i = 0; i < ti_exec_num_inputs(x); i++) {
      int64_t n = ti_exec_input_count(x, i);
      int32_t *v = (int32_t *)calloc((size_t)n, sizeof *v);
      TT_EQ_INT(ti_exec_set_input(x, ti_exec_input_socket(x, i), v, n, &err), TI_STATUS_SUCCESS);
      free(v);
    }
    TT_EQ_INT(ti_exec_run(x, &err), TI_STATUS_SUCCESS);
  }
  TT_EQ_INT(cnt.calls, 0);
  ti_exec_free(x);
  ti_pool_free(cnt.pool);
  ti_task_graph_free(&g);
}

/* Blocks below TASKIR_EXEC_PARALLEL_MIN work stay on the calling thread:
   a 4x4x8 ResNet-like graph on 2 threads never calls the hook, and gives
   the one-thread results. */
TT_TEST(small_blocks_stay_on_the_caller) {
  ti_task_graph g;
  counting cnt;
  ti_exec *x1, *x2;
  build_resnet(&g, 4, 8, 1);
  cnt.calls = 0;
  TT_EQ_INT(ti_pool_create(&cnt.pool, 2), 0);
  x1 = plan(&g, 1, NULL);
  x2 = plan(&g, 2, &cnt);
  if (x1 && x2) run_compare(x1, x2, 2, 0);
  TT_EQ_INT(cnt.calls, 0);
  ti_exec_free(x1);
  ti_exec_free(x2);
  ti_pool_free(cnt.pool);
  ti_task_graph_free(&g);
}

/* ti_exec_options.parallel_min = 1: every block and every one-run
   conversion copy (here the int8 skip into the int32 CADD) goes through the
   hook, cut as the kernels cut their outputs; the 4x4x8 graph that stays
   on the caller by default then calls the hook on every run and still
   gives the one-thread results, on 2 and 3 threads. */
TT_TEST(parallel_min_one_splits_blocks_and_copies) {
  ti_task_graph g;
  int t;
  build_resnet(&g, 4, 8, 2);
  for (t = 2; t <= 3; t++) {
    counting cnt, cnt0;
    ti_exec *x1, *xn, *x0;
    int run;
    cnt.calls = cnt0.calls = 0;
    TT_EQ_INT(ti_pool_create(&cnt.pool, t), 0);
    cnt0.pool = cnt.pool;
    x1 = plan(&g, 1, NULL);
    xn = plan_min(&g, t, &cnt, 1);
    x0 = plan(&g, t, &cnt0);
    for (run = 0; x1 && xn && run < 3; run++) run_compare(x1, xn, t, run);
    if (x1 && x0) run_compare(x1, x0, t, 0);
    /* 28 calls a run: 24 from the kernels, 4 from the copies (24 without
       their split) */
    TT_CHECK_MSG(cnt.calls >= 3 * 28, "%d threads, parallel_min 1: %lld hook calls in 3 runs", t, (long long)cnt.calls);
    TT_EQ_INT(cnt0.calls, 0);
    ti_exec_free(x1);
    ti_exec_free(xn);
    ti_exec_free(x0);
    ti_pool_free(cnt.pool);
  }
  ti_task_graph_free(&g);
}

/* The pool on its own: every index covered exactly once, nested calls run
   inline, ranges of 0 and 1. */
typedef struct cover { int *hits; ti_pool *pool; int64_t nested; } cover;
static void mark(void *arg, int64_t b, int64_t e) {
  cover *c = (cover *)arg;
  int64_t i;
  for (i = b; i < e; i++) __atomic_fetch_add(&c->hits[i], 1, __ATOMIC_RELAXED);
}
static void nest(void *arg, int64_t b, int64_t e) {
  cover *c = (cover *)arg;
  for (; b < e; b++) ti_pool_parallel_for(c->pool, 5, mark, c);   /* inline: the pool is busy */
  __atomic_fetch_add(&c->nested, 1, __ATOMIC_RELAXED);
}

TT_TEST(pool_covers_every_index_once) {
  static const int64_t ns[6] = {0, 1, 2, 7, 1000, 100003};
  cover c;
  int t, k;
  int64_t i;
  for (t = 1; t <= 4; t++) {
    TT_EQ_INT(ti_pool_create(&c.pool, t), 0);
    for (k = 0; k < 6; k++) {
      c.hits = (int *)calloc((size_t)ns[k] + 1, sizeof *c.hits);
      ti_pool_parallel_for(c.pool, ns[k], mark, &c);
      for (i = 0; i < ns[k]; i++) if (c.hits[i] != 1) break;
      TT_CHECK_MSG(i == ns[k], "%d threads, n %lld: index %lld hit %d times", t, (long long)ns[k], (long long)i,
                   i < ns[k] ? c.hits[i] : 0);
      free(c.hits);
    }
    c.hits = (int *)calloc(5, sizeof *c.hits); c.nested = 0;
    ti_pool_parallel_for(c.pool, 9, nest, &c);
    for (i = 0; i < 5; i++) TT_EQ_INT(c.hits[i], 9);
    free(c.hits);
    ti_pool_free(c.pool);
  }
  TT_CHECK(ti_pool_create(&c.pool, 0) != 0 && c.pool == NULL);
  TT_CHECK(ti_pool_create(&c.pool, TI_POOL_MAX_THREADS + 1) != 0 && c.pool == NULL);
}

/* Jobs back to back (a worker may still be counting itself into the last
   one when the next is posted), jobs after the workers went to sleep, and
   two threads posting jobs to one pool at once (one of them runs inline):
   every index of every job is run exactly once. */
typedef struct poster { ti_pool *pool; int *hits; int64_t n; int jobs; } poster;
static void *post_jobs(void *arg) {
  poster *q = (poster *)arg;
  cover c;
  int j;
  c.pool = q->pool; c.hits = q->hits; c.nested = 0;
  for (j = 0; j < q->jobs; j++) ti_pool_parallel_for(q->pool, q->n, mark, &c);
  return NULL;
}
TT_TEST(pool_back_to_back_asleep_and_concurrent) {
  int t, j, k;
  int64_t i;
  for (t = 2; t <= 3; t++) {
    ti_pool *pool;
    poster q[2];
    pthread_t th;
    TT_EQ_INT(ti_pool_create(&pool, t), 0);
    for (k = 0; k < 2; k++) {
      q[k].pool = pool; q[k].n = 37 + 20 * k; q[k].jobs = 3000;
      q[k].hits = (int *)calloc((size_t)q[k].n, sizeof *q[k].hits);
    }
    post_jobs(&q[0]);   /* back to back, n varying job to job below */
    for (j = 0; j < 3000; j++) {
      cover c;
      c.pool = pool; c.hits = q[1].hits; c.nested = 0;
      ti_pool_parallel_for(pool, 1 + j % (int)q[1].n, mark, &c);
    }
    for (i = 0; i < q[0].n; i++) TT_EQ_INT(q[0].hits[i], 3000);
    for (i = 0, k = 0; i < q[1].n; i++) {   /* index i is in the jobs with n > i */
      int want = 0;
      for (j = 0; j < 3000; j++) want += 1 + j % (int)q[1].n > i;
      if (q[1].hits[i] != want) k++;
    }
    TT_EQ_INT(k, 0);
    for (j = 0; j < 3; j++) {   /* after the workers stopped polling (TI_POOL_SPIN_US) */
      struct timespec ts = {0, 4000000};
      nanosleep(&ts, NULL);
      memset(q[0].hits, 0, (size_t)q[0].n * sizeof *q[0].hits);
      q[0].jobs = 1;
      post_jobs(&q[0]);
      for (i = 0; i < q[0].n; i++) TT_EQ_INT(q[0].hits[i], 1);
    }
    for (k = 0; k < 2; k++) { memset(q[k].hits, 0, (size_t)q[k].n * sizeof *q[k].hits); q[k].jobs = 2000; }
    TT_EQ_INT(pthread_create(&th, NULL, post_jobs, &q[1]), 0);   /* two posters at once */
    post_jobs(&q[0]);
    TT_EQ_INT(pthread_join(th, NULL), 0);
    for (k = 0; k < 2; k++)
      for (i = 0; i < q[k].n; i++) TT_EQ_INT(q[k].hits[i], 2000);
    ti_pool_free(pool);
    free(q[0].hits); free(q[1].hits);
  }
}

int main(void) {
  TT_RUN(resnet_like_on_threads);
  TT_RUN(threads_one_keeps_the_hook_out);
  TT_RUN(small_blocks_stay_on_the_caller);
  TT_RUN(parallel_min_one_splits_blocks_and_copies);
  TT_RUN(pool_covers_every_index_once);
  TT_RUN(pool_back_to_back_asleep_and_concurrent);
  return tt_finish();
}
