/**
 * The stage recorder's compactions (bench/engine/stages.ts, `BENCH_STAGES=1`): a real compaction of
 * the embedded store is seen from its log's rotation to its snapshot in place (the store publishes
 * both), and a slow job's line says how much of the job it ran beside. What the half-peak tail is put down to relies on it
 * (docs/performance-rounds.md, sixteenth round).
 */
import diagnostics from "node:diagnostics_channel";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { StageRecorder, type JobStamp } from "../../bench/engine/stages";
import { ENGINE_EVENTS, type JobChangesEvent } from "../../shared/contracts/events";
import { COMPACTION_CHANNEL, EmbeddedBackend } from "../../shared/store/embedded/backend";

const wall = () => performance.timeOrigin + performance.now();
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

/** The recorder's listener, called as the broker would with one job's change. */
function changed(recorder: StageRecorder, jobId: string): void {
  const events = recorder.service().events as Record<
    string,
    (ctx: { params: Partial<JobChangesEvent> }) => void
  >;
  events[ENGINE_EVENTS.changes]({ params: { jobId } });
}

/** A store that compacts after a few KB of log, with `docs` documents written. */
async function storeWith(docs: number): Promise<EmbeddedBackend> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "stages-"));
  dirs.push(dataDir);
  const store = new EmbeddedBackend({ dataDir, compactBytes: 8 * 1024 });
  const c = store.collection("jobs");
  for (let i = 0; i < docs; i++) await c.insertOne({ _id: `j${i}`, body: "x".repeat(200) });
  await store.compacted();
  return store;
}

test("a compaction during a job is in the report, and in the job's line", async () => {
  const store = await storeWith(10);
  const recorder = new StageRecorder();
  recorder.start();
  try {
    const sent = wall();
    changed(recorder, "a");
    // Past the threshold: the next write rotates the log and the compaction thread writes the snapshot.
    for (let i = 10; i < 80; i++)
      await store.collection("jobs").insertOne({ _id: `j${i}`, body: "y".repeat(200) });
    await store.compacted();
    changed(recorder, "a");
    const a: JobStamp = { jobId: "a", sent, answered: sent, ended: wall() };
    // A job after the compaction: none of it ran beside one.
    const after = wall();
    changed(recorder, "c");
    // Longer than `a`, so that in a report of both it is the slowest, listed on its own line.
    await new Promise((r) => setTimeout(r, a.ended! - a.sent + 20));
    changed(recorder, "c");
    const c: JobStamp = { jobId: "c", sent: after, answered: after, ended: wall() };
    const lines = recorder.report([a]);
    const summary = lines.find((l) => l.includes("compactions in the run"));
    expect(summary).toMatch(/compactions in the run: [1-9] \(\d+ ms/);
    expect(summary).not.toMatch(/unfinished/);
    // Each report's one job is its slowest, with a line of its own.
    const share = (report: string[]) =>
      Number(/; compaction ([\d.]+)$/.exec(report.find((l) => l.includes("; compaction "))!)![1]);
    expect(share(lines)).toBeGreaterThan(0);
    expect(share(recorder.report([a, c]))).toBe(0);
  } finally {
    recorder.stop();
    await store.close();
  }
});

test("no compaction, none reported; one under way at the end counts up to the run's end", async () => {
  const recorder = new StageRecorder();
  recorder.start();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "stages-"));
  dirs.push(dir);
  try {
    const sent = wall();
    changed(recorder, "b");
    changed(recorder, "b");
    const quiet = recorder.report([{ jobId: "b", sent, answered: sent, ended: wall() }]);
    expect(quiet).toContain("  compactions in the run: 0");
    // A compaction's start as the store publishes it once it has rotated its log; no end yet.
    diagnostics.channel(COMPACTION_CHANNEL).publish({ phase: "start", dir, seq: 42 });
    await new Promise((r) => setTimeout(r, 20));
    changed(recorder, "b");
    const open = recorder.report([{ jobId: "b", sent, answered: sent, ended: wall() }]);
    expect(open.some((l) => /compactions in the run: 1 \(\d+ ms, unfinished\)/.test(l))).toBe(true);
    const jobLine = open.find((l) => l.includes("; compaction "))!;
    expect(Number(/; compaction ([\d.]+)$/.exec(jobLine)![1])).toBeGreaterThanOrEqual(15);
  } finally {
    recorder.stop();
  }
});
