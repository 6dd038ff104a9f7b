/**
 * A job action's answer is its caller's (services/engine/run/handlers.ts `answer`, jobs/public-job.ts):
 * whatever a caller in the same process does to it changes no job, no later answer and no
 * workflow (the next step starts from the job this replica remembers, so a change reaching it
 * would be written with the step's variables). With the performance machinery on, the start answers the new job as stored
 * (deep-frozen, JobStore.insert) and reads its workflow read-only (frozen, shared with the store's
 * read cache); a write into either throws. Both ways of the switch, through the broker.
 */
import type { ServiceBroker } from "moleculer";
import { callAsPlatform } from "../../shared/authorization";
import {
  auto,
  chain,
  createWorkflow,
  manual,
  readJob,
  taskService,
  waitForJob,
} from "../support/engine-fixtures";
import { client, login, startPlatform, type Platform } from "../support/platform";

const MARK = "changedByTheCaller";

/** Writes into every object and array of `value` below its top (what `publicJob` made its own). */
function scribble(value: unknown, depth = 0): void {
  if (typeof value !== "object" || value === null) return;
  if (depth > 0) {
    try {
      if (Array.isArray(value)) value.push(MARK);
      else (value as Record<string, unknown>)[MARK] = true;
    } catch {
      // Frozen: shared with the store, and nobody can write into it.
    }
  }
  for (const member of Object.values(value)) scribble(member, depth + 1);
}

const marked = (value: unknown) => JSON.stringify(value).includes(MARK);

describe.each([
  ["on", {}],
  ["off", { PERF_MACHINERY: "off" }],
])("a job action's answer is its caller's (machinery %s)", (_, env: Record<string, string>) => {
  let platform: Platform;
  let broker: ServiceBroker;

  beforeAll(async () => {
    platform = await startPlatform({ env });
    broker = platform.broker;
    broker.createService(taskService().schema);
    await broker.waitForServices(["enginetest"]);
    const admin = client(platform.baseUrl, await login(platform.baseUrl));
    await createWorkflow(
      admin,
      broker,
      chain("answers-are-the-callers", [
        // The step after the start, too, starts from the job this replica remembers.
        [
          "prepare",
          auto("enginetest", "echo", { value: "$var.job.nested" }, { result: "$var.job.prepared" }),
        ],
        ["first", manual("First?")],
        // Writes the job's variables from the copy this replica remembers after the finish.
        ["echo", auto("enginetest", "echo", { value: "$var.job.list" }, { result: "$var.job.echoed" })],
        ["second", manual("Second?")],
      ]),
    );
  }, 60_000);
  afterAll(async () => {
    await platform?.stop();
  });

  test("changing the start's and finishTask's answers changes no job, answer or workflow", async () => {
    const start = async (): Promise<any> =>
      callAsPlatform(broker, "engine.startJob", {
        workflow: "answers-are-the-callers",
        options: { variables: { list: [1, 2], nested: { a: { b: 1 } } } },
      });
    const started = await start();
    const stored = await readJob(broker, started._id);
    scribble(started);
    expect(marked(await readJob(broker, started._id))).toBe(false);

    // A second start of the same workflow: its workflow and its new job as they were.
    const second = await start();
    expect(marked(second)).toBe(false);
    expect(Object.keys(second.tasks)).toEqual(Object.keys(stored.tasks));
    const workflow = await callAsPlatform(broker, "engine.getWorkflow", { name: "answers-are-the-callers" });
    expect(marked(workflow)).toBe(false);

    // finishTask answers the job as written: changing it changes neither the job nor the next answer.
    await waitForJob(broker, started._id, (job) => job.tasks.first.status === "waiting");
    const finished = await callAsPlatform(broker, "engine.finishTask", {
      job_id: started._id,
      task_id: "first",
      task_data: { said: "yes" },
    });
    scribble(finished);
    await waitForJob(broker, started._id, (job) => job.tasks.second.status === "waiting");
    const last = await callAsPlatform(broker, "engine.finishTask", {
      job_id: started._id,
      task_id: "second",
      task_data: {},
    });
    expect(marked(last)).toBe(false);
    const ended = await waitForJob(broker, started._id, (job) => job.status === "complete");
    expect(marked(ended)).toBe(false);
    expect(ended.variables).toEqual({
      list: [1, 2],
      nested: { a: { b: 1 } },
      prepared: expect.anything(),
      echoed: expect.anything(),
    });
    expect(marked(await start())).toBe(false);
  });
});
