/** configuration: config parsers, golden config trees, backups and compliance (spec operations 6, 9, 11). */
import { defineService, SUPPORT_WRITE } from "./define";
import { int, objectId, optString, optionalObjectId, returns } from "./schema";
import type { ComplianceHistoryEntry, GoldenConfigExportEntry, StatusResult } from "./resources";

const name = { type: "string", min: 1, max: 256 } as const;
const sortDir = { type: "enum", values: [1, -1], optional: true } as const;

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
          filter: { type: "object", optional: true, strict: "remove", props: { name: optString } },
          sort: { type: "object", optional: true, strict: "remove", props: { name: sortDir, date: sortDir } },
        },
      },
    },
    result: returns<Record<string, any>[]>(),
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
    params: {
      name,
      description: { type: "string", max: 4096, optional: true },
      template: { type: "string", optional: true },
      rules: { type: "array", items: { type: "object" }, optional: true },
    },
    result: returns<Record<string, any>>(),
    http: {
      method: "POST",
      path: "/configuration_manager/configurations/parser",
      access: SUPPORT_WRITE,
      summary: "Create a config parser",
    },
  },
  exportGoldenConfig: {
    params: { treeId: objectId },
    result: returns<StatusResult<GoldenConfigExportEntry[]>>(),
    http: {
      method: "POST",
      path: "/configuration_manager/export/goldenconfigs",
      access: ["admin", "apiwrite"],
      spec: 9,
      summary: "Export a golden config tree",
    },
  },
  createTree: {
    params: {
      name,
      deviceType: { type: "string", min: 1, max: 128 },
      description: { type: "string", max: 4096, optional: true },
    },
    result: returns<Record<string, any>>(),
    http: {
      method: "POST",
      path: "/configuration_manager/configs",
      access: SUPPORT_WRITE,
      summary: "Create a golden config tree",
    },
  },
  createVersion: {
    params: { treeId: objectId, version: { type: "string", min: 1, max: 128 }, base: optString },
    result: returns<Record<string, any>>(),
    http: {
      method: "POST",
      path: "/configuration_manager/configs/:treeId/versions",
      access: SUPPORT_WRITE,
      summary: "Add a version to a golden config tree",
    },
  },
  setNodeConfig: {
    params: {
      treeId: objectId,
      version: { type: "string", min: 1, max: 128 },
      nodePath: { type: "string", min: 1, max: 1024 },
      config: { type: "string", max: 1_000_000 },
      devices: { type: "array", items: { type: "string", min: 1 }, optional: true },
    },
    result: returns<Record<string, any>>(),
    http: {
      method: "PUT",
      path: "/configuration_manager/configs/:treeId/versions/:version/nodes",
      access: SUPPORT_WRITE,
      summary: "Set a node's config spec and devices in a tree version",
    },
  },
  createBackup: {
    params: {
      deviceName: { type: "string", min: 1, max: 256 },
      config: { type: "string", max: 5_000_000 },
      description: optString,
    },
    result: returns<Record<string, any>>(),
    http: {
      method: "POST",
      path: "/configuration_manager/backups",
      access: SUPPORT_WRITE,
      summary: "Store a device's config text as a backup",
    },
  },
  runCompliance: {
    params: {
      treeId: objectId,
      version: { type: "string", min: 1 },
      devices: { type: "array", items: { type: "string", min: 1 }, optional: true },
    },
    result: returns<{ batchId: string }>(),
    http: {
      method: "POST",
      path: "/configuration_manager/compliance_reports",
      access: SUPPORT_WRITE,
      summary: "Check device backups against a golden config version",
    },
  },
  complianceHistory: {
    params: {
      options: {
        type: "object",
        strict: "remove",
        props: {
          treeId: optionalObjectId,
          version: optString,
          nodePath: optString,
          devices: { type: "array", items: { type: "string", min: 1 }, optional: true },
          backups: { type: "array", items: objectId, optional: true },
          limit: int(1),
        },
      },
    },
    result: returns<ComplianceHistoryEntry[]>(),
    http: {
      method: "POST",
      path: "/configuration_manager/compliance_reports/history/backups",
      access: ["admin", "apiread"],
      spec: 11,
      summary: "Compliance report totals for backups",
    },
  },
});
