#!/bin/sh
# One callgrind window, opened and closed from outside (a synchronous callgrind_control from inside
# blocks the very process callgrind must answer it from: docs/performance-rounds.md, "Metrics,
# eighth round"). Runs `node --perf-basic-prof SCRIPT ARGS... OUT_DIR/flags` under callgrind with
# instrumentation off. The script writes flags/ready (its pid) once warm and waits for flags/go;
# it writes flags/done when its measured work is done and waits for flags/stop. Instructions are
# counted between go and done only.
#   bench/support/callgrind-run.sh OUT_DIR SCRIPT [ARGS...]
# Writes OUT_DIR/callgrind.out.PID.1, OUT_DIR/perf-PID.map (JIT code's names) and OUT_DIR/run.log;
# prints the first. Needs valgrind; the node on PATH (node_modules/.bin's, 24). CALLGRIND_NODE_FLAGS
# are node's (V8 flags NODE_OPTIONS refuses, such as --min-semi-space-size).
# CALLGRIND_SIM=1 also simulates the caches and the branch predictor (--cache-sim, --branch-sim:
# no slower here), for callgrind-diff.py's estimate of cycles (COST=CEst). The caches simulated are
# CALLGRIND_CACHES, by default this machine's (L1 32 KiB 8-way each, the last level 32 MiB 16-way):
# valgrind's own detection reads its L3 as 320 MiB direct-mapped.
set -eu
mkdir -p "$1/flags"
out=$(cd "$1" && pwd) script=$2
shift 2
rm -f "$out/flags/"*
node=$(command -v node)
cd "$out"
valgrind --tool=callgrind --smc-check=all --instr-atstart=no --dump-instr=no \
  ${CALLGRIND_SIM:+--cache-sim=yes --branch-sim=yes ${CALLGRIND_CACHES:---I1=32768,8,64 --D1=32768,8,64 --LL=33554432,16,64}} \
  --callgrind-out-file="$out/callgrind.out.%p" \
  "$node" --perf-basic-prof ${CALLGRIND_NODE_FLAGS:-} "$script" "$@" "$out/flags" >"$out/run.log" 2>&1 &
run=$!
until [ -f "$out/flags/ready" ]; do
  if ! kill -0 "$run" 2>/dev/null; then
    echo "$script ended before it was warm; $out/run.log:" >&2
    grep -v '^==' "$out/run.log" | tail -5 >&2
    exit 1
  fi
  sleep 1
done
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
