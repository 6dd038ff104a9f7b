/**
 * Prebuilt repository configurations over HTTP, in both shapes: create (operation 13) with the
 * token stored encrypted, list, delete.
 */
import { describeInBothShapes } from "../support/shapes";
import { client, expectError, type Reply } from "../support/platform";
import {
  adminClient,
  clientWithRoles,
  expectNoPlaintext,
  expectSealed,
  tracked,
  type Client,
} from "../support/catalog";

const TOKEN = "glpat-plain-repository-token-5a5a";
const OTHER_TOKEN = "ghp-plain-other-token-6b6b";

const GITLAB = {
  enabled: true,
  type: "gitlab",
  hostname: "git.example.net",
  path: "/prebuilts",
  credentials: { token: TOKEN },
  versionStatus: "released",
};

describeInBothShapes("prebuilt repository configurations", (platform) => {
  const seen: Reply[] = [];
  let admin: Client;
  let reader: Client; // apiread: may create (spec) and list, may not delete
  let writer: Client; // apiwrite: may list and delete, may not create
  let operator: Client; // operator: none of these roles
  let created: Reply;

  beforeAll(async () => {
    admin = await adminClient(platform(), seen);
    reader = tracked(await clientWithRoles(platform(), admin, ["apiread"]), seen);
    writer = tracked(await clientWithRoles(platform(), admin, ["apiwrite"]), seen);
    operator = tracked(await clientWithRoles(platform(), admin, ["operator"]), seen);
  });

  describe("operation 13: POST /prebuilts-repository/configs", () => {
    test("stores the configuration; the token only in its encrypted form", async () => {
      created = await reader.post("/prebuilts-repository/configs", {
        name: "gitlab",
        config: { ...GITLAB, bogus: "dropped" },
        description: "Prebuilts from the lab GitLab",
        tags: ["0123456789abcdef01234567"],
      });
      expect(created.status).toBe(200);
      const { status, message, data } = created.body;
      expect({ status, message }).toEqual({
        status: "OK",
        message: "Repository configuration 'gitlab' created",
      });
      expect(data).toEqual({
        _id: expect.stringMatching(/^[0-9a-f]{24}$/),
        name: "gitlab",
        description: "Prebuilts from the lab GitLab",
        tags: ["0123456789abcdef01234567"],
        config: { ...GITLAB, credentials: { token: data.config.credentials.token } },
        _meta: { created: expect.any(String), updated: expect.any(String), createdBy: expect.any(String) },
      });
      expectSealed(platform(), data.config.credentials.token, TOKEN);
    });

    test("a configuration without credentials is stored as sent", async () => {
      const reply = await admin.post("/prebuilts-repository/configs", {
        name: "public-mirror",
        config: { enabled: false, type: "github", hostname: "github.com", path: "/org/prebuilts" },
      });
      expect(reply.status).toBe(200);
      expect(reply.body.data.config).toEqual({
        enabled: false,
        type: "github",
        hostname: "github.com",
        path: "/org/prebuilts",
      });
      expect(reply.body.data.description).toBe("");
      expect(reply.body.data.tags).toEqual([]);
    });

    test("a duplicate name is a 409 and changes nothing", async () => {
      const reply = await admin.post("/prebuilts-repository/configs", {
        name: "gitlab",
        config: { ...GITLAB, hostname: "elsewhere", credentials: { token: OTHER_TOKEN } },
      });
      expectError(reply, 409, "CONFLICT");
      const list = (await admin.get("/prebuilts-repository/configs")).body.results;
      expect(list.find((c: { name: string }) => c.name === "gitlab").config.hostname).toBe("git.example.net");
    });

    test.each([
      ["name missing", { config: GITLAB }, "name"],
      ["name empty", { name: "", config: GITLAB }, "name"],
      ["name with a slash", { name: "a/b", config: GITLAB }, "name"],
      ["config missing", { name: "bad" }, "config"],
      ["config not an object", { name: "bad", config: "gitlab" }, "config"],
      ["enabled not a boolean", { name: "bad", config: { enabled: "yes" } }, "config.enabled"],
      ["hostname not a string", { name: "bad", config: { hostname: 42 } }, "config.hostname"],
      ["credentials not an object", { name: "bad", config: { credentials: "t" } }, "config.credentials"],
      [
        "token not a string",
        { name: "bad", config: { credentials: { token: 5 } } },
        "config.credentials.token",
      ],
      ["tags not strings", { name: "bad", config: {}, tags: [1] }, "tags[0]"],
    ])("invalid: %s -> 400 naming the field; nothing stored", async (_what, body, field) => {
      const reply = await admin.post("/prebuilts-repository/configs", body);
      expectError(reply, 400, "VALIDATION_ERROR");
      expect(reply.body.data).toEqual(
        expect.arrayContaining([{ field, message: expect.any(String), type: expect.any(String) }]),
      );
      const names = (await admin.get("/prebuilts-repository/configs")).body.results.map(
        (c: { name: string }) => c.name,
      );
      expect(names).toEqual(["gitlab", "public-mirror"]);
    });

    test("roles: admin and apiread only; 401 without credentials", async () => {
      const body = { name: "by-writer", config: { ...GITLAB, credentials: { token: OTHER_TOKEN } } };
      expectError(await writer.post("/prebuilts-repository/configs", body), 403, "FORBIDDEN");
      expectError(await operator.post("/prebuilts-repository/configs", body), 403, "FORBIDDEN");
      expectError(
        await client(platform().baseUrl).post("/prebuilts-repository/configs", body),
        401,
        "UNAUTHORIZED",
      );
    });
  });

  describe("list, delete", () => {
    test("GET lists every configuration by name, token encrypted, as the real product: {results, total}", async () => {
      const reply = await writer.get("/prebuilts-repository/configs");
      expect(reply.status).toBe(200);
      expect(Object.keys(reply.body).sort()).toEqual(["results", "total"]);
      expect(reply.body.total).toBe(2);
      expect(reply.body.results.map((c: { name: string }) => c.name)).toEqual(["gitlab", "public-mirror"]);
      expect(reply.body.results[0]).toEqual(created.body.data);
      expectError(await operator.get("/prebuilts-repository/configs"), 403, "FORBIDDEN");
    });

    test("GET one by name (the URL search results link to); unknown -> 404; token encrypted", async () => {
      const reply = await writer.get("/prebuilts-repository/configs/gitlab");
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual(created.body.data);
      expect(reply.body.config.credentials.token).toMatch(/^enc:v1:/);
      expectError(await writer.get("/prebuilts-repository/configs/nope"), 404, "NOT_FOUND");
      expectError(await operator.get("/prebuilts-repository/configs/gitlab"), 403, "FORBIDDEN");
    });

    test("DELETE: apiread -> 403; apiwrite deletes; unknown -> 404", async () => {
      expectError(await reader.delete("/prebuilts-repository/configs/public-mirror"), 403, "FORBIDDEN");
      const reply = await writer.delete("/prebuilts-repository/configs/public-mirror");
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({
        status: "OK",
        message: "Repository configuration 'public-mirror' deleted",
      });
      expectError(await admin.delete("/prebuilts-repository/configs/public-mirror"), 404, "NOT_FOUND");
      const names = (await admin.get("/prebuilts-repository/configs")).body.results.map(
        (c: { name: string }) => c.name,
      );
      expect(names).toEqual(["gitlab"]);
    });
  });

  test("no reply of this suite carries a plaintext token", () => {
    expectNoPlaintext(seen, [TOKEN, OTHER_TOKEN]);
  });
});
