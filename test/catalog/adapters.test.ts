/**
 * Adapters over HTTP, in both shapes: create (operation 19) with every spec constraint, its
 * `profiling` and `virtual` booleans and encrypted credentials; list, read, delete.
 */
import { describeInBothShapes } from "../support/shapes";
import { client, expectError, type Reply } from "../support/platform";
import {
  adminClient,
  clientWithRoles,
  expectNoPlaintext,
  expectSealed,
  fieldsOf,
  tracked,
  type Client,
} from "../support/catalog";

const SECRETS = {
  password: "nso-password-plain-1a2b",
  token: "nso-token-plain-3c4d",
  apiKey: "nso-apikey-plain-5e6f",
  community: "snmp-community-plain-7a8b",
  privateKey: "-----BEGIN KEY----- plain-9c0d",
  clientSecret: "oauth-client-secret-plain-e1f2",
};

const NSO = {
  name: "nso-lab",
  type: "Application",
  properties: {
    id: "nso-lab",
    type: "NSO",
    properties: {
      host: "10.0.0.1",
      port: 8080,
      protocol: "https",
      username: "admin",
      password: SECRETS.password,
      authentication: { auth_method: "token", token: SECRETS.token, tokenUrl: "/api/login" },
      apiKey: SECRETS.apiKey,
      snmp: [{ version: "v2c", community: SECRETS.community }],
      ssh: { ssh_private_key: SECRETS.privateKey, useToken: false },
      oauth: { client_secret: SECRETS.clientSecret, client_id: "platform" },
    },
    brokers: ["device", "config"],
    groups: ["netops"],
  },
  loggerProps: {
    log_max_files: 5,
    log_max_file_size: 1048576,
    log_level: "info",
    log_directory: "/var/log/adapters",
    log_filename: "nso-lab.log",
    console_level: "warn",
    description: "NSO lab logs",
    log_timezone_offset: 0,
    metrics_filename: "nso-lab-metrics.log",
    metrics_max_files: 3,
    metrics_rotation_interval: "1d",
    metrics_rotation_size: "10M",
    syslog: { level: "warning", facility: "local1" },
  },
  isEncrypted: false,
  model: "@platform/adapter-nso",
};

describeInBothShapes("adapters", (platform) => {
  const seen: Reply[] = [];
  let admin: Client;
  let writer: Client; // apiwrite: may read and delete, may not create (admin only)
  let reader: Client; // apiread: may read, may not delete
  let operator: Client; // operator: none of the adapter roles
  let created: Reply;

  beforeAll(async () => {
    admin = await adminClient(platform(), seen);
    writer = tracked(await clientWithRoles(platform(), admin, ["apiwrite"]), seen);
    reader = tracked(await clientWithRoles(platform(), admin, ["apiread"]), seen);
    operator = tracked(await clientWithRoles(platform(), admin, ["operator"]), seen);
  });

  describe("operation 19: POST /adapters", () => {
    test("creates the adapter; data carries profiling and virtual; credentials only encrypted", async () => {
      created = await admin.post("/adapters", {
        properties: { ...NSO, bogus: "dropped" },
        description: "NSO in the lab",
        tags: ["0123456789abcdef01234567"],
      });
      expect(created.status).toBe(200);
      const { status, message, data } = created.body;
      expect({ status, message }).toEqual({ status: "OK", message: "Adapter 'nso-lab' created" });
      const settings = data.properties.properties;
      expect(data).toEqual({
        _id: expect.stringMatching(/^[0-9a-f]{24}$/),
        name: "nso-lab",
        type: "Application",
        description: "NSO in the lab",
        tags: ["0123456789abcdef01234567"],
        properties: {
          id: "nso-lab",
          type: "NSO",
          properties: {
            host: "10.0.0.1",
            port: 8080,
            protocol: "https",
            username: "admin",
            password: settings.password,
            authentication: {
              auth_method: "token",
              token: settings.authentication.token,
              tokenUrl: "/api/login",
            },
            apiKey: settings.apiKey,
            snmp: [{ version: "v2c", community: settings.snmp[0].community }],
            ssh: { ssh_private_key: settings.ssh.ssh_private_key, useToken: false },
            oauth: { client_secret: settings.oauth.client_secret, client_id: "platform" },
          },
          brokers: ["device", "config"],
          groups: ["netops"],
        },
        loggerProps: NSO.loggerProps,
        isEncrypted: true, // what the stored instance holds, whatever the caller said
        model: "@platform/adapter-nso",
        profiling: true, // loggerProps.metrics_filename is set
        virtual: false, // it has a host
        _meta: { created: expect.any(String), updated: expect.any(String), createdBy: expect.any(String) },
      });
      expectSealed(platform(), settings.password, SECRETS.password);
      expectSealed(platform(), settings.authentication.token, SECRETS.token);
      expectSealed(platform(), settings.apiKey, SECRETS.apiKey);
      expectSealed(platform(), settings.snmp[0].community, SECRETS.community);
      expectSealed(platform(), settings.ssh.ssh_private_key, SECRETS.privateKey);
      expectSealed(platform(), settings.oauth.client_secret, SECRETS.clientSecret);
    });

    test("an adapter without a network target is virtual; without metrics it is not profiling", async () => {
      const reply = await admin.post("/adapters", {
        properties: {
          name: "local_aaa",
          type: "Application",
          properties: { id: "local_aaa", type: "local_aaa", properties: { database: "platform" } },
        },
      });
      expect(reply.status).toBe(200);
      expect(reply.body.data).toEqual(
        expect.objectContaining({ name: "local_aaa", profiling: false, virtual: true, isEncrypted: false }),
      );
      expect(reply.body.data.properties.properties).toEqual({ database: "platform" });
    });

    test("the Adapter as read is accepted back: its answer-only members are ignored, answered from the settings", async () => {
      // profiling, virtual and isEncrypted describe the stored settings (docs/catalog.md#adapters-operation-19):
      // a client that resends an adapter as it read it is not refused, and cannot make them lie.
      const reply = await admin.post("/adapters", {
        properties: {
          name: "as-read",
          type: "Application",
          properties: { id: "as-read", type: "NSO", properties: { host: "10.0.0.9" } },
          isEncrypted: true,
          model: "@platform/adapter-nso",
          profiling: true,
          virtual: true,
        },
      });
      expect(reply.status).toBe(200);
      expect(reply.body.data).toEqual(
        expect.objectContaining({
          name: "as-read",
          model: "@platform/adapter-nso",
          isEncrypted: false,
          profiling: false,
          virtual: false,
        }),
      );
      expect((await admin.delete("/adapters/as-read")).status).toBe(200);
    });

    test("a duplicate name is a 409 and changes nothing", async () => {
      const reply = await admin.post("/adapters", {
        properties: { ...NSO, type: "Other", properties: { ...NSO.properties, type: "Other" } },
      });
      expectError(reply, 409, "CONFLICT");
      expect((await admin.get("/adapters/nso-lab")).body.type).toBe("Application");
    });

    const base = { name: "bad", type: "Application", properties: { id: "bad", type: "NSO" } };
    test.each([
      [
        "properties.id differs from name",
        { ...base, properties: { id: "other", type: "NSO" } },
        "properties.properties.id",
      ],
      ["name missing", { type: "Application", properties: { id: "bad", type: "NSO" } }, "properties.name"],
      ["type missing", { name: "bad", properties: { id: "bad", type: "NSO" } }, "properties.type"],
      ["properties missing", { name: "bad", type: "Application" }, "properties.properties"],
      ["inner id missing", { ...base, properties: { type: "NSO" } }, "properties.properties.id"],
      ["inner type missing", { ...base, properties: { id: "bad" } }, "properties.properties.type"],
      [
        "inner properties not an object",
        { ...base, properties: { id: "bad", type: "NSO", properties: "host=x" } },
        "properties.properties.properties",
      ],
      [
        "brokers not strings",
        { ...base, properties: { id: "bad", type: "NSO", brokers: [1] } },
        "properties.properties.brokers[0]",
      ],
      [
        "name with a slash",
        { ...base, name: "a/b", properties: { id: "a/b", type: "NSO" } },
        "properties.name",
      ],
      [
        "log_max_files not an integer",
        { ...base, loggerProps: { log_max_files: "ten" } },
        "properties.loggerProps.log_max_files",
      ],
      [
        "metrics_rotation_size not a string",
        { ...base, loggerProps: { metrics_rotation_size: 10 } },
        "properties.loggerProps.metrics_rotation_size",
      ],
      [
        "syslog level not a string",
        { ...base, loggerProps: { syslog: { level: 3 } } },
        "properties.loggerProps.syslog.level",
      ],
      ["isEncrypted not a boolean", { ...base, isEncrypted: "no" }, "properties.isEncrypted"],
    ])("invalid: %s -> 400 naming the field; nothing stored", async (_what, properties, field) => {
      const reply = await admin.post("/adapters", { properties });
      expectError(reply, 400, "VALIDATION_ERROR");
      expect(reply.body.data).toEqual(
        expect.arrayContaining([{ field, message: expect.any(String), type: expect.any(String) }]),
      );
      expectError(await admin.get("/adapters/bad"), 404, "NOT_FOUND");
    });

    test("the mismatch message names the expected id", async () => {
      const reply = await admin.post("/adapters", {
        properties: { name: "nso", type: "Application", properties: { id: "other", type: "NSO" } },
      });
      expect(reply.body.data).toEqual([
        {
          field: "properties.properties.id",
          message: "The 'properties.properties.id' field must equal the adapter name ('nso').",
          type: "adapterIdMismatch",
        },
      ]);
    });

    test("properties missing: 400", async () => {
      expect(fieldsOf(await admin.post("/adapters", {}))).toEqual(["properties"]);
    });

    test("admin only: 403 for apiwrite; 401 without credentials", async () => {
      const body = {
        properties: { ...base, name: "by-writer", properties: { id: "by-writer", type: "NSO" } },
      };
      expectError(await writer.post("/adapters", body), 403, "FORBIDDEN");
      expectError(await client(platform().baseUrl).post("/adapters", body), 401, "UNAUTHORIZED");
      expectError(await admin.get("/adapters/by-writer"), 404, "NOT_FOUND");
    });
  });

  describe("list, read, delete", () => {
    test("GET /adapters lists every adapter by name, as created, in the real product's {results: [{metadata, data}], total}", async () => {
      const reply = await reader.get("/adapters");
      expect(reply.status).toBe(200);
      expect(reply.body.total).toBe(2);
      expect(reply.body.results.map((a: { data: { name: string } }) => a.data.name)).toEqual([
        "local_aaa",
        "nso-lab",
      ]);
      expect(reply.body.results[1].data).toEqual(created.body.data);
      expect(reply.body.results[1].metadata).toEqual(
        expect.objectContaining({ id: "nso-lab", state: "RUNNING", connection: expect.any(Object) }),
      );
      // The health reads' query, flat or wrapped as the itential-iap-sdk sends it.
      const one = await reader.get("/adapters?equals=nso-lab&equalsField=id");
      expect(one.body.results.map((a: { data: { name: string } }) => a.data.name)).toEqual(["nso-lab"]);
      const wrapped = await reader.get("/adapters", {
        body: { queryOptions: { sort: "id", order: -1, limit: 1 } },
      });
      expect(wrapped.body).toEqual({
        results: [expect.objectContaining({ metadata: expect.objectContaining({ id: "nso-lab" }) })],
        total: 2,
      });
    });

    test("GET /adapters/:name reads one; unknown -> 404; operator -> 403", async () => {
      const reply = await writer.get("/adapters/nso-lab");
      expect(reply.status).toBe(200);
      // A read adds the lifecycle state and the last health check's connection (docs/orchestrator.md#health).
      expect(reply.body).toEqual({
        ...created.body.data,
        state: "RUNNING",
        connection: expect.objectContaining({ state: expect.any(String) }),
      });
      expectError(await writer.get("/adapters/nope"), 404, "NOT_FOUND");
      expectError(await writer.get("/adapters/bad*name"), 400, "VALIDATION_ERROR");
      expectError(await operator.get("/adapters/nso-lab"), 403, "FORBIDDEN");
      expectError(await operator.get("/adapters"), 403, "FORBIDDEN");
    });

    test("DELETE /adapters/:name: apiread -> 403; apiwrite deletes; then 404", async () => {
      expectError(await reader.delete("/adapters/local_aaa"), 403, "FORBIDDEN");
      const reply = await writer.delete("/adapters/local_aaa");
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({ status: "OK", message: "Adapter 'local_aaa' deleted" });
      expectError(await admin.get("/adapters/local_aaa"), 404, "NOT_FOUND");
      expectError(await admin.delete("/adapters/local_aaa"), 404, "NOT_FOUND");
      expectError(await admin.delete("/adapters/bad*name"), 400, "VALIDATION_ERROR");
      expect(
        (await admin.get("/adapters")).body.results.map((a: { data: { name: string } }) => a.data.name),
      ).toEqual(["nso-lab"]);
    });
  });

  test("no reply of this suite carries a plaintext credential", () => {
    expectNoPlaintext(seen, Object.values(SECRETS));
  });
});
