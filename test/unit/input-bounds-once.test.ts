/**
 * The gateway measures the params it sends and the InputBounds middleware then skips walking that
 * same object once (shared/input-bounds.ts): only for limits no wider than the action's, only for
 * the one call, and never for params carrying moleculer-web's `$req`.
 */
import {
  assertParamsWithinBounds,
  CHECKED_BY_HANDLER,
  inputBoundsMiddleware,
} from "../../shared/input-bounds";

const limits = { maxDepth: 4, maxNodes: 50 };
const deep = () => ({ a: { b: { c: { d: { e: 1 } } } } });

/** The middleware's wrapper around an action with a params schema, answering "called" when it ran. */
function checked(own = limits) {
  const hook = (inputBoundsMiddleware(own) as any).localAction;
  return hook(async () => "called", { params: { any: "any" }, inputLimits: own }) as (ctx: {
    params: unknown;
  }) => Promise<unknown>;
}

test("params measured by the gateway are not walked again, once", async () => {
  const params: Record<string, unknown> = { x: 1 };
  assertParamsWithinBounds(params, limits);
  // Changed after the mark (nothing does this between the gateway and its call): the mark is trusted once...
  Object.assign(params, deep());
  await expect(checked()({ params })).resolves.toBe("called");
  // ...and only once: a handler forwarding the same object is measured afresh.
  await expect(checked()({ params })).rejects.toThrow(/deeper than 4 levels/);
});

test("a mark made under wider limits than the action's, or params with $req, are walked", async () => {
  const wide = deep();
  assertParamsWithinBounds(wide, { maxDepth: 10, maxNodes: 50 });
  await expect(checked()({ params: wide })).rejects.toThrow(/deeper than 4 levels/);
  const withReq: Record<string, unknown> = { x: 1 };
  assertParamsWithinBounds(withReq, limits);
  withReq.$req = deep();
  await expect(checked()({ params: withReq })).rejects.toThrow(/deeper than 4 levels/);
});

test("the gateway's own check still throws the 400 for params past the limits", () => {
  expect(() => assertParamsWithinBounds(deep(), limits)).toThrow(/deeper than 4 levels/);
});

test("an action whose handler checks each part itself is not walked; limits as wide are", async () => {
  const hook = (inputBoundsMiddleware(limits) as any).localAction;
  const next = async () => "called";
  // The same limits as an object of its own are still a walk (only the marker skips it).
  const wide = { maxDepth: Number.MAX_SAFE_INTEGER, maxNodes: Number.MAX_SAFE_INTEGER };
  expect(hook(next, { params: { any: "any" }, inputLimits: wide })).not.toBe(next);
  expect(hook(next, { params: { any: "any" }, inputLimits: CHECKED_BY_HANDLER })).toBe(next);
  // Ordinary actions still are.
  await expect(checked()({ params: deep() })).rejects.toThrow(/deeper than 4 levels/);
});
