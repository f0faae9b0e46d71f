#!/usr/bin/env bash
# `taskir import` and `taskir eval` end to end on models written by
# tests/onnx_models.py (python3-onnx, python3-numpy): values against numpy,
# the .tir written by import evaluating to the same values, input by index
# and by name, printed and --out forms, and each kind of bad call.
set -u
T=${TASKIR:-build/taskir}
PY=${PYTHON_ONNX:-/usr/bin/python3}
if [ ! -x "$T" ]; then echo "skip: $T is not built"; exit 77; fi
if ! "$PY" -c 'import onnx, numpy' 2>/dev/null; then
  echo "skip: $PY cannot import onnx and numpy (apt-get install python3-onnx python3-numpy)"; exit 77
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0; passes=0
ok() { passes=$((passes + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
# same numbers within rtol 1e-5 / atol 1e-6, line by line
close() { awk 'NR==FNR { a[FNR] = $1; n = FNR; next }
               { d = $1 - a[FNR]; if (d < 0) d = -d; m = a[FNR] < 0 ? -a[FNR] : a[FNR];
                 if (d > 1e-6 + 1e-5 * m) bad = 1; k = FNR }
               END { exit (bad || k != n) }' "$1" "$2"; }

"$PY" tests/onnx_models.py "$tmp" > "$tmp/gen.log" 2>&1 || { echo "FAIL: tests/onnx_models.py: $(cat "$tmp/gen.log")"; echo "0 passed, 1 failed"; exit 1; }
M=$tmp

# import: summary line, the .tir parses and evaluates to the model's values
if "$T" import "$M/cnn.onnx" "$tmp/cnn.tir" --dim N=1 > "$tmp/log" 2>&1 &&
   grep -q "cnn.onnx: 6 nodes -> 6 ops (6 kinds), 1 arguments, 3 weights (296 bytes)" "$tmp/log"; then ok; else bad "import cnn: $(cat "$tmp/log")"; fi
if "$T" eval "$M/cnn.onnx" --dim N=1 --input x="$M/cnn_x.txt" --out "$tmp/o1" > "$tmp/log" 2>&1 && close "$M/cnn_y.txt" "$tmp/o1/o_0.txt"; then ok
else bad "eval cnn.onnx: $(cat "$tmp/log")"; fi
if "$T" eval "$tmp/cnn.tir" --input 0="$M/cnn_x.txt" --out "$tmp/o2" > "$tmp/log" 2>&1 && cmp -s "$tmp/o1/o_0.txt" "$tmp/o2/o_0.txt"; then ok
else bad "eval cnn.tir differs from eval cnn.onnx: $(cat "$tmp/log")"; fi
if "$T" print "$tmp/cnn.tir" > /dev/null 2>&1 || "$T" opt "$tmp/cnn.tir" --passes dce > /dev/null 2>&1; then ok; else bad "the imported .tir does not load in the other commands"; fi

# two inputs by name and index, two outputs, printed form
if "$T" eval "$M/two.onnx" --input b="$M/two_b.txt" --input 0="$M/two_a.txt" --out "$tmp/o3" > "$tmp/log" 2>&1 &&
   close "$M/two_m.txt" "$tmp/o3/o_0.txt" && close "$M/two_d.txt" "$tmp/o3/o_1.txt"; then ok; else bad "eval two.onnx: $(cat "$tmp/log")"; fi
"$T" eval "$M/two.onnx" --input a="$M/two_a.txt" --input 1="$M/two_b.txt" > "$tmp/printed" 2>&1
if grep -q '^# o_0 f32 \[2,3\]$' "$tmp/printed" && grep -q '^# o_1 f32 \[2,3\]$' "$tmp/printed" &&
   sed -n '/^# o_1/,$p' "$tmp/printed" | tail -n +2 | cmp -s - "$tmp/o3/o_1.txt"; then ok; else bad "printed form: $(cat "$tmp/printed")"; fi

# floats round-trip: inputs that f32 cannot hold in a few digits (0.1, 1/3,
# ...); every printed value reads back as exactly numpy's f32 result, and
# has at most 9 significant digits (%.9g)
printf '0.1\n0.333333343\n-2.71828175\n1e-07\n16777217\n3.40282347e+18\n' > "$tmp/ra.txt"
printf '0.2\n0.666666687\n1.41421354\n3e-08\n1\n-3.4e+18\n' > "$tmp/rb.txt"
if "$T" eval "$M/two.onnx" --input a="$tmp/ra.txt" --input b="$tmp/rb.txt" --out "$tmp/o4" > "$tmp/log" 2>&1 &&
   "$PY" - "$tmp" <<'PYEOF'
import sys, numpy as np
d = sys.argv[1]
rd = lambda f: [l.strip() for l in open(f"{d}/{f}") if l.strip()]
a = np.array([np.float32(v) for v in rd("ra.txt")], dtype=np.float32)
b = np.array([np.float32(v) for v in rd("rb.txt")], dtype=np.float32)
want = [(a + b) * a, a - b]
for k in range(2):
    got = rd(f"o4/o_{k}.txt")
    assert len(got) == 6, got
    for s, w in zip(got, want[k]):
        digits = s.lower().split("e")[0].replace("-", "").replace(".", "").lstrip("0")
        assert len(digits) <= 9, s
        assert np.float32(s) == w, (k, s, w)
PYEOF
then ok; else bad "eval floats do not round-trip (%.9g): $(cat "$tmp/log"; cat "$tmp"/o4/o_*.txt 2>/dev/null | tr '\n' ' ')"; fi

# failures: each names the problem, exit 1 (bad call: 2)
expect_fail() {   # code pattern command...
  local code=$1 pat=$2; shift 2
  "$@" > "$tmp/log" 2>&1; local rc=$?
  if [ "$rc" -eq "$code" ] && grep -q -- "$pat" "$tmp/log"; then ok; else bad "$* -> exit $rc: $(cat "$tmp/log") (wanted $code and '$pat')"; fi
}
expect_fail 1 "unsupported: node 'Resize_12' op Resize mode=cubic (opset 13)" "$T" import "$M/cubic.onnx" "$tmp/x.tir"
expect_fail 1 "dim 0 is symbolic ('N'): bind it (e.g. --dim N=1)" "$T" import "$M/cnn.onnx" "$tmp/x.tir"
expect_fail 1 "argument 0 'x' (f32 \[1,1,6,6\], 36 values) needs --input 0=FILE" "$T" eval "$M/cnn.onnx" --dim N=1
expect_fail 1 "holds 6 values, argument 0 (f32 \[1,1,6,6\]) needs 36" "$T" eval "$M/cnn.onnx" --dim N=1 --input x="$M/two_a.txt"
expect_fail 2 "no such argument (the program has 2: a, b)" "$T" eval "$M/two.onnx" --input c="$M/two_a.txt"
expect_fail 1 "Task IR here is integer: quantise the model first" "$T" import "$M/cnn.onnx" "$tmp/x.pb" --dim N=1
expect_fail 2 "nn-only writes the nn program" "$T" import "$M/cnn.onnx" "$tmp/x.pb" --nn-only --dim N=1
expect_fail 2 "--dim wants NAME=V" "$T" import "$M/cnn.onnx" "$tmp/x.tir" --dim N
printf 'garbage' > "$tmp/bad.onnx"
expect_fail 1 "at byte" "$T" import "$tmp/bad.onnx" "$tmp/x.tir"
expect_fail 1 "cannot open" "$T" eval "$tmp/missing.onnx"
if "$T" import --help | grep -q 'usage: taskir import' && "$T" eval --help | grep -q 'usage: taskir eval'; then ok; else bad "--help"; fi

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
