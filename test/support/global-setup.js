/**
 * Jest global setup.
 * 1. Builds dist/ (incremental tsc, no type check: that is `npm run lint`'s job): tests that spawn
 *    processes run the built runner, as production does.
 * 2. Gives the run a folder: every platform the tests start appends its log lines to run.log there
 *    (LOG_FILE, at info), and `login` notes each session token in secrets.txt; global-teardown.js
 *    fails the run if any line of the log holds one of them or a fixed test secret.
 * 3. Makes sure a real NATS answers at NATS_URL (default nats://127.0.0.1:4222). When none does and
 *    `nats-server` is installed, starts a private one on a free port for this run. Tests over NATS
 *    never skip: without a NATS server the run fails here, saying why.
 * 4. Sets STORE_QUERY_SHAPES: every platform of the run notes each query shape no declared index
 *    serves (shared/store/embedded/query-shapes.ts); global-teardown.js fails the run on any.
 */
const { execFileSync, spawn } = require("node:child_process");
const net = require("node:net");
const path = require("node:path");
const fs = require("node:fs");
const os = require("node:os");

function reachable(url) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port || 4222) });
    socket.setTimeout(1000);
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
    socket.once("timeout", () => (socket.destroy(), resolve(false)));
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.once("error", reject);
  });
}

module.exports = async function globalSetup() {
  const root = path.resolve(__dirname, "../..");
  execFileSync(
    process.execPath,
    [require.resolve("typescript/bin/tsc"), "-p", "tsconfig.build.json", "--noCheck"],
    {
      cwd: root,
      stdio: "inherit",
    },
  );

  const run = fs.mkdtempSync(path.join(os.tmpdir(), "platform-run-"));
  process.env.TEST_LOG_FILE = path.join(run, "run.log");
  process.env.TEST_SECRETS_FILE = path.join(run, "secrets.txt");
  // Every query no declared index serves is noted here; global-teardown.js fails the run on any.
  process.env.STORE_QUERY_SHAPES = path.join(run, "unindexed-queries.jsonl");
  globalThis.__RUN_DIR__ = run;

  const url = process.env.NATS_URL || "nats://127.0.0.1:4222";
  if (await reachable(url)) {
    process.env.NATS_URL = url;
    return;
  }
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "nats-test-"));
  let child;
  try {
    child = spawn("nats-server", ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", dir], {
      stdio: "ignore",
      detached: true,
    });
  } catch (err) {
    throw new Error(`No NATS at ${url} and nats-server could not start: ${err.message}`);
  }
  child.unref();
  const started = `nats://127.0.0.1:${port}`;
  for (let i = 0; i < 50 && !(await reachable(started)); i++) await new Promise((r) => setTimeout(r, 100));
  if (!(await reachable(started)))
    throw new Error(`No NATS at ${url}, and a private nats-server did not start`);
  process.env.NATS_URL = started;
  globalThis.__PRIVATE_NATS__ = child.pid;
};
