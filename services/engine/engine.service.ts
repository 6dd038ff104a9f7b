/**
 * engine: workflows, jobs and tasks (spec operations 5, 8, 14, 17, 20). Grouped by the question a
 * reader asks; each group contributes its handlers here:
 *   workflows/   workflow CRUD, graph validation, the task catalog
 *   jobs/        reads: job lists and reads, the manual-task list, daily task metrics
 *   run/         execution: the handlers that change jobs, the runner, the job store, transitions
 *   operations/  the built-in operation tasks
 */
import { engine as contract } from "../../shared/contracts/engine";
import { contractActions, storeMixin, typedService } from "../../shared/service";
import type { EngineService } from "./types";
import { withPublicJobs } from "./jobs/public-job";
import { releaseGroup } from "./group-release";
import { adminJobs, getJob, listJobs } from "./jobs/handlers";
import { jobMetrics } from "./jobs/job-metrics";
import { listManualTasks } from "./jobs/manual-tasks";
import { taskMetrics } from "./jobs/metrics";
import { getJobDocument, jobOutput, searchJobs } from "./jobs/search";
import { cancelJobs, pauseJobs, resumeJobs } from "./run/control";
import { cancelJob, executorMixin, finishTask, startJob, startScheduledJob } from "./run/handlers";
import { listTasks } from "./workflows/catalog";
import { keptWorkflowsMixin } from "./workflows/kept";
import { exportWorkflow, importWorkflow } from "./workflows/exchange";
import {
  createWorkflow,
  deleteWorkflow,
  getWorkflow,
  getWorkflowById,
  listWorkflows,
  updateWorkflow,
} from "./workflows/handlers";
import { searchWorkflows, studioWorkflows } from "./workflows/search";

export default typedService<EngineService>({
  name: contract.name,
  // Moleculer starts the last-listed mixin first (and stops it last): the store must be open first.
  mixins: [keptWorkflowsMixin, executorMixin, storeMixin],
  actions: contractActions<typeof contract.name, typeof contract.actions, EngineService>(
    contract,
    // Every answer that holds jobs goes through publicJob (jobs/public-job.ts).
    withPublicJobs({
      // workflows/: definitions, the task catalog, the real product's lists and exchange
      createWorkflow,
      listWorkflows,
      getWorkflow,
      getWorkflowById,
      updateWorkflow,
      releaseGroup,
      deleteWorkflow,
      listTasks,
      searchWorkflows,
      studioWorkflows,
      exportWorkflow,
      importWorkflow,
      // jobs/: reads
      adminJobs,
      listJobs,
      getJob,
      getJobDocument,
      searchJobs,
      jobOutput,
      listManualTasks,
      taskMetrics,
      jobMetrics,
      // run/: what changes jobs
      startJob,
      startScheduledJob,
      finishTask,
      cancelJob,
      pauseJobs,
      resumeJobs,
      cancelJobs,
    }),
  ),
});
