/**
 * scheduler: automations and their schedules (spec operation 10; docs/scheduler.md). Every replica
 * runs the same timer; which replica fires a slot is settled in the store (firing.ts), never in a
 * process, so any number of replicas fire each due time exactly once.
 *
 * Collections:
 *   automations      { _id, name (unique), workflow, variables, groups, nextRunAt, repeatInterval,
 *                      disabled, missedRuns, catchUpWindow, overlap, lastRunAt, lastJobId, lastError, ... }
 *   automation_runs  { _id: "<automation id>@<due time>", automationId, dueAt, state, jobId, ... }
 *   automation_triggers { _id, name (unique per automation), type, enabled, actionId, routeKey (unique),
 *                      scheduleKey (unique: one schedule trigger per automation), ... } (triggers.ts)
 */
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
  updateAutomation,
  updateSchedule,
  workflowUsers,
  type SchedulerService,
} from "./automations";
import { AUTOMATIONS, RUNS, TRIGGERS } from "./firing";
import { releaseGroup } from "./group-release";
import {
  omCreateAutomation,
  omDeleteAutomation,
  omGetAutomation,
  omListAutomations,
  omUpdateAutomation,
} from "./operations-manager";
import { runEndpointTrigger, runManualTrigger } from "./trigger-runs";
import { createTrigger, deleteTrigger, getTrigger, listTriggers, updateTrigger } from "./triggers";

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

  created() {
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
    this.timer = setInterval(() => {
      tick.call(this).catch((err: Error) => this.logger.warn(`scheduler pass failed: ${err.message}`));
    }, this.limits.tickMs);
    this.timer.unref();
  },

  async stopped() {
    clearInterval(this.timer);
    await this.ticking?.catch(() => undefined);
  },
});
