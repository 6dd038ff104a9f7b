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
import { createHash } from "node:crypto";
import type { Profile } from "../../shared/contracts/resources";
import type { ProfilePackage } from "../../shared/contracts/profiles";
import { isEncrypted } from "../../shared/secrets";
import { PLATFORM_VERSION } from "../../shared/version";
import { resolvePointer } from "../../shared/pointers";

export interface StoredProfile {
  _id: string;
  id: string;
  name: string;
  description: string;
  tags: string[];
  properties: Profile;
  /** The active profile is the one with the highest `activation` (see ./activation.ts). */
  activation: number;
  _meta: { created: string; updated: string; createdBy: string };
}

/** A profile as reads answer it: its members, its tags, whether it is active, when it was made. */
export function toProfile(doc: StoredProfile, active: boolean): Profile {
  return { ...doc.properties, id: doc._id, tags: doc.tags, active, _meta: doc._meta };
}

/** The concrete pointers of the sealed fields a profile holds (wildcards expanded). */
export function sealedPointers(properties: Profile, pointers: readonly string[]): string[] {
  return pointers.flatMap((p) =>
    resolvePointer(properties, p)
      .filter((m) => isEncrypted(m.value))
      .map((m) => m.pointer),
  );
}

/** POST /profiles's `data`: the profile as an artifact package of one bundle. */
export function toPackage(doc: StoredProfile, active: boolean, pointers: readonly string[]): ProfilePackage {
  const data = doc.properties;
  const encrypted = sealedPointers(data, pointers);
  return {
    metadata: {
      name: doc._id,
      type: "profile",
      description: doc.description,
      created: doc._meta.created,
      createdBy: doc._meta.createdBy,
      platformVersion: PLATFORM_VERSION,
      active,
    },
    manifest: {
      bundleName: doc._id,
      fingerprint: createHash("sha256").update(JSON.stringify(data)).digest("hex"),
      createdEpoch: Date.parse(doc._meta.created),
      artifacts: [
        { id: doc._id, name: doc._id, type: "profile", location: "/bundles/0", properties: { encrypted } },
      ],
    },
    bundles: [{ type: "profile", data }],
    readme: readmeOf(doc, active, encrypted),
  };
}

function readmeOf(doc: StoredProfile, active: boolean, encrypted: string[]): string {
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
