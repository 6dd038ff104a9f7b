/**
 * The spec work of a request, off the shared event loop when it is heavy (docs/security.md#stalls):
 * checking the specs a request sends (a node's `config` text or JSON `spec`, or every node of an
 * import), and a node's read view (its text form and its effective spec, merged down its chain). Compiling a
 * spec's regex words with RE2 is what costs: about 50 µs a word, so a spec at its bound (10,000
 * lines of regex words) takes half a second on one core. A spec with more than HEAVY_REGEX_PARTS
 * regex parts, or a text over HEAVY_TEXT characters, is checked in the configuration service's
 * worker pool (the compliance workers, under a budget of its own); a light one inline, so an
 * everyday edit never waits behind a compliance batch's queue.
 *
 * What crosses to a worker and back is plain data: the inputs, then each spec's checked lines (as
 * JSON text: one string to copy, not an object graph to clone) and text form, or the 400 that names
 * the first bad field. A read's view goes the same way: the specs the service keeps with their text
 * go as that text, and the effective spec comes back as text.
 */
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { afterPendingIo } from "../../shared/event-loop";
import { BadRequestError, invalidField, type FieldError } from "../../shared/errors";
import { keptJsonText, parseKeptInTurns } from "../../shared/frozen-json";
import { configOf } from "../../shared/runtime";
import { effectiveOf, type NodeLike } from "./inherit";
import { checkSpec, type SpecLine } from "./spec-model";
import { parseSpecText, specToText } from "./spec-text";
import type { ConfigurationService } from "./types";

export const HEAVY_REGEX_PARTS = 64;
export const HEAVY_TEXT = 64 * 1024;
/**
 * The time budget of spec work in a worker. It is bounded by the specs' own bounds (a spec at its
 * bounds checks in ~0.5 s on a quiet core), so this only stops a worker that is stuck, and is
 * generous for a host short of CPU; the devices' budget (COMPLIANCE_BUDGET_MS) is not for this.
 */
export const SPEC_WORK_BUDGET_MS = 60_000;
/** Spec lines along a node's chain above which its read view is made in a worker. */
export const HEAVY_VIEW_LINES = 2000;

/** One spec of a request: its text form or its JSON form, and the field that names it in errors. */
export interface SpecInput {
  field: string;
  config?: string;
  spec?: unknown;
}

/**
 * A spec checked: its lines as JSON text, and its text form. The lines cross back from a worker as
 * one string, not as an object graph to clone, and reach the store as that text (specLinesOf).
 */
export interface CheckedSpec {
  specJson: string;
  config: string;
}

/** Each spec checked, or the first input's 400 as plain data. */
export type SpecOutcome = { checked: CheckedSpec[] } | { invalid: { message: string; data: FieldError[] } };

/** The pure check (in a worker or inline): the inputs in order, or the first one's 400. */
export function checkSpecInputs(inputs: SpecInput[]): SpecOutcome {
  try {
    return {
      checked: inputs.map((input) => {
        const spec =
          input.config !== undefined
            ? parseSpecText(input.config, input.field)
            : checkSpec(input.spec, input.field);
        return { specJson: JSON.stringify(spec), config: specToText(spec) };
      }),
    };
  } catch (err) {
    if (!(err instanceof BadRequestError)) throw err;
    return { invalid: { message: err.message, data: (err.data ?? []) as FieldError[] } };
  }
}

/** Whether the inputs hold enough regex parts (or text) to be worth a worker. */
export function isHeavy(inputs: SpecInput[]): boolean {
  let regexParts = 0;
  let text = 0;
  for (const input of inputs) {
    if (input.config !== undefined) {
      text += input.config.length;
      for (let at = input.config.indexOf("{/"); at >= 0; at = input.config.indexOf("{/", at + 2))
        if (++regexParts > HEAVY_REGEX_PARTS) return true;
    } else regexParts += regexPartsOf(input.spec, HEAVY_REGEX_PARTS + 1 - regexParts);
    if (regexParts > HEAVY_REGEX_PARTS || text > HEAVY_TEXT) return true;
  }
  return false;
}

/**
 * Regex parts of a JSON spec, counted up to `atMost` (a light walk: the contract bounds the body;
 * the shapes are checked later, so anything unexpected is simply not counted).
 */
function regexPartsOf(value: unknown, atMost: number): number {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && count < atMost) {
    const item = stack.pop();
    if (Array.isArray(item)) for (const v of item) stack.push(v);
    else if (item && typeof item === "object") {
      const o = item as Record<string, unknown>;
      if (o.type === "regex") count++;
      if (o.words !== undefined) stack.push(o.words);
      if (o.children !== undefined) stack.push(o.children);
    }
  }
  return count;
}

/**
 * Spec lines from their JSON text (a checked spec's, or a view's effective spec from a worker),
 * parsed in one turn of the event loop and answered in a later one. With the performance machinery
 * (PERF_MACHINERY) they are deep-frozen with their text kept beside them (shared/frozen-json.ts
 * parseKeptInTurns): the embedded store keeps them as given (no copy of a 10,000-line spec; its log
 * line is this text), and answers and worker tasks that carry them use the text instead of
 * serializing the lines again.
 */
export async function specLinesOf(this: ConfigurationService, specJson: string): Promise<SpecLine[]> {
  if (configOf(this.broker).perfMachinery) return (await parseKeptInTurns(specJson)) as SpecLine[];
  const lines = JSON.parse(specJson) as SpecLine[];
  await yieldToEventLoop();
  return lines;
}

/** The inputs checked (in a worker when heavy): their lines and text forms, or the 400. */
export async function checkedSpecs(this: ConfigurationService, inputs: SpecInput[]): Promise<CheckedSpec[]> {
  const pool = this.evaluationPool;
  let outcome: SpecOutcome;
  if (!pool || !isHeavy(inputs)) outcome = checkSpecInputs(inputs);
  else {
    // The body's parse and bounds walk ran in this turn; the copy to the worker (a structured clone:
    // tens of ms for an import's 5,000 spec lines as objects) gets one of its own.
    await afterPendingIo();
    const run = await pool.run({ specs: inputs }, undefined, SPEC_WORK_BUDGET_MS);
    if (run.overBudget)
      throw invalidField(inputs[0].field, `Checking the spec took longer than ${run.budgetMs} ms.`, "budget");
    outcome = run.result as SpecOutcome; // a `{ specs }` task answers the specs' outcome
  }
  if ("invalid" in outcome) throw new BadRequestError(outcome.invalid.message, outcome.invalid.data);
  return outcome.checked;
}

/** What a node read answers beside the stored node: its text form and its effective spec. */
export interface NodeView {
  config: string;
  effective: { spec: SpecLine[]; config: string; variables: Record<string, string> };
}

/** A view as it crosses back from a worker: the effective spec as JSON text, one string to copy. */
export interface ViewReply {
  config: string;
  effective: { specJson: string; config: string; variables: Record<string, string> };
}

/** The view of a worker's task (viewOf), its effective spec as text. */
export function viewReplyOf(chain: NodeLike[]): ViewReply {
  const { config, effective } = viewOf(chain);
  const { spec, ...rest } = effective;
  return { config, effective: { specJson: JSON.stringify(spec), ...rest } };
}

/** The pure view (in a worker or inline) of the last node of `chain` (root first). */
export function viewOf(chain: NodeLike[]): NodeView {
  const effective = effectiveOf(chain);
  return {
    config: specToText(chain[chain.length - 1].spec),
    effective: { spec: effective.spec, config: specToText(effective.spec), variables: effective.variables },
  };
}

/** Spec lines of a chain, counted up to `atMost`. */
function linesOf(chain: NodeLike[], atMost: number): number {
  let count = 0;
  const stack: SpecLine[][] = chain.map((n) => n.spec);
  while (stack.length > 0 && count < atMost) {
    const lines = stack.pop()!;
    count += lines.length;
    for (const line of lines) if (line.children.length > 0) stack.push(line.children);
  }
  return count;
}

/**
 * A node of a view task as it crosses to a worker: its spec as the text kept beside it when there
 * is one (specLinesOf), one string to copy instead of an object graph to clone.
 */
export type ViewNode = Omit<NodeLike, "spec"> & ({ spec: SpecLine[] } | { specJson: string });

function toViewNode(node: NodeLike): ViewNode {
  const specJson = keptJsonText(node.spec);
  return specJson === undefined ? node : { path: node.path, variables: node.variables, specJson };
}

/** A view task's node as the worker reads it. */
export function viewNodeOf(node: ViewNode): NodeLike {
  if (!("specJson" in node)) return node;
  return { path: node.path, variables: node.variables, spec: JSON.parse(node.specJson) as SpecLine[] };
}

/** A node's read view, made in a worker when its chain holds more than HEAVY_VIEW_LINES lines. */
export async function nodeView(this: ConfigurationService, chain: NodeLike[]): Promise<NodeView> {
  const pool = this.evaluationPool;
  if (!pool || linesOf(chain, HEAVY_VIEW_LINES + 1) <= HEAVY_VIEW_LINES) return viewOf(chain);
  const run = await pool.run({ view: chain.map(toViewNode) }, undefined, SPEC_WORK_BUDGET_MS);
  // Merging and rendering is linear in the lines: only a pool stopping or stalled gets here.
  if (run.overBudget) throw new Error(`reading the node took longer than ${run.budgetMs} ms`);
  const reply = run.result as ViewReply; // a `{ view }` task answers the node's view
  const { specJson, ...effective } = reply.effective;
  return { config: reply.config, effective: { spec: await specLinesOf.call(this, specJson), ...effective } };
}
