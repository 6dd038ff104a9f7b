"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.stopOnSignals = stopOnSignals;
function stopOnSignals(broker, shutdownTimeoutMs) {
    let stopping = false;
    const stop = async (signal) => {
        if (stopping) {
            broker.logger.warn(`${signal} again: exiting now`);
            process.exit(1);
        }
        stopping = true;
        broker.logger.info(`${signal}: draining, then stopping`);
        setTimeout(() => {
            broker.logger.error("shutdown took too long: exiting");
            process.exit(1);
        }, 2 * shutdownTimeoutMs + 5000).unref();
        try {
            await Promise.all(broker.services.map((s) => s.drain?.()));
            await broker.stop();
            process.exit(0);
        }
        catch (err) {
            broker.logger.error(`shutdown failed: ${err.message}`);
            process.exit(1);
        }
    };
    process.on("SIGTERM", () => void stop("SIGTERM"));
    process.on("SIGINT", () => void stop("SIGINT"));
}
//# sourceMappingURL=shutdown.js.map