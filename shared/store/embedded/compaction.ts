/**
 * A compaction's snapshot made from the store's files alone, on a worker thread
 * (./compaction-worker.ts; backend.ts startCompaction): the last snapshot and the logs rotated up
 * to the compaction's seq are replayed onto plain maps, as load() replays them onto the tables,
 * and written as the snapshot as of that seq. The store's own thread only rotates the log: its
 * requests never wait behind a serialization of the whole store.
 *
 * A document of the last snapshot stays where its line is in that file, unparsed, until a log line
 * writes it (then that line alone is read and parsed): an untouched document's line is copied into
 * the new snapshot as it is, runs of them at a time (./snapshot-writer.ts). So a compaction parses
 * and serializes what the logs wrote, not the whole store (a store of finished jobs is mostly
 * untouched), and the worker holds neither the snapshot's bytes nor a parsed copy of the store: an
 * offset and a length a document.
 *
 * It refuses to write a snapshot that could miss a write: the lines it replays must run without a
 * gap from the last snapshot's seq to the compaction's (every write is one line, seq + 1). A
 * failed compaction leaves the logs in place; load() replays them.
 */
import fs from "node:fs";
import path from "node:path";
import { replayPatchInPlace } from "./log-patch";
import { readLogFile } from "./log-reader";
import { docText, fsyncDirectory, readSnapshotLines, rotatedLogs, type LogEntry } from "./snapshot";
import { KeptLine, readKeptLine, writeSnapshotSync } from "./snapshot-writer";
import type { NamedIndex, StoredDoc } from "./table";

export interface CompactionTask {
  /** The store's folder (`<dataDir>/store`). */
  dir: string;
  /** The seq the log was rotated at: the snapshot holds every write up to it. */
  seq: number;
  /** Where the snapshot is written before installSnapshot renames it into place. */
  tmp: string;
}

export interface CompactionResult {
  docs: number;
  bytes: number;
}

interface PlainTable {
  indexes: Map<string, NamedIndex>;
  /** Parsed documents, and where the last snapshot's lines are of those no log line has written yet. */
  docs: Map<string, StoredDoc | KeptLine>;
}

/**
 * A log line applied as Table.apply and addIndex/dropIndex apply it (deletes, then puts, then
 * patches); a kept line it patches is read from the last snapshot (`source`) and parsed.
 */
function applyEntry(table: PlainTable, entry: LogEntry, source: number | undefined): void {
  for (const name of entry.dropIdx ?? []) table.indexes.delete(name);
  if (entry.idx) table.indexes.set(entry.idx.name, entry.idx);
  for (const id of entry.del ?? []) table.docs.delete(id);
  for (const doc of entry.put ?? []) table.docs.set(doc._id, doc);
  for (const { _id, ops } of entry.patch ?? []) {
    const doc = table.docs.get(_id);
    if (!doc) throw new Error(`store log line ${entry.s} patches ${entry.c}/${_id}, which does not exist`);
    // Every parsed document here is the compaction's own (JSON.parse made it): patched in place.
    const parsed =
      doc instanceof KeptLine ? (JSON.parse(docText(readKeptLine(source!, doc))) as StoredDoc) : doc;
    table.docs.set(_id, replayPatchInPlace(parsed, ops));
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
  // Open from the scan to the write: its kept lines are copied from this very file.
  const source = fs.existsSync(snapshot) ? fs.openSync(snapshot, "r") : undefined;
  let bytes: number;
  try {
    const base =
      source === undefined
        ? 0
        : readSnapshotLines(source, {
            indexes: (name, indexes) => {
              const t = table(name);
              for (const spec of indexes) t.indexes.set(spec.name, spec);
            },
            docs: (name, docs) => {
              const t = table(name);
              for (const doc of docs) t.docs.set(doc._id, doc);
            },
            docLine: (name, id, line, offset) =>
              void table(name).docs.set(id, new KeptLine(offset, line.length)),
          });
    let next = base + 1;
    for (const log of rotatedLogs(task.dir)) {
      if (log.seq <= base || log.seq > task.seq) continue;
      readLogFile(log.file, (entry) => {
        if (entry.s < next || entry.s > task.seq) return;
        if (entry.s !== next)
          throw new Error(`store logs in ${task.dir} miss seq ${next} (next line ${entry.s})`);
        applyEntry(table(entry.c), entry, source);
        next++;
      });
    }
    if (next !== task.seq + 1)
      throw new Error(`store logs in ${task.dir} end at seq ${next - 1}, not ${task.seq}`);
    const captured = [...tables].map(([name, t]) => ({
      name,
      indexes: [...t.indexes.values()],
      docs: t.docs.values(),
    }));
    bytes = writeSnapshotSync(task.tmp, task.seq, captured, source);
  } finally {
    if (source !== undefined) fs.closeSync(source);
  }
  installSnapshot(task, snapshot);
  let docs = 0;
  for (const t of tables.values()) docs += t.docs.size;
  return { docs, bytes };
}

/**
 * Puts the written snapshot in place and deletes the logs it covers, here on the compaction's
 * thread: a rename over the old snapshot, the folder's flush and the unlink of a rotated log wait
 * on the file system's journal, which the snapshot's own flush keeps busy, and the store's thread
 * must not wait with them (docs/performance-rounds.md, twenty-second round). Safe to crash between
 * any two steps: until the rename the logs hold every write; after it the snapshot does, and load()
 * deletes or skips the logs it covers.
 */
function installSnapshot(task: CompactionTask, snapshot: string): void {
  fs.renameSync(task.tmp, snapshot);
  fsyncDirectory(task.dir);
  for (const log of rotatedLogs(task.dir)) if (log.seq <= task.seq) fs.rmSync(log.file, { force: true });
}
