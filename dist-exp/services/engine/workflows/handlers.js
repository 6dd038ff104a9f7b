"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.who = void 0;
exports.ensureWorkflowIndexes = ensureWorkflowIndexes;
exports.definition = definition;
exports.newWorkflowDoc = newWorkflowDoc;
exports.replaceDefinition = replaceDefinition;
exports.findWorkflow = findWorkflow;
exports.createWorkflow = createWorkflow;
exports.listWorkflows = listWorkflows;
exports.getWorkflow = getWorkflow;
exports.getWorkflowById = getWorkflowById;
exports.updateWorkflow = updateWorkflow;
exports.deleteWorkflow = deleteWorkflow;
const errors_1 = require("../../../shared/errors");
const types_1 = require("../../../shared/store/types");
const text_1 = require("../../../shared/text");
const validation_1 = require("./validation");
const paging_1 = require("../../../shared/paging");
const collections_1 = require("../collections");
/** The unique name index, created once per store before the first write relies on it. */
const indexed = new WeakMap();
function ensureWorkflowIndexes(store) {
    let done = indexed.get(store);
    if (!done) {
        done = store.collection(collections_1.WORKFLOWS).createIndex({ keys: { name: 1 }, unique: true });
        indexed.set(store, done);
        done.catch(() => indexed.delete(store));
    }
    return done;
}
/** The stored definition's fields, from a validated request (unknown top-level members are dropped). */
function definition(input) {
    const { tasks, transitions } = (0, validation_1.validateGraph)(input.tasks, input.transitions);
    return {
        name: input.name,
        description: input.description ?? "",
        type: "automation",
        tasks,
        transitions,
        ...(input.inputSchema !== undefined && { inputSchema: input.inputSchema }),
        ...(input.sla !== undefined && { sla: input.sla }),
        ...(input.preAutomationTime !== undefined && { preAutomationTime: input.preAutomationTime }),
        ...(input.decorators !== undefined && { decorators: input.decorators }),
        groups: [...new Set(input.groups ?? [])],
        tags: [...new Set(input.tags ?? [])],
    };
}
const OPTIONAL_FIELDS = ["inputSchema", "sla", "preAutomationTime", "decorators"];
/** A new workflow's document: the definition and who made it when. */
function newWorkflowDoc(fields, by, now = (0, text_1.nowIso)()) {
    return { ...fields, created: now, created_by: by, last_updated: now, last_updated_by: by };
}
/** The update that replaces a stored definition by `fields` (optional members it lacks are removed). */
function replaceDefinition(fields, by, now = (0, text_1.nowIso)()) {
    const unset = Object.fromEntries(OPTIONAL_FIELDS.filter((f) => !(f in fields)).map((f) => [f, ""]));
    return {
        $set: { ...fields, last_updated: now, last_updated_by: by },
        ...(Object.keys(unset).length > 0 && { $unset: unset }),
    };
}
const who = (ctx) => ctx.meta.caller?.username ?? "system";
exports.who = who;
async function findWorkflow(store, name) {
    const doc = await store.collection(collections_1.WORKFLOWS).findOne({ name });
    if (!doc)
        throw new errors_1.NotFoundError("Workflow", name);
    return doc;
}
async function createWorkflow(ctx) {
    const fields = definition(ctx.params.workflow);
    await ensureWorkflowIndexes(this.store);
    try {
        return (await this.store.collection(collections_1.WORKFLOWS).insertOne(newWorkflowDoc(fields, (0, exports.who)(ctx))));
    }
    catch (err) {
        if (err instanceof types_1.DuplicateKeyError)
            throw new errors_1.ConflictError(`Workflow '${fields.name}' already exists`);
        throw err;
    }
}
async function listWorkflows(ctx) {
    const skip = ctx.params.skip ?? 0;
    const limit = (0, paging_1.pageLimit)(ctx.params.limit);
    return (await this.store
        .collection(collections_1.WORKFLOWS)
        .find({}, { sort: { name: 1, _id: 1 }, skip, limit }));
}
async function getWorkflow(ctx) {
    return (await findWorkflow(this.store, ctx.params.name));
}
async function getWorkflowById(ctx) {
    const doc = await this.store.collection(collections_1.WORKFLOWS).findOne({ _id: ctx.params.id });
    if (!doc)
        throw new errors_1.NotFoundError("Workflow", ctx.params.id);
    return doc;
}
async function updateWorkflow(ctx) {
    const fields = definition(ctx.params.workflow);
    await ensureWorkflowIndexes(this.store);
    let updated;
    try {
        updated = await this.store
            .collection(collections_1.WORKFLOWS)
            .findOneAndUpdate({ name: ctx.params.name }, replaceDefinition(fields, (0, exports.who)(ctx)));
    }
    catch (err) {
        // Renaming onto another workflow's name.
        if (err instanceof types_1.DuplicateKeyError)
            throw new errors_1.ConflictError(`Workflow '${fields.name}' already exists`);
        throw err;
    }
    if (!updated)
        throw new errors_1.NotFoundError("Workflow", ctx.params.name);
    return updated;
}
async function deleteWorkflow(ctx) {
    const deleted = await this.store.collection(collections_1.WORKFLOWS).findOneAndDelete({ name: ctx.params.name });
    if (!deleted)
        throw new errors_1.NotFoundError("Workflow", ctx.params.name);
    return { status: "OK", message: `Workflow '${ctx.params.name}' deleted` };
}
//# sourceMappingURL=handlers.js.map