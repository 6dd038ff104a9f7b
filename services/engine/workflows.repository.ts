/**
 * Collection `workflows`: workflow definitions (shared/contracts/engine-documents.ts WorkflowDoc),
 * unique by `name`. Written by ./workflows/ (create, replace, import, delete) and a group's release;
 * read by those, by a job's start (./run/start.ts) and by the job list's `dereference`.
 *
 * A job's start reads its workflow from what this replica keeps (toRun): over NATS the read was a
 * request and an answer on the bus per start, about a quarter of a job's messages. Every write here
 * forgets what this replica keeps and has every other replica forget it (`changed`: the engine
 * broadcasts WORKFLOWS_CHANGED_EVENT) before it answers; shared/kept-reads.ts says why that holds.
 */
import { searchPage, type SearchOptions } from "../../shared/client-filter";
import { KeptReads } from "../../shared/kept-reads";
import { deepFreezeInTurns } from "../../shared/objects";
import type { WorkflowDoc } from "../../shared/contracts/engine-documents";
import { index, Repository } from "../../shared/store/repository";
import type { Filter, Store, Update } from "../../shared/store/types";
import { escapeRegex } from "../../shared/text";

/** A workflow as the executor reads it: the decorators it runs with are any the store holds. */
export type RunnableWorkflow = WorkflowDoc & { decorators?: { type: string; pointer: string }[] };

/** GET /automation-studio/workflows's question (./workflows/search.ts). */
export interface StudioQuery {
  equalsName?: string;
  equalsId?: string;
  containsName?: string;
  startsWithName?: string;
  sort: string;
  order: 1 | -1;
  skip: number;
  limit: number;
}

const names = (g: string): Filter => ({ groups: g });
const namesAnother = (g: string): Filter => ({ groups: { $elemMatch: { $ne: g } } });

/** How long a replica may start jobs from a workflow it read, if it missed the change's event. */
export const WORKFLOW_TTL_MS = 1_000;
/** Workflows a replica keeps at once (each at most a bus message over NATS, 1 MiB by default). */
const MAX_KEPT = 64;

export interface WorkflowRepositoryOptions {
  /** Whether job starts read kept workflows (the performance machinery's switch: PERF_MACHINERY). */
  keep: boolean;
  /**
   * After every write, before it answers (a write that failed too: it may have been stored): every
   * replica must forget `names`, or every workflow when absent. This one has forgotten them already.
   */
  changed(names?: string[]): Promise<void>;
}

export class WorkflowRepository extends Repository<RunnableWorkflow> {
  readonly collectionName = "workflows";
  /** One workflow per name (and every read by name); the workflows a group owns (access, a group's delete). */
  readonly indexes = [index({ name: 1 }, { unique: true }), index({ groups: 1 })];

  private indexed?: Promise<void>;
  private readonly kept = new KeptReads<RunnableWorkflow | null>(WORKFLOW_TTL_MS, MAX_KEPT);

  constructor(
    store: Store,
    private readonly options: WorkflowRepositoryOptions = { keep: false, changed: () => Promise.resolve() },
  ) {
    super(store);
  }

  /**
   * Once per repository: at the engine's start, and again before a write if that failed (the
   * unique name is what refuses a second workflow of the same name).
   */
  override ensureIndexes(): Promise<void> {
    if (!this.indexed) {
      this.indexed = super.ensureIndexes();
      this.indexed.catch(() => (this.indexed = undefined));
    }
    return this.indexed;
  }

  byName(name: string): Promise<RunnableWorkflow | null> {
    return this.docs.findOne({ name });
  }

  /**
   * The workflow a job starts from (./run/start.ts), which the start only reads: kept by this
   * replica for up to WORKFLOW_TTL_MS (forgotten at any write: see the top of this file) and
   * deep-frozen, so starts share it, with no copy per start, and a start that wrote into it would
   * throw. The jobs of a frozen workflow share its tasks before their first step
   * (./run/job-template.ts). Without the machinery (PERF_MACHINERY=false) every start reads the store.
   */
  toRun(name: string): Promise<RunnableWorkflow | null> {
    if (!this.options.keep) return this.docs.findOne({ name }, { readOnly: true });
    return this.kept.get(name, async () => {
      const found = await this.docs.findOne({ name }, { readOnly: true });
      return found && (await deepFreezeInTurns(found));
    });
  }

  /** Another replica wrote workflows `names` (every workflow when absent): read them anew. */
  forgetKept(names?: string[]): void {
    if (names === undefined) this.kept.clear();
    else for (const name of names) this.kept.forget(name);
  }

  /** After a write, whether or not it succeeded: this replica forgets, then every replica. */
  private async written<R>(names: string[] | undefined, write: Promise<R>): Promise<R> {
    try {
      return await write;
    } finally {
      this.forgetKept(names);
      await this.options.changed(names);
    }
  }

  byId(id: string): Promise<RunnableWorkflow | null> {
    return this.docs.findOne({ _id: id });
  }

  byIds(ids: string[]): Promise<RunnableWorkflow[]> {
    return ids.length === 0 ? Promise.resolve([]) : this.docs.find({ _id: { $in: ids } });
  }

  /** How many workflows there are. */
  countAll(): Promise<number> {
    return this.docs.count({});
  }

  /** By name, a page; shared with the store's read cache (the caller answers it as it is). */
  page(skip: number, limit: number): Promise<RunnableWorkflow[]> {
    return this.docs.find({}, { sort: { name: 1, _id: 1 }, skip, limit, readOnly: true });
  }

  /** Stores a new workflow (DuplicateKeyError when its name is taken). */
  async insert(doc: Omit<RunnableWorkflow, "_id">): Promise<RunnableWorkflow> {
    await this.ensureIndexes();
    return this.written([doc.name], this.docs.insertOne(doc));
  }

  /** Applies `update` to workflow `name`, answering it after; null when there is none (DuplicateKeyError on a rename onto another's name). */
  async replace(name: string, update: Update): Promise<RunnableWorkflow | null> {
    await this.ensureIndexes();
    const renamed = update.$set?.name;
    const names = typeof renamed === "string" && renamed !== name ? [name, renamed] : [name];
    return this.written(names, this.docs.findOneAndUpdate({ name }, update));
  }

  /** Deletes the workflow only if it is still `id` under `name` (not one renamed or replaced since it was read). */
  removeExact(id: string, name: string): Promise<RunnableWorkflow | null> {
    return this.written([name], this.docs.findOneAndDelete({ _id: id, name }));
  }

  /** A client's search (shared/client-filter.ts checks it), by name unless it sorts. */
  search(options: SearchOptions) {
    return searchPage<RunnableWorkflow>(this.docs, options, { name: 1 });
  }

  /** The studio's list: each condition given narrows it (names case-insensitively), a page and the total. */
  async studioPage(q: StudioQuery): Promise<{ found: RunnableWorkflow[]; total: number }> {
    const clauses: Filter[] = [];
    if (q.equalsName !== undefined) clauses.push({ name: q.equalsName });
    if (q.equalsId !== undefined) clauses.push({ _id: q.equalsId });
    if (q.containsName !== undefined)
      clauses.push({ name: { $regex: escapeRegex(q.containsName), $options: "i" } });
    if (q.startsWithName !== undefined)
      clauses.push({ name: { $regex: `^${escapeRegex(q.startsWithName)}`, $options: "i" } });
    const filter = clauses.length === 0 ? {} : clauses.length === 1 ? clauses[0] : { $and: clauses };
    const { results: found, total } = await this.findPage(filter, {
      sort: { [q.sort]: q.order, _id: 1 },
      skip: q.skip,
      limit: q.limit,
    });
    return { found, total };
  }

  /**
   * A group is being deleted (../group-release.ts): the workflows whose only group it is (at most
   * `limit`), which it may not leave: a workflow without groups is open to every caller.
   */
  soleOfGroup(groupId: string, limit: number): Promise<Pick<RunnableWorkflow, "_id" | "name">[]> {
    return this.docs.find(
      { $and: [names(groupId), { $nor: [namesAnother(groupId)] }] },
      { projection: { _id: 1, name: 1 }, limit },
    );
  }

  /**
   * The workflows that name the group and another leave it, in one write whose filter re-checks
   * "names another group too": a workflow changed meanwhile is never left open. Answers how many.
   */
  async releaseGroup(groupId: string): Promise<number> {
    const written = await this.written(
      undefined,
      this.docs.updateMany({ $and: [names(groupId), namesAnother(groupId)] }, { $pull: { groups: groupId } }),
    );
    return written.modifiedCount;
  }
}
