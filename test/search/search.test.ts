/**
 * Operation 12 (POST /search/find) and tags, over HTTP through the gateway, in both shapes: every
 * service on one broker, and the services spread over brokers on a real NATS with the store served
 * over the bus. Objects are seeded straight into the shared store (the collections search reads are
 * owned by other services); tags go through the API.
 */
import { randomUUID } from "node:crypto";
import { call } from "../../shared/contracts";
import { SEARCHABLES } from "../../shared/search-registry";
import { describeInBothShapes } from "../support/shapes";
import { client, expectError, login, type Reply } from "../support/platform";
import { clientWithRoles, fieldsOf, insert, shuffled, withStore, type Client } from "../support/search";

interface Result {
  _id: string;
  name: string;
  description: string;
  url: string;
  tags: { _id: string; name: string; description: string }[];
}
interface Group {
  label: string;
  type: string;
  results: Result[];
  count: number;
}

const FORM_PORT = randomUUID();
const ADAPTER_PASSWORD = "adapter-plaintext-password";
const FORM_WINDOW = randomUUID();

/** Objects of every searchable collection; `_id`s fixed so answers can be compared whole. */
const SEED: Record<string, Record<string, unknown>[]> = {
  workflows: [
    {
      _id: "a00000000000000000000001",
      name: "Upgrade IOS-XR",
      description: "Upgrades the software of core routers",
      tags: [],
    },
    {
      _id: "a00000000000000000000002",
      name: "Nightly Backup",
      description: "Copies every device configuration",
    },
    {
      _id: "a00000000000000000000003",
      name: "Regex .*( literal",
      description: "Its name holds regex metacharacters",
    },
  ],
  forms: [
    { _id: FORM_PORT, name: "Port Turn-Up Request", description: "Asks for an access port", tags: [] },
    { _id: FORM_WINDOW, name: "Change Window", description: "costs $where nothing", tags: [] },
  ],
  automations: [
    { _id: "b00000000000000000000001", name: "Weekly backup", description: "Runs Nightly Backup every week" },
  ],
  config_trees: [
    {
      _id: "c00000000000000000000001",
      name: "Edge Router Baseline",
      description: "Golden config of EDGE ROUTERS",
    },
  ],
  config_parsers: [
    { _id: "d00000000000000000000001", name: "ios-parser", description: "Parses running-config" },
  ],
  adapters: [
    {
      _id: "e00000000000000000000001",
      name: "nso east",
      description: "NSO of the east data center",
      type: "NSO",
      properties: { id: "nso east", password: ADAPTER_PASSWORD },
    },
  ],
  repository_configs: [
    {
      _id: "f00000000000000000000001",
      name: "gitlab-main",
      description: "Prebuilt repository",
      enabled: true,
    },
  ],
  profiles: [{ _id: "f10000000000000000000001", id: "prod-profile", description: "The production profile" }],
};

const byType = (reply: Reply): Record<string, Group> =>
  Object.fromEntries((reply.body as Group[]).map((g) => [g.type, g]));
const namesIn = (group: Group | undefined) => (group?.results ?? []).map((r) => r.name);

describeInBothShapes("search", (platform) => {
  let admin: Client;
  const find = (text: unknown, extra: Record<string, unknown> = {}, api: Client = admin) =>
    api.post("/search/find", { data: { text, ...extra } });
  const createTag = async (name: string, description?: string) => {
    const reply = await admin.post("/search/tags", { name, description });
    expect(reply.status).toBe(200);
    // The tag routes answer `id` beside `_id`; a search result's tags carry the spec's members only.
    const { id, ...tag } = reply.body as { id: string; _id: string; name: string; description: string };
    expect(id).toBe(tag._id);
    return tag;
  };
  const tagsOf = (collection: string, _id: string) =>
    withStore(platform(), async (store) => (await store.collection(collection).findOne({ _id }))?.tags);
  let coreTag: { _id: string; name: string; description: string };
  /** A tag as the tag routes answer it: `id` beside `_id` (docs/compatibility.md#the-id-member). */
  const answered = (tag: { _id: string }) => ({ id: tag._id, ...tag });

  beforeAll(async () => {
    admin = client(platform().baseUrl, await login(platform().baseUrl));
    for (const [collection, docs] of Object.entries(SEED)) await insert(platform(), collection, docs);
    coreTag = await createTag("Core Network", "Routers and links of the core");
    for (const [collection, objectId] of [
      ["forms", FORM_PORT],
      ["adapters", "e00000000000000000000001"],
    ]) {
      const reply = await admin.post("/search/tags/attach", { collection, objectId, tagId: coreTag._id });
      expect(reply.status).toBe(200);
    }
  });

  describe("POST /search/find", () => {
    test("a name match: the whole group, with url, expanded tags and count", async () => {
      const reply = await find("upgrade");
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual([
        {
          label: "Workflows",
          type: "workflows",
          results: [
            {
              _id: "a00000000000000000000001",
              name: "Upgrade IOS-XR",
              description: "Upgrades the software of core routers",
              url: "/workflow_builder/workflows/Upgrade%20IOS-XR",
              tags: [],
            },
          ],
          count: 1,
        },
      ]);
    });

    test("case-insensitive, in names and descriptions, one group per collection with matches", async () => {
      for (const text of ["backup", "BACKUP", "bAcKuP"]) {
        const reply = await find(text);
        expect(reply.status).toBe(200);
        expect((reply.body as Group[]).map((g) => [g.type, g.count, namesIn(g)])).toEqual([
          ["workflows", 1, ["Nightly Backup"]],
          ["automations", 1, ["Weekly backup"]],
        ]);
      }
      const routers = byType(await find("router"));
      expect(Object.keys(routers)).toEqual(["workflows", "config_trees"]);
      expect(namesIn(routers.workflows)).toEqual(["Upgrade IOS-XR"]); // description only
      expect(routers.config_trees.results[0]).toEqual({
        _id: "c00000000000000000000001",
        name: "Edge Router Baseline",
        description: "Golden config of EDGE ROUTERS",
        url: "/configuration_manager/configs/c00000000000000000000001",
        tags: [],
      });
    });

    test("objects whose tags' names match are found, with their tags expanded", async () => {
      const groups = byType(await find("core network"));
      // Neither object says "core network" itself: only the tag does.
      expect(Object.keys(groups)).toEqual(["forms", "adapters"]);
      expect(groups.forms).toEqual({
        label: "Forms",
        type: "forms",
        count: 1,
        results: [
          {
            _id: FORM_PORT,
            name: "Port Turn-Up Request",
            description: "Asks for an access port",
            url: "/formbuilder/forms/Port%20Turn-Up%20Request",
            tags: [coreTag],
          },
        ],
      });
      expect(groups.adapters.results).toEqual([
        expect.objectContaining({ name: "nso east", url: "/adapters/nso%20east", tags: [coreTag] }),
      ]);
      // "core" matches a description and the tag name: both kinds in one answer.
      expect(Object.keys(byType(await find("CORE")))).toEqual(["workflows", "forms", "adapters"]);
    });

    test("every registered collection is searched, each with its url", async () => {
      expect(Object.keys(SEED).sort()).toEqual(SEARCHABLES.map((s) => s.collection).sort());
      const reply = await find("");
      expect(reply.status).toBe(200);
      const groups = byType(reply);
      for (const entry of SEARCHABLES) expect(groups[entry.type]?.label).toBe(entry.label);
      expect(groups.profiles.results).toEqual([
        {
          _id: "f10000000000000000000001",
          name: "prod-profile",
          description: "The production profile",
          url: "/profiles/prod-profile",
          tags: [],
        },
      ]);
      expect(namesIn(groups.repository_configs)).toEqual(["gitlab-main"]);
      expect(groups.repository_configs.results[0].url).toBe("/prebuilts-repository/configs/gitlab-main");
      expect(groups.config_parsers.results.find((r) => r.name === "ios-parser")?.url).toBe(
        "/configuration_manager/configurations/parser?filter[name]=ios-parser",
      );
      expect(groups.automations.results.find((r) => r.name === "Weekly backup")?.url).toBe(
        "/automation_catalog/automations/b00000000000000000000001",
      );
    });

    test("results carry only _id, name, description, url and tags: no other stored field", async () => {
      for (const text of ["", "nso", "password", ADAPTER_PASSWORD]) {
        const reply = await find(text);
        expect(reply.status).toBe(200);
        expect(reply.text).not.toContain(ADAPTER_PASSWORD);
        for (const group of reply.body as Group[])
          for (const result of group.results)
            expect(Object.keys(result).sort()).toEqual(["_id", "description", "name", "tags", "url"]);
      }
      expect((await find(ADAPTER_PASSWORD)).body).toEqual([]); // not a searched field either
    });

    test("empty or blank text matches every object; counts are whole collections", async () => {
      const counts: Record<string, number> = {};
      await withStore(platform(), async (store) => {
        for (const s of SEARCHABLES) counts[s.type] = await store.collection(s.collection).count();
      });
      for (const text of ["", "   "]) {
        const groups = byType(await find(text));
        expect(Object.fromEntries(Object.entries(groups).map(([type, g]) => [type, g.count]))).toEqual(
          Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0)),
        );
      }
    });

    test("pagination: pageNumber from 1 (0 is the first page too), nPerPage (default 10), sorted by name, count of all matches", async () => {
      const names = Array.from({ length: 25 }, (_, i) => `pager-${String(i).padStart(2, "0")}`);
      await insert(
        platform(),
        "automations",
        shuffled(names).map((name) => ({ name, description: "pagination test" })),
      );
      const page = async (extra: Record<string, unknown>) => {
        const reply = await find("PAGER-", extra);
        expect(reply.status).toBe(200);
        expect(reply.body.map((g: Group) => g.type)).toEqual(["automations"]);
        expect(reply.body[0].count).toBe(25);
        return namesIn(reply.body[0]);
      };
      expect(await page({})).toEqual(names.slice(0, 10));
      expect(await page({ pageNumber: 0 })).toEqual(names.slice(0, 10));
      expect(await page({ pageNumber: 1 })).toEqual(names.slice(0, 10));
      expect(await page({ pageNumber: 2 })).toEqual(names.slice(10, 20));
      expect(await page({ pageNumber: 3 })).toEqual(names.slice(20));
      expect(await page({ pageNumber: 4 })).toEqual([]);
      expect(await page({ pageNumber: 2, nPerPage: 7 })).toEqual(names.slice(7, 14));
      expect(await page({ nPerPage: 1000 })).toEqual(names);
    });

    test("pagination over a large match set (counted and paged by the store)", async () => {
      const names = Array.from({ length: 1100 }, (_, i) => `bulk-${String(i).padStart(4, "0")}`);
      await insert(
        platform(),
        "config_parsers",
        shuffled(names).map((name) => ({ name, description: "many parsers" })),
      );
      const page = async (extra: Record<string, unknown>) => {
        const reply = await find("bulk-", extra);
        expect(reply.status).toBe(200);
        expect(reply.body.map((g: Group) => [g.type, g.count])).toEqual([["config_parsers", 1100]]);
        return namesIn(reply.body[0]);
      };
      expect(await page({})).toEqual(names.slice(0, 10));
      expect(await page({ pageNumber: 110 })).toEqual(names.slice(1090));
      expect(await page({ pageNumber: 111 })).toEqual([]);
      expect(await page({ pageNumber: 2, nPerPage: 1000 })).toEqual(names.slice(1000));
      expect(await page({ pageNumber: 0, nPerPage: 3 })).toEqual(names.slice(0, 3));
      // Empty text over the same collection: counted and paged by the store in both shapes.
      const everything = byType(await find("", { pageNumber: 2, nPerPage: 5 }));
      // and ios-parser, and the 5 built-in parsers the configuration service stores on start
      expect(everything.config_parsers.count).toBe(1106);
      expect(namesIn(everything.config_parsers)).toEqual(names.slice(5, 10));
    });

    test("the text is data: regex and query operators match literally or not at all", async () => {
      const literal = byType(await find(".*("));
      expect(Object.keys(literal)).toEqual(["workflows"]);
      expect(namesIn(literal.workflows)).toEqual(["Regex .*( literal"]);
      expect(Object.keys(byType(await find(".*")))).toEqual(["workflows"]);

      const where = byType(await find("$where"));
      expect(Object.keys(where)).toEqual(["forms"]);
      expect(namesIn(where.forms)).toEqual(["Change Window"]);

      for (const text of [
        "(",
        "[",
        "\\",
        "^$",
        "(?i)x",
        "a|b",
        "{1,2}",
        "*",
        "+",
        "?",
        "$regex",
        "\t",
        "é",
      ]) {
        const reply = await find(text);
        expect({ text, status: reply.status, isArray: Array.isArray(reply.body) }).toEqual({
          text,
          status: 200,
          isArray: true,
        });
      }
      expect((await find("|")).body).toEqual([]);
    });

    test("an operator object as text is a 400, not a query", async () => {
      for (const text of [{ $gt: "" }, { $regex: ".*" }, ["x"], 5, null]) {
        const reply = await find(text);
        expectError(reply, 400, "VALIDATION_ERROR");
        expect(fieldsOf(reply)).toEqual(["data.text"]);
      }
    });

    test("validation: 400 with the failing fields", async () => {
      const cases: [unknown, string[]][] = [
        [{}, ["data"]],
        [{ data: "x" }, ["data"]],
        [{ data: {} }, ["data.text"]],
        [{ data: { text: "x", nPerPage: 0 } }, ["data.nPerPage"]],
        [{ data: { text: "x", nPerPage: 1001 } }, ["data.nPerPage"]],
        [{ data: { text: "x", nPerPage: 2.5 } }, ["data.nPerPage"]],
        [{ data: { text: "x", pageNumber: -1 } }, ["data.pageNumber"]],
        [{ data: { text: "x", pageNumber: "one" } }, ["data.pageNumber"]],
        [{ data: { text: "x".repeat(1025) } }, ["data.text"]],
        [{ data: { text: "a\u0000b" } }, ["data.text"]],
      ];
      for (const [body, fields] of cases) {
        const reply = await admin.post("/search/find", body);
        expectError(reply, 400, "VALIDATION_ERROR");
        expect({ body, fields: fieldsOf(reply) }).toEqual({ body, fields });
      }
    });

    test("roles: admin and apiwrite may search; others 403; no credentials 401", async () => {
      const writer = await clientWithRoles(platform(), admin, ["apiwrite"]);
      expect(namesIn(byType(await find("upgrade", {}, writer)).workflows)).toEqual(["Upgrade IOS-XR"]);
      for (const roles of [["apiread"], ["engineering"], ["operator", "support"]]) {
        const other = await clientWithRoles(platform(), admin, roles);
        expectError(await find("upgrade", {}, other), 403, "FORBIDDEN");
      }
      expectError(await find("upgrade", {}, client(platform().baseUrl)), 401, "UNAUTHORIZED");
    });

    test("a write by any service shows in the next search (nothing cached)", async () => {
      const text = `fresh-${randomUUID().slice(0, 8)}`;
      expect((await find(text)).body).toEqual([]);
      const [doc] = await insert(platform(), "workflows", [{ name: text, description: "" }]);
      expect(namesIn(byType(await find(text)).workflows)).toEqual([text]);
      await withStore(platform(), (store) =>
        store.collection("workflows").updateOne({ _id: doc._id }, { $set: { name: "renamed" } }),
      );
      expect((await find(text)).body).toEqual([]);
    });

    test("bus callers get the same answer and the same validation", async () => {
      const groups = await call(platform().broker, "search.find", { data: { text: "nightly" } });
      expect(groups.map((g) => [g.type, namesIn(g)])).toEqual([
        ["workflows", ["Nightly Backup"]],
        ["automations", ["Weekly backup"]],
      ]);
      await expect(
        platform().broker.call("search.find", { data: { text: { $gt: "" } } }),
      ).rejects.toMatchObject({ type: "VALIDATION_ERROR" });
    });
  });

  describe("tags", () => {
    test("create and list; names unique regardless of case", async () => {
      const tag = await createTag("  Lab Only  ", "Not for production");
      expect(tag).toEqual({
        _id: expect.stringMatching(/^[0-9a-f]{24}$/),
        name: "Lab Only",
        description: "Not for production",
      });
      expectError(await admin.post("/search/tags", { name: "lab only" }), 409, "CONFLICT");
      const list = await admin.get("/search/tags");
      expect(list.status).toBe(200);
      expect(list.body).toEqual({
        results: expect.any(Array),
        total: list.body.results.length,
        skip: 0,
        limit: 25,
      });
      expect(list.body.results).toEqual(expect.arrayContaining([answered(tag), answered(coreTag)]));
      const names = list.body.results.map((t: { name: string }) => t.name.toLowerCase());
      expect(names).toEqual([...names].sort());
      expect(
        list.body.results.filter((t: { name: string }) => t.name.toLowerCase() === "lab only"),
      ).toHaveLength(1);
      const second = await admin.get("/search/tags?skip=1&limit=1");
      expect(second.body).toEqual({
        results: [list.body.results[1]],
        total: list.body.total,
        skip: 1,
        limit: 1,
      });
    });

    test("create: validation and roles", async () => {
      for (const body of [{}, { name: "" }, { name: "   " }, { name: "x".repeat(129) }, { name: 5 }]) {
        const reply = await admin.post("/search/tags", body);
        expectError(reply, 400, "VALIDATION_ERROR");
        expect(fieldsOf(reply)).toEqual(["name"]);
      }
      const reader = await clientWithRoles(platform(), admin, ["apiread"]);
      expectError(await reader.post("/search/tags", { name: "reader-tag" }), 403, "FORBIDDEN");
      expect((await reader.get("/search/tags")).status).toBe(200);
      expectError(
        await reader.post("/search/tags/attach", {
          collection: "forms",
          objectId: FORM_WINDOW,
          tagId: coreTag._id,
        }),
        403,
        "FORBIDDEN",
      );
      const engineer = await clientWithRoles(platform(), admin, ["engineering"]);
      expect((await engineer.post("/search/tags", { name: `eng-${randomUUID().slice(0, 6)}` })).status).toBe(
        200,
      );
    });

    test("attach and detach on any searchable collection; search follows", async () => {
      const tag = await createTag("Quarterly Audit");
      const target = { collection: "profiles", objectId: "f10000000000000000000001", tagId: tag._id };
      expect((await find("quarterly audit")).body).toEqual([]);

      const attached = await admin.post("/search/tags/attach", target);
      expect(attached.status).toBe(200);
      expect(attached.body).toEqual({
        collection: "profiles",
        objectId: target.objectId,
        tags: [answered(tag)],
      });
      // Attaching again changes nothing.
      expect((await admin.post("/search/tags/attach", target)).body.tags).toEqual([answered(tag)]);
      expect(await tagsOf("profiles", target.objectId)).toEqual([tag._id]);
      const groups = byType(await find("QUARTERLY"));
      expect(Object.keys(groups)).toEqual(["profiles"]);
      expect(groups.profiles.results[0].tags).toEqual([tag]);

      const detached = await admin.post("/search/tags/detach", target);
      expect(detached.status).toBe(200);
      expect(detached.body).toEqual({ collection: "profiles", objectId: target.objectId, tags: [] });
      expect(await tagsOf("profiles", target.objectId)).toEqual([]);
      expect((await find("quarterly audit")).body).toEqual([]);
      // Detaching a tag the object does not carry is not an error.
      expect((await admin.post("/search/tags/detach", target)).body.tags).toEqual([]);
    });

    test("several tags keep their order on the object", async () => {
      const first = await createTag("Order One");
      const second = await createTag("Order Two");
      const target = { collection: "repository_configs", objectId: "f00000000000000000000001" };
      await admin.post("/search/tags/attach", { ...target, tagId: first._id });
      const reply = await admin.post("/search/tags/attach", { ...target, tagId: second._id });
      expect(reply.body.tags).toEqual([answered(first), answered(second)]);
      expect(byType(await find("order t")).repository_configs.results[0].tags).toEqual([first, second]);
    });

    test("attach: unknown collection 400, unknown object or tag 404, and nothing is written", async () => {
      const before = await tagsOf("forms", FORM_WINDOW);
      const base = { collection: "forms", objectId: FORM_WINDOW, tagId: coreTag._id };

      const badCollection = await admin.post("/search/tags/attach", { ...base, collection: "accounts" });
      expectError(badCollection, 400, "VALIDATION_ERROR");
      expect(fieldsOf(badCollection)).toEqual(["collection"]);
      const badTagId = await admin.post("/search/tags/attach", { ...base, tagId: "not-an-id" });
      expectError(badTagId, 400, "VALIDATION_ERROR");
      expect(fieldsOf(badTagId)).toEqual(["tagId"]);
      const missing = await admin.post("/search/tags/attach", { collection: "forms" });
      expectError(missing, 400, "VALIDATION_ERROR");
      expect(fieldsOf(missing).sort()).toEqual(["objectId", "tagId"]);

      expectError(
        await admin.post("/search/tags/attach", { ...base, objectId: randomUUID() }),
        404,
        "NOT_FOUND",
      );
      expectError(
        await admin.post("/search/tags/attach", { ...base, tagId: "0123456789abcdef01234567" }),
        404,
        "NOT_FOUND",
      );
      expectError(
        await admin.post("/search/tags/detach", { ...base, objectId: randomUUID() }),
        404,
        "NOT_FOUND",
      );
      expect(await tagsOf("forms", FORM_WINDOW)).toEqual(before);
    });

    test("delete: the tag goes, and so does every reference to it", async () => {
      const tag = await createTag("Retired Tag");
      const targets = [
        { collection: "workflows", objectId: "a00000000000000000000002" },
        { collection: "config_trees", objectId: "c00000000000000000000001" },
      ];
      for (const t of targets)
        expect((await admin.post("/search/tags/attach", { ...t, tagId: tag._id })).status).toBe(200);
      expect(Object.keys(byType(await find("retired tag")))).toEqual(["workflows", "config_trees"]);

      const reader = await clientWithRoles(platform(), admin, ["apiread"]);
      expectError(await reader.delete(`/search/tags/${tag._id}`), 403, "FORBIDDEN");
      const deleted = await admin.delete(`/search/tags/${tag._id}`);
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual({
        status: "OK",
        message: "Tag 'Retired Tag' deleted; detached from 2 object(s)",
      });
      for (const t of targets) expect(await tagsOf(t.collection, t.objectId)).not.toContain(tag._id);
      expect((await find("retired tag")).body).toEqual([]);
      expect((await admin.get("/search/tags")).body.results.map((t: { _id: string }) => t._id)).not.toContain(
        tag._id,
      );
      expectError(await admin.delete(`/search/tags/${tag._id}`), 404, "NOT_FOUND");
      expectError(await admin.delete("/search/tags/nope"), 400, "VALIDATION_ERROR");
    });

    test("a tag id left on an object without its tag is left out of answers", async () => {
      await withStore(platform(), (store) =>
        store
          .collection("adapters")
          .updateOne({ _id: "e00000000000000000000001" }, { $push: { tags: "0123456789abcdef01234567" } }),
      );
      expect(byType(await find("nso east")).adapters.results[0].tags).toEqual([coreTag]);
    });
  });
});
