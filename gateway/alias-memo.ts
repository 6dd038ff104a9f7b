/**
 * moleculer-web finds a request's alias by trying each alias's pattern in turn, well over a
 * hundred here. A path that resolved to an alias without parameters resolves the same way until
 * the aliases change (moleculer-web replaces or appends to its list when routes change), so that
 * answer is remembered: per method and path, at most MAX_REMEMBERED of them. Paths with ids
 * resolve to parameterized aliases, which are never remembered.
 */
type Alias = { keys: unknown[] };
type Found = { alias: Alias; params: Record<string, string> };

const MAX_REMEMBERED = 1000;

export class AliasMemo {
  private remembered = new Map<string, Alias>();
  private list: unknown[] | undefined;
  private length = 0;

  resolve(
    aliases: unknown[],
    url: string,
    method: string,
    scan: (url: string, method: string) => Found | false,
  ): Found | false {
    if (aliases !== this.list || aliases.length !== this.length) {
      this.remembered.clear();
      this.list = aliases;
      this.length = aliases.length;
    }
    const key = `${method} ${url}`;
    const alias = this.remembered.get(key);
    // A fresh params object each time: moleculer-web merges into what it is given.
    if (alias) return { alias, params: {} };
    const found = scan(url, method);
    if (found && found.alias.keys.length === 0 && this.remembered.size < MAX_REMEMBERED)
      this.remembered.set(key, found.alias);
    return found;
  }
}
