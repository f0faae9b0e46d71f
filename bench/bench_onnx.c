/* ONNX benchmark: decode + import time per node on synthetic chains of
   10^3, 10^4 and 10^5 nodes (Add of a per-node initializer, then Relu);
   decode + import + passes (quantize-recognize, cse, dce) per node on
   integer chains and DAGs of Gemm/requantisation layers of the same sizes,
   with the paired ratio of per-node time at 10^5 to 10^3 (target <= 2) and
   the page faults per node (fresh memory: the large models' blocks come
   from and go back to the system on every run, the small ones' are reused,
   so first-touch costs show only at 10^5); the whole pipeline of `taskir
   import` on the same models (decode + import + those passes + the layout
   passes + lowering to Task IR, checker included) with its own paired
   ratio line; for every row the time of each stage per node at each size
   and its 10^5/10^3 ratio (which stage grows); for the whole pipeline,
   besides that warm-process line (one process runs the pipeline again and
   again, a new graph every run) and the same lowering into one graph kept
   from run to run (ti_lower_options.reuse_graph, with its page faults), the
   same in a fresh process per run (bench_fresh.h: a forked
   child, as `taskir import` runs once per model, so every size pays the
   first touch of every page it uses; 5 children per size, sizes
   alternating; first the fixed cost of a child: a model of one layer); and
   decoding (MB/s) and importing a model with 100 MB of initializers, as a
   ratio to memcpy of the same bytes (weights referenced, and copied).
   Medians of paired ratios over trials (the machine is shared). */
#define _POSIX_C_SOURCE 199309L
#define TASKIR_IMPLEMENTATION
#include "taskir_onnx.h"
#include "taskir_lower.h"
#include "bench_check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <unistd.h>
#include "bench_clock.h"   /* now(): this thread's CPU time (the machine is shared) */
#include "bench_fresh.h"   /* fresh_sample(): one run in a forked child */
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

static void w_f32(ti_buffer *g, const char *name, int rank, const int64_t *dims, const float *v) {
  ti_buffer t;
  int64_t n = 1;
  int i;
  ti_buffer_init(&t, NULL);
  for (i = 0; i < rank; i++) { w_int(&t, 1, dims[i]); n *= dims[i]; }
  w_int(&t, 2, TI_ONNX_FLOAT); w_str(&t, 8, name);
  w_len(&t, 9, v, (size_t)n * 4);
  w_msg(g, 5, &t);
  ti_buffer_free(&t);
}
static void w_node(ti_buffer *g, const char *op, const char *i0, const char *i1, const char *i2, const char *out, int trans_b) {
  ti_buffer nd;
  ti_buffer_init(&nd, NULL);
  w_str(&nd, 1, i0);
  if (i1) w_str(&nd, 1, i1);
  if (i2) w_str(&nd, 1, i2);
  w_str(&nd, 2, out);
  w_str(&nd, 4, op);
  if (trans_b) {
    ti_buffer a;
    ti_buffer_init(&a, NULL);
    w_str(&a, 1, "transB"); w_int(&a, 20, TI_ONNX_ATTR_INT); w_int(&a, 3, 1);
    w_msg(&nd, 5, &a);
    ti_buffer_free(&a);
  }
  w_msg(g, 1, &nd);
  ti_buffer_free(&nd);
}

/* An integer model of about n nodes, the export pattern quantize-recognize
   rewrites: layers Gemm(W_i [16,16] integers, B_i) -> Clip(-2^31, 2^31) ->
   Div(2^8) -> Floor -> Clip(-128, 127) -> Relu; dag: each layer's input is
   Clip(-128, 127)(Add(the two previous layers' outputs)). The last Gemm
   stops after the first Clip. */
static int64_t int_model(ti_buffer *model, int64_t n, int dag) {
  enum { C = 16 };
  ti_buffer g;
  float w[C * C], b[C], lo31 = -2147483648.0f, hi31 = 2147483648.0f, lo8 = -128, hi8 = 127, k = 256;
  int64_t wd[2] = {C, C}, bd[1] = {C}, layers = n / (dag ? 8 : 6), i, nodes = 0;
  char in[32], prev[32], x[32], y[32], wn[32], bn[32];
  int j;
  ti_buffer_init(&g, NULL);
  for (j = 0; j < C * C; j++) w[j] = (float)((j * 37) % 255 - 127);
  for (j = 0; j < C; j++) b[j] = (float)(j * 101 - 800);
  w_f32(&g, "lo31", 0, NULL, &lo31); w_f32(&g, "hi31", 0, NULL, &hi31);
  w_f32(&g, "lo8", 0, NULL, &lo8); w_f32(&g, "hi8", 0, NULL, &hi8); w_f32(&g, "k", 0, NULL, &k);
  strcpy(in, "x"); strcpy(prev, "x");
  for (i = 0; i < layers; i++) {
    snprintf(wn, sizeof wn, "w%lld", (long long)i); snprintf(bn, sizeof bn, "b%lld", (long long)i);
    w_f32(&g, wn, 2, wd, w); w_f32(&g, bn, 1, bd, b);
    if (dag && i > 0) {
      snprintf(x, sizeof x, "s%lld", (long long)i); w_node(&g, "Add", in, prev, NULL, x, 0);
      snprintf(y, sizeof y, "t%lld", (long long)i); w_node(&g, "Clip", x, "lo8", "hi8", y, 0);
      strcpy(prev, in); strcpy(in, y); nodes += 2;
    } else strcpy(prev, in);
    snprintf(x, sizeof x, "g%lld", (long long)i); w_node(&g, "Gemm", in, wn, bn, x, 1);
    snprintf(y, sizeof y, "c%lld", (long long)i); w_node(&g, "Clip", x, "lo31", "hi31", y, 0);
    nodes += 2;
    if (i == layers - 1) { strcpy(in, y); break; }
    snprintf(x, sizeof x, "d%lld", (long long)i); w_node(&g, "Div", y, "k", NULL, x, 0);
    snprintf(y, sizeof y, "f%lld", (long long)i); w_node(&g, "Floor", x, NULL, NULL, y, 0);
    snprintf(x, sizeof x, "q%lld", (long long)i); w_node(&g, "Clip", y, "lo8", "hi8", x, 0);
    snprintf(in, sizeof in, "r%lld", (long long)i); w_node(&g, "Relu", x, NULL, NULL, in, 0);
    nodes += 4;
  }
  { ti_buffer t; ti_buffer_init(&t, NULL);
    w_vi(&t, "x", 1, C); w_msg(&g, 11, &t);
    w_vi(&t, in, 1, C); w_msg(&g, 12, &t);
    ti_buffer_free(&t); }
  w_int(model, 1, 7);
  { ti_buffer os; ti_buffer_init(&os, NULL); w_int(&os, 2, 13); w_msg(model, 8, &os); ti_buffer_free(&os); }
  w_msg(model, 7, &g);
  ti_buffer_free(&g);
  return nodes;
}

/* decode + import + quantize-recognize,cse,dce (verified after each); with
   lower, then the layout passes and the lowering to Task IR (checker
   included): the whole of `taskir import MODEL.onnx OUT.pb` but the write.
   stage (if not NULL): the time of each of the NSTAGE stages. */
enum { NSTAGE = 5 };
static const char *const stage_name[NSTAGE] = {"decode+import", "quantize-recognize", "cse", "dce", "layout+lowering+checker"};
static double import_passes_once(ti_context *ctx, const ti_buffer *m, int64_t want_layers, double *stage, int lower,
                                 ti_task_graph *reuse) {
  ti_onnx_options opt;
  ti_program *p = NULL;
  ti_pass_manager pm;
  ti_pass all[3];
  ti_quant_report qr;
  ti_error e;
  double t0, t1, st[NSTAGE] = {0, 0, 0, 0, 0};
  int i;
  memset(&opt, 0, sizeof opt);
  opt.reference_weights = 1;
  ti_error_clear(&e);
  ti_pass_manager_init(&pm);
  t0 = now();
  if (ti_onnx_import(ctx, m->data, m->len, &opt, &p, &e) != TI_STATUS_SUCCESS ||
      ti_onnx_pass_manager_add_named(&pm, "quantize-recognize,cse,dce", &e) != TI_STATUS_SUCCESS) {
    fprintf(stderr, "import: %s\n", e.message);
    exit(1);
  }
  t1 = now();
  st[0] = t1 - t0;
  pm.passes[0].user = &qr;
  memcpy(all, pm.passes, sizeof all);
  pm.n = 1;
  for (i = 0; i < 3; i++) {   /* one pass at a time (each verified after it, as in the pipeline), timed */
    double t2;
    pm.passes[0] = all[i];
    if (ti_pass_manager_run(&pm, p, &e) != TI_STATUS_SUCCESS) { fprintf(stderr, "%s: %s\n", all[i].name, e.message); exit(1); }
    t2 = now();
    st[1 + i] = t2 - t1;
    t1 = t2;
  }
  if (lower) {   /* into a new graph, freed after it; or into `reuse`, kept for the next run (reuse_graph) */
    ti_task_graph g, *to = reuse ? reuse : &g;
    ti_lower_options lo;
    ti_lower_options_init(&lo);
    lo.reuse_graph = reuse != NULL;
    if (ti_lower_to_task(p, &lo, to, &e) != TI_STATUS_SUCCESS) { fprintf(stderr, "lower: %s\n", e.message); exit(1); }
    if (!reuse) ti_task_graph_free(&g);
    st[4] = now() - t1;
  }
  t0 = now() - t0;
  if (qr.n_layers != want_layers) { fprintf(stderr, "quantised %d layers of %lld: %s\n", (int)qr.n_layers, (long long)want_layers, qr.reason); exit(1); }
  ti_program_destroy(p);
  if (stage) memcpy(stage, st, sizeof st);
  return t0;
}

/* one run of the whole pipeline in a fresh child (bench_fresh.h) */
typedef struct fresh_job { ti_context *ctx; const ti_buffer *m; int64_t layers; } fresh_job;
static int fresh_job_run(void *arg) {
  const fresh_job *j = (const fresh_job *)arg;
  import_passes_once(j->ctx, j->m, j->layers, NULL, 1, NULL);
  return 0;
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
  BENCH_OK(ti_nn_register(ctx, &e));
  (void)avail_bytes;
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
  for (t = 0; t < 4; t++) {   /* integer models through quantize-recognize (t & 1: DAGs; t >= 2: and lowering) */
    ti_buffer m[3];
    int64_t nodes[3], layers[3];
    double ratio[5], stage_med[3][NSTAGE];
    int q, s;
    printf("decode + import + quantize-recognize,cse,dce%s per node, integer %s of Gemm/requant layers:\n",
           t >= 2 ? " + layout passes + lowering to Task IR (the whole pipeline)" : "", t & 1 ? "DAGs (residual Add)" : "chains");
    for (k = 0; k < 3; k++) {
      ti_buffer_init(&m[k], NULL);
      nodes[k] = int_model(&m[k], sizes[k], t & 1);
      layers[k] = sizes[k] / (t & 1 ? 8 : 6);
    }
    for (k = 0; k < 3; k++) {
      int trials = k == 2 ? 3 : 7;
      struct rusage u0, u1;
      double st[NSTAGE][8];
      getrusage(RUSAGE_SELF, &u0);
      for (q = 0; q < trials; q++) {
        double one[NSTAGE];
        r[q] = import_passes_once(ctx, &m[k], layers[k], one, t >= 2, NULL) / (double)nodes[k];
        for (s = 0; s < NSTAGE; s++) st[s][q] = one[s] / (double)nodes[k];
      }
      getrusage(RUSAGE_SELF, &u1);
      per_node[k] = median(r, trials);
      for (s = 0; s < NSTAGE; s++) stage_med[k][s] = median(st[s], trials);
      printf("  %7lld nodes  %8.0f ns/node, quantize-recognize alone %5.0f ns/node  (%lld layers, model %.1f MB; %.3f page faults/node)\n",
             (long long)nodes[k], per_node[k] * 1e9, stage_med[k][1] * 1e9, (long long)layers[k], (double)m[k].len / 1e6,
             (double)(u1.ru_minflt - u0.ru_minflt) / (double)trials / (double)nodes[k]);
    }
    printf("  per stage, ns/node at 10^3 / 10^4 / 10^5 (medians; ratio 10^5/10^3):\n");
    for (s = 0; s < (t >= 2 ? NSTAGE : NSTAGE - 1); s++)
      printf("    %-24s %6.0f %6.0f %6.0f  (%.2f)\n", stage_name[s], stage_med[0][s] * 1e9, stage_med[1][s] * 1e9,
             stage_med[2][s] * 1e9, stage_med[2][s] / stage_med[0][s]);
    for (q = 0; q < 5; q++)   /* paired: the small and the large model back to back */
      ratio[q] = (import_passes_once(ctx, &m[2], layers[2], NULL, t >= 2, NULL) / (double)nodes[2]) /
                 (import_passes_once(ctx, &m[0], layers[0], NULL, t >= 2, NULL) / (double)nodes[0]);
    printf("  per-node time at 10^5 / at 10^3%s: %.2f (median of 5 paired runs; target <= 2)\n",
           t >= 2 ? ", whole pipeline, warm process (the same process runs it again and again), a new graph every run" : "",
           median(ratio, 5));
    if (t >= 2) {   /* the same lowering into one graph, reused from run to run */
      ti_task_graph keep;
      struct rusage u0, u1;
      double big[5];
      ti_task_graph_init(&keep, NULL);
      import_passes_once(ctx, &m[2], layers[2], NULL, 1, &keep);   /* the graph's memory, touched once */
      getrusage(RUSAGE_SELF, &u0);
      for (q = 0; q < 5; q++) {
        big[q] = import_passes_once(ctx, &m[2], layers[2], NULL, 1, &keep) / (double)nodes[2];
        ratio[q] = big[q] / (import_passes_once(ctx, &m[0], layers[0], NULL, 1, &keep) / (double)nodes[0]);
      }
      getrusage(RUSAGE_SELF, &u1);
      ti_task_graph_free(&keep);
      printf("  per-node time at 10^5 / at 10^3, whole pipeline, warm process, one graph lowered into again and again "
             "(ti_lower_options.reuse_graph): %.2f (median of 5 paired runs; target <= 2); 10^5: %.0f ns/node, "
             "%.3f page faults/node per pair\n", median(ratio, 5), median(big, 5) * 1e9,
             (double)(u1.ru_minflt - u0.ru_minflt) / 5.0 / (double)nodes[2]);
    }
    if (t >= 2) {   /* the same, each run in a fresh process (fork) as `taskir import` does: first touches at every size */
      enum { ROUNDS = 5 };
      double wall[3][ROUNDS], cpu[3][ROUNDS], wr[ROUNDS], cr[ROUNDS];
      for (q = 0; q < ROUNDS; q++)   /* sizes alternate: 10^3, 10^4, 10^5, 10^3, ... */
        for (k = 0; k < 3; k++) {
          fresh_job j;
          j.ctx = ctx; j.m = &m[k]; j.layers = layers[k];
          if (fresh_sample(fresh_job_run, &j, &wall[k][q], &cpu[k][q])) { fprintf(stderr, "fresh process run failed\n"); exit(1); }
          wall[k][q] /= (double)nodes[k];
          cpu[k][q] /= (double)nodes[k];
        }
      for (q = 0; q < ROUNDS; q++) { wr[q] = wall[2][q] / wall[0][q]; cr[q] = cpu[2][q] / cpu[0][q]; }
      printf("  fresh process (one forked child per run, %d per size, sizes alternating; monotonic clock / CPU time):\n", ROUNDS);
      {   /* what a child costs whatever the size: the same pipeline on a model of one layer */
        ti_buffer tiny;
        fresh_job j;
        double tw[ROUNDS], tc[ROUNDS];
        int64_t tn;
        ti_buffer_init(&tiny, NULL);
        tn = int_model(&tiny, t & 1 ? 8 : 6, t & 1);
        j.ctx = ctx; j.m = &tiny; j.layers = 1;
        for (q = 0; q < ROUNDS; q++)
          if (fresh_sample(fresh_job_run, &j, &tw[q], &tc[q])) { fprintf(stderr, "fresh process run failed\n"); exit(1); }
        printf("  %7lld nodes  %8.0f us in all wall, %8.0f us CPU: the fixed cost of a child, in each size's figure below\n",
               (long long)tn, median(tw, ROUNDS) * 1e6, median(tc, ROUNDS) * 1e6);
        ti_buffer_free(&tiny);
      }
      for (k = 0; k < 3; k++)
        printf("  %7lld nodes  %8.0f ns/node wall, %8.0f ns/node CPU\n", (long long)nodes[k], median(wall[k], ROUNDS) * 1e9,
               median(cpu[k], ROUNDS) * 1e9);
      printf("  per-node time at 10^5 / at 10^3, whole pipeline, fresh process: %.2f wall, %.2f CPU (median of %d rounds; target <= 2)\n",
             median(wr, ROUNDS), median(cr, ROUNDS), ROUNDS);
    }
    for (k = 0; k < 3; k++) ti_buffer_free(&m[k]);
  }
  {
    ti_buffer m;
    int64_t elems = 25 * 1000 * 1000;   /* 100 MB of f32 */
    size_t bytes = (size_t)elems * 4;
    char *dst = (char *)malloc(bytes), *src = (char *)malloc(bytes);
    double ref[5], cpy[5], mc[5], fresh[5], dec[5], mbs[5];
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
      {   /* decoding alone (ti_onnx_decode: data referenced in the buffer) */
        ti_onnx_model om;
        t0 = now();
        if (ti_onnx_decode(&om, m.data, m.len, NULL, &e) != TI_STATUS_SUCCESS) { fprintf(stderr, "decode: %s\n", e.message); exit(1); }
        dec[t] = now() - t0;
        ti_onnx_model_free(&om);
        mbs[t] = (double)m.len / 1e6 / dec[t];
        t0 = now();
        memcpy(dst, src, bytes);
        dec[t] /= now() - t0;
      }
    }
    printf("model with 100 MB of initializers (%.1f MB file): memcpy of 100 MB %.1f ms (median)\n", (double)m.len / 1e6, median(mc, 5) * 1e3);
    printf("  decode alone: %.0f MB/s, %.3f x memcpy time (median of paired runs)\n", median(mbs, 5), median(dec, 5));
    printf("  decode + import, weights referenced: %.3f x memcpy time\n", median(ref, 5));
    printf("  decode + import, weights copied:     %.3f x memcpy time, %.3f x malloc+memcpy into fresh memory\n",
           median(cpy, 5), median(fresh, 5));
    ti_buffer_free(&m);
    free(dst); free(src);
  }
  ti_context_destroy(ctx);
  return 0;
}
