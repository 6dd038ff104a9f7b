#!/bin/sh
# Instructions per transition of one build under callgrind, start-up and warm-up left out
# (bench/engine/callgrind-window.ts; docs/performance-rounds.md, "The engine in one process, tenth round"):
#   bench/engine/callgrind-window.sh DIST OUT_DIR [WARM=300] [JOBS=150]
# Writes OUT_DIR/callgrind.out.PID.1 (JOBS x 10 transitions) and OUT_DIR/perf-PID.map; compare two
# with bench/support/callgrind-diff.py A.out A.map N B.out B.map N (N = JOBS x 10). Needs valgrind
# and this checkout's build (the runner); DIST is the build measured.
set -eu
dist=$(cd "$1" && pwd) out=$2 warm=${3:-300} jobs=${4:-150}
here=$(cd "$(dirname "$0")/../.." && pwd)
node=$(command -v node)
rm -rf "$out/flags"
mkdir -p "$out/flags"
cd "$out"
valgrind --tool=callgrind --smc-check=all --instr-atstart=no --dump-instr=no \
  --callgrind-out-file="$out/callgrind.out.%p" \
  "$node" --perf-basic-prof "$here/dist/bench/engine/callgrind-window.js" \
  "$dist" "$warm" "$jobs" "$out/flags" >"$out/run.log" 2>&1 &
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
