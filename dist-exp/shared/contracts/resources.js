"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.workflowExportSchema = exports.searchResultOf = exports.jobMetricsResultSchema = exports.jobOutputSchema = exports.jobControlResultSchema = exports.triggerSchema = exports.omAutomationSchema = exports.automationRunSchema = exports.automationSchema = exports.adapterHealthSchema = exports.adapterSchema = exports.catalogMeta = exports.resultsPage = exports.statusResult = exports.complianceHistoryEntrySchema = exports.complianceHistoryEntryProps = exports.goldenConfigExportEntrySchema = exports.deviceSchema = exports.searchResultGroupSchema = exports.taskMetricsResultSchema = exports.taskCatalogEntrySchema = exports.jobPageSchema = exports.workflowSchema = exports.jobSchema = exports.formListItemSchema = exports.formDocumentSchema = exports.messageSchema = exports.oauthTokenSchema = exports.serviceAccountCreatedSchema = exports.serviceAccountSchema = exports.whoAmISchema = exports.loginResultSchema = exports.callerSchema = exports.accountPageSchema = exports.accountSchema = exports.groupSchema = void 0;
/**
 * Result shapes of the actions (the spec's resource tables). Request shapes are not written here:
 * they are inferred from the params schemas in the contract files.
 */
const define_1 = require("./define");
const engine_documents_1 = require("./engine-documents");
const schema_1 = require("./schema");
// Each resource is a result schema (the Rule vocabulary of the params, shared/contracts/schema.ts)
// and its TypeScript type is inferred from it: what OpenAPI says and what the code returns are one.
const meta = (0, schema_1.shape)({ created: schema_1.str, updated: schema_1.str });
const role = (0, schema_1.oneOf)(...define_1.ROLES);
exports.groupSchema = (0, schema_1.named)("Group", (0, schema_1.shape)({
    _id: schema_1.str,
    provenance: schema_1.str,
    name: schema_1.str,
    description: schema_1.str,
    memberOf: (0, schema_1.arrayOf)(schema_1.str),
    assignedRoles: (0, schema_1.arrayOf)(role),
    inactive: schema_1.bool,
    _meta: meta,
}));
exports.accountSchema = (0, schema_1.named)("Account", (0, schema_1.shape)({
    _id: schema_1.str,
    provenance: schema_1.str,
    username: schema_1.str,
    firstname: schema_1.str,
    memberOf: (0, schema_1.arrayOf)((0, schema_1.shape)({ groupId: schema_1.str, aaaManaged: (0, schema_1.constant)(true) })),
    lastLogin: (0, schema_1.nullable)(schema_1.str),
    inactive: schema_1.bool,
    _meta: meta,
}));
exports.accountPageSchema = (0, schema_1.shape)({
    results: (0, schema_1.arrayOf)(exports.accountSchema),
    skip: schema_1.integer,
    limit: schema_1.integer,
    total: schema_1.integer,
});
/** What the gateway learns about a caller from a token or Basic credentials. */
exports.callerSchema = (0, schema_1.shape)({
    accountId: schema_1.str,
    username: schema_1.str,
    roles: (0, schema_1.arrayOf)(role),
    /** Ids of the caller's groups, transitive closure of memberOf included (group-based access). */
    groupIds: (0, schema_1.arrayOf)(schema_1.str),
    /** Session id (hash of the token); absent for Basic authentication. */
    sessionId: (0, schema_1.optional)(schema_1.str),
    /** Epoch ms when the session expires if left idle. */
    expiresAt: (0, schema_1.optional)(schema_1.num),
});
exports.loginResultSchema = (0, schema_1.shape)({ token: schema_1.str, expiresAt: schema_1.num });
exports.whoAmISchema = (0, schema_1.shape)({
    account: exports.accountSchema,
    roles: (0, schema_1.arrayOf)(role),
    groups: (0, schema_1.arrayOf)((0, schema_1.shape)({ _id: schema_1.str, name: schema_1.str })),
});
/** A service account (docs/platform-rules.md#service-accounts): a client of the API, not a person. */
exports.serviceAccountSchema = (0, schema_1.named)("ServiceAccount", (0, schema_1.shape)({
    _id: schema_1.str,
    /** The OAuth client id: the same 24-hex value as `_id`. */
    clientId: schema_1.str,
    name: schema_1.str,
    description: schema_1.str,
    memberOf: (0, schema_1.arrayOf)((0, schema_1.shape)({ groupId: schema_1.str, aaaManaged: (0, schema_1.constant)(true) })),
    inactive: schema_1.bool,
    createdBy: schema_1.str,
    _meta: meta,
}));
/** The create (and rotate) answer: the only time the secret is shown. */
exports.serviceAccountCreatedSchema = (0, schema_1.shape)({
    ...exports.serviceAccountSchema.props,
    clientSecret: schema_1.str,
});
/** POST /oauth/token's answer (RFC 6749 section 5.1). */
exports.oauthTokenSchema = (0, schema_1.shape)({
    access_token: schema_1.str,
    token_type: (0, schema_1.constant)("Bearer"),
    expires_in: schema_1.integer,
});
/** `{status, message}`: what deletes and other writes without a resource to answer say. */
exports.messageSchema = (0, schema_1.named)("Message", (0, schema_1.shape)({ status: schema_1.str, message: schema_1.str }));
/** A form as the form builder stores it: the spec's members, and the builder's own beside them. */
exports.formDocumentSchema = (0, schema_1.named)("Form", (0, schema_1.openShape)({
    _id: schema_1.str,
    name: schema_1.str,
    children: (0, schema_1.arrayOf)(schema_1.anyObj),
    elements: (0, schema_1.arrayOf)(schema_1.anyObj),
    groups: (0, schema_1.arrayOf)(schema_1.str),
    description: (0, schema_1.optional)(schema_1.str),
    tags: (0, schema_1.optional)((0, schema_1.arrayOf)(schema_1.str)),
    created: schema_1.str,
    created_by: schema_1.str,
    last_updated: schema_1.str,
    last_updated_by: schema_1.str,
}));
exports.formListItemSchema = (0, schema_1.shape)({
    _id: schema_1.str,
    id: schema_1.str,
    form_name: schema_1.str,
    formid: schema_1.str,
    name: schema_1.str,
    children: (0, schema_1.arrayOf)(schema_1.anyValue),
    elements: (0, schema_1.arrayOf)(schema_1.anyValue),
    created: schema_1.str,
    createdBy: schema_1.str,
    lastUpdated: schema_1.str,
    lastUpdatedBy: schema_1.str,
    groups: (0, schema_1.arrayOf)(exports.groupSchema),
    description: schema_1.str,
    /** Ids of the form's tags (search service). */
    tags: (0, schema_1.arrayOf)(schema_1.str),
});
/** `{from: {to: {state, type}}}`, keyed by task id (shared/contracts/engine-documents.ts). */
const transitionsSchema = (0, schema_1.recordOf)((0, schema_1.recordOf)((0, schema_1.shape)({
    state: (0, schema_1.oneOf)("success", "failure", "error", "loop"),
    type: (0, schema_1.oneOf)("standard", "revert", "loop"),
})));
/** A task as a workflow defines it; a task's own members beside these are kept. */
const workflowTaskProps = {
    name: schema_1.str,
    type: (0, schema_1.optional)((0, schema_1.oneOf)("automatic", "manual", "operation")),
    app: (0, schema_1.optional)(schema_1.str),
    summary: (0, schema_1.optional)(schema_1.str),
    description: (0, schema_1.optional)(schema_1.str),
    displayName: (0, schema_1.optional)(schema_1.str),
    variables: (0, schema_1.optional)(schema_1.anyObj),
    groups: (0, schema_1.optional)((0, schema_1.arrayOf)(schema_1.str)),
};
/** A task inside a job: the definition plus its run state. */
const jobTaskSchema = (0, schema_1.openShape)({
    ...workflowTaskProps,
    status: (0, schema_1.oneOf)(...engine_documents_1.TASK_STATUSES),
    finish_state: (0, schema_1.optional)((0, schema_1.oneOf)("success", "failure", "error")),
    start_time: (0, schema_1.optional)(schema_1.str),
    end_time: (0, schema_1.optional)(schema_1.num),
    outgoing: (0, schema_1.optional)(schema_1.anyObj),
});
/**
 * A job as the API answers it (docs/engine.md): the engine's document without its bookkeeping.
 * Open-ended: tasks and variables are free-form, and what a projection (`include`) keeps varies,
 * so only `_id`, `name` and `status` are always there.
 */
exports.jobSchema = (0, schema_1.named)("Job", (0, schema_1.openShape)({
    _id: schema_1.str,
    name: schema_1.str,
    status: (0, schema_1.oneOf)(...engine_documents_1.JOB_STATUSES),
    type: (0, schema_1.optional)(schema_1.str),
    description: (0, schema_1.optional)(schema_1.str),
    workflow: (0, schema_1.optional)((0, schema_1.shape)({ _id: schema_1.str, name: schema_1.str })),
    tasks: (0, schema_1.optional)((0, schema_1.recordOf)((0, schema_1.nullable)(jobTaskSchema))),
    transitions: (0, schema_1.optional)(transitionsSchema),
    variables: (0, schema_1.optional)((0, schema_1.recordOf)(schema_1.anyValue)),
    error: (0, schema_1.optional)((0, schema_1.arrayOf)(schema_1.anyObj)),
    errorHandler: (0, schema_1.optional)(schema_1.anyValue),
    decorators: (0, schema_1.optional)((0, schema_1.arrayOf)((0, schema_1.shape)({ type: schema_1.str, pointer: schema_1.str }))),
    groups: (0, schema_1.optional)((0, schema_1.arrayOf)(schema_1.str)),
    watchers: (0, schema_1.optional)((0, schema_1.arrayOf)(schema_1.str)),
    ancestors: (0, schema_1.optional)((0, schema_1.arrayOf)(schema_1.str)),
    parent: (0, schema_1.optional)(schema_1.anyValue),
    sla: (0, schema_1.optional)(schema_1.num),
    preAutomationTime: (0, schema_1.optional)(schema_1.num),
    /** start_time/end_time epoch ms; manual_time: ms spent in waiting manual tasks; progress 0-100. */
    metrics: (0, schema_1.optional)((0, schema_1.shape)({
        start_time: schema_1.num,
        end_time: (0, schema_1.nullable)(schema_1.num),
        progress: schema_1.num,
        user: schema_1.str,
        owner: schema_1.str,
        manual_time: schema_1.num,
    })),
    created: (0, schema_1.optional)(schema_1.str),
    created_by: (0, schema_1.optional)(schema_1.str),
    last_updated: (0, schema_1.optional)(schema_1.str),
    last_updated_by: (0, schema_1.optional)(schema_1.str),
    lastUpdatedVersion: (0, schema_1.optional)(schema_1.str),
    canvasVersion: (0, schema_1.optional)(schema_1.num),
    font_size: (0, schema_1.optional)(schema_1.num),
}));
/** A workflow definition (docs/engine.md): its tasks' own members are kept. */
exports.workflowSchema = (0, schema_1.named)("Workflow", (0, schema_1.openShape)({
    _id: schema_1.str,
    name: schema_1.str,
    description: (0, schema_1.optional)(schema_1.str),
    type: (0, schema_1.optional)(schema_1.str),
    tasks: (0, schema_1.optional)((0, schema_1.recordOf)((0, schema_1.openShape)(workflowTaskProps))),
    transitions: (0, schema_1.optional)(transitionsSchema),
    inputSchema: (0, schema_1.optional)(schema_1.anyObj),
    sla: (0, schema_1.optional)(schema_1.num),
    preAutomationTime: (0, schema_1.optional)(schema_1.num),
    decorators: (0, schema_1.optional)((0, schema_1.arrayOf)((0, schema_1.shape)({ type: (0, schema_1.constant)("encryption"), pointer: schema_1.str }))),
    groups: (0, schema_1.optional)((0, schema_1.arrayOf)(schema_1.str)),
    tags: (0, schema_1.optional)((0, schema_1.arrayOf)(schema_1.str)),
    created: (0, schema_1.optional)(schema_1.str),
    created_by: (0, schema_1.optional)(schema_1.str),
    last_updated: (0, schema_1.optional)(schema_1.str),
    last_updated_by: (0, schema_1.optional)(schema_1.str),
}));
exports.jobPageSchema = (0, schema_1.shape)({
    items: (0, schema_1.arrayOf)(exports.jobSchema),
    total: schema_1.integer,
    currentPageSize: schema_1.integer,
    hints: (0, schema_1.arrayOf)(schema_1.str),
    skip: schema_1.integer,
    limit: schema_1.integer,
    nextPageSkip: schema_1.integer,
    previousPageSkip: schema_1.integer,
});
const taskVariables = (0, schema_1.shape)({ incoming: schema_1.anyObj, outgoing: schema_1.anyObj });
exports.taskCatalogEntrySchema = (0, schema_1.shape)({
    name: schema_1.str,
    summary: schema_1.str,
    description: schema_1.str,
    app: schema_1.str,
    displayName: schema_1.str,
    location: (0, schema_1.oneOf)("Application", "Adapter", "Broker"),
    type: (0, schema_1.oneOf)("automatic", "manual", "operation"),
    variables: taskVariables,
    deprecated: schema_1.bool,
});
exports.taskMetricsResultSchema = (0, schema_1.shape)({
    results: (0, schema_1.arrayOf)((0, schema_1.shape)({
        _id: schema_1.str,
        workflow: (0, schema_1.shape)({ name: schema_1.str, _id: schema_1.str }),
        metrics: (0, schema_1.arrayOf)((0, schema_1.shape)({
            jobsComplete: schema_1.num,
            totalRunTime: schema_1.num,
            totalManualTime: schema_1.num,
            slaTargetsMissed: schema_1.num,
            startDate: schema_1.str,
        })),
        preAutomationTime: schema_1.num,
    })),
    skip: schema_1.integer,
    limit: schema_1.integer,
    total: schema_1.integer,
});
exports.searchResultGroupSchema = (0, schema_1.shape)({
    label: schema_1.str,
    type: schema_1.str,
    results: (0, schema_1.arrayOf)((0, schema_1.shape)({
        _id: schema_1.str,
        name: schema_1.str,
        description: schema_1.str,
        url: schema_1.str,
        tags: (0, schema_1.arrayOf)((0, schema_1.shape)({ _id: schema_1.str, name: schema_1.str, description: schema_1.str })),
    })),
    count: schema_1.integer,
});
exports.deviceSchema = (0, schema_1.named)("Device", (0, schema_1.shape)({
    name: schema_1.str,
    authgroup: schema_1.str,
    address: schema_1.str,
    host: schema_1.str,
    port: schema_1.str,
    "device-type": schema_1.str,
    ned: schema_1.str,
    admin: schema_1.bool,
    groups: (0, schema_1.arrayOf)(schema_1.str),
}));
exports.goldenConfigExportEntrySchema = (0, schema_1.shape)({
    id: schema_1.str,
    name: schema_1.str,
    deviceType: schema_1.str,
    versions: (0, schema_1.arrayOf)(schema_1.str),
    created: schema_1.str,
    lastUpdated: schema_1.str,
});
const totals = (0, schema_1.shape)({ errors: schema_1.integer, warnings: schema_1.integer, infos: schema_1.integer, passes: schema_1.integer });
exports.complianceHistoryEntryProps = {
    id: schema_1.str,
    batchId: schema_1.str,
    treeId: schema_1.str,
    version: schema_1.str,
    nodePath: schema_1.str,
    deviceName: schema_1.str,
    timestamp: schema_1.str,
    totals,
};
exports.complianceHistoryEntrySchema = (0, schema_1.shape)(exports.complianceHistoryEntryProps);
/** `{status, message, data}` around a resource (the real product's answer to creates and lifecycle changes). */
const statusResult = (data) => (0, schema_1.shape)({ status: schema_1.str, message: schema_1.str, data });
exports.statusResult = statusResult;
/** `{results, total}`: the real product's health reads (shared/health-query.ts). */
const resultsPage = (item) => (0, schema_1.shape)({ results: (0, schema_1.arrayOf)(item), total: schema_1.integer });
exports.resultsPage = resultsPage;
/** Who made a catalog document and when (adapters, repository configurations, profiles). */
exports.catalogMeta = (0, schema_1.openShape)({ created: schema_1.str, updated: schema_1.str, createdBy: (0, schema_1.optional)(schema_1.str) });
/** An adapter instance (docs/catalog.md); credential members of its settings are sealed (`enc:v1:...`). */
exports.adapterSchema = (0, schema_1.named)("Adapter", (0, schema_1.openShape)({
    _id: (0, schema_1.optional)(schema_1.str),
    name: schema_1.str,
    type: schema_1.str,
    description: (0, schema_1.optional)(schema_1.str),
    tags: (0, schema_1.optional)((0, schema_1.arrayOf)(schema_1.str)),
    properties: (0, schema_1.optional)((0, schema_1.openShape)({
        id: schema_1.str,
        type: schema_1.str,
        properties: (0, schema_1.optional)(schema_1.anyObj),
        brokers: (0, schema_1.optional)((0, schema_1.arrayOf)(schema_1.str)),
        groups: (0, schema_1.optional)((0, schema_1.arrayOf)(schema_1.str)),
    })),
    loggerProps: (0, schema_1.optional)(schema_1.anyObj),
    isEncrypted: (0, schema_1.optional)(schema_1.bool),
    model: (0, schema_1.optional)(schema_1.str),
    _meta: (0, schema_1.optional)(exports.catalogMeta),
    profiling: schema_1.bool,
    virtual: schema_1.bool,
    /** GET /adapters/:name: its lifecycle and connection state (see AdapterHealth). */
    state: (0, schema_1.optional)(schema_1.str),
    connection: (0, schema_1.optional)(schema_1.anyObj),
}));
/**
 * An adapter's health, in the real product's shape (`GET /health/adapters`): `state` is the
 * lifecycle (RUNNING, STOPPED, DEAD when its checks keep failing), `connection.state` what the last
 * check found (ONLINE, OFFLINE, or NOT_CHECKED where the adapter type has nothing to check; then
 * `connection.reason` says why). docs/orchestrator.md#health.
 */
exports.adapterHealthSchema = (0, schema_1.named)("AdapterHealth", (0, schema_1.shape)({
    id: schema_1.str,
    package_id: schema_1.str,
    type: schema_1.str,
    state: (0, schema_1.oneOf)("RUNNING", "STOPPED", "DEAD"),
    connection: (0, schema_1.shape)({
        state: (0, schema_1.oneOf)("ONLINE", "OFFLINE", "NOT_CHECKED"),
        reason: (0, schema_1.optional)(schema_1.str),
        lastCheck: (0, schema_1.optional)((0, schema_1.nullable)(schema_1.str)),
        lastSuccess: (0, schema_1.optional)((0, schema_1.nullable)(schema_1.str)),
        lastError: (0, schema_1.optional)((0, schema_1.nullable)(schema_1.str)),
        latencyMs: (0, schema_1.optional)((0, schema_1.nullable)(schema_1.num)),
        failures: (0, schema_1.optional)(schema_1.integer),
    }),
}));
/** An automation: a workflow to run, with its schedule and what its runs did (docs/scheduler.md). */
exports.automationSchema = (0, schema_1.named)("Automation", (0, schema_1.shape)({
    _id: schema_1.str,
    name: schema_1.str,
    description: schema_1.str,
    /** The workflow's name; null for an automation made through /operations-manager without a component. */
    workflow: (0, schema_1.nullable)(schema_1.str),
    /** The workflow's `_id` (the real product's `componentId`), when known. */
    componentId: (0, schema_1.optional)((0, schema_1.nullable)(schema_1.str)),
    variables: (0, schema_1.recordOf)(schema_1.anyValue),
    groups: (0, schema_1.arrayOf)(schema_1.str),
    /** When the next run is due (ISO 8601 UTC), or null. */
    nextRunAt: (0, schema_1.nullable)(schema_1.str),
    /** human-interval text that moves nextRunAt forward from each due time, or null. */
    repeatInterval: (0, schema_1.nullable)(schema_1.str),
    disabled: schema_1.bool,
    missedRuns: (0, schema_1.oneOf)("once", "skip"),
    catchUpWindow: (0, schema_1.nullable)(schema_1.str),
    overlap: (0, schema_1.oneOf)("allow", "skip"),
    lastRunAt: (0, schema_1.nullable)(schema_1.str),
    lastJobId: (0, schema_1.nullable)(schema_1.str),
    lastError: (0, schema_1.nullable)(schema_1.str),
    /** Answers only: the next 10 due times (derived, never stored). */
    preview: (0, schema_1.optional)((0, schema_1.arrayOf)(schema_1.str)),
    created: schema_1.str,
    created_by: schema_1.str,
    last_updated: schema_1.str,
    last_updated_by: schema_1.str,
}));
/** One due time of an automation and what became of it (docs/scheduler.md#run-history). */
exports.automationRunSchema = (0, schema_1.shape)({
    /** `<automation id>@<due time>`: one record per slot, inserted once (the exactly-once claim). */
    _id: schema_1.str,
    automationId: schema_1.str,
    dueAt: schema_1.str,
    state: (0, schema_1.oneOf)("claimed", "started", "skipped", "failed"),
    jobId: (0, schema_1.nullable)(schema_1.str),
    startedAt: (0, schema_1.nullable)(schema_1.str),
    reason: (0, schema_1.nullable)(schema_1.str),
    claimedBy: schema_1.str,
    leaseUntil: schema_1.num,
});
/** An automation as /operations-manager answers it: the real product's view of the same document. */
exports.omAutomationSchema = (0, schema_1.named)("OmAutomation", (0, schema_1.shape)({
    _id: schema_1.str,
    name: schema_1.str,
    description: schema_1.str,
    componentType: (0, schema_1.constant)("workflows"),
    componentId: (0, schema_1.nullable)(schema_1.str),
    componentName: (0, schema_1.nullable)(schema_1.str),
    gbac: (0, schema_1.shape)({ read: (0, schema_1.arrayOf)(schema_1.str), write: (0, schema_1.arrayOf)(schema_1.str) }),
    created: schema_1.str,
    createdBy: schema_1.str,
    lastUpdated: schema_1.str,
    lastUpdatedBy: schema_1.str,
}));
/** A trigger of an automation (docs/scheduler.md#triggers): what starts its jobs. */
exports.triggerSchema = (0, schema_1.named)("Trigger", (0, schema_1.shape)({
    _id: schema_1.str,
    name: schema_1.str,
    description: schema_1.str,
    type: (0, schema_1.oneOf)("manual", "endpoint", "schedule"),
    enabled: schema_1.bool,
    actionType: (0, schema_1.constant)("automations"),
    /** The automation's `_id`. */
    actionId: schema_1.str,
    /** Epoch ms of the last job this trigger started, or null. */
    lastExecuted: (0, schema_1.nullable)(schema_1.num),
    created: schema_1.str,
    createdBy: schema_1.str,
    lastUpdated: schema_1.str,
    lastUpdatedBy: schema_1.str,
    // endpoint
    verb: (0, schema_1.optional)((0, schema_1.constant)("POST")),
    routeName: (0, schema_1.optional)(schema_1.str),
    schema: (0, schema_1.optional)((0, schema_1.recordOf)(schema_1.anyValue)),
    // manual
    formId: (0, schema_1.optional)((0, schema_1.nullable)(schema_1.str)),
    formData: (0, schema_1.optional)((0, schema_1.recordOf)(schema_1.anyValue)),
    legacyWrapper: (0, schema_1.optional)(schema_1.bool),
    // schedule (live values read from the automation's schedule)
    firstRunAt: (0, schema_1.optional)(schema_1.num),
    repeatUnit: (0, schema_1.optional)((0, schema_1.nullable)(schema_1.str)),
    repeatFrequency: (0, schema_1.optional)((0, schema_1.nullable)(schema_1.num)),
    repeatInterval: (0, schema_1.optional)((0, schema_1.nullable)(schema_1.num)),
    processMissedRuns: (0, schema_1.optional)((0, schema_1.oneOf)("none", "last")),
    nextRunAt: (0, schema_1.optional)((0, schema_1.nullable)(schema_1.num)),
}));
// ------------------------------------------------- the real product's job and workflow reads
/** Pause, resume or cancel by `{jobIds}`: the jobs changed, and why the others were not. */
exports.jobControlResultSchema = (0, schema_1.shape)({
    message: schema_1.str,
    data: (0, schema_1.arrayOf)(exports.jobSchema),
    metadata: (0, schema_1.shape)({
        changed: schema_1.integer,
        failed: (0, schema_1.arrayOf)((0, schema_1.shape)({ jobId: schema_1.str, code: schema_1.integer, message: schema_1.str })),
    }),
});
/** GET /workflow_engine/job/:id/output. */
exports.jobOutputSchema = (0, schema_1.shape)({
    _id: schema_1.str,
    name: schema_1.str,
    status: schema_1.str,
    variables: schema_1.anyObj,
    tasks: (0, schema_1.recordOf)((0, schema_1.shape)({
        name: schema_1.str,
        summary: (0, schema_1.optional)(schema_1.str),
        status: schema_1.str,
        finish_state: (0, schema_1.optional)((0, schema_1.nullable)(schema_1.str)),
        outgoing: (0, schema_1.nullable)(schema_1.anyValue),
    })),
});
/** GET /workflow_engine/jobs/metrics: per workflow, its jobs by status and the run time of the complete ones. */
exports.jobMetricsResultSchema = (0, schema_1.shape)({
    results: (0, schema_1.arrayOf)((0, schema_1.shape)({
        _id: schema_1.str,
        workflow: (0, schema_1.shape)({ _id: schema_1.str, name: schema_1.str }),
        metrics: (0, schema_1.shape)({
            total: schema_1.integer,
            running: schema_1.integer,
            paused: schema_1.integer,
            complete: schema_1.integer,
            error: schema_1.integer,
            canceled: schema_1.integer,
            /** Of complete jobs, end - start (ms): the sum and the mean (null without one). */
            totalRunTime: schema_1.num,
            averageRunTime: (0, schema_1.nullable)(schema_1.num),
        }),
    })),
    skip: schema_1.integer,
    limit: schema_1.integer,
    total: schema_1.integer,
});
/** The real product's search answer (`/workflow_engine/jobs/search`, `/workflows/search`). */
const searchResultOf = (item) => (0, schema_1.shape)({ results: (0, schema_1.arrayOf)(item), total: schema_1.integer, limit: schema_1.integer, skip: schema_1.integer });
exports.searchResultOf = searchResultOf;
/** A workflow as exported: its definition, without this platform's identity and history. */
exports.workflowExportSchema = (0, schema_1.openShape)({ name: schema_1.str, tasks: schema_1.anyObj, transitions: schema_1.anyObj });
//# sourceMappingURL=resources.js.map