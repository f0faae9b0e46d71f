/* Element-wise and window primitives: reference vs the vector path chosen
   by ti_cpu_detect(), single-threaded, and both against memcpy of the same
   number of output bytes, all measured in this run. Each line checks that
   the two paths agree before it reports. */
#define _POSIX_C_SOURCE 199309L
#define TASKIR_IMPLEMENTATION
#include "taskir_kernels.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct bcase {
  const char *name;
  int prim;                 /* 0 CADD 1 CAVG 2 CVVH 3 CAX 4 CVS 5 CCMPB 6 CCMPS 7 CLUT 8 CLIF */
  ti_prim_desc d;
} bcase;

static unsigned char *A, *B, *BIAS, *LUT, *OUT_REF, *OUT_VEC, *SCRATCH;
static int32_t *VSTATE;
static ti_lif_params LIF;

static ti_status run(const bcase *c, const ti_kernel_ctx *ctx, void *out) {
  const void *ins[2];
  ins[0] = A; ins[1] = B;
  switch (c->prim) {
  case 0: return ctx ? ti_cadd(ctx, &c->d, ins, BIAS, out) : ti_cadd_ref(&c->d, ins, BIAS, out);
  case 1: return ctx ? ti_cavg(ctx, &c->d, A, BIAS, out) : ti_cavg_ref(&c->d, A, BIAS, out);
  case 2: return ctx ? ti_cvvh(ctx, &c->d, A, B, BIAS, out) : ti_cvvh_ref(&c->d, A, B, BIAS, out);
  case 3: return ctx ? ti_cax(ctx, &c->d, A, B, BIAS, out) : ti_cax_ref(&c->d, A, B, BIAS, out);
  case 4: return ctx ? ti_cvs(ctx, &c->d, A, BIAS, out) : ti_cvs_ref(&c->d, A, BIAS, out);
  case 5: return ctx ? ti_ccmpb(ctx, &c->d, A, out) : ti_ccmpb_ref(&c->d, A, out);
  case 6: return ctx ? ti_ccmps(ctx, &c->d, A, out) : ti_ccmps_ref(&c->d, A, out);
  case 7: return ctx ? ti_clut(ctx, &c->d, A, (const int32_t *)(void *)LUT, (int32_t *)out)
                     : ti_clut_ref(&c->d, A, (const int32_t *)(void *)LUT, (int32_t *)out);
  default: return ctx ? ti_clif(ctx, &c->d, &LIF, A, VSTATE, (int32_t *)out)
                      : ti_clif_ref(&c->d, &LIF, A, VSTATE, (int32_t *)out);
  }
}

/* Seconds per call, repeated until about `budget` seconds have passed. */
static double time_it(const bcase *c, const ti_kernel_ctx *ctx, void *out, double budget) {
  double t0 = now(), t;
  long reps = 0;
  do { run(c, ctx, out); reps++; t = now() - t0; } while (t < budget);
  return t / (double)reps;
}

static double time_memcpy(size_t bytes, double budget) {
  double t0 = now(), t;
  long reps = 0;
  do {
    memcpy(SCRATCH, OUT_REF, bytes);
    __asm__ volatile("" : : "r"(SCRATCH) : "memory");   /* keep the copy */
    reps++; t = now() - t0;
  } while (t < budget);
  return t / (double)reps;
}

static ti_prim_desc flat(int ny, int nx, int nf, ti_dtype t) {
  ti_prim_desc d;
  memset(&d, 0, sizeof d);
  d.ny = ny; d.nx = nx; d.nf = nf; d.in_dtype = t; d.w_dtype = t;
  d.out_dtype = t == TI_DTYPE_F32 ? TI_DTYPE_F32 : TI_DTYPE_I32;
  d.n_branch = 1; d.bias_mode = TI_BIAS_VECTOR;
  return d;
}

static ti_prim_desc win(int niy, int nix, int nf, int k, int s, int pad, ti_dtype t) {
  ti_prim_desc d = flat(1, 1, nf, t);
  d.niy = niy; d.nix = nix; d.nky = d.nkx = k; d.stride_y = d.stride_x = s;
  d.pad_up = d.pad_down = d.pad_left = d.pad_right = pad;
  d.ny = (niy + 2 * pad - k) / s + 1; d.nx = (nix + 2 * pad - k) / s + 1;
  return d;
}

int main(void) {
  enum { NC = 17 };
  bcase cs[NC];
  ti_kernel_ctx ctx;
  size_t big = (size_t)112 * 112 * 64 * 4, i;
  int k, bad = 0;
  unsigned cpu = ti_cpu_detect();
  const double budget = 0.12;
  A = (unsigned char *)malloc(big); B = (unsigned char *)malloc(big);
  BIAS = (unsigned char *)malloc(4096); LUT = (unsigned char *)malloc(4 << 16);
  OUT_REF = (unsigned char *)malloc(big); OUT_VEC = (unsigned char *)malloc(big);
  SCRATCH = (unsigned char *)malloc(big); VSTATE = (int32_t *)malloc(big);
  if (!A || !B || !BIAS || !LUT || !OUT_REF || !OUT_VEC || !SCRATCH || !VSTATE) return 1;
  srand(7);
  for (i = 0; i < big; i++) { A[i] = (unsigned char)rand(); B[i] = (unsigned char)rand(); }
  for (i = 0; i < 4096; i++) BIAS[i] = (unsigned char)rand();
  for (i = 0; i < (size_t)(4 << 16); i++) LUT[i] = (unsigned char)rand();
  ti_lif_params_init(&LIF);
  LIF.vth0 = 1 << 20; LIF.vleaky_adpt_en = 1; LIF.vleaky_alpha = 230; LIF.vleaky_beta = -3;

  k = 0;
  cs[k].name = "CADD  2 x I8 + bias[f]";  cs[k].prim = 0; cs[k].d = flat(56, 56, 64, TI_DTYPE_I8); cs[k].d.n_branch = 2; k++;
  cs[k].name = "CADD  2 x I32 + bias[f]"; cs[k].prim = 0; cs[k].d = flat(56, 56, 64, TI_DTYPE_I32); cs[k].d.n_branch = 2; k++;
  cs[k].name = "CADD  2 x F32 + bias[f]"; cs[k].prim = 0; cs[k].d = flat(56, 56, 64, TI_DTYPE_F32); cs[k].d.n_branch = 2; k++;
  cs[k].name = "CAVG  I8 2x2/2";          cs[k].prim = 1; cs[k].d = win(112, 112, 64, 2, 2, 0, TI_DTYPE_I8); k++;
  cs[k].name = "CAVG  I32 3x3/1 pad 1";   cs[k].prim = 1; cs[k].d = win(56, 56, 64, 3, 1, 1, TI_DTYPE_I32); k++;
  cs[k].name = "CVVH  I8 x I8 + bias[f]"; cs[k].prim = 2; cs[k].d = flat(56, 56, 64, TI_DTYPE_I8); k++;
  cs[k].name = "CAX   I8 x a[f] + bias";  cs[k].prim = 3; cs[k].d = flat(56, 56, 64, TI_DTYPE_I8); k++;
  cs[k].name = "CVS   I32 x c + c";       cs[k].prim = 4; cs[k].d = flat(56, 56, 64, TI_DTYPE_I32);
  cs[k].d.bias_mode = TI_BIAS_CONSTANT; cs[k].d.constant_a = 3; cs[k].d.constant_b = -9; k++;
  cs[k].name = "CVS   F32 x c + bias[f]"; cs[k].prim = 4; cs[k].d = flat(56, 56, 64, TI_DTYPE_F32); cs[k].d.constant_a = 3; k++;
  cs[k].name = "CCMPB I32 2x2/2 >>8 I8";  cs[k].prim = 5; cs[k].d = win(112, 112, 64, 2, 2, 0, TI_DTYPE_I32);
  cs[k].d.bit_shift = 8; cs[k].d.out_dtype = TI_DTYPE_I8; k++;
  cs[k].name = "CCMPB I32 1x1 >>10";      cs[k].prim = 5; cs[k].d = win(56, 56, 64, 1, 1, 0, TI_DTYPE_I32);
  cs[k].d.bit_shift = 10; cs[k].d.cmp = -128; k++;
  cs[k].name = "CCMPB I32 1x1 >>10 I8";   cs[k].prim = 5; cs[k].d = win(56, 56, 64, 1, 1, 0, TI_DTYPE_I32);
  cs[k].d.bit_shift = 10; cs[k].d.cmp = -128; cs[k].d.out_dtype = TI_DTYPE_I8; k++;
  cs[k].name = "CCMPB F32 2x2/2";         cs[k].prim = 5; cs[k].d = win(112, 112, 64, 2, 2, 0, TI_DTYPE_F32);
  cs[k].d.cmp = -1000; k++;
  cs[k].name = "CCMPS I8 3x3/2 pad 1";    cs[k].prim = 6; cs[k].d = win(112, 112, 64, 3, 2, 1, TI_DTYPE_I8); cs[k].d.cmp = 50; k++;
  cs[k].name = "CLUT  I8 lut_dw 8";       cs[k].prim = 7; cs[k].d = flat(56, 56, 64, TI_DTYPE_I8); cs[k].d.lut_dw = 8; k++;
  cs[k].name = "CLUT  I32 lut_dw 12";     cs[k].prim = 7; cs[k].d = flat(56, 56, 64, TI_DTYPE_I32); cs[k].d.lut_dw = 12; k++;
  cs[k].name = "CLIF  I32 adaptive leak"; cs[k].prim = 8; cs[k].d = flat(56, 56, 64, TI_DTYPE_I32); k++;

  ti_kernel_ctx_init(&ctx);
  printf("cpu flags 0x%x; single-threaded; time per call; 'x memcpy' = kernel time / memcpy of the output bytes\n", cpu);
  printf("%-26s %10s %12s %12s %8s %10s\n", "primitive", "elements", "ref Melem/s", "vec Melem/s", "speedup", "x memcpy");
  for (k = 0; k < NC; k++) {
    const bcase *c = &cs[k];
    int64_t n = (int64_t)c->d.ny * c->d.nx * c->d.nf;
    size_t bytes = (size_t)n * (c->prim == 5 ? ti_ccmpb_out_size(&c->d) : 4);   /* CCMPB: out_dtype's storage */
    double tr, tv, tm;
    if (c->d.in_dtype == TI_DTYPE_F32) {   /* finite floats for the float cases */
      float *fa = (float *)(void *)A, *fb = (float *)(void *)B, *fbias = (float *)(void *)BIAS;
      for (i = 0; i < big / 4; i++) { fa[i] = (float)(rand() % 2001 - 1000) / 8.0f; fb[i] = (float)(rand() % 201 - 100) / 4.0f; }
      for (i = 0; i < 1024; i++) fbias[i] = (float)(rand() % 100);
    }
    if (c->prim == 8) for (i = 0; i < (size_t)n; i++) VSTATE[i] = 0;
    if (run(c, 0, OUT_REF) != TI_STATUS_SUCCESS) { printf("%s: reference failed\n", c->name); bad = 1; continue; }
    if (c->prim == 8) for (i = 0; i < (size_t)n; i++) VSTATE[i] = 0;
    if (run(c, &ctx, OUT_VEC) != TI_STATUS_SUCCESS || memcmp(OUT_REF, OUT_VEC, bytes) != 0) {
      printf("%s: vector path disagrees with the reference\n", c->name); bad = 1; continue;
    }
    tr = time_it(c, 0, OUT_REF, budget);
    tv = time_it(c, &ctx, OUT_VEC, budget);
    tm = time_memcpy(bytes, budget);
    printf("%-26s %10lld %12.1f %12.1f %7.1fx %10.2f\n", c->name, (long long)n, 1e-6 * (double)n / tr,
           1e-6 * (double)n / tv, tr / tv, tv / tm);
  }
  free(A); free(B); free(BIAS); free(LUT); free(OUT_REF); free(OUT_VEC); free(SCRATCH); free(VSTATE);
  return bad;
}
