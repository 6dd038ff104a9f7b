/**
 * A workflow's `inputSchema` checks a job's variables before the job exists. The JSON Schema
 * subset a workflow author needs for job input: type (one or a list), properties, required, items,
 * enum, const, minimum/maximum, minLength/maxLength, minItems/maxItems, pattern,
 * additionalProperties: false. Other keywords are ignored (they never reject). Every problem is
 * reported, each as `{field, message, type}` with `field` the dot path under `options.variables`.
 */
import type { FieldError } from "../../../shared/errors";
import { re2, userRegex } from "../../../shared/user-regex";

type Schema = Record<string, any>;

const typeOf = (value: unknown): string =>
  value === null
    ? "null"
    : Array.isArray(value)
      ? "array"
      : typeof value === "number" && Number.isInteger(value)
        ? "integer"
        : typeof value;

function matchesType(value: unknown, type: string): boolean {
  const actual = typeOf(value);
  if (type === "number") return actual === "number" || actual === "integer";
  return actual === type;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Every way `value` breaks `schema`, fields named from `field`. */
export function checkInput(schema: unknown, value: unknown, field = "options.variables"): FieldError[] {
  const errors: FieldError[] = [];
  walk(schema, value, field, errors);
  return errors;
}

function walk(schema: unknown, value: unknown, field: string, errors: FieldError[]): void {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return;
  const s = schema as Schema;
  const fail = (message: string, type: string) =>
    errors.push({ field, message: `'${field}' ${message}`, type });

  if (s.type !== undefined) {
    const types: string[] = Array.isArray(s.type) ? s.type : [s.type];
    if (!types.some((t) => matchesType(value, t))) {
      fail(`must be of type ${types.join(" or ")}`, "type");
      return; // the other keywords assume the type
    }
  }
  if (Array.isArray(s.enum) && !s.enum.some((e: unknown) => same(e, value)))
    fail(`must be one of ${s.enum.map((e: unknown) => JSON.stringify(e)).join(", ")}`, "enum");
  if ("const" in s && !same(s.const, value)) fail(`must equal ${JSON.stringify(s.const)}`, "const");

  if (typeof value === "number") {
    if (typeof s.minimum === "number" && value < s.minimum) fail(`must be >= ${s.minimum}`, "minimum");
    if (typeof s.maximum === "number" && value > s.maximum) fail(`must be <= ${s.maximum}`, "maximum");
  }
  if (typeof value === "string") {
    if (typeof s.minLength === "number" && value.length < s.minLength)
      fail(`must be at least ${s.minLength} characters long`, "minLength");
    if (typeof s.maxLength === "number" && value.length > s.maxLength)
      fail(`must be at most ${s.maxLength} characters long`, "maxLength");
    if (typeof s.pattern === "string") {
      // On RE2, like every user regex (shared/user-regex.ts): a job's input cannot make it backtrack.
      let pattern: { test(text: string): boolean } | undefined;
      try {
        pattern = re2(s.pattern);
      } catch {
        pattern = undefined; // stored before patterns were checked on save: the author's problem
      }
      if (pattern && !pattern.test(value)) fail(`must match the pattern ${s.pattern}`, "pattern");
    }
  }
  if (Array.isArray(value)) {
    if (typeof s.minItems === "number" && value.length < s.minItems)
      fail(`must have at least ${s.minItems} items`, "minItems");
    if (typeof s.maxItems === "number" && value.length > s.maxItems)
      fail(`must have at most ${s.maxItems} items`, "maxItems");
    if (s.items && typeof s.items === "object")
      value.forEach((item, i) => walk(s.items, item, `${field}.${i}`, errors));
  }
  if (typeOf(value) === "object") {
    const obj = value as Record<string, unknown>;
    const props: Record<string, unknown> =
      s.properties && typeof s.properties === "object" ? s.properties : {};
    if (Array.isArray(s.required)) {
      for (const name of s.required)
        if (typeof name === "string" && obj[name] === undefined)
          errors.push({
            field: `${field}.${name}`,
            message: `'${field}.${name}' is required`,
            type: "required",
          });
    }
    for (const [name, sub] of Object.entries(props))
      if (obj[name] !== undefined) walk(sub, obj[name], `${field}.${name}`, errors);
    if (s.additionalProperties === false) {
      for (const name of Object.keys(obj))
        if (!(name in props))
          errors.push({
            field: `${field}.${name}`,
            message: `'${field}.${name}' is not allowed`,
            type: "additionalProperties",
          });
    }
  }
}

/**
 * Refuses, when a workflow is saved, an input schema whose `pattern` RE2 cannot run (a
 * backreference, lookaround, too long): 400 naming the pattern's place under `field`. The walk
 * follows the keywords `check` follows, so every pattern a job's input meets was checked here.
 */
export function checkSchemaPatterns(schema: unknown, field: string): void {
  const pending: [unknown, string][] = [[schema, field]];
  while (pending.length > 0) {
    const [s, at] = pending.pop()!;
    if (!s || typeof s !== "object" || Array.isArray(s)) continue;
    const node = s as Schema;
    if (typeof node.pattern === "string") userRegex(node.pattern, `${at}.pattern`);
    if (node.items && typeof node.items === "object") pending.push([node.items, `${at}.items`]);
    if (node.properties && typeof node.properties === "object")
      for (const [name, sub] of Object.entries(node.properties as Schema))
        pending.push([sub, `${at}.properties.${name}`]);
  }
}
