/**
 * The entry of a compliance worker thread (the pool in configuration.service.ts). A task is one
 * device's config text, checked against the DeviceSpec its batch sent once (prepared once here), a
 * request's heavy specs to check, or a big node's read view (spec-check.ts).
 */
import { serveTasks } from "../../shared/worker-pool";
import { checkText, prepareSpec, type DeviceSpec, type PreparedSpec } from "./evaluation";
import { checkSpecInputs, viewNodeOf, viewReplyOf, type SpecInput } from "./spec-check";
import type { PoolTask, PoolResult } from "./types";

serveTasks<PoolTask, DeviceSpec, PreparedSpec, PoolResult>(prepareSpec, (task, prepared) => {
  if ("specs" in task) return checkSpecInputs(task.specs as SpecInput[]);
  if ("view" in task) return viewReplyOf(task.view.map(viewNodeOf));
  if (!prepared) throw new Error("no device spec was sent with this task");
  return checkText(prepared.reader, prepared.compiled, task.config);
});
