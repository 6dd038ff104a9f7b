/**
 * The real product's list query on automations and triggers, as a store filter: a value and the
 * field it applies to (`equals=endpoint&equalsField=type`, `contains`, `startsWith`), `sort` and
 * `order`, `skip` and `limit`. Fields are a closed list per collection, mapped to where the value is
 * stored, so a query never reaches a member the answer does not show.
 */
import { invalidField } from "../../shared/errors";
import { pageLimit } from "../../shared/paging";
import type { Filter, Sort } from "../../shared/store/types";

export interface ListQuery {
  skip?: number;
  limit?: number;
  sort?: string;
  order?: 1 | -1;
  equals?: string;
  equalsField?: string;
  contains?: string;
  containsField?: string;
  startsWith?: string;
  startsWithField?: string;
}

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** One operator's condition: both members or neither (400 naming the missing one). */
function condition(
  query: ListQuery,
  op: "equals" | "contains" | "startsWith",
  stored: (field: string) => string,
): Filter {
  const value = query[op];
  const field = query[`${op}Field`];
  if (value === undefined && field === undefined) return {};
  if (value === undefined) throw invalidField(op, `'${op}Field' needs a value in '${op}'`, "required");
  if (field === undefined)
    throw invalidField(`${op}Field`, `'${op}' needs the field it applies to in '${op}Field'`, "required");
  const where = stored(field);
  if (op === "equals") return { [where]: value };
  const pattern = op === "contains" ? escapeRegex(value) : `^${escapeRegex(value)}`;
  return { [where]: { $regex: pattern, $options: "i" } };
}

/** The filter, sort and page of a list query; `stored` maps an answer's field to the stored one. */
export function readListQuery(query: ListQuery, stored: (field: string) => string = (f) => f) {
  const parts = (["equals", "contains", "startsWith"] as const)
    .map((op) => condition(query, op, stored))
    .filter((c) => Object.keys(c).length > 0);
  const filter: Filter = parts.length === 0 ? {} : parts.length === 1 ? parts[0] : { $and: parts };
  const sortField = stored(query.sort ?? "name");
  const sort: Sort = { [sortField]: query.order ?? 1, ...(sortField === "_id" ? {} : { _id: 1 }) };
  return { filter, sort, skip: query.skip ?? 0, limit: pageLimit(query.limit) };
}
