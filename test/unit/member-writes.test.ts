/**
 * A remote versioned write sends an object it sets over an object the caller holds as the members
 * that changed (shared/store/member-writes.ts). The store's node applies those member sets and
 * unsets in the order given: the document must come out exactly as the whole value makes it,
 * member order included, or the write must go whole.
 */
import { fastUpdate } from "../../shared/store/embedded/fast-update";
import type { StoredDoc } from "../../shared/store/embedded/table";
import { memberWrites } from "../../shared/store/member-writes";
import type { Doc } from "../../shared/store/types";
import { deepFreeze, editedObject, randomValue, seeded } from "../support/random-docs";

/** Members a random edit may add: some are no plain path segment, so their object goes whole. */
const ADDED = ["e", "f", "a", "__proto__", "1", "g.h"];

const claim = { owner: "replica-a/1f2e", until: 1795901451239, run: "024e64b5-a530-42f6-ba38-3cbdd503ea50" };
const variables = { incoming: { device: "r1" }, outgoing: {} };
const incomplete = {
  name: "noop",
  app: "bench",
  type: "automatic",
  summary: "t2",
  variables,
  status: "incomplete",
};

/** The document `set` and `unset` make of `doc` as the store's node applies them (its fast path). */
function applied(doc: Doc, set: Record<string, unknown>, unset?: Record<string, "">): string {
  const update = { $set: set, $inc: { version: 1 }, ...(unset && { $unset: unset }) };
  const fast = fastUpdate(deepFreeze(structuredClone(doc)) as StoredDoc, update);
  if (!fast) throw new Error(`the fast path refused ${JSON.stringify(update)}`);
  return JSON.stringify(fast.doc);
}

test("a task's start and finish go as the members that changed, new ones after the kept ones", () => {
  const job = { _id: "j1", version: 3, tasks: { t2: incomplete }, metrics: { progress: 10, user: "u" } };
  const started = { ...incomplete, status: "running", start_time: "2026-12-01T08:00:00.000Z", claim };
  const metrics = { ...job.metrics, progress: 20 };
  const set = { "tasks.t2": started, metrics, last_updated: "2026-12-01T08:00:00.001Z" };

  const sent = memberWrites(set, undefined, job);
  expect(sent).toEqual({
    set: {
      "tasks.t2.status": "running",
      "tasks.t2.start_time": "2026-12-01T08:00:00.000Z",
      "tasks.t2.claim": claim,
      "metrics.progress": 20,
      last_updated: "2026-12-01T08:00:00.001Z",
    },
  });
  expect(Object.keys(sent.set)[4]).toBe("last_updated"); // the paths in the order given
  expect(applied(job, sent.set, sent.unset)).toBe(applied(job, set));

  // The finish drops the claim: an unset beside the caller's own.
  const after = JSON.parse(applied(job, set)) as typeof job;
  const { claim: _dropped, ...rest } = after.tasks.t2 as typeof started;
  const finished = { ...rest, status: "complete", finish_state: "success" };
  const finish = { "tasks.t2": finished };
  const own = { "tasks.t9": "" as const };
  const sentFinish = memberWrites(finish, own, after);
  expect(sentFinish).toEqual({
    set: { "tasks.t2.status": "complete", "tasks.t2.finish_state": "success" },
    unset: { "tasks.t9": "", "tasks.t2.claim": "" },
  });
  expect(own).toEqual({ "tasks.t9": "" }); // the caller's unset is not written into
  expect(applied(after, sentFinish.set, sentFinish.unset)).toBe(applied(after, finish, own));
});

test("what cannot go member by member goes whole", () => {
  const job = { _id: "j1", version: 3, tasks: { t2: incomplete, t3: null }, list: [1], n: 1 };
  const whole = (set: Record<string, unknown>) => expect(memberWrites(set, undefined, job)).toEqual({ set });
  whole({ "tasks.t2": { start_time: "x", ...incomplete, status: "running" } }); // a kept member after a new one
  whole({ "tasks.t2": { variables, status: "x", name: "noop" } }); // a reorder of kept members
  whole({ "tasks.t2": { ...incomplete, "a.b": 1 } }); // a key that is no plain path segment
  whole({ "tasks.t2": { ...incomplete, $x: 1 } });
  whole({ "tasks.t2": { ...incomplete, 7: 1 } });
  whole({ "tasks.t2": { a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7, name: "noop" } }); // more change than stay
  // Twice the members plus one, the old ones kept: more are new than stay (a task's start).
  const grown = {
    ...incomplete,
    ...Object.fromEntries(["p", "q", "r", "s", "t", "u", "v"].map((k) => [k, 1])),
  };
  whole({ "tasks.t2": grown });
  whole({ "tasks.t2": { ...incomplete, status: undefined } }); // JSON leaves it out
  whole({ "tasks.t2": { ...incomplete } }); // nothing changed: one path is kept, not none
  const { summary: _gone, ...dropOnly } = incomplete;
  whole({ "tasks.t2": dropOnly }); // unsets alone: the $set could be left empty
  whole({ "tasks.t3": { status: "running" } }); // over null
  whole({ "tasks.t4": { status: "running" } }); // over nothing
  whole({ list: { 0: 2 } }); // over an array
  whole({ n: { a: 1 } }); // over a scalar
  whole({ "tasks.t2": [1] }); // an array set
});

test("as many changed as kept go member by member; more, whole", () => {
  const job = { _id: "j1", version: 3, tasks: { t2: incomplete } };
  const added = Object.fromEntries(["p", "q", "r", "s", "t", "u"].map((k) => [k, 1]));
  const { set } = memberWrites({ "tasks.t2": { ...incomplete, ...added } }, undefined, job);
  expect(Object.keys(set)).toEqual(Object.keys(added).map((k) => `tasks.t2.${k}`));
  // Three of six changed go member by member; four of six (more change than stay) go whole.
  const three = { ...incomplete, name: "x", app: "y", type: "z" };
  expect(Object.keys(memberWrites({ "tasks.t2": three }, undefined, job).set)).toHaveLength(3);
  const four = { ...three, summary: "w" };
  expect(memberWrites({ "tasks.t2": four }, undefined, job)).toEqual({ set: { "tasks.t2": four } });
});

test("randomised objects set over objects: the member writes make the same document as the whole values", () => {
  const r = seeded(20261201);
  let narrowed = 0;
  for (let i = 0; i < 5_000; i++) {
    const doc: Doc = { _id: `d${i}`, version: 1 };
    for (const path of ["o", "p"]) {
      const members: Doc = {};
      for (const key of ["a", "b", "c", "d", "e"]) if (r() < 0.8) members[key] = randomValue(r);
      doc[path] = members;
    }
    const set: Record<string, unknown> = { o: editedObject(r, doc.o as Doc, ADDED) };
    if (r() < 0.5) set.p = editedObject(r, doc.p as Doc, ADDED);
    if (r() < 0.3) set.q = randomValue(r);
    const sent = memberWrites(set, undefined, doc);
    if (Object.keys(sent.set).some((path) => path.includes("."))) narrowed++;
    expect(applied(doc, sent.set, sent.unset)).toBe(applied(doc, set));
  }
  // Both ways are well exercised, or the test proves nothing about one of them.
  expect(narrowed).toBeGreaterThan(500);
  expect(narrowed).toBeLessThan(4_500);
});
