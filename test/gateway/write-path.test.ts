/**
 * The form create's way through the gateway, kept cheap (docs/performance-rounds.md, "The gateway write
 * in one process"), and each shortcut held to the answer it replaced:
 *  - a body operation's input bounds are measured once, on its params (gateway/gateway.service.ts):
 *    a body too deep or too large is still a 400 that stores nothing, also when a path parameter
 *    shares a member's name, and a body that is not an object is still a 400;
 *  - the gateway's own idempotency key is drawn only when a call leaves its node
 *    (shared/idempotency.ts MAKE_KEY_IF_SENT): key-less creates stay separate requests;
 *  - moleculer-web's response log is off (logResponse), the answer itself unchanged.
 */
import { withStore } from "../support/engine-fixtures";
import { ADMIN_PASSWORD, expectError, startPlatform, usePlatform } from "../support/platform";

const env = usePlatform();

const deepJson = (depth: number) => '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
const forms = () =>
  withStore(env.platform.broker, (store) =>
    store.collection("forms").count({}, { scan: "a test counting every form" }),
  );

test("a form body nested past MAX_INPUT_DEPTH is a 400 naming the limit, and stores nothing", async () => {
  const before = await forms();
  for (const depth of [65, 1600]) {
    const raw = `{"name":"too-deep-${depth}","children":[],"elements":[${deepJson(depth)}]}`;
    const reply = await env.admin.send("POST", "/formbuilder/forms", { raw });
    const error = expectError(reply, 400, "VALIDATION_ERROR");
    expect(error.message).toMatch(/deeper than 64 levels \(MAX_INPUT_DEPTH\)/);
    expect(error.data[0]).toMatchObject({ type: "depth", field: expect.stringMatching(/^elements\.0\.a/) });
  }
  expect(await forms()).toBe(before);
});

test("a form body holding more values than MAX_INPUT_NODES is a 400, and stores nothing", async () => {
  const before = await forms();
  const elements = new Array(100_001).fill(0);
  const reply = await env.admin.post("/formbuilder/forms", { name: "too-many", children: [], elements });
  const error = expectError(reply, 400, "VALIDATION_ERROR");
  expect(error.message).toMatch(/MAX_INPUT_NODES/);
  expect(await forms()).toBe(before);
});

test("a body that is not an object is a 400 whatever its depth, and stores nothing", async () => {
  const before = await forms();
  for (const raw of ["[1,2]", `[${deepJson(1600)}]`, '"text"']) {
    const reply = await env.admin.send("POST", "/formbuilder/forms", { raw });
    expect(reply.status).toBe(400);
  }
  expect(await forms()).toBe(before);
});

test("a deep body member a path parameter replaces is still measured: a 400, nothing changed", async () => {
  // PATCH /authorization/groups/:groupId: the path's `groupId` wins over the body's, whose deep value
  // would otherwise never be measured.
  const group = await env.admin.post("/user-management/groups", { name: "write-path-group" });
  expect(group.status).toBe(200);
  const id = group.body._id as string;
  for (const raw of [`{"groupId":${deepJson(100)}}`, `{"groupId":[${deepJson(100)}],"description":"x"}`]) {
    const reply = await env.admin.send("PATCH", `/authorization/groups/${id}`, { raw });
    const error = expectError(reply, 400, "VALIDATION_ERROR");
    expect(error.message).toMatch(/MAX_INPUT_DEPTH/);
  }
  const after = await env.admin.get("/user-management/groups?limit=1000");
  const kept = (after.body.results as { _id: string; description?: string }[]).find((g) => g._id === id);
  expect(kept?.description ?? "").not.toBe("x");
});

test("key-less form creates are separate requests: same body twice is created once, then 409", async () => {
  const body = { name: "write-path-form", children: [], elements: [], groups: [] };
  const first = await env.admin.post("/formbuilder/forms", body);
  expect(first.status).toBe(200);
  expect(first.body).toMatchObject({ name: "write-path-form", children: [], elements: [], groups: [] });
  expect(typeof first.body._id).toBe("string");
  expectError(await env.admin.post("/formbuilder/forms", body), 409, "CONFLICT");
  // Two more at once, different names: two forms, two ids (no made key shared between them).
  const [a, b] = await Promise.all(
    ["write-path-a", "write-path-b"].map((name) => env.admin.post("/formbuilder/forms", { ...body, name })),
  );
  expect([a.status, b.status]).toEqual([200, 200]);
  expect(a.body._id).not.toBe(b.body._id);
  const stored = await env.admin.get("/formbuilder/forms/write-path-a");
  expect(stored.body).toEqual(a.body);
});

describe("with metrics off", () => {
  test("the access log still names each request at debug level; at warn the request is only drained", async () => {
    for (const level of ["debug", "warn"]) {
      const platform = await startPlatform({ env: { METRICS_PORT: "off", LOG_LEVEL: level } });
      try {
        const gateway = platform.broker.getLocalService("gateway") as unknown as {
          logger: { debug: (...args: unknown[]) => void };
        };
        const lines: string[] = [];
        const debug = gateway.logger.debug.bind(gateway.logger);
        gateway.logger.debug = (...args: unknown[]) => (lines.push(String(args[0])), debug(...args));
        const login = await fetch(`${platform.baseUrl}/login`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ user: { username: "admin", password: ADMIN_PASSWORD } }),
        });
        expect(login.status).toBe(200);
        // The log line is written when the response closes: wait for it.
        await new Promise((resolve) => setTimeout(resolve, 50));
        const logged = lines.filter((l) => l.startsWith("POST /login 200"));
        expect(logged).toHaveLength(level === "debug" ? 1 : 0);
      } finally {
        await platform.stop();
      }
    }
  });
});
