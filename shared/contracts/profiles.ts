/**
 * profiles: platform profiles (spec operations 16 and 18). `profileProps` is the one description of
 * a Profile: it validates POST /profiles and is what GET /schema/profiles answers as JSON Schema.
 */
import { defineService, SUPPORT_READ } from "./define";
import {
  anyObj,
  arrayOf,
  bool,
  constant,
  integer,
  named,
  nullable,
  openShape,
  optBool,
  optional,
  optString,
  returns,
  shape,
  str,
  type InferRule,
} from "./schema";
import { catalogMeta, messageSchema, statusResult } from "./resources";
import { repositoryConfig } from "./prebuilts";
import { tagIds } from "./forms";

const port = { type: "number", integer: true, min: 1, max: 65535, optional: true } as const;
const nonNegInt = { type: "number", integer: true, min: 0, optional: true } as const;
const strings = { type: "array", items: { type: "string" }, optional: true } as const;
const obj = <const P extends Record<string, unknown>>(props: P) =>
  ({ type: "object", optional: true, strict: "remove", props }) as const;
const secret = { type: "string", optional: true, secret: true } as const;

export const syslogProps = obj({
  level: optString,
  facility: optString,
  type: optString,
  path: optString,
  pid: optString,
  localhost: optString,
  app_name: optString,
  eol: optString,
});

/** A profile's id: also its name and its path segment (`/profiles/:id`). */
const profileId = {
  type: "string",
  min: 1,
  max: 128,
  pattern: /^[A-Za-z0-9._-]+$/,
  messages: { stringPattern: "The '{field}' field may hold only letters, digits, '.', '_' and '-'." },
} as const;

export const profileProps = {
  id: profileId,
  description: optString,
  services: strings,
  applicationProps: obj({ directory: optString, description: optString }),
  uiProps: obj({
    layout: optString,
    home: optString,
    login: optString,
    profile: optString,
    fav_icon: optString,
    description: optString,
  }),
  authenticationProps: obj({
    uniqueSession: optBool,
    admins: {
      type: "array",
      optional: true,
      items: {
        type: "object",
        strict: "remove",
        props: { provenance: { type: "string" }, group: { type: "string" } },
      },
    },
    description: optString,
    cookieName: {
      type: "string",
      optional: true,
      min: 1,
      max: 64,
      pattern: /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/,
    },
  }),
  expressProps: obj({
    express_http: obj({ enable: optBool, port }),
    express_https: obj({
      enable: optBool,
      port,
      // The TLS private key: a secret like the passphrase that unlocks it.
      key: secret,
      cert: optString,
      secureProtocol: optString,
      client_reneg_limit: nonNegInt,
      client_reneg_window: nonNegInt,
      passphrase: secret,
      ciphers: optString,
    }),
    description: optString,
    cacheControl: optBool,
    timeout: nonNegInt,
    access_control_allow_origin: optString,
  }),
  loggerProps: obj({
    log_directory: optString,
    log_filename: optString,
    log_max_file_size: nonNegInt,
    log_max_files: nonNegInt,
    log_level: optString,
    console_level: optString,
    description: optString,
    log_timezone_offset: { type: "number", optional: true },
    webserver: obj({ log_directory: optString, log_filename: optString }),
    syslog: syslogProps,
  }),
  redisProps: obj({
    host: optString,
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
    name: optString,
    db: nonNegInt,
    password: secret,
    maxRetriesPerRequest: nonNegInt,
    maxHeartbeatWriteRetries: nonNegInt,
  }),
  auditProps: obj({ audit: optBool, brokerValidation: optBool, description: optString }),
  pathProps: obj({ encrypted: optBool, description: optString }),
  alarmProps: {
    type: "array",
    optional: true,
    items: {
      type: "object",
      strict: "remove",
      props: {
        ip: optString,
        community: secret,
        properties: obj({
          retries: nonNegInt,
          timeout: nonNegInt,
          trapPort: port,
          version: optString,
          transport: optString,
        }),
        type: { type: "enum", values: ["trap", "inform"], optional: true },
        description: optString,
      },
    },
  },
  rabbitmq: obj({
    protocol: optString,
    hosts: strings,
    port,
    username: optString,
    password: secret,
    locale: optString,
    frameMax: nonNegInt,
    heartbeat: nonNegInt,
    vhost: optString,
    adminPort: port,
    eventDeduplication: obj({
      active: optBool,
      cacheTtl: nonNegInt,
      cacheSize: nonNegInt,
      cachePersistence: optBool,
      messagePreservation: obj({
        strategy: optString,
        preserveMessages: optBool,
        tempQueueName: optString,
        shovelName: optString,
        shovelAckMode: optString,
        shovelAddHeaders: optBool,
        shovelPrefetchCount: nonNegInt,
        shovelReconnectDelay: nonNegInt,
        maxTransferWait: nonNegInt,
        transferWaitPollIncrement: nonNegInt,
      }),
    }),
  }),
  adapterStrategy: obj({
    device: obj({ adapterTypes: strings, exceptions: obj({ runCommand: optString }) }),
  }),
  systemProps: obj({
    shutdownTimeout: nonNegInt,
    launchDelay: nonNegInt,
    launchTimeout: nonNegInt,
    deadProcessCheck: optBool,
    deadProcessCheckInterval: nonNegInt,
    deadProcessMaxPeriod: nonNegInt,
    servicesBlacklist: strings,
  }),
  prebuiltProps: obj({
    repoConfigs: { type: "record", optional: true, key: { type: "string", min: 1 }, value: repositoryConfig },
  }),
  integrationProps: obj({ threadCount: nonNegInt, timeout: nonNegInt }),
  retryStrategy: obj({ maxRetries: nonNegInt, retryResetTimer: nonNegInt }),
} as const;

/**
 * A profile as the API answers it: the members `profileProps` describes (secrets in their sealed
 * `enc:v1:...` form), its tags, whether it is the active one, and any other member it was given.
 */
const profileSchema = named(
  "Profile",
  openShape({
    ...profileProps,
    tags: optional(arrayOf(str)),
    active: optional(bool),
    _meta: optional(catalogMeta),
  }),
);
export type Profile = InferRule<typeof profileSchema>;

/** Profile fields stored encrypted (docs/platform-rules.md#secrets), as JSON pointers. */
export const PROFILE_ENCRYPTED_POINTERS = [
  "/expressProps/express_https/key",
  "/expressProps/express_https/passphrase",
  "/redisProps/password",
  "/rabbitmq/password",
  "/alarmProps/*/community",
  "/prebuiltProps/repoConfigs/*/credentials/token",
] as const;

/**
 * What POST /profiles answers in `data` (docs/catalog.md): the profile as an artifact package, the
 * unit a profile is exported and imported as. Secrets inside are in their stored encrypted form.
 */
const profilePackageSchema = shape({
  metadata: shape({
    name: str,
    type: constant("profile"),
    description: str,
    created: str,
    createdBy: str,
    platformVersion: str,
    active: bool,
  }),
  manifest: shape({
    bundleName: str,
    /** SHA-256 (hex) of the JSON text of the bundle's `data`. */
    fingerprint: str,
    createdEpoch: integer,
    artifacts: arrayOf(
      shape({
        id: str,
        name: str,
        type: constant("profile"),
        /** JSON pointer into this package of the artifact's bundle. */
        location: str,
        properties: shape({ encrypted: arrayOf(str) }),
      }),
    ),
  }),
  bundles: arrayOf(shape({ type: constant("profile"), data: profileSchema })),
  readme: str,
});
export type ProfilePackage = InferRule<typeof profilePackageSchema>;

export const profiles = defineService("profiles", {
  schema: {
    params: {},
    result: returns(
      shape({ schema: anyObj, decorators: arrayOf(shape({ type: constant("encryption"), pointer: str })) }),
    ),
    http: {
      method: "GET",
      path: "/schema/profiles",
      access: "authenticated",
      spec: 16,
      summary: "JSON Schema of a profile and its encryption decorators",
    },
  },
  create: {
    idempotent: "keyed",
    params: {
      properties: { type: "object", strict: "remove", props: profileProps },
      tags: tagIds,
    },
    result: returns(statusResult(profilePackageSchema)),
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
    result: returns(
      shape({
        results: arrayOf(
          shape({ metadata: shape({ isActive: bool, activeSync: bool }), profile: profileSchema }),
        ),
        total: integer,
      }),
    ),
    http: { method: "GET", path: "/profiles", access: SUPPORT_READ, summary: "List profiles" },
  },
  get: {
    params: { id: profileId },
    result: returns(profileSchema),
    http: { method: "GET", path: "/profiles/:id", access: SUPPORT_READ, summary: "Read a profile" },
  },
  activate: {
    idempotent: "keyed",
    params: { id: profileId },
    result: returns(statusResult(profileSchema)),
    http: {
      method: "PUT",
      path: "/profiles/:id/active",
      access: ["admin"],
      summary: "Make a profile the active one (its authenticationProps take effect)",
    },
  },
  delete: {
    idempotent: "keyed",
    params: { id: profileId },
    result: returns(messageSchema),
    http: {
      method: "DELETE",
      path: "/profiles/:id",
      access: ["admin"],
      summary: "Delete a profile (not the active one)",
    },
  },
  active: {
    access: "internal",
    idempotent: "repeatable",
    params: {},
    result: returns(nullable(profileSchema)),
    description: "The active profile, read by the gateway and accounts (cookie name, unique sessions).",
  },
});
