/**
 * preserveFormData's container restoration (services/forms/preserve.ts, docs/catalog.md
 * "preserveFormData: exactly what it restores"): the stored form is the reference, the data is
 * walked beside it from the top, and exactly two serializer mutations are undone (an array turned
 * into an index-keyed object, an object turned into `[key, value]` entries); anything else is left
 * as sent. Also the handler's use of the stored form, with a hand-built forms accessor.
 */
import { preserveFormData, type FormsService } from "../../services/forms/handlers";
import { MAX_FORM_DEPTH, depthOf, referenceOf, restoreContainers } from "../../services/forms/preserve";
import { NotFoundError } from "../../shared/errors";

describe("rule 1: an array the data holds as an index-keyed object", () => {
  test("becomes the array of its values in ascending numeric index order ('2' before '10')", () => {
    const data = { "10": "k", "2": "c", "0": "a" };
    expect(restoreContainers(["x"], data)).toEqual(["a", "c", "k"]);
  });

  test("gaps are closed, and {} is the empty array", () => {
    expect(restoreContainers([], { "0": "a", "5": "b" })).toEqual(["a", "b"]);
    expect(restoreContainers([1, 2], {})).toEqual([]);
  });

  test.each([["01"], ["-1"], ["1.0"], ["+1"], [" 1"], ["1e2"], ["a"], ["1234567890123456"]])(
    "a key %p is not an index: the object is left as sent",
    (key) => {
      const data = { "0": "a", [key]: "b" };
      expect(restoreContainers(["x"], data)).toEqual(data);
    },
  );

  test("an index of up to 15 digits is an index", () => {
    expect(restoreContainers([], { "123456789012345": "z", "3": "a" })).toEqual(["a", "z"]);
  });
});

describe("rule 2: an object the data holds as [key, value] entries", () => {
  test("becomes the object of those entries", () => {
    expect(
      restoreContainers({ a: 0, b: 0 }, [
        ["a", 1],
        ["b", [2]],
        ["extra", null],
      ]),
    ).toEqual({ a: 1, b: [2], extra: null });
  });

  test("[] is the empty object", () => {
    expect(restoreContainers({ a: 1 }, [])).toEqual({});
  });

  test.each([
    [
      "a key twice",
      [
        ["a", 1],
        ["a", 2],
      ],
    ],
    ["a key that is not text", [[1, "a"]]],
    ["an item of three", [["a", 1, 2]]],
    ["an item of one", [["a"]]],
    ["an item that is not a pair", [["a", 1], "b"]],
    ["a list of objects", [{ key: "a", value: 1 }]],
  ])("%s: the array is left as sent", (_what, data) => {
    expect(restoreContainers({ a: 0 }, data)).toEqual(data);
  });

  test("a `__proto__` key stays data, never a prototype", () => {
    const data = JSON.parse('{"settings": [["__proto__", {"polluted": true}]]}');
    const out = restoreContainers({ settings: { a: 1 } }, data) as { settings: object };
    expect(Object.getPrototypeOf(out.settings)).toBe(Object.prototype);
    expect(Object.prototype.hasOwnProperty.call(out.settings, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("rule 3: restored containers are repaired member by member, at every level", () => {
  test("array items against the reference's item at the same index, members against the same key", () => {
    const reference = {
      children: [
        { name: "host", options: ["a", "b"], attrs: { required: true } },
        { name: "ports", options: [1], attrs: { min: 1 } },
      ],
      elements: [],
    };
    const data = {
      children: {
        "0": { name: "host", options: { "0": "x", "1": "y" }, attrs: [["required", false]] },
        "1": { name: "ports", options: {}, attrs: [] },
      },
      elements: {},
    };
    expect(restoreContainers(reference, data)).toEqual({
      children: [
        { name: "host", options: ["x", "y"], attrs: { required: false } },
        { name: "ports", options: [], attrs: {} },
      ],
      elements: [],
    });
  });

  test("an entries array inside an index-keyed object inside entries", () => {
    const reference = { rows: [{ cells: { a: 1 } }] };
    const data = [["rows", { "0": [["cells", [["a", 2]]]] }]];
    expect(restoreContainers(reference, data)).toEqual({ rows: [{ cells: { a: 2 } }] });
  });

  test("containers that were not changed are walked too", () => {
    expect(restoreContainers({ a: [{ b: [] }] }, { a: [{ b: { "0": 1 } }] })).toEqual({ a: [{ b: [1] }] });
  });
});

describe("rule 4: anything else is left as sent", () => {
  test("a scalar where the reference holds a container, and a container where it holds a scalar", () => {
    expect(restoreContainers({ a: [] }, { a: "text" })).toEqual({ a: "text" });
    expect(restoreContainers({ a: {} }, { a: 5 })).toEqual({ a: 5 });
    expect(restoreContainers({ a: "s" }, { a: { "0": 1 } })).toEqual({ a: { "0": 1 } });
    expect(restoreContainers({ a: 1 }, { a: [["k", "v"]] })).toEqual({ a: [["k", "v"]] });
  });

  test("a member the reference lacks", () => {
    expect(restoreContainers({ a: [] }, { a: {}, b: {}, c: [["k", 1]] })).toEqual({
      a: [],
      b: {},
      c: [["k", 1]],
    });
  });

  test("inherited names are not reference members", () => {
    const data = JSON.parse('{"constructor": {"0": 1}, "toString": [["a", 1]]}');
    expect(restoreContainers({}, data)).toEqual(data);
  });

  test("an array item past the reference's length", () => {
    expect(restoreContainers([{ x: [] }], [{ x: {} }, { x: {} }])).toEqual([{ x: [] }, { x: {} }]);
  });

  test("the scalars themselves, and null", () => {
    expect(restoreContainers({ a: [] }, { a: null })).toEqual({ a: null });
    expect(restoreContainers(null, { "0": 1 })).toEqual({ "0": 1 });
    expect(restoreContainers("x", [["a", 1]])).toEqual([["a", 1]]);
  });

  test("data nested deeper than the walk goes (64 levels) is left as it is there", () => {
    let reference: unknown = [];
    let data: unknown = {};
    for (let i = 0; i < 70; i++) {
      reference = { n: reference };
      data = { n: data };
    }
    let node = restoreContainers(reference, data) as { n: unknown };
    for (let i = 0; i < 70; i++) node = node.n as { n: unknown };
    // The innermost `{}` (level 70) was past the walk: not turned into [].
    expect(node).toEqual({});
  });
});

test("the data sent is never changed: the answer is built beside it", () => {
  const data = { a: { "0": { b: [["c", 1]] } } };
  const copy = structuredClone(data);
  restoreContainers({ a: [{ b: { c: 0 } }] }, data);
  expect(data).toEqual(copy);
});

test("depthOf counts container levels (forms nested deeper than MAX_FORM_DEPTH are refused)", () => {
  expect(depthOf("s")).toBe(0);
  expect(depthOf(null)).toBe(0);
  expect(depthOf([])).toBe(1);
  expect(depthOf({ a: [{ b: 1 }] })).toBe(3);
  expect(depthOf([[], [[[]]], {}])).toBe(4);
  expect(MAX_FORM_DEPTH).toBe(32);
});

describe("the preserveFormData handler", () => {
  const form = {
    _id: "f1",
    name: "device",
    children: [{ name: "host", options: ["a"] }],
    elements: [],
    groups: [],
  };
  /** The forms service as the handler sees it: only `forms.get`, over one stored form. */
  const service = {
    forms: {
      get: async (name: string) => {
        if (name !== form.name) throw new NotFoundError("Form", name);
        return structuredClone(form);
      },
    },
  } as unknown as FormsService;
  const call = (params: { form_name: string; data: Record<string, unknown> }) =>
    preserveFormData.call(service, { params } as Parameters<typeof preserveFormData>[0]);

  test("restores the data against the stored form named form_name", async () => {
    await expect(
      call({ form_name: "device", data: { children: { "0": { name: "h", options: {} } }, elements: {} } }),
    ).resolves.toEqual({ children: [{ name: "h", options: [] }], elements: [] });
  });

  test("an unknown form is a 404", async () => {
    await expect(call({ form_name: "nope", data: {} })).rejects.toMatchObject({ code: 404 });
  });
});

describe("the reference for submitted values (referenceOf)", () => {
  test("a container field names an empty container of its type; the document's own members win", () => {
    const form = {
      name: "f",
      children: [
        { name: "ports", properties: { type: "array" } },
        { key: "vlans", properties: { type: "object" } },
        { name: "host", properties: { type: "string" } },
        { name: "name", properties: { type: "array" } },
        { properties: { type: "array" } },
      ],
    };
    const reference = referenceOf(form);
    expect(reference).toEqual({ ports: [], vlans: {}, ...form });
    expect(restoreContainers(reference, { ports: { "0": "Gi0/1" } })).toEqual({ ports: ["Gi0/1"] });
  });

  test("a field named __proto__ stays data", () => {
    const reference = referenceOf({ children: [{ name: "__proto__", properties: { type: "array" } }] });
    expect(Object.getPrototypeOf(reference)).toBe(Object.prototype);
    expect(Object.hasOwn(reference, "__proto__")).toBe(true);
  });
});
