/**
 * The gateway's plain query parser (gateway/query-string.ts) answers exactly what moleculer-web's
 * qs answers, key order and prototype included, for every query it takes; the rest it leaves to qs.
 */
import ApiGateway from "moleculer-web";
import { plainQuery } from "../../gateway/query-string";
import { int, pick, seeded } from "../support/random-docs";

/** moleculer-web's own parse, with the gateway's settings (no qsOptions). */
const viaQs = (text: string) =>
  (ApiGateway as any).methods.parseQueryString.call({ settings: {} }, { url: `/x?${text}` }).query;

function expectSameAsQs(text: string): "plain" | "qs" {
  const plain = plainQuery(text);
  if (!plain) return "qs";
  const expected = viaQs(text);
  expect(JSON.stringify(plain)).toBe(JSON.stringify(expected));
  expect(plain).toStrictEqual(expected);
  expect(Object.getPrototypeOf(plain)).toBe(Object.getPrototypeOf(expected));
  return "plain";
}

const PIECES = [
  "a",
  "b",
  "limit",
  "skip",
  "10",
  "0",
  "x y",
  "+",
  "%20",
  "%2B",
  "%26",
  "%3D",
  "%ZZ",
  "%",
  "%E2%9C%93",
  "%C3",
  "é",
  ".",
  "a.b",
  "[",
  "]",
  "%5B",
  "%5d",
  "__proto__",
  "toString",
  "constructor",
  "hasOwnProperty",
  "=",
  "&",
  "&&",
  "==",
  "1",
  "-1",
  "true",
  "null",
  "equals[name]",
  "sort",
  "dir",
  "%00",
  "ü%FC",
];

describe("plain query strings", () => {
  test.each([
    ["", {}],
    ["limit=10", { limit: "10" }],
    ["limit=10&skip=20&sort=name", { limit: "10", skip: "20", sort: "name" }],
    ["q=a+b%20c&flag", { q: "a b c", flag: "" }],
    ["bad=%ZZ&ok=%41", { bad: "%ZZ", ok: "A" }],
    ["1=one&b=two", { 1: "one", b: "two" }],
  ])("%j is parsed here, as qs parses it", (text, expected) => {
    expect(plainQuery(text)).toStrictEqual(expected);
    expect(expectSameAsQs(text)).toBe("plain");
  });

  test.each([
    "equals[name]=x",
    "a%5Bb%5D=1",
    "a=1&a=2",
    "__proto__=x",
    "toString=1",
    "=x",
    "a=1&&b=2",
    Array.from({ length: 21 }, (_, i) => `k${i}=v`).join("&"),
  ])("%j is left to qs", (text) => {
    expect(plainQuery(text)).toBeUndefined();
  });

  test("random query strings: every one parsed here matches qs", () => {
    const r = seeded(4242);
    let plain = 0;
    for (let i = 0; i < 20_000; i++) {
      const text = Array.from({ length: int(r, 0, 8) }, () => pick(r, PIECES)).join("");
      if (expectSameAsQs(text) === "plain") plain++;
    }
    // Both kinds occur often enough for the comparison to mean something.
    expect(plain).toBeGreaterThan(2_000);
    expect(plain).toBeLessThan(19_000);
  });
});
