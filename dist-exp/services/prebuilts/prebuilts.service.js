"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * prebuilts: prebuilt repository configurations (spec operation 13, docs/platform-rules.md#supporting-operations): where
 * the platform fetches prebuilt artifacts from. `config.credentials.token` is stored encrypted and
 * answered only in that stored form.
 *
 * Collection `repository_configs`, `name` unique:
 *   { _id, name, description, tags, config: <Repository configuration, token sealed>,
 *     _meta: {created, updated, createdBy} }
 */
const prebuilts_1 = require("../../shared/contracts/prebuilts");
const named_documents_1 = require("../../shared/named-documents");
const runtime_1 = require("../../shared/runtime");
const secrets_1 = require("../../shared/secrets");
const service_1 = require("../../shared/service");
const handlers_1 = require("./handlers");
const COLLECTION = "repository_configs";
exports.default = (0, service_1.typedService)({
    name: prebuilts_1.prebuilts.name,
    mixins: [service_1.storeMixin],
    actions: (0, service_1.contractActions)(prebuilts_1.prebuilts, {
        createConfig: handlers_1.createConfig,
        listConfigs: handlers_1.listConfigs,
        getConfig: handlers_1.getConfig,
        deleteConfig: handlers_1.deleteConfig,
    }),
    methods: {
        configs() {
            return (0, named_documents_1.namedDocuments)(this.store, COLLECTION, "Repository configuration");
        },
    },
    created() {
        this.secretKey = (0, secrets_1.loadKey)((0, runtime_1.configOf)(this.broker));
    },
    async started() {
        await (0, named_documents_1.ensureNameIndex)(this.store, COLLECTION);
    },
});
//# sourceMappingURL=prebuilts.service.js.map