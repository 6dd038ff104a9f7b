/**
 * The serving side of task-call batches: runs each call of a batch as Moleculer's transit runs a
 * request that arrives alone (a context made as the sender's, then the action's whole local
 * middleware chain: authorization as the call's own caller, input bounds, validation, timeout), and
 * answers each call's value or error in the calls' order once every one has settled.
 *
 * Who may send a batch: the platform as itself only (the engine, `PLATFORM_META`). A batch carries
 * each call's caller in its own meta, and the call is authorized as that caller and as nobody
 * else: the batch's own identity never reaches a call. Only actions that declare themselves
 * workflow tasks may be in a batch, so it reaches nothing a job's task could not reach alone (the
 * engine refuses any other action before it calls, runner.ts assertTaskAction; a workflow naming
 * this action is refused there too, it is no task).
 */
import type { Context, ServiceBroker, ServiceSchema } from "moleculer";
import { ForbiddenError } from "../errors";
import { toPlain, type BatchOutcome } from "../store/remote-batch";
import { MAX_TASK_CALLS, TASK_CALLS_SERVICE, type TaskCall, type TaskCallBatch } from "./protocol";

type Handler = (ctx: Context) => Promise<unknown>;
interface LocalEndpoint {
  action: { handler: Handler; task?: unknown };
}

/** The batch's own shape, checked here: the action has no params schema, each call has its own. */
function callsOf(params: unknown): TaskCall[] {
  const calls = (params as TaskCallBatch | null)?.calls;
  if (!Array.isArray(calls) || calls.length === 0 || calls.length > MAX_TASK_CALLS)
    throw new ForbiddenError(`A task-call batch holds 1 to ${MAX_TASK_CALLS} calls`, { required: [] });
  for (const c of calls) {
    const ok =
      c !== null &&
      typeof c === "object" &&
      typeof c.action === "string" &&
      typeof c.params === "object" &&
      c.params !== null &&
      typeof c.meta === "object" &&
      c.meta !== null &&
      typeof c.timeout === "number";
    if (!ok) throw new ForbiddenError("A task-call batch's call is malformed", { required: [] });
  }
  return calls;
}

/** Only the platform's own identity sends batches: never a user, never a call without identity. */
function assertPlatform(ctx: Context): void {
  const meta = ctx.meta as { platform?: unknown; caller?: unknown };
  if (meta.platform !== true || meta.caller !== undefined)
    throw new ForbiddenError(`'${TASK_CALLS_SERVICE}.batch' is the platform's own`, { required: [] });
}

/** One call, as transit.requestHandler runs a request that came alone from `batch.nodeID`. */
function runOne(broker: ServiceBroker, batch: Context, call: TaskCall): Promise<unknown> {
  try {
    const endpoint = (
      broker as unknown as { _getLocalActionEndpoint(a: string): LocalEndpoint }
    )._getLocalActionEndpoint(call.action);
    if (!endpoint.action.task)
      throw new ForbiddenError(`'${call.action}' is not a workflow task`, { required: [] });
    const ctx = new broker.ContextFactory(broker) as Context & {
      setEndpoint(ep: unknown): void;
      setParams(p: unknown, clone?: boolean): void;
    };
    ctx.setEndpoint(endpoint);
    ctx.id = broker.generateUid();
    ctx.requestID = ctx.id;
    ctx.setParams(call.params, broker.options.contextParamsCloning);
    ctx.caller = batch.caller;
    // The call's own meta, never the batch's: it names the caller the call is authorized as.
    ctx.meta = call.meta;
    ctx.level = 1;
    ctx.tracing = batch.tracing;
    ctx.nodeID = batch.nodeID;
    ctx.options.timeout = call.timeout;
    return endpoint.action.handler(ctx);
  } catch (err) {
    return Promise.reject(err);
  }
}

export function taskCallsService(): ServiceSchema {
  return {
    name: TASK_CALLS_SERVICE,
    actions: {
      batch: {
        visibility: "public",
        async handler(this: { broker: ServiceBroker }, ctx: Context): Promise<BatchOutcome[]> {
          assertPlatform(ctx);
          const calls = callsOf(ctx.params);
          const settled = await Promise.allSettled(calls.map((call) => runOne(this.broker, ctx, call)));
          return settled.map((s) =>
            s.status === "fulfilled" ? { value: s.value } : { error: toPlain(this.broker, s.reason) },
          );
        },
      },
    },
  };
}
