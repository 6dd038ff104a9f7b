/**
 * The search actions (spec operation 12 and tags): each hands the repositories to the helper that
 * answers (./find.ts, ./tags.ts).
 */
import type { search as contract } from "../../shared/contracts/search";
import type { HandlerContext, PlatformService } from "../../shared/service";
import { findEverywhere } from "./find";
import type { SearchableCollection } from "./searchable.repository";
import type { TagsRepository } from "./tags.repository";
import * as tags from "./tags";

export type SearchService = PlatformService<{
  /** The `tags` collection (./tags.repository.ts). */
  tags: TagsRepository;
  /** Each collection of the search registry, as search reads it, in the registry's order. */
  searchables: SearchableCollection[];
}>;

type Ctx<K extends keyof typeof contract.actions> = HandlerContext<typeof contract, K>;

/** The registered collection a tag operation names (the contract's enum allows registry names only). */
function searchableNamed(service: SearchService, name: string): SearchableCollection {
  return service.searchables.find((s) => s.collectionName === name)!;
}

export function find(this: SearchService, ctx: Ctx<"find">) {
  return findEverywhere(this.tags, this.searchables, ctx.params.data);
}

export function createTag(this: SearchService, ctx: Ctx<"createTag">) {
  return tags.createTag(this.tags, ctx.params, ctx.meta.caller?.accountId);
}

export function listTags(this: SearchService, ctx: Ctx<"listTags">) {
  return tags.listTags(this.tags, ctx.params.skip, ctx.params.limit);
}

export function deleteTag(this: SearchService, ctx: Ctx<"deleteTag">) {
  return tags.deleteTag(this.tags, this.searchables, ctx.params.id);
}

export function attachTag(this: SearchService, ctx: Ctx<"attachTag">) {
  return tags.attachTag(this.tags, searchableNamed(this, ctx.params.collection), ctx.params);
}

export function detachTag(this: SearchService, ctx: Ctx<"detachTag">) {
  return tags.detachTag(this.tags, searchableNamed(this, ctx.params.collection), ctx.params);
}

/**
 * The registry's indexes speed search up but are not needed for right answers, so one that
 * clashes with an index its owning service made differently is logged, not fatal.
 */
export async function ensureIndexes(service: SearchService): Promise<void> {
  await service.tags.ensureIndexes();
  for (const collection of service.searchables) {
    try {
      await collection.ensureIndexes();
    } catch (err) {
      service.logger.warn(
        `search indexes ${JSON.stringify(collection.indexes.map((i) => i.keys))} on ${collection.collectionName} not created: ${(err as Error).message}`,
      );
    }
  }
}
