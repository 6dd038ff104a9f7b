/**
 * What an idempotent write inserted, so that when its node dies between the insert and keeping its
 * answer, the replica that takes the call over does not insert it again (shared/idempotency.ts).
 *
 * While a keyed call's handler runs (an AsyncLocalStorage scope the idempotency middleware opens),
 * every `insertOne` first notes `{collection, _id}` in the call's idempotency record, then inserts.
 * A takeover runs the handler again with the first attempt's notes: its n-th insert into a
 * collection whose n-th noted document exists answers that document instead of inserting (a create
 * answers what the first attempt created, instead of 409 or a second copy). Outside a keyed call
 * nothing changes. The store of every service passes through here (shared/runtime.ts).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { createHash } from "node:crypto";
import { newDocumentId, type Collection, type Doc, type Store } from "./store/types";

/** Where idempotency records live (shared/idempotency.ts): never noted themselves. */
export const IDEMPOTENCY_COLLECTION = "idempotency";

export interface InsertNote {
  c: string;
  id: string;
}

export interface KeyedCall {
  /** The idempotency record's `_id` and collection. */
  recordId: string;
  records: Collection;
  /** The first attempt's notes, when this run takes a dead node's call over. */
  replay?: InsertNote[];
  /** Inserts so far in this run, per collection. */
  seen: Map<string, number>;
}

const scope = new AsyncLocalStorage<KeyedCall>();

export function runKeyed<T>(call: KeyedCall, run: () => Promise<T>): Promise<T> {
  return scope.run(call, run);
}

/** Is this code running a keyed call taken over from a dead node? */
export function takingOver(): boolean {
  return scope.getStore()?.replay !== undefined;
}

function notingCollection(collection: Collection): Collection {
  return new Proxy(collection, {
    get(target, prop, receiver) {
      if (prop !== "insertOne" || target.name === IDEMPOTENCY_COLLECTION)
        return Reflect.get(target, prop, receiver);
      return async (doc: Doc) => {
        const call = scope.getStore();
        if (!call) return target.insertOne(doc);
        const n = call.seen.get(target.name) ?? 0;
        call.seen.set(target.name, n + 1);
        const earlier = call.replay?.filter((note) => note.c === target.name)[n];
        if (earlier) {
          const existing = await target.findOne({ _id: earlier.id });
          if (existing) return existing;
        }
        const withId = doc._id === undefined ? { ...doc, _id: newDocumentId() } : doc;
        await call.records.updateOne(
          { _id: call.recordId },
          { $push: { inserts: { c: target.name, id: withId._id } } },
        );
        return target.insertOne(withId);
      };
    },
  });
}

/** The store with inserts noted during keyed calls. */
export function notingKeyedInserts(store: Store): Store {
  const collections = new Map<string, Collection>();
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop !== "collection") return Reflect.get(target, prop, receiver);
      return (name: string) => {
        let c = collections.get(name);
        if (!c) collections.set(name, (c = notingCollection(target.collection(name))));
        return c;
      };
    },
  });
}

/**
 * An id the same in every run of the keyed call (the first and a takeover), for a handler that
 * must find what a first attempt made under its own id (a started job); undefined outside one.
 */
export function keyedDocumentId(label: string): string | undefined {
  const call = scope.getStore();
  return call
    ? createHash("sha256").update(`${call.recordId}\n${label}`).digest("hex").slice(0, 24)
    : undefined;
}
