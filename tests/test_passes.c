/* Generic passes: the printed program after each pass equals the expected
   text, and the interpreter computes the same outputs (and weights) before
   and after on random inputs. */
#define TASKIR_IMPLEMENTATION
#include "nn_util.h"

static ti_program *parse(ti_context *c, const char *text, int freeze) {
  ti_program *p = NULL;
  ti_error e;
  ti_error_clear(&e);
  if (ti_parse_program(c, text, strlen(text), &p, &e) != TI_STATUS_SUCCESS) {
    fprintf(stderr, "    parse: %s (line %d:%d)\n", e.message, (int)e.line, (int)e.column);
    return NULL;
  }
  if (freeze) ti_program_freeze_weights(p);
  return p;
}

static char *print(const ti_program *p) {
  ti_buffer b;
  ti_error e;
  char *s;
  ti_buffer_init(&b, NULL);
  ti_error_clear(&e);
  if (ti_print_program(p, &b, &e) != TI_STATUS_SUCCESS) { ti_buffer_free(&b); return NULL; }
  s = (char *)malloc(b.len + 1);
  memcpy(s, b.data, b.len);
  s[b.len] = 0;
  ti_buffer_free(&b);
  return s;
}

/* Runs p on inputs; returns the outputs count (-1 on failure). */
static int run(const ti_program *p, ti_tensor_value **in, ti_tensor_value **out) {
  int32_t n = 16;
  ti_error e;
  ti_error_clear(&e);
  if (ti_interpret(p, (const ti_tensor_value *const *)in, p->n_args, out, &n, &e) != TI_STATUS_SUCCESS) {
    fprintf(stderr, "    interpret: %s\n", e.message);
    return -1;
  }
  return n;
}

/* Parses `before`, runs `passes`, compares the print with print(parse(after))
   and the interpreter's results (3 random input sets) with the original's. */
static void check_pass(const char *passes, const char *before, const char *after, int freeze) {
  ti_context *c = nu_ctx();
  ti_program *p = parse(c, before, freeze), *ref = parse(c, before, freeze), *want = parse(c, after, 0);
  ti_pass_manager pm;
  ti_error e;
  tt_rng r = {12345};
  int round;
  ti_error_clear(&e);
  TT_CHECK(p && ref && want);
  if (!p || !ref || !want) goto done;
  TT_EQ_INT(ti_verify(p, &e), TI_STATUS_SUCCESS);
  ti_pass_manager_init(&pm);
  TT_EQ_INT(ti_pass_manager_add_named(&pm, passes, &e), TI_STATUS_SUCCESS);
  TT_EQ_INT(ti_pass_manager_run(&pm, p, &e), TI_STATUS_SUCCESS);
  if (e.status) fprintf(stderr, "    %s: %s\n", passes, e.message);
  {
    char *got = print(p), *exp = print(want);
    TT_CHECK_MSG(got && exp && strcmp(got, exp) == 0, "%s:\n--- got\n%s--- expected\n%s", passes, got, exp);
    free(got);
    free(exp);
  }
  for (round = 0; round < 3; round++) {
    ti_tensor_value *in[16], *o1[16], *o2[16];
    int32_t i, n1, n2;
    for (i = 0; i < p->n_args; i++) {
      const ti_type *t = p->args[i]->type;
      in[i] = nu_rand(t->dtype, t->layout, t->rank, t->dims, &r, -2, 2);
    }
    n1 = run(ref, in, o1);
    n2 = run(p, in, o2);
    TT_CHECK(n1 >= 0 && n1 == n2);
    for (i = 0; n1 >= 0 && n1 == n2 && i < n1; i++) {
      double d = ti_tensor_max_diff(o1[i], o2[i], NULL);
      TT_CHECK_MSG(d >= 0 && d < 1e-5, "%s: output %d differs by %g", passes, (int)i, d);
    }
    for (i = 0; i < ref->n_vars; i++) {
      const ti_variable *a = &ref->vars[i], *b = ti_program_find_var(p, a->name);
      TT_CHECK_MSG(b && b->bytes == a->bytes && memcmp(a->data, b->data, (size_t)a->bytes) == 0, "weight %s", a->name);
    }
    if (n1 > 0) nu_free_all(n1, o1);
    if (n2 > 0) nu_free_all(n2, o2);
    nu_free_all(p->n_args, in);
  }
done:
  if (p) ti_program_destroy(p);
  if (ref) ti_program_destroy(ref);
  if (want) ti_program_destroy(want);
  ti_context_destroy(c);
}

TT_TEST(dce_removes_unused_pure_ops) {
  check_pass("dce",
    "program @d(%0: vtensor<4xf32>) {\n"
    "  %1 = nn.relu(%0) : (vtensor<4xf32>) -> vtensor<4xf32>\n"
    "  %2 = nn.add(%1, %1) : (vtensor<4xf32>, vtensor<4xf32>) -> vtensor<4xf32>\n"
    "  %3 = builtin.get_parameter() {name = \"w\"} : () -> vtensor<4xf32>\n"
    "  %4 = nn.mul(%0, %0) : (vtensor<4xf32>, vtensor<4xf32>) -> vtensor<4xf32>\n"
    "  builtin.set_parameter(%4) {name = \"w\"} : (vtensor<4xf32>) -> ()\n"
    "  %5 = builtin.to_tensor(%0) : (vtensor<4xf32>) -> tensor<4xf32>\n"
    "  %6 = nn.relu_(%5) : (tensor<4xf32>) -> tensor<4xf32>\n"
    "  builtin.return(%0) : (vtensor<4xf32>) -> ()\n"
    "}\n"
    "weights {\n  \"w\" : tensor<4xf32> = 0x0000803f0000803f0000803f0000803f\n}\n",
    "program @d(%0: vtensor<4xf32>) {\n"
    "  %1 = nn.mul(%0, %0) : (vtensor<4xf32>, vtensor<4xf32>) -> vtensor<4xf32>\n"
    "  builtin.set_parameter(%1) {name = \"w\"} : (vtensor<4xf32>) -> ()\n"
    "  %2 = builtin.to_tensor(%0) : (vtensor<4xf32>) -> tensor<4xf32>\n"
    "  %3 = nn.relu_(%2) : (tensor<4xf32>) -> tensor<4xf32>\n"
    "  builtin.return(%0) : (vtensor<4xf32>) -> ()\n"
    "}\n"
    "weights {\n  \"w\" : tensor<4xf32> = 0x0000803f0000803f0000803f0000803f\n}\n", 0);
}

#define V4 "vtensor<4xf32>"
#define T4 "tensor<4xf32>"
#define X "vtensor<1x2x4x4xf32, NCHW>"
#define W "vtensor<3x2x3x3xf32, OIHW>"
#define Y "vtensor<1x3x4x4xf32, NCHW>"
#define Y2 "vtensor<1x3x2x2xf32, NCHW>"

TT_TEST(cse_merges_equal_pure_ops) {
  check_pass("cse",
    "program @c(%0: " X ", %1: " W ", %2: " V4 ", %3: " V4 ", %4: " T4 ", %5: " T4 ") {\n"
    "  %6 = nn.conv2d(%0, %1) {pads = [1, 1, 1, 1]} : (" X ", " W ") -> " Y "\n"
    "  %7 = nn.conv2d(%0, %1) {pads = [1, 1, 1, 1]} : (" X ", " W ") -> " Y "\n"
    "  %8 = nn.conv2d(%0, %1) : (" X ", " W ") -> " Y2 "\n"
    "  %9 = nn.add(%2, %3) : (" V4 ", " V4 ") -> " V4 "\n"
    "  %10 = nn.add(%3, %2) : (" V4 ", " V4 ") -> " V4 "\n"
    "  %11 = nn.sub(%2, %3) : (" V4 ", " V4 ") -> " V4 "\n"
    "  %12 = nn.sub(%3, %2) : (" V4 ", " V4 ") -> " V4 "\n"
    "  %13 = nn.relu(%4) : (" T4 ") -> " T4 "\n"
    "  %14 = nn.relu(%4) : (" T4 ") -> " T4 "\n"
    "  %15 = nn.relu(%5) : (" T4 ") -> " T4 "\n"
    "  %16 = nn.relu_(%5) : (" T4 ") -> " T4 "\n"
    "  %17 = nn.relu(%5) : (" T4 ") -> " T4 "\n"
    "  %18 = nn.add(%6, %7) : (" Y ", " Y ") -> " Y "\n"
    "  builtin.return(%18, %8, %9, %10, %11, %12, %13, %14, %15, %17) : (" Y ", " Y2 ", " V4 ", " V4 ", " V4 ", " V4
    ", " T4 ", " T4 ", " T4 ", " T4 ") -> ()\n"
    "}\n",
    "program @c(%0: " X ", %1: " W ", %2: " V4 ", %3: " V4 ", %4: " T4 ", %5: " T4 ") {\n"
    "  %6 = nn.conv2d(%0, %1) {pads = [1, 1, 1, 1]} : (" X ", " W ") -> " Y "\n"
    "  %7 = nn.conv2d(%0, %1) : (" X ", " W ") -> " Y2 "\n"
    "  %8 = nn.add(%2, %3) : (" V4 ", " V4 ") -> " V4 "\n"
    "  %9 = nn.sub(%2, %3) : (" V4 ", " V4 ") -> " V4 "\n"
    "  %10 = nn.sub(%3, %2) : (" V4 ", " V4 ") -> " V4 "\n"
    "  %11 = nn.relu(%4) : (" T4 ") -> " T4 "\n"
    "  %12 = nn.relu(%5) : (" T4 ") -> " T4 "\n"
    "  %13 = nn.relu_(%5) : (" T4 ") -> " T4 "\n"
    "  %14 = nn.relu(%5) : (" T4 ") -> " T4 "\n"
    "  %15 = nn.add(%6, %6) : (" Y ", " Y ") -> " Y "\n"
    "  builtin.return(%15, %7, %8, %8, %9, %10, %11, %11, %12, %14) : (" Y ", " Y2 ", " V4 ", " V4 ", " V4 ", " V4
    ", " T4 ", " T4 ", " T4 ", " T4 ") -> ()\n"
    "}\n", 0);
}

/* Operands with many uses go through cse's table, the others through a
   scan of their uses: both find the earliest twin. %0 has 40 users; the
   first four and the last four are returned. */
TT_TEST(cse_merges_users_of_a_hot_value) {
  static const char *const kinds[4] = {"nn.relu(%0) : (" V4 ")", "nn.add(%0, %1) : (" V4 ", " V4 ")",
                                       "nn.add(%1, %0) : (" V4 ", " V4 ")", "nn.sub(%0, %1) : (" V4 ", " V4 ")"};
  static const int keep[4] = {2, 3, 3, 4};
  char before[8192], after[2048];
  size_t b = 0, a = 0;
  int i;
  b += (size_t)snprintf(before + b, sizeof before - b, "program @h(%%0: " V4 ", %%1: " V4 ") {\n");
  for (i = 0; i < 40; i++) b += (size_t)snprintf(before + b, sizeof before - b, "  %%%d = %s -> " V4 "\n", i + 2, kinds[i % 4]);
  b += (size_t)snprintf(before + b, sizeof before - b, "  builtin.return(");
  for (i = 0; i < 8; i++) b += (size_t)snprintf(before + b, sizeof before - b, "%s%%%d", i ? ", " : "", i < 4 ? i + 2 : i + 34);
  b += (size_t)snprintf(before + b, sizeof before - b, ") : (");
  for (i = 0; i < 8; i++) b += (size_t)snprintf(before + b, sizeof before - b, "%s" V4, i ? ", " : "");
  b += (size_t)snprintf(before + b, sizeof before - b, ") -> ()\n}\n");
  a += (size_t)snprintf(after + a, sizeof after - a, "program @h(%%0: " V4 ", %%1: " V4 ") {\n");
  a += (size_t)snprintf(after + a, sizeof after - a, "  %%2 = %s -> " V4 "\n  %%3 = %s -> " V4 "\n  %%4 = %s -> " V4 "\n",
                        kinds[0], kinds[1], kinds[3]);
  a += (size_t)snprintf(after + a, sizeof after - a, "  builtin.return(");
  for (i = 0; i < 8; i++) a += (size_t)snprintf(after + a, sizeof after - a, "%s%%%d", i ? ", " : "", keep[i % 4]);
  a += (size_t)snprintf(after + a, sizeof after - a, ") : (");
  for (i = 0; i < 8; i++) a += (size_t)snprintf(after + a, sizeof after - a, "%s" V4, i ? ", " : "");
  a += (size_t)snprintf(after + a, sizeof after - a, ") -> ()\n}\n");
  TT_CHECK(b < sizeof before && a < sizeof after);
  check_pass("cse", before, after, 0);
}

/* get_parameter of an immutable variable is CSE'd; of a mutable one not. */
TT_TEST(cse_get_parameter_only_when_immutable) {
  check_pass("cse,dce",
    "program @g(%0: " V4 ") {\n"
    "  %1 = builtin.get_parameter() {name = \"a\"} : () -> " V4 "\n"
    "  %2 = builtin.get_parameter() {name = \"a\"} : () -> " V4 "\n"
    "  %3 = builtin.get_parameter() {name = \"m\"} : () -> " V4 "\n"
    "  builtin.set_parameter(%0) {name = \"m\"} : (" V4 ") -> ()\n"
    "  %4 = builtin.get_parameter() {name = \"m\"} : () -> " V4 "\n"
    "  %5 = nn.mul(%1, %2) : (" V4 ", " V4 ") -> " V4 "\n"
    "  %6 = nn.sub(%3, %4) : (" V4 ", " V4 ") -> " V4 "\n"
    "  builtin.return(%5, %6) : (" V4 ", " V4 ") -> ()\n"
    "}\n"
    "weights {\n  \"a\" : " T4 " = 0x0000803f000000400000404000008040\n"
    "  \"m\" : " T4 " = 0x0000803f0000803f0000803f0000803f\n}\n",
    "program @g(%0: " V4 ") {\n"
    "  %1 = builtin.get_parameter() {name = \"a\"} : () -> " V4 "\n"
    "  %2 = builtin.get_parameter() {name = \"m\"} : () -> " V4 "\n"
    "  builtin.set_parameter(%0) {name = \"m\"} : (" V4 ") -> ()\n"
    "  %3 = builtin.get_parameter() {name = \"m\"} : () -> " V4 "\n"
    "  %4 = nn.mul(%1, %1) : (" V4 ", " V4 ") -> " V4 "\n"
    "  %5 = nn.sub(%2, %3) : (" V4 ", " V4 ") -> " V4 "\n"
    "  builtin.return(%4, %5) : (" V4 ", " V4 ") -> ()\n"
    "}\n"
    "weights {\n  \"a\" : " T4 " = 0x0000803f000000400000404000008040\n"
    "  \"m\" : " T4 " mutable = 0x0000803f0000803f0000803f0000803f\n}\n", 1);
}

#define V2 "vtensor<2xf32>"
#define T2 "tensor<2xf32>"
TT_TEST(constant_fold_folds_constants_and_frozen_weights) {
  /* w = [2, 2] is immutable after freezing; m is written by set_parameter. */
  check_pass("constant-fold,dce",
    "program @f(%0: " V2 ") {\n"
    "  %1 = builtin.constant() {value = [1.0, 2.0]} : () -> " V2 "\n"
    "  %2 = builtin.get_parameter() {name = \"w\"} : () -> " V2 "\n"
    "  %3 = nn.mul(%1, %2) : (" V2 ", " V2 ") -> " V2 "\n"
    "  %4 = builtin.get_parameter() {name = \"m\"} : () -> " V2 "\n"
    "  %5 = nn.add(%3, %4) : (" V2 ", " V2 ") -> " V2 "\n"
    "  %6 = nn.add(%5, %0) : (" V2 ", " V2 ") -> " V2 "\n"
    "  builtin.set_parameter(%6) {name = \"m\"} : (" V2 ") -> ()\n"
    "  %7 = nn.relu(%1) : (" V2 ") -> " V2 "\n"
    "  %8 = builtin.constant() {value = -3.0} : () -> " V2 "\n"
    "  %9 = nn.clip(%8) {max = 1.0, min = -1.0} : (" V2 ") -> " V2 "\n"
    "  builtin.return(%6, %7, %9) : (" V2 ", " V2 ", " V2 ") -> ()\n"
    "}\n"
    "weights {\n  \"w\" : " T2 " = 0x0000004000000040\n  \"m\" : " T2 " = 0x0000803f0000803f\n}\n",
    "program @f(%0: " V2 ") {\n"
    "  %1 = builtin.constant() {value = [2.0, 4.0]} : () -> " V2 "\n"
    "  %2 = builtin.get_parameter() {name = \"m\"} : () -> " V2 "\n"
    "  %3 = nn.add(%1, %2) : (" V2 ", " V2 ") -> " V2 "\n"
    "  %4 = nn.add(%3, %0) : (" V2 ", " V2 ") -> " V2 "\n"
    "  builtin.set_parameter(%4) {name = \"m\"} : (" V2 ") -> ()\n"
    "  %5 = builtin.constant() {value = [1.0, 2.0]} : () -> " V2 "\n"
    "  %6 = builtin.constant() {value = [-1.0, -1.0]} : () -> " V2 "\n"
    "  builtin.return(%4, %5, %6) : (" V2 ", " V2 ", " V2 ") -> ()\n"
    "}\n"
    "weights {\n  \"w\" : " T2 " = 0x0000004000000040\n  \"m\" : " T2 " mutable = 0x0000803f0000803f\n}\n", 1);
}

/* Without freezing, variables added as mutable are not folded. */
TT_TEST(constant_fold_leaves_mutable_weights) {
  const char *prog =
    "program @f(%0: " V2 ") {\n"
    "  %1 = builtin.get_parameter() {name = \"w\"} : () -> " V2 "\n"
    "  %2 = nn.relu(%1) : (" V2 ") -> " V2 "\n"
    "  builtin.return(%2) : (" V2 ") -> ()\n"
    "}\n"
    "weights {\n  \"w\" : " T2 " mutable = 0x0000004000000040\n}\n";
  check_pass("constant-fold", prog, prog, 0);
}

#define TX "tensor<1x2x4x4xf32, NCHW>"
#define TW "tensor<3x2x1x1xf32, OIHW>"
#define TY "tensor<1x3x4x4xf32, NCHW>"
#define VX "vtensor<1x2x4x4xf32, NCHW>"
#define VW "vtensor<3x2x1x1xf32, OIHW>"
#define VY "vtensor<1x3x4x4xf32, NCHW>"

/* Seed 003 §2.5.1: conv -> add -> relu on tensors becomes a vtensor chain
   with one copy in per input and one copy out; a tensor that relu_ writes
   keeps its copies. */
TT_TEST(maximize_value_semantics) {
  check_pass("maximize-value-semantics",
    "program @v(%0: " TX ", %1: " TW ", %2: " TY ", %3: " T4 ") {\n"
    "  %4 = nn.conv2d(%0, %1) : (" TX ", " TW ") -> " TY "\n"
    "  %5 = nn.add(%4, %2) : (" TY ", " TY ") -> " TY "\n"
    "  %6 = nn.relu(%5) : (" TY ") -> " TY "\n"
    "  %7 = nn.relu(%3) : (" T4 ") -> " T4 "\n"
    "  %8 = nn.relu_(%7) : (" T4 ") -> " T4 "\n"
    "  %9 = nn.add(%7, %8) : (" T4 ", " T4 ") -> " T4 "\n"
    "  %10 = nn.mul(%0, %0) : (" TX ", " TX ") -> " TX "\n"
    "  builtin.return(%6, %9, %10) : (" TY ", " T4 ", " TX ") -> ()\n"
    "}\n",
    "program @v(%0: " TX ", %1: " TW ", %2: " TY ", %3: " T4 ") {\n"
    "  %4 = builtin.to_vtensor(%0) : (" TX ") -> " VX "\n"
    "  %5 = builtin.to_vtensor(%1) : (" TW ") -> " VW "\n"
    "  %6 = nn.conv2d(%4, %5) : (" VX ", " VW ") -> " VY "\n"
    "  %7 = builtin.to_vtensor(%2) : (" TY ") -> " VY "\n"
    "  %8 = nn.add(%6, %7) : (" VY ", " VY ") -> " VY "\n"
    "  %9 = nn.relu(%8) : (" VY ") -> " VY "\n"
    "  %10 = builtin.to_tensor(%9) : (" VY ") -> " TY "\n"
    "  %11 = builtin.to_vtensor(%3) : (" T4 ") -> " V4 "\n"
    "  %12 = nn.relu(%11) : (" V4 ") -> " V4 "\n"
    "  %13 = builtin.to_tensor(%12) : (" V4 ") -> " T4 "\n"
    "  %14 = nn.relu_(%13) : (" T4 ") -> " T4 "\n"
    "  %15 = builtin.to_vtensor(%13) : (" T4 ") -> " V4 "\n"
    "  %16 = builtin.to_vtensor(%14) : (" T4 ") -> " V4 "\n"
    "  %17 = nn.add(%15, %16) : (" V4 ", " V4 ") -> " V4 "\n"
    "  %18 = builtin.to_tensor(%17) : (" V4 ") -> " T4 "\n"
    "  %19 = nn.mul(%4, %4) : (" VX ", " VX ") -> " VX "\n"
    "  %20 = builtin.to_tensor(%19) : (" VX ") -> " TX "\n"
    "  builtin.return(%10, %18, %20) : (" TY ", " T4 ", " TX ") -> ()\n"
    "}\n", 0);
}

/* Seed 003 §2.5.2: b = relu_(a); later readers of a read b. A use before
   the write keeps a; an a that is a view's alias is left alone. */
TT_TEST(inplace_to_outofplace) {
  check_pass("inplace-to-outofplace",
    "program @i(%0: " T4 ", %1: " T4 ") {\n"
    "  %2 = nn.sub(%0, %0) : (" T4 ", " T4 ") -> " T4 "\n"
    "  %3 = nn.relu_(%0) : (" T4 ") -> " T4 "\n"
    "  %4 = nn.add(%0, %3) : (" T4 ", " T4 ") -> " T4 "\n"
    "  %5 = nn.mul(%0, %0) : (" T4 ", " T4 ") -> " T4 "\n"
    "  %6 = nn.reshape(%1) {shape = [2, 2]} : (" T4 ") -> tensor<2x2xf32, TENSOR>\n"
    "  %7 = nn.relu_(%1) : (" T4 ") -> " T4 "\n"
    "  builtin.return(%2, %4, %5, %0, %6, %7) : (" T4 ", " T4 ", " T4 ", " T4 ", tensor<2x2xf32, TENSOR>, " T4 ") -> ()\n"
    "}\n",
    "program @i(%0: " T4 ", %1: " T4 ") {\n"
    "  %2 = nn.sub(%0, %0) : (" T4 ", " T4 ") -> " T4 "\n"
    "  %3 = nn.relu(%0) : (" T4 ") -> " T4 "\n"
    "  %4 = nn.add(%3, %3) : (" T4 ", " T4 ") -> " T4 "\n"
    "  %5 = nn.mul(%3, %3) : (" T4 ", " T4 ") -> " T4 "\n"
    "  %6 = nn.reshape(%1) {shape = [2, 2]} : (" T4 ") -> tensor<2x2xf32, TENSOR>\n"
    "  %7 = nn.relu_(%1) : (" T4 ") -> " T4 "\n"
    "  builtin.return(%2, %4, %5, %3, %6, %7) : (" T4 ", " T4 ", " T4 ", " T4 ", tensor<2x2xf32, TENSOR>, " T4 ") -> ()\n"
    "}\n", 0);
}

/* The point of §2.5.2: conv -> add -> relu_ on tensors becomes, after both
   passes, a vtensor chain conv -> add -> relu that a fusion can take. */
TT_TEST(inplace_then_value_semantics_makes_chain_fusable) {
  check_pass("inplace-to-outofplace, maximize-value-semantics,cse,dce",
    "program @p(%0: " TX ", %1: " TW ", %2: " TY ") {\n"
    "  %3 = nn.conv2d(%0, %1) : (" TX ", " TW ") -> " TY "\n"
    "  %4 = nn.add(%3, %2) : (" TY ", " TY ") -> " TY "\n"
    "  %5 = nn.relu_(%4) : (" TY ") -> " TY "\n"
    "  builtin.return(%4) : (" TY ") -> ()\n"
    "}\n",
    "program @p(%0: " TX ", %1: " TW ", %2: " TY ") {\n"
    "  %3 = builtin.to_vtensor(%0) : (" TX ") -> " VX "\n"
    "  %4 = builtin.to_vtensor(%1) : (" TW ") -> " VW "\n"
    "  %5 = nn.conv2d(%3, %4) : (" VX ", " VW ") -> " VY "\n"
    "  %6 = builtin.to_vtensor(%2) : (" TY ") -> " VY "\n"
    "  %7 = nn.add(%5, %6) : (" VY ", " VY ") -> " VY "\n"
    "  %8 = nn.relu(%7) : (" VY ") -> " VY "\n"
    "  %9 = builtin.to_tensor(%8) : (" VY ") -> " TY "\n"
    "  builtin.return(%9) : (" TY ") -> ()\n"
    "}\n", 0);
}

TT_TEST(pass_table) {
  int32_t n = 0, i;
  const ti_pass *t = ti_generic_passes(&n);
  ti_pass_manager pm;
  ti_error e;
  TT_EQ_INT(n, 5);
  for (i = 0; i < n; i++) TT_CHECK(ti_find_pass(t[i].name) == &t[i] && t[i].run);
  TT_CHECK(ti_find_pass("no-such-pass") == NULL);
  ti_pass_manager_init(&pm);
  ti_error_clear(&e);
  TT_EQ_INT(ti_pass_manager_add_named(&pm, "cse,bogus", &e), TI_STATUS_NOT_FOUND);
  TT_CHECK(strstr(e.message, "bogus") != NULL);
}


/* Property: random programs over [4] tensors and vtensors with aliasing
   (relu_ on tensors, reshape views), constants and frozen weights compute
   the same outputs after every pass and after the whole pipeline. Every
   other program enters the passes with junk in the ops' scratch field
   (`order`: what an earlier walk may leave there, here random words with
   the low bits set, and addresses of values), which no pass may trust. */
static ti_program *random_program(ti_context *c, tt_rng *r) {
  ti_program *p = ti_program_create(c, "r", TI_PROGRAM_SSA);
  ti_builder b;
  ti_error e;
  ti_value *pool[64], *outs[4];
  int64_t d4[1] = {4}, d22[2] = {2, 2};
  const ti_type *t4 = ti_type_get(c, TI_TYPE_TENSOR, TI_DTYPE_F32, 1, d4, TI_LAYOUT_ANY);
  const ti_type *v4 = ti_type_get(c, TI_TYPE_VTENSOR, TI_DTYPE_F32, 1, d4, TI_LAYOUT_ANY);
  float w[4] = {0.5f, -1.0f, 2.0f, 0.25f};
  int n = 0, i, steps = (int)tt_range(r, 4, 24);
  ti_error_clear(&e);
  ti_builder_init(&b, p, &e);
  pool[n++] = ti_program_add_arg(p, t4);
  pool[n++] = ti_program_add_arg(p, t4);
  pool[n++] = ti_program_add_arg(p, v4);
  TT_EQ_INT(ti_program_add_var(p, "w", t4, w, 0, &e), TI_STATUS_SUCCESS);
  for (i = 0; i < steps && n < 60; i++) {
    int k = (int)tt_range(r, 0, 9);
    ti_value *a = pool[tt_range(r, 0, n - 1)], *bv = pool[tt_range(r, 0, n - 1)], *ops[2], *res = NULL;
    ops[0] = a; ops[1] = bv;
    if (a->type->rank != 1) { /* a [2,2] view: flatten it back */
      res = ti_build1(&b, "nn.reshape", 1, ops, NULL, nu_dict(c, 1, "shape", nu_ints(c, 1, 4)));
      pool[n++] = res;
      continue;
    }
    if (bv->type->rank != 1) ops[1] = bv = a;
    switch (k) {
    case 0: res = ti_build1(&b, "nn.relu", 1, ops, NULL, NULL); break;
    case 1: res = ti_build1(&b, "nn.add", 2, ops, NULL, NULL); break;
    case 2: res = ti_build1(&b, "nn.mul", 2, ops, NULL, NULL); break;
    case 3: res = ti_build1(&b, "nn.sub", 2, ops, NULL, NULL); break;
    case 4: case 5:
      if (a->type->kind == TI_TYPE_TENSOR) res = ti_build1(&b, "nn.relu_", 1, ops, NULL, NULL);
      else res = ti_build1(&b, "nn.clip", 1, ops, NULL, nu_dict(c, 2, "min", ti_attr_float(c, -1), "max", ti_attr_float(c, 1)));
      break;
    case 6: res = ti_build1(&b, "nn.reshape", 1, ops, NULL, nu_dict(c, 1, "shape", nu_ints(c, 2, 2, 2))); break;
    case 7: res = ti_build1(&b, "builtin.get_parameter", 0, NULL, tt_range(r, 0, 1) ? t4 : v4,
                            nu_dict(c, 1, "name", ti_attr_string(c, "w", -1))); break;
    case 8: res = ti_build1(&b, "builtin.constant", 0, NULL, tt_range(r, 0, 1) ? t4 : v4,
                            nu_dict(c, 1, "value", ti_attr_float(c, (double)tt_range(r, -2, 2)))); break;
    default: res = ti_build1(&b, "nn.add", 2, ops, NULL, NULL); break;
    }
    if (res) pool[n++] = res;
  }
  (void)d22;
  for (i = 0; i < 4; i++) {
    ti_value *v = pool[i < 2 ? n - 1 - i : tt_range(r, 0, n - 1)];
    outs[i] = v;
  }
  ti_build(&b, "builtin.return", 4, outs, 0, NULL, NULL);
  if (b.status != TI_STATUS_SUCCESS || ti_verify(p, &e) != TI_STATUS_SUCCESS) {
    fprintf(stderr, "    random program: %s\n", e.message);
    ti_program_destroy(p);
    return NULL;
  }
  ti_program_freeze_weights(p);
  return p;
}

static int same_outputs(const ti_program *a, const ti_program *b, tt_rng *r) {
  ti_tensor_value *in[3], *o1[8], *o2[8];
  int i, n1, n2, ok = 1;
  int64_t d4[1] = {4};
  for (i = 0; i < 3; i++) in[i] = nu_rand(TI_DTYPE_F32, TI_LAYOUT_ANY, 1, d4, r, -2, 2);
  n1 = run(a, in, o1);
  n2 = run(b, in, o2);
  if (n1 < 0 || n1 != n2) ok = 0;
  for (i = 0; ok && i < n1; i++) {
    double d = ti_tensor_max_diff(o1[i], o2[i], NULL);
    if (!(d >= 0 && d < 1e-5)) ok = 0;
  }
  if (n1 > 0) nu_free_all(n1, o1);
  if (n2 > 0) nu_free_all(n2, o2);
  nu_free_all(3, in);
  return ok;
}

TT_TEST(random_programs_keep_their_outputs) {
  static const char *const pipelines[] = {"dce", "cse", "constant-fold", "maximize-value-semantics",
                                          "inplace-to-outofplace",
                                          "inplace-to-outofplace,maximize-value-semantics,cse,constant-fold,dce"};
  ti_context *c = nu_ctx();
  tt_rng r = {4242};
  int it, k, fails = 0;
  for (it = 0; it < 150; it++) {
    uint64_t seed = r.s;
    for (k = 0; k < 6; k++) {
      tt_rng g = {seed}, g2 = {seed};
      ti_program *ref = random_program(c, &g), *p = random_program(c, &g2);
      ti_pass_manager pm;
      ti_error e;
      ti_error_clear(&e);
      TT_CHECK(ref && p);
      if (ref && p) {
        if (it % 2) {
          ti_op *o;
          for (o = p->first; o; o = o->next) {
            const void *v = o->n_results ? (const void *)o->results : (const void *)o;   /* a value's address */
            o->order = tt_range(&g2, 0, 1) ? (int64_t)(tt_next(&g2) | 7u)
                                            : (int64_t)(uintptr_t)v | (int64_t)tt_range(&g2, 1, 7);
          }
        }
        ti_pass_manager_init(&pm);
        TT_EQ_INT(ti_pass_manager_add_named(&pm, pipelines[k], &e), TI_STATUS_SUCCESS);
        TT_EQ_INT(ti_pass_manager_run(&pm, p, &e), TI_STATUS_SUCCESS);
        if (!same_outputs(ref, p, &g) && fails++ < 2) {
          char *t1 = print(ref), *t2 = print(p);
          TT_CHECK_MSG(0, "%s changed the outputs of\n%s--- into\n%s", pipelines[k], t1, t2);
          free(t1); free(t2);
        }
      }
      if (ref) ti_program_destroy(ref);
      if (p) ti_program_destroy(p);
    }
    tt_next(&r);
  }
  TT_EQ_INT(fails, 0);
  ti_context_destroy(c);
}

int main(void) {
  TT_RUN(dce_removes_unused_pure_ops);
  TT_RUN(cse_merges_equal_pure_ops);
  TT_RUN(cse_merges_users_of_a_hot_value);
  TT_RUN(cse_get_parameter_only_when_immutable);
  TT_RUN(constant_fold_folds_constants_and_frozen_weights);
  TT_RUN(constant_fold_leaves_mutable_weights);
  TT_RUN(maximize_value_semantics);
  TT_RUN(inplace_to_outofplace);
  TT_RUN(inplace_then_value_semantics_makes_chain_fusable);
  TT_RUN(pass_table);
  TT_RUN(random_programs_keep_their_outputs);
  return tt_finish();
}
