/**
 * A group is being deleted (shared/contracts/group-release.ts): the engine's objects that name it.
 *  - workflows: `groups` decides who may start one, and a workflow with none is open to every
 *    caller, so a workflow whose only group this is blocks the delete (`sole`); the others lose it.
 *  - jobs: `groups` decides who sees one besides its creator and admins; a job with none is seen by
 *    those only (closed, not open), so every job loses it and none blocks the delete.
 * Each write is one updateMany whose filter re-checks "names another group too", so a workflow
 * changed meanwhile is never left open.
 */
import { RELEASE_LIST_LIMIT } from "../../shared/contracts/group-release";
import type { EngineCtx, EngineService } from "./types";

export async function releaseGroup(this: EngineService, ctx: EngineCtx<"releaseGroup">) {
  const { groupId, apply } = ctx.params;
  const sole = await this.workflows.soleOfGroup(groupId, RELEASE_LIST_LIMIT);
  let released = 0;
  if (apply)
    released = (await this.workflows.releaseGroup(groupId)) + (await this.jobs.releaseGroup(groupId));
  return {
    sole: sole.map((w) => ({ type: "workflow", id: String(w._id), name: String(w.name) })),
    released,
  };
}
