/* A TASKIR_NO_NN build: the nn dialect, the tensors, the interpreter and
   constant folding are left out; the core (parse, print, verify), the generic
   passes other than constant-fold, the task dialect with its checker, the
   protobuf codec and the executor compile, link and run without them. */
#define TASKIR_NO_NN
#define TASKIR_IMPLEMENTATION
#include "taskir_proto.h"
#include "taskir_exec.h"
#include "tt.h"
#include "tt_task.h"

/* Names the nn part would declare are free: with its declarations in,
   these definitions would not compile. */
static int ti_interpret(int x) { return x + 1; }
static int ti_pass_constant_fold(int x) { return 2 * x; }

#define V4 "vtensor<4xf32>"

static char *print(const ti_program *p) {
  ti_buffer b;
  ti_error e;
  char *s = NULL;
  ti_buffer_init(&b, NULL);
  if (ti_print_program(p, &b, &e) == TI_STATUS_SUCCESS && (s = (char *)malloc(b.len + 1)) != NULL) {
    memcpy(s, b.data, b.len);
    s[b.len] = 0;
  }
  ti_buffer_free(&b);
  return s;
}

/* The nn ops and constant-fold are not there; the other passes are. */
TT_TEST(nn_left_out) {
  ti_context *c = ti_context_create(NULL);
  ti_program *p = NULL;
  ti_error e;
  int32_t n = 0, i;
  const ti_pass *all = ti_generic_passes(&n);
  static const char text[] = "program @f(%0: " V4 ") {\n"
                             "  %1 = nn.relu(%0) : (" V4 ") -> " V4 "\n"
                             "  builtin.return(%1) : (" V4 ") -> ()\n}\n";
  TT_CHECK(c != NULL);
  if (!c) return;
  TT_EQ_INT(ti_interpret(1) + ti_pass_constant_fold(1), 4);
  TT_CHECK(ti_lookup_op(c, "nn.relu") == NULL);
  TT_CHECK(ti_lookup_op(c, "builtin.get_parameter") != NULL);
  TT_CHECK(ti_find_pass("constant-fold") == NULL);
  TT_CHECK(ti_find_pass("dce") && ti_find_pass("cse") && ti_find_pass("maximize-value-semantics") &&
           ti_find_pass("inplace-to-outofplace"));
  TT_EQ_INT(n, 4);
  for (i = 0; i < n; i++) TT_CHECK(strcmp(all[i].name, "constant-fold") != 0);
  /* an nn program is rejected with the op named, not misread */
  TT_CHECK(ti_parse_program(c, text, sizeof text - 1, &p, &e) != TI_STATUS_SUCCESS);
  TT_CHECK(p == NULL);
  TT_CHECK_MSG(strstr(e.message, "nn.relu") != NULL, "%s", e.message);
  {
    ti_pass_manager pm;
    ti_pass_manager_init(&pm);
    TT_EQ_INT(ti_pass_manager_add_named(&pm, "cse,constant-fold", &e), TI_STATUS_NOT_FOUND);
    TT_CHECK_MSG(strstr(e.message, "constant-fold") != NULL, "%s", e.message);
  }
  ti_context_destroy(c);
}

/* Text round trip and the generic passes on a builtin-only program: the two
   reads of the immutable weight merge (cse), the unused one goes (dce). */
TT_TEST(core_passes_run) {
  ti_context *c = ti_context_create(NULL);
  ti_program *p = NULL;
  ti_pass_manager pm;
  ti_error e;
  char *got;
  static const char before[] =
      "program @g(%0: " V4 ") {\n"
      "  %1 = builtin.get_parameter() {name = \"a\"} : () -> " V4 "\n"
      "  %2 = builtin.get_parameter() {name = \"a\"} : () -> " V4 "\n"
      "  %3 = builtin.get_parameter() {name = \"a\"} : () -> " V4 "\n"
      "  builtin.set_parameter(%0) {name = \"m\"} : (" V4 ") -> ()\n"
      "  builtin.return(%1, %2) : (" V4 ", " V4 ") -> ()\n"
      "}\n"
      "weights {\n  \"a\" : tensor<4xf32> = 0x0000803f000000400000404000008040\n"
      "  \"m\" : tensor<4xf32> mutable = 0x0000803f0000803f0000803f0000803f\n}\n";
  static const char after[] =
      "program @g(%0: " V4 ") {\n"
      "  %1 = builtin.get_parameter() {name = \"a\"} : () -> " V4 "\n"
      "  builtin.set_parameter(%0) {name = \"m\"} : (" V4 ") -> ()\n"
      "  builtin.return(%1, %1) : (" V4 ", " V4 ") -> ()\n"
      "}\n"
      "weights {\n  \"a\" : tensor<4xf32> = 0x0000803f000000400000404000008040\n"
      "  \"m\" : tensor<4xf32> mutable = 0x0000803f0000803f0000803f0000803f\n}\n";
  TT_CHECK(c != NULL);
  if (!c) return;
  TT_EQ_INT(ti_parse_program(c, before, sizeof before - 1, &p, &e), TI_STATUS_SUCCESS);
  if (!p) { fprintf(stderr, "    %s\n", e.message); ti_context_destroy(c); return; }
  got = print(p);
  TT_CHECK(got && strcmp(got, before) == 0);
  free(got);
  ti_pass_manager_init(&pm);
  TT_EQ_INT(ti_pass_manager_add_named(&pm, "cse,dce,maximize-value-semantics,inplace-to-outofplace", &e),
            TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_pass_manager_run(&pm, p, &e), TI_STATUS_SUCCESS);
  got = print(p);
  TT_CHECK_MSG(got && strcmp(got, after) == 0, "--- got\n%s--- expected\n%s", got ? got : "(null)", after);
  free(got);
  ti_program_destroy(p);
  ti_context_destroy(c);
}

/* Task IR: a graph is built, checked, imported as a task program and
   exported back, written and read as protobuf, and executed. */
TT_TEST(task_paths_run) {
  ti_task_graph g, g2;
  ti_context *c = ti_context_create(NULL);
  ti_program *p = NULL;
  ti_diag_list dl;
  ti_exec *x = NULL;
  ti_exec_options o;
  ti_exec_tensor t;
  ti_error e;
  float in[6] = {1.5f, -2.25f, 3.0f, 0.5f, -0.125f, 8.0f};
  int32_t d6[3] = {1, 2, 3}, k;
  ti_buffer pb;
  TT_CHECK(c != NULL);
  if (!c) return;
  memset(&e, 0, sizeof e);
  ti_task_graph_init(&g, NULL);
  ti_task_graph_init(&g2, NULL);
  add(&g, 0, TI_BLOCK_INPUT, TI_DTYPE_F32, ti_task_shape_make(1, 2, 3, 0, 0, 0, 0, 0));
  add(&g, 1, TI_BLOCK_SI, TI_DTYPE_F32, ti_task_shape_make(1, 2, 3, 0, 0, 0, 0, 0));
  add(&g, 2, TI_BLOCK_SI, TI_DTYPE_F32, ti_task_shape_make(1, 2, 3, 0, 0, 0, 0, 0));
  TT_EQ_INT(ti_task_set_data(&g, B(&g, 2), TI_DTYPE_F32, 3, d6, in), 0);
  add(&g, 3, TI_BLOCK_CVVH, TI_DTYPE_F32, ti_task_shape_make(1, 2, 3, 0, 0, 0, 0, 0));
  add(&g, 4, TI_BLOCK_SI, TI_DTYPE_F32, ti_task_shape_make(1, 2, 3, 0, 0, 0, 0, 0));
  add(&g, 5, TI_BLOCK_OUTPUT, TI_DTYPE_F32, ti_task_shape_make(1, 2, 3, 0, 0, 0, 0, 0));
  TT_CHECK(ti_task_connect(&g, B(&g, 0), 0, NULL, NULL, B(&g, 1), 0, NULL, NULL) != NULL);
  TT_CHECK(ti_task_connect(&g, B(&g, 1), 0, NULL, NULL, B(&g, 3), 0, NULL, NULL) != NULL);
  TT_CHECK(ti_task_connect(&g, B(&g, 2), 0, NULL, NULL, B(&g, 3), 1, NULL, NULL) != NULL);
  TT_CHECK(ti_task_connect(&g, B(&g, 3), 0, NULL, NULL, B(&g, 4), 0, NULL, NULL) != NULL);
  TT_CHECK(ti_task_connect(&g, B(&g, 4), 0, NULL, NULL, B(&g, 5), 0, NULL, NULL) != NULL);
  ti_diag_list_init(&dl, NULL);
  TT_EQ_INT(ti_task_check(&g, &dl, &e), TI_STATUS_SUCCESS);
  TT_EQ_INT(dl.n_errors, 0);
  ti_diag_list_free(&dl);
  /* the task dialect: import, verify, cse + dce (nothing to merge), export */
  TT_EQ_INT(ti_task_register(c, &e), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_task_import(c, &g, &p, &e), TI_STATUS_SUCCESS);
  if (p) {
    ti_pass_manager pm;
    int64_t n = p->n_ops;
    ti_pass_manager_init(&pm);
    TT_EQ_INT(ti_pass_manager_add_named(&pm, "cse,dce", &e), TI_STATUS_SUCCESS);
    TT_EQ_INT(ti_pass_manager_run(&pm, p, &e), TI_STATUS_SUCCESS);
    TT_EQ_INT(p->n_ops, n);
    TT_EQ_INT(ti_task_export(p, &g2, &e), TI_STATUS_SUCCESS);
    TT_EQ_INT(g2.n_blocks, g.n_blocks);
    ti_program_destroy(p);
  }
  /* protobuf round trip, then run what was read */
  ti_task_graph_free(&g2);
  ti_task_graph_init(&g2, NULL);
  ti_buffer_init(&pb, NULL);
  TT_EQ_INT(ti_task_encode(&g, &pb, &e), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_task_decode(&g2, pb.data, pb.len, &e), TI_STATUS_SUCCESS);
  ti_buffer_free(&pb);
  ti_exec_options_init(&o);
  TT_EQ_INT(ti_exec_plan(&g2, &o, &x, &e), TI_STATUS_SUCCESS);
  if (x) {
    TT_EQ_INT(ti_exec_set_input_f32(x, 0, in, 6, &e), 0);
    TT_EQ_INT(ti_exec_run(x, &e), 0);
    TT_EQ_INT(ti_exec_output(x, 5, &t, &e), 0);
    TT_EQ_INT(t.dtype, TI_DTYPE_F32);
    for (k = 0; k < 6; k++) TT_CHECK(ti_exec_tensor_f64(&t, k) == (double)(in[k] * in[k]));
    ti_exec_free(x);
  }
  ti_task_graph_free(&g);
  ti_task_graph_free(&g2);
  ti_context_destroy(c);
}

int main(void) {
  TT_RUN(nn_left_out);
  TT_RUN(core_passes_run);
  TT_RUN(task_paths_run);
  return tt_finish();
}
