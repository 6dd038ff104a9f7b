"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.HttpDrain = void 0;
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
const node_net_1 = __importDefault(require("node:net"));
const IDLE_GRACE_MS = 1000;
const POLL_MS = 20;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
class HttpDrain {
    inFlight = new Set();
    sockets = new Set();
    drained;
    get draining() {
        return this.drained !== undefined;
    }
    /** Follows the server's sockets; call once the server exists. */
    attach(server) {
        server.on("connection", (socket) => {
            this.sockets.add(socket);
            socket.once("close", () => this.sockets.delete(socket));
        });
    }
    /** Follows one request until its response is done. */
    track(res) {
        this.inFlight.add(res);
        if (this.draining)
            res.setHeader("Connection", "close");
        res.once("close", () => this.inFlight.delete(res));
    }
    /** Drains once; later calls wait for the same drain. */
    drain(server, timeoutMs) {
        this.drained ??= this.run(server, timeoutMs);
        return this.drained;
    }
    async run(server, timeoutMs) {
        for (const res of this.inFlight)
            if (!res.headersSent)
                res.setHeader("Connection", "close");
        if (server.listening)
            node_net_1.default.Server.prototype.close.call(server);
        const until = Date.now() + timeoutMs;
        while (this.inFlight.size > 0 && Date.now() < until)
            await sleep(POLL_MS);
        const idleUntil = Math.min(until, Date.now() + IDLE_GRACE_MS);
        while (this.sockets.size > 0 && Date.now() < idleUntil)
            await sleep(POLL_MS);
        server.closeAllConnections();
    }
}
exports.HttpDrain = HttpDrain;
//# sourceMappingURL=drain.js.map