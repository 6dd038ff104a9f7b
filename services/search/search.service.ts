/**
 * search: cross-collection search (spec operation 12) and tags.
 *
 * The collections searched, their text fields, URLs and indexes come from one place,
 * shared/search-registry.ts; this service reads those collections directly from the shared store
 * (no copy, no cache: every replica answers from the store, so writes by any service or replica
 * show at once). Tags live in `tags`; objects carry tag `_id`s in their `tags` array.
 */
import { search as contract } from "../../shared/contracts/search";
import { contractActions, storeMixin, typedService, type PlatformService } from "../../shared/service";
import { attachTag, createTag, deleteTag, detachTag, ensureIndexes, find, listTags } from "./handlers";

export default typedService<PlatformService>({
  name: contract.name,
  mixins: [storeMixin],

  actions: contractActions<typeof contract.name, typeof contract.actions, PlatformService>(contract, {
    find,
    createTag,
    listTags,
    deleteTag,
    attachTag,
    detachTag,
  }),

  async started() {
    await ensureIndexes(this);
  },
});
