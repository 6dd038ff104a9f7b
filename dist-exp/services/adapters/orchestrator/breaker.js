"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.admit = admit;
exports.recordSuccess = recordSuccess;
exports.recordFailure = recordFailure;
exports.abandonTrial = abandonTrial;
exports.resetCircuit = resetCircuit;
exports.isOpen = isOpen;
/**
 * A circuit breaker per adapter: after `threshold` failures in a row (unreachable, timeout, an
 * upstream 5xx) calls are refused at once (503 CIRCUIT_OPEN) for `cooldownMs`, so a failing
 * orchestrator is not hammered and callers do not queue behind timeouts. After the cooldown one
 * trial call goes through (half-open): success closes the circuit, failure opens it again.
 * Per process, like the in-flight limit: each replica protects its own callers, and a replica that
 * dies takes no shared state with it (docs/orchestrator.md#circuit-breaker).
 */
const target_1 = require("./target");
const circuits = new Map();
function circuitOf(name) {
    let c = circuits.get(name);
    if (!c)
        circuits.set(name, (c = { failures: 0, openUntil: 0, trialInFlight: false }));
    return c;
}
/** Throws CircuitOpenError while open; otherwise lets the call through (one at a time when half-open). */
function admit(target, now = Date.now()) {
    const c = circuitOf(target.name);
    if (c.failures < target.breaker.threshold)
        return;
    if (now < c.openUntil || c.trialInFlight)
        throw new target_1.CircuitOpenError(target.name, Math.max(0, c.openUntil - now));
    c.trialInFlight = true;
}
function recordSuccess(name) {
    circuits.delete(name);
}
function recordFailure(target, now = Date.now()) {
    const c = circuitOf(target.name);
    c.failures++;
    c.trialInFlight = false;
    if (c.failures >= target.breaker.threshold)
        c.openUntil = now + target.breaker.cooldownMs;
}
/** A half-open trial that never reached the target (refused by the in-flight limit): let another try. */
function abandonTrial(name) {
    const c = circuits.get(name);
    if (c)
        c.trialInFlight = false;
}
/** Forgets the adapter's circuit (restart, start, delete). */
function resetCircuit(name) {
    circuits.delete(name);
}
/** For health answers: whether calls are being refused right now. */
function isOpen(target, now = Date.now()) {
    const c = circuits.get(target.name);
    return !!c && c.failures >= target.breaker.threshold && now < c.openUntil;
}
//# sourceMappingURL=breaker.js.map