/**
 * Result shapes of the actions (the spec's resource tables). Request shapes are not written here:
 * they are inferred from the params schemas in the contract files.
 */
import type { Role } from "./define";

export interface Meta {
  created: string;
  updated: string;
}

export interface Group {
  _id: string;
  provenance: string;
  name: string;
  description: string;
  memberOf: string[];
  assignedRoles: Role[];
  inactive: boolean;
  _meta: Meta;
}

export interface Account {
  _id: string;
  provenance: string;
  username: string;
  firstname: string;
  memberOf: { groupId: string; aaaManaged: true }[];
  lastLogin: string | null;
  inactive: boolean;
  _meta: Meta;
}

export interface AccountPage {
  results: Account[];
  skip: number;
  limit: number;
  total: number;
}

/** What the gateway learns about a caller from a token or Basic credentials. */
export interface Caller {
  accountId: string;
  username: string;
  roles: Role[];
  /** Ids of the caller's groups, transitive closure of memberOf included (group-based access). */
  groupIds: string[];
  /** Session id (hash of the token); absent for Basic authentication. */
  sessionId?: string;
  /** Epoch ms when the session expires if left idle. */
  expiresAt?: number;
}

export interface LoginResult {
  token: string;
  expiresAt: number;
}

export interface WhoAmI {
  account: Account;
  roles: Role[];
  groups: Pick<Group, "_id" | "name">[];
}

/** A service account (docs/platform-rules.md#service-accounts): a client of the API, not a person. */
export interface ServiceAccount {
  _id: string;
  /** The OAuth client id: the same 24-hex value as `_id`. */
  clientId: string;
  name: string;
  description: string;
  memberOf: { groupId: string; aaaManaged: true }[];
  inactive: boolean;
  createdBy: string;
  _meta: Meta;
}

/** The create answer: the only time the secret is shown. */
export interface ServiceAccountCreated extends ServiceAccount {
  clientSecret: string;
}

/** POST /oauth/token's answer (RFC 6749 section 5.1). */
export interface OAuthToken {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
}

export interface Message {
  status: string;
  message: string;
}

export interface FormDocument {
  _id: string;
  name: string;
  children: Record<string, any>[];
  elements: Record<string, any>[];
  groups: string[];
  created: string;
  created_by: string;
  last_updated: string;
  last_updated_by: string;
  [extra: string]: unknown;
}

export interface FormListItem {
  _id: string;
  id: string;
  form_name: string;
  formid: string;
  name: string;
  children: unknown[];
  elements: unknown[];
  created: string;
  createdBy: string;
  lastUpdated: string;
  lastUpdatedBy: string;
  groups: Group[];
}

export type Job = Record<string, any> & { _id: string; status: string; name: string };
export type Workflow = Record<string, any> & { _id: string; name: string };

/** Pause, resume or cancel by `{jobIds}`: the jobs changed, and why the others were not. */
export interface JobControlResult {
  message: string;
  data: Job[];
  metadata: { changed: number; failed: { jobId: string; code: number; message: string }[] };
}

/** GET /workflow_engine/job/:id/output. */
export interface JobOutput {
  _id: string;
  name: string;
  status: string;
  variables: Record<string, unknown>;
  tasks: Record<
    string,
    { name: string; summary?: string; status: string; finish_state?: string; outgoing: unknown }
  >;
}

export interface JobMetricsResult {
  results: {
    _id: string;
    workflow: { _id: string; name: string };
    metrics: {
      total: number;
      running: number;
      paused: number;
      complete: number;
      error: number;
      canceled: number;
      /** Of complete jobs, end - start (ms): sum and mean (null without one). */
      totalRunTime: number;
      averageRunTime: number | null;
    };
  }[];
  skip: number;
  limit: number;
  total: number;
}

/** The real product's search answer (`/workflow_engine/jobs/search`, `/workflows/search`). */
export interface SearchResult<T> {
  results: T[];
  total: number;
  limit: number;
  skip: number;
}

/** A workflow as exported: the document without store identity, and where it came from. */
export interface WorkflowExport extends Record<string, unknown> {
  name: string;
  tasks: Record<string, unknown>;
  transitions: Record<string, unknown>;
}

export interface JobPage {
  items: Job[];
  total: number;
  currentPageSize: number;
  hints: string[];
  skip: number;
  limit: number;
  nextPageSkip: number;
  previousPageSkip: number;
}

export interface TaskCatalogEntry {
  name: string;
  summary: string;
  description: string;
  app: string;
  displayName: string;
  location: "Application" | "Adapter" | "Broker";
  type: "automatic" | "manual" | "operation";
  variables: { incoming: Record<string, unknown>; outgoing: Record<string, unknown> };
  deprecated: boolean;
}

export interface TaskMetricsResult {
  results: {
    _id: string;
    workflow: { name: string; _id: string };
    metrics: {
      jobsComplete: number;
      totalRunTime: number;
      totalManualTime: number;
      slaTargetsMissed: number;
      startDate: string;
    }[];
    preAutomationTime: number;
  }[];
  skip: number;
  limit: number;
  total: number;
}

export interface SearchResultGroup {
  label: string;
  type: string;
  results: {
    _id: string;
    name: string;
    description: string;
    url: string;
    tags: { _id: string; name: string; description: string }[];
  }[];
  count: number;
}

export interface Device {
  name: string;
  authgroup: string;
  address: string;
  host: string;
  port: string;
  "device-type": string;
  ned: string;
  admin: boolean;
  groups: string[];
}

export interface GoldenConfigExportEntry {
  id: string;
  name: string;
  deviceType: string;
  versions: string[];
  created: string;
  lastUpdated: string;
}

export interface ComplianceHistoryEntry {
  id: string;
  batchId: string;
  treeId: string;
  version: string;
  nodePath: string;
  deviceName: string;
  timestamp: string;
  totals: { errors: number; warnings: number; infos: number; passes: number };
}

export interface StatusResult<T> {
  status: string;
  message: string;
  data: T;
}

export type Profile = Record<string, any> & { id: string };
export type Adapter = Record<string, any> & {
  name: string;
  type: string;
  profiling: boolean;
  virtual: boolean;
};
/**
 * An adapter's health, in the real product's shape (`GET /health/adapters`): `state` is the
 * lifecycle (RUNNING, STOPPED, DEAD when its checks keep failing), `connection.state` what the last
 * check found (ONLINE, OFFLINE, or NOT_CHECKED where the adapter type has nothing to check; then
 * `connection.reason` says why). docs/orchestrator.md#health.
 */
export interface AdapterHealth {
  id: string;
  package_id: string;
  type: string;
  state: "RUNNING" | "STOPPED" | "DEAD";
  connection: {
    state: "ONLINE" | "OFFLINE" | "NOT_CHECKED";
    reason?: string;
    lastCheck?: string | null;
    lastSuccess?: string | null;
    lastError?: string | null;
    latencyMs?: number | null;
    failures?: number;
  };
}
export type RepositoryConfig = Record<string, any> & { name: string };
/** An automation: a workflow to run, with its schedule and what its runs did (docs/scheduler.md). */
export interface Automation {
  _id: string;
  name: string;
  description: string;
  /** The workflow's name; null for an automation made through /operations-manager without a component. */
  workflow: string | null;
  /** The workflow's `_id` (the real product's `componentId`), when known. */
  componentId?: string | null;
  variables: Record<string, unknown>;
  groups: string[];
  /** When the next run is due (ISO 8601 UTC), or null. */
  nextRunAt: string | null;
  /** human-interval text that moves nextRunAt forward from each due time, or null. */
  repeatInterval: string | null;
  disabled: boolean;
  missedRuns: "once" | "skip";
  catchUpWindow: string | null;
  overlap: "allow" | "skip";
  lastRunAt: string | null;
  lastJobId: string | null;
  lastError: string | null;
  /** Answers only: the next 10 due times (derived, never stored). */
  preview?: string[];
  created: string;
  created_by: string;
  last_updated: string;
  last_updated_by: string;
}

/** One due time of an automation and what became of it (docs/scheduler.md#run-history). */
export interface AutomationRun {
  /** `<automation id>@<due time>`: one record per slot, inserted once (the exactly-once claim). */
  _id: string;
  automationId: string;
  dueAt: string;
  state: "claimed" | "started" | "skipped" | "failed";
  jobId: string | null;
  startedAt: string | null;
  reason: string | null;
  claimedBy: string;
  leaseUntil: number;
}

/** An automation as /operations-manager answers it: the real product's view of the same document. */
export interface OmAutomation {
  _id: string;
  name: string;
  description: string;
  componentType: "workflows";
  componentId: string | null;
  componentName: string | null;
  gbac: { read: string[]; write: string[] };
  created: string;
  createdBy: string;
  lastUpdated: string;
  lastUpdatedBy: string;
}

/** A trigger of an automation (docs/scheduler.md#triggers): what starts its jobs. */
export interface Trigger {
  _id: string;
  name: string;
  description: string;
  type: "manual" | "endpoint" | "schedule";
  enabled: boolean;
  actionType: "automations";
  /** The automation's `_id`. */
  actionId: string;
  /** Epoch ms of the last job this trigger started, or null. */
  lastExecuted: number | null;
  created: string;
  createdBy: string;
  lastUpdated: string;
  lastUpdatedBy: string;
  // endpoint
  verb?: "POST";
  routeName?: string;
  schema?: Record<string, unknown>;
  // manual
  formId?: string | null;
  formData?: Record<string, unknown>;
  legacyWrapper?: boolean;
  // schedule (live values read from the automation's schedule)
  firstRunAt?: number;
  repeatUnit?: string | null;
  repeatFrequency?: number | null;
  repeatInterval?: number | null;
  processMissedRuns?: "none" | "last";
  nextRunAt?: number | null;
}
