/**
 * Stored jobs as the engine's JobStore writes them (services/engine/run/types.ts), for tests of its
 * writes: a job of three no-op tasks, one done, one running under a claim, one not started.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { EmbeddedBackend } from "../../shared/store/embedded/backend";
import { JobRepository } from "../../services/engine/jobs.repository";
import { JobStore } from "../../services/engine/run/jobs";
import type { RunJob, RunTask } from "../../services/engine/run/types";

/** A no-op task in `status`, with nested incoming variables. */
export const task = (status: string, extra: Partial<RunTask> = {}): RunTask =>
  ({
    name: "noop",
    app: "benchtask",
    type: "automatic",
    status,
    variables: { incoming: { device: "r1", nested: { list: [1, 2] } }, outgoing: {} },
    ...extra,
  }) as unknown as RunTask;

/** A running job `id` at version 1: task `a` complete, `b` running (claimed), `c` incomplete. */
export function newJob(id: string): RunJob {
  return {
    _id: id,
    name: "j",
    status: "running",
    version: 1,
    variables: { a: 1 },
    metrics: { progress: 0 },
    tasks: {
      a: task("complete"),
      b: task("running", { claim: { owner: "x", until: 1, run: "r" } }),
      c: task("incomplete"),
    },
  } as unknown as RunJob;
}

/** `n` objects nested in one another: `{}` for 1, `{"a":{}}` for 2, ... */
export const nestedObjects = (n: number): Record<string, unknown> => {
  let value: Record<string, unknown> = {};
  for (let i = 1; i < n; i++) value = { a: value };
  return value;
};

/** The current test's store and JobStore (jobStorePerTest), and a job as the store holds it. */
export interface JobStoreFixture {
  /** The store's data folder (EmbeddedOptions.dataDir). */
  dataDir: string;
  backend: EmbeddedBackend;
  jobs: JobStore;
  stored(id: string): Promise<RunJob>;
}

/**
 * A JobStore on an embedded store of its own for each test of the file that calls this at its top
 * level (before its own hooks, which then find both made): closed after each test, its folders
 * removed after the file.
 */
export function jobStorePerTest(prefix: string): JobStoreFixture {
  const dirs: string[] = [];
  const fixture = {
    stored: async (id: string) => (await fixture.backend.collection("jobs").findOne({ _id: id })) as RunJob,
  } as JobStoreFixture;
  beforeEach(() => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    dirs.push(dir);
    fixture.dataDir = dir;
    fixture.backend = new EmbeddedBackend({ dataDir: dir });
    fixture.jobs = new JobStore(new JobRepository(fixture.backend));
  });
  afterEach(() => fixture.backend.close());
  afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
  return fixture;
}
