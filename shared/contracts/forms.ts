/** forms: the form catalog and form builder (spec operations 3 and 7). */
import { defineService, SUPPORT_READ, SUPPORT_WRITE } from "./define";
import { returns } from "./schema";
import type { FormDocument, FormListItem, Message } from "./resources";

const formName = { type: "string", min: 1, max: 256 } as const;

export const forms = defineService("forms", {
  list: {
    params: {},
    result: returns<FormListItem[]>(),
    http: {
      method: "GET",
      path: "/service_catalog/GetForms",
      access: "authenticated",
      spec: 3,
      summary: "Every form, with its groups expanded",
    },
  },
  preserveFormData: {
    params: { form_name: formName, data: { type: "object" } },
    result: returns<FormDocument>(),
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
    params: {
      name: formName,
      children: { type: "array", items: { type: "object" }, optional: true },
      elements: { type: "array", items: { type: "object" }, optional: true },
      groups: { type: "array", items: { type: "string", min: 1 }, optional: true },
      description: { type: "string", max: 4096, optional: true },
      tags: { type: "array", items: { type: "string", min: 1 }, optional: true },
    },
    result: returns<FormDocument>(),
    http: { method: "POST", path: "/formbuilder/forms", access: SUPPORT_WRITE, summary: "Create a form" },
  },
  get: {
    params: { name: formName },
    result: returns<FormDocument>(),
    http: { method: "GET", path: "/formbuilder/forms/:name", access: SUPPORT_READ, summary: "Read a form" },
  },
  delete: {
    params: { name: formName },
    result: returns<Message>(),
    http: {
      method: "DELETE",
      path: "/formbuilder/forms/:name",
      access: SUPPORT_WRITE,
      summary: "Delete a form",
    },
  },
});
