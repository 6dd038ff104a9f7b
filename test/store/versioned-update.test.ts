/**
 * The embedded store's versioned compare-and-set (Collection.updateVersioned, the engine's job
 * write) against the generic update it stands for: `updateOne({_id, version}, {$set, $inc:
 * {version: 1}, $unset})`. Randomised documents and writes (plain paths, stale versions, missing
 * documents, and the shapes the fast path hands to the generic one: conflicting paths, `_id` and
 * `version`, `$`-led and numeric segments, paths through scalars and arrays, a unique index
 * clash), compared after every write (answer or refusal, and each document's JSON text, member
 * order included), again after each store is reopened from its log, and with the machinery off;
 * an updateOne of the same shape takes the versioned path too and is compared the same way.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { EmbeddedBackend } from "../../shared/store/embedded/backend";
import { parseFrozen } from "../../shared/frozen-json";
import type { Collection, Doc, Store } from "../../shared/store";
import { JobRepository } from "../../services/engine/jobs.repository";
import { int, pick, randomValue, seeded, type Rand } from "../support/random-docs";

delete process.env.STORE_QUERY_SHAPES;

const tempDirs: string[] = [];
afterAll(() => tempDirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));
function openStore(dir: string, machinery = true): EmbeddedBackend {
  return new EmbeddedBackend({ dataDir: dir, machinery });
}
const newDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "store-versioned-"));
  tempDirs.push(dir);
  return dir;
};

/** `value` with every object's members in sorted order: two equal values are then one text. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== "object") return value;
  const out: Doc = {};
  for (const key of Object.keys(value).sort()) out[key] = canonical((value as Doc)[key]);
  return out;
}

const TASKS = ["t1", "t2", "t3", "t4"];
const ODD_PATHS = [
  "tasks", // conflicts with a `tasks.<id>` of the same write
  "tasks.t1.status", // inside a `tasks.t1` of the same write: a conflict two segments down
  "tasks.t2.v.deep", // and three
  "_id",
  "version",
  "version.n",
  "$bad",
  "a..b",
  "tasks.0",
  "toString",
  "status.x", // through a string: PathNotViable
  "list.x", // through an array
  "none.deep.path", // created
  "metrics.progress",
];

function randomDoc(r: Rand, id: string): Doc {
  const tasks: Doc = {};
  for (const t of TASKS) tasks[t] = canonical({ status: "incomplete", n: int(r, 0, 3), v: randomValue(r) });
  return {
    _id: id,
    status: "running",
    // A few documents whose version the generic path must judge (an array holding it matches).
    version: r() < 0.1 ? [1] : r() < 0.05 ? "1" : 1,
    tasks,
    metrics: { start_time: int(r, 0, 9), progress: 0 },
    list: [1, 2],
    code: `c${id}`,
  };
}

/** A write's `$set` value: a JSON value, sometimes frozen with its text as the engine hands them. */
function randomSetValue(r: Rand): unknown {
  if (r() < 0.03) return undefined;
  if (r() < 0.03) return NaN;
  const value = canonical(
    r() < 0.5
      ? { status: pick(r, ["running", "complete"]), n: int(r, 0, 3), v: randomValue(r) }
      : randomValue(r),
  );
  return r() < 0.4 ? parseFrozen(JSON.stringify(value)) : value;
}

function randomWrite(r: Rand, versions: Map<string, unknown>) {
  const id = r() < 0.05 ? "missing" : `d${int(r, 0, 5)}`;
  const current = versions.get(id);
  const version = typeof current === "number" && r() < 0.85 ? current : int(r, 0, 4);
  const set: Doc = {};
  for (let i = int(r, r() < 0.05 ? 0 : 1, 4); i > 0; i--) {
    const p =
      r() < 0.12 ? pick(r, ODD_PATHS) : pick(r, [`tasks.${pick(r, TASKS)}`, "metrics", "sweepAt", "status"]);
    set[p] = p === "code" ? `c${int(r, 0, 5)}` : randomSetValue(r);
  }
  if (r() < 0.1) set.code = `cd${int(r, 0, 5)}`; // the unique index: some writes clash
  let unset: Record<string, ""> | undefined;
  if (r() < 0.3) {
    unset = {};
    for (let i = int(r, 0, 2); i > 0; i--)
      unset[
        r() < 0.15
          ? pick(r, ODD_PATHS)
          : pick(r, [`tasks.${pick(r, TASKS)}`, "sweepAt", "deferred", "status"])
      ] = "";
  }
  return { id, version, set, unset };
}

/** What a write answered: true or false, or its refusal's class, code and message. */
async function outcome(write: () => Promise<boolean>): Promise<unknown> {
  try {
    return await write();
  } catch (err) {
    const e = err as { name?: string; code?: unknown; message?: string };
    return { refused: e.name, code: e.code, message: e.message };
  }
}

const texts = async (c: Collection) => (await c.find({}, { sort: { _id: 1 } })).map((d) => JSON.stringify(d));

describe("updateVersioned (the embedded store's versioned compare-and-set)", () => {
  it.each([1, 2, 3, 4])("answers and stores what the generic update does (seed %i)", async (seed) => {
    const r = seeded(seed);
    // The reference: updateOne with the machinery off (mingo's updater after MongoDB's checks).
    // Beside it, machinery on: updateVersioned, and updateOne of the same shape (which takes the
    // versioned path too); and updateVersioned with the machinery off.
    const names = ["reference", "fast", "shaped", "off"] as const;
    const dirs = Object.fromEntries(names.map((n) => [n, newDir()])) as Record<
      (typeof names)[number],
      string
    >;
    const stores = Object.fromEntries(
      names.map((n) => [n, openStore(dirs[n], n === "fast" || n === "shaped")]),
    ) as Record<(typeof names)[number], EmbeddedBackend>;
    const cols = Object.fromEntries(names.map((n) => [n, stores[n].collection("jobs")])) as Record<
      (typeof names)[number],
      Collection
    >;
    const docs = Array.from({ length: 6 }, (_, i) => randomDoc(r, `d${i}`));
    for (const c of Object.values(cols)) {
      await c.createIndex({ keys: { code: 1 }, unique: true });
      await c.createIndex({ keys: { status: 1, sweepAt: 1 } });
      await c.insertMany(structuredClone(docs));
    }
    const versions = new Map<string, unknown>(docs.map((d) => [d._id, d.version]));
    let written = 0;
    for (let step = 0; step < 300; step++) {
      const { id, version, set, unset } = randomWrite(r, versions);
      const update = { $set: set, $inc: { version: 1 }, ...(unset && { $unset: unset }) };
      const updateOne = (c: Collection) => async () =>
        (await c.updateOne({ _id: id, version }, update)).matchedCount === 1;
      const expected = await outcome(updateOne(cols.reference));
      const answers = {
        fast: await outcome(() => cols.fast.updateVersioned!(id, version, set, unset)),
        shaped: await outcome(updateOne(cols.shaped)),
        off: await outcome(() => cols.off.updateVersioned!(id, version, set, unset)),
      };
      expect({ step, answers }).toEqual({
        step,
        answers: { fast: expected, shaped: expected, off: expected },
      });
      if (expected === true) {
        written++;
        const [doc] = await cols.reference.find({ _id: id });
        versions.set(id, doc.version);
      }
      const stored = await texts(cols.reference);
      for (const name of ["fast", "shaped", "off"] as const)
        expect({ step, name, docs: await texts(cols[name]) }).toEqual({ step, name, docs: stored });
    }
    expect(written).toBeGreaterThan(100);
    // The log replays to the same documents.
    const expected = await texts(cols.reference);
    for (const name of names) {
      await stores[name].close();
      const reopened = openStore(dirs[name]);
      expect({ name, docs: await texts(reopened.collection("jobs")) }).toEqual({ name, docs: expected });
      await reopened.close();
    }
  });

  it("refuses a document over 16 MiB as the generic update does, and stores nothing", async () => {
    const store = openStore(newDir());
    const jobs = store.collection("jobs");
    await jobs.insertOne({ _id: "j", version: 1, tasks: {} });
    const big = "x".repeat(17 * 1024 * 1024);
    await expect(jobs.updateVersioned!("j", 1, { "tasks.a": { big } })).rejects.toMatchObject({
      codeName: "BSONObjectTooLarge",
    });
    expect(await jobs.findOne({ _id: "j" })).toEqual({ _id: "j", version: 1, tasks: {} });
    await store.close();
  });

  it("the job repository takes the generic update when the store's collection has no updateVersioned", async () => {
    const backend = openStore(newDir());
    const calls: string[] = [];
    // A store whose collections lack the method (as the remote store's do), updateOne noted.
    const store: Store = {
      backend: "remote",
      ping: () => backend.ping(),
      close: () => backend.close(),
      collection: <T extends Doc>(name: string) => {
        const c = backend.collection<T>(name);
        return {
          ...Object.fromEntries(
            (["find", "findOne", "insertOne", "createIndex"] as const).map((m) => [m, c[m].bind(c)]),
          ),
          name,
          updateOne: (...args: Parameters<Collection<T>["updateOne"]>) => {
            calls.push("updateOne");
            return c.updateOne(...args);
          },
        } as unknown as Collection<T>;
      },
    };
    const repo = new JobRepository(store);
    await repo.insert({ _id: "j", version: 1, status: "running", tasks: {} } as never);
    expect(await repo.compareAndSet("j", 1, { status: "complete" })).toBe(true);
    expect(await repo.compareAndSet("j", 1, { status: "error" })).toBe(false);
    expect(calls).toEqual(["updateOne", "updateOne"]);
    expect(await repo.findById("j")).toEqual({ _id: "j", version: 2, status: "complete", tasks: {} });
    await backend.close();
  });
});
