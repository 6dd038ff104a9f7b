"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.profiles = exports.PROFILE_ENCRYPTED_POINTERS = exports.profileProps = exports.syslogProps = void 0;
/**
 * profiles: platform profiles (spec operations 16 and 18). `profileProps` is the one description of
 * a Profile: it validates POST /profiles and is what GET /schema/profiles answers as JSON Schema.
 */
const define_1 = require("./define");
const schema_1 = require("./schema");
const resources_1 = require("./resources");
const prebuilts_1 = require("./prebuilts");
const forms_1 = require("./forms");
const port = { type: "number", integer: true, min: 1, max: 65535, optional: true };
const nonNegInt = { type: "number", integer: true, min: 0, optional: true };
const strings = { type: "array", items: { type: "string" }, optional: true };
const obj = (props) => ({ type: "object", optional: true, strict: "remove", props });
const secret = { type: "string", optional: true, secret: true };
exports.syslogProps = obj({
    level: schema_1.optString,
    facility: schema_1.optString,
    type: schema_1.optString,
    path: schema_1.optString,
    pid: schema_1.optString,
    localhost: schema_1.optString,
    app_name: schema_1.optString,
    eol: schema_1.optString,
});
/** A profile's id: also its name and its path segment (`/profiles/:id`). */
const profileId = {
    type: "string",
    min: 1,
    max: 128,
    pattern: /^[A-Za-z0-9._-]+$/,
    messages: { stringPattern: "The '{field}' field may hold only letters, digits, '.', '_' and '-'." },
};
exports.profileProps = {
    id: profileId,
    description: schema_1.optString,
    services: strings,
    applicationProps: obj({ directory: schema_1.optString, description: schema_1.optString }),
    uiProps: obj({
        layout: schema_1.optString,
        home: schema_1.optString,
        login: schema_1.optString,
        profile: schema_1.optString,
        fav_icon: schema_1.optString,
        description: schema_1.optString,
    }),
    authenticationProps: obj({
        uniqueSession: schema_1.optBool,
        admins: {
            type: "array",
            optional: true,
            items: {
                type: "object",
                strict: "remove",
                props: { provenance: { type: "string" }, group: { type: "string" } },
            },
        },
        description: schema_1.optString,
        cookieName: {
            type: "string",
            optional: true,
            min: 1,
            max: 64,
            pattern: /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/,
        },
    }),
    expressProps: obj({
        express_http: obj({ enable: schema_1.optBool, port }),
        express_https: obj({
            enable: schema_1.optBool,
            port,
            // The TLS private key: a secret like the passphrase that unlocks it.
            key: secret,
            cert: schema_1.optString,
            secureProtocol: schema_1.optString,
            client_reneg_limit: nonNegInt,
            client_reneg_window: nonNegInt,
            passphrase: secret,
            ciphers: schema_1.optString,
        }),
        description: schema_1.optString,
        cacheControl: schema_1.optBool,
        timeout: nonNegInt,
        access_control_allow_origin: schema_1.optString,
    }),
    loggerProps: obj({
        log_directory: schema_1.optString,
        log_filename: schema_1.optString,
        log_max_file_size: nonNegInt,
        log_max_files: nonNegInt,
        log_level: schema_1.optString,
        console_level: schema_1.optString,
        description: schema_1.optString,
        log_timezone_offset: { type: "number", optional: true },
        webserver: obj({ log_directory: schema_1.optString, log_filename: schema_1.optString }),
        syslog: exports.syslogProps,
    }),
    redisProps: obj({
        host: schema_1.optString,
        port,
        sentinels: {
            type: "array",
            optional: true,
            items: {
                type: "object",
                strict: "remove",
                props: { host: { type: "string" }, port: { ...port, optional: false } },
            },
        },
        name: schema_1.optString,
        db: nonNegInt,
        password: secret,
        maxRetriesPerRequest: nonNegInt,
        maxHeartbeatWriteRetries: nonNegInt,
    }),
    auditProps: obj({ audit: schema_1.optBool, brokerValidation: schema_1.optBool, description: schema_1.optString }),
    pathProps: obj({ encrypted: schema_1.optBool, description: schema_1.optString }),
    alarmProps: {
        type: "array",
        optional: true,
        items: {
            type: "object",
            strict: "remove",
            props: {
                ip: schema_1.optString,
                community: secret,
                properties: obj({
                    retries: nonNegInt,
                    timeout: nonNegInt,
                    trapPort: port,
                    version: schema_1.optString,
                    transport: schema_1.optString,
                }),
                type: { type: "enum", values: ["trap", "inform"], optional: true },
                description: schema_1.optString,
            },
        },
    },
    rabbitmq: obj({
        protocol: schema_1.optString,
        hosts: strings,
        port,
        username: schema_1.optString,
        password: secret,
        locale: schema_1.optString,
        frameMax: nonNegInt,
        heartbeat: nonNegInt,
        vhost: schema_1.optString,
        adminPort: port,
        eventDeduplication: obj({
            active: schema_1.optBool,
            cacheTtl: nonNegInt,
            cacheSize: nonNegInt,
            cachePersistence: schema_1.optBool,
            messagePreservation: obj({
                strategy: schema_1.optString,
                preserveMessages: schema_1.optBool,
                tempQueueName: schema_1.optString,
                shovelName: schema_1.optString,
                shovelAckMode: schema_1.optString,
                shovelAddHeaders: schema_1.optBool,
                shovelPrefetchCount: nonNegInt,
                shovelReconnectDelay: nonNegInt,
                maxTransferWait: nonNegInt,
                transferWaitPollIncrement: nonNegInt,
            }),
        }),
    }),
    adapterStrategy: obj({
        device: obj({ adapterTypes: strings, exceptions: obj({ runCommand: schema_1.optString }) }),
    }),
    systemProps: obj({
        shutdownTimeout: nonNegInt,
        launchDelay: nonNegInt,
        launchTimeout: nonNegInt,
        deadProcessCheck: schema_1.optBool,
        deadProcessCheckInterval: nonNegInt,
        deadProcessMaxPeriod: nonNegInt,
        servicesBlacklist: strings,
    }),
    prebuiltProps: obj({
        repoConfigs: { type: "record", optional: true, key: { type: "string", min: 1 }, value: prebuilts_1.repositoryConfig },
    }),
    integrationProps: obj({ threadCount: nonNegInt, timeout: nonNegInt }),
    retryStrategy: obj({ maxRetries: nonNegInt, retryResetTimer: nonNegInt }),
};
/**
 * A profile as the API answers it: the members `profileProps` describes (secrets in their sealed
 * `enc:v1:...` form), its tags, whether it is the active one, and any other member it was given.
 */
const profileSchema = (0, schema_1.named)("Profile", (0, schema_1.openShape)({
    ...exports.profileProps,
    tags: (0, schema_1.optional)((0, schema_1.arrayOf)(schema_1.str)),
    active: (0, schema_1.optional)(schema_1.bool),
    _meta: (0, schema_1.optional)(resources_1.catalogMeta),
}));
/** Profile fields stored encrypted (docs/platform-rules.md#secrets), as JSON pointers. */
exports.PROFILE_ENCRYPTED_POINTERS = [
    "/expressProps/express_https/key",
    "/expressProps/express_https/passphrase",
    "/redisProps/password",
    "/rabbitmq/password",
    "/alarmProps/*/community",
    "/prebuiltProps/repoConfigs/*/credentials/token",
];
/**
 * What POST /profiles answers in `data` (docs/catalog.md): the profile as an artifact package, the
 * unit a profile is exported and imported as. Secrets inside are in their stored encrypted form.
 */
const profilePackageSchema = (0, schema_1.shape)({
    metadata: (0, schema_1.shape)({
        name: schema_1.str,
        type: (0, schema_1.constant)("profile"),
        description: schema_1.str,
        created: schema_1.str,
        createdBy: schema_1.str,
        platformVersion: schema_1.str,
        active: schema_1.bool,
    }),
    manifest: (0, schema_1.shape)({
        bundleName: schema_1.str,
        /** SHA-256 (hex) of the JSON text of the bundle's `data`. */
        fingerprint: schema_1.str,
        createdEpoch: schema_1.integer,
        artifacts: (0, schema_1.arrayOf)((0, schema_1.shape)({
            id: schema_1.str,
            name: schema_1.str,
            type: (0, schema_1.constant)("profile"),
            /** JSON pointer into this package of the artifact's bundle. */
            location: schema_1.str,
            properties: (0, schema_1.shape)({ encrypted: (0, schema_1.arrayOf)(schema_1.str) }),
        })),
    }),
    bundles: (0, schema_1.arrayOf)((0, schema_1.shape)({ type: (0, schema_1.constant)("profile"), data: profileSchema })),
    readme: schema_1.str,
});
exports.profiles = (0, define_1.defineService)("profiles", {
    schema: {
        params: {},
        result: (0, schema_1.returns)((0, schema_1.shape)({ schema: schema_1.anyObj, decorators: (0, schema_1.arrayOf)((0, schema_1.shape)({ type: (0, schema_1.constant)("encryption"), pointer: schema_1.str })) })),
        http: {
            method: "GET",
            path: "/schema/profiles",
            access: "authenticated",
            spec: 16,
            summary: "JSON Schema of a profile and its encryption decorators",
        },
    },
    create: {
        params: {
            properties: { type: "object", strict: "remove", props: exports.profileProps },
            tags: forms_1.tagIds,
        },
        result: (0, schema_1.returns)((0, resources_1.statusResult)(profilePackageSchema)),
        http: {
            method: "POST",
            path: "/profiles",
            access: "authenticated",
            spec: 18,
            summary: "Create a profile (the first one becomes the active profile)",
        },
    },
    list: {
        params: {},
        result: (0, schema_1.returns)((0, schema_1.arrayOf)(profileSchema)),
        http: { method: "GET", path: "/profiles", access: define_1.SUPPORT_READ, summary: "List profiles" },
    },
    get: {
        params: { id: profileId },
        result: (0, schema_1.returns)(profileSchema),
        http: { method: "GET", path: "/profiles/:id", access: define_1.SUPPORT_READ, summary: "Read a profile" },
    },
    activate: {
        params: { id: profileId },
        result: (0, schema_1.returns)((0, resources_1.statusResult)(profileSchema)),
        http: {
            method: "PUT",
            path: "/profiles/:id/active",
            access: ["admin"],
            summary: "Make a profile the active one (its authenticationProps take effect)",
        },
    },
    delete: {
        params: { id: profileId },
        result: (0, schema_1.returns)(resources_1.messageSchema),
        http: {
            method: "DELETE",
            path: "/profiles/:id",
            access: ["admin"],
            summary: "Delete a profile (not the active one)",
        },
    },
    active: {
        params: {},
        result: (0, schema_1.returns)((0, schema_1.nullable)(profileSchema)),
        description: "The active profile, read by the gateway and accounts (cookie name, unique sessions).",
    },
});
//# sourceMappingURL=profiles.js.map