/**
 * Export and import of golden config trees (spec operation 9; docs/configuration-manager.md#export-and-import).
 * Export answers `{status, message, data}`, `data` the tree's export entry: the spec's members (id,
 * name, deviceType, versions, created, lastUpdated) plus what import needs to rebuild it elsewhere
 * (parser, description, every node of every version). Import checks every entry in full before it
 * writes anything, gives the trees new ids, and undoes its own writes if one of them fails (a taken
 * name answers 409), so a refused import leaves nothing behind.
 */
import type { TreeExportEntry } from "../../shared/contracts/configuration";
import { ConflictError, invalidField } from "../../shared/errors";
import { nowIso } from "../../shared/text";
import { DuplicateKeyError } from "../../shared/store/types";
import { defaultParserFor } from "./parsers";
import { checkedSpecs, specLinesOf, type SpecInput } from "./spec-check";
import { checkVariables } from "./spec-model";
import { checkNodePathNames, checkNotReserved, checkTreeBounds } from "./tree-bounds";
import { findTree, ROOT_NODE } from "./trees";
import type { NewNode } from "./nodes.repository";
import type { StoredTree } from "./trees.repository";
import type { ConfigurationService, Ctx } from "./types";

export async function exportGoldenConfig(this: ConfigurationService, ctx: Ctx<"exportGoldenConfig">) {
  const tree = await findTree.call(this, ctx.params.treeId);
  const nodes = await this.nodes.allOfTree(tree._id);
  const entry: TreeExportEntry = {
    id: tree._id,
    name: tree.name,
    deviceType: tree.deviceType,
    versions: tree.versions,
    created: tree.created,
    lastUpdated: tree.lastUpdated,
    parser: tree.parser,
    description: tree.description,
    nodes: nodes.map((n) => ({
      version: n.version,
      path: n.path,
      spec: n.spec,
      variables: n.variables,
      devices: n.devices,
    })),
  };
  return { status: "success", message: `Golden config tree '${tree.name}' exported`, data: [entry] };
}

const NAME = /^[^/]{1,256}$/;
const VERSION = /^[^/]{1,128}$/;
const PATH = /^base(\/[A-Za-z0-9_.-]{1,128}){0,31}$/;
const DEVICE = /^\S{1,256}$/;
const MAX_NODES = 5000;

type Prepared = {
  tree: Omit<StoredTree, "_id">;
  nodes: Omit<NewNode, "treeId">[];
  /** Each node's spec as sent, checked after every other field (checkedSpecs: off the loop when heavy). */
  specs: SpecInput[];
};

function text(value: unknown, pattern: RegExp, field: string): string {
  if (typeof value !== "string" || !pattern.test(value))
    throw invalidField(field, `The '${field}' field is missing or not valid.`);
  return value;
}

function prepareEntry(raw: Record<string, any>, at: string, now: string, parsers: Set<string>): Prepared {
  const name = text(raw.name, NAME, `${at}.name`);
  const deviceType = text(raw.deviceType, /^[\s\S]{1,128}$/, `${at}.deviceType`);
  const parser =
    raw.parser === undefined ? defaultParserFor(deviceType) : text(raw.parser, NAME, `${at}.parser`);
  if (!parsers.has(parser))
    throw invalidField(`${at}.parser`, `Config parser '${parser}' does not exist.`, "notFound");
  if (!Array.isArray(raw.versions) || raw.versions.length === 0)
    throw invalidField(
      `${at}.versions`,
      `The '${at}.versions' field must be a non-empty list of version names.`,
    );
  checkTreeBounds({ versions: raw.versions.length }, { versions: `${at}.versions`, nodes: `${at}.nodes` });
  const versions = raw.versions.map((v: unknown, i: number) => {
    const version = text(v, VERSION, `${at}.versions[${i}]`);
    checkNotReserved(version, `${at}.versions[${i}]`);
    return version;
  });
  if (new Set(versions).size !== versions.length)
    throw invalidField(`${at}.versions`, "Version names must be unique.", "unique");
  const rawNodes = raw.nodes ?? [];
  const specs: SpecInput[] = [];
  if (!Array.isArray(rawNodes) || rawNodes.length > MAX_NODES)
    throw invalidField(`${at}.nodes`, `The '${at}.nodes' field must be at most ${MAX_NODES} nodes.`);
  const nodes = rawNodes.map((n: Record<string, any>, j: number) => {
    const where = `${at}.nodes[${j}]`;
    if (!n || typeof n !== "object") throw invalidField(where, `The '${where}' field must be an object.`);
    const version = text(n.version, VERSION, `${where}.version`);
    if (!versions.includes(version))
      throw invalidField(`${where}.version`, `Version '${version}' is not in ${at}.versions.`, "notFound");
    const devices = n.devices ?? [];
    if (!Array.isArray(devices) || devices.length > 10_000)
      throw invalidField(
        `${where}.devices`,
        `The '${where}.devices' field must be an array of device names.`,
      );
    const path = text(n.path, PATH, `${where}.path`);
    checkNodePathNames(path, `${where}.path`);
    specs.push({ field: `${where}.spec`, spec: n.spec ?? [] });
    return {
      version,
      path,
      spec: [] as NewNode["spec"], // the checked spec, once every entry is read (importGoldenConfig)
      variables: checkVariables(n.variables, `${where}.variables`),
      devices: [
        ...new Set(devices.map((d: unknown, k: number) => text(d, DEVICE, `${where}.devices[${k}]`))),
      ],
      created: now,
      lastUpdated: now,
    };
  });
  const paths = new Set<string>();
  for (const node of nodes) {
    const key = `${node.version}\n${node.path}`;
    if (paths.has(key))
      throw invalidField(`${at}.nodes`, `Node '${node.path}' of '${node.version}' appears twice.`, "unique");
    paths.add(key);
  }
  for (const version of versions)
    if (!paths.has(`${version}\n${ROOT_NODE}`)) {
      nodes.push({
        version,
        path: ROOT_NODE,
        spec: [],
        variables: {},
        devices: [],
        created: now,
        lastUpdated: now,
      });
      paths.add(`${version}\n${ROOT_NODE}`);
    }
  const perVersion = new Map<string, number>();
  for (const node of nodes) perVersion.set(node.version, (perVersion.get(node.version) ?? 0) + 1);
  for (const [version, count] of perVersion)
    checkTreeBounds(
      { versions: versions.length, nodes: { version, count } },
      { versions: `${at}.versions`, nodes: `${at}.nodes` },
    );
  for (const node of nodes) {
    const parent = node.path.split("/").slice(0, -1).join("/");
    if (parent && !paths.has(`${node.version}\n${parent}`))
      throw invalidField(
        `${at}.nodes`,
        `Node '${node.path}' of '${node.version}' has no parent '${parent}'.`,
        "notFound",
      );
  }
  // The bounds of createTree's contract: refused, not cut.
  const description = raw.description ?? "";
  if (typeof description !== "string" || description.length > 4096)
    throw invalidField(
      `${at}.description`,
      `The '${at}.description' field must be text of at most 4096 characters.`,
    );
  return {
    tree: { name, deviceType, parser, description, versions, created: now, lastUpdated: now },
    nodes,
    specs,
  };
}

export async function importGoldenConfig(this: ConfigurationService, ctx: Ctx<"importGoldenConfig">) {
  const now = nowIso();
  const parsers = new Set(await this.parsers.names());
  const prepared = ctx.params.data.map((raw: Record<string, any>, i: number) =>
    prepareEntry(raw, `data[${i}]`, now, parsers),
  );
  const names = prepared.map((p) => p.tree.name);
  if (new Set(names).size !== names.length)
    throw invalidField("data", "Two entries have the same name.", "unique");
  const checked = await checkedSpecs.call(
    this,
    prepared.flatMap((p) => p.specs),
  );
  let next = 0;
  for (const entry of prepared)
    for (let j = 0; j < entry.specs.length; j++)
      entry.nodes[j].spec = await specLinesOf.call(this, checked[next++].specJson);
  const created: StoredTree[] = [];
  try {
    for (const entry of prepared) {
      const tree = await this.trees.create(entry.tree);
      created.push(tree);
      await this.nodes.createAll(entry.nodes.map((n) => ({ ...n, treeId: tree._id })));
    }
  } catch (err) {
    for (const tree of created) {
      await this.nodes.removeTree(tree._id);
      await this.trees.removeById(tree._id);
    }
    if (err instanceof DuplicateKeyError)
      throw new ConflictError(
        `A golden config tree named in the import already exists (${names.join(", ")})`,
      );
    throw err;
  }
  const data = await Promise.all(
    created.map(
      async (tree) => (await exportGoldenConfig.call(this, { params: { treeId: tree._id } } as any)).data[0],
    ),
  );
  return { status: "success", message: `${created.length} golden config tree(s) imported`, data };
}
