/**
 * A running task's claim is renewed while it runs (services/engine/run/runner.ts: one renewal
 * timer per replica, not one per task), so a task that runs longer than the claim TTL is never
 * taken for dead and run again by the sweeper. Short TTL and sweep interval: a lapse would show
 * within the task's run as a second call.
 */
import { auto, chain, createWorkflow, readJob, taskService, waitForJob } from "../support/engine-fixtures";
import { client, login, startPlatform, type Platform } from "../support/platform";

const TTL_MS = 1000;
const TASK_MS = 2600;

describe("claim renewal", () => {
  let platform: Platform;
  const svc = taskService();

  beforeAll(async () => {
    platform = await startPlatform({
      env: { ENGINE_CLAIM_TTL_MS: String(TTL_MS), ENGINE_SWEEP_INTERVAL_MS: "100" },
    });
    platform.broker.createService(svc.schema);
    await platform.broker.waitForServices(["enginetest"]);
  }, 60_000);
  afterAll(async () => {
    await platform?.stop();
  });

  test("tasks running past the claim TTL keep their claims (renewed) and run once each", async () => {
    const admin = client(platform.baseUrl, await login(platform.baseUrl));
    await createWorkflow(
      admin,
      platform.broker,
      chain("renewed-claims", [["wait", auto("enginetest", "slow", { ms: TASK_MS, key: "$var.job.key" })]]),
    );
    const ids: string[] = [];
    for (const key of ["a", "b", "c"]) {
      const started = await admin.post("/operations-manager/jobs/start", {
        workflow: "renewed-claims",
        options: { variables: { key } },
      });
      expect(started.status).toBe(200);
      ids.push(started.body._id);
    }
    // Each claim's expiry moves on while its task runs.
    const first = await waitForJob(platform.broker, ids[0], (job) => job.tasks.wait.claim != null);
    const until = first.tasks.wait.claim.until as number;
    await new Promise((r) => setTimeout(r, TTL_MS * 1.2));
    const later = await readJob(platform.broker, ids[0]);
    expect(later.tasks.wait.status).toBe("running");
    expect(later.tasks.wait.claim.until).toBeGreaterThan(until);
    expect(later.tasks.wait.claim.until).toBeGreaterThan(Date.now());
    for (const id of ids) expect((await waitForJob(platform.broker, id)).status).toBe("complete");
    for (const key of ["a", "b", "c"])
      expect(svc.calls.filter((c) => c.action === "slow" && c.params.key === key)).toHaveLength(1);
  }, 20_000);
});
