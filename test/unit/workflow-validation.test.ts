/**
 * Workflow graph validation (services/engine/workflows/validation.ts, docs/engine-queries.md
 * "Graph checks"): every rule of the table, each problem reported as `{field, message, type}`,
 * all of them at once, and the normalized graph a valid workflow is stored as.
 */
import { OPERATION_TASKS } from "../../services/engine/operations/names";
import { validateGraph } from "../../services/engine/workflows/validation";
import { BadRequestError, type FieldError } from "../../shared/errors";
import { auto, graph, loop, manual, op, revert, success } from "../support/engine-builders";

const START = "workflow_start";
const END = "workflow_end";

/** The problems validateGraph reports (it must refuse). */
function problems(tasks: unknown, transitions: unknown): FieldError[] {
  try {
    validateGraph(tasks, transitions);
  } catch (err) {
    if (!(err instanceof BadRequestError)) throw err;
    return err.data as FieldError[];
  }
  throw new Error("validateGraph accepted the graph");
}

/** [field, type] of each problem, in the order found. */
const fieldsAndTypes = (tasks: unknown, transitions: unknown) =>
  problems(tasks, transitions).map((p) => [p.field, p.type]);

/** start -> t -> end around one task definition `t`. */
const around = (t: unknown) => ({
  tasks: { [START]: {}, [END]: {}, t },
  transitions: { [START]: { t: success }, t: { [END]: success } },
});

/** The problems of the workflow `around(t)`. */
function problemsAround(t: unknown): FieldError[] {
  const { tasks, transitions } = around(t);
  return problems(tasks, transitions);
}
const fieldsAround = (t: unknown) => problemsAround(t).map((p) => [p.field, p.type]);

describe("a valid workflow", () => {
  test("is answered normalized: marker names, definition fields only, app only on automatic tasks", () => {
    const wf = graph(
      "ok",
      {
        a: { ...auto("dcim", "push", { d: "$var.job.d" }, { r: null }), x: 10, y: 20, groups: ["g1"] },
        m: { ...manual("Approve"), app: "ignored", status: "complete", claim: { owner: "n" } },
        e: op("evaluation", { operand_1: 1, operator: "==", operand_2: 1 }),
      },
      {
        [START]: { a: success },
        a: { m: success, e: { state: "error", type: "standard" } },
        m: { [END]: success },
        e: { [END]: success, a: revert("failure") },
      },
    );
    const tasks = { ...wf.tasks, [START]: { type: "automatic", app: "x" }, [END]: { name: "Finish" } };
    const out = validateGraph(tasks, wf.transitions);
    expect(out.tasks[START]).toEqual({ name: START });
    expect(out.tasks[END]).toEqual({ name: "Finish" });
    expect(out.tasks.a).toEqual({
      type: "automatic",
      app: "dcim",
      name: "push",
      summary: "push",
      variables: { incoming: { d: "$var.job.d" }, outgoing: { r: null } },
      x: 10,
      y: 20,
      groups: ["g1"],
    });
    // Run-state fields belong to jobs, and a manual task calls no app.
    expect(out.tasks.m).toEqual({
      type: "manual",
      name: "Approve",
      summary: "Approve",
      variables: { incoming: {}, outgoing: {} },
    });
    expect(out.transitions).toEqual(wf.transitions);
  });

  test("every built-in operation name is accepted", () => {
    for (const name of OPERATION_TASKS) {
      const { tasks, transitions } = around(op(name, {}));
      expect(validateGraph(tasks, transitions).tasks.t).toMatchObject({ type: "operation", name });
    }
  });

  test("a task reachable only over failure, error, revert or loop transitions is reachable", () => {
    const wf = graph(
      "paths",
      {
        a: auto("s", "a"),
        onFail: manual("f"),
        each: op("forEach", { data_array: [] }),
        body: manual("b"),
      },
      {
        [START]: { a: success },
        a: { onFail: { state: "failure", type: "standard" }, each: success },
        onFail: { [END]: success },
        each: { body: loop, [END]: success },
        body: { each: success },
      },
    );
    expect(() => validateGraph(wf.tasks, wf.transitions)).not.toThrow();
  });

  test("retrySettings, variables.error and the boolean fields are kept when well typed", () => {
    const { tasks, transitions } = around({
      ...auto("s", "a"),
      variables: { incoming: {}, outgoing: {}, error: "" },
      retrySettings: { autoRetry: true, limit: 3, delay: 0, state: ["error", "failure"] },
      deprecated: false,
      scheduled: true,
      canvasName: "c",
      actor: "job",
    });
    expect(validateGraph(tasks, transitions).tasks.t).toMatchObject({
      variables: { incoming: {}, outgoing: {}, error: "" },
      retrySettings: { autoRetry: true, limit: 3, delay: 0, state: ["error", "failure"] },
      deprecated: false,
      scheduled: true,
      canvasName: "c",
      actor: "job",
    });
  });

  test("variable references are not checked: a reference to a task or job variable that does not exist is stored", () => {
    // Documented: a reference to nothing is left out when the task runs (docs/engine.md "Variables").
    const { tasks, transitions } = around(auto("s", "a", { x: "$var.ghost.out", y: "$var.job.nope" }));
    expect(validateGraph(tasks, transitions).tasks.t.variables!.incoming).toEqual({
      x: "$var.ghost.out",
      y: "$var.job.nope",
    });
  });
});

describe("the two ends", () => {
  test("workflow_start and workflow_end must exist (both reported)", () => {
    expect(fieldsAndTypes({ a: manual("a") }, {})).toEqual([
      [`workflow.tasks.${START}`, "required"],
      [`workflow.tasks.${END}`, "required"],
    ]);
  });

  test("tasks that are not an object are no tasks at all", () => {
    for (const tasks of [null, [], "tasks", 3])
      expect(fieldsAndTypes(tasks, {})).toEqual([
        [`workflow.tasks.${START}`, "required"],
        [`workflow.tasks.${END}`, "required"],
      ]);
  });

  test("nothing may leave workflow_end (an empty map is fine)", () => {
    const wf = graph("e", {}, { [START]: { [END]: success } });
    expect(() => validateGraph(wf.tasks, { ...wf.transitions, [END]: {} })).not.toThrow();
    expect(problems(wf.tasks, { [START]: { [END]: success }, [END]: { [START]: success } })).toEqual([
      {
        field: `workflow.transitions.${END}`,
        message: `'${END}' ends the job: no transition may leave it`,
        type: "transitionFromEnd",
      },
    ]);
  });
});

describe("tasks", () => {
  test.each(["a.b", "$where", "has space", "x".repeat(129), "é"])("task id %p is refused", (id) => {
    const tasks = { [START]: {}, [END]: {}, [id]: manual("m") };
    expect(problems(tasks, { [START]: { [END]: success } })).toEqual([
      {
        field: `workflow.tasks.${id}`,
        message: `Task id '${id}' must be 1-128 letters, digits, '_' or '-'`,
        type: "taskId",
      },
    ]);
  });

  test("a 128-character id of letters, digits, '_' and '-' is fine", () => {
    const id = `A-z_9${"x".repeat(123)}`;
    const { tasks } = around(manual("m"));
    const renamed = { [START]: tasks[START], [END]: tasks[END], [id]: tasks.t };
    expect(
      Object.keys(validateGraph(renamed, { [START]: { [id]: success }, [id]: { [END]: success } }).tasks),
    ).toContain(id);
  });

  test("a task must be an object", () => {
    const { tasks, transitions } = around("not a task");
    expect(problems(tasks, transitions)).toEqual([
      { field: "workflow.tasks.t", message: "Task 't' must be an object", type: "object" },
    ]);
  });

  test.each([undefined, "script", 1])("type %p is refused", (type) => {
    const { tasks, transitions } = around({ name: "x", type });
    expect(fieldsAndTypes(tasks, transitions)).toEqual([["workflow.tasks.t.type", "taskType"]]);
  });

  test("every task needs a name; an automatic task an app too", () => {
    expect(fieldsAround({ type: "manual" })).toEqual([["workflow.tasks.t.name", "required"]]);
    expect(fieldsAround({ type: "manual", name: "  " })).toEqual([["workflow.tasks.t.name", "required"]]);
    expect(problemsAround({ type: "automatic", name: "push" })).toEqual([
      {
        field: "workflow.tasks.t.app",
        message: "Task 't': an automatic task needs the 'app' (service) whose action it calls",
        type: "required",
      },
    ]);
  });

  test("an operation must be a built-in", () => {
    expect(problemsAround(op("shell", {}))).toEqual([
      {
        field: "workflow.tasks.t.name",
        message: `Task 't': 'shell' is not an engine operation (${OPERATION_TASKS.join(", ")})`,
        type: "unknownOperation",
      },
    ]);
  });

  test.each([
    [{ summary: 1 }, "workflow.tasks.t.summary", "string"],
    [{ displayName: 1 }, "workflow.tasks.t.displayName", "string"],
    [{ x: "10" }, "workflow.tasks.t.x", "number"],
    [{ y: Number.NaN }, "workflow.tasks.t.y", "number"],
    [{ deprecated: "no" }, "workflow.tasks.t.deprecated", "boolean"],
    [{ groups: "g1" }, "workflow.tasks.t.groups", "array"],
    [{ groups: ["g1", ""] }, "workflow.tasks.t.groups", "array"],
    [{ variables: [] }, "workflow.tasks.t.variables", "object"],
    [{ variables: { incoming: [] } }, "workflow.tasks.t.variables.incoming", "object"],
    [{ variables: { outgoing: "x" } }, "workflow.tasks.t.variables.outgoing", "object"],
    [{ variables: { error: 1 } }, "workflow.tasks.t.variables.error", "string"],
    [{ retrySettings: true }, "workflow.tasks.t.retrySettings", "object"],
    [{ retrySettings: { autoRetry: "yes" } }, "workflow.tasks.t.retrySettings.autoRetry", "boolean"],
    [{ retrySettings: { limit: -1 } }, "workflow.tasks.t.retrySettings.limit", "number"],
    [{ retrySettings: { delay: 1.5 } }, "workflow.tasks.t.retrySettings.delay", "number"],
    [{ retrySettings: { state: ["loop"] } }, "workflow.tasks.t.retrySettings.state", "array"],
    [{ retrySettings: { state: "error" } }, "workflow.tasks.t.retrySettings.state", "array"],
  ])("a task member of the wrong type: %p", (member, field, type) => {
    const { tasks, transitions } = around({ ...auto("dcim", "push"), ...member });
    expect(fieldsAndTypes(tasks, transitions)).toEqual([[field, type]]);
  });

  test("an app that is not text: the wrong type, and (automatic) no app either", () => {
    expect(fieldsAround({ ...auto("dcim", "push"), app: ["dcim"] })).toEqual([
      ["workflow.tasks.t.app", "string"],
      ["workflow.tasks.t.app", "required"],
    ]);
    expect(fieldsAround({ ...manual("m"), app: ["dcim"] })).toEqual([["workflow.tasks.t.app", "string"]]);
  });

  test("the ends' members are checked too", () => {
    const tasks = { [START]: { x: "left" }, [END]: {} };
    expect(fieldsAndTypes(tasks, { [START]: { [END]: success } })).toEqual([
      [`workflow.tasks.${START}.x`, "number"],
    ]);
  });
});

describe("transitions", () => {
  const base = { [START]: {}, [END]: {}, a: manual("a") };

  test("from a task that does not exist", () => {
    expect(problems(base, { [START]: { a: success }, a: { [END]: success }, ghost: { a: success } })).toEqual(
      [
        {
          field: "workflow.transitions.ghost",
          message: "Transition from unknown task 'ghost'",
          type: "unknownTask",
        },
      ],
    );
  });

  test("to a task that does not exist", () => {
    expect(problems(base, { [START]: { a: success }, a: { [END]: success, ghost: success } })).toEqual([
      {
        field: "workflow.transitions.a.ghost",
        message: "Transition from 'a' to unknown task 'ghost'",
        type: "unknownTask",
      },
    ]);
  });

  test("the targets of a task must be an object, each target an object", () => {
    expect(fieldsAndTypes(base, { [START]: { a: success }, a: [END] })).toEqual([
      ["workflow.transitions.a", "object"],
    ]);
    expect(fieldsAndTypes(base, { [START]: { a: success }, a: { [END]: "success" } })).toEqual([
      ["workflow.transitions.a.workflow_end", "object"],
    ]);
  });

  test("state and type must be known (each reported)", () => {
    expect(
      problems(base, { [START]: { a: success }, a: { [END]: { state: "done", type: "jump" } } }),
    ).toEqual([
      {
        field: "workflow.transitions.a.workflow_end.state",
        message: "Transition a -> workflow_end: state must be one of success, failure, error, loop",
        type: "state",
      },
      {
        field: "workflow.transitions.a.workflow_end.type",
        message: "Transition a -> workflow_end: type must be one of standard, revert, loop",
        type: "type",
      },
    ]);
  });

  test("the normalized transition keeps only state and type", () => {
    const out = validateGraph(base, {
      [START]: { a: { ...success, label: "go", x: 1 } },
      a: { [END]: success },
    });
    expect(out.transitions[START]).toEqual({ a: { state: "success", type: "standard" } });
  });

  test("a transition to or from a task named like an Object.prototype member ('toString') is an unknown task", () => {
    expect(
      fieldsAndTypes(base, { [START]: { a: success }, a: { [END]: success, toString: success } }),
    ).toEqual([["workflow.transitions.a.toString", "unknownTask"]]);
    expect(
      fieldsAndTypes(base, { [START]: { a: success }, a: { [END]: success }, constructor: { a: success } }),
    ).toEqual([["workflow.transitions.constructor", "unknownTask"]]);
  });
});

describe("reachability", () => {
  test("every task, workflow_end included, must be reachable from workflow_start", () => {
    const tasks = { [START]: {}, [END]: {}, a: manual("a"), island: manual("i"), b: manual("b") };
    expect(
      problems(tasks, { [START]: { a: success }, a: {}, island: { b: success }, b: { [END]: success } }),
    ).toEqual([
      {
        field: `workflow.tasks.${END}`,
        message: `Task '${END}' cannot be reached from '${START}'`,
        type: "unreachable",
      },
      {
        field: "workflow.tasks.island",
        message: `Task 'island' cannot be reached from '${START}'`,
        type: "unreachable",
      },
      {
        field: "workflow.tasks.b",
        message: `Task 'b' cannot be reached from '${START}'`,
        type: "unreachable",
      },
    ]);
  });

  test("is checked only once everything else holds", () => {
    const tasks = { [START]: {}, [END]: {}, island: { type: "manual" } };
    expect(fieldsAndTypes(tasks, {})).toEqual([["workflow.tasks.island.name", "required"]]);
  });
});

describe("the error", () => {
  test("a 400 VALIDATION_ERROR listing every problem; the message names the first and counts the rest", () => {
    const tasks = { "bad.id": {}, t: { type: "automatic", name: "x" } };
    let error: BadRequestError | undefined;
    try {
      validateGraph(tasks, { t: { nowhere: success } });
    } catch (err) {
      error = err as BadRequestError;
    }
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error!.code).toBe(400);
    expect(error!.type).toBe("VALIDATION_ERROR");
    expect((error!.data as FieldError[]).map((p) => p.type)).toEqual([
      "taskId",
      "required",
      "required",
      "required",
      "unknownTask",
    ]);
    expect(error!.message).toBe(
      "Invalid workflow: workflow.tasks.bad.id: Task id 'bad.id' must be 1-128 letters, digits, '_' or '-' (and 4 more)",
    );
  });

  test("one problem: no count", () => {
    const { tasks, transitions } = around(op("shell", {}));
    expect(() => validateGraph(tasks, transitions)).toThrow(
      /^Invalid workflow: workflow\.tasks\.t\.name: Task 't': 'shell' is not an engine operation \([^)]*\)$/,
    );
  });
});
