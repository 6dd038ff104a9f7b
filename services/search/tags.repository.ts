/**
 * Collection `tags`: { _id, name, description, nameKey (the lower-cased name, unique), created,
 * createdBy }. An object carries the `_id`s of its tags in its own `tags` array (in its own
 * collection: ./searchable.repository.ts).
 */
import type { Tag } from "../../shared/contracts/search";
import { index, Repository } from "../../shared/store/repository";
import type { Condition } from "../../shared/store/types";

export interface StoredTag {
  _id: string;
  name: string;
  description?: string;
  nameKey: string;
  created: string;
  createdBy: string | null;
}

const TAG_FIELDS = { _id: 1, name: 1, description: 1 } as const;

/** A stored tag as answered (a tag stored without a description answers ""). */
function asTag(t: Pick<StoredTag, "_id" | "name" | "description">): Tag {
  return { _id: t._id, name: t.name, description: t.description ?? "" };
}

export class TagsRepository extends Repository<StoredTag> {
  readonly collectionName = "tags";
  /** Names are unique regardless of case ("BGP" and "bgp" cannot both exist); also the list's order. */
  readonly indexes = [index({ nameKey: 1 }, { unique: true })];

  /** Stores a new tag; a name taken in any case throws DuplicateKeyError. */
  create(name: string, description: string, createdBy: string | null, now: string): Promise<StoredTag> {
    return this.docs.insertOne({
      _id: this.newId(),
      name,
      description,
      nameKey: name.toLowerCase(),
      created: now,
      createdBy,
    });
  }

  async exists(id: string): Promise<boolean> {
    return (await this.docs.findOne({ _id: id }, { projection: { _id: 1 } })) !== null;
  }

  /** A page of tags by name (case-insensitively, then `_id`), and how many there are. */
  async page(skip: number, limit: number): Promise<{ results: Tag[]; total: number }> {
    const { results, total } = await this.findPage(
      {},
      { projection: TAG_FIELDS, sort: { nameKey: 1, _id: 1 }, skip, limit },
    );
    return { results: results.map(asTag), total };
  }

  /**
   * The `_id`s of the tags whose name matches `regex` (a `$regex` condition). Tags are few by
   * nature (people name them), so the match reads them all.
   */
  async idsNamed(regex: Condition<string>): Promise<string[]> {
    return (await this.docs.find({ name: regex }, { projection: { _id: 1 } })).map((t) => t._id);
  }

  /** The named tags that exist, by `_id`. */
  async byIds(ids: string[]): Promise<Map<string, Tag>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return new Map();
    const tags = await this.docs.find({ _id: { $in: unique } }, { projection: TAG_FIELDS });
    return new Map(tags.map((t) => [t._id, asTag(t)]));
  }

  /** Deletes the tag and answers it, in one write; null when there was none. */
  removeById(id: string): Promise<StoredTag | null> {
    return this.docs.findOneAndDelete({ _id: id });
  }
}
