/* bench/bench_fresh.h - fresh_sample(run, arg, &wall, &cpu): runs
   run(arg) once in a freshly forked child (after the POSIX headers), as a
   compiler invoked once per model does: every page the work touches is a
   first touch, at every size. The child times its own work (monotonic
   wall-clock time and its own CPU time, page faults included) and sends
   both back through a pipe; the parent waits for it. run returns 0 on
   success. Returns 0, or 1 when the child could not be run or failed.
   Before the fork, the parent's free heap memory goes back to the system
   (glibc's malloc_trim), so the child's allocations get zeroed pages as a
   new process's would, not copies of the parent's warm ones. */
#ifndef BENCH_FRESH_H
#define BENCH_FRESH_H
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <time.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

static double fresh_clock(clockid_t id) {
  struct timespec t;
  clock_gettime(id, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int fresh_sample(int (*run)(void *), void *arg, double *wall, double *cpu) {
  int fd[2], status = 0;
  double got[2];
  size_t have = 0;
  pid_t pid;
  if (pipe(fd) != 0) return 1;
  fflush(stdout);
#ifdef __GLIBC__
  malloc_trim(0);
#endif
  pid = fork();
  if (pid < 0) { close(fd[0]); close(fd[1]); return 1; }
  if (pid == 0) {
    double w0, c0, out[2];
    close(fd[0]);
    w0 = fresh_clock(CLOCK_MONOTONIC);
    c0 = fresh_clock(CLOCK_THREAD_CPUTIME_ID);
    if (run(arg) != 0) _exit(1);
    out[0] = fresh_clock(CLOCK_MONOTONIC) - w0;
    out[1] = fresh_clock(CLOCK_THREAD_CPUTIME_ID) - c0;
    if (write(fd[1], out, sizeof out) != (ssize_t)sizeof out) _exit(1);
    _exit(0);   /* no atexit handlers, no stdio flush of the parent's buffers */
  }
  close(fd[1]);
  while (have < sizeof got) {
    ssize_t r = read(fd[0], (char *)got + have, sizeof got - have);
    if (r <= 0) break;
    have += (size_t)r;
  }
  close(fd[0]);
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || have != sizeof got) return 1;
  *wall = got[0];
  *cpu = got[1];
  return 0;
}
#endif
