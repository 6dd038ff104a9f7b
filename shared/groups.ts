/**
 * Which groups exist, for any service that is given group ids (jobs, automations): an unknown one
 * is a 400 naming the field. Groups belong to accounts: asked through `accounts.listGroups`, never
 * read from its collection (docs/architecture.md).
 */
import type { Context } from "moleculer";
import { BadRequestError } from "./errors";
import { callAsPlatform } from "./authorization";

export async function checkGroupsExist(ctx: Context, groups: string[], field: string): Promise<void> {
  if (groups.length === 0) return;
  const known = new Set((await callAsPlatform(ctx, "accounts.listGroups", {})).map((g) => g._id));
  const missing = groups.filter((g) => !known.has(g));
  if (missing.length > 0)
    throw new BadRequestError(
      `Unknown group(s): ${missing.join(", ")}`,
      missing.map((g) => ({ field, message: `Unknown group '${g}'`, type: "unknownGroup" })),
    );
}
