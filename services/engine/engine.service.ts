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
import { catalogHandlers } from "./workflows/catalog";
import { executorMixin, runHandlers } from "./run/handlers";
import { queryHandlers } from "./jobs/handlers";
import { withPublicJobs } from "./jobs/public-job";
import { metricsHandlers } from "./jobs/metrics";
import { workflowHandlers } from "./workflows/handlers";
import { workflowExchangeHandlers } from "./workflows/exchange";
import { workflowSearchHandlers } from "./workflows/search";
import { jobSearchHandlers } from "./jobs/search";
import { jobMetricsHandlers } from "./jobs/job-metrics";
import { jobControlHandlers } from "./run/control";

export default typedService<EngineService>({
  name: contract.name,
  // Moleculer starts the last-listed mixin first (and stops it last): the store must be open first.
  mixins: [executorMixin, storeMixin],
  actions: contractActions<typeof contract.name, typeof contract.actions, EngineService>(
    contract,
    withPublicJobs({
      ...workflowHandlers,
      ...workflowExchangeHandlers,
      ...workflowSearchHandlers,
      ...queryHandlers,
      ...jobSearchHandlers,
      ...metricsHandlers,
      ...jobMetricsHandlers,
      ...catalogHandlers,
      ...runHandlers,
      ...jobControlHandlers,
    }),
  ),
});
