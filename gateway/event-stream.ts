/**
 * GET /events: Server-Sent Events of job and task changes (docs/platform-rules.md#probes-and-extras). Each gateway
 * replica receives every engine event (the engine broadcasts them) and writes it to its own open
 * streams whose caller may see the job: admin, or a caller sharing one of the job's groups.
 */
import { PassThrough } from "node:stream";
import { Errors } from "moleculer";
import type { JobChangesEvent } from "../shared/contracts/events";
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

export interface StreamLimits {
  /** Streams one session may hold open on this gateway. */
  perSession: number;
  /** Streams this gateway holds open in all. */
  total: number;
  /** How often each stream's caller is read again (session ended, account inactive, groups changed). */
  recheckMs: number;
}

/** Asks accounts for a stream's caller as it is now; rejects once the session or account has ended. */
export type RefreshCaller = (caller: Caller) => Promise<Caller>;

/** A stream not allowed to open: 429, as the rate limit answers. */
export class TooManyStreamsError extends Errors.MoleculerClientError {
  constructor(message: string) {
    super(message, 429, "RATE_LIMITED");
    this.name = "TooManyStreamsError";
  }
}

export class EventStreams {
  private clients = new Set<Client>();
  private heartbeat: NodeJS.Timeout;
  private recheck: NodeJS.Timeout;

  constructor(
    private readonly limits: StreamLimits,
    private readonly refresh: RefreshCaller,
  ) {
    // A comment line now and then keeps proxies from closing an idle stream.
    this.heartbeat = setInterval(() => this.each((c) => c.stream.write(": ping\n\n")), HEARTBEAT_MS);
    this.heartbeat.unref();
    this.recheck = setInterval(() => void this.recheckCallers(), limits.recheckMs);
    this.recheck.unref();
  }

  open(caller: Caller): PassThrough {
    if (this.clients.size >= this.limits.total)
      throw new TooManyStreamsError(`This gateway holds its limit of ${this.limits.total} event streams`);
    const key = streamOwner(caller);
    let mine = 0;
    for (const c of this.clients) if (streamOwner(c.caller) === key) mine++;
    if (mine >= this.limits.perSession)
      throw new TooManyStreamsError(`At most ${this.limits.perSession} event streams per session`);
    const client: Client = { stream: Object.assign(new PassThrough(), { [SSE]: true }), caller };
    this.clients.add(client);
    client.stream.once("close", () => this.clients.delete(client));
    client.stream.write("retry: 3000\n: connected\n\n");
    return client.stream;
  }

  /** Writes one event to every stream whose caller may see a job in `groups`. */
  publish(kind: string, payload: { groups?: string[] }): void {
    // Every job write reaches every gateway: with no stream open, nothing is serialized.
    if (this.clients.size === 0) return;
    const frame = `event: ${kind}\ndata: ${JSON.stringify(payload)}\n\n`;
    this.each((c) => {
      if (maySee(c.caller, { groups: payload.groups })) c.stream.write(frame);
    });
  }

  /** One engine change (a job write): a task event per task it changed, then a job event if the job did. */
  publishChange(change: JobChangesEvent): void {
    if (this.clients.size === 0) return;
    const { jobChanged, tasks, ...job } = change;
    for (const task of tasks) this.publish("task", { ...job, ...task });
    if (jobChanged) this.publish("job", job);
  }

  /** Ends at once the streams of sessions revoked anywhere in the cluster (logout, password change). */
  endSessions(sessionIds: string[]): void {
    const ended = new Set(sessionIds);
    this.each((c) => {
      if (c.caller.sessionId && ended.has(c.caller.sessionId)) this.end(c, "session ended");
    });
  }

  get size(): number {
    return this.clients.size;
  }

  close(): void {
    clearInterval(this.heartbeat);
    clearInterval(this.recheck);
    this.each((c) => c.stream.end());
    this.clients.clear();
  }

  /** Each stream sees its caller as it is now: ended sessions end it, group changes apply. */
  private async recheckCallers(): Promise<void> {
    await Promise.all(
      [...this.clients].map(async (c) => {
        try {
          c.caller = await this.refresh(c.caller);
        } catch (err) {
          // Only a definite "no" ends a stream; accounts being unreachable for a moment does not.
          if ((err as { code?: number }).code === 401) this.end(c, "session ended");
        }
      }),
    );
  }

  /**
   * Ends a stream once. Two enders can race: a recheck whose refresh was in flight when the
   * session's logout event ended the stream, or when the gateway closed. Whoever takes the client
   * out of the set ends it; a second end would write after the end and throw.
   */
  private end(client: Client, reason: string): void {
    if (!this.clients.delete(client)) return;
    client.stream.end(`event: end\ndata: ${JSON.stringify({ reason })}\n\n`);
  }

  private each(fn: (client: Client) => void): void {
    for (const client of this.clients) fn(client);
  }
}

/** Whose stream this is: the session, or (Basic authentication) the account. */
const streamOwner = (caller: Caller) => caller.sessionId ?? `account:${caller.accountId}`;
