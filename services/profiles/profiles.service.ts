/**
 * profiles: platform profiles (spec operations 16 and 18, docs/platform-rules.md#supporting-operations) and which one is
 * active. The active profile's `authenticationProps` take effect: the gateway names the session
 * cookie after `cookieName`, accounts ends older sessions on login when `uniqueSession` is true.
 * Both read `profiles.active` and listen to `profiles.activated`, which this service broadcasts
 * whenever the active profile may have changed.
 *
 * Collection `profiles`: ./profiles.repository.ts; which one is active: ./activation.ts;
 * the actions: ./handlers.ts.
 */
import { profiles as contract } from "../../shared/contracts/profiles";
import { configOf } from "../../shared/runtime";
import { loadKey } from "../../shared/secrets";
import { contractActions, storeMixin, typedService } from "../../shared/service";
import { activate, active, create, get, list, remove, schema, type ProfilesService } from "./handlers";
import { ProfilesRepository } from "./profiles.repository";

export default typedService<ProfilesService>({
  name: contract.name,
  mixins: [storeMixin],

  actions: contractActions<typeof contract.name, typeof contract.actions, ProfilesService>(contract, {
    schema,
    create,
    list,
    get,
    activate,
    delete: remove,
    active,
  }),

  created() {
    this.secretKey = loadKey(configOf(this.broker));
  },

  async started() {
    this.profiles = new ProfilesRepository(this.store);
    await this.profiles.ensureIndexes();
  },
});
