/**
 * preserveFormData (spec operation 7): form data that went through a query string or a UI
 * serializer comes back with its containers changed. The stored form is the reference for what
 * each container was; this walks the data and the reference side by side and turns every changed
 * container back. docs/catalog.md states the rules; they are, exactly:
 *
 *  reference is an array, data is an object whose keys are all array indices ("0", "1", "10";
 *    no sign, no leading zero) -> an array of its values in ascending numeric index order (gaps
 *    closed). `{}` is the empty array.
 *  reference is an object, data is an array whose items are all `[key, value]` pairs with string
 *    keys, each key once -> the object of those entries (`Object.fromEntries`). `[]` is `{}`.
 *  anything else is left as it is: only these mutations are known, and a value the reference does
 *    not describe (a member it lacks, an array item past its length, a scalar) has nothing to be
 *    restored to.
 * Restoring goes top down: a container is restored first, then its members are compared with the
 * reference's members (array items by index, object members by key).
 *
 * The reference is the stored form document (the spec's `data` is a Form document), and beside its
 * own members, the form's values: each field (`children[]`) whose `properties.type` is `array` or
 * `object` describes the value submitted under its `name` (or `key`), so `{"ports": {"0": "Gi0/1"}}`
 * for an `array` field `ports` is `{"ports": ["Gi0/1"]}` again (referenceOf).
 */

import { isPlainObject as isObject } from "../../shared/objects";

type Json = unknown;

const INDEX = /^(0|[1-9]\d{0,14})$/;

/** An object a serializer made from an array: every key an array index. */
function asIndexedArray(value: Record<string, Json>): Json[] | undefined {
  const keys = Object.keys(value);
  if (!keys.every((k) => INDEX.test(k))) return undefined;
  return keys.sort((a, b) => Number(a) - Number(b)).map((k) => value[k]);
}

/** An array a serializer made from an object: `[key, value]` pairs, each key once. */
function asEntries(value: Json[]): Record<string, Json> | undefined {
  const seen = new Set<string>();
  for (const item of value) {
    if (!Array.isArray(item) || item.length !== 2 || typeof item[0] !== "string" || seen.has(item[0]))
      return undefined;
    seen.add(item[0]);
  }
  // fromEntries defines own properties, so a "__proto__" key stays data.
  return Object.fromEntries(value as [string, Json][]);
}

/** Deeper than this, the data is left as it is (the reference is never this deep in practice). */
const MAX_DEPTH = 64;

export function restoreContainers(reference: Json, data: Json, depth = 0): Json {
  if (depth > MAX_DEPTH) return data;
  if (Array.isArray(reference)) {
    const items = Array.isArray(data) ? data : isObject(data) ? asIndexedArray(data) : undefined;
    if (!items) return data;
    return items.map((item, i) =>
      i < reference.length ? restoreContainers(reference[i], item, depth + 1) : item,
    );
  }
  if (isObject(reference)) {
    const members = isObject(data) ? data : Array.isArray(data) ? asEntries(data) : undefined;
    if (!members) return data;
    return Object.fromEntries(
      Object.entries(members).map(([key, value]) => [
        key,
        Object.prototype.hasOwnProperty.call(reference, key)
          ? restoreContainers(reference[key], value, depth + 1)
          : value,
      ]),
    );
  }
  return data;
}

/** A field's container type, when it has one: the reference a submitted value of it is restored to. */
function containerOf(field: Json): Json[] | Record<string, Json> | undefined {
  if (!isObject(field) || !isObject(field.properties)) return undefined;
  const type = field.properties.type;
  return type === "array" ? [] : type === "object" ? {} : undefined;
}

/**
 * The reference for a form's data: the form document's own members, and for each container field
 * of the form (`children[]` with `properties.type` `array` or `object`) an empty container under
 * the field's `name` (or `key`) when the document has no member of that name.
 */
export function referenceOf(form: { readonly children?: readonly Json[] }): Record<string, Json> {
  const values = new Map<string, Json>();
  for (const field of Array.isArray(form.children) ? form.children : []) {
    const container = containerOf(field);
    const name = isObject(field) ? (field.name ?? field.key) : undefined;
    if (container && typeof name === "string" && name !== "" && !values.has(name))
      values.set(name, container);
  }
  // fromEntries and spread define own properties, so a field named "__proto__" stays data.
  return { ...Object.fromEntries(values), ...(form as Record<string, Json>) };
}

/** The nesting depth of a JSON value (a scalar is 0): forms deeper than a limit are refused. */
export function depthOf(value: Json): number {
  let max = 0;
  const stack: [Json, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (typeof v !== "object" || v === null) continue;
    if (d + 1 > max) max = d + 1;
    for (const child of Object.values(v)) stack.push([child, d + 1]);
  }
  return max;
}

export const MAX_FORM_DEPTH = 32;
