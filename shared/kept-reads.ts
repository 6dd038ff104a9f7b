/**
 * Stored documents a replica keeps for a moment after reading them, by key, so a hot read (an
 * orchestrator adapter's target at each proxy call, a workflow at each job start) does not cross
 * the bus to the store every time. What keeps a kept read from outliving a change:
 *  - the service that writes forgets it on the replica that wrote, before the write answers, and
 *    broadcasts an event that makes every other replica forget it too (sent before the answer, on
 *    the same bus connection, so a caller's next call reaches a replica after it);
 *  - a value is kept for at most `ttlMs` anyway, so a replica that missed the event (it was cut off
 *    from the bus at that moment) reads the store again within that time;
 *  - a read that was under way when a change was announced is not kept (the epoch below): it may
 *    hold what the store answered before the change; a call that comes after the announcement does
 *    not wait on it either, but reads anew.
 * Calls that miss at the same time share one read. A read that fails, or answers null or undefined
 * (nothing stored under the key), keeps nothing: the next call asks the store again.
 */
import type { Logger, ServiceBroker } from "moleculer";

/**
 * Broadcasts a change's event to every replica, before the change answers (the writing replica has
 * forgotten its own kept read already). A failed broadcast (the bus is down) is logged, not thrown:
 * the change is stored, and the other replicas read the store again within their TTL.
 */
export async function announceChange(
  service: { broker: ServiceBroker; logger: Logger },
  event: string,
  payload: object,
  about?: string,
): Promise<void> {
  await Promise.resolve(service.broker.broadcast(event, payload)).catch((err: Error) =>
    service.logger.warn(`${event}${about === undefined ? "" : ` for '${about}'`} not sent: ${err.message}`),
  );
}

interface Entry<T> {
  value: T;
  until: number;
}

interface Reading<T> {
  epoch: number;
  answer: Promise<T>;
}

export class KeptReads<T> {
  private readonly kept = new Map<string, Entry<T>>();
  private readonly reading = new Map<string, Reading<T>>();
  /** Bumped by every forget: a read that started before it is neither kept nor joined. */
  private epoch = 0;

  /**
   * @param ttlMs how long a replica may answer from a value it read, if it missed the change's event
   * @param maxKept more keys than this are not kept all at once (the oldest kept goes first)
   */
  constructor(
    private readonly ttlMs: number,
    private readonly maxKept: number,
  ) {}

  /** The value kept under `key`, or `load()`'s (kept unless a change was announced while it ran). */
  get(key: string, load: () => Promise<T>, now = Date.now()): Promise<T> {
    const hit = this.kept.get(key);
    if (hit !== undefined && hit.until > now) return Promise.resolve(hit.value);
    const under = this.reading.get(key);
    if (under !== undefined && under.epoch === this.epoch) return under.answer;
    const epoch = this.epoch;
    const answer = load().then(
      (value) => {
        this.doneReading(key, answer);
        if (epoch === this.epoch && value !== null && value !== undefined) this.keep(key, value);
        return value;
      },
      (err: unknown) => {
        this.doneReading(key, answer);
        throw err;
      },
    );
    this.reading.set(key, { epoch, answer });
    return answer;
  }

  /** The value kept under `key`, without a promise; undefined when none is kept now. */
  peek(key: string, now = Date.now()): T | undefined {
    const hit = this.kept.get(key);
    return hit !== undefined && hit.until > now ? hit.value : undefined;
  }

  /** The document under `key` changed or is gone: its next call reads the store. */
  forget(key: string): void {
    this.epoch++;
    this.kept.delete(key);
  }

  /** Every document may have changed: every next call reads the store. */
  clear(): void {
    this.epoch++;
    this.kept.clear();
  }

  private keep(key: string, value: T): void {
    this.kept.delete(key);
    if (this.kept.size >= this.maxKept) this.kept.delete(this.kept.keys().next().value as string);
    this.kept.set(key, { value, until: Date.now() + this.ttlMs });
  }

  private doneReading(key: string, answer: Promise<T>): void {
    if (this.reading.get(key)?.answer === answer) this.reading.delete(key);
  }
}
