/**
 * Paging, the same for every list the platform answers: a page holds DEFAULT_PAGE_SIZE items unless
 * the caller asks for another size, and never more than MAX_PAGE_SIZE (a larger request is capped,
 * not refused, as the real product does).
 */
export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 1000;

/** The page size to use for a requested `limit`. */
export function pageLimit(requested: number | undefined): number {
  return Math.min(requested ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
}

/**
 * The project's one list shape, `{results, total, skip, limit}` (docs/compatibility.md#list-shapes):
 * every list the platform serves answers it unless the spec or the real product fixes another.
 */
export interface Page<T> {
  results: T[];
  total: number;
  skip: number;
  limit: number;
}

export function page<T>(results: T[], total: number, skip: number, limit: number): Page<T> {
  return { results, total, skip, limit };
}
