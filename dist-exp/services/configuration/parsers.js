"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.BUILT_IN_PARSERS = void 0;
exports.seedBuiltInParsers = seedBuiltInParsers;
exports.defaultParserFor = defaultParserFor;
exports.createParser = createParser;
exports.getParser = getParser;
exports.updateParser = updateParser;
exports.deleteParser = deleteParser;
exports.listParsers = listParsers;
exports.loadParser = loadParser;
exports.configReader = configReader;
/**
 * Config parsers (spec operation 6; docs/configuration-manager.md#parsers). A parser names how a
 * device's config text becomes a tree of lines: a built-in (ios, ios-xr, nx-os, eos by indentation;
 * junos by braces) or a user parser extending one through `template`, adding `[regex, token]` lex
 * rules. Every regex is checked by checkUserRegex before it is stored. Built-ins are stored like any
 * parser (so the list reads the store) but cannot be changed or deleted.
 */
const configuration_1 = require("../../shared/contracts/configuration");
const errors_1 = require("../../shared/errors");
const paging_1 = require("../../shared/paging");
const text_1 = require("../../shared/text");
const types_1 = require("../../shared/store/types");
const config_tree_1 = require("./config-tree");
const regex_guard_1 = require("./regex-guard");
const types_2 = require("./types");
const IOS_RULES = [
    ["^\\s*!.*$", "comment"],
    ["^\\s+", "whitespace"],
    ["\\S+", "word"],
    ["\\n", "end_line"],
];
const JUNOS_RULES = [
    ["^\\s*(#|/\\*).*$", "comment"],
    ["\\{$", "block_start"],
    ["^\\s*\\}$", "block_end"],
    [";$", "end_line"],
    ["[^\\s;{}]+", "word"],
];
exports.BUILT_IN_PARSERS = [
    { name: "ios", style: "indent", lexRules: IOS_RULES },
    { name: "ios-xr", style: "indent", lexRules: IOS_RULES },
    { name: "nx-os", style: "indent", lexRules: IOS_RULES },
    { name: "eos", style: "indent", lexRules: IOS_RULES },
    { name: "junos", style: "braces", lexRules: JUNOS_RULES },
];
/** How many templates a parser may stack on a built-in. */
const MAX_TEMPLATE_DEPTH = 8;
/** Stores the built-ins once; every replica tries, the unique name index keeps one of each. */
async function seedBuiltInParsers() {
    const parsers = this.store.collection(types_2.PARSERS);
    const created = (0, text_1.nowIso)();
    for (const builtIn of exports.BUILT_IN_PARSERS) {
        try {
            await parsers.insertOne({ ...builtIn, template: null, builtIn: true, created, lastUpdated: created });
        }
        catch (err) {
            if (!(err instanceof types_1.DuplicateKeyError))
                throw err;
        }
    }
}
/** The parser a device type reads with when a tree names none. */
function defaultParserFor(deviceType) {
    const t = deviceType.toLowerCase();
    if (/junos|juniper|\bmx\b|\bsrx\b|\bqfx\b|\bex\b/.test(t))
        return "junos";
    if (/xr/.test(t))
        return "ios-xr";
    if (/nx|nexus/.test(t))
        return "nx-os";
    if (/eos|arista/.test(t))
        return "eos";
    return "ios";
}
function checkLexRules(rules) {
    return (rules ?? []).map(([pattern, token], i) => {
        if (!configuration_1.LEX_TOKENS.includes(token))
            throw (0, errors_1.invalidField)(`lexRules[${i}][1]`, `Lex rule ${i}: token '${token}' is not one of ${configuration_1.LEX_TOKENS.join(", ")}.`, "token");
        const check = (0, regex_guard_1.checkUserRegex)(pattern);
        if (!check.ok)
            throw (0, errors_1.invalidField)(`lexRules[${i}][0]`, `Lex rule ${i}: regex '${pattern}' refused: ${check.reason}.`, "regex");
        return [pattern, token];
    });
}
/** The template chain of `template` (its built-in last): 400 naming `template` when it is absent or cyclic. */
async function chainOf(template, self) {
    const parsers = this.store.collection(types_2.PARSERS);
    const chain = [];
    for (let name = template; name !== null;) {
        if (name === self)
            throw (0, errors_1.invalidField)("template", `Parser '${self}' cannot extend itself.`, "cycle");
        if (chain.length > MAX_TEMPLATE_DEPTH)
            throw (0, errors_1.invalidField)("template", `Parsers stack at most ${MAX_TEMPLATE_DEPTH} templates.`, "depth");
        const parser = await parsers.findOne({ name });
        if (!parser)
            throw (0, errors_1.invalidField)("template", `Template parser '${name}' does not exist.`, "notFound");
        chain.push(parser);
        name = parser.template;
    }
    return chain;
}
async function createParser(ctx) {
    const { name, template = "ios" } = ctx.params;
    const lexRules = checkLexRules(ctx.params.lexRules);
    const chain = await chainOf.call(this, template);
    const now = (0, text_1.nowIso)();
    try {
        return await this.store.collection(types_2.PARSERS).insertOne({
            name,
            template,
            lexRules,
            builtIn: false,
            style: chain[chain.length - 1].style,
            created: now,
            lastUpdated: now,
        });
    }
    catch (err) {
        if (err instanceof types_1.DuplicateKeyError)
            throw new errors_1.ConflictError(`Config parser '${name}' already exists`);
        throw err;
    }
}
async function findParser(name) {
    const parser = await this.store.collection(types_2.PARSERS).findOne({ name });
    if (!parser)
        throw new errors_1.NotFoundError("Config parser", name);
    return parser;
}
async function getParser(ctx) {
    return findParser.call(this, ctx.params.name);
}
async function updateParser(ctx) {
    const { name, template } = ctx.params;
    const current = await findParser.call(this, name);
    if (current.builtIn)
        throw new errors_1.ConflictError(`Config parser '${name}' is built in and cannot be changed`);
    const changes = { lastUpdated: (0, text_1.nowIso)() };
    if (ctx.params.lexRules)
        changes.lexRules = checkLexRules(ctx.params.lexRules);
    if (template !== undefined) {
        const chain = await chainOf.call(this, template, name);
        changes.template = template;
        changes.style = chain[chain.length - 1].style;
    }
    const updated = await this.store
        .collection(types_2.PARSERS)
        .findOneAndUpdate({ name, builtIn: false }, { $set: changes });
    if (!updated)
        throw new errors_1.NotFoundError("Config parser", name);
    return updated;
}
async function deleteParser(ctx) {
    const { name } = ctx.params;
    const current = await findParser.call(this, name);
    if (current.builtIn)
        throw new errors_1.ConflictError(`Config parser '${name}' is built in and cannot be deleted`);
    const usedBy = await this.store.collection(types_2.TREES).findOne({ parser: name });
    if (usedBy)
        throw new errors_1.ConflictError(`Config parser '${name}' is used by golden config tree '${usedBy.name}'`);
    const extendedBy = await this.store.collection(types_2.PARSERS).findOne({ template: name });
    if (extendedBy)
        throw new errors_1.ConflictError(`Config parser '${name}' is the template of '${extendedBy.name}'`);
    await this.store.collection(types_2.PARSERS).deleteOne({ name, builtIn: false });
    return { status: "OK", message: `Config parser '${name}' deleted` };
}
/**
 * Operation 6. `filter.name` is a pattern matched anywhere in the name, case-insensitively: the
 * text escaped when `regex` is not true, the caller's regex (checked) when it is.
 */
async function listParsers(ctx) {
    const { start = 0, limit, regex = false, filter, sort } = ctx.params.options ?? {};
    const query = {};
    if (filter?.name) {
        let source = (0, regex_guard_1.escapeRegex)(filter.name);
        if (regex) {
            const check = (0, regex_guard_1.checkUserRegex)(filter.name);
            if (!check.ok)
                throw (0, errors_1.invalidField)("options.filter.name", `Regex '${filter.name}' refused: ${check.reason}.`, "regex");
            source = filter.name;
        }
        query.name = { $regex: source, $options: "i" };
    }
    const order = {};
    for (const [key, dir] of Object.entries(sort ?? {})) {
        if (dir === 1 || dir === -1)
            order[key === "date" ? "lastUpdated" : "name"] = dir;
    }
    if (!("name" in order))
        order.name = 1;
    return this.store
        .collection(types_2.PARSERS)
        .find(query, { sort: order, skip: start, limit: (0, paging_1.pageLimit)(limit) });
}
/** A parser by name, ready to read configs: its built-in style and the comment rules of its chain. */
async function loadParser(name) {
    const chain = await chainOf.call(this, name).catch(() => {
        throw new errors_1.NotFoundError("Config parser", name);
    });
    const comments = chain
        .filter((p) => !p.builtIn)
        .flatMap((p) => p.lexRules.filter(([, token]) => token === "comment").map(([source]) => new RegExp(source)));
    return configReader(chain[chain.length - 1].style, comments);
}
/** The tree of a config text: user comment rules drop lines first, then the built-in style nests them. */
function configReader(style, comments = []) {
    const nest = style === "braces" ? config_tree_1.parseBraces : config_tree_1.parseIndented;
    return {
        style,
        parse(text) {
            if (comments.length === 0)
                return nest(text);
            const kept = text.split(/\r?\n/).map((line) => (comments.some((c) => c.test(line)) ? "" : line));
            return nest(kept.join("\n"));
        },
    };
}
//# sourceMappingURL=parsers.js.map