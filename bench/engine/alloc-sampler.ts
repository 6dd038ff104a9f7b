/**
 * Bytes a bench allocates, and where (docs/performance-rounds.md, the engine in one process, eighth
 * round). Preloaded into a bench's process, it runs V8's sampling heap profiler for the whole run
 * with the objects minor and major GCs collected kept in its profile, so its total is what was
 * allocated, not what survived; at the end it writes the profile and prints the total and the
 * largest sites. Allocation does not move with the machine's load as CPU time does.
 *
 *   node -r ./dist/bench/engine/alloc-sampler.js dist/bench/engine/cpu.bench.js
 *
 * Env: ALLOC_SAMPLE_BYTES (the sampling interval, 16384), ALLOC_OUT (the profile's file,
 * `alloc.heapprofile` in the working directory), ALLOC_TOP (sites printed, 20).
 */
import fs from "node:fs";
import inspector from "node:inspector";

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

const interval = Number(process.env.ALLOC_SAMPLE_BYTES ?? 16384);
const out = process.env.ALLOC_OUT ?? "alloc.heapprofile";
const top = Number(process.env.ALLOC_TOP ?? 20);

const session = new inspector.Session();
session.connect();
session.post("HeapProfiler.startSampling", {
  samplingInterval: interval,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
} as object);

const frame = (n: ProfileNode) =>
  `${n.callFrame.functionName || "(anonymous)"} ${n.callFrame.url.replace(/^.*\/(node_modules|dist)\//, "$1/")}:${n.callFrame.lineNumber + 1}`;

/** Total bytes, and bytes by the nearest frame of this project's code. */
function report(root: ProfileNode): void {
  let total = 0;
  const byOurs = new Map<string, number>();
  const walk = (n: ProfileNode, nearest: string) => {
    const here =
      n.callFrame.url.includes("/dist/") && !n.callFrame.url.includes("/node_modules/") ? frame(n) : nearest;
    total += n.selfSize;
    if (n.selfSize) byOurs.set(here, (byOurs.get(here) ?? 0) + n.selfSize);
    for (const c of n.children) walk(c, here);
  };
  walk(root, "(no frame of ours)");
  console.log(`allocated: ${(total / 1e6).toFixed(1)} MB (profile in ${out})`);
  for (const [site, bytes] of [...byOurs].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`  ${((100 * bytes) / total).toFixed(1).padStart(5)} %  ${site}`);
}

let done = false;
function finish(): void {
  if (done) return;
  done = true;
  session.post("HeapProfiler.stopSampling", (err, result) => {
    if (err) return;
    const profile = (result as { profile: { head: ProfileNode } }).profile;
    fs.writeFileSync(out, JSON.stringify(profile));
    report(profile.head);
  });
}

// The benches end with process.exit (bench/support/main.ts): the profile is taken before it.
process.on("beforeExit", finish);
const exit = process.exit.bind(process);
process.exit = ((code?: number) => {
  finish();
  return exit(code);
}) as typeof process.exit;
