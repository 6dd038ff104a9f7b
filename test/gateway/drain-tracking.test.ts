/**
 * The gateway's drain follows every request until its response is done (gateway/drain.ts): one
 * shared 'close' listener forgets each response, so a drain waits for exactly the responses not yet
 * done. Through HTTP, on a node:http server tracked as the gateway's is.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { HttpDrain } from "../../gateway/drain";

let server: http.Server;
let drain: HttpDrain;
let port: number;
const held: http.ServerResponse[] = [];
const answered: http.ServerResponse[] = [];

beforeAll(async () => {
  drain = new HttpDrain();
  server = http.createServer((req, res) => {
    drain.track(res);
    if (req.url === "/held") held.push(res);
    else {
      answered.push(res);
      res.end("done");
    }
  });
  drain.attach(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

/** Until the server has seen every response close (polled: 'close' follows the client's answer). */
async function settled(count: number): Promise<number> {
  for (let i = 0; i < 500 && drain.inFlightCount !== count; i++)
    await new Promise((resolve) => setTimeout(resolve, 10));
  return drain.inFlightCount;
}

test("answered responses are forgotten, each one; a response not yet done is followed", async () => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
  const get = (path: string) =>
    new Promise<string>((resolve, reject) =>
      http
        .get({ port, host: "127.0.0.1", path, agent }, (res) => {
          let text = "";
          res.on("data", (d) => (text += d)).on("end", () => resolve(text));
        })
        .on("error", reject),
    );
  // Several on the same keep-alive sockets: each response gets the one listener.
  for (let i = 0; i < 5; i++) expect(await get("/")).toBe("done");
  expect(await settled(0)).toBe(0);
  const answer = get("/held");
  expect(await settled(1)).toBe(1);
  await Promise.all([get("/"), get("/")]);
  expect(await settled(1)).toBe(1);
  held[0].end("late");
  expect(await answer).toBe("late");
  expect(await settled(0)).toBe(0);
  agent.destroy();
});

test("a forgotten response keeps no link to the responses still followed (shared/linked-set.ts)", async () => {
  // Followed in a linked set, not a Set: a Set's left-behind tables kept finished responses alive
  // past the young generation's collections. Once forgotten, a response's two links are cleared.
  expect(await settled(0)).toBe(0);
  expect(answered.length).toBeGreaterThan(0);
  for (const res of answered) {
    const links = Object.getOwnPropertySymbols(res).filter((s) => s.description?.startsWith("linked-set."));
    expect(links.map((s) => (res as unknown as Record<symbol, unknown>)[s])).toEqual([null, null]);
  }
});

test("a done response comes back to onAnswered once, with its start, from the drain's one listener", async () => {
  const answered: [http.ServerResponse, number][] = [];
  const timedDrain = new HttpDrain();
  timedDrain.onAnswered((res, startedAt) => answered.push([res, startedAt]));
  const listeners: number[] = [];
  const timed = http.createServer((req, res) => {
    timedDrain.track(res, 1000 + answered.length + listeners.length);
    // The metrics ride on the drain's own 'close' listener: a second one would make every
    // response's listeners an array.
    listeners.push(res.listenerCount("close"));
    res.end("done");
  });
  await new Promise<void>((resolve) => timed.listen(0, "127.0.0.1", resolve));
  const timedPort = (timed.address() as AddressInfo).port;
  try {
    for (let i = 0; i < 3; i++) {
      const answer = await fetch(`http://127.0.0.1:${timedPort}/`);
      expect(await answer.text()).toBe("done");
      for (let j = 0; j < 500 && answered.length <= i; j++)
        await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(listeners).toEqual([1, 1, 1]);
    expect(answered.map(([, startedAt]) => startedAt)).toEqual([1000, 1002, 1004]);
    expect(new Set(answered.map(([res]) => res)).size).toBe(3);
    expect(timedDrain.inFlightCount).toBe(0);
  } finally {
    timed.closeAllConnections();
    await new Promise((resolve) => timed.close(resolve));
  }
});
