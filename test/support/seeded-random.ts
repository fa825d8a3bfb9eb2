/** A seeded random number generator for tests, so that a failing case can be replayed from its seed. */

/** A source of numbers in [0, 1). */
export type Random = () => number;

/** mulberry32: a small, well-distributed 32-bit generator. */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
