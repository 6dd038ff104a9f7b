/**
 * Job documents in the store, written with compare-and-set on `version`: a write names the version
 * it was computed from, and loses (and is recomputed on the newer document) when another writer got
 * there first. So concurrent writers — two replicas, two branches of one job, two finishTask calls —
 * never lose an update, and a decision is only ever acted on once it is stored.
 *
 * Each replica remembers the last version it wrote or read of a job (JOB_CACHE_SIZE of them) so the
 * next step of a job it is running needs no read first. The cache only saves a read: a write from a
 * stale copy fails its compare-and-set, and a decision not to write (or to refuse) made on a cached
 * copy is always re-checked on a fresh read.
 *
 * The store's side (the reads, the insert, the compare-and-set itself) is ../jobs.repository.ts;
 * this class decides what to write.
 *
 * Performance machinery (PERF_MACHINERY, on by default): a draft shares the remembered job's tasks
 * and parts, deep-frozen, and a transition takes its own copy of a task with writableTask (of a
 * part, writablePart) before changing it; a write into a shared one throws a TypeError, which fails
 * the write (a bug the tests find, never a slower path taken quietly). Off, a draft is a full copy
 * and changes are found by comparing JSON texts: the differential test
 * (test/engine/perf-machinery.test.ts) runs both ways.
 */
import { copyPlain, deepFreeze, hasOwn as sharedHasOwn, setOwn } from "../../../shared/objects";
import { adoptFrozen, parseFrozen } from "../../../shared/frozen-json";
import { nowIso } from "../../../shared/text";
import { JOB_CACHE_SIZE, MAX_WRITE_ATTEMPTS } from "./settings";
import { newJobImage } from "./job-template";
import { jsonKnown, nestingOf, parseFrozenCounted } from "./json-values";
import {
  closeDraft,
  draftTasksOf,
  indexTasks,
  openDraft,
  type DraftTasks,
  type TaskIndex,
} from "./task-index";
import type { RunJob, RunTask, SpillRef } from "./types";
import type { JobOutputRepository } from "../job-outputs.repository";
import type { JobRepository } from "../jobs.repository";
import {
  ERROR_RECORDS_INLINE,
  MIN_SPILL_BYTES,
  OutputGoneError,
  spillThreshold,
  spillWrite,
  type SpillWrite,
} from "./outputs";

/** shared/objects.ts hasOwn as a const of this module, so V8 compiles its for-in checks (see there). */
const hasOwn = sharedHasOwn;

export interface Written<R> {
  /** The job before this write (equal to `job` when nothing changed). */
  before: RunJob;
  job: RunJob;
  result: R;
  changed: boolean;
  /**
   * The ids of the tasks this write stored anew (every task whose stored value changed), in the
   * job's task order; empty when nothing changed. What changed in them is for the caller to compare
   * (./events.ts): a job's other tasks are the very ones of `before`.
   */
  changedTasks: readonly string[];
}

export class JobStore {
  private readonly cache = new Map<string, RunJob>();
  /** The remembered jobs' task indexes, by job id (./task-index.ts; with the machinery on). */
  private readonly taskIndexes = new Map<string, TaskIndex>();
  private readonly locks = new Map<string, Promise<void>>();

  /** The values too big for their job (./outputs.ts). */
  readonly outputs: JobOutputRepository;

  /** PERF_MACHINERY (see above): false makes every draft a full, unfrozen copy. */
  private readonly machinery: boolean;

  constructor(
    private readonly jobs: JobRepository,
    options: { machinery?: boolean } = {},
  ) {
    this.outputs = jobs.outputs;
    this.machinery = options.machinery ?? true;
  }

  /** The stored job with its values put back (and it is remembered), or null. */
  async read(id: string): Promise<RunJob | null> {
    for (let attempt = 0; ; attempt++) {
      const doc = await this.jobs.findById(id);
      if (!doc) {
        this.forget(id);
        return null;
      }
      try {
        await this.outputs.hydrate(doc);
      } catch (err) {
        // A write replaced a value after this read: the job as it is now refers to the new one.
        if (err instanceof OutputGoneError && attempt < 4) continue;
        throw err;
      }
      this.remember(this.machinery ? frozenTasks(doc) : doc);
      return doc;
    }
  }

  /**
   * Stores a new job; answers it as stored (the values a big one spilled put back). With the
   * machinery on a job small enough to stay whole is answered deep-frozen: the very image the
   * store and this replica keep, which no one can change.
   */
  async insert(job: RunJob): Promise<RunJob> {
    // JSON values only (no `undefined` members), as every backend will hold them, remembered as
    // stored (the caller's objects are never frozen). Frozen with its text: the embedded store
    // keeps it without a copy or a second serialization. The parts it shares with its workflow's
    // other jobs are neither serialized nor parsed again (./job-template.ts).
    const image = this.machinery ? newJobImage(job) : undefined;
    // The first step's task copies (writableTask) are the caller's, stored as their texts parsed.
    forgetDraftCopies();
    const text = image ? image.text : JSON.stringify(job);
    if (text.length <= MIN_SPILL_BYTES || text.length <= spillThreshold(job)) {
      const doc = (image ? image.doc() : this.machinery ? parsedFrozen(text) : JSON.parse(text)) as RunJob;
      await this.jobs.insert(doc);
      this.remember(doc);
      return doc;
    }
    // Big values (a child job's variables, a start's): stored first, then the job referring to them.
    const doc = JSON.parse(text) as RunJob;
    const stored = JSON.parse(text) as RunJob;
    const writes = spillWhole(stored, spillThreshold(job));
    if (writes.length > 0) {
      doc.spilled = stored.spilled = writes.map((w) => w.entry);
      await this.outputs.write(job._id, writes);
    }
    try {
      await this.jobs.insert(stored);
    } catch (err) {
      await this.outputs.drop(doc.spilled ?? []).catch(() => undefined);
      throw err;
    }
    this.remember(this.machinery ? frozenTasks(doc) : doc);
    return doc;
  }

  /**
   * Applies `change` to a copy of the job and stores the result if anything changed. `change` may
   * throw to refuse (nothing is written). Answers null when the job does not exist. `fresh` reads
   * the job first instead of starting from the remembered copy (callers that answer a person).
   */
  async update<R>(
    id: string,
    change: (draft: RunJob) => R,
    options: { fresh?: boolean } = {},
  ): Promise<Written<R> | null> {
    return this.exclusive(id, async () => {
      let base: RunJob | null = options.fresh ? null : (this.cache.get(id) ?? null);
      let cached = base !== null;
      for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
        if (!base) {
          base = await this.read(id);
          cached = false;
          if (!base) return null;
        }
        // The engine's largest cost per transition was copying the whole job: the draft shares
        // its tasks (frozen) until a transition changes one. A write into a shared task throws
        // (a TypeError): refused like any other throw, and thrown again on the fresh read.
        const draft = this.machinery ? draftOf(base) : copyPlain(base);
        // settle and summarize walk only the draft's live tasks and the ones it writes (./task-index.ts).
        const view = this.machinery ? openDraft(draft.tasks, this.taskIndexOf(base)) : undefined;
        let result: R;
        let delta: Delta | null;
        forgetDraftCopies();
        try {
          result = change(draft);
        } catch (err) {
          forgetDraftCopies();
          closeDraft();
          if (!cached) throw err;
          base = null; // refused on a remembered copy: check on the stored one
          continue;
        }
        // The view, when the draft's map is still its own with its base's ids (a change may have
        // replaced it whole, or deleted a task): then only its written tasks can differ.
        const written = view?.tasks === draft.tasks && view.keepsIds() ? view : undefined;
        try {
          delta = changes(base, draft, this.machinery, written);
        } finally {
          forgetDraftCopies();
          closeDraft();
        }
        if (!delta) {
          if (!cached) return { before: base, job: base, result, changed: false, changedTasks: [] };
          base = null;
          continue;
        }
        // Values too big for the job are stored first (none, and no extra write, for small ones).
        const spill = planSpill(base, draft, delta);
        if (spill && spill.writes.length > 0) await this.outputs.write(id, spill.writes);
        const { set, unset } = delta;
        draft.last_updated = set.last_updated = nowIso();
        draft.version = base.version + 1;
        // An ended job is rarely written or read again: the embedded store may hold it as its
        // text at once (types.ts VersionedWriteOptions), as this replica forgets it (remember).
        const settled = this.machinery && hasEnded(draft);
        // What is stored at the base's version, when none of its values moved out of the job: a
        // remote store then sends only the changed members of each task (store/member-writes.ts).
        const before = this.machinery && !spill ? base : undefined;
        if (await this.jobs.compareAndSet(id, base.version, set, unset, { settled, before })) {
          this.remember(draft, written?.storedIndex());
          if (spill && spill.superseded.length > 0) await this.dropQuietly(spill.superseded);
          return { before: base, job: draft, result, changed: true, changedTasks: delta.tasks };
        }
        if (spill && spill.writes.length > 0) await this.dropQuietly(spill.writes.map((w) => w.entry));
        this.forget(id);
        base = null;
      }
      throw new Error(`job ${id}: gave up after ${MAX_WRITE_ATTEMPTS} concurrent write conflicts`);
    });
  }

  /** Values no stored job refers to: removed now, or with their job. */
  private async dropQuietly(entries: SpillRef[]): Promise<void> {
    await this.outputs.drop(entries).catch(() => undefined);
  }

  /** Remembers `job`, with its tasks' index when the write that made it had one. */
  private remember(job: RunJob, index?: TaskIndex): void {
    this.forget(job._id);
    // An ended job is rarely written again (and then after a fresh read): keep the memory for live ones.
    if (hasEnded(job)) return;
    this.cache.set(job._id, job);
    if (index !== undefined) this.taskIndexes.set(job._id, index);
    if (this.cache.size > JOB_CACHE_SIZE) this.forget(this.cache.keys().next().value!);
  }

  private forget(id: string): void {
    this.cache.delete(id);
    this.taskIndexes.delete(id);
  }

  /** The index of `base`'s tasks: the one its write left, or one walk (kept while it is remembered). */
  private taskIndexOf(base: RunJob): TaskIndex {
    const known = this.taskIndexes.get(base._id);
    if (known !== undefined && known.of === base.tasks) return known;
    const index = indexTasks(base.tasks);
    if (this.cache.get(base._id) === base) this.taskIndexes.set(base._id, index);
    return index;
  }

  /** One write at a time per job in this replica: spares the store writes that would only lose the race. */
  private async exclusive<T>(id: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(id);
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous ? previous.then(() => mine) : mine;
    this.locks.set(id, tail);
    if (previous) await previous;
    try {
      return await fn();
    } finally {
      release();
      if (this.locks.get(id) === tail) this.locks.delete(id);
    }
  }
}

/** Whether a job has ended: neither running nor paused (complete, error, canceled). */
export const hasEnded = (job: Pick<RunJob, "status">): boolean =>
  job.status !== "running" && job.status !== "paused";

/**
 * The JSON text of a part of a job. No texts are kept by object: jsonSame spares serializing the
 * old version of a part but when it is unsure, and an entry per remembered part in a WeakMap made
 * every garbage collection dearer than the serializations it saved.
 */
const jsonOf = (value: unknown): string | undefined => JSON.stringify(value);

/**
 * Whether the JSON texts of `a` and `b` are equal, found by walking them instead of serializing:
 * true or false when that is sure (plain objects and arrays, strings, booleans, null, finite
 * numbers; members undefined, functions or symbols are left out, as JSON leaves them), undefined when it is not
 * (a Date or other class, a non-finite number, an undefined array element, a function): the
 * caller then compares texts. Test: test/unit/job-drafts.test.ts ("jsonSame").
 */
export function jsonSame(a: unknown, b: unknown): boolean | undefined {
  if (a === b) return typeof a === "number" && !Number.isFinite(a) ? undefined : true;
  const ta = typeof a;
  const tb = typeof b;
  if (ta === "number" && tb === "number") return Number.isFinite(a) && Number.isFinite(b) ? false : undefined;
  if (!jsonKnown(a) || !jsonKnown(b)) return undefined;
  if (ta !== "object" || tb !== "object" || a === null || b === null) return false;
  const arrayA = Array.isArray(a);
  if (arrayA !== Array.isArray(b)) return false;
  let unsure = false;
  if (arrayA) {
    const x = a as unknown[];
    const y = b as unknown[];
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) {
      if (x[i] === undefined || y[i] === undefined) return undefined; // JSON's null
      const same = jsonSame(x[i], y[i]);
      if (same === false) return false;
      if (same === undefined) unsure = true;
    }
    return unsure ? undefined : true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  // Members by position (Object.values beside Object.keys): no keyed load of each key.
  const keysA = Object.keys(x);
  const keysB = Object.keys(y);
  const valuesA = Object.values(x);
  const valuesB = Object.values(y);
  let i = 0;
  let j = 0;
  for (;;) {
    while (i < keysA.length && droppedByJson(valuesA[i])) i++;
    while (j < keysB.length && droppedByJson(valuesB[j])) j++;
    if (i === keysA.length || j === keysB.length) break;
    if (keysA[i] !== keysB[j]) return false;
    const same = jsonSame(valuesA[i], valuesB[j]);
    if (same === false) return false;
    if (same === undefined) unsure = true;
    i++;
    j++;
  }
  if (i !== keysA.length || j !== keysB.length) return false;
  return unsure ? undefined : true;
}

/** A member JSON leaves out of an object. */
const droppedByJson = (value: unknown) =>
  value === undefined || typeof value === "function" || typeof value === "symbol";

/**
 * Whether `a` and `b` are the same plain data, members in the same order: then their JSON texts
 * are equal too. False says nothing (a Date, NaN, another order): the caller compares texts.
 */
function samePlain(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!samePlain(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b) || Object.getPrototypeOf(a) !== Object.prototype) return false;
  if (Object.getPrototypeOf(b) !== Object.prototype) return false;
  const keys = Object.keys(a);
  const others = Object.keys(b);
  if (keys.length !== others.length) return false;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (key !== others[i]) return false;
    if (!samePlain((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  }
  return true;
}

/**
 * A draft of `base` to change: the tasks and every frozen part shared until writableTask or
 * writablePart gives the draft its own copy of one; a part not frozen (none, with the machinery
 * on: a remembered job is frozen but for its root and its tasks' map) copied. A write neither
 * copies nor compares what it left alone: the workflow's graph (about 600 bytes for ten tasks),
 * its groups, watchers, runAs, ..., and the job's variables however big they are, which every
 * step used to copy and compare (twenty-third round). A change into a shared part throws (a
 * TypeError) and the write fails; a part replaced whole on the draft is written as any other.
 */
function draftOf(base: RunJob): RunJob {
  // A spread first (one copy of the job's shape), then the parts to copy overwritten in place:
  // cheaper than building the draft member by member.
  const draft = { ...base } as Record<string, unknown>;
  // The members by position (as zipOwn pairs them): no lookup of a key in the job.
  const keys = Object.keys(base);
  const parts = Object.values(base);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const part = parts[i];
    if (key === "tasks") draft.tasks = { ...base.tasks };
    else if (typeof part === "object" && part !== null && !Object.isFrozen(part))
      setOwn(draft, key, copyPlain(part));
  }
  // Every member of `base`, copied or shared: a RunJob.
  return draft as unknown as RunJob;
}

/**
 * The draft's own, changeable copy of its part `key` (a shallow one: what it holds stays shared
 * and frozen, so a write deeper than its members throws), made on the first call; the part itself
 * when it is not frozen (the machinery off) or not an object. A part a write changes whole is
 * simply replaced on the draft instead. The parts transitions write into go this way:
 * `metrics` at every step, `variables`, `error`, `deferred` when a run writes them.
 */
export function writablePart<J extends object, K extends keyof J>(job: J, key: K): J[K] {
  const part = job[key];
  if (typeof part !== "object" || part === null || !Object.isFrozen(part)) return part;
  const copy = (Array.isArray(part) ? [...(part as unknown[])] : { ...part }) as J[K];
  job[key] = copy;
  return copy;
}

/**
 * The job's task `id` to look at only: own members only (an id from a transition is data, and
 * `tasks["toString"]` must not find Object.prototype's function); it may be shared and frozen.
 */
export function readTask(job: RunJob, id: string): Readonly<RunTask> | null | undefined {
  return Object.hasOwn(job.tasks, id) ? job.tasks[id] : undefined;
}

/**
 * The draft's own, changeable copy of task `id` (own members only), or undefined when it has none.
 * Its members are changed by replacing them (status, claim, outgoing, iterations, ...), but for the
 * two a transition changes inside (`previous`'s lists, a forEach's `loop`), which are copied; the
 * others (variables, outgoing, ...) stay shared and frozen, so a write into one throws.
 */
export function writableTask(job: RunJob, id: string): RunTask | null | undefined {
  const task = readTask(job, id) as RunTask | null | undefined;
  if (!task || !Object.isFrozen(task)) return task;
  const copy = { ...task };
  if (copy.previous) copy.previous = copyPlain(copy.previous);
  if (copy.loop) copy.loop = copyPlain(copy.loop);
  setOwn(job.tasks, id, copy);
  draftCopies.add(copy);
  draftTasksOf(job.tasks)?.wrote(id);
  return copy;
}

/**
 * The task copies writableTask made for the draft being written (JobStore.update clears it around
 * each attempt; a draft is changed and compared in one synchronous stretch). Each is the draft's
 * own object, held by nothing else, so `changes` may freeze it as the stored task itself instead
 * of building a frozen copy of it (storedTask).
 */
const draftCopies = new Set<object>();

/**
 * Empties draftCopies. A Set's clear() makes a new table even when the Set is empty, as it mostly
 * is here (a transition copies one or two tasks, and update empties it around each attempt).
 */
function forgetDraftCopies(): void {
  if (draftCopies.size > 0) draftCopies.clear();
}

/** Not JSON as jsonCopy takes it: the caller parses the text instead. */
const NOT_PLAIN = Symbol("not plain");

/**
 * The task as the store will hold it, deep-frozen with its JSON text `text` (what it serializes
 * to): the members the draft kept from the stored task `old` (deep-frozen) are shared, the others
 * copied as JSON would give them back. Cheaper than parsing `text` back (parseFrozen, the fallback
 * for anything but plain data), which a whole task cost on every transition.
 */
export function storedTask(
  task: RunTask | null,
  old: Readonly<RunTask> | null,
  text: string,
): RunTask | null {
  if (task === null) return null;
  if (draftCopies.has(task)) {
    deepest = 0;
    if (frozenInPlace(task as unknown as Record<string, unknown>, old) !== NOT_PLAIN)
      return adoptFrozen(task, text, deepest);
  }
  return storedValue(task, old, text) as RunTask;
}

/**
 * A task copy of the draft's own (writableTask) made into what storedValue would build from it,
 * in place: its scalars kept (-0 written as 0, as JSON gives it back), each object member the
 * stored task's own one when equal to it as JSON, any other a frozen copy (frozenJsonCopy: an
 * action's result is never frozen under its owner), then the copy frozen. Cheaper than a new
 * object built member by member: the members a transition left alone are not written again.
 * NOT_PLAIN when a member is not plain data or JSON would leave it out (undefined, a function):
 * the caller then builds the copy as before, from the members as this left them (equal as JSON).
 * `deepest` is left as frozenJsonCopy leaves it. Test: test/unit/job-drafts.test.ts.
 */
function frozenInPlace(task: Record<string, unknown>, shared: object | null): object | typeof NOT_PLAIN {
  const keep = shared as Record<string, unknown> | null;
  if (Object.getPrototypeOf(task) !== Object.prototype) return NOT_PLAIN;
  deepest = 1;
  for (const key in task) {
    if (!hasOwn.call(task, key)) continue;
    const member = task[key];
    switch (typeof member) {
      case "string":
      case "boolean":
        continue;
      case "number":
        if (!Number.isFinite(member)) return NOT_PLAIN;
        if (member === 0 && 1 / member < 0) task[key] = 0; // -0: as JSON gives it back
        continue;
      case "object":
        break;
      default:
        return NOT_PLAIN; // undefined, a function, a symbol or a bigint: the copy decides
    }
    if (member === null) continue;
    const kept = keep !== null && hasOwn.call(keep, key) ? keep[key] : undefined;
    if (typeof kept === "object" && kept !== null && (kept === member || jsonSame(member, kept) === true)) {
      if (kept !== member) task[key] = kept;
      const reach = 1 + nestingOf(kept);
      if (reach > deepest) deepest = reach;
      continue;
    }
    const copied = frozenJsonCopy(member, null, 2);
    if (copied === NOT_PLAIN) return NOT_PLAIN;
    task[key] = copied;
  }
  return Object.freeze(task);
}

/**
 * `value` (an object: a task, a part of a job, a new job) as the store will hold it, deep-frozen
 * with its JSON text `text`: as storedTask builds it, sharing the members of `shared` (a
 * deep-frozen stored value, or null) it kept. Copying plain data costs less than parsing its text.
 */
function storedValue(value: object, shared: unknown, text: string): unknown {
  deepest = 0;
  const copy = frozenJsonCopy(value, shared, 1);
  if (copy === NOT_PLAIN) return parseFrozen(text);
  // Its nesting, counted by the copy, goes with it: the store's depth bound needs no scan of `text`.
  return adoptFrozen(copy as object, text, deepest);
}

/**
 * A new job as the store will hold it: its text parsed back, deep-frozen, with its text and its
 * nesting (counted by the freezing walk: the store's depth bound needs no scan of `text`). Parsed,
 * not copied by frozenJsonCopy: JSON.parse gives every job the same hidden classes, so the spreads
 * of its drafts and of the store's images take V8's fast path; a copy built member by member gave
 * them shapes that sent those spreads the slow way (twenty-third round: -1.9 % instructions a step).
 */
function parsedFrozen(text: string): unknown {
  const { value, nesting } = parseFrozenCounted(text);
  return adoptFrozen(value as object, text, nesting);
}

/** The deepest level frozenJsonCopy reached in the value it copies (its root object is level 1). */
let deepest = 0;

/**
 * `value` as `JSON.parse(JSON.stringify(value))` gives it (members left undefined dropped, -0 as
 * 0), deep-frozen, or NOT_PLAIN for anything that is not plain data (a class, toJSON, NaN, a
 * function, an undefined array element). A member of an object that is the very member of
 * `shared` (a deep-frozen stored value), or equal to it as JSON, is that member, not a copy. Each
 * object is frozen as it is made: a second walk to freeze the copy cost as much as the copy's own
 * checks. `level` is the value's own level (the root object's 1); the deepest level reached,
 * shared members' included, is left in `deepest`, so the store need not scan the text for its
 * depth bound.
 */
function frozenJsonCopy(value: unknown, shared: unknown, level: number): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value + 0 : NOT_PLAIN;
    case "object":
      break;
    default:
      return NOT_PLAIN;
  }
  if (value === null) return null;
  if (level > deepest) deepest = level;
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const item = value[i] === undefined ? NOT_PLAIN : frozenJsonCopy(value[i], null, level + 1);
      if (item === NOT_PLAIN) return NOT_PLAIN;
      out[i] = item;
    }
    return Object.freeze(out);
  }
  const proto = Object.getPrototypeOf(value);
  if (
    (proto !== Object.prototype && proto !== null) ||
    typeof (value as { toJSON?: unknown }).toJSON === "function"
  )
    return NOT_PLAIN;
  const from = value as Record<string, unknown>;
  const keep =
    shared !== null && typeof shared === "object" ? (shared as Record<string, unknown>) : undefined;
  const out: Record<string, unknown> = {};
  for (const key in from) {
    if (!hasOwn.call(from, key)) continue;
    const member = from[key];
    if (droppedByJson(member)) continue;
    let copied: unknown;
    const kept = keep !== undefined && Object.hasOwn(keep, key) ? keep[key] : undefined;
    // The stored member itself, or one equal to it as JSON (`previous`, which writableTask copies
    // and most transitions leave as it was): shared, so the store logs only the members that changed
    // (shared/store/embedded/fast-update.ts pushMembers tells them by identity).
    if (
      typeof member === "object" &&
      member !== null &&
      typeof kept === "object" &&
      kept !== null &&
      (kept === member || jsonSame(member, kept) === true)
    ) {
      copied = kept;
      const reach = level + nestingOf(kept);
      if (reach > deepest) deepest = reach;
    } else copied = frozenJsonCopy(member, null, level + 1);
    if (copied === NOT_PLAIN) return NOT_PLAIN;
    setOwn(out, key, copied);
  }
  return Object.freeze(out);
}

/**
 * The job with every task and every part frozen (its root and its tasks' map stay as they are): it
 * is remembered, and drafts share them until writableTask or writablePart copies one.
 */
function frozenTasks(job: RunJob): RunJob {
  for (const task of Object.values(job.tasks)) deepFreeze(task);
  for (const key of Object.keys(job)) if (key !== "tasks") deepFreeze(job[key as keyof RunJob]);
  return job;
}

/**
 * The `$set` and `$unset` that turn `before` into `after` (JSON values: what the store will hold),
 * or null when they are the same. A member the draft deleted (or left undefined) is unset: a
 * resumed job's `deferred` must leave the store too, or a second pause would take it up again.
 * Tasks are set one by one (`tasks.<id>`): task ids are checked to be plain names when a workflow
 * is stored. A task the draft took but left as it was goes back to the
 * shared one; a changed task is kept as the store will hold it, frozen (parseFrozen), for the next
 * draft. Without the machinery (`machinery` false: full copies) every part is compared by its
 * JSON text and stored parsed, unfrozen.
 */
function changes(before: RunJob, after: RunJob, machinery: boolean, view?: DraftTasks): Delta | null {
  const set: Record<string, unknown> = {};
  const sizes: Record<string, number> = {};
  const tasks: string[] = [];
  let unset: Record<string, ""> | undefined;
  let any = false;
  const gone = (path: string) => {
    (unset ??= {})[path] = "";
    any = true;
  };
  const top = zipOwn(after, before);
  for (const key of top.missing)
    if ((before as unknown as Record<string, unknown>)[key] !== undefined) gone(key);
  for (let i = 0; i < top.keys.length; i++)
    if (top.now[i] === undefined && top.was[i] !== undefined) gone(top.keys[i]);
  const taskPairs = view !== undefined ? writtenPairs(view, before.tasks) : zipOwn(after.tasks, before.tasks);
  for (const id of taskPairs.missing) gone(`tasks.${id}`);
  /** The JSON text of `a` when it differs from `b`, else undefined. */
  const differs = (a: unknown, b: unknown): string | undefined => {
    // Walking both costs less than serializing the old one: most parts are untouched copies, and
    // a changed task differs early. Only an unsure answer (a Date, NaN, ...) compares texts.
    const same = machinery ? jsonSame(a, b) : undefined;
    if (same === true) return undefined;
    const text = jsonOf(a);
    if (text === undefined) return undefined;
    return same === false || text !== jsonOf(b) ? text : undefined;
  };
  for (let i = 0; i < top.keys.length; i++) {
    const key = top.keys[i] as keyof RunJob;
    if (key === "_id" || key === "version" || key === "last_updated") continue;
    if (key !== "tasks") {
      const part = top.now[i];
      const old = top.was[i];
      if (part === old) continue; // shared: untouched
      const text = differs(part, old);
      if (text === undefined) {
        // Copied (writablePart) and left as it was: the shared one again, for the next draft.
        if (machinery && typeof part === "object" && part !== null && typeof old === "object" && old !== null)
          (after as unknown as Record<string, unknown>)[key] = old;
        continue;
      }
      // Frozen with its text too: the store keeps it without serializing and parsing it again,
      // and the draft (remembered next) holds it. The members it kept of a frozen stored part are
      // shared (the store logs only the others: fast-update.ts pushMembers).
      const stored =
        machinery && typeof part === "object" && part !== null
          ? storedValue(part, Object.isFrozen(old) ? old : null, text)
          : JSON.parse(text);
      set[key] = stored;
      if (machinery) (after as unknown as Record<string, unknown>)[key] = stored;
      sizes[key] = text.length;
      any = true;
      continue;
    }
    for (let j = 0; j < taskPairs.keys.length; j++) {
      const id = taskPairs.keys[j];
      const task = (taskPairs.now[j] ?? null) as RunTask | null;
      const old = (taskPairs.was[j] ?? null) as RunTask | null;
      const text = task === old ? undefined : differs(task, old);
      if (text === undefined) {
        if (task !== old) setOwn(after.tasks, id, old);
        continue;
      }
      // Frozen with its text: the store keeps it without a copy; the next draft shares it.
      const stored = (machinery ? storedTask(task, old, text) : JSON.parse(text)) as RunTask | null;
      set[`tasks.${id}`] = stored;
      setOwn(after.tasks, id, stored);
      sizes[`tasks.${id}`] = text.length;
      tasks.push(id);
      any = true;
    }
  }
  return any ? { set, sizes, tasks, ...(unset && { unset }) } : null;
}

/**
 * The own members of `now` in its order (`keys`, `now`), the same members of `was` beside them
 * (undefined where `was` has none), and the own members of `was` that `now` has not (`missing`):
 * what `changes` compares. A draft keeps its base's members in their order (a spread, members then
 * replaced in place), so both most often hold the same keys in the same order: Object.keys and
 * Object.values of each then pair them by position, with no lookup of a key in the other object.
 * Such a lookup (a keyed load that has seen every shape of job and task, and a hasOwn) cost about
 * 300 instructions a member, 4 % of a transition (callgrind, twenty-third round).
 */
function zipOwn(
  now: object,
  was: object,
): { keys: string[]; now: unknown[]; was: unknown[]; missing: string[] } {
  const keys = Object.keys(now);
  const wasKeys = Object.keys(was);
  let aligned = keys.length === wasKeys.length;
  for (let i = 0; aligned && i < keys.length; i++) aligned = keys[i] === wasKeys[i];
  if (aligned) return { keys, now: Object.values(now), was: Object.values(was), missing: [] };
  const a = now as Record<string, unknown>;
  const b = was as Record<string, unknown>;
  return {
    keys,
    now: keys.map((key) => a[key]),
    was: keys.map((key) => (hasOwn.call(b, key) ? b[key] : undefined)),
    missing: wasKeys.filter((key) => !hasOwn.call(a, key)),
  };
}

/**
 * zipOwn's answer for a draft's tasks when `view` is of the draft's map, which has its base's ids
 * (./task-index.ts): only the tasks the draft wrote can differ (the others are its base's very
 * objects, as a task changes only through writableTask), so only they are paired, in the job's
 * task order.
 */
function writtenPairs(
  view: DraftTasks,
  baseTasks: RunJob["tasks"],
): { keys: string[]; now: unknown[]; was: unknown[]; missing: string[] } {
  const positions = view.written;
  const keys: string[] = [];
  const now: unknown[] = [];
  const was: unknown[] = [];
  for (const i of positions) {
    const id = view.index.ids[i];
    keys.push(id);
    now.push(view.tasks[id]);
    was.push(baseTasks[id]);
  }
  return { keys, now, was, missing: [] };
}

interface Delta {
  set: Record<string, unknown>;
  unset?: Record<string, "">;
  /** The ids of the tasks in `set`, in the job's task order. */
  tasks: string[];
  /** The JSON length of each value in `set` (top-level parts and `tasks.<id>`). */
  sizes: Record<string, number>;
}

const samePath = (a: string[], b: string[]) => a.length === b.length && a.every((p, i) => p === b[i]);

/**
 * Takes the values too big for the job out of a write's `$set` (./outputs.ts): each is replaced
 * by null there, and the write's `spilled` list names where it is stored. Answers the values to
 * store before the write, and the stored ones it replaces (to remove after it); null when the
 * write holds no big value and the job has none (the usual case, decided from lengths known).
 */
function planSpill(
  base: RunJob,
  draft: RunJob,
  delta: Delta,
): { writes: SpillWrite[]; superseded: SpillRef[] } | null {
  const { set } = delta;
  const unset = delta.unset ?? {};
  const old = base.spilled ?? [];
  const sizeOf = (key: string) => delta.sizes[key] ?? 0;
  const manyErrors = Object.hasOwn(set, "error") && (draft.error?.length ?? 0) > ERROR_RECORDS_INLINE;
  if (old.length === 0 && !manyErrors && Object.keys(set).every((key) => sizeOf(key) <= MIN_SPILL_BYTES))
    return null;
  const threshold = spillThreshold(draft);
  if (old.length === 0 && !manyErrors && Object.keys(set).every((key) => sizeOf(key) <= threshold))
    return null;
  const rewritten = (path: string[]) =>
    path[0] === "tasks"
      ? Object.hasOwn(set, `tasks.${path[1]}`) || Object.hasOwn(unset, `tasks.${path[1]}`)
      : Object.hasOwn(set, path[0]) || Object.hasOwn(unset, path[0]);
  const entries = old.filter((e) => !rewritten(e.path));
  const writes: SpillWrite[] = [];
  /** Whether the value at `path` leaves the job (unchanged and stored already: kept as it is). */
  const place = (path: string[], value: unknown, before: unknown, force = false): boolean => {
    const prior = old.find((e) => samePath(e.path, path));
    if (prior && before !== undefined && samePlain(value, before)) {
      entries.push(prior);
      return true;
    }
    const text = JSON.stringify(value);
    if (!force && text.length <= threshold) return false;
    const write = spillWrite(draft._id, path, text);
    writes.push(write);
    entries.push(write.entry);
    return true;
  };
  for (const key of Object.keys(set)) {
    if (key.startsWith("tasks.")) {
      const id = key.slice(6);
      const task = set[key] as RunTask | null;
      if (!task || sizeOf(key) <= threshold) continue;
      const before = readTask(base, id);
      let stored: RunTask = task;
      for (const slot of ["outgoing", "loop"] as const) {
        const value = task[slot];
        if (value == null) continue;
        if (place(["tasks", id, slot], value, before?.[slot])) stored = { ...stored, [slot]: null };
      }
      set[key] = stored;
    } else if (key === "variables" && sizeOf(key) > threshold) {
      // The write's own copy (the one in `set` may be frozen, shared/frozen-json.ts).
      const variables = { ...(set.variables as Record<string, unknown>) };
      set.variables = variables;
      for (const name of Object.keys(variables))
        if (place(["variables", name], draft.variables[name], base.variables?.[name])) variables[name] = null;
    } else if (key === "error" && (manyErrors || sizeOf(key) > threshold)) {
      if (place(["error"], draft.error, base.error, manyErrors)) set.error = [];
    }
  }
  const refs = new Set(entries.map((e) => e.ref));
  const superseded = old.filter((e) => !refs.has(e.ref));
  if (superseded.length > 0 || writes.length > 0) {
    if (entries.length > 0) {
      set.spilled = entries;
      draft.spilled = entries;
    } else {
      (delta.unset ??= {}).spilled = "";
      delete draft.spilled;
    }
  }
  return { writes, superseded };
}

/** Takes the big values out of a whole job about to be inserted (./outputs.ts); answers them. */
function spillWhole(job: RunJob, threshold: number): SpillWrite[] {
  const writes: SpillWrite[] = [];
  const place = (path: string[], value: unknown, force = false): boolean => {
    if (value == null) return false;
    const text = JSON.stringify(value);
    if (!force && text.length <= threshold) return false;
    writes.push(spillWrite(job._id, path, text));
    return true;
  };
  for (const [id, task] of Object.entries(job.tasks)) {
    if (!task) continue;
    for (const slot of ["outgoing", "loop"] as const)
      if (place(["tasks", id, slot], task[slot])) Object.assign(task, { [slot]: null });
  }
  for (const name of Object.keys(job.variables ?? {}))
    if (place(["variables", name], job.variables[name])) job.variables[name] = null;
  if (place(["error"], job.error, (job.error?.length ?? 0) > ERROR_RECORDS_INLINE)) job.error = [];
  return writes;
}
