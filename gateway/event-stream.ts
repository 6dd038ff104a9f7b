/**
 * GET /events: Server-Sent Events of job and task changes (docs/platform-rules.md#probes-and-extras). Each gateway
 * replica receives every engine event (the engine broadcasts them) and writes it to its own open
 * streams whose caller may see the job: admin, or a caller sharing one of the job's groups.
 */
import { PassThrough } from "node:stream";
import type { Caller } from "../shared/contracts/resources";
import { maySeeJob } from "../shared/job-visibility";

interface Client {
  stream: PassThrough;
  caller: Caller;
}

const HEARTBEAT_MS = 15_000;
const SSE = Symbol("server-sent events");

export function isEventStream(data: unknown): data is PassThrough {
  return data instanceof PassThrough && (data as unknown as Record<symbol, boolean>)[SSE] === true;
}

/**
 * Writes an event stream to the response. A client going away is how an event stream ends, not an
 * error (moleculer-web's stream path would log every disconnect as one).
 */
export function sendEventStream(
  res: import("node:http").ServerResponse,
  stream: PassThrough,
  headers: Record<string, string>,
): void {
  res.writeHead(200, {
    ...headers,
    "Content-Type": "text/event-stream; charset=utf-8",
    "Cache-Control": "no-cache",
    "X-Accel-Buffering": "no",
  });
  res.flushHeaders();
  stream.pipe(res);
  res.once("close", () => stream.destroy());
}

/** Group-based access: the rule of job reads, from its one home (shared/job-visibility.ts). */
const maySee = maySeeJob;

export class EventStreams {
  private clients = new Set<Client>();
  private heartbeat: NodeJS.Timeout;

  constructor() {
    // A comment line now and then keeps proxies from closing an idle stream.
    this.heartbeat = setInterval(() => this.each((c) => c.stream.write(": ping\n\n")), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  open(caller: Caller): PassThrough {
    const client: Client = { stream: Object.assign(new PassThrough(), { [SSE]: true }), caller };
    this.clients.add(client);
    client.stream.once("close", () => this.clients.delete(client));
    client.stream.write("retry: 3000\n: connected\n\n");
    return client.stream;
  }

  /** Writes one event to every stream whose caller may see a job in `groups`. */
  publish(kind: string, payload: { groups?: string[] }): void {
    const frame = `event: ${kind}\ndata: ${JSON.stringify(payload)}\n\n`;
    this.each((c) => {
      if (maySee(c.caller, payload.groups)) c.stream.write(frame);
    });
  }

  get size(): number {
    return this.clients.size;
  }

  close(): void {
    clearInterval(this.heartbeat);
    this.each((c) => c.stream.end());
    this.clients.clear();
  }

  private each(fn: (client: Client) => void): void {
    for (const client of this.clients) fn(client);
  }
}
