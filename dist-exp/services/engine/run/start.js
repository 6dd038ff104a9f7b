"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.loadWorkflow = loadWorkflow;
exports.prepareVariables = prepareVariables;
/**
 * What a job needs before it exists: its workflow (by name), a check that the definition can run,
 * its variables checked against the workflow's inputSchema and sealed where its decorators say,
 * and its groups. Shared by POST /operations-manager/jobs/start and childJob tasks.
 */
const objects_1 = require("../../../shared/objects");
const errors_1 = require("../../../shared/errors");
const pointers_1 = require("../../../shared/pointers");
const input_schema_1 = require("./input-schema");
const engine_documents_1 = require("../../../shared/contracts/engine-documents");
const collections_1 = require("../collections");
async function loadWorkflow(store, name) {
    const workflow = await store.collection(collections_1.WORKFLOWS).findOne({ name });
    if (!workflow)
        throw new errors_1.NotFoundError("Workflow", name);
    checkRunnable(workflow);
    return workflow;
}
/**
 * Workflows written through the API are validated as graphs when stored (workflows/validation.ts); this guards
 * what the executor itself relies on, for documents that reached the store another way.
 */
function checkRunnable(workflow) {
    const errors = [];
    const tasks = workflow.tasks ?? {};
    for (const marker of [engine_documents_1.START, engine_documents_1.END])
        if (!tasks[marker])
            errors.push({ field: "workflow", message: `Workflow has no '${marker}' task`, type: "workflow" });
    for (const id of Object.keys(tasks))
        if (!engine_documents_1.TASK_ID_PATTERN.test(id))
            errors.push({
                field: "workflow",
                message: `Workflow task id '${id}' is not a plain name`,
                type: "workflow",
            });
    if (errors.length > 0)
        throw new errors_1.BadRequestError(`Workflow '${workflow.name}' cannot run: ${errors[0].message}`, errors);
}
/** The job's variables: checked against the inputSchema (400 naming each field), then sealed per decorators. */
function prepareVariables(workflow, variables, key, field = "options.variables") {
    if (workflow.inputSchema) {
        const errors = (0, input_schema_1.checkInput)(workflow.inputSchema, variables, field);
        if (errors.length > 0)
            throw new errors_1.BadRequestError(`Job variables do not match workflow '${workflow.name}' inputSchema`, errors);
    }
    const pointers = (workflow.decorators ?? []).filter((d) => d?.type === "encryption").map((d) => d.pointer);
    if (pointers.length === 0)
        return (0, objects_1.copyPlain)(variables);
    try {
        return (0, pointers_1.sealPointers)(key(), variables, pointers);
    }
    catch (err) {
        throw (0, errors_1.invalidField)(field, `Workflow '${workflow.name}' has a bad decorator: ${err.message}`, "decorator");
    }
}
//# sourceMappingURL=start.js.map