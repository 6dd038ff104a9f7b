"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.forms = exports.tagIds = void 0;
/** forms: the form catalog and form builder (spec operations 3 and 7). */
const define_1 = require("./define");
const schema_1 = require("./schema");
const resources_1 = require("./resources");
/** A form's name is also its path segment (`/formbuilder/forms/:name`). */
const formName = schema_1.pathName;
/**
 * A form field (spec: "Form field (child)"). The members the spec lists are typed; a form builder's
 * own UI members beside them are kept, since a form is the builder's document.
 */
const formField = {
    type: "object",
    props: {
        type: schema_1.optString,
        name: schema_1.optString,
        properties: {
            type: "object",
            optional: true,
            props: { type: schema_1.optString, prefix: schema_1.optString },
        },
        description: schema_1.optString,
        element: { ...schema_1.optString, description: "Serialized JSON of an element" },
        source_type: schema_1.optString,
        source: schema_1.optString,
        id: schema_1.optString,
        yangkey: schema_1.optString,
        key: schema_1.optString,
    },
};
/** An element (spec: `type` and `id.name`). */
const formElement = {
    type: "object",
    props: {
        type: schema_1.optString,
        id: { type: "object", optional: true, props: { name: schema_1.optString } },
    },
};
/** Tag ids (search service): what the search matches an object's tags by. */
exports.tagIds = {
    type: "array",
    optional: true,
    max: 100,
    items: { type: "string", min: 1, max: 128 },
    description: "Ids of tags (POST /search/tags) attached to the object",
};
exports.forms = (0, define_1.defineService)("forms", {
    list: {
        params: {},
        result: (0, schema_1.returns)((0, schema_1.arrayOf)(resources_1.formListItemSchema)),
        http: {
            method: "GET",
            path: "/service_catalog/GetForms",
            access: "authenticated",
            spec: 3,
            summary: "Every form, with its groups expanded",
        },
    },
    preserveFormData: {
        params: {
            form_name: formName,
            data: { type: "object", description: "Form data whose containers a serializer may have changed" },
        },
        result: (0, schema_1.returns)({ type: "object", description: "The form data, its containers restored" }),
        http: {
            method: "POST",
            path: "/formbuilder/preserveFormData",
            access: ["admin", "apiread", "operator"],
            spec: 7,
            summary: "Restore containers (arrays/objects) that serializers changed in form data, using the stored form as reference",
        },
    },
    create: {
        params: {
            name: formName,
            children: { type: "array", items: formField, optional: true, max: 1000 },
            elements: { type: "array", items: formElement, optional: true, max: 1000 },
            groups: {
                type: "array",
                items: { type: "string", min: 1, max: 128 },
                optional: true,
                max: 100,
                description: "Group ids (or names) that may use the form",
            },
            description: { type: "string", max: 4096, optional: true },
            tags: exports.tagIds,
        },
        result: (0, schema_1.returns)(resources_1.formDocumentSchema),
        http: { method: "POST", path: "/formbuilder/forms", access: define_1.SUPPORT_WRITE, summary: "Create a form" },
    },
    get: {
        params: { name: formName },
        result: (0, schema_1.returns)(resources_1.formDocumentSchema),
        http: { method: "GET", path: "/formbuilder/forms/:name", access: define_1.SUPPORT_READ, summary: "Read a form" },
    },
    delete: {
        params: { name: formName },
        result: (0, schema_1.returns)(resources_1.messageSchema),
        http: {
            method: "DELETE",
            path: "/formbuilder/forms/:name",
            access: define_1.SUPPORT_WRITE,
            summary: "Delete a form",
        },
    },
});
//# sourceMappingURL=forms.js.map