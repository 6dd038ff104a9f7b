/**
 * Collection `jobs`: one document per job (./run/types.ts RunJob: the workflow's definition copied
 * at start, each task's run state, the run's bookkeeping). Every query, update and aggregation the
 * engine makes of its jobs is a method here, beside the indexes that serve them.
 *
 * Writes: a job is inserted once (`insert`) and then changed only by `compareAndSet` on its
 * `version`, which ./run/jobs.ts (JobStore: the replica's cache, drafts, spilling) builds on; the
 * one other write is a group's release (`releaseGroup`). Values too big for a job live in
 * `job_outputs` (./job-outputs.repository.ts): every read here that answers a job's values puts
 * them back (`hydrate`).
 */
import { searchPage, type SearchOptions } from "../../shared/client-filter";
import { JOB_STATUSES } from "../../shared/contracts/engine-documents";
import { index, Repository } from "../../shared/store/repository";
import {
  updateVersionedAsUpdateOne,
  type Filter,
  type Pipeline,
  type Store,
  type VersionedWriteOptions,
} from "../../shared/store/types";
import { JobOutputRepository, type SpillingDoc } from "./job-outputs.repository";
import type { JobStoreQuery } from "./jobs/query-builder";
import { JOB_HIDDEN_PATHS } from "./jobs/public-job";
import { OutputGoneError } from "./run/outputs";
import type { ManualTaskSummary, RunJob, RunTask, SpillRef } from "./run/types";

/** A job as a list answers it: a projection may have left any member but `_id` out. */
export type ListedJob = Partial<RunJob> & { _id: string };

/** A manual task as the manual-task list reads it: its job's summary and the task, by id. */
export interface ManualTaskRow {
  job: Pick<RunJob, "_id" | "name" | "description" | "status" | "workflow" | "groups">;
  task: { k: string; v: RunTask };
  spilled?: SpillRef[];
}

/** One workflow's completed jobs on one UTC day (operation 8's bucket). */
export interface DailyBucket {
  jobsComplete: number;
  totalRunTime: number;
  totalManualTime: number;
  slaTargetsMissed: number;
  /** The day, epoch ms at 00:00Z. */
  day: number;
}

export interface DailyMetricsEntry {
  _id: string;
  workflow: { name: string; _id: string };
  metrics: DailyBucket[];
  preAutomationTime: number;
}

/** How many of a workflow's jobs are in each status, and the run time of its complete ones. */
export interface WorkflowJobCounts {
  _id: string;
  name: string;
  total: number;
  running: number;
  paused: number;
  complete: number;
  error: number;
  canceled: number;
  totalRunTime: number;
}

/** What the manual-task list reads of a page's jobs. */
const MANUAL_TASK_JOB_FIELDS = {
  _id: 1,
  name: 1,
  description: 1,
  status: 1,
  workflow: 1,
  groups: 1,
  tasks: 1,
  spilled: 1,
} as const;

export const DAY_MS = 86_400_000;
const countOf = (status: string) => ({ $sum: { $cond: [{ $eq: ["$status", status] }, 1, 0] } });
const runTime = { $subtract: ["$metrics.end_time", "$metrics.start_time"] };
const slaMs = { $multiply: [{ $ifNull: ["$sla", 0] }, 1000] };

export class JobRepository extends Repository<RunJob> {
  readonly collectionName = "jobs";
  /**
   * What the engine asks of its jobs, each served by an index: the sweeper's running jobs whose
   * sweepAt has passed (`dueForSweep`); job lists newest first (every caller's), a caller's own or
   * their groups' jobs newest first (`page`); a workflow's jobs by name (lists, metrics) and by id
   * (`liveOfWorkflow`); an automation's jobs; a type's; jobs by name newest first (the clients'
   * most common filter: Itential.py's `equals=<name>`, itential-mcp's `equals[name]` and
   * `starts-with[name]`), which also keeps the embedded store's job lists by name from parsing
   * every stored job (shared/store/embedded/doc-map.ts: an indexed field is in every skeleton);
   * complete jobs by end time (the task metrics' window, `dailyMetrics`), which also puts
   * `metrics.end_time` in every skeleton, so the job counts by workflow (`countsByWorkflow`) read
   * only indexed fields and parse no stored job; its trailing keys are the other fields the task
   * metrics read (`metrics.manual_time`, `sla`, `preAutomationTime`: rarely written, so rarely
   * re-keyed), which puts them in every skeleton too, so the task metrics parse no stored job
   * either (the index without them, retired below, is dropped at start); jobs with a manual task
   * in a status (the manual-task list, `manualTasks`), which also keeps each job's `manualTasks`
   * summary (an array) whole in its skeleton, so the list parses only the jobs of its page.
   */
  readonly indexes = [
    index({ status: 1, sweepAt: 1 }),
    index({ "metrics.start_time": -1, _id: -1 }),
    index({ name: 1, "metrics.start_time": -1 }),
    index({ groups: 1, "metrics.start_time": -1 }),
    index({ created_by: 1, "metrics.start_time": -1 }),
    index({ "workflow.name": 1, "metrics.start_time": -1 }),
    index({ "workflow._id": 1 }),
    index({ "automation._id": 1 }),
    index({ type: 1 }),
    index({ status: 1, "metrics.end_time": -1, "metrics.manual_time": 1, sla: 1, preAutomationTime: 1 }),
    index({ "manualTasks.status": 1 }),
  ];

  /** The task metrics' window before its trailing keys (eighteenth round, docs/performance.md). */
  override readonly retiredIndexes = ["status_1_metrics.end_time_-1"];

  /** The values too big for their job (`job_outputs`). */
  readonly outputs: JobOutputRepository;

  constructor(store: Store) {
    super(store);
    this.outputs = new JobOutputRepository(store);
  }

  // A new job's id is ObjectId text (the base's newId), chosen before the insert: a child job's id
  // is written into its parent's task when the task is claimed, before the child exists.

  // ------------------------------------------------------------------ the executor's (./run/)

  /** The job as stored (its big values still in `job_outputs`), or null. */
  findById(id: string): Promise<RunJob | null> {
    return this.docs.findOne({ _id: id });
  }

  /** Whether job `id` is stored (a child job's start checks it before starting it again). */
  async exists(id: string): Promise<boolean> {
    return (await this.docs.findOne({ _id: id }, { projection: { _id: 1 } })) !== null;
  }

  /** Stores a new job (DuplicateKeyError when its id is taken). */
  async insert(job: RunJob): Promise<void> {
    await this.docs.insertOne(job);
  }

  /**
   * The job's one update: `$set` and `$unset` applied, and `version` moved on, only if the stored
   * job is still at `version`. False when another writer got there first (or the job is gone).
   */
  async compareAndSet(
    id: string,
    version: number,
    set: Record<string, unknown>,
    unset?: Record<string, "">,
    options?: VersionedWriteOptions,
  ): Promise<boolean> {
    // The store's own versioned write where it has one (the embedded store: fewer checks, the same
    // answer; the remote store: the generic update on the wire, with the hint, and a task as the
    // members that changed of the one in `options.before`); MongoDB, or a store behind a wrapper
    // that leaves it out, takes the generic update (MongoDB ignores both).
    const docs = this.docs;
    if (docs.updateVersioned) return docs.updateVersioned(id, version, set, unset, options);
    return updateVersionedAsUpdateOne(docs, id, version, set, unset, options);
  }

  /** What a parent needs of its children: their status and variables (big ones put back). */
  async children(ids: string[]): Promise<Pick<RunJob, "_id" | "status" | "variables">[]> {
    const found = await this.docs.find(
      { _id: { $in: ids } },
      { projection: { _id: 1, status: 1, variables: 1, spilled: 1 } },
    );
    return this.hydrate(found);
  }

  /** Ids of running jobs whose `sweepAt` has passed, at most `limit`. */
  async dueForSweep(now: number, limit: number): Promise<string[]> {
    const due = await this.docs.find(
      { status: "running", sweepAt: { $lte: now } },
      { projection: { _id: 1 }, limit },
    );
    return due.map((d) => d._id);
  }

  // ------------------------------------------------------------------------ reads (./jobs/)

  /** A page of the job list (./jobs/query-builder.ts built the query) and the total it pages. */
  async page(query: JobStoreQuery): Promise<{ items: ListedJob[]; total: number }> {
    const { results, total } = await this.findPage(query.filter, {
      sort: query.sort,
      skip: query.skip,
      limit: query.limit,
      ...(query.projection && { projection: query.projection }),
      ...(query.scan && { scan: query.scan }),
    });
    return { items: await this.hydrate(results, !!query.projection), total };
  }

  /** Job `id` if `scope` (a caller's visibility) lets it be seen, whole; else null. */
  async findVisible(id: string, scope: Filter | undefined): Promise<RunJob | null> {
    const job = await this.docs.findOne({ ...scope, _id: id });
    if (!job) return null;
    await this.hydrate([job]);
    return job;
  }

  /**
   * A client's search (shared/client-filter.ts checks it; the engine's bookkeeping is not
   * searchable). Typed as whole jobs, as the contract answers them, though a client's `fields` may
   * leave members out (a known gap of the contract's Job, which requires name and status).
   */
  async search(options: SearchOptions, scope: Filter | undefined) {
    const page = await searchPage<RunJob>(this.docs, options, { _id: 1 }, scope, JOB_HIDDEN_PATHS);
    await this.hydrate(page.results, !!options.fields);
    return page;
  }

  /**
   * Manual tasks in `status`, newest first, of the jobs `scope` lets be seen (and job `jobId` only,
   * when given): a page of them and how many there are. The jobs' manual-task summaries are read
   * (`manualTasks`, ./run/manual-summary.ts: the index leads the embedded store's cold jobs to them
   * on their skeletons), then the page's jobs for its tasks. A task that changed between the two
   * reads, out of `status`, is left out of the page. A task's big outgoing values are put back.
   */
  async manualTasks(q: {
    scope: Filter;
    jobId?: string;
    status: "waiting" | "complete" | "canceled";
    skip: number;
    limit: number;
  }): Promise<{ rows: ManualTaskRow[]; total: number }> {
    const match: Filter = { ...q.scope, "manualTasks.status": q.status };
    if (q.jobId) match._id = q.jobId;
    // Waiting for a person means in a running job: a paused job's waiting tasks are not listed.
    if (q.status === "waiting") match.status = "running";
    const [out] = await this.docs.aggregate<{
      rows: { _id: string; m: ManualTaskSummary }[];
      total: { n: number }[];
    }>([
      { $match: match },
      { $project: { m: "$manualTasks" } },
      { $unwind: "$m" },
      { $match: { "m.status": q.status } },
      {
        $facet: {
          rows: [
            { $sort: { "m.start_time": -1, _id: -1, "m.k": 1 } },
            { $skip: q.skip },
            { $limit: q.limit },
          ],
          total: [{ $count: "n" }],
        },
      },
    ]);
    const page = out?.rows ?? [];
    const ids = [...new Set(page.map((row) => row._id))];
    const jobs =
      ids.length === 0
        ? []
        : await this.docs.find({ _id: { $in: ids } }, { projection: MANUAL_TASK_JOB_FIELDS });
    const byId = new Map(jobs.map((job) => [job._id, job]));
    const rows = page.flatMap(({ _id, m }): ManualTaskRow[] => {
      const job = byId.get(_id);
      const task = job?.tasks && Object.hasOwn(job.tasks, m.k) ? job.tasks[m.k] : undefined;
      if (!job || task?.status !== q.status || task.type !== "manual") return [];
      const { name, description, status, workflow, groups } = job;
      const row: ManualTaskRow = {
        job: { _id, name, description, status, workflow, groups },
        task: { k: m.k, v: task },
      };
      if (job.spilled) row.spilled = job.spilled;
      return [row];
    });
    await this.hydrate(
      rows
        .filter((row) => row.spilled?.length)
        .map((row) => ({ _id: row.job._id, tasks: { [row.task.k]: row.task.v }, spilled: row.spilled })),
    );
    return { rows, total: out?.total[0]?.n ?? 0 };
  }

  // -------------------------------------------------------- the manual-task summaries' migration

  /** Every job's id (on the embedded store read from the cold jobs' skeletons, none parsed). */
  async allIds(): Promise<string[]> {
    const found = await this.docs.find({}, { projection: { _id: 1 } });
    return found.map((job) => job._id);
  }

  /** The tasks, version and manual-task summary of jobs `ids`. */
  summariesOf(ids: string[]): Promise<Pick<RunJob, "_id" | "tasks" | "version" | "manualTasks">[]> {
    return this.docs.find(
      { _id: { $in: ids } },
      { projection: { _id: 1, tasks: 1, version: 1, manualTasks: 1 } },
    );
  }

  /**
   * Sets job `id`'s manual-task summary (none: takes it away) if the job is still at `version` (a
   * job stored without one: still without): a write of the engine's since then made a current one.
   * False when it was not.
   */
  async setManualSummary(id: string, version: unknown, summary?: ManualTaskSummary[]): Promise<boolean> {
    const update = summary ? { $set: { manualTasks: summary } } : { $unset: { manualTasks: "" as const } };
    const unchanged = typeof version === "number" ? version : { $exists: false };
    return (await this.docs.updateOne({ _id: id, version: unchanged }, update)).modifiedCount === 1;
  }

  /**
   * Operation 8's daily buckets: complete jobs that ended on or after `since` (epoch ms, a day's
   * start), bucketed by (workflow, UTC day of `metrics.end_time`), gathered per workflow, paged.
   * Only operators both store backends run the same way.
   */
  async dailyMetrics(q: {
    since: number;
    workflowName?: string;
    sortBy: "workflow.name" | "metrics.startDate";
    order: 1 | -1;
    skip: number;
    limit: number;
  }): Promise<{ total: number; page: DailyMetricsEntry[] }> {
    const match: Filter = {
      status: "complete",
      "metrics.end_time": { $gte: q.since },
      "metrics.start_time": { $gte: 0 },
    };
    if (q.workflowName !== undefined) match["workflow.name"] = q.workflowName;
    const sort =
      q.sortBy === "metrics.startDate"
        ? { [q.order === 1 ? "first" : "last"]: q.order, _id: q.order }
        : { "workflow.name": q.order, _id: q.order };
    const pipeline: Pipeline = [
      { $match: match },
      {
        $project: {
          workflowId: "$workflow._id",
          workflowName: "$workflow.name",
          end: "$metrics.end_time",
          day: { $subtract: ["$metrics.end_time", { $mod: ["$metrics.end_time", DAY_MS] }] },
          run: runTime,
          manual: { $ifNull: ["$metrics.manual_time", 0] },
          pre: { $ifNull: ["$preAutomationTime", 0] },
          missed: {
            $cond: [{ $and: [{ $gt: [slaMs, 0] }, { $gt: [runTime, slaMs] }] }, 1, 0],
          },
        },
      },
      { $sort: { end: 1, _id: 1 } },
      {
        $group: {
          _id: { workflow: "$workflowId", day: "$day" },
          name: { $last: "$workflowName" },
          pre: { $last: "$pre" },
          lastEnd: { $max: "$end" },
          jobsComplete: { $sum: 1 },
          totalRunTime: { $sum: "$run" },
          totalManualTime: { $sum: "$manual" },
          slaTargetsMissed: { $sum: "$missed" },
        },
      },
      { $sort: { "_id.day": 1, lastEnd: 1 } },
      {
        $group: {
          _id: "$_id.workflow",
          name: { $last: "$name" },
          preAutomationTime: { $last: "$pre" },
          first: { $min: "$_id.day" },
          last: { $max: "$_id.day" },
          metrics: {
            $push: {
              jobsComplete: "$jobsComplete",
              totalRunTime: "$totalRunTime",
              totalManualTime: "$totalManualTime",
              slaTargetsMissed: "$slaTargetsMissed",
              day: "$_id.day",
            },
          },
        },
      },
      {
        $project: {
          _id: 1,
          workflow: { name: "$name", _id: "$_id" },
          metrics: 1,
          preAutomationTime: 1,
          first: 1,
          last: 1,
        },
      },
      {
        $facet: {
          total: [{ $count: "n" }],
          page: [{ $sort: sort }, { $skip: q.skip }, { $limit: q.limit }],
        },
      },
    ];
    const [out] = await this.docs.aggregate<{ total: { n: number }[]; page: DailyMetricsEntry[] }>(pipeline);
    return { total: out?.total[0]?.n ?? 0, page: out?.page ?? [] };
  }

  /** Each workflow's job counts by status (one workflow's when named), by name, paged. */
  async countsByWorkflow(q: {
    workflowName?: string;
    order: 1 | -1;
    skip: number;
    limit: number;
  }): Promise<{ total: number; page: WorkflowJobCounts[] }> {
    const [facet] = await this.docs.aggregate<{ page: WorkflowJobCounts[]; count: { total: number }[] }>([
      { $match: q.workflowName !== undefined ? { "workflow.name": q.workflowName } : {} },
      {
        $group: {
          _id: "$workflow._id",
          name: { $last: "$workflow.name" },
          total: { $sum: 1 },
          ...Object.fromEntries(JOB_STATUSES.map((s) => [s, countOf(s)])),
          totalRunTime: {
            $sum: { $cond: [{ $eq: ["$status", "complete"] }, runTime, 0] },
          },
        },
      },
      { $sort: { name: q.order, _id: q.order } },
      {
        $facet: {
          page: [{ $skip: q.skip }, { $limit: q.limit }],
          count: [{ $count: "total" }],
        },
      },
    ]);
    return { total: facet?.count?.[0]?.total ?? 0, page: facet?.page ?? [] };
  }

  /** A workflow's jobs in `statuses`: how many, and the first `limit` ids. */
  async ofWorkflow(
    workflowId: string,
    statuses: string[],
    limit: number,
  ): Promise<{ total: number; ids: string[] }> {
    const filter = { "workflow._id": workflowId, status: { $in: statuses } };
    const [total, jobs] = await Promise.all([
      this.docs.count(filter),
      this.docs.find(filter, { sort: { _id: 1 }, limit, projection: { _id: 1 }, readOnly: true }),
    ]);
    return { total, ids: jobs.map((j) => j._id) };
  }

  /** A deleted group leaves every job that names it; answers how many changed. */
  async releaseGroup(groupId: string): Promise<number> {
    return (await this.docs.updateMany({ groups: groupId }, { $pull: { groups: groupId } })).modifiedCount;
  }

  // -------------------------------------------------------------------------- big values

  /**
   * Puts back the big values of job documents a reader found (whole, or projected: `projected`
   * then reads their `spilled` lists, which a projection may have left out), and takes `spilled`
   * out of them. A value replaced since the documents were read: their lists are read again (a
   * few times, then it throws).
   */
  async hydrate<T extends SpillingDoc>(docs: T[], projected = false): Promise<T[]> {
    let fresh = projected;
    for (let attempt = 0; ; attempt++) {
      if (fresh) {
        const ids = docs.map((d) => d._id).filter((id) => typeof id === "string");
        const lists =
          ids.length === 0
            ? []
            : await this.docs.find(
                { _id: { $in: ids }, spilled: { $exists: true } },
                { projection: { _id: 1, spilled: 1 } },
              );
        const byId = new Map(lists.map((l) => [l._id, l.spilled]));
        for (const doc of docs) {
          const list = byId.get(doc._id);
          if (list) doc.spilled = list;
          else delete doc.spilled;
        }
      }
      try {
        for (const doc of docs) await this.outputs.hydrate(doc);
        for (const doc of docs) delete doc.spilled;
        return docs;
      } catch (err) {
        if (!(err instanceof OutputGoneError) || attempt >= 4) throw err;
        fresh = true;
      }
    }
  }
}
