/**
 * Search latency: `npm run bench:search` (docs/search.md).
 *
 * The whole platform on one broker with the embedded store, seeded with BENCH_OBJECTS (100,000)
 * objects spread over every searchable collection (bench/search/data.ts), then POST /search/find
 * through the gateway, one request at a time, for each query of the mix, BENCH_ROUNDS times. The
 * same searches run as a plain in-memory filter over the same objects (bench/search/baseline.ts) in
 * the same run, and every answer's counts and first page are checked against it. Table on stdout,
 * JSON in bench/results/search.json.
 *
 * The machine may be shared: the run first waits (up to BENCH_QUIET_WAIT s) for a quiet second, and
 * records the share of CPU other processes used while it measured.
 *
 * Env: BENCH_OBJECTS (100000), BENCH_ROUNDS (15), BENCH_WARMUP (2 rounds), BENCH_QUIET_WAIT (20),
 * BENCH_MAX_S (600: the run aborts past it), BENCH_SEED (42).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ServiceBroker } from "moleculer";
import type { AddressInfo } from "node:net";
import { loadConfig } from "../shared/config";
import { createBroker } from "../app/broker";
import { acquireStore } from "../shared/runtime";
import { serviceSchemas } from "../app/services";
import { inMemorySearch, type BaselineGroup } from "./search/baseline";
import { waitQuiet, watchCpu } from "./support/cpu";
import { makeCatalog, makeQueries, makeTags, MIX, type BenchObject, type BenchQuery } from "./search/data";
import { SEARCHABLES } from "../shared/search-registry";
import { intEnv } from "./support/env";
import { runBench } from "./support/main";
import { resultsDir } from "./support/report";

const OBJECTS = intEnv("BENCH_OBJECTS", 100_000, 100);
const ROUNDS = intEnv("BENCH_ROUNDS", 15, 1);
const WARMUP = intEnv("BENCH_WARMUP", 2, 0);
const MAX_S = intEnv("BENCH_MAX_S", 600, 10);
const SEED = intEnv("BENCH_SEED", 42, 0);
const QUIET_WAIT_S = intEnv("BENCH_QUIET_WAIT", 20, 0);
const ADMIN_PASSWORD = "bench-admin-password";
const RESULTS = path.join(resultsDir(), "search.json");

// Bounded: whatever happens, the run ends (and its temp dir goes) within BENCH_MAX_S.
const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), "search-bench-"));
process.once("exit", () => fs.rmSync(tmpRoot, { recursive: true, force: true }));
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => process.exit(130));
setTimeout(() => {
  console.error(`search bench: over BENCH_MAX_S=${MAX_S} s, aborting`);
  process.exit(2);
}, MAX_S * 1000).unref();

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
const round = (ms: number) => Math.round(ms * 100) / 100;

function summary(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
  return {
    n: sorted.length,
    p50: round(percentile(sorted, 50)),
    p99: round(percentile(sorted, 99)),
    mean: round(mean),
  };
}

async function startPlatform(dataDir: string): Promise<{ broker: ServiceBroker; baseUrl: string }> {
  // The store service reads DATA_DIR from the process environment, not its broker's config.
  process.env.DATA_DIR = dataDir;
  const config = loadConfig({
    PORT: "0",
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    ADMIN_PASSWORD,
    RATE_LIMIT: "0",
    LOG_LEVEL: "warn",
  });
  const broker = createBroker(config);
  for (const schema of serviceSchemas(config)) broker.createService(schema);
  await broker.start();
  const gateway = broker.getLocalService("gateway") as unknown as { server: { address(): AddressInfo } };
  return { broker, baseUrl: `http://127.0.0.1:${gateway.server.address().port}` };
}

async function post(baseUrl: string, token: string, url: string, body: unknown) {
  const res = await fetch(baseUrl + url, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`POST ${url} -> ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/**
 * The catalog with what each searchable collection held before the seed (the platform's own
 * documents, such as its built-in config parsers), as the baseline's objects: the search finds
 * those too. Not seeded again.
 */
async function withPreexisting(
  store: Awaited<ReturnType<typeof acquireStore>>,
  catalog: Record<string, BenchObject[]>,
): Promise<Record<string, BenchObject[]>> {
  const merged: Record<string, BenchObject[]> = { ...catalog };
  for (const entry of SEARCHABLES) {
    const held = await store.collection(entry.collection).find({});
    if (held.length === 0) continue;
    merged[entry.collection] = [
      ...(catalog[entry.collection] ?? []),
      ...held.map((doc) => ({
        ...doc,
        _id: String(doc._id),
        name: String(doc.name ?? ""),
        description: String(doc.description ?? ""),
        tags: Array.isArray(doc.tags) ? doc.tags.map(String) : [],
      })),
    ];
  }
  return merged;
}

/** Our answer reduced to what the baseline computes: type, count and the first page's names. */
const reduce = (groups: { type: string; count: number; results: { name: string }[] }[]): BaselineGroup[] =>
  groups.map((g) => ({ type: g.type, count: g.count, names: g.results.map((r) => r.name) }));

async function main(): Promise<void> {
  const started = Date.now();
  const tags = makeTags();
  const catalog = makeCatalog(OBJECTS, tags, SEED);
  const queries: BenchQuery[] = [...makeQueries(catalog), { kind: "empty (every object)", text: "" }];

  let searched = catalog;
  const { broker, baseUrl } = await startPlatform(path.join(tmpRoot, "data"));
  try {
    process.stdout.write(`seeding ${OBJECTS} objects and ${tags.length} tags ... `);
    const store = await acquireStore(broker);
    try {
      // What the platform holds before the seed (its built-in config parsers) is searched too.
      searched = await withPreexisting(store, catalog);
      await store.collection("tags").insertMany(tags.map((t) => ({ ...t, nameKey: t.name.toLowerCase() })));
      for (const [collection, docs] of Object.entries(catalog))
        for (let i = 0; i < docs.length; i += 5000)
          await store.collection(collection).insertMany(docs.slice(i, i + 5000));
    } finally {
      await store.close();
    }
    console.log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    const login = await fetch(`${baseUrl}/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ user: { username: "admin", password: ADMIN_PASSWORD } }),
    });
    const token = await login.text();
    if (login.status !== 200) throw new Error(`login failed: ${login.status}`);

    // Same answers first: counts and first pages equal the in-memory filter's, for every query.
    for (const q of queries) {
      const ours = reduce(await post(baseUrl, token, "/search/find", { data: { text: q.text } }));
      const expected = inMemorySearch(searched, tags, q.text);
      if (JSON.stringify(ours) !== JSON.stringify(expected))
        throw new Error(
          `answers differ for "${q.text}":\nours ${JSON.stringify(ours)}\nexpected ${JSON.stringify(expected)}`,
        );
    }

    const ours = new Map<BenchQuery, number[]>(queries.map((q) => [q, []]));
    const base = new Map<BenchQuery, number[]>(queries.map((q) => [q, []]));
    const busyBefore = await waitQuiet(QUIET_WAIT_S * 1000);
    const cpu = watchCpu(() => []);
    for (let r = -WARMUP; r < ROUNDS; r++) {
      for (const q of queries) {
        let t = performance.now();
        await post(baseUrl, token, "/search/find", { data: { text: q.text, pageNumber: 0, nPerPage: 10 } });
        const oursMs = performance.now() - t;
        t = performance.now();
        inMemorySearch(searched, tags, q.text);
        const baseMs = performance.now() - t;
        if (r >= 0) {
          ours.get(q)!.push(oursMs);
          base.get(q)!.push(baseMs);
        }
      }
      process.stdout.write(r < 0 ? "w" : ".");
    }
    const { machine, others } = cpu.stop();
    console.log();

    const matches = (q: BenchQuery) =>
      inMemorySearch(searched, tags, q.text).reduce((n, g) => n + g.count, 0);
    const perQuery = queries.map((q) => {
      const o = summary(ours.get(q)!);
      const b = summary(base.get(q)!);
      return {
        kind: q.kind,
        text: q.text,
        matches: matches(q),
        ours: o,
        inMemory: b,
        ratioP50: round(o.p50 / b.p50),
      };
    });
    const all = summary([...ours.values()].flat());
    const allBase = summary([...base.values()].flat());
    const result = {
      date: new Date().toISOString(),
      node: process.version,
      cpus: `${os.cpus().length} x ${os.cpus()[0]?.model ?? "?"}`,
      // Shares of all cores: busy before measuring, and used by other processes while measuring.
      cpu: { busyBeforeStart: busyBefore, machineWhileMeasuring: machine, othersWhileMeasuring: others },
      objects: OBJECTS,
      collections: Object.fromEntries(Object.entries(catalog).map(([c, docs]) => [c, docs.length])),
      mix: MIX,
      tags: tags.length,
      rounds: ROUNDS,
      requestsMeasured: all.n,
      overall: {
        ours: all,
        inMemory: allBase,
        ratioP50: round(all.p50 / allBase.p50),
        ratioP99: round(all.p99 / allBase.p99),
      },
      perQuery,
    };

    console.log(
      `\nPOST /search/find over ${OBJECTS} objects (embedded store, in-process gateway), ${ROUNDS} rounds`,
    );
    console.log(
      "kind                   text                          matches   ours p50/p99 ms   in-memory p50/p99 ms   ratio p50",
    );
    for (const q of perQuery)
      console.log(
        `${q.kind.padEnd(22)} ${JSON.stringify(q.text).padEnd(29)} ${String(q.matches).padStart(7)}   ` +
          `${`${q.ours.p50} / ${q.ours.p99}`.padStart(15)}   ${`${q.inMemory.p50} / ${q.inMemory.p99}`.padStart(20)}   ${String(q.ratioP50).padStart(9)}`,
      );
    console.log(
      `${"overall".padEnd(22)} ${"".padEnd(29)} ${"".padStart(7)}   ${`${all.p50} / ${all.p99}`.padStart(15)}   ` +
        `${`${allBase.p50} / ${allBase.p99}`.padStart(20)}   ${String(result.overall.ratioP50).padStart(9)}`,
    );
    console.log(
      `CPU used by other processes while measuring: ${others === null ? "unknown" : `${Math.round(others * 100)}%`}`,
    );
    fs.mkdirSync(path.dirname(RESULTS), { recursive: true });
    fs.writeFileSync(RESULTS, JSON.stringify(result, null, 2) + "\n");
    console.log(`written ${path.relative(process.cwd(), RESULTS)}`);
  } finally {
    await broker.stop();
  }
}

runBench(main);
