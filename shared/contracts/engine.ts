/** engine: workflows, jobs and tasks (spec operations 5, 8, 14, 17, 20; docs/platform-rules.md (#object-parameters-on-get, #workflows-and-jobs)). */
import { releaseGroupAction } from "./group-release";
import { defineService, SUPPORT_READ, SUPPORT_WRITE } from "./define";
import {
  anyObj,
  anyValue,
  arrayOf,
  int,
  nullable,
  objectId,
  optString,
  returns,
  shape,
  sortOrder,
  str,
  integer,
  either,
  openShape,
  optional,
} from "./schema";
import { envelopeOf, pageMetadataProps } from "../envelope";
import {
  jobControlResultSchema,
  jobMetricsResultSchema,
  jobOutputSchema,
  jobPageSchema,
  jobSchema,
  searchResultOf,
  workflowExportSchema,
  taskCatalogEntrySchema,
  taskMetricsResultSchema,
  workflowSchema,
} from "./resources";

/** A manual task as GET /operations-manager/tasks lists it, with the members of its job. */
const manualTaskSchema = shape({
  id: str,
  job_id: str,
  name: str,
  summary: str,
  description: str,
  displayName: str,
  type: str,
  status: str,
  groups: arrayOf(str),
  variables: anyObj,
  start_time: nullable(anyValue),
  end_time: nullable(anyValue),
  finish_state: nullable(str),
  outgoing: anyObj,
  job: { type: "object", description: "Its job's _id, name, description, status, workflow and groups" },
});

/**
 * A workflow as /automation-studio/workflows lists it: with `expand`, `created_by` and
 * `last_updated_by` are the accounts (less any `exclude`d members) instead of usernames.
 */
const studioWorkflowSchema = openShape({
  ...workflowSchema.props,
  created_by: optional(either(str, anyObj)),
  last_updated_by: optional(either(str, anyObj)),
});

/** `{field: value}` filters of the job query; values arrive as text on a query string. */
const fieldRecord = {
  type: "record",
  key: { type: "string", min: 1, max: 200 },
  value: { type: "multi", rules: [{ type: "string" }, { type: "number" }, { type: "boolean" }] },
} as const;
const fieldMap = { ...fieldRecord, optional: true } as const;
/** `{field: "a,b"}` or `{field: ["a", "b"]}` for in / not-in. */
const fieldList = {
  type: "record",
  optional: true,
  key: { type: "string", min: 1, max: 200 },
  value: {
    type: "multi",
    rules: [
      { type: "string" },
      { type: "array", items: { type: "multi", rules: [{ type: "string" }, { type: "number" }] } },
    ],
  },
} as const;

/** Job query (docs/platform-rules.md#object-parameters-on-get): shared by the admin and the group-filtered job lists. */
export const jobQuery = {
  type: "object",
  strict: "remove",
  default: {},
  props: {
    limit: int(1),
    skip: int(0),
    order: sortOrder,
    sort: optString,
    include: optString,
    exclude: optString,
    in: fieldList,
    "not-in": fieldList,
    /**
     * `{field: value}`, or (as the spec types it, and the real product's 2023.1 clients send it,
     * `equals=<name>`) a plain string: the job's `name`, which is its workflow's name.
     */
    equals: {
      type: "multi",
      optional: true,
      rules: [fieldRecord, { type: "string", min: 1, max: 256 }],
      description: "{field: value}, or a string: jobs whose name (their workflow's name) is exactly it",
    },
    contains: fieldMap,
    "starts-with": fieldMap,
    "ends-with": fieldMap,
    gt: fieldMap,
    gte: fieldMap,
    lt: fieldMap,
    lte: fieldMap,
    dereference: optString,
    q: optString,
  },
} as const;

const workflowName = { type: "string", min: 1, max: 256 } as const;

/** `{jobIds: [...]}`: the job-control body of the real product (pause, resume, cancel). */
const jobIds = { type: "array", items: objectId, min: 1, max: 1000, unique: true } as const;
const JOB_READ = [...SUPPORT_READ, "operations"] as const;

/**
 * The real product's search body (`POST /workflow_engine/jobs/search` and `/workflows/search`):
 * `{options: {query, limit, skip, sort, fields}}`. `query` is a filter on the allowed fields.
 */
const searchOptions = {
  type: "object",
  strict: "remove",
  default: {},
  props: {
    query: { type: "object", optional: true, maxProps: 50 },
    limit: int(1),
    skip: int(0),
    sort: { type: "record", optional: true, key: { type: "string", min: 1, max: 200 }, value: sortOrder },
    fields: {
      type: "record",
      optional: true,
      key: { type: "string", min: 1, max: 200 },
      value: { type: "enum", values: [0, 1, true, false] },
    },
  },
} as const;

const workflowDocument = {
  type: "object",
  props: {
    name: workflowName,
    description: { type: "string", max: 4096, optional: true },
    tasks: { type: "object" },
    transitions: { type: "object" },
    inputSchema: { type: "object", optional: true },
    sla: { type: "number", min: 0, optional: true },
    preAutomationTime: { type: "number", min: 0, optional: true },
    groups: { type: "array", items: { type: "string", min: 1 }, optional: true },
    tags: { type: "array", items: { type: "string", min: 1 }, optional: true },
    /** Job variables stored encrypted (docs/platform-rules.md#secrets): pointers into the job, e.g. /variables/password. */
    decorators: {
      type: "array",
      optional: true,
      items: {
        type: "object",
        strict: "remove",
        props: {
          type: { type: "equal", value: "encryption" },
          pointer: { type: "string", pattern: /^(\/[^/]+)+$/ },
        },
      },
    },
  },
} as const;

/** The workflow document's members, each optional: the import takes them bare or under `workflow`. */
const workflowMembersOptional = Object.fromEntries(
  Object.entries(workflowDocument.props).map(([key, rule]) => [key, { ...rule, optional: true }]),
) as { [K in keyof typeof workflowDocument.props]: (typeof workflowDocument.props)[K] & { optional: true } };

/** What a job starts with, from a person (startJob) or a schedule (startScheduledJob). */
const jobStartOptions = {
  description: { type: "string", max: 4096, optional: true },
  variables: { type: "object", optional: true },
  // Group ids are UUIDs (docs/platform-rules.md#identifiers-and-time), not object ids; unknown ones answer 400.
  groups: { type: "array", items: { type: "string", min: 1, max: 128 }, max: 100, optional: true },
} as const;

export const engine = defineService("engine", {
  startJob: {
    idempotent: "keyed",
    // Its job's id is made from the request id; a repeat finds the job (run/handlers.ts startJob).
    madeKeyRecord: false,
    params: {
      workflow: workflowName,
      options: {
        type: "object",
        strict: "remove",
        props: { ...jobStartOptions, type: { type: "string", optional: true } },
      },
    },
    result: returns(jobSchema),
    http: {
      method: "POST",
      path: "/operations-manager/jobs/start",
      aliases: [{ path: "/operations_manager/jobs/start" }],
      access: "authenticated",
      spec: 17,
      summary: "Start a job from a workflow",
    },
  },
  startScheduledJob: {
    access: "internal",
    idempotent: "repeatable",
    params: {
      workflow: workflowName,
      /** Chosen by the scheduler when it claims the slot: a second start of the same slot finds this job. */
      jobId: objectId,
      automation: {
        type: "object",
        strict: "remove",
        props: {
          _id: objectId,
          name: { type: "string", min: 1, max: 256 },
          dueAt: { type: "string", max: 64 },
        },
      },
      options: {
        type: "object",
        strict: "remove",
        props: jobStartOptions,
      },
    },
    result: returns(jobSchema),
    description:
      "Starts the job of one automation slot (type 'automation', linked to the automation and its due time) with the id the scheduler chose; idempotent: the same id answers the job already started.",
  },
  finishTask: {
    idempotent: "keyed",
    params: {
      task_id: { type: "string", min: 1, max: 128 },
      job_id: objectId,
      task_data: { type: "object" },
    },
    result: returns(jobSchema),
    http: {
      method: "POST",
      path: "/workflow_engine/finishTask",
      access: ["admin", "engineering", "support"],
      spec: 14,
      summary: "Finish a waiting manual task with finish state success",
    },
  },
  adminJobs: {
    params: { queryParameters: jobQuery },
    result: returns(jobPageSchema),
    http: {
      method: "GET",
      path: "/operations-manager/admin/jobs",
      access: ["admin", "engineering", "apiread", "operations"],
      spec: 5,
      objectParam: "queryParameters",
      summary: "A page of jobs, bypassing group-based access",
    },
  },
  listJobs: {
    params: { queryParameters: jobQuery },
    result: returns(envelopeOf(arrayOf(jobSchema), shape({ ...pageMetadataProps, hints: arrayOf(str) }))),
    http: {
      method: "GET",
      path: "/operations-manager/jobs",
      access: [...SUPPORT_READ, "operations"],
      objectParam: "queryParameters",
      summary: "A page of the jobs the caller's groups may see",
    },
  },
  getJob: {
    params: {
      id: objectId,
      include: jobQuery.props.include,
      exclude: jobQuery.props.exclude,
      dereference: jobQuery.props.dereference,
    },
    result: returns(envelopeOf(jobSchema)),
    http: {
      method: "GET",
      path: "/operations-manager/jobs/:id",
      access: [...SUPPORT_READ, "operations"],
      summary: "Read a job (group-based access)",
    },
  },
  cancelJob: {
    idempotent: "keyed",
    params: { id: objectId },
    result: returns(jobSchema),
    http: {
      method: "POST",
      path: "/operations-manager/jobs/:id/cancel",
      access: SUPPORT_WRITE,
      summary: "Cancel a running or paused job",
    },
  },
  listManualTasks: {
    params: {
      job_id: { ...objectId, optional: true },
      status: { type: "enum", values: ["waiting", "complete", "canceled"], optional: true },
      skip: int(0),
      limit: int(1),
    },
    // The project's page (docs/compatibility.md#list-shapes): the real product's answer here is not known.
    result: returns(
      shape({ results: arrayOf(manualTaskSchema), total: integer, skip: integer, limit: integer }),
    ),
    http: {
      method: "GET",
      path: "/operations-manager/tasks",
      access: [...SUPPORT_READ, "support", "operations"],
      summary: "Manual tasks (by default those waiting), filterable by job and status",
    },
  },
  taskMetrics: {
    params: {
      queryOptions: {
        type: "object",
        strict: "remove",
        default: {},
        props: {
          order: sortOrder,
          sort: { type: "enum", values: ["workflow.name", "metrics.startDate"], optional: true },
          skip: int(0),
          limit: int(1),
          greaterThanEquals: {
            type: "number",
            integer: true,
            min: 0,
            optional: true,
            description: "Milliseconds since the UNIX epoch",
          },
          greaterThanEqualsField: { type: "equal", value: "metrics.startDate", strict: true, optional: true },
          equals: optString,
          equalsField: { type: "equal", value: "workflow.name", strict: true, optional: true },
        },
      },
    },
    result: returns(taskMetricsResultSchema),
    http: {
      method: "GET",
      path: "/workflow_engine/tasks/metrics",
      access: ["admin", "apiread"],
      spec: 8,
      objectParam: "queryOptions",
      summary: "Daily task metrics per workflow",
    },
  },
  listTasks: {
    params: {},
    result: returns(arrayOf(taskCatalogEntrySchema)),
    http: {
      method: "GET",
      path: "/workflow_builder/tasks/list",
      access: ["admin", "engineering", "support"],
      spec: 20,
      summary: "Every task a workflow can use",
    },
  },
  createWorkflow: {
    idempotent: "keyed",
    params: { workflow: workflowDocument },
    result: returns(workflowSchema),
    http: {
      method: "POST",
      path: "/workflow_builder/workflows",
      access: SUPPORT_WRITE,
      summary: "Create a workflow",
    },
  },
  listWorkflows: {
    params: { skip: int(0), limit: int(1) },
    // The project's page (docs/compatibility.md#list-shapes): no client we read lists workflows here.
    result: returns(
      shape({ results: arrayOf(workflowSchema), total: integer, skip: integer, limit: integer }),
    ),
    http: {
      method: "GET",
      path: "/workflow_builder/workflows",
      access: SUPPORT_READ,
      summary: "List workflows",
    },
  },
  getWorkflow: {
    params: { name: workflowName },
    result: returns(workflowSchema),
    http: {
      method: "GET",
      path: "/workflow_builder/workflows/:name",
      access: SUPPORT_READ,
      summary: "Read a workflow",
    },
  },
  releaseGroup: releaseGroupAction,
  getWorkflowById: {
    access: "internal",
    idempotent: "repeatable",
    params: { id: objectId },
    result: returns(workflowSchema),
    description:
      "Reads a workflow by its _id (an automation's componentId names a workflow this way, as the real product's does).",
  },
  updateWorkflow: {
    idempotent: "keyed",
    params: { name: workflowName, workflow: workflowDocument },
    result: returns(workflowSchema),
    http: {
      method: "PUT",
      path: "/workflow_builder/workflows/:name",
      access: SUPPORT_WRITE,
      summary: "Replace a workflow",
    },
  },
  deleteWorkflow: {
    idempotent: "keyed",
    params: {
      name: workflowName,
      force: {
        type: "boolean",
        optional: true,
        description:
          "Delete even while an automation names the workflow or a job of it is running or paused (409 otherwise)",
      },
    },
    result: returns(shape({ status: str, message: str, name: str })),
    http: {
      method: "DELETE",
      path: "/workflow_builder/workflows/:name",
      aliases: [{ path: "/workflow_builder/workflows/delete/:name" }],
      access: SUPPORT_WRITE,
      summary:
        "Delete a workflow: 409 while an automation names it or a job of it is running or paused, unless ?force=true",
    },
  },
  pauseJobs: {
    idempotent: "keyed",
    params: { jobIds },
    result: returns(jobControlResultSchema),
    http: {
      method: "POST",
      path: "/operations-manager/jobs/pause",
      access: SUPPORT_WRITE,
      summary: "Pause running jobs: tasks under way may finish, nothing new starts until resumed",
    },
  },
  resumeJobs: {
    idempotent: "keyed",
    params: { jobIds },
    result: returns(jobControlResultSchema),
    http: {
      method: "POST",
      path: "/operations-manager/jobs/resume",
      access: SUPPORT_WRITE,
      summary: "Resume paused jobs",
    },
  },
  cancelJobs: {
    idempotent: "keyed",
    params: { jobIds },
    result: returns(jobControlResultSchema),
    http: {
      method: "POST",
      path: "/operations-manager/jobs/cancel",
      access: SUPPORT_WRITE,
      summary: "Cancel running or paused jobs",
    },
  },
  jobOutput: {
    params: { id: objectId },
    result: returns(jobOutputSchema),
    http: {
      method: "GET",
      path: "/workflow_engine/job/:id/output",
      access: JOB_READ,
      summary: "A job's variables and each task's outgoing values (group-based access)",
    },
  },
  jobMetrics: {
    params: {
      queryOptions: {
        type: "object",
        strict: "remove",
        default: {},
        props: {
          equals: optString,
          equalsField: { type: "equal", value: "workflow.name", strict: true, optional: true },
          order: sortOrder,
          skip: int(0),
          limit: int(1),
        },
      },
    },
    result: returns(jobMetricsResultSchema),
    http: {
      method: "GET",
      path: "/workflow_engine/jobs/metrics",
      access: ["admin", "apiread"],
      objectParam: "queryOptions",
      summary: "Job counts by status and run times, per workflow",
    },
  },
  searchJobs: {
    idempotent: "repeatable",
    params: { options: searchOptions },
    result: returns(searchResultOf(jobSchema)),
    http: {
      method: "POST",
      path: "/workflow_engine/jobs/search",
      access: JOB_READ,
      summary:
        "The real product's job search: {options: {query, limit, skip, sort, fields}} (group-based access)",
    },
  },
  getJobDocument: {
    params: { id: objectId },
    result: returns(jobSchema),
    http: {
      method: "GET",
      path: "/workflow_engine/getJob/:id",
      access: JOB_READ,
      summary: "The real product's plain job read: the job document itself (group-based access)",
    },
  },
  searchWorkflows: {
    idempotent: "repeatable",
    params: { options: searchOptions },
    result: returns(searchResultOf(workflowSchema)),
    http: {
      method: "POST",
      path: "/workflow_engine/workflows/search",
      access: SUPPORT_READ,
      summary: "The real product's workflow search: {options: {query, limit, skip, sort, fields}}",
    },
  },
  studioWorkflows: {
    params: {
      options: {
        type: "object",
        strict: "remove",
        default: {},
        props: {
          equals: {
            type: "object",
            optional: true,
            strict: "remove",
            props: { name: { ...workflowName, optional: true }, _id: { ...objectId, optional: true } },
          },
          contains: { type: "object", optional: true, strict: "remove", props: { name: optString } },
          "starts-with": { type: "object", optional: true, strict: "remove", props: { name: optString } },
          sort: { type: "enum", values: ["name", "created", "last_updated"], optional: true },
          order: sortOrder,
          skip: int(0),
          limit: int(1),
          expand: {
            type: "string",
            max: 256,
            optional: true,
            description: "created_by,last_updated_by: the accounts",
          },
          include: { type: "string", max: 2048, optional: true },
          exclude: { type: "string", max: 2048, optional: true },
        },
      },
    },
    result: returns(
      shape({ items: arrayOf(studioWorkflowSchema), total: integer, skip: integer, limit: integer }),
    ),
    http: {
      method: "GET",
      path: "/automation-studio/workflows",
      access: SUPPORT_READ,
      objectParam: "options",
      summary:
        "The real product's workflow list: equals[name], equals[_id], contains[name], starts-with[name], expand, include, exclude",
    },
  },
  exportWorkflow: {
    idempotent: "repeatable",
    params: {
      name: { ...workflowName, optional: true },
      options: {
        type: "object",
        optional: true,
        strict: "remove",
        props: { name: workflowName, type: { type: "string", max: 64, optional: true } },
        description: "The real product's body: {options: {name, type}}",
      },
    },
    result: returns(workflowExportSchema),
    http: {
      method: "POST",
      path: "/workflow_builder/export",
      access: SUPPORT_READ,
      summary: "A workflow with everything needed to create it again elsewhere",
    },
  },
  importWorkflow: {
    idempotent: "keyed",
    params: {
      // The workflow bare (as an export answers it) or under `workflow` (Itential.py's upload).
      ...workflowMembersOptional,
      workflow: {
        ...workflowDocument,
        optional: true,
        description:
          "The workflow, when it is not given bare: the real product's clients send {workflow: {...}}",
      },
      overwrite: { type: "boolean", optional: true, description: "Replace a workflow of the same name" },
    },
    result: returns(workflowSchema),
    http: {
      method: "POST",
      path: "/workflow_builder/import",
      access: SUPPORT_WRITE,
      summary: "Create a workflow from an export (409 when the name exists, unless overwrite)",
    },
  },
});
