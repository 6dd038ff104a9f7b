/**
 * The embedded store's files (backend.ts): the log's lines, the snapshot's format (a line per
 * document, readSnapshotLines), its writer.
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

/** The first snapshot format (one JSON object); the loader still reads it. */
interface OneObjectSnapshot {
  s: number;
  collections: Record<string, { docs: StoredDoc[]; indexes: NamedIndex[] }>;
}

/** The header and collection lines of a snapshot in JSON lines (both line formats). */
interface SnapshotLine extends Partial<OneObjectSnapshot> {
  format?: string;
  c?: string;
  idx?: NamedIndex[];
  /** The chunked format's documents (a line per SNAPSHOT_CHUNK of them); the loader still reads it. */
  docs?: StoredDoc[];
}

/** Calls `fn` with the byte range of each newline-terminated or final non-empty line of `content`. */
function forEachLine(content: Buffer, fn: (start: number, end: number, index: number) => void): void {
  let start = 0;
  let index = 0;
  while (start < content.length) {
    const end = content.indexOf(0x0a, start);
    const stop = end === -1 ? content.length : end;
    if (stop > start) fn(start, stop, index++);
    start = stop + 1;
  }
}

const TAB = 0x09;
const QUOTE = 0x22;
const CLOSE_BRACE = 0x7d;

/** Whether `line` ends in `}` (then blanks: a CRLF file's `\r`). */
function endsObject(line: Buffer): boolean {
  let at = line.length - 1;
  while (at >= 0 && (line[at] === 0x0d || line[at] === 0x20 || line[at] === TAB)) at--;
  return at >= 0 && line[at] === CLOSE_BRACE;
}

/** What a snapshot's reader is handed, line by line, in the order written. */
export interface SnapshotVisitor {
  /** A collection's indexes (a collection may come before its documents with none). */
  indexes(name: string, indexes: NamedIndex[]): void;
  /** Documents already parsed: the older formats' chunks. */
  docs(name: string, docs: StoredDoc[]): void;
  /**
   * One document's line of the current format, unparsed: its id and the line's bytes (a view of
   * the file's buffer). `docText(line)` is the document's JSON text.
   */
  docLine(name: string, id: string, line: Buffer): void;
}

/** The document's JSON text in a document line (`<id as JSON>\t<document as JSON>`). */
export function docText(line: Buffer): string {
  return line.toString("utf8", line.indexOf(TAB) + 1);
}

/**
 * Reads a snapshot's `content`, handing `visit` each collection's indexes and documents in the
 * order written; answers its seq. The snapshot is JSON lines: a header `{s, format}`, then per
 * collection its indexes `{c, idx}` followed by its documents, one line each: the id as a JSON
 * string, a tab, the document as JSON. `JSON.stringify` never writes a raw tab (in a string it is
 * `\t`), so the first tab ends the id, found without parsing the document: a compaction copies the lines of documents no write has touched
 * as they are (./compaction.ts). Never one string for the whole store: a string has a length limit
 * (about 512 MiB), which a store of some 100,000 jobs passes. Older snapshots still load: format
 * `lines` (documents in chunks `{c, docs}`) and the first one, one JSON object.
 */
export function readSnapshotLines(content: Buffer, visit: SnapshotVisitor): number {
  let seq = 0;
  let current = "";
  forEachLine(content, (start, end, index) => {
    // A document's line starts with its id, a JSON string; every other line is a JSON object.
    if (content[start] === QUOTE) {
      const line = content.subarray(start, end);
      const tab = line.indexOf(TAB);
      // A compaction copies the line unparsed: these checks are what it knows of it. A line cut
      // short (it ends in no `}`) fails here, as a parse would, and the logs are kept.
      if (tab === -1 || index === 0 || current === "" || !endsObject(line))
        throw new Error(`snapshot line ${index + 1} is no document line of a collection`);
      visit.docLine(current, JSON.parse(line.toString("utf8", 0, tab)) as string, line);
      return;
    }
    const entry = JSON.parse(content.toString("utf8", start, end)) as SnapshotLine;
    if (index === 0) {
      seq = entry.s ?? 0;
      // The first format: everything in this one object.
      for (const [name, { docs, indexes }] of Object.entries(entry.collections ?? {})) {
        visit.indexes(name, indexes);
        visit.docs(name, docs);
      }
      return;
    }
    current = entry.c!;
    if (entry.idx) visit.indexes(current, entry.idx);
    if (entry.docs) visit.docs(current, entry.docs);
  });
  return seq;
}

/**
 * Reads a snapshot's `content` as parsed documents: `onTable` gets each collection's indexes and
 * its documents in chunks of at most SNAPSHOT_CHUNK, in the order written (a collection may come
 * in several calls), with each document's JSON text beside it when its line held it (`texts`, the
 * same order; undefined for the older formats); answers its seq. The store's load (backend.ts).
 */
export function readSnapshot(
  content: Buffer,
  onTable: (name: string, indexes: NamedIndex[], docs: StoredDoc[], texts?: string[]) => void,
): number {
  let pending: StoredDoc[] = [];
  let pendingTexts: string[] = [];
  let pendingOf = "";
  const flush = () => {
    if (pending.length > 0) onTable(pendingOf, [], pending, pendingTexts);
    pending = [];
    pendingTexts = [];
  };
  const seq = readSnapshotLines(content, {
    indexes: (name, indexes) => {
      flush();
      onTable(name, indexes, []);
    },
    docs: (name, docs) => {
      flush();
      onTable(name, [], docs);
    },
    docLine: (name, id, line) => {
      if (name !== pendingOf) flush();
      pendingOf = name;
      const text = docText(line);
      const doc = JSON.parse(text) as StoredDoc;
      // A compaction knows a kept line by its id alone: the two must agree, or its patches miss.
      if (doc._id !== id)
        throw new Error(
          `snapshot line of ${JSON.stringify(id)} holds the document ${JSON.stringify(doc._id)}`,
        );
      pending.push(doc);
      pendingTexts.push(text);
      if (pending.length >= SNAPSHOT_CHUNK) flush();
    },
  });
  flush();
  return seq;
}

/** Documents the loader applies at a time (readSnapshot). */
export const SNAPSHOT_CHUNK = 100;

/**
 * What a snapshot holds of one collection, captured at the rotation: a document either parsed or
 * as the line of the last snapshot that held it unchanged (SnapshotVisitor.docLine).
 */
export interface CapturedTable {
  name: string;
  indexes: NamedIndex[];
  docs: Iterable<StoredDoc | Buffer>;
}

/** A document's snapshot line (without its newline): its id as JSON, a tab, the document as JSON. */
function docLineOf(doc: StoredDoc): string {
  return `${JSON.stringify(doc._id)}\t${JSON.stringify(doc)}`;
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

/** Makes a rename or file creation in `dir` durable. */
export function fsyncDirectory(dir: string): void {
  const fd = fs.openSync(dir, "r");
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Where the log written up to `seq` goes when it is rotated. */
export const rotatedLogPath = (dir: string, seq: number) => path.join(dir, `store.log.${seq}`);

/**
 * Writes the snapshot of `tables` as of `seq` into `tmp`, flushed to disk; the caller renames it
 * into place. Synchronous: it runs on the compaction's worker thread (./compaction.ts), never on
 * the store's. Buffered: one gathering write per few MiB. A document kept as its line is written
 * as those bytes, never parsed, serialized or copied again.
 */
export function writeSnapshotSync(tmp: string, seq: number, tables: CapturedTable[]): number {
  const fd = fs.openSync(tmp, "w", 0o600);
  const NEWLINE = Buffer.from("\n");
  let written = 0;
  try {
    let pieces: Buffer[] = [];
    let text = "";
    let size = 0;
    // The serialized lines go through one buffer, reused (never a fresh one a flush: faulting in
    // new pages cost more than encoding into them; ./log-reader.ts).
    let arena = (textArena ??= Buffer.allocUnsafeSlow(TEXT_ARENA_BYTES));
    let used = 0;
    const writePieces = () => {
      if (pieces.length > 0) written += writeAllSync(fd, pieces);
      pieces = [];
      size = used = 0;
    };
    const takeText = () => {
      if (text.length === 0) return;
      const bytes = Buffer.byteLength(text);
      if (used + bytes > arena.length) {
        writePieces(); // what the arena holds is written before its bytes are reused
        if (bytes > arena.length) arena = Buffer.allocUnsafeSlow(bytes); // one long line: this write's own
      }
      arena.write(text, used);
      pieces.push(arena.subarray(used, used + bytes));
      used += bytes;
      text = "";
    };
    const flush = () => {
      takeText();
      writePieces();
    };
    const line = (piece: string) => {
      text += piece + "\n";
      size += piece.length + 1;
      if (size >= 4 * 1024 * 1024) flush();
    };
    const kept = (bytes: Buffer) => {
      takeText();
      pieces.push(bytes, NEWLINE);
      size += bytes.length + 1;
      if (size >= 4 * 1024 * 1024) flush();
    };
    line(JSON.stringify({ s: seq, format: SNAPSHOT_FORMAT }));
    for (const { name, indexes, docs } of tables) {
      line(JSON.stringify({ c: name, idx: indexes }));
      for (const doc of docs) {
        if (Buffer.isBuffer(doc)) kept(doc);
        else line(docLineOf(doc));
      }
    }
    flush();
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  return written;
}

/** The serialized lines' buffer of this thread (writeSnapshotSync), kept between compactions. */
let textArena: Buffer | undefined;
const TEXT_ARENA_BYTES = 8 * 1024 * 1024;

/**
 * Writes `pieces` in order with one gathering write (writev), not copied into one buffer first:
 * the copy was about a tenth of a compaction's CPU (docs/performance-rounds.md, sixteenth round).
 * A short write goes on from where it stopped. Answers the bytes written.
 */
function writeAllSync(fd: number, pieces: readonly Buffer[]): number {
  let rest = pieces;
  let total = 0;
  while (rest.length > 0) {
    let done = fs.writevSync(fd, rest);
    total += done;
    let whole = 0;
    while (whole < rest.length && done >= rest[whole].length) done -= rest[whole++].length;
    rest = rest.slice(whole);
    if (done > 0) rest = [rest[0].subarray(done), ...rest.slice(1)];
  }
  return total;
}

/** The format a snapshot is written in: a line per document (readSnapshotLines). */
const SNAPSHOT_FORMAT = "doc-lines";
