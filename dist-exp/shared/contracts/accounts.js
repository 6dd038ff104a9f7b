"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.accounts = exports.ACCOUNT_SORT_FIELDS = exports.ACCOUNT_QUERY_FIELDS = void 0;
/** accounts: login and sessions, accounts, groups and roles (spec operation 4, docs/platform-rules.md#sign-in-and-roles). */
const define_1 = require("./define");
const schema_1 = require("./schema");
const resources_1 = require("./resources");
const ADMIN = ["admin"];
/** Fields a caller may filter and sort accounts on (never the password hash). */
exports.ACCOUNT_QUERY_FIELDS = ["username", "firstname", "provenance", "_id"];
exports.ACCOUNT_SORT_FIELDS = [
    "username",
    "firstname",
    "provenance",
    "lastLogin",
    "_meta.created",
    "_meta.updated",
];
const queryField = { type: "enum", values: exports.ACCOUNT_QUERY_FIELDS, optional: true };
/** The accounts list's query (contains, equals, startsWith on a field; paging; sort), over other fields too. */
const fieldQuery = (field, sort) => ({
    contains: schema_1.optString,
    containsField: field,
    equals: schema_1.optString,
    equalsField: field,
    startsWith: schema_1.optString,
    startsWithField: field,
    skip: (0, schema_1.int)(0),
    limit: (0, schema_1.int)(1),
    sort,
    order: schema_1.sortOrder,
});
const groupField = {
    type: "enum",
    values: ["name", "description", "provenance", "_id"],
    optional: true,
};
const username = { type: "string", min: 1, max: 128, pattern: /^[A-Za-z0-9._@-]+$/ };
const password = { type: "string", min: 8, max: 1024, secret: true };
const groupName = { type: "string", min: 1, max: 128, trim: true };
const groupList = {
    type: "array",
    items: groupName,
    optional: true,
    max: 100,
    description: "Group names or ids",
};
const memberOf = {
    type: "array",
    optional: true,
    max: 100,
    items: { type: "object", strict: true, props: { groupId: groupName } },
    description: "The resource's own field: [{groupId}] (a group's id or name), merged with `groups`",
};
const clientId = {
    type: "string",
    pattern: /^[0-9a-fA-F]{24}$/,
    messages: { stringPattern: "The '{field}' field must be a service account's client id (24 hex)." },
};
exports.accounts = (0, define_1.defineService)("accounts", {
    login: {
        params: {
            user: {
                type: "object",
                strict: "remove",
                props: {
                    username: { type: "string", min: 1, max: 128 },
                    password: { type: "string", min: 1, max: 1024, secret: true },
                },
            },
        },
        result: (0, schema_1.returns)(resources_1.loginResultSchema),
        http: {
            method: "POST",
            path: "/login",
            access: "public",
            produces: "text",
            session: "set",
            signIn: true,
            summary: "Sign in; answers the token as text/plain and sets the session cookie",
        },
    },
    logout: {
        params: {},
        result: (0, schema_1.returns)(resources_1.messageSchema),
        http: {
            method: "GET",
            path: "/logout",
            access: "authenticated",
            session: "clear",
            summary: "Revoke the caller's token",
        },
    },
    whoami: {
        params: {},
        result: (0, schema_1.returns)(resources_1.whoAmISchema),
        http: {
            method: "GET",
            path: "/whoami",
            access: "authenticated",
            summary: "The caller's account, groups and roles",
        },
    },
    myTtl: {
        params: {},
        result: (0, schema_1.returns)(schema_1.num),
        http: {
            method: "GET",
            path: "/myTtl",
            access: "authenticated",
            summary: "Seconds left before the caller's session expires if idle",
        },
    },
    authenticate: {
        params: { token: { type: "string", min: 1, max: 512 } },
        result: (0, schema_1.returns)(resources_1.callerSchema),
        description: "Resolve a session token to a caller; slides the session's expiry. Used by the gateway.",
    },
    refreshCaller: {
        params: {
            accountId: { type: "string", min: 1, max: 64 },
            sessionId: { type: "string", min: 1, max: 128, optional: true },
        },
        result: (0, schema_1.returns)(resources_1.callerSchema),
        description: "The caller of a session (or, for Basic, of an account) as it is now: 401 once the session ended or the account is inactive. Does not slide the session. Used by the gateway to keep open event streams honest.",
    },
    authenticateBasic: {
        params: {
            username: { type: "string", min: 1, max: 128 },
            password: { type: "string", min: 1, max: 1024, secret: true },
        },
        result: (0, schema_1.returns)(resources_1.callerSchema),
        description: "Check Basic credentials for one request (no session). Used by the gateway.",
    },
    list: {
        params: {
            queryOptions: {
                type: "object",
                strict: "remove",
                default: {},
                props: {
                    ...fieldQuery(queryField, { type: "enum", values: exports.ACCOUNT_SORT_FIELDS, optional: true }),
                    groupId: { type: "string", min: 1, optional: true },
                },
            },
        },
        result: (0, schema_1.returns)(resources_1.accountPageSchema),
        http: {
            method: "GET",
            path: "/user-management/accounts",
            aliases: [{ path: "/authorization/accounts" }],
            access: ADMIN,
            spec: 4,
            objectParam: "queryOptions",
            summary: "List accounts",
        },
    },
    create: {
        params: {
            username,
            password,
            firstname: { type: "string", max: 256, optional: true },
            groups: groupList,
            memberOf,
            inactive: schema_1.optBool,
        },
        result: (0, schema_1.returns)(resources_1.accountSchema),
        http: {
            method: "POST",
            path: "/user-management/accounts",
            access: ADMIN,
            summary: "Create a local account",
        },
    },
    setPassword: {
        params: { username, password },
        result: (0, schema_1.returns)(resources_1.messageSchema),
        http: {
            method: "PUT",
            path: "/user-management/accounts/:username/password",
            access: ADMIN,
            summary: "Set an account's password (ends its sessions)",
        },
    },
    changePassword: {
        params: { currentPassword: { type: "string", min: 1, max: 1024, secret: true }, newPassword: password },
        result: (0, schema_1.returns)(resources_1.messageSchema),
        http: {
            method: "PUT",
            path: "/user-management/password",
            access: "authenticated",
            summary: "Change the caller's own password (ends its other sessions)",
        },
    },
    createGroup: {
        params: {
            name: groupName,
            description: { type: "string", max: 1024, optional: true },
            memberOf: {
                type: "array",
                items: groupName,
                optional: true,
                max: 100,
                description: "Names of groups this group inherits roles from",
            },
            assignedRoles: { type: "array", items: { type: "enum", values: define_1.ROLES }, optional: true, unique: true },
            inactive: schema_1.optBool,
        },
        result: (0, schema_1.returns)(resources_1.groupSchema),
        http: { method: "POST", path: "/user-management/groups", access: ADMIN, summary: "Create a group" },
    },
    listGroups: {
        params: {},
        result: (0, schema_1.returns)((0, schema_1.arrayOf)(resources_1.groupSchema)),
        http: { method: "GET", path: "/user-management/groups", access: ADMIN, summary: "List groups" },
    },
    groupsPage: {
        params: {
            queryOptions: {
                type: "object",
                strict: "remove",
                default: {},
                props: fieldQuery(groupField, groupField),
            },
        },
        result: (0, schema_1.returns)((0, schema_1.shape)({ results: (0, schema_1.arrayOf)(resources_1.groupSchema), total: schema_1.integer, skip: schema_1.integer, limit: schema_1.integer })),
        http: {
            method: "GET",
            path: "/authorization/groups",
            access: ADMIN,
            objectParam: "queryOptions",
            summary: "A page of groups, queried as accounts are ({results, total})",
        },
    },
    createServiceAccount: {
        params: {
            name: { type: "string", min: 1, max: 128, trim: true, pattern: /^[^/]+$/ },
            description: { type: "string", max: 1024, optional: true },
            groups: groupList,
            memberOf,
        },
        result: (0, schema_1.returns)(resources_1.serviceAccountCreatedSchema),
        http: {
            method: "POST",
            path: "/user-management/service-accounts",
            access: ADMIN,
            summary: "Create a service account; the answer holds its client secret, shown this once",
        },
    },
    listServiceAccounts: {
        params: {},
        result: (0, schema_1.returns)((0, schema_1.shape)({ results: (0, schema_1.arrayOf)(resources_1.serviceAccountSchema), total: schema_1.integer })),
        http: {
            method: "GET",
            path: "/user-management/service-accounts",
            access: ADMIN,
            summary: "List service accounts (never their secrets)",
        },
    },
    deleteServiceAccount: {
        params: { clientId },
        result: (0, schema_1.returns)(resources_1.messageSchema),
        http: {
            method: "DELETE",
            path: "/user-management/service-accounts/:clientId",
            access: ADMIN,
            summary: "Delete a service account; every token it was given ends now",
        },
    },
    rotateServiceAccountSecret: {
        params: { clientId },
        result: (0, schema_1.returns)(resources_1.serviceAccountCreatedSchema),
        http: {
            method: "PUT",
            path: "/user-management/service-accounts/:clientId/secret",
            access: ADMIN,
            summary: "Give a service account a new secret (shown this once); its tokens end",
        },
    },
    token: {
        params: {
            grant_type: {
                type: "enum",
                values: ["client_credentials"],
                messages: { enumValue: "The 'grant_type' field must be 'client_credentials'." },
            },
            client_id: { type: "string", min: 1, max: 128 },
            client_secret: { type: "string", min: 1, max: 1024, secret: true },
        },
        result: (0, schema_1.returns)(resources_1.oauthTokenSchema),
        http: {
            method: "POST",
            path: "/oauth/token",
            access: "public",
            form: true,
            signIn: true,
            summary: "OAuth 2.0 client credentials: a service account's token (form-encoded or JSON body)",
        },
    },
});
//# sourceMappingURL=accounts.js.map