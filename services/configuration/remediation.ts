/**
 * Remediation (docs/configuration-manager.md#remediation): the config lines that would bring a device
 * to compliance, as text for a person to review. Nothing is pushed to a device.
 *  - indentation style (IOS, IOS-XR, NX-OS, EOS): fixes grouped under their parent lines, one space
 *    of indentation per level, parents written once, in the order the issues were found; a line
 *    to remove is negated with `no ...` (and a `no ...` line to remove is written without its `no`);
 *  - brace style (Junos): one `set <path> <line>` per line to add and `delete <path> <line>` per
 *    line to remove, the hierarchy written out in each command.
 */
import type { Remedy } from "./compliance";

export interface RemedyLine {
  text: string;
  /** Remove this line instead of adding it. */
  negate: boolean;
  children: RemedyLine[];
}

export type Style = "indent" | "braces";

export function renderRemediation(remedies: Remedy[], style: Style): string {
  return style === "braces" ? renderSetCommands(remedies) : renderIndented(remedies);
}

interface Branch {
  lines: string[];
  children: Map<string, Branch>;
  order: (string | { parent: string })[];
}

function renderIndented(remedies: Remedy[]): string {
  const root: Branch = { lines: [], children: new Map(), order: [] };
  for (const remedy of remedies) {
    let branch = root;
    for (const parent of remedy.parents) {
      let next = branch.children.get(parent);
      if (!next) {
        next = { lines: [], children: new Map(), order: [] };
        branch.children.set(parent, next);
        branch.order.push({ parent });
      }
      branch = next;
    }
    for (const line of remedy.lines) branch.order.push(...indentedLines(line, 0));
  }
  const out: string[] = [];
  writeBranch(root, 0, out);
  return out.join("\n");
}

function indentedLines(line: RemedyLine, depth: number): string[] {
  const own = " ".repeat(depth) + (line.negate ? negateIos(line.text) : line.text);
  return [own, ...line.children.flatMap((c) => indentedLines(c, depth + 1))];
}

function writeBranch(branch: Branch, depth: number, out: string[]): void {
  for (const item of branch.order) {
    if (typeof item === "string") out.push(" ".repeat(depth) + item);
    else {
      out.push(" ".repeat(depth) + item.parent);
      writeBranch(branch.children.get(item.parent)!, depth + 1, out);
    }
  }
}

export function negateIos(text: string): string {
  const first = text.split("\n")[0];
  return first.startsWith("no ") ? first.slice(3) : `no ${first}`;
}

function renderSetCommands(remedies: Remedy[]): string {
  const out: string[] = [];
  for (const remedy of remedies) for (const line of remedy.lines) setCommands(line, remedy.parents, out);
  return out.join("\n");
}

function setCommands(line: RemedyLine, parents: string[], out: string[]): void {
  const path = [...parents, line.text].join(" ");
  if (line.negate) out.push(`delete ${path}`);
  else if (line.children.length === 0) out.push(`set ${path}`);
  else for (const child of line.children) setCommands(child, [...parents, line.text], out);
}
