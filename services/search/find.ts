/**
 * Operation 12: one result group per searchable collection with matches, straight from the store.
 *
 * Why no in-memory index: other services (and other replicas of this one) write these collections
 * directly, and the store offers no change feed or version to tell a cache it is stale, so every
 * search asks the store. The cost is one scan per collection; docs/search.md has the figures.
 */
import { DEFAULT_PAGE_SIZE, type Tag } from "../../shared/contracts/search";
import type { SearchResultGroup } from "../../shared/contracts/resources";
import type { SearchDoc } from "../../shared/search-registry";
import type { Filter } from "../../shared/store/types";
import { escapeRegex } from "../../shared/text";
import type { SearchableCollection } from "./searchable.repository";
import type { TagsRepository } from "./tags.repository";

/**
 * How many matches of a collection are read (as `_id` and name) to be counted, sorted and paged
 * here. With the embedded store in this process, all of them: reading them is one scan, and cheaper
 * than the store counting (one scan) and sorting (another). Over the bus or from MongoDB, up to this
 * many (a bounded answer: a NATS message has a size limit); beyond it the store counts and pages.
 */
export const READ_ALL_UP_TO = 1000;

export interface FindInput {
  text: string;
  pageNumber?: number;
  nPerPage?: number;
}

interface Match {
  collection: SearchableCollection;
  count: number;
  page: SearchDoc[];
}

export async function findEverywhere(
  tags: TagsRepository,
  searchables: readonly SearchableCollection[],
  input: FindInput,
): Promise<SearchResultGroup[]> {
  const text = input.text.trim();
  const limit = input.nPerPage ?? DEFAULT_PAGE_SIZE;
  // Pages count from 1, as people count them; 0 is the first page too (clients that count from 0).
  const skip = Math.max(0, (input.pageNumber ?? 1) - 1) * limit;
  // The text is data: escaped, so `.*(` or `$where` match only themselves.
  const regex = text === "" ? undefined : { $regex: escapeRegex(text), $options: "i" };
  const tagIds = regex ? await tags.idsNamed(regex) : [];
  const matches = await Promise.all(
    searchables.map(async (collection) => ({
      collection,
      ...(await searchCollection(collection, collection.filterFor(regex, tagIds), skip, limit)),
    })),
  );
  const found = matches.filter((m) => m.count > 0);
  const named = await tags.byIds(found.flatMap((m) => m.page.flatMap(tagIdsOf)));
  return found.map((m) => toGroup(m, named));
}

async function searchCollection(
  collection: SearchableCollection,
  filter: Filter,
  skip: number,
  limit: number,
): Promise<{ count: number; page: SearchDoc[] }> {
  // No filter (empty text): the store counts without a scan, and reading everything would be a copy.
  const cap = collection.inProcess && Object.keys(filter).length > 0 ? Infinity : READ_ALL_UP_TO;
  // Unsorted with a limit, the scan stops at the first cap + 1 matches.
  const head = await collection.names(filter, cap === Infinity ? undefined : cap);
  if (head.length <= cap) {
    const ids = head
      .sort(byName(collection.entry.nameField))
      .slice(skip, skip + limit)
      .map((d) => d._id);
    if (ids.length === 0) return { count: head.length, page: [] };
    // One deleted meanwhile is simply left out.
    const docs = new Map((await collection.results(ids)).map((d) => [d._id, d]));
    return { count: head.length, page: ids.flatMap((id) => docs.get(id) ?? []) };
  }
  return collection.page(filter, skip, limit);
}

/**
 * The store's order for `{[nameField]: 1, _id: 1}`: a missing name first, then numbers, then strings
 * by code unit, then anything else; `_id` breaks ties, so pages never overlap or skip.
 */
function byName(nameField: string): (a: SearchDoc, b: SearchDoc) => number {
  const rank = (v: unknown) =>
    v === undefined || v === null ? 0 : typeof v === "number" ? 1 : typeof v === "string" ? 2 : 3;
  return (a, b) => {
    const x = a[nameField];
    const y = b[nameField];
    const byRank = rank(x) - rank(y);
    if (byRank !== 0) return byRank;
    if ((rank(x) === 1 || rank(x) === 2) && x !== y) return (x as string) < (y as string) ? -1 : 1;
    return a._id < b._id ? -1 : a._id > b._id ? 1 : 0;
  };
}

function tagIdsOf(doc: SearchDoc): string[] {
  return Array.isArray(doc.tags) ? doc.tags.filter((t): t is string => typeof t === "string") : [];
}

/** An object's tags in its own order, expanded; unknown ids left out. */
export function expandTags(ids: string[], tags: Map<string, Tag>): Tag[] {
  return [...new Set(ids)].flatMap((id) => {
    const tag = tags.get(id);
    return tag ? [tag] : [];
  });
}

/** A stored value as result text: strings as they are, numbers and booleans written out, else "". */
const asText = (value: unknown): string =>
  typeof value === "string"
    ? value
    : typeof value === "number" || typeof value === "boolean"
      ? String(value)
      : "";

function toGroup({ collection, count, page }: Match, tags: Map<string, Tag>): SearchResultGroup {
  const entry = collection.entry;
  return {
    label: entry.label,
    type: entry.type,
    results: page.map((doc) => {
      const name = asText(doc[entry.nameField]);
      return {
        _id: doc._id,
        name,
        description: asText(doc[entry.descriptionField]),
        url: entry.url({ _id: doc._id, name }),
        tags: expandTags(tagIdsOf(doc), tags),
      };
    }),
    count,
  };
}
