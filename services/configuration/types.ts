/**
 * What the configuration service adds to a platform service, and its collections, in one place so
 * every handler file types `this` the same way (docs/architecture.md#the-shape-of-a-service).
 *
 * Collections: one repository each (docs/architecture.md#repositories), built in `started`:
 *   config_parsers      ./parsers.repository.ts
 *   config_trees        ./trees.repository.ts
 *   config_nodes        ./nodes.repository.ts
 *   config_backups      ./backups.repository.ts
 *   compliance_batches  ./batches.repository.ts
 *   compliance_reports  ./reports.repository.ts
 */
import type { configuration as contract } from "../../shared/contracts/configuration";
import type { HandlerContext, PlatformService } from "../../shared/service";
import type { WorkerPool } from "../../shared/worker-pool";
import type { BackupsRepository } from "./backups.repository";
import type { BatchesRepository } from "./batches.repository";
import type { NodesRepository } from "./nodes.repository";
import type { ParsersRepository } from "./parsers.repository";
import type { ReportsRepository } from "./reports.repository";
import type { TreesRepository } from "./trees.repository";
import type { DeviceResult } from "./evaluation";
import type { SpecInput, SpecOutcome, ViewNode, ViewReply } from "./spec-check";

export interface ComplianceLimits {
  /** How often each replica looks for batches to run (queued, or a dead replica's). */
  sweepMs: number;
  /** How long a claim on a batch holds without renewal. */
  leaseMs: number;
  /** Devices checked between two progress writes (and lease renewals). */
  chunk: number;
  /** Worker threads evaluating devices (0: on the service's own event loop). */
  workers: number;
  /** How long one device's evaluation may take before it is reported unreadable. */
  deviceBudgetMs: number;
  /** Linux nice value of the evaluation threads. */
  workerNice: number;
}

export type ConfigurationService = PlatformService<{
  parsers: ParsersRepository;
  trees: TreesRepository;
  nodes: NodesRepository;
  backups: BackupsRepository;
  batches: BatchesRepository;
  reports: ReportsRepository;
  limits: ComplianceLimits;
  clock: () => number;
  timer?: NodeJS.Timeout;
  sweeping?: Promise<unknown>;
  stopping?: boolean;
  /**
   * The worker threads devices are evaluated in (check.ts) and heavy specs checked in
   * (spec-check.ts); none when `limits.workers` is 0.
   */
  evaluationPool?: WorkerPool<PoolResult>;
}>;

/**
 * A task of the compliance workers: one device's config text, a request's specs to check, or a
 * node's read view to make (spec-check.ts).
 */
export type PoolTask = { config: string } | { specs: SpecInput[] } | { view: ViewNode[] };
/** What the workers answer: a device's result, the specs' outcome, or the node's view. */
export type PoolResult = DeviceResult | SpecOutcome | ViewReply;

export type Ctx<K extends keyof typeof contract.actions> = HandlerContext<typeof contract, K>;
