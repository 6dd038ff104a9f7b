/**
 * What the main thread ran while the half-peak run's slowest jobs were in flight (BENCH_STAGES=1
 * with BENCH_STAGES_PROFILE=1, ours in one process; ./stages.ts): a V8 CPU profile of this process
 * over the paced run, sampled every 250 µs, whose samples are put on the wall clock and split into
 * those inside the slow jobs' time (the union of each one's request sent -> end) and the rest. The
 * report names the functions and the entry points that took the most of each, so a tail episode's
 * long turns can be told from the run's usual work.
 *
 * Bench-only: the inspector session is this process's own; nothing in the platform changes.
 */
import { Session } from "node:inspector/promises";

/** µs between samples: a 10 ms turn holds about 40. */
const SAMPLING_US = 250;

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A sample: when it was taken (wall-clock ms) and the node it hit. */
interface Sample {
  at: number;
  node: number;
  ms: number;
}

export class StageProfiler {
  private session?: Session;
  /** Wall-clock ms minus the profile's clock (ms) when the profiler started. */
  private offset = 0;
  private profile?: Profile;

  async start(): Promise<void> {
    const session = new Session();
    session.connect();
    await session.post("Profiler.enable");
    await session.post("Profiler.setSamplingInterval", { interval: SAMPLING_US });
    await session.post("Profiler.start");
    // The profile's clock is the monotonic clock process.hrtime reads, in µs: its offset from the
    // wall clock, read at one instant. (Taken as the profile's start it was off by the start call's
    // length, which enumerates the code already compiled: about 300 ms in a warm bench.)
    this.offset = performance.timeOrigin + performance.now() - Number(process.hrtime.bigint()) / 1e6;
    this.session = session;
  }

  async stop(): Promise<void> {
    const session = this.session;
    if (!session) return;
    this.session = undefined;
    const { profile } = (await session.post("Profiler.stop")) as { profile: Profile };
    session.disconnect();
    this.profile = profile;
  }

  /** Report lines: the slow jobs' windows (wall-clock [from, to] ms) against the rest of the run. */
  report(windows: [number, number][], run: [number, number]): string[] {
    const profile = this.profile;
    if (!profile) return ["  profile: none taken"];
    const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
    const parent = new Map<number, number>();
    for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    const samples = onTheClock(profile, this.offset).filter((s) => s.at >= run[0] && s.at <= run[1]);
    const inSlow = (s: Sample) => windows.some(([from, to]) => s.at >= from && s.at <= to);
    const slow = samples.filter(inSlow);
    const rest = samples.filter((s) => !inSlow(s));
    const lines = [`  profile (every ${SAMPLING_US} µs): the slow jobs' time against the rest of the run`];
    for (const [name, group] of [
      ["slow jobs' time", slow],
      ["the rest", rest],
    ] as const) {
      const total = group.reduce((a, s) => a + s.ms, 0);
      const idle = group.filter((s) => label(nodes.get(s.node)!) === "(idle)").reduce((a, s) => a + s.ms, 0);
      lines.push(
        `    ${name}: ${total.toFixed(0)} ms sampled, busy ${pct(total - idle, total)}; ` +
          `functions (self): ${top(group, (s) => [label(nodes.get(s.node)!)], total - idle)}`,
        `      entry points (the first of our frames from the root): ${top(group, (s) => [entry(s.node, nodes, parent)], total - idle)}`,
      );
    }
    return lines;
  }
}

/** Each sample with its wall-clock time. */
function onTheClock(profile: Profile, offset: number): Sample[] {
  const out: Sample[] = [];
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i];
    const next = profile.timeDeltas[i + 1] ?? 0;
    out.push({ at: t / 1000 + offset, node: profile.samples[i], ms: next / 1000 });
  }
  return out;
}

function label(n: ProfileNode): string {
  const { functionName, url, lineNumber } = n.callFrame;
  const file = url.replace(/^.*\/(dist|node_modules)\//, "$1/");
  return file ? `${functionName || "(anonymous)"} ${file}:${lineNumber + 1}` : functionName;
}

/** The frame nearest the root that is the platform's code (dist/, not bench), or the leaf's label. */
function entry(id: number, nodes: Map<number, ProfileNode>, parent: Map<number, number>): string {
  const chain: ProfileNode[] = [];
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) chain.push(nodes.get(at)!);
  const ours = chain.reverse().find((n) => /\/dist\/(services|shared|gateway)\//.test(n.callFrame.url));
  return label(ours ?? nodes.get(id)!);
}

/** The 8 keys with the most sampled time, as "share key" items. */
function top(samples: Sample[], keys: (s: Sample) => string[], busy: number): string {
  const by = new Map<string, number>();
  for (const s of samples)
    for (const key of keys(s)) if (key !== "(idle)") by.set(key, (by.get(key) ?? 0) + s.ms);
  return (
    [...by]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 8)
      .map(([key, ms]) => `${pct(ms, busy)} ${key}`)
      .join("; ") || "-"
  );
}

const pct = (part: number, whole: number) => (whole > 0 ? `${((100 * part) / whole).toFixed(1)} %` : "-");
