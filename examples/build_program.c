/* build_program - the graph core by example: build a small SSA program with
   the builder, verify it, print its text form, parse it back.

   cc -std=c99 -O2 -I. examples/build_program.c -o build_program -lm */
#define TASKIR_IMPLEMENTATION
#include "taskir.h"
#include <stdio.h>
#include <string.h>

int main(void) {
  ti_context *ctx = ti_context_create(NULL);
  ti_program *p, *q = NULL;
  ti_builder b;
  ti_error err;
  ti_buffer out;
  int64_t dims[2] = {2, 3};
  const ti_type *t;
  ti_value *x, *y;
  int rc = 1;
  if (!ctx) return 1;
  ti_error_clear(&err);
  p = ti_program_create(ctx, "main", TI_PROGRAM_SSA);
  t = ti_type_get(ctx, TI_TYPE_VTENSOR, TI_DTYPE_F32, 2, dims, TI_LAYOUT_ANY);
  x = ti_program_add_arg(p, t);
  ti_builder_init(&b, p, &err);
  y = ti_build1(&b, "builtin.to_tensor", 1, &x, ti_type_with_kind(ctx, t, TI_TYPE_TENSOR), NULL);
  ti_build(&b, "builtin.return", 1, &y, 0, NULL, NULL);
  ti_buffer_init(&out, NULL);
  if (b.status == TI_STATUS_SUCCESS && ti_verify(p, &err) == TI_STATUS_SUCCESS &&
      ti_print_program(p, &out, &err) == TI_STATUS_SUCCESS &&
      ti_parse_program(ctx, (const char *)out.data, out.len, &q, &err) == TI_STATUS_SUCCESS) {
    fputs((const char *)out.data, stdout);
    printf("parsed back: %lld ops, verifier: %s\n", (long long)q->n_ops, ti_status_name(ti_verify(q, &err)));
    rc = 0;
  } else {
    fprintf(stderr, "build_program: %s\n", err.message);
  }
  ti_buffer_free(&out);
  ti_program_destroy(q);
  ti_program_destroy(p);
  ti_context_destroy(ctx);
  return rc;
}
