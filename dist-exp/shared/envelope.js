"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.envelopeOf = exports.pageMetadataSchema = exports.pageMetadataProps = void 0;
exports.itemEnvelope = itemEnvelope;
exports.pageEnvelope = pageEnvelope;
/**
 * The real product's answer envelope for its newer routes (`/operations-manager/automations`,
 * `/operations-manager/triggers`, job reads): `{message, data, metadata}`. Its clients (itential-mcp,
 * ipctl) read `data`, page with `metadata.total`, and log `message`; one builder keeps every such
 * route answering the same shape (docs/compatibility.md#scheduler).
 */
const schema_1 = require("./contracts/schema");
exports.pageMetadataProps = {
    skip: schema_1.integer,
    limit: schema_1.integer,
    total: schema_1.integer,
    /** The `skip` of the next page, or null on the last page. */
    nextPageSkip: (0, schema_1.nullable)(schema_1.integer),
    /** The `skip` of the previous page, or null on the first page. */
    previousPageSkip: (0, schema_1.nullable)(schema_1.integer),
    currentPageSize: schema_1.integer,
};
exports.pageMetadataSchema = (0, schema_1.shape)(exports.pageMetadataProps);
const emptyMetadata = (0, schema_1.shape)({});
/** The result schema of an envelope around `data` (metadata empty unless given). */
const envelopeOf = (data, metadata) => (0, schema_1.shape)({ message: schema_1.str, data, metadata: (metadata ?? emptyMetadata) });
exports.envelopeOf = envelopeOf;
/** One item (or an answer that is not a list): empty metadata. */
function itemEnvelope(message, data) {
    return { message, data, metadata: {} };
}
/** One page of a list, with where the neighbouring pages start. */
function pageEnvelope(message, data, page) {
    const { skip, limit, total } = page;
    return {
        message,
        data,
        metadata: {
            skip,
            limit,
            total,
            nextPageSkip: skip + data.length < total && data.length > 0 ? skip + limit : null,
            previousPageSkip: skip > 0 ? Math.max(0, skip - limit) : null,
            currentPageSize: data.length,
        },
    };
}
//# sourceMappingURL=envelope.js.map