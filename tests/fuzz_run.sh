#!/usr/bin/env bash
# Runs one libFuzzer target for a bounded time under ASan+UBSan. Memory is
# capped (resident and per allocation), so an input that makes the code
# allocate out of proportion to its size fails the run.
bin=$1; secs=${2:-60}; corpus=$(mktemp -d); trap 'rm -rf "$corpus"' EXIT
"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 -print_final_stats=1 "$corpus" 2>&1 | tail -n 15
exit "${PIPESTATUS[0]}"
