/**
 * The OTLP bytes of span attributes written lately, by name and value, for ./span-bytes.ts: each a
 * `Span` message's field 9 (its tag, then the `KeyValue` with its length), as the writer wrote it.
 *
 * Why: a traced read's two spans write 22 attributes, and most of them repeat from span to span
 * (the action's name, the node's id, the calling level, the component). Written a byte at a time
 * for every span, the attributes were about two thirds of a span's writing (docs/performance-rounds.md,
 * forty-fifth round); kept, one is a lookup and a copy.
 *
 * Bounded: at most MAX_VALUES values a name and MAX_NAMES names (a caller's tags may hold any key or
 * value). A name whose values rarely repeat (a request id, new for each request) fills its values
 * with few lookups answered; after MAX_POOR_FILLS such fills it is no longer kept, so it costs a
 * lookup and no copy from then on. Only strings, booleans and safe integers are kept (a fraction, a
 * timing, rarely repeats), and only attributes of at most MAX_BYTES.
 */
export type AttributeValue = string | number | boolean;

/** One name's kept values; `hits` counts the values found since its map was last emptied. */
export interface KeptName {
  values: Map<AttributeValue, Uint8Array>;
  hits: number;
  poorFills: number;
}

export const MAX_NAMES = 256;
export const MAX_VALUES = 64;
export const MAX_POOR_FILLS = 4;
/** An attribute longer than this is not kept (a long text rarely repeats): at most 4 MB in all. */
export const MAX_BYTES = 256;

export class AttributeBytes {
  /** By name; null for a name whose values did not repeat. */
  private readonly names = new Map<string, KeptName | null>();

  /** The name's kept values, or null when this name's values are not kept. */
  of(name: string): KeptName | null {
    const kept = this.names.get(name);
    if (kept !== undefined) return kept;
    if (this.names.size >= MAX_NAMES) this.names.clear();
    const fresh: KeptName = { values: new Map(), hits: 0, poorFills: 0 };
    this.names.set(name, fresh);
    return fresh;
  }

  /** Keeps bytes `start` to `end` of `buf` as the attribute `name` (kept as `kept`) = `value`. */
  keep(
    name: string,
    kept: KeptName,
    value: AttributeValue,
    buf: Uint8Array,
    start: number,
    end: number,
  ): void {
    if ((typeof value === "number" && !Number.isSafeInteger(value)) || end - start > MAX_BYTES) return;
    if (kept.values.size >= MAX_VALUES) {
      // Full: a name whose values were found fewer times than it holds values is a poor fill.
      if (kept.hits < MAX_VALUES && ++kept.poorFills >= MAX_POOR_FILLS) {
        this.names.set(name, null);
        return;
      }
      kept.values.clear();
      kept.hits = 0;
    }
    // A copy: the writer's chunk must not be held by a kept value (a Buffer's slice would share it).
    kept.values.set(value, new Uint8Array(buf.subarray(start, end)));
  }
}
