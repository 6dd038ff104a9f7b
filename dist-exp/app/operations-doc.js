"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.renderOperationsDoc = renderOperationsDoc;
/**
 * Renders docs/operations.md from the contracts and the service schemas: every route, the action
 * behind it, who may call it, and whether its handler exists yet. `npm run docs` rewrites the file;
 * a test fails when the committed file differs, so the doc cannot drift from the code.
 */
const config_1 = require("../shared/config");
const contracts_1 = require("../shared/contracts");
const services_1 = require("./services");
function access(op) {
    if (op.access === "public")
        return "public";
    if (op.access === "authenticated")
        return "any authenticated caller";
    return op.access.join(", ");
}
function implemented() {
    const config = (0, config_1.loadConfig)({ DATA_DIR: "/nonexistent", PORT: "0" });
    const done = new Set();
    for (const schema of (0, services_1.serviceSchemas)(config, services_1.ALL_SERVICES)) {
        for (const [name, action] of Object.entries(schema.actions ?? {})) {
            const handler = typeof action === "function" ? action : action.handler;
            if (handler && !handler.notImplemented)
                done.add(`${schema.name}.${name}`);
        }
    }
    return done;
}
function renderOperationsDoc() {
    const done = implemented();
    const row = (op) => `| ${op.spec ?? ""} | \`${op.method} ${op.path}\` | \`${op.action}\` | ${access(op)} | ${done.has(op.action) ? "yes" : "501 until its issue"} | ${op.aliasOf ? `The real product's path for \`${op.aliasOf}\`` : op.summary} |`;
    const ops = (0, contracts_1.operations)();
    const spec = ops.filter((op) => op.spec).sort((a, b) => a.spec - b.spec);
    const rest = ops.filter((op) => !op.spec);
    const header = "| # | Route | Action | Who may call | Implemented | What it does |\n|---|---|---|---|---|---|";
    return [
        "# Operations",
        "",
        "Generated from `shared/contracts/*.ts` by `npm run docs`; do not edit by hand. Each route's params",
        "schema, roles and action live in its service's contract file. `admin` may call every route.",
        "",
        "## The spec's 20 operations",
        "",
        header,
        ...spec.map(row),
        "",
        "## Supporting operations (docs/platform-rules.md#supporting-operations)",
        "",
        header,
        ...rest.map(row),
        "",
    ].join("\n");
}
if (require.main === module)
    process.stdout.write(renderOperationsDoc());
//# sourceMappingURL=operations-doc.js.map