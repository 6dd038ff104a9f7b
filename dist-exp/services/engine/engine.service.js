"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * engine: workflows, jobs and tasks (spec operations 5, 8, 14, 17, 20). Grouped by the question a
 * reader asks; each group contributes its handlers here:
 *   workflows/   workflow CRUD, graph validation, the task catalog
 *   jobs/        reads: job lists and reads, the manual-task list, daily task metrics
 *   run/         execution: the handlers that change jobs, the runner, the job store, transitions
 *   operations/  the built-in operation tasks
 */
const engine_1 = require("../../shared/contracts/engine");
const service_1 = require("../../shared/service");
const public_job_1 = require("./jobs/public-job");
const handlers_1 = require("./jobs/handlers");
const job_metrics_1 = require("./jobs/job-metrics");
const manual_tasks_1 = require("./jobs/manual-tasks");
const metrics_1 = require("./jobs/metrics");
const search_1 = require("./jobs/search");
const control_1 = require("./run/control");
const handlers_2 = require("./run/handlers");
const catalog_1 = require("./workflows/catalog");
const exchange_1 = require("./workflows/exchange");
const handlers_3 = require("./workflows/handlers");
const search_2 = require("./workflows/search");
exports.default = (0, service_1.typedService)({
    name: engine_1.engine.name,
    // Moleculer starts the last-listed mixin first (and stops it last): the store must be open first.
    mixins: [handlers_2.executorMixin, service_1.storeMixin],
    actions: (0, service_1.contractActions)(engine_1.engine, 
    // Every answer that holds jobs goes through publicJob (jobs/public-job.ts).
    (0, public_job_1.withPublicJobs)({
        // workflows/: definitions, the task catalog, the real product's lists and exchange
        createWorkflow: handlers_3.createWorkflow,
        listWorkflows: handlers_3.listWorkflows,
        getWorkflow: handlers_3.getWorkflow,
        getWorkflowById: handlers_3.getWorkflowById,
        updateWorkflow: handlers_3.updateWorkflow,
        deleteWorkflow: handlers_3.deleteWorkflow,
        listTasks: catalog_1.listTasks,
        searchWorkflows: search_2.searchWorkflows,
        studioWorkflows: search_2.studioWorkflows,
        exportWorkflow: exchange_1.exportWorkflow,
        importWorkflow: exchange_1.importWorkflow,
        // jobs/: reads
        adminJobs: handlers_1.adminJobs,
        listJobs: handlers_1.listJobs,
        getJob: handlers_1.getJob,
        getJobDocument: search_1.getJobDocument,
        searchJobs: search_1.searchJobs,
        jobOutput: search_1.jobOutput,
        listManualTasks: manual_tasks_1.listManualTasks,
        taskMetrics: metrics_1.taskMetrics,
        jobMetrics: job_metrics_1.jobMetrics,
        // run/: what changes jobs
        startJob: handlers_2.startJob,
        startScheduledJob: handlers_2.startScheduledJob,
        finishTask: handlers_2.finishTask,
        cancelJob: handlers_2.cancelJob,
        pauseJobs: control_1.pauseJobs,
        resumeJobs: control_1.resumeJobs,
        cancelJobs: control_1.cancelJobs,
    })),
});
//# sourceMappingURL=engine.service.js.map