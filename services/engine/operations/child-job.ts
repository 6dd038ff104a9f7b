/**
 * `childJob`: starts a job of another workflow and finishes when that job ends: `success` when it
 * completes (outgoing `job_details`: its `_id`, `status` and `variables`), `error` when it ends in
 * error or is canceled. The child's `ancestors` are the parent's plus the parent, it inherits the
 * parent's groups, and canceling the parent cancels it.
 *
 * Incoming: `workflow` (the child workflow's name), `variables` (the child's job variables, checked
 * against its workflow's inputSchema), `description` (optional).
 */
import { OperationError, isPlainObject } from "./types";

export interface ChildRequest {
  workflow: string;
  variables: Record<string, unknown>;
  description?: string;
}

export function childRequest(incoming: Record<string, unknown>): ChildRequest {
  if (typeof incoming.workflow !== "string" || incoming.workflow === "")
    throw new OperationError("'workflow' must name the child job's workflow");
  if (incoming.variables !== undefined && !isPlainObject(incoming.variables))
    throw new OperationError("'variables' must be an object");
  return {
    workflow: incoming.workflow,
    variables: (incoming.variables as Record<string, unknown> | undefined) ?? {},
    ...(typeof incoming.description === "string" && { description: incoming.description }),
  };
}

export function childDetails(child: { _id: string; status: string; variables?: unknown }) {
  return { job_details: { _id: child._id, status: child.status, variables: child.variables ?? {} } };
}
