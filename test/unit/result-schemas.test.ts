/**
 * Result schemas (shared/contracts/schema.ts `returns(rule)`): every action of every contract has
 * one, its TypeScript type is inferred from it, and its JSON Schema puts named resources under
 * `components.schemas`. test/gateway/openapi-responses.test.ts checks real answers against them.
 */
import { contracts, type ResultOf } from "../../shared/contracts";
import type { ActionContract } from "../../shared/contracts/define";
import type { Account, Job } from "../../shared/contracts/resources";
import {
  anyValue,
  arrayOf,
  named,
  nullable,
  num,
  oneOf,
  openShape,
  optional,
  recordOf,
  returns,
  ruleToJsonSchema,
  shape,
  str,
  type InferRule,
  type JsonSchema,
} from "../../shared/contracts/schema";

/** Compile-time equality: `expectType<Equal<A, B>>(true)` fails to compile when A and B differ. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const expectType = <T extends true>(value: T) => value;

test("every action of every contract declares a result schema", () => {
  const missing: string[] = [];
  for (const contract of Object.values(contracts))
    for (const [name, action] of Object.entries(contract.actions as Record<string, ActionContract>))
      if (!action.result?.rule) missing.push(`${contract.name}.${name}`);
  expect(missing).toEqual([]);
});

test("a result's type is inferred from its schema", () => {
  const thing = shape({
    id: str,
    count: optional(num),
    state: oneOf("on", "off"),
    owner: nullable(str),
    tags: arrayOf(str),
    extra: recordOf(anyValue),
  });
  type Thing = InferRule<typeof thing>;
  expectType<Equal<Thing["state"], "on" | "off">>(true);
  expectType<Equal<Thing["owner"], string | null>>(true);
  expectType<Equal<Thing["count"], number | undefined>>(true);
  expectType<Equal<Thing["tags"], string[]>>(true);
  const open = openShape({ id: str });
  expect(open.strict).toBe(false);
  const doc: InferRule<typeof open> = { id: "x", anything: 1 };
  expect(doc.anything).toBe(1);
  expect(returns(thing).rule).toBe(thing);
});

test("the typed call helper answers the inferred types", () => {
  expectType<Equal<ResultOf<"accounts.create">, Account>>(true);
  expectType<Equal<ResultOf<"engine.startJob">, Job>>(true);
  expectType<Equal<ResultOf<"accounts.myTtl">, number>>(true);
  expectType<Equal<ResultOf<"accounts.listGroups">[number]["assignedRoles"][number], string>>(true);
  type GetJob = ResultOf<"engine.getJob">;
  expectType<Equal<GetJob["data"]["status"], "running" | "paused" | "complete" | "error" | "canceled">>(true);
});

test("JSON Schema: closed and open objects, nullable, named resources by $ref", () => {
  const thing = named("Thing", shape({ id: str, note: optional(str) }));
  const refs: Record<string, JsonSchema> = {};
  const schema = ruleToJsonSchema(
    shape({ one: thing, maybe: nullable(thing), many: arrayOf(thing), doc: openShape({ a: str }) }),
    refs,
  );
  expect(schema).toEqual({
    type: "object",
    properties: {
      one: { $ref: "#/components/schemas/Thing" },
      maybe: { anyOf: [{ $ref: "#/components/schemas/Thing" }, { type: "null" }] },
      many: { type: "array", items: { $ref: "#/components/schemas/Thing" } },
      doc: { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
    },
    required: ["one", "maybe", "many", "doc"],
    additionalProperties: false,
  });
  expect(refs).toEqual({
    Thing: {
      type: "object",
      properties: { id: { type: "string" }, note: { type: "string" } },
      required: ["id"],
      additionalProperties: false,
    },
  });
  // Without a refs map (params), a named rule is written inline.
  expect(ruleToJsonSchema(thing)).toEqual(refs.Thing);
});
