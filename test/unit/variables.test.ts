/**
 * Variable references (services/engine/run/variables.ts, docs/engine.md "Variables"):
 * `$var.job.<name>` and `$var.<taskId>.<outgoing>`, deeper paths, resolution anywhere inside an
 * incoming value, what a reference to nothing gives, and the outgoing side (an action's result as
 * outgoing variables, `$var.job.<name>` targets).
 */
import {
  applyOutgoing,
  atPath,
  isReference,
  outgoingFromResult,
  readReference,
  resolveIncoming,
  resolveValue,
} from "../../services/engine/run/variables";
import type { RunJob, RunTask } from "../../services/engine/run/types";
import { auto, chain, newJob, taskIn } from "../support/engine-builders";

/** A job whose `lookup` task has run, with job variables `vars`. */
function jobWith(vars: Record<string, unknown>, lookupOutgoing?: Record<string, unknown>): RunJob {
  const job = newJob(
    chain("vars", [
      ["lookup", auto("svc", "lookup")],
      ["push", auto("svc", "push")],
    ]),
    vars,
  );
  if (lookupOutgoing) taskIn(job, "lookup").outgoing = lookupOutgoing;
  return job;
}

/** A task whose variables are `incoming` / `outgoing` (only what the functions read). */
const taskWith = (variables: RunTask["variables"]): RunTask =>
  ({ name: "t", type: "automatic", app: "svc", status: "running", variables }) as RunTask;

describe("atPath", () => {
  const doc = { a: { b: [{ c: 1 }, { c: null }] }, "": 5, list: ["x", "y"] };

  test("walks objects by key and arrays by index", () => {
    expect(atPath(doc, "a.b.0.c")).toBe(1);
    expect(atPath(doc, "a.b.1.c")).toBeNull();
    expect(atPath(doc, "list.1")).toBe("y");
    expect(atPath(doc, "a")).toBe(doc.a);
  });

  test.each([
    ["a.x", "a missing key"],
    ["a.b.2", "an index past the end"],
    ["list.first", "a non-numeric step into an array"],
    ["list.-1", "a negative index"],
    ["a.b.0.c.d", "a step into a scalar"],
    ["a..b", "an empty step"],
    ["a.", "a trailing dot"],
    ["a.constructor", "an inherited member"],
    ["list.length", "an array's own length"],
  ])("%s (%s) is undefined", (path) => {
    expect(atPath(doc, path)).toBeUndefined();
  });

  test("a value that is not a container has nothing at any path", () => {
    expect(atPath(null, "a")).toBeUndefined();
    expect(atPath("text", "length")).toBeUndefined();
    expect(atPath(undefined, "a")).toBeUndefined();
  });
});

describe("references", () => {
  test("isReference: `$var.<source>.<path>` exactly, nothing around it", () => {
    expect(isReference("$var.job.device")).toBe(true);
    expect(isReference("$var.lookup.result.0.id")).toBe(true);
    expect(isReference("$var.task-1_a.x")).toBe(true);
    for (const text of [
      "$var.job",
      "$var.job.",
      "var.job.x",
      " $var.job.x",
      "name: $var.job.x",
      "$var..x",
      5,
      null,
    ])
      expect(isReference(text)).toBe(false);
  });

  test("`$var.job.<name>` reads a job variable, a deeper path goes inside it", () => {
    const job = jobWith({ device: { name: "r1", ports: [22, 830] }, count: 0, flag: false });
    expect(readReference(job, "$var.job.device")).toEqual({ name: "r1", ports: [22, 830] });
    expect(readReference(job, "$var.job.device.name")).toBe("r1");
    expect(readReference(job, "$var.job.device.ports.1")).toBe(830);
    // Falsy values are values.
    expect(readReference(job, "$var.job.count")).toBe(0);
    expect(readReference(job, "$var.job.flag")).toBe(false);
  });

  test("`$var.<taskId>.<outgoing>` reads that task's outgoing values of its last run", () => {
    const job = jobWith({}, { result: [{ id: "abc" }], site: "nyc" });
    expect(readReference(job, "$var.lookup.site")).toBe("nyc");
    expect(readReference(job, "$var.lookup.result.0.id")).toBe("abc");
  });

  test("a reference to nothing is undefined: a missing variable, path, task, or a task that has not run", () => {
    const job = jobWith({ device: { name: "r1" } });
    expect(readReference(job, "$var.job.missing")).toBeUndefined();
    expect(readReference(job, "$var.job.device.missing")).toBeUndefined();
    expect(readReference(job, "$var.ghost.x")).toBeUndefined();
    expect(readReference(job, "$var.push.result")).toBeUndefined();
    expect(readReference(job, "$var.constructor.name")).toBeUndefined();
  });

  test("text that is not a reference is itself", () => {
    expect(readReference(jobWith({}), "plain text")).toBe("plain text");
  });
});

describe("resolving incoming values", () => {
  const job = jobWith({ device: { name: "r1" }, nothing: null, list: [1, 2] }, { site: "nyc" });

  test("references are resolved anywhere: top level, inside objects and inside lists", () => {
    expect(
      resolveValue(job, {
        name: "$var.job.device.name",
        nested: { site: "$var.lookup.site", deeper: { list: "$var.job.list" } },
        items: ["$var.job.device.name", "literal", { s: "$var.lookup.site" }],
      }),
    ).toEqual({
      name: "r1",
      nested: { site: "nyc", deeper: { list: [1, 2] } },
      items: ["r1", "literal", { s: "nyc" }],
    });
  });

  test("literals are kept as they are", () => {
    expect(resolveValue(job, { n: 1, b: true, z: null, s: "x $var.job.device", e: {} })).toEqual({
      n: 1,
      b: true,
      z: null,
      s: "x $var.job.device",
      e: {},
    });
  });

  test("a reference to nothing is left out of an object; one to null is null", () => {
    expect(resolveValue(job, { a: "$var.job.missing", b: "$var.job.nothing", c: 1 })).toEqual({
      b: null,
      c: 1,
    });
    expect(resolveValue(job, "$var.job.missing")).toBeUndefined();
  });

  test("inside a list, a reference to nothing keeps its place (undefined)", () => {
    const out = resolveValue(job, ["$var.job.missing", 1]) as unknown[];
    expect(out).toHaveLength(2);
    expect(out[0]).toBeUndefined();
    expect(out[1]).toBe(1);
  });

  test("resolved values are copies: changing them never changes the job", () => {
    const out = resolveValue(job, { d: "$var.job.device" }) as { d: { name: string } };
    out.d.name = "changed";
    expect(job.variables.device).toEqual({ name: "r1" });
  });

  test("resolveIncoming resolves a task's incoming variables (none: {})", () => {
    expect(
      resolveIncoming(job, taskWith({ incoming: { host: "$var.job.device.name", gone: "$var.job.x" } })),
    ).toEqual({
      host: "r1",
    });
    expect(resolveIncoming(job, taskWith(undefined))).toEqual({});
  });

  test("an incoming member named __proto__ is passed on as data, not as the params' prototype", () => {
    const out = resolveValue(job, JSON.parse('{"__proto__": {"admin": true}, "a": 1}')) as Record<
      string,
      unknown
    >;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(out.admin).toBeUndefined();
    expect(Object.keys(out).sort()).toEqual(["__proto__", "a"]);
  });
});

describe("outgoing variables", () => {
  test("an action's result: none declared -> `result`; one -> the whole result; several -> members", () => {
    expect(outgoingFromResult(taskWith({ outgoing: {} }), { a: 1 })).toEqual({ result: { a: 1 } });
    expect(outgoingFromResult(taskWith(undefined), undefined)).toEqual({ result: null });
    expect(outgoingFromResult(taskWith({ outgoing: { config: null } }), { a: 1 })).toEqual({
      config: { a: 1 },
    });
    expect(outgoingFromResult(taskWith({ outgoing: { config: null } }), undefined)).toEqual({ config: null });
    expect(outgoingFromResult(taskWith({ outgoing: { a: null, b: null } }), { a: 1, c: 3 })).toEqual({
      a: 1,
      b: null,
    });
    // Several declared, but the result is not an object: each is null.
    expect(outgoingFromResult(taskWith({ outgoing: { a: null, b: null } }), [1, 2])).toEqual({
      a: null,
      b: null,
    });
  });

  test("a declared outgoing name the result lacks is null even when it names an Object.prototype member", () => {
    expect(outgoingFromResult(taskWith({ outgoing: { toString: null, a: null } }), { a: 1 })).toEqual({
      toString: null,
      a: 1,
    });
  });

  test("applyOutgoing stores the values on the task and writes the `$var.job.<name>` targets", () => {
    const job = jobWith({ keep: 1, site: "old" });
    const task = taskWith({
      outgoing: { site: "$var.job.site", port: "$var.job.port", raw: null, deep: "$var.job.a.b" },
    });
    applyOutgoing(job, task, { site: "nyc", port: 830, raw: "x", deep: 1, undeclared: 2 });
    expect(task.outgoing).toEqual({ site: "nyc", port: 830, raw: "x", deep: 1, undeclared: 2 });
    // Only `$var.job.<name>` (one segment) is a target; a deeper path writes nothing.
    expect(job.variables).toEqual({ keep: 1, site: "nyc", port: 830 });
  });

  test("an undefined value writes no job variable; null does", () => {
    const job = jobWith({ a: 1, b: 2 });
    applyOutgoing(job, taskWith({ outgoing: { a: "$var.job.a", b: "$var.job.b" } }), {
      a: undefined,
      b: null,
    });
    expect(job.variables).toEqual({ a: 1, b: null });
  });

  test("an outgoing target `$var.job.__proto__` writes a job variable, not the variables' prototype", () => {
    const job = jobWith({});
    applyOutgoing(job, taskWith({ outgoing: { v: "$var.job.__proto__" } }), { v: { polluted: true } });
    expect(Object.getPrototypeOf(job.variables)).toBe(Object.prototype);
    expect(Object.keys(job.variables)).toEqual(["__proto__"]);
  });
});
