/**
 * Collection `config_parsers`: the config parsers, built-in and user ones, one per name:
 * { _id, name (unique), template (the parser it extends; null for a built-in), lexRules, builtIn,
 * style, created, lastUpdated }. Small by nature (the built-ins plus the few a team adds), so its
 * other lookups (by `template`, the list's name pattern) read it whole (SCANNED_COLLECTIONS).
 */
import type { ParserRecord } from "../../shared/contracts/configuration";
import { index, Repository } from "../../shared/store/repository";
import type { Filter, Sort } from "../../shared/store/types";

export type StoredParser = ParserRecord;
/** What a user parser's update may change. */
export type ParserChanges = Partial<Pick<StoredParser, "lexRules" | "template" | "style">> & {
  lastUpdated: string;
};

export class ParsersRepository extends Repository<StoredParser> {
  readonly collectionName = "config_parsers";
  /** One parser per name: a second create (or a second replica seeding the built-ins) is a DuplicateKeyError. */
  readonly indexes = [index({ name: 1 }, { unique: true })];

  /** Stores a new parser; a taken name throws DuplicateKeyError (the unique index decides, not a read before). */
  create(fields: Omit<StoredParser, "_id">): Promise<StoredParser> {
    return this.docs.insertOne({ _id: this.newId(), ...fields });
  }

  byName(name: string): Promise<StoredParser | null> {
    return this.docs.findOne({ name });
  }

  /** Every parser's name (an import checks the parsers its entries name against them). */
  async names(): Promise<string[]> {
    return (await this.docs.find({}, { projection: { name: 1 } })).map((p) => p.name);
  }

  /**
   * A page of parsers, those whose name matches `namePattern` (a regex source, matched
   * case-insensitively) when it is given.
   */
  page(namePattern: string | undefined, sort: Sort, skip: number, limit: number): Promise<StoredParser[]> {
    const filter: Filter = namePattern === undefined ? {} : { name: { $regex: namePattern, $options: "i" } };
    return this.docs.find(filter, { sort, skip, limit });
  }

  /** Changes a user parser in one write; null when there is none of that name (built-ins are never changed). */
  updateUserParser(name: string, changes: ParserChanges): Promise<StoredParser | null> {
    return this.docs.findOneAndUpdate({ name, builtIn: false }, { $set: changes });
  }

  /** A parser that extends `name` (its `template`), if any. */
  extending(name: string): Promise<StoredParser | null> {
    return this.docs.findOne({ template: name });
  }

  /** Deletes a user parser (a built-in is never deleted, whatever the caller read before). */
  async removeUserParser(name: string): Promise<boolean> {
    return (await this.docs.deleteOne({ name, builtIn: false })) > 0;
  }
}
