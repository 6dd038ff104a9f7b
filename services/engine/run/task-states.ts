/**
 * What a task's state says, for the state machine (./transitions.ts) and the walks' index of a
 * job's tasks (./task-index.ts) alike: one home for each rule both read.
 */
import type { RunTask } from "./types";

/** The states a task ends in. */
export const FINISHED: ReadonlySet<string> = new Set(["complete", "error", "canceled"]);

/** Whether a task was reached on some incoming path (an `incomplete` join waits for the rest). */
export const hasArrivals = (task: Readonly<RunTask>): boolean =>
  !!task.previous && task.previous.complete.length + task.previous.error.length > 0;
