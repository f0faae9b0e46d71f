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

/* Chunks double from TI__ARENA_MIN_CHUNK up to TI__ARENA_MAX_CHUNK and no
   further (far below the size the C library maps and unmaps on its own);
   only a request bigger than that gets a bigger chunk, of its own size,
   and the small ones after it still go to the current chunk. */
TT_TEST(arena_chunks_capped_but_big_requests_get_their_own) {
  enum { SMALL = 1000, BIG_MB = 5 };
  ti_arena a;
  ti_arena_chunk *c;
  size_t i, n_chunks = 0, over = 0, sum = 0, want = (size_t)40 << 20;
  unsigned char *big, *small, *head_base;
  /* well below glibc's mmap threshold ceiling (32 MiB) */
  TT_CHECK(TI__ARENA_MAX_CHUNK <= ((size_t)4 << 20));
  ti_arena_init(&a, NULL);
  for (i = 0; i < want / SMALL; i++) {
    unsigned char *p = (unsigned char *)ti_arena_alloc_uninit(&a, SMALL, 8);
    TT_CHECK(p != NULL);
    if (!p) break;
    p[0] = p[SMALL - 1] = 1;
  }
  for (c = a.head; c; c = c->next) {
    n_chunks++;
    sum += TI__CHUNK_HEADER + c->cap;
    if (c->cap > TI__ARENA_MAX_CHUNK) over++;
  }
  TT_EQ_INT(over, 0);
  TT_EQ_INT(sum, a.total);
  /* 40 MiB in 1 MiB chunks after the doublings from 64 KiB: about 40, not thousands */
  TT_CHECK_MSG(n_chunks <= want / TI__ARENA_MAX_CHUNK + 8, "%lu chunks", (unsigned long)n_chunks);
  TT_CHECK(a.cap == TI__ARENA_MAX_CHUNK);
  head_base = (unsigned char *)a.head + TI__CHUNK_HEADER;
  big = (unsigned char *)ti_arena_alloc(&a, (size_t)BIG_MB << 20, 16);
  small = (unsigned char *)ti_arena_alloc(&a, 8, 8);
  TT_CHECK(big && small && big[((size_t)BIG_MB << 20) - 1] == 0);
  /* the big one has a chunk of exactly its size behind the head; the small one is in the head */
  TT_CHECK(a.head->next && a.head->next->cap == (size_t)BIG_MB << 20);
  TT_CHECK(big == (unsigned char *)a.head->next + TI__CHUNK_HEADER);
  TT_CHECK(small >= head_base && small < head_base + a.cap);
  over = 0;
  for (c = a.head; c; c = c->next)
    if (c->cap > TI__ARENA_MAX_CHUNK) over++;
  TT_EQ_INT(over, 1);
  ti_arena_free(&a);
  TT_EQ_INT(a.total, 0);
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
  TT_RUN(arena_chunks_capped_but_big_requests_get_their_own);
  TT_RUN(enum_names_and_wire_values);
  TT_RUN(null_ctx_uses_compiled_simd_paths);
  return tt_finish();
}
