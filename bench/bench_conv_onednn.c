/* int8 convolution, taskir against oneDNN, one core, same data.
   s8 x s8 -> s32 with an s32 bias, NHWC source and destination; each
   library's weights packed once before timing (oneDNN picks its weight
   format, "any", and the weights are reordered into it once; taskir packs
   through ti_cc_pack_weights). Outputs are compared element for element
   before any timing. Source and both destinations start at a 64-byte line,
   as the executor's arena places buffers and as oneDNN allocates its own
   (from malloc, 16 bytes past a line, both libraries' int32 stores split
   lines: taskir's AMX kernel ran 1.03-1.38x faster into a line-aligned
   output on the 3x3 shapes). Then the two run alternately and every pair gives a
   ratio; the figures are medians over the pairs (the machine is shared, so
   single runs are noisy). Each conv is also printed as a fraction of the
   core's vpdpbusd limit, or of its tdpbusd limit where the kernels take AMX
   (bench/vnni_peak.h).

   oneDNN runs single-threaded: Debian's build uses the OpenMP runtime, which
   reads OMP_NUM_THREADS when it loads, so the bench sets it to 1 and starts
   itself again before any oneDNN call. Arguments: shape indices (0..8) to
   run only those. The bias values are kept small so
   that oneDNN's float bias step stays exact (it adds the bias in float). */
#define _POSIX_C_SOURCE 200809L
#define TASKIR_IMPLEMENTATION
#include "taskir_kernels.h"
#include "bench_check.h"
#include "vnni_peak.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(TI_BENCH_NO_DNNL)
int main(void) {
  printf("oneDNN not found (dnnl.h / libdnnl): int8 conv peer skipped "
         "(apt-get install --no-install-recommends libdnnl-dev)\n");
  return 0;
}
#else
#include <dnnl.h>
#include <unistd.h>

#define CHECK(x) do { dnnl_status_t st_ = (x); if (st_ != dnnl_success) { \
  printf("oneDNN call failed (%d): %s\n", (int)st_, #x); exit(1); } } while (0)

static uint64_t rng_s = 88172645463325252ULL;
static uint64_t rnd(void) { rng_s ^= rng_s << 13; rng_s ^= rng_s >> 7; rng_s ^= rng_s << 17; return rng_s; }

typedef struct { int h, w, c, f, k, s, p; } shape;

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
static double median(double *v, int n) { qsort(v, (size_t)n, sizeof *v, cmp_d); return v[n / 2]; }

/* Returns the median taskir/oneDNN speed ratio. */
static double run(const shape *sh, dnnl_engine_t eng, dnnl_stream_t strm, double peak) {
  ti_prim_desc d;
  ti_kernel_ctx ctx;
  size_t ni, nw, no, pb, sb, i;
  int8_t *in, *w;
  int32_t *bias, *o_ti, *o_dn;
  void *packed, *scr;
  dnnl_memory_desc_t src_md, w_any, w_user, b_md, dst_md;
  const dnnl_memory_desc_t *w_md;
  dnnl_convolution_desc_t cd;
  dnnl_primitive_desc_t pd, rpd;
  dnnl_primitive_t conv, reo;
  dnnl_memory_t m_src, m_wu, m_w, m_b, m_dst;
  dnnl_exec_arg_t args[4];
  const char *impl = "?";
  double macs, r[41], gt[41], gd[41], rm;
  int it, nit = 41, oh, ow;
  dnnl_dims_t sdims, wdims, bdims, ddims, strides, pads;

  memset(&d, 0, sizeof d);
  oh = (sh->h + 2 * sh->p - sh->k) / sh->s + 1;
  ow = (sh->w + 2 * sh->p - sh->k) / sh->s + 1;
  d.niy = sh->h; d.nix = sh->w; d.nr = sh->c; d.nf = sh->f; d.nky = d.nkx = sh->k;
  d.stride_y = d.stride_x = sh->s;
  d.pad_up = d.pad_down = d.pad_left = d.pad_right = sh->p;
  d.ny = oh; d.nx = ow;
  d.in_dtype = d.w_dtype = TI_DTYPE_I8; d.out_dtype = TI_DTYPE_I32; d.bias_mode = TI_BIAS_VECTOR;
  ni = (size_t)sh->h * sh->w * sh->c; nw = (size_t)sh->f * sh->c * sh->k * sh->k;
  no = (size_t)oh * ow * sh->f;
  macs = (double)no * sh->c * sh->k * sh->k;
  in = (int8_t *)bench_alloc64(ni); w = (int8_t *)malloc(nw);
  bias = (int32_t *)malloc((size_t)sh->f * 4);
  o_ti = (int32_t *)bench_alloc64(no * 4); o_dn = (int32_t *)bench_alloc64(no * 4);
  for (i = 0; i < ni; i++) in[i] = (int8_t)rnd();
  for (i = 0; i < nw; i++) w[i] = (int8_t)rnd();
  for (i = 0; i < (size_t)sh->f; i++) bias[i] = (int32_t)(rnd() % 8192) - 4096;

  /* taskir: pack once */
  ti_kernel_ctx_init(&ctx);
  if (ti_cc_pack_size(&d, &pb) || ti_cc_scratch_size(&d, 1, &sb)) { printf("bad shape\n"); exit(1); }
  packed = bench_alloc64(pb); scr = malloc(sb);   /* packed weights at a line (taskir_kernels.h) */
  if (ti_cc_pack_weights(&d, w, packed, pb)) { printf("pack failed\n"); exit(1); }

  /* oneDNN: NCHW logical dims, NHWC storage; OIHW user weights */
  sdims[0] = 1; sdims[1] = sh->c; sdims[2] = sh->h; sdims[3] = sh->w;
  wdims[0] = sh->f; wdims[1] = sh->c; wdims[2] = sh->k; wdims[3] = sh->k;
  bdims[0] = sh->f;
  ddims[0] = 1; ddims[1] = sh->f; ddims[2] = oh; ddims[3] = ow;
  strides[0] = strides[1] = sh->s; pads[0] = pads[1] = sh->p;
  CHECK(dnnl_memory_desc_init_by_tag(&src_md, 4, sdims, dnnl_s8, dnnl_nhwc));
  CHECK(dnnl_memory_desc_init_by_tag(&w_any, 4, wdims, dnnl_s8, dnnl_format_tag_any));
  CHECK(dnnl_memory_desc_init_by_tag(&w_user, 4, wdims, dnnl_s8, dnnl_oihw));
  CHECK(dnnl_memory_desc_init_by_tag(&b_md, 1, bdims, dnnl_s32, dnnl_a));
  CHECK(dnnl_memory_desc_init_by_tag(&dst_md, 4, ddims, dnnl_s32, dnnl_nhwc));
  CHECK(dnnl_convolution_forward_desc_init(&cd, dnnl_forward_inference, dnnl_convolution_direct,
                                           &src_md, &w_any, &b_md, &dst_md, strides, pads, pads));
  CHECK(dnnl_primitive_desc_create(&pd, &cd, NULL, eng, NULL));
  dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, (void *)&impl);
  w_md = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
  CHECK(dnnl_primitive_create(&conv, pd));
  CHECK(dnnl_memory_create(&m_src, &src_md, eng, in));
  CHECK(dnnl_memory_create(&m_wu, &w_user, eng, w));
  CHECK(dnnl_memory_create(&m_w, w_md, eng, DNNL_MEMORY_ALLOCATE));
  CHECK(dnnl_memory_create(&m_b, &b_md, eng, bias));
  CHECK(dnnl_memory_create(&m_dst, &dst_md, eng, o_dn));
  CHECK(dnnl_reorder_primitive_desc_create(&rpd, &w_user, eng, w_md, eng, NULL));
  CHECK(dnnl_primitive_create(&reo, rpd));
  CHECK(dnnl_primitive_execute(reo, strm, 2, (args[0].arg = DNNL_ARG_FROM, args[0].memory = m_wu,
                                              args[1].arg = DNNL_ARG_TO, args[1].memory = m_w, args)));
  CHECK(dnnl_stream_wait(strm));
  args[0].arg = DNNL_ARG_SRC; args[0].memory = m_src;
  args[1].arg = DNNL_ARG_WEIGHTS; args[1].memory = m_w;
  args[2].arg = DNNL_ARG_BIAS; args[2].memory = m_b;
  args[3].arg = DNNL_ARG_DST; args[3].memory = m_dst;

  /* same results first */
  memset(o_ti, 0x55, no * 4); memset(o_dn, 0xaa, no * 4);
  if (ti_cc_packed(&ctx, &d, in, packed, pb, bias, o_ti, scr, sb)) { printf("ti_cc_packed failed\n"); exit(1); }
  CHECK(dnnl_primitive_execute(conv, strm, 4, args));
  CHECK(dnnl_stream_wait(strm));
  if (memcmp(o_ti, o_dn, no * 4)) {
    for (i = 0; i < no && o_ti[i] == o_dn[i]; i++) {}
    printf("%3dx%-3dx%-3d->%-3d %dx%d s%d p%d: OUTPUTS DIFFER at %lu (taskir %ld, oneDNN %ld)\n",
           sh->h, sh->w, sh->c, sh->f, sh->k, sh->k, sh->s, sh->p, (unsigned long)i,
           (long)o_ti[i], (long)o_dn[i]);
    exit(1);
  }

  /* alternate: taskir, oneDNN, ... ; ratio per pair */
  for (it = -3; it < nit; it++) {
    double t0 = vp_now(), t1, t2;
    BENCH_OK(ti_cc_packed(&ctx, &d, in, packed, pb, bias, o_ti, scr, sb));
    t1 = vp_now();
    dnnl_primitive_execute(conv, strm, 4, args);
    dnnl_stream_wait(strm);
    t2 = vp_now();
    if (it < 0) continue;   /* warm-up pairs */
    r[it] = (t2 - t1) / (t1 - t0);
    gt[it] = macs / (t1 - t0) / 1e9;
    gd[it] = macs / (t2 - t1) / 1e9;
  }
  {
    double tm = median(gt, nit), dm = median(gd, nit);
    rm = median(r, nit);
    printf("%3dx%-3dx%-3d->%-3d %dx%d s%d p%d  %7.1f  %7.1f  %6.3fx %4.0f%% %4.0f%%  %s\n",
           sh->h, sh->w, sh->c, sh->f, sh->k, sh->k, sh->s, sh->p, tm, dm, rm,
           peak > 0 ? 100.0 * tm * 1e9 / peak : 0.0, peak > 0 ? 100.0 * dm * 1e9 / peak : 0.0, impl);
  }
  dnnl_primitive_destroy(reo); dnnl_primitive_desc_destroy(rpd);
  dnnl_primitive_destroy(conv); dnnl_primitive_desc_destroy(pd);
  dnnl_memory_destroy(m_src); dnnl_memory_destroy(m_wu); dnnl_memory_destroy(m_w);
  dnnl_memory_destroy(m_b); dnnl_memory_destroy(m_dst);
  free(in); free(w); free(bias); free(o_ti); free(o_dn); free(packed); free(scr);
  return rm;
}

int main(int argc, char **argv) {
  static const shape shapes[] = {
    {56, 56, 64, 64, 3, 1, 1}, {14, 14, 256, 256, 3, 1, 1}, {28, 28, 128, 128, 3, 1, 1},
    {56, 56, 64, 128, 1, 1, 0}, {28, 28, 128, 256, 3, 2, 1}, {7, 7, 512, 512, 3, 1, 1},
    {112, 112, 3, 32, 3, 2, 1}, {32, 32, 1, 6, 5, 1, 2}, {14, 14, 6, 16, 5, 1, 0}};
  const dnnl_version_t *v = dnnl_version();
  dnnl_engine_t eng;
  dnnl_stream_t strm;
  double peak;
  size_t k;
  int ran = 0, pass = 0;
  const char *env = getenv("OMP_NUM_THREADS");
  if (!env || strcmp(env, "1") != 0) {   /* the OpenMP runtime reads it at load */
    setenv("OMP_NUM_THREADS", "1", 1);
    execv("/proc/self/exe", argv);
    printf("cannot restart with OMP_NUM_THREADS=1\n");
    return 1;
  }
  printf("int8 conv, one core: taskir vs oneDNN %d.%d.%d (%s runtime), s8 x s8 -> s32, NHWC,\n"
         "weights packed once; medians over 41 alternating pairs\n",
         v->major, v->minor, v->patch, v->cpu_runtime == DNNL_RUNTIME_OMP ? "OpenMP" : "other");
  peak = vnni_peak(1);
  printf("vpdpbusd limit (best loop shape): %.1f GMAC/s\n", peak / 1e9);
  {   /* with AMX the kernels' limit is tdpbusd's */
    double amx = amx_peak(1);
    if (amx > 0) {
      printf("tdpbusd limit (best loop shape): %.1f GMAC/s; %% of limit below: of this one\n", amx / 1e9);
      peak = amx;
    }
  }
  CHECK(dnnl_engine_create(&eng, dnnl_cpu, 0));
  CHECK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
  printf("shape                         taskir   oneDNN  taskir/  %% of limit\n"
         "                              GMAC/s   GMAC/s  oneDNN   ti  dnnl  oneDNN kernel\n");
  for (k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {   /* or the shapes named by index */
    int a, on = argc < 2;
    for (a = 1; a < argc; a++) on |= atoi(argv[a]) == (int)k;
    if (on) { ran++; pass += run(&shapes[k], eng, strm, peak) >= 1.0; }
  }
  printf("taskir >= 1.0x oneDNN (median of pairs): %d of %d shapes\n", pass, ran);
  dnnl_stream_destroy(strm);
  dnnl_engine_destroy(eng);
  return 0;
}
#endif
