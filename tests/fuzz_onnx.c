/* Fuzz target for ONNX decoding (taskir_proto.h >>proto.onnx) and import
   (taskir_onnx.h): every input is decoded; a decode error must name a byte
   offset inside the input; what decodes is imported (symbolic dims bound to
   1, weights referenced); an imported program must verify, print and parse
   back to the same text, and small ones run through the interpreter on
   zeros. Bad input never crashes, leaks or over-reads. A broken invariant
   aborts.

   libFuzzer:  clang -g -O1 -fsanitize=fuzzer,address,undefined -I. tests/fuzz_onnx.c
               (LLVMFuzzerInitialize adds some ONNX node-test models as seeds)
   no libFuzzer: cc -DTT_FUZZ_LOOP ... tests/fuzz_onnx.c (tests/fuzz_main.h). */
#define TASKIR_IMPLEMENTATION
#include "taskir_onnx.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Small models (no NUL bytes, so they pass as strings): Conv/Relu/MaxPool
   ceil_mode/Flatten with a symbolic batch; Add/Clip/Transpose/Softmax/Concat;
   Gemm and opset-9 Upsample. */
static const char *const fuzz_onnx_seeds[] = {
  "\x08\x07\x42\x02\x10\x0d\x3a\xab\x02\x0a\x25\x0a\x01\x78\x0a\x01\x77\x12\x01\x63\x1a\x01\x63\x22\x04\x43\x6f\x6e\x76\x2a\x11\x0a\x04\x70\x61\x64\x73\xa0\x01\x07\x40\x01\x40\x01\x40\x01\x40\x01\x0a\x0f\x0a\x01\x63\x12\x01\x72\x1a\x01\x72\x22\x04\x52\x65\x6c\x75\x0a\x4d\x0a\x01\x72\x12\x01\x70\x1a\x01\x70\x22\x07\x4d\x61\x78\x50\x6f\x6f\x6c\x2a\x15\x0a\x0c\x6b\x65\x72\x6e\x65\x6c\x5f\x73\x68\x61\x70\x65\xa0\x01\x07\x40\x02\x40\x02\x2a\x10\x0a\x07\x73\x74\x72\x69\x64\x65\x73\xa0\x01\x07\x40\x02\x40\x02\x2a\x10\x0a\x09\x63\x65\x69\x6c\x5f\x6d\x6f\x64\x65\xa0\x01\x02\x18\x01\x0a\x12\x0a\x01\x70\x12\x01\x79\x1a\x01\x66\x22\x07\x46\x6c\x61\x74\x74\x65\x6e\x12\x01\x67\x2a\x57\x08\x02\x08\x01\x08\x03\x08\x03\x10\x01\x42\x01\x77\x4a\x48\x81\x81\x81\x3f\x82\x81\x81\x3f\x83\x81\x81\x3f\x84\x81\x81\x3f\x85\x81\x81\x3f\x86\x81\x81\x3f\x87\x81\x81\x3f\x88\x81\x81\x3f\x89\x81\x81\x3f\x8a\x81\x81\x3f\x8b\x81\x81\x3f\x8c\x81\x81\x3f\x8d\x81\x81\x3f\x8e\x81\x81\x3f\x8f\x81\x81\x3f\x90\x81\x81\x3f\x91\x81\x81\x3f\x92\x81\x81\x3f\x5a\x1c\x0a\x01\x78\x12\x17\x0a\x15\x08\x01\x12\x11\x0a\x03\x12\x01\x4e\x0a\x02\x08\x01\x0a\x02\x08\x05\x0a\x02\x08\x05\x62\x14\x0a\x01\x79\x12\x0f\x0a\x0d\x08\x01\x12\x09\x0a\x03\x12\x01\x4e\x0a\x02\x08\x12",
  "\x08\x07\x42\x02\x10\x0b\x3a\xfb\x01\x0a\x11\x0a\x01\x78\x0a\x01\x78\x12\x01\x61\x1a\x01\x61\x22\x03\x41\x64\x64\x0a\x2d\x0a\x01\x61\x12\x01\x6b\x1a\x01\x6b\x22\x04\x43\x6c\x69\x70\x2a\x0d\x0a\x03\x6d\x69\x6e\xa0\x01\x01\x15\xae\x47\xc1\xbf\x2a\x0d\x0a\x03\x6d\x61\x78\xa0\x01\x01\x15\xae\x47\xc1\x3f\x0a\x25\x0a\x01\x6b\x12\x01\x74\x1a\x01\x74\x22\x09\x54\x72\x61\x6e\x73\x70\x6f\x73\x65\x2a\x0f\x0a\x04\x70\x65\x72\x6d\xa0\x01\x07\x40\x03\x40\x02\x40\x01\x0a\x1f\x0a\x01\x74\x12\x01\x79\x1a\x01\x6d\x22\x07\x53\x6f\x66\x74\x6d\x61\x78\x2a\x0b\x0a\x04\x61\x78\x69\x73\xa0\x01\x02\x18\x02\x0a\x21\x0a\x01\x74\x0a\x01\x74\x12\x01\x7a\x1a\x01\x71\x22\x06\x43\x6f\x6e\x63\x61\x74\x2a\x0b\x0a\x04\x61\x78\x69\x73\xa0\x01\x02\x18\x01\x12\x01\x68\x5a\x17\x0a\x01\x78\x12\x12\x0a\x10\x08\x01\x12\x0c\x0a\x02\x08\x02\x0a\x02\x08\x03\x0a\x02\x08\x04\x62\x17\x0a\x01\x79\x12\x12\x0a\x10\x08\x01\x12\x0c\x0a\x02\x08\x04\x0a\x02\x08\x03\x0a\x02\x08\x02\x62\x17\x0a\x01\x7a\x12\x12\x0a\x10\x08\x01\x12\x0c\x0a\x02\x08\x04\x0a\x02\x08\x06\x0a\x02\x08\x02",
  "\x08\x07\x42\x02\x10\x09\x3a\xee\x01\x0a\x32\x0a\x01\x78\x0a\x01\x77\x12\x01\x79\x1a\x01\x67\x22\x04\x47\x65\x6d\x6d\x2a\x0d\x0a\x06\x74\x72\x61\x6e\x73\x42\xa0\x01\x02\x18\x01\x2a\x0f\x0a\x05\x61\x6c\x70\x68\x61\xa0\x01\x01\x15\x47\x03\xa0\x3f\x0a\x2b\x0a\x02\x78\x34\x0a\x01\x73\x12\x01\x75\x1a\x01\x75\x22\x08\x55\x70\x73\x61\x6d\x70\x6c\x65\x2a\x12\x0a\x04\x6d\x6f\x64\x65\xa0\x01\x03\x22\x07\x6e\x65\x61\x72\x65\x73\x74\x12\x01\x69\x2a\x23\x08\x03\x08\x02\x10\x01\x42\x01\x77\x4a\x18\x81\x81\x81\x3f\x82\x81\x81\x3f\x83\x81\x81\x3f\x84\x81\x81\x3f\x85\x81\x81\x3f\x86\x81\x81\x3f\x5a\x13\x0a\x01\x78\x12\x0e\x0a\x0c\x08\x01\x12\x08\x0a\x02\x08\x01\x0a\x02\x08\x02\x5a\x1c\x0a\x02\x78\x34\x12\x16\x0a\x14\x08\x01\x12\x10\x0a\x02\x08\x01\x0a\x02\x08\x01\x0a\x02\x08\x02\x0a\x02\x08\x02\x62\x13\x0a\x01\x79\x12\x0e\x0a\x0c\x08\x01\x12\x08\x0a\x02\x08\x01\x0a\x02\x08\x03\x62\x1b\x0a\x01\x75\x12\x16\x0a\x14\x08\x01\x12\x10\x0a\x02\x08\x01\x0a\x02\x08\x01\x0a\x02\x08\x04\x0a\x02\x08\x04",
};
#define TT_FUZZ_EXTRA_SEEDS fuzz_onnx_seeds

static void fz_check(int ok, const char *what) {
  if (!ok) {
    fprintf(stderr, "fuzz_onnx: invariant broken: %s\n", what);
    abort();
  }
}

static ti_context *fz_ctx(void) {
  static ti_context *c;   /* one per process: registration is the expensive part */
  if (!c) {
    ti_error e;
    ti_error_clear(&e);
    c = ti_context_create(NULL);
    fz_check(c && ti_nn_register(c, &e) == TI_STATUS_SUCCESS, "context");
  }
  return c;
}

static void fz_program(ti_program *p) {
  ti_buffer t1, t2;
  ti_program *q = NULL;
  ti_error e;
  ti_op *op;
  int64_t total = 0;
  ti_error_clear(&e);
  ti_buffer_init(&t1, NULL); ti_buffer_init(&t2, NULL);
  fz_check(ti_verify(p, &e) == TI_STATUS_SUCCESS, "an imported program verifies");
  fz_check(ti_print_program(p, &t1, &e) == TI_STATUS_SUCCESS, "prints");
  if (t1.len < (1u << 20)) {
    fz_check(ti_parse_program(p->ctx, (const char *)t1.data, t1.len, &q, &e) == TI_STATUS_SUCCESS, "its text parses");
    fz_check(ti_print_program(q, &t2, &e) == TI_STATUS_SUCCESS, "reprints");
    fz_check(t1.len == t2.len && memcmp(t1.data, t2.data, t1.len) == 0, "print(parse(print(p))) == print(p)");
    ti_program_destroy(q);
  }
  ti_buffer_free(&t1); ti_buffer_free(&t2);
  /* run small programs on zeros: evals must not crash on what import built */
  for (op = p->first; op; op = op->next) {
    int32_t i;
    for (i = 0; i < op->n_results; i++) {
      int64_t n = ti_type_numel(op->results[i].type);
      total += n < 0 ? (1 << 30) : n;
    }
    total += 64;
  }
  if (total < 20000 && p->n_args <= 8) {
    ti_tensor_value *in[8], *out[16];
    int32_t i, nout = 16, ok = 1;
    for (i = 0; i < p->n_args; i++) {
      const ti_type *t = p->args[i]->type;
      in[i] = ti_tensor_create(NULL, t->dtype, t->rank, t->dims, t->layout, NULL, &e);
      if (!in[i]) { ok = 0; break; }
    }
    if (ok && ti_interpret(p, (const ti_tensor_value *const *)in, p->n_args, out, &nout, &e) == TI_STATUS_SUCCESS)
      for (i = 0; i < nout; i++) ti_tensor_free(out[i]);
    for (i = 0; i < p->n_args && (ok || in[i]); i++) ti_tensor_free(in[i]);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ti_onnx_model m;
  ti_error err;
  ti_status st;
  ti_program *p = NULL;
  ti_onnx_dim_binding dims[2] = {{"N", 1}, {"batch", 1}};
  ti_onnx_options opt;
  memset(&opt, 0, sizeof opt);
  opt.dims = dims; opt.n_dims = 2; opt.reference_weights = 1;
  ti_error_clear(&err);
  st = ti_onnx_decode(&m, data, size, NULL, &err);
  if (st != TI_STATUS_SUCCESS) {
    fz_check(err.offset >= 0 && (size_t)err.offset <= size && err.message[0] != 0, "decode error names an offset");
  } else {
    st = ti_onnx_import_model(fz_ctx(), &m, &opt, &p, &err);
    if (st == TI_STATUS_SUCCESS) {
      ti_quant_report qr;
      fz_check(p != NULL, "a program on success");
      fz_program(p);
      /* quantize-recognize on whatever import built: a verified program
         after it, quantised or unchanged with a reason */
      if (ti_quantize_recognize(p, &qr, &err) == TI_STATUS_SUCCESS) {
        fz_check(ti_verify(p, &err) == TI_STATUS_SUCCESS, "quantize-recognize leaves a verified program");
        fz_check(qr.n_layers > 0 || qr.reason[0] != 0, "a program that stays float has a reason");
        if (qr.n_layers > 0) fz_program(p);
      } else fz_check(err.message[0] != 0, "quantize-recognize error has a message");
      ti_program_destroy(p);
    } else fz_check(p == NULL && err.message[0] != 0, "import error has a message");
  }
  ti_onnx_model_free(&m);
  return 0;
}

#ifdef TT_FUZZ_LOOP
#include "fuzz_main.h"
#else
#include "fuzz_seeds.h"
/* Adds a few ONNX node-test models (when libonnx-testdata is installed) as
   seed inputs; libFuzzer reads its flags after this hook. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  static const char *const names[] = {"test_conv_with_strides_padding", "test_gemm_all_attributes", "test_maxpool_2d_ceil",
                                      "test_averagepool_2d_pads_count_include_pad", "test_reshape_negative_dim",
                                      "test_concat_2d_axis_0", "test_slice_neg_steps", "test_batchnorm_example",
                                      "test_resize_upsample_scales_nearest", "test_convtranspose_pads", "test_softmax_axis_0"};
  static const char *const fmts[] = { "%s/%s/model.onnx" };
  const char *dir = getenv("TASKIR_ONNX_TESTDATA");
  if (!dir || !*dir) dir = "/usr/share/libonnx-testdata/data/node";
  return tt_fuzz_seed_args(argc, argv, dir, fmts, 1, names, sizeof names / sizeof *names);
}
#endif
