/** The engine's collections, named once. */
export const WORKFLOWS = "workflows";
export const JOBS = "jobs";
