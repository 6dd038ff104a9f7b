/**
 * An answer too big for the bus fails at once, saying so (app/oversized-answers.ts): over a real
 * NATS (max_payload 1 MiB by default), a caller of an action whose answer is bigger gets 500
 * ANSWER_TOO_LARGE with the size well before its timeout, instead of waiting it out for a 504.
 * A smaller answer still crosses as it is.
 */
import { randomUUID } from "node:crypto";
import { ServiceBroker } from "moleculer";
import { brokerOptions } from "../../app/broker-options";
import { loadConfig } from "../../shared/config";

const NATS_URL = process.env.NATS_URL!;
const TIMEOUT_MS = 8000;
let caller: ServiceBroker;
let answerer: ServiceBroker;

beforeAll(async () => {
  const namespace = `oversized-${randomUUID().slice(0, 8)}`;
  const options = (nodeID: string) => ({
    ...brokerOptions(
      loadConfig({
        TRANSPORTER: NATS_URL,
        NAMESPACE: namespace,
        REQUEST_TIMEOUT: String(TIMEOUT_MS),
        METRICS_PORT: "off",
      }),
    ),
    nodeID,
    logger: false,
  });
  answerer = new ServiceBroker(options(`${namespace}-answerer`));
  answerer.createService({
    name: "bulk",
    actions: { page: { handler: (ctx: any) => ({ items: "x".repeat(ctx.params.bytes) }) } },
  });
  caller = new ServiceBroker(options(`${namespace}-caller`));
  await Promise.all([answerer.start(), caller.start()]);
  await caller.waitForServices(["bulk"], 10_000);
}, 20_000);
afterAll(async () => {
  await Promise.all([caller?.stop(), answerer?.stop()]);
});

test("an answer over max_payload is a 500 ANSWER_TOO_LARGE naming its size, at once", async () => {
  const started = Date.now();
  const err = await caller.call("bulk.page", { bytes: 3 * 1024 * 1024 }, { meta: { platform: true } }).then(
    () => undefined,
    (e: any) => e,
  );
  expect(err).toMatchObject({ code: 500, type: "ANSWER_TOO_LARGE", data: { bytes: expect.any(Number) } });
  expect(err.data.bytes).toBeGreaterThan(3 * 1024 * 1024);
  expect(err.message).toMatch(/max_payload/);
  expect(Date.now() - started).toBeLessThan(TIMEOUT_MS / 2);
});

test("an answer under max_payload crosses as it is", async () => {
  const answer = await caller.call("bulk.page", { bytes: 100_000 }, { meta: { platform: true } });
  expect((answer as { items: string }).items).toHaveLength(100_000);
});
