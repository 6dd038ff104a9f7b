/**
 * Builds a service's Moleculer actions from its contract: the params schema validates every call
 * (HTTP or bus), and an action the service does not implement yet answers 501 NOT_IMPLEMENTED, so
 * the whole API contract is registered even before its handlers exist.
 */
import type { Context, Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import type { ActionContract, ServiceContract } from "./contracts/define";
import { dropNullOptionals, type Infer, type ResultType } from "./contracts/schema";
import type { Caller } from "./contracts/resources";
import { NotImplementedError } from "./errors";
import { acquireStore } from "./runtime";
import type { Store } from "./store/types";

/** What the gateway puts in `ctx.meta` for the services. */
export interface PlatformMeta {
  /** The user a call is made by or for (docs/security.md#authorization). */
  caller?: Caller;
  /** The platform's internal identity: set, with no caller, on calls the platform makes as itself. */
  platform?: boolean;
  /** An idempotent write's request id (shared/idempotency.ts); taken out before its handler runs. */
  idempotencyKey?: string;
  $responseType?: string;
  $responseHeaders?: Record<string, string>;
  $statusCode?: number;
}

type ServiceActionsSchema = NonNullable<ServiceSchema["actions"]>;

export type ActionContext<C extends ActionContract> = Context<Infer<C["params"]>, PlatformMeta>;

/**
 * `this` of a service built on the store mixin: the Moleculer service, its store, and what the
 * service itself adds (`TOwn`: its methods and instance fields, declared by the service; see
 * docs/architecture.md). Its handlers are named functions typed `this: PlatformService<...>`.
 */
export type PlatformService<TOwn = object, TSettings = ServiceSettingSchema> = Service<TSettings> & {
  store: Store;
} & TOwn;

/** The loose `this` of services not yet in the typed shape (anything the schema added is `any`). */
export type ServiceThis = PlatformService<Record<string, any>>;

/** The context a handler of action `K` of contract `C` receives. */
export type HandlerContext<
  C extends ServiceContract<string, any>,
  K extends keyof C["actions"],
> = ActionContext<C["actions"][K]>;

export type Handlers<A extends Record<string, ActionContract>, TThis = ServiceThis> = {
  [K in keyof A]?: (
    this: TThis,
    ctx: ActionContext<A[K]>,
  ) => Promise<ResultType<A[K]["result"]>> | ResultType<A[K]["result"]>;
};

/** The handler of an action whose implementation belongs to a later issue: answers 501. */
function placeholder(action: string) {
  const handler = () => {
    throw new NotImplementedError(action);
  };
  return Object.assign(handler, { notImplemented: true });
}

export function contractActions<
  N extends string,
  A extends Record<string, ActionContract>,
  TThis = ServiceThis,
>(contract: ServiceContract<N, A>, handlers: Handlers<A, TThis>): ServiceActionsSchema {
  const actions: ServiceActionsSchema = {};
  for (const [name, def] of Object.entries(contract.actions)) {
    const handler = handlers[name as keyof A];
    const action = `${contract.name}.${name}`;
    actions[name] = {
      params: def.params as any,
      // Only routed actions are published to the gateway; the rest are for other services.
      visibility: def.http ? "published" : "public",
      handler: handler ? withNullRule(def.params, handler as any) : placeholder(action),
      ...(def.task && { task: def.task }),
    };
  }
  return actions;
}

/** The handler, after the one rule for null on optional fields (dropNullOptionals). */
function withNullRule(props: ActionContract["params"], handler: (this: unknown, ctx: Context) => unknown) {
  return function (this: unknown, ctx: Context<Record<string, unknown>>) {
    dropNullOptionals(props, ctx.params);
    return handler.call(this, ctx);
  };
}

/** Gives a service `this.store` (its handle on the broker's store) from `started` to `stopped`. */
export const storeMixin: Partial<ServiceSchema> = {
  async started(this: Service & { store?: Store }) {
    this.store = await acquireStore(this.broker);
  },
  async stopped(this: Service & { store?: Store }) {
    await this.store?.close();
  },
};

/** Is some node up that serves this action right now? */
export function isActionAvailable(broker: Service["broker"], action: string): boolean {
  const endpoints = broker.registry.getActionEndpoints(action);
  return endpoints !== undefined && endpoints !== null && endpoints.hasAvailable();
}

/**
 * A service's schema with `this` typed as `TThis` in its methods and lifecycle handlers (Moleculer's
 * ServiceSchema generics), handed to the broker as a plain ServiceSchema (the registry in app/ holds
 * schemas of many `this` types).
 */
export function typedService<TThis>(
  schema: ServiceSchema<ServiceSettingSchema, object, object, TThis>,
): ServiceSchema {
  return schema as unknown as ServiceSchema;
}

/** A mixin whose hooks and methods see `this` as `TThis` (as typedService does for a schema). */
export function typedMixin<TThis>(
  mixin: Partial<ServiceSchema<ServiceSettingSchema, object, object, TThis>>,
): Partial<ServiceSchema> {
  return mixin as unknown as Partial<ServiceSchema>;
}
