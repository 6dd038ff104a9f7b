/** The type of a slice of the engine's action handlers; each engine module exports one. */
import type { engine } from "../../shared/contracts/engine";
import type { Handlers } from "../../shared/service";

export type EngineHandlers = Handlers<(typeof engine)["actions"]>;
