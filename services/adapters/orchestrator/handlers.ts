/**
 * restAction (operation 1) and restQuery (operation 2): answer shapes in docs/orchestrator.md.
 * A stopped adapter answers neither (503 naming it).
 */
import type { adapters as contract } from "../../../shared/contracts/adapters";
import { observe } from "../../../shared/observability/metrics";
import type { HandlerContext } from "../../../shared/service";
import type { AdaptersService } from "../handlers";
import { assertRunning } from "../lifecycle";
import { send } from "./proxy";
import { targetOf, type Target } from "./target";

type Ctx<K extends keyof typeof contract.actions> = HandlerContext<typeof contract, K>;

/**
 * The target of a running orchestrator adapter: 404 unknown, 400 another type, 503 stopped. Kept
 * per process between calls (service.targets: ./target-cache.ts), forgotten on every change.
 */
export function runningTarget(service: AdaptersService, name: string): Target | Promise<Target> {
  // Kept: answered without a promise (every call of a busy adapter).
  const hit = service.targets.peek(name);
  if (hit !== undefined) {
    assertRunning({ name, state: hit.state });
    return hit.target;
  }
  return loadRunningTarget(service, name);
}

async function loadRunningTarget(service: AdaptersService, name: string): Promise<Target> {
  const kept = await service.targets.get(name, async () => {
    const doc = await service.adapters.get(name);
    const target = targetOf(doc, service.secretKey);
    target.onUpstream = (outcome, ms) =>
      observe(service.broker, "upstreamTime", ms, { adapter: name, outcome });
    // Shared by every call until forgotten: frozen, so no call can change it for the others.
    for (const part of [target.headers, target.tls, target.breaker, target.health, target.devices])
      Object.freeze(part);
    return { target: Object.freeze(target), state: doc.state };
  });
  assertRunning({ name, state: kept.state });
  return kept.target;
}

/** `[{result: "<upstream status>"}]`, plus `body` when the orchestrator answered one. */
export async function restAction(this: AdaptersService, ctx: Ctx<"restAction">) {
  const target = await runningTarget(this, ctx.params.adapterId);
  const { path, accept, method, contentType } = ctx.params.params;
  const reply = await send(target, {
    method: (method ?? "POST").toUpperCase(),
    path,
    accept,
    contentType,
    body: ctx.params.body,
  });
  return [{ result: String(reply.status), ...(reply.body !== undefined && { body: reply.body }) }];
}

/** The upstream JSON body as it came (`{}` when empty); the text for XML and other media types. */
export async function restQuery(this: AdaptersService, ctx: Ctx<"restQuery">) {
  const target = await runningTarget(this, ctx.params.adapterId);
  const { path, accept } = ctx.params.params;
  const reply = await send(target, { method: "GET", path, accept });
  return (reply.body ?? {}) as Record<string, unknown> | string;
}
