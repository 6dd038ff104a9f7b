"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.OPERATION_TASKS = void 0;
exports.isOperationTask = isOperationTask;
/**
 * The engine's built-in `operation` tasks (docs/platform-rules.md#workflows-and-jobs). Workflow validation
 * (workflows/validation.ts) accepts exactly these names for tasks of type `operation`; the task catalog
 * (workflows/catalog.ts) documents each one's incoming and outgoing variables; the executor runs them.
 */
exports.OPERATION_TASKS = ["evaluation", "query", "merge", "delay", "childJob", "forEach"];
function isOperationTask(name) {
    return exports.OPERATION_TASKS.includes(name);
}
//# sourceMappingURL=names.js.map