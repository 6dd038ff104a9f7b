/**
 * Stored jobs as the engine's JobStore writes them (services/engine/run/types.ts), for tests of its
 * writes: a job of three no-op tasks, one done, one running under a claim, one not started.
 */
import type { RunJob, RunTask } from "../../services/engine/run/types";

/** A no-op task in `status`, with nested incoming variables. */
export const task = (status: string, extra: Partial<RunTask> = {}): RunTask =>
  ({
    name: "noop",
    app: "benchtask",
    type: "automatic",
    status,
    variables: { incoming: { device: "r1", nested: { list: [1, 2] } }, outgoing: {} },
    ...extra,
  }) as unknown as RunTask;

/** A running job `id` at version 1: task `a` complete, `b` running (claimed), `c` incomplete. */
export function newJob(id: string): RunJob {
  return {
    _id: id,
    name: "j",
    status: "running",
    version: 1,
    variables: { a: 1 },
    metrics: { progress: 0 },
    tasks: {
      a: task("complete"),
      b: task("running", { claim: { owner: "x", until: 1, run: "r" } }),
      c: task("incomplete"),
    },
  } as unknown as RunJob;
}
