/**
 * Collection `workflows`: workflow definitions (shared/contracts/engine-documents.ts WorkflowDoc),
 * unique by `name`. Written by ./workflows/ (create, replace, import, delete) and a group's release;
 * read by those, by a job's start (./run/start.ts) and by the job list's `dereference`.
 */
import { searchPage, type SearchOptions } from "../../shared/client-filter";
import type { WorkflowDoc } from "../../shared/contracts/engine-documents";
import { index, Repository } from "../../shared/store/repository";
import type { Filter, Update } from "../../shared/store/types";
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

export class WorkflowRepository extends Repository<RunnableWorkflow> {
  readonly collectionName = "workflows";
  /** One workflow per name (and every read by name); the workflows a group owns (access, a group's delete). */
  readonly indexes = [index({ name: 1 }, { unique: true }), index({ groups: 1 })];

  private indexed?: Promise<void>;

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
   * The workflow a job starts from (./run/start.ts), which the start only reads: read-only, so the
   * embedded store may answer its kept answer, frozen, with no copy per start (PERF_MACHINERY;
   * a start that wrote into it would throw). Other backends answer a fresh document.
   */
  toRun(name: string): Promise<RunnableWorkflow | null> {
    return this.docs.findOne({ name }, { readOnly: true });
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
    return this.docs.insertOne(doc);
  }

  /** Applies `update` to workflow `name`, answering it after; null when there is none (DuplicateKeyError on a rename onto another's name). */
  async replace(name: string, update: Update): Promise<RunnableWorkflow | null> {
    await this.ensureIndexes();
    return this.docs.findOneAndUpdate({ name }, update);
  }

  /** Deletes the workflow only if it is still `id` under `name` (not one renamed or replaced since it was read). */
  removeExact(id: string, name: string): Promise<RunnableWorkflow | null> {
    return this.docs.findOneAndDelete({ _id: id, name });
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
    const written = await this.docs.updateMany(
      { $and: [names(groupId), namesAnother(groupId)] },
      { $pull: { groups: groupId } },
    );
    return written.modifiedCount;
  }
}
