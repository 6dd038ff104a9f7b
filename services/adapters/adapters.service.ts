/**
 * adapters: adapter instances (spec operation 19, DECISIONS.md section 6). An instance is what
 * later operations name by `adapterId` (its `name`). Credentials in its settings are stored
 * encrypted (./adapters/credentials.ts has the one rule) and answered only in that stored form.
 * The orchestrator proxy (operations 1 and 2) belongs to a later issue and still answers 501.
 *
 * Collection `adapters` (layout in ./adapters/documents.ts), `name` unique.
 */
import type { ServiceSchema } from "moleculer";
import { adapters as contract } from "../../shared/contracts/adapters";
import { ConflictError, NotFoundError } from "../../shared/errors";
import { configOf } from "../../shared/runtime";
import { loadKey } from "../../shared/secrets";
import { contractActions, storeMixin, type ServiceThis } from "../../shared/service";
import { DuplicateKeyError, type Collection, type Store } from "../../shared/store/types";
import { nowIso } from "../../shared/text";
import { holdsCredentials, sealCredentials } from "./credentials";
import { toAdapter, type StoredAdapter } from "./documents";

const AdaptersService: ServiceSchema = {
  name: contract.name,
  mixins: [storeMixin],

  actions: contractActions(contract, {
    async create(ctx) {
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
      let stored: StoredAdapter;
      try {
        stored = await this.adapters().insertOne(doc);
      } catch (err) {
        if (err instanceof DuplicateKeyError) throw new ConflictError(`Adapter '${name}' already exists`);
        throw err;
      }
      return { status: "OK", message: `Adapter '${name}' created`, data: toAdapter(stored) };
    },

    async list() {
      return (await this.adapters().find({}, { sort: { name: 1 } })).map(toAdapter);
    },

    async get(ctx) {
      const doc = await this.adapters().findOne({ name: ctx.params.name });
      if (!doc) throw new NotFoundError("Adapter", ctx.params.name);
      return toAdapter(doc);
    },

    async delete(ctx) {
      const doc = await this.adapters().findOneAndDelete({ name: ctx.params.name });
      if (!doc) throw new NotFoundError("Adapter", ctx.params.name);
      return { status: "OK", message: `Adapter '${ctx.params.name}' deleted` };
    },
  }),

  methods: {
    adapters(this: ServiceThis): Collection<StoredAdapter> {
      return this.store.collection<StoredAdapter>("adapters");
    },

    async ensureIndexes(this: ServiceThis, store: Store): Promise<void> {
      await store.collection("adapters").createIndex({ keys: { name: 1 }, unique: true });
    },
  },

  created() {
    this.secretKey = loadKey(configOf(this.broker));
  },

  async started() {
    await this.ensureIndexes(this.store);
  },
};

export default AdaptersService;
