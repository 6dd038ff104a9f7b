/**
 * Client queries (shared/client-filter.ts, docs/security.md#client-queries) over HTTP, on both
 * search routes: every operator position a query has (the top, `$and`/`$or`/`$nor` at any depth,
 * `$elemMatch` in both forms, `$all: [{$elemMatch}]`, `$not`, the values of `$eq` and `$in`) holds
 * in turn every forbidden operator and, on the job search, every field a job answer never shows.
 * All 400 naming a key; the same positions holding a harmless clause answer 200, so the walk
 * refuses what it must and nothing else. Then the bounds: at the limit 200, past it 400 naming it.
 */
import { chain, createWorkflow, op, waitForJob } from "../support/engine-fixtures";
import { expectError, usePlatform } from "../support/platform";
import { FILTER_LIMITS } from "../../shared/client-filter";

const env = usePlatform();
let jobId: string;

const JOBS = "/workflow_engine/jobs/search";
const WORKFLOWS = "/workflow_engine/workflows/search";

beforeAll(async () => {
  await createWorkflow(
    env.admin,
    env.platform.broker,
    chain("filter-flow", [["wait", op("delay", { time: 0 })]]),
  );
  const started = await env.admin.post("/operations_manager/jobs/start", {
    workflow: "filter-flow",
    options: { variables: { tags: ["a", "b"] } },
  });
  jobId = started.body._id;
  await waitForJob(env.platform.broker, jobId, (job) => job.status === "complete");
});

type Query = Record<string, unknown>;

/** Every place a query can sit: `q` is a query (field conditions), planted at `field`'s place. */
const QUERY_POSITIONS: [string, (q: Query) => Query][] = [
  ["top", (q) => q],
  ["$and", (q) => ({ $and: [{ status: "complete" }, q] })],
  ["$or", (q) => ({ $or: [q] })],
  ["$nor", (q) => ({ $nor: [q] })],
  ["$and in $or in $nor", (q) => ({ $nor: [{ $or: [{ $and: [q] }] }] })],
  ["$elemMatch query", (q) => ({ "variables.tags": { $elemMatch: q } })],
  ["$all [$elemMatch]", (q) => ({ "variables.tags": { $all: [{ $elemMatch: q }] } })],
  ["$not $elemMatch", (q) => ({ "variables.tags": { $not: { $elemMatch: q } } })],
  ["$elemMatch in $all in $or", (q) => ({ $or: [{ x: { $all: [{ $elemMatch: { $and: [q] } }] } }] })],
];

/** Every place an operator object can sit: `c` is the condition on a field. */
const CONDITION_POSITIONS: [string, (c: Query) => Query][] = [
  ["field", (c) => ({ name: c })],
  ["$not", (c) => ({ name: { $not: c } })],
  ["$elemMatch on members", (c) => ({ "variables.tags": { $elemMatch: c } })],
  ["$all [$elemMatch on members]", (c) => ({ "variables.tags": { $all: [{ $elemMatch: c }] } })],
  ["deep", (c) => ({ $and: [{ x: { $elemMatch: { $or: [{ y: { $not: { $elemMatch: c } } }] } } }] })],
];

const FORBIDDEN_QUERIES: Query[] = [
  { $where: "sleep(1000)" },
  { $expr: { $gt: ["$a", 1] } },
  { $function: { body: "return true", args: [], lang: "js" } },
  { $text: { $search: "x" } },
  { $jsonSchema: {} },
  { $comment: "x" },
  { "$bad.path": 1 },
  JSON.parse('{"__proto__": {"polluted": 1}}'),
  { "constructor.name": "Object" },
];
const FORBIDDEN_CONDITIONS: Query[] = [
  { $where: "1" },
  { $expr: 1 },
  { $function: {} },
  { $regex: "(a)\\1" },
  { $regex: "(?=a)" },
  { $regex: "a", $options: "x" },
  { $options: "i" },
  { $mod: [2, 0] },
  { $type: "string" },
  { $eq: { $where: "1" } },
  { $in: [{ $where: "1" }] },
  { $nin: [{ a: { $expr: 1 } }] },
  { $all: [{ $where: "1" }] },
];
/** Fields a job answer never shows (services/engine/jobs/public-job.ts), as a caller probes them. */
const HIDDEN: Query[] = [
  { "runAs.username": "admin" },
  { runAs: { $exists: true } },
  { version: { $gte: 0 } },
  { sweepAt: { $exists: true } },
  { waitingTasks: { $size: 0 } },
  { "manualTasks.status": "waiting" },
  { deferred: { $exists: true } },
  { "tasks.wait.claim": { $exists: true } },
  { "tasks.wait.child": { $exists: false } },
  { "tasks.wait.loop": null },
  { "tasks.wait.waitingSince": { $gt: 0 } },
  // A whole-object comparison on a field that holds hidden ones would probe them.
  { "tasks.wait": { $eq: { name: "wait" } } },
  { tasks: { $in: [{}] } },
];
/** The same positions, harmless. */
const HARMLESS_QUERY: Query = { status: "complete" };
const HARMLESS_CONDITION: Query = { $regex: "^(a+)+$", $options: "i" };

async function refused(route: string, query: unknown, where: string) {
  const reply = await env.admin.post(route, { options: { query } });
  if (reply.status !== 400) throw new Error(`${where}: ${reply.status} for ${JSON.stringify(query)}`);
  const body = expectError(reply, 400, "VALIDATION_ERROR");
  expect(body.data[0].field).toMatch(/^options\.query/);
}

async function answered(route: string, query: unknown, where: string) {
  const reply = await env.admin.post(route, { options: { query } });
  if (reply.status !== 200) throw new Error(`${where}: ${reply.status} ${JSON.stringify(reply.body)}`);
}

describe.each([
  ["job search", JOBS],
  ["workflow search", WORKFLOWS],
])("%s: one walk over every operator position", (_name, route) => {
  test("a forbidden operator at any query position is a 400 naming its key", async () => {
    for (const [where, plant] of QUERY_POSITIONS) {
      for (const bad of FORBIDDEN_QUERIES)
        await refused(route, plant(bad), `${where} ${JSON.stringify(bad)}`);
      await answered(route, plant(HARMLESS_QUERY), where);
    }
  });

  test("a forbidden operator at any condition position is a 400 naming its key", async () => {
    for (const [where, plant] of CONDITION_POSITIONS) {
      for (const bad of FORBIDDEN_CONDITIONS)
        await refused(route, plant(bad), `${where} ${JSON.stringify(bad)}`);
      await answered(route, plant(HARMLESS_CONDITION), where);
    }
  });
});

test("job search: a field the API never answers cannot be filtered at any position, sorted or projected", async () => {
  for (const [where, plant] of QUERY_POSITIONS.filter(
    ([w]) => !w.includes("$elemMatch") && !w.includes("$all"),
  ))
    for (const hidden of HIDDEN) await refused(JOBS, plant(hidden), `${where} ${JSON.stringify(hidden)}`);
  // Inside $elemMatch a path continues its array's: a hidden field named in two halves is still hidden.
  await refused(JOBS, { runAs: { $elemMatch: { username: "admin" } } }, "$elemMatch on runAs");
  await refused(JOBS, { tasks: { $all: [{ $elemMatch: { "wait.claim": { $exists: true } } }] } }, "$all");
  await refused(JOBS, { "tasks.wait": { $elemMatch: { claim: { $exists: true } } } }, "split path");
  for (const sort of [{ "runAs.username": 1 }, { version: -1 }, { tasks: 1 }, { "tasks.wait": 1 }]) {
    const reply = await env.admin.post(JOBS, { options: { sort } });
    expect(expectError(reply, 400, "VALIDATION_ERROR").data[0].field).toBe(
      `options.sort.${Object.keys(sort)[0]}`,
    );
  }
  for (const fields of [{ runAs: 1 }, { "tasks.wait.claim": 0 }, { sweepAt: 1 }]) {
    const reply = await env.admin.post(JOBS, { options: { fields } });
    expect(expectError(reply, 400, "VALIDATION_ERROR").data[0].field).toBe(
      `options.fields.${Object.keys(fields)[0]}`,
    );
  }
  // The job list's queryParameters hold the same rule.
  for (const query of [
    "equals[runAs.username]=admin",
    "sort=version",
    "include=runAs",
    "gt[tasks.wait.waitingSince]=0",
  ]) {
    const reply = await env.admin.get(`/operations-manager/jobs?${query}`);
    expect(expectError(reply, 400, "VALIDATION_ERROR").data[0].type).toBe("hidden");
  }
  // What the answer shows may be filtered, sorted and projected.
  const reply = await env.admin.post(JOBS, {
    options: {
      query: { "tasks.wait.status": "complete", "variables.tags": { $all: ["a", "b"] } },
      sort: { "tasks.wait.status": 1 },
      fields: { name: 1, tasks: 1 },
    },
  });
  expect(reply.status).toBe(200);
  expect(reply.body.results.map((j: { _id: string }) => j._id)).toContain(jobId);
  expect(reply.body.results[0].tasks.wait).not.toHaveProperty("claim");
});

describe("bounds (FILTER_LIMITS)", () => {
  const clauses = (n: number) => ({
    $and: Array.from({ length: n }, (_, i) => ({ name: { $ne: `x${i}` } })),
  });

  test(`at most ${FILTER_LIMITS.clauses} clauses at any depth; past it a 400 naming the limit`, async () => {
    // $and counts 1, each member's field condition 1 and its $ne 1.
    const most = Math.floor((FILTER_LIMITS.clauses - 1) / 2);
    await answered(JOBS, clauses(most), "at the limit");
    const over = expectError(
      await env.admin.post(JOBS, { options: { query: clauses(most + 1) } }),
      400,
      "VALIDATION_ERROR",
    );
    expect(over.data[0].type).toBe("clauses");
    expect(over.message).toContain(String(FILTER_LIMITS.clauses));
    // $all members count: each is an equality of its own.
    const all = (n: number) => ({ "variables.tags": { $all: Array.from({ length: n }, (_, i) => `v${i}`) } });
    await answered(JOBS, all(FILTER_LIMITS.clauses - 2), "$all at the limit");
    expect(
      expectError(
        await env.admin.post(JOBS, { options: { query: all(FILTER_LIMITS.clauses - 1) } }),
        400,
        "VALIDATION_ERROR",
      ).data[0].type,
    ).toBe("clauses");
  });

  test(`at most ${FILTER_LIMITS.arrayOperand} values in $in, $nin and logical lists`, async () => {
    const values = (n: number) => Array.from({ length: n }, (_, i) => `v${i}`);
    for (const op of ["$in", "$nin"]) {
      await answered(WORKFLOWS, { name: { [op]: values(FILTER_LIMITS.arrayOperand) } }, op);
      const over = expectError(
        await env.admin.post(WORKFLOWS, {
          options: { query: { name: { [op]: values(FILTER_LIMITS.arrayOperand + 1) } } },
        }),
        400,
        "VALIDATION_ERROR",
      );
      expect(over.data[0]).toMatchObject({ field: `options.query.name.${op}`, type: "arrayOperand" });
    }
  });
});
