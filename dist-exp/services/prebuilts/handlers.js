"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.createConfig = createConfig;
exports.listConfigs = listConfigs;
exports.getConfig = getConfig;
exports.deleteConfig = deleteConfig;
/**
 * The prebuilts actions (spec operation 13): repository configurations, named documents whose
 * `config.credentials.token` is sealed before it is stored and answered only in that form.
 */
const prebuilts_1 = require("../../shared/contracts/prebuilts");
const pointers_1 = require("../../shared/pointers");
const text_1 = require("../../shared/text");
async function createConfig(ctx) {
    const { name, config, description = "", tags = [] } = ctx.params;
    const now = (0, text_1.nowIso)();
    const stored = await this.configs().insert({
        name,
        description,
        tags: [...new Set(tags)],
        config: (0, pointers_1.sealPointers)(this.secretKey, config, prebuilts_1.REPOSITORY_CONFIG_ENCRYPTED_POINTERS),
        _meta: { created: now, updated: now, createdBy: ctx.meta.caller?.accountId ?? "system" },
    });
    return { status: "OK", message: `Repository configuration '${name}' created`, data: stored };
}
async function listConfigs() {
    return this.configs().list();
}
async function getConfig(ctx) {
    return this.configs().get(ctx.params.name);
}
async function deleteConfig(ctx) {
    await this.configs().remove(ctx.params.name);
    return { status: "OK", message: `Repository configuration '${ctx.params.name}' deleted` };
}
//# sourceMappingURL=handlers.js.map