/**
 * The store logs a `$set` of an object over an object as the members that changed, when that is
 * shorter than the whole value (shared/store/embedded/fast-update.ts pushMembers): a task
 * transition logs a task's status, claim and times, not the whole task. Replayed, those members
 * must give the very document the update made, member order included; when they cannot (a
 * reorder, a key that is no plain path segment) or would not be shorter, the whole value is logged.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { adoptFrozen, parseFrozen } from "../../shared/frozen-json";
import { EmbeddedBackend } from "../../shared/store/embedded/backend";
import { fastUpdate, patchJson } from "../../shared/store/embedded/fast-update";
import { replayPatch, type LoggedPatchOp } from "../../shared/store/embedded/log-patch";
import type { StoredDoc } from "../../shared/store/embedded/table";
import type { Doc } from "../../shared/store/types";
import { deepFreeze, editedObject, int, randomValue, seeded } from "../support/random-docs";

const claim = { owner: "replica-a/1f2e", until: 1795901451239, run: "024e64b5-a530-42f6-ba38-3cbdd503ea50" };
const running = {
  name: "noop",
  summary: "t2",
  app: "bench",
  variables: { incoming: { device: "r1" }, outgoing: {} },
  type: "automatic",
  status: "running",
  previous: { incomplete: [], complete: ["t1"], error: [] },
  claim,
  start_time: "2026-11-28T21:30:45.239Z",
  iterations: ["8e7275f3-b5b0-40be-8877-c9ac2697d44b"],
};

const storedJob = (task: object): StoredDoc =>
  deepFreeze({
    _id: "j1",
    version: 4,
    tasks: { t2: task },
    metrics: { progress: 10, user: "u" },
  }) as StoredDoc;

/** The update's patch as the log holds it, and a check that replaying it gives the new document. */
function logged(stored: StoredDoc, set: Record<string, unknown>): LoggedPatchOp[] {
  const fast = fastUpdate(stored, { $set: set, $inc: { version: 1 } })!;
  const ops = JSON.parse(patchJson(fast.patch)) as LoggedPatchOp[];
  expect(JSON.stringify(replayPatch(stored, ops))).toBe(JSON.stringify(fast.doc));
  return ops;
}

/**
 * `value` frozen with its text, as the engine hands a task over (its kept members the stored ones):
 * the store keeps it as given. A plain value is parsed from its text, so no member of it is shared.
 */
const given = <T extends object>(value: T): T => adoptFrozen(deepFreeze(value), JSON.stringify(value));

const paths = (ops: LoggedPatchOp[]) => ops.map((op) => `${op[0]} ${op[1]}`);

test("a finished task is logged as the members that changed: the members it shares are left out", () => {
  const stored = storedJob(running);
  const old = (stored.tasks as Doc).t2 as typeof running;
  // As the engine hands it over: the members it kept are the stored task's own (frozen, shared).
  const { claim: _claim, ...kept } = old;
  const finished = parseFrozen(JSON.stringify({ ...kept, claim: null })) as Record<string, unknown>;
  const done = given({
    ...old,
    status: "complete",
    claim: null,
    finish_state: "success",
    end_time: 1795901445239,
    outgoing: { result: {} },
  });
  expect(paths(logged(stored, { "tasks.t2": done }))).toEqual([
    "set tasks.t2.status",
    "set tasks.t2.claim",
    "set tasks.t2.finish_state",
    "set tasks.t2.end_time",
    "set tasks.t2.outgoing",
    "set version",
  ]);
  // A member dropped is unset; a whole new object of members (none shared) is not shorter: whole.
  const { previous: _previous, ...withoutPrevious } = old;
  expect(paths(logged(stored, { "tasks.t2": given(withoutPrevious) }))).toEqual([
    "unset tasks.t2.previous",
    "set version",
  ]);
  // The same task as a plain value is parsed from its text: its object members, equal but not the
  // stored ones, are written too.
  expect(paths(logged(stored, { "tasks.t2": { ...withoutPrevious } }))).toEqual([
    "unset tasks.t2.previous",
    "set tasks.t2.variables",
    "set tasks.t2.claim",
    "set tasks.t2.iterations",
    "set version",
  ]);
  expect(paths(logged(stored, { "tasks.t2": finished }))).toEqual(["set tasks.t2", "set version"]);
  // Scalars compare by value: a top-level part whose one number changed logs that number.
  expect(paths(logged(stored, { metrics: { progress: 20, user: "u" } }))).toEqual([
    "set metrics.progress",
    "set version",
  ]);
});

test("a reorder, a key that is no plain path segment, or a value that is no object logs the whole value", () => {
  const stored = deepFreeze({
    _id: "j1",
    version: 1,
    o: { a: 1, b: 2, c: { deep: true }, d: "x".repeat(200), f: "f", g: "g", h: "h" },
    n: 5,
    arr: [1, 2],
  }) as StoredDoc;
  const o = stored.o as Doc;
  const cases: [string, unknown][] = [
    ["o", { b: 3, a: 1, c: o.c, d: o.d, f: "f", g: "g", h: "h" }], // kept members reordered
    ["o", { a: 1, b: 3, c: o.c, d: o.d, f: "f", g: "g", z: 1, h: "h" }], // a kept member after a new one
    ["o", { ...o, "x.y": 1 }],
    ["o", { ...o, $x: 1 }],
    ["o", { ...o, 7: 1 }], // an integer key: JavaScript puts it first
    [
      "o",
      JSON.parse(
        '{"a":1,"b":2,"c":{"deep":true},"d":"","f":"f","g":"g","h":"h","__proto__":{"polluted":true}}',
      ),
    ],
    ["o", { a: 1, b: 3, c: { deep: false }, d: "", f: "f", g: "-", h: "-" }], // more members change than stay
    ["o", [1, 2]],
    ["n", { a: 1 }],
    ["arr", { a: 1 }],
  ];
  for (const [key, value] of cases)
    expect(paths(logged(stored, { [key]: given(value as object) }))).toEqual([`set ${key}`, "set version"]);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  // Members removed from anywhere, one changed and one added at the end: all said member by member.
  expect(paths(logged(stored, { o: given({ b: 3, d: o.d, f: "f", g: "g", h: "h", e: 1 }) }))).toEqual([
    "unset o.a",
    "unset o.c",
    "set o.b",
    "set o.e",
    "set version",
  ]);
});

test("a value with more than twice the old one's members is logged whole; at twice, member by member", () => {
  const long = "x".repeat(100);
  const stored = deepFreeze({ _id: "j1", version: 1, o: { a: long, b: long } }) as StoredDoc;
  const o = stored.o as Doc;
  // Two kept, two new: as many change as stay, each member's op shorter than the whole value.
  expect(paths(logged(stored, { o: given({ a: o.a, b: o.b, c: 1, d: 2 }) }))).toEqual([
    "set o.c",
    "set o.d",
    "set version",
  ]);
  // Two kept, three new: more change than stay, decided by the counts alone (a task's start).
  expect(paths(logged(stored, { o: given({ a: o.a, b: o.b, c: 1, d: 2, e: 3 }) }))).toEqual([
    "set o",
    "set version",
  ]);
  // One kept, two changed: whole, though the two members' ops would be shorter than the whole value.
  const three = deepFreeze({ _id: "j2", version: 1, o: { a: long, b: 1, c: 2 } }) as StoredDoc;
  const kept = (three.o as Doc).a;
  expect(paths(logged(three, { o: given({ a: kept, b: 3, c: 4 }) }))).toEqual(["set o", "set version"]);
  expect(paths(logged(three, { o: given({ a: kept, b: 1, c: 4 }) }))).toEqual(["set o.c", "set version"]);
});

test("randomised objects set over objects: the logged patch replays to the same document, never longer", () => {
  const r = seeded(20261128);
  let memberWise = 0;
  for (let i = 0; i < 5_000; i++) {
    const members: Doc = {};
    for (const key of ["a", "b", "c", "long", "d", "1"]) if (r() < 0.7) members[key] = randomValue(r);
    if (r() < 0.5) members.long = "l".repeat(int(r, 0, 300));
    const stored = deepFreeze({ _id: `d${i}`, version: 1, o: members }) as StoredDoc;
    const value = editedObject(r, stored.o as Doc, ["e", "f", "a", "__proto__", "1", "g.h", "long"]);
    const ops = logged(stored, { o: r() < 0.8 ? given(value) : value });
    const whole = JSON.stringify(["set", "o", value]).length;
    expect(JSON.stringify(ops.filter((op) => op[1] !== "version")).length - 2).toBeLessThanOrEqual(whole + 1);
    if (ops.some((op) => op[1].startsWith("o."))) memberWise++;
  }
  // Both ways are well exercised, or the test proves nothing about one of them.
  expect(memberWise).toBeGreaterThan(500);
  expect(memberWise).toBeLessThan(4_500);
});

test("a store logs a task's changed members and reads back the same job after a restart", async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "member-patch-"));
  try {
    const store = new EmbeddedBackend({ dataDir });
    const jobs = store.collection("jobs");
    await jobs.insertOne({ _id: "j1", version: 1, tasks: { t2: running } });
    const [stored] = await jobs.find({ _id: "j1" });
    const task = (stored.tasks as Doc).t2 as Doc;
    // A caller's plain copy: object members equal but not the same, so those are written whole.
    await jobs.updateOne(
      { _id: "j1" },
      { $set: { "tasks.t2": { ...task, status: "complete", claim: null } } },
    );
    const before = JSON.stringify(await jobs.find({}));
    await store.close();
    const log = fs.readFileSync(path.join(dataDir, "store", "store.log"), "utf8");
    expect(log).toContain('["set","tasks.t2.status","complete"]');
    const reopened = new EmbeddedBackend({ dataDir });
    expect(JSON.stringify(await reopened.collection("jobs").find({}))).toBe(before);
    await reopened.close();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
