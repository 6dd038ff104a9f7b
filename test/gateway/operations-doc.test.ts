/** docs/operations.md is what the contracts say: regenerate it with `npm run docs`. */
import fs from "node:fs";
import path from "node:path";
import { renderOperationsDoc } from "../../app/operations-doc";

/** Prettier pads table cells; compare the content, not the padding. */
const normalize = (md: string) =>
  md
    .replace(/ *\| */g, "|")
    .replace(/-{3,}/g, "---")
    .replace(/\s+$/g, "");

test("docs/operations.md matches the contracts", () => {
  const committed = fs.readFileSync(path.resolve(__dirname, "../../docs/operations.md"), "utf8");
  expect(normalize(committed)).toBe(normalize(renderOperationsDoc()));
});

test("every operation in this issue's scope (accounts, gateway) is implemented", () => {
  const lines = renderOperationsDoc()
    .split("\n")
    .filter((l) => /`(accounts|gateway)\./.test(l));
  expect(lines.length).toBeGreaterThan(10);
  for (const line of lines) expect(line).toContain("| yes |");
});
