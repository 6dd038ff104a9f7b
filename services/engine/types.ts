/**
 * `this` of the engine service, the context type of each action, and the type of the whole handler
 * table. Each engine module exports its handlers as named functions; engine.service.ts wires
 * them to the contract.
 */
import type { engine } from "../../shared/contracts/engine";
import type { HandlerContext, Handlers, PlatformService } from "../../shared/service";
import type { JobRepository } from "./jobs.repository";
import type { Runner } from "./run/runner";
import type { WorkflowRepository } from "./workflows.repository";

export type EngineService = PlatformService<{
  /** The engine's collections (set when the service starts, before it takes calls). */
  jobs: JobRepository;
  workflows: WorkflowRepository;
  /** This replica's runner (set when the service starts, before it takes calls). */
  runner: Runner;
  cachedKey?: Buffer;
  /** The key that seals job fields named by a workflow's encryption decorators. */
  secretKey(): Buffer;
}>;

export type EngineHandlers = Handlers<(typeof engine)["actions"], EngineService>;

/** The context of engine action `K`: its params and meta typed from the contract. */
export type EngineCtx<K extends keyof (typeof engine)["actions"]> = HandlerContext<typeof engine, K>;
