/**
 * Why the gateway drain follows its responses in a linked set, not a Set (shared/linked-set.ts;
 * docs/performance-rounds.md, the proxy's seventh round): 32 objects at a time in a long-lived collection,
 * one in and one out a step, with garbage allocated between, once the collection itself is in the
 * old generation. Run it with the GC's own figures and sum what the scavenges promoted:
 *
 *   node --expose-gc --trace-gc-nvp dist/bench/support/set-churn.js set|list|none [steps, 1000000]
 *
 * `set`: a JS Set; `list`: the LinkedSet; `none`: no collection (the garbage alone).
 */
import { LinkedSet } from "../../shared/linked-set";

const mode = process.argv[2] ?? "set";
const steps = Number(process.argv[3] ?? 1_000_000);
const set = new Set<object>();
const list = new LinkedSet<object>();
const inFlight: object[] = [];
let sink: unknown;

function step(): void {
  const member = { payload: Array.from({ length: 64 }, (_, i) => ({ i })) };
  if (mode === "set") set.add(member);
  else if (mode === "list") list.add(member);
  inFlight.push(member);
  if (inFlight.length > 32) {
    const done = inFlight.shift()!;
    if (mode === "set") set.delete(done);
    else if (mode === "list") list.delete(done);
  }
  // Garbage between, as a request's own allocations: it drives the scavenges.
  for (let i = 0; i < 50; i++) sink = { garbage: i, more: [i, i] };
}

for (let i = 0; i < 40; i++) step();
// A quiet moment: the collection's storage outlives two scavenges and is promoted.
const gc = (globalThis as { gc?: (o: { type: string }) => void }).gc;
for (let i = 0; i < 3; i++) gc?.({ type: "minor" });
const started = process.hrtime.bigint();
for (let i = 0; i < steps; i++) step();
console.log(`${mode}: ${steps} steps in ${Number(process.hrtime.bigint() - started) / 1e6} ms`, typeof sink);
