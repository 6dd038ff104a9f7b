/**
 * search: cross-collection search (spec operation 12) and tags.
 *
 * The collections searched, their text fields, URLs and indexes come from one place,
 * shared/search-registry.ts; this service reads those collections directly from the shared store
 * (no copy, no cache: every replica answers from the store, so writes by any service or replica
 * show at once). Tags live in `tags`; objects carry tag `_id`s in their `tags` array.
 */
import type { ServiceSchema } from "moleculer";
import { search as contract } from "../../shared/contracts/search";
import { SEARCHABLES } from "../../shared/search-registry";
import { contractActions, storeMixin, type ServiceThis } from "../../shared/service";
import { findEverywhere } from "./find";
import { attachTag, createTag, deleteTag, detachTag, ensureTagIndexes, listTags } from "./tags";

const SearchService: ServiceSchema = {
  name: contract.name,
  mixins: [storeMixin],

  actions: contractActions(contract, {
    find(ctx) {
      return findEverywhere(this.store, ctx.params.data);
    },
    createTag(ctx) {
      return createTag(this.store, ctx.params, ctx.meta.caller?.accountId);
    },
    listTags() {
      return listTags(this.store);
    },
    deleteTag(ctx) {
      return deleteTag(this.store, ctx.params.id);
    },
    attachTag(ctx) {
      return attachTag(this.store, ctx.params);
    },
    detachTag(ctx) {
      return detachTag(this.store, ctx.params);
    },
  }),

  methods: {
    /**
     * The registry's indexes speed search up but are not needed for right answers, so one that
     * clashes with an index its owning service made differently is logged, not fatal.
     */
    async ensureIndexes(this: ServiceThis): Promise<void> {
      await ensureTagIndexes(this.store);
      for (const entry of SEARCHABLES) {
        for (const index of entry.indexes) {
          try {
            await this.store.collection(entry.collection).createIndex(index);
          } catch (err) {
            this.logger.warn(
              `search index ${JSON.stringify(index.keys)} on ${entry.collection} not created: ${(err as Error).message}`,
            );
          }
        }
      }
    },
  },

  async started() {
    await this.ensureIndexes();
  },
};

export default SearchService;
