/**
 * Deterministic ids and randomness for the seed: every seeded document's `_id` is derived from a
 * stable key (`course:sourdough-basics`), so re-running the seed finds the same documents instead of
 * adding new ones, and references between seeded documents need no lookups.
 */
import { createHash } from 'node:crypto';
import { Types } from 'mongoose';

/** The ObjectId of the seeded document with this key. */
export function seedId(key: string): Types.ObjectId {
  return new Types.ObjectId(createHash('sha1').update(`school-seed:${key}`).digest('hex').slice(0, 24));
}

/** A small deterministic PRNG (mulberry32), so the demo school looks the same every time. */
export function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
    chance: (p: number) => next() < p,
  };
}
