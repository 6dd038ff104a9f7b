/** Engine: running jobs. Handlers land with the workflow engine issue; until then they answer 501. */
import type { ServiceSchema } from "moleculer";
import type { EngineHandlers } from "./handlers";

export const runHandlers: EngineHandlers = {};

/** Lifecycle hooks and event handlers the executor adds to the engine service. */
export const executorMixin: Partial<ServiceSchema> = {};
