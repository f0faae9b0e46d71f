/* A synthetic Task IR graph for the protobuf benchmarks: a ResNet-like chain
   of 3x3 conv layers (SI/SIC -> CC -> SIC, weights in SW as int8, biases in
   SB as int32), sized to about target_bytes once encoded. Deterministic. */
#ifndef TASKIR_PROTO_SYNTH_H
#define TASKIR_PROTO_SYNTH_H
#include "taskir_proto.h"

static uint64_t synth_next(uint64_t *s) {
  *s ^= *s >> 12; *s ^= *s << 25; *s ^= *s >> 27;
  return *s * 2685821657736338717ULL;
}

static ti_task_block *synth_block(ti_task_graph *g, int id, ti_block_type type, ti_dtype prec) {
  ti_task_block *b = &g->blocks[g->n_blocks++];
  b->has = TI_BLOCK_HAS_ID | TI_BLOCK_HAS_TYPE | TI_BLOCK_HAS_PRECISION | TI_BLOCK_HAS_SHAPE;
  b->id = id;
  b->type = type;
  b->precision = prec;
  b->bias_type = TI_BIAS_VECTOR;
  return b;
}

static void synth_cluster(ti_task_graph *g, ti_task_cluster **cl, int32_t *n, int edge_id) {
  *cl = (ti_task_cluster *)ti_arena_alloc(&g->arena, sizeof(ti_task_cluster), 8);
  *n = 1;
  (*cl)->n_interfaces = 1;
  (*cl)->interfaces = (ti_task_interface *)ti_arena_alloc(&g->arena, sizeof(ti_task_interface), 8);
  (*cl)->interfaces[0].has = TI_IFACE_HAS_EDGE_ID;
  (*cl)->interfaces[0].edge_id = edge_id;
}

static void synth_edge(ti_task_graph *g, int id, int src, int dst) {
  ti_task_edge *e = &g->edges[g->n_edges++];
  e->has = TI_EDGE_HAS_ID | TI_EDGE_HAS_SRC | TI_EDGE_HAS_DST;
  e->id = id;
  e->src_block_id = src;
  e->dst_block_id = dst;
}

/* Each layer: about 256*256*9 int8 weights at ~5.5 wire bytes each. */
static void synth_resnet(ti_task_graph *g, size_t target_bytes) {
  const int C = 256, H = 16, K = 3;
  int layers = (int)(target_bytes / ((size_t)C * C * K * K * 11 / 2)) + 1, l, i, eid = 0;
  uint64_t rng = 0x5EED;
  ti_task_graph_init(g, NULL);
  g->blocks = (ti_task_block *)ti_arena_array(&g->arena, (size_t)layers * 4 + 1, sizeof(ti_task_block), 8);
  g->edges = (ti_task_edge *)ti_arena_array(&g->arena, (size_t)layers * 4 + 1, sizeof(ti_task_edge), 8);
  {
    ti_task_block *in = synth_block(g, 0, TI_BLOCK_SIC, TI_DTYPE_I8);
    in->shape.has = TI_SHAPE_HAS_NX | TI_SHAPE_HAS_NY | TI_SHAPE_HAS_NR;
    in->shape.nx = H; in->shape.ny = H; in->shape.nr = C;
    in->has |= TI_BLOCK_HAS_DATA;
    in->data.has = TI_TENSOR_HAS_PRECISION;
    in->data.precision = TI_DTYPE_I8;
    in->data.n_dims = 3;
    in->data.dims = (int32_t *)ti_arena_array(&g->arena, 3, 4, 4);
    in->data.dims[0] = H; in->data.dims[1] = H; in->data.dims[2] = C;
    in->data.int32_data.storage = TI_DTYPE_I8;
    in->data.int32_data.count = (int64_t)H * H * C;
    in->data.int32_data.data = ti_arena_array(&g->arena, (size_t)H * H * C, 1, 4);
    for (i = 0; i < H * H * C; i++) ((int8_t *)in->data.int32_data.data)[i] = (int8_t)(synth_next(&rng) >> 57);
    synth_cluster(g, &in->outputs, &in->n_outputs, eid);
  }
  for (l = 0; l < layers; l++) {
    int base = 1 + 4 * l, src = l == 0 ? 0 : base - 1;
    ti_task_block *w = synth_block(g, base, TI_BLOCK_SW, TI_DTYPE_I8);
    ti_task_block *bi = synth_block(g, base + 1, TI_BLOCK_SB, TI_DTYPE_I32);
    ti_task_block *cc = synth_block(g, base + 2, TI_BLOCK_CC, TI_DTYPE_I32);
    ti_task_block *out = synth_block(g, base + 3, TI_BLOCK_SIC, TI_DTYPE_I32);
    int n = C * C * K * K;
    w->shape.has = TI_SHAPE_HAS_NF | TI_SHAPE_HAS_NR | TI_SHAPE_HAS_NKX | TI_SHAPE_HAS_NKY;
    w->shape.nf = C; w->shape.nr = C; w->shape.nkx = K; w->shape.nky = K;
    w->has |= TI_BLOCK_HAS_DATA;
    w->data.has = TI_TENSOR_HAS_PRECISION;
    w->data.precision = TI_DTYPE_I8;
    w->data.n_dims = 4;
    w->data.dims = (int32_t *)ti_arena_array(&g->arena, 4, 4, 4);
    w->data.dims[0] = C; w->data.dims[1] = C; w->data.dims[2] = K; w->data.dims[3] = K;
    w->data.int32_data.storage = TI_DTYPE_I8;
    w->data.int32_data.count = n;
    w->data.int32_data.data = ti_arena_array(&g->arena, (size_t)n, 1, 4);
    for (i = 0; i < n; i++) {   /* roughly bell-shaped around 0, both signs */
      uint64_t r = synth_next(&rng);
      ((int8_t *)w->data.int32_data.data)[i] = (int8_t)(((int)(r & 127) + (int)((r >> 8) & 127) - 127) / 2);
    }
    bi->shape.has = TI_SHAPE_HAS_NF;
    bi->shape.nf = C;
    bi->has |= TI_BLOCK_HAS_DATA;
    bi->data.has = TI_TENSOR_HAS_PRECISION;
    bi->data.precision = TI_DTYPE_I32;
    bi->data.n_dims = 1;
    bi->data.dims = (int32_t *)ti_arena_array(&g->arena, 1, 4, 4);
    bi->data.dims[0] = C;
    bi->data.int32_data.storage = TI_DTYPE_I32;
    bi->data.int32_data.count = C;
    bi->data.int32_data.data = ti_arena_array(&g->arena, (size_t)C, 4, 4);
    for (i = 0; i < C; i++) ((int32_t *)bi->data.int32_data.data)[i] = (int32_t)(synth_next(&rng) % 2000001) - 1000000;
    cc->shape.has = TI_SHAPE_HAS_NX | TI_SHAPE_HAS_NY | TI_SHAPE_HAS_NF | TI_SHAPE_HAS_NR | TI_SHAPE_HAS_NKX | TI_SHAPE_HAS_NKY;
    cc->shape.nx = H; cc->shape.ny = H; cc->shape.nf = C; cc->shape.nr = C; cc->shape.nkx = K; cc->shape.nky = K;
    cc->has |= TI_BLOCK_HAS_BIAS_TYPE;
    cc->n_attrs = 4;
    cc->attrs = (ti_task_attr *)ti_arena_array(&g->arena, 4, sizeof(ti_task_attr), 8);
    for (i = 0; i < 4; i++) {
      cc->attrs[i].has = TI_TATTR_HAS_TYPE | TI_TATTR_HAS_INT;
      cc->attrs[i].type = i == 0 ? TI_TASK_ATTR_KERNEL_X : i == 1 ? TI_TASK_ATTR_KERNEL_Y : i == 2 ? TI_TASK_ATTR_PAD_UP : TI_TASK_ATTR_PAD_DOWN;
      cc->attrs[i].int_value = i < 2 ? K : 1;
    }
    cc->n_inputs = 3;
    cc->inputs = (ti_task_cluster *)ti_arena_array(&g->arena, 3, sizeof(ti_task_cluster), 8);
    for (i = 0; i < 3; i++) {
      cc->inputs[i].n_interfaces = 1;
      cc->inputs[i].interfaces = (ti_task_interface *)ti_arena_alloc(&g->arena, sizeof(ti_task_interface), 8);
      cc->inputs[i].interfaces[0].has = TI_IFACE_HAS_EDGE_ID;
      cc->inputs[i].interfaces[0].edge_id = eid + i;
    }
    synth_cluster(g, &w->outputs, &w->n_outputs, eid + 1);
    synth_cluster(g, &bi->outputs, &bi->n_outputs, eid + 2);
    synth_cluster(g, &cc->outputs, &cc->n_outputs, eid + 3);
    synth_cluster(g, &out->inputs, &out->n_inputs, eid + 3);
    synth_cluster(g, &out->outputs, &out->n_outputs, eid + 4);
    out->shape.has = TI_SHAPE_HAS_NX | TI_SHAPE_HAS_NY | TI_SHAPE_HAS_NR;
    out->shape.nx = H; out->shape.ny = H; out->shape.nr = C;
    synth_edge(g, eid, src, base + 2);
    synth_edge(g, eid + 1, base, base + 2);
    synth_edge(g, eid + 2, base + 1, base + 2);
    synth_edge(g, eid + 3, base + 2, base + 3);
    eid += 4;
  }
}

/* Bytes of tensor data at natural width (the precision's element size). */
static size_t synth_data_bytes(const ti_task_graph *g) {
  size_t s = 0;
  int i;
  for (i = 0; i < g->n_blocks; i++) {
    const ti_task_tensor *t = &g->blocks[i].data;
    size_t es = (t->has & TI_TENSOR_HAS_PRECISION) ? ti_dtype_size(t->precision) : 4;
    s += (size_t)(t->int32_data.count + t->uint32_data.count) * es + (size_t)t->float_data.count * 4;
  }
  return s;
}
#endif
