"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.prebuilts = exports.REPOSITORY_CONFIG_ENCRYPTED_POINTERS = exports.repositoryConfig = void 0;
/** prebuilts: prebuilt repository configurations (spec operation 13). */
const define_1 = require("./define");
const schema_1 = require("./schema");
const resources_1 = require("./resources");
const forms_1 = require("./forms");
exports.repositoryConfig = {
    type: "object",
    strict: "remove",
    props: {
        enabled: schema_1.optBool,
        type: schema_1.optString,
        hostname: schema_1.optString,
        path: schema_1.optString,
        credentials: {
            type: "object",
            optional: true,
            strict: "remove",
            props: { token: { type: "string", optional: true, secret: true } },
        },
        versionStatus: schema_1.optString,
    },
};
/** A repository configuration as the API answers it; `config.credentials.token` is sealed (`enc:v1:...`). */
const repositoryConfigSchema = (0, schema_1.named)("RepositoryConfig", (0, schema_1.openShape)({
    _id: (0, schema_1.optional)(schema_1.str),
    name: schema_1.str,
    description: (0, schema_1.optional)(schema_1.str),
    tags: (0, schema_1.optional)((0, schema_1.arrayOf)(schema_1.str)),
    config: (0, schema_1.optional)(exports.repositoryConfig),
    _meta: (0, schema_1.optional)(resources_1.catalogMeta),
}));
/** Repository configuration fields stored encrypted (docs/platform-rules.md#secrets), as JSON pointers. */
exports.REPOSITORY_CONFIG_ENCRYPTED_POINTERS = ["/credentials/token"];
/** The name is also the path segment of `/prebuilts-repository/configs/:name`. */
const name = schema_1.pathName;
exports.prebuilts = (0, define_1.defineService)("prebuilts", {
    createConfig: {
        params: {
            name,
            config: exports.repositoryConfig,
            description: { type: "string", max: 4096, optional: true },
            tags: forms_1.tagIds,
        },
        result: (0, schema_1.returns)((0, resources_1.statusResult)(repositoryConfigSchema)),
        http: {
            method: "POST",
            path: "/prebuilts-repository/configs",
            access: ["admin", "apiread"],
            spec: 13,
            summary: "Create a repository configuration",
        },
    },
    getConfig: {
        params: { name },
        result: (0, schema_1.returns)(repositoryConfigSchema),
        http: {
            method: "GET",
            path: "/prebuilts-repository/configs/:name",
            access: define_1.SUPPORT_READ,
            summary: "Read a repository configuration",
        },
    },
    listConfigs: {
        params: {},
        result: (0, schema_1.returns)((0, schema_1.arrayOf)(repositoryConfigSchema)),
        http: {
            method: "GET",
            path: "/prebuilts-repository/configs",
            access: define_1.SUPPORT_READ,
            summary: "List repository configurations",
        },
    },
    deleteConfig: {
        params: { name },
        result: (0, schema_1.returns)(resources_1.messageSchema),
        http: {
            method: "DELETE",
            path: "/prebuilts-repository/configs/:name",
            access: define_1.SUPPORT_WRITE,
            summary: "Delete a repository configuration",
        },
    },
});
//# sourceMappingURL=prebuilts.js.map