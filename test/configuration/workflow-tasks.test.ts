/**
 * The configuration manager's workflow tasks: backing up, checking and remediating are automatic
 * tasks in the task catalog, and a workflow that backs up a device's config, checks it against a
 * golden config node and asks for its remediation completes with the outcome in its variables.
 */
import fs from "node:fs";
import path from "node:path";
import { auto, chain, createWorkflow, waitForJob } from "../support/engine-fixtures";
import { usePlatform } from "../support/platform";

const FIXTURES = path.join(__dirname, "../fixtures/configuration");
const IOS = fs.readFileSync(path.join(FIXTURES, "ios-edge-rtr1.cfg"), "utf8");
const SPEC = fs.readFileSync(path.join(FIXTURES, "ios-base.spec"), "utf8");

const env = usePlatform();
let treeId: string;

beforeAll(async () => {
  const tree = await env.admin.post("/configuration_manager/configs", {
    name: "Workflow",
    deviceType: "ios",
  });
  expect(tree.status).toBe(200);
  treeId = tree.body._id;
  const node = await env.admin.put(`/configuration_manager/configs/${treeId}/versions/initial/nodes`, {
    nodePath: "base",
    config: SPEC,
  });
  expect(node.status).toBe(200);
});

test("the catalog lists backup, compliance check and remediation as automatic tasks", async () => {
  const catalog = (await env.admin.get("/workflow_builder/tasks/list")).body as any[];
  const names = catalog.filter((t) => t.app === "configuration").map((t) => t.name);
  expect(names).toEqual(expect.arrayContaining(["createBackup", "checkCompliance", "remediate"]));
});

test("a workflow backs up a config, checks it and gets its remediation", async () => {
  const where = { treeId: "$var.job.treeId", version: "initial", nodePath: "base", deviceName: "edge-rtr9" };
  await createWorkflow(
    env.admin,
    env.platform.broker,
    chain("backup-check-fix", [
      [
        "backup",
        auto(
          "configuration",
          "createBackup",
          { deviceName: "edge-rtr9", config: "$var.job.config" },
          { _id: "$var.job.backupId", lines: "$var.job.lines" },
        ),
      ],
      [
        "check",
        auto("configuration", "checkCompliance", where, {
          compliant: "$var.job.compliant",
          totals: "$var.job.totals",
        }),
      ],
      [
        "fix",
        auto("configuration", "remediate", where, {
          compliant: "$var.job.stillNonCompliant",
          remediation: "$var.job.remediation",
        }),
      ],
    ]),
  );
  // A device serving HTTP (disallowed, severity error) and missing `aaa new-model` (required).
  const config = IOS.replace("no ip http server", "ip http server").replace("aaa new-model\n", "");
  const started = await env.admin.post("/operations-manager/jobs/start", {
    workflow: "backup-check-fix",
    options: { variables: { treeId, config } },
  });
  expect(started.status).toBe(200);
  const job = await waitForJob(env.platform.broker, started.body._id);
  expect(job.status).toBe("complete");
  expect(job.variables.backupId).toMatch(/^[0-9a-f]{24}$/);
  expect(job.variables.lines).toBeGreaterThan(100);
  expect(job.variables.compliant).toBe(false);
  expect(job.variables.totals.errors).toBeGreaterThanOrEqual(1);
  expect(job.variables.stillNonCompliant).toBe(false);
  expect(job.variables.remediation.split("\n")).toEqual(
    expect.arrayContaining(["no ip http server", "aaa new-model"]),
  );
});
