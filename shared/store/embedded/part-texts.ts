/**
 * The texts of a hot document's parts, kept from the writes that set them, so that it goes cold
 * (doc-map.ts) with a text put together from them instead of serialized whole.
 *
 * Why: the write that ends a job holds it cold at once (its `settled` hint), with its JSON text;
 * a finished job of 10 steps is about 6 KB of text, 79 % of it its tasks, and each task's text was
 * known when the transition that set it was written (the engine hands it over frozen with its text,
 * shared/frozen-json.ts; a value that came over the bus was serialized for the write's log line).
 * Serializing the whole job again was about 4 % of a transition's instructions (twenty-eighth round,
 * docs/performance-rounds.md); putting the kept texts together with the rest's saves about a fifth
 * of that (the rest is still serialized, and the walk, the join and the parts' bookkeeping cost
 * about a third of what the tasks' texts save: twenty-ninth round).
 *
 * A part is a value a fast update set (`$set` of an object at a plain dotted path), with its text:
 * JSON.stringify of that very value, byte for byte (fast-update.ts setStep: the maker's text of a
 * frozen value, or the text the value was parsed back from). Stored values are never changed, only
 * replaced (table.ts), so a part whose value is still the document's at its path is still its text.
 * test/store/part-texts.test.ts holds composedText to JSON.stringify over random writes.
 */
import type { StoredDoc } from "./table";

/** A value a write set at `path` (split: `parts`) and its JSON text. */
export interface PartText {
  readonly path: string;
  readonly parts: readonly string[];
  readonly value: object;
  readonly text: string;
}

/**
 * Parts kept a document, at most: a job has one a task and a few more. Past it the oldest go (the
 * document's text is then made with fewer of them).
 */
export const MAX_PARTS = 64;

/** Text kept beyond twice what was live at the last check, at most, before the next check. */
const SLACK_CHARS = 64 * 1024;

/**
 * A hot document's kept parts: the newest text of each path written, with their texts' length in
 * all. A write that sets a path again replaces its part; a write on a path through a part (or
 * above it, or its $unset) leaves that part stale (no longer the document's value there), which
 * composedText then skips. The stale ones are dropped by a check of every part against the
 * document, made when the texts kept come to more than twice what the last check found live (and
 * SLACK_CHARS) or to more than MAX_PARTS parts: so never much more text than the document's own,
 * and no walk of the document at each write (the engine sets whole tasks, path for path).
 */
export class KeptParts {
  private parts: PartText[] = [];
  private chars = 0;
  private checked = 0;

  /** The parts kept (some maybe stale: composedText checks each). */
  get all(): readonly PartText[] {
    return this.parts;
  }

  /** Adds `added`, the parts of the write that stored `doc`; answers whether any part is kept. */
  add(doc: StoredDoc, added: readonly PartText[]): boolean {
    const parts = this.parts;
    for (let i = 0; i < added.length; i++) {
      const part = added[i];
      let at = parts.length - 1;
      while (at >= 0 && parts[at].path !== part.path) at--;
      if (at >= 0) {
        this.chars += part.text.length - parts[at].text.length;
        parts[at] = part;
      } else {
        this.chars += part.text.length;
        parts.push(part);
      }
    }
    if (parts.length > MAX_PARTS || this.chars > 2 * this.checked + SLACK_CHARS) this.check(doc);
    return this.parts.length > 0;
  }

  /** Keeps the parts `doc` still holds, the newest MAX_PARTS of them. */
  private check(doc: StoredDoc): void {
    const live = this.parts.filter((part) => valueAt(doc, part.parts) === part.value);
    this.parts = live.length > MAX_PARTS ? live.slice(live.length - MAX_PARTS) : live;
    this.chars = 0;
    for (const part of this.parts) this.chars += part.text.length;
    this.checked = this.chars;
  }
}

/** The value at `parts` of `doc` through plain objects, or undefined. */
function valueAt(doc: StoredDoc, parts: readonly string[]): unknown {
  let at: unknown = doc;
  for (const part of parts) {
    if (!isRecord(at) || !Object.hasOwn(at, part)) return undefined;
    at = at[part];
  }
  return at;
}

/** A level of the parts' paths: the part ending here, and the levels below, by segment. */
interface Level {
  part?: PartText;
  below?: Map<string, Level>;
}

/**
 * `JSON.stringify(doc)`, the text of each part still at its path (the very value) put in its
 * place. Only plain objects on the way to a part are walked member by member (the order and the
 * members JSON.stringify writes); everything else is JSON.stringify's own text. Flat: the pieces
 * are joined once, so a cold document is one string that a GC's marking does not enter.
 */
export function composedText(doc: StoredDoc, parts: readonly PartText[]): string {
  const root: Level = {};
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    let level = root;
    // Segments, not the dotted path: a member named "a.b" is never the path a -> b.
    for (const segment of part.parts) {
      level.below ??= new Map();
      let next = level.below.get(segment);
      if (next === undefined) level.below.set(segment, (next = {}));
      level = next;
    }
    level.part = part;
  }
  if (root.below === undefined || !isRecord(doc)) return JSON.stringify(doc);
  const pieces: string[] = [];
  writeRecord(doc, root.below, pieces);
  return pieces.join("");
}

function writeValue(value: unknown, level: Level | undefined, pieces: string[]): void {
  if (level?.part !== undefined && level.part.value === value) pieces.push(level.part.text);
  else if (level?.below !== undefined && isRecord(value)) writeRecord(value, level.below, pieces);
  else pieces.push(JSON.stringify(value));
}

/**
 * A plain object's text, as JSON.stringify writes it, its members at `below` written by writeValue.
 * (A memo of the members' starts and numbers written without JSON.stringify saved a little more of
 * the serializer's work but cost the compilers more than that: twenty-ninth round.)
 */
function writeRecord(record: Record<string, unknown>, below: Map<string, Level>, pieces: string[]): void {
  let first = true;
  for (const key of Object.keys(record)) {
    const value = record[key];
    // JSON.stringify leaves out members it cannot write.
    if (value === undefined || typeof value === "function" || typeof value === "symbol") continue;
    pieces.push(first ? `{${JSON.stringify(key)}:` : `,${JSON.stringify(key)}:`);
    first = false;
    writeValue(value, below.get(key), pieces);
  }
  pieces.push(first ? "{}" : "}");
}

/** An object JSON.stringify writes member by member: no array, no toJSON, a plain prototype. */
function isRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return (
    (proto === Object.prototype || proto === null) &&
    typeof (value as { toJSON?: unknown }).toJSON !== "function"
  );
}
