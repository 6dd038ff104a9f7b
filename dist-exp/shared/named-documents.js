"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.namedDocuments = namedDocuments;
exports.ensureNameIndex = ensureNameIndex;
/**
 * Documents a user names (adapters, repository configurations, profiles): one collection, a unique
 * key, 409 when the name is taken, 404 when it is not there. One home for that rule, so every
 * named resource answers the same way (docs/architecture.md).
 */
const errors_1 = require("./errors");
const types_1 = require("./store/types");
/**
 * `label` names the resource in messages ("Adapter 'x' not found"); `key` is the field that holds
 * the name (`name`, or `_id` where the name is the id).
 */
function namedDocuments(store, collectionName, label, key = "name") {
    const collection = store.collection(collectionName);
    const nameOf = (doc) => String(doc[key]);
    return {
        collection,
        async insert(doc) {
            try {
                return await collection.insertOne(doc);
            }
            catch (err) {
                if (err instanceof types_1.DuplicateKeyError)
                    throw new errors_1.ConflictError(`${label} '${nameOf(doc)}' already exists`);
                throw err;
            }
        },
        list: () => collection.find({}, { sort: { [key]: 1 } }),
        async get(name) {
            const doc = await collection.findOne({ [key]: name });
            if (!doc)
                throw new errors_1.NotFoundError(label, name);
            return doc;
        },
        async remove(name) {
            const doc = await collection.findOneAndDelete({ [key]: name });
            if (!doc)
                throw new errors_1.NotFoundError(label, name);
            return doc;
        },
    };
}
/** The unique index on the name field; `name` is unique even where `_id` is the key (profiles). */
async function ensureNameIndex(store, collectionName) {
    await store.collection(collectionName).createIndex({ keys: { name: 1 }, unique: true });
}
//# sourceMappingURL=named-documents.js.map