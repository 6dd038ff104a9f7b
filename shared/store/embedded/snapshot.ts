/**
 * The embedded store's snapshot, written without holding the event loop (backend.ts, compaction).
 *
 * A compaction used to rewrite every collection synchronously: about 24 µs per stored job of 6 KB,
 * so over a second with 50,000 jobs, every time the log passed its threshold
 * (docs/performance.md, `npm run bench:compaction`). Now the log is rotated first (the current
 * file becomes `store.log.<seq>`, new writes go to a fresh `store.log`), the documents as of that
 * seq are captured by reference (stored documents are never changed in place, only replaced:
 * table.ts), and this writer serializes them a chunk per turn of the event loop, with the file
 * writes on libuv's thread pool. Once the snapshot is renamed into place, the rotated logs it
 * covers are deleted. A crash at any point leaves a snapshot and the logs after it: load() replays
 * the rotated logs, oldest first, then `store.log`, skipping lines the snapshot already holds.
 */
import fs from "node:fs";
import path from "node:path";
import type { NamedIndex, StoredDoc } from "./table";

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

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Writes the snapshot of `tables` as of `seq` into `tmp`, flushed to disk, a chunk per turn of the
 * event loop; the caller renames it into place. Buffered: one file write per few MiB.
 */
export async function writeSnapshot(tmp: string, seq: number, tables: CapturedTable[]): Promise<void> {
  const file = await fs.promises.open(tmp, "w", 0o600);
  try {
    let pending: string[] = [];
    let size = 0;
    const flush = async () => {
      if (pending.length === 0) return;
      const text = pending.join("");
      pending = [];
      size = 0;
      await file.write(text);
    };
    const line = async (value: unknown) => {
      const text = JSON.stringify(value) + "\n";
      pending.push(text);
      size += text.length;
      if (size >= 4 * 1024 * 1024) await flush();
    };
    await line({ s: seq, format: "lines" });
    for (const { name, indexes, docs } of tables) {
      await line({ c: name, idx: indexes });
      for (let i = 0; i < docs.length; i += SNAPSHOT_CHUNK) {
        await line({ c: name, docs: docs.slice(i, i + SNAPSHOT_CHUNK) });
        await nextTurn(); // requests run between chunks
      }
    }
    await flush();
    await file.sync();
  } finally {
    await file.close();
  }
}
