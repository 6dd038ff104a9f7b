/**
 * What every new job of a workflow starts from, made once per workflow image and shared by its
 * jobs: its tasks before the first step, deep-frozen, each with its JSON text and nesting; and the
 * workflow's transitions (the stored workflow's own object, frozen), with theirs. A new job's
 * stored image (JobStore.insert, ./jobs.ts) then parses only what is its own (its root members, the
 * tasks its first step changed) and has the shared parts' texts spliced into its text. Before, a
 * new job of ten tasks was serialized and parsed back whole, and its start cost about 606,000
 * instructions; 430,000 since (callgrind, thirty-eighth round, docs/performance-rounds.md).
 *
 * Only for a workflow the store answered deep-frozen (the embedded store's read-only answer, the
 * same object while the workflow is unchanged): nothing can change under a template, and a changed
 * workflow is another image with a template of its own (the old one goes with its image: weak
 * maps). A workflow from MongoDB or a remote store is not frozen: its jobs' tasks are built afresh
 * and stored as before.
 */
import { adoptFrozen } from "../../../shared/frozen-json";
import { hasOwn as sharedHasOwn, setOwn } from "../../../shared/objects";
import { jsonKnown, nestingOf, parseFrozenCounted } from "./json-values";
import type { RunJob, RunTask } from "./types";

/** shared/objects.ts hasOwn as a const of this module, so V8 compiles its for-in checks (see there). */
const hasOwn = sharedHasOwn;

/**
 * Whether every object in `value` is frozen (`Object.isFrozen` says it of the top one only), so
 * nothing in it can change; with `asJson`, also whether it is JSON data as it is (plain objects and
 * arrays, strings, booleans, null, finite numbers: nothing JSON would write otherwise or leave out),
 * so it can never differ from its text.
 */
function frozenThrough(value: unknown, asJson: boolean): boolean {
  if (asJson && !jsonKnown(value)) return false;
  if (typeof value !== "object" || value === null) return true;
  if (!Object.isFrozen(value)) return false;
  if (Array.isArray(value))
    return value.every((item) => !(asJson && item === undefined) && frozenThrough(item, asJson));
  // As JSON.parse makes it: a prototype of null would not be (jsonKnown takes it).
  if (asJson && Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const key in value)
    if (hasOwn.call(value, key) && !frozenThrough((value as Record<string, unknown>)[key], asJson))
      return false;
  return true;
}

/** A deep-frozen part shared by new jobs: its JSON text and nesting. */
interface Known {
  text: string;
  nesting: number;
}

/** The template tasks and the registered transitions, each with its text and nesting. */
const known = new WeakMap<object, Known>();

type Tasks = Record<string, RunTask | null>;

/** Each frozen workflow `tasks` map's tasks before the first step, deep-frozen; null when not deep-frozen. */
const templates = new WeakMap<object, Tasks | null>();

/**
 * The tasks a new job of a workflow starts with, the same frozen objects for every job of that
 * workflow image, or undefined when the workflow's tasks are not frozen. `make` builds one task
 * from its definition (./new-job.ts newTask); each is stored as its text parsed back (a task's
 * text and its parse give every job the same task, with JSON.parse's shapes).
 */
export function templateTasks<D>(defs: Record<string, D | null | undefined>, make: (def: D) => RunTask) {
  if (!Object.isFrozen(defs)) return undefined;
  const made = templates.get(defs);
  if (made !== undefined) return made ?? undefined;
  // Frozen all through, or a definition could change under its template (checked once an image;
  // the template's tasks are their texts parsed back, whatever JSON makes of a definition).
  if (!frozenThrough(defs, false)) {
    templates.set(defs, null);
    return undefined;
  }
  const tasks: Tasks = {};
  for (const [id, def] of Object.entries(defs)) {
    if (!def) {
      setOwn<RunTask | null>(tasks, id, null);
      continue;
    }
    const text = JSON.stringify(make(def));
    const { value, nesting } = parseFrozenCounted(text);
    known.set(value as object, { text, nesting });
    setOwn<RunTask | null>(tasks, id, value as RunTask);
  }
  templates.set(defs, Object.freeze(tasks));
  return tasks;
}

/**
 * A workflow's transitions as its new jobs share them: the frozen object itself, its text and
 * nesting known from its first job on. Any other value is answered as it is (the job's own copy).
 */
export function sharedTransitions<T>(transitions: T): T {
  if (typeof transitions !== "object" || transitions === null || !Object.isFrozen(transitions))
    return transitions;
  // JSON frozen all through (checked once an image), or it could differ from its text, now or
  // later: else the job's text carries it as any other member.
  if (!known.has(transitions) && frozenThrough(transitions, true))
    known.set(transitions, { text: JSON.stringify(transitions), nesting: nestingOf(transitions) });
  return transitions;
}

/** What JobStore.insert stores for a new job: its text, and (when kept) its frozen image. */
export interface NewJobImage {
  text: string;
  /** The job as its text parses back, deep-frozen, with its text and nesting (adoptFrozen). */
  doc(): RunJob;
}

const TRANSITIONS_HOLE = '"transitions":{}';

/**
 * The stored image of a new job holding template parts (templateTasks, sharedTransitions), or
 * undefined when it holds none or its text cannot be spliced safely (JobStore.insert then
 * serializes and parses the whole job, as before). The root is serialized with an empty object in
 * each shared part's place (`"tasks":{"a":{},...}`, `"transitions":{}`): that text parses to the
 * root with JSON.parse's shapes, the parts are set into those places, and the parts' texts are
 * spliced into the same places of the text. A hole must appear once in the root's text (a
 * variable's member could look the same): else undefined.
 */
export function newJobImage(job: RunJob): NewJobImage | undefined {
  // A map of tasks as JSON writes one (not an array, not a class): else no hole is made for it.
  const map: unknown = job.tasks;
  if (typeof map !== "object" || map === null || Object.getPrototypeOf(map) !== Object.prototype)
    return undefined;
  const ids = Object.keys(map);
  const tasks = Object.values(map) as unknown[];
  let shared = false;
  for (const task of tasks) {
    if (task === null) continue;
    if (typeof task !== "object") return undefined; // JSON would leave it out (undefined)
    if (known.has(task)) shared = true;
  }
  if (!shared) return undefined;
  const transitions = known.get(job.transitions as object);
  const holes: Record<string, object> = {};
  for (const id of ids) setOwn(holes, id, {});
  const shell = { ...job, tasks: holes } as Record<string, unknown>;
  if (transitions) shell.transitions = {};
  const rootText = JSON.stringify(shell);
  const tasksHole = `"tasks":${JSON.stringify(holes)}`;
  const taskTexts = tasks.map((task) =>
    task === null ? "null" : (known.get(task as object)?.text ?? JSON.stringify(task)),
  );
  // A task JSON leaves out (its toJSON answering undefined): the whole job's text says so.
  if (taskTexts.some((text) => typeof text !== "string")) return undefined;
  const tasksText = `"tasks":{${ids.map((id, i) => `${JSON.stringify(id)}:${taskTexts[i]}`).join(",")}}`;
  const splices = [{ hole: tasksHole, text: tasksText, at: -1 }];
  if (transitions)
    splices.push({ hole: TRANSITIONS_HOLE, text: `"transitions":${transitions.text}`, at: -1 });
  for (const splice of splices) {
    splice.at = rootText.indexOf(splice.hole);
    if (splice.at === -1 || rootText.indexOf(splice.hole, splice.at + 1) !== -1) return undefined;
  }
  splices.sort((a, b) => a.at - b.at);
  let text = "";
  let from = 0;
  for (const { hole, text: part, at } of splices) {
    text += rootText.slice(from, at) + part;
    from = at + hole.length;
  }
  text += rootText.slice(from);
  return { text, doc: () => imageOf(job, rootText, ids, tasks, taskTexts, transitions, text) };
}

/** The frozen image newJobImage promises: the root parsed with its holes, the parts set into them. */
function imageOf(
  job: RunJob,
  rootText: string,
  ids: string[],
  tasks: unknown[],
  taskTexts: string[],
  transitions: Known | undefined,
  text: string,
): RunJob {
  const root = JSON.parse(rootText) as Record<string, unknown>;
  let deepest = 0;
  for (const key in root) {
    if (!Object.hasOwn(root, key) || key === "tasks" || (transitions && key === "transitions")) continue;
    deepest = Math.max(deepest, nestingOf(root[key], true));
  }
  const map = root.tasks as Record<string, unknown>;
  let taskDepth = 0;
  for (let i = 0; i < ids.length; i++) {
    const task = tasks[i];
    const part = task === null ? undefined : known.get(task as object);
    if (part) {
      setOwn(map, ids[i], task);
      taskDepth = Math.max(taskDepth, part.nesting);
    } else if (task === null) setOwn(map, ids[i], null);
    else {
      // A task the first step changed (writableTask's copy, the caller's): parsed from its text.
      const { value, nesting } = parseFrozenCounted(taskTexts[i]);
      setOwn(map, ids[i], value);
      taskDepth = Math.max(taskDepth, nesting);
    }
  }
  Object.freeze(map);
  deepest = Math.max(deepest, 1 + taskDepth);
  if (transitions) {
    root.transitions = job.transitions;
    deepest = Math.max(deepest, transitions.nesting);
  }
  return adoptFrozen(Object.freeze(root), text, deepest + 1) as unknown as RunJob;
}
