/**
 * Golden config trees (docs/configuration-manager.md#golden-config-trees): a tree has a name, a device
 * type, a parser and versions (the first `initial`); each version holds nodes by slash path under the
 * root `base`, each with a config spec, variables and the devices assigned to it. Names are unique by
 * index (409 from the insert itself); a version is added by compare-and-set on the tree's version list.
 */
import type { GoldenConfigTree, ParserRecord, TreeNode } from "../../shared/contracts/configuration";
import { ConflictError, invalidField, NotFoundError } from "../../shared/errors";
import { pageLimit } from "../../shared/paging";
import { nowIso } from "../../shared/text";
import { DuplicateKeyError } from "../../shared/store/types";
import { ancestorPaths } from "./inherit";
import { defaultParserFor } from "./parsers";
import { checkedSpecs, nodeView } from "./spec-check";
import { checkVariables, type SpecLine } from "./spec-model";
import { specToText } from "./spec-text";
import { checkNodePathNames, checkNotReserved, checkTreeBounds } from "./tree-bounds";
import { NODES, PARSERS, TREES, type ConfigurationService, type Ctx } from "./types";

export const ROOT_NODE = "base";
export const FIRST_VERSION = "initial";

export async function findTree(this: ConfigurationService, treeId: string): Promise<GoldenConfigTree> {
  const tree = await this.store.collection<GoldenConfigTree>(TREES).findOne({ _id: treeId });
  if (!tree) throw new NotFoundError("Golden config tree", treeId);
  return tree;
}

/** A tree as answered: `id` beside `_id` (the spec's export entry and the real product's clients read `id`). */
export function treeAnswer<T extends GoldenConfigTree>(tree: T): T & { id: string } {
  return { id: tree._id, ...tree };
}

function assertVersion(tree: GoldenConfigTree, version: string): void {
  if (!tree.versions.includes(version))
    throw new NotFoundError(`Golden config tree '${tree.name}' version`, version);
}

export async function requireVersion(this: ConfigurationService, treeId: string, version: string) {
  const tree = await findTree.call(this, treeId);
  assertVersion(tree, version);
  return tree;
}

export async function createTree(this: ConfigurationService, ctx: Ctx<"createTree">) {
  const { name, deviceType, description = "" } = ctx.params;
  const parser = ctx.params.parser ?? defaultParserFor(deviceType);
  if (!(await this.store.collection<ParserRecord>(PARSERS).findOne({ name: parser })))
    throw invalidField("parser", `Config parser '${parser}' does not exist.`, "notFound");
  const now = nowIso();
  let tree: GoldenConfigTree;
  try {
    tree = await this.store.collection<GoldenConfigTree>(TREES).insertOne({
      name,
      deviceType,
      parser,
      description,
      versions: [FIRST_VERSION],
      created: now,
      lastUpdated: now,
    });
  } catch (err) {
    if (err instanceof DuplicateKeyError)
      throw new ConflictError(`Golden config tree '${name}' already exists`);
    throw err;
  }
  await this.store.collection<TreeNode>(NODES).insertOne(emptyNode(tree._id, FIRST_VERSION, ROOT_NODE, now));
  return treeAnswer(tree);
}

function emptyNode(treeId: string, version: string, path: string, now: string): Omit<TreeNode, "_id"> {
  return { treeId, version, path, spec: [], variables: {}, devices: [], created: now, lastUpdated: now };
}

export async function listTrees(this: ConfigurationService, ctx: Ctx<"listTrees">) {
  const trees = await this.store
    .collection<GoldenConfigTree>(TREES)
    .find(
      {},
      { sort: { name: 1 }, skip: ctx.params.skip ?? 0, limit: pageLimit(ctx.params.limit), readOnly: true },
    );
  return trees.map(treeAnswer);
}

export async function getTree(this: ConfigurationService, ctx: Ctx<"getTree">) {
  const tree = await findTree.call(this, ctx.params.treeId);
  const nodes = await this.store
    .collection<TreeNode>(NODES)
    .find({ treeId: tree._id }, { sort: { path: 1 }, projection: { version: 1, path: 1, devices: 1 } });
  // A Map, then own members: no version name reaches an object's prototype.
  const byVersion = new Map<string, { path: string; devices: string[] }[]>();
  for (const version of tree.versions) byVersion.set(version, []);
  for (const node of nodes) byVersion.get(node.version)?.push({ path: node.path, devices: node.devices });
  return { ...treeAnswer(tree), nodes: Object.fromEntries(byVersion) };
}

export async function deleteTree(this: ConfigurationService, ctx: Ctx<"deleteTree">) {
  const tree = await this.store
    .collection<GoldenConfigTree>(TREES)
    .findOneAndDelete({ _id: ctx.params.treeId });
  if (!tree) throw new NotFoundError("Golden config tree", ctx.params.treeId);
  await this.store.collection(NODES).deleteMany({ treeId: tree._id });
  return { status: "OK", message: `Golden config tree '${tree.name}' deleted` };
}

export async function createVersion(this: ConfigurationService, ctx: Ctx<"createVersion">) {
  const { treeId, version } = ctx.params;
  checkNotReserved(version, "version");
  const tree = await findTree.call(this, treeId);
  const base = ctx.params.base ?? tree.versions[tree.versions.length - 1];
  if (!tree.versions.includes(base))
    throw invalidField("base", `Golden config tree '${tree.name}' has no version '${base}'.`, "notFound");
  checkTreeBounds({ versions: tree.versions.length + 1 }, { versions: "version", nodes: "version" });
  const trees = this.store.collection<GoldenConfigTree>(TREES);
  const now = nowIso();
  const updated = await trees.findOneAndUpdate(
    { _id: treeId, versions: { $ne: version } },
    { $push: { versions: version }, $set: { lastUpdated: now } },
  );
  if (!updated) {
    await findTree.call(this, treeId); // deleted meanwhile -> 404
    throw new ConflictError(`Golden config tree '${tree.name}' already has version '${version}'`);
  }
  const nodes = this.store.collection<TreeNode>(NODES);
  try {
    const source = await nodes.find({ treeId, version: base });
    const clones = source.map(({ _id, ...node }) => ({ ...node, version, created: now, lastUpdated: now }));
    if (clones.length > 0) await nodes.insertMany(clones);
  } catch (err) {
    // No half-made version: its nodes and its name go again.
    await nodes.deleteMany({ treeId, version });
    await trees.updateOne({ _id: treeId }, { $pull: { versions: version } });
    throw err;
  }
  return treeAnswer(updated);
}

/**
 * A node's spec from the request, checked (in a worker when heavy: spec-check.ts), with its text
 * form: the text form (`config`) or JSON (`spec`), not both.
 */
async function specFrom(
  this: ConfigurationService,
  params: { config?: string; spec?: Record<string, any>[] },
): Promise<{ spec: SpecLine[]; config: string } | undefined> {
  if (params.config !== undefined && params.spec !== undefined)
    throw invalidField("config", "Send the spec as text (config) or as JSON (spec), not both.", "exclusive");
  if (params.config !== undefined)
    return (await checkedSpecs.call(this, [{ field: "config", config: params.config }]))[0];
  if (params.spec !== undefined)
    return (await checkedSpecs.call(this, [{ field: "spec", spec: params.spec }]))[0];
  return undefined;
}

export async function setNode(this: ConfigurationService, ctx: Ctx<"setNode">) {
  const { treeId, version, nodePath } = ctx.params;
  checkNodePathNames(nodePath, "nodePath");
  const checked = await specFrom.call(this, ctx.params);
  const variables = ctx.params.variables === undefined ? undefined : checkVariables(ctx.params.variables);
  const devices = ctx.params.devices === undefined ? undefined : [...new Set(ctx.params.devices)];
  await requireVersion.call(this, treeId, version);
  const nodes = this.store.collection<TreeNode>(NODES);
  const parentPath = nodePath.split("/").slice(0, -1).join("/");
  if (parentPath && !(await nodes.findOne({ treeId, version, path: parentPath })))
    throw invalidField(
      "nodePath",
      `Node '${parentPath}' does not exist: create the parent first.`,
      "notFound",
    );
  // A new node makes one more; replacing one leaves the count as it is.
  if (!(await nodes.findOne({ treeId, version, path: nodePath }, { projection: { _id: 1 } })))
    checkTreeBounds(
      { versions: 1, nodes: { version, count: (await nodes.count({ treeId, version })) + 1 } },
      { versions: "version", nodes: "nodePath" },
    );
  const now = nowIso();
  const changes: Partial<TreeNode> = { lastUpdated: now };
  if (checked) changes.spec = checked.spec as unknown as TreeNode["spec"];
  if (variables) changes.variables = variables;
  if (devices) changes.devices = devices;
  // A new node starts empty; what the request sets is in $set, the rest of an empty node on insert.
  const onInsert: Record<string, unknown> = { created: now };
  if (!checked) onInsert.spec = [];
  if (!variables) onInsert.variables = {};
  if (!devices) onInsert.devices = [];
  const node = await nodes.findOneAndUpdate(
    { treeId, version, path: nodePath },
    { $set: changes, $setOnInsert: onInsert },
    { upsert: true },
  );
  await this.store.collection(TREES).updateOne({ _id: treeId }, { $set: { lastUpdated: now } });
  return { ...node!, config: checked?.config ?? specToText(node!.spec as unknown as SpecLine[]) };
}

/**
 * The nodes from the root to `path` (root first); 404 when `path` is not a node. `readOnly` when the
 * caller changes nothing: the embedded store may then answer without copying (a 10,000-line spec).
 */
export async function nodeChain(
  this: ConfigurationService,
  treeId: string,
  version: string,
  path: string,
  readOnly = false,
) {
  const paths = ancestorPaths(path);
  const found = await this.store
    .collection<TreeNode>(NODES)
    .find({ treeId, version, path: { $in: paths } }, { readOnly });
  const byPath = new Map(found.map((n) => [n.path, n]));
  if (!byPath.has(path))
    throw new NotFoundError(`Node of golden config tree '${treeId}' version '${version}'`, path);
  return paths.map((p) => byPath.get(p)).filter((n): n is TreeNode => n !== undefined);
}

export async function getNode(this: ConfigurationService, ctx: Ctx<"getNode">) {
  const { treeId, version, nodePath } = ctx.params;
  await requireVersion.call(this, treeId, version);
  // Read-only: the answer is made from the stored nodes (in a worker when big), never changes them.
  const chain = await nodeChain.call(this, treeId, version, nodePath, true);
  const view = await nodeView.call(
    this,
    chain.map((n) => ({ path: n.path, spec: n.spec as unknown as SpecLine[], variables: n.variables })),
  );
  return {
    ...chain[chain.length - 1],
    config: view.config,
    effective: { ...view.effective, spec: view.effective.spec as unknown as Record<string, any>[] },
  };
}

export async function deleteNode(this: ConfigurationService, ctx: Ctx<"deleteNode">) {
  const { treeId, version, nodePath } = ctx.params;
  if (nodePath === ROOT_NODE)
    throw invalidField("nodePath", "The root node 'base' cannot be deleted.", "root");
  await requireVersion.call(this, treeId, version);
  const nodes = this.store.collection<TreeNode>(NODES);
  const removed = await nodes.findOneAndDelete({ treeId, version, path: nodePath });
  if (!removed)
    throw new NotFoundError(`Node of golden config tree '${treeId}' version '${version}'`, nodePath);
  const under = await nodes.find({ treeId, version }, { projection: { path: 1 } });
  for (const n of under) if (n.path.startsWith(`${nodePath}/`)) await nodes.deleteOne({ _id: n._id });
  return { status: "OK", message: `Node '${nodePath}' deleted` };
}
