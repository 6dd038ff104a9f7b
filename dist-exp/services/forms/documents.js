"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.toListItem = toListItem;
exports.resolveGroupRefs = resolveGroupRefs;
/**
 * The spec's "Form (form list item)": the stored document under the list's names, its group ids
 * expanded to Group objects. A group deleted since is left out rather than failing the list.
 */
function toListItem(form, groupsById) {
    return {
        _id: form._id,
        id: form._id,
        form_name: form.name,
        formid: form._id,
        name: form.name,
        description: form.description ?? "",
        tags: form.tags ?? [],
        children: form.children,
        elements: form.elements,
        created: form.created,
        createdBy: form.created_by,
        lastUpdated: form.last_updated,
        lastUpdatedBy: form.last_updated_by,
        groups: form.groups.map((id) => groupsById.get(id)).filter((g) => g !== undefined),
    };
}
/**
 * Group references of a new form, by id or name, as ids (a form stores ids). Unknown ones are
 * field errors: a form shared with a group that does not exist is a typo, not an intent.
 */
function resolveGroupRefs(refs, groups) {
    const ids = [];
    const errors = [];
    refs.forEach((ref, i) => {
        const group = groups.find((g) => g._id === ref) ?? groups.find((g) => g.name === ref);
        if (group) {
            if (!ids.includes(group._id))
                ids.push(group._id);
        }
        else {
            errors.push({ field: `groups[${i}]`, message: `Unknown group '${ref}'`, type: "unknownGroup" });
        }
    });
    return { ids, errors };
}
//# sourceMappingURL=documents.js.map