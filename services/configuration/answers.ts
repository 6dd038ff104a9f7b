/**
 * The id-member rule (docs/compatibility.md#the-id-member): an object answered with its `_id` also
 * carries it as `id`, since the spec's export and history entries name an object's id `id` and the
 * real product's clients read `id` (itential-mcp's tree create reads `res.json()["id"]`). Stored
 * documents keep `_id` only.
 */
export function withId<T extends { _id: string }>(doc: T): T & { id: string } {
  return { id: doc._id, ...doc };
}
