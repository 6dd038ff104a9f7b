/**
 * The behaviour of the engine's built-in operation tasks (their names: ./names.ts). The pure
 * ones (evaluation, query, merge) run inside a job write; forEach and delay change the task's
 * run state; childJob starts another job (run/runner.ts).
 *
 * OPERATION_VARIABLES documents each one's incoming and outgoing variables for the task catalog.
 */
import type { OperationTask } from "./names";
import { evaluation } from "./evaluation";
import { merge } from "./merge";
import { query } from "./query";
import type { OperationResult } from "./types";

export { OperationError, type OperationResult } from "./types";
export { delayMs } from "./delay";
export { loopItems } from "./for-each";
export { childDetails, childRequest } from "./child-job";

/** Operations that compute their outcome from their incoming variables alone. */
export const PURE_OPERATIONS: Partial<
  Record<OperationTask, (incoming: Record<string, unknown>) => OperationResult>
> = {
  evaluation,
  query,
  merge,
};

export const OPERATION_VARIABLES: Record<
  OperationTask,
  { summary: string; incoming: Record<string, unknown>; outgoing: Record<string, unknown> }
> = {
  evaluation: {
    summary: "Compare operands; success when the comparison holds, failure otherwise",
    incoming: { operand_1: null, operator: "==", operand_2: null, evaluations: null, all_true_flag: true },
    outgoing: { return_value: null },
  },
  query: {
    summary: "Read a value out of an object by a path",
    incoming: { obj: null, query: "", pass_on_null: false },
    outgoing: { return_data: null },
  },
  merge: {
    summary: "Merge objects and {key, value} pairs into one object",
    incoming: { data_to_merge: [] },
    outgoing: { merged_object: null },
  },
  delay: {
    summary: "Wait a number of seconds (durably: survives a replica's death)",
    incoming: { time: 0 },
    outgoing: {},
  },
  childJob: {
    summary: "Run a job of another workflow and finish when it ends",
    incoming: { workflow: "", variables: {}, description: "" },
    outgoing: { job_details: null },
  },
  forEach: {
    summary: "Run the loop body (the loop transitions) once per item of a list",
    incoming: { data_array: [] },
    outgoing: { current_item: null, index: 0, results: [] },
  },
};
