/**
 * Operation 15 (POST /mop/deviceObjects) over HTTP: devices of orchestrator adapters (legacy REST
 * and RESTCONF lists, device groups) and of an inventory adapter, mapped to the spec's Device
 * object; filter, entity, sort and paging; an adapter that fails, times out or is stopped is left
 * out and named in X-Failed-Adapters, and when every adapter asked failed the lookup fails naming
 * them (503, 504 or 502); the inventory adapter's devices managed over HTTP.
 */
import { expectError, usePlatform } from "../support/platform";
import { startOrchestrator, type TestOrchestrator } from "../support/orchestrator";

const env = usePlatform({ env: { DEVICE_LOOKUP_TIMEOUT_MS: "700" } });
let orch: TestOrchestrator;

const adapter = (name: string, type: string, settings: Record<string, unknown>) => ({
  properties: { name, type: "Application", properties: { id: name, type, properties: settings } },
});

const lookup = (options: Record<string, unknown>) => env.admin.post("/mop/deviceObjects", { options });

beforeAll(async () => {
  orch = await startOrchestrator();
  const base = { host: "127.0.0.1", port: orch.port, username: "admin", password: "nso-pass-77" };
  for (const body of [
    adapter("nso", "NSO", base),
    adapter("nso-rc", "NSO", {
      ...base,
      devicesPath: "/restconf/data/tailf-ncs:devices",
      deviceGroupsPath: "/missing",
    }),
    adapter("slow-nso", "NSO", { ...base, devicesPath: "/slow", timeout: 5000 }),
    adapter("down", "NSO", { ...base, port: 1, timeout: 2000 }),
    adapter("lab", "Inventory", {}),
    adapter("aaa", "local_aaa", { host: "10.0.0.1" }),
  ])
    expect((await env.admin.post("/adapters", body)).status).toBe(200);
  for (const [name, address] of [
    ["rtr-lab-2", "10.9.0.2"],
    ["rtr-lab-1", "10.9.0.1"],
  ]) {
    const put = await env.admin.put(`/adapters/lab/devices/${name}`, {
      address,
      port: 22,
      authgroup: "lab",
      "device-type": "cli",
      ned: "cisco-ios-cli-6.42",
      groups: ["lab", "lab"],
    });
    expect(put.status).toBe(200);
  }
});

afterAll(() => orch?.close());

describe("device lookup (operation 15)", () => {
  test("gathers every adapter's devices, mapped to the spec's Device object; failures are named", async () => {
    const reply = await lookup({ limit: 100 });
    expect(reply.status).toBe(200);
    expect(reply.body.map((d: any) => `${d.host}/${d.name}`)).toEqual([
      "nso/ce0",
      "nso-rc/ce0",
      "nso/pe1",
      "nso-rc/pe1",
      "lab/rtr-lab-1",
      "lab/rtr-lab-2",
    ]);
    expect(reply.body[0]).toEqual({
      name: "ce0",
      address: "127.0.0.1",
      port: "10022",
      authgroup: "default",
      "device-type": "cli",
      ned: "cisco-ios-cli-6.42",
      admin: true,
      host: "nso",
      groups: [],
    });
    const pe1 = reply.body.find((d: any) => d.host === "nso" && d.name === "pe1");
    expect(pe1).toMatchObject({
      "device-type": "netconf",
      ned: "juniper-junos-nc-4.6",
      admin: false,
      groups: ["core"],
    });
    // nso-rc's group path answers 404: its devices come without groups, the lookup does not fail.
    expect(reply.body.find((d: any) => d.host === "nso-rc" && d.name === "pe1").groups).toEqual([]);
    expect(reply.body[4]).toEqual({
      name: "rtr-lab-1",
      address: "10.9.0.1",
      port: "22",
      authgroup: "lab",
      "device-type": "cli",
      ned: "cisco-ios-cli-6.42",
      admin: true,
      host: "lab",
      groups: ["lab"],
    });
    expect(reply.headers.get("x-failed-adapters")).toBe("down (BAD_GATEWAY), slow-nso (REQUEST_TIMEOUT)");
    expect(JSON.stringify(reply.body)).not.toContain("nso-pass-77");
  });

  test("filter is a case-insensitive substring of the name; entity narrows to one adapter", async () => {
    const ce = await lookup({ filter: "CE" });
    expect(ce.body.map((d: any) => `${d.host}/${d.name}`)).toEqual(["nso/ce0", "nso-rc/ce0"]);
    const lab = await lookup({ entity: "lab" });
    expect(lab.status).toBe(200);
    expect(lab.body.map((d: any) => d.name)).toEqual(["rtr-lab-1", "rtr-lab-2"]);
    expect(lab.headers.get("x-failed-adapters")).toBeNull();
    expect((await lookup({ entity: "nso", filter: "zzz" })).body).toEqual([]);
  });

  test("sort by name descending, then start and limit page the sorted list", async () => {
    const all = await lookup({ entity: "nso", sort: [{ name: -1 }] });
    expect(all.body.map((d: any) => d.name)).toEqual(["pe1", "ce0"]);
    const page = await lookup({ sort: [{ name: 1 }], start: 1, limit: 2 });
    expect(page.body.map((d: any) => `${d.host}/${d.name}`)).toEqual(["nso-rc/ce0", "nso/pe1"]);
  });

  test("an entity that names no adapter is 404; one that cannot list devices is 400", async () => {
    expectError(await lookup({ entity: "nope" }), 404, "NOT_FOUND");
    const other = expectError(await lookup({ entity: "aaa" }), 400, "VALIDATION_ERROR");
    expect(other.data[0].field).toBe("options.entity");
  });

  test("a stopped adapter among others is left out and named; started again, its devices are back", async () => {
    expect((await env.admin.put("/adapters/nso/stop")).status).toBe(200);
    const partial = await lookup({ filter: "ce0" });
    expect(partial.status).toBe(200);
    expect(partial.body.map((d: any) => `${d.host}/${d.name}`)).toEqual(["nso-rc/ce0"]);
    // `down` has failed often enough by now that its circuit may be open.
    expect(partial.headers.get("x-failed-adapters")).toMatch(
      /^down \((BAD_GATEWAY|CIRCUIT_OPEN)\), nso \(ADAPTER_STOPPED\), slow-nso \(REQUEST_TIMEOUT\)$/,
    );
    expect((await env.admin.put("/adapters/nso/start")).status).toBe(200);
    expect((await lookup({ entity: "nso" })).body).toHaveLength(2);
  });

  test("the only adapter asked is stopped: 503 ADAPTER_STOPPED naming it, not 200 []", async () => {
    expect((await env.admin.put("/adapters/nso/stop")).status).toBe(200);
    try {
      const body = expectError(await lookup({ entity: "nso" }), 503, "ADAPTER_STOPPED");
      expect(body.message).toContain("nso (ADAPTER_STOPPED)");
      expect(body.data).toEqual({
        adapters: [{ adapter: "nso", reason: "ADAPTER_STOPPED" }],
        requestId: expect.any(String),
      });
    } finally {
      expect((await env.admin.put("/adapters/nso/start")).status).toBe(200);
    }
  });

  test("the only adapter asked fails: 502 naming it; times out: 504 naming it", async () => {
    const down = expectError(await lookup({ entity: "down" }), 502, "BAD_GATEWAY");
    expect(down.data.adapters).toEqual([
      { adapter: "down", reason: expect.stringMatching(/^(BAD_GATEWAY|CIRCUIT_OPEN)$/) },
    ]);
    expect(JSON.stringify(down)).not.toContain("nso-pass-77");
    const slow = expectError(await lookup({ entity: "slow-nso" }), 504, "TIMEOUT");
    expect(slow.data.adapters).toEqual([{ adapter: "slow-nso", reason: "REQUEST_TIMEOUT" }]);
  });
});

describe("inventory adapter devices", () => {
  test("PUT replaces a device; GET lists them; DELETE removes one, 404 the second time", async () => {
    const replaced = await env.admin.put("/adapters/lab/devices/rtr-lab-2", {
      address: "10.9.9.2",
      admin: false,
    });
    expect(replaced.body).toEqual({
      name: "rtr-lab-2",
      address: "10.9.9.2",
      port: "",
      authgroup: "",
      "device-type": "",
      ned: "",
      admin: false,
      host: "lab",
      groups: [],
    });
    const listed = await env.admin.get("/adapters/lab/devices");
    expect(listed.body).toEqual({ results: expect.any(Array), total: 2, skip: 0, limit: 25 });
    expect(listed.body.results.map((d: any) => [d.name, d.address])).toEqual([
      ["rtr-lab-1", "10.9.0.1"],
      ["rtr-lab-2", "10.9.9.2"],
    ]);
    const second = await env.admin.get("/adapters/lab/devices?skip=1&limit=1");
    expect(second.body).toEqual({
      results: [expect.objectContaining({ name: "rtr-lab-2" })],
      total: 2,
      skip: 1,
      limit: 1,
    });
    expect((await env.admin.get("/adapters/lab/devices?start=1&limit=1")).body).toEqual(second.body);
    await env.admin.put("/adapters/lab/devices/tmp-1", { address: "10.0.0.9" });
    expect((await env.admin.delete("/adapters/lab/devices/tmp-1")).status).toBe(200);
    expectError(await env.admin.delete("/adapters/lab/devices/tmp-1"), 404, "NOT_FOUND");
  });

  test("bad input is 400 naming the field and stores nothing", async () => {
    for (const [body, field] of [
      [{ address: "10.0.0.1", port: 70000 }, "port"],
      [{ port: 22 }, "address"],
      [{ address: "10.0.0.1", groups: "core" }, "groups"],
      [{ address: "x".repeat(300) }, "address"],
    ] as const) {
      const reply = expectError(
        await env.admin.put("/adapters/lab/devices/bad-1", body),
        400,
        "VALIDATION_ERROR",
      );
      expect(reply.data.map((e: any) => e.field)).toContain(field);
    }
    expect((await env.admin.get("/adapters/lab/devices")).body.results.map((d: any) => d.name)).not.toContain(
      "bad-1",
    );
  });

  test("only an inventory adapter keeps devices: 400 for another type, 404 for none", async () => {
    expectError(
      await env.admin.put("/adapters/nso/devices/x", { address: "10.0.0.1" }),
      400,
      "VALIDATION_ERROR",
    );
    expectError(await env.admin.put("/adapters/nope/devices/x", { address: "10.0.0.1" }), 404, "NOT_FOUND");
    expectError(await env.admin.get("/adapters/nope/devices"), 404, "NOT_FOUND");
  });

  test("a deleted and re-created inventory adapter starts with no devices", async () => {
    expect((await env.admin.post("/adapters", adapter("lab-2", "inventory", {}))).status).toBe(200);
    await env.admin.put("/adapters/lab-2/devices/sw-1", { address: "10.1.1.1" });
    expect((await env.admin.delete("/adapters/lab-2")).status).toBe(200);
    expect((await env.admin.post("/adapters", adapter("lab-2", "inventory", {}))).status).toBe(200);
    expect((await env.admin.get("/adapters/lab-2/devices")).body.results).toEqual([]);
    expect((await lookup({ entity: "lab-2" })).body).toEqual([]);
  });

  test("an adapter-deleted event without an id removes no device (never a match-all)", async () => {
    const before = (await env.admin.get("/adapters/lab/devices")).body;
    expect(before.results.length).toBeGreaterThan(0);
    for (const params of [{}, { id: undefined, name: "lab" }, { id: "" }])
      await env.platform.broker.broadcastLocal("adapters.deleted", params);
    expect((await env.admin.get("/adapters/lab/devices")).body).toEqual(before);
  });
});
