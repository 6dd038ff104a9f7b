/**
 * 1. The run's log check (docs/operations-guide.md#logs): every line every platform of the run
 *    logged (LOG_FILE, see global-setup.js) is searched for the secrets the run used: each session
 *    token `login` handed out and the fixed test secrets below. One found fails the run.
 * 2. The index plan's check (docs/architecture.md#indexes): every query shape a platform of the run
 *    made that no declared index serves (STORE_QUERY_SHAPES, see global-setup.js) fails the run.
 * 3. Stops the private nats-server that global-setup started, if it started one.
 */
const fs = require("node:fs");
const path = require("node:path");

/** Passwords and credentials the suites send (test/support/platform.ts, test/orchestrator/...). */
const FIXED_SECRETS = ["admin-test-password", "orchestrator-secret-9f8e", "nso-pass-77"];

function checkLogs(run) {
  const log = path.join(run, "run.log");
  const text = fs.existsSync(log) ? fs.readFileSync(log, "utf8") : "";
  const registry = path.join(run, "secrets.txt");
  const tokens = fs.existsSync(registry) ? fs.readFileSync(registry, "utf8").split("\n").filter(Boolean) : [];
  const secrets = [...new Set([...FIXED_SECRETS, ...tokens])];
  const lines = text.split("\n").filter(Boolean);
  const found = secrets.filter((secret) => text.includes(secret));
  fs.rmSync(run, { recursive: true, force: true });
  if (found.length > 0)
    throw new Error(
      `${found.length} secret(s) of the test run found in its log (${lines.length} lines): ` +
        found.map((s) => `${s.slice(0, 4)}...`).join(", "),
    );
  console.log(
    `\nLog check: ${lines.length} log lines of the run hold none of its ${secrets.length} secrets.`,
  );
}

function checkQueryShapes(run) {
  const file = path.join(run, "unindexed-queries.jsonl");
  const lines = fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").filter(Boolean) : [];
  const shapes = [...new Set(lines)];
  if (shapes.length > 0)
    throw new Error(
      `${shapes.length} query shape(s) of the run no declared index serves ` +
        `(declare one in the service's indexes, or list the collection in SCANNED_COLLECTIONS):\n` +
        shapes.join("\n"),
    );
  console.log("Index check: every query of the run is served by a declared index.");
}

module.exports = async function globalTeardown() {
  const pid = globalThis.__PRIVATE_NATS__;
  if (pid) {
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      /* already gone */
    }
  }
  const run = globalThis.__RUN_DIR__;
  if (run) {
    // Loggers flush every 200 ms; the last brokers have just stopped.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const shapes = (() => {
      try {
        checkQueryShapes(run);
        return undefined;
      } catch (err) {
        return err;
      }
    })();
    checkLogs(run);
    if (shapes) throw shapes;
  }
};
