import { stopAllChildren } from "./children";

/**
 * A bench's entry point: on either outcome its child processes are stopped (SIGTERM, then SIGKILL
 * after a grace), then the process exits with the outcome (brokers' timers and signal handlers left
 * behind do not keep it alive).
 */
export function runBench(main: () => Promise<void>): void {
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
