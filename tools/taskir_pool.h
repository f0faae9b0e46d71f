/* taskir_pool.h - a small pthread pool that drives the kernels' parallel_for.

   The taskir headers create no threads: a kernel cuts its work into an index
   range and hands it to ti_kernel_ctx.parallel_for (ti_exec_options.
   parallel_for for the executor). This pool is one such hook, used by the
   taskir tool (`taskir run --threads N`), the tests and the benchmarks:

       ti_pool *pool;
       if (ti_pool_create(&pool, 2) != 0) ... ;      // the caller + 1 worker
       o.parallel_for = ti_pool_parallel_for;        // ti_exec_options o
       o.parallel_user = pool;
       o.threads = ti_pool_threads(pool);
       ... plan, run ...
       ti_pool_free(pool);                            // after the last run

   ti_pool_parallel_for runs fn on disjoint sub-ranges covering [0, n) on the
   calling thread and the workers and returns when all are done. [0, n) is
   cut into one contiguous segment per thread (the caller the first, worker
   k the (k+1)-th), and each thread claims chunks of its own segment first
   (half of what is left in it, down to a 32nd of the segment), then of
   the others', so a thread slowed by other load takes fewer. Owning the
   same part of every job keeps data where it was made: the executor's
   consecutive blocks split their pixels alike, so what a thread writes in
   one block it reads in the next, from its own cache (two vCPUs of a
   virtual machine can sit on different dies, where moving a cache line
   between them costs ~250 ns; with chunks claimed from one shared front,
   a ResNet-like graph ran slower on two threads than on one). A
   call made while the pool is busy (from inside fn, or from another thread)
   runs fn(arg, 0, n) on the calling thread.

   Between jobs a worker stays hot for TI_POOL_SPIN_US microseconds (the
   kernel calls of one executor run follow each other within microseconds,
   while waking a sleeping thread costs tens of them), polling with the
   CPU's pause hint and yielding its core about every TI_POOL_YIELD_US (so a
   worker that shares a core with the caller on a loaded machine does not
   take all its time); then it sleeps on a condition variable. Chunks are
   claimed with an atomic compare-and-swap, never under the mutex: a thread
   that found the mutex held would sleep in the kernel, and waking it again
   costs tens of microseconds on a virtual machine (the mutex only guards
   going to sleep and waking up). Needs POSIX threads (-pthread),
   clock_gettime (_POSIX_C_SOURCE >= 199309L) and the GCC/Clang __atomic
   builtins. */
#ifndef TASKIR_POOL_H
#define TASKIR_POOL_H

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#if !defined(CLOCK_MONOTONIC)
#error "tools/taskir_pool.h needs clock_gettime(CLOCK_MONOTONIC): define _POSIX_C_SOURCE as 200809L before the first #include (or build with -D_POSIX_C_SOURCE=200809L, or -std=gnu99)"
#endif

#include "taskir_kernels.h"

#define TI_POOL_MAX_THREADS 256

/* How long (microseconds) a thread polls for the next job, or the caller
   for the last chunk, before it sleeps on a condition variable. */
#ifndef TI_POOL_SPIN_US
#define TI_POOL_SPIN_US 2000
#endif
/* How often (microseconds) a polling thread gives its core away. */
#ifndef TI_POOL_YIELD_US
#define TI_POOL_YIELD_US 1
#endif

#if !defined(__GNUC__) && !defined(__clang__)
#error "tools/taskir_pool.h needs the GCC/Clang __atomic builtins"
#endif
#define TI__POOL_LOAD(x) __atomic_load_n(&(x), __ATOMIC_SEQ_CST)
#define TI__POOL_STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_SEQ_CST)
#define TI__POOL_ADD(x, v) __atomic_add_fetch(&(x), (v), __ATOMIC_SEQ_CST)
#if defined(__x86_64__) || defined(__i386__)
#define TI__POOL_PAUSE() __asm__ __volatile__("pause" ::: "memory")
#elif defined(__aarch64__)
#define TI__POOL_PAUSE() __asm__ __volatile__("yield" ::: "memory")
#else
#define TI__POOL_PAUSE() __asm__ __volatile__("" ::: "memory")
#endif

typedef struct ti_pool {
  pthread_mutex_t mu;           /* guards sleeping and waking only */
  pthread_cond_t work_cv, done_cv;
  pthread_t *th;
  int n_workers, started;
  /* shared, through the atomics above */
  int stop, busy, open, active, sleeping, waiting;
  uint64_t gen;                 /* bumped for every job */
  int64_t *next;                /* per segment, the first unclaimed index (one line each) */
  int ids;                      /* workers numbered 1.. as they start */
  /* the current job: written by the caller before open is set, read by a
     worker only after it counted itself in active and saw open set */
  ti_range_fn fn;
  void *arg;
  int64_t n, min_grain;
} ti_pool;

/* Threads that run a job: the caller and the workers. */
static inline int ti_pool_threads(const ti_pool *p) { return p ? p->n_workers + 1 : 1; }

#define TI__POOL_LINE 8   /* int64s per cache line: each segment's cursor on its own */

/* Segment k of the current job: [ti__pool_seg(p, k), ti__pool_seg(p, k + 1)). */
static inline int64_t ti__pool_seg(const ti_pool *p, int k) {
  const int64_t t = p->n_workers + 1;
  return p->n / t * k + (p->n % t) * k / t;
}

/* Claims and runs chunks of the current job until none is left: thread
   `self` (0 = the caller) from its own segment first, then the others'. */
static inline void ti__pool_work(ti_pool *p, int self) {
  const int t = p->n_workers + 1;
  const int64_t grain = p->min_grain;
  const ti_range_fn fn = p->fn;
  void *const arg = p->arg;
  int i;
  for (i = 0; i < t; i++) {
    const int k = (self + i) % t;
    const int64_t end = ti__pool_seg(p, k + 1);
    int64_t *cur = &p->next[k * TI__POOL_LINE];
    int64_t b = __atomic_load_n(cur, __ATOMIC_ACQUIRE), c, e;
    for (;;) {
      do {
        if (b >= end) break;
        c = (end - b) / 2;
        if (c < grain) c = grain;
        e = end - b > c ? b + c : end;
      } while (!__atomic_compare_exchange_n(cur, &b, e, 1, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
      if (b >= end) break;
      fn(arg, b, e);
      b = __atomic_load_n(cur, __ATOMIC_ACQUIRE);
    }
  }
}

static inline double ti__pool_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

/* Polls for up to TI_POOL_SPIN_US: a worker (seen = the job it saw last)
   until a new job or stop; the caller (worker = 0) until no worker runs a
   chunk. 1 if that happened. */
static inline int ti__pool_poll(ti_pool *p, int worker, uint64_t seen) {
  double t0 = -1, ty = 0;
  long k;
  for (k = 1;; k++) {
    if (worker ? TI__POOL_LOAD(p->gen) != seen || TI__POOL_LOAD(p->stop) : TI__POOL_LOAD(p->active) == 0) return 1;
    TI__POOL_PAUSE();
    if ((k & 63) == 0) {   /* about a microsecond of pauses */
      double t = ti__pool_now();
      if (t0 < 0) t0 = ty = t;
      else if (t - t0 > (double)TI_POOL_SPIN_US) return 0;
      else if (t - ty > (double)TI_POOL_YIELD_US) { sched_yield(); ty = t; }
    }
  }
}

static inline void *ti__pool_main(void *user) {
  ti_pool *p = (ti_pool *)user;
  const int self = TI__POOL_ADD(p->ids, 1);   /* 1..n_workers: the segment after the caller's */
  uint64_t seen = TI__POOL_LOAD(p->gen);
  for (;;) {
    if (!ti__pool_poll(p, 1, seen)) {   /* nothing for a while: sleep */
      pthread_mutex_lock(&p->mu);
      TI__POOL_ADD(p->sleeping, 1);
      while (!TI__POOL_LOAD(p->stop) && TI__POOL_LOAD(p->gen) == seen) pthread_cond_wait(&p->work_cv, &p->mu);
      TI__POOL_ADD(p->sleeping, -1);
      pthread_mutex_unlock(&p->mu);
    }
    if (TI__POOL_LOAD(p->stop)) break;
    seen = TI__POOL_LOAD(p->gen);
    /* count in, then look: the caller closes the job and then waits for
       active == 0, so either it waits for this thread or this thread sees
       the job closed and leaves its fields alone */
    TI__POOL_ADD(p->active, 1);
    if (TI__POOL_LOAD(p->open)) ti__pool_work(p, self);
    if (TI__POOL_ADD(p->active, -1) == 0 && TI__POOL_LOAD(p->waiting)) {
      pthread_mutex_lock(&p->mu);
      pthread_cond_broadcast(&p->done_cv);
      pthread_mutex_unlock(&p->mu);
    }
  }
  return NULL;
}

static inline void ti_pool_free(ti_pool *p) {
  int i;
  if (!p) return;
  pthread_mutex_lock(&p->mu);
  TI__POOL_STORE(p->stop, 1);
  pthread_cond_broadcast(&p->work_cv);
  pthread_mutex_unlock(&p->mu);
  for (i = 0; i < p->started; i++) pthread_join(p->th[i], NULL);
  pthread_cond_destroy(&p->work_cv);
  pthread_cond_destroy(&p->done_cv);
  pthread_mutex_destroy(&p->mu);
  free(p->th);
  free(p->next);
  free(p);
}

/* threads: 1..TI_POOL_MAX_THREADS, the caller included (threads - 1
   workers are started). Returns 0, or -1 (bad count, out of memory, or a
   thread that could not be started; *out is then NULL). */
static inline int ti_pool_create(ti_pool **out, int threads) {
  ti_pool *p;
  int i;
  *out = NULL;
  if (threads < 1 || threads > TI_POOL_MAX_THREADS) return -1;
  if (!(p = (ti_pool *)calloc(1, sizeof *p))) return -1;
  p->n_workers = threads - 1;
  if (p->n_workers && !(p->th = (pthread_t *)calloc((size_t)p->n_workers, sizeof *p->th))) { free(p); return -1; }
  if (!(p->next = (int64_t *)calloc((size_t)threads * TI__POOL_LINE, sizeof *p->next))) { free(p->th); free(p); return -1; }
  if (pthread_mutex_init(&p->mu, NULL) != 0) { free(p->next); free(p->th); free(p); return -1; }
  if (pthread_cond_init(&p->work_cv, NULL) != 0) { pthread_mutex_destroy(&p->mu); free(p->next); free(p->th); free(p); return -1; }
  if (pthread_cond_init(&p->done_cv, NULL) != 0) {
    pthread_cond_destroy(&p->work_cv); pthread_mutex_destroy(&p->mu); free(p->next); free(p->th); free(p); return -1;
  }
  for (i = 0; i < p->n_workers; i++) {
    if (pthread_create(&p->th[i], NULL, ti__pool_main, p) != 0) { ti_pool_free(p); return -1; }
    p->started++;
  }
  *out = p;
  return 0;
}

/* The ti_parallel_for_fn of the pool (user = the ti_pool). */
static inline void ti_pool_parallel_for(void *user, int64_t n, ti_range_fn fn, void *arg) {
  ti_pool *p = (ti_pool *)user;
  int k;
  if (n <= 0) return;
  if (!p || p->n_workers == 0 || n == 1 || __atomic_exchange_n(&p->busy, 1, __ATOMIC_ACQUIRE)) {
    fn(arg, 0, n);
    return;
  }
  p->fn = fn; p->arg = arg; p->n = n;
  /* chunks: half of what is left of a segment, down to a 32nd of it */
  p->min_grain = (n + 32 * (int64_t)(p->n_workers + 1) - 1) / (32 * (int64_t)(p->n_workers + 1));
  for (k = 0; k <= p->n_workers; k++) __atomic_store_n(&p->next[k * TI__POOL_LINE], ti__pool_seg(p, k), __ATOMIC_RELAXED);
  TI__POOL_STORE(p->open, 1);
  TI__POOL_ADD(p->gen, 1);
  if (TI__POOL_LOAD(p->sleeping)) {
    pthread_mutex_lock(&p->mu);
    pthread_cond_broadcast(&p->work_cv);
    pthread_mutex_unlock(&p->mu);
  }
  ti__pool_work(p, 0);
  /* every chunk is claimed: close the job, wait for the workers in it */
  TI__POOL_STORE(p->open, 0);
  if (TI__POOL_LOAD(p->active) > 0 && !ti__pool_poll(p, 0, 0)) {
    pthread_mutex_lock(&p->mu);
    TI__POOL_STORE(p->waiting, 1);
    while (TI__POOL_LOAD(p->active) > 0) pthread_cond_wait(&p->done_cv, &p->mu);
    TI__POOL_STORE(p->waiting, 0);
    pthread_mutex_unlock(&p->mu);
  }
  __atomic_store_n(&p->busy, 0, __ATOMIC_RELEASE);
}

#endif /* TASKIR_POOL_H */
