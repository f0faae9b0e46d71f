/* taskir_io.h - files, formats and messages shared by the commands of the taskir tool.

   Included by tools/taskir.c after the implementing includes. One function
   decides the format of every file a command reads or writes
   (ti_cli_format): by --format when given, else by extension, and never by
   sniffing the content:
       .pb .bin                               binary protobuf (tianjic_ir.TaskGraph)
       .txt .pbtxt .textproto .prototxt       protobuf text format
       .tir                                   the core IR text form
   `-` is standard input or output and needs --format. A .tir file holds a
   Task IR graph (task.* ops) or an nn program (nn.* ops); a command given
   the other kind says which kind it expected and which it found. */
#ifndef TASKIR_IO_H
#define TASKIR_IO_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "taskir_proto.h"

typedef enum ti_cli_fmt { TI_CLI_FMT_NONE, TI_CLI_FMT_PB, TI_CLI_FMT_TXT, TI_CLI_FMT_TIR } ti_cli_fmt;

static const char ti__cli_formats_help[] =
    "Formats by extension: .pb/.bin binary protobuf, .txt/.pbtxt/.textproto/.prototxt\n"
    "protobuf text format, .tir the core IR text form; `-` is stdin/stdout and\n"
    "needs --format pb|txt|tir (which also overrides the extension).\n";

static int ti__cli_ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), e = strlen(suffix);
  return n >= e && strcmp(s + n - e, suffix) == 0;
}

/* --format's word into a format; NONE if it is not one. */
static ti_cli_fmt ti_cli_format_word(const char *w) {
  if (!strcmp(w, "pb")) return TI_CLI_FMT_PB;
  if (!strcmp(w, "txt") || !strcmp(w, "pbtxt") || !strcmp(w, "textproto")) return TI_CLI_FMT_TXT;
  if (!strcmp(w, "tir")) return TI_CLI_FMT_TIR;
  return TI_CLI_FMT_NONE;
}

/* The format of path: forced (from --format) if not NONE, else its extension. */
static ti_status ti_cli_format(const char *path, ti_cli_fmt forced, ti_cli_fmt *fmt, ti_error *err) {
  static const char *const pb[] = {".pb", ".bin"}, *const txt[] = {".txt", ".pbtxt", ".textproto", ".prototxt"};
  size_t i;
  *fmt = forced;
  if (forced != TI_CLI_FMT_NONE) return TI_STATUS_SUCCESS;
  if (!strcmp(path, "-"))
    return ti_error_set(err, TI_STATUS_BAD_PARAM, "standard input/output needs --format pb|txt|tir");
  for (i = 0; i < sizeof pb / sizeof *pb; i++) if (ti__cli_ends_with(path, pb[i])) *fmt = TI_CLI_FMT_PB;
  for (i = 0; i < sizeof txt / sizeof *txt; i++) if (ti__cli_ends_with(path, txt[i])) *fmt = TI_CLI_FMT_TXT;
  if (ti__cli_ends_with(path, ".tir")) *fmt = TI_CLI_FMT_TIR;
  if (*fmt == TI_CLI_FMT_NONE)
    return ti_error_set(err, TI_STATUS_BAD_PARAM,
                        "unknown extension (use .pb/.bin, .txt/.pbtxt/.textproto/.prototxt or .tir, or --format pb|txt|tir)");
  return TI_STATUS_SUCCESS;
}

/* Whole file (or stdin for "-") into a malloc'd NUL-terminated buffer. The
   message does not repeat the path (callers print it once, in front). */
static char *ti_cli_read_all(const char *path, size_t *len, ti_error *err) {
  FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
  char *buf = NULL;
  size_t cap = 0, n = 0;
  *len = 0;
  if (!f) { ti_error_set(err, TI_STATUS_IO_ERROR, "cannot open: %s", strerror(errno)); return NULL; }
  for (;;) {
    size_t got;
    if (n + 65536 + 1 > cap) {
      char *nb;
      cap = cap ? cap * 2 : 1 << 16;
      nb = (char *)realloc(buf, cap);
      if (!nb) {
        free(buf);
        if (f != stdin) fclose(f);
        ti_error_set(err, TI_STATUS_NO_MEMORY, "out of memory after %lu bytes", (unsigned long)n);
        return NULL;
      }
      buf = nb;
    }
    got = fread(buf + n, 1, cap - n - 1, f);
    n += got;
    if (got == 0) break;
  }
  if (ferror(f)) {
    free(buf);
    if (f != stdin) fclose(f);
    ti_error_set(err, TI_STATUS_IO_ERROR, "cannot read: %s", strerror(errno));
    return NULL;
  }
  if (f != stdin) fclose(f);
  buf[n] = 0;
  *len = n;
  return buf;
}

/* What a parsed program is: "task" (Task IR graph), "nn", or NULL if it has
   no op of either dialect. */
static const char *ti__cli_program_dialect(const ti_program *p) {
  const ti_op *op;
  for (op = p->first; op; op = op->next)
    if (op->info && op->info->dialect && (!strcmp(op->info->dialect, "task") || !strcmp(op->info->dialect, "nn")))
      return op->info->dialect;
  return NULL;
}

/* A .tir text with both dialects registered, parsed and verified. */
static ti_status ti__cli_parse_tir(ti_context *ctx, const char *text, size_t len, ti_program **p, ti_error *err) {
  ti_status s = ti_task_register(ctx, err);
  *p = NULL;
  if (s == TI_STATUS_SUCCESS && !ti_lookup_op(ctx, "nn.relu")) s = ti_nn_register(ctx, err);
  if (s == TI_STATUS_SUCCESS) s = ti_parse_program(ctx, text, len, p, err);
  if (s == TI_STATUS_SUCCESS) s = ti_verify(*p, err);
  return s;
}

/* A Task IR graph from a file of any format. *bytes gets the file size (so
   `check` can warn about an empty file). */
static ti_status ti_cli_load_graph(ti_context *ctx, const char *path, ti_cli_fmt forced, ti_task_graph *g,
                                   size_t *bytes, ti_error *err) {
  ti_cli_fmt fmt;
  size_t len = 0;
  char *text;
  ti_status s = ti_cli_format(path, forced, &fmt, err);
  if (bytes) *bytes = 0;
  if (s != TI_STATUS_SUCCESS) return s;
  if (!(text = ti_cli_read_all(path, &len, err))) return err->status;
  if (bytes) *bytes = len;
  if (fmt == TI_CLI_FMT_PB) s = ti_task_decode(g, text, len, err);
  else if (fmt == TI_CLI_FMT_TXT) s = ti_task_parse_text(g, text, len, err);
  else {
    ti_program *p = NULL;
    s = ti__cli_parse_tir(ctx, text, len, &p, err);
    if (s == TI_STATUS_SUCCESS) {
      const char *d = ti__cli_program_dialect(p);
      if (d && !strcmp(d, "nn"))
        s = ti_error_set(err, TI_STATUS_BAD_PARAM,
                         "expected a Task IR graph (task.* ops), found an nn program (nn.* ops): "
                         "nn programs go to print, opt and layout");
      else s = ti_task_export(p, g, err);
    }
    ti_program_destroy(p);
  }
  free(text);
  return s;
}

/* A verified .tir program of either dialect; *dialect says which ("task",
   "nn" or NULL for an empty one). */
static ti_status ti_cli_load_program(ti_context *ctx, const char *path, ti_cli_fmt forced, ti_program **p,
                                     const char **dialect, ti_error *err) {
  ti_cli_fmt fmt;
  size_t len;
  char *text;
  ti_status s = ti_cli_format(path, forced, &fmt, err);
  *p = NULL;
  if (dialect) *dialect = NULL;
  if (s != TI_STATUS_SUCCESS) return s;
  if (fmt != TI_CLI_FMT_TIR)
    return ti_error_set(err, TI_STATUS_BAD_PARAM,
                        "expected an nn program (.tir of nn.* ops), found a Task IR graph in protobuf %s form",
                        fmt == TI_CLI_FMT_PB ? "binary" : "text");
  if (!(text = ti_cli_read_all(path, &len, err))) return err->status;
  s = ti__cli_parse_tir(ctx, text, len, p, err);
  free(text);
  if (s == TI_STATUS_SUCCESS && dialect) *dialect = ti__cli_program_dialect(*p);
  return s;
}

/* An nn program: like ti_cli_load_program, refusing a Task IR graph. */
static ti_status ti_cli_load_nn(ti_context *ctx, const char *path, ti_cli_fmt forced, ti_program **p, ti_error *err) {
  const char *d;
  ti_status s = ti_cli_load_program(ctx, path, forced, p, &d, err);
  if (s == TI_STATUS_SUCCESS && d && !strcmp(d, "task"))
    s = ti_error_set(err, TI_STATUS_BAD_PARAM, "expected an nn program (nn.* ops), found a Task IR graph (task.* ops)");
  return s;
}

/* Writes len bytes to path ("-": stdout), checking every write and the close. */
static ti_status ti_cli_write_bytes(const char *path, const void *data, size_t len, ti_error *err) {
  FILE *f = strcmp(path, "-") ? fopen(path, "wb") : stdout;
  int bad;
  if (!f) return ti_error_set(err, TI_STATUS_IO_ERROR, "cannot create: %s", strerror(errno));
  bad = len && fwrite(data, 1, len, f) != len;
  if (f == stdout) bad |= fflush(f) != 0 || ferror(f);
  else bad |= fclose(f) != 0;
  if (bad) return ti_error_set(err, TI_STATUS_IO_ERROR, "cannot write: %s", strerror(errno));
  return TI_STATUS_SUCCESS;
}

/* Writes a Task IR graph to path in the format ti_cli_format gives. */
static ti_status ti_cli_save_graph(ti_context *ctx, const char *path, ti_cli_fmt forced, const ti_task_graph *g,
                                   ti_error *err) {
  ti_cli_fmt fmt;
  ti_buffer b;
  ti_status s = ti_cli_format(path, forced, &fmt, err);
  if (s != TI_STATUS_SUCCESS) return s;
  ti_buffer_init(&b, NULL);
  if (fmt == TI_CLI_FMT_PB) s = ti_task_encode(g, &b, err);
  else if (fmt == TI_CLI_FMT_TXT) s = ti_task_format_text(g, &b, err);
  else {
    ti_program *p = NULL;
    s = ti_task_import(ctx, g, &p, err);
    if (s == TI_STATUS_SUCCESS) s = ti_print_program(p, &b, err);
    ti_program_destroy(p);
  }
  if (s == TI_STATUS_SUCCESS) s = ti_cli_write_bytes(path, b.data, b.len, err);
  ti_buffer_free(&b);
  return s;
}

/* "taskir CMD: PATH: message" on stderr; returns 1 (the failure exit code). */
static int ti_cli_fail(const char *cmd, const char *path, const ti_error *err) {
  fprintf(stderr, "taskir %s: ", cmd);
  if (path) fprintf(stderr, "%s: ", strcmp(path, "-") ? path : "<stdin>");
  fprintf(stderr, "%s\n", err && err->message[0] ? err->message : "failed");
  return 1;
}

/* A JSON string literal of s on f. */
static void ti_cli_json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; s && *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c == '\n') fputs("\\n", f);
    else if (c == '\t') fputs("\\t", f);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}

/* Matches an option that takes a value, as `--name VALUE` or `--name=VALUE`.
   Returns 1 and sets *value when argv[*i] is that option (advancing *i past
   a separate value), 0 when it is another argument, -1 (after a message) when
   the value is missing. */
static int ti_cli_opt_value(int argc, char **argv, int *i, const char *cmd, const char *name, const char **value) {
  size_t n = strlen(name);
  const char *a = argv[*i];
  if (strncmp(a, name, n) != 0) return 0;
  if (a[n] == '=') {
    *value = a + n + 1;
    if (!**value) { fprintf(stderr, "taskir %s: %s needs a value\n", cmd, name); return -1; }
    return 1;
  }
  if (a[n] != 0) return 0;
  if (*i + 1 >= argc || (argv[*i + 1][0] == '-' && argv[*i + 1][1] == '-')) {
    fprintf(stderr, "taskir %s: %s needs a value\n", cmd, name);
    return -1;
  }
  *value = argv[++*i];
  return 1;
}

/* --format's value into *fmt; 0 (after a message) if it is not a format. */
static int ti_cli_opt_format(const char *cmd, const char *v, ti_cli_fmt *fmt) {
  *fmt = ti_cli_format_word(v);
  if (*fmt == TI_CLI_FMT_NONE) { fprintf(stderr, "taskir %s: --format wants pb, txt or tir, got '%s'\n", cmd, v); return 0; }
  return 1;
}

#endif /* TASKIR_IO_H */
