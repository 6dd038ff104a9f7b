/**
 * Authorization at the action (docs/security.md#authorization). One broker middleware checks every
 * call of a contract action on the node that runs it, whoever made the call: the gateway, a
 * workflow task run as its job's `runAs`, a trigger or schedule run as its automation's owner, or
 * another service on a user's behalf. The gateway's own check (mayCall, below) only answers early.
 *
 * Who is calling is `ctx.meta.caller` (a user) or, for the platform acting as itself, the internal
 * identity `ctx.meta.platform === true` with no caller (callAsPlatform). A call with neither is
 * refused by every action but the public ones: an absent caller is never taken for the platform.
 *
 * Rights are current: a caller resolved by accounts carries `resolvedAt`, and is trusted for
 * AUTH_CACHE_MS; an older one (a job's stored `runAs`, an automation's owner) is resolved again
 * through `accounts.refreshCaller`, cached per node for at most AUTH_CACHE_MS, and the handler sees
 * the current roles and groups. A change made through accounts (accounts.changed) empties that
 * cache for the accounts it touches at once, on every node.
 */
import type { CallingOptions, Context, Middleware, ServiceBroker, ServiceSchema } from "moleculer";
import { ACCOUNTS_CHANGED_EVENT, type AccountsChangedEvent } from "./contracts/events";
import { contracts, type ActionName, type ParamsOf, type ResultOf } from "./contracts";
import type { ActionAccess } from "./contracts/define";
import type { Caller } from "./contracts/resources";
import { ForbiddenError } from "./errors";

/** The meta of a call the platform makes as itself: the internal identity, no user. */
export const PLATFORM_META = Object.freeze({ platform: true as const, caller: undefined });

/** What the rule of an action needs to know about a caller. */
export interface Rights {
  roles: readonly string[];
  methods?: readonly string[];
}

/**
 * The one role rule: may a caller with these rights call an action with this access? `admin` may
 * call everything; a custom role allows the actions it names (`service.action`).
 */
export function mayCall(access: ActionAccess, rights: Rights, action?: string): boolean {
  if (access === "public" || access === "authenticated" || access === "internal") return true;
  if (rights.roles.includes("admin") || access.some((r) => rights.roles.includes(r))) return true;
  return action !== undefined && rights.methods !== undefined && rights.methods.includes(action);
}

/** The roles an access needs, as a 403's `data.required` names them. */
export const requiredRoles = (access: ActionAccess): string[] =>
  typeof access === "string" ? [] : [...new Set(["admin", ...access])];

export function refusal(action: string, access: ActionAccess, why?: string): ForbiddenError {
  const required = requiredRoles(access);
  return new ForbiddenError(
    why ?? `'${action}' needs one of the roles ${required.join(", ")}, or a custom role that allows it`,
    { required, action },
  );
}

/** Every contract action's access, once: the middleware looks a call's rule up by action name. */
export function accessTable(): Map<string, ActionAccess> {
  const table = new Map<string, ActionAccess>();
  for (const def of Object.values(contracts) as { name: string; actions: Record<string, any> }[])
    for (const [name, contract] of Object.entries(def.actions)) {
      const access: ActionAccess | undefined = contract.http?.access ?? contract.access;
      // A new action without a route must say who may call it; nothing is open by omission.
      if (access === undefined) throw new Error(`${def.name}.${name} declares no access in its contract`);
      table.set(`${def.name}.${name}`, access);
    }
  return table;
}

type Meta = { caller?: Caller; platform?: boolean };
type From = Context | ServiceBroker;

const isContext = (from: From): from is Context => "meta" in from && "params" in from;

/**
 * Calls an action as the platform itself (the internal identity), never as the user a context
 * carries. A call with a context keeps its request id and trace (parentCtx), but its meta does not
 * flow back into that context (as `ctx.call`'s would), so the user's caller there stays.
 */
export function callAsPlatform<A extends ActionName>(
  from: From,
  action: A,
  params: ParamsOf<A>,
  opts: CallingOptions = {},
): Promise<ResultOf<A>> {
  const broker = isContext(from) ? from.broker : from;
  return broker.call(action, params, {
    ...opts,
    ...(isContext(from) && { parentCtx: from }),
    meta: { ...opts.meta, ...PLATFORM_META },
  }) as Promise<ResultOf<A>>;
}

/** Calling options that run a call as `caller` (a user), whatever the meta around it says. */
export const asCaller = (caller: Caller, opts: CallingOptions = {}): CallingOptions => ({
  ...opts,
  meta: { ...opts.meta, caller, platform: undefined },
});

const MAX_CACHED = 10_000;

/** A caller's current rights, asked of accounts and kept per node for at most AUTH_CACHE_MS. */
class CurrentRights {
  private readonly cache = new Map<string, { caller: Caller; until: number }>();
  private readonly asking = new Map<string, Promise<Caller>>();

  constructor(
    private readonly broker: ServiceBroker,
    private readonly ttlMs: number,
  ) {}

  /** Forgets these accounts' rights (all, when `all`): the next call resolves them again. */
  forget(accountIds: readonly string[], all = false): void {
    if (all) this.cache.clear();
    else for (const id of accountIds) this.cache.delete(id);
  }

  async of(caller: Caller): Promise<Caller> {
    const id = caller.accountId;
    const hit = this.cache.get(id);
    if (hit && hit.until > Date.now()) return { ...caller, ...rightsOf(hit.caller) };
    let asked = this.asking.get(id);
    if (!asked) {
      asked = callAsPlatform(this.broker, "accounts.refreshCaller", { accountId: id }).finally(() =>
        this.asking.delete(id),
      );
      this.asking.set(id, asked);
    }
    let current: Caller;
    try {
      current = await asked;
    } catch (err) {
      if ((err as { code?: number }).code !== 401) throw err;
      throw new ForbiddenError(`The account '${caller.username || id}' is inactive or gone`, {
        required: [],
      });
    }
    if (this.ttlMs > 0) {
      if (!this.cache.has(id) && this.cache.size >= MAX_CACHED)
        this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(id, { caller: current, until: Date.now() + this.ttlMs });
    }
    return { ...caller, ...rightsOf(current) };
  }
}

const rightsOf = (c: Caller) => ({
  username: c.username,
  roles: c.roles,
  groupIds: c.groupIds,
  methods: c.methods ?? [],
  resolvedAt: c.resolvedAt,
});

/** Resolved by accounts within the last AUTH_CACHE_MS (the gateway's callers are). */
function isFresh(caller: Caller, ttlMs: number, now: number): boolean {
  const at = caller.resolvedAt;
  return typeof at === "number" && at <= now && now - at <= ttlMs;
}

type EventHandler = (this: unknown, ctx: Context<AccountsChangedEvent>) => unknown;

/**
 * The schema of one service on this node gets a listener for ACCOUNTS_CHANGED_EVENT (beside its
 * own, if it has one): an account or group changed, so this node forgets the rights it cached for
 * it. One service per node is enough (the cache is the node's); the same service gets it again if
 * it is created again (a restart).
 */
function listenForChanges(schema: ServiceSchema, onChange: (e: AccountsChangedEvent) => void): void {
  const events = (schema.events ?? {}) as Record<string, EventHandler | { handler: EventHandler }>;
  const own = events[ACCOUNTS_CHANGED_EVENT];
  const ownHandler = typeof own === "function" ? own : own?.handler;
  schema.events = {
    ...events,
    [ACCOUNTS_CHANGED_EVENT](this: unknown, ctx: Context<AccountsChangedEvent>) {
      onChange(ctx.params);
      return ownHandler?.call(this, ctx);
    },
  } as ServiceSchema["events"];
}

export function authorizationMiddleware(authCacheMs: number): Middleware {
  const rules = accessTable();
  let rights: CurrentRights;
  let listener: string | undefined;
  return {
    name: "Authorization",
    created(broker: ServiceBroker) {
      rights = new CurrentRights(broker, authCacheMs);
    },
    serviceCreating(_service: unknown, schema: ServiceSchema) {
      const name = String(schema.name ?? "");
      if (name === "" || name.startsWith("$") || (listener !== undefined && listener !== name)) return;
      listener = name;
      listenForChanges(schema, (e) => rights.forget(e.accountIds ?? [], e.all === true));
    },
    localAction(next: (ctx: Context) => Promise<unknown>, action: { name: string }) {
      const access = rules.get(action.name);
      // Not a contract action (the store's, $node's), or open to anyone: nothing to check.
      if (access === undefined || access === "public") return next;
      const name = action.name;
      const check = (caller: Caller, ctx: Context) => {
        if (!mayCall(access, caller, name)) throw refusal(name, access);
        return next(ctx);
      };
      return function authorize(ctx: Context) {
        const meta = ctx.meta as Meta;
        const caller = meta.caller;
        if (!caller) {
          if (meta.platform === true) return next(ctx);
          return Promise.reject(
            refusal(name, access, `'${name}' was called with neither a user nor the platform's identity`),
          );
        }
        try {
          if (isFresh(caller, authCacheMs, Date.now())) return check(caller, ctx);
        } catch (err) {
          return Promise.reject(err);
        }
        return rights.of(caller).then((current) => {
          meta.caller = current;
          return check(current, ctx);
        });
      };
    },
  } as unknown as Middleware;
}
