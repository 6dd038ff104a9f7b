"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.healthQuerySchema = void 0;
exports.healthPage = healthPage;
/**
 * The real product's health reads (`/health/adapters`, `/health/applications`, `/applications`)
 * answer `{results, total}` and take `equals` with `equalsField`, `skip`, `limit`, `sort` and
 * `order`: one home for that rule (docs/compatibility.md#health-and-applications).
 */
const paging_1 = require("./paging");
const queryProps = {
    equals: { type: "string", max: 256, optional: true },
    equalsField: { type: "enum", values: ["id", "package_id", "state"], optional: true },
    skip: { type: "number", integer: true, min: 0, optional: true, convert: true },
    limit: { type: "number", integer: true, min: 1, optional: true, convert: true },
    sort: { type: "enum", values: ["id", "package_id", "state"], optional: true },
    order: { type: "enum", values: [1, -1], optional: true, convert: true },
};
/**
 * The params schema of such a read: its fields are `id`, `package_id` and `state`. The query comes
 * flat (`?equals=x&equalsField=id`) or wrapped as `queryOptions` (a JSON body on the GET, as the
 * itential-iap-sdk sends `{"queryOptions": {"sort": "id", "limit": 25}}`); flat members win.
 */
exports.healthQuerySchema = {
    ...queryProps,
    queryOptions: { type: "object", optional: true, strict: "remove", props: queryProps },
};
function healthPage(entries, query) {
    const { queryOptions, ...flat } = query;
    const merged = { ...queryOptions, ...flat };
    const { equals, equalsField = "id", skip = 0, limit, sort = "id", order = 1 } = merged;
    const kept = equals === undefined ? [...entries] : entries.filter((e) => String(e[equalsField]) === equals);
    kept.sort((a, b) => order * String(a[sort]).localeCompare(String(b[sort])));
    return { results: kept.slice(skip, skip + (0, paging_1.pageLimit)(limit)), total: kept.length };
}
//# sourceMappingURL=health-query.js.map