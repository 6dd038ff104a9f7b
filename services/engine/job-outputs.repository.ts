/**
 * Collection `job_outputs`: the values too big for their job document (./run/outputs.ts says which
 * and why). A value is stored as its JSON text in chunks of at most CHUNK_CHARS (a chunk stays far
 * below 16 MiB, whatever the value's size), each chunk a document `{_id: "<ref>:<n>", jobId, n,
 * text}`, where `ref` is `<jobId>/<random id>`: a new one for every value written, so a write
 * never overwrites a value a stored job still refers to.
 *
 * The order of a write (./run/jobs.ts): the chunks first, then the job's compare-and-set that
 * refers to them; a crash in between leaves chunks no job refers to, removed with their job
 * (`deleteForJob`). A write that loses its compare-and-set removes its own chunks; a stored write
 * removes the chunks of the values it replaced. A reader that finds a chunk gone (replaced by a
 * write after it read the job) reads the job again (OutputGoneError).
 */
import { index, Repository } from "../../shared/store/repository";
import { CHUNK_CHARS, OutputGoneError, type SpillWrite } from "./run/outputs";
import type { SpillRef } from "./run/types";

export interface OutputChunk {
  _id: string;
  jobId: string;
  n: number;
  text: string;
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
function placeOf(doc: object, path: string[]): { parent: Record<string, unknown>; key: string } | null {
  let node: unknown = doc;
  for (const part of path.slice(0, -1)) {
    if (!node || typeof node !== "object" || !Object.hasOwn(node, part)) return null;
    node = (node as Record<string, unknown>)[part];
  }
  const key = path[path.length - 1];
  if (!node || typeof node !== "object" || !Object.hasOwn(node, key)) return null;
  return { parent: node as Record<string, unknown>, key };
}

/** A job as stored, whole or projected: what `hydrate` puts values back into. */
export interface SpillingDoc {
  _id: string;
  spilled?: SpillRef[];
}

export class JobOutputRepository extends Repository<OutputChunk> {
  readonly collectionName = "job_outputs";
  /** A job's chunks, to remove them with it (named "jobId" since it was first created). */
  readonly indexes = [index({ jobId: 1 }, { name: "jobId" })];

  /** Stores values of job `jobId` (before the job write that refers to them). */
  async write(jobId: string, writes: SpillWrite[]): Promise<void> {
    const docs: OutputChunk[] = [];
    for (const { entry, text } of writes)
      chunksOf(text, entry.chunks).forEach((chunk, n) =>
        docs.push({ _id: chunkId(entry.ref, n), jobId, n, text: chunk }),
      );
    // One chunk at a time: a batch of them together could pass the bus's bound on one message.
    for (const doc of docs) await this.docs.insertOne(doc);
  }

  /** Removes the chunks of values no job refers to any more (best effort: what stays goes with its job). */
  async drop(entries: SpillRef[]): Promise<void> {
    const ids = entries.flatMap((e) => Array.from({ length: e.chunks }, (_, n) => chunkId(e.ref, n)));
    if (ids.length > 0) await this.docs.deleteMany({ _id: { $in: ids } });
  }

  /** Removes every value of job `jobId` (when the job is removed). */
  async deleteForJob(jobId: string): Promise<number> {
    return this.docs.deleteMany({ jobId });
  }

  /**
   * Puts back in `doc` (a job as stored, whole or projected) the values its `spilled` entries
   * name, where `doc` holds their place (a projection that left a place out keeps it out).
   * Throws OutputGoneError when a value is no longer stored.
   */
  async hydrate<T extends SpillingDoc>(doc: T): Promise<T> {
    const entries = doc.spilled;
    if (!Array.isArray(entries) || entries.length === 0) return doc;
    const wanted = entries.filter((e) => placeOf(doc, e.path));
    const texts = new Map<string, string>();
    // Read in batches of about one chunk's size: one answer stays as small as one chunk.
    let batch: string[] = [];
    let size = 0;
    const flush = async () => {
      if (batch.length === 0) return;
      for (const c of await this.docs.find({ _id: { $in: batch } })) texts.set(c._id, c.text);
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
