/**
 * autocannon for creates: every request's body and header values get a fresh id in place of
 * `[<id>]`, so each create names a new resource (and may carry a key of its own) (autocannon's own -I sends nothing in the version installed here). Runs as
 * its own process, like the CLI, and prints autocannon's JSON result on stdout.
 *   node write-load.js '{"url", "connections", "durationS", "headers", "method", "body"}'
 */
// autocannon ships no types; the one call below is all this file needs of it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require("autocannon") as (
  options: Record<string, unknown>,
  done: (err: Error | null, result: unknown) => void,
) => unknown;

const spec = JSON.parse(process.argv[2] ?? "{}") as {
  url: string;
  connections: number;
  durationS: number;
  headers: Record<string, string>;
  method: string;
  body: string;
};

let n = 0;
const prefix = `${process.pid}-${Date.now().toString(36)}`;
autocannon(
  {
    url: spec.url,
    connections: spec.connections,
    duration: spec.durationS,
    requests: [
      {
        method: spec.method as "POST",
        headers: spec.headers,
        setupRequest: (req: Record<string, unknown>) => {
          const id = `${prefix}-${n++}`;
          return {
            ...req,
            // The same id in a header (an Idempotency-Key per create) as in the body.
            headers: Object.fromEntries(
              Object.entries(spec.headers).map(([k, v]) => [k, v.replace("[<id>]", id)]),
            ),
            body: spec.body.replace("[<id>]", id),
          };
        },
      },
    ],
  },
  (err: Error | null, result: unknown) => {
    if (err) {
      console.error(err.message);
      process.exit(1);
    }
    process.stdout.write(JSON.stringify(result));
  },
);
