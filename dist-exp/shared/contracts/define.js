"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.BODY_METHODS = exports.SUPPORT_WRITE = exports.SUPPORT_READ = exports.ROLES = void 0;
exports.defineService = defineService;
/** Role names of the spec. `admin` may call everything. */
exports.ROLES = [
    "admin",
    "engineering",
    "apiread",
    "apiwrite",
    "operations",
    "operator",
    "support",
    "other",
];
/** docs/platform-rules.md#supporting-operations: supporting reads and writes. */
exports.SUPPORT_READ = ["admin", "apiwrite", "engineering", "apiread"];
exports.SUPPORT_WRITE = ["admin", "apiwrite", "engineering"];
/** Methods whose JSON body carries the params (docs/platform-rules.md#object-parameters-on-get covers GET). */
exports.BODY_METHODS = ["POST", "PUT", "PATCH"];
function defineService(name, actions) {
    return { name, actions };
}
//# sourceMappingURL=define.js.map