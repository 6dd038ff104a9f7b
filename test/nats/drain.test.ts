/**
 * Rolling restarts over a real NATS, every part in its own process: the store, two accounts
 * replicas and two gateways. A steady stream of reads and writes goes through the gateways while
 * one process gets SIGTERM: no request fails and no acknowledged write is lost. The client retries
 * only a refused connection (the drained gateway has closed its listening socket), as a load
 * balancer does.
 */
import { randomUUID } from "node:crypto";
import { ADMIN_PASSWORD, login, tempDir } from "../support/platform";
import { eventually, freePort, spawnServices, type ServiceProcess } from "../support/processes";

const NATS_URL = process.env.NATS_URL!;

interface Outcome {
  ok: number;
  failures: string[];
  written: string[];
}

/** Workers writing a group then reading a page, round-robin over the gateways, until `stop`. */
async function steadyStream(
  bases: string[],
  token: string,
  stop: Promise<void>,
  workers = 6,
): Promise<Outcome> {
  const out: Outcome = { ok: 0, failures: [], written: [] };
  let done = false;
  void stop.then(() => (done = true));
  let turn = 0;
  const send = async (method: string, path: string, body?: unknown) => {
    const first = turn++;
    for (let tries = 0; ; tries++) {
      // A retry goes to the next gateway, as a load balancer that saw the refusal would send it.
      const base = bases[(first + tries) % bases.length];
      try {
        const res = await fetch(base + path, {
          method,
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: res.status, text: await res.text() };
      } catch (err: any) {
        // Only a refused connection is retried: the request never reached a server.
        if (err?.cause?.code === "ECONNREFUSED" && tries < bases.length) continue;
        return { status: 0, text: String(err?.cause?.code ?? err?.message) };
      }
    }
  };
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      for (let i = 0; !done; i++) {
        const name = `drain-${w}-${i}-${randomUUID().slice(0, 6)}`;
        const wrote = await send("POST", "/user-management/groups", { name });
        if (wrote.status === 200) out.written.push(name);
        else out.failures.push(`POST ${wrote.status} ${wrote.text.slice(0, 200)}`);
        const read = await send("GET", "/user-management/accounts?limit=1");
        if (read.status === 200) out.ok++;
        else out.failures.push(`GET ${read.status} ${read.text.slice(0, 200)}`);
      }
    }),
  );
  return out;
}

describe("rolling restart: SIGTERM mid-stream loses nothing", () => {
  const namespace = `t-${randomUUID().slice(0, 8)}`;
  const common = { TRANSPORTER: NATS_URL, NAMESPACE: namespace, ADMIN_PASSWORD, SHUTDOWN_TIMEOUT: "5000" };
  const procs: Record<string, ServiceProcess> = {};
  const bases: string[] = [];
  let token: string;

  const startGateway = async (name: string) => {
    const port = await freePort();
    procs[name] = spawnServices({ ...common, SERVICES: "gateway", PORT: String(port), HOST: "127.0.0.1" });
    const base = `http://127.0.0.1:${port}`;
    // `/ready` wants every service behind the routes; this deployment has accounts only.
    await eventually(
      async () => (await login(base).then(() => true)) && true,
      20_000,
      `${name} answering logins`,
    );
    return base;
  };

  beforeAll(async () => {
    procs.store = spawnServices({ ...common, SERVICES: "store", DATA_DIR: tempDir() });
    procs.a1 = spawnServices({ ...common, SERVICES: "accounts" });
    procs.a2 = spawnServices({ ...common, SERVICES: "accounts" });
    bases.push(await startGateway("g1"), await startGateway("g2"));
    token = await login(bases[0]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(Object.values(procs).map((p) => p.stop("SIGKILL")));
  });

  async function listedGroups(): Promise<Set<string>> {
    const names = new Set<string>();
    for (let skip = 0; ; skip += 1000) {
      const res = await fetch(`${bases[1]}/user-management/groups?skip=${skip}&limit=1000`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const page = (await res.json()) as { results: { name: string }[]; total: number };
      for (const g of page.results) names.add(g.name);
      if (page.results.length === 0 || skip + page.results.length >= page.total) return names;
    }
  }

  test("one of two accounts replicas: zero failed requests, zero lost writes", async () => {
    let stopped!: () => void;
    const stop = new Promise<void>((resolve) => (stopped = resolve));
    const running = steadyStream(bases, token, stop);
    await new Promise((r) => setTimeout(r, 800));
    const exit = procs.a1.stop("SIGTERM");
    await new Promise((r) => setTimeout(r, 1500));
    stopped();
    const outcome = await running;
    await exit;
    expect(procs.a1.child.exitCode).toBe(0);
    expect(outcome.failures).toEqual([]);
    expect(outcome.ok).toBeGreaterThan(20);
    const stored = await listedGroups();
    expect(outcome.written.filter((name) => !stored.has(name))).toEqual([]);
  }, 30_000);

  test("one of two gateways: zero failed requests (the client retries only a refused connection)", async () => {
    let stopped!: () => void;
    const stop = new Promise<void>((resolve) => (stopped = resolve));
    const running = steadyStream(bases, token, stop);
    await new Promise((r) => setTimeout(r, 800));
    const exit = procs.g1.stop("SIGTERM");
    await new Promise((r) => setTimeout(r, 1500));
    stopped();
    const outcome = await running;
    await exit;
    expect(procs.g1.child.exitCode).toBe(0);
    expect(outcome.failures).toEqual([]);
    expect(outcome.ok).toBeGreaterThan(20);
    const stored = await listedGroups();
    expect(outcome.written.filter((name) => !stored.has(name))).toEqual([]);
  }, 30_000);
});
