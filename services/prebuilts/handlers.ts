/**
 * The prebuilts actions (spec operation 13): repository configurations, named documents whose
 * `config.credentials.token` is sealed before it is stored and answered only in that form.
 */
import {
  prebuilts as contract,
  REPOSITORY_CONFIG_ENCRYPTED_POINTERS,
} from "../../shared/contracts/prebuilts";
import { sealPointers } from "../../shared/pointers";
import type { HandlerContext, PlatformService } from "../../shared/service";
import { nowIso } from "../../shared/text";
import type { RepositoryConfigsRepository } from "./repository-configs.repository";

/** `this` of the prebuilts service: what prebuilts.service.ts adds to a platform service. */
export type PrebuiltsService = PlatformService<{
  secretKey: Buffer;
  configs: RepositoryConfigsRepository;
}>;

type Ctx<K extends keyof typeof contract.actions> = HandlerContext<typeof contract, K>;

export async function createConfig(this: PrebuiltsService, ctx: Ctx<"createConfig">) {
  const { name, config, description = "", tags = [] } = ctx.params;
  const now = nowIso();
  const stored = await this.configs.insert({
    name,
    description,
    tags: [...new Set(tags)],
    config: sealPointers(this.secretKey, config, REPOSITORY_CONFIG_ENCRYPTED_POINTERS),
    _meta: { created: now, updated: now, createdBy: ctx.meta.caller?.accountId ?? "system" },
  });
  return { status: "OK", message: `Repository configuration '${name}' created`, data: stored };
}

/** Every configuration by name, as the real product answers them: `{results, total}` (docs/compatibility.md#list-shapes). */
export async function listConfigs(this: PrebuiltsService) {
  const results = await this.configs.list();
  return { results, total: results.length };
}

export async function getConfig(this: PrebuiltsService, ctx: Ctx<"getConfig">) {
  return this.configs.get(ctx.params.name);
}

export async function deleteConfig(this: PrebuiltsService, ctx: Ctx<"deleteConfig">) {
  await this.configs.remove(ctx.params.name);
  return { status: "OK", message: `Repository configuration '${ctx.params.name}' deleted` };
}
