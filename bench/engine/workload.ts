/**
 * The engine bench's workload: a task service with a no-op action (a workflow task), a listener
 * for job events (a job is done when its `engine.jobChanges` event says so), the two workflows,
 * and the load loops: start jobs and wait for each to complete; finish manual tasks.
 */
import type { Context, ServiceBroker, ServiceSchema } from "moleculer";
import {
  ENGINE_EVENTS,
  type JobChangesBatchEvent,
  type JobChangesEvent,
} from "../../shared/contracts/events";
import type { JobStamp } from "./stages";
import { intEnv } from "../support/env";
import { LeanHttp } from "../support/lean-http";

/**
 * The no-op tasks of a job (BENCH_TASKS, 10): a larger count shows what a transition costs in a
 * larger workflow (docs/performance.md, "A workflow's size").
 */
export const TASKS_PER_JOB = intEnv("BENCH_TASKS", 10, 1);
export const AUTOMATIC_WORKFLOW = TASKS_PER_JOB === 10 ? "bench-ten-tasks" : `bench-${TASKS_PER_JOB}-tasks`;
export const MANUAL_WORKFLOW = "bench-approval";

/** benchtask.noop: does nothing, declared as a workflow task; `calls.count` counts its calls here. */
export function taskService(calls: { count: number } = { count: 0 }): ServiceSchema {
  return {
    name: "benchtask",
    actions: {
      // `task` marks it a workflow task (Moleculer keeps unknown schema members; its types do not know them).
      noop: {
        task: {
          summary: "Does nothing",
          description: "Answers an empty object",
          variables: { incoming: {}, outgoing: {} },
        },
        handler() {
          calls.count++;
          return {};
        },
      } as any,
    },
  };
}

/** Resolves a waiter when a job's event says it ended. */
export class Completions {
  private waiters = new Map<string, (at: { at: number; status: string }) => void>();
  private early = new Map<string, { at: number; status: string }>();

  /** The engine replicas whose writes ended a job (the events' senders): the warm-up waits for all. */
  readonly engines = new Set<string>();

  service(): ServiceSchema {
    const seen = (change: JobChangesEvent, sender: string | null) => {
      if (!change.jobChanged || change.status === "running" || change.status === "paused") return;
      if (sender) this.engines.add(sender);
      this.ended(change.jobId, change.status);
    };
    return {
      name: "benchlistener",
      events: {
        [ENGINE_EVENTS.changes](ctx: Context<JobChangesEvent>) {
          seen(ctx.params, ctx.nodeID);
        },
        // A turn's changes in one call, as the gateway takes them (shared/job-changes-batch.ts).
        [ENGINE_EVENTS.changesBatch](ctx: Context<JobChangesBatchEvent>) {
          for (const change of ctx.params.changes) seen(change, ctx.nodeID);
        },
      },
    };
  }

  /**
   * Set while the load runs in another process (./load-child.ts): each end goes there, stamped
   * with the wall clock (performance.timeOrigin + now), instead of to a waiter here.
   */
  forward?: (jobId: string, status: string, wallMs: number) => void;

  /** A job ended at `at` (this process's performance.now(), by default now). */
  ended(jobId: string, status: string, at = performance.now()): void {
    if (this.forward) return this.forward(jobId, status, performance.timeOrigin + at);
    const end = { at, status };
    const waiter = this.waiters.get(jobId);
    if (waiter) {
      this.waiters.delete(jobId);
      waiter(end);
    } else {
      this.early.set(jobId, end);
    }
  }

  wait(jobId: string, timeoutMs: number): Promise<{ at: number; status: string }> {
    const early = this.early.get(jobId);
    if (early) {
      this.early.delete(jobId);
      return Promise.resolve(early);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(jobId);
        reject(new Error(`job ${jobId} did not end within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.set(jobId, (at) => {
        clearTimeout(timer);
        resolve(at);
      });
    });
  }
}

const marker = (id: string) => ({ name: id, summary: id });

export function automaticWorkflow() {
  const ids = Array.from({ length: TASKS_PER_JOB }, (_, i) => `t${i + 1}`);
  const tasks: Record<string, unknown> = {
    workflow_start: marker("workflow_start"),
    workflow_end: marker("workflow_end"),
  };
  for (const id of ids)
    tasks[id] = {
      type: "automatic",
      app: "benchtask",
      name: "noop",
      summary: id,
      variables: { incoming: {}, outgoing: {} },
    };
  const chain = ["workflow_start", ...ids, "workflow_end"];
  const transitions: Record<string, unknown> = { workflow_end: {} };
  for (let i = 0; i < chain.length - 1; i++)
    transitions[chain[i]] = { [chain[i + 1]]: { state: "success", type: "standard" } };
  return { name: AUTOMATIC_WORKFLOW, description: "10 automatic no-op tasks", tasks, transitions };
}

export function manualWorkflow() {
  return {
    name: MANUAL_WORKFLOW,
    description: "one manual task",
    tasks: {
      workflow_start: marker("workflow_start"),
      approve: {
        type: "manual",
        name: "Approve",
        summary: "Approve",
        variables: { incoming: {}, outgoing: { ok: null } },
      },
      workflow_end: marker("workflow_end"),
    },
    transitions: {
      workflow_start: { approve: { state: "success", type: "standard" } },
      approve: { workflow_end: { state: "success", type: "standard" } },
      workflow_end: {},
    },
  };
}

/** The platform's HTTP API as the load uses it, signed in (../support/lean-http.ts). */
export class Http {
  private readonly client: LeanHttp;

  constructor(
    readonly base: string,
    private token = "",
  ) {
    this.client = new LeanHttp(base);
  }

  async login(password: string): Promise<void> {
    const reply = await this.client.request(
      "POST",
      "/login",
      { "content-type": "application/json" },
      JSON.stringify({ user: { username: "admin", password } }),
    );
    if (reply.status !== 200) throw new Error(`login: ${reply.status} ${reply.body}`);
    this.token = reply.body;
  }

  async post(path: string, body: unknown): Promise<{ status: number; body: any }> {
    const reply = await this.client.request(
      "POST",
      path,
      { "content-type": "application/json", authorization: `Bearer ${this.token}` },
      JSON.stringify(body),
    );
    return { status: reply.status, body: reply.body ? JSON.parse(reply.body) : undefined };
  }

  close(): void {
    this.client.close();
  }
}

export async function createWorkflows(http: Http): Promise<void> {
  for (const workflow of [automaticWorkflow(), manualWorkflow()]) {
    const reply = await http.post("/workflow_builder/workflows", { workflow });
    if (reply.status !== 200 && reply.status !== 409)
      throw new Error(`creating ${workflow.name}: ${reply.status} ${JSON.stringify(reply.body)}`);
  }
}

export interface JobsRun {
  jobs: number;
  completed: number;
  failed: number;
  wallMs: number;
  /** start request sent -> complete event received, per job. */
  latencies: number[];
  /** start request sent -> its answer received, per job. */
  startLatencies: number[];
  /** Each of our jobs' wall-clock stamps (ours only; ./stages.ts reads them). */
  stamps?: JobStamp[];
  /** When each completed job ended, ms after the loop began (the closed loop's: see `thirds`). */
  endsMs?: number[];
}

/** What a load loop saw of its jobs. */
class Tally {
  private completed = 0;
  private failed = 0;
  private readonly latencies: number[] = [];
  private readonly startLatencies: number[] = [];
  private readonly stamps: JobStamp[] = [];
  add(one: { startMs?: number; completeMs?: number; stamp?: JobStamp }): void {
    if (one.stamp) this.stamps.push(one.stamp);
    if (one.startMs !== undefined) this.startLatencies.push(one.startMs);
    if (one.completeMs === undefined) this.failed++;
    else {
      this.completed++;
      this.latencies.push(one.completeMs);
    }
  }
  totals() {
    const { completed, failed, latencies, startLatencies, stamps } = this;
    return { completed, failed, latencies, startLatencies, ...(stamps.length > 0 && { stamps }) };
  }
}

/** One job: started over HTTP, awaited until its event says it ended. Undefined times: it failed. */
async function startAndWait(
  http: Http,
  completions: Completions,
): Promise<{ startMs?: number; completeMs?: number; stamp?: JobStamp }> {
  const sent = performance.now();
  const reply = await http.post("/operations-manager/jobs/start", {
    workflow: AUTOMATIC_WORKFLOW,
    options: {},
  });
  if (reply.status !== 200) return {};
  const startMs = performance.now() - sent;
  const end = await completions.wait(reply.body._id, 60_000).catch(() => ({ at: NaN, status: "timeout" }));
  const wall = (at: number) => performance.timeOrigin + at;
  const stamp: JobStamp = { jobId: reply.body._id, sent: wall(sent), answered: wall(sent + startMs) };
  if (end.status !== "complete") return { startMs, stamp };
  return { startMs, completeMs: end.at - sent, stamp: { ...stamp, ended: wall(end.at) } };
}

/** Runs `jobs` jobs of the automatic workflow, `concurrency` at a time; stops starting at `deadline`. */
export async function runJobs(
  http: Http,
  completions: Completions,
  jobs: number,
  concurrency: number,
  deadline = Infinity,
): Promise<JobsRun> {
  return closedLoop(() => startAndWait(http, completions), jobs, concurrency, deadline);
}

/** One job of any engine: started, then awaited until it ends. Undefined times: it failed. */
export type OneJob = () => Promise<{ startMs?: number; completeMs?: number; stamp?: JobStamp }>;

/**
 * Closed loop: `concurrency` jobs in flight, each slot starting the next job when its last one
 * ended, until `jobs` were started or `deadline` (performance.now()) passed.
 */
export async function closedLoop(
  one: OneJob,
  jobs: number,
  concurrency: number,
  deadline = Infinity,
): Promise<JobsRun> {
  let next = 0;
  const tally = new Tally();
  const began = performance.now();
  const endsMs: number[] = [];
  const worker = async () => {
    while (next < jobs && performance.now() < deadline) {
      next++;
      const r = await one();
      if (r.completeMs !== undefined) endsMs.push(performance.now() - began);
      tally.add(r);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { jobs: next, wallMs: performance.now() - began, ...tally.totals(), endsMs };
}

/**
 * Jobs completed per second in the first and the last third of a closed loop's wall time: near
 * each other, the engine ran at its steady pace; the first well below the last, it was still
 * warming up when the measure began.
 */
export function thirds(run: Pick<JobsRun, "wallMs" | "endsMs">): { first: number; last: number } | null {
  const ends = run.endsMs;
  if (!ends || ends.length === 0 || run.wallMs <= 0) return null;
  const third = run.wallMs / 3;
  const rate = (from: number, to: number) =>
    Math.round((ends.filter((t) => t >= from && t < to).length / (third / 1000)) * 10) / 10;
  return { first: rate(0, third), last: rate(2 * third, Infinity) };
}

/** A warm-up: at least `jobs` jobs and at least `ms` of the closed loop, `concurrency` in flight. */
export interface WarmUpSpec {
  jobs: number;
  ms: number;
  concurrency: number;
}

/**
 * Warms an engine up before its measure, the same way for every engine: the closed loop at the
 * measure's concurrency until both bounds have passed. By time as well as by count, because an
 * engine's code runs slower until V8 has compiled its hot paths and the GC has sized its young
 * generation: ours took about 1,500 jobs to settle (docs/performance-rounds.md, "Warm-up"), and every
 * engine gets the same time.
 */
export async function warmLoop(one: OneJob, w: WarmUpSpec): Promise<void> {
  const timed = await closedLoop(one, Infinity, w.concurrency, performance.now() + w.ms);
  if (timed.jobs < w.jobs) await closedLoop(one, w.jobs - timed.jobs, w.concurrency);
}

export interface FinishRun {
  count: number;
  failed: number;
  wallMs: number;
  latencies: number[];
}

/** Starts `count` approval jobs, then finishes their manual task, `concurrency` calls at a time. */
export async function runFinishTasks(http: Http, count: number, concurrency: number): Promise<FinishRun> {
  const ids: string[] = [];
  let started = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (started < count) {
        started++;
        const reply = await http.post("/operations-manager/jobs/start", {
          workflow: MANUAL_WORKFLOW,
          options: {},
        });
        if (reply.status === 200 && reply.body.tasks.approve.status === "waiting") ids.push(reply.body._id);
      }
    }),
  );
  const latencies: number[] = [];
  let failed = count - ids.length;
  const began = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let id = ids.pop(); id !== undefined; id = ids.pop()) {
        const sent = performance.now();
        const reply = await http.post("/workflow_engine/finishTask", {
          job_id: id,
          task_id: "approve",
          task_data: { ok: true },
        });
        if (reply.status === 200 && reply.body.status === "complete")
          latencies.push(performance.now() - sent);
        else failed++;
      }
    }),
  );
  return { count: latencies.length, failed, wallMs: performance.now() - began, latencies };
}

/** Warms the platform up (warmLoop), then waits until every engine replica has ended a job. */
export async function warmUp(
  http: Http,
  completions: Completions,
  replicas: number,
  spec: WarmUpSpec,
  timeoutMs = 60_000,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  const one = () => startAndWait(http, completions);
  await warmLoop(one, spec);
  while (completions.engines.size < replicas) {
    if (Date.now() > until)
      throw new Error(`only ${completions.engines.size} of ${replicas} engine replicas ended jobs`);
    await closedLoop(one, spec.jobs, spec.concurrency);
  }
}

export type { ServiceBroker };

/**
 * Open loop: jobs started at `perSecond`, whatever the ones before are doing (a schedule or many
 * clients, not one client waiting for each), each awaited until complete. For latency at a given
 * load: a closed loop (runJobs) only ever measures the engine at its peak.
 */
export async function runPacedJobs(
  http: Http,
  completions: Completions,
  jobs: number,
  perSecond: number,
): Promise<JobsRun> {
  return pacedLoop(() => startAndWait(http, completions), jobs, perSecond);
}

/**
 * The open loop's jobs/s: half the closed loop's peak (`peakJobsPerSec`) by default, so each engine
 * is measured at the same share of what it can do; `fixed` (BENCH_PACED_RATE) when set above 0, so
 * an A/B of two builds, or ours and a peer, meets the same load whatever each one's peak (a change
 * that lowered the peak would otherwise also lighten the load its own tail is measured at).
 */
export function openLoopRate(peakJobsPerSec: number, fixed = 0): number {
  return fixed > 0 ? fixed : peakJobsPerSec / 2;
}

/** How a bench's lines name the open loop's rate (`fixed`: BENCH_PACED_RATE, as for openLoopRate). */
export function openLoopName(fixed = 0): string {
  return fixed > 0 ? `at ${fixed} jobs/s (BENCH_PACED_RATE)` : "at half the peak";
}

/** A warning for a run's line when its open loop ran above its closed loop's peak: a backlog's p99. */
export function overPeak(run: { jobsPerSec: number; halfPeak: { jobsPerSec: number } | null }): string {
  return run.halfPeak && run.halfPeak.jobsPerSec > run.jobsPerSec
    ? ` (the open loop above this engine's peak of ${run.jobsPerSec} jobs/s: its p99 measures a backlog)`
    : "";
}

/** Open loop over any engine's jobs: `jobs` jobs started at `perSecond`, each awaited until it ends. */
export async function pacedLoop(one: OneJob, jobs: number, perSecond: number): Promise<JobsRun> {
  const tally = new Tally();
  const began = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < jobs; i++) {
    // The i-th job is due at i / perSecond: a late tick starts the jobs it owes at once.
    const due = began + (i * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    pending.push(one().then((r) => tally.add(r)));
  }
  await Promise.all(pending);
  return { jobs, wallMs: performance.now() - began, ...tally.totals() };
}
