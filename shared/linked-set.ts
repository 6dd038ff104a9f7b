/**
 * A set of objects whose members come and go all the time (a request's response, in while it is
 * answered), kept as a doubly linked list through the members themselves, not in a JS Set.
 *
 * Why not a Set: V8 stores a Set in a hash table that it rebuilds as entries come and go, and each
 * table it leaves behind keeps a link to the next one and the members it held when it was left.
 * Once one of those tables has reached the old generation (a quiet minute is enough), every later
 * table, and every member each one held, survives the young generation's collections and is
 * copied into the old generation, until the next full GC. Behind the gateway's drain that was
 * about 4 KB a proxied request (the responses in flight and all they reach) and most of the proxy's
 * GC time (docs/performance-rounds.md, the proxy's seventh round). A list has no table: a member that
 * leaves is unlinked and its links cleared, so nothing dead points at anything alive.
 *
 * Each member carries two symbol-keyed links while it is in the set (set to null once it leaves);
 * an object can be a member of one LinkedSet at a time.
 */
const PREV = Symbol("linked-set.prev");
const NEXT = Symbol("linked-set.next");

interface Links {
  [PREV]: Links | null;
  [NEXT]: Links | null;
}

export class LinkedSet<T extends object> implements Iterable<T> {
  /** The list's ends meet here: head[NEXT] is the oldest member, head[PREV] the newest. */
  private readonly head: Links = { [PREV]: null, [NEXT]: null };
  private count = 0;

  constructor() {
    this.head[PREV] = this.head[NEXT] = this.head;
  }

  get size(): number {
    return this.count;
  }

  has(member: T): boolean {
    return (member as Partial<Links>)[NEXT] != null;
  }

  /** Adds `member` (nothing when it is one already). */
  add(member: T): this {
    const node = member as T & Links;
    if (node[NEXT] != null) return this;
    const last = this.head[PREV]!;
    node[PREV] = last;
    node[NEXT] = this.head;
    last[NEXT] = node;
    this.head[PREV] = node;
    this.count++;
    return this;
  }

  /** Removes `member` and clears its links; false when it was not a member. */
  delete(member: T): boolean {
    const node = member as Partial<Links>;
    const prev = node[PREV];
    const next = node[NEXT];
    if (prev == null || next == null) return false;
    prev[NEXT] = next;
    next[PREV] = prev;
    node[PREV] = node[NEXT] = null;
    this.count--;
    return true;
  }

  /** The members when the iteration began, oldest first (a drain's walk, rare: a copy is fine). */
  [Symbol.iterator](): Iterator<T> {
    const members: T[] = [];
    for (let node = this.head[NEXT]!; node !== this.head; node = node[NEXT]!)
      members.push(node as unknown as T);
    return members[Symbol.iterator]();
  }
}
