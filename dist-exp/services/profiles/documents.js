"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.toProfile = toProfile;
exports.sealedPointers = sealedPointers;
exports.toPackage = toPackage;
/**
 * Profiles: the stored document, what reads answer, and the artifact package POST /profiles answers
 * (docs/catalog.md).
 *
 * Stored (collection `profiles`), one per profile:
 *   { _id: id, id, name: id, description, tags, properties: <the Profile, secrets sealed>,
 *     activation: number, _meta: {created, updated, createdBy} }
 * `name` (and `id`, the same), `description` and `tags` are what search reads; `properties` is the Profile exactly as
 * validated (unknown members removed), with the decorator fields in their `enc:v1:` form.
 */
const node_crypto_1 = require("node:crypto");
const secrets_1 = require("../../shared/secrets");
const version_1 = require("../../shared/version");
const pointers_1 = require("../../shared/pointers");
/** A profile as reads answer it: its members, its tags, whether it is active, when it was made. */
function toProfile(doc, active) {
    return { ...doc.properties, id: doc._id, tags: doc.tags, active, _meta: doc._meta };
}
/** The concrete pointers of the sealed fields a profile holds (wildcards expanded). */
function sealedPointers(properties, pointers) {
    return pointers.flatMap((p) => (0, pointers_1.resolvePointer)(properties, p)
        .filter((m) => (0, secrets_1.isEncrypted)(m.value))
        .map((m) => m.pointer));
}
/** POST /profiles's `data`: the profile as an artifact package of one bundle. */
function toPackage(doc, active, pointers) {
    const data = doc.properties;
    const encrypted = sealedPointers(data, pointers);
    return {
        metadata: {
            name: doc._id,
            type: "profile",
            description: doc.description,
            created: doc._meta.created,
            createdBy: doc._meta.createdBy,
            platformVersion: version_1.PLATFORM_VERSION,
            active,
        },
        manifest: {
            bundleName: doc._id,
            fingerprint: (0, node_crypto_1.createHash)("sha256").update(JSON.stringify(data)).digest("hex"),
            createdEpoch: Date.parse(doc._meta.created),
            artifacts: [
                { id: doc._id, name: doc._id, type: "profile", location: "/bundles/0", properties: { encrypted } },
            ],
        },
        bundles: [{ type: "profile", data }],
        readme: readmeOf(doc, active, encrypted),
    };
}
function readmeOf(doc, active, encrypted) {
    const members = Object.keys(doc.properties).filter((k) => k !== "id" && k !== "description");
    return [
        `# Profile ${doc._id}`,
        "",
        doc.description || "No description.",
        "",
        `- Active: ${active ? "yes" : "no"}`,
        `- Created: ${doc._meta.created}`,
        `- Members: ${members.length > 0 ? members.join(", ") : "none"}`,
        `- Encrypted fields: ${encrypted.length > 0 ? encrypted.join(", ") : "none"}`,
        "",
    ].join("\n");
}
//# sourceMappingURL=documents.js.map