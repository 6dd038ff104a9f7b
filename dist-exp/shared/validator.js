"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.RedactingValidator = void 0;
/**
 * The broker's validator: fastest-validator, as Moleculer's default, except that a rejected value
 * never leaves it (docs/security.md#what-is-never-logged). Moleculer logs every rejected call at
 * debug level with the error's data, and fastest-validator puts the rejected value in each entry's
 * `actual`: a numeric password sent to /login would reach the log. Entries keep their field, type and
 * message; `actual` is kept only where it names forbidden keys (objectStrict), never a value.
 */
const moleculer_1 = require("moleculer");
function redact(result) {
    if (result === true || !Array.isArray(result))
        return result;
    return result.map(({ actual, ...entry }) => (entry.type === "objectStrict" ? { ...entry, actual } : entry));
}
class RedactingValidator extends moleculer_1.Validators.Fastest {
    compile(schema) {
        const check = super.compile(schema);
        const redacting = (params, opts) => {
            const result = check(params, opts);
            return result instanceof Promise ? result.then(redact) : redact(result);
        };
        // fastest-validator marks checkers with async rules; Moleculer reads the mark.
        return Object.assign(redacting, { async: check.async });
    }
}
exports.RedactingValidator = RedactingValidator;
//# sourceMappingURL=validator.js.map