/**
 * One suite, two shapes: the same HTTP tests run against
 *  - "in-process": every service on one broker, no transporter (the embedded default);
 *  - "over NATS": the gateway on one broker and the services spread over others, joined by a real
 *    NATS, with the embedded store served to them by the `store` service (the multi-process shape).
 */
import { randomUUID } from "node:crypto";
import { startPlatform, tempDir, type Platform } from "./platform";

export type Shape = "in-process" | "over NATS";
export const SHAPES: Shape[] = ["in-process", "over NATS"];

export interface ShapeOptions {
  /** Service groups, one broker each, for the NATS shape (the gateway gets its own broker). */
  groups?: string[][];
  env?: Record<string, string>;
}

const DEFAULT_GROUPS = [
  ["store", "accounts", "profiles"],
  ["forms", "adapters", "prebuilts", "search", "engine"],
  ["configuration", "scheduler", "devices"],
];

/** A platform in some shape: `broker` and `baseUrl` are the gateway's; `members` every broker (gateway last). */
export type ShapePlatform = Platform & { members: Platform[] };

/** Starts a platform in the given shape; `stop` stops every broker. */
export async function startShape(shape: Shape, options: ShapeOptions = {}): Promise<ShapePlatform> {
  if (shape === "in-process") {
    const platform = await startPlatform({ env: options.env });
    return { ...platform, members: [platform] };
  }
  const env = {
    TRANSPORTER: process.env.NATS_URL!,
    NAMESPACE: `s-${randomUUID().slice(0, 8)}`,
    ...options.env,
  };
  const dataDir = tempDir();
  const members: Platform[] = [];
  for (const services of options.groups ?? DEFAULT_GROUPS)
    members.push(await startPlatform({ services, env, dataDir }));
  const gateway = await startPlatform({ services: ["gateway"], env });
  members.push(gateway);
  const all = (options.groups ?? DEFAULT_GROUPS).flat().filter((s) => s !== "store");
  // Every member, not only the gateway: a service started after another broker's may reach that
  // broker's registry a moment later (the engine calling `scheduler.workflowUsers` found it
  // unregistered about 1 s after the gateway saw it). Polled every 20 ms, not every second.
  await Promise.all(members.map((member) => member.broker.waitForServices(all, 15_000, 20)));
  return {
    ...gateway,
    dataDir,
    members,
    // Gateway first, so no request reaches a half-stopped cluster; the store's owner last.
    stop: async () => {
      for (const member of [...members].reverse()) await member.stop();
    },
  };
}

/** Runs `suite` once per shape; `platform()` gives the running platform inside the tests. */
export function describeInBothShapes(
  title: string,
  suite: (platform: () => ShapePlatform) => void,
  options: ShapeOptions = {},
): void {
  describe.each(SHAPES)(`${title} (%s)`, (shape) => {
    let running: ShapePlatform | undefined;
    beforeAll(async () => {
      running = await startShape(shape, options);
    }, 60_000);
    afterAll(async () => {
      await running?.stop();
    });
    suite(() => {
      if (!running) throw new Error("platform not started");
      return running;
    });
  });
}
