/**
 * Frozen JSON values with their text (shared/frozen-json.ts): the embedded store's fast update keeps
 * such a value as given (no copy, no second serialization) and answers exactly what it answers for
 * the same value as a plain object: the same new document, the same log patch, the same verdict.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { frozenJsonText, keptJsonText, parseFrozen, parseKeptInTurns } from "../../shared/frozen-json";
import { EmbeddedBackend } from "../../shared/store/embedded/backend";
import { exactGrowth, fastUpdate, patchJson } from "../../shared/store/embedded/fast-update";
import type { StoredDoc } from "../../shared/store/embedded/table";
import { bsonDocumentSize } from "../../shared/store/embedded/size";
import { BSON } from "mongodb";

const task = { status: "complete", claim: null, outgoing: { result: [1, { deep: "x" }] }, end_time: 12 };

test("parseFrozen answers the parsed value, frozen all through, and remembers its text", () => {
  const text = JSON.stringify(task);
  const value = parseFrozen(text) as typeof task;
  expect(value).toEqual(task);
  expect(Object.isFrozen(value)).toBe(true);
  expect(Object.isFrozen(value.outgoing.result[1])).toBe(true);
  expect(frozenJsonText(value)).toBe(text);
  // Only values it made: an equal plain object, a scalar, null have no known text.
  expect(frozenJsonText({ ...task })).toBeUndefined();
  expect(parseFrozen("3")).toBe(3);
  expect(frozenJsonText(3)).toBeUndefined();
  expect(frozenJsonText(null)).toBeUndefined();
});

test("the text is known only until this turn's microtasks have run: a stored value does not keep it", async () => {
  const value = parseFrozen(JSON.stringify(task));
  expect(frozenJsonText(value)).toBeDefined();
  await new Promise((resolve) => setImmediate(resolve));
  expect(frozenJsonText(value)).toBeUndefined();
  expect(Object.isFrozen(value)).toBe(true);
});

test("a fast update keeps a frozen value as given and answers as for a plain copy of it", () => {
  const stored = Object.freeze({
    _id: "j1",
    version: 3,
    tasks: Object.freeze({
      a: Object.freeze({ status: "running" }),
      b: Object.freeze({ status: "incomplete" }),
    }),
  }) as unknown as StoredDoc;
  const frozen = parseFrozen(JSON.stringify(task));
  const viaFrozen = fastUpdate(stored, { $set: { "tasks.a": frozen }, $inc: { version: 1 } })!;
  const viaPlain = fastUpdate(stored, { $set: { "tasks.a": structuredClone(task) }, $inc: { version: 1 } })!;
  expect(viaFrozen.doc).toStrictEqual(viaPlain.doc);
  expect(viaFrozen.changed).toBe(true);
  expect(patchJson(viaFrozen.patch)).toBe(patchJson(viaPlain.patch));
  expect(viaFrozen.written).toEqual(viaPlain.written);
  // Kept, not copied; the untouched task is still the stored one; the stored document is untouched.
  expect((viaFrozen.doc as any).tasks.a).toBe(frozen);
  expect((viaFrozen.doc as any).tasks.b).toBe((stored as any).tasks.b);
  expect((stored as any).tasks.a).toEqual({ status: "running" });
  // A later update inside the kept value copies it first (it is frozen, and shared).
  const later = fastUpdate(viaFrozen.doc, { $set: { "tasks.a.status": "error" } })!;
  expect((later.doc as any).tasks.a.status).toBe("error");
  expect((frozen as any).status).toBe("complete");
});

test("an insert keeps a frozen document with its text as given, logs that text, and reads back the same", async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "frozen-json-"));
  try {
    const store = new EmbeddedBackend({ dataDir });
    const plain = { _id: "j1", status: "running", tasks: { a: task }, n: 1.5 };
    const frozen = parseFrozen(JSON.stringify(plain));
    const answer = await store.collection("jobs").insertOne(frozen as never);
    // The answer is the frozen document the caller gave (nobody can change it: no copy is needed,
    // test/store/frozen-insert.test.ts); the store holds that document itself.
    expect(answer).toEqual(plain);
    expect(answer).toBe(frozen);
    expect(store.table("jobs").docs.get("j1") as unknown).toBe(frozen);
    // `_id` not first, or no known text: the usual path (copied), same answer.
    await store
      .collection("jobs")
      .insertOne(parseFrozen(JSON.stringify({ status: "x", _id: "j2" })) as never);
    expect(Object.isFrozen(store.table("jobs").docs.get("j2"))).toBe(false);
    const before = JSON.stringify(await store.collection("jobs").find({}));
    await store.close();
    const log = fs
      .readdirSync(dataDir, { recursive: true })
      .map(String)
      .find((f) => f.endsWith("store.log"))!;
    const lines = fs.readFileSync(path.join(dataDir, log), "utf8").trim().split("\n");
    expect(lines).toContain(`{"s":1,"c":"jobs","put":[${JSON.stringify(plain)}]}`);
    const reopened = new EmbeddedBackend({ dataDir });
    expect(JSON.stringify(await reopened.collection("jobs").find({}))).toBe(before);
    await reopened.close();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test("fast updates that set and then replace frozen values keep the document's size as the driver measures it", () => {
  let doc = { _id: "j9", version: 1, tasks: { a: { status: "running", n: 1 } } } as unknown as StoredDoc;
  let size = bsonDocumentSize(doc);
  const values = [
    { status: "complete", outgoing: { result: [1, 2.5, { deep: "ü" }] }, n: 2 },
    { status: "error", outgoing: null, n: -2147483649 },
    { status: "x" },
  ];
  for (const value of values) {
    const update = fastUpdate(doc, {
      $set: { "tasks.a": parseFrozen(JSON.stringify(value)) },
      $inc: { version: 1 },
    })!;
    size += exactGrowth(update);
    doc = update.doc;
    // The stored (frozen) value is the one replaced next: the delta must still be exact.
    expect(size).toBe(BSON.calculateObjectSize(JSON.parse(JSON.stringify(doc))));
  }
});

test("a value with its text kept for life (parseKeptInTurns: a node's spec) is stored as given in a later turn, logged as that text, and answered frozen to a read-only findOneAndUpdate", async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "frozen-json-"));
  try {
    const store = new EmbeddedBackend({ dataDir });
    const nodes = store.collection("config_nodes");
    await nodes.insertOne({ _id: "n1", path: "base", spec: [], n: 1 });
    const spec = [{ words: [[{ type: "regex", value: "Gi\\d+" }]], evalMode: "required", children: [] }];
    const text = JSON.stringify(spec);
    const kept = await parseKeptInTurns(text);
    // A later turn: the moment's text (parseFrozen's) is gone, the kept one is not.
    await new Promise((resolve) => setImmediate(resolve));
    expect(frozenJsonText(kept)).toBeUndefined();
    expect(keptJsonText(kept)).toBe(text);
    const answer = await nodes.findOneAndUpdate({ _id: "n1" }, { $set: { spec: kept } }, { readOnly: true });
    expect(answer).toEqual({ _id: "n1", path: "base", spec, n: 1 });
    // Kept, not copied: the store holds the caller's frozen value, and answers the stored document.
    expect((store.table("config_nodes").docs.get("n1") as any).spec).toBe(kept);
    expect(answer!.spec).toBe(kept);
    expect(Object.isFrozen(answer)).toBe(true);
    // A plain findOneAndUpdate still answers a copy the caller may change.
    const copy = await nodes.findOneAndUpdate({ _id: "n1" }, { $inc: { n: 1 } });
    expect(Object.isFrozen(copy)).toBe(false);
    expect(copy!.spec).not.toBe(kept);
    await store.close();
    const log = fs
      .readdirSync(dataDir, { recursive: true })
      .map(String)
      .find((f) => f.endsWith("store.log"))!;
    const lines = fs.readFileSync(path.join(dataDir, log), "utf8");
    expect(lines).toContain(`["set","spec",${text}]`);
    const reopened = new EmbeddedBackend({ dataDir });
    expect(await reopened.collection("config_nodes").findOne({ _id: "n1" })).toEqual({
      _id: "n1",
      path: "base",
      spec,
      n: 2,
    });
    await reopened.close();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
