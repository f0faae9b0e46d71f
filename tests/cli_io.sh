#!/usr/bin/env bash
# The tool's files, streams and messages: checked writes, formats by one rule
# (extensions, --format, `-`), messages and exit codes, the --input reader
# (ranges, NaN/Inf, binary data, surplus values, .npy), per-step inputs and
# traces, --json, stat's accounting and --profile on stderr.
set -u
T=${TASKIR:-build/taskir}
if [ ! -x "$T" ]; then echo "skip: $T is not built"; exit 77; fi
FIX=${TASKIR_FIXTURES:-../shared/fixtures}
PY=/usr/bin/python3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0; passes=0
ok() { passes=$((passes + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
# expect RC PATTERN ARGS...: exit code RC and PATTERN (grep -E) on stderr
expect() {
  local want=$1 pat=$2; shift 2
  "$T" "$@" > "$tmp/out" 2> "$tmp/err"; local rc=$?
  if [ "$rc" -ne "$want" ]; then bad "'taskir $*': exit $rc, wanted $want: $(head -c 300 "$tmp/err")"; return; fi
  if [ -n "$pat" ] && ! grep -qE -- "$pat" "$tmp/err"; then bad "'taskir $*': no '$pat' in: $(head -c 300 "$tmp/err")"; return; fi
  ok
}

"$T" demo --save "$tmp/d.task.pb" > "$tmp/demo.log" 2>&1 || bad "demo failed"
D=$tmp/d.task.pb; IN=$tmp/d.task.pb.input0.txt

# --- 2: every write checked --------------------------------------------------
if [ -w /dev/full ]; then
  for args in "check $D" "stat $D" "dot $D" "print $D" "run $D --input 0=$IN" "convert $D - --to pb" "demo --save $tmp/d2.task.pb" "--help"; do
    # shellcheck disable=SC2086
    "$T" $args > /dev/full 2> "$tmp/err"; rc=$?
    [ $rc -eq 1 ] && grep -q "No space left on device" "$tmp/err" && ok || bad "'taskir $args > /dev/full': exit $rc: $(cat "$tmp/err")"
  done
else
  echo "note: /dev/full missing: write checks skipped"
fi

# --- 6: empty files ---------------------------------------------------------
: > "$tmp/empty.pb"; : > "$tmp/empty.txt"
for e in "$tmp/empty.pb" "$tmp/empty.txt"; do
  "$T" check "$e" > "$tmp/out" 2>&1; [ $? -eq 0 ] && grep -q "^warning: .*empty" "$tmp/out" && grep -q "1 warnings" "$tmp/out" && ok || bad "check of an empty file warns: $(cat "$tmp/out")"
  expect 1 "no OUTPUT block" run "$e"
done
sed '/type: OUTPUT/,$d' "$tmp/d.task.pb.input0.txt" > /dev/null   # (keeps set -u happy)
"$T" convert "$D" "$tmp/d.txt"
awk 'BEGIN{RS="blocks {"; ORS=""} NR==1 {print; next} /type: OUTPUT/ {next} {print "blocks {" $0}' "$tmp/d.txt" > "$tmp/noout.txt"
"$T" check "$tmp/noout.txt" > "$tmp/out" 2>&1; grep -q "no OUTPUT block" "$tmp/out" && ok || bad "check warns about a graph without OUTPUT: $(tail -3 "$tmp/out")"
expect 1 "no OUTPUT block" run "$tmp/noout.txt"

# --- 8: formats, one rule for every command ---------------------------------
cp "$tmp/d.txt" "$tmp/d.pbtxt"; cp "$tmp/d.txt" "$tmp/d.textproto"; cp "$D" "$tmp/d.pbx"
for f in "$tmp/d.pbtxt" "$tmp/d.textproto"; do
  "$T" convert "$f" "$tmp/back.pb" && cmp -s "$D" "$tmp/back.pb" && ok || bad "convert $f"
  "$T" check "$f" > /dev/null && ok || bad "check $f"
done
for c in check stat dot print run; do expect 1 "unknown extension" "$c" "$tmp/d.pbx"; done
expect 1 "unknown extension" convert "$D" "$tmp/x.pbx"
"$T" check "$tmp/d.pbx" --format pb > /dev/null && ok || bad "--format pb overrides the extension"
"$T" check - --format pb < "$D" > "$tmp/out" && grep -q "0 errors" "$tmp/out" && ok || bad "check - --format pb"
"$T" convert - - --from pb --to txt < "$D" > "$tmp/stdout.txt" && cmp -s "$tmp/stdout.txt" "$tmp/d.txt" && ok || bad "convert - - (stdin to stdout)"
"$T" convert "$tmp/d.txt" - --to pb | cmp -s - "$D" && ok || bad "convert to - --to pb"
expect 1 "needs --format" check -
# the task dialect's attributes carry every field the IR keeps (one schema
# table, taskir.h): every fixture goes pb -> IR text -> pb byte for byte
for f in "$FIX"/*.task.pb; do
  "$T" convert "$f" "$tmp/rt.tir" && "$T" convert "$tmp/rt.tir" "$tmp/rt.pb" && cmp -s "$f" "$tmp/rt.pb" && ok || bad "pb -> tir -> pb of $f"
done
expect 2 "--format wants pb, txt or tir" check "$D" --format xml
"$T" demo --save "$tmp/d.tir" > /dev/null 2>&1 && head -n 1 "$tmp/d.tir" | grep -q "^program" && ok || bad "demo --save x.tir writes the IR text form"
"$T" demo --save "$tmp/dd.txt" > /dev/null 2>&1 && grep -q "^blocks {" "$tmp/dd.txt" && ok || bad "demo --save x.txt writes protobuf text"

# --- issue 12 item 12: run accepts .tir --------------------------------------
"$T" run "$D" --input "0=$IN" --steps 3 > "$tmp/a" && "$T" run "$tmp/d.tir" --input "0=$tmp/d.tir.input0.txt" --steps 3 > "$tmp/b" \
  && cmp -s "$tmp/a" "$tmp/b" && ok || bad "run of .tir gives the .pb's outputs"

# --- 9: messages and exit codes ---------------------------------------------
"$T" check "$tmp/nonexistent.pb" 2> "$tmp/err"; [ "$(grep -o "nonexistent.pb" "$tmp/err" | wc -l)" -eq 1 ] && ok || bad "file name repeated: $(cat "$tmp/err")"
printf 'blocks { id: 0 type: BOGUS }\n' > "$tmp/bad.txt"
"$T" check "$tmp/bad.txt" 2> "$tmp/err"; [ "$(grep -o "bad.txt" "$tmp/err" | wc -l)" -eq 1 ] && ok || bad "file name repeated: $(cat "$tmp/err")"
NN=tests/layout/seed004_conv_reshape_add.nn.tir
for c in check stat convert; do   # (dot draws either kind)
  if [ "$c" = convert ]; then expect 1 "expected a Task IR graph.*found an nn program" convert "$NN" "$tmp/x.pb"
  else expect 1 "expected a Task IR graph.*found an nn program" "$c" "$NN"; fi
done
# run lowers an nn program first (tests/cli_lower.sh); this one is float
expect 1 "Task IR here is integer: quantise the model first" run "$NN"
expect 1 "expected an nn program.*found a Task IR graph" layout "$D"
expect 1 "expected an nn program.*found a Task IR graph \(task" layout "$tmp/d.tir"
expect 1 "expected an nn program" opt "$tmp/d.tir" --passes cse
expect 2 "SOCKET=FILE" run "$D" --input "x=$IN"
expect 2 "--input needs a value" run "$D" --input
expect 2 "1\.\.100000000" run "$D" --steps 0
expect 2 "1\.\.100000000" run "$D" --steps 100000001
expect 2 "--passes needs a value" opt "$NN" --passes
expect 2 "unknown pass" opt "$NN" --passes=bogus
"$T" opt "$NN" --passes=cse > "$tmp/o1" && "$T" opt "$NN" --passes cse > "$tmp/o2" && cmp -s "$tmp/o1" "$tmp/o2" && ok || bad "--passes=cse"
for c in check stat dot print convert layout opt run demo; do expect 2 "unknown (option|argument)" "$c" --bogus-option; done
expect 2 "no FILE" check
expect 2 "one FILE only" stat "$D" "$D"

# --- issue 12 item 6: the --input reader ------------------------------------
mk() {   # mk PRECISION: INPUT(4) -> SI -> OUTPUT
  cat > "$tmp/io_$1.txt" <<EOF
blocks { id: 0 type: INPUT precision: $1 shape { nf: 4 } output_clusters { interfaces { edge_id: 0 } } socket_id: 0 }
blocks { id: 1 type: SI precision: $1 shape { nf: 4 } input_clusters { interfaces { edge_id: 0 } } output_clusters { interfaces { edge_id: 1 } } }
blocks { id: 2 type: OUTPUT precision: $1 shape { nf: 4 } input_clusters { interfaces { edge_id: 1 } } socket_id: 1 }
edges { id: 0 src_block_id: 0 dst_block_id: 1 }
edges { id: 1 src_block_id: 1 dst_block_id: 2 }
EOF
}
for p in UINT_8 INT_16 UINT_16 INT_32 FLOAT_32 TERNARY; do mk $p; done
v() { printf '%s\n' "$@" > "$tmp/v.txt"; }
v 1 2 3 1000;   expect 1 "v.txt:4: 1000 is out of range for UINT_8" run "$tmp/io_UINT_8.txt" --input "0=$tmp/v.txt"
v 1 2 3 -1000;  expect 1 "v.txt:4: -1000 is out of range for UINT_8" run "$tmp/io_UINT_8.txt" --input "0=$tmp/v.txt"
v 0 1 254 255;  expect 0 "" run "$tmp/io_UINT_8.txt" --input "0=$tmp/v.txt"
grep -v '^#' "$tmp/out" | tr '\n' ' ' | grep -q "^0 1 254 255 $" && ok || bad "UINT_8 values pass through: $(cat "$tmp/out")"
v 1 40000 3 4;  expect 1 "v.txt:2: 40000 is out of range for INT_16" run "$tmp/io_INT_16.txt" --input "0=$tmp/v.txt"
v 1 2 -1 4;     expect 1 "v.txt:3: -1 is out of range for UINT_16" run "$tmp/io_UINT_16.txt" --input "0=$tmp/v.txt"
v 1 2 3 2147483648; expect 1 "v.txt:4: .* out of range for INT_32" run "$tmp/io_INT_32.txt" --input "0=$tmp/v.txt"
v 1 0 -1 2;     expect 1 "v.txt:4: 2 is out of range for TERNARY" run "$tmp/io_TERNARY.txt" --input "0=$tmp/v.txt"
v 1 2 3 3.5e38; expect 1 "v.txt:4: .* out of range for FLOAT_32" run "$tmp/io_FLOAT_32.txt" --input "0=$tmp/v.txt"
v 1 2 3 1e39;   expect 1 "v.txt:4: .* out of range for FLOAT_32" run "$tmp/io_FLOAT_32.txt" --input "0=$tmp/v.txt"
v 1 2 3 1e400;  expect 1 "v.txt:4: '1e400' is out of range for FLOAT_32" run "$tmp/io_FLOAT_32.txt" --input "0=$tmp/v.txt"
v 1 2 3 99999999999999999999999; expect 1 "v.txt:4: '9+' is out of range for INT_16" run "$tmp/io_INT_16.txt" --input "0=$tmp/v.txt"
v 1 nan 3 4;    expect 1 "v.txt:2: NaN is not a finite number" run "$tmp/io_FLOAT_32.txt" --input "0=$tmp/v.txt"
v 1 2 -inf 4;   expect 1 "v.txt:3: Inf is not a finite number" run "$tmp/io_FLOAT_32.txt" --input "0=$tmp/v.txt"
v 1 2.5 3 4;    expect 1 "v.txt:2: '2.5' is not an integer" run "$tmp/io_INT_16.txt" --input "0=$tmp/v.txt"
v 1 '2 3' 4;    expect 1 "v.txt:2: a second value" run "$tmp/io_INT_16.txt" --input "0=$tmp/v.txt"
# a value of any length: 301 zeros then 7 is one value, 7
{ printf '1\n2\n'; printf '0%.0s' $(seq 301); printf '7\n9\n'; } > "$tmp/long.txt"
expect 0 "" run "$tmp/io_INT_16.txt" --input "0=$tmp/long.txt"
grep -v '^#' "$tmp/out" | tr '\n' ' ' | grep -q "^1 2 7 9 $" && ok || bad "a 302-character value: $(cat "$tmp/out")"
printf '1\n2\0junk\n3\n4\n' > "$tmp/nul.txt"
expect 1 "nul.txt:2: binary data \(byte 0x00 at offset 3\)" run "$tmp/io_INT_16.txt" --input "0=$tmp/nul.txt"
if [ -r /dev/zero ]; then
  timeout 10 "$T" run "$tmp/io_INT_16.txt" --input 0=/dev/zero > /dev/null 2> "$tmp/err"; rc=$?
  [ $rc -eq 1 ] && grep -q "binary data" "$tmp/err" && ok || bad "--input 0=/dev/zero (rc $rc): $(cat "$tmp/err")"
fi
seq 1 3000000 > "$tmp/many.txt"
expect 1 "many.txt:5: more values than the INPUT takes \(4 per step\)" run "$tmp/io_INT_16.txt" --input "0=$tmp/many.txt"
v 1 2 3;        expect 1 "holds 3 values, INPUT socket 0 takes 4" run "$tmp/io_INT_16.txt" --input "0=$tmp/v.txt"
printf '# a comment\n\n1\n  2  \n3 # three\n4\n' > "$tmp/c.txt"
expect 0 "" run "$tmp/io_INT_16.txt" --input "0=$tmp/c.txt"

# --- 12: .npy in and out ------------------------------------------------------
if $PY -c 'import numpy' 2> /dev/null; then
  $PY -c "import numpy as np; np.save('$tmp/in.npy', np.loadtxt('$IN', dtype=np.int8).reshape(8, 8, 4))"
  "$T" run "$D" --input "0=$tmp/in.npy" --out "$tmp/npo" --out-format npy > /dev/null && ok || bad "run with .npy in and out"
  "$T" run "$D" --input "0=$IN" --out "$tmp/txo" > /dev/null
  for o in 14 20; do
    $PY -c "import numpy as np, sys; a = np.load('$tmp/npo/o_$o.npy'); b = np.loadtxt('$tmp/txo/o_$o.txt', dtype=np.int64, ndmin=1)
sys.exit(0 if a.shape == (10,) and (a.reshape(-1) == b).all() else 1)" && ok || bad ".npy output o_$o equals the text output"
  done
  $PY -c "import numpy as np; np.save('$tmp/f.npy', np.array([1.5, -2, 3, 4], dtype=np.float64))"
  expect 0 "" run "$tmp/io_FLOAT_32.txt" --input "0=$tmp/f.npy"
  grep -v '^#' "$tmp/out" | tr '\n' ' ' | grep -q "^1.5 -2 3 4 $" && ok || bad ".npy f8 input: $(cat "$tmp/out")"
  $PY -c "import numpy as np; np.save('$tmp/u.npy', np.array([1, 2, 3, 300], dtype=np.int32))"
  expect 1 "u.npy: element 3: 300 is out of range for UINT_8" run "$tmp/io_UINT_8.txt" --input "0=$tmp/u.npy"
  $PY -c "import numpy as np; np.save('$tmp/n.npy', np.array([1, np.nan, 3, 4], dtype=np.float32))"
  expect 1 "n.npy: element 1: NaN" run "$tmp/io_FLOAT_32.txt" --input "0=$tmp/n.npy"
  $PY -c "import numpy as np; np.save('$tmp/s.npy', np.zeros(5, dtype=np.int16))"
  expect 1 "the array holds 5 values, the INPUT takes 4" run "$tmp/io_INT_16.txt" --input "0=$tmp/s.npy"
  head -c 20 "$tmp/in.npy" > "$tmp/t.npy"; expect 1 "truncated|ends" run "$D" --input "0=$tmp/t.npy"
  printf 'hello' > "$tmp/x.npy"; expect 1 "not a .npy file" run "$D" --input "0=$tmp/x.npy"
  $PY -c "import numpy as np; np.save('$tmp/fo.npy', np.asfortranarray(np.arange(4, dtype=np.int16).reshape(2, 2)))"
  expect 1 "Fortran-order" run "$tmp/io_INT_16.txt" --input "0=$tmp/fo.npy"
  $PY -c "import numpy as np; np.save('$tmp/co.npy', np.arange(4, dtype='>i2').reshape(2, 2))"
  expect 0 "" run "$tmp/io_INT_16.txt" --input "0=$tmp/co.npy"
  grep -v '^#' "$tmp/out" | tr '\n' ' ' | grep -q "^0 1 2 3 $" && ok || bad "big-endian 2x2 .npy input: $(cat "$tmp/out")"
else
  echo "note: numpy (python3-numpy) missing: .npy checks skipped"
fi

# --- 11: SNN per-step inputs, traces ---------------------------------------
# 4 frames in one file, against 4 single-step runs chained through... the
# per-step pattern form: both must agree, and the trace has one line per step
for t in 0 1 2 3; do awk -v t="$t" '{ v = $1 + 3 * t; if (v > 127) v = 127; print v }' "$IN" > "$tmp/frame$t.txt"; done
cat "$tmp/frame0.txt" "$tmp/frame1.txt" "$tmp/frame2.txt" "$tmp/frame3.txt" > "$tmp/frames.txt"
"$T" run "$D" --input "0=$tmp/frames.txt" --steps 4 --trace "$tmp/tr1" > "$tmp/r1" && ok || bad "run with 4 frames in one file"
"$T" run "$D" --input "0=$tmp/frame%d.txt" --steps 4 --trace "$tmp/tr2" > "$tmp/r2" && ok || bad "run with a file per step"
cmp -s "$tmp/r1" "$tmp/r2" && cmp -s "$tmp/tr1/o_20.trace.txt" "$tmp/tr2/o_20.trace.txt" && ok || bad "frames file and per-step files agree"
[ "$(wc -l < "$tmp/tr1/o_20.trace.txt")" -eq 4 ] && [ "$(head -n 1 "$tmp/tr1/o_20.trace.txt" | wc -w)" -eq 10 ] && ok || bad "trace: 4 lines of 10 values"
tail -n 1 "$tmp/tr1/o_20.trace.txt" | tr ' ' '\n' | cmp -s - <(grep -v '^#' "$tmp/r1" | tail -n 10) && ok || bad "the trace's last line is the final output"
"$T" run "$D" --input "0=$tmp/frame0.txt" --steps 4 --trace "$tmp/tr3" > /dev/null
"$T" run "$D" --input "0=$tmp/frame0.txt" --steps 1 > "$tmp/r3"
head -n 1 "$tmp/tr3/o_14.trace.txt" | tr ' ' '\n' | cmp -s - <(sed -n '2,11p' "$tmp/r3") && ok || bad "trace step 0 equals a one-step run"
! cmp -s "$tmp/tr1/o_14.trace.txt" "$tmp/tr3/o_14.trace.txt" && ok || bad "different frames give different traces"
expect 1 "frame%d.txt|frame9.txt|cannot open" run "$D" --input "0=$tmp/frame%d.txt" --steps 10
expect 2 "one %d" run "$D" --input "0=$tmp/f%s%d.txt"
cat "$tmp/frame0.txt" "$tmp/frame1.txt" > "$tmp/two.txt"
expect 1 "holds 512 values, INPUT socket 0 takes 256 per step" run "$D" --input "0=$tmp/two.txt" --steps 4
if $PY -c 'import numpy' 2> /dev/null; then
  "$T" run "$D" --input "0=$tmp/frames.txt" --steps 4 --trace "$tmp/tr4" --out-format npy > /dev/null
  $PY -c "import numpy as np, sys; a = np.load('$tmp/tr4/o_20.trace.npy'); b = np.loadtxt('$tmp/tr1/o_20.trace.txt', dtype=np.int64)
sys.exit(0 if a.shape == (4, 10) and (a == b).all() else 1)" && ok || bad ".trace.npy has shape [steps, 10] and the text trace's values"
fi

# progress on stderr when it is a terminal (script(1) gives it one), none otherwise
if command -v script > /dev/null; then
  script -qec "$T run $D --input 0=$IN --steps 200 --out $tmp/prog" /dev/null > "$tmp/tty.log" 2>&1
  grep -q "step 200/200, [0-9]* steps/s" "$tmp/tty.log" && ok || bad "progress on a terminal: $(tail -c 300 "$tmp/tty.log")"
fi
"$T" run "$D" --input "0=$IN" --steps 200 --out "$tmp/prog" 2> "$tmp/err" && [ ! -s "$tmp/err" ] && ok || bad "no progress when stderr is not a terminal"

# --- 8/10: --json, stat's accounting, --profile on stderr --------------------
"$T" check "$D" --json > "$tmp/c.json" && $PY -c "import json,sys; d = json.load(open('$tmp/c.json')); sys.exit(0 if d['errors'] == 0 and d['blocks'] == 21 else 1)" && ok || bad "check --json"
"$T" check "$tmp/bad.txt" --json > /dev/null 2>&1; [ $? -eq 1 ] && ok || bad "check --json of an unreadable file exits 1"
sed 's/dst_block_id: 3$/dst_block_id: 42/' "$FIX/cadd.task.txt" > "$tmp/broken.txt" 2> /dev/null
if [ -f "$FIX/cadd.task.txt" ]; then
  "$T" check "$tmp/broken.txt" --json > "$tmp/b.json"; rc=$?
  [ $rc -eq 1 ] && $PY -c "import json,sys; d = json.load(open('$tmp/b.json')); p = d['problems']
sys.exit(0 if d['errors'] >= 1 and all(set(x) == {'severity','rule','block','edge','message'} for x in p) and any(x['severity'] == 'error' for x in p) else 1)" \
    && ok || bad "check --json lists the problems"
fi
"$T" stat "$D" --json > "$tmp/s.json" && $PY -c "import json,sys; d = json.load(open('$tmp/s.json')); b = d['blocks']; t = d['totals']
sys.exit(0 if sum(x['params'] for x in b) == t['params'] == 1586 and sum(x['macs'] for x in b) == t['macs'] and len(b) == 21 else 1)" \
  && ok || bad "stat --json: params and MACs add up to the totals"
"$T" stat "$D" > "$tmp/s.txt" && awk '$1 ~ /^[0-9]+$/ { p += $(NF - 2) } /^total:/ { split($0, a, ", "); for (i in a) if (a[i] ~ /parameters/) { split(a[i], w, " "); t = w[1] } } END { exit !(p == t && t == 1586) }' "$tmp/s.txt" \
  && ok || bad "stat: the params column adds up to the total: $(cat "$tmp/s.txt")"
"$T" run "$D" --input "0=$IN" --steps 2 --profile > "$tmp/p.out" 2> "$tmp/p.err"
"$T" run "$D" --input "0=$IN" --steps 2 > "$tmp/np.out"
cmp -s "$tmp/p.out" "$tmp/np.out" && ok || bad "--profile leaves stdout alone"
grep -qE "plan [0-9]+\.[0-9]{6} ms" "$tmp/p.err" && grep -q "MACs" "$tmp/p.err" && ok || bad "--profile on stderr with the plan time: $(cat "$tmp/p.err")"
grep -qE "^ +4 CC +packed int8 +2 +[0-9]+\.[0-9]{6} +36864 " "$tmp/p.err" && ok || bad "--profile has a row per block (id, type, kernel path, calls, time, MACs): $(cat "$tmp/p.err")"
"$T" run "$D" --input "0=$IN" --profile --json 2> "$tmp/pj.json" > /dev/null && $PY -c "import json,sys; d = json.load(open('$tmp/pj.json')); sys.exit(0 if d['runs'] == 1 and d['plan_ms'] >= 0 and d['macs'] > 0 and sum(b['macs'] for b in d['blocks']) == d['macs'] and len(d['blocks']) == 21 else 1)" \
  && ok || bad "run --profile --json"
expect 2 "--json goes with --profile" run "$D" --input "0=$IN" --json

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
