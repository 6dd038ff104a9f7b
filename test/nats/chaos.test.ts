/**
 * High availability under crashes (docs/deployment.md#high-availability): the platform as separate
 * processes over a real NATS, two gateways and two replicas each of accounts, engine, scheduler,
 * adapters and configuration (one process for the other services, one `store`). A steady mix of
 * reads, creates, job starts with a manual task, finishTask and schedule changes goes through both
 * gateways while one replica after another is SIGKILLed and started again, in turn across the
 * replicated services. The client retries only a refused connection (none here: no gateway dies).
 *
 * Asserts: no request failed; every acknowledged write is there afterwards, once; every started job
 * completes, and there is exactly one job per acknowledged start; every schedule due during the
 * kills fired exactly once.
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { ServiceBroker } from "moleculer";
import { createBroker } from "../../app/broker";
import { loadConfig } from "../../shared/config";
import { chain, manual, op } from "../support/engine-fixtures";
import { ADMIN_PASSWORD, login, tempDir } from "../support/platform";
import { eventually, freePort, spawnServices, type ServiceProcess } from "../support/processes";

const NATS_URL = process.env.NATS_URL!;
const REPLICATED = ["accounts", "engine", "scheduler", "adapters", "configuration"] as const;
const WORKERS = 4;
const KILL_EVERY_MS = 2500;
const DOWN_MS = 1000;
/** Fourteen processes starting at once on a busy two-core machine take a while. */
const STARTUP_MS = 150_000;
const KILLS = 10;
/** An action of each replicated service, to count its replicas by. */
const PROBE: Record<(typeof REPLICATED)[number], string> = {
  accounts: "accounts.createGroup",
  engine: "engine.startJob",
  scheduler: "scheduler.updateSchedule",
  adapters: "adapters.list",
  configuration: "configuration.createTree",
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Reply {
  status: number;
  body: any;
  text: string;
}

describe("chaos: replicas SIGKILLed in turn under a steady mix of requests", () => {
  const namespace = `chaos-${randomUUID().slice(0, 8)}`;
  const tag = namespace.slice(6);
  const common = {
    TRANSPORTER: NATS_URL,
    NAMESPACE: namespace,
    ADMIN_PASSWORD,
    ENCRYPTION_KEY: "a1".repeat(32),
    ENGINE_CLAIM_TTL_MS: "2000",
    ENGINE_SWEEP_INTERVAL_MS: "250",
    SCHEDULER_TICK_MS: "200",
    SCHEDULER_CLAIM_TTL_MS: "2000",
    SCHEDULE_MIN_INTERVAL_MS: "1000",
  };
  const procs = new Map<string, ServiceProcess>();
  const bases: string[] = [];
  let observer: ServiceBroker;
  let token = "";

  /** CHAOS_LOG_DIR=dir keeps every process's log there (at info), for a failure's post-mortem. */
  const logDir = process.env.CHAOS_LOG_DIR;
  const logs: string[] = [];
  const start = (name: string, env: Record<string, string>) => {
    const old = procs.get(name);
    if (old) logs.push(`==== ${name} (killed)\n${old.output()}`);
    procs.set(name, spawnServices({ ...common, ...(logDir && { LOG_LEVEL: "info" }), ...env }));
  };
  const replicasOf = (action: string) => observer.registry.getActionEndpoints(action)?.count() ?? 0;

  /** One HTTP request through a gateway; a refused connection goes to the next gateway. */
  let turn = 0;
  async function send(method: string, path: string, body?: unknown): Promise<Reply> {
    const first = turn++;
    for (let tries = 0; ; tries++) {
      const base = bases[(first + tries) % bases.length];
      try {
        const res = await fetch(base + path, {
          method,
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await res.text();
        let parsed: any;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        return { status: res.status, body: parsed, text };
      } catch (err: any) {
        if (err?.cause?.code === "ECONNREFUSED" && tries < bases.length) continue;
        return { status: 0, body: undefined, text: String(err?.cause?.code ?? err?.message) };
      }
    }
  }

  beforeAll(async () => {
    start("store", { SERVICES: "store", DATA_DIR: tempDir() });
    for (const service of REPLICATED)
      for (const replica of ["a", "b"]) start(`${service}-${replica}`, { SERVICES: service });
    start("others", { SERVICES: "forms,search,prebuilts,profiles,devices" });
    for (const name of ["g1", "g2"]) {
      const port = await freePort();
      start(name, { SERVICES: "gateway", PORT: String(port), HOST: "127.0.0.1" });
      bases.push(`http://127.0.0.1:${port}`);
    }
    observer = createBroker(
      loadConfig({ ...common, LOG_LEVEL: "warn", METRICS_PORT: "off", NODE_ID: `${namespace}-observer` }),
    );
    await observer.start();
    const expected: Record<string, number> = {
      ...Object.fromEntries(Object.values(PROBE).map((action) => [action, 2])),
      "forms.create": 1,
      "gateway.ready": 2,
    };
    const missing = () => Object.entries(expected).filter(([action, n]) => replicasOf(action) !== n);
    await eventually(
      async () => missing().length === 0,
      STARTUP_MS,
      `every process on the bus; missing ${JSON.stringify(missing().map(([a]) => [a, replicasOf(a)]))} nodes ${JSON.stringify(observer.registry.nodes.list({}).map((n: any) => n.id))} ${NATS_URL}\n${[
        ...procs.values(),
      ]
        .map((p) => p.output())
        .join("\n")}`,
    );
    for (const base of bases) {
      await eventually(async () => (await fetch(`${base}/ready`)).status === 200, 30_000, `${base} ready`);
    }
    token = await login(bases[0]);
    const approval = await send("POST", "/workflow_builder/workflows", {
      workflow: chain(`Chaos Approval ${tag}`, [["approve", manual("Approve")]]),
    });
    expect(approval.status).toBe(200);
    const tick = await send("POST", "/workflow_builder/workflows", {
      workflow: chain(`Chaos Tick ${tag}`, [["wait", op("delay", { time: 0 })]]),
    });
    expect(tick.status).toBe(200);
  }, STARTUP_MS + 60_000);

  afterAll(async () => {
    await observer?.stop();
    await Promise.all([...procs.values()].map((p) => p.stop("SIGKILL")));
    if (logDir) {
      for (const [name, p] of procs) logs.push(`==== ${name}\n${p.output()}`);
      fs.mkdirSync(logDir, { recursive: true });
      fs.writeFileSync(path.join(logDir, `${namespace}.log`), logs.join("\n"));
    }
  });

  test("no request fails, nothing is lost or doubled, every job completes, every schedule fires once", async () => {
    const failures: string[] = [];
    const groups: string[] = [];
    const trees: string[] = [];
    const jobs: string[] = [];
    const schedules = new Map<string, number>();
    let requests = 0;

    const expectOk = (what: string, reply: Reply): boolean => {
      requests++;
      if (reply.status === 200) return true;
      failures.push(`${what}: ${reply.status} ${reply.text.slice(0, 300)}`);
      return false;
    };

    /** Starts a job, waits for its manual task, finishes it: a person's part of a job. */
    async function runJob(): Promise<void> {
      const started = await send("POST", "/operations-manager/jobs/start", {
        workflow: `Chaos Approval ${tag}`,
        options: {},
      });
      if (!expectOk("start job", started)) return;
      const id = started.body._id as string;
      jobs.push(id);
      for (let i = 0; i < 100; i++) {
        const job = await send("GET", `/operations-manager/jobs/${id}`);
        if (!expectOk("read job", job)) return;
        if (job.body.data?.tasks?.approve?.status === "waiting") break;
        await sleep(100);
      }
      expectOk(
        "finishTask",
        await send("POST", "/workflow_engine/finishTask", { task_id: "approve", job_id: id, task_data: {} }),
      );
    }

    /** Creates an automation, then moves its schedule (operation 10) to a time during the kills. */
    async function schedule(name: string): Promise<void> {
      const created = await send("POST", "/automation_catalog/automations", {
        name,
        workflow: `Chaos Tick ${tag}`,
        nextRunAt: new Date(Date.now() + 60 * 60_000).toISOString(),
      });
      if (!expectOk("create automation", created)) return;
      const dueAt = Date.now() + 1500 + Math.floor(Math.random() * 2000);
      const moved = await send("PUT", `/automation_catalog/automations/${created.body._id}/schedule`, {
        options: { nextRunAt: new Date(dueAt).toISOString() },
      });
      if (expectOk("schedule change", moved)) schedules.set(created.body._id, dueAt);
    }

    let running = true;
    const worker = async (w: number) => {
      for (let i = 0; running; i++) {
        const name = `chaos-${tag}-${w}-${i}`;
        expectOk("list accounts", await send("GET", "/user-management/accounts?limit=1"));
        if (expectOk("create group", await send("POST", "/user-management/groups", { name })))
          groups.push(name);
        await runJob();
        expectOk("list adapters", await send("GET", "/adapters"));
        const tree = await send("POST", "/configuration_manager/configs", { name, deviceType: "ios" });
        if (expectOk("create golden config", tree)) trees.push(name);
        expectOk("list golden configs", await send("GET", "/configuration_manager/configs?limit=5"));
        if (i % 2 === 0) await schedule(name);
      }
    };
    const load = Array.from({ length: WORKERS }, (_, w) => worker(w));

    // One replica down at a time, in turn across the services; each comes back before its sibling goes.
    const kills: string[] = [];
    for (let k = 0; k < KILLS; k++) {
      await sleep(KILL_EVERY_MS - DOWN_MS);
      const service = REPLICATED[k % REPLICATED.length];
      const name = `${service}-${Math.floor(k / REPLICATED.length) % 2 === 0 ? "a" : "b"}`;
      // Two replicas on the bus (a restarted one takes a while on a busy machine): never both down.
      await eventually(async () => replicasOf(PROBE[service]) === 2, STARTUP_MS, `two ${service} replicas`);
      await procs.get(name)!.stop("SIGKILL");
      kills.push(name);
      await sleep(DOWN_MS);
      start(name, { SERVICES: service });
    }
    running = false;
    await Promise.all(load);

    expect(failures).toEqual([]);
    expect(kills).toHaveLength(KILLS);
    expect(requests).toBeGreaterThan(100);

    // Every acknowledged write is there, once.
    // Paged: a fast machine creates more than a page (1,000) of each in the chaos's time.
    const listedGroups: { name: string }[] = [];
    for (let total = Infinity; listedGroups.length < total;) {
      const page = await send("GET", `/user-management/groups?limit=1000&skip=${listedGroups.length}`);
      expect(page.status).toBe(200);
      total = page.body.total;
      listedGroups.push(...page.body.results);
      if (page.body.results.length === 0) break;
    }
    const groupCount = new Map<string, number>();
    for (const g of listedGroups) groupCount.set(g.name, (groupCount.get(g.name) ?? 0) + 1);
    expect(groups.filter((g) => groupCount.get(g) !== 1)).toEqual([]);
    const listedTrees: { name: string }[] = [];
    for (;;) {
      const page = await send("GET", `/configuration_manager/configs?limit=1000&skip=${listedTrees.length}`);
      expect(page.status).toBe(200);
      listedTrees.push(...page.body);
      if (page.body.length < 1000) break;
    }
    expect(trees.filter((t) => listedTrees.filter((l) => l.name === t).length !== 1)).toEqual([]);

    // One job per acknowledged start, each complete. Only totals are read: one job a page keeps
    // each answer small (a page of hundreds of jobs may exceed the bus's max_payload: 500
    // ANSWER_TOO_LARGE, app/oversized-answers.ts).
    const approvals = await send(
      "GET",
      `/operations-manager/jobs?equals[name]=${encodeURIComponent(`Chaos Approval ${tag}`)}&limit=1`,
    );
    expect({
      status: approvals.status,
      error: approvals.status === 200 ? undefined : approvals.text,
    }).toEqual({
      status: 200,
      error: undefined,
    });
    expect(approvals.body.metadata.total).toBe(jobs.length);
    await eventually(
      async () => {
        const list = await send(
          "GET",
          `/operations-manager/jobs?equals[name]=${encodeURIComponent(`Chaos Approval ${tag}`)}&equals[status]=complete&limit=1`,
        );
        return list.body.metadata.total === jobs.length;
      },
      30_000,
      "every started job to complete",
    );

    // Every schedule due during the run fired exactly once (the claim lease bounds how late).
    const lastDue = Math.max(0, ...schedules.values());
    await sleep(Math.max(0, lastDue + 5000 - Date.now()));
    for (const [id, dueAt] of schedules) {
      const runs = await send("GET", `/automation_catalog/automations/${id}/runs`);
      expect(runs.status).toBe(200);
      const fired = (runs.body.results as { dueAt: string; state: string }[]).filter(
        (r) => Date.parse(r.dueAt) === dueAt,
      );
      expect({ id, states: fired.map((r) => r.state) }).toEqual({ id, states: ["started"] });
    }
    const ticks = await send(
      "GET",
      `/operations-manager/jobs?equals[name]=${encodeURIComponent(`Chaos Tick ${tag}`)}&limit=1`,
    );
    expect(ticks.body.metadata.total).toBe(schedules.size);
  }, 150_000);
});
