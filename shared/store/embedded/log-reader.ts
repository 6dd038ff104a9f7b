/**
 * A store log (./snapshot.ts LogEntry: a JSON line per write) read line by line through one reused
 * buffer (./file-lines.ts), for the store's load and a compaction alike.
 */
import { forEachFileLine } from "./file-lines";
import type { LogEntry } from "./snapshot";

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
 * `chunkBytes`: the read buffer's first size (tests).
 */
export function readLogFile(file: string, apply: (entry: LogEntry) => void, chunkBytes?: number): LogRead {
  let goodBytes = 0;
  const size = forEachFileLine(
    file,
    (buffer, start, end, offset, size) => {
      const next = offset + (end - start) + 1; // where the line after this one begins
      const isLast = next >= size;
      let entry: LogEntry;
      try {
        entry = JSON.parse(buffer.toString("utf8", start, end)) as LogEntry;
      } catch (err) {
        if (isLast) return false;
        throw new Error(`store log ${file} is corrupt at byte ${offset}: ${(err as Error).message}`);
      }
      if (next > size) return false; // parseable but unterminated: never acknowledged, treat as torn
      apply(entry);
      goodBytes = next;
    },
    chunkBytes,
  );
  return { size, goodBytes };
}
