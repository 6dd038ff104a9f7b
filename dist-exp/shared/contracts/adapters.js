"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.adapters = exports.adapterProps = void 0;
/** adapters: adapter instances and the orchestrator proxy through them (spec operations 1, 2, 19). */
const health_query_1 = require("../health-query");
const define_1 = require("./define");
const schema_1 = require("./schema");
const resources_1 = require("./resources");
const profiles_1 = require("./profiles");
const forms_1 = require("./forms");
const adapterName = { type: "string", min: 1, max: 128, pattern: /^[A-Za-z0-9._ -]+$/ };
const nonNegInt = { type: "number", integer: true, min: 0, optional: true };
/** Orchestrator request parameters (spec: `params`). */
const orchestratorParams = {
    path: { type: "string", min: 1, max: 4096 },
    accept: { type: "string", min: 1, max: 256 },
};
exports.adapterProps = {
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
                description: "The adapter's own settings (host, port, credentials...). Credential members are stored encrypted: docs/catalog.md",
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
            log_level: schema_1.optString,
            log_directory: schema_1.optString,
            log_filename: schema_1.optString,
            console_level: schema_1.optString,
            description: schema_1.optString,
            log_timezone_offset: { type: "number", optional: true },
            metrics_filename: schema_1.optString,
            metrics_max_files: nonNegInt,
            metrics_rotation_interval: schema_1.optString,
            metrics_rotation_size: schema_1.optString,
            syslog: profiles_1.syslogProps,
        },
    },
    isEncrypted: schema_1.optBool,
    model: schema_1.optString,
};
/** An adapter that can list devices (operation 15), as the devices service sees it. */
const deviceSourceSchema = (0, schema_1.shape)({
    name: schema_1.str,
    /** The adapter's `_id`: inventory devices are kept under it, so a re-created adapter starts empty. */
    id: schema_1.str,
    kind: (0, schema_1.oneOf)("orchestrator", "inventory"),
    stopped: schema_1.bool,
});
const adapterHealthPage = (0, resources_1.resultsPage)(resources_1.adapterHealthSchema);
/** PUT /adapters/:name/stop|start|restart, as the real product's clients and CLI send them. */
function lifecycle(verb, summary) {
    return {
        params: { name: adapterName },
        result: (0, schema_1.returns)((0, resources_1.statusResult)((0, schema_1.shape)({ name: schema_1.str, state: schema_1.str }))),
        http: { method: "PUT", path: `/adapters/:name/${verb}`, access: define_1.SUPPORT_WRITE, summary },
    };
}
exports.adapters = (0, define_1.defineService)("adapters", {
    restAction: {
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
                    contentType: schema_1.optString,
                },
            },
            body: { type: "object" },
        },
        result: (0, schema_1.returns)((0, schema_1.arrayOf)((0, schema_1.shape)({ result: schema_1.str, body: (0, schema_1.optional)(schema_1.anyValue) }))),
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
            description: "Operation 1 as a task: sends `body` to `params.path` of the adapter's orchestrator with `params.method`; the outgoing value is `[{result: <upstream status>, body?}]` (docs/orchestrator.md).",
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
        params: {
            $$strict: true,
            adapterId: adapterName,
            params: { type: "object", strict: true, props: orchestratorParams },
        },
        result: (0, schema_1.returns)((0, schema_1.either)(schema_1.anyObj, schema_1.str)),
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
            description: "Operation 2 as a task: a GET of `params.path` on the adapter's orchestrator; the outgoing value is the upstream JSON body, or its text for XML (docs/orchestrator.md).",
            location: "Adapter",
            variables: {
                incoming: { adapterId: "", params: { path: "", accept: "application/yang-data+json" } },
                outgoing: { result: null },
            },
        },
    },
    create: {
        params: {
            properties: {
                type: "object",
                strict: "remove",
                props: exports.adapterProps,
                messages: {
                    adapterIdMismatch: "The 'properties.properties.id' field must equal the adapter name ('{expected}').",
                },
                custom: (value, errors) => {
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
            },
            description: { type: "string", max: 4096, optional: true },
            tags: forms_1.tagIds,
        },
        result: (0, schema_1.returns)((0, resources_1.statusResult)(resources_1.adapterSchema)),
        http: {
            method: "POST",
            path: "/adapters",
            access: ["admin"],
            spec: 19,
            summary: "Create an adapter instance",
        },
    },
    list: {
        params: health_query_1.healthQuerySchema,
        result: (0, schema_1.returns)((0, resources_1.resultsPage)((0, schema_1.shape)({ metadata: resources_1.adapterHealthSchema, data: resources_1.adapterSchema }))),
        http: {
            method: "GET",
            path: "/adapters",
            access: define_1.SUPPORT_READ,
            summary: "List adapters: {results: [{metadata (health entry), data (the adapter)}], total}",
        },
    },
    get: {
        params: { name: adapterName },
        result: (0, schema_1.returns)(resources_1.adapterSchema),
        http: { method: "GET", path: "/adapters/:name", access: define_1.SUPPORT_READ, summary: "Read an adapter" },
    },
    delete: {
        params: { name: adapterName },
        result: (0, schema_1.returns)(resources_1.messageSchema),
        http: { method: "DELETE", path: "/adapters/:name", access: define_1.SUPPORT_WRITE, summary: "Delete an adapter" },
    },
    stop: lifecycle("stop", "Stop an adapter: it answers no proxy call and is not health-checked"),
    start: lifecycle("start", "Start a stopped adapter"),
    restart: lifecycle("restart", "Restart an adapter: drop its connections and re-read its settings"),
    healthList: {
        params: health_query_1.healthQuerySchema,
        result: (0, schema_1.returns)(adapterHealthPage),
        http: {
            method: "GET",
            path: "/health/adapters",
            access: "authenticated",
            summary: "Adapter instances, their state and connection state",
        },
    },
    healthGet: {
        params: { name: adapterName },
        result: (0, schema_1.returns)(adapterHealthPage),
        http: {
            method: "GET",
            path: "/health/adapters/:name",
            access: "authenticated",
            summary: "One adapter's state and connection state",
        },
    },
    deviceSources: {
        params: { entity: { ...adapterName, optional: true } },
        result: (0, schema_1.returns)((0, schema_1.arrayOf)(deviceSourceSchema)),
        description: "Internal (the devices service): adapters that can list devices, with their kind and whether they are stopped; 404 when `entity` names no such adapter.",
    },
    listDevices: {
        params: { name: adapterName },
        result: (0, schema_1.returns)((0, schema_1.arrayOf)(resources_1.deviceSchema)),
        description: "Internal (the devices service): an orchestrator adapter's devices, read from its REST API.",
    },
    checkHealth: {
        params: { name: adapterName },
        result: (0, schema_1.returns)(resources_1.adapterHealthSchema),
        description: "Internal: checks one adapter now and stores the outcome (the periodic pass calls the same code).",
    },
});
//# sourceMappingURL=adapters.js.map