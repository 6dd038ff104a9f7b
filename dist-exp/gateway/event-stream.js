"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.EventStreams = exports.TooManyStreamsError = void 0;
exports.isEventStream = isEventStream;
exports.sendEventStream = sendEventStream;
/**
 * GET /events: Server-Sent Events of job and task changes (docs/platform-rules.md#probes-and-extras). Each gateway
 * replica receives every engine event (the engine broadcasts them) and writes it to its own open
 * streams whose caller may see the job: admin, or a caller sharing one of the job's groups.
 */
const node_stream_1 = require("node:stream");
const moleculer_1 = require("moleculer");
const job_visibility_1 = require("../shared/job-visibility");
const HEARTBEAT_MS = 15_000;
const SSE = Symbol("server-sent events");
function isEventStream(data) {
    return data instanceof node_stream_1.PassThrough && data[SSE] === true;
}
/**
 * Writes an event stream to the response. A client going away is how an event stream ends, not an
 * error (moleculer-web's stream path would log every disconnect as one).
 */
function sendEventStream(res, stream, headers) {
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
const maySee = job_visibility_1.maySeeJob;
/** A stream not allowed to open: 429, as the rate limit answers. */
class TooManyStreamsError extends moleculer_1.Errors.MoleculerClientError {
    constructor(message) {
        super(message, 429, "RATE_LIMITED");
        this.name = "TooManyStreamsError";
    }
}
exports.TooManyStreamsError = TooManyStreamsError;
class EventStreams {
    limits;
    refresh;
    clients = new Set();
    heartbeat;
    recheck;
    constructor(limits, refresh) {
        this.limits = limits;
        this.refresh = refresh;
        // A comment line now and then keeps proxies from closing an idle stream.
        this.heartbeat = setInterval(() => this.each((c) => c.stream.write(": ping\n\n")), HEARTBEAT_MS);
        this.heartbeat.unref();
        this.recheck = setInterval(() => void this.recheckCallers(), limits.recheckMs);
        this.recheck.unref();
    }
    open(caller) {
        if (this.clients.size >= this.limits.total)
            throw new TooManyStreamsError(`This gateway holds its limit of ${this.limits.total} event streams`);
        const key = streamOwner(caller);
        let mine = 0;
        for (const c of this.clients)
            if (streamOwner(c.caller) === key)
                mine++;
        if (mine >= this.limits.perSession)
            throw new TooManyStreamsError(`At most ${this.limits.perSession} event streams per session`);
        const client = { stream: Object.assign(new node_stream_1.PassThrough(), { [SSE]: true }), caller };
        this.clients.add(client);
        client.stream.once("close", () => this.clients.delete(client));
        client.stream.write("retry: 3000\n: connected\n\n");
        return client.stream;
    }
    /** Writes one event to every stream whose caller may see a job in `groups`. */
    publish(kind, payload) {
        // Every job write reaches every gateway: with no stream open, nothing is serialized.
        if (this.clients.size === 0)
            return;
        const frame = `event: ${kind}\ndata: ${JSON.stringify(payload)}\n\n`;
        this.each((c) => {
            if (maySee(c.caller, payload.groups))
                c.stream.write(frame);
        });
    }
    /** Ends at once the streams of sessions revoked anywhere in the cluster (logout, password change). */
    endSessions(sessionIds) {
        const ended = new Set(sessionIds);
        this.each((c) => {
            if (c.caller.sessionId && ended.has(c.caller.sessionId))
                this.end(c, "session ended");
        });
    }
    get size() {
        return this.clients.size;
    }
    close() {
        clearInterval(this.heartbeat);
        clearInterval(this.recheck);
        this.each((c) => c.stream.end());
        this.clients.clear();
    }
    /** Each stream sees its caller as it is now: ended sessions end it, group changes apply. */
    async recheckCallers() {
        await Promise.all([...this.clients].map(async (c) => {
            try {
                c.caller = await this.refresh(c.caller);
            }
            catch (err) {
                // Only a definite "no" ends a stream; accounts being unreachable for a moment does not.
                if (err.code === 401)
                    this.end(c, "session ended");
            }
        }));
    }
    end(client, reason) {
        client.stream.end(`event: end\ndata: ${JSON.stringify({ reason })}\n\n`);
        this.clients.delete(client);
    }
    each(fn) {
        for (const client of this.clients)
            fn(client);
    }
}
exports.EventStreams = EventStreams;
/** Whose stream this is: the session, or (Basic authentication) the account. */
const streamOwner = (caller) => caller.sessionId ?? `account:${caller.accountId}`;
//# sourceMappingURL=event-stream.js.map