/** The entry of the embedded store's compaction thread (./compaction.ts; backend.ts startCompaction). */
import { serveTasks } from "../../worker-pool";
import { compactFiles, type CompactionTask } from "./compaction";

serveTasks<CompactionTask, never, undefined, ReturnType<typeof compactFiles>>(
  () => undefined,
  (task) => compactFiles(task),
);
