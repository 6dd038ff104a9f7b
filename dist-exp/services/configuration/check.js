"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.checker = checker;
exports.checkText = checkText;
exports.loadBackup = loadBackup;
const errors_1 = require("../../shared/errors");
const compile_spec_1 = require("./compile-spec");
const config_tree_1 = require("./config-tree");
const compliance_1 = require("./compliance");
const inherit_1 = require("./inherit");
const parsers_1 = require("./parsers");
const remediation_1 = require("./remediation");
const trees_1 = require("./trees");
const types_1 = require("./types");
async function checker(treeId, version) {
    const tree = await trees_1.requireVersion.call(this, treeId, version);
    const reader = await parsers_1.loadParser.call(this, tree.parser);
    const compiled = new Map();
    const specOf = (nodePath) => {
        let spec = compiled.get(nodePath);
        if (!spec) {
            spec = trees_1.nodeChain.call(this, treeId, version, nodePath).then((chain) => {
                const effective = (0, inherit_1.effectiveOf)(chain.map((n) => ({ ...n, spec: n.spec })));
                return (0, compile_spec_1.compileSpec)(effective.spec, effective.variables);
            });
            compiled.set(nodePath, spec);
        }
        return spec;
    };
    return { tree, reader, specOf };
}
/** A backup's text against a compiled spec. A config no parser can read is one error issue. */
function checkText(reader, spec, text) {
    let evaluation;
    try {
        evaluation = (0, compliance_1.evaluate)(spec, reader.parse(text));
    }
    catch (err) {
        if (!(err instanceof config_tree_1.ConfigParseError))
            throw err;
        const issue = {
            kind: "unreadable",
            severity: "error",
            specLine: "(config)",
            path: [],
            found: err.message,
        };
        return {
            totals: { errors: 1, warnings: 0, infos: 0, passes: 0 },
            score: 0,
            compliant: false,
            issues: [issue],
            remediation: "",
        };
    }
    const { remedies, ...rest } = evaluation;
    return { ...rest, remediation: (0, remediation_1.renderRemediation)(remedies, reader.style) };
}
async function loadBackup(id) {
    const backup = await this.store.collection(types_1.BACKUPS).findOne({ _id: id });
    if (!backup)
        throw new errors_1.NotFoundError("Backup", id);
    return backup;
}
//# sourceMappingURL=check.js.map