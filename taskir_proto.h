/* taskir_proto.h - v0.1.0 - protobuf codec for Task IR (tianjic_ir.TaskGraph).

   Part of taskir (header-only C99, stb style). A hand-rolled protobuf wire
   codec: a generic reader/writer (varints, zigzag, fixed32/64, length-
   delimited fields, groups skipped, packed and unpacked repeated scalars,
   depth-limited nesting) and, on top of it, Task IR <-> tianjic_ir.TaskGraph
   in the binary wire format and in protobuf text format, both ways, and
   the decoding of onnx.ModelProto (>>proto.onnx; the import of its graph
   into an nn program is taskir_onnx.h). No protoc and no protobuf runtime
   are needed. Needs taskir.h (included here).

   DO THIS in *one* C or C++ file:
       #define TASKIR_IMPLEMENTATION
       #include "taskir_proto.h"      (also implements taskir.h)
   Other files include it without the define.

   OPTIONS (define before the implementing include)
       TI_NODISCARD             as in taskir.h (not on ti_pb_fail, nor on the
                                ti_pb_write_* appends: a ti_buffer's failure
                                is sticky)
       TASKIR_PROTO_MAX_DEPTH   nesting limit for messages and groups (64);
                                deeper input fails with TI_STATUS_LIMIT
       TASKIR_MAX_BLOCKS        most blocks a TaskGraph may hold (2^20)
       TASKIR_MAX_EDGES         most edges a TaskGraph may hold (2^22)
       TASKIR_PROTO_MAX_AMPLIFICATION  (32) and TASKIR_PROTO_BUDGET_BASE
                                (16 MiB): the decode budget, below
       and those of taskir.h (TASKIR_STATIC, TASKIR_MALLOC/REALLOC/FREE, ...)

   EXAMPLE
       ti_task_graph g; ti_error err = {0}; ti_buffer out;
       ti_task_graph_init(&g, NULL);
       if (ti_task_read_file("net.task.pb", &g, &err) != TI_STATUS_SUCCESS)
         fprintf(stderr, "%s\n", err.message);   // names byte offset + field path
       ti_buffer_init(&out, NULL);
       ti_task_format_text(&g, &out, &err);        // what protoc --decode prints
       ti_buffer_free(&out);
       ti_task_graph_free(&g);

   WHAT IS EXACT
       ti_task_encode writes fields in field-number order, packs exactly the
       fields the schema declares packed (Tensor float_data, int32_data,
       uint32_data) and writes every present optional field even when zero
       (proto2 presence, the `has` masks): the bytes equal what protoc writes
       for the same message. ti_task_format_text prints exactly what
       `protoc --decode=tianjic_ir.TaskGraph` prints (2-space indent, floats
       as the shortest of %.6g/%.9g that reads back, C-escaped strings).
       AttributeType 13 is written BIT_SHIGT_NUM (the schema's spelling);
       the text reader accepts BIT_SHIGT_NUM and BIT_SHIFT_NUM.

   DECODING
       What `protoc --decode` decodes, this decodes to the same message, as
       protobuf's proto2 parser reads it: a known field with another wire
       type is an unknown field; an enum value the schema does not define is
       an unknown field (the field stays unset, or keeps an earlier value);
       int32/uint32/enum fields take the low 32 bits of the varint (negative
       int32s are 10-byte varints; higher bits are dropped, as are bits past
       the 64th of a 10-byte varint). Deliberate difference: unknown fields
       (those three included) are skipped, not kept, so ti_task_format_text
       does not print them (protoc prints them by number, e.g. `2: 77`) and
       ti_task_encode does not write them back. Malformed input is an error
       naming the byte offset (err->offset) and the field path, e.g.
       "blocks[3].data.int32_data": a varint running past 10 bytes or the
       end, a length past the end of its message, a bad wire type (6, 7),
       field number 0, unbalanced groups, nesting past
       TASKIR_PROTO_MAX_DEPTH. A singular message given twice is merged
       (proto2 rules); repeated fields append. Tensor values are kept at
       natural width (ti_task_values.storage): int32_data of an INT_8 tensor
       as int8, and so on, unless a value does not fit. Graph-level checks
       (duplicate ids, dangling edges) are the checker's, not the decoder's.

   MEMORY
       A block costs sizeof(ti_task_block) (248 bytes on LP64) however few
       bytes say it (an empty block is 2 bytes of wire format, 10 of text),
       an edge 32: a small hostile file could ask for gigabytes. So a decode
       (binary and text) has a budget, as expat bounds the amplification of
       entities: the arrays it allocates (messages, repeated ints, values at
       4 bytes each, every growth of a text-format array counted) may total
       at most TASKIR_PROTO_MAX_AMPLIFICATION x input bytes +
       TASKIR_PROTO_BUDGET_BASE. Real graphs stay well inside: the fixtures
       with their tensor data removed take 13-24x (arena slack included),
       and tensor data takes at most 4 bytes per value, which is at least
       one byte of input; the base lets small files of few bytes per block
       decode. Over budget fails with TI_STATUS_LIMIT before the allocation,
       naming the byte offset (line:column), the count and the bytes, e.g.
       "1048576 blocks need 260046848 bytes, past the decode budget (0 of
       83886080 bytes used; ...)". Apart from that the count of blocks and
       of edges is capped (TASKIR_MAX_BLOCKS, TASKIR_MAX_EDGES, far above a
       chip's graphs; the ids and indices downstream are int32): the block
       or edge one past the cap fails with LIMIT where it starts. Binary
       decoding counts before it allocates, so an over-budget graph costs
       nothing; the text reader learns counts as it reads and fails at the
       growth that would cross the budget.

   TEXT FORMAT
       ti_task_parse_text accepts what protoc accepts for these messages:
       fields in any order, `f: v`, `f { }` / `f < >` (':' optional before a
       message), `[a, b]` lists, '#' comments, ';' or ',' separators, enums
       by name or number, decimal/hex/octal integers, floats with exponent,
       'f' suffix, inf/infinity/nan, strings in '' or "" with C escapes
       (\n \x41 \101 \u00e9 ...) and adjacent literals concatenated. A
       singular field given twice is an error, as in protoc. Errors name
       line:column (err->line, err->column). Floats are read and written
       with strtod/snprintf: keep the C locale's '.' as the decimal point.

   ONNX
       ti_onnx_decode reads ModelProto (ir_version, opset_import, graph),
       GraphProto (node, initializer, input, output, value_info), NodeProto,
       AttributeProto (f, i, s, t, floats, ints, strings, type), TensorProto
       (dims, data_type, raw_data and the typed *_data fields, little-endian)
       and TypeProto tensor shapes (dim_value, dim_param); other fields are
       skipped. Same guarantees as the TaskGraph decoder: bounded reads,
       depth limit, every error with err->offset and the field path. raw_data
       is referenced in place (little-endian hosts), typed fields converted.

   GENERIC LAYER (for other schemas)
       ti_pb_reader r; uint32_t field, wt; uint64_t v;
       ti_pb_reader_init(&r, buf, len, &err);
       while (r.p < r.end) {
         if (ti_pb_read_tag(&r, &field, &wt)) break;
         if (field == 1 && wt == TI_PB_VARINT) ti_pb_read_varint(&r, &v);
         else if (ti_pb_skip_field(&r, field, wt)) break;
       }
       Nested messages: ti_pb_read_varint for the length, then ti_pb_push /
       ti_pb_pop around the body. Writers: ti_pb_write_tag/_varint/_fixed32.

   LICENSE: MIT, see the end of this file.
*/
#ifndef TASKIR_PROTO_H
#define TASKIR_PROTO_H

/* The taskir version; every header defines the same (the first one included
   wins; tests/cli_version.sh checks that they agree). */
#ifndef TASKIR_VERSION_MAJOR
#define TASKIR_VERSION_MAJOR 0
#define TASKIR_VERSION_MINOR 1
#define TASKIR_VERSION_PATCH 0
#define TASKIR_VERSION_STRING "0.1.0"
#endif

#include "taskir.h"

#ifndef TASKIR_PROTO_MAX_DEPTH
#define TASKIR_PROTO_MAX_DEPTH 64
#endif
#ifndef TASKIR_MAX_BLOCKS
#define TASKIR_MAX_BLOCKS (1 << 20)
#endif
#ifndef TASKIR_MAX_EDGES
#define TASKIR_MAX_EDGES (1 << 22)
#endif
#ifndef TASKIR_PROTO_MAX_AMPLIFICATION
#define TASKIR_PROTO_MAX_AMPLIFICATION 32
#endif
#ifndef TASKIR_PROTO_BUDGET_BASE
#define TASKIR_PROTO_BUDGET_BASE ((size_t)16 << 20)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* >>proto.wire: generic reader and writer ---------------------------------- */

enum {
  TI_PB_VARINT = 0, TI_PB_FIXED64 = 1, TI_PB_LEN = 2, TI_PB_SGROUP = 3,
  TI_PB_EGROUP = 4, TI_PB_FIXED32 = 5
};

typedef struct ti_pb_frame {
  const char *name;   /* field that holds the message */
  int32_t index;      /* element index of a repeated field, -1 if singular */
} ti_pb_frame;

/* Reads one input buffer. `end` is the end of the message being read; every
   read is bounded by it. Errors name the offset from `base` and the path of
   frames pushed so far plus `field`. */
typedef struct ti_pb_reader {
  const uint8_t *base, *p, *end;
  int depth;
  ti_error *err;
  const char *field;     /* name of the field being read, NULL if unknown */
  uint32_t field_num;
  ti_pb_frame path[TASKIR_PROTO_MAX_DEPTH + 2];
} ti_pb_reader;

TASKIR_API void ti_pb_reader_init(ti_pb_reader *r, const void *buf, size_t len, ti_error *err);
TASKIR_API TI_NODISCARD ti_status ti_pb_read_varint(ti_pb_reader *r, uint64_t *v);
/* For int32/uint32/enum fields: at most 32 bits, or a sign-extended negative. */
TASKIR_API TI_NODISCARD ti_status ti_pb_read_varint32(ti_pb_reader *r, uint32_t *v);
TASKIR_API TI_NODISCARD ti_status ti_pb_read_fixed32(ti_pb_reader *r, uint32_t *v);
TASKIR_API TI_NODISCARD ti_status ti_pb_read_fixed64(ti_pb_reader *r, uint64_t *v);
/* Field number >= 1 and wire type 0..5, or an error. */
TASKIR_API TI_NODISCARD ti_status ti_pb_read_tag(ti_pb_reader *r, uint32_t *field, uint32_t *wire_type);
/* A length-delimited payload, bounded by the enclosing message. */
TASKIR_API TI_NODISCARD ti_status ti_pb_read_bytes(ti_pb_reader *r, const uint8_t **data, size_t *len);
/* Skips a field's value (groups too, nested groups count against the depth). */
TASKIR_API TI_NODISCARD ti_status ti_pb_skip_field(ti_pb_reader *r, uint32_t field, uint32_t wire_type);
/* Enters a nested message of `len` bytes at r->p: r->end becomes its end.
   ti_pb_pop restores the enclosing end (saved_end) and skips what is left. */
TASKIR_API TI_NODISCARD ti_status ti_pb_push(ti_pb_reader *r, const char *name, int32_t index, size_t len,
                                const uint8_t **saved_end);
TASKIR_API void ti_pb_pop(ti_pb_reader *r, const uint8_t *saved_end);
/* Records an error at byte `at` with the current field path. */
TASKIR_API ti_status ti_pb_fail(ti_pb_reader *r, ti_status status, const uint8_t *at, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
#ifdef TASKIR_NO_ERRMSG   /* keeps the byte offset, drops the text (see ti_error_set) */
#define ti_pb_fail(r, status, at, ...) (TI__NOMSG(__VA_ARGS__), (ti_pb_fail)((r), (status), (at), NULL))
#endif

static inline uint32_t ti_pb_zigzag32(int32_t v) { return ((uint32_t)v << 1) ^ (uint32_t)-(int32_t)((uint32_t)v >> 31); }
static inline uint64_t ti_pb_zigzag64(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)-(int64_t)((uint64_t)v >> 63); }
static inline int32_t ti_pb_unzigzag32(uint32_t v) { return (int32_t)((v >> 1) ^ (uint32_t)-(int32_t)(v & 1)); }
static inline int64_t ti_pb_unzigzag64(uint64_t v) { return (int64_t)((v >> 1) ^ (uint64_t)-(int64_t)(v & 1)); }

TASKIR_API size_t ti_pb_varint_size(uint64_t v);
/* Writes v at p (room for 10 bytes), returns the end. */
TASKIR_API uint8_t *ti_pb_put_varint(uint8_t *p, uint64_t v);
TASKIR_API ti_status ti_pb_write_varint(ti_buffer *b, uint64_t v);
TASKIR_API ti_status ti_pb_write_tag(ti_buffer *b, uint32_t field, uint32_t wire_type);
TASKIR_API ti_status ti_pb_write_fixed32(ti_buffer *b, uint32_t v);
TASKIR_API ti_status ti_pb_write_fixed64(ti_buffer *b, uint64_t v);

/* >>proto.task: Task IR <-> tianjic_ir.TaskGraph --------------------------- */

/* Binary wire format. g comes from ti_task_graph_init (fields of an
   already filled g are merged into, as protobuf does). On failure g may hold
   part of the input: ti_task_graph_free releases it either way. */
TASKIR_API TI_NODISCARD ti_status ti_task_decode(ti_task_graph *g, const void *buf, size_t len, ti_error *err);
/* Appends the encoding of g to out. */
TASKIR_API TI_NODISCARD ti_status ti_task_encode(const ti_task_graph *g, ti_buffer *out, ti_error *err);
/* Encodes into dst[cap]; *len gets the encoded size. dst == NULL asks for the
   size only; cap too small fails with TI_STATUS_LIMIT (and *len still set). */
TASKIR_API TI_NODISCARD ti_status ti_task_encode_into(const ti_task_graph *g, void *dst, size_t cap, size_t *len,
                                         ti_error *err);

/* Protobuf text format. Parsing accepts what protoc accepts for these
   messages; errors name line:column (err->line, err->column). */
TASKIR_API TI_NODISCARD ti_status ti_task_parse_text(ti_task_graph *g, const char *text, size_t len, ti_error *err);
/* Appends exactly what `protoc --decode=tianjic_ir.TaskGraph` prints. */
TASKIR_API TI_NODISCARD ti_status ti_task_format_text(const ti_task_graph *g, ti_buffer *out, ti_error *err);

/* Files: text format for .txt, .pbtxt, .prototxt and .textproto, binary
   for anything else (.pb). */
TASKIR_API TI_NODISCARD ti_status ti_task_read_file(const char *path, ti_task_graph *g, ti_error *err);
TASKIR_API TI_NODISCARD ti_status ti_task_write_file(const char *path, const ti_task_graph *g, ti_error *err);


/* >>proto.onnx: onnx.ModelProto decoding ----------------------------------- */

/* The ONNX model as decoded: every string NUL-terminated, every array and
   converted tensor in the model's arena; `offset` fields give the byte
   offset of the message in the input, for errors. Subgraphs (If/Loop
   bodies), sparse tensors, training info and functions are skipped. */
enum {   /* onnx.TensorProto.DataType */
  TI_ONNX_FLOAT = 1, TI_ONNX_UINT8, TI_ONNX_INT8, TI_ONNX_UINT16, TI_ONNX_INT16, TI_ONNX_INT32,
  TI_ONNX_INT64, TI_ONNX_STRING, TI_ONNX_BOOL, TI_ONNX_FLOAT16, TI_ONNX_DOUBLE, TI_ONNX_UINT32,
  TI_ONNX_UINT64
};
enum {   /* onnx.AttributeProto.AttributeType */
  TI_ONNX_ATTR_UNDEFINED = 0, TI_ONNX_ATTR_FLOAT, TI_ONNX_ATTR_INT, TI_ONNX_ATTR_STRING,
  TI_ONNX_ATTR_TENSOR, TI_ONNX_ATTR_GRAPH, TI_ONNX_ATTR_FLOATS, TI_ONNX_ATTR_INTS, TI_ONNX_ATTR_STRINGS
};

typedef struct ti_onnx_tensor {
  const char *name;
  int32_t data_type;          /* TI_ONNX_FLOAT, ... */
  int32_t rank;
  int64_t dims[TI_MAX_RANK];
  int64_t numel;
  /* numel elements of ti_onnx_elem_size(data_type) bytes, little-endian host
     order; NULL when the tensor carries no data (or holds strings). raw_data
     on a little-endian host points into the input buffer; typed *_data
     fields are converted into the arena. */
  const void *data;
  size_t bytes;
  int in_input;               /* 1: data points into the decoded buffer */
  int64_t offset;
} ti_onnx_tensor;

typedef struct ti_onnx_dim { int64_t value; const char *param; } ti_onnx_dim;  /* value -1: param or unknown */

typedef struct ti_onnx_value_info {
  const char *name;
  int32_t elem_type;          /* 0 when the type is not a tensor or absent */
  int32_t rank;               /* -1: no shape given */
  ti_onnx_dim dims[TI_MAX_RANK];
  int64_t offset;
} ti_onnx_value_info;

typedef struct ti_onnx_attr {
  const char *name;
  int32_t type;               /* TI_ONNX_ATTR_* (inferred from the fields present when 0) */
  float f;
  int64_t i;
  const char *s; size_t s_len;
  ti_onnx_tensor *t;
  int32_t n_floats, n_ints, n_strings;
  float *floats;
  int64_t *ints;
  const char **strings;
  int64_t offset;
} ti_onnx_attr;

typedef struct ti_onnx_node {
  const char *name, *op_type, *domain;
  int32_t n_inputs, n_outputs, n_attrs;
  const char **inputs, **outputs;   /* "" marks an omitted optional input */
  ti_onnx_attr *attrs;
  int64_t offset;
} ti_onnx_node;

typedef struct ti_onnx_graph {
  const char *name;
  int32_t n_nodes, n_inits, n_inputs, n_outputs, n_value_info;
  ti_onnx_node *nodes;
  ti_onnx_tensor *inits;
  ti_onnx_value_info *inputs, *outputs, *value_info;
} ti_onnx_graph;

typedef struct ti_onnx_opset { const char *domain; int64_t version; } ti_onnx_opset;

typedef struct ti_onnx_model {
  int64_t ir_version;
  int32_t n_opsets;
  ti_onnx_opset *opsets;
  ti_onnx_graph graph;
  ti_arena arena;
} ti_onnx_model;

/* Bytes per element of an ONNX data type as decoded; 0 for STRING/unknown. */
TASKIR_API size_t ti_onnx_elem_size(int32_t data_type);
/* Decodes buf[len]. m needs no init; free it with ti_onnx_model_free whatever
   the result. The decoded model refers to buf (raw tensor data): keep buf
   alive while m is used. Errors name the byte offset and the field path,
   e.g. "graph.node[3].attribute[0].ints". */
TASKIR_API TI_NODISCARD ti_status ti_onnx_decode(ti_onnx_model *m, const void *buf, size_t len, void *alloc_user, ti_error *err);
TASKIR_API void ti_onnx_model_free(ti_onnx_model *m);
/* One TensorProto (e.g. the input_0.pb of an ONNX test case); its arrays go
   into arena a, its raw data refers to buf. */
TASKIR_API TI_NODISCARD ti_status ti_onnx_decode_tensor(ti_onnx_tensor *t, ti_arena *a, const void *buf, size_t len, ti_error *err);
/* The opset version of a domain ("" and "ai.onnx" are the same); 0 if absent. */
TASKIR_API int64_t ti_onnx_opset_version(const ti_onnx_model *m, const char *domain);

#ifdef __cplusplus
}
#endif
#endif /* TASKIR_PROTO_H */

/* ======================================================================== */
#if defined(TASKIR_IMPLEMENTATION) && !defined(TASKIR_PROTO_IMPL_INCLUDED)
#define TASKIR_PROTO_IMPL_INCLUDED

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TI__PB_TRY(x) do { ti_status ti__st_ = (x); if (ti__st_ != TI_STATUS_SUCCESS) return ti__st_; } while (0)
#define TI__PB_MAXF 16   /* fields per message, at most */
#define TI__PB_STATIC_ASSERT(cond, name) typedef char ti__pb_static_assert_##name[(cond) ? 1 : -1]

#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define TI__PB_LE 1
#elif defined(_M_X64) || defined(_M_IX86) || defined(_M_ARM64)
#define TI__PB_LE 1
#else
#define TI__PB_LE 0
#endif

/* >>impl.proto.wire -------------------------------------------------------- */

TASKIR_API void ti_pb_reader_init(ti_pb_reader *r, const void *buf, size_t len, ti_error *err) {
  ti_error_clear(err);
  static const uint8_t empty[1] = { 0 };
  r->base = r->p = buf ? (const uint8_t *)buf : empty;   /* no arithmetic on NULL */
  r->end = r->base + (buf ? len : 0);
  r->depth = 0;
  r->err = err;
  r->field = NULL;
  r->field_num = 0;
  r->path[0].name = NULL;
  r->path[0].index = -1;
}

#ifndef TASKIR_NO_ERRMSG
static void ti__pb_path(const ti_pb_reader *r, char *out, size_t cap) {
  size_t n = 0;
  int i;
  out[0] = 0;
  for (i = 1; i <= r->depth && i <= TASKIR_PROTO_MAX_DEPTH + 1; i++) {
    int w;
    if (!r->path[i].name) continue;
    if (r->path[i].index >= 0)
      w = snprintf(out + n, cap - n, "%s%s[%ld]", n ? "." : "", r->path[i].name, (long)r->path[i].index);
    else
      w = snprintf(out + n, cap - n, "%s%s", n ? "." : "", r->path[i].name);
    if (w < 0 || (size_t)w >= cap - n) return;
    n += (size_t)w;
  }
  if (r->field) snprintf(out + n, cap - n, "%s%s", n ? "." : "", r->field);
  else if (r->field_num) snprintf(out + n, cap - n, "%sfield %lu", n ? "." : "", (unsigned long)r->field_num);
  else if (!n) snprintf(out, cap, "top level");
}

#endif

static ti_status ti__pb_failv(ti_pb_reader *r, ti_status st, const uint8_t *at, const char *fmt, va_list ap) {
  ti_error *err = r->err;
  if (err && err->status == TI_STATUS_SUCCESS) {
    long long off = (long long)(at - r->base);
#ifdef TASKIR_NO_ERRMSG
    (void)fmt; (void)ap;
    (ti_error_set)(err, st, NULL);
#else
    char what[160], path[200];
    vsnprintf(what, sizeof what, fmt, ap);
    ti__pb_path(r, path, sizeof path);
    ti_error_set(err, st, "protobuf: %s at byte %lld (in %s)", what, off, path);
#endif
    err->offset = off;
    err->line = err->column = 0;
  }
  return st;
}

TASKIR_API ti_status (ti_pb_fail)(ti_pb_reader *r, ti_status status, const uint8_t *at, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ti__pb_failv(r, status, at, fmt, ap);
  va_end(ap);
  return status;
}

/* Decodes a varint when at least 10 bytes are readable; NULL when it runs
   past 10 bytes. Bits past the 64th (10th byte > 1) are dropped, as protobuf
   drops them. */
static inline const uint8_t *ti__pb_varint10(const uint8_t *p, uint64_t *out) {
  uint64_t r = 0;
  int i;
  for (i = 0; i < 9; i++) {
    uint64_t b = p[i];
    r |= (b & 0x7F) << (7 * i);
    if (b < 0x80) { *out = r; return p + i + 1; }
  }
  if (p[9] >= 0x80) return NULL;
  *out = r | ((uint64_t)p[9] << 63);
  return p + 10;
}

/* Bounded varint; NULL when truncated (*trunc = 1) or overflowing. */
static inline const uint8_t *ti__pb_varint_slow(const uint8_t *p, const uint8_t *end, uint64_t *out, int *trunc) {
  uint64_t r = 0;
  unsigned shift = 0;
  *trunc = 0;
  for (;;) {
    uint64_t b;
    if (p >= end) { *trunc = 1; return NULL; }
    b = *p++;
    if (shift == 63 && b >= 0x80) return NULL;
    r |= (b & 0x7F) << shift;   /* bits past the 64th are dropped */
    if (b < 0x80) break;
    shift += 7;
  }
  *out = r;
  return p;
}

static inline ti_status ti__pb_varint(ti_pb_reader *r, uint64_t *v) {
  const uint8_t *p = r->p, *q;
  uint64_t x = 0;
  int trunc;
  *v = 0;
  if (p < r->end && *p < 0x80) { *v = *p; r->p = p + 1; return TI_STATUS_SUCCESS; }
  if (r->end - p >= 10) { q = ti__pb_varint10(p, &x); trunc = 0; }
  else q = ti__pb_varint_slow(p, r->end, &x, &trunc);
  if (!q)
    return ti_pb_fail(r, TI_STATUS_PARSE_ERROR, p, trunc ? "truncated varint" : "varint longer than 10 bytes");
  *v = x;
  r->p = q;
  return TI_STATUS_SUCCESS;
}

/* 32-bit fields (int32, uint32, enum): the low 32 bits of the varint, as
   protobuf reads them (negative int32s are 10-byte sign-extended varints;
   higher bits of any other value are dropped). */
static inline ti_status ti__pb_varint32(ti_pb_reader *r, uint32_t *v) {
  uint64_t x;
  *v = 0;
  TI__PB_TRY(ti__pb_varint(r, &x));
  *v = (uint32_t)x;
  return TI_STATUS_SUCCESS;
}

TASKIR_API ti_status ti_pb_read_varint(ti_pb_reader *r, uint64_t *v) { return ti__pb_varint(r, v); }
TASKIR_API ti_status ti_pb_read_varint32(ti_pb_reader *r, uint32_t *v) { return ti__pb_varint32(r, v); }

TASKIR_API ti_status ti_pb_read_fixed32(ti_pb_reader *r, uint32_t *v) {
  const uint8_t *p = r->p;
  *v = 0;
  if (r->end - p < 4) return ti_pb_fail(r, TI_STATUS_PARSE_ERROR, p, "truncated fixed32 (%ld bytes left)", (long)(r->end - p));
  *v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
  r->p = p + 4;
  return TI_STATUS_SUCCESS;
}

TASKIR_API ti_status ti_pb_read_fixed64(ti_pb_reader *r, uint64_t *v) {
  const uint8_t *p = r->p;
  uint64_t x = 0;
  int i;
  *v = 0;
  if (r->end - p < 8) return ti_pb_fail(r, TI_STATUS_PARSE_ERROR, p, "truncated fixed64 (%ld bytes left)", (long)(r->end - p));
  for (i = 7; i >= 0; i--) x = x << 8 | p[i];
  *v = x;
  r->p = p + 8;
  return TI_STATUS_SUCCESS;
}

static inline ti_status ti__pb_tag(ti_pb_reader *r, uint32_t *field, uint32_t *wt) {
  const uint8_t *p = r->p;
  uint32_t t;
  *field = *wt = 0;
  if (p < r->end && *p < 0x80) t = *p, r->p = p + 1;
  else {
    uint64_t x;
    TI__PB_TRY(ti__pb_varint(r, &x));
    if (x > 0xFFFFFFFFu) return ti_pb_fail(r, TI_STATUS_PARSE_ERROR, p, "tag over 32 bits");
    t = (uint32_t)x;
  }
  *field = t >> 3;
  *wt = t & 7;
  if (*field == 0) return ti_pb_fail(r, TI_STATUS_PARSE_ERROR, p, "field number 0 (tag %lu)", (unsigned long)t);
  if (*wt > 5) return ti_pb_fail(r, TI_STATUS_PARSE_ERROR, p, "invalid wire type %lu", (unsigned long)*wt);
  return TI_STATUS_SUCCESS;
}

TASKIR_API ti_status ti_pb_read_tag(ti_pb_reader *r, uint32_t *field, uint32_t *wire_type) {
  return ti__pb_tag(r, field, wire_type);
}

static inline ti_status ti__pb_len(ti_pb_reader *r, size_t *len) {
  const uint8_t *p = r->p;
  uint64_t x;
  *len = 0;
  TI__PB_TRY(ti__pb_varint(r, &x));
  if (x > (uint64_t)(r->end - r->p))
    return ti_pb_fail(r, TI_STATUS_PARSE_ERROR, p, "length %llu past the end of the enclosing message (%ld bytes left)",
                      (unsigned long long)x, (long)(r->end - r->p));
  *len = (size_t)x;
  return TI_STATUS_SUCCESS;
}

TASKIR_API ti_status ti_pb_read_bytes(ti_pb_reader *r, const uint8_t **data, size_t *len) {
  *data = NULL;
  TI__PB_TRY(ti__pb_len(r, len));
  *data = r->p;
  r->p += *len;
  return TI_STATUS_SUCCESS;
}

/* tagp: where the field's tag starts, for group errors. */
static ti_status ti__pb_skip(ti_pb_reader *r, uint32_t field, uint32_t wt, const uint8_t *tagp) {
  const uint8_t *p = r->p;
  uint64_t x;
  size_t n;
  switch (wt) {
  case TI_PB_VARINT: return ti__pb_varint(r, &x);
  case TI_PB_FIXED64:
    if (r->end - p < 8) return ti_pb_fail(r, TI_STATUS_PARSE_ERROR, p, "truncated fixed64 (%ld bytes left)", (long)(r->end - p));
    r->p += 8;
    return TI_STATUS_SUCCESS;
  case TI_PB_FIXED32:
    if (r->end - p < 4) return ti_pb_fail(r, TI_STATUS_PARSE_ERROR, p, "truncated fixed32 (%ld bytes left)", (long)(r->end - p));
    r->p += 4;
    return TI_STATUS_SUCCESS;
  case TI_PB_LEN:
    TI__PB_TRY(ti__pb_len(r, &n));
    r->p += n;
    return TI_STATUS_SUCCESS;
  case TI_PB_SGROUP:
    if (r->depth >= TASKIR_PROTO_MAX_DEPTH)
      return ti_pb_fail(r, TI_STATUS_LIMIT, tagp, "groups nested deeper than TASKIR_PROTO_MAX_DEPTH (%d)", TASKIR_PROTO_MAX_DEPTH);
    r->depth++;
    r->path[r->depth].name = NULL;
    for (;;) {
      uint32_t f, w;
      ti_status st;
      if (r->p >= r->end) {
        r->depth--;
        return ti_pb_fail(r, TI_STATUS_PARSE_ERROR, tagp, "group %lu not terminated", (unsigned long)field);
      }
      p = r->p;
      st = ti__pb_tag(r, &f, &w);
      if (st == TI_STATUS_SUCCESS && w == TI_PB_EGROUP) {
        r->depth--;
        if (f != field) return ti_pb_fail(r, TI_STATUS_PARSE_ERROR, p, "end-group %lu does not match start-group %lu",
                                          (unsigned long)f, (unsigned long)field);
        return TI_STATUS_SUCCESS;
      }
      if (st == TI_STATUS_SUCCESS) st = ti__pb_skip(r, f, w, p);
      if (st != TI_STATUS_SUCCESS) { r->depth--; return st; }
    }
  case TI_PB_EGROUP:
    return ti_pb_fail(r, TI_STATUS_PARSE_ERROR, tagp, "end-group tag without a start-group");
  default:
    return ti_pb_fail(r, TI_STATUS_PARSE_ERROR, tagp, "invalid wire type %lu", (unsigned long)wt);
  }
}

TASKIR_API ti_status ti_pb_skip_field(ti_pb_reader *r, uint32_t field, uint32_t wt) {
  return ti__pb_skip(r, field, wt, r->p);
}

TASKIR_API ti_status ti_pb_push(ti_pb_reader *r, const char *name, int32_t index, size_t len, const uint8_t **saved_end) {
  *saved_end = r->end;
  if (len > (size_t)(r->end - r->p))
    return ti_pb_fail(r, TI_STATUS_PARSE_ERROR, r->p, "message of %lu bytes past the end of the enclosing message", (unsigned long)len);
  if (r->depth >= TASKIR_PROTO_MAX_DEPTH)
    return ti_pb_fail(r, TI_STATUS_LIMIT, r->p, "messages nested deeper than TASKIR_PROTO_MAX_DEPTH (%d)", TASKIR_PROTO_MAX_DEPTH);
  r->depth++;
  r->path[r->depth].name = name;
  r->path[r->depth].index = index;
  r->field = NULL;
  r->field_num = 0;
  *saved_end = r->end;
  r->end = r->p + len;
  return TI_STATUS_SUCCESS;
}

TASKIR_API void ti_pb_pop(ti_pb_reader *r, const uint8_t *saved_end) {
  r->p = r->end;
  r->end = saved_end;
  if (r->depth > 0) r->depth--;
}

TASKIR_API size_t ti_pb_varint_size(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) { v >>= 7; n++; }
  return n;
}

static inline uint8_t *ti__pb_put(uint8_t *p, uint64_t v) {
  while (v >= 0x80) { *p++ = (uint8_t)(v | 0x80); v >>= 7; }
  *p++ = (uint8_t)v;
  return p;
}

TASKIR_API uint8_t *ti_pb_put_varint(uint8_t *p, uint64_t v) { return ti__pb_put(p, v); }

TASKIR_API ti_status ti_pb_write_varint(ti_buffer *b, uint64_t v) {
  TI__PB_TRY(ti_buffer_reserve(b, 10));
  b->len = (size_t)(ti__pb_put(b->data + b->len, v) - b->data);
  return TI_STATUS_SUCCESS;
}

TASKIR_API ti_status ti_pb_write_tag(ti_buffer *b, uint32_t field, uint32_t wire_type) {
  return ti_pb_write_varint(b, (uint64_t)field << 3 | (wire_type & 7));
}

TASKIR_API ti_status ti_pb_write_fixed32(ti_buffer *b, uint32_t v) {
  int i;
  TI__PB_TRY(ti_buffer_reserve(b, 4));
  for (i = 0; i < 4; i++) b->data[b->len++] = (unsigned char)(v >> (8 * i));
  return TI_STATUS_SUCCESS;
}

TASKIR_API ti_status ti_pb_write_fixed64(ti_buffer *b, uint64_t v) {
  int i;
  TI__PB_TRY(ti_buffer_reserve(b, 8));
  for (i = 0; i < 8; i++) b->data[b->len++] = (unsigned char)(v >> (8 * i));
  return TI_STATUS_SUCCESS;
}

/* >>impl.proto.schema ------------------------------------------------------ */

/* The schema is taskir.h's (>>impl.task.schema): the ti__pbm_* message
   tables that the task dialect's import/export walks too. */

#define TI__AT(obj, off, T) ((T *)(void *)((char *)(obj) + (off)))
#define TI__CAT(obj, off, T) ((const T *)(const void *)((const char *)(obj) + (off)))

/* Text-format spelling of an internal value, NULL if it is not one:
   AttributeType 13 is BIT_SHIGT_NUM in the schema's text. */
static const char *ti__pb_enum_name(int e, int v) {
  return e == TI__E_ATTR && v == TI_TASK_ATTR_BIT_SHIFT_NUM ? "BIT_SHIGT_NUM" : ti__schema_enum_name(e, v);
}

/* Storage of a values field for a tensor of precision p (-1: unknown). */
static ti_dtype ti__pb_storage_hint(int vkind, int p) {
  if (vkind == TI__V_FLOAT) return TI_DTYPE_F32;
  if (vkind == TI__V_INT32) {
    switch (p) {
    case TI_DTYPE_I8: case TI_DTYPE_TERNARY: return TI_DTYPE_I8;
    case TI_DTYPE_I16: case TI_DTYPE_I9: case TI_DTYPE_U8: case TI_DTYPE_U4: return TI_DTYPE_I16;
    default: return TI_DTYPE_I32;
    }
  }
  switch (p) {
  case TI_DTYPE_U8: case TI_DTYPE_U4: return TI_DTYPE_U8;
  case TI_DTYPE_U16: return TI_DTYPE_U16;
  default: return TI_DTYPE_U32;
  }
}

static ti_dtype ti__pb_widest(int vkind) {
  return vkind == TI__V_FLOAT ? TI_DTYPE_F32 : vkind == TI__V_INT32 ? TI_DTYPE_I32 : TI_DTYPE_U32;
}

/* Copies v's values into a new array of `cap` elements of `storage`. */
static int ti__pb_values_realloc(ti_arena *a, ti_task_values *v, int64_t cap, ti_dtype storage) {
  size_t es = ti_dtype_size(storage);
  void *d;
  int64_t i;
  if (cap < v->count || (uint64_t)cap > (uint64_t)((size_t)-1 / es)) return -1;
  d = ti_arena_array(a, (size_t)cap, es, 4);
  if (!d) return -1;
  if (v->count) {
    if (storage == v->storage) memcpy(d, v->data, (size_t)v->count * es);
    else if (storage == TI_DTYPE_F32) for (i = 0; i < v->count; i++) ((float *)d)[i] = (float)ti_task_values_get_f64(v, i);
    else if (storage == TI_DTYPE_I32) for (i = 0; i < v->count; i++) ((int32_t *)d)[i] = (int32_t)ti_task_values_get_i64(v, i);
    else if (storage == TI_DTYPE_U32) for (i = 0; i < v->count; i++) ((uint32_t *)d)[i] = (uint32_t)ti_task_values_get_i64(v, i);
    else return -1;
  }
  v->data = d;
  v->storage = storage;
  return 0;
}

/* >>impl.proto.decode ------------------------------------------------------ */

typedef struct ti__pb_dec {
  ti_pb_reader r;
  ti_arena *a;
  size_t spent, budget;   /* bytes of arrays decoded so far; the most allowed */
} ti__pb_dec;

/* The decode budget of an input of len bytes: TASKIR_PROTO_MAX_AMPLIFICATION
   x len + TASKIR_PROTO_BUDGET_BASE, saturating. */
static size_t ti__pb_budget(size_t len) {
  size_t k = (size_t)TASKIR_PROTO_MAX_AMPLIFICATION;
  size_t m = len > ((size_t)-1 - TASKIR_PROTO_BUDGET_BASE) / (k ? k : 1) ? (size_t)-1 - TASKIR_PROTO_BUDGET_BASE : len * k;
  return m + TASKIR_PROTO_BUDGET_BASE;
}

/* Charges n elements of es bytes to *spent; 0 when that stays within budget. */
static int ti__pb_spend(size_t *spent, size_t budget, int64_t n, size_t es) {
  if (n < 0 || (uint64_t)n > (budget - *spent) / (es ? es : 1)) return 1;
  *spent += (size_t)n * es;
  return 0;
}

/* The message of a spend that did not fit: what needs how much, and the
   budget, in buf. */
static void ti__pb_budget_msg(char *buf, size_t cap, int64_t n, const char *what, size_t es, size_t spent, size_t budget) {
  snprintf(buf, cap,
           "%lld %s need %llu bytes, past the decode budget (%llu of %llu bytes used; "
           "TASKIR_PROTO_MAX_AMPLIFICATION %d x input + TASKIR_PROTO_BUDGET_BASE)",
           (long long)n, what, (unsigned long long)n * (unsigned long long)es, (unsigned long long)spent,
           (unsigned long long)budget, (int)TASKIR_PROTO_MAX_AMPLIFICATION);
}

/* Counts the varints of a packed payload (bytes without the high bit) and
   checks it does not end inside one. */
static int64_t ti__pb_count_varints(const uint8_t *p, size_t n) {
  int64_t c = 0;
  size_t i;
  if (n && p[n - 1] >= 0x80) return -1;
  for (i = 0; i < n; i++) c += p[i] < 0x80;
  return c;
}

/* Packed varints straight into a narrow array, each truncated to 32 bits as
   protobuf does. Stops at the end, at a full array, or at a problem (*why:
   1 bad varint, 3 does not fit T, so the caller can widen and go on). */
#define TI__PB_DEC_PACKED(fname, T, FITS)                                                          \
  static const uint8_t *fname(const uint8_t *p, const uint8_t *end, T *out, int64_t *pi,           \
                              int64_t cap, int *why) {                                            \
    int64_t i = *pi;                                                                             \
    *why = 0;                                                                                    \
    while (p < end && i < cap) {                                                                 \
      uint64_t v;                                                                                \
      uint32_t u;                                                                                \
      const uint8_t *q;                                                                          \
      if (*p < 0x80) { v = *p; q = p + 1; }                                                      \
      else if (end - p >= 10) {                                                                  \
        uint64_t mid;                                                                            \
        memcpy(&mid, p + 1, 8);                                                                  \
        if (mid == ~(uint64_t)0 && p[9] == 1) { v = ~(uint64_t)0x7F | (p[0] & 0x7F); q = p + 10; } \
        else { q = ti__pb_varint10(p, &v); if (!q) { *why = 1; break; } }                        \
      } else { int t_; q = ti__pb_varint_slow(p, end, &v, &t_); if (!q) { *why = 1; break; } }   \
      u = (uint32_t)v;                                                                           \
      if (!(FITS)) { *why = 3; break; }                                                          \
      out[i++] = (T)u;                                                                           \
      p = q;                                                                                     \
    }                                                                                            \
    *pi = i;                                                                                     \
    return p;                                                                                    \
  }
TI__PB_DEC_PACKED(ti__pb_dec_i8_any, int8_t, u + 128u < 256u)
TI__PB_DEC_PACKED(ti__pb_dec_i16, int16_t, u + 32768u < 65536u)
TI__PB_DEC_PACKED(ti__pb_dec_i32, int32_t, 1)
TI__PB_DEC_PACKED(ti__pb_dec_u8, uint8_t, u < 256u)
TI__PB_DEC_PACKED(ti__pb_dec_u16, uint16_t, u < 65536u)
TI__PB_DEC_PACKED(ti__pb_dec_u32, uint32_t, 1)
#undef TI__PB_DEC_PACKED

/* int8 data (most weights): on the wire each value is 1 byte (0..127) or 10
   bytes (-128..-1 sign-extended: b0, eight 0xFF, 0x01); the first byte is
   the value either way. Signs are random, so a branch per value mispredicts
   half the time, and walking value by value makes each position wait for
   the previous load. Instead, per 64-byte window: a mask of the bytes that
   end a varint (< 0x80), then each value is found from its end with ctz,
   checked branch-free (1 byte, or 10 bytes of the canonical negative form)
   and stored. A window with any other form is redone one value at a time by
   the general loop. */
#if defined(__GNUC__) || defined(__clang__)
#define TI__PB_CTZ64(x) __builtin_ctzll(x)
#else
static int ti__pb_ctz64(uint64_t x) { int n = 0; while (!(x & 1)) { x >>= 1; n++; } return n; }
#define TI__PB_CTZ64(x) ti__pb_ctz64(x)
#endif

static inline uint64_t ti__pb_end_mask64(const uint8_t *p) {
  uint64_t m = 0;
  int k;
#if TI__PB_LE
  for (k = 0; k < 8; k++) {
    uint64_t x;
    memcpy(&x, p + 8 * k, 8);
    x = ~x & 0x8080808080808080ull;                                  /* high bit where byte < 0x80 */
    m |= (((x >> 7) * 0x0102040810204080ull) >> 56) << (8 * k);   /* gather one bit per byte */
  }
#else
  for (k = 0; k < 64; k++) m |= (uint64_t)(p[k] < 0x80) << k;
#endif
  return m;
}

static const uint8_t *ti__pb_dec_i8(const uint8_t *p, const uint8_t *end, int8_t *out, int64_t *pi, int64_t cap, int *why) {
  int64_t i = *pi;
  *why = 0;
  while (p < end && i < cap) {
    /* 74 = the window plus the 8-byte check read past a token's first byte */
    while (end - p >= 74 && cap - i >= 64) {
      uint64_t m = ti__pb_end_mask64(p), bad = 0;
      const uint8_t *s = p;
      int64_t i0 = i;
      if (!m) break;
      do {
        const uint8_t *q = p + TI__PB_CTZ64(m);
        size_t len = (size_t)(q - s);
        uint64_t mid;
        unsigned b0 = s[0];
        memcpy(&mid, s + 1, 8);
        out[i++] = (int8_t)((int)b0 - (int)((b0 & 0x80u) << 1));
        bad |= (uint64_t)((len != 0) & ((len != 9) | (mid != ~(uint64_t)0) | (q[0] != 1)));
        s = q + 1;
        m &= m - 1;
      } while (m);
      if (bad) { i = i0; break; }
      p = s;
    }
    if (p >= end || i >= cap) break;
    /* one value the general way (all of the tail when the window is short) */
    p = ti__pb_dec_i8_any(p, end, out, &i, end - p >= 74 && cap - i >= 64 ? i + 1 : cap, why);
    if (*why) break;
  }
  *pi = i;
  return p;
}

/* Decodes the varints in [p, end) onto v (capacity cap), widening the
   storage when a value does not fit. */
static ti_status ti__pb_dec_ints(ti__pb_dec *d, ti_task_values *v, int64_t cap, const uint8_t *p, const uint8_t *end,
                                 int vkind) {
  while (p < end) {
    int why = 0;
    int64_t i = v->count;
    switch (v->storage) {
    case TI_DTYPE_I8: p = ti__pb_dec_i8(p, end, (int8_t *)v->data, &i, cap, &why); break;
    case TI_DTYPE_I16: p = ti__pb_dec_i16(p, end, (int16_t *)v->data, &i, cap, &why); break;
    case TI_DTYPE_I32: p = ti__pb_dec_i32(p, end, (int32_t *)v->data, &i, cap, &why); break;
    case TI_DTYPE_U8: p = ti__pb_dec_u8(p, end, (uint8_t *)v->data, &i, cap, &why); break;
    case TI_DTYPE_U16: p = ti__pb_dec_u16(p, end, (uint16_t *)v->data, &i, cap, &why); break;
    case TI_DTYPE_U32: p = ti__pb_dec_u32(p, end, (uint32_t *)v->data, &i, cap, &why); break;
    default: return ti_pb_fail(&d->r, TI_STATUS_BAD_PARAM, p, "values stored as %s", ti_dtype_name(v->storage));
    }
    v->count = i;
    if (why == 1) return ti_pb_fail(&d->r, TI_STATUS_PARSE_ERROR, p, "malformed varint (truncated, over 10 bytes or over 64 bits)");
    if (why == 3) {
      if (ti__pb_spend(&d->spent, d->budget, cap, 4)) {
        char msg[256];
        ti__pb_budget_msg(msg, sizeof msg, cap, "widened values", 4, d->spent, d->budget);
        return ti_pb_fail(&d->r, TI_STATUS_LIMIT, p, "%s", msg);
      }
      if (ti__pb_values_realloc(d->a, v, cap, ti__pb_widest(vkind)))
        return ti_pb_fail(&d->r, TI_STATUS_NO_MEMORY, p, "out of memory for %lld values", (long long)cap);
    } else if (p < end)
      return ti_pb_fail(&d->r, TI_STATUS_PARSE_ERROR, p, "more values than counted");
  }
  return TI_STATUS_SUCCESS;
}

static ti_status ti__pb_dec_msg(ti__pb_dec *d, const ti__pb_msg *m, void *obj);

static ti_status ti__pb_dec_sub(ti__pb_dec *d, const ti__pb_field *f, int32_t index, void *sub) {
  ti_pb_reader *r = &d->r;
  const uint8_t *saved = NULL;
  size_t len = 0;
  ti_status st;
  TI__PB_TRY(ti__pb_len(r, &len));
  TI__PB_TRY(ti_pb_push(r, f->name, index, len, &saved));
  st = ti__pb_dec_msg(d, f->sub, sub);
  if (st != TI_STATUS_SUCCESS) return st;  /* keep the path for the message */
  ti_pb_pop(r, saved);
  return TI_STATUS_SUCCESS;
}

static ti_status ti__pb_dec_msg(ti__pb_dec *d, const ti__pb_msg *m, void *obj) {
  ti_pb_reader *r = &d->r;
  const uint8_t *start = r->p;
  int64_t cnt[TI__PB_MAXF], cap[TI__PB_MAXF];
  int hint = -1, i;
  uint32_t num = 0, wt = 0;
  memset(cnt, 0, sizeof cnt);

  /* Pass 1: count the repeated fields (payloads of nested messages are
     skipped, packed varints counted), so each array is allocated once. */
  while (r->p < r->end) {
    int fi;
    const ti__pb_field *f;
    const uint8_t *q, *tagp = r->p;
    size_t len = 0;
    r->field = NULL;
    r->field_num = 0;
    TI__PB_TRY(ti__pb_tag(r, &num, &wt));
    fi = ti__pb_find(m, num);
    if (fi < 0) { r->field_num = num; TI__PB_TRY(ti__pb_skip(r, num, wt, tagp)); continue; }
    f = &m->fields[fi];
    r->field = f->name;
    if (fi == m->hint_field && wt == TI_PB_VARINT) {
      uint64_t x;
      TI__PB_TRY(ti__pb_varint(r, &x));
      hint = ti__pb_enum_from_wire(TI__E_PREC, (int32_t)(uint32_t)x, &hint) == 0 ? hint : -1;
      continue;
    }
    if ((f->kind == TI__K_REP_MSG && wt == TI_PB_LEN) ||
        ((f->kind == TI__K_REP_INT32 || (f->kind == TI__K_VALUES && f->aux != TI__V_FLOAT)) && wt == TI_PB_VARINT) ||
        (f->kind == TI__K_VALUES && f->aux == TI__V_FLOAT && wt == TI_PB_FIXED32)) {
      cnt[fi]++;
      if (f->sub == &ti__pbm_block && cnt[fi] > TASKIR_MAX_BLOCKS)
        return ti_pb_fail(r, TI_STATUS_LIMIT, tagp, "block %lld is one more than TASKIR_MAX_BLOCKS (%d)", (long long)cnt[fi] - 1,
                          (int)TASKIR_MAX_BLOCKS);
      if (f->sub == &ti__pbm_edge && cnt[fi] > TASKIR_MAX_EDGES)
        return ti_pb_fail(r, TI_STATUS_LIMIT, tagp, "edge %lld is one more than TASKIR_MAX_EDGES (%d)", (long long)cnt[fi] - 1,
                          (int)TASKIR_MAX_EDGES);
      TI__PB_TRY(ti__pb_skip(r, num, wt, tagp));
    } else if ((f->kind == TI__K_REP_INT32 || f->kind == TI__K_VALUES) && wt == TI_PB_LEN) {
      int64_t c;
      q = r->p;
      TI__PB_TRY(ti__pb_len(r, &len));
      if (f->aux == TI__V_FLOAT && f->kind == TI__K_VALUES) {
        if (len % 4) return ti_pb_fail(r, TI_STATUS_PARSE_ERROR, q, "packed float payload of %lu bytes, not a multiple of 4", (unsigned long)len);
        c = (int64_t)(len / 4);
      } else if ((c = ti__pb_count_varints(r->p, len)) < 0)
        return ti_pb_fail(r, TI_STATUS_PARSE_ERROR, r->p + len - 1, "packed field ends inside a varint");
      cnt[fi] += c;
      r->p += len;
    } else
      TI__PB_TRY(ti__pb_skip(r, num, wt, tagp));
  }

  /* Allocate: grow existing arrays (a merged message) by the counts. */
  for (i = 0; i < m->n_fields; i++) {
    const ti__pb_field *f = &m->fields[i];
    cap[i] = 0;
    if (!cnt[i]) continue;
    r->field = f->name;
    if (f->kind == TI__K_REP_MSG || f->kind == TI__K_REP_INT32) {
      int32_t n = *TI__AT(obj, f->off_n, int32_t);
      size_t es = f->kind == TI__K_REP_MSG ? f->sub->size : sizeof(int32_t);
      void **pp = TI__AT(obj, f->off, void *);
      char *na;
      int64_t k;
      if (cnt[i] > (int64_t)INT32_MAX - n)
        return ti_pb_fail(r, TI_STATUS_LIMIT, start, "more than 2^31-1 elements in %s", f->name);
      if (ti__pb_spend(&d->spent, d->budget, n + cnt[i], es)) {
        char msg[256];
        ti__pb_budget_msg(msg, sizeof msg, n + cnt[i], f->name, es, d->spent, d->budget);
        return ti_pb_fail(r, TI_STATUS_LIMIT, start, "%s", msg);
      }
      na = (char *)ti_arena_array(d->a, (size_t)(n + cnt[i]), es, 8);
      if (!na) return ti_pb_fail(r, TI_STATUS_NO_MEMORY, start, "out of memory for %lld elements", (long long)(n + cnt[i]));
      if (n) memcpy(na, *pp, (size_t)n * es);
      if (f->kind == TI__K_REP_MSG)
        for (k = n; k < n + cnt[i]; k++) ti__pb_msg_init(f->sub, na + (size_t)k * es);
      *pp = na;
    } else if (f->kind == TI__K_VALUES) {
      ti_task_values *v = TI__AT(obj, f->off, ti_task_values);
      if (cnt[i] > INT64_MAX / 8 - v->count)
        return ti_pb_fail(r, TI_STATUS_LIMIT, start, "too many values");
      cap[i] = v->count + cnt[i];
      if (ti__pb_spend(&d->spent, d->budget, cap[i], 4)) {
        char msg[256];
        ti__pb_budget_msg(msg, sizeof msg, cap[i], f->name, 4, d->spent, d->budget);
        return ti_pb_fail(r, TI_STATUS_LIMIT, start, "%s", msg);
      }
      if (ti__pb_values_realloc(d->a, v, cap[i], v->count ? v->storage : ti__pb_storage_hint(f->aux, hint)))
        return ti_pb_fail(r, TI_STATUS_NO_MEMORY, start, "out of memory for %lld values", (long long)cap[i]);
    }
  }

  /* Pass 2: decode. */
  r->p = start;
  while (r->p < r->end) {
    int fi;
    const ti__pb_field *f;
    const uint8_t *tagp = r->p, *q;
    uint32_t *has = (uint32_t *)obj;  /* every message struct starts with `has` */
    uint32_t u = 0;
    uint64_t x = 0;
    size_t len = 0;
    r->field = NULL;
    r->field_num = 0;
    TI__PB_TRY(ti__pb_tag(r, &num, &wt));
    fi = ti__pb_find(m, num);
    if (fi < 0) { r->field_num = num; TI__PB_TRY(ti__pb_skip(r, num, wt, tagp)); continue; }
    f = &m->fields[fi];
    r->field = f->name;
/* A known field with another wire type is an unknown field to protobuf:
   skipped, the field left as it was. */
#define TI__PB_WANT(w)                                           \
  if (wt != (w)) {                                               \
    r->field_num = num;                                          \
    TI__PB_TRY(ti__pb_skip(r, num, wt, tagp));                   \
    break;                                                       \
  }
    switch (f->kind) {
    case TI__K_INT32:
      TI__PB_WANT(TI_PB_VARINT);
      TI__PB_TRY(ti__pb_varint32(r, &u));
      *TI__AT(obj, f->off, int32_t) = (int32_t)u;
      *has |= f->has;
      break;
    case TI__K_INT64:
      TI__PB_WANT(TI_PB_VARINT);
      TI__PB_TRY(ti__pb_varint(r, &x));
      *TI__AT(obj, f->off, int64_t) = (int64_t)x;
      *has |= f->has;
      break;
    case TI__K_BOOL:
      TI__PB_WANT(TI_PB_VARINT);
      TI__PB_TRY(ti__pb_varint(r, &x));
      *TI__AT(obj, f->off, int32_t) = x != 0;
      *has |= f->has;
      break;
    case TI__K_FLOAT:
      TI__PB_WANT(TI_PB_FIXED32);
      TI__PB_TRY(ti_pb_read_fixed32(r, &u));
      memcpy(TI__AT(obj, f->off, float), &u, 4);
      *has |= f->has;
      break;
    case TI__K_ENUM: {
      int e;
      TI__PB_WANT(TI_PB_VARINT);
      TI__PB_TRY(ti__pb_varint32(r, &u));
      /* proto2: a value the enum does not define is an unknown field; the
         field keeps its value (unset when first seen) */
      if (ti__pb_enum_from_wire(f->aux, (int32_t)u, &e)) break;
      ti__pb_set_enum(obj, f->off, e);
      *has |= f->has;
      break;
    }
    case TI__K_STRING: {
      const uint8_t *s;
      char *c;
      TI__PB_WANT(TI_PB_LEN);
      q = r->p;
      TI__PB_TRY(ti_pb_read_bytes(r, &s, &len));
      if (len > (size_t)INT32_MAX) return ti_pb_fail(r, TI_STATUS_LIMIT, q, "string over 2^31-1 bytes");
      c = ti_arena_strndup(d->a, (const char *)s, len);
      if (!c) return ti_pb_fail(r, TI_STATUS_NO_MEMORY, q, "out of memory");
      *TI__AT(obj, f->off, char *) = c;
      *TI__AT(obj, f->off_n, int32_t) = (int32_t)len;
      *has |= f->has;
      break;
    }
    case TI__K_MSG:
      TI__PB_WANT(TI_PB_LEN);
      TI__PB_TRY(ti__pb_dec_sub(d, f, -1, TI__AT(obj, f->off, char)));
      *has |= f->has;
      break;
    case TI__K_REP_MSG: {
      int32_t *n = TI__AT(obj, f->off_n, int32_t);
      char *arr = *TI__AT(obj, f->off, char *);
      TI__PB_WANT(TI_PB_LEN);
      TI__PB_TRY(ti__pb_dec_sub(d, f, *n, arr + (size_t)*n * f->sub->size));
      (*n)++;
      break;
    }
    case TI__K_REP_INT32: {
      int32_t *n = TI__AT(obj, f->off_n, int32_t);
      int32_t *arr = *TI__AT(obj, f->off, int32_t *);
      if (wt == TI_PB_VARINT) {
        TI__PB_TRY(ti__pb_varint32(r, &u));
        arr[(*n)++] = (int32_t)u;
      } else if (wt == TI_PB_LEN) {
        const uint8_t *saved;
        TI__PB_TRY(ti__pb_len(r, &len));
        saved = r->end;
        r->end = r->p + len;
        while (r->p < r->end) {
          ti_status st = ti__pb_varint32(r, &u);
          if (st != TI_STATUS_SUCCESS) { r->end = saved; return st; }
          arr[(*n)++] = (int32_t)u;
        }
        r->end = saved;
      } else {   /* another wire type: an unknown field */
        r->field_num = num;
        TI__PB_TRY(ti__pb_skip(r, num, wt, tagp));
      }
      break;
    }
    case TI__K_VALUES: {
      ti_task_values *v = TI__AT(obj, f->off, ti_task_values);
      if (f->aux == TI__V_FLOAT) {
        if (wt == TI_PB_FIXED32) {
          TI__PB_TRY(ti_pb_read_fixed32(r, &u));
          memcpy((float *)v->data + v->count, &u, 4);
          v->count++;
        } else if (wt == TI_PB_LEN) {
          const uint8_t *s;
          TI__PB_TRY(ti_pb_read_bytes(r, &s, &len));
          if (len % 4 || (int64_t)(len / 4) > cap[fi] - v->count)
            return ti_pb_fail(r, TI_STATUS_PARSE_ERROR, s, "bad packed float payload");
#if TI__PB_LE
          if (len) memcpy((float *)v->data + v->count, s, len);
          v->count += (int64_t)(len / 4);
#else
          {
            size_t k;
            for (k = 0; k < len; k += 4) {
              uint32_t w = (uint32_t)s[k] | (uint32_t)s[k + 1] << 8 | (uint32_t)s[k + 2] << 16 | (uint32_t)s[k + 3] << 24;
              memcpy((float *)v->data + v->count++, &w, 4);
            }
          }
#endif
        } else {   /* another wire type: an unknown field */
          r->field_num = num;
          TI__PB_TRY(ti__pb_skip(r, num, wt, tagp));
        }
      } else {
        if (wt == TI_PB_VARINT) {
          q = r->p;
          TI__PB_TRY(ti__pb_varint(r, &x));
          TI__PB_TRY(ti__pb_dec_ints(d, v, cap[fi], q, r->p, f->aux));
        } else if (wt == TI_PB_LEN) {
          const uint8_t *s;
          TI__PB_TRY(ti_pb_read_bytes(r, &s, &len));
          TI__PB_TRY(ti__pb_dec_ints(d, v, cap[fi], s, s + len, f->aux));
        } else {   /* another wire type: an unknown field */
          r->field_num = num;
          TI__PB_TRY(ti__pb_skip(r, num, wt, tagp));
        }
      }
      break;
    }
    }
#undef TI__PB_WANT
  }
  r->field = NULL;
  r->field_num = 0;
  return TI_STATUS_SUCCESS;
}

TASKIR_API ti_status ti_task_decode(ti_task_graph *g, const void *buf, size_t len, ti_error *err) {
  ti_error_clear(err);
  ti__pb_dec d;
  if (!g || (!buf && len)) return ti_error_set(err, TI_STATUS_BAD_PARAM, "ti_task_decode: NULL graph or buffer");
  ti_pb_reader_init(&d.r, buf, len, err);
  d.a = &g->arena;
  d.spent = 0;
  d.budget = ti__pb_budget(len);
  return ti__pb_dec_msg(&d, &ti__pbm_graph, g);
}

/* >>impl.proto.encode ------------------------------------------------------ */

/* Sizes of nested messages and packed payloads, computed once in a first
   pass (pre-order) and consumed in the same order by the writing pass. */
typedef struct ti__pb_enc {
  size_t *sz;
  size_t n, next;
  int64_t cap;
  void *alloc_user;
  ti_error *err;
} ti__pb_enc;

static ti_status ti__pb_enc_slot(ti__pb_enc *e, size_t *slot) {
  *slot = 0;
  if (!ti__grow(e->alloc_user, &e->sz, sizeof *e->sz, &e->cap, (int64_t)e->n + 1, 256, INT64_MAX))
    return ti_error_set(e->err, TI_STATUS_NO_MEMORY, "protobuf encode: out of memory");
  *slot = e->n++;
  return TI_STATUS_SUCCESS;
}

static size_t ti__pb_packed_size(const ti_task_values *v) {
  size_t s = 0;
  int64_t i, n = v->count;
  switch (v->storage) {
  case TI_DTYPE_F32: return (size_t)n * 4;
  case TI_DTYPE_I8: { const int8_t *a = (const int8_t *)v->data; s = (size_t)n; for (i = 0; i < n; i++) s += a[i] < 0 ? 9 : 0; return s; }
  case TI_DTYPE_U8: { const uint8_t *a = (const uint8_t *)v->data; s = (size_t)n; for (i = 0; i < n; i++) s += a[i] >= 0x80; return s; }
  case TI_DTYPE_I16: {
    const int16_t *a = (const int16_t *)v->data;
    for (i = 0; i < n; i++) s += a[i] < 0 ? 10 : a[i] < 0x80 ? 1 : a[i] < 0x4000 ? 2 : 3;
    return s;
  }
  case TI_DTYPE_U16: { const uint16_t *a = (const uint16_t *)v->data; for (i = 0; i < n; i++) s += a[i] < 0x80 ? 1 : a[i] < 0x4000 ? 2 : 3; return s; }
  case TI_DTYPE_I32: { const int32_t *a = (const int32_t *)v->data; for (i = 0; i < n; i++) s += a[i] < 0 ? 10 : ti_pb_varint_size((uint32_t)a[i]); return s; }
  case TI_DTYPE_U32: { const uint32_t *a = (const uint32_t *)v->data; for (i = 0; i < n; i++) s += ti_pb_varint_size(a[i]); return s; }
  default: return 0;
  }
}

static int ti__pb_storage_ok(int vkind, ti_dtype s) {
  if (vkind == TI__V_FLOAT) return s == TI_DTYPE_F32;
  if (vkind == TI__V_INT32) return s == TI_DTYPE_I8 || s == TI_DTYPE_I16 || s == TI_DTYPE_I32;
  return s == TI_DTYPE_U8 || s == TI_DTYPE_U16 || s == TI_DTYPE_U32;
}

static ti_status ti__pb_enc_size(ti__pb_enc *e, const ti__pb_msg *m, const void *obj, size_t *out) {
  size_t total = 0;
  int i;
  uint32_t has = *(const uint32_t *)obj;
  for (i = 0; i < m->n_fields; i++) {
    const ti__pb_field *f = &m->fields[i];
    size_t tag = ti_pb_varint_size((uint64_t)f->number << 3);
    switch (f->kind) {
    case TI__K_INT32:
      if (has & f->has) total += tag + ti_pb_varint_size((uint64_t)(int64_t)*TI__CAT(obj, f->off, int32_t));
      break;
    case TI__K_INT64:
      if (has & f->has) total += tag + ti_pb_varint_size((uint64_t)*TI__CAT(obj, f->off, int64_t));
      break;
    case TI__K_BOOL: if (has & f->has) total += tag + 1; break;
    case TI__K_FLOAT: if (has & f->has) total += tag + 4; break;
    case TI__K_ENUM:
      if (has & f->has) {
        int32_t w;
        if (ti__pb_enum_to_wire(f->aux, ti__pb_get_enum(obj, f->off), &w))
          return ti_error_set(e->err, TI_STATUS_BAD_PARAM, "protobuf encode: %s.%s holds %d, not a %s", m->name, f->name,
                              ti__pb_get_enum(obj, f->off), ti__pb_enum_type(f->aux));
        total += tag + ti_pb_varint_size((uint64_t)(int64_t)w);
      }
      break;
    case TI__K_STRING:
      if (has & f->has) {
        int32_t n = *TI__CAT(obj, f->off_n, int32_t);
        if (n < 0 || (n && !*TI__CAT(obj, f->off, char *)))
          return ti_error_set(e->err, TI_STATUS_BAD_PARAM, "protobuf encode: %s.%s has length %ld", m->name, f->name, (long)n);
        total += tag + ti_pb_varint_size((uint64_t)n) + (size_t)n;
      }
      break;
    case TI__K_MSG:
      if (has & f->has) {
        size_t slot = 0, s = 0;
        TI__PB_TRY(ti__pb_enc_slot(e, &slot));
        TI__PB_TRY(ti__pb_enc_size(e, f->sub, TI__CAT(obj, f->off, char), &s));
        e->sz[slot] = s;
        total += tag + ti_pb_varint_size(s) + s;
      }
      break;
    case TI__K_REP_MSG: {
      int32_t n = *TI__CAT(obj, f->off_n, int32_t), k;
      const char *arr = *TI__CAT(obj, f->off, char *);
      if (n < 0 || (n && !arr))
        return ti_error_set(e->err, TI_STATUS_BAD_PARAM, "protobuf encode: %s.%s has count %ld", m->name, f->name, (long)n);
      for (k = 0; k < n; k++) {
        size_t slot = 0, s = 0;
        TI__PB_TRY(ti__pb_enc_slot(e, &slot));
        TI__PB_TRY(ti__pb_enc_size(e, f->sub, arr + (size_t)k * f->sub->size, &s));
        e->sz[slot] = s;
        total += tag + ti_pb_varint_size(s) + s;
      }
      break;
    }
    case TI__K_REP_INT32: {
      int32_t n = *TI__CAT(obj, f->off_n, int32_t), k;
      const int32_t *arr = *TI__CAT(obj, f->off, int32_t *);
      if (n < 0 || (n && !arr))
        return ti_error_set(e->err, TI_STATUS_BAD_PARAM, "protobuf encode: %s.%s has count %ld", m->name, f->name, (long)n);
      for (k = 0; k < n; k++) total += tag + ti_pb_varint_size((uint64_t)(int64_t)arr[k]);
      break;
    }
    case TI__K_VALUES: {
      const ti_task_values *v = TI__CAT(obj, f->off, ti_task_values);
      size_t slot = 0, s = 0;
      if (!v->count) break;
      if (v->count < 0 || !v->data || !ti__pb_storage_ok(f->aux, v->storage))
        return ti_error_set(e->err, TI_STATUS_BAD_PARAM, "protobuf encode: %s.%s has count %lld, storage %s", m->name,
                            f->name, (long long)v->count, ti_dtype_name(v->storage) ? ti_dtype_name(v->storage) : "?");
      TI__PB_TRY(ti__pb_enc_slot(e, &slot));
      s = ti__pb_packed_size(v);
      e->sz[slot] = s;
      total += tag + ti_pb_varint_size(s) + s;
      break;
    }
    }
  }
  *out = total;
  return TI_STATUS_SUCCESS;
}

static uint8_t *ti__pb_put_ints(uint8_t *p, const ti_task_values *v) {
  int64_t i, n = v->count;
  static const uint8_t neg[10] = { 0x80, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01 };
  switch (v->storage) {
  case TI_DTYPE_I8: {
    const int8_t *a = (const int8_t *)v->data;
    i = 0;
#if TI__PB_LE
    /* Branch-free while 10 values remain (so at least 10 bytes of room):
       write the 10-byte negative form, keep 1 or 10 of its bytes. */
    for (; i + 10 <= n; i++) {
      uint8_t x = (uint8_t)a[i];
      uint64_t w = 0xFFFFFFFFFFFFFF00ull | x;
      memcpy(p, &w, 8);
      p[8] = 0xFF;
      p[9] = 0x01;
      p += 1 + 9 * (x >> 7);
    }
#endif
    for (; i < n; i++) {
      int8_t x = a[i];
      if (x >= 0) *p++ = (uint8_t)x;
      else { memcpy(p, neg, 10); p[0] = (uint8_t)(0x80 | ((uint8_t)x & 0x7F)); p += 10; }
    }
    return p;
  }
  case TI_DTYPE_I16: {
    const int16_t *a = (const int16_t *)v->data;
    for (i = 0; i < n; i++) {
      int16_t x = a[i];
      if (x >= 0 && x < 0x80) *p++ = (uint8_t)x;
      else p = ti__pb_put(p, (uint64_t)(int64_t)x);
    }
    return p;
  }
  case TI_DTYPE_I32: {
    const int32_t *a = (const int32_t *)v->data;
    for (i = 0; i < n; i++) {
      int32_t x = a[i];
      if (x >= 0 && x < 0x80) *p++ = (uint8_t)x;
      else p = ti__pb_put(p, (uint64_t)(int64_t)x);
    }
    return p;
  }
  case TI_DTYPE_U8: { const uint8_t *a = (const uint8_t *)v->data; for (i = 0; i < n; i++) p = ti__pb_put(p, a[i]); return p; }
  case TI_DTYPE_U16: { const uint16_t *a = (const uint16_t *)v->data; for (i = 0; i < n; i++) p = ti__pb_put(p, a[i]); return p; }
  case TI_DTYPE_U32: { const uint32_t *a = (const uint32_t *)v->data; for (i = 0; i < n; i++) p = ti__pb_put(p, a[i]); return p; }
  case TI_DTYPE_F32:
#if TI__PB_LE
    memcpy(p, v->data, (size_t)n * 4);
    return p + n * 4;
#else
    for (i = 0; i < n; i++) {
      uint32_t w;
      memcpy(&w, (const float *)v->data + i, 4);
      p[0] = (uint8_t)w; p[1] = (uint8_t)(w >> 8); p[2] = (uint8_t)(w >> 16); p[3] = (uint8_t)(w >> 24);
      p += 4;
    }
    return p;
#endif
  default: return p;
  }
}

/* Writes obj; the room was sized exactly by ti__pb_enc_size. */
static uint8_t *ti__pb_enc_write(ti__pb_enc *e, const ti__pb_msg *m, const void *obj, uint8_t *p) {
  int i;
  uint32_t has = *(const uint32_t *)obj;
  for (i = 0; i < m->n_fields; i++) {
    const ti__pb_field *f = &m->fields[i];
    uint64_t tag = (uint64_t)f->number << 3;
    switch (f->kind) {
    case TI__K_INT32:
      if (has & f->has) { p = ti__pb_put(p, tag); p = ti__pb_put(p, (uint64_t)(int64_t)*TI__CAT(obj, f->off, int32_t)); }
      break;
    case TI__K_INT64:
      if (has & f->has) { p = ti__pb_put(p, tag); p = ti__pb_put(p, (uint64_t)*TI__CAT(obj, f->off, int64_t)); }
      break;
    case TI__K_BOOL:
      if (has & f->has) { p = ti__pb_put(p, tag); *p++ = *TI__CAT(obj, f->off, int32_t) ? 1 : 0; }
      break;
    case TI__K_FLOAT:
      if (has & f->has) {
        uint32_t w;
        memcpy(&w, TI__CAT(obj, f->off, float), 4);
        p = ti__pb_put(p, tag | TI_PB_FIXED32);
        p[0] = (uint8_t)w; p[1] = (uint8_t)(w >> 8); p[2] = (uint8_t)(w >> 16); p[3] = (uint8_t)(w >> 24);
        p += 4;
      }
      break;
    case TI__K_ENUM:
      if (has & f->has) {
        int32_t w = 0;
        ti__pb_enum_to_wire(f->aux, ti__pb_get_enum(obj, f->off), &w);
        p = ti__pb_put(p, tag);
        p = ti__pb_put(p, (uint64_t)(int64_t)w);
      }
      break;
    case TI__K_STRING:
      if (has & f->has) {
        int32_t n = *TI__CAT(obj, f->off_n, int32_t);
        p = ti__pb_put(p, tag | TI_PB_LEN);
        p = ti__pb_put(p, (uint64_t)n);
        if (n) memcpy(p, *TI__CAT(obj, f->off, char *), (size_t)n);
        p += n;
      }
      break;
    case TI__K_MSG:
      if (has & f->has) {
        p = ti__pb_put(p, tag | TI_PB_LEN);
        p = ti__pb_put(p, e->sz[e->next++]);
        p = ti__pb_enc_write(e, f->sub, TI__CAT(obj, f->off, char), p);
      }
      break;
    case TI__K_REP_MSG: {
      int32_t n = *TI__CAT(obj, f->off_n, int32_t), k;
      const char *arr = *TI__CAT(obj, f->off, char *);
      for (k = 0; k < n; k++) {
        p = ti__pb_put(p, tag | TI_PB_LEN);
        p = ti__pb_put(p, e->sz[e->next++]);
        p = ti__pb_enc_write(e, f->sub, arr + (size_t)k * f->sub->size, p);
      }
      break;
    }
    case TI__K_REP_INT32: {
      int32_t n = *TI__CAT(obj, f->off_n, int32_t), k;
      const int32_t *arr = *TI__CAT(obj, f->off, int32_t *);
      for (k = 0; k < n; k++) { p = ti__pb_put(p, tag); p = ti__pb_put(p, (uint64_t)(int64_t)arr[k]); }
      break;
    }
    case TI__K_VALUES: {
      const ti_task_values *v = TI__CAT(obj, f->off, ti_task_values);
      if (!v->count) break;
      p = ti__pb_put(p, tag | TI_PB_LEN);
      p = ti__pb_put(p, e->sz[e->next++]);
      p = ti__pb_put_ints(p, v);
      break;
    }
    }
  }
  return p;
}

static ti_status ti__pb_encode(const ti_task_graph *g, ti_buffer *out, void *dst, size_t cap, size_t *len, ti_error *err) {
  ti__pb_enc e;
  size_t total = 0;
  ti_status st;
  uint8_t *p, *q;
  if (!g) return ti_error_set(err, TI_STATUS_BAD_PARAM, "protobuf encode: NULL graph");
  memset(&e, 0, sizeof e);
  e.alloc_user = out ? out->alloc_user : g->arena.alloc_user;
  e.err = err;
  st = ti__pb_enc_size(&e, &ti__pbm_graph, g, &total);
  if (len) *len = st == TI_STATUS_SUCCESS ? total : 0;
  if (st == TI_STATUS_SUCCESS) {
    if (out) {
      st = ti_buffer_reserve(out, total);
      if (st != TI_STATUS_SUCCESS) ti_error_set(err, st, "protobuf encode: out of memory for %lu bytes", (unsigned long)total);
      p = st == TI_STATUS_SUCCESS && total ? out->data + out->len : NULL;
    } else if (!dst || !total) p = NULL;
    else if (cap < total) {
      st = ti_error_set(err, TI_STATUS_LIMIT, "protobuf encode: buffer of %lu bytes, %lu needed", (unsigned long)cap,
                        (unsigned long)total);
      p = NULL;
    } else p = (uint8_t *)dst;
    if (p) {
      q = ti__pb_enc_write(&e, &ti__pbm_graph, g, p);
      TASKIR_ASSERT((size_t)(q - p) == total && e.next == e.n);
      (void)q;
      if (out) out->len += total;
    }
  }
  if (e.sz) TASKIR_FREE(e.alloc_user, e.sz);
  return st;
}

TASKIR_API ti_status ti_task_encode(const ti_task_graph *g, ti_buffer *out, ti_error *err) {
  ti_error_clear(err);
  if (!out) return ti_error_set(err, TI_STATUS_BAD_PARAM, "ti_task_encode: NULL buffer");
  return ti__pb_encode(g, out, NULL, 0, NULL, err);
}

TASKIR_API ti_status ti_task_encode_into(const ti_task_graph *g, void *dst, size_t cap, size_t *len, ti_error *err) {
  ti_error_clear(err);
  return ti__pb_encode(g, NULL, dst, cap, len, err);
}

/* >>impl.proto.text.write -------------------------------------------------- */

/* protobuf's SimpleFtoa: the shorter of %.6g and %.9g that reads back. */
static void ti__pb_ftoa(float v, char *buf, size_t cap) {
  if (v != v) { snprintf(buf, cap, "nan"); return; }
  if (v > 3.402823466e38f) { snprintf(buf, cap, "inf"); return; }
  if (v < -3.402823466e38f) { snprintf(buf, cap, "-inf"); return; }
  snprintf(buf, cap, "%.6g", (double)v);
  /* protobuf's safe_strtof also fails on underflow: subnormals get %.9g */
  if ((v != 0 && v > -1.17549435e-38f && v < 1.17549435e-38f) || strtof(buf, NULL) != v) snprintf(buf, cap, "%.9g", (double)v);
}

static char *ti__pb_itoa(char *p, int64_t v) {
  char tmp[24];
  int n = 0;
  uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  do { tmp[n++] = (char)('0' + u % 10); u /= 10; } while (u);
  if (v < 0) *p++ = '-';
  while (n) *p++ = tmp[--n];
  return p;
}

/* Starts a line "<indent>name" with room for `extra` more bytes. */
static char *ti__pb_tf_line(ti_buffer *b, int indent, const char *name, size_t extra) {
  size_t nl = strlen(name);
  char *p;
  if (ti_buffer_reserve(b, (size_t)indent + nl + extra + 8) != TI_STATUS_SUCCESS) return NULL;
  p = (char *)b->data + b->len;
  memset(p, ' ', (size_t)indent);
  memcpy(p + indent, name, nl);
  return p + indent + nl;
}

#define TI__PB_TF_END(b, p) ((b)->len = (size_t)((unsigned char *)(p) - (b)->data))

static ti_status ti__pb_tf_msg(ti_buffer *b, const ti__pb_msg *m, const void *obj, int indent, ti_error *err);

static ti_status ti__pb_tf_sub(ti_buffer *b, const ti__pb_field *f, const void *sub, int indent, ti_error *err) {
  char *p = ti__pb_tf_line(b, indent, f->name, 3);
  if (!p) return ti_error_set(err, TI_STATUS_NO_MEMORY, "text format: out of memory");
  memcpy(p, " {\n", 3);
  TI__PB_TF_END(b, p + 3);
  TI__PB_TRY(ti__pb_tf_msg(b, f->sub, sub, indent + 2, err));
  p = ti__pb_tf_line(b, indent, "", 2);
  if (!p) return ti_error_set(err, TI_STATUS_NO_MEMORY, "text format: out of memory");
  memcpy(p, "}\n", 2);
  TI__PB_TF_END(b, p + 2);
  return TI_STATUS_SUCCESS;
}

static ti_status ti__pb_tf_msg(ti_buffer *b, const ti__pb_msg *m, const void *obj, int indent, ti_error *err) {
  int i;
  uint32_t has = *(const uint32_t *)obj;
  for (i = 0; i < m->n_fields; i++) {
    const ti__pb_field *f = &m->fields[i];
    char *p;
    switch (f->kind) {
    case TI__K_INT32: case TI__K_INT64: case TI__K_BOOL: case TI__K_FLOAT: case TI__K_ENUM:
      if (!(has & f->has)) break;
      if (!(p = ti__pb_tf_line(b, indent, f->name, 64))) goto oom;
      *p++ = ':';
      *p++ = ' ';
      if (f->kind == TI__K_INT32) p = ti__pb_itoa(p, *TI__CAT(obj, f->off, int32_t));
      else if (f->kind == TI__K_INT64) p = ti__pb_itoa(p, *TI__CAT(obj, f->off, int64_t));
      else if (f->kind == TI__K_BOOL) {
        const char *s = *TI__CAT(obj, f->off, int32_t) ? "true" : "false";
        memcpy(p, s, strlen(s));
        p += strlen(s);
      } else if (f->kind == TI__K_FLOAT) {
        char tmp[40];
        ti__pb_ftoa(*TI__CAT(obj, f->off, float), tmp, sizeof tmp);
        memcpy(p, tmp, strlen(tmp));
        p += strlen(tmp);
      } else {
        const char *s = ti__pb_enum_name(f->aux, ti__pb_get_enum(obj, f->off));
        if (!s)
          return ti_error_set(err, TI_STATUS_BAD_PARAM, "text format: %s.%s holds %d, not a %s", m->name, f->name,
                              ti__pb_get_enum(obj, f->off), ti__pb_enum_type(f->aux));
        memcpy(p, s, strlen(s));
        p += strlen(s);
      }
      *p++ = '\n';
      TI__PB_TF_END(b, p);
      break;
    case TI__K_STRING: {
      int32_t n = *TI__CAT(obj, f->off_n, int32_t), k;
      const unsigned char *s = (const unsigned char *)*TI__CAT(obj, f->off, char *);
      if (!(has & f->has)) break;
      if (n < 0 || (n && !s)) return ti_error_set(err, TI_STATUS_BAD_PARAM, "text format: %s.%s has length %ld", m->name, f->name, (long)n);
      if (!(p = ti__pb_tf_line(b, indent, f->name, 4 * (size_t)n + 8))) goto oom;
      *p++ = ':'; *p++ = ' '; *p++ = '"';
      for (k = 0; k < n; k++) {   /* protobuf's CEscape */
        unsigned char c = s[k];
        switch (c) {
        case '\n': *p++ = '\\'; *p++ = 'n'; break;
        case '\r': *p++ = '\\'; *p++ = 'r'; break;
        case '\t': *p++ = '\\'; *p++ = 't'; break;
        case '"': *p++ = '\\'; *p++ = '"'; break;
        case '\'': *p++ = '\\'; *p++ = '\''; break;
        case '\\': *p++ = '\\'; *p++ = '\\'; break;
        default:
          if (c < 0x20 || c >= 0x7F) {
            *p++ = '\\'; *p++ = (char)('0' + (c >> 6)); *p++ = (char)('0' + ((c >> 3) & 7)); *p++ = (char)('0' + (c & 7));
          } else *p++ = (char)c;
        }
      }
      *p++ = '"'; *p++ = '\n';
      TI__PB_TF_END(b, p);
      break;
    }
    case TI__K_MSG:
      if (has & f->has) TI__PB_TRY(ti__pb_tf_sub(b, f, TI__CAT(obj, f->off, char), indent, err));
      break;
    case TI__K_REP_MSG: {
      int32_t n = *TI__CAT(obj, f->off_n, int32_t), k;
      const char *arr = *TI__CAT(obj, f->off, char *);
      if (n < 0 || (n && !arr)) return ti_error_set(err, TI_STATUS_BAD_PARAM, "text format: %s.%s has count %ld", m->name, f->name, (long)n);
      for (k = 0; k < n; k++) TI__PB_TRY(ti__pb_tf_sub(b, f, arr + (size_t)k * f->sub->size, indent, err));
      break;
    }
    case TI__K_REP_INT32: {
      int32_t n = *TI__CAT(obj, f->off_n, int32_t), k;
      const int32_t *arr = *TI__CAT(obj, f->off, int32_t *);
      if (n < 0 || (n && !arr)) return ti_error_set(err, TI_STATUS_BAD_PARAM, "text format: %s.%s has count %ld", m->name, f->name, (long)n);
      for (k = 0; k < n; k++) {
        if (!(p = ti__pb_tf_line(b, indent, f->name, 16))) goto oom;
        *p++ = ':'; *p++ = ' ';
        p = ti__pb_itoa(p, arr[k]);
        *p++ = '\n';
        TI__PB_TF_END(b, p);
      }
      break;
    }
    case TI__K_VALUES: {
      const ti_task_values *v = TI__CAT(obj, f->off, ti_task_values);
      int64_t k;
      if (!v->count) continue;
      if (v->count < 0 || !v->data || !ti__pb_storage_ok(f->aux, v->storage))
        return ti_error_set(err, TI_STATUS_BAD_PARAM, "text format: %s.%s has count %lld, storage %d", m->name, f->name,
                            (long long)v->count, (int)v->storage);
      for (k = 0; k < v->count; k++) {
        if (!(p = ti__pb_tf_line(b, indent, f->name, 48))) goto oom;
        *p++ = ':'; *p++ = ' ';
        if (f->aux == TI__V_FLOAT) {
          char tmp[40];
          ti__pb_ftoa(((const float *)v->data)[k], tmp, sizeof tmp);
          memcpy(p, tmp, strlen(tmp));
          p += strlen(tmp);
        } else p = ti__pb_itoa(p, ti_task_values_get_i64(v, k));
        *p++ = '\n';
        TI__PB_TF_END(b, p);
      }
      break;
    }
    }
  }
  return TI_STATUS_SUCCESS;
oom:
  return ti_error_set(err, TI_STATUS_NO_MEMORY, "text format: out of memory");
}

TASKIR_API ti_status ti_task_format_text(const ti_task_graph *g, ti_buffer *out, ti_error *err) {
  ti_error_clear(err);
  size_t len0;
  ti_status st;
  if (!g || !out) return ti_error_set(err, TI_STATUS_BAD_PARAM, "ti_task_format_text: NULL graph or buffer");
  len0 = out->len;
  st = ti__pb_tf_msg(out, &ti__pbm_graph, g, 0, err);
  if (st != TI_STATUS_SUCCESS) out->len = len0;   /* nothing half-written */
  return st;
}

/* >>impl.proto.text.read --------------------------------------------------- */

typedef struct ti__pb_tp {
  const char *s, *p, *end;
  ti_error *err;
  ti_arena *a;
  int depth;
  struct { uint32_t *d; int64_t n, cap; } scr[3];   /* float, int32, uint32 values of a Tensor */
  size_t spent, budget;                               /* as ti__pb_dec's */
  char over[256];                                     /* the spend that did not fit, or "" */
} ti__pb_tp;

static ti_status ti__pb_tp_fail(ti__pb_tp *t, ti_status st, const char *at, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
#ifdef TASKIR_NO_ERRMSG   /* keeps line, column and offset (see ti_error_set) */
#define ti__pb_tp_fail(t, st, at, ...) (TI__NOMSG(__VA_ARGS__), (ti__pb_tp_fail)((t), (st), (at), NULL))
#endif
static ti_status (ti__pb_tp_fail)(ti__pb_tp *t, ti_status st, const char *at, const char *fmt, ...) {
  ti_error *err = t->err;
  if (err && err->status == TI_STATUS_SUCCESS) {
    const char *q, *bol = t->s;
    int32_t line = 1;
    for (q = t->s; q < at; q++) if (*q == '\n') { line++; bol = q + 1; }
#ifdef TASKIR_NO_ERRMSG
    (void)fmt;
    (ti_error_set)(err, st, NULL);
#else
    {
      char what[200];
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(what, sizeof what, fmt, ap);
      va_end(ap);
      ti_error_set(err, st, "text format: %s at line %ld column %ld", what, (long)line, (long)(at - bol + 1));
    }
#endif
    err->line = line;
    err->column = (int32_t)(at - bol + 1);
    err->offset = (int64_t)(at - t->s);
  }
  return st;
}

static int ti__pb_isid0(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int ti__pb_isdig(int c) { return c >= '0' && c <= '9'; }
static int ti__pb_isid(int c) { return ti__pb_isid0(c) || ti__pb_isdig(c); }
static int ti__pb_hexval(int c) {
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static int ti__pb_tp_peek(ti__pb_tp *t) {
  while (t->p < t->end) {
    char c = *t->p;
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') t->p++;
    else if (c == '#') { while (t->p < t->end && *t->p != '\n') t->p++; }
    else return (unsigned char)c;
  }
  return -1;
}

static size_t ti__pb_tp_ident(ti__pb_tp *t) {
  const char *q = t->p;
  while (q < t->end && ti__pb_isid((unsigned char)*q)) q++;
  return (size_t)(q - t->p);
}

static int ti__pb_ieq(const char *a, size_t n, const char *b) {
  size_t i;
  for (i = 0; i < n; i++) {
    int x = (unsigned char)a[i], y = (unsigned char)b[i];
    if (!y) return 0;
    if (x >= 'A' && x <= 'Z') x += 32;
    if (x != y) return 0;
  }
  return b[n] == 0;
}

static int ti__pb_eq(const char *a, size_t n, const char *b) { return strlen(b) == n && memcmp(a, b, n) == 0; }

/* One scalar token: [-] number, or [-] identifier. */
typedef struct ti__pb_tok {
  const char *at;      /* start, including the sign */
  int neg, kind;       /* kind: 0 integer, 1 float, 2 identifier */
  uint64_t u;          /* integer magnitude */
  int overflow;
  double d;            /* float value (sign applied) */
  const char *id;
  size_t idn;
} ti__pb_tok;

static ti_status ti__pb_tp_token(ti__pb_tp *t, ti__pb_tok *k, const char *what) {
  int c = ti__pb_tp_peek(t);
  const char *q;
  memset(k, 0, sizeof *k);
  k->at = t->p;
  if (c == '-') { t->p++; k->neg = 1; c = ti__pb_tp_peek(t); }
  q = t->p;
  if (ti__pb_isid0(c)) {
    k->kind = 2;
    k->id = t->p;
    k->idn = ti__pb_tp_ident(t);
    t->p += k->idn;
    return TI_STATUS_SUCCESS;
  }
  if (!(ti__pb_isdig(c) || (c == '.' && t->end - t->p > 1 && ti__pb_isdig((unsigned char)t->p[1]))))
    return ti__pb_tp_fail(t, TI_STATUS_PARSE_ERROR, c < 0 ? t->end : t->p, "expected a value for field \"%s\", found %s", what,
                          c < 0 ? "end of input" : "something else");
  if (c == '0' && t->end - q > 1 && (q[1] == 'x' || q[1] == 'X')) {
    q += 2;
    if (q >= t->end || ti__pb_hexval((unsigned char)*q) < 0)
      return ti__pb_tp_fail(t, TI_STATUS_PARSE_ERROR, t->p, "\"0x\" must be followed by hex digits");
    for (; q < t->end && ti__pb_hexval((unsigned char)*q) >= 0; q++) {
      if (k->u >> 60) k->overflow = 1;
      k->u = k->u << 4 | (uint64_t)ti__pb_hexval((unsigned char)*q);
    }
  } else {
    const char *s = q;
    int is_float = 0;
    while (q < t->end && ti__pb_isdig((unsigned char)*q)) q++;
    if (q < t->end && *q == '.') { is_float = 1; q++; while (q < t->end && ti__pb_isdig((unsigned char)*q)) q++; }
    if (q < t->end && (*q == 'e' || *q == 'E')) {
      is_float = 1;
      q++;
      if (q < t->end && (*q == '+' || *q == '-')) q++;
      if (q >= t->end || !ti__pb_isdig((unsigned char)*q))
        return ti__pb_tp_fail(t, TI_STATUS_PARSE_ERROR, q, "\"e\" must be followed by an exponent");
      while (q < t->end && ti__pb_isdig((unsigned char)*q)) q++;
    }
    if (is_float || (q < t->end && (*q == 'f' || *q == 'F'))) {
      char buf[128];
      size_t n = (size_t)(q - s);
      if (n >= sizeof buf) return ti__pb_tp_fail(t, TI_STATUS_PARSE_ERROR, s, "number too long");
      memcpy(buf, s, n);
      buf[n] = 0;
      k->kind = 1;
      k->d = strtod(buf, NULL);
      if (k->neg) k->d = -k->d;
      if (q < t->end && (*q == 'f' || *q == 'F')) q++;
    } else if (*s == '0' && q - s > 1) {
      const char *o;
      for (o = s + 1; o < q; o++) {
        if (*o > '7') return ti__pb_tp_fail(t, TI_STATUS_PARSE_ERROR, o, "numbers starting with 0 are octal: digit %c", *o);
        if (k->u >> 61) k->overflow = 1;
        k->u = k->u << 3 | (uint64_t)(*o - '0');
      }
    } else {
      const char *o;
      for (o = s; o < q; o++) {
        uint64_t dgt = (uint64_t)(*o - '0');
        if (k->u > (UINT64_MAX - dgt) / 10) k->overflow = 1;
        k->u = k->u * 10 + dgt;
      }
    }
  }
  if (q < t->end && ti__pb_isid((unsigned char)*q))
    return ti__pb_tp_fail(t, TI_STATUS_PARSE_ERROR, q, "need space between number and identifier");
  t->p = q;
  return TI_STATUS_SUCCESS;
}

static ti_status ti__pb_tp_int(ti__pb_tp *t, const ti__pb_tok *k, int64_t lo, uint64_t hi, int64_t *out, const char *fname) {
  if (k->kind != 0)
    return ti__pb_tp_fail(t, TI_STATUS_PARSE_ERROR, k->at, "expected an integer for field \"%s\"", fname);
  if (k->neg) {
    if (lo == 0 && k->u) return ti__pb_tp_fail(t, TI_STATUS_PARSE_ERROR, k->at, "negative value for unsigned field \"%s\"", fname);
    if (k->overflow || k->u > (uint64_t)0 - (uint64_t)lo)
      return ti__pb_tp_fail(t, TI_STATUS_PARSE_ERROR, k->at, "integer out of range for field \"%s\"", fname);
    *out = (int64_t)((uint64_t)0 - k->u);
  } else {
    if (k->overflow || k->u > hi)
      return ti__pb_tp_fail(t, TI_STATUS_PARSE_ERROR, k->at, "integer out of range for field \"%s\"", fname);
    *out = (int64_t)k->u;
  }
  return TI_STATUS_SUCCESS;
}

static ti_status ti__pb_tp_float(ti__pb_tp *t, const ti__pb_tok *k, float *out, const char *fname) {
  if (k->kind == 0) {
    if (k->overflow) return ti__pb_tp_fail(t, TI_STATUS_PARSE_ERROR, k->at, "integer out of range for field \"%s\"", fname);
    *out = (float)(k->neg ? -(double)k->u : (double)k->u);
  } else if (k->kind == 1) *out = (float)k->d;
  else if (ti__pb_ieq(k->id, k->idn, "inf") || ti__pb_ieq(k->id, k->idn, "infinity")) {
    float inf = (float)(1e300 * 1e10);
    *out = k->neg ? -inf : inf;
  } else if (ti__pb_ieq(k->id, k->idn, "nan")) {
    uint32_t w = k->neg ? 0xFFC00000u : 0x7FC00000u;   /* the quiet NaN protoc writes */
    memcpy(out, &w, 4);
  } else
    return ti__pb_tp_fail(t, TI_STATUS_PARSE_ERROR, k->at, "expected a number for field \"%s\", found \"%.*s\"", fname,
                          (int)k->idn, k->id);
  return TI_STATUS_SUCCESS;
}

/* One or more adjacent string literals, C escapes decoded, into the arena. */
static ti_status ti__pb_tp_string(ti__pb_tp *t, char **out, int32_t *out_len, const char *fname) {
  const char *start = t->p, *q;
  size_t raw = 0, n = 0;
  char *d;
  int c = ti__pb_tp_peek(t);
  if (c != '"' && c != '\'')
    return ti__pb_tp_fail(t, TI_STATUS_PARSE_ERROR, c < 0 ? t->end : t->p, "expected a string for field \"%s\"", fname);
  start = t->p;
  /* Pass 1: find the extent of each literal. */
  while ((c = ti__pb_tp_peek(t)) == '"' || c == '\'') {
    const char *open = t->p;
    for (q = t->p + 1;; q++) {
      if (q >= t->end || *q == '\n') return ti__pb_tp_fail(t, TI_STATUS_PARSE_ERROR, open, "unterminated string");
      if (*q == '\\') { q++; if (q >= t->end || *q == '\n') return ti__pb_tp_fail(t, TI_STATUS_PARSE_ERROR, open, "unterminated string"); continue; }
      if (*q == (char)c) break;
    }
    raw += (size_t)(q - t->p);
    t->p = q + 1;
  }
  d = (char *)ti_arena_alloc(t->a, raw + 1, 1);
  if (!d) return ti__pb_tp_fail(t, TI_STATUS_NO_MEMORY, start, "out of memory");
  /* Pass 2: decode. */
  t->p = start;
  while ((c = ti__pb_tp_peek(t)) == '"' || c == '\'') {
    for (q = t->p + 1; *q != (char)c; q++) {
      const char *esc = q;
      unsigned long cp;
      int i, h;
      if (*q != '\\') { d[n++] = *q; continue; }
      q++;
      switch (*q) {
      case 'a': d[n++] = '\a'; break;
      case 'b': d[n++] = '\b'; break;
      case 'f': d[n++] = '\f'; break;
      case 'n': d[n++] = '\n'; break;
      case 'r': d[n++] = '\r'; break;
      case 't': d[n++] = '\t'; break;
      case 'v': d[n++] = '\v'; break;
      case '\\': case '?': case '\'': case '"': d[n++] = *q; break;
      case 'x': case 'X':
        if (q + 1 >= t->end || ti__pb_hexval((unsigned char)q[1]) < 0)
          return ti__pb_tp_fail(t, TI_STATUS_PARSE_ERROR, esc, "\\x must be followed by hex digits");
        cp = 0;
        for (i = 0; i < 2 && q + 1 < t->end && (h = ti__pb_hexval((unsigned char)q[1])) >= 0; i++, q++) cp = cp * 16 + (unsigned long)h;
        d[n++] = (char)cp;
        break;
      case 'u': case 'U': {
        int len = *q == 'u' ? 4 : 8;
        cp = 0;
        for (i = 0; i < len; i++) {
          if (q + 1 >= t->end || (h = ti__pb_hexval((unsigned char)q[1])) < 0)
            return ti__pb_tp_fail(t, TI_STATUS_PARSE_ERROR, esc, "\\%c needs %d hex digits", len == 4 ? 'u' : 'U', len);
          cp = cp * 16 + (unsigned long)h;
          q++;
        }
        if (cp > 0x10FFFF) return ti__pb_tp_fail(t, TI_STATUS_PARSE_ERROR, esc, "code point past U+10FFFF");
        if (cp < 0x80) d[n++] = (char)cp;
        else if (cp < 0x800) { d[n++] = (char)(0xC0 | (cp >> 6)); d[n++] = (char)(0x80 | (cp & 0x3F)); }
        else if (cp < 0x10000) {
          d[n++] = (char)(0xE0 | (cp >> 12)); d[n++] = (char)(0x80 | ((cp >> 6) & 0x3F)); d[n++] = (char)(0x80 | (cp & 0x3F));
        } else {
          d[n++] = (char)(0xF0 | (cp >> 18)); d[n++] = (char)(0x80 | ((cp >> 12) & 0x3F));
          d[n++] = (char)(0x80 | ((cp >> 6) & 0x3F)); d[n++] = (char)(0x80 | (cp & 0x3F));
        }
        break;
      }
      default:
        if (*q >= '0' && *q <= '7') {
          cp = (unsigned long)(*q - '0');
          for (i = 1; i < 3 && q + 1 < t->end && q[1] >= '0' && q[1] <= '7'; i++) cp = cp * 8 + (unsigned long)(*++q - '0');
          d[n++] = (char)(cp & 0xFF);
        } else
          return ti__pb_tp_fail(t, TI_STATUS_PARSE_ERROR, esc, "invalid escape sequence in string");
      }
    }
    t->p = q + 1;
  }
  if (n > (size_t)INT32_MAX) return ti__pb_tp_fail(t, TI_STATUS_LIMIT, start, "string over 2^31-1 bytes");
  d[n] = 0;
  *out = d;
  *out_len = (int32_t)n;
  return TI_STATUS_SUCCESS;
}

/* Room for one more element of a repeated field. A message body grows its
   repeated fields in the heap, doubling (each doubling spends from the
   budget), and moves each into the arena once, at its exact size, when the
   body ends (ti__pb_tp_settle): no abandoned copies stay in the arena. */
typedef struct ti__pb_tpcap { int64_t cap; int heap; } ti__pb_tpcap;
static void *ti__pb_tp_grow(ti__pb_tp *t, void **arr, int32_t n, ti__pb_tpcap *cap, size_t es, const char *name) {
  if (n >= cap->cap) {
    /* the capacity ti__grow doubles to (from 4), spent before it grows */
    int64_t nc = cap->cap ? (cap->cap > INT32_MAX / 2 ? INT32_MAX : cap->cap * 2) : 4;
    if (n >= nc) return NULL;
    if (ti__pb_spend(&t->spent, t->budget, nc, es)) {
      ti__pb_budget_msg(t->over, sizeof t->over, nc, name, es, t->spent, t->budget);
      return NULL;
    }
    if (cap->heap) {
      if (!ti__grow(t->a->alloc_user, arr, es, &cap->cap, nc, 4, INT32_MAX)) return NULL;
    } else {   /* elements already in the arena (parsed before this body): copied out once */
      void *na = NULL;
      int64_t c = 0;
      if (!ti__grow(t->a->alloc_user, &na, es, &c, nc, nc, INT32_MAX)) return NULL;
      if (n) memcpy(na, *arr, (size_t)n * es);
      *arr = na;
      cap->cap = c;
      cap->heap = 1;
    }
  }
  return (char *)*arr + (size_t)n * es;
}

/* Moves the heap-grown repeated fields of obj into the arena (ok = 0 after
   a failure: they are dropped instead, leaving the graph freeable). */
static int ti__pb_tp_settle(ti__pb_tp *t, const ti__pb_msg *m, void *obj, ti__pb_tpcap *cap, int ok) {
  int i, good = 1;
  for (i = 0; i < m->n_fields; i++) {
    const ti__pb_field *f = &m->fields[i];
    void **arr;
    int32_t *n;
    size_t es;
    void *d = NULL;
    if (!cap[i].heap) continue;
    arr = TI__AT(obj, f->off, void *);
    n = TI__AT(obj, f->off_n, int32_t);
    es = f->kind == TI__K_REP_MSG ? f->sub->size : sizeof(int32_t);
    if (ok && good && *n > 0) {
      void *exact = TASKIR_REALLOC(t->a->alloc_user, *arr, (size_t)*n * es);   /* the doubling's slack goes first */
      if (exact) *arr = exact;
      d = ti_arena_array(t->a, (size_t)*n, es, 8);
      if (d) memcpy(d, *arr, (size_t)*n * es);
      else good = 0;
    }
    TASKIR_FREE(t->a->alloc_user, *arr);
    *arr = d;
    if (!d) *n = 0;
    cap[i].heap = 0;
  }
  return good;
}

static ti_status ti__pb_tp_scalar(ti__pb_tp *t, const ti__pb_msg *m, const ti__pb_field *f, void *obj, ti__pb_tpcap *cap) {
  ti__pb_tok k;
  int64_t iv;
  uint32_t *has = (uint32_t *)obj;
  if (f->kind == TI__K_STRING) {
    TI__PB_TRY(ti__pb_tp_string(t, TI__AT(obj, f->off, char *), TI__AT(obj, f->off_n, int32_t), f->name));
    *has |= f->has;
    return TI_STATUS_SUCCESS;
  }
  TI__PB_TRY(ti__pb_tp_token(t, &k, f->name));
  switch (f->kind) {
  case TI__K_INT32:
    TI__PB_TRY(ti__pb_tp_int(t, &k, INT32_MIN, INT32_MAX, &iv, f->name));
    *TI__AT(obj, f->off, int32_t) = (int32_t)iv;
    break;
  case TI__K_INT64:
    TI__PB_TRY(ti__pb_tp_int(t, &k, INT64_MIN, INT64_MAX, &iv, f->name));
    *TI__AT(obj, f->off, int64_t) = iv;
    break;
  case TI__K_BOOL:
    if (k.kind == 2 && !k.neg && (ti__pb_eq(k.id, k.idn, "true") || ti__pb_eq(k.id, k.idn, "True") || ti__pb_eq(k.id, k.idn, "t")))
      iv = 1;
    else if (k.kind == 2 && !k.neg && (ti__pb_eq(k.id, k.idn, "false") || ti__pb_eq(k.id, k.idn, "False") || ti__pb_eq(k.id, k.idn, "f")))
      iv = 0;
    else if (k.kind == 0) TI__PB_TRY(ti__pb_tp_int(t, &k, 0, 1, &iv, f->name));
    else return ti__pb_tp_fail(t, TI_STATUS_PARSE_ERROR, k.at, "expected true or false for field \"%s\"", f->name);
    *TI__AT(obj, f->off, int32_t) = (int32_t)iv;
    break;
  case TI__K_FLOAT:
    TI__PB_TRY(ti__pb_tp_float(t, &k, TI__AT(obj, f->off, float), f->name));
    break;
  case TI__K_ENUM: {
    int e = -1, v;
    if (k.kind == 2 && !k.neg) {
      for (v = 0; v <= ti__pb_enum_max(f->aux); v++) {
        const char *nm = ti__pb_enum_name(f->aux, v);
        if (nm && ti__pb_eq(k.id, k.idn, nm)) { e = v; break; }
      }
      if (e < 0 && f->aux == TI__E_ATTR && ti__pb_eq(k.id, k.idn, "BIT_SHIFT_NUM")) e = TI_TASK_ATTR_BIT_SHIFT_NUM;
      if (e < 0)
        return ti__pb_tp_fail(t, TI_STATUS_PARSE_ERROR, k.at, "unknown %s value \"%.*s\" for field \"%s\"",
                              ti__pb_enum_type(f->aux), (int)k.idn, k.id, f->name);
    } else if (k.kind == 0) {
      TI__PB_TRY(ti__pb_tp_int(t, &k, INT32_MIN, INT32_MAX, &iv, f->name));
      if (ti__pb_enum_from_wire(f->aux, (int32_t)iv, &e))
        return ti__pb_tp_fail(t, TI_STATUS_PARSE_ERROR, k.at, "unknown %s value %lld for field \"%s\"", ti__pb_enum_type(f->aux),
                              (long long)iv, f->name);
    } else
      return ti__pb_tp_fail(t, TI_STATUS_PARSE_ERROR, k.at, "expected a %s name or number for field \"%s\"",
                            ti__pb_enum_type(f->aux), f->name);
    ti__pb_set_enum(obj, f->off, e);
    break;
  }
  case TI__K_REP_INT32: {
    int32_t *n = TI__AT(obj, f->off_n, int32_t), *slot;
    TI__PB_TRY(ti__pb_tp_int(t, &k, INT32_MIN, INT32_MAX, &iv, f->name));
    slot = (int32_t *)ti__pb_tp_grow(t, TI__AT(obj, f->off, void *), *n, cap, sizeof(int32_t), f->name);
    if (!slot) return t->over[0] ? ti__pb_tp_fail(t, TI_STATUS_LIMIT, k.at, "%s", t->over) : ti__pb_tp_fail(t, TI_STATUS_NO_MEMORY, k.at, "out of memory");
    *slot = (int32_t)iv;
    (*n)++;
    return TI_STATUS_SUCCESS;
  }
  case TI__K_VALUES: {
    uint32_t w;
    if (f->aux == TI__V_FLOAT) { float x; TI__PB_TRY(ti__pb_tp_float(t, &k, &x, f->name)); memcpy(&w, &x, 4); }
    else if (f->aux == TI__V_INT32) { TI__PB_TRY(ti__pb_tp_int(t, &k, INT32_MIN, INT32_MAX, &iv, f->name)); w = (uint32_t)iv; }
    else { TI__PB_TRY(ti__pb_tp_int(t, &k, 0, UINT32_MAX, &iv, f->name)); w = (uint32_t)iv; }
    if (!ti__grow(t->a->alloc_user, &t->scr[f->aux].d, sizeof *t->scr[f->aux].d, &t->scr[f->aux].cap,
                  t->scr[f->aux].n + 1, 1024, INT64_MAX))
      return ti__pb_tp_fail(t, TI_STATUS_NO_MEMORY, k.at, "out of memory");
    t->scr[f->aux].d[t->scr[f->aux].n++] = w;
    return TI_STATUS_SUCCESS;
  }
  default: break;
  }
  (void)m;
  *has |= f->has;
  return TI_STATUS_SUCCESS;
}

/* Moves a Tensor's collected values into the arena at natural width. */
static ti_status ti__pb_tp_commit(ti__pb_tp *t, const ti__pb_msg *m, void *obj, const char *at) {
  int i;
  for (i = 0; i < m->n_fields; i++) {
    const ti__pb_field *f = &m->fields[i];
    ti_task_values *v;
    uint32_t *s;
    int64_t n, k, base;
    ti_dtype st;
    if (f->kind != TI__K_VALUES || !t->scr[f->aux].n) continue;
    v = TI__AT(obj, f->off, ti_task_values);
    s = t->scr[f->aux].d;
    n = t->scr[f->aux].n;
    t->scr[f->aux].n = 0;
    st = v->count ? v->storage
                  : ti__pb_storage_hint(f->aux, (((ti_task_tensor *)obj)->has & TI_TENSOR_HAS_PRECISION)
                                                    ? (int)((ti_task_tensor *)obj)->precision : -1);
    for (k = 0; k < n; k++) {
      uint32_t u = s[k];
      int fits = st == TI_DTYPE_I8 ? u + 128u < 256u : st == TI_DTYPE_I16 ? u + 32768u < 65536u
               : st == TI_DTYPE_U8 ? u < 256u : st == TI_DTYPE_U16 ? u < 65536u : 1;
      if (!fits) { st = ti__pb_widest(f->aux); break; }
    }
    base = v->count;
    if (n <= INT64_MAX / 8 - base && ti__pb_spend(&t->spent, t->budget, base + n, 4)) {
      ti__pb_budget_msg(t->over, sizeof t->over, base + n, "values", 4, t->spent, t->budget);
      return ti__pb_tp_fail(t, TI_STATUS_LIMIT, at, "%s", t->over);
    }
    if (n > INT64_MAX / 8 - base || ti__pb_values_realloc(t->a, v, base + n, st))
      return ti__pb_tp_fail(t, TI_STATUS_NO_MEMORY, at, "out of memory for %lld values", (long long)(base + n));
    switch (st) {
    case TI_DTYPE_I8: for (k = 0; k < n; k++) ((int8_t *)v->data)[base + k] = (int8_t)(int32_t)s[k]; break;
    case TI_DTYPE_I16: for (k = 0; k < n; k++) ((int16_t *)v->data)[base + k] = (int16_t)(int32_t)s[k]; break;
    case TI_DTYPE_U8: for (k = 0; k < n; k++) ((uint8_t *)v->data)[base + k] = (uint8_t)s[k]; break;
    case TI_DTYPE_U16: for (k = 0; k < n; k++) ((uint16_t *)v->data)[base + k] = (uint16_t)s[k]; break;
    default: memcpy((uint32_t *)v->data + base, s, (size_t)n * 4); break;   /* I32, U32, F32: same bits */
    }
    v->count = base + n;
  }
  return TI_STATUS_SUCCESS;
}

static ti_status ti__pb_tp_body(ti__pb_tp *t, const ti__pb_msg *m, void *obj, int close, const char *open);

static ti_status ti__pb_tp_msgval(ti__pb_tp *t, const ti__pb_field *f, void *obj, ti__pb_tpcap *cap, const char *name_at) {
  int c = ti__pb_tp_peek(t), close;
  const char *open = t->p;
  void *sub;
  uint32_t *has = (uint32_t *)obj;
  if (c == '{') close = '}';
  else if (c == '<') close = '>';
  else return ti__pb_tp_fail(t, TI_STATUS_PARSE_ERROR, c < 0 ? t->end : t->p, "expected '{' or '<' after \"%s\"", f->name);
  if (t->depth >= TASKIR_PROTO_MAX_DEPTH)
    return ti__pb_tp_fail(t, TI_STATUS_LIMIT, t->p, "messages nested deeper than TASKIR_PROTO_MAX_DEPTH (%d)", TASKIR_PROTO_MAX_DEPTH);
  if (f->kind == TI__K_MSG) {
    if (*has & f->has) return ti__pb_tp_fail(t, TI_STATUS_PARSE_ERROR, name_at, "non-repeated field \"%s\" given twice", f->name);
    sub = TI__AT(obj, f->off, char);
  } else {
    int32_t *n = TI__AT(obj, f->off_n, int32_t);
    if (f->sub == &ti__pbm_block && *n >= TASKIR_MAX_BLOCKS)
      return ti__pb_tp_fail(t, TI_STATUS_LIMIT, name_at, "block %ld is one more than TASKIR_MAX_BLOCKS (%d)", (long)*n, (int)TASKIR_MAX_BLOCKS);
    if (f->sub == &ti__pbm_edge && *n >= TASKIR_MAX_EDGES)
      return ti__pb_tp_fail(t, TI_STATUS_LIMIT, name_at, "edge %ld is one more than TASKIR_MAX_EDGES (%d)", (long)*n, (int)TASKIR_MAX_EDGES);
    sub = ti__pb_tp_grow(t, TI__AT(obj, f->off, void *), *n, cap, f->sub->size, f->name);
    if (!sub) return t->over[0] ? ti__pb_tp_fail(t, TI_STATUS_LIMIT, t->p, "%s", t->over) : ti__pb_tp_fail(t, TI_STATUS_NO_MEMORY, t->p, "out of memory");
    memset(sub, 0, f->sub->size);
    ti__pb_msg_init(f->sub, sub);
    (*n)++;
  }
  t->p++;
  t->depth++;
  TI__PB_TRY(ti__pb_tp_body(t, f->sub, sub, close, open));
  t->depth--;
  *has |= f->has;
  return TI_STATUS_SUCCESS;
}

static ti_status ti__pb_tp_fields(ti__pb_tp *t, const ti__pb_msg *m, void *obj, int close, const char *open, ti__pb_tpcap *cap);

static ti_status ti__pb_tp_body(ti__pb_tp *t, const ti__pb_msg *m, void *obj, int close, const char *open) {
  ti__pb_tpcap cap[TI__PB_MAXF];
  ti_status st;
  int i;
  for (i = 0; i < m->n_fields; i++) {
    cap[i].cap = (m->fields[i].kind == TI__K_REP_MSG || m->fields[i].kind == TI__K_REP_INT32) ? *TI__AT(obj, m->fields[i].off_n, int32_t) : 0;
    cap[i].heap = 0;
  }
  st = ti__pb_tp_fields(t, m, obj, close, open, cap);
  if (!ti__pb_tp_settle(t, m, obj, cap, st == TI_STATUS_SUCCESS) && st == TI_STATUS_SUCCESS)
    st = ti__pb_tp_fail(t, TI_STATUS_NO_MEMORY, t->p, "out of memory");
  if (st == TI_STATUS_SUCCESS && m == &ti__pbm_tensor) st = ti__pb_tp_commit(t, m, obj, t->p);
  return st;
}

static ti_status ti__pb_tp_fields(ti__pb_tp *t, const ti__pb_msg *m, void *obj, int close, const char *open, ti__pb_tpcap *cap) {
  int c;
  for (;;) {
    const char *name_at;
    size_t n;
    int fi, colon = 0;
    const ti__pb_field *f;
    c = ti__pb_tp_peek(t);
    if (c < 0) {
      if (!close) break;
      {
        const char *q, *bol = t->s;
        long line = 1;
        for (q = t->s; q < open; q++) if (*q == '\n') { line++; bol = q + 1; }
        return ti__pb_tp_fail(t, TI_STATUS_PARSE_ERROR, t->end, "missing '%c' at end of input (the %s opened at line %ld column %ld)",
                              close, m->name, line, (long)(open - bol + 1));
      }
    }
    if (close && c == close) { t->p++; break; }
    name_at = t->p;
    if (!ti__pb_isid0(c)) {
      if (c == '}' || c == '>') return ti__pb_tp_fail(t, TI_STATUS_PARSE_ERROR, t->p, "unexpected '%c'%s", c, close ? "" : " (no message is open)");
      return ti__pb_tp_fail(t, TI_STATUS_PARSE_ERROR, t->p, "expected a field name of %s", m->name);
    }
    n = ti__pb_tp_ident(t);
    for (fi = 0; fi < m->n_fields; fi++) if (ti__pb_eq(t->p, n, m->fields[fi].name)) break;
    if (fi == m->n_fields)
      return ti__pb_tp_fail(t, TI_STATUS_PARSE_ERROR, t->p, "unknown field \"%.*s\" in %s", (int)(n > 64 ? 64 : n), t->p, m->name);
    f = &m->fields[fi];
    t->p += n;
    c = ti__pb_tp_peek(t);
    if (c == ':') { colon = 1; t->p++; c = ti__pb_tp_peek(t); }
    if (f->kind == TI__K_MSG || f->kind == TI__K_REP_MSG) {
      if (c == '[') {
        if (f->kind != TI__K_REP_MSG) return ti__pb_tp_fail(t, TI_STATUS_PARSE_ERROR, t->p, "field \"%s\" is not repeated", f->name);
        t->p++;
        if (ti__pb_tp_peek(t) == ']') t->p++;
        else for (;;) {
          TI__PB_TRY(ti__pb_tp_msgval(t, f, obj, &cap[fi], name_at));
          c = ti__pb_tp_peek(t);
          if (c == ',') { t->p++; continue; }
          if (c == ']') { t->p++; break; }
          return ti__pb_tp_fail(t, TI_STATUS_PARSE_ERROR, c < 0 ? t->end : t->p, "expected ',' or ']' in the list of \"%s\"", f->name);
        }
      } else
        TI__PB_TRY(ti__pb_tp_msgval(t, f, obj, &cap[fi], name_at));
    } else {
      int rep = f->kind == TI__K_REP_INT32 || f->kind == TI__K_VALUES;
      if (!colon) return ti__pb_tp_fail(t, TI_STATUS_PARSE_ERROR, c < 0 ? t->end : t->p, "expected ':' after \"%s\"", f->name);
      if (!rep && (*(uint32_t *)obj & f->has))
        return ti__pb_tp_fail(t, TI_STATUS_PARSE_ERROR, name_at, "non-repeated field \"%s\" given twice", f->name);
      if (c == '[') {
        if (!rep) return ti__pb_tp_fail(t, TI_STATUS_PARSE_ERROR, t->p, "field \"%s\" is not repeated", f->name);
        t->p++;
        if (ti__pb_tp_peek(t) == ']') t->p++;
        else for (;;) {
          TI__PB_TRY(ti__pb_tp_scalar(t, m, f, obj, &cap[fi]));
          c = ti__pb_tp_peek(t);
          if (c == ',') { t->p++; continue; }
          if (c == ']') { t->p++; break; }
          return ti__pb_tp_fail(t, TI_STATUS_PARSE_ERROR, c < 0 ? t->end : t->p, "expected ',' or ']' in the list of \"%s\"", f->name);
        }
      } else
        TI__PB_TRY(ti__pb_tp_scalar(t, m, f, obj, &cap[fi]));
    }
    c = ti__pb_tp_peek(t);
    if (c == ';' || c == ',') t->p++;
  }
  return TI_STATUS_SUCCESS;
}

TASKIR_API ti_status ti_task_parse_text(ti_task_graph *g, const char *text, size_t len, ti_error *err) {
  ti_error_clear(err);
  ti__pb_tp t;
  ti_status st;
  int i;
  if (!g || (!text && len)) return ti_error_set(err, TI_STATUS_BAD_PARAM, "ti_task_parse_text: NULL graph or text");
  memset(&t, 0, sizeof t);
  t.s = t.p = text ? text : "";
  t.end = t.s + len;
  t.err = err;
  t.a = &g->arena;
  t.budget = ti__pb_budget(len);
  st = ti__pb_tp_body(&t, &ti__pbm_graph, g, 0, t.s);
  for (i = 0; i < 3; i++) if (t.scr[i].d) TASKIR_FREE(g->arena.alloc_user, t.scr[i].d);
  return st;
}

/* >>impl.proto.files ------------------------------------------------------- */

static int ti__pb_is_text_path(const char *path) {
  const char *dot = strrchr(path, '.');
  return dot && (strcmp(dot, ".txt") == 0 || strcmp(dot, ".pbtxt") == 0 || strcmp(dot, ".prototxt") == 0 ||
                 strcmp(dot, ".textproto") == 0);
}

TASKIR_API ti_status ti_task_read_file(const char *path, ti_task_graph *g, ti_error *err) {
  ti_error_clear(err);
  FILE *f;
  ti_buffer b;
  ti_status st = TI_STATUS_SUCCESS;
  int fresh = err && err->status == TI_STATUS_SUCCESS;   /* only our own message gets the path */
  if (!path || !g) return ti_error_set(err, TI_STATUS_BAD_PARAM, "ti_task_read_file: NULL path or graph");
  f = fopen(path, "rb");
  if (!f) return ti_error_set(err, TI_STATUS_IO_ERROR, "cannot open %s: %s", path, strerror(errno));
  ti_buffer_init(&b, g->arena.alloc_user);
  for (;;) {
    size_t got;
    if (ti_buffer_reserve(&b, b.cap - b.len < 4096 ? (b.cap ? b.cap : 65536) : 1) != TI_STATUS_SUCCESS) {
      st = ti_error_set(err, TI_STATUS_NO_MEMORY, "out of memory reading %s (%lu bytes so far)", path, (unsigned long)b.len);
      break;
    }
    got = fread(b.data + b.len, 1, b.cap - b.len, f);
    b.len += got;
    if (got == 0) {
      if (ferror(f)) st = ti_error_set(err, TI_STATUS_IO_ERROR, "cannot read %s: %s", path, strerror(errno));
      break;
    }
  }
  fclose(f);
  if (st == TI_STATUS_SUCCESS) {
    if (ti__pb_is_text_path(path)) st = ti_task_parse_text(g, (const char *)b.data, b.len, err);
    else st = ti_task_decode(g, b.data, b.len, err);
    if (st != TI_STATUS_SUCCESS && fresh && strlen(err->message) + strlen(path) + 3 < sizeof err->message) {
      size_t pl = strlen(path), ml = strlen(err->message);
      memmove(err->message + pl + 2, err->message, ml + 1);   /* prefix the path */
      memcpy(err->message, path, pl);
      err->message[pl] = ':';
      err->message[pl + 1] = ' ';
    }
  }
  ti_buffer_free(&b);
  return st;
}

TASKIR_API ti_status ti_task_write_file(const char *path, const ti_task_graph *g, ti_error *err) {
  ti_error_clear(err);
  FILE *f;
  ti_buffer b;
  ti_status st;
  if (!path || !g) return ti_error_set(err, TI_STATUS_BAD_PARAM, "ti_task_write_file: NULL path or graph");
  ti_buffer_init(&b, g->arena.alloc_user);
  st = ti__pb_is_text_path(path) ? ti_task_format_text(g, &b, err) : ti_task_encode(g, &b, err);
  if (st == TI_STATUS_SUCCESS) {
    f = fopen(path, "wb");
    if (!f) st = ti_error_set(err, TI_STATUS_IO_ERROR, "cannot create %s: %s", path, strerror(errno));
    else {
      size_t put = b.len ? fwrite(b.data, 1, b.len, f) : 0;
      int bad = put != b.len;
      if (fclose(f) != 0) bad = 1;
      if (bad) st = ti_error_set(err, TI_STATUS_IO_ERROR, "cannot write %s: %s", path, strerror(errno));
    }
  }
  ti_buffer_free(&b);
  return st;
}

/* >>impl.proto.onnx -------------------------------------------------------- */

TASKIR_API size_t ti_onnx_elem_size(int32_t dt) {
  switch (dt) {
  case TI_ONNX_UINT8: case TI_ONNX_INT8: case TI_ONNX_BOOL: return 1;
  case TI_ONNX_UINT16: case TI_ONNX_INT16: case TI_ONNX_FLOAT16: return 2;
  case TI_ONNX_FLOAT: case TI_ONNX_INT32: case TI_ONNX_UINT32: return 4;
  case TI_ONNX_INT64: case TI_ONNX_DOUBLE: case TI_ONNX_UINT64: return 8;
  default: return 0;
  }
}

/* Appends one zeroed element to an arena array, doubling (in place when
   the array is the arena's latest allocation): at most twice the final size
   is ever allocated, and only the elements in use are touched. */
static void *ti__ox_push(ti_arena *a, void *arr, int32_t *n, int32_t *cap, size_t es) {
  unsigned char *p = (unsigned char *)arr;
  if (*n == INT32_MAX) return NULL;
  if (*n == *cap) {
    int32_t nc = *cap ? (*cap > INT32_MAX / 2 ? INT32_MAX : *cap * 2) : 4;
    if ((size_t)nc > ((size_t)-1) / es) return NULL;
    p = (unsigned char *)ti__arena_regrow(a, *n ? p : NULL, (size_t)*n * es, (size_t)nc * es, 16);
    if (!p) return NULL;
    *cap = nc;
  }
  memset(p + (size_t)*n * es, 0, es);
  (*n)++;
  return p;
}
#define TI__OX_PUSH(r, a, arr, n, cap, type, at)                                                          \
  do {                                                                                                     \
    void *ti__q_ = ti__ox_push((a), (arr), &(n), &(cap), sizeof(type));                                    \
    if (!ti__q_) return ti_pb_fail((r), TI_STATUS_NO_MEMORY, (at), "out of memory");                       \
    (arr) = (type *)ti__q_;                                                                                \
  } while (0)

static ti_status ti__ox_wt(ti_pb_reader *r, uint32_t wt, uint32_t want, const uint8_t *at) {
  if (wt == want) return TI_STATUS_SUCCESS;
  return ti_pb_fail(r, TI_STATUS_PARSE_ERROR, at, "wire type %lu, expected %lu", (unsigned long)wt, (unsigned long)want);
}

static ti_status ti__ox_string(ti_pb_reader *r, ti_arena *a, uint32_t wt, const uint8_t *at, const char **out, size_t *len) {
  const uint8_t *d;
  size_t n;
  char *s;
  TI__PB_TRY(ti__ox_wt(r, wt, TI_PB_LEN, at));
  TI__PB_TRY(ti_pb_read_bytes(r, &d, &n));
  if (!(s = ti_arena_strndup(a, (const char *)d, n))) return ti_pb_fail(r, TI_STATUS_NO_MEMORY, at, "out of memory");
  *out = s;
  if (len) *len = n;
  return TI_STATUS_SUCCESS;
}

static ti_status ti__ox_int(ti_pb_reader *r, uint32_t wt, const uint8_t *at, int64_t *v) {
  uint64_t x;
  TI__PB_TRY(ti__ox_wt(r, wt, TI_PB_VARINT, at));
  TI__PB_TRY(ti_pb_read_varint(r, &x));
  *v = (int64_t)x;
  return TI_STATUS_SUCCESS;
}

static ti_status ti__ox_int32(ti_pb_reader *r, uint32_t wt, const uint8_t *at, int32_t *v) {
  uint32_t x;
  TI__PB_TRY(ti__ox_wt(r, wt, TI_PB_VARINT, at));
  TI__PB_TRY(ti_pb_read_varint32(r, &x));
  *v = (int32_t)x;
  return TI_STATUS_SUCCESS;
}

/* Repeated scalars, packed or not: kind 'v' varint (int64), 'i' varint that
   must fit 32 bits, 'f' fixed32, 'd' fixed64. Values go to arr (8-byte
   slots for v/d, 4-byte for i/f). */
static ti_status ti__ox_rep(ti_pb_reader *r, ti_arena *a, uint32_t wt, const uint8_t *at, char kind, void **arr,
                            int32_t *n, int32_t *cap) {
  size_t es = (kind == 'v' || kind == 'd') ? 8 : 4;
  uint32_t scalar_wt = kind == 'f' ? TI_PB_FIXED32 : kind == 'd' ? TI_PB_FIXED64 : TI_PB_VARINT;
  const uint8_t *end = NULL, *saved = r->end;
  if (wt == TI_PB_LEN) {
    size_t len;
    TI__PB_TRY(ti__pb_len(r, &len));
    end = r->p + len;
  } else TI__PB_TRY(ti__ox_wt(r, wt, scalar_wt, at));
  if (end) r->end = end;
  do {
    uint64_t x = 0;
    uint32_t x32 = 0;
    unsigned char *slot;
    ti_status st;
    if (kind == 'v') st = ti_pb_read_varint(r, &x);
    else if (kind == 'i') st = ti_pb_read_varint32(r, &x32);
    else if (kind == 'f') st = ti_pb_read_fixed32(r, &x32);
    else st = ti_pb_read_fixed64(r, &x);
    if (st == TI_STATUS_SUCCESS && !(slot = (unsigned char *)ti__ox_push(a, *arr, n, cap, es)))
      st = ti_pb_fail(r, TI_STATUS_NO_MEMORY, at, "out of memory");
    if (st != TI_STATUS_SUCCESS) { r->end = saved; return st; }
    *arr = slot;
    if (es == 8) memcpy(slot + (size_t)(*n - 1) * 8, &x, 8);
    else memcpy(slot + (size_t)(*n - 1) * 4, &x32, 4);
  } while (end && r->p < end);
  r->end = saved;
  return TI_STATUS_SUCCESS;
}

static void ti__ox_put_le(unsigned char *d, uint64_t v, size_t es) {
  size_t i;
  for (i = 0; i < es; i++) d[i] = (unsigned char)(v >> (8 * i));   /* host order below */
}

/* Stores v (an element value's bits) in host order at d. */
static void ti__ox_store(unsigned char *d, uint64_t v, size_t es) {
#if TI__PB_LE
  ti__ox_put_le(d, v, es);
#else
  size_t i;
  for (i = 0; i < es; i++) d[es - 1 - i] = (unsigned char)(v >> (8 * i));
#endif
}

static ti_status ti__ox_tensor(ti_pb_reader *r, ti_arena *a, ti_onnx_tensor *t) {
  const uint8_t *start = r->p, *raw = NULL;
  size_t raw_len = 0;
  int has_raw = 0, external = 0;
  void *vals[5] = {NULL, NULL, NULL, NULL, NULL};   /* float, int32, int64, double, uint64 */
  int32_t nv[5] = {0, 0, 0, 0, 0}, cv[5] = {0, 0, 0, 0, 0}, n_strings = 0;
  int32_t ndims = 0, cdims = 0, k;
  int64_t *dims = NULL, numel = 1;
  size_t es;
  memset(t, 0, sizeof *t);
  t->name = "";
  t->offset = (int64_t)(start - r->base);
  while (r->p < r->end) {
    uint32_t f, wt;
    const uint8_t *at = r->p;
    r->field = NULL; r->field_num = 0;
    TI__PB_TRY(ti_pb_read_tag(r, &f, &wt));
    switch (f) {
    case 1: r->field = "dims"; TI__PB_TRY(ti__ox_rep(r, a, wt, at, 'v', (void **)&dims, &ndims, &cdims)); break;
    case 2: r->field = "data_type"; TI__PB_TRY(ti__ox_int32(r, wt, at, &t->data_type)); break;
    case 4: r->field = "float_data"; TI__PB_TRY(ti__ox_rep(r, a, wt, at, 'f', &vals[0], &nv[0], &cv[0])); break;
    case 5: r->field = "int32_data"; TI__PB_TRY(ti__ox_rep(r, a, wt, at, 'i', &vals[1], &nv[1], &cv[1])); break;
    case 6:
      r->field = "string_data";
      TI__PB_TRY(ti__ox_wt(r, wt, TI_PB_LEN, at));
      TI__PB_TRY(ti_pb_skip_field(r, f, wt));
      n_strings++;
      break;
    case 7: r->field = "int64_data"; TI__PB_TRY(ti__ox_rep(r, a, wt, at, 'v', &vals[2], &nv[2], &cv[2])); break;
    case 8: r->field = "name"; TI__PB_TRY(ti__ox_string(r, a, wt, at, &t->name, NULL)); break;
    case 9:
      r->field = "raw_data";
      TI__PB_TRY(ti__ox_wt(r, wt, TI_PB_LEN, at));
      TI__PB_TRY(ti_pb_read_bytes(r, &raw, &raw_len));
      has_raw = 1;
      break;
    case 10: r->field = "double_data"; TI__PB_TRY(ti__ox_rep(r, a, wt, at, 'd', &vals[3], &nv[3], &cv[3])); break;
    case 11: r->field = "uint64_data"; TI__PB_TRY(ti__ox_rep(r, a, wt, at, 'v', &vals[4], &nv[4], &cv[4])); break;
    case 14: {
      int32_t loc;
      r->field = "data_location";
      TI__PB_TRY(ti__ox_int32(r, wt, at, &loc));
      external = loc == 1;
      break;
    }
    default: TI__PB_TRY(ti_pb_skip_field(r, f, wt)); break;
    }
  }
  r->field = NULL; r->field_num = 0;
  if (external)
    return ti_pb_fail(r, TI_STATUS_NOT_SUPPORTED, start, "tensor '%s' keeps its data in an external file (not supported)", t->name);
  if (ndims > TI_MAX_RANK)
    return ti_pb_fail(r, TI_STATUS_LIMIT, start, "tensor '%s' has %ld dims (at most %d)", t->name, (long)ndims, TI_MAX_RANK);
  t->rank = ndims;
  for (k = 0; k < ndims; k++) {
    if (dims[k] < 0) return ti_pb_fail(r, TI_STATUS_PARSE_ERROR, start, "tensor '%s' dim %ld is negative", t->name, (long)k);
    t->dims[k] = dims[k];
    if (dims[k] && numel > INT64_MAX / dims[k]) return ti_pb_fail(r, TI_STATUS_LIMIT, start, "tensor '%s' has too many elements", t->name);
    numel *= dims[k];
  }
  t->numel = numel;
  es = ti_onnx_elem_size(t->data_type);
  if (t->data_type == TI_ONNX_STRING || (es == 0 && !has_raw && !nv[0] && !nv[1] && !nv[2] && !nv[3] && !nv[4])) {
    (void)n_strings;
    return TI_STATUS_SUCCESS;   /* strings or no data: data stays NULL */
  }
  if (es == 0) return ti_pb_fail(r, TI_STATUS_NOT_SUPPORTED, start, "tensor '%s' has data type %ld (not supported)", t->name, (long)t->data_type);
  if (has_raw) {
    if (raw_len != (size_t)numel * es || (uint64_t)numel > (uint64_t)SIZE_MAX / es)
      return ti_pb_fail(r, TI_STATUS_PARSE_ERROR, start, "tensor '%s': raw_data holds %lu bytes, its %lld elements need %llu",
                        t->name, (unsigned long)raw_len, (long long)numel, (unsigned long long)((uint64_t)numel * es));
#if TI__PB_LE
    t->data = raw;
    t->in_input = 1;
#else
    {
      unsigned char *d = (unsigned char *)ti_arena_alloc(a, raw_len ? raw_len : 1, 16);
      size_t i, j;
      if (!d) return ti_pb_fail(r, TI_STATUS_NO_MEMORY, start, "out of memory");
      for (i = 0; i < raw_len; i += es) for (j = 0; j < es; j++) d[i + j] = raw[i + es - 1 - j];
      t->data = d;
    }
#endif
    t->bytes = raw_len;
    return TI_STATUS_SUCCESS;
  } else {
    /* The typed field the schema uses for this data type. */
    int which = t->data_type == TI_ONNX_FLOAT ? 0 : t->data_type == TI_ONNX_INT64 ? 2 : t->data_type == TI_ONNX_DOUBLE ? 3
              : (t->data_type == TI_ONNX_UINT64 || t->data_type == TI_ONNX_UINT32) ? 4 : 1;
    int other;
    unsigned char *d;
    int64_t i;
    for (other = 0; other < 5; other++)
      if (other != which && nv[other])
        return ti_pb_fail(r, TI_STATUS_PARSE_ERROR, start, "tensor '%s' of data type %ld carries values in the wrong typed field",
                          t->name, (long)t->data_type);
    if ((int64_t)nv[which] != numel)
      return ti_pb_fail(r, TI_STATUS_PARSE_ERROR, start, "tensor '%s' holds %ld values, its dims need %lld", t->name,
                        (long)nv[which], (long long)numel);
    d = (unsigned char *)ti_arena_array(a, (size_t)(numel ? numel : 1), es, 16);
    if (!d) return ti_pb_fail(r, TI_STATUS_NO_MEMORY, start, "out of memory");
    for (i = 0; i < numel; i++) {
      uint64_t bits;
      if (which == 0 || which == 1) {
        uint32_t x;
        memcpy(&x, (unsigned char *)vals[which] + i * 4, 4);
        bits = x;
        if (which == 1 && es < 4 && t->data_type != TI_ONNX_FLOAT16 && t->data_type != TI_ONNX_UINT16 &&
            t->data_type != TI_ONNX_UINT8 && t->data_type != TI_ONNX_BOOL) {
          int32_t sv = (int32_t)x;   /* signed narrow types must fit */
          if ((es == 1 && (sv < -128 || sv > 127)) || (es == 2 && (sv < -32768 || sv > 32767)))
            return ti_pb_fail(r, TI_STATUS_PARSE_ERROR, start, "tensor '%s' value %ld does not fit its data type", t->name, (long)sv);
        } else if (which == 1 && es < 4 && (x >> (8 * es)) != 0)
          return ti_pb_fail(r, TI_STATUS_PARSE_ERROR, start, "tensor '%s' value %lu does not fit its data type", t->name, (unsigned long)x);
      } else {
        memcpy(&bits, (unsigned char *)vals[which] + i * 8, 8);
        if (t->data_type == TI_ONNX_UINT32 && (bits >> 32) != 0)
          return ti_pb_fail(r, TI_STATUS_PARSE_ERROR, start, "tensor '%s' value does not fit uint32", t->name);
      }
      ti__ox_store(d + (size_t)i * es, bits, es);
    }
    t->data = d;
    t->bytes = (size_t)numel * es;
  }
  return TI_STATUS_SUCCESS;
}

/* Message fields: read the length, push a frame, run fn, pop. */
#define TI__OX_SUB(r, name, index, call)                                                     \
  do {                                                                                       \
    size_t ti__len_;                                                                         \
    const uint8_t *ti__saved_;                                                               \
    ti_status ti__st_;                                                                       \
    (r)->field = (name);                                                                     \
    TI__PB_TRY(ti__ox_wt((r), wt, TI_PB_LEN, at));                                           \
    TI__PB_TRY(ti__pb_len((r), &ti__len_));                                                  \
    TI__PB_TRY(ti_pb_push((r), (name), (index), ti__len_, &ti__saved_));                     \
    ti__st_ = (call);                                                                        \
    if (ti__st_ != TI_STATUS_SUCCESS) return ti__st_;                                        \
    ti_pb_pop((r), ti__saved_);                                                              \
  } while (0)

static ti_status ti__ox_dim(ti_pb_reader *r, ti_arena *a, ti_onnx_dim *d) {
  d->value = -1; d->param = NULL;
  while (r->p < r->end) {
    uint32_t f, wt;
    const uint8_t *at = r->p;
    r->field = NULL; r->field_num = 0;
    TI__PB_TRY(ti_pb_read_tag(r, &f, &wt));
    if (f == 1) {
      r->field = "dim_value";
      TI__PB_TRY(ti__ox_int(r, wt, at, &d->value));
      if (d->value < 0) return ti_pb_fail(r, TI_STATUS_PARSE_ERROR, at, "negative dim_value %lld", (long long)d->value);
    } else if (f == 2) { r->field = "dim_param"; TI__PB_TRY(ti__ox_string(r, a, wt, at, &d->param, NULL)); d->value = -1; }
    else TI__PB_TRY(ti_pb_skip_field(r, f, wt));
  }
  return TI_STATUS_SUCCESS;
}

static ti_status ti__ox_shape(ti_pb_reader *r, ti_arena *a, ti_onnx_value_info *v) {
  v->rank = 0;
  while (r->p < r->end) {
    uint32_t f, wt;
    const uint8_t *at = r->p;
    r->field = NULL; r->field_num = 0;
    TI__PB_TRY(ti_pb_read_tag(r, &f, &wt));
    if (f == 1) {
      if (v->rank >= TI_MAX_RANK) return ti_pb_fail(r, TI_STATUS_LIMIT, at, "value '%s' has more than %d dims", v->name, TI_MAX_RANK);
      TI__OX_SUB(r, "dim", v->rank, ti__ox_dim(r, a, &v->dims[v->rank]));
      v->rank++;
    } else TI__PB_TRY(ti_pb_skip_field(r, f, wt));
  }
  return TI_STATUS_SUCCESS;
}

static ti_status ti__ox_tensor_type(ti_pb_reader *r, ti_arena *a, ti_onnx_value_info *v) {
  while (r->p < r->end) {
    uint32_t f, wt;
    const uint8_t *at = r->p;
    r->field = NULL; r->field_num = 0;
    TI__PB_TRY(ti_pb_read_tag(r, &f, &wt));
    if (f == 1) { r->field = "elem_type"; TI__PB_TRY(ti__ox_int32(r, wt, at, &v->elem_type)); }
    else if (f == 2) TI__OX_SUB(r, "shape", -1, ti__ox_shape(r, a, v));
    else TI__PB_TRY(ti_pb_skip_field(r, f, wt));
  }
  return TI_STATUS_SUCCESS;
}

static ti_status ti__ox_type(ti_pb_reader *r, ti_arena *a, ti_onnx_value_info *v) {
  while (r->p < r->end) {
    uint32_t f, wt;
    const uint8_t *at = r->p;
    r->field = NULL; r->field_num = 0;
    TI__PB_TRY(ti_pb_read_tag(r, &f, &wt));
    if (f == 1) TI__OX_SUB(r, "tensor_type", -1, ti__ox_tensor_type(r, a, v));
    else TI__PB_TRY(ti_pb_skip_field(r, f, wt));
  }
  return TI_STATUS_SUCCESS;
}

static ti_status ti__ox_value_info(ti_pb_reader *r, ti_arena *a, ti_onnx_value_info *v) {
  memset(v, 0, sizeof *v);
  v->name = "";
  v->rank = -1;
  v->offset = (int64_t)(r->p - r->base);
  while (r->p < r->end) {
    uint32_t f, wt;
    const uint8_t *at = r->p;
    r->field = NULL; r->field_num = 0;
    TI__PB_TRY(ti_pb_read_tag(r, &f, &wt));
    if (f == 1) { r->field = "name"; TI__PB_TRY(ti__ox_string(r, a, wt, at, &v->name, NULL)); }
    else if (f == 2) TI__OX_SUB(r, "type", -1, ti__ox_type(r, a, v));
    else TI__PB_TRY(ti_pb_skip_field(r, f, wt));
  }
  return TI_STATUS_SUCCESS;
}

static ti_status ti__ox_attr(ti_pb_reader *r, ti_arena *a, ti_onnx_attr *x) {
  int32_t cf = 0, ci = 0, cs = 0;
  memset(x, 0, sizeof *x);
  x->name = "";
  x->offset = (int64_t)(r->p - r->base);
  while (r->p < r->end) {
    uint32_t f, wt;
    const uint8_t *at = r->p;
    r->field = NULL; r->field_num = 0;
    TI__PB_TRY(ti_pb_read_tag(r, &f, &wt));
    switch (f) {
    case 1: r->field = "name"; TI__PB_TRY(ti__ox_string(r, a, wt, at, &x->name, NULL)); break;
    case 20: r->field = "type"; TI__PB_TRY(ti__ox_int32(r, wt, at, &x->type)); break;
    case 2: {
      uint32_t b;
      r->field = "f";
      TI__PB_TRY(ti__ox_wt(r, wt, TI_PB_FIXED32, at));
      TI__PB_TRY(ti_pb_read_fixed32(r, &b));
      memcpy(&x->f, &b, 4);
      if (!x->type) x->type = TI_ONNX_ATTR_FLOAT;
      break;
    }
    case 3: r->field = "i"; TI__PB_TRY(ti__ox_int(r, wt, at, &x->i)); if (!x->type) x->type = TI_ONNX_ATTR_INT; break;
    case 4: r->field = "s"; TI__PB_TRY(ti__ox_string(r, a, wt, at, &x->s, &x->s_len)); if (!x->type) x->type = TI_ONNX_ATTR_STRING; break;
    case 5:
      if (!x->t && !(x->t = (ti_onnx_tensor *)ti_arena_alloc(a, sizeof *x->t, 16)))
        return ti_pb_fail(r, TI_STATUS_NO_MEMORY, at, "out of memory");
      TI__OX_SUB(r, "t", -1, ti__ox_tensor(r, a, x->t));
      if (!x->type) x->type = TI_ONNX_ATTR_TENSOR;
      break;
    case 7: r->field = "floats"; TI__PB_TRY(ti__ox_rep(r, a, wt, at, 'f', (void **)&x->floats, &x->n_floats, &cf)); if (!x->type) x->type = TI_ONNX_ATTR_FLOATS; break;
    case 8: r->field = "ints"; TI__PB_TRY(ti__ox_rep(r, a, wt, at, 'v', (void **)&x->ints, &x->n_ints, &ci)); if (!x->type) x->type = TI_ONNX_ATTR_INTS; break;
    case 9: {
      const char *s;
      r->field = "strings";
      TI__PB_TRY(ti__ox_string(r, a, wt, at, &s, NULL));
      TI__OX_PUSH(r, a, x->strings, x->n_strings, cs, const char *, at);
      x->strings[x->n_strings - 1] = s;
      if (!x->type) x->type = TI_ONNX_ATTR_STRINGS;
      break;
    }
    case 6: r->field = "g"; TI__PB_TRY(ti_pb_skip_field(r, f, wt)); if (!x->type) x->type = TI_ONNX_ATTR_GRAPH; break;
    default: TI__PB_TRY(ti_pb_skip_field(r, f, wt)); break;
    }
  }
  return TI_STATUS_SUCCESS;
}

static ti_status ti__ox_node(ti_pb_reader *r, ti_arena *a, ti_onnx_node *nd) {
  int32_t ci = 0, co = 0, ca = 0;
  memset(nd, 0, sizeof *nd);
  nd->name = nd->op_type = nd->domain = "";
  nd->offset = (int64_t)(r->p - r->base);
  while (r->p < r->end) {
    uint32_t f, wt;
    const uint8_t *at = r->p;
    const char *s;
    r->field = NULL; r->field_num = 0;
    TI__PB_TRY(ti_pb_read_tag(r, &f, &wt));
    switch (f) {
    case 1:
      r->field = "input";
      TI__PB_TRY(ti__ox_string(r, a, wt, at, &s, NULL));
      TI__OX_PUSH(r, a, nd->inputs, nd->n_inputs, ci, const char *, at);
      nd->inputs[nd->n_inputs - 1] = s;
      break;
    case 2:
      r->field = "output";
      TI__PB_TRY(ti__ox_string(r, a, wt, at, &s, NULL));
      TI__OX_PUSH(r, a, nd->outputs, nd->n_outputs, co, const char *, at);
      nd->outputs[nd->n_outputs - 1] = s;
      break;
    case 3: r->field = "name"; TI__PB_TRY(ti__ox_string(r, a, wt, at, &nd->name, NULL)); break;
    case 4: r->field = "op_type"; TI__PB_TRY(ti__ox_string(r, a, wt, at, &nd->op_type, NULL)); break;
    case 7: r->field = "domain"; TI__PB_TRY(ti__ox_string(r, a, wt, at, &nd->domain, NULL)); break;
    case 5:
      TI__OX_PUSH(r, a, nd->attrs, nd->n_attrs, ca, ti_onnx_attr, at);
      TI__OX_SUB(r, "attribute", nd->n_attrs - 1, ti__ox_attr(r, a, &nd->attrs[nd->n_attrs - 1]));
      break;
    default: TI__PB_TRY(ti_pb_skip_field(r, f, wt)); break;
    }
  }
  return TI_STATUS_SUCCESS;
}

static ti_status ti__ox_graph(ti_pb_reader *r, ti_arena *a, ti_onnx_graph *g) {
  int32_t cn = 0, cz = 0, ci = 0, co = 0, cv = 0;
  memset(g, 0, sizeof *g);
  g->name = "";
  while (r->p < r->end) {
    uint32_t f, wt;
    const uint8_t *at = r->p;
    r->field = NULL; r->field_num = 0;
    TI__PB_TRY(ti_pb_read_tag(r, &f, &wt));
    switch (f) {
    case 1:
      TI__OX_PUSH(r, a, g->nodes, g->n_nodes, cn, ti_onnx_node, at);
      TI__OX_SUB(r, "node", g->n_nodes - 1, ti__ox_node(r, a, &g->nodes[g->n_nodes - 1]));
      break;
    case 2: r->field = "name"; TI__PB_TRY(ti__ox_string(r, a, wt, at, &g->name, NULL)); break;
    case 5:
      TI__OX_PUSH(r, a, g->inits, g->n_inits, cz, ti_onnx_tensor, at);
      TI__OX_SUB(r, "initializer", g->n_inits - 1, ti__ox_tensor(r, a, &g->inits[g->n_inits - 1]));
      break;
    case 11:
      TI__OX_PUSH(r, a, g->inputs, g->n_inputs, ci, ti_onnx_value_info, at);
      TI__OX_SUB(r, "input", g->n_inputs - 1, ti__ox_value_info(r, a, &g->inputs[g->n_inputs - 1]));
      break;
    case 12:
      TI__OX_PUSH(r, a, g->outputs, g->n_outputs, co, ti_onnx_value_info, at);
      TI__OX_SUB(r, "output", g->n_outputs - 1, ti__ox_value_info(r, a, &g->outputs[g->n_outputs - 1]));
      break;
    case 13:
      TI__OX_PUSH(r, a, g->value_info, g->n_value_info, cv, ti_onnx_value_info, at);
      TI__OX_SUB(r, "value_info", g->n_value_info - 1, ti__ox_value_info(r, a, &g->value_info[g->n_value_info - 1]));
      break;
    default: TI__PB_TRY(ti_pb_skip_field(r, f, wt)); break;
    }
  }
  return TI_STATUS_SUCCESS;
}

static ti_status ti__ox_opset(ti_pb_reader *r, ti_arena *a, ti_onnx_opset *o) {
  o->domain = "";
  o->version = 0;
  while (r->p < r->end) {
    uint32_t f, wt;
    const uint8_t *at = r->p;
    r->field = NULL; r->field_num = 0;
    TI__PB_TRY(ti_pb_read_tag(r, &f, &wt));
    if (f == 1) { r->field = "domain"; TI__PB_TRY(ti__ox_string(r, a, wt, at, &o->domain, NULL)); }
    else if (f == 2) { r->field = "version"; TI__PB_TRY(ti__ox_int(r, wt, at, &o->version)); }
    else TI__PB_TRY(ti_pb_skip_field(r, f, wt));
  }
  return TI_STATUS_SUCCESS;
}

static ti_status ti__ox_model(ti_pb_reader *r, ti_onnx_model *m) {
  ti_arena *a = &m->arena;
  int32_t co = 0, graphs = 0;
  while (r->p < r->end) {
    uint32_t f, wt;
    const uint8_t *at = r->p;
    r->field = NULL; r->field_num = 0;
    TI__PB_TRY(ti_pb_read_tag(r, &f, &wt));
    switch (f) {
    case 1: r->field = "ir_version"; TI__PB_TRY(ti__ox_int(r, wt, at, &m->ir_version)); break;
    case 8:
      TI__OX_PUSH(r, a, m->opsets, m->n_opsets, co, ti_onnx_opset, at);
      TI__OX_SUB(r, "opset_import", m->n_opsets - 1, ti__ox_opset(r, a, &m->opsets[m->n_opsets - 1]));
      break;
    case 7:
      if (graphs++) return ti_pb_fail(r, TI_STATUS_NOT_SUPPORTED, at, "graph given twice (merging graphs is not supported)");
      TI__OX_SUB(r, "graph", -1, ti__ox_graph(r, a, &m->graph));
      break;
    default: TI__PB_TRY(ti_pb_skip_field(r, f, wt)); break;
    }
  }
  return TI_STATUS_SUCCESS;
}

TASKIR_API ti_status ti_onnx_decode(ti_onnx_model *m, const void *buf, size_t len, void *alloc_user, ti_error *err) {
  ti_pb_reader r;
  ti_status st;
  if (!m) return ti_error_set(err, TI_STATUS_BAD_PARAM, "ti_onnx_decode: NULL model");
  memset(m, 0, sizeof *m);
  ti_arena_init(&m->arena, alloc_user);
  m->graph.name = "";
  if (!buf && len) return ti_error_set(err, TI_STATUS_BAD_PARAM, "ti_onnx_decode: NULL buffer");
  ti_pb_reader_init(&r, buf, len, err);
  st = ti__ox_model(&r, m);
  return st;
}

TASKIR_API ti_status ti_onnx_decode_tensor(ti_onnx_tensor *t, ti_arena *a, const void *buf, size_t len, ti_error *err) {
  ti_pb_reader r;
  if (!t || !a) return ti_error_set(err, TI_STATUS_BAD_PARAM, "ti_onnx_decode_tensor: NULL tensor or arena");
  if (!buf && len) return ti_error_set(err, TI_STATUS_BAD_PARAM, "ti_onnx_decode_tensor: NULL buffer");
  ti_pb_reader_init(&r, buf, len, err);
  return ti__ox_tensor(&r, a, t);
}

TASKIR_API void ti_onnx_model_free(ti_onnx_model *m) {
  if (!m) return;
  ti_arena_free(&m->arena);
  memset(m, 0, sizeof *m);
}

TASKIR_API int64_t ti_onnx_opset_version(const ti_onnx_model *m, const char *domain) {
  int32_t i;
  if (!domain || strcmp(domain, "ai.onnx") == 0) domain = "";
  for (i = 0; i < m->n_opsets; i++) {
    const char *d = strcmp(m->opsets[i].domain, "ai.onnx") == 0 ? "" : m->opsets[i].domain;
    if (strcmp(d, domain) == 0) return m->opsets[i].version;
  }
  return 0;
}

#undef TI__OX_PUSH
#undef TI__OX_SUB

#undef TI__PB_TRY
#undef TI__PB_MAXF
#undef TI__PB_STATIC_ASSERT
#undef TI__PB_LE
#undef TI__AT
#undef TI__CAT
#undef TI__PB_TF_END
#undef TI__PB_CTZ64
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
