/**
 * prebuilts: prebuilt repository configurations (spec operation 13, docs/platform-rules.md#supporting-operations): where
 * the platform fetches prebuilt artifacts from. `config.credentials.token` is stored encrypted and
 * answered only in that stored form.
 *
 * Collection `repository_configs`, `name` unique:
 *   { _id, name, description, tags, config: <Repository configuration, token sealed>,
 *     _meta: {created, updated, createdBy} }
 */
import { prebuilts as contract } from "../../shared/contracts/prebuilts";
import type { RepositoryConfig } from "../../shared/contracts/resources";
import { ensureNameIndex, namedDocuments } from "../../shared/named-documents";
import { configOf } from "../../shared/runtime";
import { loadKey } from "../../shared/secrets";
import { contractActions, storeMixin, typedService } from "../../shared/service";
import { createConfig, deleteConfig, getConfig, listConfigs, type PrebuiltsService } from "./handlers";

const COLLECTION = "repository_configs";

export default typedService<PrebuiltsService>({
  name: contract.name,
  mixins: [storeMixin],

  actions: contractActions<typeof contract.name, typeof contract.actions, PrebuiltsService>(contract, {
    createConfig,
    listConfigs,
    getConfig,
    deleteConfig,
  }),

  methods: {
    configs(this: PrebuiltsService) {
      return namedDocuments<RepositoryConfig>(this.store, COLLECTION, "Repository configuration");
    },
  },

  created() {
    this.secretKey = loadKey(configOf(this.broker));
  },

  async started() {
    await ensureNameIndex(this.store, COLLECTION);
  },
});
