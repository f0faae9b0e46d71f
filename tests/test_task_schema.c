/* The Task IR schema tables (taskir.h >>impl.task.schema): the task
   dialect's import/export and the protobuf codec walk the same table, so a
   message with every field of every message set goes through the IR text
   form and back to the same wire bytes. */
#define TASKIR_IMPLEMENTATION
#include "taskir_proto.h"
#include "tt.h"

/* Every field of every message, each values container once. */
static const char every_field[] =
  "blocks {\n"
  "  id: 1 type: SI precision: FLOAT_32\n"
  "  shape { nx: 2 ny: 1 nf: 1 nr: 0 nkx: 0 nky: 0 niy: 0 nix: 0 n_branch: 0 extra_dimensions: 7 extra_dimensions: -1 }\n"
  "  output_clusters { shape { nx: 2 ny: 1 nf: 1 } interfaces { position { nx: 0 } size { nx: 2 ny: 1 nf: 1 } edge_id: 5 } }\n"
  "  data { dims: 1 dims: 2 dims: 1 precision: FLOAT_32 float_data: 0.5 float_data: -2.25 name: \"in\\001put\" }\n"
  "  is_virtual: true master_task_id: 9 pipeline_num: 3 socket_id: 4\n"
  "}\n"
  "blocks {\n"
  "  id: 2 type: CVS precision: INT_32 bias_type: CONSTANT\n"
  "  shape { nx: 2 ny: 1 nf: 1 }\n"
  "  input_clusters { interfaces { edge_id: 5 } }\n"
  "  output_clusters { interfaces { edge_id: 6 } }\n"
  "  attributes { type: CONSTANT_A precision: INT_32 int_value: -3 }\n"
  "  attributes { type: BIT_SHIGT_NUM int_value: 2 float_value: 1.5 }\n"
  "  is_virtual: false\n"
  "}\n"
  "blocks {\n"
  "  id: 3 type: SW precision: UINT_16\n"
  "  shape { nf: 1 nr: 2 nky: 1 nkx: 1 }\n"
  "  input_clusters { interfaces { edge_id: 6 } }\n"
  "  data { dims: 1 dims: 2 dims: 1 dims: 1 precision: UINT_16 uint32_data: 65535 uint32_data: 7 }\n"
  "}\n"
  "edges {\n"
  "  id: 5 src_block_id: 1 dst_block_id: 2\n"
  "  rearrange_info { type: RESHAPE matrix { dims: 3 int32_data: 2 int32_data: 1 int32_data: 0 } }\n"
  "  rearrange_info { type: IDENTITY }\n"
  "}\n"
  "edges { id: 6 src_block_id: 2 dst_block_id: 3 }\n"
  "groups { group_id: 1 block_ids: 1 block_ids: 2 }\n"
  "groups { group_id: 2 }\n"
  "test_config { random_seed: -12345678901 test_case_name: \"every field\" test_mode: CASE_OUTPUT }\n";

static int encode(const ti_task_graph *g, ti_buffer *out) {
  ti_error err;
  ti_buffer_init(out, NULL);
  return ti_task_encode(g, out, &err) == TI_STATUS_SUCCESS;
}

static int same_bytes(const ti_buffer *a, const ti_buffer *b) {
  return a->len == b->len && memcmp(a->data, b->data, a->len) == 0;
}

TT_TEST(every_field_survives_the_ir_text_form) {
  ti_context *ctx = ti_context_create(NULL);
  ti_task_graph g, g2, g3;
  ti_program *p = NULL, *q = NULL;
  ti_buffer wire, wire2, wire3, text;
  ti_error err;
  ti_task_graph_init(&g, NULL);
  TT_EQ_INT(ti_task_parse_text(&g, every_field, sizeof every_field - 1, &err), TI_STATUS_SUCCESS);
  TT_CHECK(encode(&g, &wire));
  TT_EQ_INT(ti_task_import(ctx, &g, &p, &err), TI_STATUS_SUCCESS);
  ti_buffer_init(&text, NULL);
  TT_EQ_INT(ti_print_program(p, &text, &err), TI_STATUS_SUCCESS);
  TT_CHECK(strstr((const char *)text.data, "extra = [7, -1]") != NULL);
  TT_CHECK(strstr((const char *)text.data, "type = \"BIT_SHIFT_NUM\"") != NULL);
  TT_CHECK(strstr((const char *)text.data, "bias_type = \"CONSTANT\"") != NULL);
  TT_EQ_INT(ti_parse_program(ctx, (const char *)text.data, text.len, &q, &err), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_task_export(p, &g2, &err), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_task_export(q, &g3, &err), TI_STATUS_SUCCESS);
  TT_CHECK(encode(&g2, &wire2));
  TT_CHECK(encode(&g3, &wire3));
  TT_CHECK(same_bytes(&wire, &wire2));
  TT_CHECK(same_bytes(&wire, &wire3));
  TT_EQ_INT(g3.blocks[0].data.float_data.count, 2);
  TT_EQ_INT(g3.blocks[2].data.uint32_data.count, 2);
  TT_EQ_INT((int)ti_task_values_get_i64(&g3.blocks[2].data.uint32_data, 0), 65535);
  ti_buffer_free(&wire); ti_buffer_free(&wire2); ti_buffer_free(&wire3); ti_buffer_free(&text);
  ti_task_graph_free(&g2); ti_task_graph_free(&g3);
  ti_program_destroy(p); ti_program_destroy(q);
  ti_task_graph_free(&g);
  ti_context_destroy(ctx);
}

/* A field of the wrong kind in the IR is an error naming the message and
   the field (the same walk, the other way). */
TT_TEST(bad_ir_fields_are_named) {
  static const struct { const char *attrs, *want; } cases[] = {
    { "id = 1, precision = \"INT_8\", shape = {nx = \"two\"}", "Shape.nx must be an int32" },
    { "id = 1, precision = \"INT_9000\"", "TaskBlock.precision must be one of the Precision names" },
    { "id = 1, precision = \"INT_8\", is_virtual = 1", "TaskBlock.is_virtual must be true or false" },
    { "id = 1, precision = \"INT_8\", attributes = [{type = \"KERNEL_Z\"}]", "Attribute.type must be one of the AttributeType names" },
    { "id = 1, precision = \"INT_8\", attributes = [{float = 1}]", "Attribute.float must be a float" },
    { "id = 1, precision = \"INT_8\", data = {dims = 3}", "Tensor.dims must be an array" },
    { "id = 1, precision = \"INT_8\", data = {dims = [1, 4294967296]}", "Tensor.dims must hold int32s" },
    { "id = 1, precision = \"INT_8\", shape = 3", "a Shape must be a dictionary" },
  };
  ti_context *ctx = ti_context_create(NULL);
  size_t i;
  for (i = 0; i < sizeof cases / sizeof *cases; i++) {
    char text[512];
    ti_program *p = NULL;
    ti_task_graph g;
    ti_error err;
    snprintf(text, sizeof text, "program @task graph {\n  task.si() {%s} : () -> ()\n}\n", cases[i].attrs);
    TT_EQ_INT(ti_task_register(ctx, &err), TI_STATUS_SUCCESS);
    TT_EQ_INT(ti_parse_program(ctx, text, strlen(text), &p, &err), TI_STATUS_SUCCESS);
    if (!p) { fprintf(stderr, "%s\n", err.message); continue; }
    TT_EQ_INT(ti_task_export(p, &g, &err), TI_STATUS_INVALID);
    if (!strstr(err.message, cases[i].want)) fprintf(stderr, "case %d: got \"%s\"\n", (int)i, err.message);
    TT_CHECK(strstr(err.message, cases[i].want) != NULL);
    TT_CHECK(strstr(err.message, "task.si id 1") != NULL);
    ti_program_destroy(p);
  }
  ti_context_destroy(ctx);
}

int main(void) {
  TT_RUN(every_field_survives_the_ir_text_form);
  TT_RUN(bad_ir_fields_are_named);
  return tt_finish();
}
