/**
 * The real product's answer envelope for its newer routes (`/operations-manager/automations`,
 * `/operations-manager/triggers`, job reads): `{message, data, metadata}`. Its clients (itential-mcp,
 * ipctl) read `data`, page with `metadata.total`, and log `message`; one builder keeps every such
 * route answering the same shape (docs/compatibility.md#scheduler).
 */

export interface PageMetadata {
  skip: number;
  limit: number;
  total: number;
  /** The `skip` of the next page, or null on the last page. */
  nextPageSkip: number | null;
  /** The `skip` of the previous page, or null on the first page. */
  previousPageSkip: number | null;
  currentPageSize: number;
}

export interface Envelope<T, M = Record<string, never>> {
  message: string;
  data: T;
  metadata: M;
}

/** One item (or an answer that is not a list): empty metadata. */
export function itemEnvelope<T>(message: string, data: T): Envelope<T> {
  return { message, data, metadata: {} };
}

/** One page of a list, with where the neighbouring pages start. */
export function pageEnvelope<T>(
  message: string,
  data: T[],
  page: { skip: number; limit: number; total: number },
): Envelope<T[], PageMetadata> {
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
