/**
 * The accounts service: operation 4 with every queryOptions member, groups and roles, passwords,
 * the bootstrap admin — over HTTP, and through the broker for the actions other services call.
 */
import fs from "node:fs";
import path from "node:path";
import { call } from "../../shared/contracts";
import { loadConfig } from "../../shared/config";
import { createBroker } from "../../app/broker";
import { serviceSchemas } from "../../app/services";
import {
  client,
  expectError,
  login,
  request,
  startPlatform,
  tempDir,
  tracked,
  type Client,
  type Platform,
  type Reply,
} from "../support/platform";

const PW = "correct-horse-battery";
let platform: Platform;
let admin: Client;
/** Every reply this suite sees, to prove no password hash ever leaves the service. */
const seen: Reply[] = [];

const names = (reply: Reply) => reply.body.results.map((a: { username: string }) => a.username);

beforeAll(async () => {
  platform = await startPlatform();
  admin = tracked(client(platform.baseUrl, await login(platform.baseUrl)), seen);
  expect(
    (await admin.post("/user-management/groups", { name: "readers", assignedRoles: ["apiread"] })).status,
  ).toBe(200);
  expect(
    (
      await admin.post("/user-management/groups", {
        name: "netops",
        memberOf: ["readers"],
        assignedRoles: ["engineering"],
      })
    ).status,
  ).toBe(200);
  const people = [
    { username: "alice", firstname: "Alice", groups: ["netops"] },
    { username: "albert", firstname: "Albert", groups: ["readers"] },
    { username: "bob", firstname: "Robert", groups: [] },
    { username: "carol", firstname: "Carolina", groups: ["netops"] },
    { username: "dave.smith", firstname: "Dave", groups: [] },
  ];
  for (const p of people)
    expect((await admin.post("/user-management/accounts", { ...p, password: PW })).status).toBe(200);
});
afterAll(() => platform.stop());

describe("operation 4: GET /user-management/accounts queryOptions", () => {
  test("no options: every account, sorted by username, default page", async () => {
    const reply = await admin.get("/user-management/accounts");
    expect(names(reply)).toEqual(["admin", "albert", "alice", "bob", "carol", "dave.smith"]);
    expect(reply.body).toEqual(expect.objectContaining({ skip: 0, limit: 25, total: 6 }));
  });

  test("contains: case-insensitive substring, on username by default", async () => {
    expect(names(await admin.get("/user-management/accounts?contains=AL"))).toEqual(["albert", "alice"]);
  });

  test("contains with containsField", async () => {
    expect(names(await admin.get("/user-management/accounts?contains=rol&containsField=firstname"))).toEqual([
      "carol",
    ]);
  });

  test("equals with equalsField", async () => {
    expect(names(await admin.get("/user-management/accounts?equals=Robert&equalsField=firstname"))).toEqual([
      "bob",
    ]);
    expect(names(await admin.get("/user-management/accounts?equals=rober&equalsField=firstname"))).toEqual(
      [],
    );
  });

  test("startsWith with startsWithField", async () => {
    expect(names(await admin.get("/user-management/accounts?startsWith=a"))).toEqual([
      "admin",
      "albert",
      "alice",
    ]);
    expect(
      names(await admin.get("/user-management/accounts?startsWith=car&startsWithField=firstname")),
    ).toEqual(["carol"]);
  });

  test("the text is data, never a pattern", async () => {
    expect(names(await admin.get(`/user-management/accounts?contains=${encodeURIComponent(".*")}`))).toEqual(
      [],
    );
    expect(names(await admin.get(`/user-management/accounts?contains=${encodeURIComponent(".")}`))).toEqual([
      "dave.smith",
    ]);
    expect((await admin.get(`/user-management/accounts?contains=${encodeURIComponent("(")}`)).status).toBe(
      200,
    );
  });

  test("groupId", async () => {
    const groups = (await admin.get("/user-management/groups?limit=1000")).body.results;
    const netops = groups.find((g: { name: string }) => g.name === "netops");
    expect(names(await admin.get(`/user-management/accounts?groupId=${netops._id}`))).toEqual([
      "alice",
      "carol",
    ]);
  });

  test("skip, limit, sort and order", async () => {
    const page = await admin.get("/user-management/accounts?sort=firstname&order=-1&skip=1&limit=2");
    // by firstname descending: Robert, Dave, Carolina, Alice, Albert, Administrator
    expect(names(page)).toEqual(["dave.smith", "carol"]);
    expect(page.body).toEqual(expect.objectContaining({ skip: 1, limit: 2, total: 6 }));
  });

  test("filters combine", async () => {
    expect(names(await admin.get("/user-management/accounts?startsWith=a&contains=ic"))).toEqual(["alice"]);
  });

  test("an account has the spec's fields and nothing else", async () => {
    const alice = (await admin.get("/user-management/accounts?equals=alice")).body.results[0];
    expect(Object.keys(alice).sort()).toEqual([
      "_id",
      "_meta",
      "firstname",
      "inactive",
      "lastLogin",
      "memberOf",
      "provenance",
      "username",
    ]);
    expect(alice._id).toMatch(/^[0-9a-f]{24}$/);
    expect(alice.memberOf).toEqual([{ groupId: expect.stringMatching(/^[0-9a-f-]{36}$/), aaaManaged: true }]);
  });
});

describe("accounts and groups", () => {
  test("a duplicate username or group name -> 409, and nothing changes", async () => {
    expectError(
      await admin.post("/user-management/accounts", { username: "alice", password: PW }),
      409,
      "CONFLICT",
    );
    expectError(await admin.post("/user-management/groups", { name: "netops" }), 409, "CONFLICT");
    expect((await admin.get("/user-management/accounts?equals=alice")).body.total).toBe(1);
  });

  test("GET /user-management/groups pages by name: {results, total, skip, limit}", async () => {
    const all = (await admin.get("/user-management/groups?limit=1000")).body;
    const names = all.results.map((g: { name: string }) => g.name);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(expect.arrayContaining(["admins", "netops", "readers"]));
    expect(all).toEqual(expect.objectContaining({ skip: 0, limit: 1000, total: names.length }));
    const page = (await admin.get("/user-management/groups?skip=1&limit=2")).body;
    expect(page).toEqual({ results: all.results.slice(1, 3), total: names.length, skip: 1, limit: 2 });
    expect((await admin.get("/user-management/groups")).body.limit).toBe(25);
    expectError(await admin.get("/user-management/groups?limit=0"), 400, "VALIDATION_ERROR");
  });

  test("an unknown group -> 400 naming it, and no account is created", async () => {
    const body = expectError(
      await admin.post("/user-management/accounts", { username: "eve", password: PW, groups: ["ghosts"] }),
      400,
      "VALIDATION_ERROR",
    );
    expect(body.data).toEqual([{ field: "groups", message: "Unknown group 'ghosts'", type: "unknownGroup" }]);
    expect((await admin.get("/user-management/accounts?equals=eve")).body.total).toBe(0);
  });

  test("a short password or a bad username -> 400", async () => {
    expectError(
      await admin.post("/user-management/accounts", { username: "frank", password: "short" }),
      400,
      "VALIDATION_ERROR",
    );
    expectError(
      await admin.post("/user-management/accounts", { username: "frank smith", password: PW }),
      400,
      "VALIDATION_ERROR",
    );
  });

  test("roles are the union of the groups' roles, following memberOf", async () => {
    const alice = await request(platform.baseUrl, "GET", "/whoami", {
      token: await login(platform.baseUrl, "alice", PW),
    });
    expect(alice.body.roles).toEqual(["apiread", "engineering"]);
    expect(alice.body.groups.map((g: { name: string }) => g.name).sort()).toEqual(["netops", "readers"]);
  });

  test("an inactive group grants nothing", async () => {
    expect(
      (
        await admin.post("/user-management/groups", {
          name: "dormant",
          assignedRoles: ["admin"],
          inactive: true,
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await admin.post("/user-management/accounts", {
          username: "sleeper",
          password: PW,
          groups: ["dormant"],
        })
      ).status,
    ).toBe(200);
    const whoami = await request(platform.baseUrl, "GET", "/whoami", {
      token: await login(platform.baseUrl, "sleeper", PW),
    });
    expect(whoami.body.roles).toEqual([]);
  });
});

describe("passwords", () => {
  test("changing your own password keeps this session, ends the others, and the old password stops working", async () => {
    expect((await admin.post("/user-management/accounts", { username: "gina", password: PW })).status).toBe(
      200,
    );
    const first = await login(platform.baseUrl, "gina", PW);
    const second = await login(platform.baseUrl, "gina", PW);
    const gina = tracked(client(platform.baseUrl, first), seen);
    expectError(
      await gina.put("/user-management/password", {
        currentPassword: "wrong-one!",
        newPassword: "a-new-password",
      }),
      400,
      "VALIDATION_ERROR",
    );
    expect(
      (await gina.put("/user-management/password", { currentPassword: PW, newPassword: "a-new-password" }))
        .status,
    ).toBe(200);
    expect((await gina.get("/whoami")).status).toBe(200);
    expectError(await request(platform.baseUrl, "GET", "/whoami", { token: second }), 401, "UNAUTHORIZED");
    await expect(login(platform.baseUrl, "gina", PW)).rejects.toThrow(/401/);
    expect(await login(platform.baseUrl, "gina", "a-new-password")).toEqual(expect.any(String));
  });

  test("an admin setting a password ends every session of that account", async () => {
    const token = await login(platform.baseUrl, "bob", PW);
    expect(
      (await admin.put("/user-management/accounts/bob/password", { password: "reset-by-admin" })).status,
    ).toBe(200);
    expectError(await request(platform.baseUrl, "GET", "/whoami", { token }), 401, "UNAUTHORIZED");
    expect(await login(platform.baseUrl, "bob", "reset-by-admin")).toEqual(expect.any(String));
    expectError(
      await admin.put("/user-management/accounts/nobody/password", { password: "whatever-123" }),
      404,
      "NOT_FOUND",
    );
  });

  test("no response ever carries a password hash or a password", () => {
    expect(seen.length).toBeGreaterThan(20);
    for (const reply of seen) {
      expect(reply.text).not.toMatch(/scrypt\$/);
      expect(reply.text).not.toContain(PW);
      expect(reply.text).not.toMatch(/"(hash|password|passwordHash)"\s*:/);
    }
  });
});

describe("actions through the broker", () => {
  test("authenticate resolves a token to the caller, and refuses an unknown one", async () => {
    const token = await login(platform.baseUrl, "alice", PW);
    const caller = await call(platform.broker, "accounts.authenticate", { token });
    expect(caller).toEqual(
      expect.objectContaining({
        username: "alice",
        roles: ["apiread", "engineering"],
        sessionId: expect.stringMatching(/^[0-9a-f]{64}$/),
      }),
    );
    await expect(call(platform.broker, "accounts.authenticate", { token: "forged" })).rejects.toMatchObject({
      code: 401,
      type: "UNAUTHORIZED",
    });
  });

  test("list validates its params for bus callers too", async () => {
    await expect(
      call(platform.broker, "accounts.list", { queryOptions: { limit: 0 } }),
    ).rejects.toMatchObject({ type: "VALIDATION_ERROR" });
    const page = await call(platform.broker, "accounts.list", { queryOptions: { equals: "carol" } });
    expect(page.results.map((a) => a.username)).toEqual(["carol"]);
  });

  test("the store never holds a token or a password: sessions are keyed by the token's hash", async () => {
    const token = await login(platform.baseUrl, "carol", PW);
    const files = fs
      .readdirSync(path.join(platform.dataDir, "store"))
      .map((f) => fs.readFileSync(path.join(platform.dataDir, "store", f), "utf8"));
    for (const text of files) {
      expect(text).not.toContain(token);
      expect(text).not.toContain(PW);
    }
  });
});

describe("bootstrap admin", () => {
  test("without ADMIN_PASSWORD a password is generated into DATA_DIR/admin-password (0600) and works", async () => {
    const dataDir = tempDir();
    const config = loadConfig({
      DATA_DIR: dataDir,
      PORT: "0",
      HOST: "127.0.0.1",
      LOG_LEVEL: "error",
      RATE_LIMIT: "0",
    });
    const broker = createBroker(config);
    for (const schema of serviceSchemas(config)) broker.createService(schema);
    const write = jest.spyOn(process.stdout, "write").mockImplementation(() => true);
    try {
      await broker.start();
    } finally {
      write.mockRestore();
    }
    try {
      const file = path.join(dataDir, "admin-password");
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      const password = fs.readFileSync(file, "utf8").trim();
      expect(password.length).toBeGreaterThanOrEqual(20);
      const port = (broker.getLocalService("gateway") as any).server.address().port;
      expect(await login(`http://127.0.0.1:${port}`, "admin", password)).toEqual(expect.any(String));
    } finally {
      await broker.stop();
    }
  });

  test("a restart keeps the admin's password and sessions (they live in the store)", async () => {
    const dataDir = tempDir();
    const first = await startPlatform({ dataDir });
    const token = await login(first.baseUrl);
    await first.stop();
    const second = await startPlatform({ dataDir, env: { ADMIN_PASSWORD: "ignored-on-restart" } });
    try {
      expect((await request(second.baseUrl, "GET", "/whoami", { token })).status).toBe(200);
      await expect(login(second.baseUrl, "admin", "ignored-on-restart")).rejects.toThrow(/401/);
    } finally {
      await second.stop();
    }
  });
});
