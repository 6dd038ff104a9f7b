/**
 * An embedded store for the store-rule tests (mongo-rules, size-bound): opened before the file's
 * tests, closed and removed after them; each test takes a fresh collection of it.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { StoreRuleError } from "../../shared/errors";
import { EmbeddedBackend } from "../../shared/store/embedded/backend";
import type { Collection } from "../../shared/store";

/** Registers the store's set-up and tear-down; answers a maker of fresh collections named `<prefix>_<n>`. */
export function rulesStore(prefix: string): () => Collection {
  let dir = "";
  let store: EmbeddedBackend;
  let counter = 0;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
    store = new EmbeddedBackend({ dataDir: dir });
  });
  afterAll(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return () => store.collection(`${prefix}_${counter++}`);
}

/** The StoreRuleError `promise` is refused with (the test fails if it is not refused so). */
export async function refusal(promise: Promise<unknown>): Promise<StoreRuleError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StoreRuleError);
  return err as StoreRuleError;
}
