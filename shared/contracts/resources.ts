/**
 * Result shapes of the actions (the spec's resource tables). Request shapes are not written here:
 * they are inferred from the params schemas in the contract files.
 */
import { ROLES } from "./define";
import { JOB_STATUSES, TASK_STATUSES } from "./engine-documents";
import {
  anyObj,
  anyValue,
  arrayOf,
  bool,
  constant,
  integer,
  named,
  nullable,
  num,
  oneOf,
  openShape,
  optional,
  recordOf,
  shape,
  str,
  type InferRule,
  type Rule,
} from "./schema";

// Each resource is a result schema (the Rule vocabulary of the params, shared/contracts/schema.ts)
// and its TypeScript type is inferred from it: what OpenAPI says and what the code returns are one.

const meta = shape({ created: str, updated: str });
export type Meta = InferRule<typeof meta>;

const role = oneOf(...ROLES);

export const groupSchema = named(
  "Group",
  shape({
    _id: str,
    provenance: str,
    name: str,
    description: str,
    memberOf: arrayOf(str),
    /** Built-in role names and custom role names (docs/security.md#authorization). */
    assignedRoles: arrayOf(str),
    inactive: bool,
    _meta: meta,
    /** The account (_id) that last changed the group through an update; absent until then. */
    last_updated_by: optional(str),
  }),
);
export type Group = InferRule<typeof groupSchema>;

export const accountSchema = named(
  "Account",
  shape({
    _id: str,
    provenance: str,
    username: str,
    firstname: str,
    memberOf: arrayOf(shape({ groupId: str, aaaManaged: constant(true) })),
    /** Roles given to the account itself, beside its groups' (built-in or custom role names). */
    assignedRoles: optional(arrayOf(str)),
    lastLogin: nullable(str),
    inactive: bool,
    /** Set through PATCH /authorization/accounts/:accountId; absent until then. */
    email: optional(str),
    _meta: meta,
    /** The account (_id) that last changed this account through an update; absent until then. */
    last_updated_by: optional(str),
  }),
);
export type Account = InferRule<typeof accountSchema>;

export const accountPageSchema = shape({
  results: arrayOf(accountSchema),
  skip: integer,
  limit: integer,
  total: integer,
});
export type AccountPage = InferRule<typeof accountPageSchema>;

/** What the gateway learns about a caller from a token or Basic credentials. */
export const callerSchema = shape({
  accountId: str,
  username: str,
  roles: arrayOf(role),
  /** Ids of the caller's groups, transitive closure of memberOf included (group-based access). */
  groupIds: arrayOf(str),
  /** Session id (hash of the token); absent for Basic authentication. */
  sessionId: optional(str),
  /** Epoch ms when the session expires if left idle. */
  expiresAt: optional(num),
  /** Actions (`service.action`) the caller's custom roles allow, beside what its roles allow. */
  methods: optional(arrayOf(str)),
  /** Epoch ms when accounts resolved these rights: the authorization middleware trusts them for AUTH_CACHE_MS. */
  resolvedAt: optional(num),
});
export type Caller = InferRule<typeof callerSchema>;

export const loginResultSchema = shape({ token: str, expiresAt: num });
export type LoginResult = InferRule<typeof loginResultSchema>;

export const whoAmISchema = shape({
  account: accountSchema,
  roles: arrayOf(role),
  groups: arrayOf(shape({ _id: str, name: str })),
});
export type WhoAmI = InferRule<typeof whoAmISchema>;

/** A service account (docs/platform-rules.md#service-accounts): a client of the API, not a person. */
export const serviceAccountSchema = named(
  "ServiceAccount",
  shape({
    _id: str,
    /** The OAuth client id: the same 24-hex value as `_id`. */
    clientId: str,
    name: str,
    description: str,
    memberOf: arrayOf(shape({ groupId: str, aaaManaged: constant(true) })),
    inactive: bool,
    createdBy: str,
    _meta: meta,
  }),
);
export type ServiceAccount = InferRule<typeof serviceAccountSchema>;

/** The create (and rotate) answer: the only time the secret is shown. */
export const serviceAccountCreatedSchema = shape({
  ...serviceAccountSchema.props,
  clientSecret: str,
});
export type ServiceAccountCreated = InferRule<typeof serviceAccountCreatedSchema>;

/** POST /oauth/token's answer (RFC 6749 section 5.1). */
export const oauthTokenSchema = shape({
  access_token: str,
  token_type: constant("Bearer"),
  expires_in: integer,
});
export type OAuthToken = InferRule<typeof oauthTokenSchema>;

/** `{status, message}`: what deletes and other writes without a resource to answer say. */
/** A method a custom role allows: an action (`name`) of a service (`provenance`), as the real product names it. */
const methodRef = shape({ name: str, provenance: str });

/** A role (docs/security.md#authorization): built-in (the spec's names) or custom (the methods it allows). */
export const roleSchema = named(
  "Role",
  shape({
    _id: str,
    provenance: str,
    name: str,
    description: str,
    allowedMethods: arrayOf(methodRef),
    allowedViews: arrayOf(shape({ path: str, provenance: str })),
    _meta: optional(meta),
  }),
);
export type CustomRole = InferRule<typeof roleSchema>;

/** An operation a role may allow (GET /authorization/methods). */
export const methodSchema = shape({
  name: str,
  provenance: str,
  route: nullable(shape({ path: str, verb: str })),
  /** The built-in roles that may call it (admin always may). */
  roles: arrayOf(str),
});
export type Method = InferRule<typeof methodSchema>;

export const messageSchema = named("Message", shape({ status: str, message: str }));
export type Message = InferRule<typeof messageSchema>;

/** A form as the form builder stores it: the spec's members, and the builder's own beside them. */
export const formDocumentSchema = named(
  "Form",
  openShape({
    _id: str,
    name: str,
    children: arrayOf(anyObj),
    elements: arrayOf(anyObj),
    groups: arrayOf(str),
    description: optional(str),
    tags: optional(arrayOf(str)),
    created: str,
    created_by: str,
    last_updated: str,
    last_updated_by: str,
  }),
);
export type FormDocument = InferRule<typeof formDocumentSchema>;

export const formListItemSchema = shape({
  _id: str,
  id: str,
  form_name: str,
  formid: str,
  name: str,
  children: arrayOf(anyValue),
  elements: arrayOf(anyValue),
  created: str,
  createdBy: str,
  lastUpdated: str,
  lastUpdatedBy: str,
  groups: arrayOf(groupSchema),
  description: str,
  /** Ids of the form's tags (search service). */
  tags: arrayOf(str),
});
export type FormListItem = InferRule<typeof formListItemSchema>;

/** `{from: {to: {state, type}}}`, keyed by task id (shared/contracts/engine-documents.ts). */
const transitionsSchema = recordOf(
  recordOf(
    shape({
      state: oneOf("success", "failure", "error", "loop"),
      type: oneOf("standard", "revert", "loop"),
    }),
  ),
);

/** A task as a workflow defines it; a task's own members beside these are kept. */
const workflowTaskProps = {
  name: str,
  type: optional(oneOf("automatic", "manual", "operation")),
  app: optional(str),
  summary: optional(str),
  description: optional(str),
  displayName: optional(str),
  variables: optional(anyObj),
  groups: optional(arrayOf(str)),
} as const;

/** A task inside a job: the definition plus its run state. */
const jobTaskSchema = openShape({
  ...workflowTaskProps,
  status: oneOf(...TASK_STATUSES),
  finish_state: optional(oneOf("success", "failure", "error")),
  start_time: optional(str),
  end_time: optional(num),
  outgoing: optional(anyObj),
});

/**
 * A job as the API answers it (docs/engine.md): the engine's document without its bookkeeping.
 * Open-ended: tasks and variables are free-form, and what a projection (`include`) keeps varies,
 * so only `_id`, `name` and `status` are always there.
 */
export const jobSchema = named(
  "Job",
  openShape({
    _id: str,
    name: str,
    status: oneOf(...JOB_STATUSES),
    type: optional(str),
    description: optional(str),
    workflow: optional(shape({ _id: str, name: str })),
    tasks: optional(recordOf(nullable(jobTaskSchema))),
    transitions: optional(transitionsSchema),
    variables: optional(recordOf(anyValue)),
    error: optional(arrayOf(anyObj)),
    errorHandler: optional(anyValue),
    decorators: optional(arrayOf(shape({ type: str, pointer: str }))),
    groups: optional(arrayOf(str)),
    watchers: optional(arrayOf(str)),
    ancestors: optional(arrayOf(str)),
    parent: optional(anyValue),
    sla: optional(num),
    preAutomationTime: optional(num),
    /** start_time/end_time epoch ms; manual_time: ms spent in waiting manual tasks; progress 0-100. */
    metrics: optional(
      shape({
        start_time: num,
        end_time: nullable(num),
        progress: num,
        user: str,
        owner: str,
        manual_time: num,
      }),
    ),
    created: optional(str),
    created_by: optional(str),
    last_updated: optional(str),
    last_updated_by: optional(str),
    lastUpdatedVersion: optional(str),
    canvasVersion: optional(num),
    font_size: optional(num),
  }),
);
export type Job = InferRule<typeof jobSchema>;

/** A workflow definition (docs/engine.md): its tasks' own members are kept. */
export const workflowSchema = named(
  "Workflow",
  openShape({
    _id: str,
    name: str,
    description: optional(str),
    type: optional(str),
    tasks: optional(recordOf(openShape(workflowTaskProps))),
    transitions: optional(transitionsSchema),
    inputSchema: optional(anyObj),
    sla: optional(num),
    preAutomationTime: optional(num),
    decorators: optional(arrayOf(shape({ type: constant("encryption"), pointer: str }))),
    groups: optional(arrayOf(str)),
    tags: optional(arrayOf(str)),
    created: optional(str),
    created_by: optional(str),
    last_updated: optional(str),
    last_updated_by: optional(str),
  }),
);
export type Workflow = InferRule<typeof workflowSchema>;

export const jobPageSchema = shape({
  items: arrayOf(jobSchema),
  total: integer,
  currentPageSize: integer,
  hints: arrayOf(str),
  skip: integer,
  limit: integer,
  nextPageSkip: integer,
  previousPageSkip: integer,
});
export type JobPage = InferRule<typeof jobPageSchema>;

const taskVariables = shape({ incoming: anyObj, outgoing: anyObj });

export const taskCatalogEntrySchema = shape({
  name: str,
  summary: str,
  description: str,
  app: str,
  displayName: str,
  location: oneOf("Application", "Adapter", "Broker"),
  type: oneOf("automatic", "manual", "operation"),
  variables: taskVariables,
  deprecated: bool,
});
export type TaskCatalogEntry = InferRule<typeof taskCatalogEntrySchema>;

export const taskMetricsResultSchema = shape({
  results: arrayOf(
    shape({
      _id: str,
      workflow: shape({ name: str, _id: str }),
      metrics: arrayOf(
        shape({
          jobsComplete: num,
          totalRunTime: num,
          totalManualTime: num,
          slaTargetsMissed: num,
          startDate: str,
        }),
      ),
      preAutomationTime: num,
    }),
  ),
  skip: integer,
  limit: integer,
  total: integer,
});
export type TaskMetricsResult = InferRule<typeof taskMetricsResultSchema>;

export const searchResultGroupSchema = shape({
  label: str,
  type: str,
  results: arrayOf(
    shape({
      _id: str,
      name: str,
      description: str,
      url: str,
      tags: arrayOf(shape({ _id: str, name: str, description: str })),
    }),
  ),
  count: integer,
});
export type SearchResultGroup = InferRule<typeof searchResultGroupSchema>;

export const deviceSchema = named(
  "Device",
  shape({
    name: str,
    authgroup: str,
    address: str,
    host: str,
    port: str,
    "device-type": str,
    ned: str,
    admin: bool,
    groups: arrayOf(str),
  }),
);
export type Device = InferRule<typeof deviceSchema>;

export const goldenConfigExportEntrySchema = shape({
  id: str,
  name: str,
  deviceType: str,
  versions: arrayOf(str),
  created: str,
  lastUpdated: str,
});
export type GoldenConfigExportEntry = InferRule<typeof goldenConfigExportEntrySchema>;

const totals = shape({ errors: integer, warnings: integer, infos: integer, passes: integer });
export const complianceHistoryEntryProps = {
  id: str,
  batchId: str,
  treeId: str,
  version: str,
  nodePath: str,
  deviceName: str,
  timestamp: str,
  totals,
} as const;
export const complianceHistoryEntrySchema = shape(complianceHistoryEntryProps);
export type ComplianceHistoryEntry = InferRule<typeof complianceHistoryEntrySchema>;

export interface StatusResult<T> {
  status: string;
  message: string;
  data: T;
}
/** `{status, message, data}` around a resource (the real product's answer to creates and lifecycle changes). */
export const statusResult = <const D extends Rule>(data: D) => shape({ status: str, message: str, data });

/** `{results, total}`: the real product's health reads (shared/health-query.ts). */
export const resultsPage = <const I extends Rule>(item: I) =>
  shape({ results: arrayOf(item), total: integer });

/** A platform profile: its schema is beside its params, `profileSchema` in shared/contracts/profiles.ts. */
export type { Profile } from "./profiles";

/** Who made a catalog document and when (adapters, repository configurations, profiles). */
export const catalogMeta = openShape({
  created: str,
  updated: str,
  createdBy: optional(str),
  /** Who last changed it (an adapter update: the account `_id`, or `system`). */
  updatedBy: optional(str),
});

/** An adapter instance (docs/catalog.md); credential members of its settings are sealed (`enc:v1:...`). */
export const adapterSchema = named(
  "Adapter",
  openShape({
    _id: optional(str),
    name: str,
    type: str,
    description: optional(str),
    tags: optional(arrayOf(str)),
    properties: optional(
      openShape({
        id: str,
        type: str,
        properties: optional(anyObj),
        brokers: optional(arrayOf(str)),
        groups: optional(arrayOf(str)),
      }),
    ),
    loggerProps: optional(anyObj),
    isEncrypted: optional(bool),
    model: optional(str),
    _meta: optional(catalogMeta),
    profiling: bool,
    virtual: bool,
    /** GET /adapters/:name: its lifecycle and connection state (see AdapterHealth). */
    state: optional(str),
    connection: optional(anyObj),
  }),
);
export type Adapter = InferRule<typeof adapterSchema>;

/**
 * An adapter's health, in the real product's shape (`GET /health/adapters`): `state` is the
 * lifecycle (RUNNING, STOPPED, DEAD when its checks keep failing), `connection.state` what the last
 * check found (ONLINE, OFFLINE, or NOT_CHECKED where the adapter type has nothing to check; then
 * `connection.reason` says why). docs/orchestrator.md#health.
 */
export const adapterHealthSchema = named(
  "AdapterHealth",
  shape({
    id: str,
    package_id: str,
    type: str,
    state: oneOf("RUNNING", "STOPPED", "DEAD"),
    connection: shape({
      state: oneOf("ONLINE", "OFFLINE", "NOT_CHECKED"),
      reason: optional(str),
      lastCheck: optional(nullable(str)),
      lastSuccess: optional(nullable(str)),
      lastError: optional(nullable(str)),
      latencyMs: optional(nullable(num)),
      failures: optional(integer),
    }),
  }),
);
export type AdapterHealth = InferRule<typeof adapterHealthSchema>;
/** A prebuilt repository configuration: `repositoryConfigSchema` in shared/contracts/prebuilts.ts. */
export type { RepositoryConfig } from "./prebuilts";

/** An automation: a workflow to run, with its schedule and what its runs did (docs/scheduler.md). */
export const automationSchema = named(
  "Automation",
  shape({
    _id: str,
    name: str,
    description: str,
    /** The workflow's name; null for an automation made through /operations-manager without a component. */
    workflow: nullable(str),
    /** The workflow's `_id` (the real product's `componentId`), when known. */
    componentId: optional(nullable(str)),
    variables: recordOf(anyValue),
    groups: arrayOf(str),
    /** The real product's `gbac.read`: groups that may read it but not change or run it (`groups` are `gbac.write`). */
    readGroups: optional(arrayOf(str)),
    /** When the next run is due (ISO 8601 UTC), or null. */
    nextRunAt: nullable(str),
    /** human-interval text that moves nextRunAt forward from each due time, or null. */
    repeatInterval: nullable(str),
    disabled: bool,
    missedRuns: oneOf("once", "skip"),
    catchUpWindow: nullable(str),
    overlap: oneOf("allow", "skip"),
    lastRunAt: nullable(str),
    lastJobId: nullable(str),
    lastError: nullable(str),
    /** Answers only: the next 10 due times (derived, never stored). */
    preview: optional(arrayOf(str)),
    /** Answers only: why a stored automation could not be rendered (its preview is then empty). */
    renderError: optional(str),
    created: str,
    created_by: str,
    last_updated: str,
    last_updated_by: str,
  }),
);
export type Automation = InferRule<typeof automationSchema>;

/** One due time of an automation and what became of it (docs/scheduler.md#run-history). */
export const automationRunSchema = shape({
  /** `<automation id>@<due time>`: one record per slot, inserted once (the exactly-once claim). */
  _id: str,
  automationId: str,
  dueAt: str,
  state: oneOf("claimed", "started", "skipped", "failed"),
  jobId: nullable(str),
  startedAt: nullable(str),
  reason: nullable(str),
  claimedBy: str,
  leaseUntil: num,
});
export type AutomationRun = InferRule<typeof automationRunSchema>;

/** An automation as /operations-manager answers it: the real product's view of the same document. */
export const omAutomationSchema = named(
  "OmAutomation",
  shape({
    _id: str,
    name: str,
    description: str,
    componentType: constant("workflows"),
    componentId: nullable(str),
    componentName: nullable(str),
    gbac: shape({ read: arrayOf(str), write: arrayOf(str) }),
    created: str,
    createdBy: str,
    lastUpdated: str,
    lastUpdatedBy: str,
  }),
);
export type OmAutomation = InferRule<typeof omAutomationSchema>;

/** A trigger of an automation (docs/scheduler.md#triggers): what starts its jobs. */
export const triggerSchema = named(
  "Trigger",
  shape({
    _id: str,
    name: str,
    description: str,
    type: oneOf("manual", "endpoint", "schedule"),
    enabled: bool,
    actionType: constant("automations"),
    /** The automation's `_id`. */
    actionId: str,
    /** Epoch ms of the last job this trigger started, or null. */
    lastExecuted: nullable(num),
    created: str,
    createdBy: str,
    lastUpdated: str,
    lastUpdatedBy: str,
    // endpoint
    verb: optional(constant("POST")),
    routeName: optional(str),
    schema: optional(recordOf(anyValue)),
    // manual
    formId: optional(nullable(str)),
    formData: optional(recordOf(anyValue)),
    legacyWrapper: optional(bool),
    // schedule (live values read from the automation's schedule)
    firstRunAt: optional(num),
    repeatUnit: optional(nullable(str)),
    repeatFrequency: optional(nullable(num)),
    repeatInterval: optional(nullable(num)),
    processMissedRuns: optional(oneOf("none", "last")),
    nextRunAt: optional(nullable(num)),
  }),
);
export type Trigger = InferRule<typeof triggerSchema>;

// ------------------------------------------------- the real product's job and workflow reads

/** Pause, resume or cancel by `{jobIds}`: the jobs changed, and why the others were not. */
export const jobControlResultSchema = shape({
  message: str,
  data: arrayOf(jobSchema),
  metadata: shape({
    changed: integer,
    failed: arrayOf(shape({ jobId: str, code: integer, message: str })),
  }),
});
export type JobControlResult = InferRule<typeof jobControlResultSchema>;

/** GET /workflow_engine/job/:id/output. */
export const jobOutputSchema = shape({
  _id: str,
  name: str,
  status: str,
  variables: anyObj,
  tasks: recordOf(
    shape({
      name: str,
      summary: optional(str),
      status: str,
      finish_state: optional(nullable(str)),
      outgoing: nullable(anyValue),
    }),
  ),
});
export type JobOutput = InferRule<typeof jobOutputSchema>;

/** GET /workflow_engine/jobs/metrics: per workflow, its jobs by status and the run time of the complete ones. */
export const jobMetricsResultSchema = shape({
  results: arrayOf(
    shape({
      _id: str,
      workflow: shape({ _id: str, name: str }),
      metrics: shape({
        total: integer,
        running: integer,
        paused: integer,
        complete: integer,
        error: integer,
        canceled: integer,
        /** Of complete jobs, end - start (ms): the sum and the mean (null without one). */
        totalRunTime: num,
        averageRunTime: nullable(num),
      }),
    }),
  ),
  skip: integer,
  limit: integer,
  total: integer,
});
export type JobMetricsResult = InferRule<typeof jobMetricsResultSchema>;

/** The real product's search answer (`/workflow_engine/jobs/search`, `/workflows/search`). */
export const searchResultOf = <const R extends Rule>(item: R) =>
  shape({ results: arrayOf(item), total: integer, limit: integer, skip: integer });

/** A workflow as exported: its definition, without this platform's identity and history. */
export const workflowExportSchema = openShape({ name: str, tasks: anyObj, transitions: anyObj });
export type WorkflowExport = InferRule<typeof workflowExportSchema>;
