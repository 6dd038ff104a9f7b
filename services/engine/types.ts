/**
 * `this` of the engine service, and the type of a slice of its action handlers (each engine module
 * exports one; engine.service.ts wires them to the contract).
 */
import type { engine } from "../../shared/contracts/engine";
import type { Handlers, PlatformService } from "../../shared/service";
import type { Runner } from "./run/runner";

export type EngineService = PlatformService<{
  /** This replica's runner (set when the service starts, before it takes calls). */
  runner: Runner;
  cachedKey?: Buffer;
  /** The key that seals job fields named by a workflow's encryption decorators. */
  secretKey(): Buffer;
}>;

export type EngineHandlers = Handlers<(typeof engine)["actions"], EngineService>;
