/**
 * moleculer-web finds a request's alias by trying each alias's pattern in turn, well over a
 * hundred here. Two shorter ways, both answering what that scan answers:
 *
 * - A path that resolved to an alias without parameters resolves the same way until the aliases
 *   change (moleculer-web replaces or appends to its list when routes change), so that answer is
 *   remembered: per method and path, at most MAX_REMEMBERED of them.
 * - Paths with ids (parameterized aliases, never remembered) are tried only against the aliases
 *   that can match them: those of the method whose first path segment is the path's, in their
 *   order, with those whose first segment is not a plain word (a parameter, a pattern) kept in
 *   every list. path-to-regexp matches case-insensitively, and an ASCII letter of a pattern only
 *   ever matches the same letter in either case, so a plain word is compared in lower case.
 *
 * The gateway's onBeforeCall needs the path parameters apart from the body and query moleculer-web
 * merged them into: `paramsOf` answers them without matching the path again (a pattern's
 * regular expression, its parameters decoded, a new object) when the alias has no parameters, or
 * when the path is the one last resolved to that alias (params depend on the alias and path only).
 */
type Alias = {
  keys: unknown[];
  method: string;
  fullPath: string;
  isMethod(method: string): boolean;
  match(url: string): Record<string, unknown> | false;
  toString(): string;
};
type Found = { alias: Alias; params: Record<string, unknown> };

const MAX_REMEMBERED = 1000;

/** Aliases whose text is built (textOnce). */
const withText = new WeakSet<object>();

/**
 * moleculer-web logs every request's alias at debug level with `alias.toString()` as the argument,
 * built (kleur's colours, a padStart, five concatenations) before the logger looks at its level. The
 * text depends on the alias alone (kleur's colour switch is read once, at its import), so each
 * alias's is built once and answered from then on.
 */
function textOnce(alias: Alias): void {
  if (withText.has(alias)) return;
  const text = alias.toString();
  alias.toString = () => text;
  withText.add(alias);
}
/** Methods indexed at most: OPTIONS resolves by a header's method, any text. */
const MAX_METHODS = 32;
/** A first segment path-to-regexp reads as itself and nothing else. */
const PLAIN_WORD = /^[A-Za-z0-9_-]+$/;

/** The aliases of one method, by the first segment they can match. */
interface MethodIndex {
  byFirst: Map<string, Alias[]>;
  /** The aliases whose first segment is not a plain word: the list for any other first segment. */
  others: Alias[];
}

/** The first path segment of `path` ("/a/b" -> "a"), or undefined when it does not start with "/". */
function firstSegment(path: string): string | undefined {
  if (path[0] !== "/") return undefined;
  const end = path.indexOf("/", 1);
  return end === -1 ? path.substring(1) : path.substring(1, end);
}

/** The plain word an alias's path starts with, lower-cased; undefined when it starts otherwise. */
function plainFirst(alias: Alias): string | undefined {
  const first = typeof alias.fullPath === "string" ? firstSegment(alias.fullPath) : undefined;
  // A segment holding a pattern ("a{b}", "a:b", "(.*)", "*") is not a plain word.
  if (first === undefined || !PLAIN_WORD.test(first)) return undefined;
  return first.toLowerCase();
}

export class AliasMemo {
  private remembered = new Map<string, Alias>();
  private byMethod = new Map<string, MethodIndex>();
  private list: unknown[] | undefined;
  private length = 0;
  /** The last path resolved to an alias with parameters, and its params (read, never changed). */
  private last: { alias: Alias; url: string; params: Record<string, unknown> } | undefined;

  resolve(
    aliases: unknown[],
    url: string,
    method: string,
    scan: (url: string, method: string) => Found | false,
  ): Found | false {
    if (aliases !== this.list || aliases.length !== this.length) {
      this.remembered.clear();
      this.byMethod.clear();
      this.list = aliases;
      this.length = aliases.length;
    }
    const key = `${method} ${url}`;
    const alias = this.remembered.get(key);
    // A fresh params object each time: moleculer-web merges into what it is given.
    if (alias) return { alias, params: {} };
    const found = this.scanCandidates(aliases as Alias[], url, method) ?? scan(url, method);
    if (found) textOnce(found.alias);
    if (found && found.alias.keys.length === 0 && this.remembered.size < MAX_REMEMBERED)
      this.remembered.set(key, found.alias);
    // moleculer-web only reads found.params (it merges them into the request's params).
    if (found && found.alias.keys.length > 0) this.last = { alias: found.alias, url, params: found.params };
    return found;
  }

  /**
   * The path parameters of `url` under `alias` (which matched it), as `alias.match(url)` answers
   * them; a fresh object every time, as that one is.
   */
  paramsOf(alias: Alias, url: string): Record<string, unknown> {
    if (alias.keys.length === 0) return {};
    const last = this.last;
    if (last !== undefined && last.alias === alias && last.url === url) return { ...last.params };
    return alias.match(url) || {};
  }

  /** moleculer-web's scan over the aliases that can match; undefined when there is no index for it. */
  private scanCandidates(aliases: Alias[], url: string, method: string): Found | false | undefined {
    const first = firstSegment(url);
    if (first === undefined) return undefined;
    const index = this.indexOf(aliases, method);
    if (!index) return undefined;
    const candidates = index.byFirst.get(first.toLowerCase()) ?? index.others;
    for (const alias of candidates) {
      const params = alias.match(url);
      if (params) return { alias, params };
    }
    return false;
  }

  private indexOf(aliases: Alias[], method: string): MethodIndex | undefined {
    let index = this.byMethod.get(method);
    if (index || this.byMethod.size >= MAX_METHODS) return index;
    const ofMethod = aliases.filter((alias) => alias.isMethod(method));
    const words = new Set<string>();
    for (const alias of ofMethod) {
      const word = plainFirst(alias);
      if (word !== undefined) words.add(word);
    }
    const byFirst = new Map<string, Alias[]>();
    for (const word of words)
      byFirst.set(
        word,
        ofMethod.filter((alias) => {
          const own = plainFirst(alias);
          return own === undefined || own === word;
        }),
      );
    index = { byFirst, others: ofMethod.filter((alias) => plainFirst(alias) === undefined) };
    this.byMethod.set(method, index);
    return index;
  }
}
