"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Child process of `bench:proxy`: the orchestrator stand-in, node:http answering a fixed NSO-style
 * device list (BENCH_DEVICES devices) as `application/yang-data+json` on every path. In its own
 * process so it shares no event loop with the platform it is proxied through. Tells the parent its
 * port over IPC.
 */
require("./watchdog");
const bare_1 = require("./bare");
const count = Number(process.env.BENCH_DEVICES || 10);
const devices = Array.from({ length: count }, (_, i) => ({
    name: `rtr-${String(i).padStart(4, "0")}`,
    address: `10.0.${Math.floor(i / 250)}.${(i % 250) + 1}`,
    port: 22,
    authgroup: "default",
    "device-type": { cli: { "ned-id": "cisco-ios-cli-6.42:cisco-ios-cli-6.42" } },
    state: { "admin-state": "unlocked" },
}));
const body = Buffer.from(JSON.stringify({ "tailf-ncs:devices": { device: devices } }));
(0, bare_1.startBare)(body, "application/yang-data+json")
    .then(({ url }) => process.send?.({ port: Number(new URL(url).port), bytes: body.length }))
    .catch((err) => {
    console.error(`upstream-node failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
});
//# sourceMappingURL=upstream-node.js.map