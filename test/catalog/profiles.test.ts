/**
 * Profiles over HTTP, in both shapes: the schema (operation 16), create (operation 18) with its
 * artifact package and encrypted fields, list/read, which profile is active (one, switched
 * atomically, even under concurrent activations), and the active profile's effect on login
 * (uniqueSession; the gateway's cookie name).
 */
import { createHash } from "node:crypto";
import { call } from "../../shared/contracts";
import { PROFILE_ACTIVATED_EVENT } from "../../shared/contracts/events";
import { profileProps, PROFILE_ENCRYPTED_POINTERS } from "../../shared/contracts/profiles";
import { propsToJsonSchema } from "../../shared/contracts/schema";
import { describeInBothShapes } from "../support/shapes";
import { client, expectError, login, request, ROLE_HOLDER_PASSWORD, type Reply } from "../support/platform";
import { eventually } from "../support/processes";
import {
  adminClient,
  clientWithRoles,
  expectNoPlaintext,
  expectSealed,
  fieldsOf,
  listenersKnown,
  tracked,
  type Client,
} from "../support/catalog";

const SECRETS = {
  passphrase: "https-passphrase-plain-7f3a",
  tlsKey: "-----BEGIN PRIVATE KEY----- tls-key-plain-5e5e",
  redis: "redis-password-plain-91bc",
  rabbit: "rabbit-password-plain-44de",
  community0: "snmp-community-plain-0aa1",
  community1: "snmp-community-plain-1bb2",
  repoToken: "repo-token-plain-c0ffee",
};

/** Every member the spec lists, with the types it shows. */
const FULL = {
  id: "production",
  description: "Production settings",
  services: ["WorkFlowEngine", "AutomationCatalog"],
  applicationProps: { directory: "/opt/platform", description: "app" },
  uiProps: {
    layout: "main",
    home: "/",
    login: "/login",
    profile: "/me",
    fav_icon: "/f.ico",
    description: "ui",
  },
  authenticationProps: {
    uniqueSession: false,
    admins: [{ provenance: "local", group: "admins" }],
    description: "auth",
    cookieName: "prodsession",
  },
  expressProps: {
    express_http: { enable: false, port: 3000 },
    express_https: {
      enable: true,
      port: 3443,
      key: SECRETS.tlsKey,
      cert: "/etc/tls/cert.pem",
      secureProtocol: "TLSv1_2_method",
      client_reneg_limit: 3,
      client_reneg_window: 600,
      passphrase: SECRETS.passphrase,
      ciphers: "HIGH:!aNULL",
    },
    description: "express",
    cacheControl: true,
    timeout: 300000,
    access_control_allow_origin: "*",
  },
  loggerProps: {
    log_directory: "/var/log",
    log_filename: "platform.log",
    log_max_file_size: 1048576,
    log_max_files: 10,
    log_level: "info",
    console_level: "warn",
    description: "logs",
    log_timezone_offset: -5,
    webserver: { log_directory: "/var/log/web", log_filename: "web.log" },
    syslog: { level: "warning", facility: "local0", type: "udp4", app_name: "platform", eol: "\n" },
  },
  redisProps: {
    sentinels: [
      { host: "redis-1", port: 26379 },
      { host: "redis-2", port: 26379 },
    ],
    name: "mymaster",
    db: 0,
    password: SECRETS.redis,
    maxRetriesPerRequest: 20,
    maxHeartbeatWriteRetries: 20,
  },
  auditProps: { audit: true, brokerValidation: false, description: "audit" },
  pathProps: { encrypted: true, description: "paths" },
  alarmProps: [
    {
      ip: "10.0.0.9",
      community: SECRETS.community0,
      properties: { retries: 1, timeout: 5000, trapPort: 162, version: "v2c", transport: "udp4" },
      type: "trap",
      description: "noc",
    },
    { ip: "10.0.0.10", community: SECRETS.community1, type: "inform" },
  ],
  rabbitmq: {
    protocol: "amqp",
    hosts: ["mq-1", "mq-2"],
    port: 5672,
    username: "platform",
    password: SECRETS.rabbit,
    locale: "en_US",
    frameMax: 0,
    heartbeat: 60,
    vhost: "/",
    adminPort: 15672,
    eventDeduplication: {
      active: true,
      cacheTtl: 60000,
      cacheSize: 1000,
      cachePersistence: false,
      messagePreservation: {
        strategy: "shovel",
        preserveMessages: true,
        tempQueueName: "tmp",
        shovelName: "sh",
        shovelAckMode: "on-confirm",
        shovelAddHeaders: false,
        shovelPrefetchCount: 10,
        shovelReconnectDelay: 5,
        maxTransferWait: 30000,
        transferWaitPollIncrement: 500,
      },
    },
  },
  adapterStrategy: { device: { adapterTypes: ["NSO"], exceptions: { runCommand: "NSO" } } },
  systemProps: {
    shutdownTimeout: 3,
    launchDelay: 5,
    launchTimeout: 600,
    deadProcessCheck: true,
    deadProcessCheckInterval: 5,
    deadProcessMaxPeriod: 15,
    servicesBlacklist: ["Legacy"],
  },
  prebuiltProps: {
    repoConfigs: {
      gitlab: {
        enabled: true,
        type: "gitlab",
        hostname: "git.example.net",
        path: "/prebuilts",
        credentials: { token: SECRETS.repoToken },
        versionStatus: "released",
      },
    },
  },
  integrationProps: { threadCount: 5, timeout: 15000 },
  retryStrategy: { maxRetries: 5, retryResetTimer: 30000 },
};

/** FULL as stored: the decorator fields in their encrypted form (checked separately). */
function withoutSecrets(p: any) {
  const copy = structuredClone(p);
  delete copy.expressProps.express_https.key;
  delete copy.expressProps.express_https.passphrase;
  delete copy.redisProps.password;
  delete copy.rabbitmq.password;
  for (const alarm of copy.alarmProps) delete alarm.community;
  delete copy.prebuiltProps.repoConfigs.gitlab.credentials.token;
  return copy;
}

describeInBothShapes("profiles", (platform) => {
  const seen: Reply[] = [];
  let admin: Client;
  let writer: Client; // apiwrite: may read profiles, may not activate or delete
  let operator: Client; // operator: may create (any signed-in caller) but not read the list
  let created: Reply;

  beforeAll(async () => {
    admin = await adminClient(platform(), seen);
    writer = tracked(await clientWithRoles(platform(), admin, ["apiwrite"]), seen);
    operator = tracked(await clientWithRoles(platform(), admin, ["operator"]), seen);
  });

  /** GET /profiles's profiles: `{results: [{metadata, profile}], total}`, as the real product lists them. */
  const listed = (reply: Reply) => reply.body.results.map((r: { profile: any }) => r.profile);
  const ids = (reply: Reply) => listed(reply).map((p: { id: string }) => p.id);
  const activeOf = (reply: Reply) =>
    listed(reply)
      .filter((p: { active: boolean }) => p.active)
      .map((p: any) => p.id);

  describe("before any profile exists", () => {
    test("the list is empty, nothing is active, logins keep older sessions", async () => {
      expect((await admin.get("/profiles")).body).toEqual({ results: [], total: 0 });
      expect(await call(platform().broker, "profiles.active", {})).toBeNull();
      const user = await clientWithRoles(platform(), admin, ["apiread"]);
      const first = await login(
        platform().baseUrl,
        (await user.get("/whoami")).body.account.username,
        ROLE_HOLDER_PASSWORD,
      );
      expect((await client(platform().baseUrl, first).get("/whoami")).status).toBe(200);
      expect((await user.get("/whoami")).status).toBe(200);
    });
  });

  describe("operation 16: GET /schema/profiles", () => {
    test("a non-admin's profile does not become active by being first (it would set the session rules)", async () => {
      const reply = await operator.post("/profiles", {
        properties: { id: "early-bird", authenticationProps: { cookieName: "hijack", uniqueSession: true } },
      });
      expect(reply.status).toBe(200);
      expect(reply.body.data.metadata.active).toBe(false);
      expect(await call(platform().broker, "profiles.active", {})).toBeNull();
      expect((await admin.get("/profiles")).body).toEqual({
        results: [
          {
            metadata: { isActive: false, activeSync: false },
            profile: expect.objectContaining({ id: "early-bird", active: false }),
          },
        ],
        total: 1,
      });
      expect((await admin.delete("/profiles/early-bird")).status).toBe(200);
    });

    test("the JSON Schema is generated from the rules that validate POST /profiles", async () => {
      const reply = await operator.get("/schema/profiles"); // any signed-in caller
      expect(reply.status).toBe(200);
      const { schema } = reply.body;
      expect(schema).toEqual({
        $schema: "https://json-schema.org/draft/2020-12/schema",
        title: "Profile",
        ...JSON.parse(JSON.stringify(propsToJsonSchema(profileProps))),
      });
      expect(schema.required).toEqual(["id"]);
      expect(Object.keys(schema.properties)).toEqual(Object.keys(FULL));
      expect(schema.properties.expressProps.properties.express_http.properties.port).toEqual({
        type: "integer",
        minimum: 1,
        maximum: 65535,
      });
      expect(schema.properties.authenticationProps.properties.uniqueSession).toEqual({ type: "boolean" });
      expect(schema.properties.expressProps.properties.timeout).toEqual({ type: "integer", minimum: 0 });
      expect(schema.properties.alarmProps.items.properties.type).toEqual({ enum: ["trap", "inform"] });
    });

    test("decorators name every encrypted field; each is a write-only string in the schema", async () => {
      const { schema, decorators } = (await admin.get("/schema/profiles")).body;
      expect(decorators).toEqual(
        PROFILE_ENCRYPTED_POINTERS.map((pointer) => ({ type: "encryption", pointer })),
      );
      for (const { pointer } of decorators) {
        let node = schema;
        for (const token of pointer.slice(1).split("/")) {
          node = token === "*" ? (node.items ?? node.additionalProperties) : node.properties[token];
        }
        expect({ pointer, node }).toEqual({ pointer, node: { type: "string", writeOnly: true } });
      }
    });

    test("no credentials: 401", async () => {
      expectError(await client(platform().baseUrl).get("/schema/profiles"), 401, "UNAUTHORIZED");
    });
  });

  describe("operation 18: POST /profiles", () => {
    test("creates the profile and answers it as an artifact package; the first one is active", async () => {
      created = await admin.post("/profiles", {
        properties: { ...FULL, bogus: "dropped" },
        tags: ["0123456789abcdef01234567"],
      });
      expect(created.status).toBe(200);
      const { status, message, data } = created.body;
      expect({ status, message }).toEqual({
        status: "OK",
        message: "Profile 'production' created and active",
      });
      expect(Object.keys(data)).toEqual(["metadata", "manifest", "bundles", "readme"]);
      const adminId = (await admin.get("/whoami")).body.account._id;
      expect(data.metadata).toEqual({
        name: "production",
        type: "profile",
        description: "Production settings",
        created: expect.any(String),
        createdBy: adminId,
        platformVersion: expect.stringMatching(/^\d+\.\d+\.\d+/),
        active: true,
      });
      const bundle = data.bundles[0];
      expect(data.bundles).toHaveLength(1);
      expect(bundle.type).toBe("profile");
      expect(withoutSecrets(bundle.data)).toEqual(withoutSecrets(FULL)); // `bogus` is not stored
      expect(data.manifest).toEqual({
        bundleName: "production",
        fingerprint: createHash("sha256").update(JSON.stringify(bundle.data)).digest("hex"),
        createdEpoch: Date.parse(data.metadata.created),
        artifacts: [
          {
            id: "production",
            name: "production",
            type: "profile",
            location: "/bundles/0",
            properties: {
              encrypted: [
                "/expressProps/express_https/key",
                "/expressProps/express_https/passphrase",
                "/redisProps/password",
                "/rabbitmq/password",
                "/alarmProps/0/community",
                "/alarmProps/1/community",
                "/prebuiltProps/repoConfigs/gitlab/credentials/token",
              ],
            },
          },
        ],
      });
      expect(data.readme).toMatch(/^# Profile production\n/);
      expect(data.readme).toContain("Active: yes");
    });

    test("the decorator fields are stored encrypted: the answer carries the stored form", async () => {
      const p = created.body.data.bundles[0].data;
      expectSealed(platform(), p.expressProps.express_https.passphrase, SECRETS.passphrase);
      expectSealed(platform(), p.redisProps.password, SECRETS.redis);
      expectSealed(platform(), p.rabbitmq.password, SECRETS.rabbit);
      expectSealed(platform(), p.alarmProps[0].community, SECRETS.community0);
      expectSealed(platform(), p.alarmProps[1].community, SECRETS.community1);
      expectSealed(platform(), p.prebuiltProps.repoConfigs.gitlab.credentials.token, SECRETS.repoToken);
      expect(p.rabbitmq.username).toBe("platform"); // not a secret
    });

    test("a value already in the encrypted form is sealed again, not trusted", async () => {
      const stolen = created.body.data.bundles[0].data.redisProps.password;
      const reply = await admin.post("/profiles", {
        properties: { id: "copycat", redisProps: { password: stolen } },
      });
      expect(reply.status).toBe(200);
      const stored = reply.body.data.bundles[0].data.redisProps.password;
      expect(stored).not.toBe(stolen);
      expectSealed(platform(), stored, stolen);
    });

    test("any signed-in caller may create a profile (roles: not shown); it does not become active", async () => {
      const reply = await operator.post("/profiles", {
        properties: {
          id: "staging",
          authenticationProps: { uniqueSession: true, cookieName: "stagesession" },
        },
      });
      expect(reply.status).toBe(200);
      expect(reply.body.message).toBe("Profile 'staging' created");
      expect(reply.body.data.metadata.active).toBe(false);
      expect(reply.body.data.manifest.artifacts[0].properties.encrypted).toEqual([]);
      expectError(
        await client(platform().baseUrl).post("/profiles", { properties: { id: "anon" } }),
        401,
        "UNAUTHORIZED",
      );
    });

    test("a duplicate id is a 409 and changes nothing", async () => {
      const reply = await admin.post("/profiles", { properties: { id: "production", description: "other" } });
      expectError(reply, 409, "CONFLICT");
      expect((await admin.get("/profiles/production")).body.description).toBe("Production settings");
    });

    test.each([
      ["id missing", { description: "x" }, "properties.id"],
      ["id with a slash", { id: "a/b" }, "properties.id"],
      [
        "port above 65535",
        { id: "bad", expressProps: { express_http: { port: 70000 } } },
        "properties.expressProps.express_http.port",
      ],
      ["port 0", { id: "bad", redisProps: { port: 0 } }, "properties.redisProps.port"],
      [
        "port not an integer",
        { id: "bad", expressProps: { express_https: { port: 8443.5 } } },
        "properties.expressProps.express_https.port",
      ],
      ["port as text", { id: "bad", rabbitmq: { port: "5672" } }, "properties.rabbitmq.port"],
      [
        "boolean as text",
        { id: "bad", authenticationProps: { uniqueSession: "true" } },
        "properties.authenticationProps.uniqueSession",
      ],
      [
        "cacheControl as a number",
        { id: "bad", expressProps: { cacheControl: 1 } },
        "properties.expressProps.cacheControl",
      ],
      [
        "cookieName with a space",
        { id: "bad", authenticationProps: { cookieName: "my cookie" } },
        "properties.authenticationProps.cookieName",
      ],
      ["alarm type unknown", { id: "bad", alarmProps: [{ type: "email" }] }, "properties.alarmProps[0].type"],
      [
        "sentinel without port",
        { id: "bad", redisProps: { sentinels: [{ host: "r" }] } },
        "properties.redisProps.sentinels[0].port",
      ],
      ["negative timeout", { id: "bad", expressProps: { timeout: -1 } }, "properties.expressProps.timeout"],
      ["services not an array", { id: "bad", services: "WorkFlowEngine" }, "properties.services"],
      [
        "repo token not a string",
        { id: "bad", prebuiltProps: { repoConfigs: { g: { credentials: { token: 5 } } } } },
        "properties.prebuiltProps.repoConfigs.g.credentials.token",
      ],
      [
        "password not a string",
        { id: "bad", redisProps: { password: 1234 } },
        "properties.redisProps.password",
      ],
    ])("invalid: %s -> 400 naming the field; nothing stored", async (_what, properties, field) => {
      const reply = await admin.post("/profiles", { properties });
      expectError(reply, 400, "VALIDATION_ERROR");
      expect(reply.body.data).toEqual(
        expect.arrayContaining([{ field, message: expect.any(String), type: expect.any(String) }]),
      );
      expectError(await admin.get("/profiles/bad"), 404, "NOT_FOUND");
    });

    test("properties missing or not an object: 400", async () => {
      expect(fieldsOf(await admin.post("/profiles", {}))).toEqual(["properties"]);
      expect(fieldsOf(await admin.post("/profiles", { properties: [] }))).toContain("properties");
    });
  });

  describe("list, read, active", () => {
    test("GET /profiles lists every profile, exactly one active; secrets only in stored form", async () => {
      const reply = await writer.get("/profiles");
      expect(reply.status).toBe(200);
      expect(ids(reply)).toEqual(["copycat", "production", "staging"]);
      expect(reply.body.total).toBe(3);
      expect(activeOf(reply)).toEqual(["production"]);
      // The real product's metadata says which one is active (and applied: activeSync).
      expect(reply.body.results.map((r: { metadata: unknown }) => r.metadata)).toEqual([
        { isActive: false, activeSync: false },
        { isActive: true, activeSync: true },
        { isActive: false, activeSync: false },
      ]);
      const production = listed(reply).find((p: { id: string }) => p.id === "production");
      expect(withoutSecrets(production)).toEqual({
        ...withoutSecrets(FULL),
        tags: ["0123456789abcdef01234567"],
        active: true,
        _meta: { created: expect.any(String), updated: expect.any(String), createdBy: expect.any(String) },
      });
      expectSealed(platform(), production.redisProps.password, SECRETS.redis);
    });

    test("GET /profiles/:id reads one; unknown -> 404; operator may not read", async () => {
      const reply = await writer.get("/profiles/staging");
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual(
        expect.objectContaining({
          id: "staging",
          active: false,
          authenticationProps: { uniqueSession: true, cookieName: "stagesession" },
        }),
      );
      expectError(await writer.get("/profiles/nope"), 404, "NOT_FOUND");
      expectError(await operator.get("/profiles/staging"), 403, "FORBIDDEN");
      expectError(await operator.get("/profiles"), 403, "FORBIDDEN");
    });

    test("profiles.active (over the bus) answers the active profile", async () => {
      const active = await call(platform().broker, "profiles.active", {});
      expect(active).toEqual(expect.objectContaining({ id: "production", active: true }));
      expect(active!.authenticationProps).toEqual(FULL.authenticationProps);
    });
  });

  describe("activation: PUT /profiles/:id/active", () => {
    test("switches the active profile; exactly one stays active", async () => {
      const reply = await admin.put("/profiles/staging/active");
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({
        status: "OK",
        message: "Profile 'staging' is active",
        data: expect.objectContaining({ id: "staging", active: true }),
      });
      expect(activeOf(await admin.get("/profiles"))).toEqual(["staging"]);
      expect((await call(platform().broker, "profiles.active", {}))!.id).toBe("staging");
      expect((await admin.get("/profiles/production")).body.active).toBe(false);
    });

    test("activating the active profile again is harmless", async () => {
      expect((await admin.put("/profiles/staging/active")).status).toBe(200);
      expect(activeOf(await admin.get("/profiles"))).toEqual(["staging"]);
    });

    test("unknown profile -> 404, admin only -> 403; nothing changes", async () => {
      expectError(await admin.put("/profiles/nope/active"), 404, "NOT_FOUND");
      expectError(await writer.put("/profiles/production/active"), 403, "FORBIDDEN");
      expectError(await admin.put("/profiles/a%20b/active"), 400, "VALIDATION_ERROR");
      expect(activeOf(await admin.get("/profiles"))).toEqual(["staging"]);
    });

    test("concurrent activations end with exactly one active profile, the one profiles.active names", async () => {
      const order = ["production", "copycat", "staging", "copycat", "production", "staging", "copycat"];
      const replies = await Promise.all(order.map((id) => admin.put(`/profiles/${id}/active`)));
      expect(replies.map((r) => r.status)).toEqual(order.map(() => 200));
      const active = activeOf(await admin.get("/profiles"));
      expect(active).toHaveLength(1);
      expect((await call(platform().broker, "profiles.active", {}))!.id).toBe(active[0]);
    });

    test("the gateway names the session cookie after the active profile's cookieName", async () => {
      // The broadcast reaches the gateway once the profiles service's node knows it listens.
      await eventually(
        async () => listenersKnown(platform(), platform().broker, PROFILE_ACTIVATED_EVENT),
        20_000,
        "the gateway's listeners to be known",
      );
      expect((await admin.put("/profiles/production/active")).status).toBe(200);
      const user = await clientWithRoles(platform(), admin, ["apiread"]);
      const username = (await user.get("/whoami")).body.account.username;
      await eventually(
        async () => {
          const reply = await request(platform().baseUrl, "POST", "/login", {
            body: { user: { username, password: ROLE_HOLDER_PASSWORD } },
          });
          return (reply.headers.get("set-cookie") ?? "").startsWith("prodsession=");
        },
        10_000,
        "the prodsession cookie",
      );
    });
  });

  describe("the active profile's uniqueSession takes effect on login", () => {
    async function twoLogins() {
      const user = await clientWithRoles(platform(), admin, ["apiread"]);
      const username = (await user.get("/whoami")).body.account.username;
      const first = await login(platform().baseUrl, username, ROLE_HOLDER_PASSWORD);
      expect((await client(platform().baseUrl, first).get("/whoami")).status).toBe(200);
      const second = await login(platform().baseUrl, username, ROLE_HOLDER_PASSWORD);
      return { first: client(platform().baseUrl, first), second: client(platform().baseUrl, second) };
    }

    test("uniqueSession: true -> a second login ends the first session", async () => {
      expect((await admin.put("/profiles/staging/active")).status).toBe(200);
      const { first, second } = await twoLogins();
      expect((await second.get("/whoami")).status).toBe(200);
      await eventually(
        async () => (await first.get("/whoami")).status === 401,
        10_000,
        "the first session to end",
      );
      expectError(await first.get("/whoami"), 401, "UNAUTHORIZED");
    });

    test("uniqueSession: false -> both sessions stay", async () => {
      expect((await admin.put("/profiles/production/active")).status).toBe(200);
      const { first, second } = await twoLogins();
      expect((await second.get("/whoami")).status).toBe(200);
      expect((await first.get("/whoami")).status).toBe(200);
    });
  });

  describe("DELETE /profiles/:id", () => {
    test("deletes an inactive profile; the active one is refused with 409", async () => {
      expectError(await admin.delete("/profiles/production"), 409, "CONFLICT");
      expect((await admin.get("/profiles/production")).status).toBe(200);
      const reply = await admin.delete("/profiles/copycat");
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({ status: "OK", message: "Profile 'copycat' deleted" });
      expectError(await admin.get("/profiles/copycat"), 404, "NOT_FOUND");
      expectError(await admin.delete("/profiles/copycat"), 404, "NOT_FOUND");
      expectError(await writer.delete("/profiles/staging"), 403, "FORBIDDEN");
      expectError(await admin.delete("/profiles/a%20b"), 400, "VALIDATION_ERROR");
      expect(ids(await admin.get("/profiles"))).toEqual(["production", "staging"]);
    });
  });

  test("a profile as read is accepted back as a new one: its answer-only members (active, tags, _meta) are dropped", async () => {
    const read = (await admin.get("/profiles/staging")).body;
    expect(read).toEqual(
      expect.objectContaining({ active: false, tags: expect.any(Array), _meta: expect.any(Object) }),
    );
    const reply = await admin.post("/profiles", { properties: { ...read, id: "staging-copy" } });
    expect(reply.status).toBe(200);
    const stored = reply.body.data.bundles[0].data;
    expect(stored.id).toBe("staging-copy");
    for (const member of ["active", "tags", "_meta"]) expect(stored).not.toHaveProperty(member);
    expect((await admin.get("/profiles/staging-copy")).body).toEqual(
      expect.objectContaining({ id: "staging-copy", active: false, tags: [] }),
    );
    expect((await admin.delete("/profiles/staging-copy")).status).toBe(200);
  });

  test("no reply of this suite carries a plaintext secret", () => {
    expectNoPlaintext(seen, Object.values(SECRETS));
  });
});
