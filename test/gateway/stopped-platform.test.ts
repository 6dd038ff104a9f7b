/**
 * A stopped platform lets go of everything it held. Two timers outlived a broker's stop and kept
 * it (its services, store, caches) reachable: the gateway's HTTP server's connection check, which
 * net.Server's close (the drain's, gateway/drain.ts) leaves running, and the rate meter or
 * quantile window of each series of Moleculer's own metrics, which Moleculer never clears
 * (shared/observability/metrics.ts re-registers them lean). About 11 MB a platform started and
 * stopped in one process; the test runner, which starts hundreds, ran out of heap.
 */
import v8 from "node:v8";
import vm from "node:vm";
import { client, login, startPlatform } from "../support/platform";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

/** Starts a platform, uses it (HTTP on a kept-alive connection, an action, events), stops it. */
async function usedAndStopped(): Promise<WeakRef<object>> {
  // strictCalls: the broker itself, not the test's wrapping handle, is what must be let go.
  const platform = await startPlatform({ strictCalls: true });
  const admin = client(platform.baseUrl, await login(platform.baseUrl));
  expect((await admin.get("/user-management/accounts?limit=1")).status).toBe(200);
  expect((await admin.post("/formbuilder/forms", { name: "stopped-platform", elements: [] })).status).toBe(
    200,
  );
  await platform.broker.broadcast("stopped-platform.probe", {});
  expect(platform.broker.metrics.getMetric("moleculer.event.received.time")).toBeTruthy();
  const ref = new WeakRef(platform.broker as object);
  await platform.stop();
  return ref;
}

test("a stopped platform's broker is collected: no timer or listener keeps it", async () => {
  const refs = [await usedAndStopped(), await usedAndStopped()];
  for (let i = 0; i < 10 && refs.some((r) => r.deref() !== undefined); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    gc();
  }
  expect(refs.map((r) => r.deref() === undefined)).toEqual([true, true]);
}, 60_000);
