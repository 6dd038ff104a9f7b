/**
 * The profiles actions (spec operations 16 and 18): profiles are named documents keyed by their id;
 * which one is active lives in ./activation.ts; every change of the active profile is announced.
 */
import { PROFILE_ACTIVATED_EVENT, type ProfileActivatedEvent } from "../../shared/contracts/events";
import {
  profileProps,
  PROFILE_ENCRYPTED_POINTERS,
  type profiles as contract,
} from "../../shared/contracts/profiles";
import { propsToJsonSchema } from "../../shared/contracts/schema";
import { ConflictError } from "../../shared/errors";
import { sealPointers } from "../../shared/pointers";
import type { HandlerContext, PlatformService } from "../../shared/service";
import { nowIso } from "../../shared/text";
import { activate as activateProfile, INACTIVE } from "./activation";
import { toPackage, toProfile, type StoredProfile } from "./documents";
import type { ProfilesRepository } from "./profiles.repository";

/** `this` of the profiles service: what profiles.service.ts adds to a platform service. */
export type ProfilesService = PlatformService<{
  secretKey: Buffer;
  profiles: ProfilesRepository;
}>;

type Ctx<K extends keyof typeof contract.actions> = HandlerContext<typeof contract, K>;

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

/** Tells every gateway and accounts replica which profile is active now. */
function announce(service: ProfilesService, doc: StoredProfile): void {
  const auth = doc.properties.authenticationProps ?? {};
  const event: ProfileActivatedEvent = {
    id: doc._id,
    cookieName: auth.cookieName,
    uniqueSession: auth.uniqueSession === true,
  };
  service.broker.broadcast(PROFILE_ACTIVATED_EVENT, event);
}

export function schema() {
  return { schema: PROFILE_SCHEMA, decorators: DECORATORS };
}

export async function create(this: ProfilesService, ctx: Ctx<"create">) {
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
  const profiles = this.profiles;
  await profiles.insert(doc);
  // An admin's first profile becomes active by being first (./activation.ts); say so.
  const active = (await profiles.active())?._id === doc._id;
  if (active) announce(this, doc);
  return {
    status: "OK",
    message: `Profile '${doc._id}' created${active ? " and active" : ""}`,
    data: toPackage(doc, active, PROFILE_ENCRYPTED_POINTERS),
  };
}

/**
 * GET /profiles in the real product's shape: `{results: [{metadata: {isActive, activeSync}, profile}],
 * total}`. `activeSync` says the running platform applies the profile as stored: the active one
 * takes effect on every replica when it changes (profiles.activated), with no restart to wait for,
 * so it is the active profile's `isActive` (docs/catalog.md#the-active-profile).
 */
export async function list(this: ProfilesService) {
  const profiles = this.profiles;
  const [docs, active] = await Promise.all([profiles.list(), profiles.active()]);
  const results = docs.map((doc) => {
    const isActive = doc._id === active?._id;
    return { metadata: { isActive, activeSync: isActive }, profile: toProfile(doc, isActive) };
  });
  return { results, total: results.length };
}

export async function get(this: ProfilesService, ctx: Ctx<"get">) {
  const profiles = this.profiles;
  const doc = await profiles.get(ctx.params.id);
  const active = await profiles.active();
  return toProfile(doc, doc._id === active?._id);
}

export async function activate(this: ProfilesService, ctx: Ctx<"activate">) {
  const doc = await activateProfile(this.profiles, ctx.params.id);
  announce(this, doc);
  return { status: "OK", message: `Profile '${doc._id}' is active`, data: toProfile(doc, true) };
}

export async function remove(this: ProfilesService, ctx: Ctx<"delete">) {
  const profiles = this.profiles;
  const active = await profiles.active();
  if (active?._id === ctx.params.id) {
    throw new ConflictError(`Profile '${ctx.params.id}' is the active profile; activate another one first`);
  }
  await profiles.remove(ctx.params.id);
  // An activation of this profile may have raced the check above: say which one is active now.
  const now = await profiles.active();
  if (now && now._id !== active?._id) announce(this, now);
  return { status: "OK", message: `Profile '${ctx.params.id}' deleted` };
}

export async function active(this: ProfilesService) {
  const doc = await this.profiles.active();
  return doc ? toProfile(doc, true) : null;
}
