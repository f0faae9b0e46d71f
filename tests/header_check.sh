#!/usr/bin/env bash
# Compiles one header on its own, declarations and implementation, as strict
# C99 (-pedantic), as C++ (g++ -x c++), or with TASKIR_STATIC (every function
# static, unused ones included), warnings as errors.
h=$1; mode=$2; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf '#define TASKIR_IMPLEMENTATION\n#include "%s"\n#include "%s"\nint ti_header_check_dummy;\n' "$h" "$h" > "$tmp/t.c"
case $mode in
  c99) ${CC:-cc} -std=c99 -Wall -Wextra -Werror -pedantic -I. -c "$tmp/t.c" -o "$tmp/t.o" ;;
  c++) ${CXX:-g++} -x c++ -Wall -Wextra -Werror -I. -c "$tmp/t.c" -o "$tmp/t.o" ;;
  static) ${CC:-cc} -std=c99 -Wall -Wextra -Werror -pedantic -DTASKIR_STATIC -I. -c "$tmp/t.c" -o "$tmp/t.o" ;;
  *) echo "usage: $0 HEADER c99|c++|static"; exit 2 ;;
esac
