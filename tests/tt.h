/* tt.h - the test harness of taskir's tests: one binary per file, one line per
   failed check, and a closing "N passed, N failed" line that tests/run.sh adds up.

     TT_TEST(name) { TT_CHECK(x == 1); TT_EQ_INT(a, b); }
     int main(void) { TT_RUN(name); return tt_finish(); }

   A test passes when none of its checks failed. TT_SKIP(msg) ends a test as
   skipped (printed, counted apart). */
#ifndef TT_H
#define TT_H
#include <stdio.h>
#include <string.h>
#include <stdint.h>
#include <stdlib.h>

static int tt_passed, tt_failed, tt_skipped, tt_cur_failed, tt_cur_skipped;
static const char *tt_cur_name = "";

#define TT_TEST(name) static void name(void)
#define TT_RUN(name) tt_run_one(name, #name)
#define TT_CHECK(cond) do { if (!(cond)) { tt_fail(__FILE__, __LINE__, #cond); } } while (0)
#define TT_CHECK_MSG(cond, ...) do { if (!(cond)) { tt_fail(__FILE__, __LINE__, #cond); \
  fprintf(stderr, "    "); fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); } } while (0)
#define TT_EQ_INT(a, b) do { long long tt_a_ = (long long)(a), tt_b_ = (long long)(b); \
  if (tt_a_ != tt_b_) { tt_fail(__FILE__, __LINE__, #a " == " #b); \
  fprintf(stderr, "    %lld != %lld\n", tt_a_, tt_b_); } } while (0)
#define TT_EQ_STR(a, b) do { const char *tt_a_ = (a), *tt_b_ = (b); \
  if (!tt_a_ || !tt_b_ || strcmp(tt_a_, tt_b_) != 0) { tt_fail(__FILE__, __LINE__, #a " == " #b); \
  fprintf(stderr, "    \"%s\"\n != \"%s\"\n", tt_a_ ? tt_a_ : "(null)", tt_b_ ? tt_b_ : "(null)"); } } while (0)
#define TT_SKIP(msg) do { tt_cur_skipped = 1; printf("  skip %s: %s\n", tt_cur_name, msg); return; } while (0)

static inline void tt_fail(const char *file, int line, const char *what) {
  tt_cur_failed++;
  fprintf(stderr, "  FAIL %s (%s:%d): %s\n", tt_cur_name, file, line, what);
}

static inline void tt_run_one(void (*fn)(void), const char *name) {
  tt_cur_name = name; tt_cur_failed = 0; tt_cur_skipped = 0;
  fn();
  if (tt_cur_failed) tt_failed++;
  else if (tt_cur_skipped) tt_skipped++;
  else tt_passed++;
}

static inline int tt_finish(void) {
  if (tt_skipped) printf("%d passed, %d failed, %d skipped\n", tt_passed, tt_failed, tt_skipped);
  else printf("%d passed, %d failed\n", tt_passed, tt_failed);
  return tt_failed ? 1 : 0;
}

/* xorshift64*: deterministic random data for property tests. */
typedef struct tt_rng { uint64_t s; } tt_rng;
static inline uint64_t tt_next(tt_rng *r) {
  r->s ^= r->s >> 12; r->s ^= r->s << 25; r->s ^= r->s >> 27;
  return r->s * 2685821657736338717ULL;
}
static inline int64_t tt_range(tt_rng *r, int64_t lo, int64_t hi) { /* inclusive */
  return lo + (int64_t)(tt_next(r) % (uint64_t)(hi - lo + 1));
}

/* The whole file at path, NUL-terminated (its size in *len when len is not
   NULL); NULL when it cannot be read. The caller frees it. */
static inline char *tt_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  char *buf;
  long n;
  if (!f) return NULL;
  fseek(f, 0, SEEK_END); n = ftell(f); fseek(f, 0, SEEK_SET);
  buf = n < 0 ? NULL : (char *)malloc((size_t)n + 1);
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) { free(buf); buf = NULL; }
  fclose(f);
  if (buf) { buf[n] = 0; if (len) *len = (size_t)n; }
  return buf;
}

/* Checks got against the expected text in the file at path; when the file
   is missing and the environment variable regen is set, writes it instead. */
#define TT_GOLDEN(got, path, regen) tt_golden(got, path, regen, __FILE__, __LINE__)
static inline void tt_golden(const char *got, const char *path, const char *regen,
                             const char *file, int line) {
  char *expect = tt_read_file(path, NULL);
  if (!expect && getenv(regen)) {
    FILE *f = fopen(path, "wb");
    if (f) { fputs(got, f); fclose(f); }
    printf("  wrote %s\n", path);
    return;
  }
  if (!expect) {
    tt_fail(file, line, "expected-output file present");
    fprintf(stderr, "    missing %s (%s=1 writes it)\n", path, regen);
    return;
  }
  if (strcmp(got, expect) != 0) {
    tt_fail(file, line, "output == expected file");
    fprintf(stderr, "    %s differs:\n\"%s\"\n != \"%s\"\n", path, got, expect);
  }
  free(expect);
}

/* Path of the third-party fixtures: $TASKIR_FIXTURES or ../shared/fixtures. */
static inline const char *tt_fixtures(void) {
  const char *p = getenv("TASKIR_FIXTURES");
  return p && *p ? p : "../shared/fixtures";
}
#endif
