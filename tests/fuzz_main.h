/* fuzz_main.h - a main() for fuzz targets when libFuzzer is not available.

   Build the target with -DTT_FUZZ_LOOP and include this file after
   LLVMFuzzerTestOneInput. It runs the target over seed inputs (the fixtures
   in $TASKIR_FIXTURES, default ../shared/fixtures, plus built-in small
   messages) and over deterministic byte mutations of them, for at most
   TT_FUZZ_ITERATIONS inputs or TT_FUZZ_SECONDS seconds (env overrides:
   TT_FUZZ_SECONDS; a target adds its own text seeds by defining
   TT_FUZZ_EXTRA_SEEDS as the name of a string array). Each mutated input sits in a buffer of its exact size,
   so sanitizers catch over-reads. A broken invariant aborts; otherwise it
   ends with "N passed, 0 failed", one per seed. */
#ifndef TT_FUZZ_MAIN_H
#define TT_FUZZ_MAIN_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef TT_FUZZ_ITERATIONS
#define TT_FUZZ_ITERATIONS 200000
#endif
#ifndef TT_FUZZ_SECONDS
#define TT_FUZZ_SECONDS 30
#endif

typedef struct tt_fuzz_seed { unsigned char *data; size_t len; } tt_fuzz_seed;

static uint64_t tt_fuzz_next(uint64_t *s) {
  *s ^= *s >> 12; *s ^= *s << 25; *s ^= *s >> 27;
  return *s * 2685821657736338717ULL;
}

static int tt_fuzz_load(tt_fuzz_seed *out, const char *path) {
  FILE *f = fopen(path, "rb");
  size_t cap = 0, n = 0;
  unsigned char *d = NULL;
  if (!f) return 0;
  for (;;) {
    size_t got;
    if (n == cap) {
      unsigned char *nd = (unsigned char *)realloc(d, cap = cap ? cap * 2 : 65536);
      if (!nd) { free(d); fclose(f); return 0; }
      d = nd;
    }
    got = fread(d + n, 1, cap - n, f);
    if (!got) break;
    n += got;
  }
  fclose(f);
  out->data = d;
  out->len = n;
  return 1;
}

/* One mutation of src into a fresh exact-size buffer. */
static unsigned char *tt_fuzz_mutate(const tt_fuzz_seed *src, const tt_fuzz_seed *other, uint64_t *rng, size_t *len) {
  size_t n = src->len, cap = n + 64, i, pos;
  unsigned char *m = (unsigned char *)malloc(cap), *exact;
  int k, rounds = 1 + (int)(tt_fuzz_next(rng) % 4);
  static const unsigned char interesting[] = { 0x00, 0x01, 0x7F, 0x80, 0xFF, 0x08, 0x0A, 0x12, 0x22, 0x2A, '{', '}', '"', ':', '-', '\n', '#', '[' };
  if (n) memcpy(m, src->data, n);
  for (k = 0; k < rounds; k++) {
    uint64_t r = tt_fuzz_next(rng);
    pos = n ? (size_t)(tt_fuzz_next(rng) % n) : 0;
    switch (r % 7) {
    case 0: if (n) m[pos] ^= (unsigned char)(1u << (r >> 8) % 8); break;
    case 1: if (n) m[pos] = interesting[(r >> 8) % sizeof interesting]; break;
    case 2: n = pos; break;                                               /* truncate */
    case 3: if (n) { memmove(m + pos, m + pos + 1, n - pos - 1); n--; } break;   /* delete */
    case 4: if (n < cap) { memmove(m + pos + 1, m + pos, n - pos); m[pos] = (unsigned char)(r >> 16); n++; } break;
    case 5:                                                               /* overwrite with a chunk of another seed */
      if (other->len && n) {
        size_t from = (size_t)(tt_fuzz_next(rng) % other->len), cnt = 1 + (size_t)((r >> 8) % 32);
        for (i = 0; i < cnt && pos + i < n && from + i < other->len; i++) m[pos + i] = other->data[from + i];
      }
      break;
    default: if (n) m[pos] = (unsigned char)(m[pos] + 1 - 2 * (int)((r >> 8) & 1)); break;
    }
  }
  exact = (unsigned char *)malloc(n ? n : 1);
  if (n) memcpy(exact, m, n);
  free(m);
  *len = n;
  return exact;
}

int main(int argc, char **argv) {
  static const char *const names[] = { "cvm", "cax", "cavg", "clut", "cvs", "ccmpb", "cadd", "cvvh", "cc" };
  static const struct { size_t len; unsigned char b[16]; } builtin_bin[] = {
    { 8, { 0x0A, 0x06, 0x08, 0x01, 0x10, 0x0B, 0x18, 0x64 } },
    { 12, { 0x0A, 0x0A, 0x3A, 0x08, 0x10, 0x00, 0x22, 0x04, 0x01, 0x02, 0x7F, 0x00 } },
    { 12, { 0x12, 0x0A, 0x08, 0x01, 0x10, 0x02, 0x18, 0x03, 0x22, 0x02, 0x08, 0x01 } },
    { 10, { 0x22, 0x08, 0x08, 0x05, 0x12, 0x02, 0x61, 0x62, 0x18, 0x02 } },
  };
  static const char *const builtin_txt[] = {
    "blocks { id: 1 type: CC precision: INT_9 shape { nx: 2 extra_dimensions: [1, 2] } }",
    "blocks < data { float_data: [1.5, -inf, nan] int32_data: -3 name: 'a\\n' } attributes { type: BIT_SHIGT_NUM } >",
    "edges { id: 0 rearrange_info { type: RESHAPE matrix { int32_data: [2, 1, 0] } } } groups { block_ids: 3 }",
    "test_config { random_seed: -5 test_case_name: \"x\" \"y\" test_mode: PRIM_OUTPUT } # end",
  };
  tt_fuzz_seed seeds[64];
  size_t n_seeds = 0, i;
  long runs = 0, limit = TT_FUZZ_ITERATIONS;
  double secs = TT_FUZZ_SECONDS;
  const char *dir = getenv("TASKIR_FIXTURES"), *env_secs = getenv("TT_FUZZ_SECONDS");
  clock_t start = clock();
  uint64_t rng = 0x243F6A8885A308D3ULL;
  (void)argc; (void)argv;
  if (env_secs && *env_secs) secs = atof(env_secs);
  if (!dir || !*dir) dir = "../shared/fixtures";
  for (i = 0; i < sizeof builtin_bin / sizeof *builtin_bin; i++) {
    size_t len = builtin_bin[i].len;
    seeds[n_seeds].data = (unsigned char *)malloc(len);
    memcpy(seeds[n_seeds].data, builtin_bin[i].b, len);
    seeds[n_seeds++].len = len;
  }
  for (i = 0; i < sizeof builtin_txt / sizeof *builtin_txt; i++) {
    size_t len = strlen(builtin_txt[i]);
    seeds[n_seeds].data = (unsigned char *)malloc(len);
    memcpy(seeds[n_seeds].data, builtin_txt[i], len);
    seeds[n_seeds++].len = len;
  }
#ifdef TT_FUZZ_EXTRA_SEEDS
  /* a target's own text seeds: an array of strings named by the macro */
  for (i = 0; i < sizeof TT_FUZZ_EXTRA_SEEDS / sizeof *TT_FUZZ_EXTRA_SEEDS; i++) {
    size_t len = strlen(TT_FUZZ_EXTRA_SEEDS[i]);
    seeds[n_seeds].data = (unsigned char *)malloc(len ? len : 1);
    memcpy(seeds[n_seeds].data, TT_FUZZ_EXTRA_SEEDS[i], len);
    seeds[n_seeds++].len = len;
  }
#endif
  for (i = 0; i < sizeof names / sizeof *names; i++) {
    int e;
    for (e = 0; e < 2; e++) {
      char path[1024];
      snprintf(path, sizeof path, "%s/%s.task.%s", dir, names[i], e ? "txt" : "pb");
      if (n_seeds < sizeof seeds / sizeof *seeds && tt_fuzz_load(&seeds[n_seeds], path)) n_seeds++;
    }
  }
  /* seeds as they are, then mutations round-robin until the budget is spent */
  for (i = 0; i < n_seeds; i++) {
    unsigned char *exact = (unsigned char *)malloc(seeds[i].len ? seeds[i].len : 1);
    if (seeds[i].len) memcpy(exact, seeds[i].data, seeds[i].len);
    LLVMFuzzerTestOneInput(exact, seeds[i].len);
    free(exact);
    runs++;
  }
  for (i = 0; runs < limit; i = (i + 1) % n_seeds) {
    size_t len;
    unsigned char *m;
    if ((runs & 63) == 0 && (double)(clock() - start) / CLOCKS_PER_SEC > secs) break;
    /* big fixtures mutate slowly under sanitizers: favour the small seeds */
    if (seeds[i].len > 20000 && tt_fuzz_next(&rng) % 8) continue;
    m = tt_fuzz_mutate(&seeds[i], &seeds[tt_fuzz_next(&rng) % n_seeds], &rng, &len);
    LLVMFuzzerTestOneInput(m, len);
    free(m);
    runs++;
  }
  for (i = 0; i < n_seeds; i++) free(seeds[i].data);
  printf("fuzz loop: %ld inputs from %lu seeds in %.1f s\n", runs, (unsigned long)n_seeds,
         (double)(clock() - start) / CLOCKS_PER_SEC);
  printf("%lu passed, 0 failed\n", (unsigned long)n_seeds);
  return 0;
}
#endif
