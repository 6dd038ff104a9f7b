/**
 * A seeded fuzz of every route in the contracts (docs/security.md#how-it-is-tested): generated
 * bodies, query strings and path segments — deep, wide, huge, null, wrong-typed, `$`-keyed,
 * `__proto__` — sent as an admin. Never a 5xx (501 only where an operation is not built yet); every
 * 4xx in the documented error shape; and a rejected request changes nothing: the store's log gains
 * no line but session bookkeeping. FUZZ_SEED reproduces a run; FUZZ_CASES sets cases per route.
 */
import fs from "node:fs";
import path from "node:path";
import { operations, type Operation } from "../../shared/contracts";
import { usePlatform } from "../support/platform";

const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const CASES = Number(process.env.FUZZ_CASES ?? 10);

/** mulberry32: a small seeded generator, so a failure names the seed that reproduces it. */
function generator(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)];
  return { next, int, pick };
}
type Gen = ReturnType<typeof generator>;

const deep = (depth: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
};

/** A hostile value of some kind. */
function value(g: Gen, level = 0): unknown {
  const kinds = [
    () => null,
    () => g.int(2) === 0,
    () => g.next() * 1e12 - 5e11,
    () => Number.MAX_SAFE_INTEGER,
    () => "",
    () => "x".repeat(g.pick([1, 300, 5000, 70_000])),
    () => g.pick(["$where", "{$gt: ''}", "../../etc/passwd", "%zz", "\u0000", "<script>", "' OR 1=1 --"]),
    () => deep(g.pick([10, 65, 200, 2000])),
    () => Array.from({ length: g.pick([0, 3, 2000]) }, () => g.int(10)),
    () => ({ $gt: "" }),
    () => ({ $where: "sleep(1000)", $set: { roles: ["admin"] } }),
    () => JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}'),
    () =>
      level < 2
        ? Object.fromEntries(Array.from({ length: g.int(6) }, (_, i) => [`k${i}`, value(g, level + 1)]))
        : {},
  ];
  return g.pick(kinds)();
}

/** A body in the shape of the operation's params, each member hostile (or the whole body so). */
function body(g: Gen, op: Operation): unknown {
  if (g.int(5) === 0) return value(g);
  const props = Object.keys(op.contract.params).filter((k) => !k.startsWith("$$"));
  return Object.fromEntries(props.filter(() => g.int(3) > 0).map((k) => [k, value(g)]));
}

function segment(g: Gen): string {
  return g.pick([
    "__proto__",
    "%24where",
    "..",
    "%2e%2e",
    "a".repeat(300),
    "%00",
    "0".repeat(24),
    "x y",
    "%zz",
  ]);
}

function query(g: Gen, op: Operation): string {
  const keys = [...Object.keys(op.contract.params), op.objectParam ?? "q", "__proto__", "$where"];
  const parts = Array.from({ length: 1 + g.int(4) }, () => {
    const raw = value(g);
    const text =
      typeof raw === "string" ? raw.slice(0, 2000) : (JSON.stringify(raw)?.slice(0, 2000) ?? "null");
    return `${encodeURIComponent(g.pick(keys))}=${encodeURIComponent(text)}`;
  });
  return parts.join("&");
}

const env = usePlatform();
let logFile: string;

beforeAll(async () => {
  logFile = path.join(env.platform.dataDir, "store", "store.log");
});

/** Store log lines written since `offset`, but session bookkeeping (a sliding session, a login). */
function writesSince(offset: number): string[] {
  const text = fs.readFileSync(logFile, "utf8").slice(offset);
  return text
    .split("\n")
    .filter(Boolean)
    .filter((line) => !/"c":"(sessions|login_failures)"/.test(line));
}

const routes = operations().filter((op) => op.produces !== "sse");

test.each(routes.map((op) => [`${op.method} ${op.path}`, op] as const))("%s", async (_name, op) => {
  const g = generator(SEED ^ [...op.action].reduce((h, c) => Math.imul(h, 31) + c.charCodeAt(0), 7));
  for (let i = 0; i < CASES; i++) {
    const url = op.path.replace(/:[A-Za-z]+/g, () => segment(g));
    const hasBody = op.method === "POST" || op.method === "PUT" || op.method === "PATCH";
    const sentBody = hasBody ? body(g, op) : undefined;
    const before = fs.statSync(logFile).size;
    const reply = await env.admin.send(op.method, hasBody ? url : `${url}?${query(g, op)}`, {
      ...(hasBody && { body: sentBody }),
    });
    const what = `${op.method} ${url} seed ${SEED} case ${i}: ${reply.status} ${reply.text.slice(0, 300)}`;
    if (reply.status >= 500) expect({ what, status: reply.status }).toEqual({ what, status: 501 });
    if (reply.status >= 400) {
      expect({ what, body: reply.body }).toEqual({
        what,
        body: expect.objectContaining({
          name: expect.any(String),
          message: expect.any(String),
          code: reply.status,
          type: expect.stringMatching(/^[A-Z_]+$/),
        }),
      });
      expect({ what, writes: writesSince(before) }).toEqual({ what, writes: [] });
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  }
});
