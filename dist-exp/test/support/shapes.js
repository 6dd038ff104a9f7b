"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.SHAPES = void 0;
exports.startShape = startShape;
exports.describeInBothShapes = describeInBothShapes;
/**
 * One suite, two shapes: the same HTTP tests run against
 *  - "in-process": every service on one broker, no transporter (the embedded default);
 *  - "over NATS": the gateway on one broker and the services spread over others, joined by a real
 *    NATS, with the embedded store served to them by the `store` service (the multi-process shape).
 */
const node_crypto_1 = require("node:crypto");
const platform_1 = require("./platform");
exports.SHAPES = ["in-process", "over NATS"];
const DEFAULT_GROUPS = [
    ["store", "accounts", "profiles"],
    ["forms", "adapters", "prebuilts", "search", "engine"],
    ["configuration", "scheduler", "devices"],
];
/** Starts a platform in the given shape; `stop` stops every broker. */
async function startShape(shape, options = {}) {
    if (shape === "in-process") {
        const platform = await (0, platform_1.startPlatform)({ env: options.env });
        return { ...platform, members: [platform] };
    }
    const env = {
        TRANSPORTER: process.env.NATS_URL,
        NAMESPACE: `s-${(0, node_crypto_1.randomUUID)().slice(0, 8)}`,
        ...options.env,
    };
    const dataDir = (0, platform_1.tempDir)();
    const members = [];
    for (const services of options.groups ?? DEFAULT_GROUPS)
        members.push(await (0, platform_1.startPlatform)({ services, env, dataDir }));
    const gateway = await (0, platform_1.startPlatform)({ services: ["gateway"], env });
    members.push(gateway);
    const all = (options.groups ?? DEFAULT_GROUPS).flat().filter((s) => s !== "store");
    await gateway.broker.waitForServices(all, 15_000);
    return {
        ...gateway,
        dataDir,
        members,
        // Gateway first, so no request reaches a half-stopped cluster; the store's owner last.
        stop: async () => {
            for (const member of [...members].reverse())
                await member.stop();
        },
    };
}
/** Runs `suite` once per shape; `platform()` gives the running platform inside the tests. */
function describeInBothShapes(title, suite, options = {}) {
    describe.each(exports.SHAPES)(`${title} (%s)`, (shape) => {
        let running;
        beforeAll(async () => {
            running = await startShape(shape, options);
        }, 60_000);
        afterAll(async () => {
            await running?.stop();
        });
        suite(() => {
            if (!running)
                throw new Error("platform not started");
            return running;
        });
    });
}
//# sourceMappingURL=shapes.js.map