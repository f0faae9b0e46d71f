/* The graph core: interning, ops and uses, walks, verifier, text form. */
#define TASKIR_IMPLEMENTATION
#include "taskir.h"
#include "tt.h"

/* A tiny dialect for the tests: t.add (2 -> 1, commutative), t.neg, t.src. */
static const char *const t_req_k[] = { "k", NULL };
static ti_status t_verify_add(const ti_op *op, ti_error *err) {
  if (op->operands[0].value->type != op->operands[1].value->type)
    return ti_error_set(err, TI_STATUS_INVALID, "t.add: operand types differ");
  return TI_STATUS_SUCCESS;
}
static ti_status t_infer_same(ti_context *ctx, const ti_op *op, const ti_type **res, ti_error *err) {
  (void)ctx; (void)err;
  res[0] = op->operands[0].value->type;
  return TI_STATUS_SUCCESS;
}
static const ti_op_info t_ops[] = {
  { "t.add", "t", NULL, TI_TRAIT_PURE | TI_TRAIT_COMMUTATIVE, 2, 2, 1, t_verify_add, t_infer_same, NULL, NULL, NULL, NULL },
  { "t.neg", "t", NULL, TI_TRAIT_PURE, 1, 1, 1, NULL, t_infer_same, NULL, NULL, NULL, NULL },
  { "t.src", "t", t_req_k, 0, 0, 0, 1, NULL, NULL, NULL, NULL, NULL, NULL },
  { "t.sink", "t", NULL, 0, 0, -1, 0, NULL, NULL, NULL, NULL, NULL, NULL },
};

static ti_context *make_ctx(void) {
  ti_context *ctx = ti_context_create(NULL);
  TT_CHECK(ctx != NULL);
  TT_EQ_INT(ti_register_ops(ctx, t_ops, 4, NULL), TI_STATUS_SUCCESS);
  return ctx;
}

static char *print(const ti_program *p) {
  ti_buffer b;
  ti_buffer_init(&b, NULL);
  TT_EQ_INT(ti_print_program(p, &b, NULL), TI_STATUS_SUCCESS);
  return (char *)b.data;
}

TT_TEST(interning_gives_pointer_equality) {
  ti_context *ctx = make_ctx();
  int64_t d[3] = {1, 2, 3};
  ti_named_attr kv[3];
  const ti_attr *d1, *d2;
  TT_CHECK(ti_type_get(ctx, TI_TYPE_VTENSOR, TI_DTYPE_F32, 3, d, TI_LAYOUT_ANY) ==
           ti_type_get(ctx, TI_TYPE_VTENSOR, TI_DTYPE_F32, 3, d, TI_LAYOUT_ANY));
  TT_CHECK(ti_type_get(ctx, TI_TYPE_VTENSOR, TI_DTYPE_F32, 3, d, TI_LAYOUT_ANY) !=
           ti_type_get(ctx, TI_TYPE_TENSOR, TI_DTYPE_F32, 3, d, TI_LAYOUT_ANY));
  TT_CHECK(ti_attr_string(ctx, "abc", -1) == ti_attr_string(ctx, "abcd", 3));
  TT_CHECK(ti_attr_int_array(ctx, d, 3) == ti_attr_int_array(ctx, d, 3));
  kv[0] = ti_named(ctx, "zeta", ti_attr_int(ctx, 1));
  kv[1] = ti_named(ctx, "alpha", ti_attr_float(ctx, 2.5));
  kv[2] = ti_named(ctx, "mid", ti_attr_bool(ctx, 1));
  d1 = ti_attr_dict(ctx, kv, 3);
  kv[0] = kv[2]; kv[2] = ti_named(ctx, "zeta", ti_attr_int(ctx, 1));
  d2 = ti_attr_dict(ctx, kv, 3);
  TT_CHECK(d1 == d2 && d1 != NULL);
  TT_EQ_INT(ti_dict_int(d1, "zeta", 0), 1);
  TT_CHECK(ti_dict_float(d1, "alpha", 0) == 2.5);
  TT_EQ_INT(ti_dict_int(d1, "missing", 42), 42);
  TT_CHECK(ti_dict_get(ti_dict_set(ctx, d1, "zeta", NULL), "zeta") == NULL);
  kv[1] = kv[0];
  TT_CHECK(ti_attr_dict(ctx, kv, 2) == NULL);   /* duplicate key */
  TT_CHECK(ti_type_get(ctx, TI_TYPE_TENSOR, TI_DTYPE_F32, 9, d, TI_LAYOUT_ANY) == NULL);
  ti_context_destroy(ctx);
}

static const char *prog_text =
  "program @main(%0: vtensor<2x3xf32, NCHW>, %1: vtensor<2x3xf32, NCHW>) {\n"
  "  %2 = t.add(%0, %1) : (vtensor<2x3xf32, NCHW>, vtensor<2x3xf32, NCHW>) -> vtensor<2x3xf32, NCHW>\n"
  "  %3 = t.src() {a = [1, -2, 3.5, \"s\\n\\\"q\\x01\", true, {x = type(tensor<?x4xi8>)}], k = 0.1, \"weird key\" = -inf} : () -> tensor<i32>\n"
  "  %4 = builtin.get_parameter() {name = \"w\"} : () -> vtensor<2x2xi8>\n"
  "  builtin.return(%2, %3, %4) : (vtensor<2x3xf32, NCHW>, tensor<i32>, vtensor<2x2xi8>) -> ()\n"
  "}\n"
  "weights {\n"
  "  \"w\" : vtensor<2x2xi8> = 0x01ff7f80\n"
  "  \"state\" : tensor<1xi32> mutable = 0x2a000000\n"
  "}\n";

TT_TEST(text_form_round_trips_exactly) {
  ti_context *ctx = make_ctx();
  ti_program *p = NULL, *q = NULL;
  ti_error err;
  char *a, *b;
  ti_error_clear(&err);
  TT_EQ_INT(ti_parse_program(ctx, prog_text, strlen(prog_text), &p, &err), TI_STATUS_SUCCESS);
  if (!p) { fprintf(stderr, "%s\n", err.message); ti_context_destroy(ctx); return; }
  TT_EQ_INT(ti_verify(p, &err), TI_STATUS_SUCCESS);
  a = print(p);
  TT_EQ_STR(a, prog_text);
  TT_EQ_INT(ti_parse_program(ctx, a, strlen(a), &q, &err), TI_STATUS_SUCCESS);
  b = q ? print(q) : NULL;
  TT_EQ_STR(a, b);
  TT_EQ_INT(((int8_t *)ti_program_find_var(p, "w")->data)[1], -1);
  TT_CHECK(ti_program_find_var(p, "state")->is_mutable);
  free(a); free(b);
  ti_program_destroy(p); ti_program_destroy(q);
  ti_context_destroy(ctx);
}

static void expect_parse_error(ti_context *ctx, const char *text, const char *needle, int line) {
  ti_program *p = NULL;
  ti_error err;
  ti_error_clear(&err);
  TT_CHECK(ti_parse_program(ctx, text, strlen(text), &p, &err) != TI_STATUS_SUCCESS);
  TT_CHECK(p == NULL);
  TT_CHECK_MSG(strstr(err.message, needle) != NULL, "message \"%s\" lacks \"%s\"", err.message, needle);
  if (line) TT_EQ_INT(err.line, line);
}

TT_TEST(parser_errors_name_line_and_column) {
  ti_context *ctx = make_ctx();
  expect_parse_error(ctx, "program @m {\n  %0 = t.bogus() : () -> vtensor<f32>\n}\n", "unknown op 't.bogus'", 2);
  expect_parse_error(ctx, "program @m {\n  %1 = t.neg(%0) : (vtensor<f32>) -> vtensor<f32>\n}\n", "before its definition", 2);
  expect_parse_error(ctx, "program @m(%0: vtensor<f32>) {\n  %1 = t.neg(%0) : (vtensor<i8>) -> vtensor<i8>\n}\n", "type mismatch", 2);
  expect_parse_error(ctx, "program @m {\n  %0 = t.src() {k = \"open} : () -> vtensor<f32>\n}\n", "unterminated string", 2);
  expect_parse_error(ctx, "program @m {\n  %0 = t.src() {k = 1} : () -> vtensor<f33>\n}\n", "element type", 2);
  expect_parse_error(ctx, "program @m {\n  %0 = t.src() {k = 1} : () -> vtensor<f32>\n", "missing '}'", 0);
  expect_parse_error(ctx, "program @m graph {\n  %0 = t.neg(%5) : (vtensor<f32>) -> vtensor<f32>\n}\n", "never defined", 0);
  expect_parse_error(ctx, "program @m {\n  %0 = t.src() {k = 1} : () -> vtensor<f32>\n  %0 = t.src() {k = 2} : () -> vtensor<f32>\n}\n",
                     "defined twice", 3);
  expect_parse_error(ctx, "program @m {\n  %0 = t.src() {k = [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]} : () -> vtensor<f32>\n}\n",
                     "nested too deeply", 2);
  expect_parse_error(ctx, "program @m {\n}\nweights {\n  \"w\" : vtensor<2xi8> = 0x01\n}\n", "fewer hex digits", 4);
  ti_context_destroy(ctx);
}

TT_TEST(verifier_rejects_bad_programs) {
  ti_context *ctx = make_ctx();
  ti_program *p = NULL;
  ti_error err;
  const char *cyc = "program @g graph {\n  %0 = t.neg(%1) : (vtensor<f32>) -> vtensor<f32>\n  %1 = t.neg(%0) : (vtensor<f32>) -> vtensor<f32>\n}\n";
  const char *ok = "program @g graph {\n  %0 = t.neg(%1) : (vtensor<f32>) -> vtensor<f32>\n  %1 = t.src() {k = 1} : () -> vtensor<f32>\n}\n";
  ti_error_clear(&err);
  TT_EQ_INT(ti_parse_program(ctx, cyc, strlen(cyc), &p, &err), TI_STATUS_SUCCESS);
  if (p) {
    TT_EQ_INT(ti_verify(p, &err), TI_STATUS_INVALID);
    TT_CHECK(strstr(err.message, "cycle") != NULL);
    ti_program_destroy(p); p = NULL;
  }
  /* graph programs allow forward references; a sorted copy is SSA-valid */
  ti_error_clear(&err);
  TT_EQ_INT(ti_parse_program(ctx, ok, strlen(ok), &p, &err), TI_STATUS_SUCCESS);
  if (p) {
    TT_EQ_INT(ti_verify(p, &err), TI_STATUS_SUCCESS);
    p->kind = TI_PROGRAM_SSA;
    TT_EQ_INT(ti_verify(p, &err), TI_STATUS_INVALID);
    TT_CHECK(strstr(err.message, "before its definition") != NULL);
    TT_EQ_INT(ti_program_sort(p, NULL), TI_STATUS_SUCCESS);
    TT_EQ_INT(ti_verify(p, NULL), TI_STATUS_SUCCESS);
    TT_CHECK(ti_op_is(p->first, "t.src"));
    ti_program_destroy(p); p = NULL;
  }
  {
    /* missing required attribute, and the op's own verify (type mismatch) */
    int64_t d1[1] = {3}, d2[1] = {4};
    ti_builder b;
    ti_value *x, *y, *ops[2];
    p = ti_program_create(ctx, "m", TI_PROGRAM_SSA);
    ti_error_clear(&err);
    ti_builder_init(&b, p, &err);
    x = ti_program_add_arg(p, ti_type_get(ctx, TI_TYPE_VTENSOR, TI_DTYPE_F32, 1, d1, TI_LAYOUT_ANY));
    y = ti_build1(&b, "t.src", 0, NULL, ti_type_get(ctx, TI_TYPE_VTENSOR, TI_DTYPE_F32, 1, d2, TI_LAYOUT_ANY), NULL);
    TT_EQ_INT(ti_verify(p, &err), TI_STATUS_INVALID);
    TT_CHECK(strstr(err.message, "missing required attribute 'k'") != NULL);
    ti_op_set_attr(y->def, "k", ti_attr_int(ctx, 1));
    ops[0] = x; ops[1] = y;
    TT_CHECK(ti_build1(&b, "t.add", 2, ops, NULL, NULL) != NULL);
    ti_error_clear(&err);
    TT_EQ_INT(ti_verify(p, &err), TI_STATUS_INVALID);
    TT_EQ_STR(err.message, "t.add: operand types differ");
    TT_CHECK(ti_build1(&b, "t.nope", 0, NULL, NULL, NULL) == NULL);
    ti_program_destroy(p);
  }
  ti_context_destroy(ctx);
}

TT_TEST(uses_replace_erase_and_walks) {
  ti_context *ctx = make_ctx();
  ti_program *p = ti_program_create(ctx, "m", TI_PROGRAM_SSA);
  const ti_type *t = ti_type_get(ctx, TI_TYPE_VTENSOR, TI_DTYPE_F32, 0, NULL, TI_LAYOUT_ANY);
  ti_builder b;
  ti_value *a, *n1, *n2, *s, *ops[2];
  ti_op **order;
  int64_t n;
  ti_builder_init(&b, p, NULL);
  a = ti_program_add_arg(p, t);
  n1 = ti_build1(&b, "t.neg", 1, &a, NULL, NULL);
  n2 = ti_build1(&b, "t.neg", 1, &a, NULL, NULL);
  ops[0] = n1; ops[1] = n2;
  s = ti_build1(&b, "t.add", 2, ops, NULL, NULL);
  TT_EQ_INT(ti_value_num_uses(a), 2);
  TT_EQ_INT(ti_op_erase(n1->def, NULL), TI_STATUS_BAD_PARAM);
  ti_value_replace_all_uses(n1, n2);
  TT_EQ_INT(ti_value_num_uses(n2), 2);
  TT_EQ_INT(ti_op_erase(n1->def, NULL), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_value_num_uses(a), 1);
  TT_EQ_INT(p->n_ops, 2);
  TT_EQ_INT(ti_walk_reverse_topo(p, &order, &n, NULL), TI_STATUS_SUCCESS);
  TT_EQ_INT(n, 2);
  TT_CHECK(order[0] == s->def && order[1] == n2->def);
  ti_ops_free(p, order);
  ti_program_destroy(p);
  ti_context_destroy(ctx);
}

TT_TEST(million_op_chain_walks_without_recursion) {
  ti_context *ctx = make_ctx();
  ti_program *p = ti_program_create(ctx, "chain", TI_PROGRAM_GRAPH);
  const ti_type *t = ti_type_get(ctx, TI_TYPE_VTENSOR, TI_DTYPE_F32, 0, NULL, TI_LAYOUT_ANY);
  ti_builder b;
  ti_value *v;
  ti_op **order;
  int64_t n, i;
  ti_builder_init(&b, p, NULL);
  v = ti_program_add_arg(p, t);
  for (i = 0; i < 1000000; i++) {
    ti_value *nv = ti_build1(&b, "t.neg", 1, &v, NULL, NULL);
    /* insert each new op at the front: program order is the reverse of data flow */
    ti_op_remove(nv->def);
    ti_op_insert_after(nv->def, NULL);
    v = nv;
  }
  TT_EQ_INT(ti_walk_topo(p, &order, &n, NULL), TI_STATUS_SUCCESS);
  TT_EQ_INT(n, 1000000);
  TT_CHECK(order[0] == p->last && order[n - 1] == p->first);
  ti_ops_free(p, order);
  TT_EQ_INT(ti_verify(p, NULL), TI_STATUS_SUCCESS);
  ti_program_destroy(p);
  ti_context_destroy(ctx);
}

static ti_status drop_unused_negs(ti_program *p, void *user, ti_error *err) {
  ti_op *op = p->first;
  (void)user;
  while (op) {
    ti_op *next = op->next;
    if (ti_op_is(op, "t.neg") && !op->results[0].first_use && ti_op_erase(op, err) != TI_STATUS_SUCCESS) return TI_STATUS_INVALID;
    op = next;
  }
  return TI_STATUS_SUCCESS;
}
static ti_status break_it(ti_program *p, void *user, ti_error *err) {
  (void)user; (void)err;
  p->first->operands[0].value = NULL;   /* leaves an unset operand: the verifier must catch it */
  return TI_STATUS_SUCCESS;
}

TT_TEST(pass_manager_runs_and_verifies) {
  ti_context *ctx = make_ctx();
  const char *text = "program @m(%0: vtensor<f32>) {\n  %1 = t.neg(%0) : (vtensor<f32>) -> vtensor<f32>\n  %2 = t.neg(%0) : (vtensor<f32>) -> vtensor<f32>\n  builtin.return(%2) : (vtensor<f32>) -> ()\n}\n";
  ti_program *p = NULL;
  ti_pass_manager pm;
  ti_error err;
  ti_error_clear(&err);
  TT_EQ_INT(ti_parse_program(ctx, text, strlen(text), &p, &err), TI_STATUS_SUCCESS);
  ti_pass_manager_init(&pm);
  TT_EQ_INT(ti_pass_manager_add(&pm, "drop-unused", drop_unused_negs, NULL), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_pass_manager_run(&pm, p, &err), TI_STATUS_SUCCESS);
  TT_EQ_INT(p->n_ops, 2);
  TT_EQ_INT(ti_pass_manager_add(&pm, "break-it", break_it, NULL), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_pass_manager_run(&pm, p, &err), TI_STATUS_INVALID);
  TT_CHECK(strstr(err.message, "after pass 'break-it'") != NULL);
  ti_program_destroy(p);
  ti_context_destroy(ctx);
}

int main(void) {
  TT_RUN(interning_gives_pointer_equality);
  TT_RUN(text_form_round_trips_exactly);
  TT_RUN(parser_errors_name_line_and_column);
  TT_RUN(verifier_rejects_bad_programs);
  TT_RUN(uses_replace_erase_and_walks);
  TT_RUN(million_op_chain_walks_without_recursion);
  TT_RUN(pass_manager_runs_and_verifies);
  return tt_finish();
}
