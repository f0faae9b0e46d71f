#!/usr/bin/env bash
# One version everywhere: the TASKIR_VERSION_* macros of every header agree
# (and with line 1 of each header), each header alone gives them to a
# program, `taskir --version` prints them, and CHANGELOG.md has the version.
set -u
T=${TASKIR:-build/taskir}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0; passes=0; skips=0
ok() { passes=$((passes + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
def() { sed -nE "s/^#define TASKIR_VERSION_$2 +//p" "$1"; }

ref=""
for h in taskir*.h; do
  M=$(def "$h" MAJOR); m=$(def "$h" MINOR); p=$(def "$h" PATCH); s=$(def "$h" STRING)
  v="$M.$m.$p"
  if [ -z "$M" ] || [ -z "$m" ] || [ -z "$p" ]; then bad "$h: TASKIR_VERSION_MAJOR/MINOR/PATCH missing"; continue; fi
  [ "$s" = "\"$v\"" ] && ok || bad "$h: TASKIR_VERSION_STRING $s is not \"$v\""
  [ -z "$ref" ] && ref=$v
  [ "$v" = "$ref" ] && ok || bad "$h: version $v, another header says $ref"
  head -n 1 "$h" | grep -qF " - v$v - " && ok || bad "$h: line 1 does not say v$v"
  # usable alone: a program including only this header sees the version
  printf '#include <stdio.h>\n#include "%s"\nint main(void) { printf("%%d.%%d.%%d %%s\\n", TASKIR_VERSION_MAJOR, TASKIR_VERSION_MINOR, TASKIR_VERSION_PATCH, TASKIR_VERSION_STRING); return 0; }\n' "$h" > "$tmp/v.c"
  if ${CC:-cc} -std=c99 -Wall -Wextra -Werror -pedantic -I. -o "$tmp/v" "$tmp/v.c" && [ "$("$tmp/v")" = "$v $v" ]; then ok
  else bad "$h alone does not give the version to a program"; fi
done
[ -n "$ref" ] || { echo "no version found"; echo "0 passed, 1 failed"; exit 1; }

if [ -x "$T" ]; then
  out=$("$T" --version); rc=$?
  [ $rc -eq 0 ] && [ "$out" = "taskir $ref" ] && ok || bad "taskir --version: '$out' (exit $rc), want 'taskir $ref'"
else
  echo "skip: $T is not built: --version not checked"; skips=$((skips + 1))
fi
grep -qE "^## \[$ref\]" CHANGELOG.md && ok || bad "CHANGELOG.md has no section for $ref"
grep -qE "^## \[Unreleased\]" CHANGELOG.md && ok || bad "CHANGELOG.md has no Unreleased section"
if [ "$skips" -ne 0 ]; then echo "$passes passed, $fails failed, $skips skipped"
else echo "$passes passed, $fails failed"; fi
[ "$fails" -eq 0 ]
