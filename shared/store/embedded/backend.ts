/**
 * EmbeddedBackend: every collection lives in memory (a Map by `_id`), queried with mingo, and
 * persisted in `<dataDir>/store/` as an append-only log of JSON lines plus a periodic snapshot.
 *
 * Durability: each mutation is one log line holding post-images, written with one writeSync
 * before its promise resolves, so an acknowledged write survives the process being killed
 * (and power loss too with `fsync`). Atomicity: every method checks and writes without an
 * `await` in between, so within this process nothing interleaves with a findOneAndUpdate.
 */
import fs from "node:fs";
import path from "node:path";
import { Aggregator, Query, update as applyUpdateOperators } from "mingo";
import { ObjectId } from "mongodb";
import { compileFilter, pathValues } from "./fast-filter";
import {
  DuplicateKeyError,
  type Collection,
  type Doc,
  type Filter,
  type FindOneAndUpdateOptions,
  type FindOptions,
  type IndexSpec,
  type Pipeline,
  type Projection,
  type Sort,
  type Store,
  type Update,
  type UpdateOptions,
  type UpdateResult,
} from "../types";

export interface EmbeddedOptions {
  dataDir: string;
  /** fdatasync after every write. */
  fsync?: boolean;
  /** Log size that triggers compaction into a snapshot. */
  compactBytes?: number;
}

type NamedIndex = IndexSpec & { name: string };
type StoredDoc = Doc & { _id: string };
interface LogEntry {
  s: number;
  c: string;
  put?: StoredDoc[];
  del?: string[];
  idx?: NamedIndex;
}
interface Snapshot {
  s: number;
  collections: Record<string, { docs: StoredDoc[]; indexes: NamedIndex[] }>;
}

const DEFAULT_COMPACT_BYTES = 64 * 1024 * 1024;
/** Lock files this process holds: a LOCK naming our own pid is stale unless it is in here. */
const locksHeldHere = new Set<string>();

export class EmbeddedBackend implements Store {
  readonly backend = "embedded" as const;
  readonly dir: string;
  private readonly tables = new Map<string, Table>();
  private readonly collections = new Map<string, EmbeddedCollection>();
  private readonly fsync: boolean;
  private readonly compactBytes: number;
  private readonly lockFile: string;
  private fd: number;
  private seq = 0;
  private logBytes = 0;
  private nextCompactionAt: number;
  private closed = false;

  constructor(options: EmbeddedOptions) {
    this.dir = path.join(path.resolve(options.dataDir), "store");
    this.fsync = options.fsync ?? false;
    this.compactBytes = options.compactBytes ?? DEFAULT_COMPACT_BYTES;
    this.nextCompactionAt = this.compactBytes;
    fs.mkdirSync(this.dir, { recursive: true });
    this.lockFile = path.join(this.dir, "LOCK");
    acquireLock(this.lockFile, this.dir);
    try {
      this.fd = this.load();
    } catch (err) {
      releaseLock(this.lockFile);
      throw err;
    }
  }

  collection<T extends Doc = Doc>(name: string): Collection<T> {
    if (typeof name !== "string" || name === "")
      throw new TypeError("collection name must be a non-empty string");
    let coll = this.collections.get(name);
    if (!coll) this.collections.set(name, (coll = new EmbeddedCollection(this, name)));
    return coll as unknown as Collection<T>;
  }

  async ping(): Promise<void> {
    this.assertOpen();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    fs.closeSync(this.fd);
    releaseLock(this.lockFile);
  }

  /** @internal The in-memory state of one collection; created on first write. */
  table(name: string): Table {
    this.assertOpen();
    let table = this.tables.get(name);
    if (!table) this.tables.set(name, (table = new Table()));
    return table;
  }

  /** @internal Logs one mutation batch, then applies it. Callers have validated it already. */
  commit(collection: string, change: Omit<LogEntry, "s" | "c">): void {
    this.assertOpen();
    const line = JSON.stringify({ s: this.seq + 1, c: collection, ...change }) + "\n";
    this.append(line);
    this.seq++;
    this.applyEntry({ s: this.seq, c: collection, ...change });
    if (this.logBytes >= this.nextCompactionAt) this.compact();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error(`store in ${this.dir} is closed`);
  }

  private append(line: string): void {
    const bytes = Buffer.from(line);
    try {
      let written = 0;
      while (written < bytes.length) written += fs.writeSync(this.fd, bytes, written);
      if (this.fsync) fs.fdatasyncSync(this.fd);
    } catch (err) {
      // A half-written line would glue itself to the next one: cut the log back to its last whole line.
      fs.ftruncateSync(this.fd, this.logBytes);
      throw err;
    }
    this.logBytes += bytes.length;
  }

  private applyEntry(entry: LogEntry): void {
    const table = this.table(entry.c);
    if (entry.idx) table.addIndex(entry.idx);
    table.apply(entry.put ?? [], entry.del ?? []);
  }

  private get paths() {
    return {
      log: path.join(this.dir, "store.log"),
      snapshot: path.join(this.dir, "snapshot.json"),
      tmp: path.join(this.dir, "snapshot.json.tmp"),
    };
  }

  /** Snapshot, then the log lines written after it; answers the log's fd, opened for appending. */
  private load(): number {
    const { log, snapshot, tmp } = this.paths;
    // A leftover temp snapshot is a compaction that died before its rename: the log still has everything.
    fs.rmSync(tmp, { force: true });
    if (fs.existsSync(snapshot)) {
      const snap = JSON.parse(fs.readFileSync(snapshot, "utf8")) as Snapshot;
      for (const [name, { docs, indexes }] of Object.entries(snap.collections)) {
        const table = this.table(name);
        for (const idx of indexes) table.addIndex(idx);
        table.apply(docs, []);
      }
      this.seq = snap.s;
    }
    const content = fs.existsSync(log) ? fs.readFileSync(log) : Buffer.alloc(0);
    let goodBytes = 0;
    let start = 0;
    while (start < content.length) {
      const end = content.indexOf(0x0a, start);
      const isLast = end === -1 || end === content.length - 1;
      const text = content.subarray(start, end === -1 ? content.length : end).toString("utf8");
      let entry: LogEntry;
      try {
        entry = JSON.parse(text) as LogEntry;
      } catch (err) {
        // Only the last line can be torn by a crash; garbage earlier is corruption we must not hide.
        if (isLast) break;
        throw new Error(`store log ${log} is corrupt at byte ${start}: ${(err as Error).message}`);
      }
      if (end === -1) break; // parseable but unterminated: never acknowledged, treat as torn
      if (entry.s > this.seq) {
        this.applyEntry(entry);
        this.seq = entry.s;
      }
      goodBytes = start = end + 1;
    }
    const fd = fs.openSync(log, "a");
    if (goodBytes < content.length) fs.ftruncateSync(fd, goodBytes);
    this.logBytes = goodBytes;
    fsyncDirectory(this.dir);
    return fd;
  }

  /** Writes every collection into a snapshot, then empties the log (its lines are all in the snapshot). */
  private compact(): void {
    const { snapshot, tmp } = this.paths;
    try {
      const snap: Snapshot = { s: this.seq, collections: {} };
      for (const [name, table] of this.tables) {
        snap.collections[name] = { docs: [...table.docs.values()], indexes: [...table.indexes.values()] };
      }
      const fd = fs.openSync(tmp, "w");
      try {
        fs.writeFileSync(fd, JSON.stringify(snap));
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(tmp, snapshot);
      fsyncDirectory(this.dir);
      // Safe to crash from here on: replay skips log lines whose seq the snapshot already holds.
      fs.ftruncateSync(this.fd, 0);
      this.logBytes = 0;
      this.nextCompactionAt = this.compactBytes;
    } catch (err) {
      // The write that triggered this is already in the log; retry after another threshold's worth.
      fs.rmSync(tmp, { force: true });
      this.nextCompactionAt = this.logBytes + this.compactBytes;
      process.emitWarning(`store compaction in ${this.dir} failed: ${(err as Error).message}`);
    }
  }
}

/** One collection's documents and indexes. Stored documents are never mutated, only replaced. */
class Table {
  readonly docs = new Map<string, StoredDoc>();
  readonly indexes = new Map<string, NamedIndex>();
  /** Per unique index: key tuple (JSON) -> `_id` of the document holding it. */
  private readonly uniqueKeys = new Map<string, Map<string, string>>();

  addIndex(spec: NamedIndex): void {
    this.indexes.set(spec.name, spec);
    if (spec.unique) {
      const keys = new Map<string, string>();
      this.uniqueKeys.set(spec.name, keys);
      for (const doc of this.docs.values()) for (const key of indexKeys(doc, spec)) keys.set(key, doc._id);
    }
  }

  /** Throws DuplicateKeyError when writing `puts` (new `_id`s when `inserting`) would break a unique index. */
  check(collection: string, puts: StoredDoc[], inserting: boolean): void {
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

  apply(puts: StoredDoc[], dels: string[]): void {
    const removed = [...dels, ...puts.map((d) => d._id)];
    for (const id of removed) {
      const old = this.docs.get(id);
      if (old) this.forEachUnique(old, (keys, key) => keys.get(key) === id && keys.delete(key));
    }
    for (const id of dels) this.docs.delete(id);
    for (const doc of puts) {
      this.docs.set(doc._id, doc);
      this.forEachUnique(doc, (keys, key) => keys.set(key, doc._id));
    }
  }

  private forEachUnique(doc: StoredDoc, fn: (keys: Map<string, string>, key: string) => unknown): void {
    for (const [name, keys] of this.uniqueKeys) {
      for (const key of indexKeys(doc, this.indexes.get(name)!)) fn(keys, key);
    }
  }
}

class EmbeddedCollection implements Collection<Doc> {
  constructor(
    private readonly store: EmbeddedBackend,
    readonly name: string,
  ) {}

  private get table(): Table {
    return this.store.table(this.name);
  }

  async find(filter: Filter = {}, options: FindOptions = {}): Promise<Doc[]> {
    const skip = options.skip ?? 0;
    const end = options.limit ? skip + options.limit : undefined;
    let docs = this.matching(filter, options.sort ? Infinity : (end ?? Infinity));
    if (options.sort) docs = sortDocs(docs, options.sort);
    return project(docs.slice(skip, end), options.projection);
  }

  async findOne(filter: Filter, options: Omit<FindOptions, "skip" | "limit"> = {}): Promise<Doc | null> {
    const [doc] = await this.find(filter, { ...options, limit: 1 });
    return doc ?? null;
  }

  async count(filter: Filter = {}): Promise<number> {
    return this.matching(filter).length;
  }

  async insertOne(doc: Doc): Promise<Doc> {
    const [inserted] = await this.insertMany([doc]);
    return inserted;
  }

  async insertMany(docs: Doc[]): Promise<Doc[]> {
    const prepared = docs.map(withId);
    this.table.check(this.name, prepared, true);
    this.store.commit(this.name, { put: prepared });
    return prepared.map((doc) => structuredClone(doc));
  }

  async updateOne(filter: Filter, update: Update, options: UpdateOptions = {}): Promise<UpdateResult> {
    assertOperatorUpdate(update);
    const [doc] = this.matching(filter, 1);
    if (doc) return { matchedCount: 1, modifiedCount: this.replace([doc], filter, update).length };
    if (!options.upsert) return { matchedCount: 0, modifiedCount: 0 };
    return { matchedCount: 0, modifiedCount: 0, upsertedId: this.upsert(filter, update)._id };
  }

  async updateMany(filter: Filter, update: Update): Promise<UpdateResult> {
    assertOperatorUpdate(update);
    const docs = this.matching(filter);
    return { matchedCount: docs.length, modifiedCount: this.replace(docs, filter, update).length };
  }

  async findOneAndUpdate(
    filter: Filter,
    update: Update,
    options: FindOneAndUpdateOptions = {},
  ): Promise<Doc | null> {
    assertOperatorUpdate(update);
    const candidates = this.matching(filter, options.sort ? Infinity : 1);
    const [before] = options.sort ? sortDocs(candidates, options.sort) : candidates;
    let after: StoredDoc;
    if (before) {
      after = this.replace([before], filter, update)[0] ?? before;
    } else if (options.upsert) {
      after = this.upsert(filter, update);
    } else {
      return null;
    }
    const answer = options.returnDocument === "before" ? before : after;
    return answer ? project([answer], options.projection)[0] : null;
  }

  async findOneAndDelete(filter: Filter): Promise<Doc | null> {
    const [doc] = this.matching(filter, 1);
    if (!doc) return null;
    this.store.commit(this.name, { del: [doc._id] });
    return structuredClone(doc);
  }

  async deleteOne(filter: Filter): Promise<number> {
    return this.delete(this.matching(filter, 1));
  }

  async deleteMany(filter: Filter): Promise<number> {
    return this.delete(this.matching(filter));
  }

  async aggregate<R extends Doc = Doc>(pipeline: Pipeline): Promise<R[]> {
    if (!Array.isArray(pipeline)) throw new TypeError("pipeline must be an array of stages");
    // A leading $match can use the _id shortcut and spares cloning what it drops.
    const leadingMatch =
      pipeline[0] && Object.keys(pipeline[0]).length === 1 ? pipeline[0].$match : undefined;
    const input = leadingMatch ? this.matching(leadingMatch) : [...this.table.docs.values()];
    const stages = withMongoCount(leadingMatch ? pipeline.slice(1) : pipeline);
    // mingo changes input documents in place ($addFields on nested paths): hand it copies only.
    const aggregator = new Aggregator(stages, {
      collectionResolver: (name) => [...this.store.table(name).docs.values()].map((d) => structuredClone(d)),
    });
    return aggregator.run<R>(input.map((d) => structuredClone(d)));
  }

  async createIndex(spec: IndexSpec): Promise<void> {
    const named = validIndex(spec);
    const table = this.table;
    for (const existing of table.indexes.values()) {
      const sameKeys = JSON.stringify(existing.keys) === JSON.stringify(named.keys);
      if (existing.name !== named.name && !sameKeys) continue;
      if (existing.name === named.name && sameKeys && !!existing.unique === !!named.unique) return;
      throw new Error(`index ${named.name} conflicts with existing index ${existing.name} on ${this.name}`);
    }
    if (named.unique) {
      const probe = new Table();
      probe.addIndex({ ...named, unique: true });
      probe.check(this.name, [...table.docs.values()], true);
    }
    this.store.commit(this.name, { idx: named });
  }

  /** Stored documents matching `filter`, in insertion order; the `_id` equality cases skip the scan. */
  private matching(filter: Filter, limit = Infinity): StoredDoc[] {
    if (filter === null || typeof filter !== "object" || Array.isArray(filter)) {
      throw new TypeError("filter must be an object");
    }
    const docs = this.table.docs;
    const ids = idsOf(filter._id);
    const candidates: Iterable<StoredDoc> = ids
      ? ids.flatMap((id) => (docs.has(id) ? [docs.get(id)!] : []))
      : docs.values();
    const test = predicateOf(filter);
    const out: StoredDoc[] = [];
    for (const doc of candidates) {
      if (out.length >= limit) break;
      if (!test || test(doc)) out.push(doc);
    }
    return out;
  }

  /** Applies `update` to `docs` all-or-nothing; answers the new images of those it changed. */
  private replace(docs: StoredDoc[], filter: Filter, update: Update): StoredDoc[] {
    const changed: StoredDoc[] = [];
    for (const doc of docs) {
      const next = applyUpdate(doc, update, filter);
      if (next._id !== doc._id) {
        throw new Error("Performing an update on the path '_id' would modify the immutable field '_id'");
      }
      if (JSON.stringify(next) !== JSON.stringify(doc)) changed.push(next);
    }
    if (changed.length) {
      this.table.check(this.name, changed, false);
      this.store.commit(this.name, { put: changed });
    }
    return changed;
  }

  /** MongoDB's upsert: the filter's equalities, then $setOnInsert, then the update. */
  private upsert(filter: Filter, update: Update): StoredDoc {
    assertOperatorUpdate(update);
    const seed = equalitiesOf(filter);
    if (update.$setOnInsert) applyUpdateOperators(seed, { $set: update.$setOnInsert }, undefined, {}, DEEP);
    const { $setOnInsert: _onInsert, ...rest } = update;
    if (Object.keys(rest).length) applyUpdateOperators(seed, rest, undefined, {}, DEEP);
    const doc = withId(seed);
    this.table.check(this.name, [doc], true);
    this.store.commit(this.name, { put: [doc] });
    return doc;
  }

  private delete(docs: StoredDoc[]): number {
    if (docs.length) this.store.commit(this.name, { del: docs.map((d) => d._id) });
    return docs.length;
  }
}

const DEEP = { cloneMode: "deep" as const };

function applyUpdate(doc: StoredDoc, update: Update, filter: Filter): StoredDoc {
  // mingo has no $setOnInsert; on a match it does nothing anyway.
  const { $setOnInsert: _onInsert, ...operators } = update;
  const next = structuredClone(doc);
  // The filter goes along so positional `$` paths resolve against the matched array element.
  if (Object.keys(operators).length) applyUpdateOperators(next, operators, undefined, filter, DEEP);
  return toJson(next);
}

function assertOperatorUpdate(update: Update): void {
  const keys = update && typeof update === "object" && !Array.isArray(update) ? Object.keys(update) : [];
  if (!keys.length || keys.some((k) => !k.startsWith("$"))) {
    throw new TypeError("update must be a non-empty document of update operators ($set, $inc, ...)");
  }
}

/** The document as it will be after a JSON round trip, so memory and log replay agree exactly. */
function toJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

function withId(doc: Doc): StoredDoc {
  if (doc === null || typeof doc !== "object" || Array.isArray(doc))
    throw new TypeError("a document must be an object");
  const { _id, ...rest } = toJson(doc);
  if (_id !== undefined && typeof _id !== "string") throw new TypeError("_id must be a string");
  return { _id: _id ?? new ObjectId().toHexString(), ...rest };
}

function idsOf(idCondition: unknown): string[] | undefined {
  if (typeof idCondition === "string") return [idCondition];
  if (!idCondition || typeof idCondition !== "object" || Array.isArray(idCondition)) return undefined;
  const ops = Object.entries(idCondition);
  if (ops.length !== 1) return undefined;
  const [op, value] = ops[0];
  if (op === "$eq" && typeof value === "string") return [value];
  if (op === "$in" && Array.isArray(value) && value.every((v) => typeof v === "string"))
    return [...new Set(value)];
  return undefined;
}

/** The fields an upsert takes from its filter: plain equalities, `$eq`, one-value `$in`, through `$and`. */
function equalitiesOf(filter: Filter, seed: Doc = {}): Doc {
  for (const [key, cond] of Object.entries(filter)) {
    if (key === "$and" && Array.isArray(cond)) cond.forEach((f) => equalitiesOf(f, seed));
    if (key.startsWith("$")) continue;
    const isOperator = cond && typeof cond === "object" && Object.keys(cond).some((k) => k.startsWith("$"));
    if (!isOperator) setPath(seed, key, cond);
    else if ("$eq" in cond) setPath(seed, key, cond.$eq);
    else if (Array.isArray(cond.$in) && cond.$in.length === 1 && Object.keys(cond).length === 1)
      setPath(seed, key, cond.$in[0]);
  }
  return seed;
}

function setPath(target: Doc, dotted: string, value: unknown): void {
  const parts = dotted.split(".");
  let node = target;
  for (const part of parts.slice(0, -1)) {
    if (node[part] === null || typeof node[part] !== "object") node[part] = {};
    node = node[part];
  }
  node[parts[parts.length - 1]] = structuredClone(value);
}

/** A deep copy of a stored document: plain JSON data, so a JSON round trip (faster than structuredClone). */
const copyDoc = (doc: Doc): Doc => JSON.parse(JSON.stringify(doc));

/**
 * A projection of plain top-level fields, all included or all excluded (`_id` either way), as a
 * function; undefined for anything else (dot paths, operators), which mingo handles.
 */
function compileProjection(projection: Projection): ((doc: Doc) => Doc) | undefined {
  const entries = Object.entries(projection);
  if (entries.some(([key, value]) => key.includes(".") || key.startsWith("$") || typeof value === "object"))
    return undefined;
  const shown = (value: unknown) => value !== 0 && value !== false;
  const hideId = projection._id !== undefined && !shown(projection._id);
  const included = new Set(
    entries.filter(([key, value]) => key !== "_id" && shown(value)).map(([key]) => key),
  );
  const excluded = new Set(
    entries.filter(([key, value]) => key !== "_id" && !shown(value)).map(([key]) => key),
  );
  if (included.size > 0 && excluded.size > 0) return undefined;
  // Fields keep the document's order, as MongoDB answers them.
  if (included.size > 0) {
    return (doc) => {
      const out: Doc = {};
      for (const key of Object.keys(doc))
        if (included.has(key) || (key === "_id" && !hideId)) out[key] = doc[key];
      return out;
    };
  }
  return (doc) => {
    const out: Doc = {};
    for (const key of Object.keys(doc))
      if (!excluded.has(key) && !(key === "_id" && hideId)) out[key] = doc[key];
    return out;
  };
}

/**
 * Copies of `docs`, projected: callers never hold the stored objects. A compiled projection picks
 * fields first and copies only what it answers; mingo gets copies, since its exclusion of a nested
 * field (`{"a.b": 0}`) deletes the field from the object it is given.
 */
function project(docs: Doc[], projection?: Projection): Doc[] {
  if (!projection || Object.keys(projection).length === 0) return docs.map(copyDoc);
  const pick = compileProjection(projection);
  if (pick) return docs.map((doc) => copyDoc(pick(doc)));
  return new Query({}, {}).find<Doc>(docs.map(copyDoc), projection).all();
}

/** The filter as a predicate: compiled when it is a common shape, mingo otherwise; none for `{}`. */
function predicateOf(filter: Filter): ((doc: Doc) => boolean) | undefined {
  if (Object.keys(filter).length === 0) return undefined;
  const compiled = compileFilter(filter);
  if (compiled) return compiled;
  const query = new Query(filter, {});
  return (doc) => query.test(doc);
}

/** Index key tuples of a document as JSON; a missing field indexes as null, like MongoDB. */
function indexKeys(doc: Doc, spec: IndexSpec): string[] {
  let tuples: unknown[][] = [[]];
  for (const field of Object.keys(spec.keys)) {
    const values = pathValues(doc, field.split("."));
    const choices = values.length ? values : [null];
    tuples = tuples.flatMap((t) => choices.map((v) => [...t, v]));
  }
  return [...new Set(tuples.map((t) => JSON.stringify(t)))];
}

function keyObject(spec: IndexSpec, key: string): Record<string, unknown> {
  const values = JSON.parse(key) as unknown[];
  return Object.fromEntries(Object.keys(spec.keys).map((field, i) => [field, values[i]]));
}

function validIndex(spec: IndexSpec): NamedIndex {
  const entries = Object.entries(spec?.keys ?? {});
  if (!entries.length || entries.some(([, dir]) => dir !== 1 && dir !== -1)) {
    throw new TypeError("index keys must map field paths to 1 or -1");
  }
  const name = spec.name ?? entries.map(([field, dir]) => `${field}_${dir}`).join("_");
  return { keys: { ...spec.keys }, ...(spec.unique ? { unique: true } : {}), name };
}

/** BSON comparison order for JSON values: null < numbers < strings < objects < arrays < booleans. */
function compareValues(a: unknown, b: unknown): number {
  const rank = (v: unknown) =>
    v === null || v === undefined
      ? 0
      : typeof v === "number"
        ? 1
        : typeof v === "string"
          ? 2
          : Array.isArray(v)
            ? 4
            : typeof v === "object"
              ? 3
              : 5;
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  if (ra === 4 || ra === 3) {
    const ea = ra === 4 ? (a as unknown[]) : Object.entries(a as Doc).flat();
    const eb = ra === 4 ? (b as unknown[]) : Object.entries(b as Doc).flat();
    for (let i = 0; i < Math.min(ea.length, eb.length); i++) {
      const c = compareValues(ea[i], eb[i]);
      if (c) return c;
    }
    return Math.sign(ea.length - eb.length);
  }
  return a === b || ra === 0 ? 0 : (a as number) < (b as number) ? -1 : 1;
}

/**
 * MongoDB's sort, which mingo gets wrong for arrays: an array sorts by its smallest element
 * ascending and its largest descending; a missing field sorts as null. Ties keep insertion order.
 */
function sortDocs<T extends Doc>(docs: T[], sort: Sort): T[] {
  const fields = Object.entries(sort);
  const sortKey = (doc: T, field: string, dir: number) => {
    const values = pathValues(doc, field.split("."));
    return values.length ? values.reduce((best, v) => (compareValues(v, best) * dir < 0 ? v : best)) : null;
  };
  return docs
    .map((doc) => ({ doc, keys: fields.map(([field, dir]) => sortKey(doc, field, dir)) }))
    .sort((a, b) => {
      for (let i = 0; i < fields.length; i++) {
        const c = compareValues(a.keys[i], b.keys[i]) * fields[i][1];
        if (c) return c;
      }
      return 0;
    })
    .map((entry) => entry.doc);
}

/** mingo answers `[{count: 0}]` for `$count` on nothing; MongoDB answers no document. Use MongoDB's own expansion. */
function withMongoCount(pipeline: Pipeline): Pipeline {
  return pipeline.flatMap((stage) => {
    if (typeof stage.$count === "string") {
      return [{ $group: { _id: null, [stage.$count]: { $sum: 1 } } }, { $project: { _id: 0 } }];
    }
    if (stage.$facet && typeof stage.$facet === "object") {
      const facets = Object.entries(stage.$facet as Record<string, Pipeline>);
      return [{ $facet: Object.fromEntries(facets.map(([name, sub]) => [name, withMongoCount(sub)])) }];
    }
    if (Array.isArray(stage.$lookup?.pipeline)) {
      return [{ $lookup: { ...stage.$lookup, pipeline: withMongoCount(stage.$lookup.pipeline) } }];
    }
    return [stage];
  });
}

function acquireLock(file: string, dir: string): void {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: "wx" });
      locksHeldHere.add(file);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    let holder = NaN;
    try {
      holder = Number(fs.readFileSync(file, "utf8").trim());
    } catch {
      continue; // removed between our attempts: try again
    }
    if (isAlive(holder, file)) throw new Error(`store in ${dir} is held by process ${holder}`);
    fs.rmSync(file, { force: true }); // stale: its process died without closing
  }
  throw new Error(`store in ${dir} is held by another process (lock ${file} keeps reappearing)`);
}

function isAlive(pid: number, lockFile: string): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  // Our own pid in the file is from an earlier life in a container (pid 1 again) unless we hold it now.
  if (pid === process.pid) return locksHeldHere.has(lockFile);
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function releaseLock(file: string): void {
  locksHeldHere.delete(file);
  try {
    if (fs.readFileSync(file, "utf8").trim() === String(process.pid)) fs.rmSync(file);
  } catch {
    /* already gone */
  }
}

/** Makes a rename or file creation in `dir` durable. */
function fsyncDirectory(dir: string): void {
  const fd = fs.openSync(dir, "r");
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
