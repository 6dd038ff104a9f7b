/**
 * A compaction's snapshot made from the store's files alone, on a worker thread
 * (./compaction-worker.ts; backend.ts startCompaction): the last snapshot and the logs rotated up
 * to the compaction's seq are replayed onto plain maps, as load() replays them onto the tables,
 * and written as the snapshot as of that seq. The store's own thread only rotates the log: its
 * requests never wait behind a serialization of the whole store. The worker holds a second copy of
 * the store's documents while it runs.
 *
 * It refuses to write a snapshot that could miss a write: the lines it replays must run without a
 * gap from the last snapshot's seq to the compaction's (every write is one line, seq + 1). A
 * failed compaction leaves the logs in place; load() replays them.
 */
import fs from "node:fs";
import path from "node:path";
import { replayPatch } from "./fast-update";
import { forEachLogEntry, readSnapshot, rotatedLogs, writeSnapshotSync, type LogEntry } from "./snapshot";
import type { NamedIndex, StoredDoc } from "./table";

export interface CompactionTask {
  /** The store's folder (`<dataDir>/store`). */
  dir: string;
  /** The seq the log was rotated at: the snapshot holds every write up to it. */
  seq: number;
  /** Where the snapshot is written; the store renames it into place. */
  tmp: string;
}

export interface CompactionResult {
  docs: number;
  bytes: number;
}

interface PlainTable {
  indexes: Map<string, NamedIndex>;
  docs: Map<string, StoredDoc>;
}

/** A log line applied as Table.apply and addIndex/dropIndex apply it (deletes, then puts, then patches). */
function applyEntry(table: PlainTable, entry: LogEntry): void {
  for (const name of entry.dropIdx ?? []) table.indexes.delete(name);
  if (entry.idx) table.indexes.set(entry.idx.name, entry.idx);
  for (const id of entry.del ?? []) table.docs.delete(id);
  for (const doc of entry.put ?? []) table.docs.set(doc._id, doc);
  for (const { _id, ops } of entry.patch ?? []) {
    const doc = table.docs.get(_id);
    if (!doc) throw new Error(`store log line ${entry.s} patches ${entry.c}/${_id}, which does not exist`);
    table.docs.set(_id, replayPatch(doc, ops));
  }
}

export function compactFiles(task: CompactionTask): CompactionResult {
  const tables = new Map<string, PlainTable>();
  const table = (name: string): PlainTable => {
    let t = tables.get(name);
    if (!t) tables.set(name, (t = { indexes: new Map(), docs: new Map() }));
    return t;
  };
  const snapshot = path.join(task.dir, "snapshot.json");
  const base = fs.existsSync(snapshot)
    ? readSnapshot(fs.readFileSync(snapshot), (name, indexes, docs) => {
        const t = table(name);
        for (const spec of indexes) t.indexes.set(spec.name, spec);
        for (const doc of docs) t.docs.set(doc._id, doc);
      })
    : 0;
  let next = base + 1;
  for (const log of rotatedLogs(task.dir)) {
    if (log.seq <= base || log.seq > task.seq) continue;
    forEachLogEntry(log.file, fs.readFileSync(log.file), (entry) => {
      if (entry.s < next || entry.s > task.seq) return;
      if (entry.s !== next)
        throw new Error(`store logs in ${task.dir} miss seq ${next} (next line ${entry.s})`);
      applyEntry(table(entry.c), entry);
      next++;
    });
  }
  if (next !== task.seq + 1)
    throw new Error(`store logs in ${task.dir} end at seq ${next - 1}, not ${task.seq}`);
  const captured = [...tables].map(([name, t]) => ({
    name,
    indexes: [...t.indexes.values()],
    docs: [...t.docs.values()],
  }));
  const bytes = writeSnapshotSync(task.tmp, task.seq, captured);
  return { docs: captured.reduce((n, t) => n + t.docs.length, 0), bytes };
}
