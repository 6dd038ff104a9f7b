/**
 * Yielding to the requests that are waiting, for work long enough to hold the event loop.
 */

/**
 * Resolves once the event loop has polled for I/O again, so requests that arrived meanwhile are
 * served first. One setImmediate is not enough: work done in an I/O callback (the poll phase) would
 * have its immediate run in the same loop iteration's check phase, before any new poll; the second
 * immediate runs in the next iteration's check phase, after its poll.
 */
export const afterPendingIo = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));
