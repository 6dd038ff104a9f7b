/**
 * shared/linked-set.ts: the gateway drain's set of responses in flight (and of sockets). It must
 * answer as a Set would (membership, size, order), and a member that leaves must keep no link to
 * the others or to the set: that is what keeps a finished response from holding the live ones (and
 * they it) past the young generation's collections, the reason it is not a Set.
 */
import { LinkedSet } from "../../shared/linked-set";
import { seeded } from "../support/random-docs";

const linksOf = (member: object) =>
  Object.getOwnPropertySymbols(member)
    .filter((s) => s.description?.startsWith("linked-set."))
    .map((s) => (member as Record<symbol, unknown>)[s]);

test("answers as a Set would: add, delete, has, size and order, over 20,000 random steps", () => {
  const next = seeded(26);
  const members = Array.from({ length: 40 }, (_, id) => ({ id }));
  const linked = new LinkedSet<{ id: number }>();
  const set = new Set<{ id: number }>();
  for (let step = 0; step < 20_000; step++) {
    const member = members[Math.floor(next() * members.length)];
    const roll = next();
    if (roll < 0.45) {
      expect(linked.add(member)).toBe(linked);
      set.add(member);
    } else if (roll < 0.9) expect(linked.delete(member)).toBe(set.delete(member));
    else expect(linked.has(member)).toBe(set.has(member));
    expect(linked.size).toBe(set.size);
    if (step % 97 === 0) expect([...linked]).toEqual([...set]);
  }
  expect([...linked]).toEqual([...set]);
});

test("a member that leaves keeps no link to the others or to the set", () => {
  const linked = new LinkedSet<object>();
  const [a, b, c] = [{}, {}, {}];
  linked.add(a).add(b).add(c);
  expect(linksOf(b)).toHaveLength(2);
  expect(linksOf(b).every((link) => link !== null)).toBe(true);
  linked.delete(b);
  expect(linksOf(b)).toEqual([null, null]);
  expect([...linked]).toEqual([a, c]);
  // Emptied: the last ones too.
  linked.delete(a);
  linked.delete(c);
  expect(linksOf(a)).toEqual([null, null]);
  expect(linksOf(c)).toEqual([null, null]);
  expect(linked.size).toBe(0);
  expect([...linked]).toEqual([]);
});

test("iterating while members leave and join walks the members it began with", () => {
  const linked = new LinkedSet<{ id: number }>();
  const members = Array.from({ length: 5 }, (_, id) => ({ id }));
  for (const m of members) linked.add(m);
  const seen: number[] = [];
  for (const m of linked) {
    seen.push(m.id);
    linked.delete(m);
    if (m.id === 0) linked.delete(members[1]);
    if (m.id === 2) linked.add({ id: 9 });
  }
  expect(seen).toEqual([0, 1, 2, 3, 4]);
  expect([...linked].map((m) => m.id)).toEqual([9]);
});
