/**
 * BENCH_JOB_VARIABLES_KB (0: none): the jobs cpu.bench and callgrind-window.ts start carry about
 * that many KiB of job variables, as a network job does (a device's facts and its running
 * configuration, line by line), so a run measures what a transition costs beside a job's
 * variables, not only its tasks (docs/performance.md, "A workflow's size").
 */
import { intEnv } from "../support/env";

export const JOB_VARIABLES_KB = intEnv("BENCH_JOB_VARIABLES_KB", 0, 0);

/** The `options` of `engine.startJob` for one bench job. */
export function jobStartOptions(): { variables?: Record<string, unknown> } {
  if (JOB_VARIABLES_KB === 0) return {};
  const lines: string[] = [];
  for (let size = 0, i = 0; size < JOB_VARIABLES_KB * 1024; i++) {
    const line = ` description uplink ${i} to core, mtu 9000, vlan ${100 + (i % 400)}`;
    lines.push(line);
    size += line.length + 3; // its quotes and comma in the job's JSON
  }
  return {
    variables: { device: { name: "r1", site: "nyc", os: "ios-xe" }, runningConfig: { lines } },
  };
}
