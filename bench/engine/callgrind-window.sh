#!/bin/sh
# Instructions per transition of one build under callgrind, start-up and warm-up left out
# (bench/engine/callgrind-window.ts; docs/performance-rounds.md, "The engine in one process, tenth round"):
#   bench/engine/callgrind-window.sh DIST OUT_DIR [WARM=300] [JOBS=150]
# Writes OUT_DIR/callgrind.out.PID.1 (JOBS x 10 transitions) and OUT_DIR/perf-PID.map; compare two
# with bench/support/callgrind-diff.py A.out A.map N B.out B.map N (N = JOBS x 10). Needs valgrind
# and this checkout's build (the runner); DIST is the build measured. The window: callgrind-run.sh.
set -eu
dist=$(cd "$1" && pwd) out=$2 warm=${3:-300} jobs=${4:-150}
here=$(cd "$(dirname "$0")/../.." && pwd)
exec sh "$here/bench/support/callgrind-run.sh" "$out" "$here/dist/bench/engine/callgrind-window.js" \
  "$dist" "$warm" "$jobs"
