/**
 * Field paths of job queries, and what a query's text means on each of them.
 *
 * Paths are dot paths into the job document (`metrics.start_time`, `tasks.a1.status`). A segment
 * that starts with `$` (or an empty segment) is refused, so no query key can become an operator.
 *
 * Values arrive as text on a query string (or as JSON numbers/booleans in a body). A job's fields
 * have fixed types (model.ts), so the text is coerced to the type of the field it is compared with:
 *   - number fields (epoch ms and counters, NUMBER_PATHS): numeric text is a number; ISO 8601 date
 *     text is its epoch ms, so `gt[metrics.start_time]=2026-01-01T00:00:00Z` works;
 *   - date fields (ISO strings, DATE_PATHS): date text is normalized to the stored form
 *     (`toISOString()`, UTC, milliseconds); a number is taken as epoch ms;
 *   - text fields (everything known else): the text as is;
 *   - any other path (job variables, task outgoing values): equality and in/not-in match the text
 *     and also its number / boolean when the text is one (`"5"` matches 5 and "5"); ranges compare
 *     numbers when the text is numeric, text otherwise.
 */
import { isHiddenPath } from "../../../shared/client-filter";
import { JOB_HIDDEN_PATHS } from "./public-job";
import { invalidField } from "../../../shared/errors";

export type FieldKind = "number" | "date" | "text" | "any";

/** `*` stands for any one segment (a task id). */
const NUMBER_PATHS = [
  "metrics.start_time",
  "metrics.end_time",
  "metrics.progress",
  "metrics.manual_time",
  "sla",
  "preAutomationTime",
  "canvasVersion",
  "font_size",
  "version",
  "error.timestamp",
  "error.message.code",
  "tasks.*.end_time",
  "tasks.*.wakeAt",
  "tasks.*.x",
  "tasks.*.y",
  "tasks.*.retrySettings.limit",
  "tasks.*.retrySettings.delay",
  "tasks.*.retrySettings.count",
];
const DATE_PATHS = ["created", "last_updated", "tasks.*.start_time"];
const TEXT_PATHS = [
  "_id",
  "type",
  "name",
  "description",
  "status",
  "workflow._id",
  "workflow.name",
  "groups",
  "watchers",
  "ancestors",
  "created_by",
  "last_updated_by",
  "lastUpdatedVersion",
  "metrics.user",
  "metrics.owner",
  "error.task",
  "decorators.type",
  "decorators.pointer",
  "tasks.*.name",
  "tasks.*.type",
  "tasks.*.app",
  "tasks.*.status",
  "tasks.*.finish_state",
  "tasks.*.summary",
  "tasks.*.description",
  "tasks.*.displayName",
  "tasks.*.location",
];

function matches(pattern: string, path: string): boolean {
  const p = pattern.split(".");
  const s = path.split(".");
  return p.length === s.length && p.every((seg, i) => seg === "*" || seg === s[i]);
}

export function kindOf(path: string): FieldKind {
  if (NUMBER_PATHS.some((p) => matches(p, path))) return "number";
  if (DATE_PATHS.some((p) => matches(p, path))) return "date";
  if (TEXT_PATHS.some((p) => matches(p, path))) return "text";
  return "any";
}

/**
 * Throws 400 unless `path` is a plain dot path (no `$` segment, no empty segment) that names
 * nothing a job answer never shows (`runAs`, a task's `claim`, ...: public-job.ts).
 */
export function checkPath(path: string, field: string): string {
  const segments = path.split(".");
  const control = [...path].some((c) => c.charCodeAt(0) < 0x20);
  if (control || segments.some((s) => s === "" || s.startsWith("$"))) {
    throw invalidField(
      field,
      `'${path}' is not a field path: use dot-separated field names, none empty or starting with '$'`,
      "fieldPath",
    );
  }
  if (isHiddenPath(path, JOB_HIDDEN_PATHS))
    throw invalidField(field, `'${path}' is not a field the API answers: it cannot be queried`, "hidden");
  return path;
}

const NUMERIC = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/** Epoch ms of ISO 8601 text (a date-time without offset is UTC), or undefined. */
export function parseIsoDate(text: string): number | undefined {
  const trimmed = text.trim();
  if (!ISO_DATE.test(trimmed)) return undefined;
  const zoned = /T/i.test(trimmed) && !/(Z|[+-]\d{2}:?\d{2})$/i.test(trimmed) ? `${trimmed}Z` : trimmed;
  const ms = Date.parse(zoned);
  if (Number.isNaN(ms)) return undefined;
  // Date.parse rolls an impossible day over (2026-02-30 is 2 March): the calendar date must survive.
  const [year, month, day] = trimmed.slice(0, 10).split("-").map(Number);
  const calendar = new Date(Date.UTC(year, month - 1, day));
  if (
    calendar.getUTCFullYear() !== year ||
    calendar.getUTCMonth() !== month - 1 ||
    calendar.getUTCDate() !== day
  )
    return undefined;
  return ms;
}

export type Scalar = string | number | boolean;

/** The value to compare a `kind` field with; throws 400 (on `field`) when the text cannot be one. */
export function coerceTo(kind: FieldKind, value: Scalar, field: string): Scalar {
  switch (kind) {
    case "number": {
      if (typeof value === "number") return value;
      if (typeof value === "string" && NUMERIC.test(value.trim())) return Number(value);
      const ms = typeof value === "string" ? parseIsoDate(value) : undefined;
      if (ms !== undefined) return ms;
      throw invalidField(field, `'${String(value)}' is not a number or an ISO 8601 date`, "number");
    }
    case "date": {
      let ms: number | undefined;
      if (typeof value === "number") ms = value;
      else if (typeof value === "string")
        ms = NUMERIC.test(value.trim()) ? Number(value) : parseIsoDate(value);
      if (ms === undefined || !Number.isFinite(ms) || Number.isNaN(new Date(ms).getTime()))
        throw invalidField(
          field,
          `'${String(value)}' is not an ISO 8601 date (or epoch milliseconds)`,
          "date",
        );
      return new Date(ms).toISOString();
    }
    case "text":
      return String(value);
    default:
      return value;
  }
}

/** Every value an `any` field may hold for this text: the text, and its number or boolean. */
export function alternatives(value: Scalar): Scalar[] {
  if (typeof value !== "string") return [value];
  const trimmed = value.trim();
  if (NUMERIC.test(trimmed)) return [value, Number(trimmed)];
  if (trimmed === "true" || trimmed === "false") return [value, trimmed === "true"];
  return [value];
}

/** For ranges on an `any` field: numbers when the text is numeric, the text otherwise. */
export function rangeValue(value: Scalar): Scalar {
  return typeof value === "string" && NUMERIC.test(value.trim()) ? Number(value.trim()) : value;
}
