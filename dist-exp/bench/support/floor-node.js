"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Child process of scenario "floor over NATS": a second ServiceBroker, in another process, that
 * holds only the `floor` action. Settings come from the environment (the bench sets them):
 * BENCH_NATS_URL, BENCH_NAMESPACE, BENCH_TUNING (JSON of BusTuning), BENCH_BODY (the JSON body).
 * Tells the parent "ready" over IPC once started.
 */
require("./watchdog");
const moleculer_1 = require("moleculer");
const floor_1 = require("./floor");
async function main() {
    const broker = new moleculer_1.ServiceBroker((0, floor_1.floorBrokerOptions)({
        nodeID: `floor-node-${process.pid}`,
        namespace: process.env.BENCH_NAMESPACE,
        natsUrl: process.env.BENCH_NATS_URL,
        tuning: JSON.parse(process.env.BENCH_TUNING || "{}"),
    }));
    broker.createService((0, floor_1.floorService)(JSON.parse(process.env.BENCH_BODY || "{}")));
    await broker.start();
    process.send?.("ready");
}
main().catch((err) => {
    console.error(`floor-node failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
});
//# sourceMappingURL=floor-node.js.map