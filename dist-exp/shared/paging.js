"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.MAX_PAGE_SIZE = exports.DEFAULT_PAGE_SIZE = void 0;
exports.pageLimit = pageLimit;
/**
 * Paging, the same for every list the platform answers: a page holds DEFAULT_PAGE_SIZE items unless
 * the caller asks for another size, and never more than MAX_PAGE_SIZE (a larger request is capped,
 * not refused, as the real product does).
 */
exports.DEFAULT_PAGE_SIZE = 25;
exports.MAX_PAGE_SIZE = 1000;
/** The page size to use for a requested `limit`. */
function pageLimit(requested) {
    return Math.min(requested ?? exports.DEFAULT_PAGE_SIZE, exports.MAX_PAGE_SIZE);
}
//# sourceMappingURL=paging.js.map