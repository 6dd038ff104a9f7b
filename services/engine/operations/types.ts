/** What an in-engine operation answers, and how it refuses bad input. */
import type { FinishState } from "../../../shared/contracts/engine-documents";
import { isPlainObject } from "../../../shared/objects";

export interface OperationResult {
  state: FinishState;
  outgoing: Record<string, unknown>;
}

/** Bad incoming variables: the task finishes with state `error` and this in `job.error`. */
export class OperationError extends Error {
  constructor(
    message: string,
    readonly errors: unknown[] = [],
    readonly code = 400,
  ) {
    super(message);
    this.name = "OperationError";
  }
}

export { isPlainObject };
