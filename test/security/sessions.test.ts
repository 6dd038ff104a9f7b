/**
 * Sessions and who may do what (docs/security.md): an event stream ends with its session and sees
 * group changes; streams are capped per session and per gateway; a password change is a
 * compare-and-set; a short session still slides; a caller names only its own groups on a job.
 */
import { chain, manual } from "../support/engine-fixtures";
import {
  client,
  expectError,
  login,
  ROLE_HOLDER_PASSWORD,
  startPlatform,
  usePlatform,
} from "../support/platform";
import { eventually } from "../support/processes";
import { openStream } from "../support/sse";

const env = usePlatform({
  env: { EVENTS_MAX_PER_SESSION: "2", EVENTS_MAX_STREAMS: "4", EVENTS_RECHECK_MS: "200" },
});

beforeAll(async () => {
  const reply = await env.admin.post("/workflow_builder/workflows", {
    workflow: chain("Streamed", [["approve", manual("Approve")]]),
  });
  expect(reply.status).toBe(200);
});

/** A new account in a new group (role `engineering`), signed in: its token and group id. */
async function engineer() {
  const name = `e-${Math.random().toString(36).slice(2, 8)}`;
  const group = await env.admin.post("/user-management/groups", { name, assignedRoles: ["engineering"] });
  const account = await env.admin.post("/user-management/accounts", {
    username: name,
    password: ROLE_HOLDER_PASSWORD,
    groups: [name],
  });
  expect(account.status).toBe(200);
  return {
    token: await login(env.platform.baseUrl, name, ROLE_HOLDER_PASSWORD),
    groupId: group.body._id,
    name,
  };
}

describe("GET /events", () => {
  test("ends when its session ends (logout)", async () => {
    const { token, groupId } = await engineer();
    const stream = await openStream(env.platform.baseUrl, token);
    expect(stream.res.status).toBe(200);
    expect((await client(env.platform.baseUrl, token).get("/logout")).status).toBe(200);
    await eventually(async () => stream.events.some((e) => e.event === "end"), 5000, "the stream to end");
    const started = await env.admin.post("/operations-manager/jobs/start", {
      workflow: "Streamed",
      options: { groups: [groupId] },
    });
    expect(started.status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    expect(stream.events.filter((e) => e.event === "job")).toHaveLength(0);
    await stream.close();
  });

  test("ends when an admin sets the account's password (its sessions end)", async () => {
    const { token, name } = await engineer();
    const stream = await openStream(env.platform.baseUrl, token);
    // An admin setting the password ends the account's sessions, and with them the stream.
    expect(
      (await env.admin.put(`/user-management/accounts/${name}/password`, { password: "another-password-1" }))
        .status,
    ).toBe(200);
    await eventually(async () => stream.events.some((e) => e.event === "end"), 5000, "the stream to end");
    await stream.close();
  });

  test("at most EVENTS_MAX_PER_SESSION streams per session and EVENTS_MAX_STREAMS per gateway: 429 beyond", async () => {
    const one = await engineer();
    const a = await openStream(env.platform.baseUrl, one.token);
    const b = await openStream(env.platform.baseUrl, one.token);
    const c = await openStream(env.platform.baseUrl, one.token);
    expect([a.res.status, b.res.status, c.res.status]).toEqual([200, 200, 429]);
    const two = await engineer();
    const d = await openStream(env.platform.baseUrl, two.token);
    const e = await openStream(env.platform.baseUrl, two.token);
    expect([d.res.status, e.res.status]).toEqual([200, 200]);
    const three = await engineer();
    const f = await openStream(env.platform.baseUrl, three.token);
    expect(f.res.status).toBe(429);
    for (const s of [a, b, c, d, e, f]) await s.close();
    await eventually(
      async () => (await openStream(env.platform.baseUrl, three.token)).res.status === 200,
      5000,
      "a free slot",
    );
  });
});

test("20 parallel password changes from the same current password: one 200, the rest 409", async () => {
  const { token } = await engineer();
  const me = client(env.platform.baseUrl, token);
  const replies = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      me.put("/user-management/password", {
        currentPassword: ROLE_HOLDER_PASSWORD,
        newPassword: `new-password-${i}`,
      }),
    ),
  );
  const statuses = replies.map((r) => r.status).sort();
  expect(statuses.filter((s) => s === 200)).toHaveLength(1);
  expect(statuses.filter((s) => s !== 200).every((s) => s === 409 || s === 401)).toBe(true);
});

test("a non-admin may start a job only into its own groups", async () => {
  const mine = await engineer();
  const other = await engineer();
  const me = client(env.platform.baseUrl, mine.token);
  expectError(
    await me.post("/operations-manager/jobs/start", {
      workflow: "Streamed",
      options: { groups: [other.groupId] },
    }),
    403,
    "FORBIDDEN",
  );
  const ok = await me.post("/operations-manager/jobs/start", {
    workflow: "Streamed",
    options: { groups: [mine.groupId] },
  });
  expect(ok.status).toBe(200);
});

test("a session shorter than a minute still slides", async () => {
  const short = await startPlatform({ env: { SESSION_TTL: "2" } });
  try {
    const token = await login(short.baseUrl);
    const api = client(short.baseUrl, token);
    for (let i = 0; i < 6; i++) {
      await new Promise((r) => setTimeout(r, 600));
      expect((await api.get("/whoami")).status).toBe(200); // 3.6 s in all, against a 2 s TTL
    }
  } finally {
    await short.stop();
  }
});
