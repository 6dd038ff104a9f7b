/**
 * GET /events (Server-Sent Events): engine events reach each caller's stream only when the caller
 * may see the job (admin, or a shared group) — in both shapes, so the events cross a real NATS.
 */
import { call } from "../../shared/contracts";
import { ENGINE_EVENTS, type JobChangedEvent, type JobChangesEvent } from "../../shared/contracts/events";
import { client, expectError, login, request } from "../support/platform";
import { describeInBothShapes } from "../support/shapes";
import { openStream } from "../support/sse";

const waitFor = async (check: () => boolean, ms = 5000) => {
  const until = Date.now() + ms;
  while (!check() && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
};

describeInBothShapes("GET /events", (platform) => {
  let adminToken: string;
  let opsToken: string;
  let devToken: string;
  let opsGroup: string;

  beforeAll(async () => {
    const { baseUrl } = platform();
    adminToken = await login(baseUrl);
    const admin = client(baseUrl, adminToken);
    opsGroup = (await admin.post("/user-management/groups", { name: "ops", assignedRoles: ["operations"] }))
      .body._id;
    await admin.post("/user-management/groups", { name: "dev", assignedRoles: ["engineering"] });
    await admin.post("/user-management/accounts", {
      username: "olga",
      password: "events-test-pw",
      groups: ["ops"],
    });
    await admin.post("/user-management/accounts", {
      username: "dan",
      password: "events-test-pw",
      groups: ["dev"],
    });
    opsToken = await login(baseUrl, "olga", "events-test-pw");
    devToken = await login(baseUrl, "dan", "events-test-pw");
  });

  test("needs credentials", async () => {
    expectError(await request(platform().baseUrl, "GET", "/events"), 401, "UNAUTHORIZED");
  });

  test("each caller sees the jobs it may see, as they change", async () => {
    const { baseUrl, broker } = platform();
    const streams = await Promise.all([adminToken, opsToken, devToken].map((t) => openStream(baseUrl, t)));
    try {
      for (const s of streams) expect(s.res.headers.get("content-type")).toMatch(/^text\/event-stream/);
      // The gateway (possibly in another process) must have registered the streams before we publish.
      await new Promise((r) => setTimeout(r, 200));
      const job: JobChangedEvent = {
        jobId: "0123456789abcdef01234567",
        name: "Port turn-up",
        workflow: "Port turn-up",
        status: "running",
        groups: [opsGroup],
        at: new Date().toISOString(),
      };
      // One engine event per write: a job change with a task change, then a job change alone.
      const write = (changes: Partial<JobChangesEvent>) =>
        broker.broadcast(ENGINE_EVENTS.changes, { ...job, jobChanged: true, tasks: [], ...changes });
      write({ tasks: [{ taskId: "a1", taskStatus: "waiting" }] });
      write({ jobId: "0123456789abcdef0123ffff", groups: [] });
      const [adminStream, opsStream, devStream] = streams;
      await waitFor(() => adminStream.events.length >= 3 && opsStream.events.length >= 2);
      expect(adminStream.events.map((e) => [e.event, e.data.jobId])).toEqual([
        ["task", job.jobId],
        ["job", job.jobId],
        ["job", "0123456789abcdef0123ffff"],
      ]);
      expect(opsStream.events.map((e) => e.event)).toEqual(["task", "job"]);
      expect(opsStream.events[0].data).toEqual(
        expect.objectContaining({ taskId: "a1", taskStatus: "waiting" }),
      );
      expect(devStream.events).toEqual([]);
    } finally {
      await Promise.all(streams.map((s) => s.close()));
    }
  });

  test("a closed stream is forgotten by the gateway", async () => {
    const { baseUrl, members } = platform();
    const stream = await openStream(baseUrl, adminToken);
    await stream.close();
    const gateway = members[members.length - 1].broker.getLocalService("gateway") as any;
    await waitFor(() => gateway.streams.size === 0);
    expect(gateway.streams.size).toBe(0);
    // Still usable afterwards.
    expect((await call(members[members.length - 1].broker, "gateway.health", {})).status).toBe("ok");
  });
});
