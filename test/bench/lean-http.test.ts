/**
 * The engine benches' HTTP client (bench/support/lean-http.ts): what it answers is what the server
 * sent, through keep-alive, chunked bodies, more requests than sockets, and a server that closes
 * idle sockets.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { LeanHttp, parseAnswer } from "../../bench/support/lean-http";

let server: http.Server;
let base: string;
let sockets = 0;
let closed = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (body += c));
    req.on("end", () => {
      if (req.url === "/last") res.shouldKeepAlive = false; // answered with Connection: close
      if (req.url === "/chunked") {
        res.writeHead(201, { "content-type": "text/plain" });
        res.write("né ");
        setTimeout(() => res.end(body), 5);
        return;
      }
      const answer = JSON.stringify({
        method: req.method,
        url: req.url,
        auth: req.headers.authorization,
        body,
      });
      // With its length, as the gateway answers (the chunked path has its own request above).
      res.writeHead(req.url === "/missing" ? 404 : 200, {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(answer),
      });
      res.end(answer);
    });
  });
  server.on("connection", (socket) => {
    sockets++;
    socket.on("close", () => closed++);
  });
  server.keepAliveTimeout = 200;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("LeanHttp", () => {
  it("answers each request with its own status and body, over kept-alive sockets", async () => {
    const client = new LeanHttp(base, 4);
    const before = sockets;
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        client.request(
          "POST",
          `/r${i}`,
          { authorization: `Bearer t${i}` },
          JSON.stringify({ i, text: "é✓" }),
        ),
      ),
    );
    answers.forEach((a, i) => {
      expect(a.status).toBe(200);
      expect(JSON.parse(a.body)).toEqual({
        method: "POST",
        url: `/r${i}`,
        auth: `Bearer t${i}`,
        body: JSON.stringify({ i, text: "é✓" }),
      });
    });
    expect(sockets - before).toBeLessThanOrEqual(4);
    expect((await client.request("GET", "/missing", {})).status).toBe(404);
    client.close();
  });

  it("reads a chunked answer whole", async () => {
    const client = new LeanHttp(base);
    const a = await client.request("POST", "/chunked", {}, "body");
    expect(a).toEqual({ status: 201, body: "né body" });
    client.close();
  });

  it("opens a new socket when the server closed an idle one", async () => {
    const client = new LeanHttp(base, 1);
    expect((await client.request("GET", "/a", {})).status).toBe(200);
    const [opened, gone] = [sockets, closed];
    // The server closes the idle socket past its keep-alive timeout (plus Node's buffer).
    for (let waited = 0; closed === gone && waited < 5000; waited += 50)
      await new Promise((r) => setTimeout(r, 50));
    expect(closed).toBe(gone + 1);
    await new Promise((r) => setTimeout(r, 20)); // the client hears of it
    expect(JSON.parse((await client.request("GET", "/b", {})).body).url).toBe("/b");
    expect(sockets).toBe(opened + 1);
    client.close();
  });

  it("does not send on a socket after the server's Connection: close", async () => {
    const client = new LeanHttp(base, 1);
    const before = sockets;
    // One socket at most: the second and third wait for the first's to close, then get a new one.
    const answers = await Promise.all(["/last", "/after", "/last"].map((p) => client.request("GET", p, {})));
    expect(answers.map((a) => JSON.parse(a.body).url)).toEqual(["/last", "/after", "/last"]);
    expect(sockets - before).toBe(2);
    expect(JSON.parse((await client.request("GET", "/again", {})).body).url).toBe("/again");
    expect(sockets - before).toBe(3);
    client.close();
  });

  it("lets a socket go once idle for its idleMs, before the server's keep-alive timeout", async () => {
    const client = new LeanHttp(base, 4, 30_000, 50);
    const before = sockets;
    await client.request("GET", "/a", {});
    await client.request("GET", "/b", {}); // at once: the same socket
    expect(sockets - before).toBe(1);
    const gone = closed;
    await new Promise((r) => setTimeout(r, 100)); // past idleMs, within the server's 200 ms
    expect(closed).toBe(gone);
    expect(JSON.parse((await client.request("GET", "/c", {})).body).url).toBe("/c");
    expect(sockets - before).toBe(2);
    client.close();
  });
});

describe("parseAnswer", () => {
  const text = (s: string) => Buffer.from(s, "utf8");
  it("waits for the whole body and counts what follows it", () => {
    expect(parseAnswer(text("HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nab"))).toBeUndefined();
    expect(parseAnswer(text("HTTP/1.1 200 OK\r\ncontent-length: 3\r\n\r\né!"))).toEqual({
      status: 200,
      body: "é!",
      rest: 0,
      close: false,
    });
    expect(parseAnswer(text("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nabXY"))).toEqual({
      status: 200,
      body: "ab",
      rest: 2,
      close: false,
    });
    expect(
      parseAnswer(text("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nab\r\n")),
    ).toBeUndefined();
    expect(
      parseAnswer(
        text("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nab\r\n1\r\nc\r\n0\r\n\r\n"),
      ),
    ).toEqual({ status: 200, body: "abc", rest: 0, close: false });
  });
  it("reads the server's Connection: close, in any case", () => {
    const head = "HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\n";
    expect(parseAnswer(text(`${head}Connection: Close\r\n\r\n`))?.close).toBe(true);
    expect(parseAnswer(text(`${head}connection: keep-alive\r\n\r\n`))?.close).toBe(false);
  });
  it("refuses what is no HTTP/1.1 answer", () => {
    expect(() => parseAnswer(text("SSH-2.0\r\n\r\n"))).toThrow(/not an HTTP/);
    expect(() => parseAnswer(text("HTTP/1.1 200 OK\r\n\r\nabc"))).toThrow(/without a length/);
  });
});
