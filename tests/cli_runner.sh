#!/usr/bin/env bash
# The test runner and the Makefile's skips: tests/run.sh adds up sub-suites
# honestly (passed, failed, skipped), and the aarch64 checks say what is
# skipped and why whichever cross tool is missing.
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0; passes=0
ok() { passes=$((passes + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
runner() { bash tests/run.sh "$@" > "$tmp/out" 2>&1; echo $? > "$tmp/rc"; tail -n 1 "$tmp/out"; }

# a summary line counts as its numbers; a plain command as one test
[ "$(runner "echo '3 passed, 0 failed'" true)" = "4 passed, 0 failed" ] && [ "$(cat "$tmp/rc")" = 0 ] && ok || bad "passes add up"
[ "$(runner "echo '3 passed, 2 failed'; exit 1" false)" = "3 passed, 3 failed" ] && [ "$(cat "$tmp/rc")" = 1 ] && ok || bad "failures add up"
# exit 77: skipped, never failed; a summary's own skips are kept
[ "$(runner "exit 77" "echo '2 passed, 0 failed, 4 skipped'" true)" = "3 passed, 0 failed, 5 skipped" ] && [ "$(cat "$tmp/rc")" = 0 ] && ok || bad "skips add up"
[ "$(runner "echo '5 passed, 0 failed'; exit 77")" = "5 passed, 0 failed, 1 skipped" ] && [ "$(cat "$tmp/rc")" = 0 ] && ok || bad "exit 77 after a summary"
[ "$(runner "echo '5 passed, 0 failed'; exit 3")" = "5 passed, 1 failed" ] && grep -q "^failed: " "$tmp/out" && ok || bad "crash after a summary"

# every cli script prints the standard closing line
for s in tests/cli_*.sh; do
  grep -qE 'echo "\$passes passed, \$fails failed' "$s" && ok || bad "$s: no standard 'N passed, N failed' line"
done

# the aarch64 checks: with either tool missing, one skip entry that names it
if command -v make > /dev/null; then
  for v in "AARCH64_CC=" "QEMU=" "AARCH64_CC= QEMU="; do
    # shellcheck disable=SC2086
    env -u MAKEFLAGS -u MAKELEVEL make -n test $v > "$tmp/n" 2>&1
    want=""; case $v in *AARCH64_CC=*) want="aarch64-linux-gnu-gcc";; esac
    line=$(grep -o "skip: the [0-9]* aarch64 kernel tests under qemu: missing [^']*" "$tmp/n")
    { [ -n "$line" ] && { [ -z "$want" ] || grep -q "$want" <<< "$line"; } &&
      { [ "$v" = "AARCH64_CC=" ] || grep -q "qemu-aarch64 (apt-get install qemu-user)" <<< "$line"; } &&
      grep -q "0 passed, 0 failed, [1-9][0-9]* skipped" "$tmp/n" && ! grep -q "build/aarch64/test_" "$tmp/n"; } \
      && ok || bad "make test $v: no skip message naming the missing tool: $line"
  done
fi
echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
