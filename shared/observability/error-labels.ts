/** What a failed call or event handler threw, as Moleculer's error counters label it. */
export interface ThrownError {
  name?: string;
  code?: unknown;
  type?: unknown;
}

/**
 * The error labels of Moleculer's `moleculer.request.error.total` and
 * `moleculer.event.received.error.total` (moleculer/src/middlewares/metrics.js, 0.15): null when
 * nothing was thrown with the rejection.
 */
export const errorLabels = (err: ThrownError | undefined | null) => ({
  errorName: err ? err.name : null,
  errorCode: err ? err.code : null,
  errorType: err ? err.type : null,
});
