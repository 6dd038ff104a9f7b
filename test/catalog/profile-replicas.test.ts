/**
 * Two replicas of the profiles service over a real NATS, sharing one store: activations sent to
 * both at once still leave exactly one active profile, both replicas name the same one, every
 * activation is broadcast as `profiles.activated`, and the gateway follows it. (Only the NATS
 * shape can run two replicas, so this suite has one shape.)
 */
import { call } from "../../shared/contracts";
import { PROFILE_ACTIVATED_EVENT, type ProfileActivatedEvent } from "../../shared/contracts/events";
import { startShape, type ShapePlatform } from "../support/shapes";
import { tempDir } from "../support/platform";
import { eventually } from "../support/processes";
import { adminClient, listenersKnown, type Client } from "../support/catalog";

// Every broker of the cluster uses this one store.
const dataDir = tempDir("catalog-replicas-");

describe("profiles with two replicas (over NATS)", () => {
  let platform: ShapePlatform;
  let admin: Client;
  let replicas: string[];
  const heard: ProfileActivatedEvent[] = [];

  beforeAll(async () => {
    platform = await startShape("over NATS", {
      groups: [["store", "accounts", "profiles"], ["profiles"]],
      env: { DATA_DIR: dataDir },
    });
    platform.broker.createService({
      name: "activation-spy",
      events: {
        [PROFILE_ACTIVATED_EVENT]: (ctx: { params: ProfileActivatedEvent }) => void heard.push(ctx.params),
      },
    });
    // The cluster has formed once every node knows the gateway's broker listens for activations.
    await eventually(
      async () => listenersKnown(platform, platform.broker, PROFILE_ACTIVATED_EVENT),
      20_000,
      "every node to know the gateway's listeners",
    );
    admin = await adminClient(platform);
    replicas = platform.members
      .filter((m) => m.config.services?.includes("profiles"))
      .map((m) => m.broker.nodeID);
    expect(replicas).toHaveLength(2);
    for (const id of ["alpha", "beta", "gamma", "delta"]) {
      const reply = await admin.post("/profiles", {
        properties: { id, authenticationProps: { cookieName: `${id}-session` } },
      });
      expect(reply.status).toBe(200);
    }
  }, 60_000);
  afterAll(() => platform?.stop());

  const activeOn = (nodeID: string) => call(platform.broker, "profiles.active", {}, { nodeID });

  test("the first profile created is active on both replicas, and was announced", async () => {
    for (const nodeID of replicas) expect((await activeOn(nodeID))!.id).toBe("alpha");
    await eventually(async () => heard.length > 0, 10_000, "the announcement");
    expect(heard).toEqual([{ id: "alpha", cookieName: "alpha-session", uniqueSession: false }]);
  });

  test("concurrent activations on both replicas leave exactly one active profile", async () => {
    const ids = ["beta", "gamma", "delta", "alpha", "gamma", "beta", "delta", "gamma"];
    const results = await Promise.all(
      ids.map((id, i) => call(platform.broker, "profiles.activate", { id }, { nodeID: replicas[i % 2] })),
    );
    expect(results.map((r) => r.data.id)).toEqual(ids);

    const listed = (await admin.get("/profiles")).body.results
      .map((r: { profile: { active: boolean } }) => r.profile)
      .filter((p: { active: boolean }) => p.active);
    expect(listed).toHaveLength(1);
    const winner = listed[0].id;
    for (const nodeID of replicas) expect((await activeOn(nodeID))!.id).toBe(winner);
  });

  test("an activation on one replica is what the other answers, and what the gateway follows", async () => {
    const gateway = platform.broker.getLocalService("gateway") as unknown as { cookieName(): string };
    for (const [id, via, other] of [
      ["gamma", replicas[0], replicas[1]],
      ["delta", replicas[1], replicas[0]],
    ]) {
      await call(platform.broker, "profiles.activate", { id }, { nodeID: via });
      expect((await activeOn(other))!.id).toBe(id);
      await eventually(async () => gateway.cookieName() === `${id}-session`, 10_000, `the ${id} cookie name`);
      expect(heard.at(-1)).toEqual({ id, cookieName: `${id}-session`, uniqueSession: false });
    }
  });
});
