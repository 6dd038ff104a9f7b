/**
 * A fresh embedded store for each test of a file (the index and claim tests: each starts from an
 * empty store): made before each test in a folder of its own, closed and removed after it (spies
 * restored first, so a spy on the store's files never outlives its test). rules-store.ts is the
 * per-file twin: one store for the file, a fresh collection per test.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { EmbeddedBackend } from "../../shared/store/embedded/backend";

export interface FreshStore {
  /** This test's store (the reopened one after `reopen`). */
  readonly store: EmbeddedBackend;
  /** Closes this test's store and opens its folder again: what a restart finds in its log. */
  reopen(): Promise<EmbeddedBackend>;
}

/** Registers the per-test set-up and tear-down; `prefix` names the test's folder. */
export function freshStorePerTest(prefix: string): FreshStore {
  let dir = "";
  let current: EmbeddedBackend | undefined;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
    current = new EmbeddedBackend({ dataDir: dir });
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await current?.close();
    current = undefined;
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return {
    get store() {
      if (!current) throw new Error("freshStorePerTest: the store exists only while a test runs");
      return current;
    },
    async reopen() {
      await current?.close();
      current = new EmbeddedBackend({ dataDir: dir });
      return current;
    },
  };
}
