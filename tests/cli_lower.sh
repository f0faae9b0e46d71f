#!/usr/bin/env bash
# `taskir lower`, `taskir import ... OUT.pb|.txt` and `taskir run` on nn
# programs and ONNX models: the lowered graph passes `taskir check`, and
# running it (from the .pb, or straight from the .tir / .onnx) gives exactly
# what `taskir eval` (the interpreter) gives; refusals say which op and why.
set -u
T=${TASKIR:-build/taskir}
PY=${PYTHON_ONNX:-/usr/bin/python3}
D=tests/lower
if [ ! -x "$T" ]; then echo "skip: $T is not built"; exit 77; fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0; passes=0
ok() { passes=$((passes + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
# the values of `run` (under "# OUTPUT socket k") == those of `eval` (under
# "# o_k"), result by result
by_result() { awk '/^# OUTPUT socket / { k = $4; next } /^# o_/ { k = substr($2, 3); next } { print k, $1 }' "$1" | sort -s -n -k1,1; }
same_values() { by_result "$1" > "$tmp/a"; by_result "$2" > "$tmp/b"; [ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b"; }

awk 'BEGIN { for (i = 0; i < 36; i++) print (i * 37) % 256 - 128 }' > "$tmp/net_x.txt"
awk 'BEGIN { for (i = 0; i < 32; i++) print (i * 53) % 251 - 125 }' > "$tmp/res_x.txt"
awk 'BEGIN { for (i = 0; i < 72; i++) print (i * 37) % 256 - 128 }' > "$tmp/batch_x.txt"

# lower: summary line, the graph passes the checker, .pb and .txt agree
if "$T" lower "$D/net.tir" "$tmp/net.pb" > "$tmp/log" 2>&1 &&
   grep -q "net.tir: 4 ops -> 14 blocks, 13 edges, 3 groups, 54 weights bytes -> $tmp/net.pb" "$tmp/log"; then ok
else bad "lower net: $(cat "$tmp/log")"; fi
if "$T" check "$tmp/net.pb" > "$tmp/log" 2>&1 && grep -q "0 errors, 0 warnings" "$tmp/log"; then ok; else bad "check net.pb: $(cat "$tmp/log")"; fi
if "$T" lower "$D/net.tir" "$tmp/net.txt" > /dev/null 2>&1 && "$T" convert "$tmp/net.txt" "$tmp/net2.pb" > /dev/null 2>&1 &&
   cmp -s "$tmp/net.pb" "$tmp/net2.pb"; then ok; else bad "lower to .txt differs from .pb"; fi

# the property through the tool: eval (interpreter) == run (executor)
# (batch: batch 2 conv, dilated max pool, signed div by 2, gemm with 2 rows)
for prog in net res batch; do
  f=$D/net.tir; x=$tmp/net_x.txt
  [ $prog = res ] && { f=$D/residual.tir; x=$tmp/res_x.txt; }
  [ $prog = batch ] && { f=$D/batch.tir; x=$tmp/batch_x.txt; }
  "$T" eval "$f" --input 0="$x" > "$tmp/eval.txt" 2>&1 || bad "eval $prog: $(cat "$tmp/eval.txt")"
  "$T" lower "$f" "$tmp/$prog.pb" > /dev/null 2>&1 || bad "lower $prog"
  for src in "$tmp/$prog.pb" "$f"; do
    if "$T" run "$src" --input 0="$x" > "$tmp/run.txt" 2>&1 && same_values "$tmp/eval.txt" "$tmp/run.txt"; then ok
    else bad "run $src differs from eval: $(head -5 "$tmp/run.txt")"; fi
  done
done

# an i8 input value out of range: eval refuses it as run does (one reader,
# one message form: file:line, value, the dtype's range), nothing saturates
for v in 128 -129 1.5; do
  awk -v v=$v 'BEGIN { print 3; print v; for (i = 2; i < 36; i++) print 1 }' > "$tmp/oor.txt"
  want="oor.txt:2: $v is out of range for INT_8 (-128..127)"
  [ $v = 1.5 ] && want="oor.txt:2: '1.5' is not an integer"
  for cmd in eval run; do
    "$T" $cmd "$D/net.tir" --input 0="$tmp/oor.txt" > "$tmp/log" 2>&1; rc=$?
    if [ $rc -eq 1 ] && grep -qF "taskir $cmd: $tmp/$want" "$tmp/log"; then ok; else bad "$cmd with $v (exit $rc): $(cat "$tmp/log")"; fi
  done
done

# refusals: the op and the reason, exit 1, no file written
if ! "$T" lower "$D/div.tir" "$tmp/div.pb" > "$tmp/log" 2>&1 &&
   grep -q "op #0 nn.div: the divisor is an activation" "$tmp/log" && [ ! -e "$tmp/div.pb" ]; then ok; else bad "div refusal: $(cat "$tmp/log")"; fi
if ! "$T" lower "$D/float.tir" "$tmp/f.pb" > "$tmp/log" 2>&1 &&
   grep -q "Task IR here is integer: quantise the model first (quantize-recognize)" "$tmp/log"; then ok; else bad "float refusal: $(cat "$tmp/log")"; fi
if ! "$T" run "$D/float.tir" > "$tmp/log" 2>&1 && grep -q "quantise the model first" "$tmp/log"; then ok; else bad "run float: $(cat "$tmp/log")"; fi
"$T" lower "$D/net.tir" > /dev/null 2>&1; [ $? -eq 2 ] && ok || bad "lower without OUT is not a usage error"
"$T" lower "$D/net.tir" "$tmp/x.pb" --passes no-such-pass > "$tmp/log" 2>&1; [ $? -eq 1 ] && grep -q "no-such-pass" "$tmp/log" && ok || bad "unknown pass: $(cat "$tmp/log")"
if "$T" lower "$D/net.tir" "$tmp/d.pb" --passes dce,cse > /dev/null 2>&1; then ok; else bad "lower --passes dce,cse"; fi

# an integer ONNX model (python3-onnx): import to Task IR, check, run == eval
if "$PY" -c 'import onnx' 2>/dev/null; then
  "$PY" - "$tmp/int.onnx" <<'PYEOF'
import sys
from onnx import helper, TensorProto, save
x = helper.make_tensor_value_info('x', TensorProto.INT8, [1, 2, 4, 4])
y = helper.make_tensor_value_info('y', TensorProto.INT8, [1, 2, 2, 2])
z = helper.make_tensor_value_info('z', TensorProto.INT8, [1, 4, 4, 4])
nodes = [helper.make_node('Relu', ['x'], ['r']),
         helper.make_node('MaxPool', ['r'], ['m'], kernel_shape=[2, 2], strides=[2, 2]),
         helper.make_node('Add', ['m', 'm'], ['y']),
         helper.make_node('Concat', ['x', 'r'], ['z'], axis=1)]
save(helper.make_model(helper.make_graph(nodes, 'int', [x], [y, z]), opset_imports=[helper.make_opsetid('', 13)]), sys.argv[1])
PYEOF
  awk 'BEGIN { for (i = 0; i < 32; i++) print (i * 41) % 255 - 127 }' > "$tmp/ox.txt"
  if "$T" import "$tmp/int.onnx" "$tmp/int.pb" > "$tmp/log" 2>&1 &&
     grep -q "int.onnx: 4 nodes -> 4 ops -> .* blocks, .* edges, 6 groups, 0 weights bytes -> $tmp/int.pb" "$tmp/log"; then ok
  else bad "import int.onnx to .pb: $(cat "$tmp/log")"; fi
  "$T" check "$tmp/int.pb" > /dev/null 2>&1 && ok || bad "check int.pb"
  "$T" eval "$tmp/int.onnx" --input 0="$tmp/ox.txt" > "$tmp/eval.txt" 2>&1 || bad "eval int.onnx: $(cat "$tmp/eval.txt")"
  for src in "$tmp/int.pb" "$tmp/int.onnx"; do
    if "$T" run "$src" --input 0="$tmp/ox.txt" > "$tmp/run.txt" 2>&1 && same_values "$tmp/eval.txt" "$tmp/run.txt"; then ok
    else bad "run $src differs from eval: $(head -5 "$tmp/run.txt")"; fi
  done
  if "$T" import "$tmp/int.onnx" "$tmp/int.tir" --nn-only > /dev/null 2>&1 && "$T" lower "$tmp/int.tir" "$tmp/int2.pb" > /dev/null 2>&1 &&
     cmp -s "$tmp/int.pb" "$tmp/int2.pb"; then ok; else bad "import .tir + lower differs from import .pb"; fi
  # an integer MatMul model exported as float: x [3,8] x W [1,8,5] (+ bias,
  # requant, relu) -> x W2 [1,5,4] -> i32; the import broadcasts x to [1,3,8]
  "$PY" - "$tmp/mm.onnx" <<'PYEOF'
import sys
import numpy as np
from onnx import helper, TensorProto, numpy_helper, save
r = np.random.default_rng(5)
f = lambda n, a: numpy_helper.from_array(a.astype(np.float32), n)
inits = [f('w1', r.integers(-3, 4, (1, 8, 5))), f('b1', r.integers(-40, 41, (5,))), f('w2', r.integers(-3, 4, (1, 5, 4))),
         f('k', np.array(8.0))]
big = 2.0 ** 31
nodes = [helper.make_node('MatMul', ['x', 'w1'], ['m1']), helper.make_node('Add', ['m1', 'b1'], ['a1']),
         helper.make_node('Clip', ['a1'], ['c1'], min=-big, max=big), helper.make_node('Div', ['c1', 'k'], ['d1']),
         helper.make_node('Floor', ['d1'], ['f1']), helper.make_node('Clip', ['f1'], ['c2'], min=-128.0, max=127.0),
         helper.make_node('Relu', ['c2'], ['h']), helper.make_node('MatMul', ['h', 'w2'], ['m2']),
         helper.make_node('Clip', ['m2'], ['y'], min=-big, max=big)]
g = helper.make_graph(nodes, 'mm', [helper.make_tensor_value_info('x', TensorProto.FLOAT, [3, 8])],
                      [helper.make_tensor_value_info('y', TensorProto.FLOAT, [1, 3, 4])], inits)
save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 9)]), sys.argv[1])
PYEOF
  awk 'BEGIN { for (i = 0; i < 24; i++) print (i * 59) % 255 - 127 }' > "$tmp/mx.txt"
  if "$T" import "$tmp/mm.onnx" "$tmp/mm.pb" > "$tmp/log" 2>&1 && grep -q "2 layers quantised" "$tmp/log" &&
     "$T" check "$tmp/mm.pb" > /dev/null 2>&1; then ok; else bad "import mm.onnx: $(cat "$tmp/log")"; fi
  "$T" eval "$tmp/mm.onnx" --input x="$tmp/mx.txt" > "$tmp/eval.txt" 2>&1 || bad "eval mm.onnx: $(cat "$tmp/eval.txt")"
  for src in "$tmp/mm.pb" "$tmp/mm.onnx"; do
    if "$T" run "$src" --input 0="$tmp/mx.txt" 2> "$tmp/log" | grep -v '^#' > "$tmp/run.txt" && [ -s "$tmp/run.txt" ] &&
       grep -v '^#' "$tmp/eval.txt" | cmp -s - "$tmp/run.txt"; then ok
    else bad "run $src differs from eval: $(cat "$tmp/log"; head -5 "$tmp/run.txt")"; fi
  done
else
  echo "  skip: the ONNX part ($PY cannot import onnx)"
fi

echo "$passes passed, $fails failed"
[ $fails -eq 0 ]
