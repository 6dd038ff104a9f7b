/**
 * Every service contract, and `call`: a typed `broker.call`/`ctx.call` whose action names, params
 * and results come from the contracts.
 */
import type { CallingOptions } from "moleculer";
import type { Infer, ResultType } from "./schema";
import type { ActionContract, HttpBinding } from "./define";
import { accounts } from "./accounts";
import { adapters } from "./adapters";
import { configuration } from "./configuration";
import { devices } from "./devices";
import { engine } from "./engine";
import { forms } from "./forms";
import { gateway } from "./gateway";
import { prebuilts } from "./prebuilts";
import { profiles } from "./profiles";
import { scheduler } from "./scheduler";
import { search } from "./search";

export const contracts = {
  accounts,
  adapters,
  configuration,
  devices,
  engine,
  forms,
  gateway,
  prebuilts,
  profiles,
  scheduler,
  search,
} as const;

type Contracts = typeof contracts;
export type ServiceName = keyof Contracts;
type ActionsOf<S extends ServiceName> = Contracts[S]["actions"];

export type ActionName = {
  [S in ServiceName]: `${S}.${keyof ActionsOf<S> & string}`;
}[ServiceName];

type Split<A> = A extends `${infer S extends ServiceName}.${infer N}` ? [S, N] : never;
type ContractOf<A extends ActionName> =
  Split<A> extends [infer S extends ServiceName, infer N extends string]
    ? ActionsOf<S>[N & keyof ActionsOf<S>]
    : never;

export type ParamsOf<A extends ActionName> = ContractOf<A> extends { params: infer P } ? Infer<P> : never;
export type ResultOf<A extends ActionName> =
  ContractOf<A> extends { result: infer R } ? ResultType<R> : never;

interface Caller {
  call(action: string, params?: unknown, opts?: CallingOptions): Promise<unknown>;
}

/** `broker.call`/`ctx.call` with the action's params and result types from its contract. */
export function call<A extends ActionName>(
  caller: Caller,
  action: A,
  params: ParamsOf<A>,
  opts?: CallingOptions,
): Promise<ResultOf<A>> {
  return caller.call(action, params, opts) as Promise<ResultOf<A>>;
}

/** One HTTP operation: a route bound to the action that serves it. */
export interface Operation extends HttpBinding {
  action: string;
  service: ServiceName;
  contract: ActionContract;
  /** Set on a real-product path for another route's operation (HttpBinding.aliases): that route's path. */
  aliasOf?: string;
}

/** The key of a route in the gateway's table: `GET /path`. */
export const routeKey = (op: { method: string; path: string }) => `${op.method} ${op.path}`;

/** Every route of the API, from the contracts: the gateway's aliases, role table and OpenAPI. */
export function operations(): Operation[] {
  const out: Operation[] = [];
  for (const [service, def] of Object.entries(contracts) as [
    ServiceName,
    { name: string; actions: Record<string, ActionContract> },
  ][]) {
    for (const [name, contract] of Object.entries(def.actions)) {
      if (!contract.http) continue;
      const op: Operation = { ...contract.http, action: `${def.name}.${name}`, service, contract };
      out.push(op);
      for (const alias of contract.http.aliases ?? [])
        out.push({
          ...op,
          method: alias.method ?? op.method,
          path: alias.path,
          spec: undefined,
          aliasOf: op.path,
        });
    }
  }
  return out;
}
