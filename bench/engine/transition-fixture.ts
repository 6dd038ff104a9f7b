/**
 * The job and the compare-and-set of a task transition as the engine writes them, shared by the
 * store-side benches (store-update.bench.ts: the embedded store; store-batch.bench.ts: the store
 * node's batches): a job of 10 no-op tasks, and the `$set` each transition makes.
 */

/** Jobs each bench keeps and updates. */
export const JOBS = 200;

/** A no-op task of the bench's workflow, `t<i>`, in `status`. */
export const benchTask = (i: number, status: string) => ({
  name: "noop",
  summary: `t${i}`,
  app: "benchtask",
  variables: { incoming: {}, outgoing: {} },
  type: "automatic",
  status,
  previous: { incomplete: [], complete: [`t${i - 1}`], error: [] },
  claim: null,
  loop: null,
  waitingSince: null,
  child: null,
  start_time: "2026-11-25T16:55:04.758Z",
  iterations: ["f6b1f67e-caea-4c62-a1cf-fd40d3bc205b"],
});

/** A running job of 10 incomplete tasks at version 1; `j` spreads its start time. */
export function benchJob(_id: string, j: number) {
  const tasks: Record<string, unknown> = {};
  for (let i = 1; i <= 10; i++) tasks[`t${i}`] = benchTask(i, "incomplete");
  return {
    _id,
    type: "automation",
    name: "bench",
    workflow: { _id: "w", name: "bench" },
    status: "running",
    tasks,
    groups: ["g"],
    created_by: "u",
    metrics: { start_time: Date.now() + j, progress: 0, manual_time: 0 },
    version: 1,
    sweepAt: 1,
    transitions: {},
  };
}

/**
 * What transition `step` sets: task `t<t>` complete and the next one running, the metrics, the
 * sweep time and the time of the change (the engine adds `$inc: {version: 1}`).
 */
export function transitionSet(step: number) {
  const t = (step % 10) + 1;
  return {
    [`tasks.t${t}`]: benchTask(t, "complete"),
    [`tasks.t${(t % 10) + 1}`]: benchTask(t, "running"),
    metrics: { start_time: 1, progress: step % 100, manual_time: 0 },
    sweepAt: Date.now() + step,
    last_updated: new Date().toISOString(),
  };
}
