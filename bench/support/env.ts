/** Bench settings from the environment: an integer with a floor, or the bench stops saying which. */
export function intEnv(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  const n = raw ? Number(raw) : fallback;
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}`);
  return n;
}
