/** Whether testcontainers finds a Docker engine; asked in a child so that callers can stay synchronous. */
const { spawnSync } = require("node:child_process");
const path = require("node:path");

function dockerAvailable() {
  const probe =
    "require('testcontainers').getContainerRuntimeClient().then(() => process.exit(0), () => process.exit(1))";
  const res = spawnSync(process.execPath, ["-e", probe], {
    cwd: path.resolve(__dirname, "../.."),
    stdio: "ignore",
    timeout: 30_000,
  });
  return res.status === 0;
}

const SKIP_BANNER = [
  "",
  "=".repeat(100),
  "  CONTAINER SUITE SKIPPED: no Docker engine is reachable (testcontainers found none).",
  "  Nothing ran against NATS and MongoDB containers. Run `npm run test:containers` where Docker runs",
  "  (DOCKER_HOST, or /var/run/docker.sock) to test every service in its own broker on MongoDB.",
  "=".repeat(100),
  "",
].join("\n");

module.exports = { dockerAvailable, SKIP_BANNER };
