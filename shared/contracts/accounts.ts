/** accounts: login and sessions, accounts, groups and roles (spec operation 4, docs/platform-rules.md#sign-in-and-roles). */
import { defineService, ROLES } from "./define";
import { arrayOf, int, num, optString, optBool, returns, sortOrder } from "./schema";
import {
  accountPageSchema,
  accountSchema,
  callerSchema,
  groupSchema,
  loginResultSchema,
  messageSchema,
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
const username = { type: "string", min: 1, max: 128, pattern: /^[A-Za-z0-9._@-]+$/ } as const;
const password = { type: "string", min: 8, max: 1024, secret: true } as const;
const groupName = { type: "string", min: 1, max: 128, trim: true } as const;

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
    params: { token: { type: "string", min: 1, max: 512 } },
    result: returns(callerSchema),
    description: "Resolve a session token to a caller; slides the session's expiry. Used by the gateway.",
  },
  refreshCaller: {
    params: {
      accountId: { type: "string", min: 1, max: 64 },
      sessionId: { type: "string", min: 1, max: 128, optional: true },
    },
    result: returns(callerSchema),
    description:
      "The caller of a session (or, for Basic, of an account) as it is now: 401 once the session ended or the account is inactive. Does not slide the session. Used by the gateway to keep open event streams honest.",
  },
  authenticateBasic: {
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
          contains: optString,
          containsField: queryField,
          equals: optString,
          equalsField: queryField,
          startsWith: optString,
          startsWithField: queryField,
          groupId: { type: "string", min: 1, optional: true },
          skip: int(0),
          limit: int(1),
          sort: { type: "enum", values: ACCOUNT_SORT_FIELDS, optional: true },
          order: sortOrder,
        },
      },
    },
    result: returns(accountPageSchema),
    http: {
      method: "GET",
      path: "/user-management/accounts",
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
      groups: {
        type: "array",
        items: groupName,
        optional: true,
        max: 100,
        description: "Group names or ids",
      },
      memberOf: {
        type: "array",
        optional: true,
        max: 100,
        items: { type: "object", strict: true, props: { groupId: groupName } },
        description:
          "The Account resource's own field: [{groupId}] (a group's id or name), merged with `groups`",
      },
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
      assignedRoles: { type: "array", items: { type: "enum", values: ROLES }, optional: true, unique: true },
      inactive: optBool,
    },
    result: returns(groupSchema),
    http: { method: "POST", path: "/user-management/groups", access: ADMIN, summary: "Create a group" },
  },
  listGroups: {
    params: {},
    result: returns(arrayOf(groupSchema)),
    http: { method: "GET", path: "/user-management/groups", access: ADMIN, summary: "List groups" },
  },
});
