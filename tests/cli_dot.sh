#!/usr/bin/env bash
# `taskir dot`: sockets, input roles and bytes on edges, groups as clusters,
# dangling edges drawn red without a phantom block, nn programs; every
# picture is rendered by Graphviz when it is installed.
set -u
T=${TASKIR:-build/taskir}
if [ ! -x "$T" ]; then echo "skip: $T is not built"; exit 77; fi
FIX=${TASKIR_FIXTURES:-../shared/fixtures}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0; passes=0
ok() { passes=$((passes + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
render() { if command -v dot > /dev/null; then dot -Tpng "$1" -o "$1.png" && [ -s "$1.png" ] && ok || bad "graphviz rejects $1"; fi; }

"$T" demo --save "$tmp/d.task.pb" > /dev/null 2>&1 || bad "demo failed"
"$T" dot "$tmp/d.task.pb" > "$tmp/d.dot" 2> "$tmp/err" && ok || bad "dot of the demo graph"
[ ! -s "$tmp/err" ] && ok || bad "dot of a sound graph says nothing on stderr: $(cat "$tmp/err")"
grep -q 'b0 \[label="INPUT 0\\nsocket 0' "$tmp/d.dot" && grep -q 'b20 \[label="OUTPUT 20\\nsocket 2' "$tmp/d.dot" && ok || bad "sockets on INPUT/OUTPUT"
grep -q 'b2 -> b4 \[label="e2 weight (in 1)\\n288 B' "$tmp/d.dot" && ok || bad "CC weight edge: role and bytes"
grep -q 'b3 -> b4 \[label="e3 bias (in 2)\\n32 B' "$tmp/d.dot" && ok || bad "CC bias edge"
grep -q 'b17 -> b18 \[label="e17 state (in 1)' "$tmp/d.dot" && ok || bad "CLIF state edge"
grep -q 'b1 -> b4 \[label="e1 data (in 0)\\n256 B' "$tmp/d.dot" && ok || bad "data edge"
grep -q 'RESHAPE\[2,1,0\]' "$tmp/d.dot" && ok || bad "rearrangement on the edge"
render "$tmp/d.dot"
# the .tir form of the same graph draws the same picture
"$T" convert "$tmp/d.task.pb" "$tmp/d.tir" && "$T" dot "$tmp/d.tir" | cmp -s - "$tmp/d.dot" && ok || bad "dot of .tir equals dot of .pb"

if [ -f "$FIX/cc.task.pb" ]; then   # an OUTPUT without socket_id is addressed by its block id
  "$T" dot "$FIX/cc.task.pb" | grep -q 'b5 \[label="OUTPUT 5\\nsocket 5 (its block id)' && ok || bad "OUTPUT without socket_id"
fi

if [ -f "$FIX/cadd.task.txt" ]; then
  sed 's/dst_block_id: 3$/dst_block_id: 42/' "$FIX/cadd.task.txt" > "$tmp/dang.txt"
  printf 'groups { group_id: 9 block_ids: 4 }\n' >> "$tmp/dang.txt"
  "$T" dot "$tmp/dang.txt" > "$tmp/dang.dot" 2> "$tmp/err" && ok || bad "dot of a graph with dangling edges"
  grep -q "edge 0: destination block 42 does not exist" "$tmp/err" && grep -q "3 dangling edge" "$tmp/err" && ok || bad "dangling edges reported: $(cat "$tmp/err")"
  ! grep -q 'b42' "$tmp/dang.dot" && ok || bad "a phantom node b42"
  [ "$(grep -c -- '-> x[0-9]* \[color=red' "$tmp/dang.dot")" -eq 3 ] && ok || bad "three red edges"
  grep -q 'subgraph cluster_g0' "$tmp/dang.dot" && grep -q 'label="group 0"' "$tmp/dang.dot" && grep -q 'label="group 9"' "$tmp/dang.dot" && ok || bad "groups as clusters"
  sed -n '/label="group 9"/,/}/p' "$tmp/dang.dot" | grep -q '^    b4 ' && ok || bad "block 4 inside group 9's cluster"
  render "$tmp/dang.dot"
fi

NN=tests/layout/seed004_conv_reshape_add.nn.tir
"$T" dot "$NN" > "$tmp/nn.dot" && ok || bad "dot of an nn program"
grep -q '^digraph nnprogram' "$tmp/nn.dot" && grep -q 'label="nn.conv2d"' "$tmp/nn.dot" && ok || bad "nn ops as nodes"
grep -q 'a1 -> o0 \[label="vtensor<1x1x4x4xf32, HWOI>"\]' "$tmp/nn.dot" && ok || bad "values with their layouts on the edges: $(grep -- '->' "$tmp/nn.dot" | head -3)"
[ "$(grep -c -- '->' "$tmp/nn.dot")" -eq 7 ] && ok || bad "one edge per use (7)"
render "$tmp/nn.dot"

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
