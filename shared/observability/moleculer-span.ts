/**
 * What an OpenTelemetry span takes of a finished Moleculer span: its ids as hex, its tags as
 * flattened attributes, its kind, its error and its component. One home for these rules: both
 * ways a span leaves (a `ReadableSpan` for the SDK's processor, ../telemetry.ts, or its OTLP bytes,
 * ./span-bytes.ts) read them here.
 */
import { createHash } from "node:crypto";
import { SpanKind } from "@opentelemetry/api";

/** A finished Moleculer span, as its tracer hands it to the exporters. */
export interface MoleculerSpan {
  id: string;
  traceID: string;
  parentID?: string;
  name: string;
  type?: string;
  startTime: number;
  finishTime: number;
  tags: Record<string, unknown>;
  error?: { name?: string; message?: string } | null;
  service?: { name?: string; fullName?: string };
}

/**
 * Moleculer's ids are UUIDs (32 hex digits once the dashes go), but the trace id is the request id,
 * which a caller may choose (X-Request-ID): anything else is hashed into a valid id.
 */
const HEX32 = /^[0-9a-f]{32}$/;
/**
 * Ids hex'd lately, for sampled spans: the spans of a request share its trace id and name a recent
 * span as parent, and the conversion (a regex, or a hash) was 1% of a fully traced request's CPU.
 * Bounded: emptied at 1,024 entries (request ids may be a caller's).
 */
const hexIds = new Map<string, string>();
/** Contexts' and spans' own ids (../context-ids.ts): their hex digits are read off without the cache. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export function hexId(id: string, length: 32 | 16): string {
  // A new span id missed the cache every time (about 1 µs: replace, lower-case, test, store).
  if (UUID.test(id))
    return length === 16
      ? id.slice(0, 8) + id.slice(9, 13) + id.slice(14, 18)
      : id.slice(0, 8) + id.slice(9, 13) + id.slice(14, 18) + id.slice(19, 23) + id.slice(24);
  let hex = hexIds.get(id);
  if (hex === undefined) {
    const plain = id.replace(/-/g, "").toLowerCase();
    hex = HEX32.test(plain) ? plain : createHash("sha256").update(id).digest("hex").slice(0, 32);
    if (hexIds.size >= 1024) hexIds.clear();
    hexIds.set(id, hex);
  }
  return hex.slice(0, length);
}
export const traceIdOf = (id: string) => hexId(id, 32);
export const spanIdOf = (id: string) => hexId(id, 16);

/** An attribute's flattened name and value; answers false to stop the walk. */
export type AttributeVisit = (name: string, value: string | number | boolean) => boolean;

/**
 * The dotted names made lately, by prefix and key. A span's nested tags repeat a few names
 * (`action.name`, `options.timeout`), and a name built again for each span was a new string each
 * time: joined, then flattened and hashed by whoever read it (docs/performance-rounds.md,
 * forty-fifth round). Bounded: emptied at DOTTED_NAMES (a caller's tags may hold any key).
 */
const dotted = new Map<string, Map<string, string>>();
const DOTTED_NAMES = 1024;
let dottedNames = 0;
function dottedName(prefix: string, key: string): string {
  let names = dotted.get(prefix);
  let name = names?.get(key);
  if (name !== undefined) return name;
  name = `${prefix}.${key}`;
  if (dottedNames >= DOTTED_NAMES) {
    dotted.clear();
    dottedNames = 0;
    names = undefined;
  }
  if (!names) dotted.set(prefix, (names = new Map()));
  names.set(key, name);
  dottedNames++;
  return name;
}

/**
 * Moleculer's span tags as OpenTelemetry attributes, in order: nested objects flattened to dotted
 * names, null and undefined left out, arrays and other kinds dropped. False if `visit` stopped it,
 * or, `unique` asked, at a key that could make a name twice (one with a dot, or an empty one, whose
 * object is flattened without a prefix).
 */
export function flattenTags(
  tags: Record<string, unknown> | null | undefined,
  visit: AttributeVisit,
  unique = false,
  prefix = "",
): boolean {
  if (tags === null || tags === undefined) return true;
  // `for...in` over own keys: Object.keys' order, without its array.
  for (const key in tags) {
    if (!Object.prototype.hasOwnProperty.call(tags, key)) continue;
    if (unique && (key === "" || key.includes("."))) return false;
    const value = tags[key];
    if (value === null || value === undefined) continue;
    const name = prefix ? dottedName(prefix, key) : key;
    if (typeof value === "object" && !Array.isArray(value)) {
      if (!flattenTags(value as Record<string, unknown>, visit, unique, name)) return false;
    } else if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
      if (!visit(name, value)) return false;
    }
  }
  return true;
}

/** The attribute naming the span's service, added after its tags. */
export const COMPONENT = "service.component";
export const componentOf = (span: MoleculerSpan): string =>
  span.service?.fullName ?? span.service?.name ?? "";

/** A request's root action is the server's span; every other span is internal. */
export const kindOf = (span: MoleculerSpan): SpanKind =>
  span.type === "action" && !span.parentID ? SpanKind.SERVER : SpanKind.INTERNAL;

/** The span's status message when it failed. */
export const errorOf = (span: MoleculerSpan): string | undefined =>
  span.error ? `${span.error.name ?? "Error"}: ${span.error.message ?? ""}` : undefined;
