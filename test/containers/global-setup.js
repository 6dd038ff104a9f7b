/**
 * The container suite's global setup: NATS (with JetStream) and MongoDB 7 as a one-node replica set
 * in containers, then the usual setup (builds dist/; finds this NATS). The suites see NATS_URL,
 * MONGO_URL, TEST_TOPOLOGY=split (startPlatform() runs each service in a broker of its own on
 * MongoDB) and TEST_STORE=mongo (platforms a suite starts itself store on MongoDB too).
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
    // A one-node replica set, as production runs (docs/deployment.md#mongodb): majority writes,
    // retryable writes and transactions exist only there.
    new GenericContainer("mongo:7")
      .withCommand(["--replSet", "rs0", "--bind_ip_all"])
      .withExposedPorts(27017)
      .withWaitStrategy(Wait.forLogMessage(/Waiting for connections/))
      .start(),
  ]);
  globalThis.__CONTAINERS__ = [nats, mongo];
  await initiateReplicaSet(mongo);
  process.env.NATS_URL = `nats://${nats.getHost()}:${nats.getMappedPort(4222)}`;
  // directConnection: the member's own name (localhost:27017 inside the container) is not reachable
  // from here, the mapped port is; the one member is the primary the driver talks to.
  process.env.MONGO_URL = `mongodb://${mongo.getHost()}:${mongo.getMappedPort(27017)}/?replicaSet=rs0&directConnection=true`;
  process.env.TEST_TOPOLOGY = "split";
  // Suites that start their own topology (replicas, faults, the scheduler) store on it too.
  process.env.TEST_STORE = "mongo";
  console.log(`container suite: NATS ${process.env.NATS_URL}, MongoDB ${process.env.MONGO_URL}`);
  await baseSetup();
};

/** rs.initiate on the container's mongod, then waits until it is primary. */
async function initiateReplicaSet(mongo) {
  const init = await mongo.exec([
    "mongosh",
    "--quiet",
    "--eval",
    'rs.initiate({ _id: "rs0", members: [{ _id: 0, host: "localhost:27017" }] }).ok',
  ]);
  if (init.exitCode !== 0) throw new Error(`rs.initiate failed: ${init.output}`);
  for (const until = Date.now() + 30_000; ;) {
    const hello = await mongo.exec(["mongosh", "--quiet", "--eval", "db.hello().isWritablePrimary"]);
    if (hello.output.trim().endsWith("true")) return;
    if (Date.now() > until) throw new Error(`replica set rs0 has no primary: ${hello.output}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
