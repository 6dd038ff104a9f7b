/**
 * The `store` service: serves this process's embedded store to other processes (RemoteBackend),
 * one action per Collection method. Internal only: `public` keeps the gateway from exposing it.
 */
import {
  Errors,
  type ActionSchema,
  type Context,
  type Service,
  type ServiceBroker,
  type ServiceSchema,
  type ServiceSettingSchema,
} from "moleculer";
import {
  boundsError,
  boundsViolation,
  CHECKED_BY_HANDLER,
  type InputLimits,
} from "../../shared/input-bounds";
import { withMessageValues } from "../../shared/frozen-json";
import { configOf } from "../../shared/runtime";
import { STORED_DOCUMENT_LIMITS } from "../../shared/store/embedded/backend";
import {
  BATCH_ACTION,
  BATCHED_METHODS,
  INSERT_IMAGE,
  MAX_BATCH,
  toPlain,
  type BatchOutcome,
} from "../../shared/store/remote-batch";
import {
  DUPLICATE_KEY,
  DuplicateKeyError,
  embeddedStoreOptions,
  openEmbeddedStore,
  type Collection,
  type Store,
} from "../../shared/store";

/** A stored document's bound, plus the levels of the call that carries it (filter, update, list). */
const STORE_CALL_LIMITS: InputLimits = {
  maxDepth: STORED_DOCUMENT_LIMITS.maxDepth + 4,
  maxNodes: STORED_DOCUMENT_LIMITS.maxNodes,
};

interface StoreVars {
  store?: Store;
}
type StoreService = Service & StoreVars;
type Params = Record<string, any>;

const optionalObject = { type: "object", optional: true } as const;

/**
 * The documents of `docs` that fit in `maxBytes` of JSON (at least one), and whether some were left.
 * A bus message has a size limit (NATS: 1 MiB by default): a large find is answered page by page.
 */
export function pageWithin(docs: unknown[], maxBytes: number): { docs: unknown[]; more: boolean } {
  const page: unknown[] = [];
  let bytes = 0;
  for (const doc of docs) {
    const size = JSON.stringify(doc).length;
    if (page.length > 0 && bytes + size > maxBytes) break;
    page.push(doc);
    bytes += size;
  }
  return { docs: page, more: page.length < docs.length };
}

/** One Collection method as the store serves it: its params (beside `collection`) and its run. */
interface Method {
  params: Record<string, unknown>;
  run: (coll: Collection, p: Params) => Promise<unknown>;
}

/** Every method the store serves, one action each; the batch runs its methods from here too. */
const METHODS: Record<string, Method> = {
  find: {
    params: { filter: optionalObject, options: optionalObject },
    run: (c, p) => c.find(p.filter, p.options),
  },
  findPage: {
    params: {
      filter: optionalObject,
      options: optionalObject,
      maxBytes: { type: "number", integer: true, min: 1024, max: 64 * 1024 * 1024 },
    },
    run: async (c, p) => pageWithin(await c.find(p.filter, p.options), p.maxBytes),
  },
  findOne: {
    params: { filter: optionalObject, options: optionalObject },
    run: (c, p) => c.findOne(p.filter ?? {}, p.options),
  },
  count: {
    params: { filter: optionalObject, options: optionalObject },
    run: (c, p) => c.count(p.filter, p.options),
  },
  insertOne: { params: { doc: "object" }, run: (c, p) => c.insertOne(p.doc) },
  // RemoteCollection.insertOne's: the caller holds the stored image (the `_id` it made, first), so
  // the answer is the id alone and the call may travel in a batch.
  [INSERT_IMAGE]: {
    params: { doc: { type: "object", props: { _id: { type: "string", empty: false } } } },
    run: async (c, p) => (await c.insertOne(p.doc))._id,
  },
  insertMany: { params: { docs: { type: "array", items: "object" } }, run: (c, p) => c.insertMany(p.docs) },
  updateOne: {
    params: { filter: "object", update: "object", options: optionalObject },
    run: (c, p) => c.updateOne(p.filter, p.update, p.options),
  },
  updateMany: {
    params: { filter: "object", update: "object" },
    run: (c, p) => c.updateMany(p.filter, p.update),
  },
  findOneAndUpdate: {
    params: { filter: "object", update: "object", options: optionalObject },
    run: (c, p) => c.findOneAndUpdate(p.filter, p.update, p.options),
  },
  findOneAndDelete: { params: { filter: "object" }, run: (c, p) => c.findOneAndDelete(p.filter) },
  deleteOne: { params: { filter: "object" }, run: (c, p) => c.deleteOne(p.filter) },
  deleteMany: { params: { filter: "object" }, run: (c, p) => c.deleteMany(p.filter) },
  aggregate: {
    params: { pipeline: { type: "array", items: "object" } },
    run: (c, p) => c.aggregate(p.pipeline),
  },
  createIndex: { params: { spec: "object" }, run: (c, p) => c.createIndex(p.spec) },
  dropIndex: { params: { name: { type: "string", min: 1, max: 200 } }, run: (c, p) => c.dropIndex(p.name) },
};

/** A method's whole params schema, as its action validates it. */
const paramsOf = (method: Method) => ({ collection: { type: "string", empty: false }, ...method.params });

/**
 * Runs a method on the open store; errors named so RemoteBackend can rebuild their class. The
 * params of a call from another node were parsed from its message and are the store's to keep:
 * the store takes them without copying (withMessageValues). A local caller's stay its own.
 */
async function runMethod(svc: StoreService, ctx: Context, method: Method, params: Params): Promise<unknown> {
  if (!svc.store)
    throw new Errors.MoleculerRetryableError("store is not open yet", 503, "SERVICE_UNAVAILABLE");
  try {
    const coll = svc.store.collection(params.collection);
    const run = () => method.run(coll, params);
    return await (ctx.nodeID !== svc.broker.nodeID ? withMessageValues(run) : run());
  } catch (err) {
    // Errors cross the bus as plain data: name the type so RemoteBackend can rebuild the class.
    if (err instanceof DuplicateKeyError) {
      throw new Errors.MoleculerClientError(err.message, 409, DUPLICATE_KEY, {
        collection: err.collection,
        key: err.key,
      });
    }
    throw err;
  }
}

/** An action running one Collection method on `params.collection`. */
function collectionAction(method: Method): ActionSchema<StoreService> {
  const action: ActionSchema<StoreService> & { inputLimits: InputLimits } = {
    visibility: "public",
    // Stored documents wrap inputs in levels of their own: the store keeps its own, wider bound.
    inputLimits: STORE_CALL_LIMITS,
    params: paramsOf(method),
    handler(this: StoreService, ctx: Context<Params>) {
      return runMethod(this, ctx, method, ctx.params);
    },
  };
  return action;
}

type Check = ((params: unknown, opts?: unknown) => true | Record<string, unknown>[] | Promise<unknown>) & {
  async?: boolean;
};

/** Each batched method's params check, compiled once per broker by its validator. */
const batchChecks = new WeakMap<ServiceBroker, Map<string, Check>>();

function checksOf(broker: ServiceBroker): Map<string, Check> {
  let checks = batchChecks.get(broker);
  if (!checks) {
    checks = new Map();
    for (const name of BATCHED_METHODS)
      checks.set(name, broker.validator!.compile(paramsOf(METHODS[name]!)) as unknown as Check);
    batchChecks.set(broker, checks);
  }
  return checks;
}

/**
 * One call of a batch, with the checks its own action's call would get (the store's actions are
 * not contract actions: no role applies), in the same order: its params against its schema (the
 * same error as alone, naming the calling node and the method's action), then its input bounds, then the method.
 * Why not a local call of the action: over NATS every transition's compare-and-set comes here,
 * and a context and the whole middleware chain per call cost the store node more than the update.
 */
async function runBatched(svc: StoreService, ctx: Context, method: string, params: Params): Promise<unknown> {
  const action = `${svc.name}.${method}`;
  const check = checksOf(svc.broker).get(method)!;
  let result: unknown = check(params, { meta: ctx });
  if (check.async) result = await result;
  if (result !== true) {
    const entries = (result as Record<string, unknown>[]).map((e) =>
      Object.assign(e, { nodeID: ctx.nodeID, action }),
    );
    throw new Errors.ValidationError("Parameters validation error!", "VALIDATION_ERROR", entries);
  }
  const violation = boundsViolation(params, STORE_CALL_LIMITS);
  if (violation) throw boundsError(violation);
  return runMethod(svc, ctx, METHODS[method]!, params);
}

/**
 * `store.batch`: calls RemoteBackend gathered in one turn (shared/store/remote-batch.ts), each
 * checked and run as its own action would (runBatched), started in order as separate requests
 * would be. Answers once every call has settled, so every write it acknowledges is stored.
 */
const batchAction: ActionSchema<StoreService> & { inputLimits: InputLimits } = {
  visibility: "public",
  // The batch's own bound is the bus's message size: each call in it is checked against
  // STORE_CALL_LIMITS as a call of its own (runBatched), so one call too deep fails alone.
  inputLimits: CHECKED_BY_HANDLER,
  params: {
    calls: {
      type: "array",
      min: 1,
      max: MAX_BATCH,
      items: {
        type: "object",
        strict: true,
        props: { method: { type: "enum", values: [...BATCHED_METHODS] }, params: "object" },
      },
    },
  },
  async handler(this: StoreService, ctx: Context<{ calls: { method: string; params: Params }[] }>) {
    const settled = await Promise.allSettled(
      ctx.params.calls.map((c) => runBatched(this, ctx, c.method, c.params)),
    );
    return settled.map((s): BatchOutcome =>
      s.status === "fulfilled" ? { value: s.value } : { error: toPlain(this.broker, s.reason) },
    );
  },
};

const storeService: ServiceSchema<ServiceSettingSchema, Record<string, never>, StoreVars, StoreService> = {
  name: "store",

  actions: {
    ...Object.fromEntries(Object.entries(METHODS).map(([name, method]) => [name, collectionAction(method)])),
    [BATCH_ACTION]: batchAction,
    ping: {
      visibility: "public",
      async handler(this: StoreService) {
        if (!this.store)
          throw new Errors.MoleculerRetryableError("store is not open yet", 503, "SERVICE_UNAVAILABLE");
        await this.store.ping();
        return { ok: true };
      },
    },
  },

  async started() {
    // The broker's config, not the process environment: tests run several brokers in one process.
    const config = configOf(this.broker);
    this.store = await openEmbeddedStore(config.dataDir, embeddedStoreOptions(config));
  },

  async stopped() {
    await this.store?.close();
    this.store = undefined;
  },
};

export default storeService;
