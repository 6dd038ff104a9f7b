/** Stops the container suite's NATS and MongoDB containers (testcontainers' reaper would, later). */
const baseTeardown = require("../support/global-teardown");

module.exports = async function containersTeardown() {
  await Promise.allSettled((globalThis.__CONTAINERS__ ?? []).map((c) => c.stop()));
  await baseTeardown();
};
