/**
 * The circuit breaker belongs to one generation of an adapter (services/adapters/orchestrator/breaker.ts):
 * failures counted before a restart or an update (both bump `generation`, on whichever replica
 * served them) do not keep the circuit open for the next generation's calls, on any replica. The
 * breaker is per process, so a test process with two replicas shares it: this is checked here, on
 * the module itself, with targets as a replica builds them from the stored adapter.
 */
import { admit, isOpen, recordFailure } from "../../services/adapters/orchestrator/breaker";
import type { Target } from "../../services/adapters/orchestrator/target";

const target = (generation: number) =>
  ({ name: "gen-test", generation, breaker: { threshold: 2, cooldownMs: 60_000 } }) as unknown as Target;

test("a circuit opened under one generation is closed for the next, which counts afresh", () => {
  const now = 1_000_000;
  recordFailure(target(3), now);
  recordFailure(target(3), now);
  expect(isOpen(target(3), now)).toBe(true);
  expect(() => admit(target(3), now)).toThrow(expect.objectContaining({ code: 503, type: "CIRCUIT_OPEN" }));

  // The stored adapter was restarted or updated elsewhere: this replica now builds generation 4.
  expect(isOpen(target(4), now)).toBe(false);
  expect(() => admit(target(4), now)).not.toThrow();
  // Counting starts again for generation 4.
  recordFailure(target(4), now);
  expect(isOpen(target(4), now)).toBe(false);
  recordFailure(target(4), now);
  expect(isOpen(target(4), now)).toBe(true);
});
