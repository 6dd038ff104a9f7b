"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.executorMixin = void 0;
exports.startJob = startJob;
exports.startScheduledJob = startScheduledJob;
exports.finishTask = finishTask;
exports.cancelJob = cancelJob;
/**
 * Engine: running jobs (docs/platform-rules.md#workflows-and-jobs; docs/engine.md). Starting, finishing a manual
 * task and canceling are each one write on the job document, through the replica's Runner
 * (run/runner.ts), which then runs whatever that write made runnable. Every replica also sweeps
 * for work no one is doing (a dead replica's tasks, due wake-ups), so jobs survive any replica.
 */
const objects_1 = require("../../../shared/objects");
const errors_1 = require("../../../shared/errors");
const runtime_1 = require("../../../shared/runtime");
const secrets_1 = require("../../../shared/secrets");
const service_1 = require("../../../shared/service");
const job_visibility_1 = require("../../../shared/job-visibility");
const collections_1 = require("../collections");
const runner_1 = require("./runner");
const settings_1 = require("./settings");
const start_1 = require("./start");
const groups_1 = require("../../../shared/groups");
const new_job_1 = require("./new-job");
const transitions_1 = require("./transitions");
const control_1 = require("./control");
const types_1 = require("../../../shared/store/types");
/** Responses get their own copy: the replica's remembered job must not change under it. */
const answer = (job) => (0, objects_1.copyPlain)(job);
const runAs = (caller) => caller
    ? {
        accountId: caller.accountId,
        username: caller.username,
        roles: caller.roles,
        groupIds: caller.groupIds,
    }
    : null;
async function startJob(ctx) {
    const { workflow: name, options } = ctx.params;
    const caller = ctx.meta.caller;
    const workflow = await (0, start_1.loadWorkflow)(this.store, name);
    const variables = (0, start_1.prepareVariables)(workflow, options.variables ?? {}, () => this.secretKey());
    let groups = [...new Set(options.groups ?? workflow.groups ?? [])];
    if (options.groups) {
        (0, job_visibility_1.assertOwnGroups)(caller, groups, "options.groups");
        await (0, groups_1.checkGroupsExist)(ctx, groups, "options.groups");
    }
    // A job nobody but admins could see is of no use to the person who started it.
    if (groups.length === 0 && caller)
        groups = [...caller.groupIds];
    const job = (0, new_job_1.buildJob)(workflow, { description: options.description, type: options.type, variables, groups, caller: runAs(caller) }, Date.now());
    const runner = this.runner;
    return answer(await runner.start(job));
}
async function startScheduledJob(ctx) {
    const { workflow: name, jobId, automation, options } = ctx.params;
    const runner = this.runner;
    const existing = await this.store.collection(collections_1.JOBS).findOne({ _id: jobId });
    if (existing)
        return answer(existing);
    const workflow = await (0, start_1.loadWorkflow)(this.store, name);
    const variables = (0, start_1.prepareVariables)(workflow, options.variables ?? {}, () => this.secretKey());
    const groups = [...new Set(options.groups ?? workflow.groups ?? [])];
    const job = (0, new_job_1.buildJob)(workflow, { id: jobId, description: options.description, type: "automation", variables, groups }, Date.now());
    job.automation = automation;
    try {
        return answer(await runner.start(job));
    }
    catch (err) {
        // Two replicas resuming one slot: the one that lost the insert answers the winner's job.
        if (!(err instanceof types_1.DuplicateKeyError))
            throw err;
        const winner = await this.store.collection(collections_1.JOBS).findOne({ _id: jobId });
        if (!winner)
            throw err;
        return answer(winner);
    }
}
async function finishTask(ctx) {
    const { job_id: jobId, task_id: taskId, task_data: data } = ctx.params;
    const caller = ctx.meta.caller;
    const runner = this.runner;
    const written = await runner.advance(jobId, (draft, step) => {
        if (!(0, job_visibility_1.maySeeJob)(caller, draft.groups))
            throw new errors_1.NotFoundError("Job", jobId);
        const task = draft.tasks[taskId];
        if (!task)
            throw new errors_1.NotFoundError("Task", taskId);
        if (!(0, transitions_1.isWaitingManual)(draft, taskId)) {
            const what = task.type === "manual" ? `is ${task.status}` : `is not a manual task (type ${task.type})`;
            throw new errors_1.ConflictError(`Task '${taskId}' of job ${jobId} ${what}; only a waiting manual task can be finished`, {
                taskStatus: task.status,
                jobStatus: draft.status,
            });
        }
        (0, transitions_1.finishManual)(draft, taskId, data, step);
    }, { fresh: true });
    if (!written)
        throw new errors_1.NotFoundError("Job", jobId);
    return answer(written.job);
}
async function cancelJob(ctx) {
    return answer(await (0, control_1.changeJob)(this, ctx.meta.caller, ctx.params.id, control_1.CANCEL));
}
/** Lifecycle hooks and event handlers the executor adds to the engine service. */
exports.executorMixin = (0, service_1.typedMixin)({
    events: {
        /** Another replica (or this one) asks for a look at a job now. */
        [runner_1.DISPATCH_EVENT](ctx) {
            if (typeof ctx.params?.jobId === "string")
                void this.runner?.process(ctx.params.jobId);
        },
    },
    methods: {
        secretKey() {
            return (this.cachedKey ??= (0, secrets_1.loadKey)((0, runtime_1.configOf)(this.broker)));
        },
    },
    async started() {
        // The sweeper's question: running jobs whose sweepAt has passed.
        await this.store
            .collection(collections_1.JOBS)
            .createIndex({ keys: { status: 1, sweepAt: 1 } })
            .catch((err) => this.logger.warn(`engine: jobs index not created: ${err.message}`));
        this.runner = new runner_1.Runner({
            broker: this.broker,
            logger: this.logger,
            store: this.store,
            secretKey: () => this.secretKey(),
            settings: (0, settings_1.runnerSettings)((0, runtime_1.configOf)(this.broker).engine),
        });
        this.runner.startSweeper();
    },
    async stopped() {
        await this.runner?.stop();
    },
});
//# sourceMappingURL=handlers.js.map