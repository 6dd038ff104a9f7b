"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.DocumentShapeError = exports.STORED_DOCUMENT_LIMITS = exports.EmbeddedBackend = void 0;
/**
 * EmbeddedBackend: every collection lives in memory (a Map by `_id`), queried with mingo, and
 * persisted in `<dataDir>/store/` as an append-only log of JSON lines plus a periodic snapshot.
 *
 * Durability: each mutation is one log line holding post-images, written with one writeSync
 * before its promise resolves, so an acknowledged write survives the process being killed
 * (and power loss too with `fsync`). Atomicity: every method checks and writes without an
 * `await` in between, so within this process nothing interleaves with a findOneAndUpdate.
 */
const node_fs_1 = __importDefault(require("node:fs"));
const node_path_1 = __importDefault(require("node:path"));
const input_bounds_1 = require("../../input-bounds");
const lock_1 = require("./lock");
const table_1 = require("./table");
const collection_1 = require("./collection");
const depth_1 = require("./depth");
const fast_update_1 = require("./fast-update");
const frozen_json_1 = require("../../frozen-json");
const DEFAULT_COMPACT_BYTES = 64 * 1024 * 1024;
/** Documents per snapshot line. */
const SNAPSHOT_CHUNK = 500;
/** Buffered line writes to a file descriptor: one writeSync per few MiB, not per line. */
class LineWriter {
    fd;
    pending = [];
    size = 0;
    constructor(fd) {
        this.fd = fd;
    }
    line(value) {
        const text = JSON.stringify(value) + "\n";
        this.pending.push(text);
        this.size += text.length;
        if (this.size >= 4 * 1024 * 1024)
            this.flush();
    }
    flush() {
        if (this.pending.length === 0)
            return;
        node_fs_1.default.writeSync(this.fd, this.pending.join(""));
        this.pending = [];
        this.size = 0;
    }
}
/** Calls `fn` with each newline-terminated or final line of `content`, decoded one at a time. */
function forEachLine(content, fn) {
    let start = 0;
    let index = 0;
    while (start < content.length) {
        const end = content.indexOf(0x0a, start);
        const stop = end === -1 ? content.length : end;
        if (stop > start)
            fn(content.subarray(start, stop).toString("utf8"), index++);
        start = stop + 1;
    }
}
class EmbeddedBackend {
    backend = "embedded";
    dir;
    tables = new Map();
    collections = new Map();
    fsync;
    compactBytes;
    lockFile;
    fd;
    seq = 0;
    logBytes = 0;
    nextCompactionAt;
    closed = false;
    constructor(options) {
        this.dir = node_path_1.default.join(node_path_1.default.resolve(options.dataDir), "store");
        this.fsync = options.fsync ?? false;
        this.compactBytes = options.compactBytes ?? DEFAULT_COMPACT_BYTES;
        this.nextCompactionAt = this.compactBytes;
        // The store holds password hashes and session ids: only its owner may read it.
        node_fs_1.default.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
        this.lockFile = node_path_1.default.join(this.dir, "LOCK");
        (0, lock_1.acquireLock)(this.lockFile, this.dir);
        try {
            this.fd = this.load();
        }
        catch (err) {
            (0, lock_1.releaseLock)(this.lockFile);
            throw err;
        }
    }
    collection(name) {
        if (typeof name !== "string" || name === "")
            throw new TypeError("collection name must be a non-empty string");
        let coll = this.collections.get(name);
        if (!coll)
            this.collections.set(name, (coll = new collection_1.EmbeddedCollection(this, name)));
        return coll;
    }
    async ping() {
        this.assertOpen();
    }
    async close() {
        if (this.closed)
            return;
        this.closed = true;
        node_fs_1.default.closeSync(this.fd);
        (0, lock_1.releaseLock)(this.lockFile);
    }
    /** @internal The in-memory state of one collection; created on first write. */
    table(name) {
        this.assertOpen();
        let table = this.tables.get(name);
        if (!table)
            this.tables.set(name, (table = new table_1.Table()));
        return table;
    }
    /**
     * @internal Logs one mutation batch, then applies it. Callers have validated it already.
     * `written` lists every value a fast update wrote into documents already stored (so within the
     * depth bound): only those are measured, unless one of them is too deep. With `patches` (the
     * same fast updates as the new images in `change.put`), the line holds the patches: a task
     * transition logs the task it changed, not the whole job.
     */
    commit(collection, change, written, patches) {
        this.assertOpen();
        const line = (patches
            ? patchLine(this.seq + 1, collection, patches)
            : (knownPutLine(this.seq + 1, collection, change) ??
                JSON.stringify({ s: this.seq + 1, c: collection, ...change }))) + "\n";
        // All or nothing: a document the store could not read back is refused before its line is written.
        // Documents sit two levels down in the line ({put: [doc]}); no node limit applies (depth.ts).
        const { maxDepth } = exports.STORED_DOCUMENT_LIMITS;
        const fine = written
            ? written.every((w) => (0, depth_1.writtenWithin)(w, maxDepth))
            : !change.put?.length || (0, depth_1.jsonNesting)(line) - 2 <= maxDepth;
        for (const doc of fine ? [] : (change.put ?? [])) {
            const violation = (0, input_bounds_1.boundsViolation)(doc, exports.STORED_DOCUMENT_LIMITS);
            if (violation)
                throw new DocumentShapeError(collection, `nests deeper than ${violation.limit} levels at '${violation.path}'`);
        }
        this.append(line);
        this.seq++;
        this.applyEntry({ s: this.seq, c: collection, ...change });
        if (this.logBytes >= this.nextCompactionAt)
            this.compact();
    }
    assertOpen() {
        if (this.closed)
            throw new Error(`store in ${this.dir} is closed`);
    }
    append(line) {
        const bytes = Buffer.from(line);
        try {
            let written = 0;
            while (written < bytes.length)
                written += node_fs_1.default.writeSync(this.fd, bytes, written);
            if (this.fsync)
                node_fs_1.default.fdatasyncSync(this.fd);
        }
        catch (err) {
            // A half-written line would glue itself to the next one: cut the log back to its last whole line.
            node_fs_1.default.ftruncateSync(this.fd, this.logBytes);
            throw err;
        }
        this.logBytes += bytes.length;
    }
    applyEntry(entry) {
        const table = this.table(entry.c);
        if (entry.idx)
            table.addIndex(entry.idx);
        table.apply(entry.put ?? [], entry.del ?? []);
        if (entry.patch) {
            const images = entry.patch.map(({ _id, ops }) => {
                const doc = table.docs.get(_id);
                // The log is replayed in order, so the patched document is there; anything else is corruption.
                if (!doc)
                    throw new Error(`store log line ${entry.s} patches ${entry.c}/${_id}, which does not exist`);
                return (0, fast_update_1.replayPatch)(doc, ops);
            });
            table.apply(images, []);
        }
    }
    get paths() {
        return {
            log: node_path_1.default.join(this.dir, "store.log"),
            snapshot: node_path_1.default.join(this.dir, "snapshot.json"),
            tmp: node_path_1.default.join(this.dir, "snapshot.json.tmp"),
        };
    }
    /** Snapshot, then the log lines written after it; answers the log's fd, opened for appending. */
    load() {
        const { log, snapshot, tmp } = this.paths;
        // A leftover temp snapshot is a compaction that died before its rename: the log still has everything.
        node_fs_1.default.rmSync(tmp, { force: true });
        // A store made by an older version had a 0755 folder and a 0644 snapshot: private from now on.
        tighten(this.dir, 0o700);
        if (node_fs_1.default.existsSync(snapshot))
            tighten(snapshot, 0o600);
        if (node_fs_1.default.existsSync(snapshot))
            this.seq = this.loadSnapshot(snapshot);
        const content = node_fs_1.default.existsSync(log) ? node_fs_1.default.readFileSync(log) : Buffer.alloc(0);
        let goodBytes = 0;
        let start = 0;
        while (start < content.length) {
            const end = content.indexOf(0x0a, start);
            const isLast = end === -1 || end === content.length - 1;
            const text = content.subarray(start, end === -1 ? content.length : end).toString("utf8");
            let entry;
            try {
                entry = JSON.parse(text);
            }
            catch (err) {
                // Only the last line can be torn by a crash; garbage earlier is corruption we must not hide.
                if (isLast)
                    break;
                throw new Error(`store log ${log} is corrupt at byte ${start}: ${err.message}`);
            }
            if (end === -1)
                break; // parseable but unterminated: never acknowledged, treat as torn
            if (entry.s > this.seq) {
                this.applyEntry(entry);
                this.seq = entry.s;
            }
            goodBytes = start = end + 1;
        }
        const fd = node_fs_1.default.openSync(log, "a", 0o600);
        tighten(log, 0o600); // a log made by an older version was 0644
        if (goodBytes < content.length)
            node_fs_1.default.ftruncateSync(fd, goodBytes);
        this.logBytes = goodBytes;
        fsyncDirectory(this.dir);
        return fd;
    }
    /**
     * Loads a snapshot; answers its seq. The snapshot is JSON lines: a header `{s, format}`, then per
     * collection its indexes `{c, idx}` and its documents in chunks `{c, docs}`. One line per chunk,
     * never one string for the whole store: a string has a length limit (about 512 MiB), which a
     * store of some 100,000 jobs passes. A snapshot of an older version is one JSON object.
     */
    loadSnapshot(file) {
        const content = node_fs_1.default.readFileSync(file);
        let seq = 0;
        forEachLine(content, (text, index) => {
            const entry = JSON.parse(text);
            if (index === 0) {
                seq = entry.s ?? 0;
                // The older format: everything in this one object.
                for (const [name, { docs, indexes }] of Object.entries(entry.collections ?? {})) {
                    const table = this.table(name);
                    for (const idx of indexes)
                        table.addIndex(idx);
                    table.apply(docs, []);
                }
                return;
            }
            const table = this.table(entry.c);
            for (const idx of entry.idx ?? [])
                table.addIndex(idx);
            if (entry.docs)
                table.apply(entry.docs, []);
        });
        return seq;
    }
    /** Writes every collection into a snapshot, then empties the log (its lines are all in the snapshot). */
    compact() {
        const { snapshot, tmp } = this.paths;
        try {
            const fd = node_fs_1.default.openSync(tmp, "w", 0o600);
            try {
                const out = new LineWriter(fd);
                out.line({ s: this.seq, format: "lines" });
                for (const [name, table] of this.tables) {
                    out.line({ c: name, idx: [...table.indexes.values()] });
                    let chunk = [];
                    for (const doc of table.docs.values()) {
                        chunk.push(doc);
                        if (chunk.length === SNAPSHOT_CHUNK) {
                            out.line({ c: name, docs: chunk });
                            chunk = [];
                        }
                    }
                    if (chunk.length > 0)
                        out.line({ c: name, docs: chunk });
                }
                out.flush();
                node_fs_1.default.fsyncSync(fd);
            }
            finally {
                node_fs_1.default.closeSync(fd);
            }
            node_fs_1.default.renameSync(tmp, snapshot);
            fsyncDirectory(this.dir);
            // Safe to crash from here on: replay skips log lines whose seq the snapshot already holds.
            node_fs_1.default.ftruncateSync(this.fd, 0);
            this.logBytes = 0;
            this.nextCompactionAt = this.compactBytes;
        }
        catch (err) {
            // The write that triggered this is already in the log; retry after another threshold's worth.
            node_fs_1.default.rmSync(tmp, { force: true });
            this.nextCompactionAt = this.logBytes + this.compactBytes;
            process.emitWarning(`store compaction in ${this.dir} failed: ${err.message}`);
        }
    }
}
exports.EmbeddedBackend = EmbeddedBackend;
/**
 * A log line of patches, put together from JSON the fast update already made (each written value's
 * text), so nothing is serialized twice: the same text JSON.stringify gives for the entry.
 */
function patchLine(seq, collection, patches) {
    const items = patches.map(({ _id, ops }) => `{"_id":${JSON.stringify(_id)},"ops":${(0, fast_update_1.patchJson)(ops)}}`);
    return lineOf(seq, collection, "patch", items);
}
/**
 * The line of a batch of puts whose documents all carry their JSON text (shared/frozen-json.ts),
 * put together from those texts: the same text JSON.stringify gives, without serializing them again.
 */
function knownPutLine(seq, collection, change) {
    const { put, ...rest } = change;
    if (!put?.length || Object.keys(rest).length > 0)
        return undefined;
    const texts = put.map(frozen_json_1.frozenJsonText);
    if (texts.some((text) => text === undefined))
        return undefined;
    return lineOf(seq, collection, "put", texts);
}
/** A log line `{s, c, [member]: [items]}` from its items' JSON texts: what JSON.stringify gives. */
function lineOf(seq, collection, member, items) {
    return `{"s":${seq},"c":${JSON.stringify(collection)},"${member}":[${items.join(",")}]}`;
}
/** Makes a rename or file creation in `dir` durable. */
function fsyncDirectory(dir) {
    const fd = node_fs_1.default.openSync(dir, "r");
    try {
        node_fs_1.default.fsyncSync(fd);
    }
    finally {
        node_fs_1.default.closeSync(fd);
    }
}
/**
 * The deepest document the store keeps. Inputs are bounded at 64 levels (MAX_INPUT_DEPTH) where
 * they enter; a stored document wraps them in a few levels of its own (a job's variables, a task's
 * outgoing values), well within this.
 */
exports.STORED_DOCUMENT_LIMITS = { maxDepth: 200, maxNodes: Number.MAX_SAFE_INTEGER };
/** A write the store refuses whole: nothing of it is logged or kept. */
class DocumentShapeError extends Error {
    constructor(collection, what) {
        super(`refused a document for ${collection}: it ${what}`);
        this.name = "DocumentShapeError";
    }
}
exports.DocumentShapeError = DocumentShapeError;
/**
 * Sets a file's mode where this process may; a data folder owned by another user (a volume mounted
 * with its own owner) keeps the mode it was given there rather than stopping the store from opening.
 */
function tighten(file, mode) {
    try {
        node_fs_1.default.chmodSync(file, mode);
    }
    catch (err) {
        if (err.code !== "EPERM")
            throw err;
    }
}
//# sourceMappingURL=backend.js.map