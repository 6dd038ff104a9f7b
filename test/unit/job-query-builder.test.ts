/**
 * The job query builder (services/engine/jobs/query-builder.ts and query-fields.ts,
 * docs/engine-queries.md "queryParameters" and "The value rule"): each `queryParameters` member
 * becomes exactly one store filter clause, the sort, the page, the projection or the dereference
 * list; bad input is a 400 naming its field. A few filters are also run against sample jobs with
 * the embedded store's predicate (MongoDB semantics) to check what they match, not only their shape.
 */
import {
  jobStoreQuery,
  type JobQueryParameters,
  type JobStoreQuery,
} from "../../services/engine/jobs/query-builder";
import {
  alternatives,
  coerceTo,
  kindOf,
  parseIsoDate,
  rangeValue,
} from "../../services/engine/jobs/query-fields";
import { BadRequestError, type FieldError } from "../../shared/errors";
import { predicateOf } from "../../shared/store/embedded/mongo";
import type { Filter } from "../../shared/store/types";

const DEFAULTS: Omit<JobStoreQuery, "filter"> = {
  sort: { "metrics.start_time": -1, _id: -1 },
  skip: 0,
  limit: 25,
  projection: undefined,
  dereference: [],
  hints: [],
};

/** The filter of a query. */
const filterOf = (params: JobQueryParameters) => jobStoreQuery(params).filter;

/** The single field error a query is refused with. */
function refusal(params: JobQueryParameters): FieldError {
  try {
    jobStoreQuery(params);
  } catch (err) {
    if (!(err instanceof BadRequestError)) throw err;
    expect(err.code).toBe(400);
    const data = err.data as FieldError[];
    expect(data).toHaveLength(1);
    return data[0];
  }
  throw new Error(`query accepted: ${JSON.stringify(params)}`);
}

/** Ids of the sample jobs `filter` matches (embedded store semantics). */
const JOBS = [
  {
    _id: "j1",
    name: "Backup a.*(router)",
    description: "nightly",
    status: "complete",
    groups: ["g1", "g2"],
    metrics: { start_time: Date.parse("2026-01-02T00:00:00Z"), progress: 100 },
    created: "2026-01-02T00:00:00.000Z",
    variables: { count: 5, site: "NYC", on: true },
    tasks: { a1: { status: "complete" } },
  },
  {
    _id: "j2",
    name: "Upgrade",
    description: "router backup",
    status: "running",
    groups: ["g2"],
    metrics: { start_time: Date.parse("2026-03-01T00:00:00Z"), progress: 40 },
    created: "2026-03-01T00:00:00.000Z",
    variables: { count: "5", site: "lon" },
    tasks: { a1: { status: "running" } },
  },
  {
    _id: "j3",
    name: "Audit",
    description: "",
    status: "error",
    groups: [],
    metrics: { start_time: Date.parse("2025-12-31T00:00:00Z"), progress: 10 },
    created: "2025-12-31T00:00:00.000Z",
    variables: { count: 50 },
    tasks: {},
  },
];
function matching(filter: Filter): string[] {
  const test = predicateOf(filter);
  return JOBS.filter((job) => !test || test(job)).map((job) => job._id);
}

describe("without parameters", () => {
  test("everything, newest first, the first page of 25", () => {
    expect(jobStoreQuery()).toEqual({ filter: {}, ...DEFAULTS });
    expect(jobStoreQuery({})).toEqual({ filter: {}, ...DEFAULTS });
  });

  test("a scope (group-based access) is the filter, AND-ed with any other clause", () => {
    const scope = { groups: { $in: ["g1"] } };
    expect(jobStoreQuery({}, scope).filter).toEqual(scope);
    expect(jobStoreQuery({ equals: { status: "running" } }, scope).filter).toEqual({
      $and: [scope, { status: "running" }],
    });
    // Filters only narrow within the scope: `equals[groups]` cannot widen it.
    expect(matching(jobStoreQuery({ equals: { groups: "g2" } }, scope).filter)).toEqual(["j1"]);
  });
});

describe("equals", () => {
  test("a text field: the text as is", () => {
    expect(filterOf({ equals: { status: "running" } })).toEqual({ status: "running" });
    expect(filterOf({ equals: { "tasks.a1.status": "complete" } })).toEqual({
      "tasks.a1.status": "complete",
    });
    expect(filterOf({ equals: { name: 5 } })).toEqual({ name: "5" });
  });

  test("a number field: numeric text is a number, ISO date text its epoch ms", () => {
    expect(filterOf({ equals: { "metrics.progress": "100" } })).toEqual({ "metrics.progress": 100 });
    expect(filterOf({ equals: { "metrics.start_time": "2026-01-02T00:00:00Z" } })).toEqual({
      "metrics.start_time": Date.parse("2026-01-02T00:00:00Z"),
    });
    expect(refusal({ equals: { "metrics.progress": "lots" } })).toEqual({
      field: "queryParameters.equals.metrics.progress",
      message: "'lots' is not a number or an ISO 8601 date",
      type: "number",
    });
  });

  test("a date field: normalized to the stored form; a number is epoch ms", () => {
    expect(filterOf({ equals: { created: "2026-01-03" } })).toEqual({ created: "2026-01-03T00:00:00.000Z" });
    expect(filterOf({ equals: { created: "2026-01-03T10:00:00+02:00" } })).toEqual({
      created: "2026-01-03T08:00:00.000Z",
    });
    expect(filterOf({ equals: { created: 0 } })).toEqual({ created: "1970-01-01T00:00:00.000Z" });
    expect(refusal({ equals: { created: "yesterday" } })).toMatchObject({
      field: "queryParameters.equals.created",
      type: "date",
    });
  });

  test("any other path: the text and also its number or boolean", () => {
    expect(filterOf({ equals: { "variables.count": "5" } })).toEqual({
      "variables.count": { $in: ["5", 5] },
    });
    expect(filterOf({ equals: { "variables.on": "true" } })).toEqual({
      "variables.on": { $in: ["true", true] },
    });
    expect(filterOf({ equals: { "variables.site": "NYC" } })).toEqual({ "variables.site": "NYC" });
    expect(matching(filterOf({ equals: { "variables.count": "5" } }))).toEqual(["j1", "j2"]);
  });

  test("on an array field, any element", () => {
    expect(matching(filterOf({ equals: { groups: "g2" } }))).toEqual(["j1", "j2"]);
  });
});

describe("contains, starts-with, ends-with", () => {
  test("a case-insensitive regex of the escaped text", () => {
    expect(filterOf({ contains: { name: "a.*(" } })).toEqual({
      name: { $regex: "a\\.\\*\\(", $options: "i" },
    });
    expect(filterOf({ "starts-with": { name: "Back" } })).toEqual({
      name: { $regex: "^Back", $options: "i" },
    });
    expect(filterOf({ "ends-with": { name: "$" } })).toEqual({ name: { $regex: "\\$$", $options: "i" } });
  });

  test("the text is literal, never a pattern", () => {
    expect(matching(filterOf({ contains: { name: "a.*(" } }))).toEqual(["j1"]);
    expect(matching(filterOf({ contains: { name: ".*" } }))).toEqual(["j1"]);
    expect(matching(filterOf({ "starts-with": { name: "backup" } }))).toEqual(["j1"]);
    expect(matching(filterOf({ "ends-with": { name: "ADE" } }))).toEqual(["j2"]);
  });

  test("on a number field they are a 400", () => {
    expect(refusal({ contains: { "metrics.progress": "1" } })).toEqual({
      field: "queryParameters.contains.metrics.progress",
      message: "'contains' matches text; 'metrics.progress' is a number field (use gt/gte/lt/lte or equals)",
      type: "text",
    });
    expect(refusal({ "starts-with": { "metrics.start_time": "1" } }).type).toBe("text");
    // `version` is the engine's, never answered: not a field a query may name.
    expect(refusal({ "starts-with": { version: "1" } }).type).toBe("hidden");
  });
});

describe("gt, gte, lt, lte", () => {
  test("each is one clause; two on one field make a range", () => {
    expect(
      filterOf({
        gte: { "metrics.start_time": "2026-01-01T00:00:00Z" },
        lt: { "metrics.start_time": "2026-02-01" },
      }),
    ).toEqual({
      $and: [
        { "metrics.start_time": { $gte: Date.parse("2026-01-01T00:00:00Z") } },
        { "metrics.start_time": { $lt: Date.parse("2026-02-01T00:00:00Z") } },
      ],
    });
    expect(filterOf({ gt: { "metrics.progress": "50" } })).toEqual({ "metrics.progress": { $gt: 50 } });
    expect(filterOf({ lte: { created: "2026-01-02" } })).toEqual({
      created: { $lte: "2026-01-02T00:00:00.000Z" },
    });
    expect(matching(filterOf({ gte: { "metrics.start_time": "2026-01-01" } }))).toEqual(["j1", "j2"]);
  });

  test("on any other path: a number when the text is numeric, the text otherwise", () => {
    expect(filterOf({ gt: { "variables.count": "10" } })).toEqual({ "variables.count": { $gt: 10 } });
    expect(filterOf({ gt: { "variables.site": "m" } })).toEqual({ "variables.site": { $gt: "m" } });
    // Only numbers match a numeric range: "5" (text) is not greater than 1.
    expect(matching(filterOf({ gt: { "variables.count": "1" } }))).toEqual(["j1", "j3"]);
  });
});

describe("in and not-in", () => {
  test("comma-separated text: items trimmed, empty ones dropped, duplicates removed", () => {
    expect(filterOf({ in: { status: " running, error,,running " } })).toEqual({
      status: { $in: ["running", "error"] },
    });
  });

  test("a list of values, coerced to the field's kind", () => {
    expect(filterOf({ in: { "metrics.progress": ["10", 40] } })).toEqual({
      "metrics.progress": { $in: [10, 40] },
    });
    expect(filterOf({ "not-in": { "variables.count": "5,50" } })).toEqual({
      "variables.count": { $nin: ["5", 5, "50", 50] },
    });
  });

  test("not-in also matches jobs without the field", () => {
    expect(matching(filterOf({ "not-in": { "variables.site": "NYC" } }))).toEqual(["j2", "j3"]);
    expect(matching(filterOf({ in: { status: "running,error" } }))).toEqual(["j2", "j3"]);
  });

  test("a value that cannot be the field's kind is a 400 on that field", () => {
    expect(refusal({ in: { "metrics.progress": "1,x" } })).toMatchObject({
      field: "queryParameters.in.metrics.progress",
      type: "number",
    });
  });
});

describe("q", () => {
  test("name or description contains the text (trimmed, literal, case-insensitive)", () => {
    const text = { $regex: "router", $options: "i" };
    expect(filterOf({ q: "  router " })).toEqual({ $or: [{ name: text }, { description: text }] });
    expect(matching(filterOf({ q: "ROUTER" }))).toEqual(["j1", "j2"]);
  });

  test("blank text is no filter", () => {
    expect(filterOf({ q: "   " })).toEqual({});
  });
});

test("every filter is AND-ed, in a fixed order", () => {
  const filter = filterOf({
    q: "x",
    "not-in": { status: "error" },
    in: { status: "running" },
    lt: { "metrics.progress": 5 },
    "ends-with": { name: "b" },
    contains: { name: "a" },
    equals: { status: "running" },
  });
  expect((filter.$and as Filter[]).map((clause) => Object.keys(clause)[0])).toEqual([
    "status",
    "name",
    "name",
    "metrics.progress",
    "status",
    "status",
    "$or",
  ]);
});

describe("field paths", () => {
  test.each(["$where", "variables.$gt", "a..b", ".a", "a.", "", "a\nb"])(
    "%p is not a field path (400)",
    (path) => {
      expect(refusal({ equals: { [path]: "x" } })).toEqual({
        field: `queryParameters.equals.${path}`,
        message: `'${path}' is not a field path: use dot-separated field names, none empty or starting with '$'`,
        type: "fieldPath",
      });
    },
  );

  test("sort, include and exclude paths are checked the same way", () => {
    expect(refusal({ sort: "$natural" }).field).toBe("queryParameters.sort");
    expect(refusal({ include: "name,$x" }).field).toBe("queryParameters.include");
    expect(refusal({ exclude: "a..b" }).field).toBe("queryParameters.exclude");
  });

  test("a `$` inside a segment (not at its start) is an ordinary name", () => {
    expect(filterOf({ equals: { "variables.a$b": "x" } })).toEqual({ "variables.a$b": "x" });
  });
});

describe("sort and order", () => {
  test("a sort path ascending by default, _id breaking ties in the same direction", () => {
    expect(jobStoreQuery({ sort: "name" }).sort).toEqual({ name: 1, _id: 1 });
    expect(jobStoreQuery({ sort: "name", order: -1 }).sort).toEqual({ name: -1, _id: -1 });
    expect(jobStoreQuery({ sort: "_id", order: -1 }).sort).toEqual({ _id: -1 });
  });

  test("order alone sets the direction of the default sort", () => {
    expect(jobStoreQuery({ order: 1 }).sort).toEqual({ "metrics.start_time": 1, _id: 1 });
  });
});

describe("skip and limit", () => {
  test("as asked, up to 1000; a larger limit is capped and the hints say so", () => {
    expect(jobStoreQuery({ skip: 50, limit: 10 })).toMatchObject({ skip: 50, limit: 10, hints: [] });
    expect(jobStoreQuery({ limit: 1000 })).toMatchObject({ limit: 1000, hints: [] });
    expect(jobStoreQuery({ limit: 5000 })).toMatchObject({
      limit: 1000,
      hints: ["limit 5000 is over the largest page: capped at 1000"],
    });
  });
});

describe("include and exclude", () => {
  test("comma lists become an inclusion or an exclusion projection", () => {
    expect(jobStoreQuery({ include: "name, status ,metrics.progress" }).projection).toEqual({
      name: 1,
      status: 1,
      "metrics.progress": 1,
    });
    expect(jobStoreQuery({ exclude: "tasks,variables" }).projection).toEqual({ tasks: 0, variables: 0 });
    expect(jobStoreQuery({ include: " , " }).projection).toBeUndefined();
  });

  test("a path under another listed path is dropped; duplicates are one", () => {
    expect(jobStoreQuery({ include: "metrics.user,metrics,name,name" }).projection).toEqual({
      metrics: 1,
      name: 1,
    });
    expect(jobStoreQuery({ exclude: "tasks.a1,tasks" }).projection).toEqual({ tasks: 0 });
  });

  test("they cannot be combined, except exclude=_id with include", () => {
    expect(jobStoreQuery({ include: "name", exclude: "_id" }).projection).toEqual({ name: 1, _id: 0 });
    expect(jobStoreQuery({ exclude: "_id" }).projection).toEqual({ _id: 0 });
    expect(refusal({ include: "name", exclude: "status" })).toEqual({
      field: "queryParameters.exclude",
      message:
        "include and exclude cannot be combined (except exclude=_id): list the fields you want in include",
      type: "projection",
    });
  });
});

describe("dereference", () => {
  test("a comma list of workflow and groups, each once", () => {
    expect(jobStoreQuery({ dereference: "groups, workflow,groups" }).dereference).toEqual([
      "groups",
      "workflow",
    ]);
    expect(jobStoreQuery({ dereference: "" }).dereference).toEqual([]);
  });

  test("any other name is a 400 naming it", () => {
    expect(refusal({ dereference: "workflow,owner,tasks" })).toEqual({
      field: "queryParameters.dereference",
      message: "Cannot dereference 'owner', 'tasks': expandable fields are workflow, groups",
      type: "dereference",
    });
  });
});

describe("the value rule (query-fields.ts)", () => {
  test("field kinds, with `*` standing for one task id", () => {
    expect(kindOf("metrics.start_time")).toBe("number");
    expect(kindOf("tasks.anyTask.end_time")).toBe("number");
    expect(kindOf("tasks.anyTask.retrySettings.count")).toBe("number");
    expect(kindOf("tasks.t1.start_time")).toBe("date");
    expect(kindOf("last_updated")).toBe("date");
    expect(kindOf("workflow.name")).toBe("text");
    expect(kindOf("tasks.t1.status")).toBe("text");
    expect(kindOf("tasks.status")).toBe("any");
    expect(kindOf("variables.start_time")).toBe("any");
  });

  test("ISO 8601 dates: date only, date-time with or without seconds, fraction and offset; no offset is UTC", () => {
    expect(parseIsoDate("2026-01-03")).toBe(Date.UTC(2026, 0, 3));
    expect(parseIsoDate("2026-01-03T04:05")).toBe(Date.UTC(2026, 0, 3, 4, 5));
    expect(parseIsoDate("2026-01-03T04:05:06.789Z")).toBe(Date.UTC(2026, 0, 3, 4, 5, 6, 789));
    expect(parseIsoDate("2026-01-03T04:05:06-0130")).toBe(Date.UTC(2026, 0, 3, 5, 35, 6));
    for (const text of ["03/01/2026", "2026-1-3", "2026-13-01", "today", "1767225600000"])
      expect(parseIsoDate(text)).toBeUndefined();
  });

  test("an impossible calendar date (2026-02-30) is not a date: a 400, not the 2nd of March", () => {
    expect(parseIsoDate("2026-02-30")).toBeUndefined();
    expect(refusal({ equals: { created: "2026-02-30" } }).type).toBe("date");
  });

  test("coercion and alternatives", () => {
    expect(coerceTo("number", " 1e3 ", "f")).toBe(1000);
    expect(coerceTo("number", -2.5, "f")).toBe(-2.5);
    expect(coerceTo("date", "1767225600000", "f")).toBe("2026-01-01T00:00:00.000Z");
    expect(coerceTo("text", true, "f")).toBe("true");
    expect(coerceTo("any", "x", "f")).toBe("x");
    expect(() => coerceTo("number", true, "f")).toThrow(BadRequestError);
    expect(alternatives(" 7 ")).toEqual([" 7 ", 7]);
    expect(alternatives("false")).toEqual(["false", false]);
    expect(alternatives("abc")).toEqual(["abc"]);
    expect(alternatives(3)).toEqual([3]);
    expect(rangeValue("12")).toBe(12);
    expect(rangeValue("12a")).toBe("12a");
  });
});
