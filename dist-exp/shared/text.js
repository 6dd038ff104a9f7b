"use strict";
/** Text helpers shared by the services. */
Object.defineProperty(exports, "__esModule", { value: true });
exports.escapeRegex = escapeRegex;
exports.nowIso = nowIso;
/** Escapes every regex metacharacter: user text is data, never a pattern. */
function escapeRegex(text) {
    return text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}
function nowIso() {
    return new Date().toISOString();
}
//# sourceMappingURL=text.js.map