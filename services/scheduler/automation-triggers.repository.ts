/**
 * Collection `automation_triggers`: what starts an automation's jobs (/operations-manager/triggers,
 * ./triggers.ts): the trigger as answered (a schedule trigger's schedule lives on its automation)
 * plus two unique keys. Uniqueness is in the store, never read-then-write: a name per automation,
 * a route (`routeKey`), and one schedule trigger per automation (`scheduleKey`); a trigger that has
 * no route or is not a schedule holds `id:<its _id>` there, unique by itself.
 */
import type { Trigger } from "../../shared/contracts/resources";
import { index, Repository } from "../../shared/store/repository";
import type { Filter, Sort } from "../../shared/store/types";

/** Stored: the answer's members and the unique keys (a route; one schedule per automation). */
export type TriggerDoc = Omit<Trigger, "nextRunAt"> & { routeKey: string; scheduleKey: string };

export const routeKeyOf = (routeName: string) => `route:${routeName}`;

export class AutomationTriggersRepository extends Repository<TriggerDoc> {
  readonly collectionName = "automation_triggers";
  readonly indexes = [
    index({ actionId: 1, name: 1 }, { unique: true }),
    index({ routeKey: 1 }, { unique: true }),
    index({ scheduleKey: 1 }, { unique: true }),
    // Lists by name.
    index({ name: 1, _id: 1 }),
  ];

  /** Stores a trigger (its `_id` from newId(), chosen first: the unique keys hold it); DuplicateKeyError on a taken key. */
  insert(doc: TriggerDoc): Promise<TriggerDoc> {
    return this.docs.insertOne(doc);
  }

  byId(id: string): Promise<TriggerDoc | null> {
    return this.docs.findOne({ _id: id });
  }

  /** The endpoint trigger of a route. */
  byRoute(routeName: string): Promise<TriggerDoc | null> {
    return this.docs.findOne({ routeKey: routeKeyOf(routeName) });
  }

  /** A page of the triggers matching `where`, and how many match. */
  async page(
    where: Filter,
    sort: Sort,
    skip: number,
    limit: number,
  ): Promise<{ found: TriggerDoc[]; total: number }> {
    const { results: found, total } = await this.findPage(where, { sort, skip, limit });
    return { found, total };
  }

  /** One write of the changed members; DuplicateKeyError on a taken key; null when it is gone. */
  update(id: string, set: Record<string, unknown>): Promise<TriggerDoc | null> {
    return this.docs.findOneAndUpdate({ _id: id }, { $set: set });
  }

  /** Deletes and answers the trigger, or null when it was not there. */
  remove(id: string): Promise<TriggerDoc | null> {
    return this.docs.findOneAndDelete({ _id: id });
  }

  /** A deleted automation's triggers (a trigger without its automation starts nothing). */
  async removeOfAutomation(actionId: string): Promise<void> {
    await this.docs.deleteMany({ actionId });
  }

  /** A schedule trigger shows whether its automation's schedule is on. */
  async showScheduleEnabled(actionId: string, enabled: boolean): Promise<void> {
    await this.docs.updateMany({ actionId, type: "schedule" }, { $set: { enabled } });
  }

  async markExecuted(id: string, at: number): Promise<void> {
    await this.docs.updateOne({ _id: id }, { $set: { lastExecuted: at } });
  }
}
