/**
 * Forms over HTTP, in both shapes: create/read/delete (docs/platform-rules.md#supporting-operations), GetForms
 * (operation 3) with groups expanded, and preserveFormData (operation 7) with every container
 * mutation kind the docs define (docs/catalog.md).
 */
import { randomUUID } from "node:crypto";
import { describeInBothShapes } from "../support/shapes";
import { client, expectError, type Reply } from "../support/platform";
import { adminClient, clientWithRoles, fieldsOf, withStore, type Client } from "../support/catalog";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

const portField = {
  type: "field",
  name: "port",
  properties: { type: "string", prefix: "ge-" },
  description: "Interface",
  element: JSON.stringify({ type: "method", id: { name: "getInterfaces" } }),
  source_type: "method",
  source: "getInterfaces",
  id: "5b0c2f1e-58b4-4c5f-9d8e-2a3b4c5d6e7f",
  yangkey: "interface",
  key: "port",
};

describeInBothShapes("forms", (platform) => {
  let admin: Client;
  let reader: Client; // apiread: may preserve form data, may read, may not write
  let support: Client; // support: none of the form roles
  let netops: { _id: string; name: string };
  let adminId: string;

  beforeAll(async () => {
    admin = await adminClient(platform());
    reader = await clientWithRoles(platform(), admin, ["apiread"]);
    support = await clientWithRoles(platform(), admin, ["support"]);
    netops = (await admin.post("/user-management/groups", { name: "netops", assignedRoles: ["engineering"] }))
      .body;
    adminId = (await admin.get("/whoami")).body.account._id;
  });

  describe("create, read, delete", () => {
    test("create stores the spec's Form document; get answers it", async () => {
      const reply = await admin.post("/formbuilder/forms", {
        name: "Port Turn Up",
        description: "Turn up an access port",
        children: [portField],
        elements: [{ type: "method", id: { name: "getInterfaces" } }],
        groups: [netops._id],
        tags: ["0123456789abcdef01234567"],
      });
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({
        _id: expect.stringMatching(UUID),
        name: "Port Turn Up",
        description: "Turn up an access port",
        tags: ["0123456789abcdef01234567"],
        children: [portField],
        elements: [{ type: "method", id: { name: "getInterfaces" } }],
        groups: [netops._id],
        created: expect.stringMatching(ISO),
        created_by: adminId,
        last_updated: reply.body.created,
        last_updated_by: adminId,
      });
      const read = await admin.get(`/formbuilder/forms/${encodeURIComponent("Port Turn Up")}`);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(reply.body);
    });

    test("groups may be named; they are stored as ids", async () => {
      const reply = await admin.post("/formbuilder/forms", { name: "by-group-name", groups: ["netops"] });
      expect(reply.status).toBe(200);
      expect(reply.body.groups).toEqual([netops._id]);
      expect(reply.body.children).toEqual([]);
      expect(reply.body.elements).toEqual([]);
    });

    test("a duplicate name is a 409 and leaves the first form as it was", async () => {
      const before = (await admin.get("/formbuilder/forms/by-group-name")).body;
      expectError(
        await admin.post("/formbuilder/forms", { name: "by-group-name", children: [] }),
        409,
        "CONFLICT",
      );
      expect((await admin.get("/formbuilder/forms/by-group-name")).body).toEqual(before);
    });

    test.each([
      ["name missing", { children: [] }, "name"],
      ["name with a slash", { name: "a/b" }, "name"],
      ["children not an array", { name: "bad-1", children: { 0: portField } }, "children"],
      ["a child not an object", { name: "bad-2", children: ["port"] }, "children[0]"],
      ["a child's name not a string", { name: "bad-3", children: [{ name: 5 }] }, "children[0].name"],
      [
        "an element's id.name not a string",
        { name: "bad-4", elements: [{ id: { name: 1 } }] },
        "elements[0].id.name",
      ],
      ["an unknown group", { name: "bad-5", groups: ["netops", "no-such-group"] }, "groups[1]"],
    ])("invalid: %s -> 400 naming %s, nothing stored", async (_what, body, field) => {
      const reply = await admin.post("/formbuilder/forms", body);
      expect(expectError(reply, 400, "VALIDATION_ERROR").data).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ field, message: expect.any(String), type: expect.any(String) }),
        ]),
      );
      const name = (body as { name?: string }).name;
      if (name && !name.includes("/"))
        expectError(await admin.get(`/formbuilder/forms/${name}`), 404, "NOT_FOUND");
    });

    test("a form nested deeper than 32 levels is refused", async () => {
      let deep: Record<string, unknown> = { leaf: true };
      for (let i = 0; i < 40; i++) deep = { next: deep };
      const reply = await admin.post("/formbuilder/forms", { name: "too-deep", children: [deep] });
      expectError(reply, 400, "VALIDATION_ERROR");
      expect(fieldsOf(reply)).toEqual(["children"]);
    });

    test("unknown form: get and delete answer 404", async () => {
      expectError(await admin.get("/formbuilder/forms/nope"), 404, "NOT_FOUND");
      expectError(await admin.delete("/formbuilder/forms/nope"), 404, "NOT_FOUND");
    });

    test("roles: apiread may read but not write; support may do neither", async () => {
      expect((await reader.get("/formbuilder/forms/by-group-name")).status).toBe(200);
      expectError(await reader.post("/formbuilder/forms", { name: "by-reader" }), 403, "FORBIDDEN");
      expectError(await reader.delete("/formbuilder/forms/by-group-name"), 403, "FORBIDDEN");
      expectError(await support.get("/formbuilder/forms/by-group-name"), 403, "FORBIDDEN");
      expectError(await admin.get("/formbuilder/forms/by-reader"), 404, "NOT_FOUND");
    });

    test("delete removes the form", async () => {
      expect((await admin.post("/formbuilder/forms", { name: "short-lived" })).status).toBe(200);
      const reply = await admin.delete("/formbuilder/forms/short-lived");
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({ status: "OK", message: expect.stringContaining("short-lived") });
      expectError(await admin.get("/formbuilder/forms/short-lived"), 404, "NOT_FOUND");
      expectError(await admin.delete("/formbuilder/forms/short-lived"), 404, "NOT_FOUND");
    });
  });

  describe("operation 3: GET /service_catalog/GetForms", () => {
    test("a JSON array of form list items, groups expanded to Group objects", async () => {
      const reply = await support.get("/service_catalog/GetForms"); // any signed-in caller
      expect(reply.status).toBe(200);
      expect(Array.isArray(reply.body)).toBe(true);
      const form = (await admin.get(`/formbuilder/forms/${encodeURIComponent("Port Turn Up")}`)).body;
      const item = reply.body.find((f: { name: string }) => f.name === "Port Turn Up");
      expect(item).toEqual({
        _id: form._id,
        id: form._id,
        form_name: "Port Turn Up",
        formid: form._id,
        name: "Port Turn Up",
        description: "Turn up an access port",
        tags: ["0123456789abcdef01234567"],
        children: [portField],
        elements: [{ type: "method", id: { name: "getInterfaces" } }],
        created: form.created,
        createdBy: adminId,
        lastUpdated: form.last_updated,
        lastUpdatedBy: adminId,
        groups: [
          {
            _id: netops._id,
            provenance: "local",
            name: "netops",
            description: "",
            memberOf: [],
            assignedRoles: ["engineering"],
            inactive: false,
            _meta: { created: expect.stringMatching(ISO), updated: expect.stringMatching(ISO) },
          },
        ],
      });
      expect(reply.body.map((f: { name: string }) => f.name)).toEqual(
        [...reply.body.map((f: { name: string }) => f.name)].sort(),
      );
    });

    test("a group id that no longer exists is left out, not an error", async () => {
      // No operation deletes groups, so the dangling reference is written straight to the store.
      await withStore(platform(), (store) =>
        store.collection("forms").insertOne({
          _id: randomUUID(),
          name: "orphaned-groups",
          description: "",
          tags: [],
          children: [],
          elements: [],
          groups: [randomUUID(), netops._id],
          created: "2026-01-01T00:00:00.000Z",
          created_by: adminId,
          last_updated: "2026-01-01T00:00:00.000Z",
          last_updated_by: adminId,
        }),
      );
      const reply = await admin.get("/service_catalog/GetForms");
      expect(reply.status).toBe(200);
      const item = reply.body.find((f: { name: string }) => f.name === "orphaned-groups");
      expect(item.groups.map((g: { _id: string }) => g._id)).toEqual([netops._id]);
    });

    test("no credentials: 401", async () => {
      expectError(await client(platform().baseUrl).get("/service_catalog/GetForms"), 401, "UNAUTHORIZED");
    });
  });

  describe("operation 7: POST /formbuilder/preserveFormData", () => {
    /** The reference: every kind of container, nested. */
    const reference = {
      name: "containers",
      children: [
        {
          ...portField,
          rows: [
            [1, 2],
            [3, 4],
          ],
          settings: { vlan: { id: 10, tags: ["a", "b"] }, mtu: 9000 },
          emptyList: [],
          emptyMap: {},
          choices: ["x", "y"],
        },
        { type: "field", name: "second" },
      ],
    };
    const preserve = (c: Client, data: unknown) =>
      c.post("/formbuilder/preserveFormData", { form_name: "containers", data });

    beforeAll(async () => {
      expect((await admin.post("/formbuilder/forms", reference)).status).toBe(200);
    });

    test("data that kept its containers comes back unchanged", async () => {
      const data = { name: "containers", children: reference.children };
      const reply = await preserve(admin, data);
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual(data);
    });

    test("an array turned into an object with index keys is an array again, in index order", async () => {
      const reply = await preserve(reader, {
        name: "containers",
        children: { "1": reference.children[1], "0": reference.children[0] },
      });
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({ name: "containers", children: reference.children });
    });

    test("index order is numeric: '10' comes after '9', not after '1'", async () => {
      const twelve = Array.from({ length: 12 }, (_, i) => `v${i}`);
      const keyed = Object.fromEntries(
        twelve.map((v, i) => [String(i), v]).sort(([a], [b]) => (a < b ? -1 : 1)), // "0","1","10","11","2"...
      );
      const child = { ...reference.children[0], choices: keyed };
      const reply = await preserve(admin, { children: [child, reference.children[1]] });
      expect(reply.status).toBe(200);
      expect(reply.body.children[0].choices).toEqual(twelve);
    });

    test("an object turned into an array of [key, value] entries is an object again", async () => {
      const child = {
        ...reference.children[0],
        settings: [
          ["vlan", { id: 10, tags: ["a", "b"] }],
          ["mtu", 9000],
        ],
      };
      const reply = await preserve(admin, { children: [child] });
      expect(reply.status).toBe(200);
      expect(reply.body.children[0].settings).toEqual({ vlan: { id: 10, tags: ["a", "b"] }, mtu: 9000 });
    });

    test("an empty array turned into {} is [] again; an empty object turned into [] is {} again", async () => {
      const child = { ...reference.children[0], emptyList: {}, emptyMap: [] };
      const reply = await preserve(admin, { children: [child] });
      expect(reply.status).toBe(200);
      expect(reply.body.children[0].emptyList).toEqual([]);
      expect(reply.body.children[0].emptyMap).toEqual({});
    });

    test("nested: every level is restored, top down", async () => {
      const mutated = {
        name: "containers",
        children: {
          "0": {
            ...reference.children[0],
            rows: { "1": { "1": 4, "0": 3 }, "0": [1, 2] },
            settings: [
              ["vlan", { id: 10, tags: { "1": "b", "0": "a" } }],
              ["mtu", 9000],
            ],
            emptyList: {},
            emptyMap: [],
            choices: { "0": "x", "1": "y" },
          },
          "1": reference.children[1],
        },
      };
      const reply = await preserve(admin, mutated);
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({ name: "containers", children: reference.children });
    });

    test("what is not a known mutation is left as it is", async () => {
      const child = {
        ...reference.children[0],
        choices: { first: "x" }, // an object, but its keys are not indices
        settings: [["vlan"], ["mtu", 9000]], // an array, but not of [key, value] pairs
        rows: "1,2;3,4", // a scalar where the reference has an array
        extra: { "0": "kept" }, // the reference has no such member
      };
      const reply = await preserve(admin, { children: [child] });
      expect(reply.status).toBe(200);
      expect(reply.body.children[0]).toEqual(child);
    });

    test("submitted values: a container field's value is restored by the field's type", async () => {
      // The example: a form whose `ports` field is an array, submitted through a
      // serializer that turned the array into an object with index keys.
      const form = {
        name: "port-values",
        children: [
          { type: "field", name: "ports", properties: { type: "array" } },
          { type: "field", key: "vlans", properties: { type: "object" } },
          { type: "field", name: "description", properties: { type: "string" } },
        ],
      };
      expect((await admin.post("/formbuilder/forms", form)).status).toBe(200);
      const reply = await admin.post("/formbuilder/preserveFormData", {
        form_name: "port-values",
        data: {
          ports: { "1": "Gi0/2", "0": "Gi0/1" },
          vlans: [
            ["10", "users"],
            ["20", "voice"],
          ],
          description: { "0": "kept" }, // a string field: nothing to restore it to
          other: { "0": "kept" }, // no such field
        },
      });
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({
        ports: ["Gi0/1", "Gi0/2"],
        vlans: { "10": "users", "20": "voice" },
        description: { "0": "kept" },
        other: { "0": "kept" },
      });
      // Already in shape: unchanged.
      const same = await admin.post("/formbuilder/preserveFormData", {
        form_name: "port-values",
        data: { ports: ["Gi0/1"], vlans: { "10": "users" } },
      });
      expect(same.body).toEqual({ ports: ["Gi0/1"], vlans: { "10": "users" } });
    });

    test("unknown form: 404", async () => {
      const reply = await admin.post("/formbuilder/preserveFormData", {
        form_name: "no-such-form",
        data: {},
      });
      expectError(reply, 404, "NOT_FOUND");
    });

    test.each([
      ["form_name missing", { data: {} }, "form_name"],
      ["data missing", { form_name: "containers" }, "data"],
      ["data not an object", { form_name: "containers", data: "children=1" }, "data"],
    ])("invalid: %s -> 400 naming %s", async (_what, body, field) => {
      const reply: Reply = await admin.post("/formbuilder/preserveFormData", body);
      expectError(reply, 400, "VALIDATION_ERROR");
      expect(fieldsOf(reply)).toContain(field);
    });

    test("roles: admin, apiread and operator only", async () => {
      const operator = await clientWithRoles(platform(), admin, ["operator"]);
      expect((await preserve(operator, { children: [] })).status).toBe(200);
      expectError(await preserve(support, { children: [] }), 403, "FORBIDDEN");
    });
  });
});
