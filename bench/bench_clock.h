/* bench/bench_clock.h - shared by the kernel benches (after the POSIX
   headers): now() in seconds of this thread's CPU time (robust on a shared
   machine) and avail_bytes(), the free physical memory (1 GiB if unknown). */
#ifndef BENCH_CLOCK_H
#define BENCH_CLOCK_H
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static size_t avail_bytes(void) {
  long p = sysconf(_SC_AVPHYS_PAGES), s = sysconf(_SC_PAGESIZE);
  return (p > 0 && s > 0) ? (size_t)p * (size_t)s : (size_t)1 << 30;
}
#endif
