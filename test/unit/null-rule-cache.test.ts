/**
 * dropNullOptionals reads a props object's rules once (shared/contracts/schema.ts rulesOf): every
 * later call with the same props answers as the first, for each kind of rule, and another props
 * object is never answered with the first one's rules.
 */
import { dropNullOptionals, type Props } from "../../shared/contracts/schema";

const props: Props = {
  $$strict: true,
  name: { type: "string" },
  note: { type: "string", optional: true },
  cleared: { type: "string", optional: true, nullable: true },
  short: "string|optional",
  required: "string",
  flag: true,
  nested: { type: "object", optional: true, props: { inner: { type: "string", optional: true } } },
  list: {
    type: "array",
    optional: true,
    items: { type: "object", props: { x: { type: "number", optional: true } } },
  },
};

const params = () => ({
  name: null,
  note: null,
  cleared: null,
  short: null,
  required: null,
  flag: null,
  $$strict: null,
  nested: { inner: null, free: null },
  list: [{ x: null, y: null }, null],
});

const expected = {
  name: null,
  cleared: null,
  required: null,
  flag: null,
  $$strict: null,
  nested: { free: null },
  list: [{ y: null }, null],
};

test("the same props answer the same on every call (the rules read once)", () => {
  for (let i = 0; i < 3; i++) {
    const p = params();
    dropNullOptionals(props, p);
    expect(p).toEqual(expected);
  }
});

test("another props object has rules of its own", () => {
  const other: Props = { name: { type: "string", optional: true }, note: "string" };
  const p = { name: null, note: null };
  dropNullOptionals(other, p);
  expect(p).toEqual({ note: null });
  const again = params();
  dropNullOptionals(props, again);
  expect(again).toEqual(expected);
});
