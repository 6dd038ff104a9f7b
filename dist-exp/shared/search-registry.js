"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.SEARCHABLE_COLLECTIONS = exports.SEARCHABLES = void 0;
exports.searchableOf = searchableOf;
/** Fills the defaults: `name` and `description` fields, matched both, and a `tags` index. */
function searchable(entry) {
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
exports.SEARCHABLES = [
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
exports.SEARCHABLE_COLLECTIONS = exports.SEARCHABLES.map((s) => s.collection);
function searchableOf(collection) {
    return exports.SEARCHABLES.find((s) => s.collection === collection);
}
//# sourceMappingURL=search-registry.js.map