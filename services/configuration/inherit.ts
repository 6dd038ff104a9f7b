/**
 * Inheritance down a golden config tree (docs/configuration-manager.md#golden-config-trees): a node's
 * effective spec is its ancestors' specs, root first, with each node's own lines merged in. A line
 * with the same words as an inherited line at the same place overrides it (its evalMode, severity and
 * strict order; children merge the same way), so `base/dc1` can turn a `base` requirement into
 * `ignored`. Variables merge the same way: the nearest node's value wins.
 */
import { lineKey, type SpecLine } from "./spec-model";

export function mergeSpecs(parent: SpecLine[], child: SpecLine[]): SpecLine[] {
  const merged = parent.map((line) => ({ ...line }));
  const byKey = new Map(merged.map((line, i) => [lineKey(line), i]));
  for (const line of child) {
    const at = byKey.get(lineKey(line));
    if (at === undefined) {
      byKey.set(lineKey(line), merged.length);
      merged.push(line);
    } else {
      const inherited = merged[at];
      merged[at] = { ...line, children: mergeSpecs(inherited.children, line.children) };
    }
  }
  return merged;
}

/** `base/dc1/rtr` -> [`base`, `base/dc1`, `base/dc1/rtr`]. */
export function ancestorPaths(path: string): string[] {
  const segments = path.split("/");
  return segments.map((_, i) => segments.slice(0, i + 1).join("/"));
}

export interface NodeLike {
  path: string;
  spec: SpecLine[];
  variables: Record<string, string>;
}

/** The effective spec and variables of the last node of `chain` (root first). */
export function effectiveOf(chain: NodeLike[]): { spec: SpecLine[]; variables: Record<string, string> } {
  let spec: SpecLine[] = [];
  let variables: Record<string, string> = {};
  for (const node of chain) {
    spec = mergeSpecs(spec, node.spec);
    variables = { ...variables, ...node.variables };
  }
  return { spec, variables };
}
