/**
 * adapters: adapter instances (spec operation 19, docs/platform-rules.md#supporting-operations). An instance is what
 * later operations name by `adapterId` (its `name`). Credentials in its settings are stored
 * encrypted (./credentials.ts has the one rule) and answered only in that stored form.
 * The orchestrator proxy (operations 1 and 2) is in ./orchestrator/ (docs/orchestrator.md).
 *
 * Collection `adapters` (layout in ./documents.ts), `name` unique.
 */
import { adapters as contract } from "../../shared/contracts/adapters";
import { ensureNameIndex, namedDocuments } from "../../shared/named-documents";
import { configOf } from "../../shared/runtime";
import { loadKey } from "../../shared/secrets";
import { contractActions, storeMixin, typedService } from "../../shared/service";
import type { StoredAdapter } from "./documents";
import { create, get, list, remove, type AdaptersService } from "./handlers";
import { restAction, restQuery } from "./orchestrator/handlers";

const COLLECTION = "adapters";

export default typedService<AdaptersService>({
  name: contract.name,
  mixins: [storeMixin],

  actions: contractActions<typeof contract.name, typeof contract.actions, AdaptersService>(contract, {
    restAction,
    restQuery,
    create,
    list,
    get,
    delete: remove,
  }),

  methods: {
    adapters(this: AdaptersService) {
      return namedDocuments<StoredAdapter>(this.store, COLLECTION, "Adapter");
    },
  },

  created() {
    this.secretKey = loadKey(configOf(this.broker));
  },

  async started() {
    await ensureNameIndex(this.store, COLLECTION);
  },
});
