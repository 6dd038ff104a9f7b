"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.ensureTagIndexes = ensureTagIndexes;
exports.createTag = createTag;
exports.listTags = listTags;
exports.deleteTag = deleteTag;
exports.attachTag = attachTag;
exports.detachTag = detachTag;
const errors_1 = require("../../shared/errors");
const search_registry_1 = require("../../shared/search-registry");
const types_1 = require("../../shared/store/types");
const text_1 = require("../../shared/text");
const find_1 = require("./find");
const TAG_FIELDS = { _id: 1, name: 1, description: 1 };
async function ensureTagIndexes(store) {
    await store.collection("tags").createIndex({ keys: { nameKey: 1 }, unique: true });
}
async function createTag(store, input, createdBy) {
    const tag = { name: input.name, description: input.description ?? "" };
    try {
        const stored = await store.collection("tags").insertOne({
            ...tag,
            nameKey: input.name.toLowerCase(),
            created: (0, text_1.nowIso)(),
            createdBy: createdBy ?? null,
        });
        return { _id: stored._id, ...tag };
    }
    catch (err) {
        if (err instanceof types_1.DuplicateKeyError)
            throw new errors_1.ConflictError(`Tag '${input.name}' already exists`);
        throw err;
    }
}
async function listTags(store) {
    const tags = await store
        .collection("tags")
        .find({}, { projection: TAG_FIELDS, sort: { nameKey: 1, _id: 1 } });
    return tags.map((t) => ({ _id: t._id, name: t.name, description: t.description ?? "" }));
}
/**
 * Deletes the tag, then pulls its id from every searchable collection. Should a pull fail half way,
 * the leftover ids name no tag: search and attach answers leave unknown ids out.
 */
async function deleteTag(store, id) {
    const tag = await store.collection("tags").findOneAndDelete({ _id: id });
    if (!tag)
        throw new errors_1.NotFoundError("Tag", id);
    let detached = 0;
    for (const { collection } of search_registry_1.SEARCHABLES) {
        const result = await store.collection(collection).updateMany({ tags: id }, { $pull: { tags: id } });
        detached += result.modifiedCount;
    }
    return { status: "OK", message: `Tag '${tag.name}' deleted; detached from ${detached} object(s)` };
}
/** Adds the tag to the object's `tags` (once). Unknown tag or object: 404, nothing written. */
async function attachTag(store, target) {
    const tag = await store.collection("tags").findOne({ _id: target.tagId }, { projection: { _id: 1 } });
    if (!tag)
        throw new errors_1.NotFoundError("Tag", target.tagId);
    return setTags(store, target, { $addToSet: { tags: target.tagId } }, true);
}
/** Removes the tag from the object's `tags`; removing one it does not carry changes nothing. */
async function detachTag(store, target) {
    return setTags(store, target, { $pull: { tags: target.tagId } }, false);
}
async function setTags(store, target, update, adding) {
    const entry = (0, search_registry_1.searchableOf)(target.collection); // the contract's enum allows registry names only
    const collection = store.collection(entry.collection);
    const doc = await collection.findOne({ _id: target.objectId }, { projection: { _id: 1, tags: 1 } });
    if (!doc)
        throw new errors_1.NotFoundError(entry.noun, target.objectId);
    if (!Array.isArray(doc.tags)) {
        // Nothing to detach; and an object written without a tags list starts from an empty one.
        if (!adding)
            return { collection: entry.collection, objectId: target.objectId, tags: [] };
        await collection.updateOne({ _id: target.objectId }, { $set: { tags: [] } });
    }
    const after = await collection.findOneAndUpdate({ _id: target.objectId }, update, {
        projection: { _id: 1, tags: 1 },
    });
    if (!after)
        throw new errors_1.NotFoundError(entry.noun, target.objectId); // deleted meanwhile
    const ids = after.tags.filter((t) => typeof t === "string");
    return {
        collection: entry.collection,
        objectId: target.objectId,
        tags: (0, find_1.expandTags)(ids, await (0, find_1.tagsById)(store, ids)),
    };
}
//# sourceMappingURL=tags.js.map