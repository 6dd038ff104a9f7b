/**
 * The real product's answer envelope for its newer routes (`/operations-manager/automations`,
 * `/operations-manager/triggers`, job reads): `{message, data, metadata}`. Its clients (itential-mcp,
 * ipctl) read `data`, page with `metadata.total`, and log `message`; one builder keeps every such
 * route answering the same shape (docs/compatibility.md#scheduler).
 */
import { integer, nullable, shape, str, type InferRule, type Rule } from "./contracts/schema";

export const pageMetadataProps = {
  skip: integer,
  limit: integer,
  total: integer,
  /** The `skip` of the next page, or null on the last page. */
  nextPageSkip: nullable(integer),
  /** The `skip` of the previous page, or null on the first page. */
  previousPageSkip: nullable(integer),
  currentPageSize: integer,
} as const;
export const pageMetadataSchema = shape(pageMetadataProps);
export type PageMetadata = InferRule<typeof pageMetadataSchema>;

const emptyMetadata = shape({});

/** The result schema of an envelope around `data` (metadata empty unless given). */
export const envelopeOf = <const D extends Rule, const M extends Rule = typeof emptyMetadata>(
  data: D,
  metadata?: M,
) => shape({ message: str, data, metadata: (metadata ?? emptyMetadata) as M });

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
