"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.API_VERSION = exports.PLATFORM_VERSION = void 0;
/** The platform version: package.json's, found by walking up from this file (works from src and dist/). */
const node_fs_1 = __importDefault(require("node:fs"));
const node_path_1 = __importDefault(require("node:path"));
function findPackageJson(dir) {
    const candidate = node_path_1.default.join(dir, "package.json");
    if (node_fs_1.default.existsSync(candidate))
        return candidate;
    const parent = node_path_1.default.dirname(dir);
    if (parent === dir)
        throw new Error("package.json not found");
    return findPackageJson(parent);
}
exports.PLATFORM_VERSION = JSON.parse(node_fs_1.default.readFileSync(findPackageJson(__dirname), "utf8")).version;
/** The HTTP API's version; paths stay unversioned (docs/platform-rules.md#probes-and-extras). */
exports.API_VERSION = "1.0.0";
//# sourceMappingURL=version.js.map