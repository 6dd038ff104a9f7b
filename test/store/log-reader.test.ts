/**
 * The store's log read through one reused buffer (shared/store/embedded/log-reader.ts) and the
 * snapshot's lines encoded through one (snapshot.ts writeSnapshotSync): what they read and write is
 * what a read of the whole file, line by line, and a fresh buffer per write would give, wherever
 * the buffer's edge falls (in a line, in a character of several bytes, in a line longer than the
 * buffer), and a torn or corrupt line is told as before: the last one ignored, an earlier one
 * refused with its byte offset.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { readLogFile } from "../../shared/store/embedded/log-reader";
import { readSnapshot, writeSnapshotSync, type LogEntry } from "../../shared/store/embedded/snapshot";
import { int, seeded } from "../support/random-docs";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "log-reader-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
let files = 0;
const logOf = (content: string | Buffer) => {
  const file = path.join(dir, `store.log.${++files}`);
  fs.writeFileSync(file, content);
  return file;
};

function readAll(
  file: string,
  chunkBytes?: number,
): { entries: LogEntry[]; size: number; goodBytes: number } {
  const entries: LogEntry[] = [];
  const read = readLogFile(file, (entry) => entries.push(entry), chunkBytes);
  return { entries, ...read };
}

/** Text of several byte lengths in UTF-8: the buffer's edge falls inside characters too. */
const WIDE = ["a", "é", "漢", "😀", "\\n", '"', "\t"];

function randomLine(r: () => number, s: number): LogEntry {
  const text = Array.from({ length: int(r, 0, 60) }, () => WIDE[int(r, 0, WIDE.length - 1)]).join("");
  return { s, c: "jobs", put: [{ _id: `d${s}`, text, n: int(r, 0, 1000) }] };
}

test("every line read, in order, wherever the buffer's edge falls: 200 random logs, buffers of 1 to 300 bytes", () => {
  const r = seeded(20261201);
  for (let round = 0; round < 200; round++) {
    const entries = Array.from({ length: int(r, 0, 40) }, (_, i) => randomLine(r, i + 1));
    const content = entries.map((e) => JSON.stringify(e) + "\n").join("");
    const file = logOf(content);
    const read = readAll(file, int(r, 1, 300));
    expect(read.entries).toEqual(entries);
    expect(read).toMatchObject({ size: Buffer.byteLength(content), goodBytes: Buffer.byteLength(content) });
  }
});

test("a line longer than the buffer grows it, and the next read with the default buffer is right too", () => {
  const long: LogEntry = { s: 2, c: "jobs", put: [{ _id: "big", text: "漢".repeat(50_000) }] };
  const entries: LogEntry[] = [{ s: 1, c: "jobs", del: ["x"] }, long, { s: 3, c: "jobs", del: ["y"] }];
  const file = logOf(entries.map((e) => JSON.stringify(e) + "\n").join(""));
  expect(readAll(file, 64).entries).toEqual(entries);
  // The default buffer is kept between reads (a compaction's thread reads a log every 64 MiB).
  expect(readAll(file).entries).toEqual(entries);
  const other = logOf(JSON.stringify({ s: 9, c: "devices", del: ["z"] }) + "\n");
  expect(readAll(other).entries).toEqual([{ s: 9, c: "devices", del: ["z"] }]);
});

test("a torn last line is ignored, whether it parses or not; its start is where the whole lines end", () => {
  const whole = JSON.stringify({ s: 1, c: "jobs", del: ["a"] }) + "\n";
  const wholeBytes = Buffer.byteLength(whole);
  for (const chunk of [3, 17, undefined]) {
    for (const torn of [
      '{"s":2,"c":"jobs","put":[{"_id":"t',
      '{"s":2,"c":"jobs","del":["b"]}',
      "garbage\n",
    ]) {
      const read = readAll(logOf(whole + torn), chunk);
      expect(read.entries).toEqual([{ s: 1, c: "jobs", del: ["a"] }]);
      expect(read).toMatchObject({ size: wholeBytes + Buffer.byteLength(torn), goodBytes: wholeBytes });
    }
  }
  expect(readAll(logOf(""))).toEqual({ entries: [], size: 0, goodBytes: 0 });
});

test("a line that does not parse before the last is corruption, named with its byte offset, wherever the buffer ends", () => {
  const first = JSON.stringify({ s: 1, c: "jobs", del: ["a"] }) + "\n";
  const file = logOf(first + "garbage\n" + JSON.stringify({ s: 2, c: "jobs", del: ["b"] }) + "\n");
  // Buffers of 1 to 80 bytes: in some the corrupt line ends at the buffer's last byte, not the file's.
  for (let chunk = 1; chunk <= 80; chunk++)
    expect(() => readAll(file, chunk)).toThrow(
      `store log ${file} is corrupt at byte ${Buffer.byteLength(first)}`,
    );
  expect(() => readAll(file)).toThrow(`store log ${file} is corrupt at byte ${Buffer.byteLength(first)}`);
});

test("a snapshot's lines encoded through the reused buffer read back as written: wide text, a line over the buffer, twice", () => {
  const small = Array.from({ length: 300 }, (_, i) => ({ _id: `d${i}`, text: WIDE.join("").repeat(i) }));
  // Two lines of 4.5 MiB of UTF-8 each with a kept line between them: together more than the
  // buffer, each less, so the second waits for the first to be written before the buffer is reused.
  const a = { _id: "a", text: "漢".repeat(1_500_000) };
  const b = { _id: "b", text: "漢".repeat(1_500_000) };
  const big = { _id: "big", text: "😀".repeat(3 * 1024 * 1024) }; // 12 MiB: more than the buffer
  const after = { _id: "after", text: "é" };
  const kept = (id: string) => Buffer.from(`"${id}"\t{"_id":"${id}","kept":"漢"}`);
  const tables = () => [
    { name: "jobs", indexes: [], docs: [...small, a, kept("k1"), b, kept("k2"), big, after] },
  ];
  const first = path.join(dir, "snapshot-1.json");
  const second = path.join(dir, "snapshot-2.json");
  const bytes = writeSnapshotSync(first, 5, tables());
  expect(writeSnapshotSync(second, 5, tables())).toBe(bytes);
  expect(fs.readFileSync(second).equals(fs.readFileSync(first))).toBe(true);
  const read: unknown[] = [];
  expect(readSnapshot(fs.readFileSync(first), (_name, _indexes, chunk) => read.push(...chunk))).toBe(5);
  const keptDoc = (id: string) => ({ _id: id, kept: "漢" });
  expect(read).toEqual([...small, a, keptDoc("k1"), b, keptDoc("k2"), big, after]);
});
