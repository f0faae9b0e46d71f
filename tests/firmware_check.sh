#!/usr/bin/env bash
# taskir_kernels.h must fit firmware without a C library: a Cortex-M4 build
# with -ffreestanding -nostdinc and only the compiler's own headers on the
# include path (stddef.h, stdint.h, ...), no allocation or stdio in the
# object, and a tiny image (tests/firmware: vector table, startup, linker
# script, a main calling a few kernels) linked with -nostdlib; prints its size.
cc=$(command -v arm-none-eabi-gcc) || { echo "skip: arm-none-eabi-gcc missing (apt-get install gcc-arm-none-eabi)"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
passes=0; fails=0
ok() { passes=$((passes + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
inc=$("$cc" -print-file-name=include)
arch=(-mcpu=cortex-m4 -mthumb -mfloat-abi=soft)
flags=("${arch[@]}" -ffreestanding -nostdinc -isystem "$inc" -std=c99 -Wall -Wextra -Werror -pedantic
       -O2 -ffunction-sections -fdata-sections -I.)

# The include path holds no C library: string.h and assert.h are not found.
for h in string.h assert.h stdlib.h; do
  if printf '#include <%s>\n' "$h" | "$cc" "${flags[@]}" -E -o /dev/null -x c - 2>/dev/null; then
    bad "<$h> is reachable on the include path ($inc): the check would not prove anything"
  else ok; fi
done

# Every kernel, on its own: compiles, and needs nothing beyond libgcc and the
# four routines GCC requires of a freestanding environment.
printf '#define TASKIR_IMPLEMENTATION\n#include "taskir_kernels.h"\n' > "$tmp/k.c"
if "$cc" "${flags[@]}" -c "$tmp/k.c" -o "$tmp/k.o"; then
  ok
  extra=$(arm-none-eabi-nm -u "$tmp/k.o" | awk '{print $2}' | grep -vE '^(memcpy|memmove|memset|memcmp|__aeabi_[a-z0-9_]+|__gnu_[a-z0-9_]+)$')
  if [ -n "$extra" ]; then bad "taskir_kernels.h needs symbols beyond libgcc and mem*: $extra"; else ok; fi
  arm-none-eabi-size "$tmp/k.o" | sed 's|'"$tmp"'/||'
else
  bad "taskir_kernels.h does not compile freestanding for Cortex-M4"
fi

# The image: startup (whose own memcpy must not become a call to itself),
# main, linker script; -nostdlib, libgcc only.
if "$cc" "${flags[@]}" -c tests/firmware/main.c -o "$tmp/main.o" &&
   "$cc" "${flags[@]}" -fno-tree-loop-distribute-patterns -c tests/firmware/startup.c -o "$tmp/startup.o" &&
   "$cc" "${arch[@]}" -nostdlib -T tests/firmware/cortex_m4.ld -Wl,--gc-sections \
         -o "$tmp/taskir_fw.elf" "$tmp/startup.o" "$tmp/main.o" -lgcc; then
  ok
  # the vector table opens the flash; the entry is the reset handler (Thumb)
  syms=$(arm-none-eabi-nm "$tmp/taskir_fw.elf")
  grep -qE '^08000000 [A-Za-z] ti_fw_vectors$' <<< "$syms" && ok || bad "the vector table is not at the start of flash"
  reset=$(awk '$3 == "ti_fw_reset" {print $1}' <<< "$syms")
  entry=$(arm-none-eabi-readelf -h "$tmp/taskir_fw.elf" | awk '/Entry point/ {print $NF}')
  [ -n "$reset" ] && [ "$((entry))" -eq "$((0x$reset + 1))" ] && ok || bad "the entry point ($entry) is not ti_fw_reset ($reset)"
  arm-none-eabi-size "$tmp/taskir_fw.elf" | sed 's|'"$tmp"'/||'
else
  bad "the Cortex-M4 image does not link without a C library"
fi
echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
