"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * forms: the form catalog and the form builder (spec operations 3 and 7, docs/platform-rules.md#supporting-operations).
 *
 * Collection `forms`: one Form document (spec "Form document (form builder)") per form, `_id` a
 * UUID, `name` unique, plus `description` and `tags` for search. Groups live in accounts: they
 * are read through `accounts.listGroups`, never from the accounts' collection.
 */
const forms_1 = require("../../shared/contracts/forms");
const named_documents_1 = require("../../shared/named-documents");
const service_1 = require("../../shared/service");
const handlers_1 = require("./handlers");
const COLLECTION = "forms";
exports.default = (0, service_1.typedService)({
    name: forms_1.forms.name,
    mixins: [service_1.storeMixin],
    actions: (0, service_1.contractActions)(forms_1.forms, {
        list: handlers_1.list,
        preserveFormData: handlers_1.preserveFormData,
        create: handlers_1.create,
        get: handlers_1.get,
        delete: handlers_1.remove,
    }),
    methods: {
        forms() {
            return (0, named_documents_1.namedDocuments)(this.store, COLLECTION, "Form");
        },
    },
    async started() {
        await (0, named_documents_1.ensureNameIndex)(this.store, COLLECTION);
    },
});
//# sourceMappingURL=forms.service.js.map