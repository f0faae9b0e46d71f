/* The executor's default profile clock is wall time: a run with known work
   (a 3x3 int8 convolution of 56x56x64 -> 64, split over 2 threads by the
   pool of tools/taskir_pool.h, whose hook also sleeps 5 ms per call: wall
   time that costs no CPU) profiles at least the sleeps and never more than
   the monotonic wall time measured around ti_exec_run. clock(), CPU time
   summed over the threads, misses the sleeps (and counts both threads'
   work). The test is built with _POSIX_C_SOURCE, so the header's <time.h>
   declares clock_gettime. */
#define _POSIX_C_SOURCE 200809L
#define TASKIR_IMPLEMENTATION
#include "taskir_exec.h"
#include "tools/taskir_pool.h"
#include "tt.h"
#include "tt_task.h"

static double wall(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The pool's hook, then 5 ms asleep; counts its calls. */
typedef struct sleepy { ti_pool *pool; int64_t calls; } sleepy;
static void sleepy_for(void *user, int64_t n, ti_range_fn fn, void *arg) {
  sleepy *s = (sleepy *)user;
  struct timespec t;
  ti_pool_parallel_for(s->pool, n, fn, arg);
  t.tv_sec = 0; t.tv_nsec = 5000000;
  while (nanosleep(&t, &t) != 0) {}
  s->calls++;
}

static void con(ti_task_graph *g, int32_t a, int32_t b, int32_t cl) {
  TT_CHECK(ti_task_connect(g, B(g, a), 0, NULL, NULL, B(g, b), cl, NULL, NULL) != NULL);
}

/* INPUT -> SIC (int8) -> CC 3x3 pad 1 (weights SW) -> SI -> OUTPUT */
static void build_conv(ti_task_graph *g, int32_t hw, int32_t c) {
  ti_task_shape s = ti_task_shape_make(hw, hw, c, c, 3, 3, 0, 0);
  int32_t wd[4], k, n = c * c * 9, *w = (int32_t *)malloc((size_t)n * sizeof *w);
  ti_task_graph_init(g, NULL);
  add(g, 0, TI_BLOCK_INPUT, TI_DTYPE_I8, ti_task_shape_make(hw, hw, c, 0, 0, 0, 0, 0));
  add(g, 1, TI_BLOCK_SIC, TI_DTYPE_I8, ti_task_shape_make(hw, hw, 0, c, 0, 0, 0, 0));
  add(g, 2, TI_BLOCK_SW, TI_DTYPE_I8, ti_task_shape_make(0, 0, c, c, 3, 3, 0, 0));
  wd[0] = c; wd[1] = c; wd[2] = 3; wd[3] = 3;
  for (k = 0; k < n; k++) w[k] = (k * 37) % 41 - 20;
  TT_EQ_INT(ti_task_set_data(g, B(g, 2), TI_DTYPE_I8, 4, wd, w), TI_STATUS_SUCCESS);
  free(w);
  ti_task_shape_set(&s, TI_SHAPE_HAS_NIY, hw); ti_task_shape_set(&s, TI_SHAPE_HAS_NIX, hw);
  add(g, 3, TI_BLOCK_CC, TI_DTYPE_I32, s);
  TT_EQ_INT(ti_task_add_attr(g, B(g, 3), TI_TASK_ATTR_PAD_UP, 1), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_task_add_attr(g, B(g, 3), TI_TASK_ATTR_PAD_DOWN, 1), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_task_add_attr(g, B(g, 3), TI_TASK_ATTR_PAD_LEFT, 1), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_task_add_attr(g, B(g, 3), TI_TASK_ATTR_PAD_RIGHT, 1), TI_STATUS_SUCCESS);
  add(g, 4, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(hw, hw, c, 0, 0, 0, 0, 0));
  add(g, 5, TI_BLOCK_OUTPUT, TI_DTYPE_I32, ti_task_shape_make(hw, hw, c, 0, 0, 0, 0, 0));
  con(g, 0, 1, 0); con(g, 1, 3, 0); con(g, 2, 3, 1); con(g, 3, 4, 0); con(g, 4, 5, 0);
}

TT_TEST(default_profile_clock_is_wall_time) {
  const int32_t hw = 56, c = 64;
  ti_task_graph g;
  sleepy sl;
  ti_exec_options o;
  ti_exec *x = NULL;
  ti_error err;
  int32_t *in = (int32_t *)calloc((size_t)hw * hw * c, sizeof *in);
  int64_t k;
  int run;
  ti_error_clear(&err);
  for (k = 0; k < (int64_t)hw * hw * c; k++) in[k] = (int32_t)((k * 13) % 255) - 127;
  build_conv(&g, hw, c);
  sl.calls = 0;
  TT_EQ_INT(ti_pool_create(&sl.pool, 2), 0);
  ti_exec_options_init(&o);
  o.profile = 1;
  o.threads = 2;
  o.parallel_for = sleepy_for;
  o.parallel_user = &sl;
  TT_CHECK_MSG(ti_exec_plan(&g, &o, &x, &err) == TI_STATUS_SUCCESS, "plan: %s", err.message);
  TT_EQ_INT(ti_exec_set_input(x, 0, in, (int64_t)hw * hw * c, &err), TI_STATUS_SUCCESS);
  for (run = 0; x && run < 5; run++) {
    const ti_exec_profile *p;
    double before = ti_exec_get_profile(x)->total_seconds, t0 = wall(), t1;
    int64_t calls = sl.calls;
    TT_EQ_INT(ti_exec_run(x, &err), TI_STATUS_SUCCESS);
    t1 = wall();
    p = ti_exec_get_profile(x);
    calls = sl.calls - calls;
    TT_CHECK_MSG(calls > 0, "run %d: the conv did not use the hook", run);
    TT_CHECK_MSG(p->total_seconds - before >= 0.005 * (double)calls, "run %d: profiled %g s, the hook slept %g s",
                 run, p->total_seconds - before, 0.005 * (double)calls);
    TT_CHECK_MSG(p->total_seconds - before <= t1 - t0, "run %d: profiled %g s of a %g s wall-clock run (CPU time?)",
                 run, p->total_seconds - before, t1 - t0);
    TT_CHECK(p->kernel_seconds > 0 && p->kernel_seconds <= p->total_seconds);
  }
  ti_exec_free(x);
  ti_pool_free(sl.pool);
  ti_task_graph_free(&g);
  free(in);
}

int main(void) {
  TT_RUN(default_profile_clock_is_wall_time);
  return tt_finish();
}
