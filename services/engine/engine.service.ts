/**
 * engine: workflows, jobs and tasks (spec operations 5, 8, 14, 17, 20). Each concern lives in its
 * own module under services/engine/ and contributes its handlers here:
 *   workflows.ts  workflow CRUD and graph validation
 *   job-query.ts  job lists (admin and group-based) and reads
 *   metrics.ts    daily task metrics (one aggregation pipeline)
 *   catalog.ts    the task catalog, gathered from the service registry
 *   executor.ts   starting, running, finishing and cancelling jobs, across replicas
 */
import { engine as contract } from "../../shared/contracts/engine";
import { contractActions, storeMixin, typedService } from "../../shared/service";
import type { EngineService } from "./types";
import { catalogHandlers } from "./workflows/catalog";
import { executorMixin, runHandlers } from "./run/handlers";
import { queryHandlers } from "./jobs/handlers";
import { metricsHandlers } from "./jobs/metrics";
import { workflowHandlers } from "./workflows/handlers";

export default typedService<EngineService>({
  name: contract.name,
  // Moleculer starts the last-listed mixin first (and stops it last): the store must be open first.
  mixins: [executorMixin, storeMixin],
  actions: contractActions<typeof contract.name, typeof contract.actions, EngineService>(contract, {
    ...workflowHandlers,
    ...queryHandlers,
    ...metricsHandlers,
    ...catalogHandlers,
    ...runHandlers,
  }),
});
