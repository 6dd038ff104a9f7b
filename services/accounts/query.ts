/** Operation 4's queryOptions as a store query. Field names come from an allowlist in the contract. */
import type { Infer } from "../../shared/contracts/schema";
import type { accounts } from "../../shared/contracts/accounts";
import type { Filter, Sort } from "../../shared/store/types";
import { escapeRegex } from "../../shared/text";
import { pageLimit } from "../../shared/paging";

export type AccountQueryOptions = Infer<typeof accounts.actions.list.params>["queryOptions"];

/** The accounts list's query over another collection (groups): the same operators, its own default field. */
export interface FieldQueryOptions {
  contains?: string;
  containsField?: string;
  equals?: string;
  equalsField?: string;
  startsWith?: string;
  startsWithField?: string;
  skip?: number;
  limit?: number;
  sort?: string;
  order?: 1 | -1;
}

export function fieldQuery(
  options: FieldQueryOptions,
  defaultField: string,
): { filter: Filter; sort: Sort; skip: number; limit: number } {
  const clauses: Filter[] = [];
  if (options.contains !== undefined)
    clauses.push({
      [options.containsField ?? defaultField]: { $regex: escapeRegex(options.contains), $options: "i" },
    });
  if (options.startsWith !== undefined)
    clauses.push({
      [options.startsWithField ?? defaultField]: {
        $regex: `^${escapeRegex(options.startsWith)}`,
        $options: "i",
      },
    });
  if (options.equals !== undefined) clauses.push({ [options.equalsField ?? defaultField]: options.equals });
  const filter = clauses.length === 0 ? {} : clauses.length === 1 ? clauses[0] : { $and: clauses };
  return {
    filter,
    // _id breaks ties so pages never overlap or skip.
    sort: { [options.sort ?? defaultField]: options.order ?? 1, _id: 1 } as Sort,
    skip: options.skip ?? 0,
    limit: pageLimit(options.limit),
  };
}

export function accountQuery(options: AccountQueryOptions = {}): {
  filter: Filter;
  sort: Sort;
  skip: number;
  limit: number;
} {
  const { groupId, ...rest } = options ?? {};
  const query = fieldQuery(rest, "username");
  if (groupId === undefined) return query;
  const member = { "memberOf.groupId": groupId };
  const clauses =
    Object.keys(query.filter).length === 0
      ? []
      : "$and" in query.filter
        ? (query.filter.$and ?? [])
        : [query.filter];
  return { ...query, filter: clauses.length === 0 ? member : { $and: [...clauses, member] } };
}
