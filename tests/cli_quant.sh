#!/usr/bin/env bash
# quantize-recognize through `taskir import` on the integer models written by
# tests/gen_onnx_models.py (python3-onnx): the summary says the layers were
# quantised, `taskir eval` of the .onnx (float) and of the .tir (quantised)
# give the same outputs on the same integer inputs, the .tir is integer end
# to end, and each defective model stays float with the reason printed; and
# the whole pipeline: import to Task IR (.pb/.txt) and run, or run the .onnx,
# prints what `taskir eval` prints of the float model.
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
# the same numbers line by line (the float model prints 3 where the integer one prints 3)
same() { awk 'NR==FNR { a[FNR] = $1; n = FNR; next } { if ($1 + 0 != a[FNR] + 0) bad = 1; k = FNR }
              END { exit (bad || k != n || n == 0) }' "$1" "$2"; }

"$PY" tests/gen_onnx_models.py "$tmp" > "$tmp/gen.log" 2>&1 || { echo "FAIL: tests/gen_onnx_models.py: $(cat "$tmp/gen.log")"; echo "0 passed, 1 failed"; exit 1; }
M=$tmp

# model layers input
for spec in "lenet 5 lenet_x.txt" "residual 3 residual_x.txt"; do
  set -- $spec
  m=$1 n=$2 x=$M/$3
  if "$T" import "$M/$m.onnx" "$tmp/$m.tir" > "$tmp/log" 2>&1 && grep -q "; $n layers quantised" "$tmp/log"; then ok
  else bad "import $m: $(cat "$tmp/log")"; fi
  # integer end to end: no f32 value, no float op of the requantisation left
  if ! grep -q 'xf32' "$tmp/$m.tir" && ! grep -Eq 'nn\.(clip|div|floor|relu)\(' "$tmp/$m.tir" &&
     grep -q 'tensor<1x[0-9x]*xi8>' "$tmp/$m.tir"; then ok; else bad "$m.tir is not integer end to end"; fi
  if "$T" eval "$M/$m.onnx" --input 0="$x" --out "$tmp/$m.f" > "$tmp/log" 2>&1 &&
     "$T" eval "$tmp/$m.tir" --input 0="$x" --out "$tmp/$m.q" >> "$tmp/log" 2>&1 &&
     same "$tmp/$m.f/o_0.txt" "$tmp/$m.q/o_0.txt"; then ok
  else bad "eval $m.onnx and $m.tir differ: $(cat "$tmp/log")"; fi
  # the pass by name on the float program gives the same program
  if "$T" import "$M/$m.onnx" "$tmp/${m}_f.tir" --no-quantize > "$tmp/log" 2>&1 && ! grep -q quantised "$tmp/log" &&
     grep -q 'xf32' "$tmp/${m}_f.tir" &&
     "$T" opt "$tmp/${m}_f.tir" --passes quantize-recognize > "$tmp/${m}_o.tir" 2> "$tmp/log" &&
     grep -q "quantize-recognize: $n layers quantised" "$tmp/log" && cmp -s "$tmp/${m}_o.tir" "$tmp/$m.tir"; then ok
  else bad "--no-quantize then opt --passes quantize-recognize ($m): $(cat "$tmp/log")"; fi
done

# defects: the model stays float, the reason names the tensor; eval agrees too
for spec in "frac|weight 'conv2.weight' element 7 = 0.5 is not an integer" \
            "range|weight 'fc1.weight' element 3 = 200 is outside -128..127" \
            "div3|layer 'conv1.weight': div by 'k_5' = 3, not a power of two" \
            "clip|layer 'conv1.weight': floor goes to clip(-128, 100), not to clip(-128, 127)"; do
  d=${spec%%|*} why=${spec#*|} m=lenet_${spec%%|*}
  if "$T" import "$M/$m.onnx" "$tmp/$m.tir" > "$tmp/log" 2>&1 && grep -qF "; float (not quantised: $why" "$tmp/log" &&
     grep -q 'xf32' "$tmp/$m.tir"; then ok
  else bad "import $m ($d) should stay float saying '$why': $(cat "$tmp/log")"; fi
  if "$T" opt "$tmp/$m.tir" --passes quantize-recognize > /dev/null 2> "$tmp/log" && grep -qF "stays float: $why" "$tmp/log"; then ok
  else bad "opt $m: $(cat "$tmp/log")"; fi
  if "$T" eval "$M/$m.onnx" --input 0="$M/lenet_x.txt" --out "$tmp/$m.f" > "$tmp/log" 2>&1 &&
     "$T" eval "$tmp/$m.tir" --input 0="$M/lenet_x.txt" --out "$tmp/$m.q" >> "$tmp/log" 2>&1 &&
     same "$tmp/$m.f/o_0.txt" "$tmp/$m.q/o_0.txt"; then ok
  else bad "eval $m.onnx and $m.tir differ: $(cat "$tmp/log")"; fi
done

# the whole pipeline: ONNX -> quantize-recognize -> lowering -> Task IR, run
# bit for bit as the interpreter evaluates the float model
for spec in "lenet lenet_x.txt" "residual residual_x.txt"; do
  set -- $spec
  m=$1 x=$M/$2
  "$T" eval "$M/$m.onnx" --input 0="$x" | grep -v '^#' > "$tmp/$m.ev"
  for out in pb txt; do
    if "$T" import "$M/$m.onnx" "$tmp/$m.$out" > "$tmp/log" 2>&1 && grep -Eq "blocks, [0-9]+ edges.*layers quantised" "$tmp/log" &&
       "$T" check "$tmp/$m.$out" > /dev/null 2>&1 &&
       "$T" run "$tmp/$m.$out" --input 0="$x" 2>> "$tmp/log" | grep -v '^#' > "$tmp/$m.run" && [ -s "$tmp/$m.run" ] &&
       cmp -s "$tmp/$m.run" "$tmp/$m.ev"; then ok
    else bad "import $m.onnx -> .$out, run: not what eval prints: $(cat "$tmp/log")"; fi
  done
  for th in 1 2; do
    if "$T" run "$M/$m.onnx" --threads $th --input 0="$x" 2> "$tmp/log" | grep -v '^#' > "$tmp/$m.run" &&
       cmp -s "$tmp/$m.run" "$tmp/$m.ev"; then ok
    else bad "run $m.onnx --threads $th: not what eval prints: $(cat "$tmp/log")"; fi
  done
done
# a symbolic batch dim: run binds it with --dim, and says so when it is missing
"$PY" -c 'import onnx, sys
m = onnx.load(sys.argv[1]); d = m.graph.input[0].type.tensor_type.shape.dim[0]; d.ClearField("dim_value"); d.dim_param = "N"
onnx.save(m, sys.argv[2])' "$M/lenet.onnx" "$tmp/lenet_n.onnx"
if "$T" run "$tmp/lenet_n.onnx" --dim N=1 --input 0="$M/lenet_x.txt" 2> "$tmp/log" | grep -v '^#' > "$tmp/n.run" &&
   cmp -s "$tmp/n.run" "$tmp/lenet.ev"; then ok; else bad "run lenet_n.onnx --dim N=1: $(cat "$tmp/log")"; fi
"$T" run "$tmp/lenet_n.onnx" --input 0="$M/lenet_x.txt" > "$tmp/log" 2>&1
if [ $? -eq 1 ] && grep -qF "bind it (e.g. --dim N=1)" "$tmp/log"; then ok; else bad "run lenet_n.onnx without --dim: $(cat "$tmp/log")"; fi
"$T" run "$tmp/lenet.pb" --dim N=1 --input 0="$M/lenet_x.txt" > "$tmp/log" 2>&1
if [ $? -eq 1 ] && grep -qF -- "--dim binds the symbolic dims of an ONNX model" "$tmp/log"; then ok
else bad "run lenet.pb --dim N=1: $(cat "$tmp/log")"; fi
# a model that stays float cannot be lowered, and the error says why it stayed float
"$T" import "$M/lenet_div3.onnx" "$tmp/d3.pb" > "$tmp/log" 2>&1
if [ $? -eq 1 ] && grep -qF "quantize-recognize left the model float: layer 'conv1.weight': div by 'k_5' = 3" "$tmp/log" &&
   [ ! -e "$tmp/d3.pb" ]; then ok; else bad "import lenet_div3.onnx -> .pb: $(cat "$tmp/log")"; fi
"$T" run "$M/lenet_frac.onnx" --input 0="$M/lenet_x.txt" > "$tmp/log" 2>&1
if [ $? -eq 1 ] && grep -qF "left the model float: weight 'conv2.weight' element 7 = 0.5 is not an integer" "$tmp/log"; then ok
else bad "run lenet_frac.onnx: $(cat "$tmp/log")"; fi

# --passes replaces the default
if "$T" import "$M/lenet.onnx" "$tmp/l2.tir" --passes dce > "$tmp/log" 2>&1 && ! grep -q quantised "$tmp/log" &&
   grep -q 'xf32' "$tmp/l2.tir"; then ok; else bad "import --passes dce: $(cat "$tmp/log")"; fi
"$T" import "$M/lenet.onnx" "$tmp/l3.tir" --passes nope > "$tmp/log" 2>&1
if [ $? -eq 1 ] && grep -q "unknown pass 'nope'" "$tmp/log"; then ok; else bad "import --passes nope: $(cat "$tmp/log")"; fi

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
