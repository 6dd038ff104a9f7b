/**
 * An insert's stored image and its JSON text (mongo.ts storedImage), and the unique-key check of one
 * document (table.ts checkOne). With the performance machinery on, a document whose first member is
 * a string `_id` is stored as its JSON round trip parsed, and its log line is put together from that
 * text instead of serialized again; any other document is stored as withId always stored it. Both
 * are held to the general way: the same image, members in the same order, the same log bytes as a
 * store with the machinery off, and the same documents after a reopen from the log. checkOne is held
 * to the batch check on random tables.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { EmbeddedBackend } from "../../shared/store/embedded/backend";
import { storedImage, validIndex, withId } from "../../shared/store/embedded/mongo";
import { Table, type StoredDoc } from "../../shared/store/embedded/table";
import type { Doc } from "../../shared/store";
import { int, pick, randomDoc, randomObject, seeded } from "../support/random-docs";

delete process.env.STORE_QUERY_SHAPES;

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));
function openStore(machinery: boolean, dir?: string): EmbeddedBackend {
  const dataDir = dir ?? fs.mkdtempSync(path.join(os.tmpdir(), "store-insert-image-"));
  if (!dir) dirs.push(dataDir);
  return new EmbeddedBackend({ dataDir, machinery });
}

/** Documents the round trip changes or re-orders, beside random ones with `_id` first. */
function oddDocs(): Doc[] {
  return [
    { _id: "a", when: new Date(0), gone: undefined, f: () => 1, n: -0, big: 1e21 },
    { name: "no id", _id: "b" },
    { 1: "integer keys go first", _id: "c", x: 1 },
    { _id: "d", text: "lone \ud800 surrogate", nested: { toJSON: () => ({ replaced: true }) } },
    { _id: "e", __proto__: null, arr: [undefined, () => 1, new Date(1)] } as Doc,
    { _id: "f", a: { b: [1, { c: "x" }] }, s: 'é\u2028"\\' },
  ];
}

function randomDocs(seed: number, n: number): Doc[] {
  const r = seeded(seed);
  return Array.from({ length: n }, (_, i) =>
    r() < 0.85 ? randomDoc(r, `r${i}`) : { ...randomObject(r), _id: `late${i}`, z: int(r, 0, 3) },
  );
}

describe("an insert's stored image", () => {
  it("is withId's image, and its text (when given) is that image's JSON", () => {
    let texts = 0;
    for (const doc of [...oddDocs(), ...randomDocs(11, 2000)]) {
      const general = withId(doc, false);
      const { doc: image, text } = storedImage(doc, true);
      expect(JSON.stringify(image)).toBe(JSON.stringify(general));
      expect(image).toEqual(general);
      if (text !== undefined) {
        texts++;
        expect(text).toBe(JSON.stringify(image));
      }
      expect(text !== undefined).toBe(
        Object.keys(general)[0] === "_id" && JSON.stringify(doc).startsWith('{"_id":"'),
      );
      // Machinery off: no text, the same image.
      expect(storedImage(doc, false)).toEqual({ doc: general });
    }
    expect(texts).toBeGreaterThan(1500);
  });

  it("a document without `_id`, or with one that is not a string, is stored as before", () => {
    expect(storedImage({ a: 1 }, true).text).toBeUndefined();
    expect(storedImage({ a: 1 }, true).doc._id).toMatch(/^[0-9a-f]{24}$/);
    expect(() => storedImage({ _id: 5 }, true)).toThrow("_id must be a string");
    expect(() => storedImage([] as unknown as Doc, true)).toThrow("a document must be an object");
  });

  it("logs the same bytes as a store with the machinery off, and reopens to the same documents", async () => {
    const docs = [...oddDocs(), ...randomDocs(12, 300)];
    const on = openStore(true);
    const off = openStore(false);
    for (const store of [on, off]) {
      const c = store.collection("things");
      await c.createIndex({ keys: { a: 1 } });
      for (let i = 0; i < docs.length; i += 7) {
        const batch = docs.slice(i, i + 7);
        if (i % 2) await c.insertMany(batch);
        else for (const doc of batch) await c.insertOne(doc);
      }
      await store.close();
    }
    const log = (store: EmbeddedBackend) => fs.readFileSync(path.join(store.dir, "store.log"), "utf8");
    expect(log(on)).toBe(log(off));
    const reopened = openStore(true, on.dir.replace(/\/store$/, ""));
    const stored = await reopened.collection("things").find({});
    expect(JSON.stringify(stored)).toBe(JSON.stringify(docs.map((doc) => withId(doc, false))));
    await reopened.close();
  });
});

describe("the unique-key check of one document", () => {
  const outcome = (check: () => void) => {
    try {
      check();
      return "fine";
    } catch (err) {
      return `${(err as Error).name}: ${(err as Error).message} ${JSON.stringify((err as { key?: unknown }).key)}`;
    }
  };

  it("answers as the batch check on random tables and documents", () => {
    const r = seeded(26);
    const outcomes = new Set<string>();
    for (let t = 0; t < 60; t++) {
      const table = new Table();
      table.addIndex(validIndex({ keys: { a: 1 }, unique: true }));
      if (r() < 0.5) table.addIndex(validIndex({ keys: { b: 1, "o.a": 1 }, unique: true }));
      if (r() < 0.5) table.addIndex(validIndex({ keys: { arr: 1 }, unique: true }));
      table.addIndex(validIndex({ keys: { c: 1 } }));
      const docs: StoredDoc[] = [];
      for (let i = 0; i < 30; i++) {
        const doc = withId(randomDoc(r, `d${i}`), false);
        if (outcome(() => table.checkBatch("t", [doc], true)) !== "fine") continue;
        table.apply([doc], []);
        docs.push(doc);
      }
      for (let k = 0; k < 100; k++) {
        const id = r() < 0.5 && docs.length ? pick(r, docs)._id : `n${k}`;
        const doc = withId(randomDoc(r, id), false);
        const inserting = r() < 0.5;
        const one = outcome(() => table.check("t", [doc], inserting));
        expect({ doc, inserting, one }).toEqual({
          doc,
          inserting,
          one: outcome(() => table.checkBatch("t", [doc], inserting)),
        });
        outcomes.add(one.split(":")[0]);
      }
    }
    // Both ways were met: documents that pass and documents that clash.
    expect([...outcomes].sort()).toEqual(["DuplicateKeyError", "fine"]);
  });
});
