/* Startup of the firmware image: vector table, reset handler (copy .data,
   zero .bss, run main; the image is soft-float, so there is no FPU to
   enable) and the four memory routines GCC requires of any freestanding
   environment (tests/freestanding_mem.h). No C library. main's result is left in
   ti_fw_result for a debugger to read. */
#include <stddef.h>
#include <stdint.h>

extern uint32_t _sidata[], _sdata[], _edata[], _sbss[], _ebss[], _estack[];
int main(void);
void ti_fw_reset(void);
void ti_fw_default(void);

#include "../freestanding_mem.h"

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
