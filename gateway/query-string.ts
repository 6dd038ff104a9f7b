/**
 * A request's query string, as qs (moleculer-web's parser) answers it, without qs for the common
 * case. qs costs more than the rest of routing for a plain `?limit=10`: it builds and merges an
 * object per pair to support `a[b]=1` nesting. A query of at most MAX_PLAIN_PAIRS plain
 * `key=value` pairs (no bracket, no repeated key, no empty key, no key that Object.prototype
 * holds) is split here, with qs's own decoding; for anything else this answers undefined and the
 * gateway asks moleculer-web's qs, which stays the one authority on the rest
 * (test/unit/query-string.test.ts holds the two to the same answers).
 */

const MAX_PLAIN_PAIRS = 20;
/** qs turns `%5B`/`%5D` into brackets before it splits: either form means nesting. */
const NESTING = /[[\]]|%5[bd]/i;

export function plainQuery(text: string): Record<string, string> | undefined {
  if (text === "") return {};
  if (NESTING.test(text)) return undefined;
  const pairs = text.split("&", MAX_PLAIN_PAIRS + 1);
  if (pairs.length > MAX_PLAIN_PAIRS) return undefined;
  const query: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    const key = decode(eq === -1 ? pair : pair.slice(0, eq));
    // qs drops these, or combines repeats into arrays (or objects, past its array limit).
    if (key === "" || Object.hasOwn(query, key) || Object.hasOwn(Object.prototype, key)) return undefined;
    query[key] = eq === -1 ? "" : decode(pair.slice(eq + 1));
  }
  return query;
}

/** qs's utf-8 decoder: `+` is a space, and a malformed escape leaves the text as it is. */
function decode(text: string): string {
  const spaced = text.includes("+") ? text.replace(/\+/g, " ") : text;
  if (!spaced.includes("%")) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}
