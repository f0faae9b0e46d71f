/* Startup of the firmware image: vector table, reset handler (copy .data,
   zero .bss, run main; the image is soft-float, so there is no FPU to
   enable) and the four memory routines GCC requires of any freestanding
   environment (it may call memcpy, memmove, memset and memcmp for struct
   copies and initialisers). No C library. main's result is left in
   ti_fw_result for a debugger to read. */
#include <stddef.h>
#include <stdint.h>

extern uint32_t _sidata[], _sdata[], _edata[], _sbss[], _ebss[], _estack[];
int main(void);
void ti_fw_reset(void);
void ti_fw_default(void);

void *memcpy(void *d, const void *s, size_t n);
void *memmove(void *d, const void *s, size_t n);
void *memset(void *d, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);

void *memcpy(void *d, const void *s, size_t n) {
  unsigned char *p = (unsigned char *)d;
  const unsigned char *q = (const unsigned char *)s;
  while (n--) *p++ = *q++;
  return d;
}
void *memmove(void *d, const void *s, size_t n) {
  unsigned char *p = (unsigned char *)d;
  const unsigned char *q = (const unsigned char *)s;
  if ((uintptr_t)p < (uintptr_t)q) return memcpy(d, s, n);
  while (n) { --n; p[n] = q[n]; }
  return d;
}
void *memset(void *d, int c, size_t n) {
  unsigned char *p = (unsigned char *)d;
  while (n--) *p++ = (unsigned char)c;
  return d;
}
int memcmp(const void *a, const void *b, size_t n) {
  const unsigned char *p = (const unsigned char *)a, *q = (const unsigned char *)b;
  for (; n; --n, ++p, ++q)
    if (*p != *q) return *p < *q ? -1 : 1;
  return 0;
}

volatile int ti_fw_result = -1;

void ti_fw_default(void) {
  for (;;) {}
}

void ti_fw_reset(void) {
  uint32_t *s = _sidata, *d = _sdata;
  while (d < _edata) *d++ = *s++;
  for (d = _sbss; d < _ebss; ++d) *d = 0;
  ti_fw_result = main();
  for (;;) {}
}

/* Initial stack pointer, reset, then the 14 system exceptions. */
__attribute__((section(".isr_vector"), used))
void (*const ti_fw_vectors[16])(void) = {
  (void (*)(void))(uintptr_t)_estack, ti_fw_reset,
  ti_fw_default, ti_fw_default, ti_fw_default, ti_fw_default, ti_fw_default,
  0, 0, 0, 0,
  ti_fw_default, ti_fw_default, 0, ti_fw_default, ti_fw_default
};
