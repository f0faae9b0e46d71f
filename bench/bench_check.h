/* bench/bench_check.h - BENCH_OK(call): a call whose ti_status a bench needs
   (setup, and the timed calls themselves) must succeed; otherwise the bench
   names the call and its status and exits: it never times a failed call. */
#ifndef BENCH_CHECK_H
#define BENCH_CHECK_H
#include <stdio.h>
#include <stdlib.h>
#define BENCH_OK(call)                                                                      \
  do {                                                                                      \
    ti_status bench_st_ = (call);                                                           \
    if (bench_st_ != TI_STATUS_SUCCESS) {                                                   \
      fprintf(stderr, "%s:%d: %s failed (status %d)\n", __FILE__, __LINE__, #call, (int)bench_st_); \
      exit(1);                                                                              \
    }                                                                                       \
  } while (0)
#if defined(_POSIX_C_SOURCE) && _POSIX_C_SOURCE >= 200112L
/* n bytes at a 64-byte boundary (free() them), as a user who follows
   taskir_kernels.h puts packed weights; exits when out of memory. */
__attribute__((unused)) static void *bench_alloc64(size_t n) {
  void *p = NULL;
  if (posix_memalign(&p, 64, n ? n : 1) != 0) { fprintf(stderr, "out of memory\n"); exit(1); }
  return p;
}
#endif
#endif
