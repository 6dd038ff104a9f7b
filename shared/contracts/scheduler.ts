/**
 * scheduler: automations and their schedules (spec operation 10; docs/scheduler.md,
 * docs/platform-rules.md#schedules). `repeatInterval` is read by the `human-interval` package, as
 * the real product reads it; the floor on an interval is the service's setting, checked in the handler.
 */
import humanInterval from "human-interval";
import { releaseGroupAction } from "./group-release";
import { defineService, SUPPORT_READ, SUPPORT_WRITE } from "./define";
import { arrayOf, int, integer, objectId, optBool, returns, shape, str } from "./schema";
import { automationRunSchema, automationSchema, messageSchema } from "./resources";
import { operationsManagerActions } from "./operations-manager";
import { dueTimeProblem, intervalProblem, rangeMessages } from "./schedule-bounds";

/** ISO 8601 date-time in UTC, e.g. 2026-11-21T10:00:00Z or with milliseconds. */
const isoDateTime = {
  type: "string",
  pattern:
    /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?(Z|[+-]00:?00)$/,
  format: "date-time",
  messages: {
    stringPattern: "The '{field}' field must be an ISO 8601 UTC date-time (e.g. 2026-01-01T00:00:00Z).",
  },
} as const;

/** Milliseconds of human-interval text ("1 hour", "3 days and 4 hours", "two weeks"), or NaN. */
export function intervalMs(text: string): number {
  const ms = humanInterval(text);
  return typeof ms === "number" && Number.isFinite(ms) ? ms : Number.NaN;
}

/**
 * Checks the schedule members that fastest-validator cannot: a calendar date that exists
 * (2026-02-30 does not) and interval text that human-interval reads as a positive duration. It sits
 * on the object, not on the fields: a `custom` checker on a nested optional field switches off
 * fastest-validator's `minProps`.
 */
function scheduleChecks(prefix: string) {
  return (value: any, errors: any[]) => {
    const text = value?.nextRunAt;
    if (typeof text === "string" && /^\d{4}-\d{2}-\d{2}/.test(text)) {
      const parsed = new Date(text);
      if (Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== text.slice(0, 10))
        errors.push({ type: "calendarDate", field: `${prefix}nextRunAt`, actual: text });
      else if (dueTimeProblem(parsed.getTime()))
        errors.push({ type: "dueTimeRange", field: `${prefix}nextRunAt`, actual: text });
    }
    for (const field of ["repeatInterval", "catchUpWindow"]) {
      const interval = value?.[field];
      if (typeof interval !== "string" || interval.length === 0) continue;
      const ms = intervalMs(interval);
      if (!(ms > 0)) errors.push({ type: "interval", field: `${prefix}${field}`, actual: interval });
      else if (intervalProblem(ms))
        errors.push({ type: "intervalRange", field: `${prefix}${field}`, actual: interval });
    }
    return value;
  };
}

const scheduleMessages = {
  ...rangeMessages,
  calendarDate: "The '{field}' field is not a real calendar date.",
  interval:
    "The '{field}' field must be an interval such as '1 hour', '3 days and 4 hours' or 'two weeks' (got '{actual}').",
};

const intervalText = { type: "string", min: 1, max: 200, nullable: true, optional: true } as const;

/** The same checks on a top-level field (createAutomation has no object to hang them on). */
function fieldCheck(field: "nextRunAt" | "repeatInterval" | "catchUpWindow") {
  const check = scheduleChecks("");
  return (value: unknown, errors: any[]) => {
    const found: any[] = [];
    check({ [field]: value }, found);
    for (const e of found) errors.push({ type: e.type, actual: e.actual });
    return value;
  };
}

/** The schedule of an automation, as operation 10 takes it. */
const scheduleMembers = {
  nextRunAt: { ...isoDateTime, nullable: true, optional: true },
  repeatInterval: intervalText,
  disabled: optBool,
} as const;

/** How an automation's runs behave beyond operation 10's three members (docs/scheduler.md). */
const policyMembers = {
  /** A due time missed while no scheduler ran: `once` fires one run (default), `skip` goes to the next future time. */
  missedRuns: { type: "enum", values: ["once", "skip"], optional: true },
  /** With `once`: a missed time older than this counts as skipped (human-interval text; none = no limit). */
  catchUpWindow: intervalText,
  /** `skip`: no new run while this automation's previous job still runs (the skip is recorded). */
  overlap: { type: "enum", values: ["allow", "skip"], optional: true },
} as const;

const automationMembers = {
  name: { type: "string", min: 1, max: 256 },
  description: { type: "string", max: 4096, optional: true },
  workflow: { type: "string", min: 1, max: 256 },
  variables: { type: "object", optional: true },
  // Group ids are UUIDs (docs/platform-rules.md#identifiers-and-time); unknown ones answer 400.
  groups: { type: "array", items: { type: "string", min: 1, max: 128 }, max: 100, optional: true },
  ...scheduleMembers,
  ...policyMembers,
} as const;

export const scheduler = defineService("scheduler", {
  ...operationsManagerActions,
  updateSchedule: {
    idempotent: "keyed",
    params: {
      id: objectId,
      options: {
        type: "object",
        strict: "remove",
        minProps: 1,
        props: scheduleMembers,
        custom: scheduleChecks("options."),
        messages: scheduleMessages,
      },
    },
    result: returns(shape({ status: str, response: shape({ message: str }) })),
    http: {
      method: "PUT",
      path: "/automation_catalog/automations/:id/schedule",
      access: ["admin", "other", "apiread"],
      spec: 10,
      summary: "Update only the schedule of an automation",
    },
  },
  createAutomation: {
    idempotent: "keyed",
    params: {
      ...automationMembers,
      nextRunAt: {
        ...automationMembers.nextRunAt,
        custom: fieldCheck("nextRunAt"),
        messages: scheduleMessages,
      },
      repeatInterval: {
        ...intervalText,
        custom: fieldCheck("repeatInterval"),
        messages: scheduleMessages,
      },
      catchUpWindow: { ...intervalText, custom: fieldCheck("catchUpWindow"), messages: scheduleMessages },
    },
    result: returns(automationSchema),
    http: {
      method: "POST",
      path: "/automation_catalog/automations",
      access: SUPPORT_WRITE,
      summary: "Create an automation (a workflow with an optional schedule)",
    },
  },
  updateAutomation: {
    idempotent: "keyed",
    params: {
      id: objectId,
      changes: {
        type: "object",
        strict: "remove",
        minProps: 1,
        props: Object.fromEntries(
          Object.entries(automationMembers).map(([k, rule]) => [k, { ...rule, optional: true }]),
        ) as { [K in keyof typeof automationMembers]: (typeof automationMembers)[K] & { optional: true } },
        custom: scheduleChecks("changes."),
        messages: scheduleMessages,
      },
    },
    result: returns(automationSchema),
    http: {
      method: "PUT",
      path: "/automation_catalog/automations/:id",
      access: SUPPORT_WRITE,
      summary: "Update an automation (any of its members, the schedule included)",
    },
  },
  listAutomations: {
    params: { skip: int(0), limit: int(1) },
    result: returns(
      shape({ results: arrayOf(automationSchema), total: integer, skip: integer, limit: integer }),
    ),
    http: {
      method: "GET",
      path: "/automation_catalog/automations",
      access: SUPPORT_READ,
      summary: "List automations",
    },
  },
  getAutomation: {
    params: { id: objectId },
    result: returns(automationSchema),
    http: {
      method: "GET",
      path: "/automation_catalog/automations/:id",
      access: SUPPORT_READ,
      summary: "Read an automation, with its next 10 due times",
    },
  },
  listRuns: {
    params: { id: objectId, skip: int(0), limit: int(1) },
    result: returns(
      shape({ results: arrayOf(automationRunSchema), total: integer, skip: integer, limit: integer }),
    ),
    http: {
      method: "GET",
      path: "/automation_catalog/automations/:id/runs",
      access: SUPPORT_READ,
      summary: "An automation's run history, newest due time first",
    },
  },
  deleteAutomation: {
    idempotent: "keyed",
    params: { id: objectId },
    result: returns(messageSchema),
    http: {
      method: "DELETE",
      path: "/automation_catalog/automations/:id",
      access: SUPPORT_WRITE,
      summary: "Delete an automation (its schedule stops)",
    },
  },
  releaseGroup: releaseGroupAction,
  workflowUsers: {
    access: "internal",
    idempotent: "repeatable",
    params: {
      name: { type: "string", min: 1, max: 256 },
      id: { ...objectId, optional: true },
      limit: { type: "number", integer: true, min: 1, max: 100, optional: true },
    },
    result: returns(shape({ total: integer, automations: arrayOf(shape({ _id: str, name: str })) })),
    description:
      "Internal (the engine, before it deletes a workflow): the automations that run a workflow, by its name or its _id (`componentId`): how many, and the first `limit` (default 10), whatever their groups.",
  },
  tick: {
    access: "internal",
    params: {},
    result: returns(shape({ started: integer, skipped: integer, failed: integer })),
    description:
      "One firing pass at the service's clock: every due slot is claimed, fired and advanced. The timer calls it; tests call it with an injected clock.",
  },
});
