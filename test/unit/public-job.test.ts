/**
 * publicJob (services/engine/jobs/public-job.ts) builds a job answer member by member instead of
 * deleting the engine's bookkeeping from a spread copy (a `delete` leaves a slow dictionary
 * object). Held here to the spread-and-delete it replaced, on random jobs: the same members in the
 * same order, nothing of the job's own changed, and the job and each task its own object.
 */
import { JOB_HIDDEN_PATHS, publicJob } from "../../services/engine/jobs/public-job";
import { deepFreeze, int, pick, randomObject, randomValue, seeded, type Rand } from "../support/random-docs";

type Doc = Record<string, any>;

/** The rule as it was written before: a spread copy, then a delete of each internal member. */
function spreadAndDelete(job: Doc): Doc {
  const out: Doc = { ...job };
  for (const key of ["version", "sweepAt", "waitingTasks", "manualTasks", "runAs", "deferred", "spilled"])
    delete out[key];
  if (out.tasks && typeof out.tasks === "object") {
    const tasks: Doc = {};
    for (const [id, task] of Object.entries(out.tasks as Doc)) {
      if (!task || typeof task !== "object") {
        tasks[id] = task;
        continue;
      }
      const copy: Doc = { ...task };
      for (const key of ["claim", "child", "loop", "waitingSince"]) delete copy[key];
      tasks[id] = copy;
    }
    out.tasks = tasks;
  }
  return out;
}

const JOB_KEYS = [
  "_id",
  "name",
  "status",
  "version",
  "sweepAt",
  "waitingTasks",
  "manualTasks",
  "runAs",
  "deferred",
  "spilled",
];
const TASK_KEYS = ["name", "status", "claim", "child", "loop", "waitingSince", "variables", "previous"];

/** Members in a random order, some of the internal ones among them. */
function randomMembers(r: Rand, keys: string[]): Doc {
  const out: Doc = {};
  for (const key of [...keys].sort(() => r() - 0.5)) if (r() < 0.7) out[key] = randomValue(r, 1);
  return Object.assign(out, randomObject(r, 2));
}

function randomJob(r: Rand): Doc {
  const job = randomMembers(r, JOB_KEYS);
  if (r() < 0.9) {
    const tasks: Doc = {};
    for (let i = int(r, 0, 6); i > 0; i--)
      tasks[`t${int(r, 0, 20)}`] = r() < 0.15 ? pick(r, [null, 3, "x"]) : randomMembers(r, TASK_KEYS);
    const at = int(r, 0, Object.keys(job).length);
    const entries = Object.entries(job);
    entries.splice(at, 0, ["tasks", r() < 0.05 ? null : tasks]);
    return Object.fromEntries(entries);
  }
  return job;
}

/** Text with every object's member order (JSON keeps it), and the member order of each level. */
const shape = (value: unknown) => JSON.stringify(value);

describe("publicJob", () => {
  test("answers what spread-and-delete answered, for 2,000 random jobs, frozen or not", () => {
    const r = seeded(26);
    for (let i = 0; i < 2000; i++) {
      const job = randomJob(r);
      if (r() < 0.5) deepFreeze(job);
      const before = shape(job);
      const answer = publicJob(job);
      const expected = spreadAndDelete(job);
      expect(shape(answer)).toBe(shape(expected));
      expect(Object.keys(answer)).toEqual(Object.keys(expected));
      if (answer.tasks && typeof answer.tasks === "object")
        for (const id of Object.keys(answer.tasks)) {
          expect(Object.keys(answer.tasks[id] ?? {})).toEqual(Object.keys(expected.tasks[id] ?? {}));
          if (answer.tasks[id] && typeof answer.tasks[id] === "object")
            expect(answer.tasks[id]).not.toBe(job.tasks[id]);
        }
      expect(answer).not.toBe(job);
      if (job.tasks && typeof job.tasks === "object") expect(answer.tasks).not.toBe(job.tasks);
      expect(shape(job)).toBe(before);
      expect(Object.isFrozen(answer)).toBe(false);
    }
  });

  test("a `__proto__` member stays a member; the hidden paths are the internals", () => {
    const job = JSON.parse(
      '{"_id":"j","__proto__":{"x":1},"version":3,"tasks":{"a":{"__proto__":1,"claim":2}}}',
    );
    const answer = publicJob(job);
    expect(JSON.stringify(answer)).toBe('{"_id":"j","__proto__":{"x":1},"tasks":{"a":{"__proto__":1}}}');
    expect(Object.getPrototypeOf(answer)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(answer.tasks.a)).toBe(Object.prototype);
    expect(JOB_HIDDEN_PATHS).toContain("tasks.*.claim");
  });
});
