/**
 * The claims in flight are found by index, not by scanning the run history
 * (services/scheduler/automation-runs.repository.ts): every window read asks for the earliest lease
 * and every sweep for the expired claims, while the history only grows: the index on `state`
 * names the claims.
 */
import { freshStorePerTest } from "../support/fresh-store";
import { Table } from "../../shared/store/embedded/table";
import { AutomationRunsRepository, slotId } from "../../services/scheduler/automation-runs.repository";
import type { AutomationRun } from "../../shared/contracts/resources";

const fixture = freshStorePerTest("scheduler-claims");

function run(i: number, state: AutomationRun["state"], leaseUntil: number): AutomationRun {
  const dueAt = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
  return {
    _id: slotId(`a${i}`, dueAt),
    automationId: `a${i}`,
    dueAt,
    state,
    jobId: `j${i}`,
    startedAt: state === "started" ? dueAt : null,
    reason: null,
    claimedBy: "node-1",
    leaseUntil,
  };
}

test("the earliest lease and the expired claims are looked up among the claims, not the history", async () => {
  const runs = new AutomationRunsRepository(fixture.store);
  await runs.ensureIndexes();
  // A long history of finished runs (their leases long past), and three claims in flight.
  await fixture.store
    .collection<AutomationRun>("automation_runs")
    .insertMany(Array.from({ length: 2000 }, (_, i) => run(i, i % 2 ? "started" : "failed", i)));
  for (const [i, lease] of [
    [5000, 9000],
    [5001, 7000],
    [5002, 12000],
  ])
    expect(await runs.claim(run(i, "claimed", lease))).toBe(true);

  const served: { filter: unknown; ids: string[] | undefined }[] = [];
  const candidates = Table.prototype.candidates;
  jest.spyOn(Table.prototype, "candidates").mockImplementation(function (this: Table, filter) {
    const ids = candidates.call(this, filter);
    served.push({ filter, ids });
    return ids;
  });

  expect(await runs.earliestLease()).toBe(7000);
  expect((await runs.expiredClaims(10_000, 10)).map((r) => r.automationId).sort()).toEqual([
    "a5000",
    "a5001",
  ]);
  expect(await runs.expiredClaims(5000, 10)).toEqual([]);
  // Each of the three reads named the three claims only.
  expect(served).toHaveLength(3);
  for (const s of served) expect(s.ids).toHaveLength(3);
});
