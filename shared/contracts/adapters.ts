/** adapters: adapter instances and the orchestrator proxy through them (spec operations 1, 2, 19). */
import { healthQuerySchema } from "../health-query";
import { defineService, SUPPORT_READ, SUPPORT_WRITE } from "./define";
import {
  anyObj,
  anyValue,
  arrayOf,
  bool,
  either,
  oneOf,
  optBool,
  optional,
  optString,
  returns,
  shape,
  str,
  type InferRule,
} from "./schema";
import {
  adapterHealthSchema,
  adapterSchema,
  deviceSchema,
  messageSchema,
  resultsPage,
  statusResult,
} from "./resources";
import { syslogProps } from "./profiles";
import { tagIds } from "./forms";

const adapterName = { type: "string", min: 1, max: 128, pattern: /^[A-Za-z0-9._ -]+$/ } as const;
const nonNegInt = { type: "number", integer: true, min: 0, optional: true } as const;

/** Orchestrator request parameters (spec: `params`). */
const orchestratorParams = {
  path: { type: "string", min: 1, max: 4096 },
  accept: { type: "string", min: 1, max: 256 },
} as const;

export const adapterProps = {
  name: adapterName,
  type: { type: "string", min: 1, max: 128 },
  properties: {
    type: "object",
    strict: "remove",
    props: {
      id: { type: "string", min: 1, max: 128 },
      type: { type: "string", min: 1, max: 128 },
      properties: {
        type: "object",
        optional: true,
        description:
          "The adapter's own settings (host, port, credentials...). Credential members are stored encrypted: docs/catalog.md",
      },
      brokers: { type: "array", items: { type: "string" }, optional: true },
      groups: { type: "array", items: { type: "string" }, optional: true },
    },
  },
  loggerProps: {
    type: "object",
    optional: true,
    strict: "remove",
    props: {
      log_max_files: nonNegInt,
      log_max_file_size: nonNegInt,
      log_level: optString,
      log_directory: optString,
      log_filename: optString,
      console_level: optString,
      description: optString,
      log_timezone_offset: { type: "number", optional: true },
      metrics_filename: optString,
      metrics_max_files: nonNegInt,
      metrics_rotation_interval: optString,
      metrics_rotation_size: optString,
      syslog: syslogProps,
    },
  },
  isEncrypted: optBool,
  model: optString,
} as const;

/** An adapter that can list devices (operation 15), as the devices service sees it. */
const deviceSourceSchema = shape({
  name: str,
  /** The adapter's `_id`: inventory devices are kept under it, so a re-created adapter starts empty. */
  id: str,
  kind: oneOf("orchestrator", "inventory"),
  stopped: bool,
});
export type DeviceSource = InferRule<typeof deviceSourceSchema>;

const adapterHealthPage = resultsPage(adapterHealthSchema);

/**
 * What a call through to the orchestrator can answer beyond the common statuses
 * (docs/orchestrator.md#errors): the orchestrator's failure (502) and its silence (504).
 */
const UPSTREAM_ERRORS = {
  502: "BAD_GATEWAY: the orchestrator answered 4xx/5xx (data: {status, body}), could not be reached, closed the connection, or answered over 16 MiB or nested deeper than 64 levels (data: {body: {adapter, cause}})",
  504: "TIMEOUT: the orchestrator did not answer within the adapter's timeout (data: {adapter, timeoutMs}), or the operation not within the request timeout",
} as const;

/** PUT /adapters/:name/stop|start|restart, as the real product's clients and CLI send them. */
function lifecycle(verb: "stop" | "start" | "restart", summary: string) {
  return {
    idempotent: "keyed",
    params: { name: adapterName },
    result: returns(statusResult(shape({ name: str, state: str }))),
    http: { method: "PUT", path: `/adapters/:name/${verb}`, access: SUPPORT_WRITE, summary },
  } as const;
}

/**
 * An adapter instance's `properties` as create and update take them (spec operation 19): the inner
 * `properties.id` must equal the adapter's `name`.
 */
const adapterProperties = {
  type: "object",
  strict: "remove",
  props: adapterProps,
  messages: {
    adapterIdMismatch: "The 'properties.properties.id' field must equal the adapter name ('{expected}').",
  },
  custom: (value: any, errors: any[]) => {
    const inner = value?.properties;
    if (inner && typeof inner === "object" && typeof inner.id === "string" && inner.id !== value.name) {
      errors.push({
        type: "adapterIdMismatch",
        field: "properties.properties.id",
        expected: value.name,
        actual: value.properties.id,
      });
    }
    return value;
  },
} as const;

export const adapters = defineService("adapters", {
  restAction: {
    idempotent: "keyed",
    params: {
      adapterId: adapterName,
      params: {
        type: "object",
        strict: "remove",
        props: {
          ...orchestratorParams,
          method: {
            type: "string",
            optional: true,
            pattern: /^(get|post|put|patch|delete)$/i,
            description: "GET, POST, PUT, PATCH or DELETE, any case (default POST)",
          },
          contentType: optString,
        },
      },
      body: { type: "object" },
    },
    result: returns(arrayOf(shape({ result: str, body: optional(anyValue) }))),
    errors: UPSTREAM_ERRORS,
    http: {
      method: "POST",
      path: "/orchestrator_manager/restAction/:adapterId",
      access: ["admin"],
      spec: 1,
      summary: "A REST action on the orchestrator through an adapter",
    },
    task: {
      displayName: "Orchestrator REST action",
      summary: "Send a change to the network orchestrator through an adapter",
      description:
        "Operation 1 as a task: sends `body` to `params.path` of the adapter's orchestrator with `params.method`; the outgoing value is `[{result: <upstream status>, body?}]` (docs/orchestrator.md).",
      location: "Adapter",
      variables: {
        incoming: {
          adapterId: "",
          params: { path: "", accept: "application/yang-data+json", method: "POST" },
          body: {},
        },
        outgoing: { result: null },
      },
    },
  },
  restQuery: {
    idempotent: "repeatable",
    params: {
      $$strict: true,
      adapterId: adapterName,
      params: { type: "object", strict: true, props: orchestratorParams },
    },
    result: returns(either(anyObj, str)),
    errors: UPSTREAM_ERRORS,
    http: {
      method: "POST",
      path: "/orchestrator_manager/restQuery/:adapterId",
      access: ["admin"],
      spec: 2,
      summary: "A REST query on the orchestrator through an adapter",
    },
    task: {
      displayName: "Orchestrator REST query",
      summary: "Read from the network orchestrator through an adapter",
      description:
        "Operation 2 as a task: a GET of `params.path` on the adapter's orchestrator; the outgoing value is the upstream JSON body, or its text for XML (docs/orchestrator.md).",
      location: "Adapter",
      variables: {
        incoming: { adapterId: "", params: { path: "", accept: "application/yang-data+json" } },
        outgoing: { result: null },
      },
    },
  },
  create: {
    params: {
      properties: adapterProperties,
      description: { type: "string", max: 4096, optional: true },
      tags: tagIds,
    },
    result: returns(statusResult(adapterSchema)),
    http: {
      method: "POST",
      path: "/adapters",
      access: ["admin"],
      spec: 19,
      summary: "Create an adapter instance",
    },
  },
  update: {
    idempotent: "keyed",
    params: {
      name: adapterName,
      properties: {
        ...adapterProperties,
        description:
          "The adapter as create takes it, re-validated the same way; `name` must be the path's. A credential member left out keeps its stored (sealed) value, resent as read (`enc:v1:...`) it stays, `null` removes it",
      },
      description: { type: "string", max: 4096, optional: true },
      tags: tagIds,
    },
    result: returns(statusResult(adapterSchema)),
    http: {
      method: "PUT",
      path: "/adapters/:name/properties",
      aliases: [{ path: "/adapters/:name" }],
      access: ["admin"],
      summary:
        "Update an adapter's properties (the real product's PUT /adapters/:name/properties): its connections and health pick them up at once",
    },
  },
  list: {
    params: healthQuerySchema,
    result: returns(resultsPage(shape({ metadata: adapterHealthSchema, data: adapterSchema }))),
    http: {
      method: "GET",
      path: "/adapters",
      access: SUPPORT_READ,
      summary: "List adapters: {results: [{metadata (health entry), data (the adapter)}], total}",
    },
  },
  get: {
    params: { name: adapterName },
    result: returns(adapterSchema),
    http: { method: "GET", path: "/adapters/:name", access: SUPPORT_READ, summary: "Read an adapter" },
  },
  delete: {
    idempotent: "keyed",
    params: { name: adapterName },
    result: returns(messageSchema),
    http: { method: "DELETE", path: "/adapters/:name", access: SUPPORT_WRITE, summary: "Delete an adapter" },
  },
  stop: lifecycle("stop", "Stop an adapter: it answers no proxy call and is not health-checked"),
  start: lifecycle("start", "Start a stopped adapter"),
  restart: lifecycle("restart", "Restart an adapter: drop its connections and re-read its settings"),
  healthList: {
    params: healthQuerySchema,
    result: returns(adapterHealthPage),
    http: {
      method: "GET",
      path: "/health/adapters",
      access: "authenticated",
      summary: "Adapter instances, their state and connection state",
    },
  },
  healthGet: {
    params: { name: adapterName },
    result: returns(adapterHealthPage),
    http: {
      method: "GET",
      path: "/health/adapters/:name",
      access: "authenticated",
      summary: "One adapter's state and connection state",
    },
  },
  deviceSources: {
    access: "internal",
    idempotent: "repeatable",
    params: { entity: { ...adapterName, optional: true } },
    result: returns(arrayOf(deviceSourceSchema)),
    description:
      "Internal (the devices service): adapters that can list devices, with their kind and whether they are stopped; 404 when `entity` names no such adapter.",
  },
  listDevices: {
    access: "internal",
    idempotent: "repeatable",
    params: { name: adapterName },
    result: returns(arrayOf(deviceSchema)),
    errors: UPSTREAM_ERRORS,
    description: "Internal (the devices service): an orchestrator adapter's devices, read from its REST API.",
  },
  checkHealth: {
    access: "internal",
    idempotent: "repeatable",
    params: { name: adapterName },
    result: returns(adapterHealthSchema),
    description:
      "Internal: checks one adapter now and stores the outcome (the periodic pass calls the same code).",
  },
});
