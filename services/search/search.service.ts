/**
 * search: cross-collection search (spec operation 12) and tags.
 *
 * The collections searched, their text fields, URLs and indexes come from one place,
 * shared/search-registry.ts; this service reads those collections directly from the shared store
 * (no copy, no cache: every replica answers from the store, so writes by any service or replica
 * show at once), each through one generic read repository (./searchable.repository.ts). Tags live
 * in `tags` (./tags.repository.ts); objects carry tag `_id`s in their `tags` array.
 */
import { search as contract } from "../../shared/contracts/search";
import { SEARCHABLES } from "../../shared/search-registry";
import { contractActions, storeMixin, typedService } from "../../shared/service";
import {
  attachTag,
  createTag,
  deleteTag,
  detachTag,
  ensureIndexes,
  find,
  listTags,
  type SearchService,
} from "./handlers";
import { SearchableCollection } from "./searchable.repository";
import { TagsRepository } from "./tags.repository";

export default typedService<SearchService>({
  name: contract.name,
  mixins: [storeMixin],

  actions: contractActions<typeof contract.name, typeof contract.actions, SearchService>(contract, {
    find,
    createTag,
    listTags,
    deleteTag,
    attachTag,
    detachTag,
  }),

  async started() {
    this.tags = new TagsRepository(this.store);
    this.searchables = SEARCHABLES.map((entry) => new SearchableCollection(this.store, entry));
    await ensureIndexes(this);
  },
});
