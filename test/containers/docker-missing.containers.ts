/**
 * What `npm run test:containers` runs where no Docker engine answers (jest.containers.config.js):
 * a loud message and a skipped suite, so the skip shows in the summary, never a silent pass.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { SKIP_BANNER } = require("./docker");

console.warn(SKIP_BANNER);

describe.skip("container suite SKIPPED: no Docker engine is reachable", () => {
  test("NATS and MongoDB containers; the HTTP suites with every service in its own broker, on MongoDB", () => {
    // Runs only where Docker does: jest.containers.config.js.
  });
});
