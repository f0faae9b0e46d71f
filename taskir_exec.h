/* taskir_exec.h - v0.1.0 - Task Rabbit: a fast, bit-exact executor of Task IR.

   Part of taskir (header-only C99, stb style). Plans a Task IR graph once
   (validation, topological order, buffer sizes, a memory plan that reuses
   buffers whose lifetimes have ended, kernel selection, weight packing) and
   then runs it as many times as wanted without allocating. Needs taskir.h
   (included here), which brings the kernels of taskir_kernels.h.

   DO THIS in *one* C or C++ file:
       #define TASKIR_IMPLEMENTATION
       #include "taskir_exec.h"        (also implements taskir.h and the kernels)
   Other files include it without the define.

   EXAMPLE
       ti_exec *x; ti_exec_options o; ti_exec_tensor out; ti_error err = {0};
       ti_exec_options_init(&o);
       if (ti_exec_plan(&graph, &o, &x, &err)) { puts(err.message); return 1; }
       ti_exec_set_input(x, 0, image, 28 * 28, &err);    // INPUT socket 0
       ti_exec_run(x, &err);                               // one inference / time step
       ti_exec_output(x, 1, &out, &err);                   // OUTPUT socket 1
       printf("%lld\n", (long long)ti_exec_tensor_i64(&out, 0));
       ti_exec_free(x);

   SEMANTICS (SPEC §2, §6)
       Integers are carried in 32 bits and wrap modulo 2^32; storage never
       saturates (requantisation is explicit, CCMPB/CCMPS). A storage block
       holds int32 (float for FLOAT_16/32 precisions); the plan may keep it
       as int8 when its values are provably in range (constant data that
       fits; data produced by CCMPB clipping to <= 127 with CMP >= -128, by
       CCMPS, by a CLUT whose table fits, by CLIF spikes, or fed by an INT_8
       / TERNARY INPUT), which lets CC take the packed int8 path.
       Operands of a compute block, by input cluster, in order:
         CADD   in_0 .. in_{n-1} [, bias]      CAVG  in [, bias]
         CVVH   a, b [, bias]                  CVM   in, W [, bias]
         CC/CC2D in, W [, bias]                CAX   in, alpha [, bias]
         CVS    in [, bias]                    CCMPB, CCMPS  in
         CLUT   in, lut                        CLIF  in [, v_prev]
       A cluster past the data clusters is the bias vector (CADD: a last
       cluster fed by an SB block); without one, bias_type CONSTANT or a
       nonzero CONSTANT_B adds CONSTANT_B.
       Operand data: conv input [niy][nix][nr], weights [nf][nr][nky][nkx],
       FC input [nr], FC weights [nf][nr], bias/alpha/lut [n], others
       [ny][nx][nf] (windowed blocks [niy][nix][nf]), [nf] for 1-D forms.
   CLIF STATE
       Input cluster 1 of CLIF, when present, carries v_prev: it must be fed
       by a storage block with no inputs of its own, through one whole-
       cluster edge without rearrangements, holding ny*nx*nf values. That
       block IS the membrane state: CLIF reads it, and the new potential is
       written back into it in place after each step, so it persists across
       ti_exec_run calls (one call = one time step). Its data, if any, is the
       initial potential, else VINIT. Without cluster 1 the state is kept
       privately, starting at VINIT. ti_exec_reset restores every state (and
       TW_CNT) to its initial value. Output cluster 0 carries the spikes (or
       what FIRE_TYPE selects).
   DATA MOVEMENT
       An edge carries the source interface's box (position/size, per dim by
       shape field: y -> ny, x -> nx, channel -> nf or nr, weights nf, nr,
       nky, nkx; absent = whole cluster), applies its rearrangements in order,
       reshapes row-major to the destination box (equal volumes) and writes
       it there. Several interfaces on an input cluster assemble it (parts
       not covered are 0); several on an output cluster copy the data to each
       consumer. Edges that move a whole cluster unchanged cost nothing: the
       consumer reads the producer's buffer. The rearrangements are those of
       taskir_kernels.h (kernels.rearrange: parameters, output dims), applied
       by ti_rearrange_apply to the box as the source holds it (e.g.
       [y][x][f]; SW weights [nf][nr][nky][nkx]). Planning inverts each
       rearrangement in closed form (the source element of every destination
       element; O(rank) memory per rearrangement, SHUFFLE its own table) and
       turns the result into copy runs, so a run only copies.

   LICENSE: MIT, see the end of this file.
*/
#ifndef TASKIR_EXEC_H
#define TASKIR_EXEC_H

/* The taskir version; every header defines the same (the first one included
   wins; tests/cli_version.sh checks that they agree). */
#ifndef TASKIR_VERSION_MAJOR
#define TASKIR_VERSION_MAJOR 0
#define TASKIR_VERSION_MINOR 1
#define TASKIR_VERSION_PATCH 0
#define TASKIR_VERSION_STRING "0.1.0"
#endif

#include "taskir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Seconds from an arbitrary origin; used for profiles only. */
typedef double (*ti_exec_clock_fn)(void *user);

typedef struct ti_exec_options {
  int keep_all;             /* give every block its own buffer (no reuse), so
                               ti_exec_block can read any block after a run */
  int profile;              /* time every step (per block type, copies) */
  int skip_check;           /* skip ti_task_check (own safety checks stay) */
  const ti_kernel_ctx *kernel_ctx;  /* NULL: detected CPU, one thread */
  ti_parallel_for_fn parallel_for;  /* handed to every kernel call (overrides
                               kernel_ctx's hook); the headers create no
                               threads: the caller's pool runs the ranges */
  void *parallel_user;      /* its first argument */
  int threads;              /* threads behind parallel_for: 1 runs every
                               kernel on the calling thread without the
                               hook; 0 or more than 1: use the hook for
                               blocks of at least parallel_min work
                               (smaller ones stay on the caller) */
  int64_t parallel_min;     /* work below which a block (or an edge's
                               conversion copy: its elements) stays on the
                               calling thread; 0 or less: the default
                               (TASKIR_EXEC_PARALLEL_MIN, or _AMX where
                               the kernels take AMX-INT8) */
  ti_exec_clock_fn clock;   /* NULL: the default profile clock, wall time:
                               clock_gettime(CLOCK_MONOTONIC) where <time.h>
                               declares it (POSIX; under -std=c99 define
                               _POSIX_C_SOURCE >= 199309L before the first
                               include), QueryPerformanceCounter on Windows,
                               else clock() (CPU time, summed over threads) */
  void *clock_user;
  void *alloc_user;         /* passed to TASKIR_MALLOC/FREE */
  int64_t max_bytes;        /* memory budget of the plan in bytes: buffers, arena,
                               packed weights, scratch, copy programs and the
                               temporaries of planning; 0: TASKIR_EXEC_MAX_BYTES
                               (1 GiB), negative: no limit. Checked before each
                               allocation: LIMIT, naming what needs how much. */
} ti_exec_options;

#ifndef TASKIR_EXEC_MAX_BYTES
#define TASKIR_EXEC_MAX_BYTES ((int64_t)1 << 30)
#endif
/* A block's work: its MACs / 16 for CC, CC2D and CVM (SIMD int8 MACs come
   ~16x faster than element-wise ops), else one per output and window tap;
   a conversion copy's work is its elements. Less than parallel_min
   (ti_exec_options) and it runs on the calling thread even with a
   parallel_for hook. The defaults, measured on 2 vCPUs with the ResNet-like
   graph of bench_exec (convs of 9.4 M MACs, element-wise blocks of 32768
   outputs, int8 skips copied into int32 CADDs):
   - TASKIR_EXEC_PARALLEL_MIN, 32768 (AVX-512 VNNI, AMD EPYC): every block
     of that graph and its copies split, the convs at ~45 us each: 1.88x
     with the two vCPUs on a shared cache (a cache line round trip of
     ~60 ns), 1.02-1.12x where they sat on different dies (~320 ns); with
     1048576 (no block of it split) 0.97-0.99x.
   - TASKIR_EXEC_PARALLEL_MIN_AMX, 1048576, where the kernels take AMX-INT8
     (Intel Xeon): the convs run at ~21 us, and that graph split ran at
     0.57-0.80x; with 1048576 1.00x. */
#ifndef TASKIR_EXEC_PARALLEL_MIN
#define TASKIR_EXEC_PARALLEL_MIN 32768
#endif
#ifndef TASKIR_EXEC_PARALLEL_MIN_AMX
#define TASKIR_EXEC_PARALLEL_MIN_AMX 1048576
#endif

typedef struct ti_exec ti_exec;   /* a plan: opaque */

/* A view of data inside a plan (valid until the next run/free). */
typedef struct ti_exec_tensor {
  const void *data;
  ti_dtype dtype;            /* TI_DTYPE_I8, I32 or F32 */
  int32_t rank;
  int64_t dims[4];
  int64_t count;
} ti_exec_tensor;

typedef struct ti_exec_profile {
  int64_t runs;
  double total_seconds;                    /* inside ti_exec_run */
  double kernel_seconds;                   /* inside compute kernels */
  double copy_seconds;                     /* moving data over edges */
  double block_seconds[TI_BLOCK_COUNT];    /* per block type (copies into a block count for it) */
  int64_t block_calls[TI_BLOCK_COUNT];
  int64_t edge_bytes;       /* bytes carried by edges (at buffer width), whether copied or shared */
  int64_t copied_bytes;     /* bytes actually copied */
  int64_t macs;             /* multiply-accumulates (other blocks: one op per output and window tap) */
} ti_exec_profile;

typedef struct ti_exec_info {
  int64_t plan_bytes;       /* everything the plan holds */
  int64_t arena_bytes;      /* the reused activation arena */
  int64_t persistent_bytes; /* constants, inputs, states */
  int64_t packed_bytes;     /* packed CC weights */
  int64_t scratch_bytes;    /* kernel scratch */
  int64_t map_bytes;        /* copy programs */
  int64_t block_bytes;      /* sum of all block sizes at their precision */
  int64_t buffer_bytes;     /* sum of the arena buffers without reuse */
  int64_t macs;             /* per run */
  int32_t n_blocks, n_steps, n_kernels, n_copies, n_packed;
} ti_exec_info;

TASKIR_API void ti_exec_options_init(ti_exec_options *o);
/* Before planning (which may take long on a big graph): the INPUT blocks g
   needs fed, in graph order. Fills sockets[i] (ti_task_socket_of) and
   counts[i] (values it takes, 0 if its shape is unusable) for i < cap;
   either array may be NULL. Returns the number of INPUT blocks. */
TASKIR_API int32_t ti_exec_graph_inputs(const ti_task_graph *g, int32_t *sockets, int64_t *counts, int32_t cap);
/* Plans g (which need not outlive the plan). o may be NULL (defaults).
   Errors: INVALID (checker or executor rules, naming block/edge), NOT_
   SUPPORTED (a kernel or rearrangement case beyond what the kernels do), NO_MEMORY. */
TASKIR_API TI_NODISCARD ti_status ti_exec_plan(const ti_task_graph *g, const ti_exec_options *o, ti_exec **out, ti_error *err);
TASKIR_API void ti_exec_free(ti_exec *x);

/* Feeds the INPUT block of a socket: n values in its storage order (y, x,
   f). Integer INPUTs take int32 (INT_8/TERNARY ones must be in int8 range),
   float INPUTs floats; each function converts from its type. Inputs stay
   until replaced. */
TASKIR_API TI_NODISCARD ti_status ti_exec_set_input(ti_exec *x, int32_t socket, const int32_t *values, int64_t n, ti_error *err);
TASKIR_API TI_NODISCARD ti_status ti_exec_set_input_f32(ti_exec *x, int32_t socket, const float *values, int64_t n, ti_error *err);
/* One inference (one time step). Fails, naming the socket, if an INPUT has
   never been fed. Never allocates. */
TASKIR_API TI_NODISCARD ti_status ti_exec_run(ti_exec *x, ti_error *err);
/* Restores SNN state (CLIF potentials, time-window counters) to t = 0. */
TASKIR_API void ti_exec_reset(ti_exec *x);

TASKIR_API TI_NODISCARD ti_status ti_exec_output(const ti_exec *x, int32_t socket, ti_exec_tensor *t, ti_error *err);
/* Data of any block after a run (storage: its data; compute: its output).
   Without keep_all, blocks whose buffer was reused give NOT_FOUND. */
TASKIR_API TI_NODISCARD ti_status ti_exec_block(const ti_exec *x, int32_t block_id, ti_exec_tensor *t, ti_error *err);
TASKIR_API int64_t ti_exec_tensor_i64(const ti_exec_tensor *t, int64_t i);
TASKIR_API double ti_exec_tensor_f64(const ti_exec_tensor *t, int64_t i);

/* Sockets and blocks, in graph order. */
TASKIR_API int32_t ti_exec_num_inputs(const ti_exec *x);
TASKIR_API int32_t ti_exec_input_socket(const ti_exec *x, int32_t i);
TASKIR_API int64_t ti_exec_input_count(const ti_exec *x, int32_t i);   /* values expected */
TASKIR_API int ti_exec_input_is_float(const ti_exec *x, int32_t i);
TASKIR_API ti_dtype ti_exec_input_precision(const ti_exec *x, int32_t i);   /* the INPUT block's precision */
TASKIR_API int32_t ti_exec_num_outputs(const ti_exec *x);
TASKIR_API int32_t ti_exec_output_socket(const ti_exec *x, int32_t i);
TASKIR_API int32_t ti_exec_output_block(const ti_exec *x, int32_t i);  /* block id */
TASKIR_API int32_t ti_exec_num_blocks(const ti_exec *x);
TASKIR_API int32_t ti_exec_block_id(const ti_exec *x, int32_t i);

TASKIR_API void ti_exec_get_info(const ti_exec *x, ti_exec_info *info);
/* Accumulated over runs since the plan or the last clear. Times are filled
   only with options.profile; counts always. */
TASKIR_API const ti_exec_profile *ti_exec_get_profile(const ti_exec *x);
TASKIR_API void ti_exec_clear_profile(ti_exec *x);

/* A compute block's kernel as the dispatch table calls it: the kernel
   column of the block type's row in taskir.h (TI_BLOCK_TYPES). The plan
   gathers the operands by the row: in[0..n_in) the activations, w the
   second operand (second activation, weight, alpha or table), bias the
   bias vector (or NULL; d->bias_mode says), out the output [ny][nx][nf] or
   [nf] (int32, f32 for float blocks; a CCMPB whose results all fit int8
   writes int8, its precision's storage). */
typedef struct ti_exec_kernel_args {
  const ti_kernel_ctx *k;
  const ti_prim_desc *d;
  const void *const *in;
  int32_t n_in;
  const void *w;
  const void *packed;           /* CC: constant weights packed at plan time, or NULL */
  size_t packed_bytes;
  const void *bias;
  void *out;
  void *scratch;                /* kernel scratch of the plan */
  size_t scratch_bytes;
  ti_lif_params *lif;           /* CLIF: parameters and the state buffer */
  int32_t *state;
} ti_exec_kernel_args;
typedef ti_status (*ti_exec_kernel_fn)(const ti_exec_kernel_args *a);
/* Per block i (0 .. ti_exec_num_blocks - 1, graph order), accumulated like
   the profile: seconds only with options.profile, counts always. */
typedef struct ti_exec_block_profile {
  int32_t block_id;
  ti_block_type type;
  const char *kernel;       /* the path the plan chose: "packed int8" (CC on int8
                               data with packed weights), "int8", "int32", "float"
                               (the kernel's input width); "-" for storage/IO */
  int64_t calls;            /* kernel calls */
  double seconds;           /* its kernel and the copies into it */
  int64_t macs;             /* as ti_exec_profile.macs */
  int64_t bytes;            /* bytes copied into it over edges */
} ti_exec_block_profile;
/* 0 if i is out of range. */
TASKIR_API int ti_exec_get_block_profile(const ti_exec *x, int32_t i, ti_exec_block_profile *bp);

#ifdef __cplusplus
}
#endif
#endif /* TASKIR_EXEC_H */

/* ======================================================================== */
#if defined(TASKIR_IMPLEMENTATION) && !defined(TASKIR_EXEC_IMPL_INCLUDED)
#define TASKIR_EXEC_IMPL_INCLUDED
#include "taskir.h"   /* its implementation, after a declarations-only include */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(_WIN32)
#include <windows.h>   /* QueryPerformanceCounter: the default profile clock */
#endif

/* >>exec.impl ------------------------------------------------------------- */

#define TI__X_ALIGN 64
#define TI__X_END 0x7fffffff     /* "live until the end of the run" */

enum { TI__XS_ZERO, TI__XS_COPY, TI__XS_KERNEL, TI__XS_STATE_COPY };

/* one contiguous piece of a copy: dst[d..d+n) = src[s..s+n), s < 0: zeros */
typedef struct ti__xrun { int64_t d, s, n; } ti__xrun;

typedef struct ti__xbuf {
  int64_t count;
  ti_dtype dt;
  size_t bytes;
  int persistent;        /* own allocation, never reused */
  int32_t first, last;   /* live range in steps (arena buffers) */
  size_t offset;
  void *p;
  void *init;            /* state buffers: initial content for reset */
  int constant;          /* filled at plan time, never written by a step */
} ti__xbuf;

typedef struct ti__xstep {
  int kind;
  int32_t blk;                 /* block index the step works for */
  /* ZERO / COPY */
  int32_t src, dst;            /* buffer ids */
  int64_t run0, nrun, elems;
  /* KERNEL */
  ti_prim_desc d;
  int32_t n_in, in0;           /* operand buffer ids in x->opnd[in0..] */
  int32_t w, bias, out, state, packed;   /* buffer ids or -1 */
  size_t packed_bytes;
  int64_t macs;
  int32_t lif;                 /* CLIF: index into x->lif / x->lif0 */
} ti__xstep;

typedef struct ti__xblk {
  int32_t id;
  ti_block_type type;
  ti_dtype precision;
  int32_t socket;
  int32_t rank;
  int64_t dims[4];
  int64_t count;
  int32_t buf;                 /* buffer holding the block's data, -1 if none */
} ti__xblk;

struct ti_exec {
  void *u;
  ti_kernel_ctx kctx;
  ti_kernel_ctx kctx1;         /* kctx without the hook: small blocks */
  int64_t par_min;             /* opt.parallel_min, or its default */
  ti_exec_options opt;
  int32_t n_blk;
  ti__xblk *blk;
  int32_t n_buf, cap_buf;
  ti__xbuf *buf;
  int32_t n_step, cap_step;
  ti__xstep *step;
  int64_t n_run, cap_run;
  ti__xrun *run;
  int32_t n_opnd, cap_opnd;
  int32_t *opnd;
  const void **optr;           /* resolved operand pointers (parallel to opnd) */
  int32_t n_in, n_out;
  int32_t *in_blk, *out_blk;   /* block indices */
  unsigned char *in_set;
  void *arena;
  size_t arena_bytes;
  void *scratch;
  size_t scratch_bytes;
  int64_t edge_bytes_per_run, macs_per_run, block_bytes, buffer_bytes;
  ti_exec_profile prof;
  ti_exec_block_profile *bprof;   /* n_blk entries */
  int32_t n_packed;
  int32_t n_lif, cap_lif;
  ti_lif_params *lif, *lif0;   /* CLIF parameters now / at t = 0 */
  /* memory budget while planning */
  int64_t budget, charged, peak;
  ti_error *perr;
  int32_t cur_blk;             /* block index being planned, -1 if none */
};

/* The default profile clock (seconds, wall time): chosen by preprocessor,
   CLOCK_MONOTONIC being defined exactly where <time.h> declares
   clock_gettime (the same feature macros gate both); clock() is the last
   resort, CPU time of every thread. */
static double ti__x_clock_default(void *u) {
  (void)u;
#if defined(_WIN32)
  {
    LARGE_INTEGER c, f;
    if (QueryPerformanceFrequency(&f) && f.QuadPart > 0 && QueryPerformanceCounter(&c))
      return (double)c.QuadPart / (double)f.QuadPart;
  }
#elif defined(CLOCK_MONOTONIC)
  {
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) == 0) return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
  }
#endif
  return (double)clock() / CLOCKS_PER_SEC;
}

TASKIR_API void ti_exec_options_init(ti_exec_options *o) {
  memset(o, 0, sizeof *o);
  o->max_bytes = TASKIR_EXEC_MAX_BYTES;
}

TASKIR_API int32_t ti_exec_graph_inputs(const ti_task_graph *g, int32_t *sockets, int64_t *counts, int32_t cap) {
  int32_t i, n = 0;
  if (!g) return 0;
  for (i = 0; i < g->n_blocks; i++) {
    const ti_task_block *b = &g->blocks[i];
    if (b->type != TI_BLOCK_INPUT) continue;
    if (n < cap) {
      int64_t d[4], c = 1;
      int32_t r = ti_task_block_dims(b, d), k;
      for (k = 0; k < r; k++) c = d[k] <= 0 || c > TASKIR_CHECK_MAX_ELEMS / d[k] ? 0 : c * d[k];
      if (sockets) sockets[n] = ti_task_socket_of(b);
      if (counts) counts[n] = c;
    }
    n++;
  }
  return n;
}

/* Charges bytes against the plan's budget before they are allocated; 0 (with
   a LIMIT error naming what needs how much) when they do not fit. */
#ifdef TASKIR_NO_ERRMSG   /* see ti_error_set */
#define ti__x_charge(x, bytes, what) (TI__NOMSG(what), (ti__x_charge)((x), (bytes), NULL))
#define ti__x_kernel_fail(P, b, s, what) (TI__NOMSG(what), (ti__x_kernel_fail)((P), (b), (s), NULL))
#endif
static int (ti__x_charge)(ti_exec *x, int64_t bytes, const char *what) {
  if (bytes < 0) bytes = INT64_MAX / 2;
  if (x->budget >= 0 && (bytes > x->budget || x->charged > x->budget - bytes)) {
    if (x->cur_blk >= 0)
      ti_error_set(x->perr, TI_STATUS_LIMIT,
                   "block %d (%s): %s needs %lld bytes, which with the %lld bytes planned so far exceeds the memory "
                   "budget of %lld bytes (ti_exec_options.max_bytes)", (int)x->blk[x->cur_blk].id,
                   ti_block_type_name(x->blk[x->cur_blk].type) ? ti_block_type_name(x->blk[x->cur_blk].type) : "?",
                   what, (long long)bytes, (long long)x->charged, (long long)x->budget);
    else
      ti_error_set(x->perr, TI_STATUS_LIMIT,
                   "%s needs %lld bytes, which with the %lld bytes planned so far exceeds the memory budget of %lld "
                   "bytes (ti_exec_options.max_bytes)", what, (long long)bytes, (long long)x->charged, (long long)x->budget);
    return 0;
  }
  x->charged += bytes;
  if (x->charged > x->peak) x->peak = x->charged;
  return 1;
}
static void ti__x_uncharge(ti_exec *x, int64_t bytes) { x->charged -= bytes; }

static void *ti__x_grow(ti_exec *x, void *p, int64_t n, int64_t *cap, size_t elem) {
  return ti__grow(x->u, &p, elem, cap, n + 1, 16, INT64_MAX) ? p : NULL;
}

static int32_t ti__x_newbuf(ti_exec *x, int64_t count, ti_dtype dt, int persistent) {
  int64_t cap = x->cap_buf;
  ti__xbuf *nb = (ti__xbuf *)ti__x_grow(x, x->buf, x->n_buf, &cap, sizeof *nb);
  ti__xbuf *b;
  if (!nb) return -1;
  x->buf = nb; x->cap_buf = (int32_t)cap;
  b = &x->buf[x->n_buf];
  memset(b, 0, sizeof *b);
  b->count = count; b->dt = dt; b->bytes = (size_t)count * ti_dtype_size(dt);
  b->persistent = persistent;
  b->first = TI__X_END; b->last = -1;
  if (persistent) {
    if (!ti__x_charge(x, (int64_t)b->bytes, "a buffer")) return -1;
    b->p = TASKIR_MALLOC(x->u, b->bytes ? b->bytes : 1);
    if (!b->p) return -1;
    memset(b->p, 0, b->bytes);
  }
  return x->n_buf++;
}

static ti__xstep *ti__x_newstep(ti_exec *x, int kind, int32_t blk) {
  int64_t cap = x->cap_step;
  ti__xstep *ns = (ti__xstep *)ti__x_grow(x, x->step, x->n_step, &cap, sizeof *ns);
  ti__xstep *s;
  if (!ns) return NULL;
  x->step = ns; x->cap_step = (int32_t)cap;
  s = &x->step[x->n_step++];
  memset(s, 0, sizeof *s);
  s->kind = kind; s->blk = blk;
  s->src = s->dst = s->w = s->bias = s->out = s->state = s->packed = -1;
  return s;
}

/* --- element access ------------------------------------------------------ */

/* A CCMPB (integer) whose results all fit int8: it writes an int8 buffer. */
static int ti__x_ccmpb_i8(const ti_prim_desc *d) {
  return d->in_dtype != TI_DTYPE_F32 && (d->out_dtype == TI_DTYPE_I8 || d->out_dtype == TI_DTYPE_TERNARY) && d->cmp >= -128;
}

static int64_t ti__x_ld(const void *p, ti_dtype dt, int64_t i) {
  switch (dt) {
  case TI_DTYPE_I8: return ((const int8_t *)p)[i];
  case TI_DTYPE_F32: return (int64_t)((const float *)p)[i];
  default: return ((const int32_t *)p)[i];
  }
}

/* dst[0..n) = src[0..n) converted; src NULL: zeros. Integer narrowing keeps
   the low bits (only done where values are known to fit). */
static void ti__x_convert(void *dst, ti_dtype ddt, const void *src, ti_dtype sdt, int64_t n) {
  int64_t i;
  size_t es = ti_dtype_size(ddt);
  if (!src) { memset(dst, 0, (size_t)n * es); return; }
  if (ddt == sdt) { memcpy(dst, src, (size_t)n * es); return; }
  if (ddt == TI_DTYPE_F32) {
    float *d = (float *)dst;
    if (sdt == TI_DTYPE_I8) for (i = 0; i < n; i++) d[i] = (float)((const int8_t *)src)[i];
    else for (i = 0; i < n; i++) d[i] = (float)((const int32_t *)src)[i];
  } else if (ddt == TI_DTYPE_I32) {
    int32_t *d = (int32_t *)dst;
    if (sdt == TI_DTYPE_I8) {
      /* blocks of 64 through a local copy: a loop of constant count that
         cannot alias d, which compilers vectorize at -O2 (GCC 12 leaves
         the plain loop scalar there: the int8 skips of bench_exec's
         ResNet-like graph took 11% of its run) */
      const int8_t *s8 = (const int8_t *)src;
      for (i = 0; i + 64 <= n; i += 64) {
        int8_t t[64];
        int k;
        memcpy(t, s8 + i, sizeof t);
        for (k = 0; k < 64; k++) d[i + k] = t[k];
      }
      for (; i < n; i++) d[i] = s8[i];
    } else for (i = 0; i < n; i++) {   /* float -> int: truncate, saturate */
      float f = ((const float *)src)[i];
      d[i] = f != f ? 0 : f >= 2147483647.0f ? INT32_MAX : f <= -2147483648.0f ? INT32_MIN : (int32_t)f;
    }
  } else {
    int8_t *d = (int8_t *)dst;
    if (sdt == TI_DTYPE_I32) for (i = 0; i < n; i++) d[i] = (int8_t)(uint8_t)(uint32_t)((const int32_t *)src)[i];
    else for (i = 0; i < n; i++) d[i] = (int8_t)((const float *)src)[i];
  }
}

TASKIR_API int64_t ti_exec_tensor_i64(const ti_exec_tensor *t, int64_t i) {
  if (!t || !t->data || i < 0 || i >= t->count) return 0;
  return ti__x_ld(t->data, t->dtype, i);
}
TASKIR_API double ti_exec_tensor_f64(const ti_exec_tensor *t, int64_t i) {
  if (!t || !t->data || i < 0 || i >= t->count) return 0;
  if (t->dtype == TI_DTYPE_F32) return ((const float *)t->data)[i];
  return (double)ti__x_ld(t->data, t->dtype, i);
}

/* --- shapes, boxes ------------------------------------------------------- */

/* Dim roles for boxes: which shape field names a dim. */
enum { TI__R_Y, TI__R_X, TI__R_C, TI__R_F, TI__R_R, TI__R_KY, TI__R_KX };

typedef struct ti__xview {     /* a tensor as an edge end sees it */
  int32_t rank;
  int64_t dims[4];
  int role[4];
} ti__xview;

static int64_t ti__x_numel(const ti__xview *v) {
  int64_t n = 1; int32_t i;
  for (i = 0; i < v->rank; i++) n *= v->dims[i];
  return n;
}

static void ti__x_view3(ti__xview *v, int64_t y, int64_t xx, int64_t c) {
  memset(v, 0, sizeof *v);
  if (y > 0 || xx > 0) {
    v->rank = 3;
    v->dims[0] = y > 0 ? y : 1; v->dims[1] = xx > 0 ? xx : 1; v->dims[2] = c;
    v->role[0] = TI__R_Y; v->role[1] = TI__R_X; v->role[2] = TI__R_C;
  } else {
    v->rank = 1; v->dims[0] = c; v->role[0] = TI__R_C;
  }
}

/* The view of an operand as the descriptor table lays it out: dims by
   shape field; a channel dim takes nf or nr from an interface; y and x of
   a 2-D form count at least 1. */
static void ti__x_operand_view(const ti_task_operand *op, ti__xview *v) {
  int32_t i;
  memset(v, 0, sizeof *v);
  if (op->rank == 3 && op->fields[0] == TI_DIM_Y) {   /* [y][x][c] or [c] */
    ti__x_view3(v, op->dims[0], op->dims[1], op->dims[2]);
    return;
  }
  v->rank = op->rank;
  for (i = 0; i < op->rank; i++) {
    uint32_t f = op->fields[i];
    v->dims[i] = op->dims[i];
    v->role[i] = op->channel && i == op->rank - 1 ? TI__R_C : f == TI_DIM_Y ? TI__R_Y : f == TI_DIM_X ? TI__R_X
               : f == TI_DIM_F ? TI__R_F : f == TI_DIM_R ? TI__R_R : f == TI_DIM_KY ? TI__R_KY : TI__R_KX;
  }
}

/* The view of a block's own data (storage layout, or output of compute). */
static void ti__x_block_view(const ti_task_block *b, ti__xview *v) {
  ti_task_operand op;
  ti_task_block_operand(b, -1, &op);
  ti__x_operand_view(&op, v);
}

static int32_t ti__x_box_field(const ti_task_shape *s, int role, uint32_t *has) {
  switch (role) {
  case TI__R_Y: *has = s->has & TI_SHAPE_HAS_NY; return s->ny;
  case TI__R_X: *has = s->has & TI_SHAPE_HAS_NX; return s->nx;
  case TI__R_C:
    if ((s->has & TI_SHAPE_HAS_NF) || s->nf) { *has = 1; return s->nf; }
    *has = s->has & TI_SHAPE_HAS_NR; return s->nr;
  case TI__R_F: *has = s->has & TI_SHAPE_HAS_NF; return s->nf;
  case TI__R_R: *has = s->has & TI_SHAPE_HAS_NR; return s->nr;
  case TI__R_KY: *has = s->has & TI_SHAPE_HAS_NKY; return s->nky;
  default: *has = s->has & TI_SHAPE_HAS_NKX; return s->nkx;
  }
}

/* Box of an interface in a view: pos[] and size[] per dim. */
static ti_status ti__x_box(const ti__xview *v, const ti_task_interface *f, int64_t *pos, int64_t *size,
                           int32_t block_id, int32_t edge_id, ti_error *err) {
  int32_t i;
  for (i = 0; i < v->rank; i++) {
    uint32_t has = 0;
    int64_t p = 0, n;
    if (f->has & TI_IFACE_HAS_POSITION) p = ti__x_box_field(&f->position, v->role[i], &has);
    n = v->dims[i] - p;
    if (f->has & TI_IFACE_HAS_SIZE) {
      int32_t sz = ti__x_box_field(&f->size, v->role[i], &has);
      if (sz > 0) n = sz;
    }
    if (p < 0 || n <= 0 || p + n > v->dims[i])
      return ti_error_set(err, TI_STATUS_INVALID,
                          "block %d: interface of edge %d: box [%lld, %lld) leaves dim %d of extent %lld",
                          (int)block_id, (int)edge_id, (long long)p, (long long)(p + n), (int)i, (long long)v->dims[i]);
    pos[i] = p; size[i] = n;
  }
  return TI_STATUS_SUCCESS;
}

/* --- rearrangements on index tensors ------------------------------------ */

/* One rearrangement of an edge, inverted: the input element an output
   element reads, in closed form (the kinds' definitions: taskir_kernels.h,
   kernels.rearrange), so that planning an edge needs O(rank) memory per
   rearrangement and no per-element index map. Every kind has such a form;
   SHUFFLE keeps its own index table (a copy of its parameter). */
typedef struct ti__xinv {
  ti_rearrange_kind kind;
  int cyc, ax, bx, q, axis;
  int32_t r, ro;
  int64_t id[TI_MAX_RANK], od[TI_MAX_RANK], ud[TI_MAX_RANK];   /* ud: dims the output index is read in */
  int64_t ivol, sa, sb, oy, ox, dd[TI_MAX_RANK];
  int perm[TI_MAX_RANK];
  unsigned char flip[TI_MAX_RANK];
  ti__ra_map mp;
  int32_t *tab;                /* SHUFFLE: its index table */
  int64_t ntab;
} ti__xinv;

#define TI__X_MAXP 8   /* parameter tensors per rearrangement */

/* Infers rearrangement ra on dims (r, d) (checking its output against cap,
   the checker's rule), and prepares its inverse. */
static ti_status ti__x_inv_init(ti_exec *x, ti__xinv *iv, const ti_task_rearrange *ra, int32_t r, const int64_t *d,
                                int32_t edge_id, int32_t step, int64_t cap, ti_error *err) {
  ti_rearrange_param prm[TI__X_MAXP];
  int32_t *ib[TI__X_MAXP];
  int np = ra->n_matrix, i, ond = 0;
  int64_t n = 1, k, charged = 0;
  const char *why = NULL, *kname = ti_rearrange_kind_name(ra->type);
  const int32_t *v, *v1;
  ti_status s = TI_STATUS_SUCCESS;
  memset(iv, 0, sizeof *iv);
  if (!kname) kname = "?";
  if (np > TI__X_MAXP)
    return ti_error_set(err, TI_STATUS_NOT_SUPPORTED, "edge %d: %s with %d parameter tensors (at most %d)", (int)edge_id, kname, np, TI__X_MAXP);
  memset(prm, 0, sizeof prm);
  for (i = 0; i < np; i++) {
    const ti_task_tensor *m = &ra->matrix[i];
    ib[i] = NULL;
    prm[i].ndims = m->n_dims; prm[i].dims = m->dims;
    if (m->int32_data.count > 0) {
      if (!ti__x_charge(x, m->int32_data.count * (int64_t)sizeof(int32_t), "a rearrangement's parameters")) {
        s = TI_STATUS_LIMIT; np = i; goto done;
      }
      charged += m->int32_data.count * (int64_t)sizeof(int32_t);
      ib[i] = (int32_t *)TASKIR_MALLOC(x->u, (size_t)m->int32_data.count * sizeof(int32_t));
      if (!ib[i]) { s = ti_error_set(err, TI_STATUS_NO_MEMORY, "out of memory"); np = i + 1; goto done; }
      for (k = 0; k < m->int32_data.count; k++) ib[i][k] = (int32_t)ti_task_values_get_i64(&m->int32_data, k);
      prm[i].i32 = ib[i]; prm[i].n_i32 = m->int32_data.count;
    }
    if (m->float_data.count > 0 && m->float_data.storage == TI_DTYPE_F32) {
      prm[i].f32 = (const float *)m->float_data.data; prm[i].n_f32 = m->float_data.count;
    }
  }
  s = ti_rearrange_infer_ex(ra->type, prm, np, r, d, &ond, iv->od, &why);
  if (s) {
    s = ti_error_set(err, s == TI_STATUS_NOT_SUPPORTED ? s : TI_STATUS_INVALID, "edge %d: %s: %s", (int)edge_id, kname,
                     why ? why : "parameters do not fit the data");
    goto done;
  }
  for (i = 0; i < ond; i++) n = iv->od[i] > 0 && n > INT64_MAX / 16 / iv->od[i] ? INT64_MAX / 16 : n * iv->od[i];
  if (n > cap) {   /* the checker's rule (ti_task_rearrange_cap), kept here for unchecked plans */
    s = ti_error_set(err, TI_STATUS_INVALID, "edge %d: rearrangement #%d (%s) makes %lld elements, more than %lld "
                     "(%d times the larger end of the edge)", (int)edge_id, (int)step, kname, (long long)n,
                     (long long)cap, (int)TASKIR_REARRANGE_GROWTH);
    goto done;
  }
  iv->kind = ra->type; iv->r = r; iv->ro = ond; iv->ivol = 1;
  for (i = 0; i < r; i++) { iv->id[i] = d[i]; iv->ud[i] = iv->od[i]; iv->ivol *= d[i]; iv->perm[i] = i; }
  v = np > 0 ? prm[0].i32 : NULL;
  v1 = np > 1 ? prm[1].i32 : NULL;
  switch (iv->kind) {   /* what ti_rearrange_apply reads of the parameters, kind by kind */
  case TI_REARRANGE_RESHAPE:   /* the source transposed to perm, read flat */
    for (i = 0; i < r; i++) {
      iv->perm[i] = np > 0 && prm[0].n_i32 > 0 ? v[r - 1 - i] : i;
      iv->ud[i] = d[iv->perm[i]];
    }
    break;
  case TI_REARRANGE_PERMUTE:
    for (i = 0; i < r; i++) iv->perm[i] = v[i];
    break;
  case TI_REARRANGE_ROTATE:
    iv->ax = prm[0].n_i32 == 3 ? v[1] : 0; iv->bx = prm[0].n_i32 == 3 ? v[2] : 1;
    iv->q = (int)(((v[0] % 4) + 4) % 4);
    break;
  case TI_REARRANGE_REFLECT:
    for (k = 0; k < prm[0].n_i32; k++) iv->flip[v[k]] = 1;
    break;
  case TI_REARRANGE_SHIFT:
  case TI_REARRANGE_SCALE:
    iv->cyc = iv->kind == TI_REARRANGE_SHIFT && np > 1 && prm[1].n_i32 == 1 && v1[0] == TI_SHIFT_CYCLIC;
    for (i = 0; i < r; i++) iv->dd[i] = np > 0 && i < prm[0].n_i32 ? v[i] : (iv->kind == TI_REARRANGE_SHIFT ? 0 : 1);
    break;
  case TI_REARRANGE_SHEAR:
    iv->sa = v[0]; iv->sb = v[1];
    iv->oy = iv->sa < 0 ? -iv->sa * (d[1] - 1) : 0;
    iv->ox = iv->sb < 0 ? -iv->sb * (d[0] - 1) : 0;
    break;
  case TI_REARRANGE_AFFINE:
  case TI_REARRANGE_PROJECT:
    (void)ti__ra_map_init(iv->kind, prm, np, &iv->mp, &why);   /* validated by infer */
    break;
  case TI_REARRANGE_SHUFFLE:
    iv->axis = np > 1 && prm[1].n_i32 == 1 ? v1[0] : -1;
    iv->tab = ib[0]; iv->ntab = prm[0].n_i32; ib[0] = NULL;   /* kept (and stays charged) until ti__x_inv_free */
    if (iv->tab) charged -= iv->ntab * (int64_t)sizeof(int32_t);
    break;
  default:
    break;
  }
done:
  for (i = 0; i < np; i++) if (ib[i]) TASKIR_FREE(x->u, ib[i]);
  ti__x_uncharge(x, charged);
  return s;
}

static void ti__x_inv_free(ti_exec *x, ti__xinv *iv) {
  if (iv->tab) { TASKIR_FREE(x->u, iv->tab); ti__x_uncharge(x, iv->ntab * (int64_t)sizeof(int32_t)); iv->tab = NULL; }
}

/* The flat input index output element f (flat, row-major) reads; -1: zero. */
static int64_t ti__x_inv_src(const ti__xinv *iv, int64_t f) {
  int64_t o[TI_MAX_RANK], i[TI_MAX_RANK], t;
  int32_t a;
  if (iv->kind == TI_REARRANGE_IDENTITY) return f;
  if (iv->ivol == 0) return -1;   /* an empty input: all fill */
  if (iv->kind == TI_REARRANGE_SHUFFLE && iv->axis < 0) return iv->tab[f] >= 0 ? iv->tab[f] : -1;
  for (a = iv->r - 1; a >= 0; a--) { o[a] = f % iv->ud[a]; f /= iv->ud[a]; }
  for (a = 0; a < iv->r; a++) i[a] = o[a];
  switch (iv->kind) {
  case TI_REARRANGE_RESHAPE:
  case TI_REARRANGE_PERMUTE:
    for (a = 0; a < iv->r; a++) i[iv->perm[a]] = o[a];
    break;
  case TI_REARRANGE_ROTATE:
    if (iv->q == 1) { i[iv->bx] = iv->id[iv->bx] - 1 - o[iv->ax]; i[iv->ax] = o[iv->bx]; }
    else if (iv->q == 2) { i[iv->ax] = iv->id[iv->ax] - 1 - o[iv->ax]; i[iv->bx] = iv->id[iv->bx] - 1 - o[iv->bx]; }
    else if (iv->q == 3) { i[iv->bx] = o[iv->ax]; i[iv->ax] = iv->id[iv->ax] - 1 - o[iv->bx]; }
    break;
  case TI_REARRANGE_REFLECT:
    for (a = 0; a < iv->r; a++) if (iv->flip[a]) i[a] = iv->id[a] - 1 - o[a];
    break;
  case TI_REARRANGE_SHIFT:
    for (a = 0; a < iv->r; a++) {
      t = o[a] - iv->dd[a];
      if (iv->cyc) { t %= iv->id[a]; if (t < 0) t += iv->id[a]; }
      else if (t < 0 || t >= iv->id[a]) return -1;
      i[a] = t;
    }
    break;
  case TI_REARRANGE_SCALE:
    for (a = 0; a < iv->r; a++) i[a] = o[a] / iv->dd[a];
    break;
  case TI_REARRANGE_SHEAR:
    i[0] = iv->sa ? o[0] - iv->sa * o[1] - iv->oy : o[0];
    i[1] = iv->sa ? o[1] : o[1] - iv->sb * o[0] - iv->ox;
    if (i[0] < 0 || i[0] >= iv->id[0] || i[1] < 0 || i[1] >= iv->id[1]) return -1;
    break;
  case TI_REARRANGE_AFFINE:
  case TI_REARRANGE_PROJECT:
    if (!ti__ra_map_src(&iv->mp, o[0], o[1], iv->id[0], iv->id[1], &i[0], &i[1])) return -1;
    break;
  case TI_REARRANGE_SHUFFLE:
    if (iv->tab[o[iv->axis]] < 0) return -1;
    i[iv->axis] = iv->tab[o[iv->axis]];
    break;
  default:
    break;
  }
  for (t = 0, a = 0; a < iv->r; a++) t = t * iv->id[a] + i[a];
  return t;
}

/* --- plan ---------------------------------------------------------------- */

typedef struct ti__xplan {     /* planning state */
  ti_exec *x;
  const ti_task_graph *g;
  ti_error *err;
  int32_t *order;              /* block indices, topological */
  int32_t *esrc, *edst;        /* per edge index: block indices */
  const ti_task_interface **esif, **edif;   /* per edge: its two interfaces */
  uint64_t *eid_sorted;        /* (id << 32 | index) of every edge, sorted */
  int32_t *eid_dense;          /* or, when the ids are dense, index by id - eid_lo (-1: none; the same memory) */
  int64_t eid_lo, eid_span;
  unsigned char *range8;       /* per block: values provably in int8 range */
  unsigned char *is_state;     /* per block: storage holding a CLIF state */
  int32_t *state_clif;         /* per block: the CLIF block index it serves */
  ti_dtype *sdt;               /* per storage block: buffer dtype */
} ti__xplan;

static int ti__x_is_float(ti_dtype p) { return p == TI_DTYPE_F16 || p == TI_DTYPE_F32; }

static int ti__x_cmp64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}
/* ids ordered as unsigned after flipping the sign bit */
static uint64_t ti__x_key(int32_t id, int32_t index) {
  return ((uint64_t)((uint32_t)id ^ 0x80000000u) << 32) | (uint32_t)index;
}
static int32_t ti__x_edge_index(const ti__xplan *P, int32_t id) {
  int32_t lo = 0, hi = P->g->n_edges - 1;
  if (P->eid_dense) {   /* ids within 2 * n_edges + 1 of the least: one load */
    int64_t k = (int64_t)id - P->eid_lo;
    return k >= 0 && k <= P->eid_span ? P->eid_dense[k] : -1;
  }
  while (lo <= hi) {
    int32_t mid = lo + (hi - lo) / 2;
    uint64_t k = P->eid_sorted[mid], want = ti__x_key(id, 0);
    if ((k >> 32) == (want >> 32)) return (int32_t)(uint32_t)(k & 0xffffffff);
    if ((k >> 32) < (want >> 32)) lo = mid + 1; else hi = mid - 1;
  }
  return -1;
}

static const char *ti__x_tname(ti_block_type t) {
  const char *n = ti_block_type_name(t);
  return n ? n : "?";
}

/* Do the edge's rearrangements leave the data as it is? */
static int ti__x_unchanged(const ti_task_edge *ed) {
  int32_t i;
  for (i = 0; i < ed->n_rearrange; i++) {
    const ti_task_rearrange *r = &ed->rearrange[i];
    const ti_task_values *v = r->n_matrix > 0 && r->matrix[0].int32_data.count > 0 ? &r->matrix[0].int32_data : NULL;
    if (r->type == TI_REARRANGE_IDENTITY) continue;
    if (r->type == TI_REARRANGE_RESHAPE && v && v->count >= 1) {
      /* [n-1, ..., 1, 0] keeps the order */
      int64_t k, ok = 1;
      for (k = 0; k < v->count; k++) if (ti_task_values_get_i64(v, k) != v->count - 1 - k) ok = 0;
      if (ok) continue;
    }
    if (r->type == TI_REARRANGE_RESHAPE && !v) continue;
    return 0;
  }
  return 1;
}

/* Is the edge a plain move of the whole source into the whole destination? */
static int ti__x_simple(const ti__xplan *P, int32_t e, const ti__xview *dv) {
  const ti_task_edge *ed = &P->g->edges[e];
  const ti_task_block *sb = &P->g->blocks[P->esrc[e]];
  ti__xview sv;
  int64_t pos[4], size[4];
  int32_t i;
  if (!ti__x_unchanged(ed)) return 0;
  ti__x_block_view(sb, &sv);
  if (ti__x_box(&sv, P->esif[e], pos, size, sb->id, ed->id, NULL) != TI_STATUS_SUCCESS) return 0;
  for (i = 0; i < sv.rank; i++) if (pos[i] != 0 || size[i] != sv.dims[i]) return 0;
  if (ti__x_box(dv, P->edif[e], pos, size, 0, ed->id, NULL) != TI_STATUS_SUCCESS) return 0;
  for (i = 0; i < dv->rank; i++) if (pos[i] != 0 || size[i] != dv->dims[i]) return 0;
  return ti__x_numel(&sv) == ti__x_numel(dv);
}

/* Appends dst[d..d+len) = src[s..s+len) (s < 0: zeros), merged with the
   last run when it continues it. */
static ti_status ti__x_add_runs(ti_exec *x, int64_t *nrun, int64_t d, int64_t s, int64_t len) {
  if (*nrun) {
    ti__xrun *r = &x->run[x->n_run - 1];
    if (r->d + r->n == d && ((s < 0 && r->s < 0) || (s >= 0 && r->s >= 0 && r->s + r->n == s))) { r->n += len; return TI_STATUS_SUCCESS; }
  }
  {
    int64_t cap = x->cap_run;
    ti__xrun *nr;
    if (x->n_run >= cap && !ti__x_charge(x, (cap ? cap : 16) * (int64_t)sizeof *nr, "the copy program")) return TI_STATUS_LIMIT;
    nr = (ti__xrun *)ti__x_grow(x, x->run, x->n_run, &cap, sizeof *nr);
    if (!nr) return TI_STATUS_NO_MEMORY;
    x->run = nr; x->cap_run = cap;
    nr[x->n_run].d = d; nr[x->n_run].s = s; nr[x->n_run].n = len;
    x->n_run++; (*nrun)++;
  }
  return TI_STATUS_SUCCESS;
}
static ti_status ti__x_add_run(ti_exec *x, int64_t *nrun, int64_t d, int64_t s) { return ti__x_add_runs(x, nrun, d, s, 1); }

/* Offset of the first element of each row (innermost dim) of a box, in
   order: the box pos/size inside a tensor with row-major strides st. */
typedef struct ti__xrows { int32_t rank; int64_t idx[4], size[4], st[4], base, row, left; } ti__xrows;
static void ti__x_rows_init(ti__xrows *w, int32_t rank, const int64_t *pos, const int64_t *size, const int64_t *dims) {
  int32_t i;
  memset(w, 0, sizeof *w);
  w->rank = rank;
  w->st[rank - 1] = 1;
  for (i = rank - 2; i >= 0; i--) w->st[i] = w->st[i + 1] * dims[i + 1];
  for (i = 0; i < rank; i++) { w->size[i] = size[i]; w->base += pos[i] * w->st[i]; }
  w->row = w->base; w->left = size[rank - 1];
}
/* Takes up to want elements from the current row: returns how many, sets *off. */
static int64_t ti__x_rows_take(ti__xrows *w, int64_t want, int64_t *off) {
  int64_t n = want < w->left ? want : w->left;
  int32_t i;
  *off = w->row + (w->size[w->rank - 1] - w->left);
  w->left -= n;
  if (!w->left) {   /* next row */
    for (i = w->rank - 2; i >= 0; i--) { if (++w->idx[i] < w->size[i]) break; w->idx[i] = 0; }
    w->row = w->base;
    for (i = 0; i < w->rank - 1; i++) w->row += w->idx[i] * w->st[i];
    w->left = w->size[w->rank - 1];
  }
  return n;
}

/* Builds the copy program of edge e into buffer dst (viewed as dv). */
static ti_status ti__x_edge_copy(ti__xplan *P, int32_t e, int32_t dst, const ti__xview *dv, int32_t dst_id,
                                 unsigned char *cover, ti__xstep *st) {
  ti_exec *x = P->x;
  const ti_task_edge *ed = &P->g->edges[e];
  const ti_task_block *sb = &P->g->blocks[P->esrc[e]];
  ti__xview sv;
  ti__xinv *inv = NULL;
  int64_t spos[4], ssz[4], dpos[4], dsz[4], sst[4], dst_st[4], n = 1, k, dn = 1;
  int32_t i, ninv = 0;
  ti_status s;
  ti__x_block_view(sb, &sv);
  if ((s = ti__x_box(&sv, P->esif[e], spos, ssz, sb->id, ed->id, P->err)) != TI_STATUS_SUCCESS) return s;
  if ((s = ti__x_box(dv, P->edif[e], dpos, dsz, dst_id, ed->id, P->err)) != TI_STATUS_SUCCESS) return s;
  for (i = 0; i < sv.rank; i++) n *= ssz[i];
  if (ti__x_simple(P, e, dv)) {   /* one contiguous run */
    st->src = x->blk[P->esrc[e]].buf; st->dst = dst; st->run0 = x->n_run; st->nrun = 0; st->elems = n;
    if (ti__x_add_run(x, &st->nrun, 0, 0) != TI_STATUS_SUCCESS) return ti_error_set(P->err, TI_STATUS_NO_MEMORY, "out of memory");
    x->run[x->n_run - 1].n = n;
    if (cover) memset(cover, 1, (size_t)n);
    x->edge_bytes_per_run += n * (int64_t)ti_dtype_size(x->buf[st->src].dt);
    return TI_STATUS_SUCCESS;
  }
  for (i = 0; i < dv->rank; i++) dn *= dsz[i];
  if (ti__x_unchanged(ed)) {
    /* box to box in row-major order: walk the rows of both, no index map */
    ti__xrows rs, rd;
    int64_t done = 0;
    if (n != dn)
      return ti_error_set(P->err, TI_STATUS_INVALID, "edge %d (block %d -> %d) carries %lld values, its destination box holds %lld",
                          (int)ed->id, (int)sb->id, (int)dst_id, (long long)n, (long long)dn);
    ti__x_rows_init(&rs, sv.rank, spos, ssz, sv.dims);
    ti__x_rows_init(&rd, dv->rank, dpos, dsz, dv->dims);
    st->src = x->blk[P->esrc[e]].buf; st->dst = dst; st->run0 = x->n_run; st->nrun = 0; st->elems = n;
    while (done < n) {
      int64_t so, doff, m = rd.left < rs.left ? rd.left : rs.left;
      ti__x_rows_take(&rs, m, &so);
      ti__x_rows_take(&rd, m, &doff);
      if (cover) memset(cover + doff, 1, (size_t)m);
      if ((s = ti__x_add_runs(x, &st->nrun, doff, so, m)) != TI_STATUS_SUCCESS)
        return ti_error_set(P->err, TI_STATUS_NO_MEMORY, "out of memory");
      done += m;
    }
    x->edge_bytes_per_run += n * (int64_t)ti_dtype_size(x->buf[st->src].dt);
    return TI_STATUS_SUCCESS;
  }
  {   /* the rearrangements, inverted one by one (ti__xinv): no index map */
    int64_t cap = ti_task_rearrange_cap(n, dn), d[TI_MAX_RANK], need;
    int32_t r = sv.rank, nr = ed->n_rearrange;
    need = (nr > 0 ? nr : 1) * (int64_t)sizeof *inv;
    if (!ti__x_charge(x, need, "an edge's rearrangement list")) return TI_STATUS_LIMIT;
    inv = (ti__xinv *)TASKIR_MALLOC(x->u, (size_t)need);
    if (!inv) { ti__x_uncharge(x, need); return ti_error_set(P->err, TI_STATUS_NO_MEMORY, "out of memory"); }
    for (i = 0; i < sv.rank; i++) d[i] = ssz[i];
    for (i = 0; i < nr; i++) {
      if ((s = ti__x_inv_init(x, &inv[i], &ed->rearrange[i], r, d, ed->id, i, cap, P->err)) != TI_STATUS_SUCCESS) break;
      ninv++;
      r = inv[i].ro;
      for (k = 0; k < r; k++) d[k] = inv[i].od[k];
    }
    n = 1;
    for (i = 0; i < r; i++) n *= d[i];
    if (!s && n != dn)
      s = ti_error_set(P->err, TI_STATUS_INVALID, "edge %d (block %d -> %d) carries %lld values, its destination box holds %lld",
                       (int)ed->id, (int)sb->id, (int)dst_id, (long long)n, (long long)dn);
    if (s) goto out;
  }
  sst[sv.rank - 1] = 1;
  for (i = sv.rank - 2; i >= 0; i--) sst[i] = sst[i + 1] * sv.dims[i + 1];
  dst_st[dv->rank - 1] = 1;
  for (i = dv->rank - 2; i >= 0; i--) dst_st[i] = dst_st[i + 1] * dv->dims[i + 1];
  st->src = x->blk[P->esrc[e]].buf; st->dst = dst; st->run0 = x->n_run; st->nrun = 0; st->elems = n;
  {
    int64_t idx[4] = {0, 0, 0, 0}, base = 0, sbase = 0;
    for (i = 0; i < dv->rank; i++) base += dpos[i] * dst_st[i];
    for (i = 0; i < sv.rank; i++) sbase += spos[i] * sst[i];
    for (k = 0; k < n; k++) {
      int64_t off = base, f = k, so;
      int32_t j;
      for (i = 0; i < dv->rank; i++) off += idx[i] * dst_st[i];
      for (i = dv->rank - 1; i >= 0; i--) { if (++idx[i] < dsz[i]) break; idx[i] = 0; }
      for (j = ninv - 1; j >= 0 && f >= 0; j--) f = ti__x_inv_src(&inv[j], f);
      so = -1;
      if (f >= 0) {   /* the element of the source box, in the source buffer */
        so = sbase;
        for (i = sv.rank - 1; i >= 0; i--) { so += (f % ssz[i]) * sst[i]; f /= ssz[i]; }
      }
      if (cover) cover[off] = 1;
      if (ti__x_add_run(x, &st->nrun, off, so) != TI_STATUS_SUCCESS) {
        s = ti_error_set(P->err, TI_STATUS_NO_MEMORY, "out of memory");
        goto out;
      }
    }
  }
  x->edge_bytes_per_run += n * (int64_t)ti_dtype_size(x->buf[st->src].dt);
out:
  for (i = 0; i < ninv; i++) ti__x_inv_free(x, &inv[i]);
  if (inv) { TASKIR_FREE(x->u, inv); ti__x_uncharge(x, (ed->n_rearrange > 0 ? ed->n_rearrange : 1) * (int64_t)sizeof *inv); }
  return s;
}

static void ti__x_do_copy(const ti_exec *x, const ti__xstep *st) {
  const ti__xbuf *sb = &x->buf[st->src], *db = &x->buf[st->dst];
  size_t ss = ti_dtype_size(sb->dt), ds = ti_dtype_size(db->dt);
  int64_t i;
  for (i = 0; i < st->nrun; i++) {
    const ti__xrun *r = &x->run[st->run0 + i];
    ti__x_convert((char *)db->p + r->d * (int64_t)ds, db->dt, r->s < 0 ? NULL : (const char *)sb->p + r->s * (int64_t)ss, sb->dt, r->n);
  }
}

/* A copy step of one run, cut into tiles of TI__X_COPY_TILE elements for
   the parallel_for hook: the element-wise kernels cut their outputs into
   tiles of the same size, so with the pool's contiguous segments the
   thread that converts a piece of a block's input is the one that reads
   it next, from its own cache. */
#define TI__X_COPY_TILE 512
typedef struct ti__x_copy_job { const ti_exec *x; const ti__xstep *st; } ti__x_copy_job;
static void ti__x_copy_range(void *arg, int64_t b, int64_t e) {
  const ti__x_copy_job *j = (const ti__x_copy_job *)arg;
  const ti__xbuf *sb = &j->x->buf[j->st->src], *db = &j->x->buf[j->st->dst];
  const ti__xrun *r = &j->x->run[j->st->run0];
  int64_t o = b * TI__X_COPY_TILE, n = (e * TI__X_COPY_TILE < r->n ? e * TI__X_COPY_TILE : r->n) - o;
  ti__x_convert((char *)db->p + (r->d + o) * (int64_t)ti_dtype_size(db->dt), db->dt,
                r->s < 0 ? NULL : (const char *)sb->p + (r->s + o) * (int64_t)ti_dtype_size(sb->dt), sb->dt, n);
}

/* Every source of a cluster holds int8 data? */
static int ti__x_cluster_i8(const ti__xplan *P, const ti_task_cluster *cl) {
  int32_t f;
  if (!cl || cl->n_interfaces < 1) return 0;
  for (f = 0; f < cl->n_interfaces; f++) {
    int32_t e = ti__x_edge_index(P, cl->interfaces[f].edge_id), b;
    if (e < 0) return 0;
    b = P->esrc[e];
    if (P->x->blk[b].buf < 0 || P->x->buf[P->x->blk[b].buf].dt != TI_DTYPE_I8) return 0;
  }
  return 1;
}

/* Produces the buffer holding cluster cl of block bi as view dv with dtype
   want: the source's own buffer when the edge is plain, else a new buffer
   assembled by copies (at plan time when every source is constant). force:
   the buffer to assemble into (storage blocks), or -1. */
static ti_status ti__x_gather(ti__xplan *P, int32_t bi, int32_t ci, const ti__xview *dv, ti_dtype want,
                              int32_t force, int32_t *out) {
  ti_exec *x = P->x;
  const ti_task_block *b = &P->g->blocks[bi];
  const ti_task_cluster *cl = ci < b->n_inputs ? &b->inputs[ci] : NULL;
  int64_t count = ti__x_numel(dv), k;
  int32_t f, buf, all_const = 1;
  unsigned char *cover = NULL;
  int need_zero = 0;
  ti_status s = TI_STATUS_SUCCESS;
  if (!cl || cl->n_interfaces < 1)
    return ti_error_set(P->err, TI_STATUS_INVALID, "block %d (%s): input cluster %d has no interface", (int)b->id, ti__x_tname(b->type), (int)ci);
  if (count <= 0 || count > INT32_MAX)
    return ti_error_set(P->err, TI_STATUS_INVALID, "block %d (%s): input cluster %d has %lld elements", (int)b->id, ti__x_tname(b->type), (int)ci, (long long)count);
  if (cl->n_interfaces == 1 && force < 0) {
    int32_t e = ti__x_edge_index(P, cl->interfaces[0].edge_id);
    int32_t sbuf = x->blk[P->esrc[e]].buf;
    if (sbuf >= 0 && x->buf[sbuf].dt == want && ti__x_simple(P, e, dv)) {
      x->edge_bytes_per_run += count * (int64_t)ti_dtype_size(want);
      *out = sbuf;
      return TI_STATUS_SUCCESS;
    }
  }
  for (f = 0; f < cl->n_interfaces; f++) {
    int32_t e = ti__x_edge_index(P, cl->interfaces[f].edge_id), sbuf = x->blk[P->esrc[e]].buf;
    if (sbuf < 0) return ti_error_set(P->err, TI_STATUS_INVALID, "edge %d: source block %d holds no data", (int)P->g->edges[e].id, (int)P->g->blocks[P->esrc[e]].id);
    if (!x->buf[sbuf].constant) all_const = 0;
  }
  if (force >= 0) { buf = force; all_const = 0; }
  else buf = ti__x_newbuf(x, count, want, all_const);
  if (buf < 0) return ti_error_set(P->err, TI_STATUS_NO_MEMORY, "out of memory");
  if (!ti__x_charge(x, count, "the coverage map of an input cluster")) return TI_STATUS_LIMIT;
  cover = (unsigned char *)TASKIR_MALLOC(x->u, (size_t)count);
  if (!cover) { ti__x_uncharge(x, count); return ti_error_set(P->err, TI_STATUS_NO_MEMORY, "out of memory"); }
  memset(cover, 0, (size_t)count);
  if (all_const) {
    x->buf[buf].constant = 1;
    for (f = 0; f < cl->n_interfaces && !s; f++) {
      ti__xstep tmp;
      int64_t mark = x->n_run;
      memset(&tmp, 0, sizeof tmp);
      s = ti__x_edge_copy(P, ti__x_edge_index(P, cl->interfaces[f].edge_id), buf, dv, b->id, cover, &tmp);
      if (!s) ti__x_do_copy(x, &tmp);
      x->n_run = mark;
    }
  } else {
    /* a zero step goes first; it is dropped below when copies cover all */
    ti__xstep *z = ti__x_newstep(x, TI__XS_ZERO, bi);
    int32_t zi = x->n_step - 1;
    if (!z) s = ti_error_set(P->err, TI_STATUS_NO_MEMORY, "out of memory");
    else z->dst = buf;
    for (f = 0; f < cl->n_interfaces && !s; f++) {
      ti__xstep *c = ti__x_newstep(x, TI__XS_COPY, bi);
      if (!c) { s = ti_error_set(P->err, TI_STATUS_NO_MEMORY, "out of memory"); break; }
      s = ti__x_edge_copy(P, ti__x_edge_index(P, cl->interfaces[f].edge_id), buf, dv, b->id, cover, c);
    }
    if (!s) {
      for (k = 0; k < count; k++) if (!cover[k]) { need_zero = 1; break; }
      if (!need_zero) {   /* remove the zero step */
        memmove(&x->step[zi], &x->step[zi + 1], (size_t)(x->n_step - zi - 1) * sizeof *x->step);
        x->n_step--;
      }
    }
  }
  TASKIR_FREE(x->u, cover);
  ti__x_uncharge(x, count);
  *out = buf;
  return s;
}

/* The descriptor table's row of a block (its type was checked by plan). */
static const ti_task_block_desc *ti__x_row(const ti_task_block *b) { return ti_task_block_desc_of(b->type); }

/* Descriptor of a compute block from its shape and attributes. */
static void ti__x_desc(const ti_task_block *b, ti_prim_desc *d) {
  const ti_task_shape *s = &b->shape;
  int one_d = s->ny <= 0 && s->nx <= 0;
  memset(d, 0, sizeof *d);
  d->ny = s->ny > 0 ? s->ny : 1; d->nx = s->nx > 0 ? s->nx : 1;
  d->nf = s->nf; d->nr = s->nr;
  d->nky = s->nky > 0 ? s->nky : ti_task_attr_int(b, TI_TASK_ATTR_KERNEL_Y, 1);
  d->nkx = s->nkx > 0 ? s->nkx : ti_task_attr_int(b, TI_TASK_ATTR_KERNEL_X, 1);
  d->stride_y = ti_task_attr_int(b, TI_TASK_ATTR_STRIDE_Y, 1); d->stride_x = ti_task_attr_int(b, TI_TASK_ATTR_STRIDE_X, 1);
  d->dilation_y = ti_task_attr_int(b, TI_TASK_ATTR_DILATION_Y, 1); d->dilation_x = ti_task_attr_int(b, TI_TASK_ATTR_DILATION_X, 1);
  d->pad_up = ti_task_attr_int(b, TI_TASK_ATTR_PAD_UP, 0); d->pad_down = ti_task_attr_int(b, TI_TASK_ATTR_PAD_DOWN, 0);
  d->pad_left = ti_task_attr_int(b, TI_TASK_ATTR_PAD_LEFT, 0); d->pad_right = ti_task_attr_int(b, TI_TASK_ATTR_PAD_RIGHT, 0);
  if (ti__x_row(b)->window != TI_TASK_WINDOW_CONV) d->dilation_y = d->dilation_x = 1;
  if (one_d && ti__x_row(b)->window != TI_TASK_WINDOW_NONE && s->niy <= 0 && s->nix <= 0) {
    d->nky = d->nkx = 1; d->stride_y = d->stride_x = 1;
    d->pad_up = d->pad_down = d->pad_left = d->pad_right = 0;
  }
  if (s->niy > 0) d->niy = s->niy;
  else {
    int64_t v = (int64_t)(d->ny - 1) * (d->stride_y > 0 ? d->stride_y : 1) + (int64_t)(d->nky - 1) * (d->dilation_y > 0 ? d->dilation_y : 1) + 1 - d->pad_up - d->pad_down;
    d->niy = v > 0 && v < INT32_MAX ? (int32_t)v : 1;
  }
  if (s->nix > 0) d->nix = s->nix;
  else {
    int64_t v = (int64_t)(d->nx - 1) * (d->stride_x > 0 ? d->stride_x : 1) + (int64_t)(d->nkx - 1) * (d->dilation_x > 0 ? d->dilation_x : 1) + 1 - d->pad_left - d->pad_right;
    d->nix = v > 0 && v < INT32_MAX ? (int32_t)v : 1;
  }
  d->cmp = ti_task_attr_int(b, TI_TASK_ATTR_CMP, 0);
  d->bit_shift = ti_task_attr_int(b, TI_TASK_ATTR_BIT_SHIFT_NUM, 0);
  d->lut_dw = ti_task_attr_int(b, TI_TASK_ATTR_LUT_DW, 8);
  d->constant_a = ti_task_attr_int(b, TI_TASK_ATTR_CONSTANT_A, 0);
  d->constant_b = ti_task_attr_int(b, TI_TASK_ATTR_CONSTANT_B, 0);
  d->out_dtype = b->precision == TI_DTYPE_F16 ? TI_DTYPE_F32 : b->precision;
}

/* View of input cluster c of a compute block, by its row, on the shape
   the descriptor completes (window and input extents from attributes; the
   1-D form keeps no input extents). 0 when the row says nothing of c. */
static int ti__x_in_view(const ti_task_block *b, const ti_prim_desc *d, int32_t c, ti__xview *v) {
  const ti_task_shape *s = &b->shape;
  int one_d = s->ny <= 0 && s->nx <= 0 && s->niy <= 0 && s->nix <= 0;
  ti_task_block t = *b;
  ti_task_operand op;
  t.shape.nf = d->nf; t.shape.nr = d->nr; t.shape.nky = d->nky; t.shape.nkx = d->nkx;
  t.shape.niy = one_d ? 0 : d->niy; t.shape.nix = one_d ? 0 : d->nix;
  if (!ti_task_block_operand(&t, c, &op)) return 0;
  ti__x_operand_view(&op, v);
  return 1;
}

static ti_status (ti__x_kernel_fail)(ti__xplan *P, const ti_task_block *b, ti_status s, const char *what) {
  return ti_error_set(P->err, s == TI_STATUS_NOT_SUPPORTED ? s : TI_STATUS_INVALID, "block %d (%s): %s (%s)",
                      (int)b->id, ti__x_tname(b->type), what, ti_status_name(s));
}

static ti_status ti__x_plan_compute(ti__xplan *P, int32_t bi) {
  ti_exec *x = P->x;
  const ti_task_block *b = &P->g->blocks[bi];
  const ti_task_block_desc *row = ti__x_row(b);
  ti__xblk *xb = &x->blk[bi];
  ti__xview iv, v;
  ti_prim_desc d;
  ti__xstep st;
  int isf = ti__x_is_float(b->precision);
  ti_dtype fdt = TI_DTYPE_F32;
  int32_t n_data, c, has_bias = 0, ops[64], nops = 0, out = -1;
  ti_status s;
  ti__x_desc(b, &d);
  memset(&st, 0, sizeof st);
  st.w = st.bias = st.out = st.state = st.packed = -1;
  if (d.nf <= 0) return ti_error_set(P->err, TI_STATUS_INVALID, "block %d (%s): nf must be positive", (int)b->id, ti__x_tname(b->type));
  if (d.out_dtype == TI_DTYPE_F32 && !isf) d.out_dtype = TI_DTYPE_I32;
  if (isf && (b->type == TI_BLOCK_CLUT || b->type == TI_BLOCK_CLIF))
    return ti_error_set(P->err, TI_STATUS_NOT_SUPPORTED, "block %d (%s): float precision is not supported", (int)b->id, ti__x_tname(b->type));
  /* bias: one cluster past the data clusters (CADD, whose data clusters
     vary in number: a last cluster fed by an SB block) */
  n_data = b->n_inputs;
  if (row->bias) {
    int32_t fixed = row->n_act == TI_TASK_N_BRANCH ? 0 : row->n_act + (row->mid != TI_TASK_ROLE_NONE);
    if (fixed && b->n_inputs == fixed + 1) has_bias = 1;
    else if (!fixed && b->n_inputs >= 2 && b->inputs[b->n_inputs - 1].n_interfaces == 1) {
      int32_t e = ti__x_edge_index(P, b->inputs[b->n_inputs - 1].interfaces[0].edge_id);
      if (e >= 0 && P->g->blocks[P->esrc[e]].type == TI_BLOCK_SB) has_bias = 1;
    }
    if (has_bias) n_data--;
  }
  d.bias_mode = has_bias ? TI_BIAS_VECTOR
              : ((b->has & TI_BLOCK_HAS_BIAS_TYPE) && b->bias_type == TI_BIAS_CONSTANT) || d.constant_b ? TI_BIAS_CONSTANT
              : TI_BIAS_NONE;
  {
    /* data clusters the type takes (n_branch: any; state: optional) */
    int32_t want_in = row->n_act == TI_TASK_N_BRANCH ? (n_data >= 1 ? n_data : 1) : row->n_act;
    if (row->mid == TI_TASK_ROLE_STATE) want_in += n_data == want_in + 1;
    else if (row->mid != TI_TASK_ROLE_NONE) want_in++;
    if (n_data != want_in || n_data > 60)
      return ti_error_set(P->err, TI_STATUS_INVALID, "block %d (%s): has %d input clusters (%d data%s), expected %d data cluster%s%s",
                          (int)b->id, ti__x_tname(b->type), (int)b->n_inputs, (int)n_data, has_bias ? " + bias" : "",
                          (int)want_in, want_in == 1 ? "" : "s", row->bias ? " and an optional SB bias" : "");
  }
  ti__x_in_view(b, &d, 0, &iv);
  /* activations: int8 when every source is int8, else int32 (float blocks: f32) */
  if (row->n_act == TI_TASK_N_BRANCH) {
    int all8 = !isf;
    for (c = 0; c < n_data; c++) if (!ti__x_cluster_i8(P, &b->inputs[c])) all8 = 0;
    d.n_branch = n_data;
    d.in_dtype = isf ? fdt : all8 ? TI_DTYPE_I8 : TI_DTYPE_I32;
    d.w_dtype = d.in_dtype;
    for (c = 0; c < n_data; c++)
      if ((s = ti__x_gather(P, bi, c, &iv, d.in_dtype, -1, &ops[nops++])) != TI_STATUS_SUCCESS) return s;
  } else {
    d.in_dtype = isf ? fdt : ti__x_cluster_i8(P, &b->inputs[0]) ? TI_DTYPE_I8 : TI_DTYPE_I32;
    if ((s = ti__x_gather(P, bi, 0, &iv, d.in_dtype, -1, &ops[nops++])) != TI_STATUS_SUCCESS) return s;
    d.w_dtype = d.in_dtype;
    /* the second operand (a second activation, weight or alpha) is w */
    if (row->n_act == 2 || row->mid == TI_TASK_ROLE_WEIGHT || row->mid == TI_TASK_ROLE_ALPHA) {
      if (!ti__x_in_view(b, &d, 1, &v)) return ti_error_set(P->err, TI_STATUS_INVALID, "block %d (%s): no view of input cluster 1", (int)b->id, ti__x_tname(b->type));
      d.w_dtype = isf ? fdt : ti__x_cluster_i8(P, &b->inputs[1]) ? TI_DTYPE_I8 : TI_DTYPE_I32;
      if ((s = ti__x_gather(P, bi, 1, &v, d.w_dtype, -1, &st.w)) != TI_STATUS_SUCCESS) return s;
    } else if (row->mid == TI_TASK_ROLE_TABLE) {
      if (d.lut_dw < 1 || d.lut_dw > 16) return ti_error_set(P->err, TI_STATUS_INVALID, "block %d (%s): LUT_DW %d is outside 1..16", (int)b->id, ti__x_tname(b->type), (int)d.lut_dw);
      ti__x_view3(&v, 0, 0, (int64_t)1 << d.lut_dw);
      if ((s = ti__x_gather(P, bi, 1, &v, TI_DTYPE_I32, -1, &st.w)) != TI_STATUS_SUCCESS) return s;
    }
  }
  if (has_bias) {
    ti__x_view3(&v, 0, 0, d.nf);
    if ((s = ti__x_gather(P, bi, b->n_inputs - 1, &v, isf ? fdt : TI_DTYPE_I32, -1, &st.bias)) != TI_STATUS_SUCCESS) return s;
  }
  /* output buffer (a storage block fed unchanged by it shares it, see below) */
  {
    ti__xview ov;
    ti__x_block_view(b, &ov);
    if (ti__x_numel(&ov) != (int64_t)d.ny * d.nx * d.nf)
      return ti_error_set(P->err, TI_STATUS_INVALID, "block %d (%s): output shape is inconsistent", (int)b->id, ti__x_tname(b->type));
    out = ti__x_newbuf(x, ti__x_numel(&ov), isf ? fdt : b->type == TI_BLOCK_CCMPB && ti__x_ccmpb_i8(&d) ? TI_DTYPE_I8 : TI_DTYPE_I32, 0);
    if (out < 0) return ti_error_set(P->err, TI_STATUS_NO_MEMORY, "out of memory");
    xb->buf = out;
  }
  st.out = out;
  if (b->type == TI_BLOCK_CLIF) {
    ti_lif_params lp;
    int64_t cap = x->cap_lif;
    ti_lif_params *nl = (ti_lif_params *)ti__x_grow(x, x->lif, x->n_lif, &cap, sizeof *nl);
    if (!nl) return ti_error_set(P->err, TI_STATUS_NO_MEMORY, "out of memory");
    x->lif = nl;
    cap = x->cap_lif;
    nl = (ti_lif_params *)ti__x_grow(x, x->lif0, x->n_lif, &cap, sizeof *nl);
    if (!nl) return ti_error_set(P->err, TI_STATUS_NO_MEMORY, "out of memory");
    x->lif0 = nl; x->cap_lif = (int32_t)cap;
    ti_task_lif_params(b, &lp);
    {
      const char *field = "?";
      int32_t val = 0;
      if ((s = ti_lif_params_check(&lp, &field, &val)) != TI_STATUS_SUCCESS)
        return ti_error_set(P->err, s == TI_STATUS_NOT_SUPPORTED ? s : TI_STATUS_INVALID, "block %d (CLIF): %s = %d %s",
                            (int)b->id, field, (int)val,
                            s == TI_STATUS_NOT_SUPPORTED ? "is not supported by the LIF kernel" : "is out of range");
    }
    st.lif = x->n_lif++;
    x->lif[st.lif] = x->lif0[st.lif] = lp;
    if (n_data == 2) {
      const ti_task_cluster *cl = &b->inputs[1];
      int32_t e = cl->n_interfaces == 1 ? ti__x_edge_index(P, cl->interfaces[0].edge_id) : -1;
      int32_t si = e >= 0 ? P->esrc[e] : -1;
      ti__xview ov;
      ti__x_block_view(b, &ov);
      if (si < 0 || !P->is_state[si] || !ti__x_simple(P, e, &ov) || x->blk[si].buf < 0)
        return ti_error_set(P->err, TI_STATUS_NOT_SUPPORTED,
                            "block %d (CLIF): input cluster 1 (v_prev) must come from a storage block without inputs, "
                            "through one whole-cluster edge without rearrangement, holding %lld values",
                            (int)b->id, (long long)ti__x_numel(&ov));
      st.state = x->blk[si].buf;
    } else {
      int64_t k;
      st.state = ti__x_newbuf(x, (int64_t)d.ny * d.nx * d.nf, TI_DTYPE_I32, 1);
      if (st.state < 0) return ti_error_set(P->err, TI_STATUS_NO_MEMORY, "out of memory");
      for (k = 0; k < x->buf[st.state].count; k++) ((int32_t *)x->buf[st.state].p)[k] = lp.vinit;
      if (!ti__x_charge(x, (int64_t)x->buf[st.state].bytes, "the initial CLIF state")) return TI_STATUS_LIMIT;
      x->buf[st.state].init = TASKIR_MALLOC(x->u, x->buf[st.state].bytes);
      if (!x->buf[st.state].init) return ti_error_set(P->err, TI_STATUS_NO_MEMORY, "out of memory");
      memcpy(x->buf[st.state].init, x->buf[st.state].p, x->buf[st.state].bytes);
    }
  }
  /* CC: pack constant weights once */
  if ((b->type == TI_BLOCK_CC || b->type == TI_BLOCK_CC2D) && x->buf[st.w].constant) {
    size_t pb = 0;
    if ((s = ti_cc_pack_size(&d, &pb)) != TI_STATUS_SUCCESS) return ti__x_kernel_fail(P, b, s, "cannot pack weights");
    st.packed = ti__x_newbuf(x, (int64_t)pb, TI_DTYPE_I8, 1);
    if (st.packed < 0) return ti_error_set(P->err, TI_STATUS_NO_MEMORY, "out of memory");
    x->buf[st.packed].constant = 1;
    if ((s = ti_cc_pack_weights(&d, x->buf[st.w].p, x->buf[st.packed].p, pb)) != TI_STATUS_SUCCESS)
      return ti__x_kernel_fail(P, b, s, "cannot pack weights");
    st.packed_bytes = pb;
    x->n_packed++;
  }
  /* CVM on int8 data with constant int8 weights: rows zero-padded to a
     multiple of 64 (the weights once here, the input by a copy into a
     buffer whose tail stays 0), so the vector kernels cover whole rows with
     no scalar tail; zeros add nothing to the sums. */
  if (b->type == TI_BLOCK_CVM && d.in_dtype == TI_DTYPE_I8 && d.w_dtype == TI_DTYPE_I8 && st.w >= 0 &&
      x->buf[st.w].constant && d.nr > 0 && d.nr % 64 && (int64_t)d.nf * (d.nr + 63) <= INT32_MAX) {
    int64_t nrp = ((int64_t)d.nr + 63) / 64 * 64, f;
    int32_t wp = ti__x_newbuf(x, nrp * d.nf, TI_DTYPE_I8, 1), xp = wp < 0 ? -1 : ti__x_newbuf(x, nrp, TI_DTYPE_I8, 1);
    ti__xstep *cp = xp < 0 ? NULL : ti__x_newstep(x, TI__XS_COPY, bi);
    if (!cp) return ti_error_set(P->err, TI_STATUS_NO_MEMORY, "out of memory");
    for (f = 0; f < d.nf; f++)
      memcpy((int8_t *)x->buf[wp].p + f * nrp, (const int8_t *)x->buf[st.w].p + f * d.nr, (size_t)d.nr);
    x->buf[wp].constant = 1;
    st.w = wp;
    cp->src = ops[0]; cp->dst = xp; cp->run0 = x->n_run; cp->elems = d.nr;
    if (ti__x_add_runs(x, &cp->nrun, 0, 0, d.nr) != TI_STATUS_SUCCESS) return ti_error_set(P->err, TI_STATUS_NO_MEMORY, "out of memory");
    ops[0] = xp;
    d.nr = (int32_t)nrp;
  }
  if (b->type == TI_BLOCK_CC || b->type == TI_BLOCK_CC2D) {
    size_t sb = 0;
    if ((s = ti_cc_scratch_size(&d, st.packed >= 0, &sb)) != TI_STATUS_SUCCESS) return ti__x_kernel_fail(P, b, s, "bad convolution shape");
    if (sb > x->scratch_bytes) x->scratch_bytes = sb;
  } else if (b->type == TI_BLOCK_CVM) {
    size_t sb = 0;
    if ((s = ti_cvm_scratch_size(&d, &sb)) != TI_STATUS_SUCCESS) return ti__x_kernel_fail(P, b, s, "bad FC shape");
    if (sb > x->scratch_bytes) x->scratch_bytes = sb;
  }
  /* A 1x1 CCMPB/CCMPS window (stride 1, no padding) is elementwise: one row
     of ny*nx*nf channels gives the same values (1x1 clips to 127 in both
     forms) and lets the kernel run full vectors however small nf is. */
  if ((b->type == TI_BLOCK_CCMPB || b->type == TI_BLOCK_CCMPS) && d.nky == 1 && d.nkx == 1 && d.stride_y == 1 &&
      d.stride_x == 1 && !d.pad_up && !d.pad_down && !d.pad_left && !d.pad_right && d.niy == d.ny && d.nix == d.nx &&
      (int64_t)d.ny * d.nx * d.nf <= INT32_MAX) {
    d.nf = d.ny * d.nx * d.nf;
    d.ny = d.nx = d.niy = d.nix = 1;
  }
  st.macs = ti_task_block_macs(b);   /* the statistics' count, one definition */
  {
    ti__xstep *k = ti__x_newstep(x, TI__XS_KERNEL, bi);
    int32_t i;
    if (!k) return ti_error_set(P->err, TI_STATUS_NO_MEMORY, "out of memory");
    st.kind = TI__XS_KERNEL; st.blk = bi; st.src = st.dst = -1;
    st.d = d;
    st.in0 = x->n_opnd; st.n_in = nops;
    for (i = 0; i < nops; i++) {
      int64_t cap = x->cap_opnd;
      int32_t *no = (int32_t *)ti__x_grow(x, x->opnd, x->n_opnd, &cap, sizeof *no);
      if (!no) return ti_error_set(P->err, TI_STATUS_NO_MEMORY, "out of memory");
      x->opnd = no; x->cap_opnd = (int32_t)cap;
      x->opnd[x->n_opnd++] = ops[i];
    }
    *k = st;
    x->macs_per_run += st.macs;
  }
  return TI_STATUS_SUCCESS;
}

/* Total interfaces on a block's input clusters. */
static int32_t ti__x_n_in_ifaces(const ti_task_block *b) {
  int32_t c, n = 0;
  for (c = 0; c < b->n_inputs; c++) n += b->inputs[c].n_interfaces;
  return n;
}
static int32_t ti__x_n_out_ifaces(const ti_task_block *b) {
  int32_t c, n = 0;
  for (c = 0; c < b->n_outputs; c++) n += b->outputs[c].n_interfaces;
  return n;
}

/* Graph order, edge ends, and the per-block facts planning needs. */
static ti_status ti__x_index(ti__xplan *P) {
  ti_exec *x = P->x;
  const ti_task_graph *g = P->g;
  int32_t i, c, f, n = 0, head = 0, *indeg, *adj0, *adj;
  /* edges by id, and their two interfaces */
  for (i = 0; i < g->n_edges; i++) { P->esrc[i] = P->edst[i] = -1; }
  if (g->n_edges > 0) {   /* dense ids (the usual 0..n-1): a direct table in the sorted keys' memory */
    int64_t lo = g->edges[0].id, hi = lo;
    for (i = 1; i < g->n_edges; i++) {
      if (g->edges[i].id < lo) lo = g->edges[i].id;
      if (g->edges[i].id > hi) hi = g->edges[i].id;
    }
    if (hi - lo <= 2 * (int64_t)g->n_edges + 1) {
      P->eid_dense = (int32_t *)(void *)P->eid_sorted; P->eid_lo = lo; P->eid_span = hi - lo;
      for (i = 0; i <= hi - lo; i++) P->eid_dense[i] = -1;
      for (i = g->n_edges - 1; i >= 0; i--) P->eid_dense[g->edges[i].id - lo] = i;   /* the first of equal ids */
    }
  }
  if (!P->eid_dense) {
    for (i = 0; i < g->n_edges; i++) P->eid_sorted[i] = ti__x_key(g->edges[i].id, i);
    qsort(P->eid_sorted, (size_t)g->n_edges, sizeof *P->eid_sorted, ti__x_cmp64);
  }
  for (i = 0; i < g->n_blocks; i++) {
    const ti_task_block *b = &g->blocks[i];
    for (c = 0; c < b->n_outputs; c++)
      for (f = 0; f < b->outputs[c].n_interfaces; f++) {
        int32_t e = ti__x_edge_index(P, b->outputs[c].interfaces[f].edge_id);
        if (e < 0) return ti_error_set(P->err, TI_STATUS_INVALID, "block %d names edge %d, which does not exist", (int)b->id, (int)b->outputs[c].interfaces[f].edge_id);
        if ((g->edges[e].has & TI_EDGE_HAS_SRC) && g->edges[e].src_block_id != b->id)
          return ti_error_set(P->err, TI_STATUS_INVALID, "edge %d: src_block_id is %d but it leaves block %d", (int)g->edges[e].id, (int)g->edges[e].src_block_id, (int)b->id);
        if (P->esrc[e] >= 0) return ti_error_set(P->err, TI_STATUS_INVALID, "edge %d leaves from two output interfaces", (int)g->edges[e].id);
        P->esrc[e] = i; P->esif[e] = &b->outputs[c].interfaces[f];
      }
    for (c = 0; c < b->n_inputs; c++)
      for (f = 0; f < b->inputs[c].n_interfaces; f++) {
        int32_t e = ti__x_edge_index(P, b->inputs[c].interfaces[f].edge_id);
        if (e < 0) return ti_error_set(P->err, TI_STATUS_INVALID, "block %d names edge %d, which does not exist", (int)b->id, (int)b->inputs[c].interfaces[f].edge_id);
        if ((g->edges[e].has & TI_EDGE_HAS_DST) && g->edges[e].dst_block_id != b->id)
          return ti_error_set(P->err, TI_STATUS_INVALID, "edge %d: dst_block_id is %d but it enters block %d", (int)g->edges[e].id, (int)g->edges[e].dst_block_id, (int)b->id);
        if (P->edst[e] >= 0) return ti_error_set(P->err, TI_STATUS_INVALID, "edge %d arrives at two input interfaces", (int)g->edges[e].id);
        P->edst[e] = i; P->edif[e] = &b->inputs[c].interfaces[f];
      }
  }
  for (i = 0; i < g->n_edges; i++)
    if (P->esrc[i] < 0 || P->edst[i] < 0)
      return ti_error_set(P->err, TI_STATUS_INVALID, "edge %d is not attached at both ends", (int)g->edges[i].id);
  /* topological order of the blocks (Kahn, ties in graph order), on the
     message itself: importing into the task dialect for ti_walk_topo would
     copy every weight, which costs more than the rest of planning */
  indeg = (int32_t *)TASKIR_MALLOC(x->u, ((size_t)g->n_blocks * 2 + (size_t)g->n_edges + 2) * sizeof *indeg);
  if (!indeg) return ti_error_set(P->err, TI_STATUS_NO_MEMORY, "out of memory");
  adj0 = indeg + g->n_blocks; adj = adj0 + g->n_blocks + 1;
  memset(indeg, 0, ((size_t)g->n_blocks * 2 + 1) * sizeof *indeg);
  for (i = 0; i < g->n_edges; i++) { indeg[P->edst[i]]++; adj0[P->esrc[i] + 1]++; }
  for (i = 0; i < g->n_blocks; i++) adj0[i + 1] += adj0[i];
  {
    int32_t *fill = P->order;   /* borrowed as a cursor array */
    for (i = 0; i < g->n_blocks; i++) fill[i] = adj0[i];
    for (i = 0; i < g->n_edges; i++) adj[fill[P->esrc[i]]++] = P->edst[i];
  }
  for (i = 0; i < g->n_blocks; i++) if (!indeg[i]) P->order[n++] = i;
  while (head < n) {
    int32_t v = P->order[head++], k;
    for (k = adj0[v]; k < adj0[v + 1]; k++) if (--indeg[adj[k]] == 0) P->order[n++] = adj[k];
  }
  TASKIR_FREE(x->u, indeg);
  if (n != g->n_blocks)
    return ti_error_set(P->err, TI_STATUS_INVALID, "the block graph has a cycle (%d of %d blocks on or after it)",
                        (int)(g->n_blocks - n), (int)g->n_blocks);
  return TI_STATUS_SUCCESS;
}

/* Block facts, dtypes of storage and which values stay in int8 range. */
static ti_status ti__x_classify(ti__xplan *P) {
  ti_exec *x = P->x;
  const ti_task_graph *g = P->g;
  int32_t i, j, c, f;
  for (i = 0; i < g->n_blocks; i++) {
    const ti_task_block *b = &g->blocks[i];
    ti__xblk *xb = &x->blk[i];
    ti__xview v;
    int64_t cnt = 1;
    xb->id = b->id; xb->type = b->type; xb->precision = b->precision; xb->buf = -1;
    xb->socket = ti_task_socket_of(b);
    if (ti_block_class_of(b->type) == TI_CLASS_NULL)
      return ti_error_set(P->err, TI_STATUS_INVALID, "block %d has an unknown or null type", (int)b->id);
    ti__x_block_view(b, &v);
    xb->rank = v.rank;
    for (j = 0; j < v.rank; j++) {
      xb->dims[j] = v.dims[j];
      if (v.dims[j] <= 0 || v.dims[j] > INT32_MAX)
        return ti_error_set(P->err, TI_STATUS_INVALID, "block %d (%s): dim %d of its data is %lld (missing shape field?)",
                            (int)b->id, ti__x_tname(b->type), (int)j, (long long)v.dims[j]);
      cnt *= v.dims[j];
      if (cnt > TASKIR_CHECK_MAX_ELEMS)
        return ti_error_set(P->err, TI_STATUS_LIMIT, "block %d (%s): more than %lld elements (TASKIR_CHECK_MAX_ELEMS)",
                            (int)b->id, ti__x_tname(b->type), (long long)TASKIR_CHECK_MAX_ELEMS);
    }
    xb->count = cnt;
    x->block_bytes += cnt * (int64_t)(ti_dtype_size(b->precision) ? ti_dtype_size(b->precision) : 4);
    if (ti_block_class_of(b->type) == TI_CLASS_STORAGE && b->n_inputs > 1)
      return ti_error_set(P->err, TI_STATUS_INVALID, "block %d (%s): a storage block has at most one input cluster", (int)b->id, ti__x_tname(b->type));
    if (b->type == TI_BLOCK_INPUT && ti__x_n_in_ifaces(b))
      return ti_error_set(P->err, TI_STATUS_INVALID, "block %d (INPUT) has inputs", (int)b->id);
    if (b->type == TI_BLOCK_OUTPUT && (b->n_inputs != 1 || ti__x_n_out_ifaces(b)))
      return ti_error_set(P->err, TI_STATUS_INVALID, "block %d (OUTPUT) needs one input cluster and no outputs", (int)b->id);
  }
  { /* unique block ids; unique sockets (ti_task_socket_of) among INPUTs and among OUTPUTs */
    uint64_t *ids = (uint64_t *)TASKIR_MALLOC(x->u, ((size_t)g->n_blocks + 1) * sizeof *ids);
    int pass;
    if (!ids) return ti_error_set(P->err, TI_STATUS_NO_MEMORY, "out of memory");
    for (pass = 0; pass < 3; pass++) {
      ti_block_type want = pass == 1 ? TI_BLOCK_INPUT : TI_BLOCK_OUTPUT;
      int32_t n = 0;
      for (i = 0; i < g->n_blocks; i++)
        if (!pass) ids[n++] = ti__x_key(g->blocks[i].id, i);
        else if (g->blocks[i].type == want) ids[n++] = ti__x_key(x->blk[i].socket, i);
      qsort(ids, (size_t)n, sizeof *ids, ti__x_cmp64);
      for (i = 1; i < n; i++)
        if ((ids[i] >> 32) == (ids[i - 1] >> 32)) {
          int32_t a = (int32_t)(uint32_t)ids[i - 1], b = (int32_t)(uint32_t)ids[i];
          TASKIR_FREE(x->u, ids);
          if (!pass) return ti_error_set(P->err, TI_STATUS_INVALID, "block id %d is used twice", (int)g->blocks[b].id);
          return ti_error_set(P->err, TI_STATUS_INVALID, "blocks %d and %d are both %s socket %d (socket_id, or the block id "
                              "when it has none)", (int)g->blocks[a].id, (int)g->blocks[b].id, ti__x_tname(want),
                              (int)x->blk[b].socket);
        }
    }
    TASKIR_FREE(x->u, ids);
  }
  /* CLIF state blocks */
  for (i = 0; i < g->n_blocks; i++) {
    const ti_task_block *b = &g->blocks[i];
    if (b->type == TI_BLOCK_CLIF && b->n_inputs >= 2 && b->inputs[1].n_interfaces == 1) {
      int32_t e = ti__x_edge_index(P, b->inputs[1].interfaces[0].edge_id), si = e >= 0 ? P->esrc[e] : -1;
      if (si >= 0 && ti_block_class_of(g->blocks[si].type) == TI_CLASS_STORAGE && !ti__x_n_in_ifaces(&g->blocks[si])) {
        if (P->is_state[si])
          return ti_error_set(P->err, TI_STATUS_INVALID, "block %d holds the state of two CLIF blocks", (int)g->blocks[si].id);
        P->is_state[si] = 1; P->state_clif[si] = i;
      }
    }
  }
  /* dtypes and int8 ranges, producers first */
  for (j = 0; j < g->n_blocks; j++) {
    const ti_task_block *b;
    int isf;
    i = P->order[j];
    b = &g->blocks[i];
    isf = ti__x_is_float(b->precision);
    switch (ti_block_class_of(b->type)) {
    case TI_CLASS_STORAGE:
      if (isf) P->sdt[i] = TI_DTYPE_F32;
      else if (P->is_state[i]) P->sdt[i] = TI_DTYPE_I32;
      else if (!ti__x_n_in_ifaces(b)) {
        const ti_task_values *v = (b->has & TI_BLOCK_HAS_DATA) ? ti_task_tensor_values(&b->data) : NULL;
        int64_t k;
        P->sdt[i] = TI_DTYPE_I8;
        if (v && v->storage == TI_DTYPE_F32) P->sdt[i] = TI_DTYPE_I32;
        else if (v && v->storage == TI_DTYPE_I32) {
          const int32_t *q = (const int32_t *)v->data;
          for (k = 0; k < v->count; k++) if (q[k] < -128 || q[k] > 127) { P->sdt[i] = TI_DTYPE_I32; break; }
        } else if (v && v->storage != TI_DTYPE_I8) for (k = 0; k < v->count; k++) {
          int64_t val = ti_task_values_get_i64(v, k);
          if (val < -128 || val > 127) { P->sdt[i] = TI_DTYPE_I32; break; }
        }
      } else {
        int all8 = 1;
        for (c = 0; c < b->n_inputs; c++)
          for (f = 0; f < b->inputs[c].n_interfaces; f++) {
            int32_t e = ti__x_edge_index(P, b->inputs[c].interfaces[f].edge_id);
            if (e < 0 || !P->range8[P->esrc[e]]) all8 = 0;
          }
        /* narrow only for a compute consumer: an OUTPUT reads the
           producer's int32 buffer in place instead */
        if (all8) {
          int feeds_compute = 0;
          for (c = 0; c < b->n_outputs; c++)
            for (f = 0; f < b->outputs[c].n_interfaces; f++) {
              int32_t e = ti__x_edge_index(P, b->outputs[c].interfaces[f].edge_id);
              if (e >= 0 && ti_block_class_of(g->blocks[P->edst[e]].type) == TI_CLASS_COMPUTE) feeds_compute = 1;
            }
          all8 = feeds_compute;
        }
        P->sdt[i] = all8 ? TI_DTYPE_I8 : TI_DTYPE_I32;
      }
      P->range8[i] = P->sdt[i] == TI_DTYPE_I8;
      break;
    case TI_CLASS_IO:
      P->range8[i] = b->type == TI_BLOCK_INPUT && (b->precision == TI_DTYPE_I8 || b->precision == TI_DTYPE_TERNARY);
      break;
    case TI_CLASS_COMPUTE: {
      ti_prim_desc d;
      ti__x_desc(b, &d);
      if (isf) break;
      if (b->type == TI_BLOCK_CCMPB)
        P->range8[i] = d.cmp >= -128 && ((d.nky == 1 && d.nkx == 1) || b->precision == TI_DTYPE_I8 || b->precision == TI_DTYPE_TERNARY);
      else if (b->type == TI_BLOCK_CCMPS) P->range8[i] = 1;
      else if (b->type == TI_BLOCK_CLIF) {
        ti_lif_params lp;
        ti_task_lif_params(b, &lp);
        P->range8[i] = lp.fire_type == 4 || lp.fire_type == 5;
      } else if (b->type == TI_BLOCK_CLUT && b->n_inputs >= 2 && b->inputs[1].n_interfaces >= 1) {
        int all8 = 1;
        for (f = 0; f < b->inputs[1].n_interfaces; f++) {
          int32_t e = ti__x_edge_index(P, b->inputs[1].interfaces[f].edge_id), si = e >= 0 ? P->esrc[e] : -1;
          if (si < 0 || ti_block_class_of(g->blocks[si].type) != TI_CLASS_STORAGE || ti__x_n_in_ifaces(&g->blocks[si]) ||
              P->is_state[si] || P->sdt[si] != TI_DTYPE_I8) all8 = 0;
        }
        P->range8[i] = all8;
      }
      break;
    }
    default: break;
    }
  }
  return TI_STATUS_SUCCESS;
}

static ti_status ti__x_plan_storage(ti__xplan *P, int32_t bi) {
  ti_exec *x = P->x;
  const ti_task_block *b = &P->g->blocks[bi];
  ti__xblk *xb = &x->blk[bi];
  ti__xview v;
  ti_status s;
  int32_t buf;
  ti__x_block_view(b, &v);
  if (!ti__x_n_in_ifaces(b)) {   /* constant data, or a CLIF state */
    const ti_task_values *vals = (b->has & TI_BLOCK_HAS_DATA) ? ti_task_tensor_values(&b->data) : NULL;
    int64_t k;
    buf = ti__x_newbuf(x, xb->count, P->sdt[bi], 1);
    if (buf < 0) return ti_error_set(P->err, TI_STATUS_NO_MEMORY, "out of memory");
    if (vals && vals->count != xb->count)
      return ti_error_set(P->err, TI_STATUS_INVALID, "block %d (%s): data holds %lld values, its shape needs %lld",
                          (int)b->id, ti__x_tname(b->type), (long long)vals->count, (long long)xb->count);
    if (vals && vals->storage == P->sdt[bi]) memcpy(x->buf[buf].p, vals->data, x->buf[buf].bytes);
    else if (vals && vals->storage == TI_DTYPE_I8 && P->sdt[bi] == TI_DTYPE_I32)
      ti__x_convert(x->buf[buf].p, TI_DTYPE_I32, vals->data, TI_DTYPE_I8, xb->count);
    else if (vals) {
      void *p = x->buf[buf].p;
      for (k = 0; k < xb->count; k++) {
        switch (P->sdt[bi]) {
        case TI_DTYPE_F32: ((float *)p)[k] = (float)ti_task_values_get_f64(vals, k); break;
        case TI_DTYPE_I8: ((int8_t *)p)[k] = (int8_t)ti_task_values_get_i64(vals, k); break;
        default: ((int32_t *)p)[k] = (int32_t)(uint32_t)(uint64_t)ti_task_values_get_i64(vals, k); break;
        }
      }
    } else if (P->is_state[bi]) {
      ti_lif_params lp;
      ti_task_lif_params(&P->g->blocks[P->state_clif[bi]], &lp);
      for (k = 0; k < xb->count; k++) ((int32_t *)x->buf[buf].p)[k] = lp.vinit;
    }
    if (P->is_state[bi]) {
      if (!ti__x_charge(x, (int64_t)x->buf[buf].bytes, "the initial CLIF state")) return TI_STATUS_LIMIT;
      x->buf[buf].init = TASKIR_MALLOC(x->u, x->buf[buf].bytes ? x->buf[buf].bytes : 1);
      if (!x->buf[buf].init) return ti_error_set(P->err, TI_STATUS_NO_MEMORY, "out of memory");
      memcpy(x->buf[buf].init, x->buf[buf].p, x->buf[buf].bytes);
    } else x->buf[buf].constant = 1;
    xb->buf = buf;
    return TI_STATUS_SUCCESS;
  }
  /* fed unchanged by a producer with one output: share its buffer */
  if (b->inputs[0].n_interfaces == 1) {
    int32_t e = ti__x_edge_index(P, b->inputs[0].interfaces[0].edge_id), si = P->esrc[e];
    const ti_task_block *sb = &P->g->blocks[si];
    int32_t sbuf = x->blk[si].buf;
    if (sbuf >= 0 && x->buf[sbuf].dt == P->sdt[bi] && ti__x_n_out_ifaces(sb) == 1 &&
        (ti_block_class_of(sb->type) == TI_CLASS_COMPUTE || sb->type == TI_BLOCK_INPUT) && ti__x_simple(P, e, &v)) {
      xb->buf = sbuf;
      x->edge_bytes_per_run += xb->count * (int64_t)ti_dtype_size(P->sdt[bi]);
      return TI_STATUS_SUCCESS;
    }
  }
  buf = ti__x_newbuf(x, xb->count, P->sdt[bi], 0);
  if (buf < 0) return ti_error_set(P->err, TI_STATUS_NO_MEMORY, "out of memory");
  xb->buf = buf;
  s = ti__x_gather(P, bi, 0, &v, P->sdt[bi], buf, &buf);
  return s;
}

static ti_status ti__x_plan_block(ti__xplan *P, int32_t bi) {
  ti_exec *x = P->x;
  const ti_task_block *b = &P->g->blocks[bi];
  ti__xblk *xb = &x->blk[bi];
  switch (ti_block_class_of(b->type)) {
  case TI_CLASS_STORAGE: return ti__x_plan_storage(P, bi);
  case TI_CLASS_COMPUTE: return ti__x_plan_compute(P, bi);
  default: break;
  }
  if (b->type == TI_BLOCK_INPUT) {
    ti_dtype dt = ti__x_is_float(b->precision) ? TI_DTYPE_F32 : P->range8[bi] ? TI_DTYPE_I8 : TI_DTYPE_I32;
    xb->buf = ti__x_newbuf(x, xb->count, dt, 1);
    if (xb->buf < 0) return ti_error_set(P->err, TI_STATUS_NO_MEMORY, "out of memory");
    x->in_blk[x->n_in++] = bi;
    return TI_STATUS_SUCCESS;
  }
  if (b->type == TI_BLOCK_OUTPUT) {
    ti__xview v;
    ti_dtype want = TI_DTYPE_I32;
    int32_t f;
    const ti_task_cluster *cl = &b->inputs[0];
    ti__x_block_view(b, &v);
    if (cl->n_interfaces >= 1) {
      int all8 = 1, anyf = 0;
      for (f = 0; f < cl->n_interfaces; f++) {
        int32_t e = ti__x_edge_index(P, cl->interfaces[f].edge_id), sbuf = e >= 0 ? x->blk[P->esrc[e]].buf : -1;
        if (sbuf < 0 || x->buf[sbuf].dt != TI_DTYPE_I8) all8 = 0;
        if (sbuf >= 0 && x->buf[sbuf].dt == TI_DTYPE_F32) anyf = 1;
      }
      want = anyf || ti__x_is_float(b->precision) ? TI_DTYPE_F32 : all8 ? TI_DTYPE_I8 : TI_DTYPE_I32;
    }
    x->out_blk[x->n_out++] = bi;
    return ti__x_gather(P, bi, 0, &v, want, -1, &xb->buf);
  }
  return ti_error_set(P->err, TI_STATUS_INVALID, "block %d: type %s cannot be executed", (int)b->id, ti__x_tname(b->type));
}

static void ti__x_touch(ti_exec *x, int32_t buf, int32_t step) {
  ti__xbuf *b;
  if (buf < 0) return;
  b = &x->buf[buf];
  if (step < b->first) b->first = step;
  if (step > b->last) b->last = step;
}

static int ti__x_cmp_size(const void *a, const void *b) {
  /* pairs (size, id): larger first, then by id for a stable order */
  const int64_t *p = (const int64_t *)a, *q = (const int64_t *)b;
  if (p[0] != q[0]) return p[0] > q[0] ? -1 : 1;
  return p[1] < q[1] ? -1 : p[1] > q[1];
}

/* Placed buffers overlapping a live range, found through a max-segment tree
   over the buffers sorted by first step: in O((k + 1) log n) for k overlaps. */
typedef struct ti__xlive {
  int32_t n, size;
  int32_t *byfirst;            /* buffer ids sorted by first step */
  int32_t *firsts;             /* their first steps */
  int32_t *tree;               /* max last step per node; 1-based heap of 2*size */
} ti__xlive;

static int ti__x_cmp_first(const void *a, const void *b) {
  /* pairs (first, id) */
  const int64_t *p = (const int64_t *)a, *q = (const int64_t *)b;
  if (p[0] != q[0]) return p[0] < q[0] ? -1 : 1;
  return p[1] < q[1] ? -1 : p[1] > q[1];
}

/* Calls back each buffer whose live range meets [a, b]: leaves among the
   first hi (first <= b) whose last >= a. */
static int32_t ti__x_live_query(const ti__xlive *L, int32_t a, int32_t b, int32_t *out) {
  int32_t lo = 0, hi = L->n, n = 0, sp = 0;
  int32_t stack[64], node_lo[64], node_len[64];
  while (lo < hi) {   /* hi = number of buffers with first <= b */
    int32_t mid = lo + (hi - lo) / 2;
    if (L->firsts[mid] <= b) lo = mid + 1; else hi = mid;
  }
  hi = lo;
  if (!hi) return 0;
  stack[sp] = 1; node_lo[sp] = 0; node_len[sp] = L->size; sp++;
  while (sp) {
    int32_t nd, nl, len;
    sp--;
    nd = stack[sp]; nl = node_lo[sp]; len = node_len[sp];
    if (nl >= hi || L->tree[nd] < a) continue;
    if (len == 1) { out[n++] = L->byfirst[nl]; continue; }
    stack[sp] = 2 * nd + 1; node_lo[sp] = nl + len / 2; node_len[sp] = len / 2; sp++;
    stack[sp] = 2 * nd; node_lo[sp] = nl; node_len[sp] = len / 2; sp++;
  }
  return n;
}

static int ti__x_cmp_off(const void *a, const void *b) {
  const int64_t *p = (const int64_t *)a, *q = (const int64_t *)b;
  return p[0] < q[0] ? -1 : p[0] > q[0];
}

/* Live ranges, then first-fit placement by decreasing size: buffers whose
   live ranges are disjoint may share bytes. Each buffer goes to the lowest
   offset clear of the placed buffers alive at the same time; those are
   found through ti__xlive and swept in offset order, so planning costs
   O(N log N) plus the overlapping pairs (a chain: O(N log N)). */
static ti_status ti__x_memory(ti__xplan *P) {
  ti_exec *x = P->x;
  int32_t i, j, n = 0;
  int64_t *order = NULL, *cand = NULL;
  int32_t *hits = NULL;
  unsigned char *placed = NULL;
  ti__xlive L;
  size_t top = 0;
  ti_status st = TI_STATUS_SUCCESS;
  memset(&L, 0, sizeof L);
  for (i = 0; i < x->n_step; i++) {
    const ti__xstep *s = &x->step[i];
    ti__x_touch(x, s->src, i); ti__x_touch(x, s->dst, i); ti__x_touch(x, s->w, i); ti__x_touch(x, s->bias, i);
    ti__x_touch(x, s->out, i); ti__x_touch(x, s->state, i); ti__x_touch(x, s->packed, i);
    for (j = 0; j < s->n_in; j++) ti__x_touch(x, x->opnd[s->in0 + j], i);
  }
  for (i = 0; i < x->n_out; i++) {
    int32_t b = x->blk[x->out_blk[i]].buf;
    if (b >= 0) { x->buf[b].last = TI__X_END; if (x->buf[b].first == TI__X_END) x->buf[b].first = 0; }
  }
  for (L.size = 1; L.size < x->n_buf; L.size *= 2) {}
  order = (int64_t *)TASKIR_MALLOC(x->u, ((size_t)x->n_buf + 1) * 2 * sizeof *order);
  cand = (int64_t *)TASKIR_MALLOC(x->u, ((size_t)x->n_buf + 1) * 2 * sizeof *cand);
  hits = (int32_t *)TASKIR_MALLOC(x->u, ((size_t)x->n_buf + 1) * sizeof *hits);
  placed = (unsigned char *)TASKIR_MALLOC(x->u, (size_t)x->n_buf + 1);
  L.byfirst = (int32_t *)TASKIR_MALLOC(x->u, ((size_t)x->n_buf + 1) * sizeof *L.byfirst);
  L.firsts = (int32_t *)TASKIR_MALLOC(x->u, ((size_t)x->n_buf + 1) * sizeof *L.firsts);
  L.tree = (int32_t *)TASKIR_MALLOC(x->u, (size_t)L.size * 2 * sizeof *L.tree);
  if (!order || !cand || !hits || !placed || !L.byfirst || !L.firsts || !L.tree) {
    st = ti_error_set(P->err, TI_STATUS_NO_MEMORY, "out of memory");
    goto done;
  }
  memset(placed, 0, (size_t)x->n_buf + 1);
  for (i = 0; i < x->n_buf; i++) {
    ti__xbuf *b = &x->buf[i];
    if (b->persistent) continue;
    if (b->first == TI__X_END) { b->first = 0; b->last = 0; }   /* never used: still give it room */
    x->buffer_bytes += (int64_t)b->bytes;
    order[2 * n] = b->first; order[2 * n + 1] = i; n++;
  }
  /* the live-range index: arena buffers by first step */
  qsort(order, (size_t)n, 2 * sizeof *order, ti__x_cmp_first);
  L.n = n;
  for (i = 0; i < 2 * L.size; i++) L.tree[i] = -1;
  for (i = 0; i < n; i++) {
    L.byfirst[i] = (int32_t)order[2 * i + 1];
    L.firsts[i] = (int32_t)order[2 * i];
    L.tree[L.size + i] = x->buf[L.byfirst[i]].last;
  }
  for (i = L.size - 1; i >= 1; i--) L.tree[i] = L.tree[2 * i] > L.tree[2 * i + 1] ? L.tree[2 * i] : L.tree[2 * i + 1];
  /* placement order: larger first, then by id */
  for (i = 0; i < n; i++) { order[2 * i] = (int64_t)x->buf[L.byfirst[i]].bytes; order[2 * i + 1] = L.byfirst[i]; }
  qsort(order, (size_t)n, 2 * sizeof *order, ti__x_cmp_size);
  for (i = 0; i < n; i++) {
    int32_t id = (int32_t)order[2 * i + 1];
    ti__xbuf *b = &x->buf[id];
    size_t sz = (b->bytes + TI__X_ALIGN - 1) & ~(size_t)(TI__X_ALIGN - 1), off = 0;
    if (x->opt.keep_all) off = top;
    else {
      /* lowest offset clear of every placed buffer alive at the same time */
      int32_t nh = ti__x_live_query(&L, b->first, b->last, hits), nc = 0, k;
      for (k = 0; k < nh; k++) {
        const ti__xbuf *o = &x->buf[hits[k]];
        if (!placed[hits[k]]) continue;
        cand[2 * nc] = (int64_t)o->offset;
        cand[2 * nc + 1] = (int64_t)(o->offset + ((o->bytes + TI__X_ALIGN - 1) & ~(size_t)(TI__X_ALIGN - 1)));
        nc++;
      }
      qsort(cand, (size_t)nc, 2 * sizeof *cand, ti__x_cmp_off);
      for (k = 0; k < nc; k++) {
        if ((size_t)cand[2 * k] >= off + sz) break;   /* the gap before it fits */
        if ((size_t)cand[2 * k + 1] > off) off = (size_t)cand[2 * k + 1];
      }
    }
    b->offset = off;
    placed[id] = 1;
    if (off + sz > top) top = off + sz;
  }
done:
  if (order) TASKIR_FREE(x->u, order);
  if (cand) TASKIR_FREE(x->u, cand);
  if (hits) TASKIR_FREE(x->u, hits);
  if (placed) TASKIR_FREE(x->u, placed);
  if (L.byfirst) TASKIR_FREE(x->u, L.byfirst);
  if (L.firsts) TASKIR_FREE(x->u, L.firsts);
  if (L.tree) TASKIR_FREE(x->u, L.tree);
  if (st) return st;
  x->arena_bytes = top;
  x->cur_blk = -1;
  if (!ti__x_charge(x, (int64_t)top + TI__X_ALIGN, "the activation arena")) return TI_STATUS_LIMIT;
  x->arena = TASKIR_MALLOC(x->u, top ? top + TI__X_ALIGN : TI__X_ALIGN);
  if (!x->arena) return ti_error_set(P->err, TI_STATUS_NO_MEMORY, "out of memory (arena of %lld bytes)", (long long)top);
  memset(x->arena, 0, top + TI__X_ALIGN);
  {
    char *base = (char *)x->arena;
    base += (TI__X_ALIGN - (size_t)((uintptr_t)base % TI__X_ALIGN)) % TI__X_ALIGN;
    for (i = 0; i < x->n_buf; i++) if (!x->buf[i].persistent) x->buf[i].p = base + x->buf[i].offset;
  }
  if (x->scratch_bytes) {
    if (!ti__x_charge(x, (int64_t)x->scratch_bytes, "kernel scratch")) return TI_STATUS_LIMIT;
    x->scratch = TASKIR_MALLOC(x->u, x->scratch_bytes);
    if (!x->scratch) return ti_error_set(P->err, TI_STATUS_NO_MEMORY, "out of memory (kernel scratch)");
  }
  x->optr = (const void **)TASKIR_MALLOC(x->u, ((size_t)x->n_opnd + 1) * sizeof *x->optr);
  if (!x->optr) return ti_error_set(P->err, TI_STATUS_NO_MEMORY, "out of memory");
  for (i = 0; i < x->n_opnd; i++) x->optr[i] = x->buf[x->opnd[i]].p;
  /* plain constants no step reads (weights that were packed) are dropped */
  if (!x->opt.keep_all) {
    unsigned char *used = (unsigned char *)TASKIR_MALLOC(x->u, (size_t)x->n_buf + 1);
    if (!used) return ti_error_set(P->err, TI_STATUS_NO_MEMORY, "out of memory");
    for (i = 0; i < x->n_buf; i++) used[i] = x->buf[i].last >= 0 || !x->buf[i].constant;
    for (i = 0; i < x->n_buf; i++) {
      ti__xbuf *b = &x->buf[i];
      if (!used[i] && b->persistent && b->p) { TASKIR_FREE(x->u, b->p); b->p = NULL; }
    }
    TASKIR_FREE(x->u, used);
  }
  return TI_STATUS_SUCCESS;
}

static ti_status ti__x_run(ti_exec *x, ti_error *err);

TASKIR_API ti_status ti_exec_plan(const ti_task_graph *g, const ti_exec_options *o, ti_exec **out, ti_error *err) {
  ti_error_clear(err);
  ti_exec_options defaults;
  ti__xplan P;
  ti_exec *x;
  void *u;
  ti_status s = TI_STATUS_SUCCESS;
  int32_t i, nb, ne;
  if (out) *out = NULL;
  if (!g || !out) return ti_error_set(err, TI_STATUS_BAD_PARAM, "ti_exec_plan: NULL graph or result");
  if (!o) { ti_exec_options_init(&defaults); o = &defaults; }
  u = o->alloc_user;
  if (!o->skip_check) {
    ti_diag_list dl;
    ti_diag_list_init(&dl, u);
    s = ti_task_check(g, &dl, err);
    ti_diag_list_free(&dl);
    if (s) return s;
  }
  x = (ti_exec *)TASKIR_MALLOC(u, sizeof *x);
  if (!x) return ti_error_set(err, TI_STATUS_NO_MEMORY, "out of memory");
  memset(x, 0, sizeof *x);
  x->u = u;
  x->opt = *o;
  if (o->kernel_ctx) x->kctx = *o->kernel_ctx; else ti_kernel_ctx_init(&x->kctx);
  if (o->parallel_for) { x->kctx.parallel_for = o->parallel_for; x->kctx.parallel_user = o->parallel_user; }
  if (o->threads == 1) { x->kctx.parallel_for = NULL; x->kctx.parallel_user = NULL; }
  x->kctx1 = x->kctx; x->kctx1.parallel_for = NULL; x->kctx1.parallel_user = NULL;
  x->par_min = o->parallel_min > 0 ? o->parallel_min
               : (x->kctx.cpu & TI_CPU_AMXINT8) ? TASKIR_EXEC_PARALLEL_MIN_AMX : TASKIR_EXEC_PARALLEL_MIN;
  if (!x->opt.clock) x->opt.clock = ti__x_clock_default;
  x->budget = o->max_bytes ? o->max_bytes : TASKIR_EXEC_MAX_BYTES;
  x->perr = err;
  x->cur_blk = -1;
  nb = g->n_blocks; ne = g->n_edges;
  memset(&P, 0, sizeof P);
  P.x = x; P.g = g; P.err = err;
  x->n_blk = nb;
  x->blk = (ti__xblk *)TASKIR_MALLOC(u, ((size_t)nb + 1) * sizeof *x->blk);
  x->bprof = (ti_exec_block_profile *)TASKIR_MALLOC(u, ((size_t)nb + 1) * sizeof *x->bprof);
  x->in_blk = (int32_t *)TASKIR_MALLOC(u, ((size_t)nb + 1) * sizeof(int32_t));
  x->out_blk = (int32_t *)TASKIR_MALLOC(u, ((size_t)nb + 1) * sizeof(int32_t));
  x->in_set = (unsigned char *)TASKIR_MALLOC(u, (size_t)nb + 1);
  P.order = (int32_t *)TASKIR_MALLOC(u, ((size_t)nb + 1) * sizeof(int32_t));
  P.esrc = (int32_t *)TASKIR_MALLOC(u, ((size_t)ne + 1) * sizeof(int32_t));
  P.edst = (int32_t *)TASKIR_MALLOC(u, ((size_t)ne + 1) * sizeof(int32_t));
  P.esif = (const ti_task_interface **)TASKIR_MALLOC(u, ((size_t)ne + 1) * sizeof *P.esif);
  P.edif = (const ti_task_interface **)TASKIR_MALLOC(u, ((size_t)ne + 1) * sizeof *P.edif);
  P.eid_sorted = (uint64_t *)TASKIR_MALLOC(u, ((size_t)ne + 1) * sizeof(uint64_t));
  P.range8 = (unsigned char *)TASKIR_MALLOC(u, (size_t)nb + 1);
  P.is_state = (unsigned char *)TASKIR_MALLOC(u, (size_t)nb + 1);
  P.state_clif = (int32_t *)TASKIR_MALLOC(u, ((size_t)nb + 1) * sizeof(int32_t));
  P.sdt = (ti_dtype *)TASKIR_MALLOC(u, ((size_t)nb + 1) * sizeof(ti_dtype));
  if (!x->blk || !x->bprof || !x->in_blk || !x->out_blk || !x->in_set || !P.order || !P.esrc || !P.edst || !P.esif || !P.edif ||
      !P.eid_sorted || !P.range8 || !P.is_state || !P.state_clif || !P.sdt) {
    s = ti_error_set(err, TI_STATUS_NO_MEMORY, "out of memory");
    goto done;
  }
  memset(x->in_set, 0, (size_t)nb + 1);
  memset(x->bprof, 0, ((size_t)nb + 1) * sizeof *x->bprof);
  memset(P.range8, 0, (size_t)nb + 1);
  memset(P.is_state, 0, (size_t)nb + 1);
  for (i = 0; i < nb; i++) { P.state_clif[i] = -1; P.sdt[i] = TI_DTYPE_I32; }
  if ((s = ti__x_index(&P)) != TI_STATUS_SUCCESS) goto done;
  if ((s = ti__x_classify(&P)) != TI_STATUS_SUCCESS) goto done;
  {   /* room for the steps and buffers planning makes (at most a zero step,
         a copy per interface and a kernel per block; a buffer per cluster
         and two more), so the arrays do not move while they grow */
    int64_t ns = 1, nbuf = 1;
    for (i = 0; i < nb; i++) {
      ns += 2 + g->blocks[i].n_inputs + ti__x_n_in_ifaces(&g->blocks[i]);
      nbuf += 3 + g->blocks[i].n_inputs;
    }
    if (!ti__x_charge(x, ns * (int64_t)sizeof *x->step + nbuf * (int64_t)sizeof *x->buf, "the plan's step and buffer tables")) {
      s = TI_STATUS_LIMIT;
      goto done;
    }
    if (ns > INT32_MAX / 2) ns = INT32_MAX / 2;
    if (nbuf > INT32_MAX / 2) nbuf = INT32_MAX / 2;
    x->step = (ti__xstep *)TASKIR_MALLOC(u, (size_t)ns * sizeof *x->step);
    x->buf = (ti__xbuf *)TASKIR_MALLOC(u, (size_t)nbuf * sizeof *x->buf);
    if (!x->step || !x->buf) { s = ti_error_set(err, TI_STATUS_NO_MEMORY, "out of memory"); goto done; }
    x->cap_step = (int32_t)ns; x->cap_buf = (int32_t)nbuf;
  }
  for (i = 0; i < nb && !s; i++) { x->cur_blk = P.order[i]; s = ti__x_plan_block(&P, P.order[i]); }
  x->cur_blk = -1;
  if (s) goto done;
  if ((s = ti__x_memory(&P)) != TI_STATUS_SUCCESS) goto done;
  /* one run now, so that every kernel has accepted its arguments before the
     plan is handed out; then back to t = 0 */
  if ((s = ti__x_run(x, err)) != TI_STATUS_SUCCESS) goto done;
  ti_exec_reset(x);
  ti_exec_clear_profile(x);
done:
  TASKIR_FREE(u, P.order); TASKIR_FREE(u, P.esrc); TASKIR_FREE(u, P.edst);
  TASKIR_FREE(u, (void *)P.esif); TASKIR_FREE(u, (void *)P.edif); TASKIR_FREE(u, P.eid_sorted);
  TASKIR_FREE(u, P.range8); TASKIR_FREE(u, P.is_state); TASKIR_FREE(u, P.state_clif); TASKIR_FREE(u, P.sdt);
  if (s) {
    ti_exec_free(x);
    return err && err->status ? err->status : s;   /* the first problem decides (a LIMIT, not the out of memory after it) */
  }
  x->perr = NULL;
  *out = x;
  return TI_STATUS_SUCCESS;
}

TASKIR_API void ti_exec_free(ti_exec *x) {
  int32_t i;
  void *u;
  if (!x) return;
  u = x->u;
  for (i = 0; i < x->n_buf; i++) {
    if (x->buf[i].persistent && x->buf[i].p) TASKIR_FREE(u, x->buf[i].p);
    if (x->buf[i].init) TASKIR_FREE(u, x->buf[i].init);
  }
  if (x->buf) TASKIR_FREE(u, x->buf);
  if (x->step) TASKIR_FREE(u, x->step);
  if (x->run) TASKIR_FREE(u, x->run);
  if (x->opnd) TASKIR_FREE(u, x->opnd);
  if (x->optr) TASKIR_FREE(u, (void *)x->optr);
  if (x->blk) TASKIR_FREE(u, x->blk);
  if (x->bprof) TASKIR_FREE(u, x->bprof);
  if (x->in_blk) TASKIR_FREE(u, x->in_blk);
  if (x->out_blk) TASKIR_FREE(u, x->out_blk);
  if (x->in_set) TASKIR_FREE(u, x->in_set);
  if (x->arena) TASKIR_FREE(u, x->arena);
  if (x->scratch) TASKIR_FREE(u, x->scratch);
  if (x->lif) TASKIR_FREE(u, x->lif);
  if (x->lif0) TASKIR_FREE(u, x->lif0);
  TASKIR_FREE(u, x);
}

/* --- run ----------------------------------------------------------------- */

#define TI__XP(id) ((id) >= 0 ? x->buf[(id)].p : NULL)

/* The kernels of the built-in rows (the kernel column of TI_BLOCK_TYPES). */
static ti_status ti__xk_cadd(const ti_exec_kernel_args *a) { return ti_cadd(a->k, a->d, a->in, a->bias, a->out); }
static ti_status ti__xk_cavg(const ti_exec_kernel_args *a) { return ti_cavg(a->k, a->d, a->in[0], a->bias, a->out); }
static ti_status ti__xk_cvvh(const ti_exec_kernel_args *a) { return ti_cvvh(a->k, a->d, a->in[0], a->w, a->bias, a->out); }
static ti_status ti__xk_cvm(const ti_exec_kernel_args *a) {
  return ti_cvm(a->k, a->d, a->in[0], a->w, a->bias, a->out, a->scratch, a->scratch_bytes);
}
static ti_status ti__xk_cc(const ti_exec_kernel_args *a) {
  if (a->packed) return ti_cc_packed(a->k, a->d, a->in[0], a->packed, a->packed_bytes, a->bias, a->out, a->scratch, a->scratch_bytes);
  return ti_cc(a->k, a->d, a->in[0], a->w, a->bias, a->out, a->scratch, a->scratch_bytes);
}
static ti_status ti__xk_cax(const ti_exec_kernel_args *a) { return ti_cax(a->k, a->d, a->in[0], a->w, a->bias, a->out); }
static ti_status ti__xk_cvs(const ti_exec_kernel_args *a) { return ti_cvs(a->k, a->d, a->in[0], a->bias, a->out); }
/* CCMPB writes its precision's storage: int8 straight into an int8 buffer
   where every result fits (INT_8 / TERNARY, CMP >= -128: ti__x_ccmpb_i8);
   other narrow precisions keep an int32 buffer, computed at INT_32 and
   clipped to the precision's maximum (the same values, CMP below the
   storage's range included). */
static ti_status ti__xk_ccmpb(const ti_exec_kernel_args *a) {
  ti_prim_desc e;
  ti_status s;
  int64_t i, n;
  int32_t hi, *o = (int32_t *)a->out;
  if (a->d->in_dtype == TI_DTYPE_F32 || ti_ccmpb_out_size(a->d) == 4 || ti__x_ccmpb_i8(a->d))
    return ti_ccmpb(a->k, a->d, a->in[0], a->out);
  e = *a->d;
  e.out_dtype = TI_DTYPE_I32;
  if ((s = ti_ccmpb(a->k, &e, a->in[0], a->out)) != TI_STATUS_SUCCESS) return s;
  hi = ti_ccmpb_max(a->d);
  n = (int64_t)a->d->ny * a->d->nx * a->d->nf;
  for (i = 0; i < n; i++) o[i] = o[i] < hi ? o[i] : hi;
  return TI_STATUS_SUCCESS;
}
static ti_status ti__xk_ccmps(const ti_exec_kernel_args *a) { return ti_ccmps(a->k, a->d, a->in[0], a->out); }
static ti_status ti__xk_clut(const ti_exec_kernel_args *a) {
  return ti_clut(a->k, a->d, a->in[0], (const int32_t *)a->w, (int32_t *)a->out);
}
static ti_status ti__xk_clif(const ti_exec_kernel_args *a) {
  ti_status st = ti_clif(a->k, a->d, a->lif, a->in[0], a->state, (int32_t *)a->out);
  if (!st) ti_lif_params_next_step(a->lif);
  return st;
}

/* The dispatch table: one entry per row, 0 for types without a kernel. */
#define TI__XK_ENTRY(N, nm, op, w, cl, na, in, mid, mi, bias, win, req, opt, m1, od, lay, macs, k) k,
static const ti_exec_kernel_fn ti__x_kernels[] = {
  TI_BLOCK_TYPES(TI__XK_ENTRY)
  TASKIR_EXTRA_BLOCK_TYPES(TI__XK_ENTRY)
};
#undef TI__XK_ENTRY
typedef char ti__x_static_assert_kernels[sizeof ti__x_kernels / sizeof *ti__x_kernels == TI_BLOCK_COUNT ? 1 : -1];

static ti_status ti__x_kernel(ti_exec *x, ti__xstep *s) {
  ti_exec_kernel_args a;
  ti_block_type t = x->blk[s->blk].type;
  if ((unsigned)t >= TI_BLOCK_COUNT || !ti__x_kernels[t]) return TI_STATUS_NOT_SUPPORTED;
  a.k = (t == TI_BLOCK_CC || t == TI_BLOCK_CC2D || t == TI_BLOCK_CVM ? s->macs / 16 : s->macs) >= x->par_min
        ? &x->kctx : &x->kctx1;
  a.d = &s->d;
  a.in = x->optr + s->in0; a.n_in = s->n_in;
  a.w = TI__XP(s->w);
  a.packed = s->packed >= 0 ? x->buf[s->packed].p : NULL; a.packed_bytes = s->packed_bytes;
  a.bias = TI__XP(s->bias);
  a.out = TI__XP(s->out);
  a.scratch = x->scratch; a.scratch_bytes = x->scratch_bytes;
  a.lif = t == TI_BLOCK_CLIF ? &x->lif[s->lif] : NULL;
  a.state = (int32_t *)TI__XP(s->state);
  return ti__x_kernels[t](&a);
}

static ti_status ti__x_run(ti_exec *x, ti_error *err) {
  int32_t i;
  int prof = x->opt.profile;
  double t0 = 0, t1, tr = 0;
  if (prof) tr = t0 = x->opt.clock(x->opt.clock_user);
  for (i = 0; i < x->n_step; i++) {
    ti__xstep *s = &x->step[i];
    ti_block_type bt = x->blk[s->blk].type;
    switch (s->kind) {
    case TI__XS_ZERO: memset(x->buf[s->dst].p, 0, x->buf[s->dst].bytes); break;
    case TI__XS_COPY:
      if (s->nrun == 1 && x->kctx.parallel_for && x->run[s->run0].n >= x->par_min) {
        ti__x_copy_job j;
        j.x = x; j.st = s;
        x->kctx.parallel_for(x->kctx.parallel_user, (x->run[s->run0].n + TI__X_COPY_TILE - 1) / TI__X_COPY_TILE, ti__x_copy_range, &j);
      } else ti__x_do_copy(x, s);
      x->prof.copied_bytes += s->elems * (int64_t)ti_dtype_size(x->buf[s->dst].dt);
      x->bprof[s->blk].bytes += s->elems * (int64_t)ti_dtype_size(x->buf[s->dst].dt);
      break;
    default: {
      ti_status st = ti__x_kernel(x, s);
      if (st) return ti_error_set(err, st == TI_STATUS_NOT_SUPPORTED ? st : TI_STATUS_INVALID, "block %d (%s): the kernel refused its arguments (%s)",
                                  (int)x->blk[s->blk].id, ti__x_tname(bt), ti_status_name(st));
      x->prof.block_calls[bt]++;
      x->bprof[s->blk].calls++;
      x->bprof[s->blk].macs += s->macs;
      break;
    }
    }
    if (prof) {
      t1 = x->opt.clock(x->opt.clock_user);
      x->prof.block_seconds[bt] += t1 - t0;
      x->bprof[s->blk].seconds += t1 - t0;
      if (s->kind == TI__XS_KERNEL) x->prof.kernel_seconds += t1 - t0; else x->prof.copy_seconds += t1 - t0;
      t0 = t1;
    }
  }
  if (prof) x->prof.total_seconds += x->opt.clock(x->opt.clock_user) - tr;
  x->prof.runs++;
  x->prof.macs += x->macs_per_run;
  x->prof.edge_bytes += x->edge_bytes_per_run;
  return TI_STATUS_SUCCESS;
}

TASKIR_API ti_status ti_exec_run(ti_exec *x, ti_error *err) {
  ti_error_clear(err);
  int32_t i;
  if (!x) return ti_error_set(err, TI_STATUS_BAD_PARAM, "ti_exec_run: NULL plan");
  for (i = 0; i < x->n_in; i++)
    if (!x->in_set[i])
      return ti_error_set(err, TI_STATUS_NOT_FOUND, "INPUT socket %d (block %d) has not been fed",
                          (int)x->blk[x->in_blk[i]].socket, (int)x->blk[x->in_blk[i]].id);
  return ti__x_run(x, err);
}

TASKIR_API void ti_exec_reset(ti_exec *x) {
  int32_t i;
  if (!x) return;
  for (i = 0; i < x->n_buf; i++) if (x->buf[i].init && x->buf[i].p) memcpy(x->buf[i].p, x->buf[i].init, x->buf[i].bytes);
  for (i = 0; i < x->n_lif; i++) x->lif[i] = x->lif0[i];
}

static int32_t ti__x_find_input(const ti_exec *x, int32_t socket) {
  int32_t i;
  for (i = 0; i < x->n_in; i++) if (x->blk[x->in_blk[i]].socket == socket) return i;
  return -1;
}

static ti_status ti__x_set_input(ti_exec *x, int32_t socket, const int32_t *iv, const float *fv, int64_t n, ti_error *err) {
  int32_t i;
  const ti__xblk *b;
  ti__xbuf *buf;
  int64_t k;
  if (!x || (!iv && !fv)) return ti_error_set(err, TI_STATUS_BAD_PARAM, "ti_exec_set_input: NULL argument");
  if ((i = ti__x_find_input(x, socket)) < 0) return ti_error_set(err, TI_STATUS_NOT_FOUND, "no INPUT block has socket %d", (int)socket);
  b = &x->blk[x->in_blk[i]];
  buf = &x->buf[b->buf];
  if (n != b->count)
    return ti_error_set(err, TI_STATUS_BAD_PARAM, "INPUT socket %d (block %d) takes %lld values, got %lld",
                        (int)socket, (int)b->id, (long long)b->count, (long long)n);
  if (buf->dt == TI_DTYPE_I8)
    for (k = 0; k < n; k++) {
      int64_t v = iv ? iv[k] : (int64_t)fv[k];
      if (v < -128 || v > 127 || (fv && fv[k] != fv[k]))
        return ti_error_set(err, TI_STATUS_BAD_PARAM, "INPUT socket %d (block %d, %s): value %lld at index %lld is out of range",
                            (int)socket, (int)b->id, ti_precision_name(b->precision), (long long)v, (long long)k);
    }
  for (k = 0; k < n; k++) {
    switch (buf->dt) {
    case TI_DTYPE_I8: ((int8_t *)buf->p)[k] = (int8_t)(iv ? iv[k] : (int32_t)fv[k]); break;
    case TI_DTYPE_F32: ((float *)buf->p)[k] = iv ? (float)iv[k] : fv[k]; break;
    default: ((int32_t *)buf->p)[k] = iv ? iv[k] : (fv[k] != fv[k] ? 0 : fv[k] >= 2147483647.0f ? INT32_MAX
                                                   : fv[k] <= -2147483648.0f ? INT32_MIN : (int32_t)fv[k]); break;
    }
  }
  x->in_set[i] = 1;
  return TI_STATUS_SUCCESS;
}

TASKIR_API ti_status ti_exec_set_input(ti_exec *x, int32_t socket, const int32_t *values, int64_t n, ti_error *err) {
  ti_error_clear(err);
  return ti__x_set_input(x, socket, values, NULL, n, err);
}
TASKIR_API ti_status ti_exec_set_input_f32(ti_exec *x, int32_t socket, const float *values, int64_t n, ti_error *err) {
  ti_error_clear(err);
  return ti__x_set_input(x, socket, NULL, values, n, err);
}

static ti_status ti__x_view_of(const ti_exec *x, int32_t bi, ti_exec_tensor *t, ti_error *err) {
  const ti__xblk *b = &x->blk[bi];
  const ti__xbuf *buf;
  int32_t i;
  memset(t, 0, sizeof *t);
  if (b->buf < 0 || !x->buf[b->buf].p)
    return ti_error_set(err, TI_STATUS_NOT_FOUND, "block %d (%s): its data is not kept (plan with keep_all)", (int)b->id, ti__x_tname(b->type));
  buf = &x->buf[b->buf];
  if (!buf->persistent && buf->last != TI__X_END && !x->opt.keep_all)
    return ti_error_set(err, TI_STATUS_NOT_FOUND, "block %d (%s): its buffer is reused during a run (plan with keep_all)", (int)b->id, ti__x_tname(b->type));
  t->data = buf->p; t->dtype = buf->dt; t->rank = b->rank; t->count = b->count;
  for (i = 0; i < b->rank; i++) t->dims[i] = b->dims[i];
  return TI_STATUS_SUCCESS;
}

TASKIR_API ti_status ti_exec_output(const ti_exec *x, int32_t socket, ti_exec_tensor *t, ti_error *err) {
  ti_error_clear(err);
  int32_t i;
  if (!x || !t) return ti_error_set(err, TI_STATUS_BAD_PARAM, "ti_exec_output: NULL argument");
  for (i = 0; i < x->n_out; i++)
    if (x->blk[x->out_blk[i]].socket == socket) return ti__x_view_of(x, x->out_blk[i], t, err);
  return ti_error_set(err, TI_STATUS_NOT_FOUND, "no OUTPUT block has socket %d", (int)socket);
}

TASKIR_API ti_status ti_exec_block(const ti_exec *x, int32_t block_id, ti_exec_tensor *t, ti_error *err) {
  ti_error_clear(err);
  int32_t i;
  if (!x || !t) return ti_error_set(err, TI_STATUS_BAD_PARAM, "ti_exec_block: NULL argument");
  for (i = 0; i < x->n_blk; i++) if (x->blk[i].id == block_id) return ti__x_view_of(x, i, t, err);
  return ti_error_set(err, TI_STATUS_NOT_FOUND, "no block has id %d", (int)block_id);
}

TASKIR_API int32_t ti_exec_num_inputs(const ti_exec *x) { return x ? x->n_in : 0; }
TASKIR_API int32_t ti_exec_input_socket(const ti_exec *x, int32_t i) {
  return x && i >= 0 && i < x->n_in ? x->blk[x->in_blk[i]].socket : -1;
}
TASKIR_API int64_t ti_exec_input_count(const ti_exec *x, int32_t i) {
  return x && i >= 0 && i < x->n_in ? x->blk[x->in_blk[i]].count : 0;
}
TASKIR_API int ti_exec_input_is_float(const ti_exec *x, int32_t i) {
  return x && i >= 0 && i < x->n_in && x->buf[x->blk[x->in_blk[i]].buf].dt == TI_DTYPE_F32;
}
TASKIR_API ti_dtype ti_exec_input_precision(const ti_exec *x, int32_t i) {
  return x && i >= 0 && i < x->n_in ? x->blk[x->in_blk[i]].precision : TI_DTYPE_COUNT;
}
TASKIR_API int32_t ti_exec_num_outputs(const ti_exec *x) { return x ? x->n_out : 0; }
TASKIR_API int32_t ti_exec_output_socket(const ti_exec *x, int32_t i) {
  return x && i >= 0 && i < x->n_out ? x->blk[x->out_blk[i]].socket : -1;
}
TASKIR_API int32_t ti_exec_output_block(const ti_exec *x, int32_t i) {
  return x && i >= 0 && i < x->n_out ? x->blk[x->out_blk[i]].id : -1;
}
TASKIR_API int32_t ti_exec_num_blocks(const ti_exec *x) { return x ? x->n_blk : 0; }
TASKIR_API int32_t ti_exec_block_id(const ti_exec *x, int32_t i) { return x && i >= 0 && i < x->n_blk ? x->blk[i].id : -1; }

TASKIR_API void ti_exec_get_info(const ti_exec *x, ti_exec_info *info) {
  int32_t i;
  memset(info, 0, sizeof *info);
  if (!x) return;
  info->arena_bytes = (int64_t)x->arena_bytes;
  for (i = 0; i < x->n_buf; i++) {
    const ti__xbuf *b = &x->buf[i];
    if (!b->persistent || !b->p) continue;
    if (i == -1) continue;
    info->persistent_bytes += (int64_t)b->bytes + (b->init ? (int64_t)b->bytes : 0);
  }
  for (i = 0; i < x->n_step; i++) {
    const ti__xstep *s = &x->step[i];
    if (s->kind == TI__XS_KERNEL) { info->n_kernels++; if (s->packed >= 0) info->packed_bytes += (int64_t)s->packed_bytes; }
    else if (s->kind == TI__XS_COPY) info->n_copies++;
  }
  info->persistent_bytes -= info->packed_bytes;
  info->scratch_bytes = (int64_t)x->scratch_bytes;
  info->map_bytes = x->n_run * (int64_t)sizeof(ti__xrun) + (int64_t)x->n_step * (int64_t)sizeof(ti__xstep) +
                    (int64_t)x->n_lif * 2 * (int64_t)sizeof(ti_lif_params) +
                    (int64_t)x->n_opnd * (int64_t)(sizeof(int32_t) + sizeof(void *));
  info->plan_bytes = info->arena_bytes + info->persistent_bytes + info->packed_bytes + info->scratch_bytes + info->map_bytes +
                     (int64_t)x->n_buf * (int64_t)sizeof(ti__xbuf) + (int64_t)x->n_blk * (int64_t)sizeof(ti__xblk) + (int64_t)sizeof *x;
  info->block_bytes = x->block_bytes;
  info->buffer_bytes = x->buffer_bytes;
  info->macs = x->macs_per_run;
  info->n_blocks = x->n_blk; info->n_steps = x->n_step; info->n_packed = x->n_packed;
}

TASKIR_API const ti_exec_profile *ti_exec_get_profile(const ti_exec *x) { return x ? &x->prof : NULL; }
TASKIR_API void ti_exec_clear_profile(ti_exec *x) {
  int32_t i;
  if (!x) return;
  memset(&x->prof, 0, sizeof x->prof);
  for (i = 0; i < x->n_blk; i++) x->bprof[i].calls = 0, x->bprof[i].seconds = 0, x->bprof[i].macs = 0, x->bprof[i].bytes = 0;
}

TASKIR_API int ti_exec_get_block_profile(const ti_exec *x, int32_t i, ti_exec_block_profile *bp) {
  int32_t k;
  if (!x || i < 0 || i >= x->n_blk || !bp) return 0;
  *bp = x->bprof[i];
  bp->block_id = x->blk[i].id;
  bp->type = x->blk[i].type;
  bp->kernel = "-";
  for (k = 0; k < x->n_step; k++) {
    const ti__xstep *s = &x->step[k];
    if (s->blk != i || s->kind != TI__XS_KERNEL) continue;
    if (s->packed >= 0) bp->kernel = "packed int8";
    else if (s->n_in > 0 && x->opnd[s->in0] >= 0) {
      ti_dtype dt = x->buf[x->opnd[s->in0]].dt;
      bp->kernel = dt == TI_DTYPE_I8 ? "int8" : dt == TI_DTYPE_F32 ? "float" : "int32";
    }
  }
  return 1;
}

#undef TI__XP
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
