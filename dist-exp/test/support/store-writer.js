"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Child process of the durability test: writes to an embedded store as fast as it can and
 * prints each write's id only after its promise resolved, i.e. after it was acknowledged.
 * The test SIGKILLs it mid-stream and then checks that every acknowledged write survived.
 *
 * Usage: node dist/test/support/store-writer.js <dataDir> [compactBytes]
 * Prints "ready", then lines "insert <id>", "update <id>", "delete <id>".
 */
const node_fs_1 = __importDefault(require("node:fs"));
const backend_1 = require("../../shared/store/embedded/backend");
const pause = new Int32Array(new SharedArrayBuffer(4));
/**
 * Synchronous, so a line that was printed is never lost in a buffer when the kill comes. stdout is
 * a non-blocking pipe: when the test reads slower than the store writes, the pipe is full and the
 * write answers EAGAIN; then it waits a millisecond and writes the rest, and the store waits too.
 */
function say(line) {
    const bytes = Buffer.from(line + "\n");
    for (let done = 0; done < bytes.length;) {
        try {
            done += node_fs_1.default.writeSync(1, bytes, done);
        }
        catch (err) {
            if (err.code !== "EAGAIN")
                throw err;
            Atomics.wait(pause, 0, 0, 1);
        }
    }
}
async function main() {
    const [dataDir, compactBytes] = process.argv.slice(2);
    if (!dataDir)
        throw new Error("usage: store-writer <dataDir> [compactBytes]");
    const store = new backend_1.EmbeddedBackend({
        dataDir,
        compactBytes: compactBytes ? Number(compactBytes) : undefined,
    });
    const users = store.collection("users");
    await users.createIndex({ keys: { email: 1 }, unique: true });
    say("ready");
    // Bounded, in case the test dies before it kills us.
    const deadline = Date.now() + 30_000;
    for (let i = 0; Date.now() < deadline; i++) {
        await users.insertOne({ _id: `u${i}`, email: `u${i}@example.com`, n: i, pad: "x".repeat(100) });
        say(`insert u${i}`);
        if (i > 0) {
            await users.updateOne({ _id: `u${i - 1}` }, { $set: { updated: true }, $inc: { n: 1000 } });
            say(`update u${i - 1}`);
        }
        if (i % 10 === 9) {
            await users.deleteOne({ _id: `u${i - 5}` });
            say(`delete u${i - 5}`);
            await new Promise((resolve) => setImmediate(resolve));
        }
    }
    await store.close();
}
main().catch((err) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
});
//# sourceMappingURL=store-writer.js.map