/* tools/taskir_onnx.h - the `taskir import`, `taskir eval` and `taskir lower` commands.

   Included by tools/taskir.c after taskir_io.h (files and formats) and
   taskir_run.h (value files, TI__CLI_MKDIR); defines
       static int ti_cli_import(int argc, char **argv);   argv[0] == "import"
       static int ti_cli_eval(int argc, char **argv);     argv[0] == "eval"
       static int ti_cli_lower(int argc, char **argv);    argv[0] == "lower"
       static ti_status ti_cli_load_runnable(...)         what `run` runs
   Both return the exit code (0 success, 1 failure, 2 bad usage) and print
   the first problem on stderr. The library header of the same name (the
   ONNX importer) is ../taskir_onnx.h. */
#ifndef TASKIR_TOOL_ONNX_H
#define TASKIR_TOOL_ONNX_H

#include "../taskir_onnx.h"
#include "../taskir_lower.h"

/* The passes run on an imported ONNX model when --passes is not given
   (comma-separated names; "" for none). An nn program read from a .tir file
   runs none unless --passes names them. */
static const char ti__cli_default_passes[] = "quantize-recognize";

static const char ti__cli_import_usage[] =
    "usage: taskir import MODEL.onnx OUT.tir|OUT.pb|OUT.txt [--nn-only] [--dim NAME=V]...\n"
    "                     [--passes NAME[,NAME...] | --no-quantize]\n"
    "\n"
    "Imports an ONNX model (opsets 6-17) into an nn program and runs the\n"
    "quantize-recognize pass (integer models exported as float become\n"
    "quant_conv2d/quant_gemm programs with i8 inputs). OUT.tir (or --nn-only)\n"
    "writes the nn program's text form; OUT.pb / OUT.txt lowers it to Task IR\n"
    "(layout passes, then ti_lower_to_task) and writes the graph. Prints one\n"
    "line (nodes, ops, weights bytes, layers quantised or why the model stays\n"
    "float; with Task IR also blocks and edges); on failure the first problem\n"
    "(e.g. unsupported: node 'Resize_12' op Resize mode=cubic, or the op the\n"
    "lowering refuses).\n"
    "  --nn-only        write the nn program (OUT must be .tir)\n"
    "  --dim NAME=V     bind a symbolic dim of the inputs (e.g. --dim N=1)\n"
    "  --passes LIST    run these nn passes instead (e.g. quantize-recognize,dce)\n"
    "  --no-quantize    run no pass: the program as imported\n";

static const char ti__cli_lower_usage[] =
    "usage: taskir lower PROGRAM.tir OUT.pb|OUT.txt|OUT.tir [--passes NAME[,NAME...]]\n"
    "\n"
    "Lowers an integer nn program to Task IR (LayoutTransmit, LayoutPresetToNPU,\n"
    "one compute block plus its operands' storage blocks per op) and writes the\n"
    "graph. Prints one line: ops, blocks, edges, groups, weights bytes; on\n"
    "failure the op lowering refuses and why.\n"
    "  --passes LIST    nn passes before lowering (taskir opt's names, and\n"
    "                   quantize-recognize); none by default\n";

static const char ti__cli_eval_usage[] =
    "usage: taskir eval PROGRAM.tir|MODEL.onnx [--input K=FILE]... [--out DIR] [--dim NAME=V]...\n"
    "\n"
    "Runs the nn reference interpreter.\n"
    "  --input K=FILE   argument K (index, or the ONNX input name): one value per\n"
    "                   line, row-major in the dims the model states (NCHW)\n"
    "  --out DIR        write result k to DIR/o_<k>.txt (same format); else print\n"
    "                   each result after a '# o_<k> DTYPE [DIMS]' line\n"
    "  --dim NAME=V     bind a symbolic dim of an ONNX model's inputs\n"
    "Floats are written with %.9g (they read back exactly).\n";

/* --dim NAME=V into bindings (names point into argv). */
static int ti__cli_dim(const char *arg, ti_onnx_dim_binding *b) {
  const char *eq = strchr(arg, '=');
  char *end;
  long long v;
  if (!eq || eq == arg) return 0;
  v = strtoll(eq + 1, &end, 10);
  if (*end || v < 0 || end == eq + 1) return 0;
  b->value = v;
  b->name = arg;   /* compared up to '=' below */
  return 1;
}

/* An ONNX model file decoded and imported; names[i] is argument i's name. */
typedef struct ti__cli_model {
  char *bytes;
  ti_onnx_model m;
  ti_program *p;
  const char *names[64];
  int32_t n_names;
  int32_t n_nodes;
} ti__cli_model;

static ti_status ti__cli_load_onnx(ti_context *ctx, const char *path, const ti_onnx_dim_binding *dims, int32_t n_dims,
                                   ti__cli_model *cm, ti_error *err) {
  size_t len;
  ti_onnx_options opt;
  ti_onnx_dim_binding bound[64];
  char names[64][128];
  int32_t i, j;
  ti_status s;
  memset(cm, 0, sizeof *cm);
  memset(&opt, 0, sizeof opt);
  if (n_dims > 64) return ti_error_set(err, TI_STATUS_LIMIT, "at most 64 --dim bindings");
  for (i = 0; i < n_dims; i++) {   /* NAME=V: cut the name at '=' */
    size_t l = (size_t)(strchr(dims[i].name, '=') - dims[i].name);
    if (l >= sizeof names[i]) l = sizeof names[i] - 1;
    memcpy(names[i], dims[i].name, l);
    names[i][l] = 0;
    bound[i].name = names[i];
    bound[i].value = dims[i].value;
  }
  opt.dims = bound;
  opt.n_dims = n_dims;
  opt.reference_weights = 1;   /* the bytes stay until the program is gone */
  if (!(cm->bytes = ti_cli_read_all(path, &len, err))) return err->status;
  s = ti_nn_register(ctx, err);
  if (s == TI_STATUS_SUCCESS) s = ti_onnx_decode(&cm->m, cm->bytes, len, NULL, err);
  if (s == TI_STATUS_SUCCESS) s = ti_onnx_import_model(ctx, &cm->m, &opt, &cm->p, err);
  if (s != TI_STATUS_SUCCESS) return s;
  cm->n_nodes = cm->m.graph.n_nodes;
  for (i = 0; i < cm->m.graph.n_inputs && cm->n_names < 64; i++) {
    int init = 0;
    for (j = 0; j < cm->m.graph.n_inits; j++) if (strcmp(cm->m.graph.inits[j].name, cm->m.graph.inputs[i].name) == 0) init = 1;
    if (!init) cm->names[cm->n_names++] = cm->m.graph.inputs[i].name;
  }
  return TI_STATUS_SUCCESS;
}

static void ti__cli_model_free(ti__cli_model *cm) {
  ti_program_destroy(cm->p);
  ti_onnx_model_free(&cm->m);
  free(cm->bytes);
  memset(cm, 0, sizeof *cm);
}

static void ti__cli_type_str(ti_dtype dt, int32_t rank, const int64_t *dims, char *buf, size_t cap) {
  size_t n = (size_t)snprintf(buf, cap, "%s [", ti_dtype_name(dt) ? ti_dtype_name(dt) : "?");
  int32_t i;
  for (i = 0; i < rank && n < cap; i++) n += (size_t)snprintf(buf + n, cap - n, "%s%lld", i ? "," : "", (long long)dims[i]);
  if (n < cap) snprintf(buf + n, cap - n, "]");
}

/* Runs the named nn passes (NULL: the default list) on p; taskir opt's
   names and quantize-recognize, whose report goes to *qr (n_layers < 0:
   the pass did not run). */
static ti_status ti__cli_nn_passes(ti_program *p, const char *names, ti_quant_report *qr, ti_error *err) {
  ti_pass_manager pm;
  ti_status s;
  int32_t i;
  if (qr) { memset(qr, 0, sizeof *qr); qr->n_layers = -1; }
  if (!names) names = ti__cli_default_passes;
  if (!*names) return TI_STATUS_SUCCESS;
  ti_pass_manager_init(&pm);
  s = ti_onnx_pass_manager_add_named(&pm, names, err);
  for (i = 0; qr && i < pm.n; i++)
    if (strcmp(pm.passes[i].name, "quantize-recognize") == 0) { pm.passes[i].user = qr; qr->n_layers = 0; }
  if (s == TI_STATUS_SUCCESS) s = ti_pass_manager_run(&pm, p, err);
  return s;
}

/* What the summary line says of quantize-recognize. */
static void ti__cli_quant_summary(const ti_quant_report *qr, char *buf, size_t cap) {
  buf[0] = 0;
  if (qr->n_layers > 0)
    snprintf(buf, cap, "; %d layers quantised (i8 inputs: integers in -128..127)", (int)qr->n_layers);
  else if (qr->n_layers == 0)
    snprintf(buf, cap, "; float (not quantised: %s)", qr->reason);
}

/* Lowers p; when that fails on a program quantize-recognize left float, the
   error says why the pass left it so. */
static ti_status ti__cli_lower(ti_program *p, const ti_quant_report *qr, ti_task_graph *g, ti_error *err) {
  ti_status s = ti_lower_to_task(p, NULL, g, err);
  if (s != TI_STATUS_SUCCESS && qr && qr->n_layers == 0 && qr->reason[0]) {
    char m[sizeof err->message + sizeof qr->reason + 64];
    snprintf(m, sizeof m, "%s; quantize-recognize left the model float: %s", err->message, qr->reason);
    memcpy(err->message, m, sizeof err->message - 1);
    err->message[sizeof err->message - 1] = 0;
  }
  return s;
}

/* Ops of an nn program (not counting returns and weight reads). */
static int64_t ti__cli_n_ops(const ti_program *p) {
  int64_t n = 0;
  const ti_op *op;
  for (op = p->first; op; op = op->next)
    if (!ti_op_is(op, "builtin.return") && !ti_op_is(op, "builtin.get_parameter")) n++;
  return n;
}

/* The one-line summary of a lowering (n_nodes < 0: not from a model). */
static void ti__cli_summary(const ti_task_graph *g, const char *what, int32_t n_nodes, int64_t n_ops, const char *out,
                            const char *tail) {
  int64_t wbytes = 0;
  int32_t i;
  for (i = 0; i < g->n_blocks; i++) {
    const ti_task_values *v = ti_task_tensor_values(&g->blocks[i].data);
    if (v) wbytes += v->count * (int64_t)ti_dtype_size(g->blocks[i].data.precision);
  }
  if (n_nodes >= 0) printf("%s: %d nodes -> ", what, (int)n_nodes);
  else printf("%s: ", what);
  printf("%lld ops -> %d blocks, %d edges, %d groups, %lld weights bytes -> %s%s\n", (long long)n_ops, (int)g->n_blocks,
         (int)g->n_edges, (int)g->n_groups, (long long)wbytes, out, tail ? tail : "");
}

/* What `taskir run` runs: a Task IR graph, or an ONNX model / an nn program
   (.tir of nn.* ops) imported, passed (the default passes) and lowered. */
static ti_status ti_cli_load_runnable(ti_context *ctx, const char *path, ti_cli_fmt forced, const char *const *dim_args,
                                      int32_t n_dim_args, ti_task_graph *g, ti_error *err) {
  ti_cli_fmt fmt;
  ti_program *p = NULL;
  const char *d = NULL;
  ti_status s;
  int32_t i;
  if (ti__cli_ends_with(path, ".onnx") && forced == TI_CLI_FMT_NONE) {
    ti__cli_model cm;
    ti_quant_report qr;
    ti_onnx_dim_binding dims[64];
    for (i = 0; i < n_dim_args && i < 64; i++)
      if (!ti__cli_dim(dim_args[i], &dims[i]))
        return ti_error_set(err, TI_STATUS_BAD_PARAM, "--dim wants NAME=V with V >= 0, got '%s'", dim_args[i]);
    memset(&cm, 0, sizeof cm);
    s = ti__cli_load_onnx(ctx, path, dims, i, &cm, err);
    if (s == TI_STATUS_SUCCESS) s = ti__cli_nn_passes(cm.p, NULL, &qr, err);
    if (s == TI_STATUS_SUCCESS) s = ti__cli_lower(cm.p, &qr, g, err);
    ti__cli_model_free(&cm);
    return s;
  }
  if (n_dim_args > 0)
    return ti_error_set(err, TI_STATUS_BAD_PARAM, "--dim binds the symbolic dims of an ONNX model (.onnx), and this is "
                        "not one");
  if (ti_cli_format(path, forced, &fmt, err) == TI_STATUS_SUCCESS && fmt == TI_CLI_FMT_TIR && strcmp(path, "-") != 0) {
    s = ti_cli_load_program(ctx, path, forced, &p, &d, err);
    if (s == TI_STATUS_SUCCESS && d && !strcmp(d, "nn")) {
      s = ti_lower_to_task(p, NULL, g, err);
      ti_program_destroy(p);
      return s;
    }
    ti_program_destroy(p);
  }
  ti_error_clear(err);
  return ti_cli_load_graph(ctx, path, forced, g, NULL, err);
}

static int ti_cli_lower(int argc, char **argv) {
  const char *in = NULL, *out = NULL, *passes = NULL;
  ti_quant_report qr;
  ti_program *p = NULL;
  ti_context *ctx;
  ti_task_graph g;
  ti_error err;
  ti_status s;
  int32_t i;
  if (wants_help(argc, argv)) return usage(1, ti__cli_lower_usage);
  for (i = 1; i < argc; i++) {
    int r = ti_cli_opt_value(argc, argv, &i, "lower", "--passes", &passes);
    if (r < 0) return usage(0, ti__cli_lower_usage);
    if (r > 0) continue;
    if (argv[i][0] == '-' && argv[i][1]) { fprintf(stderr, "taskir lower: unknown option '%s'\n", argv[i]); return usage(0, ti__cli_lower_usage); }
    else if (!in) in = argv[i];
    else if (!out) out = argv[i];
    else return usage(0, ti__cli_lower_usage);
  }
  if (!in || !out) return usage(0, ti__cli_lower_usage);
  ti_error_clear(&err);
  ti_task_graph_init(&g, NULL);
  if (!(ctx = ti_context_create(NULL))) return ti_cli_fail("lower", NULL, NULL);
  s = ti_cli_load_nn(ctx, in, TI_CLI_FMT_NONE, &p, &err);
  if (s == TI_STATUS_SUCCESS) s = ti__cli_nn_passes(p, passes ? passes : "", &qr, &err);
  if (s == TI_STATUS_SUCCESS) {
    int64_t n_ops = ti__cli_n_ops(p);
    s = ti__cli_lower(p, &qr, &g, &err);
    if (s == TI_STATUS_SUCCESS) s = ti_cli_save_graph(ctx, out, TI_CLI_FMT_NONE, &g, &err);
    if (s == TI_STATUS_SUCCESS) ti__cli_summary(&g, in, -1, n_ops, out, NULL);
  }
  ti_task_graph_free(&g);
  ti_program_destroy(p);
  ti_context_destroy(ctx);
  return s == TI_STATUS_SUCCESS ? 0 : ti_cli_fail("lower", in, &err);
}

static int ti_cli_import(int argc, char **argv) {
  const char *in = NULL, *out = NULL, *passes = NULL;
  int nn_only = 0;
  ti_task_graph g;
  ti_onnx_dim_binding dims[64];
  int32_t n_dims = 0, i, n_ops = 0, kinds = 0;
  ti__cli_model cm;
  ti_context *ctx;
  ti_error err;
  ti_buffer b;
  ti_status s;
  ti_op *op;
  int64_t wbytes = 0;
  const char *seen[64];
  ti_quant_report qr;
  char qsum[400];
  int r;
  if (wants_help(argc, argv)) return usage(1, ti__cli_import_usage);
  for (i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--nn-only") == 0) { nn_only = 1; continue; }
    if (strcmp(argv[i], "--no-quantize") == 0) { passes = ""; continue; }
    if ((r = ti_cli_opt_value(argc, argv, &i, "import", "--passes", &passes)) != 0) {
      if (r < 0) return usage(0, ti__cli_import_usage);
      continue;
    }
    if (strcmp(argv[i], "--dim") == 0 && i + 1 < argc) {
      if (n_dims == 64 || !ti__cli_dim(argv[++i], &dims[n_dims])) {
        fprintf(stderr, "taskir import: --dim wants NAME=V with V >= 0, got '%s'\n", argv[i]);
        return 2;
      }
      n_dims++;
    } else if (argv[i][0] == '-' && argv[i][1]) { fprintf(stderr, "taskir import: unknown option '%s'\n", argv[i]); return usage(0, ti__cli_import_usage); }
    else if (!in) in = argv[i];
    else if (!out) out = argv[i];
    else return usage(0, ti__cli_import_usage);
  }
  if (!in || !out) return usage(0, ti__cli_import_usage);
  if (nn_only && !ti__cli_ends_with(out, ".tir")) {
    fprintf(stderr, "taskir import: '%s': --nn-only writes the nn program: name it .tir\n", out);
    return 2;
  }
  ti_error_clear(&err);
  if (!(ctx = ti_context_create(NULL))) return ti_cli_fail("import", NULL, NULL);
  ti_buffer_init(&b, NULL);
  memset(&cm, 0, sizeof cm);
  s = ti__cli_load_onnx(ctx, in, dims, n_dims, &cm, &err);
  if (s == TI_STATUS_SUCCESS) s = ti__cli_nn_passes(cm.p, passes, &qr, &err);
  if (s == TI_STATUS_SUCCESS) ti__cli_quant_summary(&qr, qsum, sizeof qsum);
  if (s == TI_STATUS_SUCCESS && !ti__cli_ends_with(out, ".tir")) {   /* Task IR: lower and write the graph */
    int64_t n_ops0 = ti__cli_n_ops(cm.p);
    s = ti__cli_lower(cm.p, &qr, &g, &err);
    if (s == TI_STATUS_SUCCESS) s = ti_cli_save_graph(ctx, out, TI_CLI_FMT_NONE, &g, &err);
    if (s == TI_STATUS_SUCCESS) ti__cli_summary(&g, in, cm.n_nodes, n_ops0, out, qsum);
    ti_task_graph_free(&g);
    ti_buffer_free(&b);
    ti__cli_model_free(&cm);
    ti_context_destroy(ctx);
    return s == TI_STATUS_SUCCESS ? 0 : ti_cli_fail("import", in, &err);
  }
  if (s == TI_STATUS_SUCCESS) s = ti_print_program(cm.p, &b, &err);
  if (s == TI_STATUS_SUCCESS) s = ti_cli_write_bytes(out, b.data, b.len, &err);
  if (s == TI_STATUS_SUCCESS) {
    for (op = cm.p->first; op; op = op->next) {
      int32_t k;
      if (ti_op_is(op, "builtin.return") || ti_op_is(op, "builtin.get_parameter")) continue;
      n_ops++;
      for (k = 0; k < kinds && strcmp(seen[k], op->info->name) != 0; k++) {}
      if (k == kinds && kinds < 64) seen[kinds++] = op->info->name;
    }
    for (i = 0; i < cm.p->n_vars; i++) wbytes += cm.p->vars[i].bytes;
    printf("%s: %d nodes -> %d ops (%d kinds), %d arguments, %d weights (%lld bytes) -> %s%s\n", in, (int)cm.n_nodes,
           (int)n_ops, (int)kinds, (int)cm.p->n_args, (int)cm.p->n_vars, (long long)wbytes, out, qsum);
  }
  ti_buffer_free(&b);
  ti__cli_model_free(&cm);
  ti_context_destroy(ctx);
  return s == TI_STATUS_SUCCESS ? 0 : ti_cli_fail("import", in, &err);
}

static int ti__cli_print_result(FILE *f, const ti_tensor_value *t) {
  int64_t k;
  int fl = t->dtype == TI_DTYPE_F32 || t->dtype == TI_DTYPE_F64 || t->dtype == TI_DTYPE_F16;
  for (k = 0; k < t->numel; k++) {
    double v = ti_tensor_get(t, k);
    if (fl) fprintf(f, "%.9g\n", v);
    else fprintf(f, "%lld\n", (long long)v);
  }
  return !ferror(f);
}

static int ti_cli_eval(int argc, char **argv) {
  const char *path = NULL, *out_dir = NULL, *files[64];
  ti_onnx_dim_binding dims[64];
  int32_t n_dims = 0, i, j, nout = 0;
  ti__cli_model cm;
  ti_program *p = NULL;
  ti_context *ctx;
  ti_error err;
  ti_status s;
  ti_tensor_value *ins[64], *outs[64];
  int rc = 1;
  memset(&cm, 0, sizeof cm);
  for (i = 0; i < 64; i++) { files[i] = NULL; ins[i] = NULL; outs[i] = NULL; }
  if (wants_help(argc, argv)) return usage(1, ti__cli_eval_usage);
  for (i = 1; i < argc; i++) {
    if ((strcmp(argv[i], "--input") == 0 || strcmp(argv[i], "--dim") == 0 || strcmp(argv[i], "--out") == 0) && i + 1 >= argc) {
      fprintf(stderr, "taskir eval: %s needs a value\n", argv[i]);
      return 2;
    }
    if (strcmp(argv[i], "--out") == 0) out_dir = argv[++i];
    else if (strcmp(argv[i], "--input") == 0) i++;   /* resolved once the program is known */
    else if (strcmp(argv[i], "--dim") == 0) {
      if (n_dims == 64 || !ti__cli_dim(argv[++i], &dims[n_dims])) {
        fprintf(stderr, "taskir eval: --dim wants NAME=V with V >= 0, got '%s'\n", argv[i]);
        return 2;
      }
      n_dims++;
    } else if (argv[i][0] == '-' && argv[i][1]) { fprintf(stderr, "taskir eval: unknown option '%s'\n", argv[i]); return usage(0, ti__cli_eval_usage); }
    else if (!path) path = argv[i];
    else return usage(0, ti__cli_eval_usage);
  }
  if (!path) return usage(0, ti__cli_eval_usage);
  ti_error_clear(&err);
  if (!(ctx = ti_context_create(NULL))) return ti_cli_fail("eval", NULL, NULL);
  if (ti__cli_ends_with(path, ".onnx")) {
    s = ti__cli_load_onnx(ctx, path, dims, n_dims, &cm, &err);
    p = cm.p;
  } else s = ti_cli_load_nn(ctx, path, TI_CLI_FMT_NONE, &p, &err);
  if (s != TI_STATUS_SUCCESS) { ti_cli_fail("eval", path, &err); goto done; }
  if (p->n_args > 64) { fprintf(stderr, "taskir eval: %d arguments (at most 64)\n", (int)p->n_args); goto done; }
  for (i = 1; i < argc; i++) {   /* --input K=FILE: K an index or an ONNX input name */
    const char *arg, *eq;
    char *end;
    long k;
    if (strcmp(argv[i], "--input") != 0) { if (!strcmp(argv[i], "--out") || !strcmp(argv[i], "--dim")) i++; continue; }
    arg = argv[++i];
    eq = strchr(arg, '=');
    if (!eq || eq == arg || !eq[1]) { fprintf(stderr, "taskir eval: --input wants K=FILE, got '%s'\n", arg); rc = 2; goto done; }
    k = strtol(arg, &end, 10);
    if (end != eq) {
      k = -1;
      for (j = 0; j < cm.n_names; j++)
        if (strlen(cm.names[j]) == (size_t)(eq - arg) && strncmp(cm.names[j], arg, (size_t)(eq - arg)) == 0) k = j;
    }
    if (k < 0 || k >= p->n_args) {
      fprintf(stderr, "taskir eval: --input %s: no such argument (the program has %d", arg, (int)p->n_args);
      for (j = 0; j < cm.n_names; j++) fprintf(stderr, "%s%s", j ? ", " : ": ", cm.names[j]);
      fprintf(stderr, ")\n");
      rc = 2;
      goto done;
    }
    files[k] = eq + 1;
  }
  for (i = 0; i < p->n_args; i++) {
    const ti_type *t = p->args[i]->type;
    int64_t n = ti_type_numel(t), got = 0;
    char ts[160];
    int32_t *iv = NULL;
    float *fv = NULL;
    int fl = t->dtype == TI_DTYPE_F32 || t->dtype == TI_DTYPE_F64;
    int ok;
    ti__cli_type_str(t->dtype, t->rank, t->dims, ts, sizeof ts);
    if (!files[i]) {
      fprintf(stderr, "taskir eval: argument %d%s%s%s (%s, %lld values) needs --input %d=FILE\n", (int)i,
              i < cm.n_names ? " '" : "", i < cm.n_names ? cm.names[i] : "", i < cm.n_names ? "'" : "", ts, (long long)n, (int)i);
      goto done;
    }
    {
      ti__cli_values vv;
      memset(&vv, 0, sizeof vv);
      vv.is_float = fl;
      vv.prec = t->dtype;
      vv.count = n;
      vv.max_frames = 1;
      vv.cmd = "eval";
      ok = ti__cli_read_values(files[i], &vv);
      iv = vv.iv; fv = vv.fv; got = vv.n;
      if (!ok) { free(iv); free(fv); goto done; }
    }
    if (got != n) {
      fprintf(stderr, "taskir eval: '%s' holds %lld values, argument %d (%s) needs %lld\n", files[i], (long long)got, (int)i, ts, (long long)n);
      free(iv); free(fv);
      goto done;
    }
    ins[i] = ti_tensor_create(NULL, t->dtype, t->rank, t->dims, t->layout, NULL, &err);
    if (ins[i]) for (j = 0; j < n; j++) ti_tensor_set(ins[i], j, fl ? (double)fv[j] : (double)iv[j]);
    free(iv); free(fv);
    if (!ins[i]) { ti_cli_fail("eval", files[i], &err); goto done; }
  }
  nout = 64;
  if (ti_interpret(p, (const ti_tensor_value *const *)ins, p->n_args, outs, &nout, &err) != TI_STATUS_SUCCESS) {
    nout = 0;
    ti_cli_fail("eval", path, &err);
    goto done;
  }
  if (out_dir && TI__CLI_MKDIR(out_dir) != 0 && errno != EEXIST) {
    fprintf(stderr, "taskir eval: cannot create directory '%s': %s\n", out_dir, strerror(errno));
    goto done;
  }
  for (i = 0; i < nout; i++) {
    if (out_dir) {
      char fp[4096];
      FILE *f;
      int ok;
      snprintf(fp, sizeof fp, "%s/o_%d.txt", out_dir, (int)i);
      if (!(f = fopen(fp, "wb"))) { fprintf(stderr, "taskir eval: cannot write '%s': %s\n", fp, strerror(errno)); goto done; }
      ok = ti__cli_print_result(f, outs[i]);
      if (fclose(f) != 0 || !ok) { fprintf(stderr, "taskir eval: error writing '%s'\n", fp); goto done; }
    } else {
      char ts[160];
      ti__cli_type_str(outs[i]->dtype, outs[i]->rank, outs[i]->dims, ts, sizeof ts);
      printf("# o_%d %s\n", (int)i, ts);
      ti__cli_print_result(stdout, outs[i]);
    }
  }
  rc = 0;
done:
  for (i = 0; i < 64; i++) { ti_tensor_free(ins[i]); ti_tensor_free(outs[i]); }
  if (ti__cli_ends_with(path, ".onnx")) ti__cli_model_free(&cm);
  else ti_program_destroy(p);
  ti_context_destroy(ctx);
  return rc;
}

#endif /* TASKIR_TOOL_ONNX_H */
