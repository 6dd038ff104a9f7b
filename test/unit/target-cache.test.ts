/**
 * The orchestrator targets each replica keeps (services/adapters/orchestrator/target-cache.ts): a
 * kept target answers until it is forgotten or TARGET_TTL_MS has passed; a read under way when a
 * change is announced is never kept (it may hold what the store answered before the change); a
 * failed read keeps nothing. The HTTP side (changes seen by the next call) is in
 * test/orchestrator/kept-targets.test.ts.
 */
import {
  TARGET_TTL_MS,
  TargetCache,
  type KeptTarget,
} from "../../services/adapters/orchestrator/target-cache";
import type { Target } from "../../services/adapters/orchestrator/target";

const kept = (generation: number, state?: "RUNNING" | "STOPPED"): KeptTarget => ({
  target: { name: "nso", generation } as unknown as Target,
  state,
});

/** A loader that counts its calls and answers the next value given. */
function loader(...values: KeptTarget[]) {
  const calls = { count: 0 };
  const load = async () => values[Math.min(calls.count++, values.length - 1)];
  return { load, calls };
}

test("a kept target answers without a read until the TTL has passed", async () => {
  const cache = new TargetCache();
  const { load, calls } = loader(kept(1), kept(2));
  const now = Date.now();
  expect((await cache.get("nso", load, now)).target.generation).toBe(1);
  expect((await cache.get("nso", load, now + TARGET_TTL_MS - 50)).target.generation).toBe(1);
  expect(calls.count).toBe(1);
  expect((await cache.get("nso", load, now + TARGET_TTL_MS + 50)).target.generation).toBe(2);
  expect(calls.count).toBe(2);
});

test("a forgotten target is read again at once; other adapters' stay kept", async () => {
  const cache = new TargetCache();
  const nso = loader(kept(1, "RUNNING"), kept(1, "STOPPED"));
  const other = loader(kept(7));
  await cache.get("nso", nso.load);
  await cache.get("other", other.load);
  cache.forget("nso");
  expect((await cache.get("nso", nso.load)).state).toBe("STOPPED");
  await cache.get("other", other.load);
  expect([nso.calls.count, other.calls.count]).toEqual([2, 1]);
});

test("a read under way when a change is announced is answered but not kept", async () => {
  const cache = new TargetCache();
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let reads = 0;
  const load = async () => {
    reads++;
    if (reads === 1) {
      await gate; // the store answered before the stop; the stop's event arrives meanwhile
      return kept(1, "RUNNING");
    }
    return kept(1, "STOPPED");
  };
  const first = cache.get("nso", load);
  cache.forget("nso");
  release();
  expect((await first).state).toBe("RUNNING");
  expect((await cache.get("nso", load)).state).toBe("STOPPED");
  expect(reads).toBe(2);
});

test("a failed read keeps nothing: the next call reads again", async () => {
  const cache = new TargetCache();
  let reads = 0;
  const load = async () => {
    if (++reads === 1) throw new Error("no such adapter");
    return kept(3);
  };
  await expect(cache.get("nso", load)).rejects.toThrow("no such adapter");
  expect((await cache.get("nso", load)).target.generation).toBe(3);
  expect(reads).toBe(2);
});

test("peek (a proxy call's way, without a promise) answers what get would without a read, nothing once forgotten or past the TTL", async () => {
  const cache = new TargetCache();
  const { load } = loader(kept(1, "RUNNING"));
  const now = Date.now();
  expect(cache.peek("nso", now)).toBeUndefined();
  await cache.get("nso", load, now);
  expect(cache.peek("nso", now + TARGET_TTL_MS - 50)).toMatchObject({
    state: "RUNNING",
    target: { generation: 1 },
  });
  expect(cache.peek("nso", now + TARGET_TTL_MS + 50)).toBeUndefined();
  expect(cache.peek("other", now)).toBeUndefined();
  cache.forget("nso");
  expect(cache.peek("nso", now)).toBeUndefined();
});
