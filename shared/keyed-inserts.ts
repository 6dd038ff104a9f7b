/**
 * What an idempotent write inserted, so that when its node dies between the insert and keeping its
 * answer, the replica that takes the call over does not insert it again (shared/idempotency.ts).
 *
 * While a keyed call's handler runs (an AsyncLocalStorage scope the idempotency middleware opens),
 * its inserts get ids that are the same in every run of the call: the n-th insert into a
 * collection of a document without `_id` gets one made from the call's record (its `_id` and the
 * `seed` the claim drew), and a handler with its own id scheme asks for one (keyedDocumentId). A
 * takeover runs the handler again and so makes the same ids: an insert whose id is already stored
 * answers that document instead of inserting it (a create answers what the first attempt
 * created, instead of 409 or a second copy). Such an insert costs no extra write: the document
 * itself, under its made id, proves it was made.
 *
 * A document inserted under an id of the handler's own choosing (not made here) is noted instead:
 * `{collection, _id}` pushed to the call's record before the insert, and a takeover answers the
 * n-th noted document of a collection for its n-th insert there. Records written before made ids
 * existed carry such notes only, and are taken over the same way. Outside a keyed call nothing
 * changes. The store of every service passes through here (shared/runtime.ts).
 *
 * The call ends when its handler settles. Work the handler set going and left running (a started
 * job's tasks, a compliance batch's sweep) inherits its async context but is not the request: its
 * inserts are plain ones, neither noted in the request's record nor under the request's made ids.
 * Before, every insert of a job's tasks on the replica that started it was noted in the start's
 * record: a loop over many devices grew one record by a note and a write each.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { hash } from "node:crypto";
import { newDocumentId, type Collection, type Doc, type Store } from "./store/types";

/** Where idempotency records live (shared/idempotency.ts): never noted themselves. */
export const IDEMPOTENCY_COLLECTION = "idempotency";

export interface InsertNote {
  c: string;
  id: string;
}

export interface KeyedCall {
  /**
   * The idempotency record's `_id` and collection. No collection: a call kept without a record (a
   * made key of an action whose contract says `madeKeyRecord: false`): its made ids come from
   * `recordId` alone, and an insert under an id of its own is not noted.
   */
  recordId: string;
  records?: Collection;
  /**
   * The claim's random seed (in the record): made ids differ from those of an expired record of the
   * same key. Absent in records written before it existed; their ids are made from recordId alone.
   */
  seed?: string;
  /** The first attempt's notes, when this run takes a dead node's call over. */
  replay?: InsertNote[];
  /** Noted inserts so far in this run, per collection. */
  seen: Map<string, number>;
  /** Id-less inserts so far in this run, per collection: the n-th gets the n-th made id. */
  madeCount?: Map<string, number>;
  /** Ids made in this run (keyedDocumentId, keyedUuid, id-less inserts): inserted without a note. */
  made?: Set<string>;
  /** Set once the handler settled: what it left running is no longer the call (runKeyed). */
  ended?: boolean;
}

const scope = new AsyncLocalStorage<KeyedCall>();

export async function runKeyed<T>(call: KeyedCall, run: () => Promise<T>): Promise<T> {
  try {
    return await scope.run(call, run);
  } finally {
    call.ended = true;
  }
}

/** The keyed call this code runs in, unless its handler has settled (the header says why). */
function currentCall(): KeyedCall | undefined {
  const call = scope.getStore();
  return call && !call.ended ? call : undefined;
}

/** Is this code running a keyed call taken over from a dead node? */
export function takingOver(): boolean {
  return currentCall()?.replay !== undefined;
}

/** The hex digest every made id of the call under `label` comes from. */
function madeDigest(call: KeyedCall, label: string): string {
  const base = call.seed === undefined ? call.recordId : `${call.recordId}\n${call.seed}`;
  return hash("sha256", `${base}\n${label}`);
}

function made(call: KeyedCall, id: string): string {
  (call.made ??= new Set()).add(id);
  return id;
}

function nextOf(counts: Map<string, number>, collection: string): number {
  const n = counts.get(collection) ?? 0;
  counts.set(collection, n + 1);
  return n;
}

/** The id of the call's n-th id-less insert into `collection`. */
function madeInsertId(call: KeyedCall, collection: string): string {
  const n = nextOf((call.madeCount ??= new Map()), collection);
  return made(call, madeDigest(call, `insert\n${collection}\n${n}`).slice(0, 24));
}

function notingCollection(collection: Collection): Collection {
  const name = collection.name;
  // Not async itself: an insert outside a keyed call (every key-less create) is the collection's
  // own, with no promise of this wrapper's around it.
  const insertOne = (doc: Doc): Promise<Doc> => {
    const call = currentCall();
    return call ? keyedInsert(call, doc) : collection.insertOne(doc);
  };
  const keyedInsert = async (call: KeyedCall, doc: Doc): Promise<Doc> => {
    // Records from before made ids (no seed): every insert noted, as their first attempt did.
    const own =
      (call.seed === undefined && call.records !== undefined) ||
      (doc._id !== undefined && !call.made?.has(doc._id));
    if (!own) {
      const id = doc._id ?? madeInsertId(call, name);
      if (call.replay !== undefined) {
        const existing = await collection.findOne({ _id: id });
        if (existing) return existing;
      }
      return collection.insertOne(doc._id === id ? doc : { ...doc, _id: id });
    }
    const n = nextOf(call.seen, name);
    const earlier = call.replay?.filter((note) => note.c === name)[n];
    if (earlier) {
      const existing = await collection.findOne({ _id: earlier.id });
      if (existing) return existing;
    }
    const withId = doc._id === undefined ? { ...doc, _id: newDocumentId() } : doc;
    if (!call.records) return collection.insertOne(withId); // no record to note it in
    await call.records.updateOne({ _id: call.recordId }, { $push: { inserts: { c: name, id: withId._id } } });
    return collection.insertOne(withId);
  };
  return methodsOnTarget(collection, name === IDEMPOTENCY_COLLECTION ? undefined : { insertOne });
}

/**
 * `target` with `own` members in place of its own, every other method run with `target` as `this`
 * (bound once per method, bound again when the method was replaced since). A Proxy's default read
 * ran each method with the Proxy as `this`: every `this.store`, `this.table` inside the embedded
 * collection went through the trap and `Reflect.get`, about 29 reads and 3 % of a job transition's
 * instructions (thirty-seventh round, docs/performance-rounds.md). No method of a backend's
 * collection calls its own `insertOne`, so none bypasses the noting one by this.
 */
function methodsOnTarget<T extends object>(target: T, own?: Record<string, unknown>): T {
  const bound = new Map<PropertyKey, { method: (...args: unknown[]) => unknown; bound: unknown }>();
  return new Proxy(target, {
    get(on, prop) {
      if (own && Object.hasOwn(own, prop)) return own[prop as string];
      const value: unknown = (on as Record<PropertyKey, unknown>)[prop];
      if (typeof value !== "function") return value;
      let entry = bound.get(prop);
      if (entry?.method !== value) {
        const method = value as (...args: unknown[]) => unknown;
        bound.set(prop, (entry = { method, bound: asIs(on, prop) ? method : method.bind(on) }));
      }
      return entry.bound;
    },
  });
}

/**
 * A function member answered unbound: the class itself (`constructor`), and an own member that
 * can never change (a Proxy must answer such a member as it is).
 */
function asIs(target: object, prop: PropertyKey): boolean {
  if (prop === "constructor") return true;
  const own = Object.getOwnPropertyDescriptor(target, prop);
  return own !== undefined && !own.configurable && !own.writable;
}

/** The store with inserts noted during keyed calls. */
export function notingKeyedInserts(store: Store): Store {
  const collections = new Map<string, Collection>();
  const collection = (name: string) => {
    let c = collections.get(name);
    if (!c) collections.set(name, (c = notingCollection(store.collection(name))));
    return c;
  };
  return methodsOnTarget(store, { collection });
}

/**
 * An id the same in every run of the keyed call (the first and a takeover), for a handler that
 * must find what a first attempt made under its own id (a started job); undefined outside one.
 * A document inserted under it needs no note: a takeover finds it by this id.
 */
export function keyedDocumentId(label: string): string | undefined {
  const call = currentCall();
  return call ? made(call, madeDigest(call, label).slice(0, 24)) : undefined;
}

/**
 * keyedDocumentId in the form of a UUID (RFC 9562 version 8: its bits are ours), for documents
 * whose ids are UUIDs (forms): undefined outside a keyed call.
 */
export function keyedUuid(label: string): string | undefined {
  const call = currentCall();
  if (!call) return undefined;
  const h = madeDigest(call, label);
  const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  return made(
    call,
    `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`,
  );
}
