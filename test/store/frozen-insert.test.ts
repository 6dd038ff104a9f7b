/**
 * The embedded store's insert of a frozen document with its JSON text (the engine's new job,
 * shared/frozen-json.ts): stored as given and answered as given, no copy; any other document is
 * answered as a copy the caller may change, and with PERF_MACHINERY off a frozen one too.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { EmbeddedBackend } from "../../shared/store/embedded/backend";
import { parseFrozen, withMessageValues } from "../../shared/frozen-json";
import type { Doc } from "../../shared/store";

delete process.env.STORE_QUERY_SHAPES;

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));
function openStore(machinery: boolean): EmbeddedBackend {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "store-frozen-insert-"));
  dirs.push(dir);
  return new EmbeddedBackend({ dataDir: dir, machinery });
}

const job = () => ({ _id: "j1", status: "running", tasks: { t1: { status: "incomplete" } }, version: 1 });

describe("insert of a frozen document with its text", () => {
  it("answers the document itself, frozen, and stores it", async () => {
    const store = openStore(true);
    const jobs = store.collection("jobs");
    const frozen = parseFrozen(JSON.stringify(job())) as Doc;
    const [answer] = await jobs.insertMany([frozen]);
    expect(answer).toBe(frozen);
    expect(await jobs.findOne({ _id: "j1" })).toEqual(job());
    await store.close();
  });

  it("answers any other document as a copy: changing it changes nothing stored", async () => {
    const store = openStore(true);
    const jobs = store.collection("jobs");
    const plain = job();
    const answer = await jobs.insertOne(plain);
    expect(answer).not.toBe(plain);
    (answer.tasks as Doc).t1 = "scribbled";
    answer.status = "scribbled";
    expect(await jobs.findOne({ _id: "j1" })).toEqual(job());
    await store.close();
  });

  it("with the machinery off, answers a frozen document as a copy that can be changed", async () => {
    const store = openStore(false);
    const jobs = store.collection("jobs");
    const frozen = parseFrozen(JSON.stringify(job())) as Doc;
    const answer = await jobs.insertOne(frozen);
    expect(answer).not.toBe(frozen);
    expect(Object.isFrozen(answer)).toBe(false);
    answer.status = "scribbled";
    expect(await jobs.findOne({ _id: "j1" })).toEqual(job());
    await store.close();
  });
});

describe("values parsed from the write's message (withMessageValues: the store node's params)", () => {
  it("are stored and answered as they are, with the machinery on; copied with it off", async () => {
    for (const machinery of [true, false]) {
      const store = openStore(machinery);
      const jobs = store.collection("jobs");
      const sent = JSON.parse(JSON.stringify(job())) as Doc;
      const answer = await withMessageValues(() => jobs.insertOne(sent));
      expect(answer === sent).toBe(machinery);
      // A $set value of a versioned write is taken as it is too: a read shares stored members.
      const value = JSON.parse('{"status":"complete","rows":[1,2]}') as Doc;
      await withMessageValues(() =>
        jobs.updateOne({ _id: "j1", version: 1 }, { $set: { "tasks.t1": value }, $inc: { version: 1 } }),
      );
      const read = await jobs.findOne({ _id: "j1" }, { readOnly: true });
      expect((read!.tasks as Doc).t1 === value).toBe(machinery);
      expect(read).toEqual({ ...job(), version: 2, tasks: { t1: { status: "complete", rows: [1, 2] } } });
      await store.close();
    }
  });
});
