#!/usr/bin/env bash
# The NEON kernels on a big-endian aarch64 target: tests/endian/main.c built
# as a static image without a C library (-mbig-endian, -nostdlib) and run
# under qemu-aarch64_be; it compares SIMD results with the reference and
# exits with the number of the first wrong check.
cc=$(command -v aarch64-linux-gnu-gcc) || { echo "skip: aarch64-linux-gnu-gcc missing (apt-get install gcc-aarch64-linux-gnu)"; exit 77; }
qemu=$(command -v qemu-aarch64_be) || { echo "skip: qemu-aarch64_be missing (apt-get install qemu-user)"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
passes=0; fails=0
inc=$("$cc" -print-file-name=include)
if "$cc" -mbig-endian -ffreestanding -nostdinc -isystem "$inc" -std=c99 -Wall -Wextra -Werror -pedantic -O2 \
     -fno-tree-loop-distribute-patterns -nostdlib -static -I. -o "$tmp/be" tests/endian/main.c; then
  passes=$((passes + 1))
  "$qemu" "$tmp/be"; rc=$?
  if [ "$rc" -eq 0 ]; then passes=$((passes + 1)); else echo "FAIL: big-endian check $rc (see tests/endian/main.c)"; fails=$((fails + 1)); fi
else
  echo "FAIL: tests/endian/main.c does not build for big-endian aarch64"; fails=$((fails + 1))
fi
echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
