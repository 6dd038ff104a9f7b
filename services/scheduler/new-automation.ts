/**
 * An automation document as the scheduler stores it, with every default a new one has (no
 * schedule, not disabled, missed runs fired once, overlap allowed, no run yet). Operations
 * Manager's create builds on it; the suites and bench:scheduler that write automations straight
 * into the store use it too, so the stored shape has one home.
 */
import type { Automation } from "../../shared/contracts/resources";
import { nowIso } from "../../shared/text";

export type NewAutomation = Omit<Automation, "_id"> & { _id?: string };

/** A new automation named `name`, written by `by` (an account id, or "system"), with `fields` on top. */
export function newAutomation<F extends Partial<NewAutomation>>(
  name: string,
  by: string,
  fields: F = {} as F,
  now = nowIso(),
): NewAutomation & F {
  return {
    name,
    description: "",
    workflow: null,
    componentId: null,
    variables: {},
    groups: [],
    readGroups: [],
    nextRunAt: null,
    repeatInterval: null,
    disabled: false,
    missedRuns: "once",
    catchUpWindow: null,
    overlap: "allow",
    lastRunAt: null,
    lastJobId: null,
    lastError: null,
    created: now,
    created_by: by,
    last_updated: now,
    last_updated_by: by,
    ...fields,
  };
}
