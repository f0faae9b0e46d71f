/* bench/ort_twin.h - onnxruntime as a peer of bench_exec (after taskir_proto.h
   and the POSIX headers; needs _POSIX_C_SOURCE 200809L).

   ort_twin_write() writes the fp32 ONNX twin of an integer Task IR graph: the
   same network with the same (integer-valued) weights, NCHW, in the export
   pattern of quantised models: Conv / Gemm(transB = 1) with the SW/SWFC/SB
   data, requantisation (CCMPB) as Div by 2^k -> Floor -> Clip(CMP, 127), a
   CCMPB window as MaxPool before it, CADD as Add, the y,x,f flatten of a
   RESHAPE edge as Transpose(0,2,3,1) -> Flatten. A Clip whose input is
   already inside its bounds (a max pool of requantised values) is left out,
   as an exporter would. Sums stay below 2^24, so fp32 is exact and the
   outputs are bit-identical (the bench checks it before timing).
   Blocks outside that subset: 0 and a message.

   ort_peer_*() run bench/ort_peer.js under node as a coprocess: commands
   through popen, answers through a FIFO. */
#ifndef BENCH_ORT_TWIN_H
#define BENCH_ORT_TWIN_H
#include "tests/onnx_write.h"
#include <stdarg.h>
#include <sys/stat.h>

typedef struct ort_val { char name[24]; int rank; int64_t dims[4]; int64_t lo, hi; } ort_val;

typedef struct ort_twin {
  ti_buffer g, nd, t;
  int nodes, consts;
  char why[160];
} ort_twin;

static const ti_task_block *ort__src(const ti_task_graph *g, const ti_task_block *b, int c, const ti_task_edge **e) {
  const ti_task_edge *ed;
  if (c >= b->n_inputs || b->inputs[c].n_interfaces != 1) return NULL;
  ed = ti_task_find_edge(g, b->inputs[c].interfaces[0].edge_id);
  if (e) *e = ed;
  return ed ? ti_task_find_block(g, ed->src_block_id) : NULL;
}

static void ort__const(ort_twin *o, char *name, float v) {
  sprintf(name, "k%d", o->consts++);
  w_tensor_f(&o->t, name, 0, NULL, &v, 1);
  w_msg(&o->g, 5, &o->t);
}

/* One node: op on inputs a, b, c (NULL-ended), output into out (named). */
static void ort__node(ort_twin *o, const char *op, const char *a, const char *b, const char *c, char *out) {
  const char *in[4], *outs[2];
  char nm[24], ia[24], ib[24], ic[24];   /* out may be one of the inputs */
  snprintf(ia, sizeof ia, "%s", a); snprintf(ib, sizeof ib, "%s", b ? b : ""); snprintf(ic, sizeof ic, "%s", c ? c : "");
  in[0] = ia; in[1] = b ? ib : NULL; in[2] = b && c ? ic : NULL; in[3] = NULL;
  sprintf(out, "v%d", o->nodes);
  sprintf(nm, "n%d", o->nodes);
  outs[0] = out; outs[1] = NULL;
  o->nodes++;
  w_node(&o->g, &o->nd, nm, op, in, outs);
}

static void ort__attr_int(ti_buffer *nd, const char *name, int64_t v) {
  ti_buffer a;
  ti_buffer_init(&a, NULL);
  w_str(&a, 1, name); w_int(&a, 20, TI_ONNX_ATTR_INT); w_int(&a, 3, v);
  w_msg(nd, 5, &a);
}

/* A storage block's data as an fp32 initializer of the given dims. */
static int ort__weights(ort_twin *o, const ti_task_block *b, int rank, const int64_t *dims, char *name) {
  const ti_task_values *v = (b && (b->has & TI_BLOCK_HAS_DATA)) ? ti_task_tensor_values(&b->data) : NULL;
  int64_t n = 1, k;
  float *f;
  int i;
  for (i = 0; i < rank; i++) n *= dims[i];
  if (!v || v->count != n) { snprintf(o->why, sizeof o->why, "block %d: no data of %lld values", b ? (int)b->id : -1, (long long)n); return 0; }
  f = (float *)malloc((size_t)n * sizeof *f);
  for (k = 0; k < n; k++) f[k] = (float)ti_task_values_get_i64(v, k);
  sprintf(name, "w%d", (int)b->id);
  w_tensor_f(&o->t, name, rank, dims, f, 1);
  w_msg(&o->g, 5, &o->t);
  free(f);
  return 1;
}

/* Writes the twin of g into model; *in and *out: the ONNX input and output
   shapes (rank 4 NCHW with batch 1, or rank 2 [1][n]). */
static int ort_twin_write(const ti_task_graph *g, ti_buffer *model, ort_val *in, ort_val *out, char *why, size_t why_cap) {
  ort_twin o;
  ort_val *v = (ort_val *)calloc((size_t)g->n_blocks + 1, sizeof *v);
  unsigned char *done = (unsigned char *)calloc((size_t)g->n_blocks + 1, 1);
  int32_t i, left = g->n_blocks, progress = 1, ok = 1, n_in = 0, n_out = 0;
  memset(&o, 0, sizeof o);
  ti_buffer_init(&o.g, NULL); ti_buffer_init(&o.nd, NULL); ti_buffer_init(&o.t, NULL);
  while (left && progress && ok) {
    progress = 0;
    for (i = 0; i < g->n_blocks && ok; i++) {
      const ti_task_block *b = &g->blocks[i], *s = NULL;
      const ti_task_edge *e = NULL;
      const ti_task_shape *sh = &b->shape;
      ort_val *r = &v[i], *a = NULL;
      int c, ready = 1;
      if (done[i]) continue;
      for (c = 0; c < b->n_inputs; c++) {
        const ti_task_block *sc = ort__src(g, b, c, NULL);
        if (sc && !done[sc - g->blocks]) ready = 0;
      }
      if (!ready) continue;
      if (b->n_inputs) {
        s = ort__src(g, b, 0, &e);
        if (!s) { snprintf(o.why, sizeof o.why, "block %d: input cluster 0 is not one plain edge", (int)b->id); ok = 0; break; }
        a = &v[s - g->blocks];
      }
      switch (b->type) {
      case TI_BLOCK_INPUT:
        strcpy(r->name, "x");
        r->lo = -128; r->hi = 127;
        if (sh->ny > 0) { r->rank = 4; r->dims[0] = 1; r->dims[1] = sh->nf; r->dims[2] = sh->ny; r->dims[3] = sh->nx; }
        else { r->rank = 2; r->dims[0] = 1; r->dims[1] = sh->nf; }
        *in = *r;
        n_in++;
        break;
      case TI_BLOCK_SW: case TI_BLOCK_SWFC: case TI_BLOCK_SB:
        break;   /* read by their consumer */
      case TI_BLOCK_SI: case TI_BLOCK_SIC: case TI_BLOCK_SIFC: case TI_BLOCK_OUTPUT:
        if (!b->n_inputs) { snprintf(o.why, sizeof o.why, "block %d: storage with data is not an activation", (int)b->id); ok = 0; break; }
        *r = *a;
        if (e->n_rearrange == 1 && e->rearrange[0].type == TI_REARRANGE_RESHAPE && a->rank == 4) {
          int64_t perm[4] = {0, 2, 3, 1};
          w_attr_ints(&o.nd, "perm", 4, perm);
          ort__node(&o, "Transpose", a->name, NULL, NULL, r->name);
          ort__attr_int(&o.nd, "axis", 1);
          ort__node(&o, "Flatten", r->name, NULL, NULL, r->name);
          r->rank = 2; r->dims[1] = a->dims[1] * a->dims[2] * a->dims[3];
        } else if (e->n_rearrange) { snprintf(o.why, sizeof o.why, "edge %d: rearrangement not in the twin's subset", (int)e->id); ok = 0; break; }
        if (b->type == TI_BLOCK_OUTPUT) { *out = *r; n_out++; }
        break;
      case TI_BLOCK_CC: case TI_BLOCK_CVM: {
        const ti_task_block *wb = ort__src(g, b, 1, NULL), *bb = ort__src(g, b, 2, NULL);
        char wn[24], bn[24];
        int64_t wd[4], bd[1];
        bd[0] = sh->nf;
        if (b->type == TI_BLOCK_CC) {
          int64_t k[2], pads[4], st[2];
          wd[0] = sh->nf; wd[1] = sh->nr; wd[2] = sh->nky; wd[3] = sh->nkx;
          if (!ort__weights(&o, wb, 4, wd, wn) || !ort__weights(&o, bb, 1, bd, bn)) { ok = 0; break; }
          k[0] = sh->nky; k[1] = sh->nkx;
          pads[0] = ti_task_attr_int(b, TI_TASK_ATTR_PAD_UP, 0); pads[1] = ti_task_attr_int(b, TI_TASK_ATTR_PAD_LEFT, 0);
          pads[2] = ti_task_attr_int(b, TI_TASK_ATTR_PAD_DOWN, 0); pads[3] = ti_task_attr_int(b, TI_TASK_ATTR_PAD_RIGHT, 0);
          st[0] = ti_task_attr_int(b, TI_TASK_ATTR_STRIDE_Y, 1); st[1] = ti_task_attr_int(b, TI_TASK_ATTR_STRIDE_X, 1);
          w_attr_ints(&o.nd, "kernel_shape", 2, k); w_attr_ints(&o.nd, "pads", 4, pads); w_attr_ints(&o.nd, "strides", 2, st);
          ort__node(&o, "Conv", a->name, wn, bn, r->name);
          r->rank = 4; r->dims[0] = 1; r->dims[1] = sh->nf; r->dims[2] = sh->ny; r->dims[3] = sh->nx;
        } else {
          wd[0] = sh->nf; wd[1] = sh->nr;
          if (a->rank != 2) { snprintf(o.why, sizeof o.why, "block %d: CVM input is not flat", (int)b->id); ok = 0; break; }
          if (!ort__weights(&o, wb, 2, wd, wn) || !ort__weights(&o, bb, 1, bd, bn)) { ok = 0; break; }
          ort__attr_int(&o.nd, "transB", 1);
          ort__node(&o, "Gemm", a->name, wn, bn, r->name);
          r->rank = 2; r->dims[0] = 1; r->dims[1] = sh->nf;
        }
        r->lo = INT32_MIN; r->hi = INT32_MAX;
        break;
      }
      case TI_BLOCK_CADD: {
        const ti_task_block *s1 = ort__src(g, b, 1, NULL);
        if (b->n_inputs != 2 || !s1) { snprintf(o.why, sizeof o.why, "block %d: CADD other than two branches", (int)b->id); ok = 0; break; }
        ort__node(&o, "Add", a->name, v[s1 - g->blocks].name, NULL, r->name);
        r->rank = a->rank; memcpy(r->dims, a->dims, sizeof r->dims);
        r->lo = INT32_MIN; r->hi = INT32_MAX;
        break;
      }
      case TI_BLOCK_CCMPB: {
        int32_t shift = ti_task_attr_int(b, TI_TASK_ATTR_BIT_SHIFT_NUM, 0), cmp = ti_task_attr_int(b, TI_TASK_ATTR_CMP, 0);
        char kn[24], kn2[24];
        *r = *a;
        if ((sh->nky > 1 || sh->nkx > 1) && a->rank == 4) {
          int64_t k[2], st[2];
          k[0] = sh->nky; k[1] = sh->nkx;
          st[0] = ti_task_attr_int(b, TI_TASK_ATTR_STRIDE_Y, 1); st[1] = ti_task_attr_int(b, TI_TASK_ATTR_STRIDE_X, 1);
          w_attr_ints(&o.nd, "kernel_shape", 2, k); w_attr_ints(&o.nd, "strides", 2, st);
          ort__node(&o, "MaxPool", a->name, NULL, NULL, r->name);
          r->dims[2] = sh->ny; r->dims[3] = sh->nx;
        } else if (sh->nky > 1 || sh->nkx > 1 || (b->precision != TI_DTYPE_I8 && sh->ny > 0)) {
          snprintf(o.why, sizeof o.why, "block %d: CCMPB form not in the twin's subset", (int)b->id); ok = 0; break;
        }
        if (shift) {
          ort__const(&o, kn, (float)((int64_t)1 << shift));
          ort__node(&o, "Div", r->name, kn, NULL, r->name);
          ort__node(&o, "Floor", r->name, NULL, NULL, r->name);
          r->lo = r->lo >> shift; r->hi = r->hi >> shift;
        }
        if (r->lo < cmp || r->hi > 127) {
          ort__const(&o, kn, (float)cmp);
          ort__const(&o, kn2, 127.0f);
          ort__node(&o, "Clip", r->name, kn, kn2, r->name);
          r->lo = r->lo < cmp ? cmp : r->lo; r->hi = r->hi > 127 ? 127 : r->hi;
        }
        break;
      }
      default:
        snprintf(o.why, sizeof o.why, "block %d: type %s not in the twin's subset", (int)b->id, ti_block_type_name(b->type));
        ok = 0;
        break;
      }
      if (ok) { done[i] = 1; left--; progress = 1; }
    }
  }
  if (ok && (left || n_in != 1 || n_out != 1)) {
    snprintf(o.why, sizeof o.why, "the graph needs one INPUT, one OUTPUT and no cycle (%d blocks left)", (int)left);
    ok = 0;
  }
  if (ok) {
    ti_buffer vi;
    ti_buffer_init(&vi, NULL);
    w_str(&o.g, 2, "twin");
    w_vi(&vi, in->name, in->rank, in->dims); w_msg(&o.g, 11, &vi);
    w_vi(&vi, out->name, out->rank, out->dims); w_msg(&o.g, 12, &vi);
    w_model(model, &o.g, 13);
    ti_buffer_free(&vi);
  }
  snprintf(why, why_cap, "%s", o.why);
  ti_buffer_free(&o.g); ti_buffer_free(&o.nd); ti_buffer_free(&o.t);
  free(v); free(done);
  return ok;
}

/* An Identity model on the input shape of in: onnxruntime's own call cost. */
static void ort_identity_write(const ort_val *in, ti_buffer *model) {
  ti_buffer g, nd, vi;
  const char *i[2] = {"x", NULL}, *o[2] = {"y", NULL};
  ti_buffer_init(&g, NULL); ti_buffer_init(&nd, NULL); ti_buffer_init(&vi, NULL);
  w_node(&g, &nd, "id", "Identity", i, o);
  w_str(&g, 2, "identity");
  w_vi(&vi, "x", in->rank, in->dims); w_msg(&g, 11, &vi);
  w_vi(&vi, "y", in->rank, in->dims); w_msg(&g, 12, &vi);
  w_model(model, &g, 13);
  ti_buffer_free(&g); ti_buffer_free(&nd); ti_buffer_free(&vi);
}

/* --- the node coprocess ----------------------------------------------------- */

typedef struct ort_peer { FILE *to, *from; char *line; size_t cap; char version[32], fifo[1024]; } ort_peer;

/* Starts node on script with dir (holding node_modules/onnxruntime-node,
   also where the FIFO goes); 0 and a reason when it does not come up. */
static int ort_peer_start(ort_peer *p, const char *script, const char *dir, char *why, size_t why_cap) {
  char cmd[3200];
  memset(p, 0, sizeof *p);
  snprintf(p->fifo, sizeof p->fifo, "%s/peer.fifo", dir);
  remove(p->fifo);
  if (mkfifo(p->fifo, 0600)) { snprintf(why, why_cap, "cannot make the FIFO %s", p->fifo); return 0; }
  snprintf(cmd, sizeof cmd, "OMP_NUM_THREADS=1 exec node '%s' '%s' > '%s'", script, dir, p->fifo);
  if (!(p->to = popen(cmd, "w"))) { snprintf(why, why_cap, "cannot run node"); return 0; }
  if (!(p->from = fopen(p->fifo, "r")) || getline(&p->line, &p->cap, p->from) <= 0 || strncmp(p->line, "ready ", 6)) {
    snprintf(why, why_cap, "%s", p->line && *p->line ? p->line : "node did not start (is nodejs installed?)\n");
    if (why[0] && why[strlen(why) - 1] == '\n') why[strlen(why) - 1] = 0;
    return 0;
  }
  sscanf(p->line + 6, "%31s", p->version);
  return 1;
}

/* Sends one command; returns its answer line (without newline), NULL on EOF. */
static const char *ort_peer_cmd(ort_peer *p, const char *fmt, ...) {
  va_list ap;
  ssize_t n;
  va_start(ap, fmt);
  vfprintf(p->to, fmt, ap);
  va_end(ap);
  fputc('\n', p->to);
  fflush(p->to);
  if ((n = getline(&p->line, &p->cap, p->from)) <= 0) return NULL;
  if (p->line[n - 1] == '\n') p->line[n - 1] = 0;
  return p->line;
}

static void ort_peer_stop(ort_peer *p) {
  if (p->to) { fputs("quit\n", p->to); pclose(p->to); }
  if (p->from) fclose(p->from);
  if (p->fifo[0]) remove(p->fifo);
  free(p->line);
}
#endif
