/**
 * A circuit breaker per adapter: after `threshold` failures in a row (unreachable, timeout, an
 * upstream 5xx) calls are refused at once (503 CIRCUIT_OPEN) for `cooldownMs`, so a failing
 * orchestrator is not hammered and callers do not queue behind timeouts. After the cooldown one
 * trial call goes through (half-open): success closes the circuit, failure opens it again.
 * Per process, like the in-flight limit: each replica protects its own callers, and a replica that
 * dies takes no shared state with it (docs/orchestrator.md#circuit-breaker).
 */
import { CircuitOpenError, type Target } from "./target";

interface Circuit {
  failures: number;
  openUntil: number;
  trialInFlight: boolean;
}

const circuits = new Map<string, Circuit>();

function circuitOf(name: string): Circuit {
  let c = circuits.get(name);
  if (!c) circuits.set(name, (c = { failures: 0, openUntil: 0, trialInFlight: false }));
  return c;
}

/** Throws CircuitOpenError while open; otherwise lets the call through (one at a time when half-open). */
export function admit(target: Target, now = Date.now()): void {
  const c = circuitOf(target.name);
  if (c.failures < target.breaker.threshold) return;
  if (now < c.openUntil || c.trialInFlight)
    throw new CircuitOpenError(target.name, Math.max(0, c.openUntil - now));
  c.trialInFlight = true;
}

export function recordSuccess(name: string): void {
  circuits.delete(name);
}

export function recordFailure(target: Target, now = Date.now()): void {
  const c = circuitOf(target.name);
  c.failures++;
  c.trialInFlight = false;
  if (c.failures >= target.breaker.threshold) c.openUntil = now + target.breaker.cooldownMs;
}

/** A half-open trial that never reached the target (refused by the in-flight limit): let another try. */
export function abandonTrial(name: string): void {
  const c = circuits.get(name);
  if (c) c.trialInFlight = false;
}

/** Forgets the adapter's circuit (restart, start, delete). */
export function resetCircuit(name: string): void {
  circuits.delete(name);
}

/** For health answers: whether calls are being refused right now. */
export function isOpen(target: Target, now = Date.now()): boolean {
  const c = circuits.get(target.name);
  return !!c && c.failures >= target.breaker.threshold && now < c.openUntil;
}
