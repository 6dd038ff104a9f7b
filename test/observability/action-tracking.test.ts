/**
 * The action calls' context tracking (graceful shutdown) done in the metrics middleware's reaction
 * (shared/observability/action-metrics.ts, `trackerWithoutActions`): with metrics on or off, a call
 * in flight is on its service's list (the broker's for a remote call) until it settles, a stopping
 * broker waits for it, and a call made with `tracking: false` is not tracked, as with Moleculer's
 * own ContextTracker.
 */
import { ServiceBroker, type Context } from "moleculer";
import { withInternalMiddlewares } from "../../shared/observability/internal-middlewares";
import { registerPlatformMetrics } from "../../shared/observability/metrics";

type Tracked = { _trackedContexts: Context[] };

/** A service whose `slow` action answers when `open()` is called, and whose `fail` rejects. */
function gated() {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const schema = {
    name: "gated",
    actions: {
      slow: async () => {
        await gate;
        return "done";
      },
      fail: async () => {
        await gate;
        throw new Error("refused");
      },
    },
  };
  return { schema, open };
}

function platformBroker(nodeID: string, metrics: boolean, transporter?: "Fake"): ServiceBroker {
  const broker = new ServiceBroker({
    nodeID,
    logger: false,
    transporter,
    tracking: { enabled: true, shutdownTimeout: 5000 },
    metrics: metrics ? { enabled: true, reporter: [] } : false,
    internalMiddlewares: false,
    middlewares: withInternalMiddlewares([]),
  });
  if (metrics) registerPlatformMetrics(broker);
  return broker;
}

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each([
  ["metrics on", true],
  ["metrics off", false],
])("action calls are tracked, %s", (_label, metrics) => {
  test("a call is on its service's list until it settles, and a stopping broker waits for it", async () => {
    const broker = platformBroker("tracking-node", metrics);
    const { schema, open } = gated();
    const service = broker.createService(schema) as unknown as Tracked;
    await broker.start();
    const call = broker.call("gated.slow");
    const failing = broker.call("gated.fail").catch((err: Error) => err.message);
    const untracked = broker.call("gated.slow", {}, { tracking: false } as never);
    await tick(10);
    // Two tracked calls in flight; the one with `tracking: false` is not on the list.
    expect(service._trackedContexts.map((ctx) => ctx.action!.name).sort()).toEqual([
      "gated.fail",
      "gated.slow",
    ]);
    let stopped = false;
    const stopping = broker.stop().then(() => (stopped = true));
    await tick(250);
    expect(stopped).toBe(false);
    open();
    expect(await call).toBe("done");
    expect(await failing).toBe("refused");
    expect(await untracked).toBe("done");
    // Off the list as soon as they settled (the shutdown's wait would clear it only after its timeout).
    expect(service._trackedContexts).toEqual([]);
    await stopping;
  });

  test("a remote call is on the calling broker's list until it settles", async () => {
    const caller = platformBroker(`caller-${metrics}`, metrics, "Fake");
    const callee = platformBroker(`callee-${metrics}`, metrics, "Fake");
    const { schema, open } = gated();
    callee.createService(schema);
    try {
      await Promise.all([caller.start(), callee.start()]);
      await caller.waitForServices("gated");
      const call = caller.call("gated.slow");
      await tick(50);
      const list = (caller as unknown as Tracked)._trackedContexts;
      expect(list.map((ctx) => ctx.action!.name)).toEqual(["gated.slow"]);
      open();
      expect(await call).toBe("done");
      expect(list).toEqual([]);
    } finally {
      await Promise.all([caller.stop(), callee.stop()]);
    }
  });
});
