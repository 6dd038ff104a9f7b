/**
 * Collection `forms`: one Form document (spec "Form document (form builder)") per form, `_id` a
 * UUID, `name` unique (the form's key in every request), plus `description` and `tags` for search.
 * Insert (409 on a taken name), list by name, get and remove (404): NamedRepository's rule.
 */
import { randomUUID } from "node:crypto";
import type { FormDocument } from "../../shared/contracts/resources";
import { keyedUuid } from "../../shared/keyed-inserts";
import { NamedRepository } from "../../shared/named-documents";

export class FormsRepository extends NamedRepository<FormDocument> {
  readonly collectionName = "forms";
  readonly label = "Form";

  /**
   * A UUID (the ids forms have always had). In an idempotent create it is made from the request's
   * key (shared/keyed-inserts.ts): a replica that takes a dead one's create over makes the same id
   * and answers the form the first attempt stored, with no extra write to remember it.
   */
  override newId(): string {
    return keyedUuid("form") ?? randomUUID();
  }
}
