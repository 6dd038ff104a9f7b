"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Loaded into every bench child (`node --require .../watchdog.js ...`, or imported): the child
 * stops when the bench process goes away (its IPC channel closes) and, in any case, after
 * BENCH_CHILD_MAX_MS, so a crashed or killed bench never leaves servers behind.
 */
const maxMs = Number(process.env.BENCH_CHILD_MAX_MS || 10 * 60_000);
function shutdown() {
    // SIGTERM lets the Moleculer broker stop gracefully (it handles the signal); hard exit after 5 s.
    process.kill(process.pid, "SIGTERM");
    setTimeout(() => process.exit(1), 5000).unref();
}
if (process.channel) {
    process.once("disconnect", shutdown);
    // The channel must not keep an otherwise finished child alive.
    process.channel.unref();
}
setTimeout(shutdown, maxMs).unref();
//# sourceMappingURL=watchdog.js.map