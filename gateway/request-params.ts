/**
 * Turns an HTTP request into the params of the action behind it.
 *
 * POST/PUT/PATCH: the JSON body's top-level properties, plus path parameters (which win); with
 *   `bodyParam`, the whole body as that one param.
 * GET/DELETE: query keys (nested with brackets, `equals[status]=running`), plus path parameters.
 * An operation with one object parameter (docs/platform-rules.md#object-parameters-on-get) accepts it in every form:
 *   flattened   ?limit=10&equals[status]=running
 *   wrapped     ?queryParameters[limit]=10   or   ?queryParameters={"limit":10}  (JSON text)
 *   JSON body   {"queryParameters": {...}} on the GET; when a body is present it wins.
 * Query values are text, so they are coerced to the types the action's schema declares.
 * The `token` query key carries credentials and never reaches an action.
 */
import type { Operation } from "../shared/contracts";
import { BODY_METHODS } from "../shared/contracts/define";
import type { Props, Rule } from "../shared/contracts/schema";
import { BadRequestError } from "../shared/errors";
import { isPlainObject } from "../shared/objects";

type Json = Record<string, unknown>;

export class InvalidBodyError extends BadRequestError {
  constructor(message: string) {
    super(message);
    this.type = "INVALID_REQUEST_BODY";
  }
}

function asRule(rule: Rule | boolean | string | undefined): Rule | undefined {
  if (rule === undefined || typeof rule === "boolean") return undefined;
  if (typeof rule === "string") return { type: rule.split("|")[0] };
  return rule;
}

function coerceScalar(type: string, value: string): unknown {
  if (type === "number") return value.trim() !== "" && !Number.isNaN(Number(value)) ? Number(value) : value;
  if (type === "boolean")
    return value === "true" || value === "1" ? true : value === "false" || value === "0" ? false : value;
  return value;
}

function parseJsonText(text: string, field: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new BadRequestError(`'${field}' is not valid JSON text`, [
      {
        field,
        message: `The '${field}' field must be JSON object text or bracketed query keys`,
        type: "json",
      },
    ]);
  }
}

/** Coerces query-string text to the rule's type; anything it cannot coerce is left for the validator to reject. */
export function coerce(input: Rule | boolean | string | undefined, value: unknown, field = ""): unknown {
  const rule = asRule(input);
  if (!rule) return value;
  if (value === "null" && rule.nullable) return null;
  switch (rule.type) {
    case "number":
    case "boolean":
      return typeof value === "string" ? coerceScalar(rule.type, value) : value;
    case "enum":
    case "equal": {
      const sample = rule.type === "enum" ? rule.values?.[0] : rule.value;
      return typeof value === "string" && typeof sample !== "string"
        ? coerceScalar(typeof sample, value)
        : value;
    }
    case "object": {
      const obj =
        typeof value === "string" && value.trim().startsWith("{") ? parseJsonText(value, field) : value;
      return isPlainObject(obj) && rule.props ? coerceProps(rule.props, obj, field) : obj;
    }
    case "record": {
      if (!isPlainObject(value)) return value;
      return Object.fromEntries(
        Object.entries(value).map(([k, v]) => [k, coerce(rule.value as Rule, v, `${field}.${k}`)]),
      );
    }
    case "array": {
      let list = value;
      if (typeof value === "string")
        list = value.trim().startsWith("[") ? parseJsonText(value, field) : [value];
      // qs turns a[0]=x&a[1]=y into an array, but a[5]=x (sparse) into an object keyed by index.
      if (isPlainObject(list) && Object.keys(list).every((k) => /^\d+$/.test(k))) list = Object.values(list);
      return Array.isArray(list) && rule.items
        ? list.map((v, i) => coerce(rule.items, v, `${field}[${i}]`))
        : list;
    }
    default:
      return value;
  }
}

export function coerceProps(props: Props, obj: Json, prefix = ""): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(obj))
    out[key] = coerce(props[key], value, prefix ? `${prefix}.${key}` : key);
  return out;
}

/** The request body as an object, or undefined when there is none. */
function bodyOf(body: unknown): Json | undefined {
  if (body === undefined || body === null || body === "") return undefined;
  if (Buffer.isBuffer(body) && body.length === 0) return undefined;
  if (!isPlainObject(body)) throw new InvalidBodyError("The request body must be a JSON object");
  return body;
}

export function buildParams(
  op: Operation,
  req: { method?: string; body?: unknown; query?: Json },
  pathParams: Json,
): Json {
  const body = bodyOf(req.body);
  const { token: _credentials, ...query } = req.query ?? {};
  const props = op.contract.params;

  if (BODY_METHODS.includes(op.method)) {
    if (op.bodyParam) return { [op.bodyParam]: body ?? {}, ...pathParams };
    return { ...(body ?? {}), ...pathParams };
  }

  if (op.objectParam) {
    const name = op.objectParam;
    let value: unknown;
    if (body && Object.keys(body).length > 0) value = name in body ? body[name] : body;
    else if (name in query) value = coerce(props[name], query[name], name);
    else value = coerce(props[name], withoutKeys(query, Object.keys(pathParams)), name);
    return { [name]: value, ...pathParams };
  }
  return { ...coerceProps(props, body ?? query), ...pathParams };
}

function withoutKeys(obj: Json, keys: string[]): Json {
  if (keys.length === 0) return obj;
  return Object.fromEntries(Object.entries(obj).filter(([k]) => !keys.includes(k)));
}
