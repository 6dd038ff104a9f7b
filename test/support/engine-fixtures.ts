/**
 * Engine test fixtures: workflow builders, a test service whose actions are workflow tasks (and
 * record every call, with the calling node), and helpers to create workflows and watch jobs.
 */
import { Errors, type Context, type ServiceBroker, type ServiceSchema } from "moleculer";
import type { WorkflowInput } from "./engine-builders";
import { acquireStore } from "../../shared/runtime";
import type { Store } from "../../shared/store/types";
import type { client as httpClient } from "./platform";

type Client = ReturnType<typeof httpClient>;

// ------------------------------------------------------------------------------------ workflows

// The workflow builders are pure (no broker): unit suites import them from ./engine-builders.
export {
  auto,
  chain,
  failure,
  graph,
  loop,
  manual,
  onError,
  op,
  pushOrRollbackWorkflow,
  revert,
  sizeCheckWorkflow,
  success,
  visitDevicesWorkflow,
  type WorkflowInput,
} from "./engine-builders";

/** Creates a workflow over HTTP (or, while that handler answers 501, straight into the store). */
export async function createWorkflow(
  http: Client,
  broker: ServiceBroker,
  workflow: WorkflowInput,
): Promise<void> {
  const reply = await http.post("/workflow_builder/workflows", { workflow });
  if (reply.status === 200) return;
  if (reply.status !== 501)
    throw new Error(`creating workflow ${workflow.name}: ${reply.status} ${reply.text}`);
  await withStore(broker, (store) =>
    store.collection("workflows").insertOne({
      description: "",
      type: "automation",
      groups: [],
      tags: [],
      created: new Date().toISOString(),
      created_by: "test",
      last_updated: new Date().toISOString(),
      last_updated_by: "test",
      ...workflow,
    }),
  );
}

// ------------------------------------------------------------------------------------ the store

export async function withStore<T>(broker: ServiceBroker, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await acquireStore(broker);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

export async function readJob(broker: ServiceBroker, id: string): Promise<any> {
  return withStore(broker, (store) => store.collection("jobs").findOne({ _id: id }));
}

/** Polls the stored job until `done(job)` holds; answers that job. */
export async function waitForJob(
  broker: ServiceBroker,
  id: string,
  done: (job: any) => boolean = (job) => job.status !== "running",
  timeoutMs = 15_000,
): Promise<any> {
  const until = Date.now() + timeoutMs;
  let last: any;
  while (Date.now() < until) {
    last = await readJob(broker, id);
    if (last && done(last)) return last;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(
    `job ${id} not there after ${timeoutMs} ms: status ${last?.status}, tasks ${JSON.stringify(
      Object.fromEntries(Object.entries(last?.tasks ?? {}).map(([k, t]: [string, any]) => [k, t?.status])),
    )}, errors ${JSON.stringify(last?.error)}`,
  );
}

export const taskStatuses = (job: any): Record<string, string> =>
  Object.fromEntries(Object.entries(job.tasks).map(([id, t]: [string, any]) => [id, t.status]));

// ------------------------------------------------------------------------------- test service

export interface RecordedCall {
  action: string;
  params: Record<string, any>;
  /** The node that called (the engine replica running the task). */
  caller: string;
  start: number;
  end?: number;
}

const taskMeta = (
  summary: string,
  incoming: Record<string, unknown> = {},
  outgoing: Record<string, unknown> = {},
) => ({
  summary,
  description: summary,
  location: "Application",
  variables: { incoming, outgoing },
});

/** An action carrying task metadata (Moleculer keeps unknown schema members; its types do not know them). */
const taskAction = (
  meta: ReturnType<typeof taskMeta>,
  handler: (ctx: Context<any, any>) => unknown,
): NonNullable<ServiceSchema["actions"]>[string] => ({ task: meta, handler }) as any;

/**
 * A service whose actions are workflow tasks: `echo` answers its params, `fail` throws a 422,
 * `flaky` fails until it has been called `failures` times for its `key`, `slow` sleeps `ms`,
 * `noop` answers {}. `plain` is an ordinary action (no task metadata): jobs may not call it.
 */
export function taskService(name = "enginetest") {
  const calls: RecordedCall[] = [];
  const attempts = new Map<string, number>();
  const record = (ctx: Context<any>, action: string) => {
    const call: RecordedCall = { action, params: ctx.params, caller: ctx.nodeID ?? "", start: Date.now() };
    calls.push(call);
    return call;
  };
  const schema: ServiceSchema = {
    name,
    actions: {
      echo: taskAction(
        taskMeta("Answers its incoming variables", { value: null }, { result: null }),
        (ctx) => {
          const call = record(ctx, "echo");
          call.end = Date.now();
          return { ...ctx.params, caller: ctx.meta?.caller?.username ?? null };
        },
      ),
      fail: taskAction(taskMeta("Always fails"), (ctx) => {
        record(ctx, "fail").end = Date.now();
        throw new Errors.MoleculerClientError("Device rejected the change", 422, "DEVICE_REJECTED", [
          { device: ctx.params.device ?? "r1", reason: "locked" },
        ]);
      }),
      flaky: taskAction(
        taskMeta("Fails its first `failures` calls per key", { key: "", failures: 1 }),
        (ctx) => {
          record(ctx, "flaky").end = Date.now();
          const n = (attempts.get(ctx.params.key) ?? 0) + 1;
          attempts.set(ctx.params.key, n);
          if (n <= (ctx.params.failures ?? 1))
            throw new Errors.MoleculerError(`attempt ${n} failed`, 503, "TRY_AGAIN");
          return { attempt: n };
        },
      ),
      slow: taskAction(taskMeta("Sleeps `ms` milliseconds", { ms: 1000 }), async (ctx) => {
        const call = record(ctx, "slow");
        await new Promise((r) => setTimeout(r, ctx.params.ms ?? 1000));
        call.end = Date.now();
        return { slept: ctx.params.ms ?? 1000, key: ctx.params.key ?? null };
      }),
      noop: taskAction(taskMeta("Does nothing"), () => ({})),
      plain: {
        handler(ctx: Context<any>) {
          record(ctx, "plain").end = Date.now();
          return { ok: true };
        },
      },
    },
  };
  return { schema, calls, attempts };
}
