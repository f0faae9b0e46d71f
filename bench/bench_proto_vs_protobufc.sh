#!/usr/bin/env bash
# Compares taskir_proto.h with protobuf-c's generated code on the same bytes:
# generates C from tests/tianjic_ir.proto into build/pbc, builds
# bench/proto_vs_protobufc.c against it and runs it. protobuf-c is used only
# here, never by the library. Needs protoc-c and libprotobuf-c-dev.
set -e
cd "$(dirname "$0")/.."
out=${BUILD:-build}/pbc
mkdir -p "$out"
protoc-c -Itests --c_out="$out" tests/tianjic_ir.proto
${CC:-cc} -std=c99 -O3 -march=native -I. -Ibench -I"$out" -o "$out/proto_vs_protobufc" \
  bench/proto_vs_protobufc.c "$out/tianjic_ir.pb-c.c" -lprotobuf-c -lm
"$out/proto_vs_protobufc"
