/**
 * Bounded job documents (docs/engine.md#where-outputs-live). A job document holds every task's
 * outputs, the job's variables and its error records, and an upstream answer may be megabytes:
 * MongoDB refuses a document past 16 MiB, and a job that can no longer be written is stuck. So a
 * value too big for its job lives in the `job_outputs` collection, and the job keeps a small
 * reference to it instead (`spilled`, one entry per value, the value's own place left null).
 *
 * The values that may leave their job ("slots"): each task's `outgoing` and forEach `loop` state,
 * each job variable, and the job's `error` records as a whole. A slot leaves when its JSON exceeds
 * the job's threshold: SPILL_BYTES (256 KiB), lowered for a job with so many slots that all of them
 * just under it would pass INLINE_BUDGET_BYTES; the `error` records also leave once there are more
 * than ERROR_RECORDS_INLINE of them. So the slots of a job never hold more than INLINE_BUDGET_BYTES
 * inline, whatever its tasks return; the rest of a job is its workflow's definition and bounded
 * bookkeeping. Small values stay inline: a job whose values are all small costs no extra write or read.
 *
 * This module owns the collection: its documents, queries and index. A value is stored as its
 * JSON text in chunks of at most CHUNK_CHARS (a chunk stays far below 16 MiB, whatever the value's
 * size), each chunk a document `{_id: "<ref>:<n>", jobId, n, text}`, where `ref` is
 * `<jobId>/<random id>`: a new one for every value written, so a write never overwrites a value
 * a stored job still refers to. The order of a write (run/jobs.ts): the chunks first, then the
 * job's compare-and-set that refers to them; a crash in between leaves chunks no job refers to,
 * removed with their job (`deleteForJob`). A write that loses its compare-and-set removes its own
 * chunks; a stored write removes the chunks of the values it replaced. A reader that finds a chunk
 * gone (replaced by a write after it read the job) reads the job again.
 */
import { randomUUID } from "node:crypto";
import type { Store } from "../../../shared/store/types";
import { JOB_OUTPUTS, JOBS } from "../collections";
import type { RunJob, SpillRef } from "./types";

/** A slot whose JSON is larger than this (in UTF-16 code units, about bytes) leaves its job. */
export const SPILL_BYTES = 256 * 1024;
/** What all the slots of one job may hold inline together: the threshold shrinks to keep it. */
export const INLINE_BUDGET_BYTES = 8 * 1024 * 1024;
/** The threshold never goes below this (a workflow would need thousands of tasks to reach it). */
export const MIN_SPILL_BYTES = 1024;
/** Error records a job document holds itself; beyond them, its records leave it (as one value). */
export const ERROR_RECORDS_INLINE = 100;
/**
 * Characters of JSON per chunk document. At most 3 bytes each in UTF-8 (2 once escaped again in a
 * bus message), so a chunk is under 768 KiB: far below 16 MiB, and small enough to cross NATS
 * (nats-server refuses a message over 1 MiB by default) when the store is another process.
 */
export const CHUNK_CHARS = 256 * 1024;

interface OutputChunk {
  _id: string;
  jobId: string;
  n: number;
  text: string;
}

/** A value to store: its place, its reference and its text. */
export interface SpillWrite {
  entry: SpillRef;
  text: string;
}

const JOB_TARGET = /^\$var\.job\.([^.]+)$/;

/**
 * How many slots a job has: two per task, one per variable it has or its tasks may write, one for
 * its error records. Constant over a job's life (its variables only ever come from its start and
 * from its tasks' outgoing targets), so kept by job id.
 */
function slotCount(job: RunJob): number {
  const names = new Set(Object.keys(job.variables ?? {}));
  for (const task of Object.values(job.tasks)) {
    for (const target of Object.values(task?.variables?.outgoing ?? {})) {
      const match = typeof target === "string" ? JOB_TARGET.exec(target) : null;
      if (match) names.add(match[1]);
    }
  }
  return 2 * Object.keys(job.tasks).length + names.size + 1;
}

const thresholds = new Map<string, number>();

/** The size above which a slot of `job` leaves it (see the module comment). */
export function spillThreshold(job: RunJob): number {
  let threshold = thresholds.get(job._id);
  if (threshold === undefined) {
    threshold = Math.max(
      MIN_SPILL_BYTES,
      Math.min(SPILL_BYTES, Math.floor(INLINE_BUDGET_BYTES / slotCount(job))),
    );
    if (thresholds.size >= 10_000) thresholds.clear();
    thresholds.set(job._id, threshold);
  }
  return threshold;
}

/** A new reference for a value of job `jobId` at `path`, with its text. */
export function spillWrite(jobId: string, path: string[], text: string): SpillWrite {
  return {
    entry: {
      path,
      ref: `${jobId}/${randomUUID()}`,
      chunks: Math.max(1, Math.ceil(text.length / CHUNK_CHARS)),
      bytes: text.length,
    },
    text,
  };
}

/** `text` cut into chunks, never inside a surrogate pair (a half pair would not survive UTF-8). */
function chunksOf(text: string, count: number): string[] {
  const out: string[] = [];
  let at = 0;
  for (let n = 0; n < count; n++) {
    let end = n === count - 1 ? text.length : Math.min(text.length, at + CHUNK_CHARS);
    const code = text.charCodeAt(end - 1);
    if (end < text.length && code >= 0xd800 && code <= 0xdbff) end--;
    out.push(text.slice(at, end));
    at = end;
  }
  // A cut moved back leaves a tail: it goes with the last chunk.
  if (at < text.length) out[out.length - 1] += text.slice(at);
  return out;
}

const chunkId = (ref: string, n: number) => `${ref}:${n}`;

/** The place `path` names in `doc`: its parent and key, or null when the parent is not there. */
function placeOf(
  doc: Record<string, any>,
  path: string[],
): { parent: Record<string, any>; key: string } | null {
  let node: any = doc;
  for (const part of path.slice(0, -1)) {
    if (!node || typeof node !== "object" || !Object.hasOwn(node, part)) return null;
    node = node[part];
  }
  const key = path[path.length - 1];
  if (!node || typeof node !== "object" || !Object.hasOwn(node, key)) return null;
  return { parent: node, key };
}

/** A chunk of a value was not there: the job was read before a write replaced the value. */
export class OutputGoneError extends Error {}

export class JobOutputs {
  constructor(private readonly store: Store) {}

  get collection() {
    return this.store.collection<OutputChunk>(JOB_OUTPUTS);
  }

  /** The collection's one index: a job's chunks, to remove them with it. */
  async ensureIndexes(): Promise<void> {
    await this.collection.createIndex({ keys: { jobId: 1 }, name: "jobId" });
  }

  /** Stores values of job `jobId` (before the job write that refers to them). */
  async write(jobId: string, writes: SpillWrite[]): Promise<void> {
    const docs: OutputChunk[] = [];
    for (const { entry, text } of writes)
      chunksOf(text, entry.chunks).forEach((chunk, n) =>
        docs.push({ _id: chunkId(entry.ref, n), jobId, n, text: chunk }),
      );
    // One chunk at a time: a batch of them together could pass the bus's bound on one message.
    for (const doc of docs) await this.collection.insertOne(doc);
  }

  /** Removes the chunks of values no job refers to any more (best effort: what stays goes with its job). */
  async drop(entries: SpillRef[]): Promise<void> {
    const ids = entries.flatMap((e) => Array.from({ length: e.chunks }, (_, n) => chunkId(e.ref, n)));
    if (ids.length > 0) await this.collection.deleteMany({ _id: { $in: ids } });
  }

  /** Removes every value of job `jobId` (when the job is removed). */
  async deleteForJob(jobId: string): Promise<number> {
    return this.collection.deleteMany({ jobId });
  }

  /**
   * Puts back in `doc` (a job as stored, whole or projected) the values its `spilled` entries
   * name, where `doc` holds their place (a projection that left a place out keeps it out), and
   * takes `spilled` out of it. Throws OutputGoneError when a value is no longer stored.
   */
  async hydrate<T extends Record<string, any>>(doc: T): Promise<T> {
    const entries: SpillRef[] | undefined = doc.spilled;
    if (!Array.isArray(entries) || entries.length === 0) return doc;
    const wanted = entries.filter((e) => placeOf(doc, e.path));
    const texts = new Map<string, string>();
    // Read in batches of about one chunk's size: one answer stays as small as one chunk.
    let batch: string[] = [];
    let size = 0;
    const flush = async () => {
      if (batch.length === 0) return;
      for (const c of await this.collection.find({ _id: { $in: batch } })) texts.set(c._id, c.text);
      batch = [];
      size = 0;
    };
    for (const entry of wanted) {
      for (let n = 0; n < entry.chunks; n++) {
        const length = Math.min(CHUNK_CHARS, entry.bytes - n * CHUNK_CHARS);
        if (size + length > CHUNK_CHARS) await flush();
        batch.push(chunkId(entry.ref, n));
        size += length;
      }
    }
    await flush();
    for (const entry of wanted) {
      let text = "";
      for (let n = 0; n < entry.chunks; n++) {
        const chunk = texts.get(chunkId(entry.ref, n));
        if (chunk === undefined) throw new OutputGoneError(`job output ${entry.ref} is gone`);
        text += chunk;
      }
      const place = placeOf(doc, entry.path)!;
      place.parent[place.key] = JSON.parse(text);
    }
    return doc;
  }
}

/**
 * Puts back the big values of job documents a reader found (whole, or projected: `projected`
 * then reads their `spilled` lists, which a projection may have left out), and takes `spilled`
 * out of them. A value replaced since the documents were read: their lists are read again (a
 * few times, then it throws).
 */
export async function hydrateJobs<T extends Record<string, any>>(
  store: Store,
  docs: T[],
  projected = false,
): Promise<T[]> {
  const outputs = new JobOutputs(store);
  let fresh = projected;
  for (let attempt = 0; ; attempt++) {
    if (fresh) {
      const ids = docs.map((d) => d._id).filter((id) => typeof id === "string");
      const lists =
        ids.length === 0
          ? []
          : await store
              .collection(JOBS)
              .find(
                { _id: { $in: ids }, spilled: { $exists: true } },
                { projection: { _id: 1, spilled: 1 } },
              );
      const byId = new Map(lists.map((l) => [l._id, l.spilled]));
      for (const doc of docs) {
        const list = byId.get(doc._id);
        if (list) (doc as Record<string, any>).spilled = list;
        else delete doc.spilled;
      }
    }
    try {
      for (const doc of docs) await outputs.hydrate(doc);
      for (const doc of docs) delete doc.spilled;
      return docs;
    } catch (err) {
      if (!(err instanceof OutputGoneError) || attempt >= 4) throw err;
      fresh = true;
    }
  }
}
