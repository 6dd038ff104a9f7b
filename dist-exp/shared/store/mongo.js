"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.MongoBackend = void 0;
/**
 * MongoBackend: the official driver. Documents keep string `_id`s: we choose them ourselves on
 * insert and upsert, because the server would otherwise invent ObjectIds.
 */
const mongodb_1 = require("mongodb");
const types_1 = require("./types");
class MongoBackend {
    client;
    db;
    backend = "mongo";
    constructor(client, db) {
        this.client = client;
        this.db = db;
    }
    static async connect(url, dbName) {
        const client = new mongodb_1.MongoClient(url, { ignoreUndefined: true });
        await client.connect();
        return new MongoBackend(client, client.db(dbName));
    }
    collection(name) {
        return new MongoCollection(this.db.collection(name));
    }
    async ping() {
        await this.db.command({ ping: 1 });
    }
    async close() {
        await this.client.close();
    }
}
exports.MongoBackend = MongoBackend;
class MongoCollection {
    coll;
    name;
    constructor(coll) {
        this.coll = coll;
        this.name = coll.collectionName;
    }
    find(filter = {}, options = {}) {
        return this.run(async () => (await this.coll.find(filter, defined(options)).toArray()).map(plain));
    }
    findOne(filter, options = {}) {
        return this.run(async () => nullablePlain(await this.coll.findOne(filter, defined(options))));
    }
    count(filter = {}) {
        return this.run(() => this.coll.countDocuments(filter));
    }
    insertOne(doc) {
        const prepared = withId(doc);
        return this.run(async () => {
            await this.coll.insertOne(prepared);
            return asStored(prepared);
        });
    }
    insertMany(docs) {
        const prepared = docs.map(withId);
        return this.run(async () => {
            await this.coll.insertMany(prepared);
            return prepared.map(asStored);
        });
    }
    updateOne(filter, update, options = {}) {
        const upsert = options.upsert ?? false;
        return this.run(async () => {
            const res = await this.coll.updateOne(filter, upsert ? withStringId(filter, update) : update, {
                upsert,
            });
            return result(res.matchedCount, res.modifiedCount, res.upsertedId);
        });
    }
    updateMany(filter, update) {
        return this.run(async () => {
            const res = await this.coll.updateMany(filter, update);
            return result(res.matchedCount, res.modifiedCount, res.upsertedId);
        });
    }
    findOneAndUpdate(filter, update, options = {}) {
        const { upsert = false, returnDocument = "after", sort, projection } = options;
        return this.run(async () => nullablePlain(await this.coll.findOneAndUpdate(filter, upsert ? withStringId(filter, update) : update, {
            ...defined({ sort, projection }),
            upsert,
            returnDocument,
            includeResultMetadata: false,
        })));
    }
    findOneAndDelete(filter) {
        return this.run(async () => nullablePlain(await this.coll.findOneAndDelete(filter, { includeResultMetadata: false })));
    }
    deleteOne(filter) {
        return this.run(async () => (await this.coll.deleteOne(filter)).deletedCount);
    }
    deleteMany(filter) {
        return this.run(async () => (await this.coll.deleteMany(filter)).deletedCount);
    }
    aggregate(pipeline) {
        return this.run(async () => (await this.coll.aggregate(pipeline).toArray()).map(plain));
    }
    createIndex(spec) {
        return this.run(async () => {
            await this.coll.createIndex(spec.keys, defined({ name: spec.name, unique: spec.unique }));
        });
    }
    async run(op) {
        try {
            return await op();
        }
        catch (err) {
            const e = err;
            // insertMany fails as a bulk write error: the key is in its first write error.
            if (e?.code === 11000) {
                throw new types_1.DuplicateKeyError(this.name, e.keyValue ?? e.writeErrors?.[0]?.err?.keyValue ?? {});
            }
            throw err;
        }
    }
}
function withId({ _id, ...rest }) {
    return { _id: _id ?? (0, types_1.newDocumentId)(), ...rest };
}
/** What the server stored (undefined dropped), not an object sharing parts with the caller's. */
function asStored(doc) {
    return JSON.parse(JSON.stringify(doc));
}
/** Without a chosen `_id` the server would give an upserted document an ObjectId; give it a string one. */
function withStringId(filter, update) {
    const idCond = filter._id;
    const isOperator = idCond !== null && typeof idCond === "object" && Object.keys(idCond).some((k) => k.startsWith("$"));
    const filterFixesId = idCond !== undefined &&
        (!isOperator || "$eq" in idCond || (Array.isArray(idCond.$in) && idCond.$in.length === 1));
    const updateSetsId = update.$set?._id !== undefined || update.$setOnInsert?._id !== undefined;
    if (filterFixesId || updateSetsId || Array.isArray(update))
        return update;
    return { ...update, $setOnInsert: { ...update.$setOnInsert, _id: (0, types_1.newDocumentId)() } };
}
function result(matchedCount, modifiedCount, upsertedId) {
    return upsertedId == null
        ? { matchedCount, modifiedCount }
        : { matchedCount, modifiedCount, upsertedId: idText(upsertedId) };
}
function idText(id) {
    return id instanceof mongodb_1.ObjectId ? id.toHexString() : String(id);
}
/** A document as the other backends answer it: string `_id`, no driver types at the top. */
function plain(doc) {
    return doc._id instanceof mongodb_1.ObjectId ? { ...doc, _id: doc._id.toHexString() } : doc;
}
function nullablePlain(doc) {
    return doc ? plain(doc) : null;
}
/** Drops undefined options, which the driver would otherwise send as explicit nulls/defaults. */
function defined(options) {
    return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
}
//# sourceMappingURL=mongo.js.map