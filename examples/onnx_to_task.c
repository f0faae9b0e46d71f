/* onnx_to_task.c - from a model to a running Task IR graph, through the API.

   An integer nn program (what `taskir import` makes of a quantised ONNX
   model; pass a .onnx path to import one instead) is lowered to Task IR,
   checked, run by the executor and compared with the nn interpreter.

   Build: cc -std=c99 -I. -o onnx_to_task examples/onnx_to_task.c -lm
   Run:   ./onnx_to_task [MODEL.onnx] */
#define TASKIR_IMPLEMENTATION
#include "taskir_onnx.h"
#include "taskir_lower.h"
#include "taskir_exec.h"
#include <stdio.h>
#include <stdlib.h>

/* x:i8[1,1,6,6] -> quant_conv2d 3x3 (shift 2, ReLU) -> max_pool 2 -> flatten
   -> quant_gemm (3 outputs, shift 3). */
static ti_program *build(ti_context *c, ti_error *e) {
  static const int8_t w[18] = {1, 0, -1, 2, 0, -2, 1, 0, -1, 0, 1, 0, 1, -4, 1, 0, 1, 0};
  static const int8_t g[24] = {1, -1, 2, 0, 3, 1, -2, 1, 0, 2, -1, 1, 1, 0, -3, 2, 1, 1, -1, 0, 2, -2, 1, 1};
  static const int32_t gb[3] = {10, -10, 5};
  int64_t xd[4] = {1, 1, 6, 6}, wd[4] = {2, 1, 3, 3}, gd[2] = {3, 8}, bd[1] = {3};
  ti_program *p = ti_program_create(c, "net", TI_PROGRAM_SSA);
  const ti_type *wt = ti_type_get(c, TI_TYPE_VTENSOR, TI_DTYPE_I8, 4, wd, TI_LAYOUT_ANY);
  const ti_type *gt = ti_type_get(c, TI_TYPE_VTENSOR, TI_DTYPE_I8, 2, gd, TI_LAYOUT_ANY);
  const ti_type *bt = ti_type_get(c, TI_TYPE_VTENSOR, TI_DTYPE_I32, 1, bd, TI_LAYOUT_ANY);
  ti_value *v[3];
  ti_named_attr a[3];
  int64_t k2[2] = {2, 2};
  ti_builder b;
  ti_builder_init(&b, p, e);
  v[0] = ti_program_add_arg(p, ti_type_get(c, TI_TYPE_VTENSOR, TI_DTYPE_I8, 4, xd, TI_LAYOUT_ANY));
  if (ti_program_add_var(p, "w", wt, w, 0, e) != TI_STATUS_SUCCESS ||
      ti_program_add_var(p, "g", gt, g, 0, e) != TI_STATUS_SUCCESS ||
      ti_program_add_var(p, "gb", bt, gb, 0, e) != TI_STATUS_SUCCESS) {
    ti_program_destroy(p);
    return NULL;
  }
  a[0] = ti_named(c, "name", ti_attr_string(c, "w", -1));
  v[1] = ti_build1(&b, "builtin.get_parameter", 0, NULL, wt, ti_attr_dict(c, a, 1));
  a[0] = ti_named(c, "shift", ti_attr_int(c, 2));
  a[1] = ti_named(c, "clip_min", ti_attr_int(c, 0));
  v[0] = ti_build1(&b, "nn.quant_conv2d", 2, v, NULL, ti_attr_dict(c, a, 2));
  a[0] = ti_named(c, "kernel_shape", ti_attr_int_array(c, k2, 2));
  a[1] = ti_named(c, "strides", ti_attr_int_array(c, k2, 2));
  v[0] = ti_build1(&b, "nn.max_pool", 1, v, NULL, ti_attr_dict(c, a, 2));
  v[0] = ti_build1(&b, "nn.flatten", 1, v, NULL, NULL);
  a[0] = ti_named(c, "name", ti_attr_string(c, "g", -1));
  v[1] = ti_build1(&b, "builtin.get_parameter", 0, NULL, gt, ti_attr_dict(c, a, 1));
  a[0] = ti_named(c, "name", ti_attr_string(c, "gb", -1));
  v[2] = ti_build1(&b, "builtin.get_parameter", 0, NULL, bt, ti_attr_dict(c, a, 1));
  a[0] = ti_named(c, "trans_b", ti_attr_int(c, 1));
  a[1] = ti_named(c, "shift", ti_attr_int(c, 3));
  a[2] = ti_named(c, "clip_min", ti_attr_int(c, -128));
  v[0] = ti_build1(&b, "nn.quant_gemm", 3, v, NULL, ti_attr_dict(c, a, 3));
  ti_build(&b, "builtin.return", 1, v, 0, NULL, NULL);
  if (b.status != TI_STATUS_SUCCESS) { ti_program_destroy(p); return NULL; }
  return p;
}

int main(int argc, char **argv) {
  ti_context *c = ti_context_create(NULL);
  ti_program *p = NULL;
  ti_onnx_model m;
  char *bytes = NULL;
  ti_task_graph g;
  ti_exec *x = NULL;
  ti_error e;
  ti_tensor_value *in[16] = {0}, *out[16] = {0};
  int32_t n_out = 16, i, k, same = 1;
  int64_t j;
  ti_error_clear(&e);
  memset(&m, 0, sizeof m);
  if (ti_nn_register(c, &e) != TI_STATUS_SUCCESS) { fprintf(stderr, "%s\n", e.message); return 1; }
  if (argc > 1) {   /* import: decode the ModelProto, then ONNX -> nn */
    FILE *f = fopen(argv[1], "rb");
    long n = 0;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (bytes = (char *)malloc((size_t)n)) != NULL && fread(bytes, 1, (size_t)n, f) == (size_t)n &&
        ti_onnx_decode(&m, bytes, (size_t)n, NULL, &e) == TI_STATUS_SUCCESS &&
        ti_onnx_import_model(c, &m, NULL, &p, &e) != TI_STATUS_SUCCESS)
      p = NULL;   /* e says why */
    if (f) fclose(f);
  } else {
    p = build(c, &e);
  }
  if (!p) { fprintf(stderr, "no program: %s\n", e.message); return 1; }
  /* the interpreter's outputs on some inputs (before lowering: it rewrites p's layouts) */
  for (i = 0; i < p->n_args && i < 16; i++) {
    const ti_type *t = p->args[i]->type;
    in[i] = ti_tensor_create(NULL, t->dtype, t->rank, t->dims, t->layout, NULL, &e);
    for (j = 0; in[i] && j < in[i]->numel; j++) ti_tensor_set(in[i], j, (double)((j * 37) % 256 - 128));
  }
  if (ti_interpret(p, (const ti_tensor_value *const *)in, p->n_args, out, &n_out, &e) != TI_STATUS_SUCCESS ||
      ti_lower_to_task(p, NULL, &g, &e) != TI_STATUS_SUCCESS ||   /* layout passes, then blocks */
      ti_task_check(&g, NULL, &e) != TI_STATUS_SUCCESS || ti_exec_plan(&g, NULL, &x, &e) != TI_STATUS_SUCCESS) {
    fprintf(stderr, "%s\n", e.message);
    return 1;
  }
  printf("%d blocks, %d edges, %d groups\n", (int)g.n_blocks, (int)g.n_edges, (int)g.n_groups);
  for (i = 0; i < p->n_args && i < 16; i++) {   /* INPUT socket i = argument i */
    int32_t *vals = (int32_t *)malloc((size_t)in[i]->numel * sizeof *vals + 1);
    for (j = 0; j < in[i]->numel; j++) vals[j] = (int32_t)ti_tensor_get(in[i], j);
    if (ti_exec_set_input(x, i, vals, in[i]->numel, &e) != TI_STATUS_SUCCESS) { fprintf(stderr, "%s\n", e.message); return 1; }
    free(vals);
  }
  if (ti_exec_run(x, &e) != TI_STATUS_SUCCESS) { fprintf(stderr, "%s\n", e.message); return 1; }
  for (k = 0; k < n_out; k++) {   /* OUTPUT socket k = result k */
    ti_exec_tensor o;
    if (ti_exec_output(x, k, &o, &e) != TI_STATUS_SUCCESS) { fprintf(stderr, "%s\n", e.message); return 1; }
    printf("result %d:", (int)k);
    for (j = 0; j < o.count; j++) {
      printf(" %lld", (long long)ti_exec_tensor_i64(&o, j));
      same &= ti_exec_tensor_i64(&o, j) == (int64_t)ti_tensor_get(out[k], j);
    }
    printf("\n");
  }
  printf("executor %s interpreter\n", same ? "==" : "!=");
  for (i = 0; i < 16; i++) { ti_tensor_free(in[i]); ti_tensor_free(out[i]); }
  ti_exec_free(x);
  ti_task_graph_free(&g);
  ti_program_destroy(p);
  ti_onnx_model_free(&m);
  free(bytes);
  ti_context_destroy(c);
  return same ? 0 : 1;
}
