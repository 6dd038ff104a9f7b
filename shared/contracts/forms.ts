/** forms: the form catalog and form builder (spec operations 3 and 7). */
import { defineService, SUPPORT_READ, SUPPORT_WRITE } from "./define";
import { arrayOf, optString, pathName, returns } from "./schema";
import { formDocumentSchema, formListItemSchema, messageSchema } from "./resources";

/** A form's name is also its path segment (`/formbuilder/forms/:name`). */
const formName = pathName;

/**
 * A form field (spec: "Form field (child)"). The members the spec lists are typed; a form builder's
 * own UI members beside them are kept, since a form is the builder's document.
 */
const formField = {
  type: "object",
  props: {
    type: optString,
    name: optString,
    properties: {
      type: "object",
      optional: true,
      props: { type: optString, prefix: optString },
    },
    description: optString,
    element: { ...optString, description: "Serialized JSON of an element" },
    source_type: optString,
    source: optString,
    id: optString,
    yangkey: optString,
    key: optString,
  },
} as const;

/** An element (spec: `type` and `id.name`). */
const formElement = {
  type: "object",
  props: {
    type: optString,
    id: { type: "object", optional: true, props: { name: optString } },
  },
} as const;

/** Tag ids (search service): what the search matches an object's tags by. */
export const tagIds = {
  type: "array",
  optional: true,
  max: 100,
  items: { type: "string", min: 1, max: 128 },
  description: "Ids of tags (POST /search/tags) attached to the object",
} as const;

export const forms = defineService("forms", {
  list: {
    params: {},
    result: returns(arrayOf(formListItemSchema)),
    http: {
      method: "GET",
      path: "/service_catalog/GetForms",
      access: "authenticated",
      spec: 3,
      summary: "Every form, with its groups expanded",
    },
  },
  preserveFormData: {
    idempotent: "keyed",
    params: {
      form_name: formName,
      data: { type: "object", description: "Form data whose containers a serializer may have changed" },
    },
    result: returns({ type: "object", description: "The form data, its containers restored" }),
    http: {
      method: "POST",
      path: "/formbuilder/preserveFormData",
      access: ["admin", "apiread", "operator"],
      spec: 7,
      summary:
        "Restore containers (arrays/objects) that serializers changed in form data, using the stored form as reference",
    },
  },
  create: {
    idempotent: "keyed",
    params: {
      name: formName,
      children: { type: "array", items: formField, optional: true, max: 1000 },
      elements: { type: "array", items: formElement, optional: true, max: 1000 },
      groups: {
        type: "array",
        // A group id or name, or a Group as GET /service_catalog/GetForms answers it (spec 3 expands
        // a form's groups): a form read from the list and posted back is taken, its groups by `_id`.
        items: {
          type: "multi",
          rules: [
            { type: "string", min: 1, max: 128 },
            {
              type: "object",
              props: { _id: { type: "string", min: 1, max: 128 } },
            },
          ],
        },
        optional: true,
        max: 100,
        description: "Group ids (or names), or Group objects (their _id is taken), that may use the form",
      },
      description: { type: "string", max: 4096, optional: true },
      tags: tagIds,
    },
    result: returns(formDocumentSchema),
    http: { method: "POST", path: "/formbuilder/forms", access: SUPPORT_WRITE, summary: "Create a form" },
  },
  get: {
    params: { name: formName },
    result: returns(formDocumentSchema),
    http: { method: "GET", path: "/formbuilder/forms/:name", access: SUPPORT_READ, summary: "Read a form" },
  },
  delete: {
    idempotent: "keyed",
    params: { name: formName },
    result: returns(messageSchema),
    http: {
      method: "DELETE",
      path: "/formbuilder/forms/:name",
      access: SUPPORT_WRITE,
      summary: "Delete a form",
    },
  },
});
