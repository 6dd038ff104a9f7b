/**
 * A document that goes cold with a text put together from its parts' texts
 * (shared/store/embedded/part-texts.ts): the texts of the object values its fast updates set,
 * kept while it is hot. The text must be JSON.stringify's, byte for byte, whatever was written
 * since (deeper paths, whole parents, unsets, generic updates, thaws); the parts kept are never
 * more than the document holds; the engine's own job writes take this path.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { EmbeddedBackend } from "../../shared/store/embedded/backend";
import { composedText, type PartText } from "../../shared/store/embedded/part-texts";
import { parseFrozen } from "../../shared/frozen-json";
import type { Doc } from "../../shared/store";
import { JobRepository } from "../../services/engine/jobs.repository";
import { JobStore, writableTask } from "../../services/engine/run/jobs";
import { newJob } from "../support/run-jobs";
import { int, pick, randomValue, seeded, type Rand } from "../support/random-docs";

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));
function openStore(hotDocuments?: number): EmbeddedBackend {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "store-parts-"));
  dirs.push(dataDir);
  return new EmbeddedBackend({ dataDir, hotDocuments });
}

// Keys JSON.stringify writes with escapes, integer-like keys (ordered first), a dotted key that is
// not the path through its parts, `__proto__` as data.
const AWKWARD_KEYS = ["t", "s", "10", "2", 'q"', "ü\n", "a.b", "__proto__", "\ud800"];

/** A value with awkward keys and strings, built as JSON.parse builds it (`__proto__` as data). */
function awkwardValue(r: Rand, depth = 0): unknown {
  if (depth >= 3 || r() < 0.3)
    return pick(r, [1, -0, 1e21, 0.1, NaN, -Infinity, false, "x\u2028", "\ud83d", null, true, [1, { a: 2 }]]);
  const members = Array.from(
    { length: int(r, 0, 4) },
    (_, i) =>
      `${JSON.stringify(pick(r, AWKWARD_KEYS) + (i % 2 ? "" : String(i)))}:${JSON.stringify(awkwardValue(r, depth + 1))}`,
  );
  return JSON.parse(`{${members.join(",")}}`);
}

/** Every object at a plain path of `doc` (the parts a write could have set), with its path. */
function objectsOf(value: unknown, parts: string[] = [], out: { parts: string[]; value: object }[] = []) {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return out;
  if (parts.length) out.push({ parts, value });
  for (const key of Object.keys(value)) objectsOf((value as Doc)[key], [...parts, key], out);
  return out;
}

test("composedText is JSON.stringify's text: live parts spliced, stale ones and dotted keys ignored", () => {
  const r = seeded(2611);
  let spliced = 0;
  for (let i = 0; i < 600; i++) {
    const doc = { _id: `d${i}`, ...(awkwardValue(r) as Doc) } as Doc & { _id: string };
    doc.tasks = awkwardValue(r);
    const parts: PartText[] = [];
    for (const { parts: at, value } of objectsOf(doc)) {
      const roll = r();
      // A live part, its own text.
      if (roll < 0.4) parts.push({ path: at.join("."), parts: at, value, text: JSON.stringify(value) });
      // A stale part: another object (a copy) at that path, with a wrong text it must not use.
      else if (roll < 0.6)
        parts.push({ path: at.join("."), parts: at, value: { ...value }, text: '"stale"' });
    }
    // The dotted member "a.b" is not the path a -> b: a part there must not be spliced into it.
    doc["a.b"] = { inner: 1 };
    const nested = { inner: 1 };
    doc.a = { b: nested };
    parts.push({ path: "a.b", parts: ["a", "b"], value: nested, text: '{"inner":1}' });
    parts.push({ path: "a.b", parts: ["a.b"], value: {}, text: '"wrong"' });
    const expected = JSON.stringify(doc);
    expect(composedText(doc, parts)).toBe(expected);
    spliced += parts.length;
  }
  expect(spliced).toBeGreaterThan(1000);
});

/** A random versioned write: object values (frozen with their text or not), scalars, unsets. */
function randomWrite(r: Rand): { set: Doc; unset?: Record<string, ""> } {
  const segment = () => pick(r, ["t1", "t2", "t3", "m"]);
  const at = () => Array.from({ length: int(r, 1, 3) }, segment).join(".");
  const set: Doc = {};
  for (let i = int(r, 1, 3); i > 0; i--) {
    const roll = r();
    const value =
      roll < 0.35
        ? awkwardValue(r)
        : roll < 0.55
          ? randomValue(r)
          : { status: pick(r, ["a", "b"]), n: int(r, 0, 9) };
    set[at()] =
      r() < 0.5 && typeof value === "object" && value !== null ? parseFrozen(JSON.stringify(value)) : value;
  }
  const unset = r() < 0.2 ? { [at()]: "" as const } : undefined;
  return { set, unset };
}

test("through the store: every cold text is the reference's JSON text after random writes, settled or pushed out", async () => {
  const subject = openStore(2);
  const reference = openStore(10_000);
  try {
    const ids = ["d0", "d1", "d2", "d3", "d4"];
    for (const store of [subject, reference])
      await store
        .collection("jobs")
        .insertMany(ids.map((_id) => ({ _id, version: 1, name: _id, t1: { s: 1 } })));
    const r = seeded(9026);
    const docs = subject.table("jobs").docs;
    let compared = 0;
    for (let step = 0; step < 1500; step++) {
      const id = pick(r, ids);
      const roll = r();
      const current = (await reference.collection("jobs").findOne({ _id: id }))!;
      let outcomes: unknown[];
      if (roll < 0.8) {
        const { set, unset } = randomWrite(r);
        const options = r() < 0.3 ? { settled: true } : {};
        const version = current.version as number;
        outcomes = await Promise.all(
          [subject, reference].map((store) =>
            store.collection("jobs").updateVersioned!(id, version, set, unset, options).then(
              String,
              (err: Error) => err.message,
            ),
          ),
        );
      } else {
        // Generic updates between: a $push and a $mul take mingo's way, a deeper $set the fast one.
        const update = pick(r, [
          { $push: { list: int(r, 0, 9) } },
          { $mul: { n: 2 } },
          { $set: { "t1.deep": { k: int(r, 0, 9) } } },
        ]);
        outcomes = await Promise.all(
          [subject, reference].map((store) =>
            store
              .collection("jobs")
              .updateOne({ _id: id }, update)
              .then(
                (res) => res.modifiedCount,
                (err: Error) => err.message,
              ),
          ),
        );
      }
      expect(outcomes[0]).toEqual(outcomes[1]);
      // Now and then a read by _id thaws a cold one (it goes cold again with the text it had).
      if (r() < 0.1) await subject.collection("jobs").findOne({ _id: pick(r, ids) });
      for (const other of ids) {
        const cold = docs.coldText(other);
        if (cold === undefined) continue;
        const expected = JSON.stringify(await reference.collection("jobs").findOne({ _id: other }));
        expect(cold).toBe(expected);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(3000);
    // The path was taken, most documents' texts put together rather than serialized whole.
    expect(docs.composed).toBeGreaterThan(300);
    expect(docs.composed).toBeGreaterThan(docs.serialized);
  } finally {
    await subject.close();
    await reference.close();
  }
});

test("the parts kept: one a path written again; stale ones dropped before they outgrow the document", async () => {
  const store = openStore(4);
  try {
    const jobs = store.collection("jobs");
    await jobs.insertOne({ _id: "j", version: 1, tasks: {} });
    const docs = store.table("jobs").docs;
    let version = 1;
    const write = async (set: Doc, unset?: Record<string, "">) =>
      expect(await jobs.updateVersioned!("j", version++, set, unset)).toBe(true);
    for (let i = 0; i < 100; i++) await write({ "tasks.a": { status: "running", i } });
    expect(docs.keptParts("j").count).toBe(1);
    await write({ "tasks.b": { status: "running" }, metrics: { progress: 0.5 }, last: "scalar" });
    expect(docs.keptParts("j").count).toBe(3);
    // 100 KB set at a new path each time, then its parent replaced by a small value: each write
    // leaves a stale part of 100 KB. What is kept stays near twice what is live (and 64 KiB),
    // not the 5 MB written.
    const big = { blob: "x".repeat(100_000) };
    for (let i = 0; i < 50; i++) {
      await write({ [`big.x${i}`]: big });
      await write({ big: { small: i } });
    }
    expect(docs.keptParts("j").chars).toBeLessThan(400_000);
    // A generic update (mingo's way) makes new objects of all of it: nothing kept.
    expect((await jobs.updateOne({ _id: "j" }, { $mul: { "metrics.progress": 2 } })).modifiedCount).toBe(1);
    expect(docs.keptParts("j").count).toBe(0);
    // Whatever was kept, the text it goes cold with is the document's.
    await write({ "tasks.c": { status: "new" }, "big.y": big });
    const expected = JSON.stringify(await jobs.findOne({ _id: "j" }));
    await write({ "tasks.c": { status: "done" } }, { "big.y": "" });
    const final = JSON.parse(expected) as Doc;
    (final.tasks as Doc).c = { status: "done" };
    delete (final.big as Doc).y;
    final.version = version;
    await jobs.insertMany([1, 2, 3, 4].map((i) => ({ _id: `p${i}`, version: 1 })));
    expect(docs.coldText("j")).toBe(JSON.stringify(final));
  } finally {
    await store.close();
  }
});

test("the engine's job writes: the write that ends a job puts its text together from its tasks' texts", async () => {
  const store = openStore();
  try {
    const jobs = new JobStore(new JobRepository(store));
    const docs = store.table("jobs").docs;
    await jobs.insert(newJob("e1"));
    await jobs.update("e1", (draft) => {
      writableTask(draft, "b")!.status = "complete";
      writableTask(draft, "c")!.status = "running";
    });
    expect(docs.keptParts("e1").count).toBeGreaterThanOrEqual(2);
    const before = { composed: docs.composed, serialized: docs.serialized };
    const ended = await jobs.update("e1", (draft) => {
      writableTask(draft, "c")!.status = "complete";
      draft.status = "complete";
    });
    expect(docs.isCold("e1")).toBe(true);
    expect(docs.composed - before.composed).toBe(1);
    expect(docs.serialized - before.serialized).toBe(0);
    expect(docs.coldText("e1")).toBe(JSON.stringify(ended!.job));
  } finally {
    await store.close();
  }
});
