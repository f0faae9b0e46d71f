/* Fuzz target for the whole path from IR text to execution:
     .tir text -> parse -> verify -> export to Task IR -> check -> import ->
     print -> re-parse (same text) -> plan -> run (when the graph checks).
   Input that does not start with "program" is read as a Task IR message
   (binary or protobuf text) and enters the path as the .tir it imports to,
   so the fixtures seed it. Any crash, sanitizer report, broken invariant
   (abort) or, under tests/fuzz_run.sh, memory beyond -malloc_limit_mb /
   -rss_limit_mb is a failure: a small file must not cost gigabytes.

   libFuzzer:  clang -g -O1 -fsanitize=fuzzer,address,undefined -I. tests/fuzz_tir_pipeline.c
               (LLVMFuzzerInitialize adds the fixtures, as .pb/.txt and as
               .tir written to a temporary directory, as seed inputs)
   no libFuzzer: cc -DTT_FUZZ_LOOP ... (tests/fuzz_main.h mutates the seeds). */
#define _POSIX_C_SOURCE 200809L
#define TASKIR_IMPLEMENTATION
#include "taskir_proto.h"
#include "taskir_exec.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Inputs of a plan larger than this are not filled and run (the plan is
   still made): running is linear in the data, planning must be bounded. */
#define FZ_MAX_INPUT_VALUES ((int64_t)1 << 20)

static void fz_check(int ok, const char *what, const ti_error *err) {
  if (!ok) {
    fprintf(stderr, "fuzz_tir_pipeline: invariant broken: %s (%s)\n", what, err ? err->message : "");
    abort();
  }
}

static void fz_run(const ti_task_graph *g) {
  ti_exec *x = NULL;
  ti_error err;
  int32_t i, n;
  ti_error_clear(&err);
  if (ti_exec_plan(g, NULL, &x, &err) != TI_STATUS_SUCCESS) {
    fz_check(err.message[0] != 0, "a refused plan says why", &err);
    return;
  }
  n = ti_exec_num_inputs(x);
  for (i = 0; i < n; i++) {
    int64_t c = ti_exec_input_count(x, i);
    void *v;
    if (c < 0 || c > FZ_MAX_INPUT_VALUES) { ti_exec_free(x); return; }
    v = calloc((size_t)(c ? c : 1), 4);
    if (!v) { ti_exec_free(x); return; }
    if (ti_exec_input_is_float(x, i)) (void)!ti_exec_set_input_f32(x, ti_exec_input_socket(x, i), (const float *)v, c, &err);
    else (void)!ti_exec_set_input(x, ti_exec_input_socket(x, i), (const int32_t *)v, c, &err);
    free(v);
  }
  ti_error_clear(&err);
  if (ti_exec_run(x, &err) != TI_STATUS_SUCCESS) fz_check(err.message[0] != 0, "a failed run says why", &err);
  ti_exec_free(x);
}

static void fz_pipeline(ti_context *ctx, const char *text, size_t len) {
  ti_program *p = NULL, *q = NULL, *r = NULL;
  ti_task_graph g;
  ti_diag_list dl;
  ti_buffer a, b;
  ti_error err;
  ti_error_clear(&err);
  ti_task_graph_init(&g, NULL);
  ti_diag_list_init(&dl, NULL);
  ti_buffer_init(&a, NULL);
  ti_buffer_init(&b, NULL);
  if (ti_parse_program(ctx, text, len, &p, &err) != TI_STATUS_SUCCESS) {
    fz_check(err.message[0] != 0, "a parse error says why", &err);
    goto done;
  }
  if (ti_verify(p, &err) != TI_STATUS_SUCCESS) goto done;
  if (ti_task_export(p, &g, &err) != TI_STATUS_SUCCESS) {
    fz_check(err.message[0] != 0, "a refused export says why", &err);
    goto done;
  }
  ti_error_clear(&err);
  if (ti_task_check(&g, &dl, &err) != TI_STATUS_SUCCESS && dl.n_errors == 0) goto done;   /* out of memory */
  if (dl.n_errors) goto done;
  /* a graph the checker accepts imports, prints and reads back as printed */
  fz_check(ti_task_import(ctx, &g, &q, &err) == TI_STATUS_SUCCESS, "a checked graph imports", &err);
  fz_check(ti_print_program(q, &a, &err) == TI_STATUS_SUCCESS, "an imported graph prints", &err);
  fz_check(ti_parse_program(ctx, (const char *)a.data, a.len, &r, &err) == TI_STATUS_SUCCESS, "the print parses", &err);
  fz_check(ti_verify(r, &err) == TI_STATUS_SUCCESS, "the print verifies", &err);
  fz_check(ti_print_program(r, &b, &err) == TI_STATUS_SUCCESS, "the re-parse prints", &err);
  fz_check(a.len == b.len && memcmp(a.data, b.data, a.len) == 0, "print(parse(print(g))) == print(g)", &err);
  fz_run(&g);
done:
  ti_buffer_free(&a);
  ti_buffer_free(&b);
  ti_program_destroy(r);
  ti_program_destroy(q);
  ti_program_destroy(p);
  ti_diag_list_free(&dl);
  ti_task_graph_free(&g);
}

/* A Task IR message (binary, else protobuf text) as .tir text in out. */
static int fz_message_to_tir(ti_context *ctx, const unsigned char *data, size_t size, ti_buffer *out) {
  ti_task_graph g;
  ti_program *p = NULL;
  ti_error err;
  int ok = 0;
  ti_error_clear(&err);
  ti_task_graph_init(&g, NULL);
  if (ti_task_decode(&g, data, size, &err) != TI_STATUS_SUCCESS) {
    ti_task_graph_free(&g);
    ti_task_graph_init(&g, NULL);
    ti_error_clear(&err);
    if (ti_task_parse_text(&g, (const char *)data, size, &err) != TI_STATUS_SUCCESS) goto done;
  }
  if (ti_task_import(ctx, &g, &p, &err) != TI_STATUS_SUCCESS) goto done;
  ok = ti_print_program(p, out, &err) == TI_STATUS_SUCCESS;
done:
  ti_program_destroy(p);
  ti_task_graph_free(&g);
  return ok;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  ti_context *ctx = ti_context_create(NULL);
  if (!ctx) return 0;
  if (ti_task_register(ctx, NULL) == TI_STATUS_SUCCESS && ti_nn_register(ctx, NULL) == TI_STATUS_SUCCESS) {
    if (size >= 7 && memcmp(data, "program", 7) == 0) {
      fz_pipeline(ctx, (const char *)data, size);
    } else {
      ti_buffer t;
      ti_buffer_init(&t, NULL);
      if (fz_message_to_tir(ctx, data, size, &t)) fz_pipeline(ctx, (const char *)t.data, t.len);
      ti_buffer_free(&t);
    }
  }
  ti_context_destroy(ctx);
  return 0;
}

/* .tir seeds: a storage block feeding an output, an INPUT through a CVS
   (shapes, weights and edges as the importer prints them), and nn ops. */
static const char *const tir_seeds[] = {
  "program @task graph {\n"
  "  %0 = task.sb() {data = {container = \"int32_data\", dims = [2], precision = \"INT_32\", values = \"block3\"}, id = 3, "
  "out = [{interfaces = [{}]}], precision = \"INT_32\", shape = {nf = 2}} : () -> tensor<2xi32>\n"
  "  task.output(%1) {id = 4, in = [{interfaces = [{}]}], precision = \"INT_32\", shape = {nf = 2}} : (tensor<2xi32>) -> ()\n"
  "  %1 = task.edge(%0) {id = 0} : (tensor<2xi32>) -> tensor<2xi32>\n"
  "}\nweights {\n  \"block3\" : vtensor<2xi8> = 0x05fd\n}\n",
  "program @m(%0: vtensor<1x3x3x4xf32, NHWC>, %1: vtensor<1x1x4x4xf32, HWOI>) {\n"
  "  %2 = nn.conv2d(%0, %1) : (vtensor<1x3x3x4xf32, NHWC>, vtensor<1x1x4x4xf32, HWOI>) -> vtensor<1x3x3x4xf32, NHWC>\n"
  "  %3 = nn.flatten(%2) : (vtensor<1x3x3x4xf32, NHWC>) -> vtensor<1x36xf32>\n"
  "  builtin.return(%3) : (vtensor<1x36xf32>) -> ()\n}\n",
};

#ifdef TT_FUZZ_LOOP
#define TT_FUZZ_EXTRA_SEEDS tir_seeds
#include "fuzz_main.h"
#else
#include <unistd.h>
/* Seeds: the fixtures ($TASKIR_FIXTURES or ../shared/fixtures) as they are
   and as .tir (written to a temporary directory removed at exit), and the
   built-in .tir seeds. libFuzzer reads its flags after this hook. */
static char fz_dir[64];
static char fz_files[64][128];
static int fz_n_files;
static void fz_cleanup(void) {
  int i;
  for (i = 0; i < fz_n_files; i++) remove(fz_files[i]);
  if (fz_dir[0]) rmdir(fz_dir);
}
static void fz_write_seed(const void *d, size_t n, const char *name) {
  FILE *f;
  if (fz_n_files >= 64) return;
  snprintf(fz_files[fz_n_files], sizeof fz_files[0], "%s/%s", fz_dir, name);
  if (!(f = fopen(fz_files[fz_n_files], "wb"))) return;
  if (fwrite(d, 1, n, f) == n) fz_n_files++;
  fclose(f);
}
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  static char *args[256];
  static char seeds[16384];
  static const char *const names[] = { "cvm", "cax", "cavg", "clut", "cvs", "ccmpb", "cadd", "cvvh", "cc" };
  const char *dir = getenv("TASKIR_FIXTURES");
  ti_context *ctx = ti_context_create(NULL);
  size_t n = 0, i;
  int k;
  if (!dir || !*dir) dir = "../shared/fixtures";
  for (k = 0; k < *argc; k++)
    if (strncmp((*argv)[k], "-seed_inputs=", 13) == 0 || *argc > 250) { ti_context_destroy(ctx); return 0; }
  strcpy(fz_dir, "/tmp/taskir_fuzz_tirXXXXXX");
  if (!ctx || !mkdtemp(fz_dir)) { ti_context_destroy(ctx); fz_dir[0] = 0; return 0; }
  atexit(fz_cleanup);
  if (ti_task_register(ctx, NULL) != TI_STATUS_SUCCESS) { ti_context_destroy(ctx); return 0; }
  for (i = 0; i < sizeof tir_seeds / sizeof *tir_seeds; i++) {
    char name[32];
    snprintf(name, sizeof name, "seed%d.tir", (int)i);
    fz_write_seed(tir_seeds[i], strlen(tir_seeds[i]), name);
  }
  for (i = 0; i < sizeof names / sizeof *names; i++) {
    int e;
    for (e = 0; e < 2; e++) {
      char path[1024], name[64];
      FILE *f;
      unsigned char *buf;
      long len;
      ti_buffer t;
      snprintf(path, sizeof path, "%s/%s.task.%s", dir, names[i], e ? "txt" : "pb");
      if (!(f = fopen(path, "rb"))) continue;
      fseek(f, 0, SEEK_END); len = ftell(f); fseek(f, 0, SEEK_SET);
      buf = len > 0 && len < (1L << 24) ? (unsigned char *)malloc((size_t)len) : NULL;
      if (buf && fread(buf, 1, (size_t)len, f) == (size_t)len) {
        snprintf(name, sizeof name, "%s.%s", names[i], e ? "txt" : "pb");
        fz_write_seed(buf, (size_t)len, name);
        ti_buffer_init(&t, NULL);
        if (!e && fz_message_to_tir(ctx, buf, (size_t)len, &t)) {
          snprintf(name, sizeof name, "%s.tir", names[i]);
          fz_write_seed(t.data, t.len, name);
        }
        ti_buffer_free(&t);
      }
      free(buf);
      fclose(f);
    }
  }
  ti_context_destroy(ctx);
  n = (size_t)snprintf(seeds, sizeof seeds, "-seed_inputs=");
  for (k = 0; k < fz_n_files; k++) {
    if (n + strlen(fz_files[k]) + 2 >= sizeof seeds) break;
    n += (size_t)snprintf(seeds + n, sizeof seeds - n, "%s%s", k ? "," : "", fz_files[k]);
  }
  if (!fz_n_files) return 0;
  for (k = 0; k < *argc; k++) args[k] = (*argv)[k];
  args[k++] = seeds;
  args[k] = NULL;
  *argc = k;
  *argv = args;
  return 0;
}
#endif
