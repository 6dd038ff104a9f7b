"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.schema = schema;
exports.create = create;
exports.list = list;
exports.get = get;
exports.activate = activate;
exports.remove = remove;
exports.active = active;
/**
 * The profiles actions (spec operations 16 and 18): profiles are named documents keyed by their id;
 * which one is active lives in ./activation.ts; every change of the active profile is announced.
 */
const events_1 = require("../../shared/contracts/events");
const profiles_1 = require("../../shared/contracts/profiles");
const schema_1 = require("../../shared/contracts/schema");
const errors_1 = require("../../shared/errors");
const pointers_1 = require("../../shared/pointers");
const text_1 = require("../../shared/text");
const activation_1 = require("./activation");
const documents_1 = require("./documents");
/** GET /schema/profiles: built once, from the same rules that validate POST /profiles. */
const PROFILE_SCHEMA = {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "Profile",
    ...(0, schema_1.propsToJsonSchema)(profiles_1.profileProps),
};
const DECORATORS = profiles_1.PROFILE_ENCRYPTED_POINTERS.map((pointer) => ({ type: "encryption", pointer }));
/** A caller with role admin, or an internal call with no caller. */
const isAdmin = (caller) => caller === undefined || caller.roles.includes("admin");
/** Tells every gateway and accounts replica which profile is active now. */
function announce(service, doc) {
    const auth = doc.properties.authenticationProps ?? {};
    const event = {
        id: doc._id,
        cookieName: auth.cookieName,
        uniqueSession: auth.uniqueSession === true,
    };
    service.broker.broadcast(events_1.PROFILE_ACTIVATED_EVENT, event);
}
function schema() {
    return { schema: PROFILE_SCHEMA, decorators: DECORATORS };
}
async function create(ctx) {
    const properties = (0, pointers_1.sealPointers)(this.secretKey, ctx.params.properties, profiles_1.PROFILE_ENCRYPTED_POINTERS);
    const now = (0, text_1.nowIso)();
    const doc = {
        _id: properties.id,
        id: properties.id,
        name: properties.id,
        description: properties.description ?? "",
        tags: [...new Set(ctx.params.tags ?? [])],
        properties,
        // Only an admin's first profile becomes active by being first: the active profile sets the
        // platform's session rules, and POST /profiles is open to every signed-in caller.
        activation: isAdmin(ctx.meta.caller) ? 0 : activation_1.INACTIVE,
        _meta: { created: now, updated: now, createdBy: ctx.meta.caller?.accountId ?? "system" },
    };
    const profiles = this.profiles();
    await profiles.insert(doc);
    // An admin's first profile becomes active by being first (./activation.ts); say so.
    const active = (await (0, activation_1.activeProfile)(profiles.collection))?._id === doc._id;
    if (active)
        announce(this, doc);
    return {
        status: "OK",
        message: `Profile '${doc._id}' created${active ? " and active" : ""}`,
        data: (0, documents_1.toPackage)(doc, active, profiles_1.PROFILE_ENCRYPTED_POINTERS),
    };
}
async function list() {
    const profiles = this.profiles();
    const docs = await profiles.list();
    const active = await (0, activation_1.activeProfile)(profiles.collection);
    return docs.map((doc) => (0, documents_1.toProfile)(doc, doc._id === active?._id));
}
async function get(ctx) {
    const profiles = this.profiles();
    const doc = await profiles.get(ctx.params.id);
    const active = await (0, activation_1.activeProfile)(profiles.collection);
    return (0, documents_1.toProfile)(doc, doc._id === active?._id);
}
async function activate(ctx) {
    const doc = await (0, activation_1.activate)(this.profiles().collection, ctx.params.id);
    announce(this, doc);
    return { status: "OK", message: `Profile '${doc._id}' is active`, data: (0, documents_1.toProfile)(doc, true) };
}
async function remove(ctx) {
    const profiles = this.profiles();
    const active = await (0, activation_1.activeProfile)(profiles.collection);
    if (active?._id === ctx.params.id) {
        throw new errors_1.ConflictError(`Profile '${ctx.params.id}' is the active profile; activate another one first`);
    }
    await profiles.remove(ctx.params.id);
    // An activation of this profile may have raced the check above: say which one is active now.
    const now = await (0, activation_1.activeProfile)(profiles.collection);
    if (now && now._id !== active?._id)
        announce(this, now);
    return { status: "OK", message: `Profile '${ctx.params.id}' deleted` };
}
async function active() {
    const doc = await (0, activation_1.activeProfile)(this.profiles().collection);
    return doc ? (0, documents_1.toProfile)(doc, true) : null;
}
//# sourceMappingURL=handlers.js.map