"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.emitChanges = emitChanges;
const events_1 = require("../../../shared/contracts/events");
const metrics_1 = require("../../../shared/observability/metrics");
/** Broadcasts what changed between two versions of a job (`before` null: the job is new), once. */
function emitChanges(broker, before, job) {
    const tasks = [];
    for (const [taskId, task] of Object.entries(job.tasks)) {
        if (!task)
            continue;
        const old = before?.tasks[taskId];
        const changed = old
            ? old.status !== task.status || old.finish_state !== task.finish_state
            : task.status !== "incomplete";
        if (!changed)
            continue;
        tasks.push({
            taskId,
            taskStatus: task.status,
            ...(task.finish_state && { finish_state: task.finish_state }),
        });
        (0, metrics_1.count)(broker, "tasks", { status: task.status });
    }
    if (!before || before.status !== job.status)
        (0, metrics_1.count)(broker, "jobs", { status: job.status });
    const jobChanged = !before || before.status !== job.status || before.metrics.progress !== job.metrics.progress;
    if (!jobChanged && tasks.length === 0)
        return;
    const event = {
        jobId: job._id,
        name: job.name,
        workflow: job.workflow.name,
        status: job.status,
        groups: job.groups,
        at: job.last_updated,
        jobChanged,
        tasks,
    };
    broker.broadcast(events_1.ENGINE_EVENTS.changes, event);
}
//# sourceMappingURL=events.js.map