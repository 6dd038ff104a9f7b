/**
 * One compliance check, from the store to a report: the tree's parser and the node's chain (read
 * once per node and reused for every device of a batch) go with each device's config text to the
 * service's worker pool (evaluation.ts does the work, evaluation-worker.ts runs it), or are checked
 * inline when the pool has no workers (COMPLIANCE_WORKERS=0). A device over its time budget
 * (COMPLIANCE_BUDGET_MS) is reported unreadable with the reason. Batches and the
 * `checkCompliance` task share it.
 */
import { NotFoundError } from "../../shared/errors";
import { PoolClosedError } from "../../shared/worker-pool";
import {
  checkText,
  prepareSpec,
  unreadable,
  type DeviceResult,
  type DeviceSpec,
  type PreparedSpec,
} from "./evaluation";
import { parserShape } from "./parsers";
import { nodeChain, requireVersion } from "./trees";
import type { StoredBackup } from "./backups.repository";
import type { StoredNode } from "./nodes.repository";
import type { StoredTree } from "./trees.repository";
import type { ConfigurationService } from "./types";

export type { DeviceResult } from "./evaluation";

/** A node's DeviceSpec under a key unique to this checker (a worker prepares it once per key). */
export interface SpecRef {
  key: string;
  spec: DeviceSpec;
}

export interface Checker {
  tree: StoredTree;
  /** What a node's devices are checked against (read once per node per checker). */
  specOf(nodePath: string): Promise<SpecRef>;
  /** One device's config text against a node's spec. */
  check(spec: SpecRef, config: string): Promise<DeviceResult>;
}

let checkers = 0;

export async function checker(this: ConfigurationService, treeId: string, version: string): Promise<Checker> {
  const tree = await requireVersion.call(this, treeId, version);
  const parser = await parserShape.call(this, tree.parser);
  const id = `${process.pid}:${++checkers}`;
  const specs = new Map<string, Promise<SpecRef>>();
  const prepared = new WeakMap<SpecRef, PreparedSpec>();
  const specOf = (nodePath: string) => {
    let spec = specs.get(nodePath);
    if (!spec) {
      // Read-only: a spec of 10,000 lines is not copied on the shared loop, only sent to the workers.
      spec = nodeChain.call(this, treeId, version, nodePath, true).then((chain: StoredNode[]) => ({
        key: `${id}:${nodePath}`,
        spec: { parser, chain: chain.map(({ path, spec, variables }) => ({ path, spec, variables })) },
      }));
      specs.set(nodePath, spec);
    }
    return spec;
  };
  const evaluate = async (ref: SpecRef, config: string): Promise<DeviceResult> => {
    const pool = this.evaluationPool;
    if (!pool) {
      let ready = prepared.get(ref);
      if (!ready) prepared.set(ref, (ready = prepareSpec(ref.spec)));
      return checkText(ready.reader, ready.compiled, config);
    }
    const outcome = await pool.run({ config }, { key: ref.key, value: ref.spec });
    if (outcome.overBudget)
      return unreadable(
        `evaluation took longer than its time budget of ${outcome.budgetMs} ms (COMPLIANCE_BUDGET_MS)`,
      );
    return outcome.result as DeviceResult; // a `{ config }` task answers a device's result
  };
  // One device that cannot be evaluated is that device's report, not the batch's end; a stopping
  // service's pool is (the batch is handed back).
  const check = (ref: SpecRef, config: string) =>
    evaluate(ref, config).catch((err: Error) => {
      if (err instanceof PoolClosedError) throw err;
      return unreadable(`evaluation failed: ${err.message}`);
    });
  return { tree, specOf, check };
}

export async function loadBackup(this: ConfigurationService, id: string): Promise<StoredBackup> {
  const backup = await this.backups.byId(id);
  if (!backup) throw new NotFoundError("Backup", id);
  return backup;
}
