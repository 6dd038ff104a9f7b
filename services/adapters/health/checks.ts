/**
 * Adapter health checks (docs/orchestrator.md#health). An orchestrator adapter is checked on create,
 * start and restart, then every `healthCheckInterval` ms: a GET of its `healthPath` through its
 * connection pool, within its timeout. Which replica runs a due check is settled in the store (a
 * compare-and-set on `nextCheckAt`), so N replicas check each adapter once per interval, and the
 * outcome is stored, so every replica answers the same. Adapter types with nothing to check say
 * so (`NOT_CHECKED` and a reason) instead of reporting green.
 *
 * Collection `adapter_health`: ./adapter-health.repository.ts.
 */
import type { AdapterHealth } from "../../../shared/contracts/resources";
import { gauge } from "../../../shared/observability/metrics";
import { nowIso } from "../../../shared/text";
import type { StoredAdapter } from "../documents";
import type { AdaptersService } from "../handlers";
import { recordSuccess } from "../orchestrator/breaker";
import { probe } from "../orchestrator/proxy";
import { isOrchestrator, targetOf } from "../orchestrator/target";
import type { HealthDoc } from "./adapter-health.repository";

/** Failed checks in a row after which an adapter's state is DEAD (it stays checked, and recovers). */
export const DEAD_AFTER = 3;

export const isInventory = (doc: StoredAdapter) => String(doc.properties.type).toLowerCase() === "inventory";

/** Why an adapter is not checked, or undefined when it is. */
function notChecked(doc: StoredAdapter): string | undefined {
  if (isOrchestrator(doc)) return undefined;
  if (isInventory(doc)) return "an inventory adapter has no connection: its devices are kept by the platform";
  return `the platform has no connection check for adapter type '${doc.properties.type}'`;
}

/** Checks one adapter now and stores the outcome. */
export async function runCheck(service: AdaptersService, doc: StoredAdapter): Promise<HealthDoc> {
  const started = Date.now();
  let error: string | null = null;
  let latencyMs: number | null = null;
  try {
    const target = targetOf(doc, service.secretKey);
    const reply = await probe(target, target.health.path);
    latencyMs = Date.now() - started;
    if (reply.status >= 500) error = `the orchestrator answered ${reply.status}`;
    else if (reply.status === 401 || reply.status === 403)
      error = `the orchestrator refused the adapter's credentials (${reply.status})`;
    else recordSuccess(doc.name);
  } catch (err: any) {
    error = String(err?.message ?? err);
  }
  const now = nowIso();
  return error
    ? service.health.recordFailure(doc.name, now, error, latencyMs)
    : service.health.recordSuccess(doc.name, now, latencyMs);
}

/** One pass of this replica's timer: every running orchestrator adapter whose check is due. */
export async function healthPass(service: AdaptersService): Promise<void> {
  const now = Date.now();
  const docs = await service.adapters.notStopped(1000);
  const due: StoredAdapter[] = [];
  for (const doc of docs) {
    if (!isOrchestrator(doc)) continue;
    let intervalMs: number;
    try {
      intervalMs = targetOf(doc, service.secretKey).health.intervalMs;
    } catch {
      intervalMs = 60_000; // no host: checked (and found OFFLINE) at the default pace
    }
    // The claim moves `nextCheckAt` one interval on, so a replica that dies mid-check costs one
    // interval, no more.
    if (await service.health.claimCheck(doc.name, now, now + intervalMs)) due.push(doc);
  }
  await Promise.all(due.map((doc) => runCheck(service, doc)));
  await reportUp(service, docs.filter(isOrchestrator));
}

/** Every replica reports every orchestrator adapter's last check, so any scrape sees them all. */
async function reportUp(service: AdaptersService, docs: StoredAdapter[]): Promise<void> {
  if (!service.broker.isMetricsEnabled() || docs.length === 0) return;
  const checks = await service.health.ofAdapters(docs.map((d) => d.name));
  for (const check of checks)
    if (check.connection)
      gauge(service.broker, "adapterUp", check.connection.state === "ONLINE" ? 1 : 0, { adapter: check._id });
}

/** The real product's health entry for an adapter and its stored check. */
export function healthOf(doc: StoredAdapter, check: HealthDoc | undefined): AdapterHealth {
  const type = String(doc.properties.type);
  const base = { id: doc.name, package_id: doc.model ?? `adapter-${type.toLowerCase()}`, type };
  if (doc.state === "STOPPED")
    return { ...base, state: "STOPPED", connection: { state: "OFFLINE", reason: "the adapter is stopped" } };
  const reason = notChecked(doc);
  if (reason) return { ...base, state: "RUNNING", connection: { state: "NOT_CHECKED", reason } };
  if (!check?.connection)
    return { ...base, state: "RUNNING", connection: { state: "NOT_CHECKED", reason: "not checked yet" } };
  const failures = check.failures ?? 0;
  return {
    ...base,
    state: failures >= DEAD_AFTER ? "DEAD" : "RUNNING",
    connection: { ...check.connection, failures },
  };
}
