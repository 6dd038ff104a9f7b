/**
 * Adapter lifecycle: PUT /adapters/:name/stop, /start, /restart (docs/orchestrator.md#lifecycle).
 * The state lives on the stored adapter. Every replica keeps what it read of it for proxy calls
 * (./orchestrator/target-cache.ts) and forgets it on the change's event, sent before the change
 * answers, so every replica obeys a stop at once. A restart bumps the adapter's `generation`: each
 * replica drops its connection pool for the old generation on its next call
 * (./orchestrator/connections.ts), with the settings read again. Start and restart ask for a health
 * check now.
 */
import { Errors } from "moleculer";
import type { adapters as contract } from "../../shared/contracts/adapters";
import { NotFoundError } from "../../shared/errors";
import type { HandlerContext } from "../../shared/service";
import { nowIso } from "../../shared/text";
import type { StoredAdapter } from "./documents";
import { announceChange, type AdaptersService } from "./handlers";
import { resetCircuit } from "./orchestrator/breaker";
import { dropPool } from "./orchestrator/connections";

type Ctx<K extends keyof typeof contract.actions> = HandlerContext<typeof contract, K>;

/** 503 naming the adapter when it was stopped. */
export function assertRunning(doc: Pick<StoredAdapter, "name" | "state">): void {
  if (doc.state === "STOPPED")
    throw new Errors.MoleculerError(`Adapter '${doc.name}' is stopped`, 503, "ADAPTER_STOPPED", {
      adapter: doc.name,
    });
}

async function setState(
  service: AdaptersService,
  name: string,
  state: "RUNNING" | "STOPPED",
  restart = false,
): Promise<StoredAdapter> {
  const doc = await service.adapters.setState(name, state, restart, nowIso());
  if (!doc) throw new NotFoundError("Adapter", name);
  await announceChange(service, name);
  return doc;
}

const answer = (doc: StoredAdapter, message: string) => ({
  status: "OK",
  message,
  data: { name: doc.name, state: doc.state ?? "RUNNING" },
});

export async function stop(this: AdaptersService, ctx: Ctx<"stop">) {
  const doc = await setState(this, ctx.params.name, "STOPPED");
  dropPool(doc.name);
  return answer(doc, `Adapter '${doc.name}' stopped`);
}

export async function start(this: AdaptersService, ctx: Ctx<"start">) {
  const doc = await setState(this, ctx.params.name, "RUNNING");
  resetCircuit(doc.name);
  await this.health.checkSoon(doc.name);
  return answer(doc, `Adapter '${doc.name}' started`);
}

export async function restart(this: AdaptersService, ctx: Ctx<"restart">) {
  const doc = await setState(this, ctx.params.name, "RUNNING", true);
  dropPool(doc.name);
  resetCircuit(doc.name);
  await this.health.checkSoon(doc.name);
  return answer(doc, `Adapter '${doc.name}' restarted`);
}
