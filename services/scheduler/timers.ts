/**
 * Firing at the due time (docs/scheduler.md#firing-at-the-due-time): each replica keeps the earliest
 * due times it knows of, each with its automation, sorted, and arms ONE timer for the first of them.
 * When it fires, the automations due by then are fired by `_id` (firing.ts fireDue: read fresh from
 * the store, fired only if still due), and the timer is armed for the next time. Which replica fires
 * a slot is still settled by the claim in the store: timers only decide when a replica looks.
 *
 * Where the due times come from:
 * - a window read from the store: the `size` x replicas earliest due times after the last firing
 *   (each replica keeps its share, about `size`), on start,
 *   when the window is used up, on every sweep and when a node leaves (failover);
 * - hints: a schedule written on any replica (SCHEDULE_CHANGED_EVENT) and this replica's own
 *   advances (a repeating automation's next due time). A written schedule also has the window read
 *   again (at most every REFRESH_SPACING_MS), so a write of many schedules that announces only its
 *   earliest due time still arms every one;
 * - the earliest lease of a claimed slot, so a dead replica's claim is taken over when it expires.
 *
 * With several replicas, each arms timers only for the automations it owns (`mine`: the automation
 * id hashed over the live replicas), so they do not all race for every slot; the claim still
 * decides. Anything the timers miss (a write straight into the store, a lost event, the share of a
 * replica that stopped answering) is fired by the sweep, a full pass of every replica every
 * SCHEDULER_TICK_MS, at once when a node leaves.
 *
 * Bounded: at most 2 x `size` times are held (later ones are left to the next window read), a
 * timer never waits longer than the sweep, and at most `size` automations are being fired at once
 * per replica (a time that falls due meanwhile is taken as soon as some finish). The next window is
 * read while a quarter of this one is left, so its end does not wait for a read.
 */

/** setTimeout's longest delay; a longer one would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Window reads a burst of schedule changes causes are at least this far apart. */
export const REFRESH_SPACING_MS = 100;

/** A time to wake at: an automation due then, or (no id) a claim's lease running out. */
export interface DueEntry {
  at: number;
  id: string | null;
}

export interface DueWindow {
  /** Due times after `after`, earliest first, at most `limit`. */
  entries: DueEntry[];
  /** Whether the window was full: due times after its last one were not read. */
  full: boolean;
  /** The earliest lease of a claimed slot (ms), if any. */
  leaseUntil: number | null;
}

export interface DueTimerDeps {
  clock: () => number;
  /** Reads the window: due times strictly after `after` (ms; -Infinity: all), earliest first. */
  load: (after: number, limit: number) => Promise<DueWindow>;
  /** Fires the automations `ids` that are due at `now`; `orphans`: takes expired claims over first. */
  fire: (ids: string[], now: number, orphans: boolean) => Promise<void>;
  /** The sweep's full pass. */
  sweep: () => Promise<void>;
  warn: (message: string) => void;
  /** Due times read per window, and automations fired per firing at most. */
  size: number;
  /** The longest a timer waits (the sweep re-reads and re-arms anyway). */
  maxDelayMs: number;
  /** Whether this replica's timers fire automation `id` (the others' fire theirs). */
  mine: (id: string) => boolean;
  /** How many replicas share the automations: a window reads that many times `size`, keeps its share. */
  replicas: () => number;
}

export class DueTimer {
  /** Known due times, ascending by `at`. */
  private entries: DueEntry[] = [];
  private keys = new Set<string>();
  /** Due times after this one were not read (the window was full): hints beyond it are dropped. */
  private horizon = Infinity;
  /** Every due time up to this one was taken by a firing of this replica. */
  private takenUntil = -Infinity;
  private timer?: NodeJS.Timeout;
  private armedFor = Infinity;
  /** Automations being fired now. */
  private firing = 0;
  private readonly inFlight = new Set<Promise<void>>();
  private loading?: Promise<void>;
  private refreshTimer?: NodeJS.Timeout;
  private lastLoadAt = -Infinity;
  private sweeping?: Promise<void>;
  private stopped = false;

  constructor(private readonly deps: DueTimerDeps) {}

  /** Reads the first window and arms. */
  start(): Promise<void> {
    return this.reload();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.clear();
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    await Promise.all([...this.inFlight, this.loading, this.sweeping]);
  }

  /** The safety sweep: a full pass (expired claims included), then a fresh window. */
  sweep(): void {
    if (this.stopped || this.sweeping) return;
    this.sweeping = this.deps
      .sweep()
      .catch((err: Error) => this.deps.warn(`scheduler sweep failed: ${err.message}`))
      .then(() => this.reload())
      .finally(() => (this.sweeping = undefined));
  }

  /** An automation due at `ms` (a schedule written anywhere, an advance here). */
  hint(ms: number, id: string): void {
    if (this.stopped || !Number.isFinite(ms) || ms > this.horizon) return;
    this.insert({ at: ms, id });
    this.arm();
  }

  /** A schedule was written: read the window again soon (after any read already under way). */
  refresh(): void {
    if (this.stopped || this.refreshTimer) return;
    const wait = Math.max(0, this.lastLoadAt + REFRESH_SPACING_MS - Date.now());
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = undefined;
      void Promise.resolve(this.loading).then(() => this.reload());
    }, wait);
    this.refreshTimer.unref();
  }

  /** The window again from the store (on start, when used up, on a sweep, when a node leaves). */
  reload(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (!this.loading) this.lastLoadAt = Date.now();
    this.loading ??= this.deps
      .load(this.takenUntil, this.deps.size * Math.max(1, this.deps.replicas()))
      .then((window) => {
        // Known times above the new horizon are left to the next read, as the window's own are.
        const horizon = window.full ? window.entries[window.entries.length - 1].at : Infinity;
        const kept = this.entries.filter((e) => e.at <= horizon && (e.id === null || this.deps.mine(e.id)));
        this.entries = [];
        this.keys.clear();
        this.horizon = horizon;
        for (const e of kept) this.insert(e);
        // A time already taken and still due is a slot in flight (here or on another replica) or
        // one that failed: the sweep is its safety net, not a timer that would fire over and over.
        for (const e of window.entries) if (e.at > this.takenUntil) this.insert(e);
        if (window.leaseUntil !== null) this.insert({ at: window.leaseUntil + 1, id: null });
      })
      .catch((err: Error) => this.deps.warn(`scheduler: reading the due times failed: ${err.message}`))
      .finally(() => {
        this.loading = undefined;
        this.arm();
      });
    return this.loading;
  }

  private insert(entry: DueEntry): void {
    if (entry.id !== null && !this.deps.mine(entry.id)) return;
    const key = `${entry.at}|${entry.id}`;
    if (this.keys.has(key)) return;
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.entries[mid].at <= entry.at) lo = mid + 1;
      else hi = mid;
    }
    this.entries.splice(lo, 0, entry);
    this.keys.add(key);
    if (this.entries.length > 2 * this.deps.size) {
      for (const gone of this.entries.splice(2 * this.deps.size)) this.keys.delete(`${gone.at}|${gone.id}`);
      this.horizon = this.entries[this.entries.length - 1].at;
    }
  }

  /** One timer, for the earliest known time (at once if it is due). */
  private arm(): void {
    if (this.stopped) return;
    // Most of a full window used: read the next one (lease wake-ups may lie past the horizon).
    if (this.horizon !== Infinity && !this.loading && this.windowLeft() < this.deps.size / 4)
      void this.reload();
    const next = this.entries[0];
    if (next === undefined) return this.clear();
    if (this.firing >= this.deps.size) return; // the next firing to end re-arms
    if (this.timer && this.armedFor <= next.at) return;
    this.clear();
    const delay = Math.min(Math.max(0, next.at - this.deps.clock()), this.deps.maxDelayMs, MAX_TIMER_MS);
    this.armedFor = next.at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.armedFor = Infinity;
      this.fire();
    }, delay);
    this.timer.unref();
  }

  /** Known times up to the horizon (what is left of the window). */
  private windowLeft(): number {
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.entries[mid].at <= this.horizon) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.armedFor = Infinity;
  }

  /** Takes the times due now (as many automations as may be fired at once) and fires them. */
  private fire(): void {
    const room = this.deps.size - this.firing;
    if (this.stopped || room <= 0) return;
    const now = this.deps.clock();
    const ids = new Set<string>();
    let orphans = false;
    let taken = 0;
    while (taken < this.entries.length && this.entries[taken].at <= now && ids.size < room) {
      const e = this.entries[taken++];
      if (e.id === null) orphans = true;
      else ids.add(e.id);
    }
    const due = this.entries.splice(0, taken);
    for (const e of due) this.keys.delete(`${e.at}|${e.id}`);
    if (due.length > 0) this.takenUntil = Math.max(this.takenUntil, due[due.length - 1].at);
    // Taken up to the horizon of a full window: more may be due at that very time than the window
    // held (many schedules at one instant), and the next read starts after it. A sweep fires
    // every due automation, a page at a time.
    if (due.length > 0 && this.horizon !== Infinity && this.takenUntil >= this.horizon) this.sweep();
    if (ids.size > 0 || orphans) {
      const count = ids.size;
      this.firing += count;
      const firing = this.deps
        .fire([...ids], now, orphans)
        .catch((err: Error) => this.deps.warn(`scheduler firing failed: ${err.message}`))
        .finally(() => {
          this.firing -= count;
          this.inFlight.delete(firing);
          this.arm();
        });
      this.inFlight.add(firing);
    }
    this.arm();
  }
}

/** Whether `nodeId` owns automation `id` among the live `replicas` (FNV-1a of the id, modulo). */
export function owns(nodeId: string, replicas: readonly string[], id: string): boolean {
  if (replicas.length <= 1 || !replicas.includes(nodeId)) return true;
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  return replicas[(hash >>> 0) % replicas.length] === nodeId;
}
