/**
 * The gateway's own operations (docs/platform-rules.md#probes-and-extras): `/health` (the process
 * answers), `/ready` (bus, store and the services behind the routes reachable), `/openapi.json`,
 * `/version`, and the `/events` stream.
 */
import { Errors } from "moleculer";
import type { Operation } from "../shared/contracts";
import type { gateway as contract } from "../shared/contracts/gateway";
import { isActionAvailable, type HandlerContext } from "../shared/service";
import { pingStores } from "../shared/runtime";
import { API_VERSION, PLATFORM_VERSION } from "../shared/version";
import type { GatewayService } from "./types";
import { callAsPlatform } from "../shared/authorization";

type Ctx<K extends keyof typeof contract.actions> = HandlerContext<typeof contract, K>;

export function health() {
  return { status: "ok" as const };
}

/** `ready` for the routes `ops`: each service behind them must have a node, and the store answer. */
export function readiness(ops: Operation[]) {
  return async function ready(this: GatewayService, ctx: Ctx<"ready">) {
    // Draining (or the broker stopping): not ready at once, so the load balancer stops sending.
    if (this.httpDrain?.draining || !this.broker.started)
      throw new Errors.MoleculerError("Not ready: shutting down", 503, "SERVICE_UNAVAILABLE", {
        checks: { gateway: "draining" },
      });
    const checks: Record<string, string> = {};
    if (this.broker.transit) checks.bus = this.broker.transit.connected ? "ok" : "disconnected";
    for (const service of new Set(ops.map((op) => op.service))) {
      if (service === "gateway") continue;
      const sample = ops.find((op) => op.service === service)!.action;
      checks[service] = isActionAvailable(this.broker, sample) ? "ok" : "unavailable";
    }
    // The stores this process's own services hold answer a ping; then one read through accounts
    // proves the store behind the routes answers (a gateway alone holds none: that read is its ping).
    const own = await pingStores(this.broker);
    if (own) checks.store = own;
    if (checks.accounts === "ok" && checks.store !== "unreachable") {
      try {
        await callAsPlatform(ctx, "accounts.listGroups", {}, { timeout: 2000 });
        checks.store = "ok";
      } catch {
        checks.store = "unreachable";
      }
    }
    const failing = Object.entries(checks).filter(([, v]) => v !== "ok");
    if (failing.length > 0) {
      throw new Errors.MoleculerError(
        `Not ready: ${failing.map(([k, v]) => `${k} ${v}`).join(", ")}`,
        503,
        "SERVICE_UNAVAILABLE",
        { checks },
      );
    }
    return { status: "ready" as const, checks };
  };
}

export function openapi(this: GatewayService) {
  return this.openApiDocument;
}

export function version() {
  return { platform: PLATFORM_VERSION, api: API_VERSION };
}

export function events(this: GatewayService, ctx: Ctx<"events">) {
  return this.streams.open(ctx.meta.caller!);
}
