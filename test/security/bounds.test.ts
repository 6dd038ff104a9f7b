/**
 * No input can poison the store (docs/security.md#limits): a body nested past MAX_INPUT_DEPTH is a
 * 400 naming the limit on every route, before anything is stored; the same bound holds for actions
 * called over the bus; the embedded store writes all or nothing and keeps its files private.
 */
import fs from "node:fs";
import path from "node:path";
import { openEmbeddedStore } from "../../shared/store";
import { chain, manual, withStore } from "../support/engine-fixtures";
import { expectError, usePlatform, tempDir } from "../support/platform";

const env = usePlatform();

/** `{"a":{"a":...1...}}` nested `depth` levels, as raw JSON text (a 10,000-deep value cannot be built with JSON.stringify). */
const deepJson = (depth: number) => '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
const deepValue = (depth: number) => JSON.parse(deepJson(Math.min(depth, 3000)));

const count = (collection: string) =>
  withStore(env.platform.broker, (store) => store.collection(collection).count({}));

beforeAll(async () => {
  const reply = await env.admin.post("/workflow_builder/workflows", {
    workflow: chain("Bounded", [["approve", manual("Approve")]]),
  });
  expect(reply.status).toBe(200);
});

describe("a deep body is a 400 and changes nothing", () => {
  const routes: [string, string, (inner: string) => string][] = [
    [
      "POST /operations-manager/jobs/start",
      "/operations-manager/jobs/start",
      (v) => `{"workflow":"Bounded","options":{"variables":${v}}}`,
    ],
    [
      "POST /workflow_builder/workflows",
      "/workflow_builder/workflows",
      (v) => `{"workflow":{"name":"deep","tasks":{},"transitions":{},"inputSchema":${v}}}`,
    ],
    [
      "POST /adapters",
      "/adapters",
      (v) =>
        `{"properties":{"name":"deep","type":"Application","properties":{"id":"deep","type":"Redis","properties":${v}}}}`,
    ],
  ];

  test.each(routes)("%s at 1,600 and 10,000 levels", async (_name, url, wrap) => {
    const before = await Promise.all(["jobs", "workflows", "adapters"].map(count));
    for (const depth of [1600, 10_000]) {
      const reply = await env.admin.send("POST", url, { raw: wrap(deepJson(depth)) });
      const error = expectError(reply, 400, "VALIDATION_ERROR");
      expect(error.message).toMatch(/deeper than 64 levels \(MAX_INPUT_DEPTH\)/);
      expect(error.data[0]).toMatchObject({ type: "depth" });
    }
    expect(await Promise.all(["jobs", "workflows", "adapters"].map(count))).toEqual(before);
    // The reads that a stored deep job once broke still answer.
    expect((await env.admin.get("/operations-manager/tasks")).status).toBe(200);
    expect((await env.admin.get("/workflow_engine/tasks/metrics")).status).toBe(200);
  });

  test("within the bound is accepted", async () => {
    const reply = await env.admin.post("/operations-manager/jobs/start", {
      workflow: "Bounded",
      options: { variables: deepValue(60) },
    });
    expect(reply.status).toBe(200);
  });

  test("a GET object parameter is bounded too", async () => {
    const q = encodeURIComponent(`{"equals":${deepJson(200)}}`);
    const reply = await env.admin.get(`/operations-manager/admin/jobs?queryParameters=${q}`);
    expect(reply.status).toBe(400);
  });
});

test("an action called over the bus keeps the same bound", async () => {
  await expect(
    env.platform.broker.call("engine.startJob", {
      workflow: "Bounded",
      options: { variables: deepValue(100) },
    }),
  ).rejects.toMatchObject({ code: 400, type: "VALIDATION_ERROR" });
});

describe("the embedded store", () => {
  test("refuses a document it could not read back, whole: nothing logged, nothing kept", async () => {
    const dir = tempDir();
    let store = await openEmbeddedStore(dir);
    await store.collection("things").insertOne({ _id: "ok", n: 1 });
    await expect(store.collection("things").insertOne({ _id: "deep", v: deepValue(500) })).rejects.toThrow(
      /deeper than/,
    );
    await expect(
      store.collection("things").updateOne({ _id: "ok" }, { $set: { v: deepValue(500) } }),
    ).rejects.toThrow(/deeper than/);
    expect(await store.collection("things").find({})).toEqual([{ _id: "ok", n: 1 }]);
    await store.close();
    store = await openEmbeddedStore(dir);
    expect(await store.collection("things").find({})).toEqual([{ _id: "ok", n: 1 }]);
    await store.close();
  });

  test("tightens the files of a store made before they were private", async () => {
    const dir = tempDir();
    const first = await openEmbeddedStore(dir);
    await first.collection("things").insertOne({ n: 1 });
    await first.close();
    const storeDir = path.join(dir, "store");
    fs.writeFileSync(path.join(storeDir, "snapshot.json"), JSON.stringify({ s: 0, collections: {} }));
    fs.chmodSync(storeDir, 0o755);
    for (const file of ["store.log", "snapshot.json"]) fs.chmodSync(path.join(storeDir, file), 0o644);
    const reopened = await openEmbeddedStore(dir);
    await reopened.close();
    expect((fs.statSync(storeDir).mode & 0o777).toString(8)).toBe("700");
    for (const file of ["store.log", "snapshot.json"])
      expect({ file, mode: (fs.statSync(path.join(storeDir, file)).mode & 0o777).toString(8) }).toEqual({
        file,
        mode: "600",
      });
  });

  test("keeps its files readable by their owner only", async () => {
    const dir = tempDir();
    const store = await openEmbeddedStore(dir);
    await store.collection("things").insertOne({ n: 1 });
    await store.close();
    for (const file of fs.readdirSync(path.join(dir, "store"))) {
      const mode = fs.statSync(path.join(dir, "store", file)).mode & 0o777;
      expect({ file, mode: mode.toString(8) }).toEqual({ file, mode: expect.stringMatching(/^[67]00$/) });
    }
  });
});
