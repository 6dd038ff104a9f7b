/**
 * The adapters actions (spec operation 19): adapter instances, named documents whose credentials
 * are sealed before they are stored (./credentials.ts) and answered only in that form.
 */
import type { adapters as contract } from "../../shared/contracts/adapters";
import type { HandlerContext, PlatformService } from "../../shared/service";
import { nowIso } from "../../shared/text";
import { announceChange as announceKeptChange } from "../../shared/kept-reads";
import {
  ADAPTER_CHANGED_EVENT,
  ADAPTER_DELETED_EVENT,
  type AdapterChangedEvent,
  type AdapterDeletedEvent,
} from "../../shared/contracts/events";
import { holdsCredentials, sealCredentials, sealUpdate } from "./credentials";
import { toAdapter, type StoredAdapter } from "./documents";
import type { AdaptersRepository, AdapterChange } from "./adapters.repository";
import type { AdapterHealthRepository } from "./health/adapter-health.repository";
import { healthEntries } from "./health/handlers";
import { healthPage } from "../../shared/health-query";
import { resetCircuit } from "./orchestrator/breaker";
import { dropPool } from "./orchestrator/connections";
import { headerValueProblem } from "./orchestrator/target";
import type { TargetCache } from "./orchestrator/target-cache";
import { ConflictError, invalidField, NotFoundError } from "../../shared/errors";

/** Request headers in an adapter's settings must be sendable: 400 naming the header otherwise. */
function checkHeaders(settings: Record<string, unknown> | undefined): void {
  const headers = settings?.headers;
  if (typeof headers !== "object" || headers === null) return;
  for (const [name, value] of Object.entries(headers)) {
    const problem = typeof value === "string" ? headerValueProblem(value) : undefined;
    const field = `properties.properties.properties.headers.${name}`;
    if (problem) throw invalidField(field, `${field} ${problem}`, "headerValue");
  }
}

/** `this` of the adapters service: what adapters.service.ts adds to a platform service. */
export type AdaptersService = PlatformService<{
  secretKey: Buffer;
  adapters: AdaptersRepository;
  health: AdapterHealthRepository;
  /** Orchestrator targets kept for proxy calls (./orchestrator/target-cache.ts). */
  targets: TargetCache;
  healthTimer?: NodeJS.Timeout;
  checking?: Promise<unknown>;
}>;

type Ctx<K extends keyof typeof contract.actions> = HandlerContext<typeof contract, K>;

/**
 * After a write to an adapter, before it answers: this replica forgets the target it keeps for the
 * adapter, and every other replica is told to (ADAPTER_CHANGED_EVENT). Sent before the answer, on
 * the same bus connection, so it reaches them before a caller's next call can. A failed broadcast
 * (the bus is down) leaves the other replicas on their kept target for TARGET_TTL_MS at most.
 */
export function announceChange(service: AdaptersService, name: string): Promise<void> {
  service.targets.forget(name);
  const event: AdapterChangedEvent = { name };
  return announceKeptChange(service, ADAPTER_CHANGED_EVENT, event, name);
}

export async function create(this: AdaptersService, ctx: Ctx<"create">) {
  // `isEncrypted` is not taken from the request: it says what the stored instance holds.
  const { name, type, properties, loggerProps, model } = ctx.params.properties;
  const settings = properties.properties;
  checkHeaders(settings);
  const now = nowIso();
  const doc: Omit<StoredAdapter, "_id"> = {
    name,
    type,
    description: ctx.params.description ?? "",
    tags: [...new Set(ctx.params.tags ?? [])],
    properties: {
      ...properties,
      ...(settings !== undefined && {
        properties: sealCredentials(this.secretKey, settings) as Record<string, unknown>,
      }),
    },
    ...(loggerProps !== undefined && { loggerProps }),
    isEncrypted: holdsCredentials(settings),
    ...(model !== undefined && { model }),
    _meta: { created: now, updated: now, createdBy: ctx.meta.caller?.accountId ?? "system" },
  };
  const stored = await this.adapters.insert(doc);
  await this.health.checkSoon(name);
  return { status: "OK", message: `Adapter '${name}' created`, data: toAdapter(stored) };
}

/** Compare-and-set attempts of an update before it answers 409 (another write kept winning). */
const UPDATE_ATTEMPTS = 3;

/**
 * PUT /adapters/:name/properties (and /adapters/:name): the real product's adapter update
 * (docs/orchestrator.md#updating-an-adapter). The body is create's, re-validated the same way; the
 * name cannot change (400). Credentials: ./credentials.ts `sealUpdate` (left out: kept; resent as
 * read: kept; null: removed). The write is a compare-and-set on what was read, so a concurrent
 * update, restart or stop is never overwritten with settings merged against an older read. The
 * running adapter picks the change up as on a restart, its state unchanged: `generation` is bumped
 * (every replica drops its pool for the old settings on its next call), the breaker is reset, and
 * its health is cleared and checked again on the next pass (a stopped adapter stays stopped).
 */
export async function update(this: AdaptersService, ctx: Ctx<"update">) {
  const { name } = ctx.params;
  const { name: bodyName, type, properties, loggerProps, model } = ctx.params.properties;
  if (bodyName !== name)
    throw invalidField(
      "properties.name",
      `The 'properties.name' field must be the adapter's name ('${name}'): an adapter cannot be renamed`,
      "adapterName",
    );
  const settings = properties.properties;
  checkHeaders(settings);
  for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
    const stored = await this.adapters.find(name);
    if (!stored) throw new NotFoundError("Adapter", name);
    const sealed =
      settings === undefined
        ? undefined
        : (sealUpdate(this.secretKey, settings, stored.properties.properties) as Record<string, unknown>);
    const now = nowIso();
    const change: AdapterChange = {
      set: {
        type,
        description: ctx.params.description ?? stored.description,
        tags: ctx.params.tags ? [...new Set(ctx.params.tags)] : stored.tags,
        properties: { ...properties, ...(sealed !== undefined && { properties: sealed }) },
        isEncrypted: holdsCredentials(sealed),
        "_meta.updated": now,
        "_meta.updatedBy": ctx.meta.caller?.accountId ?? "system",
      },
      unset: {},
    };
    if (loggerProps !== undefined) change.set.loggerProps = loggerProps;
    else change.unset.loggerProps = "";
    if (model !== undefined) change.set.model = model;
    else change.unset.model = "";
    const doc = await this.adapters.updateIfUnchanged(stored, change);
    if (!doc) continue;
    dropPool(name);
    resetCircuit(name);
    await announceChange(this, name);
    await this.health.reset(name);
    return { status: "OK", message: `Adapter '${name}' updated`, data: toAdapter(doc) };
  }
  throw new ConflictError(`Adapter '${name}' changed while it was being updated; send the update again`, {
    adapter: name,
  });
}

/**
 * GET /adapters in the real product's shape (docs/compatibility.md#adapters): `{results: [{metadata,
 * data}], total}`, `data` the adapter as a read answers it, `metadata` its health entry (id,
 * package_id, state, connection), with the health reads' query (`equals`/`equalsField`, paging, sort).
 */
export async function list(this: AdaptersService, ctx: Ctx<"list">) {
  const docs = await this.adapters.list();
  const byName = new Map(docs.map((d) => [d.name, d]));
  const page = healthPage(await healthEntries(this, docs), ctx.params);
  return {
    results: page.results.map((metadata) => ({ metadata, data: toAdapter(byName.get(metadata.id)!) })),
    total: page.total,
  };
}

/** The adapter with its lifecycle `state` and the last check's `connection` (docs/orchestrator.md#health). */
export async function get(this: AdaptersService, ctx: Ctx<"get">) {
  const doc = await this.adapters.get(ctx.params.name);
  const [health] = await healthEntries(this, [doc]);
  return { ...toAdapter(doc), state: health.state, connection: health.connection };
}

export async function remove(this: AdaptersService, ctx: Ctx<"delete">) {
  const doc = await this.adapters.remove(ctx.params.name);
  await this.health.remove(doc.name);
  dropPool(doc.name);
  resetCircuit(doc.name);
  await announceChange(this, doc.name);
  const event: AdapterDeletedEvent = { name: doc.name, id: doc._id };
  this.broker.broadcast(ADAPTER_DELETED_EVENT, event);
  return { status: "OK", message: `Adapter '${ctx.params.name}' deleted` };
}
