/**
 * Two builds measured in one process (bench/engine/job-write.bench.ts, store-update.bench.ts):
 * each `dist` folder given on the command line is loaded side by side, their rounds interleaved
 * (the order reversed every other round), so both see the same machine. On a shared host CPU time
 * moves by 20-30 % between runs; only a comparison within one process says which build does less.
 */
import path from "node:path";

/** One build's workload: a round answers CPU µs per operation. */
export interface Build {
  name: string;
  round(): Promise<number>;
  close(): Promise<void>;
}

/**
 * Loads the builds named in argv (this build's own folder when none), runs `rounds` interleaved
 * rounds and prints, per build, the lowest and the median round, the first two left out (warm-up).
 */
export async function compareBuilds(
  load: (dist: string) => Promise<Build>,
  rounds: number,
  unit: string,
): Promise<void> {
  const dists = process.argv.slice(2).map((d) => path.resolve(d));
  if (dists.length === 0) dists.push(path.resolve(__dirname, "../.."));
  const builds = await Promise.all(dists.map(load));
  const figures = new Map<Build, number[]>(builds.map((b) => [b, []]));
  for (let r = 0; r < rounds; r++)
    for (const build of r % 2 ? builds : [...builds].reverse()) figures.get(build)!.push(await build.round());
  for (const build of builds) {
    const kept = figures
      .get(build)!
      .slice(2)
      .sort((a, b) => a - b);
    console.log(
      `${build.name}: ${kept[0].toFixed(1)} µs CPU per ${unit} at best, ${kept[kept.length >> 1].toFixed(1)} median`,
    );
    await build.close();
  }
}
