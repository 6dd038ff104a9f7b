/**
 * The container suite's global setup: NATS (with JetStream) and MongoDB 7 in containers, then the
 * usual setup (builds dist/; finds this NATS). The suites see NATS_URL, MONGO_URL and
 * TEST_TOPOLOGY=split, so startPlatform() runs each service in a broker of its own on MongoDB.
 */
const baseSetup = require("../support/global-setup");

module.exports = async function containersSetup() {
  const { GenericContainer, Wait } = require("testcontainers");
  console.log("\ncontainer suite: starting nats:2.10 and mongo:7 containers");
  const [nats, mongo] = await Promise.all([
    new GenericContainer("nats:2.10")
      .withCommand(["-js"])
      .withExposedPorts(4222)
      .withWaitStrategy(Wait.forLogMessage(/Server is ready/))
      .start(),
    new GenericContainer("mongo:7")
      .withExposedPorts(27017)
      .withWaitStrategy(Wait.forLogMessage(/Waiting for connections/))
      .start(),
  ]);
  globalThis.__CONTAINERS__ = [nats, mongo];
  process.env.NATS_URL = `nats://${nats.getHost()}:${nats.getMappedPort(4222)}`;
  process.env.MONGO_URL = `mongodb://${mongo.getHost()}:${mongo.getMappedPort(27017)}/?directConnection=true`;
  process.env.TEST_TOPOLOGY = "split";
  console.log(`container suite: NATS ${process.env.NATS_URL}, MongoDB ${process.env.MONGO_URL}`);
  await baseSetup();
};
