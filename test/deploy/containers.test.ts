/**
 * The container suite (`npm run test:containers`, jest.containers.config.js) needs Docker, so it
 * cannot run here; what it is built from can: its suites exist and start the whole platform, it
 * stays out of `npm test`, and the split topology it runs them on (every service in a broker of its
 * own over a real NATS, the store shared) starts and answers, here on the `store` service instead of
 * MongoDB.
 */
import fs from "node:fs";
import path from "node:path";
import { ALL_SERVICES } from "../../app/services";
import { login, request, startPlatform } from "../support/platform";
import { ROOT, read } from "./manifests";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const suites: string[] & { http: string[]; ownTopology: string[] } = require("../containers/suites");

test("npm run test:containers runs jest with the container config, in band", () => {
  expect(JSON.parse(read("package.json")).scripts["test:containers"]).toBe(
    "jest -c jest.containers.config.js --runInBand",
  );
});

test("its HTTP suites exist and start the whole platform (startPlatform(), usePlatform() or both shapes)", () => {
  expect(suites.http.length).toBeGreaterThan(10);
  for (const suite of suites.http) {
    const text = read(suite);
    // usePlatform (test/support/platform.ts) starts its suite's platform with startPlatform.
    const whole = /(startPlatform|usePlatform)\(\s*(\{\s*env\b[^)]*)?\)|describeInBothShapes\(/.test(text);
    expect({ suite, whole }).toEqual({ suite, whole: true });
  }
});

test("the store contract, replica, fault and scheduler suites run too, each storing on the replica set", () => {
  expect([...suites]).toEqual([...suites.http, ...suites.ownTopology]);
  for (const kind of ["test/store/contract", "test/scheduler/", "test/engine/fault", "replicas"])
    expect({ kind, listed: suites.ownTopology.some((s) => s.includes(kind)) }).toEqual({
      kind,
      listed: true,
    });
  for (const suite of suites.ownTopology) {
    const text = read(suite);
    // The contract takes MONGO_URL itself; the others start platforms (startShape and usePlatform
    // start them with startPlatform) or processes, which test/support/container-store.ts points at
    // the replica set.
    const onMongo = /process\.env\.MONGO_URL|startPlatform\(|usePlatform\(|startShape\(|spawnServices\(/.test(
      text,
    );
    expect({ suite, onMongo }).toEqual({ suite, onMongo: true });
  }
});

test("npm test's jest config never picks up the container suite's files", () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const config = require("../../jest.config");
  expect(config.testMatch).toEqual(["**/*.test.ts"]);
  const files = fs.readdirSync(path.join(ROOT, "test/containers"));
  expect(files.filter((f) => f.endsWith(".test.ts"))).toEqual([]);
});

test("the split topology: one broker per service over NATS, ready, answering through the gateway", async () => {
  const saved = process.env.TEST_TOPOLOGY;
  process.env.TEST_TOPOLOGY = "split";
  let platform;
  try {
    platform = await startPlatform({ env: { METRICS_PORT: "off" } });
  } finally {
    if (saved === undefined) delete process.env.TEST_TOPOLOGY;
    else process.env.TEST_TOPOLOGY = saved;
  }
  try {
    // The gateway's broker is one node among one per service, each running exactly its service.
    const nodes = platform.broker.registry.nodes.toArray().filter((n: any) => n.available);
    const local = (n: any) => n.services.map((s: any) => s.name).filter((s: string) => !s.startsWith("$"));
    expect(nodes.map(local).sort()).toEqual(ALL_SERVICES.map((s) => [s]).sort());
    const token = await login(platform.baseUrl);
    const reply = await request(platform.baseUrl, "GET", "/user-management/accounts?limit=5", { token });
    expect(reply.status).toBe(200);
  } finally {
    await platform.stop();
  }
});
