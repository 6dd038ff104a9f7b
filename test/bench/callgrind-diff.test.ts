/**
 * bench:observability:cycles' reading of callgrind dumps (bench/support/callgrind-diff.py
 * --modes; docs/operations-guide.md#cost), on small dumps written here: a window's main thread is
 * uv_run's phases less its timers, a cycle is estimated as KCachegrind does (instructions, 10 a
 * first-level miss or mispredicted branch, 100 a last-level miss), a window with a major GC is
 * left out of its mode's median, and each median is set against the first mode's.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const SCRIPT = path.join(__dirname, "../../bench/support/callgrind-diff.py");
const EVENTS = "Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim";

interface Costs {
  ir: number;
  l1Misses?: number;
  llMisses?: number;
  mispredicted?: number;
}

/** One event line: instructions, then the misses that weigh on a cycle's estimate. */
const line = ({ ir, l1Misses = 0, llMisses = 0, mispredicted = 0 }: Costs) =>
  `0 ${ir} 0 0 ${l1Misses} 0 0 0 ${llMisses} 0 0 ${mispredicted} 0 0`;

/**
 * A window: uv_run's own 10 instructions, the event loop's poll (`poll`, with its misses) and its
 * timers (`timers` instructions); with `majorGc`, V8's major GC (1,000 instructions) called from
 * the poll. Laid out as callgrind writes a dump: a callee's inclusive cost follows its `calls=`.
 */
function dump(dir: string, poll: Costs, timers: number, majorGc = false): string {
  fs.mkdirSync(dir, { recursive: true });
  const gc = majorGc ? 1000 : 0;
  const lines = [
    "version: 1",
    "creator: test",
    `events: ${EVENTS}`,
    "fn=(1) uv_run",
    line({ ir: 10 }),
    "cfn=(2) uv__io_poll",
    "calls=1 0",
    line({ ...poll, ir: poll.ir + gc }),
    "cfn=(3) uv__run_timers",
    "calls=1 0",
    line({ ir: timers }),
    "fn=(2)",
    line(poll),
    ...(majorGc ? ["cfn=(4) v8::internal::Heap::MarkCompact()", "calls=1 0", line({ ir: gc })] : []),
    "fn=(3)",
    line({ ir: timers }),
    ...(majorGc ? ["fn=(4)", line({ ir: gc })] : []),
  ];
  fs.writeFileSync(path.join(dir, "callgrind.out.1.1"), lines.join("\n") + "\n");
  fs.writeFileSync(path.join(dir, "perf-1.map"), "");
  return dir;
}

function modes(cost: "Ir" | "CEst", specs: string[]): string[] {
  const run = spawnSync("python3", [SCRIPT, "--modes", "10", ...specs], {
    encoding: "utf8",
    env: { ...process.env, COST: cost },
  });
  expect(run.stderr).toBe("");
  expect(run.status).toBe(0);
  return run.stdout.trim().split("\n");
}

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "callgrind-diff-"));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test("each mode's main thread a read, less its timers, estimated in cycles, and its median's ratio", () => {
  const misses = { l1Misses: 10, llMisses: 1, mispredicted: 5 };
  const off = [
    dump(path.join(dir, "off-1"), { ir: 1000, ...misses }, 700),
    dump(path.join(dir, "off-2"), { ir: 1100, ...misses }, 20),
  ];
  const metrics = [
    dump(path.join(dir, "metrics-1"), { ir: 1100, l1Misses: 20, llMisses: 2, mispredicted: 5 }, 300),
    // A major GC in the window: shown, not counted.
    dump(path.join(dir, "metrics-2"), { ir: 1000 }, 0, true),
  ];
  const specs = [`off=${off.join(",")}`, `metrics=${metrics.join(",")}`];

  // Instructions, ten reads a window: uv_run's 10 and the poll's; the timers left out.
  const [offIr, metricsIr] = modes("Ir", specs);
  expect(offIr).toContain(": 101, 111; median 106 (+0.0%)");
  expect(metricsIr).toContain(": 111, 201 (major GC: left out); median 111 (+4.7%)");

  // Cycles: 1,010 + 10 x 10 + 100 x 1 + 10 x 5 = 1,260 a window for off-1; metrics-1's
  // 1,110 + 200 + 200 + 50 = 1,560.
  const [offCycles, metricsCycles] = modes("CEst", specs);
  expect(offCycles).toContain(": 126, 136; median 131 (+0.0%)");
  expect(metricsCycles).toContain(": 156, 201 (major GC: left out); median 156 (+19.1%)");
});

test("a mode whose every window had a major GC has no median, and says so", () => {
  const off = dump(path.join(dir, "alone-off"), { ir: 1000 }, 0);
  const gc = dump(path.join(dir, "alone-gc"), { ir: 1000 }, 0, true);
  const [, only] = modes("Ir", [`off=${off}`, `metrics=${gc}`]);
  expect(only).toContain("(major GC: left out); median - (-)");
});

test("JIT code is named after the newest mapping that holds it, not the one with the largest start", () => {
  // V8 reused the code space of a collected function (0x1000, 0x200 bytes) for a smaller newer one
  // at the same start: the map lists the old one first. An address past the newer one's end but
  // inside the old one's range still names the old one (nothing newer was put there).
  const at = path.join(dir, "reused");
  fs.mkdirSync(at, { recursive: true });
  const out = path.join(at, "callgrind.out.1.1");
  const map = path.join(at, "perf-1.map");
  fs.writeFileSync(
    out,
    [
      "version: 1",
      "creator: test",
      "events: Ir",
      "fn=(1) uv_run",
      "0 10",
      "cfn=(2) 0x1040",
      "calls=1 0",
      "0 500",
      "fn=(2)",
      "0 500",
      "fn=(3) 0x1180",
      "0 30",
      "fn=(4) 0x2010",
      "0 7",
    ].join("\n") + "\n",
  );
  fs.writeFileSync(map, "1000 200 JS:collected\n2000 80 JS:elsewhere\n1000 100 JS:newer\n");
  const run = spawnSync("python3", [SCRIPT, out, map, "1", out, map, "1", "10", "JS:"], { encoding: "utf8" });
  expect(run.stderr).toBe("");
  const selfOf = (name: string) =>
    run.stdout
      .split("\n")
      .find((l) => l.trim().endsWith(` ${name}`))
      ?.trim()
      .split(/\s+/)[1];
  expect(selfOf("JS:newer")).toBe("500");
  expect(selfOf("JS:collected")).toBe("30");
  expect(selfOf("JS:elsewhere")).toBe("7");
});

test("all but the compilers: a window's instructions less V8's compilers' work, whatever thread did it", () => {
  // B does the same work as A, plus compilations that fell inside its window: only the main thread
  // (its poll) and the total see them.
  const write = (name: string, compile: number) => {
    const at = path.join(dir, name);
    fs.mkdirSync(at, { recursive: true });
    const lines = ["version: 1", "creator: test", "events: Ir", "fn=(1) uv_run", "0 10"];
    lines.push("cfn=(2) uv__io_poll", "calls=1 0", `0 ${500 + compile}`, "fn=(2)", "0 500");
    if (compile) {
      lines.push("cfn=(3) v8::internal::compiler::PipelineImpl::Run()", "calls=1 0", `0 ${compile}`);
      lines.push("fn=(3)", `0 ${compile}`, "fn=(4) v8::internal::maglev::MaglevCompiler::Compile()", "0 300");
    }
    fs.writeFileSync(path.join(at, "callgrind.out.1.1"), lines.join("\n") + "\n");
    fs.writeFileSync(path.join(at, "perf-1.map"), "");
    return [path.join(at, "callgrind.out.1.1"), path.join(at, "perf-1.map")];
  };
  const [a, am] = write("no-compile", 0);
  const [b, bm] = write("compiled", 200);
  const run = spawnSync("python3", [SCRIPT, a, am, "10", b, bm, "10", "5"], { encoding: "utf8" });
  expect(run.stderr).toBe("");
  const lines = run.stdout.split("\n");
  expect(lines[1]).toMatch(/^main thread less timers: A 51 {2}B 71 /);
  expect(lines[2]).toBe("all but the compilers: A 51  B 51  B-A +0 (+0.0%)");
});
