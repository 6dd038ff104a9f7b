/**
 * MongoDB's rules, pinned on the embedded store (docs/platform-rules.md#store-limits): what a
 * MongoDB 7 server refuses, the embedded store refuses with the same code and message, so a write
 * that passes here passes there. The contract suite (contract.test.ts) runs the same refusals on
 * every backend; this one pins the exact words, the bounds to the byte and level, the sort order of
 * mixed types, the HTTP answer each refusal gets, and the options handed to the MongoDB driver.
 */
import { BSON, MongoClient, MongoServerError } from "mongodb";
import { toErrorBody } from "../../gateway/error-response";
import { loadConfig } from "../../shared/config";
import { StoreRuleError } from "../../shared/errors";
import { mongoClientOptions, storeError } from "../../shared/store/mongo";
import { MAX_DOCUMENT_BYTES, stripExtended } from "../../shared/store/rules";
import { DuplicateKeyError, type Doc } from "../../shared/store";
import { refusal, rulesStore } from "../support/rules-store";
import type { RawUpdate } from "../../shared/store/types";

const fresh = rulesStore("rules");

/** A document of exactly `bytes` of BSON. */
function docOfSize(id: string, bytes: number): Doc {
  const overhead = BSON.calculateObjectSize({ _id: id, s: "" });
  const doc = { _id: id, s: "a".repeat(bytes - overhead) };
  expect(BSON.calculateObjectSize(doc)).toBe(bytes);
  return doc;
}

describe("16 MiB of BSON per document", () => {
  test("exactly 16 MiB is stored; one byte more (and 17 MiB) is refused as MongoDB refuses it, nothing kept", async () => {
    const c = fresh();
    await c.insertOne(docOfSize("max", MAX_DOCUMENT_BYTES));
    for (const size of [MAX_DOCUMENT_BYTES + 1, 17 * 1024 * 1024]) {
      const err = await refusal(c.insertOne(docOfSize("over", size)));
      expect(err.message).toBe(`object to insert too large. size in bytes: ${size}, max size: 16777216`);
      expect(err).toMatchObject({ code: 413, type: "PAYLOAD_TOO_LARGE", storeCode: 10334 });
      expect(err.codeName).toBe("BSONObjectTooLarge");
    }
    // insertMany is all or nothing: the small one before the large one is not kept either.
    await refusal(c.insertMany([{ _id: "small" }, docOfSize("over", MAX_DOCUMENT_BYTES + 1)]));
    expect((await c.find({}, { projection: { _id: 1 } })).map((d) => d._id)).toEqual(["max"]);
  });

  test("an update that grows a document past 16 MiB is refused on the fast and the general path; the document stays", async () => {
    const c = fresh();
    const nineMiB = "b".repeat(9 * 1024 * 1024);
    await c.insertOne({ _id: "job", tasks: { t1: { out: nineMiB } }, list: [] });
    const updates = [
      { $set: { "tasks.t2": { out: nineMiB } } }, // the fast path
      { $push: { list: { $each: [nineMiB] } } }, // mingo's path
      { $addToSet: { list: nineMiB } },
    ];
    for (const update of updates) {
      const err = await refusal(c.updateOne({ _id: "job" }, update));
      expect(err.message).toBe("Resulting document after update is larger than 16777216");
      expect(err.storeCode).toBe(10334);
    }
    const kept = await c.findOne({ _id: "job" });
    expect(Object.keys(kept!.tasks)).toEqual(["t1"]);
    expect(kept!.list).toEqual([]);
    // An upsert building a document too large is refused as well.
    await refusal(c.updateOne({ _id: "new" }, { $set: { a: nineMiB, b: nineMiB } }, { upsert: true }));
    expect(await c.count({ _id: "new" })).toBe(0);
  });

  test("the size kept per document follows replacements and removals exactly: freed room can be used again", async () => {
    const c = fresh();
    const sixMiB = "c".repeat(6 * 1024 * 1024);
    await c.insertOne({ _id: "d", n: 0 });
    // Each round writes 6 MiB over the last 6 MiB: an estimate that only ever grew would refuse by round 3.
    for (let round = 0; round < 6; round++) {
      await c.updateOne({ _id: "d" }, { $set: { "out.big": sixMiB + round }, $inc: { n: 1 } });
      await c.updateOne({ _id: "d" }, { $unset: { "out.big": "" }, $push: { log: round } });
    }
    await c.updateOne({ _id: "d" }, { $set: { a: sixMiB, b: sixMiB } });
    const doc = await c.findOne({ _id: "d" });
    expect(BSON.calculateObjectSize(doc!)).toBeLessThan(MAX_DOCUMENT_BYTES);
    await refusal(c.updateOne({ _id: "d" }, { $set: { c: sixMiB } }));
    // Freeing a member makes room for one of the same size.
    await c.updateOne({ _id: "d" }, { $unset: { a: "" } });
    await c.updateOne({ _id: "d" }, { $set: { c: sixMiB } });
    expect(Object.keys((await c.findOne({ _id: "d" }))!)).toEqual(["_id", "n", "out", "log", "b", "c"]);
  });
});

describe("100 levels of nesting", () => {
  const nested = (levels: number): Doc => {
    let value: Doc = {};
    for (let i = 1; i < levels; i++) value = { x: value };
    return value;
  };

  test("a document of 100 levels (the root is one) is stored; 101 is refused, by insert and by update", async () => {
    const c = fresh();
    await c.insertOne({ _id: "ok", ...nested(100) });
    const err = await refusal(c.insertOne({ _id: "deep", ...nested(101) }));
    expect(err).toMatchObject({ code: 400, type: "STORE_RULE", storeCode: 15, codeName: "Overflow" });
    expect(err.message).toMatch(/nests deeper than 100 levels/);
    await refusal(c.updateOne({ _id: "ok" }, { $set: { y: nested(100) } }));
    expect(await c.count({})).toBe(1);
  });
});

describe("undefined in a filter is an error, never a match-all", () => {
  test("every method refuses it, at any depth of the filter; nothing is read, changed or deleted", async () => {
    const c = fresh();
    await c.insertMany([{ _id: "a", adapterId: "x" }, { _id: "b" }]);
    const filters = [
      { adapterId: undefined },
      { $or: [{ adapterId: "x" }, { adapterId: undefined }] },
      { adapterId: { $in: ["x", undefined] } },
      { adapterId: { $eq: undefined } },
    ];
    for (const filter of filters) {
      for (const call of [
        () => c.find(filter),
        () => c.findOne(filter),
        () => c.count(filter),
        () => c.updateOne(filter, { $set: { hit: true } }),
        () => c.updateMany(filter, { $set: { hit: true } }),
        () => c.findOneAndUpdate(filter, { $set: { hit: true } }),
        () => c.findOneAndDelete(filter),
        () => c.deleteOne(filter),
        () => c.deleteMany(filter),
        () => c.aggregate([{ $match: filter }]),
      ]) {
        const err = await refusal(call());
        expect(err).toMatchObject({ code: 400, storeCode: 2, codeName: "BadValue" });
        expect(err.message).toMatch(/holds an undefined value at '(0\.\$match\.)?(\$or\.1\.)?adapterId/);
      }
    }
    expect(await c.find({})).toEqual([{ _id: "a", adapterId: "x" }, { _id: "b" }]);
  });
});

describe("updates MongoDB refuses", () => {
  test("$inc on a string or null: TypeMismatch (14); with a non-numeric argument too", async () => {
    const c = fresh();
    await c.insertOne({ _id: "d", s: "text", nil: null, n: 1, o: { s: "x" } });
    let err = await refusal(c.updateOne({ _id: "d" }, { $inc: { s: 1 } }));
    expect(err.message).toBe(
      `Cannot apply $inc to a value of non-numeric type. {_id: "d"} has the field 's' of non-numeric type string`,
    );
    expect(err).toMatchObject({ code: 400, storeCode: 14, codeName: "TypeMismatch" });
    err = await refusal(c.updateOne({ _id: "d" }, { $inc: { nil: 1 } }));
    expect(err.message).toMatch(/has the field 'nil' of non-numeric type null$/);
    err = await refusal(c.updateOne({ _id: "d" }, { $inc: { "o.s": 1 } }));
    expect(err.message).toMatch(/has the field 's' of non-numeric type string$/);
    err = await refusal(c.updateOne({ _id: "d" }, { $inc: { n: "1" } } as RawUpdate));
    expect(err.message).toBe("Cannot increment with non-numeric argument: {n: <string>}");
    expect(err.storeCode).toBe(14);
    await refusal(c.updateOne({ _id: "d" }, { $mul: { s: 2 } }));
    // An upsert whose filter seeds a string the update increments.
    await refusal(c.updateOne({ _id: "u", k: "x" }, { $inc: { k: 1 } }, { upsert: true }));
    expect(await c.find({})).toEqual([{ _id: "d", s: "text", nil: null, n: 1, o: { s: "x" } }]);
  });

  test("$set through a scalar, null or array: PathNotViable (28); into a missing path or an array index: fine", async () => {
    const c = fresh();
    await c.insertOne({ _id: "d", a: 1, nil: null, arr: [{ v: 1 }], o: {} });
    const cases: [Doc, string][] = [
      [{ $set: { "a.b": 2 } }, "Cannot create field 'b' in element {a: <int>}"],
      [{ $set: { "nil.b": 2 } }, "Cannot create field 'b' in element {nil: <null>}"],
      [{ $set: { "arr.v": 2 } }, "Cannot create field 'v' in element {arr: <array>}"],
      [{ $set: { "a.b.c": 2 } }, "Cannot create field 'b' in element {a: <int>}"],
      [{ $inc: { "a.n": 1 } }, "Cannot create field 'n' in element {a: <int>}"],
      [{ $push: { "a.list": 1 } }, "Cannot create field 'list' in element {a: <int>}"],
    ];
    for (const [update, message] of cases) {
      const err = await refusal(c.updateOne({ _id: "d" }, update));
      expect(err.message).toBe(message);
      expect(err).toMatchObject({ code: 400, storeCode: 28, codeName: "PathNotViable" });
    }
    await c.updateOne({ _id: "d" }, { $set: { "o.x.y": 1, "arr.0.v": 2, "fresh.deep.path": true } });
    expect(await c.findOne({ _id: "d" })).toEqual({
      _id: "d",
      a: 1,
      nil: null,
      arr: [{ v: 2 }],
      o: { x: { y: 1 } },
      fresh: { deep: { path: true } },
    });
  });

  test("$push onto a non-array: BadValue (2)", async () => {
    const c = fresh();
    await c.insertOne({ _id: "d", s: "x" });
    const err = await refusal(c.updateOne({ _id: "d" }, { $push: { s: 1 } }));
    expect(err.message).toBe(`The field 's' must be an array but is of type string in document {_id: "d"}`);
    expect(err.storeCode).toBe(2);
  });

  test("overlapping paths: ConflictingUpdateOperators (40), whether or not a document matches", async () => {
    const c = fresh();
    await c.insertOne({ _id: "d", a: { b: 1 } });
    const cases: [Doc, string][] = [
      [{ $set: { a: 1, "a.b": 2 } }, "Updating the path 'a.b' would create a conflict at 'a'"],
      [{ $set: { "a.b": 2, a: 1 } }, "Updating the path 'a' would create a conflict at 'a'"],
      [{ $set: { a: 1 }, $inc: { a: 1 } }, "Updating the path 'a' would create a conflict at 'a'"],
      [{ $set: { "a.b": 1 }, $unset: { a: "" } }, "Updating the path 'a' would create a conflict at 'a'"],
      [
        { $addToSet: { "a.c": 1 }, $set: { "a.c.d": 1 } },
        "Updating the path 'a.c.d' would create a conflict at 'a.c'",
      ],
      [{ $set: { x: 1 }, $setOnInsert: { x: 2 } }, "Updating the path 'x' would create a conflict at 'x'"],
    ];
    for (const [update, message] of cases) {
      for (const filter of [{ _id: "d" }, { _id: "none" }]) {
        const err = await refusal(c.updateOne(filter, update));
        expect(err.message).toBe(message);
        expect(err).toMatchObject({ code: 400, storeCode: 40, codeName: "ConflictingUpdateOperators" });
      }
    }
    // Siblings and look-alike prefixes do not conflict.
    await c.updateOne({ _id: "d" }, { $set: { "a.b": 2, "a.c": 3, ab: 4 } });
    expect(await c.findOne({ _id: "d" })).toEqual({ _id: "d", a: { b: 2, c: 3 }, ab: 4 });
  });
});

describe("sort order of mixed types is MongoDB's", () => {
  test("empty array < null = missing < numbers < strings < objects < arrays (by element) < booleans", async () => {
    const c = fresh();
    const values: [string, unknown][] = [
      ["bool-true", true],
      ["obj", { x: 1 }],
      ["str", "a"],
      ["null", null],
      ["num", 1],
      ["empty", []],
      ["arr2", [2]],
      ["nested", [[0]]],
      ["bool-false", false],
      ["missing", undefined],
      ["neg", -5],
    ];
    await c.insertMany(values.map(([_id, v]) => (v === undefined ? { _id } : { _id, v })));
    const order = async (dir: 1 | -1) => (await c.find({}, { sort: { v: dir } })).map((d) => d._id);
    // An array sorts by its smallest element ascending ([2] as 2, [[0]] as the array [0]).
    expect(await order(1)).toEqual([
      "empty",
      "null",
      "missing",
      "neg",
      "num",
      "arr2",
      "str",
      "obj",
      "nested",
      "bool-false",
      "bool-true",
    ]);
    // Descending by the largest element; an empty array stays below null either way.
    expect(await order(-1)).toEqual([
      "bool-true",
      "bool-false",
      "nested",
      "obj",
      "str",
      "arr2",
      "num",
      "neg",
      "null",
      "missing",
      "empty",
    ]);
  });

  test("objects compare member by member: the value's type, then the name, then the value", async () => {
    const c = fresh();
    await c.insertMany([
      { _id: "b-str", v: { b: "x" } },
      { _id: "a-str", v: { a: "x" } },
      { _id: "z-num", v: { z: 1 } },
      { _id: "a-num-2", v: { a: 1, b: 2 } },
      { _id: "a-num", v: { a: 1 } },
    ]);
    expect((await c.find({}, { sort: { v: 1 } })).map((d) => d._id)).toEqual([
      "a-num",
      "a-num-2",
      "z-num",
      "a-str",
      "b-str",
    ]);
  });
});

describe("regex options are MongoDB's: i, m, s, x, u", () => {
  test("each is accepted; x (extended) ignores whitespace and comments; another flag is refused", async () => {
    const c = fresh();
    await c.insertMany([
      { _id: "a", s: "Hello\nWorld" },
      { _id: "b", s: "hello world" },
    ]);
    const ids = async (regex: string, options: string) =>
      (await c.find({ s: { $regex: regex, $options: options } })).map((d) => d._id);
    expect(await ids("^world", "im")).toEqual(["a"]);
    expect(await ids("hello.world", "is")).toEqual(["a", "b"]);
    expect(await ids("hello.world", "i")).toEqual(["b"]);
    expect(await ids("^ w o r l d  # the second line\n", "imx")).toEqual(["a"]);
    expect(await ids("hello[ ]world", "x")).toEqual(["b"]);
    expect(await ids("^h.llo", "u")).toEqual(["b"]);
    for (const bad of ["g", "iq", "y"]) {
      const err = await refusal(ids("x", bad));
      expect(err.message).toBe(`invalid flag in regex options: ${bad.replace("i", "")}`);
      expect(err).toMatchObject({ code: 400, storeCode: 51108 });
    }
  });

  test("extended patterns: escaped whitespace and classes keep their spaces", () => {
    expect(stripExtended("a b\\ c [ d]#x\ne")).toBe("ab\\ c[ d]e");
  });
});

describe("what a caller answers", () => {
  test("a refusal for size is 413, any other refusal 400, a duplicate key 409: never a 500", () => {
    expect(
      toErrorBody(new StoreRuleError("object to insert too large", 10334, "BSONObjectTooLarge"), "r1"),
    ).toMatchObject({ code: 413, type: "PAYLOAD_TOO_LARGE", message: "object to insert too large" });
    expect(
      toErrorBody(new StoreRuleError("Cannot create field 'b'", 28, "PathNotViable"), "r1"),
    ).toMatchObject({
      code: 400,
      type: "STORE_RULE",
      data: { storeCode: 28, codeName: "PathNotViable" },
    });
    const dup = toErrorBody(new DuplicateKeyError("accounts", { email: "a@x" }), "r1");
    expect(dup).toMatchObject({ code: 409, type: "CONFLICT" });
    expect(JSON.stringify(dup)).not.toContain("a@x");
  });

  test("MongoDB's own errors become the same errors (single writes, bulk writes, rule codes)", () => {
    const single = storeError(
      "users",
      new MongoServerError({ code: 11000, keyValue: { email: "a" }, errmsg: "E11000" }),
    );
    expect(single).toBeInstanceOf(DuplicateKeyError);
    expect((single as DuplicateKeyError).key).toEqual({ email: "a" });
    const bulk = storeError("users", {
      message: "E11000 duplicate key error",
      writeErrors: [{ code: 11000, err: { code: 11000, keyValue: { email: "b" } } }],
    });
    expect(bulk).toBeInstanceOf(DuplicateKeyError);
    expect((bulk as DuplicateKeyError).key).toEqual({ email: "b" });
    for (const [code, codeName] of [
      [14, "TypeMismatch"],
      [28, "PathNotViable"],
      [40, "ConflictingUpdateOperators"],
      [10334, "BSONObjectTooLarge"],
      [17419, "BSONObjectTooLarge"],
    ] as const) {
      const err = storeError("jobs", new MongoServerError({ code, errmsg: "refused" }));
      expect(err).toBeInstanceOf(StoreRuleError);
      expect(err).toMatchObject({ codeName, storeCode: code === 17419 ? 10334 : code });
    }
    const network = new Error("connection reset");
    expect(storeError("jobs", network)).toBe(network);
  });
});

describe("the options handed to the MongoDB driver", () => {
  const optionsFor = (env: Record<string, string>) =>
    mongoClientOptions(loadConfig({ DATA_DIR: "/tmp", ...env }).mongo);

  test("production defaults: majority journaled writes, primary majority reads, every wait below REQUEST_TIMEOUT", () => {
    expect(optionsFor({})).toEqual({
      ignoreUndefined: true,
      w: "majority",
      journal: true,
      wtimeoutMS: 8000,
      writeConcern: { w: "majority", journal: true, wtimeoutMS: 8000 },
      readPreference: "primary",
      readConcernLevel: "majority",
      readConcern: { level: "majority" },
      serverSelectionTimeoutMS: 5000,
      connectTimeoutMS: 5000,
      waitQueueTimeoutMS: 8000,
      socketTimeoutMS: 8000,
      maxPoolSize: 50,
      appName: "automation-platform",
      retryWrites: true,
      retryReads: true,
    });
    // A shorter request timeout pulls the bound below it.
    const short = optionsFor({ REQUEST_TIMEOUT: "3000" });
    expect(short.socketTimeoutMS).toBe(2000);
    expect(short.writeConcern).toMatchObject({ wtimeoutMS: 2000 });
  });

  test("each is overridable from the environment; a bound at or past REQUEST_TIMEOUT is refused at start", () => {
    const options = optionsFor({
      MONGO_WRITE_CONCERN: "2",
      MONGO_JOURNAL: "false",
      MONGO_READ_PREFERENCE: "primaryPreferred",
      MONGO_READ_CONCERN: "local",
      MONGO_TIMEOUT_MS: "4000",
      MONGO_SERVER_SELECTION_TIMEOUT_MS: "2500",
      MONGO_MAX_POOL_SIZE: "20",
      MONGO_APP_NAME: "ap-engine",
    });
    expect(options).toMatchObject({
      writeConcern: { w: 2, journal: false, wtimeoutMS: 4000 },
      readPreference: "primaryPreferred",
      readConcern: { level: "local" },
      serverSelectionTimeoutMS: 2500,
      socketTimeoutMS: 4000,
      maxPoolSize: 20,
      appName: "ap-engine",
    });
    expect(() => optionsFor({ MONGO_TIMEOUT_MS: "10000" })).toThrow(/below REQUEST_TIMEOUT/);
    expect(() => optionsFor({ MONGO_READ_PREFERENCE: "secondaryish" })).toThrow(/MONGO_READ_PREFERENCE/);
    expect(() => optionsFor({ MONGO_WRITE_CONCERN: "0" })).toThrow(/MONGO_WRITE_CONCERN/);
  });

  test("the driver takes them, and they win over the connection string's own", async () => {
    const url =
      "mongodb://db-0,db-1/?replicaSet=rs0&readPreference=secondaryPreferred&w=1&journal=false&readConcernLevel=local&appName=x";
    const client = new MongoClient(url, optionsFor({}));
    try {
      const o = client.options;
      expect(o.replicaSet).toBe("rs0");
      expect(o.readPreference.mode).toBe("primary");
      expect(o.writeConcern).toMatchObject({ w: "majority", journal: true });
      expect(o.readConcern?.level).toBe("majority");
      expect(o.serverSelectionTimeoutMS).toBe(5000);
      expect(o.maxPoolSize).toBe(50);
      expect(o.appName).toBe("automation-platform");
    } finally {
      await client.close();
    }
  });
});
