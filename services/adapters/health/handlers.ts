/**
 * GET /health/adapters and /health/adapters/:name, in the real product's `{results, total}` shape
 * with its `equals` / `equalsField`, `skip`, `limit`, `sort` query; checkHealth (internal) checks one
 * adapter now. docs/orchestrator.md#health.
 */
import type { adapters as contract } from "../../../shared/contracts/adapters";
import type { AdapterHealth } from "../../../shared/contracts/resources";
import { healthPage } from "../../../shared/health-query";
import type { HandlerContext } from "../../../shared/service";
import type { StoredAdapter } from "../documents";
import type { AdaptersService } from "../handlers";
import { isOrchestrator } from "../orchestrator/target";
import { healthOf, runCheck } from "./checks";

type Ctx<K extends keyof typeof contract.actions> = HandlerContext<typeof contract, K>;

/** Each adapter's health, joined with its stored check. */
export async function healthEntries(
  service: AdaptersService,
  docs: StoredAdapter[],
): Promise<AdapterHealth[]> {
  const checks = await service.health.ofAdapters(docs.map((d) => d.name));
  const byName = new Map(checks.map((c) => [c._id, c]));
  return docs.map((doc) => healthOf(doc, byName.get(doc.name)));
}

export async function healthList(this: AdaptersService, ctx: Ctx<"healthList">) {
  return healthPage(await healthEntries(this, await this.adapters.list()), ctx.params);
}

export async function healthGet(this: AdaptersService, ctx: Ctx<"healthGet">) {
  const [entry] = await healthEntries(this, [await this.adapters.get(ctx.params.name)]);
  return { results: [entry], total: 1 };
}

export async function checkHealth(this: AdaptersService, ctx: Ctx<"checkHealth">) {
  const doc = await this.adapters.get(ctx.params.name);
  if (doc.state !== "STOPPED" && isOrchestrator(doc)) await runCheck(this, doc);
  return (await healthEntries(this, [doc]))[0];
}
