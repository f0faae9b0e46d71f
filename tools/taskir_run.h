/* taskir_run.h - the `taskir run` and `taskir demo` commands of the taskir tool.

   Included by tools/taskir.c after the implementing includes; defines
       static int ti_cli_run(int argc, char **argv);    argv[0] == "run"
       static int ti_cli_demo(int argc, char **argv);   argv[0] == "demo"
   Both return the process exit code (0 success, 1 failure, 2 bad usage) and
   print a clear message on stderr for every failure. */
#ifndef TASKIR_RUN_H
#define TASKIR_RUN_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(_WIN32)
#include <direct.h>
#include <io.h>
#define TI__CLI_MKDIR(p) _mkdir(p)
static int ti__cli_isatty_stderr(void) { return _isatty(2); }
#else
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#define TI__CLI_MKDIR(p) mkdir((p), 0777)
static int ti__cli_isatty_stderr(void) { return isatty(2); }
#endif

#include "taskir_proto.h"
#include "taskir_exec.h"
#include "taskir_pool.h"

/* A Task IR graph, or a model / nn program lowered (tools/taskir_onnx.h). */
static ti_status ti_cli_load_runnable(ti_context *ctx, const char *path, ti_cli_fmt forced, const char *const *dim_args,
                                      int32_t n_dim_args, ti_task_graph *g, ti_error *err);

static const char ti__cli_run_usage[] =
    "usage: taskir run FILE [--input SOCKET=FILE]... [--steps N] [--out DIR] [--all]\n"
    "                  [--out-format txt|npy] [--trace DIR] [--profile] [--json] [--format F]\n"
    "                  [--max-memory BYTES] [--threads N] [--parallel-min W] [--dim NAME=V]...\n"
    "\n"
    "Executes a Task IR graph (FILE: .pb, .txt/.pbtxt/.textproto, .tir, or - with\n"
    "--format pb|txt|tir); an ONNX model (.onnx) or an integer nn program (.tir of\n"
    "nn.* ops) is lowered to Task IR first, as taskir lower does.\n"
    "Exit status: 0 success, 1 failure, 2 bad usage.\n"
    "  --input SOCKET=FILE  feed INPUT socket SOCKET from FILE: a text file of one\n"
    "                       number per line (# comments and blank lines skipped), or\n"
    "                       a .npy array; values in y, x, f order. FILE holds one\n"
    "                       frame (fed at every step) or N frames (--steps N: frame t\n"
    "                       at step t). A FILE containing %d is one file per step\n"
    "                       (printf-style, t = 0..N-1). Values are checked against\n"
    "                       the INPUT's precision; NaN and Inf are refused.\n"
    "  --steps N            run N time steps, 1..100000000 (SNN: CLIF state persists)\n"
    "  --out DIR            write DIR/o_<block_id>.txt (or .npy) for every OUTPUT block\n"
    "                       after the last step; without it outputs are printed\n"
    "  --all                with --out, also DIR/<block_id>.txt for every block\n"
    "  --out-format F       txt (one value per line, storage order) or npy (an array\n"
    "                       with the block's shape)\n"
    "  --trace DIR          every step's outputs: DIR/o_<block_id>.trace.txt, one line\n"
    "                       per step (a spike raster for CLIF outputs), or .trace.npy\n"
    "                       of shape [N, ...] with --out-format npy\n"
    "  --profile            on stderr: plan time, run time, per block type and per\n"
    "                       block (id, type, kernel path, time, MACs, bytes)\n"
    "  --json               with --profile: the profile as one JSON object on stderr\n"
    "  --max-memory BYTES   memory budget of the plan (suffix K, M or G; default 1G);\n"
    "                       a graph needing more is refused before it is allocated\n"
    "  --threads N          threads the kernels split their work over, 1..256\n"
    "                       (default 1; 0 = the number of online CPUs); outputs are\n"
    "                       identical whatever N\n"
    "  --parallel-min W     with --threads: blocks of less work (MACs / 16 for convs\n"
    "                       and FC, else outputs x window taps) and copies of fewer\n"
    "                       elements stay on one thread (default 32768; 1048576\n"
    "                       where the convs run on AMX-INT8)\n"
    "  --dim NAME=V         with a .onnx model: bind a symbolic dim of its inputs\n"
    "  Progress (steps done / total, rate) goes to stderr when it is a terminal.\n";

#define TI__CLI_MAX_STEPS 100000000L

/* The range a value of precision p may take (p as stored by Task IR). */
static void ti__cli_range(ti_dtype p, double *lo, double *hi) {
  switch (p) {
  case TI_DTYPE_I8: *lo = -128; *hi = 127; break;
  case TI_DTYPE_U8: *lo = 0; *hi = 255; break;
  case TI_DTYPE_I16: *lo = -32768; *hi = 32767; break;
  case TI_DTYPE_U16: *lo = 0; *hi = 65535; break;
  case TI_DTYPE_U32: *lo = 0; *hi = 4294967295.0; break;
  case TI_DTYPE_TERNARY: *lo = -1; *hi = 1; break;
  case TI_DTYPE_I28: *lo = -134217728.0; *hi = 134217727.0; break;
  case TI_DTYPE_U4: *lo = 0; *hi = 15; break;
  case TI_DTYPE_I9: *lo = -256; *hi = 255; break;
  case TI_DTYPE_BOOL: *lo = 0; *hi = 1; break;
  case TI_DTYPE_F16: *lo = -65504.0; *hi = 65504.0; break;
  case TI_DTYPE_F32: case TI_DTYPE_F64: *lo = -3.4028234663852886e38; *hi = 3.4028234663852886e38; break;
  default: *lo = -2147483648.0; *hi = 2147483647.0; break;   /* I32, I64: carried in 32 bits */
  }
}

/* Values read for one INPUT socket: frames of `count` values. */
typedef struct ti__cli_values {
  int is_float;
  ti_dtype prec;
  int64_t count, max_frames;
  int64_t n, cap;
  int32_t *iv;
  float *fv;
  const char *path;
  const char *cmd;   /* the command its messages name: "run" (NULL), "eval" */
} ti__cli_values;

static const char *ti__cli_cmd(const ti__cli_values *v) { return v->cmd ? v->cmd : "run"; }

static int ti__cli_push(ti__cli_values *v, double d, const char *where) {
  double lo, hi;
  const char *pn = ti_precision_name(v->prec);
  if (d != d || d - d != 0) {   /* NaN or +-Inf */
    fprintf(stderr, "taskir %s: %s: %s is not a finite number (NaN and Inf are refused)\n", ti__cli_cmd(v), where, d != d ? "NaN" : "Inf");
    return 0;
  }
  ti__cli_range(v->prec, &lo, &hi);
  if (d < lo || d > hi) {
    fprintf(stderr, "taskir %s: %s: %.9g is out of range for %s (%.9g..%.9g)\n", ti__cli_cmd(v), where, d, pn ? pn : "this INPUT", lo, hi);
    return 0;
  }
  if (!v->is_float && d != (double)(int64_t)d) {
    fprintf(stderr, "taskir %s: %s: %.9g is not an integer (the INPUT is %s)\n", ti__cli_cmd(v), where, d, pn ? pn : "integer");
    return 0;
  }
  if (v->n >= v->count * v->max_frames) {
    fprintf(stderr, "taskir %s: %s: more values than the INPUT takes (%lld per step%s)\n", ti__cli_cmd(v), where, (long long)v->count,
            v->max_frames > 1 ? ", one frame per step" : "");
    return 0;
  }
  if (v->n == v->cap) {
    int64_t nc = v->cap ? v->cap * 2 : 1024;
    void *nb;
    if (nc > v->count * v->max_frames) nc = v->count * v->max_frames;
    nb = v->is_float ? realloc(v->fv, (size_t)nc * sizeof *v->fv) : realloc(v->iv, (size_t)nc * sizeof *v->iv);
    if (!nb) { fprintf(stderr, "taskir %s: %s: out of memory\n", ti__cli_cmd(v), where); return 0; }
    if (v->is_float) v->fv = (float *)nb; else v->iv = (int32_t *)nb;
    v->cap = nc;
  }
  if (v->is_float) v->fv[v->n++] = (float)d;
  else v->iv[v->n++] = (int32_t)(uint32_t)(int64_t)d;   /* U32 above 2^31 wraps, as integers are carried */
  return 1;
}

/* A text file of one number per line. Stops at the first problem: binary data
   (a NUL or control byte), a surplus value, a value out of range. Memory is
   bounded by what the INPUT takes, and a token by the file's size. */
static int ti__cli_read_text(FILE *f, ti__cli_values *v) {
  char *tok = NULL;
  size_t len = 0, cap = 0;
  long long line = 1, offset = 0;
  int c, ok = 1, in_comment = 0, have_value = 0;
  char where[4200];
  for (;;) {
    c = getc(f);
    if (c != EOF) offset++;
    if (c != EOF && (c == 0 || (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\v' && c != '\f') || c == 0x7f)) {
      fprintf(stderr, "taskir %s: %s:%lld: binary data (byte 0x%02x at offset %lld): expected one number per line or a .npy file\n", ti__cli_cmd(v),
              v->path, line, c, offset - 1);
      ok = 0;
      break;
    }
    if (in_comment && c != '\n' && c != EOF) continue;
    if (c == '#' && !len) { in_comment = 1; continue; }
    if (c == EOF || c == '\n' || c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f') {
      if (len) {
        char *end;
        double d;
        tok[len] = 0;
        snprintf(where, sizeof where, "%s:%lld", v->path, line);
        if (have_value) {
          fprintf(stderr, "taskir %s: %s: a second value on the line ('%.40s'): one number per line\n", ti__cli_cmd(v), where, tok);
          ok = 0;
          break;
        }
        errno = 0;
        if (v->is_float) d = strtod(tok, &end);
        else d = (double)strtoll(tok, &end, 10);
        if (end == tok || *end) {
          fprintf(stderr, "taskir %s: %s: '%.40s%s' is not %s\n", ti__cli_cmd(v), where, tok, len > 40 ? "..." : "",
                  v->is_float ? "a number" : "an integer");
          ok = 0;
          break;
        }
        if (errno == ERANGE && (!v->is_float || d > 1 || d < -1)) {   /* too large; float underflow reads as 0 */
          const char *pn = ti_precision_name(v->prec);
          fprintf(stderr, "taskir %s: %s: '%.40s%s' is out of range for %s\n", ti__cli_cmd(v), where, tok, len > 40 ? "..." : "",
                  pn ? pn : "this INPUT");
          ok = 0;
          break;
        }
        if (!ti__cli_push(v, d, where)) { ok = 0; break; }
        have_value = 1;
        len = 0;
      }
      if (c == '\n') { line++; in_comment = 0; have_value = 0; }
      if (c == EOF) break;
      continue;
    }
    if (len + 2 > cap) {
      char *nt;
      cap = cap ? cap * 2 : 64;
      if (!(nt = (char *)realloc(tok, cap))) { fprintf(stderr, "taskir %s: %s:%lld: out of memory\n", ti__cli_cmd(v), v->path, line); ok = 0; break; }
      tok = nt;
    }
    tok[len++] = (char)c;
  }
  if (ok && ferror(f)) { fprintf(stderr, "taskir %s: %s: read error: %s\n", ti__cli_cmd(v), v->path, strerror(errno)); ok = 0; }
  free(tok);
  return ok;
}

/* A .npy array (version 1-3, little- or big-endian i1..i8, u1..u8, f4, f8, C
   order): every element, checked as the text values are. */
static int ti__cli_read_npy(FILE *f, ti__cli_values *v) {
  unsigned char pre[12];
  char *hdr = NULL, descr[8] = {0}, *p, where[4200];
  size_t hlen, esize, k, nel = 1, got;
  int kind, big, ok = 0, ndim = 0;
  if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0) {
    fprintf(stderr, "taskir %s: %s: not a .npy file (no \\x93NUMPY magic)\n", ti__cli_cmd(v), v->path);
    return 0;
  }
  if (pre[6] == 1) hlen = pre[8] | (size_t)pre[9] << 8;
  else if (pre[6] == 2 || pre[6] == 3) {
    if (fread(pre + 10, 1, 2, f) != 2) { fprintf(stderr, "taskir %s: %s: truncated .npy header\n", ti__cli_cmd(v), v->path); return 0; }
    hlen = pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
  } else { fprintf(stderr, "taskir %s: %s: .npy version %d is not supported (1, 2, 3 are)\n", ti__cli_cmd(v), v->path, pre[6]); return 0; }
  if (hlen > 65536) { fprintf(stderr, "taskir %s: %s: .npy header of %lu bytes is too long\n", ti__cli_cmd(v), v->path, (unsigned long)hlen); return 0; }
  if (!(hdr = (char *)malloc(hlen + 1))) { fprintf(stderr, "taskir %s: %s: out of memory\n", ti__cli_cmd(v), v->path); return 0; }
  if (fread(hdr, 1, hlen, f) != hlen) { fprintf(stderr, "taskir %s: %s: truncated .npy header\n", ti__cli_cmd(v), v->path); goto done; }
  hdr[hlen] = 0;
  if (!(p = strstr(hdr, "'descr'")) || !(p = strchr(p + 7, '\'')) || sscanf(p + 1, "%7[^']", descr) != 1 ||
      strlen(descr) != 3 || !strchr("<>|", descr[0]) || !strchr("iuf", descr[1]) || !strchr("1248", descr[2])) {
    fprintf(stderr, "taskir %s: %s: .npy dtype '%s' is not supported (i1..i8, u1..u8, f4, f8)\n", ti__cli_cmd(v), v->path, descr);
    goto done;
  }
  kind = descr[1];
  big = descr[0] == '>';
  esize = (size_t)(descr[2] - '0');
  if (kind == 'f' && esize < 4) { fprintf(stderr, "taskir %s: %s: .npy dtype '%s' is not supported (f4, f8)\n", ti__cli_cmd(v), v->path, descr); goto done; }
  if ((p = strstr(hdr, "'fortran_order'")) && (p = strchr(p + 15, ':')) && strncmp(p + 1 + strspn(p + 1, " "), "True", 4) == 0) {
    fprintf(stderr, "taskir %s: %s: Fortran-order .npy arrays are not supported (save with C order)\n", ti__cli_cmd(v), v->path);
    goto done;
  }
  if (!(p = strstr(hdr, "'shape'")) || !(p = strchr(p, '('))) { fprintf(stderr, "taskir %s: %s: .npy header has no shape\n", ti__cli_cmd(v), v->path); goto done; }
  for (p++; *p && *p != ')';) {
    char *end;
    long long d;
    while (*p == ' ' || *p == ',') p++;
    if (*p == ')') break;
    d = strtoll(p, &end, 10);
    if (end == p || d < 0) { fprintf(stderr, "taskir %s: %s: bad .npy shape\n", ti__cli_cmd(v), v->path); goto done; }
    if (d && (size_t)d > (size_t)(v->count * v->max_frames) / nel + 1) nel = (size_t)-1;
    else nel *= (size_t)d;
    ndim++;
    p = end;
  }
  if (nel != (size_t)v->count && nel != (size_t)(v->count * v->max_frames)) {
    fprintf(stderr, "taskir %s: %s: the array holds %s%llu values, the INPUT takes %lld%s\n", ti__cli_cmd(v), v->path,
            nel == (size_t)-1 ? "more than " : "", nel == (size_t)-1 ? (unsigned long long)(v->count * v->max_frames)
                                                                       : (unsigned long long)nel,
            (long long)v->count, v->max_frames > 1 ? " (or that times --steps)" : "");
    goto done;
  }
  for (k = 0; k < nel; k++) {
    unsigned char e[8];
    uint64_t u = 0;
    double d;
    size_t b;
    if ((got = fread(e, 1, esize, f)) != esize) {
      fprintf(stderr, "taskir %s: %s: the data ends at element %lu of %lu\n", ti__cli_cmd(v), v->path, (unsigned long)k, (unsigned long)nel);
      goto done;
    }
    for (b = 0; b < esize; b++) u |= (uint64_t)e[big ? b : esize - 1 - b] << (8 * (esize - 1 - b));
    if (kind == 'f' && esize == 4) { float fl; uint32_t u32 = (uint32_t)u; memcpy(&fl, &u32, 4); d = fl; }
    else if (kind == 'f') memcpy(&d, &u, 8);
    else if (kind == 'u') d = (double)u;
    else {
      int64_t sv = esize == 8 ? (int64_t)u : (int64_t)(u ^ (1ull << (8 * esize - 1))) - (int64_t)(1ull << (8 * esize - 1));
      d = (double)sv;
    }
    snprintf(where, sizeof where, "%s: element %lu", v->path, (unsigned long)k);
    if (!ti__cli_push(v, d, where)) goto done;
  }
  (void)ndim;
  ok = 1;
done:
  free(hdr);
  return ok;
}

static int ti__cli_has_npy(const char *path);

/* Reads path (text or .npy by extension) into v. */
static int ti__cli_read_values(const char *path, ti__cli_values *v) {
  FILE *f = fopen(path, "rb");
  int ok;
  v->path = path;
  if (!f) { fprintf(stderr, "taskir %s: cannot open input file '%s': %s\n", ti__cli_cmd(v), path, strerror(errno)); return 0; }
  ok = ti__cli_has_npy(path) ? ti__cli_read_npy(f, v) : ti__cli_read_text(f, v);
  fclose(f);
  return ok;
}

/* --- output ---------------------------------------------------------------- */

static int ti__cli_has_npy(const char *path) {
  size_t n = strlen(path);
  return n >= 4 && strcmp(path + n - 4, ".npy") == 0;
}

/* A .npy v1 header for count values of t's dtype with shape [lead,] dims. */
static void ti__cli_npy_header(FILE *f, const ti_exec_tensor *t, int64_t lead) {
  char hdr[256];
  int n, i, pad;
  n = snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': False, 'shape': (", t->dtype == TI_DTYPE_F32 ? "<f4" : "<i4");
  if (lead >= 0) n += snprintf(hdr + n, sizeof hdr - (size_t)n, "%lld, ", (long long)lead);
  for (i = 0; i < t->rank; i++) n += snprintf(hdr + n, sizeof hdr - (size_t)n, "%lld, ", (long long)t->dims[i]);
  if (t->rank + (lead >= 0) == 1) n -= 1;   /* (k,) */
  else if (t->rank + (lead >= 0) > 1) n -= 2;
  n += snprintf(hdr + n, sizeof hdr - (size_t)n, "), }");
  pad = 64 - (10 + n + 1) % 64;
  if (pad == 64) pad = 0;
  fwrite("\x93NUMPY\x01\x00", 1, 8, f);
  fputc((n + pad + 1) & 0xff, f);
  fputc((n + pad + 1) >> 8, f);
  fwrite(hdr, 1, (size_t)n, f);
  for (i = 0; i < pad; i++) fputc(' ', f);
  fputc('\n', f);
}

static void ti__cli_npy_data(FILE *f, const ti_exec_tensor *t) {
  int64_t k;
  for (k = 0; k < t->count; k++) {
    unsigned char e[4];
    uint32_t u;
    int b;
    if (t->dtype == TI_DTYPE_F32) { float fl = (float)ti_exec_tensor_f64(t, k); memcpy(&u, &fl, 4); }
    else u = (uint32_t)(int32_t)ti_exec_tensor_i64(t, k);
    for (b = 0; b < 4; b++) e[b] = (unsigned char)(u >> (8 * b));
    fwrite(e, 1, 4, f);
  }
}

static void ti__cli_write_tensor(FILE *f, const ti_exec_tensor *t, const char *sep) {
  int64_t k;
  for (k = 0; k < t->count; k++) {
    if (t->dtype == TI_DTYPE_F32) fprintf(f, "%.9g%s", ti_exec_tensor_f64(t, k), k + 1 < t->count ? sep : "\n");
    else fprintf(f, "%lld%s", (long long)ti_exec_tensor_i64(t, k), k + 1 < t->count ? sep : "\n");
  }
  if (!t->count) fputc('\n', f);
}

static int ti__cli_save_tensor(const char *dir, const char *prefix, int32_t id, const ti_exec_tensor *t, int npy) {
  char path[4096];
  FILE *f;
  int ok;
  snprintf(path, sizeof path, "%s/%s%d.%s", dir, prefix, (int)id, npy ? "npy" : "txt");
  if (!(f = fopen(path, "wb"))) { fprintf(stderr, "taskir run: cannot write '%s': %s\n", path, strerror(errno)); return 0; }
  if (npy) { ti__cli_npy_header(f, t, -1); ti__cli_npy_data(f, t); }
  else ti__cli_write_tensor(f, t, "\n");
  ok = !ferror(f);
  if (fclose(f) != 0 || !ok) { fprintf(stderr, "taskir run: error writing '%s': %s\n", path, strerror(errno)); return 0; }
  return 1;
}

static void ti__cli_print_dims(FILE *f, const ti_exec_tensor *t) {
  int32_t i;
  for (i = 0; i < t->rank; i++) fprintf(f, "%s%lld", i ? "x" : "", (long long)t->dims[i]);
}

static int ti__cli_mkdir(const char *dir) {
  if (TI__CLI_MKDIR(dir) != 0 && errno != EEXIST) {
    fprintf(stderr, "taskir run: cannot create directory '%s': %s\n", dir, strerror(errno));
    return 0;
  }
  return 1;
}

static void ti__cli_print_profile(FILE *f, const ti_exec *x, double plan_seconds, int json) {
  const ti_exec_profile *p = ti_exec_get_profile(x);
  ti_exec_block_profile bp;
  ti_exec_info info;
  int t;
  double tot = p->total_seconds > 0 ? p->total_seconds : 1e-12;
  int64_t data;
  ti_exec_get_info(x, &info);
  data = info.arena_bytes + info.persistent_bytes + info.packed_bytes + info.scratch_bytes;
  if (json) {
    fprintf(f, "{\"plan_ms\": %.6f, \"runs\": %lld, \"run_ms\": %.6f, \"kernel_ms\": %.6f, \"copy_ms\": %.6f, "
               "\"macs\": %lld, \"edge_bytes\": %lld, \"copied_bytes\": %lld, \"plan_bytes\": %lld, \"data_bytes\": %lld, "
               "\"block_bytes\": %lld, \"by_type\": [",
            plan_seconds * 1e3, (long long)p->runs, p->total_seconds * 1e3, p->kernel_seconds * 1e3, p->copy_seconds * 1e3,
            (long long)p->macs, (long long)p->edge_bytes, (long long)p->copied_bytes, (long long)info.plan_bytes,
            (long long)data, (long long)info.block_bytes);
    for (t = 0, data = 0; t < TI_BLOCK_COUNT; t++)
      if (p->block_calls[t] || p->block_seconds[t] > 0)
        fprintf(f, "%s{\"type\": \"%s\", \"calls\": %lld, \"ms\": %.6f}", data++ ? ", " : "",
                ti_block_type_name((ti_block_type)t), (long long)p->block_calls[t], p->block_seconds[t] * 1e3);
    fprintf(f, "], \"blocks\": [");
    for (t = 0; ti_exec_get_block_profile(x, t, &bp); t++)
      fprintf(f, "%s{\"id\": %d, \"type\": \"%s\", \"kernel\": \"%s\", \"calls\": %lld, \"ms\": %.6f, \"macs\": %lld, "
                 "\"bytes\": %lld}", t ? ", " : "", (int)bp.block_id, ti_block_type_name(bp.type), bp.kernel,
              (long long)bp.calls, bp.seconds * 1e3, (long long)bp.macs, (long long)bp.bytes);
    fprintf(f, "]}\n");
    return;
  }
  fprintf(f, "profile: plan %.6f ms; %lld run(s), %.6f ms in runs (%.6f ms per run)\n", plan_seconds * 1e3,
          (long long)p->runs, p->total_seconds * 1e3, p->runs ? p->total_seconds * 1e3 / (double)p->runs : 0.0);
  fprintf(f, "  kernels %.1f%%, data movement %.1f%%\n", 100.0 * p->kernel_seconds / tot, 100.0 * p->copy_seconds / tot);
  for (t = 0; t < TI_BLOCK_COUNT; t++)
    if (p->block_calls[t] || p->block_seconds[t] > 0) {
      char what[32];
      if (p->block_calls[t]) snprintf(what, sizeof what, "%lld call(s)", (long long)p->block_calls[t]);
      else snprintf(what, sizeof what, "copies into it");
      fprintf(f, "  %-6s %-15s %12.6f ms %5.1f%%\n", ti_block_type_name((ti_block_type)t), what,
              p->block_seconds[t] * 1e3, 100.0 * p->block_seconds[t] / tot);
    }
  fprintf(f, "  MACs %lld, edge traffic %lld bytes (%lld copied)\n", (long long)p->macs, (long long)p->edge_bytes,
          (long long)p->copied_bytes);
  fprintf(f, "  %6s %-6s %-11s %8s %12s %14s %12s\n", "block", "type", "kernel", "calls", "ms", "MACs", "bytes in");
  for (t = 0; ti_exec_get_block_profile(x, t, &bp); t++)
    if (bp.calls || bp.bytes)
      fprintf(f, "  %6d %-6s %-11s %8lld %12.6f %14lld %12lld\n", (int)bp.block_id, ti_block_type_name(bp.type), bp.kernel,
              (long long)bp.calls, bp.seconds * 1e3, (long long)bp.macs, (long long)bp.bytes);
  fprintf(f, "  plan memory %lld bytes: data %lld (arena %lld reused, constants/state %lld, packed weights %lld, "
             "scratch %lld) + bookkeeping %lld; the blocks at their precision: %lld bytes\n",
          (long long)info.plan_bytes, (long long)data, (long long)info.arena_bytes, (long long)info.persistent_bytes,
          (long long)info.packed_bytes, (long long)info.scratch_bytes, (long long)(info.plan_bytes - data),
          (long long)info.block_bytes);
}

/* Wall-clock seconds (monotonic where the system has one): progress rates
   and --profile times are elapsed time, not CPU time. */
static double ti__cli_now(void) {
#if defined(CLOCK_MONOTONIC)
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) == 0) return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
#endif
  return (double)clock() / CLOCKS_PER_SEC;
}
static double ti__cli_clock(void *user) { (void)user; return ti__cli_now(); }

/* Online CPUs (at least 1, at most TI_POOL_MAX_THREADS): --threads 0. */
static int ti__cli_online_cpus(void) {
#if defined(_SC_NPROCESSORS_ONLN)
  long c = sysconf(_SC_NPROCESSORS_ONLN);
  if (c > TI_POOL_MAX_THREADS) c = TI_POOL_MAX_THREADS;
  return c >= 1 ? (int)c : 1;
#else
  return 1;
#endif
}

/* One --input: the socket and the file (or a per-step pattern with %d). */
typedef struct ti__cli_input { long socket; const char *file; int per_step; } ti__cli_input;

/* Is a pattern a safe printf format with exactly one %d (and %% escapes)? */
static int ti__cli_step_pattern(const char *s) {
  int n = 0;
  for (; *s; s++)
    if (*s == '%') {
      if (s[1] == '%') s++;
      else if (s[1] == 'd') { n++; s++; }
      else return -1;
    }
  return n == 1 ? 1 : n == 0 ? 0 : -1;
}

static int ti_cli_run(int argc, char **argv) {
  const char *file = NULL, *out_dir = NULL, *trace_dir = NULL, *v;
  long steps = 1, t;
  int64_t max_memory = 0;
  long threads = 1;
  long long parallel_min = 0;
  ti_pool *pool = NULL;
  int all = 0, profile = 0, json = 0, npy = 0, i, r, rc = 1, progress;
  int32_t j, k, n_in_args = 0, n_out_blocks = 0, n_dim_args = 0;
  const char *dim_args[64];
  ti_cli_fmt fmt = TI_CLI_FMT_NONE;
  ti__cli_input *ins = NULL;
  ti__cli_values *vals = NULL;
  FILE **traces = NULL;
  ti_task_graph g;
  ti_context *ctx = NULL;
  ti_error err;
  ti_exec *x = NULL;
  ti_exec_options o;
  double plan_seconds = 0, t0;
  ti_error_clear(&err);
  ti_task_graph_init(&g, NULL);
  if (!(ins = (ti__cli_input *)calloc((size_t)argc, sizeof *ins))) { fprintf(stderr, "taskir run: out of memory\n"); return 1; }
  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) { fputs(ti__cli_run_usage, stdout); free(ins); return 0; }
    if ((r = ti_cli_opt_value(argc, argv, &i, "run", "--input", &v)) != 0) {
      const char *eq;
      char *end;
      if (r < 0) goto usage;
      eq = strchr(v, '=');
      ins[n_in_args].socket = strtol(v, &end, 10);
      if (!eq || end != eq || eq == v || !eq[1]) {
        fprintf(stderr, "taskir run: --input wants SOCKET=FILE (SOCKET a number), got '%s'\n", v);
        goto usage;
      }
      ins[n_in_args].file = eq + 1;
      if ((ins[n_in_args].per_step = ti__cli_step_pattern(eq + 1)) < 0) {
        fprintf(stderr, "taskir run: --input %s: a per-step file name takes one %%d (and %%%% for a %%)\n", v);
        goto usage;
      }
      for (k = 0; k < n_in_args; k++)
        if (ins[k].socket == ins[n_in_args].socket) {
          fprintf(stderr, "taskir run: --input given twice for socket %ld\n", ins[k].socket);
          goto usage;
        }
      n_in_args++;
    } else if ((r = ti_cli_opt_value(argc, argv, &i, "run", "--steps", &v)) != 0) {
      char *end;
      if (r < 0) goto usage;
      errno = 0;
      steps = strtol(v, &end, 10);
      if (*end || errno || steps < 1 || steps > TI__CLI_MAX_STEPS) {
        fprintf(stderr, "taskir run: --steps wants an integer in 1..%ld, got '%s'\n", TI__CLI_MAX_STEPS, v);
        goto usage;
      }
    } else if ((r = ti_cli_opt_value(argc, argv, &i, "run", "--out", &v)) != 0) { if (r < 0) goto usage; out_dir = v; }
    else if ((r = ti_cli_opt_value(argc, argv, &i, "run", "--trace", &v)) != 0) { if (r < 0) goto usage; trace_dir = v; }
    else if ((r = ti_cli_opt_value(argc, argv, &i, "run", "--out-format", &v)) != 0) {
      if (r < 0) goto usage;
      if (!strcmp(v, "npy")) npy = 1;
      else if (strcmp(v, "txt")) { fprintf(stderr, "taskir run: --out-format wants txt or npy, got '%s'\n", v); goto usage; }
    } else if ((r = ti_cli_opt_value(argc, argv, &i, "run", "--format", &v)) != 0) {
      if (r < 0 || !ti_cli_opt_format("run", v, &fmt)) goto usage;
    } else if ((r = ti_cli_opt_value(argc, argv, &i, "run", "--max-memory", &v)) != 0) {
      char *end;
      double m;
      if (r < 0) goto usage;
      m = strtod(v, &end);
      if (*end == 'k' || *end == 'K') { m *= 1024.0; end++; }
      else if (*end == 'M') { m *= 1048576.0; end++; }
      else if (*end == 'G') { m *= 1073741824.0; end++; }
      if (*end || !(m >= 1) || m > 9.0e18) {
        fprintf(stderr, "taskir run: --max-memory wants BYTES (suffix K, M or G), got '%s'\n", v);
        goto usage;
      }
      max_memory = (int64_t)m;
    } else if ((r = ti_cli_opt_value(argc, argv, &i, "run", "--threads", &v)) != 0) {
      char *end;
      if (r < 0) goto usage;
      errno = 0;
      threads = strtol(v, &end, 10);
      if (end == v || *end || errno || threads < 0 || threads > TI_POOL_MAX_THREADS) {
        fprintf(stderr, "taskir run: --threads wants an integer in 0..%d (0 = online CPUs), got '%s'\n",
                TI_POOL_MAX_THREADS, v);
        goto usage;
      }
    } else if ((r = ti_cli_opt_value(argc, argv, &i, "run", "--parallel-min", &v)) != 0) {
      char *end;
      if (r < 0) goto usage;
      errno = 0;
      parallel_min = strtoll(v, &end, 10);
      if (end == v || *end || errno || parallel_min < 1) {
        fprintf(stderr, "taskir run: --parallel-min wants a positive integer (work units), got '%s'\n", v);
        goto usage;
      }
    } else if ((r = ti_cli_opt_value(argc, argv, &i, "run", "--dim", &v)) != 0) {
      if (r < 0) goto usage;
      if (n_dim_args == 64) { fprintf(stderr, "taskir run: more than 64 --dim\n"); goto usage; }
      dim_args[n_dim_args++] = v;
    } else if (!strcmp(a, "--all")) all = 1;
    else if (!strcmp(a, "--profile")) profile = 1;
    else if (!strcmp(a, "--json")) json = 1;
    else if (a[0] == '-' && a[1]) { fprintf(stderr, "taskir run: unknown option '%s'\n", a); goto usage; }
    else if (file) { fprintf(stderr, "taskir run: more than one graph file ('%s', '%s')\n", file, a); goto usage; }
    else file = a;
  }
  if (!file) { fprintf(stderr, "taskir run: no graph file given\n"); goto usage; }
  if (all && !out_dir) { fprintf(stderr, "taskir run: --all needs --out DIR\n"); goto usage; }
  if (json && !profile) { fprintf(stderr, "taskir run: --json goes with --profile\n"); goto usage; }
  if (npy && !out_dir && !trace_dir) { fprintf(stderr, "taskir run: --out-format needs --out DIR or --trace DIR\n"); goto usage; }
  if (!(ctx = ti_context_create(NULL))) { fprintf(stderr, "taskir run: out of memory\n"); goto done; }
  if (ti_cli_load_runnable(ctx, file, fmt, dim_args, n_dim_args, &g, &err) != TI_STATUS_SUCCESS) { ti_cli_fail("run", file, &err); goto done; }
  for (j = 0; j < g.n_blocks; j++) n_out_blocks += g.blocks[j].type == TI_BLOCK_OUTPUT;
  if (!n_out_blocks) {
    fprintf(stderr, "taskir run: %s: the graph has no OUTPUT block (%d blocks): running it would produce nothing\n", file,
            (int)g.n_blocks);
    goto done;
  }
  {   /* every INPUT socket fed, every --input a socket of the graph: said before planning, which may take long */
    int32_t n_in = ti_exec_graph_inputs(&g, NULL, NULL, 0);
    int32_t *socks = (int32_t *)malloc(((size_t)n_in + 1) * sizeof *socks);
    int64_t *cnts = (int64_t *)malloc(((size_t)n_in + 1) * sizeof *cnts);
    int bad = 0;
    if (!socks || !cnts) { free(socks); free(cnts); fprintf(stderr, "taskir run: out of memory\n"); goto done; }
    ti_exec_graph_inputs(&g, socks, cnts, n_in);
    for (i = 0; i < n_in_args && !bad; i++) {
      for (k = 0; k < n_in && socks[k] != ins[i].socket; k++) {}
      if (k == n_in) {
        fprintf(stderr, "taskir run: %s has no INPUT socket %ld (it has:", file, ins[i].socket);
        for (k = 0; k < n_in; k++) fprintf(stderr, " %d", (int)socks[k]);
        fprintf(stderr, "%s)\n", n_in ? "" : " none");
        bad = 1;
      }
    }
    for (k = 0; k < n_in && !bad; k++) {
      for (i = 0; i < n_in_args && ins[i].socket != socks[k]; i++) {}
      if (i == n_in_args) {
        fprintf(stderr, "taskir run: INPUT socket %d needs values: add --input %d=FILE (%lld values, y,x,f order)\n",
                (int)socks[k], (int)socks[k], (long long)cnts[k]);
        bad = 1;
      }
    }
    free(socks); free(cnts);
    if (bad) goto done;
  }
  ti_exec_options_init(&o);
  o.keep_all = all;
  o.profile = profile;
  if (max_memory) o.max_bytes = max_memory;
  o.clock = ti__cli_clock;
  if (threads == 0) threads = ti__cli_online_cpus();
  if (threads > 1) {
    if (ti_pool_create(&pool, (int)threads) != 0) {
      fprintf(stderr, "taskir run: --threads %ld: could not start the threads\n", threads);
      goto done;
    }
    o.parallel_for = ti_pool_parallel_for;
    o.parallel_user = pool;
  }
  o.threads = (int)threads;
  o.parallel_min = (int64_t)parallel_min;
  t0 = ti__cli_now();
  if (ti_exec_plan(&g, &o, &x, &err) != TI_STATUS_SUCCESS) {
    ti_diag_list dl;
    ti_cli_fail("run", file, &err);
    /* list every checker problem, not only the first */
    ti_diag_list_init(&dl, NULL);
    if (ti_task_check(&g, &dl, NULL) != TI_STATUS_SUCCESS)
      for (j = 0; j < dl.n; j++)
        if (dl.items[j].severity == TI_DIAG_ERROR) {   /* the location by `at`: an id may itself be -1 */
          fprintf(stderr, "  error [%s]", dl.items[j].rule);
          if (dl.items[j].at & TI_DIAG_AT_BLOCK) fprintf(stderr, " block %d", (int)dl.items[j].block_id);
          if (dl.items[j].at & TI_DIAG_AT_EDGE) fprintf(stderr, " edge %d", (int)dl.items[j].edge_id);
          fprintf(stderr, ": %s\n", dl.items[j].message);
        }
    ti_diag_list_free(&dl);
    goto done;
  }
  plan_seconds = ti__cli_now() - t0;
  /* inputs: every --input names a socket, every socket has an --input */
  for (i = 0; i < n_in_args; i++) {
    int32_t idx = -1;
    for (k = 0; k < ti_exec_num_inputs(x); k++) if (ti_exec_input_socket(x, k) == ins[i].socket) idx = k;
    if (idx < 0) {
      fprintf(stderr, "taskir run: %s has no INPUT socket %ld (it has:", file, ins[i].socket);
      for (k = 0; k < ti_exec_num_inputs(x); k++) fprintf(stderr, " %d", (int)ti_exec_input_socket(x, k));
      fprintf(stderr, "%s)\n", ti_exec_num_inputs(x) ? "" : " none");
      goto done;
    }
  }
  if (!(vals = (ti__cli_values *)calloc((size_t)ti_exec_num_inputs(x) + 1, sizeof *vals))) goto done;
  for (j = 0; j < ti_exec_num_inputs(x); j++) {
    ti__cli_input *in = NULL;
    for (i = 0; i < n_in_args; i++) if (ins[i].socket == ti_exec_input_socket(x, j)) in = &ins[i];
    if (!in) {
      fprintf(stderr, "taskir run: INPUT socket %d needs values: add --input %d=FILE (%lld values, y,x,f order)\n",
              (int)ti_exec_input_socket(x, j), (int)ti_exec_input_socket(x, j), (long long)ti_exec_input_count(x, j));
      goto done;
    }
    vals[j].is_float = ti_exec_input_is_float(x, j);
    vals[j].prec = ti_exec_input_precision(x, j);
    vals[j].count = ti_exec_input_count(x, j);
    vals[j].max_frames = in->per_step ? 1 : steps;
    if (!in->per_step) {
      if (!ti__cli_read_values(in->file, &vals[j])) goto done;
      if (vals[j].n != vals[j].count && vals[j].n != vals[j].count * steps) {
        fprintf(stderr, "taskir run: %s holds %lld values, INPUT socket %d takes %lld%s\n", in->file, (long long)vals[j].n,
                (int)ti_exec_input_socket(x, j), (long long)vals[j].count, steps > 1 ? " per step (one frame, or one per step)" : "");
        goto done;
      }
    }
  }
  if (out_dir && !ti__cli_mkdir(out_dir)) goto done;
  if (trace_dir) {
    if (!ti__cli_mkdir(trace_dir)) goto done;
    if (!(traces = (FILE **)calloc((size_t)ti_exec_num_outputs(x) + 1, sizeof *traces))) goto done;
    for (j = 0; j < ti_exec_num_outputs(x); j++) {
      char path[4096];
      snprintf(path, sizeof path, "%s/o_%d.trace.%s", trace_dir, (int)ti_exec_output_block(x, j), npy ? "npy" : "txt");
      if (!(traces[j] = fopen(path, "wb"))) { fprintf(stderr, "taskir run: cannot write '%s': %s\n", path, strerror(errno)); goto done; }
    }
  }
  progress = steps > 1 && ti__cli_isatty_stderr();
  t0 = ti__cli_now();
  for (t = 0; t < steps; t++) {
    for (j = 0; j < ti_exec_num_inputs(x); j++) {
      ti__cli_input *in = NULL;
      ti__cli_values *vv = &vals[j];
      int64_t off;
      ti_status s;
      for (i = 0; i < n_in_args; i++) if (ins[i].socket == ti_exec_input_socket(x, j)) in = &ins[i];
      if (in->per_step) {
        char path[4096];
        snprintf(path, sizeof path, in->file, (int)t);
        vv->n = 0;
        if (!ti__cli_read_values(path, vv)) goto done;
        if (vv->n != vv->count) {
          fprintf(stderr, "taskir run: %s holds %lld values, INPUT socket %d takes %lld\n", path, (long long)vv->n,
                  (int)ti_exec_input_socket(x, j), (long long)vv->count);
          goto done;
        }
      } else if (t > 0 && vv->n == vv->count) continue;   /* one frame: already fed */
      off = in->per_step || vv->n == vv->count ? 0 : (int64_t)t * vv->count;
      s = vv->is_float ? ti_exec_set_input_f32(x, (int32_t)in->socket, vv->fv + off, vv->count, &err)
                       : ti_exec_set_input(x, (int32_t)in->socket, vv->iv + off, vv->count, &err);
      if (s) { fprintf(stderr, "taskir run: %s: step %ld: %s\n", in->file, t, err.message); goto done; }
    }
    if (ti_exec_run(x, &err) != TI_STATUS_SUCCESS) { fprintf(stderr, "taskir run: %s: step %ld: %s\n", file, t, err.message); goto done; }
    if (traces)
      for (j = 0; j < ti_exec_num_outputs(x); j++) {
        ti_exec_tensor ot;
        if (ti_exec_block(x, ti_exec_output_block(x, j), &ot, &err)) { fprintf(stderr, "taskir run: %s\n", err.message); goto done; }
        if (npy) {
          if (t == 0) ti__cli_npy_header(traces[j], &ot, steps);
          ti__cli_npy_data(traces[j], &ot);
        } else ti__cli_write_tensor(traces[j], &ot, " ");
        if (ferror(traces[j])) { fprintf(stderr, "taskir run: error writing the trace of block %d: %s\n", (int)ti_exec_output_block(x, j), strerror(errno)); goto done; }
      }
    if (progress && ((t + 1) % 64 == 0 || t + 1 == steps)) {
      double el = ti__cli_now() - t0;
      fprintf(stderr, "\rtaskir run: step %ld/%ld, %.0f steps/s ", t + 1, steps, el > 0 ? (double)(t + 1) / el : 0.0);
      if (t + 1 == steps) fputc('\n', stderr);
    }
  }
  if (traces)
    for (j = 0; j < ti_exec_num_outputs(x); j++) {
      int bad = fclose(traces[j]) != 0;
      traces[j] = NULL;
      if (bad) { fprintf(stderr, "taskir run: error writing the trace of block %d: %s\n", (int)ti_exec_output_block(x, j), strerror(errno)); goto done; }
    }
  if (out_dir) {
    for (j = 0; j < ti_exec_num_outputs(x); j++) {
      ti_exec_tensor ot;
      if (ti_exec_block(x, ti_exec_output_block(x, j), &ot, &err)) { fprintf(stderr, "taskir run: %s\n", err.message); goto done; }
      if (!ti__cli_save_tensor(out_dir, "o_", ti_exec_output_block(x, j), &ot, npy)) goto done;
    }
    if (all)
      for (j = 0; j < ti_exec_num_blocks(x); j++) {
        ti_exec_tensor ot;
        if (ti_exec_block(x, ti_exec_block_id(x, j), &ot, &err)) { fprintf(stderr, "taskir run: %s\n", err.message); goto done; }
        if (!ti__cli_save_tensor(out_dir, "", ti_exec_block_id(x, j), &ot, npy)) goto done;
      }
  } else {
    for (j = 0; j < ti_exec_num_outputs(x); j++) {
      ti_exec_tensor ot;
      if (ti_exec_block(x, ti_exec_output_block(x, j), &ot, &err)) { fprintf(stderr, "taskir run: %s\n", err.message); goto done; }
      printf("# OUTPUT socket %d (block %d): ", (int)ti_exec_output_socket(x, j), (int)ti_exec_output_block(x, j));
      ti__cli_print_dims(stdout, &ot);
      printf(" %s\n", ot.dtype == TI_DTYPE_F32 ? "float" : "int");
      ti__cli_write_tensor(stdout, &ot, "\n");
    }
  }
  if (profile) ti__cli_print_profile(stderr, x, plan_seconds, json);
  rc = 0;
done:
  if (traces) {
    for (j = 0; x && j < ti_exec_num_outputs(x); j++) if (traces[j]) fclose(traces[j]);
    free(traces);
  }
  if (vals) {
    for (j = 0; x && j < ti_exec_num_inputs(x); j++) { free(vals[j].iv); free(vals[j].fv); }
    free(vals);
  }
  free(ins);
  ti_exec_free(x);
  ti_pool_free(pool);
  ti_task_graph_free(&g);
  ti_context_destroy(ctx);
  return rc;
usage:
  free(ins);
  ti_task_graph_free(&g);
  fwrite(ti__cli_run_usage, 1, (size_t)(strstr(ti__cli_run_usage, "\n\n") + 1 - ti__cli_run_usage), stderr);
  fputs("Try 'taskir run --help' for more information.\n", stderr);
  return 2;
}

/* --- taskir demo ----------------------------------------------------------- */

static const char ti__cli_demo_usage[] =
    "usage: taskir demo [--save FILE] [--steps N]\n"
    "\n"
    "Builds a small network through the C API -- an ANN part (conv -> requantise\n"
    "(CCMPB) -> max pool -> fully connected) and an SNN part (a LIF layer driven by\n"
    "the requantised FC output for N time steps, default 8) -- checks it, prints its\n"
    "statistics, writes it as FILE (default taskir_demo.task.pb; .pb, .txt or .tir by\n"
    "its extension, as for every command) with its input in\n"
    "FILE's name + .input0.txt, reads it back, runs it and prints the outputs.\n";


static ti_task_block *ti__demo_blk(ti_task_graph *g, int32_t id) { return (ti_task_block *)ti_task_find_block(g, id); }

static int32_t ti__demo_rand(uint32_t *s, int32_t lo, int32_t hi) {
  *s = *s * 1664525u + 1013904223u;
  return lo + (int32_t)((*s >> 8) % (uint32_t)(hi - lo + 1));
}

/* Connects whole cluster to whole cluster; 0 on failure. */
static int ti__demo_link(ti_task_graph *g, int32_t src, int32_t src_cluster, int32_t dst, int32_t dst_cluster) {
  return ti_task_connect(g, ti__demo_blk(g, src), src_cluster, NULL, NULL, ti__demo_blk(g, dst), dst_cluster, NULL, NULL) != NULL;
}

/* The demo network. Block ids:
     ANN  0 INPUT(8x8x4, socket 0) -> 1 SIC -> 4 CC 3x3 pad 1 (+2 SW, 3 SB) -> 5 SI
          -> 6 CCMPB 1x1 (>> 4, ReLU) -> 7 SI -> 8 CCMPB 2x2 max pool -> [RESHAPE]
          -> 9 SIFC(128) -> 12 CVM (+10 SWFC, 11 SB) -> 13 SI -> 14 OUTPUT (socket 1)
     SNN  13 SI -> 15 CCMPB 1-D (>> 5, ReLU) -> 16 SI -> 18 CLIF (v_prev: 17 SI)
          -> 19 SI -> 20 OUTPUT (socket 2, spikes) */
static ti_status ti__demo_build(ti_task_graph *g, int32_t *input, int32_t n_input) {
  int32_t w[8 * 4 * 3 * 3], bias[10], fc[10 * 128], i;
  int32_t wd[4] = {8, 4, 3, 3}, bd8[1] = {8}, fd[2] = {10, 128}, bd10[1] = {10}, order[3] = {2, 1, 0}, rdims[1] = {3};
  uint32_t seed = 12345;
  ti_task_shape s;
  ti_task_block *b;
  int ok = 1;
  ti_task_graph_init(g, NULL);
#define TI__DEMO_ADD(id, type, prec, shp) do { s = (shp); if (!(b = ti_task_add_block(g, (id), (type), (prec), &s))) return TI_STATUS_NO_MEMORY; } while (0)
#define TI__DEMO_ATTR(id, a, v) do { if (ti_task_add_attr(g, ti__demo_blk(g, (id)), (a), (v))) return TI_STATUS_NO_MEMORY; } while (0)
  TI__DEMO_ADD(0, TI_BLOCK_INPUT, TI_DTYPE_I8, ti_task_shape_make(8, 8, 4, 0, 0, 0, 0, 0));
  b->has |= TI_BLOCK_HAS_SOCKET_ID; b->socket_id = 0;
  TI__DEMO_ADD(1, TI_BLOCK_SIC, TI_DTYPE_I8, ti_task_shape_make(8, 8, 0, 4, 0, 0, 0, 0));
  TI__DEMO_ADD(2, TI_BLOCK_SW, TI_DTYPE_I8, ti_task_shape_make(0, 0, 8, 4, 3, 3, 0, 0));
  for (i = 0; i < 8 * 4 * 9; i++) w[i] = ti__demo_rand(&seed, -8, 8);
  if (ti_task_set_data(g, b, TI_DTYPE_I8, 4, wd, w)) return TI_STATUS_NO_MEMORY;
  TI__DEMO_ADD(3, TI_BLOCK_SB, TI_DTYPE_I32, ti_task_shape_make(0, 0, 8, 0, 0, 0, 0, 0));
  for (i = 0; i < 8; i++) bias[i] = ti__demo_rand(&seed, -64, 64);
  if (ti_task_set_data(g, b, TI_DTYPE_I32, 1, bd8, bias)) return TI_STATUS_NO_MEMORY;
  s = ti_task_shape_make(8, 8, 8, 4, 3, 3, 0, 0);
  ti_task_shape_set(&s, TI_SHAPE_HAS_NIY, 8); ti_task_shape_set(&s, TI_SHAPE_HAS_NIX, 8);
  TI__DEMO_ADD(4, TI_BLOCK_CC, TI_DTYPE_I32, s);
  b->has |= TI_BLOCK_HAS_BIAS_TYPE; b->bias_type = TI_BIAS_VECTOR;
  TI__DEMO_ATTR(4, TI_TASK_ATTR_KERNEL_X, 3); TI__DEMO_ATTR(4, TI_TASK_ATTR_KERNEL_Y, 3);
  TI__DEMO_ATTR(4, TI_TASK_ATTR_STRIDE_X, 1); TI__DEMO_ATTR(4, TI_TASK_ATTR_STRIDE_Y, 1);
  TI__DEMO_ATTR(4, TI_TASK_ATTR_PAD_UP, 1); TI__DEMO_ATTR(4, TI_TASK_ATTR_PAD_DOWN, 1);
  TI__DEMO_ATTR(4, TI_TASK_ATTR_PAD_LEFT, 1); TI__DEMO_ATTR(4, TI_TASK_ATTR_PAD_RIGHT, 1);
  TI__DEMO_ATTR(4, TI_TASK_ATTR_DILATION_X, 1); TI__DEMO_ATTR(4, TI_TASK_ATTR_DILATION_Y, 1);
  TI__DEMO_ADD(5, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(8, 8, 8, 0, 0, 0, 0, 0));
  s = ti_task_shape_make(8, 8, 8, 0, 1, 1, 0, 0);
  ti_task_shape_set(&s, TI_SHAPE_HAS_NIY, 8); ti_task_shape_set(&s, TI_SHAPE_HAS_NIX, 8);
  TI__DEMO_ADD(6, TI_BLOCK_CCMPB, TI_DTYPE_I8, s);
  TI__DEMO_ATTR(6, TI_TASK_ATTR_KERNEL_X, 1); TI__DEMO_ATTR(6, TI_TASK_ATTR_KERNEL_Y, 1);
  TI__DEMO_ATTR(6, TI_TASK_ATTR_STRIDE_X, 1); TI__DEMO_ATTR(6, TI_TASK_ATTR_STRIDE_Y, 1);
  TI__DEMO_ATTR(6, TI_TASK_ATTR_CMP, 0); TI__DEMO_ATTR(6, TI_TASK_ATTR_BIT_SHIFT_NUM, 4);
  TI__DEMO_ADD(7, TI_BLOCK_SI, TI_DTYPE_I8, ti_task_shape_make(8, 8, 8, 0, 0, 0, 0, 0));
  s = ti_task_shape_make(4, 4, 8, 0, 2, 2, 0, 0);
  ti_task_shape_set(&s, TI_SHAPE_HAS_NIY, 8); ti_task_shape_set(&s, TI_SHAPE_HAS_NIX, 8);
  TI__DEMO_ADD(8, TI_BLOCK_CCMPB, TI_DTYPE_I8, s);
  TI__DEMO_ATTR(8, TI_TASK_ATTR_KERNEL_X, 2); TI__DEMO_ATTR(8, TI_TASK_ATTR_KERNEL_Y, 2);
  TI__DEMO_ATTR(8, TI_TASK_ATTR_STRIDE_X, 2); TI__DEMO_ATTR(8, TI_TASK_ATTR_STRIDE_Y, 2);
  TI__DEMO_ATTR(8, TI_TASK_ATTR_CMP, 0); TI__DEMO_ATTR(8, TI_TASK_ATTR_BIT_SHIFT_NUM, 0);
  TI__DEMO_ADD(9, TI_BLOCK_SIFC, TI_DTYPE_I8, ti_task_shape_make(0, 0, 0, 128, 0, 0, 0, 0));
  TI__DEMO_ADD(10, TI_BLOCK_SWFC, TI_DTYPE_I8, ti_task_shape_make(0, 0, 10, 128, 0, 0, 0, 0));
  for (i = 0; i < 10 * 128; i++) fc[i] = ti__demo_rand(&seed, -8, 8);
  if (ti_task_set_data(g, b, TI_DTYPE_I8, 2, fd, fc)) return TI_STATUS_NO_MEMORY;
  TI__DEMO_ADD(11, TI_BLOCK_SB, TI_DTYPE_I32, ti_task_shape_make(0, 0, 10, 0, 0, 0, 0, 0));
  for (i = 0; i < 10; i++) bias[i] = ti__demo_rand(&seed, 0, 2000);
  if (ti_task_set_data(g, b, TI_DTYPE_I32, 1, bd10, bias)) return TI_STATUS_NO_MEMORY;
  TI__DEMO_ADD(12, TI_BLOCK_CVM, TI_DTYPE_I32, ti_task_shape_make(0, 0, 10, 128, 0, 0, 0, 0));
  b->has |= TI_BLOCK_HAS_BIAS_TYPE; b->bias_type = TI_BIAS_VECTOR;
  TI__DEMO_ADD(13, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(0, 0, 10, 0, 0, 0, 0, 0));
  TI__DEMO_ADD(14, TI_BLOCK_OUTPUT, TI_DTYPE_I32, ti_task_shape_make(0, 0, 10, 0, 0, 0, 0, 0));
  b->has |= TI_BLOCK_HAS_SOCKET_ID; b->socket_id = 1;
  TI__DEMO_ADD(15, TI_BLOCK_CCMPB, TI_DTYPE_I8, ti_task_shape_make(0, 0, 10, 0, 0, 0, 0, 0));
  TI__DEMO_ATTR(15, TI_TASK_ATTR_CMP, 0); TI__DEMO_ATTR(15, TI_TASK_ATTR_BIT_SHIFT_NUM, 5);
  TI__DEMO_ADD(16, TI_BLOCK_SI, TI_DTYPE_I8, ti_task_shape_make(0, 0, 10, 0, 0, 0, 0, 0));
  TI__DEMO_ADD(17, TI_BLOCK_SI, TI_DTYPE_I32, ti_task_shape_make(0, 0, 10, 0, 0, 0, 0, 0));
  for (i = 0; i < 10; i++) bias[i] = 0;   /* initial membrane potential */
  if (ti_task_set_data(g, b, TI_DTYPE_I32, 1, bd10, bias)) return TI_STATUS_NO_MEMORY;
  TI__DEMO_ADD(18, TI_BLOCK_CLIF, TI_DTYPE_I8, ti_task_shape_make(0, 0, 10, 0, 0, 0, 0, 0));
  TI__DEMO_ATTR(18, TI_TASK_ATTR_VTH0, 100); TI__DEMO_ATTR(18, TI_TASK_ATTR_VR, 0); TI__DEMO_ATTR(18, TI_TASK_ATTR_VL, 0); TI__DEMO_ATTR(18, TI_TASK_ATTR_VINIT, 0);
  TI__DEMO_ATTR(18, TI_TASK_ATTR_VLEAKY_ADPT_EN, 0); TI__DEMO_ATTR(18, TI_TASK_ATTR_VLEAKY_BETA, -4);
  TI__DEMO_ATTR(18, TI_TASK_ATTR_RESET_MODE, 0); TI__DEMO_ATTR(18, TI_TASK_ATTR_FIRE_TYPE, 4);
  TI__DEMO_ADD(19, TI_BLOCK_SI, TI_DTYPE_I8, ti_task_shape_make(0, 0, 10, 0, 0, 0, 0, 0));
  TI__DEMO_ADD(20, TI_BLOCK_OUTPUT, TI_DTYPE_I8, ti_task_shape_make(0, 0, 10, 0, 0, 0, 0, 0));
  b->has |= TI_BLOCK_HAS_SOCKET_ID; b->socket_id = 2;
#undef TI__DEMO_ADD
#undef TI__DEMO_ATTR
  ok = ok && ti__demo_link(g, 0, 0, 1, 0);
  ok = ok && ti__demo_link(g, 1, 0, 4, 0) && ti__demo_link(g, 2, 0, 4, 1) && ti__demo_link(g, 3, 0, 4, 2);
  ok = ok && ti__demo_link(g, 4, 0, 5, 0) && ti__demo_link(g, 5, 0, 6, 0) && ti__demo_link(g, 6, 0, 7, 0);
  ok = ok && ti__demo_link(g, 7, 0, 8, 0);
  if (ok) {   /* pool output [4][4][8] flattened y, x, f into the FC input */
    ti_task_edge *e = ti_task_connect(g, ti__demo_blk(g, 8), 0, NULL, NULL, ti__demo_blk(g, 9), 0, NULL, NULL);
    ok = e && ti_task_add_rearrange(g, e, TI_REARRANGE_RESHAPE, 1, rdims, order, 3) == TI_STATUS_SUCCESS;
  }
  ok = ok && ti__demo_link(g, 9, 0, 12, 0) && ti__demo_link(g, 10, 0, 12, 1) && ti__demo_link(g, 11, 0, 12, 2);
  ok = ok && ti__demo_link(g, 12, 0, 13, 0) && ti__demo_link(g, 13, 0, 14, 0);
  ok = ok && ti__demo_link(g, 13, 0, 15, 0) && ti__demo_link(g, 15, 0, 16, 0);
  ok = ok && ti__demo_link(g, 16, 0, 18, 0) && ti__demo_link(g, 17, 0, 18, 1);
  ok = ok && ti__demo_link(g, 18, 0, 19, 0) && ti__demo_link(g, 19, 0, 20, 0);
  if (!ok) return TI_STATUS_NO_MEMORY;
  for (i = 0; i < n_input; i++) {   /* a smooth 8x8x4 test pattern */
    int32_t y = i / 32, xx = (i / 4) % 8, f = i % 4;
    input[i] = (int32_t)((y * 7 + xx * 5 + f * 11) % 31) - 15 + ((y - 4) * (xx - 4)) / 2;
  }
  return TI_STATUS_SUCCESS;
}

static int ti_cli_demo(int argc, char **argv) {
  const char *path = "taskir_demo.task.pb";
  char in_path[4096];
  long steps = 8, t;
  int i, r, rc = 1;
  const char *sv;
  int32_t input[8 * 8 * 4], j, counts[10];
  ti_task_graph g, g2;
  ti_context *ctx = NULL;
  ti_error err;
  ti_diag_list dl;
  ti_task_stats st;
  ti_exec *x = NULL;
  ti_exec_options o;
  ti_exec_tensor logits, spikes, v;
  ti_status s;
  FILE *f;
  memset(&err, 0, sizeof err);
  memset(counts, 0, sizeof counts);
  for (i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { fputs(ti__cli_demo_usage, stdout); return 0; }
    else if ((r = ti_cli_opt_value(argc, argv, &i, "demo", "--save", &path)) != 0) { if (r < 0) return 2; }
    else if ((r = ti_cli_opt_value(argc, argv, &i, "demo", "--steps", &sv)) != 0) {
      char *end;
      if (r < 0) return 2;
      steps = strtol(sv, &end, 10);
      if (*end || steps < 1 || steps > 1000000L) { fprintf(stderr, "taskir demo: --steps wants an integer in 1..1000000, got '%s'\n", sv); return 2; }
    } else { fprintf(stderr, "taskir demo: unknown argument '%s'\n", argv[i]); fputs(ti__cli_demo_usage, stderr); return 2; }
  }
  ti_task_graph_init(&g2, NULL);
  /* 1. build through the public API */
  if ((s = ti__demo_build(&g, input, 8 * 8 * 4)) != TI_STATUS_SUCCESS) {
    fprintf(stderr, "taskir demo: building the graph failed (%s)\n", ti_status_name(s));
    goto done;
  }
  printf("built   %d blocks, %d edges: ANN conv 3x3 -> requantise -> max pool -> FC(10); SNN LIF(10)\n",
         (int)g.n_blocks, (int)g.n_edges);
  /* 2. check */
  ti_diag_list_init(&dl, NULL);
  s = ti_task_check(&g, &dl, &err);
  printf("checked %d error(s), %d warning(s)\n", (int)dl.n_errors, (int)dl.n_warnings);
  for (j = 0; j < dl.n; j++)
    printf("  %s [%s] block %d: %s\n", dl.items[j].severity == TI_DIAG_ERROR ? "error" : "warning", dl.items[j].rule,
           (int)dl.items[j].block_id, dl.items[j].message);
  ti_diag_list_free(&dl);
  if (s) { fprintf(stderr, "taskir demo: the checker rejects the graph: %s\n", err.message); goto done; }
  /* 3. statistics */
  if (ti_task_statistics(&g, &st, 0, &err) == TI_STATUS_SUCCESS) {
    printf("stats   %lld parameters, %lld MACs per inference, %lld storage bytes, %lld bytes on edges\n",
           (long long)st.params, (long long)st.macs, (long long)st.storage_total, (long long)st.edge_bytes);
    ti_task_stats_free(&st, NULL);
  }
  /* 4. write as protobuf, with the input next to it, and read back */
  if (!(ctx = ti_context_create(NULL))) { fprintf(stderr, "taskir demo: out of memory\n"); goto done; }
  if (ti_cli_save_graph(ctx, path, TI_CLI_FMT_NONE, &g, &err) != TI_STATUS_SUCCESS) { ti_cli_fail("demo", path, &err); goto done; }
  snprintf(in_path, sizeof in_path, "%s.input0.txt", path);
  if (!(f = fopen(in_path, "wb"))) { fprintf(stderr, "taskir demo: cannot write '%s': %s\n", in_path, strerror(errno)); goto done; }
  for (j = 0; j < 8 * 8 * 4; j++) fprintf(f, "%d\n", (int)input[j]);
  if (fclose(f) != 0) { fprintf(stderr, "taskir demo: error writing '%s'\n", in_path); goto done; }
  if (ti_cli_load_graph(ctx, path, TI_CLI_FMT_NONE, &g2, NULL, &err) != TI_STATUS_SUCCESS) { ti_cli_fail("demo", path, &err); goto done; }
  printf("wrote   %s and %s; read back %d blocks\n", path, in_path, (int)g2.n_blocks);
  /* 5. plan once, run many times */
  ti_exec_options_init(&o);
  o.profile = 1;
  if (ti_exec_plan(&g2, &o, &x, &err) != TI_STATUS_SUCCESS) { fprintf(stderr, "taskir demo: plan: %s\n", err.message); goto done; }
  if (ti_exec_set_input(x, 0, input, 8 * 8 * 4, &err) != TI_STATUS_SUCCESS) { fprintf(stderr, "taskir demo: %s\n", err.message); goto done; }
  printf("run     %ld time step(s); LIF spikes per step (neurons 0..9):\n", steps);
  for (t = 0; t < steps; t++) {
    if (ti_exec_run(x, &err) != TI_STATUS_SUCCESS) { fprintf(stderr, "taskir demo: run: %s\n", err.message); goto done; }
    if (ti_exec_output(x, 2, &spikes, &err) || ti_exec_block(x, 17, &v, &err)) { fprintf(stderr, "taskir demo: %s\n", err.message); goto done; }
    printf("  t=%-3ld ", t);
    for (j = 0; j < 10; j++) {
      int64_t sp = ti_exec_tensor_i64(&spikes, j);
      counts[j] += (int32_t)sp;
      putchar(sp ? '|' : '.');
    }
    printf("   membrane:");
    for (j = 0; j < 10; j++) printf(" %lld", (long long)ti_exec_tensor_i64(&v, j));
    putchar('\n');
  }
  if (ti_exec_output(x, 1, &logits, &err)) { fprintf(stderr, "taskir demo: %s\n", err.message); goto done; }
  printf("ANN     FC outputs (socket 1):");
  for (j = 0; j < 10; j++) printf(" %lld", (long long)ti_exec_tensor_i64(&logits, j));
  printf("\nSNN     spike counts (socket 2 over %ld steps):", steps);
  for (j = 0; j < 10; j++) printf(" %d", (int)counts[j]);
  putchar('\n');
  ti__cli_print_profile(stdout, x, 0, 0);
  printf("next    taskir run %s --input 0=%s --steps %ld --profile\n", path, in_path, steps);
  rc = 0;
done:
  ti_exec_free(x);
  ti_task_graph_free(&g);
  ti_task_graph_free(&g2);
  ti_context_destroy(ctx);
  return rc;
}

#endif /* TASKIR_RUN_H */
