/**
 * The store's files (the log, the snapshot) read line by line through one reused buffer, never the
 * whole file at once. A compaction reads at least 64 MiB of log and the whole last snapshot each
 * time, and a fresh buffer that size cost more to fault in (its pages touched for the first time)
 * than the file's bytes cost to copy: 175 against 14 ms for a 63 MiB log on this project's
 * machines, a sixth of a compaction's CPU (docs/performance-rounds.md, thirty-fifth round).
 */
import fs from "node:fs";

/** What a read holds at once to begin with; a longer line grows the buffer (for that read only). */
export const LINE_CHUNK_BYTES = 4 * 1024 * 1024;

/** This thread's read buffer, kept between reads (a compaction's thread reads every 64 MiB of log). */
let kept: Buffer | undefined;

/**
 * A line of a file: its bytes are `buffer[start, end)` (without the newline), valid only during the
 * call, and it begins at byte `offset` of the file, whose size was `size` when the read began; a
 * newline ends the line unless `offset + (end - start) === size`. If the file shrank meanwhile,
 * the last line's `size` is where the read ended. Answers false to stop reading.
 */
export type OnLine = (
  buffer: Buffer,
  start: number,
  end: number,
  offset: number,
  size: number,
) => boolean | void;

/**
 * Hands `onLine` each line of `file` (a path, or a file open for reading, left open) in order, the
 * last one whether a newline ends it or not (empty lines too); answers the file's size.
 * `chunkBytes` is the first buffer's size (tests read with small ones); with the default, this
 * thread's buffer is reused.
 */
export function forEachFileLine(
  file: string | number,
  onLine: OnLine,
  chunkBytes = LINE_CHUNK_BYTES,
): number {
  const fd = typeof file === "number" ? file : fs.openSync(file, "r");
  try {
    let size = fs.fstatSync(fd).size;
    let buffer =
      chunkBytes === LINE_CHUNK_BYTES
        ? (kept ??= Buffer.allocUnsafeSlow(LINE_CHUNK_BYTES))
        : Buffer.allocUnsafeSlow(chunkBytes);
    /** The file's offset of buffer[0]; bytes [0, filled) of the buffer hold the file's from there. */
    let base = 0;
    let filled = 0;
    while (base + filled < size) {
      if (filled === buffer.length) buffer = grown(buffer, filled);
      const want = Math.min(buffer.length - filled, size - base - filled);
      const read = fs.readSync(fd, buffer, filled, want, base + filled);
      if (read === 0) {
        // The file shrank under us: what was read is all there is, its last line unterminated.
        size = base + filled;
        break;
      }
      filled += read;
      let start = 0;
      for (;;) {
        const end = buffer.indexOf(0x0a, start);
        if (end === -1 || end >= filled) break;
        if (onLine(buffer, start, end, base + start, size) === false) return size;
        start = end + 1;
      }
      // What is left is the start of a line the next read ends.
      buffer.copy(buffer, 0, start, filled);
      base += start;
      filled -= start;
    }
    if (filled > 0) onLine(buffer, 0, filled, base, size); // the last line, with no newline
    return size;
  } finally {
    if (fd !== file) fs.closeSync(fd);
  }
}

/** A buffer twice as long holding the first `filled` bytes of `buffer`: a line longer than it. */
function grown(buffer: Buffer, filled: number): Buffer {
  const bigger = Buffer.allocUnsafeSlow(buffer.length * 2);
  buffer.copy(bigger, 0, 0, filled);
  return bigger;
}
