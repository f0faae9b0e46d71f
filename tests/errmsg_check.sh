#!/usr/bin/env bash
# TASKIR_NO_ERRMSG drops the message texts at the call site: compiles an
# implementation of each header at -O2 with and without the option and looks
# for known message texts of that header (its direct ti_error_set calls and
# its message-taking helpers) in the object: present without, absent with.
# taskir_kernels.h reports statuses only (no texts). Prints the object sizes.
cd "$(dirname "$0")/.." || exit 2
command -v strings >/dev/null || { echo "strings not found (apt-get install binutils)"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
texts_of() {
  case $1 in
    taskir.h) printf '%s\n' "is used twice" "arguments must be numbered" "is required" \
                "is negative; dims are counts" "a problem (more than" "its shape is too large" ;;
    taskir_proto.h) printf '%s\n' "protobuf encode: out of memory" "at line %ld column" \
                      "invalid escape sequence in string" "at byte %lld (in %s)" ;;
    taskir_layout.h) printf '%s\n' "layout: out of memory indexing" "layout-transmit: no program" ;;
    taskir_lower.h) printf '%s\n' "does not fit int32" "transposes separated by reshapes" \
                      "the lowered graph fails the checker" ;;
    taskir_onnx.h) printf '%s\n' "carries no data" "unsupported: node" "no type for its shape" ;;
    taskir_exec.h) printf '%s\n' "cannot pack weights" "ti_exec_options.max_bytes" "parameter tensors (at most" ;;
  esac
}
for h in taskir.h taskir_proto.h taskir_layout.h taskir_lower.h taskir_onnx.h taskir_exec.h; do
  printf '#define TASKIR_IMPLEMENTATION\n#include "%s"\n' "$h" > "$tmp/t.c"
  ok=1
  for mode in with without; do
    def=; [ $mode = with ] && def=-DTASKIR_NO_ERRMSG
    if ! ${CC:-cc} -std=c99 -Wall -Wextra -Werror -pedantic -O2 $def -I. -c "$tmp/t.c" -o "$tmp/$mode.o"; then
      echo "FAIL: $h does not compile ${def:-without TASKIR_NO_ERRMSG}"; ok=0; continue
    fi
    strings -n 4 "$tmp/$mode.o" > "$tmp/$mode.txt"
    while IFS= read -r s; do
      if grep -qF -- "$s" "$tmp/$mode.txt"; then
        [ $mode = with ] && { echo "FAIL: $h with TASKIR_NO_ERRMSG keeps \"$s\""; ok=0; }
      else
        [ $mode = without ] && { echo "FAIL: $h without TASKIR_NO_ERRMSG lacks \"$s\" (stale text list?)"; ok=0; }
      fi
    done < <(texts_of "$h")
  done
  if [ $ok = 1 ]; then
    pass=$((pass + 1))
    echo "ok: $h: code + read-only data $(size "$tmp/without.o" | awk 'NR==2{print $1}') ->" \
         "$(size "$tmp/with.o" | awk 'NR==2{print $1}') bytes with TASKIR_NO_ERRMSG"
  else fail=$((fail + 1)); fi
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
