/**
 * scheduler: automations and their schedules (spec operation 10; docs/scheduler.md). Every replica
 * arms a timer for the next due time it knows of (timers.ts), re-armed when a schedule is written on
 * any replica (SCHEDULE_CHANGED_EVENT) and when a node leaves, plus a slow safety sweep; which
 * replica fires a slot is settled in the store (firing.ts), never in a process, so any number of
 * replicas fire each due time exactly once.
 *
 * Collections:
 *   automations      { _id, name (unique), workflow, variables, groups, nextRunAt, repeatInterval,
 *                      disabled, missedRuns, catchUpWindow, overlap, lastRunAt, lastJobId, lastError, ... }
 *   automation_runs  { _id: "<automation id>@<due time>", automationId, dueAt, state, jobId, ... }
 *   automation_triggers { _id, name (unique per automation), type, enabled, actionId, routeKey (unique),
 *                      scheduleKey (unique: one schedule trigger per automation), ... } (triggers.ts)
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
import { AUTOMATIONS, dueWindow, fireDue, RUNS, TRIGGERS } from "./firing";
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
    await this.store.collection(AUTOMATIONS).createIndex({ keys: { name: 1 }, unique: true });
    await this.store.collection(AUTOMATIONS).createIndex({ keys: { disabled: 1, nextRunAt: 1 } });
    await this.store.collection(RUNS).createIndex({ keys: { automationId: 1, dueAt: -1 } });
    await this.store.collection(RUNS).createIndex({ keys: { state: 1, leaseUntil: 1 } });
    // The atomic uniqueness of triggers: a name per automation, a route, one schedule per automation.
    const triggers = this.store.collection(TRIGGERS);
    await triggers.createIndex({ keys: { actionId: 1, name: 1 }, unique: true });
    await triggers.createIndex({ keys: { routeKey: 1 }, unique: true });
    await triggers.createIndex({ keys: { scheduleKey: 1 }, unique: true });
    // Lists and group-based access: triggers by name, automations a group may write or read.
    await triggers.createIndex({ keys: { name: 1, _id: 1 } });
    await this.store.collection(AUTOMATIONS).createIndex({ keys: { groups: 1 } });
    await this.store.collection(AUTOMATIONS).createIndex({ keys: { readGroups: 1 } });
    // The automations that run a workflow (by name or id): a workflow's delete asks.
    await this.store.collection(AUTOMATIONS).createIndex({ keys: { workflow: 1 } });
    await this.store.collection(AUTOMATIONS).createIndex({ keys: { componentId: 1 } });
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
