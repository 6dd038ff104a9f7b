/**
 * Each engine replica keeps the workflows its job starts read (services/engine/workflows.repository.ts
 * toRun), over a real NATS: the store, accounts and the scheduler in one broker, two engine
 * replicas, the gateway in a fourth. Starts read the store once per replica, not once per start;
 * and every write is obeyed by the very next start on either replica (an update, a delete, a
 * re-create, a rename), while a change written where no event announces it (as a replica cut off
 * from the bus would miss it) is obeyed within WORKFLOW_TTL_MS.
 */
import { randomUUID } from "node:crypto";
import { connect, type NatsConnection } from "nats";
import {
  client,
  expectError,
  login,
  startPlatform,
  tempDir,
  type Client,
  type Platform,
} from "../support/platform";
import { chain } from "../support/engine-builders";
import { withStore } from "../support/engine-fixtures";
import { WORKFLOW_TTL_MS } from "../../services/engine/workflows.repository";
import { WORKFLOWS_CHANGED_EVENT } from "../../shared/contracts/events";

const NATS_URL = process.env.NATS_URL!;

describe("workflows kept by two engine replicas over NATS", () => {
  const namespace = `t-${randomUUID().slice(0, 8)}`;
  const env = { TRANSPORTER: NATS_URL, NAMESPACE: namespace, SCHEDULER_TICK_MS: "100000" };
  const platforms: Platform[] = [];
  let storeNode: Platform;
  let engines: Platform[];
  let api: Client;
  let bus: NatsConnection;
  /** The store's node's requests as they crossed the bus: action and params. */
  const requests: {
    action: string;
    sender: string;
    params: { collection?: string; filter?: { name?: string } };
  }[] = [];

  beforeAll(async () => {
    storeNode = await startPlatform({
      services: ["store", "accounts", "scheduler"],
      dataDir: tempDir(),
      env,
    });
    platforms.push(storeNode);
    engines = [
      await startPlatform({ services: ["engine"], env }),
      await startPlatform({ services: ["engine"], env }),
    ];
    platforms.push(...engines);
    const front = await startPlatform({ services: ["gateway"], env });
    platforms.push(front);
    await front.broker.waitForServices(["accounts", "engine"], 10_000);
    api = client(front.baseUrl, await login(front.baseUrl));
    // Each replica must know the other listens (its discovery), or its broadcast skips it: the
    // case of a replica that joins as a write is made, covered by the TTL.
    const knowsBoth = (p: Platform) =>
      p.broker.registry.events.getAllEndpoints(WORKFLOWS_CHANGED_EVENT).length === engines.length;
    for (let waited = 0; !engines.every(knowsBoth); waited += 20) {
      if (waited > 10_000) throw new Error("the engine replicas did not discover each other");
      await new Promise((r) => setTimeout(r, 20));
    }
    bus = await connect({ servers: NATS_URL });
    const sub = bus.subscribe(`MOL-${namespace}.REQ.${storeNode.broker.nodeID}`);
    void (async () => {
      for await (const m of sub) requests.push(JSON.parse(Buffer.from(m.data).toString("utf8")));
    })();
    await bus.flush();
  }, 60_000);

  afterAll(async () => {
    await bus?.close();
    for (const p of platforms.reverse()) await p.stop();
  });

  /** How many times workflow `name` was read from the store, by the nodes that read it. */
  const storeReads = (name: string) =>
    requests.filter(
      (r) =>
        r.action === "store.findOne" &&
        r.params?.collection === "workflows" &&
        r.params.filter?.name === name,
    );

  /** The descriptions of `count` jobs started one after the other (the replicas take turns). */
  async function startDescriptions(name: string, count = 4): Promise<string[]> {
    const seen: string[] = [];
    for (let i = 0; i < count; i++) {
      const reply = await api.post("/operations-manager/jobs/start", { workflow: name, options: {} });
      expect(reply.status).toBe(200);
      seen.push(reply.body.description);
    }
    return seen;
  }

  const create = async (name: string, description: string) =>
    expect(
      (await api.post("/workflow_builder/workflows", { workflow: chain(name, [], { description }) })).status,
    ).toBe(200);

  test("starts read a workflow once per replica, not once per start", async () => {
    await create("kept-reads", "one");
    expect(await startDescriptions("kept-reads", 10)).toEqual(Array(10).fill("one"));
    await bus.flush();
    const bySender = new Map<string, number>();
    for (const r of storeReads("kept-reads")) bySender.set(r.sender, (bySender.get(r.sender) ?? 0) + 1);
    // Both replicas took starts, and each read the store once (twice if its keep ran out meanwhile).
    expect([...bySender.keys()].sort()).toEqual(engines.map((p) => p.broker.nodeID).sort());
    for (const count of bySender.values()) expect(count).toBeLessThanOrEqual(2);
  });

  test("an update is obeyed by the very next start on either replica", async () => {
    await create("kept-update", "before");
    expect(await startDescriptions("kept-update")).toEqual(["before", "before", "before", "before"]);
    const update = chain("kept-update", [], { description: "after" });
    expect((await api.put("/workflow_builder/workflows/kept-update", { workflow: update })).status).toBe(200);
    expect(await startDescriptions("kept-update")).toEqual(["after", "after", "after", "after"]);
  });

  test("a delete is obeyed at once on either replica; the workflow re-created starts as it is now", async () => {
    await create("kept-gone", "first");
    expect(await startDescriptions("kept-gone")).toEqual(["first", "first", "first", "first"]);
    expect((await api.delete("/workflow_builder/workflows/kept-gone?force=true")).status).toBe(200);
    for (let i = 0; i < 4; i++)
      expectError(
        await api.post("/operations-manager/jobs/start", { workflow: "kept-gone", options: {} }),
        404,
        "NOT_FOUND",
      );
    await create("kept-gone", "second");
    expect(await startDescriptions("kept-gone")).toEqual(["second", "second", "second", "second"]);
  });

  test("a rename is obeyed at once: the old name is gone on either replica", async () => {
    await create("kept-old-name", "renamed");
    await startDescriptions("kept-old-name");
    const renamed = chain("kept-new-name", [], { description: "renamed" });
    expect((await api.put("/workflow_builder/workflows/kept-old-name", { workflow: renamed })).status).toBe(
      200,
    );
    for (let i = 0; i < 4; i++)
      expectError(
        await api.post("/operations-manager/jobs/start", { workflow: "kept-old-name", options: {} }),
        404,
        "NOT_FOUND",
      );
    expect(await startDescriptions("kept-new-name")).toEqual(["renamed", "renamed", "renamed", "renamed"]);
  });

  test("a change no event announced is obeyed within WORKFLOW_TTL_MS", async () => {
    await create("kept-ttl", "announced");
    await startDescriptions("kept-ttl");
    // Written to the store directly: no replica is told, as when one missed the change's event.
    await withStore(storeNode.broker, (store) =>
      store.collection("workflows").updateOne({ name: "kept-ttl" }, { $set: { description: "unannounced" } }),
    );
    const written = Date.now();
    let seen = await startDescriptions("kept-ttl", 2);
    while (seen.some((d) => d !== "unannounced") && Date.now() - written < WORKFLOW_TTL_MS + 1000) {
      await new Promise((r) => setTimeout(r, 50));
      seen = await startDescriptions("kept-ttl", 2);
    }
    expect(seen).toEqual(["unannounced", "unannounced"]);
    expect(Date.now() - written).toBeLessThan(WORKFLOW_TTL_MS + 1000);
  });
});
