"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.JobStore = void 0;
exports.readTask = readTask;
exports.writableTask = writableTask;
/**
 * Job documents in the store, written with compare-and-set on `version`: a write names the version
 * it was computed from, and loses (and is recomputed on the newer document) when another writer got
 * there first. So concurrent writers — two replicas, two branches of one job, two finishTask calls —
 * never lose an update, and a decision is only ever acted on once it is stored.
 *
 * Each replica remembers the last version it wrote or read of a job (JOB_CACHE_SIZE of them) so the
 * next step of a job it is running needs no read first. The cache only saves a read: a write from a
 * stale copy fails its compare-and-set, and a decision not to write (or to refuse) made on a cached
 * copy is always re-checked on a fresh read.
 */
const objects_1 = require("../../../shared/objects");
const frozen_json_1 = require("../../../shared/frozen-json");
const text_1 = require("../../../shared/text");
const settings_1 = require("./settings");
const collections_1 = require("../collections");
class JobStore {
    store;
    cache = new Map();
    locks = new Map();
    constructor(store) {
        this.store = store;
    }
    get collection() {
        return this.store.collection(collections_1.JOBS);
    }
    /** The stored job (and it is remembered), or null. */
    async read(id) {
        const doc = await this.collection.findOne({ _id: id });
        if (doc)
            this.remember(frozenTasks(doc));
        else
            this.cache.delete(id);
        return doc;
    }
    async insert(job) {
        // JSON values only (no `undefined` members), as every backend will hold them, remembered as
        // stored (the caller's objects are never frozen). Frozen with its text: the embedded store
        // keeps it without a copy or a second serialization.
        const doc = (0, frozen_json_1.parseFrozen)(JSON.stringify(job));
        await this.collection.insertOne(doc);
        this.remember(doc);
    }
    /**
     * Applies `change` to a copy of the job and stores the result if anything changed. `change` may
     * throw to refuse (nothing is written). Answers null when the job does not exist. `fresh` reads
     * the job first instead of starting from the remembered copy (callers that answer a person).
     */
    async update(id, change, options = {}) {
        return this.exclusive(id, async () => {
            let base = options.fresh ? null : (this.cache.get(id) ?? null);
            let cached = base !== null;
            for (let attempt = 0; attempt < settings_1.MAX_WRITE_ATTEMPTS; attempt++) {
                if (!base) {
                    base = await this.read(id);
                    cached = false;
                    if (!base)
                        return null;
                }
                // The engine's largest cost per transition was copying the whole job: the draft shares
                // its tasks (frozen) until a transition changes one.
                let draft = draftOf(base);
                let result;
                try {
                    try {
                        result = change(draft);
                    }
                    catch (err) {
                        if (!writesFrozen(err))
                            throw err;
                        this.onFullCopy(err);
                        draft = (0, objects_1.copyPlain)(base);
                        result = change(draft);
                    }
                }
                catch (err) {
                    if (!cached)
                        throw err;
                    base = null; // refused on a remembered copy: check on the stored one
                    continue;
                }
                const delta = changes(base, draft);
                if (!delta) {
                    if (!cached)
                        return { before: base, job: base, result, changed: false };
                    base = null;
                    continue;
                }
                const { set, unset } = delta;
                draft.last_updated = set.last_updated = (0, text_1.nowIso)();
                draft.version = base.version + 1;
                const written = await this.collection.updateOne({ _id: id, version: base.version }, { $set: set, $inc: { version: 1 }, ...(unset && { $unset: unset }) });
                if (written.matchedCount === 1) {
                    this.remember(draft);
                    return { before: base, job: draft, result, changed: true };
                }
                this.cache.delete(id);
                base = null;
            }
            throw new Error(`job ${id}: gave up after ${settings_1.MAX_WRITE_ATTEMPTS} concurrent write conflicts`);
        });
    }
    /** A change wrote into a shared (frozen) task: a case writableTask missed. Logged, never lost. */
    onFullCopy = () => undefined;
    remember(job) {
        this.cache.delete(job._id);
        // An ended job is rarely written again (and then after a fresh read): keep the memory for live ones.
        if (job.status !== "running" && job.status !== "paused")
            return;
        this.cache.set(job._id, job);
        if (this.cache.size > settings_1.JOB_CACHE_SIZE)
            this.cache.delete(this.cache.keys().next().value);
    }
    /** One write at a time per job in this replica: spares the store writes that would only lose the race. */
    async exclusive(id, fn) {
        const previous = this.locks.get(id);
        let release;
        const mine = new Promise((resolve) => (release = resolve));
        const tail = previous ? previous.then(() => mine) : mine;
        this.locks.set(id, tail);
        if (previous)
            await previous;
        try {
            return await fn();
        }
        finally {
            release();
            if (this.locks.get(id) === tail)
                this.locks.delete(id);
        }
    }
}
exports.JobStore = JobStore;
/**
 * JSON text of the parts of jobs, by object: the remembered copy of a job is never changed (writes
 * work on a copy), so each write serializes only the new version of each part, not the old one too.
 */
const serialized = new WeakMap();
function jsonOf(value) {
    if (typeof value !== "object" || value === null)
        return JSON.stringify(value);
    // A frozen part is shared with the store, which may keep it long after this job: no text kept.
    if (Object.isFrozen(value))
        return JSON.stringify(value);
    let text = serialized.get(value);
    if (text === undefined) {
        text = JSON.stringify(value);
        serialized.set(value, text);
    }
    return text;
}
/**
 * Whether `a` and `b` are the same plain data, members in the same order: then their JSON texts
 * are equal too. False says nothing (a Date, NaN, another order): the caller compares texts.
 */
function samePlain(a, b) {
    if (a === b)
        return true;
    if (typeof a !== "object" || typeof b !== "object" || a === null || b === null)
        return false;
    if (Array.isArray(a)) {
        if (!Array.isArray(b) || a.length !== b.length)
            return false;
        for (let i = 0; i < a.length; i++)
            if (!samePlain(a[i], b[i]))
                return false;
        return true;
    }
    if (Array.isArray(b) || Object.getPrototypeOf(a) !== Object.prototype)
        return false;
    if (Object.getPrototypeOf(b) !== Object.prototype)
        return false;
    const keys = Object.keys(a);
    const others = Object.keys(b);
    if (keys.length !== others.length)
        return false;
    for (let i = 0; i < keys.length; i++) {
        const key = keys[i];
        if (key !== others[i])
            return false;
        if (!samePlain(a[key], b[key]))
            return false;
    }
    return true;
}
/**
 * A draft of `base` to change: every part copied but the tasks, which stay shared (and frozen)
 * until writableTask gives the draft its own copy of one.
 */
function draftOf(base) {
    const draft = {};
    for (const key of Object.keys(base))
        draft[key] = key === "tasks" ? { ...base.tasks } : (0, objects_1.copyPlain)(base[key]);
    return draft;
}
/**
 * The job's task `id` to look at only: own members only (an id from a transition is data, and
 * `tasks["toString"]` must not find Object.prototype's function); it may be shared and frozen.
 */
function readTask(job, id) {
    return Object.hasOwn(job.tasks, id) ? job.tasks[id] : undefined;
}
/** The draft's own, changeable copy of task `id` (own members only), or undefined when it has none. */
function writableTask(job, id) {
    const task = readTask(job, id);
    if (!task || !Object.isFrozen(task))
        return task;
    const copy = (0, objects_1.copyPlain)(task);
    (0, objects_1.setOwn)(job.tasks, id, copy);
    return copy;
}
/** The job with every task frozen: it is remembered, and drafts share its tasks. */
function frozenTasks(job) {
    for (const task of Object.values(job.tasks))
        (0, objects_1.deepFreeze)(task);
    return job;
}
/** A TypeError from writing into a frozen object (V8's words for assign, add, delete, define). */
function writesFrozen(err) {
    return (err instanceof TypeError &&
        /read.only|not extensible|Cannot (assign|add|delete|define|redefine)/i.test(err.message));
}
/**
 * JSON texts of a remembered job's tasks, by task id, so the next write compares a changed task
 * without serializing the old one again. Keyed by the job object, not the task: the store holds
 * the same (frozen) tasks, and their texts must not live as long as they do.
 */
const taskTexts = new WeakMap();
/**
 * The `$set` and `$unset` that turn `before` into `after` (JSON values: what the store will hold),
 * or null when they are the same. A member the draft deleted (or left undefined) is unset: a
 * resumed job's `deferred` must leave the store too, or a second pause would take it up again.
 * Tasks are set one by one (`tasks.<id>`): task ids are checked to be plain names when a workflow
 * is stored. A task the draft took but left as it was goes back to the
 * shared one; a changed task is kept as the store will hold it, frozen (parseFrozen), for the next
 * draft.
 */
function changes(before, after) {
    const set = {};
    let unset;
    let any = false;
    const gone = (path) => {
        (unset ??= {})[path] = "";
        any = true;
    };
    for (const key of Object.keys(before))
        if (before[key] !== undefined && (!Object.hasOwn(after, key) || after[key] === undefined))
            gone(key);
    for (const id of Object.keys(before.tasks))
        if (!Object.hasOwn(after.tasks, id))
            gone(`tasks.${id}`);
    /** The JSON text of `a` when it differs from `b` (whose text may be known), else undefined. */
    const differs = (a, b, bText) => {
        // Most parts are untouched copies: comparing them costs less than serializing them.
        if (samePlain(a, b))
            return undefined;
        const text = jsonOf(a);
        return text === undefined || text === (bText ?? jsonOf(b)) ? undefined : text;
    };
    const oldTexts = taskTexts.get(before);
    const texts = new Map();
    for (const key of Object.keys(after)) {
        if (key === "_id" || key === "version" || key === "last_updated")
            continue;
        if (key !== "tasks") {
            const text = differs(after[key], before[key]);
            if (text === undefined)
                continue;
            set[key] = JSON.parse(text);
            any = true;
            continue;
        }
        for (const id of Object.keys(after.tasks)) {
            const task = after.tasks[id] ?? null;
            const old = Object.hasOwn(before.tasks, id) ? (before.tasks[id] ?? null) : null;
            const oldText = oldTexts?.get(id);
            const text = task === old ? undefined : differs(task, old, oldText);
            if (text === undefined) {
                if (task !== old)
                    (0, objects_1.setOwn)(after.tasks, id, old);
                if (oldText !== undefined)
                    texts.set(id, oldText);
                continue;
            }
            // Frozen with its text: the store keeps it without a copy; the next draft shares it.
            const stored = (0, frozen_json_1.parseFrozen)(text);
            set[`tasks.${id}`] = stored;
            (0, objects_1.setOwn)(after.tasks, id, stored);
            texts.set(id, text);
            any = true;
        }
    }
    taskTexts.set(after, texts);
    return any ? { set, ...(unset && { unset }) } : null;
}
//# sourceMappingURL=jobs.js.map