/**
 * The entry of a compliance worker thread (the pool in configuration.service.ts): each task is one
 * device's config text, checked against the DeviceSpec its batch sent once (prepared once here).
 */
import { serveTasks } from "../../shared/worker-pool";
import { checkText, prepareSpec, type DeviceResult, type DeviceSpec, type PreparedSpec } from "./evaluation";

serveTasks<{ config: string }, DeviceSpec, PreparedSpec, DeviceResult>(prepareSpec, (task, prepared) => {
  if (!prepared) throw new Error("no device spec was sent with this task");
  return checkText(prepared.reader, prepared.compiled, task.config);
});
