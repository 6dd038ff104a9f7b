/**
 * What a replica keeps of its hot reads (shared/kept-reads.ts), beyond the kept targets' cases
 * (test/unit/target-cache.test.ts): calls that miss together share one read, except a call that
 * comes after a change was announced; nothing stored (null) is never kept; and the engine's
 * workflows (services/engine/workflows.repository.ts toRun) are forgotten by every write of the
 * repository, on this replica and, through `changed`, on every other (a failed write too).
 */
import { KeptReads } from "../../shared/kept-reads";
import { WorkflowRepository } from "../../services/engine/workflows.repository";
import { DuplicateKeyError } from "../../shared/store/types";
import { freshStorePerTest } from "../support/fresh-store";

/** A read held until `release`, counting its calls. */
function gatedLoader<T>(value: () => T) {
  const calls = { count: 0 };
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const load = async () => {
    calls.count++;
    await gate;
    return value();
  };
  return { load, calls, release };
}

test("calls that miss together share one read", async () => {
  const kept = new KeptReads<string>(1000, 10);
  const { load, calls, release } = gatedLoader(() => "v1");
  const answers = [kept.get("k", load), kept.get("k", load), kept.get("k", load)];
  release();
  expect(await Promise.all(answers)).toEqual(["v1", "v1", "v1"]);
  expect(calls.count).toBe(1);
  expect(await kept.get("k", load)).toBe("v1");
  expect(calls.count).toBe(1);
});

test("a call after a change was announced does not join the read under way: it reads anew, and only its answer is kept", async () => {
  const kept = new KeptReads<string>(1000, 10);
  // The first read got the store's answer from before the write; it lands after the second.
  const early = gatedLoader(() => "before");
  const early1 = kept.get("k", early.load);
  kept.forget("k"); // the write's announcement
  let lateReads = 0;
  const late = await kept.get("k", async () => (lateReads++, "after"));
  early.release();
  expect(await early1).toBe("before");
  expect([late, lateReads, early.calls.count]).toEqual(["after", 1, 1]);
  expect(kept.peek("k")).toBe("after");
});

test("nothing stored (null or undefined) is never kept: the next call asks again", async () => {
  const kept = new KeptReads<string | null>(1000, 10);
  let reads = 0;
  const load = async () => (++reads < 3 ? null : "created");
  expect(await kept.get("k", load)).toBeNull();
  expect(await kept.get("k", load)).toBeNull();
  expect(await kept.get("k", load)).toBe("created");
  expect(await kept.get("k", load)).toBe("created");
  expect(reads).toBe(3);
});

test("at most maxKept keys are kept: the oldest kept goes first", async () => {
  const kept = new KeptReads<number>(1000, 2);
  for (const [key, n] of [
    ["a", 1],
    ["b", 2],
    ["c", 3],
  ] as const)
    await kept.get(key, async () => n);
  expect([kept.peek("a"), kept.peek("b"), kept.peek("c")]).toEqual([undefined, 2, 3]);
});

describe("the engine's workflows, kept for job starts", () => {
  const fresh = freshStorePerTest("kept-workflows");
  const workflow = (name: string, groups: string[] = []) => ({
    name,
    description: "",
    type: "automation",
    groups,
    tags: [],
    tasks: {},
    transitions: {},
    created: "2026-12-03T00:00:00.000Z",
    created_by: "test",
    last_updated: "2026-12-03T00:00:00.000Z",
    last_updated_by: "test",
  });

  function repository(keep = true) {
    const announced: (string[] | undefined)[] = [];
    const workflows = new WorkflowRepository(fresh.store, {
      keep,
      changed: async (names) => void announced.push(names),
    });
    return { workflows, announced };
  }

  test("a start reads the store once; what it keeps is frozen, and shared by the next starts", async () => {
    const { workflows } = repository();
    await workflows.insert(workflow("wf"));
    const find = jest.spyOn(fresh.store.collection("workflows"), "findOne");
    const first = await workflows.toRun("wf");
    const second = await workflows.toRun("wf");
    expect(second).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first!.tasks)).toBe(true);
    expect(find).toHaveBeenCalledTimes(1);
  });

  test("every write forgets on this replica and announces what it wrote; a group's release, every workflow", async () => {
    const { workflows, announced } = repository();
    const made = await workflows.insert(workflow("wf", ["g1", "g2"]));
    await workflows.toRun("wf");
    await workflows.replace("wf", { $set: { description: "changed" } });
    expect((await workflows.toRun("wf"))!.description).toBe("changed");
    await workflows.releaseGroup("g1");
    expect((await workflows.toRun("wf"))!.groups).toEqual(["g2"]);
    await workflows.replace("wf", { $set: { name: "wf2" } });
    expect(await workflows.toRun("wf")).toBeNull();
    await workflows.toRun("wf2");
    await workflows.removeExact(made._id, "wf2");
    expect(await workflows.toRun("wf2")).toBeNull();
    expect(announced).toEqual([["wf"], ["wf"], undefined, ["wf", "wf2"], ["wf2"]]);
  });

  test("a write that failed is announced too (it may have been stored)", async () => {
    const { workflows, announced } = repository();
    await workflows.insert(workflow("wf"));
    await expect(workflows.insert(workflow("wf"))).rejects.toBeInstanceOf(DuplicateKeyError);
    expect(announced).toEqual([["wf"], ["wf"]]);
  });

  test("without the machinery (PERF_MACHINERY=false) every start reads the store", async () => {
    const { workflows } = repository(false);
    await workflows.insert(workflow("wf"));
    const find = jest.spyOn(fresh.store.collection("workflows"), "findOne");
    await workflows.toRun("wf");
    await workflows.toRun("wf");
    expect(find).toHaveBeenCalledTimes(2);
  });
});
