/** prebuilts: prebuilt repository configurations (spec operation 13). */
import { defineService, SUPPORT_READ, SUPPORT_WRITE } from "./define";
import {
  arrayOf,
  named,
  openShape,
  optBool,
  optional,
  optString,
  pathName,
  returns,
  str,
  type InferRule,
} from "./schema";
import { catalogMeta, messageSchema, resultsPage, statusResult } from "./resources";
import { tagIds } from "./forms";

export const repositoryConfig = {
  type: "object",
  strict: "remove",
  props: {
    enabled: optBool,
    type: optString,
    hostname: optString,
    path: optString,
    credentials: {
      type: "object",
      optional: true,
      strict: "remove",
      props: { token: { type: "string", optional: true, secret: true } },
    },
    versionStatus: optString,
  },
} as const;

/** A repository configuration as the API answers it; `config.credentials.token` is sealed (`enc:v1:...`). */
const repositoryConfigSchema = named(
  "RepositoryConfig",
  openShape({
    _id: optional(str),
    name: str,
    description: optional(str),
    tags: optional(arrayOf(str)),
    config: optional(repositoryConfig),
    _meta: optional(catalogMeta),
  }),
);
export type RepositoryConfig = InferRule<typeof repositoryConfigSchema>;

/** Repository configuration fields stored encrypted (docs/platform-rules.md#secrets), as JSON pointers. */
export const REPOSITORY_CONFIG_ENCRYPTED_POINTERS = ["/credentials/token"] as const;

/** The name is also the path segment of `/prebuilts-repository/configs/:name`. */
const name = pathName;

export const prebuilts = defineService("prebuilts", {
  createConfig: {
    params: {
      name,
      config: repositoryConfig,
      description: { type: "string", max: 4096, optional: true },
      tags: tagIds,
    },
    result: returns(statusResult(repositoryConfigSchema)),
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
    result: returns(repositoryConfigSchema),
    http: {
      method: "GET",
      path: "/prebuilts-repository/configs/:name",
      access: SUPPORT_READ,
      summary: "Read a repository configuration",
    },
  },
  listConfigs: {
    params: {},
    result: returns(resultsPage(repositoryConfigSchema)),
    http: {
      method: "GET",
      path: "/prebuilts-repository/configs",
      access: SUPPORT_READ,
      summary: "List repository configurations: {results, total}, as the real product",
    },
  },
  deleteConfig: {
    params: { name },
    result: returns(messageSchema),
    http: {
      method: "DELETE",
      path: "/prebuilts-repository/configs/:name",
      access: SUPPORT_WRITE,
      summary: "Delete a repository configuration",
    },
  },
});
