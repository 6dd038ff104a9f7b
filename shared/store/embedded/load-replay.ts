/**
 * The log's patches as a store's load replays them (backend.ts load): each document's image after
 * its patches is kept here, the latest one only, and applied to its table once, when a line writes
 * that collection otherwise (a put, a delete, an index) or the load ends.
 *
 * Why: every step of a job is a logged patch, and applying each to its table moved the job's index
 * entries at every one (its sweep time changes at each step): 19 % of a load's CPU on a log the
 * engine wrote (docs/performance-rounds.md, eighteenth round). The tables end as a line-by-line
 * application leaves them: a document's image is its last patch's, its index entries move once,
 * from its stored image to that one, and images are applied in the order of their last patches,
 * so the documents written last are the same (the hot ones, doc-map.ts). Unique keys end the same
 * whatever the order of the documents applied together: an entry is removed only by its owner.
 * At most PENDING_DOCUMENTS images wait per collection (each a parsed document, where the table
 * may hold it as text): a log that patches more documents than that between two other writes (a
 * data migration) has them applied a batch at a time, which leaves the tables as they would be.
 */
import { HOT_DOCUMENTS } from "./doc-map";
import { replayPatch, type LoggedPatchOp } from "./log-patch";
import type { StoredDoc, Table } from "./table";

/** Images that wait at most, per collection: the hot documents a collection holds by default. */
export const PENDING_DOCUMENTS = HOT_DOCUMENTS;

export class PatchReplay {
  /** Per collection, per document, its latest image not yet in its table. */
  private readonly pending = new Map<string, Map<string, StoredDoc>>();

  constructor(private readonly tableOf: (name: string) => Table) {}

  /** Replays the patches of log line `seq`, of collection `collection`. */
  patch(collection: string, seq: number, patches: { _id: string; ops: LoggedPatchOp[] }[]): void {
    let images = this.pending.get(collection);
    if (!images) this.pending.set(collection, (images = new Map()));
    const table = this.tableOf(collection);
    for (const { _id, ops } of patches) {
      const base = images.get(_id) ?? table.docs.peek(_id);
      // The log is replayed in order, so the patched document is there; anything else is corruption.
      if (!base) throw new Error(`store log line ${seq} patches ${collection}/${_id}, which does not exist`);
      // Copied on write, as the table's own images share their unpatched members with it.
      const image = replayPatch(base, ops);
      images.delete(_id); // last in the map: applied in the order of last patches
      images.set(_id, image);
      if (images.size >= PENDING_DOCUMENTS) this.flush(collection);
    }
  }

  /** Applies the pending images of `collection`, or of every collection without one. */
  flush(collection?: string): void {
    for (const [name, images] of this.pending) {
      if (collection !== undefined && name !== collection) continue;
      if (images.size === 0) continue;
      const batch = [...images.values()];
      images.clear();
      this.tableOf(name).apply(batch, []);
    }
  }
}
