/**
 * `query`: reads one value out of an object by a path (`interfaces.0.name`, or with brackets
 * `interfaces[0].name`).
 *
 * Incoming: `obj` (the object or list), `query` (the path), `pass_on_null` (boolean, default false).
 * Outgoing: `return_data`. Nothing at the path: finish state `failure`, unless `pass_on_null`,
 * then `success` with `return_data` null.
 */
import { atPath } from "../run/variables";
import { OperationError, type OperationResult } from "./types";

/** `a[0].b` and `a.0.b` are the same path. */
export function normalizePath(query: string): string {
  return query.replace(/\[(\d+)\]/g, ".$1").replace(/^\./, "");
}

export function query(incoming: Record<string, unknown>): OperationResult {
  const path = incoming.query;
  if (typeof path !== "string") throw new OperationError("'query' must be a path such as 'a.b[0].c'");
  const value = path.trim() === "" ? incoming.obj : atPath(incoming.obj, normalizePath(path.trim()));
  if (value === undefined || value === null) {
    return { state: incoming.pass_on_null === true ? "success" : "failure", outgoing: { return_data: null } };
  }
  return { state: "success", outgoing: { return_data: value } };
}
