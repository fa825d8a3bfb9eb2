/**
 * `like` as SQL means it, on patterns and values of every shape a small alphabet gives (escapes, `_` runs longer than a
 * machine word, characters outside the BMP), and decided in about one pass over a long value whatever the pattern.
 */
import { likes, reference } from './like-reference';


/** A small deterministic generator (mulberry32), so a failure is seen again. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test('agrees with the SQL meaning on thousands of random patterns and values', () => {
  const next = random(30);
  const pick = (alphabet: readonly string[], length: number) => Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
  const disagreements: [string, string][] = [];
  for (let n = 0; n < 6000; n++) {
    const pattern = pick(['a', 'b', '😀', '%', '_', '\\', 'a', '_'], Math.floor(next() * 9));
    const value = pick(['a', 'b', '😀', '%', '_', '\\'], Math.floor(next() * 11));
    if (likes(pattern, value) !== reference(pattern, value)) disagreements.push([pattern, value]);
  }
  expect(disagreements).toEqual([]);
});

test('runs of `_` longer than a machine word, between and around `%`', () => {
  const value = `${'x'.repeat(50)}a${'y'.repeat(70)}b${'z'.repeat(40)}`;
  const patterns = [
    `%a${'_'.repeat(70)}b%`,
    `%a${'_'.repeat(69)}b%`,
    `%a${'_'.repeat(71)}b%`,
    `${'_'.repeat(50)}a%${'_'.repeat(40)}`,
    `%_${'y'.repeat(33)}_%b_%`,
    `%${'_y'.repeat(35)}b%z`,
    `${'_'.repeat(value.length)}`,
    `${'_'.repeat(value.length + 1)}`,
    `%a%${'_'.repeat(33)}y%b%`,
  ];
  for (const pattern of patterns) expect([pattern, likes(pattern, value)]).toEqual([pattern, reference(pattern, value)]);
  expect(likes('%😀_😀%', 'a😀😀😀b')).toBe(true);
  expect(likes('%😀_😀', 'a😀b😀')).toBe(true);
  expect(likes('_', '😀')).toBe(true);
});

test('a long pattern on a long value that does not match is decided in about one pass (a matcher that went back to the last % took 16 s)', () => {
  const name = 'a'.repeat(200_000);
  expect(likes(`%${'a'.repeat(19_999)}b%`, name)).toBe(false);
  expect(likes(`%${'ab'.repeat(10_000)}%`, name)).toBe(false);
  expect(likes(`${'%a'.repeat(10_000)}%b`, name)).toBe(false);
  expect(likes(`%${'a_'.repeat(500)}b%`, name)).toBe(false);
  expect(likes(`%${'a_'.repeat(500)}%`, name)).toBe(true);
  expect(likes(`${'%a'.repeat(10_000)}%`, name)).toBe(true);
});
