/**
 * Child process of `bench:proxy`'s paired slices: a keep-alive load client that the bench turns
 * from one target to the other every slice, so the floor and the proxy share the machine's load
 * slice by slice (a long autocannon run each cannot: the load moves between them). In its own
 * process so its CPU is not the bench process's.
 *
 * Targets are given once ({ targets: [{ port, request }] }, `request` the raw HTTP/1.1 request);
 * then each { run: index, ms } keeps every connection of that target asking, one request at a time,
 * for `ms`, waits for the answers in flight and replies { answered, failed }. Connections stay open
 * between slices (re-opened when the server closed them). Answers must carry a content-length.
 */
import net from "node:net";

interface Target {
  port: number;
  request: Buffer;
}
interface Connection {
  socket: net.Socket;
  busy: boolean;
  buffered: Buffer;
}

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 32);
const HEAD_END = Buffer.from("\r\n\r\n");
let targets: Target[] = [];
const pools = new Map<number, Connection[]>();
let asking = -1;
let answered = 0;
let failed = 0;
let settled: (() => void) | null = null;

function idle(): boolean {
  for (const pool of pools.values()) for (const c of pool) if (c.busy) return false;
  return true;
}

function open(index: number): Connection {
  const socket = net.connect(targets[index].port, "127.0.0.1");
  socket.setNoDelay(true);
  const c: Connection = { socket, busy: false, buffered: Buffer.alloc(0) };
  socket.on("data", (chunk) => {
    c.buffered = c.buffered.length ? Buffer.concat([c.buffered, chunk]) : chunk;
    for (;;) {
      const head = c.buffered.indexOf(HEAD_END);
      if (head < 0) return;
      const text = c.buffered.toString("latin1", 0, head);
      const length = Number(/content-length: *(\d+)/i.exec(text)?.[1] ?? NaN);
      if (Number.isNaN(length)) throw new Error(`an answer without content-length: ${text.slice(0, 300)}`);
      if (c.buffered.length < head + 4 + length) return;
      c.buffered = c.buffered.subarray(head + 4 + length);
      if (text.startsWith("HTTP/1.1 200")) answered++;
      else failed++;
      c.busy = false;
      ask(index, c);
    }
  });
  socket.on("error", () => undefined);
  socket.on("close", () => {
    const pool = pools.get(index)!;
    pool.splice(pool.indexOf(c), 1);
    if (c.busy) failed++;
    c.busy = false;
    ask(index, null);
  });
  return c;
}

/** Sends the next request on `c` (or a fresh connection) while `index` is the target asked. */
function ask(index: number, c: Connection | null): void {
  if (asking !== index) {
    if (settled && idle()) settled();
    return;
  }
  const pool = pools.get(index)!;
  if (!c) {
    if (pool.length >= CONNECTIONS) return;
    c = open(index);
    pool.push(c);
  }
  c.busy = true;
  c.socket.write(targets[index].request);
}

process.on("message", (m: { targets?: { port: number; request: string }[]; run?: number; ms?: number }) => {
  if (m.targets) {
    targets = m.targets.map((t) => ({ port: t.port, request: Buffer.from(t.request, "latin1") }));
    targets.forEach((_, i) => pools.set(i, []));
    process.send!({ ready: true });
    return;
  }
  const index = m.run!;
  answered = 0;
  failed = 0;
  asking = index;
  const pool = pools.get(index)!;
  for (const c of [...pool]) ask(index, c);
  for (let i = pool.length; i < CONNECTIONS; i++) ask(index, null);
  setTimeout(() => {
    asking = -1;
    new Promise<void>((resolve) => {
      settled = resolve;
      if (idle()) resolve();
    }).then(() => {
      settled = null;
      process.send!({ answered, failed });
    });
  }, m.ms);
});
// The bench gone, this child goes too.
process.on("disconnect", () => process.exit(0));
