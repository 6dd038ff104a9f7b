/**
 * prebuilts: prebuilt repository configurations (spec operation 13, docs/platform-rules.md#supporting-operations): where
 * the platform fetches prebuilt artifacts from. `config.credentials.token` is stored encrypted and
 * answered only in that stored form.
 *
 * Its collection: ./repository-configs.repository.ts.
 */
import { prebuilts as contract } from "../../shared/contracts/prebuilts";
import { configOf } from "../../shared/runtime";
import { loadKey } from "../../shared/secrets";
import { contractActions, storeMixin, typedService } from "../../shared/service";
import { createConfig, deleteConfig, getConfig, listConfigs, type PrebuiltsService } from "./handlers";
import { RepositoryConfigsRepository } from "./repository-configs.repository";

export default typedService<PrebuiltsService>({
  name: contract.name,
  mixins: [storeMixin],

  actions: contractActions<typeof contract.name, typeof contract.actions, PrebuiltsService>(contract, {
    createConfig,
    listConfigs,
    getConfig,
    deleteConfig,
  }),

  created() {
    this.secretKey = loadKey(configOf(this.broker));
  },

  async started() {
    this.configs = new RepositoryConfigsRepository(this.store);
    await this.configs.ensureIndexes();
  },
});
