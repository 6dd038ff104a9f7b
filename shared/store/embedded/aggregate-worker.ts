/** The entry of the embedded store's aggregation thread (./aggregate-input.ts; collection.ts aggregate). */
import { serveTasks } from "../../worker-pool";
import { runRest, type RestTask } from "./aggregate-input";

serveTasks<RestTask, never, undefined, ReturnType<typeof runRest>>(
  () => undefined,
  (task) => runRest(task),
);
