/**
 * A group is being deleted (shared/contracts/group-release.ts): the automations that name it
 * (./gbac.ts). Its write groups (`groups`) are an automation's owner groups: one whose only write
 * group this is blocks the delete (`sole`), and so does one that would be left with no group at all
 * (it would be open to every caller). Every other automation loses it from `groups` and
 * `readGroups`. Each write's filter re-checks "names another group", so an automation changed
 * meanwhile is never left open.
 */
import { RELEASE_LIST_LIMIT } from "../../shared/contracts/group-release";
import type { scheduler as contract } from "../../shared/contracts/scheduler";
import type { HandlerContext } from "../../shared/service";
import type { Filter } from "../../shared/store/types";
import type { SchedulerService } from "./automations";
import { AUTOMATIONS } from "./firing";

const another = (field: string, g: string): Filter => ({ [field]: { $elemMatch: { $ne: g } } });

export async function releaseGroup(
  this: SchedulerService,
  ctx: HandlerContext<typeof contract, "releaseGroup">,
) {
  const { groupId: g, apply } = ctx.params;
  const automations = this.store.collection(AUTOMATIONS);
  const sole = await automations.find(
    {
      $or: [
        { $and: [{ groups: g }, { $nor: [another("groups", g)] }] },
        { $and: [{ readGroups: g }, { $nor: [another("readGroups", g), another("groups", g)] }] },
      ],
    },
    { projection: { _id: 1, name: 1 }, limit: RELEASE_LIST_LIMIT },
  );
  let released = 0;
  if (apply) {
    const read = await automations.updateMany(
      { $and: [{ readGroups: g }, { $or: [another("readGroups", g), another("groups", g)] }] },
      { $pull: { readGroups: g } },
    );
    const write = await automations.updateMany(
      { $and: [{ groups: g }, another("groups", g)] },
      { $pull: { groups: g } },
    );
    released = read.modifiedCount + write.modifiedCount;
  }
  return {
    sole: sole.map((a) => ({ type: "automation", id: String(a._id), name: String(a.name) })),
    released,
  };
}
