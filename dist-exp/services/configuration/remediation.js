"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.renderRemediation = renderRemediation;
exports.negateIos = negateIos;
function renderRemediation(remedies, style) {
    return style === "braces" ? renderSetCommands(remedies) : renderIndented(remedies);
}
function renderIndented(remedies) {
    const root = { lines: [], children: new Map(), order: [] };
    for (const remedy of remedies) {
        let branch = root;
        for (const parent of remedy.parents) {
            let next = branch.children.get(parent);
            if (!next) {
                next = { lines: [], children: new Map(), order: [] };
                branch.children.set(parent, next);
                branch.order.push({ parent });
            }
            branch = next;
        }
        for (const line of remedy.lines)
            branch.order.push(...indentedLines(line, 0));
    }
    const out = [];
    writeBranch(root, 0, out);
    return out.join("\n");
}
function indentedLines(line, depth) {
    const own = " ".repeat(depth) + (line.negate ? negateIos(line.text) : line.text);
    return [own, ...line.children.flatMap((c) => indentedLines(c, depth + 1))];
}
function writeBranch(branch, depth, out) {
    for (const item of branch.order) {
        if (typeof item === "string")
            out.push(" ".repeat(depth) + item);
        else {
            out.push(" ".repeat(depth) + item.parent);
            writeBranch(branch.children.get(item.parent), depth + 1, out);
        }
    }
}
function negateIos(text) {
    const first = text.split("\n")[0];
    return first.startsWith("no ") ? first.slice(3) : `no ${first}`;
}
function renderSetCommands(remedies) {
    const out = [];
    for (const remedy of remedies)
        for (const line of remedy.lines)
            setCommands(line, remedy.parents, out);
    return out.join("\n");
}
function setCommands(line, parents, out) {
    const path = [...parents, line.text].join(" ");
    if (line.negate)
        out.push(`delete ${path}`);
    else if (line.children.length === 0)
        out.push(`set ${path}`);
    else
        for (const child of line.children)
            setCommands(child, [...parents, line.text], out);
}
//# sourceMappingURL=remediation.js.map