/**
 * EmbeddedBackend: every collection lives in memory (a Map by `_id`), queried with mingo, and
 * persisted in `<dataDir>/store/` as an append-only log of JSON lines plus a periodic snapshot.
 *
 * Durability: each mutation is one log line holding post-images, written before its promise
 * resolves, so an acknowledged write survives the process being killed. By default the lines of
 * one turn of the event loop are written together (one writeSync at the end of the turn, then
 * their writes are acknowledged): a write is applied at once (the next write, in the same turn,
 * builds on it) and answered after its line is in the log; a read answers after that group write
 * too, so no answer carries a write a SIGKILL could still lose. A group write that fails leaves
 * the store failed, as a failed flush does (its writes are applied in memory but not logged).
 * PERF_MACHINERY=off writes each line at once instead.
 * With `fsync` (STORE_FSYNC) it survives power loss too, by group commit: a write is applied and
 * its line written at once (so reads see it, as MongoDB's local reads do), and its promise
 * resolves after the next fdatasync, which covers every line written before it began; one flush
 * serves every write of a burst, and it runs on libuv's thread pool, not the event loop. A flush
 * that fails leaves the store failed: every later call throws (the pages it could not write are
 * in an unknown state; only a restart, replaying the log, knows what is on disk).
 * Atomicity: every method checks and writes without an `await` in between, so within this
 * process nothing interleaves with a findOneAndUpdate.
 * A large write (a log line of LARGE_WRITE_CHARS or more) is acknowledged once the event loop has
 * polled for I/O again, as a server's answer would come: writing it and answering it (the caller's
 * copy, shaping and encoding of a document of up to 16 MiB) are then two macrotasks, not one, and
 * requests that arrived meanwhile are served in between (docs/security.md#stalls).
 */
import diagnostics from "node:diagnostics_channel";
import fs from "node:fs";
import path from "node:path";
import { boundsViolation, type InputLimits } from "../../input-bounds";
import type { Collection, Doc, Store } from "../types";
import { acquireLock, releaseLock } from "./lock";
import { Table } from "./table";
import { HOT_DOCUMENTS } from "./doc-map";
import { EmbeddedCollection } from "./collection";
import { jsonNesting, writtenWithin, type WrittenValue } from "./depth";
import { patchJson, type PatchOp } from "./fast-update";
import { PatchReplay } from "./load-replay";
import { readLogFile, type LogRead } from "./log-reader";
import { appendLines } from "./log-append";
import { frozenJsonNesting, frozenJsonText } from "../../frozen-json";
import { MAX_DOCUMENT_DEPTH, documentTooDeep } from "../rules";
import { fsyncDirectory, readSnapshot, rotatedLogPath, rotatedLogs, type LogEntry } from "./snapshot";
import type { CompactionResult } from "./compaction";
import { WorkerPool, workerEntry } from "../../worker-pool";
import { AGGREGATE_BUDGET_MS, INLINE_ROWS, type RestTask } from "./aggregate-input";
import { StoreTimeLimitError } from "../../errors";
import { afterPendingIo } from "../../event-loop";

export interface EmbeddedOptions {
  dataDir: string;
  /** Acknowledge a write only once its log line is on disk (group commit: one fdatasync per burst). */
  fsync?: boolean;
  /** Log size that triggers compaction into a snapshot, at least (more when the snapshot is larger). */
  compactBytes?: number;
  /**
   * A file to note every query no index of its collection serves in (query-shapes.ts): the
   * platform's stores in a test run (STORE_QUERY_SHAPES), not a store a test opens for itself.
   */
  queryShapes?: string;
  /**
   * The performance machinery (PERF_MACHINERY, default on): frozen JSON texts taken as they are
   * (an insert's or update's value stored without a copy, its log line from its known text), the
   * fast update path (fast-update.ts), the read cache (read-cache.ts) and frozen read-only
   * answers. Off: every value is copied and serialized, every update goes through mingo, every
   * read is answered afresh, so a differential run can hold the two to the same results.
   */
  machinery?: boolean;
  /**
   * Documents of a collection held as objects, at most: the others are held as their JSON text
   * (doc-map.ts), so that a major GC does not mark the whole store. Default HOT_DOCUMENTS (1,024);
   * with the machinery off, every document is an object.
   */
  hotDocuments?: number;
  /**
   * Rows an aggregation's one-go stages (`$group`, `$sort`, `$facet`...) take on the store's own
   * thread, at most; past them they run on its aggregation thread (aggregate-input.ts). Default
   * INLINE_ROWS (500); 0 sends every such run there (tests).
   */
  aggregateInlineRows?: number;
  /** The aggregation thread's time for one aggregation, in ms. Default AGGREGATE_BUDGET_MS (60 s). */
  aggregateBudgetMs?: number;
}

/** One document's fast update: its `_id` and the changes (PatchOp; LoggedPatchOp once read back). */
export interface DocPatch<Op = PatchOp> {
  _id: string;
  ops: Op[];
  /**
   * Held in memory only, never logged: the top-level members of the stored document the update
   * wrote (FastUpdate.members). Every other member of the new image is the old image's very value,
   * so the indexes compare only the paths that start with one of these (table.ts rekeyChanged).
   */
  members?: readonly string[];
}

/**
 * A compaction's start (`{ phase: "start", dir, seq }`, once the log is rotated) and end
 * (`{ phase: "end", dir, seq, ok }`), published for whoever subscribes by this name (the engine
 * bench's stage recorder, bench/engine/stages.ts); nothing is built when no one does.
 */
export const COMPACTION_CHANNEL = "automation-platform:store-compaction";
const compactionChannel = diagnostics.channel(COMPACTION_CHANNEL);

const DEFAULT_COMPACT_BYTES = 64 * 1024 * 1024;
/**
 * The compaction thread's time for one snapshot: far above what any store that fits in memory
 * takes (a few seconds for 100,000 jobs). Past it the thread is ended and the compaction fails
 * (the logs stay, and are replayed on load).
 */
const COMPACTION_BUDGET_MS = 10 * 60_000;
/** The compaction thread gives way to the store's own thread when the host is short of CPU. */
const COMPACTION_NICE = 10;
/**
 * A write whose log line has this many characters or more answers after the loop's next poll. A job's
 * task transition logs a few KB and answers in its own loop iteration; a 1 MB golden config node took ~50 ms of one
 * macrotask to write and answer together on a quiet machine (the stall test's bound is 100 ms).
 */
export const LARGE_WRITE_CHARS = 256 * 1024;
/** Documents per snapshot line. */

export class EmbeddedBackend implements Store {
  readonly backend = "embedded" as const;
  readonly dir: string;
  private readonly tables = new Map<string, Table>();
  private readonly collections = new Map<string, EmbeddedCollection>();
  private readonly fsync: boolean;
  /** @internal Where unindexed queries are noted (EmbeddedOptions.queryShapes). */
  readonly queryShapes?: string;
  /** @internal EmbeddedOptions.machinery. */
  readonly machinery: boolean;
  private readonly compactBytes: number;
  /** EmbeddedOptions.hotDocuments (Infinity with the machinery off). */
  private readonly hotDocuments: number;
  private readonly lockFile: string;
  private fd: number;
  private seq = 0;
  private logBytes = 0;
  private nextCompactionAt: number;
  private closed = false;
  /** The compaction under way (its snapshot written by the compaction thread: ./compaction.ts). */
  private compaction?: Promise<void>;
  /** The compaction thread, started at the first compaction and ended with the store. */
  private compactor?: WorkerPool<CompactionResult>;
  /** The aggregation thread, started by the first large aggregation and ended with the store. */
  private aggregator?: WorkerPool<Doc[]>;
  /** @internal EmbeddedOptions.aggregateInlineRows. */
  readonly aggregateInlineRows: number;
  private readonly aggregateBudgetMs: number;
  /** Rotated logs' fds, closed once no flush on them is under way. */
  private retiredFds: number[] = [];
  /** Group commit (fsync mode): the last seq known on disk, and the writes waiting for a flush. */
  private syncedSeq = 0;
  private syncWaiters: { seq: number; resolve(): void; reject(err: Error): void }[] = [];
  private syncState: "idle" | "scheduled" | "running" = "idle";
  private syncFailure?: Error;
  /** The seq of the last large write (its answer waits for the loop's next poll for I/O). */
  private largeSeq = 0;
  /**
   * Group write (default mode, machinery on): the lines applied but not yet written, and the
   * promise the writes waiting for them are acknowledged with (one for the whole group).
   */
  private readonly groupWrites: boolean;
  private unwritten: string[] = [];
  private unwrittenChars = 0;
  private groupWritten?: { promise: Promise<void>; resolve(): void; reject(err: Error): void };

  constructor(options: EmbeddedOptions) {
    this.dir = path.join(path.resolve(options.dataDir), "store");
    this.fsync = options.fsync ?? false;
    this.queryShapes = options.queryShapes;
    this.machinery = options.machinery ?? true;
    this.groupWrites = !this.fsync && this.machinery;
    this.hotDocuments = this.machinery ? (options.hotDocuments ?? HOT_DOCUMENTS) : Infinity;
    this.compactBytes = options.compactBytes ?? DEFAULT_COMPACT_BYTES;
    this.aggregateInlineRows = options.aggregateInlineRows ?? INLINE_ROWS;
    this.aggregateBudgetMs = options.aggregateBudgetMs ?? AGGREGATE_BUDGET_MS;
    this.nextCompactionAt = this.compactBytes;
    // The store holds password hashes and session ids: only its owner may read it.
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    this.lockFile = path.join(this.dir, "LOCK");
    acquireLock(this.lockFile, this.dir);
    try {
      this.fd = this.load();
    } catch (err) {
      releaseLock(this.lockFile);
      throw err;
    }
    const { snapshot } = this.paths;
    if (fs.existsSync(snapshot)) this.nextCompactionAt = this.thresholdAfter(fs.statSync(snapshot).size);
  }

  collection<T extends Doc = Doc>(name: string): Collection<T> {
    if (typeof name !== "string" || name === "")
      throw new TypeError("collection name must be a non-empty string");
    let coll = this.collections.get(name);
    if (!coll) this.collections.set(name, (coll = new EmbeddedCollection(this, name)));
    return coll as unknown as Collection<T>;
  }

  async ping(): Promise<void> {
    this.assertOpen();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.compacted();
    if (this.closed) return;
    await this.compactor?.close();
    await this.aggregator?.close();
    if (!this.syncFailure) this.writeUnwritten(); // the writes waiting for it are acknowledged
    if (this.fsync && !this.syncFailure && this.syncedSeq < this.seq) {
      fs.fdatasyncSync(this.fd); // the writes waiting for a flush are acknowledged, not dropped
      this.synced(this.seq);
    }
    this.closed = true;
    fs.closeSync(this.fd);
    this.closeRetiredFds();
    releaseLock(this.lockFile);
    this.failWaiters(new Error(`store in ${this.dir} is closed`));
  }

  /**
   * @internal Runs an aggregation's one-go stages over its serialized rows on the store's
   * aggregation thread (aggregate-input.ts), so the event loop serves others meanwhile; past the
   * thread's time budget the aggregation fails as MongoDB's does past its time limit.
   */
  async aggregateApart(task: RestTask): Promise<Doc[]> {
    this.assertOpen();
    this.aggregator ??= new WorkerPool<Doc[]>(workerEntry(__dirname, "aggregate-worker"), {
      size: 1,
      budgetMs: this.aggregateBudgetMs,
    });
    const outcome = await this.aggregator.run(task);
    if (outcome.overBudget)
      throw new StoreTimeLimitError(`The aggregation ran past its time limit of ${outcome.budgetMs} ms`);
    return outcome.result;
  }

  /**
   * @internal What a write awaits before it is acknowledged: in fsync mode, the flush of every
   * line written so far (one flush for all the writes waiting); by default, the group write of this
   * turn's lines; nothing (undefined) when every line is written already (machinery off). After a
   * large write, that and then the loop's next poll for I/O.
   */
  durable(): Promise<void> | undefined {
    const written = this.logged() ?? this.flushed();
    if (this.largeSeq !== this.seq) return written;
    this.largeSeq = 0; // once: a later call that wrote nothing pays no extra turn
    return written ? written.then(afterPendingIo) : afterPendingIo();
  }

  /** In fsync mode, the flush of every line written so far; undefined when there is none to wait for. */
  private flushed(): Promise<void> | undefined {
    if (!this.fsync || this.syncedSeq >= this.seq) return undefined;
    const seq = this.seq;
    return new Promise<void>((resolve, reject) => {
      this.syncWaiters.push({ seq, resolve, reject });
      this.scheduleSync();
    });
  }

  /**
   * @internal What a read awaits before it answers: the group write of lines it may have seen
   * (default mode), so no answer carries a write a SIGKILL could still lose; undefined when every
   * line is written. (In fsync mode reads see written lines before their flush, as MongoDB's local
   * reads do.)
   */
  logged(): Promise<void> | undefined {
    return this.unwritten.length > 0 ? this.groupWritten!.promise : undefined;
  }

  /** The next flush starts after this turn of the loop, so the writes of one turn share it. */
  private scheduleSync(): void {
    if (this.syncState !== "idle") return;
    this.syncState = "scheduled";
    setImmediate(() => this.runSync());
  }

  private runSync(): void {
    if (this.closed) return;
    this.syncState = "running";
    const upTo = this.seq;
    fs.fdatasync(this.fd, (err) => {
      this.syncState = "idle";
      this.closeRetiredFds();
      if (err) {
        this.syncFailure = err;
        this.failWaiters(new Error(`store in ${this.dir} could not flush its log: ${err.message}`));
        return;
      }
      this.synced(upTo);
      if (this.syncWaiters.length > 0) this.scheduleSync();
    });
  }

  /** Every line up to `seq` is on disk: the writes waiting for it are acknowledged. */
  private synced(seq: number): void {
    this.syncedSeq = Math.max(this.syncedSeq, seq);
    const waiting = this.syncWaiters;
    this.syncWaiters = [];
    for (const w of waiting) {
      if (w.seq <= this.syncedSeq) w.resolve();
      else this.syncWaiters.push(w);
    }
  }

  private failWaiters(err: Error): void {
    const waiting = this.syncWaiters;
    this.syncWaiters = [];
    for (const w of waiting) w.reject(err);
    const group = this.groupWritten;
    this.groupWritten = undefined;
    group?.reject(err);
  }

  /** Keeps a line for this turn's group write, which the first line of a turn schedules. */
  private appendLater(line: string): void {
    if (this.unwritten.push(line) === 1) {
      let resolve!: () => void;
      let reject!: (err: Error) => void;
      const promise = new Promise<void>((ok, fail) => ((resolve = ok), (reject = fail)));
      // Every write of the group awaits it (collection.ts acknowledged); this keeps a failure
      // from counting as unhandled should a group have no waiter left.
      promise.catch(() => undefined);
      this.groupWritten = { promise, resolve, reject };
      setImmediate(() => this.writeUnwritten());
    }
    this.unwrittenChars += line.length;
  }

  /**
   * Writes the lines kept for the group write, in one writeSync, and acknowledges their writes.
   * A failure fails them and the store (they are applied in memory, not in the log).
   */
  private writeUnwritten(): void {
    if (this.unwritten.length === 0 || this.closed || this.syncFailure) return;
    const lines = this.unwritten;
    const chars = this.unwrittenChars;
    const group = this.groupWritten!;
    this.unwritten = [];
    this.unwrittenChars = 0;
    this.groupWritten = undefined;
    try {
      this.append(lines, chars);
    } catch (err) {
      this.syncFailure = err as Error;
      const failure = new Error(`store in ${this.dir} could not flush its log: ${(err as Error).message}`);
      group.reject(failure);
      this.failWaiters(failure);
      return;
    }
    group.resolve();
  }

  /** @internal The in-memory state of one collection; created on first write. */
  table(name: string): Table {
    this.assertOpen();
    let table = this.tables.get(name);
    if (!table) this.tables.set(name, (table = new Table(this.hotDocuments)));
    return table;
  }

  /**
   * @internal Logs one mutation batch, then applies it. Callers have validated it already.
   * `written` lists every value a fast update wrote into documents already stored (so within the
   * depth bound): only those are measured, unless one of them is too deep. With `patches` (the
   * same fast updates as the new images in `change.put`), the line holds the patches: a task
   * transition logs the task it changed, not the whole job. `putTexts` are the JSON texts of the
   * puts that an insert already made (mongo.ts storedImage), by position; undefined where unknown.
   */
  commit(
    collection: string,
    change: Omit<LogEntry, "s" | "c" | "patch">,
    written?: WrittenValue[],
    patches?: DocPatch[],
    putTexts?: readonly (string | undefined)[],
  ): void {
    this.assertOpen();
    // The puts' own texts, where known: the log line is put together from them, and each
    // document keeps its text to go cold with (doc-map.ts), instead of being serialized again then.
    const texts = this.machinery && !patches ? knownPutTexts(change, putTexts) : undefined;
    const line =
      (patches
        ? patchLine(this.seq + 1, collection, patches)
        : (knownPutLine(this.seq + 1, collection, change, texts) ??
          JSON.stringify({ s: this.seq + 1, c: collection, ...change }))) + "\n";
    // All or nothing: a document the store could not read back is refused before its line is written.
    // Documents sit two levels down in the line ({put: [doc]}); no node limit applies (depth.ts).
    const { maxDepth } = STORED_DOCUMENT_LIMITS;
    const fine = written
      ? written.every((w) => writtenWithin(w, maxDepth))
      : !change.put?.length || putsWithin(change.put, line, maxDepth);
    for (const doc of fine ? [] : (change.put ?? [])) {
      const violation = boundsViolation(doc, STORED_DOCUMENT_LIMITS);
      if (violation) throw documentTooDeep(violation.path);
    }
    if (this.groupWrites) this.appendLater(line);
    else this.append([line], line.length);
    this.seq++;
    if (line.length >= LARGE_WRITE_CHARS) this.largeSeq = this.seq;
    this.applyEntry({ s: this.seq, c: collection, ...change }, texts, patches);
    const logged = this.logBytes + this.unwrittenChars;
    if (logged >= this.nextCompactionAt && !this.compaction) this.startCompaction();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error(`store in ${this.dir} is closed`);
    if (this.syncFailure)
      throw new Error(
        `store in ${this.dir} failed to flush its log (${this.syncFailure.message}): restart it`,
      );
  }

  /** Writes `lines` (`chars` UTF-16 code units in all) at the log's end, all of them or none. */
  private append(lines: readonly string[], chars: number): void {
    try {
      this.logBytes += appendLines(this.fd, lines, chars);
    } catch (err) {
      // A half-written line would glue itself to the next one: cut the log back to its last whole line.
      fs.ftruncateSync(this.fd, this.logBytes);
      throw err;
    }
  }

  /**
   * Applies a log entry's indexes, puts and deletes (its patches are the load's: ./load-replay.ts);
   * `putTexts`, by position, are its puts' JSON texts where known; `patches`, by position, the
   * fast updates that made its puts, whose `members` spare the indexes comparing the rest.
   */
  private applyEntry(
    entry: LogEntry,
    putTexts?: readonly (string | undefined)[],
    patches?: readonly DocPatch[],
  ): void {
    const table = this.table(entry.c);
    for (const name of entry.dropIdx ?? []) table.dropIndex(name);
    if (entry.idx) table.addIndex(entry.idx);
    table.apply(entry.put ?? [], entry.del ?? [], putTexts, patches);
  }

  private get paths() {
    return {
      log: path.join(this.dir, "store.log"),
      snapshot: path.join(this.dir, "snapshot.json"),
      tmp: path.join(this.dir, "snapshot.json.tmp"),
    };
  }

  /** Snapshot, then the log lines written after it; answers the log's fd, opened for appending. */
  private load(): number {
    const { log, snapshot, tmp } = this.paths;
    // A leftover temp snapshot is a compaction that died before its rename: the log still has everything.
    fs.rmSync(tmp, { force: true });
    // A store made by an older version had a 0755 folder and a 0644 snapshot: private from now on.
    tighten(this.dir, 0o700);
    if (fs.existsSync(snapshot)) tighten(snapshot, 0o600);
    if (fs.existsSync(snapshot)) this.seq = this.loadSnapshot(snapshot);
    const patches = new PatchReplay((name) => this.table(name));
    // Logs rotated by a compaction that had not finished (./snapshot.ts): older lines first.
    for (const old of rotatedLogs(this.dir)) {
      if (old.seq <= this.seq) fs.rmSync(old.file, { force: true });
      else this.replayLog(old.file, patches);
    }
    const { size, goodBytes } = fs.existsSync(log) ? this.replayLog(log, patches) : { size: 0, goodBytes: 0 };
    patches.flush();
    const fd = fs.openSync(log, "a", 0o600);
    tighten(log, 0o600); // a log made by an older version was 0644
    if (goodBytes < size) fs.ftruncateSync(fd, goodBytes);
    this.logBytes = goodBytes;
    fsyncDirectory(this.dir);
    return fd;
  }

  /**
   * Applies a log's lines the snapshot does not hold yet; answers its size and how many bytes of it
   * are whole lines. Only the last line can be torn by a crash; garbage earlier is corruption we must
   * not hide (./log-reader.ts). Patches go to `patches`, which applies each document's last image
   * when its collection is written otherwise or the caller flushes it (./load-replay.ts).
   */
  private replayLog(log: string, patches: PatchReplay): LogRead {
    return readLogFile(log, (entry) => {
      if (entry.s <= this.seq) return;
      if (entry.put?.length || entry.del?.length || entry.idx || entry.dropIdx?.length) {
        patches.flush(entry.c);
        this.applyEntry(entry);
      }
      if (entry.patch) patches.patch(entry.c, entry.s, entry.patch);
      this.seq = entry.s;
    });
  }

  /** Loads a snapshot (./snapshot.ts, readSnapshot); answers its seq. */
  private loadSnapshot(file: string): number {
    return readSnapshot(file, (name, indexes, docs, texts) => {
      const table = this.table(name);
      for (const idx of indexes) table.addIndex(idx);
      // A document that goes cold at once keeps its line's text (no serialization on open).
      table.apply(docs, [], texts);
    });
  }

  /** @internal Settles once the compaction under way, if any, has ended (tests, close). */
  async compacted(): Promise<void> {
    await this.compaction;
  }

  /**
   * Starts a compaction: rotates the log, so new writes go to a fresh file, and has the compaction
   * thread (./compaction.ts) write the snapshot as of the rotation from the files. Once it is in
   * place, the rotated logs it covers are deleted. A failure (or a compaction over its time
   * budget) leaves them (they are replayed on load) and tries again after another threshold's
   * worth of log.
   */
  private startCompaction(): void {
    const seq = this.seq;
    try {
      this.rotateLog(seq);
    } catch (err) {
      this.nextCompactionAt = this.logBytes + this.compactBytes;
      process.emitWarning(`store compaction in ${this.dir} failed: ${(err as Error).message}`);
      return;
    }
    const { tmp } = this.paths;
    if (compactionChannel.hasSubscribers) compactionChannel.publish({ phase: "start", dir: this.dir, seq });
    let ok = false;
    this.compactor ??= new WorkerPool<CompactionResult>(workerEntry(__dirname, "compaction-worker"), {
      size: 1,
      budgetMs: COMPACTION_BUDGET_MS,
      nice: COMPACTION_NICE,
    });
    this.compaction = this.compactor
      .run({ dir: this.dir, seq, tmp })
      .then((outcome) => {
        if (outcome.overBudget) throw new Error(`it ran past its budget of ${outcome.budgetMs} ms`);
        // The thread put the snapshot in place and deleted the logs it covers (compactFiles).
        this.nextCompactionAt = this.thresholdAfter(outcome.result.bytes);
        ok = true;
      })
      .catch((err: Error) => {
        fs.rmSync(tmp, { force: true });
        this.nextCompactionAt = this.logBytes + this.compactBytes;
        process.emitWarning(`store compaction in ${this.dir} failed: ${err.message}`);
      })
      .finally(() => {
        this.compaction = undefined;
        if (compactionChannel.hasSubscribers)
          compactionChannel.publish({ phase: "end", dir: this.dir, seq, ok });
      });
  }

  /**
   * The log's size (since its last rotation) that starts the next compaction, given the snapshot's:
   * the larger of the two, so a compaction's cost (the whole store) is paid once for at least as
   * many bytes of log, however much the store holds (Redis rewrites its append-only file the same
   * way, at 100 % growth). A replay on open then reads at most that much log beside the snapshot.
   */
  private thresholdAfter(snapshotBytes: number): number {
    return Math.max(this.compactBytes, snapshotBytes);
  }

  /** The log up to `seq` becomes `store.log.<seq>`; new writes go to a fresh `store.log`. */
  private rotateLog(seq: number): void {
    this.writeUnwritten(); // lines up to `seq` belong in the log the snapshot covers
    if (this.syncFailure) throw this.syncFailure;
    if (this.fsync && this.syncedSeq < seq) {
      // Writes waiting for a flush are on the old file: flush it before leaving it.
      fs.fdatasyncSync(this.fd);
      this.synced(seq);
    }
    const { log } = this.paths;
    fs.renameSync(log, rotatedLogPath(this.dir, seq));
    const fd = fs.openSync(log, "a", 0o600);
    fsyncDirectory(this.dir);
    this.retiredFds.push(this.fd);
    this.fd = fd;
    this.logBytes = 0;
    this.nextCompactionAt = this.compactBytes;
    this.closeRetiredFds();
  }

  /** A flush under way may still be on a rotated log's fd: those close once it has ended. */
  private closeRetiredFds(): void {
    if (this.syncState === "running") return;
    for (const fd of this.retiredFds.splice(0)) fs.closeSync(fd);
  }
}

/**
 * A log line of patches, put together from JSON the fast update already made (each written value's
 * text), so nothing is serialized twice: the same text JSON.stringify gives for the entry.
 */
function patchLine(seq: number, collection: string, patches: DocPatch[]): string {
  const items = patches.map(({ _id, ops }) => `{"_id":${JSON.stringify(_id)},"ops":${patchJson(ops)}}`);
  return lineOf(seq, collection, "patch", items);
}

/**
 * The JSON text of each put of `change`, by position, where known: the one the insert made
 * (`putTexts`: mongo.ts storedImage), else a frozen document's own (shared/frozen-json.ts).
 * Undefined when the change puts nothing.
 */
function knownPutTexts(
  change: Omit<LogEntry, "s" | "c">,
  putTexts: readonly (string | undefined)[] | undefined,
): (string | undefined)[] | undefined {
  const { put } = change;
  return put?.length ? put.map((doc, i) => putTexts?.[i] ?? frozenJsonText(doc)) : undefined;
}

/**
 * The line of a batch of puts whose texts are all known (knownPutTexts), put together from those
 * texts: the same text JSON.stringify gives, without serializing them again.
 */
function knownPutLine(
  seq: number,
  collection: string,
  change: Omit<LogEntry, "s" | "c">,
  texts: readonly (string | undefined)[] | undefined,
): string | undefined {
  if (!texts) return undefined;
  // Puts only (a plain object literal: no inherited members to meet).
  for (const member in change) if (member !== "put") return undefined;
  if (texts.some((text) => text === undefined)) return undefined;
  return lineOf(seq, collection, "put", texts as string[]);
}

/**
 * Whether every document of `puts` nests at most `maxDepth` levels: by the nestings their makers
 * counted (shared/frozen-json.ts adoptFrozen: the engine's new jobs) when each has one, else by a
 * scan of the log line, where documents sit two levels down (`{put: [doc]}`).
 */
function putsWithin(puts: readonly Doc[], line: string, maxDepth: number): boolean {
  for (const doc of puts) {
    const nesting = frozenJsonNesting(doc);
    if (nesting === undefined) return jsonNesting(line) - 2 <= maxDepth;
    if (nesting > maxDepth) return false;
  }
  return true;
}

/** A log line `{s, c, [member]: [items]}` from its items' JSON texts: what JSON.stringify gives. */
function lineOf(seq: number, collection: string, member: "put" | "patch", items: string[]): string {
  return `{"s":${seq},"c":${JSON.stringify(collection)},"${member}":[${items.join(",")}]}`;
}

/**
 * The deepest document the store keeps: MongoDB's 100 levels (rules.ts). Inputs are bounded at 64
 * levels (MAX_INPUT_DEPTH) where they enter; a stored document wraps them in a few levels of its
 * own (a job's variables, a task's outgoing values: at most 5), well within this. A refused write
 * is refused whole: nothing of it is logged or kept.
 */
export const STORED_DOCUMENT_LIMITS: InputLimits = {
  maxDepth: MAX_DOCUMENT_DEPTH,
  maxNodes: Number.MAX_SAFE_INTEGER,
};

/**
 * Sets a file's mode where this process may; a data folder owned by another user (a volume mounted
 * with its own owner) keeps the mode it was given there rather than stopping the store from opening.
 */
function tighten(file: string, mode: number): void {
  try {
    fs.chmodSync(file, mode);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EPERM") throw err;
  }
}
