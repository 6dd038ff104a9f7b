/**
 * The configuration manager over HTTP: parsers (operation 6), golden config trees with versions and
 * nodes, backups, compliance batches and reports, history (operation 11), export and import
 * (operation 9), the catalog task; valid and invalid inputs, role denial, not found.
 */
import fs from "node:fs";
import path from "node:path";
import { withStore } from "../support/engine-fixtures";
import { clientWithRoles, expectError, usePlatform, type Client } from "../support/platform";

const FIXTURES = path.join(__dirname, "../fixtures/configuration");
const read = (name: string) => fs.readFileSync(path.join(FIXTURES, name), "utf8");
const IOS = read("ios-edge-rtr1.cfg");
const OID = "0123456789abcdef01234567";

const env = usePlatform({ env: { COMPLIANCE_SWEEP_MS: "200" } });
let reader: Client;

beforeAll(async () => {
  reader = await clientWithRoles(env.platform, env.admin, ["apiread"]);
});

async function ok(reply: Promise<{ status: number; body: any; text: string }>) {
  const r = await reply;
  if (r.status !== 200) throw new Error(`${r.status} ${r.text}`);
  return r.body;
}

async function waitForBatch(batchId: string, api = env.admin) {
  for (let i = 0; i < 200; i++) {
    const batch = await ok(api.get(`/configuration_manager/compliance_reports/batches/${batchId}`));
    if (batch.state === "complete" || batch.state === "error") return batch;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`batch ${batchId} did not finish`);
}

describe("parsers (operation 6)", () => {
  test("built-in parsers are listed; a user parser extends a template with checked lex rules", async () => {
    const builtIns = await ok(env.admin.get("/configuration_manager/configurations/parser"));
    expect(builtIns.map((p: any) => p.name)).toEqual(["eos", "ios", "ios-xr", "junos", "nx-os"]);
    expect(builtIns.find((p: any) => p.name === "junos")).toMatchObject({ builtIn: true, style: "braces" });

    const created = await ok(
      env.admin.post("/configuration_manager/configurations/parser", {
        name: "ios-parser",
        template: "ios",
        lexRules: [["^remark:", "comment"]],
      }),
    );
    expect(created).toMatchObject({ name: "ios-parser", template: "ios", builtIn: false, style: "indent" });
    expect(created._id).toMatch(/^[0-9a-f]{24}$/);
    await ok(
      env.admin.post("/configuration_manager/configurations/parser", {
        name: "junos-lab",
        template: "junos",
      }),
    );

    expectError(
      await env.admin.post("/configuration_manager/configurations/parser", {
        name: "ios-parser",
        template: "ios",
      }),
      409,
      "CONFLICT",
    );
    const bad = expectError(
      await env.admin.post("/configuration_manager/configurations/parser", {
        name: "evil",
        lexRules: [["(?<=a)b", "word"]],
      }),
      400,
      "VALIDATION_ERROR",
    );
    expect(bad.data[0].field).toBe("lexRules[0][0]");
    expect(
      expectError(
        await env.admin.post("/configuration_manager/configurations/parser", {
          name: "x",
          lexRules: [["a", "bogus"]],
        }),
        400,
        "VALIDATION_ERROR",
      ).data[0].field,
    ).toBe("lexRules[0][1]");
    expect(
      expectError(
        await env.admin.post("/configuration_manager/configurations/parser", { name: "x", template: "nope" }),
        400,
        "VALIDATION_ERROR",
      ).data[0].field,
    ).toBe("template");
  });

  test("list options: start, limit, sort, filter.name escaped or as a regex", async () => {
    const names = async (query: string) =>
      (await ok(reader.get(`/configuration_manager/configurations/parser?${query}`))).map((p: any) => p.name);
    expect(await names("sort[name]=-1&limit=2")).toEqual(["nx-os", "junos-lab"]);
    expect(await names("start=1&limit=2")).toEqual(["ios", "ios-parser"]);
    expect(await names("filter[name]=ios")).toEqual(["ios", "ios-parser", "ios-xr"]);
    expect(await names("filter[name]=ios.*r$&regex=true")).toEqual(["ios-parser", "ios-xr"]);
    expect(await names("filter[name]=ios.*r$")).toEqual([]); // escaped: no name holds "ios.*r$"
    expect(await names(`options=${encodeURIComponent(JSON.stringify({ filter: { name: "JUN" } }))}`)).toEqual(
      ["junos", "junos-lab"],
    );
    const refused = expectError(
      await reader.get("/configuration_manager/configurations/parser?filter[name]=(a)%5C1&regex=true"),
      400,
      "VALIDATION_ERROR",
    );
    expect(refused.data[0].field).toBe("options.filter.name");
    expectError(
      await reader.get("/configuration_manager/configurations/parser?limit=0"),
      400,
      "VALIDATION_ERROR",
    );
  });

  test("read, update, delete; built-ins are read-only; unknown -> 404; roles", async () => {
    expect(await ok(env.admin.get("/configuration_manager/configurations/parser/ios-parser"))).toMatchObject({
      name: "ios-parser",
    });
    const updated = await ok(
      env.admin.put("/configuration_manager/configurations/parser/junos-lab", {
        lexRules: [["^#", "comment"]],
      }),
    );
    expect(updated.lexRules).toEqual([["^#", "comment"]]);
    expect(
      expectError(
        await env.admin.put("/configuration_manager/configurations/parser/junos-lab", {
          template: "junos-lab",
        }),
        400,
        "VALIDATION_ERROR",
      ).data[0].field,
    ).toBe("template");
    expectError(
      await env.admin.put("/configuration_manager/configurations/parser/ios", { lexRules: [] }),
      409,
      "CONFLICT",
    );
    expectError(await env.admin.delete("/configuration_manager/configurations/parser/ios"), 409, "CONFLICT");
    expectError(await env.admin.get("/configuration_manager/configurations/parser/nope"), 404, "NOT_FOUND");
    expectError(
      await env.admin.delete("/configuration_manager/configurations/parser/nope"),
      404,
      "NOT_FOUND",
    );
    expectError(
      await reader.post("/configuration_manager/configurations/parser", { name: "r", template: "ios" }),
      403,
      "FORBIDDEN",
    );
    expect(await ok(env.admin.delete("/configuration_manager/configurations/parser/junos-lab"))).toEqual({
      status: "OK",
      message: "Config parser 'junos-lab' deleted",
    });
  });
});

describe("golden config trees, compliance, history, export", () => {
  let treeId: string;
  const base = () => `/configuration_manager/configs/${treeId}`;
  const setNode = (body: Record<string, unknown>, version = "initial") =>
    env.admin.put(`${base()}/versions/${version}/nodes`, body);

  test("a tree starts with version 'initial' and its root node; nodes take text or JSON specs", async () => {
    const tree = await ok(
      env.admin.post("/configuration_manager/configs", {
        name: "Edge routers",
        deviceType: "cisco-ios",
        parser: "ios-parser",
      }),
    );
    treeId = tree._id;
    expect(tree).toMatchObject({ name: "Edge routers", parser: "ios-parser", versions: ["initial"] });
    expectError(
      await env.admin.post("/configuration_manager/configs", {
        name: "Edge routers",
        deviceType: "cisco-ios",
      }),
      409,
      "CONFLICT",
    );
    const root = await ok(setNode({ nodePath: "base", config: read("ios-base.spec") }));
    expect(root.config.split("\n")[0]).toBe("<e/>hostname {{ hostname }}");
    await ok(
      setNode({
        nodePath: "base/dc1",
        config: read("ios-dc1.spec"),
        variables: { site: "dc1", ntp1: "10.10.1.10", ntp2: "10.10.1.11" },
      }),
    );
    await ok(
      setNode({
        nodePath: "base/dc1/edge",
        spec: [
          {
            words: ["router", "bgp", [{ type: "variable", value: "asn" }]],
            children: [{ words: ["bgp", "log-neighbor-changes"] }],
          },
        ],
        variables: { asn: "65000" },
        devices: ["edge-rtr1", "edge-rtr2", "edge-rtr3"],
      }),
    );
    const node = await ok(env.admin.get(`${base()}/versions/initial/node?nodePath=base/dc1/edge`));
    expect(node.config).toBe("router bgp {{ asn }}\n bgp log-neighbor-changes");
    expect(node.effective.variables).toEqual({
      site: "dc1",
      ntp1: "10.10.1.10",
      ntp2: "10.10.1.11",
      asn: "65000",
    });
    expect(node.effective.config).toContain("ntp server {{ ntp1 }}");
    expect(node.effective.config).toContain("<e/>service password-encryption");
    const read1 = await ok(env.admin.get(base()));
    expect(read1.nodes.initial.map((n: any) => n.path)).toEqual(["base", "base/dc1", "base/dc1/edge"]);
  });

  test("node input is checked field by field; unknown tree, version, parent -> 404 or 400", async () => {
    const field = async (body: Record<string, unknown>, version = "initial") =>
      expectError(await setNode(body, version), 400, "VALIDATION_ERROR").data[0].field;
    expect(await field({ nodePath: "base/x", config: "logging host {/(a)\\1/}" })).toBe("config");
    expect(await field({ nodePath: "base/x", spec: [{ words: [], evalMode: "required" }] })).toBe(
      "spec[0].words",
    );
    expect(await field({ nodePath: "base/x", spec: [{ words: ["a"], evalMode: "sometimes" }] })).toBe(
      "spec[0].evalMode",
    );
    expect(await field({ nodePath: "base/x", spec: [{ words: ["a"], severity: "fatal" }] })).toBe(
      "spec[0].severity",
    );
    expect(await field({ nodePath: "base/x", variables: { "bad name": "1" } })).toBe("variables.bad name");
    expect(await field({ nodePath: "dc1" })).toBe("nodePath");
    expect(await field({ nodePath: "base/nope/child" })).toBe("nodePath");
    expect(await field({ nodePath: "base/x", config: "a", spec: [] })).toBe("config");
    let deep: any[] = [{ words: ["x"] }];
    for (let i = 0; i < 40; i++) deep = [{ words: ["x"], children: deep }];
    expect(await field({ nodePath: "base/x", spec: deep })).toMatch(/children/);
    expectError(await setNode({ nodePath: "base" }, "v9"), 404, "NOT_FOUND");
    expectError(
      await env.admin.put(`/configuration_manager/configs/${OID}/versions/initial/nodes`, {
        nodePath: "base",
      }),
      404,
      "NOT_FOUND",
    );
    expectError(await env.admin.get(`${base()}/versions/initial/node?nodePath=base/zzz`), 404, "NOT_FOUND");
    expectError(await env.admin.get(`/configuration_manager/configs/${OID}`), 404, "NOT_FOUND");
    expectError(await reader.put(`${base()}/versions/initial/nodes`, { nodePath: "base" }), 403, "FORBIDDEN");
  });

  test("a version is cloned from its base; a taken version name -> 409", async () => {
    const tree = await ok(env.admin.post(`${base()}/versions`, { version: "2026-q4", base: "initial" }));
    expect(tree.versions).toEqual(["initial", "2026-q4"]);
    expectError(await env.admin.post(`${base()}/versions`, { version: "2026-q4" }), 409, "CONFLICT");
    expect(
      expectError(
        await env.admin.post(`${base()}/versions`, { version: "v3", base: "nope" }),
        400,
        "VALIDATION_ERROR",
      ).data[0].field,
    ).toBe("base");
    const cloned = await ok(env.admin.get(`${base()}/versions/2026-q4/node?nodePath=base/dc1/edge`));
    expect(cloned.devices).toEqual(["edge-rtr1", "edge-rtr2", "edge-rtr3"]);
    // The clone is its own: changing it leaves the base version as it was.
    await ok(setNode({ nodePath: "base/dc1/edge", variables: { asn: "65099" } }, "2026-q4"));
    const original = await ok(env.admin.get(`${base()}/versions/initial/node?nodePath=base/dc1/edge`));
    expect(original.variables).toEqual({ asn: "65000" });
  });

  test("backups, then a compliance batch of the node's devices: reports, remediation, history", async () => {
    const b1 = await ok(
      env.admin.post("/configuration_manager/backups", { deviceName: "edge-rtr1", config: IOS }),
    );
    expect(b1).toMatchObject({ deviceName: "edge-rtr1", lines: IOS.split("\n").length });
    expect(b1.config).toBeUndefined();
    await ok(
      env.admin.post("/configuration_manager/backups", {
        deviceName: "edge-rtr2",
        config: IOS.replace("no ip http server", "ip http server").replace("aaa new-model\n", ""),
      }),
    );
    // A `remark:` line is a comment for the tree's parser (ios-parser's lex rule): read as config, at
    // column 0 it would end the `line vty` block and `transport input ssh` would be misplaced.
    await ok(
      env.admin.post("/configuration_manager/backups", {
        deviceName: "edge-rtr3",
        config: IOS.replace("hostname edge-rtr1", "hostname edge-rtr3").replace(
          " exec-timeout 10 0\n",
          "remark: managed by the platform\n exec-timeout 10 0\n",
        ),
      }),
    );
    expect((await ok(env.admin.get(`/configuration_manager/backups/${b1._id}`))).config).toBe(IOS);
    expectError(await env.admin.get(`/configuration_manager/backups/${OID}`), 404, "NOT_FOUND");
    expectError(
      await env.admin.post("/configuration_manager/backups", { deviceName: "has space", config: "x" }),
      400,
      "VALIDATION_ERROR",
    );

    const run = await ok(
      env.admin.post("/configuration_manager/compliance_reports", {
        treeId,
        version: "initial",
        nodePath: "base/dc1",
      }),
    );
    expect(run).toMatchObject({ devices: 3 });
    const batch = await waitForBatch(run.batchId);
    expect(batch).toMatchObject({ state: "complete", done: 3, devices: 3, nodePath: "base/dc1" });
    expect(batch.totals).toMatchObject({ errors: 1, warnings: 1, infos: 0 });

    const reports = (
      await ok(env.admin.get(`/configuration_manager/compliance_reports/batches/${run.batchId}/reports`))
    ).results;
    expect(reports.map((r: any) => [r.deviceName, r.nodePath, r.compliant])).toEqual([
      ["edge-rtr1", "base/dc1/edge", true],
      ["edge-rtr2", "base/dc1/edge", false],
      ["edge-rtr3", "base/dc1/edge", true],
    ]);
    const bad = await ok(env.admin.get(`/configuration_manager/compliance_reports/${reports[1].id}`));
    expect(bad.issues.map((i: any) => [i.kind, i.severity, i.specLine])).toEqual([
      ["disallowed", "error", "ip http server"],
      ["missing", "warning", "aaa new-model"],
    ]);
    expect(bad.remediation).toBe("no ip http server\naaa new-model");

    const history = await ok(
      reader.post("/configuration_manager/compliance_reports/history/backups", {
        options: { treeId, devices: ["edge-rtr2", "edge-rtr1"] },
      }),
    );
    expect(history).toHaveLength(2);
    for (const entry of history)
      expect(Object.keys(entry).sort()).toEqual(
        ["batchId", "deviceName", "id", "nodePath", "timestamp", "totals", "treeId", "version"].sort(),
      );
    const rtr2 = history.find((e: any) => e.deviceName === "edge-rtr2");
    expect(rtr2).toMatchObject({
      batchId: run.batchId,
      treeId,
      version: "initial",
      nodePath: "base/dc1/edge",
    });
    expect(rtr2.totals).toMatchObject({ errors: 1, warnings: 1, infos: 0 });
    expect(
      await ok(
        reader.post("/configuration_manager/compliance_reports/history/backups", {
          options: { backups: [b1._id] },
        }),
      ),
    ).toEqual([expect.objectContaining({ deviceName: "edge-rtr1" })]);
  });

  test("history is newest first and limited; a second run on named devices and backups", async () => {
    const run = await ok(
      env.admin.post("/configuration_manager/compliance_reports", {
        treeId,
        version: "initial",
        nodePath: "base/dc1/edge",
        devices: ["edge-rtr2"],
      }),
    );
    await waitForBatch(run.batchId);
    const history = await ok(
      env.admin.post("/configuration_manager/compliance_reports/history/backups", {
        options: { devices: ["edge-rtr2"], limit: 1 },
      }),
    );
    expect(history).toEqual([expect.objectContaining({ batchId: run.batchId, deviceName: "edge-rtr2" })]);
    expect(
      await ok(
        env.admin.post("/configuration_manager/compliance_reports/history/backups", {
          options: { treeId: OID },
        }),
      ),
    ).toEqual([]);
  });

  test("compliance input: unknown tree/version/node -> 404; no device with a backup -> 400", async () => {
    const post = (body: Record<string, unknown>) =>
      env.admin.post("/configuration_manager/compliance_reports", body);
    expectError(await post({ treeId: OID, version: "initial" }), 404, "NOT_FOUND");
    expectError(await post({ treeId, version: "nope" }), 404, "NOT_FOUND");
    expectError(await post({ treeId, version: "initial", nodePath: "base/zzz" }), 404, "NOT_FOUND");
    expectError(await post({ treeId, version: "initial", backups: [OID] }), 404, "NOT_FOUND");
    const noBackup = expectError(
      await post({ treeId, version: "initial", devices: ["ghost"] }),
      400,
      "VALIDATION_ERROR",
    );
    expect(noBackup.data[0]).toMatchObject({ field: "devices" });
    expect(noBackup.message).toContain("ghost");
    expectError(await post({ treeId, version: "initial", devices: "edge-rtr1" }), 400, "VALIDATION_ERROR");
    expectError(
      await reader.post("/configuration_manager/compliance_reports", { treeId, version: "initial" }),
      403,
      "FORBIDDEN",
    );
    expectError(
      await env.admin.get(`/configuration_manager/compliance_reports/batches/${OID}`),
      404,
      "NOT_FOUND",
    );
    expectError(await env.admin.get(`/configuration_manager/compliance_reports/${OID}`), 404, "NOT_FOUND");
  });

  test("the catalog task checks one device at once, without storing a report", async () => {
    const tasks = await ok(env.admin.get("/workflow_builder/tasks/list"));
    expect(tasks.find((t: any) => t.name === "checkCompliance")).toMatchObject({
      app: "configuration",
      type: "automatic",
    });
    const result: any = await env.platform.broker.call("configuration.checkCompliance", {
      treeId,
      version: "initial",
      nodePath: "base/dc1/edge",
      deviceName: "edge-rtr2",
    });
    expect(result).toMatchObject({
      deviceName: "edge-rtr2",
      compliant: false,
      remediation: "no ip http server\naaa new-model",
    });
  });

  test("export (operation 9) and import: the tree moves with its node specs", async () => {
    const exported = await ok(env.admin.post("/configuration_manager/export/goldenconfigs", { treeId }));
    expect(exported.status).toBe("success");
    expect(exported.data).toHaveLength(1);
    const entry = exported.data[0];
    expect(entry).toMatchObject({
      id: treeId,
      name: "Edge routers",
      deviceType: "cisco-ios",
      versions: ["initial", "2026-q4"],
    });
    expect(typeof entry.created).toBe("string");
    expect(entry.nodes.length).toBe(6);
    expectError(
      await env.admin.post("/configuration_manager/export/goldenconfigs", { treeId: OID }),
      404,
      "NOT_FOUND",
    );
    expectError(
      await reader.post("/configuration_manager/export/goldenconfigs", { treeId }),
      403,
      "FORBIDDEN",
    );

    // Same name: 409 and nothing written.
    expectError(
      await env.admin.post("/configuration_manager/import/goldenconfigs", { data: [entry] }),
      409,
      "CONFLICT",
    );
    const bad = expectError(
      await env.admin.post("/configuration_manager/import/goldenconfigs", {
        data: [
          {
            ...entry,
            name: "Copy",
            nodes: [{ ...entry.nodes[0], spec: [{ words: ["x"], evalMode: "maybe" }] }],
          },
        ],
      }),
      400,
      "VALIDATION_ERROR",
    );
    expect(bad.data[0].field).toBe("data[0].nodes[0].spec[0].evalMode");
    const imported = await ok(
      env.admin.post("/configuration_manager/import/goldenconfigs", {
        data: [{ ...entry, name: "Edge routers (lab)" }],
      }),
    );
    const copy = imported.data[0];
    expect(copy.id).not.toBe(treeId);
    expect(copy.versions).toEqual(entry.versions);
    const strip = (nodes: any[]) =>
      nodes.map(({ version, path: p, spec, variables, devices }) => ({
        version,
        p,
        spec,
        variables,
        devices,
      }));
    expect(strip(copy.nodes)).toEqual(strip(entry.nodes));
    const trees = await ok(env.admin.get("/configuration_manager/configs"));
    expect(trees.map((t: any) => t.name)).toEqual(["Edge routers", "Edge routers (lab)"]);
  });

  test("deleting a node removes the nodes under it; deleting a tree removes it; parser in use -> 409", async () => {
    expectError(
      await env.admin.delete("/configuration_manager/configurations/parser/ios-parser"),
      409,
      "CONFLICT",
    );
    await ok(env.admin.delete(`${base()}/versions/2026-q4/node?nodePath=base/dc1`));
    const tree = await ok(env.admin.get(base()));
    expect(tree.nodes["2026-q4"].map((n: any) => n.path)).toEqual(["base"]);
    expectError(
      await env.admin.delete(`${base()}/versions/2026-q4/node?nodePath=base`),
      400,
      "VALIDATION_ERROR",
    );
    await ok(env.admin.delete(base()));
    expectError(await env.admin.get(base()), 404, "NOT_FOUND");
    expectError(await env.admin.delete(base()), 404, "NOT_FOUND");
    const left = await withStore(env.platform.broker, (store) =>
      store.collection("config_nodes").count({ treeId }),
    );
    expect(left).toBe(0);
  });
});

test("a tree is answered with `id` beside `_id` on create, read, list and a new version (itential-mcp reads `id`)", async () => {
  // What itential-mcp's create_golden_config_tree sends, then reads: res.json()["id"].
  const created = await ok(
    env.admin.post("/configuration_manager/configs", { name: "Ids tree", deviceType: "ios" }),
  );
  expect(created.id).toBe(created._id);
  const read = await ok(env.admin.get(`/configuration_manager/configs/${created.id}`));
  expect(read).toMatchObject({ id: created._id, _id: created._id, name: "Ids tree" });
  const listed = (await ok(env.admin.get("/configuration_manager/configs?limit=1000"))) as any[];
  expect(listed.find((t) => t._id === created._id)).toMatchObject({ id: created._id });
  const versioned = await ok(
    env.admin.post(`/configuration_manager/configs/${created.id}/versions`, { version: "v2" }),
  );
  expect(versioned).toMatchObject({ id: created._id, versions: ["initial", "v2"] });
});
