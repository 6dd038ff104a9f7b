/**
 * The embedded store's files (backend.ts): the log's lines, the snapshot's format, its writer.
 *
 * A compaction used to rewrite every collection on the store's own thread: synchronously at first
 * (about 24 µs per stored job of 6 KB, over a second with 50,000 jobs), then a chunk per turn of
 * the event loop, which still cost that thread the whole store's serialization every 64 MiB of log
 * (docs/performance-rounds.md, ninth round). Now the log is rotated (the current file becomes
 * `store.log.<seq>`, new writes go to a fresh `store.log`) and a worker thread makes the snapshot
 * as of that seq from the files alone (./compaction.ts): the last snapshot and the rotated logs,
 * replayed. Once the snapshot is renamed into place, the rotated logs it covers are deleted. A
 * crash at any point leaves a snapshot and the logs after it: load() replays the rotated logs,
 * oldest first, then `store.log`, skipping lines the snapshot already holds.
 */
import fs from "node:fs";
import path from "node:path";
import type { NamedIndex, StoredDoc } from "./table";
import type { LoggedPatchOp } from "./fast-update";

/** One line of the log: a write of collection `c` at seq `s`. */
export interface LogEntry {
  s: number;
  c: string;
  put?: StoredDoc[];
  del?: string[];
  idx?: NamedIndex;
  /** Indexes an index migration replaces (dropped before `idx` is added). */
  dropIdx?: string[];
  /** Fast updates, logged as what they changed instead of whole new images (fast-update.ts). */
  patch?: { _id: string; ops: LoggedPatchOp[] }[];
}

/** The older snapshot format (one JSON object); the loader still reads it. */
interface OneObjectSnapshot {
  s: number;
  collections: Record<string, { docs: StoredDoc[]; indexes: NamedIndex[] }>;
}

/** Calls `fn` with each newline-terminated or final line of `content`, decoded one at a time. */
function forEachLine(content: Buffer, fn: (text: string, index: number) => void): void {
  let start = 0;
  let index = 0;
  while (start < content.length) {
    const end = content.indexOf(0x0a, start);
    const stop = end === -1 ? content.length : end;
    if (stop > start) fn(content.subarray(start, stop).toString("utf8"), index++);
    start = stop + 1;
  }
}

/**
 * Reads a snapshot's `content`: `onTable` gets each collection's indexes and documents, in the
 * order written (a collection may come in several calls, its documents in chunks); answers its
 * seq. The snapshot is JSON lines: a header `{s, format}`, then per collection its indexes `{c,
 * idx}` and its documents in chunks `{c, docs}`. One line per chunk, never one string for the
 * whole store: a string has a length limit (about 512 MiB), which a store of some 100,000 jobs
 * passes. A snapshot of an older version is one JSON object.
 */
export function readSnapshot(
  content: Buffer,
  onTable: (name: string, indexes: NamedIndex[], docs: StoredDoc[]) => void,
): number {
  let seq = 0;
  forEachLine(content, (text, index) => {
    const entry = JSON.parse(text) as Partial<OneObjectSnapshot> & {
      c?: string;
      idx?: NamedIndex[];
      docs?: StoredDoc[];
    };
    if (index === 0) {
      seq = entry.s ?? 0;
      // The older format: everything in this one object.
      for (const [name, { docs, indexes }] of Object.entries(entry.collections ?? {}))
        onTable(name, indexes, docs);
      return;
    }
    onTable(entry.c!, entry.idx ?? [], entry.docs ?? []);
  });
  return seq;
}

/**
 * Calls `apply` with each whole line of the log `content` (file `log`, for errors); answers how
 * many bytes of it are whole lines. Only the last line can be torn by a crash (it was never
 * acknowledged: ignored); garbage earlier is corruption we must not hide.
 */
export function forEachLogEntry(log: string, content: Buffer, apply: (entry: LogEntry) => void): number {
  let goodBytes = 0;
  let start = 0;
  while (start < content.length) {
    const end = content.indexOf(0x0a, start);
    const isLast = end === -1 || end === content.length - 1;
    const text = content.subarray(start, end === -1 ? content.length : end).toString("utf8");
    let entry: LogEntry;
    try {
      entry = JSON.parse(text) as LogEntry;
    } catch (err) {
      if (isLast) break;
      throw new Error(`store log ${log} is corrupt at byte ${start}: ${(err as Error).message}`);
    }
    if (end === -1) break; // parseable but unterminated: never acknowledged, treat as torn
    apply(entry);
    goodBytes = start = end + 1;
  }
  return goodBytes;
}

/** Documents per snapshot line: one line per chunk, never one string for the whole store. */
export const SNAPSHOT_CHUNK = 100;

/** What a snapshot holds of one collection, captured at the rotation. */
export interface CapturedTable {
  name: string;
  indexes: NamedIndex[];
  docs: StoredDoc[];
}

const ROTATED = /^store\.log\.(\d+)$/;

/** The rotated log files of `dir`, oldest first, with the last seq each holds. */
export function rotatedLogs(dir: string): { file: string; seq: number }[] {
  return fs
    .readdirSync(dir)
    .flatMap((name) => {
      const match = ROTATED.exec(name);
      return match ? [{ file: path.join(dir, name), seq: Number(match[1]) }] : [];
    })
    .sort((a, b) => a.seq - b.seq);
}

/** Where the log written up to `seq` goes when it is rotated. */
export const rotatedLogPath = (dir: string, seq: number) => path.join(dir, `store.log.${seq}`);

/**
 * Writes the snapshot of `tables` as of `seq` into `tmp`, flushed to disk; the caller renames it
 * into place. Synchronous: it runs on the compaction's worker thread (./compaction.ts), never on
 * the store's. Buffered: one file write per few MiB, one line per SNAPSHOT_CHUNK documents.
 */
export function writeSnapshotSync(tmp: string, seq: number, tables: CapturedTable[]): number {
  const fd = fs.openSync(tmp, "w", 0o600);
  let written = 0;
  try {
    let pending: string[] = [];
    let size = 0;
    const flush = () => {
      if (pending.length === 0) return;
      const bytes = Buffer.from(pending.join(""));
      pending = [];
      size = 0;
      for (let at = 0; at < bytes.length;) at += fs.writeSync(fd, bytes, at);
      written += bytes.length;
    };
    const line = (value: unknown) => {
      const text = JSON.stringify(value) + "\n";
      pending.push(text);
      size += text.length;
      if (size >= 4 * 1024 * 1024) flush();
    };
    line({ s: seq, format: "lines" });
    for (const { name, indexes, docs } of tables) {
      line({ c: name, idx: indexes });
      for (let i = 0; i < docs.length; i += SNAPSHOT_CHUNK)
        line({ c: name, docs: docs.slice(i, i + SNAPSHOT_CHUNK) });
    }
    flush();
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  return written;
}
