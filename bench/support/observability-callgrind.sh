#!/bin/sh
# Instructions per read, metrics off or on, or tracing 10 % or every read, under callgrind (bench/support/observability-callgrind.ts):
#   bench/support/observability-callgrind.sh off|metrics|sampled|traced DIST OUT_DIR [WARM=3000] [READS=2000]
# Writes OUT_DIR/callgrind.out.PID.1 (the measured window only) and OUT_DIR/perf-PID.map (JIT code's
# names, --perf-basic-prof). Needs valgrind; the node of node_modules/.bin (24).
set -eu
mode=$1 dist=$(cd "$2" && pwd) out=$3 warm=${4:-3000} reads=${5:-2000}
mkdir -p "$out/flags" "$out/data"
rm -f "$out/flags/"*
here=$(cd "$(dirname "$0")/../.." && pwd)
node=$(command -v node)
cd "$out"
valgrind --tool=callgrind --smc-check=all --instr-atstart=no --dump-instr=no \
  --callgrind-out-file="$out/callgrind.out.%p" \
  "$node" --perf-basic-prof "$here/dist/bench/support/observability-callgrind.js" \
  "$mode" "$dist" "$out/data" "$warm" "$reads" "$out/flags" >"$out/run.log" 2>&1 &
until [ -f "$out/flags/ready" ]; do sleep 1; done
pid=$(cat "$out/flags/ready")
callgrind_control -i on "$pid" >/dev/null
touch "$out/flags/go"
until [ -f "$out/flags/done" ]; do sleep 1; done
callgrind_control -d "$pid" >/dev/null
callgrind_control -i off "$pid" >/dev/null
touch "$out/flags/stop"
wait
cp "/tmp/perf-$pid.map" "$out/" 2>/dev/null || true
echo "$out/callgrind.out.$pid.1"
