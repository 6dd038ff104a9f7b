/**
 * Calls that land on a node that is leaving or has died (docs/operations-guide.md#rolling-restarts,
 * docs/deployment.md#high-availability). A stopping node first tells the others its services are
 * gone, but a call already on its way gets refused with ServiceNotAvailableError naming that node;
 * a call sent to a node that has died is failed the same way by app/departed-nodes.ts (NATS had no
 * subscriber for it). Either way it never ran, so it is sent again, to another replica, whatever
 * the action. When the node left with the call pending (RequestRejectedError) or never answered
 * (RequestTimeoutError), the call may have run: it is sent again if that is harmless (every GET
 * route, every action whose contract says `idempotent: "repeatable"`, the store's reads), or for a
 * write made idempotent (`idempotent: "keyed"`) that carries its request id, which answers the first
 * result if the first attempt got that far (shared/idempotency.ts). A write that timed out is sent
 * again only when its node has left meanwhile: a slow node may still be running it. Any other
 * write in that state may have committed, so its caller gets the error.
 *
 * Caller side (`remoteAction`), so it covers the gateway and every service calling another.
 * Bounded: RETRIES attempts, DELAY_MS apart, doubling.
 */
import { Errors, type Context, type Middleware, type ServiceBroker } from "moleculer";
import { operations } from "./contracts";
import { actionsMarked, IDEMPOTENCY_META } from "./idempotency";

const RETRIES = 3;
const DELAY_MS = 50;

/** The store service's reads (its other actions write). */
const STORE_READS = [
  "store.find",
  "store.findPage",
  "store.findOne",
  "store.count",
  "store.aggregate",
  "store.ping",
];

/** Actions safe to run twice: every GET route's action, those marked repeatable, and the store's reads. */
export function readActions(): Set<string> {
  return new Set([
    ...operations()
      .filter((op) => op.method === "GET")
      .map((op) => op.action),
    ...actionsMarked("repeatable"),
    ...STORE_READS,
  ]);
}

function nodeAvailable(broker: ServiceBroker, nodeID: string): boolean {
  const nodes = (
    broker.registry as unknown as { nodes: { get(id: string): { available: boolean } | undefined } }
  ).nodes;
  return nodes.get(nodeID)?.available === true;
}

function neverRan(err: any, self: string): boolean {
  return err instanceof Errors.ServiceNotAvailableError && !!err.data?.nodeID && err.data.nodeID !== self;
}

function nodeLost(err: unknown): boolean {
  return err instanceof Errors.RequestRejectedError || err instanceof Errors.RequestTimeoutError;
}

export function retryLeftNodeMiddleware(
  reads: Set<string> = readActions(),
  writes: Set<string> = actionsMarked("keyed"),
): Middleware {
  let broker: ServiceBroker;
  const departed = (err: any) =>
    err instanceof Errors.RequestRejectedError ||
    (err instanceof Errors.RequestTimeoutError &&
      !!err.data?.nodeID &&
      !nodeAvailable(broker, err.data.nodeID));
  return {
    name: "RetryLeftNode",
    created(b: ServiceBroker) {
      broker = b;
    },
    remoteAction(handler: (ctx: Context) => Promise<unknown>, action: { name: string }) {
      const isRead = reads.has(action.name);
      const isWrite = writes.has(action.name);
      return function retryOnLeftNode(ctx: Context & { _leftNodeRetries?: number }): Promise<unknown> {
        return handler(ctx).catch((err: unknown) => {
          const tries = ctx._leftNodeRetries ?? 0;
          const keyed =
            isWrite && typeof (ctx.meta as Record<string, unknown>)?.[IDEMPOTENCY_META] === "string";
          const retry = neverRan(err, broker.nodeID) || (isRead && nodeLost(err)) || (keyed && departed(err));
          if (!retry || tries >= RETRIES) throw err;
          broker.logger.info(`'${action.name}': its node left (${(err as Error).name}); sending it again`);
          // The copy carries the count, so the call's own pass through this middleware goes on counting.
          const again = ctx.copy() as Context & { _leftNodeRetries?: number };
          again._leftNodeRetries = tries + 1;
          return new Promise((resolve) => setTimeout(resolve, DELAY_MS * 2 ** tries)).then(() =>
            broker.call(action.name, ctx.params, { ctx: again } as any),
          );
        });
      };
    },
  } as unknown as Middleware;
}
