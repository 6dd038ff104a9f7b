/** The platform version: package.json's, found by walking up from this file (works from src and dist/). */
import fs from "node:fs";
import path from "node:path";

function findPackageJson(dir: string): string {
  const candidate = path.join(dir, "package.json");
  if (fs.existsSync(candidate)) return candidate;
  const parent = path.dirname(dir);
  if (parent === dir) throw new Error("package.json not found");
  return findPackageJson(parent);
}

export const PLATFORM_VERSION: string = JSON.parse(
  fs.readFileSync(findPackageJson(__dirname), "utf8"),
).version;
/** The HTTP API's version; paths stay unversioned (docs/platform-rules.md#probes-and-extras). */
export const API_VERSION = "1.0.0";
