/**
 * Over a real NATS, without the gateway on the path: a service on its own node calls another
 * node's action on a user's behalf, and the action's node refuses the user when its roles do not
 * allow it (shared/authorization.ts). A caller's stored rights (a snapshot, no `resolvedAt`) are
 * resolved again, so a forged or stale `roles` cannot raise them; a call with neither a user nor
 * the platform's identity is refused; the platform's identity passes.
 */
import { randomUUID } from "node:crypto";
import { ServiceBroker, type Context } from "moleculer";
import { ADMIN_PASSWORD, client, login, startPlatform, tempDir, type Platform } from "../support/platform";
import { startOrchestrator, type TestOrchestrator } from "../support/orchestrator";
import type { Caller } from "../../shared/contracts/resources";

const NATS_URL = process.env.NATS_URL!;

describe("authorization over NATS, service to service", () => {
  const namespace = `t-${randomUUID().slice(0, 8)}`;
  const env = { TRANSPORTER: NATS_URL, NAMESPACE: namespace };
  const platforms: Platform[] = [];
  let relay: ServiceBroker;
  let orch: TestOrchestrator;
  let reader: Caller;
  let adminCaller: Caller;

  const CHANGE = {
    adapterId: "nso",
    params: { path: "/restconf/data/change", accept: "application/yang-data+json", method: "patch" },
    body: { "tailf-ncs:devices": {} },
  };
  const changes = () => orch.seen.filter((s) => s.method === "PATCH").length;
  /** The relay node's own service calls adapters.restAction with the meta it was given. */
  const forward = (meta: Record<string, unknown>) => relay.call("relay.forward", CHANGE, { meta });

  beforeAll(async () => {
    orch = await startOrchestrator();
    const strict = { env, strictCalls: true };
    platforms.push(await startPlatform({ ...strict, services: ["store", "accounts"], dataDir: tempDir() }));
    platforms.push(await startPlatform({ ...strict, services: ["adapters"] }));
    const front = await startPlatform({ ...strict, services: ["gateway"] });
    platforms.push(front);
    await front.broker.waitForServices(["accounts", "adapters"], 10_000);
    const admin = client(front.baseUrl, await login(front.baseUrl));
    expect(
      (
        await admin.post("/adapters", {
          properties: {
            name: "nso",
            type: "Application",
            properties: { id: "nso", type: "NSO", properties: { host: "127.0.0.1", port: orch.port } },
          },
        })
      ).status,
    ).toBe(200);
    expect(
      (await admin.post("/user-management/groups", { name: "readers", assignedRoles: ["apiread"] })).status,
    ).toBe(200);
    expect(
      (
        await admin.post("/user-management/accounts", {
          username: "reader",
          password: "reader-password",
          groups: ["readers"],
        })
      ).status,
    ).toBe(200);

    // A node of its own: no gateway, no platform service; it acts for whoever its caller names.
    relay = new ServiceBroker({
      namespace,
      nodeID: `relay-${randomUUID().slice(0, 6)}`,
      transporter: { type: "NATS", options: { url: NATS_URL } },
      logger: false,
    });
    relay.createService({
      name: "relay",
      actions: {
        forward: (ctx: Context<Record<string, unknown>>) => ctx.call("adapters.restAction", ctx.params),
      },
    });
    await relay.start();
    await relay.waitForServices(["accounts", "adapters"], 10_000);
    // Real callers, as accounts resolves them (with resolvedAt).
    const platformMeta = { meta: { platform: true } };
    reader = await relay.call(
      "accounts.authenticateBasic",
      { username: "reader", password: "reader-password" },
      platformMeta,
    );
    adminCaller = await relay.call(
      "accounts.authenticateBasic",
      { username: "admin", password: ADMIN_PASSWORD },
      platformMeta,
    );
  });

  afterAll(async () => {
    await relay?.stop();
    for (const p of platforms.reverse()) await p.stop();
    await orch?.close();
  });

  test("a user without the role is refused by the action's node; the orchestrator receives nothing", async () => {
    const before = changes();
    await expect(forward({ caller: reader })).rejects.toMatchObject({
      code: 403,
      type: "FORBIDDEN",
      data: { required: ["admin"], action: "adapters.restAction" },
    });
    expect(changes()).toBe(before);
  });

  test("a stored snapshot claiming admin is resolved again: the account's real roles decide", async () => {
    const before = changes();
    const forged = { ...reader, roles: ["admin"], resolvedAt: undefined };
    await expect(forward({ caller: forged })).rejects.toMatchObject({ code: 403 });
    expect(changes()).toBe(before);
  });

  test("neither a user nor the platform's identity: refused", async () => {
    const before = changes();
    await expect(forward({})).rejects.toMatchObject({ code: 403 });
    expect(changes()).toBe(before);
  });

  test("an admin's call and the platform's own call reach the orchestrator", async () => {
    const before = changes();
    expect(await forward({ caller: adminCaller })).toEqual([{ result: "204" }]);
    expect(await forward({ platform: true })).toEqual([{ result: "204" }]);
    expect(changes()).toBe(before + 2);
  });
});
