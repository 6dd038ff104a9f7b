/** Stops the private nats-server that global-setup started, if it started one. */
module.exports = async function globalTeardown() {
  const pid = globalThis.__PRIVATE_NATS__;
  if (pid) {
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      /* already gone */
    }
  }
};
