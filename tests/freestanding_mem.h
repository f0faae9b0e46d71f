/* tests/freestanding_mem.h - the four memory routines GCC requires of any
   freestanding environment (it may call memcpy, memmove, memset and memcmp
   for struct copies and initialisers), for the images built without a C
   library: the firmware image (tests/firmware/startup.c) and the
   big-endian check (tests/endian/main.c). Include once, in one file. */
#ifndef TI_FREESTANDING_MEM_H
#define TI_FREESTANDING_MEM_H
#include <stddef.h>
#include <stdint.h>

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
#endif
