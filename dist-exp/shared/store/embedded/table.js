"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.Table = void 0;
/** One collection of the embedded store in memory: documents by `_id`, indexes, unique keys. */
const objects_1 = require("../../objects");
const types_1 = require("../types");
const mongo_1 = require("./mongo");
/** One collection's documents and indexes. Stored documents are never mutated, only replaced. */
class Table {
    docs = new Map();
    indexes = new Map();
    /** Per unique index: key tuple (JSON) -> `_id` of the document holding it. */
    uniqueKeys = new Map();
    /** Per other index: key tuple (JSON) -> `_id`s of the documents holding it. */
    sharedKeys = new Map();
    /** Insertion rank of each document, so index hits come back in the order a scan would give. */
    rank = new Map();
    nextRank = 0;
    addIndex(spec) {
        this.indexes.set(spec.name, spec);
        if (spec.unique) {
            const keys = new Map();
            this.uniqueKeys.set(spec.name, keys);
            for (const doc of this.docs.values())
                for (const key of (0, mongo_1.indexKeys)(doc, spec))
                    keys.set(key, doc._id);
        }
        else {
            this.sharedKeys.set(spec.name, new Map());
            for (const doc of this.docs.values())
                this.indexShared(spec.name, doc);
        }
    }
    /**
     * The `_id`s, in insertion order, of the only documents that can match `filter`, when it pins
     * every field of an index to scalars; undefined when no index serves it (the caller scans).
     */
    candidates(filter) {
        let found;
        for (const spec of this.indexes.values()) {
            const keys = pinnedKeys(filter, spec);
            if (!keys)
                continue;
            const ids = this.lookup(spec.name, keys);
            if (found === undefined || ids.length < found.length)
                found = ids;
            if (found.length <= 1)
                break;
        }
        return found;
    }
    /** The `_id`s, in insertion order, of the documents holding one of `keys` in the index `name`. */
    lookup(name, keys) {
        const unique = this.uniqueKeys.get(name);
        const ids = new Set();
        for (const key of keys) {
            if (unique) {
                const id = unique.get(key);
                if (id !== undefined)
                    ids.add(id);
            }
            else
                for (const id of this.sharedKeys.get(name)?.get(key) ?? [])
                    ids.add(id);
        }
        return ids.size < 2 ? [...ids] : [...ids].sort((a, b) => this.rank.get(a) - this.rank.get(b));
    }
    /** Throws DuplicateKeyError when writing `puts` (new `_id`s when `inserting`) would break a unique index. */
    check(collection, puts, inserting) {
        const batchIds = new Set();
        for (const doc of puts) {
            if (inserting && (this.docs.has(doc._id) || batchIds.has(doc._id))) {
                throw new types_1.DuplicateKeyError(collection, { _id: doc._id });
            }
            batchIds.add(doc._id);
        }
        for (const [name, owners] of this.uniqueKeys) {
            const spec = this.indexes.get(name);
            const claimed = new Map();
            for (const doc of puts) {
                for (const key of (0, mongo_1.indexKeys)(doc, spec)) {
                    const claimant = claimed.get(key);
                    const owner = owners.get(key);
                    // An owner that is itself rewritten in this batch only clashes if its new image claims the key too.
                    const clash = (claimant !== undefined && claimant !== doc._id) ||
                        (owner !== undefined && owner !== doc._id && !batchIds.has(owner));
                    if (clash)
                        throw new types_1.DuplicateKeyError(collection, (0, mongo_1.keyObject)(spec, key));
                    claimed.set(key, doc._id);
                }
            }
        }
    }
    apply(puts, dels) {
        const removed = [...dels, ...puts.map((d) => d._id)];
        for (const id of removed) {
            const old = this.docs.get(id);
            if (!old)
                continue;
            this.forEachUnique(old, (keys, key) => keys.get(key) === id && keys.delete(key));
            for (const name of this.sharedKeys.keys())
                this.indexShared(name, old, true);
        }
        for (const id of dels) {
            this.docs.delete(id);
            this.rank.delete(id);
        }
        for (const doc of puts) {
            // A rewrite keeps its Map position, so its rank; a new `_id` goes last, as in `docs`.
            if (!this.docs.has(doc._id))
                this.rank.set(doc._id, this.nextRank++);
            this.docs.set(doc._id, doc);
            this.forEachUnique(doc, (keys, key) => keys.set(key, doc._id));
            for (const name of this.sharedKeys.keys())
                this.indexShared(name, doc);
        }
    }
    forEachUnique(doc, fn) {
        for (const [name, keys] of this.uniqueKeys) {
            for (const key of (0, mongo_1.indexKeys)(doc, this.indexes.get(name)))
                fn(keys, key);
        }
    }
    /** Adds (or removes) `doc` under each of its keys in the non-unique index `name`. */
    indexShared(name, doc, remove = false) {
        const keys = this.sharedKeys.get(name);
        for (const key of (0, mongo_1.indexKeys)(doc, this.indexes.get(name))) {
            let ids = keys.get(key);
            if (remove) {
                ids?.delete(doc._id);
                if (ids?.size === 0)
                    keys.delete(key);
            }
            else {
                if (!ids)
                    keys.set(key, (ids = new Set()));
                ids.add(doc._id);
            }
        }
    }
}
exports.Table = Table;
const isScalar = (v) => typeof v === "string" || typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v));
/**
 * The index key tuples (as indexKeys writes them) that a document matching `filter` must hold,
 * when the filter's own members pin each of the index's fields to scalars (`v`, `{$eq: v}`,
 * `{$in: [...]}`). A match on `field: v` means some value the path reaches is `v`, and indexKeys
 * keys the document under every value each path reaches, so a match always holds one of these.
 * Null (it matches a missing field too), arrays, objects and numeric path segments are left to a scan.
 */
function pinnedKeys(filter, spec) {
    let tuples = [[]];
    for (const field of Object.keys(spec.keys)) {
        if (!Object.hasOwn(filter, field) || field.split(".").some((p) => /^\d+$/.test(p)))
            return undefined;
        const cond = filter[field];
        const only = (0, objects_1.isPlainObject)(cond) ? Object.keys(cond) : [];
        const values = isScalar(cond)
            ? [cond]
            : only.length === 1 && only[0] === "$eq" && isScalar(cond.$eq)
                ? [cond.$eq]
                : only.length === 1 && only[0] === "$in" && Array.isArray(cond.$in) && cond.$in.every(isScalar)
                    ? cond.$in
                    : undefined;
        if (!values)
            return undefined;
        tuples = tuples.flatMap((t) => values.map((v) => [...t, v]));
        if (tuples.length > 1000)
            return undefined; // a scan is cheaper than that many lookups
    }
    return tuples.map((t) => JSON.stringify(t));
}
//# sourceMappingURL=table.js.map