"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.errorRecord = errorRecord;
exports.pushError = pushError;
exports.methodOf = methodOf;
exports.failed = failed;
const version_1 = require("../../../shared/version");
const operations_1 = require("../operations");
const settings_1 = require("./settings");
function errorRecord(taskId, method, failure, now) {
    return {
        task: taskId,
        message: {
            code: failure.code,
            message: {
                apiVersion: version_1.API_VERSION,
                method,
                error: { code: failure.code, message: failure.message, errors: failure.errors },
            },
        },
        timestamp: now,
    };
}
function pushError(job, record) {
    job.error.push(record);
    if (job.error.length > settings_1.MAX_ERROR_RECORDS)
        job.error.splice(0, job.error.length - settings_1.MAX_ERROR_RECORDS);
}
/** What a task's runs are called in error records: the action for automatic tasks, else the task's name. */
function methodOf(task) {
    return task.type === "automatic" && task.app ? `${task.app}.${task.name}` : task.name;
}
/** An Outcome for a thrown error: finish state `error` with its code, message and details. */
function failed(err) {
    const e = err;
    const code = typeof e?.code === "number" && e.code >= 100 && e.code < 600 ? e.code : 500;
    const details = err instanceof operations_1.OperationError ? err.errors : e?.data;
    return {
        state: "error",
        outgoing: {},
        error: {
            code,
            message: typeof e?.message === "string" && e.message !== "" ? e.message : String(err),
            errors: Array.isArray(details) ? details : details == null ? [] : [details],
        },
    };
}
//# sourceMappingURL=outcomes.js.map