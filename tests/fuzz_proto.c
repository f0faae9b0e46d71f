/* Fuzz target for taskir_proto.h: every input goes through the binary decoder
   and the text parser. Whatever decodes must encode, and the result must be a
   fixed point: encode(decode(encode(g))) == encode(g) byte for byte, and
   format(parse(format(g))) == format(g). A broken invariant aborts.

   libFuzzer:  clang -g -O1 -fsanitize=fuzzer,address,undefined -I. tests/fuzz_proto.c
               (LLVMFuzzerInitialize adds the fixtures as seed inputs)
   no libFuzzer: cc -DTT_FUZZ_LOOP ... tests/fuzz_proto.c (tests/fuzz_main.h
               runs seeds and deterministic mutations of them). */
#define TASKIR_IMPLEMENTATION
#include "taskir_proto.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fz_check(int ok, const char *what) {
  if (!ok) {
    fprintf(stderr, "fuzz_proto: invariant broken: %s\n", what);
    abort();
  }
}

/* g decoded fine: check the binary and text fixed points. */
static void fz_fixed_points(const ti_task_graph *g) {
  ti_buffer b1, b2, t1, t2;
  ti_task_graph g2, g3;
  ti_error err;
  ti_error_clear(&err);
  ti_buffer_init(&b1, NULL); ti_buffer_init(&b2, NULL);
  ti_buffer_init(&t1, NULL); ti_buffer_init(&t2, NULL);
  ti_task_graph_init(&g2, NULL); ti_task_graph_init(&g3, NULL);
  fz_check(ti_task_encode(g, &b1, &err) == TI_STATUS_SUCCESS, "a decoded graph encodes");
  fz_check(ti_task_decode(&g2, b1.data, b1.len, &err) == TI_STATUS_SUCCESS, "our encoding decodes");
  fz_check(ti_task_encode(&g2, &b2, &err) == TI_STATUS_SUCCESS, "re-encode");
  fz_check(b1.len == b2.len && (b1.len == 0 || memcmp(b1.data, b2.data, b1.len) == 0), "decode(encode(x)) re-encodes identically");
  fz_check(ti_task_format_text(g, &t1, &err) == TI_STATUS_SUCCESS, "a decoded graph formats");
  fz_check(ti_task_parse_text(&g3, (const char *)t1.data, t1.len, &err) == TI_STATUS_SUCCESS, "our text parses");
  fz_check(ti_task_format_text(&g3, &t2, &err) == TI_STATUS_SUCCESS, "re-format");
  fz_check(t1.len == t2.len && (t1.len == 0 || memcmp(t1.data, t2.data, t1.len) == 0), "parse(format(x)) formats identically");
  ti_buffer_free(&b1); ti_buffer_free(&b2); ti_buffer_free(&t1); ti_buffer_free(&t2);
  ti_task_graph_free(&g2); ti_task_graph_free(&g3);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ti_task_graph g;
  ti_error err;
  ti_status st;
  ti_error_clear(&err);
  ti_task_graph_init(&g, NULL);
  st = ti_task_decode(&g, data, size, &err);
  if (st == TI_STATUS_SUCCESS) fz_fixed_points(&g);
  else fz_check(err.offset >= 0 && (size_t)err.offset <= size && err.message[0] != 0, "binary error names an offset");
  ti_task_graph_free(&g);

  ti_error_clear(&err);
  ti_task_graph_init(&g, NULL);
  st = ti_task_parse_text(&g, (const char *)data, size, &err);
  if (st == TI_STATUS_SUCCESS) fz_fixed_points(&g);
  else fz_check(err.line >= 1 && err.column >= 1 && err.message[0] != 0, "text error names line:column");
  ti_task_graph_free(&g);
  return 0;
}

#ifdef TT_FUZZ_LOOP
#include "fuzz_main.h"
#else
#include "fuzz_seeds.h"
/* Adds the fixtures ($TASKIR_FIXTURES or ../shared/fixtures) as seed inputs:
   libFuzzer reads its flags after this hook, so an extra -seed_inputs works. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  static const char *const names[] = { "cvm", "cax", "cavg", "clut", "cvs", "ccmpb", "cadd", "cvvh", "cc" };
  static const char *const fmts[] = { "%s/%s.task.pb", "%s/%s.task.txt" };
  const char *dir = getenv("TASKIR_FIXTURES");
  if (!dir || !*dir) dir = "../shared/fixtures";
  return tt_fuzz_seed_args(argc, argv, dir, fmts, 2, names, sizeof names / sizeof *names);
}
#endif
