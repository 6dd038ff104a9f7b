/**
 * A bench measures the platform as it is deployed: runBench (bench/support/main.ts) runs a bench
 * started without the platform's V8 flags (app/node-flags.ts) again with them, keeps a flag its
 * command line sets, and runs as it was started with BENCH_NODE_FLAGS=default. The relaunched
 * bench's output and exit status are the command's. A bench under a Node older than the
 * platform's is refused.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PLATFORM_NODE_FLAGS } from "../../app/node-flags";

const NODE = path.join(__dirname, "../../node_modules/.bin/node");
const MAIN = path.join(__dirname, "../../dist/bench/support/main.js");

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-flags-"));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Runs a bench whose main prints its node flags (and fails when `fail`); answers them and the exit status. */
function runTinyBench(flags: string[], env: Record<string, string> = {}, fail = false, nodeVersion?: string) {
  const script = path.join(dir, "tiny.bench.js");
  // An older Node, as far as the bench can tell (process.versions.node).
  const older = nodeVersion
    ? `Object.defineProperty(process.versions, "node", { value: ${JSON.stringify(nodeVersion)} });`
    : "";
  fs.writeFileSync(
    script,
    `${older}require(${JSON.stringify(MAIN)}).runBench(async () => {
       console.log("flags " + JSON.stringify(process.execArgv));
       if (${fail}) throw new Error("the bench failed");
     });`,
  );
  const { BENCH_NODE_FLAGS: _, ...inherited } = process.env;
  const run = spawnSync(NODE, [...flags, script, "an-argument"], {
    encoding: "utf8",
    env: { ...inherited, ...env },
    timeout: 30_000,
  });
  const printed = run.stdout.split("\n").filter((l) => l.startsWith("flags "));
  return {
    printed: printed.map((l) => JSON.parse(l.slice(6)) as string[]),
    status: run.status,
    err: run.stderr,
  };
}

test("a bench started without the platform's flags runs once, with them", () => {
  const { printed, status } = runTinyBench([]);
  expect(status).toBe(0);
  expect(printed).toEqual([[...PLATFORM_NODE_FLAGS]]);
});

test("a flag the command line sets is kept, other flags are kept too, and BENCH_NODE_FLAGS=default adds none", () => {
  expect(runTinyBench(["--max-semi-space-size=64"]).printed).toEqual([["--max-semi-space-size=64"]]);
  expect(runTinyBench(["--expose-gc"]).printed).toEqual([["--expose-gc", ...PLATFORM_NODE_FLAGS]]);
  expect(runTinyBench([], { BENCH_NODE_FLAGS: "default" }).printed).toEqual([[]]);
});

test("the relaunched bench's failure is the command's exit status", () => {
  const { printed, status, err } = runTinyBench([], {}, true);
  expect(printed).toEqual([[...PLATFORM_NODE_FLAGS]]);
  expect(status).toBe(1);
  expect(err).toContain("the bench failed");
});

test("a bench under a Node older than the platform's is refused, with the command to use", () => {
  const { printed, status, err } = runTinyBench([], {}, false, "20.20.2");
  expect(printed).toEqual([]);
  expect(status).toBe(1);
  expect(err).toContain("Node 20.20.2 runs it, the platform needs >= 22");
});
