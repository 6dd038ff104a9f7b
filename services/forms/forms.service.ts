/**
 * forms: the form catalog and the form builder (spec operations 3 and 7, DECISIONS.md section 6).
 *
 * Collection `forms`: one Form document (spec "Form document (form builder)") per form, `_id` a
 * UUID, `name` unique, plus `description` and `tags` for search. Groups live in accounts: they
 * are read through `accounts.listGroups`, never from the accounts' collection.
 */
import { randomUUID } from "node:crypto";
import type { ServiceSchema } from "moleculer";
import { call } from "../../shared/contracts";
import { forms as contract } from "../../shared/contracts/forms";
import type { FormDocument, Group } from "../../shared/contracts/resources";
import { BadRequestError, ConflictError, NotFoundError } from "../../shared/errors";
import { contractActions, storeMixin, type ServiceThis } from "../../shared/service";
import { DuplicateKeyError, type Store } from "../../shared/store/types";
import { nowIso } from "../../shared/text";
import { resolveGroupRefs, toListItem } from "./documents";
import { depthOf, MAX_FORM_DEPTH, restoreContainers } from "./preserve";

const FormsService: ServiceSchema = {
  name: contract.name,
  mixins: [storeMixin],

  actions: contractActions(contract, {
    async list(ctx) {
      const [forms, groups] = await Promise.all([
        this.store.collection<FormDocument>("forms").find({}, { sort: { name: 1 } }),
        call(ctx, "accounts.listGroups", {}),
      ]);
      const byId = new Map(groups.map((g: Group) => [g._id, g]));
      return forms.map((form) => toListItem(form, byId));
    },

    async preserveFormData(ctx) {
      const form = await this.store.collection("forms").findOne({ name: ctx.params.form_name });
      if (!form) throw new NotFoundError("Form", ctx.params.form_name);
      return restoreContainers(form, ctx.params.data) as FormDocument;
    },

    async create(ctx) {
      const { name, children = [], elements = [], groups = [], description = "", tags = [] } = ctx.params;
      if (depthOf(children) > MAX_FORM_DEPTH || depthOf(elements) > MAX_FORM_DEPTH) {
        throw new BadRequestError(`A form nests at most ${MAX_FORM_DEPTH} levels`, [
          { field: "children", message: `Nested deeper than ${MAX_FORM_DEPTH} levels`, type: "depth" },
        ]);
      }
      const resolved = resolveGroupRefs(
        groups,
        groups.length > 0 ? await call(ctx, "accounts.listGroups", {}) : [],
      );
      if (resolved.errors.length > 0)
        throw new BadRequestError(`Unknown group(s): ${groups.join(", ")}`, resolved.errors);

      const by = ctx.meta.caller?.accountId ?? "system";
      const now = nowIso();
      const form: FormDocument = {
        _id: randomUUID(),
        name,
        description,
        tags: [...new Set(tags)],
        children,
        elements,
        groups: resolved.ids,
        created: now,
        created_by: by,
        last_updated: now,
        last_updated_by: by,
      };
      try {
        return (await this.store.collection<FormDocument>("forms").insertOne(form)) as FormDocument;
      } catch (err) {
        if (err instanceof DuplicateKeyError) throw new ConflictError(`Form '${name}' already exists`);
        throw err;
      }
    },

    async get(ctx) {
      const form = await this.store.collection<FormDocument>("forms").findOne({ name: ctx.params.name });
      if (!form) throw new NotFoundError("Form", ctx.params.name);
      return form;
    },

    async delete(ctx) {
      const form = await this.store.collection("forms").findOneAndDelete({ name: ctx.params.name });
      if (!form) throw new NotFoundError("Form", ctx.params.name);
      return { status: "OK", message: `Form '${ctx.params.name}' deleted` };
    },
  }),

  methods: {
    async ensureIndexes(this: ServiceThis, store: Store): Promise<void> {
      await store.collection("forms").createIndex({ keys: { name: 1 }, unique: true });
    },
  },

  async started() {
    await this.ensureIndexes(this.store);
  },
};

export default FormsService;
