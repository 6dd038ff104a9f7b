/**
 * Where an aggregation's one-go stages run (aggregate-plan.ts `rest`): in place when few rows reach
 * them, on the store's aggregation thread otherwise.
 *
 * Why: the per-document stages run slice by slice, but what comes after them (a `$group`, a `$sort`,
 * a `$facet`) needs every row at once. Over 10,000 jobs the job counts' `$group` held the event
 * loop 150-190 ms on a slow machine, and it grows with the jobs kept. Past INLINE_ROWS rows, each
 * slice's rows are serialized as the slice ends (V8's structured serialization: what a stage may
 * make, a Date included, comes back as it was), and the thread runs the rest over them, under a
 * time budget (AGGREGATE_BUDGET_MS), while the event loop serves others. mingo is the same code
 * in both places, so the answer is the same.
 */
import v8 from "node:v8";
import { Aggregator } from "mingo";
import type { Doc, Pipeline } from "../types";

/** Rows the rest may take in place; past them it goes to the aggregation thread. */
export const INLINE_ROWS = 500;

/** The aggregation thread's time for one pipeline's rest: past it the thread is ended. */
export const AGGREGATE_BUDGET_MS = 60_000;

/** What the aggregation thread runs: `pipeline` over the rows of every chunk, in order. */
export interface RestTask {
  pipeline: Pipeline;
  chunks: Uint8Array[];
}

/** The aggregation thread's work (aggregate-worker.ts). */
export function runRest(task: RestTask): Doc[] {
  const rows = task.chunks.flatMap((chunk) => v8.deserialize(chunk) as Doc[]);
  return new Aggregator(task.pipeline).run(rows);
}

/** The rows a pipeline's per-document stages answered, gathered in place or as serialized chunks. */
export class RestInput {
  private rows: Doc[] = [];
  private chunks: Uint8Array[] | undefined;
  private count = 0;

  constructor(private readonly inlineRows: number) {}

  add(rows: Doc[]): void {
    if (rows.length === 0) return;
    this.count += rows.length;
    if (this.chunks) {
      this.chunks.push(v8.serialize(rows));
      return;
    }
    for (const row of rows) this.rows.push(row);
    if (this.count > this.inlineRows) {
      this.chunks = [v8.serialize(this.rows)];
      this.rows = [];
    }
  }

  /** The rows in place, or the task for the aggregation thread when they were too many. */
  finish(pipeline: Pipeline): { rows: Doc[] } | { task: RestTask } {
    return this.chunks ? { task: { pipeline, chunks: this.chunks } } : { rows: this.rows };
  }
}
