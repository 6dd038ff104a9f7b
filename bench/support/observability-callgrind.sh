#!/bin/sh
# Instructions per read, metrics off or on, or tracing 10 % or every read, under callgrind (bench/support/observability-callgrind.ts):
#   bench/support/observability-callgrind.sh off|metrics|unsampled|sampled|traced DIST OUT_DIR [WARM=3000] [READS=2000]
# Writes OUT_DIR/callgrind.out.PID.1 (the measured window only) and OUT_DIR/perf-PID.map (JIT code's
# names, --perf-basic-prof). Needs valgrind; the node of node_modules/.bin (24). The window: callgrind-run.sh.
set -eu
mode=$1 dist=$(cd "$2" && pwd) warm=${4:-3000} reads=${5:-2000}
mkdir -p "$3/data"
out=$(cd "$3" && pwd)
here=$(cd "$(dirname "$0")/../.." && pwd)
exec sh "$here/bench/support/callgrind-run.sh" "$out" "$here/dist/bench/support/observability-callgrind.js" \
  "$mode" "$dist" "$out/data" "$warm" "$reads"
