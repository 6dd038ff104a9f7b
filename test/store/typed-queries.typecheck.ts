/**
 * Type checks, not a jest suite: `npm run lint` (tsc) compiles this file, and each
 * `@ts-expect-error` fails the check when the line below it stops being an error. It pins what the
 * typed filters and updates of shared/store/types.ts refuse for a repository's document type.
 */
import type { Collection, Filter, Update } from "../../shared/store/types";

interface Device {
  _id: string;
  name: string;
  port: number;
  groups: string[];
  meta: { created: string };
}

export function typedQueries(devices: Collection<Device>): void {
  // What a repository writes.
  void devices.find({ name: "sw-1", port: { $gte: 22 }, groups: "core" });
  void devices.find({ groups: { $ne: "edge" }, "meta.created": { $lt: "2026" } });
  void devices.find({ $or: [{ name: "a" }, { port: { $in: [22, 830] } }] });
  void devices.updateOne({ _id: "d" }, { $set: { port: 830, "meta.created": "now" }, $inc: { port: 1 } });

  // @ts-expect-error a field's value of another type
  void devices.find({ port: "22" });
  // @ts-expect-error an operator's operand of another type
  void devices.find({ name: { $gt: 3 } });
  // @ts-expect-error $set of a field with a value of another type
  void devices.updateOne({ _id: "d" }, { $set: { groups: "core" } });
  // @ts-expect-error an operator MongoDB does not have
  void devices.updateOne({ _id: "d" }, { $increment: { port: 1 } });
  // @ts-expect-error $inc by a string
  void devices.updateOne({ _id: "d" }, { $inc: { port: "1" } });
}

/** Untyped filters and updates (a client's job search) still pass where the document type is open. */
export function openQueries(docs: Collection, filter: Filter, update: Update): void {
  void docs.find(filter);
  void docs.updateMany(filter, update);
}
