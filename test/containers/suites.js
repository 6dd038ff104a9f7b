/**
 * The HTTP suites the container suite (`npm run test:containers`) runs with every service in a
 * broker of its own, over NATS, on MongoDB. Each starts the whole platform with startPlatform() and
 * reaches it over HTTP or through the gateway's broker (which calls across the bus).
 * Left out: suites that build their own topology or need a service in the test's broker (the
 * scheduler's fake clock: test/scheduler; replicas: test/nats, test/catalog/profile-replicas,
 * test/gateway/events, test/engine/fault), the store contract (it runs on MongoDB by itself when
 * Docker answers), and suites of files, not HTTP (deploy, unit, shared, store durability).
 */
module.exports = [
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
