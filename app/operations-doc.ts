/**
 * Renders docs/operations.md from the contracts and the service schemas: every route, the action
 * behind it, who may call it, and whether its handler exists yet. `npm run docs` rewrites the file;
 * a test fails when the committed file differs, so the doc cannot drift from the code.
 */
import { loadConfig } from "../shared/config";
import { operations, type Operation } from "../shared/contracts";
import { serviceSchemas, ALL_SERVICES } from "./services";

function access(op: Operation): string {
  if (op.access === "public") return "public";
  if (op.access === "authenticated") return "any authenticated caller";
  return op.access.join(", ");
}

function implemented(): Set<string> {
  const config = loadConfig({ DATA_DIR: "/nonexistent", PORT: "0" });
  const done = new Set<string>();
  for (const schema of serviceSchemas(config, ALL_SERVICES)) {
    for (const [name, action] of Object.entries(schema.actions ?? {})) {
      const handler = typeof action === "function" ? action : (action as { handler?: unknown }).handler;
      if (handler && !(handler as { notImplemented?: boolean }).notImplemented)
        done.add(`${schema.name}.${name}`);
    }
  }
  return done;
}

export function renderOperationsDoc(): string {
  const done = implemented();
  const row = (op: Operation) =>
    `| ${op.spec ?? ""} | \`${op.method} ${op.path}\` | \`${op.action}\` | ${access(op)} | ${done.has(op.action) ? "yes" : "501 until its issue"} | ${op.aliasOf ? `The real product's path for \`${op.aliasOf}\`` : op.summary} |`;
  const ops = operations();
  const spec = ops.filter((op) => op.spec).sort((a, b) => a.spec! - b.spec!);
  const rest = ops.filter((op) => !op.spec);
  const header =
    "| # | Route | Action | Who may call | Implemented | What it does |\n|---|---|---|---|---|---|";
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

if (require.main === module) process.stdout.write(renderOperationsDoc());
