/**
 * The adapters actions (spec operation 19): adapter instances, named documents whose credentials
 * are sealed before they are stored (./credentials.ts) and answered only in that form.
 */
import type { adapters as contract } from "../../shared/contracts/adapters";
import type { NamedDocuments } from "../../shared/named-documents";
import type { HandlerContext, PlatformService } from "../../shared/service";
import { nowIso } from "../../shared/text";
import { holdsCredentials, sealCredentials } from "./credentials";
import { toAdapter, type StoredAdapter } from "./documents";

/** `this` of the adapters service: what adapters.service.ts adds to a platform service. */
export type AdaptersService = PlatformService<{
  secretKey: Buffer;
  adapters(): NamedDocuments<StoredAdapter>;
}>;

type Ctx<K extends keyof typeof contract.actions> = HandlerContext<typeof contract, K>;

export async function create(this: AdaptersService, ctx: Ctx<"create">) {
  // `isEncrypted` is not taken from the request: it says what the stored instance holds.
  const { name, type, properties, loggerProps, model } = ctx.params.properties;
  const settings = properties.properties;
  const now = nowIso();
  const doc: Omit<StoredAdapter, "_id"> = {
    name,
    type,
    description: ctx.params.description ?? "",
    tags: [...new Set(ctx.params.tags ?? [])],
    properties: {
      ...properties,
      ...(settings !== undefined && { properties: sealCredentials(this.secretKey, settings) as any }),
    },
    ...(loggerProps !== undefined && { loggerProps }),
    isEncrypted: holdsCredentials(settings),
    ...(model !== undefined && { model }),
    _meta: { created: now, updated: now, createdBy: ctx.meta.caller?.accountId ?? "system" },
  };
  const stored = await this.adapters().insert(doc);
  return { status: "OK", message: `Adapter '${name}' created`, data: toAdapter(stored) };
}

export async function list(this: AdaptersService) {
  return (await this.adapters().list()).map(toAdapter);
}

export async function get(this: AdaptersService, ctx: Ctx<"get">) {
  return toAdapter(await this.adapters().get(ctx.params.name));
}

export async function remove(this: AdaptersService, ctx: Ctx<"delete">) {
  await this.adapters().remove(ctx.params.name);
  return { status: "OK", message: `Adapter '${ctx.params.name}' deleted` };
}
