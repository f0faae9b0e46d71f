/* Fuzz target for the IR text form: any bytes either fail to parse with an
   error, or parse into a program whose printed form parses and prints the
   same again. Built with libFuzzer (clang -fsanitize=fuzzer), or with
   -DTT_FUZZ_LOOP and tests/fuzz_main.h as a plain mutation loop. */
#define TASKIR_IMPLEMENTATION
#include "taskir.h"
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  ti_context *ctx = ti_context_create(NULL);
  ti_program *p = NULL, *q = NULL;
  ti_error err;
  if (!ctx) return 0;
  ti_context_allow_unregistered(ctx, size > 0 && (data[0] & 1));
  if (ti_task_register(ctx, NULL) != TI_STATUS_SUCCESS) { ti_context_destroy(ctx); return 0; }
  ti_error_clear(&err);
  if (ti_parse_program(ctx, (const char *)data, size, &p, &err) == TI_STATUS_SUCCESS) {
    ti_buffer a, b;
    ti_buffer_init(&a, NULL);
    ti_buffer_init(&b, NULL);
    (void)!ti_verify(p, &err);
    if (ti_print_program(p, &a, &err) == TI_STATUS_SUCCESS) {
      ti_error_clear(&err);
      if (ti_parse_program(ctx, (const char *)a.data, a.len, &q, &err) != TI_STATUS_SUCCESS) abort();
      if (ti_print_program(q, &b, &err) != TI_STATUS_SUCCESS) abort();
      if (a.len != b.len || memcmp(a.data, b.data, a.len) != 0) abort();
    }
    ti_buffer_free(&a);
    ti_buffer_free(&b);
  }
  ti_program_destroy(p);
  ti_program_destroy(q);
  ti_context_destroy(ctx);
  return 0;
}

#ifdef TT_FUZZ_LOOP
static const char *const tir_seeds[] = {
  "program @m(%0: vtensor<2x3xf32, NCHW>) {\n  %1 = builtin.to_tensor(%0) : (vtensor<2x3xf32, NCHW>) -> tensor<2x3xf32, NCHW>\n"
  "  builtin.return(%1) : (tensor<2x3xf32, NCHW>) -> ()\n}\nweights {\n  \"w\" : vtensor<2xi8> = 0x01ff\n}\n",
  "program @g graph {\n  %0 = x.a(%1) {k = [1, 2.5, \"s\", {a = true}]} : (vtensor<f32>) -> vtensor<f32>\n"
  "  %1 = x.b() : () -> vtensor<f32>\n}\n",
};
#define TT_FUZZ_EXTRA_SEEDS tir_seeds
#include "fuzz_main.h"
#endif
