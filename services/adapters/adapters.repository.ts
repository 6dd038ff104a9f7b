/**
 * Collection `adapters`: adapter instances, `name` unique (the layout and what each member holds:
 * ./documents.ts).
 */
import { NamedRepository } from "../../shared/named-documents";
import type { StoredAdapter } from "./documents";

/** What an adapter update writes (PUT /adapters/:name/properties): members set and members removed. */
export interface AdapterChange {
  set: Partial<StoredAdapter> & { "_meta.updated": string; "_meta.updatedBy": string };
  unset: Partial<Record<"loggerProps" | "model", "">>;
}

export class AdaptersRepository extends NamedRepository<StoredAdapter> {
  readonly collectionName = "adapters";
  readonly label = "Adapter";

  /**
   * The update as one compare-and-set on what was read (its `_meta.updated` and `generation`), the
   * generation bumped; null when another write landed since `read` (or the adapter is gone).
   */
  updateIfUnchanged(read: StoredAdapter, change: AdapterChange): Promise<StoredAdapter | null> {
    return this.docs.findOneAndUpdate(
      { _id: read._id, "_meta.updated": read._meta.updated, generation: read.generation ?? null },
      { $set: change.set, $unset: change.unset, $inc: { generation: 1 } },
    );
  }

  /**
   * Sets the lifecycle state in one write, the generation bumped with `restart` (each replica drops
   * its pool for an older generation); null when there is no such adapter.
   */
  setState(
    name: string,
    state: "RUNNING" | "STOPPED",
    restart: boolean,
    now: string,
  ): Promise<StoredAdapter | null> {
    return this.docs.findOneAndUpdate(
      { name },
      { $set: { state, "_meta.updated": now }, ...(restart && { $inc: { generation: 1 } }) },
    );
  }

  /** The adapters not stopped (the health pass's; at most `limit`). */
  notStopped(limit: number): Promise<StoredAdapter[]> {
    return this.docs.find({ state: { $ne: "STOPPED" } }, { limit });
  }
}
