/**
 * Automations and their schedules over HTTP (operation 10 and the automation routes), with the
 * scheduler's clock injected: a test sets "now" and runs one firing pass (`scheduler.tick`), so
 * hours of schedule run in milliseconds. One test uses real time: a schedule 2 s ahead.
 */
import { chain, manual, op, waitForJob, withStore } from "../support/engine-fixtures";
import { client, clientWithRoles, expectError, login, startPlatform, usePlatform } from "../support/platform";

/** A task that does nothing but complete. */
const NOOP = op("delay", { time: 0 });

const env = usePlatform({ env: { SCHEDULER_TICK_MS: "100000", SCHEDULER_TIMERS: "false" } });
let now = Date.parse("2026-12-01T08:00:00.000Z");

const at = (ms: number) => new Date(ms).toISOString();
const MIN = 60_000;
const HOUR = 60 * MIN;

function setClock(ms: number) {
  now = ms;
}

async function tick() {
  return env.platform.broker.call("scheduler.tick", {}) as Promise<{
    started: number;
    skipped: number;
    failed: number;
  }>;
}

async function create(body: Record<string, unknown>) {
  const reply = await env.admin.post("/automation_catalog/automations", { workflow: "Quick", ...body });
  expect(reply.status).toBe(200);
  return reply.body;
}

async function runs(id: string) {
  const reply = await env.admin.get(`/automation_catalog/automations/${id}/runs`);
  expect(reply.status).toBe(200);
  return reply.body.results as any[];
}

const jobsOf = (automationId: string) =>
  withStore(env.platform.broker, (store) =>
    store.collection("jobs").find({ "automation._id": automationId }),
  );

beforeAll(async () => {
  const scheduler = env.platform.broker.getLocalService("scheduler") as unknown as { clock: () => number };
  scheduler.clock = () => now;
  for (const workflow of [
    chain("Quick", [["noop", NOOP]]),
    chain("Needs approval", [["approve", manual("Approve")]]),
  ]) {
    const reply = await env.admin.post("/workflow_builder/workflows", { workflow });
    expect(reply.status).toBe(200);
  }
});

describe("automations", () => {
  test("create answers the automation with defaults and a preview of its next 10 due times", async () => {
    const a = await create({
      name: "Nightly backup",
      nextRunAt: "2026-12-02T02:00:00Z",
      repeatInterval: "1 day",
    });
    expect(a).toMatchObject({
      name: "Nightly backup",
      workflow: "Quick",
      nextRunAt: "2026-12-02T02:00:00.000Z",
      repeatInterval: "1 day",
      disabled: false,
      missedRuns: "once",
      overlap: "allow",
      lastRunAt: null,
      lastJobId: null,
    });
    expect(a.preview).toHaveLength(10);
    expect(a.preview[1]).toBe("2026-12-03T02:00:00.000Z");
    const read = await env.admin.get(`/automation_catalog/automations/${a._id}`);
    expect(read.body).toMatchObject({ _id: a._id, preview: a.preview });
  });

  test("a workflow that does not exist, a short interval and unreadable text are 400 naming the field", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ name: "x1", workflow: "No such workflow" }, "workflow"],
      [{ name: "x2", repeatInterval: "5 seconds" }, "repeatInterval"],
      [{ name: "x3", repeatInterval: "every so often" }, "repeatInterval"],
      [{ name: "x4", nextRunAt: "2026-02-30T00:00:00Z" }, "nextRunAt"],
      [{ name: "x5", missedRuns: "sometimes" }, "missedRuns"],
    ];
    for (const [body, field] of cases) {
      const reply = await env.admin.post("/automation_catalog/automations", { workflow: "Quick", ...body });
      const error = expectError(reply, 400, "VALIDATION_ERROR");
      expect(error.data.map((d: { field: string }) => d.field)).toContain(field);
      expect(JSON.stringify(error)).not.toMatch(/stack/);
    }
    const list = await env.admin.get("/automation_catalog/automations?limit=1000");
    expect(list.body.results.map((a: { name: string }) => a.name)).not.toEqual(
      expect.arrayContaining(["x1", "x2", "x3"]),
    );
  });

  test("GET /automation_catalog/automations pages by name: {results, total, skip, limit}", async () => {
    await create({ name: "Paged b" });
    await create({ name: "Paged a" });
    const all = (await env.admin.get("/automation_catalog/automations?limit=1000")).body;
    expect(all).toEqual({ results: expect.any(Array), total: all.results.length, skip: 0, limit: 1000 });
    const names = all.results.map((a: { name: string }) => a.name);
    expect(names).toEqual([...names].sort());
    const at = names.indexOf("Paged a");
    const page = (await env.admin.get(`/automation_catalog/automations?skip=${at}&limit=2`)).body;
    expect(page).toEqual({
      results: [expect.objectContaining({ name: "Paged a" }), expect.objectContaining({ name: "Paged b" })],
      total: all.total,
      skip: at,
      limit: 2,
    });
    expect(page.results[0].preview).toEqual(expect.any(Array));
  });

  test("a taken name is 409; an unknown id is 404; delete stops the schedule", async () => {
    const a = await create({
      name: "Weekly compliance",
      nextRunAt: at(now + HOUR),
      repeatInterval: "1 week",
    });
    expectError(
      await env.admin.post("/automation_catalog/automations", {
        name: "Weekly compliance",
        workflow: "Quick",
      }),
      409,
      "CONFLICT",
    );
    const unknown = "0123456789abcdef01234567";
    expectError(await env.admin.get(`/automation_catalog/automations/${unknown}`), 404, "NOT_FOUND");
    expectError(
      await env.admin.put(`/automation_catalog/automations/${unknown}/schedule`, {
        options: { disabled: true },
      }),
      404,
      "NOT_FOUND",
    );
    expect((await env.admin.delete(`/automation_catalog/automations/${a._id}`)).status).toBe(200);
    setClock(now + 2 * HOUR);
    await tick();
    expect(await jobsOf(a._id)).toHaveLength(0);
    expectError(await env.admin.get(`/automation_catalog/automations/${a._id}`), 404, "NOT_FOUND");
  });
});

describe("operation 10 and firing", () => {
  test("a due slot starts one job of type automation, linked to the automation and its due time", async () => {
    const due = now + 5 * MIN;
    const a = await create({ name: "Port audit", nextRunAt: at(due), variables: { site: "dc1" } });
    setClock(due - 1);
    expect((await tick()).started).toBe(0);
    setClock(due + 10);
    await Promise.all([tick(), tick(), tick()]);
    const jobs = await jobsOf(a._id);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ type: "automation", automation: { _id: a._id, dueAt: at(due) } });
    expect(jobs[0].variables).toEqual({ site: "dc1" });
    const read = (await env.admin.get(`/automation_catalog/automations/${a._id}`)).body;
    expect(read).toMatchObject({ nextRunAt: null, lastJobId: jobs[0]._id, lastError: null });
    expect((await runs(a._id))[0]).toMatchObject({ dueAt: at(due), state: "started", jobId: jobs[0]._id });
    await waitForJob(env.platform.broker, jobs[0]._id);
  });

  test("repeatInterval steps from the due time, not from when the pass ran (no drift)", async () => {
    const first = now + HOUR;
    const a = await create({ name: "Hourly", nextRunAt: at(first), repeatInterval: "1 hour" });
    setClock(first + 7_000); // the pass runs 7 s late
    await tick();
    let read = (await env.admin.get(`/automation_catalog/automations/${a._id}`)).body;
    expect(read.nextRunAt).toBe(at(first + HOUR));
    setClock(first + HOUR + 3_000);
    await tick();
    read = (await env.admin.get(`/automation_catalog/automations/${a._id}`)).body;
    expect(read.nextRunAt).toBe(at(first + 2 * HOUR));
    expect((await runs(a._id)).map((r) => r.dueAt)).toEqual([at(first + HOUR), at(first)]);
    expect(await jobsOf(a._id)).toHaveLength(2);
  });

  test("operation 10 answers {status, response: {message}}, disabled stops, re-enabling resumes, null clears", async () => {
    const first = now + HOUR;
    const a = await create({ name: "Toggle", nextRunAt: at(first), repeatInterval: "1 hour" });
    const url = `/automation_catalog/automations/${a._id}/schedule`;
    const off = await env.admin.put(url, { options: { disabled: true } });
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ status: "OK", response: { message: expect.any(String) } });
    setClock(first + 30 * 1000);
    await tick();
    expect(await jobsOf(a._id)).toHaveLength(0);
    let read = (await env.admin.get(`/automation_catalog/automations/${a._id}`)).body;
    expect(read).toMatchObject({ disabled: true, nextRunAt: at(first), repeatInterval: "1 hour" });

    // Re-enabled 30 s after the due time (within the grace): the slot fires, once.
    expect((await env.admin.put(url, { options: { disabled: false } })).status).toBe(200);
    await tick();
    expect(await jobsOf(a._id)).toHaveLength(1);

    expect((await env.admin.put(url, { options: { nextRunAt: null, repeatInterval: null } })).status).toBe(
      200,
    );
    read = (await env.admin.get(`/automation_catalog/automations/${a._id}`)).body;
    expect(read).toMatchObject({ nextRunAt: null, repeatInterval: null, preview: [] });
    setClock(now + 10 * HOUR);
    await tick();
    expect(await jobsOf(a._id)).toHaveLength(1);
  });

  test("operation 10: a shorter interval without nextRunAt brings the next run to within one new interval", async () => {
    // Issue 25: "1 month" fired once, then changed to "10 seconds": not a month without a job.
    const first = now + HOUR;
    const a = await create({ name: "Monthly to often", nextRunAt: at(first), repeatInterval: "1 month" });
    const url = `/automation_catalog/automations/${a._id}/schedule`;
    setClock(first);
    await tick();
    expect(await jobsOf(a._id)).toHaveLength(1);
    let read = (await env.admin.get(`/automation_catalog/automations/${a._id}`)).body;
    const monthAway = read.nextRunAt;
    expect(Date.parse(monthAway) - first).toBeGreaterThan(27 * 24 * HOUR);

    setClock(first + 5_000);
    expect((await env.admin.put(url, { options: { repeatInterval: "10 seconds" } })).status).toBe(200);
    read = (await env.admin.get(`/automation_catalog/automations/${a._id}`)).body;
    expect(read).toMatchObject({ repeatInterval: "10 seconds", nextRunAt: at(first + 15_000) });
    expect(read.preview.slice(0, 2)).toEqual([at(first + 15_000), at(first + 25_000)]);
    setClock(first + 15_000);
    await tick();
    expect(await jobsOf(a._id)).toHaveLength(2);
    read = (await env.admin.get(`/automation_catalog/automations/${a._id}`)).body;
    expect(read.nextRunAt).toBe(at(first + 25_000));

    // A longer interval keeps the sooner due time; so does the same interval written again.
    for (const repeatInterval of ["1 day", "10 seconds"]) {
      expect((await env.admin.put(url, { options: { repeatInterval } })).status).toBe(200);
      read = (await env.admin.get(`/automation_catalog/automations/${a._id}`)).body;
      expect(read).toMatchObject({ repeatInterval, nextRunAt: at(first + 25_000) });
    }
    // nextRunAt sent with the interval is the client's word.
    const chosen = at(first + 3 * HOUR);
    expect(
      (await env.admin.put(url, { options: { repeatInterval: "1 minute", nextRunAt: chosen } })).status,
    ).toBe(200);
    read = (await env.admin.get(`/automation_catalog/automations/${a._id}`)).body;
    expect(read).toMatchObject({ repeatInterval: "1 minute", nextRunAt: chosen });
    // The same rule on the automation's own update (PUT .../automations/:id).
    const changed = await env.admin.put(`/automation_catalog/automations/${a._id}`, {
      changes: { repeatInterval: "30 minutes" },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.nextRunAt).toBe(at(first + 15_000 + 30 * MIN));
  });

  test("operation 10: an interval on an automation with no due time does not start a schedule", async () => {
    const a = await create({ name: "No due time" });
    const url = `/automation_catalog/automations/${a._id}/schedule`;
    expect((await env.admin.put(url, { options: { repeatInterval: "10 seconds" } })).status).toBe(200);
    const read = (await env.admin.get(`/automation_catalog/automations/${a._id}`)).body;
    expect(read).toMatchObject({ repeatInterval: "10 seconds", nextRunAt: null, preview: [] });
  });

  test("operation 10 validates its interval against human-interval and the floor", async () => {
    const a = await create({ name: "Validated" });
    const url = `/automation_catalog/automations/${a._id}/schedule`;
    for (const text of ["3 days and 4 hours", "1.5 minutes", "two weeks"])
      expect((await env.admin.put(url, { options: { repeatInterval: text } })).status).toBe(200);
    for (const text of ["whenever", "1 second"]) {
      const error = expectError(
        await env.admin.put(url, { options: { repeatInterval: text } }),
        400,
        "VALIDATION_ERROR",
      );
      expect(error.data[0].field).toBe("options.repeatInterval");
      expect(error.message).toContain(text);
    }
    // A member operation 10 does not know is dropped, never stored.
    expect((await env.admin.put(url, { options: { repeatInterval: "1 hour", extra: 1 } })).status).toBe(200);
    expect((await env.admin.get(`/automation_catalog/automations/${a._id}`)).body).not.toHaveProperty(
      "extra",
    );
  });

  test("roles: admin, other and apiread may update a schedule; engineering may not", async () => {
    // No groups: open to every role the route admits (group-based access is its own suite).
    const a = await create({ name: "Roles", groups: [] });
    const url = `/automation_catalog/automations/${a._id}/schedule`;
    for (const role of ["other", "apiread"]) {
      const as = await clientWithRoles(env.platform, env.admin, [role]);
      expect((await as.put(url, { options: { disabled: true } })).status).toBe(200);
    }
    const engineer = await clientWithRoles(env.platform, env.admin, ["engineering"]);
    expectError(await engineer.put(url, { options: { disabled: true } }), 403, "FORBIDDEN");
  });
});

describe("policies", () => {
  test("missed runs: 'once' fires one run for many missed intervals; 'skip' records the skip", async () => {
    const first = now + HOUR;
    const once = await create({ name: "Missed once", nextRunAt: at(first), repeatInterval: "1 hour" });
    const skip = await create({
      name: "Missed skip",
      nextRunAt: at(first),
      repeatInterval: "1 hour",
      missedRuns: "skip",
    });
    setClock(first + 5 * HOUR + 60 * 1000 + 1); // five intervals and a minute late: no scheduler ran
    await tick();
    expect(await jobsOf(once._id)).toHaveLength(1);
    expect(await jobsOf(skip._id)).toHaveLength(0);
    const skipped = (await runs(skip._id))[0];
    expect(skipped).toMatchObject({ state: "skipped", dueAt: at(first) });
    expect(skipped.reason).toMatch(/missed/);
    for (const a of [once, skip]) {
      const read = (await env.admin.get(`/automation_catalog/automations/${a._id}`)).body;
      expect(read.nextRunAt).toBe(at(first + 6 * HOUR)); // the next future time
    }
  });

  test("missed runs: beyond the catch-up window a missed time counts as skipped", async () => {
    const first = now + HOUR;
    const a = await create({
      name: "Window",
      nextRunAt: at(first),
      repeatInterval: "1 day",
      catchUpWindow: "2 hours",
    });
    setClock(first + 3 * HOUR);
    await tick();
    expect(await jobsOf(a._id)).toHaveLength(0);
    expect((await runs(a._id))[0]).toMatchObject({ state: "skipped" });
  });

  test("overlap 'skip': no new job while the previous one still runs, and the skip is recorded", async () => {
    const first = now + HOUR;
    const a = await create({
      name: "No overlap",
      workflow: "Needs approval",
      nextRunAt: at(first),
      repeatInterval: "1 hour",
      overlap: "skip",
    });
    setClock(first);
    await tick();
    setClock(first + HOUR);
    await tick();
    const jobs = await jobsOf(a._id);
    expect(jobs).toHaveLength(1);
    expect(jobs[0].status).toBe("running");
    expect((await runs(a._id))[0]).toMatchObject({ dueAt: at(first + HOUR), state: "skipped" });
    expect((await runs(a._id))[0].reason).toMatch(/still running/);
  });

  test("a broken automation records its error and never stops the others", async () => {
    const workflow = chain("Short lived", [["noop", NOOP]]);
    expect((await env.admin.post("/workflow_builder/workflows", { workflow })).status).toBe(200);
    const due = now + HOUR;
    const broken = await create({
      name: "Broken",
      workflow: "Short lived",
      nextRunAt: at(due),
      repeatInterval: "1 hour",
    });
    const healthy = await create({ name: "Healthy", nextRunAt: at(due) });
    // Forced: the automation still names it (docs/engine-queries.md#deleting-a-workflow).
    expect((await env.admin.delete("/workflow_builder/workflows/Short lived?force=true")).status).toBe(200);
    setClock(due);
    const pass = await tick();
    expect(pass.failed).toBeGreaterThanOrEqual(1);
    expect(await jobsOf(healthy._id)).toHaveLength(1);
    const read = (await env.admin.get(`/automation_catalog/automations/${broken._id}`)).body;
    expect(read.lastError).toMatch(/Short lived/);
    expect(read.nextRunAt).toBe(at(due + HOUR)); // it goes on to its next time
    expect((await runs(broken._id))[0]).toMatchObject({ state: "failed" });
  });
});

test("a schedule 2 s ahead starts one job on real time", async () => {
  const real = await startPlatform({ env: { SCHEDULER_TICK_MS: "100" } });
  try {
    const api = client(real.baseUrl, await login(real.baseUrl));
    const workflow = chain("Real time", [["noop", NOOP]]);
    expect((await api.post("/workflow_builder/workflows", { workflow })).status).toBe(200);
    const due = Date.now() + 2000;
    const a = (
      await api.post("/automation_catalog/automations", {
        name: "Soon",
        workflow: "Real time",
        nextRunAt: at(due),
      })
    ).body;
    const until = Date.now() + 10_000;
    let jobs: any[] = [];
    while (Date.now() < until && jobs.length === 0) {
      await new Promise((r) => setTimeout(r, 100));
      jobs = await withStore(real.broker, (store) =>
        store.collection("jobs").find({ "automation._id": a._id }),
      );
    }
    expect(jobs).toHaveLength(1);
    expect(Date.parse(jobs[0].created)).toBeGreaterThanOrEqual(due);
    await new Promise((r) => setTimeout(r, 500));
    expect(
      await withStore(real.broker, (store) => store.collection("jobs").count({ "automation._id": a._id })),
    ).toBe(1);
  } finally {
    await real.stop();
  }
});
