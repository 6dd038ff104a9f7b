/**
 * Parameter schemas are fastest-validator schemas, written once in the contract files. From the
 * same object we derive:
 *  - validation: Moleculer validates every action's `params` with it (HTTP and bus callers alike);
 *  - TypeScript types: `Infer<typeof schema>` below, so `broker.call` is typed end to end;
 *  - OpenAPI: `toJsonSchema` below feeds /openapi.json;
 *  - query-string coercion on GET: the gateway reads rule types to turn "10" into 10.
 */

/** The subset of fastest-validator rules the contracts use. */
export interface Rule {
  type: string;
  optional?: boolean;
  nullable?: boolean;
  default?: unknown;
  props?: Record<string, Rule>;
  items?: Rule;
  rules?: readonly Rule[];
  values?: readonly unknown[];
  value?: unknown;
  key?: Rule;
  min?: number;
  max?: number;
  length?: number;
  integer?: boolean;
  positive?: boolean;
  pattern?: RegExp;
  empty?: boolean;
  strict?: boolean | "remove";
  minProps?: number;
  maxProps?: number;
  convert?: boolean;
  unique?: boolean;
  format?: string;
  trim?: boolean;
  custom?: (...args: any[]) => unknown;
  messages?: Record<string, string>;
  description?: string;
  /** Marks a field as a secret: docs and OpenAPI say so (`writeOnly`), logs redact it. */
  secret?: boolean;
}

export type Props = Record<string, Rule | boolean | string>;

type Opt<R> = R extends { optional: true } ? true : R extends { default: unknown } ? true : false;
type Nul<R, T> = R extends { nullable: true } ? T | null : T;

export type InferRule<R> = Nul<
  R,
  R extends { type: "string" | "email" | "uuid" | "url" | "date" }
    ? string
    : R extends { type: "number" }
      ? number
      : R extends { type: "boolean" }
        ? boolean
        : R extends { type: "equal"; value: infer V }
          ? V
          : R extends { type: "enum"; values: readonly (infer V)[] }
            ? V
            : R extends { type: "object"; props: infer P }
              ? Infer<P>
              : R extends { type: "object" }
                ? Record<string, any>
                : R extends { type: "array"; items: infer I }
                  ? InferRule<I>[]
                  : R extends { type: "array" }
                    ? any[]
                    : R extends { type: "record"; value: infer V }
                      ? Record<string, InferRule<V>>
                      : R extends { type: "multi"; rules: readonly (infer M)[] }
                        ? InferRule<M>
                        : any
>;

type Meta<K> = K extends `$$${string}` ? true : false;

/** The TypeScript type of the params an object schema accepts. */
export type Infer<P> = {
  [K in keyof P as Meta<K> extends true ? never : Opt<P[K]> extends true ? never : K]: InferRule<P[K]>;
} & {
  [K in keyof P as Meta<K> extends true ? never : Opt<P[K]> extends true ? K : never]?: InferRule<P[K]>;
};

// ---------------------------------------------------------------- building blocks

/** A 24-hex document id (docs/platform-rules.md#identifiers-and-time). */
export const objectId = {
  type: "string",
  pattern: /^[0-9a-fA-F]{24}$/,
  messages: { stringPattern: "The '{field}' field must be a 24-hex object id." },
} as const;
export const optionalObjectId = { ...objectId, optional: true } as const;
export const uuid = { type: "uuid" } as const;
export const int = (min?: number, max?: number) =>
  ({
    type: "number",
    integer: true,
    optional: true,
    ...(min !== undefined && { min }),
    ...(max !== undefined && { max }),
  }) as const;
export const optString = { type: "string", optional: true } as const;
/** A name that is also a path segment (`/formbuilder/forms/:name`): no `/`. */
export const pathName = {
  type: "string",
  min: 1,
  max: 256,
  pattern: /^[^/]+$/,
  messages: { stringPattern: "The '{field}' field must not contain '/'." },
} as const;
export const optBool = { type: "boolean", optional: true } as const;
export const anyObject = { type: "object", optional: true } as const;
export const sortOrder = { type: "enum", values: [1, -1], optional: true } as const;

/**
 * One rule for `null` (docs/security.md#null): on an optional field that is not `nullable`, null
 * means absent. fastest-validator lets null through an optional field; this drops it before any
 * handler sees it, so a handler's defaults apply and no null is stored where the resource says
 * array, string or object. A `nullable` field keeps its null (operation 10's nextRunAt: null clears
 * it). Walks the declared object props (and arrays of them) only: free-form values (job variables)
 * keep their nulls.
 */
export function dropNullOptionals(props: Props, params: Record<string, unknown> | null | undefined): void {
  if (!params || typeof params !== "object") return;
  for (const [key, raw] of Object.entries(props)) {
    if (key.startsWith("$$") || !(key in params)) continue;
    const rule: Rule | undefined =
      typeof raw === "object"
        ? raw
        : typeof raw === "string"
          ? { type: raw.split("|")[0], optional: raw.includes("optional") }
          : undefined;
    if (!rule) continue;
    const value = params[key];
    if (value === null) {
      if (rule.optional && !rule.nullable) delete params[key];
      continue;
    }
    dropNullOptionalsIn(rule, value);
  }
}

function dropNullOptionalsIn(rule: Rule, value: unknown): void {
  if (rule.type === "object" && rule.props && value && typeof value === "object" && !Array.isArray(value))
    dropNullOptionals(rule.props as Props, value as Record<string, unknown>);
  else if (rule.type === "array" && rule.items && Array.isArray(value))
    for (const item of value) dropNullOptionalsIn(rule.items, item);
}

/** A phantom value carrying a result type in a contract (never read at run time). */
export function returns<T>(): T {
  return undefined as unknown as T;
}

// ---------------------------------------------------------------- JSON Schema (OpenAPI 3.1)

export type JsonSchema = Record<string, unknown>;

function normalize(rule: Rule | boolean | string): Rule {
  if (typeof rule === "string") {
    const [type, ...flags] = rule.split("|");
    return { type, optional: flags.includes("optional") };
  }
  if (typeof rule === "boolean") return { type: "any", optional: !rule };
  return rule;
}

export function ruleToJsonSchema(input: Rule | boolean | string): JsonSchema {
  const rule = normalize(input);
  let out: JsonSchema;
  switch (rule.type) {
    case "string":
      out = { type: "string" };
      if (rule.min !== undefined) out.minLength = rule.min;
      if (rule.max !== undefined) out.maxLength = rule.max;
      if (rule.empty === false && rule.min === undefined) out.minLength = 1;
      if (rule.pattern) out.pattern = rule.pattern.source;
      if (rule.format) out.format = rule.format;
      break;
    case "uuid":
      out = { type: "string", format: "uuid" };
      break;
    case "email":
      out = { type: "string", format: "email" };
      break;
    case "number":
      out = { type: rule.integer ? "integer" : "number" };
      if (rule.min !== undefined) out.minimum = rule.min;
      if (rule.max !== undefined) out.maximum = rule.max;
      if (rule.positive) out.exclusiveMinimum = 0;
      break;
    case "boolean":
      out = { type: "boolean" };
      break;
    case "enum":
      out = { enum: [...(rule.values ?? [])] };
      break;
    case "equal":
      out = { const: rule.value };
      break;
    case "array":
      out = { type: "array" };
      if (rule.items) out.items = ruleToJsonSchema(rule.items);
      if (rule.min !== undefined) out.minItems = rule.min;
      if (rule.max !== undefined) out.maxItems = rule.max;
      break;
    case "record":
      out = { type: "object", additionalProperties: rule.value ? ruleToJsonSchema(rule.value as Rule) : {} };
      break;
    case "multi":
      out = { anyOf: (rule.rules ?? []).map(ruleToJsonSchema) };
      break;
    case "object":
      out = rule.props ? propsToJsonSchema(rule.props, rule.strict === true) : { type: "object" };
      if (rule.minProps !== undefined) out.minProperties = rule.minProps;
      break;
    default:
      out = {};
  }
  if (rule.nullable) out = { anyOf: [out, { type: "null" }] };
  if (rule.default !== undefined && typeof rule.default !== "function") out.default = rule.default;
  if (rule.description) out.description = rule.description;
  if (rule.secret) out.writeOnly = true;
  return out;
}

export function propsToJsonSchema(props: Props, strict = props.$$strict === true): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [key, raw] of Object.entries(props)) {
    if (key.startsWith("$$")) continue;
    const rule = normalize(raw);
    properties[key] = ruleToJsonSchema(rule);
    if (!rule.optional && rule.default === undefined) required.push(key);
  }
  return {
    type: "object",
    properties,
    ...(required.length > 0 && { required }),
    ...(strict && { additionalProperties: false }),
  };
}
