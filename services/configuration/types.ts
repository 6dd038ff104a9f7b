/**
 * What the configuration service adds to a platform service, and its collections, in one place so
 * every handler file types `this` the same way (docs/architecture.md#the-shape-of-a-service).
 *
 * Collections:
 *   config_parsers      { _id, name (unique), template, lexRules, builtIn, style, created, lastUpdated }
 *   config_trees        { _id, name (unique), deviceType, parser, description, versions, created, lastUpdated }
 *   config_nodes        { _id, treeId, version, path, spec, variables, devices, ... } unique (treeId, version, path)
 *   config_backups      { _id, deviceName, description, config, timestamp } by (deviceName, timestamp), timestamp
 *   compliance_batches  { _id, treeId, version, nodePath, state, targets, done, totals, claimedBy, leaseUntil, ... }
 *   compliance_reports  { _id, batchId, treeId, version, nodePath, deviceName, backupId, timestamp, totals,
 *                         score, compliant, issues, remediation } unique (batchId, deviceName); by timestamp,
 *                         (deviceName|batchId, timestamp), (treeId, version, timestamp); backupId null: no backup
 */
import type { configuration as contract } from "../../shared/contracts/configuration";
import type { HandlerContext, PlatformService } from "../../shared/service";
import type { WorkerPool } from "../../shared/worker-pool";
import type { DeviceResult } from "./evaluation";
import type { NodeLike } from "./inherit";
import type { NodeView, SpecInput, SpecOutcome } from "./spec-check";

export const PARSERS = "config_parsers";
export const TREES = "config_trees";
export const NODES = "config_nodes";
export const BACKUPS = "config_backups";
export const BATCHES = "compliance_batches";
export const REPORTS = "compliance_reports";

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
export type PoolTask = { config: string } | { specs: SpecInput[] } | { view: NodeLike[] };
/** What the workers answer: a device's result, the specs' outcome, or the node's view. */
export type PoolResult = DeviceResult | SpecOutcome | NodeView;

export type Ctx<K extends keyof typeof contract.actions> = HandlerContext<typeof contract, K>;
