"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.intEnv = intEnv;
/** Bench settings from the environment: an integer with a floor, or the bench stops saying which. */
function intEnv(name, fallback, min) {
    const raw = process.env[name];
    const n = raw ? Number(raw) : fallback;
    if (!Number.isInteger(n) || n < min)
        throw new Error(`${name} must be an integer >= ${min}`);
    return n;
}
//# sourceMappingURL=env.js.map