/**
 * A circuit breaker per adapter: after `threshold` failures in a row (unreachable, timeout, an
 * upstream 5xx) calls are refused at once (503 CIRCUIT_OPEN) for `cooldownMs`, so a failing
 * orchestrator is not hammered and callers do not queue behind timeouts. After the cooldown one
 * trial call goes through (half-open): success closes the circuit, failure opens it again.
 * Per process, like the in-flight limit: each replica protects its own callers, and a replica that
 * dies takes no shared state with it (docs/orchestrator.md#circuit-breaker). A circuit belongs to
 * one generation of the adapter, so a restart or an update closes it on every replica.
 */
import { CircuitOpenError, type Target } from "./target";

interface Circuit {
  /** The adapter's generation these failures were counted under (a restart or update bumps it). */
  generation: number;
  failures: number;
  openUntil: number;
  trialInFlight: boolean;
}

const circuits = new Map<string, Circuit>();

/**
 * The adapter's circuit for its current generation: failures counted under an older one (before a
 * restart or an update, on any replica) are forgotten, so every replica closes the circuit on its
 * next call, not only the one that served the restart or update.
 */
function circuitOf(target: Target): Circuit {
  let c = circuits.get(target.name);
  if (!c || c.generation !== target.generation)
    circuits.set(
      target.name,
      (c = { generation: target.generation, failures: 0, openUntil: 0, trialInFlight: false }),
    );
  return c;
}

/** Throws CircuitOpenError while open; otherwise lets the call through (one at a time when half-open). */
export function admit(target: Target, now = Date.now()): void {
  const c = circuitOf(target);
  if (c.failures < target.breaker.threshold) return;
  if (now < c.openUntil || c.trialInFlight)
    throw new CircuitOpenError(target.name, Math.max(0, c.openUntil - now));
  c.trialInFlight = true;
}

export function recordSuccess(name: string): void {
  circuits.delete(name);
}

export function recordFailure(target: Target, now = Date.now()): void {
  const c = circuitOf(target);
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
  return (
    !!c && c.generation === target.generation && c.failures >= target.breaker.threshold && now < c.openUntil
  );
}
