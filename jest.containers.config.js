/**
 * `npm run test:containers`: NATS and MongoDB in containers (testcontainers), and the HTTP suites of
 * test/containers/suites.js with every service in a broker of its own, on MongoDB
 * (test/support/platform.ts, TEST_TOPOLOGY=split). Where no Docker engine answers it says so loudly
 * and runs a skipped suite instead (test/containers/docker-missing.containers.ts). Not part of
 * `npm test`, whose jest.config.js only matches *.test.ts.
 */
const base = require("./jest.config");
const suites = require("./test/containers/suites");
const { dockerAvailable, SKIP_BANNER } = require("./test/containers/docker");

const docker = dockerAvailable();
if (!docker) process.stderr.write(SKIP_BANNER + "\n");

module.exports = docker
  ? {
      ...base,
      testMatch: suites.map((suite) => `<rootDir>/${suite}`),
      globalSetup: "<rootDir>/test/containers/global-setup.js",
      globalTeardown: "<rootDir>/test/containers/global-teardown.js",
      // A dozen brokers per platform over a real bus: slower to start than one.
      testTimeout: 120_000,
    }
  : {
      ...base,
      testMatch: ["<rootDir>/test/containers/docker-missing.containers.ts"],
      globalSetup: undefined,
      globalTeardown: undefined,
    };
