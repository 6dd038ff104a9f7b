/** The embedded store's Collection: the store interface over one Table, every write one log line. */
import { performance } from "node:perf_hooks";
import { Aggregator, update as applyUpdateOperators } from "mingo";
import type {
  Collection,
  CountOptions,
  Doc,
  Filter,
  FindOneAndUpdateOptions,
  FindOptions,
  IndexSpec,
  Pipeline,
  Projection,
  Sort,
  Update,
  UpdateOptions,
  UpdateResult,
  VersionedWriteOptions,
} from "../types";
import { DuplicateKeyError, versionedUpdateOne } from "../types";
import type { DocPatch, EmbeddedBackend } from "./backend";
import type { WrittenValue } from "./depth";
import { exactGrowth, fastUpdate, versionedUpdate, type FastUpdate } from "./fast-update";
import { bsonDocumentSize, insertedSize, sizeOf, updatedSize, type KnownSize } from "./size";
import {
  MAX_DOCUMENT_BYTES,
  checkFilter,
  checkPipeline,
  checkUpdateTarget,
  documentTooLarge,
} from "../rules";
import { noteQuery } from "./query-shapes";
import { planAggregate, readsOtherCollections, topLevelMembers, type AggregatePlan } from "./aggregate-plan";
import { RestInput } from "./aggregate-input";
import { readKey } from "./read-cache";
import { deepFreeze } from "../../objects";
import { keepJsonText, valuesFromMessage } from "../../frozen-json";
import type { StoredDoc, Table } from "./table";
import { EVERY_DOCUMENT, type Coverage } from "./doc-map";
import {
  DEEP,
  applyUpdate,
  assertOperatorUpdate,
  copyDoc,
  withId,
  storedImage,
  idsOf,
  equalitiesOf,
  filterFields,
  keyObject,
  project,
  projectShared,
  predicateOf,
  validIndex,
  sortDocs,
  withMongoCount,
} from "./mongo";

/**
 * An answer handed to a read-only caller (kept in the read cache or not): deep-frozen (freezing
 * shares stored members in place, which is safe: stored documents are never changed, only
 * replaced), with its JSON text kept beside it for as long as the answer lives, so the gateway
 * writes it without serializing it again.
 */
/** How long one read's scan may hold the event loop before it lets other work in, in ms. */
export const READ_SLICE_MS = 10;
/**
 * The most keys a read's range reads from an index (table.ts rangeCandidates): about 8 ms of the
 * event loop in one go, within a read's slice; past it the read scans in slices instead.
 */
const RANGE_KEYS_IN_A_READ = 65_536;

/** Documents an aggregation's per-document stages take at a time (aggregate-plan.ts). */
const AGGREGATE_SLICE_DOCS = 64;

function shareKept(answer: Doc[]): Doc[] {
  keepJsonText(deepFreeze(answer));
  return answer;
}

/** A TTL field's value as epoch ms: a Date's ISO text (how the store keeps a Date), a number, or a Date. */
function expiryTime(value: unknown): number {
  if (typeof value === "number") return value;
  if (typeof value === "string") return Date.parse(value);
  if (value instanceof Date) return value.getTime();
  return NaN;
}

/** What the index check needs to know of a query besides its filter (query-shapes.ts). */
interface QueryPlan {
  sort?: Sort;
  /** Why it may scan (FindOptions.scan): not checked. */
  scan?: string;
  /**
   * A read whose filter and sort look only at what cold documents' skeletons keep (doc-map.ts):
   * it passes those its coverage allows as their skeletons (the others parsed), and the caller
   * resolves the ones it answers.
   */
  covered?: Coverage;
}

/**
 * Which cold documents a read of `filter` and `sort` may pass as their skeletons, if any: the
 * machinery is on, some documents are cold, and every field the filter and the sort look at is one
 * the skeletons hold (mongo.ts filterFields, undefined for an operator that reads the whole
 * document; DocMap.coverage).
 */
function coveredRead(table: Table, machinery: boolean, filter: Filter, sort?: Sort): Coverage | undefined {
  const fields = filterFields(filter);
  return coverageOf(table, machinery, fields && (sort ? [...fields, ...Object.keys(sort)] : fields));
}

/** Whether `projection` answers each document's `_id` and nothing else (`{_id: 1}`, as MongoDB reads it). */
function idsOnly(projection: Projection | undefined): boolean {
  if (projection === undefined) return false;
  const keys = Object.keys(projection);
  return keys.length === 1 && keys[0] === "_id" && (projection._id === 1 || projection._id === true);
}

/** Which cold documents a read of `paths` (undefined: the whole document) may pass as their skeletons. */
function coverageOf(table: Table, machinery: boolean, paths: string[] | undefined): Coverage | undefined {
  if (!machinery || table.docs.coldCount === 0 || paths === undefined) return undefined;
  return table.docs.coverage(paths);
}

/**
 * A read's turn on the event loop: it lets other work in (setImmediate) once it has held the loop
 * READ_SLICE_MS, so one costly read over many documents cannot stall every other caller.
 */
class ReadSlice {
  private start = performance.now();
  private seen = 0;

  /** Whether the turn is over; the clock is read every fourth document (one costs microseconds). */
  get over(): boolean {
    return ++this.seen % 4 === 0 && performance.now() - this.start > READ_SLICE_MS;
  }

  async yield(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    this.start = performance.now();
  }
}

/** When each table last removed its expired documents (expireDue). */
const lastExpiry = new WeakMap<Table, number>();
const EXPIRY_EVERY_MS = 1000;

export class EmbeddedCollection implements Collection<Doc> {
  constructor(
    private readonly store: EmbeddedBackend,
    readonly name: string,
  ) {}

  private get table(): Table {
    return this.store.table(this.name);
  }

  async find(filter: Filter = {}, options: FindOptions = {}): Promise<Doc[]> {
    filter = checkFilter(filter);
    const table = this.table;
    const { sort, skip = 0, limit, projection, readOnly, scan } = options;
    // The same read of an unchanged collection takes its last answer (read-cache.ts): copied, or
    // for a read-only caller the kept answer itself, frozen (a caller breaking its word throws).
    const machinery = this.store.machinery;
    const key =
      machinery && table.repeatRead()
        ? readKey("find", filter, sort ?? null, skip, limit ?? null, projection ?? null)
        : undefined;
    const kept = key === undefined ? undefined : table.reads.get(key, table.version);
    if (Array.isArray(kept)) return this.logged(readOnly ? shareKept(kept) : kept.map(copyDoc));
    const shared = readOnly && machinery;
    const end = limit ? skip + limit : undefined;
    const version = table.version;
    const covered = coveredRead(table, machinery, filter, sort);
    let docs = await this.matchingInSlices(filter, sort ? Infinity : (end ?? Infinity), {
      sort,
      scan,
      covered,
    });
    // Only a plain page (whole non-negative numbers) may stop sorting at its end; slice copes with the rest.
    const page = Number.isInteger(skip) && skip >= 0 && Number.isInteger(end) ? end : undefined;
    if (sort) docs = sortDocs(docs, sort, page);
    docs = docs.slice(skip, end);
    // A covered read parses only the cold documents it answers, and none when it answers their ids
    // alone (every skeleton holds its `_id`).
    if (covered !== undefined && !idsOnly(projection)) docs = docs.map((doc) => table.docs.resolve(doc));
    const answer = projectShared(docs, projection);
    // A write that landed while the scan let others in may or may not be in the answer: not kept.
    if (key !== undefined && table.version === version) table.reads.set(key, version, answer);
    return this.logged(shared ? shareKept(answer) : answer.map(copyDoc));
  }

  async findOne(filter: Filter, options: Omit<FindOptions, "skip" | "limit"> = {}): Promise<Doc | null> {
    const [doc] = await this.find(filter, { ...options, limit: 1 });
    return doc ?? null;
  }

  async count(filter: Filter = {}, options: CountOptions = {}): Promise<number> {
    // Everything: no need to list it first (matching still checks the filter's type).
    filter = checkFilter(filter);
    const table = this.table;
    if (filter && typeof filter === "object" && !Array.isArray(filter) && Object.keys(filter).length === 0)
      return this.logged(table.docs.size);
    const key = this.store.machinery && table.repeatRead() ? readKey("count", filter) : undefined;
    const kept = key === undefined ? undefined : table.reads.get(key, table.version);
    if (typeof kept === "number") return this.logged(kept);
    const version = table.version;
    const covered = coveredRead(table, this.store.machinery, filter);
    const count = (await this.matchingInSlices(filter, Infinity, { ...options, covered })).length;
    if (key !== undefined && table.version === version) table.reads.set(key, version, count);
    return this.logged(count);
  }

  async insertOne(doc: Doc): Promise<Doc> {
    const [inserted] = await this.insertMany([doc]);
    return inserted;
  }

  /**
   * Removes the documents an expiry index says are past (IndexSpec.expireAfterSeconds), at most once
   * a second per collection, before a write: a collection written without end is also swept without
   * end, so its expired documents cannot pile up.
   */
  private expireDue(): void {
    const table = this.table;
    const ttl = table.expiring();
    if (ttl.length === 0) return;
    const now = Date.now();
    if (now - (lastExpiry.get(table) ?? 0) < EXPIRY_EVERY_MS) return;
    lastExpiry.set(table, now);
    const expired: string[] = [];
    for (const doc of table.docs.values())
      if (ttl.some((i) => expiryTime(doc[Object.keys(i.keys)[0]]) + i.expireAfterSeconds! * 1000 <= now))
        expired.push(doc._id);
    if (expired.length) this.store.commit(this.name, { del: expired });
  }

  async insertMany(docs: Doc[]): Promise<Doc[]> {
    this.expireDue();
    const images = docs.map((doc) => storedImage(doc, this.store.machinery));
    const prepared = images.map((image) => image.doc);
    // A document inserted from its text is bounded by that text's length (size.ts), most often
    // without a walk; the bound never lets one past 16 MiB through.
    const sizes = images.map((image) => {
      const known = insertedSize(image.doc, image.text);
      if (sizeOf(known) > MAX_DOCUMENT_BYTES) throw documentTooLarge(sizeOf(known), false);
      return known;
    });
    this.table.check(this.name, prepared, true);
    // The answer is copied before the write: a failure here must leave nothing stored. A frozen
    // document the store took as given (the engine's new job) is its own answer: nobody can
    // change it, and its copy was the larger part of the insert. So is one parsed from the
    // write's message (the store node's): its answer is serialized back, never changed.
    const owned = this.store.machinery && valuesFromMessage();
    const answer = prepared.map((doc, i) =>
      doc === docs[i] && (owned || Object.isFrozen(doc)) ? doc : copyDoc(doc),
    );
    this.store.commit(
      this.name,
      { put: prepared },
      undefined,
      undefined,
      images.map((image) => image.text),
    );
    this.noteSizes(prepared, sizes);
    return this.acknowledged(answer);
  }

  async updateOne(filter: Filter, update: Update, options: UpdateOptions = {}): Promise<UpdateResult> {
    // The versioned compare-and-set's shape (a job write that came through a wrapper without
    // updateVersioned, or over the bus to the store node) takes its path too.
    const versioned = this.store.machinery && !options.upsert ? versionedShape(filter, update) : undefined;
    if (versioned && this.writeHinted(filter._id as string, filter.version as number, versioned, options))
      return this.acknowledged({ matchedCount: 1, modifiedCount: 1 });
    return this.genericUpdateOne(filter, update, options);
  }

  private async genericUpdateOne(
    filter: Filter,
    update: Update,
    options: UpdateOptions,
  ): Promise<UpdateResult> {
    filter = checkFilter(filter);
    assertOperatorUpdate(update);
    this.expireDue();
    const [doc] = this.matching(filter, 1);
    if (doc)
      return this.acknowledged({
        matchedCount: 1,
        modifiedCount: this.replace([doc], filter, update).length,
      });
    // No match may be the answer of a write not yet in the log (a lost compare-and-set): after it.
    if (!options.upsert) return this.logged({ matchedCount: 0, modifiedCount: 0 });
    return this.acknowledged({
      matchedCount: 0,
      modifiedCount: 0,
      upsertedId: this.upsert(filter, update)._id,
    });
  }

  /**
   * Collection.updateVersioned: with the performance machinery on, the document looked up by its
   * `_id`, its `version` compared and the update applied by versionedUpdate (fast-update.ts), none
   * of the generic filter and update checks; whatever that path does not take (and everything
   * with the machinery off) goes the generic updateOne's way.
   */
  async updateVersioned(
    id: string,
    version: number,
    set: Record<string, unknown>,
    unset?: Record<string, "">,
    options: VersionedWriteOptions = {},
  ): Promise<boolean> {
    const valid = typeof id === "string" && typeof version === "number" && !Number.isNaN(version);
    if (this.store.machinery && valid && isRecord(set) && (unset === undefined || isRecord(unset))) {
      if (this.writeHinted(id, version, { set, unset }, options)) return this.acknowledged(true);
    }
    const { filter, update } = versionedUpdateOne(id, version, set, unset);
    return (await this.genericUpdateOne(filter, update, {})).matchedCount === 1;
  }

  /**
   * writeVersioned, with the write's hint. Settled: cold at once, not 1,024 writes later. At the
   * engine's pace most hot documents were ended jobs, each a few hundred objects that every major
   * GC marked (docs/performance.md).
   */
  private writeHinted(
    id: string,
    version: number,
    { set, unset }: { set: Record<string, unknown>; unset?: Record<string, unknown> },
    options: VersionedWriteOptions,
  ): boolean {
    const write = () => this.writeVersioned(id, version, set, unset);
    return options.settled === true ? this.table.settleOnWrite(id, write) : write();
  }

  /**
   * The versioned write when versionedUpdate takes it: true once written (its acknowledgement is
   * the caller's), false for the generic path to decide. A miss (a lost compare-and-set, rare)
   * goes that way too: MongoDB checks the update's shape before it matches anything, and the
   * answer waits for a kept write that decided it.
   */
  private writeVersioned(
    id: string,
    version: number,
    set: Record<string, unknown>,
    unset: Record<string, unknown> | undefined,
  ): boolean {
    // An empty $set or $unset: MongoDB's refusal, the generic path's to make.
    if (Object.keys(set).length === 0 || (unset !== undefined && Object.keys(unset).length === 0))
      return false;
    this.expireDue();
    // A cold document (doc-map.ts) is parsed for the write, which replaces it with a new image.
    const doc = this.table.docs.peek(id);
    if (!doc || doc.version !== version) return false;
    const fast = versionedUpdate(doc, set, unset);
    if (!fast) return false;
    this.writeFast(doc, fast);
    return true;
  }

  async updateMany(filter: Filter, update: Update): Promise<UpdateResult> {
    filter = checkFilter(filter);
    assertOperatorUpdate(update);
    this.expireDue();
    const docs = this.matching(filter);
    return this.acknowledged({
      matchedCount: docs.length,
      modifiedCount: this.replace(docs, filter, update).length,
    });
  }

  async findOneAndUpdate(
    filter: Filter,
    update: Update,
    options: FindOneAndUpdateOptions = {},
  ): Promise<Doc | null> {
    filter = checkFilter(filter);
    assertOperatorUpdate(update);
    this.expireDue();
    const candidates = this.matching(filter, options.sort ? Infinity : 1, { sort: options.sort });
    const [before] = options.sort ? sortDocs(candidates, options.sort, 1) : candidates;
    let after: StoredDoc;
    if (before) {
      after = this.replace([before], filter, update)[0] ?? before;
    } else if (options.upsert) {
      after = this.upsert(filter, update);
    } else {
      return this.logged(null);
    }
    const answer = options.returnDocument === "before" ? before : after;
    if (answer && options.readOnly && this.store.machinery)
      return this.acknowledgedWith(() => deepFreeze(projectShared([answer], options.projection))[0]);
    // Copied once acknowledged: after a large write that is past the loop's next poll, so the copy
    // of a big document is not made in the write's macrotask (stored documents are never changed).
    return this.acknowledgedWith(() => (answer ? project([answer], options.projection)[0] : null));
  }

  async findOneAndDelete(filter: Filter): Promise<Doc | null> {
    filter = checkFilter(filter);
    const [doc] = this.matching(filter, 1);
    if (!doc) return this.logged(null);
    this.store.commit(this.name, { del: [doc._id] });
    return this.acknowledged(copyDoc(doc));
  }

  async deleteOne(filter: Filter): Promise<number> {
    filter = checkFilter(filter);
    return this.acknowledged(this.delete(this.matching(filter, 1)));
  }

  async deleteMany(filter: Filter): Promise<number> {
    filter = checkFilter(filter);
    return this.acknowledged(this.delete(this.matching(filter)));
  }

  /**
   * Runs `pipeline` with mingo over copies of the matching documents, fed in slices
   * (aggregate-plan.ts, `feed`); the stages that need every row at once run here over a few rows,
   * on the store's aggregation thread over more (aggregate-input.ts).
   */
  async aggregate<R extends Doc = Doc>(pipeline: Pipeline): Promise<R[]> {
    if (!Array.isArray(pipeline)) throw new TypeError("pipeline must be an array of stages");
    checkPipeline(pipeline);
    const plan = planAggregate(pipeline);
    // mingo changes input documents in place ($addFields on nested paths): it gets copies only.
    const options = {
      collectionResolver: (name: string) => {
        const other = this.store.table(name).docs;
        return [...other.coveredValues()].map((held) => other.owned(held));
      },
    };
    const rest = withMongoCount(plan.rest);
    // A stage that reads another collection ($lookup...) needs the store: it runs here.
    const inPlace = rest.length === 0 || readsOtherCollections(rest);
    const input = new RestInput(
      inPlace ? Infinity : this.store.aggregateInlineRows,
      plan.perDocument,
      options,
    );
    await this.feed(plan, input);
    const gathered = input.finish(rest);
    if ("task" in gathered) return this.logged((await this.store.aggregateApart(gathered.task)) as R[]);
    const rows = gathered.rows;
    return this.logged(rest.length ? new Aggregator(rest, options).run<R>(rows) : (rows as R[]));
  }

  /**
   * Hands `input` the documents `plan`'s `$match` finds, AGGREGATE_SLICE_DOCS at a time (where its
   * per-document stages run: aggregate-input.ts): each a copy of the members the pipeline reads (a
   * cold one's skeleton when it keeps them all), other work let in every READ_SLICE_MS as a find's
   * scan does (matchingInSlices).
   */
  private async feed(plan: AggregatePlan, input: RestInput): Promise<void> {
    const docs = this.table.docs;
    const members = plan.reads && topLevelMembers(plan.reads);
    // Cold documents whose skeletons hold every path read are tested and fed as their skeletons.
    const coverage = coverageOf(this.table, this.store.machinery, plan.reads);
    // Without a leading $match it reads every document by design: no index could serve it.
    const { test, candidates } =
      plan.match !== undefined
        ? this.scan(plan.match, { covered: EVERY_DOCUMENT }, RANGE_KEYS_IN_A_READ)
        : this.scan({}, { covered: EVERY_DOCUMENT, scan: "an aggregation over every document" });
    let slice: Doc[] = [];
    const flush = () => {
      input.add(slice);
      slice = [];
    };
    const turn = new ReadSlice();
    for (const held of candidates) {
      const fromSkeleton = coverage !== undefined && coverage(held);
      if (fromSkeleton && test && !test(held)) continue;
      const doc = docs.owned(held, members, fromSkeleton);
      if (!fromSkeleton && test && !test(doc)) continue;
      slice.push(doc);
      if (slice.length >= AGGREGATE_SLICE_DOCS) flush();
      if (turn.over) {
        flush();
        await turn.yield();
      }
    }
    flush();
  }

  /**
   * Creates the index, or nothing when it exists as declared. An index of the same name or keys
   * declared otherwise (an upgrade changed it) is replaced, in the same log line: the declared one
   * wins (docs/architecture.md#indexes, migrations). A unique index the documents break is refused
   * (DuplicateKeyError) and the old one stays.
   */
  async createIndex(spec: IndexSpec): Promise<void> {
    const named = validIndex(spec);
    const table = this.table;
    const replaced: string[] = [];
    for (const existing of table.indexes.values()) {
      const sameKeys = JSON.stringify(existing.keys) === JSON.stringify(named.keys);
      if (existing.name !== named.name && !sameKeys) continue;
      if (
        existing.name === named.name &&
        sameKeys &&
        !!existing.unique === !!named.unique &&
        existing.expireAfterSeconds === named.expireAfterSeconds
      )
        return;
      replaced.push(existing.name);
    }
    if (named.unique) {
      const clash = table.clashUnder(named);
      if (clash !== undefined) throw new DuplicateKeyError(this.name, keyObject(named, clash));
    }
    this.store.commit(this.name, { idx: named, ...(replaced.length > 0 && { dropIdx: replaced }) });
    return this.acknowledged(undefined);
  }

  /** Drops the index `name` in one log line; nothing when there is none. `_id`'s own is not an index here. */
  async dropIndex(name: string): Promise<void> {
    if (!this.table.indexes.has(name)) return;
    this.store.commit(this.name, { dropIdx: [name] });
    return this.acknowledged(undefined);
  }

  /**
   * A read's answer, once every write it may have seen is in the log: at once, but while this
   * turn's lines wait for their group write (backend.ts logged).
   */
  private logged<T>(answer: T): T | Promise<T> {
    const written = this.store.logged();
    return written ? written.then(() => answer) : answer;
  }

  /**
   * A write's answer, once the write is durable: after this turn's group write by default (one
   * writeSync for the turn's lines), after the next group flush in fsync mode, at once with the
   * machinery off (its line written already) (backend.ts).
   */
  private acknowledged<T>(answer: T): T | Promise<T> {
    const flushed = this.store.durable();
    return flushed ? flushed.then(() => answer) : answer;
  }

  /** As `acknowledged`, the answer made once the write is acknowledged. */
  private acknowledgedWith<T>(answer: () => T): T | Promise<T> {
    const flushed = this.store.durable();
    return flushed ? flushed.then(answer) : answer();
  }

  /**
   * Stored documents matching `filter`, in insertion order; `_id` equalities and equalities on
   * an index's fields, or on its leading fields, look their documents up instead of scanning
   * (table.ts candidates).
   */
  private matching(filter: Filter, limit = Infinity, plan?: QueryPlan): StoredDoc[] {
    const { test, candidates } = this.scan(filter, plan);
    const out: StoredDoc[] = [];
    for (const doc of candidates) {
      if (out.length >= limit) break;
      if (!test || test(doc)) out.push(doc);
    }
    return out;
  }

  /**
   * The documents `filter` may match (all, or those its `_id` or an index names) and its test.
   * With STORE_QUERY_SHAPES set, a query no declared index would serve is noted (query-shapes.ts).
   */
  private scan(filter: Filter, plan: QueryPlan = {}, rangeKeys = Infinity) {
    if (filter === null || typeof filter !== "object" || Array.isArray(filter)) {
      throw new TypeError("filter must be an object");
    }
    const table = this.table;
    if (this.store.queryShapes && plan.scan === undefined)
      noteQuery(this.store.queryShapes, this.name, filter, plan.sort, () => table.indexes.values());
    const docs = table.docs;
    // Documents named by `_id` are read as objects from then on; those an index or a scan passes
    // are parsed for this query alone when cold (doc-map.ts), so a wide query does not thaw them.
    // A covered read passes cold ones as their skeletons (QueryPlan.covered).
    const byId = idsOf(filter._id);
    const ids = byId ?? table.candidates(filter, rangeKeys);
    const covered = plan.covered !== undefined;
    const candidates: Iterable<StoredDoc> = ids
      ? ids.flatMap((id) => {
          const doc = byId ? docs.get(id) : covered ? docs.covered(id) : docs.peek(id);
          return doc ? [doc] : [];
        })
      : covered
        ? docs.coveredValues()
        : docs.values();
    return { test: predicateOf(filter), candidates };
  }

  /**
   * `matching` for a read (find, count), which need not see one instant of the collection: the
   * scan lets other work in (setImmediate) whenever it has held the event loop READ_SLICE_MS, so
   * one costly filter over many documents cannot stall every other caller. Writes match in one go
   * (their match and write are atomic).
   */
  private async matchingInSlices(filter: Filter, limit = Infinity, plan?: QueryPlan): Promise<StoredDoc[]> {
    const { test, candidates } = this.scan(filter, plan, RANGE_KEYS_IN_A_READ);
    const coverage = plan?.covered;
    const out: StoredDoc[] = [];
    const turn = new ReadSlice();
    for (const held of candidates) {
      if (out.length >= limit) break;
      // A skeleton its coverage does not allow is parsed here, once: resolve() then keeps it as is.
      const doc = coverage === undefined || coverage(held) ? held : this.table.docs.resolve(held);
      if (!test || test(doc)) out.push(doc);
      if (turn.over) await turn.yield();
    }
    return out;
  }

  /** Applies `update` to `docs` all-or-nothing; answers the new images of those it changed. */
  private replace(docs: StoredDoc[], filter: Filter, update: Update): StoredDoc[] {
    const changed: StoredDoc[] = [];
    const sizes: KnownSize[] = [];
    // The values fast updates wrote, while every document took the fast path (fast-update.ts).
    let written: WrittenValue[] | undefined = [];
    // What the fast updates changed, logged instead of the new images while every one is fast.
    let patches: DocPatch[] | undefined = [];
    for (const doc of docs) {
      const fast = this.store.machinery ? fastUpdate(doc, update) : undefined;
      if (fast) {
        if (fast.changed) {
          sizes.push(this.fastSize(doc, fast));
          changed.push(fast.doc);
          patches?.push({ _id: doc._id, ops: fast.patch, members: fast.members });
        }
        written?.push(...fast.written);
        continue;
      }
      written = undefined;
      patches = undefined;
      const next = applyUpdate(doc, update, filter);
      if (next.doc._id !== doc._id) {
        throw new Error("Performing an update on the path '_id' would modify the immutable field '_id'");
      }
      if (next.changed) {
        sizes.push(measuredSize(next.doc, true));
        changed.push(next.doc);
      }
    }
    if (changed.length) {
      this.table.check(this.name, changed, false);
      this.store.commit(this.name, { put: changed }, written, patches);
      this.noteSizes(changed, sizes);
    }
    return changed;
  }

  /** One document's fast update, checked and committed as `replace` commits a batch of them. */
  private writeFast(doc: StoredDoc, fast: FastUpdate): void {
    if (!fast.changed) return;
    const size = this.fastSize(doc, fast);
    const next = fast.doc;
    this.table.check(this.name, [next], false);
    this.store.commit(this.name, { put: [next] }, fast.written, [
      { _id: doc._id, ops: fast.patch, members: fast.members },
    ]);
    this.table.noteSize(next._id, size);
  }

  /**
   * A fast update's new image's size, known from the old one's and what the update wrote (a bound
   * most often, size.ts updatedSize); MongoDB's refusal past 16 MiB.
   */
  private fastSize(doc: StoredDoc, fast: FastUpdate): KnownSize {
    const known = updatedSize(this.table.knownSize(doc._id), fast.doc, fast.growth, () => exactGrowth(fast));
    if (sizeOf(known) > MAX_DOCUMENT_BYTES) throw documentTooLarge(sizeOf(known), true);
    return known;
  }

  /** Notes the sizes of the documents a write just stored, by position (size.ts). */
  private noteSizes(docs: readonly StoredDoc[], sizes: readonly KnownSize[]): void {
    for (let i = 0; i < docs.length; i++) this.table.noteSize(docs[i]._id, sizes[i]);
  }

  /** MongoDB's upsert: the filter's equalities, then $setOnInsert, then the update. */
  private upsert(filter: Filter, update: Update): StoredDoc {
    assertOperatorUpdate(update);
    const seed = equalitiesOf(filter);
    checkUpdateTarget(seed, update, true);
    if (update.$setOnInsert) applyUpdateOperators(seed, { $set: update.$setOnInsert }, undefined, {}, DEEP);
    const { $setOnInsert: _onInsert, ...rest } = update;
    if (Object.keys(rest).length) applyUpdateOperators(seed, rest, undefined, {}, DEEP);
    const doc = withId(seed);
    const size = measuredSize(doc, true);
    this.table.check(this.name, [doc], true);
    this.store.commit(this.name, { put: [doc] });
    this.table.noteSize(doc._id, size);
    return doc;
  }

  private delete(docs: StoredDoc[]): number {
    if (docs.length) this.store.commit(this.name, { del: docs.map((d) => d._id) });
    return docs.length;
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/**
 * The `$set` and `$unset` of an update of the versioned compare-and-set's shape (filter
 * `{_id: <string>, version: <number>}`, update `{$set, $inc: {version: 1}, $unset?}`), or
 * undefined for any other.
 */
function versionedShape(
  filter: Filter,
  update: Update,
): { set: Record<string, unknown>; unset?: Record<string, unknown> } | undefined {
  if (!isRecord(filter) || !isRecord(update)) return undefined;
  if (typeof filter._id !== "string" || typeof filter.version !== "number" || Number.isNaN(filter.version))
    return undefined;
  if (Object.keys(filter).length !== 2) return undefined;
  const { $set: set, $inc: inc, $unset: unset } = update as Record<string, unknown>;
  if (!isRecord(set) || !isRecord(inc) || (unset !== undefined && !isRecord(unset))) return undefined;
  if (Object.keys(update).length !== (unset === undefined ? 2 : 3)) return undefined;
  if (Object.keys(inc).length !== 1 || inc.version !== 1) return undefined;
  return { set, unset };
}

/** `doc`'s BSON size, measured, when within MongoDB's 16 MiB; MongoDB's refusal otherwise. */
function measuredSize(doc: StoredDoc, updating: boolean): KnownSize {
  const size = bsonDocumentSize(doc);
  if (size > MAX_DOCUMENT_BYTES) throw documentTooLarge(size, updating);
  return size;
}
