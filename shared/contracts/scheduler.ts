/** scheduler: automations and their schedules (spec operation 10, DECISIONS.md section 8). */
import { defineService, SUPPORT_READ, SUPPORT_WRITE } from "./define";
import { int, objectId, optBool, returns } from "./schema";
import type { Automation, Message } from "./resources";

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

/**
 * Rejects calendar dates that do not exist (2026-02-30). It sits on the object, not on the field:
 * a `custom` checker on a nested optional field switches off fastest-validator's `minProps`.
 */
function realCalendarDate(value: any, errors: any[]) {
  const text = value?.nextRunAt;
  if (typeof text === "string" && /^\d{4}-\d{2}-\d{2}/.test(text)) {
    const parsed = new Date(text);
    if (Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== text.slice(0, 10)) {
      errors.push({ type: "calendarDate", field: "options.nextRunAt", actual: text });
    }
  }
  return value;
}

/** human-interval text: a number (or number word) and a unit, optionally several joined by "and". */
const intervalUnit = "(second|minute|hour|day|week|month|year)s?";
const intervalAmount = "(\\d+(\\.\\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a|an)";
export const HUMAN_INTERVAL = new RegExp(
  `^\\s*${intervalAmount}\\s+${intervalUnit}(\\s*(,|and)\\s*${intervalAmount}\\s+${intervalUnit})*\\s*$`,
  "i",
);
const repeatInterval = {
  type: "string",
  min: 1,
  pattern: HUMAN_INTERVAL,
  messages: {
    stringPattern: "The '{field}' field must be an interval such as '1 hour', '3 days' or '2 weeks'.",
  },
} as const;

const scheduleMembers = {
  nextRunAt: { ...isoDateTime, nullable: true, optional: true },
  repeatInterval: { ...repeatInterval, nullable: true, optional: true },
  disabled: optBool,
} as const;

export const scheduler = defineService("scheduler", {
  updateSchedule: {
    params: {
      id: objectId,
      options: {
        type: "object",
        strict: "remove",
        minProps: 1,
        props: scheduleMembers,
        custom: realCalendarDate,
        messages: { calendarDate: "The 'options.nextRunAt' field is not a real calendar date." },
      },
    },
    result: returns<{ status: string; response: { message: string } }>(),
    http: {
      method: "PUT",
      path: "/automation_catalog/automations/:id/schedule",
      access: ["admin", "other", "apiread"],
      spec: 10,
      summary: "Update only the schedule of an automation",
    },
  },
  createAutomation: {
    params: {
      name: { type: "string", min: 1, max: 256 },
      description: { type: "string", max: 4096, optional: true },
      workflow: { type: "string", min: 1, max: 256 },
      variables: { type: "object", optional: true },
      ...scheduleMembers,
    },
    result: returns<Automation>(),
    http: {
      method: "POST",
      path: "/automation_catalog/automations",
      access: SUPPORT_WRITE,
      summary: "Create an automation (a workflow with optional schedule)",
    },
  },
  listAutomations: {
    params: { skip: int(0), limit: int(1) },
    result: returns<Automation[]>(),
    http: {
      method: "GET",
      path: "/automation_catalog/automations",
      access: SUPPORT_READ,
      summary: "List automations",
    },
  },
  getAutomation: {
    params: { id: objectId },
    result: returns<Automation>(),
    http: {
      method: "GET",
      path: "/automation_catalog/automations/:id",
      access: SUPPORT_READ,
      summary: "Read an automation",
    },
  },
  deleteAutomation: {
    params: { id: objectId },
    result: returns<Message>(),
    http: {
      method: "DELETE",
      path: "/automation_catalog/automations/:id",
      access: SUPPORT_WRITE,
      summary: "Delete an automation",
    },
  },
});
