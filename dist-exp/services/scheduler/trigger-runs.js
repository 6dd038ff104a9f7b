"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.runEndpointTrigger = runEndpointTrigger;
exports.runManualTrigger = runManualTrigger;
const contracts_1 = require("../../shared/contracts");
const envelope_1 = require("../../shared/envelope");
const errors_1 = require("../../shared/errors");
const firing_1 = require("./firing");
const triggers_1 = require("./triggers");
async function start(ctx, trigger, variables) {
    if (!trigger.enabled)
        throw new errors_1.ConflictError(`Trigger '${trigger.name}' is disabled`);
    const automation = await this.store.collection(firing_1.AUTOMATIONS).findOne({ _id: trigger.actionId });
    if (!automation)
        throw new errors_1.NotFoundError("Automation", trigger.actionId);
    if (!automation.workflow)
        throw (0, errors_1.invalidField)("componentId", `Automation '${automation.name}' has no workflow to run`, "noComponent");
    const job = await (0, contracts_1.call)(ctx, "engine.startJob", {
        workflow: automation.workflow,
        options: {
            type: "automation",
            description: automation.description || `Automation '${automation.name}', trigger '${trigger.name}'`,
            variables,
            ...(automation.groups.length ? { groups: automation.groups } : {}),
        },
    });
    await this.store
        .collection(firing_1.TRIGGERS)
        .updateOne({ _id: trigger._id }, { $set: { lastExecuted: this.clock() } });
    return (0, envelope_1.itemEnvelope)("Successfully started job", job);
}
async function runEndpointTrigger(ctx) {
    const { routeName, input } = ctx.params;
    const trigger = await this.store
        .collection(firing_1.TRIGGERS)
        .findOne({ routeKey: `route:${routeName}` });
    if (!trigger)
        throw new errors_1.NotFoundError("Endpoint trigger", routeName);
    return start.call(this, ctx, trigger, input);
}
async function runManualTrigger(ctx) {
    const trigger = await triggers_1.loadTrigger.call(this, ctx.params.id);
    if (trigger.type !== "manual")
        throw new errors_1.NotFoundError("Manual trigger", ctx.params.id);
    return start.call(this, ctx, trigger, ctx.params.formData ?? {});
}
//# sourceMappingURL=trigger-runs.js.map