/* The pieces every header shares: errors, the arena, enum tables. */
#define TASKIR_IMPLEMENTATION
#include "taskir.h"
#include "taskir_kernels.h"
#include "tt.h"

TT_TEST(error_keeps_first_problem) {
  ti_error e;
  ti_error_clear(&e);
  TT_EQ_INT(ti_error_set(&e, TI_STATUS_PARSE_ERROR, "at byte %d", 7), TI_STATUS_PARSE_ERROR);
  TT_EQ_INT(ti_error_set(&e, TI_STATUS_NO_MEMORY, "second"), TI_STATUS_NO_MEMORY);
  TT_EQ_INT(e.status, TI_STATUS_PARSE_ERROR);
  TT_EQ_STR(e.message, "at byte 7");
  TT_EQ_INT(ti_error_set(NULL, TI_STATUS_INVALID, "ignored"), TI_STATUS_INVALID);
  TT_EQ_STR(ti_status_name(TI_STATUS_NOT_FOUND), "not found");
}

TT_TEST(arena_alignment_zeroing_and_big_blocks) {
  ti_arena a;
  int i;
  ti_arena_init(&a, NULL);
  for (i = 0; i < 10000; i++) {
    size_t align = (size_t)1 << (i % 5), size = (size_t)(i % 97) + 1, k;
    unsigned char *p = (unsigned char *)ti_arena_alloc(&a, size, align);
    TT_CHECK(p != NULL && ((uintptr_t)p & (align - 1)) == 0);
    for (k = 0; k < size; k++) if (p[k]) { TT_CHECK(p[k] == 0); break; }
    memset(p, 0xab, size);
  }
  {
    unsigned char *big = (unsigned char *)ti_arena_alloc(&a, (size_t)10 << 20, 16);
    unsigned char *small = (unsigned char *)ti_arena_alloc(&a, 8, 8);
    TT_CHECK(big && small && big[(10 << 20) - 1] == 0);
  }
  TT_CHECK(ti_arena_array(&a, (size_t)-1 / 2, 4, 4) == NULL);
  TT_EQ_STR(ti_arena_strndup(&a, "abcdef", 3), "abc");
  ti_arena_free(&a);
}

TT_TEST(enum_names_and_wire_values) {
  ti_block_type t;
  ti_dtype p;
  TT_EQ_STR(ti_block_type_name(TI_BLOCK_CC), "CC");
  TT_EQ_INT(ti_block_type_wire(TI_BLOCK_OUTPUT), 51);
  TT_EQ_INT(ti_block_type_from_wire(100, &t), 0); TT_EQ_INT(t, TI_BLOCK_NULL);
  TT_EQ_INT(ti_block_type_from_wire(20, &t), -1);
  TT_EQ_INT(ti_precision_from_wire(100, &p), 0); TT_EQ_INT(p, TI_DTYPE_I9);
  TT_EQ_INT(ti_precision_wire(TI_DTYPE_I9), 100);
  TT_EQ_STR(ti_precision_name(TI_DTYPE_TERNARY), "TERNARY");
  TT_CHECK(ti_precision_name(TI_DTYPE_I64) == NULL);
  TT_EQ_STR(ti_attr_type_name(TI_TASK_ATTR_VTHETA_CONST), "VTHETA_CONST");
  TT_EQ_STR(ti_rearrange_kind_name(TI_REARRANGE_SHUFFLE), "SHUFFLE");
  TT_EQ_INT(ti_block_class_of(TI_BLOCK_SW2D), TI_CLASS_STORAGE);
  TT_EQ_INT(ti_block_class_of(TI_BLOCK_CLIF), TI_CLASS_COMPUTE);
  TT_EQ_INT(ti_dtype_size(TI_DTYPE_I9), 2);
}

TT_TEST(null_ctx_uses_compiled_simd_paths) {
  unsigned compiled = ti_cpu_compiled(), detected = ti_cpu_detect();
  /* a binary only runs where what it was compiled to assume exists */
  TT_CHECK_MSG((compiled & ~detected) == 0, "compiled 0x%x, detected 0x%x", compiled, detected);
#if defined(__x86_64__) && !defined(TASKIR_NO_SIMD)
  TT_CHECK(compiled & TI_CPU_SSE2);
#endif
#if defined(TASKIR_NO_SIMD)
  TT_EQ_INT(compiled, 0);
  TT_EQ_INT(detected, 0);
#endif
}

int main(void) {
  TT_RUN(error_keeps_first_problem);
  TT_RUN(arena_alignment_zeroing_and_big_blocks);
  TT_RUN(enum_names_and_wire_values);
  TT_RUN(null_ctx_uses_compiled_simd_paths);
  return tt_finish();
}
