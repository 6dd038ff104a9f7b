/**
 * One device's evaluation, from config text to report fields: parse with the tree's parser, judge
 * against the node's effective spec, render the remediation. Pure (no store, no broker), so it runs
 * in a worker thread (evaluation-worker.ts, the pool of configuration.service.ts) or inline, and
 * what crosses to a worker is plain data: the parser's shape and the node chain (DeviceSpec).
 */
import { compileSpec, type CompiledLine } from "./compile-spec";
import { evaluate, type ComplianceIssue, type Evaluation } from "./compliance";
import { ConfigParseError } from "./config-tree";
import { effectiveOf } from "./inherit";
import { readerOf, type ConfigReader, type ParserShape } from "./parsers";
import { renderRemediation } from "./remediation";
import type { StoredNode } from "./nodes.repository";

/** What a device is checked against, as plain data: the parser and the node's chain, root first. */
export interface DeviceSpec {
  parser: ParserShape;
  chain: Pick<StoredNode, "path" | "spec" | "variables">[];
}

/** A DeviceSpec made ready once for every device checked against it. */
export interface PreparedSpec {
  reader: ConfigReader;
  compiled: CompiledLine[];
}

export interface DeviceResult extends Omit<Evaluation, "remedies"> {
  remediation: string;
}

export function prepareSpec(spec: DeviceSpec): PreparedSpec {
  const effective = effectiveOf(spec.chain);
  return { reader: readerOf(spec.parser), compiled: compileSpec(effective.spec, effective.variables) };
}

/** A backup's text against a compiled spec. A config no parser can read is one error issue. */
export function checkText(reader: ConfigReader, spec: CompiledLine[], text: string): DeviceResult {
  let evaluation: Evaluation;
  try {
    evaluation = evaluate(spec, reader.parse(text));
  } catch (err) {
    if (!(err instanceof ConfigParseError)) throw err;
    return unreadable(err.message);
  }
  const { remedies, ...rest } = evaluation;
  return { ...rest, remediation: renderRemediation(remedies, reader.style) };
}

/** A device that could not be checked (unreadable config, backup or node gone, over its time budget). */
export function unreadable(reason: string): DeviceResult {
  const issue: ComplianceIssue = {
    kind: "unreadable",
    severity: "error",
    specLine: "(config)",
    path: [],
    found: reason,
  };
  return {
    totals: { errors: 1, warnings: 0, infos: 0, passes: 0 },
    score: 0,
    compliant: false,
    issues: [issue],
    remediation: "",
  };
}
