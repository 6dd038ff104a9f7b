/** Operation 4's queryOptions as a store query. Field names come from an allowlist in the contract. */
import type { Infer } from "../../shared/contracts/schema";
import type { accounts } from "../../shared/contracts/accounts";
import type { Filter, Sort } from "../../shared/store/types";
import { escapeRegex } from "../../shared/text";
import { pageLimit } from "../../shared/paging";

export type AccountQueryOptions = Infer<typeof accounts.actions.list.params>["queryOptions"];

export function accountQuery(options: AccountQueryOptions = {}): {
  filter: Filter;
  sort: Sort;
  skip: number;
  limit: number;
} {
  const clauses: Filter[] = [];
  if (options.contains !== undefined) {
    clauses.push({
      [options.containsField ?? "username"]: { $regex: escapeRegex(options.contains), $options: "i" },
    });
  }
  if (options.startsWith !== undefined) {
    clauses.push({
      [options.startsWithField ?? "username"]: {
        $regex: `^${escapeRegex(options.startsWith)}`,
        $options: "i",
      },
    });
  }
  if (options.equals !== undefined) clauses.push({ [options.equalsField ?? "username"]: options.equals });
  if (options.groupId !== undefined) clauses.push({ "memberOf.groupId": options.groupId });
  const filter = clauses.length === 0 ? {} : clauses.length === 1 ? clauses[0] : { $and: clauses };
  const sortField = options.sort ?? "username";
  return {
    filter,
    // _id breaks ties so pages never overlap or skip.
    sort: { [sortField]: options.order ?? 1, _id: 1 } as Sort,
    skip: options.skip ?? 0,
    limit: pageLimit(options.limit),
  };
}
