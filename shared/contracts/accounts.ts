/** accounts: login and sessions, accounts, groups and roles (spec operation 4, docs/platform-rules.md#sign-in-and-roles). */
import { defineService, ROLES } from "./define";
import { arrayOf, integer, int, num, optString, optBool, returns, shape, sortOrder, str } from "./schema";
import {
  accountPageSchema,
  accountSchema,
  callerSchema,
  groupSchema,
  loginResultSchema,
  messageSchema,
  methodSchema,
  roleSchema,
  oauthTokenSchema,
  serviceAccountCreatedSchema,
  serviceAccountSchema,
  whoAmISchema,
} from "./resources";

const ADMIN = ["admin"] as const;

/** Fields a caller may filter and sort accounts on (never the password hash). */
export const ACCOUNT_QUERY_FIELDS = ["username", "firstname", "provenance", "_id"] as const;
export const ACCOUNT_SORT_FIELDS = [
  "username",
  "firstname",
  "provenance",
  "lastLogin",
  "_meta.created",
  "_meta.updated",
] as const;

const queryField = { type: "enum", values: ACCOUNT_QUERY_FIELDS, optional: true } as const;
/** The accounts list's query (contains, equals, startsWith on a field; paging; sort), over other fields too. */
const fieldQuery = <const F, const S>(field: F, sort: S) =>
  ({
    contains: optString,
    containsField: field,
    equals: optString,
    equalsField: field,
    startsWith: optString,
    startsWithField: field,
    skip: int(0),
    limit: int(1),
    sort,
    order: sortOrder,
  }) as const;
const groupField = {
  type: "enum",
  values: ["name", "description", "provenance", "_id"],
  optional: true,
} as const;
const username = { type: "string", min: 1, max: 128, pattern: /^[A-Za-z0-9._@-]+$/ } as const;
const password = { type: "string", min: 8, max: 1024, secret: true } as const;
const groupName = { type: "string", min: 1, max: 128, trim: true } as const;
const groupList = {
  type: "array",
  items: groupName,
  optional: true,
  max: 100,
  description: "Group names or ids",
} as const;
/** A `memberOf` entry as the Account resource has it; `aaaManaged` is read-only (ours are all local), so ignored. */
const memberOfEntry = {
  type: "object",
  strict: "remove",
  props: { groupId: groupName, aaaManaged: { type: "boolean", optional: true } },
} as const;
const memberOf = {
  type: "array",
  optional: true,
  max: 100,
  items: memberOfEntry,
  description:
    "The resource's own field: [{groupId, aaaManaged}] (a group's id or name; aaaManaged is read-only and ignored), merged with `groups`",
} as const;
const roleName = { type: "string", min: 1, max: 128, trim: true, pattern: /^[^$/]+$/ } as const;
/** A role's `{name, provenance}` method references (GET /authorization/methods lists them). */
const allowedMethods = {
  type: "array",
  optional: true,
  max: 1000,
  items: {
    type: "object",
    strict: "remove",
    props: { name: { type: "string", min: 1, max: 128 }, provenance: { type: "string", min: 1, max: 64 } },
  },
} as const;
const allowedViews = {
  type: "array",
  optional: true,
  max: 100,
  items: {
    type: "object",
    strict: "remove",
    props: {
      path: { type: "string", min: 1, max: 512 },
      provenance: { type: "string", max: 64, optional: true },
    },
  },
} as const;
const roleId = { type: "string", min: 1, max: 128 } as const;
const assignedRoles = {
  type: "array",
  items: roleName,
  optional: true,
  unique: true,
  max: 100,
  description: "Built-in role names (" + ROLES.join(", ") + ") or custom role names",
} as const;
const roleEnvelope = shape({ status: str, message: str, data: roleSchema });
const accountEnvelope = shape({ status: str, message: str, data: accountSchema });
const groupEnvelope = shape({ status: str, message: str, data: groupSchema });
const accountId = { type: "string", min: 1, max: 64 } as const;
const groupId = { type: "string", min: 1, max: 128, description: "A group's _id (or its name)" } as const;
/** Role references as the real product sends them ([{roleId}]), or role names as ours take them. */
const roleRefs = {
  type: "array",
  optional: true,
  max: 100,
  items: {
    type: "multi",
    rules: [roleName, { type: "object", strict: "remove", props: { roleId: roleName } }],
  },
  description: "Role names, or [{roleId}] as the real product sends them (a built-in role's id is its name)",
} as const;
/** Group references: names or ids, or [{groupId, aaaManaged}] as the real product sends them. */
const groupRefs = {
  type: "array",
  optional: true,
  max: 100,
  items: { type: "multi", rules: [groupName, memberOfEntry] },
  description: "Group names or ids, or [{groupId, aaaManaged}] (aaaManaged is read-only and ignored)",
} as const;
const email = { type: "email", max: 320, optional: true } as const;

const clientId = {
  type: "string",
  pattern: /^[0-9a-fA-F]{24}$/,
  messages: { stringPattern: "The '{field}' field must be a service account's client id (24 hex)." },
} as const;

export const accounts = defineService("accounts", {
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
    result: returns(loginResultSchema),
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
    result: returns(messageSchema),
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
    result: returns(whoAmISchema),
    http: {
      method: "GET",
      path: "/whoami",
      access: "authenticated",
      summary: "The caller's account, groups and roles",
    },
  },
  myTtl: {
    params: {},
    result: returns(num),
    http: {
      method: "GET",
      path: "/myTtl",
      access: "authenticated",
      summary: "Seconds left before the caller's session expires if idle",
    },
  },
  authenticate: {
    access: "internal",
    idempotent: "repeatable",
    params: { token: { type: "string", min: 1, max: 512 } },
    result: returns(callerSchema),
    description: "Resolve a session token to a caller; slides the session's expiry. Used by the gateway.",
  },
  refreshCaller: {
    access: "internal",
    idempotent: "repeatable",
    params: {
      accountId: { type: "string", min: 1, max: 64 },
      sessionId: { type: "string", min: 1, max: 128, optional: true },
    },
    result: returns(callerSchema),
    description:
      "The caller of a session (or, for Basic, of an account) as it is now: 401 once the session ended or the account is inactive. Does not slide the session. Used by the gateway to keep open event streams honest.",
  },
  authenticateBasic: {
    access: "internal",
    idempotent: "repeatable",
    params: {
      username: { type: "string", min: 1, max: 128 },
      password: { type: "string", min: 1, max: 1024, secret: true },
    },
    result: returns(callerSchema),
    description: "Check Basic credentials for one request (no session). Used by the gateway.",
  },
  list: {
    params: {
      queryOptions: {
        type: "object",
        strict: "remove",
        default: {},
        props: {
          ...fieldQuery(queryField, { type: "enum", values: ACCOUNT_SORT_FIELDS, optional: true }),
          groupId: { type: "string", min: 1, optional: true },
        },
      },
    },
    result: returns(accountPageSchema),
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
      assignedRoles,
      inactive: optBool,
    },
    result: returns(accountSchema),
    http: {
      method: "POST",
      path: "/user-management/accounts",
      access: ADMIN,
      summary: "Create a local account",
    },
  },
  setPassword: {
    params: { username, password },
    result: returns(messageSchema),
    http: {
      method: "PUT",
      path: "/user-management/accounts/:username/password",
      access: ADMIN,
      summary: "Set an account's password (ends its sessions)",
    },
  },
  changePassword: {
    params: { currentPassword: { type: "string", min: 1, max: 1024, secret: true }, newPassword: password },
    result: returns(messageSchema),
    http: {
      method: "PUT",
      path: "/user-management/password",
      access: "authenticated",
      summary: "Change the caller's own password (ends its other sessions)",
    },
  },
  createGroup: {
    idempotent: "keyed",
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
      assignedRoles,
      inactive: optBool,
    },
    result: returns(groupSchema),
    http: { method: "POST", path: "/user-management/groups", access: ADMIN, summary: "Create a group" },
  },
  listGroups: {
    access: "internal",
    params: {},
    result: returns(arrayOf(groupSchema)),
    description:
      "Every group by name, in one answer: the other services' group checks (shared/groups.ts) and the health probes. GET /user-management/groups pages them (pageGroups).",
  },
  pageGroups: {
    params: { skip: int(0), limit: int(1) },
    result: returns(shape({ results: arrayOf(groupSchema), total: integer, skip: integer, limit: integer })),
    http: {
      method: "GET",
      path: "/user-management/groups",
      access: ADMIN,
      summary: "A page of groups by name, {results, total, skip, limit}",
    },
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
    result: returns(shape({ results: arrayOf(groupSchema), total: integer, skip: integer, limit: integer })),
    http: {
      method: "GET",
      path: "/authorization/groups",
      access: ADMIN,
      objectParam: "queryOptions",
      summary: "A page of groups, queried as accounts are ({results, total})",
    },
  },
  getAccount: {
    params: { accountId },
    result: returns(accountSchema),
    http: {
      method: "GET",
      path: "/authorization/accounts/:accountId",
      access: ADMIN,
      summary: "One account, by its _id",
    },
  },
  updateAccount: {
    idempotent: "repeatable",
    params: {
      accountId,
      updates: {
        type: "object",
        strict: "remove",
        minProps: 1,
        props: {
          inactive: optBool,
          email,
          assignedRoles: roleRefs,
          memberOf: groupRefs,
          firstname: { type: "string", max: 256, optional: true },
          username: {
            ...username,
            optional: true,
            description:
              "The Account's own field, taken as sent back: its current value only (a username cannot change)",
          },
        },
      },
    },
    result: returns(accountEnvelope),
    http: {
      method: "PATCH",
      path: "/authorization/accounts/:accountId",
      access: ADMIN,
      summary:
        "Update an account: inactive (deactivating ends its sessions at once), email, firstname, assignedRoles, memberOf (the lists are replaced)",
    },
  },
  deleteAccount: {
    idempotent: "keyed",
    params: { accountId },
    result: returns(messageSchema),
    http: {
      method: "DELETE",
      path: "/authorization/accounts/:accountId",
      access: ADMIN,
      summary:
        "Delete a local account (ours): its sessions end at once; refused for the caller's own account",
    },
  },
  forceLogout: {
    idempotent: "repeatable",
    params: { accountId },
    result: returns(messageSchema),
    http: {
      method: "POST",
      path: "/authorization/accounts/:accountId/logout",
      // The real product's path (its Authorization reference: "Force a user to log out"; docs/compatibility.md).
      aliases: [{ path: "/authorization/accounts/:accountId/forceLogout" }],
      access: ADMIN,
      summary:
        "Force an account to log out: every session it has ends at once (its next request answers 401)",
    },
  },
  getGroup: {
    params: { groupId },
    result: returns(groupSchema),
    http: {
      method: "GET",
      path: "/authorization/groups/:groupId",
      access: ADMIN,
      summary: "One group, by its _id (or name)",
    },
  },
  createAuthorizationGroup: {
    idempotent: "keyed",
    params: {
      group: {
        type: "object",
        strict: "remove",
        props: {
          name: groupName,
          description: { type: "string", max: 1024, optional: true },
          memberOf: groupRefs,
          assignedRoles: roleRefs,
          inactive: optBool,
        },
      },
    },
    result: returns(groupEnvelope),
    http: {
      method: "POST",
      path: "/authorization/groups",
      access: ADMIN,
      summary: "Create a group ({group: {...}}), answering {status, message, data}",
    },
  },
  updateGroup: {
    idempotent: "repeatable",
    params: {
      groupId,
      updates: {
        type: "object",
        strict: "remove",
        minProps: 1,
        props: {
          description: { type: "string", max: 1024, optional: true },
          inactive: optBool,
          memberOf: groupRefs,
          assignedRoles: roleRefs,
          name: {
            ...groupName,
            optional: true,
            description:
              "The Group's own field, taken as sent back: its current value only (a group's name cannot change)",
          },
        },
      },
    },
    result: returns(groupEnvelope),
    http: {
      method: "PATCH",
      path: "/authorization/groups/:groupId",
      access: ADMIN,
      summary:
        "Update a group: description, inactive, memberOf (parent groups), assignedRoles; its members' rights change at once",
    },
  },
  deleteGroup: {
    idempotent: "keyed",
    params: { groupId },
    result: returns(messageSchema),
    http: {
      method: "DELETE",
      path: "/authorization/groups/:groupId",
      access: ADMIN,
      summary:
        "Delete a group: it leaves every account, group and object that lists it; 409 while it is some object's only owner group",
    },
  },
  addGroupMembers: {
    idempotent: "repeatable",
    params: {
      groupId,
      accounts: {
        type: "array",
        min: 1,
        max: 100,
        items: { type: "string", min: 1, max: 128 },
        description: "Account ids or usernames",
      },
    },
    result: returns(messageSchema),
    http: {
      method: "POST",
      path: "/authorization/groups/:groupId/members",
      access: ADMIN,
      summary:
        "Add accounts to a group (ours): one atomic write each, so concurrent membership changes all hold",
    },
  },
  removeGroupMember: {
    idempotent: "keyed",
    params: { groupId, accountId: { type: "string", min: 1, max: 128 } },
    result: returns(messageSchema),
    http: {
      method: "DELETE",
      path: "/authorization/groups/:groupId/members/:accountId",
      access: ADMIN,
      summary: "Take an account (id or username) out of a group (ours); 404 when it is not a member",
    },
  },
  createServiceAccount: {
    params: {
      name: { type: "string", min: 1, max: 128, trim: true, pattern: /^[^/]+$/ },
      description: { type: "string", max: 1024, optional: true },
      groups: groupList,
      memberOf,
      inactive: {
        ...optBool,
        description:
          "Created inactive: it gets no token (service accounts have no update: delete it and create another)",
      },
    },
    result: returns(serviceAccountCreatedSchema),
    http: {
      method: "POST",
      path: "/user-management/service-accounts",
      access: ADMIN,
      summary: "Create a service account; the answer holds its client secret, shown this once",
    },
  },
  listServiceAccounts: {
    params: { skip: int(0), limit: int(1) },
    result: returns(
      shape({ results: arrayOf(serviceAccountSchema), total: integer, skip: integer, limit: integer }),
    ),
    http: {
      method: "GET",
      path: "/user-management/service-accounts",
      access: ADMIN,
      summary: "A page of service accounts by name, {results, total, skip, limit} (never their secrets)",
    },
  },
  deleteServiceAccount: {
    params: { clientId },
    result: returns(messageSchema),
    http: {
      method: "DELETE",
      path: "/user-management/service-accounts/:clientId",
      access: ADMIN,
      summary: "Delete a service account; every token it was given ends now",
    },
  },
  rotateServiceAccountSecret: {
    params: { clientId },
    result: returns(serviceAccountCreatedSchema),
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
    result: returns(oauthTokenSchema),
    http: {
      method: "POST",
      path: "/oauth/token",
      access: "public",
      form: true,
      signIn: true,
      summary: "OAuth 2.0 client credentials: a service account's token (form-encoded or JSON body)",
    },
  },
  listRoles: {
    params: { skip: int(0), limit: int(1) },
    result: returns(shape({ results: arrayOf(roleSchema), total: integer })),
    http: {
      method: "GET",
      path: "/authorization/roles",
      access: ADMIN,
      summary: "Every role: the built-in roles and the custom ones, `{results, total}`",
    },
  },
  getRole: {
    params: { roleId },
    result: returns(roleSchema),
    http: {
      method: "GET",
      path: "/authorization/roles/:roleId",
      access: ADMIN,
      summary: "One role, by its _id (a built-in role's _id is its name)",
    },
  },
  createRole: {
    params: {
      role: {
        type: "object",
        strict: "remove",
        props: {
          name: roleName,
          description: { type: "string", max: 1024, optional: true },
          allowedMethods,
          allowedViews,
        },
      },
    },
    result: returns(roleEnvelope),
    http: {
      method: "POST",
      path: "/authorization/roles",
      access: ADMIN,
      summary: "Create a custom role allowing the methods it names",
    },
  },
  updateRole: {
    params: {
      roleId,
      updates: {
        type: "object",
        strict: "remove",
        props: { description: { type: "string", max: 1024, optional: true }, allowedMethods, allowedViews },
      },
    },
    result: returns(roleEnvelope),
    http: {
      method: "PATCH",
      path: "/authorization/roles/:roleId",
      access: ADMIN,
      summary: "Change a custom role's description or methods; callers see the change within AUTH_CACHE_MS",
    },
  },
  deleteRole: {
    params: { roleId },
    result: returns(messageSchema),
    http: {
      method: "DELETE",
      path: "/authorization/roles/:roleId",
      access: ADMIN,
      summary:
        "Delete a custom role; the groups and accounts that had it lose it at once (callers within AUTH_CACHE_MS)",
    },
  },
  listMethods: {
    params: {},
    result: returns(shape({ results: arrayOf(methodSchema), total: integer })),
    http: {
      method: "GET",
      path: "/authorization/methods",
      access: ADMIN,
      summary: "Every operation a role may allow: its name, provenance (service), route and built-in roles",
    },
  },
});
