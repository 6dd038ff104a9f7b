/**
 * profiles: platform profiles (spec operations 16 and 18, DECISIONS.md section 6) and which one is
 * active. The active profile's `authenticationProps` take effect: the gateway names the session
 * cookie after `cookieName`, accounts ends older sessions on login when `uniqueSession` is true.
 * Both read `profiles.active` and listen to `profiles.activated`, which this service broadcasts
 * whenever the active profile may have changed.
 *
 * Collection `profiles` (layout in ./profiles/documents.ts); which one is active: ./profiles/activation.ts.
 */
import type { ServiceSchema } from "moleculer";
import { PROFILE_ACTIVATED_EVENT, type ProfileActivatedEvent } from "../../shared/contracts/events";
import { profiles as contract, profileProps, PROFILE_ENCRYPTED_POINTERS } from "../../shared/contracts/profiles";
import { propsToJsonSchema } from "../../shared/contracts/schema";
import { ConflictError, NotFoundError } from "../../shared/errors";
import { sealPointers } from "../../shared/pointers";
import { configOf } from "../../shared/runtime";
import { loadKey } from "../../shared/secrets";
import { contractActions, storeMixin, type ServiceThis } from "../../shared/service";
import { DuplicateKeyError, type Collection, type Store } from "../../shared/store/types";
import { nowIso } from "../../shared/text";
import { activate, activeProfile, INACTIVE } from "./activation";
import { toPackage, toProfile, type StoredProfile } from "./documents";

/** GET /schema/profiles: built once, from the same rules that validate POST /profiles. */
const PROFILE_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  title: "Profile",
  ...propsToJsonSchema(profileProps),
};
const DECORATORS = PROFILE_ENCRYPTED_POINTERS.map((pointer) => ({ type: "encryption" as const, pointer }));

/** A caller with role admin, or an internal call with no caller. */
const isAdmin = (caller: { roles: string[] } | undefined) =>
  caller === undefined || caller.roles.includes("admin");

const ProfilesService: ServiceSchema = {
  name: contract.name,
  mixins: [storeMixin],

  actions: contractActions(contract, {
    schema() {
      return { schema: PROFILE_SCHEMA, decorators: DECORATORS };
    },

    async create(ctx) {
      const properties = sealPointers(this.secretKey, ctx.params.properties, PROFILE_ENCRYPTED_POINTERS);
      const now = nowIso();
      const doc: StoredProfile = {
        _id: properties.id,
        id: properties.id,
        name: properties.id,
        description: properties.description ?? "",
        tags: [...new Set(ctx.params.tags ?? [])],
        properties,
        // Only an admin's first profile becomes active by being first: the active profile sets the
        // platform's session rules, and POST /profiles is open to every signed-in caller.
        activation: isAdmin(ctx.meta.caller) ? 0 : INACTIVE,
        _meta: { created: now, updated: now, createdBy: ctx.meta.caller?.accountId ?? "system" },
      };
      try {
        await this.profiles().insertOne(doc);
      } catch (err) {
        if (err instanceof DuplicateKeyError) throw new ConflictError(`Profile '${doc._id}' already exists`);
        throw err;
      }
      // An admin's first profile becomes active by being first (./profiles/activation.ts); say so.
      const active = (await activeProfile(this.profiles()))?._id === doc._id;
      if (active) this.announce(doc);
      return {
        status: "OK",
        message: `Profile '${doc._id}' created${active ? " and active" : ""}`,
        data: toPackage(doc, active, PROFILE_ENCRYPTED_POINTERS),
      };
    },

    async list() {
      const docs = await this.profiles().find({}, { sort: { _id: 1 } });
      const active = await activeProfile(this.profiles());
      return docs.map((doc: StoredProfile) => toProfile(doc, doc._id === active?._id));
    },

    async get(ctx) {
      const doc = await this.profiles().findOne({ _id: ctx.params.id });
      if (!doc) throw new NotFoundError("Profile", ctx.params.id);
      const active = await activeProfile(this.profiles());
      return toProfile(doc, doc._id === active?._id);
    },

    async activate(ctx) {
      const doc = await activate(this.profiles(), ctx.params.id);
      this.announce(doc);
      return { status: "OK", message: `Profile '${doc._id}' is active`, data: toProfile(doc, true) };
    },

    async delete(ctx) {
      const profiles = this.profiles();
      const active = await activeProfile(profiles);
      if (active?._id === ctx.params.id) {
        throw new ConflictError(
          `Profile '${ctx.params.id}' is the active profile; activate another one first`,
        );
      }
      const deleted = await profiles.findOneAndDelete({ _id: ctx.params.id });
      if (!deleted) throw new NotFoundError("Profile", ctx.params.id);
      // An activation of this profile may have raced the check above: say which one is active now.
      const now = await activeProfile(profiles);
      if (now && now._id !== active?._id) this.announce(now);
      return { status: "OK", message: `Profile '${ctx.params.id}' deleted` };
    },

    async active() {
      const doc = await activeProfile(this.profiles());
      return doc ? toProfile(doc, true) : null;
    },
  }),

  methods: {
    profiles(this: ServiceThis): Collection<StoredProfile> {
      return this.store.collection<StoredProfile>("profiles");
    },

    /** Tells every gateway and accounts replica which profile is active now. */
    announce(this: ServiceThis, doc: StoredProfile): void {
      const auth = doc.properties.authenticationProps ?? {};
      const event: ProfileActivatedEvent = {
        id: doc._id,
        cookieName: auth.cookieName,
        uniqueSession: auth.uniqueSession === true,
      };
      this.broker.broadcast(PROFILE_ACTIVATED_EVENT, event);
    },

    async ensureIndexes(this: ServiceThis, store: Store): Promise<void> {
      // `_id` is the profile id (unique by itself); `name` mirrors it for search.
      await store.collection("profiles").createIndex({ keys: { name: 1 }, unique: true });
      await store.collection("profiles").createIndex({ keys: { activation: -1 } });
    },
  },

  created() {
    this.secretKey = loadKey(configOf(this.broker));
  },

  async started() {
    await this.ensureIndexes(this.store);
  },
};

export default ProfilesService;
