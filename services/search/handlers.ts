/**
 * The search actions (spec operation 12 and tags): each hands the store to the helper that answers
 * (./find.ts, ./tags.ts).
 */
import type { search as contract } from "../../shared/contracts/search";
import { SEARCHABLES } from "../../shared/search-registry";
import type { HandlerContext, PlatformService } from "../../shared/service";
import { findEverywhere } from "./find";
import * as tags from "./tags";

type Ctx<K extends keyof typeof contract.actions> = HandlerContext<typeof contract, K>;

export function find(this: PlatformService, ctx: Ctx<"find">) {
  return findEverywhere(this.store, ctx.params.data);
}

export function createTag(this: PlatformService, ctx: Ctx<"createTag">) {
  return tags.createTag(this.store, ctx.params, ctx.meta.caller?.accountId);
}

export function listTags(this: PlatformService, ctx: Ctx<"listTags">) {
  return tags.listTags(this.store, ctx.params.skip, ctx.params.limit);
}

export function deleteTag(this: PlatformService, ctx: Ctx<"deleteTag">) {
  return tags.deleteTag(this.store, ctx.params.id);
}

export function attachTag(this: PlatformService, ctx: Ctx<"attachTag">) {
  return tags.attachTag(this.store, ctx.params);
}

export function detachTag(this: PlatformService, ctx: Ctx<"detachTag">) {
  return tags.detachTag(this.store, ctx.params);
}

/**
 * The registry's indexes speed search up but are not needed for right answers, so one that
 * clashes with an index its owning service made differently is logged, not fatal.
 */
export async function ensureIndexes(service: PlatformService): Promise<void> {
  await tags.ensureTagIndexes(service.store);
  for (const entry of SEARCHABLES) {
    for (const index of entry.indexes) {
      try {
        await service.store.collection(entry.collection).createIndex(index);
      } catch (err) {
        service.logger.warn(
          `search index ${JSON.stringify(index.keys)} on ${entry.collection} not created: ${(err as Error).message}`,
        );
      }
    }
  }
}
