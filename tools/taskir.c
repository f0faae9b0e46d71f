/* taskir - command-line tool: convert, check, stat, dot, print, layout, run, demo.

   Build: cc -std=c99 -O2 -I. -o build/taskir tools/taskir.c -lm   (or `make`) */
#define TASKIR_IMPLEMENTATION
#include "taskir.h"
#include "taskir_proto.h"
#include "taskir_layout.h"
#include "taskir_exec.h"
#include "taskir_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *usage_text =
  "usage: taskir <command> [options]\n"
  "\n"
  "commands:\n"
  "  demo                       build, check, save, reload and run a small ANN+SNN network\n"
  "  run FILE [options]         execute a Task IR graph (see taskir run --help)\n"
  "  convert IN OUT             convert by extension: .pb binary protobuf, .txt protobuf\n"
  "                             text format, .tir the core IR text form\n"
  "  check FILE                 run the checker, list every problem, exit 1 on any error\n"
  "  stat FILE                  per-block table (id, type, precision, shape, params, MACs)\n"
  "                             and totals\n"
  "  dot FILE                   Graphviz DOT of the graph on stdout\n"
  "  print FILE                 the core IR text form on stdout\n"
  "  opt FILE.tir --passes LIST  run generic passes (dce, cse, constant-fold,\n"
  "                             maximize-value-semantics, inplace-to-outofplace)\n"
  "  layout FILE.tir [--transmit] [--npu]\n"
  "                             run the layout passes on an nn program and print it\n"
  "\n"
  "FILE is .pb, .txt or .tir. Every command takes --help.\n";

static int fail(const char *what, const ti_error *err) {
  fprintf(stderr, "taskir: %s: %s\n", what, err && err->message[0] ? err->message : "failed");
  return 1;
}

static int has_ext(const char *path, const char *ext) {
  size_t n = strlen(path), e = strlen(ext);
  return n >= e && strcmp(path + n - e, ext) == 0;
}

/* --help: the text on stdout, exit 0; a wrong call: on stderr, exit 2. */
static int usage(int asked, const char *text) {
  fputs(text, asked ? stdout : stderr);
  return asked ? 0 : 2;
}

static int wants_help(int argc, char **argv) {
  int i;
  for (i = 1; i < argc; i++)
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) return 1;
  return 0;
}

/* Whole file into a malloc'd NUL-terminated buffer. */
static char *read_all(const char *path, size_t *len, ti_error *err) {
  FILE *f = fopen(path, "rb");
  char *buf = NULL;
  size_t cap = 0, n = 0;
  if (!f) { ti_error_set(err, TI_STATUS_IO_ERROR, "cannot open '%s'", path); return NULL; }
  for (;;) {
    size_t got;
    if (n + 65536 + 1 > cap) {
      char *nb;
      cap = cap ? cap * 2 : 1 << 20;
      nb = (char *)realloc(buf, cap);
      if (!nb) { free(buf); fclose(f); ti_error_set(err, TI_STATUS_NO_MEMORY, "out of memory reading '%s'", path); return NULL; }
      buf = nb;
    }
    got = fread(buf + n, 1, cap - n - 1, f);
    n += got;
    if (got == 0) break;
  }
  if (ferror(f)) { free(buf); fclose(f); ti_error_set(err, TI_STATUS_IO_ERROR, "cannot read '%s'", path); return NULL; }
  fclose(f);
  buf[n] = 0;
  *len = n;
  return buf;
}

/* A Task IR file of any format into a message (.tir goes through the core
   text form and the task dialect). */
static ti_status load_graph(ti_context *ctx, const char *path, ti_task_graph *g, ti_error *err) {
  if (has_ext(path, ".tir")) {
    size_t len;
    char *text = read_all(path, &len, err);
    ti_program *p = NULL;
    ti_status s;
    if (!text) return err->status;
    s = ti_task_register(ctx, err);
    if (s == TI_STATUS_SUCCESS) s = ti_parse_program(ctx, text, len, &p, err);
    free(text);
    if (s == TI_STATUS_SUCCESS) s = ti_verify(p, err);
    if (s == TI_STATUS_SUCCESS) s = ti_task_export(p, g, err);
    ti_program_destroy(p);
    return s;
  }
  if (!has_ext(path, ".pb") && !has_ext(path, ".txt"))
    return ti_error_set(err, TI_STATUS_BAD_PARAM, "'%s': unknown extension (use .pb, .txt or .tir)", path);
  return ti_task_read_file(path, g, err);
}

/* An nn program from a .tir file, parsed and verified (*p is NULL on failure). */
static ti_status load_nn_program(ti_context *ctx, const char *path, ti_program **p, ti_error *err) {
  size_t len;
  char *text = read_all(path, &len, err);
  ti_status s;
  *p = NULL;
  if (!text) return err->status;
  s = ti_nn_register(ctx, err);
  if (s == TI_STATUS_SUCCESS) s = ti_parse_program(ctx, text, len, p, err);
  free(text);
  if (s == TI_STATUS_SUCCESS) s = ti_verify(*p, err);
  return s;
}

static ti_status write_text_file(const char *path, const ti_buffer *b, ti_error *err) {
  FILE *f = fopen(path, "wb");
  if (!f) return ti_error_set(err, TI_STATUS_IO_ERROR, "cannot create '%s'", path);
  if (b->len && fwrite(b->data, 1, b->len, f) != b->len) {
    fclose(f);
    return ti_error_set(err, TI_STATUS_IO_ERROR, "cannot write '%s'", path);
  }
  if (fclose(f) != 0) return ti_error_set(err, TI_STATUS_IO_ERROR, "cannot write '%s'", path);
  return TI_STATUS_SUCCESS;
}

static ti_status graph_to_tir(ti_context *ctx, const ti_task_graph *g, ti_buffer *out, ti_error *err) {
  ti_program *p = NULL;
  ti_status s = ti_task_import(ctx, g, &p, err);
  if (s == TI_STATUS_SUCCESS) s = ti_print_program(p, out, err);
  ti_program_destroy(p);
  return s;
}

/* --- convert ------------------------------------------------------------- */

static int cmd_convert(int argc, char **argv) {
  ti_context *ctx;
  ti_task_graph g;
  ti_error err;
  ti_status s;
  if (wants_help(argc, argv) || argc != 3) return usage(wants_help(argc, argv),
            "usage: taskir convert IN OUT\n"
            "  Formats by extension: .pb (binary protobuf, tianjic_ir.TaskGraph),\n"
            "  .txt (protobuf text format), .tir (core IR text form).\n");
  ti_error_clear(&err);
  ctx = ti_context_create(NULL);
  if (!ctx) return fail("convert", NULL);
  ti_task_graph_init(&g, NULL);
  s = load_graph(ctx, argv[1], &g, &err);
  if (s == TI_STATUS_SUCCESS) {
    if (has_ext(argv[2], ".tir")) {
      ti_buffer b;
      ti_buffer_init(&b, NULL);
      s = graph_to_tir(ctx, &g, &b, &err);
      if (s == TI_STATUS_SUCCESS) s = write_text_file(argv[2], &b, &err);
      ti_buffer_free(&b);
    } else if (has_ext(argv[2], ".pb") || has_ext(argv[2], ".txt")) {
      s = ti_task_write_file(argv[2], &g, &err);
    } else {
      s = ti_error_set(&err, TI_STATUS_BAD_PARAM, "'%s': unknown extension (use .pb, .txt or .tir)", argv[2]);
    }
  }
  ti_task_graph_free(&g);
  ti_context_destroy(ctx);
  return s == TI_STATUS_SUCCESS ? 0 : fail("convert", &err);
}

/* --- check ---------------------------------------------------------------- */

static int cmd_check(int argc, char **argv) {
  ti_context *ctx;
  ti_task_graph g;
  ti_diag_list diags;
  ti_error err;
  ti_status s;
  int32_t i;
  if (wants_help(argc, argv) || argc != 2) return usage(wants_help(argc, argv), "usage: taskir check FILE\n"
            "  Runs every rule of the Task IR checker, prints every problem (block/edge id,\n"
            "  rule, message) and exits 1 if there is any error (warnings alone exit 0).\n");
  ti_error_clear(&err);
  ctx = ti_context_create(NULL);
  if (!ctx) return fail("check", NULL);
  ti_task_graph_init(&g, NULL);
  s = load_graph(ctx, argv[1], &g, &err);
  if (s != TI_STATUS_SUCCESS) {
    ti_task_graph_free(&g);
    ti_context_destroy(ctx);
    return fail(argv[1], &err);
  }
  ti_diag_list_init(&diags, NULL);
  s = ti_task_check(&g, &diags, &err);
  for (i = 0; i < diags.n; i++) {
    const ti_diag *d = &diags.items[i];
    printf("%s: %s", d->severity == TI_DIAG_ERROR ? "error" : "warning", argv[1]);
    if (d->at & TI_DIAG_AT_BLOCK) printf(": block %d", (int)d->block_id);
    if (d->at & TI_DIAG_AT_EDGE) printf(": edge %d", (int)d->edge_id);
    printf(": [%s] %s\n", d->rule ? d->rule : "?", d->message);
  }
  if (diags.n_dropped) printf("%s: %lld more problems not listed\n", argv[1], (long long)diags.n_dropped);
  printf("%s: %d blocks, %d edges: %d errors, %d warnings\n", argv[1], (int)g.n_blocks, (int)g.n_edges,
         (int)diags.n_errors, (int)diags.n_warnings);
  ti_diag_list_free(&diags);
  ti_task_graph_free(&g);
  ti_context_destroy(ctx);
  if (s == TI_STATUS_NO_MEMORY) return fail("check", &err);
  return s == TI_STATUS_SUCCESS ? 0 : 1;
}

/* --- stat ------------------------------------------------------------------ */

static void shape_string(const ti_task_block *b, char *out, size_t cap) {
  int64_t d[4];
  int32_t n = ti_task_block_dims(b, d), i;
  size_t used = 0;
  out[0] = 0;
  for (i = 0; i < n && used < cap; i++)
    used += (size_t)snprintf(out + used, cap - used, "%s%lld", i ? "x" : "", (long long)d[i]);
  if (b->shape.nky || b->shape.nkx) {
    if (used < cap) used += (size_t)snprintf(out + used, cap - used, " k%dx%d", (int)b->shape.nky, (int)b->shape.nkx);
  }
}

static int cmd_stat(int argc, char **argv) {
  ti_context *ctx;
  ti_task_graph g;
  ti_task_stats st;
  ti_error err;
  ti_status s;
  int32_t i;
  if (wants_help(argc, argv) || argc != 2) return usage(wants_help(argc, argv), "usage: taskir stat FILE\n"
            "  Prints one row per block (id, type, precision, shape, parameters, MACs)\n"
            "  and the totals: parameters, MACs, storage bytes by precision, edge traffic.\n");
  ti_error_clear(&err);
  memset(&st, 0, sizeof st);
  ctx = ti_context_create(NULL);
  if (!ctx) return fail("stat", NULL);
  ti_task_graph_init(&g, NULL);
  s = load_graph(ctx, argv[1], &g, &err);
  if (s == TI_STATUS_SUCCESS) s = ti_task_statistics(&g, &st, 1, &err);
  if (s == TI_STATUS_LIMIT) {   /* counts beyond int64: the table still prints, saturated totals marked */
    fprintf(stderr, "taskir stat: %s: %s (marked 'saturated')\n", argv[1], err.message);
    s = TI_STATUS_SUCCESS;
  }
  if (s != TI_STATUS_SUCCESS) {
    ti_task_stats_free(&st, NULL);
    ti_task_graph_free(&g);
    ti_context_destroy(ctx);
    return fail(argv[1], &err);
  }
  printf("%6s  %-7s %-9s %-18s %12s %14s\n", "id", "type", "precision", "shape", "params", "MACs");
  for (i = 0; i < g.n_blocks; i++) {
    const ti_task_block *b = &g.blocks[i];
    const ti_task_block_stats *bs = &st.per_block[i];
    char shape[64];
    const char *prec = ti_precision_name(b->precision);
    shape_string(b, shape, sizeof shape);
    printf("%6d  %-7s %-9s %-18s %12lld %14lld\n", (int)b->id, ti_block_type_name(b->type) ? ti_block_type_name(b->type) : "?",
           prec ? prec : "?", shape, (long long)bs->params, (long long)bs->macs);
  }
#define TI__SAT(v) ((v) == INT64_MAX ? " (saturated)" : "")
  printf("total: %lld blocks, %lld edges, %lld parameters%s, %lld MACs%s, %lld bytes of storage%s, %lld bytes on edges%s\n",
         (long long)st.blocks, (long long)st.edges, (long long)st.params, TI__SAT(st.params), (long long)st.macs,
         TI__SAT(st.macs), (long long)st.storage_total, TI__SAT(st.storage_total), (long long)st.edge_bytes,
         TI__SAT(st.edge_bytes));
#undef TI__SAT
  for (i = 0; i < TI_DTYPE_COUNT; i++)
    if (st.storage_bytes[i])
      printf("storage %-9s %lld bytes\n", ti_precision_name((ti_dtype)i) ? ti_precision_name((ti_dtype)i) : ti_dtype_name((ti_dtype)i),
             (long long)st.storage_bytes[i]);
  ti_task_stats_free(&st, NULL);
  ti_task_graph_free(&g);
  ti_context_destroy(ctx);
  return 0;
}

/* --- dot ------------------------------------------------------------------- */

static void dot_rearrange(const ti_task_edge *e) {
  int32_t r, k;
  for (r = 0; r < e->n_rearrange; r++) {
    const ti_task_rearrange *ra = &e->rearrange[r];
    const char *name = ti_rearrange_kind_name((int)ra->type);
    printf("\\n%s", name ? name : "?");
    if (ra->n_matrix) {
      const ti_task_values *v = ti_task_tensor_values(&ra->matrix[0]);
      if (v) {
        printf("[");
        for (k = 0; k < v->count && k < 8; k++) printf("%s%g", k ? "," : "", ti_task_values_get_f64(v, k));
        printf("%s]", v->count > 8 ? ",..." : "");
      }
    }
  }
}

static int cmd_dot(int argc, char **argv) {
  ti_context *ctx;
  ti_task_graph g;
  ti_error err;
  int32_t i;
  if (wants_help(argc, argv) || argc != 2) return usage(wants_help(argc, argv), "usage: taskir dot FILE > graph.dot\n"
            "  Graphviz DOT: storage blocks are blue boxes, compute blocks orange ellipses,\n"
            "  INPUT/OUTPUT grey; edges are labelled with their id and rearrangements.\n"
            "  Render with: dot -Tpng graph.dot -o graph.png\n");
  ti_error_clear(&err);
  ctx = ti_context_create(NULL);
  if (!ctx) return fail("dot", NULL);
  ti_task_graph_init(&g, NULL);
  if (load_graph(ctx, argv[1], &g, &err) != TI_STATUS_SUCCESS) {
    ti_task_graph_free(&g);
    ti_context_destroy(ctx);
    return fail(argv[1], &err);
  }
  printf("digraph taskgraph {\n  rankdir=TB;\n  node [fontname=\"Helvetica\", fontsize=10];\n"
         "  edge [fontname=\"Helvetica\", fontsize=9];\n");
  for (i = 0; i < g.n_blocks; i++) {
    const ti_task_block *b = &g.blocks[i];
    ti_block_class cls = ti_block_class_of(b->type);
    char shape[64];
    const char *prec = ti_precision_name(b->precision);
    shape_string(b, shape, sizeof shape);
    printf("  b%d [label=\"%s %d\\n%s %s\", %s];\n", (int)b->id, ti_block_type_name(b->type) ? ti_block_type_name(b->type) : "?",
           (int)b->id, prec ? prec : "?", shape,
           cls == TI_CLASS_STORAGE ? "shape=box, style=filled, fillcolor=\"#cfe2f3\""
           : cls == TI_CLASS_COMPUTE ? "shape=ellipse, style=filled, fillcolor=\"#fce5cd\""
                                     : "shape=cds, style=filled, fillcolor=\"#e0e0e0\"");
  }
  for (i = 0; i < g.n_edges; i++) {
    const ti_task_edge *e = &g.edges[i];
    printf("  b%d -> b%d [label=\"e%d", (int)e->src_block_id, (int)e->dst_block_id, (int)e->id);
    dot_rearrange(e);
    printf("\"];\n");
  }
  printf("}\n");
  ti_task_graph_free(&g);
  ti_context_destroy(ctx);
  return 0;
}

/* --- print ----------------------------------------------------------------- */

static int cmd_print(int argc, char **argv) {
  ti_context *ctx;
  ti_error err;
  ti_buffer b;
  ti_status s;
  if (wants_help(argc, argv) || argc != 2) return usage(wants_help(argc, argv), "usage: taskir print FILE\n"
            "  Prints the core IR text form: a Task IR graph (.pb/.txt/.tir) as a graph\n"
            "  program of the task dialect, an nn program (.tir) as it is after verification.\n");
  ti_error_clear(&err);
  ctx = ti_context_create(NULL);
  if (!ctx) return fail("print", NULL);
  ti_buffer_init(&b, NULL);
  if (has_ext(argv[1], ".tir")) {
    ti_program *p = NULL;
    s = ti_task_register(ctx, &err);
    if (s == TI_STATUS_SUCCESS) s = load_nn_program(ctx, argv[1], &p, &err);
    if (s == TI_STATUS_SUCCESS) s = ti_print_program(p, &b, &err);
    ti_program_destroy(p);
  } else {
    ti_task_graph g;
    ti_task_graph_init(&g, NULL);
    s = load_graph(ctx, argv[1], &g, &err);
    if (s == TI_STATUS_SUCCESS) s = graph_to_tir(ctx, &g, &b, &err);
    ti_task_graph_free(&g);
  }
  if (s == TI_STATUS_SUCCESS) fwrite(b.data, 1, b.len, stdout);
  ti_buffer_free(&b);
  ti_context_destroy(ctx);
  return s == TI_STATUS_SUCCESS ? 0 : fail(argv[1], &err);
}

/* --- opt ------------------------------------------------------------------- */

static int cmd_opt(int argc, char **argv) {
  ti_context *ctx;
  ti_error err;
  ti_buffer b;
  ti_program *p = NULL;
  ti_pass_manager pm;
  ti_status s;
  const char *path = NULL, *passes = NULL;
  int i;
  if (wants_help(argc, argv)) {
    int32_t n, k;
    const ti_pass *all = ti_generic_passes(&n);
    printf("usage: taskir opt FILE.tir --passes NAME[,NAME...]\n"
           "  Parses an nn program, runs the passes in order (verifying after each)\n"
           "  and prints the result. Passes:");
    for (k = 0; k < n; k++) printf(" %s", all[k].name);
    printf("\n");
    return 0;
  }
  for (i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--passes") == 0 && i + 1 < argc) passes = argv[++i];
    else if (argv[i][0] == '-') { fprintf(stderr, "taskir opt: unknown option '%s'\n", argv[i]); return 2; }
    else if (!path) path = argv[i];
    else { fprintf(stderr, "taskir opt: one FILE only\n"); return 2; }
  }
  if (!path || !passes) { fprintf(stderr, "usage: taskir opt FILE.tir --passes NAME[,NAME...]\n"); return 2; }
  ti_error_clear(&err);
  ctx = ti_context_create(NULL);
  if (!ctx) return fail("opt", NULL);
  ti_buffer_init(&b, NULL);
  ti_pass_manager_init(&pm);
  s = ti_pass_manager_add_named(&pm, passes, &err);
  if (s == TI_STATUS_SUCCESS) s = load_nn_program(ctx, path, &p, &err);
  if (s == TI_STATUS_SUCCESS) s = ti_pass_manager_run(&pm, p, &err);
  if (s == TI_STATUS_SUCCESS) s = ti_print_program(p, &b, &err);
  if (s == TI_STATUS_SUCCESS) fwrite(b.data, 1, b.len, stdout);
  ti_buffer_free(&b);
  ti_program_destroy(p);
  ti_context_destroy(ctx);
  return s == TI_STATUS_SUCCESS ? 0 : fail(path, &err);
}

/* --- layout ---------------------------------------------------------------- */

static int cmd_layout(int argc, char **argv) {
  ti_context *ctx;
  ti_error err;
  ti_buffer b;
  ti_program *p = NULL;
  ti_layout_stats ls;
  ti_status s;
  const char *path = NULL;
  int transmit = 0, npu = 0, i;
  if (wants_help(argc, argv)) {
    printf("usage: taskir layout FILE.tir [--transmit] [--npu]\n"
           "  --transmit  LayoutTransmit: colour every value with a layout\n"
           "  --npu       LayoutPresetToNPU: insert the fewest transposes so that\n"
           "              conv-class ops see NHWC activations and HWOI weights\n"
           "  (neither flag: both, in that order). Prints the rewritten program and\n"
           "  ends with 'transposes: inserted N, removed M'.\n");
    return 0;
  }
  for (i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--transmit") == 0) transmit = 1;
    else if (strcmp(argv[i], "--npu") == 0) npu = 1;
    else if (argv[i][0] == '-') { fprintf(stderr, "taskir layout: unknown option '%s'\n", argv[i]); return 2; }
    else if (!path) path = argv[i];
    else { fprintf(stderr, "taskir layout: one FILE only\n"); return 2; }
  }
  if (!path) { fprintf(stderr, "usage: taskir layout FILE.tir [--transmit] [--npu]\n"); return 2; }
  if (!transmit && !npu) transmit = npu = 1;
  ti_error_clear(&err);
  ctx = ti_context_create(NULL);
  if (!ctx) return fail("layout", NULL);
  ti_buffer_init(&b, NULL);
  memset(&ls, 0, sizeof ls);
  s = load_nn_program(ctx, path, &p, &err);
  if (s == TI_STATUS_SUCCESS && transmit) s = ti_layout_transmit(p, NULL, &err);
  if (s == TI_STATUS_SUCCESS && npu) s = ti_layout_preset_npu(p, NULL, &ls, &err);
  if (s == TI_STATUS_SUCCESS) s = ti_verify(p, &err);
  if (s == TI_STATUS_SUCCESS) s = ti_print_program(p, &b, &err);
  if (s == TI_STATUS_SUCCESS) {
    fwrite(b.data, 1, b.len, stdout);
    printf("transposes: inserted %lld, removed %lld\n", (long long)ls.inserted, (long long)ls.removed);
  }
  ti_buffer_free(&b);
  ti_program_destroy(p);
  ti_context_destroy(ctx);
  return s == TI_STATUS_SUCCESS ? 0 : fail(path, &err);
}

/* --------------------------------------------------------------------------- */

int main(int argc, char **argv) {
  static const struct { const char *name; int (*fn)(int, char **); } cmds[] = {
    { "demo", ti_cli_demo }, { "run", ti_cli_run }, { "convert", cmd_convert }, { "check", cmd_check },
    { "stat", cmd_stat }, { "dot", cmd_dot }, { "print", cmd_print }, { "opt", cmd_opt }, { "layout", cmd_layout },
  };
  size_t i;
  if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
    fputs(usage_text, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  for (i = 0; i < sizeof cmds / sizeof *cmds; i++)
    if (strcmp(argv[1], cmds[i].name) == 0) return cmds[i].fn(argc - 1, argv + 1);
  fprintf(stderr, "taskir: unknown command '%s'\n\n%s", argv[1], usage_text);
  return 2;
}
