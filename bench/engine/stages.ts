/**
 * Where a slow job of the half-peak run waits (BENCH_STAGES=1, ours in one process): the bench
 * process notes, on the wall clock, every `engine.jobChanges` event of every job (one per stored
 * write: the start's insert, then each step's finish and the next one's claim), the pauses of its
 * garbage collector, the turns of its event loop that started late, its slow synchronous file
 * calls (the store's log writes, a compaction's rotation), and the store's compactions (from the
 * log's rotation to the snapshot in place, as the store publishes them on COMPACTION_CHANNEL: the
 * compaction thread's work, beside the store's own thread on the machine's cores). The load
 * child adds each job's start request and its answer. For the slowest jobs (at and above the
 * p99) and for the jobs around the median, the report splits start-to-complete into: the start
 * (request sent -> first event), the steps (first event -> the event that ends the job; its widest
 * gap between two events), and the end's notice (that event -> the child heard of it); counts what
 * overlapped the widest gap; and says how much of each job a compaction ran beside.
 *
 * Bench-only instrumentation: the file calls are timed by wrapping `fs`'s functions in this
 * process while the run lasts (the store calls them through the module object), nothing in the
 * platform changes.
 */
import diagnostics from "node:diagnostics_channel";
import fs from "node:fs";
import { PerformanceObserver, type PerformanceEntry } from "node:perf_hooks";
import type { Context, ServiceSchema } from "moleculer";
import { ENGINE_EVENTS, type JobChangesEvent } from "../../shared/contracts/events";
import { COMPACTION_CHANNEL } from "../../shared/store/embedded/backend";
import { percentile } from "./stats";

/** One job as the load child saw it: wall-clock ms (performance.timeOrigin + performance.now()). */
export interface JobStamp {
  jobId: string;
  sent: number;
  answered: number;
  /** When the child learnt the job ended (undefined: it did not). */
  ended?: number;
}

interface Span {
  at: number;
  ms: number;
  what: string;
  /** A loop stall's: the main thread's CPU during it, ms (near `ms`: our own work held the loop;
   * far below: the thread did not run, the machine's other processes had the core, or it waited). */
  cpuMs?: number;
}

const wall = () => performance.timeOrigin + performance.now();

/** A turn of the event loop that started this much later than asked counts as a stall. */
const LATE_MS = 5;
/** A synchronous file call this long is noted. */
const SLOW_FS_MS = 1;
const TIMED_FS = ["writeSync", "fsyncSync", "fdatasyncSync", "renameSync", "openSync"] as const;

/** A window the arrivals are counted in: a burst of starts shows as many more than the pace's. */
const BURST_MS = 20;

/**
 * The most jobs sent within BURST_MS, beside what an even pace sends in that time: the paced loop
 * sends the jobs a late turn of its own owes at once (workload.ts pacedLoop), so a stall of the
 * load's process arrives at the platform as a burst.
 */
function arrivals(sent: number[]): string {
  const times = [...sent].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i] - times[j] > BURST_MS) j++;
    most = Math.max(most, i - j + 1);
  }
  const span = times[times.length - 1] - times[0];
  const even = span > 0 ? (times.length * BURST_MS) / span : times.length;
  return `arrivals: at most ${most} jobs sent within ${BURST_MS} ms (${even.toFixed(1)} at an even pace)`;
}

/** The median count of jobs in flight (sent, not ended) when each job of `group` was sent. */
function inFlight(all: Split[], group: Split[]): string {
  const counts = group.map((g) => all.filter((j) => j.sent <= g.sent && j.ended > g.sent).length);
  return percentile(counts, 50).toFixed(0);
}

export class StageRecorder {
  private readonly events = new Map<string, number[]>();
  private readonly gc: Span[] = [];
  private readonly stalls: Span[] = [];
  private readonly files: Span[] = [];
  private readonly fileCalls = new Map<string, { count: number; ms: number }>();
  private readonly compactions: Span[] = [];
  /** When the compaction under way began (its log's rotation), or the recording did. */
  private compactionFrom?: number;
  private recordingFrom = 0;
  private observer?: PerformanceObserver;
  private ticker?: NodeJS.Timeout;
  private restore: (() => void)[] = [];

  /** A listener service: every change event of every job, stamped. */
  service(): ServiceSchema {
    const seen = (jobId: string) => {
      const list = this.events.get(jobId);
      if (list) list.push(wall());
      else this.events.set(jobId, [wall()]);
    };
    return {
      name: "benchstages",
      events: {
        [ENGINE_EVENTS.changes](ctx: Context<JobChangesEvent>) {
          seen(ctx.params.jobId);
        },
      },
    };
  }

  start(): void {
    this.recordingFrom = wall();
    diagnostics.subscribe(COMPACTION_CHANNEL, this.onCompaction);
    this.observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries())
        this.gc.push({ at: performance.timeOrigin + e.startTime, ms: e.duration, what: gcKind(e) });
    });
    this.observer.observe({ entryTypes: ["gc"] });
    // A 1 ms timer: how late each turn that runs it starts says how long the loop was held.
    let due = performance.now() + 1;
    let cpu = process.threadCpuUsage();
    this.ticker = setInterval(() => {
      const now = performance.now();
      const late = now - due;
      const used = process.threadCpuUsage(cpu);
      cpu = process.threadCpuUsage();
      if (late >= LATE_MS)
        this.stalls.push({
          at: performance.timeOrigin + due,
          ms: late,
          what: "loop",
          cpuMs: (used.user + used.system) / 1000,
        });
      due = now + 1;
    }, 1);
    const module = fs as unknown as Record<string, (...args: unknown[]) => unknown>;
    for (const name of TIMED_FS) {
      const original = module[name];
      module[name] = (...args: unknown[]) => {
        const t0 = performance.now();
        try {
          return original.apply(fs, args);
        } finally {
          const ms = performance.now() - t0;
          const tally = this.fileCalls.get(name) ?? { count: 0, ms: 0 };
          tally.count++;
          tally.ms += ms;
          this.fileCalls.set(name, tally);
          if (ms >= SLOW_FS_MS) this.files.push({ at: performance.timeOrigin + t0, ms, what: name });
        }
      };
      this.restore.push(() => (module[name] = original));
    }
  }

  /** A compaction's start and end, as the store publishes them (backend.ts startCompaction). */
  private readonly onCompaction = (message: unknown) => {
    const { phase } = message as { phase: "start" | "end" };
    if (phase === "start") this.compactionFrom = wall();
    else {
      const from = this.compactionFrom ?? this.recordingFrom;
      this.compactions.push({ at: from, ms: wall() - from, what: "compaction" });
      this.compactionFrom = undefined;
    }
  };

  stop(): void {
    diagnostics.unsubscribe(COMPACTION_CHANNEL, this.onCompaction);
    this.observer?.disconnect();
    clearInterval(this.ticker);
    for (const undo of this.restore) undo();
    this.restore = [];
  }

  /**
   * The slowest jobs' times (request sent -> end, wall-clock ms; at or above the p99) and the run's
   * span: where ./stages-profile.ts looks.
   */
  slowWindows(stamps: JobStamp[]): { windows: [number, number][]; run: [number, number] } | null {
    const jobs = this.splits(stamps);
    if (jobs.length === 0) return null;
    const p99 = percentile(
      jobs.map((j) => j.total),
      99,
    );
    return {
      windows: jobs.filter((j) => j.total >= p99).map((j) => [j.sent, j.ended]),
      run: [Math.min(...jobs.map((j) => j.sent)), Math.max(...jobs.map((j) => j.ended))],
    };
  }

  private splits(stamps: JobStamp[]): Split[] {
    return stamps
      .filter((s) => s.ended !== undefined && (this.events.get(s.jobId)?.length ?? 0) >= 2)
      .map((s) => this.split(s));
  }

  /** The report, as lines of text. */
  report(stamps: JobStamp[]): string[] {
    const jobs = this.splits(stamps);
    if (jobs.length === 0) return ["stages: no job with its events"];
    jobs.sort((a, b) => a.total - b.total);
    const p99 = percentile(
      jobs.map((j) => j.total),
      99,
    );
    const slow = jobs.filter((j) => j.total >= p99);
    const mid = jobs.slice(Math.floor(jobs.length * 0.45), Math.ceil(jobs.length * 0.55));
    const from = Math.min(...jobs.map((j) => j.sent));
    const to = Math.max(...jobs.map((j) => j.ended));
    const inRun = (spans: Span[]) => spans.filter((s) => s.at + s.ms >= from && s.at <= to);
    const gc = inRun(this.gc);
    const stalls = inRun(this.stalls);
    const files = inRun(this.files);
    const running =
      this.compactionFrom !== undefined
        ? [{ at: this.compactionFrom, ms: to - this.compactionFrom, what: "compaction" }]
        : [];
    const compactions = inRun([...this.compactions, ...running]);
    const lines = [
      `stages: ${jobs.length} jobs, p99 ${p99.toFixed(1)} ms (${slow.length} jobs at or above it), ` +
        `run ${((to - from) / 1000).toFixed(1)} s`,
      `  GC pauses ${gc.length}, ${sum(gc).toFixed(0)} ms in all, longest ${longest(gc)} ` +
        `(${byKind(gc)}); ` +
        `loop stalls >= ${LATE_MS} ms ${stalls.length}, longest ${longest(stalls)}; ` +
        `file calls >= ${SLOW_FS_MS} ms ${files.length}, longest ${longest(files)}`,
      `  loop stalls: ${sum(stalls).toFixed(0)} ms, the main thread on CPU for ` +
        `${stalls.reduce((a, s) => a + (s.cpuMs ?? 0), 0).toFixed(0)} ms of them`,
      `  file calls: ${[...this.fileCalls].map(([n, t]) => `${n} ${t.count} (${t.ms.toFixed(0)} ms)`).join(", ")}`,
      `  ${arrivals(jobs.map((j) => j.sent))}; jobs in flight when one was sent (median): ` +
        `the slow ones ${inFlight(jobs, slow)}, those around p50 ${inFlight(jobs, mid)}`,
      `  compactions in the run: ${compactions.length}` +
        (compactions.length > 0
          ? ` (${compactions.map((c) => `${c.ms.toFixed(0)} ms${c === running[0] ? ", unfinished" : ""}`).join("; ")})`
          : ""),
      "  | jobs | total | start (sent -> first event) | answer | steps | widest gap | gaps > 5 ms | end's notice | " +
        "GC in widest gap | stall in it | slow file call in it | GC in the job | stalls in the job (main thread's CPU in them) | compaction in the job |",
    ];
    const row = (name: string, group: Split[]) => {
      const med = (f: (j: Split) => number) => percentile(group.map(f), 50).toFixed(1);
      const overlap = (spans: Span[]) => (j: Split) => sum(spans.filter((s) => overlaps(s, j.gapAt, j.gap)));
      const inJob = (spans: Span[]) => (j: Split) => spans.filter((s) => overlaps(s, j.sent, j.total));
      const stallCpu = (j: Split) => inJob(stalls)(j).reduce((a, s) => a + (s.cpuMs ?? 0), 0);
      lines.push(
        `  | ${name} (${group.length}, medians) | ${med((j) => j.total)} | ${med((j) => j.start)} | ` +
          `${med((j) => j.answer)} | ${med((j) => j.steps)} | ${med((j) => j.gap)} | ${med((j) => j.bigGaps)} | ` +
          `${med((j) => j.notice)} | ${med(overlap(gc))} | ${med(overlap(stalls))} | ${med(overlap(files))} | ` +
          `${med((j) => sum(inJob(gc)(j)))} | ${med((j) => sum(inJob(stalls)(j)))} (${med(stallCpu)}) | ` +
          `${med(during(compactions))} |`,
      );
    };
    row("around p50", mid);
    row("p99 and above", slow);
    lines.push(
      "  slowest jobs, one by one (ms): total = start + steps + notice; widest gap; what overlapped it; " +
        "a compaction's share of the job",
    );
    for (const j of slow.slice(-8).reverse()) {
      const near = (spans: Span[]) =>
        spans
          .filter((s) => overlaps(s, j.gapAt, j.gap))
          .map(
            (s) =>
              `${s.what} ${s.ms.toFixed(1)}${s.cpuMs !== undefined ? ` (cpu ${s.cpuMs.toFixed(1)})` : ""}`,
          )
          .join(", ") || "-";
      lines.push(
        `    ${j.total.toFixed(1)} = ${j.start.toFixed(1)} + ${j.steps.toFixed(1)} + ${j.notice.toFixed(1)}; ` +
          `gap ${j.gap.toFixed(1)} after event ${j.gapIndex} of ${j.events}; GC [${near(gc)}]; ` +
          `stalls [${near(stalls)}]; files [${near(files)}]; compaction ${during(compactions)(j).toFixed(1)}`,
      );
    }
    return lines;
  }

  private split(s: JobStamp): Split {
    const events = this.events.get(s.jobId)!;
    const ended = s.ended!;
    let gap = 0;
    let gapAt = events[0];
    let gapIndex = 0;
    let bigGaps = 0;
    for (let i = 1; i < events.length; i++) {
      const d = events[i] - events[i - 1];
      if (d > 5) bigGaps++;
      if (d > gap) {
        gap = d;
        gapAt = events[i - 1];
        gapIndex = i;
      }
    }
    const last = events[events.length - 1];
    return {
      sent: s.sent,
      ended,
      total: ended - s.sent,
      start: events[0] - s.sent,
      answer: s.answered - s.sent,
      steps: last - events[0],
      notice: ended - last,
      gap,
      gapAt,
      gapIndex,
      bigGaps,
      events: events.length,
    };
  }
}

interface Split {
  sent: number;
  ended: number;
  total: number;
  start: number;
  answer: number;
  steps: number;
  notice: number;
  gap: number;
  gapAt: number;
  gapIndex: number;
  bigGaps: number;
  events: number;
}

const sum = (spans: Span[]) => spans.reduce((a, s) => a + s.ms, 0);
const longest = (spans: Span[]) =>
  spans.length ? `${Math.max(...spans.map((s) => s.ms)).toFixed(1)} ms` : "-";
const byKind = (spans: Span[]) =>
  [...new Set(spans.map((s) => s.what))]
    .map((kind) => {
      const of = spans.filter((s) => s.what === kind);
      return `${kind} ${of.length}, longest ${longest(of)}`;
    })
    .join("; ");
const overlaps = (s: Span, at: number, ms: number) => s.at < at + ms && s.at + s.ms > at;
/** How much of job `j`'s time (sent -> ended) the spans cover, ms. */
const during = (spans: Span[]) => (j: Split) =>
  spans.reduce((ms, s) => ms + Math.max(0, Math.min(s.at + s.ms, j.ended) - Math.max(s.at, j.sent)), 0);

/** GC entry kinds (perf_hooks' NODE_PERFORMANCE_GC_* flags). */
function gcKind(e: PerformanceEntry): string {
  const kind = (e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
  return kind === 1 ? "scavenge" : kind === 2 ? "mark-compact" : kind === 4 ? "incremental" : "gc";
}
