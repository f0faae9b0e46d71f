/* The NEON kernels on a big-endian aarch64 target: a static image without a
   C library (taskir_kernels.h is freestanding), run under qemu-aarch64_be.
   Each SIMD result is compared with the plain C reference; the exit status
   is the number of the first wrong check (0: all right). Paths checked: the
   wide convolution (int32 and float elements loaded as lanes), and CCMPB's
   narrowing stores to 8- and 16-bit storage (1x1 requantisation, a 2x2 max
   pool on many channels, and the few-channel pool that reduces whole rows). */
#define TASKIR_IMPLEMENTATION
#include "taskir_kernels.h"

#include "../freestanding_mem.h"

enum { NI = 6, NR = 5, NF = 37, NK = 3 };
static int32_t in_i[NI * NI * NR], w_i[NF * NR * NK * NK], bias_i[NF];
static int32_t out_s[NI * NI * NF], out_r[NI * NI * NF];
static unsigned char scratch[1 << 20];

/* CC with in_dtype dt (I32 or F32): SIMD (NEON) against the reference. */
static int conv_check(ti_dtype dt) {
  ti_kernel_ctx ctx;
  ti_prim_desc d = {0};
  size_t bytes = 0;
  int i;
  uint32_t r = 12345u;
  for (i = 0; i < NI * NI * NR; i++) {
    r = r * 1103515245u + 12345u;
    if (dt == TI_DTYPE_F32) { float f = (float)((int)(r >> 20) - 2048) / 64.0f; memcpy(&in_i[i], &f, 4); }
    else in_i[i] = (int32_t)(r >> 8) - 0x400000;
  }
  for (i = 0; i < NF * NR * NK * NK; i++) {
    r = r * 1103515245u + 12345u;
    if (dt == TI_DTYPE_F32) { float f = (float)((int)(r >> 24) - 128) / 32.0f; memcpy(&w_i[i], &f, 4); }
    else w_i[i] = (int32_t)(r >> 16) - 0x8000;
  }
  for (i = 0; i < NF; i++) {
    if (dt == TI_DTYPE_F32) { float f = (float)i * 0.25f - 3.0f; memcpy(&bias_i[i], &f, 4); }
    else bias_i[i] = i * 1000003 - 7;
  }
  ti_kernel_ctx_init(&ctx);
  d.niy = d.nix = NI; d.nr = NR; d.nf = NF; d.nky = d.nkx = NK;
  d.pad_up = d.pad_down = d.pad_left = d.pad_right = 1;
  d.ny = d.nx = NI;
  d.in_dtype = d.w_dtype = dt; d.out_dtype = dt;
  d.bias_mode = TI_BIAS_VECTOR;
  if (ti_cc_scratch_size(&d, 0, &bytes) != TI_STATUS_SUCCESS || bytes > sizeof scratch) return 1;
  if (ti_cc(&ctx, &d, in_i, w_i, bias_i, out_s, scratch, bytes) != TI_STATUS_SUCCESS) return 2;
  if (ti_cc_ref(&d, in_i, w_i, bias_i, out_r) != TI_STATUS_SUCCESS) return 3;
  return memcmp(out_s, out_r, sizeof out_s) ? 4 : 0;
}

/* CCMPB on int32 input into out_dtype odt, window k x k with stride k over
   nf channels: SIMD (NEON) against the reference, byte for byte. */
static int ccmpb_check(ti_dtype odt, int k, int nf) {
  static int8_t o_s[NI * NI * NF * 2 + 16], o_r[NI * NI * NF * 2 + 16];
  ti_kernel_ctx ctx;
  ti_prim_desc d = {0};
  uint32_t r = 777u;
  int i;
  for (i = 0; i < NI * NI * nf; i++) { r = r * 1103515245u + 12345u; in_i[i] = (int32_t)(r >> 4) - 0x8000000; }
  ti_kernel_ctx_init(&ctx);
  d.niy = d.nix = NI; d.nf = nf; d.nky = d.nkx = k; d.stride_y = d.stride_x = k;
  d.ny = d.nx = NI / k;
  d.in_dtype = d.w_dtype = TI_DTYPE_I32; d.out_dtype = odt;
  d.bit_shift = 13; d.cmp = -20000;
  memset(o_s, 0x5a, sizeof o_s); memset(o_r, 0x5a, sizeof o_r);
  if (ti_ccmpb(&ctx, &d, in_i, o_s) != TI_STATUS_SUCCESS) return 1;
  if (ti_ccmpb_ref(&d, in_i, o_r) != TI_STATUS_SUCCESS) return 2;
  return memcmp(o_s, o_r, sizeof o_s) ? 3 : 0;
}

static void sys_exit(int code) {
  register long x0 __asm__("x0") = code;
  register long x8 __asm__("x8") = 93;   /* exit */
  __asm__ volatile("svc #0" : : "r"(x0), "r"(x8) : "memory");
  for (;;) {}
}

void _start(void);
void _start(void) {
  int e = conv_check(TI_DTYPE_I32);
  if (!e) { e = conv_check(TI_DTYPE_F32); if (e) e += 10; }
  if (!e) { e = ccmpb_check(TI_DTYPE_I8, 1, NF); if (e) e += 20; }
  if (!e) { e = ccmpb_check(TI_DTYPE_I16, 1, NF); if (e) e += 30; }
  if (!e) { e = ccmpb_check(TI_DTYPE_I8, 2, NF); if (e) e += 40; }
  if (!e) { e = ccmpb_check(TI_DTYPE_U16, 2, NF); if (e) e += 50; }
  if (!e) { e = ccmpb_check(TI_DTYPE_U8, 2, 6); if (e) e += 60; }
  if (!e) { e = ccmpb_check(TI_DTYPE_I16, 3, 5); if (e) e += 70; }
  sys_exit(e);
}
