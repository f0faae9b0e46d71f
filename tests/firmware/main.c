/* Firmware image: a few kernels of taskir_kernels.h on a Cortex-M4 without
   a C library. Each result is checked against a plain loop; main returns
   the number of the first wrong check (0: all right). */
#define TASKIR_IMPLEMENTATION
#include "taskir_kernels.h"

static int32_t a[24], b[24], sum[24], tr[24];
static float clip[4 * 2 * 3], shifted[4 * 2 * 3];
static int8_t pool_in[4 * 4 * 2], pool_out[2 * 2 * 2];

int main(void);
int main(void) {
  int i, y, x, f;
  ti_prim_desc d = {0};
  const void *in[2];
  /* CADD: out = a + b + 5 (constant bias), int32 */
  for (i = 0; i < 24; ++i) { a[i] = i * 1000 - 7; b[i] = -3 * i; }
  d.ny = 2; d.nx = 3; d.nf = 4; d.n_branch = 2;
  d.in_dtype = d.w_dtype = d.out_dtype = TI_DTYPE_I32;
  d.bias_mode = TI_BIAS_CONSTANT; d.constant_b = 5;
  in[0] = a; in[1] = b;
  if (ti_cadd(0, &d, in, 0, sum) != TI_STATUS_SUCCESS) return 1;
  for (i = 0; i < 24; ++i)
    if (sum[i] != a[i] + b[i] + 5) return 2;
  /* N-d transpose: [2][3][4] -> [4][2][3] */
  {
    static const int64_t dims[3] = {2, 3, 4};
    static const int perm[3] = {2, 0, 1};
    if (ti_transpose(4, 3, dims, perm, sum, tr) != TI_STATUS_SUCCESS) return 3;
    for (f = 0; f < 4; ++f)
      for (y = 0; y < 2; ++y)
        for (x = 0; x < 3; ++x)
          if (tr[(f * 2 + y) * 3 + x] != sum[(y * 3 + x) * 4 + f]) return 4;
  }
  /* TinShift forward: N 1, T 4, C 2, HW 3, one group shifted by 1 */
  {
    ti_tensor_desc di, ds, dout;
    static const int64_t idims[4] = {1, 4, 2, 3}, sdims[2] = {1, 1};
    static const int32_t shift[1] = {1};
    int t, c;
    for (i = 0; i < 24; ++i) clip[i] = (float)i + 0.5f;
    ti_tensor_desc_set(&di, TI_DTYPE_F32, 4, idims);
    ti_tensor_desc_set(&ds, TI_DTYPE_I32, 2, sdims);
    ti_tensor_desc_set(&dout, TI_DTYPE_F32, 4, idims);
    if (ti_tinshift_forward(&di, clip, &ds, shift, &dout, shifted) != TI_STATUS_SUCCESS) return 5;
    for (t = 0; t < 4; ++t)
      for (c = 0; c < 6; ++c)
        if (shifted[t * 6 + c] != (t == 0 ? 0.0f : clip[(t - 1) * 6 + c])) return 6;
  }
  /* CCMPB: 2x2 max pooling, stride 2, of an int8 [4][4][2] map, shift 1 */
  {
    ti_prim_desc p = {0};
    for (i = 0; i < 32; ++i) pool_in[i] = (int8_t)((i * 37) % 101 - 50);
    p.niy = p.nix = 4; p.ny = p.nx = 2; p.nf = 2; p.nky = p.nkx = 2;
    p.stride_y = p.stride_x = 2; p.bit_shift = 1; p.cmp = -128;
    p.in_dtype = p.w_dtype = p.out_dtype = TI_DTYPE_I8;
    if (ti_ccmpb(0, &p, pool_in, pool_out) != TI_STATUS_SUCCESS) return 7;
    for (y = 0; y < 2; ++y)
      for (x = 0; x < 2; ++x)
        for (f = 0; f < 2; ++f) {
          int m = -128, ky, kx;
          for (ky = 0; ky < 2; ++ky)
            for (kx = 0; kx < 2; ++kx) {
              const int v = pool_in[((2 * y + ky) * 4 + 2 * x + kx) * 2 + f];
              if (v > m) m = v;
            }
          if (pool_out[(y * 2 + x) * 2 + f] != (int8_t)(m >> 1)) return 8;
        }
  }
  return 0;
}
