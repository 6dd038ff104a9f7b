/**
 * The one store interface every service uses. Filters, updates, sorts, projections and
 * aggregation pipelines are MongoDB documents; each backend gives them MongoDB's meaning:
 *  - MongoBackend: the official driver against a MongoDB server (production).
 *  - EmbeddedBackend: mingo in memory + an append-only log in DATA_DIR (the default).
 *  - RemoteBackend: the embedded store served by the `store` service over the bus, so several
 *    processes share one store where no MongoDB exists.
 * Documents carry a string `_id` (24-hex ObjectId text unless the caller chose one).
 */
import { Errors } from "moleculer";
import { ObjectId } from "mongodb";

/** A fresh document id, in the form every backend gives (24-hex ObjectId text), for a caller that needs it before the insert. */
export function newDocumentId(): string {
  return new ObjectId().toHexString();
}

export type Doc = Record<string, any>;

/** A dotted path into a document (`"metrics.start_time"`, `"tasks.abc.status"`): checked by the backends, not by types. */
type DottedPath = `${string}.${string}`;

/** A field's value in a filter: its own type, or (an array field) one of its elements, as MongoDB matches it. */
type FieldValue<V> = V | (V extends readonly (infer E)[] ? E : never);

/** What one field of a filter may hold: its value, or MongoDB's operators on it. */
export type Condition<V> =
  | FieldValue<V>
  | {
      $eq?: FieldValue<V>;
      $ne?: FieldValue<V> | null;
      $in?: readonly unknown[];
      $nin?: readonly unknown[];
      $gt?: FieldValue<V>;
      $gte?: FieldValue<V>;
      $lt?: FieldValue<V>;
      $lte?: FieldValue<V>;
      $exists?: boolean;
      $regex?: string | RegExp;
      $options?: string;
      $elemMatch?: Doc;
      $all?: readonly unknown[];
      $size?: number;
      $not?: Doc | RegExp;
      $type?: string | number;
    }
  | null;

/**
 * A filter over documents of type `T`: a field of `T` takes a value of its type or operators on it;
 * dotted paths and `$and`/`$or`/`$nor`/`$expr` are MongoDB's (the backends check them). `Filter`
 * without a type is a filter over any document: for filters a client writes (job search), which
 * only the backends can check.
 */
export type Filter<T extends Doc = Doc> = { [K in keyof T & string]?: Condition<T[K]> } & {
  [path: DottedPath]: unknown;
  $and?: Filter<T>[];
  $or?: Filter<T>[];
  $nor?: Filter<T>[];
  $expr?: Doc;
};

/** Field values for `$set`/`$setOnInsert`: a field of `T` takes its type; a dotted path any value. */
export type FieldValues<T extends Doc> = { [K in keyof T & string]?: T[K] } & { [path: DottedPath]: unknown };

/**
 * An update of documents of type `T`, MongoDB's operators. `$set` of a field of `T` takes its type;
 * the other operators name fields or paths and are checked by the backends (MongoDB's errors:
 * TypeMismatch, PathNotViable, conflicting paths: shared/store/rules.ts).
 */
export type Update<T extends Doc = Doc> = {
  $set?: FieldValues<T>;
  $setOnInsert?: FieldValues<T>;
  $unset?: Doc;
  $inc?: Record<string, number>;
  $min?: Doc;
  $max?: Doc;
  $push?: Doc;
  $addToSet?: Doc;
  $pull?: Doc;
  $pullAll?: Doc;
  $pop?: Record<string, 1 | -1>;
  $rename?: Record<string, string>;
  $currentDate?: Doc;
  $mul?: Record<string, number>;
};

/** An update as the backends read it: operator by operator, untyped (only inside shared/store and tests that build updates at random). */
export type RawUpdate = Record<string, any>;
export type Sort = Record<string, 1 | -1>;
export type Projection = Record<string, 0 | 1 | boolean>;
export type Pipeline = Record<string, any>[];

export interface FindOptions {
  sort?: Sort;
  skip?: number;
  limit?: number;
  projection?: Projection;
  /**
   * The caller will not change the answer (it hands it on as it is, e.g. as an HTTP answer): the
   * embedded store may then answer with documents it shares with its read cache, frozen, instead
   * of copies. Other backends answer fresh documents either way.
   */
  readOnly?: boolean;
  /**
   * Why this query may read the collection without an index serving it (a client's own filter
   * fields, which no index plan can foresee). The index check (embedded/query-shapes.ts) accepts it
   * then; without it, a query no declared index serves fails the test run.
   */
  scan?: string;
}

export interface CountOptions {
  /** As FindOptions.scan: why this count may read without an index serving it. */
  scan?: string;
}

export interface UpdateOptions extends WriteHints {
  /** Insert a document built from the filter's equality members and the update when none matches. */
  upsert?: boolean;
  // `settled` (WriteHints) on an updateOne: the embedded store honours it where the
  // update is a versioned compare-and-set's (versionedUpdateOne's shape), which is how the hint
  // crosses the bus to the store node (remote.ts); every other update, and every other backend,
  // ignores it.
}

export interface FindOneAndUpdateOptions extends UpdateOptions {
  /** Which version to answer; default "after". */
  returnDocument?: "before" | "after";
  sort?: Sort;
  projection?: Projection;
  /**
   * As FindOptions.readOnly: the caller will not change the answer, so the embedded store may
   * answer the stored document itself, frozen, instead of a copy (a node of 10,000 spec lines is
   * not copied to be answered). Other backends answer a fresh document either way.
   */
  readOnly?: boolean;
}

/**
 * Collection.updateVersioned as a generic updateOne: the filter and update every backend runs when
 * it has no versioned write of its own (one home for the shape the fast path also recognizes).
 */
export function versionedUpdateOne(
  id: string,
  version: number,
  set: Record<string, unknown>,
  unset?: Record<string, "">,
): { filter: Filter; update: Update } {
  return {
    filter: { _id: id, version },
    update: { $set: set, $inc: { version: 1 }, ...(unset && { $unset: unset }) },
  };
}

/**
 * Collection.updateVersioned done through `collection`'s generic updateOne (versionedUpdateOne's
 * shape), the hint in its options: for a collection without a versioned write of its own, or one
 * whose own is this (the remote store: the store node's embedded store takes the shape its fast way).
 */
export async function updateVersionedAsUpdateOne(
  collection: Pick<Collection<any>, "updateOne">,
  id: string,
  version: number,
  set: Record<string, unknown>,
  unset?: Record<string, "">,
  options?: VersionedWriteOptions,
): Promise<boolean> {
  const { filter, update } = versionedUpdateOne(id, version, set, unset);
  const hint = options?.settled === true ? { settled: true } : undefined;
  return (await collection.updateOne(filter, update, hint)).matchedCount === 1;
}

/** Hints for a write: they change no answer, only what a backend keeps at hand. */
export interface WriteHints {
  /**
   * The document, as written, will rarely be read or written again soon (an ended job): a backend
   * that keeps its recent documents as objects (the embedded store's hot documents, doc-map.ts)
   * may hold this one as its text at once, instead of after its next 1,024 writes. Others ignore it.
   */
  settled?: boolean;
}

/** Hints for Collection.updateVersioned: they change no answer, only what a write carries or keeps. */
export interface VersionedWriteOptions extends WriteHints {
  /**
   * The document at `version` as the caller holds it (its values as stored): the remote store then
   * sends, for an object set over an object, only the members that changed (member-writes.ts).
   * Never sent; others ignore it.
   */
  before?: Doc;
}

export interface UpdateResult {
  matchedCount: number;
  modifiedCount: number;
  upsertedId?: string;
}

export interface IndexSpec {
  keys: Record<string, 1 | -1>;
  unique?: boolean;
  name?: string;
  /**
   * An expiry (TTL) index, MongoDB's: on one field holding a Date, a document is removed once that
   * time plus this many seconds has passed. MongoDB removes them in its background pass (about a
   * minute); the embedded store, which keeps a Date as its ISO text (epoch ms work too), removes
   * them before any write to the collection, at most once a second. Reads must still compare the
   * time themselves: a document may outlive its expiry for that long.
   */
  expireAfterSeconds?: number;
}

export interface Collection<T extends Doc = Doc> {
  readonly name: string;
  find(filter?: Filter<T>, options?: FindOptions): Promise<T[]>;
  findOne(filter: Filter<T>, options?: Omit<FindOptions, "skip" | "limit">): Promise<T | null>;
  count(filter?: Filter<T>, options?: CountOptions): Promise<number>;
  /** Answers the inserted document (with its `_id`). Throws DuplicateKeyError on a unique index clash. */
  insertOne(doc: Omit<T, "_id"> & { _id?: string }): Promise<T>;
  insertMany(docs: (Omit<T, "_id"> & { _id?: string })[]): Promise<T[]>;
  updateOne(filter: Filter<T>, update: Update<T>, options?: UpdateOptions): Promise<UpdateResult>;
  updateMany(filter: Filter<T>, update: Update<T>): Promise<UpdateResult>;
  /**
   * Optional (a backend may lack it, and a wrapper may leave it out: callers then send the
   * updateOne below). The same as
   * `updateOne({_id: id, version}, {$set: set, $inc: {version: 1}, $unset: unset})` answering
   * whether it matched, for the compare-and-set of a versioned document (the engine's jobs), done
   * without the generic update's checks and parsing where the backend can (the embedded store).
   */
  updateVersioned?(
    id: string,
    version: number,
    set: Record<string, unknown>,
    unset?: Record<string, "">,
    options?: VersionedWriteOptions,
  ): Promise<boolean>;
  /** Atomic: no other write to the matched document lands between the match and the update. */
  findOneAndUpdate(
    filter: Filter<T>,
    update: Update<T>,
    options?: FindOneAndUpdateOptions,
  ): Promise<T | null>;
  /** Atomic find-and-delete; answers the deleted document. */
  findOneAndDelete(filter: Filter<T>): Promise<T | null>;
  deleteOne(filter: Filter<T>): Promise<number>;
  deleteMany(filter: Filter<T>): Promise<number>;
  aggregate<R extends Doc = Doc>(pipeline: Pipeline): Promise<R[]>;
  /** Idempotent. */
  createIndex(spec: IndexSpec): Promise<void>;
  /** Drops the index named `name`; nothing when there is none (idempotent: every replica may call it). */
  dropIndex(name: string): Promise<void>;
}

export interface Store {
  readonly backend: "embedded" | "mongo" | "remote";
  collection<T extends Doc = Doc>(name: string): Collection<T>;
  /** Resolves when the backend answers; rejects otherwise (used by /ready). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A write broke a unique index (MongoDB's E11000, single writes and bulk ones alike). Services
 * turn it into a 409 of their own words; one they do not catch still answers 409 CONFLICT, naming
 * the key's fields, never its values.
 */
export class DuplicateKeyError extends Errors.MoleculerClientError {
  constructor(
    public readonly collection: string,
    public readonly key: Record<string, unknown>,
  ) {
    super(
      `A document with the same ${Object.keys(key).join(", ") || "unique key"} already exists in ${collection}`,
      409,
      "CONFLICT",
    );
    this.name = "DuplicateKeyError";
  }
}
