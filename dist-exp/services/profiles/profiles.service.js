"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * profiles: platform profiles (spec operations 16 and 18, docs/platform-rules.md#supporting-operations) and which one is
 * active. The active profile's `authenticationProps` take effect: the gateway names the session
 * cookie after `cookieName`, accounts ends older sessions on login when `uniqueSession` is true.
 * Both read `profiles.active` and listen to `profiles.activated`, which this service broadcasts
 * whenever the active profile may have changed.
 *
 * Collection `profiles` (layout in ./documents.ts); which one is active: ./activation.ts;
 * the actions: ./handlers.ts.
 */
const profiles_1 = require("../../shared/contracts/profiles");
const named_documents_1 = require("../../shared/named-documents");
const runtime_1 = require("../../shared/runtime");
const secrets_1 = require("../../shared/secrets");
const service_1 = require("../../shared/service");
const handlers_1 = require("./handlers");
const COLLECTION = "profiles";
exports.default = (0, service_1.typedService)({
    name: profiles_1.profiles.name,
    mixins: [service_1.storeMixin],
    actions: (0, service_1.contractActions)(profiles_1.profiles, {
        schema: handlers_1.schema,
        create: handlers_1.create,
        list: handlers_1.list,
        get: handlers_1.get,
        activate: handlers_1.activate,
        delete: handlers_1.remove,
        active: handlers_1.active,
    }),
    methods: {
        /** Keyed by `_id` (the profile id); `name` mirrors it for search and is unique too. */
        profiles() {
            return (0, named_documents_1.namedDocuments)(this.store, COLLECTION, "Profile", "_id");
        },
    },
    created() {
        this.secretKey = (0, secrets_1.loadKey)((0, runtime_1.configOf)(this.broker));
    },
    async started() {
        await (0, named_documents_1.ensureNameIndex)(this.store, COLLECTION);
        await this.store.collection(COLLECTION).createIndex({ keys: { activation: -1 } });
    },
});
//# sourceMappingURL=profiles.service.js.map