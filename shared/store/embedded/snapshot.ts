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
import type { LoggedPatchOp } from "./log-patch";
import { forEachFileLine } from "./file-lines";

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
   * One document's line of the current format, unparsed: its id, the line's bytes (a view of the
   * read's buffer, valid only during the call) and where the line begins in the file.
   * `docText(line)` is the document's JSON text.
   */
  docLine(name: string, id: string, line: Buffer, offset: number): void;
}

/** The document's JSON text in a document line (`<id as JSON>\t<document as JSON>`). */
export function docText(line: Buffer): string {
  return line.toString("utf8", line.indexOf(TAB) + 1);
}

/**
 * Reads the snapshot `file` (./file-lines.ts: through one reused buffer), handing `visit` each collection's indexes and documents in the
 * order written; answers its seq. The snapshot is JSON lines: a header `{s, format}`, then per
 * collection its indexes `{c, idx}` followed by its documents, one line each: the id as a JSON
 * string, a tab, the document as JSON. `JSON.stringify` never writes a raw tab (in a string it is
 * `\t`), so the first tab ends the id, found without parsing the document: a compaction copies the lines of documents no write has touched
 * as they are (./compaction.ts). Never one string for the whole store: a string has a length limit
 * (about 512 MiB), which a store of some 100,000 jobs passes. Older snapshots still load: format
 * `lines` (documents in chunks `{c, docs}`) and the first one, one JSON object.
 */
export function readSnapshotLines(file: string | number, visit: SnapshotVisitor): number {
  let seq = 0;
  let current = "";
  let index = 0;
  forEachFileLine(file, (content, start, end, offset) => {
    if (end === start) return; // an empty line: none is written, none is refused
    const at = index++;
    // A document's line starts with its id, a JSON string; every other line is a JSON object.
    if (content[start] === QUOTE) {
      const line = content.subarray(start, end);
      const tab = line.indexOf(TAB);
      // A compaction copies the line unparsed: these checks are what it knows of it. A line cut
      // short (it ends in no `}`) fails here, as a parse would, and the logs are kept.
      if (tab === -1 || at === 0 || current === "" || !endsObject(line))
        throw new Error(`snapshot line ${at + 1} is no document line of a collection`);
      visit.docLine(current, JSON.parse(line.toString("utf8", 0, tab)) as string, line, offset);
      return;
    }
    const entry = JSON.parse(content.toString("utf8", start, end)) as SnapshotLine;
    if (at === 0) {
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
 * Reads the snapshot `file` as parsed documents: `onTable` gets each collection's indexes and
 * its documents in chunks of at most SNAPSHOT_CHUNK, in the order written (a collection may come
 * in several calls), with each document's JSON text beside it when its line held it (`texts`, the
 * same order; undefined for the older formats); answers its seq. The store's load (backend.ts).
 */
export function readSnapshot(
  file: string,
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
  const seq = readSnapshotLines(file, {
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
