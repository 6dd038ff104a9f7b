"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.locksHeldHere = void 0;
exports.acquireLock = acquireLock;
exports.isAlive = isAlive;
exports.releaseLock = releaseLock;
/** The embedded store's lock file: one process owns a data directory at a time. */
const node_fs_1 = __importDefault(require("node:fs"));
/** Lock files this process holds: a LOCK naming our own pid is stale unless it is in here. */
exports.locksHeldHere = new Set();
function acquireLock(file, dir) {
    for (let attempt = 0; attempt < 3; attempt++) {
        try {
            node_fs_1.default.writeFileSync(file, String(process.pid), { flag: "wx" });
            exports.locksHeldHere.add(file);
            return;
        }
        catch (err) {
            if (err.code !== "EEXIST")
                throw err;
        }
        let holder = NaN;
        try {
            holder = Number(node_fs_1.default.readFileSync(file, "utf8").trim());
        }
        catch {
            continue; // removed between our attempts: try again
        }
        if (isAlive(holder, file))
            throw new Error(`store in ${dir} is held by process ${holder}`);
        node_fs_1.default.rmSync(file, { force: true }); // stale: its process died without closing
    }
    throw new Error(`store in ${dir} is held by another process (lock ${file} keeps reappearing)`);
}
function isAlive(pid, lockFile) {
    if (!Number.isInteger(pid) || pid <= 0)
        return false;
    // Our own pid in the file is from an earlier life in a container (pid 1 again) unless we hold it now.
    if (pid === process.pid)
        return exports.locksHeldHere.has(lockFile);
    try {
        process.kill(pid, 0);
        return true;
    }
    catch (err) {
        return err.code === "EPERM";
    }
}
function releaseLock(file) {
    exports.locksHeldHere.delete(file);
    try {
        if (node_fs_1.default.readFileSync(file, "utf8").trim() === String(process.pid))
            node_fs_1.default.rmSync(file);
    }
    catch {
        /* already gone */
    }
}
//# sourceMappingURL=lock.js.map