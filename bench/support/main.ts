import { spawn } from "node:child_process";
import { PLATFORM_NODE_FLAGS } from "../../app/node-flags";
import { stopAllChildren } from "./children";

export interface BenchOptions {
  /**
   * Run with the platform's V8 flags (app/node-flags.ts), as `npm start` and the image do: true
   * unless the harness chooses node's flags itself (the callgrind windows pin the young generation).
   */
  platformFlags?: boolean;
}

/**
 * A bench's entry point: on either outcome its child processes are stopped (SIGTERM, then SIGKILL
 * after a grace), then the process exits with the outcome (brokers' timers and signal handlers left
 * behind do not keep it alive). Started without the platform's V8 flags, it runs itself again
 * with them (relaunchWithPlatformFlags).
 */
export function runBench(main: () => Promise<void>, options: BenchOptions = {}): void {
  if (!onPlatformNode()) return;
  if ((options.platformFlags ?? true) && relaunchWithPlatformFlags()) return;
  main()
    .then(
      () => 0,
      (err) => {
        console.error(`\nbench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        return 1;
      },
    )
    .then(async (code) => {
      await stopAllChildren();
      process.exit(code);
    });
}

/** The oldest Node the platform runs on (package.json `engines`: moleculer 0.15 needs 22). */
const PLATFORM_NODE_MAJOR = 22;

/**
 * Figures are the platform's only under the Node it runs on: the machine's own `node` may be
 * older (20 here), and a bench started with it (`node dist/bench/...` outside npm) ran, with its
 * children, on that one: V8's older JSON and AsyncLocalStorage (async hooks on every promise)
 * showed in its profiles (thirty-first round). Refused, with the command to use instead.
 */
function onPlatformNode(): boolean {
  const major = Number(process.versions.node.split(".")[0]);
  if (major >= PLATFORM_NODE_MAJOR) return true;
  console.error(
    `bench refused: Node ${process.versions.node} runs it, the platform needs >= ${PLATFORM_NODE_MAJOR}: ` +
      `use npm run bench:..., or node_modules/.bin/node dist/bench/...`,
  );
  process.exitCode = 1;
  return false;
}

const flagName = (flag: string) => flag.split("=")[0];

/**
 * A bench measures the platform as it is deployed, so a bench hosting it in its own process needs
 * the platform's V8 flags, which V8 reads only at start-up. Started without them
 * (`node dist/bench/engine.bench.js`), the bench runs itself again with them, the same arguments,
 * output and exit status, and answers true: this process only waits. A flag the command line sets
 * itself (`node --max-semi-space-size=64 ...`) is kept, and BENCH_NODE_FLAGS=default runs with
 * V8's own sizing, for a comparison. The relaunched bench stops (SIGTERM: its children stop too)
 * when this process goes away.
 */
function relaunchWithPlatformFlags(): boolean {
  if (process.env.BENCH_RELAUNCHED === "1") {
    process.once("disconnect", () => process.kill(process.pid, "SIGTERM"));
    process.channel?.unref();
    return false;
  }
  if (process.env.BENCH_NODE_FLAGS === "default") return false;
  const given = new Set(process.execArgv.map(flagName));
  const missing = PLATFORM_NODE_FLAGS.filter((flag) => !given.has(flagName(flag)));
  if (missing.length === 0) return false;
  const child = spawn(process.execPath, [...process.execArgv, ...missing, ...process.argv.slice(1)], {
    stdio: ["inherit", "inherit", "inherit", "ipc"],
    env: { ...process.env, BENCH_RELAUNCHED: "1" },
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  return true;
}
