/**
 * A new job of a frozen workflow (services/engine/run/job-template.ts): its tasks before the first
 * step are its workflow's template tasks, shared by every job of that workflow image, and its
 * stored image is its root parsed with holes and its text the shared parts' texts spliced in. What
 * is stored and answered must be exactly what serializing the caller's job and parsing it back
 * gives; a text that cannot be spliced safely (a variable that looks like a hole) takes the whole
 * job's parse, as before.
 */
import { JobStore, writableTask } from "../../services/engine/run/jobs";
import { JobRepository } from "../../services/engine/jobs.repository";
import { EmbeddedBackend } from "../../shared/store/embedded/backend";
import { buildJob } from "../../services/engine/run/new-job";
import { deepFreeze } from "../../shared/objects";
import { jsonNesting } from "../../shared/store/embedded/depth";
import type { WorkflowDoc } from "../../shared/contracts/engine-documents";
import type { RunJob } from "../../services/engine/run/types";
import { jobStorePerTest, nestedObjects } from "../support/run-jobs";

const fixture = jobStorePerTest("job-template-");
const stored = (id: string) => fixture.stored(id);

/** A workflow of three tasks between its start and end; `b` retries; `extra` goes into task `b`. */
function workflow(name: string, extra: Record<string, unknown> = {}): WorkflowDoc {
  const noop = (x: number) => ({
    name: "noop",
    app: "benchtask",
    type: "automatic" as const,
    variables: { incoming: { device: "r1", n: -0, text: 'ü\u2028"q"' }, outgoing: { result: null } },
    x,
    y: 0.5,
  });
  return {
    _id: `wf-${name}`,
    name,
    description: "",
    type: "automation",
    tasks: {
      workflow_start: { name: "workflow_start", type: "operation", x: 0, y: 0 },
      a: noop(1),
      b: { ...noop(2), retrySettings: { limit: 2 }, ...extra },
      c: noop(3),
      workflow_end: { name: "workflow_end", type: "operation", x: 9, y: 0 },
    },
    transitions: {
      workflow_start: { a: { type: "standard", state: "success" } },
      a: { b: { type: "standard", state: "success" } },
      b: { c: { type: "standard", state: "success" } },
      c: { workflow_end: { type: "standard", state: "success" } },
      workflow_end: {},
    },
  } as unknown as WorkflowDoc;
}

let ids = 0;
/** A job of `wf` as a start builds it, with its first step's change: task `a` running (a copy). */
function started(wf: WorkflowDoc, variables: Record<string, unknown> = { x: 1 }): RunJob {
  const job = buildJob(wf, { id: `job-${++ids}`, variables, groups: ["g"] }, 1_700_000_000_000);
  writableTask(job, "a")!.status = "running";
  return job;
}

const walkFrozen = (v: unknown): void => {
  if (v && typeof v === "object") {
    expect(Object.isFrozen(v)).toBe(true);
    Object.values(v).forEach(walkFrozen);
  }
};

/** The store closed and opened again from its files: the jobs `ids` as it reads them back. */
async function reopened(ids: string[]): Promise<RunJob[]> {
  await fixture.backend.close();
  fixture.backend = new EmbeddedBackend({ dataDir: fixture.dataDir });
  fixture.jobs = new JobStore(new JobRepository(fixture.backend));
  return Promise.all(ids.map((id) => fixture.stored(id)));
}

/** Inserts `job`: what is answered and stored must be its text parsed back, deep-frozen. */
async function insertsAsItsText(job: RunJob): Promise<RunJob> {
  const text = JSON.stringify(job);
  const answer = await fixture.jobs.insert(job);
  expect(JSON.stringify(answer)).toBe(text);
  expect(answer).toEqual(JSON.parse(text));
  expect(Object.keys(answer)).toEqual(Object.keys(JSON.parse(text)));
  expect(JSON.stringify(await stored(job._id))).toBe(text);
  walkFrozen(answer);
  // The caller's job is its own: never frozen by the insert (its first step's copy included).
  expect(Object.isFrozen(job)).toBe(false);
  if (job.tasks && !Array.isArray(job.tasks)) {
    expect(Object.isFrozen(job.tasks)).toBe(false);
    expect(Object.isFrozen(job.tasks.a)).toBe(false);
  }
  return answer;
}

test("jobs of a frozen workflow share its untouched tasks and transitions, stored as their texts parse back", async () => {
  const wf = deepFreeze(workflow("shared"));
  const first = started(wf, { x: 1, "2": "integer-like", nested: { list: [[], {}, null] } });
  const second = started(wf, JSON.parse('{"__proto__": {"x": 1}, "after": -0}'));
  // Built from the template: the same frozen tasks (but the first step's copy) and transitions.
  expect(first.tasks.b).toBe(second.tasks.b);
  expect(Object.isFrozen(first.tasks.b)).toBe(true);
  expect(first.tasks.a).not.toBe(second.tasks.a);
  expect(first.transitions).toBe(wf.transitions);
  const one = await insertsAsItsText(first);
  const two = await insertsAsItsText(second);
  // Stored without a copy: the template's tasks and the workflow's transitions themselves.
  expect(one.tasks.b).toBe(first.tasks.b);
  expect(two.tasks.c).toBe(one.tasks.c);
  expect(one.transitions).toBe(wf.transitions);
  // The first step's task is the job's own, parsed from its text.
  expect(one.tasks.a).not.toBe(first.tasks.a);
  expect(one.tasks.a!.status).toBe("running");
  expect(one.tasks.b!.retrySettings).toEqual({
    autoRetry: false,
    limit: 2,
    delay: 0,
    state: ["error"],
    count: 0,
  });
  expect((await reopened([one._id, two._id])).map((doc) => JSON.stringify(doc))).toEqual([
    JSON.stringify(first),
    JSON.stringify(second),
  ]);
  // A later write of the job goes on from the shared tasks as from any other stored ones.
  const written = await fixture.jobs.update(one._id, (draft) => {
    writableTask(draft, "a")!.status = "complete";
    writableTask(draft, "b")!.status = "running";
  });
  expect(written!.changed).toBe(true);
  const after = await stored(one._id);
  expect([after.tasks.a!.status, after.tasks.b!.status, after.tasks.c!.status]).toEqual([
    "complete",
    "running",
    "incomplete",
  ]);
  // The other job's tasks are untouched by it.
  expect((await stored(two._id)).tasks.b!.status).toBe("incomplete");
});

test("a changed workflow (another frozen image) has a template of its own", async () => {
  const before = await insertsAsItsText(started(deepFreeze(workflow("v"))));
  const after = await insertsAsItsText(started(deepFreeze(workflow("v", { summary: "changed" }))));
  expect(before.tasks.b).not.toBe(after.tasks.b);
  expect((after.tasks.b as unknown as { summary?: string }).summary).toBe("changed");
  expect((before.tasks.b as unknown as { summary?: string }).summary).toBeUndefined();
});

test("a workflow not frozen (MongoDB, a remote store) gives each job tasks of its own", async () => {
  const wf = workflow("plain");
  const first = started(wf);
  const second = started(wf);
  expect(first.tasks.b).not.toBe(second.tasks.b);
  expect(Object.isFrozen(first.tasks.b)).toBe(false);
  const one = await insertsAsItsText(first);
  const two = await insertsAsItsText(second);
  expect(one.tasks.b).not.toBe(two.tasks.b);
  expect(one.tasks.b).toEqual(two.tasks.b);
});

test("a variable that looks like a hole of the root's text takes the whole job's parse", async () => {
  const wf = deepFreeze(workflow("holes"));
  const cases: [Record<string, unknown>, boolean][] = [
    // The tasks' hole exactly (the same ids, each an empty object), and the transitions' hole.
    [{ t: { tasks: { workflow_start: {}, a: {}, b: {}, c: {}, workflow_end: {} } } }, false],
    [{ t: { transitions: {} } }, false],
    // Holes' look-alikes that are not holes: spliced as usual.
    [{ t: { tasks: {} }, u: '"tasks":{}', v: '"transitions":{}' }, true],
  ];
  for (const [vars, spliced] of cases) {
    const job = started(wf, vars);
    const answer = await insertsAsItsText(job);
    expect(answer.variables).toEqual(vars);
    // Spliced, the template's task is stored itself; parsed whole, a copy of it.
    expect(answer.tasks.b === job.tasks.b).toBe(spliced);
  }
});

test("a new job of a frozen workflow nesting 100 levels is stored, one level deeper is refused", async () => {
  // Task `b`'s incoming variables nest the job: the job 1, tasks 2, b 3, variables 4, incoming 5.
  const deep = (levels: number) =>
    deepFreeze(workflow(`deep${levels}`, { variables: { incoming: { d: nestedObjects(levels - 5) } } }));
  const ok = started(deep(100));
  expect(jsonNesting(JSON.stringify(ok))).toBe(100);
  await expect(fixture.jobs.insert(ok)).resolves.toMatchObject({ _id: ok._id });
  const tooDeep = started(deep(101));
  expect(jsonNesting(JSON.stringify(tooDeep))).toBe(101);
  await expect(fixture.jobs.insert(tooDeep)).rejects.toThrow(/nests deeper than 100 levels/);
  expect(await stored(tooDeep._id)).toBeNull();
  // The transitions nest the job too (job 1, transitions 2, from 3, the transition to 4).
  const deepTransitions = (levels: number) => {
    const wf = workflow(`deepT${levels}`);
    const transitions = wf.transitions as unknown as Record<string, Record<string, Record<string, unknown>>>;
    transitions.a.b.x = nestedObjects(levels - 4);
    return deepFreeze(wf);
  };
  await expect(fixture.jobs.insert(started(deepTransitions(100)))).resolves.toBeTruthy();
  await expect(fixture.jobs.insert(started(deepTransitions(101)))).rejects.toThrow(
    /nests deeper than 100 levels/,
  );
});

test("a workflow frozen only at its top gives each job tasks or transitions of its own", async () => {
  // Object.freeze of a map alone: what it holds could still change between two starts.
  const shallowTasks = workflow("shallow-tasks");
  Object.freeze(shallowTasks.tasks);
  deepFreeze(shallowTasks.transitions);
  const shallowTransitions = workflow("shallow-transitions");
  deepFreeze(shallowTransitions.tasks);
  Object.freeze(shallowTransitions.transitions);
  // Frozen all through but not JSON as it is (a Date, which setTime changes even frozen).
  const dated = workflow("dated");
  (dated.transitions as unknown as Record<string, Record<string, Record<string, unknown>>>).a.b.when =
    new Date(0);
  deepFreeze(dated);
  // Frozen all through, and a number JSON writes as null.
  const notANumber = workflow("nan");
  (notANumber.transitions as unknown as Record<string, Record<string, Record<string, unknown>>>).a.b.n = NaN;
  deepFreeze(notANumber);
  const transition = (wf: WorkflowDoc) =>
    (wf.transitions as unknown as Record<string, Record<string, { state: string }>>).a.b;
  const changes: [WorkflowDoc, () => void][] = [
    [shallowTasks, () => ((shallowTasks.tasks.b as unknown as Record<string, unknown>).summary = "changed")],
    [shallowTransitions, () => (transition(shallowTransitions).state = "error")],
    [dated, () => (transition(dated) as unknown as { when: Date }).when.setTime(1)],
    [notANumber, () => undefined],
  ];
  const jobs: RunJob[] = [];
  for (const [wf, change] of changes) {
    jobs.push(started(wf));
    change();
    jobs.push(started(wf));
  }
  expect(jobs[0].tasks.b).not.toBe(jobs[1].tasks.b);
  expect((jobs[1].tasks.b as unknown as { summary?: string }).summary).toBe("changed");
  expect(jobs[2].tasks.b).toBe(jobs[3].tasks.b); // its tasks deep-frozen: a template
  const texts = jobs.map((job) => JSON.stringify(job));
  const answers: RunJob[] = [];
  for (const job of jobs) answers.push(await insertsAsItsText(job));
  expect(transition(answers[3] as unknown as WorkflowDoc).state).toBe("error");
  // What the store wrote is each job's text: a reopened store reads them back so.
  expect((await reopened(answers.map((a) => a._id))).map((doc) => JSON.stringify(doc))).toEqual(texts);
});

test("a job whose tasks JSON writes otherwise than as a map of objects takes the whole parse", async () => {
  const wf = deepFreeze(workflow("odd"));
  const asArray = started(wf);
  asArray.tasks = [asArray.tasks.a, asArray.tasks.b] as unknown as RunJob["tasks"];
  const dropped = started(wf);
  (dropped.tasks as Record<string, unknown>).c = { toJSON: () => undefined };
  const none = started(wf);
  delete (none as Partial<RunJob>).tasks;
  for (const job of [asArray, dropped, none]) {
    const answer = await insertsAsItsText(job);
    expect(answer.tasks).toEqual(JSON.parse(JSON.stringify(job)).tasks);
  }
});
