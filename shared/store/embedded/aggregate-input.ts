/**
 * Where an aggregation's one-go stages run (aggregate-plan.ts `rest`): in place when few rows reach
 * them, on the store's aggregation thread otherwise.
 *
 * Why: what comes after the per-document stages (a `$group`, a `$sort`, a `$facet`) needs every row
 * at once. Over 10,000 jobs the job counts' `$group` held the event loop 150-190 ms on a slow
 * machine, and it grows with the jobs kept. Past INLINE_ROWS documents, each slice of documents
 * is serialized as it is read (V8's structured serialization: what a stage may make, a Date
 * included, comes back as it was), and the thread runs the per-document stages and the rest over
 * them, under a time budget (AGGREGATE_BUDGET_MS), while the event loop serves others. The
 * per-document stages went with them in the eighteenth round: the task metrics' `$project` of
 * 9,000 jobs had been most of what such a call still cost the event loop (docs/performance.md).
 * mingo is the same code in both places, and those stages see each document alone, so the answer
 * is the same.
 */
import v8 from "node:v8";
import { Aggregator } from "mingo";
import type { Doc, Pipeline } from "../types";

/** mingo's options for an aggregation (the store's resolver of other collections). */
type Options = ConstructorParameters<typeof Aggregator>[1];

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

/**
 * The documents a pipeline's scan hands on, and what its per-document stages make of them: run
 * slice by slice in place when the rest runs in place whatever the count (`inlineRows` Infinity:
 * no rest, or one that reads other collections); otherwise the documents are kept as they come
 * until there are more than `inlineRows`, then serialized, stages and all left to the thread.
 */
export class RestInput {
  private docs: Doc[] = [];
  private chunks: Uint8Array[] | undefined;
  private count = 0;
  private readonly perDocument: Aggregator | undefined;

  constructor(
    private readonly inlineRows: number,
    private readonly perDocumentStages: Pipeline,
    options?: Options,
  ) {
    this.perDocument = perDocumentStages.length ? new Aggregator(perDocumentStages, options) : undefined;
  }

  /** A slice of the scan's documents (copies the input may keep and the stages may change). */
  add(slice: Doc[]): void {
    if (slice.length === 0) return;
    if (this.inlineRows === Infinity) {
      for (const row of this.perDocument ? this.perDocument.run(slice) : slice) this.docs.push(row);
      return;
    }
    this.count += slice.length;
    if (this.chunks) {
      this.chunks.push(v8.serialize(slice));
      return;
    }
    for (const doc of slice) this.docs.push(doc);
    if (this.count > this.inlineRows) {
      this.chunks = [v8.serialize(this.docs)];
      this.docs = [];
    }
  }

  /**
   * The rows for the rest in place, or the task for the aggregation thread: the documents with
   * the per-document stages before `rest`, or, when a few documents made many rows (an `$unwind`),
   * those rows with `rest` alone.
   */
  finish(rest: Pipeline): { rows: Doc[] } | { task: RestTask } {
    if (this.chunks) return { task: { pipeline: [...this.perDocumentStages, ...rest], chunks: this.chunks } };
    if (this.inlineRows === Infinity || !this.perDocument) return this.rowsOrTask(this.docs, rest);
    return this.rowsOrTask(this.perDocument.run(this.docs), rest);
  }

  private rowsOrTask(rows: Doc[], rest: Pipeline): { rows: Doc[] } | { task: RestTask } {
    return rows.length > this.inlineRows
      ? { task: { pipeline: rest, chunks: [v8.serialize(rows)] } }
      : { rows };
  }
}
