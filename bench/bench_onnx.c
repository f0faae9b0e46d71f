/* ONNX benchmark: decode + import time per node on synthetic chains of
   10^3, 10^4 and 10^5 nodes (Add of a per-node initializer, then Relu), and
   decoding + importing a model with 100 MB of initializers, as a ratio to
   memcpy of the same bytes (weights referenced, and copied). Medians of
   paired ratios over trials (the machine is shared). */
#define _POSIX_C_SOURCE 199309L
#define TASKIR_IMPLEMENTATION
#include "taskir_onnx.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
static double median(double *v, int n) { qsort(v, (size_t)n, sizeof *v, cmp_d); return v[n / 2]; }

static void w_len(ti_buffer *b, uint32_t f, const void *d, size_t n) { ti_pb_write_tag(b, f, TI_PB_LEN); ti_pb_write_varint(b, n); ti_buffer_append(b, d, n); }
static void w_str(ti_buffer *b, uint32_t f, const char *s) { w_len(b, f, s, strlen(s)); }
static void w_int(ti_buffer *b, uint32_t f, int64_t v) { ti_pb_write_tag(b, f, TI_PB_VARINT); ti_pb_write_varint(b, (uint64_t)v); }
static void w_msg(ti_buffer *b, uint32_t f, ti_buffer *m) { w_len(b, f, m->data, m->len); m->len = 0; }

static void w_vi(ti_buffer *b, const char *name, int64_t d0, int64_t d1) {
  ti_buffer dim, shape, tensor, type;
  ti_buffer_init(&dim, NULL); ti_buffer_init(&shape, NULL); ti_buffer_init(&tensor, NULL); ti_buffer_init(&type, NULL);
  w_int(&dim, 1, d0); w_msg(&shape, 1, &dim);
  w_int(&dim, 1, d1); w_msg(&shape, 1, &dim);
  w_int(&tensor, 1, TI_ONNX_FLOAT); w_msg(&tensor, 2, &shape);
  w_msg(&type, 1, &tensor);
  w_str(b, 1, name); w_msg(b, 2, &type);
  ti_buffer_free(&dim); ti_buffer_free(&shape); ti_buffer_free(&tensor); ti_buffer_free(&type);
}

/* n nodes: v_{i+1} = Relu(v_i) or Add(v_i, w_i) alternately; w_i [1,C]. */
static void chain(ti_buffer *model, int64_t n, int64_t c, int64_t init_elems) {
  ti_buffer g, nd, t;
  char a[32], b[32], w[32];
  float *vals = (float *)calloc((size_t)(init_elems > c ? init_elems : c), sizeof(float));
  int64_t i;
  ti_buffer_init(&g, NULL); ti_buffer_init(&nd, NULL); ti_buffer_init(&t, NULL);
  for (i = 0; i < n; i++) {
    snprintf(a, sizeof a, "v%lld", (long long)i);
    snprintf(b, sizeof b, "v%lld", (long long)i + 1);
    w_str(&nd, 1, a);
    if (i % 2) {
      snprintf(w, sizeof w, "w%lld", (long long)i);
      w_str(&nd, 1, w);
      w_int(&t, 1, 1); w_int(&t, 1, c); w_int(&t, 2, TI_ONNX_FLOAT); w_str(&t, 8, w);
      w_len(&t, 9, vals, (size_t)c * 4);
      w_msg(&g, 5, &t);
    }
    w_str(&nd, 2, b);
    w_str(&nd, 4, i % 2 ? "Add" : "Relu");
    w_msg(&g, 1, &nd);
  }
  if (init_elems) {   /* one big initializer, unused by the graph but imported as a weight */
    w_int(&t, 1, init_elems); w_int(&t, 2, TI_ONNX_FLOAT); w_str(&t, 8, "big");
    w_len(&t, 9, vals, (size_t)init_elems * 4);
    w_msg(&g, 5, &t);
    /* use it: y2 = Identity(big) as a second output */
    w_str(&nd, 1, "big"); w_str(&nd, 2, "y2"); w_str(&nd, 4, "Identity"); w_msg(&g, 1, &nd);
  }
  w_vi(&t, "v0", 1, c); w_msg(&g, 11, &t);
  snprintf(b, sizeof b, "v%lld", (long long)n);
  w_vi(&t, b, 1, c); w_msg(&g, 12, &t);
  if (init_elems) {
    ti_buffer tensor, type, shape, dim;
    ti_buffer_init(&tensor, NULL); ti_buffer_init(&type, NULL); ti_buffer_init(&shape, NULL); ti_buffer_init(&dim, NULL);
    w_int(&dim, 1, init_elems); w_msg(&shape, 1, &dim);
    w_int(&tensor, 1, TI_ONNX_FLOAT); w_msg(&tensor, 2, &shape); w_msg(&type, 1, &tensor);
    w_str(&t, 1, "y2"); w_msg(&t, 2, &type); w_msg(&g, 12, &t);
    ti_buffer_free(&tensor); ti_buffer_free(&type); ti_buffer_free(&shape); ti_buffer_free(&dim);
  }
  w_int(model, 1, 7);
  { ti_buffer os; ti_buffer_init(&os, NULL); w_int(&os, 2, 13); w_msg(model, 8, &os); ti_buffer_free(&os); }
  w_msg(model, 7, &g);
  ti_buffer_free(&g); ti_buffer_free(&nd); ti_buffer_free(&t);
  free(vals);
}

static double import_once(ti_context *ctx, const ti_buffer *m, int reference) {
  ti_onnx_options opt;
  ti_program *p = NULL;
  ti_error e;
  double t0;
  memset(&opt, 0, sizeof opt);
  opt.reference_weights = reference;
  ti_error_clear(&e);
  t0 = now();
  if (ti_onnx_import(ctx, m->data, m->len, &opt, &p, &e) != TI_STATUS_SUCCESS) { fprintf(stderr, "import: %s\n", e.message); exit(1); }
  t0 = now() - t0;
  ti_program_destroy(p);
  return t0;
}

int main(void) {
  static const int64_t sizes[3] = {1000, 10000, 100000};
  double per_node[3], r[16];
  ti_context *ctx = ti_context_create(NULL);
  ti_error e;
  int k, t;
  ti_error_clear(&e);
  ti_nn_register(ctx, &e);
  printf("decode + import per node, chains of Add(w_i)/Relu on [1,16]:\n");
  for (k = 0; k < 3; k++) {
    ti_buffer m;
    int trials = k == 2 ? 3 : 7;
    ti_buffer_init(&m, NULL);
    chain(&m, sizes[k], 16, 0);
    for (t = 0; t < trials; t++) r[t] = import_once(ctx, &m, 1) / (double)sizes[k];
    per_node[k] = median(r, trials);
    printf("  %7lld nodes  %8.0f ns/node  (model %.1f MB)\n", (long long)sizes[k], per_node[k] * 1e9, (double)m.len / 1e6);
    ti_buffer_free(&m);
  }
  printf("  per-node time at 10^5 / at 10^3: %.2f\n", per_node[2] / per_node[0]);
  {
    ti_buffer m;
    int64_t elems = 25 * 1000 * 1000;   /* 100 MB of f32 */
    size_t bytes = (size_t)elems * 4;
    char *dst = (char *)malloc(bytes), *src = (char *)malloc(bytes);
    double ref[5], cpy[5], mc[5], fresh[5];
    memset(src, 1, bytes); memset(dst, 2, bytes);
    ti_buffer_init(&m, NULL);
    chain(&m, 2, 16, elems);
    for (t = 0; t < 5; t++) {
      double t0 = now();
      memcpy(dst, src, bytes);
      mc[t] = now() - t0;
      ref[t] = import_once(ctx, &m, 1) / mc[t];
      cpy[t] = import_once(ctx, &m, 0);
      t0 = now();   /* the copy's own baseline: memcpy into fresh (not yet mapped) memory */
      {
        char *f = (char *)malloc(bytes);
        memcpy(f, src, bytes);
        fresh[t] = now() - t0;
        if (f[bytes / 2] != 1) exit(1);
        free(f);
      }
      fresh[t] = cpy[t] / fresh[t];
      cpy[t] /= mc[t];
    }
    printf("model with 100 MB of initializers (%.1f MB file): memcpy of 100 MB %.1f ms (median)\n", (double)m.len / 1e6, median(mc, 5) * 1e3);
    printf("  decode + import, weights referenced: %.3f x memcpy time\n", median(ref, 5));
    printf("  decode + import, weights copied:     %.3f x memcpy time, %.3f x malloc+memcpy into fresh memory\n",
           median(cpy, 5), median(fresh, 5));
    ti_buffer_free(&m);
    free(dst); free(src);
  }
  ti_context_destroy(ctx);
  return 0;
}
