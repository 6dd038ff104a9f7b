/**
 * MongoBackend: the official driver. Documents keep string `_id`s: we choose them ourselves on
 * insert and upsert, because the server would otherwise invent ObjectIds.
 */
import { MongoClient, ObjectId, type Collection as DriverCollection, type Db } from "mongodb";
import {
  DuplicateKeyError,
  type Collection,
  type Doc,
  type Filter,
  type FindOneAndUpdateOptions,
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

  static async connect(url: string, dbName: string): Promise<MongoBackend> {
    const client = new MongoClient(url, { ignoreUndefined: true });
    await client.connect();
    return new MongoBackend(client, client.db(dbName));
  }

  collection<T extends Doc = Doc>(name: string): Collection<T> {
    return new MongoCollection(this.db.collection<Doc>(name)) as unknown as Collection<T>;
  }

  async ping(): Promise<void> {
    await this.db.command({ ping: 1 });
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

class MongoCollection implements Collection<Doc> {
  readonly name: string;

  constructor(private readonly coll: DriverCollection<Doc>) {
    this.name = coll.collectionName;
  }

  find(filter: Filter = {}, options: FindOptions = {}): Promise<Doc[]> {
    return this.run(async () => (await this.coll.find(filter, defined(options)).toArray()).map(plain));
  }

  findOne(filter: Filter, options: Omit<FindOptions, "skip" | "limit"> = {}): Promise<Doc | null> {
    return this.run(async () => nullablePlain(await this.coll.findOne(filter, defined(options))));
  }

  count(filter: Filter = {}): Promise<number> {
    return this.run(() => this.coll.countDocuments(filter));
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
      const res = await this.coll.updateOne(filter, upsert ? withStringId(filter, update) : update, {
        upsert,
      });
      return result(res.matchedCount, res.modifiedCount, res.upsertedId);
    });
  }

  updateMany(filter: Filter, update: Update): Promise<UpdateResult> {
    return this.run(async () => {
      const res = await this.coll.updateMany(filter, update);
      return result(res.matchedCount, res.modifiedCount, res.upsertedId);
    });
  }

  findOneAndUpdate(
    filter: Filter,
    update: Update,
    options: FindOneAndUpdateOptions = {},
  ): Promise<Doc | null> {
    const { upsert = false, returnDocument = "after", sort, projection } = options;
    return this.run(async () =>
      nullablePlain(
        await this.coll.findOneAndUpdate(filter, upsert ? withStringId(filter, update) : update, {
          ...defined({ sort, projection }),
          upsert,
          returnDocument,
          includeResultMetadata: false,
        }),
      ),
    );
  }

  findOneAndDelete(filter: Filter): Promise<Doc | null> {
    return this.run(async () =>
      nullablePlain(await this.coll.findOneAndDelete(filter, { includeResultMetadata: false })),
    );
  }

  deleteOne(filter: Filter): Promise<number> {
    return this.run(async () => (await this.coll.deleteOne(filter)).deletedCount);
  }

  deleteMany(filter: Filter): Promise<number> {
    return this.run(async () => (await this.coll.deleteMany(filter)).deletedCount);
  }

  aggregate<R extends Doc = Doc>(pipeline: Pipeline): Promise<R[]> {
    return this.run(async () => (await this.coll.aggregate<R>(pipeline).toArray()).map(plain));
  }

  createIndex(spec: IndexSpec): Promise<void> {
    return this.run(async () => {
      await this.coll.createIndex(
        spec.keys,
        defined({ name: spec.name, unique: spec.unique, expireAfterSeconds: spec.expireAfterSeconds }),
      );
    });
  }

  private async run<R>(op: () => Promise<R>): Promise<R> {
    try {
      return await op();
    } catch (err) {
      type KeyValue = Record<string, unknown>;
      const e = err as {
        code?: number;
        keyValue?: KeyValue;
        writeErrors?: { err?: { keyValue?: KeyValue } }[];
      };
      // insertMany fails as a bulk write error: the key is in its first write error.
      if (e?.code === 11000) {
        throw new DuplicateKeyError(this.name, e.keyValue ?? e.writeErrors?.[0]?.err?.keyValue ?? {});
      }
      throw err;
    }
  }
}

function withId({ _id, ...rest }: Doc): Doc {
  return { _id: _id ?? newDocumentId(), ...rest };
}

/** What the server stored (undefined dropped), not an object sharing parts with the caller's. */
function asStored(doc: Doc): Doc {
  return JSON.parse(JSON.stringify(doc)) as Doc;
}

/** Without a chosen `_id` the server would give an upserted document an ObjectId; give it a string one. */
function withStringId(filter: Filter, update: Update): Update {
  const idCond = filter._id;
  const isOperator =
    idCond !== null && typeof idCond === "object" && Object.keys(idCond).some((k) => k.startsWith("$"));
  const filterFixesId =
    idCond !== undefined &&
    (!isOperator || "$eq" in idCond || (Array.isArray(idCond.$in) && idCond.$in.length === 1));
  const updateSetsId = update.$set?._id !== undefined || update.$setOnInsert?._id !== undefined;
  if (filterFixesId || updateSetsId || Array.isArray(update)) return update;
  return { ...update, $setOnInsert: { ...update.$setOnInsert, _id: newDocumentId() } };
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

/** Drops undefined options, which the driver would otherwise send as explicit nulls/defaults. */
/** The options the driver takes: set ones only, and none of ours (`readOnly` is the embedded store's). */
function defined<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(options).filter(([k, v]) => v !== undefined && k !== "readOnly"),
  ) as Partial<T>;
}
