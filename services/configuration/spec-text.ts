/**
 * The text form of a config spec, as the real product's editor writes it
 * (docs/configuration-manager.md#the-text-form): one config line per line, children indented under
 * their parent, and markers in front of a line:
 *   <e/> severity error   <i/> severity info   <w/> (or nothing) severity warning
 *   {d/} disallowed       {i/} ignored          (nothing) required
 *   {o/} the line's children must appear in this order (a strict-order block: ACL entries)
 * Inside a line, `{{ name }}` is a variable and `{/pattern/}` a regex; they can sit inside a word
 * (`{{ site }}-core`). Lines starting with `!` or `#` are comments; Junos terminators (`;`, ` {`,
 * a lone `}`) are dropped so a brace config can be pasted as a spec.
 */
import { BadRequestError, invalidField } from "../../shared/errors";
import { checkSpec, SPEC_LIMITS, type SpecLine, type WordPart } from "./spec-model";

export const MAX_SPEC_TEXT = 1_000_000;

const MARKER = /^(<[eiw]\/>|\{[dio]\/\})\s*/;
/** A word: a run of regex, variable or plain text pieces up to the next whitespace outside them. */
const PIECE = /\{\/(.+?)\/\}|\{\{\s*([^{}\s]+)\s*\}\}|([^\s{]+|\{(?![{/]))/y;

/** Text form -> JSON spec lines (checked like JSON input). `field` names the input in errors. */
export function parseSpecText(text: string, field = "config"): SpecLine[] {
  if (text.length > MAX_SPEC_TEXT)
    throw invalidField(field, `A spec text is at most ${MAX_SPEC_TEXT} characters.`);
  const root: Record<string, unknown>[] = [];
  /** Each spec line's line number in the text, so a refusal found by checkSpec can name it. */
  const lineNumbers = new Map<object, number>();
  const stack: { indent: number; children: Record<string, unknown>[] }[] = [{ indent: -1, children: root }];
  const lines = text.split(/\r?\n/);
  for (let n = 0; n < lines.length; n++) {
    const raw = lines[n].replace(/\s+$/, "");
    const trimmed = raw.trim();
    if (trimmed === "" || trimmed === "}" || /^[!#]/.test(trimmed)) continue;
    const indent = raw.length - raw.trimStart().length;
    while (stack[stack.length - 1].indent >= indent) stack.pop();
    if (stack.length > SPEC_LIMITS.depth)
      throw invalidField(
        field,
        `Line ${n + 1}: the spec nests deeper than ${SPEC_LIMITS.depth} levels.`,
        "depth",
      );
    const line = parseLine(trimmed, `${field} line ${n + 1}`);
    lineNumbers.set(line, n + 1);
    stack[stack.length - 1].children.push(line);
    stack.push({ indent, children: line.children as Record<string, unknown>[] });
  }
  try {
    return checkSpec(root, field);
  } catch (err) {
    // The JSON path of a line means nothing to someone who wrote text: the field is the text
    // itself, and the message names the line of the text the refused spec line came from.
    if (!(err instanceof BadRequestError)) throw err;
    const path = (err.data as { field?: string }[] | undefined)?.[0]?.field ?? "";
    const n = lineOfPath(root, path.slice(field.length), lineNumbers);
    throw invalidField(field, n === undefined ? err.message : `Line ${n}: ${err.message}`, "spec");
  }
}

/** The text line of the deepest spec line a JSON path (`[3].children[0].words[1]`) goes through. */
function lineOfPath(root: unknown[], path: string, lineNumbers: Map<object, number>): number | undefined {
  let found: number | undefined;
  let at: unknown = root;
  for (const step of path.matchAll(/\[(\d+)\]|\.(\w+)/g)) {
    if (at === null || typeof at !== "object") break;
    at =
      step[1] !== undefined ? (at as unknown[])[Number(step[1])] : (at as Record<string, unknown>)[step[2]];
    if (at !== null && typeof at === "object") found = lineNumbers.get(at) ?? found;
  }
  return found;
}

function parseLine(text: string, where: string): Record<string, unknown> {
  let rest = text;
  const line: Record<string, unknown> = { evalMode: "required", severity: "warning", children: [] };
  for (let m = MARKER.exec(rest); m; m = MARKER.exec(rest)) {
    const marker = m[1];
    if (marker === "<e/>") line.severity = "error";
    else if (marker === "<i/>") line.severity = "info";
    else if (marker === "<w/>") line.severity = "warning";
    else if (marker === "{d/}") line.evalMode = "disallowed";
    else if (marker === "{i/}") line.evalMode = "ignored";
    else line.strictOrder = true;
    rest = rest.slice(m[0].length);
  }
  rest = rest
    .replace(/\s*\{$/, "")
    .replace(/;$/, "")
    .trim();
  if (rest === "") throw invalidField("config", `${where}: a marker without a config line.`);
  line.words = wordsOf(rest, where);
  return line;
}

function wordsOf(text: string, where: string): WordPart[][] {
  const words: WordPart[][] = [];
  let i = 0;
  while (i < text.length) {
    while (i < text.length && /\s/.test(text[i])) i++;
    if (i >= text.length) break;
    const word: WordPart[] = [];
    while (i < text.length && !/\s/.test(text[i])) {
      PIECE.lastIndex = i;
      const m = PIECE.exec(text);
      if (!m) throw invalidField("config", `${where}: cannot read '${text.slice(i, i + 40)}'.`);
      if (m[1] !== undefined) word.push({ type: "regex", value: m[1] });
      else if (m[2] !== undefined) word.push({ type: "variable", value: m[2] });
      else appendLiteral(word, m[3]);
      i = PIECE.lastIndex;
    }
    words.push(word);
  }
  return words;
}

function appendLiteral(word: WordPart[], text: string): void {
  const last = word[word.length - 1];
  if (last?.type === "literal") last.value += text;
  else word.push({ type: "literal", value: text });
}

/** JSON spec -> text form (what export and the node read answer beside the JSON). */
export function specToText(lines: SpecLine[], depth = 0): string {
  const out: string[] = [];
  for (const line of lines) {
    const markers =
      (line.severity === "error" ? "<e/>" : line.severity === "info" ? "<i/>" : "") +
      (line.evalMode === "disallowed" ? "{d/}" : line.evalMode === "ignored" ? "{i/}" : "") +
      (line.strictOrder ? "{o/}" : "");
    out.push(" ".repeat(depth) + markers + wordsText(line.words));
    if (line.children.length > 0) out.push(specToText(line.children, depth + 1));
  }
  return out.join("\n");
}

export function wordsText(words: WordPart[][]): string {
  return words.map((w) => w.map(partText).join("")).join(" ");
}

function partText(part: WordPart): string {
  return part.type === "literal"
    ? part.value
    : part.type === "variable"
      ? `{{ ${part.value} }}`
      : `{/${part.value}/}`;
}
