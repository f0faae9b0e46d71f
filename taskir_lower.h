/* taskir_lower.h - v0.1.0 - lowering nn programs to Task IR (the transformer's last step).

   Part of taskir (header-only C99, stb style). Needs taskir.h and
   taskir_layout.h (both included here).

   DO THIS in *one* C or C++ file:
       #define TASKIR_IMPLEMENTATION
       #include "taskir_lower.h"       (also implements taskir.h, taskir_layout.h)

   EXAMPLE
       ti_lower_options o; ti_task_graph g; ti_error e;
       ti_lower_options_init(&o);
       if (ti_lower_to_task(program, &o, &g, &e) != TI_STATUS_SUCCESS) {
         puts(e.message);                // "lower: op #3 nn.div: the divisor is an activation ..."
       } else {
         ... ti_task_check(&g, NULL, &e); ti_exec_plan(&g, NULL, &x, &e); ...
         ti_task_graph_free(&g);
       }

   WHAT IT DOES (SPEC §7)
     ti_lower_to_task runs LayoutTransmit and LayoutPresetToNPU on the program
     (in place: conv-class ops then read NHWC activations), then maps every op
     to task blocks the way the reference transformer groups them: one compute
     block plus the storage blocks of its operands, one group per op.
       program argument k   INPUT block, socket k (values in the argument's
                            row-major storage order), precision of its dtype
       result k             SI -> OUTPUT block, socket k (row-major storage
                            order of the returned value)
       quant_conv2d         SIC + SW + SB -> CC (INT_32); with `shift`, then
                            SI -> CCMPB (INT_8, BIT_SHIFT_NUM = shift, CMP =
                            clip_min). A max_pool that is the only user of
                            that i8 result fuses as the CCMPB window (else the
                            window is 1x1); a relu that alone reads it (also
                            through single-user views) fuses as CMP =
                            max(clip_min, 0), with a max_pool before or
                            after it (one CCMPB for requant + relu + pool;
                            ti__lw_rq_fusion). group > 1: the weights are
                            expanded to a block-diagonal dense kernel.
                            Batch N > 1: one CC for the batch; the edge into
                            the SIC stacks the items along y, each with its
                            padding rows (zeros: SHUFFLE index -1) and
                            padded to Hp rows, a multiple of STRIDE_Y; the
                            CC slides over the stack (no PAD_UP/DOWN), item
                            b's results are its output rows b*Hp/STRIDE_Y +
                            0..OH-1, picked by the SHUFFLE on the edge to
                            the requant SI (without shift: to an SI read by
                            a one-branch CADD copy). No pool fusion then.
       quant_gemm           SIFC + SWFC + SB -> CVM (INT_32); with `shift`
                            SI -> CCMPB (1-D form) as above (a relu fuses
                            as its CMP). M > 1 rows
                            (e.g. a batch after flatten): SIC [1][M][K] + SW
                            [N][K][1][1] + SB -> one 1x1 CC, CCMPB 1x1.
       max_pool             SI -> CCMPB (window, BIT_SHIFT_NUM 0, CMP = the
                            dtype's minimum). Batch > 1 or a dilation: the
                            taps of every window are gathered on the edge
                            (rows; columns too when dilated along x) and the
                            window steps over them by its own size.
       avg_pool,            SI -> CAVG (window *sum*, INT_32), then SI -> CCMPB
       global_avg_pool      with BIT_SHIFT_NUM = log2(window): the mean's
                            division folded into the shift (see SUBSET)
       relu, clip           SI -> CCMPB 1x1 (CMP = 0 / min; a relu of a
                            requantised result: fused, above); i32 values (and
                            i32 means' shifts): the 2x1 CCMPB of div below
       add                  SI + SI -> CADD (INT_32); a constant operand that
                            varies along one axis is its bias (SB) - along
                            another axis than the last, the op is computed
                            with that axis last (activations PERMUTEd in,
                            the result back); an activation that broadcasts
                            is replicated on its edge (SHUFFLE of zeros per
                            broadcast axis); an i8 result is saturated by a
                            CCMPB 1x1 after it
       sub                  a - b: b -> CVS (CONSTANT_A = -1) -> SI, then
                            CADD; a - c: CADD with the bias -c; c - a: CVS
                            (CONSTANT_A = -1) with the bias c (SB, or
                            CONSTANT_B for a scalar); saturated as for add
       mul                  elementwise: SI + SI -> CVVH; by a constant along
                            one axis: SI + SB (alpha) -> CAX; by a scalar
                            constant: CVS (CONSTANT_A); broadcasts and i8
                            results as for add
       div                  by a constant 2^k: values known non-negative ->
                            one CCMPB (BIT_SHIFT_NUM k; its window is 2x1
                            over each row twice, duplicated by a SHUFFLE,
                            because a 1x1 CCMPB clips to 127 whatever its
                            precision); signed values -> trunc(x / 2^k) =
                            floor(max(x,0) / 2^k) + ceil(min(x,0) / 2^k),
                            the second as floor((x - max(x,0) + 2^k - 1) /
                            2^k): three such CCMPB (shift k CMP 0, shift 0
                            CMP 0, shift k CMP = the dtype's minimum), a CVS
                            (CONSTANT_A -1, CONSTANT_B 2^k - 1), two CADD;
                            nothing negates x, so INT32_MIN is exact.
                            k = 0: x itself.
       broadcast            numpy rules in storage order: the same number of
                            elements (only the rank changes) -> no block, a
                            view; else SI -> one-branch CADD (a copy), the
                            operand replicated on the edge into the SI as
                            for add (SHUFFLE of zeros per broadcast axis)
       lut                  SI + SB (table, 2^8 entries) -> CLUT (LUT_DW 8)
       lif                  SI (x) + SI (the membrane state) -> CLIF (VTH0 =
                            floor(vth), VR = v_reset): v must be a program
                            argument only this lif reads; it has no INPUT
                            block but becomes the CLIF's state SI (initial
                            potential VINIT = 0, written back every run), and
                            a returned v_new has no OUTPUT block: its socket
                            is unused, read the state block instead. decay
                            != 1: VLEAKY_ADPT_EN 1, VLEAKY_ALPHA = 256 *
                            decay (CLIF leaks after the step, so the state
                            block holds decay * v_new: the next step's
                            decay * v + x)
       reshape, flatten,    no block: edge rearrangements on the edges that
       transpose            read the value (PERMUTE, RESHAPE with its axis
                            order); consecutive transposes compose and
                            inverse ones cancel
       concat, slice        interfaces with position and size: the parts
                            (or the sub-box of the source) meet on the input
                            cluster of an SI feeding a one-branch CADD (a copy)
     Weights (builtin.get_parameter of the weights table, builtin.constant,
     and pure nn ops on them) are evaluated at lowering time and become the
     data of SW/SWFC/SB blocks.

   SUBSET (what lowers, bit for bit: the executor on the lowered graph gives
   exactly the interpreter's outputs on the same inputs)
     - dtypes: i8 and i32 only; any f16/f32/f64 value refuses the program
       ("Task IR here is integer: quantise the model first (quantize-recognize)").
     - 4-D activations [N,C,H,W] / [N,H,W,C], any batch N; quant_gemm with
       any M (M = 1: CVM, M > 1: a 1x1 CC).
     - quant_conv2d / quant_gemm: x, w i8, bias i32 (constants for w and b).
       Without `shift` the i32 accumulator is the result.
     - plain conv2d / gemm / matmul on integers are refused: their
       interpreter saturates to the operand dtype (use the quant ops).
     - max_pool: any window, stride, dilation, padding (padding only when
       the input is known non-negative: the chip's padded window sees 0).
     - avg_pool / global_avg_pool: window area a power of two (any stride or
       dilation), no padding
       unless count_include_pad = 1, and the input known non-negative (the
       interpreter's mean truncates towards zero, the chip's shift floors:
       they agree on non-negative sums). Known non-negative: the result of a
       quant op with clip_min >= 0, relu, clip with min >= 0, and pools,
       views, concats and slices of such values.
     - add / sub / mul of two values of one dtype (a 4-D operand in the
       other CNN layout is converted, as the interpreter does; either may
       broadcast, numpy rules), or with a constant that is a scalar or
       varies along one axis (a constant varying along several axes is
       refused: CADD/CAX/CVS take a bias or scale per f; with such a
       constant off the last axis, a broadcasting activation must have the
       result's rank). i8 results saturate (CCMPB), exactly as the
       interpreter; i32 results wrap on the chip where the interpreter
       saturates, so they agree while no sum leaves int32.
     - div: the divisor a constant, one positive power of two 2^k (k <=
       31) for every element; an activation divisor or any other constant
       is refused (no block divides). The dividend does not broadcast.
       Exact over the whole dtype range (INT32_MIN included).
     - relu on i8/i32; clip with max >= the dtype's maximum.
     - lut: i8 index with the default offset 128 (or any offset whose
       table covers -128..127), an integer table.
     - concat along any axis; slice with steps 1.
     - lif: x and v i32, an integer decay (a fraction is refused: CLIF
       floors VLEAKY_ALPHA/256 * v where the interpreter keeps the fraction
       of decay * v and compares it with vth), v_reset an integer, within CLIF's
       28-bit registers (the interpreter saturates at int32 where CLIF
       clamps at 28 bits: equal while |v| < 2^27). An argument nothing reads
       gets no INPUT block.
     - everything else is refused with the op, its index and the reason
       (softmax, mirror, plain conv2d / gemm on integers, ...). A slice of a
       batched 4-D value that cuts H or W (N and H share the block's y axis)
       is refused.
     Intermediates: storage carries 32 bits; i8 values stay in -128..127
     because every i8 result comes out of a CCMPB clip (or is an input, or
     a quotient of a div, within its dividend's range). A 1x1 CCMPB clips
     to 127 whatever its precision: i32 relu / clip / mean shifts use the
     2x1 form of div.

   ERRORS
     Every failure returns a status and fills the ti_error: NOT_SUPPORTED for
     an op or case outside the subset ("lower: op #4 nn.avg_pool: window 3x3
     (9 positions) is not a power of two: its mean has no shift"),
     INVALID for a broken program, NO_MEMORY. On failure the graph is left
     empty (initialised, or reset with reuse_graph: nothing to free beyond
     ti_task_graph_free).

   LICENSE: MIT, see the end of this file.
*/
#ifndef TASKIR_LOWER_H
#define TASKIR_LOWER_H

#ifndef TASKIR_VERSION_MAJOR
#define TASKIR_VERSION_MAJOR 0
#define TASKIR_VERSION_MINOR 1
#define TASKIR_VERSION_PATCH 0
#define TASKIR_VERSION_STRING "0.1.0"
#endif

#ifdef TASKIR_NO_NN
#error "taskir_lower.h needs the nn dialect (it lowers nn programs): do not define TASKIR_NO_NN"
#endif

#include "taskir_layout.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ti_lower_options {
  ti_layout_options layout;   /* options of the two layout passes */
  int skip_layout;            /* 1: do not run the layout passes (the program
                                 is lowered as it is; conv-class operands are
                                 then permuted on the edges) */
  void *alloc_user;           /* allocator user of the graph and temporaries */
  int reuse_graph;            /* 1: g already holds a graph (ti_task_graph_init,
                                 or an earlier lowering) of the same
                                 alloc_user: it is emptied with
                                 ti_task_graph_reset and its memory filled
                                 again rather than initialised afresh (a
                                 process lowering model after model touches
                                 no fresh pages for the graph). A graph of
                                 another allocator is freed first. */
} ti_lower_options;

TASKIR_API void ti_lower_options_init(ti_lower_options *o);
/* Lowers an SSA nn program (verified, static shapes) to a Task IR graph.
   The program is rewritten in place by the layout passes first (same
   outputs). g is initialised here (free it with ti_task_graph_free, also
   after a failure), or reset when o->reuse_graph. o may be NULL
   (defaults). */
TASKIR_API TI_NODISCARD ti_status ti_lower_to_task(ti_program *p, const ti_lower_options *o, ti_task_graph *g, ti_error *err);

#ifdef __cplusplus
}
#endif
#endif /* TASKIR_LOWER_H */

/* ======================================================================== */
#if defined(TASKIR_IMPLEMENTATION) && !defined(TASKIR_LOWER_IMPL_INCLUDED)
#define TASKIR_LOWER_IMPL_INCLUDED

#include <string.h>
#include <stdio.h>

#define TI__LW_MAX_STEPS 8

/* A permutation of a box: out dims[i] = in dims[perm[i]]. */
typedef struct ti__lw_step {
  int32_t rank;
  int64_t in_dims[TI_MAX_RANK];
  int32_t perm[TI_MAX_RANK];
} ti__lw_step;

/* What a value of the program is on the graph: the output (cluster 0) of
   block `block` seen as a row-major box dims0, then the steps; the value is
   the result reshaped (row-major) to its type's dims. block -1: a constant
   (evaluated when a block needs its data). */
typedef struct ti__lw_val {   /* 32 bytes: two per op, all held to the end */
  const ti__lw_step *steps;   /* in the lowering's arena; copied on change (values share them) */
  int32_t block;
  int32_t dims0[4];     /* a block's dims (int32 on the wire) */
  unsigned rank0 : 3;   /* <= 4 */
  unsigned n_steps : 4; /* <= TI__LW_MAX_STEPS */
  unsigned nonneg : 1;  /* every element known >= 0 */
  unsigned fused : 1;   /* consumed by a fusion: the producing op already made it */
  unsigned state : 1;   /* a CLIF membrane potential: block is its state SI */
} ti__lw_val;

typedef struct ti__lw {
  ti_program *p;
  ti_task_graph *g;
  void *au;
  ti_error *err;
  int32_t next_id;
  ti__lw_val *vals;     /* per op: 2 slots (results) */
  ti__lw_val *args;
  ti_op **ops;
  int64_t n_ops;
  const ti_op *cur;     /* op being lowered (for messages) */
  int64_t cur_index;
  int32_t *grp;         /* block ids of the current group */
  int32_t n_grp;
  int64_t cap_grp;
  ti_task_group *groups;
  int32_t n_groups;
  int64_t cap_groups;
  ti_arena arena;       /* steps of the values */
} ti__lw;

TASKIR_API void ti_lower_options_init(ti_lower_options *o) {
  memset(o, 0, sizeof *o);
  ti_layout_options_init(&o->layout);
}

static ti_status ti__lw_fail(ti__lw *L, ti_status st, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
#ifdef TASKIR_NO_ERRMSG   /* see ti_error_set */
#define ti__lw_fail(L, st, ...) (TI__NOMSG(__VA_ARGS__), (ti__lw_fail)((L), (st), NULL))
static ti_status (ti__lw_fail)(ti__lw *L, ti_status st, const char *fmt, ...) {
  (void)fmt;
  return (ti_error_set)(L->err, st, NULL);
}
#else
static ti_status ti__lw_fail(ti__lw *L, ti_status st, const char *fmt, ...) {
  char msg[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (L->cur) return ti_error_set(L->err, st, "lower: op #%lld %s: %s", (long long)L->cur_index, L->cur->info->name, msg);
  return ti_error_set(L->err, st, "lower: %s", msg);
}
#endif
#define TI__LW_TRY(x) do { ti_status ti__lw_st_ = (x); if (ti__lw_st_ != TI_STATUS_SUCCESS) return ti__lw_st_; } while (0)
#define TI__LW_NOSUP(L, ...) ti__lw_fail((L), TI_STATUS_NOT_SUPPORTED, __VA_ARGS__)
#define TI__LW_OOM(L) ti__lw_fail((L), TI_STATUS_NO_MEMORY, "out of memory")

static ti__lw_val *ti__lw_of(ti__lw *L, const ti_value *v) {
  if (!v->def) return &L->args[v->index];
  return &L->vals[v->def->order * 2 + (v->index < 2 ? v->index : 1)];
}
static int64_t ti__lw_numel(int32_t r, const int64_t *d) {
  int64_t n = 1;
  int32_t i;
  for (i = 0; i < r; i++) n *= d[i];
  return n;
}
static int ti__lw_dims_eq(int32_t ra, const int64_t *a, int32_t rb, const int64_t *b) {
  int32_t i;
  if (ra != rb) return 0;
  for (i = 0; i < ra; i++) if (a[i] != b[i]) return 0;
  return 1;
}
static int ti__lw_ispow2(int64_t v, int32_t *lg) {
  int32_t k = 0;
  if (v < 1 || (v & (v - 1))) return 0;
  while (((int64_t)1 << k) < v) k++;
  *lg = k;
  return 1;
}

/* ---- blocks, groups ---- */

static ti_task_shape ti__lw_shape(int32_t ny, int32_t nx, int32_t nf, int32_t nr) {
  return ti_task_shape_make(ny, nx, nf, nr, 0, 0, 0, 0);
}
static ti_status ti__lw_group_add(ti__lw *L, int32_t id) {
  if (!ti__grow(L->au, &L->grp, sizeof *L->grp, &L->cap_grp, (int64_t)L->n_grp + 1, 16, INT32_MAX)) return TI__LW_OOM(L);
  L->grp[L->n_grp++] = id;
  return TI_STATUS_SUCCESS;
}
/* Closes the current group (if it has blocks). */
static ti_status ti__lw_group_end(ti__lw *L) {
  ti_task_group *gr;
  if (!L->n_grp) return TI_STATUS_SUCCESS;
  if (!ti__grow(L->au, &L->groups, sizeof *L->groups, &L->cap_groups, (int64_t)L->n_groups + 1, 16, INT32_MAX))
    return TI__LW_OOM(L);
  gr = &L->groups[L->n_groups];
  memset(gr, 0, sizeof *gr);
  gr->has = TI_GROUP_HAS_ID;
  gr->group_id = L->n_groups;
  gr->n_block_ids = L->n_grp;
  gr->block_ids = (int32_t *)ti_arena_array_uninit(&L->g->arena, (size_t)L->n_grp, sizeof(int32_t), 8);
  if (!gr->block_ids) return TI__LW_OOM(L);
  memcpy(gr->block_ids, L->grp, (size_t)L->n_grp * sizeof(int32_t));
  L->n_groups++;
  L->n_grp = 0;
  return TI_STATUS_SUCCESS;
}
/* A new block in the current group (grouped = 0: in none). */
/* Blocks are named by id: the graph's block array moves as it grows.
   Returns the new block's id, -1 on failure (err filled). */
static int32_t ti__lw_block(ti__lw *L, ti_block_type t, ti_dtype prec, ti_task_shape s, int grouped) {
  ti_task_block *b = ti_task_add_block(L->g, L->next_id, t, prec, &s);
  if (!b) { TI__LW_OOM(L); return -1; }
  if (grouped && ti__lw_group_add(L, L->next_id) != TI_STATUS_SUCCESS) return -1;
  return L->next_id++;
}
/* Ids are given in order from 0, so block id k sits at index k: O(1). */
static ti_task_block *ti__lw_blk(ti__lw *L, int32_t id) {
  if (id >= 0 && id < L->g->n_blocks && L->g->blocks[id].id == id) return &L->g->blocks[id];
  return (ti_task_block *)ti_task_find_block(L->g, id);
}
static ti_status ti__lw_attr(ti__lw *L, int32_t b, ti_attr_type t, int64_t v) {
  if (ti_task_add_attr(L->g, ti__lw_blk(L, b), t, (int32_t)v) != TI_STATUS_SUCCESS) return TI__LW_OOM(L);
  return TI_STATUS_SUCCESS;
}
/* Window attributes: kernel, stride, pads [top, left, bottom, right], dilation. */
static ti_status ti__lw_window(ti__lw *L, int32_t b, const int64_t *k, const int64_t *s, const int64_t *pd,
                               const int64_t *dil) {
  TI__LW_TRY(ti__lw_attr(L, b, TI_TASK_ATTR_KERNEL_X, k[1]));
  TI__LW_TRY(ti__lw_attr(L, b, TI_TASK_ATTR_KERNEL_Y, k[0]));
  TI__LW_TRY(ti__lw_attr(L, b, TI_TASK_ATTR_STRIDE_X, s[1]));
  TI__LW_TRY(ti__lw_attr(L, b, TI_TASK_ATTR_STRIDE_Y, s[0]));
  if (pd[0]) TI__LW_TRY(ti__lw_attr(L, b, TI_TASK_ATTR_PAD_UP, pd[0]));
  if (pd[2]) TI__LW_TRY(ti__lw_attr(L, b, TI_TASK_ATTR_PAD_DOWN, pd[2]));
  if (pd[1]) TI__LW_TRY(ti__lw_attr(L, b, TI_TASK_ATTR_PAD_LEFT, pd[1]));
  if (pd[3]) TI__LW_TRY(ti__lw_attr(L, b, TI_TASK_ATTR_PAD_RIGHT, pd[3]));
  if (dil) {
    TI__LW_TRY(ti__lw_attr(L, b, TI_TASK_ATTR_DILATION_X, dil[1]));
    TI__LW_TRY(ti__lw_attr(L, b, TI_TASK_ATTR_DILATION_Y, dil[0]));
  }
  return TI_STATUS_SUCCESS;
}
static void ti__lw_win_shape(ti_task_shape *s, int64_t ky, int64_t kx, int64_t iy, int64_t ix) {
  ti_task_shape_set(s, TI_SHAPE_HAS_NKY, (int32_t)ky);
  ti_task_shape_set(s, TI_SHAPE_HAS_NKX, (int32_t)kx);
  ti_task_shape_set(s, TI_SHAPE_HAS_NIY, (int32_t)iy);
  ti_task_shape_set(s, TI_SHAPE_HAS_NIX, (int32_t)ix);
}
static ti_status ti__lw_link(ti__lw *L, int32_t src, int32_t dst, int32_t dst_cluster) {
  if (!ti_task_connect(L->g, ti__lw_blk(L, src), 0, NULL, NULL, ti__lw_blk(L, dst), dst_cluster, NULL, NULL)) return TI__LW_OOM(L);
  return TI_STATUS_SUCCESS;
}
/* Data of a storage block from int64 values (checked to fit int32). */
static ti_status ti__lw_data(ti__lw *L, int32_t b, ti_dtype prec, int32_t nd, const int32_t *dims,
                             const int64_t *v, int64_t n) {
  int32_t *tmp;
  int64_t i;
  ti_status st;
  tmp = (int32_t *)TASKIR_MALLOC(L->au, (size_t)(n ? n : 1) * sizeof *tmp);
  if (!tmp) return TI__LW_OOM(L);
  for (i = 0; i < n; i++) {
    if (v[i] < INT32_MIN || v[i] > INT32_MAX) {
      TASKIR_FREE(L->au, tmp);
      return TI__LW_NOSUP(L, "constant value %lld (element %lld) does not fit int32", (long long)v[i], (long long)i);
    }
    tmp[i] = (int32_t)v[i];
  }
  st = ti_task_set_data(L->g, ti__lw_blk(L, b), prec, nd, dims, tmp);
  TASKIR_FREE(L->au, tmp);
  if (st != TI_STATUS_SUCCESS) return ti__lw_fail(L, st, "cannot set the data of block %d", (int)b);
  return TI_STATUS_SUCCESS;
}

/* ---- rearrangements ---- */

static ti_status ti__lw_rearr(ti__lw *L, ti_task_edge *e, ti_rearrange_kind kind, int32_t n0, const int32_t *m0,
                              int32_t n1, const int64_t *m1) {
  ti_task_rearrange *r;
  ti_task_tensor *m;
  int32_t k, i;
  if (ti_task_add_rearrange(L->g, e, kind, 0, NULL, NULL, 0) != TI_STATUS_SUCCESS) return TI__LW_OOM(L);
  r = &e->rearrange[e->n_rearrange - 1];
  r->n_matrix = n1 ? 2 : 1;
  r->matrix = m = (ti_task_tensor *)ti_arena_array_uninit(&L->g->arena, (size_t)r->n_matrix, sizeof *m, 8);
  if (!m) return TI__LW_OOM(L);
  for (k = 0; k < r->n_matrix; k++) {
    int32_t n = k ? n1 : n0;
    int32_t *d = (int32_t *)ti_arena_array_uninit(&L->g->arena, (size_t)n + 1, sizeof(int32_t), 8);
    int32_t *v = (int32_t *)ti_arena_array_uninit(&L->g->arena, (size_t)n + 1, sizeof(int32_t), 8);
    if (!d || !v) return TI__LW_OOM(L);
    for (i = 0; i < n; i++) v[i] = k ? (int32_t)m1[i] : m0[i];
    d[0] = n;
    memset(&m[k], 0, sizeof m[k]);
    m[k].has = TI_TENSOR_HAS_PRECISION;
    m[k].precision = TI_DTYPE_I32;
    m[k].n_dims = 1;
    m[k].dims = d;
    m[k].int32_data.count = n;
    m[k].int32_data.storage = TI_DTYPE_I32;
    m[k].int32_data.data = v;
  }
  return TI_STATUS_SUCCESS;
}
/* A plain row-major reshape of the current box (rank r) to dims. */
static ti_status ti__lw_reshape(ti__lw *L, ti_task_edge *e, int32_t r, int32_t rn, const int64_t *dims) {
  int32_t ord[TI_MAX_RANK], i;
  for (i = 0; i < r; i++) ord[i] = r - 1 - i;
  return ti__lw_rearr(L, e, TI_REARRANGE_RESHAPE, r, ord, rn, dims);
}

/* Adds the permutation perm of a box in_dims (rank r) to v: size-1 axes are
   dropped, a permutation following another one without a reshape between
   them composes with it, and an identity vanishes (inverse transposes
   cancel). */
static ti_status ti__lw_push(ti__lw *L, ti__lw_val *v, int32_t r, const int64_t *in_dims, const int32_t *perm) {
  ti__lw_step s;
  int32_t map[TI_MAX_RANK], i, n = 0, ident = 1;
  for (i = 0; i < r; i++) {
    map[i] = in_dims[i] != 1 ? n : -1;
    if (in_dims[i] != 1) s.in_dims[n++] = in_dims[i];
  }
  s.rank = n;
  n = 0;
  for (i = 0; i < r; i++)
    if (in_dims[perm[i]] != 1) s.perm[n++] = map[perm[i]];
  for (i = 0; i < s.rank; i++) if (s.perm[i] != i) ident = 0;
  if (ident) return TI_STATUS_SUCCESS;
  if (v->n_steps) {   /* steps are shared by values and never changed in place */
    const ti__lw_step *p = &v->steps[v->n_steps - 1];
    int64_t pout[TI_MAX_RANK];
    for (i = 0; i < p->rank; i++) pout[i] = p->in_dims[p->perm[i]];
    if (ti__lw_dims_eq(p->rank, pout, s.rank, s.in_dims)) {
      ti__lw_step *ns;
      int32_t c[TI_MAX_RANK];
      ident = 1;
      for (i = 0; i < s.rank; i++) { c[i] = p->perm[s.perm[i]]; if (c[i] != i) ident = 0; }
      if (ident) {   /* the last step cancels: the shared prefix stays, nothing is copied */
        if (!--v->n_steps) v->steps = NULL;
        return TI_STATUS_SUCCESS;
      }
      ns = (ti__lw_step *)ti_arena_array_uninit(&L->arena, (size_t)v->n_steps, sizeof *ns, 8);
      if (!ns) return TI__LW_OOM(L);
      memcpy(ns, v->steps, (size_t)v->n_steps * sizeof *ns);
      for (i = 0; i < s.rank; i++) ns[v->n_steps - 1].perm[i] = c[i];
      v->steps = ns;
      return TI_STATUS_SUCCESS;
    }
  }
  if (v->n_steps == TI__LW_MAX_STEPS)
    return TI__LW_NOSUP(L, "more than %d transposes separated by reshapes in a row", TI__LW_MAX_STEPS);
  {   /* a copy: other values may share the steps */
    ti__lw_step *ns = (ti__lw_step *)ti_arena_array_uninit(&L->arena, (size_t)v->n_steps + 1, sizeof *ns, 8);
    if (!ns) return TI__LW_OOM(L);
    if (v->n_steps) memcpy(ns, v->steps, (size_t)v->n_steps * sizeof *ns);
    ns[v->n_steps++] = s;
    v->steps = ns;
  }
  return TI_STATUS_SUCCESS;
}

/* Gathers on an edge (SHUFFLE along an axis, index -1 gives 0): the value,
   once it is the box dims (rank), is gathered along axis[i] by idx[i]
   (len[i] entries) in turn. They replicate (a broadcast operand) or pick
   the windows of a pool / conv (batch, dilation, padding rows). */
typedef struct ti__lw_gather {
  int32_t rank;
  int64_t dims[TI_MAX_RANK];
  int32_t n;
  int32_t axis[TI_MAX_RANK];
  const int32_t *idx[TI_MAX_RANK];
  int32_t len[TI_MAX_RANK];
} ti__lw_gather;

/* Connects value v (plus the extra permutation `perm` of its dims, NULL for
   none) to input cluster dst_cluster of dst, whose box is dst_dims (rank
   rd), adding the rearrangements that turn the source box into it. pos/size:
   the destination interface (NULL: the whole cluster). gx: gathers applied
   last (NULL: none). */
static ti_status ti__lw_feed_gx(ti__lw *L, const ti_value *val, const int32_t *perm, int32_t dst,
                                int32_t dst_cluster, int32_t rd, const int64_t *dst_dims, const ti_task_shape *pos,
                                const ti_task_shape *size, const ti__lw_gather *gx) {
  ti__lw_val v = *ti__lw_of(L, val);
  ti_task_block *src;
  ti_task_edge *e;
  int64_t cur[TI_MAX_RANK];
  int32_t rc, i, k;
  if (v.block < 0) return TI__LW_NOSUP(L, "a constant used as an activation has no Task IR form here");
  if (v.state) return TI__LW_NOSUP(L, "a lif membrane potential is the CLIF's state block: it can only be returned");
  if (perm) TI__LW_TRY(ti__lw_push(L, &v, val->type->rank, val->type->dims, perm));
  src = ti__lw_blk(L, v.block);
  e = ti_task_connect(L->g, src, 0, NULL, NULL, ti__lw_blk(L, dst), dst_cluster, pos, size);
  if (!e) return TI__LW_OOM(L);
  rc = v.rank0;
  for (i = 0; i < rc; i++) cur[i] = v.dims0[i];
  for (k = 0; k < v.n_steps; k++) {
    const ti__lw_step *s = &v.steps[k];
    int64_t out[TI_MAX_RANK];
    int32_t ord[TI_MAX_RANK];
    const int64_t *next = NULL;
    int32_t rn = 0;
    if (!ti__lw_dims_eq(rc, cur, s->rank, s->in_dims)) {
      TI__LW_TRY(ti__lw_reshape(L, e, rc, s->rank, s->in_dims));
      rc = s->rank;
      for (i = 0; i < rc; i++) cur[i] = s->in_dims[i];
    }
    for (i = 0; i < rc; i++) out[i] = cur[s->perm[i]];
    if (k + 1 < v.n_steps) { next = v.steps[k + 1].in_dims; rn = v.steps[k + 1].rank; }
    else if (gx) { next = gx->dims; rn = gx->rank; }
    else { next = dst_dims; rn = rd; }
    if (ti__lw_dims_eq(rc, out, rn, next)) {
      TI__LW_TRY(ti__lw_rearr(L, e, TI_REARRANGE_PERMUTE, rc, s->perm, 0, NULL));
    } else {
      /* RESHAPE lists the source axes fastest first: the permutation reversed */
      for (i = 0; i < rc; i++) ord[i] = s->perm[rc - 1 - i];
      TI__LW_TRY(ti__lw_rearr(L, e, TI_REARRANGE_RESHAPE, rc, ord, rn, next));
      for (i = 0; i < rn; i++) out[i] = next[i];
    }
    rc = k + 1 < v.n_steps ? rn : rn;
    for (i = 0; i < rc; i++) cur[i] = out[i];
  }
  if (gx) {
    if (!ti__lw_dims_eq(rc, cur, gx->rank, gx->dims)) TI__LW_TRY(ti__lw_reshape(L, e, rc, gx->rank, gx->dims));
    rc = gx->rank;
    for (i = 0; i < rc; i++) cur[i] = gx->dims[i];
    for (k = 0; k < gx->n; k++) {
      int64_t ax = gx->axis[k];
      TI__LW_TRY(ti__lw_rearr(L, e, TI_REARRANGE_SHUFFLE, gx->len[k], gx->idx[k], 1, &ax));
      cur[ax] = gx->len[k];
    }
  }
  if (!ti__lw_dims_eq(rc, cur, rd, dst_dims)) TI__LW_TRY(ti__lw_reshape(L, e, rc, rd, dst_dims));
  return TI_STATUS_SUCCESS;
}
static ti_status ti__lw_feed_box(ti__lw *L, const ti_value *val, const int32_t *perm, int32_t dst,
                                 int32_t dst_cluster, int32_t rd, const int64_t *dst_dims, const ti_task_shape *pos,
                                 const ti_task_shape *size) {
  return ti__lw_feed_gx(L, val, perm, dst, dst_cluster, rd, dst_dims, pos, size, NULL);
}
/* The same into a whole storage block. */
static ti_status ti__lw_feed(ti__lw *L, const ti_value *val, const int32_t *perm, int32_t dst) {
  int64_t dims[4];
  int32_t rd = ti_task_block_dims(ti__lw_blk(L, dst), dims);
  return ti__lw_feed_box(L, val, perm, dst, 0, rd, dims, NULL, NULL);
}

/* Sets the value of result r of the current op: the output of block b
   (its box dims0, rank r0), then the permutation perm of that box seen as
   pre (rank rp) dims, if perm is not NULL. */
static ti_status ti__lw_set(ti__lw *L, const ti_value *res, int32_t b, int nonneg, int32_t rp,
                            const int64_t *pre, const int32_t *perm) {
  ti__lw_val *v = ti__lw_of(L, res);
  int64_t d[4];
  int32_t i, r;
  memset(v, 0, sizeof *v);
  v->block = b;
  r = ti_task_block_dims(ti__lw_blk(L, b), d);
  if (r < 0 || r > 4) return ti__lw_fail(L, TI_STATUS_INVALID, "block %d has no dims (a lowering bug)", (int)b);
  v->rank0 = (unsigned)r;
  for (i = 0; i < r; i++) v->dims0[i] = (int32_t)d[i];
  v->nonneg = nonneg != 0;
  if (perm) TI__LW_TRY(ti__lw_push(L, v, rp, pre, perm));
  return TI_STATUS_SUCCESS;
}

/* ---- constants ---- */

/* The value of v when it is a constant (weights, constants and pure nn ops
   on them): a new tensor (free with ti_tensor_free). depth bounds the walk. */
static ti_status ti__lw_const(ti__lw *L, const ti_value *v, ti_tensor_value **out, int depth) {
  const ti_op *op = v->def;
  ti_tensor_value *in[8] = {0}, *res[2] = {0, 0};
  ti_eval_fn ev;
  ti_status st = TI_STATUS_SUCCESS;
  int32_t i;
  ti_error e;
  *out = NULL;
  if (!op) return TI__LW_NOSUP(L, "operand is a program argument where a constant (weights) is needed");
  if (depth > 32) return TI__LW_NOSUP(L, "constant expression deeper than 32 ops");
  if (op->n_operands > 8 || op->n_results > 2 || !(ev = ti_eval_of(op->info)))
    return TI__LW_NOSUP(L, "operand made by %s is not a constant", op->info->name);
  if (!ti_op_is(op, "builtin.get_parameter") && !ti_op_is(op, "builtin.constant") &&
      !ti_op_has_trait(op, TI_TRAIT_PURE) && !ti_op_is(op, "builtin.to_vtensor") && !ti_op_is(op, "builtin.to_tensor"))
    return TI__LW_NOSUP(L, "operand made by %s is not a constant", op->info->name);
  for (i = 0; i < op->n_operands && st == TI_STATUS_SUCCESS; i++)
    st = ti__lw_const(L, op->operands[i].value, &in[i], depth + 1);
  if (st == TI_STATUS_SUCCESS) {
    ti_error_clear(&e);
    st = ev(op, (const ti_tensor_value *const *)in, res, &e);
    if (st != TI_STATUS_SUCCESS) ti__lw_fail(L, st, "evaluating the constant made by %s: %s", op->info->name, e.message);
  }
  for (i = 0; i < op->n_operands; i++) ti_tensor_free(in[i]);
  if (st != TI_STATUS_SUCCESS) { ti_tensor_free(res[0]); ti_tensor_free(res[1]); return st; }
  for (i = 0; i < 2; i++) if (i != v->index) ti_tensor_free(res[i]);
  *out = res[v->index < 2 ? v->index : 0];
  return TI_STATUS_SUCCESS;
}
static int ti__lw_is_const(ti__lw *L, const ti_value *v) { return ti__lw_of(L, v)->block < 0; }

/* ---- shapes of activations ---- */

static const int32_t ti__lw_to_nhwc[4] = {0, 2, 3, 1}, ti__lw_to_nchw[4] = {0, 3, 1, 2};
/* 4-D activation of a conv-class op: NULL perm when stored NHWC, else the
   permutation to NHWC; H, W, C of the logical tensor. */
static ti_status ti__lw_act4(ti__lw *L, const ti_value *v, const int32_t **perm, int64_t *n, int64_t *h, int64_t *w,
                             int64_t *c) {
  const ti_type *t = v->type;
  *perm = NULL; *n = *h = *w = *c = 0;
  if (t->rank != 4) return TI__LW_NOSUP(L, "activation of rank %d (4-D [N,C,H,W] expected)", (int)t->rank);
  if (t->layout == TI_LAYOUT_NHWC) { *perm = NULL; *h = t->dims[1]; *w = t->dims[2]; *c = t->dims[3]; }
  else { *perm = ti__lw_to_nhwc; *c = t->dims[1]; *h = t->dims[2]; *w = t->dims[3]; }
  *n = t->dims[0];
  if (*n * *h > INT32_MAX || *w > INT32_MAX || *c > INT32_MAX) return TI__LW_NOSUP(L, "dims too large for Task IR (int32)");
  return TI_STATUS_SUCCESS;
}
/* The index table of a window gather along one axis of n items of size in
   (batch items stacked): for item b, output o, tap i, the source index
   b*in + o*s + i*d - pad, -1 (a zero) in the padding. Then a window of k
   taps with stride k over the n*out*k gathered entries reads exactly the
   taps of the strided, dilated, padded window. NULL: refused (err set). */
static const int32_t *ti__lw_win_idx(ti__lw *L, int64_t n, int64_t in, int64_t out, int64_t k, int64_t s, int64_t d,
                                     int64_t pad, int32_t *len) {
  int64_t b, o, i, m = n * out * k;
  int32_t *idx;
  if (m < 1 || m > INT32_MAX) { TI__LW_NOSUP(L, "a window gather of %lld entries does not fit int32", (long long)m); return NULL; }
  if (!(idx = (int32_t *)ti_arena_array(&L->arena, (size_t)m, sizeof *idx, 8))) { TI__LW_OOM(L); return NULL; }
  for (b = 0; b < n; b++)
    for (o = 0; o < out; o++)
      for (i = 0; i < k; i++) {
        int64_t q = o * s + i * d - pad;
        idx[(b * out + o) * k + i] = q >= 0 && q < in ? (int32_t)(b * in + q) : -1;
      }
  *len = (int32_t)m;
  return idx;
}
/* Sets a conv-class result: block b holds [OH][OW][C] (NHWC). */
static ti_status ti__lw_set4(ti__lw *L, const ti_value *res, int32_t b, int nonneg) {
  const ti_type *t = res->type;
  int64_t pre[4];
  if (t->layout == TI_LAYOUT_NHWC) return ti__lw_set(L, res, b, nonneg, 0, NULL, NULL);
  pre[0] = t->dims[0]; pre[1] = t->dims[2]; pre[2] = t->dims[3]; pre[3] = t->dims[1];
  return ti__lw_set(L, res, b, nonneg, 4, pre, ti__lw_to_nchw);
}
/* The [y][x][f] form of an elementwise value of dims d (rank r): f the last
   axis, x the one before, y the product of the rest; rank <= 1: [f]. */
static ti_task_shape ti__lw_form_dims(int32_t rank, const int64_t *dims) {
  int64_t y = 1;
  int32_t i;
  if (rank <= 1) return ti__lw_shape(0, 0, (int32_t)(rank ? dims[0] : 1), 0);
  for (i = 0; i < rank - 2; i++) y *= dims[i];
  return ti__lw_shape((int32_t)y, (int32_t)dims[rank - 2], (int32_t)dims[rank - 1], 0);
}
static ti_task_shape ti__lw_form(const ti_type *t) { return ti__lw_form_dims(t->rank, t->dims); }
static int ti__lw_dtype_ok(ti_dtype d) { return d == TI_DTYPE_I8 || d == TI_DTYPE_I32; }

/* ---- ops ---- */

/* A CCMPB after block `from` (output shape s, dims rank 3 or 1):
   clip to [lo, max of prec] after >> shift, window 1x1 (or the 1-D form). */
static int32_t ti__lw_ccmpb(ti__lw *L, int32_t from, ti_task_shape s, ti_dtype prec, int64_t shift,
                                   int64_t lo) {
  int32_t si, cb;
  ti_task_shape cs = s;
  static const int64_t one[2] = {1, 1}, zero[4] = {0, 0, 0, 0};
  if ((si = ti__lw_block(L, TI_BLOCK_SI, TI_DTYPE_I32, s, 1)) < 0) return -1;
  if (s.has & TI_SHAPE_HAS_NY) ti__lw_win_shape(&cs, 1, 1, s.ny, s.nx);
  if ((cb = ti__lw_block(L, TI_BLOCK_CCMPB, prec, cs, 1)) < 0) return -1;
  if ((s.has & TI_SHAPE_HAS_NY) && ti__lw_window(L, cb, one, one, zero, NULL) != TI_STATUS_SUCCESS) return -1;
  if (ti__lw_attr(L, cb, TI_TASK_ATTR_BIT_SHIFT_NUM, shift) != TI_STATUS_SUCCESS) return -1;
  if (ti__lw_attr(L, cb, TI_TASK_ATTR_CMP, lo) != TI_STATUS_SUCCESS) return -1;
  if (ti__lw_link(L, from, si, 0) != TI_STATUS_SUCCESS || ti__lw_link(L, si, cb, 0) != TI_STATUS_SUCCESS) return -1;
  return cb;
}
static int64_t ti__lw_min_of(ti_dtype d) { return d == TI_DTYPE_I8 ? -128 : INT32_MIN; }

/* The only user of v, when v has exactly one use. */
static const ti_op *ti__lw_only_user(const ti_value *v) {
  return v->first_use && !v->first_use->next ? v->first_use->owner : NULL;
}

/* What fuses into the requantising CCMPB of a quant op's i8 result res
   (lower clip bound lo): a relu that is the only user of res (CMP max(lo,
   0): max(clamp(x, lo, 127), 0) = clamp(x, max(lo, 0), 127)), also through
   views (transpose, reshape, flatten: elementwise, the relu commutes with
   them) that each have one user; and, when `pool` allows it (one item), an
   undilated max_pool in res's layout that is the only user of res or of
   that relu (no view between), the relu before or after it: x -> clamp(x
   >> shift, lo, 127) and relu are monotone, so the window's max commutes
   with both. A padded window sees 0 (clamped to the final CMP, the least
   any tap gives): padding only when that CMP >= 0. A value with another
   user (e.g. the requantised value also read elsewhere) ends the fusion.
   relu / pool NULL when not fused. A fused relu takes its operand's value
   when it is reached (ti__lw_op). */
typedef struct ti__lw_rqf {
  const ti_op *relu, *pool;
  int64_t lo;
} ti__lw_rqf;
static int ti__lw_is_view(const ti_op *op) {
  return ti_op_is(op, "nn.transpose") || ti_op_is(op, "nn.reshape") || ti_op_is(op, "nn.flatten") ||
         ti_op_is(op, "builtin.to_vtensor") || ti_op_is(op, "builtin.to_tensor");
}
static int ti__lw_rqf_relu(const ti_op *u, const ti_value *v) {
  return u && ti_op_is(u, "nn.relu") && u->n_results == 1 && u->results[0].type->dtype == TI_DTYPE_I8 &&
         u->results[0].type->layout == v->type->layout;
}
static void ti__lw_rq_fusion(const ti_value *res, int64_t lo, int pool, ti__lw_rqf *f) {
  const ti_value *v = res;
  const ti_op *u = ti__lw_only_user(res);
  int32_t views = 0;
  f->relu = f->pool = NULL;
  f->lo = lo;
  while (u && ti__lw_is_view(u) && u->n_results == 1 && views < 64) {   /* bounded: views only pass the fusion on */
    v = &u->results[0];
    u = ti__lw_only_user(v);
    views++;
  }
  if (ti__lw_rqf_relu(u, v)) {
    f->relu = u;
    f->lo = lo > 0 ? lo : 0;
    u = ti__lw_only_user(&f->relu->results[0]);
  } else if (views) {
    return;
  }
  if (pool && !views && u && ti_op_is(u, "nn.max_pool") && u->n_results == 1 &&
      u->results[0].type->layout == res->type->layout) {
    int64_t pp[4] = {0, 0, 0, 0}, pdl[2] = {1, 1};
    const ti_op *r2 = f->relu ? NULL : ti__lw_only_user(&u->results[0]);
    ti_dict_ints(u->attrs, "pads", pp, 4);
    ti_dict_ints(u->attrs, "dilations", pdl, 2);
    if (pdl[0] != 1 || pdl[1] != 1) return;
    if (ti__lw_rqf_relu(r2, &u->results[0])) {   /* pool then relu */
      f->relu = r2;
      f->lo = lo > 0 ? lo : 0;
    }
    if ((pp[0] | pp[1] | pp[2] | pp[3]) && f->lo < 0) return;
    f->pool = u;
  }
}

static ti_status ti__lw_quant_conv(ti__lw *L, const ti_op *op) {
  const ti_value *x = op->operands[0].value;
  const ti_value *res = &op->results[0];
  const int32_t *perm;
  int64_t nb, h, w, c, s[2] = {1, 1}, pd[4] = {0, 0, 0, 0}, dl[2] = {1, 1}, grp, sh, lo, o, oh, ow, kh, kw, i, hp = 0;
  int64_t *wd = NULL, *bd = NULL;
  ti_tensor_value *wt = NULL, *wo = NULL, *bt = NULL;
  int32_t sic, sw, sb = -1, cc, last;
  ti_task_shape shp;
  ti_status st = TI_STATUS_SUCCESS;
  int has_shift = ti_dict_get(op->attrs, "shift") != NULL, nonneg = 0;
  const ti_op *pool = NULL;
  ti__lw_rqf fu;
  int32_t wdims[4], bdim[1];
  ti__lw_gather gx;
  const int32_t *keep = NULL;   /* batch > 1: the CC output rows that are results */
  int32_t n_keep = 0;
  memset(&gx, 0, sizeof gx);
  TI__LW_TRY(ti__lw_act4(L, x, &perm, &nb, &h, &w, &c));
  ti_dict_ints(op->attrs, "strides", s, 2);
  ti_dict_ints(op->attrs, "pads", pd, 4);
  ti_dict_ints(op->attrs, "dilations", dl, 2);
  grp = ti_dict_int(op->attrs, "group", 1);
  sh = ti_dict_int(op->attrs, "shift", 0);
  lo = ti_dict_int(op->attrs, "clip_min", -128);
  o = res->type->layout == TI_LAYOUT_NHWC ? res->type->dims[3] : res->type->dims[1];
  oh = res->type->layout == TI_LAYOUT_NHWC ? res->type->dims[1] : res->type->dims[2];
  ow = res->type->layout == TI_LAYOUT_NHWC ? res->type->dims[2] : res->type->dims[3];
  TI__LW_TRY(ti__lw_const(L, op->operands[1].value, &wt, 0));
  /* the weight's type says its layout (HWOI after LayoutPresetToNPU) */
  wt->layout = op->operands[1].value->type->layout == TI_LAYOUT_HWOI ? TI_LAYOUT_HWOI : TI_LAYOUT_OIHW;
  if (wt->rank != 4) {
    int32_t rk = wt->rank;
    ti_tensor_free(wt);
    return TI__LW_NOSUP(L, "weights of rank %d (4-D expected)", (int)rk);
  }
  wo = ti_tensor_to_layout(wt, TI_LAYOUT_OIHW, L->err);
  ti_tensor_free(wt);
  if (!wo) return ti__lw_fail(L, TI_STATUS_NO_MEMORY, "cannot bring the weights to OIHW");
  kh = wo->dims[2]; kw = wo->dims[3];
  if (op->n_operands > 2) {
    if ((st = ti__lw_const(L, op->operands[2].value, &bt, 0)) != TI_STATUS_SUCCESS) goto done;
  }
  /* dense weights [O][C][KH][KW]: a grouped kernel is block-diagonal */
  wd = (int64_t *)TASKIR_MALLOC(L->au, (size_t)(o * c * kh * kw + 1) * sizeof *wd);
  bd = (int64_t *)TASKIR_MALLOC(L->au, (size_t)(o + 1) * sizeof *bd);
  if (!wd || !bd) { st = TI__LW_OOM(L); goto done; }
  {
    int64_t og = o / grp, ig = wo->dims[1], oc, ci, t;
    for (i = 0; i < o * c * kh * kw; i++) wd[i] = 0;
    for (oc = 0; oc < o; oc++)
      for (ci = 0; ci < ig; ci++)
        for (t = 0; t < kh * kw; t++)
          wd[(oc * c + (oc / og) * ig + ci) * kh * kw + t] = (int64_t)ti_tensor_get(wo, (oc * ig + ci) * kh * kw + t);
    for (i = 0; i < o; i++) bd[i] = bt ? (int64_t)ti_tensor_get(bt, bt->numel == 1 ? 0 : i) : 0;
  }
  /* a relu and a max_pool that only read this i8 result fuse into its
     CCMPB (CMP, window); the pool only for one item */
  ti__lw_rq_fusion(res, lo, nb == 1, &fu);
  if (has_shift) { pool = fu.pool; lo = fu.lo; }
  /* batch > 1: the items are stacked along y, each with its own padding
     rows (zeros) and padded to hp rows, a multiple of the stride (a SHUFFLE
     on the edge); the CC slides over the stack without row padding, and
     item b's outputs are its rows b*hp/stride + 0..oh-1 (the rows between
     items are dropped on the way out): one block for the batch */
  if (nb > 1) {
    hp = (h + pd[0] + pd[2] + s[0] - 1) / s[0] * s[0];
    gx.rank = 3; gx.dims[0] = nb * h; gx.dims[1] = w; gx.dims[2] = c;
    gx.n = 1; gx.axis[0] = 0;
    if (!(gx.idx[0] = ti__lw_win_idx(L, nb, h, hp, 1, 1, 1, pd[0], &gx.len[0])) ||
        !(keep = ti__lw_win_idx(L, nb, hp / s[0], oh, 1, 1, 1, 0, &n_keep))) {
      st = L->err ? L->err->status : TI_STATUS_NO_MEMORY;
      goto done;
    }
    shp = ti__lw_shape(gx.len[0], (int32_t)w, 0, (int32_t)c);
  } else {
    shp = ti__lw_shape((int32_t)h, (int32_t)w, 0, (int32_t)c);
  }
  if ((sic = ti__lw_block(L, TI_BLOCK_SIC, TI_DTYPE_I8, shp, 1)) < 0) { st = L->err ? L->err->status : TI_STATUS_NO_MEMORY; goto done; }
  if (nb > 1) {
    int64_t sd[4];
    int32_t rd = ti_task_block_dims(ti__lw_blk(L, sic), sd);
    if ((st = ti__lw_feed_gx(L, x, perm, sic, 0, rd, sd, NULL, NULL, &gx)) != TI_STATUS_SUCCESS) goto done;
  } else if ((st = ti__lw_feed(L, x, perm, sic)) != TI_STATUS_SUCCESS) {
    goto done;
  }
  shp = ti__lw_shape(0, 0, (int32_t)o, (int32_t)c);
  ti_task_shape_set(&shp, TI_SHAPE_HAS_NKY, (int32_t)kh);
  ti_task_shape_set(&shp, TI_SHAPE_HAS_NKX, (int32_t)kw);
  st = TI_STATUS_NO_MEMORY;
  if ((sw = ti__lw_block(L, TI_BLOCK_SW, TI_DTYPE_I8, shp, 1)) < 0) goto done;
  wdims[0] = (int32_t)o; wdims[1] = (int32_t)c; wdims[2] = (int32_t)kh; wdims[3] = (int32_t)kw;
  if ((st = ti__lw_data(L, sw, TI_DTYPE_I8, 4, wdims, wd, o * c * kh * kw)) != TI_STATUS_SUCCESS) goto done;
  st = TI_STATUS_NO_MEMORY;
  if (bt) {
    bdim[0] = (int32_t)o;
    if ((sb = ti__lw_block(L, TI_BLOCK_SB, TI_DTYPE_I32, ti__lw_shape(0, 0, (int32_t)o, 0), 1)) < 0) goto done;
    if ((st = ti__lw_data(L, sb, TI_DTYPE_I32, 1, bdim, bd, o)) != TI_STATUS_SUCCESS) goto done;
    st = TI_STATUS_NO_MEMORY;
  }
  shp = ti__lw_shape((int32_t)(nb > 1 ? (nb * hp - (dl[0] * (kh - 1) + 1)) / s[0] + 1 : oh), (int32_t)ow, (int32_t)o, (int32_t)c);
  ti__lw_win_shape(&shp, kh, kw, nb > 1 ? gx.len[0] : h, w);
  if ((cc = ti__lw_block(L, TI_BLOCK_CC, TI_DTYPE_I32, shp, 1)) < 0) goto done;
  {
    int64_t k2[2];
    k2[0] = kh; k2[1] = kw;
    if (nb > 1) pd[0] = pd[2] = 0;   /* the padding rows are in the stack */
    if ((st = ti__lw_window(L, cc, k2, s, pd, dl)) != TI_STATUS_SUCCESS) goto done;
  }
  if (sb >= 0) { ti__lw_blk(L, cc)->has |= TI_BLOCK_HAS_BIAS_TYPE; ti__lw_blk(L, cc)->bias_type = TI_BIAS_VECTOR; }
  if ((st = ti__lw_link(L, sic, cc, 0)) != TI_STATUS_SUCCESS || (st = ti__lw_link(L, sw, cc, 1)) != TI_STATUS_SUCCESS ||
      (sb >= 0 && (st = ti__lw_link(L, sb, cc, 2)) != TI_STATUS_SUCCESS))
    goto done;
  last = cc;
  if (nb > 1) {   /* the result rows: an SI fed through a SHUFFLE, then the requant CCMPB or a copy */
    static const int64_t one[2] = {1, 1}, zero[4] = {0, 0, 0, 0}, ax = 0;
    ti_task_shape rs = ti__lw_shape((int32_t)(nb * oh), (int32_t)ow, (int32_t)o, 0), cs = rs;
    int32_t si;
    ti_task_edge *e;
    st = TI_STATUS_NO_MEMORY;
    if ((si = ti__lw_block(L, TI_BLOCK_SI, TI_DTYPE_I32, rs, 1)) < 0) goto done;
    if (!(e = ti_task_connect(L->g, ti__lw_blk(L, cc), 0, NULL, NULL, ti__lw_blk(L, si), 0, NULL, NULL))) { st = TI__LW_OOM(L); goto done; }
    if ((st = ti__lw_rearr(L, e, TI_REARRANGE_SHUFFLE, n_keep, keep, 1, &ax)) != TI_STATUS_SUCCESS) goto done;
    if (has_shift) {
      ti__lw_win_shape(&cs, 1, 1, nb * oh, ow);
      st = TI_STATUS_NO_MEMORY;
      if ((last = ti__lw_block(L, TI_BLOCK_CCMPB, TI_DTYPE_I8, cs, 1)) < 0) goto done;
      if ((st = ti__lw_window(L, last, one, one, zero, NULL)) != TI_STATUS_SUCCESS ||
          (st = ti__lw_attr(L, last, TI_TASK_ATTR_BIT_SHIFT_NUM, sh)) != TI_STATUS_SUCCESS ||
          (st = ti__lw_attr(L, last, TI_TASK_ATTR_CMP, lo)) != TI_STATUS_SUCCESS)
        goto done;
      nonneg = lo >= 0;
    } else {
      ti_task_shape_set(&cs, TI_SHAPE_HAS_N_BRANCH, 1);
      st = TI_STATUS_NO_MEMORY;
      if ((last = ti__lw_block(L, TI_BLOCK_CADD, TI_DTYPE_I32, cs, 1)) < 0) goto done;
    }
    if ((st = ti__lw_link(L, si, last, 0)) != TI_STATUS_SUCCESS) goto done;
  } else if (has_shift) {
    nonneg = lo >= 0;
    if (!pool) {
      st = TI_STATUS_NO_MEMORY;
      if ((last = ti__lw_ccmpb(L, cc, ti__lw_shape((int32_t)oh, (int32_t)ow, (int32_t)o, 0), TI_DTYPE_I8, sh, lo)) < 0) goto done;
    } else {
      const ti_type *pt = pool->results[0].type;
      int64_t pk[2] = {1, 1}, ps[2] = {1, 1}, pp[4] = {0, 0, 0, 0};
      int64_t ph = pt->layout == TI_LAYOUT_NHWC ? pt->dims[1] : pt->dims[2];
      int64_t pw = pt->layout == TI_LAYOUT_NHWC ? pt->dims[2] : pt->dims[3];
      int32_t si;
      ti_dict_ints(pool->attrs, "kernel_shape", pk, 2);
      ti_dict_ints(pool->attrs, "strides", ps, 2);
      ti_dict_ints(pool->attrs, "pads", pp, 4);
      st = TI_STATUS_NO_MEMORY;
      if ((si = ti__lw_block(L, TI_BLOCK_SI, TI_DTYPE_I32, ti__lw_shape((int32_t)oh, (int32_t)ow, (int32_t)o, 0), 1)) < 0) goto done;
      shp = ti__lw_shape((int32_t)ph, (int32_t)pw, (int32_t)o, 0);
      ti__lw_win_shape(&shp, pk[0], pk[1], oh, ow);
      if ((last = ti__lw_block(L, TI_BLOCK_CCMPB, TI_DTYPE_I8, shp, 1)) < 0) goto done;
      if ((st = ti__lw_window(L, last, pk, ps, pp, NULL)) != TI_STATUS_SUCCESS ||
          (st = ti__lw_attr(L, last, TI_TASK_ATTR_BIT_SHIFT_NUM, sh)) != TI_STATUS_SUCCESS ||
          (st = ti__lw_attr(L, last, TI_TASK_ATTR_CMP, lo)) != TI_STATUS_SUCCESS ||
          (st = ti__lw_link(L, cc, si, 0)) != TI_STATUS_SUCCESS || (st = ti__lw_link(L, si, last, 0)) != TI_STATUS_SUCCESS)
        goto done;
    }
  }
  if (has_shift && fu.pool) {   /* the pool's result: made by this CCMPB */
    if ((st = ti__lw_set4(L, &fu.pool->results[0], last, nonneg)) != TI_STATUS_SUCCESS) goto done;
    ti__lw_of(L, &fu.pool->results[0])->fused = 1;
  }
  if (has_shift && fu.relu) ti__lw_of(L, &fu.relu->results[0])->fused = 1;
  st = ti__lw_set4(L, res, last, nonneg);
done:
  ti_tensor_free(wo);
  ti_tensor_free(bt);
  TASKIR_FREE(L->au, wd);
  TASKIR_FREE(L->au, bd);
  if (st != TI_STATUS_SUCCESS && L->err && L->err->status == TI_STATUS_SUCCESS) return TI__LW_OOM(L);
  return st;
}

static ti_status ti__lw_quant_gemm(ti__lw *L, const ti_op *op) {
  const ti_value *a = op->operands[0].value, *res = &op->results[0];
  int64_t ta = ti_dict_int(op->attrs, "trans_a", 0), tb = ti_dict_int(op->attrs, "trans_b", 0);
  int64_t m = res->type->dims[0], n = res->type->dims[1], k, i, j, sh = ti_dict_int(op->attrs, "shift", 0);
  int64_t lo = ti_dict_int(op->attrs, "clip_min", -128);
  ti_tensor_value *bt = NULL, *ct = NULL;
  int64_t *wd = NULL, *bd = NULL;
  int32_t sifc, swfc, sb = -1, cvm, last;
  ti_status st;
  int has_shift = ti_dict_get(op->attrs, "shift") != NULL;
  int32_t wdims[4], bdim[1];
  static const int32_t tr[2] = {1, 0};
  ti__lw_rqf fu;
  ti__lw_rq_fusion(res, lo, 0, &fu);   /* a relu that only reads the i8 result: its CMP */
  if (has_shift) lo = fu.lo;
  if (m > INT32_MAX) return TI__LW_NOSUP(L, "%lld rows do not fit int32", (long long)m);
  k = a->type->dims[ta ? 0 : 1];
  TI__LW_TRY(ti__lw_const(L, op->operands[1].value, &bt, 0));
  if (op->n_operands > 2 && (st = ti__lw_const(L, op->operands[2].value, &ct, 0)) != TI_STATUS_SUCCESS) {
    ti_tensor_free(bt);
    return st;
  }
  st = TI_STATUS_NO_MEMORY;
  wd = (int64_t *)TASKIR_MALLOC(L->au, (size_t)(n * k + 1) * sizeof *wd);
  bd = (int64_t *)TASKIR_MALLOC(L->au, (size_t)(n + 1) * sizeof *bd);
  if (!wd || !bd) { st = TI__LW_OOM(L); goto done; }
  for (j = 0; j < n; j++)
    for (i = 0; i < k; i++) wd[j * k + i] = (int64_t)ti_tensor_get(bt, tb ? j * k + i : i * n + j);
  for (j = 0; j < n; j++) bd[j] = ct ? (int64_t)ti_tensor_get(ct, ct->numel == 1 ? 0 : j) : 0;
  /* M = 1: SIFC + SWFC -> CVM. M > 1: the rows are the x positions of a
     1x1 CC (SIC [1][M][K], SW [N][K][1][1]): out[0][m][n] = sum_k W[n][k] a[m][k] */
  if (m == 1) sifc = ti__lw_block(L, TI_BLOCK_SIFC, TI_DTYPE_I8, ti__lw_shape(0, 0, 0, (int32_t)k), 1);
  else sifc = ti__lw_block(L, TI_BLOCK_SIC, TI_DTYPE_I8, ti__lw_shape(1, (int32_t)m, 0, (int32_t)k), 1);
  if (sifc < 0) goto done;
  if ((st = ti__lw_feed(L, a, ta && m > 1 ? tr : NULL, sifc)) != TI_STATUS_SUCCESS) goto done;
  st = TI_STATUS_NO_MEMORY;
  if (m == 1) {
    swfc = ti__lw_block(L, TI_BLOCK_SWFC, TI_DTYPE_I8, ti__lw_shape(0, 0, (int32_t)n, (int32_t)k), 1);
  } else {
    ti_task_shape ws = ti__lw_shape(0, 0, (int32_t)n, (int32_t)k);
    ti_task_shape_set(&ws, TI_SHAPE_HAS_NKY, 1);
    ti_task_shape_set(&ws, TI_SHAPE_HAS_NKX, 1);
    swfc = ti__lw_block(L, TI_BLOCK_SW, TI_DTYPE_I8, ws, 1);
  }
  if (swfc < 0) goto done;
  wdims[0] = (int32_t)n; wdims[1] = (int32_t)k; wdims[2] = wdims[3] = 1;
  if ((st = ti__lw_data(L, swfc, TI_DTYPE_I8, m == 1 ? 2 : 4, wdims, wd, n * k)) != TI_STATUS_SUCCESS) goto done;
  st = TI_STATUS_NO_MEMORY;
  if (ct) {
    bdim[0] = (int32_t)n;
    if ((sb = ti__lw_block(L, TI_BLOCK_SB, TI_DTYPE_I32, ti__lw_shape(0, 0, (int32_t)n, 0), 1)) < 0) goto done;
    if ((st = ti__lw_data(L, sb, TI_DTYPE_I32, 1, bdim, bd, n)) != TI_STATUS_SUCCESS) goto done;
    st = TI_STATUS_NO_MEMORY;
  }
  if (m == 1) {
    cvm = ti__lw_block(L, TI_BLOCK_CVM, TI_DTYPE_I32, ti__lw_shape(0, 0, (int32_t)n, (int32_t)k), 1);
  } else {
    static const int64_t one[2] = {1, 1}, zero[4] = {0, 0, 0, 0};
    ti_task_shape cs = ti__lw_shape(1, (int32_t)m, (int32_t)n, (int32_t)k);
    ti__lw_win_shape(&cs, 1, 1, 1, m);
    if ((cvm = ti__lw_block(L, TI_BLOCK_CC, TI_DTYPE_I32, cs, 1)) >= 0 &&
        (st = ti__lw_window(L, cvm, one, one, zero, one)) != TI_STATUS_SUCCESS)
      goto done;
  }
  if (cvm < 0) goto done;
  if (sb >= 0) { ti__lw_blk(L, cvm)->has |= TI_BLOCK_HAS_BIAS_TYPE; ti__lw_blk(L, cvm)->bias_type = TI_BIAS_VECTOR; }
  if ((st = ti__lw_link(L, sifc, cvm, 0)) != TI_STATUS_SUCCESS || (st = ti__lw_link(L, swfc, cvm, 1)) != TI_STATUS_SUCCESS ||
      (sb >= 0 && (st = ti__lw_link(L, sb, cvm, 2)) != TI_STATUS_SUCCESS))
    goto done;
  last = cvm;
  st = TI_STATUS_NO_MEMORY;
  if (has_shift && (last = ti__lw_ccmpb(L, cvm, m == 1 ? ti__lw_shape(0, 0, (int32_t)n, 0) : ti__lw_shape(1, (int32_t)m, (int32_t)n, 0),
                                        TI_DTYPE_I8, sh, lo)) < 0)
    goto done;
  if (has_shift && fu.relu) ti__lw_of(L, &fu.relu->results[0])->fused = 1;
  st = ti__lw_set(L, res, last, has_shift && lo >= 0, 0, NULL, NULL);
done:
  ti_tensor_free(bt);
  ti_tensor_free(ct);
  TASKIR_FREE(L->au, wd);
  TASKIR_FREE(L->au, bd);
  return st;
}

static int32_t ti__lw_shift_blk(ti__lw *L, const ti_value *v, const ti_type *rt, int32_t src, ti_dtype in_prec,
                                const int64_t *d3, ti_dtype prec, int64_t shift, int64_t lo);

/* max_pool, avg_pool, global_avg_pool. */
static ti_status ti__lw_pool(ti__lw *L, const ti_op *op) {
  const ti_value *x = op->operands[0].value, *res = &op->results[0];
  const ti_type *rt = res->type;
  const int32_t *perm;
  int64_t nb, h, w, c, k[2] = {1, 1}, s[2] = {1, 1}, pd[4] = {0, 0, 0, 0}, dl[2] = {1, 1}, oh, ow, niy, nix;
  int gap = ti_op_is(op, "nn.global_avg_pool"), mx = ti_op_is(op, "nn.max_pool");
  int nonneg = ti__lw_of(L, x)->nonneg, padded;
  ti_dtype dt = rt->dtype;
  int32_t si, cb;
  ti_task_shape shp;
  int32_t lg = 0;
  ti__lw_gather gx;
  memset(&gx, 0, sizeof gx);
  TI__LW_TRY(ti__lw_act4(L, x, &perm, &nb, &h, &w, &c));
  if (gap) { k[0] = h; k[1] = w; }
  else {
    ti_dict_ints(op->attrs, "kernel_shape", k, 2);
    ti_dict_ints(op->attrs, "strides", s, 2);
    ti_dict_ints(op->attrs, "pads", pd, 4);
    ti_dict_ints(op->attrs, "dilations", dl, 2);
  }
  padded = (pd[0] | pd[1] | pd[2] | pd[3]) != 0;
  oh = rt->layout == TI_LAYOUT_NHWC ? rt->dims[1] : rt->dims[2];
  ow = rt->layout == TI_LAYOUT_NHWC ? rt->dims[2] : rt->dims[3];
  if (mx && padded && !nonneg)
    return TI__LW_NOSUP(L, "padded max_pool on values that may be negative: the chip's padded window sees 0 "
                           "(pad only after a ReLU / clip_min >= 0)");
  if (!mx) {
    if (!ti__lw_ispow2(k[0] * k[1], &lg))
      return TI__LW_NOSUP(L, "window %lldx%lld (%lld positions) is not a power of two: its mean has no shift",
                          (long long)k[0], (long long)k[1], (long long)(k[0] * k[1]));
    if (padded && ti_dict_int(op->attrs, "count_include_pad", 0) == 0)
      return TI__LW_NOSUP(L, "padded mean without count_include_pad divides by a varying count: no shift does that");
    if (!nonneg)
      return TI__LW_NOSUP(L, "mean of values that may be negative: the interpreter truncates towards zero, the "
                             "chip's shift floors (average only after a ReLU / clip_min >= 0)");
  }
  /* CCMPB/CAVG windows are dense and see one item: a batch or a dilation
     gathers the taps of every window on the edge (SHUFFLE along rows, and
     along columns when dilated; zeros in the padding), and the block's
     window steps over them by its own size */
  niy = h; nix = w;
  if (nb > 1 || dl[0] != 1 || dl[1] != 1) {
    gx.rank = 3; gx.dims[0] = nb * h; gx.dims[1] = w; gx.dims[2] = c;
    gx.axis[0] = 0;
    if (!(gx.idx[0] = ti__lw_win_idx(L, nb, h, oh, k[0], s[0], dl[0], pd[0], &gx.len[0]))) return L->err ? L->err->status : TI_STATUS_NO_MEMORY;
    gx.n = 1;
    niy = gx.len[0]; s[0] = k[0]; pd[0] = pd[2] = 0;
    if (dl[1] != 1) {
      gx.axis[1] = 1;
      if (!(gx.idx[1] = ti__lw_win_idx(L, 1, w, ow, k[1], s[1], dl[1], pd[1], &gx.len[1]))) return L->err ? L->err->status : TI_STATUS_NO_MEMORY;
      gx.n = 2;
      nix = gx.len[1]; s[1] = k[1]; pd[1] = pd[3] = 0;
    }
  }
  if ((si = ti__lw_block(L, TI_BLOCK_SI, dt, ti__lw_shape((int32_t)niy, (int32_t)nix, (int32_t)c, 0), 1)) < 0) return TI__LW_OOM(L);
  {
    int64_t sd[4];
    int32_t rd = ti_task_block_dims(ti__lw_blk(L, si), sd);
    TI__LW_TRY(ti__lw_feed_gx(L, x, perm, si, 0, rd, sd, NULL, NULL, gx.n ? &gx : NULL));
  }
  shp = ti__lw_shape((int32_t)(nb * oh), (int32_t)ow, (int32_t)c, 0);
  ti__lw_win_shape(&shp, k[0], k[1], niy, nix);
  if ((cb = ti__lw_block(L, mx ? TI_BLOCK_CCMPB : TI_BLOCK_CAVG, mx ? dt : TI_DTYPE_I32, shp, 1)) < 0) return TI__LW_OOM(L);
  TI__LW_TRY(ti__lw_window(L, cb, k, s, pd, NULL));
  TI__LW_TRY(ti__lw_link(L, si, cb, 0));
  if (mx) {
    TI__LW_TRY(ti__lw_attr(L, cb, TI_TASK_ATTR_BIT_SHIFT_NUM, 0));
    TI__LW_TRY(ti__lw_attr(L, cb, TI_TASK_ATTR_CMP, ti__lw_min_of(dt)));
  } else if (dt == TI_DTYPE_I32) {   /* a 1x1 CCMPB would clip to 127 */
    int64_t d3[3];
    d3[0] = nb * oh; d3[1] = ow; d3[2] = c;
    if ((cb = ti__lw_shift_blk(L, NULL, rt, cb, TI_DTYPE_I32, d3, dt, lg, 0)) < 0) return L->err ? L->err->status : TI_STATUS_NO_MEMORY;
  } else if ((cb = ti__lw_ccmpb(L, cb, ti__lw_shape((int32_t)(nb * oh), (int32_t)ow, (int32_t)c, 0), dt, lg, 0)) < 0) {
    return TI__LW_OOM(L);
  }
  return ti__lw_set4(L, res, cb, nonneg);
}

/* relu, clip: a CCMPB 1x1 on the elementwise form. */
static ti_status ti__lw_clip(ti__lw *L, const ti_op *op) {
  const ti_value *x = op->operands[0].value, *res = &op->results[0];
  ti_dtype dt = res->type->dtype;
  int64_t lo = 0, hi = dt == TI_DTYPE_I8 ? 127 : INT32_MAX;
  ti_task_shape f = ti__lw_form(res->type);
  int32_t si, cb;
  int64_t d[4];
  int32_t r;
  if (ti_op_is(op, "nn.clip")) {
    double a = ti_dict_float(op->attrs, "min", 0), b = ti_dict_float(op->attrs, "max", 0);
    const ti_attr *am = ti_dict_get(op->attrs, "min"), *bm = ti_dict_get(op->attrs, "max");
    if (am && am->kind == TI_ATTR_INT) a = (double)am->u.i;
    if (bm && bm->kind == TI_ATTR_INT) b = (double)bm->u.i;
    if (b < (double)hi)
      return TI__LW_NOSUP(L, "clip max %g below the %s maximum %lld: CCMPB clips only from below", b,
                          ti_dtype_name(dt), (long long)hi);
    lo = a <= (double)ti__lw_min_of(dt) ? ti__lw_min_of(dt) : (int64_t)ceil(a);
  }
  if (dt == TI_DTYPE_I32) {   /* a 1x1 CCMPB clips to 127 whatever its precision: the 2x1 form */
    int64_t d3[3];
    d3[0] = (f.has & TI_SHAPE_HAS_NY) ? f.ny : 1;
    d3[1] = (f.has & TI_SHAPE_HAS_NX) ? f.nx : 1;
    d3[2] = f.nf;
    if ((cb = ti__lw_shift_blk(L, x, res->type, -1, dt, d3, dt, 0, lo)) < 0) return L->err ? L->err->status : TI_STATUS_NO_MEMORY;
    return ti__lw_set(L, res, cb, lo >= 0, 0, NULL, NULL);
  }
  if ((si = ti__lw_block(L, TI_BLOCK_SI, dt, f, 1)) < 0) return TI__LW_OOM(L);
  r = ti_task_block_dims(ti__lw_blk(L, si), d);
  TI__LW_TRY(ti__lw_feed_box(L, x, NULL, si, 0, r, d, NULL, NULL));
  {
    ti_task_shape cs = f;
    static const int64_t one[2] = {1, 1}, zero[4] = {0, 0, 0, 0};
    if (f.has & TI_SHAPE_HAS_NY) ti__lw_win_shape(&cs, 1, 1, f.ny, f.nx);
    if ((cb = ti__lw_block(L, TI_BLOCK_CCMPB, dt, cs, 1)) < 0) return TI__LW_OOM(L);
    if (f.has & TI_SHAPE_HAS_NY) TI__LW_TRY(ti__lw_window(L, cb, one, one, zero, NULL));
    TI__LW_TRY(ti__lw_attr(L, cb, TI_TASK_ATTR_BIT_SHIFT_NUM, 0));
    TI__LW_TRY(ti__lw_attr(L, cb, TI_TASK_ATTR_CMP, lo));
    TI__LW_TRY(ti__lw_link(L, si, cb, 0));
  }
  return ti__lw_set(L, res, cb, lo >= 0, 0, NULL, NULL);
}

/* An operand of an elementwise op with result type rt: the permutation
   that brings a 4-D operand of the other CNN layout to rt's (NULL: none). */
static const int32_t *ti__lw_conform(const ti_type *t, const ti_type *rt) {
  if (t->rank == 4 && rt->rank == 4 && t->layout != rt->layout) {
    if (rt->layout == TI_LAYOUT_NHWC && t->layout != TI_LAYOUT_NHWC && t->layout != TI_LAYOUT_OIHW &&
        t->layout != TI_LAYOUT_HWOI)
      return ti__lw_to_nhwc;
    if (t->layout == TI_LAYOUT_NHWC && rt->layout == TI_LAYOUT_NCHW) return ti__lw_to_nchw;
  }
  return NULL;
}
/* A constant operand t (of type ct) that is a scalar (*n = 1) or varies
   along one axis of the result (*axis; *n values, in t's order): 1, else 0
   (it varies along several axes). A 4-D constant in the other CNN layout
   is seen in the result's, as the interpreter does. */
static int ti__lw_const_axis(const ti_tensor_value *t, const ti_type *ct, const ti_type *rt, int64_t *n, int32_t *axis) {
  const int32_t *perm = ti__lw_conform(ct, rt);
  int32_t i, off = rt->rank - t->rank, found = -1;
  *axis = rt->rank - 1;
  if (t->numel == 1) { *n = 1; return 1; }
  if (off < 0 || rt->rank == 0) return 0;
  for (i = 0; i < rt->rank; i++) {
    int64_t di = i < off ? 1 : perm ? t->dims[perm[i]] : t->dims[i - off];
    if (di == 1) continue;
    if (found >= 0 || di != rt->dims[i]) return 0;
    found = i;
  }
  *axis = found;
  *n = t->numel;
  return 1;
}

/* An activation operand v of an elementwise op with result type rt into
   storage block si (the result's [y][x][f] form): a 4-D operand of the
   other CNN layout is permuted (conform = 1; 0: storage order, as
   nn.broadcast), an operand that broadcasts (numpy rules) is replicated on
   the edge (a SHUFFLE of zeros along each broadcast axis). */
static ti_status ti__lw_feed_elem(ti__lw *L, const ti_value *v, const ti_type *rt, int32_t si, const int32_t *p2,
                                  int conform) {
  const ti_type *t = v->type;
  const int32_t *perm = conform ? ti__lw_conform(t, rt) : NULL;
  ti__lw_gather gx;
  int64_t d[4], e[TI_MAX_RANK];
  int32_t r = ti_task_block_dims(ti__lw_blk(L, si), d), off = rt->rank - t->rank, i, cp[TI_MAX_RANK];
  if (p2) {   /* the result is computed with its axes permuted by p2 */
    if (off) return TI__LW_NOSUP(L, "an operand of rank %d broadcasts to the rank-%d result along with a constant that varies "
                                    "along another axis than the last", (int)t->rank, (int)rt->rank);
    for (i = 0; i < rt->rank; i++) cp[i] = perm ? perm[p2[i]] : p2[i];
    perm = cp;
  }
  if (ti__lw_numel(t->rank, t->dims) == ti__lw_numel(rt->rank, rt->dims))
    return ti__lw_feed_box(L, v, perm, si, 0, r, d, NULL, NULL);
  if (off < 0) return TI__LW_NOSUP(L, "an operand of rank %d does not broadcast to the rank-%d result", (int)t->rank, (int)rt->rank);
  memset(&gx, 0, sizeof gx);
  gx.rank = rt->rank;
  for (i = 0; i < rt->rank; i++) e[i] = p2 ? rt->dims[p2[i]] : rt->dims[i];
  for (i = 0; i < rt->rank; i++) {
    int64_t di = i < off ? 1 : perm ? t->dims[perm[i]] : t->dims[i - off];
    int32_t *z;
    gx.dims[i] = di;
    if (di == e[i]) continue;
    if (di != 1)
      return TI__LW_NOSUP(L, "operand dim %lld does not broadcast to the result's %lld (axis %d)", (long long)di,
                          (long long)e[i], (int)i);
    if (!(z = (int32_t *)ti_arena_array(&L->arena, (size_t)e[i], sizeof *z, 8))) return TI__LW_OOM(L);
    memset(z, 0, (size_t)e[i] * sizeof *z);
    gx.axis[gx.n] = i; gx.idx[gx.n] = z; gx.len[gx.n++] = (int32_t)e[i];
  }
  return ti__lw_feed_gx(L, v, perm, si, 0, r, d, NULL, NULL, &gx);
}

/* add, sub, mul. */
static ti_status ti__lw_binary(ti__lw *L, const ti_op *op) {
  const ti_value *res = &op->results[0];
  const ti_type *rt = res->type;
  ti_dtype dt = rt->dtype;
  int add = ti_op_is(op, "nn.add"), sub = ti_op_is(op, "nn.sub"), cfirst = 0;
  ti_task_shape f = ti__lw_form(rt);
  int64_t cn = 0, i, pd[TI_MAX_RANK];
  int32_t nact = 0, j, axis = rt->rank - 1, p2[TI_MAX_RANK], inv[TI_MAX_RANK];
  const ti_value *act[2], *cv = NULL;
  int32_t cb, si[2], sb = -1, last;
  ti_tensor_value *ct = NULL;
  ti_status st = TI_STATUS_SUCCESS;
  int nonneg;
  for (j = 0; j < 2; j++) {
    const ti_value *v = op->operands[j].value;
    if (ti__lw_is_const(L, v)) { cv = v; cfirst = j == 0; }
    else act[nact++] = v;
  }
  if (!nact) return TI__LW_NOSUP(L, "both operands constant (fold it first: constant-fold)");
  for (j = 0; j < nact; j++) {
    const ti_type *t = act[j]->type;
    if (t->dtype != dt) return TI__LW_NOSUP(L, "operand dtype %s differs from the result's %s", ti_dtype_name(t->dtype), ti_dtype_name(dt));
  }
  nonneg = add ? (ti__lw_of(L, act[0])->nonneg && (nact < 2 || ti__lw_of(L, act[1])->nonneg)) : 0;
  if (cv) {
    TI__LW_TRY(ti__lw_const(L, cv, &ct, 0));
    if (!ti__lw_const_axis(ct, cv->type, rt, &cn, &axis)) {
      ti_tensor_free(ct);
      return TI__LW_NOSUP(L, "a constant operand varying along several axes has no Task IR form (a bias or scale varies "
                             "along one axis: a scalar or one axis of the result)");
    }
    if (axis != rt->rank - 1) {
      /* the block computes the result with that axis last (a bias / scale
         per f); the activations are permuted in, the result permuted back */
      int32_t q = 0;
      for (j = 0; j < rt->rank; j++) if (j != axis) p2[q++] = j;
      p2[q] = axis;
      for (j = 0; j < rt->rank; j++) { pd[j] = rt->dims[p2[j]]; inv[p2[j]] = j; }
      f = ti__lw_form_dims(rt->rank, pd);
    }
    for (i = 0; i < cn; i++) if (ti_tensor_get(ct, i) < 0) nonneg = 0;
    if (!add) nonneg = 0;
  }
  for (j = 0; j < nact; j++) {
    if ((si[j] = ti__lw_block(L, TI_BLOCK_SI, dt, f, 1)) < 0) { ti_tensor_free(ct); return TI__LW_OOM(L); }
    if ((st = ti__lw_feed_elem(L, act[j], rt, si[j], axis != rt->rank - 1 ? p2 : NULL, 1)) != TI_STATUS_SUCCESS) {
      ti_tensor_free(ct);
      return st;
    }
  }
  if (sub && nact == 2) {   /* a - b = a + (-1 * b): b through a CVS (CONSTANT_A = -1) */
    int32_t nb, ns;
    if ((nb = ti__lw_block(L, TI_BLOCK_CVS, TI_DTYPE_I32, f, 1)) < 0 || (ns = ti__lw_block(L, TI_BLOCK_SI, TI_DTYPE_I32, f, 1)) < 0)
      return TI__LW_OOM(L);
    TI__LW_TRY(ti__lw_attr(L, nb, TI_TASK_ATTR_CONSTANT_A, -1));
    TI__LW_TRY(ti__lw_link(L, si[1], nb, 0));
    TI__LW_TRY(ti__lw_link(L, nb, ns, 0));
    si[1] = ns;
  }
  {
    /* sub: a - c is CADD with the bias -c; c - a is CVS (CONSTANT_A = -1) with the bias c */
    ti_block_type bt = add || (sub && !cfirst) ? TI_BLOCK_CADD : sub ? TI_BLOCK_CVS : nact == 2 ? TI_BLOCK_CVVH
                     : cn == 1 ? TI_BLOCK_CVS : TI_BLOCK_CAX;
    ti_task_shape cs = f;
    if (bt == TI_BLOCK_CADD) ti_task_shape_set(&cs, TI_SHAPE_HAS_N_BRANCH, nact);
    if ((cb = ti__lw_block(L, bt, TI_DTYPE_I32, cs, 1)) < 0) { ti_tensor_free(ct); return TI__LW_OOM(L); }
    for (j = 0; j < nact; j++)
      if ((st = ti__lw_link(L, si[j], cb, j)) != TI_STATUS_SUCCESS) { ti_tensor_free(ct); return st; }
    if (sub && bt == TI_BLOCK_CVS && (st = ti__lw_attr(L, cb, TI_TASK_ATTR_CONSTANT_A, -1)) != TI_STATUS_SUCCESS) {
      ti_tensor_free(ct);
      return st;
    }
    if (ct) {
      int64_t *vals = (int64_t *)TASKIR_MALLOC(L->au, (size_t)(f.nf + 1) * sizeof *vals);
      int32_t nf = f.nf;
      if (!vals) { ti_tensor_free(ct); return TI__LW_OOM(L); }
      for (i = 0; i < nf; i++) vals[i] = (int64_t)ti_tensor_get(ct, cn == 1 ? 0 : i) * (sub && !cfirst ? -1 : 1);
      if (bt == TI_BLOCK_CVS && !sub) {
        st = ti__lw_attr(L, cb, TI_TASK_ATTR_CONSTANT_A, vals[0]);
        if (vals[0] < INT32_MIN || vals[0] > INT32_MAX) st = TI__LW_NOSUP(L, "constant %lld does not fit int32", (long long)vals[0]);
      } else if (bt == TI_BLOCK_CVS && cn == 1) {
        st = ti__lw_attr(L, cb, TI_TASK_ATTR_CONSTANT_B, vals[0]);
        if (vals[0] < INT32_MIN || vals[0] > INT32_MAX) st = TI__LW_NOSUP(L, "constant %lld does not fit int32", (long long)vals[0]);
        ti__lw_blk(L, cb)->has |= TI_BLOCK_HAS_BIAS_TYPE; ti__lw_blk(L, cb)->bias_type = TI_BIAS_CONSTANT;
      } else if ((sb = ti__lw_block(L, TI_BLOCK_SB, TI_DTYPE_I32, ti__lw_shape(0, 0, nf, 0), 1)) < 0) {
        st = TI__LW_OOM(L);
      } else {
        st = ti__lw_data(L, sb, TI_DTYPE_I32, 1, &nf, vals, nf);
        if (st == TI_STATUS_SUCCESS) st = ti__lw_link(L, sb, cb, nact);
        if (st == TI_STATUS_SUCCESS && (add || sub)) { ti__lw_blk(L, cb)->has |= TI_BLOCK_HAS_BIAS_TYPE; ti__lw_blk(L, cb)->bias_type = TI_BIAS_VECTOR; }
      }
      TASKIR_FREE(L->au, vals);
      ti_tensor_free(ct);
      if (st != TI_STATUS_SUCCESS) return st;
    }
  }
  last = cb;
  if (dt == TI_DTYPE_I8 && (last = ti__lw_ccmpb(L, cb, f, TI_DTYPE_I8, 0, -128)) < 0) return TI__LW_OOM(L);
  if (axis != rt->rank - 1) return ti__lw_set(L, res, last, nonneg, rt->rank, pd, inv);
  return ti__lw_set(L, res, last, nonneg, 0, NULL, NULL);
}

/* x >> shift clipped to [lo, the maximum of prec], on the [y][x][f] box d3
   of value v (src < 0) or of block src: a 1x1 CCMPB clips to 127 whatever
   its precision, so the window is 2x1 over every element twice (the rows
   duplicated on the edge by a SHUFFLE). Returns the CCMPB, -1 on failure. */
static int32_t ti__lw_shift_blk(ti__lw *L, const ti_value *v, const ti_type *rt, int32_t src, ti_dtype in_prec,
                                const int64_t *d3, ti_dtype prec, int64_t shift, int64_t lo) {
  static const int64_t k[2] = {2, 1}, zero[4] = {0, 0, 0, 0};
  int32_t *dup, si, cb, y;
  ti__lw_gather gx;
  ti_task_shape s;
  if (2 * d3[0] > INT32_MAX) { TI__LW_NOSUP(L, "%lld rows do not fit int32 twice", (long long)d3[0]); return -1; }
  if (!(dup = (int32_t *)ti_arena_array(&L->arena, (size_t)(2 * d3[0]), sizeof *dup, 8))) { TI__LW_OOM(L); return -1; }
  for (y = 0; y < 2 * d3[0]; y++) dup[y] = y / 2;
  memset(&gx, 0, sizeof gx);
  gx.rank = 3; gx.dims[0] = d3[0]; gx.dims[1] = d3[1]; gx.dims[2] = d3[2];
  gx.n = 1; gx.axis[0] = 0; gx.idx[0] = dup; gx.len[0] = (int32_t)(2 * d3[0]);
  if ((si = ti__lw_block(L, TI_BLOCK_SI, in_prec, ti__lw_shape(gx.len[0], (int32_t)d3[1], (int32_t)d3[2], 0), 1)) < 0) return -1;
  if (v) {
    int64_t sd[4];
    int32_t rd = ti_task_block_dims(ti__lw_blk(L, si), sd);
    if (ti__lw_feed_gx(L, v, ti__lw_conform(v->type, rt), si, 0, rd, sd, NULL, NULL, &gx) != TI_STATUS_SUCCESS) return -1;
  } else {
    int64_t sd[4];
    int32_t rs = ti_task_block_dims(ti__lw_blk(L, src), sd);
    int64_t ax = 0;
    ti_task_edge *e = ti_task_connect(L->g, ti__lw_blk(L, src), 0, NULL, NULL, ti__lw_blk(L, si), 0, NULL, NULL);
    if (!e) { TI__LW_OOM(L); return -1; }
    if (!ti__lw_dims_eq(rs, sd, 3, d3) && ti__lw_reshape(L, e, rs, 3, d3) != TI_STATUS_SUCCESS) return -1;
    if (ti__lw_rearr(L, e, TI_REARRANGE_SHUFFLE, gx.len[0], dup, 1, &ax) != TI_STATUS_SUCCESS) return -1;
  }
  s = ti__lw_shape((int32_t)d3[0], (int32_t)d3[1], (int32_t)d3[2], 0);
  ti__lw_win_shape(&s, 2, 1, gx.len[0], d3[1]);
  if ((cb = ti__lw_block(L, TI_BLOCK_CCMPB, prec, s, 1)) < 0) return -1;
  if (ti__lw_window(L, cb, k, k, zero, NULL) != TI_STATUS_SUCCESS || ti__lw_attr(L, cb, TI_TASK_ATTR_BIT_SHIFT_NUM, shift) != TI_STATUS_SUCCESS ||
      ti__lw_attr(L, cb, TI_TASK_ATTR_CMP, lo) != TI_STATUS_SUCCESS || ti__lw_link(L, si, cb, 0) != TI_STATUS_SUCCESS)
    return -1;
  return cb;
}
/* div by a constant power of two 2^k. The interpreter truncates towards
   zero, CCMPB's shift floors: on values known non-negative one shift; else
   trunc(x / 2^k) = floor(max(x, 0) / 2^k) + ceil(min(x, 0) / 2^k), the
   second as floor((x - max(x, 0) + 2^k - 1) / 2^k): three shifts (CCMPB),
   a CVS (CONSTANT_A = -1, CONSTANT_B = 2^k - 1) and two CADD. Nothing
   negates x, so INT32_MIN divides exactly (-x would wrap) and no step
   leaves int32. k = 0: x. */
static ti_status ti__lw_div(ti__lw *L, const ti_op *op) {
  const ti_value *x = op->operands[0].value, *res = &op->results[0];
  const ti_type *rt = res->type;
  ti_tensor_value *ct = NULL;
  int64_t c = 0, i, d3[3];
  int32_t k = 0, t1, t2, n, sa, sb, cb;
  int nonneg = ti__lw_of(L, x)->nonneg;
  ti_task_shape f = ti__lw_form(rt), cs;
  if (!ti__lw_is_const(L, op->operands[1].value))
    return TI__LW_NOSUP(L, "the divisor is an activation: no Task IR block divides (only a constant power of two, as a shift)");
  if (ti__lw_is_const(L, x)) return TI__LW_NOSUP(L, "both operands constant (fold it first: constant-fold)");
  if (x->type->dtype != rt->dtype) return TI__LW_NOSUP(L, "operand dtype %s differs from the result's %s", ti_dtype_name(x->type->dtype), ti_dtype_name(rt->dtype));
  if (ti__lw_numel(x->type->rank, x->type->dims) != ti__lw_numel(rt->rank, rt->dims))
    return TI__LW_NOSUP(L, "the dividend broadcasts: divide before broadcasting");
  TI__LW_TRY(ti__lw_const(L, op->operands[1].value, &ct, 0));
  for (i = 0; i < ct->numel; i++) {
    double v = ti_tensor_get(ct, i);
    if (i == 0) c = (int64_t)v;
    if (v != (double)c || !ti__lw_ispow2(c, &k)) {
      ti_tensor_free(ct);
      return TI__LW_NOSUP(L, "divisor %g (element %lld): only one positive power-of-two constant is a shift (CCMPB BIT_SHIFT_NUM)", v, (long long)i);
    }
  }
  ti_tensor_free(ct);
  if (k > 31) return TI__LW_NOSUP(L, "divisor 2^%d: BIT_SHIFT_NUM is 0..31", (int)k);
  if (k == 0) {   /* x / 1 */
    *ti__lw_of(L, res) = *ti__lw_of(L, x);
    return TI_STATUS_SUCCESS;
  }
  d3[0] = (f.has & TI_SHAPE_HAS_NY) ? f.ny : 1;
  d3[1] = (f.has & TI_SHAPE_HAS_NX) ? f.nx : 1;
  d3[2] = f.nf;
  if ((t1 = ti__lw_shift_blk(L, x, rt, -1, x->type->dtype, d3, rt->dtype, k, nonneg ? ti__lw_min_of(rt->dtype) : 0)) < 0) return L->err ? L->err->status : TI_STATUS_NO_MEMORY;
  if (nonneg) return ti__lw_set(L, res, t1, 1, 0, NULL, NULL);
  cs = ti__lw_shape((int32_t)d3[0], (int32_t)d3[1], (int32_t)d3[2], 0);
  /* m = max(x, 0), then 2^k - 1 - m */
  if ((n = ti__lw_shift_blk(L, x, rt, -1, x->type->dtype, d3, rt->dtype, 0, 0)) < 0) return L->err ? L->err->status : TI_STATUS_NO_MEMORY;
  if ((sa = ti__lw_block(L, TI_BLOCK_SI, TI_DTYPE_I32, cs, 1)) < 0 || (sb = ti__lw_block(L, TI_BLOCK_CVS, TI_DTYPE_I32, cs, 1)) < 0)
    return TI__LW_OOM(L);
  TI__LW_TRY(ti__lw_attr(L, sb, TI_TASK_ATTR_CONSTANT_A, -1));
  TI__LW_TRY(ti__lw_attr(L, sb, TI_TASK_ATTR_CONSTANT_B, ((int64_t)1 << k) - 1));
  ti__lw_blk(L, sb)->has |= TI_BLOCK_HAS_BIAS_TYPE;
  ti__lw_blk(L, sb)->bias_type = TI_BIAS_CONSTANT;
  TI__LW_TRY(ti__lw_link(L, n, sa, 0));
  TI__LW_TRY(ti__lw_link(L, sa, sb, 0));
  /* x + (2^k - 1 - m) = min(x, 0) + 2^k - 1, then its floor shift */
  if ((sa = ti__lw_block(L, TI_BLOCK_SI, rt->dtype, cs, 1)) < 0) return TI__LW_OOM(L);
  TI__LW_TRY(ti__lw_feed_box(L, x, ti__lw_conform(x->type, rt), sa, 0, 3, d3, NULL, NULL));
  if ((t2 = ti__lw_block(L, TI_BLOCK_SI, TI_DTYPE_I32, cs, 1)) < 0) return TI__LW_OOM(L);
  TI__LW_TRY(ti__lw_link(L, sb, t2, 0));
  ti_task_shape_set(&cs, TI_SHAPE_HAS_N_BRANCH, 2);
  if ((cb = ti__lw_block(L, TI_BLOCK_CADD, TI_DTYPE_I32, cs, 1)) < 0) return TI__LW_OOM(L);
  TI__LW_TRY(ti__lw_link(L, sa, cb, 0));
  TI__LW_TRY(ti__lw_link(L, t2, cb, 1));
  if ((t2 = ti__lw_shift_blk(L, NULL, rt, cb, TI_DTYPE_I32, d3, rt->dtype, k, ti__lw_min_of(rt->dtype))) < 0)
    return L->err ? L->err->status : TI_STATUS_NO_MEMORY;
  /* the two quotients summed */
  cs = ti__lw_shape((int32_t)d3[0], (int32_t)d3[1], (int32_t)d3[2], 0);
  if ((sa = ti__lw_block(L, TI_BLOCK_SI, TI_DTYPE_I32, cs, 1)) < 0 || (sb = ti__lw_block(L, TI_BLOCK_SI, TI_DTYPE_I32, cs, 1)) < 0)
    return TI__LW_OOM(L);
  ti_task_shape_set(&cs, TI_SHAPE_HAS_N_BRANCH, 2);
  if ((cb = ti__lw_block(L, TI_BLOCK_CADD, TI_DTYPE_I32, cs, 1)) < 0) return TI__LW_OOM(L);
  TI__LW_TRY(ti__lw_link(L, t1, sa, 0));
  TI__LW_TRY(ti__lw_link(L, t2, sb, 0));
  TI__LW_TRY(ti__lw_link(L, sa, cb, 0));
  TI__LW_TRY(ti__lw_link(L, sb, cb, 1));
  return ti__lw_set(L, res, cb, 0, 0, NULL, NULL);
}

/* Materialises pieces into one value: an SI whose input cluster is
   assembled from interfaces, read by a one-branch CADD (a copy). */
static ti_status ti__lw_copy_block(ti__lw *L, const ti_type *rt, ti_task_shape f, int32_t *si, int32_t *cb) {
  ti_task_shape cs = f;
  if ((*si = ti__lw_block(L, TI_BLOCK_SI, rt->dtype, f, 1)) < 0) return TI__LW_OOM(L);
  ti_task_shape_set(&cs, TI_SHAPE_HAS_N_BRANCH, 1);
  if ((*cb = ti__lw_block(L, TI_BLOCK_CADD, rt->dtype == TI_DTYPE_I8 ? TI_DTYPE_I8 : TI_DTYPE_I32, cs, 1)) < 0) return TI__LW_OOM(L);
  return ti__lw_link(L, *si, *cb, 0);
}
/* The storage axis of a logical (NCHW) concat axis. */
static int32_t ti__lw_axis(const ti_type *t, int64_t axis) {
  if (axis < 0) axis += t->rank;
  if (t->rank == 4 && t->layout == TI_LAYOUT_NHWC) { static const int32_t m[4] = {0, 3, 1, 2}; return axis >= 0 && axis < 4 ? m[axis] : -1; }
  return axis >= 0 && axis < t->rank ? (int32_t)axis : -1;
}

static ti_status ti__lw_concat(ti__lw *L, const ti_op *op) {
  const ti_value *res = &op->results[0];
  const ti_type *rt = res->type;
  int32_t a = ti__lw_axis(rt, ti_dict_int(op->attrs, "axis", 0)), i, j;
  int64_t pre = 1, post = 1, off = 0, bd[3];
  int32_t si, cb;
  ti_task_shape f;
  int nonneg = 1;
  if (a < 0) return TI__LW_NOSUP(L, "concat axis out of range");
  for (i = 0; i < a; i++) pre *= rt->dims[i];
  for (i = a + 1; i < rt->rank; i++) post *= rt->dims[i];
  f = ti__lw_shape((int32_t)pre, (int32_t)rt->dims[a], (int32_t)post, 0);
  TI__LW_TRY(ti__lw_copy_block(L, rt, f, &si, &cb));
  for (j = 0; j < op->n_operands; j++) {
    const ti_value *v = op->operands[j].value;
    const int32_t *perm = ti__lw_conform(v->type, rt);
    int64_t n = ti__lw_numel(v->type->rank, v->type->dims) / (pre * post);
    ti_task_shape pos = ti__lw_shape(0, 0, 0, 0), size = ti__lw_shape((int32_t)pre, (int32_t)n, (int32_t)post, 0);
    if (v->type->dtype != rt->dtype) return TI__LW_NOSUP(L, "operand %d dtype differs from the result's", (int)j);
    ti_task_shape_set(&pos, TI_SHAPE_HAS_NY, 0);
    ti_task_shape_set(&pos, TI_SHAPE_HAS_NX, (int32_t)off);
    ti_task_shape_set(&pos, TI_SHAPE_HAS_NF, 0);
    bd[0] = pre; bd[1] = n; bd[2] = post;
    if (n == 0) continue;
    TI__LW_TRY(ti__lw_feed_box(L, v, perm, si, 0, 3, bd, &pos, &size));
    if (!ti__lw_of(L, v)->nonneg) nonneg = 0;
    off += n;
  }
  return ti__lw_set(L, res, cb, nonneg, 0, NULL, NULL);
}

/* broadcast: numpy rules in storage order (no layout conversion, as the
   interpreter). The same number of elements (a rank change, or nothing):
   a view, no block; else the operand is replicated on the edge into a copy
   block (the gathers of an add's broadcasting operand). */
static ti_status ti__lw_broadcast(ti__lw *L, const ti_op *op) {
  const ti_value *x = op->operands[0].value, *res = &op->results[0];
  const ti_type *rt = res->type;
  int32_t si, cb;
  if (x->type->dtype != rt->dtype) return TI__LW_NOSUP(L, "operand dtype %s differs from the result's %s", ti_dtype_name(x->type->dtype), ti_dtype_name(rt->dtype));
  if (ti__lw_numel(x->type->rank, x->type->dims) == ti__lw_numel(rt->rank, rt->dims)) {
    *ti__lw_of(L, res) = *ti__lw_of(L, x);
    return TI_STATUS_SUCCESS;
  }
  TI__LW_TRY(ti__lw_copy_block(L, rt, ti__lw_form(rt), &si, &cb));
  TI__LW_TRY(ti__lw_feed_elem(L, x, rt, si, NULL, 0));
  return ti__lw_set(L, res, cb, ti__lw_of(L, x)->nonneg, 0, NULL, NULL);
}

static ti_status ti__lw_slice(ti__lw *L, const ti_op *op) {
  const ti_value *x = op->operands[0].value, *res = &op->results[0];
  const ti_type *t = x->type, *rt = res->type;
  int64_t st0[TI_MAX_RANK], en[TI_MAX_RANK], sp[TI_MAX_RANK], start[TI_MAX_RANK];
  int64_t dims[4];
  int32_t i, r = t->rank, lo = -1, hi = -1;
  ti__lw_val v = *ti__lw_of(L, x);
  int32_t si, cb;
  const ti_task_block *src;
  ti_task_shape f = ti__lw_form(rt), pos, size;
  int64_t nsp = ti_dict_ints(op->attrs, "steps", sp, TI_MAX_RANK);
  ti_dict_ints(op->attrs, "starts", st0, TI_MAX_RANK);
  ti_dict_ints(op->attrs, "ends", en, TI_MAX_RANK);
  for (i = 0; i < r; i++) {
    int64_t s = st0[i], step = nsp > i ? sp[i] : 1;
    (void)en;
    if (step != 1) return TI__LW_NOSUP(L, "slice with step %lld: only steps of 1 are a sub-box", (long long)step);
    if (s < 0) s += t->dims[i];
    if (s < 0) s = 0;
    if (s > t->dims[i]) s = t->dims[i];
    start[i] = s;
    if (rt->dims[i] != t->dims[i]) { if (lo < 0) lo = i; hi = i; }
  }
  if (v.block < 0) return TI__LW_NOSUP(L, "slice of a constant (fold it first: constant-fold)");
  /* a rearranged value is first copied into a block that holds it as it is */
  {
    int64_t sq[TI_MAX_RANK], sq2[4], sd[4];
    int32_t n = 0, n2 = 0, m;
    for (i = 0; i < r; i++) if (t->dims[i] != 1) sq[n++] = t->dims[i];
    m = ti_task_block_dims(ti__lw_blk(L, v.block), sd);
    for (i = 0; i < m; i++) if (sd[i] != 1) sq2[n2++] = sd[i];
    if (v.n_steps || !ti__lw_dims_eq(n, sq, n2, sq2)) {
      int32_t csi, ccb;
      TI__LW_TRY(ti__lw_copy_block(L, t, ti__lw_form(t), &csi, &ccb));
      TI__LW_TRY(ti__lw_feed(L, x, NULL, csi));
      TI__LW_TRY(ti__lw_set(L, x, ccb, v.nonneg, 0, NULL, NULL));
      v = *ti__lw_of(L, x);
    }
  }
  /* the sub-box must be a box of the source block's output as it holds it */
  {
    int64_t sq[TI_MAX_RANK], sd[4];
    int32_t n = 0, k = 0, m;
    uint32_t fl[4];
    for (i = 0; i < r; i++) if (t->dims[i] != 1) sq[n++] = t->dims[i];
    src = ti__lw_blk(L, v.block);
    m = ti_task_block_layout(src, sd, fl);
    {
      int64_t sq2[4];
      int32_t n2 = 0;
      for (i = 0; i < m; i++) if (sd[i] != 1) sq2[n2++] = sd[i];
      if (v.n_steps || !ti__lw_dims_eq(n, sq, n2, sq2))
        return TI__LW_NOSUP(L, "a slice of a rank-%d value folding several axes into one block axis", (int)r);
    }
    pos = ti__lw_shape(0, 0, 0, 0);
    size = ti__lw_shape(0, 0, 0, 0);
    for (i = 0; i < m; i++) {
      ti_task_shape_set(&pos, fl[i], 0);
      ti_task_shape_set(&size, fl[i], (int32_t)sd[i]);
    }
    for (i = 0; i < r; i++) {
      if (t->dims[i] == 1) continue;
      while (k < m && sd[k] == 1) k++;
      ti_task_shape_set(&pos, fl[k], (int32_t)start[i]);
      ti_task_shape_set(&size, fl[k], (int32_t)rt->dims[i]);
      k++;
    }
  }
  (void)lo; (void)hi;
  TI__LW_TRY(ti__lw_copy_block(L, rt, f, &si, &cb));
  {
    int32_t rd = ti_task_block_dims(ti__lw_blk(L, si), dims);
    int64_t sb[4];
    int32_t rs = 0;
    uint32_t fl[4];
    int32_t m = ti_task_block_layout(ti__lw_blk(L, v.block), sb, fl);   /* src moved: blocks were added */
    ti_task_edge *e = ti_task_connect(L->g, ti__lw_blk(L, v.block), 0, &pos, &size, ti__lw_blk(L, si), 0, NULL, NULL);
    if (!e) return TI__LW_OOM(L);
    for (i = 0; i < m; i++) {
      int32_t *pf = NULL;
#define TI__LW_FIELD(num, mem, key, bit) if (fl[i] == (bit)) pf = &size.mem;
      TI_TASK_SHAPE_FIELDS(TI__LW_FIELD)
#undef TI__LW_FIELD
      sb[rs++] = pf ? *pf : sb[i];
    }
    if (!ti__lw_dims_eq(rs, sb, rd, dims)) TI__LW_TRY(ti__lw_reshape(L, e, rs, rd, dims));
  }
  return ti__lw_set(L, res, cb, v.nonneg, 0, NULL, NULL);
}

static ti_status ti__lw_lut(ti__lw *L, const ti_op *op) {
  const ti_value *x = op->operands[0].value, *res = &op->results[0];
  ti_tensor_value *tt = NULL;
  int64_t off, vals[256], i;
  int32_t n = 256, r;
  ti_task_shape f = ti__lw_form(res->type);
  int32_t si, sb, cb;
  int64_t d[4];
  ti_status st;
  int nonneg = 1;
  if (x->type->dtype != TI_DTYPE_I8) return TI__LW_NOSUP(L, "lut index of dtype %s: CLUT here takes i8 indices", ti_dtype_name(x->type->dtype));
  off = ti_dict_int(op->attrs, "offset", 128);
  TI__LW_TRY(ti__lw_const(L, op->operands[1].value, &tt, 0));
  for (i = 0; i < 256; i++) {
    int64_t sv = i < 128 ? i : i - 256, idx = sv + off;
    if (idx < 0 || idx >= tt->numel) {
      ti_tensor_free(tt);
      return TI__LW_NOSUP(L, "the %lld-entry table does not cover index %lld (+ offset %lld)", (long long)tt->numel,
                          (long long)sv, (long long)off);
    }
    vals[i] = (int64_t)ti_tensor_get(tt, idx);
    if (vals[i] < 0) nonneg = 0;
  }
  ti_tensor_free(tt);
  if ((si = ti__lw_block(L, TI_BLOCK_SI, TI_DTYPE_I8, f, 1)) < 0) return TI__LW_OOM(L);
  r = ti_task_block_dims(ti__lw_blk(L, si), d);
  TI__LW_TRY(ti__lw_feed_box(L, x, NULL, si, 0, r, d, NULL, NULL));
  if ((sb = ti__lw_block(L, TI_BLOCK_SB, res->type->dtype, ti__lw_shape(0, 0, 256, 0), 1)) < 0) return TI__LW_OOM(L);
  TI__LW_TRY(ti__lw_data(L, sb, res->type->dtype, 1, &n, vals, 256));
  if ((cb = ti__lw_block(L, TI_BLOCK_CLUT, res->type->dtype, f, 1)) < 0) return TI__LW_OOM(L);
  TI__LW_TRY(ti__lw_attr(L, cb, TI_TASK_ATTR_LUT_DW, 8));
  if ((st = ti__lw_link(L, si, cb, 0)) != TI_STATUS_SUCCESS || (st = ti__lw_link(L, sb, cb, 1)) != TI_STATUS_SUCCESS) return st;
  return ti__lw_set(L, res, cb, nonneg, 0, NULL, NULL);
}

/* An argument whose only use is the v operand of an nn.lif: the CLIF's
   membrane state, kept in the graph (no INPUT block). */
static int ti__lw_is_state_arg(const ti_value *v) {
  const ti_use *u = v->first_use;
  return !v->def && u && !u->next && u->index == 1 && ti_op_is(u->owner, "nn.lif");
}

/* lif(x, v) -> CLIF: x through an SI, v the state SI (written back each
   step, starting at VINIT = 0); spikes are result 0, result 1 the state. */
static ti_status ti__lw_lif(ti__lw *L, const ti_op *op) {
  const ti_value *x = op->operands[0].value, *v = op->operands[1].value;
  double vth = ti_dict_float(op->attrs, "vth", 1), vr = ti_dict_float(op->attrs, "v_reset", 0);
  double decay = ti_dict_float(op->attrs, "decay", 1);
  const ti_attr *a;
  ti_task_shape f = ti__lw_form(x->type);
  int32_t si, st, cl;
  if ((a = ti_dict_get(op->attrs, "vth")) && a->kind == TI_ATTR_INT) vth = (double)a->u.i;
  if ((a = ti_dict_get(op->attrs, "v_reset")) && a->kind == TI_ATTR_INT) vr = (double)a->u.i;
  if ((a = ti_dict_get(op->attrs, "decay")) && a->kind == TI_ATTR_INT) decay = (double)a->u.i;
  if (x->type->dtype != TI_DTYPE_I32 || v->type->dtype != TI_DTYPE_I32)
    return TI__LW_NOSUP(L, "lif on %s: the membrane is i32 (CLIF's 28-bit register)", ti_dtype_name(x->type->dtype));
  /* decay: v_prev * decay + x in the interpreter; CLIF leaks after the step
     (state = floor(VLEAKY_ALPHA * u / 256), u the potential after the
     reset), so the next step sees decay * u + x: equal when decay * u is an
     integer for every integer u, i.e. an integer decay */
  if (decay != floor(decay) || !(fabs(decay) * 256 <= (double)INT32_MAX))
    return TI__LW_NOSUP(L, "decay %g: CLIF's leak floors VLEAKY_ALPHA/256 * v where the interpreter keeps the fraction "
                           "of decay * v (and compares it with vth): only an integer decay is exact", decay);
  if (!(vth > TI_LIF_V_MIN && vth < TI_LIF_V_MAX) || vr != floor(vr) || vr < TI_LIF_V_MIN || vr > TI_LIF_V_MAX)
    return TI__LW_NOSUP(L, "vth %g / v_reset %g outside CLIF's 28-bit registers (v_reset an integer)", vth, vr);
  if (!ti__lw_is_state_arg(v))
    return TI__LW_NOSUP(L, "the potential v must be a program argument read only by this lif (it becomes the CLIF state)");
  if ((si = ti__lw_block(L, TI_BLOCK_SI, TI_DTYPE_I32, f, 1)) < 0) return TI__LW_OOM(L);
  TI__LW_TRY(ti__lw_feed(L, x, NULL, si));
  if ((st = ti__lw_block(L, TI_BLOCK_SI, TI_DTYPE_I32, f, 1)) < 0) return TI__LW_OOM(L);
  if ((cl = ti__lw_block(L, TI_BLOCK_CLIF, TI_DTYPE_I32, f, 1)) < 0) return TI__LW_OOM(L);
  TI__LW_TRY(ti__lw_attr(L, cl, TI_TASK_ATTR_VTH0, (int64_t)floor(vth)));
  TI__LW_TRY(ti__lw_attr(L, cl, TI_TASK_ATTR_VR, (int64_t)vr));
  if (decay != 1.0) {
    TI__LW_TRY(ti__lw_attr(L, cl, TI_TASK_ATTR_VLEAKY_ADPT_EN, 1));
    TI__LW_TRY(ti__lw_attr(L, cl, TI_TASK_ATTR_VLEAKY_ALPHA, (int64_t)(decay * 256)));
  }
  TI__LW_TRY(ti__lw_link(L, si, cl, 0));
  TI__LW_TRY(ti__lw_link(L, st, cl, 1));
  TI__LW_TRY(ti__lw_set(L, &op->results[0], cl, 1, 0, NULL, NULL));
  TI__LW_TRY(ti__lw_set(L, &op->results[1], st, 0, 0, NULL, NULL));
  ti__lw_of(L, &op->results[1])->state = 1;
  return TI_STATUS_SUCCESS;
}

/* One op. */
static ti_status ti__lw_op(ti__lw *L, const ti_op *op) {
  const char *nm = op->info->name;
  int32_t i;
  if (ti_op_is(op, "builtin.return")) return TI_STATUS_SUCCESS;
  if (ti_op_is(op, "builtin.get_parameter") || ti_op_is(op, "builtin.constant")) {
    ti__lw_of(L, &op->results[0])->block = -1;
    return TI_STATUS_SUCCESS;
  }
  /* a pure op on constants is a constant (evaluated where it is used) */
  if (op->n_operands && (ti_op_has_trait(op, TI_TRAIT_PURE) || ti_op_is(op, "builtin.to_vtensor") ||
                         ti_op_is(op, "builtin.to_tensor"))) {
    int all = 1;
    for (i = 0; i < op->n_operands; i++) if (!ti__lw_is_const(L, op->operands[i].value)) all = 0;
    if (all) {
      for (i = 0; i < op->n_results && i < 2; i++) ti__lw_of(L, &op->results[i])->block = -1;
      return TI_STATUS_SUCCESS;
    }
  }
  for (i = 0; i < op->n_results; i++)
    if (!ti__lw_dtype_ok(op->results[i].type->dtype))
      return TI__LW_NOSUP(L, "result %d is %s: the integer subset is i8 and i32", (int)i, ti_dtype_name(op->results[i].type->dtype));
  if (ti_op_is(op, "builtin.to_vtensor") || ti_op_is(op, "builtin.to_tensor") || ti_op_is(op, "nn.reshape") ||
      ti_op_is(op, "nn.flatten")) {
    *ti__lw_of(L, &op->results[0]) = *ti__lw_of(L, op->operands[0].value);
    return TI_STATUS_SUCCESS;
  }
  if (ti_op_is(op, "nn.transpose")) {
    const ti_value *x = op->operands[0].value;
    int64_t pm[TI_MAX_RANK];
    int32_t perm[TI_MAX_RANK];
    ti__lw_val *v = ti__lw_of(L, &op->results[0]);
    int64_t n = ti_dict_ints(op->attrs, "perm", pm, TI_MAX_RANK);
    if (n != x->type->rank) return TI__LW_NOSUP(L, "perm of %lld axes for a rank-%d operand", (long long)n, (int)x->type->rank);
    for (i = 0; i < x->type->rank; i++) perm[i] = (int32_t)pm[i];
    *v = *ti__lw_of(L, x);
    return ti__lw_push(L, v, x->type->rank, x->type->dims, perm);
  }
  if (ti__lw_of(L, &op->results[0])->fused) {
    if (ti_op_is(op, "nn.relu")) {   /* its operand is the CCMPB's rectified output (maybe viewed) */
      ti__lw_val *v = ti__lw_of(L, &op->results[0]);
      *v = *ti__lw_of(L, op->operands[0].value);
      v->nonneg = 1;
      v->fused = 1;
    }
    return TI_STATUS_SUCCESS;
  }
  if (ti_op_is(op, "nn.quant_conv2d")) return ti__lw_quant_conv(L, op);
  if (ti_op_is(op, "nn.quant_gemm")) return ti__lw_quant_gemm(L, op);
  if (ti_op_is(op, "nn.max_pool") || ti_op_is(op, "nn.avg_pool") || ti_op_is(op, "nn.global_avg_pool")) return ti__lw_pool(L, op);
  if (ti_op_is(op, "nn.relu") || ti_op_is(op, "nn.clip")) return ti__lw_clip(L, op);
  if (ti_op_is(op, "nn.add") || ti_op_is(op, "nn.mul") || ti_op_is(op, "nn.sub")) return ti__lw_binary(L, op);
  if (ti_op_is(op, "nn.div")) return ti__lw_div(L, op);
  if (ti_op_is(op, "nn.concat")) return ti__lw_concat(L, op);
  if (ti_op_is(op, "nn.broadcast")) return ti__lw_broadcast(L, op);
  if (ti_op_is(op, "nn.slice")) return ti__lw_slice(L, op);
  if (ti_op_is(op, "nn.lut")) return ti__lw_lut(L, op);
  if (ti_op_is(op, "nn.conv2d") || ti_op_is(op, "nn.gemm") || ti_op_is(op, "nn.matmul"))
    return TI__LW_NOSUP(L, "no Task IR form on integers: the interpreter saturates to the operand dtype; use "
                           "nn.quant_conv2d / nn.quant_gemm (i32 accumulation, shift)");
  if (ti_op_is(op, "nn.lif")) return ti__lw_lif(L, op);
  return TI__LW_NOSUP(L, "no Task IR form for %s in the integer subset", nm);
}

TASKIR_API ti_status ti_lower_to_task(ti_program *p, const ti_lower_options *o, ti_task_graph *g, ti_error *err) {
  ti_lower_options dflt;
  ti__lw L;
  ti_status st = TI_STATUS_SUCCESS;
  ti_op **ops = NULL;
  int64_t n = 0, i;
  const ti_op *ret = NULL;
  ti_error_clear(err);
  if (!o) { ti_lower_options_init(&dflt); o = &dflt; }
  if (!g) return ti_error_set(err, TI_STATUS_BAD_PARAM, "ti_lower_to_task: NULL graph");
  if (o->reuse_graph && g->arena.alloc_user == o->alloc_user) ti_task_graph_reset(g);
  else {
    if (o->reuse_graph) ti_task_graph_free(g);
    ti_task_graph_init(g, o->alloc_user);
  }
  if (!p) return ti_error_set(err, TI_STATUS_BAD_PARAM, "ti_lower_to_task: NULL program");
  if (p->kind != TI_PROGRAM_SSA) return ti_error_set(err, TI_STATUS_BAD_PARAM, "lower: the program must be SSA (nn)");
  memset(&L, 0, sizeof L);
  L.p = p; L.g = g; L.au = o->alloc_user; L.err = err;
  /* the temporaries' chunks from the program's context when they would
     come from its allocator anyway (the graph, which may outlive the
     context, never takes them) */
  if (L.au == p->ctx->alloc_user) ti_arena_init_pooled(&L.arena, p->ctx);
  else ti_arena_init(&L.arena, L.au);
  /* float programs first: say what to do */
  for (i = 0; i < p->n_args; i++)
    if (!ti__lw_dtype_ok(p->args[i]->type->dtype)) {
      ti_dtype d = p->args[i]->type->dtype;
      if (d == TI_DTYPE_F32 || d == TI_DTYPE_F16 || d == TI_DTYPE_F64)
        return ti_error_set(err, TI_STATUS_NOT_SUPPORTED, "lower: argument %lld is %s: Task IR here is integer: quantise "
                            "the model first (quantize-recognize)", (long long)i, ti_dtype_name(d));
      return ti_error_set(err, TI_STATUS_NOT_SUPPORTED, "lower: argument %lld is %s: the integer subset is i8 and i32",
                          (long long)i, ti_dtype_name(d));
    }
  {
    const ti_op *op;
    int64_t k = 0;
    for (op = p->first; op; op = op->next, k++) {
      int32_t r;
      for (r = 0; r < op->n_results; r++) {
        ti_dtype d = op->results[r].type->dtype;
        if (d == TI_DTYPE_F32 || d == TI_DTYPE_F16 || d == TI_DTYPE_F64)
          return ti_error_set(err, TI_STATUS_NOT_SUPPORTED, "lower: op #%lld %s: result %d is %s: Task IR here is integer: "
                              "quantise the model first (quantize-recognize)", (long long)k, op->info->name, (int)r,
                              ti_dtype_name(d));
      }
    }
  }
  if ((st = ti_verify(p, err)) != TI_STATUS_SUCCESS) return st;
  /* a value nobody reads would be a block with no consumer */
  if ((st = ti_pass_dce(p, NULL, err)) != TI_STATUS_SUCCESS) return st;
  if (!o->skip_layout) {
    ti_layout_stats ls;
    if ((st = ti_layout_transmit(p, &o->layout, err)) != TI_STATUS_SUCCESS) return st;
    if ((st = ti_layout_preset_npu(p, &o->layout, &ls, err)) != TI_STATUS_SUCCESS) return st;
  }
  if ((st = ti_walk_program(p, &ops, &n, err)) != TI_STATUS_SUCCESS) return st;
  L.vals = (ti__lw_val *)TASKIR_MALLOC(L.au, (size_t)(2 * n + 1) * sizeof *L.vals);
  L.args = (ti__lw_val *)TASKIR_MALLOC(L.au, (size_t)(p->n_args + 1) * sizeof *L.args);
  if (!L.vals || !L.args) { st = TI__LW_OOM(&L); goto done; }
  memset(L.vals, 0, (size_t)(2 * n + 1) * sizeof *L.vals);
  memset(L.args, 0, (size_t)(p->n_args + 1) * sizeof *L.args);
  for (i = 0; i < n; i++) ops[i]->order = i;
  /* arguments -> INPUT blocks, sockets in argument order */
  for (i = 0; i < p->n_args; i++) {
    const ti_type *t = p->args[i]->type;
    int32_t b;
    int64_t k;
    for (k = 0; k < t->rank; k++)
      if (t->dims[k] < 0 || t->dims[k] > INT32_MAX) { st = ti_error_set(err, TI_STATUS_NOT_SUPPORTED, "lower: argument %lld has a dynamic or huge dim", (long long)i); goto done; }
    if (!p->args[i]->first_use) continue;   /* nothing reads it: no INPUT block */
    if (ti__lw_is_state_arg(p->args[i])) continue;   /* a CLIF state */
    if ((b = ti__lw_block(&L, TI_BLOCK_INPUT, t->dtype, ti__lw_form(t), 0)) < 0) { st = TI_STATUS_NO_MEMORY; goto done; }
    ti__lw_blk(&L, b)->has |= TI_BLOCK_HAS_SOCKET_ID;
    ti__lw_blk(&L, b)->socket_id = (int32_t)i;
    if ((st = ti__lw_set(&L, p->args[i], b, 0, 0, NULL, NULL)) != TI_STATUS_SUCCESS) goto done;
  }
  for (i = 0; i < n && st == TI_STATUS_SUCCESS; i++) {
    L.cur = ops[i];
    L.cur_index = i;
    if (ti_op_is(ops[i], "builtin.return")) ret = ops[i];
    st = ti__lw_op(&L, ops[i]);
    if (st == TI_STATUS_SUCCESS) st = ti__lw_group_end(&L);
  }
  if (st != TI_STATUS_SUCCESS) goto done;
  if (!ret) { st = ti_error_set(err, TI_STATUS_INVALID, "lower: the program has no builtin.return"); goto done; }
  L.cur = ret;
  L.cur_index = ret->order;
  /* results -> SI -> OUTPUT, sockets in return order */
  for (i = 0; i < ret->n_operands && st == TI_STATUS_SUCCESS; i++) {
    const ti_value *v = ret->operands[i].value;
    ti_task_shape f = ti__lw_form(v->type);
    int32_t si, ob;
    if (ti__lw_of(&L, v)->state) continue;   /* the CLIF state block itself holds it */
    st = TI_STATUS_NO_MEMORY;
    if ((si = ti__lw_block(&L, TI_BLOCK_SI, v->type->dtype, f, 1)) < 0) break;
    if ((ob = ti__lw_block(&L, TI_BLOCK_OUTPUT, v->type->dtype, f, 1)) < 0) break;
    ti__lw_blk(&L, ob)->has |= TI_BLOCK_HAS_SOCKET_ID;
    ti__lw_blk(&L, ob)->socket_id = (int32_t)i;
    if ((st = ti__lw_feed(&L, v, NULL, si)) != TI_STATUS_SUCCESS) break;
    if ((st = ti__lw_link(&L, si, ob, 0)) != TI_STATUS_SUCCESS) break;
    st = ti__lw_group_end(&L);
  }
  if (st != TI_STATUS_SUCCESS) goto done;
  if (L.n_groups) {
    g->groups = (ti_task_group *)ti_arena_array_uninit(&g->arena, (size_t)L.n_groups, sizeof *g->groups, 8);
    if (!g->groups) { st = TI__LW_OOM(&L); goto done; }
    memcpy(g->groups, L.groups, (size_t)L.n_groups * sizeof *g->groups);
    g->n_groups = L.n_groups;
  }
  L.cur = NULL;
  /* the temporaries are dead: freed before the checker allocates its own */
  ti_ops_free(p, ops); ops = NULL;
  TASKIR_FREE(L.au, L.vals); L.vals = NULL;
  TASKIR_FREE(L.au, L.args); L.args = NULL;
  TASKIR_FREE(L.au, L.grp); L.grp = NULL;
  TASKIR_FREE(L.au, L.groups); L.groups = NULL;
  ti_arena_free(&L.arena);
  {
    ti_error ce;
    ti_status cs;
    ti_arena ca;   /* the checker's temporaries: cached chunks, as the lowering's */
    ti_error_clear(&ce);
    if (L.au == p->ctx->alloc_user) ti_arena_init_pooled(&ca, p->ctx);
    else ti_arena_init(&ca, L.au);
    cs = ti__task_check(g, NULL, &ce, &ca);
    ti_arena_free(&ca);
    if (cs == TI_STATUS_NO_MEMORY) st = ti_error_set(err, cs, "lower: checking the lowered graph: %s", ce.message);
    else if (cs != TI_STATUS_SUCCESS)
      st = ti_error_set(err, TI_STATUS_INVALID, "lower: the lowered graph fails the checker (a lowering bug): %s", ce.message);
  }
done:
  if (ops) ti_ops_free(p, ops);
  if (L.vals) TASKIR_FREE(L.au, L.vals);
  if (L.args) TASKIR_FREE(L.au, L.args);
  if (L.grp) TASKIR_FREE(L.au, L.grp);
  if (L.groups) TASKIR_FREE(L.au, L.groups);
  ti_arena_free(&L.arena);
  if (st != TI_STATUS_SUCCESS) {
    if (o->reuse_graph) ti_task_graph_reset(g);
    else {
      ti_task_graph_free(g);
      ti_task_graph_init(g, o->alloc_user);
    }
  }
  return st;
}

#endif /* TASKIR_IMPLEMENTATION */

/*
MIT License

Copyright (c) 2026 the taskir authors

Permission is hereby granted, free of charge, to any person obtaining a copy of
this software and associated documentation files (the "Software"), to deal in
the Software without restriction, including without limitation the rights to
use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies
of the Software, and to permit persons to whom the Software is furnished to do
so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
*/
