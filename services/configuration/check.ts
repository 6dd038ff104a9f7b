/**
 * One compliance check, from the store to a report: the tree's parser reads the backup, the node's
 * effective spec (compiled once per node and reused for every device of a batch) judges it, and the
 * remediation is rendered in the parser's syntax. Batches and the `checkCompliance` task share it.
 */
import type { Backup, GoldenConfigTree, TreeNode } from "../../shared/contracts/configuration";
import { NotFoundError } from "../../shared/errors";
import { compileSpec, type CompiledLine } from "./compile-spec";
import { ConfigParseError } from "./config-tree";
import { evaluate, type ComplianceIssue, type Evaluation } from "./compliance";
import { effectiveOf } from "./inherit";
import { loadParser, type ConfigReader } from "./parsers";
import { renderRemediation } from "./remediation";
import type { SpecLine } from "./spec-model";
import { nodeChain, requireVersion } from "./trees";
import { BACKUPS, type ConfigurationService } from "./types";

export interface Checker {
  tree: GoldenConfigTree;
  reader: ConfigReader;
  /** The compiled effective spec of a node path (cached per checker). */
  specOf(nodePath: string): Promise<CompiledLine[]>;
}

export async function checker(this: ConfigurationService, treeId: string, version: string): Promise<Checker> {
  const tree = await requireVersion.call(this, treeId, version);
  const reader = await loadParser.call(this, tree.parser);
  const compiled = new Map<string, Promise<CompiledLine[]>>();
  const specOf = (nodePath: string) => {
    let spec = compiled.get(nodePath);
    if (!spec) {
      spec = nodeChain.call(this, treeId, version, nodePath).then((chain: TreeNode[]) => {
        const effective = effectiveOf(chain.map((n) => ({ ...n, spec: n.spec as unknown as SpecLine[] })));
        return compileSpec(effective.spec, effective.variables);
      });
      compiled.set(nodePath, spec);
    }
    return spec;
  };
  return { tree, reader, specOf };
}

export interface DeviceResult extends Omit<Evaluation, "remedies"> {
  remediation: string;
}

/** A backup's text against a compiled spec. A config no parser can read is one error issue. */
export function checkText(reader: ConfigReader, spec: CompiledLine[], text: string): DeviceResult {
  let evaluation: Evaluation;
  try {
    evaluation = evaluate(spec, reader.parse(text));
  } catch (err) {
    if (!(err instanceof ConfigParseError)) throw err;
    const issue: ComplianceIssue = {
      kind: "unreadable",
      severity: "error",
      specLine: "(config)",
      path: [],
      found: err.message,
    };
    return {
      totals: { errors: 1, warnings: 0, infos: 0, passes: 0 },
      score: 0,
      compliant: false,
      issues: [issue],
      remediation: "",
    };
  }
  const { remedies, ...rest } = evaluation;
  return { ...rest, remediation: renderRemediation(remedies, reader.style) };
}

export async function loadBackup(this: ConfigurationService, id: string): Promise<Backup> {
  const backup = await this.store.collection<Backup>(BACKUPS).findOne({ _id: id });
  if (!backup) throw new NotFoundError("Backup", id);
  return backup;
}
