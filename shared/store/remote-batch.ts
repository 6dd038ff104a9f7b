/**
 * The remote store's calls of one event-loop turn as one `store.batch` request.
 *
 * Why: over NATS the engine made one store request per transition (its compare-and-set), each a
 * message with its own envelope (the caller's meta, both ways), its own context and middlewares on
 * both nodes and its own parse and serialization. Calls made while one batch of incoming data is
 * handled now wait for the end of the turn (setImmediate, no timer) and leave together.
 *
 * What must keep holding, and how:
 * - Each call gets its own answer or its own error: the store runs each as a call of its own (its
 *   validation, bounds and errors) and answers a list in the calls' order.
 * - A write is acknowledged only once stored: the batch's answer comes after every call in it has
 *   settled, and each call settles as it would alone (after its log line).
 * - A batch that fails as a whole (the store's node died, a timeout) fails each call in it with that
 *   error, as each would have failed alone: the caller never learns a write succeeded that may not
 *   have. A batch the bus refused as too large was never sent: its calls go one by one.
 * - Only calls whose answers are small (counts, update results, ids) are batched, so a batch's answer
 *   never passes the bus's message size where the calls' own answers would not.
 */
import type { Context, ServiceBroker } from "moleculer";

/**
 * The store's insert of a document whose stored image the caller made (RemoteCollection.insertOne):
 * it answers the `_id` alone.
 */
export const INSERT_IMAGE = "insertImage";

/** Methods whose answers are a number, an update result or an id. */
const BATCHED = new Set([INSERT_IMAGE, "updateOne", "updateMany", "deleteOne", "deleteMany", "count"]);

/** The most calls in one batch (the store's action refuses more). */
export const MAX_BATCH = 64;

/** The name of the store's action that runs a batch. */
export const BATCH_ACTION = "batch";

/** Whether calls of `method` may travel in a batch. */
export function batchable(method: string): boolean {
  return BATCHED.has(method);
}

/** The methods a batch may hold (the store's action checks against it). */
export const BATCHED_METHODS: readonly string[] = [...BATCHED];

/** One call's outcome in a batch's answer: its value, or its error as plain data. */
export type BatchOutcome = { value?: unknown } | { error: PlainError };

export interface PlainError {
  name?: string;
  message?: string;
  code?: number;
  type?: string;
  data?: unknown;
  retryable?: boolean;
  nodeID?: string;
}

/** An error as the batch's answer carries it: what Moleculer's transit sends for an error answer. */
export function toPlain(broker: ServiceBroker, err: unknown): PlainError {
  const e = (err ?? {}) as PlainError;
  return {
    name: e.name,
    message: e.message ?? String(err),
    code: e.code,
    type: e.type,
    data: e.data,
    retryable: e.retryable,
    nodeID: e.nodeID ?? broker.nodeID,
  };
}

/** The error back as the class Moleculer's transit would have rebuilt for a call of its own. */
function fromPlain(broker: ServiceBroker, plain: PlainError): Error {
  const regenerator = broker.errorRegenerator;
  if (regenerator) return regenerator.restore(plain as never, { sender: plain.nodeID }) as Error;
  return Object.assign(new Error(plain.message), plain);
}

interface Pending {
  method: string;
  params: Record<string, unknown>;
  parent?: Context;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

type Direct = (method: string, params: Record<string, unknown>, parent?: Context) => Promise<unknown>;

/** NATS refused the message for its size before sending anything (nats.js MAX_PAYLOAD_EXCEEDED). */
function refusedAsTooLarge(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | null;
  return e?.code === "MAX_PAYLOAD_EXCEEDED" || /MAX_PAYLOAD_EXCEEDED/.test(e?.message ?? "");
}

export class Batcher {
  private waiting: Pending[] = [];
  private scheduled = false;

  constructor(
    private readonly broker: ServiceBroker,
    private readonly service: string,
    private readonly direct: Direct,
    private readonly rebuild: (err: unknown) => unknown,
  ) {}

  /** Queues a call for the end of this turn; settles with that call's own answer or error. */
  add<R>(method: string, params: Record<string, unknown>, parent?: Context): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ method, params, parent, resolve: resolve as (v: unknown) => void, reject });
      if (this.waiting.length >= MAX_BATCH) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.flush();
        });
      }
    });
  }

  private flush(): void {
    const batch = this.waiting;
    this.waiting = [];
    if (batch.length === 0) return;
    // Alone, or to a store that does not serve batches yet (a rolling upgrade): one request each.
    const action = `${this.service}.${BATCH_ACTION}`;
    if (batch.length === 1 || !this.broker.registry.getActionEndpoints(action)?.hasAvailable()) {
      this.eachAlone(batch);
      return;
    }
    const calls = batch.map(({ method, params }) => ({ method, params }));
    this.broker.call<BatchOutcome[], { calls: typeof calls }>(action, { calls }).then(
      (outcomes) => this.settle(batch, outcomes),
      (err) => {
        // Refused before it was sent: none of its calls reached the store.
        if (refusedAsTooLarge(err)) this.eachAlone(batch);
        else for (const p of batch) p.reject(this.rebuild(err));
      },
    );
  }

  /** Each call as a request of its own, settling with its own answer or error. */
  private eachAlone(batch: Pending[]): void {
    for (const p of batch) this.direct(p.method, p.params, p.parent).then(p.resolve, p.reject);
  }

  private settle(batch: Pending[], outcomes: BatchOutcome[]): void {
    if (!Array.isArray(outcomes) || outcomes.length !== batch.length) {
      const err = new Error(`store.batch answered ${outcomes?.length} outcomes for ${batch.length} calls`);
      for (const p of batch) p.reject(err);
      return;
    }
    batch.forEach((p, i) => {
      const outcome = outcomes[i]!;
      if ("error" in outcome) {
        p.reject(this.rebuild(fromPlain(this.broker, outcome.error)));
      } else p.resolve(outcome.value);
    });
  }
}
