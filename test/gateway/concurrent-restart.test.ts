/**
 * Concurrent restarts of one service (docs/operations-guide.md#restarting-a-service): a restart
 * that arrives while another of the same service is under way on that node answers 409 at once;
 * the node never runs more instances of the service than were deployed, and later restarts work.
 */
import { expectError, usePlatform } from "../support/platform";

const env = usePlatform();

/** Instances of `name` this broker runs, and the replicas the registry shows for it. */
async function instances(name: string) {
  const local = env.platform.broker.services.filter((s) => s.name === name).length;
  const { body } = await env.admin.get(`/applications/${name}`);
  return { local, replicas: body.replicas };
}

test.each(["forms", "accounts"])(
  "two restarts of %s at once: one 200, one 409; exactly the deployed instances run",
  async (name) => {
    expect(await instances(name)).toEqual({ local: 1, replicas: 1 });
    const replies = await Promise.all([
      env.admin.put(`/applications/${name}/restart`),
      env.admin.put(`/applications/${name}/restart`),
    ]);
    const statuses = replies.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409]);
    const refused = replies.find((r) => r.status === 409)!;
    expect(expectError(refused, 409, "CONFLICT").message).toContain("already under way");
    expect(await instances(name)).toEqual({ local: 1, replicas: 1 });

    // Later restarts work, one at a time, and still leave one instance.
    for (let i = 0; i < 2; i++)
      expect((await env.admin.put(`/applications/${name}/restart`)).status).toBe(200);
    expect(await instances(name)).toEqual({ local: 1, replicas: 1 });
  },
);

test("many restarts at once: one runs, the rest are refused, one instance is left and it answers", async () => {
  const replies = await Promise.all(
    Array.from({ length: 5 }, () => env.admin.put("/applications/forms/restart")),
  );
  expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
  for (const r of replies.filter((r) => r.status !== 200)) expectError(r, 409, "CONFLICT");
  expect(await instances("forms")).toEqual({ local: 1, replicas: 1 });
  expect((await env.admin.get("/service_catalog/GetForms")).status).toBe(200);
});
