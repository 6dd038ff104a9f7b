/**
 * Compliance batches (docs/configuration-manager.md#batches): `runCompliance` stores a batch of
 * targets (device, node, backup) and answers its id at once; the run happens in the background, in
 * whichever replica claims it. Nothing about a run lives in a process: a claim is a lease in the
 * batch document (compare-and-set on `leaseUntil`), progress (`done`) and totals advance by
 * compare-and-set on the `done` the claimer read, and reports are unique per (batch, device). A
 * replica that dies mid-run stops renewing its lease; when it runs out, any replica resumes the batch
 * at `done`, and a report the dead replica had already written is kept, not written twice.
 */
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { invalidField, NotFoundError } from "../../shared/errors";
import { page, pageLimit } from "../../shared/paging";
import { nowIso } from "../../shared/text";
import { PoolClosedError } from "../../shared/worker-pool";
import { latestBackups } from "./backups";
import { withId } from "./answers";
import { checker, type Checker } from "./check";
import { unreadable } from "./evaluation";
import { nodeChain, requireVersion, ROOT_NODE } from "./trees";
import type { StoredBatch } from "./batches.repository";
import type { NewReport } from "./reports.repository";
import type { ConfigurationService, Ctx } from "./types";

type Target = StoredBatch["targets"][number];
const ZERO = { errors: 0, warnings: 0, infos: 0, passes: 0 };

export async function runCompliance(this: ConfigurationService, ctx: Ctx<"runCompliance">) {
  const { treeId, version, nodePath = ROOT_NODE, backups, deviceName } = ctx.params;
  // A Compliance history entry's `deviceName` names one device more (docs/compatibility.md).
  const devices =
    deviceName === undefined ? ctx.params.devices : [...new Set([...(ctx.params.devices ?? []), deviceName])];
  await requireVersion.call(this, treeId, version);
  await nodeChain.call(this, treeId, version, nodePath, true);
  const targets = await targetsOf.call(this, treeId, version, nodePath, devices, backups);
  const batch = await this.batches.create({
    treeId,
    version,
    nodePath,
    state: "queued",
    targets,
    done: 0,
    totals: { ...ZERO },
    claimedBy: null,
    leaseUntil: 0,
    created: nowIso(),
    finished: null,
    error: null,
  });
  // This replica starts at once; the others would find it on their next sweep anyway.
  setImmediate(() => sweepInBackground.call(this));
  const withoutBackup = targets.filter((t) => t.backupId === null).length;
  return { batchId: batch._id, devices: targets.length, withoutBackup };
}

/**
 * Named backups, named devices (their latest backup), or else the devices assigned at and under the
 * node. A device without a backup is a target all the same (`backupId` null): the batch checks the
 * others and reports it unreadable, with the reason. Only a request in which no device has a
 * backup is refused (400 naming `devices`): such a batch could check nothing.
 */
async function targetsOf(
  this: ConfigurationService,
  treeId: string,
  version: string,
  nodePath: string,
  devices: string[] | undefined,
  backupIds: string[] | undefined,
): Promise<Target[]> {
  const targets = new Map<string, Target>();
  for (const id of new Set(backupIds ?? [])) {
    const backup = await this.backups.summaryById(id);
    if (!backup) throw new NotFoundError("Backup", id);
    targets.set(backup.deviceName, { deviceName: backup.deviceName, nodePath, backupId: id });
  }
  let wanted: { deviceName: string; nodePath: string }[];
  if (devices) wanted = devices.map((deviceName) => ({ deviceName, nodePath }));
  else if (backupIds) wanted = [];
  else wanted = await assignedDevices.call(this, treeId, version, nodePath);
  wanted = wanted.filter((w) => !targets.has(w.deviceName));
  const latest = await latestBackups.call(this, [...new Set(wanted.map((w) => w.deviceName))]);
  for (const w of wanted) targets.set(w.deviceName, { ...w, backupId: latest.get(w.deviceName) ?? null });
  if (targets.size === 0)
    throw invalidField(
      "devices",
      `Node '${nodePath}' and the nodes under it have no devices assigned; name devices or backups.`,
      "empty",
    );
  const all = [...targets.values()];
  if (all.every((t) => t.backupId === null)) {
    const names = all.map((t) => t.deviceName);
    const more = names.length > 20 ? ` and ${names.length - 20} more` : "";
    throw invalidField(
      "devices",
      `No device to check has a backup: ${names.slice(0, 20).join(", ")}${more}.`,
      "noBackup",
    );
  }
  return all;
}

async function assignedDevices(
  this: ConfigurationService,
  treeId: string,
  version: string,
  nodePath: string,
) {
  const nodes = await this.nodes.assignments(treeId, version);
  return nodes
    .filter((n) => n.path === nodePath || n.path.startsWith(`${nodePath}/`))
    .flatMap((n) => n.devices.map((deviceName) => ({ deviceName, nodePath: n.path })));
}

/**
 * Whether this replica is leaving: its service stopping, or its broker (which turns `started` off
 * the moment a stop begins, before services stop) — so a batch is handed back at once.
 */
function leaving(service: ConfigurationService): boolean {
  return service.stopping || !service.broker.started;
}

/** The timer's and runCompliance's entry: one sweep at a time per replica, failures logged. */
export function sweepInBackground(this: ConfigurationService): void {
  if (this.sweeping || leaving(this)) return;
  this.sweeping = sweep
    .call(this)
    .catch((err: Error) => this.logger.warn(`compliance sweep failed: ${err.message}`))
    .finally(() => {
      this.sweeping = undefined;
    });
}

/** Claims and runs every batch that is queued or whose claimer's lease ran out. */
export async function sweep(this: ConfigurationService): Promise<{ batches: number }> {
  let batches = 0;
  while (!leaving(this)) {
    const now = this.clock();
    const claimed = await this.batches.claimNext(this.broker.nodeID, now, now + this.limits.leaseMs);
    if (!claimed) break;
    batches++;
    await runBatch.call(this, claimed);
  }
  return { batches };
}

async function runBatch(this: ConfigurationService, batch: StoredBatch): Promise<void> {
  const me = this.broker.nodeID;
  let check: Checker;
  try {
    check = await checker.call(this, batch.treeId, batch.version);
  } catch (err) {
    await this.batches.fail(batch._id, me, (err as Error).message, nowIso());
    return;
  }
  const size = this.limits.chunk;
  const evaluate = (from: number) => {
    const reports = checkChunk.call(this, batch, check, batch.targets.slice(from, from + size));
    reports.catch(() => undefined); // awaited below, or dropped with the batch
    return reports;
  };
  // The next chunk is evaluated (in the workers) while this one is stored: the pool never waits
  // for the store. A chunk evaluated ahead is only work lost if the lease is.
  let ahead = batch.done < batch.targets.length ? evaluate(batch.done) : undefined;
  for (let done = batch.done; done < batch.targets.length;) {
    if (leaving(this)) {
      // Handing the batch back at once: another replica (or this one restarted) resumes at `done`.
      await this.batches.handBack(batch._id, me);
      return;
    }
    let reports: NewReport[];
    try {
      reports = await ahead!;
    } catch (err) {
      if (!(err instanceof PoolClosedError && leaving(this))) throw err;
      continue; // the service is stopping: the next turn hands the batch back
    }
    const next = done + reports.length;
    ahead = next < batch.targets.length && !leaving(this) ? evaluate(next) : undefined;
    await this.reports.storeChunk(reports);
    const totals = { ...ZERO };
    for (const r of reports)
      for (const k of Object.keys(ZERO) as (keyof typeof ZERO)[]) totals[k] += r.totals[k];
    const advanced = await this.batches.advance(
      batch._id,
      me,
      done,
      next,
      totals,
      this.clock() + this.limits.leaseMs,
    );
    if (!advanced) return; // our lease ran out and another replica took the batch over
    done = next;
    await yieldToEventLoop();
  }
  await this.batches.complete(batch._id, me, nowIso());
}

async function checkChunk(
  this: ConfigurationService,
  batch: StoredBatch,
  check: Checker,
  chunk: Target[],
): Promise<NewReport[]> {
  const ids = chunk.flatMap((t) => (t.backupId === null ? [] : [t.backupId]));
  const backups = await this.backups.byIds(ids);
  const byId = new Map(backups.map((b) => [b._id, b]));
  // Every device of the chunk at once: the pool runs as many as it has workers, the rest queue.
  const results = await Promise.all(
    chunk.map(async (target) => {
      if (target.backupId === null) return unreadable(`device '${target.deviceName}' has no backup`);
      const backup = byId.get(target.backupId);
      if (!backup) return unreadable(`backup ${target.backupId} was deleted`);
      const spec = await check.specOf(target.nodePath).catch(() => null);
      if (!spec) return unreadable(`node '${target.nodePath}' was deleted`);
      return check.check(spec, backup.config);
    }),
  );
  return chunk.map((target, i) => ({
    batchId: batch._id,
    treeId: batch.treeId,
    version: batch.version,
    nodePath: target.nodePath,
    deviceName: target.deviceName,
    backupId: target.backupId,
    timestamp: nowIso(),
    ...results[i],
  }));
}

export async function getBatch(this: ConfigurationService, ctx: Ctx<"getBatch">) {
  const batch = await this.batches.byId(ctx.params.batchId);
  if (!batch) throw new NotFoundError("Compliance batch", ctx.params.batchId);
  const { targets, claimedBy: _c, leaseUntil: _l, ...rest } = batch;
  return { ...withId(rest), devices: targets.length };
}

/** A stored report as answered: `id` for `_id`, as the spec's history entries name it. */
export function asReport<T extends { _id: string }>(doc: T): Omit<T, "_id"> & { id: string } {
  const { _id, ...rest } = doc;
  return { id: _id, ...rest };
}

export async function listBatchReports(this: ConfigurationService, ctx: Ctx<"listBatchReports">) {
  const { batchId, skip = 0, limit } = ctx.params;
  if (!(await this.batches.exists(batchId))) throw new NotFoundError("Compliance batch", batchId);
  const size = pageLimit(limit);
  const { results, total } = await this.reports.pageOfBatch(batchId, skip, size);
  return page(
    results.map((r) => asReport(r)),
    total,
    skip,
    size,
  );
}

export async function getReport(this: ConfigurationService, ctx: Ctx<"getReport">) {
  const doc = await this.reports.byId(ctx.params.id);
  if (!doc) throw new NotFoundError("Compliance report", ctx.params.id);
  return asReport(doc);
}
