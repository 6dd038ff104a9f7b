/**
 * The `evaluation` operation (services/engine/operations/evaluation.ts, docs/engine.md "The
 * operations"): every operator, one comparison or a list of them joined by all_true_flag, the types
 * each operator takes, and bad input (an OperationError: the task finishes `error` with code 400).
 */
import { OPERATORS, compare, evaluation } from "../../services/engine/operations/evaluation";
import { OperationError } from "../../services/engine/operations";

type Op = (typeof OPERATORS)[number];

/** The finish state of one comparison. */
const holds = (operand_1: unknown, operator: Op | string, operand_2?: unknown) =>
  evaluation({ operand_1, operator, operand_2 });

/** The OperationError `incoming` is refused with. */
function refusal(incoming: Record<string, unknown>): OperationError {
  try {
    evaluation(incoming);
  } catch (err) {
    expect(err).toBeInstanceOf(OperationError);
    expect((err as OperationError).code).toBe(400);
    return err as OperationError;
  }
  throw new Error(`accepted: ${JSON.stringify(incoming)}`);
}

test("the operators are exactly the documented ones", () => {
  expect([...OPERATORS]).toEqual([
    "==",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
    "contains",
    "!contains",
    "startsWith",
    "endsWith",
    "in",
    "!in",
    "exists",
    "!exists",
  ]);
});

test("the outcome: success with return_value true when it holds, failure with false otherwise", () => {
  expect(holds(1, "==", 1)).toEqual({ state: "success", outgoing: { return_value: true } });
  expect(holds(1, "==", 2)).toEqual({ state: "failure", outgoing: { return_value: false } });
});

describe("== and != (deep equality)", () => {
  test.each([
    [1, 1, true],
    ["a", "a", true],
    [null, null, true],
    [true, true, true],
    [[1, [2, { a: 3 }]], [1, [2, { a: 3 }]], true],
    [{ a: { b: [1] } }, { a: { b: [1] } }, true],
    [1, "1", false],
    [0, false, false],
    [null, 0, false],
    [[1, 2], [2, 1], false],
    [{ a: 1 }, { a: 1, b: 2 }, false],
    ["A", "a", false],
  ])("%p == %p is %p", (a, b, expected) => {
    expect(compare(a, "==", b)).toBe(expected);
    expect(compare(a, "!=", b)).toBe(!expected);
  });

  test("objects with the same members in another order are deeply equal", () => {
    expect(compare({ a: 1, b: 2 }, "==", { b: 2, a: 1 })).toBe(true);
    expect(compare({ y: 2, x: 1 }, "in", [{ x: 1, y: 2 }])).toBe(true);
  });
});

describe("<, <=, >, >= (two numbers or two texts)", () => {
  test("numbers", () => {
    expect(compare(1, "<", 2)).toBe(true);
    expect(compare(2, "<", 2)).toBe(false);
    expect(compare(2, "<=", 2)).toBe(true);
    expect(compare(-1.5, ">", -2)).toBe(true);
    expect(compare(3, ">=", 4)).toBe(false);
  });

  test("texts compare by code unit (so '10' < '9')", () => {
    expect(compare("apple", "<", "banana")).toBe(true);
    expect(compare("10", "<", "9")).toBe(true);
    expect(compare("B", ">", "a")).toBe(false);
  });

  test.each([
    [1, "1"],
    ["1", 1],
    [null, 1],
    [1, undefined],
    [[1], [2]],
    [true, false],
  ])("%p against %p is bad input", (a, b) => {
    expect(() => compare(a, "<", b)).toThrow(OperationError);
  });

  test("the error names both types", () => {
    expect(refusal({ operand_1: 1, operator: ">=", operand_2: [2] }).message).toBe(
      "'>=' compares two numbers or two strings, got number and array",
    );
    expect(refusal({ operand_1: null, operator: "<", operand_2: "a" }).message).toBe(
      "'<' compares two numbers or two strings, got null and string",
    );
  });
});

describe("contains and !contains", () => {
  test("text in text (case-sensitive)", () => {
    expect(compare("GigabitEthernet0/1", "contains", "Ethernet")).toBe(true);
    expect(compare("GigabitEthernet0/1", "contains", "ethernet")).toBe(false);
    expect(compare("abc", "contains", 1)).toBe(false);
    expect(compare("abc", "!contains", "z")).toBe(true);
  });

  test("an element in a list (deep)", () => {
    expect(compare([1, { a: [2] }], "contains", { a: [2] })).toBe(true);
    expect(compare([1, 2], "contains", "1")).toBe(false);
    expect(compare([], "!contains", 1)).toBe(true);
  });

  test("a key of an object (own keys only)", () => {
    expect(compare({ mtu: 1500 }, "contains", "mtu")).toBe(true);
    expect(compare({ mtu: 1500 }, "contains", 1500)).toBe(false);
    expect(compare({}, "contains", "toString")).toBe(false);
    expect(compare({ mtu: 1500 }, "!contains", "speed")).toBe(true);
  });

  test("operand_1 of any other type is bad input", () => {
    for (const container of [5, null, undefined, true])
      expect(() => compare(container, "contains", "x")).toThrow(
        /^'contains' needs a string, list or object as operand_1, got /,
      );
    expect(() => compare(5, "!contains", "x")).toThrow(OperationError);
  });
});

describe("startsWith and endsWith (texts; anything else does not hold)", () => {
  test.each([
    ["router-01", "startsWith", "router", true],
    ["router-01", "startsWith", "01", false],
    ["router-01", "endsWith", "-01", true],
    ["router-01", "endsWith", "router", false],
    ["abc", "startsWith", "", true],
    [123, "startsWith", "1", false],
    ["123", "endsWith", 3, false],
    [["a"], "startsWith", "a", false],
  ] as const)("%p %s %p is %p", (a, op, b, expected) => {
    expect(compare(a, op, b)).toBe(expected);
  });
});

describe("in and !in (operand_1 in the list operand_2)", () => {
  test("deep membership", () => {
    expect(compare("b", "in", ["a", "b"])).toBe(true);
    expect(compare({ id: 1 }, "in", [{ id: 1 }])).toBe(true);
    expect(compare(1, "in", ["1"])).toBe(false);
    expect(compare("c", "!in", ["a", "b"])).toBe(true);
    expect(compare("a", "!in", ["a"])).toBe(false);
  });

  test("operand_2 that is not a list is bad input", () => {
    expect(refusal({ operand_1: "a", operator: "in", operand_2: "abc" }).message).toBe(
      "'in' needs a list as operand_2, got string",
    );
    expect(refusal({ operand_1: "a", operator: "!in", operand_2: { a: 1 } }).message).toBe(
      "'!in' needs a list as operand_2, got object",
    );
  });
});

describe("exists and !exists (operand_1 is set: neither missing nor null)", () => {
  test.each([
    [0, true],
    ["", true],
    [false, true],
    [[], true],
    [null, false],
    [undefined, false],
  ])("%p exists: %p", (value, expected) => {
    expect(compare(value, "exists", undefined)).toBe(expected);
    expect(compare(value, "!exists", undefined)).toBe(!expected);
  });

  test("a missing operand_1 (a reference to nothing is left out) does not exist", () => {
    expect(evaluation({ operator: "exists" })).toEqual({
      state: "failure",
      outgoing: { return_value: false },
    });
    expect(evaluation({ operator: "!exists" })).toEqual({
      state: "success",
      outgoing: { return_value: true },
    });
  });
});

describe("a list of evaluations", () => {
  const yes = { operand_1: 1, operator: "==", operand_2: 1 };
  const no = { operand_1: 1, operator: "==", operand_2: 2 };

  test("all_true_flag true (the default): all must hold", () => {
    expect(evaluation({ evaluations: [yes, yes] }).state).toBe("success");
    expect(evaluation({ evaluations: [yes, no] }).state).toBe("failure");
    expect(evaluation({ evaluations: [yes, no], all_true_flag: true }).state).toBe("failure");
  });

  test("all_true_flag false: any", () => {
    expect(evaluation({ evaluations: [no, yes], all_true_flag: false })).toEqual({
      state: "success",
      outgoing: { return_value: true },
    });
    expect(evaluation({ evaluations: [no, no], all_true_flag: false }).state).toBe("failure");
  });

  test("the list takes precedence over top-level operands", () => {
    expect(evaluation({ evaluations: [no], operand_1: 1, operator: "==", operand_2: 1 }).state).toBe(
      "failure",
    );
  });

  test("every comparison is checked, even after one that decides", () => {
    expect(
      refusal({ evaluations: [yes, { operand_1: 1, operator: "=~", operand_2: 1 }], all_true_flag: false })
        .errors,
    ).toEqual([{ field: "evaluations.1.operator", message: 'Unknown operator "=~"' }]);
  });

  test.each([
    ["not a list", { evaluations: "1 == 1" }],
    ["empty", { evaluations: [] }],
    ["an item that is not an object", { evaluations: [{ operand_1: 1, operator: "==", operand_2: 1 }, "x"] }],
    ["null", { evaluations: null }],
  ])("%s is bad input", (_what, incoming) => {
    expect(refusal(incoming).message).toBe(
      "'evaluations' must be a non-empty list of {operand_1, operator, operand_2}",
    );
  });
});

describe("the operator", () => {
  test.each([undefined, "", "=", "===", "EQUALS", 1, null])(
    "%p is bad input naming the field",
    (operator) => {
      const error = refusal({ operand_1: 1, operator, operand_2: 1 });
      expect(error.message).toBe(`evaluation: operator must be one of ${OPERATORS.join(" ")}`);
      expect(error.errors).toEqual([
        { field: "evaluation.operator", message: `Unknown operator ${JSON.stringify(operator)}` },
      ]);
    },
  );
});

test("a missing operand is bad input (400) for the operators that compare two operands", () => {
  expect(() => evaluation({ operator: "==" })).toThrow(OperationError);
  expect(() => evaluation({ operand_1: "up", operator: "!=" })).toThrow(OperationError);
  expect(() => evaluation({ operand_1: "up", operator: "startsWith" })).toThrow(OperationError);
});
