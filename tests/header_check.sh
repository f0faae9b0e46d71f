#!/usr/bin/env bash
# Compiles one header on its own, declarations and implementation, as strict
# C99 (-pedantic), as C++ (g++ -x c++), with TASKIR_STATIC (every function
# static, unused ones included), with TASKIR_NO_NN (C99 and C++; a header that
# needs the nn dialect must refuse with its #error), or freestanding
# (taskir_kernels.h: no C library headers, no symbols needed), with
# TASKIR_NO_ERRMSG (C99 and C++), or (nodiscard) that ignoring a returned
# ti_status fails to compile while `(void)!call` compiles; warnings as errors.
# A header under tools/ gets _POSIX_C_SOURCE first (c99, c++ and static).
h=$1; mode=$2; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# the tools' headers (tools/taskir_pool.h) need POSIX: C99 with _POSIX_C_SOURCE
posix=; case $h in tools/*) posix='#define _POSIX_C_SOURCE 200809L\n' ;; esac
printf "$posix"'#define TASKIR_IMPLEMENTATION\n#include "%s"\n#include "%s"\nint ti_header_check_dummy;\n' "$h" "$h" > "$tmp/t.c"
case $mode in
  c99) ${CC:-cc} -std=c99 -Wall -Wextra -Werror -pedantic -I. -c "$tmp/t.c" -o "$tmp/t.o" ;;
  c++) ${CXX:-g++} -x c++ -Wall -Wextra -Werror -I. -c "$tmp/t.c" -o "$tmp/t.o" ;;
  static) ${CC:-cc} -std=c99 -Wall -Wextra -Werror -pedantic -DTASKIR_STATIC -I. -c "$tmp/t.c" -o "$tmp/t.o" ;;
  no_nn)
    case $h in
      taskir_layout.h|taskir_onnx.h|taskir_lower.h)
        if ${CC:-cc} -std=c99 -DTASKIR_NO_NN -I. -c "$tmp/t.c" -o "$tmp/t.o" 2>"$tmp/e"; then
          echo "$h compiles with TASKIR_NO_NN: it should refuse (it needs the nn dialect)"; exit 1
        fi
        grep -q "needs the nn dialect" "$tmp/e" || { cat "$tmp/e"; exit 1; } ;;
      *) ${CC:-cc} -std=c99 -Wall -Wextra -Werror -pedantic -DTASKIR_NO_NN -I. -c "$tmp/t.c" -o "$tmp/t.o" &&
         ${CXX:-g++} -x c++ -Wall -Wextra -Werror -DTASKIR_NO_NN -I. -c "$tmp/t.c" -o "$tmp/t.o" ;;
    esac ;;
  freestanding)
    # Only the compiler's own headers (no C library on the include path), the
    # plain C paths (GCC's x86 intrinsics headers include <stdlib.h>) ...
    cc=${CC:-cc}; inc=$("$cc" -print-file-name=include)
    [ -d "$inc" ] || inc=$("$cc" -print-resource-dir)/include
    if printf '#include <string.h>\n' | "$cc" -ffreestanding -nostdinc -isystem "$inc" -E -o /dev/null -x c - 2>/dev/null; then
      echo "<string.h> is reachable from $inc: cannot prove a libc-free build"; exit 1
    fi
    "$cc" -std=c99 -Wall -Wextra -Werror -pedantic -O2 -ffreestanding -nostdinc -isystem "$inc" \
      -DTASKIR_NO_SIMD -I. -c "$tmp/t.c" -o "$tmp/t.o" || exit 1
    # ... and the SIMD paths freestanding: neither object needs any symbol.
    "$cc" -std=c99 -Wall -Wextra -Werror -pedantic -O2 -ffreestanding -I. -c "$tmp/t.c" -o "$tmp/s.o" || exit 1
    for o in t.o s.o; do
      u=$(nm -u "$tmp/$o")
      if [ -n "$u" ]; then echo "$h freestanding ($o) needs: $u"; exit 1; fi
    done ;;
  no_errmsg) ${CC:-cc} -std=c99 -Wall -Wextra -Werror -pedantic -DTASKIR_NO_ERRMSG -I. -c "$tmp/t.c" -o "$tmp/t.o" &&
             ${CXX:-g++} -x c++ -Wall -Wextra -Werror -DTASKIR_NO_ERRMSG -I. -c "$tmp/t.c" -o "$tmp/t.o" ;;
  nodiscard)
    # one status-returning call of the header, its result dropped
    case $h in
      taskir_kernels.h) call='ti_cvm_as_cc(0, 0)' ;;
      taskir.h) call='ti_verify(0, 0)' ;;
      taskir_proto.h) call='ti_task_decode(0, 0, 0, 0)' ;;
      taskir_layout.h) call='ti_layout_transmit(0, 0, 0)' ;;
      taskir_lower.h) call='ti_lower_to_task(0, 0, 0, 0)' ;;
      taskir_onnx.h) call='ti_quantize_analyze(0, 0, 0)' ;;
      taskir_exec.h) call='ti_exec_run(0, 0)' ;;
      *) echo "nodiscard: no call listed for $h"; exit 1 ;;
    esac
    for cc in "${CC:-cc} -std=c99 -pedantic" "${CXX:-g++} -x c++"; do
      printf '#include "%s"\nvoid f(void);\nvoid f(void) { %s; }\n' "$h" "$call" > "$tmp/d.c"
      if $cc -Wall -Wextra -Werror -I. -c "$tmp/d.c" -o "$tmp/d.o" 2>"$tmp/e"; then
        echo "$h ($cc): ignoring the status of $call compiles"; exit 1
      fi
      grep -q "unused-result\|warn_unused_result" "$tmp/e" || { cat "$tmp/e"; exit 1; }
      printf '#include "%s"\nvoid f(void);\nvoid f(void) { (void)!%s; }\n' "$h" "$call" > "$tmp/d.c"
      $cc -Wall -Wextra -Werror -I. -c "$tmp/d.c" -o "$tmp/d.o" || exit 1
    done ;;
  *) echo "usage: $0 HEADER c99|c++|static|no_nn|no_errmsg|nodiscard|freestanding"; exit 2 ;;
esac
