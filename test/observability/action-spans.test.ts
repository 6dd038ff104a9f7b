/**
 * A sampled action call's span without Moleculer's Span object (shared/observability/action-spans.ts,
 * through shared/telemetry.ts's Tracing middleware): two brokers run the same calls, one with
 * Moleculer's own Tracing middleware, one with the platform's; every span their exporters see is
 * compared field by field (names, types, ids and parent links, service, tags, error, sampling,
 * enumerable keys in order), ids by where they first appear, times by their relations.
 */
import {
  Errors,
  ServiceBroker,
  TracerExporters,
  type Context,
  type Middleware,
  type ServiceSchema,
} from "moleculer";
import { sampledTracingMiddleware, tracingOptions } from "../../shared/telemetry";
import { MOLECULER_INTERNAL_MIDDLEWARES } from "../../shared/observability/internal-middlewares";

type Span = Record<string, unknown> & { id: string; traceID: string; parentID?: string | null };

const SERVICES: ServiceSchema[] = [
  {
    name: "greeter",
    version: 2,
    actions: {
      async hello(ctx: Context<{ name: string }>) {
        const a = await ctx.call("echo.say", { word: ctx.params.name });
        const b = await ctx.call("echo.say", { word: "again" }, { timeout: 900, retries: 1 });
        return { a, b };
      },
      fail: {
        async handler(ctx: Context) {
          await ctx.call("echo.say", { word: "first" });
          throw new Errors.MoleculerClientError("refused", 409, "REFUSED", { why: "test" });
        },
      },
      failInChild(ctx: Context) {
        return ctx.call("echo.broken", {}).catch(() => "caught");
      },
      custom: {
        tracing: {
          spanName: (ctx: Context) => `GET ${(ctx.params as { path: string }).path}`,
          tags: (ctx: Context, res?: unknown) =>
            res === undefined ? { path: (ctx.params as { path: string }).path } : { answered: typeof res },
        },
        handler: () => ({ ok: true }),
      },
      named: { tracing: { spanName: "a fixed name" }, handler: () => "named" },
      everything: {
        tracing: { tags: { params: true, meta: true, response: true } },
        handler: (ctx: Context) => ({ got: ctx.params }),
      },
      picked: {
        // A list of keys: Moleculer's own middleware serves it.
        tracing: { tags: { params: ["a"] } },
        handler: () => "picked",
      },
      untraced: { tracing: false, handler: (ctx: Context) => ctx.call("echo.say", { word: "under" }) },
      async withChildSpan(ctx: Context) {
        const span = ctx.startSpan("inner work", { tags: { step: 1 } });
        await ctx.call("echo.say", { word: "in a custom span" });
        ctx.finishSpan(span);
        return "done";
      },
      cached: {
        handler: (ctx: Context) => {
          (ctx as unknown as { cachedResult: boolean }).cachedResult = true;
          return "from cache";
        },
      },
    },
  },
  {
    name: "echo",
    actions: {
      say: (ctx: Context<{ word: string }>) => ctx.params.word,
      broken: () => Promise.reject(new Error("broken echo")),
    },
  },
];

/** A broker recording every span its exporters are handed, started and finished. */
async function broker(tracing: "moleculer" | "platform", defaultTags?: object) {
  const started: Span[] = [];
  const finished: Span[] = [];
  const exporter = new (class extends TracerExporters.Base {
    override spanStarted(span: unknown) {
      started.push(span as Span);
    }
    override spanFinished(span: unknown) {
      finished.push(span as Span);
    }
  })({});
  const options = tracingOptions(true, 1)!;
  const b = new ServiceBroker({
    nodeID: "spans-node",
    logger: false,
    tracing: { ...(options as object), exporter: [exporter as never], defaultTags },
    internalMiddlewares: false,
    middlewares: MOLECULER_INTERNAL_MIDDLEWARES.map((name) =>
      name === "Tracing" && tracing === "platform"
        ? (sampledTracingMiddleware as unknown as Middleware)
        : (name as unknown as Middleware),
    ),
  });
  for (const schema of SERVICES) b.createService(schema);
  await b.start();
  return { broker: b, started, finished };
}

/** The calls, in order; each answer or error recorded. */
async function run(b: ServiceBroker): Promise<unknown[]> {
  const calls: [string, object, object?][] = [
    ["v2.greeter.hello", { name: "ann" }],
    ["v2.greeter.hello", { name: "bob" }, { requestID: "caller-chosen-request-id", meta: { user: "u1" } }],
    ["v2.greeter.fail", {}],
    ["v2.greeter.failInChild", {}],
    ["v2.greeter.custom", { path: "/a/b" }],
    ["v2.greeter.named", {}],
    ["v2.greeter.everything", { x: 1 }, { meta: { tenant: "t" } }],
    ["v2.greeter.picked", { a: 1, b: 2 }],
    ["v2.greeter.untraced", {}],
    ["v2.greeter.withChildSpan", {}],
    ["v2.greeter.cached", {}],
  ];
  const answers: unknown[] = [];
  for (const [action, params, opts] of calls)
    answers.push(
      await b
        .call(action, params, opts)
        .catch((err: Errors.MoleculerError) => [err.name, err.message, err.code]),
    );
  return answers;
}

/** Ids as the order they first appear in; times checked and left out; the error by what it says. */
function normalized(spans: Span[]) {
  const ids = new Map<string, string>();
  const id = (v: unknown) => {
    if (typeof v !== "string") return v;
    if (!ids.has(v)) ids.set(v, `id${ids.size}`);
    return ids.get(v);
  };
  return spans.map((span) => {
    expect(typeof span.startTime).toBe("number");
    expect(typeof span.startTicks).toBe("number");
    expect(span.finishTime as number).toBeGreaterThanOrEqual(span.startTime as number);
    expect(span.duration).toBeCloseTo((span.finishTime as number) - (span.startTime as number), 9);
    const { startTime: _start, startTicks: _ticks, finishTime: _finish, duration: _duration, ...kept } = span;
    const { error, tags, ...rest } = kept;
    const err = error as Errors.MoleculerError | null;
    const t = tags as Record<string, unknown>;
    return {
      keys: Object.keys(span),
      ...rest,
      id: id(span.id),
      traceID: id(span.traceID),
      parentID: id(span.parentID),
      tags: { ...t, requestID: id(t.requestID) },
      error: err && [err.constructor.name, err.name, err.message, err.code, err.type, err.data],
      hasTracer: (span as { tracer?: unknown }).tracer !== undefined,
      methods: ["getTime", "addTags", "log", "setError", "finish", "isActive", "startSpan", "start"].map(
        (m) => typeof span[m],
      ),
    };
  });
}

test.each([[undefined], [{ region: "eu", tier: 2 }]])(
  "a sampled action's span is Moleculer's, field by field (default tags %j)",
  async (defaultTags) => {
    const moleculer = await broker("moleculer", defaultTags);
    const platform = await broker("platform", defaultTags);
    try {
      expect(await run(platform.broker)).toEqual(await run(moleculer.broker));
      expect(platform.finished.length).toBeGreaterThan(15);
      expect(normalized(platform.finished)).toEqual(normalized(moleculer.finished));
      expect(platform.started.map((s) => s.name)).toEqual(moleculer.started.map((s) => s.name));
      // The lean path did serve these (no Span object of Moleculer's), except the picked keys.
      const Span = moleculer.finished[0].constructor;
      const own = platform.finished.filter((s) => s.constructor === Span).map((s) => s.name);
      expect(own.sort()).toEqual(["action 'v2.greeter.picked'", "inner work"]);
    } finally {
      await moleculer.broker.stop();
      await platform.broker.stop();
    }
  },
);
