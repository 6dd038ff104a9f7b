"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.ConfigParseError = exports.MAX_DEPTH = exports.MAX_CONFIG_LINES = void 0;
exports.parseIndented = parseIndented;
exports.parseBraces = parseBraces;
exports.MAX_CONFIG_LINES = 200_000;
exports.MAX_DEPTH = 64;
class ConfigParseError extends Error {
}
exports.ConfigParseError = ConfigParseError;
const IOS_COMMENT = /^\s*(!|#)/;
/** `banner motd ^C ... ^C`: the delimiter is the first character(s) after the banner type. */
function bannerDelimiter(text) {
    const m = /^banner\s+\S+\s+(\^C|\S)/.exec(text);
    return m ? m[1] : undefined;
}
function checkSize(lines) {
    if (lines.length > exports.MAX_CONFIG_LINES)
        throw new ConfigParseError(`config has more than ${exports.MAX_CONFIG_LINES} lines`);
}
function parseIndented(config) {
    const lines = config.split(/\r?\n/);
    checkSize(lines);
    const root = { text: "", line: 0, children: [] };
    const stack = [{ indent: -1, node: root }];
    for (let i = 0; i < lines.length; i++) {
        const raw = lines[i].replace(/\s+$/, "");
        if (raw.trim() === "" || IOS_COMMENT.test(raw))
            continue;
        const indent = raw.length - raw.trimStart().length;
        const text = raw.trim();
        while (stack[stack.length - 1].indent >= indent)
            stack.pop();
        if (stack.length > exports.MAX_DEPTH)
            throw new ConfigParseError(`config nests deeper than ${exports.MAX_DEPTH}`);
        const node = { text, line: i + 1, children: [] };
        stack[stack.length - 1].node.children.push(node);
        const delim = bannerDelimiter(text);
        if (delim !== undefined) {
            // The banner's body runs until the closing delimiter; the opening one may close it on the same line.
            const rest = text.slice(text.indexOf(delim) + delim.length);
            if (!rest.includes(delim)) {
                const body = [];
                while (++i < lines.length && !lines[i].includes(delim))
                    body.push(lines[i]);
                if (i < lines.length)
                    body.push(lines[i]);
                node.text = [text, ...body].join("\n");
            }
            continue;
        }
        if (/^certificate\b/.test(text)) {
            const body = [];
            while (++i < lines.length && lines[i].trim() !== "quit")
                body.push(lines[i].trim());
            node.text = [text, ...body, "quit"].join("\n");
            continue;
        }
        stack.push({ indent, node });
    }
    return root.children;
}
function parseBraces(config) {
    const lines = config.split(/\r?\n/);
    checkSize(lines);
    const root = { text: "", line: 0, children: [] };
    const stack = [root];
    for (let i = 0; i < lines.length; i++) {
        let text = lines[i].trim();
        if (text === "" || text.startsWith("#") || text.startsWith("/*"))
            continue;
        if (text === "}") {
            if (stack.length === 1)
                throw new ConfigParseError(`unbalanced "}" at line ${i + 1}`);
            stack.pop();
            continue;
        }
        const opens = text.endsWith("{");
        if (opens)
            text = text.slice(0, -1).trim();
        else if (text.endsWith(";"))
            text = text.slice(0, -1).trim();
        const node = { text, line: i + 1, children: [] };
        stack[stack.length - 1].children.push(node);
        if (opens) {
            if (stack.length > exports.MAX_DEPTH)
                throw new ConfigParseError(`config nests deeper than ${exports.MAX_DEPTH}`);
            stack.push(node);
        }
    }
    if (stack.length !== 1)
        throw new ConfigParseError(`${stack.length - 1} block(s) not closed`);
    return root.children;
}
//# sourceMappingURL=config-tree.js.map