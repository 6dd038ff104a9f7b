"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.checkInput = checkInput;
const typeOf = (value) => value === null
    ? "null"
    : Array.isArray(value)
        ? "array"
        : typeof value === "number" && Number.isInteger(value)
            ? "integer"
            : typeof value;
function matchesType(value, type) {
    const actual = typeOf(value);
    if (type === "number")
        return actual === "number" || actual === "integer";
    return actual === type;
}
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
/** Every way `value` breaks `schema`, fields named from `field`. */
function checkInput(schema, value, field = "options.variables") {
    const errors = [];
    walk(schema, value, field, errors);
    return errors;
}
function walk(schema, value, field, errors) {
    if (typeof schema !== "object" || schema === null || Array.isArray(schema))
        return;
    const s = schema;
    const fail = (message, type) => errors.push({ field, message: `'${field}' ${message}`, type });
    if (s.type !== undefined) {
        const types = Array.isArray(s.type) ? s.type : [s.type];
        if (!types.some((t) => matchesType(value, t))) {
            fail(`must be of type ${types.join(" or ")}`, "type");
            return; // the other keywords assume the type
        }
    }
    if (Array.isArray(s.enum) && !s.enum.some((e) => same(e, value)))
        fail(`must be one of ${s.enum.map((e) => JSON.stringify(e)).join(", ")}`, "enum");
    if ("const" in s && !same(s.const, value))
        fail(`must equal ${JSON.stringify(s.const)}`, "const");
    if (typeof value === "number") {
        if (typeof s.minimum === "number" && value < s.minimum)
            fail(`must be >= ${s.minimum}`, "minimum");
        if (typeof s.maximum === "number" && value > s.maximum)
            fail(`must be <= ${s.maximum}`, "maximum");
    }
    if (typeof value === "string") {
        if (typeof s.minLength === "number" && value.length < s.minLength)
            fail(`must be at least ${s.minLength} characters long`, "minLength");
        if (typeof s.maxLength === "number" && value.length > s.maxLength)
            fail(`must be at most ${s.maxLength} characters long`, "maxLength");
        if (typeof s.pattern === "string") {
            let pattern;
            try {
                pattern = new RegExp(s.pattern, "u");
            }
            catch {
                pattern = undefined; // a broken pattern in a workflow is the author's problem, not the caller's
            }
            if (pattern && !pattern.test(value))
                fail(`must match the pattern ${s.pattern}`, "pattern");
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
        const obj = value;
        const props = s.properties && typeof s.properties === "object" ? s.properties : {};
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
            if (obj[name] !== undefined)
                walk(sub, obj[name], `${field}.${name}`, errors);
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
//# sourceMappingURL=input-schema.js.map