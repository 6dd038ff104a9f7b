/**
 * prebuilts: prebuilt repository configurations (spec operation 13, DECISIONS.md section 6): where
 * the platform fetches prebuilt artifacts from. `config.credentials.token` is stored encrypted and
 * answered only in that stored form.
 *
 * Collection `repository_configs`, `name` unique:
 *   { _id, name, description, tags, config: <Repository configuration, token sealed>,
 *     _meta: {created, updated, createdBy} }
 */
import type { ServiceSchema } from "moleculer";
import { prebuilts as contract, REPOSITORY_CONFIG_ENCRYPTED_POINTERS } from "../../shared/contracts/prebuilts";
import type { RepositoryConfig } from "../../shared/contracts/resources";
import { ConflictError, NotFoundError } from "../../shared/errors";
import { sealPointers } from "../../shared/pointers";
import { configOf } from "../../shared/runtime";
import { loadKey } from "../../shared/secrets";
import { contractActions, storeMixin, type ServiceThis } from "../../shared/service";
import { DuplicateKeyError, type Collection, type Store } from "../../shared/store/types";
import { nowIso } from "../../shared/text";

const PrebuiltsService: ServiceSchema = {
  name: contract.name,
  mixins: [storeMixin],

  actions: contractActions(contract, {
    async createConfig(ctx) {
      const { name, config, description = "", tags = [] } = ctx.params;
      const now = nowIso();
      const doc = {
        name,
        description,
        tags: [...new Set(tags)],
        config: sealPointers(this.secretKey, config, REPOSITORY_CONFIG_ENCRYPTED_POINTERS),
        _meta: { created: now, updated: now, createdBy: ctx.meta.caller?.accountId ?? "system" },
      };
      try {
        const stored = await this.configs().insertOne(doc);
        return { status: "OK", message: `Repository configuration '${name}' created`, data: stored };
      } catch (err) {
        if (err instanceof DuplicateKeyError)
          throw new ConflictError(`Repository configuration '${name}' already exists`);
        throw err;
      }
    },

    async listConfigs() {
      return this.configs().find({}, { sort: { name: 1 } });
    },

    async getConfig(ctx) {
      const doc = await this.configs().findOne({ name: ctx.params.name });
      if (!doc) throw new NotFoundError("Repository configuration", ctx.params.name);
      return doc;
    },

    async deleteConfig(ctx) {
      const doc = await this.configs().findOneAndDelete({ name: ctx.params.name });
      if (!doc) throw new NotFoundError("Repository configuration", ctx.params.name);
      return { status: "OK", message: `Repository configuration '${ctx.params.name}' deleted` };
    },
  }),

  methods: {
    configs(this: ServiceThis): Collection<RepositoryConfig> {
      return this.store.collection<RepositoryConfig>("repository_configs");
    },

    async ensureIndexes(this: ServiceThis, store: Store): Promise<void> {
      await store.collection("repository_configs").createIndex({ keys: { name: 1 }, unique: true });
    },
  },

  created() {
    this.secretKey = loadKey(configOf(this.broker));
  },

  async started() {
    await this.ensureIndexes(this.store);
  },
};

export default PrebuiltsService;
