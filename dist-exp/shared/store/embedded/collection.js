"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.EmbeddedCollection = void 0;
/** The embedded store's Collection: the store interface over one Table, every write one log line. */
const mingo_1 = require("mingo");
const fast_update_1 = require("./fast-update");
const table_1 = require("./table");
const mongo_1 = require("./mongo");
class EmbeddedCollection {
    store;
    name;
    constructor(store, name) {
        this.store = store;
        this.name = name;
    }
    get table() {
        return this.store.table(this.name);
    }
    async find(filter = {}, options = {}) {
        const skip = options.skip ?? 0;
        const end = options.limit ? skip + options.limit : undefined;
        let docs = this.matching(filter, options.sort ? Infinity : (end ?? Infinity));
        // Only a plain page (whole non-negative numbers) may stop sorting at its end; slice copes with the rest.
        const page = Number.isInteger(skip) && skip >= 0 && Number.isInteger(end) ? end : undefined;
        if (options.sort)
            docs = (0, mongo_1.sortDocs)(docs, options.sort, page);
        return (0, mongo_1.project)(docs.slice(skip, end), options.projection);
    }
    async findOne(filter, options = {}) {
        const [doc] = await this.find(filter, { ...options, limit: 1 });
        return doc ?? null;
    }
    async count(filter = {}) {
        // Everything: no need to list it first (matching still checks the filter's type).
        if (filter && typeof filter === "object" && !Array.isArray(filter) && Object.keys(filter).length === 0)
            return this.table.docs.size;
        return this.matching(filter).length;
    }
    async insertOne(doc) {
        const [inserted] = await this.insertMany([doc]);
        return inserted;
    }
    async insertMany(docs) {
        const prepared = docs.map(mongo_1.withId);
        this.table.check(this.name, prepared, true);
        // The answer is copied before the write: a failure here must leave nothing stored.
        const answer = prepared.map(mongo_1.copyDoc);
        this.store.commit(this.name, { put: prepared });
        return answer;
    }
    async updateOne(filter, update, options = {}) {
        (0, mongo_1.assertOperatorUpdate)(update);
        const [doc] = this.matching(filter, 1);
        if (doc)
            return { matchedCount: 1, modifiedCount: this.replace([doc], filter, update).length };
        if (!options.upsert)
            return { matchedCount: 0, modifiedCount: 0 };
        return { matchedCount: 0, modifiedCount: 0, upsertedId: this.upsert(filter, update)._id };
    }
    async updateMany(filter, update) {
        (0, mongo_1.assertOperatorUpdate)(update);
        const docs = this.matching(filter);
        return { matchedCount: docs.length, modifiedCount: this.replace(docs, filter, update).length };
    }
    async findOneAndUpdate(filter, update, options = {}) {
        (0, mongo_1.assertOperatorUpdate)(update);
        const candidates = this.matching(filter, options.sort ? Infinity : 1);
        const [before] = options.sort ? (0, mongo_1.sortDocs)(candidates, options.sort, 1) : candidates;
        let after;
        if (before) {
            after = this.replace([before], filter, update)[0] ?? before;
        }
        else if (options.upsert) {
            after = this.upsert(filter, update);
        }
        else {
            return null;
        }
        const answer = options.returnDocument === "before" ? before : after;
        return answer ? (0, mongo_1.project)([answer], options.projection)[0] : null;
    }
    async findOneAndDelete(filter) {
        const [doc] = this.matching(filter, 1);
        if (!doc)
            return null;
        this.store.commit(this.name, { del: [doc._id] });
        return (0, mongo_1.copyDoc)(doc);
    }
    async deleteOne(filter) {
        return this.delete(this.matching(filter, 1));
    }
    async deleteMany(filter) {
        return this.delete(this.matching(filter));
    }
    async aggregate(pipeline) {
        if (!Array.isArray(pipeline))
            throw new TypeError("pipeline must be an array of stages");
        // A leading $match can use the _id shortcut and spares cloning what it drops.
        const leadingMatch = pipeline[0] && Object.keys(pipeline[0]).length === 1 ? pipeline[0].$match : undefined;
        const input = leadingMatch ? this.matching(leadingMatch) : [...this.table.docs.values()];
        const stages = (0, mongo_1.withMongoCount)(leadingMatch ? pipeline.slice(1) : pipeline);
        // mingo changes input documents in place ($addFields on nested paths): hand it copies only
        // (stored documents are JSON, so a JSON round trip copies them, faster than structuredClone).
        const aggregator = new mingo_1.Aggregator(stages, {
            collectionResolver: (name) => [...this.store.table(name).docs.values()].map(mongo_1.copyDoc),
        });
        return aggregator.run(input.map(mongo_1.copyDoc));
    }
    async createIndex(spec) {
        const named = (0, mongo_1.validIndex)(spec);
        const table = this.table;
        for (const existing of table.indexes.values()) {
            const sameKeys = JSON.stringify(existing.keys) === JSON.stringify(named.keys);
            if (existing.name !== named.name && !sameKeys)
                continue;
            if (existing.name === named.name && sameKeys && !!existing.unique === !!named.unique)
                return;
            throw new Error(`index ${named.name} conflicts with existing index ${existing.name} on ${this.name}`);
        }
        if (named.unique) {
            const probe = new table_1.Table();
            probe.addIndex({ ...named, unique: true });
            probe.check(this.name, [...table.docs.values()], true);
        }
        this.store.commit(this.name, { idx: named });
    }
    /**
     * Stored documents matching `filter`, in insertion order; `_id` equalities and equalities on
     * every field of an index look their documents up instead of scanning.
     */
    matching(filter, limit = Infinity) {
        if (filter === null || typeof filter !== "object" || Array.isArray(filter)) {
            throw new TypeError("filter must be an object");
        }
        const table = this.table;
        const docs = table.docs;
        const ids = (0, mongo_1.idsOf)(filter._id) ?? table.candidates(filter);
        const candidates = ids
            ? ids.flatMap((id) => (docs.has(id) ? [docs.get(id)] : []))
            : docs.values();
        const test = (0, mongo_1.predicateOf)(filter);
        const out = [];
        for (const doc of candidates) {
            if (out.length >= limit)
                break;
            if (!test || test(doc))
                out.push(doc);
        }
        return out;
    }
    /** Applies `update` to `docs` all-or-nothing; answers the new images of those it changed. */
    replace(docs, filter, update) {
        const changed = [];
        // The values fast updates wrote, while every document took the fast path (fast-update.ts).
        let written = [];
        // What the fast updates changed, logged instead of the new images while every one is fast.
        let patches = [];
        for (const doc of docs) {
            const fast = (0, fast_update_1.fastUpdate)(doc, update);
            if (fast) {
                if (fast.changed) {
                    changed.push(fast.doc);
                    patches?.push({ _id: doc._id, ops: fast.patch });
                }
                written?.push(...fast.written);
                continue;
            }
            written = undefined;
            patches = undefined;
            const next = (0, mongo_1.applyUpdate)(doc, update, filter);
            if (next.doc._id !== doc._id) {
                throw new Error("Performing an update on the path '_id' would modify the immutable field '_id'");
            }
            if (next.changed)
                changed.push(next.doc);
        }
        if (changed.length) {
            this.table.check(this.name, changed, false);
            this.store.commit(this.name, { put: changed }, written, patches);
        }
        return changed;
    }
    /** MongoDB's upsert: the filter's equalities, then $setOnInsert, then the update. */
    upsert(filter, update) {
        (0, mongo_1.assertOperatorUpdate)(update);
        const seed = (0, mongo_1.equalitiesOf)(filter);
        if (update.$setOnInsert)
            (0, mingo_1.update)(seed, { $set: update.$setOnInsert }, undefined, {}, mongo_1.DEEP);
        const { $setOnInsert: _onInsert, ...rest } = update;
        if (Object.keys(rest).length)
            (0, mingo_1.update)(seed, rest, undefined, {}, mongo_1.DEEP);
        const doc = (0, mongo_1.withId)(seed);
        this.table.check(this.name, [doc], true);
        this.store.commit(this.name, { put: [doc] });
        return doc;
    }
    delete(docs) {
        if (docs.length)
            this.store.commit(this.name, { del: docs.map((d) => d._id) });
        return docs.length;
    }
}
exports.EmbeddedCollection = EmbeddedCollection;
//# sourceMappingURL=collection.js.map