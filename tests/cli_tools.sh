#!/usr/bin/env bash
# CLI checks of build/taskir: convert round trips on the fixtures, check,
# stat, dot, print, --help and error exits.
set -u
T=${TASKIR:-build/taskir}
FIX=${TASKIR_FIXTURES:-../shared/fixtures}
[ -x "$T" ] || { echo "build/taskir missing: run make"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0; passes=0
ok() { passes=$((passes + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# --help everywhere, exit 0; no command: exit 2 with usage on stderr
"$T" --help | grep -q "usage: taskir" && ok || bad "taskir --help"
for c in convert check stat dot print opt layout run demo; do
  "$T" "$c" --help > "$tmp/h" 2>&1 && grep -qi "usage" "$tmp/h" && ok || bad "taskir $c --help"
done
"$T" > /dev/null 2>&1; [ $? -eq 2 ] && ok || bad "no command must exit 2"
"$T" frobnicate > /dev/null 2>"$tmp/e"; [ $? -ne 0 ] && grep -q "unknown command" "$tmp/e" && ok || bad "unknown command"
"$T" check /nonexistent.pb 2>"$tmp/e"; [ $? -ne 0 ] && grep -q "nonexistent" "$tmp/e" && ok || bad "missing file message"
"$T" convert a.xyz b.pb 2>"$tmp/e"; [ $? -ne 0 ] && grep -q "extension" "$tmp/e" && ok || bad "unknown extension message"

# layout: the seed 004 example ends with one transpose before conv2d and one after it
"$T" layout tests/layout/seed004_conv_reshape_add.nn.tir --npu > "$tmp/lay" && grep -q "transposes: inserted 2, removed 0" "$tmp/lay" \
  && [ "$(grep -c nn.transpose "$tmp/lay")" -eq 2 ] && ok || bad "layout seed004 conv/reshape/add"
"$T" layout tests/layout/seed004_input_b_output.nn.tir > "$tmp/lay" && grep -q "transposes: inserted 0, removed 0" "$tmp/lay" && ok || bad "layout input->B->output"
# opt: cse merges the two relus, dce drops the dead one
cat > "$tmp/opt.tir" <<'TIR'
program @m(%0: vtensor<2x2xf32>) {
  %1 = nn.relu(%0) : (vtensor<2x2xf32>) -> vtensor<2x2xf32>
  %2 = nn.relu(%0) : (vtensor<2x2xf32>) -> vtensor<2x2xf32>
  %3 = nn.add(%1, %2) : (vtensor<2x2xf32>, vtensor<2x2xf32>) -> vtensor<2x2xf32>
  %4 = nn.relu(%3) : (vtensor<2x2xf32>) -> vtensor<2x2xf32>
  builtin.return(%3) : (vtensor<2x2xf32>) -> ()
}
TIR
"$T" opt "$tmp/opt.tir" --passes cse,dce > "$tmp/o" && [ "$(grep -c nn.relu "$tmp/o")" -eq 1 ] && grep -q "nn.add(%1, %1)" "$tmp/o" && ok || bad "opt cse,dce"
"$T" opt "$tmp/opt.tir" --passes bogus 2>"$tmp/e"; [ $? -ne 0 ] && grep -q "unknown pass 'bogus'" "$tmp/e" && ok || bad "opt unknown pass"
printf 'program @m {\n  %%0 = nn.nope() : () -> vtensor<f32>\n}\n' > "$tmp/bad.tir"
"$T" print "$tmp/bad.tir" 2>"$tmp/e"; [ $? -ne 0 ] && grep -q "line 2:" "$tmp/e" && ok || bad "tir parse error has line:column"

if [ ! -d "$FIX" ]; then
  echo "skip: fixtures not found at $FIX (set TASKIR_FIXTURES): fixture checks skipped"
  echo "$passes passed, $fails failed, 1 skipped"; [ "$fails" -eq 0 ] && exit 77; exit 1
fi
for pb in "$FIX"/*.task.pb; do
  name=$(basename "$pb" .task.pb)
  # pb -> txt -> pb and pb -> tir -> pb are byte-identical; the fixture's .txt gives the same bytes
  "$T" convert "$pb" "$tmp/$name.txt" && "$T" convert "$tmp/$name.txt" "$tmp/$name.a.pb" && cmp -s "$pb" "$tmp/$name.a.pb" && ok || bad "$name: pb -> txt -> pb"
  "$T" convert "$pb" "$tmp/$name.tir" && "$T" convert "$tmp/$name.tir" "$tmp/$name.b.pb" && cmp -s "$pb" "$tmp/$name.b.pb" && ok || bad "$name: pb -> tir -> pb"
  "$T" convert "$FIX/$name.task.txt" "$tmp/$name.c.pb" && cmp -s "$pb" "$tmp/$name.c.pb" && ok || bad "$name: fixture txt -> pb"
  "$T" print "$tmp/$name.tir" > "$tmp/$name.again.tir" && cmp -s "$tmp/$name.tir" "$tmp/$name.again.tir" && ok || bad "$name: print of .tir is stable"
  "$T" check "$pb" > "$tmp/check" && grep -q "0 errors" "$tmp/check" && ok || bad "$name: check"
  "$T" stat "$pb" > "$tmp/stat" && grep -q "^total:" "$tmp/stat" && ok || bad "$name: stat"
  "$T" dot "$pb" > "$tmp/$name.dot" && grep -q "^digraph" "$tmp/$name.dot" && grep -q -- "->" "$tmp/$name.dot" && ok || bad "$name: dot"
  if command -v dot > /dev/null; then dot -Tsvg "$tmp/$name.dot" -o /dev/null && ok || bad "$name: graphviz rejects our DOT"; fi
done
# the CC fixture's statistics by hand: 8*8*32 outputs * 32 inputs * 3*3 = 589824 MACs
"$T" stat "$FIX/cc.task.pb" | grep -q " 589824 MACs" && ok || bad "cc MAC count"
# totals beyond int64: the table still prints, saturated totals marked
printf 'blocks { id: -1 type: CC shape { ny: 2147483647 nx: 2147483647 nf: 2147483647 nr: 2147483647 nky: 3 nkx: 3 } }\n' > "$tmp/sat.txt"
"$T" stat "$tmp/sat.txt" > "$tmp/stat" 2> "$tmp/e" && grep -q "^ *-1 *CC" "$tmp/stat" && grep -q "MACs (saturated)" "$tmp/stat" && ok || bad "stat of saturated totals"
# a block whose id is -1 keeps its location in check's report
printf 'blocks { id: -1 type: SI shape { nf: -4 } }\n' > "$tmp/neg.txt"
"$T" check "$tmp/neg.txt" > "$tmp/out" 2>&1; grep -q "block -1" "$tmp/out" && ok || bad "block -1 location: $(cat "$tmp/out")"
# an edge whose id is -1 keeps its location too (check, and run's list of checker problems)
cat > "$tmp/nege.txt" <<'EOF2'
blocks { id: -1 type: SI shape { ny: 1 nx: 1 nf: 4 } output_clusters { interfaces { edge_id: -1 } } }
blocks { id: 2 type: CVS shape { ny: 1 nx: 1 nf: 4 } input_clusters { interfaces { edge_id: -1 } } output_clusters { interfaces { edge_id: 5 } } }
blocks { id: 3 type: SI shape { ny: 1 nx: 1 nf: 4 } input_clusters { interfaces { edge_id: 5 } } output_clusters { interfaces { edge_id: 6 } } }
blocks { id: 4 type: OUTPUT shape { ny: 1 nx: 1 nf: 4 } input_clusters { interfaces { edge_id: 6 } } }
edges { id: -1 src_block_id: -1 dst_block_id: 2 rearrange_info { type: SCALE matrix { int32_data: 0 } } }
edges { id: 5 src_block_id: 2 dst_block_id: 3 }
edges { id: 6 src_block_id: 3 dst_block_id: 4 }
EOF2
"$T" check "$tmp/nege.txt" > "$tmp/out" 2>&1
grep -q "edge -1: \[rearrange\]" "$tmp/out" && grep -q "block -1: \[data\]" "$tmp/out" && ok || bad "edge -1 location in check: $(cat "$tmp/out")"
"$T" check --json "$tmp/nege.txt" > "$tmp/out" 2>&1
grep -q '"block": null, "edge": -1' "$tmp/out" && ok || bad "edge -1 in check --json: $(cat "$tmp/out")"
"$T" run "$tmp/nege.txt" > "$tmp/out" 2>&1
grep -q "error \[rearrange\] edge -1: " "$tmp/out" && ! grep -q "block -1 edge" "$tmp/out" && ok || bad "edge -1 location in run: $(cat "$tmp/out")"

# the checker finds a broken graph and exits 1
sed 's/dst_block_id: 3/dst_block_id: 42/' "$FIX/cadd.task.txt" > "$tmp/broken.txt"
"$T" check "$tmp/broken.txt" > "$tmp/out" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q "42" "$tmp/out" && ok || bad "check of a broken graph (rc=$rc)"
# malformed input: clear message with a position
printf 'blocks { id: 0 type: BOGUS }\n' > "$tmp/bad.txt"
"$T" check "$tmp/bad.txt" 2>"$tmp/e"; [ $? -ne 0 ] && grep -q "BOGUS" "$tmp/e" && ok || bad "unknown enum message"
head -c 100 "$FIX/cc.task.pb" > "$tmp/trunc.pb"
"$T" check "$tmp/trunc.pb" 2>"$tmp/e"; [ $? -ne 0 ] && grep -qi "offset\|byte" "$tmp/e" && ok || bad "truncated pb message"

echo "$passes passed, $fails failed"
[ $fails -eq 0 ]
