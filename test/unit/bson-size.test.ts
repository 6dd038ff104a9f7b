/**
 * The embedded store measures documents against MongoDB's 16 MiB bound with a walk of its own
 * (shared/store/embedded/size.ts): it must answer exactly what the driver's calculateObjectSize
 * answers, for every document the store can hold.
 */
import { BSON } from "mongodb";
import { bsonDocumentSize, memberSize } from "../../shared/store/embedded/size";
import { randomDoc, seeded } from "../support/random-docs";

test("random documents: the same size as the driver's", () => {
  const r = seeded(20261125);
  for (let i = 0; i < 2000; i++) {
    const doc = randomDoc(r, `d${i}`);
    expect(bsonDocumentSize(doc)).toBe(BSON.calculateObjectSize(doc));
  }
});

test("each kind of value: numbers at the int32 edges, unicode, nesting, undefined, dates, buffers", () => {
  const doc = {
    int: 2147483647,
    notInt32: 2147483648,
    negative: -2147483648,
    below: -2147483649,
    fraction: 0.5,
    negativeZero: -0,
    nan: NaN,
    big: 1e300,
    text: "plain",
    unicode: "Gi0/1 — é ü 漢字 🙂",
    longUnicode: "é".repeat(100),
    empty: "",
    clé: 1,
    yes: true,
    nothing: null,
    missing: undefined,
    list: [1, "two", [3, [4]], { five: 5 }, null, undefined, ...Array.from({ length: 120 }, (_, i) => i)],
    nested: { a: { b: { c: [] } } },
    when: new Date(0),
    bytes: Buffer.from("abc"),
    bare: Object.assign(Object.create(null), { x: 1 }),
  };
  expect(bsonDocumentSize(doc)).toBe(BSON.calculateObjectSize(doc));
  for (const [key, value] of Object.entries(doc))
    if (value !== undefined)
      expect(memberSize(key, value)).toBe(BSON.calculateObjectSize({ [key]: value }) - 5);
  expect(memberSize("gone", undefined)).toBe(0);
});
