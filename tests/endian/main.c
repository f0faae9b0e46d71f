/* The NEON kernels on a big-endian aarch64 target: a static image without a
   C library (taskir_kernels.h is freestanding), run under qemu-aarch64_be.
   Each SIMD result is compared with the plain C reference; the exit status
   is the number of the first wrong check (0: all right). Paths checked: the
   wide convolution (int32 and float elements loaded as lanes), the packed
   int8 convolution and the int8 CVM (4-byte groups), and CCMPB's
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

/* CC with 8-bit input (int8 or uint8: it) and int8 weights (the packed
   byte-group path) of nr input channels: SIMD (NEON) against the reference. */
static int conv8_check(int nr, ti_dtype it) {
  static int8_t in8[NI * NI * 64], w8[NF * 64 * NK * NK];
  ti_kernel_ctx ctx;
  ti_prim_desc d = {0};
  size_t bytes = 0;
  uint32_t r = 4242u;
  int i;
  for (i = 0; i < NI * NI * nr; i++) { r = r * 1103515245u + 12345u; in8[i] = (int8_t)(r >> 24); }
  for (i = 0; i < NF * nr * NK * NK; i++) { r = r * 1103515245u + 12345u; w8[i] = (int8_t)(r >> 24); }
  for (i = 0; i < NF; i++) bias_i[i] = i * 1000003 - 7;
  ti_kernel_ctx_init(&ctx);
  d.niy = d.nix = NI; d.nr = nr; d.nf = NF; d.nky = d.nkx = NK;
  d.pad_up = d.pad_down = d.pad_left = d.pad_right = 1;
  d.ny = d.nx = NI;
  d.in_dtype = it; d.w_dtype = TI_DTYPE_I8; d.out_dtype = TI_DTYPE_I32;
  d.bias_mode = TI_BIAS_VECTOR;
  if (ti_cc_scratch_size(&d, 0, &bytes) != TI_STATUS_SUCCESS || bytes > sizeof scratch) return 1;
  if (ti_cc(&ctx, &d, in8, w8, bias_i, out_s, scratch, bytes) != TI_STATUS_SUCCESS) return 2;
  if (ti_cc_ref(&d, in8, w8, bias_i, out_r) != TI_STATUS_SUCCESS) return 3;
  return memcmp(out_s, out_r, sizeof out_s) ? 4 : 0;
}

/* CVM with 8-bit input it and int8 weights, nr inputs, NF outputs. */
static int cvm8_check(int nr, ti_dtype it) {
  static int8_t in8[300], w8[NF * 300];
  ti_kernel_ctx ctx;
  ti_prim_desc d = {0};
  size_t bytes = 0;
  uint32_t r = 99u;
  int i;
  for (i = 0; i < nr; i++) { r = r * 1103515245u + 12345u; in8[i] = (int8_t)(r >> 24); }
  for (i = 0; i < NF * nr; i++) { r = r * 1103515245u + 12345u; w8[i] = (int8_t)(r >> 24); }
  for (i = 0; i < NF; i++) bias_i[i] = 5 - i * 77;
  ti_kernel_ctx_init(&ctx);
  d.nr = nr; d.nf = NF; d.in_dtype = it; d.w_dtype = TI_DTYPE_I8; d.out_dtype = TI_DTYPE_I32;
  d.bias_mode = TI_BIAS_VECTOR;
  memset(out_s, 0x5a, sizeof out_s); memset(out_r, 0x5a, sizeof out_r);
  if (ti_cvm_scratch_size(&d, &bytes) != TI_STATUS_SUCCESS || bytes > sizeof scratch) return 1;
  if (ti_cvm(&ctx, &d, in8, w8, bias_i, out_s, scratch, bytes) != TI_STATUS_SUCCESS) return 2;
  if (ti_cvm_ref(&d, in8, w8, bias_i, out_r) != TI_STATUS_SUCCESS) return 3;
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
  if (!e) { e = conv8_check(3, TI_DTYPE_I8); if (e) e += 80; }
  if (!e) { e = conv8_check(16, TI_DTYPE_U8); if (e) e += 90; }
  if (!e) { e = conv8_check(64, TI_DTYPE_I8); if (e) e += 100; }
  if (!e) { e = cvm8_check(300, TI_DTYPE_I8); if (e) e += 110; }
  if (!e) { e = cvm8_check(77, TI_DTYPE_U8); if (e) e += 120; }
  if (!e) { e = ccmpb_check(TI_DTYPE_I8, 1, NF); if (e) e += 20; }
  if (!e) { e = ccmpb_check(TI_DTYPE_I16, 1, NF); if (e) e += 30; }
  if (!e) { e = ccmpb_check(TI_DTYPE_I8, 2, NF); if (e) e += 40; }
  if (!e) { e = ccmpb_check(TI_DTYPE_U16, 2, NF); if (e) e += 50; }
  if (!e) { e = ccmpb_check(TI_DTYPE_U8, 2, 6); if (e) e += 60; }
  if (!e) { e = ccmpb_check(TI_DTYPE_I16, 3, 5); if (e) e += 70; }
  sys_exit(e);
}
