/**
 * The shape of a service contract: for each action, its params schema, its result schema and, when
 * it is reachable over HTTP, its route and who may call it. The gateway builds its aliases, role
 * table and OpenAPI document from these; services register exactly these actions.
 */
import type { Props, Returns } from "./schema";

/** Role names of the spec. `admin` may call everything. */
export const ROLES = [
  "admin",
  "engineering",
  "apiread",
  "apiwrite",
  "operations",
  "operator",
  "support",
  "other",
] as const;
export type Role = (typeof ROLES)[number];

/**
 * Who may call a route: `public` needs no credentials; `authenticated` is any signed-in caller (the
 * spec's "roles: not shown"); otherwise a role list.
 */
export type Access = "public" | "authenticated" | readonly Role[];

/**
 * Who may call an action that has no route: a role list (a workflow task, checked as a route is),
 * or `internal`: an action only other services call (not routed, not a task), called with the
 * platform's identity or on a user's behalf (docs/security.md#authorization).
 */
export type ActionAccess = Access | "internal";

/** docs/platform-rules.md#supporting-operations: supporting reads and writes. */
export const SUPPORT_READ: readonly Role[] = ["admin", "apiwrite", "engineering", "apiread"];
export const SUPPORT_WRITE: readonly Role[] = ["admin", "apiwrite", "engineering"];

/** The error statuses an action may declare (shared/errors.ts ERROR_TYPES has their types). */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 429 | 500 | 501 | 502 | 503 | 504;

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** Methods whose JSON body carries the params (docs/platform-rules.md#object-parameters-on-get covers GET). */
export const BODY_METHODS: readonly HttpMethod[] = ["POST", "PUT", "PATCH"];

export interface HttpBinding {
  method: HttpMethod;
  /** moleculer-web alias path; `:name` segments become params. */
  path: string;
  access: Access;
  summary: string;
  /** The operation's number in automation-platform-api.md (1-20); absent for supporting routes. */
  spec?: number;
  /** GET operations with one object parameter (docs/platform-rules.md#object-parameters-on-get) name it here. */
  objectParam?: string;
  /**
   * A body-taking operation whose whole JSON body is one param (an endpoint trigger's input): the
   * body goes under this name, whatever members it has, instead of its members becoming params.
   */
  bodyParam?: string;
  /** What a success body is: JSON (default), plain text (login's token) or a Server-Sent Events stream. */
  produces?: "json" | "text" | "sse";
  /**
   * The session cookie this operation changes: `set` from its `{token, expiresAt}` result (the
   * token is the answer), `clear` once it succeeded. The gateway reads this, not action names.
   */
  session?: "set" | "clear";
  /**
   * The real product's other paths for this same operation (same params, same answer), which its
   * clients call. Each is a route of its own in the gateway, OpenAPI and docs/operations.md.
   */
  aliases?: readonly RouteAlias[];
  /** Also takes an `application/x-www-form-urlencoded` body (OAuth token requests are form-encoded). */
  form?: boolean;
  /** Trades credentials for a token: limited per client address by LOGIN_RATE_LIMIT, not RATE_LIMIT. */
  signIn?: boolean;
}

/** Another path for an operation; `method` defaults to the operation's. */
export interface RouteAlias {
  method?: HttpMethod;
  path: string;
}

/**
 * Marks an action as usable as a workflow task (spec: Task catalog entry). It travels with the
 * action's schema through the service registry, so the engine's catalog sees every node's tasks.
 */
export interface TaskMetadata {
  summary: string;
  description: string;
  displayName?: string;
  location?: "Application" | "Adapter" | "Broker";
  variables: { incoming: Record<string, unknown>; outgoing: Record<string, unknown> };
  deprecated?: boolean;
}

export interface ActionContract {
  params: Props;
  /**
   * What the action answers: `returns(rule)` (shared/contracts/schema.ts). The rule is the 200
   * response schema in /openapi.json; the type inferred from it is read by the typed `call` helper
   * and the handler types.
   */
  result: Returns<unknown>;
  http?: HttpBinding;
  /**
   * Statuses this action answers beyond the ones every operation can (400, 401, 403, 404, 409,
   * 413, 415, 429, 503 and the gateway's 504: gateway/openapi.ts), each with its `type` and cause,
   * e.g. 502 when it calls an upstream system that fails. /openapi.json declares them on its routes;
   * a status given here for a common one replaces that one's description. Declare only what the
   * action really answers (test/gateway/openapi-statuses.test.ts drives each one).
   */
  errors?: Readonly<Partial<Record<ErrorStatus, string>>>;
  /** Who may call an action without `http` (with `http`, its `access` rules); required then. */
  access?: ActionAccess;
  /** Internal actions (not behind the gateway) are still callable over the bus by other services. */
  description?: string;
  task?: TaskMetadata;
  /**
   * Whether a call whose node vanished may run again on another replica (shared/retry-left-node.ts):
   * `repeatable` runs again as it is (a read, such as a POST search or an internal lookup, or a write
   * idempotent by its own params; GET routes are repeatable without saying so); `keyed` is a write
   * that answers a repeat carrying the same request id with its first result instead of doing it
   * again (shared/idempotency.ts: the gateway gives every call of such an operation an id).
   */
  idempotent?: "repeatable" | "keyed";
  /**
   * `false`: a `keyed` write whose handler finds its own repeat, so a key the gateway made (which
   * only the gateway's own retry repeats, once the node that ran the call has left) needs no record:
   * its one write is an insert under an id made from the request id (shared/keyed-inserts.ts), and
   * the handler answers what is already stored under it when that insert finds it taken. Saves the
   * record's claim and its `done`, two of a job start's store writes over the bus. A client's
   * `Idempotency-Key` keeps its record (its answer, its fingerprint check, its 24 h).
   */
  madeKeyRecord?: false;
}

export interface ServiceContract<
  N extends string = string,
  A extends Record<string, ActionContract> = Record<string, ActionContract>,
> {
  name: N;
  actions: A;
}

export function defineService<const N extends string, const A extends Record<string, ActionContract>>(
  name: N,
  actions: A,
): ServiceContract<N, A> {
  return { name, actions };
}
