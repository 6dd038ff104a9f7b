import net from "node:net";

/**
 * The engine benches' HTTP/1.1 client: keep-alive sockets, one request at a time on each (no
 * pipelining), answers read by hand (a Content-Length body or a chunked one). Node's `fetch` cost
 * the load process 1.6-2.2 ms of CPU a job (docs/performance-rounds.md, ninth round) on the same two
 * cores as the platform it measures, while the peers' jobs start with a library call: this one
 * costs a small part of that, so the figures are the platform's. Sockets open as requests need
 * them, up to `maxSockets`; more requests wait for one. A socket is not used again after an answer
 * that says `Connection: close`, nor after `idleMs` idle: a server closes an idle socket after its
 * keep-alive timeout (Node's default 5 s; the gateway's 65 s, HTTP_KEEP_ALIVE_TIMEOUT_MS), and a
 * request sent as it closes it is lost (`ECONNRESET`). test/bench/lean-http.test.ts.
 */
export interface Answer {
  status: number;
  body: string;
}

interface Waiting {
  resolve(answer: Answer): void;
  reject(err: Error): void;
}

/** One keep-alive connection and the answer it is reading, if any. */
class Connection {
  private chunks: Buffer[] = [];
  private size = 0;
  private waiting?: Waiting;
  private timer?: NodeJS.Timeout;
  closed = false;
  /** When its last answer was read (an idle connection's age). */
  idleSince = 0;

  constructor(
    readonly socket: net.Socket,
    private readonly onFree: (c: Connection) => void,
  ) {
    socket.setNoDelay(true);
    socket.on("data", (chunk: Buffer) => this.read(chunk));
    const fail = (err: Error) => this.close(err);
    socket.on("error", fail);
    socket.on("close", () => fail(new Error("connection closed")));
  }

  send(request: string, timeoutMs: number, waiting: Waiting): void {
    if (this.closed) return waiting.reject(new Error("connection closed"));
    this.waiting = waiting;
    this.timer = setTimeout(() => this.close(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    this.socket.write(request);
  }

  private read(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    const all = this.chunks.length === 1 ? chunk : Buffer.concat(this.chunks, this.size);
    const answer = parseAnswer(all);
    if (answer === undefined) {
      this.chunks = [all];
      return;
    }
    if (answer.rest > 0 || !this.waiting) return this.close(new Error("an answer nobody asked for"));
    this.chunks = [];
    this.size = 0;
    const waiting = this.waiting;
    this.waiting = undefined;
    clearTimeout(this.timer);
    // The server closes it after this answer: its close event frees the slot for a new socket.
    if (answer.close) this.close(new Error("closed by the server"));
    else {
      this.idleSince = performance.now();
      this.onFree(this);
    }
    waiting.resolve({ status: answer.status, body: answer.body });
  }

  close(err: Error): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.timer);
    this.socket.destroy();
    this.waiting?.reject(err);
    this.waiting = undefined;
  }
}

/** An answer parsed: `rest` counts the bytes after it, `close` is its `Connection: close`. */
interface Parsed {
  status: number;
  body: string;
  rest: number;
  close: boolean;
}

/**
 * The answer at the start of `data`, or undefined while it is incomplete. Throws on what is no
 * HTTP/1.1 answer.
 */
export function parseAnswer(data: Buffer): Parsed | undefined {
  const headEnd = data.indexOf("\r\n\r\n");
  if (headEnd < 0) return undefined;
  const head = data.toString("latin1", 0, headEnd);
  const status = /^HTTP\/1\.1 (\d{3}) /.exec(head);
  if (!status) throw new Error(`not an HTTP/1.1 answer: ${head.slice(0, 80)}`);
  const close = /\r\nconnection: *close\b/i.test(head);
  const start = headEnd + 4;
  const length = /\r\ncontent-length: *(\d+)/i.exec(head);
  if (length) {
    const end = start + Number(length[1]);
    if (data.length < end) return undefined;
    return {
      status: Number(status[1]),
      body: data.toString("utf8", start, end),
      rest: data.length - end,
      close,
    };
  }
  if (!/\r\ntransfer-encoding: *chunked/i.test(head)) throw new Error("an answer without a length");
  const parts: Buffer[] = [];
  for (let at = start; ;) {
    const line = data.indexOf("\r\n", at);
    if (line < 0) return undefined;
    const n = parseInt(data.toString("latin1", at, line), 16);
    if (Number.isNaN(n)) throw new Error("a chunk without its size");
    const end = line + 2 + n + 2;
    if (data.length < end) return undefined;
    if (n === 0)
      return {
        status: Number(status[1]),
        body: Buffer.concat(parts).toString("utf8"),
        rest: data.length - end,
        close,
      };
    parts.push(data.subarray(line + 2, line + 2 + n));
    at = end;
  }
}

export class LeanHttp {
  private readonly host: string;
  private readonly port: number;
  private readonly idle: Connection[] = [];
  /** Requests waiting for a connection, first come first served. */
  private readonly queue: ((c: Connection) => void)[] = [];
  private open = 0;

  constructor(
    base: string,
    private readonly maxSockets = 256,
    private readonly timeoutMs = 30_000,
    /** Under the server's keep-alive timeout, so the client lets a socket go before the server does. */
    private readonly idleMs = 4_000,
  ) {
    const url = new URL(base);
    if (url.protocol !== "http:") throw new Error(`LeanHttp speaks http only: ${base}`);
    this.host = url.hostname;
    this.port = Number(url.port || 80);
  }

  /** `method path` with `headers` (name -> value) and a UTF-8 `body`, answered. */
  async request(method: string, path: string, headers: Record<string, string>, body = ""): Promise<Answer> {
    let head = `${method} ${path} HTTP/1.1\r\nhost: ${this.host}:${this.port}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n`;
    for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
    const request = `${head}\r\n${body}`;
    const connection = await this.connection();
    return new Promise<Answer>((resolve, reject) =>
      connection.send(request, this.timeoutMs, { resolve, reject }),
    );
  }

  /** Closes the idle sockets (the platform is stopping). */
  close(): void {
    for (const c of this.idle.splice(0)) c.close(new Error("client closed"));
  }

  private connection(): Promise<Connection> {
    // An idle socket the server closed, or may be closing (idle for idleMs), is dropped, not used.
    const now = performance.now();
    for (let c = this.idle.pop(); c; c = this.idle.pop()) {
      if (!c.closed && now - c.idleSince < this.idleMs) return Promise.resolve(c);
      c.close(new Error("idle too long"));
    }
    if (this.open < this.maxSockets) return this.connect();
    return new Promise((resolve) => this.queue.push(resolve));
  }

  private connect(): Promise<Connection> {
    this.open++;
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: this.host, port: this.port });
      const connection = new Connection(socket, (c) => this.free(c));
      socket.once("close", () => {
        this.open--;
        const next = this.queue.shift();
        if (next) void this.connect().then(next);
      });
      socket.once("connect", () => resolve(connection));
      socket.once("error", reject);
    });
  }

  /** A connection whose answer is in: to the first request waiting, or idle. */
  private free(c: Connection): void {
    const next = this.queue.shift();
    if (next) next(c);
    else this.idle.push(c);
  }
}
