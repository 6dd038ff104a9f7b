/**
 * A table's documents by `_id` (table.ts): the most recently written ones as objects, the others
 * ("cold") as their JSON text on a skeleton of their indexed fields.
 *
 * Why: a major (mark-compact) GC marks every object the heap holds, and the embedded store holds
 * every document ever written: a finished job of 10 steps is a few hundred objects, its text one
 * string that marking does not enter, its skeleton a few objects. With 20,000 finished jobs in the
 * store, a full GC took 101-218 ms of the store's thread with every job an object, 28-42 ms with
 * all but the newest 1,024 cold (`npm run bench:store-gc`). Such a pause is what the twelfth round
 * found behind the engine's one-process p99 tail (docs/performance-rounds.md).
 *
 * The cost: a document drops out of the newest `hotLimit` with one serialization (about 15 µs for
 * a finished job), none when its text is known (the text it was inserted with, a snapshot line it
 * was loaded from, the text a read thawed it from: knownTexts). A read by `_id` (get) parses it
 * and holds it as an object again, the newest. A read whose filter and sort look only at what the
 * skeletons hold (coverage) passes skeletons and parses only what it answers (resolve); any other
 * scan (values) parses each cold document it passes and keeps none.
 *
 * Every stored document is the JSON round trip of itself (mongo.ts storedImage; a fast update's
 * image replays from its log line to the same text), so a cold document parses to a document equal
 * to the one it was, members in the same order. Only identity is lost: what compared images by
 * identity (table.ts rekeyChanged, the member ops of fast-update.ts) finds them different and takes its
 * general path, as for any other change.
 */
import type { StoredDoc } from "./table";
import { copyPlain } from "../../objects";

/** Documents of a collection held as objects, at most (the newest written or read by `_id`). */
export const HOT_DOCUMENTS = 1024;

/** A cold document's JSON text, on its skeleton (a symbol: no filter, sort or copy sees it). */
const TEXT = Symbol("cold document text");

/**
 * A cold document as held: its skeleton (`_id` and the values at the collection's indexed paths)
 * carrying the whole document's text under TEXT.
 */
type ColdDoc = StoredDoc & { [TEXT]: string };

const isCold = (held: StoredDoc): held is ColdDoc => (held as Partial<ColdDoc>)[TEXT] !== undefined;

/** What a covered scan hands on: a document, or a cold one's skeleton (resolve() gives the document). */
export type Covered = StoredDoc;

/** Whether a read may look at a held document as it is held (DocMap.coverage). */
export type Coverage = (held: Covered) => boolean;

/** The coverage of a read every skeleton holds (and of a scan that hands on every document as held). */
export const EVERY_DOCUMENT: Coverage = () => true;

export class DocMap {
  private readonly map = new Map<string, StoredDoc>();
  /** How many of the documents are objects. */
  private hot = 0;
  /**
   * Writes (and thaws) in order: each entry an `_id` and the write's number. An entry whose number
   * is no longer its document's `lastWrite` (rewritten, deleted or frozen since) is stale and
   * skipped. Numbers, not the images: an entry must not keep an old image alive (they would outlive
   * the young generation and cost the old one's GC what the cold documents save).
   */
  private queueIds: string[] = [];
  private queueWrites: number[] = [];
  private head = 0;
  /** The number of each object document's last write (or thaw). */
  private readonly lastWrite = new Map<string, number>();
  private writes = 0;
  /** @internal Cold documents parsed so far (tests and benches: what a read cost). */
  parsed = 0;
  /** @internal Documents serialized as they went cold (tests: what a known text spared). */
  serialized = 0;
  /**
   * Texts known to be a hot document's own: its insert's (mongo.ts storedImage), its snapshot
   * line's, or the text it was parsed from when a read by `_id` thawed it. Stored documents are
   * never changed, only replaced, so the text stays true; going cold again takes it instead of
   * serializing the document. By `_id`, for the document held under it: dropped when a write
   * replaces it without a text, when it goes cold, when it is deleted. Not a WeakMap keyed by the
   * document: entries of documents that outlived a scavenge stayed until the next full GC, and the
   * map's growth rehashed them inside a write (as size.ts's did: twenty-second round).
   */
  private readonly knownTexts = new Map<string, string>();
  /** The paths a cold document's skeleton keeps (`_id` and every indexed field), split. */
  private skeletonPaths: string[][] = [["_id"]];

  /** `hotLimit`: Infinity keeps every document an object (the machinery's switch off). */
  constructor(private readonly hotLimit: number = HOT_DOCUMENTS) {}

  get size(): number {
    return this.map.size;
  }

  /** How many documents are held as text (tests, bench). */
  get coldCount(): number {
    return this.map.size - this.hot;
  }

  /** @internal Entries of the write queue still held (test/store/cold-documents.test.ts: its bound). */
  get queued(): number {
    return this.queueIds.length;
  }

  /** @internal Whether `id` is held as text (tests). */
  isCold(id: string): boolean {
    const held = this.map.get(id);
    return held !== undefined && isCold(held);
  }

  has(id: string): boolean {
    return this.map.has(id);
  }

  /**
   * The document; a cold one is parsed and held as an object again, as the newest (a job read by
   * its `_id` is often read again: a client polling it, the next step of a job that waited long).
   */
  get(id: string): StoredDoc | undefined {
    const held = this.map.get(id);
    if (held === undefined || !isCold(held)) return held;
    const doc = this.parse(held);
    this.knownTexts.set(id, held[TEXT]);
    this.map.set(id, doc);
    this.hot++;
    this.remember(id);
    this.trim();
    return doc;
  }

  /** The document, a cold one parsed but left cold: for a write about to replace or delete it. */
  peek(id: string): StoredDoc | undefined {
    const held = this.map.get(id);
    return held !== undefined && isCold(held) ? this.parse(held) : held;
  }

  /**
   * Stores `doc` as an object, the newest. trim() makes the oldest cold once the write is whole.
   * `text`, when given, is `doc`'s own JSON text (its insert's, its snapshot line's): it goes cold
   * with that text.
   */
  set(id: string, doc: StoredDoc, text?: string): void {
    const held = this.map.get(id);
    if (id === this.settling) {
      // Cold at once and never counted among the hot, so the write's trim makes no other document
      // cold for it; its place in the write order goes stale, as a rewrite's does.
      if (held !== undefined && !isCold(held)) this.hot--;
      this.lastWrite.delete(id);
      this.knownTexts.delete(id);
      this.map.set(id, this.coldOf(doc, text ?? this.textOf(id, doc)));
      return;
    }
    if (held === undefined || isCold(held)) this.hot++;
    this.map.set(id, doc);
    if (text !== undefined) this.knownTexts.set(id, text);
    else if (this.knownTexts.size > 0) this.knownTexts.delete(id);
    this.remember(id);
  }

  /** The `_id` whose document the write under way holds cold at once (settleOnWrite). */
  private settling?: string;

  /**
   * Runs `write`, which may store a new image under `id`: that image is held as its text at once
   * (a write said the document is settled: Table.settleOnWrite), whatever its place among the
   * newest. In a collection past `hotLimit` documents that is the serialization its trim would
   * have made later; in a smaller one, one it would not have made. Not on the size: the settled
   * documents kept as objects while the collection was small would then hold the hot places for
   * good, since settled writes free the places that trim would otherwise take from the oldest.
   * With every document an object (the machinery off), `write` alone.
   */
  settleOnWrite<T>(id: string, write: () => T): T {
    if (this.hotLimit === Infinity) return write();
    this.settling = id;
    try {
      return write();
    } finally {
      this.settling = undefined;
    }
  }

  delete(id: string): boolean {
    const held = this.map.get(id);
    if (held === undefined) return false;
    if (!isCold(held)) this.hot--;
    this.lastWrite.delete(id);
    this.knownTexts.delete(id);
    return this.map.delete(id);
  }

  /** Every document, in insertion order; cold ones parsed for the caller and left cold. */
  *values(): IterableIterator<StoredDoc> {
    for (const held of this.map.values()) yield isCold(held) ? this.parse(held) : held;
  }

  // ---------------------------------------------------------------- covered reads (skeletons)

  /**
   * Which held documents a read that looks only at `paths` (a filter's fields, a sort's, what an
   * aggregation reads) may look at as held, a cold one's skeleton instead of its parsed text: a test
   * of each held document, or undefined when no skeleton will do (each cold document is parsed).
   *
   * A path within one the skeleton keeps is held by every skeleton (it holds the whole value there,
   * arrays and objects included, or its absence). A path that leads into kept ones (`steps` where
   * `steps.state` is indexed) is held by the skeletons where the walk along it meets an array, a
   * scalar or nothing, which copyPath takes whole; where it ends at an object, the skeleton holds
   * only the kept members of it, and that document is parsed.
   */
  coverage(paths: readonly string[]): Coverage | undefined {
    const walks: string[][] = [];
    for (const path of paths) {
      const parts = path.split(".");
      let shared = 0;
      for (const kept of this.skeletonPaths) {
        let common = 0;
        while (common < kept.length && common < parts.length && kept[common] === parts[common]) common++;
        if (common === kept.length) {
          shared = Infinity; // within a kept path
          break;
        }
        shared = Math.max(shared, common);
      }
      if (shared === 0) return undefined;
      if (shared !== Infinity) walks.push(parts.slice(0, shared));
    }
    if (walks.length === 0) return EVERY_DOCUMENT;
    return (held) => !isCold(held) || walks.every((walk) => holdsWhole(held, walk));
  }

  /** The document `id`, or its skeleton when cold (a covered read: resolve() the ones it answers). */
  covered(id: string): Covered | undefined {
    return this.map.get(id);
  }

  /** Every document in insertion order, the cold ones as their skeletons (a covered read). */
  coveredValues(): IterableIterator<Covered> {
    return this.map.values();
  }

  /** The document a covered read handed on: itself, or a skeleton's document parsed. */
  resolve(covered: Covered): StoredDoc {
    return isCold(covered) ? this.parse(covered) : covered;
  }

  /**
   * A document a covered scan handed on, as a copy the caller may change (an aggregation's input):
   * a cold one parsed (the parse is the copy), a hot one copied. With `members`, only those
   * top-level members (`_id` among them); with `fromSkeleton` (the caller reads only paths the
   * skeletons keep), a cold one's skeleton copied instead of its text parsed.
   */
  owned(held: Covered, members?: ReadonlySet<string>, fromSkeleton = false): StoredDoc {
    if (!isCold(held) || fromSkeleton) return members ? pick(held, members, true) : copyPlain(held);
    const doc = this.parse(held);
    return members ? pick(doc, members, false) : doc;
  }

  /**
   * Hands `key` every document once, a cold one parsed (table.ts, when an index is added or a prefix
   * appears), and with `paths` (the collection's indexed fields, when they grew) gives each cold
   * document the skeleton of those paths on the way: one parse a document for all of it.
   */
  rekey(key: (doc: StoredDoc) => void, paths?: readonly string[]): void {
    // A `__proto__` member could not be copied as data: a path through one is never covered.
    if (paths)
      this.skeletonPaths = [...new Set(["_id", ...paths])]
        .map((path) => path.split("."))
        .filter((parts) => !parts.includes("__proto__"));
    for (const [id, held] of this.map) {
      if (!isCold(held)) {
        key(held);
        continue;
      }
      const doc = this.parse(held);
      key(doc);
      if (paths) this.map.set(id, this.coldOf(doc, held[TEXT]));
    }
  }

  // ---------------------------------------------------------------- going cold

  /** Makes the oldest written documents cold until no more than `hotLimit` are objects. */
  trim(): void {
    if (this.hotLimit === Infinity) return;
    const ids = this.queueIds;
    const writes = this.queueWrites;
    while (this.hot > this.hotLimit && this.head < ids.length) {
      const id = ids[this.head];
      const write = writes[this.head];
      this.head++;
      if (this.lastWrite.get(id) !== write) continue;
      this.lastWrite.delete(id);
      const doc = this.map.get(id)!;
      this.map.set(id, this.coldOf(doc, this.textOf(id, doc)));
      this.hot--;
    }
    this.compactQueue();
  }

  /**
   * The JSON text of `doc`, held under `id`: the one it came with (its insert's, a snapshot line,
   * the text it thawed from), else made.
   */
  private textOf(id: string, doc: StoredDoc): string {
    const known = this.knownTexts.get(id);
    if (known !== undefined) {
      this.knownTexts.delete(id);
      return known;
    }
    this.serialized++;
    return JSON.stringify(doc);
  }

  private parse(cold: ColdDoc): StoredDoc {
    this.parsed++;
    return JSON.parse(cold[TEXT]) as StoredDoc;
  }

  /** `doc`'s skeleton carrying `text`. */
  private coldOf(doc: StoredDoc, text: string): ColdDoc {
    const skeleton = {} as ColdDoc;
    for (const parts of this.skeletonPaths) copyPath(doc, skeleton, parts);
    Object.defineProperty(skeleton, TEXT, { value: text });
    return skeleton;
  }

  private remember(id: string): void {
    if (this.hotLimit === Infinity) return;
    const write = ++this.writes;
    this.lastWrite.set(id, write);
    this.queueIds.push(id);
    this.queueWrites.push(write);
  }

  /**
   * Drops the queue's stale entries once they outnumber the live ones by far: a document rewritten
   * at every step leaves an entry per write. Each live document has one live entry, so the queue
   * holds no more than twice the hot documents and a margin, in amortized O(1) a write. Entries
   * already passed are let go of the same way, once they outnumber the rest.
   */
  private compactQueue(): void {
    const length = this.queueIds.length - this.head;
    const manyStale = length > 2 * Math.min(this.hot, this.hotLimit) + 1024;
    if (!manyStale && this.head <= Math.max(1024, length)) return;
    const ids: string[] = [];
    const writes: number[] = [];
    for (let at = this.head; at < this.queueIds.length; at++) {
      const id = this.queueIds[at];
      const write = this.queueWrites[at];
      if (this.lastWrite.get(id) === write) {
        ids.push(id);
        writes.push(write);
      }
    }
    this.queueIds = ids;
    this.queueWrites = writes;
    this.head = 0;
  }
}

/**
 * Copies the value at `parts` of `doc` into `skeleton` at the same place: an object on the way is
 * entered (a fresh one in the skeleton), anything else (an array, a scalar, the path's end) is
 * taken whole, so a filter or sort on any path within reads what it would read in `doc`. A missing
 * member stays missing. Values are shared with `doc`: stored values are never changed, and only
 * what indexed paths hold (scalars, small arrays) stays alive through the skeleton.
 */
function copyPath(doc: StoredDoc, skeleton: StoredDoc, parts: readonly string[]): void {
  let from: Record<string, unknown> = doc;
  let to: Record<string, unknown> = skeleton;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (!Object.hasOwn(from, part)) return;
    const value = from[part];
    const whole =
      i === parts.length - 1 || value === null || typeof value !== "object" || Array.isArray(value);
    if (whole) {
      to[part] = value;
      return;
    }
    // Taken whole already (another path ended here): it holds this path too.
    if (Object.hasOwn(to, part) && to[part] === value) return;
    if (!Object.hasOwn(to, part)) to[part] = {};
    from = value as Record<string, unknown>;
    to = to[part] as Record<string, unknown>;
  }
}

/**
 * Whether `skeleton` holds the value at `walk` as the document does: the walk meets a missing
 * member (missing in the document too), an array or a scalar (copyPath took it whole) before it
 * ends at an object, of which the skeleton holds only the kept members.
 */
function holdsWhole(skeleton: StoredDoc, walk: readonly string[]): boolean {
  let at: Record<string, unknown> = skeleton;
  for (const part of walk) {
    if (!Object.hasOwn(at, part)) return true;
    const value = at[part];
    if (value === null || typeof value !== "object" || Array.isArray(value)) return true;
    at = value as Record<string, unknown>;
  }
  return false;
}

/** `doc`'s `members` (those it has), in `doc`'s order; their values copied when `copy`. */
function pick(doc: StoredDoc, members: ReadonlySet<string>, copy: boolean): StoredDoc {
  const out = {} as StoredDoc;
  for (const key of Object.keys(doc)) {
    if (members.has(key)) (out as Record<string, unknown>)[key] = copy ? copyPlain(doc[key]) : doc[key];
  }
  return out;
}
