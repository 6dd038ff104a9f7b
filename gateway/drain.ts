/**
 * The gateway's part of a rolling restart (docs/operations-guide.md#rolling-restarts). While
 * draining: `/ready` answers 503, the listening socket is closed (no new connections), every
 * response says `Connection: close` (so a client's next request opens a connection, which is
 * refused here and goes to another replica), event streams end, and the drain waits for the
 * requests in flight, bounded by SHUTDOWN_TIMEOUT. Idle keep-alive sockets get a short grace to
 * be closed by their clients, then every socket left is closed.
 *
 * It closes the listening socket with net.Server's close, not http.Server's: the latter also
 * closes idle keep-alive sockets at once, racing a client that is just sending on one (the
 * request would be lost with a reset instead of answered).
 */
import net, { type Socket } from "node:net";
import type { Server, ServerResponse } from "node:http";
import { LinkedSet } from "../shared/linked-set";

const IDLE_GRACE_MS = 1000;
const POLL_MS = 20;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the gateway does once a tracked response is done, given the time `track` was given. */
export type Answered = (res: ServerResponse, startedAt: number) => void;

/** Where a tracked response holds the start `track` was given, beside inFlight's links. */
const STARTED_AT = Symbol("drain.startedAt");
type Tracked = ServerResponse & { [STARTED_AT]?: number };

/**
 * The one 'close' listener of every response: forgets it in `inFlight` and hands it, with its
 * start, to `answered` (the gateway's metrics and access log), if any. One listener, not the
 * drain's and the metrics' side by side: with two, each response's listeners are an array
 * (allocated when the second is added, copied again when 'close' is emitted).
 */
function forgetIn(inFlight: LinkedSet<ServerResponse>, answered: () => Answered | undefined) {
  return function forget(this: Tracked) {
    inFlight.delete(this);
    answered()?.(this, this[STARTED_AT] ?? 0);
  };
}

export class HttpDrain {
  /**
   * Linked sets, not Sets or Maps: a member in, a member out with every request (or connection),
   * and a Set's left-behind tables kept each proxied request's response alive into the old
   * generation (../shared/linked-set.ts says why). A response's start rides with its links.
   */
  private readonly inFlight = new LinkedSet<ServerResponse>();
  private readonly sockets = new LinkedSet<Socket>();
  private drained?: Promise<void>;
  private answered?: Answered;

  get draining(): boolean {
    return this.drained !== undefined;
  }

  /** Follows the server's sockets; call once the server exists. */
  attach(server: Server): void {
    server.on("connection", (socket: Socket) => {
      this.sockets.add(socket);
      socket.once("close", () => this.sockets.delete(socket));
    });
  }

  /** Calls `answered` once for each tracked response, when it is done. */
  onAnswered(answered: Answered): void {
    this.answered = answered;
  }

  /**
   * One listener for every response ('close' comes once; a response is not reused): no closure
   * and once-wrapper per request.
   */
  private readonly done = forgetIn(this.inFlight, () => this.answered);

  /** Follows one request until its response is done; `startedAt` is handed back to `onAnswered`'s. */
  track(res: ServerResponse, startedAt = 0): void {
    (res as Tracked)[STARTED_AT] = startedAt;
    this.inFlight.add(res);
    if (this.draining) res.setHeader("Connection", "close");
    res.on("close", this.done);
  }

  /** Responses not yet done (for tests). */
  get inFlightCount(): number {
    return this.inFlight.size;
  }

  /** Drains once; later calls wait for the same drain. */
  drain(server: Server, timeoutMs: number): Promise<void> {
    this.drained ??= this.run(server, timeoutMs);
    return this.drained;
  }

  private async run(server: Server, timeoutMs: number): Promise<void> {
    for (const res of this.inFlight) if (!res.headersSent) res.setHeader("Connection", "close");
    if (server.listening) net.Server.prototype.close.call(server);
    const until = Date.now() + timeoutMs;
    while (this.inFlight.size > 0 && Date.now() < until) await sleep(POLL_MS);
    const idleUntil = Math.min(until, Date.now() + IDLE_GRACE_MS);
    while (this.sockets.size > 0 && Date.now() < idleUntil) await sleep(POLL_MS);
    // http.Server's close now, the listening socket being closed already: it closes the idle
    // sockets and stops the server's connection-checking timer, which net.Server's close leaves
    // running; that timer kept the server, and the broker behind its listeners, alive after a stop.
    server.close();
    server.closeAllConnections();
  }
}
