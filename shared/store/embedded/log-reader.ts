/**
 * Reads a store log (./snapshot.ts LogEntry: a JSON line per write) line by line through one
 * reused buffer, never the whole file at once: a compaction reads at least 64 MiB of log each
 * time, and a fresh buffer that size cost more to fault in (its pages touched for the first
 * time) than the file's bytes cost to copy: 175 against 14 ms for a 63 MiB log on this project's
 * machines, a sixth of a compaction's CPU (docs/performance-rounds.md, thirty-fifth round).
 */
import fs from "node:fs";
import type { LogEntry } from "./snapshot";

/** What a read holds at once to begin with; a longer line grows the buffer (for that read only). */
export const LOG_CHUNK_BYTES = 4 * 1024 * 1024;

/** The read buffer of this thread, kept between reads (a compaction's thread reads every 64 MiB). */
let kept: Buffer | undefined;

export interface LogRead {
  /** The file's size when the read began. */
  size: number;
  /** The bytes of whole lines: where a torn last line, if any, begins. */
  goodBytes: number;
}

/**
 * Calls `apply` with each whole line of the log `file`, in order; answers its size and how many
 * bytes of it are whole lines. Only the last line can be torn by a crash (it was never
 * acknowledged: ignored, whether it parses or not); garbage earlier is corruption we must not hide.
 * `chunkBytes` is the first buffer's size (tests read with small ones).
 */
export function readLogFile(
  file: string,
  apply: (entry: LogEntry) => void,
  chunkBytes = LOG_CHUNK_BYTES,
): LogRead {
  const fd = fs.openSync(file, "r");
  try {
    const size = fs.fstatSync(fd).size;
    const reused = chunkBytes === LOG_CHUNK_BYTES;
    let buffer = reused
      ? (kept ??= Buffer.allocUnsafeSlow(LOG_CHUNK_BYTES))
      : Buffer.allocUnsafeSlow(chunkBytes);
    /** The file's offset of buffer[0]; bytes [0, filled) of the buffer hold the file's from there. */
    let base = 0;
    let filled = 0;
    let goodBytes = 0;
    while (base + filled < size) {
      if (filled === buffer.length) buffer = grown(buffer, filled);
      const read = fs.readSync(
        fd,
        buffer,
        filled,
        Math.min(buffer.length - filled, size - base - filled),
        base + filled,
      );
      if (read === 0) break; // the file shrank under us: what is there is all there is
      filled += read;
      let start = 0;
      for (;;) {
        const end = buffer.indexOf(0x0a, start);
        if (end === -1 || end >= filled) break;
        const isLast = base + end === size - 1;
        let entry: LogEntry;
        try {
          entry = JSON.parse(buffer.toString("utf8", start, end)) as LogEntry;
        } catch (err) {
          if (isLast) return { size, goodBytes };
          throw new Error(`store log ${file} is corrupt at byte ${base + start}: ${(err as Error).message}`);
        }
        apply(entry);
        goodBytes = base + end + 1;
        start = end + 1;
      }
      // The rest is the start of a line the next read ends (or a torn last line: never applied).
      buffer.copy(buffer, 0, start, filled);
      base += start;
      filled -= start;
    }
    return { size, goodBytes };
  } finally {
    fs.closeSync(fd);
  }
}

/** A buffer twice as long holding `filled` bytes of `buffer`: a line longer than the buffer. */
function grown(buffer: Buffer, filled: number): Buffer {
  const bigger = Buffer.allocUnsafeSlow(buffer.length * 2);
  buffer.copy(bigger, 0, 0, filled);
  return bigger;
}
