/**
 * Starting an automation's job from a trigger, as the real product's clients do: an endpoint
 * trigger by its route with the JSON body as the job's variables (itential-mcp's start_workflow),
 * a manual trigger by id with its formData. The job starts as the caller (engine.startJob), into
 * the automation's groups, which the caller must be in (shared/job-visibility.ts), and the answer is
 * the job in the `{message, data, metadata}` envelope.
 */
import type { Context } from "moleculer";
import { call } from "../../shared/contracts";
import { scheduler as contract } from "../../shared/contracts/scheduler";
import { itemEnvelope } from "../../shared/envelope";
import { ConflictError, invalidField, NotFoundError } from "../../shared/errors";
import type { HandlerContext, PlatformMeta } from "../../shared/service";
import type { SchedulerService } from "./automations";
import type { TriggerDoc } from "./automation-triggers.repository";
import { guardedTrigger, loadTrigger } from "./triggers";

type Ctx<K extends keyof typeof contract.actions> = HandlerContext<typeof contract, K>;

async function start(
  this: SchedulerService,
  ctx: Context,
  trigger: TriggerDoc,
  variables: Record<string, unknown>,
  hidden?: () => Error,
) {
  // Running is a write: only the automation's write groups may (./gbac.ts); hidden reads as absent.
  await guardedTrigger.call(this, trigger, (ctx.meta as PlatformMeta).caller, true, hidden);
  if (!trigger.enabled) throw new ConflictError(`Trigger '${trigger.name}' is disabled`);
  const automation = await this.automations.byId(trigger.actionId);
  if (!automation) throw new NotFoundError("Automation", trigger.actionId);
  if (!automation.workflow)
    throw invalidField(
      "componentId",
      `Automation '${automation.name}' has no workflow to run`,
      "noComponent",
    );
  const job = await call(ctx, "engine.startJob", {
    workflow: automation.workflow,
    options: {
      type: "automation",
      description: automation.description || `Automation '${automation.name}', trigger '${trigger.name}'`,
      variables,
      ...(automation.groups.length ? { groups: automation.groups } : {}),
    },
  });
  await this.triggers.markExecuted(trigger._id, this.clock());
  return itemEnvelope("Successfully started job", job);
}

export async function runEndpointTrigger(this: SchedulerService, ctx: Ctx<"runEndpointTrigger">) {
  const { routeName, input } = ctx.params;
  const trigger = await this.triggers.byRoute(routeName);
  const absent = () => new NotFoundError("Endpoint trigger", routeName);
  if (!trigger) throw absent();
  return start.call(this, ctx, trigger, input, absent);
}

export async function runManualTrigger(this: SchedulerService, ctx: Ctx<"runManualTrigger">) {
  const trigger = await loadTrigger.call(this, ctx.params.id);
  if (trigger.type !== "manual") throw new NotFoundError("Manual trigger", ctx.params.id);
  return start.call(this, ctx, trigger, ctx.params.formData ?? {});
}
