#!/bin/sh
# What metrics and tracing cost a read, in cycles estimated under callgrind (npm run
# bench:observability:cycles; docs/operations-guide.md#cost): the read of bench:observability
# made in one process per mode (bench/support/observability-callgrind.ts), its window under
# callgrind with the caches and the branch predictor simulated (CALLGRIND_SIM), then each mode's
# main thread a read less its timers, run by run, and the medians' ratios to `off`
# (bench/support/callgrind-diff.py --modes). Counts, not times: they do not move with the
# machine's load, which moved the timed benches by more than the aims (+5 %, +10 %).
#   sh bench/support/observability-cycles.sh [ROUNDS=2] [WARM=15000] [READS=3000] [MODES="off metrics sampled"]
# The modes of a round run at once (one valgrind process each), ~5 minutes a round on two cores.
# Writes bench/results/observability-cycles/MODE-ROUND/ and prints the table (COST=Ir too).
#
# The young generation is pinned alike in every mode (OBS_NODE_FLAGS, by default 128 MB, the size
# V8 grows it to natively in both `off` and `metrics` on this read): V8 sizes it as it runs, partly by
# wall-clock time, which valgrind stretches ~50x, and a window's estimate moved by 6 % with it alone
# (an `off` window at 8 MB against others at 45-64 MB: each line allocated in a young generation
# larger than the last-level cache is a simulated miss). A window with a major GC is left out of the
# medians. Natively there is none in 30,000 reads of any mode after the start (--trace-gc); under
# valgrind V8's memory reducer, which collects when the allocation rate a second falls, took the
# stretched process for an idle one and made one in most windows of the traced mode ("Mark-Compact
# (reduce)"), so it is off (--no-memory-reducer).
# OBS_DIST: the build whose platform runs (another checkout's dist, for a before and after);
# OBS_OUT: where the windows go.
set -eu
export CALLGRIND_NODE_FLAGS="${OBS_NODE_FLAGS:---no-memory-reducer --min-semi-space-size=64 --max-semi-space-size=64}"
rounds=${1:-2} warm=${2:-15000} reads=${3:-3000} modes=${4:-off metrics sampled}
here=$(cd "$(dirname "$0")/../.." && pwd)
out="${OBS_OUT:-$here/bench/results/observability-cycles}"
rm -rf "$out"
mkdir -p "$out"
round=1
while [ "$round" -le "$rounds" ]; do
  for mode in $modes; do
    CALLGRIND_SIM=1 sh "$here/bench/support/observability-callgrind.sh" "$mode" "${OBS_DIST:-$here/dist}" \
      "$out/$mode-$round" "$warm" "$reads" >"$out/$mode-$round.log" 2>&1 &
  done
  wait
  round=$((round + 1))
done
specs=""
for mode in $modes; do
  dirs=$(seq -s, -f "$out/$mode-%g" 1 "$rounds")
  specs="$specs $mode=$dirs"
done
# shellcheck disable=SC2086 -- one argument a mode
COST=CEst python3 "$here/bench/support/callgrind-diff.py" --modes "$reads" $specs | tee "$out/table.txt"
# shellcheck disable=SC2086
COST=Ir python3 "$here/bench/support/callgrind-diff.py" --modes "$reads" $specs | tee -a "$out/table.txt"
