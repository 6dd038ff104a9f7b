/**
 * The bounded line of password work (services/accounts/password-work.ts): at most `concurrency`
 * requests at once, each one's steps back to back, first come first served, a full line refused at
 * once (its work never runs), a request that waited past its deadline dropped unrun.
 */
import { PasswordWork, PasswordWorkBusyError } from "../../services/accounts/password-work";

/** A request's password work: two steps (as a password change's verify, then hash), logged. */
function twoSteps(log: string[], name: string) {
  return async () => {
    log.push(`${name}:1`);
    await new Promise((r) => setImmediate(r));
    log.push(`${name}:2`);
    await new Promise((r) => setImmediate(r));
    return name;
  };
}

test("one at a time: each request's steps back to back, in arrival order", async () => {
  const line = new PasswordWork({ concurrency: 1, queue: 10, maxWaitMs: 60_000 });
  const log: string[] = [];
  const answers = await Promise.all(["a", "b", "c"].map((n) => line.run(twoSteps(log, n))));
  expect(answers).toEqual(["a", "b", "c"]);
  expect(log).toEqual(["a:1", "a:2", "b:1", "b:2", "c:1", "c:2"]);
  expect(line.load).toEqual({ running: 0, waiting: 0 });
});

test("never more than `concurrency` at once", async () => {
  const line = new PasswordWork({ concurrency: 2, queue: 10, maxWaitMs: 60_000 });
  let now = 0;
  let most = 0;
  const work = async () => {
    now += 1;
    most = Math.max(most, now);
    await new Promise((r) => setImmediate(r));
    now -= 1;
  };
  await Promise.all(Array.from({ length: 7 }, () => line.run(work)));
  expect(most).toBe(2);
});

test("a full line refuses at once with a retryable 503, and the refused work never runs", async () => {
  const line = new PasswordWork({ concurrency: 1, queue: 1, maxWaitMs: 60_000 });
  const log: string[] = [];
  const first = line.run(twoSteps(log, "a"));
  const second = line.run(twoSteps(log, "b"));
  const third = line.run(twoSteps(log, "c"));
  await expect(third).rejects.toBeInstanceOf(PasswordWorkBusyError);
  await expect(third).rejects.toMatchObject({ code: 503, type: "SERVICE_UNAVAILABLE", retryable: true });
  expect(await Promise.all([first, second])).toEqual(["a", "b"]);
  expect(log).not.toContain("c:1");
});

test("a failed request frees its place", async () => {
  const line = new PasswordWork({ concurrency: 1, queue: 5, maxWaitMs: 60_000 });
  const failing = line.run(async () => {
    throw new Error("wrong password");
  });
  const next = line.run(async () => "next");
  await expect(failing).rejects.toThrow("wrong password");
  await expect(next).resolves.toBe("next");
});

test("a request that waited past its deadline is dropped unrun; the one behind it runs", async () => {
  const clock = jest.spyOn(Date, "now").mockReturnValue(1_000);
  try {
    const line = new PasswordWork({ concurrency: 1, queue: 5, maxWaitMs: 500 });
    const log: string[] = [];
    let release!: () => void;
    const first = line.run(() => new Promise<string>((resolve) => (release = () => resolve("a"))));
    const stale = line.run(twoSteps(log, "stale"));
    clock.mockReturnValue(1_400);
    const fresh = line.run(twoSteps(log, "fresh"));
    clock.mockReturnValue(1_600); // stale has waited 600 ms, fresh 200
    release();
    await expect(first).resolves.toBe("a");
    await expect(stale).rejects.toBeInstanceOf(PasswordWorkBusyError);
    await expect(fresh).resolves.toBe("fresh");
    expect(log).toEqual(["fresh:1", "fresh:2"]);
  } finally {
    clock.mockRestore();
  }
});
