/**
 * The real product's health reads (`/health/adapters`, `/health/applications`, `/applications`)
 * answer `{results, total}` and take `equals` with `equalsField`, `skip`, `limit`, `sort` and
 * `order`: one home for that rule (docs/compatibility.md#health-and-applications).
 */
import { pageLimit } from "./paging";

export interface HealthQuery<F extends string> {
  equals?: string;
  equalsField?: F;
  skip?: number;
  limit?: number;
  sort?: F;
  order?: 1 | -1;
}

export function healthPage<T extends { id: string }, F extends keyof T & string>(
  entries: T[],
  query: HealthQuery<F>,
): { results: T[]; total: number } {
  const { equals, equalsField = "id" as F, skip = 0, limit, sort = "id" as F, order = 1 } = query;
  const kept = equals === undefined ? [...entries] : entries.filter((e) => String(e[equalsField]) === equals);
  kept.sort((a, b) => order * String(a[sort]).localeCompare(String(b[sort])));
  return { results: kept.slice(skip, skip + pageLimit(limit)), total: kept.length };
}
