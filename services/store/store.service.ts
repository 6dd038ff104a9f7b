/**
 * The `store` service: serves this process's embedded store to other processes (RemoteBackend),
 * one action per Collection method. Internal only: `public` keeps the gateway from exposing it.
 */
import {
  Errors,
  type ActionSchema,
  type Context,
  type Service,
  type ServiceSchema,
  type ServiceSettingSchema,
} from "moleculer";
import type { InputLimits } from "../../shared/input-bounds";
import { configOf } from "../../shared/runtime";
import { STORED_DOCUMENT_LIMITS } from "../../shared/store/embedded/backend";
import {
  BATCH_ACTION,
  BATCHED_METHODS,
  MAX_BATCH,
  toPlain,
  type BatchOutcome,
} from "../../shared/store/remote-batch";
import {
  DUPLICATE_KEY,
  DuplicateKeyError,
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

/** An action running one Collection method on `params.collection`. */
function collectionAction(
  params: Record<string, unknown>,
  run: (coll: Collection, p: Params) => Promise<unknown>,
): ActionSchema<StoreService> {
  const action: ActionSchema<StoreService> & { inputLimits: InputLimits } = {
    visibility: "public",
    // Stored documents wrap inputs in levels of their own: the store keeps its own, wider bound.
    inputLimits: STORE_CALL_LIMITS,
    params: { collection: { type: "string", empty: false }, ...params },
    async handler(this: StoreService, ctx: Context<Params>) {
      if (!this.store)
        throw new Errors.MoleculerRetryableError("store is not open yet", 503, "SERVICE_UNAVAILABLE");
      try {
        return await run(this.store.collection(ctx.params.collection), ctx.params);
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
    },
  };
  return action;
}

/**
 * The batch's own bound is the bus's message size: each call in it is checked against
 * STORE_CALL_LIMITS as a call of its own, so one call too deep fails alone, not its batch.
 */
const BATCH_LIMITS: InputLimits = { maxDepth: Number.MAX_SAFE_INTEGER, maxNodes: Number.MAX_SAFE_INTEGER };

/**
 * `store.batch`: calls RemoteBackend gathered in one turn (shared/store/remote-batch.ts), each run
 * as a local call of its own action (its validation, bounds, errors), started in order as separate
 * requests would be. Answers once every call has settled, so every write it acknowledges is stored.
 */
const batchAction: ActionSchema<StoreService> & { inputLimits: InputLimits } = {
  visibility: "public",
  inputLimits: BATCH_LIMITS,
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
    const nodeID = this.broker.nodeID;
    const settled = await Promise.allSettled(
      ctx.params.calls.map((c) => ctx.call(`${this.name}.${c.method}`, c.params, { nodeID })),
    );
    return settled.map((s): BatchOutcome =>
      s.status === "fulfilled" ? { value: s.value } : { error: toPlain(this.broker, s.reason) },
    );
  },
};

const storeService: ServiceSchema<ServiceSettingSchema, Record<string, never>, StoreVars, StoreService> = {
  name: "store",

  actions: {
    find: collectionAction({ filter: optionalObject, options: optionalObject }, (c, p) =>
      c.find(p.filter, p.options),
    ),
    findPage: collectionAction(
      {
        filter: optionalObject,
        options: optionalObject,
        maxBytes: { type: "number", integer: true, min: 1024, max: 64 * 1024 * 1024 },
      },
      async (c, p) => pageWithin(await c.find(p.filter, p.options), p.maxBytes),
    ),
    findOne: collectionAction({ filter: optionalObject, options: optionalObject }, (c, p) =>
      c.findOne(p.filter ?? {}, p.options),
    ),
    count: collectionAction({ filter: optionalObject, options: optionalObject }, (c, p) =>
      c.count(p.filter, p.options),
    ),
    insertOne: collectionAction({ doc: "object" }, (c, p) => c.insertOne(p.doc)),
    insertMany: collectionAction({ docs: { type: "array", items: "object" } }, (c, p) =>
      c.insertMany(p.docs),
    ),
    updateOne: collectionAction({ filter: "object", update: "object", options: optionalObject }, (c, p) =>
      c.updateOne(p.filter, p.update, p.options),
    ),
    updateMany: collectionAction({ filter: "object", update: "object" }, (c, p) =>
      c.updateMany(p.filter, p.update),
    ),
    findOneAndUpdate: collectionAction(
      { filter: "object", update: "object", options: optionalObject },
      (c, p) => c.findOneAndUpdate(p.filter, p.update, p.options),
    ),
    findOneAndDelete: collectionAction({ filter: "object" }, (c, p) => c.findOneAndDelete(p.filter)),
    deleteOne: collectionAction({ filter: "object" }, (c, p) => c.deleteOne(p.filter)),
    deleteMany: collectionAction({ filter: "object" }, (c, p) => c.deleteMany(p.filter)),
    aggregate: collectionAction({ pipeline: { type: "array", items: "object" } }, (c, p) =>
      c.aggregate(p.pipeline),
    ),
    createIndex: collectionAction({ spec: "object" }, (c, p) => c.createIndex(p.spec)),
    dropIndex: collectionAction({ name: { type: "string", min: 1, max: 200 } }, (c, p) =>
      c.dropIndex(p.name),
    ),
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
    this.store = await openEmbeddedStore(config.dataDir, {
      fsync: config.storeFsync,
      queryShapes: config.storeQueryShapes,
      machinery: config.perfMachinery,
    });
  },

  async stopped() {
    await this.store?.close();
    this.store = undefined;
  },
};

export default storeService;
