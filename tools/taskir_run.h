/* taskir_run.h - the `taskir run` and `taskir demo` commands of the taskir tool.

   Included by tools/taskir.c after the implementing includes; defines
       static int ti_cli_run(int argc, char **argv);    argv[0] == "run"
       static int ti_cli_demo(int argc, char **argv);   argv[0] == "demo"
   Both return the process exit code (0 success, 1 failure, 2 bad usage) and
   print a clear message on stderr for every failure. */
#ifndef TASKIR_RUN_H
#define TASKIR_RUN_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(_WIN32)
#include <direct.h>
#define TI__CLI_MKDIR(p) _mkdir(p)
#else
#include <sys/stat.h>
#include <sys/types.h>
#define TI__CLI_MKDIR(p) mkdir((p), 0777)
#endif

#include "taskir_proto.h"
#include "taskir_exec.h"

static const char ti__cli_run_usage[] =
    "usage: taskir run FILE [--input SOCKET=FILE]... [--steps N] [--out DIR] [--all] [--profile] [--max-memory BYTES]\n"
    "\n"
    "Executes a Task IR graph (FILE: .pb binary, or .txt protobuf text format).\n"
    "  --input SOCKET=FILE  feed INPUT socket SOCKET from FILE: one number per line,\n"
    "                       in y, x, f order (as many as the INPUT block holds)\n"
    "  --steps N            run N time steps (SNN: CLIF state persists), default 1\n"
    "  --out DIR            write DIR/o_<block_id>.txt for every OUTPUT block (one value\n"
    "                       per line, storage order); without it outputs are printed\n"
    "  --all                with --out, also DIR/<block_id>.txt for every block\n"
    "  --profile            print where the time went, bytes moved and MACs\n"
    "  --max-memory BYTES   memory budget of the plan (suffix K, M or G; default 1G);\n"
    "                       a graph needing more is refused before it is allocated\n";

/* Reads one number per line (blank lines and #-comments skipped). */
static int ti__cli_read_values(const char *path, int want_float, int32_t **iv, float **fv, int64_t *n) {
  FILE *f = fopen(path, "rb");
  char line[256];
  int64_t cap = 0, lineno = 0;
  *iv = NULL; *fv = NULL; *n = 0;
  if (!f) { fprintf(stderr, "taskir run: cannot open input file '%s': %s\n", path, strerror(errno)); return 0; }
  while (fgets(line, sizeof line, f)) {
    char *p = line, *end;
    lineno++;
    while (*p == ' ' || *p == '\t') p++;
    if (*p == '\n' || *p == '\r' || *p == 0 || *p == '#') continue;
    if (*n == cap) {
      int64_t nc = cap ? cap * 2 : 1024;
      void *nb = want_float ? realloc(*fv, (size_t)nc * sizeof **fv) : realloc(*iv, (size_t)nc * sizeof **iv);
      if (!nb) { fprintf(stderr, "taskir run: out of memory reading '%s'\n", path); fclose(f); return 0; }
      if (want_float) *fv = (float *)nb; else *iv = (int32_t *)nb;
      cap = nc;
    }
    errno = 0;
    if (want_float) {
      double d = strtod(p, &end);
      (*fv)[*n] = (float)d;
    } else {
      long long v = strtoll(p, &end, 10);
      if (errno == 0 && (v < INT32_MIN || v > INT32_MAX)) errno = ERANGE;
      (*iv)[*n] = (int32_t)v;
    }
    while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n') end++;
    if (end == p || *end != 0 || errno) {
      size_t l = strlen(p);
      while (l && (p[l - 1] == '\n' || p[l - 1] == '\r')) p[--l] = 0;
      fprintf(stderr, "taskir run: %s:%lld: '%s' is not %s\n", path, (long long)lineno, p,
              want_float ? "a number" : "an integer in int32 range");
      fclose(f);
      return 0;
    }
    (*n)++;
  }
  fclose(f);
  return 1;
}

static int ti__cli_write_tensor(FILE *f, const ti_exec_tensor *t) {
  int64_t k;
  for (k = 0; k < t->count; k++) {
    if (t->dtype == TI_DTYPE_F32) fprintf(f, "%.9g\n", ti_exec_tensor_f64(t, k));
    else fprintf(f, "%lld\n", (long long)ti_exec_tensor_i64(t, k));
  }
  return !ferror(f);
}

static int ti__cli_save_tensor(const char *dir, const char *prefix, int32_t id, const ti_exec_tensor *t) {
  char path[4096];
  FILE *f;
  int ok;
  snprintf(path, sizeof path, "%s/%s%d.txt", dir, prefix, (int)id);
  if (!(f = fopen(path, "wb"))) { fprintf(stderr, "taskir run: cannot write '%s': %s\n", path, strerror(errno)); return 0; }
  ok = ti__cli_write_tensor(f, t);
  if (fclose(f) != 0 || !ok) { fprintf(stderr, "taskir run: error writing '%s'\n", path); return 0; }
  return 1;
}

static void ti__cli_print_dims(FILE *f, const ti_exec_tensor *t) {
  int32_t i;
  for (i = 0; i < t->rank; i++) fprintf(f, "%s%lld", i ? "x" : "", (long long)t->dims[i]);
}

static void ti__cli_print_profile(FILE *f, const ti_exec *x) {
  const ti_exec_profile *p = ti_exec_get_profile(x);
  ti_exec_info info;
  int t;
  double tot = p->total_seconds > 0 ? p->total_seconds : 1e-12;
  ti_exec_get_info(x, &info);
  fprintf(f, "profile: %lld run(s), %.3f ms in runs (%.3f ms per run)\n", (long long)p->runs, p->total_seconds * 1e3,
          p->runs ? p->total_seconds * 1e3 / (double)p->runs : 0.0);
  fprintf(f, "  kernels %.1f%%, data movement %.1f%%\n", 100.0 * p->kernel_seconds / tot, 100.0 * p->copy_seconds / tot);
  for (t = 0; t < TI_BLOCK_COUNT; t++)
    if (p->block_calls[t] || p->block_seconds[t] > 0) {
      char what[32];
      if (p->block_calls[t]) snprintf(what, sizeof what, "%lld call(s)", (long long)p->block_calls[t]);
      else snprintf(what, sizeof what, "copies into it");
      fprintf(f, "  %-6s %-15s %10.3f ms %5.1f%%\n", ti_block_type_name((ti_block_type)t), what,
              p->block_seconds[t] * 1e3, 100.0 * p->block_seconds[t] / tot);
    }
  fprintf(f, "  MACs %lld, edge traffic %lld bytes (%lld copied)\n", (long long)p->macs, (long long)p->edge_bytes,
          (long long)p->copied_bytes);
  {
    int64_t data = info.arena_bytes + info.persistent_bytes + info.packed_bytes + info.scratch_bytes;
    fprintf(f, "  plan memory %lld bytes: data %lld (arena %lld reused, constants/state %lld, packed weights %lld, "
               "scratch %lld) + bookkeeping %lld; the blocks at their precision: %lld bytes\n",
            (long long)info.plan_bytes, (long long)data, (long long)info.arena_bytes, (long long)info.persistent_bytes,
            (long long)info.packed_bytes, (long long)info.scratch_bytes, (long long)(info.plan_bytes - data),
            (long long)info.block_bytes);
  }
}

static int ti_cli_run(int argc, char **argv) {
  const char *file = NULL, *out_dir = NULL;
  long steps = 1;
  int64_t max_memory = 0;
  int all = 0, profile = 0, i, rc = 1;
  int32_t j;
  ti_task_graph g;
  ti_error err;
  ti_exec *x = NULL;
  ti_exec_options o;
  memset(&err, 0, sizeof err);
  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) { fputs(ti__cli_run_usage, stdout); return 0; }
    else if (!strcmp(a, "--input")) { if (++i >= argc) goto usage; }
    else if (!strcmp(a, "--steps")) {
      char *end;
      if (++i >= argc) goto usage;
      steps = strtol(argv[i], &end, 10);
      if (*end || steps < 1 || steps > 100000000L) { fprintf(stderr, "taskir run: --steps wants a positive integer, got '%s'\n", argv[i]); return 2; }
    } else if (!strcmp(a, "--out")) { if (++i >= argc) goto usage; out_dir = argv[i]; }
    else if (!strcmp(a, "--max-memory")) {
      char *end;
      double v;
      if (++i >= argc) goto usage;
      v = strtod(argv[i], &end);
      if (*end == 'k' || *end == 'K') { v *= 1024.0; end++; }
      else if (*end == 'M') { v *= 1048576.0; end++; }
      else if (*end == 'G') { v *= 1073741824.0; end++; }
      if (*end || !(v >= 1) || v > 9.0e18) { fprintf(stderr, "taskir run: --max-memory wants BYTES (suffix K, M or G), got '%s'\n", argv[i]); return 2; }
      max_memory = (int64_t)v;
    }
    else if (!strcmp(a, "--all")) all = 1;
    else if (!strcmp(a, "--profile")) profile = 1;
    else if (a[0] == '-' && a[1]) { fprintf(stderr, "taskir run: unknown option '%s'\n", a); goto usage; }
    else if (file) { fprintf(stderr, "taskir run: more than one graph file ('%s', '%s')\n", file, a); goto usage; }
    else file = a;
  }
  if (!file) { fprintf(stderr, "taskir run: no graph file given\n"); goto usage; }
  if (all && !out_dir) { fprintf(stderr, "taskir run: --all needs --out DIR\n"); return 2; }
  ti_task_graph_init(&g, NULL);
  if (ti_task_read_file(file, &g, &err) != TI_STATUS_SUCCESS) {
    fprintf(stderr, "taskir run: %s: %s\n", file, err.message);
    ti_task_graph_free(&g);
    return 1;
  }
  {   /* every INPUT socket fed? (before planning, which may take long) */
    int32_t n_in = ti_exec_graph_inputs(&g, NULL, NULL, 0), k;
    int32_t *socks = (int32_t *)malloc(((size_t)n_in + 1) * sizeof *socks);
    int64_t *cnts = (int64_t *)malloc(((size_t)n_in + 1) * sizeof *cnts);
    int missing = -1;
    if (!socks || !cnts) { free(socks); free(cnts); fprintf(stderr, "taskir run: out of memory\n"); ti_task_graph_free(&g); return 1; }
    ti_exec_graph_inputs(&g, socks, cnts, n_in);
    for (i = 1; i + 1 < argc && missing < 0; i++) {   /* each --input names a socket of the graph */
      const char *spec = argv[i + 1], *eq = strchr(spec, '=');
      char *end;
      long sock;
      if (!strcmp(argv[i], "--steps") || !strcmp(argv[i], "--out") || !strcmp(argv[i], "--max-memory")) { i++; continue; }
      if (strcmp(argv[i], "--input")) continue;
      i++;
      sock = strtol(spec, &end, 10);
      if (!eq || end != eq || eq == spec) { fprintf(stderr, "taskir run: --input wants SOCKET=FILE, got '%s'\n", spec); missing = n_in; break; }
      for (k = 0; k < n_in && socks[k] != sock; k++) {}
      if (k == n_in) {
        fprintf(stderr, "taskir run: %s has no INPUT socket %ld (it has:", file, sock);
        for (k = 0; k < n_in; k++) fprintf(stderr, " %d", (int)socks[k]);
        fprintf(stderr, "%s)\n", n_in ? "" : " none");
        missing = n_in;
      }
    }
    for (k = 0; k < n_in && missing < 0; k++) {
      int fed = 0;
      for (i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--input") && strtol(argv[i + 1], NULL, 10) == socks[k] && strchr(argv[i + 1], '=')) fed = 1;
      if (!fed) missing = k;
    }
    if (missing >= 0 && missing < n_in)
      fprintf(stderr, "taskir run: INPUT socket %d needs values: add --input %d=FILE (%lld values, y,x,f order)\n",
              (int)socks[missing], (int)socks[missing], (long long)cnts[missing]);
    free(socks); free(cnts);
    if (missing >= 0) { ti_task_graph_free(&g); return 1; }
  }
  ti_exec_options_init(&o);
  o.keep_all = all;
  o.profile = profile;
  if (max_memory) o.max_bytes = max_memory;
  if (ti_exec_plan(&g, &o, &x, &err) != TI_STATUS_SUCCESS) {
    ti_diag_list dl;
    fprintf(stderr, "taskir run: %s: %s\n", file, err.message);
    /* list every checker problem, not only the first */
    ti_diag_list_init(&dl, NULL);
    if (ti_task_check(&g, &dl, NULL) != TI_STATUS_SUCCESS)
      for (j = 0; j < dl.n; j++)
        if (dl.items[j].severity == TI_DIAG_ERROR)
          fprintf(stderr, "  error [%s] block %d edge %d: %s\n", dl.items[j].rule, (int)dl.items[j].block_id,
                  (int)dl.items[j].edge_id, dl.items[j].message);
    ti_diag_list_free(&dl);
    ti_task_graph_free(&g);
    return 1;
  }
  /* inputs */
  for (i = 1; i < argc; i++) {
    const char *eq, *spec;
    char *end;
    long sock;
    int32_t k, idx = -1;
    int32_t *iv = NULL;
    float *fv = NULL;
    int64_t n = 0;
    ti_status s;
    if (!strcmp(argv[i], "--steps") || !strcmp(argv[i], "--out") || !strcmp(argv[i], "--max-memory")) { i++; continue; }
    if (strcmp(argv[i], "--input")) continue;
    spec = argv[++i];
    eq = strchr(spec, '=');
    sock = strtol(spec, &end, 10);
    if (!eq || end != eq || eq == spec) { fprintf(stderr, "taskir run: --input wants SOCKET=FILE, got '%s'\n", spec); goto done; }
    for (k = 0; k < ti_exec_num_inputs(x); k++) if (ti_exec_input_socket(x, k) == sock) idx = k;
    if (idx < 0) {
      fprintf(stderr, "taskir run: %s has no INPUT socket %ld (it has:", file, sock);
      for (k = 0; k < ti_exec_num_inputs(x); k++) fprintf(stderr, " %d", (int)ti_exec_input_socket(x, k));
      fprintf(stderr, "%s)\n", ti_exec_num_inputs(x) ? "" : " none");
      goto done;
    }
    if (!ti__cli_read_values(eq + 1, ti_exec_input_is_float(x, idx), &iv, &fv, &n)) goto done;
    if (n != ti_exec_input_count(x, idx)) {
      fprintf(stderr, "taskir run: %s holds %lld values, INPUT socket %ld takes %lld\n", eq + 1, (long long)n, sock,
              (long long)ti_exec_input_count(x, idx));
      free(iv); free(fv);
      goto done;
    }
    s = fv ? ti_exec_set_input_f32(x, (int32_t)sock, fv, n, &err) : ti_exec_set_input(x, (int32_t)sock, iv, n, &err);
    free(iv); free(fv);
    if (s) { fprintf(stderr, "taskir run: %s: %s\n", eq + 1, err.message); goto done; }
  }
  for (j = 0; j < ti_exec_num_inputs(x); j++) {
    int fed = 0;
    for (i = 1; i + 1 < argc; i++)
      if (!strcmp(argv[i], "--input") && strtol(argv[i + 1], NULL, 10) == ti_exec_input_socket(x, j) && strchr(argv[i + 1], '=')) fed = 1;
    if (!fed) {
      fprintf(stderr, "taskir run: INPUT socket %d needs values: add --input %d=FILE (%lld values, y,x,f order)\n",
              (int)ti_exec_input_socket(x, j), (int)ti_exec_input_socket(x, j), (long long)ti_exec_input_count(x, j));
      goto done;
    }
  }
  {
    long t;
    for (t = 0; t < steps; t++)
      if (ti_exec_run(x, &err) != TI_STATUS_SUCCESS) { fprintf(stderr, "taskir run: step %ld: %s\n", t, err.message); goto done; }
  }
  if (out_dir) {
    if (TI__CLI_MKDIR(out_dir) != 0 && errno != EEXIST) {
      fprintf(stderr, "taskir run: cannot create directory '%s': %s\n", out_dir, strerror(errno));
      goto done;
    }
    for (j = 0; j < ti_exec_num_outputs(x); j++) {
      ti_exec_tensor t;
      if (ti_exec_block(x, ti_exec_output_block(x, j), &t, &err)) { fprintf(stderr, "taskir run: %s\n", err.message); goto done; }
      if (!ti__cli_save_tensor(out_dir, "o_", ti_exec_output_block(x, j), &t)) goto done;
    }
    if (all)
      for (j = 0; j < ti_exec_num_blocks(x); j++) {
        ti_exec_tensor t;
        if (ti_exec_block(x, ti_exec_block_id(x, j), &t, &err)) { fprintf(stderr, "taskir run: %s\n", err.message); goto done; }
        if (!ti__cli_save_tensor(out_dir, "", ti_exec_block_id(x, j), &t)) goto done;
      }
  } else {
    for (j = 0; j < ti_exec_num_outputs(x); j++) {
      ti_exec_tensor t;
      if (ti_exec_block(x, ti_exec_output_block(x, j), &t, &err)) { fprintf(stderr, "taskir run: %s\n", err.message); goto done; }
      printf("# OUTPUT socket %d (block %d): ", (int)ti_exec_output_socket(x, j), (int)ti_exec_output_block(x, j));
      ti__cli_print_dims(stdout, &t);
      printf(" %s\n", t.dtype == TI_DTYPE_F32 ? "float" : "int");
      ti__cli_write_tensor(stdout, &t);
    }
  }
  if (profile) ti__cli_print_profile(stdout, x);
  rc = 0;
done:
  ti_exec_free(x);
  ti_task_graph_free(&g);
  return rc;
usage:
  fputs(ti__cli_run_usage, stderr);
  return 2;
}

/* --- taskir demo ----------------------------------------------------------- */

static const char ti__cli_demo_usage[] =
    "usage: taskir demo [--save FILE] [--steps N]\n"
    "\n"
    "Builds a small network through the C API -- an ANN part (conv -> requantise\n"
    "(CCMPB) -> max pool -> fully connected) and an SNN part (a LIF layer driven by\n"
    "the requantised FC output for N time steps, default 8) -- checks it, prints its\n"
    "statistics, writes it as FILE (default taskir_demo.task.pb) with its input in\n"
    "FILE's name + .input0.txt, reads it back, runs it and prints the outputs.\n";

static ti_task_shape ti__demo_shape(int32_t ny, int32_t nx, int32_t nf, int32_t nr, int32_t nky, int32_t nkx) {
  ti_task_shape s;
  memset(&s, 0, sizeof s);
  if (ny) ti_task_shape_set(&s, TI_SHAPE_HAS_NY, ny);
  if (nx) ti_task_shape_set(&s, TI_SHAPE_HAS_NX, nx);
  if (nf) ti_task_shape_set(&s, TI_SHAPE_HAS_NF, nf);
  if (nr) ti_task_shape_set(&s, TI_SHAPE_HAS_NR, nr);
  if (nky) ti_task_shape_set(&s, TI_SHAPE_HAS_NKY, nky);
  if (nkx) ti_task_shape_set(&s, TI_SHAPE_HAS_NKX, nkx);
  return s;
}

static ti_task_block *ti__demo_blk(ti_task_graph *g, int32_t id) { return (ti_task_block *)ti_task_find_block(g, id); }

static int32_t ti__demo_rand(uint32_t *s, int32_t lo, int32_t hi) {
  *s = *s * 1664525u + 1013904223u;
  return lo + (int32_t)((*s >> 8) % (uint32_t)(hi - lo + 1));
}

/* Connects whole cluster to whole cluster; 0 on failure. */
static int ti__demo_link(ti_task_graph *g, int32_t src, int32_t src_cluster, int32_t dst, int32_t dst_cluster) {
  return ti_task_connect(g, ti__demo_blk(g, src), src_cluster, NULL, NULL, ti__demo_blk(g, dst), dst_cluster, NULL, NULL) != NULL;
}

/* The demo network. Block ids:
     ANN  0 INPUT(8x8x4, socket 0) -> 1 SIC -> 4 CC 3x3 pad 1 (+2 SW, 3 SB) -> 5 SI
          -> 6 CCMPB 1x1 (>> 4, ReLU) -> 7 SI -> 8 CCMPB 2x2 max pool -> [RESHAPE]
          -> 9 SIFC(128) -> 12 CVM (+10 SWFC, 11 SB) -> 13 SI -> 14 OUTPUT (socket 1)
     SNN  13 SI -> 15 CCMPB 1-D (>> 5, ReLU) -> 16 SI -> 18 CLIF (v_prev: 17 SI)
          -> 19 SI -> 20 OUTPUT (socket 2, spikes) */
static ti_status ti__demo_build(ti_task_graph *g, int32_t *input, int32_t n_input) {
  int32_t w[8 * 4 * 3 * 3], bias[10], fc[10 * 128], i;
  int32_t wd[4] = {8, 4, 3, 3}, bd8[1] = {8}, fd[2] = {10, 128}, bd10[1] = {10}, order[3] = {2, 1, 0}, rdims[1] = {3};
  uint32_t seed = 12345;
  ti_task_shape s;
  ti_task_block *b;
  int ok = 1;
  ti_task_graph_init(g, NULL);
#define TI__DEMO_ADD(id, type, prec, shp) do { s = (shp); if (!(b = ti_task_add_block(g, (id), (type), (prec), &s))) return TI_STATUS_NO_MEMORY; } while (0)
#define TI__DEMO_ATTR(id, a, v) do { if (ti_task_add_attr(g, ti__demo_blk(g, (id)), (a), (v))) return TI_STATUS_NO_MEMORY; } while (0)
  TI__DEMO_ADD(0, TI_BLOCK_INPUT, TI_DTYPE_I8, ti__demo_shape(8, 8, 4, 0, 0, 0));
  b->has |= TI_BLOCK_HAS_SOCKET_ID; b->socket_id = 0;
  TI__DEMO_ADD(1, TI_BLOCK_SIC, TI_DTYPE_I8, ti__demo_shape(8, 8, 0, 4, 0, 0));
  TI__DEMO_ADD(2, TI_BLOCK_SW, TI_DTYPE_I8, ti__demo_shape(0, 0, 8, 4, 3, 3));
  for (i = 0; i < 8 * 4 * 9; i++) w[i] = ti__demo_rand(&seed, -8, 8);
  if (ti_task_set_data(g, b, TI_DTYPE_I8, 4, wd, w)) return TI_STATUS_NO_MEMORY;
  TI__DEMO_ADD(3, TI_BLOCK_SB, TI_DTYPE_I32, ti__demo_shape(0, 0, 8, 0, 0, 0));
  for (i = 0; i < 8; i++) bias[i] = ti__demo_rand(&seed, -64, 64);
  if (ti_task_set_data(g, b, TI_DTYPE_I32, 1, bd8, bias)) return TI_STATUS_NO_MEMORY;
  s = ti__demo_shape(8, 8, 8, 4, 3, 3);
  ti_task_shape_set(&s, TI_SHAPE_HAS_NIY, 8); ti_task_shape_set(&s, TI_SHAPE_HAS_NIX, 8);
  TI__DEMO_ADD(4, TI_BLOCK_CC, TI_DTYPE_I32, s);
  b->has |= TI_BLOCK_HAS_BIAS_TYPE; b->bias_type = TI_BIAS_TYPE_VECTOR;
  TI__DEMO_ATTR(4, TI_ATTR_KERNEL_X, 3); TI__DEMO_ATTR(4, TI_ATTR_KERNEL_Y, 3);
  TI__DEMO_ATTR(4, TI_ATTR_STRIDE_X, 1); TI__DEMO_ATTR(4, TI_ATTR_STRIDE_Y, 1);
  TI__DEMO_ATTR(4, TI_ATTR_PAD_UP, 1); TI__DEMO_ATTR(4, TI_ATTR_PAD_DOWN, 1);
  TI__DEMO_ATTR(4, TI_ATTR_PAD_LEFT, 1); TI__DEMO_ATTR(4, TI_ATTR_PAD_RIGHT, 1);
  TI__DEMO_ATTR(4, TI_ATTR_DILATION_X, 1); TI__DEMO_ATTR(4, TI_ATTR_DILATION_Y, 1);
  TI__DEMO_ADD(5, TI_BLOCK_SI, TI_DTYPE_I32, ti__demo_shape(8, 8, 8, 0, 0, 0));
  s = ti__demo_shape(8, 8, 8, 0, 1, 1);
  ti_task_shape_set(&s, TI_SHAPE_HAS_NIY, 8); ti_task_shape_set(&s, TI_SHAPE_HAS_NIX, 8);
  TI__DEMO_ADD(6, TI_BLOCK_CCMPB, TI_DTYPE_I8, s);
  TI__DEMO_ATTR(6, TI_ATTR_KERNEL_X, 1); TI__DEMO_ATTR(6, TI_ATTR_KERNEL_Y, 1);
  TI__DEMO_ATTR(6, TI_ATTR_STRIDE_X, 1); TI__DEMO_ATTR(6, TI_ATTR_STRIDE_Y, 1);
  TI__DEMO_ATTR(6, TI_ATTR_CMP, 0); TI__DEMO_ATTR(6, TI_ATTR_BIT_SHIFT_NUM, 4);
  TI__DEMO_ADD(7, TI_BLOCK_SI, TI_DTYPE_I8, ti__demo_shape(8, 8, 8, 0, 0, 0));
  s = ti__demo_shape(4, 4, 8, 0, 2, 2);
  ti_task_shape_set(&s, TI_SHAPE_HAS_NIY, 8); ti_task_shape_set(&s, TI_SHAPE_HAS_NIX, 8);
  TI__DEMO_ADD(8, TI_BLOCK_CCMPB, TI_DTYPE_I8, s);
  TI__DEMO_ATTR(8, TI_ATTR_KERNEL_X, 2); TI__DEMO_ATTR(8, TI_ATTR_KERNEL_Y, 2);
  TI__DEMO_ATTR(8, TI_ATTR_STRIDE_X, 2); TI__DEMO_ATTR(8, TI_ATTR_STRIDE_Y, 2);
  TI__DEMO_ATTR(8, TI_ATTR_CMP, 0); TI__DEMO_ATTR(8, TI_ATTR_BIT_SHIFT_NUM, 0);
  TI__DEMO_ADD(9, TI_BLOCK_SIFC, TI_DTYPE_I8, ti__demo_shape(0, 0, 0, 128, 0, 0));
  TI__DEMO_ADD(10, TI_BLOCK_SWFC, TI_DTYPE_I8, ti__demo_shape(0, 0, 10, 128, 0, 0));
  for (i = 0; i < 10 * 128; i++) fc[i] = ti__demo_rand(&seed, -8, 8);
  if (ti_task_set_data(g, b, TI_DTYPE_I8, 2, fd, fc)) return TI_STATUS_NO_MEMORY;
  TI__DEMO_ADD(11, TI_BLOCK_SB, TI_DTYPE_I32, ti__demo_shape(0, 0, 10, 0, 0, 0));
  for (i = 0; i < 10; i++) bias[i] = ti__demo_rand(&seed, 0, 2000);
  if (ti_task_set_data(g, b, TI_DTYPE_I32, 1, bd10, bias)) return TI_STATUS_NO_MEMORY;
  TI__DEMO_ADD(12, TI_BLOCK_CVM, TI_DTYPE_I32, ti__demo_shape(0, 0, 10, 128, 0, 0));
  b->has |= TI_BLOCK_HAS_BIAS_TYPE; b->bias_type = TI_BIAS_TYPE_VECTOR;
  TI__DEMO_ADD(13, TI_BLOCK_SI, TI_DTYPE_I32, ti__demo_shape(0, 0, 10, 0, 0, 0));
  TI__DEMO_ADD(14, TI_BLOCK_OUTPUT, TI_DTYPE_I32, ti__demo_shape(0, 0, 10, 0, 0, 0));
  b->has |= TI_BLOCK_HAS_SOCKET_ID; b->socket_id = 1;
  TI__DEMO_ADD(15, TI_BLOCK_CCMPB, TI_DTYPE_I8, ti__demo_shape(0, 0, 10, 0, 0, 0));
  TI__DEMO_ATTR(15, TI_ATTR_CMP, 0); TI__DEMO_ATTR(15, TI_ATTR_BIT_SHIFT_NUM, 5);
  TI__DEMO_ADD(16, TI_BLOCK_SI, TI_DTYPE_I8, ti__demo_shape(0, 0, 10, 0, 0, 0));
  TI__DEMO_ADD(17, TI_BLOCK_SI, TI_DTYPE_I32, ti__demo_shape(0, 0, 10, 0, 0, 0));
  for (i = 0; i < 10; i++) bias[i] = 0;   /* initial membrane potential */
  if (ti_task_set_data(g, b, TI_DTYPE_I32, 1, bd10, bias)) return TI_STATUS_NO_MEMORY;
  TI__DEMO_ADD(18, TI_BLOCK_CLIF, TI_DTYPE_I8, ti__demo_shape(0, 0, 10, 0, 0, 0));
  TI__DEMO_ATTR(18, TI_ATTR_VTH0, 100); TI__DEMO_ATTR(18, TI_ATTR_VR, 0); TI__DEMO_ATTR(18, TI_ATTR_VL, 0); TI__DEMO_ATTR(18, TI_ATTR_VINIT, 0);
  TI__DEMO_ATTR(18, TI_ATTR_VLEAKY_ADPT_EN, 0); TI__DEMO_ATTR(18, TI_ATTR_VLEAKY_BETA, -4);
  TI__DEMO_ATTR(18, TI_ATTR_RESET_MODE, 0); TI__DEMO_ATTR(18, TI_ATTR_FIRE_TYPE, 4);
  TI__DEMO_ADD(19, TI_BLOCK_SI, TI_DTYPE_I8, ti__demo_shape(0, 0, 10, 0, 0, 0));
  TI__DEMO_ADD(20, TI_BLOCK_OUTPUT, TI_DTYPE_I8, ti__demo_shape(0, 0, 10, 0, 0, 0));
  b->has |= TI_BLOCK_HAS_SOCKET_ID; b->socket_id = 2;
#undef TI__DEMO_ADD
#undef TI__DEMO_ATTR
  ok = ok && ti__demo_link(g, 0, 0, 1, 0);
  ok = ok && ti__demo_link(g, 1, 0, 4, 0) && ti__demo_link(g, 2, 0, 4, 1) && ti__demo_link(g, 3, 0, 4, 2);
  ok = ok && ti__demo_link(g, 4, 0, 5, 0) && ti__demo_link(g, 5, 0, 6, 0) && ti__demo_link(g, 6, 0, 7, 0);
  ok = ok && ti__demo_link(g, 7, 0, 8, 0);
  if (ok) {   /* pool output [4][4][8] flattened y, x, f into the FC input */
    ti_task_edge *e = ti_task_connect(g, ti__demo_blk(g, 8), 0, NULL, NULL, ti__demo_blk(g, 9), 0, NULL, NULL);
    ok = e && ti_task_add_rearrange(g, e, TI_REARRANGE_RESHAPE, 1, rdims, order, 3) == TI_STATUS_SUCCESS;
  }
  ok = ok && ti__demo_link(g, 9, 0, 12, 0) && ti__demo_link(g, 10, 0, 12, 1) && ti__demo_link(g, 11, 0, 12, 2);
  ok = ok && ti__demo_link(g, 12, 0, 13, 0) && ti__demo_link(g, 13, 0, 14, 0);
  ok = ok && ti__demo_link(g, 13, 0, 15, 0) && ti__demo_link(g, 15, 0, 16, 0);
  ok = ok && ti__demo_link(g, 16, 0, 18, 0) && ti__demo_link(g, 17, 0, 18, 1);
  ok = ok && ti__demo_link(g, 18, 0, 19, 0) && ti__demo_link(g, 19, 0, 20, 0);
  if (!ok) return TI_STATUS_NO_MEMORY;
  for (i = 0; i < n_input; i++) {   /* a smooth 8x8x4 test pattern */
    int32_t y = i / 32, xx = (i / 4) % 8, f = i % 4;
    input[i] = (int32_t)((y * 7 + xx * 5 + f * 11) % 31) - 15 + ((y - 4) * (xx - 4)) / 2;
  }
  return TI_STATUS_SUCCESS;
}

static int ti_cli_demo(int argc, char **argv) {
  const char *path = "taskir_demo.task.pb";
  char in_path[4096];
  long steps = 8, t;
  int i, rc = 1;
  int32_t input[8 * 8 * 4], j, counts[10];
  ti_task_graph g, g2;
  ti_error err;
  ti_diag_list dl;
  ti_task_stats st;
  ti_exec *x = NULL;
  ti_exec_options o;
  ti_exec_tensor logits, spikes, v;
  ti_status s;
  FILE *f;
  memset(&err, 0, sizeof err);
  memset(counts, 0, sizeof counts);
  for (i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { fputs(ti__cli_demo_usage, stdout); return 0; }
    else if (!strcmp(argv[i], "--save") && i + 1 < argc) path = argv[++i];
    else if (!strcmp(argv[i], "--steps") && i + 1 < argc) {
      char *end;
      steps = strtol(argv[++i], &end, 10);
      if (*end || steps < 1 || steps > 1000000L) { fprintf(stderr, "taskir demo: --steps wants a positive integer\n"); return 2; }
    } else { fprintf(stderr, "taskir demo: unknown argument '%s'\n", argv[i]); fputs(ti__cli_demo_usage, stderr); return 2; }
  }
  ti_task_graph_init(&g2, NULL);
  /* 1. build through the public API */
  if ((s = ti__demo_build(&g, input, 8 * 8 * 4)) != TI_STATUS_SUCCESS) {
    fprintf(stderr, "taskir demo: building the graph failed (%s)\n", ti_status_name(s));
    goto done;
  }
  printf("built   %d blocks, %d edges: ANN conv 3x3 -> requantise -> max pool -> FC(10); SNN LIF(10)\n",
         (int)g.n_blocks, (int)g.n_edges);
  /* 2. check */
  ti_diag_list_init(&dl, NULL);
  s = ti_task_check(&g, &dl, &err);
  printf("checked %d error(s), %d warning(s)\n", (int)dl.n_errors, (int)dl.n_warnings);
  for (j = 0; j < dl.n; j++)
    printf("  %s [%s] block %d: %s\n", dl.items[j].severity == TI_DIAG_ERROR ? "error" : "warning", dl.items[j].rule,
           (int)dl.items[j].block_id, dl.items[j].message);
  ti_diag_list_free(&dl);
  if (s) { fprintf(stderr, "taskir demo: the checker rejects the graph: %s\n", err.message); goto done; }
  /* 3. statistics */
  if (ti_task_statistics(&g, &st, 0, &err) == TI_STATUS_SUCCESS) {
    printf("stats   %lld parameters, %lld MACs per inference, %lld storage bytes, %lld bytes on edges\n",
           (long long)st.params, (long long)st.macs, (long long)st.storage_total, (long long)st.edge_bytes);
    ti_task_stats_free(&st, NULL);
  }
  /* 4. write as protobuf, with the input next to it, and read back */
  if (ti_task_write_file(path, &g, &err) != TI_STATUS_SUCCESS) { fprintf(stderr, "taskir demo: %s\n", err.message); goto done; }
  snprintf(in_path, sizeof in_path, "%s.input0.txt", path);
  if (!(f = fopen(in_path, "wb"))) { fprintf(stderr, "taskir demo: cannot write '%s': %s\n", in_path, strerror(errno)); goto done; }
  for (j = 0; j < 8 * 8 * 4; j++) fprintf(f, "%d\n", (int)input[j]);
  if (fclose(f) != 0) { fprintf(stderr, "taskir demo: error writing '%s'\n", in_path); goto done; }
  if (ti_task_read_file(path, &g2, &err) != TI_STATUS_SUCCESS) { fprintf(stderr, "taskir demo: reading back: %s\n", err.message); goto done; }
  printf("wrote   %s and %s; read back %d blocks\n", path, in_path, (int)g2.n_blocks);
  /* 5. plan once, run many times */
  ti_exec_options_init(&o);
  o.profile = 1;
  if (ti_exec_plan(&g2, &o, &x, &err) != TI_STATUS_SUCCESS) { fprintf(stderr, "taskir demo: plan: %s\n", err.message); goto done; }
  if (ti_exec_set_input(x, 0, input, 8 * 8 * 4, &err) != TI_STATUS_SUCCESS) { fprintf(stderr, "taskir demo: %s\n", err.message); goto done; }
  printf("run     %ld time step(s); LIF spikes per step (neurons 0..9):\n", steps);
  for (t = 0; t < steps; t++) {
    if (ti_exec_run(x, &err) != TI_STATUS_SUCCESS) { fprintf(stderr, "taskir demo: run: %s\n", err.message); goto done; }
    if (ti_exec_output(x, 2, &spikes, &err) || ti_exec_block(x, 17, &v, &err)) { fprintf(stderr, "taskir demo: %s\n", err.message); goto done; }
    printf("  t=%-3ld ", t);
    for (j = 0; j < 10; j++) {
      int64_t sp = ti_exec_tensor_i64(&spikes, j);
      counts[j] += (int32_t)sp;
      putchar(sp ? '|' : '.');
    }
    printf("   membrane:");
    for (j = 0; j < 10; j++) printf(" %lld", (long long)ti_exec_tensor_i64(&v, j));
    putchar('\n');
  }
  if (ti_exec_output(x, 1, &logits, &err)) { fprintf(stderr, "taskir demo: %s\n", err.message); goto done; }
  printf("ANN     FC outputs (socket 1):");
  for (j = 0; j < 10; j++) printf(" %lld", (long long)ti_exec_tensor_i64(&logits, j));
  printf("\nSNN     spike counts (socket 2 over %ld steps):", steps);
  for (j = 0; j < 10; j++) printf(" %d", (int)counts[j]);
  putchar('\n');
  ti__cli_print_profile(stdout, x);
  printf("next    taskir run %s --input 0=%s --steps %ld --profile\n", path, in_path, steps);
  rc = 0;
done:
  ti_exec_free(x);
  ti_task_graph_free(&g);
  ti_task_graph_free(&g2);
  return rc;
}

#endif /* TASKIR_RUN_H */
