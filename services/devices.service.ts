/**
 * devices: its actions and their params are registered from the contract
 * (shared/contracts/devices.ts); handlers land with their own issue, until then they answer 501.
 */
import type { ServiceSchema } from "moleculer";
import { devices as contract } from "../shared/contracts/devices";
import { contractActions, storeMixin } from "../shared/service";

const Service: ServiceSchema = {
  name: contract.name,
  mixins: [storeMixin],
  actions: contractActions(contract, {}),
};

export default Service;
