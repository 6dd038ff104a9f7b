"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
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
const scheduler_1 = require("../../shared/contracts/scheduler");
const runtime_1 = require("../../shared/runtime");
const service_1 = require("../../shared/service");
const automations_1 = require("./automations");
const firing_1 = require("./firing");
const operations_manager_1 = require("./operations-manager");
const trigger_runs_1 = require("./trigger-runs");
const triggers_1 = require("./triggers");
exports.default = (0, service_1.typedService)({
    name: scheduler_1.scheduler.name,
    mixins: [service_1.storeMixin],
    actions: (0, service_1.contractActions)(scheduler_1.scheduler, {
        createAutomation: automations_1.createAutomation,
        listAutomations: automations_1.listAutomations,
        getAutomation: automations_1.getAutomation,
        updateAutomation: automations_1.updateAutomation,
        updateSchedule: automations_1.updateSchedule,
        deleteAutomation: automations_1.deleteAutomation,
        listRuns: automations_1.listRuns,
        tick: automations_1.tick,
        omCreateAutomation: operations_manager_1.omCreateAutomation,
        omListAutomations: operations_manager_1.omListAutomations,
        omGetAutomation: operations_manager_1.omGetAutomation,
        omUpdateAutomation: operations_manager_1.omUpdateAutomation,
        omDeleteAutomation: operations_manager_1.omDeleteAutomation,
        createTrigger: triggers_1.createTrigger,
        listTriggers: triggers_1.listTriggers,
        getTrigger: triggers_1.getTrigger,
        updateTrigger: triggers_1.updateTrigger,
        deleteTrigger: triggers_1.deleteTrigger,
        runEndpointTrigger: trigger_runs_1.runEndpointTrigger,
        runManualTrigger: trigger_runs_1.runManualTrigger,
    }),
    created() {
        this.limits = { ...(0, runtime_1.configOf)(this.broker).scheduler };
        this.clock = Date.now;
    },
    async started() {
        await this.store.collection(firing_1.AUTOMATIONS).createIndex({ keys: { name: 1 }, unique: true });
        await this.store.collection(firing_1.AUTOMATIONS).createIndex({ keys: { disabled: 1, nextRunAt: 1 } });
        await this.store.collection(firing_1.RUNS).createIndex({ keys: { automationId: 1, dueAt: -1 } });
        await this.store.collection(firing_1.RUNS).createIndex({ keys: { state: 1, leaseUntil: 1 } });
        // The atomic uniqueness of triggers: a name per automation, a route, one schedule per automation.
        const triggers = this.store.collection(firing_1.TRIGGERS);
        await triggers.createIndex({ keys: { actionId: 1, name: 1 }, unique: true });
        await triggers.createIndex({ keys: { routeKey: 1 }, unique: true });
        await triggers.createIndex({ keys: { scheduleKey: 1 }, unique: true });
        this.timer = setInterval(() => {
            automations_1.tick.call(this).catch((err) => this.logger.warn(`scheduler pass failed: ${err.message}`));
        }, this.limits.tickMs);
        this.timer.unref();
    },
    async stopped() {
        clearInterval(this.timer);
        await this.ticking?.catch(() => undefined);
    },
});
//# sourceMappingURL=scheduler.service.js.map