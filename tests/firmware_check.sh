#!/usr/bin/env bash
# taskir_kernels.h must fit firmware: freestanding Cortex-M4, no libc allocation or stdio.
cc=$(command -v arm-none-eabi-gcc) || { echo "arm-none-eabi-gcc missing (apt-get install gcc-arm-none-eabi)"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf '#define TASKIR_IMPLEMENTATION\n#include "taskir_kernels.h"\n' > "$tmp/k.c"
"$cc" -mcpu=cortex-m4 -mthumb -ffreestanding -std=c99 -Wall -Wextra -Werror -pedantic -O2 -I. -c "$tmp/k.c" -o "$tmp/k.o" || exit 1
# No allocation, no stdio in the object.
if arm-none-eabi-nm -u "$tmp/k.o" | grep -E ' (malloc|calloc|realloc|free|printf|fprintf|puts|fopen)$'; then
  echo "taskir_kernels.h references libc allocation or stdio"; exit 1
fi
arm-none-eabi-size "$tmp/k.o"
