/**
 * Password work in a bounded line (docs/security.md#stalls). A scrypt derivation (./passwords.ts)
 * takes 32 MiB and about a tenth of a second of a core, on libuv's thread pool (4 threads, shared
 * with file and DNS work). Unbounded, 20 parallel password changes queued 40 derivations there, and
 * each request's second one waited behind every request's first: all 20 ended near the end
 * together, past the request timeout on a busy 2-core machine, holding 640 MiB meanwhile.
 *
 * So at most `concurrency` requests do password work at once, each running its derivations back to
 * back, the others wait first come first served, at most `queue` of them; past that a request is
 * refused at once with a retryable 503 (it changed nothing and counts as no failed sign-in). A
 * request that waited longer than `maxWaitMs` (the request timeout: its caller has had its 504) is
 * dropped from the line unrun.
 */
import { Errors } from "moleculer";

export interface PasswordWorkLimits {
  /** Requests doing password work at once (PASSWORD_WORK_CONCURRENCY). */
  concurrency: number;
  /** Requests waiting at most (PASSWORD_WORK_QUEUE). */
  queue: number;
  /** A request that waited longer is dropped unrun. */
  maxWaitMs: number;
}

/** 503: too many sign-ins and password changes are being worked on; nothing was done. */
export class PasswordWorkBusyError extends Errors.MoleculerRetryableError {
  constructor(reason: string) {
    super(
      `Too many sign-ins and password changes at once (${reason}); retry shortly`,
      503,
      "SERVICE_UNAVAILABLE",
    );
    this.name = "PasswordWorkBusyError";
  }
}

interface Waiting {
  since: number;
  start(): void;
  refuse(err: Error): void;
}

export class PasswordWork {
  private running = 0;
  private readonly waiting: Waiting[] = [];

  constructor(private readonly limits: PasswordWorkLimits) {}

  /** Runs `work` (a request's whole password work) when a place is free; refuses it if the line is full. */
  run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running < this.limits.concurrency) return this.runNow(work);
    if (this.waiting.length >= this.limits.queue)
      return Promise.reject(new PasswordWorkBusyError("line full"));
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({
        since: Date.now(),
        start: () => this.runNow(work).then(resolve, reject),
        refuse: reject,
      });
    });
  }

  /** Requests doing password work now, and waiting (the unit tests read it). */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  private async runNow<T>(work: () => Promise<T>): Promise<T> {
    this.running += 1;
    try {
      return await work();
    } finally {
      this.running -= 1;
      this.startNext();
    }
  }

  private startNext(): void {
    const now = Date.now();
    for (let next = this.waiting.shift(); next; next = this.waiting.shift()) {
      if (now - next.since <= this.limits.maxWaitMs) return next.start();
      next.refuse(new PasswordWorkBusyError("waited past the request timeout"));
    }
  }
}
