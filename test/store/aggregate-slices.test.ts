/**
 * The embedded store's aggregations fed in slices (shared/store/embedded/aggregate-plan.ts,
 * collection.ts aggregate): each document goes in as only the members the pipeline reads (a cold
 * one as its skeleton when that keeps them all), per-document stages run slice by slice, and the
 * scan lets other work in. The answers must be mingo's over whole copies, for every pipeline
 * shape, with documents hot, cold, or both.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Aggregator } from "mingo";
import { EmbeddedBackend } from "../../shared/store/embedded/backend";
import { planAggregate } from "../../shared/store/embedded/aggregate-plan";
import { withMongoCount } from "../../shared/store/embedded/mongo";
import type { Doc, Pipeline } from "../../shared/store";

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));
function newStore(hotDocuments: number, aggregateInlineRows?: number): EmbeddedBackend {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "store-aggregate-"));
  dirs.push(dataDir);
  return new EmbeddedBackend({ dataDir, hotDocuments, aggregateInlineRows });
}

const STATUSES = ["running", "complete", "error", "canceled"];

/** A job-like document: nested members, a map of tasks, arrays, members some jobs lack. */
const job = (i: number): Doc => ({
  _id: `job-${String(i).padStart(4, "0")}`,
  name: `job ${i % 7}`,
  status: STATUSES[i % 4],
  workflow: { _id: `wf-${i % 5}`, name: `workflow ${i % 5}` },
  groups: i % 3 ? [`g${i % 3}`, "all"] : [],
  metrics: { start_time: 1_000 + i, ...(i % 4 === 1 && { end_time: 1_500 + 2 * i }) },
  ...(i % 6 === 0 && { spilled: ["t2"] }),
  tasks: Object.fromEntries(
    [1, 2, 3].map((t) => [
      `t${t}`,
      {
        name: `task ${t}`,
        type: t === 2 ? "manual" : "automatic",
        status: (i + t) % 3 ? "complete" : "waiting",
        start_time: 2_000 + i * 3 + t,
        variables: { note: `ü ${i}-${t}`, list: [i, t] },
      },
    ]),
  ),
  waitingTasks: i % 3 === 2 ? ["t1"] : [],
});

const JOBS = 240;

/** What a pipeline must answer: mingo's own run over whole copies, in insertion order. */
function expected(pipeline: Pipeline): Doc[] {
  const all = Array.from({ length: JOBS }, (_, i) => job(i));
  return new Aggregator(withMongoCount(pipeline)).run(structuredClone(all));
}

const countOf = (status: string) => ({ $sum: { $cond: [{ $eq: ["$status", status] }, 1, 0] } });

/** The shapes the repositories send (services/engine/jobs.repository.ts) and the ones the plan must refuse. */
const PIPELINES: Record<string, Pipeline> = {
  "counts by workflow (indexed fields only)": [
    { $group: { _id: "$workflow.name", total: { $sum: 1 }, complete: countOf("complete") } },
    { $sort: { _id: 1 } },
  ],
  "counts by workflow with run times": [
    { $match: {} },
    {
      $group: {
        _id: "$workflow._id",
        name: { $last: "$workflow.name" },
        total: { $sum: 1 },
        running: countOf("running"),
        runTime: {
          $sum: {
            $cond: [
              { $eq: ["$status", "complete"] },
              { $subtract: ["$metrics.end_time", "$metrics.start_time"] },
              0,
            ],
          },
        },
      },
    },
    { $sort: { name: -1, _id: -1 } },
    { $facet: { page: [{ $skip: 1 }, { $limit: 2 }], count: [{ $count: "total" }] } },
  ],
  "manual tasks (project, unwind, match, facet)": [
    { $match: { groups: "all" } },
    {
      $project: {
        job: { _id: "$_id", name: "$name", status: "$status", workflow: "$workflow", groups: "$groups" },
        spilled: "$spilled",
        task: { $objectToArray: "$tasks" },
      },
    },
    { $unwind: "$task" },
    { $match: { "task.v.type": "manual", "task.v.status": "complete" } },
    {
      $facet: {
        rows: [
          { $sort: { "task.v.start_time": -1, "job._id": -1, "task.k": 1 } },
          { $skip: 3 },
          { $limit: 5 },
        ],
        total: [{ $count: "n" }],
      },
    },
  ],
  "a match on an unindexed nested path, then a count": [
    { $match: { "tasks.t1.status": "waiting" } },
    { $count: "n" },
  ],
  "a match on an array member": [{ $match: { "waitingTasks.0": { $exists: true } } }, { $count: "n" }],
  "an inclusion project with a nested path": [
    { $match: { status: "error" } },
    { $project: { name: 1, workflow: { name: 1 }, "metrics.start_time": 1 } },
  ],
  "an exclusion project (whole documents)": [{ $match: { status: "canceled" } }, { $project: { tasks: 0 } }],
  "no reshaping stage (the stored documents are the answer)": [
    { $match: { "workflow._id": "wf-1" } },
    { $sort: { "metrics.start_time": -1 } },
    { $limit: 4 },
  ],
  "$$ROOT (whole documents)": [
    { $match: { status: "running" } },
    { $group: { _id: "$workflow._id", first: { $first: "$$ROOT" } } },
    { $sort: { _id: 1 } },
  ],
  "$getField names a member by a plain string": [
    { $group: { _id: { $getField: "status" }, n: { $sum: 1 } } },
    { $sort: { _id: 1 } },
  ],
  "$addFields then a group on the new field": [
    { $addFields: { late: { $gt: ["$metrics.start_time", 1_100] }, "workflow.extra": 1 } },
    { $group: { _id: { late: "$late", wf: "$workflow" }, n: { $sum: 1 } } },
    { $sort: { "_id.late": 1, "_id.wf._id": 1 } },
  ],
  "$unwind of an array, $sortByCount": [{ $unwind: "$groups" }, { $sortByCount: "$groups" }],
  "$replaceRoot onto a nested member": [
    { $match: { status: "complete" } },
    { $replaceRoot: { newRoot: "$workflow" } },
    { $limit: 6 },
  ],
  "$top's sortBy names fields by its keys": [
    {
      $group: {
        _id: "$status",
        last: { $top: { sortBy: { "metrics.start_time": -1 }, output: "$name" } },
      },
    },
    { $sort: { _id: 1 } },
  ],
  $bucket: [
    {
      $bucket: {
        groupBy: "$metrics.start_time",
        boundaries: [1_000, 1_100, 1_200, 1_300],
        default: "other",
        output: { n: { $sum: 1 } },
      },
    },
  ],
  "a Date made by a per-document stage, grouped after": [
    { $addFields: { started: { $toDate: "$metrics.start_time" } } },
    { $group: { _id: "$status", first: { $min: "$started" }, last: { $max: "$started" } } },
    { $sort: { _id: 1 } },
  ],
  "$unset, then the documents": [
    { $match: { "workflow.name": "workflow 3" } },
    { $unset: ["tasks", "groups"] },
  ],
};

describe.each([
  ["every document an object", Infinity, undefined],
  ["all but the newest 16 cold", 16, undefined],
  ["every document cold", 0, undefined],
  ["all but the newest 16 cold, the one-go stages on the aggregation thread", 16, 0],
])("embedded aggregations, %s", (_label, hotDocuments, aggregateInlineRows) => {
  let store: EmbeddedBackend;
  beforeAll(async () => {
    store = newStore(hotDocuments, aggregateInlineRows);
    const jobs = store.collection("jobs");
    await jobs.createIndex({ keys: { status: 1 } });
    await jobs.createIndex({ keys: { "workflow.name": 1, "metrics.start_time": -1 } });
    await jobs.createIndex({ keys: { "workflow._id": 1 } });
    await jobs.insertMany(Array.from({ length: JOBS }, (_, i) => job(i)));
  });
  afterAll(() => store.close());

  test.each(Object.entries(PIPELINES))("%s: mingo's answer over whole copies", async (_name, pipeline) => {
    const answer = await store.collection("jobs").aggregate(structuredClone(pipeline));
    expect(answer).toEqual(expected(pipeline));
    expect(answer.length).toBeGreaterThan(0);
  });

  test("an aggregation changes no stored document", async () => {
    const jobs = store.collection("jobs");
    await jobs.aggregate([
      { $addFields: { "workflow.name": "changed", status: "changed" } },
      { $count: "n" },
    ]);
    await jobs.aggregate([{ $match: { status: "error" } }, { $addFields: { "tasks.t1.status": "x" } }]);
    expect(await jobs.find({}, { sort: { _id: 1 } })).toEqual(Array.from({ length: JOBS }, (_, i) => job(i)));
  });
});

describe("what an aggregation reads of cold documents", () => {
  let store: EmbeddedBackend;
  beforeAll(async () => {
    store = newStore(0);
    const jobs = store.collection("jobs");
    await jobs.createIndex({ keys: { status: 1 } });
    await jobs.createIndex({ keys: { "workflow.name": 1, "metrics.start_time": -1 } });
    await jobs.insertMany(Array.from({ length: JOBS }, (_, i) => job(i)));
  });
  afterAll(() => store.close());

  test("one that reads only indexed fields parses no document", async () => {
    const docs = store.table("jobs").docs;
    expect(docs.coldCount).toBe(JOBS);
    const before = docs.parsed;
    const pipeline = PIPELINES["counts by workflow (indexed fields only)"];
    expect(await store.collection("jobs").aggregate(pipeline)).toEqual(expected(pipeline));
    expect(docs.parsed).toBe(before);
    // A leading $match on an indexed field: still no parse.
    const matched = [{ $match: { status: "error" } }, { $group: { _id: "$workflow.name", n: { $sum: 1 } } }];
    await store.collection("jobs").aggregate(matched);
    expect(docs.parsed).toBe(before);
  });

  test("one that reads an unindexed field parses each document it passes once", async () => {
    const docs = store.table("jobs").docs;
    const before = docs.parsed;
    const pipeline = PIPELINES["counts by workflow with run times"];
    expect(await store.collection("jobs").aggregate(pipeline)).toEqual(expected(pipeline));
    expect(docs.parsed - before).toBe(JOBS);
    // Through an index: only the documents it names.
    const mid = docs.parsed;
    await store.collection("jobs").aggregate([{ $match: { status: "error" } }, { $count: "n" }]);
    await store
      .collection("jobs")
      .aggregate([{ $match: { status: "error" } }, { $group: { _id: "$metrics.end_time" } }]);
    expect(docs.parsed - mid).toBe(JOBS / 4);
  });
});

describe("an aggregation past the aggregation thread's time limit", () => {
  test("fails as MongoDB's MaxTimeMSExpired (504 TIMEOUT), and the store goes on", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "store-aggregate-"));
    dirs.push(dataDir);
    // A budget the thread cannot keep: its own start takes longer.
    const store = new EmbeddedBackend({ dataDir, aggregateInlineRows: 0, aggregateBudgetMs: 1 });
    try {
      const jobs = store.collection("jobs");
      await jobs.insertMany(Array.from({ length: 40 }, (_, i) => job(i)));
      const failure = await jobs.aggregate([{ $group: { _id: "$status", n: { $sum: 1 } } }]).catch((e) => e);
      expect(failure).toMatchObject({
        name: "StoreTimeLimitError",
        code: 504,
        type: "TIMEOUT",
        data: { storeCode: 50, codeName: "MaxTimeMSExpired" },
      });
      expect(await jobs.count({ status: "error" })).toBe(10);
      await jobs.insertOne(job(40));
      expect(await jobs.count({})).toBe(41);
    } finally {
      await store.close();
    }
  });
});

describe("a leading $match that is no object", () => {
  test.each([null, 5, "status", []])("%j is refused as a find's filter is", async (match) => {
    const store = newStore(0);
    try {
      await store.collection("jobs").insertOne(job(1));
      await expect(store.collection("jobs").aggregate([{ $match: match }])).rejects.toThrow(
        "filter must be an object",
      );
    } finally {
      await store.close();
    }
  });
});

describe("an aggregation over many documents", () => {
  test("lets other work in while it reads them, and answers the same", async () => {
    const store = newStore(64);
    try {
      const jobs = store.collection("jobs");
      const many = 4_000;
      await jobs.insertMany(Array.from({ length: many }, (_, i) => ({ ...job(i), _id: `j${i}` })));
      // Counted while the aggregation runs: macrotasks (setImmediate) that got the event loop.
      let turns = 0;
      let running = true;
      const tick = () => {
        if (!running) return;
        turns++;
        setImmediate(tick);
      };
      setImmediate(tick);
      const answer = await jobs.aggregate([
        { $project: { task: { $objectToArray: "$tasks" } } },
        { $unwind: "$task" },
        { $match: { "task.v.type": "manual" } },
        { $count: "n" },
      ]);
      running = false;
      expect(answer).toEqual([{ n: many }]);
      expect(turns).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });
});

describe("where the per-document stages run", () => {
  const pipeline = PIPELINES["manual tasks (project, unwind, match, facet)"];

  test("past the inline rows, on the aggregation thread with the rest: mingo never runs on the event loop", async () => {
    const store = newStore(16, 50);
    const run = jest.spyOn(Aggregator.prototype, "run");
    try {
      await store.collection("jobs").insertMany(Array.from({ length: JOBS }, (_, i) => job(i)));
      const want = expected(pipeline);
      run.mockClear();
      const answer = await store.collection("jobs").aggregate(structuredClone(pipeline));
      expect(run).not.toHaveBeenCalled();
      expect(answer).toEqual(want);
    } finally {
      run.mockRestore();
      await store.close();
    }
  });

  test("few documents making many rows: the stages in place, the rows to the thread, the same answer", async () => {
    // 160 of the 240 documents match `groups: "all"` (i % 3 !== 0); each unwinds to 3 task rows.
    const store = newStore(16, 200);
    const run = jest.spyOn(Aggregator.prototype, "run");
    try {
      await store.collection("jobs").insertMany(Array.from({ length: JOBS }, (_, i) => job(i)));
      const unwound: Pipeline = [
        { $match: { groups: "all" } },
        { $project: { job: "$_id", task: { $objectToArray: "$tasks" } } },
        { $unwind: "$task" },
        { $sort: { "task.v.start_time": -1 } },
        { $limit: 4 },
      ];
      const want = expected(unwound);
      run.mockClear();
      const answer = await store.collection("jobs").aggregate(structuredClone(unwound));
      // The per-document stages once, in place, over the 160 documents (480 rows); the rest apart.
      expect(run).toHaveBeenCalledTimes(1);
      expect((run.mock.calls[0][0] as unknown[]).length).toBe(160);
      expect(answer).toEqual(want);
    } finally {
      run.mockRestore();
      await store.close();
    }
  });
});

describe("the plan (aggregate-plan.ts)", () => {
  test("takes the leading $match apart and runs per-document stages slice by slice", () => {
    const plan = planAggregate(PIPELINES["manual tasks (project, unwind, match, facet)"]);
    expect(plan.match).toEqual({ groups: "all" });
    expect(plan.perDocument.map((s) => Object.keys(s)[0])).toEqual(["$project", "$unwind", "$match"]);
    expect(plan.rest.map((s) => Object.keys(s)[0])).toEqual(["$facet"]);
    expect(new Set(plan.reads)).toEqual(
      new Set(["groups", "_id", "name", "status", "workflow", "spilled", "tasks"]),
    );
  });

  test("reads nested inclusions and $top's sortBy", () => {
    expect(planAggregate(PIPELINES["an inclusion project with a nested path"]).reads).toEqual(
      expect.arrayContaining(["status", "name", "workflow.name", "metrics.start_time"]),
    );
    expect(planAggregate(PIPELINES["$top's sortBy names fields by its keys"]).reads).toEqual(
      expect.arrayContaining(["status", "metrics.start_time", "name"]),
    );
  });

  test.each([
    "an exclusion project (whole documents)",
    "no reshaping stage (the stored documents are the answer)",
    "$$ROOT (whole documents)",
    "$getField names a member by a plain string",
    "$unset, then the documents",
  ])("%s: whole documents", (name) => {
    expect(planAggregate(PIPELINES[name]).reads).toBeUndefined();
  });

  test("a stage it does not know, a $match it cannot read, and $$CURRENT take whole documents", () => {
    expect(
      planAggregate([{ $lookup: { from: "x", localField: "a", foreignField: "b", as: "c" } }]).reads,
    ).toBeUndefined();
    expect(planAggregate([{ $match: { $expr: { $eq: ["$a", 1] } } }, { $count: "n" }]).reads).toBeUndefined();
    expect(planAggregate([{ $group: { _id: "$$CURRENT.a" } }]).reads).toBeUndefined();
  });

  test("$$NOW is one instant: nothing runs slice by slice", () => {
    const plan = planAggregate([{ $addFields: { now: "$$NOW" } }, { $count: "n" }]);
    expect(plan.perDocument).toEqual([]);
    expect(plan.rest).toHaveLength(2);
  });
});
