/**
 * Engine: the task catalog (operation 20). Nothing is stored: the catalog is read from the service
 * registry on every call, so it is what the cluster can run right now. An action declares itself a
 * task with `task` metadata in its contract (shared/contracts/define.ts `TaskMetadata`, copied into
 * the Moleculer action schema by shared/service.ts); the registry carries it from every node, so a
 * service that starts later appears at once, and one whose last node leaves disappears.
 *
 * Entries: every available action with task metadata (type `automatic`, `name` the action's own
 * name, `app` its service), the engine's operations (../operations/names.ts; type `operation`, app
 * `WorkFlowEngine`, location `Broker`) and the manual task (type `manual`). Each entry's
 * `variables` are templates: the values a new task starts with, to be edited in the workflow.
 */
import type { ServiceBroker } from "moleculer";
import type { TaskMetadata } from "../../../shared/contracts/define";
import type { TaskCatalogEntry } from "../../../shared/contracts/resources";
import { OPERATION_TASKS, type OperationTask } from "../operations/names";
import { OPERATION_VARIABLES } from "../operations";
import type { EngineService } from "../types";

export const ENGINE_APP = "WorkFlowEngine";

/**
 * Display names of the engine's operations; their summaries and variables come from the executor's
 * OPERATION_VARIABLES (operations/index.ts), so the catalog documents exactly what runs.
 * `Record<OperationTask, ...>` keeps both in step with ../operations/names.ts.
 */
const OPERATION_NAMES: Record<OperationTask, string> = {
  evaluation: "Evaluation",
  query: "Query",
  merge: "Merge",
  delay: "Delay",
  childJob: "Child job",
  forEach: "For each",
};

function operationEntry(name: OperationTask): TaskCatalogEntry {
  const { summary, incoming, outgoing } = OPERATION_VARIABLES[name];
  return {
    name,
    app: ENGINE_APP,
    type: "operation",
    location: "Broker",
    displayName: OPERATION_NAMES[name],
    summary,
    description: `${summary} (built into the workflow engine).`,
    // Copies: the caller may edit what it receives; the templates stay as they are.
    variables: structuredClone({ incoming, outgoing }),
    deprecated: false,
  };
}

const MANUAL_TASK: TaskCatalogEntry = {
  name: "ManualTask",
  app: ENGINE_APP,
  type: "manual",
  location: "Broker",
  displayName: "Manual task",
  summary: "Wait for a person",
  description:
    "Waits (status `waiting`) until someone finishes it with POST /workflow_engine/finishTask; the task_data sent " +
    "there become its outgoing variables and it finishes with success. Its name is a label of your choosing.",
  variables: { incoming: {}, outgoing: {} },
  deprecated: false,
};

interface RegistryAction {
  name: string;
  rawName?: string;
  task?: TaskMetadata;
}

/** The registry's view of one available action with task metadata, as a catalog entry. */
function automaticEntry(action: RegistryAction): TaskCatalogEntry {
  const task = action.task!;
  const name = action.rawName ?? action.name.slice(action.name.lastIndexOf(".") + 1);
  // `name` is `<service>.<rawName>` (the service part carries a version prefix when there is one).
  const app = action.name.slice(0, action.name.length - name.length - 1);
  return {
    name,
    app,
    type: "automatic",
    location: task.location ?? "Application",
    displayName: task.displayName ?? name,
    summary: task.summary ?? "",
    description: task.description ?? "",
    variables: structuredClone({
      incoming: task.variables?.incoming ?? {},
      outgoing: task.variables?.outgoing ?? {},
    }),
    deprecated: task.deprecated === true,
  };
}

export function taskCatalog(broker: ServiceBroker): TaskCatalogEntry[] {
  // Not a document: Moleculer's typings leave the action schema's own members (our `task`) out of
  // the registry's list, so it is read as what it holds.
  const listed = broker.registry.getActionList({ onlyAvailable: true, skipInternal: true }) as unknown as {
    action?: RegistryAction;
  }[];
  const automatic = listed
    .map((item) => item.action)
    .filter((a): a is RegistryAction => !!a && typeof a.task === "object" && a.task !== null)
    .map(automaticEntry);
  const operations = OPERATION_TASKS.map(operationEntry);
  const byAppAndName = (a: TaskCatalogEntry, b: TaskCatalogEntry) =>
    a.app.localeCompare(b.app) || a.name.localeCompare(b.name);
  return [...automatic.sort(byAppAndName), ...operations, structuredClone(MANUAL_TASK)];
}

export function listTasks(this: EngineService) {
  return taskCatalog(this.broker);
}
