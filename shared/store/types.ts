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
export type Filter = Record<string, any>;
export type Update = Record<string, any>;
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

export interface UpdateOptions {
  /** Insert a document built from the filter's equality members and the update when none matches. */
  upsert?: boolean;
}

export interface FindOneAndUpdateOptions extends UpdateOptions {
  /** Which version to answer; default "after". */
  returnDocument?: "before" | "after";
  sort?: Sort;
  projection?: Projection;
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
  find(filter?: Filter, options?: FindOptions): Promise<T[]>;
  findOne(filter: Filter, options?: Omit<FindOptions, "skip" | "limit">): Promise<T | null>;
  count(filter?: Filter, options?: CountOptions): Promise<number>;
  /** Answers the inserted document (with its `_id`). Throws DuplicateKeyError on a unique index clash. */
  insertOne(doc: Omit<T, "_id"> & { _id?: string }): Promise<T>;
  insertMany(docs: (Omit<T, "_id"> & { _id?: string })[]): Promise<T[]>;
  updateOne(filter: Filter, update: Update, options?: UpdateOptions): Promise<UpdateResult>;
  updateMany(filter: Filter, update: Update): Promise<UpdateResult>;
  /** Atomic: no other write to the matched document lands between the match and the update. */
  findOneAndUpdate(filter: Filter, update: Update, options?: FindOneAndUpdateOptions): Promise<T | null>;
  /** Atomic find-and-delete; answers the deleted document. */
  findOneAndDelete(filter: Filter): Promise<T | null>;
  deleteOne(filter: Filter): Promise<number>;
  deleteMany(filter: Filter): Promise<number>;
  aggregate<R extends Doc = Doc>(pipeline: Pipeline): Promise<R[]>;
  /** Idempotent. */
  createIndex(spec: IndexSpec): Promise<void>;
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
