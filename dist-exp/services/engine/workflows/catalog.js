"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.ENGINE_APP = void 0;
exports.taskCatalog = taskCatalog;
exports.listTasks = listTasks;
const names_1 = require("../operations/names");
const operations_1 = require("../operations");
exports.ENGINE_APP = "WorkFlowEngine";
/**
 * Display names of the engine's operations; their summaries and variables come from the executor's
 * OPERATION_VARIABLES (operations/index.ts), so the catalog documents exactly what runs.
 * `Record<OperationTask, ...>` keeps both in step with ../operations/names.ts.
 */
const OPERATION_NAMES = {
    evaluation: "Evaluation",
    query: "Query",
    merge: "Merge",
    delay: "Delay",
    childJob: "Child job",
    forEach: "For each",
};
function operationEntry(name) {
    const { summary, incoming, outgoing } = operations_1.OPERATION_VARIABLES[name];
    return {
        name,
        app: exports.ENGINE_APP,
        type: "operation",
        location: "Broker",
        displayName: OPERATION_NAMES[name],
        summary,
        description: `${summary} (built into the workflow engine).`,
        // Copies: the caller may edit what it receives; the templates stay as they are.
        variables: structuredClone({ incoming, outgoing }),
        deprecated: false,
    };
}
const MANUAL_TASK = {
    name: "ManualTask",
    app: exports.ENGINE_APP,
    type: "manual",
    location: "Broker",
    displayName: "Manual task",
    summary: "Wait for a person",
    description: "Waits (status `waiting`) until someone finishes it with POST /workflow_engine/finishTask; the task_data sent " +
        "there become its outgoing variables and it finishes with success. Its name is a label of your choosing.",
    variables: { incoming: {}, outgoing: {} },
    deprecated: false,
};
/** The registry's view of one available action with task metadata, as a catalog entry. */
function automaticEntry(action) {
    const task = action.task;
    const name = action.rawName ?? action.name.slice(action.name.lastIndexOf(".") + 1);
    // `name` is `<service>.<rawName>` (the service part carries a version prefix when there is one).
    const app = action.name.slice(0, action.name.length - name.length - 1);
    return {
        name,
        app,
        type: "automatic",
        location: task.location ?? "Application",
        displayName: task.displayName ?? name,
        summary: task.summary ?? "",
        description: task.description ?? "",
        variables: structuredClone({
            incoming: task.variables?.incoming ?? {},
            outgoing: task.variables?.outgoing ?? {},
        }),
        deprecated: task.deprecated === true,
    };
}
function taskCatalog(broker) {
    const listed = broker.registry.getActionList({ onlyAvailable: true, skipInternal: true });
    const automatic = listed
        .map((item) => item.action)
        .filter((a) => !!a && typeof a.task === "object" && a.task !== null)
        .map(automaticEntry);
    const operations = names_1.OPERATION_TASKS.map(operationEntry);
    const byAppAndName = (a, b) => a.app.localeCompare(b.app) || a.name.localeCompare(b.name);
    return [...automatic.sort(byAppAndName), ...operations, structuredClone(MANUAL_TASK)];
}
function listTasks() {
    return taskCatalog(this.broker);
}
//# sourceMappingURL=catalog.js.map