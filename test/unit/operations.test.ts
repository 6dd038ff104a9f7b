/**
 * The engine's other built-in operations (services/engine/operations/, docs/engine.md "The
 * operations"), from their incoming variables: query, merge, delay, forEach's items and childJob's
 * request. Bad input is an OperationError (the task finishes `error`, code 400). `evaluation` has
 * its own suite.
 */
import {
  OPERATION_VARIABLES,
  OperationError,
  PURE_OPERATIONS,
  childDetails,
  childRequest,
  delayMs,
  loopItems,
} from "../../services/engine/operations";
import { MAX_DELAY_SECONDS } from "../../services/engine/operations/delay";
import { MAX_ITEMS } from "../../services/engine/operations/for-each";
import { merge } from "../../services/engine/operations/merge";
import { OPERATION_TASKS, isOperationTask } from "../../services/engine/operations/names";
import { normalizePath, query } from "../../services/engine/operations/query";

const badInput = (fn: () => unknown, message: string | RegExp) => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(OperationError);
    expect((err as OperationError).code).toBe(400);
    expect((err as Error).message).toMatch(message);
    return;
  }
  throw new Error("accepted");
};

test("the operation names; the pure ones run inside a write; each is documented for the catalog", () => {
  expect([...OPERATION_TASKS]).toEqual(["evaluation", "query", "merge", "delay", "childJob", "forEach"]);
  expect(Object.keys(PURE_OPERATIONS).sort()).toEqual(["evaluation", "merge", "query"]);
  expect(Object.keys(OPERATION_VARIABLES).sort()).toEqual([...OPERATION_TASKS].sort());
  expect(isOperationTask("forEach")).toBe(true);
  expect(isOperationTask("foreach")).toBe(false);
});

describe("query", () => {
  const obj = {
    interfaces: [
      { name: "ge-0", mtu: 1500 },
      { name: "ge-1", mtu: null },
    ],
    up: false,
  };

  test("a path with dots or brackets reads the value (success, return_data)", () => {
    expect(query({ obj, query: "interfaces.1.name" })).toEqual({
      state: "success",
      outgoing: { return_data: "ge-1" },
    });
    expect(query({ obj, query: "interfaces[0].mtu" }).outgoing.return_data).toBe(1500);
    expect(query({ obj, query: " up " }).outgoing.return_data).toBe(false);
    expect(normalizePath("[2].a[10].b")).toBe("2.a.10.b");
  });

  test("an empty path is the whole object", () => {
    expect(query({ obj, query: "" }).outgoing.return_data).toBe(obj);
  });

  test("nothing (or null) at the path: failure with null, or success with null when pass_on_null", () => {
    expect(query({ obj, query: "interfaces.5.name" })).toEqual({
      state: "failure",
      outgoing: { return_data: null },
    });
    expect(query({ obj, query: "interfaces.1.mtu" }).state).toBe("failure");
    expect(query({ obj, query: "nope", pass_on_null: true })).toEqual({
      state: "success",
      outgoing: { return_data: null },
    });
    // Only `true` is true.
    expect(query({ obj, query: "nope", pass_on_null: "true" }).state).toBe("failure");
    expect(query({ query: "a" }).state).toBe("failure");
  });

  test("a query that is not text is bad input", () => {
    badInput(() => query({ obj, query: 1 }), "'query' must be a path such as 'a.b[0].c'");
    badInput(() => query({ obj }), "'query' must be a path");
  });
});

describe("merge", () => {
  test("objects are copied in, later ones winning; {key, value} pairs land under their key", () => {
    expect(
      merge({
        data_to_merge: [{ a: 1, b: 1 }, { key: "c", value: [3] }, { b: 2 }, { key: "a", value: null }],
      }),
    ).toEqual({ state: "success", outgoing: { merged_object: { a: null, b: 2, c: [3] } } });
  });

  test("an object with members besides key and value is an object, not a pair", () => {
    expect(merge({ data_to_merge: [{ key: "k", value: 1, other: 2 }] }).outgoing.merged_object).toEqual({
      key: "k",
      value: 1,
      other: 2,
    });
    expect(merge({ data_to_merge: [{ key: 5, value: 1 }] }).outgoing.merged_object).toEqual({
      key: 5,
      value: 1,
    });
    expect(merge({ data_to_merge: [] }).outgoing.merged_object).toEqual({});
  });

  test.each([
    ["not a list", { data_to_merge: { a: 1 } }],
    ["a scalar item", { data_to_merge: [{ a: 1 }, 2] }],
    ["a list item", { data_to_merge: [[1]] }],
    ["missing", {}],
  ])("%s is bad input", (_what, incoming) => {
    badInput(() => merge(incoming), "'data_to_merge' must be a list of objects or {key, value} pairs");
  });

  test("a pair with key __proto__ is a member of the merged object, not its prototype", () => {
    const out = merge({ data_to_merge: [{ key: "__proto__", value: { admin: true } }] }).outgoing
      .merged_object as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(["__proto__"]);
  });
});

describe("delay", () => {
  test("seconds as a number or numeric text, to milliseconds (rounded)", () => {
    expect(delayMs({ time: 2 })).toBe(2000);
    expect(delayMs({ time: "1.5" })).toBe(1500);
    expect(delayMs({ time: 0.0004 })).toBe(0);
    expect(delayMs({ time: 0 })).toBe(0);
    expect(delayMs({ time: MAX_DELAY_SECONDS })).toBe(30 * 24 * 3600 * 1000);
  });

  test.each([[-1], [MAX_DELAY_SECONDS + 1], ["soon"], [""], [" "], [null], [undefined], [true], [[5]]])(
    "time %p is bad input",
    (time) => {
      badInput(
        () => delayMs({ time }),
        `'time' must be a number of seconds between 0 and ${MAX_DELAY_SECONDS}`,
      );
    },
  );
});

describe("forEach items", () => {
  test("data_array is the list of items, up to MAX_ITEMS", () => {
    expect(loopItems({ data_array: [1, "a", null] })).toEqual([1, "a", null]);
    expect(loopItems({ data_array: new Array(MAX_ITEMS).fill(0) })).toHaveLength(MAX_ITEMS);
    badInput(() => loopItems({ data_array: new Array(MAX_ITEMS + 1).fill(0) }), `at most ${MAX_ITEMS} items`);
    badInput(() => loopItems({ data_array: { "0": 1 } }), "'data_array' must be a list");
    badInput(() => loopItems({}), "'data_array' must be a list");
  });
});

describe("childJob", () => {
  test("the request: the workflow's name, its variables (default {}), a description when text", () => {
    expect(childRequest({ workflow: "inner" })).toEqual({ workflow: "inner", variables: {} });
    expect(childRequest({ workflow: "inner", variables: { a: 1 }, description: "d" })).toEqual({
      workflow: "inner",
      variables: { a: 1 },
      description: "d",
    });
    expect(childRequest({ workflow: "inner", description: 5 })).toEqual({ workflow: "inner", variables: {} });
  });

  test("a missing workflow name, or variables that are not an object, are bad input", () => {
    badInput(() => childRequest({}), "'workflow' must name the child job's workflow");
    badInput(() => childRequest({ workflow: "" }), "'workflow' must name");
    badInput(() => childRequest({ workflow: "inner", variables: [1] }), "'variables' must be an object");
  });

  test("the outgoing job_details of a child", () => {
    expect(childDetails({ _id: "c1", status: "complete" })).toEqual({
      job_details: { _id: "c1", status: "complete", variables: {} },
    });
    expect(childDetails({ _id: "c1", status: "error", variables: { v: 1 } }).job_details.variables).toEqual({
      v: 1,
    });
  });
});
