/**
 * Golden config trees (docs/configuration-manager.md#golden-config-trees): a tree has a name, a device
 * type, a parser and versions (the first `initial`); each version holds nodes by slash path under the
 * root `base`, each with a config spec, variables and the devices assigned to it. Names are unique by
 * index (409 from the insert itself); a version is added by compare-and-set on the tree's version list.
 */
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { ConflictError, invalidField, NotFoundError } from "../../shared/errors";
import { MAX_PAGE_SIZE, pageLimit } from "../../shared/paging";
import { nowIso } from "../../shared/text";
import { DuplicateKeyError } from "../../shared/store/types";
import { withId } from "./answers";
import { ancestorPaths } from "./inherit";
import { defaultParserFor } from "./parsers";
import { checkedSpecs, nodeView, specLinesOf, type CheckedSpec } from "./spec-check";
import { checkVariables } from "./spec-model";
import { specToText } from "./spec-text";
import { checkNodePathNames, checkNotReserved, checkTreeBounds } from "./tree-bounds";
import type { NewNode, NodeChanges, StoredNode } from "./nodes.repository";
import type { StoredTree } from "./trees.repository";
import type { ConfigurationService, Ctx } from "./types";

export const ROOT_NODE = "base";
export const FIRST_VERSION = "initial";

export async function findTree(this: ConfigurationService, treeId: string): Promise<StoredTree> {
  const tree = await this.trees.byId(treeId);
  if (!tree) throw new NotFoundError("Golden config tree", treeId);
  return tree;
}

/** A tree as answered: `id` beside `_id` (the spec's export entry and the real product's clients read `id`). */
export function treeAnswer<T extends StoredTree>(tree: T): T & { id: string } {
  return withId(tree);
}

function assertVersion(tree: StoredTree, version: string): void {
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
  if (!(await this.parsers.byName(parser)))
    throw invalidField("parser", `Config parser '${parser}' does not exist.`, "notFound");
  const now = nowIso();
  let tree: StoredTree;
  try {
    tree = await this.trees.create({
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
  await this.nodes.create(emptyNode(tree._id, FIRST_VERSION, ROOT_NODE, now));
  return treeAnswer(tree);
}

function emptyNode(treeId: string, version: string, path: string, now: string): NewNode {
  return { treeId, version, path, spec: [], variables: {}, devices: [], created: now, lastUpdated: now };
}

export async function listTrees(this: ConfigurationService, ctx: Ctx<"listTrees">) {
  // Without a `limit`, every tree up to the largest page: the real product answers all of them,
  // and itential-mcp finds a tree by name in this list (docs/compatibility.md#list-shapes).
  const trees = await this.trees.pageByName(
    ctx.params.skip ?? 0,
    pageLimit(ctx.params.limit ?? MAX_PAGE_SIZE),
  );
  return trees.map(treeAnswer);
}

export async function getTree(this: ConfigurationService, ctx: Ctx<"getTree">) {
  const tree = await findTree.call(this, ctx.params.treeId);
  const nodes = await this.nodes.outlineOfTree(tree._id);
  // A Map, then own members: no version name reaches an object's prototype.
  const byVersion = new Map<string, { path: string; devices: string[] }[]>();
  for (const version of tree.versions) byVersion.set(version, []);
  for (const node of nodes) byVersion.get(node.version)?.push({ path: node.path, devices: node.devices });
  return { ...treeAnswer(tree), nodes: Object.fromEntries(byVersion) };
}

export async function deleteTree(this: ConfigurationService, ctx: Ctx<"deleteTree">) {
  const tree = await this.trees.removeById(ctx.params.treeId);
  if (!tree) throw new NotFoundError("Golden config tree", ctx.params.treeId);
  await this.nodes.removeTree(tree._id);
  return { status: "OK", message: `Golden config tree '${tree.name}' deleted` };
}

/**
 * `PUT /configuration_manager/configs/:treeId/:version`: the real product's update of a version's
 * properties, as itential-mcp sends it after a create (`{name: "initial", variables}`). A version's
 * variables are its root node's (every node inherits them), so `variables` replace those, in one
 * upsert of the root. `name` is taken when it is the version's own: renaming a version would move
 * every node of it, which no client we read asks for, so another name is a 400, not a silent no-op.
 */
export async function updateVersion(this: ConfigurationService, ctx: Ctx<"updateVersion">) {
  const { treeId, version, name } = ctx.params;
  if (name !== undefined && name !== version)
    throw invalidField(
      "name",
      `Renaming a version is not served: 'name' must be the version's own name ('${version}').`,
      "rename",
    );
  const variables = ctx.params.variables === undefined ? undefined : checkVariables(ctx.params.variables);
  const tree = await requireVersion.call(this, treeId, version);
  if (variables) {
    const now = nowIso();
    await this.nodes.put(treeId, version, ROOT_NODE, { variables, lastUpdated: now });
    await this.trees.touch(treeId, now);
  }
  return { status: "success", message: `Golden config tree '${tree.name}' version '${version}' updated` };
}

export async function createVersion(this: ConfigurationService, ctx: Ctx<"createVersion">) {
  const { treeId, version } = ctx.params;
  checkNotReserved(version, "version");
  const tree = await findTree.call(this, treeId);
  const base = ctx.params.base ?? tree.versions[tree.versions.length - 1];
  if (!tree.versions.includes(base))
    throw invalidField("base", `Golden config tree '${tree.name}' has no version '${base}'.`, "notFound");
  checkTreeBounds({ versions: tree.versions.length + 1 }, { versions: "version", nodes: "version" });
  const now = nowIso();
  const updated = await this.trees.addVersion(treeId, version, now);
  if (!updated) {
    await findTree.call(this, treeId); // deleted meanwhile -> 404
    throw new ConflictError(`Golden config tree '${tree.name}' already has version '${version}'`);
  }
  try {
    const source = await this.nodes.allOfVersion(treeId, base);
    await this.nodes.createAll(
      source.map(({ _id, ...node }) => ({ ...node, version, created: now, lastUpdated: now })),
    );
  } catch (err) {
    // No half-made version: its nodes and its name go again.
    await this.nodes.removeVersion(treeId, version);
    await this.trees.removeVersion(treeId, version);
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
): Promise<CheckedSpec | undefined> {
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
  const spec = checked && (await specLinesOf.call(this, checked.specJson));
  // Parsing a spec at its bounds, freezing it and the store's write take 10-25 ms each on the test
  // machine: each in a turn of the event loop of its own (docs/security.md#stalls).
  if (spec) await yieldToEventLoop();
  const variables = ctx.params.variables === undefined ? undefined : checkVariables(ctx.params.variables);
  const devices = ctx.params.devices === undefined ? undefined : [...new Set(ctx.params.devices)];
  await requireVersion.call(this, treeId, version);
  const parentPath = nodePath.split("/").slice(0, -1).join("/");
  if (parentPath && !(await this.nodes.exists(treeId, version, parentPath)))
    throw invalidField(
      "nodePath",
      `Node '${parentPath}' does not exist: create the parent first.`,
      "notFound",
    );
  // A new node makes one more; replacing one leaves the count as it is.
  if (!(await this.nodes.exists(treeId, version, nodePath)))
    checkTreeBounds(
      { versions: 1, nodes: { version, count: (await this.nodes.countOfVersion(treeId, version)) + 1 } },
      { versions: "version", nodes: "nodePath" },
    );
  const now = nowIso();
  // What the request sets; a new node starts empty in the rest (nodes.repository.ts#put).
  const changes: NodeChanges = { lastUpdated: now };
  if (variables) changes.variables = variables;
  if (devices) changes.devices = devices;
  if (spec) changes.spec = spec;
  const node = await this.nodes.put(treeId, version, nodePath, changes);
  await this.trees.touch(treeId, now);
  return { ...withId(node), config: checked?.config ?? specToText(node.spec) };
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
  const found = await this.nodes.atPaths(treeId, version, paths, readOnly);
  const byPath = new Map(found.map((n) => [n.path, n]));
  if (!byPath.has(path))
    throw new NotFoundError(`Node of golden config tree '${treeId}' version '${version}'`, path);
  return paths.map((p) => byPath.get(p)).filter((n): n is StoredNode => n !== undefined);
}

export async function getNode(this: ConfigurationService, ctx: Ctx<"getNode">) {
  const { treeId, version, nodePath } = ctx.params;
  await requireVersion.call(this, treeId, version);
  // Read-only: the answer is made from the stored nodes (in a worker when big), never changes them.
  const chain = await nodeChain.call(this, treeId, version, nodePath, true);
  const view = await nodeView.call(
    this,
    chain.map((n) => ({ path: n.path, spec: n.spec, variables: n.variables })),
  );
  return { ...withId(chain[chain.length - 1]), config: view.config, effective: view.effective };
}

export async function deleteNode(this: ConfigurationService, ctx: Ctx<"deleteNode">) {
  const { treeId, version, nodePath } = ctx.params;
  if (nodePath === ROOT_NODE)
    throw invalidField("nodePath", "The root node 'base' cannot be deleted.", "root");
  await requireVersion.call(this, treeId, version);
  if (!(await this.nodes.removeWithDescendants(treeId, version, nodePath)))
    throw new NotFoundError(`Node of golden config tree '${treeId}' version '${version}'`, nodePath);
  return { status: "OK", message: `Node '${nodePath}' deleted` };
}
