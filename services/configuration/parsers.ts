/**
 * Config parsers (spec operation 6; docs/configuration-manager.md#parsers). A parser names how a
 * device's config text becomes a tree of lines: a built-in (ios, ios-xr, nx-os, eos by indentation;
 * junos by braces) or a user parser extending one through `template`, adding `[regex, token]` lex
 * rules. Every regex runs on RE2 (shared/user-regex.ts) and is checked for it before it is stored. Built-ins are stored like any
 * parser (so the list reads the store) but cannot be changed or deleted.
 */
import { LEX_TOKENS, type ParserRecord } from "../../shared/contracts/configuration";
import { ConflictError, invalidField, NotFoundError } from "../../shared/errors";
import { pageLimit } from "../../shared/paging";
import { escapeRegex, nowIso } from "../../shared/text";
import { userRegex, type UserRegex } from "../../shared/user-regex";
import { DuplicateKeyError, type Sort } from "../../shared/store/types";
import { parseBraces, parseIndented, type ConfigLine } from "./config-tree";
import { withId } from "./answers";
import type { ParserChanges } from "./parsers.repository";
import type { ConfigurationService, Ctx } from "./types";

const IOS_RULES: [string, string][] = [
  ["^\\s*!.*$", "comment"],
  ["^\\s+", "whitespace"],
  ["\\S+", "word"],
  ["\\n", "end_line"],
];
const JUNOS_RULES: [string, string][] = [
  ["^\\s*(#|/\\*).*$", "comment"],
  ["\\{$", "block_start"],
  ["^\\s*\\}$", "block_end"],
  [";$", "end_line"],
  ["[^\\s;{}]+", "word"],
];

export const BUILT_IN_PARSERS: {
  name: string;
  style: ParserRecord["style"];
  lexRules: [string, string][];
}[] = [
  { name: "ios", style: "indent", lexRules: IOS_RULES },
  { name: "ios-xr", style: "indent", lexRules: IOS_RULES },
  { name: "nx-os", style: "indent", lexRules: IOS_RULES },
  { name: "eos", style: "indent", lexRules: IOS_RULES },
  { name: "junos", style: "braces", lexRules: JUNOS_RULES },
];

/** How many templates a parser may stack on a built-in. */
const MAX_TEMPLATE_DEPTH = 8;

/** Stores the built-ins once; every replica tries, the unique name index keeps one of each. */
export async function seedBuiltInParsers(this: ConfigurationService): Promise<void> {
  const created = nowIso();
  for (const builtIn of BUILT_IN_PARSERS) {
    try {
      await this.parsers.create({ ...builtIn, template: null, builtIn: true, created, lastUpdated: created });
    } catch (err) {
      if (!(err instanceof DuplicateKeyError)) throw err;
    }
  }
}

/** The parser a device type reads with when a tree names none. */
export function defaultParserFor(deviceType: string): string {
  const t = deviceType.toLowerCase();
  if (/junos|juniper|\bmx\b|\bsrx\b|\bqfx\b|\bex\b/.test(t)) return "junos";
  if (/xr/.test(t)) return "ios-xr";
  if (/nx|nexus/.test(t)) return "nx-os";
  if (/eos|arista/.test(t)) return "eos";
  return "ios";
}

function checkLexRules(rules: string[][] | undefined): [string, string][] {
  return (rules ?? []).map(([pattern, token], i) => {
    if (!(LEX_TOKENS as readonly string[]).includes(token))
      throw invalidField(
        `lexRules[${i}][1]`,
        `Lex rule ${i}: token '${token}' is not one of ${LEX_TOKENS.join(", ")}.`,
        "token",
      );
    userRegex(pattern, `lexRules[${i}][0]`);
    return [pattern, token];
  });
}

/** The template chain of `template` (its built-in last): 400 naming `template` when it is absent or cyclic. */
async function chainOf(this: ConfigurationService, template: string, self?: string): Promise<ParserRecord[]> {
  const chain: ParserRecord[] = [];
  for (let name: string | null = template; name !== null;) {
    if (name === self) throw invalidField("template", `Parser '${self}' cannot extend itself.`, "cycle");
    if (chain.length > MAX_TEMPLATE_DEPTH)
      throw invalidField("template", `Parsers stack at most ${MAX_TEMPLATE_DEPTH} templates.`, "depth");
    const parser: ParserRecord | null = await this.parsers.byName(name);
    if (!parser) throw invalidField("template", `Template parser '${name}' does not exist.`, "notFound");
    chain.push(parser);
    name = parser.template;
  }
  return chain;
}

export async function createParser(this: ConfigurationService, ctx: Ctx<"createParser">) {
  const { name, template = "ios" } = ctx.params;
  const lexRules = checkLexRules(ctx.params.lexRules);
  const chain = await chainOf.call(this, template);
  const now = nowIso();
  try {
    return withId(
      await this.parsers.create({
        name,
        template,
        lexRules,
        builtIn: false,
        style: chain[chain.length - 1].style,
        created: now,
        lastUpdated: now,
      }),
    );
  } catch (err) {
    if (err instanceof DuplicateKeyError) throw new ConflictError(`Config parser '${name}' already exists`);
    throw err;
  }
}

async function findParser(this: ConfigurationService, name: string): Promise<ParserRecord> {
  const parser = await this.parsers.byName(name);
  if (!parser) throw new NotFoundError("Config parser", name);
  return parser;
}

export async function getParser(this: ConfigurationService, ctx: Ctx<"getParser">) {
  return withId(await findParser.call(this, ctx.params.name));
}

export async function updateParser(this: ConfigurationService, ctx: Ctx<"updateParser">) {
  const { name, template } = ctx.params;
  const current = await findParser.call(this, name);
  if (current.builtIn) throw new ConflictError(`Config parser '${name}' is built in and cannot be changed`);
  const changes: ParserChanges = { lastUpdated: nowIso() };
  if (ctx.params.lexRules) changes.lexRules = checkLexRules(ctx.params.lexRules);
  if (template !== undefined) {
    const chain = await chainOf.call(this, template, name);
    changes.template = template;
    changes.style = chain[chain.length - 1].style;
  }
  const updated = await this.parsers.updateUserParser(name, changes);
  if (!updated) throw new NotFoundError("Config parser", name);
  return withId(updated);
}

export async function deleteParser(this: ConfigurationService, ctx: Ctx<"deleteParser">) {
  const { name } = ctx.params;
  const current = await findParser.call(this, name);
  if (current.builtIn) throw new ConflictError(`Config parser '${name}' is built in and cannot be deleted`);
  const usedBy = await this.trees.usingParser(name);
  if (usedBy)
    throw new ConflictError(`Config parser '${name}' is used by golden config tree '${usedBy.name}'`);
  const extendedBy = await this.parsers.extending(name);
  if (extendedBy) throw new ConflictError(`Config parser '${name}' is the template of '${extendedBy.name}'`);
  await this.parsers.removeUserParser(name);
  return { status: "OK", message: `Config parser '${name}' deleted` };
}

/**
 * Operation 6. `filter.name` is a pattern matched anywhere in the name, case-insensitively: the
 * text escaped when `regex` is not true, the caller's regex (RE2, checked here; the store runs
 * every `$regex` on RE2) when it is.
 */
export async function listParsers(this: ConfigurationService, ctx: Ctx<"listParsers">) {
  const { start = 0, limit, regex = false, filter, sort } = ctx.params.options ?? {};
  const namePattern = !filter?.name
    ? undefined
    : regex
      ? userRegex(filter.name, "options.filter.name", "i").source
      : escapeRegex(filter.name);
  const order: Sort = {};
  for (const [key, dir] of Object.entries(sort ?? {})) {
    if (dir === 1 || dir === -1) order[key === "date" ? "lastUpdated" : "name"] = dir;
  }
  if (!("name" in order)) order.name = 1;
  return (await this.parsers.page(namePattern, order, start, pageLimit(limit))).map(withId);
}

/** A parser as plain data: its built-in style and the comment rules of its chain (a worker rebuilds it). */
export interface ParserShape {
  style: ParserRecord["style"];
  /** Each comment rule's pattern and the field it came from (named by a refusal). */
  comments: { source: string; field: string }[];
}

/** A parser by name, as plain data (readerOf makes it read configs). */
export async function parserShape(this: ConfigurationService, name: string): Promise<ParserShape> {
  const chain = await chainOf.call(this, name).catch(() => {
    throw new NotFoundError("Config parser", name);
  });
  const comments = chain
    .filter((p) => !p.builtIn)
    .flatMap((p) =>
      p.lexRules.flatMap(([source, token], i) =>
        token === "comment" ? [{ source, field: `${p.name}.lexRules[${i}][0]` }] : [],
      ),
    );
  return { style: chain[chain.length - 1].style, comments };
}

/** A parser's shape, ready to read configs (its comment rules compiled on RE2, where it runs). */
export function readerOf(shape: ParserShape): ConfigReader {
  return configReader(
    shape.style,
    shape.comments.map(({ source, field }) => userRegex(source, field)),
  );
}

export interface ConfigReader {
  style: ParserRecord["style"];
  parse(text: string): ConfigLine[];
}

/** The tree of a config text: user comment rules drop lines first, then the built-in style nests them. */
export function configReader(style: ParserRecord["style"], comments: UserRegex[] = []): ConfigReader {
  const nest = style === "braces" ? parseBraces : parseIndented;
  return {
    style,
    parse(text) {
      if (comments.length === 0) return nest(text);
      const kept = text.split(/\r?\n/).map((line) => (comments.some((c) => c.test(line)) ? "" : line));
      return nest(kept.join("\n"));
    },
  };
}
