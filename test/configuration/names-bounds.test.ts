/**
 * Golden config names and bounds over HTTP (docs/configuration-manager.md#golden-config-trees):
 * reserved names (`__proto__`, `constructor`, `prototype`) refused wherever a name becomes a key
 * (version names, node path segments, variable names, on create and on import alike); import
 * checks the bounds create checks (services/configuration/tree-bounds.ts); a spec of 32 levels,
 * as documented, is taken.
 */
import { expectError, usePlatform, type Reply } from "../support/platform";

const env = usePlatform();
let treeId: string;

const IMPORT = "/configuration_manager/import/goldenconfigs";
const versions = () => `/configuration_manager/configs/${treeId}/versions`;

beforeAll(async () => {
  const tree = await env.admin.post("/configuration_manager/configs", {
    name: "names-tree",
    deviceType: "cisco-ios",
  });
  treeId = tree.body._id;
});

const field = (reply: Reply) => expectError(reply, 400, "VALIDATION_ERROR").data[0].field;

test("a reserved name is refused wherever a name becomes a key, and nothing is written", async () => {
  for (const name of ["__proto__", "constructor", "prototype"]) {
    expect(field(await env.admin.post(versions(), { version: name }))).toBe("version");
    expect(field(await env.admin.put(`${versions()}/initial/nodes`, { nodePath: `base/${name}` }))).toBe(
      "nodePath",
    );
    const variables = JSON.parse(`{"${name}": "x"}`);
    expect(field(await env.admin.put(`${versions()}/initial/nodes`, { nodePath: "base", variables }))).toBe(
      `variables.${name}`,
    );
    expect(
      field(
        await env.admin.put(`${versions()}/initial/nodes`, { nodePath: "base", config: `ntp {{ ${name} }}` }),
      ),
    ).toBe("config");
    const entry = { name: `imp-${name}`, deviceType: "ios", versions: ["initial", name] };
    expect(field(await env.admin.post(IMPORT, { data: [entry] }))).toBe("data[0].versions[1]");
    const node = {
      name: `imp2-${name}`,
      deviceType: "ios",
      versions: ["initial"],
      nodes: [{ version: "initial", path: `base/${name}` }],
    };
    expect(field(await env.admin.post(IMPORT, { data: [node] }))).toBe("data[0].nodes[0].path");
  }
  const tree = await env.admin.get(`/configuration_manager/configs/${treeId}`);
  expect(tree.body.versions).toEqual(["initial"]);
  expect(tree.body.nodes).toEqual({ initial: [{ path: "base", devices: [] }] });
  const trees = await env.admin.get("/configuration_manager/configs");
  expect(trees.body.map((t: { name: string }) => t.name)).toEqual(["names-tree"]);
});

test("a spec of 32 levels, the documented bound, is taken; 33 are refused", async () => {
  const text = (n: number) => Array.from({ length: n }, (_, i) => `${" ".repeat(i)}line${i}`).join("\n");
  const deep = await env.admin.put(`${versions()}/initial/nodes`, { nodePath: "base", config: text(32) });
  expect(deep.status).toBe(200);
  let level = deep.body.spec[0];
  let depth = 1;
  while (level.children.length > 0) [level, depth] = [level.children[0], depth + 1];
  expect(depth).toBe(32);
  const over = expectError(
    await env.admin.put(`${versions()}/initial/nodes`, { nodePath: "base", config: text(33) }),
    400,
    "VALIDATION_ERROR",
  );
  expect(over.message).toContain("32 levels");
  // The JSON form nests two JSON levels a spec level: MAX_INPUT_DEPTH (64) holds 31 with string words.
  const json = (n: number): unknown[] => (n === 0 ? [] : [{ words: ["x"], children: json(n - 1) }]);
  expect(
    (await env.admin.put(`${versions()}/initial/nodes`, { nodePath: "base", spec: json(31) })).status,
  ).toBe(200);
  await env.admin.put(`${versions()}/initial/nodes`, { nodePath: "base", config: "" });
});

test("import checks the bounds create checks: 2,000 nodes in a version, not 2,001", async () => {
  const nodes = (n: number) => [
    { version: "initial", path: "base" },
    ...Array.from({ length: n - 1 }, (_, i) => ({ version: "initial", path: `base/n${i}` })),
  ];
  const over = expectError(
    await env.admin.post(IMPORT, {
      data: [{ name: "big", deviceType: "ios", versions: ["initial"], nodes: nodes(2001) }],
    }),
    400,
    "VALIDATION_ERROR",
  );
  expect(over.data[0]).toMatchObject({ field: "data[0].nodes", type: "count" });
  expect(over.message).toContain("at most 2000 nodes");
  expect((await env.admin.get("/configuration_manager/configs")).body).toHaveLength(1);

  const at = await env.admin.post(IMPORT, {
    data: [{ name: "big", deviceType: "ios", versions: ["initial"], nodes: nodes(2000) }],
  });
  expect(at.status).toBe(200);
  const bigId = at.body.data[0].id;
  // Create refuses the 2,001st node with the same rule and message; replacing a node is no new node.
  const created = expectError(
    await env.admin.put(`/configuration_manager/configs/${bigId}/versions/initial/nodes`, {
      nodePath: "base/n-extra",
    }),
    400,
    "VALIDATION_ERROR",
  );
  expect(created.data[0]).toMatchObject({ field: "nodePath", type: "count" });
  expect(created.message).toBe(over.message);
  const replaced = await env.admin.put(`/configuration_manager/configs/${bigId}/versions/initial/nodes`, {
    nodePath: "base/n0",
    devices: ["rtr1"],
  });
  expect(replaced.status).toBe(200);

  // The import's description has create's bound: refused, not cut.
  const long = { name: "long", deviceType: "ios", versions: ["initial"], description: "d".repeat(4097) };
  expect(field(await env.admin.post(IMPORT, { data: [long] }))).toBe("data[0].description");
  expect(
    (await env.admin.post("/configuration_manager/configs", { ...long, versions: undefined })).status,
  ).toBe(400);
});
