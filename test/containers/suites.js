/**
 * The HTTP suites the container suite (`npm run test:containers`) runs with every service in a
 * broker of its own, over NATS, on MongoDB. Each starts the whole platform with startPlatform() and
 * reaches it over HTTP or through the gateway's broker (which calls across the bus).
 * Then the store contract (on the replica set: MONGO_URL) and the suites that build their own
 * topology, the replica, fault and scheduler suites: with TEST_STORE=mongo every broker and child
 * process they start stores on the replica set (test/support/container-store.ts).
 * Left out: suites of files, not HTTP (deploy, unit, shared, store durability), and the bus suites
 * (test/nats, test/gateway/events), whose subject is NATS, not the store.
 */
const http = [
  "test/accounts/accounts.test.ts",
  "test/gateway/http.test.ts",
  "test/gateway/roles.test.ts",
  "test/gateway/operations.test.ts",
  "test/gateway/framework-errors.test.ts",
  "test/catalog/forms.test.ts",
  "test/catalog/prebuilts.test.ts",
  "test/catalog/profiles.test.ts",
  "test/catalog/adapters.test.ts",
  "test/engine/workflows.test.ts",
  "test/engine/catalog.test.ts",
  "test/engine/job-query.test.ts",
  "test/engine/run.test.ts",
  "test/engine/end-to-end.test.ts",
  "test/engine/metrics.test.ts",
  "test/search/search.test.ts",
  "test/orchestrator/proxy.test.ts",
  "test/orchestrator/devices.test.ts",
  "test/orchestrator/health.test.ts",
  "test/orchestrator/workflow-tasks.test.ts",
  "test/security/bounds.test.ts",
  "test/security/nulls.test.ts",
  "test/security/sessions.test.ts",
  "test/security/fuzz.test.ts",
];

/** The store contract (MONGO_URL) and the suites that start their own brokers and processes. */
const ownTopology = [
  "test/store/contract.test.ts",
  "test/scheduler/replicas.test.ts",
  "test/scheduler/schedules.test.ts",
  "test/scheduler/triggers.test.ts",
  "test/engine/fault.test.ts",
  "test/catalog/profile-replicas.test.ts",
];

module.exports = [...http, ...ownTopology];
module.exports.http = http;
module.exports.ownTopology = ownTopology;
