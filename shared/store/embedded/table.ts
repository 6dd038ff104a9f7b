/** One collection of the embedded store in memory: documents by `_id`, indexes, unique keys. */
import { isPlainObject as isPlain } from "../../objects";
import { DuplicateKeyError, type Doc, type Filter, type IndexSpec } from "../types";
import { indexKeys, keyObject } from "./mongo";
import { opsMet, rangeOn } from "./index-ranges";
import { ReadCache } from "./read-cache";
import { DocMap, HOT_DOCUMENTS } from "./doc-map";
import type { KnownSize } from "./size";

export type NamedIndex = IndexSpec & { name: string };
export type StoredDoc = Doc & { _id: string };

/** One collection's documents and indexes. Stored documents are never mutated, only replaced. */
export class Table {
  /** The documents by `_id`; all but the newest `hotLimit` as their JSON text (doc-map.ts). */
  readonly docs: DocMap;
  readonly indexes = new Map<string, NamedIndex>();
  /** Per unique index: key tuple (JSON) -> `_id` of the document holding it. */
  private readonly uniqueKeys = new Map<string, Map<string, string>>();
  /**
   * Per other index (and per leading-fields index): key tuple (JSON) -> the `_id` of the one
   * document holding it, or the `_id`s of the documents holding it once there are several. Most of
   * a job's keys are its own (its start time is in six of its indexes): a Set for each (two heap
   * objects) was half of a cold job's objects, which every major GC marks (docs/performance.md,
   * "The store's cold documents").
   */
  private readonly sharedKeys = new Map<string, Map<string, Holders>>();
  /**
   * The leading fields of each compound index as indexes of their own (`status` of `{status,
   * sweepAt}`): derived here, never listed, stored or logged. A filter pinning only an index's first
   * fields (the sweep's `status: "running"`, a device's reports) then looks its documents up, as
   * MongoDB's planner uses an index's prefix, instead of scanning a collection that only grows.
   */
  private readonly prefixes = new Map<string, NamedIndex>();
  /**
   * What is known of each document's BSON size (size.ts KnownSize), by `_id`: noted by the
   * collection's write that stored it, and unknown (measured when next needed) after any other put.
   * By `_id`, so the map holds an entry a document, overwritten in place at each write.
   */
  private readonly sizes = new Map<string, KnownSize | undefined>();
  /** Insertion rank of each document, so index hits come back in the order a scan would give. */
  private readonly rank = new Map<string, number>();
  private nextRank = 0;
  /** Counts every change (documents or indexes): an answer read at another version is stale. */
  version = 0;
  /** Recent answers of reads at their version (read-cache.ts). */
  readonly reads = new ReadCache();
  private lastReadVersion = -1;

  /** `hotLimit`: documents held as objects, at most (doc-map.ts; Infinity: all, the machinery off). */
  constructor(hotLimit: number = HOT_DOCUMENTS) {
    this.docs = new DocMap(hotLimit);
  }

  /**
   * Whether a read now is worth keying for the read cache: only when the collection was read
   * before at this version. A collection written between most reads (the engine's jobs) skips
   * building keys for answers that would be stale by the next read.
   */
  repeatRead(): boolean {
    const repeat = this.lastReadVersion === this.version;
    this.lastReadVersion = this.version;
    return repeat;
  }

  /** The expiry indexes (expireAfterSeconds), listed again after an index is added or dropped. */
  private expiryIndexes: NamedIndex[] | undefined;

  /** The indexes with expireAfterSeconds: every write asks (collection.ts expireDue). */
  expiring(): NamedIndex[] {
    return (this.expiryIndexes ??= [...this.indexes.values()].filter(
      (i) => i.expireAfterSeconds !== undefined,
    ));
  }

  /**
   * Adds the index `spec` and keys every document under it, and under the prefixes it brings, in
   * one walk of the documents: a cold one is parsed once for all of them, and its skeleton widened
   * to the new fields on the way (doc-map.ts).
   */
  addIndex(spec: NamedIndex): void {
    this.version++;
    this.expiryIndexes = undefined;
    this.keyed = undefined;
    this.indexes.set(spec.name, spec);
    let keyers: ((doc: StoredDoc) => void)[];
    if (spec.unique) {
      const keys = new Map<string, string>();
      this.uniqueKeys.set(spec.name, keys);
      keyers = [(doc) => indexKeys(doc, spec).forEach((key) => keys.set(key, doc._id))];
    } else {
      keyers = [this.sharedKeyer(spec)];
    }
    keyers.push(...this.derivePrefixes().map((prefix) => this.sharedKeyer(prefix)));
    this.docs.rekey((doc) => keyers.forEach((key) => key(doc)), this.indexedPaths());
  }

  /** Every field a declared index keys (what a cold document's skeleton keeps: doc-map.ts). */
  private indexedPaths(): string[] {
    return [...this.indexes.values()].flatMap((spec) => Object.keys(spec.keys));
  }

  /**
   * Removes the index `name` and its entries (an index migration: collection.ts createIndex). Cold
   * documents keep the dropped fields in their skeletons: a skeleton holding more than it must is
   * still right, and narrowing each would cost a parse of every cold document.
   */
  dropIndex(name: string): void {
    this.version++;
    this.expiryIndexes = undefined;
    this.keyed = undefined;
    this.indexes.delete(name);
    this.uniqueKeys.delete(name);
    this.sharedKeys.delete(name);
    const keyers = this.derivePrefixes().map((prefix) => this.sharedKeyer(prefix));
    if (keyers.length > 0) this.docs.rekey((doc) => keyers.forEach((key) => key(doc)));
  }

  /** An empty non-unique index (or prefix) `spec`, and the function that keys a document under it. */
  private sharedKeyer(spec: NamedIndex): (doc: StoredDoc) => void {
    this.sharedKeys.set(spec.name, new Map());
    return (doc) => this.indexShared(spec, doc);
  }

  /**
   * The first key two documents would share under the unique index `spec` (collection.ts
   * createIndex refuses such an index), walking the documents without keeping them parsed.
   */
  clashUnder(spec: IndexSpec): string | undefined {
    const owners = new Map<string, string>();
    for (const doc of this.docs.values())
      for (const key of indexKeys(doc, spec)) {
        const owner = owners.get(key);
        if (owner !== undefined && owner !== doc._id) return key;
        owners.set(key, doc._id);
      }
    return undefined;
  }

  /**
   * Brings `prefixes` in line with the declared indexes: one per leading run of fields of a compound
   * index that no declared index (nor another prefix) already keys in that order; each kept one
   * keeps its entries, an unneeded one goes. Answers the new ones, empty: the caller keys the
   * documents under them (sharedKeyer, in its one walk).
   */
  private derivePrefixes(): NamedIndex[] {
    const declared = new Set([...this.indexes.values()].map((spec) => fieldsKey(Object.keys(spec.keys))));
    const wanted = new Map<string, NamedIndex>();
    for (const spec of this.indexes.values()) {
      const fields = Object.keys(spec.keys);
      for (let n = 1; n < fields.length; n++) {
        const lead = fields.slice(0, n);
        const name = `${PREFIX_MARK}${fieldsKey(lead)}`;
        if (declared.has(fieldsKey(lead)) || wanted.has(name)) continue;
        wanted.set(
          name,
          this.prefixes.get(name) ?? { keys: Object.fromEntries(lead.map((f) => [f, 1])), name },
        );
      }
    }
    for (const name of this.prefixes.keys()) if (!wanted.has(name)) this.sharedKeys.delete(name);
    const added = [...wanted].filter(([name]) => !this.prefixes.has(name)).map(([, spec]) => spec);
    this.prefixes.clear();
    for (const [name, spec] of wanted) this.prefixes.set(name, spec);
    return added;
  }

  /**
   * The `_id`s, in insertion order, of the only documents that can match `filter`, when it pins
   * every field of an index, or of an index's leading fields (`prefixes`), to scalars, or else
   * ranges an index's leading field (rangeCandidates, an index of at most `rangeKeys` keys);
   * undefined when none serves it, or when the fewest an index names are too many for a lookup to
   * beat a scan (a quarter of the collection: putting them in insertion order costs more than
   * testing them all).
   */
  candidates(filter: Filter, rangeKeys = Infinity): string[] | undefined {
    let found: string[] | undefined;
    let fewest = Math.max(1, this.docs.size / 4);
    for (const specs of [this.indexes.values(), this.prefixes.values()])
      for (const spec of specs) {
        const keys = pinnedKeys(filter, spec);
        if (!keys) continue;
        const ids = this.lookup(spec.name, keys, fewest);
        if (!ids || ids.length > fewest) continue;
        found = ids;
        fewest = ids.length;
        if (fewest <= 1) return found;
      }
    return found ?? this.rangeCandidates(filter, fewest, rangeKeys);
  }

  /**
   * The `_id`s, in insertion order, of the documents a range on an index's leading field may match,
   * read from that index's keys (index-ranges.ts); undefined when no index leads with a field the
   * filter ranges, or when more than `most` may match (testing them all is then as cheap). An index
   * of more than `rangeKeys` keys is not read: a read's scan lets other work in, a pass over the
   * keys does not (writes match in one go, so theirs read any index).
   */
  private rangeCandidates(filter: Filter, most: number, rangeKeys: number): string[] | undefined {
    for (const spec of this.indexes.values()) {
      const range = rangeOn(filter, Object.keys(spec.keys)[0]!);
      if (!range) continue;
      const keys: Map<string, Holders> | undefined =
        this.uniqueKeys.get(spec.name) ?? this.sharedKeys.get(spec.name);
      if (!keys || keys.size > rangeKeys) continue;
      // A document is a candidate once each operator is met by one of its keys (a bit each). Past
      // `most` candidates the keys are left unread: the scan that follows is then as cheap.
      const all = (1 << range.ops.length) - 1;
      const met = new Map<string, number>();
      const ids = new Set<string>();
      const note = (id: string, bits: number) => {
        const was = met.get(id) ?? 0;
        if ((was | bits) === was) return;
        met.set(id, was | bits);
        if ((was | bits) === all) ids.add(id);
      };
      for (const [key, holders] of keys) {
        const bits = opsMet(range, key);
        if (bits === 0) continue;
        if (typeof holders === "string") note(holders, bits);
        else for (const id of holders) note(id, bits);
        if (ids.size > most) return undefined;
      }
      return this.inInsertionOrder(ids);
    }
    return undefined;
  }

  /**
   * The `_id`s, in insertion order, of the documents holding one of `keys` in the index `name`;
   * undefined when there are more than `most` (an upper bound, counted before any is gathered).
   */
  private lookup(name: string, keys: string[], most: number): string[] | undefined {
    const unique = this.uniqueKeys.get(name);
    if (unique) {
      const ids = new Set<string>();
      for (const key of keys) {
        const id = unique.get(key);
        if (id !== undefined) ids.add(id);
      }
      return this.inInsertionOrder(ids);
    }
    const shared = this.sharedKeys.get(name);
    const holders = keys.flatMap((key) => shared?.get(key) ?? []);
    if (holders.reduce((n, ids) => n + holderCount(ids), 0) > most) return undefined;
    return this.inInsertionOrder(
      new Set(holders.flatMap((ids) => (typeof ids === "string" ? [ids] : [...ids]))),
    );
  }

  private inInsertionOrder(ids: Set<string>): string[] {
    return ids.size < 2 ? [...ids] : [...ids].sort((a, b) => this.rank.get(a)! - this.rank.get(b)!);
  }

  /** Throws DuplicateKeyError when writing `puts` (new `_id`s when `inserting`) would break a unique index. */
  check(collection: string, puts: StoredDoc[], inserting: boolean): void {
    if (puts.length === 1) this.checkOne(collection, puts[0], inserting);
    else this.checkBatch(collection, puts, inserting);
  }

  /**
   * check for one document (every insertOne, every single update): the batch's rule without the
   * batch's sets. Its own `_id` is the batch's only member, so a key clashes only with another
   * document owning it, and the document's own keys never clash with each other.
   */
  private checkOne(collection: string, doc: StoredDoc, inserting: boolean): void {
    if (inserting && this.docs.has(doc._id)) throw new DuplicateKeyError(collection, { _id: doc._id });
    for (const [name, owners] of this.uniqueKeys) {
      const spec = this.indexes.get(name)!;
      for (const key of indexKeys(doc, spec)) {
        const owner = owners.get(key);
        if (owner !== undefined && owner !== doc._id)
          throw new DuplicateKeyError(collection, keyObject(spec, key));
      }
    }
  }

  /** check for any number of documents (test/store/unique-check.test.ts holds checkOne to it). */
  checkBatch(collection: string, puts: StoredDoc[], inserting: boolean): void {
    const batchIds = new Set<string>();
    for (const doc of puts) {
      if (inserting && (this.docs.has(doc._id) || batchIds.has(doc._id))) {
        throw new DuplicateKeyError(collection, { _id: doc._id });
      }
      batchIds.add(doc._id);
    }
    for (const [name, owners] of this.uniqueKeys) {
      const spec = this.indexes.get(name)!;
      const claimed = new Map<string, string>();
      for (const doc of puts) {
        for (const key of indexKeys(doc, spec)) {
          const claimant = claimed.get(key);
          const owner = owners.get(key);
          // An owner that is itself rewritten in this batch only clashes if its new image claims the key too.
          const clash =
            (claimant !== undefined && claimant !== doc._id) ||
            (owner !== undefined && owner !== doc._id && !batchIds.has(owner));
          if (clash) throw new DuplicateKeyError(collection, keyObject(spec, key));
          claimed.set(key, doc._id);
        }
      }
    }
  }

  /**
   * Writes a batch: `dels` removed, `puts` stored (new or replacing). An index whose fields hold
   * the same values in a replacement as in the image it replaces (rekeyChanged) keeps its
   * entries as they are: a job's task transition does not re-key the job under its start time,
   * groups and workflow. `texts`, by position, are puts' own JSON texts where known (an insert's,
   * a snapshot line's): such a document goes cold with its text, unserialized (doc-map.ts).
   */
  apply(
    puts: StoredDoc[],
    dels: string[],
    texts?: readonly (string | undefined)[],
    patches?: readonly { members?: readonly string[] }[],
  ): void {
    this.version++;
    for (const id of dels) {
      const old = this.docs.peek(id);
      if (!old) continue;
      this.reindex(old, undefined);
      this.docs.delete(id);
      this.rank.delete(id);
      this.sizes.delete(id);
    }
    for (let i = 0; i < puts.length; i++) {
      const doc = puts[i];
      const old = this.docs.peek(doc._id);
      // A rewrite keeps its Map position, so its rank; a new `_id` goes last, as in `docs`.
      if (!old) this.rank.set(doc._id, this.nextRank++);
      // The writer notes the new image's size once this put is done (noteSize); none meanwhile.
      else if (this.sizes.get(doc._id) !== undefined) this.sizes.set(doc._id, undefined);
      this.docs.set(doc._id, doc, texts?.[i]);
      this.reindex(old, doc, patches?.[i]?.members);
    }
    // A collection with an expiry index is read whole every second (collection.ts expireDue): a
    // parse of each cold document there would cost more than the marking it saves.
    if (this.expiring().length === 0) this.docs.trim();
  }

  /**
   * Runs `write`, the image it stores under `id` held as its text at once (a write's `settled`
   * hint, types.ts), as apply's trim would hold it later; not in a collection with an expiry index
   * (read whole every second), where documents stay objects as trim leaves them.
   */
  settleOnWrite<T>(id: string, write: () => T): T {
    return this.expiring().length === 0 ? this.docs.settleOnWrite(id, write) : write();
  }

  /** What is known of the size of the document stored under `id` (undefined: nothing). */
  knownSize(id: string): KnownSize | undefined {
    return this.sizes.get(id);
  }

  /** Notes the size of the document just stored under `id` (by the write that stored it). */
  noteSize(id: string, known: KnownSize): void {
    this.sizes.set(id, known);
  }

  /** The indexes and prefixes with the field paths they key (keyedPaths); rebuilt on index changes. */
  private keyed: KeyedPaths | undefined;

  private keyedPaths(): KeyedPaths {
    return (this.keyed ??= keyedPaths([...this.indexes.values(), ...this.prefixes.values()]));
  }

  /**
   * Moves a document's index entries from its old image to its new one (either may be absent);
   * `members`, a fast update's (rekeyChanged).
   */
  private reindex(old: StoredDoc | undefined, doc: StoredDoc | undefined, members?: readonly string[]): void {
    if (old && doc) return this.rekeyChanged(old, doc, members);
    // By value (each spec holds its name): no [name, spec] pair made per index at every write.
    for (const spec of this.indexes.values()) this.rekey(spec, old, doc);
    for (const spec of this.prefixes.values()) this.rekey(spec, old, doc);
  }

  /**
   * A replacement: each field path the indexes key is compared once (samePathValues), and only the
   * indexes with a path whose values moved are re-keyed, without walking a path again for every
   * index that keys it (a job's start time is in six of its indexes and in their prefixes, and a
   * step writes `metrics` beside it). With `members` (a fast update's: the top-level members it
   * wrote, every other one the old image's very value) only the paths under those are compared: a
   * task transition writes `tasks`, `metrics`, `last_updated` and `version` (`sweepAt` and `status`
   * when they move), where the jobs' indexes key sixteen paths, each compared through a lookup by
   * a key that varies.
   */
  private rekeyChanged(old: StoredDoc, doc: StoredDoc, members?: readonly string[]): void {
    const { paths, specs, pathsOf } = this.keyedPaths();
    const moved = this.movedPaths;
    for (let p = 0; p < paths.length; p++)
      moved[p] =
        (members === undefined || members.includes(paths[p][0])) && !samePathValues(old, doc, paths[p]);
    for (let i = 0; i < specs.length; i++) {
      const of = pathsOf[i];
      let touched = false;
      for (let j = 0; j < of.length && !touched; j++) touched = moved[of[j]];
      if (touched) this.rekey(specs[i], old, doc);
    }
  }

  /** Scratch for rekeyChanged: whether each path of keyedPaths moved (never kept across calls). */
  private readonly movedPaths: boolean[] = [];

  /** Moves a document's entries under one index or prefix from its old image to its new one. */
  private rekey(spec: NamedIndex, old: StoredDoc | undefined, doc: StoredDoc | undefined): void {
    const unique = this.uniqueKeys.get(spec.name);
    if (unique) {
      if (old) for (const key of indexKeys(old, spec)) if (unique.get(key) === old._id) unique.delete(key);
      if (doc) for (const key of indexKeys(doc, spec)) unique.set(key, doc._id);
    } else {
      if (old) this.indexShared(spec, old, true);
      if (doc) this.indexShared(spec, doc);
    }
  }

  /** Adds (or removes) `doc` under each of its keys in the non-unique index (or prefix) `spec`. */
  private indexShared(spec: NamedIndex, doc: StoredDoc, remove = false): void {
    const keys = this.sharedKeys.get(spec.name)!;
    const id = doc._id;
    for (const key of indexKeys(doc, spec)) {
      const ids = keys.get(key);
      if (remove) {
        if (ids === id) keys.delete(key);
        else if (ids !== undefined && typeof ids !== "string" && ids.delete(id) && ids.size === 1)
          keys.set(key, ids.values().next().value!); // one holder left: its `_id` alone again
      } else if (ids === undefined) keys.set(key, id);
      else if (typeof ids !== "string") ids.add(id);
      else if (ids !== id) keys.set(key, new Set([ids, id]));
    }
  }
}

/** The documents holding one key of a non-unique index: one `_id`, or several (Table.sharedKeys). */
type Holders = string | Set<string>;

const holderCount = (ids: Holders): number => (typeof ids === "string" ? 1 : ids.size);

/** Names of derived prefixes start with a character no index name (field_dir_...) holds. */
const PREFIX_MARK = "\u0000";

/** One text per list of fields, in order (directions aside: a hash map has none). */
const fieldsKey = (fields: string[]): string => JSON.stringify(fields);

/**
 * A table's indexes and prefixes (`specs`), the field paths they key, each once and split into its
 * segments (`paths`), and for each spec the positions in `paths` of its own.
 */
interface KeyedPaths {
  paths: string[][];
  specs: NamedIndex[];
  pathsOf: number[][];
}

function keyedPaths(specs: NamedIndex[]): KeyedPaths {
  const fields: string[] = [];
  const pathsOf = specs.map((spec) =>
    Object.keys(spec.keys).map((field) => {
      const at = fields.indexOf(field);
      return at === -1 ? fields.push(field) - 1 : at;
    }),
  );
  return { paths: fields.map((field) => field.split(".")), specs, pathsOf };
}

/**
 * Whether two images of a document hold the very same values under one field path, so the index
 * keys they make of it are the same. Stored images are never changed, so a member one image shares
 * with the other (a fast update copies only the objects on the paths it wrote) holds the same
 * values all the way down. A task transition also writes `metrics.progress`: the path down to
 * `metrics.start_time` is then walked, and the job keeps its entries under its start time.
 * An array on the way (pathValues enters it) or any other doubt answers false: re-keyed.
 */
function samePathValues(a: unknown, b: unknown, parts: string[]): boolean {
  for (const part of parts) {
    if (a === b) return true;
    if (!isPlainRecord(a) || !isPlainRecord(b)) return false;
    a = a[part];
    b = b[part];
  }
  return a === b;
}

const isPlainRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const isScalar = (v: unknown): v is string | number | boolean =>
  typeof v === "string" || typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v));

/**
 * The index key tuples (as indexKeys writes them) that a document matching `filter` must hold,
 * when the filter's own members pin each of the index's fields to scalars (`v`, `{$eq: v}`,
 * `{$in: [...]}`). A match on `field: v` means some value the path reaches is `v`, and indexKeys
 * keys the document under every value each path reaches, so a match always holds one of these.
 * Null (it matches a missing field too), arrays, objects and numeric path segments are left to a scan.
 */
function pinnedKeys(filter: Filter, spec: IndexSpec): string[] | undefined {
  let tuples: unknown[][] = [[]];
  for (const field of Object.keys(spec.keys)) {
    if (!Object.hasOwn(filter, field) || field.split(".").some((p) => /^\d+$/.test(p))) return undefined;
    const cond = filter[field];
    const only = isPlain(cond) ? Object.keys(cond) : [];
    const values = isScalar(cond)
      ? [cond]
      : only.length === 1 && only[0] === "$eq" && isScalar(cond.$eq)
        ? [cond.$eq]
        : only.length === 1 && only[0] === "$in" && Array.isArray(cond.$in) && cond.$in.every(isScalar)
          ? (cond.$in as unknown[])
          : undefined;
    if (!values) return undefined;
    tuples = tuples.flatMap((t) => values.map((v) => [...t, v]));
    if (tuples.length > 1000) return undefined; // a scan is cheaper than that many lookups
  }
  return tuples.map((t) => JSON.stringify(t));
}
