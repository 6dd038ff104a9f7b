/**
 * configuration: config parsers, golden config trees, backups and compliance (spec operations 6, 9,
 * 11 and the supporting routes of DECISIONS.md section 6; docs/configuration-manager.md). Spec lines
 * are free-form in depth, so their schema bounds size and count here and the service checks each
 * line (services/configuration/spec-model.ts), naming the bad field in a 400.
 */
import { defineService, SUPPORT_READ, SUPPORT_WRITE } from "./define";
import {
  anyObj,
  arrayOf,
  bool,
  int,
  integer,
  named,
  nullable,
  num,
  objectId,
  oneOf,
  optional,
  optionalObjectId,
  pathName,
  recordOf,
  returns,
  returnsAs,
  shape,
  sortOrder,
  str,
  type InferRule,
  type Rule,
} from "./schema";
import {
  complianceHistoryEntryProps,
  complianceHistoryEntrySchema,
  goldenConfigExportEntrySchema,
  messageSchema,
  statusResult,
} from "./resources";

const name = pathName;
const versionName = {
  type: "string",
  min: 1,
  max: 128,
  pattern: /^[^/]+$/,
  messages: { stringPattern: "The '{field}' field must not contain '/'." },
} as const;
/** `base`, `base/dc1`, `base/dc1/rtr`: segments of letters, digits and `_ . -`, under the root `base`. */
const nodePath = {
  type: "string",
  min: 1,
  max: 1024,
  pattern: /^base(\/[A-Za-z0-9_.-]{1,128}){0,31}$/,
  messages: {
    stringPattern: "The '{field}' field must be a slash path under 'base' (base, base/dc1, base/dc1/rtr).",
  },
} as const;
const deviceName = { type: "string", min: 1, max: 256, pattern: /^\S+$/ } as const;
const deviceList = { type: "array", items: deviceName, max: 10_000, optional: true } as const;
/** The lexer tokens a rule can name (docs/configuration-manager.md#parsers). */
export const LEX_TOKENS = ["comment", "word", "end_line", "whitespace", "block_start", "block_end"] as const;
/** `[regex, token]` pairs; the token is checked against LEX_TOKENS by the service (a field error names it). */
const lexRules = {
  type: "array",
  max: 100,
  optional: true,
  items: { type: "array", length: 2, items: { type: "string", min: 1, max: 512 } },
} as const;
/** JSON spec lines; each is checked in depth by the service. */
const specLines = { type: "array", items: { type: "object" }, max: 10_000, optional: true } as const;
const variables = { type: "object", optional: true } as const;

/**
 * Every object answered with its `_id` also carries it as `id` (docs/compatibility.md#the-id-member):
 * the spec's export and history entries name an object's id `id`, and the real product's clients
 * read `id`. Stored documents have `_id` only; the answer schemas add `id`.
 */
const parserRecordSchema = named(
  "ParserRecord",
  shape({
    id: str,
    _id: str,
    name: str,
    template: nullable(str),
    lexRules: arrayOf(arrayOf(str)),
    builtIn: bool,
    /** How lines nest: `indent` (IOS family) or `braces` (Junos), from the built-in at the root of its templates. */
    style: oneOf("indent", "braces"),
    created: str,
    lastUpdated: str,
  }),
);
/** A parser as stored (the answer without its `id`). */
export type ParserRecord = Omit<InferRule<typeof parserRecordSchema>, "id" | "lexRules"> & {
  lexRules: [string, string][];
};
export type ParserAnswer = ParserRecord & { id: string };

const goldenConfigTreeProps = {
  _id: str,
  name: str,
  deviceType: str,
  parser: str,
  description: str,
  versions: arrayOf(str),
  created: str,
  lastUpdated: str,
} as const;
/**
 * A tree as answered: the stored tree with `id` beside `_id`, as the spec's export entry names it
 * and the real product's clients read it (itential-mcp's create reads `res.json()["id"]`).
 */
const treeAnswerProps = { id: str, ...goldenConfigTreeProps } as const;
const treeAnswerSchema = named("GoldenConfigTree", shape(treeAnswerProps));
/** A tree as stored (the answer without its `id`). */
export type GoldenConfigTree = Omit<InferRule<typeof treeAnswerSchema>, "id">;

const treeNodeProps = {
  _id: str,
  treeId: str,
  version: str,
  path: str,
  spec: arrayOf(anyObj),
  variables: recordOf(str),
  devices: arrayOf(str),
  created: str,
  lastUpdated: str,
} as const;
export type TreeNode = InferRule<ReturnType<typeof shape<typeof treeNodeProps>>>;

const backupProps = {
  _id: str,
  deviceName: str,
  description: str,
  config: str,
  timestamp: str,
} as const;
const backupSchema = shape({ id: str, ...backupProps });
/** A backup as stored (the answer without its `id`). */
export type Backup = Omit<InferRule<typeof backupSchema>, "id">;
/** A backup as its list answers it: everything but the config text (`GET .../backups/:id` has it). */
const { config: _configText, ...backupSummaryProps } = backupProps;
const backupSummarySchema = named("BackupSummary", shape({ id: str, ...backupSummaryProps }));

const complianceState = oneOf("queued", "running", "complete", "error");
const totals = shape({ errors: integer, warnings: integer, infos: integer, passes: integer });
const complianceBatchProps = {
  _id: str,
  treeId: str,
  version: str,
  nodePath: str,
  state: complianceState,
  done: integer,
  totals,
  created: str,
  finished: nullable(str),
  error: nullable(str),
} as const;
export type ComplianceBatch = InferRule<ReturnType<typeof shape<typeof complianceBatchProps>>> & {
  /** `backupId` null: the device had no backup when the batch was queued (its report says so). */
  targets: { deviceName: string; nodePath: string; backupId: string | null }[];
  claimedBy: string | null;
  leaseUntil: number;
};

/** `backupId` is null for a device that had no backup: its report is one `unreadable` issue saying so. */
const reportSummaryProps = { backupId: nullable(str), score: num, compliant: bool } as const;
const reportProps = { ...reportSummaryProps, issues: arrayOf(anyObj), remediation: str } as const;
const complianceReportSchema = named(
  "ComplianceReport",
  shape({ ...complianceHistoryEntryProps, ...reportProps }),
);
export type ComplianceReport = InferRule<typeof complianceReportSchema>;
/** A report as its list answers it: without issues and remediation (`GET .../compliance_reports/:id` has them). */
const complianceReportSummarySchema = named(
  "ComplianceReportSummary",
  shape({ ...complianceHistoryEntryProps, ...reportSummaryProps }),
);

/**
 * A time range of a list, on the documents' `timestamp`: ISO 8601 (`2026-11-25`, or with a time and
 * an offset); the service reads it as a date and refuses one it cannot read, naming the field.
 */
const timeBound = {
  type: "string",
  max: 64,
  optional: true,
  pattern: /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/,
  messages: { stringPattern: "The '{field}' field must be an ISO 8601 date or time (2026-11-25T10:00:00Z)." },
} as const;
/** `{results, total, skip, limit}`: the project's list shape (docs/platform-rules.md). */
const page = <const I extends Rule>(item: I) =>
  shape({ results: arrayOf(item), total: integer, skip: integer, limit: integer });

const exportNode = shape({
  version: str,
  path: str,
  spec: arrayOf(anyObj),
  variables: recordOf(str),
  devices: arrayOf(str),
});
/** An export entry as import takes it back: the spec's members, the parser and every node. */
const treeExportEntrySchema = shape({
  ...goldenConfigExportEntrySchema.props,
  parser: optional(str),
  description: optional(str),
  nodes: optional(arrayOf(exportNode)),
});
export type TreeExportEntry = InferRule<typeof treeExportEntrySchema>;

const complianceTask = {
  summary: "Check a device's latest backup against a golden config node",
  description:
    "Evaluates the device's latest backup (or the given backup) against the effective config spec of a node " +
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
} as const;

const parserMembers = { template: { type: "string", min: 1, max: 256, optional: true }, lexRules } as const;

export const configuration = defineService("configuration", {
  listParsers: {
    params: {
      options: {
        type: "object",
        strict: "remove",
        default: {},
        props: {
          start: int(0),
          limit: int(1),
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
            props: { name: sortOrder, date: sortOrder },
          },
        },
      },
    },
    result: returnsAs<ParserAnswer[]>(arrayOf(parserRecordSchema)),
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
    idempotent: "keyed",
    params: { name, description: { type: "string", max: 4096, optional: true }, ...parserMembers },
    result: returnsAs<ParserAnswer>(parserRecordSchema),
    http: {
      method: "POST",
      path: "/configuration_manager/configurations/parser",
      access: SUPPORT_WRITE,
      summary: "Create a config parser (extends a template parser with lex rules)",
    },
  },
  getParser: {
    params: { name },
    result: returnsAs<ParserAnswer>(parserRecordSchema),
    http: {
      method: "GET",
      path: "/configuration_manager/configurations/parser/:name",
      access: SUPPORT_READ,
      summary: "Read a config parser",
    },
  },
  updateParser: {
    idempotent: "keyed",
    params: { name, ...parserMembers },
    result: returnsAs<ParserAnswer>(parserRecordSchema),
    http: {
      method: "PUT",
      path: "/configuration_manager/configurations/parser/:name",
      access: SUPPORT_WRITE,
      summary: "Change a config parser's template or lex rules (built-in parsers are read-only)",
    },
  },
  deleteParser: {
    idempotent: "keyed",
    params: { name },
    result: returns(messageSchema),
    http: {
      method: "DELETE",
      path: "/configuration_manager/configurations/parser/:name",
      access: SUPPORT_WRITE,
      summary: "Delete a config parser (not a built-in, not one a tree or parser uses)",
    },
  },
  exportGoldenConfig: {
    idempotent: "repeatable",
    params: { treeId: objectId },
    result: returns(shape({ status: str, message: optional(str), data: arrayOf(treeExportEntrySchema) })),
    http: {
      method: "POST",
      path: "/configuration_manager/export/goldenconfigs",
      access: ["admin", "apiwrite"],
      spec: 9,
      summary: "Export a golden config tree",
    },
  },
  importGoldenConfig: {
    idempotent: "keyed",
    params: {
      data: { type: "array", min: 1, max: 20, items: { type: "object" } },
    },
    result: returns(statusResult(arrayOf(treeExportEntrySchema))),
    http: {
      method: "POST",
      path: "/configuration_manager/import/goldenconfigs",
      access: SUPPORT_WRITE,
      summary: "Import golden config trees from an export (new ids; a taken name answers 409)",
    },
  },
  createTree: {
    idempotent: "keyed",
    params: {
      name,
      deviceType: { type: "string", min: 1, max: 128 },
      parser: { type: "string", min: 1, max: 256, optional: true },
      description: { type: "string", max: 4096, optional: true },
    },
    result: returns(treeAnswerSchema),
    http: {
      method: "POST",
      path: "/configuration_manager/configs",
      access: SUPPORT_WRITE,
      summary: "Create a golden config tree (version 'initial' with its root node 'base')",
    },
  },
  listTrees: {
    params: { skip: int(0), limit: int(1) },
    result: returns(arrayOf(treeAnswerSchema)),
    http: {
      method: "GET",
      path: "/configuration_manager/configs",
      access: SUPPORT_READ,
      summary: "List golden config trees: a plain array, as the real product answers and itential-mcp reads",
    },
    description:
      "Every tree by name, up to 1000 (`skip` and `limit` page further): the real product answers a plain array " +
      "of all trees, and itential-mcp reads it as one and finds a tree by name in it (docs/compatibility.md#list-shapes).",
  },
  getTree: {
    params: { treeId: objectId },
    result: returns(
      shape({
        ...treeAnswerProps,
        nodes: recordOf(arrayOf(shape({ path: str, devices: arrayOf(str) }))),
      }),
    ),
    http: {
      method: "GET",
      path: "/configuration_manager/configs/:treeId",
      access: SUPPORT_READ,
      summary: "Read a golden config tree, with each version's node paths and devices",
    },
  },
  deleteTree: {
    idempotent: "keyed",
    params: { treeId: objectId },
    result: returns(messageSchema),
    http: {
      method: "DELETE",
      path: "/configuration_manager/configs/:treeId",
      access: SUPPORT_WRITE,
      summary: "Delete a golden config tree, its versions and nodes",
    },
  },
  updateVersion: {
    // A PUT: the version's variables become what the body says, however often it runs.
    idempotent: "repeatable",
    params: {
      treeId: objectId,
      version: versionName,
      name: { ...versionName, optional: true },
      variables,
    },
    result: returns(messageSchema),
    http: {
      method: "PUT",
      path: "/configuration_manager/configs/:treeId/:version",
      access: SUPPORT_WRITE,
      summary: "Update a tree version's properties: its variables (those of its root node 'base')",
    },
    description:
      "The real product's 'Update properties of a Golden Config tree version', as itential-mcp calls it after a " +
      "create (`{name: 'initial', variables}`). `variables` replace the root node's, which every node of the " +
      "version inherits; `name`, when sent, must be the version's own (renaming a version is not served: 400).",
  },
  createVersion: {
    idempotent: "keyed",
    params: { treeId: objectId, version: versionName, base: { ...versionName, optional: true } },
    result: returns(treeAnswerSchema),
    http: {
      method: "POST",
      path: "/configuration_manager/configs/:treeId/versions",
      access: SUPPORT_WRITE,
      summary: "Add a version to a tree, cloned from a base version (default: the latest)",
    },
  },
  setNode: {
    // A PUT: the node becomes what the params say, however often it runs; no answer kept (a spec
    // of 10,000 lines would be written a second time as the kept answer).
    idempotent: "repeatable",
    params: {
      treeId: objectId,
      version: versionName,
      nodePath,
      config: { type: "string", max: 1_000_000, optional: true },
      spec: specLines,
      variables,
      devices: deviceList,
    },
    result: returns(shape({ id: str, ...treeNodeProps, config: str })),
    http: {
      method: "PUT",
      path: "/configuration_manager/configs/:treeId/versions/:version/nodes",
      access: SUPPORT_WRITE,
      summary:
        "Create or replace a node: its config spec (text `config` or JSON `spec`), variables and devices",
    },
  },
  getNode: {
    params: { treeId: objectId, version: versionName, nodePath },
    result: returns(
      shape({
        id: str,
        ...treeNodeProps,
        config: str,
        effective: shape({ spec: arrayOf(anyObj), config: str, variables: recordOf(str) }),
      }),
    ),
    http: {
      method: "GET",
      path: "/configuration_manager/configs/:treeId/versions/:version/node",
      access: SUPPORT_READ,
      summary: "Read a node with its effective spec (its ancestors' specs and variables merged in)",
    },
  },
  deleteNode: {
    idempotent: "keyed",
    params: { treeId: objectId, version: versionName, nodePath },
    result: returns(messageSchema),
    http: {
      method: "DELETE",
      path: "/configuration_manager/configs/:treeId/versions/:version/node",
      access: SUPPORT_WRITE,
      summary: "Delete a node and the nodes under it (not the root)",
    },
  },
  createBackup: {
    idempotent: "keyed",
    params: {
      deviceName,
      config: { type: "string", min: 1, max: 1_000_000 },
      description: { type: "string", max: 4096, optional: true },
    },
    result: returns(
      shape({
        id: str,
        _id: str,
        deviceName: str,
        description: str,
        timestamp: str,
        lines: integer,
      }),
    ),
    http: {
      method: "POST",
      path: "/configuration_manager/backups",
      access: SUPPORT_WRITE,
      summary: "Store a device's config text as a backup",
    },
    task: {
      summary: "Store a device's config text as a backup",
      description:
        "Stores `config` as the latest backup of `deviceName`, so a later compliance check reads it. The " +
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
    params: { id: objectId },
    result: returns(backupSchema),
    http: {
      method: "GET",
      path: "/configuration_manager/backups/:id",
      access: SUPPORT_READ,
      summary: "Read a backup",
    },
  },
  listBackups: {
    params: {
      deviceName: { ...deviceName, optional: true },
      treeId: optionalObjectId,
      version: { ...versionName, optional: true },
      batchId: optionalObjectId,
      from: timeBound,
      to: timeBound,
      skip: int(0),
      limit: int(1),
    },
    result: returns(page(backupSummarySchema)),
    http: {
      method: "GET",
      path: "/configuration_manager/backups",
      access: SUPPORT_READ,
      summary:
        "A page of backups without their text, newest first: by device, a tree's devices, a batch's backups, time",
    },
  },
  runCompliance: {
    idempotent: "keyed",
    params: {
      treeId: objectId,
      version: versionName,
      nodePath: { ...nodePath, optional: true },
      devices: deviceList,
      /** The Compliance history entry's own `deviceName`: one more device to check (its other members are read-only, ignored). */
      deviceName: { ...deviceName, optional: true },
      backups: { type: "array", items: objectId, max: 10_000, optional: true },
    },
    result: returns(shape({ batchId: str, devices: integer, withoutBackup: integer })),
    http: {
      method: "POST",
      path: "/configuration_manager/compliance_reports",
      access: SUPPORT_WRITE,
      summary: "Check devices against a tree version's node as a background batch; answers the batch id",
    },
  },
  listReports: {
    params: {
      deviceName: { ...deviceName, optional: true },
      treeId: optionalObjectId,
      version: { ...versionName, optional: true },
      nodePath: { ...nodePath, optional: true },
      batchId: optionalObjectId,
      from: timeBound,
      to: timeBound,
      skip: int(0),
      limit: int(1),
    },
    result: returns(page(complianceReportSummarySchema)),
    http: {
      method: "GET",
      path: "/configuration_manager/compliance_reports",
      access: SUPPORT_READ,
      summary:
        "A page of device reports without issues or remediation, newest first: by device, tree, node, batch, time",
    },
  },
  getBatch: {
    params: { batchId: objectId },
    result: returns(shape({ id: str, ...complianceBatchProps, devices: integer })),
    http: {
      method: "GET",
      path: "/configuration_manager/compliance_reports/batches/:batchId",
      access: SUPPORT_READ,
      summary: "A compliance batch: state, progress and totals",
    },
  },
  listBatchReports: {
    params: { batchId: objectId, skip: int(0), limit: int(1) },
    result: returns(page(complianceReportSchema)),
    http: {
      method: "GET",
      path: "/configuration_manager/compliance_reports/batches/:batchId/reports",
      access: SUPPORT_READ,
      summary: "A page of a batch's device reports (issues and remediation included), by device name",
    },
  },
  getReport: {
    params: { id: objectId },
    result: returns(complianceReportSchema),
    http: {
      method: "GET",
      path: "/configuration_manager/compliance_reports/:id",
      access: SUPPORT_READ,
      summary: "One device's compliance report: totals, score, issues and remediation",
    },
  },
  complianceHistory: {
    idempotent: "repeatable",
    params: {
      options: {
        type: "object",
        strict: "remove",
        props: {
          treeId: optionalObjectId,
          version: { ...versionName, optional: true },
          nodePath: { ...nodePath, optional: true },
          devices: { ...deviceList, max: 1000 },
          backups: { type: "array", items: objectId, max: 1000, optional: true },
          limit: int(1),
        },
      },
    },
    result: returns(arrayOf(complianceHistoryEntrySchema)),
    http: {
      method: "POST",
      path: "/configuration_manager/compliance_reports/history/backups",
      access: ["admin", "apiread"],
      spec: 11,
      summary: "Compliance report totals for backups, newest first",
    },
  },
  checkCompliance: {
    access: SUPPORT_READ,
    idempotent: "repeatable",
    params: {
      treeId: objectId,
      version: versionName,
      nodePath,
      deviceName,
      backupId: optionalObjectId,
    },
    result: returns(
      shape({
        deviceName: str,
        backupId: str,
        totals,
        score: num,
        compliant: bool,
        issues: arrayOf(anyObj),
        remediation: str,
      }),
    ),
    description: "One device checked at once (a workflow task); nothing is stored.",
    task: complianceTask,
  },
  remediate: {
    access: SUPPORT_READ,
    idempotent: "repeatable",
    params: {
      treeId: objectId,
      version: versionName,
      nodePath,
      deviceName,
      backupId: optionalObjectId,
    },
    result: returns(shape({ deviceName: str, backupId: str, compliant: bool, remediation: str })),
    description:
      "The commands that would bring one device to compliance (a workflow task); nothing is pushed.",
    task: {
      summary: "The config lines that would bring a device to compliance",
      description:
        "Checks the device's latest backup (or the given backup) against a node's effective spec, as 'Check " +
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
    access: "internal",
    params: {},
    result: returns(shape({ batches: integer })),
    description:
      "One pass of the batch worker: claims batches whose lease ran out and runs them. The timer calls it; tests call it.",
  },
});
