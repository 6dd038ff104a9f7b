/**
 * Idempotent writes (docs/deployment.md#high-availability). A write whose contract says
 * `idempotent: "keyed"` runs at most once per request id: the gateway gives each call of such an
 * operation an id (the client's `Idempotency-Key`, else a fresh one once the call leaves its node:
 * GENERATED_KEY_META) in `ctx.meta.idempotencyKey`, and a repeat of the call with that id (the gateway's own retry on another replica after a node
 * vanished, or a client sending the request again) answers the first result instead of doing it
 * again.
 *
 * One store record per id, caller and action (`idempotency` collection):
 *  - the first call inserts it `running` (a unique `_id`: of two racing calls one wins), runs the
 *    handler, then keeps the answer in it (`done`); a handler that fails removes it, so a repeat
 *    runs again;
 *  - an action whose contract says `madeKeyRecord: false` keeps no record at all under a made key:
 *    its handler finds its own repeat (its one insert is under an id made from the request id,
 *    and it answers the document a repeat finds there), so the claim and `done` would only cost
 *    two store writes (a job start over the bus);
 *  - a made key's record keeps no answer (`done` alone). Only the gateway's own retry can repeat a
 *    made key, once the node that ran the call has left the bus: a repeat that finds the record
 *    `done` (the node left after that write, before its answer arrived) runs the call again as a
 *    takeover does (below), writing nothing, and answers what the call answers now (a started job
 *    as it is by then). Kept in full (a job start's about 3.5 KB), those answers cost the store's
 *    node 11-23 % of its CPU a transition over NATS (thirty-first round, docs/performance-rounds.md);
 *    a client's key keeps its answer, as its repeat may come a day later;
 *  - a repeat that finds it `done` answers the kept answer (and its status and headers); `running`
 *    on a live node, it waits for the answer (up to its own timeout, then 409), pinging that node
 *    so that its death is noticed here too; `running` on a node that has left the bus (killed
 *    mid-call), it takes the record over with a compare-and-set and runs the handler itself, and
 *    what the first attempt inserted is answered, not inserted again: the handler's inserts get
 *    ids made from the record's `_id` and the `seed` its claim drew, the same in every run
 *    (shared/keyed-inserts.ts);
 *  - the same id with other params is a client error (409), never another request's answer;
 *  - records expire after IDEMPOTENCY_TTL seconds, a made key's sooner (madeKeyTtlMs; an index on
 *    `expiresAt`; each node sweeps the expired ones now and then, on any backend).
 *
 * The key is taken out of the call's meta before the handler runs, so the calls the handler makes
 * are not themselves deduplicated under it. Broker middleware, service side (`localAction`): one
 * mechanism for every marked action, no handler knows of it.
 */
import { hash, randomUUID } from "node:crypto";
import type { Context, Middleware, ServiceBroker } from "moleculer";
import { contracts } from "./contracts";
import type { ActionContract, ServiceContract } from "./contracts/define";
import { ConflictError } from "./errors";
import { configOf } from "./runtime";
import { DuplicateKeyError, type Collection, type Store } from "./store/types";
import { IDEMPOTENCY_COLLECTION, runKeyed, type InsertNote } from "./keyed-inserts";

export { IDEMPOTENCY_COLLECTION };
/** The meta member the gateway sets (gateway/gateway.service.ts) and this middleware consumes. */
export const IDEMPOTENCY_META = "idempotencyKey";
/**
 * A key the gateway made for a request that came without `Idempotency-Key`. It exists for one
 * thing: the gateway's own retry of a call whose node left mid-call (shared/retry-left-node.ts),
 * which only a call sent to another node can need. So it becomes the call's key (IDEMPOTENCY_META)
 * when the call leaves this node (`remoteAction` below), a retry carrying it on; a call served on
 * the gateway's own node runs without a record, as nobody can repeat it: nobody else knows the key,
 * and a node that dies takes the gateway and the client's connection with it. A client's own key
 * always gets its record, wherever the call runs.
 */
export const GENERATED_KEY_META = "idempotencyKeyIfSent";
/**
 * The gateway's mark under GENERATED_KEY_META: "make a key if this call is sent". The key is drawn
 * only then (`remoteAction` below): a call served on the gateway's node, the common case in one
 * process, never needed one, and a UUID per request was measurable.
 */
export const MAKE_KEY_IF_SENT = true;
/**
 * Set beside a made key when the call is sent (`remoteAction`): the record of a made key is kept
 * for madeKeyTtlMs, not IDEMPOTENCY_TTL. Meta only a platform node sets (a client cannot).
 */
export const KEY_MADE_META = "idempotencyKeyMade";
/** What a client may send as `Idempotency-Key`: visible ASCII, bounded. */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

const WAIT_STEP_MS = 100;
/** While waiting on another node's call, ping that node every this many steps. */
const PING_EVERY = 5;
const SWEEP_EVERY_MS = 60_000;
/**
 * How long a made key's record is kept: ten times the request timeout, at least ten minutes (at
 * most IDEMPOTENCY_TTL). A made key can be repeated only by the gateway's own retry, within its
 * request (a few attempts, each within REQUEST_TIMEOUT); nobody else knows it. Kept for
 * IDEMPOTENCY_TTL (24 h), each record holding its answer, they were most of the collection: a
 * deployment with replicas starting 10 jobs a second kept about 3 GB of them.
 */
function madeKeyTtlMs(config: { requestTimeout: number; idempotencyTtlSeconds: number }): number {
  return Math.min(config.idempotencyTtlSeconds * 1000, Math.max(10 * 60_000, 10 * config.requestTimeout));
}
/** Meta members a handler sets for its HTTP answer: kept with the answer, given back on a repeat. */
const ANSWER_META = ["$statusCode", "$responseHeaders", "$responseType"] as const;

interface IdempotencyRecord {
  _id: string;
  action: string;
  state: "running" | "done";
  node: string;
  fingerprint: string;
  expiresAt: number;
  result?: unknown;
  meta?: Record<string, unknown>;
  /** Drawn by the claim: the handler's made ids come from it and `_id` (shared/keyed-inserts.ts). */
  seed?: string;
  /** What the handler inserted under ids of its own, noted before each insert (keyed-inserts.ts). */
  inserts?: InsertNote[];
}

/** Every action whose contract passes `test`, as `service.action`. */
function actionsWhose(test: (action: ActionContract) => boolean): Set<string> {
  const out = new Set<string>();
  for (const def of Object.values(contracts) as ServiceContract[])
    for (const [name, action] of Object.entries(def.actions))
      if (test(action)) out.add(`${def.name}.${name}`);
  return out;
}

/** Every action a contract marks `idempotent: kind`, as `service.action`. */
export function actionsMarked(kind: "repeatable" | "keyed"): Set<string> {
  return actionsWhose((action) => action.idempotent === kind);
}

/** Every `keyed` action whose contract says `madeKeyRecord: false`, as `service.action`. */
export function actionsWithoutMadeKeyRecord(): Set<string> {
  return actionsWhose((action) => action.idempotent === "keyed" && action.madeKeyRecord === false);
}

/**
 * JSON with object members in key order: the same params give the same text whatever their order.
 * Loops, not map/filter/join: it runs on every keyed call's params.
 */
export function stableJson(value: unknown): string {
  if (typeof value !== "object" || value === null) return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) {
    let text = "[";
    for (let i = 0; i < value.length; i++) text += (i ? "," : "") + stableJson(value[i]);
    return text + "]";
  }
  const record = value as Record<string, unknown>;
  let text = "";
  for (const key of Object.keys(record).sort()) {
    if (record[key] === undefined) continue;
    text += `${text ? "," : ""}${JSON.stringify(key)}:${stableJson(record[key])}`;
  }
  return `{${text}}`;
}

/** One-shot `hash` (no Hash object per call): it runs twice on every keyed call. */
const sha256 = (text: string) => hash("sha256", text);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Meta = Record<string, unknown> & { caller?: { accountId?: string } };

export function idempotencyMiddleware(
  writes: Set<string> = actionsMarked("keyed"),
  withoutMadeKeyRecord: Set<string> = actionsWithoutMadeKeyRecord(),
): Middleware {
  let broker: ServiceBroker;
  let lastSweep = 0;
  const indexed = new WeakSet<Store>();

  const nodeAlive = (nodeID: string) =>
    nodeID === broker.nodeID ||
    (
      broker.registry as unknown as { nodes: { get(id: string): { available: boolean } | undefined } }
    ).nodes.get(nodeID)?.available === true;

  async function records(store: Store): Promise<Collection<IdempotencyRecord>> {
    const coll = store.collection<IdempotencyRecord>(IDEMPOTENCY_COLLECTION);
    if (!indexed.has(store)) {
      await coll.createIndex({ keys: { expiresAt: 1 }, name: "expiresAt" });
      indexed.add(store);
    }
    if (Date.now() - lastSweep > SWEEP_EVERY_MS) {
      lastSweep = Date.now();
      void coll.deleteMany({ expiresAt: { $lt: Date.now() } }).catch(() => undefined);
    }
    return coll;
  }

  return {
    name: "Idempotency",
    created(b: ServiceBroker) {
      broker = b;
    },
    /**
     * A call of a marked action sent to another node takes the gateway's made key as its own, so
     * that retry-left-node (registered before this middleware, so wrapped by it: it finds the key
     * in the meta when the call fails) sends it again under that key, and the replica that runs
     * it keeps a record.
     */
    remoteAction(handler: (ctx: Context) => Promise<unknown>, action: { name: string }) {
      if (!writes.has(action.name)) return handler;
      return function keyWhenSent(ctx: Context<unknown, Meta>): Promise<unknown> {
        const made = ctx.meta[GENERATED_KEY_META];
        if (made !== undefined) {
          if (typeof ctx.meta[IDEMPOTENCY_META] !== "string") {
            if (typeof made === "string") ctx.meta[IDEMPOTENCY_META] = made;
            else if (made === MAKE_KEY_IF_SENT) ctx.meta[IDEMPOTENCY_META] = randomUUID();
            if (typeof ctx.meta[IDEMPOTENCY_META] === "string") ctx.meta[KEY_MADE_META] = true;
          }
          delete ctx.meta[GENERATED_KEY_META];
        }
        return handler(ctx);
      };
    },
    localAction(handler: (ctx: Context) => Promise<unknown>, action: { name: string; service?: unknown }) {
      if (!writes.has(action.name)) return handler;
      // Not async: a call without a key (every create in one process) goes straight to its
      // handler, with no promise of its own around it.
      return function oncePerRequestId(ctx: Context<unknown, Meta>): Promise<unknown> {
        const key = ctx.meta[IDEMPOTENCY_META];
        // Served where the gateway made it: no repeat can come (GENERATED_KEY_META).
        if (GENERATED_KEY_META in ctx.meta) delete ctx.meta[GENERATED_KEY_META];
        const madeKey = ctx.meta[KEY_MADE_META] === true;
        if (KEY_MADE_META in ctx.meta) delete ctx.meta[KEY_MADE_META];
        if (typeof key !== "string") {
          // As an async function would: a handler that throws answers a rejected promise.
          try {
            return handler(ctx);
          } catch (err) {
            return Promise.reject(err);
          }
        }
        return keyedCall(ctx, key, madeKey);
      };

      async function keyedCall(ctx: Context<unknown, Meta>, key: string, madeKey: boolean): Promise<unknown> {
        // The handler's own calls are not repeats of this one.
        delete ctx.meta[IDEMPOTENCY_META];
        const store = (action.service as { store?: Store } | undefined)?.store;
        if (!store) return handler(ctx);
        const _id = sha256(`${ctx.meta.caller?.accountId ?? ""}\n${action.name}\n${key}`);
        // Its made ids come from the request id alone; its repeat finds what the first run stored.
        if (madeKey && withoutMadeKeyRecord.has(action.name))
          return runKeyed({ recordId: _id, seen: new Map() }, () => handler(ctx));
        const coll = await records(store);
        const fingerprint = sha256(stableJson(ctx.params));
        const config = configOf(broker);
        const ttlMs = madeKey ? madeKeyTtlMs(config) : config.idempotencyTtlSeconds * 1000;
        const running = (): IdempotencyRecord => ({
          _id,
          action: action.name,
          state: "running",
          node: broker.nodeID,
          fingerprint,
          expiresAt: Date.now() + ttlMs,
          seed: randomUUID(),
        });

        /**
         * Runs the handler under the record. `rerun`: a repeat of a call done under a made key,
         * run again as a takeover runs it (`replay`: its made ids find what the first run made),
         * writing nothing to the record.
         */
        const run = async (
          seed: string | undefined,
          replay?: InsertNote[],
          rerun = false,
        ): Promise<unknown> => {
          let result: unknown;
          try {
            result = await runKeyed({ recordId: _id, records: coll, seed, replay, seen: new Map() }, () =>
              handler(ctx),
            );
          } catch (err) {
            if (!rerun)
              await coll.deleteOne({ _id, node: broker.nodeID, state: "running" }).catch(() => undefined);
            throw err;
          }
          if (rerun) return result;
          // A made key's record keeps no answer (the header says why): its repeat runs the call again.
          const done: Partial<IdempotencyRecord> = madeKey
            ? { state: "done" }
            : {
                state: "done",
                result: result ?? null,
                meta: Object.fromEntries(
                  ANSWER_META.filter((m) => ctx.meta[m] !== undefined).map((m) => [m, ctx.meta[m]]),
                ),
              };
          await coll.updateOne({ _id, node: broker.nodeID }, { $set: done });
          return result;
        };

        const until = Date.now() + (ctx.options?.timeout || config.requestTimeout);
        let waits = 0;
        for (;;) {
          try {
            const claim = running();
            await coll.insertOne(claim);
            return await run(claim.seed);
          } catch (err) {
            if (!(err instanceof DuplicateKeyError)) throw err;
          }
          const found = await coll.findOne({ _id });
          if (!found || found.expiresAt <= Date.now()) {
            // Gone or expired since: the next insert decides.
            if (found) await coll.deleteOne({ _id, expiresAt: found.expiresAt });
            continue;
          }
          if (found.fingerprint !== fingerprint)
            throw new ConflictError("This Idempotency-Key was already used for a different request", {
              idempotencyKey: key,
            });
          if (found.state === "done") {
            if (!("result" in found)) return run(found.seed, found.inserts ?? [], true);
            Object.assign(ctx.meta, found.meta ?? {});
            return found.result;
          }
          if (!nodeAlive(found.node)) {
            // Its node died mid-call: take it over (one taker wins) and run it here.
            const taken = await coll.findOneAndUpdate(
              { _id, state: "running", node: found.node },
              { $set: { node: broker.nodeID, expiresAt: Date.now() + ttlMs } },
            );
            if (taken) {
              broker.logger.info(`'${action.name}': taking over a call whose node left mid-call`);
              return run(taken.seed, taken.inserts ?? []);
            }
            continue;
          }
          // This node may not have heard of the owner's death yet (it never calls it): a ping finds
          // out, since a dead node's subscription is gone (app/departed-nodes.ts).
          if (waits++ % PING_EVERY === 0) void broker.ping(found.node, 1000).catch(() => undefined);
          if (Date.now() + WAIT_STEP_MS > until)
            throw new ConflictError("A request with this Idempotency-Key is still in progress", {
              idempotencyKey: key,
            });
          await sleep(WAIT_STEP_MS);
        }
      }
    },
  } as unknown as Middleware;
}
