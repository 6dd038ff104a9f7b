/**
 * One worker process of a peer (bench:peers): `node worker-node.js '<WorkerSpec JSON>'`. Says
 * `{ready: true}` over IPC once its worker listens, then `{key, at}` for each job's end (or each
 * delayed job's firing), `at` the wall clock in ms. SIGTERM closes the worker and exits; the
 * watchdog stops it when the bench goes away.
 */
import "../support/watchdog";
import { startWorker, type WorkerSpec } from "./peers";

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? "{}") as WorkerSpec;
  const worker = await startWorker(spec, (key, at) => process.send?.({ key, at }));
  process.once("SIGTERM", () => {
    void worker.close().finally(() => process.exit(0));
  });
  process.send?.({ ready: true });
}

main().catch((err) => {
  console.error(`peer worker failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exit(1);
});
