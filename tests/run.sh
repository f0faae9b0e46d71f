#!/usr/bin/env bash
# Runs each argument as a shell command and adds up the results.
# A command that prints "N passed, N failed[, N skipped]" counts as those
# tests (exit 77 after it: the rest was skipped, one more skip unless it
# counted its skips; any other non-zero exit after it: one more failure
# unless it counted one); any other command counts as one test, passed on
# exit 0, skipped on exit 77, failed otherwise. Ends with the total
# "N passed, N failed[, N skipped]" line.
passed=0; failed=0; skipped=0; bad=()
for cmd in "$@"; do
  echo "== $cmd"
  out=$(bash -c "$cmd" 2>&1); rc=$?
  line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
  printf '%s\n' "$out" | grep -vE '^[0-9]+ passed, [0-9]+ failed' | sed 's/^/   /' | tail -n 60
  if [ -n "$line" ]; then
    p=$(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/')
    f=$(echo "$line" | sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/')
    s=$(echo "$line" | sed -nE 's/.* ([0-9]+) skipped.*/\1/p'); s=${s:-0}
    if [ "$rc" -eq 77 ] && [ "$s" -eq 0 ]; then s=1     # skipped the rest after its summary
    elif [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ] && [ "$f" -eq 0 ]; then f=1; fi   # crashed after its summary
    echo "   -> $line"
  elif [ "$rc" -eq 0 ]; then p=1; f=0; s=0; echo "   -> ok"
  elif [ "$rc" -eq 77 ]; then p=0; f=0; s=1; echo "   -> skipped"
  else p=0; f=1; s=0; echo "   -> FAILED (exit $rc)"
  fi
  passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
  [ "$f" -ne 0 ] && bad+=("$cmd")
done
echo
for b in "${bad[@]}"; do echo "failed: $b"; done
if [ "$skipped" -ne 0 ]; then echo "$passed passed, $failed failed, $skipped skipped"
else echo "$passed passed, $failed failed"; fi
[ "$failed" -eq 0 ]
