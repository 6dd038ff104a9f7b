"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.exportGoldenConfig = exportGoldenConfig;
exports.importGoldenConfig = importGoldenConfig;
const errors_1 = require("../../shared/errors");
const text_1 = require("../../shared/text");
const types_1 = require("../../shared/store/types");
const parsers_1 = require("./parsers");
const spec_model_1 = require("./spec-model");
const trees_1 = require("./trees");
const types_2 = require("./types");
async function exportGoldenConfig(ctx) {
    const tree = await trees_1.findTree.call(this, ctx.params.treeId);
    const nodes = await this.store
        .collection(types_2.NODES)
        .find({ treeId: tree._id }, { sort: { version: 1, path: 1 } });
    const entry = {
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
function text(value, pattern, field) {
    if (typeof value !== "string" || !pattern.test(value))
        throw (0, errors_1.invalidField)(field, `The '${field}' field is missing or not valid.`);
    return value;
}
function prepareEntry(raw, at, now, parsers) {
    const name = text(raw.name, NAME, `${at}.name`);
    const deviceType = text(raw.deviceType, /^.{1,128}$/, `${at}.deviceType`);
    const parser = raw.parser === undefined ? (0, parsers_1.defaultParserFor)(deviceType) : text(raw.parser, NAME, `${at}.parser`);
    if (!parsers.has(parser))
        throw (0, errors_1.invalidField)(`${at}.parser`, `Config parser '${parser}' does not exist.`, "notFound");
    if (!Array.isArray(raw.versions) || raw.versions.length === 0 || raw.versions.length > 200)
        throw (0, errors_1.invalidField)(`${at}.versions`, `The '${at}.versions' field must be 1-200 version names.`);
    const versions = raw.versions.map((v, i) => text(v, VERSION, `${at}.versions[${i}]`));
    if (new Set(versions).size !== versions.length)
        throw (0, errors_1.invalidField)(`${at}.versions`, "Version names must be unique.", "unique");
    const rawNodes = raw.nodes ?? [];
    if (!Array.isArray(rawNodes) || rawNodes.length > MAX_NODES)
        throw (0, errors_1.invalidField)(`${at}.nodes`, `The '${at}.nodes' field must be at most ${MAX_NODES} nodes.`);
    const nodes = rawNodes.map((n, j) => {
        const where = `${at}.nodes[${j}]`;
        if (!n || typeof n !== "object")
            throw (0, errors_1.invalidField)(where, `The '${where}' field must be an object.`);
        const version = text(n.version, VERSION, `${where}.version`);
        if (!versions.includes(version))
            throw (0, errors_1.invalidField)(`${where}.version`, `Version '${version}' is not in ${at}.versions.`, "notFound");
        const devices = n.devices ?? [];
        if (!Array.isArray(devices) || devices.length > 10_000)
            throw (0, errors_1.invalidField)(`${where}.devices`, `The '${where}.devices' field must be an array of device names.`);
        return {
            version,
            path: text(n.path, PATH, `${where}.path`),
            spec: (0, spec_model_1.checkSpec)(n.spec ?? [], `${where}.spec`),
            variables: (0, spec_model_1.checkVariables)(n.variables, `${where}.variables`),
            devices: [
                ...new Set(devices.map((d, k) => text(d, DEVICE, `${where}.devices[${k}]`))),
            ],
            created: now,
            lastUpdated: now,
        };
    });
    const paths = new Set();
    for (const node of nodes) {
        const key = `${node.version}\n${node.path}`;
        if (paths.has(key))
            throw (0, errors_1.invalidField)(`${at}.nodes`, `Node '${node.path}' of '${node.version}' appears twice.`, "unique");
        paths.add(key);
    }
    for (const version of versions)
        if (!paths.has(`${version}\n${trees_1.ROOT_NODE}`)) {
            nodes.push({
                version,
                path: trees_1.ROOT_NODE,
                spec: [],
                variables: {},
                devices: [],
                created: now,
                lastUpdated: now,
            });
            paths.add(`${version}\n${trees_1.ROOT_NODE}`);
        }
    for (const node of nodes) {
        const parent = node.path.split("/").slice(0, -1).join("/");
        if (parent && !paths.has(`${node.version}\n${parent}`))
            throw (0, errors_1.invalidField)(`${at}.nodes`, `Node '${node.path}' of '${node.version}' has no parent '${parent}'.`, "notFound");
    }
    const description = typeof raw.description === "string" ? raw.description.slice(0, 4096) : "";
    return { tree: { name, deviceType, parser, description, versions, created: now, lastUpdated: now }, nodes };
}
async function importGoldenConfig(ctx) {
    const now = (0, text_1.nowIso)();
    const parsers = new Set((await this.store.collection(types_2.PARSERS).find({}, { projection: { name: 1 } })).map((p) => String(p.name)));
    const prepared = ctx.params.data.map((raw, i) => prepareEntry(raw, `data[${i}]`, now, parsers));
    const names = prepared.map((p) => p.tree.name);
    if (new Set(names).size !== names.length)
        throw (0, errors_1.invalidField)("data", "Two entries have the same name.", "unique");
    const trees = this.store.collection(types_2.TREES);
    const nodes = this.store.collection(types_2.NODES);
    const created = [];
    try {
        for (const entry of prepared) {
            const tree = await trees.insertOne(entry.tree);
            created.push(tree);
            await nodes.insertMany(entry.nodes.map((n) => ({ ...n, treeId: tree._id })));
        }
    }
    catch (err) {
        for (const tree of created) {
            await nodes.deleteMany({ treeId: tree._id });
            await trees.deleteOne({ _id: tree._id });
        }
        if (err instanceof types_1.DuplicateKeyError)
            throw new errors_1.ConflictError(`A golden config tree named in the import already exists (${names.join(", ")})`);
        throw err;
    }
    const data = await Promise.all(created.map(async (tree) => (await exportGoldenConfig.call(this, { params: { treeId: tree._id } })).data[0]));
    return { status: "success", message: `${created.length} golden config tree(s) imported`, data };
}
//# sourceMappingURL=export.js.map