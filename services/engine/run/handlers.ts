/**
 * Engine: running jobs (docs/platform-rules.md#workflows-and-jobs; docs/engine.md). Starting, finishing a manual
 * task and canceling are each one write on the job document, through the replica's Runner
 * (run/runner.ts), which then runs whatever that write made runnable. Every replica also sweeps
 * for work no one is doing (a dead replica's tasks, due wake-ups), so jobs survive any replica.
 */
import { copyPlain } from "../../../shared/objects";
import type { Context } from "moleculer";
import type { Caller } from "../../../shared/contracts/resources";
import { ConflictError, NotFoundError } from "../../../shared/errors";
import { configOf } from "../../../shared/runtime";
import { loadKey } from "../../../shared/secrets";
import { typedMixin } from "../../../shared/service";
import type { EngineCtx, EngineService } from "../types";
import { assertMayStart, assertOwnGroups, maySeeJob } from "../../../shared/job-visibility";
import { JobRepository } from "../jobs.repository";
import { WorkflowRepository } from "../workflows.repository";
import { DISPATCH_EVENT, Runner } from "./runner";
import { runnerSettings } from "./settings";
import { loadWorkflow, prepareVariables } from "./start";
import { announceWorkflowsChanged } from "../workflows/kept";
import { checkGroupsExist } from "../../../shared/groups";
import { buildJob } from "./new-job";
import { finishManual, isWaitingManual } from "./transitions";
import { CANCEL, changeJob } from "./control";
import type { RunJob } from "./types";
import { keyedDocumentId, takingOver } from "../../../shared/keyed-inserts";
import { DuplicateKeyError } from "../../../shared/store/types";
import { migrateOnce } from "../../../shared/store/data-migrations";
import { addManualSummaries, MANUAL_SUMMARY_MIGRATION } from "../jobs/manual-summary-migration";

/**
 * Responses get their own copy: the replica's remembered job must not change under it. A new job
 * as stored is deep-frozen with the machinery on (JobStore.insert) and answered as it is: no one
 * can change it, and publicJob (../jobs/public-job.ts) gives the answer its own job and tasks.
 */
const answer = (job: RunJob) =>
  (Object.isFrozen(job) ? job : copyPlain(job)) as RunJob & { _id: string; status: string; name: string };

const runAs = (caller: Caller | undefined): RunJob["runAs"] =>
  caller
    ? {
        accountId: caller.accountId,
        username: caller.username,
        roles: caller.roles,
        groupIds: caller.groupIds,
      }
    : null;

export async function startJob(this: EngineService, ctx: EngineCtx<"startJob">) {
  const { workflow: name, options } = ctx.params;
  const caller = ctx.meta.caller;
  const workflow = await loadWorkflow(this.workflows, name);
  assertMayStart(caller, workflow);
  const variables = prepareVariables(workflow, options.variables ?? {}, () => this.secretKey());
  let groups = [...new Set(options.groups ?? workflow.groups ?? [])];
  if (options.groups) {
    assertOwnGroups(caller, groups, "options.groups");
    await checkGroupsExist(ctx, groups, "options.groups");
  }
  // A job nobody but admins could see is of no use to the person who started it.
  if (groups.length === 0 && caller) groups = [...caller.groupIds];
  // A start sent with a request id starts its job under an id made from it: a replica taking the
  // start over from a dead one answers the job the first one started (shared/keyed-inserts.ts).
  const keyed = keyedDocumentId("job");
  if (keyed && takingOver()) {
    const existing = await this.runner.jobs.read(keyed);
    if (existing) return answer(existing);
  }
  const id = keyed ?? this.jobs.newId();
  const job = buildJob(
    workflow,
    { id, description: options.description, type: options.type, variables, groups, caller: runAs(caller) },
    Date.now(),
  );
  const runner: Runner = this.runner;
  try {
    return answer(await runner.start(job));
  } catch (err) {
    // A repeat of the request whose first run stored the job (a made key keeps no record to say
    // so: shared/contracts/engine.ts madeKeyRecord): it answers that job, started once.
    if (!keyed || !(err instanceof DuplicateKeyError)) throw err;
    const existing = await runner.jobs.read(keyed);
    if (!existing) throw err;
    return answer(existing);
  }
}

export async function startScheduledJob(this: EngineService, ctx: EngineCtx<"startScheduledJob">) {
  const { workflow: name, jobId, automation, options } = ctx.params;
  const runner: Runner = this.runner;
  const existing = await runner.jobs.read(jobId);
  if (existing) return answer(existing);
  const workflow = await loadWorkflow(this.workflows, name);
  // Run as the automation's owner (services/scheduler/firing.ts runsAs), or as the platform.
  const caller = ctx.meta.caller;
  assertMayStart(caller, workflow);
  const variables = prepareVariables(workflow, options.variables ?? {}, () => this.secretKey());
  const groups = [...new Set(options.groups ?? workflow.groups ?? [])];
  const job = buildJob(
    workflow,
    {
      id: jobId,
      description: options.description,
      type: "automation",
      variables,
      groups,
      caller: runAs(caller),
    },
    Date.now(),
  );
  job.automation = automation;
  try {
    return answer(await runner.start(job));
  } catch (err) {
    // Two replicas resuming one slot: the one that lost the insert answers the winner's job.
    if (!(err instanceof DuplicateKeyError)) throw err;
    const winner = await runner.jobs.read(jobId);
    if (!winner) throw err;
    return answer(winner);
  }
}

export async function finishTask(this: EngineService, ctx: EngineCtx<"finishTask">) {
  const { job_id: jobId, task_id: taskId, task_data: data } = ctx.params;
  const caller = ctx.meta.caller;
  const runner: Runner = this.runner;
  const written = await runner.advance(
    jobId,
    (draft, step) => {
      if (!maySeeJob(caller, draft)) throw new NotFoundError("Job", jobId);
      const task = draft.tasks[taskId];
      if (!task) throw new NotFoundError("Task", taskId);
      // Taking over from a replica that died after finishing it: this request finished it.
      if (takingOver() && task.type === "manual" && task.status === "complete") return;
      if (!isWaitingManual(draft, taskId)) {
        const what =
          task.type === "manual" ? `is ${task.status}` : `is not a manual task (type ${task.type})`;
        throw new ConflictError(
          `Task '${taskId}' of job ${jobId} ${what}; only a waiting manual task can be finished`,
          {
            taskStatus: task.status,
            jobStatus: draft.status,
          },
        );
      }
      finishManual(draft, taskId, data, step);
    },
    { fresh: true },
  );
  if (!written) throw new NotFoundError("Job", jobId);
  return answer(written.job);
}

export async function cancelJob(this: EngineService, ctx: EngineCtx<"cancelJob">) {
  return answer(await changeJob(this, ctx.meta.caller, ctx.params.id, CANCEL));
}

/** Lifecycle hooks and event handlers the executor adds to the engine service. */
export const executorMixin = typedMixin<EngineService>({
  events: {
    /** Another replica (or this one) asks for a look at a job now. */
    [DISPATCH_EVENT](this: EngineService, ctx: Context<{ jobId?: unknown }>) {
      if (typeof ctx.params?.jobId === "string") void this.runner?.process(ctx.params.jobId);
    },
  },

  methods: {
    secretKey(this: EngineService): Buffer {
      return (this.cachedKey ??= loadKey(configOf(this.broker)));
    },
  },

  async started(this: EngineService) {
    this.jobs = new JobRepository(this.store);
    this.workflows = new WorkflowRepository(this.store, {
      keep: configOf(this.broker).perfMachinery,
      changed: (names) => announceWorkflowsChanged(this, names),
    });
    // A job index that cannot be created (a migration refused) slows reads; it stops nothing.
    await this.jobs
      .ensureIndexes()
      .catch((err: Error) => this.logger.warn(`engine: jobs index not created: ${err.message}`));
    await this.workflows.ensureIndexes();
    // Before the engine serves: the manual-task list reads the summaries this gives older jobs.
    // A failure leaves it unrecorded, to run at the next start; meanwhile it stops nothing.
    const started = Date.now();
    await migrateOnce(this.store, MANUAL_SUMMARY_MIGRATION, () => addManualSummaries(this.jobs)).then(
      (changed) => {
        if (changed !== "done before")
          this.logger.info(
            `engine: data migration ${MANUAL_SUMMARY_MIGRATION}: ${changed} jobs' manual-task summaries made in ${Date.now() - started} ms`,
          );
      },
      (err: Error) =>
        this.logger.error(
          `engine: data migration ${MANUAL_SUMMARY_MIGRATION} failed, to run again at the next start: ${err.message}`,
        ),
    );
    // Big task outputs live in their own collection (run/outputs.ts): its index finds a job's.
    await this.jobs.outputs
      .ensureIndexes()
      .catch((err: Error) => this.logger.warn(`engine: job_outputs index not created: ${err.message}`));
    this.runner = new Runner({
      broker: this.broker,
      logger: this.logger,
      jobs: this.jobs,
      workflows: this.workflows,
      secretKey: () => this.secretKey(),
      settings: runnerSettings(configOf(this.broker).engine, configOf(this.broker).perfMachinery),
    });
    this.runner.startSweeper();
  },

  async stopped(this: EngineService) {
    await this.runner?.stop();
  },
});
