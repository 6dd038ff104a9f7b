/**
 * RemoteBackend: the Store interface as calls to the `store` service, which holds the embedded
 * store in its own process. Every method is exactly one call, so each stays atomic over there.
 *
 * Calls with small answers (inserts, updates, deletes, counts) made in one turn of the event loop
 * travel together as one `store.batch` request (./remote-batch.ts): over NATS the engine made one
 * store request per transition, each a message with its own envelope, context and middlewares on
 * both sides (docs/performance-rounds.md). Each call keeps its own answer or error.
 */
import { currentContext } from "../observability/request-scope";
import { StoreRuleError } from "../errors";
import { checkFilter, checkPipeline } from "./rules";
import type { Context, ServiceBroker } from "moleculer";
import { Batcher, batchable, INSERT_IMAGE } from "./remote-batch";
import { withId } from "./embedded/mongo";
import { memberWrites } from "./member-writes";
import {
  DuplicateKeyError,
  type Collection,
  type Doc,
  type Filter,
  type FindOneAndUpdateOptions,
  type CountOptions,
  type FindOptions,
  type IndexSpec,
  type Pipeline,
  type Store,
  type Update,
  type UpdateOptions,
  type UpdateResult,
  type VersionedWriteOptions,
  updateVersionedAsUpdateOne,
} from "./types";

/** The error type the store service gives a DuplicateKeyError on the wire. */
export const DUPLICATE_KEY = "DUPLICATE_KEY";

type Call = <R>(method: string, params: Record<string, unknown>) => Promise<R>;

export interface RemoteOptions {
  /** Name of the serving service. */
  service?: string;
  /** How long the first call waits for the service to be discovered, in ms. */
  discoveryTimeout?: number;
}

export class RemoteBackend implements Store {
  readonly backend = "remote" as const;
  private readonly service: string;
  private readonly discoveryTimeout: number;
  private discovered?: Promise<unknown>;
  private readonly batcher: Batcher;

  constructor(
    private readonly broker: ServiceBroker,
    options: RemoteOptions = {},
  ) {
    this.service = options.service ?? "store";
    this.discoveryTimeout = options.discoveryTimeout ?? 10_000;
    this.batcher = new Batcher(
      broker,
      this.service,
      (method, params, parent) => this.direct(method, params, parent),
      rebuild,
    );
  }

  collection<T extends Doc = Doc>(name: string): Collection<T> {
    const call: Call = (method, params) => this.call(method, { collection: name, ...params });
    const serves = (method: string) =>
      this.broker.registry.getActionEndpoints(`${this.service}.${method}`)?.hasAvailable() ?? false;
    return new RemoteCollection(name, call, serves) as unknown as Collection<T>;
  }

  async ping(): Promise<void> {
    // No waiting for discovery here: readiness must answer "not yet" rather than hang.
    await this.broker.call(`${this.service}.ping`);
  }

  /** The broker belongs to the caller; there is nothing of ours to release. */
  async close(): Promise<void> {}

  private async call<R>(method: string, params: Record<string, unknown>): Promise<R> {
    // Checked here, before the bus: JSON drops `undefined`, so `{id: undefined}` would arrive as `{}`.
    checkFilter(params.filter as Filter | undefined);
    if (params.pipeline) checkPipeline(params.pipeline as Pipeline);
    // A service starting alongside the store's node would otherwise fail its first call with "not found".
    this.discovered ??= this.broker.waitForServices(this.service, this.discoveryTimeout).catch((err) => {
      this.discovered = undefined;
      throw err;
    });
    await this.discovered;
    // A traced call goes alone, as a child of its action: the store's span joins its trace.
    const current = currentContext();
    const parent = current?.broker === this.broker ? current : undefined;
    if (batchable(method) && !parent?.tracing) return this.batcher.add<R>(method, params, parent);
    return this.direct<R>(method, params, parent);
  }

  /**
   * One call, one request. A child of `parent` for its trace and log lines, but not through
   * `parent.call`: Moleculer skips a child call once its parent's own timeout has passed, and an
   * engine replica's writes run in the context of the call that started the job, long after it.
   */
  private async direct<R>(method: string, params: Record<string, unknown>, parent?: Context): Promise<R> {
    try {
      const action = `${this.service}.${method}`;
      return await this.broker.call<R, Record<string, unknown>>(
        action,
        params,
        parent ? { parentCtx: withoutMeta(parent) } : undefined,
      );
    } catch (err) {
      throw rebuild(err);
    }
  }
}

/**
 * `ctx` as a store call's parent: its request id, level and place in the trace, not its meta.
 * Moleculer copies a parent's meta into the child, so the caller's identity (the user, the session
 * id) crossed the bus to the store's node and back in its answer, about 700 bytes a job start; the
 * store reads no caller (its actions are no contract's: shared/authorization.ts) and a batch of
 * calls never carried one. A view: Context.create reads the parent's fields, and this one's meta is
 * absent.
 */
function withoutMeta(ctx: Context): Context {
  return Object.create(ctx, { meta: { value: undefined } }) as Context;
}

/** The store's errors as the classes the other backends throw (they cross the bus as plain data). */
function rebuild(err: unknown): unknown {
  const e = err as {
    type?: string;
    message?: string;
    data?: { collection?: string; key?: Record<string, unknown>; storeCode?: number; codeName?: string };
  };
  if (e?.type === DUPLICATE_KEY) return new DuplicateKeyError(e.data?.collection ?? "", e.data?.key ?? {});
  // A refusal by MongoDB's rules, rebuilt as the class the other backends throw.
  if (typeof e?.data?.storeCode === "number" && typeof e.data.codeName === "string")
    return new StoreRuleError(e.message ?? "", e.data.storeCode, e.data.codeName);
  return err;
}

/** The JSON a page of a remote find may carry: well inside NATS's default 1 MiB message limit. */
export const PAGE_BYTES = 768 * 1024;

class RemoteCollection implements Collection<Doc> {
  constructor(
    readonly name: string,
    private readonly call: Call,
    private readonly serves: (method: string) => boolean,
  ) {}

  /**
   * Page by page (`store.findPage`), each answer within PAGE_BYTES of JSON: one bus message has a
   * size limit (NATS: 1 MiB by default), and a find of large documents (config backups) would pass
   * it. Pages follow `skip`; a write between pages can shift them, as with any cursor.
   */
  async find(filter?: Filter, options: FindOptions = {}): Promise<Doc[]> {
    const out: Doc[] = [];
    const skip = options.skip ?? 0;
    for (;;) {
      const left = options.limit === undefined ? undefined : options.limit - out.length;
      if (left !== undefined && left <= 0) return out;
      const page = await this.call<{ docs: Doc[]; more: boolean }>("findPage", {
        filter,
        options: { ...options, skip: skip + out.length, ...(left !== undefined && { limit: left }) },
        maxBytes: PAGE_BYTES,
      });
      out.push(...page.docs);
      if (!page.more) return out;
    }
  }
  findOne(filter: Filter, options?: Omit<FindOptions, "skip" | "limit">): Promise<Doc | null> {
    return this.call("findOne", { filter, options });
  }
  count(filter?: Filter, options?: CountOptions): Promise<number> {
    return this.call("count", { filter, options });
  }
  /**
   * The stored image (the document's JSON round trip, `_id` first, a new ObjectId's hex when it has
   * none: embedded/mongo.ts storedImage) is made here, as MongoDB's driver makes the `_id` on the
   * client: the store answers the id alone (`store.insertImage`), so the insert travels in the
   * turn's batch and its document crosses the bus once, not back again. A store of an older
   * release, without that action, gets `insertOne` and answers the document.
   */
  async insertOne(doc: Doc): Promise<Doc> {
    if (!this.serves(INSERT_IMAGE)) return this.call("insertOne", { doc });
    const image = withId(doc);
    await this.call(INSERT_IMAGE, { doc: image });
    return image;
  }
  insertMany(docs: Doc[]): Promise<Doc[]> {
    return this.call("insertMany", { docs });
  }
  updateOne(filter: Filter, update: Update, options?: UpdateOptions): Promise<UpdateResult> {
    return this.call("updateOne", { filter, update, options });
  }
  updateMany(filter: Filter, update: Update): Promise<UpdateResult> {
    return this.call("updateMany", { filter, update });
  }
  /**
   * The versioned compare-and-set as the generic updateOne on the wire (the store node's embedded
   * collection takes that shape its fast way), carrying the `settled` hint in its options: a store
   * node of an older release checks options only as an object and ignores the member, so engines
   * and store nodes of two releases still work together through a rolling upgrade. With `before`
   * (never sent), an object set over one it holds goes as the members that changed
   * (./member-writes.ts): a task transition's two tasks, not their whole texts.
   */
  updateVersioned(
    id: string,
    version: number,
    set: Record<string, unknown>,
    unset?: Record<string, "">,
    options?: VersionedWriteOptions,
  ): Promise<boolean> {
    const change = options?.before ? memberWrites(set, unset, options.before) : { set, unset };
    return updateVersionedAsUpdateOne(this, id, version, change.set, change.unset, options);
  }
  findOneAndUpdate(filter: Filter, update: Update, options?: FindOneAndUpdateOptions): Promise<Doc | null> {
    return this.call("findOneAndUpdate", { filter, update, options });
  }
  findOneAndDelete(filter: Filter): Promise<Doc | null> {
    return this.call("findOneAndDelete", { filter });
  }
  deleteOne(filter: Filter): Promise<number> {
    return this.call("deleteOne", { filter });
  }
  deleteMany(filter: Filter): Promise<number> {
    return this.call("deleteMany", { filter });
  }
  aggregate<R extends Doc = Doc>(pipeline: Pipeline): Promise<R[]> {
    return this.call("aggregate", { pipeline });
  }
  async createIndex(spec: IndexSpec): Promise<void> {
    await this.call("createIndex", { spec });
  }
  async dropIndex(name: string): Promise<void> {
    await this.call("dropIndex", { name });
  }
}
