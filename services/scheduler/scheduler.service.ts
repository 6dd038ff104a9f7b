/**
 * scheduler: automations and their schedules (spec operation 10; docs/scheduler.md). Every replica
 * arms a timer for the next due time it knows of (timers.ts), re-armed when a schedule is written on
 * any replica (SCHEDULE_CHANGED_EVENT) and when a node leaves, plus a slow safety sweep; which
 * replica fires a slot is settled in the store (firing.ts), never in a process, so any number of
 * replicas fire each due time exactly once.
 *
 * Collections: automations (./automations.repository.ts), automation_runs
 * (./automation-runs.repository.ts), automation_triggers (./automation-triggers.repository.ts).
 */
import type { Context } from "moleculer";
import { SCHEDULE_CHANGED_EVENT, type ScheduleChangedEvent } from "../../shared/contracts/events";
import { scheduler as contract } from "../../shared/contracts/scheduler";
import { configOf } from "../../shared/runtime";
import { contractActions, storeMixin, typedService } from "../../shared/service";
import {
  createAutomation,
  deleteAutomation,
  getAutomation,
  listAutomations,
  listRuns,
  tick,
  sweepPass,
  updateAutomation,
  updateSchedule,
  workflowUsers,
  type SchedulerService,
} from "./automations";
import { AutomationRunsRepository } from "./automation-runs.repository";
import { AutomationTriggersRepository } from "./automation-triggers.repository";
import { AutomationsRepository } from "./automations.repository";
import { dueWindow, fireDue } from "./firing";
import { releaseGroup } from "./group-release";
import { DueTimer, owns } from "./timers";
import {
  omCreateAutomation,
  omDeleteAutomation,
  omGetAutomation,
  omListAutomations,
  omUpdateAutomation,
} from "./operations-manager";
import { runEndpointTrigger, runManualTrigger } from "./trigger-runs";
import { createTrigger, deleteTrigger, getTrigger, listTriggers, updateTrigger } from "./triggers";

/** The live scheduler replicas' node ids, sorted (every replica computes the same list). */
function liveReplicas(service: SchedulerService): string[] {
  const endpoints = service.broker.registry.getActionEndpoints("scheduler.tick")?.endpoints ?? [];
  return [...new Set(endpoints.filter((e) => e.node?.available !== false).map((e) => e.id))].sort();
}

export default typedService<SchedulerService>({
  name: contract.name,
  mixins: [storeMixin],

  actions: contractActions<typeof contract.name, typeof contract.actions, SchedulerService>(contract, {
    createAutomation,
    listAutomations,
    getAutomation,
    updateAutomation,
    updateSchedule,
    deleteAutomation,
    listRuns,
    tick,
    releaseGroup,
    workflowUsers,
    omCreateAutomation,
    omListAutomations,
    omGetAutomation,
    omUpdateAutomation,
    omDeleteAutomation,
    createTrigger,
    listTriggers,
    getTrigger,
    updateTrigger,
    deleteTrigger,
    runEndpointTrigger,
    runManualTrigger,
  }),

  events: {
    /** A schedule was written on some replica: fire it on time if it is due sooner than what is armed. */
    [SCHEDULE_CHANGED_EVENT](this: SchedulerService, ctx: Context<ScheduleChangedEvent>) {
      const { nextRunAt, disabled } = ctx.params ?? {};
      if (disabled === true || typeof nextRunAt !== "string") return;
      this.dueTimer?.hint(Date.parse(nextRunAt), String(ctx.params.automationId));
      this.dueTimer?.refresh();
    },
    /**
     * Failover: a replica that left owned a share of the automations, may have held claims (taken
     * over when their lease ends) and due times only it had advanced to: a sweep now fires what
     * is due, and the due times are read again, shared among the replicas left.
     */
    "$node.disconnected"(this: SchedulerService) {
      this.replicas = liveReplicas(this);
      this.dueTimer?.sweep();
    },
    /** A replica joined (or left): the automations are shared again. */
    "$services.changed"(this: SchedulerService) {
      const replicas = liveReplicas(this);
      if (replicas.join() === this.replicas.join()) return;
      this.replicas = replicas;
      void this.dueTimer?.reload();
    },
  },

  created() {
    this.replicas = [];
    this.limits = { ...configOf(this.broker).scheduler };
    this.clock = Date.now;
  },

  async started() {
    this.automations = new AutomationsRepository(this.store);
    this.runs = new AutomationRunsRepository(this.store);
    this.triggers = new AutomationTriggersRepository(this.store);
    for (const repository of [this.automations, this.runs, this.triggers]) await repository.ensureIndexes();
    if (this.limits.timers) {
      this.dueTimer = new DueTimer({
        clock: () => this.clock(),
        load: (after, limit) => dueWindow.call(this, after, limit),
        fire: async (ids, now, orphans) => void (await fireDue.call(this, ids, now, orphans)),
        sweep: () => sweepPass.call(this),
        warn: (message) => this.logger.warn(message),
        size: this.limits.batch,
        maxDelayMs: this.limits.tickMs,
        mine: (id) => owns(this.broker.nodeID, this.replicas, id),
        replicas: () => this.replicas.length,
      });
      await this.dueTimer.start();
    }
    // The safety sweep: a full pass for anything no timer fired (a lost event, a write straight
    // into the store), then the due times read again.
    this.timer = setInterval(() => {
      if (this.dueTimer) return this.dueTimer.sweep();
      tick.call(this).catch((err: Error) => this.logger.warn(`scheduler pass failed: ${err.message}`));
    }, this.limits.tickMs);
    this.timer.unref();
  },

  async stopped() {
    clearInterval(this.timer);
    await this.dueTimer?.stop();
    await this.ticking?.catch(() => undefined);
  },
});
