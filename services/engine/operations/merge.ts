/**
 * `merge`: builds one object from several.
 *
 * Incoming: `data_to_merge`, a list whose items are either `{key, value}` pairs (the value lands
 * under the key) or objects (their members are copied in, later ones winning).
 * Outgoing: `merged_object`.
 */
import { setOwn } from "../../../shared/objects";
import { OperationError, isPlainObject, type OperationResult } from "./types";

const isPair = (v: Record<string, unknown>) =>
  typeof v.key === "string" && "value" in v && Object.keys(v).every((k) => k === "key" || k === "value");

export function merge(incoming: Record<string, unknown>): OperationResult {
  const items = incoming.data_to_merge;
  if (!Array.isArray(items) || !items.every(isPlainObject))
    throw new OperationError("'data_to_merge' must be a list of objects or {key, value} pairs");
  const merged: Record<string, unknown> = {};
  for (const item of items) {
    // setOwn: a key from data (`__proto__` included) is a member, never the object's prototype.
    if (isPair(item)) setOwn(merged, item.key as string, item.value);
    else for (const [key, value] of Object.entries(item)) setOwn(merged, key, value);
  }
  return { state: "success", outgoing: { merged_object: merged } };
}
