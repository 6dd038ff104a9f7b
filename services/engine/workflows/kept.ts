/**
 * How a workflow's write reaches the workflows every replica keeps for job starts
 * (../workflows.repository.ts toRun): the replica that wrote broadcasts WORKFLOWS_CHANGED_EVENT
 * before the write answers, and each replica (that one too) forgets what it names.
 */
import type { Context } from "moleculer";
import { WORKFLOWS_CHANGED_EVENT, type WorkflowsChangedEvent } from "../../../shared/contracts/events";
import { announceChange } from "../../../shared/kept-reads";
import { typedMixin } from "../../../shared/service";
import type { EngineService } from "../types";

/**
 * Sent on the bus connection the write's answer takes after it, so it reaches every replica before
 * a caller's next start can. A failed broadcast (the bus is down) leaves the other replicas on what
 * they keep for WORKFLOW_TTL_MS at most.
 */
export function announceWorkflowsChanged(service: EngineService, names?: string[]): Promise<void> {
  const event: WorkflowsChangedEvent = names === undefined ? {} : { names };
  return announceChange(service, WORKFLOWS_CHANGED_EVENT, event);
}

/** The engine's listener: workflows changed on some replica (this one too), so the kept ones go. */
export const keptWorkflowsMixin = typedMixin<EngineService>({
  events: {
    [WORKFLOWS_CHANGED_EVENT](this: EngineService, ctx: Context<WorkflowsChangedEvent>) {
      const names = ctx.params?.names;
      const named = Array.isArray(names) && names.every((n) => typeof n === "string");
      // Anything else than a list of names: every kept workflow goes (forgetting costs one read).
      this.workflows?.forgetKept(named ? names : undefined);
    },
  },
});
