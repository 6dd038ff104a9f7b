/**
 * The 20 operations of the spec over HTTP: for each, a valid request and at least three invalid
 * ones, each answered with the status and error body of docs/platform-rules.md#errors. A valid request to
 * an operation whose handler belongs to later work (device lookup)
 * answers 501 NOT_IMPLEMENTED — after routing, authentication,
 * the role check and validation all passed. The others succeed on fixtures made in beforeAll.
 */
import { chain, manual } from "../support/engine-fixtures";
import { client, expectError, login, startPlatform, type Platform } from "../support/platform";

const OID = "0123456789abcdef01234567";

type Case = {
  name: string;
  method: "GET" | "POST" | "PUT";
  url: string;
  /** A function when the body needs ids made by the fixtures. */
  body?: unknown | (() => unknown);
  raw?: string;
  headers?: Record<string, string>;
  token?: "none" | "bad";
  status: number;
  type: string;
  /** For 400 VALIDATION_ERROR: a field the error data must name. */
  field?: string;
};

/** spec operation number -> its valid request and invalid ones. */
const OPERATIONS: Record<
  number,
  { valid: Omit<Case, "name" | "type"> & { type?: string }; invalid: Case[] }
> = {
  1: {
    valid: {
      method: "POST",
      url: "/orchestrator_manager/restAction/nso",
      body: {
        params: { path: "/api/running/devices", accept: "application/yang-data+json", method: "POST" },
        body: {},
      },
      status: 404,
    },
    invalid: [
      {
        name: "body missing",
        method: "POST",
        url: "/orchestrator_manager/restAction/nso",
        body: { params: { path: "/x", accept: "application/yang-data+json" } },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "body",
      },
      {
        name: "params.accept missing",
        method: "POST",
        url: "/orchestrator_manager/restAction/nso",
        body: { params: { path: "/x" }, body: {} },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "params.accept",
      },
      {
        name: "method not an HTTP method",
        method: "POST",
        url: "/orchestrator_manager/restAction/nso",
        body: { params: { path: "/x", accept: "a", method: "FETCH" }, body: {} },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "params.method",
      },
      {
        name: "not JSON",
        method: "POST",
        url: "/orchestrator_manager/restAction/nso",
        raw: "params=1",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        status: 415,
        type: "UNSUPPORTED_MEDIA_TYPE",
      },
    ],
  },
  2: {
    valid: {
      method: "POST",
      url: "/orchestrator_manager/restQuery/nso",
      body: { params: { path: "/api/running/devices?deep", accept: "application/vnd.yang.collection+json" } },
      status: 404,
    },
    invalid: [
      {
        name: "unknown top-level property",
        method: "POST",
        url: "/orchestrator_manager/restQuery/nso",
        body: { params: { path: "/x", accept: "a" }, body: {} },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "body",
      },
      {
        name: "unknown member in params",
        method: "POST",
        url: "/orchestrator_manager/restQuery/nso",
        body: { params: { path: "/x", accept: "a", method: "GET" } },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "params.method",
      },
      {
        name: "params missing",
        method: "POST",
        url: "/orchestrator_manager/restQuery/nso",
        body: {},
        status: 400,
        type: "VALIDATION_ERROR",
        field: "params",
      },
      {
        name: "path not a string",
        method: "POST",
        url: "/orchestrator_manager/restQuery/nso",
        body: { params: { path: 5, accept: "a" } },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "params.path",
      },
    ],
  },
  3: {
    valid: { method: "GET", url: "/service_catalog/GetForms", status: 200 },
    invalid: [
      {
        name: "no credentials",
        method: "GET",
        url: "/service_catalog/GetForms",
        token: "none",
        status: 401,
        type: "UNAUTHORIZED",
      },
      {
        name: "unknown token",
        method: "GET",
        url: "/service_catalog/GetForms",
        token: "bad",
        status: 401,
        type: "UNAUTHORIZED",
      },
      {
        name: "wrong method",
        method: "POST",
        url: "/service_catalog/GetForms",
        body: {},
        status: 404,
        type: "NOT_FOUND",
      },
    ],
  },
  4: {
    valid: {
      method: "GET",
      url: "/user-management/accounts?limit=10&equals=admin&equalsField=username",
      status: 200,
    },
    invalid: [
      {
        name: "limit below 1",
        method: "GET",
        url: "/user-management/accounts?limit=0",
        status: 400,
        type: "VALIDATION_ERROR",
        field: "queryOptions.limit",
      },
      {
        name: "sort on a field not allowed",
        method: "GET",
        url: "/user-management/accounts?sort=password",
        status: 400,
        type: "VALIDATION_ERROR",
        field: "queryOptions.sort",
      },
      {
        name: "order not 1 or -1",
        method: "GET",
        url: "/user-management/accounts?queryOptions[order]=2",
        status: 400,
        type: "VALIDATION_ERROR",
        field: "queryOptions.order",
      },
      {
        name: "skip not a number",
        method: "GET",
        url: "/user-management/accounts?skip=first",
        status: 400,
        type: "VALIDATION_ERROR",
        field: "queryOptions.skip",
      },
      {
        name: "queryOptions JSON text malformed",
        method: "GET",
        url: "/user-management/accounts?queryOptions=%7Blimit",
        status: 400,
        type: "VALIDATION_ERROR",
        field: "queryOptions",
      },
    ],
  },
  5: {
    valid: {
      method: "GET",
      url: "/operations-manager/admin/jobs?limit=10&equals[status]=running&include=name,status",
      status: 200,
    },
    invalid: [
      {
        name: "limit below 1",
        method: "GET",
        url: "/operations-manager/admin/jobs?limit=0",
        status: 400,
        type: "VALIDATION_ERROR",
        field: "queryParameters.limit",
      },
      {
        name: "order not 1 or -1",
        method: "GET",
        url: "/operations-manager/admin/jobs?order=5",
        status: 400,
        type: "VALIDATION_ERROR",
        field: "queryParameters.order",
      },
      {
        name: "skip negative",
        method: "GET",
        url: "/operations-manager/admin/jobs?queryParameters[skip]=-3",
        status: 400,
        type: "VALIDATION_ERROR",
        field: "queryParameters.skip",
      },
      {
        // A plain string is a name (the spec's type; Itential.py 2023.1 sends it): a list is neither.
        name: "equals neither a field map nor a name",
        method: "GET",
        url: "/operations-manager/admin/jobs?equals[]=running&equals[]=paused",
        status: 400,
        type: "VALIDATION_ERROR",
        field: "queryParameters.equals",
      },
    ],
  },
  6: {
    valid: {
      method: "GET",
      url: "/configuration_manager/configurations/parser?start=0&limit=5&sort[name]=1",
      status: 200,
    },
    invalid: [
      {
        name: "start below 0",
        method: "GET",
        url: "/configuration_manager/configurations/parser?start=-1",
        status: 400,
        type: "VALIDATION_ERROR",
        field: "options.start",
      },
      {
        name: "limit below 1",
        method: "GET",
        url: "/configuration_manager/configurations/parser?options[limit]=0",
        status: 400,
        type: "VALIDATION_ERROR",
        field: "options.limit",
      },
      {
        name: "sort direction not 1/-1",
        method: "GET",
        url: "/configuration_manager/configurations/parser?sort[date]=2",
        status: 400,
        type: "VALIDATION_ERROR",
        field: "options.sort.date",
      },
      {
        name: "regex not a boolean",
        method: "GET",
        url: "/configuration_manager/configurations/parser?regex=maybe",
        status: 400,
        type: "VALIDATION_ERROR",
        field: "options.regex",
      },
    ],
  },
  7: {
    valid: {
      method: "POST",
      url: "/formbuilder/preserveFormData",
      body: { form_name: "device-onboarding", data: { name: "device-onboarding", children: [] } },
      status: 200,
    },
    invalid: [
      {
        name: "form_name missing",
        method: "POST",
        url: "/formbuilder/preserveFormData",
        body: { data: {} },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "form_name",
      },
      {
        name: "data not an object",
        method: "POST",
        url: "/formbuilder/preserveFormData",
        body: { form_name: "f", data: "x" },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "data",
      },
      {
        name: "form_name empty",
        method: "POST",
        url: "/formbuilder/preserveFormData",
        body: { form_name: "", data: {} },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "form_name",
      },
      {
        name: "malformed JSON",
        method: "POST",
        url: "/formbuilder/preserveFormData",
        raw: '{"form_name": "f",',
        status: 400,
        type: "INVALID_REQUEST_BODY",
      },
    ],
  },
  8: {
    valid: {
      method: "GET",
      url: "/workflow_engine/tasks/metrics?greaterThanEquals=0&greaterThanEqualsField=metrics.startDate&equals=wf&equalsField=workflow.name",
      status: 200,
    },
    invalid: [
      {
        name: "greaterThanEqualsField other than metrics.startDate",
        method: "GET",
        url: "/workflow_engine/tasks/metrics?greaterThanEquals=0&greaterThanEqualsField=created",
        status: 400,
        type: "VALIDATION_ERROR",
        field: "queryOptions.greaterThanEqualsField",
      },
      {
        name: "equalsField other than workflow.name",
        method: "GET",
        url: "/workflow_engine/tasks/metrics?equals=x&equalsField=name",
        status: 400,
        type: "VALIDATION_ERROR",
        field: "queryOptions.equalsField",
      },
      {
        name: "greaterThanEquals not epoch ms",
        method: "GET",
        url: "/workflow_engine/tasks/metrics?greaterThanEquals=yesterday",
        status: 400,
        type: "VALIDATION_ERROR",
        field: "queryOptions.greaterThanEquals",
      },
      {
        name: "greaterThanEquals fractional",
        method: "GET",
        url: "/workflow_engine/tasks/metrics?greaterThanEquals=1.5",
        status: 400,
        type: "VALIDATION_ERROR",
        field: "queryOptions.greaterThanEquals",
      },
    ],
  },
  9: {
    valid: {
      method: "POST",
      url: "/configuration_manager/export/goldenconfigs",
      body: { treeId: OID },
      status: 404,
    },
    invalid: [
      {
        name: "treeId missing",
        method: "POST",
        url: "/configuration_manager/export/goldenconfigs",
        body: {},
        status: 400,
        type: "VALIDATION_ERROR",
        field: "treeId",
      },
      {
        name: "treeId not an object id",
        method: "POST",
        url: "/configuration_manager/export/goldenconfigs",
        body: { treeId: "tree-1" },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "treeId",
      },
      {
        name: "treeId a number",
        method: "POST",
        url: "/configuration_manager/export/goldenconfigs",
        body: { treeId: 12 },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "treeId",
      },
    ],
  },
  10: {
    valid: {
      method: "PUT",
      url: "/automation_catalog/automations/{automationId}/schedule",
      body: { options: { nextRunAt: "2026-12-01T08:00:00Z", repeatInterval: "1 day", disabled: false } },
      status: 200,
    },
    invalid: [
      {
        name: "options empty",
        method: "PUT",
        url: `/automation_catalog/automations/${OID}/schedule`,
        body: { options: {} },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "options",
      },
      {
        name: "repeatInterval empty",
        method: "PUT",
        url: `/automation_catalog/automations/${OID}/schedule`,
        body: { options: { repeatInterval: "" } },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "options.repeatInterval",
      },
      {
        name: "repeatInterval not an interval",
        method: "PUT",
        url: `/automation_catalog/automations/${OID}/schedule`,
        body: { options: { repeatInterval: "soonish" } },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "options.repeatInterval",
      },
      {
        name: "nextRunAt not a date-time",
        method: "PUT",
        url: `/automation_catalog/automations/${OID}/schedule`,
        body: { options: { nextRunAt: "tomorrow" } },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "options.nextRunAt",
      },
      {
        name: "nextRunAt not a real date",
        method: "PUT",
        url: `/automation_catalog/automations/${OID}/schedule`,
        body: { options: { nextRunAt: "2026-02-30T00:00:00Z" } },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "options.nextRunAt",
      },
      {
        name: "disabled not a boolean",
        method: "PUT",
        url: `/automation_catalog/automations/${OID}/schedule`,
        body: { options: { disabled: "yes" } },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "options.disabled",
      },
      {
        name: "id not an object id",
        method: "PUT",
        url: "/automation_catalog/automations/nightly/schedule",
        body: { options: { disabled: true } },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "id",
      },
    ],
  },
  11: {
    valid: {
      method: "POST",
      url: "/configuration_manager/compliance_reports/history/backups",
      body: { options: { treeId: OID, devices: ["rtr1"], limit: 5 } },
      status: 200,
    },
    invalid: [
      {
        name: "limit below 1",
        method: "POST",
        url: "/configuration_manager/compliance_reports/history/backups",
        body: { options: { limit: 0 } },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "options.limit",
      },
      {
        name: "treeId not an object id",
        method: "POST",
        url: "/configuration_manager/compliance_reports/history/backups",
        body: { options: { treeId: "t" } },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "options.treeId",
      },
      {
        name: "devices not an array",
        method: "POST",
        url: "/configuration_manager/compliance_reports/history/backups",
        body: { options: { devices: "rtr1" } },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "options.devices",
      },
      {
        name: "options missing",
        method: "POST",
        url: "/configuration_manager/compliance_reports/history/backups",
        body: {},
        status: 400,
        type: "VALIDATION_ERROR",
        field: "options",
      },
    ],
  },
  12: {
    valid: {
      method: "POST",
      url: "/search/find",
      body: { data: { text: "core", pageNumber: 0, nPerPage: 10 } },
      status: 200,
    },
    invalid: [
      {
        name: "data missing",
        method: "POST",
        url: "/search/find",
        body: {},
        status: 400,
        type: "VALIDATION_ERROR",
        field: "data",
      },
      {
        name: "nPerPage below 1",
        method: "POST",
        url: "/search/find",
        body: { data: { text: "x", nPerPage: 0 } },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "data.nPerPage",
      },
      {
        name: "pageNumber negative",
        method: "POST",
        url: "/search/find",
        body: { data: { text: "x", pageNumber: -1 } },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "data.pageNumber",
      },
      {
        name: "text not a string",
        method: "POST",
        url: "/search/find",
        body: { data: { text: 42 } },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "data.text",
      },
    ],
  },
  13: {
    valid: {
      method: "POST",
      url: "/prebuilts-repository/configs",
      body: {
        name: "gitlab",
        config: {
          enabled: true,
          type: "gitlab",
          hostname: "git.example.net",
          path: "/prebuilts",
          credentials: { token: "t0k" },
          versionStatus: "released",
        },
      },
      status: 200,
    },
    invalid: [
      {
        name: "name missing",
        method: "POST",
        url: "/prebuilts-repository/configs",
        body: { config: {} },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "name",
      },
      {
        name: "config missing",
        method: "POST",
        url: "/prebuilts-repository/configs",
        body: { name: "r" },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "config",
      },
      {
        name: "enabled not a boolean",
        method: "POST",
        url: "/prebuilts-repository/configs",
        body: { name: "r", config: { enabled: "yes" } },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "config.enabled",
      },
      {
        name: "token not a string",
        method: "POST",
        url: "/prebuilts-repository/configs",
        body: { name: "r", config: { credentials: { token: 5 } } },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "config.credentials.token",
      },
    ],
  },
  14: {
    valid: {
      method: "POST",
      url: "/workflow_engine/finishTask",
      body: () => ({ task_id: "approve", job_id: waitingJobId, task_data: { approved: true } }),
      status: 200,
    },
    invalid: [
      {
        name: "job_id not an object id",
        method: "POST",
        url: "/workflow_engine/finishTask",
        body: { task_id: "a1", job_id: "job-1", task_data: {} },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "job_id",
      },
      {
        name: "task_data missing",
        method: "POST",
        url: "/workflow_engine/finishTask",
        body: { task_id: "a1", job_id: OID },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "task_data",
      },
      {
        name: "task_id empty",
        method: "POST",
        url: "/workflow_engine/finishTask",
        body: { task_id: "", job_id: OID, task_data: {} },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "task_id",
      },
      {
        name: "body is an array",
        method: "POST",
        url: "/workflow_engine/finishTask",
        body: [{ task_id: "a1" }],
        status: 400,
        type: "INVALID_REQUEST_BODY",
      },
    ],
  },
  15: {
    valid: {
      method: "POST",
      url: "/mop/deviceObjects",
      body: { options: { start: 0, limit: 10, filter: "rtr", sort: [{ name: 1 }] } },
      status: 200,
    },
    invalid: [
      {
        name: "entity names no adapter",
        method: "POST",
        url: "/mop/deviceObjects",
        body: { options: { entity: "no-such-adapter" } },
        status: 404,
        type: "NOT_FOUND",
      },
      {
        name: "start negative",
        method: "POST",
        url: "/mop/deviceObjects",
        body: { options: { start: -1 } },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "options.start",
      },
      {
        name: "limit below 1",
        method: "POST",
        url: "/mop/deviceObjects",
        body: { options: { limit: 0 } },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "options.limit",
      },
      {
        name: "sort direction not 1/-1",
        method: "POST",
        url: "/mop/deviceObjects",
        body: { options: { sort: [{ name: 2 }] } },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "options.sort[0].name",
      },
      {
        name: "options missing",
        method: "POST",
        url: "/mop/deviceObjects",
        body: {},
        status: 400,
        type: "VALIDATION_ERROR",
        field: "options",
      },
    ],
  },
  16: {
    valid: { method: "GET", url: "/schema/profiles", status: 200 },
    invalid: [
      {
        name: "no credentials",
        method: "GET",
        url: "/schema/profiles",
        token: "none",
        status: 401,
        type: "UNAUTHORIZED",
      },
      {
        name: "unknown token",
        method: "GET",
        url: "/schema/profiles",
        token: "bad",
        status: 401,
        type: "UNAUTHORIZED",
      },
      {
        name: "malformed Authorization header",
        method: "GET",
        url: "/schema/profiles",
        token: "none",
        headers: { authorization: "Token abc" },
        status: 401,
        type: "UNAUTHORIZED",
      },
      {
        name: "wrong method",
        method: "POST",
        url: "/schema/profiles",
        body: {},
        status: 404,
        type: "NOT_FOUND",
      },
    ],
  },
  17: {
    valid: {
      method: "POST",
      url: "/operations-manager/jobs/start",
      body: {
        workflow: "Port Turn Up",
        options: {
          description: "rtr1 ge-0/0/1",
          type: "automation",
          variables: { device: "rtr1" },
        },
      },
      status: 200,
    },
    invalid: [
      {
        name: "workflow missing",
        method: "POST",
        url: "/operations-manager/jobs/start",
        body: { options: {} },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "workflow",
      },
      {
        name: "groups not an array",
        method: "POST",
        url: "/operations-manager/jobs/start",
        body: { workflow: "w", options: { groups: "ops" } },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "options.groups",
      },
      {
        name: "variables not an object",
        method: "POST",
        url: "/operations-manager/jobs/start",
        body: { workflow: "w", options: { variables: "device=rtr1" } },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "options.variables",
      },
      {
        name: "options missing",
        method: "POST",
        url: "/operations-manager/jobs/start",
        body: { workflow: "w" },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "options",
      },
    ],
  },
  18: {
    valid: {
      method: "POST",
      url: "/profiles",
      body: {
        properties: {
          id: "lab",
          description: "Lab",
          expressProps: { express_http: { enable: true, port: 3000 } },
          authenticationProps: { uniqueSession: false, cookieName: "token" },
        },
      },
      status: 200,
    },
    invalid: [
      {
        name: "id missing",
        method: "POST",
        url: "/profiles",
        body: { properties: { description: "x" } },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "properties.id",
      },
      {
        name: "port out of range",
        method: "POST",
        url: "/profiles",
        body: { properties: { id: "p", expressProps: { express_http: { port: 70000 } } } },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "properties.expressProps.express_http.port",
      },
      {
        name: "uniqueSession not a boolean",
        method: "POST",
        url: "/profiles",
        body: { properties: { id: "p", authenticationProps: { uniqueSession: "yes" } } },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "properties.authenticationProps.uniqueSession",
      },
      {
        name: "properties missing",
        method: "POST",
        url: "/profiles",
        body: {},
        status: 400,
        type: "VALIDATION_ERROR",
        field: "properties",
      },
    ],
  },
  19: {
    valid: {
      method: "POST",
      url: "/adapters",
      body: {
        properties: {
          name: "nso-lab",
          type: "Application",
          properties: { id: "nso-lab", type: "NSO", properties: { host: "10.0.0.1" } },
        },
      },
      status: 200,
    },
    invalid: [
      {
        name: "properties.id differs from name",
        method: "POST",
        url: "/adapters",
        body: { properties: { name: "nso", type: "Application", properties: { id: "other", type: "NSO" } } },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "properties.properties.id",
      },
      {
        name: "type missing",
        method: "POST",
        url: "/adapters",
        body: { properties: { name: "nso", properties: { id: "nso", type: "NSO" } } },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "properties.type",
      },
      {
        name: "inner type missing",
        method: "POST",
        url: "/adapters",
        body: { properties: { name: "nso", type: "Application", properties: { id: "nso" } } },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "properties.properties.type",
      },
      {
        name: "properties missing",
        method: "POST",
        url: "/adapters",
        body: { properties: { name: "nso", type: "Application" } },
        status: 400,
        type: "VALIDATION_ERROR",
        field: "properties.properties",
      },
    ],
  },
  20: {
    valid: { method: "GET", url: "/workflow_builder/tasks/list", status: 200 },
    invalid: [
      {
        name: "no credentials",
        method: "GET",
        url: "/workflow_builder/tasks/list",
        token: "none",
        status: 401,
        type: "UNAUTHORIZED",
      },
      {
        name: "unknown token",
        method: "GET",
        url: "/workflow_builder/tasks/list",
        token: "bad",
        status: 401,
        type: "UNAUTHORIZED",
      },
      {
        name: "wrong method",
        method: "PUT",
        url: "/workflow_builder/tasks/list",
        body: {},
        status: 404,
        type: "NOT_FOUND",
      },
    ],
  },
};

let platform: Platform;
let token: string;
/** A job of "Port Turn Up" waiting at its manual task `approve` (operation 14 finishes it). */
let waitingJobId: string;
let automationId: string;

beforeAll(async () => {
  platform = await startPlatform();
  token = await login(platform.baseUrl);
  const admin = client(platform.baseUrl, token);
  const form = await admin.post("/formbuilder/forms", {
    name: "device-onboarding",
    children: [],
    elements: [],
  });
  expect(form.status).toBe(200);
  const workflow = await admin.post("/workflow_builder/workflows", {
    workflow: chain("Port Turn Up", [["approve", manual("Approve the change")]]),
  });
  expect(workflow.status).toBe(200);
  const job = await admin.post("/operations-manager/jobs/start", { workflow: "Port Turn Up", options: {} });
  expect(job.status).toBe(200);
  waitingJobId = job.body._id;
  const automation = await admin.post("/automation_catalog/automations", {
    name: "Nightly port audit",
    workflow: "Port Turn Up",
  });
  expect(automation.status).toBe(200);
  automationId = automation.body._id;
});
afterAll(() => platform.stop());

function send(c: Omit<Case, "name" | "type">) {
  const auth = c.token === "none" ? undefined : c.token === "bad" ? "not-a-real-token" : token;
  const url = c.url.replace("{automationId}", automationId);
  return client(platform.baseUrl, auth).send(c.method, url, {
    body: typeof c.body === "function" ? c.body() : c.body,
    raw: c.raw,
    headers: c.headers,
  });
}

test("every spec operation has a valid case and at least three invalid ones", () => {
  expect(Object.keys(OPERATIONS).map(Number)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  for (const op of Object.values(OPERATIONS)) expect(op.invalid.length).toBeGreaterThanOrEqual(3);
});

describe.each(Object.entries(OPERATIONS))("operation %s", (_n, { valid, invalid }) => {
  test(`valid ${valid.method} ${valid.url.split("?")[0]} answers ${valid.status}`, async () => {
    const reply = await send(valid);
    if (valid.status === 501) expectError(reply, 501, "NOT_IMPLEMENTED");
    else expect(reply.status).toBe(valid.status);
  });

  test.each(invalid.map((c) => [c.name, c] as const))("invalid: %s", async (_name, c) => {
    const body = expectError(await send(c), c.status, c.type);
    if (c.field) expect(body.data.map((d: { field: string }) => d.field)).toContain(c.field);
    if (c.type === "VALIDATION_ERROR") {
      for (const item of body.data) expect(Object.keys(item).sort()).toEqual(["field", "message", "type"]);
    }
  });
});

test("operation 4's valid request answers the accounts page", async () => {
  const reply = await send(OPERATIONS[4].valid);
  expect(reply.body).toEqual({
    results: [expect.objectContaining({ username: "admin", provenance: "local" })],
    skip: 0,
    limit: 10,
    total: 1,
  });
});
