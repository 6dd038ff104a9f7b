/**
 * forms: the form catalog and the form builder (spec operations 3 and 7, docs/platform-rules.md#supporting-operations).
 *
 * Collection `forms`: one Form document (spec "Form document (form builder)") per form, `_id` a
 * UUID, `name` unique, plus `description` and `tags` for search. Groups live in accounts: they
 * are read through `accounts.listGroups`, never from the accounts' collection.
 */
import { forms as contract } from "../../shared/contracts/forms";
import type { FormDocument } from "../../shared/contracts/resources";
import { ensureNameIndex, namedDocuments } from "../../shared/named-documents";
import { contractActions, storeMixin, typedService } from "../../shared/service";
import { create, get, list, preserveFormData, remove, type FormsService } from "./handlers";

const COLLECTION = "forms";

export default typedService<FormsService>({
  name: contract.name,
  mixins: [storeMixin],

  actions: contractActions<typeof contract.name, typeof contract.actions, FormsService>(contract, {
    list,
    preserveFormData,
    create,
    get,
    delete: remove,
  }),

  methods: {
    forms(this: FormsService) {
      return namedDocuments<FormDocument>(this.store, COLLECTION, "Form");
    },
  },

  async started() {
    await ensureNameIndex(this.store, COLLECTION);
  },
});
