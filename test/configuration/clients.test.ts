/**
 * The configuration manager as the real product's clients and resources use it, over HTTP
 * (docs/compatibility.md): itential-mcp's tree create with variables (`PUT .../configs/:id/initial`),
 * the list shapes it reads, `id` beside `_id` on every object answered with an `_id`, and create and
 * update bodies holding a resource's own fields, read-only ones included.
 */
import fs from "node:fs";
import path from "node:path";
import { clientWithRoles, expectError, usePlatform, type Client } from "../support/platform";

const IOS = fs.readFileSync(path.join(__dirname, "../fixtures/configuration/ios-edge-rtr1.cfg"), "utf8");
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

async function waitForBatch(batchId: string) {
  for (let i = 0; i < 200; i++) {
    const batch = await ok(env.admin.get(`/configuration_manager/compliance_reports/batches/${batchId}`));
    if (batch.state === "complete" || batch.state === "error") return batch;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`batch ${batchId} did not finish`);
}

describe("itential-mcp's golden config calls", () => {
  test("create_golden_config_tree with variables: POST the tree, then PUT .../configs/:id/initial", async () => {
    // Exactly what itential-mcp sends: {name, deviceType}, reads res.json()["id"], then
    // PUT /configuration_manager/configs/{tree_id}/initial with {"name": "initial", "variables": variables}.
    const created = await ok(
      env.admin.post("/configuration_manager/configs", { name: "MCP tree", deviceType: "ios" }),
    );
    const variables = { ntp_server: "192.0.2.10", asn: 65001 };
    const updated = await env.admin.put(`/configuration_manager/configs/${created["id"]}/initial`, {
      name: "initial",
      variables,
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({
      status: "success",
      message: "Golden config tree 'MCP tree' version 'initial' updated",
    });
    // The version's variables are its root node's, inherited by every node.
    const root = await ok(
      env.admin.get(`/configuration_manager/configs/${created.id}/versions/initial/node?nodePath=base`),
    );
    expect(root.variables).toEqual({ ntp_server: "192.0.2.10", asn: "65001" });
    await ok(
      env.admin.put(`/configuration_manager/configs/${created.id}/versions/initial/nodes`, {
        nodePath: "base/dc1",
        config: "ntp server {{ ntp_server }}\n",
      }),
    );
    const child = await ok(
      env.admin.get(`/configuration_manager/configs/${created.id}/versions/initial/node?nodePath=base/dc1`),
    );
    expect(child.effective.variables).toEqual({ ntp_server: "192.0.2.10", asn: "65001" });
    // Sent again, the same state (a PUT); only the variables sent are kept.
    await ok(
      env.admin.put(`/configuration_manager/configs/${created.id}/initial`, { variables: { asn: "65002" } }),
    );
    expect(
      (
        await ok(
          env.admin.get(`/configuration_manager/configs/${created.id}/versions/initial/node?nodePath=base`),
        )
      ).variables,
    ).toEqual({ asn: "65002" });

    // get_golden_config_trees reads a plain array: name, deviceType, versions, and id to find a tree by name.
    const trees = await ok(env.admin.get("/configuration_manager/configs"));
    expect(Array.isArray(trees)).toBe(true);
    expect(trees.find((t: any) => t.name === "MCP tree")).toMatchObject({
      id: created.id,
      deviceType: "ios",
      versions: ["initial"],
    });
  });

  test("the version update: validation, not found, roles", async () => {
    const tree = await ok(
      env.admin.post("/configuration_manager/configs", { name: "MCP checks", deviceType: "ios" }),
    );
    const url = `/configuration_manager/configs/${tree.id}/initial`;
    const field = (error: any) => error.data?.[0]?.field;
    const rename = expectError(await env.admin.put(url, { name: "renamed" }), 400, "VALIDATION_ERROR");
    expect(rename.data[0]).toMatchObject({ field: "name" });
    expect(field(expectError(await env.admin.put(url, { variables: ["a"] }), 400, "VALIDATION_ERROR"))).toBe(
      "variables",
    );
    expect(
      field(
        expectError(await env.admin.put(url, { variables: { "bad name": "x" } }), 400, "VALIDATION_ERROR"),
      ),
    ).toBe("variables.bad name");
    expect(
      field(expectError(await env.admin.put(url, { variables: { a: { b: 1 } } }), 400, "VALIDATION_ERROR")),
    ).toBe("variables.a");
    expectError(
      await env.admin.put(`/configuration_manager/configs/${tree.id}/v9`, { variables: {} }),
      404,
      "NOT_FOUND",
    );
    expectError(
      await env.admin.put(`/configuration_manager/configs/${OID}/initial`, { variables: {} }),
      404,
      "NOT_FOUND",
    );
    expectError(await reader.put(url, { variables: { a: "1" } }), 403, "FORBIDDEN");
    // Nothing was written by the refused requests.
    const root = await ok(
      env.admin.get(`/configuration_manager/configs/${tree.id}/versions/initial/node?nodePath=base`),
    );
    expect(root.variables).toEqual({});
  });
});

describe("lists and the id member", () => {
  test("a batch's reports are a page {results, total, skip, limit}; batches, backups, nodes and parsers answer id beside _id", async () => {
    const tree = await ok(
      env.admin.post("/configuration_manager/configs", { name: "Ids batch", deviceType: "ios" }),
    );
    const node = await ok(
      env.admin.put(`/configuration_manager/configs/${tree.id}/versions/initial/nodes`, {
        nodePath: "base",
        config: "hostname edge-rtr1\n",
        devices: ["ids-1", "ids-2", "ids-3"],
      }),
    );
    expect(node.id).toBe(node._id);
    const read = await ok(
      env.admin.get(`/configuration_manager/configs/${tree.id}/versions/initial/node?nodePath=base`),
    );
    expect(read.id).toBe(node._id);

    const backups = [];
    for (const deviceName of ["ids-1", "ids-2", "ids-3"]) {
      const backup = await ok(env.admin.post("/configuration_manager/backups", { deviceName, config: IOS }));
      expect(backup.id).toBe(backup._id);
      backups.push(backup);
    }
    expect((await ok(env.admin.get(`/configuration_manager/backups/${backups[0].id}`))).id).toBe(
      backups[0]._id,
    );
    const listed = await ok(env.admin.get("/configuration_manager/backups?deviceName=ids-2"));
    expect(listed.results.map((b: any) => [b.id, b._id])).toEqual([[backups[1]._id, backups[1]._id]]);

    const run = await ok(
      env.admin.post("/configuration_manager/compliance_reports", { treeId: tree.id, version: "initial" }),
    );
    const batch = await waitForBatch(run.batchId);
    expect(batch).toMatchObject({ id: run.batchId, _id: run.batchId, state: "complete", devices: 3 });

    const reports = `/configuration_manager/compliance_reports/batches/${run.batchId}/reports`;
    const first = await ok(env.admin.get(reports));
    expect(Object.keys(first).sort()).toEqual(["limit", "results", "skip", "total"]);
    expect(first).toMatchObject({ total: 3, skip: 0, limit: 25 });
    expect(first.results.map((r: any) => r.deviceName)).toEqual(["ids-1", "ids-2", "ids-3"]);
    expect(first.results[0]).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      issues: expect.any(Array),
    });
    const second = await ok(env.admin.get(`${reports}?skip=1&limit=1`));
    expect(second).toEqual({ results: [first.results[1]], total: 3, skip: 1, limit: 1 });
    expectError(
      await env.admin.get(`/configuration_manager/compliance_reports/batches/${OID}/reports`),
      404,
      "NOT_FOUND",
    );

    const parsers = await ok(env.admin.get("/configuration_manager/configurations/parser"));
    expect(parsers.every((p: any) => p.id === p._id)).toBe(true);
    const ios = await ok(env.admin.get("/configuration_manager/configurations/parser/ios"));
    expect(ios.id).toBe(ios._id);
  });
});

describe("bodies holding a resource's own fields", () => {
  test("a parser record as read back creates and updates a parser; its read-only fields are ignored", async () => {
    const created = await ok(
      env.admin.post("/configuration_manager/configurations/parser", {
        name: "round-trip",
        template: "ios",
        lexRules: [["^remark:", "comment"]],
      }),
    );
    // The record as GET answers it, under a new name: _id, id, builtIn, style, created, lastUpdated are read-only.
    const record = await ok(env.admin.get("/configuration_manager/configurations/parser/round-trip"));
    const copy = await ok(
      env.admin.post("/configuration_manager/configurations/parser", {
        ...record,
        name: "round-trip-copy",
        builtIn: true,
        style: "braces",
        created: "2001-01-01T00:00:00.000Z",
      }),
    );
    expect(copy).toMatchObject({
      name: "round-trip-copy",
      template: "ios",
      lexRules: [["^remark:", "comment"]],
      builtIn: false,
      style: "indent",
    });
    expect(copy._id).not.toBe(created._id);
    expect(copy.id).toBe(copy._id);
    expect(copy.created).not.toBe("2001-01-01T00:00:00.000Z");
    // PUT with the whole record: its writable fields change, the rest is ignored.
    const updated = await ok(
      env.admin.put("/configuration_manager/configurations/parser/round-trip-copy", {
        ...copy,
        lexRules: [["^!", "comment"]],
        builtIn: true,
        _id: OID,
      }),
    );
    expect(updated).toMatchObject({ _id: copy._id, builtIn: false, lexRules: [["^!", "comment"]] });
    // Still a user parser: it can be deleted.
    await ok(env.admin.delete("/configuration_manager/configurations/parser/round-trip-copy"));
  });

  test("a golden config tree export entry creates a tree; id, versions, created and lastUpdated are ignored", async () => {
    const entry = {
      id: OID,
      name: "From an entry",
      deviceType: "cisco-ios",
      versions: ["initial", "v2"],
      created: "2019-04-12T14:42:47.958Z",
      lastUpdated: "2019-04-12T14:42:47.958Z",
    };
    const tree = await ok(env.admin.post("/configuration_manager/configs", entry));
    expect(tree).toMatchObject({ name: "From an entry", deviceType: "cisco-ios", versions: ["initial"] });
    expect(tree.id).not.toBe(OID);
    expect(tree.created).not.toBe(entry.created);
  });

  test("a compliance history entry runs a batch of its device; its read-only members are ignored", async () => {
    const tree = await ok(
      env.admin.post("/configuration_manager/configs", { name: "From history", deviceType: "ios" }),
    );
    await ok(
      env.admin.put(`/configuration_manager/configs/${tree.id}/versions/initial/nodes`, {
        nodePath: "base",
        config: "hostname edge-rtr1\n",
        devices: ["hist-1", "hist-2"],
      }),
    );
    for (const deviceName of ["hist-1", "hist-2"])
      await ok(env.admin.post("/configuration_manager/backups", { deviceName, config: IOS }));
    const first = await ok(
      env.admin.post("/configuration_manager/compliance_reports", { treeId: tree.id, version: "initial" }),
    );
    await waitForBatch(first.batchId);
    const [entry] = await ok(
      env.admin.post("/configuration_manager/compliance_reports/history/backups", {
        options: { treeId: tree.id, devices: ["hist-2"] },
      }),
    );
    expect(entry).toMatchObject({ deviceName: "hist-2", nodePath: "base" });
    // The entry as history answers it, posted back: only its device is checked.
    const again = await ok(env.admin.post("/configuration_manager/compliance_reports", entry));
    expect(again).toMatchObject({ devices: 1, withoutBackup: 0 });
    const batch = await waitForBatch(again.batchId);
    expect(batch).toMatchObject({ treeId: tree.id, version: "initial", nodePath: "base", done: 1 });
    const reports = await ok(
      env.admin.get(`/configuration_manager/compliance_reports/batches/${again.batchId}/reports`),
    );
    expect(reports.results.map((r: any) => r.deviceName)).toEqual(["hist-2"]);
  });
});
