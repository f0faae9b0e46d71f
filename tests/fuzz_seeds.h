/* tests/fuzz_seeds.h - seed inputs for the libFuzzer targets.

   tt_fuzz_seed_args(argc, argv, dir, fmts, n_fmts, names, n_names) adds
   "-seed_inputs=" with every file dir/<name> that exists to libFuzzer's
   arguments, each path made by snprintf(fmt, dir, name) for every name and
   format. Nothing is added when the caller passed its own -seed_inputs or
   no file exists. Call it from LLVMFuzzerInitialize. */
#ifndef TT_FUZZ_SEEDS_H
#define TT_FUZZ_SEEDS_H
#include <stdio.h>
#include <string.h>

static int tt_fuzz_seed_args(int *argc, char ***argv, const char *dir, const char *const *fmts, size_t n_fmts,
                             const char *const *names, size_t n_names) {
  static char *args[256];
  static char seeds[16384];
  size_t n, i, e;
  int k;
  if (*argc < 1 || *argc > 250) return 0;
  for (k = 0; k < *argc; k++)
    if (strncmp((*argv)[k], "-seed_inputs=", 13) == 0) return 0;   /* the caller chose */
  n = (size_t)snprintf(seeds, sizeof seeds, "-seed_inputs=");
  for (i = 0; i < n_names; i++)
    for (e = 0; e < n_fmts; e++) {
      char path[1024];
      FILE *f;
      snprintf(path, sizeof path, fmts[e], dir, names[i]);
      if (!(f = fopen(path, "rb"))) continue;
      fclose(f);
      if (n + strlen(path) + 2 >= sizeof seeds) break;
      n += (size_t)snprintf(seeds + n, sizeof seeds - n, "%s%s", seeds[n - 1] == '=' ? "" : ",", path);
    }
  if (seeds[n - 1] == '=') return 0;
  for (k = 0; k < *argc; k++) args[k] = (*argv)[k];
  args[k++] = seeds;
  args[k] = NULL;
  *argc = k;
  *argv = args;
  return 0;
}
#endif
