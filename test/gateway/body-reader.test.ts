/**
 * The gateway's body reader (gateway/body-reader.ts) answers what moleculer-web's body parsers
 * (body-parser's json then urlencoded, with the gateway's options) answer for the same request
 * bytes: the same body, or an error of the same type and status. Plain JSON requests take its
 * short way (counted here, so the comparison is not body-parser against itself), whether the body
 * is whole in the buffer when it is read or arrives in pieces afterwards; the rest go to
 * body-parser. Its callback runs in the request's async context, as raw-body's does.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import ApiGateway from "moleculer-web";
import { bodyReader, limitInBytes } from "../../gateway/body-reader";
import { int, pick, randomValue, seeded } from "../support/random-docs";

type Mw = (req: IncomingMessage, res: ServerResponse, next: (err?: any) => void) => void;
const parsers = (ApiGateway as unknown as { bodyParser: Record<string, (o: unknown) => Mw> }).bodyParser;

const LIMIT = "2kb";
const JSON_OPTIONS = { strict: true, type: ["application/json", "application/*+json"] };
const FORM_OPTIONS = { extended: false, parameterLimit: 100 };

// body-parser's own, as moleculer-web built them from the gateway's options before.
const json = parsers.json({ ...JSON_OPTIONS, limit: LIMIT });
const urlencoded = parsers.urlencoded({ ...FORM_OPTIONS, limit: LIMIT });
const viaBodyParser: Mw = (req, res, next) =>
  json(req, res, (err) => (err ? next(err) : urlencoded(req, res, next)));

// The reader, with body-parser's json counted: a call is a request that did not take the short way.
let fallbacks = 0;
const realJson = parsers.json;
const spy = jest.spyOn(parsers, "json").mockImplementation((opts: unknown) => {
  const inner = realJson(opts);
  return (req, res, next) => {
    fallbacks++;
    inner(req, res, next);
  };
});
const reader = bodyReader({ limit: LIMIT, json: JSON_OPTIONS, urlencoded: FORM_OPTIONS }) as Mw;
spy.mockRestore();

const scope = new AsyncLocalStorage<string>();

/** Each request answers what its middleware made of the body: the body, or the error's type and status. */
let takenWhole = 0;
function serve(mw: Mw): http.Server {
  return http.createServer((req, res) => {
    // Counts the reader's taking of a body already whole in the buffer (a read before any flow).
    const read = req.read;
    req.read = function (this: IncomingMessage, ...args: [number?]) {
      if (mw === reader && req.readableFlowing === null) takenWhole++;
      return read.apply(this, args);
    };
    // Later, as moleculer-web reaches the body parsers after its action call: a body sent with
    // the head is whole in the buffer by then.
    setImmediate(() =>
      scope.run(`scope-${req.url}`, () =>
        mw(req, res, (err) => {
          const answer = err
            ? { error: { type: err.type ?? null, status: err.status ?? null } }
            : {
                body: (req as { body?: unknown }).body ?? null,
                member: "body" in req,
                scope: scope.getStore(),
              };
          res.setHeader("content-type", "application/json");
          res.end(JSON.stringify(answer));
        }),
      ),
    );
  });
}

let ours: http.Server;
let theirs: http.Server;
const portOf = (s: http.Server) => (s.address() as AddressInfo).port;

beforeAll(async () => {
  ours = serve(reader);
  theirs = serve(viaBodyParser);
  await Promise.all([ours, theirs].map((s) => new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()))));
});
afterAll(async () => {
  await Promise.all([ours, theirs].map((s) => new Promise((r) => s.close(r))));
});

/** Sends raw bytes (head + body pieces, a pause between pieces so they arrive apart) and reads the answer. */
function send(
  port: number,
  headers: Record<string, string>,
  pieces: Buffer[],
  method = "POST",
): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let answer = "";
    socket.on("data", (d) => (answer += d.toString("latin1")));
    socket.on("error", reject);
    socket.on("end", () => resolve(answer.slice(answer.indexOf("\r\n\r\n") + 4)));
    const head =
      `${method} /x HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n` +
      Object.entries(headers)
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join("") +
      "\r\n";
    // The head and the first piece in one write, so an uncut body arrives with its head.
    socket.write(Buffer.concat([Buffer.from(head, "latin1"), pieces[0]]));
    let i = 1;
    const next = () => {
      if (i < pieces.length) socket.write(pieces[i++], () => setTimeout(next, 1));
    };
    next();
  });
}

/** The same request to both; returns whether ours took the short way. */
async function expectSame(
  headers: Record<string, string>,
  body: Buffer,
  cuts: number[] = [],
  method = "POST",
): Promise<boolean> {
  const pieces: Buffer[] = [];
  let at = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    if (cut <= at || cut >= body.length) continue;
    pieces.push(body.subarray(at, cut));
    at = cut;
  }
  pieces.push(body.subarray(at));
  const before = fallbacks;
  const [a, b] = await Promise.all([
    send(portOf(ours), headers, pieces, method),
    send(portOf(theirs), headers, pieces, method),
  ]);
  expect(a).toBe(b);
  return fallbacks === before;
}

const withLength = (type: string | undefined, body: Buffer, extra: Record<string, string> = {}) => ({
  ...(type === undefined ? {} : { "content-type": type }),
  "content-length": String(body.length),
  ...extra,
});
const utf8 = (s: string) => Buffer.from(s, "utf8");

test("the limit is read as body-parser reads it", () => {
  expect(limitInBytes("2kb")).toBe(2048);
  expect(limitInBytes("1mb")).toBe(1048576);
  expect(limitInBytes("1.5KB")).toBe(1536);
  expect(limitInBytes("100")).toBe(100);
  expect(limitInBytes("100b")).toBe(100);
  expect(limitInBytes("lots")).toBeUndefined();
});

test("random JSON bodies, cut anywhere (inside a character too), answer the same by the short way", async () => {
  const r = seeded(2611);
  let short = 0;
  for (let n = 0; n < 150; n++) {
    const value = pick(r, [() => ({ v: randomValue(r), s: "é✓😀\u2028" }), () => [randomValue(r), "ÿ"]])();
    const text = JSON.stringify(value, null, pick(r, [0, 1, "\t"]));
    const body = utf8(pick(r, ["", " ", "\r\n\t "]) + text + pick(r, ["", " \n"]));
    const cuts = Array.from({ length: int(r, 0, 3) }, () => int(r, 1, body.length - 1));
    const type = pick(r, ["application/json", "application/json; charset=utf-8", "Application/JSON"]);
    if (await expectSame(withLength(type, body), body, cuts)) short++;
  }
  expect(short).toBe(150);
  // Both short ways ran: bodies whole in the buffer, and bodies read as their pieces arrived.
  expect(takenWhole).toBeGreaterThan(20);
  expect(takenWhole).toBeLessThan(130);
});

test("edge bodies answer the same, by the short way", async () => {
  const bom = Buffer.from([0xef, 0xbb, 0xbf]);
  const bodies: Buffer[] = [
    utf8("{}"),
    utf8("[]"),
    utf8('{"a":1}'),
    Buffer.concat([bom, utf8('{"a":"b"}')]),
    Buffer.concat([bom, bom, utf8("{}")]),
    bom,
    utf8("   "),
    utf8('"text"'),
    utf8("1"),
    utf8("null"),
    utf8("true"),
    utf8(' \n"x"'),
    utf8('{"a":'),
    utf8("{'a':1}"),
    utf8('{"a":1}x'),
    utf8("[1,]"),
    Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xc3, 0x22, 0x7d]),
    Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xe2, 0x9c, 0x22, 0x7d]),
    Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xf0, 0x9f, 0x98, 0x22, 0x7d]),
    Buffer.from([0xef, 0xbb, 0x7b, 0x7d]),
    Buffer.from([0x7b, 0x7d, 0xf0, 0x80]),
    Buffer.from([0x7b, 0x7d, 0xe2]),
    Buffer.from([0xf0, 0x80]),
    Buffer.from([0x20, 0xef, 0xbb, 0xbf, 0x7b, 0x7d]),
    Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xf0, 0x80, 0x41, 0xed, 0xa0, 0x80, 0x22, 0x7d]),
    utf8(`{"deep":${"[".repeat(200)}${"]".repeat(200)}}`),
  ];
  for (const body of bodies)
    for (const cuts of [[], [1], [2], [1, 2, 3], [7], [8], [6, 7, 8, 9]]) {
      expect(await expectSame(withLength("application/json", body), body, cuts)).toBe(true);
    }
});

test("at the limit the short way; over it, and every other request, body-parser's way, the same answers", async () => {
  const atLimit = utf8(`{"a":"${"x".repeat(2048 - 8)}"}`);
  expect(atLimit.length).toBe(2048);
  expect(await expectSame(withLength("application/json", atLimit), atLimit)).toBe(true);
  const over = utf8(`{"a":"${"x".repeat(2048 - 7)}"}`);
  expect(await expectSame(withLength("application/json", over), over)).toBe(false);

  const body = utf8('{"a":1}');
  const others: [Record<string, string>, Buffer][] = [
    [withLength("application/json; charset=utf-16", body), body],
    [withLength("application/json; charset=latin1", body), body],
    [withLength('application/json; charset="utf-8"', body), body],
    [withLength("application/vnd.api+json", body), body],
    [withLength("application/json", body, { "content-encoding": "identity" }), body],
    [withLength("application/json", body, { "content-encoding": "gzip" }), body],
    [withLength("application/x-www-form-urlencoded", utf8("a=1&b=x+y")), utf8("a=1&b=x+y")],
    [withLength("text/plain", body), body],
    [withLength(undefined, body), body],
    [{ "content-type": "application/json", "content-length": "0" }, Buffer.alloc(0)],
    [
      { "content-type": "application/json", "transfer-encoding": "chunked" },
      utf8('7\r\n{"a":1}\r\n0\r\n\r\n'),
    ],
  ];
  for (const [headers, raw] of others) expect(await expectSame(headers, raw)).toBe(false);
});

test("the short way calls back in the request's async context", async () => {
  const body = utf8('{"a":1}');
  const answer = JSON.parse(await send(portOf(ours), withLength("application/json", body), [body]));
  expect(answer).toEqual({ body: { a: 1 }, member: true, scope: "scope-/x" });
});

test("a request without a body skips body-parser: the same answer, `req.body` set as it sets it", async () => {
  const none = Buffer.alloc(0);
  for (const method of ["GET", "DELETE", "POST"])
    for (const headers of [
      {},
      { "content-type": "application/json" },
      { "content-type": "text/plain" },
    ] as Record<string, string>[]) {
      expect(await expectSame(headers, none, [], method)).toBe(true);
      const answer = JSON.parse(await send(portOf(ours), headers, [none], method));
      expect(answer).toEqual({ body: null, member: true, scope: "scope-/x" });
    }
  // A Content-Length (even 0) or a Transfer-Encoding is a body to type-is: body-parser's way.
  expect(await expectSame({ "content-length": "0" }, none, [], "GET")).toBe(false);
  expect(await expectSame({ "transfer-encoding": "chunked" }, utf8("0\r\n\r\n"), [], "DELETE")).toBe(false);
});
