/**
 * bench:proxy's paired slices (docs/orchestrator.md#performance): the floor and the proxy take turns
 * under one load client (./paired-load-node.ts, a child process) in short slices, the bench process's
 * CPU per answered request measured slice by slice, and floor/proxy taken pair by pair (a pair is two
 * neighbouring slices, the order swapped every pair). Other work on the machine moves both slices of
 * a pair alike, so the pair's ratio moves much less than separate runs' figures do (the idea of
 * ./observability-inprocess.ts's `vsFirst`). Both servers live in this process and only the one
 * asked is under load; the other's idle timers count in every slice, alike for both.
 */
import path from "node:path";
import { spawnTracked } from "./children";

export interface PairedTarget {
  port: number;
  path: string;
  body: string;
  headers: Record<string, string>;
}

interface Spread {
  median: number;
  min: number;
  max: number;
}

export interface PairedFigures {
  pairs: number;
  sliceMs: number;
  /** CPU µs of the bench process per answered request, per slice. */
  floorUs: Spread;
  proxyUs: Spread;
  /** floor/proxy of each pair's CPU per request: what req/s would show where this process is the bottleneck. */
  cpuRatio: Spread;
  /** floor/proxy of each side's least slice (other work only ever adds to a slice's CPU). */
  leastRatio: number;
  all: { floorUs: number; proxyUs: number; floorAnswered: number; proxyAnswered: number }[];
}

const spread = (xs: number[], digits: number): Spread => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  const median = sorted.length % 2 ? sorted[Math.floor(mid)] : (sorted[mid - 1] + sorted[mid]) / 2;
  const r = (n: number) => Number(n.toFixed(digits));
  return { median: r(median), min: r(sorted[0]), max: r(sorted[sorted.length - 1]) };
};

function rawRequest(t: PairedTarget): string {
  const head = [
    `POST ${t.path} HTTP/1.1`,
    `Host: 127.0.0.1:${t.port}`,
    "Content-Type: application/json",
    `Content-Length: ${Buffer.byteLength(t.body)}`,
    ...Object.entries(t.headers).map(([k, v]) => `${k}: ${v}`),
  ];
  return `${head.join("\r\n")}\r\n\r\n${t.body}`;
}

/** Runs `pairs` pairs (after two not counted) of floor and proxy slices; answers the figures. */
export async function pairedSlices(
  [floor, proxy]: [PairedTarget, PairedTarget],
  { pairs, sliceMs, connections }: { pairs: number; sliceMs: number; connections: number },
): Promise<PairedFigures> {
  const child = spawnTracked(process.execPath, [path.join(__dirname, "paired-load-node.js")], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    env: { ...process.env, BENCH_CONNECTIONS: String(connections) },
  });
  let waiting: { resolve: (m: any) => void; reject: (e: Error) => void } | null = null;
  child.on("message", (m) => waiting?.resolve(m));
  child.once("exit", (code) => waiting?.reject(new Error(`paired load client exited ${code}`)));
  const next = () => new Promise<any>((resolve, reject) => (waiting = { resolve, reject }));
  try {
    const ready = next();
    child.send({ targets: [floor, proxy].map((t) => ({ port: t.port, request: rawRequest(t) })) });
    await ready;
    /** One slice of target `index`: the bench process's CPU µs per answered request. */
    const slice = async (index: number) => {
      const answer = next();
      const cpu = process.cpuUsage();
      child.send({ run: index, ms: sliceMs });
      const { answered, failed } = await answer;
      const used = process.cpuUsage(cpu);
      if (failed > 0 || answered === 0)
        throw new Error(
          `paired slice of ${index ? "proxy" : "floor"}: ${answered} answered, ${failed} failed`,
        );
      return { us: (used.user + used.system) / answered, answered };
    };
    const all: PairedFigures["all"] = [];
    for (let i = -2; i < pairs; i++) {
      // Floor first in even pairs, proxy first in odd ones: neither always follows the other.
      const order = i % 2 === 0 ? [0, 1] : [1, 0];
      const got: { us: number; answered: number }[] = [];
      for (const index of order) got[index] = await slice(index);
      if (i < 0) continue;
      all.push({
        floorUs: Number(got[0].us.toFixed(1)),
        proxyUs: Number(got[1].us.toFixed(1)),
        floorAnswered: got[0].answered,
        proxyAnswered: got[1].answered,
      });
      console.log(
        `  pair ${i + 1}: floor ${got[0].us.toFixed(1)} µs/req (${got[0].answered}), ` +
          `proxy ${got[1].us.toFixed(1)} µs/req (${got[1].answered}), cpu floor/proxy ${(got[0].us / got[1].us).toFixed(2)}x`,
      );
    }
    return {
      pairs,
      sliceMs,
      floorUs: spread(
        all.map((p) => p.floorUs),
        1,
      ),
      proxyUs: spread(
        all.map((p) => p.proxyUs),
        1,
      ),
      cpuRatio: spread(
        all.map((p) => p.floorUs / p.proxyUs),
        2,
      ),
      leastRatio: Number(
        (Math.min(...all.map((p) => p.floorUs)) / Math.min(...all.map((p) => p.proxyUs))).toFixed(2),
      ),
      all,
    };
  } finally {
    child.kill();
  }
}
