"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.childRequest = childRequest;
exports.childDetails = childDetails;
/**
 * `childJob`: starts a job of another workflow and finishes when that job ends: `success` when it
 * completes (outgoing `job_details`: its `_id`, `status` and `variables`), `error` when it ends in
 * error or is canceled. The child's `ancestors` are the parent's plus the parent, it inherits the
 * parent's groups, and canceling the parent cancels it.
 *
 * Incoming: `workflow` (the child workflow's name), `variables` (the child's job variables, checked
 * against its workflow's inputSchema), `description` (optional).
 */
const types_1 = require("./types");
function childRequest(incoming) {
    if (typeof incoming.workflow !== "string" || incoming.workflow === "")
        throw new types_1.OperationError("'workflow' must name the child job's workflow");
    if (incoming.variables !== undefined && !(0, types_1.isPlainObject)(incoming.variables))
        throw new types_1.OperationError("'variables' must be an object");
    return {
        workflow: incoming.workflow,
        variables: incoming.variables ?? {},
        ...(typeof incoming.description === "string" && { description: incoming.description }),
    };
}
function childDetails(child) {
    return { job_details: { _id: child._id, status: child.status, variables: child.variables ?? {} } };
}
//# sourceMappingURL=child-job.js.map