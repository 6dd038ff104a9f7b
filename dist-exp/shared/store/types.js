"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.DuplicateKeyError = void 0;
exports.newDocumentId = newDocumentId;
/**
 * The one store interface every service uses. Filters, updates, sorts, projections and
 * aggregation pipelines are MongoDB documents; each backend gives them MongoDB's meaning:
 *  - MongoBackend: the official driver against a MongoDB server (production).
 *  - EmbeddedBackend: mingo in memory + an append-only log in DATA_DIR (the default).
 *  - RemoteBackend: the embedded store served by the `store` service over the bus, so several
 *    processes share one store where no MongoDB exists.
 * Documents carry a string `_id` (24-hex ObjectId text unless the caller chose one).
 */
const mongodb_1 = require("mongodb");
/** A fresh document id, in the form every backend gives (24-hex ObjectId text), for a caller that needs it before the insert. */
function newDocumentId() {
    return new mongodb_1.ObjectId().toHexString();
}
/** A write broke a unique index. Services turn it into 409 CONFLICT. */
class DuplicateKeyError extends Error {
    collection;
    key;
    constructor(collection, key) {
        super(`duplicate key in ${collection}: ${JSON.stringify(key)}`);
        this.collection = collection;
        this.key = key;
        this.name = "DuplicateKeyError";
    }
}
exports.DuplicateKeyError = DuplicateKeyError;
//# sourceMappingURL=types.js.map