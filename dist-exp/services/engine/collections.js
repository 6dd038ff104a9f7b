"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.JOBS = exports.WORKFLOWS = void 0;
/** The engine's collections, named once. */
exports.WORKFLOWS = "workflows";
exports.JOBS = "jobs";
//# sourceMappingURL=collections.js.map