/**
 * The part of the executor that does things: one Runner per engine replica. It writes each step of
 * a job (transitions.ts decides, jobs.ts stores with compare-and-set), then acts on what the write
 * decided: it runs the tasks the write claimed for this replica (an automatic task's action call, a
 * child job's start), renews their claims while they run, wakes sleeping tasks, tells a parent job
 * that its child ended, and broadcasts the changes.
 *
 * Work moves between replicas through the store only. A replica that completes a task claims the
 * tasks that become runnable in the same write and runs them itself, so a job's steps follow each
 * other without a hop; jobs spread over replicas because startJob and finishTask calls do. Work no
 * one runs — a dead replica's claims once they expire, wake-ups that are due, tasks a busy replica
 * left — is found by the sweeper every replica runs (`sweepAt` marks the jobs that need a look).
 */
import { randomUUID } from "node:crypto";
import type { Logger, ServiceBroker } from "moleculer";
import { DuplicateKeyError } from "../../../shared/store/types";
import type { JobRepository } from "../jobs.repository";
import type { WorkflowRepository } from "../workflows.repository";
import { OperationError, childRequest } from "../operations";
import { emitChanges, flushChanges } from "./events";
import { hasEnded, JobStore } from "./jobs";
import { STOP_GRACE_MS, SWEEP_BATCH, SWEEP_CONCURRENCY, type RunnerSettings } from "./settings";
import { loadWorkflow, prepareVariables } from "./start";
import { buildJob } from "./new-job";
import { failed, type Outcome } from "./outcomes";
import {
  Step,
  cancelRun,
  finishRun,
  releaseClaim,
  renewClaim,
  settle,
  startRun,
  type StepContext,
} from "./transitions";
import type { ChildState, RunJob } from "./types";
import { outgoingFromResult, resolveIncoming } from "./variables";
import { copyPlain } from "../../../shared/objects";
import { callAsPlatform, PLATFORM_META } from "../../../shared/authorization";
import { assertMayStart } from "../../../shared/job-visibility";

/** The balanced event that asks one engine replica to look at a job now. */
export const DISPATCH_EVENT = "engine.dispatch";

/** Wake-ups further away than this are left to the sweeper rather than a timer. */
const LOCAL_TIMER_MAX_MS = 60_000;

interface RunningTask {
  /** When its claim is next renewed (epoch ms): the replica's one renewal timer looks (renewTick). */
  renewAt: number;
  done: Promise<void>;
  jobId: string;
  taskId: string;
  run: string;
}

export interface RunnerHost {
  broker: ServiceBroker;
  logger: Logger;
  jobs: JobRepository;
  workflows: WorkflowRepository;
  /** The platform's encryption key (loaded on first use). */
  secretKey(): Buffer;
  /** Timings and limits from the broker's config (./settings.ts). */
  settings: RunnerSettings;
}

export class Runner {
  readonly me: string;
  readonly jobs: JobStore;
  private readonly running = new Map<string, RunningTask>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private sweepTimer?: NodeJS.Timeout;
  /** The one timer that renews the claims of every running task (while any runs). */
  private renewTimer?: NodeJS.Timeout;
  private sweeping = false;
  private stopping = false;

  constructor(private readonly host: RunnerHost) {
    this.me = `${host.broker.nodeID}/${randomUUID().slice(0, 8)}`;
    this.jobs = new JobStore(host.jobs, { machinery: host.settings.machinery });
  }

  private get broker() {
    return this.host.broker;
  }

  private get logger() {
    return this.host.logger;
  }

  /** Tasks this replica may claim now. */
  get budget(): number {
    return this.stopping ? 0 : Math.max(0, this.host.settings.maxLocalTasks - this.running.size);
  }

  /** How many tasks this replica is running (tests and the bench read it). */
  get load(): number {
    return this.running.size;
  }

  private context(children?: Map<string, ChildState>): StepContext {
    return {
      now: Date.now(),
      me: this.me,
      budget: this.budget,
      claimTtlMs: this.host.settings.claimTtlMs,
      newJobId: () => this.host.jobs.newId(),
      children,
    };
  }

  // ------------------------------------------------------------------------------------ writes

  /**
   * Stores a new job with its first step taken (one insert), then runs what that step claimed.
   * Answers the job as stored (JobStore.insert: deep-frozen with the machinery on).
   */
  async start(job: RunJob): Promise<RunJob> {
    const step = new Step(this.context());
    startRun(job, step);
    const stored = await this.jobs.insert(job);
    this.after(null, job, step);
    return stored;
  }

  /**
   * One write on job `jobId`: `change` (may throw to refuse), then settle. Answers null when the
   * job does not exist.
   */
  async advance<R>(
    jobId: string,
    change?: (draft: RunJob, step: Step) => R,
    options: { fresh?: boolean; children?: Map<string, ChildState> } = {},
  ): Promise<{ job: RunJob; result: R; changed: boolean } | null> {
    let step!: Step;
    const written = await this.jobs.update(
      jobId,
      (draft) => {
        step = new Step(this.context(options.children));
        const result = change ? change(draft, step) : (undefined as R);
        settle(draft, step);
        return result;
      },
      { fresh: options.fresh },
    );
    if (!written) return null;
    if (written.changed) this.after(written.before, written.job, step, written.changedTasks);
    return { job: written.job, result: written.result, changed: written.changed };
  }

  /** Acts on a stored write's decisions (`changedTasks`: the tasks it stored anew, jobs.ts Written). */
  private after(before: RunJob | null, job: RunJob, step: Step, changedTasks?: readonly string[]): void {
    try {
      emitChanges(this.broker, before, job, changedTasks);
    } catch (err) {
      this.logger.warn(`engine: events for job ${job._id} not sent: ${(err as Error).message}`);
    }
    for (const { taskId, run } of step.claimed) this.launch(job, taskId, run);
    for (const at of step.wakeups) this.wakeAt(job._id, at);
    if (step.leftReady && !this.stopping) this.dispatch(job._id);
    const ended = hasEnded(job);
    if (ended && (!before || before.status !== job.status) && job.parent) void this.notifyParent(job);
    for (const child of step.cancelChildren) void this.cancelChild(child);
  }

  /** Asks one engine replica (maybe this one) to look at the job now. */
  private dispatch(jobId: string): void {
    try {
      void Promise.resolve(this.broker.emit(DISPATCH_EVENT, { jobId })).catch(() => undefined);
    } catch {
      /* the sweeper finds it anyway */
    }
  }

  // ------------------------------------------------------------------------------ running tasks

  private launch(job: RunJob, taskId: string, run: string): void {
    const key = `${job._id}/${taskId}/${run}`;
    if (this.running.has(key)) return;
    const task = job.tasks[taskId]!;
    // Each task starts in a macrotask: in one process a job's whole chain of steps would otherwise
    // run as one stream of microtasks (local calls and the embedded store never wait for I/O),
    // keeping HTTP requests and replies waiting until every running job had finished.
    const work = new Promise<void>((resolve) => setImmediate(resolve)).then(() =>
      task.type === "operation" && task.name === "childJob"
        ? this.runChild(job, taskId, run)
        : this.runAction(job, taskId, run),
    );
    const entry: RunningTask = {
      jobId: job._id,
      taskId,
      run,
      renewAt: Date.now() + this.host.settings.claimRenewMs,
      done: work
        .catch((err) =>
          this.logger.warn(`engine: task ${taskId} of job ${job._id} failed to finish: ${err.message}`),
        )
        .finally(() => this.running.delete(key)),
    };
    this.running.set(key, entry);
    this.armRenewals();
  }

  /**
   * One timer per replica, not one per task (a timer's start and stop cost more than the no-op
   * task they guard): it ticks every half renewal period while tasks run, so a claim is renewed
   * between claimRenewMs and 1.5 x claimRenewMs after its last renewal, half the claim TTL at
   * most, as the TTL allows (settings.ts). It stops when no task runs.
   */
  private armRenewals(): void {
    if (this.renewTimer) return;
    this.renewTimer = setInterval(() => this.renewTick(), Math.max(1, this.host.settings.claimRenewMs / 2));
    this.renewTimer.unref();
  }

  private renewTick(): void {
    // Renewals go on while a graceful stop lets tasks finish: a claim must not lapse under a running task.
    if (this.running.size === 0) {
      clearInterval(this.renewTimer);
      this.renewTimer = undefined;
      return;
    }
    const now = Date.now();
    for (const entry of this.running.values()) {
      if (entry.renewAt > now) continue;
      entry.renewAt = now + this.host.settings.claimRenewMs;
      void this.renew(entry.jobId, entry.taskId, entry.run);
    }
  }

  /** An automatic task: its action's call, then the write of its outcome. */
  private async runAction(job: RunJob, taskId: string, run: string): Promise<void> {
    const task = job.tasks[taskId]!;
    let outcome: Outcome;
    try {
      if (!task.app || !task.name)
        throw new OperationError(`Task '${taskId}' names no action (app and name)`);
      const action = `${task.app}.${task.name}`;
      this.assertTaskAction(action);
      // The action gets its own params: the job's tasks are shared (and frozen) between writes.
      // As the job's runAs, whose current rights the authorization middleware resolves (its stored
      // roles are a snapshot); a job the platform started itself runs as the platform.
      const result = await this.broker.call(action, copyPlain(resolveIncoming(job, task)), {
        timeout: this.host.settings.taskTimeoutMs,
        meta: job.runAs ? { caller: { ...job.runAs, resolvedAt: undefined } } : { ...PLATFORM_META },
      });
      outcome = { state: "success", outgoing: outgoingFromResult(task, result) };
    } catch (err) {
      outcome = failed(err);
    }
    await this.advance(job._id, (draft, step) => finishRun(draft, taskId, run, outcome, step));
  }

  /**
   * Only actions that declare themselves workflow tasks (task metadata in their schema, the same
   * the task catalog lists) may be called by a job: a workflow must not reach internal actions
   * such as the store's or password changes.
   */
  private assertTaskAction(action: string): void {
    // Not a document: Moleculer's typings answer the registry's endpoint list without the action
    // schema's own members (our `task`), so the list is read as what it holds.
    const list = this.broker.registry.getActionEndpoints(action) as unknown as
      { endpoints?: { action?: { task?: unknown } }[] } | undefined;
    const endpoints = list?.endpoints ?? [];
    if (endpoints.length > 0 && !endpoints.some((ep) => ep.action?.task))
      throw new OperationError(`'${action}' is not a workflow task`, [], 403);
  }

  /** A childJob task: stores and starts the child job (id chosen at claim time), then waits for it. */
  private async runChild(job: RunJob, taskId: string, run: string): Promise<void> {
    const task = job.tasks[taskId]!;
    const childId = task.child!.jobId;
    try {
      const request = childRequest(copyPlain(resolveIncoming(job, task)));
      if (!(await this.host.jobs.exists(childId))) {
        const workflow = await loadWorkflow(this.host.workflows, request.workflow);
        // A child starts as its parent's runAs: its workflow's groups apply to that account as it is now.
        if (job.runAs && workflow.groups?.length) {
          const current = await callAsPlatform(this.broker, "accounts.refreshCaller", {
            accountId: job.runAs.accountId,
          });
          assertMayStart(current, workflow);
        }
        const variables = prepareVariables(
          workflow,
          request.variables,
          () => this.host.secretKey(),
          "variables",
        );
        const child = buildJob(
          workflow,
          {
            id: childId,
            description: request.description,
            variables,
            groups: job.groups,
            caller: job.runAs,
            parent: { jobId: job._id, taskId },
            ancestors: [...job.ancestors, job._id],
          },
          Date.now(),
        );
        try {
          await this.start(child);
        } catch (err) {
          if (!(err instanceof DuplicateKeyError)) throw err; // another run of this task stored it first
        }
      }
      // The child runs on its own now; the task waits for it without a claim.
      await this.advance(job._id, (draft) => releaseClaim(draft, taskId, run));
    } catch (err) {
      await this.advance(job._id, (draft, step) => finishRun(draft, taskId, run, failed(err), step));
    }
  }

  private async renew(jobId: string, taskId: string, run: string): Promise<void> {
    try {
      const written = await this.advance(jobId, (draft) =>
        renewClaim(draft, taskId, run, Date.now(), this.host.settings.claimTtlMs),
      );
      if (written && !written.result)
        this.logger.debug(
          `engine: task ${taskId} of job ${jobId} is no longer ours (claim lost or job ended)`,
        );
    } catch (err) {
      this.logger.warn(
        `engine: renewing the claim on ${taskId} of job ${jobId} failed: ${(err as Error).message}`,
      );
    }
  }

  private wakeAt(jobId: string, at: number): void {
    const wait = at - Date.now();
    if (wait > LOCAL_TIMER_MAX_MS || this.stopping) return;
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        void this.process(jobId);
      },
      Math.max(0, wait) + 2,
    );
    timer.unref();
    this.timers.add(timer);
  }

  // ------------------------------------------------------------------------------ parents, children

  private async notifyParent(child: RunJob): Promise<void> {
    const { jobId } = child.parent!;
    const children = new Map([[child._id, { status: child.status, variables: child.variables }]]);
    try {
      await this.advance(jobId, undefined, { children });
    } catch (err) {
      // The parent's sweep (CHILD_CHECK_MS) looks at its children anyway.
      this.logger.warn(
        `engine: telling job ${jobId} its child ${child._id} ended failed: ${(err as Error).message}`,
      );
    }
  }

  private async cancelChild(childId: string): Promise<void> {
    try {
      await this.advance(childId, (draft, step) => {
        if (draft.status === "running" || draft.status === "paused") cancelRun(draft, step);
      });
    } catch (err) {
      this.logger.warn(`engine: canceling child job ${childId} failed: ${(err as Error).message}`);
    }
  }

  private async childStates(job: RunJob): Promise<Map<string, ChildState> | undefined> {
    const ids = Object.values(job.tasks).flatMap((t) =>
      t && t.status === "running" && t.child ? [t.child.jobId] : [],
    );
    if (ids.length === 0) return undefined;
    const found = await this.host.jobs.children(ids);
    const states = new Map<string, ChildState>(ids.map((id) => [id, { status: "", missing: true }]));
    for (const child of found) states.set(child._id, { status: child.status, variables: child.variables });
    return states;
  }

  // ------------------------------------------------------------------------------------ sweeping

  /** Looks at one job afresh: expired claims, due wake-ups, ended children, unclaimed tasks. */
  async process(jobId: string): Promise<void> {
    if (this.stopping) return;
    try {
      const job = await this.jobs.read(jobId);
      if (!job || job.status !== "running") return;
      await this.advance(jobId, undefined, { children: await this.childStates(job) });
    } catch (err) {
      this.logger.warn(`engine: processing job ${jobId} failed: ${(err as Error).message}`);
    }
  }

  /** One sweep: the running jobs whose `sweepAt` has passed, a few at a time, in random order. */
  async sweep(): Promise<number> {
    if (this.sweeping || this.stopping) return 0;
    this.sweeping = true;
    try {
      const due = await this.host.jobs.dueForSweep(Date.now(), SWEEP_BATCH);
      const ids = [...due].sort(() => Math.random() - 0.5);
      const workers = Array.from({ length: Math.min(SWEEP_CONCURRENCY, ids.length) }, async () => {
        for (let id = ids.pop(); id !== undefined; id = ids.pop()) await this.process(id);
      });
      await Promise.all(workers);
      return due.length;
    } finally {
      this.sweeping = false;
    }
  }

  startSweeper(): void {
    const next = () => {
      if (this.stopping) return;
      const jitter = 0.75 + Math.random() * 0.5;
      this.sweepTimer = setTimeout(() => {
        this.sweep()
          .catch((err) => this.logger.warn(`engine: sweep failed: ${(err as Error).message}`))
          .finally(next);
      }, this.host.settings.sweepIntervalMs * jitter);
      this.sweepTimer.unref();
    };
    next();
  }

  /**
   * Graceful stop: no new claims; running tasks get STOP_GRACE_MS to finish, then their claims are
   * handed back so another replica runs them at once rather than after the claim TTL.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.sweepTimer);
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    try {
      await this.stopRuns();
    } finally {
      flushChanges(this.broker);
    }
  }

  private async stopRuns(): Promise<void> {
    const pending = [...this.running.values()];
    if (pending.length === 0) {
      clearInterval(this.renewTimer);
      this.renewTimer = undefined;
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(pending.map((p) => p.done)),
      new Promise((resolve) => (timer = setTimeout(resolve, STOP_GRACE_MS))),
    ]);
    clearTimeout(timer);
    clearInterval(this.renewTimer);
    this.renewTimer = undefined;
    for (const task of this.running.values()) {
      await this.advance(task.jobId, (draft) => releaseClaim(draft, task.taskId, task.run), {
        fresh: true,
      }).catch(() => undefined);
    }
  }
}
