"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.configuration = exports.LEX_TOKENS = void 0;
/**
 * configuration: config parsers, golden config trees, backups and compliance (spec operations 6, 9,
 * 11 and the supporting routes of DECISIONS.md section 6; docs/configuration-manager.md). Spec lines
 * are free-form in depth, so their schema bounds size and count here and the service checks each
 * line (services/configuration/spec-model.ts), naming the bad field in a 400.
 */
const define_1 = require("./define");
const schema_1 = require("./schema");
const resources_1 = require("./resources");
const name = schema_1.pathName;
const versionName = {
    type: "string",
    min: 1,
    max: 128,
    pattern: /^[^/]+$/,
    messages: { stringPattern: "The '{field}' field must not contain '/'." },
};
/** `base`, `base/dc1`, `base/dc1/rtr`: segments of letters, digits and `_ . -`, under the root `base`. */
const nodePath = {
    type: "string",
    min: 1,
    max: 1024,
    pattern: /^base(\/[A-Za-z0-9_.-]{1,128}){0,31}$/,
    messages: {
        stringPattern: "The '{field}' field must be a slash path under 'base' (base, base/dc1, base/dc1/rtr).",
    },
};
const deviceName = { type: "string", min: 1, max: 256, pattern: /^\S+$/ };
const deviceList = { type: "array", items: deviceName, max: 10_000, optional: true };
/** The lexer tokens a rule can name (docs/configuration-manager.md#parsers). */
exports.LEX_TOKENS = ["comment", "word", "end_line", "whitespace", "block_start", "block_end"];
/** `[regex, token]` pairs; the token is checked against LEX_TOKENS by the service (a field error names it). */
const lexRules = {
    type: "array",
    max: 100,
    optional: true,
    items: { type: "array", length: 2, items: { type: "string", min: 1, max: 512 } },
};
/** JSON spec lines; each is checked in depth by the service. */
const specLines = { type: "array", items: { type: "object" }, max: 10_000, optional: true };
const variables = { type: "object", optional: true };
const parserRecordSchema = (0, schema_1.named)("ParserRecord", (0, schema_1.shape)({
    _id: schema_1.str,
    name: schema_1.str,
    template: (0, schema_1.nullable)(schema_1.str),
    lexRules: (0, schema_1.arrayOf)((0, schema_1.arrayOf)(schema_1.str)),
    builtIn: schema_1.bool,
    /** How lines nest: `indent` (IOS family) or `braces` (Junos), from the built-in at the root of its templates. */
    style: (0, schema_1.oneOf)("indent", "braces"),
    created: schema_1.str,
    lastUpdated: schema_1.str,
}));
const goldenConfigTreeProps = {
    _id: schema_1.str,
    name: schema_1.str,
    deviceType: schema_1.str,
    parser: schema_1.str,
    description: schema_1.str,
    versions: (0, schema_1.arrayOf)(schema_1.str),
    created: schema_1.str,
    lastUpdated: schema_1.str,
};
const goldenConfigTreeSchema = (0, schema_1.named)("GoldenConfigTree", (0, schema_1.shape)(goldenConfigTreeProps));
const treeNodeProps = {
    _id: schema_1.str,
    treeId: schema_1.str,
    version: schema_1.str,
    path: schema_1.str,
    spec: (0, schema_1.arrayOf)(schema_1.anyObj),
    variables: (0, schema_1.recordOf)(schema_1.str),
    devices: (0, schema_1.arrayOf)(schema_1.str),
    created: schema_1.str,
    lastUpdated: schema_1.str,
};
const backupProps = {
    _id: schema_1.str,
    deviceName: schema_1.str,
    description: schema_1.str,
    config: schema_1.str,
    timestamp: schema_1.str,
};
const backupSchema = (0, schema_1.shape)(backupProps);
const complianceState = (0, schema_1.oneOf)("queued", "running", "complete", "error");
const totals = (0, schema_1.shape)({ errors: schema_1.integer, warnings: schema_1.integer, infos: schema_1.integer, passes: schema_1.integer });
const complianceBatchProps = {
    _id: schema_1.str,
    treeId: schema_1.str,
    version: schema_1.str,
    nodePath: schema_1.str,
    state: complianceState,
    done: schema_1.integer,
    totals,
    created: schema_1.str,
    finished: (0, schema_1.nullable)(schema_1.str),
    error: (0, schema_1.nullable)(schema_1.str),
};
const reportProps = {
    backupId: schema_1.str,
    score: schema_1.num,
    compliant: schema_1.bool,
    issues: (0, schema_1.arrayOf)(schema_1.anyObj),
    remediation: schema_1.str,
};
const complianceReportSchema = (0, schema_1.named)("ComplianceReport", (0, schema_1.shape)({ ...resources_1.complianceHistoryEntryProps, ...reportProps }));
const exportNode = (0, schema_1.shape)({
    version: schema_1.str,
    path: schema_1.str,
    spec: (0, schema_1.arrayOf)(schema_1.anyObj),
    variables: (0, schema_1.recordOf)(schema_1.str),
    devices: (0, schema_1.arrayOf)(schema_1.str),
});
/** An export entry as import takes it back: the spec's members, the parser and every node. */
const treeExportEntrySchema = (0, schema_1.shape)({
    ...resources_1.goldenConfigExportEntrySchema.props,
    parser: (0, schema_1.optional)(schema_1.str),
    description: (0, schema_1.optional)(schema_1.str),
    nodes: (0, schema_1.optional)((0, schema_1.arrayOf)(exportNode)),
});
const complianceTask = {
    summary: "Check a device's latest backup against a golden config node",
    description: "Evaluates the device's latest backup (or the given backup) against the effective config spec of a node " +
        "of a golden config tree version, and answers the report: compliant, totals, score, issues and the " +
        "remediation text. Nothing is stored and nothing is pushed to the device.",
    displayName: "Check compliance",
    location: "Application",
    variables: {
        incoming: {
            treeId: { type: "string" },
            version: { type: "string" },
            nodePath: { type: "string" },
            deviceName: { type: "string" },
            backupId: { type: "string" },
        },
        outgoing: {
            compliant: { type: "boolean" },
            totals: { type: "object" },
            score: { type: "number" },
            issues: { type: "array" },
            remediation: { type: "string" },
        },
    },
};
const parserMembers = { template: { type: "string", min: 1, max: 256, optional: true }, lexRules };
exports.configuration = (0, define_1.defineService)("configuration", {
    listParsers: {
        params: {
            options: {
                type: "object",
                strict: "remove",
                default: {},
                props: {
                    start: (0, schema_1.int)(0),
                    limit: (0, schema_1.int)(1),
                    regex: { type: "boolean", optional: true },
                    filter: {
                        type: "object",
                        optional: true,
                        strict: "remove",
                        props: { name: { type: "string", max: 512, optional: true } },
                    },
                    sort: {
                        type: "object",
                        optional: true,
                        strict: "remove",
                        props: { name: schema_1.sortOrder, date: schema_1.sortOrder },
                    },
                },
            },
        },
        result: (0, schema_1.returnsAs)((0, schema_1.arrayOf)(parserRecordSchema)),
        http: {
            method: "GET",
            path: "/configuration_manager/configurations/parser",
            access: ["admin", "apiread"],
            spec: 6,
            objectParam: "options",
            summary: "List config parsers",
        },
    },
    createParser: {
        params: { name, description: { type: "string", max: 4096, optional: true }, ...parserMembers },
        result: (0, schema_1.returnsAs)(parserRecordSchema),
        http: {
            method: "POST",
            path: "/configuration_manager/configurations/parser",
            access: define_1.SUPPORT_WRITE,
            summary: "Create a config parser (extends a template parser with lex rules)",
        },
    },
    getParser: {
        params: { name },
        result: (0, schema_1.returnsAs)(parserRecordSchema),
        http: {
            method: "GET",
            path: "/configuration_manager/configurations/parser/:name",
            access: define_1.SUPPORT_READ,
            summary: "Read a config parser",
        },
    },
    updateParser: {
        params: { name, ...parserMembers },
        result: (0, schema_1.returnsAs)(parserRecordSchema),
        http: {
            method: "PUT",
            path: "/configuration_manager/configurations/parser/:name",
            access: define_1.SUPPORT_WRITE,
            summary: "Change a config parser's template or lex rules (built-in parsers are read-only)",
        },
    },
    deleteParser: {
        params: { name },
        result: (0, schema_1.returns)(resources_1.messageSchema),
        http: {
            method: "DELETE",
            path: "/configuration_manager/configurations/parser/:name",
            access: define_1.SUPPORT_WRITE,
            summary: "Delete a config parser (not a built-in, not one a tree or parser uses)",
        },
    },
    exportGoldenConfig: {
        params: { treeId: schema_1.objectId },
        result: (0, schema_1.returns)((0, schema_1.shape)({ status: schema_1.str, message: (0, schema_1.optional)(schema_1.str), data: (0, schema_1.arrayOf)(treeExportEntrySchema) })),
        http: {
            method: "POST",
            path: "/configuration_manager/export/goldenconfigs",
            access: ["admin", "apiwrite"],
            spec: 9,
            summary: "Export a golden config tree",
        },
    },
    importGoldenConfig: {
        params: {
            data: { type: "array", min: 1, max: 20, items: { type: "object" } },
        },
        result: (0, schema_1.returns)((0, resources_1.statusResult)((0, schema_1.arrayOf)(treeExportEntrySchema))),
        http: {
            method: "POST",
            path: "/configuration_manager/import/goldenconfigs",
            access: define_1.SUPPORT_WRITE,
            summary: "Import golden config trees from an export (new ids; a taken name answers 409)",
        },
    },
    createTree: {
        params: {
            name,
            deviceType: { type: "string", min: 1, max: 128 },
            parser: { type: "string", min: 1, max: 256, optional: true },
            description: { type: "string", max: 4096, optional: true },
        },
        result: (0, schema_1.returns)(goldenConfigTreeSchema),
        http: {
            method: "POST",
            path: "/configuration_manager/configs",
            access: define_1.SUPPORT_WRITE,
            summary: "Create a golden config tree (version 'initial' with its root node 'base')",
        },
    },
    listTrees: {
        params: { skip: (0, schema_1.int)(0), limit: (0, schema_1.int)(1) },
        result: (0, schema_1.returns)((0, schema_1.arrayOf)(goldenConfigTreeSchema)),
        http: {
            method: "GET",
            path: "/configuration_manager/configs",
            access: define_1.SUPPORT_READ,
            summary: "List golden config trees",
        },
    },
    getTree: {
        params: { treeId: schema_1.objectId },
        result: (0, schema_1.returns)((0, schema_1.shape)({
            ...goldenConfigTreeProps,
            nodes: (0, schema_1.recordOf)((0, schema_1.arrayOf)((0, schema_1.shape)({ path: schema_1.str, devices: (0, schema_1.arrayOf)(schema_1.str) }))),
        })),
        http: {
            method: "GET",
            path: "/configuration_manager/configs/:treeId",
            access: define_1.SUPPORT_READ,
            summary: "Read a golden config tree, with each version's node paths and devices",
        },
    },
    deleteTree: {
        params: { treeId: schema_1.objectId },
        result: (0, schema_1.returns)(resources_1.messageSchema),
        http: {
            method: "DELETE",
            path: "/configuration_manager/configs/:treeId",
            access: define_1.SUPPORT_WRITE,
            summary: "Delete a golden config tree, its versions and nodes",
        },
    },
    createVersion: {
        params: { treeId: schema_1.objectId, version: versionName, base: { ...versionName, optional: true } },
        result: (0, schema_1.returns)(goldenConfigTreeSchema),
        http: {
            method: "POST",
            path: "/configuration_manager/configs/:treeId/versions",
            access: define_1.SUPPORT_WRITE,
            summary: "Add a version to a tree, cloned from a base version (default: the latest)",
        },
    },
    setNode: {
        params: {
            treeId: schema_1.objectId,
            version: versionName,
            nodePath,
            config: { type: "string", max: 1_000_000, optional: true },
            spec: specLines,
            variables,
            devices: deviceList,
        },
        result: (0, schema_1.returns)((0, schema_1.shape)({ ...treeNodeProps, config: schema_1.str })),
        http: {
            method: "PUT",
            path: "/configuration_manager/configs/:treeId/versions/:version/nodes",
            access: define_1.SUPPORT_WRITE,
            summary: "Create or replace a node: its config spec (text `config` or JSON `spec`), variables and devices",
        },
    },
    getNode: {
        params: { treeId: schema_1.objectId, version: versionName, nodePath },
        result: (0, schema_1.returns)((0, schema_1.shape)({
            ...treeNodeProps,
            config: schema_1.str,
            effective: (0, schema_1.shape)({ spec: (0, schema_1.arrayOf)(schema_1.anyObj), config: schema_1.str, variables: (0, schema_1.recordOf)(schema_1.str) }),
        })),
        http: {
            method: "GET",
            path: "/configuration_manager/configs/:treeId/versions/:version/node",
            access: define_1.SUPPORT_READ,
            summary: "Read a node with its effective spec (its ancestors' specs and variables merged in)",
        },
    },
    deleteNode: {
        params: { treeId: schema_1.objectId, version: versionName, nodePath },
        result: (0, schema_1.returns)(resources_1.messageSchema),
        http: {
            method: "DELETE",
            path: "/configuration_manager/configs/:treeId/versions/:version/node",
            access: define_1.SUPPORT_WRITE,
            summary: "Delete a node and the nodes under it (not the root)",
        },
    },
    createBackup: {
        params: {
            deviceName,
            config: { type: "string", min: 1, max: 1_000_000 },
            description: { type: "string", max: 4096, optional: true },
        },
        result: (0, schema_1.returns)((0, schema_1.shape)({
            _id: schema_1.str,
            deviceName: schema_1.str,
            description: schema_1.str,
            timestamp: schema_1.str,
            lines: schema_1.integer,
        })),
        http: {
            method: "POST",
            path: "/configuration_manager/backups",
            access: define_1.SUPPORT_WRITE,
            summary: "Store a device's config text as a backup",
        },
        task: {
            summary: "Store a device's config text as a backup",
            description: "Stores `config` as the latest backup of `deviceName`, so a later compliance check reads it. The " +
                "outgoing value is the stored backup's id and line count.",
            displayName: "Back up a config",
            location: "Application",
            variables: {
                incoming: {
                    deviceName: { type: "string" },
                    config: { type: "string" },
                    description: { type: "string" },
                },
                outgoing: { _id: { type: "string" }, lines: { type: "number" } },
            },
        },
    },
    getBackup: {
        params: { id: schema_1.objectId },
        result: (0, schema_1.returns)(backupSchema),
        http: {
            method: "GET",
            path: "/configuration_manager/backups/:id",
            access: define_1.SUPPORT_READ,
            summary: "Read a backup",
        },
    },
    runCompliance: {
        params: {
            treeId: schema_1.objectId,
            version: versionName,
            nodePath: { ...nodePath, optional: true },
            devices: deviceList,
            backups: { type: "array", items: schema_1.objectId, max: 10_000, optional: true },
        },
        result: (0, schema_1.returns)((0, schema_1.shape)({ batchId: schema_1.str, devices: schema_1.integer })),
        http: {
            method: "POST",
            path: "/configuration_manager/compliance_reports",
            access: define_1.SUPPORT_WRITE,
            summary: "Check devices against a tree version's node as a background batch; answers the batch id",
        },
    },
    getBatch: {
        params: { batchId: schema_1.objectId },
        result: (0, schema_1.returns)((0, schema_1.shape)({ ...complianceBatchProps, devices: schema_1.integer })),
        http: {
            method: "GET",
            path: "/configuration_manager/compliance_reports/batches/:batchId",
            access: define_1.SUPPORT_READ,
            summary: "A compliance batch: state, progress and totals",
        },
    },
    listBatchReports: {
        params: { batchId: schema_1.objectId, skip: (0, schema_1.int)(0), limit: (0, schema_1.int)(1) },
        result: (0, schema_1.returns)((0, schema_1.arrayOf)(complianceReportSchema)),
        http: {
            method: "GET",
            path: "/configuration_manager/compliance_reports/batches/:batchId/reports",
            access: define_1.SUPPORT_READ,
            summary: "The device reports of a batch (issues and remediation included), by device name",
        },
    },
    getReport: {
        params: { id: schema_1.objectId },
        result: (0, schema_1.returns)(complianceReportSchema),
        http: {
            method: "GET",
            path: "/configuration_manager/compliance_reports/:id",
            access: define_1.SUPPORT_READ,
            summary: "One device's compliance report: totals, score, issues and remediation",
        },
    },
    complianceHistory: {
        params: {
            options: {
                type: "object",
                strict: "remove",
                props: {
                    treeId: schema_1.optionalObjectId,
                    version: { ...versionName, optional: true },
                    nodePath: { ...nodePath, optional: true },
                    devices: { ...deviceList, max: 1000 },
                    backups: { type: "array", items: schema_1.objectId, max: 1000, optional: true },
                    limit: (0, schema_1.int)(1),
                },
            },
        },
        result: (0, schema_1.returns)((0, schema_1.arrayOf)(resources_1.complianceHistoryEntrySchema)),
        http: {
            method: "POST",
            path: "/configuration_manager/compliance_reports/history/backups",
            access: ["admin", "apiread"],
            spec: 11,
            summary: "Compliance report totals for backups, newest first",
        },
    },
    checkCompliance: {
        params: {
            treeId: schema_1.objectId,
            version: versionName,
            nodePath,
            deviceName,
            backupId: schema_1.optionalObjectId,
        },
        result: (0, schema_1.returns)((0, schema_1.shape)({
            deviceName: schema_1.str,
            backupId: schema_1.str,
            totals,
            score: schema_1.num,
            compliant: schema_1.bool,
            issues: (0, schema_1.arrayOf)(schema_1.anyObj),
            remediation: schema_1.str,
        })),
        description: "One device checked at once (a workflow task); nothing is stored.",
        task: complianceTask,
    },
    remediate: {
        params: {
            treeId: schema_1.objectId,
            version: versionName,
            nodePath,
            deviceName,
            backupId: schema_1.optionalObjectId,
        },
        result: (0, schema_1.returns)((0, schema_1.shape)({ deviceName: schema_1.str, backupId: schema_1.str, compliant: schema_1.bool, remediation: schema_1.str })),
        description: "The commands that would bring one device to compliance (a workflow task); nothing is pushed.",
        task: {
            summary: "The config lines that would bring a device to compliance",
            description: "Checks the device's latest backup (or the given backup) against a node's effective spec, as 'Check " +
                "compliance' does, and answers only whether it complies and the remediation text: missing lines added " +
                "under their parents, disallowed lines negated, strict-order blocks rewritten. Text to review: nothing " +
                "is pushed to the device.",
            displayName: "Remediation",
            location: "Application",
            variables: {
                incoming: complianceTask.variables.incoming,
                outgoing: { compliant: { type: "boolean" }, remediation: { type: "string" } },
            },
        },
    },
    sweep: {
        params: {},
        result: (0, schema_1.returns)((0, schema_1.shape)({ batches: schema_1.integer })),
        description: "One pass of the batch worker: claims batches whose lease ran out and runs them. The timer calls it; tests call it.",
    },
});
//# sourceMappingURL=configuration.js.map