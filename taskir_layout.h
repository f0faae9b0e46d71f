/* taskir_layout.h - v0.1.0 - layout passes for taskir: LayoutTransmit and LayoutPresetToNPU.

   Part of taskir (header-only C99, stb style). Needs taskir.h (included here).

   DO THIS in *one* C or C++ file:
       #define TASKIR_IMPLEMENTATION
       #include "taskir_layout.h"      (also implements taskir.h)

   WHAT IT DOES (SPEC §4, seeds 001 and 004)
     ti_layout_transmit     colours every value of a program with a layout
                            (NCHW, NHWC, OIHW, HWOI, TENSOR, NTENSOR): ops
                            whose layout is fixed by their interface seed the
                            colours, a reverse topological pass derives input
                            colours through invertible ops, uncoloured graph
                            inputs get a default, a forward topological pass
                            colours the rest. O(ops + uses), no recursion.
     ti_layout_preset_npu   makes every op with TI_TRAIT_LAYOUT_DEMAND see
                            NHWC activations / HWOI weights by inserting
                            transposes (greedy, topological order), keeps
                            tensor-class data and program outputs in their
                            original element order, folds into and cancels
                            existing transposes. The program computes the same
                            outputs as before.

   EXAMPLE
       ti_layout_options o; ti_layout_stats st; ti_error e;
       ti_layout_options_init(&o);            (or zero it: same defaults)
       ti_error_clear(&e);
       if (ti_layout_transmit(p, &o, &e) != TI_STATUS_SUCCESS ||
           ti_layout_preset_npu(p, &o, &st, &e) != TI_STATUS_SUCCESS) puts(e.message);
       printf("transposes: inserted %lld, removed %lld\n",
              (long long)st.inserted, (long long)st.removed);
     or through the pass manager: ti_layout_add_passes(&pm, &o) adds
     "layout-transmit" and "layout-preset-npu".

   WHAT THE PASSES ASSUME OF OPS (only traits and interfaces, never names)
     ti_layout_iface.forward(op, operand layouts, result layouts): with every
       operand TI_LAYOUT_ANY, an op whose layout is fixed by itself (conv,
       gemm, ...) still writes its result layouts; others write ANY. A failed
       status means the op cannot compute in those layouts.
     ti_layout_iface.backward(op, result layouts, operand layouts): 1 and the
       operand layouts the op needs, or 0 when it cannot be inverted (reshape,
       broadcast). Non-invertible ops, ops without an interface, ops turning
       4-D (CNN) data into tensor-class data and terminators are treated as
       reading their operands in memory order: they keep their original
       operand layouts.
     Dims of a 4-D value are in memory order: an NHWC value of an NCHW
       tensor [N,C,H,W] has dims [N,H,W,C]. Attributes naming axes (concat,
       pad) name logical axes (N,C,H,W / O,I,H,W), so a layout change needs
       no attribute change.
     The transpose op (default "nn.transpose", attribute "perm", an int array)
       computes out.dims[i] = in.dims[perm[i]].

   OPTIONS (define before the implementing include)
       TI_NODISCARD, TASKIR_STATIC, TASKIR_MALLOC/REALLOC/FREE, TASKIR_ASSERT
       as in taskir.h.

   ERRORS
       Every call returns a ti_status and fills the ti_error (if given) with
       what went wrong and on which op: a cycle or a use before its
       definition (TI_STATUS_INVALID), a demanding op whose interface rejects
       NHWC/HWOI (NOT_SUPPORTED), a transpose that would copy a `tensor`
       some op writes in place (NOT_SUPPORTED: run inplace-to-outofplace
       first), a transpose op that is not registered (NOT_FOUND). ti_layout_preset_npu decides everything before it edits,
       so a failure leaves the program as it was; ti_layout_transmit checks
       first and can stop part-way only when out of memory.

   LICENSE: MIT, see the end of this file.
*/
#ifndef TASKIR_LAYOUT_H
#define TASKIR_LAYOUT_H

/* The taskir version; every header defines the same (the first one included
   wins; tests/cli_version.sh checks that they agree). */
#ifndef TASKIR_VERSION_MAJOR
#define TASKIR_VERSION_MAJOR 0
#define TASKIR_VERSION_MINOR 1
#define TASKIR_VERSION_PATCH 0
#define TASKIR_VERSION_STRING "0.1.0"
#endif

#include "taskir.h"
#ifdef TASKIR_NO_NN
#error "taskir_layout.h needs the nn dialect (nn.transpose, the nn layout interfaces): do not define TASKIR_NO_NN"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* >>layout.api ------------------------------------------------------------- */

typedef struct ti_layout_stats {
  int64_t inserted;   /* transposes the pass created */
  int64_t removed;    /* transposes of the input program it erased (cancelled) */
  int64_t folded;     /* transposes of the input program whose perm it changed */
  int64_t naive;      /* baseline: one transpose per non-NPU 4-D operand and per
                         changed 4-D result of every demanding op */
  int32_t strategy;   /* the candidate kept (see ti_layout_preset_npu) */
} ti_layout_stats;

typedef struct ti_layout_options {
  /* LayoutTransmit: layout of graph inputs no pass could colour. ANY (0)
     means the default: NCHW for 4-D, TENSOR otherwise. */
  ti_layout default_4d, default_other;
  /* LayoutTransmit: 1 to recolour graph inputs whose type already names a
     layout (default 0: such a layout is a fact about the input and kept). */
  int recolour_inputs;
  /* LayoutPresetToNPU: the transpose op; NULL means "nn.transpose". It must
     take one operand, give one result, and carry the int array "perm". */
  const char *transpose_op;
  /* LayoutPresetToNPU: decide and count only, change nothing. */
  int dry_run;
  /* LayoutPresetToNPU: pins the layout of a layout-transparent op (one that
     may compute in either layout): return 0 for its original layouts, 1 for
     the NPU ones (NHWC/HWOI), -1 to let the pass decide. NULL: the pass
     decides everything. Used to explore alternatives (tests search all). */
  int (*choose)(void *user, const ti_op *op);
  void *choose_user;
  /* Pass wrappers: counts of ti_layout_preset_npu_pass are added here. */
  ti_layout_stats *stats;
} ti_layout_options;

TASKIR_API void ti_layout_options_init(ti_layout_options *o);

/* NCHW -> NHWC, OIHW -> HWOI; any other layout unchanged. */
TASKIR_API ti_layout ti_layout_npu(ti_layout l);
/* The perm of a transpose turning 4-D data in layout `from` into layout
   `to` (out.dims[i] = in.dims[perm[i]]); 0 when either is not a 4-D layout. */
TASKIR_API int ti_layout_perm(ti_layout from, ti_layout to, int64_t perm[4]);

/* LayoutTransmit: sets the layout of every value's type (program inputs
   included, unless they already name one: such an input keeps its layout,
   and a known op reading it is known in that layout, e.g. a conv on an
   NHWC input). SSA programs are walked in program order (a use before its
   definition is an error), graph programs in topological order. */
TASKIR_API TI_NODISCARD ti_status ti_layout_transmit(ti_program *p, const ti_layout_options *opt, ti_error *err);

/* LayoutPresetToNPU on a coloured program (types carry layouts, e.g. after
   ti_layout_transmit; 4-D values without a 4-D layout are left alone).
   Tries three greedy strategies, each one topological walk, and keeps the
   one with the fewest transposes (stats->strategy): 0 the seed's greedy (a
   transparent op takes the layout its operands arrive in; on a disagreement
   the cheaper side, ties towards a demanding op downstream; it also starts
   in NPU layout when that is free and a demanding op follows), 1 the same
   but restoring a changed layout at once where it would need restoring on
   several paths later, 2 restoring every demanding op's results right
   after it (never more transposes created than the naive baseline, so the
   pass never creates more either). With opt->choose set, only that choice
   is run (strategy 3). stats may be NULL. */
TASKIR_API TI_NODISCARD ti_status ti_layout_preset_npu(ti_program *p, const ti_layout_options *opt, ti_layout_stats *stats,
                                          ti_error *err);

/* ti_pass_fn wrappers; user is a ti_layout_options* or NULL. */
TASKIR_API TI_NODISCARD ti_status ti_layout_transmit_pass(ti_program *p, void *user, ti_error *err);
TASKIR_API TI_NODISCARD ti_status ti_layout_preset_npu_pass(ti_program *p, void *user, ti_error *err);
/* Adds "layout-transmit" and "layout-preset-npu" to pm (opt may be NULL and
   must outlive the run). */
TASKIR_API TI_NODISCARD ti_status ti_layout_add_passes(ti_pass_manager *pm, ti_layout_options *opt);

/* What `taskir layout FILE [--transmit] [--npu]` runs: transmit if asked,
   then preset if asked, then the verifier. stats (may be NULL) is zeroed
   first and gets the preset counts. */
TASKIR_API TI_NODISCARD ti_status ti_layout_run(ti_program *p, int transmit, int npu, const ti_layout_options *opt,
                                   ti_layout_stats *stats, ti_error *err);

#ifdef __cplusplus
}
#endif
#endif /* TASKIR_LAYOUT_H */

/* ======================================================================== */
#if defined(TASKIR_IMPLEMENTATION) && !defined(TASKIR_LAYOUT_IMPL_INCLUDED)
#define TASKIR_LAYOUT_IMPL_INCLUDED

#include <stdlib.h>
#include <string.h>

#if defined(TASKIR_MALLOC) && defined(TASKIR_REALLOC) && defined(TASKIR_FREE)
/* user allocator, or the one taskir.h set up */
#elif !defined(TASKIR_MALLOC) && !defined(TASKIR_REALLOC) && !defined(TASKIR_FREE)
#define TASKIR_MALLOC(u, sz) ((void)(u), malloc(sz))
#define TASKIR_REALLOC(u, p, sz) ((void)(u), realloc((p), (sz)))
#define TASKIR_FREE(u, p) ((void)(u), free(p))
#else
#error "taskir: define all or none of TASKIR_MALLOC, TASKIR_REALLOC and TASKIR_FREE"
#endif

/* >>impl.layout.util ------------------------------------------------------- */

TASKIR_API void ti_layout_options_init(ti_layout_options *o) {
  if (o) memset(o, 0, sizeof *o);
}

/* Logical dim held by each memory position: N,C,H,W (or O,I,H,W) = 0..3. */
static const signed char *ti__lay_letters(ti_layout l) {
  static const signed char nchw[4] = {0, 1, 2, 3}, nhwc[4] = {0, 2, 3, 1}, hwoi[4] = {2, 3, 0, 1};
  switch (l) {
  case TI_LAYOUT_NCHW: case TI_LAYOUT_OIHW: return nchw;
  case TI_LAYOUT_NHWC: return nhwc;
  case TI_LAYOUT_HWOI: return hwoi;
  default: return NULL;
  }
}

TASKIR_API ti_layout ti_layout_npu(ti_layout l) {
  return l == TI_LAYOUT_NCHW ? TI_LAYOUT_NHWC : l == TI_LAYOUT_OIHW ? TI_LAYOUT_HWOI : l;
}

TASKIR_API int ti_layout_perm(ti_layout from, ti_layout to, int64_t perm[4]) {
  const signed char *a = ti__lay_letters(from), *b = ti__lay_letters(to);
  int i, j;
  if (!a || !b) return 0;
  for (i = 0; i < 4; i++)
    for (j = 0; j < 4; j++)
      if (a[j] == b[i]) perm[i] = j;
  return 1;
}

/* 4-D perms packed in a byte: p0 + 4 p1 + 16 p2 + 64 p3. */
#define TI__PERM_ID 228
static int ti__perm_pack(const int64_t p[4]) { return (int)(p[0] + 4 * p[1] + 16 * p[2] + 64 * p[3]); }
static int ti__perm_at(int code, int i) { return (code >> (2 * i)) & 3; }
/* transpose(transpose(x, a), b) == transpose(x, a o b): r[i] = a[b[i]] */
static int ti__perm_compose(int a, int b) {
  int i, r = 0;
  for (i = 0; i < 4; i++) r |= ti__perm_at(a, ti__perm_at(b, i)) << (2 * i);
  return r;
}
static int ti__perm_between(ti_layout from, ti_layout to) {
  int64_t p[4];
  return ti_layout_perm(from, to, p) ? ti__perm_pack(p) : -1;
}

/* zero: 0 for arrays every entry of which is written before it is read
   (saves a sweep over fresh memory on large programs) */
static void *ti__lay_alloc(ti_program *p, size_t n, size_t size, int zero) {
  void *m;
  size_t bytes;
  if (size && n > ((size_t)-1) / 2 / size) return NULL;
  bytes = n * size;
  if (bytes == 0) bytes = 1;
  m = TASKIR_MALLOC(p->arena.alloc_user, bytes);
  if (m && zero) memset(m, 0, bytes);
  return m;
}
static void ti__lay_free(ti_program *p, void *m) {
  if (m) TASKIR_FREE(p->arena.alloc_user, m);
}

static const char *ti__lay_opname(const ti_op *op) { return op && op->info && op->info->name ? op->info->name : "?"; }

/* Topological order plus a dense numbering of values ("slots"): program
   arguments first, then the results of ops in topological order. */
typedef struct ti__lay_index {
  ti_op **ops;
  int64_t n_ops, n_args, n_slots, n_uses;
  int64_t *base;        /* n_ops+1: first result slot of op k */
  int64_t *ustart;      /* n_ops+1: first use (operand slot) of op k */
  int64_t *uslot;       /* n_uses: slot of each operand, as in the input program */
  ti_value **val;       /* n_slots */
  int32_t max_operands, max_results;
  int own_ops;          /* ops came from TASKIR_MALLOC here, not from a walk */
} ti__lay_index;

static void ti__lay_index_free(ti_program *p, ti__lay_index *ix) {
  if (ix->ops && ix->own_ops) ti__lay_free(p, ix->ops);
  else if (ix->ops) ti_ops_free(p, ix->ops);
  ti__lay_free(p, ix->base); ti__lay_free(p, ix->ustart); ti__lay_free(p, ix->uslot);
  ti__lay_free(p, ix->val);
  memset(ix, 0, sizeof *ix);
}

/* Slot of v when its defining op is among the first lim indexed ops. */
static int64_t ti__lay_slot(const ti__lay_index *ix, const ti_value *v, int64_t lim) {
  if (!v) return -1;
  if (!v->def) return (v->index >= 0 && v->index < ix->n_args && ix->val[v->index] == v) ? v->index : -1;
  if (v->def->order < 0 || v->def->order >= lim || ix->ops[v->def->order] != v->def) return -1;
  return ix->base[v->def->order] + v->index;
}

/* SSA programs: program order is a topological order (the verifier's
   rule), so one sweep indexes everything and finds uses before
   definitions. Graph programs: Kahn's order from the core first. */
static ti_status ti__lay_index_build(ti_program *p, ti__lay_index *ix, ti_error *err) {
  ti_status st;
  int64_t k, s, u, cap_s, cap_u, n;
  ti_op *op = NULL;
  int ssa = p->kind == TI_PROGRAM_SSA;
  memset(ix, 0, sizeof *ix);
  if (ssa) {
    ix->own_ops = 1;
    ix->n_ops = p->n_ops;
    ix->ops = (ti_op **)ti__lay_alloc(p, (size_t)p->n_ops + 1, sizeof(ti_op *), 0);
    if (!ix->ops) goto oom;
    op = p->first;
  } else {
    st = ti_walk_topo(p, &ix->ops, &ix->n_ops, err);
    if (st != TI_STATUS_SUCCESS) return st;
  }
  n = ix->n_ops;
  ix->n_args = p->n_args;
  cap_s = n + p->n_args + 16; cap_u = 2 * n + 16;
  ix->base = (int64_t *)ti__lay_alloc(p, (size_t)n + 1, sizeof(int64_t), 0);
  ix->ustart = (int64_t *)ti__lay_alloc(p, (size_t)n + 1, sizeof(int64_t), 0);
  ix->uslot = (int64_t *)ti__lay_alloc(p, (size_t)cap_u, sizeof(int64_t), 0);
  ix->val = (ti_value **)ti__lay_alloc(p, (size_t)cap_s, sizeof(ti_value *), 0);
  if (!ix->base || !ix->ustart || !ix->uslot || !ix->val) goto oom;
  for (s = 0; s < ix->n_args; s++) ix->val[s] = p->args[s];
  s = ix->n_args; u = 0;
  for (k = 0; k < n; k++) {
    int32_t i;
    if (ssa) {
      if (!op) break;
      ix->ops[k] = op;
    } else op = ix->ops[k];
    op->order = k;
    ix->base[k] = s; ix->ustart[k] = u;
    if (!ti__grow(p->arena.alloc_user, &ix->val, sizeof *ix->val, &cap_s, s + op->n_results + 1, 16, INT64_MAX) ||
        !ti__grow(p->arena.alloc_user, &ix->uslot, sizeof *ix->uslot, &cap_u, u + op->n_operands + 1, 16, INT64_MAX))
      goto oom;
    for (i = 0; i < op->n_results; i++) ix->val[s + i] = &op->results[i];
    for (i = 0; i < op->n_operands; i++) {
      int64_t sl = ti__lay_slot(ix, op->operands[i].value, k);
      if (sl < 0) {
        st = ti_error_set(err, TI_STATUS_INVALID, "layout: operand %d of op '%s' is %s", (int)i, ti__lay_opname(op),
                          ssa ? "used before its definition or not defined in this program" : "not defined in this program");
        ti__lay_index_free(p, ix);
        return st;
      }
      ix->uslot[u + i] = sl;
    }
    s += op->n_results; u += op->n_operands;
    if (op->n_operands > ix->max_operands) ix->max_operands = op->n_operands;
    if (op->n_results > ix->max_results) ix->max_results = op->n_results;
    if (ssa) op = op->next;
  }
  if (k != n || (ssa && op)) {
    ti__lay_index_free(p, ix);
    return ti_error_set(err, TI_STATUS_INVALID, "layout: the program's op count does not match its op list");
  }
  ix->base[n] = s; ix->ustart[n] = u;
  ix->n_slots = s; ix->n_uses = u;
  return TI_STATUS_SUCCESS;
oom:
  ti__lay_index_free(p, ix);
  return ti_error_set(err, TI_STATUS_NO_MEMORY, "layout: out of memory indexing %lld ops", (long long)p->n_ops);
}

static ti_layout ti__lay_default(const ti_layout_options *o, const ti_type *t) {
  ti_layout d4 = o && o->default_4d ? o->default_4d : TI_LAYOUT_NCHW;
  ti_layout dx = o && o->default_other ? o->default_other : TI_LAYOUT_TENSOR;
  return t && t->rank == 4 ? d4 : dx;
}


/* >>impl.layout.transmit --------------------------------------------------- */

static int ti__lay_recolour(ti_program *p, ti_value *v, ti_layout l) {
  const ti_type *t;
  if (!v->type || v->type->layout == l) return 1;
  t = ti_type_with_layout(p->ctx, v->type, l);
  if (!t) return 0;
  v->type = t;
  return 1;
}

enum { TI__LT_SEED = 1, TI__LT_INVERTIBLE = 2 };

TASKIR_API ti_status ti_layout_transmit(ti_program *p, const ti_layout_options *opt, ti_error *err) {
  ti_error_clear(err);
  ti__lay_index ix;
  ti_status st;
  unsigned char *need = NULL, *col = NULL, *flag = NULL;
  ti_layout *lin = NULL, *lout = NULL, *lany = NULL, *lres = NULL;
  int64_t k, s;
  int32_t i;
  if (!p) return ti_error_set(err, TI_STATUS_BAD_PARAM, "layout-transmit: no program");
  st = ti__lay_index_build(p, &ix, err);
  if (st != TI_STATUS_SUCCESS) return st;
  need = (unsigned char *)ti__lay_alloc(p, (size_t)ix.n_slots + 1, 1, 1);
  col = (unsigned char *)ti__lay_alloc(p, (size_t)ix.n_slots + 1, 1, 0);
  flag = (unsigned char *)ti__lay_alloc(p, (size_t)ix.n_ops + 1, 1, 1);
  lin = (ti_layout *)ti__lay_alloc(p, (size_t)ix.max_operands + 1, sizeof(ti_layout), 1);
  lany = (ti_layout *)ti__lay_alloc(p, (size_t)ix.max_operands + 1, sizeof(ti_layout), 1);
  lout = (ti_layout *)ti__lay_alloc(p, (size_t)ix.max_results + 1, sizeof(ti_layout), 1);
  lres = (ti_layout *)ti__lay_alloc(p, (size_t)ix.max_results + 1, sizeof(ti_layout), 1);
  if (!need || !col || !flag || !lin || !lout || !lany || !lres) {
    st = ti_error_set(err, TI_STATUS_NO_MEMORY, "layout-transmit: out of memory");
    goto done;
  }
#define TI__LT_PINNED(v) ((v)->type && (v)->type->layout != TI_LAYOUT_ANY && !(opt && opt->recolour_inputs))
  /* (1) reverse topological order: colours flow from known ops to inputs */
  for (k = ix.n_ops - 1; k >= 0; k--) {
    ti_op *op = ix.ops[k];
    const ti_layout_iface *li = op->info ? op->info->layout : NULL;
    int known = 0, inv = 0, n_pinned = 0;
    for (i = 0; i < op->n_operands; i++) lany[i] = TI_LAYOUT_ANY;
    for (i = 0; i < op->n_results; i++) lout[i] = TI_LAYOUT_ANY;
    if (li && li->forward && li->forward(op, lany, lout) == TI_STATUS_SUCCESS)
      for (i = 0; i < op->n_results; i++) known |= lout[i] != TI_LAYOUT_ANY;
    /* a known op reading graph inputs that name their layout (an NHWC
       input of a conv) is known in that layout */
    for (i = 0; known && i < op->n_operands; i++) {
      int64_t sl = ix.uslot[ix.ustart[k] + i];
      if (sl < ix.n_args && TI__LT_PINNED(ix.val[sl])) { lany[i] = ix.val[sl]->type->layout; n_pinned++; }
    }
    if (n_pinned) {
      for (i = 0; i < op->n_results; i++) lres[i] = TI_LAYOUT_ANY;
      if (li->forward(op, lany, lres) == TI_STATUS_SUCCESS)
        for (i = 0; i < op->n_results; i++)
          if (lres[i] > TI_LAYOUT_ANY && lres[i] < TI_LAYOUT_COUNT) lout[i] = lres[i];
    }
    if (!known)
      for (i = 0; i < op->n_results; i++) lout[i] = (ti_layout)need[ix.base[k] + i];
    for (i = 0; i < op->n_operands; i++) lin[i] = TI_LAYOUT_ANY;
    if (li && li->backward) inv = li->backward(op, lout, lin) != 0;
    flag[k] = (unsigned char)((known && inv ? TI__LT_SEED : 0) | (inv ? TI__LT_INVERTIBLE : 0));
    if (!inv) continue;   /* Reshape, Broadcast: decided in (3) */
    for (i = 0; i < op->n_operands; i++) {
      int64_t sl = ix.uslot[ix.ustart[k] + i];
      if (lin[i] > TI_LAYOUT_ANY && lin[i] < TI_LAYOUT_COUNT && need[sl] == TI_LAYOUT_ANY)
        need[sl] = (unsigned char)lin[i];
    }
  }
  /* (2) graph inputs */
  for (s = 0; s < ix.n_args; s++) {
    const ti_type *t = ix.val[s]->type;
    if (TI__LT_PINNED(ix.val[s])) col[s] = (unsigned char)t->layout;
    else col[s] = (unsigned char)(need[s] != TI_LAYOUT_ANY ? (ti_layout)need[s] : ti__lay_default(opt, t));
    if (!ti__lay_recolour(p, ix.val[s], (ti_layout)col[s])) goto oom;
  }
  /* (3) topological order: every op's inputs are known when it is reached */
  for (k = 0; k < ix.n_ops; k++) {
    ti_op *op = ix.ops[k];
    const ti_layout_iface *li = op->info ? op->info->layout : NULL;
    int fwd_ok = 0;
    for (i = 0; i < op->n_operands; i++) lin[i] = (ti_layout)col[ix.uslot[ix.ustart[k] + i]];
    for (i = 0; i < op->n_results; i++) lout[i] = TI_LAYOUT_ANY;
    if (li && li->forward) fwd_ok = li->forward(op, lin, lout) == TI_STATUS_SUCCESS;
    for (i = 0; i < op->n_results; i++) {
      int64_t sl = ix.base[k] + i;
      ti_layout c = fwd_ok && lout[i] > TI_LAYOUT_ANY && lout[i] < TI_LAYOUT_COUNT ? lout[i] : TI_LAYOUT_ANY;
      /* a non-invertible op converts to what its consumers need */
      if (!(flag[k] & TI__LT_INVERTIBLE) && need[sl] != TI_LAYOUT_ANY) c = (ti_layout)need[sl];
      if (c == TI_LAYOUT_ANY) c = need[sl] != TI_LAYOUT_ANY ? (ti_layout)need[sl] : ti__lay_default(opt, ix.val[sl]->type);
      col[sl] = (unsigned char)c;
      /* final now: colour the type while the op is at hand (one sweep less) */
      if (!ti__lay_recolour(p, ix.val[sl], c)) goto oom;
    }
  }
#undef TI__LT_PINNED
  st = TI_STATUS_SUCCESS;
  goto done;
oom:
  st = ti_error_set(err, TI_STATUS_NO_MEMORY, "layout-transmit: out of memory interning a type (the program is partly coloured)");
done:
  ti__lay_free(p, need); ti__lay_free(p, col); ti__lay_free(p, flag);
  ti__lay_free(p, lin); ti__lay_free(p, lout); ti__lay_free(p, lany); ti__lay_free(p, lres);
  ti__lay_index_free(p, &ix);
  return st;
}

/* >>impl.layout.preset ----------------------------------------------------- */

/* How an op treats the layouts of its 4-D operands. */
enum {
  TI__LP_SKIP = 0,    /* no 4-D operand: nothing to do */
  TI__LP_DEMAND,      /* needs NHWC / HWOI */
  TI__LP_ORDER,       /* reads memory order: keeps the original layouts */
  TI__LP_FREE,        /* may compute in either layout (forward decides) */
  TI__LP_TRANSPOSE    /* an existing transpose: absorbs layout changes */
};

/* Virtual values ("vids"): 0..n_slots-1 are the program's values, n_slots+k
   is the k-th transpose the pass will create. */
typedef struct ti__lp {
  ti_program *p;
  const ti_layout_options *opt;
  ti__lay_index ix;
  const ti_op_info *tinfo;
  /* fixed facts */
  unsigned char *kind;    /* per op */
  unsigned char *ol;      /* per slot: original layout */
  unsigned char *cnn;     /* per slot: a 4-D value with a 4-D layout */
  unsigned char *want;    /* per slot: a demanding op is reachable through transparent ops */
  unsigned char *est;     /* per slot: transposes (0..2) needed downstream if it changes layout */
  unsigned char *istr;    /* per slot: made by an existing transpose */
  unsigned char *fst;     /* per op: forward on NPU layouts not asked (0), accepted (1), rejected (2) */
  unsigned char *fres;    /* per slot: its answer */
  int32_t *nuses;         /* per slot */
  unsigned char *tperm0;  /* per op: original perm of an existing transpose */
  /* decision state */
  unsigned char *cl;      /* per slot: current layout */
  int64_t *alias;         /* per slot: vid standing for it (cancelled transpose), or -1 */
  int64_t *src;           /* per use: vid the operand will read */
  unsigned char *tperm;   /* per op: current perm of an existing transpose */
  unsigned char *tgone;   /* per op: existing transpose cancelled */
  int64_t *head;          /* per slot: first created transpose reading it, -1 */
  int64_t n_vt, cap_vt;
  int64_t *vt_from, *vt_next;
  unsigned char *vt_perm, *vt_lay;
  int64_t removed, folded, naive;
  int64_t n_up, n_badup;  /* free ops that went NPU; of those, ones strategy 1 would keep */
  const ti_op *inplace;   /* an op writing its operand in place, if any */
  int last_bad;
  /* scratch */
  ti_layout *lin, *lout, *ltgt;
} ti__lp;

static ti_layout ti__lp_lay(const ti__lp *c, int64_t vid) {
  return vid < c->ix.n_slots ? (ti_layout)c->cl[vid] : (ti_layout)c->vt_lay[vid - c->ix.n_slots];
}

static int ti__lp_valid_perm(const ti_op *op, int *code) {
  int64_t perm[4];
  int seen = 0, i;
  if (ti_dict_ints(op->attrs, "perm", perm, 4) != 4) return 0;
  for (i = 0; i < 4; i++) {
    if (perm[i] < 0 || perm[i] > 3 || (seen & (1 << perm[i]))) return 0;
    seen |= 1 << perm[i];
  }
  *code = ti__perm_pack(perm);
  return 1;
}

static ti_status ti__lp_init(ti__lp *c, ti_program *p, const ti_layout_options *opt, ti_error *err) {
  ti__lay_index *ix = &c->ix;
  ti_status st;
  int64_t k, s, u;
  int32_t i;
  memset(c, 0, sizeof *c);
  c->p = p; c->opt = opt;
  c->tinfo = ti_lookup_op(p->ctx, opt && opt->transpose_op ? opt->transpose_op : "nn.transpose");
  st = ti__lay_index_build(p, ix, err);
  if (st != TI_STATUS_SUCCESS) return st;
  c->kind = (unsigned char *)ti__lay_alloc(p, (size_t)ix->n_ops + 1, 1, 0);
  c->tperm0 = (unsigned char *)ti__lay_alloc(p, (size_t)ix->n_ops + 1, 1, 1);
  c->tperm = (unsigned char *)ti__lay_alloc(p, (size_t)ix->n_ops + 1, 1, 0);
  c->tgone = (unsigned char *)ti__lay_alloc(p, (size_t)ix->n_ops + 1, 1, 0);
  c->ol = (unsigned char *)ti__lay_alloc(p, (size_t)ix->n_slots + 1, 1, 0);
  c->cnn = (unsigned char *)ti__lay_alloc(p, (size_t)ix->n_slots + 1, 1, 0);
  c->want = (unsigned char *)ti__lay_alloc(p, (size_t)ix->n_slots + 1, 1, 1);
  c->est = (unsigned char *)ti__lay_alloc(p, (size_t)ix->n_slots + 1, 1, 1);
  c->istr = (unsigned char *)ti__lay_alloc(p, (size_t)ix->n_slots + 1, 1, 1);
  c->fst = (unsigned char *)ti__lay_alloc(p, (size_t)ix->n_ops + 1, 1, 1);
  c->fres = (unsigned char *)ti__lay_alloc(p, (size_t)ix->n_slots + 1, 1, 0);
  c->cl = (unsigned char *)ti__lay_alloc(p, (size_t)ix->n_slots + 1, 1, 0);
  c->nuses = (int32_t *)ti__lay_alloc(p, (size_t)ix->n_slots + 1, sizeof(int32_t), 1);
  c->alias = (int64_t *)ti__lay_alloc(p, (size_t)ix->n_slots + 1, sizeof(int64_t), 0);
  c->head = (int64_t *)ti__lay_alloc(p, (size_t)ix->n_slots + 1, sizeof(int64_t), 0);
  c->src = (int64_t *)ti__lay_alloc(p, (size_t)ix->n_uses + 1, sizeof(int64_t), 0);
  c->lin = (ti_layout *)ti__lay_alloc(p, (size_t)ix->max_operands + 1, sizeof(ti_layout), 1);
  c->ltgt = (ti_layout *)ti__lay_alloc(p, (size_t)ix->max_operands + 1, sizeof(ti_layout), 1);
  c->lout = (ti_layout *)ti__lay_alloc(p, (size_t)ix->max_results + 1, sizeof(ti_layout), 1);
  if (!c->kind || !c->tperm0 || !c->tperm || !c->tgone || !c->ol || !c->cnn || !c->want || !c->est || !c->istr || !c->fst || !c->fres ||
      !c->cl || !c->nuses || !c->alias || !c->head || !c->src || !c->lin || !c->ltgt || !c->lout)
    return ti_error_set(err, TI_STATUS_NO_MEMORY, "layout-preset-npu: out of memory");
  for (s = 0; s < ix->n_slots; s++) {
    const ti_type *t = ix->val[s]->type;
    ti_layout l = t ? t->layout : TI_LAYOUT_ANY;
    c->ol[s] = (unsigned char)l;
    c->cnn[s] = (unsigned char)(t && t->rank == 4 && ti__lay_letters(l) != NULL);
  }
  for (u = 0; u < ix->n_uses; u++) c->nuses[ix->uslot[u]]++;
  for (k = 0; k < ix->n_ops && !c->inplace; k++)
    if (ti_op_has_trait(ix->ops[k], TI_TRAIT_INPLACE)) c->inplace = ix->ops[k];
  /* classify ops: traits and the layout interface only */
  for (k = 0; k < ix->n_ops; k++) {
    ti_op *op = ix->ops[k];
    const ti_layout_iface *li = op->info ? op->info->layout : NULL;
    int any_cnn = 0, res_tensor = 0, inv = 0, code;
    for (i = 0; i < op->n_operands; i++) any_cnn |= c->cnn[ix->uslot[ix->ustart[k] + i]];
    for (i = 0; i < op->n_results; i++) res_tensor |= !c->cnn[ix->base[k] + i];
    if (!any_cnn) { c->kind[k] = TI__LP_SKIP; continue; }
    if (c->tinfo && op->info == c->tinfo && op->n_operands == 1 && op->n_results == 1 &&
        c->cnn[ix->base[k]] && ti__lp_valid_perm(op, &code)) {
      c->kind[k] = TI__LP_TRANSPOSE;
      c->tperm0[k] = (unsigned char)code;
      c->istr[ix->base[k]] = 1;
      continue;
    }
    if (ti_op_has_trait(op, TI_TRAIT_LAYOUT_DEMAND)) { c->kind[k] = TI__LP_DEMAND; continue; }
    if (li && li->backward && op->n_results > 0) {
      for (i = 0; i < op->n_results; i++) c->lout[i] = (ti_layout)c->ol[ix->base[k] + i];
      for (i = 0; i < op->n_operands; i++) c->lin[i] = TI_LAYOUT_ANY;
      inv = li->backward(op, c->lout, c->lin) != 0;
    }
    /* CNN -> TENSOR, non-invertible, no interface, terminators: memory order */
    c->kind[k] = (unsigned char)(inv && li->forward && !res_tensor && !ti_op_has_trait(op, TI_TRAIT_TERMINATOR) &&
                                 !ti_op_has_trait(op, TI_TRAIT_INPLACE) ? TI__LP_FREE : TI__LP_ORDER);
  }
  /* want / est, reverse topological order (facts of the input program) */
  for (k = ix->n_ops - 1; k >= 0; k--) {
    int kd = c->kind[k], n_cnn = 0, w = 0, e = 0;
    for (i = 0; i < (int32_t)(ix->ustart[k + 1] - ix->ustart[k]); i++) n_cnn += c->cnn[ix->uslot[ix->ustart[k] + i]];
    for (i = 0; i < (int32_t)(ix->base[k + 1] - ix->base[k]); i++) {
      w |= c->want[ix->base[k] + i];
      e += c->est[ix->base[k] + i];
    }
    for (i = 0; i < (int32_t)(ix->ustart[k + 1] - ix->ustart[k]); i++) {
      int64_t sl = ix->uslot[ix->ustart[k] + i];
      int add = 0;
      if (!c->cnn[sl]) continue;
      if (kd == TI__LP_DEMAND) c->want[sl] = 1;
      else if (kd == TI__LP_FREE || kd == TI__LP_TRANSPOSE) c->want[sl] |= (unsigned char)w;
      if (kd == TI__LP_ORDER) add = 1;   /* a transpose back, shared by every such use */
      else if (kd == TI__LP_FREE) add = n_cnn > 1 ? 1 : e;
      add += c->est[sl];
      c->est[sl] = (unsigned char)(add > 2 ? 2 : add);
    }
  }
  /* the naive baseline: a transpose on every non-NPU operand and changed result of a demanding op */
  for (k = 0; k < ix->n_ops; k++) {
    if (c->kind[k] != TI__LP_DEMAND) continue;
    for (i = 0; i < (int32_t)(ix->ustart[k + 1] - ix->ustart[k]); i++) {
      int64_t sl = ix->uslot[ix->ustart[k] + i];
      if (c->cnn[sl] && ti_layout_npu((ti_layout)c->ol[sl]) != (ti_layout)c->ol[sl]) c->naive++;
    }
    for (i = 0; i < (int32_t)(ix->base[k + 1] - ix->base[k]); i++) {
      int64_t sl = ix->base[k] + i;
      if (c->cnn[sl] && ti_layout_npu((ti_layout)c->ol[sl]) != (ti_layout)c->ol[sl]) c->naive++;
    }
  }
  return TI_STATUS_SUCCESS;
}

static void ti__lp_free(ti__lp *c) {
  ti_program *p = c->p;
  if (!p) return;
  ti__lay_free(p, c->kind); ti__lay_free(p, c->tperm0); ti__lay_free(p, c->tperm); ti__lay_free(p, c->tgone);
  ti__lay_free(p, c->ol); ti__lay_free(p, c->cnn); ti__lay_free(p, c->want); ti__lay_free(p, c->est);
  ti__lay_free(p, c->istr); ti__lay_free(p, c->fst); ti__lay_free(p, c->fres);
  ti__lay_free(p, c->cl); ti__lay_free(p, c->nuses); ti__lay_free(p, c->alias); ti__lay_free(p, c->head);
  ti__lay_free(p, c->src); ti__lay_free(p, c->lin); ti__lay_free(p, c->ltgt); ti__lay_free(p, c->lout);
  ti__lay_free(p, c->vt_from); ti__lay_free(p, c->vt_next); ti__lay_free(p, c->vt_perm); ti__lay_free(p, c->vt_lay);
  ti__lay_index_free(p, &c->ix);
  memset(c, 0, sizeof *c);
}

static void ti__lp_reset(ti__lp *c) {
  int64_t s;
  memcpy(c->cl, c->ol, (size_t)c->ix.n_slots);
  memcpy(c->tperm, c->tperm0, (size_t)c->ix.n_ops);
  memset(c->tgone, 0, (size_t)c->ix.n_ops);
  for (s = 0; s < c->ix.n_slots; s++) { c->alias[s] = -1; c->head[s] = -1; }
  memcpy(c->src, c->ix.uslot, (size_t)c->ix.n_uses * sizeof(int64_t));
  c->n_vt = 0; c->removed = 0; c->folded = 0; c->n_up = 0; c->n_badup = 0;
}

/* Finds or records "transpose `from` by `perm` into layout `lay`"; -1 when out of memory. */
static int64_t ti__lp_vt(ti__lp *c, int64_t from, int perm, ti_layout lay, int create) {
  int64_t k;
  for (k = c->head[from]; k >= 0; k = c->vt_next[k])
    if (c->vt_perm[k] == perm) return c->ix.n_slots + k;
  if (!create) return -2;
  if (c->n_vt == c->cap_vt) {   /* four arrays of one capacity */
    void *au = c->p->arena.alloc_user;
    int64_t c1 = c->cap_vt, c2 = c->cap_vt, c3 = c->cap_vt, c4 = c->cap_vt;
    if (!ti__grow(au, &c->vt_from, sizeof *c->vt_from, &c1, c->n_vt + 1, 64, INT64_MAX) ||
        !ti__grow(au, &c->vt_next, sizeof *c->vt_next, &c2, c->n_vt + 1, 64, INT64_MAX) ||
        !ti__grow(au, &c->vt_perm, sizeof *c->vt_perm, &c3, c->n_vt + 1, 64, INT64_MAX) ||
        !ti__grow(au, &c->vt_lay, sizeof *c->vt_lay, &c4, c->n_vt + 1, 64, INT64_MAX))
      return -1;
    c->cap_vt = c1;
  }
  k = c->n_vt++;
  c->vt_from[k] = from; c->vt_perm[k] = (unsigned char)perm; c->vt_lay[k] = (unsigned char)lay;
  c->vt_next[k] = c->head[from]; c->head[from] = k;
  return c->ix.n_slots + k;
}

/* The vid holding value `vid` in layout `to`, reading it through use `u`.
   Composes with the transpose that made vid (ours, or an existing one whose
   only reader is u), cancels inverse pairs, shares equal transposes.
   create 0: only asks whether that is free (returns -2 if not). */
static int64_t ti__lp_get(ti__lp *c, int64_t vid, ti_layout to, int create) {
  ti_layout cur = ti__lp_lay(c, vid);
  int q;
  int64_t ns = c->ix.n_slots;
  if (cur == to) return vid;
  q = ti__perm_between(cur, to);
  if (q < 0) return -3;
  if (vid >= ns) {                      /* ours: compose from its source */
    int64_t k = vid - ns;
    vid = c->vt_from[k];
    q = ti__perm_compose(c->vt_perm[k], q);
  } else if (c->istr[vid]) {
    ti_value *v = c->ix.val[vid];
    int64_t d = v->def->order;
    if (!c->tgone[d]) {
      int64_t x = c->src[c->ix.ustart[d]];
      int qq = ti__perm_compose(c->tperm[d], q);
      if (qq == TI__PERM_ID && ti__lp_lay(c, x) == to) {
        if (create && c->nuses[vid] == 1) { c->tgone[d] = 1; c->removed++; c->alias[vid] = x; }
        return x;
      }
      if (c->nuses[vid] == 1) {         /* fold into it: its only reader is u */
        if (create) {
          c->tperm[d] = (unsigned char)qq;
          c->cl[vid] = (unsigned char)to;
        }
        return vid;
      }
      vid = x; q = qq;
    }
  }
  if (q == TI__PERM_ID && ti__lp_lay(c, vid) == to) return vid;
  return ti__lp_vt(c, vid, q, to, create);
}

/* Free-op choice of the greedy strategies: 1 to compute in NPU layouts. */
static int ti__lp_choose(ti__lp *c, int64_t k, int strategy) {
  ti_op *op = c->ix.ops[k];
  int32_t i, n = (int32_t)(c->ix.ustart[k + 1] - c->ix.ustart[k]);
  int changed = 0, cost0 = 0, cost1 = 0, bad_est = 0;
  if (c->opt && c->opt->choose) {
    int r = c->opt->choose(c->opt->choose_user, op);
    if (r == 0 || r == 1) return r;
  }
  if (strategy == 2) return 0;
  for (i = 0; i < n; i++) {
    int64_t u = c->ix.ustart[k] + i, sl = c->ix.uslot[u];
    if (c->cnn[sl] && ti__lp_lay(c, c->src[u]) != (ti_layout)c->ol[sl]) {
      changed = 1;
      if (c->est[sl] >= 2) bad_est = 1;
    }
  }
  if (!changed) {
    /* start a change only towards a demanding op, and only when it is free:
       every operand already exists in NPU layout (a sibling demanding op
       asked for it) */
    int free1 = (int32_t)(c->ix.base[k + 1] - c->ix.base[k]) > 0 && c->want[c->ix.base[k]], any = 0;
    for (i = 0; free1 && i < n; i++) {
      int64_t u = c->ix.ustart[k] + i, sl = c->ix.uslot[u];
      ti_layout o = (ti_layout)c->ol[sl];
      if (!c->cnn[sl] || ti_layout_npu(o) == o) continue;
      any = 1;
      if (ti__lp_get(c, c->src[u], ti_layout_npu(o), 0) < 0) free1 = 0;
    }
    return free1 && any;
  }
  for (i = 0; i < n; i++) {
    int64_t u = c->ix.ustart[k] + i, sl = c->ix.uslot[u], v = c->src[u];
    ti_layout cur, o;
    if (!c->cnn[sl]) continue;
    cur = ti__lp_lay(c, v); o = (ti_layout)c->ol[sl];
    if (cur != o && ti__lp_get(c, v, o, 0) < 0) cost0++;
    if (cur != ti_layout_npu(o) && ti__lp_get(c, v, ti_layout_npu(o), 0) < 0) cost1++;
  }
  c->last_bad = bad_est;
  if (strategy == 1 && bad_est) return 0;
  if (cost1 != cost0) return cost1 < cost0;
  return (int32_t)(c->ix.base[k + 1] - c->ix.base[k]) > 0 && c->want[c->ix.base[k]];
}

/* One strategy over the whole program, on the arrays only. */
static ti_status ti__lp_decide(ti__lp *c, int strategy, ti_error *err) {
  const ti__lay_index *ix = &c->ix;
  int64_t k;
  int32_t i;
  ti__lp_reset(c);
  for (k = 0; k < ix->n_ops; k++) {
    ti_op *op = ix->ops[k];
    int kd = c->kind[k], differs = 0, mode = 0;
    int64_t u0 = ix->ustart[k];
    if (kd == TI__LP_SKIP) continue;
    /* operands as they arrive (a cancelled transpose stands for its input) */
    for (i = 0; i < (int32_t)(ix->ustart[k + 1] - ix->ustart[k]); i++) {
      int64_t sl = ix->uslot[u0 + i];
      if (c->alias[sl] >= 0) c->src[u0 + i] = c->alias[sl];
    }
    if (kd == TI__LP_TRANSPOSE) {
      /* absorb a layout change of the input: the output stays as it was */
      int64_t x = c->src[u0], sl = ix->uslot[u0], r = ix->base[k];
      ti_layout cur = ti__lp_lay(c, x);
      if (cur != (ti_layout)c->ol[sl]) {
        int q = ti__perm_between(cur, (ti_layout)c->ol[sl]);
        if (q < 0) return ti_error_set(err, TI_STATUS_INVALID, "layout-preset-npu: bad layout reaching '%s'", ti__lay_opname(op));
        c->tperm[k] = (unsigned char)ti__perm_compose(q, c->tperm[k]);
        if (c->tperm[k] == TI__PERM_ID && cur == (ti_layout)c->ol[r]) {
          c->tgone[k] = 1; c->removed++; c->alias[r] = x;
        }
      }
      continue;
    }
    if (kd == TI__LP_FREE) { c->last_bad = 0; mode = ti__lp_choose(c, k, strategy); }
    for (;;) {
      int fwd = 0;
      for (i = 0; i < (int32_t)(ix->ustart[k + 1] - ix->ustart[k]); i++) {
        int64_t sl = ix->uslot[u0 + i];
        ti_layout o = (ti_layout)c->ol[sl];
        c->lin[i] = ti__lp_lay(c, c->src[u0 + i]);
        c->ltgt[i] = !c->cnn[sl] ? c->lin[i] : (kd == TI__LP_DEMAND || mode) ? ti_layout_npu(o) : o;
        if (c->ltgt[i] != o) differs = 1;
      }
      if (!differs) break;
      /* the operands' target layouts only depend on the op (all NPU), so
         the answer is kept for the other strategies */
      if (c->fst[k] == 0) {
        for (i = 0; i < (int32_t)(ix->base[k + 1] - ix->base[k]); i++) c->lout[i] = TI_LAYOUT_ANY;
        if (op->info->layout && op->info->layout->forward &&
            op->info->layout->forward(op, c->ltgt, c->lout) == TI_STATUS_SUCCESS) {
          fwd = 1;
          for (i = 0; i < (int32_t)(ix->base[k + 1] - ix->base[k]); i++) {
            int64_t r = ix->base[k] + i;
            ti_layout l = c->lout[i];
            /* a 4-D result must stay 4-D (a CNN layout), anything else unchanged */
            if (c->cnn[r] ? ti__lay_letters(l) == NULL : (l != TI_LAYOUT_ANY && l != (ti_layout)c->ol[r])) fwd = 0;
            c->fres[r] = (unsigned char)l;
          }
        }
        c->fst[k] = (unsigned char)(fwd ? 1 : 2);
      }
      fwd = c->fst[k] == 1;
      for (i = 0; fwd && i < (int32_t)(ix->base[k + 1] - ix->base[k]); i++) c->lout[i] = (ti_layout)c->fres[ix->base[k] + i];
      if (fwd) break;
      if (kd == TI__LP_DEMAND)
        return ti_error_set(err, TI_STATUS_NOT_SUPPORTED,
                            "layout-preset-npu: op '%s' demands NHWC/HWOI but its layout interface rejects them",
                            ti__lay_opname(op));
      if (!mode) return ti_error_set(err, TI_STATUS_INVALID, "layout-preset-npu: op '%s' rejects its own layouts",
                                     ti__lay_opname(op));
      mode = 0; differs = 0;   /* cannot compute in NPU layouts: stay as it was */
    }
    for (i = 0; i < (int32_t)(ix->ustart[k + 1] - ix->ustart[k]); i++) {
      int64_t u = u0 + i, v;
      if (c->ltgt[i] == c->lin[i]) continue;
      v = ti__lp_get(c, c->src[u], c->ltgt[i], 1);
      if (v == -1) return ti_error_set(err, TI_STATUS_NO_MEMORY, "layout-preset-npu: out of memory");
      if (v < 0) return ti_error_set(err, TI_STATUS_INVALID, "layout-preset-npu: cannot transpose operand %d of '%s'",
                                     (int)i, ti__lay_opname(op));
      c->src[u] = v;
    }
    if (mode) { c->n_up++; c->n_badup += c->last_bad; }
    for (i = 0; i < (int32_t)(ix->base[k + 1] - ix->base[k]); i++) {
      int64_t r = ix->base[k] + i;
      c->cl[r] = differs && c->cnn[r] ? (unsigned char)c->lout[i] : c->ol[r];
    }
  }
  for (k = 0; k < ix->n_ops; k++)
    c->folded += c->kind[k] == TI__LP_TRANSPOSE && !c->tgone[k] && c->tperm[k] != c->tperm0[k];
  return TI_STATUS_SUCCESS;
}

/* A transpose is a copy: with ops writing `tensor` values in place, a copy
   or a changed layout of such a value could miss (or see) a write. Those
   programs are refused unless nothing `tensor` is touched. */
static ti_status ti__lp_check_aliasing(const ti__lp *c, ti_error *err) {
  int64_t s, k;
  const ti__lay_index *ix = &c->ix;
  if (!c->inplace) return TI_STATUS_SUCCESS;
  for (s = 0; s < ix->n_slots; s++)
    if (ix->val[s]->type && ix->val[s]->type->kind == TI_TYPE_TENSOR && c->cl[s] != c->ol[s]) goto refuse;
  for (k = 0; k < c->n_vt; k++)
    if (ix->val[c->vt_from[k]]->type->kind == TI_TYPE_TENSOR) goto refuse;
  for (k = 0; k < ix->n_ops; k++)
    if (c->kind[k] == TI__LP_TRANSPOSE && (c->tgone[k] || c->tperm[k] != c->tperm0[k]) &&
        ix->ops[k]->operands[0].value->type->kind == TI_TYPE_TENSOR)
      goto refuse;
  return TI_STATUS_SUCCESS;
refuse:
  return ti_error_set(err, TI_STATUS_NOT_SUPPORTED,
                      "layout-preset-npu: '%s' writes a tensor in place and a transpose would copy a tensor; "
                      "run inplace-to-outofplace (or maximize value semantics) first", ti__lay_opname(c->inplace));
}

/* What ti__lp_apply reads of one strategy's decisions. */
typedef struct ti__lp_snap {
  unsigned char *cl, *tperm, *tgone, *vt_perm, *vt_lay;
  int64_t *src, *vt_from;
  int64_t n_vt, removed, folded;
  int ok;
} ti__lp_snap;

static void ti__lp_snap_free(ti__lp *c, ti__lp_snap *s) {
  ti_program *p = c->p;
  ti__lay_free(p, s->cl); ti__lay_free(p, s->tperm); ti__lay_free(p, s->tgone); ti__lay_free(p, s->vt_perm);
  ti__lay_free(p, s->vt_lay); ti__lay_free(p, s->src); ti__lay_free(p, s->vt_from);
  memset(s, 0, sizeof *s);
}

static void ti__lp_save(ti__lp *c, ti__lp_snap *s) {
  ti_program *p = c->p;
  size_t ns = (size_t)c->ix.n_slots + 1, nu = (size_t)c->ix.n_uses + 1, no = (size_t)c->ix.n_ops + 1;
  size_t nv = (size_t)c->n_vt + 1;
  s->cl = (unsigned char *)ti__lay_alloc(p, ns, 1, 0);
  s->tperm = (unsigned char *)ti__lay_alloc(p, no, 1, 0);
  s->tgone = (unsigned char *)ti__lay_alloc(p, no, 1, 0);
  s->src = (int64_t *)ti__lay_alloc(p, nu, sizeof(int64_t), 0);
  s->vt_perm = (unsigned char *)ti__lay_alloc(p, nv, 1, 0);
  s->vt_lay = (unsigned char *)ti__lay_alloc(p, nv, 1, 0);
  s->vt_from = (int64_t *)ti__lay_alloc(p, nv, sizeof(int64_t), 0);
  if (!s->cl || !s->tperm || !s->tgone || !s->src || !s->vt_perm || !s->vt_lay || !s->vt_from) {
    ti__lp_snap_free(c, s);   /* no snapshot: the strategy is decided again */
    return;
  }
  memcpy(s->cl, c->cl, ns - 1); memcpy(s->tperm, c->tperm, no - 1); memcpy(s->tgone, c->tgone, no - 1);
  memcpy(s->src, c->src, (nu - 1) * sizeof(int64_t));
  if (c->n_vt) {
    memcpy(s->vt_perm, c->vt_perm, nv - 1); memcpy(s->vt_lay, c->vt_lay, nv - 1);
    memcpy(s->vt_from, c->vt_from, (nv - 1) * sizeof(int64_t));
  }
  s->n_vt = c->n_vt; s->removed = c->removed; s->folded = c->folded;
  s->ok = 1;
}

/* the vt arrays only grow, so they hold the saved count */
static void ti__lp_restore(ti__lp *c, const ti__lp_snap *s) {
  size_t ns = (size_t)c->ix.n_slots, nu = (size_t)c->ix.n_uses, no = (size_t)c->ix.n_ops, nv = (size_t)s->n_vt;
  memcpy(c->cl, s->cl, ns); memcpy(c->tperm, s->tperm, no); memcpy(c->tgone, s->tgone, no);
  memcpy(c->src, s->src, nu * sizeof(int64_t));
  if (nv) {
    memcpy(c->vt_perm, s->vt_perm, nv); memcpy(c->vt_lay, s->vt_lay, nv);
    memcpy(c->vt_from, s->vt_from, nv * sizeof(int64_t));
  }
  c->n_vt = s->n_vt; c->removed = s->removed; c->folded = s->folded;
}

static const ti_type *ti__lp_permuted(ti_context *ctx, const ti_type *t, int perm, ti_layout lay) {
  int64_t d[TI_MAX_RANK];
  int i;
  if (!t || t->rank != 4) return NULL;
  for (i = 0; i < 4; i++) d[i] = t->dims[ti__perm_at(perm, i)];
  return ti_type_get(ctx, t->kind, t->dtype, 4, d, lay);
}

static ti_value *ti__lp_value(ti__lp *c, ti_value **vtval, int64_t vid) {
  return vid < c->ix.n_slots ? c->ix.val[vid] : vtval[vid - c->ix.n_slots];
}

/* Edits the program as decided. Everything that can fail (types, the
   transpose op) is prepared before the first edit. */
static ti_status ti__lp_apply(ti__lp *c, ti_error *err) {
  ti__lay_index *ix = &c->ix;
  ti_program *p = c->p;
  ti_context *ctx = p->ctx;
  const ti_type **ntype = NULL, **vtype = NULL;
  ti_value **vtval = NULL;
  ti_op **vtop = NULL;
  int64_t *chg = NULL, n_chg = 0;
  ti_status st = TI_STATUS_SUCCESS;
  int64_t s, k, u;
  if (c->n_vt > 0 && !c->tinfo)
    return ti_error_set(err, TI_STATUS_NOT_FOUND, "layout-preset-npu: transpose op '%s' is not registered",
                        c->opt && c->opt->transpose_op ? c->opt->transpose_op : "nn.transpose");
  for (s = 0; s < ix->n_slots; s++) n_chg += c->cl[s] != c->ol[s];
  chg = (int64_t *)ti__lay_alloc(p, (size_t)n_chg + 1, sizeof(int64_t), 0);
  ntype = (const ti_type **)ti__lay_alloc(p, (size_t)n_chg + 1, sizeof(ti_type *), 0);
  vtype = (const ti_type **)ti__lay_alloc(p, (size_t)c->n_vt + 1, sizeof(ti_type *), 0);
  vtval = (ti_value **)ti__lay_alloc(p, (size_t)c->n_vt + 1, sizeof(ti_value *), 1);
  vtop = (ti_op **)ti__lay_alloc(p, (size_t)c->n_vt + 1, sizeof(ti_op *), 1);
  if (!chg || !ntype || !vtype || !vtval || !vtop) { st = TI_STATUS_NO_MEMORY; goto fail; }
  /* new result types: same tensor, other memory order */
  for (n_chg = 0, s = 0; s < ix->n_slots; s++) {
    const ti_type *t = ix->val[s]->type;
    if (c->cl[s] == c->ol[s]) continue;
    chg[n_chg] = s;
    if (c->cnn[s]) ntype[n_chg] = ti__lp_permuted(ctx, t, ti__perm_between((ti_layout)c->ol[s], (ti_layout)c->cl[s]),
                                                  (ti_layout)c->cl[s]);
    else ntype[n_chg] = ti_type_with_layout(ctx, t, (ti_layout)c->cl[s]);
    if (!ntype[n_chg++]) { st = TI_STATUS_NO_MEMORY; goto fail; }
  }
  for (k = 0; k < c->n_vt; k++) {
    int64_t f = c->vt_from[k];   /* always a program value: we compose, never stack */
    const ti_type *ft;
    if (f >= ix->n_slots) { st = TI_STATUS_INVALID; goto fail; }
    ft = ix->val[f]->type;
    if (c->cl[f] != c->ol[f])
      ft = ti__lp_permuted(ctx, ft, ti__perm_between((ti_layout)c->ol[f], (ti_layout)c->cl[f]), (ti_layout)c->cl[f]);
    vtype[k] = ti__lp_permuted(ctx, ft, c->vt_perm[k], (ti_layout)c->vt_lay[k]);
    if (!vtype[k]) { st = TI_STATUS_NO_MEMORY; goto fail; }
  }
  for (k = 0; k < c->n_vt; k++) {
    int64_t perm[4];
    int i;
    const ti_attr *attrs;
    for (i = 0; i < 4; i++) perm[i] = ti__perm_at(c->vt_perm[k], i);
    attrs = ti_attr_dict(ctx, NULL, 0);
    attrs = attrs ? ti_dict_set(ctx, attrs, "perm", ti_attr_int_array(ctx, perm, 4)) : NULL;
    if (!attrs) { st = TI_STATUS_NO_MEMORY; goto fail; }
    vtop[k] = ti_op_create(p, c->tinfo->name, 1, &ix->val[c->vt_from[k]], 1, &vtype[k], attrs, err);
    if (!vtop[k]) { st = err && err->status ? err->status : TI_STATUS_NO_MEMORY; goto fail; }
    vtval[k] = &vtop[k]->results[0];
  }
  /* edits (cannot fail from here on) */
  for (k = 0; k < n_chg; k++) ix->val[chg[k]]->type = ntype[k];
  for (k = 0; k < ix->n_ops; k++) {
    if (c->kind[k] == TI__LP_TRANSPOSE && !c->tgone[k] && c->tperm[k] != c->tperm0[k]) {
      int64_t perm[4];
      int i;
      for (i = 0; i < 4; i++) perm[i] = ti__perm_at(c->tperm[k], i);
      ti_op_set_attr(ix->ops[k], "perm", ti_attr_int_array(ctx, perm, 4));
    }
  }
  for (k = 0; k < c->n_vt; k++) {
    ti_value *from = ix->val[c->vt_from[k]];
    if (from->def) ti_op_insert_after(vtop[k], from->def);
    else ti_op_insert_after(vtop[k], NULL);
  }
  for (k = 0; k < ix->n_ops; k++) {
    ti_op *op = ix->ops[k];
    int32_t i;
    for (i = 0; i < (int32_t)(ix->ustart[k + 1] - ix->ustart[k]); i++) {
      u = ix->ustart[k] + i;
      if (c->src[u] != ix->uslot[u]) ti_op_set_operand(op, i, ti__lp_value(c, vtval, c->src[u]));
    }
  }
  for (k = ix->n_ops - 1; k >= 0; k--)
    if (c->kind[k] == TI__LP_TRANSPOSE && c->tgone[k]) {
      st = ti_op_erase(ix->ops[k], err);
      if (st != TI_STATUS_SUCCESS) goto done;
    }
  goto done;
fail:
  if (vtop)
    for (k = 0; k < c->n_vt; k++)
      if (vtop[k]) (void)!ti_op_erase(vtop[k], NULL);   /* best effort: st below is the error */
  if (st == TI_STATUS_NO_MEMORY) ti_error_set(err, st, "layout-preset-npu: out of memory");
  else ti_error_set(err, st, "layout-preset-npu: internal inconsistency");
done:
  ti__lay_free(p, chg); ti__lay_free(p, (void *)ntype); ti__lay_free(p, (void *)vtype); ti__lay_free(p, vtval); ti__lay_free(p, vtop);
  return st;
}

TASKIR_API ti_status ti_layout_preset_npu(ti_program *p, const ti_layout_options *opt, ti_layout_stats *stats,
                                          ti_error *err) {
  ti_error_clear(err);
  ti__lp c;
  ti_status st;
  ti__lp_snap snap;
  int strat, best = -1, n_strat, last = -1, up[2] = {1, 1}, badup0 = 0;
  int64_t best_cost = 0, best_ins = 0;
  memset(&snap, 0, sizeof snap);
  if (stats) memset(stats, 0, sizeof *stats);
  if (!p) return ti_error_set(err, TI_STATUS_BAD_PARAM, "layout-preset-npu: no program");
  st = ti__lp_init(&c, p, opt, err);
  if (st != TI_STATUS_SUCCESS) { ti__lp_free(&c); return st; }
  n_strat = opt && opt->choose ? 1 : 3;
  for (strat = 0; strat < n_strat; strat++) {
    int64_t cost;
    /* a strategy that would decide exactly as the ones run before is skipped:
       1 differs from 0 only where 0 took an NPU layout despite a bad
       estimate, 2 only where 0 (and 1) took one at all */
    if (strat == 1 && !badup0) { up[1] = up[0]; continue; }
    if (strat == 2 && (!up[0] || !up[1])) continue;
    st = ti__lp_decide(&c, strat, err);
    if (st != TI_STATUS_SUCCESS) goto done;
    last = strat;
    if (strat < 2) up[strat] = c.n_up > 0;
    if (strat == 0) badup0 = c.n_badup > 0;
    /* keep the greedy's decisions if another strategy follows: copying
       arrays is cheaper than deciding again */
    if (strat == 0 && n_strat > 1 && (badup0 || up[0])) ti__lp_save(&c, &snap);
    /* fewest transposes in the end, then fewest created; never more created
       than the naive baseline (strategy 2 guarantees one candidate) */
    cost = c.n_vt - c.removed;
    if (n_strat > 1 && c.n_vt > c.naive) continue;
    if (best < 0 || cost < best_cost || (cost == best_cost && c.n_vt < best_ins)) {
      best = strat; best_cost = cost; best_ins = c.n_vt;
    }
  }
  if (best < 0) best = n_strat - 1;
  if (best == 0 && last != 0 && snap.ok) ti__lp_restore(&c, &snap);
  else if (best != last) {
    st = ti__lp_decide(&c, best, err);
    if (st != TI_STATUS_SUCCESS) goto done;
  }
  st = ti__lp_check_aliasing(&c, err);
  if (st != TI_STATUS_SUCCESS) goto done;
  if (stats) {
    stats->inserted = c.n_vt; stats->removed = c.removed; stats->folded = c.folded;
    stats->naive = c.naive; stats->strategy = opt && opt->choose ? 3 : best;
  }
  if (!(opt && opt->dry_run)) st = ti__lp_apply(&c, err);
done:
  ti__lp_snap_free(&c, &snap);
  ti__lp_free(&c);
  return st;
}

/* >>impl.layout.passes ----------------------------------------------------- */

TASKIR_API ti_status ti_layout_transmit_pass(ti_program *p, void *user, ti_error *err) {
  ti_error_clear(err);
  return ti_layout_transmit(p, (const ti_layout_options *)user, err);
}

TASKIR_API ti_status ti_layout_preset_npu_pass(ti_program *p, void *user, ti_error *err) {
  ti_error_clear(err);
  const ti_layout_options *o = (const ti_layout_options *)user;
  ti_layout_stats st;
  ti_status s = ti_layout_preset_npu(p, o, &st, err);
  if (s == TI_STATUS_SUCCESS && o && o->stats) {
    o->stats->inserted += st.inserted; o->stats->removed += st.removed; o->stats->folded += st.folded;
    o->stats->naive += st.naive; o->stats->strategy = st.strategy;
  }
  return s;
}

TASKIR_API ti_status ti_layout_add_passes(ti_pass_manager *pm, ti_layout_options *opt) {
  ti_status s = ti_pass_manager_add(pm, "layout-transmit", ti_layout_transmit_pass, opt);
  return s != TI_STATUS_SUCCESS ? s : ti_pass_manager_add(pm, "layout-preset-npu", ti_layout_preset_npu_pass, opt);
}

TASKIR_API ti_status ti_layout_run(ti_program *p, int transmit, int npu, const ti_layout_options *opt,
                                   ti_layout_stats *stats, ti_error *err) {
  ti_error_clear(err);
  ti_status s = TI_STATUS_SUCCESS;
  if (stats) memset(stats, 0, sizeof *stats);
  if (transmit) s = ti_layout_transmit(p, opt, err);
  if (s == TI_STATUS_SUCCESS && npu) s = ti_layout_preset_npu(p, opt, stats, err);
  if (s == TI_STATUS_SUCCESS) s = ti_verify(p, err);
  return s;
}

#undef TI__PERM_ID
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
