/**
 * Collection `forms`: one Form document (spec "Form document (form builder)") per form, `_id` a
 * UUID, `name` unique (the form's key in every request), plus `description` and `tags` for search.
 */
import { randomUUID } from "node:crypto";
import type { FormDocument } from "../../shared/contracts/resources";
import { ConflictError, NotFoundError } from "../../shared/errors";
import { keyedUuid } from "../../shared/keyed-inserts";
import { index, Repository } from "../../shared/store/repository";
import { DuplicateKeyError } from "../../shared/store/types";

export class FormsRepository extends Repository<FormDocument> {
  readonly collectionName = "forms";
  /** One form per name; also serves the list (by name) and every lookup, which is by name. */
  readonly indexes = [index({ name: 1 }, { unique: true })];

  /**
   * A UUID (the ids forms have always had). In an idempotent create it is made from the request's
   * key (shared/keyed-inserts.ts): a replica that takes a dead one's create over makes the same id
   * and answers the form the first attempt stored, with no extra write to remember it.
   */
  override newId(): string {
    return keyedUuid("form") ?? randomUUID();
  }

  /** Stores a new form; 409 when its name is taken. */
  async insert(form: FormDocument): Promise<FormDocument> {
    try {
      return await this.docs.insertOne(form);
    } catch (err) {
      if (err instanceof DuplicateKeyError) throw new ConflictError(`Form '${form.name}' already exists`);
      throw err;
    }
  }

  /** Every form, by name. */
  list(): Promise<FormDocument[]> {
    return this.docs.find({}, { sort: { name: 1 } });
  }

  /** The form named `name`; 404 when there is none. */
  async get(name: string): Promise<FormDocument> {
    const form = await this.docs.findOne({ name });
    if (!form) throw new NotFoundError("Form", name);
    return form;
  }

  /** Deletes the form named `name`; 404 when there is none. */
  async remove(name: string): Promise<FormDocument> {
    const form = await this.docs.findOneAndDelete({ name });
    if (!form) throw new NotFoundError("Form", name);
    return form;
  }
}
