/** Engine: metrics. Handlers land with the workflow engine issue; until then their actions answer 501. */
import type { EngineHandlers } from "./handlers";

export const metricsHandlers: EngineHandlers = {};
