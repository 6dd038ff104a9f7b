"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.newJobId = void 0;
exports.buildJob = buildJob;
/** A new job: the document a workflow's run starts from, before its first step. */
const objects_1 = require("../../../shared/objects");
const mongodb_1 = require("mongodb");
const version_1 = require("../../../shared/version");
const iso = (ms) => new Date(ms).toISOString();
/** A fresh ObjectId text (job ids are chosen here so a child job's id can be written before it exists). */
const newJobId = () => new mongodb_1.ObjectId().toHexString();
exports.newJobId = newJobId;
/** A new job document of `workflow`, before its first step. */
function buildJob(workflow, input, now) {
    const tasks = {};
    for (const [id, def] of Object.entries(workflow.tasks ?? {})) {
        if (!def) {
            tasks[id] = null;
            continue;
        }
        const task = { ...(0, objects_1.copyPlain)(def), status: "incomplete" };
        if (def.retrySettings) {
            task.retrySettings = {
                autoRetry: def.retrySettings.autoRetry ?? false,
                limit: def.retrySettings.limit ?? 0,
                delay: def.retrySettings.delay ?? 0,
                state: def.retrySettings.state?.length ? [...def.retrySettings.state] : ["error"],
                count: 0,
            };
        }
        tasks[id] = task;
    }
    // The account's _id, as the real product's jobs carry it (docs/compatibility.md#jobs); a job the
    // platform starts itself (a schedule) is the platform's: "system".
    const user = input.caller?.accountId ?? "system";
    const at = iso(now);
    return {
        _id: input.id ?? (0, exports.newJobId)(),
        type: input.type ?? "automation",
        name: workflow.name,
        description: input.description ?? workflow.description ?? "",
        workflow: { _id: workflow._id, name: workflow.name },
        status: "running",
        tasks,
        transitions: (0, objects_1.copyPlain)(workflow.transitions ?? {}),
        variables: input.variables,
        error: [],
        errorHandler: null,
        decorators: (0, objects_1.copyPlain)(workflow.decorators ?? []),
        groups: input.groups,
        watchers: input.caller ? [input.caller.accountId] : [],
        ancestors: input.ancestors ?? [],
        ...(workflow.sla !== undefined && { sla: workflow.sla }),
        ...(workflow.preAutomationTime !== undefined && { preAutomationTime: workflow.preAutomationTime }),
        metrics: { start_time: now, end_time: null, progress: 0, user, owner: user, manual_time: 0 },
        created: at,
        created_by: user,
        last_updated: at,
        last_updated_by: user,
        lastUpdatedVersion: version_1.API_VERSION,
        canvasVersion: 3,
        font_size: 12,
        version: 0,
        sweepAt: null,
        waitingTasks: [],
        parent: input.parent ?? null,
        runAs: input.caller ?? null,
    };
}
//# sourceMappingURL=new-job.js.map