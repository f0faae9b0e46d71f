/* TASKIR_NO_ERRMSG: the messages are gone, the statuses and the locations
   (byte offset, line:column) stay; (ti_error_set)(...) still formats. */
#define TASKIR_NO_ERRMSG
#define TASKIR_IMPLEMENTATION
#include "taskir_proto.h"
#include "tt.h"

TT_TEST(test_error_set_macro_and_function) {
  ti_error e;
  int32_t id = 7;
  ti_error_clear(&e);
  /* the macro: status kept, no text; id counts as used */
  TT_EQ_INT(ti_error_set(&e, TI_STATUS_INVALID, "block %d is bad", (int)id), TI_STATUS_INVALID);
  TT_EQ_INT(e.status, TI_STATUS_INVALID);
  TT_EQ_STR(e.message, "");
  /* the function itself is still there; this build drops its text too */
  ti_error_clear(&e);
  TT_EQ_INT((ti_error_set)(&e, TI_STATUS_LIMIT, "%s", "text"), TI_STATUS_LIMIT);
  TT_EQ_INT(e.status, TI_STATUS_LIMIT);
  TT_EQ_STR(e.message, "");
}

TT_TEST(test_locations_stay) {
  ti_context *ctx = ti_context_create(NULL);
  ti_program *p = NULL;
  ti_task_graph g;
  ti_error e;
  static const unsigned char trunc[] = {0x0a, 0x05, 0x08};   /* a block of 5 bytes, 1 there */
  const char *text = "blocks {\n  id: 1\n  type: NOPE\n}\n";
  const char *ir = "program @m {\n  %0 = t.src() {k = \"open} : () -> vtensor<f32>\n}\n";
  TT_CHECK(ctx != NULL);
  /* the IR text parser: line:column */
  TT_EQ_INT(ti_parse_program(ctx, ir, strlen(ir), &p, &e), TI_STATUS_PARSE_ERROR);
  TT_CHECK(p == NULL);
  TT_EQ_INT(e.line, 2);
  TT_CHECK(e.column > 0);
  TT_EQ_STR(e.message, "");
  /* the protobuf decoder: the byte offset */
  ti_task_graph_init(&g, NULL);
  TT_CHECK(ti_task_decode(&g, trunc, sizeof trunc, &e) != TI_STATUS_SUCCESS);
  TT_CHECK(e.offset >= 0 && e.offset <= (int64_t)sizeof trunc);
  TT_EQ_STR(e.message, "");
  ti_task_graph_free(&g);
  /* the text format: line:column and offset */
  ti_task_graph_init(&g, NULL);
  TT_EQ_INT(ti_task_parse_text(&g, text, strlen(text), &e), TI_STATUS_PARSE_ERROR);
  TT_EQ_INT(e.line, 3);
  TT_EQ_INT(e.column, 9);
  TT_EQ_INT(e.offset, 25);
  TT_EQ_STR(e.message, "");
  ti_task_graph_free(&g);
  ti_context_destroy(ctx);
}

int main(void) {
  TT_RUN(test_error_set_macro_and_function);
  TT_RUN(test_locations_stay);
  return tt_finish();
}
