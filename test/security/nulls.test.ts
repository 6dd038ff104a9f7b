/**
 * One rule for null (docs/security.md#null): on an optional field that is not `nullable`, null
 * means absent — over HTTP for the cases once found (a 500, or a null stored where the resource
 * says array or string), and for every optional field of every contract.
 */
import { contracts } from "../../shared/contracts";
import { dropNullOptionals, type Props, type Rule } from "../../shared/contracts/schema";
import { client, login, startPlatform, type Client, type Platform } from "../support/platform";

describe("over HTTP", () => {
  let platform: Platform;
  let admin: Client;
  beforeAll(async () => {
    platform = await startPlatform();
    admin = client(platform.baseUrl, await login(platform.baseUrl));
  });
  afterAll(() => platform.stop());

  test("groups: null on account, group and form create is absent, not a 500", async () => {
    const group = await admin.post("/user-management/groups", {
      name: "nulls",
      description: null,
      memberOf: null,
    });
    expect(group.status).toBe(200);
    expect(group.body.description).toBe("");
    expect(group.body.memberOf).toEqual([]);
    const account = await admin.post("/user-management/accounts", {
      username: "null-groups",
      password: "a-long-password",
      groups: null,
      firstname: null,
    });
    expect(account.status).toBe(200);
    expect(account.body.memberOf).toEqual([]);
    expect(account.body).not.toHaveProperty("firstname", null);
    const form = await admin.post("/formbuilder/forms", { name: "null-form", groups: null, children: null });
    expect(form.status).toBe(200);
    const read = await admin.get("/formbuilder/forms/null-form");
    expect(read.body.children).toEqual([]);
    expect(read.body.groups).toEqual([]);
  });
});

/** Every optional, non-nullable field of an object schema, with the path to it. */
function optionalFields(props: Props, path: string[] = []): { path: string[]; nullable: boolean }[] {
  const found: { path: string[]; nullable: boolean }[] = [];
  for (const [key, raw] of Object.entries(props)) {
    if (key.startsWith("$$") || typeof raw !== "object") continue;
    const rule = raw as Rule;
    if (rule.optional) found.push({ path: [...path, key], nullable: !!rule.nullable });
    if (rule.type === "object" && rule.props)
      found.push(...optionalFields(rule.props as Props, [...path, key]));
  }
  return found;
}

const withNullAt = (path: string[]): Record<string, unknown> => {
  const root: Record<string, unknown> = {};
  let node = root;
  for (const key of path.slice(0, -1)) node = (node[key] = {}) as Record<string, unknown>;
  node[path[path.length - 1]] = null;
  return root;
};

const at = (value: any, path: string[]) => path.reduce((v, k) => (v == null ? v : v[k]), value);
const has = (value: any, path: string[]) => {
  const parent = at(value, path.slice(0, -1));
  return parent != null && path[path.length - 1] in parent;
};

const fields = Object.values(contracts).flatMap((contract) =>
  Object.entries(contract.actions).flatMap(([action, def]) =>
    optionalFields(def.params as Props).map(
      (f) => [`${contract.name}.${action}`, f.path.join("."), f] as const,
    ),
  ),
);

test("the contracts have optional fields to check", () => {
  expect(fields.length).toBeGreaterThan(100);
});

test.each(fields)("%s %s: null is absent unless the field is nullable", (action, _field, f) => {
  const [service, name] = action.split(".");
  const def = (contracts as any)[service].actions[name];
  const params = withNullAt(f.path);
  dropNullOptionals(def.params, params);
  if (f.nullable) expect(at(params, f.path)).toBeNull();
  else expect(has(params, f.path)).toBe(false);
});
