#!/bin/bash
# bench:engine's NATS shape, two builds at the same time, so both meet the same machine (it is
# shared: CPU per operation moves with everyone else's load). Prints, per build and round, the
# transitions/s, the job start's and the whole job's p50, and the CPU µs per transition of the
# run's own processes (bench, store, engine 1 and 2, load client); nats-server, which both share,
# is left out.
#   bench/engine/nats-ab.sh <base-worktree> <branch-worktree>     (each built: dist/)
# Env: ROUNDS (3), JOBS (600, BENCH_NATS_JOBS), FINISH (10, BENCH_FINISH), SHAPE (nats; or nats-local,
# the task in each engine's process).
# PRIVATE_NATS=1: each build gets a nats-server of its own (a free port, no JetStream), whose CPU
# per transition is printed too (`nats`): what the bus itself costs each build, apart from the
# shared server's other clients.
set -u
BASE=$1
NEW=$2
ROUNDS=${ROUNDS:-3}
JOBS=${JOBS:-600}
one() { # label dir round [nats-port nats-pid]
  cd "$2" || return
  local url=${4:+nats://127.0.0.1:$4}
  NATS_URL=${url:-${NATS_URL:-nats://127.0.0.1:4222}} \
    BENCH_ONLY=${SHAPE:-nats} BENCH_NATS_JOBS=$JOBS BENCH_FINISH=${FINISH:-10} BENCH_PACED_JOBS=0 BENCH_QUIET_WAIT=0 \
    BENCH_WARMUP_JOBS=100 timeout 500 node_modules/.bin/node dist/bench/engine.bench.js >"/tmp/nats-ab-$1-$3.log" 2>&1
  node_modules/.bin/node -e '
const r = require("./bench/results/engine.json").results[0];
const c = r.cpu, t = r.completed * 10;
const pids = Object.keys(c.byPid).map(Number).sort((a, b) => a - b).filter((p) => !c.natsPids.includes(p));
const own = pids.reduce((s, p) => s + c.byPid[p], 0);
const us = (p) => Math.round((c.byPid[p] * 1000) / t);
const nats = process.argv[3] ? `, nats ${us(Number(process.argv[3]))}` : "";
console.log(`${process.argv[1]} round ${process.argv[2]}: ${r.transitionsPerSec} transitions/s, ` +
  `start p50 ${r.startJob.p50Ms} ms, job p50 ${r.startToComplete.p50Ms} ms, ` +
  `${Math.round((own * 1000) / t)} µs CPU per transition (bench,store,engine1,engine2,load: ${pids.map(us).join(",")}${nats}), others ${c.others}`);
' "$1" "$3" "${5:-}"
}
free_port() { node_modules/.bin/node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
SERVERS=()
trap 'for p in "${SERVERS[@]}"; do kill "$p" 2>/dev/null; done' EXIT
for i in $(seq 1 "$ROUNDS"); do
  if [ "${PRIVATE_NATS:-0}" = 1 ]; then
    PB=$(cd "$BASE" && free_port); nats-server -a 127.0.0.1 -p "$PB" >/dev/null 2>&1 & SB=$!
    PN=$(cd "$NEW" && free_port); nats-server -a 127.0.0.1 -p "$PN" >/dev/null 2>&1 & SN=$!
    SERVERS=("$SB" "$SN")
    sleep 1
    one base "$BASE" "$i" "$PB" "$SB" &
    A=$!
    one branch "$NEW" "$i" "$PN" "$SN" &
    wait "$A" $!
    kill "$SB" "$SN" 2>/dev/null
    wait "$SB" "$SN" 2>/dev/null
  else
    one base "$BASE" "$i" &
    one branch "$NEW" "$i" &
    wait
  fi
done
