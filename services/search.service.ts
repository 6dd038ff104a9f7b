/**
 * search: its actions and their params are registered from the contract
 * (shared/contracts/search.ts); handlers land with their own issue, until then they answer 501.
 */
import type { ServiceSchema } from "moleculer";
import { search as contract } from "../shared/contracts/search";
import { contractActions, storeMixin } from "../shared/service";

const Service: ServiceSchema = {
  name: contract.name,
  mixins: [storeMixin],
  actions: contractActions(contract, {}),
};

export default Service;
