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
import type { SchedulerService } from "./automations";

export async function releaseGroup(
  this: SchedulerService,
  ctx: HandlerContext<typeof contract, "releaseGroup">,
) {
  const { groupId: g, apply } = ctx.params;
  const sole = await this.automations.strandedBy(g, RELEASE_LIST_LIMIT);
  const released = apply ? await this.automations.releaseGroup(g) : 0;
  return {
    sole: sole.map((a) => ({ type: "automation", id: a._id, name: a.name })),
    released,
  };
}
