/**
 * What the embedded store's index lookups answered (shared/store/embedded/table.ts `candidates`),
 * filter by filter, while `run` ran: undefined where none served and the query scanned.
 */
import { Table } from "../../shared/store/embedded/table";

export async function lookedUp(run: () => Promise<unknown>): Promise<(string[] | undefined)[]> {
  const answers: (string[] | undefined)[] = [];
  const candidates = Table.prototype.candidates;
  const spy = jest.spyOn(Table.prototype, "candidates").mockImplementation(function (this: Table, ...args) {
    const ids = candidates.apply(this, args);
    answers.push(ids);
    return ids;
  });
  try {
    await run();
  } finally {
    spy.mockRestore();
  }
  return answers;
}
