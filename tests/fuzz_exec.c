/* Fuzz target for the whole path of a Task IR file: binary decode (text
   parse when the binary decoder refuses) -> check -> statistics -> import
   into the task dialect and print -> plan -> run, the plan once with the
   checker and once without it (the executor's own rules must hold then).
   Plans get a budget of 64 MiB (ti_exec_options.max_bytes); tests/fuzz_run.sh
   runs it under -rss_limit_mb / -malloc_limit_mb, so an input that makes
   planning allocate out of proportion fails the fuzzer. Invariants (abort
   when broken): every failure carries a message; a graph the checker
   accepts plans (or is refused with LIMIT / NOT_SUPPORTED, naming why)
   and, once planned, runs.

   libFuzzer:  clang -g -O1 -fsanitize=fuzzer,address,undefined -I. tests/fuzz_exec.c
   no libFuzzer: cc -DTT_FUZZ_LOOP ... tests/fuzz_exec.c (tests/fuzz_main.h) */
#define TASKIR_IMPLEMENTATION
#include "taskir_proto.h"
#include "taskir_exec.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FZ_BUDGET ((int64_t)64 << 20)

static void fz_check(int ok, const char *what, const ti_error *err) {
  if (!ok) {
    fprintf(stderr, "fuzz_exec: invariant broken: %s (%s)\n", what, err ? err->message : "");
    abort();
  }
}

/* Feeds every INPUT zeros and runs two steps. */
static void fz_run(ti_exec *x) {
  ti_error err;
  int32_t i, k;
  ti_error_clear(&err);
  for (i = 0; i < ti_exec_num_inputs(x); i++) {
    int64_t n = ti_exec_input_count(x, i);
    int32_t *v = (int32_t *)calloc((size_t)(n > 0 ? n : 1), sizeof *v);
    if (!v) return;
    fz_check(ti_exec_set_input(x, ti_exec_input_socket(x, i), v, n, &err) == TI_STATUS_SUCCESS, "zeros feed an INPUT", &err);
    free(v);
  }
  for (k = 0; k < 2; k++) {
    ti_status s = ti_exec_run(x, &err);
    fz_check(s == TI_STATUS_SUCCESS, "a plan runs", &err);
  }
  for (i = 0; i < ti_exec_num_outputs(x); i++) {
    ti_exec_tensor t;
    fz_check(ti_exec_output(x, ti_exec_output_socket(x, i), &t, &err) == TI_STATUS_SUCCESS, "an OUTPUT is readable", &err);
  }
}

static void fz_plan(const ti_task_graph *g, int checked, int check_ok) {
  ti_exec_options o;
  ti_exec *x = NULL;
  ti_error err;
  ti_status s;
  ti_exec_options_init(&o);
  o.max_bytes = FZ_BUDGET;
  o.skip_check = !checked;
  ti_error_clear(&err);
  s = ti_exec_plan(g, &o, &x, &err);
  if (s != TI_STATUS_SUCCESS) {
    fz_check(x == NULL && err.message[0] != 0 && err.status == s, "a refused plan says why", &err);
    /* what the checker accepts, the executor runs: only a budget, an
       unsupported kernel case or memory may stop it */
    if (checked && check_ok)
      fz_check(s == TI_STATUS_LIMIT || s == TI_STATUS_NOT_SUPPORTED || s == TI_STATUS_NO_MEMORY,
               "a checked graph plans", &err);
    return;
  }
  fz_run(x);
  ti_exec_free(x);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ti_task_graph g;
  ti_error err;
  ti_diag_list dl;
  ti_task_stats st;
  ti_status s, cs;
  ti_error_clear(&err);
  ti_task_graph_init(&g, NULL);
  if (ti_task_decode(&g, data, size, &err) != TI_STATUS_SUCCESS) {
    ti_task_graph_free(&g);
    ti_task_graph_init(&g, NULL);
    ti_error_clear(&err);
    if (ti_task_parse_text(&g, (const char *)data, size, &err) != TI_STATUS_SUCCESS) {
      ti_task_graph_free(&g);
      return 0;
    }
  }
  /* check */
  ti_diag_list_init(&dl, NULL);
  ti_error_clear(&err);
  cs = ti_task_check(&g, &dl, &err);
  fz_check(cs == TI_STATUS_SUCCESS || err.message[0] != 0, "a checker error has a message", &err);
  ti_diag_list_free(&dl);
  /* statistics (safe on unchecked graphs) */
  memset(&st, 0, sizeof st);
  ti_error_clear(&err);
  s = ti_task_statistics(&g, &st, 1, &err);
  fz_check(s == TI_STATUS_SUCCESS || s == TI_STATUS_LIMIT || s == TI_STATUS_NO_MEMORY, "statistics succeed or saturate", &err);
  ti_task_stats_free(&st, NULL);
  /* the task dialect: import and print */
  {
    ti_context *ctx = ti_context_create(NULL);
    ti_program *p = NULL;
    if (ctx && ti_task_register(ctx, NULL) == TI_STATUS_SUCCESS) {
      ti_error_clear(&err);
      if (ti_task_import(ctx, &g, &p, &err) == TI_STATUS_SUCCESS) {
        ti_buffer b;
        ti_buffer_init(&b, NULL);
        ti_error_clear(&err);
        fz_check(ti_print_program(p, &b, &err) == TI_STATUS_SUCCESS, "an imported program prints", &err);
        ti_buffer_free(&b);
        ti_program_destroy(p);
      } else fz_check(err.message[0] != 0, "an import error has a message", &err);
    }
    if (ctx) ti_context_destroy(ctx);
  }
  /* plan and run, with and without the checker */
  fz_plan(&g, 1, cs == TI_STATUS_SUCCESS);
  fz_plan(&g, 0, cs == TI_STATUS_SUCCESS);
  ti_task_graph_free(&g);
  return 0;
}

#ifdef TT_FUZZ_LOOP
#include "fuzz_main.h"
#else
#include "fuzz_seeds.h"
/* Adds the fixtures ($TASKIR_FIXTURES or ../shared/fixtures) as seed inputs. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  static const char *const names[] = { "cvm", "cax", "cavg", "clut", "cvs", "ccmpb", "cadd", "cvvh", "cc" };
  static const char *const fmts[] = { "%s/%s.task.pb" };
  const char *dir = getenv("TASKIR_FIXTURES");
  if (!dir || !*dir) dir = "../shared/fixtures";
  return tt_fuzz_seed_args(argc, argv, dir, fmts, 1, names, sizeof names / sizeof *names);
}
#endif
