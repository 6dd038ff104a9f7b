"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.FIRST_VERSION = exports.ROOT_NODE = void 0;
exports.findTree = findTree;
exports.requireVersion = requireVersion;
exports.createTree = createTree;
exports.listTrees = listTrees;
exports.getTree = getTree;
exports.deleteTree = deleteTree;
exports.createVersion = createVersion;
exports.setNode = setNode;
exports.nodeChain = nodeChain;
exports.getNode = getNode;
exports.deleteNode = deleteNode;
const errors_1 = require("../../shared/errors");
const paging_1 = require("../../shared/paging");
const text_1 = require("../../shared/text");
const types_1 = require("../../shared/store/types");
const inherit_1 = require("./inherit");
const parsers_1 = require("./parsers");
const spec_model_1 = require("./spec-model");
const spec_text_1 = require("./spec-text");
const types_2 = require("./types");
exports.ROOT_NODE = "base";
exports.FIRST_VERSION = "initial";
const MAX_VERSIONS = 200;
const MAX_NODES_PER_VERSION = 2000;
async function findTree(treeId) {
    const tree = await this.store.collection(types_2.TREES).findOne({ _id: treeId });
    if (!tree)
        throw new errors_1.NotFoundError("Golden config tree", treeId);
    return tree;
}
function assertVersion(tree, version) {
    if (!tree.versions.includes(version))
        throw new errors_1.NotFoundError(`Golden config tree '${tree.name}' version`, version);
}
async function requireVersion(treeId, version) {
    const tree = await findTree.call(this, treeId);
    assertVersion(tree, version);
    return tree;
}
async function createTree(ctx) {
    const { name, deviceType, description = "" } = ctx.params;
    const parser = ctx.params.parser ?? (0, parsers_1.defaultParserFor)(deviceType);
    if (!(await this.store.collection(types_2.PARSERS).findOne({ name: parser })))
        throw (0, errors_1.invalidField)("parser", `Config parser '${parser}' does not exist.`, "notFound");
    const now = (0, text_1.nowIso)();
    let tree;
    try {
        tree = await this.store.collection(types_2.TREES).insertOne({
            name,
            deviceType,
            parser,
            description,
            versions: [exports.FIRST_VERSION],
            created: now,
            lastUpdated: now,
        });
    }
    catch (err) {
        if (err instanceof types_1.DuplicateKeyError)
            throw new errors_1.ConflictError(`Golden config tree '${name}' already exists`);
        throw err;
    }
    await this.store.collection(types_2.NODES).insertOne(emptyNode(tree._id, exports.FIRST_VERSION, exports.ROOT_NODE, now));
    return tree;
}
function emptyNode(treeId, version, path, now) {
    return { treeId, version, path, spec: [], variables: {}, devices: [], created: now, lastUpdated: now };
}
async function listTrees(ctx) {
    return this.store
        .collection(types_2.TREES)
        .find({}, { sort: { name: 1 }, skip: ctx.params.skip ?? 0, limit: (0, paging_1.pageLimit)(ctx.params.limit) });
}
async function getTree(ctx) {
    const tree = await findTree.call(this, ctx.params.treeId);
    const nodes = await this.store
        .collection(types_2.NODES)
        .find({ treeId: tree._id }, { sort: { path: 1 }, projection: { version: 1, path: 1, devices: 1 } });
    const byVersion = {};
    for (const version of tree.versions)
        byVersion[version] = [];
    for (const node of nodes)
        byVersion[node.version]?.push({ path: node.path, devices: node.devices });
    return { ...tree, nodes: byVersion };
}
async function deleteTree(ctx) {
    const tree = await this.store
        .collection(types_2.TREES)
        .findOneAndDelete({ _id: ctx.params.treeId });
    if (!tree)
        throw new errors_1.NotFoundError("Golden config tree", ctx.params.treeId);
    await this.store.collection(types_2.NODES).deleteMany({ treeId: tree._id });
    return { status: "OK", message: `Golden config tree '${tree.name}' deleted` };
}
async function createVersion(ctx) {
    const { treeId, version } = ctx.params;
    const tree = await findTree.call(this, treeId);
    const base = ctx.params.base ?? tree.versions[tree.versions.length - 1];
    if (!tree.versions.includes(base))
        throw (0, errors_1.invalidField)("base", `Golden config tree '${tree.name}' has no version '${base}'.`, "notFound");
    if (tree.versions.length >= MAX_VERSIONS)
        throw (0, errors_1.invalidField)("version", `A tree holds at most ${MAX_VERSIONS} versions.`, "count");
    const trees = this.store.collection(types_2.TREES);
    const now = (0, text_1.nowIso)();
    const updated = await trees.findOneAndUpdate({ _id: treeId, versions: { $ne: version } }, { $push: { versions: version }, $set: { lastUpdated: now } });
    if (!updated) {
        await findTree.call(this, treeId); // deleted meanwhile -> 404
        throw new errors_1.ConflictError(`Golden config tree '${tree.name}' already has version '${version}'`);
    }
    const nodes = this.store.collection(types_2.NODES);
    try {
        const source = await nodes.find({ treeId, version: base });
        const clones = source.map(({ _id, ...node }) => ({ ...node, version, created: now, lastUpdated: now }));
        if (clones.length > 0)
            await nodes.insertMany(clones);
    }
    catch (err) {
        // No half-made version: its nodes and its name go again.
        await nodes.deleteMany({ treeId, version });
        await trees.updateOne({ _id: treeId }, { $pull: { versions: version } });
        throw err;
    }
    return updated;
}
/** A node's spec from the request: the text form (`config`) or JSON (`spec`), not both. */
function specFrom(params) {
    if (params.config !== undefined && params.spec !== undefined)
        throw (0, errors_1.invalidField)("config", "Send the spec as text (config) or as JSON (spec), not both.", "exclusive");
    if (params.config !== undefined)
        return (0, spec_text_1.parseSpecText)(params.config, "config");
    if (params.spec !== undefined)
        return (0, spec_model_1.checkSpec)(params.spec, "spec");
    return undefined;
}
async function setNode(ctx) {
    const { treeId, version, nodePath } = ctx.params;
    const spec = specFrom(ctx.params);
    const variables = ctx.params.variables === undefined ? undefined : (0, spec_model_1.checkVariables)(ctx.params.variables);
    const devices = ctx.params.devices === undefined ? undefined : [...new Set(ctx.params.devices)];
    await requireVersion.call(this, treeId, version);
    const nodes = this.store.collection(types_2.NODES);
    const parentPath = nodePath.split("/").slice(0, -1).join("/");
    if (parentPath && !(await nodes.findOne({ treeId, version, path: parentPath })))
        throw (0, errors_1.invalidField)("nodePath", `Node '${parentPath}' does not exist: create the parent first.`, "notFound");
    if ((await nodes.count({ treeId, version })) >= MAX_NODES_PER_VERSION)
        throw (0, errors_1.invalidField)("nodePath", `A version holds at most ${MAX_NODES_PER_VERSION} nodes.`, "count");
    const now = (0, text_1.nowIso)();
    const changes = { lastUpdated: now };
    if (spec)
        changes.spec = spec;
    if (variables)
        changes.variables = variables;
    if (devices)
        changes.devices = devices;
    // A new node starts empty; what the request sets is in $set, the rest of an empty node on insert.
    const onInsert = { created: now };
    if (!spec)
        onInsert.spec = [];
    if (!variables)
        onInsert.variables = {};
    if (!devices)
        onInsert.devices = [];
    const node = await nodes.findOneAndUpdate({ treeId, version, path: nodePath }, { $set: changes, $setOnInsert: onInsert }, { upsert: true });
    await this.store.collection(types_2.TREES).updateOne({ _id: treeId }, { $set: { lastUpdated: now } });
    return { ...node, config: (0, spec_text_1.specToText)(node.spec) };
}
/** The nodes from the root to `path` (root first); 404 when `path` is not a node. */
async function nodeChain(treeId, version, path) {
    const paths = (0, inherit_1.ancestorPaths)(path);
    const found = await this.store.collection(types_2.NODES).find({ treeId, version, path: { $in: paths } });
    const byPath = new Map(found.map((n) => [n.path, n]));
    if (!byPath.has(path))
        throw new errors_1.NotFoundError(`Node of golden config tree '${treeId}' version '${version}'`, path);
    return paths.map((p) => byPath.get(p)).filter((n) => n !== undefined);
}
async function getNode(ctx) {
    const { treeId, version, nodePath } = ctx.params;
    await requireVersion.call(this, treeId, version);
    const chain = await nodeChain.call(this, treeId, version, nodePath);
    const node = chain[chain.length - 1];
    const effective = (0, inherit_1.effectiveOf)(chain.map((n) => ({ ...n, spec: n.spec })));
    return {
        ...node,
        config: (0, spec_text_1.specToText)(node.spec),
        effective: {
            spec: effective.spec,
            config: (0, spec_text_1.specToText)(effective.spec),
            variables: effective.variables,
        },
    };
}
async function deleteNode(ctx) {
    const { treeId, version, nodePath } = ctx.params;
    if (nodePath === exports.ROOT_NODE)
        throw (0, errors_1.invalidField)("nodePath", "The root node 'base' cannot be deleted.", "root");
    await requireVersion.call(this, treeId, version);
    const nodes = this.store.collection(types_2.NODES);
    const removed = await nodes.findOneAndDelete({ treeId, version, path: nodePath });
    if (!removed)
        throw new errors_1.NotFoundError(`Node of golden config tree '${treeId}' version '${version}'`, nodePath);
    const under = await nodes.find({ treeId, version }, { projection: { path: 1 } });
    for (const n of under)
        if (n.path.startsWith(`${nodePath}/`))
            await nodes.deleteOne({ _id: n._id });
    return { status: "OK", message: `Node '${nodePath}' deleted` };
}
//# sourceMappingURL=trees.js.map