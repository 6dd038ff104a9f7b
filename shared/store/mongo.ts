/**
 * MongoBackend: the official driver. Documents keep string `_id`s: we choose them ourselves on
 * insert and upsert, because the server would otherwise invent ObjectIds. The client is told the
 * settings a production deployment needs (mongoClientOptions); every filter passes rules.ts first,
 * and MongoDB's refusals become the errors the other backends throw (StoreRuleError, DuplicateKeyError).
 */
import {
  MongoClient,
  ObjectId,
  type Collection as DriverCollection,
  type Db,
  type MongoClientOptions,
  type UpdateFilter,
} from "mongodb";
import type { MongoSettings } from "../config";
import { StoreRuleError } from "../errors";
import { checkFilter, checkPipeline, documentTooLarge } from "./rules";
import {
  indexName,
  isIndexConflict,
  migrateIndex,
  MIGRATIONS_COLLECTION,
  type IndexPort,
} from "./index-migration";
import {
  DuplicateKeyError,
  type Collection,
  type Doc,
  type Filter,
  type FindOneAndUpdateOptions,
  type CountOptions,
  type FindOptions,
  type IndexSpec,
  type Pipeline,
  type Store,
  type Update,
  type UpdateOptions,
  type UpdateResult,
  newDocumentId,
} from "./types";

export class MongoBackend implements Store {
  readonly backend = "mongo" as const;

  private constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
  ) {}

  static async connect(url: string, dbName: string, options: MongoClientOptions): Promise<MongoBackend> {
    const client = new MongoClient(url, options);
    await client.connect();
    return new MongoBackend(client, client.db(dbName));
  }

  collection<T extends Doc = Doc>(name: string): Collection<T> {
    return new MongoCollection(this.db.collection<Doc>(name), this.db) as unknown as Collection<T>;
  }

  async ping(): Promise<void> {
    await this.db.command({ ping: 1 });
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

/**
 * The driver's options (docs/configuration.md#mongodb, docs/deployment.md#mongodb). They win over
 * the same options in MONGO_URL, so a connection string cannot quietly read from secondaries:
 *  - `w: "majority"` + journal: an acknowledged write survives the primary's crash and an election
 *    (the scheduler's exactly-once claim and the job store's compare-and-set rely on it);
 *  - primary reads with `majority` read concern: a read sees every write acknowledged before it,
 *    and never one an election rolls back;
 *  - every wait bounded by MONGO_TIMEOUT_MS, below REQUEST_TIMEOUT: server selection (during an
 *    election the caller gets an error, not a hang), a pooled connection, a socket read, the
 *    majority's acknowledgement (`wtimeoutMS`). Driver 7 ignores `timeoutMS` (it warns that the
 *    option "has no effect"), so the bound is made of these, and it is not handed `timeoutMS`.
 * `ignoreUndefined` drops undefined fields of documents, as the embedded store's JSON does; filters
 * never carry one (rules.ts refuses them before the driver could turn `{id: undefined}` into `{}`).
 */
export function mongoClientOptions(settings: MongoSettings): MongoClientOptions {
  const bound = settings.timeoutMs;
  return {
    ignoreUndefined: true,
    // Given both ways: the flat names are the ones that win over the connection string's.
    w: settings.writeConcern,
    journal: settings.journal,
    wtimeoutMS: bound,
    writeConcern: { w: settings.writeConcern, journal: settings.journal, wtimeoutMS: bound },
    readPreference: settings.readPreference,
    readConcernLevel: settings.readConcern,
    readConcern: { level: settings.readConcern },
    serverSelectionTimeoutMS: settings.serverSelectionTimeoutMs,
    connectTimeoutMS: Math.min(bound, settings.serverSelectionTimeoutMs),
    waitQueueTimeoutMS: bound,
    socketTimeoutMS: bound,
    maxPoolSize: settings.maxPoolSize,
    appName: settings.appName,
    retryWrites: true,
    retryReads: true,
  };
}

class MongoCollection implements Collection<Doc> {
  readonly name: string;

  constructor(
    private readonly coll: DriverCollection<Doc>,
    private readonly db: Db,
  ) {
    this.name = coll.collectionName;
  }

  find(filter: Filter = {}, options: FindOptions = {}): Promise<Doc[]> {
    return this.run(
      async () => (await this.coll.find(filter, defined(options)).toArray()).map(plain),
      filter,
    );
  }

  findOne(filter: Filter, options: Omit<FindOptions, "skip" | "limit"> = {}): Promise<Doc | null> {
    return this.run(async () => nullablePlain(await this.coll.findOne(filter, defined(options))), filter);
  }

  count(filter: Filter = {}, _options?: CountOptions): Promise<number> {
    return this.run(() => this.coll.countDocuments(filter), filter);
  }

  insertOne(doc: Doc): Promise<Doc> {
    const prepared = withId(doc);
    return this.run(async () => {
      await this.coll.insertOne(prepared);
      return asStored(prepared);
    });
  }

  insertMany(docs: Doc[]): Promise<Doc[]> {
    const prepared = docs.map(withId);
    return this.run(async () => {
      await this.coll.insertMany(prepared);
      return prepared.map(asStored);
    });
  }

  updateOne(filter: Filter, update: Update, options: UpdateOptions = {}): Promise<UpdateResult> {
    const upsert = options.upsert ?? false;
    return this.run(async () => {
      const res = await this.coll.updateOne(
        filter,
        upsert ? withStringId(filter, update) : driverUpdate(update),
        {
          upsert,
        },
      );
      return result(res.matchedCount, res.modifiedCount, res.upsertedId);
    }, filter);
  }

  updateMany(filter: Filter, update: Update): Promise<UpdateResult> {
    return this.run(async () => {
      const res = await this.coll.updateMany(filter, driverUpdate(update));
      return result(res.matchedCount, res.modifiedCount, res.upsertedId);
    }, filter);
  }

  findOneAndUpdate(
    filter: Filter,
    update: Update,
    options: FindOneAndUpdateOptions = {},
  ): Promise<Doc | null> {
    const { upsert = false, returnDocument = "after", sort, projection } = options;
    return this.run(
      async () =>
        nullablePlain(
          await this.coll.findOneAndUpdate(
            filter,
            upsert ? withStringId(filter, update) : driverUpdate(update),
            {
              ...defined({ sort, projection }),
              upsert,
              returnDocument,
              includeResultMetadata: false,
            },
          ),
        ),
      filter,
    );
  }

  findOneAndDelete(filter: Filter): Promise<Doc | null> {
    return this.run(
      async () => nullablePlain(await this.coll.findOneAndDelete(filter, { includeResultMetadata: false })),
      filter,
    );
  }

  deleteOne(filter: Filter): Promise<number> {
    return this.run(async () => (await this.coll.deleteOne(filter)).deletedCount, filter);
  }

  deleteMany(filter: Filter): Promise<number> {
    return this.run(async () => (await this.coll.deleteMany(filter)).deletedCount, filter);
  }

  aggregate<R extends Doc = Doc>(pipeline: Pipeline): Promise<R[]> {
    return this.run(
      async () => (await this.coll.aggregate<R>(pipeline).toArray()).map(plain),
      undefined,
      pipeline,
    );
  }

  /** Creates the index; one declared otherwise before (an upgrade) is migrated (index-migration.ts). */
  createIndex(spec: IndexSpec): Promise<void> {
    const named = { ...spec, name: indexName(spec) };
    const create = async (s: IndexSpec & { name: string }) => {
      await this.coll.createIndex(
        s.keys,
        defined({ name: s.name, unique: s.unique, expireAfterSeconds: s.expireAfterSeconds }),
      );
    };
    return this.run(async () => {
      try {
        await create(named);
      } catch (err) {
        if (!isIndexConflict(err)) throw err;
        await migrateIndex(this.indexPort(create), named);
      }
    });
  }

  /** Drops the index; MongoDB's IndexNotFound (27) is the index already gone (another replica dropped it). */
  dropIndex(name: string): Promise<void> {
    return this.run(async () => {
      try {
        await this.coll.dropIndex(name);
      } catch (err) {
        const code = (err as { code?: number; codeName?: string }).code;
        // 26 NamespaceNotFound: the collection itself does not exist yet.
        if (code !== 27 && code !== 26) throw err;
      }
    });
  }

  private indexPort(create: (s: IndexSpec & { name: string }) => Promise<void>): IndexPort {
    const locks = this.db.collection<{ _id: string; until: number }>(MIGRATIONS_COLLECTION);
    return {
      collectionName: this.name,
      create,
      list: async () => (await this.coll.indexes()) as { name: string; key: Record<string, unknown> }[],
      drop: async (name) => {
        await this.coll.dropIndex(name);
      },
      lock: async (id, until) => {
        try {
          await locks.insertOne({ _id: id, until });
          return true;
        } catch (err) {
          if ((err as { code?: number }).code === 11000) return false;
          throw err;
        }
      },
      takeOver: async (id, now, until) =>
        (await locks.findOneAndUpdate({ _id: id, until: { $lt: now } }, { $set: { until } })) !== null,
      unlock: async (id) => {
        await locks.deleteOne({ _id: id });
      },
    };
  }

  /** Runs `op` after rules.ts's checks of its filter or pipeline; MongoDB's refusals in our errors. */
  private async run<R>(op: () => Promise<R>, filter?: Filter, pipeline?: Pipeline): Promise<R> {
    checkFilter(filter);
    if (pipeline) checkPipeline(pipeline);
    try {
      return await op();
    } catch (err) {
      throw storeError(this.name, err);
    }
  }
}

type KeyValue = Record<string, unknown>;
interface DriverError {
  code?: number;
  codeName?: string;
  message?: string;
  keyValue?: KeyValue;
  writeErrors?: {
    code?: number;
    errmsg?: string;
    err?: { code?: number; errmsg?: string; keyValue?: KeyValue };
  }[];
}

/** MongoDB's codes the embedded store also refuses with (rules.ts), by name. */
const RULE_CODES: Record<number, string> = {
  2: "BadValue",
  14: "TypeMismatch",
  15: "Overflow",
  28: "PathNotViable",
  40: "ConflictingUpdateOperators",
  10334: "BSONObjectTooLarge",
  17419: "BSONObjectTooLarge",
  51108: "Location51108",
};

/**
 * The error a driver failure stands for: a duplicate key (E11000, in a single write or any write
 * of a bulk one) is a DuplicateKeyError, a refusal by one of MongoDB's document rules a
 * StoreRuleError; anything else (network, timeout) stays as it is.
 */
export function storeError(collection: string, err: unknown): unknown {
  const e = err as DriverError;
  if (!e || typeof e !== "object") return err;
  // A bulk write (insertMany) fails with its write errors: the first one names the cause.
  const first = Array.isArray(e.writeErrors) ? e.writeErrors[0] : undefined;
  const code = e.code ?? first?.code ?? first?.err?.code;
  if (code === 11000 || first?.code === 11000 || first?.err?.code === 11000)
    return new DuplicateKeyError(collection, e.keyValue ?? first?.err?.keyValue ?? {});
  if (typeof code === "number" && RULE_CODES[code])
    return new StoreRuleError(
      e.message ?? first?.errmsg ?? "",
      code === 17419 ? 10334 : code,
      RULE_CODES[code],
    );
  // The driver measures a document before sending it and refuses one past the server's maximum.
  if (/larger than the maximum|is too large|exceeds maximum/i.test(e.message ?? ""))
    return documentTooLarge(0, false);
  return err;
}

function withId({ _id, ...rest }: Doc): Doc {
  return { _id: _id ?? newDocumentId(), ...rest };
}

/** What the server stored (undefined dropped), not an object sharing parts with the caller's. */
function asStored(doc: Doc): Doc {
  return JSON.parse(JSON.stringify(doc)) as Doc;
}

/** Without a chosen `_id` the server would give an upserted document an ObjectId; give it a string one. */
/** The driver's own update type: ours is MongoDB's, typed more loosely per operator (`$pop`). */
const driverUpdate = (update: Update): UpdateFilter<Doc> => update as UpdateFilter<Doc>;

function withStringId(filter: Filter, update: Update): UpdateFilter<Doc> {
  const idCond = filter._id;
  const isOperator =
    idCond !== null && typeof idCond === "object" && Object.keys(idCond).some((k) => k.startsWith("$"));
  const filterFixesId =
    idCond !== undefined &&
    (!isOperator || "$eq" in idCond || (Array.isArray(idCond.$in) && idCond.$in.length === 1));
  const updateSetsId = update.$set?._id !== undefined || update.$setOnInsert?._id !== undefined;
  if (filterFixesId || updateSetsId || Array.isArray(update)) return driverUpdate(update);
  return driverUpdate({ ...update, $setOnInsert: { ...update.$setOnInsert, _id: newDocumentId() } });
}

function result(matchedCount: number, modifiedCount: number, upsertedId: unknown): UpdateResult {
  return upsertedId == null
    ? { matchedCount, modifiedCount }
    : { matchedCount, modifiedCount, upsertedId: idText(upsertedId) };
}

function idText(id: unknown): string {
  return id instanceof ObjectId ? id.toHexString() : String(id);
}

/** A document as the other backends answer it: string `_id`, no driver types at the top. */
function plain<T extends Doc>(doc: T): T {
  return doc._id instanceof ObjectId ? { ...doc, _id: doc._id.toHexString() } : doc;
}

function nullablePlain<T extends Doc>(doc: T | null): T | null {
  return doc ? plain(doc) : null;
}

/**
 * The options the driver takes: set ones only (an undefined one would go as an explicit null), and
 * none of ours (`readOnly` is the embedded store's, `scan` the index check's).
 */
const OURS = new Set(["readOnly", "scan"]);
function defined<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(options).filter(([k, v]) => v !== undefined && !OURS.has(k)),
  ) as Partial<T>;
}
