/**
 * The engine's side of task-call batches (./protocol.ts): a task's action call goes where the
 * broker's balancer would send it; calls one replica makes to one remote node in one turn of its
 * event loop wait for the turn's end (setImmediate, no timer) and leave as one request.
 *
 * What must keep holding, and how:
 * - Each call settles with its own answer or error, as alone: the serving node runs each as a
 *   request of its own (authorized as its own caller, with its own timeout) and answers a list.
 * - A call to a local action, a lone call of its turn, and a call to a node that serves no batches
 *   (a rolling upgrade) go as `broker.call` alone, as before.
 * - A batch that fails as a whole fails each call as that call would have failed alone, naming
 *   its own action: a batch that reached no action (its node gone or not serving it) is sent again
 *   call by call, as shared/retry-left-node.ts sends again a call that never ran; a call whose node
 *   left while it ran or that timed out is sent again only if that middleware would send its action
 *   again (`resendsAlone`), else it fails with the error naming its action and node.
 */
import { Errors, type ServiceBroker } from "moleculer";
import { PLATFORM_META } from "../authorization";
import { fromPlain, type BatchOutcome } from "../store/remote-batch";
import { resendsAlone } from "../retry-left-node";
import { MAX_TASK_CALLS, TASK_CALLS_ACTION, type TaskCall } from "./protocol";

/** Moleculer's errors that name the action and node of a call that failed on its way. */
const ON_THE_WAY = [Errors.RequestTimeoutError, Errors.RequestRejectedError];

interface Pending extends TaskCall {
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

export interface CallOptions {
  timeout: number;
  meta: Record<string, unknown>;
}

interface Endpoints {
  hasLocal(): boolean;
  next(): { id: string; local: boolean } | null;
  getEndpointByNodeID(id: string): unknown;
}

export class TaskCalls {
  private readonly waiting = new Map<string, Pending[]>();
  private scheduled = false;

  constructor(private readonly broker: ServiceBroker) {}

  /** The action's answer or error, as `broker.call(action, params, options)` gives it. */
  call(action: string, params: Record<string, unknown>, options: CallOptions): Promise<unknown> {
    const node = this.batchingNode(action);
    if (node === undefined) return this.alone({ action, params, ...options });
    return new Promise((resolve, reject) => {
      let queue = this.waiting.get(node);
      if (!queue) this.waiting.set(node, (queue = []));
      queue.push({ action, params, ...options, resolve, reject });
      if (queue.length >= MAX_TASK_CALLS) this.flushNode(node);
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** The remote node the balancer picks for the action, when that node serves batches. */
  private batchingNode(action: string): string | undefined {
    const registry = this.broker.registry as unknown as {
      getActionEndpoints(a: string): Endpoints | undefined;
    };
    const list = registry.getActionEndpoints(action);
    if (!list || list.hasLocal()) return undefined;
    const picked = list.next();
    if (!picked || picked.local) return undefined;
    return registry.getActionEndpoints(TASK_CALLS_ACTION)?.getEndpointByNodeID(picked.id)
      ? picked.id
      : undefined;
  }

  private alone(call: TaskCall): Promise<unknown> {
    return this.broker.call(call.action, call.params, { timeout: call.timeout, meta: call.meta });
  }

  /**
   * Sends what waits now. The engine calls it once the tasks of a turn have made their calls
   * (runner.ts nextTurn), so the batches leave in that turn's socket write; otherwise the end of
   * the turn sends them.
   */
  flush(): void {
    this.scheduled = false;
    for (const node of [...this.waiting.keys()]) this.flushNode(node);
  }

  private flushNode(node: string): void {
    const batch = this.waiting.get(node) ?? [];
    this.waiting.delete(node);
    if (batch.length === 0) return;
    if (batch.length === 1) {
      this.settleAlone(batch[0]!);
      return;
    }
    const calls: TaskCall[] = batch.map(({ action, params, meta, timeout }) => ({
      action,
      params,
      meta,
      timeout,
    }));
    const timeout = Math.max(...calls.map((c) => c.timeout));
    this.broker
      .call<BatchOutcome[], { calls: TaskCall[] }>(
        TASK_CALLS_ACTION,
        { calls },
        { nodeID: node, timeout, meta: { ...PLATFORM_META } },
      )
      .then(
        (outcomes) => this.settle(node, batch, outcomes),
        (err) => this.failAll(batch, err),
      );
  }

  private settleAlone(p: Pending): void {
    this.alone(p).then(p.resolve, p.reject);
  }

  private settle(node: string, batch: Pending[], outcomes: BatchOutcome[]): void {
    if (!Array.isArray(outcomes) || outcomes.length !== batch.length) {
      this.failAll(
        batch,
        new Error(`${TASK_CALLS_ACTION} answered ${outcomes?.length} outcomes for ${batch.length} calls`),
      );
      return;
    }
    batch.forEach((p, i) => {
      const outcome = outcomes[i]!;
      if (!("error" in outcome)) p.resolve(outcome.value);
      // The node's own timeout of a call: alone, the caller's timeout would have named the node.
      else if (outcome.error.name === "RequestTimeoutError")
        p.reject(new Errors.RequestTimeoutError({ action: p.action, nodeID: node }));
      else p.reject(fromPlain(this.broker, outcome.error));
    });
  }

  /** The batch failed as a whole: each call as it would have failed (or been sent again) alone. */
  private failAll(batch: Pending[], err: unknown): void {
    // The batch reached no action (its node gone or without the service): none of its calls ran.
    const noneRan =
      err instanceof Errors.ServiceNotAvailableError || err instanceof Errors.ServiceNotFoundError;
    for (const p of batch) {
      if (noneRan) {
        this.settleAlone(p);
        continue;
      }
      const own = asCallsOwn(err, p.action);
      if (resendsAlone(this.broker, p.action, own)) this.settleAlone(p);
      else p.reject(own);
    }
  }
}

/** The batch's error as the call's own: the same class, naming the call's action. */
function asCallsOwn(err: unknown, action: string): unknown {
  const Class = ON_THE_WAY.find((C) => err instanceof C);
  if (!Class) return err;
  const data = (err as { data?: { nodeID?: string } }).data;
  return new Class({ action, nodeID: data?.nodeID });
}
