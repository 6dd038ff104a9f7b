/**
 * The real product's newer surface over the scheduler's automations: `/operations-manager/automations`
 * and `/operations-manager/triggers` (manual, endpoint, schedule), as its clients (itential-mcp,
 * ipctl) call them, answered in its `{message, data, metadata}` envelope (shared/envelope.ts).
 * These are actions of the scheduler service (spread into its contract): the same automations, and
 * a schedule trigger is the automation's schedule (docs/scheduler.md#triggers).
 * Roles: the same as the /automation_catalog automation routes (supporting reads and writes); a
 * trigger run starts a job, so like POST /operations-manager/jobs/start it is open to any signed-in
 * caller, who may start it only into groups it is in.
 */
import { dueTimeCheck, intervalCheck, rangeMessages } from "./schedule-bounds";
import { SUPPORT_READ, SUPPORT_WRITE } from "./define";
import { arrayOf, constant, int, objectId, optBool, returns, sortOrder } from "./schema";
import { jobSchema, omAutomationSchema, triggerSchema } from "./resources";
import { envelopeOf, pageMetadataSchema } from "../envelope";

const text = (max: number) => ({ type: "string", max, optional: true }) as const;
const groupIds = {
  type: "array",
  items: { type: "string", min: 1, max: 128 },
  max: 100,
  optional: true,
} as const;

/** The list query the real product takes: paging, sort and `equals`/`contains`/`startsWith` with a field. */
function listQuery<const F extends readonly string[]>(fields: F) {
  const field = { type: "enum", values: fields, optional: true } as const;
  return {
    skip: int(0),
    limit: int(1),
    sort: field,
    order: sortOrder,
    equals: text(256),
    equalsField: field,
    contains: text(256),
    containsField: field,
    startsWith: text(256),
    startsWithField: field,
  } as const;
}

export const AUTOMATION_FIELDS = [
  "_id",
  "name",
  "description",
  "componentType",
  "componentId",
  "componentName",
] as const;
export const TRIGGER_FIELDS = [
  "_id",
  "name",
  "description",
  "type",
  "actionId",
  "routeName",
  "verb",
] as const;

const automationMembers = {
  name: { type: "string", min: 1, max: 256 },
  description: text(4096),
  /** Only workflows run here; the real product's `ucm_compliance_plan` answers 400. */
  componentType: { type: "enum", values: ["workflows"], optional: true },
  /** The workflow's `_id` (or its name); must exist, else 400. */
  componentId: { type: "string", min: 1, max: 256, optional: true, nullable: true },
  gbac: {
    type: "object",
    optional: true,
    strict: "remove",
    props: { read: groupIds, write: groupIds },
  },
} as const;

/** An endpoint's route name: one URL path segment. */
const routeName = {
  type: "string",
  min: 1,
  max: 128,
  pattern: /^[A-Za-z0-9._~-]+$/,
  messages: { stringPattern: "The '{field}' field must be one URL path segment (letters, digits, . _ ~ -)." },
} as const;

/** Members of every trigger type; which are required for which type is checked by the handler. */
const triggerMembers = {
  name: { type: "string", min: 1, max: 256 },
  description: { type: "string", max: 4096, optional: true, nullable: true },
  enabled: optBool,
  actionType: { type: "equal", value: "automations", optional: true },
  // endpoint
  verb: { type: "enum", values: ["POST"], optional: true },
  routeName: { ...routeName, optional: true },
  schema: { type: "object", optional: true, nullable: true },
  // manual
  formId: { type: "string", max: 256, optional: true, nullable: true },
  formData: { type: "object", optional: true },
  legacyWrapper: optBool,
  // schedule
  // Within 100 years of now; an interval at most 10 years (./schedule-bounds.ts).
  firstRunAt: { ...int(0, 8_640_000_000_000_000), custom: dueTimeCheck, messages: rangeMessages },
  repeatUnit: { type: "enum", values: ["minute", "hour", "day", "week"], optional: true, nullable: true },
  repeatFrequency: { ...int(1, 1_000_000), nullable: true },
  repeatInterval: {
    ...int(1, 8_640_000_000_000_000),
    nullable: true,
    custom: intervalCheck,
    messages: rangeMessages,
  },
  processMissedRuns: { type: "enum", values: ["none", "last"], optional: true },
} as const;

/** The same members, each optional (a PATCH changes any of them). */
function allOptional<P extends Record<string, object>>(props: P) {
  return Object.fromEntries(Object.entries(props).map(([k, rule]) => [k, { ...rule, optional: true }])) as {
    [K in keyof P]: P[K] & { optional: true };
  };
}

export const operationsManagerActions = {
  omCreateAutomation: {
    idempotent: "keyed",
    params: automationMembers,
    result: returns(envelopeOf(omAutomationSchema)),
    http: {
      method: "POST",
      path: "/operations-manager/automations",
      access: SUPPORT_WRITE,
      summary: "Create an automation (the real product's view: name, componentType, componentId, gbac)",
    },
  },
  omListAutomations: {
    params: listQuery(AUTOMATION_FIELDS),
    result: returns(envelopeOf(arrayOf(omAutomationSchema), pageMetadataSchema)),
    http: {
      method: "GET",
      path: "/operations-manager/automations",
      access: SUPPORT_READ,
      summary: "List automations: equals/contains/startsWith with their field, sort, order, skip, limit",
    },
  },
  omGetAutomation: {
    params: { id: objectId },
    result: returns(envelopeOf(omAutomationSchema)),
    http: {
      method: "GET",
      path: "/operations-manager/automations/:id",
      access: SUPPORT_READ,
      summary: "Read an automation",
    },
  },
  omUpdateAutomation: {
    idempotent: "keyed",
    params: { id: objectId, ...allOptional(automationMembers) },
    result: returns(envelopeOf(omAutomationSchema)),
    http: {
      method: "PATCH",
      path: "/operations-manager/automations/:id",
      access: SUPPORT_WRITE,
      summary: "Change an automation's name, description, component or groups",
    },
  },
  omDeleteAutomation: {
    idempotent: "keyed",
    params: { id: objectId },
    result: returns(envelopeOf(constant(null))),
    http: {
      method: "DELETE",
      path: "/operations-manager/automations/:id",
      access: SUPPORT_WRITE,
      summary: "Delete an automation, its triggers and its schedule",
    },
  },
  createTrigger: {
    idempotent: "keyed",
    params: {
      ...triggerMembers,
      type: { type: "enum", values: ["manual", "endpoint", "schedule"] },
      actionId: objectId,
    },
    result: returns(envelopeOf(triggerSchema)),
    http: {
      method: "POST",
      path: "/operations-manager/triggers",
      access: SUPPORT_WRITE,
      summary:
        "Create a trigger of an automation: manual, endpoint (routeName) or schedule (firstRunAt, repeatInterval)",
    },
  },
  listTriggers: {
    params: { ...listQuery(TRIGGER_FIELDS), enabled: optBool, actionId: { ...objectId, optional: true } },
    result: returns(envelopeOf(arrayOf(triggerSchema), pageMetadataSchema)),
    http: {
      method: "GET",
      path: "/operations-manager/triggers",
      access: SUPPORT_READ,
      summary:
        "List triggers: equals/contains/startsWith with their field, enabled, actionId, sort, skip, limit",
    },
  },
  getTrigger: {
    params: { id: objectId },
    result: returns(envelopeOf(triggerSchema)),
    http: {
      method: "GET",
      path: "/operations-manager/triggers/:id",
      access: SUPPORT_READ,
      summary: "Read a trigger (a schedule trigger with its next due time)",
    },
  },
  updateTrigger: {
    idempotent: "keyed",
    params: {
      id: objectId,
      ...allOptional(triggerMembers),
      // A trigger keeps its type and automation: changing either is refused with 400.
      type: { type: "string", max: 64, optional: true },
      actionId: { type: "string", max: 64, optional: true },
    },
    result: returns(envelopeOf(triggerSchema)),
    http: {
      method: "PATCH",
      path: "/operations-manager/triggers/:id",
      access: SUPPORT_WRITE,
      summary:
        "Change a trigger (enabled, name, route, schedule...); a schedule change moves the automation's schedule",
    },
  },
  deleteTrigger: {
    idempotent: "keyed",
    params: { id: objectId },
    result: returns(envelopeOf(constant(null))),
    http: {
      method: "DELETE",
      path: "/operations-manager/triggers/:id",
      access: SUPPORT_WRITE,
      summary: "Delete a trigger (a schedule trigger's schedule stops)",
    },
  },
  runEndpointTrigger: {
    idempotent: "keyed",
    params: { routeName, input: { type: "object" } },
    result: returns(envelopeOf(jobSchema)),
    http: {
      method: "POST",
      path: "/operations-manager/triggers/endpoint/:routeName",
      access: "authenticated",
      bodyParam: "input",
      summary: "Start the job of the endpoint trigger's automation, the JSON body as its variables",
    },
  },
  runManualTrigger: {
    idempotent: "keyed",
    params: { id: objectId, formData: { type: "object", optional: true } },
    result: returns(envelopeOf(jobSchema)),
    http: {
      method: "POST",
      path: "/operations-manager/triggers/manual/:id/run",
      access: "authenticated",
      summary: "Start the job of a manual trigger's automation, formData as its variables",
    },
  },
} as const;
