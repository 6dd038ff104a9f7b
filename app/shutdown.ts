/**
 * SIGTERM and SIGINT (docs/operations-guide.md#rolling-restarts). In order:
 *  1. every service that can drain does (the gateway: `/ready` fails at once, no new connections,
 *     in-flight HTTP requests finish, keep-alive sockets are closed; bounded by SHUTDOWN_TIMEOUT);
 *  2. the broker stops: it tells the other nodes its services are gone, waits for the calls in
 *     flight (SHUTDOWN_TIMEOUT again), stops the services and leaves the bus;
 *  3. `afterStop` runs (app/main.ts: the telemetry's last spans are exported), then the process
 *     exits. Not before: an exit ends whatever is still being sent.
 * A second signal, or twice the timeout plus a margin, exits at once.
 */
import type { ServiceBroker } from "moleculer";

interface Draining {
  drain?: () => Promise<void>;
}

export function stopOnSignals(
  broker: ServiceBroker,
  shutdownTimeoutMs: number,
  afterStop?: () => Promise<unknown>,
): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      broker.logger.warn(`${signal} again: exiting now`);
      process.exit(1);
    }
    stopping = true;
    broker.logger.info(`${signal}: draining, then stopping`);
    setTimeout(
      () => {
        broker.logger.error("shutdown took too long: exiting");
        process.exit(1);
      },
      2 * shutdownTimeoutMs + 5000,
    ).unref();
    try {
      await Promise.all(broker.services.map((s) => (s as unknown as Draining).drain?.()));
      await broker.stop();
      await afterStop?.().catch((err: Error) => broker.logger.warn(`after the stop: ${err.message}`));
      process.exit(0);
    } catch (err) {
      broker.logger.error(`shutdown failed: ${(err as Error).message}`);
      process.exit(1);
    }
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}
