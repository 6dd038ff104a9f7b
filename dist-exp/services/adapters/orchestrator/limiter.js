"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.Limiter = void 0;
exports.limiterFor = limiterFor;
/**
 * At most N requests in flight per adapter, with a bounded FIFO queue; past the queue, refuse at
 * once (503) instead of piling up. Per process on purpose: the limit protects this replica's
 * sockets and memory, and a shared counter in the store would add a round trip to every call and
 * leak slots when a replica dies mid-request. With R replicas the orchestrator sees at most R x N
 * (docs/orchestrator.md#limits).
 */
class Limiter {
    maxInFlight;
    maxQueue;
    inFlight = 0;
    waiting = [];
    constructor(maxInFlight, maxQueue) {
        this.maxInFlight = maxInFlight;
        this.maxQueue = maxQueue;
    }
    /** Runs `task` when a slot is free; false (nothing run) when the queue is full. */
    async run(task, onFull) {
        if (this.inFlight >= this.maxInFlight) {
            if (this.waiting.length >= this.maxQueue)
                throw onFull();
            await new Promise((resolve) => this.waiting.push(resolve));
        }
        else
            this.inFlight++;
        try {
            return await task();
        }
        finally {
            const next = this.waiting.shift();
            if (next)
                next();
            else
                this.inFlight--;
        }
    }
}
exports.Limiter = Limiter;
/** One limiter per adapter name and limits; a changed limit gets a fresh limiter. */
const limiters = new Map();
function limiterFor(name, maxInFlight, maxQueue) {
    const key = `${name}\u0000${maxInFlight}\u0000${maxQueue}`;
    let limiter = limiters.get(key);
    if (!limiter)
        limiters.set(key, (limiter = new Limiter(maxInFlight, maxQueue)));
    return limiter;
}
//# sourceMappingURL=limiter.js.map