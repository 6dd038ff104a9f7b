/**
 * A large write answers once the event loop has polled for I/O again (shared/store/embedded/
 * backend.ts, LARGE_WRITE_CHARS), as a database server's answer would: writing a 1 MB document and
 * answering it (the caller's copy, shaping and encoding) are two macrotasks, and requests that
 * arrived meanwhile are served in between (docs/security.md#stalls). A small write still answers
 * before the next poll (no extra loop iteration on the engine's hot path); a large one is in the log
 * before its answer.
 */
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { EmbeddedBackend, LARGE_WRITE_CHARS } from "../../shared/store/embedded/backend";

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) fs.rmSync(dir, { recursive: true, force: true });
});
function openStore(): { store: EmbeddedBackend; dir: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "store-large-writes-"));
  temps.push(dir);
  return { store: new EmbeddedBackend({ dataDir: dir }), dir };
}

const big = () => "x".repeat(LARGE_WRITE_CHARS);

/**
 * Makes `write()` in an I/O callback (as a request's handler runs), just after more bytes were sent
 * to that socket: is the write answered before those bytes are read (the loop held through both),
 * or are they read first (the loop polled for I/O in between)?
 */
async function firstServed(write: () => Promise<unknown>): Promise<"answer" | "other I/O"> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const client = net.connect((server.address() as net.AddressInfo).port, "127.0.0.1");
  try {
    return await new Promise((resolve, reject) => {
      server.once("connection", (socket) => {
        socket.once("data", () => {
          client.write("another request"); // on loopback, readable at the loop's next poll
          socket.once("data", () => resolve("other I/O"));
          write().then(() => resolve("answer"), reject);
        });
        client.write("a request");
      });
    });
  } finally {
    client.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
}

test("a small write answers before the next poll; a large one after the I/O that arrived meanwhile", async () => {
  const { store } = openStore();
  const nodes = store.collection("nodes");
  expect(await firstServed(() => nodes.insertOne({ _id: "small", config: "hostname r1" }))).toBe("answer");
  expect(await firstServed(() => nodes.insertOne({ _id: "large", config: big() }))).toBe("other I/O");
  expect(await firstServed(() => nodes.findOneAndUpdate({ _id: "small" }, { $set: { config: big() } }))).toBe(
    "other I/O",
  );
  expect(await firstServed(() => nodes.updateOne({ _id: "large" }, { $set: { config: "short" } }))).toBe(
    "answer",
  );
  await nodes.updateOne({ _id: "small" }, { $set: { config: big() + "!" } });
  // A call that writes nothing after a large write does not wait for a poll of its own.
  expect(await firstServed(() => nodes.updateOne({ _id: "large" }, { $set: { config: "short" } }))).toBe(
    "answer",
  );
  await store.close();
});

test("a large write is in the log when it is acknowledged, and reads see it before", async () => {
  const { store, dir } = openStore();
  const nodes = store.collection("nodes");
  const value = big();
  const write = nodes.insertOne({ _id: "n1", config: value });
  // Applied at once (reads in the same turn see it), acknowledged a turn later.
  expect((await nodes.findOne({ _id: "n1" }))?.config).toBe(value);
  await write;
  const log = fs.readFileSync(path.join(dir, "store", "store.log"), "utf8");
  expect(log).toContain(value);
  await store.close();
  const reopened = new EmbeddedBackend({ dataDir: dir });
  expect((await reopened.collection("nodes").findOne({ _id: "n1" }))?.config).toBe(value);
  await reopened.close();
});
