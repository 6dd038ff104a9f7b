"use strict";
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
Object.defineProperty(exports, "__esModule", { value: true });
exports.either = exports.constant = exports.oneOf = exports.anyObj = exports.anyValue = exports.bool = exports.integer = exports.num = exports.str = exports.named = exports.optional = exports.nullable = exports.recordOf = exports.arrayOf = exports.openShape = exports.shape = exports.sortOrder = exports.anyObject = exports.optBool = exports.pathName = exports.optString = exports.int = exports.uuid = exports.optionalObjectId = exports.objectId = void 0;
exports.dropNullOptionals = dropNullOptionals;
exports.returns = returns;
exports.returnsAs = returnsAs;
exports.ruleToJsonSchema = ruleToJsonSchema;
exports.propsToJsonSchema = propsToJsonSchema;
// ---------------------------------------------------------------- building blocks
/** A 24-hex document id (docs/platform-rules.md#identifiers-and-time). */
exports.objectId = {
    type: "string",
    pattern: /^[0-9a-fA-F]{24}$/,
    messages: { stringPattern: "The '{field}' field must be a 24-hex object id." },
};
exports.optionalObjectId = { ...exports.objectId, optional: true };
exports.uuid = { type: "uuid" };
const int = (min, max) => ({
    type: "number",
    integer: true,
    optional: true,
    ...(min !== undefined && { min }),
    ...(max !== undefined && { max }),
});
exports.int = int;
exports.optString = { type: "string", optional: true };
/** A name that is also a path segment (`/formbuilder/forms/:name`): no `/`. */
exports.pathName = {
    type: "string",
    min: 1,
    max: 256,
    pattern: /^[^/]+$/,
    messages: { stringPattern: "The '{field}' field must not contain '/'." },
};
exports.optBool = { type: "boolean", optional: true };
exports.anyObject = { type: "object", optional: true };
exports.sortOrder = { type: "enum", values: [1, -1], optional: true };
/**
 * One rule for `null` (docs/security.md#null): on an optional field that is not `nullable`, null
 * means absent. fastest-validator lets null through an optional field; this drops it before any
 * handler sees it, so a handler's defaults apply and no null is stored where the resource says
 * array, string or object. A `nullable` field keeps its null (operation 10's nextRunAt: null clears
 * it). Walks the declared object props (and arrays of them) only: free-form values (job variables)
 * keep their nulls.
 */
function dropNullOptionals(props, params) {
    if (!params || typeof params !== "object")
        return;
    for (const [key, raw] of Object.entries(props)) {
        if (key.startsWith("$$") || !(key in params))
            continue;
        const rule = typeof raw === "object"
            ? raw
            : typeof raw === "string"
                ? { type: raw.split("|")[0], optional: raw.includes("optional") }
                : undefined;
        if (!rule)
            continue;
        const value = params[key];
        if (value === null) {
            if (rule.optional && !rule.nullable)
                delete params[key];
            continue;
        }
        dropNullOptionalsIn(rule, value);
    }
}
function dropNullOptionalsIn(rule, value) {
    if (rule.type === "object" && rule.props && value && typeof value === "object" && !Array.isArray(value))
        dropNullOptionals(rule.props, value);
    else if (rule.type === "array" && rule.items && Array.isArray(value))
        for (const item of value)
            dropNullOptionalsIn(rule.items, item);
}
function returns(rule) {
    return { rule };
}
/**
 * A result schema whose type is written by hand (`T`) where inference from the rule is not
 * practical (e.g. a type shared with code outside the contracts); the rule still feeds OpenAPI.
 */
function returnsAs(rule) {
    return { rule };
}
// ---------------------------------------------------------------- result-schema building blocks
/** An object with exactly these members (OpenAPI: `additionalProperties: false`). */
const shape = (props) => ({ type: "object", strict: true, props });
exports.shape = shape;
/** An object with these known members and possibly others (free-form documents). */
const openShape = (props) => ({ type: "object", strict: false, props });
exports.openShape = openShape;
const arrayOf = (items) => ({ type: "array", items });
exports.arrayOf = arrayOf;
const recordOf = (value) => ({ type: "record", value });
exports.recordOf = recordOf;
const nullable = (rule) => ({ ...rule, nullable: true });
exports.nullable = nullable;
const optional = (rule) => ({ ...rule, optional: true });
exports.optional = optional;
/** Names a shared result schema: /openapi.json lists it once under `components.schemas`. */
const named = (title, rule) => ({ ...rule, title });
exports.named = named;
exports.str = { type: "string" };
exports.num = { type: "number" };
exports.integer = { type: "number", integer: true };
exports.bool = { type: "boolean" };
/** Any JSON value. */
exports.anyValue = { type: "any" };
/** Any JSON object. */
exports.anyObj = { type: "object" };
const oneOf = (...values) => ({ type: "enum", values });
exports.oneOf = oneOf;
const constant = (value) => ({ type: "equal", value });
exports.constant = constant;
const either = (...rules) => ({ type: "multi", rules });
exports.either = either;
function normalize(rule) {
    if (typeof rule === "string") {
        const [type, ...flags] = rule.split("|");
        return { type, optional: flags.includes("optional") };
    }
    if (typeof rule === "boolean")
        return { type: "any", optional: !rule };
    return rule;
}
/**
 * JSON Schema of a rule. With `refs`, a rule with a `title` (a named resource schema) is written
 * once into `refs` and referred to by `$ref` (OpenAPI's `components.schemas`).
 */
function ruleToJsonSchema(input, refs) {
    const rule = normalize(input);
    if (refs && rule.title) {
        const { title, nullable, optional: _optional, description, ...rest } = rule;
        if (!(title in refs)) {
            refs[title] = {};
            refs[title] = ruleToJsonSchema(rest, refs);
        }
        let ref = { $ref: `#/components/schemas/${title}` };
        if (nullable)
            ref = { anyOf: [ref, { type: "null" }] };
        if (description)
            ref.description = description;
        return ref;
    }
    const sub = (r) => ruleToJsonSchema(r, refs);
    let out;
    switch (rule.type) {
        case "string":
            out = { type: "string" };
            if (rule.min !== undefined)
                out.minLength = rule.min;
            if (rule.max !== undefined)
                out.maxLength = rule.max;
            if (rule.empty === false && rule.min === undefined)
                out.minLength = 1;
            if (rule.pattern)
                out.pattern = rule.pattern.source;
            if (rule.format)
                out.format = rule.format;
            break;
        case "uuid":
            out = { type: "string", format: "uuid" };
            break;
        case "email":
            out = { type: "string", format: "email" };
            break;
        case "number":
            out = { type: rule.integer ? "integer" : "number" };
            if (rule.min !== undefined)
                out.minimum = rule.min;
            if (rule.max !== undefined)
                out.maximum = rule.max;
            if (rule.positive)
                out.exclusiveMinimum = 0;
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
            if (rule.items)
                out.items = sub(rule.items);
            if (rule.min !== undefined)
                out.minItems = rule.min;
            if (rule.max !== undefined)
                out.maxItems = rule.max;
            break;
        case "record":
            out = { type: "object", additionalProperties: rule.value ? sub(rule.value) : {} };
            break;
        case "multi":
            out = { anyOf: (rule.rules ?? []).map(sub) };
            break;
        case "object":
            out = rule.props ? propsToJsonSchema(rule.props, rule.strict === true, refs) : { type: "object" };
            if (rule.minProps !== undefined)
                out.minProperties = rule.minProps;
            break;
        default:
            out = {};
    }
    if (rule.nullable)
        out = { anyOf: [out, { type: "null" }] };
    if (rule.default !== undefined && typeof rule.default !== "function")
        out.default = rule.default;
    if (rule.description)
        out.description = rule.description;
    if (rule.secret)
        out.writeOnly = true;
    return out;
}
function propsToJsonSchema(props, strict = props.$$strict === true, refs) {
    const properties = {};
    const required = [];
    for (const [key, raw] of Object.entries(props)) {
        if (key.startsWith("$$"))
            continue;
        const rule = normalize(raw);
        properties[key] = ruleToJsonSchema(rule, refs);
        if (!rule.optional && rule.default === undefined)
            required.push(key);
    }
    return {
        type: "object",
        properties,
        ...(required.length > 0 && { required }),
        ...(strict && { additionalProperties: false }),
    };
}
//# sourceMappingURL=schema.js.map