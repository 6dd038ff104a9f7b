/**
 * No request stalls the platform (issue 22; docs/security.md#stalls): the regex and query rows of
 * the table and the documented maxima of the bounds that answer them. While each heavy
 * request runs, a probe asks `GET /health` every 20 ms (test/support/loop-probe.ts); the slowest
 * probe answer stays under 100 ms, and the heavy request answers: 2xx, or a 4xx naming the limit.
 * The compliance-size rows are test/security/stall-compliance.test.ts's.
 */
import { chain, op, type WorkflowInput } from "../support/engine-fixtures";
import { expectLoopFree } from "../support/loop-probe";
import { client, login, type Client, type Reply } from "../support/platform";
import { eventually, spawnPlatform, type SpawnedPlatform } from "../support/processes";
import { FILTER_LIMITS } from "../../shared/client-filter";
import { MAX_PROGRAM_SIZE, regexProblem } from "../../shared/user-regex";

/**
 * The platform runs in a process of its own (`npm start`'s), as a user measures it: the probe sees
 * the platform's event loop alone, not this test process's, whose heap holds every suite jest ran
 * before this one (its collections are not the platform's pauses).
 */
let platform: SpawnedPlatform;
let baseUrl: string;
let admin: Client;
let treeId: string;

async function createWorkflow(workflow: WorkflowInput): Promise<void> {
  const reply = await admin.post("/workflow_builder/workflows", { workflow });
  expect(reply.status).toBe(200);
}

/** The near-miss every backtracking engine chokes on: a run of `a` with no ending it can match. */
const RUN = (n: number) => "a".repeat(n);

beforeAll(async () => {
  platform = await spawnPlatform();
  baseUrl = platform.baseUrl;
  admin = client(baseUrl, await login(baseUrl));
  const tree = await admin.post("/configuration_manager/configs", {
    name: "stall-tree",
    deviceType: "cisco-ios",
  });
  treeId = tree.body._id;
  expect(tree.status).toBe(200);
}, 40_000);
afterAll(() => platform?.stop());

/** Runs `work` under the probe: the platform's loop never held MAX_HELD_MS (loop-probe.ts). */
function underProbe(label: string, work: () => Promise<Reply>): Promise<Reply> {
  return expectLoopFree(label, platform, work);
}

function expectLimit(reply: Reply, type: string, field: string | RegExp) {
  expect(reply.status).toBe(400);
  expect(reply.body.type).toBe("VALIDATION_ERROR");
  expect(reply.body.data[0].type).toBe(type);
  expect(reply.body.data[0].field).toMatch(field);
}

describe("regexes run on RE2: linear whatever the pattern", () => {
  // One harmless batch first: the first batch of a process compiles the compliance code (JIT),
  // which is not what these rows measure.
  beforeAll(async () => {
    const work = await complianceBatch("dev-warm", [{ type: "regex", value: "host(a+)+" }], "hostname");
    expect((await work()).body.state).toBe("complete");
  });

  /** A compliance batch of one device whose config line is `line` against a node spec of `word`. */
  async function complianceBatch(device: string, parts: { type: string; value: string }[], line: string) {
    const base = `/configuration_manager/configs/${treeId}/versions/initial/nodes`;
    const node = await admin.put(base, { nodePath: "base", spec: [{ words: [parts] }], devices: [device] });
    expect(node.status).toBe(200);
    expect(
      (await admin.post("/configuration_manager/backups", { deviceName: device, config: line })).status,
    ).toBe(200);
    return async () => {
      const run = await admin.post("/configuration_manager/compliance_reports", {
        treeId,
        version: "initial",
        nodePath: "base",
        devices: [device],
      });
      if (run.status !== 200) return run;
      for (;;) {
        const batch = await admin.get(
          `/configuration_manager/compliance_reports/batches/${run.body.batchId}`,
        );
        if (batch.body.state !== "running" && batch.body.state !== "queued") return batch;
        await new Promise((r) => setTimeout(r, 20));
      }
    };
  }

  test.each([
    ["((a+))+!", 29],
    ["(?:(?:a+))+!", 29],
    ["(\\w\\w?)+!", 29],
    ["\\w*\\w*\\w*\\w*\\w*\\w*\\w*\\w*!", 29],
    // 29 characters made a backtracking engine take 2.9 s, each one more doubling it.
    ["((a+))+!", 5_000],
  ])("a compliance batch: spec word {/%s/} against a line of %d characters", async (pattern, length) => {
    const batch = await underProbe(
      `compliance {/${pattern}/} x${length}`,
      await complianceBatch(`dev-${length}`, [{ type: "regex", value: pattern }], RUN(length)),
    );
    expect(batch.status).toBe(200);
    expect(batch.body).toMatchObject({ state: "complete", done: 1 });
    expect(batch.body.totals.errors + batch.body.totals.warnings).toBe(1); // the line does not match: one issue
  });

  test("sixteen {/a*/} parts in one spec word (each part alone is harmless)", async () => {
    const parts = Array.from({ length: 16 }, () => ({ type: "regex", value: "a*" }));
    const work = await complianceBatch("dev-sixteen", parts, `${RUN(5_000)}!`);
    const batch = await underProbe("sixteen {/a*/}", work);
    expect(batch.body).toMatchObject({ state: "complete", done: 1 });
  });

  test("a spec word at the documented maxima: the largest regex program, on a 100,000-character line", async () => {
    const pattern = "(?:[a-z]?){120}(?:a+)+!";
    expect(regexProblem(pattern)).toBeUndefined();
    expect(regexProblem(`(?:[a-z]?){130}(?:a+)+!`)).toContain(`more than ${MAX_PROGRAM_SIZE}`);
    const parts = Array.from({ length: 16 }, () => ({ type: "regex", value: pattern }));
    const work = await complianceBatch("dev-max", parts, RUN(100_000));
    const batch = await underProbe("spec word at the maxima", work);
    expect(batch.body).toMatchObject({ state: "complete", done: 1 });
  });

  test("the parser list: filter.name ((a+))+$ with regex, against a 28-character name and longer", async () => {
    for (const name of [`${RUN(28)}!`, `${RUN(250)}!`]) {
      const created = await admin.post("/configuration_manager/configurations/parser", {
        name,
        template: "ios",
      });
      expect(created.status).toBe(200);
    }
    const list = await underProbe("parser filter.name ((a+))+$", () =>
      admin.get("/configuration_manager/configurations/parser?filter[name]=((a%2B))%2B%24&regex=true"),
    );
    expect(list.status).toBe(200);
    expect(list.body).toEqual([]);
  });
});

describe("job search: bounded query cost", () => {
  let jobId: string;
  const ARRAY = 5_000;
  /** Strings a regex searches: RE2 (re2js) costs about 0.1-0.25 us a character (docs/security.md#stalls). */
  const WORDS = 1_000;

  beforeAll(async () => {
    await createWorkflow(chain("stall-flow", [["wait", op("delay", { time: 0 })]]));
    const started = await admin.post("/operations_manager/jobs/start", {
      workflow: "stall-flow",
      options: {
        variables: {
          numbers: Array.from({ length: ARRAY }, (_, i) => i),
          words: Array.from({ length: WORDS }, (_, i) => `${RUN(40)}${i}`),
          text: `${RUN(100_000)}!`,
        },
      },
    });
    expect(started.status).toBe(200);
    jobId = started.body._id;
    await eventually(
      async () => (await admin.get(`/operations-manager/jobs/${jobId}`)).body?.data?.status === "complete",
      20_000,
      "the job",
    );
  });

  const search = (query: unknown) => () =>
    admin.post("/workflow_engine/jobs/search", { options: { query, fields: { name: 1 } } });

  test("$all of 16,000 values against a 5,000-element array: 400 naming the limit", async () => {
    const values = Array.from({ length: 16_000 }, (_, i) => i);
    const reply = await underProbe("$all 16,000", search({ "variables.numbers": { $all: values } }));
    expectLimit(reply, "arrayOperand", "options.query.variables.numbers.$all");
  });

  test("$and of 4,000 $ne clauses: 400 naming the limit", async () => {
    const clauses = Array.from({ length: 4_000 }, (_, i) => ({ "variables.numbers": { $ne: -i } }));
    const reply = await underProbe("$and 4,000 $ne", search({ $and: clauses }));
    expectLimit(reply, "arrayOperand", "options.query.$and");
    const most = Array.from({ length: FILTER_LIMITS.arrayOperand }, (_, i) => ({
      "variables.numbers": { $ne: -i },
    }));
    expectLimit(
      await underProbe("$and 100 $ne", search({ $and: most })),
      "clauses",
      /^options\.query\.\$and/,
    );
  });

  test("$regex ^(?:(a+)+)$ inside $all: [{$elemMatch}] runs on RE2 and answers", async () => {
    const query = { "variables.words": { $all: [{ $elemMatch: { $regex: "^(?:(a+)+)$" } }] } };
    const reply = await underProbe("$regex in $all $elemMatch", search(query));
    expect(reply.status).toBe(200);
    expect(reply.body.total).toBe(0);
  });

  test("the documented maxima answer 200 without holding the loop", async () => {
    const members = FILTER_LIMITS.clauses - 2;
    const all = { "variables.numbers": { $all: Array.from({ length: members }, (_, i) => ARRAY - 1 - i) } };
    const allReply = await underProbe(`$all of ${members} against ${ARRAY}`, search(all));
    expect(allReply.body.results).toEqual([{ _id: jobId, name: "stall-flow" }]);

    const ne = Math.floor((FILTER_LIMITS.clauses - 1) / 2);
    const and = { $and: Array.from({ length: ne }, (_, i) => ({ "variables.numbers": { $ne: -1 - i } })) };
    expect((await underProbe(`$and of ${ne} $ne`, search(and))).body.total).toBe(1);

    const values = Array.from({ length: FILTER_LIMITS.arrayOperand }, (_, i) => -1 - i);
    const nin = {
      "variables.numbers": { $nin: values },
      status: { $in: ["complete", ...values.slice(1).map(String)] },
    };
    expect((await underProbe("$nin and $in at the maxima", search(nin))).body.total).toBe(1);

    // A regex of the largest program against a 100,000-character string.
    const regex = { "variables.text": { $regex: `(?:${"[a-z]".repeat(60)})+!`, $options: "i" } };
    expect((await underProbe("$regex against 100,000 characters", search(regex))).body.total).toBe(1);

    const elem = {
      "variables.words": { $elemMatch: { $regex: "^a+9999$" } },
      "variables.numbers": { $elemMatch: { $gt: ARRAY - 2 } },
    };
    expect((await underProbe("$elemMatch on both arrays", search(elem))).body.total).toBe(0);
  });
});

describe("a workflow's input schema: its pattern runs on RE2", () => {
  test("a nested-quantifier pattern checks a 40-character near-miss at once; a backreference is refused on save", async () => {
    await createWorkflow(
      chain("stall-input-pattern", [["wait", op("delay", { time: 0 })]], {
        inputSchema: { type: "object", properties: { device: { type: "string", pattern: "^(a+)+$" } } },
      }),
    );
    const reply = await underProbe("inputSchema pattern ^(a+)+$, 40 characters", () =>
      admin.post("/operations-manager/jobs/start", {
        workflow: "stall-input-pattern",
        options: { variables: { device: `${RUN(40)}!` } },
      }),
    );
    expectLimit(reply, "pattern", "options.variables.device");

    const refused = await admin.post("/workflow_builder/workflows", {
      workflow: {
        name: "backreference-pattern",
        tasks: { workflow_start: {}, workflow_end: {} },
        transitions: { workflow_start: { workflow_end: { state: "success", type: "standard" } } },
        inputSchema: { type: "object", properties: { device: { type: "string", pattern: "^(a)\\1$" } } },
      },
    });
    expectLimit(refused, "regex", "workflow.inputSchema.properties.device.pattern");
    expect((await admin.get("/workflow_builder/workflows/backreference-pattern")).status).toBe(404);
  });
});
