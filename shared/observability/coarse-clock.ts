/**
 * A clock that ticks once a second, for what needs the time often and roughly: a metric item's
 * update stamp (./series.ts; Moleculer read `Date.now()` on every update, 50-150 ns on the bench
 * machine, about 16 updates a request).
 *
 * Its own module, and its timer made in the async context this module was loaded in: a timer keeps
 * the context it was made in (Node's AsyncContextFrame) and every variable its closure's module
 * scope holds. Started lazily inside a request, it kept that request's scope (its Moleculer context,
 * and through it the broker) for as long as the process ran; in the test runner, which loads the
 * modules afresh for each test file, every file's platform with it.
 */
import { AsyncResource } from "node:async_hooks";

const loadScope = new AsyncResource("coarse-clock");
let clock = 0;

/** Epoch ms, at most about a second old. */
export function coarseNow(): number {
  if (clock === 0) {
    clock = Date.now();
    loadScope.runInAsyncScope(() => setInterval(() => (clock = Date.now()), 1000).unref());
  }
  return clock;
}
