"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.taskStatuses = exports.success = exports.revert = exports.op = exports.onError = exports.manual = exports.loop = exports.graph = exports.failure = exports.chain = exports.auto = void 0;
exports.createWorkflow = createWorkflow;
exports.withStore = withStore;
exports.readJob = readJob;
exports.waitForJob = waitForJob;
exports.taskService = taskService;
/**
 * Engine test fixtures: workflow builders, a test service whose actions are workflow tasks (and
 * record every call, with the calling node), and helpers to create workflows and watch jobs.
 */
const moleculer_1 = require("moleculer");
const runtime_1 = require("../../shared/runtime");
// ------------------------------------------------------------------------------------ workflows
// The workflow builders are pure (no broker): unit suites import them from ./engine-builders.
var engine_builders_1 = require("./engine-builders");
Object.defineProperty(exports, "auto", { enumerable: true, get: function () { return engine_builders_1.auto; } });
Object.defineProperty(exports, "chain", { enumerable: true, get: function () { return engine_builders_1.chain; } });
Object.defineProperty(exports, "failure", { enumerable: true, get: function () { return engine_builders_1.failure; } });
Object.defineProperty(exports, "graph", { enumerable: true, get: function () { return engine_builders_1.graph; } });
Object.defineProperty(exports, "loop", { enumerable: true, get: function () { return engine_builders_1.loop; } });
Object.defineProperty(exports, "manual", { enumerable: true, get: function () { return engine_builders_1.manual; } });
Object.defineProperty(exports, "onError", { enumerable: true, get: function () { return engine_builders_1.onError; } });
Object.defineProperty(exports, "op", { enumerable: true, get: function () { return engine_builders_1.op; } });
Object.defineProperty(exports, "revert", { enumerable: true, get: function () { return engine_builders_1.revert; } });
Object.defineProperty(exports, "success", { enumerable: true, get: function () { return engine_builders_1.success; } });
/** Creates a workflow over HTTP (or, while that handler answers 501, straight into the store). */
async function createWorkflow(http, broker, workflow) {
    const reply = await http.post("/workflow_builder/workflows", { workflow });
    if (reply.status === 200)
        return;
    if (reply.status !== 501)
        throw new Error(`creating workflow ${workflow.name}: ${reply.status} ${reply.text}`);
    await withStore(broker, (store) => store.collection("workflows").insertOne({
        description: "",
        type: "automation",
        groups: [],
        tags: [],
        created: new Date().toISOString(),
        created_by: "test",
        last_updated: new Date().toISOString(),
        last_updated_by: "test",
        ...workflow,
    }));
}
// ------------------------------------------------------------------------------------ the store
async function withStore(broker, fn) {
    const store = await (0, runtime_1.acquireStore)(broker);
    try {
        return await fn(store);
    }
    finally {
        await store.close();
    }
}
async function readJob(broker, id) {
    return withStore(broker, (store) => store.collection("jobs").findOne({ _id: id }));
}
/** Polls the stored job until `done(job)` holds; answers that job. */
async function waitForJob(broker, id, done = (job) => job.status !== "running", timeoutMs = 15_000) {
    const until = Date.now() + timeoutMs;
    let last;
    while (Date.now() < until) {
        last = await readJob(broker, id);
        if (last && done(last))
            return last;
        await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`job ${id} not there after ${timeoutMs} ms: status ${last?.status}, tasks ${JSON.stringify(Object.fromEntries(Object.entries(last?.tasks ?? {}).map(([k, t]) => [k, t?.status])))}, errors ${JSON.stringify(last?.error)}`);
}
const taskStatuses = (job) => Object.fromEntries(Object.entries(job.tasks).map(([id, t]) => [id, t.status]));
exports.taskStatuses = taskStatuses;
const taskMeta = (summary, incoming = {}, outgoing = {}) => ({
    summary,
    description: summary,
    location: "Application",
    variables: { incoming, outgoing },
});
/** An action carrying task metadata (Moleculer keeps unknown schema members; its types do not know them). */
const taskAction = (meta, handler) => ({ task: meta, handler });
/**
 * A service whose actions are workflow tasks: `echo` answers its params, `fail` throws a 422,
 * `flaky` fails until it has been called `failures` times for its `key`, `slow` sleeps `ms`,
 * `noop` answers {}. `plain` is an ordinary action (no task metadata): jobs may not call it.
 */
function taskService(name = "enginetest") {
    const calls = [];
    const attempts = new Map();
    const record = (ctx, action) => {
        const call = { action, params: ctx.params, caller: ctx.nodeID ?? "", start: Date.now() };
        calls.push(call);
        return call;
    };
    const schema = {
        name,
        actions: {
            echo: taskAction(taskMeta("Answers its incoming variables", { value: null }, { result: null }), (ctx) => {
                const call = record(ctx, "echo");
                call.end = Date.now();
                return { ...ctx.params, caller: ctx.meta?.caller?.username ?? null };
            }),
            fail: taskAction(taskMeta("Always fails"), (ctx) => {
                record(ctx, "fail").end = Date.now();
                throw new moleculer_1.Errors.MoleculerClientError("Device rejected the change", 422, "DEVICE_REJECTED", [
                    { device: ctx.params.device ?? "r1", reason: "locked" },
                ]);
            }),
            flaky: taskAction(taskMeta("Fails its first `failures` calls per key", { key: "", failures: 1 }), (ctx) => {
                record(ctx, "flaky").end = Date.now();
                const n = (attempts.get(ctx.params.key) ?? 0) + 1;
                attempts.set(ctx.params.key, n);
                if (n <= (ctx.params.failures ?? 1))
                    throw new moleculer_1.Errors.MoleculerError(`attempt ${n} failed`, 503, "TRY_AGAIN");
                return { attempt: n };
            }),
            slow: taskAction(taskMeta("Sleeps `ms` milliseconds", { ms: 1000 }), async (ctx) => {
                const call = record(ctx, "slow");
                await new Promise((r) => setTimeout(r, ctx.params.ms ?? 1000));
                call.end = Date.now();
                return { slept: ctx.params.ms ?? 1000, key: ctx.params.key ?? null };
            }),
            noop: taskAction(taskMeta("Does nothing"), () => ({})),
            plain: {
                handler(ctx) {
                    record(ctx, "plain").end = Date.now();
                    return { ok: true };
                },
            },
        },
    };
    return { schema, calls, attempts };
}
//# sourceMappingURL=engine-fixtures.js.map