"use strict";
/**
 * The engine's documents (docs/engine.md; the spec's Job document table). They live in the contracts
 * because events (shared/contracts/events.ts) and results carry them across services. Workflows are
 * definitions; a job is a workflow's copy being run, with every task's state inside it, so one
 * document holds a job's whole truth and every transition is one conditional write on it.
 */
Object.defineProperty(exports, "__esModule", { value: true });
exports.TASK_STATUSES = exports.JOB_STATUSES = exports.TASK_ID_PATTERN = exports.END = exports.START = void 0;
/** Every workflow has these two tasks: where a job starts and where it ends. */
exports.START = "workflow_start";
exports.END = "workflow_end";
/** What a task id may look like (a key of `tasks` and of `transitions`). */
exports.TASK_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;
exports.JOB_STATUSES = ["running", "paused", "complete", "error", "canceled"];
exports.TASK_STATUSES = ["incomplete", "running", "waiting", "complete", "error", "canceled"];
//# sourceMappingURL=engine-documents.js.map