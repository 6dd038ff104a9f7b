/**
 * The real product's workflow lists (docs/compatibility.md#workflows):
 *   POST /workflow_engine/workflows/search  {options: {query, limit, skip, sort, fields}} -> {results, total, limit, skip}
 *   GET  /automation-studio/workflows       equals[name], equals[_id], contains[name], starts-with[name],
 *                                            sort, order, skip, limit -> {items, total, skip, limit}
 * A client's query is checked by shared/client-filter.ts before it reaches the store.
 */
import type { Context } from "moleculer";
import type { Workflow } from "../../../shared/contracts/resources";
import { isPlainObject } from "../../../shared/objects";
import { pageLimit } from "../../../shared/paging";
import type { Doc } from "../../../shared/store/types";
import type { EngineCtx, EngineService } from "../types";
import { callAsPlatform } from "../../../shared/authorization";

export async function searchWorkflows(this: EngineService, ctx: EngineCtx<"searchWorkflows">) {
  return this.workflows.search(ctx.params.options ?? {});
}

export async function studioWorkflows(this: EngineService, ctx: EngineCtx<"studioWorkflows">) {
  const p = ctx.params.options ?? {};
  const skip = p.skip ?? 0;
  const limit = pageLimit(p.limit);
  const { found, total } = await this.workflows.studioPage({
    equalsName: p.equals?.name,
    equalsId: p.equals?._id,
    containsName: p.contains?.name,
    startsWithName: p["starts-with"]?.name,
    sort: p.sort ?? "name",
    order: p.order ?? 1,
    skip,
    limit,
  });
  const expanded = await expandAccounts(ctx, found, listOf(p.expand));
  const items = expanded.map((w) => shape(w, listOf(p.include), listOf(p.exclude)));
  return { items: items as Workflow[], total, skip, limit };
}

const EXPANDABLE = new Set(["created_by", "last_updated_by"]);
const listOf = (text: string | undefined) =>
  (text ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * `expand=created_by,last_updated_by`: the username becomes the account it names (as the accounts
 * list answers it: never a credential), through the accounts service. An account that no longer
 * exists leaves the name as it is.
 */
async function expandAccounts(ctx: Context, items: Doc[], fields: string[]): Promise<Doc[]> {
  const wanted = fields.filter((f) => EXPANDABLE.has(f));
  if (wanted.length === 0 || items.length === 0) return items;
  const names = [
    ...new Set(items.flatMap((w) => wanted.map((f) => w[f]).filter((v) => typeof v === "string"))),
  ];
  const accounts = new Map<string, unknown>();
  for (const username of names) {
    const page = await callAsPlatform(ctx, "accounts.list", {
      queryOptions: { equals: username, equalsField: "username" },
    });
    if (page.results[0]) accounts.set(username, page.results[0]);
  }
  return items.map((w) => ({
    ...w,
    ...Object.fromEntries(
      wanted.filter((f) => accounts.has(w[f])).map((f) => [f, structuredClone(accounts.get(w[f]))]),
    ),
  }));
}

/** `include` keeps the named top-level members (and `_id`); `exclude` drops dotted paths. */
function shape(doc: Doc, include: string[], exclude: string[]): Doc {
  const out: Doc = include.length === 0 ? structuredClone(doc) : {};
  if (include.length > 0) {
    for (const key of ["_id", ...include.map((p) => p.split(".")[0])])
      if (key in doc) out[key] = structuredClone(doc[key]);
  }
  for (const path of exclude) {
    const parts = path.split(".");
    let at: Doc | undefined = out;
    for (const part of parts.slice(0, -1)) at = isPlainObject(at?.[part]) ? (at![part] as Doc) : undefined;
    if (at) delete at[parts[parts.length - 1]];
  }
  return out;
}
