/**
 * configuration: config parsers, golden config trees, backups, compliance batches and reports (spec
 * operations 6, 9, 11; docs/configuration-manager.md). Every replica runs the same batch worker on a
 * timer; which replica runs a batch is settled by a lease in the store (batches.ts), so any number of
 * replicas share the work and a dead replica's batch resumes elsewhere.
 *
 * Its collections: one repository each (./types.ts lists them).
 */
import { configuration as contract } from "../../shared/contracts/configuration";
import { configOf } from "../../shared/runtime";
import { contractActions, storeMixin, typedService } from "../../shared/service";
import { WorkerPool, workerEntry } from "../../shared/worker-pool";
import { createBackup, getBackup, listBackups } from "./backups";
import { getBatch, getReport, listBatchReports, runCompliance, sweep, sweepInBackground } from "./batches";
import { exportGoldenConfig, importGoldenConfig } from "./export";
import { complianceHistory, listReports } from "./history";
import {
  createParser,
  deleteParser,
  getParser,
  listParsers,
  seedBuiltInParsers,
  updateParser,
} from "./parsers";
import { checkCompliance, remediate } from "./tasks";
import {
  createTree,
  createVersion,
  deleteNode,
  deleteTree,
  getNode,
  getTree,
  listTrees,
  setNode,
  updateVersion,
} from "./trees";
import { BackupsRepository } from "./backups.repository";
import { BatchesRepository } from "./batches.repository";
import { NodesRepository } from "./nodes.repository";
import { ParsersRepository } from "./parsers.repository";
import { ReportsRepository } from "./reports.repository";
import { TreesRepository } from "./trees.repository";
import type { ConfigurationService } from "./types";

export default typedService<ConfigurationService>({
  name: contract.name,
  mixins: [storeMixin],

  actions: contractActions<typeof contract.name, typeof contract.actions, ConfigurationService>(contract, {
    listParsers,
    createParser,
    getParser,
    updateParser,
    deleteParser,
    exportGoldenConfig,
    importGoldenConfig,
    createTree,
    listTrees,
    getTree,
    deleteTree,
    createVersion,
    updateVersion,
    setNode,
    getNode,
    deleteNode,
    createBackup,
    getBackup,
    listBackups,
    runCompliance,
    getBatch,
    listBatchReports,
    listReports,
    getReport,
    complianceHistory,
    checkCompliance,
    remediate,
    sweep,
  }),

  created() {
    this.limits = { ...configOf(this.broker).compliance };
    this.clock = Date.now;
  },

  async started() {
    this.parsers = new ParsersRepository(this.store);
    this.trees = new TreesRepository(this.store);
    this.nodes = new NodesRepository(this.store);
    this.backups = new BackupsRepository(this.store);
    this.batches = new BatchesRepository(this.store);
    this.reports = new ReportsRepository(this.store);
    for (const repository of [this.parsers, this.trees, this.nodes, this.backups, this.batches, this.reports])
      await repository.ensureIndexes();
    await seedBuiltInParsers.call(this);
    this.stopping = false;
    // Threads start when the first device is checked; an idle replica runs none.
    if (this.limits.workers > 0)
      this.evaluationPool = new WorkerPool(workerEntry(__dirname, "evaluation-worker"), {
        size: this.limits.workers,
        budgetMs: this.limits.deviceBudgetMs,
        nice: this.limits.workerNice,
      });
    this.timer = setInterval(() => sweepInBackground.call(this), this.limits.sweepMs);
    this.timer.unref();
    sweepInBackground.call(this);
  },

  async stopped() {
    this.stopping = true;
    clearInterval(this.timer);
    // Closing the pool first ends a running chunk at once: the sweep hands its batch back.
    await this.evaluationPool?.close();
    this.evaluationPool = undefined;
    await this.sweeping?.catch(() => undefined);
  },
});
