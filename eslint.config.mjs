// Lint config: typescript-eslint's recommended rules on TypeScript, Node globals on the CommonJS helpers,
// and the import rule between layers (docs/architecture.md).
import fs from "node:fs";
import path from "node:path";
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

/*
 * The import rule (docs/architecture.md): app/ assembles everything; gateway/ and services/ build on
 * shared/; shared/ imports nothing above it; the gateway imports no service; no service imports
 * another's code (they call each other's actions over the bus). Imports are relative, so what a
 * forbidden path looks like depends on how deep the importing file sits: one block per folder depth.
 */
const MAX_DEPTH = 6;
const up = (n) => "(\\.\\./){" + n + "}";

/** Files exactly `depth` folders below the repository root, inside `folder` (a path of `k` folders). */
function filesAt(folder, depth) {
  const k = folder.split("/").length;
  return [`${folder}/${"*/".repeat(depth - k)}*.ts`];
}

function forbid(files, patterns) {
  return {
    files,
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: patterns.map(([regex, message]) => ({ regex, message })) },
      ],
    },
  };
}

function layerRules() {
  const blocks = [];
  for (let d = 1; d <= MAX_DEPTH; d++) {
    blocks.push(
      forbid(filesAt("shared", d), [
        [
          `^${up(d)}(services|gateway|app)(/|$)`,
          "shared/ is a library: it imports nothing from services/, gateway/ or app/.",
        ],
      ]),
      forbid(filesAt("gateway", d), [
        [
          `^${up(d)}(services|app)(/|$)`,
          "The gateway reaches services through their actions (shared/contracts), never their code.",
        ],
      ]),
    );
  }
  const entries = fs.readdirSync(path.join(import.meta.dirname, "services"), { withFileTypes: true });
  const services = new Set(
    entries
      .map((e) => (e.isDirectory() ? e.name : e.name.replace(/\.service\.ts$/, "")))
      .filter((n) => !n.includes(".")),
  );
  for (const name of services) {
    const message = `services/${name} may not import another service's code or gateway/, app/: call its actions over the bus.`;
    // A service at services/<name>.service.ts (the shape before issue 7) sits one folder down.
    blocks.push(
      forbid(
        [`services/${name}.service.ts`],
        [
          [`^\\./(?!${name}(/|$))`, message],
          [`^${up(1)}(gateway|app)(/|$)`, message],
        ],
      ),
    );
    for (let d = 2; d <= MAX_DEPTH; d++) {
      blocks.push(
        forbid(filesAt(`services/${name}`, d), [
          [`^${up(d - 1)}(?!${name}(/|$)|\\.\\.)[^/]+`, message],
          [`^${up(d)}(gateway|app)(/|$)`, message],
        ]),
      );
    }
  }
  return blocks;
}

/*
 * The repository rule (docs/architecture.md#repositories): in services/, only a collection's
 * repository (`*.repository.ts`) opens a collection of the store; handlers call its named methods.
 * The store service (services/store/) is the store itself, served over the bus.
 */
function repositoryRule() {
  return {
    files: ["services/**/*.ts"],
    ignores: ["services/**/*.repository.ts", "services/store/**"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "CallExpression[callee.property.name='collection']",
          message:
            "Only a repository (<collection>.repository.ts) opens a collection: add a named method to it.",
        },
      ],
    },
  };
}

export default tseslint.config(
  { ignores: ["node_modules/**", "dist/**", "data/**", "coverage/**", "bench/results/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts"],
    rules: {
      // TypeScript itself reports undefined names, with types in view.
      "no-undef": "off",
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" },
      ],
    },
  },
  {
    files: ["app/**/*.ts", "gateway/**/*.ts", "services/**/*.ts", "shared/**/*.ts"],
    rules: {
      "no-restricted-globals": [
        "error",
        {
          name: "performance",
          message:
            'import { performance } from "node:perf_hooks": the global is an accessor whose getter runs on every read (Node 24).',
        },
      ],
    },
  },
  {
    files: ["**/*.js"],
    languageOptions: { sourceType: "commonjs", globals: { ...globals.node } },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
  ...layerRules(),
  repositoryRule(),
);
