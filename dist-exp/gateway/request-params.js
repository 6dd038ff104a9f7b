"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.InvalidBodyError = void 0;
exports.coerce = coerce;
exports.coerceProps = coerceProps;
exports.buildParams = buildParams;
const define_1 = require("../shared/contracts/define");
const errors_1 = require("../shared/errors");
const objects_1 = require("../shared/objects");
class InvalidBodyError extends errors_1.BadRequestError {
    constructor(message) {
        super(message);
        this.type = "INVALID_REQUEST_BODY";
    }
}
exports.InvalidBodyError = InvalidBodyError;
function asRule(rule) {
    if (rule === undefined || typeof rule === "boolean")
        return undefined;
    if (typeof rule === "string")
        return { type: rule.split("|")[0] };
    return rule;
}
function coerceScalar(type, value) {
    if (type === "number")
        return value.trim() !== "" && !Number.isNaN(Number(value)) ? Number(value) : value;
    if (type === "boolean")
        return value === "true" || value === "1" ? true : value === "false" || value === "0" ? false : value;
    return value;
}
function parseJsonText(text, field) {
    try {
        return JSON.parse(text);
    }
    catch {
        throw new errors_1.BadRequestError(`'${field}' is not valid JSON text`, [
            {
                field,
                message: `The '${field}' field must be JSON object text or bracketed query keys`,
                type: "json",
            },
        ]);
    }
}
/** Coerces query-string text to the rule's type; anything it cannot coerce is left for the validator to reject. */
function coerce(input, value, field = "") {
    const rule = asRule(input);
    if (!rule)
        return value;
    if (value === "null" && rule.nullable)
        return null;
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
            const obj = typeof value === "string" && value.trim().startsWith("{") ? parseJsonText(value, field) : value;
            return (0, objects_1.isPlainObject)(obj) && rule.props ? coerceProps(rule.props, obj, field) : obj;
        }
        case "record": {
            if (!(0, objects_1.isPlainObject)(value))
                return value;
            return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, coerce(rule.value, v, `${field}.${k}`)]));
        }
        case "array": {
            let list = value;
            if (typeof value === "string")
                list = value.trim().startsWith("[") ? parseJsonText(value, field) : [value];
            // qs turns a[0]=x&a[1]=y into an array, but a[5]=x (sparse) into an object keyed by index.
            if ((0, objects_1.isPlainObject)(list) && Object.keys(list).every((k) => /^\d+$/.test(k)))
                list = Object.values(list);
            return Array.isArray(list) && rule.items
                ? list.map((v, i) => coerce(rule.items, v, `${field}[${i}]`))
                : list;
        }
        default:
            return value;
    }
}
function coerceProps(props, obj, prefix = "") {
    const out = {};
    for (const [key, value] of Object.entries(obj))
        out[key] = coerce(props[key], value, prefix ? `${prefix}.${key}` : key);
    return out;
}
/** The request body as an object, or undefined when there is none. */
function bodyOf(body) {
    if (body === undefined || body === null || body === "")
        return undefined;
    if (Buffer.isBuffer(body) && body.length === 0)
        return undefined;
    if (!(0, objects_1.isPlainObject)(body))
        throw new InvalidBodyError("The request body must be a JSON object");
    return body;
}
function buildParams(op, req, pathParams) {
    const body = bodyOf(req.body);
    const { token: _credentials, ...query } = req.query ?? {};
    const props = op.contract.params;
    if (define_1.BODY_METHODS.includes(op.method)) {
        if (op.bodyParam)
            return { [op.bodyParam]: body ?? {}, ...pathParams };
        return { ...(body ?? {}), ...pathParams };
    }
    if (op.objectParam) {
        const name = op.objectParam;
        let value;
        if (body && Object.keys(body).length > 0)
            value = name in body ? body[name] : body;
        else if (name in query)
            value = coerce(props[name], query[name], name);
        else
            value = coerce(props[name], withoutKeys(query, Object.keys(pathParams)), name);
        return { [name]: value, ...pathParams };
    }
    return { ...coerceProps(props, body ?? query), ...pathParams };
}
function withoutKeys(obj, keys) {
    if (keys.length === 0)
        return obj;
    return Object.fromEntries(Object.entries(obj).filter(([k]) => !keys.includes(k)));
}
//# sourceMappingURL=request-params.js.map