#!/bin/bash
# bench:engine's NATS shape, two builds at the same time, so both meet the same machine (it is
# shared: CPU per operation moves with everyone else's load). Prints, per build and round, the
# transitions/s and the CPU µs per transition of the run's own processes (bench, store, engine 1
# and 2, load client); nats-server, which both share, is left out.
#   bench/engine/nats-ab.sh <base-worktree> <branch-worktree>     (each built: dist/)
# Env: ROUNDS (3), JOBS (600, BENCH_NATS_JOBS), FINISH (10, BENCH_FINISH).
set -u
BASE=$1
NEW=$2
ROUNDS=${ROUNDS:-3}
JOBS=${JOBS:-600}
one() { # label dir round
  cd "$2" || return
  BENCH_ONLY=nats BENCH_NATS_JOBS=$JOBS BENCH_FINISH=${FINISH:-10} BENCH_PACED_JOBS=0 BENCH_QUIET_WAIT=0 \
    BENCH_WARMUP_JOBS=100 timeout 500 node_modules/.bin/node dist/bench/engine.bench.js >"/tmp/nats-ab-$1-$3.log" 2>&1
  node_modules/.bin/node -e '
const r = require("./bench/results/engine.json").results[0];
const c = r.cpu, t = r.completed * 10;
const pids = Object.keys(c.byPid).map(Number).sort((a, b) => a - b).filter((p) => !c.natsPids.includes(p));
const own = pids.reduce((s, p) => s + c.byPid[p], 0);
const us = (p) => Math.round((c.byPid[p] * 1000) / t);
console.log(`${process.argv[1]} round ${process.argv[2]}: ${r.transitionsPerSec} transitions/s, ` +
  `${Math.round((own * 1000) / t)} µs CPU per transition (bench,store,engine1,engine2,load: ${pids.map(us).join(",")}), others ${c.others}`);
' "$1" "$3"
}
for i in $(seq 1 "$ROUNDS"); do
  one base "$BASE" "$i" &
  one branch "$NEW" "$i" &
  wait
done
