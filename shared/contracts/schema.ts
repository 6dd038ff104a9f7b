/**
 * Parameter schemas are fastest-validator schemas, written once in the contract files. From the
 * same object we derive:
 *  - validation: Moleculer validates every action's `params` with it (HTTP and bus callers alike);
 *  - TypeScript types: `Infer<typeof schema>` below, so `broker.call` is typed end to end;
 *  - OpenAPI: `toJsonSchema` below feeds /openapi.json;
 *  - query-string coercion on GET: the gateway reads rule types to turn "10" into 10.
 * An action's result is described in the same vocabulary (`returns(rule)` below): its TypeScript
 * type is `InferRule` of the rule, and /openapi.json's 200 response schema is `ruleToJsonSchema` of it.
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
  /**
   * Result schemas only: the name of a shared resource schema (Account, Job...). /openapi.json puts
   * it once under `components.schemas` and refers to it with `$ref`.
   */
  title?: string;
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
            : R extends { type: "object"; props: infer P; strict: false }
              ? Infer<P> & Record<string, any>
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
  -readonly [K in keyof P as Meta<K> extends true ? never : Opt<P[K]> extends true ? never : K]: InferRule<
    P[K]
  >;
} & {
  -readonly [K in keyof P as Meta<K> extends true ? never : Opt<P[K]> extends true ? K : never]?: InferRule<
    P[K]
  >;
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
  for (const [key, rule] of rulesOf(props)) {
    if (!(key in params)) continue;
    const value = params[key];
    if (value === null) {
      if (rule.optional && !rule.nullable) delete params[key];
      continue;
    }
    dropNullOptionalsIn(rule, value);
  }
}

/**
 * A props object's members as rules (`$$` options and boolean rules left out, string shorthands
 * read), made once per props object: this runs on every action call, and props are the contracts'
 * constants, built once when a module loads and never changed after (a schema made per call is
 * simply read once per call, as before).
 */
const compiledRules = new WeakMap<Props, (readonly [string, Rule])[]>();

function rulesOf(props: Props): (readonly [string, Rule])[] {
  let rules = compiledRules.get(props);
  if (rules) return rules;
  rules = [];
  for (const [key, raw] of Object.entries(props)) {
    if (key.startsWith("$$")) continue;
    if (typeof raw === "object") rules.push([key, raw]);
    else if (typeof raw === "string")
      rules.push([key, { type: raw.split("|")[0], optional: raw.includes("optional") }]);
  }
  compiledRules.set(props, rules);
  return rules;
}

function dropNullOptionalsIn(rule: Rule, value: unknown): void {
  if (rule.type === "object" && rule.props && value && typeof value === "object" && !Array.isArray(value))
    dropNullOptionals(rule.props as Props, value as Record<string, unknown>);
  else if (rule.type === "array" && rule.items && Array.isArray(value))
    for (const item of value) dropNullOptionalsIn(rule.items, item);
}

declare const resultType: unique symbol;

/**
 * An action's result in its contract: the schema of what it answers (`rule`: /openapi.json's 200
 * response, checked against real answers by test/gateway/openapi-responses.test.ts) and, phantom,
 * its TypeScript type (read by the typed `call` helper and the handler types).
 */
export interface Returns<T> {
  readonly rule: Rule | undefined;
  readonly [resultType]: T;
}

/** The TypeScript type of an action's result. */
export type ResultType<R> = R extends Returns<infer T> ? T : R;

/**
 * `returns(rule)`: the result's schema; its type is `InferRule` of it. `returns<T>()` (no schema)
 * is only a type: /openapi.json then has nothing to say and the conformance test fails on the route.
 */
export function returns<T>(): Returns<T>;
export function returns<const R extends Rule>(rule: R): Returns<InferRule<R>>;
export function returns(rule?: Rule): Returns<unknown> {
  return { rule } as Returns<unknown>;
}

/**
 * A result schema whose type is written by hand (`T`) where inference from the rule is not
 * practical (e.g. a type shared with code outside the contracts); the rule still feeds OpenAPI.
 */
export function returnsAs<T>(rule: Rule): Returns<T> {
  return { rule } as Returns<T>;
}

// ---------------------------------------------------------------- result-schema building blocks

/** An object with exactly these members (OpenAPI: `additionalProperties: false`). */
export const shape = <const P extends Record<string, Rule>>(props: P) =>
  ({ type: "object", strict: true, props }) as const;
/** An object with these known members and possibly others (free-form documents). */
export const openShape = <const P extends Record<string, Rule>>(props: P) =>
  ({ type: "object", strict: false, props }) as const;
export const arrayOf = <const I extends Rule>(items: I) => ({ type: "array", items }) as const;
export const recordOf = <const V extends Rule>(value: V) => ({ type: "record", value }) as const;
export const nullable = <const R extends Rule>(rule: R) => ({ ...rule, nullable: true }) as const;
export const optional = <const R extends Rule>(rule: R) => ({ ...rule, optional: true }) as const;
/** Names a shared result schema: /openapi.json lists it once under `components.schemas`. */
export const named = <const R extends Rule>(title: string, rule: R) => ({ ...rule, title }) as R;
export const str = { type: "string" } as const;
export const num = { type: "number" } as const;
export const integer = { type: "number", integer: true } as const;
export const bool = { type: "boolean" } as const;
/** Any JSON value. */
export const anyValue = { type: "any" } as const;
/** Any JSON object. */
export const anyObj = { type: "object" } as const;
export const oneOf = <const V extends readonly unknown[]>(...values: V) =>
  ({ type: "enum", values }) as const;
export const constant = <const V>(value: V) => ({ type: "equal", value }) as const;
export const either = <const Rs extends readonly Rule[]>(...rules: Rs) => ({ type: "multi", rules }) as const;

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

/**
 * JSON Schema of a rule. With `refs`, a rule with a `title` (a named resource schema) is written
 * once into `refs` and referred to by `$ref` (OpenAPI's `components.schemas`).
 */
export function ruleToJsonSchema(
  input: Rule | boolean | string,
  refs?: Record<string, JsonSchema>,
): JsonSchema {
  const rule = normalize(input);
  if (refs && rule.title) {
    const { title, nullable, optional: _optional, description, ...rest } = rule;
    if (!(title in refs)) {
      refs[title] = {};
      refs[title] = ruleToJsonSchema(rest, refs);
    }
    let ref: JsonSchema = { $ref: `#/components/schemas/${title}` };
    if (nullable) ref = { anyOf: [ref, { type: "null" }] };
    if (description) ref.description = description;
    return ref;
  }
  const sub = (r: Rule | boolean | string) => ruleToJsonSchema(r, refs);
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
      if (rule.items) out.items = sub(rule.items);
      if (rule.min !== undefined) out.minItems = rule.min;
      if (rule.max !== undefined) out.maxItems = rule.max;
      break;
    case "record":
      out = { type: "object", additionalProperties: rule.value ? sub(rule.value as Rule) : {} };
      break;
    case "multi":
      out = { anyOf: (rule.rules ?? []).map(sub) };
      break;
    case "object":
      out = rule.props ? propsToJsonSchema(rule.props, rule.strict === true, refs) : { type: "object" };
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

export function propsToJsonSchema(
  props: Props,
  strict = props.$$strict === true,
  refs?: Record<string, JsonSchema>,
): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [key, raw] of Object.entries(props)) {
    if (key.startsWith("$$")) continue;
    const rule = normalize(raw);
    properties[key] = ruleToJsonSchema(rule, refs);
    if (!rule.optional && rule.default === undefined) required.push(key);
  }
  return {
    type: "object",
    properties,
    ...(required.length > 0 && { required }),
    ...(strict && { additionalProperties: false }),
  };
}
