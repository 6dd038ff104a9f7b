"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * autocannon for creates: every request's body gets a fresh id in place of `[<id>]`, so each create
 * names a new resource (autocannon's own -I sends nothing in the version installed here). Runs as
 * its own process, like the CLI, and prints autocannon's JSON result on stdout.
 *   node write-load.js '{"url", "connections", "durationS", "headers", "method", "body"}'
 */
// autocannon ships no types; the one call below is all this file needs of it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require("autocannon");
const spec = JSON.parse(process.argv[2] ?? "{}");
let n = 0;
const prefix = `${process.pid}-${Date.now().toString(36)}`;
autocannon({
    url: spec.url,
    connections: spec.connections,
    duration: spec.durationS,
    requests: [
        {
            method: spec.method,
            headers: spec.headers,
            setupRequest: (req) => ({
                ...req,
                body: spec.body.replace("[<id>]", `${prefix}-${n++}`),
            }),
        },
    ],
}, (err, result) => {
    if (err) {
        console.error(err.message);
        process.exit(1);
    }
    process.stdout.write(JSON.stringify(result));
});
//# sourceMappingURL=write-load.js.map