"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.exportWorkflow = exportWorkflow;
exports.importWorkflow = importWorkflow;
const errors_1 = require("../../../shared/errors");
const types_1 = require("../../../shared/store/types");
const collections_1 = require("../collections");
const handlers_1 = require("./handlers");
/** The definition without this platform's identity and history (`_id`, `created*`, `last_updated*`). */
async function exportWorkflow(ctx) {
    const name = ctx.params.name ?? ctx.params.options?.name;
    if (!name)
        throw (0, errors_1.invalidField)("name", "Name the workflow to export: {name} or {options: {name}}", "required");
    const stored = await (0, handlers_1.findWorkflow)(this.store, name);
    const { _id: _ignoredId, created: _created, created_by: _createdBy, last_updated: _updated, last_updated_by: _updatedBy, ...definition } = stored;
    return definition;
}
async function importWorkflow(ctx) {
    const { overwrite = false, ...input } = ctx.params;
    const fields = (0, handlers_1.definition)(input);
    await (0, handlers_1.ensureWorkflowIndexes)(this.store);
    const by = (0, handlers_1.who)(ctx);
    const workflows = this.store.collection(collections_1.WORKFLOWS);
    try {
        return (await workflows.insertOne((0, handlers_1.newWorkflowDoc)(fields, by)));
    }
    catch (err) {
        if (!(err instanceof types_1.DuplicateKeyError))
            throw err;
        if (!overwrite)
            throw new errors_1.ConflictError(`Workflow '${fields.name}' already exists; import with overwrite to replace it`);
    }
    const replaced = await workflows.findOneAndUpdate({ name: fields.name }, (0, handlers_1.replaceDefinition)(fields, by));
    // Deleted between the insert and the replace: the name is free again.
    if (!replaced)
        throw new errors_1.ConflictError(`Workflow '${fields.name}' changed meanwhile; import again`);
    return replaced;
}
//# sourceMappingURL=exchange.js.map