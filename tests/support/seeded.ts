/**
 * A small seeded random generator (mulberry32) for property tests: the same
 * seed gives the same case.
 *
 * @module
 */

/** Draws from a seeded sequence. */
export interface Seeded {
  /** Whether an event of probability `p` happens. */
  chance(p: number): boolean;
  /** An integer in `[min, max]`. */
  int(min: number, max: number): number;
}

/**
 * A generator for one seed.
 *
 * @param seed The seed.
 * @returns Its draws.
 */
export function generator(seed: number): Seeded {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    chance: (p: number) => next() < p,
    int: (min: number, max: number) =>
      min + Math.floor(next() * (max - min + 1)),
  };
}
