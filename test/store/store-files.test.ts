/**
 * The store's files read and written through one reused buffer (shared/store/embedded/file-lines.ts,
 * log-reader.ts, snapshot-writer.ts): what they read and write is what a read of the whole file,
 * line by line, and a fresh buffer per write would give, wherever the buffer's edge falls (in a
 * line, in a character of several bytes, in a line longer than the buffer); a kept snapshot line is
 * copied from the last snapshot's file byte for byte, runs of them too; a torn or corrupt log line
 * is told as before: the last one ignored, an earlier one refused with its byte offset. The log's
 * lines are written through one kept buffer (log-append.ts): the file holds each line's UTF-8,
 * whatever the batch's size, the buffer's growth, or how few bytes each writeSync takes.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { appendLines } from "../../shared/store/embedded/log-append";
import { readLogFile } from "../../shared/store/embedded/log-reader";
import { readSnapshot, type LogEntry } from "../../shared/store/embedded/snapshot";
import { KeptLine, writeSnapshotSync } from "../../shared/store/embedded/snapshot-writer";
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

test("a file that shrinks while it is read ends at what could be read: its cut line is torn, not whole", () => {
  const lines = [1, 2, 3].map((s) => JSON.stringify({ s, c: "jobs", del: [`d${s}`] }) + "\n");
  const file = logOf(lines.join(""));
  const cutAt = Buffer.byteLength(lines[0]) + 10; // inside the second line
  const readSync = fs.readSync;
  const spy = jest
    .spyOn(fs, "readSync")
    .mockImplementation(((fd: number, buffer: Buffer, offset: number, length: number, position: number) =>
      readSync(
        fd,
        buffer,
        offset,
        Math.max(0, Math.min(length, cutAt - position)),
        position,
      )) as typeof fs.readSync);
  try {
    const read = readAll(file, 7);
    expect(read.entries).toEqual([{ s: 1, c: "jobs", del: ["d1"] }]);
    expect(read).toMatchObject({ size: cutAt, goodBytes: Buffer.byteLength(lines[0]) });
  } finally {
    spy.mockRestore();
  }
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

test("a snapshot's lines through the reused buffer read back as written: wide text, a line over the buffer, kept runs, twice", () => {
  const small = Array.from({ length: 300 }, (_, i) => ({ _id: `d${i}`, text: WIDE.join("").repeat(i) }));
  // Two lines of 4.5 and 7.5 MiB of UTF-8 with kept lines between them: together more than the
  // buffer, each less, so the second waits for the first to be written before the buffer is reused;
  // the kept run after the second finds the buffer nearly full and is copied in two parts.
  const a = { _id: "a", text: "漢".repeat(1_500_000) };
  const b = { _id: "b", text: "漢".repeat(2_500_000) };
  const big = { _id: "big", text: "😀".repeat(3 * 1024 * 1024) }; // 12 MiB: more than the buffer
  const after = { _id: "after", text: "é" };
  // The last snapshot's file the kept lines are copied from: k1 and k2 one after the other (one
  // run), a line between k2 and k3, and three kept lines of 3 MiB in a row (a run longer than the
  // buffer).
  const keptText = (id: string, text = "漢") => `"${id}"\t${JSON.stringify({ _id: id, kept: text })}`;
  const wide = "é".repeat(1.5 * 1024 * 1024);
  const lastLines = [
    keptText("k1"),
    keptText("k2"),
    keptText("skipped"),
    keptText("k3"),
    ...["w1", "w2", "w3"].map((id) => keptText(id, wide)),
  ];
  const lastFile = path.join(dir, "snapshot-last.json");
  fs.writeFileSync(lastFile, lastLines.join("\n") + "\n");
  const offsets = lastLines.map(
    (_, i) => Buffer.byteLength(lastLines.slice(0, i).join("\n")) + (i > 0 ? 1 : 0),
  );
  const kept = (id: string) => {
    const i = lastLines.findIndex((l) => l.startsWith(`"${id}"`));
    return new KeptLine(offsets[i], Buffer.byteLength(lastLines[i]));
  };
  const tables = () => [
    {
      name: "jobs",
      indexes: [],
      docs: [
        ...small,
        a,
        kept("k1"),
        kept("k2"),
        kept("k3"),
        b,
        kept("w1"),
        kept("w2"),
        kept("w3"),
        big,
        after,
      ],
    },
  ];
  const source = fs.openSync(lastFile, "r");
  const first = path.join(dir, "snapshot-1.json");
  const second = path.join(dir, "snapshot-2.json");
  let bytes: number;
  try {
    bytes = writeSnapshotSync(first, 5, tables(), source);
    expect(writeSnapshotSync(second, 5, tables(), source)).toBe(bytes);
  } finally {
    fs.closeSync(source);
  }
  expect(fs.readFileSync(second).equals(fs.readFileSync(first))).toBe(true);
  const read: unknown[] = [];
  expect(readSnapshot(first, (_name, _indexes, chunk) => read.push(...chunk))).toBe(5);
  const keptDoc = (id: string, text = "漢") => ({ _id: id, kept: text });
  expect(read).toEqual([
    ...small,
    a,
    keptDoc("k1"),
    keptDoc("k2"),
    keptDoc("k3"),
    b,
    ...["w1", "w2", "w3"].map((id) => keptDoc(id, wide)),
    big,
    after,
  ]);
});

describe("log lines written through the kept buffer (appendLines)", () => {
  afterEach(() => jest.restoreAllMocks());

  /** Random lines of 1-4 byte characters (and a lone surrogate, which UTF-8 writes as U+FFFD). */
  const linesOf = (r: () => number, count: number, longest: number) =>
    Array.from({ length: count }, () => {
      const chars = Array.from({ length: int(r, 0, longest) }, () =>
        int(r, 0, 20) === 0 ? "\ud800" : WIDE[int(r, 0, WIDE.length - 1)],
      );
      return chars.join("") + "\n";
    });

  test("a file of batches holds every line's UTF-8 in order: small batches, one past the kept buffer's bound, small again", () => {
    const r = seeded(20261202);
    const file = logOf("");
    const fd = fs.openSync(file, "a");
    const expected: Buffer[] = [];
    let answered = 0;
    try {
      const batches = [
        ...Array.from({ length: 30 }, () => linesOf(r, int(r, 0, 40), 80)),
        linesOf(r, 3, 400_000), // up to 1.2 M chars of up to 4 bytes: beyond the kept 1 MiB
        ...Array.from({ length: 30 }, () => linesOf(r, int(r, 0, 40), 80)),
      ];
      for (const lines of batches) {
        const chars = lines.reduce((n, line) => n + line.length, 0);
        answered += appendLines(fd, lines, chars);
        expected.push(...lines.map((line) => Buffer.from(line)));
      }
    } finally {
      fs.closeSync(fd);
    }
    const want = Buffer.concat(expected);
    expect(fs.readFileSync(file).equals(want)).toBe(true);
    expect(answered).toBe(want.length);
  });

  test("a writeSync that takes a few bytes at a time is called again until every byte is written", () => {
    const r = seeded(7);
    const real = fs.writeSync;
    const calls = jest
      .spyOn(fs, "writeSync")
      .mockImplementation(((fd: number, buffer: Buffer, offset: number, length: number) =>
        real(fd, buffer, offset, Math.min(length, 7))) as unknown as typeof fs.writeSync);
    const file = logOf("");
    const fd = fs.openSync(file, "a");
    const lines = linesOf(r, 20, 30);
    const chars = lines.reduce((n, line) => n + line.length, 0);
    try {
      expect(appendLines(fd, lines, chars)).toBe(Buffer.byteLength(lines.join("")));
    } finally {
      fs.closeSync(fd);
    }
    expect(fs.readFileSync(file, "utf8")).toBe(Buffer.from(lines.join("")).toString("utf8"));
    expect(calls.mock.calls.length).toBeGreaterThan(10);
  });
});
