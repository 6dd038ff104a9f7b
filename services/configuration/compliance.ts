/**
 * The compliance engine (docs/configuration-manager.md#compliance): a device's parsed config against
 * a node's effective spec. Pure: no store, no broker, so it is unit-tested line by line and a batch
 * runs it as fast as the CPU allows.
 *
 * Rules, per spec line, among the config lines under the same parent:
 *  - required: some line matches (same word count, each word matching) -> a pass, and the spec line's
 *    children are checked under every matching line; none matches -> an issue: `mismatch` when a
 *    line shares its fixed leading words (the same command, another value), `misplaced` when a
 *    matching line sits elsewhere in the config (wrong nesting), `missing` otherwise;
 *  - disallowed: every matching line is an issue (`disallowed`); none -> a pass;
 *  - ignored: not checked, nor its children.
 * A strict-order block (`{o/}`) also needs its required children's first matches in spec order,
 * else one `order` issue; its remediation rewrites the block.
 */
import type { ConfigLine } from "./config-tree";
import { wordsMatch, type CompiledLine, type WordMatcher } from "./compile-spec";
import type { Severity } from "./spec-model";
import type { RemedyLine } from "./remediation";

/** `unreadable`: the config could not be parsed (or its backup or node is gone): one error, nothing checked. */
export type IssueKind = "missing" | "mismatch" | "misplaced" | "disallowed" | "order" | "unreadable";

export interface ComplianceIssue {
  kind: IssueKind;
  severity: Severity;
  /** The spec line (text form) the issue is about. */
  specLine: string;
  /** The config lines above it, outermost first (empty at the top level). */
  path: string[];
  /** The config line found (disallowed, mismatch, misplaced, order: the block's lines as found). */
  found?: string;
  /** Its 1-based line number in the device config. */
  line?: number;
  /** The line the spec expects, variables filled. */
  expected?: string;
  /** Variables of the spec line that have no value on the node (they match any word). */
  unsetVariables?: string[];
}

export interface Totals {
  errors: number;
  warnings: number;
  infos: number;
  passes: number;
}

export interface Evaluation {
  totals: Totals;
  /** 100 x passes / (passes + issues), rounded; 100 when the spec checks nothing. */
  score: number;
  /** No error and no warning (info issues are for the record). */
  compliant: boolean;
  issues: ComplianceIssue[];
  /** What would fix it, as a tree under parent lines (remediation.ts renders it in config syntax). */
  remedies: Remedy[];
}

/** One fix: lines to add (or negate) under the given parent lines. */
export interface Remedy {
  parents: string[];
  lines: RemedyLine[];
}

interface Node {
  text: string;
  line: number;
  words: string[];
  children: Node[];
  byFirstWord?: Map<string, Node[]>;
}

export const MAX_ISSUES = 10_000;

export function toNodes(lines: ConfigLine[]): Node[] {
  return lines.map((l) => ({
    text: l.text,
    line: l.line,
    words: wordsOf(l.text),
    children: toNodes(l.children),
  }));
}

/** The words of a line (one array: this runs for every line of every device). */
function wordsOf(text: string): string[] {
  const words = text.split(/\s+/);
  if (words[0] === "") words.shift();
  if (words.length > 0 && words[words.length - 1] === "") words.pop();
  return words;
}

class Evaluator {
  readonly issues: ComplianceIssue[] = [];
  readonly remedies: Remedy[] = [];
  passes = 0;
  private flat?: { node: Node; path: string[] }[];
  /** The indexes of candidates(), for this evaluation only (a plain Map: no weak keys for the GC to trace). */
  private readonly indexes: Indexes = new Map();

  constructor(private readonly root: Node[]) {}

  lines(specs: CompiledLine[], nodes: Node[], path: string[]): void {
    for (const spec of specs) {
      if (spec.evalMode === "ignored") continue;
      const matches = candidates(spec, nodes, this.indexes).filter((n) => wordsMatch(spec.matchers, n.words));
      if (spec.evalMode === "disallowed") this.disallowed(spec, matches, path);
      else if (matches.length > 0) this.present(spec, matches, path);
      else this.absent(spec, nodes, path);
    }
  }

  private disallowed(spec: CompiledLine, matches: Node[], path: string[]): void {
    if (matches.length === 0) {
      this.passes++;
      return;
    }
    for (const found of matches) {
      this.issue({
        kind: "disallowed",
        severity: spec.severity,
        specLine: spec.text,
        path,
        found: found.text,
        line: found.line,
      });
      this.remedies.push({ parents: path, lines: [{ text: found.text, negate: true, children: [] }] });
    }
  }

  private present(spec: CompiledLine, matches: Node[], path: string[]): void {
    this.passes++;
    if (spec.children.length === 0) return;
    for (const match of matches) {
      const inner = [...path, match.text];
      if (!spec.strictOrder) {
        this.lines(spec.children, match.children, inner);
        continue;
      }
      // A strict-order block: its own fixes are replaced by one rewrite when the order is broken.
      const remediesBefore = this.remedies.length;
      this.lines(spec.children, match.children, inner);
      if (!inOrder(spec.children, match.children)) {
        this.remedies.length = remediesBefore;
        this.issue({
          kind: "order",
          severity: spec.severity,
          specLine: spec.text,
          path,
          found: match.children.map((c) => c.text).join("\n"),
          line: match.line,
        });
        this.remedies.push(
          { parents: path, lines: [{ text: match.text, negate: true, children: [] }] },
          { parents: path, lines: [rewriteBlock(spec, match)] },
        );
      }
    }
  }

  private absent(spec: CompiledLine, nodes: Node[], path: string[]): void {
    const base = {
      severity: spec.severity,
      specLine: spec.text,
      path,
      expected: spec.render,
      ...(spec.unsetVariables.length > 0 && { unsetVariables: spec.unsetVariables }),
    };
    const sameCommand =
      spec.literalPrefix > 0 && spec.literalPrefix < spec.matchers.length
        ? candidates(spec, nodes, this.indexes).find((n) => sharesPrefix(spec, n.words))
        : undefined;
    const elsewhere = sameCommand ? undefined : this.findElsewhere(spec, path);
    if (sameCommand)
      this.issue({ kind: "mismatch", ...base, found: sameCommand.text, line: sameCommand.line });
    else if (elsewhere)
      this.issue({
        kind: "misplaced",
        ...base,
        found: [...elsewhere.path, elsewhere.node.text].join(" > "),
        line: elsewhere.node.line,
      });
    else this.issue({ kind: "missing", ...base });
    this.remedies.push({ parents: path, lines: [renderRequired(spec)] });
  }

  /**
   * A line matching `spec` at another nesting than `path` (wrong nesting): at another depth, or under
   * another kind of parent. The same line under a sibling block (another interface) is not misplaced.
   */
  private findElsewhere(spec: CompiledLine, path: string[]) {
    this.flat ??= flatten(this.root, []);
    const parentKind = (p: string[]) => (p.length === 0 ? "" : p[p.length - 1].split(/\s+/)[0]);
    const lines =
      spec.literalPrefix === 0
        ? this.flat
        : (byPrefix(this.indexes, this.flat, (e) => e.node.words, spec.literalPrefix).get(
            prefixKey(spec.matchers, spec.literalPrefix),
          ) ?? []);
    return lines.find(
      (e) =>
        (e.path.length !== path.length || parentKind(e.path) !== parentKind(path)) &&
        wordsMatch(spec.matchers, e.node.words),
    );
  }

  private issue(issue: ComplianceIssue): void {
    if (this.issues.length < MAX_ISSUES) this.issues.push(issue);
  }
}

/**
 * Config lines a spec line could match: those sharing its fixed leading words (all of them, in
 * config order), found through an index instead of a scan, so a spec of thousands of lines against a
 * config of thousands stays linear in practice.
 */
function candidates(spec: CompiledLine, nodes: Node[], indexes: Indexes): Node[] {
  if (spec.literalPrefix === 0 || nodes.length < 8) return nodes;
  return (
    byPrefix(indexes, nodes, (n) => n.words, spec.literalPrefix).get(
      prefixKey(spec.matchers, spec.literalPrefix),
    ) ?? []
  );
}

type Indexes = Map<object[], Map<number, Map<string, object[]>>>;

/** The first `k` words as one key (NUL cannot be in a word); the word itself for one. */
function prefixKey(words: readonly WordMatcher[], k: number): string {
  return k === 1 ? (words[0] as string) : words.slice(0, k).join("\u0000");
}

/** `items` grouped by their first `k` words (items with fewer words left out), kept in `indexes`. */
function byPrefix<T extends object>(
  indexes: Indexes,
  items: T[],
  words: (item: T) => string[],
  k: number,
): Map<string, T[]> {
  let perK = indexes.get(items);
  if (!perK) indexes.set(items, (perK = new Map()));
  let index = perK.get(k) as Map<string, T[]> | undefined;
  if (!index) {
    index = new Map();
    for (const item of items) {
      const w = words(item);
      if (w.length < k) continue;
      const key = prefixKey(w, k);
      const list = index.get(key);
      if (list) list.push(item);
      else index.set(key, [item]);
    }
    perK.set(k, index as Map<string, object[]>);
  }
  return index;
}

function sharesPrefix(spec: CompiledLine, words: string[]): boolean {
  if (words.length < spec.literalPrefix) return false;
  for (let i = 0; i < spec.literalPrefix; i++) if (spec.matchers[i] !== words[i]) return false;
  return true;
}

function flatten(nodes: Node[], path: string[]): { node: Node; path: string[] }[] {
  return nodes.flatMap((node) => [{ node, path }, ...flatten(node.children, [...path, node.text])]);
}

/** The required children's first matches, in spec order, sit in increasing config order. */
function inOrder(specs: CompiledLine[], nodes: Node[]): boolean {
  let last = -1;
  for (const spec of specs) {
    if (spec.evalMode !== "required") continue;
    const at = nodes.findIndex((n) => wordsMatch(spec.matchers, n.words));
    if (at === -1) continue;
    if (at < last) return false;
    last = at;
  }
  return true;
}

/** A required line and its required descendants, as config lines to add. */
function renderRequired(spec: CompiledLine): RemedyLine {
  return {
    text: spec.render,
    negate: false,
    children: spec.children.filter((c) => c.evalMode === "required").map(renderRequired),
  };
}

/** A strict-order block rebuilt: spec lines in spec order (as found, or rendered), then the rest as found. */
function rewriteBlock(spec: CompiledLine, block: Node): RemedyLine {
  const used = new Set<Node>();
  const children: RemedyLine[] = [];
  for (const child of spec.children) {
    if (child.evalMode === "ignored") continue;
    const found = block.children.find((n) => !used.has(n) && wordsMatch(child.matchers, n.words));
    if (child.evalMode === "disallowed") {
      if (found) used.add(found);
      continue;
    }
    if (found) {
      used.add(found);
      children.push(asRemedy(found));
    } else children.push(renderRequired(child));
  }
  for (const n of block.children) if (!used.has(n)) children.push(asRemedy(n));
  return { text: block.text, negate: false, children };
}

function asRemedy(node: Node): RemedyLine {
  return { text: node.text, negate: false, children: node.children.map(asRemedy) };
}

/** Evaluates a parsed config against a compiled spec. */
export function evaluate(spec: CompiledLine[], config: ConfigLine[]): Evaluation {
  const root = toNodes(config);
  const evaluator = new Evaluator(root);
  evaluator.lines(spec, root, []);
  const totals: Totals = { errors: 0, warnings: 0, infos: 0, passes: evaluator.passes };
  for (const issue of evaluator.issues) {
    if (issue.severity === "error") totals.errors++;
    else if (issue.severity === "warning") totals.warnings++;
    else totals.infos++;
  }
  const checked = totals.passes + evaluator.issues.length;
  return {
    totals,
    score: checked === 0 ? 100 : Math.round((100 * totals.passes) / checked),
    compliant: totals.errors === 0 && totals.warnings === 0,
    issues: evaluator.issues,
    remedies: evaluator.remedies,
  };
}
