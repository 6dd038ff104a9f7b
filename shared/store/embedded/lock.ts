/** The embedded store's lock file: one process owns a data directory at a time. */
import fs from "node:fs";

/** Lock files this process holds: a LOCK naming our own pid is stale unless it is in here. */
export const locksHeldHere = new Set<string>();

export function acquireLock(file: string, dir: string): void {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: "wx" });
      locksHeldHere.add(file);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    let holder = NaN;
    try {
      holder = Number(fs.readFileSync(file, "utf8").trim());
    } catch {
      continue; // removed between our attempts: try again
    }
    if (isAlive(holder, file)) throw new Error(`store in ${dir} is held by process ${holder}`);
    fs.rmSync(file, { force: true }); // stale: its process died without closing
  }
  throw new Error(`store in ${dir} is held by another process (lock ${file} keeps reappearing)`);
}

export function isAlive(pid: number, lockFile: string): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  // Our own pid in the file is from an earlier life in a container (pid 1 again) unless we hold it now.
  if (pid === process.pid) return locksHeldHere.has(lockFile);
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

export function releaseLock(file: string): void {
  locksHeldHere.delete(file);
  try {
    if (fs.readFileSync(file, "utf8").trim() === String(process.pid)) fs.rmSync(file);
  } catch {
    /* already gone */
  }
}
