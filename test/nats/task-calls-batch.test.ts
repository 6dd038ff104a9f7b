/**
 * An engine replica's task calls to one node in one turn travel as one `$taskcalls.batch` request
 * (shared/task-calls/), over a real NATS: the tasks on one broker, the calls made from another.
 * Each call must be answered as it would be alone: its own value, its own error and timeout, and
 * its own caller's rights (a user lacking a role is refused exactly as alone; the batch never lends
 * anyone else's identity). A node without the service gets single calls; a node that dies with a
 * batch in hand fails each call as it would fail alone.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { Errors, ServiceBroker, type Context } from "moleculer";
import { brokerOptions } from "../../app/broker-options";
import { loadConfig } from "../../shared/config";
import { bindConfig } from "../../shared/runtime";
import { TaskCalls } from "../../shared/task-calls/send";
import { taskCallsService } from "../../shared/task-calls/serve";
import { TASK_CALLS_ACTION } from "../../shared/task-calls/protocol";

const NATS_URL = process.env.NATS_URL!;
const TASK = { summary: "test task", variables: { incoming: {}, outgoing: {} } };

const admin = () => ({
  accountId: "a1",
  username: "root",
  roles: ["admin"],
  groupIds: [],
  resolvedAt: Date.now(),
});
const reader = () => ({
  accountId: "a2",
  username: "rita",
  roles: ["apiread"],
  groupIds: [],
  resolvedAt: Date.now(),
});
const asUser = (caller: Record<string, unknown>, timeout = 5_000) => ({ meta: { caller }, timeout });

/** What a test compares of two errors: everything Moleculer carries across the bus. */
const shapeOf = (err: any) => ({
  name: err?.name,
  message: err?.message,
  code: err?.code,
  type: err?.type,
  data: err?.data,
});

async function failure(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error("expected the call to fail");
}

function platformBroker(namespace: string, nodeID: string): ServiceBroker {
  const config = loadConfig({ TRANSPORTER: NATS_URL, NAMESPACE: namespace, METRICS_PORT: "off" });
  const broker = new ServiceBroker({ ...brokerOptions(config), nodeID, logger: false });
  bindConfig(broker, config);
  return broker;
}

/** What the task node's actions saw: the caller each ran as and the node each came from. */
const seen: { action: string; user?: string; from?: string }[] = [];

function taskServices(broker: ServiceBroker): void {
  const record = (action: string) => (ctx: Context) =>
    seen.push({ action, user: (ctx.meta as any).caller?.username, from: ctx.nodeID ?? undefined });
  broker.createService({
    name: "tc",
    actions: {
      echo: {
        task: TASK,
        handler(ctx: Context<{ n: number }>) {
          record("tc.echo")(ctx);
          return { n: ctx.params.n, as: (ctx.meta as any).caller?.username ?? "platform" };
        },
      },
      fail: {
        task: TASK,
        handler(ctx: Context<{ n: number }>) {
          record("tc.fail")(ctx);
          throw new Errors.MoleculerClientError(`refused ${ctx.params.n}`, 422, "BAD_THING", {
            n: ctx.params.n,
          });
        },
      },
      slow: {
        task: TASK,
        handler: (ctx: Context<{ ms: number }>) =>
          new Promise((r) => setTimeout(() => r({ slept: ctx.params.ms }), ctx.params.ms)),
      },
      // Not a workflow task: a batch must not reach it.
      inner: { handler: (ctx: Context) => (record("tc.inner")(ctx), { reached: true }) },
    } as any,
  });
  // devices.find is a contract action with roles (admin, engineering, support) and a workflow task:
  // the authorization middleware checks it by name, so this stand-in gets the real rule.
  broker.createService({
    name: "devices",
    actions: { find: { task: TASK, handler: (ctx: Context) => (record("devices.find")(ctx), []) } } as any,
  });
}

describe("task calls several to a request", () => {
  const namespace = `taskcalls-${randomUUID().slice(0, 8)}`;
  let tasks: ServiceBroker;
  let engine: ServiceBroker;
  let calls: TaskCalls;
  let sent: jest.SpyInstance;

  beforeAll(async () => {
    tasks = platformBroker(namespace, `${namespace}-tasks`);
    tasks.createService(taskCallsService());
    taskServices(tasks);
    engine = platformBroker(namespace, `${namespace}-engine`);
    await Promise.all([tasks.start(), engine.start()]);
    await engine.waitForServices(["tc", "devices", "$taskcalls"], 10_000);
    calls = new TaskCalls(engine);
    sent = jest.spyOn(engine, "call");
  });

  afterAll(async () => {
    await engine?.stop();
    await tasks?.stop();
  });

  beforeEach(() => {
    sent.mockClear();
    seen.length = 0;
  });

  const actionsSent = () => sent.mock.calls.map((c) => c[0] as string);

  test("calls of one turn go as one request, each answered with its own result and caller", async () => {
    const answers = await Promise.all(
      [1, 2, 3, 4, 5].map((n) =>
        calls.call("tc.echo", { n }, asUser(n % 2 ? admin() : { ...admin(), username: `u${n}` })),
      ),
    );
    expect(answers).toEqual([
      { n: 1, as: "root" },
      { n: 2, as: "u2" },
      { n: 3, as: "root" },
      { n: 4, as: "u4" },
      { n: 5, as: "root" },
    ]);
    expect(actionsSent()).toEqual([TASK_CALLS_ACTION]);
    // Each ran as if it had come alone from the engine's node.
    expect(seen.map((s) => s.from)).toEqual(Array(5).fill(engine.nodeID));
  });

  test("a lone call goes alone", async () => {
    expect(await calls.call("tc.echo", { n: 7 }, asUser(admin()))).toEqual({ n: 7, as: "root" });
    expect(actionsSent()).toEqual(["tc.echo"]);
  });

  test("each call's error is its own, as alone, and its neighbours are answered", async () => {
    const alone = await failure(engine.call("tc.fail", { n: 2 }, asUser(admin())));
    sent.mockClear();
    const [ok1, bad, ok2] = await Promise.allSettled([
      calls.call("tc.echo", { n: 1 }, asUser(admin())),
      calls.call("tc.fail", { n: 2 }, asUser(admin())),
      calls.call("tc.echo", { n: 3 }, asUser(admin())),
    ]);
    expect(actionsSent()).toEqual([TASK_CALLS_ACTION]);
    expect(ok1).toEqual({ status: "fulfilled", value: { n: 1, as: "root" } });
    expect(ok2).toEqual({ status: "fulfilled", value: { n: 3, as: "root" } });
    expect(bad.status).toBe("rejected");
    const err = (bad as PromiseRejectedResult).reason;
    expect(err).toBeInstanceOf(Errors.MoleculerClientError);
    expect(shapeOf(err)).toEqual(shapeOf(alone));
    expect(shapeOf(err)).toMatchObject({ code: 422, type: "BAD_THING", data: { n: 2 } });
  });

  test("each call keeps its own timeout: the slow one times out as alone, the others are answered", async () => {
    const alone = await failure(engine.call("tc.slow", { ms: 1_500 }, asUser(admin(), 200)));
    sent.mockClear();
    const [fast, slow, patient] = await Promise.allSettled([
      calls.call("tc.slow", { ms: 10 }, asUser(admin(), 200)),
      calls.call("tc.slow", { ms: 1_500 }, asUser(admin(), 200)),
      calls.call("tc.slow", { ms: 400 }, asUser(admin(), 3_000)),
    ]);
    expect(actionsSent()).toEqual([TASK_CALLS_ACTION]);
    expect(fast).toEqual({ status: "fulfilled", value: { slept: 10 } });
    expect(patient).toEqual({ status: "fulfilled", value: { slept: 400 } });
    const err = (slow as PromiseRejectedResult).reason;
    expect(err).toBeInstanceOf(Errors.RequestTimeoutError);
    expect(shapeOf(err)).toEqual(shapeOf(alone));
    expect(err.data).toEqual({ action: "tc.slow", nodeID: tasks.nodeID });
  });

  test("a user lacking the role is refused exactly as alone; the admin beside it is answered", async () => {
    const alone = await failure(engine.call("devices.find", {}, asUser(reader())));
    expect(shapeOf(alone)).toMatchObject({ code: 403, data: { action: "devices.find" } });
    sent.mockClear();
    seen.length = 0;
    const [refused, allowed, nobody] = await Promise.allSettled([
      calls.call("devices.find", {}, asUser(reader())),
      calls.call("devices.find", {}, asUser(admin())),
      calls.call("devices.find", {}, { meta: {}, timeout: 5_000 }),
    ]);
    expect(actionsSent()).toEqual([TASK_CALLS_ACTION]);
    expect(shapeOf((refused as PromiseRejectedResult).reason)).toEqual(shapeOf(alone));
    expect(allowed).toEqual({ status: "fulfilled", value: [] });
    // Neither a user nor the platform: refused, whatever identity the batch itself was sent with.
    expect(shapeOf((nobody as PromiseRejectedResult).reason)).toMatchObject({ code: 403 });
    expect(seen).toEqual([{ action: "devices.find", user: "root", from: engine.nodeID }]);
  });

  test("a batch is the platform's own: sent as a user or with no identity, it runs nothing", async () => {
    const batch = {
      calls: [{ action: "devices.find", params: {}, meta: { caller: admin() }, timeout: 5_000 }],
    };
    for (const meta of [{ caller: reader() }, {}, { platform: true, caller: reader() }]) {
      const err = await failure(engine.call(TASK_CALLS_ACTION, batch, { meta, nodeID: tasks.nodeID }));
      expect(shapeOf(err)).toMatchObject({ code: 403 });
    }
    expect(seen).toEqual([]);
  });

  test("a batch reaches workflow tasks only: an internal action in it is refused, alone", async () => {
    const batch = {
      calls: [
        { action: "tc.inner", params: {}, meta: { caller: admin() }, timeout: 5_000 },
        { action: "tc.echo", params: { n: 9 }, meta: { caller: admin() }, timeout: 5_000 },
      ],
    };
    const outcomes = await engine.call<any[], typeof batch>(TASK_CALLS_ACTION, batch, {
      meta: { platform: true },
      nodeID: tasks.nodeID,
    });
    expect(outcomes[0].error).toMatchObject({ code: 403, message: "'tc.inner' is not a workflow task" });
    expect(outcomes[1]).toEqual({ value: { n: 9, as: "root" } });
    expect(seen.map((s) => s.action)).toEqual(["tc.echo"]);
  });
});

describe("task calls to a node without the batch service (a rolling upgrade)", () => {
  const namespace = `taskcalls-old-${randomUUID().slice(0, 8)}`;
  let tasks: ServiceBroker;
  let engine: ServiceBroker;

  beforeAll(async () => {
    tasks = platformBroker(namespace, `${namespace}-tasks`);
    taskServices(tasks);
    engine = platformBroker(namespace, `${namespace}-engine`);
    await Promise.all([tasks.start(), engine.start()]);
    await engine.waitForServices(["tc"], 10_000);
  });

  afterAll(async () => {
    await engine?.stop();
    await tasks?.stop();
  });

  test("each call goes alone and is answered", async () => {
    const calls = new TaskCalls(engine);
    const sent = jest.spyOn(engine, "call");
    const answers = await Promise.all([1, 2, 3].map((n) => calls.call("tc.echo", { n }, asUser(admin()))));
    expect(answers.map((a: any) => a.n)).toEqual([1, 2, 3]);
    expect(sent.mock.calls.map((c) => c[0])).toEqual(["tc.echo", "tc.echo", "tc.echo"]);
  });
});

/** A task node in a process of its own, so that it can be SIGKILLed with calls in hand. */
function spawnTaskNode(namespace: string, nodeID: string): Promise<ChildProcess> {
  const dist = path.resolve(__dirname, "../../dist");
  const script = `
    const { ServiceBroker } = require("moleculer");
    const { brokerOptions } = require(${JSON.stringify(`${dist}/app/broker-options`)});
    const { loadConfig } = require(${JSON.stringify(`${dist}/shared/config`)});
    const { taskCallsService } = require(${JSON.stringify(`${dist}/shared/task-calls/serve`)});
    const config = loadConfig({ TRANSPORTER: ${JSON.stringify(NATS_URL)}, NAMESPACE: ${JSON.stringify(namespace)}, METRICS_PORT: "off" });
    const broker = new ServiceBroker({ ...brokerOptions(config), nodeID: ${JSON.stringify(nodeID)}, logger: false });
    broker.createService(taskCallsService());
    broker.createService({ name: "tc", actions: { hang: { task: ${JSON.stringify(TASK)}, handler: () => new Promise(() => {}) } } });
    broker.start().then(() => console.log("ready"));
  `;
  const child = spawn(process.execPath, ["-e", script], {
    cwd: path.resolve(__dirname, "../.."),
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d) => String(d).includes("ready") && resolve(child));
    child.once("exit", (code) => reject(new Error(`task node exited ${code}`)));
  });
}

describe("a task node that dies with a batch in hand", () => {
  const namespace = `taskcalls-dead-${randomUUID().slice(0, 8)}`;
  let engine: ServiceBroker;
  let child: ChildProcess | undefined;

  afterAll(async () => {
    child?.kill("SIGKILL");
    await engine?.stop();
  });

  test("each call fails as a lone call to it fails: the same error, naming its own action", async () => {
    const nodeID = `${namespace}-tasks`;
    child = await spawnTaskNode(namespace, nodeID);
    engine = platformBroker(namespace, `${namespace}-engine`);
    await engine.start();
    await engine.waitForServices(["tc", "$taskcalls"], 10_000);
    const calls = new TaskCalls(engine);
    const sent = jest.spyOn(engine, "call");
    const alone = failure(engine.call("tc.hang", {}, asUser(admin(), 20_000)));
    const batched = [1, 2, 3].map(() => failure(calls.call("tc.hang", {}, asUser(admin(), 20_000))));
    await new Promise((r) => setTimeout(r, 300));
    expect(sent.mock.calls.map((c) => c[0])).toEqual(["tc.hang", TASK_CALLS_ACTION]);
    child.kill("SIGKILL");
    const started = Date.now();
    const [lone, ...each] = await Promise.all([alone, ...batched]);
    // Found dead by app/departed-nodes.ts within a second or two, not after the 20 s timeout.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(lone).toBeInstanceOf(Errors.RequestRejectedError);
    expect(lone.data).toEqual({ action: "tc.hang", nodeID });
    for (const err of each) {
      expect(err).toBeInstanceOf(Errors.RequestRejectedError);
      expect(shapeOf(err)).toEqual(shapeOf(lone));
    }
  });
});
