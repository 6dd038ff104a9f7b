/**
 * The span of a sampled action call, built as Moleculer's Tracing middleware builds it
 * (moleculer/src/middlewares/tracing.js, 0.15) but without its `Span` object (docs/performance-rounds.md,
 * "Tracing, sixth round"). Moleculer's `Span` defines four properties per span with
 * `Object.defineProperty`, merges its options three times, formats two debug lines whether debug is
 * on or not (one with `toFixed`) and reaches the exporters through `forEach` and `apply`; a traced
 * read makes two of them. `ActionSpan` has the same enumerable fields with the same values (name,
 * type, id, trace and parent ids, service, priority, sampled, times, duration, error, logs, tags)
 * and the same methods, so the context's span stack, a child call's parent id, `ctx.startSpan`
 * and every exporter see what they saw. test/observability/action-spans.test.ts compares the spans
 * of both middlewares field by field.
 *
 * Action tracing options this path does not reproduce (a list of params, meta or response keys to
 * pick, `safetyTags`) keep Moleculer's own middleware for that action.
 */
import { performance } from "node:perf_hooks";
import { Utils, type Context, type ServiceBroker } from "moleculer";

type Handler = (ctx: Context) => Promise<unknown>;
type Tags = Record<string, unknown>;
type TagsOption = Tags | ((this: unknown, ctx: Context, res?: unknown) => Tags | null | undefined);

/** What of Moleculer's Tracer the span needs. */
interface Tracer {
  logger: unknown;
  defaultTags: Tags | null;
  opts: { tags: { action: TagsOption | null } };
  exporter?: { spanStarted(span: unknown): void; spanFinished(span: unknown): void }[];
  startSpan(name: string, opts: object): unknown;
  getCurrentTraceID(): string | null;
  getActiveSpanID(): string | null;
}

interface ActionSpanFields {
  name: string;
  id: string;
  traceID: string;
  parentID: string | null | undefined;
  service: { name: string; version: unknown; fullName: string } | undefined;
  tags: Tags;
}

/** Moleculer's action span for one tracer: its class, with the tracer on the prototype. */
function actionSpanClass(tracer: Tracer) {
  class ActionSpan {
    // Moleculer's fields, in its order (a JSON of the span lists them alike).
    service: ActionSpanFields["service"];
    name: string;
    type = "action";
    id: string;
    traceID: string;
    parentID: string | null | undefined;
    priority = 5;
    sampled = true;
    startTime = 0;
    startTicks = 0;
    finishTime: number | null = null;
    duration: number | null = null;
    error: unknown = null;
    logs: unknown[] = [];
    tags: Tags;
    constructor({ name, id, traceID, parentID, service, tags }: ActionSpanFields) {
      this.service = service;
      this.name = name;
      this.id = id;
      this.traceID = traceID;
      this.parentID = parentID;
      this.tags = tags;
    }
    declare tracer: Tracer;
    declare logger: unknown;
    get opts(): object {
      return {};
    }
    get meta(): object {
      return {};
    }
    start(time?: number): this {
      this.startTime = time || Date.now();
      this.startTicks = performance.now();
      if (this.sampled) for (const exporter of tracer.exporter ?? []) exporter.spanStarted(this);
      return this;
    }
    getTime(): number {
      return this.startTime + performance.now() - this.startTicks;
    }
    addTags(tags: Tags): this {
      Object.assign(this.tags, tags);
      return this;
    }
    log(name: string, fields?: object, time?: number): this {
      const at = time || this.getTime();
      this.logs.push({ name, fields: fields || {}, time: at, elapsed: at - this.startTime });
      return this;
    }
    setError(err: unknown): this {
      this.error = err != null ? err : true;
      return this;
    }
    finish(time?: number): this {
      this.finishTime = time ? time : this.getTime();
      this.duration = this.finishTime - this.startTime;
      if (this.sampled) for (const exporter of tracer.exporter ?? []) exporter.spanFinished(this);
      return this;
    }
    isActive(): boolean {
      return this.finishTime == null;
    }
    startSpan(name: string, opts?: object): unknown {
      const own = { traceID: this.traceID, parentID: this.id, sampled: this.sampled, service: this.service };
      return tracer.startSpan(name, opts ? Object.assign(own, opts) : own);
    }
  }
  Object.defineProperty(ActionSpan.prototype, "tracer", { value: tracer });
  Object.defineProperty(ActionSpan.prototype, "logger", { value: tracer.logger });
  return ActionSpan;
}

/** The action's tracing options as Moleculer resolves them, or null when this path cannot serve them. */
function leanOptions(
  action: { tracing?: unknown },
  tracer: Tracer,
): { tags: TagsOption; spanName: unknown } | null {
  const own = (typeof action.tracing === "object" && action.tracing !== null ? action.tracing : {}) as {
    tags?: TagsOption;
    spanName?: unknown;
    safetyTags?: unknown;
  };
  if (own.safetyTags) return null;
  const global = tracer.opts.tags.action;
  let tags: TagsOption;
  if (Utils.isFunction(own.tags)) tags = own.tags;
  else if (!own.tags && Utils.isFunction(global)) tags = global;
  else tags = { params: true, ...(global as Tags | null), ...(own.tags as Tags | undefined) };
  if (typeof tags !== "function") {
    const { params, meta, response } = tags;
    if (Array.isArray(params) || Array.isArray(meta) || Array.isArray(response)) return null;
  }
  return { tags, spanName: own.spanName };
}

/**
 * Moleculer's `localAction` tracing hook for sampled calls (the caller has checked `ctx.tracing`),
 * or null when this action keeps Moleculer's own.
 */
export function actionSpans(
  broker: ServiceBroker,
): (handler: Handler, action: { name: string; tracing?: unknown }) => Handler | null {
  const tracer = (broker as unknown as { tracer: Tracer }).tracer;
  const ActionSpan = actionSpanClass(tracer);
  const nodeID = broker.nodeID;
  return (handler, action) => {
    const options = leanOptions(action, tracer);
    if (!options) return null;
    const { tags: actionTags, spanName } = options;
    const tagsFn = typeof actionTags === "function" ? actionTags : null;
    const plain = tagsFn ? null : (actionTags as Tags);
    return function tracedAction(ctx: Context) {
      const c = ctx as Context & {
        parentID: string | null;
        level: number;
        action: { name: string; rawName?: string } | null;
        options: { timeout?: number; retries?: number };
        cachedResult?: boolean;
      };
      c.requestID = c.requestID || tracer.getCurrentTraceID()!;
      c.parentID = c.parentID || tracer.getActiveSpanID()!;
      const tags: Tags = {
        callingLevel: c.level,
        action: c.action ? { name: c.action.name, rawName: c.action.rawName } : null,
        remoteCall: c.nodeID !== nodeID,
        callerNodeID: c.nodeID,
        nodeID,
        options: { timeout: c.options.timeout, retries: c.options.retries },
        requestID: c.requestID,
      };
      if (tagsFn) {
        const own = tagsFn.call(c.service, c);
        if (own) Object.assign(tags, own);
      } else {
        if (plain!.params === true)
          tags.params =
            c.params != null && Utils.isPlainObject(c.params) ? Object.assign({}, c.params) : c.params;
        if (plain!.meta === true) tags.meta = c.meta != null ? Object.assign({}, c.meta) : c.meta;
      }
      let name = `action '${c.action!.name}'`;
      if (typeof spanName === "string") name = spanName;
      else if (typeof spanName === "function") name = spanName.call(c.service, c);
      const service = c.service
        ? { name: c.service.name, version: c.service.version, fullName: c.service.fullName }
        : undefined;
      // Moleculer copies the tags after the tracer's default ones into a fresh object; with no
      // default tags, the fresh `tags` above is that object (a copy less a span).
      const spanTags = tracer.defaultTags ? Object.assign({}, tracer.defaultTags, tags) : tags;
      const span = new ActionSpan({
        name,
        id: c.id,
        traceID: c.requestID || c.id,
        parentID: c.parentID,
        service,
        tags: spanTags,
      }).start();
      const stack = c as unknown as { span: unknown; _spanStack: unknown[] };
      stack._spanStack.push(span);
      stack.span = span;
      c.tracing = true;
      return handler(c)
        .then((res) => {
          const late: Tags = { fromCache: c.cachedResult };
          if (tagsFn) {
            const own = tagsFn.call(c.service, c, res);
            if (own) Object.assign(late, own);
          } else if (plain!.response === true)
            late.response = res != null && Utils.isPlainObject(res) ? Object.assign({}, res) : res;
          span.addTags(late);
          c.finishSpan(span as never);
          return res;
        })
        .catch((err: unknown) => {
          span.setError(err);
          c.finishSpan(span as never);
          throw err;
        });
    };
  };
}
