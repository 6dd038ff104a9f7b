/**
 * shared/text.ts isoOf/nowIso: the same text as `Date.prototype.toISOString`, made from a per-second
 * prefix: every millisecond, second and year boundary, times before 1970 and after 9999.
 */
import { isoOf, nowIso } from "../../shared/text";

const iso = (ms: number) => new Date(ms).toISOString();

test("equals toISOString on 5,000 random times, within and across seconds", () => {
  for (let i = 0; i < 5_000; i++) {
    const ms = Math.floor(Math.random() * 253_402_300_799_999);
    expect(isoOf(ms)).toBe(iso(ms));
    // The next milliseconds reuse the second's prefix (or cross into the next second).
    for (const step of [1, 9, 10, 99, 100, 999]) expect(isoOf(ms + step)).toBe(iso(ms + step));
  }
});

test("equals toISOString at boundaries: 0, before 1970, year ends, extended years", () => {
  const times = [
    0,
    1,
    9,
    10,
    99,
    100,
    999,
    1000,
    -1,
    -999,
    -1000,
    -1001,
    Date.UTC(1999, 11, 31, 23, 59, 59, 999),
    Date.UTC(2000, 0, 1),
    Date.UTC(2024, 1, 29, 12, 0, 0, 5),
    253_402_300_799_999,
    253_402_300_800_000,
    -62_198_755_200_001,
    8.64e15,
    -8.64e15,
  ];
  for (const ms of times) expect(isoOf(ms)).toBe(iso(ms));
});

test("a time a Date cannot hold throws as toISOString does, and the next call is still right", () => {
  expect(() => isoOf(8.64e15 + 1000)).toThrow(RangeError);
  expect(isoOf(5_123)).toBe(iso(5_123));
});

test("nowIso is the current time", () => {
  const before = Date.now();
  const now = Date.parse(nowIso());
  expect(now).toBeGreaterThanOrEqual(before);
  expect(now).toBeLessThanOrEqual(Date.now());
});
