/* tests/onnx_write.h - a small onnx.ModelProto writer (messages as nested
   buffers) on the wire layer of taskir_proto.h: the test models of
   test_onnx.c and the onnxruntime twins of bench_exec.c. Include after
   taskir_proto.h. */
#ifndef TT_ONNX_WRITE_H
#define TT_ONNX_WRITE_H
#include <string.h>

static inline void w_len(ti_buffer *b, uint32_t field, const void *d, size_t n) {
  ti_pb_write_tag(b, field, TI_PB_LEN);
  ti_pb_write_varint(b, n);
  ti_buffer_append(b, d, n);
}
static inline void w_str(ti_buffer *b, uint32_t field, const char *s) { w_len(b, field, s, strlen(s)); }
static inline void w_msg(ti_buffer *b, uint32_t field, ti_buffer *m) { w_len(b, field, m->data, m->len); ti_buffer_free(m); ti_buffer_init(m, NULL); }
static inline void w_int(ti_buffer *b, uint32_t field, int64_t v) { ti_pb_write_tag(b, field, TI_PB_VARINT); ti_pb_write_varint(b, (uint64_t)v); }

/* TensorProto of floats: raw (raw_data) or typed (packed float_data). */
static inline void w_tensor_f(ti_buffer *b, const char *name, int rank, const int64_t *dims, const float *v, int raw) {
  int64_t n = 1;
  int i;
  for (i = 0; i < rank; i++) { w_int(b, 1, dims[i]); n *= dims[i]; }
  w_int(b, 2, TI_ONNX_FLOAT);
  w_str(b, 8, name);
  if (raw) w_len(b, 9, v, (size_t)n * 4);
  else {
    ti_buffer p;
    ti_buffer_init(&p, NULL);
    for (i = 0; i < n; i++) { uint32_t u; memcpy(&u, &v[i], 4); ti_pb_write_fixed32(&p, u); }
    w_msg(b, 4, &p);
  }
}
/* ValueInfoProto: float tensor; dims < 0 are symbolic "N". */
static inline void w_vi(ti_buffer *b, const char *name, int rank, const int64_t *dims) {
  ti_buffer tt_, tensor, shape, dim;
  int i;
  ti_buffer_init(&tt_, NULL); ti_buffer_init(&tensor, NULL); ti_buffer_init(&shape, NULL); ti_buffer_init(&dim, NULL);
  for (i = 0; i < rank; i++) {
    if (dims[i] >= 0) w_int(&dim, 1, dims[i]); else w_str(&dim, 2, "N");
    w_msg(&shape, 1, &dim);
  }
  w_int(&tensor, 1, TI_ONNX_FLOAT);
  w_msg(&tensor, 2, &shape);
  w_msg(&tt_, 1, &tensor);
  w_str(b, 1, name);
  w_msg(b, 2, &tt_);
  ti_buffer_free(&dim);
}
static inline void w_attr_ints(ti_buffer *node, const char *name, int n, const int64_t *v) {
  ti_buffer a;
  int i;
  ti_buffer_init(&a, NULL);
  w_str(&a, 1, name);
  w_int(&a, 20, TI_ONNX_ATTR_INTS);
  for (i = 0; i < n; i++) w_int(&a, 8, v[i]);   /* unpacked, as onnx writes */
  w_msg(node, 5, &a);
}
static inline void w_attr_f(ti_buffer *node, const char *name, float f) {
  ti_buffer a;
  uint32_t u;
  ti_buffer_init(&a, NULL);
  memcpy(&u, &f, 4);
  w_str(&a, 1, name);
  w_int(&a, 20, TI_ONNX_ATTR_FLOAT);
  ti_pb_write_tag(&a, 2, TI_PB_FIXED32);
  ti_pb_write_fixed32(&a, u);
  w_msg(node, 5, &a);
}
static inline void w_attr_s(ti_buffer *node, const char *name, const char *s) {
  ti_buffer a;
  ti_buffer_init(&a, NULL);
  w_str(&a, 1, name);
  w_int(&a, 20, TI_ONNX_ATTR_STRING);
  w_str(&a, 4, s);
  w_msg(node, 5, &a);
}
/* NodeProto: inputs/outputs as NULL-terminated lists; attrs already in node. */
static inline void w_node(ti_buffer *graph, ti_buffer *node, const char *name, const char *op, const char *const *in, const char *const *out) {
  ti_buffer n;
  ti_buffer_init(&n, NULL);
  for (; *in; in++) w_str(&n, 1, *in);
  for (; *out; out++) w_str(&n, 2, *out);
  w_str(&n, 3, name);
  w_str(&n, 4, op);
  ti_buffer_append(&n, node->data, node->len);
  ti_buffer_free(node); ti_buffer_init(node, NULL);
  w_msg(graph, 1, &n);
}
static inline void w_model(ti_buffer *out, ti_buffer *graph, int64_t opset) {
  ti_buffer os;
  ti_buffer_init(&os, NULL);
  w_int(out, 1, 7);
  w_str(out, 2, "taskir-test");
  w_str(&os, 1, "");
  w_int(&os, 2, opset);
  w_msg(out, 8, &os);
  w_msg(out, 7, graph);
}

#endif
