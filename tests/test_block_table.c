/* The block descriptor table (TI_BLOCK_TYPES in taskir.h): every row's
   names, wire value and class agree with the enum; the operand roles and
   layouts the checker, statistics and executor share; one MAC count (CADD
   included) in the statistics and the executor's profile; and the recipe
   for a new block type: CNEG below is added through the table alone (one
   row in TASKIR_EXTRA_BLOCK_TYPES, one kernel, its name in the row) and
   runs through check, statistics, the codec and the executor. */

/* CNEG (test only): out[y][x][f] = -in[y][x][f] + bias[f] (or CONSTANT_B). */
#define TASKIR_EXTRA_BLOCK_TYPES(X)                                                                     \
  X(CNEG, "CNEG", "task.cneg", 900, COMPUTE, 1, YXF, NONE, NONE, 1, NONE, TI_DIM_YXF, 0, 0, 1, YXF, OUT, \
    test_cneg_kernel)
#include "taskir_exec.h"   /* declarations, for the kernel's signature */

static ti_status test_cneg_kernel(const ti_exec_kernel_args *a) {
  const ti_prim_desc *d = a->d;
  int64_t n = (int64_t)d->ny * d->nx * d->nf, i;
  int32_t *out = (int32_t *)a->out;
  if (a->n_in != 1 || d->out_dtype != TI_DTYPE_I32) return TI_STATUS_NOT_SUPPORTED;
  for (i = 0; i < n; i++) {
    int64_t v = d->in_dtype == TI_DTYPE_I8 ? ((const int8_t *)a->in[0])[i]
              : d->in_dtype == TI_DTYPE_I32 ? ((const int32_t *)a->in[0])[i] : 0;
    uint32_t r = 0u - (uint32_t)v;
    if (d->bias_mode == TI_BIAS_VECTOR) r += (uint32_t)((const int32_t *)a->bias)[i % d->nf];
    else if (d->bias_mode == TI_BIAS_CONSTANT) r += (uint32_t)d->constant_b;
    out[i] = (int32_t)r;
  }
  return TI_STATUS_SUCCESS;
}

#define TASKIR_IMPLEMENTATION
#include "taskir_proto.h"
#include "taskir_exec.h"
#include "tt.h"
#include "tt_task.h"

static void link0(ti_task_graph *g, int32_t s, int32_t d, int32_t dc) {
  TT_CHECK(ti_task_connect(g, B(g, s), 0, NULL, NULL, B(g, d), dc, NULL, NULL) != NULL);
}
static int32_t n_check_errors(const ti_task_graph *g, int show) {
  ti_diag_list l;
  int32_t i, n;
  ti_diag_list_init(&l, NULL);
  TT_EQ_INT(ti_task_check(g, &l, NULL), l.n_errors ? TI_STATUS_INVALID : TI_STATUS_SUCCESS);
  for (i = 0; i < l.n; i++)
    if (show && l.items[i].severity == TI_DIAG_ERROR) fprintf(stderr, "    check: block %d: %s\n", (int)l.items[i].block_id, l.items[i].message);
  n = l.n_errors;
  ti_diag_list_free(&l);
  return n;
}

TT_TEST(rows_agree_with_enum_names_wire_and_class) {
  int32_t t;
  ti_block_type back;
  TT_EQ_INT(TI_BLOCK_COUNT, 24);   /* 23 built-in rows + CNEG */
  for (t = 0; t < TI_BLOCK_COUNT; t++) {
    const ti_task_block_desc *d = ti_task_block_desc_of((ti_block_type)t);
    TT_CHECK(d != NULL);
    TT_EQ_STR(ti_block_type_name((ti_block_type)t), d->name);
    TT_EQ_INT(ti_block_type_from_wire(d->wire, &back), 0);
    TT_EQ_INT(back, t);
    TT_EQ_INT(ti_block_type_wire((ti_block_type)t), d->wire);
    TT_EQ_INT(ti_block_class_of((ti_block_type)t), d->cls);
    if (d->cls == TI_CLASS_COMPUTE) TT_CHECK(d->n_act >= 1 || d->n_act == TI_TASK_N_BRANCH);
  }
  TT_CHECK(ti_task_block_desc_of(TI_BLOCK_COUNT) == NULL);
  TT_EQ_INT(ti_block_type_from_wire(20, &back), -1);
  TT_EQ_STR(ti_block_type_name(TI_BLOCK_NULL), "TASK_NULL");
  TT_EQ_STR(ti_block_type_name(TI_BLOCK_CNEG), "CNEG");
  TT_EQ_INT(ti_block_class_of(TI_BLOCK_CNEG), TI_CLASS_COMPUTE);
  TT_EQ_INT(ti_block_class_of(TI_BLOCK_CLIF), TI_CLASS_COMPUTE);
  TT_EQ_INT(ti_block_class_of(TI_BLOCK_SW2D), TI_CLASS_STORAGE);
  TT_EQ_INT(ti_block_class_of(TI_BLOCK_OUTPUT), TI_CLASS_IO);
}

TT_TEST(operands_roles_and_layouts) {
  ti_task_block b;
  ti_task_operand op;
  int64_t d[4];
  uint32_t f[4];
  memset(&b, 0, sizeof b);
  /* CC: input [niy][nix][nr], weight [nf][nr][nky][nkx], bias [nf] */
  b.type = TI_BLOCK_CC;
  b.shape = ti_task_shape_make(4, 4, 8, 3, 3, 3, 0, 0);
  ti_task_shape_set(&b.shape, TI_SHAPE_HAS_NIY, 6); ti_task_shape_set(&b.shape, TI_SHAPE_HAS_NIX, 6);
  b.has |= TI_BLOCK_HAS_BIAS_TYPE; b.bias_type = TI_BIAS_VECTOR; b.n_inputs = 3;
  TT_EQ_INT(ti_task_block_operand(&b, 0, &op), 1);
  TT_EQ_INT(op.role, TI_TASK_ROLE_DATA); TT_EQ_INT(op.rank, 3);
  TT_EQ_INT(op.dims[0], 6); TT_EQ_INT(op.dims[2], 3); TT_EQ_INT(op.fields[2], TI_DIM_R);
  TT_EQ_INT(op.shape.ny, 6); TT_EQ_INT(op.shape.nr, 3); TT_EQ_INT(op.shape.nf, 0);
  TT_EQ_INT(ti_task_block_operand(&b, 1, &op), 1);
  TT_EQ_INT(op.role, TI_TASK_ROLE_WEIGHT); TT_EQ_INT(op.rank, 4);
  TT_EQ_INT(op.dims[0], 8); TT_EQ_INT(op.dims[1], 3); TT_EQ_INT(op.dims[3], 3);
  TT_EQ_INT(ti_task_block_operand(&b, 2, &op), 1);
  TT_EQ_INT(op.role, TI_TASK_ROLE_BIAS); TT_EQ_INT(op.rank, 1); TT_EQ_INT(op.dims[0], 8);
  TT_EQ_INT(ti_task_block_operand(&b, 3, &op), 0);
  TT_EQ_INT(ti_task_block_operand(&b, -1, &op), 1);   /* output [ny][nx][nf] */
  TT_EQ_INT(op.rank, 3); TT_EQ_INT(op.dims[2], 8); TT_EQ_INT(op.fields[2], TI_DIM_F);
  TT_EQ_INT(ti_task_block_macs(&b), 4 * 4 * 8 * 3 * 3 * 3);
  /* CAX alpha, CLUT table (2^LUT_DW, none without LUT_DW), CLIF state */
  b.type = TI_BLOCK_CAX; b.shape = ti_task_shape_make(2, 2, 5, 0, 0, 0, 0, 0); b.n_inputs = 2; b.has = 0;
  TT_EQ_INT(ti_task_block_operand(&b, 1, &op), 1);
  TT_EQ_INT(op.role, TI_TASK_ROLE_ALPHA); TT_EQ_INT(op.rank, 1); TT_EQ_INT(op.dims[0], 5);
  TT_EQ_INT(ti_task_block_operand(&b, 2, &op), 0);   /* bias_type absent, two clusters: no bias */
  b.type = TI_BLOCK_CLUT;
  TT_EQ_INT(ti_task_block_operand(&b, 1, &op), 0);
  {
    ti_task_attr a;
    memset(&a, 0, sizeof a);
    a.has = TI_TATTR_HAS_TYPE | TI_TATTR_HAS_INT; a.type = TI_TASK_ATTR_LUT_DW; a.int_value = 4;
    b.attrs = &a; b.n_attrs = 1;
    TT_EQ_INT(ti_task_block_operand(&b, 1, &op), 1);
    TT_EQ_INT(op.role, TI_TASK_ROLE_TABLE); TT_EQ_INT(op.dims[0], 16);
    b.attrs = NULL; b.n_attrs = 0;
  }
  b.type = TI_BLOCK_CLIF;
  TT_EQ_INT(ti_task_block_operand(&b, 1, &op), 1);
  TT_EQ_INT(op.role, TI_TASK_ROLE_STATE); TT_EQ_INT(op.rank, 3);
  b.n_inputs = 1;
  TT_EQ_INT(ti_task_block_operand(&b, 1, &op), 0);   /* the state is optional */
  /* storage layouts: one home for SIC [ny][nx][nr], SW [nf][nr][nky][nkx], SB [nf] */
  b.type = TI_BLOCK_SIC; b.shape = ti_task_shape_make(3, 2, 0, 7, 0, 0, 0, 0);
  TT_EQ_INT(ti_task_block_layout(&b, d, f), 3);
  TT_EQ_INT(d[2], 7); TT_EQ_INT(f[2], TI_DIM_R);
  TT_EQ_INT(ti_task_block_operand(&b, 0, &op), 0);   /* not a compute block */
  b.type = TI_BLOCK_SW; b.shape = ti_task_shape_make(0, 0, 4, 2, 3, 3, 0, 0);
  TT_EQ_INT(ti_task_block_dims(&b, d), 4);
  TT_EQ_INT(d[0], 4); TT_EQ_INT(d[1], 2);
  b.type = TI_BLOCK_SB; b.shape = ti_task_shape_make(0, 0, 9, 0, 0, 0, 0, 0);
  TT_EQ_INT(ti_task_block_dims(&b, d), 1); TT_EQ_INT(d[0], 9);
  TT_EQ_INT(ti_task_block_macs(&b), 0);
}

/* SI a, SI b, SI c -> CADD (n_branch 3) -> SI: 2x2x4 outputs, 3 inputs each. */
static void build_cadd(ti_task_graph *g) {
  int32_t dims[3] = { 2, 2, 4 }, v[16], i;
  ti_task_shape s = ti_task_shape_make(2, 2, 4, 0, 0, 0, 0, 0);
  for (i = 0; i < 16; i++) v[i] = i - 5;
  for (i = 0; i < 3; i++) {
    add(g, i, TI_BLOCK_SI, TI_DTYPE_I32, s);
    TT_EQ_INT(ti_task_set_data(g, B(g, i), TI_DTYPE_I32, 3, dims, v), 0);
  }
  ti_task_shape_set(&s, TI_SHAPE_HAS_N_BRANCH, 3);
  add(g, 3, TI_BLOCK_CADD, TI_DTYPE_I32, s);
  B(g, 3)->has |= TI_BLOCK_HAS_BIAS_TYPE; B(g, 3)->bias_type = TI_BIAS_CONSTANT;
  add(g, 4, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(2, 2, 4, 0, 0, 0, 0, 0));
  for (i = 0; i < 3; i++) link0(g, i, 3, i);
  link0(g, 3, 4, 0);
}

TT_TEST(cadd_macs_agree_in_statistics_and_executor) {
  ti_task_graph g;
  ti_task_stats st;
  ti_exec *x = NULL;
  ti_exec_options o;
  ti_exec_info info;
  ti_error err;
  memset(&err, 0, sizeof err);
  ti_task_graph_init(&g, NULL);
  build_cadd(&g);
  TT_EQ_INT(n_check_errors(&g, 1), 0);
  TT_EQ_INT(ti_task_block_macs(B(&g, 3)), 2 * 2 * 4 * 3);
  TT_EQ_INT(ti_task_statistics(&g, &st, 1, &err), TI_STATUS_SUCCESS);
  TT_EQ_INT(st.macs, 48);
  TT_EQ_INT(st.per_block[3].macs, 48);
  ti_task_stats_free(&st, NULL);
  ti_exec_options_init(&o);
  TT_CHECK_MSG(ti_exec_plan(&g, &o, &x, &err) == TI_STATUS_SUCCESS, "%s", err.message);
  if (x) {
    TT_EQ_INT(ti_exec_run(x, &err), TI_STATUS_SUCCESS);
    ti_exec_get_info(x, &info);
    TT_EQ_INT(info.macs, 48);
    TT_EQ_INT(ti_exec_get_profile(x)->macs, 48);
    ti_exec_free(x);
  }
  ti_task_graph_free(&g);
}

/* SI in [2][2][3] (INT_32) and SB bias [3] -> CNEG -> SI out. */
static void build_cneg(ti_task_graph *g) {
  int32_t din[3] = { 2, 2, 3 }, vin[12], db[1] = { 3 }, vb[3] = { 100, 200, 300 }, i;
  for (i = 0; i < 12; i++) vin[i] = (i - 6) * 1000;   /* not int8: the plan keeps int32 */
  add(g, 1, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(2, 2, 3, 0, 0, 0, 0, 0));
  TT_EQ_INT(ti_task_set_data(g, B(g, 1), TI_DTYPE_I32, 3, din, vin), 0);
  add(g, 2, TI_BLOCK_SB, TI_DTYPE_I32, ti_task_shape_make(0, 0, 3, 0, 0, 0, 0, 0));
  TT_EQ_INT(ti_task_set_data(g, B(g, 2), TI_DTYPE_I32, 1, db, vb), 0);
  add(g, 3, TI_BLOCK_CNEG, TI_DTYPE_I32, ti_task_shape_make(2, 2, 3, 0, 0, 0, 0, 0));
  B(g, 3)->has |= TI_BLOCK_HAS_BIAS_TYPE; B(g, 3)->bias_type = TI_BIAS_VECTOR;
  add(g, 4, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(2, 2, 3, 0, 0, 0, 0, 0));
  add(g, 5, TI_BLOCK_OUTPUT, TI_DTYPE_I32, ti_task_shape_make(2, 2, 3, 0, 0, 0, 0, 0));
  B(g, 5)->has |= TI_BLOCK_HAS_SOCKET_ID; B(g, 5)->socket_id = 0;
  link0(g, 1, 3, 0);
  link0(g, 2, 3, 1);
  link0(g, 3, 4, 0);
  link0(g, 4, 5, 0);
}

TT_TEST(test_only_block_type_through_the_table) {
  ti_task_graph g, g2;
  ti_task_stats st;
  ti_exec *x = NULL;
  ti_exec_options o;
  ti_exec_tensor out;
  ti_error err;
  ti_buffer b, b2;
  ti_context *ctx;
  ti_program *p = NULL;
  int64_t i;
  memset(&err, 0, sizeof err);
  ti_task_graph_init(&g, NULL);
  build_cneg(&g);
  /* the checker knows its dims, clusters and roles from the row */
  TT_EQ_INT(n_check_errors(&g, 1), 0);
  B(&g, 3)->n_inputs = 1;   /* bias_type VECTOR without the bias cluster */
  TT_CHECK(n_check_errors(&g, 0) > 0);
  B(&g, 3)->n_inputs = 2;
  ti_task_shape_set(&B(&g, 3)->shape, TI_SHAPE_HAS_NR, 5);   /* a dim the row does not allow */
  TT_CHECK(n_check_errors(&g, 0) > 0);
  B(&g, 3)->shape.nr = 0; B(&g, 3)->shape.has &= ~(uint32_t)TI_SHAPE_HAS_NR;
  /* statistics: one op per output element, the bias as parameters */
  TT_EQ_INT(ti_task_statistics(&g, &st, 1, &err), TI_STATUS_SUCCESS);
  TT_EQ_INT(st.per_block[2].macs, 12);
  TT_EQ_INT(st.per_block[2].params, 3);
  ti_task_stats_free(&st, NULL);
  /* the codec: wire value 900, the name in the text form */
  ti_buffer_init(&b, NULL); ti_buffer_init(&b2, NULL);
  TT_EQ_INT(ti_task_encode(&g, &b, &err), TI_STATUS_SUCCESS);
  ti_task_graph_init(&g2, NULL);
  TT_CHECK_MSG(ti_task_decode(&g2, b.data, b.len, &err) == TI_STATUS_SUCCESS, "%s", err.message);
  TT_EQ_INT(g2.blocks[2].type, TI_BLOCK_CNEG);
  TT_EQ_INT(ti_task_format_text(&g2, &b2, &err), TI_STATUS_SUCCESS);
  ti_buffer_append(&b2, "", 1);
  TT_CHECK(strstr((const char *)b2.data, "type: CNEG\n") != NULL);
  ti_buffer_free(&b); ti_buffer_free(&b2);
  ti_task_graph_free(&g2);
  /* the task dialect: an op per row */
  ctx = ti_context_create(NULL);
  TT_CHECK(ctx != NULL);
  TT_EQ_INT(ti_task_register(ctx, &err), TI_STATUS_SUCCESS);
  TT_CHECK_MSG(ti_task_import(ctx, &g, &p, &err) == TI_STATUS_SUCCESS, "%s", err.message);
  if (p) {
    ti_buffer t;
    ti_buffer_init(&t, NULL);
    TT_EQ_INT(ti_print_program(p, &t, &err), TI_STATUS_SUCCESS);
    ti_buffer_append(&t, "", 1);
    TT_CHECK(strstr((const char *)t.data, "task.cneg") != NULL);
    ti_buffer_free(&t);
    ti_program_destroy(p);
  }
  ti_context_destroy(ctx);
  /* the executor: planned from the row, run through the kernel column */
  ti_exec_options_init(&o);
  TT_CHECK_MSG(ti_exec_plan(&g, &o, &x, &err) == TI_STATUS_SUCCESS, "%s", err.message);
  if (x) {
    TT_CHECK_MSG(ti_exec_run(x, &err) == TI_STATUS_SUCCESS, "%s", err.message);
    TT_EQ_INT(ti_exec_output(x, 0, &out, &err), TI_STATUS_SUCCESS);
    TT_EQ_INT(out.count, 12);
    for (i = 0; i < 12 && i < out.count; i++) TT_EQ_INT(ti_exec_tensor_i64(&out, i), -(i - 6) * 1000 + 100 * (1 + i % 3));
    TT_EQ_INT(ti_exec_get_profile(x)->block_calls[TI_BLOCK_CNEG], 1);
    ti_exec_free(x);
  }
  ti_task_graph_free(&g);
}

int main(void) {
  printf("test_block_table\n");
  TT_RUN(rows_agree_with_enum_names_wire_and_class);
  TT_RUN(operands_roles_and_layouts);
  TT_RUN(cadd_macs_agree_in_statistics_and_executor);
  TT_RUN(test_only_block_type_through_the_table);
  return tt_finish();
}
