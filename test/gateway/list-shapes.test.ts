/**
 * Every list the API answers has one of three shapes (issue 25, docs/compatibility.md#list-shapes):
 * the spec's (its operation fixes it), the real product's (its clients read it), or the project's
 * one shape `{results, total, skip, limit}`. The answer shapes are read from what the gateway serves
 * at /openapi.json (built from the contracts' result schemas, which test/gateway/openapi-responses
 * checks every answer against); each list is compared with the table in docs/compatibility.md, which
 * says which shape each list uses and why. A list that is none of the three fails, unless it is on
 * STILL_DIFFERENT below: lists of services being changed elsewhere, each with its TODO.
 */
import fs from "node:fs";
import path from "node:path";
import { client, startPlatform, type Platform } from "../support/platform";

/** The project's one list shape. */
const PROJECT = "{limit, results, skip, total}";

/**
 * Lists that are neither the spec's, the real product's nor the project's shape, each with why: none
 * now. A list added here must have a "TODO" row in docs/compatibility.md#list-shapes, and leave both
 * once it moves to `{results, total, skip, limit}` (or the real product's shape, where it has one).
 */
const STILL_DIFFERENT: Record<string, string> = {};

type Schema = Record<string, any>;

/** The answer's shape: `array`, or `{keys}` (sorted) for an object holding a list; undefined when it is no list. */
function listShape(schema: Schema | undefined, components: Record<string, Schema>): string | undefined {
  const deref = (s: Schema | undefined): Schema | undefined =>
    s?.$ref ? components[String(s.$ref).replace("#/components/schemas/", "")] : s;
  const s = deref(schema);
  if (!s) return undefined;
  if (s.type === "array") return "array";
  if (s.type !== "object" || !s.properties) return undefined;
  const members = Object.keys(s.properties);
  const holdsList = ["results", "items", "data"].some((m) => deref(s.properties[m])?.type === "array");
  return holdsList ? `{${members.sort().join(", ")}}` : undefined;
}

interface Row {
  route: string;
  shape: string;
  why: string;
}

/** The table under `## List shapes` in docs/compatibility.md: route, shape, why. */
function documented(): Row[] {
  const doc = fs.readFileSync(path.resolve(__dirname, "../../docs/compatibility.md"), "utf8");
  const start = doc.indexOf("## List shapes");
  expect(start).toBeGreaterThan(-1);
  const section = doc.slice(
    start,
    doc.indexOf("\n## ", start + 1) === -1 ? undefined : doc.indexOf("\n## ", start + 1),
  );
  return [...section.matchAll(/^\|\s*`([A-Z]+ [^`]+)`\s*\|\s*`([^`]+)`\s*\|\s*([^|]+?)\s*\|/gm)].map((m) => ({
    route: m[1],
    shape: m[2],
    why: m[3],
  }));
}

let platform: Platform;
let lists: Map<string, { shape: string; description: string }>;

beforeAll(async () => {
  platform = await startPlatform();
  const doc = (await client(platform.baseUrl).get("/openapi.json")).body;
  const components = doc.components?.schemas ?? {};
  lists = new Map();
  for (const [route, ops] of Object.entries<Record<string, Schema>>(doc.paths))
    for (const [method, op] of Object.entries(ops)) {
      const shape = listShape(op.responses?.["200"]?.content?.["application/json"]?.schema, components);
      if (shape)
        lists.set(`${method.toUpperCase()} ${route}`, { shape, description: String(op.description ?? "") });
    }
});
afterAll(() => platform.stop());

test("the table lists every list the API answers, with the shape it answers", () => {
  const rows = documented();
  expect(rows.map((r) => r.route).sort()).toEqual([...lists.keys()].sort());
  for (const { route, shape } of rows)
    expect({ route, shape: lists.get(route)?.shape }).toEqual({ route, shape });
});

test("each list is the spec's, the real product's or the project's shape, or a TODO still to change", () => {
  const wrong: string[] = [];
  for (const { route, shape, why } of documented()) {
    const spec = /^spec (\d+)$/.exec(why);
    const like = /^like spec (\d+)$/.exec(why);
    if (why === "project") {
      if (shape !== PROJECT) wrong.push(`${route}: "project" but ${shape}`);
    } else if (spec) {
      if (!lists.get(route)?.description.includes(`Spec operation ${spec[1]}.`))
        wrong.push(`${route}: not spec operation ${spec[1]}`);
    } else if (like) {
      const counterpart = [...lists.values()].find((l) =>
        l.description.includes(`Spec operation ${like[1]}.`),
      );
      if (counterpart?.shape !== shape) wrong.push(`${route}: not the shape of spec operation ${like[1]}`);
    } else if (why === "real product") {
      if (shape === PROJECT) wrong.push(`${route}: the project's shape, say "project"`);
    } else if (why === "TODO") {
      if (!(route in STILL_DIFFERENT)) wrong.push(`${route}: a TODO not on STILL_DIFFERENT`);
    } else wrong.push(`${route}: unknown reason "${why}"`);
  }
  expect(wrong).toEqual([]);
});

test("STILL_DIFFERENT holds only lists that still differ (one that changed leaves it)", () => {
  for (const route of Object.keys(STILL_DIFFERENT)) {
    expect({ route, listed: lists.has(route) }).toEqual({ route, listed: true });
    expect({ route, shape: lists.get(route)?.shape }).not.toEqual({ route, shape: PROJECT });
    expect(documented().find((r) => r.route === route)?.why).toBe("TODO");
  }
});
