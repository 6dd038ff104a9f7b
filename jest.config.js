/** Jest: TypeScript through SWC (type checking is `npm run lint`'s job). */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  transform: { "^.+\\.ts$": ["@swc/jest", { jsc: { target: "es2022" } }] },
  globalSetup: "<rootDir>/test/support/global-setup.js",
  globalTeardown: "<rootDir>/test/support/global-teardown.js",
  testTimeout: 30000,
  // One test file at a time (the suites share the machine's NATS and time their own work), in a
  // worker that is replaced once a file leaves it holding more than this: each file loads the
  // platform's modules afresh in a context of its own, and the contexts of the files before stay
  // reachable (Node and V8's, not the platform's: a heap snapshot shows them held by V8's eternal
  // handles), about 35 MB a file; in one process (--runInBand) the run passed 3 GB and ran out of
  // heap. Setting a memory limit is what makes Jest use a worker even for one (see shouldRunInBand).
  maxWorkers: 1,
  workerIdleMemoryLimit: "1GB",
};
