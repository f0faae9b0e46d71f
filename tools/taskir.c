/* taskir - command-line tool: convert, check, stat, dot, print, layout, run, demo.

   Build: cc -std=c99 -O2 -I. -o build/taskir tools/taskir.c -lm   (or `make`) */
#define _POSIX_C_SOURCE 200809L   /* isatty, fileno */
#define TASKIR_IMPLEMENTATION
#include "taskir.h"
#include "taskir_proto.h"
#include "taskir_layout.h"
#include "taskir_exec.h"
#include "../taskir_onnx.h"   /* the importer and its passes (quantize-recognize) */
#include "taskir_io.h"
#include "taskir_run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *usage_text =
  "usage: taskir <command> [options]\n"
  "       taskir --version\n"
  "\n"
  "commands:\n"
  "  demo                       build, check, save, reload and run a small ANN+SNN network\n"
  "  run FILE [options]         execute a Task IR graph (see taskir run --help)\n"
  "  convert IN OUT             convert between .pb, .txt and .tir (by extension)\n"
  "  check FILE [--json]        run the checker, list every problem, exit 1 on any error\n"
  "  stat FILE [--json]         per-block table (id, type, precision, shape, params, MACs)\n"
  "                             and totals\n"
  "  dot FILE                   Graphviz DOT of a Task IR graph or an nn program on stdout\n"
  "  print FILE                 the core IR text form on stdout\n"
  "  opt FILE.tir --passes LIST  run generic passes (dce, cse, constant-fold,\n"
  "                             maximize-value-semantics, inplace-to-outofplace)\n"
  "  layout FILE.tir [--transmit] [--npu]\n"
  "                             run the layout passes on an nn program and print it\n"
  "  import MODEL.onnx OUT      ONNX model -> nn program (.tir) or Task IR (.pb/.txt)\n"
  "                             (see taskir import --help)\n"
  "  lower PROGRAM.tir OUT      integer nn program -> Task IR .pb/.txt (see taskir lower --help)\n"
  "  eval PROGRAM.tir|MODEL.onnx  run the nn interpreter (see taskir eval --help)\n"
  "\n"
  "FILE is .pb/.bin (binary protobuf), .txt/.pbtxt/.textproto/.prototxt (protobuf\n"
  "text), .tir (core IR text), or - (stdin) with --format pb|txt|tir. Every\n"
  "command takes --help. Exit status: 0 success, 1 failure, 2 bad usage.\n";

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

/* The arguments of the one-file commands (check, stat, dot, print):
   FILE [--format F] [--json]. Returns 0, or 2 after a message. */
typedef struct cli_args {
  const char *path;
  ti_cli_fmt fmt;
  int json;
} cli_args;

static int parse_file_args(int argc, char **argv, int json_ok, const char *use, cli_args *a) {
  int i, r;
  const char *v;
  memset(a, 0, sizeof *a);
  for (i = 1; i < argc; i++) {
    if ((r = ti_cli_opt_value(argc, argv, &i, argv[0], "--format", &v)) != 0) {
      if (r < 0 || !ti_cli_opt_format(argv[0], v, &a->fmt)) return usage(0, use);
    } else if (json_ok && strcmp(argv[i], "--json") == 0) a->json = 1;
    else if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "taskir %s: unknown option '%s'\n", argv[0], argv[i]);
      return usage(0, use);
    } else if (a->path) {
      fprintf(stderr, "taskir %s: one FILE only ('%s', '%s')\n", argv[0], a->path, argv[i]);
      return usage(0, use);
    } else a->path = argv[i];
  }
  if (!a->path) { fprintf(stderr, "taskir %s: no FILE given\n", argv[0]); return usage(0, use); }
  return 0;
}

/* --- convert ------------------------------------------------------------- */

static int cmd_convert(int argc, char **argv) {
  static const char use[] =
      "usage: taskir convert IN OUT [--from F] [--to F]\n"
      "  Converts a Task IR graph between binary protobuf (tianjic_ir.TaskGraph),\n"
      "  protobuf text format and the core IR text form. --from/--to pb|txt|tir\n"
      "  override the extension (needed for `-`, stdin/stdout).\n";
  ti_context *ctx;
  ti_task_graph g;
  ti_error err;
  ti_status s;
  const char *in = NULL, *out = NULL, *v;
  ti_cli_fmt from = TI_CLI_FMT_NONE, to = TI_CLI_FMT_NONE;
  int i, r;
  if (wants_help(argc, argv)) return usage(1, use);
  for (i = 1; i < argc; i++) {
    if ((r = ti_cli_opt_value(argc, argv, &i, "convert", "--from", &v)) != 0) {
      if (r < 0 || !ti_cli_opt_format("convert", v, &from)) return usage(0, use);
    } else if ((r = ti_cli_opt_value(argc, argv, &i, "convert", "--to", &v)) != 0) {
      if (r < 0 || !ti_cli_opt_format("convert", v, &to)) return usage(0, use);
    } else if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "taskir convert: unknown option '%s'\n", argv[i]);
      return usage(0, use);
    } else if (!in) in = argv[i];
    else if (!out) out = argv[i];
    else { fprintf(stderr, "taskir convert: IN and OUT only\n"); return usage(0, use); }
  }
  if (!out) return usage(0, use);
  ti_error_clear(&err);
  ctx = ti_context_create(NULL);
  if (!ctx) return ti_cli_fail("convert", NULL, NULL);
  ti_task_graph_init(&g, NULL);
  s = ti_cli_load_graph(ctx, in, from, &g, NULL, &err);
  if (s != TI_STATUS_SUCCESS) ti_cli_fail("convert", in, &err);
  else if ((s = ti_cli_save_graph(ctx, out, to, &g, &err)) != TI_STATUS_SUCCESS) ti_cli_fail("convert", out, &err);
  ti_task_graph_free(&g);
  ti_context_destroy(ctx);
  return s == TI_STATUS_SUCCESS ? 0 : 1;
}

/* --- check ---------------------------------------------------------------- */

static void check_print(const cli_args *a, int first, const char *sev, const char *rule, int has_block, int32_t block,
                        int has_edge, int32_t edge, const char *msg) {
  if (a->json) {
    printf("%s\n    {\"severity\": \"%s\", \"rule\": ", first ? "" : ",", sev);
    ti_cli_json_str(stdout, rule);
    printf(", \"block\": ");
    if (has_block) printf("%d", (int)block); else printf("null");
    printf(", \"edge\": ");
    if (has_edge) printf("%d", (int)edge); else printf("null");
    printf(", \"message\": ");
    ti_cli_json_str(stdout, msg);
    printf("}");
    return;
  }
  printf("%s: %s", sev, a->path);
  if (has_block) printf(": block %d", (int)block);
  if (has_edge) printf(": edge %d", (int)edge);
  printf(": [%s] %s\n", rule, msg);
}

static int cmd_check(int argc, char **argv) {
  static const char use[] =
      "usage: taskir check FILE [--format pb|txt|tir] [--json]\n"
      "  Runs every rule of the Task IR checker, prints every problem (block/edge id,\n"
      "  rule, message) and exits 1 if there is any error (warnings alone exit 0).\n"
      "  Also warns about an empty file and a graph without an OUTPUT block.\n"
      "  --json: one object {file, blocks, edges, errors, warnings, problems: [{severity,\n"
      "  rule, block, edge, message}]} (block/edge null when none).\n";
  ti_context *ctx;
  ti_task_graph g;
  ti_diag_list diags;
  ti_error err;
  ti_status s;
  cli_args a;
  size_t bytes = 0;
  int32_t i, n_out = 0, warnings, n = 0;
  int rc;
  if (wants_help(argc, argv)) return usage(1, use);
  if ((rc = parse_file_args(argc, argv, 1, use, &a)) != 0) return rc;
  ti_error_clear(&err);
  ctx = ti_context_create(NULL);
  if (!ctx) return ti_cli_fail("check", NULL, NULL);
  ti_task_graph_init(&g, NULL);
  s = ti_cli_load_graph(ctx, a.path, a.fmt, &g, &bytes, &err);
  if (s != TI_STATUS_SUCCESS) {
    ti_task_graph_free(&g);
    ti_context_destroy(ctx);
    return ti_cli_fail("check", a.path, &err);
  }
  ti_diag_list_init(&diags, NULL);
  s = ti_task_check(&g, &diags, &err);
  if (s == TI_STATUS_NO_MEMORY) {
    ti_diag_list_free(&diags);
    ti_task_graph_free(&g);
    ti_context_destroy(ctx);
    return ti_cli_fail("check", a.path, &err);
  }
  if (a.json) {
    printf("{\"file\": ");
    ti_cli_json_str(stdout, a.path);
    printf(", \"problems\": [");
  }
  for (i = 0; i < diags.n; i++) {
    const ti_diag *d = &diags.items[i];
    check_print(&a, n++ == 0, d->severity == TI_DIAG_ERROR ? "error" : "warning", d->rule ? d->rule : "?",
                (d->at & TI_DIAG_AT_BLOCK) != 0, d->block_id, (d->at & TI_DIAG_AT_EDGE) != 0, d->edge_id, d->message);
  }
  warnings = diags.n_warnings;
  for (i = 0; i < g.n_blocks; i++) n_out += g.blocks[i].type == TI_BLOCK_OUTPUT;
  if (bytes == 0) {
    check_print(&a, n++ == 0, "warning", "empty", 0, -1, 0, -1, "the file is empty (0 bytes): a graph without blocks");
    warnings++;
  } else if (n_out == 0) {
    check_print(&a, n++ == 0, "warning", "io", 0, -1, 0, -1, "no OUTPUT block: running the graph produces nothing");
    warnings++;
  }
  if (a.json)
    printf("%s], \"blocks\": %d, \"edges\": %d, \"errors\": %d, \"warnings\": %d, \"not_listed\": %lld}\n", n ? "\n  " : "",
           (int)g.n_blocks, (int)g.n_edges, (int)diags.n_errors, (int)warnings, (long long)diags.n_dropped);
  else {
    if (diags.n_dropped) printf("%s: %lld more problems not listed\n", a.path, (long long)diags.n_dropped);
    printf("%s: %d blocks, %d edges: %d errors, %d warnings\n", a.path, (int)g.n_blocks, (int)g.n_edges,
           (int)diags.n_errors, (int)warnings);
  }
  ti_diag_list_free(&diags);
  ti_task_graph_free(&g);
  ti_context_destroy(ctx);
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
  static const char use[] =
      "usage: taskir stat FILE [--format pb|txt|tir] [--json]\n"
      "  One row per block and the totals. params: weight and bias elements a compute\n"
      "  block reads, counted there once (not again at the SW/SB block holding them),\n"
      "  so the column adds up to the total; held: values a storage block holds (its\n"
      "  data, or what it receives); MACs: multiply-accumulates (one op per output and\n"
      "  window tap for blocks without MACs). --json: {blocks: [...], totals: {...}}.\n";
  ti_context *ctx;
  ti_task_graph g;
  ti_task_stats st;
  ti_error err;
  ti_status s;
  cli_args a;
  int32_t i;
  int rc;
  if (wants_help(argc, argv)) return usage(1, use);
  if ((rc = parse_file_args(argc, argv, 1, use, &a)) != 0) return rc;
  ti_error_clear(&err);
  memset(&st, 0, sizeof st);
  ctx = ti_context_create(NULL);
  if (!ctx) return ti_cli_fail("stat", NULL, NULL);
  ti_task_graph_init(&g, NULL);
  memset(&st, 0, sizeof st);
  s = ti_cli_load_graph(ctx, a.path, a.fmt, &g, NULL, &err);
  if (s == TI_STATUS_SUCCESS) s = ti_task_statistics(&g, &st, 1, &err);
  if (s == TI_STATUS_LIMIT && st.per_block)   /* counts beyond int64: the table still prints, saturated totals marked */
    fprintf(stderr, "taskir stat: %s: %s (marked 'saturated')\n", a.path, err.message);
  if (s != TI_STATUS_SUCCESS && !(s == TI_STATUS_LIMIT && st.per_block)) {
    ti_task_stats_free(&st, NULL);
    ti_task_graph_free(&g);
    ti_context_destroy(ctx);
    return ti_cli_fail("stat", a.path, &err);
  }
  if (a.json) printf("{\"file\": "), ti_cli_json_str(stdout, a.path), printf(", \"blocks\": [");
  else printf("%6s  %-7s %-9s %-18s %12s %12s %14s\n", "id", "type", "precision", "shape", "params", "held", "MACs");
  for (i = 0; i < g.n_blocks; i++) {
    const ti_task_block *b = &g.blocks[i];
    const ti_task_block_stats *bs = &st.per_block[i];
    int storage = ti_block_class_of(b->type) == TI_CLASS_STORAGE;
    long long params = storage ? 0 : (long long)bs->params, held = storage ? (long long)bs->out_elems : 0;
    char shape[64];
    const char *prec = ti_precision_name(b->precision), *type = ti_block_type_name(b->type);
    shape_string(b, shape, sizeof shape);
    if (a.json) {
      printf("%s\n    {\"id\": %d, \"type\": ", i ? "," : "", (int)b->id);
      ti_cli_json_str(stdout, type ? type : "?");
      printf(", \"precision\": ");
      ti_cli_json_str(stdout, prec ? prec : "?");
      printf(", \"shape\": ");
      ti_cli_json_str(stdout, shape);
      printf(", \"params\": %lld, \"held\": %lld, \"macs\": %lld, \"storage_bytes\": %lld}", params, held,
             (long long)bs->macs, (long long)bs->storage_bytes);
    } else
      printf("%6d  %-7s %-9s %-18s %12lld %12lld %14lld\n", (int)b->id, type ? type : "?", prec ? prec : "?", shape, params,
             held, (long long)bs->macs);
  }
  if (a.json) {
    printf("%s], \"totals\": {\"blocks\": %lld, \"edges\": %lld, \"params\": %lld, \"macs\": %lld, \"storage_bytes\": %lld, "
           "\"edge_bytes\": %lld, \"saturated\": %s, \"storage_by_precision\": {",
           g.n_blocks ? "\n  " : "", (long long)st.blocks, (long long)st.edges, (long long)st.params, (long long)st.macs,
           (long long)st.storage_total, (long long)st.edge_bytes, s == TI_STATUS_LIMIT ? "true" : "false");
    for (rc = 0, i = 0; i < TI_DTYPE_COUNT; i++)
      if (st.storage_bytes[i]) {
        const char *pn = ti_precision_name((ti_dtype)i);
        printf("%s", rc++ ? ", " : "");
        ti_cli_json_str(stdout, pn ? pn : ti_dtype_name((ti_dtype)i));
        printf(": %lld", (long long)st.storage_bytes[i]);
      }
    printf("}}}\n");
    rc = 0;
  } else {
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
  }
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
    const char *name = ti_rearrange_kind_name(ra->type);
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

/* A DOT string literal: the text with " and \ escaped (newlines as \n). */
static void dot_str(const char *t) {
  putchar('"');
  for (; *t; t++) {
    if (*t == '"' || *t == '\\') printf("\\%c", *t);
    else if (*t == '\n') printf("\\n");
    else putchar(*t);
  }
  putchar('"');
}

/* The input cluster of dst that names edge id, or -1. */
static int32_t dot_dst_cluster(const ti_task_block *dst, int32_t id) {
  int32_t c, k;
  for (c = 0; c < dst->n_inputs; c++)
    for (k = 0; k < dst->inputs[c].n_interfaces; k++)
      if (dst->inputs[c].interfaces[k].edge_id == id) return c;
  return -1;
}

static void dot_block(const ti_task_block *b, const char *indent) {
  ti_block_class cls = ti_block_class_of(b->type);
  char shape[64];
  const char *prec = ti_precision_name(b->precision), *type = ti_block_type_name(b->type);
  shape_string(b, shape, sizeof shape);
  printf("%sb%d [label=\"%s %d", indent, (int)b->id, type ? type : "?", (int)b->id);
  if ((b->type == TI_BLOCK_INPUT || b->type == TI_BLOCK_OUTPUT))
    printf((b->has & TI_BLOCK_HAS_SOCKET_ID) ? "\\nsocket %d" : "\\nsocket %d (its block id)", (int)ti_task_socket_of(b));
  printf("\\n%s %s\", %s];\n", prec ? prec : "?", shape,
         cls == TI_CLASS_STORAGE ? "shape=box, style=filled, fillcolor=\"#cfe2f3\""
         : cls == TI_CLASS_COMPUTE ? "shape=ellipse, style=filled, fillcolor=\"#fce5cd\""
         : b->type == TI_BLOCK_INPUT ? "shape=invhouse, style=filled, fillcolor=\"#e0e0e0\""
                                     : "shape=house, style=filled, fillcolor=\"#e0e0e0\"");
}

static int dot_task_graph(const char *path, const ti_task_graph *g, const ti_task_stats *st) {
  int32_t i, j, k, dangling = 0;
  unsigned char *placed = (unsigned char *)calloc((size_t)g->n_blocks + 1, 1);
  if (!placed) { fprintf(stderr, "taskir dot: out of memory\n"); return 1; }
  printf("digraph taskgraph {\n  rankdir=TB;\n  node [fontname=\"Helvetica\", fontsize=10];\n"
         "  edge [fontname=\"Helvetica\", fontsize=9];\n");
  for (k = 0; k < g->n_groups; k++) {
    const ti_task_group *gr = &g->groups[k];
    printf("  subgraph cluster_g%d {\n    label=\"group %d\"; style=\"rounded,dashed\"; color=\"#6d9eeb\"; fontname=\"Helvetica\";\n",
           (int)k, (int)gr->group_id);
    for (j = 0; j < gr->n_block_ids; j++)
      for (i = 0; i < g->n_blocks; i++)
        if (g->blocks[i].id == gr->block_ids[j] && !placed[i]) { dot_block(&g->blocks[i], "    "); placed[i] = 1; }
    printf("  }\n");
  }
  for (i = 0; i < g->n_blocks; i++) if (!placed[i]) dot_block(&g->blocks[i], "  ");
  free(placed);
  for (i = 0; i < g->n_edges; i++) {
    const ti_task_edge *e = &g->edges[i];
    const ti_task_block *src = ti_task_find_block(g, e->src_block_id), *dst = ti_task_find_block(g, e->dst_block_id);
    if (!src || !dst) {
      /* no phantom block: a red end point that says what is missing */
      const char *end = !src ? "source" : "destination";
      int32_t missing = !src ? e->src_block_id : e->dst_block_id;
      printf("  x%d [shape=plaintext, fontcolor=red, label=\"edge %d: %s block %d does not exist\"];\n", (int)i, (int)e->id,
             end, (int)missing);
      if (src) printf("  b%d -> x%d", (int)src->id, (int)i);
      else if (dst) printf("  x%d -> b%d", (int)i, (int)dst->id);
      else printf("  x%d -> x%d", (int)i, (int)i);
      printf(" [color=red, fontcolor=red, style=dashed, label=\"e%d\"];\n", (int)e->id);
      fprintf(stderr, "taskir dot: %s: edge %d: %s block %d does not exist (drawn in red)\n", path, (int)e->id, end,
              (int)missing);
      dangling++;
      continue;
    }
    {
      int32_t c = dot_dst_cluster(dst, e->id);
      const char *role = c >= 0 ? ti_task_input_role(dst, c) : NULL;
      printf("  b%d -> b%d [label=\"e%d", (int)e->src_block_id, (int)e->dst_block_id, (int)e->id);
      if (c >= 0) printf(" %s (in %d)", role ? role : "?", (int)c);
      else printf(" (no input interface names it)");
      if (st && st->per_edge_bytes) printf("\\n%lld B", (long long)st->per_edge_bytes[i]);
      dot_rearrange(e);
      printf("\"%s];\n", role && strcmp(role, "data") ? ", style=dashed" : c < 0 ? ", color=red, fontcolor=red" : "");
    }
  }
  printf("}\n");
  if (dangling) fprintf(stderr, "taskir dot: %s: %d dangling edge(s)\n", path, (int)dangling);
  return 0;
}

/* An nn program: one node per op and argument, one edge per use labelled
   with the value's type (dtype, shape, layout). */
static int dot_program(const ti_program *p) {
  const ti_op *op;
  int32_t i, k;
  ti_buffer tb;
  ti_buffer_init(&tb, NULL);
  printf("digraph nnprogram {\n  rankdir=TB;\n  node [fontname=\"Helvetica\", fontsize=10];\n"
         "  edge [fontname=\"Helvetica\", fontsize=9];\n");
  for (i = 0; i < p->n_args; i++)
    printf("  a%d [label=\"%%arg%d\", shape=cds, style=filled, fillcolor=\"#e0e0e0\"];\n", (int)i, (int)i);
  for (op = p->first, k = 0; op; op = op->next, k++) {
    const char *name = op->info && op->info->name ? op->info->name : "?";
    int is_ret = !strcmp(name, "builtin.return");
    ((ti_op *)op)->order = k;
    printf("  o%d [label=", (int)k);
    dot_str(name);
    printf(", %s];\n", is_ret ? "shape=cds, style=filled, fillcolor=\"#e0e0e0\""
                              : "shape=box, style=\"rounded,filled\", fillcolor=\"#fce5cd\"");
  }
  for (op = p->first; op; op = op->next)
    for (i = 0; i < op->n_operands; i++) {
      const ti_value *v = op->operands[i].value;
      if (!v) continue;
      if (v->def) printf("  o%d -> o%d [label=", (int)v->def->order, (int)op->order);
      else printf("  a%d -> o%d [label=", (int)v->index, (int)op->order);
      tb.len = 0;
      if (v->type && ti_print_type(v->type, &tb) == TI_STATUS_SUCCESS && !tb.failed) {
        char *t = (char *)malloc(tb.len + 1);
        if (t) { memcpy(t, tb.data, tb.len); t[tb.len] = 0; dot_str(t); free(t); }
        else dot_str("?");
      } else dot_str("?");
      printf("];\n");
    }
  printf("}\n");
  ti_buffer_free(&tb);
  return 0;
}

static int cmd_dot(int argc, char **argv) {
  static const char use[] = "usage: taskir dot FILE [--format pb|txt|tir] > graph.dot\n"
            "  Graphviz DOT of a Task IR graph: storage blocks are blue boxes, compute\n"
            "  blocks orange ellipses, INPUT/OUTPUT grey with their socket; groups are\n"
            "  dashed clusters. Each edge: its id, the role of the input cluster it feeds\n"
            "  (data, weight, alpha, lut, state, bias; non-data edges dashed), its bytes\n"
            "  and rearrangements. An edge naming a missing block is drawn in red (and\n"
            "  reported on stderr). Of an nn program (.tir): ops, arguments, and one edge\n"
            "  per use labelled with the value's type (dtype, shape, layout).\n"
            "  Render with: dot -Tpng graph.dot -o graph.png\n";
  ti_context *ctx;
  ti_task_graph g;
  ti_error err;
  ti_cli_fmt fmt;
  cli_args a;
  int rc;
  if (wants_help(argc, argv)) return usage(1, use);
  if ((rc = parse_file_args(argc, argv, 0, use, &a)) != 0) return rc;
  ti_error_clear(&err);
  ctx = ti_context_create(NULL);
  if (!ctx) return ti_cli_fail("dot", NULL, NULL);
  ti_task_graph_init(&g, NULL);
  if (ti_cli_format(a.path, a.fmt, &fmt, &err) != TI_STATUS_SUCCESS) rc = ti_cli_fail("dot", a.path, &err);
  else if (fmt == TI_CLI_FMT_TIR) {
    ti_program *p = NULL;
    const char *d = NULL;
    if (ti_cli_load_program(ctx, a.path, fmt, &p, &d, &err) != TI_STATUS_SUCCESS) rc = ti_cli_fail("dot", a.path, &err);
    else if (d && !strcmp(d, "task")) {
      if (ti_task_export(p, &g, &err) != TI_STATUS_SUCCESS) rc = ti_cli_fail("dot", a.path, &err);
    } else rc = dot_program(p);
    if (!(d && !strcmp(d, "task"))) { ti_program_destroy(p); ti_task_graph_free(&g); ti_context_destroy(ctx); return rc; }
    ti_program_destroy(p);
  } else if (ti_cli_load_graph(ctx, a.path, fmt, &g, NULL, &err) != TI_STATUS_SUCCESS) rc = ti_cli_fail("dot", a.path, &err);
  if (rc == 0) {
    ti_task_stats st;
    ti_error serr;
    memset(&st, 0, sizeof st);
    /* bytes per edge when it can say: on LIMIT the counts are clamped, still drawn */
    (void)!ti_task_statistics(&g, &st, 1, &serr);
    rc = dot_task_graph(a.path, &g, &st);
    ti_task_stats_free(&st, NULL);
  }
  ti_task_graph_free(&g);
  ti_context_destroy(ctx);
  return rc;
}

/* --- print ----------------------------------------------------------------- */

static int cmd_print(int argc, char **argv) {
  static const char use[] = "usage: taskir print FILE [--format pb|txt|tir]\n"
            "  Prints the core IR text form: a Task IR graph (.pb/.txt/.tir) as a graph\n"
            "  program of the task dialect, an nn program (.tir) as it is after verification.\n";
  ti_context *ctx;
  ti_error err;
  ti_buffer b;
  ti_status s;
  ti_cli_fmt fmt;
  cli_args a;
  int rc;
  if (wants_help(argc, argv)) return usage(1, use);
  if ((rc = parse_file_args(argc, argv, 0, use, &a)) != 0) return rc;
  ti_error_clear(&err);
  ctx = ti_context_create(NULL);
  if (!ctx) return ti_cli_fail("print", NULL, NULL);
  ti_buffer_init(&b, NULL);
  s = ti_cli_format(a.path, a.fmt, &fmt, &err);
  if (s == TI_STATUS_SUCCESS && fmt == TI_CLI_FMT_TIR) {
    ti_program *p = NULL;
    s = ti_cli_load_program(ctx, a.path, fmt, &p, NULL, &err);
    if (s == TI_STATUS_SUCCESS) s = ti_print_program(p, &b, &err);
    ti_program_destroy(p);
  } else if (s == TI_STATUS_SUCCESS) {
    ti_task_graph g;
    ti_program *p = NULL;
    ti_task_graph_init(&g, NULL);
    s = ti_cli_load_graph(ctx, a.path, fmt, &g, NULL, &err);
    if (s == TI_STATUS_SUCCESS) s = ti_task_import(ctx, &g, &p, &err);
    if (s == TI_STATUS_SUCCESS) s = ti_print_program(p, &b, &err);
    ti_program_destroy(p);
    ti_task_graph_free(&g);
  }
  if (s == TI_STATUS_SUCCESS) fwrite(b.data, 1, b.len, stdout);
  ti_buffer_free(&b);
  ti_context_destroy(ctx);
  return s == TI_STATUS_SUCCESS ? 0 : ti_cli_fail("print", a.path, &err);
}

/* --- opt ------------------------------------------------------------------- */

static int cmd_opt(int argc, char **argv) {
  static const char use[] = "usage: taskir opt FILE.tir --passes NAME[,NAME...]\n";
  ti_context *ctx;
  ti_error err;
  ti_buffer b;
  ti_program *p = NULL;
  ti_pass_manager pm;
  ti_status s;
  const char *path = NULL, *passes = NULL;
  int i, r, ran_quant = 0;
  ti_quant_report qr;
  if (wants_help(argc, argv)) {
    int32_t n, k;
    const ti_pass *all = ti_generic_passes(&n);
    printf("usage: taskir opt FILE.tir --passes NAME[,NAME...]   (or --passes=NAME,...)\n"
           "  Parses an nn program, runs the passes in order (verifying after each)\n"
           "  and prints the result. Passes:");
    for (k = 0; k < n; k++) printf(" %s", all[k].name);
    all = ti_onnx_passes(&n);
    for (k = 0; k < n; k++) printf(" %s", all[k].name);
    printf("\n  quantize-recognize reports on stderr how many layers it quantised, or\n"
           "  why the program stays float (the first offending tensor).\n");
    return 0;
  }
  for (i = 1; i < argc; i++) {
    if ((r = ti_cli_opt_value(argc, argv, &i, "opt", "--passes", &passes)) != 0) {
      if (r < 0) return usage(0, use);
    } else if (argv[i][0] == '-' && argv[i][1]) { fprintf(stderr, "taskir opt: unknown option '%s'\n", argv[i]); return usage(0, use); }
    else if (!path) path = argv[i];
    else { fprintf(stderr, "taskir opt: one FILE only\n"); return usage(0, use); }
  }
  if (!path) { fprintf(stderr, "taskir opt: no FILE given\n"); return usage(0, use); }
  if (!passes) { fprintf(stderr, "taskir opt: --passes is required\n"); return usage(0, use); }
  ti_error_clear(&err);
  ctx = ti_context_create(NULL);
  if (!ctx) return ti_cli_fail("opt", NULL, NULL);
  ti_buffer_init(&b, NULL);
  ti_pass_manager_init(&pm);
  memset(&qr, 0, sizeof qr);
  s = ti_onnx_pass_manager_add_named(&pm, passes, &err);
  for (i = 0; i < pm.n; i++)
    if (strcmp(pm.passes[i].name, "quantize-recognize") == 0) { pm.passes[i].user = &qr; ran_quant = 1; }
  if (s != TI_STATUS_SUCCESS) {
    ti_context_destroy(ctx);
    ti_cli_fail("opt", NULL, &err);
    return 2;
  }
  s = ti_cli_load_nn(ctx, path, TI_CLI_FMT_NONE, &p, &err);
  if (s == TI_STATUS_SUCCESS) s = ti_pass_manager_run(&pm, p, &err);
  if (s == TI_STATUS_SUCCESS && ran_quant) {
    if (qr.n_layers) fprintf(stderr, "quantize-recognize: %d layers quantised\n", (int)qr.n_layers);
    else fprintf(stderr, "quantize-recognize: stays float: %s\n", qr.reason);
  }
  if (s == TI_STATUS_SUCCESS) s = ti_print_program(p, &b, &err);
  if (s == TI_STATUS_SUCCESS) fwrite(b.data, 1, b.len, stdout);
  ti_buffer_free(&b);
  ti_program_destroy(p);
  ti_context_destroy(ctx);
  return s == TI_STATUS_SUCCESS ? 0 : ti_cli_fail("opt", path, &err);
}

/* --- layout ---------------------------------------------------------------- */

static int cmd_layout(int argc, char **argv) {
  static const char use[] = "usage: taskir layout FILE.tir [--transmit] [--npu]\n";
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
           "  --npu       LayoutPresetToNPU: insert transposes so that conv-class ops\n"
           "              see NHWC activations and HWOI weights (a greedy pass: not\n"
           "              always the fewest possible)\n"
           "  (neither flag: both, in that order). Prints the rewritten program and\n"
           "  ends with 'transposes: inserted N, removed M'.\n");
    return 0;
  }
  for (i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--transmit") == 0) transmit = 1;
    else if (strcmp(argv[i], "--npu") == 0) npu = 1;
    else if (argv[i][0] == '-' && argv[i][1]) { fprintf(stderr, "taskir layout: unknown option '%s'\n", argv[i]); return usage(0, use); }
    else if (!path) path = argv[i];
    else { fprintf(stderr, "taskir layout: one FILE only\n"); return usage(0, use); }
  }
  if (!path) { fprintf(stderr, "taskir layout: no FILE given\n"); return usage(0, use); }
  if (!transmit && !npu) transmit = npu = 1;
  ti_error_clear(&err);
  ctx = ti_context_create(NULL);
  if (!ctx) return ti_cli_fail("layout", NULL, NULL);
  ti_buffer_init(&b, NULL);
  memset(&ls, 0, sizeof ls);
  s = ti_cli_load_nn(ctx, path, TI_CLI_FMT_NONE, &p, &err);
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
  return s == TI_STATUS_SUCCESS ? 0 : ti_cli_fail("layout", path, &err);
}

/* --------------------------------------------------------------------------- */

#include "taskir_onnx.h"   /* tools/taskir_onnx.h: import, eval, lower */
/* Standard output is checked once at the end (as coreutils do): a failed
   write or flush (a full disk, a closed pipe) is an error with its reason. */
static int close_stdout(int rc) {
  int bad = fflush(stdout) != 0;
  bad |= ferror(stdout) != 0;
  bad |= fclose(stdout) != 0;
  if (bad) {
    fprintf(stderr, "taskir: error writing standard output: %s\n", errno ? strerror(errno) : "write failed");
    return rc ? rc : 1;
  }
  return rc;
}

int main(int argc, char **argv) {
  static const struct { const char *name; int (*fn)(int, char **); } cmds[] = {
    { "demo", ti_cli_demo }, { "run", ti_cli_run }, { "convert", cmd_convert }, { "check", cmd_check },
    { "stat", cmd_stat }, { "dot", cmd_dot }, { "print", cmd_print }, { "opt", cmd_opt }, { "layout", cmd_layout },
    { "import", ti_cli_import }, { "eval", ti_cli_eval }, { "lower", ti_cli_lower },
  };
  size_t i;
  if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
    fputs(usage_text, argc < 2 ? stderr : stdout);
    return close_stdout(argc < 2 ? 2 : 0);
  }
  if (strcmp(argv[1], "--version") == 0) {
    printf("taskir %s\n", TASKIR_VERSION_STRING);
    return 0;
  }
  for (i = 0; i < sizeof cmds / sizeof *cmds; i++)
    if (strcmp(argv[1], cmds[i].name) == 0) return close_stdout(cmds[i].fn(argc - 1, argv + 1));
  fprintf(stderr, "taskir: unknown command '%s'\n\n%s", argv[1], usage_text);
  return 2;
}
