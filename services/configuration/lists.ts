/**
 * What the configuration lists share (backups.ts, history.ts): the time range of a list. Pages are
 * `{results, total, skip, limit}`, `limit` as every list (shared/paging.ts).
 */
import { invalidField } from "../../shared/errors";

/**
 * A list's time range as a filter on `timestamp`: `from` included, `to` excluded, each read as a
 * date (ISO 8601; UTC unless it names an offset) and compared as the stored UTC text (nowIso), so
 * `to=2026-11-26` ends with the 25th. A value that is no date (2026-02-30) is a 400 naming its field.
 */
export function timeRange(
  from: string | undefined,
  to: string | undefined,
): Record<string, string> | undefined {
  const range: Record<string, string> = {};
  for (const [field, op, value] of [
    ["from", "$gte", from],
    ["to", "$lt", to],
  ] as const) {
    if (value === undefined) continue;
    // The contract's pattern admits only ISO forms; one with a time and no offset is UTC, not local.
    const utc = /[T ]\d{2}:\d{2}[\d:.]*$/.test(value) ? `${value.replace(" ", "T")}Z` : value;
    const time = Date.parse(utc);
    if (Number.isNaN(time) || !realDay(value))
      throw invalidField(
        field,
        `The '${field}' field must be an ISO 8601 date or time (2026-11-25T10:00:00Z).`,
        "date",
      );
    range[op] = new Date(time).toISOString();
  }
  return Object.keys(range).length > 0 ? range : undefined;
}

/** The text's day exists (Date.parse rolls 2026-02-30 over to March 2). */
function realDay(value: string): boolean {
  const [year, month, day] = value.slice(0, 10).split("-").map(Number);
  const probe = new Date(Date.UTC(year, month - 1, day));
  return probe.getUTCMonth() === month - 1 && probe.getUTCDate() === day;
}
