/* tests/count_alloc.h - the counting allocator that the memory tests and
   benchmarks plug into TASKIR_MALLOC / TASKIR_REALLOC / TASKIR_FREE; include
   it before the first taskir header of the file.

   An allocation is counted in the count_alloc its user pointer names (a
   ti_context's or ti_task_graph's alloc user, ti_lower_options.alloc_user),
   or, with a NULL user pointer, in count_alloc_default. Each block carries
   its size in a 16-byte header. */
#ifndef COUNT_ALLOC_H
#define COUNT_ALLOC_H
#include <stdlib.h>
#include <string.h>

typedef struct count_alloc {
  long calls;       /* allocations and reallocations so far */
  long fail_at;     /* the call, counted from 1, that fails; 0: none */
  long blocks;      /* blocks live */
  size_t allocated; /* bytes allocated (a realloc: what it adds) */
  size_t live;      /* bytes live */
  size_t peak;      /* the most bytes live at once */
} count_alloc;

static count_alloc count_alloc_default;

static count_alloc *ca_of(void *u) { return u ? (count_alloc *)u : &count_alloc_default; }
static void ca_count(count_alloc *a, size_t add, size_t sub) {
  if (add > sub) a->allocated += add - sub;
  a->live += add;
  a->live -= sub;
  if (a->live > a->peak) a->peak = a->live;
}
static void *ca_malloc(void *u, size_t sz) {
  count_alloc *a = ca_of(u);
  unsigned char *p;
  if (++a->calls == a->fail_at) return NULL;
  p = (unsigned char *)malloc(sz + 16);
  if (!p) return NULL;
  memcpy(p, &sz, sizeof sz);
  a->blocks++;
  ca_count(a, sz, 0);
  return p + 16;
}
static void *ca_realloc(void *u, void *old, size_t sz) {
  count_alloc *a = ca_of(u);
  unsigned char *p, *base = old ? (unsigned char *)old - 16 : NULL;
  size_t was = 0;
  if (++a->calls == a->fail_at) return NULL;
  if (base) memcpy(&was, base, sizeof was);
  p = (unsigned char *)realloc(base, sz + 16);
  if (!p) return NULL;
  memcpy(p, &sz, sizeof sz);
  if (!old) a->blocks++;
  ca_count(a, sz, was);
  return p + 16;
}
static void ca_free(void *u, void *p) {
  count_alloc *a = ca_of(u);
  size_t was;
  if (!p) return;
  memcpy(&was, (unsigned char *)p - 16, sizeof was);
  a->blocks--;
  ca_count(a, 0, was);
  free((unsigned char *)p - 16);
}

#define TASKIR_MALLOC(u, sz) ca_malloc((u), (sz))
#define TASKIR_REALLOC(u, p, sz) ca_realloc((u), (p), (sz))
#define TASKIR_FREE(u, p) ca_free((u), (p))
#endif
