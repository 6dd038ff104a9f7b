/**
 * forms: the form catalog and the form builder (spec operations 3 and 7, docs/platform-rules.md#supporting-operations).
 *
 * Its collection: ./forms.repository.ts. Groups live in accounts: they are read through
 * `accounts.listGroups`, never from the accounts' collection.
 */
import { forms as contract } from "../../shared/contracts/forms";
import { contractActions, storeMixin, typedService } from "../../shared/service";
import { FormsRepository } from "./forms.repository";
import { create, get, list, preserveFormData, remove, type FormsService } from "./handlers";

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

  async started() {
    this.forms = new FormsRepository(this.store);
    await this.forms.ensureIndexes();
  },
});
