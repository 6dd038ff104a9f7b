/**
 * The gateway's alias lookup (gateway/alias-memo.ts: remembered paths without parameters, and the
 * aliases indexed by method and first path segment) answers what moleculer-web's scan of every
 * alias answers: the same alias and the same params, for the real route table and paths made
 * from it (ids, case changes, trailing slashes, encodings, unknown paths, other methods), and for
 * an alias list that changes.
 */
import ApiGateway from "moleculer-web";
import { AliasMemo } from "../../gateway/alias-memo";
import { operations } from "../../shared/contracts";
import { int, pick, seeded } from "../support/random-docs";
import { startPlatform, type Platform } from "../support/platform";

type Found = { alias: unknown; params: Record<string, unknown> } | false;
const fullScan = (ApiGateway as any).methods.resolveAlias as (
  this: unknown,
  url: string,
  method: string,
) => Found;

let platform: Platform;
let gateway: any;
beforeAll(async () => {
  platform = await startPlatform();
  gateway = platform.broker.services.find((s: any) => s.name === "api" || s.server)!;
});
afterAll(() => platform.stop());

/** The answer, or the error thrown (a parameter that is not valid percent-encoding). */
function attempt(find: () => Found): Found | { thrown: string } {
  try {
    return find();
  } catch (err) {
    return { thrown: `${(err as Error).name}: ${(err as Error).message}` };
  }
}

function expectSame(url: string, method: string): boolean {
  const ours = attempt(() => gateway.resolveAlias(url, method));
  const theirs = attempt(() => fullScan.call(gateway, url, method));
  if (theirs && "thrown" in theirs) {
    expect(ours).toEqual(theirs);
    return false;
  }
  if (theirs === false) {
    expect(ours).toBe(false);
    return false;
  }
  expect(ours).not.toBe(false);
  expect((ours as any).alias).toBe(theirs.alias);
  expect((ours as any).params).toEqual(theirs.params);
  return true;
}

const WORDS = ["a", "x1", "bench", "default", "ÿ", "%41", "%zz", "K", "with space", "..", "-", "_"];

function pathsOf(r: () => number, template: string): string[] {
  const filled = template.replace(/:[A-Za-z0-9_]+/g, () => pick(r, WORDS));
  const flipped = [...filled].map((c) => (r() < 0.3 ? c.toUpperCase() : c)).join("");
  return [
    filled,
    flipped,
    `${filled}/`,
    `${filled}/extra`,
    filled.replace(/^\/[^/]*/, "/unknown"),
    `/${filled}`,
  ];
}

test("the real route table: every operation's paths, with ids, cases and slashes, as the full scan", () => {
  const r = seeded(26);
  const methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD", "PROPFIND"];
  let matched = 0;
  let checked = 0;
  // Twice: the second time the remembered paths answer.
  for (let pass = 0; pass < 2; pass++)
    for (const op of operations())
      for (const url of pathsOf(r, op.path))
        for (const method of [op.method, pick(r, methods)]) {
          if (expectSame(url, method)) matched++;
          checked++;
        }
  expect(checked).toBeGreaterThan(1000);
  expect(matched).toBeGreaterThan(checked / 4);
  for (const url of ["/", "", "x", "//", "/?", "/%2F", "/ÿÿ/x", `/${"a".repeat(300)}`])
    for (const method of methods) expectSame(url, method);
  // A parameterized path: some operations have one, answered through the index.
  expect(operations().some((op) => op.path.includes(":"))).toBe(true);
  const random = seeded(7);
  for (let i = 0; i < 2000; i++) {
    const op = pick(random, operations());
    const url = pathsOf(random, op.path)[int(random, 0, 5)];
    expectSame(url, pick(random, methods));
  }
});

test("a changed alias list is indexed afresh", () => {
  const memo = new AliasMemo();
  const alias = (
    method: string,
    fullPath: string,
    match: (url: string) => Record<string, unknown> | false,
  ) => ({
    method,
    fullPath,
    keys: fullPath.includes(":") ? [{ name: "id" }] : [],
    isMethod: (m: string) => method === "*" || method === m,
    match,
  });
  const byId = (prefix: string) => (url: string) =>
    url.startsWith(prefix) && url.length > prefix.length ? { id: url.slice(prefix.length) } : false;
  const first = alias("GET", "/things/:id", byId("/things/"));
  const list: unknown[] = [first];
  const noScan = () => {
    throw new Error("indexed: no full scan");
  };
  expect(memo.resolve(list, "/things/1", "GET", noScan)).toEqual({ alias: first, params: { id: "1" } });
  expect(memo.resolve(list, "/other/1", "GET", noScan)).toBe(false);
  // Appended in place (moleculer-web does so): found once the list's length changes.
  const second = alias("GET", "/other/:id", byId("/other/"));
  list.push(second);
  expect(memo.resolve(list, "/other/1", "GET", noScan)).toEqual({ alias: second, params: { id: "1" } });
  // An alias whose first segment is a pattern is in every list, in its place.
  const any = alias("*", "/:kind/:id", (url) => ({ id: url }));
  const withAny = [any, first];
  expect(memo.resolve(withAny, "/things/2", "GET", noScan)).toEqual({
    alias: any,
    params: { id: "/things/2" },
  });
});

test("the path parameters onBeforeCall reads (paramsOf) are the alias's match of that path, whichever path was resolved last", () => {
  const r = seeded(11);
  const found: { alias: any; url: string; method: string }[] = [];
  for (const op of operations())
    for (const url of pathsOf(r, op.path)) {
      const f = attempt(() => gateway.resolveAlias(url, op.method));
      if (f && !("thrown" in f)) found.push({ alias: f.alias, url, method: op.method });
    }
  const withParams = found.filter(({ alias }) => alias.keys.length > 0);
  expect(withParams.length).toBeGreaterThan(50);
  for (const { alias, url } of found)
    expect(gateway.aliasMemo.paramsOf(alias, url)).toEqual(alias.match(url) || {});
  // Read after another path was resolved (often of the same alias, other ids: a request in between):
  // each path's own params, never the last resolved path's.
  let sameAliasOtherParams = 0;
  for (const [i, { alias, url }] of withParams.entries()) {
    const other = withParams[(i + 1) % withParams.length];
    gateway.resolveAlias(other.url, other.method);
    if (
      other.alias === alias &&
      JSON.stringify(other.alias.match(other.url)) !== JSON.stringify(alias.match(url))
    )
      sameAliasOtherParams++;
    expect(gateway.aliasMemo.paramsOf(alias, url)).toEqual(alias.match(url));
  }
  expect(sameAliasOtherParams).toBeGreaterThan(20);
  // Read right after the path's own resolve (the remembered match), a fresh object each time.
  for (const { alias, url, method } of withParams) {
    gateway.resolveAlias(url, method);
    const params = gateway.aliasMemo.paramsOf(alias, url);
    expect(params).toEqual(alias.match(url));
    expect(gateway.aliasMemo.paramsOf(alias, url)).not.toBe(params);
  }
});

test("an alias's text (moleculer-web logs it for every request) is built once, the same text", () => {
  const op = operations().find((o) => o.method === "GET" && !o.path.includes(":"))!;
  const found = gateway.resolveAlias(op.path, op.method);
  const proto = Object.getPrototypeOf(found.alias);
  const spy = jest.spyOn(proto, "toString");
  try {
    const text = found.alias.toString();
    expect(text).toBe(proto.toString.call(found.alias));
    expect(text).toContain(op.path);
    spy.mockClear();
    for (let i = 0; i < 5; i++) expect(gateway.resolveAlias(op.path, op.method).alias.toString()).toBe(text);
    expect(spy).not.toHaveBeenCalled();
  } finally {
    spy.mockRestore();
  }
});
