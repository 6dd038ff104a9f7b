/**
 * Large answers are written in slices (gateway/large-answers.ts, docs/security.md#stalls): the
 * client gets every byte with a Content-Length, multi-byte characters across slice edges intact;
 * other requests are answered while a large answer waits on a slow reader; small answers, HEAD
 * and 304 ends go out as before; a client leaving halfway ends the response quietly.
 */
import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { ANSWER_SLICE_BYTES, LARGE_ANSWER_CHARS, endInSlices } from "../../gateway/large-answers";

/** As moleculer-web sends an answer: encoded first, then one `res.end(text)`. */
function serve(answerFor: (url: string) => string) {
  const ends: { url: string; sliced: boolean; closed: boolean }[] = [];
  const server = http.createServer((req, res) => {
    const text = answerFor(req.url ?? "");
    endInSlices(res, text);
    const entry = { url: req.url ?? "", sliced: Object.hasOwn(res, "end"), closed: false };
    ends.push(entry);
    res.on("close", () => (entry.closed = true));
    res.setHeader("Content-Type", "application/json; charset=utf-8");
    if (req.url === "/not-modified") {
      res.statusCode = 304;
      res.end("");
    } else if (req.method === "HEAD") res.end();
    else res.end(text);
  });
  return new Promise<{ server: http.Server; url: string; ends: typeof ends }>((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, ends }),
    ),
  );
}

/** A JSON text of about `chars` characters with 2-, 3- and 4-byte UTF-8 characters all through it. */
function bigText(chars: number): string {
  const item = { word: "interface Gi0/1", note: "é — 日本 😀" };
  const one = JSON.stringify(item).length + 1;
  return JSON.stringify(Array.from({ length: Math.ceil(chars / one) }, (_, i) => ({ ...item, i })));
}

let ctx: Awaited<ReturnType<typeof serve>>;
const BIG = bigText(LARGE_ANSWER_CHARS * 6);
const SMALL = JSON.stringify({ ok: true, note: "é" });

beforeAll(async () => {
  ctx = await serve((url) => (url.startsWith("/big") || url === "/not-modified" ? BIG : SMALL));
});
afterAll(() => new Promise((resolve) => ctx.server.close(resolve)));

test("a large answer arrives whole, as one body of its byte length, characters intact across slices", async () => {
  expect(Buffer.byteLength(BIG)).toBeGreaterThan(ANSWER_SLICE_BYTES * 20);
  const reply = await fetch(`${ctx.url}/big`);
  const body = await reply.text();
  expect(reply.status).toBe(200);
  expect(reply.headers.get("content-length")).toBe(String(Buffer.byteLength(BIG)));
  expect(reply.headers.get("transfer-encoding")).toBeNull();
  expect(body).toBe(BIG);
  expect(ctx.ends.at(-1)).toMatchObject({ url: "/big", sliced: true });
});

test("small answers, HEAD and 304 go out in one end as before", async () => {
  const small = await fetch(`${ctx.url}/small`);
  expect(await small.text()).toBe(SMALL);
  expect(ctx.ends.at(-1)).toMatchObject({ url: "/small", sliced: false });
  const head = await fetch(`${ctx.url}/big-head`, { method: "HEAD" });
  expect(head.status).toBe(200);
  expect(await head.text()).toBe("");
  const notModified = await fetch(`${ctx.url}/not-modified`);
  expect(notModified.status).toBe(304);
  expect(await notModified.text()).toBe("");
});

test("while a large answer waits on a client that does not read, other requests are answered", async () => {
  // A raw client that sends the request and reads nothing for a while: the answer's slices wait.
  const socket = net.connect((ctx.server.address() as AddressInfo).port, "127.0.0.1");
  await new Promise((resolve) => socket.once("connect", resolve));
  socket.pause();
  socket.write("GET /big-slow HTTP/1.1\r\nHost: x\r\n\r\n");
  await new Promise((resolve) => setTimeout(resolve, 200));
  const meanwhile = await fetch(`${ctx.url}/small`);
  expect(await meanwhile.text()).toBe(SMALL);
  // Reading now, the whole answer comes: headers, then every byte of the body.
  const chunks: Buffer[] = [];
  socket.on("data", (d: Buffer) => chunks.push(d));
  socket.resume();
  const expected = Buffer.byteLength(BIG);
  await new Promise<void>((resolve) => {
    const check = () => {
      const all = Buffer.concat(chunks);
      const head = all.indexOf("\r\n\r\n");
      if (head >= 0 && all.length - head - 4 >= expected) resolve();
    };
    socket.on("data", check);
  });
  const all = Buffer.concat(chunks);
  expect(all.subarray(all.indexOf("\r\n\r\n") + 4).toString("utf8")).toBe(BIG);
  socket.destroy();
});

test("a client that leaves halfway ends the response quietly", async () => {
  const socket = net.connect((ctx.server.address() as AddressInfo).port, "127.0.0.1");
  await new Promise((resolve) => socket.once("connect", resolve));
  socket.write("GET /big-gone HTTP/1.1\r\nHost: x\r\n\r\n");
  await new Promise((resolve) => socket.once("data", resolve));
  socket.destroy();
  const entry = () => ctx.ends.find((e) => e.url === "/big-gone");
  for (let i = 0; i < 100 && !entry()?.closed; i++) await new Promise((r) => setTimeout(r, 20));
  expect(entry()).toMatchObject({ sliced: true, closed: true });
  // The server still answers.
  expect(await (await fetch(`${ctx.url}/small`)).text()).toBe(SMALL);
});
