"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.list = list;
exports.preserveFormData = preserveFormData;
exports.create = create;
exports.get = get;
exports.remove = remove;
/**
 * The forms actions (spec operations 3 and 7): forms are named documents; their groups are checked
 * through `accounts.listGroups`, never read from the accounts service's collection.
 */
const node_crypto_1 = require("node:crypto");
const contracts_1 = require("../../shared/contracts");
const errors_1 = require("../../shared/errors");
const text_1 = require("../../shared/text");
const documents_1 = require("./documents");
const preserve_1 = require("./preserve");
async function list(ctx) {
    const [forms, groups] = await Promise.all([this.forms().list(), (0, contracts_1.call)(ctx, "accounts.listGroups", {})]);
    const byId = new Map(groups.map((g) => [g._id, g]));
    return forms.map((form) => (0, documents_1.toListItem)(form, byId));
}
async function preserveFormData(ctx) {
    const form = await this.forms().get(ctx.params.form_name);
    return (0, preserve_1.restoreContainers)(form, ctx.params.data);
}
async function create(ctx) {
    const { name, children = [], elements = [], groups = [], description = "", tags = [] } = ctx.params;
    if ((0, preserve_1.depthOf)(children) > preserve_1.MAX_FORM_DEPTH || (0, preserve_1.depthOf)(elements) > preserve_1.MAX_FORM_DEPTH) {
        throw new errors_1.BadRequestError(`A form nests at most ${preserve_1.MAX_FORM_DEPTH} levels`, [
            { field: "children", message: `Nested deeper than ${preserve_1.MAX_FORM_DEPTH} levels`, type: "depth" },
        ]);
    }
    const resolved = (0, documents_1.resolveGroupRefs)(groups, groups.length > 0 ? await (0, contracts_1.call)(ctx, "accounts.listGroups", {}) : []);
    if (resolved.errors.length > 0)
        throw new errors_1.BadRequestError(`Unknown group(s): ${groups.join(", ")}`, resolved.errors);
    const by = ctx.meta.caller?.accountId ?? "system";
    const now = (0, text_1.nowIso)();
    const form = {
        _id: (0, node_crypto_1.randomUUID)(),
        name,
        description,
        tags: [...new Set(tags)],
        children,
        elements,
        groups: resolved.ids,
        created: now,
        created_by: by,
        last_updated: now,
        last_updated_by: by,
    };
    return this.forms().insert(form);
}
async function get(ctx) {
    return this.forms().get(ctx.params.name);
}
async function remove(ctx) {
    await this.forms().remove(ctx.params.name);
    return { status: "OK", message: `Form '${ctx.params.name}' deleted` };
}
//# sourceMappingURL=handlers.js.map