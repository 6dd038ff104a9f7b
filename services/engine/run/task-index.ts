/**
 * Which of a job's tasks a write must look at (performance machinery: docs/performance.md, "A
 * workflow's size"). `settle` walks the job's tasks once or more at every write, `summarize` once
 * more, and most of a running job's tasks are quiet: not reached yet, ended, or waiting for a
 * person. A quiet task can start nothing, and only a write of it (jobs.ts writableTask) can wake
 * it. So each job a replica remembers gets an index of its tasks (which are live, how many there
 * are and have ended, where its manual tasks are), each draft of it notes the tasks it writes,
 * and the walks look only at the live tasks and the written ones: what they skip would have been
 * passed over (`settle` and `summarize` do nothing for a quiet task but count it).
 *
 * The index of a draft that was stored (and is remembered, the next draft's base) is its base's
 * with the written tasks looked at again, not a new walk. A job read from the store gets one walk.
 * A job that is no draft (a new job's first step, the machinery off) is walked whole, as before.
 *
 * What it rests on, the machinery's own rule: a draft's task changes only through writableTask (a
 * shared task is frozen, so a write into it throws), and a draft's map keeps its base's ids (the
 * JobStore checks that before it trusts the written tasks to say what changed, and keeps no index
 * of a map whose ids moved). test/unit/task-index.test.ts runs workflows both ways, write by write.
 */
import { FINISHED, hasArrivals } from "./task-states";
import type { RunTask } from "./types";

type Tasks = Record<string, RunTask | null>;

/** What the walks need of one version of a job's tasks' map. */
export interface TaskIndex {
  /** The map indexed (a job's index is for this version of its tasks only). */
  readonly of: Readonly<Tasks>;
  /** The map's ids in its order: a draft keeps its base's (a spread, tasks replaced in place). */
  readonly ids: readonly string[];
  /** Each id's position in `ids`. */
  readonly at: ReadonlyMap<string, number>;
  /** The positions of the manual tasks, in order (a task's type is its workflow's: it never changes). */
  readonly manual: readonly number[];
  /** 1 where the task is live (may start something: running, or reached and not started yet), else 0. */
  readonly live: readonly number[];
  /** The tasks (null entries left out), and those complete, in error or canceled. */
  readonly total: number;
  readonly done: number;
}

/** Whether `settle` may do anything for the task: what it and summarize's clock look at. */
const isLive = (task: Readonly<RunTask> | null | undefined): boolean =>
  !!task && (task.status === "running" || (task.status === "incomplete" && hasArrivals(task)));

const isDone = (task: Readonly<RunTask> | null | undefined): boolean => !!task && FINISHED.has(task.status);

/** The index of `tasks`, from one walk of it. */
export function indexTasks(tasks: Readonly<Tasks>): TaskIndex {
  const ids = Object.keys(tasks);
  const values = Object.values(tasks);
  const at = new Map<string, number>();
  const manual: number[] = [];
  const live: number[] = [];
  let total = 0;
  let done = 0;
  for (let i = 0; i < ids.length; i++) {
    const task = values[i];
    at.set(ids[i], i);
    live.push(isLive(task) ? 1 : 0);
    if (!task) continue;
    total++;
    if (isDone(task)) done++;
    if (task.type === "manual") manual.push(i);
  }
  return { of: tasks, ids, at, manual, live, total, done };
}

/**
 * A draft's view of its tasks: the index of its base's map and the positions it wrote. Only for
 * the draft's own map (the job's `tasks` when the draft was made): a map replaced whole has none.
 */
export class DraftTasks {
  /** The written positions, each once, in order (a write copies one or two tasks: kept sorted as they come). */
  readonly written: number[] = [];
  /**
   * 1 where a walk must look: live in the base, or written since (a copy of the base's `live`,
   * made at the first write; the base's own array until then).
   */
  looking: readonly number[];

  constructor(
    /** The draft's map. */
    readonly tasks: Readonly<Tasks>,
    readonly index: TaskIndex,
  ) {
    this.looking = index.live;
  }

  /** Task `id` was given the draft's own copy (it may change in any way from now on). */
  wrote(id: string): void {
    const i = this.index.at.get(id);
    // writableTask copies only a task the map has, and the draft's map has its base's ids.
    if (i === undefined) throw new Error(`task index: '${id}' is not a task of the draft's base`);
    const written = this.written;
    if (written.includes(i)) return;
    let j = written.length;
    written.push(i);
    for (; j > 0 && written[j - 1] > i; j--) written[j] = written[j - 1];
    written[j] = i;
    if (this.looking === this.index.live) this.looking = this.index.live.slice();
    (this.looking as number[])[i] = 1;
  }

  /**
   * The first position from `i` on that a walk must look at, or the map's size: a walk's loop
   * steps with it (`looking` as it is then: a task written since the walk began is looked at).
   */
  next(i: number): number {
    const looking = this.looking;
    const n = looking.length;
    while (i < n && looking[i] !== 1) i++;
    return i;
  }

  /**
   * Whether the draft's map still has its base's ids, in order: no change deleted or added a task
   * in it (none of the engine's does; a test's may). Only then do the written tasks say all that changed.
   */
  keepsIds(): boolean {
    const ids = Object.keys(this.tasks);
    const baseIds = this.index.ids;
    if (ids.length !== baseIds.length) return false;
    for (let i = 0; i < ids.length; i++) if (ids[i] !== baseIds[i]) return false;
    return true;
  }

  /** The tasks (null entries left out) and those ended, in the draft's map as it is now. */
  counts(): { total: number; done: number } {
    let { total, done } = this.index;
    const base = this.index.of;
    for (const i of this.written) {
      const id = this.index.ids[i];
      const was = base[id];
      const is = this.tasks[id];
      total += (is ? 1 : 0) - (was ? 1 : 0);
      done += (isDone(is) ? 1 : 0) - (isDone(was) ? 1 : 0);
    }
    return { total, done };
  }

  /**
   * The index of the draft's map once stored: the base's, with the written tasks looked at again.
   * The view is spent (its `looking` becomes the index's `live`).
   */
  storedIndex(): TaskIndex {
    if (this.written.length === 0) return { ...this.index, of: this.tasks };
    const live = this.looking as number[];
    for (const i of this.written) live[i] = isLive(this.tasks[this.index.ids[i]]) ? 1 : 0;
    const { total, done } = this.counts();
    return { ...this.index, of: this.tasks, live, total, done };
  }
}

/** The draft being changed (one at a time: a draft is changed in one synchronous stretch). */
let current: DraftTasks | undefined;

/**
 * Makes `draftTasks`, a spread of `index.of` (jobs.ts draftOf), the current draft's map; answers
 * its view. closeDraft ends it.
 */
export function openDraft(draftTasks: Readonly<Tasks>, index: TaskIndex): DraftTasks {
  current = new DraftTasks(draftTasks, index);
  return current;
}

/** No draft's map is current any more: every map is walked whole until the next openDraft. */
export function closeDraft(): void {
  current = undefined;
}

/** The view of the current draft's map when `tasks` is it, else undefined (walk it whole). */
export function draftTasksOf(tasks: Readonly<Tasks>): DraftTasks | undefined {
  return current !== undefined && current.tasks === tasks ? current : undefined;
}
