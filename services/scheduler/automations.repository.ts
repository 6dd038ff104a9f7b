/**
 * Collection `automations`: { _id, name (unique), description, workflow, componentId, variables,
 * groups (write groups), readGroups, nextRunAt, repeatInterval, disabled, missedRuns, catchUpWindow,
 * overlap, lastRunAt, lastJobId, lastError, created, created_by, last_updated, last_updated_by }
 * (a new one's defaults: ./new-automation.ts).
 *
 * Every write that must not lose a race is one store call here: the guarded writes carry the
 * caller's write scope (./gbac.ts) in their filter, and the firing loop's moves of `nextRunAt` are
 * compare-and-sets on the due time read (./firing.ts, docs/scheduler.md#exactly-once).
 */
import type { Automation } from "../../shared/contracts/resources";
import { index, Repository } from "../../shared/store/repository";
import type { Filter, Sort } from "../../shared/store/types";
import { within } from "./gbac";
import type { NewAutomation } from "./new-automation";
import { iso } from "./schedule";

/** The members a run leaves on its automation (./firing.ts runFields). */
export type RunFields = Partial<Pick<Automation, "lastRunAt" | "lastJobId" | "lastError">>;

/** Has another group than `g` in `field`. */
const another = (field: string, g: string): Filter => ({ [field]: { $elemMatch: { $ne: g } } });

export class AutomationsRepository extends Repository<Automation> {
  readonly collectionName = "automations";
  readonly indexes = [
    index({ name: 1 }, { unique: true }),
    // The due automations, oldest due time first: the firing loop and the timers' window.
    index({ disabled: 1, nextRunAt: 1 }),
    // Group-based access: the automations a group may write or read.
    index({ groups: 1 }),
    index({ readGroups: 1 }),
    // The automations that run a workflow (by name or id): a workflow's delete asks.
    index({ workflow: 1 }),
    index({ componentId: 1 }),
  ];

  /** Stores a new automation; DuplicateKeyError when its name is taken. */
  insert(automation: NewAutomation): Promise<Automation> {
    return this.docs.insertOne(automation);
  }

  byId(id: string): Promise<Automation | null> {
    return this.docs.findOne({ _id: id });
  }

  byIds(ids: string[]): Promise<Automation[]> {
    return this.docs.find({ _id: { $in: ids } });
  }

  /** The ids of the automations in `scope` (a caller's readable ones). */
  async idsIn(scope: Filter): Promise<string[]> {
    return (await this.docs.find(scope, { projection: { _id: 1 } })).map((a) => a._id);
  }

  /** A page of the automations matching `filter` within `scope` (undefined: all), and how many match. */
  async page(
    filter: Filter,
    scope: Filter | undefined,
    sort: Sort,
    skip: number,
    limit: number,
  ): Promise<{ found: Automation[]; total: number }> {
    const where = within(filter, scope);
    const { results: found, total } = await this.findPage(where, { sort, skip, limit });
    return { found, total };
  }

  /**
   * One guarded write of `set`: only if the automation is within `scope` (the caller's write scope)
   * and, when `dueTimeRead` is given, its `nextRunAt` is still the one read. Null when it did not match.
   */
  setIfAllowed(
    id: string,
    scope: Filter | undefined,
    set: Record<string, unknown>,
    dueTimeRead?: string | null,
  ): Promise<Automation | null> {
    const filter = dueTimeRead === undefined ? { _id: id } : { _id: id, nextRunAt: dueTimeRead };
    return this.docs.findOneAndUpdate(within(filter, scope), { $set: set });
  }

  /** Deletes the automation if it is within `scope` (the caller's write scope): one store call. */
  removeIfAllowed(id: string, scope: Filter | undefined): Promise<Automation | null> {
    return this.docs.findOneAndDelete(within({ _id: id }, scope));
  }

  /** The automations that run a workflow by `name` (or `_id` as componentId): how many, and the first by name. */
  async runningWorkflow(
    name: string,
    id: string | undefined,
    limit: number,
  ): Promise<{ total: number; first: Pick<Automation, "_id" | "name">[] }> {
    const filter = id === undefined ? { workflow: name } : { $or: [{ workflow: name }, { componentId: id }] };
    const [total, first] = await Promise.all([
      this.docs.count(filter),
      this.docs.find(filter, {
        sort: { name: 1, _id: 1 },
        limit,
        projection: { _id: 1, name: 1 },
        readOnly: true,
      }),
    ]);
    return { total, first };
  }

  /**
   * A page of the automations due at `now` after `after` (in due-time then `_id` order), so a pass
   * reaches each one however many are due.
   */
  duePage(now: number, after: Automation | undefined, limit: number): Promise<Automation[]> {
    const due = { disabled: false, nextRunAt: { $ne: null, $lte: iso(now) } };
    return this.docs.find(
      after
        ? {
            ...due,
            $or: [
              { nextRunAt: { $gt: after.nextRunAt } },
              { nextRunAt: after.nextRunAt, _id: { $gt: after._id } },
            ],
          }
        : due,
      { sort: { nextRunAt: 1, _id: 1 }, limit },
    );
  }

  /** Those of `ids` still due at `now`, read fresh by `_id`. */
  dueAmong(ids: string[], now: number): Promise<Automation[]> {
    return this.docs.find(
      { _id: { $in: ids }, disabled: false, nextRunAt: { $ne: null, $lte: iso(now) } },
      { sort: { nextRunAt: 1, _id: 1 } },
    );
  }

  /** The earliest due times after `after` (ms; not finite: from the start), only `nextRunAt` read. */
  dueTimesAfter(after: number, limit: number): Promise<Pick<Automation, "_id" | "nextRunAt">[]> {
    const nextRunAt = Number.isFinite(after) ? { $ne: null, $gt: iso(after) } : { $ne: null };
    return this.docs.find(
      { disabled: false, nextRunAt },
      { sort: { nextRunAt: 1, _id: 1 }, limit, projection: { nextRunAt: 1 } },
    );
  }

  /**
   * Disables the schedule with `lastError`, a compare-and-set on the due time it had while enabled:
   * true for the one write that made it.
   */
  async halt(id: string, dueTime: string | null, lastError: string): Promise<boolean> {
    const halted = await this.docs.updateOne(
      { _id: id, nextRunAt: dueTime, disabled: false },
      { $set: { disabled: true, lastError } },
    );
    return halted.modifiedCount > 0;
  }

  /**
   * Moves the automation past `dueAt` to `next` and records the run's members, in one
   * compare-and-set on `nextRunAt`: false when an edit or another replica's advance came first.
   */
  async advance(id: string, dueAt: string, next: string | null, run: RunFields): Promise<boolean> {
    const moved = await this.docs.updateOne(
      { _id: id, nextRunAt: dueAt },
      { $set: { nextRunAt: next, ...run } },
    );
    return moved.modifiedCount > 0;
  }

  /** What a run did, whatever became of `nextRunAt`. */
  async recordRun(id: string, run: RunFields): Promise<void> {
    await this.docs.updateOne({ _id: id }, { $set: run });
  }

  /**
   * The automations a group's delete would strand (shared/contracts/group-release.ts): its only
   * write group is `g`, or it would be left with no group at all (open to every caller).
   */
  strandedBy(g: string, limit: number): Promise<Pick<Automation, "_id" | "name">[]> {
    return this.docs.find(
      {
        $or: [
          { $and: [{ groups: g }, { $nor: [another("groups", g)] }] },
          { $and: [{ readGroups: g }, { $nor: [another("readGroups", g), another("groups", g)] }] },
        ],
      },
      { projection: { _id: 1, name: 1 }, limit },
    );
  }

  /**
   * Removes `g` from every automation's `readGroups` and `groups` where another group remains: each
   * write's filter re-checks that, so an automation changed meanwhile is never left open. Answers
   * how many automations changed.
   */
  async releaseGroup(g: string): Promise<number> {
    const read = await this.docs.updateMany(
      { $and: [{ readGroups: g }, { $or: [another("readGroups", g), another("groups", g)] }] },
      { $pull: { readGroups: g } },
    );
    const write = await this.docs.updateMany(
      { $and: [{ groups: g }, another("groups", g)] },
      { $pull: { groups: g } },
    );
    return read.modifiedCount + write.modifiedCount;
  }
}
