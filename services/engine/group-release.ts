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
import type { Filter } from "../../shared/store/types";
import { JOBS, WORKFLOWS } from "./collections";
import type { EngineCtx, EngineService } from "./types";

const names = (g: string): Filter => ({ groups: g });
const namesAnother = (g: string): Filter => ({ groups: { $elemMatch: { $ne: g } } });

export async function releaseGroup(this: EngineService, ctx: EngineCtx<"releaseGroup">) {
  const { groupId, apply } = ctx.params;
  const workflows = this.store.collection(WORKFLOWS);
  const sole = await workflows.find(
    { $and: [names(groupId), { $nor: [namesAnother(groupId)] }] },
    { projection: { _id: 1, name: 1 }, limit: RELEASE_LIST_LIMIT },
  );
  let released = 0;
  if (apply) {
    const w = await workflows.updateMany(
      { $and: [names(groupId), namesAnother(groupId)] },
      { $pull: { groups: groupId } },
    );
    const j = await this.store.collection(JOBS).updateMany(names(groupId), { $pull: { groups: groupId } });
    released = w.modifiedCount + j.modifiedCount;
  }
  return {
    sole: sole.map((w) => ({ type: "workflow", id: String(w._id), name: String(w.name) })),
    released,
  };
}
