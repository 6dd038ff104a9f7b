/**
 * A compaction's snapshot written (./snapshot.ts has the format and its readers): on the
 * compaction's worker thread, never the store's. The lines it serializes go through one reused
 * buffer, and the lines of documents no write touched are copied from the last snapshot's file by
 * where they are, runs of them at a time, through that same buffer: the last snapshot is never
 * held whole, and no fresh pages are faulted in for it (./file-lines.ts says why).
 */
import fs from "node:fs";
import type { NamedIndex, StoredDoc } from "./table";

/** A document's line in the last snapshot (without its newline), by where it is in that file. */
export class KeptLine {
  constructor(
    readonly offset: number,
    readonly length: number,
  ) {}
}

/**
 * What a snapshot holds of one collection, captured at the rotation: a document either parsed or
 * as the line of the last snapshot that held it unchanged (SnapshotVisitor.docLine).
 */
export interface CapturedTable {
  name: string;
  indexes: NamedIndex[];
  docs: Iterable<StoredDoc | KeptLine>;
}

/** A KeptLine's bytes, read from the last snapshot (`source`, an open fd). */
export function readKeptLine(source: number, line: KeptLine): Buffer {
  const bytes = Buffer.allocUnsafe(line.length);
  readFullySync(source, bytes, line.offset);
  return bytes;
}

const NEWLINE = Buffer.from("\n");

/** The format a snapshot is written in: a line per document (snapshot.ts readSnapshotLines). */
const SNAPSHOT_FORMAT = "doc-lines";

/** The buffer of this thread that lines are serialized into and kept runs copied through. */
let threadBuffer: Buffer | undefined;
const BUFFER_BYTES = 8 * 1024 * 1024;
/** How much is gathered before a write (text and copied runs). */
const WRITE_BYTES = 4 * 1024 * 1024;

/**
 * Writes the snapshot of `tables` as of `seq` into `tmp`, flushed to disk; the caller renames it
 * into place. `source`: the last snapshot's fd, which the tables' KeptLines are in. Buffered: one
 * gathering write (writev) per few MiB. A kept line is copied as its bytes, never parsed or
 * serialized again; adjacent ones are copied as one run. Answers the bytes written.
 */
export function writeSnapshotSync(
  tmp: string,
  seq: number,
  tables: CapturedTable[],
  source?: number,
): number {
  const fd = fs.openSync(tmp, "w", 0o600);
  let written = 0;
  try {
    let buffer = (threadBuffer ??= Buffer.allocUnsafeSlow(BUFFER_BYTES));
    let used = 0;
    let pieces: Buffer[] = [];
    let text = "";
    /** The last snapshot's bytes [runStart, runEnd) to copy next: kept lines with their newlines. */
    let runStart = 0;
    let runEnd = 0;
    let sourceSize: number | undefined;
    const writePieces = () => {
      if (pieces.length > 0) written += writeAllSync(fd, pieces);
      pieces = [];
      used = 0;
    };
    const takeText = () => {
      if (text.length === 0) return;
      const bytes = Buffer.byteLength(text);
      if (used + bytes > buffer.length) {
        writePieces(); // what the buffer holds is written before its bytes are reused
        if (bytes > buffer.length) buffer = Buffer.allocUnsafeSlow(bytes); // one long line: this write's own
      }
      buffer.write(text, used);
      pieces.push(buffer.subarray(used, used + bytes));
      used += bytes;
      text = "";
    };
    const copyRun = () => {
      if (runEnd === runStart) return;
      if (source === undefined) throw new Error("a kept snapshot line without the snapshot it is in");
      // A run's last line is followed by its newline, but the file's last line may have none
      // (a snapshot not written here): copied without it, and given one. A file shorter than
      // that changed under us: readFullySync refuses it.
      const missing = runEnd - (sourceSize ??= fs.fstatSync(source).size) === 1 ? 1 : 0;
      runEnd -= missing;
      for (let at = runStart; at < runEnd;) {
        const size = Math.min(runEnd - at, buffer.length - used);
        if (size === 0) {
          writePieces();
          continue;
        }
        const part = buffer.subarray(used, used + size);
        readFullySync(source, part, at);
        pieces.push(part);
        used += size;
        at += size;
      }
      if (missing > 0) pieces.push(NEWLINE);
      runStart = runEnd = 0;
    };
    const flushIfFull = () => {
      if (used + text.length + (runEnd - runStart) < WRITE_BYTES) return;
      takeText();
      copyRun();
      writePieces();
    };
    const line = (piece: string) => {
      copyRun(); // a run waiting is written before this line
      text += piece + "\n";
      flushIfFull();
    };
    const keep = (at: KeptLine) => {
      if (runEnd !== runStart && at.offset === runEnd) {
        runEnd += at.length + 1; // the next line of the file: one run
      } else {
        takeText();
        copyRun();
        runStart = at.offset;
        runEnd = at.offset + at.length + 1;
      }
      flushIfFull();
    };
    line(JSON.stringify({ s: seq, format: SNAPSHOT_FORMAT }));
    for (const { name, indexes, docs } of tables) {
      line(JSON.stringify({ c: name, idx: indexes }));
      for (const doc of docs) {
        if (doc instanceof KeptLine) keep(doc);
        else line(`${JSON.stringify(doc._id)}\t${JSON.stringify(doc)}`);
      }
    }
    takeText();
    copyRun();
    writePieces();
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  return written;
}

/** Fills `into` from `fd` at `position`; a file shorter than that is an error (it changed under us). */
function readFullySync(fd: number, into: Buffer, position: number): void {
  for (let done = 0; done < into.length;) {
    const read = fs.readSync(fd, into, done, into.length - done, position + done);
    if (read === 0) throw new Error(`the last snapshot ends before byte ${position + into.length}`);
    done += read;
  }
}

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
