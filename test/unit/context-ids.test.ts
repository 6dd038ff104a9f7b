/**
 * The ids of contexts and spans (shared/context-ids.ts): random version-4 UUIDs, as Moleculer's own
 * generator makes them, each new.
 */
import { ServiceBroker, type Context } from "moleculer";
import { brokerOptions } from "../../app/broker-options";
import { loadConfig } from "../../shared/config";
import { contextId } from "../../shared/context-ids";

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test("ids are version-4 UUIDs, each new, past several refills of the random pool", () => {
  const ids = new Set<string>();
  // 256 ids a pool: 10,000 refill it 39 times.
  for (let i = 0; i < 10_000; i++) {
    const id = contextId();
    expect(id).toMatch(V4);
    ids.add(id);
  }
  expect(ids.size).toBe(10_000);
});

test("every random digit takes every value: no position fixed or mapped twice", () => {
  const seen = Array.from({ length: 36 }, () => new Set<string>());
  for (let i = 0; i < 4_000; i++) [...contextId()].forEach((c, at) => seen[at].add(c));
  seen.forEach((values, at) => {
    if ([8, 13, 18, 23].includes(at)) expect([...values]).toEqual(["-"]);
    else if (at === 14) expect([...values]).toEqual(["4"]);
    else if (at === 19) expect([...values].sort()).toEqual(["8", "9", "a", "b"]);
    else expect(values.size).toBe(16);
  });
});

test("the platform's broker gives its contexts these ids", async () => {
  const config = loadConfig({ DATA_DIR: "/nonexistent", LOG_LEVEL: "warn", METRICS_PORT: "off" });
  const broker = new ServiceBroker({ ...brokerOptions(config), middlewares: [], logger: false });
  expect(broker.options.uidGenerator).toBe(contextId);
  broker.createService({
    name: "ids",
    actions: { own: (ctx: Context) => ({ id: ctx.id, requestID: ctx.requestID }) },
  });
  await broker.start();
  try {
    const first = (await broker.call("ids.own")) as { id: string; requestID: string };
    const second = (await broker.call("ids.own")) as { id: string; requestID: string };
    expect(first.id).toMatch(V4);
    expect(first.requestID).toBe(first.id);
    expect(second.id).toMatch(V4);
    expect(second.id).not.toBe(first.id);
  } finally {
    await broker.stop();
  }
});
