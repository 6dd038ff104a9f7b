/**
 * prebuilts: its actions and their params are registered from the contract
 * (shared/contracts/prebuilts.ts); handlers land with their own issue, until then they answer 501.
 */
import type { ServiceSchema } from "moleculer";
import { prebuilts as contract } from "../shared/contracts/prebuilts";
import { contractActions, storeMixin } from "../shared/service";

const Service: ServiceSchema = {
  name: contract.name,
  mixins: [storeMixin],
  actions: contractActions(contract, {}),
};

export default Service;
