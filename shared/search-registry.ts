/**
 * The search registry: the one place where a collection joins search (spec operation 12).
 *
 * Each entry says which store collection holds the objects, how its result group is named (`type`,
 * `label`), which fields the text is matched in, which fields are answered as a result's `name` and
 * `description`, the URL of an object, and the indexes search wants on it. The search service reads
 * these collections directly from the shared store and creates the declared indexes at start, so a
 * new collection becomes searchable by adding an entry here, and nothing else.
 *
 * Every searchable object may carry `tags`: an array of `_id`s of documents in the `tags`
 * collection. Search matches an object when one of its tags' names matches the text.
 */
import type { IndexSpec } from "./store/types";

/** The fields of a stored object that search reads (its projection): `_id`, name, description, tags. */
export type SearchDoc = Record<string, unknown> & { _id: string };

export interface Searchable {
  /** Store collection name. */
  collection: string;
  /** Result group `type`: a stable machine name (the collection name). */
  type: string;
  /** Result group `label`, for people. */
  label: string;
  /** Singular noun for messages: "Form 'x' not found". */
  noun: string;
  /** Top-level field answered as a result's `name`; results are sorted on it, then `_id`. */
  nameField: string;
  /** Top-level field answered as a result's `description`. */
  descriptionField: string;
  /** Fields the text is matched in, case-insensitively as a substring. */
  textFields: string[];
  /** Where a client reads the object through this API. */
  url(doc: { _id: string; name: string }): string;
  /**
   * Indexes search wants on the collection. Only search's own needs belong here: an index the
   * owning service creates (its unique `name`, say) must not be declared again with other options,
   * because the same keys with different options are a conflict on every backend.
   */
  indexes: IndexSpec[];
}

type Entry = Pick<Searchable, "collection" | "label" | "noun" | "url"> & Partial<Searchable>;

/** Fills the defaults: `name` and `description` fields, matched both, and a `tags` index. */
function searchable(entry: Entry): Searchable {
  const nameField = entry.nameField ?? "name";
  const descriptionField = entry.descriptionField ?? "description";
  return {
    type: entry.collection,
    nameField,
    descriptionField,
    textFields: [nameField, descriptionField],
    // Multikey: MongoDB answers `tags: {$in: [...]}` from it instead of a collection scan.
    indexes: [{ keys: { tags: 1 } }],
    ...entry,
  };
}

const segment = encodeURIComponent;

/** Every searchable collection, in the order search answers their groups. */
export const SEARCHABLES: readonly Searchable[] = [
  searchable({
    collection: "workflows",
    label: "Workflows",
    noun: "Workflow",
    url: (d) => `/workflow_builder/workflows/${segment(d.name)}`,
  }),
  searchable({
    collection: "forms",
    label: "Forms",
    noun: "Form",
    url: (d) => `/formbuilder/forms/${segment(d.name)}`,
  }),
  searchable({
    collection: "automations",
    label: "Automations",
    noun: "Automation",
    url: (d) => `/automation_catalog/automations/${segment(d._id)}`,
  }),
  searchable({
    collection: "config_trees",
    label: "Golden Config Trees",
    noun: "Golden config tree",
    url: (d) => `/configuration_manager/configs/${segment(d._id)}`,
  }),
  searchable({
    collection: "config_parsers",
    label: "Config Parsers",
    noun: "Config parser",
    // Parsers have no read-one route: the list operation (6) filtered by this name.
    url: (d) => `/configuration_manager/configurations/parser?filter[name]=${segment(d.name)}`,
  }),
  searchable({
    collection: "adapters",
    label: "Adapters",
    noun: "Adapter",
    url: (d) => `/adapters/${segment(d.name)}`,
  }),
  searchable({
    collection: "repository_configs",
    label: "Prebuilt Repository Configs",
    noun: "Repository config",
    url: (d) => `/prebuilts-repository/configs/${segment(d.name)}`,
  }),
  searchable({
    collection: "profiles",
    label: "Profiles",
    noun: "Profile",
    // A profile is named by its `id` member (spec: Profile).
    nameField: "id",
    url: (d) => `/profiles/${segment(d.name)}`,
  }),
];

/** Collection names search covers: the values `collection` may take in the tag operations. */
export const SEARCHABLE_COLLECTIONS = SEARCHABLES.map((s) => s.collection);

export function searchableOf(collection: string): Searchable | undefined {
  return SEARCHABLES.find((s) => s.collection === collection);
}
