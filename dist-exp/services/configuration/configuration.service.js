"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * configuration: config parsers, golden config trees, backups, compliance batches and reports (spec
 * operations 6, 9, 11; docs/configuration-manager.md). Every replica runs the same batch worker on a
 * timer; which replica runs a batch is settled by a lease in the store (batches.ts), so any number of
 * replicas share the work and a dead replica's batch resumes elsewhere.
 */
const configuration_1 = require("../../shared/contracts/configuration");
const runtime_1 = require("../../shared/runtime");
const service_1 = require("../../shared/service");
const backups_1 = require("./backups");
const batches_1 = require("./batches");
const export_1 = require("./export");
const history_1 = require("./history");
const parsers_1 = require("./parsers");
const tasks_1 = require("./tasks");
const trees_1 = require("./trees");
const types_1 = require("./types");
exports.default = (0, service_1.typedService)({
    name: configuration_1.configuration.name,
    mixins: [service_1.storeMixin],
    actions: (0, service_1.contractActions)(configuration_1.configuration, {
        listParsers: parsers_1.listParsers,
        createParser: parsers_1.createParser,
        getParser: parsers_1.getParser,
        updateParser: parsers_1.updateParser,
        deleteParser: parsers_1.deleteParser,
        exportGoldenConfig: export_1.exportGoldenConfig,
        importGoldenConfig: export_1.importGoldenConfig,
        createTree: trees_1.createTree,
        listTrees: trees_1.listTrees,
        getTree: trees_1.getTree,
        deleteTree: trees_1.deleteTree,
        createVersion: trees_1.createVersion,
        setNode: trees_1.setNode,
        getNode: trees_1.getNode,
        deleteNode: trees_1.deleteNode,
        createBackup: backups_1.createBackup,
        getBackup: backups_1.getBackup,
        runCompliance: batches_1.runCompliance,
        getBatch: batches_1.getBatch,
        listBatchReports: batches_1.listBatchReports,
        getReport: batches_1.getReport,
        complianceHistory: history_1.complianceHistory,
        checkCompliance: tasks_1.checkCompliance,
        remediate: tasks_1.remediate,
        sweep: batches_1.sweep,
    }),
    created() {
        this.limits = { ...(0, runtime_1.configOf)(this.broker).compliance };
        this.clock = Date.now;
    },
    async started() {
        const index = (name, keys, unique = false) => this.store.collection(name).createIndex({ keys, unique });
        await index(types_1.PARSERS, { name: 1 }, true);
        await index(types_1.TREES, { name: 1 }, true);
        await index(types_1.NODES, { treeId: 1, version: 1, path: 1 }, true);
        await index(types_1.BACKUPS, { deviceName: 1, timestamp: -1 });
        await index(types_1.BATCHES, { state: 1, leaseUntil: 1 });
        await index(types_1.REPORTS, { batchId: 1, deviceName: 1 }, true);
        await index(types_1.REPORTS, { timestamp: -1 });
        await parsers_1.seedBuiltInParsers.call(this);
        this.stopping = false;
        this.timer = setInterval(() => batches_1.sweepInBackground.call(this), this.limits.sweepMs);
        this.timer.unref();
        batches_1.sweepInBackground.call(this);
    },
    async stopped() {
        this.stopping = true;
        clearInterval(this.timer);
        await this.sweeping?.catch(() => undefined);
    },
});
//# sourceMappingURL=configuration.service.js.map